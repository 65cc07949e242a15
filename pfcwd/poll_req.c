// SPDX-License-Identifier: GPL-2.0
/*
 * The poller's doorbell and grid: what the layers below the poller use of
 * it, kept below them so that they never call up into poll.c.
 *
 *  - pfcwd_poll_kick() and pfcwd_poll_request() ask for a poll (config
 *    changes, link events, software PFC, pushed pauses): they queue the
 *    poll work on the poller's workqueue, both defined here and set up by
 *    poll.c (pfcwd_poll_init(): the workqueue and the work's function;
 *    pfcwd_poll_exit(): pfcwd_poll_stopping, then the teardown);
 *  - the quiet interval and its grid (pfcwd_poll_quiet_ns(),
 *    pfcwd_poll_quiet_next()) and the granularity they add up to, which
 *    the sources (source.c) time their reads by;
 *  - the poller's cost accounting (pfcwd_poll_stats), written by the
 *    poll work and by pfcwd_poll_request().
 * This file calls nothing of pfcwd's but reads the module parameters and
 * the number of ports.
 *
 * Context: any (the timer callback in hard irq included, for the kick);
 * no lock: pfcwd_poll_wq and pfcwd_poll_work are set before any port
 * exists and torn down after the last one went (main.c's order),
 * pfcwd_poll_stopping and the statistics are READ_ONCE/WRITE_ONCE, a
 * poll request claims its interval with cmpxchg64 (see below), and
 * port->next_poll follows poll.c's rules (a 0 written by anyone is a
 * request for a poll at once).
 */
#include <linux/ktime.h>
#include <linux/workqueue.h>

#include "pfcwd.h"

/* Cost accounting, for /sys/kernel/debug/pfcwd/poll; written by the work. */
struct pfcwd_poll_stats pfcwd_poll_stats;

/* The poller's (poll.c sets them up and tears them down). */
struct workqueue_struct *pfcwd_poll_wq;
struct work_struct pfcwd_poll_work;
bool pfcwd_poll_stopping;

/* Polls as soon as possible; any context. */
void pfcwd_poll_kick(void)
{
	if (!READ_ONCE(pfcwd_poll_stopping))
		queue_work(pfcwd_poll_wq, &pfcwd_poll_work);
}

/**
 * pfcwd_poll_request - a poll of @port soon: a pause began on it
 * @port: the port (pinned by the caller)
 * @now: the time, ns
 *
 * From the datapath (software PFC, a driver's pushed pause): a quiet port
 * is polled at once rather than at its next quiet tick, but at most once
 * per quiet interval, so that a peer alternating XOFF and XON cannot keep
 * the poller (and RTNL) busy with a pass per frame; a pause that begins
 * within that interval waits for the port's next poll, as on any quiet
 * port.  Any context, no lock (the interval is claimed by cmpxchg64).
 */
void pfcwd_poll_request(struct pfcwd_port *port, u64 now)
{
	u64 last = READ_ONCE(port->pause_kick_ns);

	if (READ_ONCE(port->next_poll) <= now + NSEC_PER_MSEC)
		return;
	if (last && now < last + pfcwd_poll_quiet_ns())
		return;
	if (cmpxchg64(&port->pause_kick_ns, last, now) != last)
		return;
	/* Approximate under concurrency: a statistic for tests. */
	WRITE_ONCE(pfcwd_poll_stats.requests, pfcwd_poll_stats.requests + 1);
	WRITE_ONCE(port->next_poll, 0);
	pfcwd_poll_kick();
}

/* The quiet interval in force: poll_quiet_us, stretched by the budget. */
u64 pfcwd_poll_quiet_ns(void)
{
	u64 quiet = (u64)READ_ONCE(pfcwd_params.poll_quiet_us) * NSEC_PER_USEC;
	u64 spread = div_u64((u64)READ_ONCE(pfcwd_nr_ports) * NSEC_PER_SEC,
			     READ_ONCE(pfcwd_params.poll_budget));

	return max(quiet, spread);
}

u64 pfcwd_poll_granularity_ns(void)
{
	return pfcwd_poll_quiet_ns() +
	       (u64)READ_ONCE(pfcwd_params.poll_fine_us) * NSEC_PER_USEC +
	       2 * READ_ONCE(pfcwd_poll_stats.late_ns);
}

/*
 * The next point of the grid shared by quiet ports after @now - and after
 * the slack within which a poll may come early, or a poll that came early
 * would be due again at once.
 */
u64 pfcwd_poll_quiet_next(u64 now, u64 quiet)
{
	u64 t = now + PFCWD_POLL_SLACK_NS, rem;

	div64_u64_rem(t + quiet, quiet, &rem);
	return t + quiet - rem;
}
