// SPDX-License-Identifier: GPL-2.0
/*
 * The poller: samples every port's counters and runs its state machines.
 *
 * One hrtimer (hard irq, absolute CLOCK_MONOTONIC) fires at the earliest
 * time any port is due and does nothing but queue the poll work on an
 * ordered, high-priority workqueue: counters are read in process context
 * because drivers sleep in ieee_getpfc().  The work polls every due port,
 * each read under its own short RTNL hold (never more than one device read
 * per hold, so other RTNL users are not starved), then re-arms the timer.
 *
 * Cadence, per port:
 *  - quiet (no priority paused, stormed or generating pause): every
 *    poll_quiet_us, on a grid shared by all quiet ports so that one wake-up
 *    serves them all;
 *  - busy: every poll_fine_us, and exactly at the next deadline a state
 *    machine reports (T0 after a pause began, T1 after the last XOFF), so
 *    transitions do not wait for the next tick.
 * A storm is first seen at most one quiet interval after it starts and is
 * then timed from that sample: detection lands in [T0, T0 + quiet + fine]
 * and restoration in [T1, T1 + fine] (plus scheduling latency); the sum
 * quiet + fine is reported as the granularity.
 *
 * Context: the timer callback runs in hard irq; everything else in process
 * context.  Only the work touches port->next_poll and port->poll_next
 * (pfcwd_report_pause() and config changes may zero next_poll to ask for
 * an early poll).  Each polled port is pinned by a reference.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/rculist.h>
#include <linux/rtnetlink.h>
#include <linux/workqueue.h>

#include "pfcwd.h"

/* Ports due this close to now are polled in the same pass. */
#define PFCWD_POLL_SLACK_NS	(50 * NSEC_PER_USEC)

static struct hrtimer pfcwd_timer;
static struct workqueue_struct *pfcwd_wq;
static struct work_struct pfcwd_poll_work;
static bool pfcwd_poll_stopping;

static enum hrtimer_restart pfcwd_timer_fn(struct hrtimer *timer)
{
	queue_work(pfcwd_wq, &pfcwd_poll_work);
	return HRTIMER_NORESTART;
}

/* Polls as soon as possible; any context. */
void pfcwd_poll_kick(void)
{
	if (!READ_ONCE(pfcwd_poll_stopping))
		queue_work(pfcwd_wq, &pfcwd_poll_work);
}

u64 pfcwd_poll_granularity_ns(void)
{
	return ((u64)READ_ONCE(pfcwd_params.poll_quiet_us) +
		READ_ONCE(pfcwd_params.poll_fine_us)) * NSEC_PER_USEC;
}

/* Samples one port and acts on the result.  Process context. */
static void pfcwd_poll_port(struct pfcwd_port *port)
{
	unsigned int events[PFCWD_NUM_PRIO] = {};
	u64 quiet = (u64)READ_ONCE(pfcwd_params.poll_quiet_us) * NSEC_PER_USEC;
	u64 fine = (u64)READ_ONCE(pfcwd_params.poll_fine_us) * NSEC_PER_USEC;
	struct pfcwd_storm_config scfg;
	struct pfcwd_counters c;
	struct pfcwd_sample s;
	u64 next, deadline = U64_MAX;
	bool busy = false, any = false;
	int p;

	rtnl_lock();
	if (port->dead) {
		rtnl_unlock();
		WRITE_ONCE(port->next_poll, U64_MAX);
		return;
	}
	pfcwd_source_read(port, &c);
	rtnl_unlock();

	mutex_lock(&port->lock);
	if (!port->cfg.enabled) {
		mutex_unlock(&port->lock);
		WRITE_ONCE(port->next_poll, U64_MAX);
		return;
	}
	if (!port->link_up) {
		/* Nothing flows: keep the state, re-prime once the link is back. */
		port->reprime = true;
		mutex_unlock(&port->lock);
		WRITE_ONCE(port->next_poll, U64_MAX);
		return;
	}
	if (c.pfc_valid)
		port->pfc_en = c.pfc_en;
	pfcwd_port_storm_config(port, &scfg);
	for (p = 0; p < PFCWD_NUM_PRIO; p++) {
		struct pfcwd_storm *sm = &port->prio[p].sm;

		if (!(port->cfg.prios & BIT(p)))
			continue;
		if (port->reprime)
			sm->primed = false;
		pfcwd_source_sample(port, p, &c, &s);
		events[p] = pfcwd_storm_sample(sm, &scfg, &s);
		any |= events[p] != 0;
		busy |= pfcwd_storm_busy(sm);
		deadline = min(deadline, pfcwd_storm_deadline(sm, &scfg));
	}
	port->reprime = false;
	mutex_unlock(&port->lock);

	if (any) {
		rtnl_lock();
		mutex_lock(&port->lock);
		if (!port->dead)
			for (p = 0; p < PFCWD_NUM_PRIO; p++)
				if (events[p])
					pfcwd_action_events(port, p, events[p]);
		mutex_unlock(&port->lock);
		rtnl_unlock();
	}

	if (busy) {
		next = c.now + fine;
	} else {
		/* The next point of the grid shared by quiet ports. */
		u64 q = c.now + quiet;

		next = c.now + quiet - do_div(q, quiet);
	}
	if (deadline < next)
		next = max(deadline, c.now + PFCWD_POLL_SLACK_NS);
	WRITE_ONCE(port->next_poll, next);
}

static void pfcwd_poll_work_fn(struct work_struct *work)
{
	struct pfcwd_port *port, *due = NULL;
	u64 now = ktime_get_ns(), next = U64_MAX;

	rcu_read_lock();
	list_for_each_entry_rcu(port, &pfcwd_ports, node) {
		if (READ_ONCE(port->next_poll) > now + PFCWD_POLL_SLACK_NS)
			continue;
		if (!refcount_inc_not_zero(&port->refcnt))
			continue;
		port->poll_next = due;
		due = port;
	}
	rcu_read_unlock();

	while (due) {
		port = due;
		due = port->poll_next;
		pfcwd_poll_port(port);
		pfcwd_port_put(port);
		cond_resched();
	}

	rcu_read_lock();
	list_for_each_entry_rcu(port, &pfcwd_ports, node)
		next = min(next, READ_ONCE(port->next_poll));
	rcu_read_unlock();

	if (next == U64_MAX || READ_ONCE(pfcwd_poll_stopping))
		return;
	if (next <= ktime_get_ns())
		queue_work(pfcwd_wq, &pfcwd_poll_work);
	else
		hrtimer_start(&pfcwd_timer, ns_to_ktime(next), HRTIMER_MODE_ABS);
}

int pfcwd_poll_init(void)
{
	pfcwd_wq = alloc_ordered_workqueue("pfcwd", WQ_HIGHPRI);
	if (!pfcwd_wq)
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
	destroy_workqueue(pfcwd_wq);
}
