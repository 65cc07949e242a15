// SPDX-License-Identifier: GPL-2.0
/*
 * The poller: samples every port's counters and runs its state machines.
 *
 * One hrtimer (hard irq, absolute CLOCK_MONOTONIC) fires at the earliest
 * time any port is due and does nothing but queue the poll work on an
 * ordered, high-priority workqueue: counters are read in process context
 * because drivers sleep in ieee_getpfc().  The work polls every due port,
 * each under its own short RTNL hold (one port per hold: its read and, if
 * its machines ask, one pfc_en write, so other RTNL users are not
 * starved), then re-arms the timer.  In that hold the port is read, then,
 * under port->lock as well, its state machines run and their events are
 * carried out (pfc_en, the datapath): an event is applied under the lock
 * that decided it, so a disable, an unwatch, a restore by hand or a netns
 * move comes before the decision or after the action, never between.
 *
 * Cadence, per port:
 *  - quiet (no priority paused, stormed or generating pause): every
 *    poll_quiet_us, on a grid shared by all quiet ports so that one wake-up
 *    serves them all - or less often when there are so many ports that all
 *    of them together would poll more than poll_budget times a second.  A
 *    quiet poll whose counters did not move costs one driver read;
 *  - busy: every poll_fine_us, and exactly at the next deadline a state
 *    machine reports (T0 after a pause began, T1 after the last XOFF), so
 *    transitions do not wait for the next tick.
 *  - stall checks: a port whose reads are further apart than the quiet
 *    interval (forced or published counters) and whose TX queues say when
 *    they cannot send (txq_stall.c) is also visited on the quiet grid, to
 *    look at its queues only: no driver call unless one of its watched
 *    priorities is stalled.  Then a port with forced or live counters is
 *    read at once; one with published counters is not (reading before
 *    the next publication tells nothing) and its machines get a stale
 *    sample, the last counters with the queues as they are now.
 * A storm is first seen at most one quiet interval after it starts and is
 * then timed from that sample: detection lands in [T0, T0 + quiet + fine]
 * and restoration in [T1, T1 + fine], plus twice the poller's own
 * lateness (timer and work scheduling), which it measures.  The sum is
 * reported as the granularity: quiet + fine + 2 * worst recent lateness.
 *
 * Context: the timer callback runs in hard irq; everything else in process
 * context.  A pass takes RTNL, then port->lock, the order of every
 * operator path (config.c, action.c, lifecycle.c).  Only the work
 * touches port->poll_next, port->poll_due, the lateness windows and the
 * stall-check fields (stall_check, full_next, last_c; stall_prios is
 * written under RTNL and port->lock).
 * port->next_poll is the work's too, except that anyone may set it to 0
 * to ask for a poll at once (pfcwd_report_pause(), swpfc, config changes,
 * link events, restore), with no lock.  So that such a request made while
 * the port is being polled is never lost (the poll's own schedule, written
 * after it, would overwrite it: an enable or a link-up in that window left
 * a port unpolled for good), the work takes a port by swapping its
 * next_poll for PFCWD_POLL_RUNNING, and writes the next schedule only if
 * it still finds RUNNING there (cmpxchg64); a 0 written meanwhile stays
 * and the port is polled again in the next pass.  Each polled port is
 * pinned by a reference.
 *
 * What the layers below use of the poller - the kick, a poll request, the
 * quiet interval and its grid, the statistics - is in poll_req.c, below
 * them: this file sets up and tears down the workqueue and work defined
 * there (pfcwd_poll_init(), before any port exists; pfcwd_poll_exit(),
 * after the last one went) and calls down only.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/rculist.h>
#include <linux/rtnetlink.h>
#include <linux/workqueue.h>

#include "pfcwd.h"

/* port->next_poll of a port being polled (never due: after any time). */
#define PFCWD_POLL_RUNNING	(U64_MAX - 1)

static struct hrtimer pfcwd_timer;

static enum hrtimer_restart pfcwd_timer_fn(struct hrtimer *timer)
{
	queue_work(pfcwd_poll_wq, &pfcwd_poll_work);
	return HRTIMER_NORESTART;
}

/* Lateness is the worst over the current and the previous window. */
#define PFCWD_LATE_WINDOW_NS	(30 * NSEC_PER_SEC)

static u64 pfcwd_late_cur, pfcwd_late_prev, pfcwd_late_start;

static void pfcwd_poll_late(u64 now, u64 late)
{
	if (now - pfcwd_late_start >= PFCWD_LATE_WINDOW_NS) {
		pfcwd_late_prev = pfcwd_late_cur;
		pfcwd_late_cur = 0;
		pfcwd_late_start = now;
	}
	if (late > pfcwd_late_cur)
		pfcwd_late_cur = late;
	WRITE_ONCE(pfcwd_poll_stats.late_ns,
		   max(pfcwd_late_cur, pfcwd_late_prev));
}

/*
 * Sets when @port is polled next: fully at @full, and before that on the
 * quiet grid for a stall check where the port has the signal.  Poller.
 */
static void pfcwd_poll_schedule(struct pfcwd_port *port, u64 now, u64 full)
{
	u64 check = U64_MAX;

	port->full_next = full;
	if (full != U64_MAX && READ_ONCE(port->stall_prios))
		check = pfcwd_poll_quiet_next(now, pfcwd_poll_quiet_ns());
	port->stall_check = check != U64_MAX &&
			    check + PFCWD_POLL_SLACK_NS < full;
	/* Unless asked for a poll since this one began (kept: see above). */
	cmpxchg64(&port->next_poll, PFCWD_POLL_RUNNING,
		  port->stall_check ? check : full);
}

/*
 * Test only (debugfs poll_delay_us, 0 by default): holds the poller where
 * a port's next poll is about to be set, so that a test can ask for a poll
 * in that window and see that it is not lost.
 */
u32 pfcwd_poll_delay_us;

static void pfcwd_poll_test_delay(void)
{
	u32 us = min(READ_ONCE(pfcwd_poll_delay_us), 5000000U);

	if (!us)
		return;
	WRITE_ONCE(pfcwd_poll_stats.delays, pfcwd_poll_stats.delays + 1);
	fsleep(us);
}

/*
 * Test only (debugfs apply_delay_us, 0 by default): holds the poller
 * between a pass's decision to start a mitigation and carrying it out
 * (RTNL and port->lock held), so that a test can make an operator's
 * change come in that window.
 */
u32 pfcwd_poll_apply_delay_us;

static void pfcwd_poll_apply_delay(const unsigned int events[PFCWD_NUM_PRIO])
{
	u32 us = min(READ_ONCE(pfcwd_poll_apply_delay_us), 5000000U);
	int p;

	for (p = 0; p < PFCWD_NUM_PRIO; p++)
		if (events[p] & (PFCWD_EV_DETECTED | PFCWD_EV_TX_STORM))
			break;
	if (!us || p == PFCWD_NUM_PRIO)
		return;
	WRITE_ONCE(pfcwd_poll_stats.apply_delays,
		   pfcwd_poll_stats.apply_delays + 1);
	fsleep(us);
	WRITE_ONCE(pfcwd_poll_stats.apply_delays_done,
		   pfcwd_poll_stats.apply_delays_done + 1);
}

/*
 * The watched priorities of @port stalled in @c whose stall is news to
 * their machine: OPERATIONAL, and not a stall it already refuted.
 */
static u8 pfcwd_poll_new_stalls(struct pfcwd_port *port,
				const struct pfcwd_counters *c, u8 stalled)
{
	struct pfcwd_storm_config base, scfg;
	u8 news = 0;
	int p;

	mutex_lock(&port->lock);
	pfcwd_port_storm_config(port, &base);
	for (p = 0; p < PFCWD_NUM_PRIO; p++) {
		if (!(stalled & port->cfg.prios & BIT(p)))
			continue;
		pfcwd_port_prio_config(port, p, &base, &scfg);
		if (pfcwd_storm_stall_news(&port->prio[p].sm, &scfg,
					   c->stall_since[p], c->now))
			news |= BIT(p);
	}
	mutex_unlock(&port->lock);
	return news;
}

/*
 * A stall check (pfcwd_poll_schedule()): RTNL held.  Nothing stalled that
 * the machines do not know already: the poll ends here.  A stall on a port
 * whose counters are fresh when read (forced, live, none) brings its full
 * poll forward, to a busy read's distance from the last one (the reads'
 * cost bound).  On a port with
 * published counters, reading before the next publication tells nothing:
 * its machines get the last counters, stale, with the queues as they are.
 * Return: true to go on with @c.
 */
static bool pfcwd_poll_stall_check(struct pfcwd_port *port,
				   struct pfcwd_counters *c)
{
	u64 now = ktime_get_ns(), full = port->full_next;

	*c = port->last_c;
	c->now = now;
	c->pfc_valid = false;
	c->forced = false;
	c->nic_storm = 0;
	c->dur_valid = 0;
	c->stale = true;
	if (!pfcwd_poll_new_stalls(port, c, pfcwd_source_read_stall(port, c))) {
		pfcwd_poll_schedule(port, now, full);
		return false;
	}
	if (port->counters && pfcwd_source_published(port) &&
	    !READ_ONCE(port->push_active))
		return true;
	full = min(full, max(port->last_c.now + pfcwd_source_fine_ns(port),
			     now + PFCWD_POLL_SLACK_NS));
	pfcwd_poll_schedule(port, now, full);
	return false;
}

/*
 * The estimated pause history of a priority just sampled (history.c): the
 * detector's own pause episode - while OPERATIONAL the pause it follows,
 * while STORMED or LATCHED the storm's pause for as long as XOFF keeps
 * being seen (no gap over twice the hold time).  port->lock held.
 */
static void pfcwd_poll_history(struct pfcwd_prio *pp,
			       const struct pfcwd_storm_config *scfg, u64 now)
{
	const struct pfcwd_storm *sm = &pp->sm;
	u64 since = sm->pause_start, last = sm->pause_last;

	if (sm->state != PFCWD_OPERATIONAL) {
		last = max(last, sm->xoff_last);
		if (!since)
			since = sm->stormed_at;
		if (!last || now > last + 2 * scfg->hold_ns)
			since = 0;
	}
	pfcwd_hist_pause_follow(&pp->paused_est, since, last, now);
}

/* One pass over one port: what it read and what its machines ask for. */
struct pfcwd_pass {
	struct pfcwd_counters c;
	struct pfcwd_link link;
	unsigned int events[PFCWD_NUM_PRIO];
	u64 deadline;		/* a machine's or a pfc_en write's next time */
	u64 nic_due;		/* the NIC's storm prevention's next read */
	bool relink;		/* a link event came: the machines re-prime */
	bool checked;		/* a stall check, not a read */
	bool busy;		/* a machine follows a pause or a storm */
};

/* The counters, the link and the queues, read in full.  RTNL held. */
static bool pfcwd_poll_read_full(struct pfcwd_port *port,
				 struct pfcwd_pass *ps)
{
	struct pfcwd_counters *c = &ps->c;
	bool moved;

	ps->relink = pfcwd_port_link_read(port, &ps->link);
	moved = pfcwd_source_read_pfc(port, c);
	/* Another agent may have put a stormed priority back. */
	if (c->pfc_valid && c->pfc_en != READ_ONCE(port->pfc_en))
		moved = true;
	if (pfcwd_source_read_stall(port, c) & port->cfg.prios)
		moved = true;
	/* A link event: the machines re-prime (pfcwd_port_link_apply()). */
	if (ps->relink)
		moved = true;
	WRITE_ONCE(port->stall_prios, c->stall_valid & port->cfg.prios);
	port->last_c = *c;
	return moved;
}

/*
 * Reads @port for this pass: a stall check, unless the poll was asked for
 * at once (due 0) or the link changed, or a full read.  RTNL held.
 * Return: false if the pass ends here, scheduled - the stall check found
 * nothing new, or the quiet fast path: a port with nothing to follow whose
 * counters did not move, none of whose queues is stalled, needs neither
 * its stats nor its machines.
 */
static bool pfcwd_poll_read(struct pfcwd_port *port, struct pfcwd_pass *ps)
{
	struct pfcwd_counters *c = &ps->c;
	bool moved = true;
	u64 next;

	if (port->stall_check && port->poll_due && !port->link_dirty &&
	    port->poll_due + PFCWD_POLL_SLACK_NS < port->full_next) {
		if (!pfcwd_poll_stall_check(port, c))
			return false;
		ps->checked = true;
	} else {
		moved = pfcwd_poll_read_full(port, ps);
	}
	/*
	 * Lateness: from when the poll was due to when the counters were
	 * read, RTNL wait included.  A poll asked for at once (due 0) has no
	 * schedule to be late for.
	 */
	if (port->poll_due && c->now > port->poll_due)
		pfcwd_poll_late(c->now, c->now - port->poll_due);
	/* The NIC's own storm prevention may report what the counters hide. */
	if (pfcwd_nic_storm_read(port, c))
		moved = true;
	ps->nic_due = pfcwd_nic_storm_due(port);
	/* Going blind, or seeing again, is news too (pfcwd_poll_blind()). */
	if (pfcwd_source_blind(port) != port->blind)
		moved = true;
	if (!moved && READ_ONCE(port->quiet) && !READ_ONCE(port->push_active)) {
		next = pfcwd_source_next_read(port, c->now, false);
		pfcwd_poll_schedule(port, c->now, min(next, ps->nic_due));
		return false;
	}
	pfcwd_source_read_durations(port, c);
	pfcwd_source_read_stats(port, c);
	return true;
}

/*
 * Runs the machines of @port's watched priorities on the sample, keeping
 * their events in @ps.  RTNL and port->lock held.  Return: whether the
 * actions have work: events, or a pfc_en write whose time has come.
 */
static bool pfcwd_poll_machines(struct pfcwd_port *port,
				struct pfcwd_pass *ps)
{
	const struct pfcwd_counters *c = &ps->c;
	struct pfcwd_storm_config base, scfg;
	struct pfcwd_sample s;
	bool any = false;
	u64 pfc_due;
	int p;

	if (c->pfc_valid)
		pfcwd_action_pfc_read(port, c->pfc_en, c->now);
	if (READ_ONCE(port->push_active) && !port->push_seen) {
		/* The source changes from counters to pushed events. */
		port->push_seen = true;
		port->reprime = true;
	}
	pfcwd_port_storm_config(port, &base);
	for (p = 0; p < PFCWD_NUM_PRIO; p++) {
		struct pfcwd_storm *sm = &port->prio[p].sm;

		if (!(port->cfg.prios & BIT(p)))
			continue;
		pfcwd_port_prio_config(port, p, &base, &scfg);
		if (port->reprime)
			sm->primed = false;
		pfcwd_source_sample(port, p, c, &s);
		ps->events[p] = pfcwd_storm_sample(sm, &scfg, &s);
		/* The machine's time: a push source may take it after c->now. */
		pfcwd_poll_history(&port->prio[p], &scfg, s.now);
		any |= ps->events[p] != 0;
		ps->busy |= pfcwd_storm_busy(sm);
		ps->deadline = min(ps->deadline, pfcwd_storm_deadline(sm, &scfg));
	}
	port->reprime = false;
	/* A pfc_en write waiting for its gap: busy until it is made. */
	pfc_due = pfcwd_action_pfc_due(port, c->now);
	if (pfc_due != U64_MAX) {
		ps->busy = true;
		ps->deadline = min(ps->deadline, pfc_due);
	}
	WRITE_ONCE(port->quiet, !ps->busy && !any);
	return any || pfc_due <= c->now;
}

/*
 * Tells whether @port went blind (watched, and no storm can be seen) or
 * sees again.  RTNL and port->lock held.
 */
static void pfcwd_poll_blind(struct pfcwd_port *port)
{
	bool blind = pfcwd_source_blind(port);

	if (blind == port->blind)
		return;
	port->blind = blind;
	if (__ratelimit(&port->log_rs))
		pr_notice("%s %s\n", port->name, !blind ? "no longer blind" :
			  port->read_fails ?
			  "blind: counter reads keep failing, a storm cannot be seen" :
			  "blind: no source of pause information, a storm cannot be seen");
	pfcwd_action_port_event(port, PFCWD_CMD_SOURCE_BLIND, NULL);
}

/*
 * Decides and acts on what was read, in one section under RTNL and
 * port->lock: no operator's change (a disable, an unwatch, a restore by
 * hand, a netns move) can come between a machine's event and its action.
 * Return: false if the port is not to be polled until something asks for
 * it (disabled, or its link down).
 */
static bool pfcwd_poll_decide(struct pfcwd_port *port, struct pfcwd_pass *ps)
{
	int p;

	mutex_lock(&port->lock);
	if (ps->relink)
		pfcwd_port_link_apply(port, &ps->link);
	pfcwd_poll_blind(port);
	if (port->cfg.enabled && !port->link_up) {
		/* Nothing flows: keep the state, re-prime once the link is back. */
		port->reprime = true;
		for (p = 0; p < PFCWD_NUM_PRIO; p++)
			pfcwd_hist_pause_follow(&port->prio[p].paused_est, 0, 0,
						ps->c.now);
	}
	if (!port->cfg.enabled || !port->link_up) {
		WRITE_ONCE(port->quiet, false);
		mutex_unlock(&port->lock);
		return false;
	}
	if (pfcwd_poll_machines(port, ps)) {
		pfcwd_poll_apply_delay(ps->events);
		pfcwd_action_events(port, ps->events);
	}
	mutex_unlock(&port->lock);
	return true;
}

/* When @port is read next, after a pass that got to its machines. */
static u64 pfcwd_poll_next(struct pfcwd_port *port,
			   const struct pfcwd_pass *ps)
{
	u64 next = pfcwd_source_next_read(port, ps->c.now, ps->busy);
	u64 deadline = min(ps->deadline, ps->nic_due);

	/*
	 * A stall check read no counters: it may bring the next read
	 * forward, never put it off (the read schedule counts from reads;
	 * counted from checks every quiet interval, a read would not come
	 * while a stall stands).
	 */
	if (ps->checked)
		next = min(next, port->full_next);
	if (deadline < next)
		next = max(deadline, ps->c.now + PFCWD_POLL_SLACK_NS);
	return next;
}

/*
 * Samples one port and acts on the result, all under one RTNL hold.
 * Process context.
 */
static void pfcwd_poll_port(struct pfcwd_port *port)
{
	struct pfcwd_pass ps = { .deadline = U64_MAX };

	rtnl_lock();
	if (port->dead) {
		rtnl_unlock();
		pfcwd_poll_schedule(port, 0, U64_MAX);
		return;
	}
	/* Not present (a reset): no driver call; looked at again when quiet. */
	if (pfcwd_port_absent(port)) {
		u64 now = ktime_get_ns();

		rtnl_unlock();
		pfcwd_poll_schedule(port, now,
				    pfcwd_poll_quiet_next(now, pfcwd_poll_quiet_ns()));
		return;
	}
	if (!pfcwd_poll_read(port, &ps)) {
		rtnl_unlock();
		return;
	}
	if (!pfcwd_poll_decide(port, &ps)) {
		rtnl_unlock();
		pfcwd_poll_test_delay();
		pfcwd_poll_schedule(port, ps.c.now, U64_MAX);
		return;
	}
	rtnl_unlock();
	pfcwd_poll_schedule(port, ps.c.now, pfcwd_poll_next(port, &ps));
}

static void pfcwd_poll_work_fn(struct work_struct *work)
{
	struct pfcwd_port *port, *due = NULL;
	u64 now = ktime_get_ns(), next = U64_MAX;
	u64 polled = 0, prev;

	rcu_read_lock();
	list_for_each_entry_rcu(port, &pfcwd_ports, node) {
		u64 at = READ_ONCE(port->next_poll);

		if (at > now + PFCWD_POLL_SLACK_NS)
			continue;
		if (!refcount_inc_not_zero(&port->refcnt))
			continue;
		/* Taken; a request for a poll from now on replaces RUNNING. */
		while ((prev = cmpxchg64(&port->next_poll, at,
					 PFCWD_POLL_RUNNING)) != at)
			at = prev;
		port->poll_due = at;
		port->poll_next = due;
		due = port;
	}
	rcu_read_unlock();

	while (due) {
		port = due;
		due = port->poll_next;
		pfcwd_poll_port(port);
		pfcwd_port_put(port);
		polled++;
		cond_resched();
	}

	rcu_read_lock();
	list_for_each_entry_rcu(port, &pfcwd_ports, node)
		next = min(next, READ_ONCE(port->next_poll));
	rcu_read_unlock();

	WRITE_ONCE(pfcwd_poll_stats.passes, pfcwd_poll_stats.passes + 1);
	WRITE_ONCE(pfcwd_poll_stats.polls, pfcwd_poll_stats.polls + polled);
	WRITE_ONCE(pfcwd_poll_stats.work_ns,
		   pfcwd_poll_stats.work_ns + ktime_get_ns() - now);

	if (next == U64_MAX || READ_ONCE(pfcwd_poll_stopping))
		return;
	if (next <= ktime_get_ns())
		queue_work(pfcwd_poll_wq, &pfcwd_poll_work);
	else
		hrtimer_start(&pfcwd_timer, ns_to_ktime(next), HRTIMER_MODE_ABS);
}

int pfcwd_poll_init(void)
{
	pfcwd_poll_wq = alloc_ordered_workqueue("pfcwd", WQ_HIGHPRI);
	if (!pfcwd_poll_wq)
		return -ENOMEM;
	INIT_WORK(&pfcwd_poll_work, pfcwd_poll_work_fn);
	hrtimer_init(&pfcwd_timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS);
	pfcwd_timer.function = pfcwd_timer_fn;
	return 0;
}

/* Module unload, after every port is gone. */
void pfcwd_poll_exit(void)
{
	WRITE_ONCE(pfcwd_poll_stopping, true);
	/* The work re-arms the timer and the timer queues the work. */
	hrtimer_cancel(&pfcwd_timer);
	cancel_work_sync(&pfcwd_poll_work);
	hrtimer_cancel(&pfcwd_timer);
	destroy_workqueue(pfcwd_poll_wq);
}
