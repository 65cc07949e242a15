// SPDX-License-Identifier: GPL-2.0
/*
 * pfcsim's pause model: the pause counters (requests, indications) and
 * durations, which are not driven by timers but computed from a base and
 * the time since they have been rising; the copy of them, and of the
 * port's frame totals (frame_counters), that stats_period_ms (the publish
 * work) and stats_refresh_on_read report; counter_reset; the carrier
 * bounce of a PFC change (setpfc_bounce_ms, the bounce work); and
 * push_pause, which reports the received pause to pfcwd through
 * pfcwd_report_pause().
 *
 * Locking and context:
 *  - port->lock (a spinlock, taken with BH disabled) protects the counters
 *    and durations, their copy and its schedule, the driver knobs, port->up, the bounce
 *    deadline and port->dead; slow_pct, which the durations read, is
 *    written with it and ring_lock held.  The functions here that take a port, but
 *    for the works and push, are called with it held, in process context
 *    (debugfs, the dcbnl and ethtool ops under RTNL, ndo_open, the works).
 *    Nothing sleeps under it.
 *  - The frame totals add the packet counters (port->rx, port->tx[]) to
 *    the pause counters.  Their writers (inject_rx under inject_lock, the
 *    TX path under ring_lock) do not take port->lock: they are read with
 *    the u64_stats retry loops, under port->lock so that a copy's totals
 *    and pause counters are of the same instant.
 *  - port->publish_work (a delayed work, system_highpri_wq) and
 *    port->bounce_work (system_wq), process context, take port->lock and
 *    re-arm themselves only while !port->dead.  The publication is a NIC's
 *    firmware or periodic task, which the host's load does not hold up,
 *    so it does not wait behind pktgen and the tests' threads on
 *    system_wq in a loaded guest.  The carrier is turned on and off under
 *    port->lock, so that the bounce work never turns on the carrier of a
 *    port that is down.
 *  - The push timer (hrtimer, softirq) reads ind_rising locklessly and
 *    calls pfcwd_report_pause(), which any context may call.  push_lock (a
 *    mutex) serialises turning it on and off (process context).
 *
 * Calls no other file of pfcsim (it reads the packet counters itself).
 */
#include <linux/hrtimer.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/random.h>
#include <linux/spinlock.h>
#include <linux/u64_stats_sync.h>
#include <linux/workqueue.h>
#include <net/pfcwd.h>

#include "pfcsim.h"

/* --- pause model (port->lock held) -------------------------------------- */

static u64 pfcsim_pause_read(const struct pfcsim_pause *ctr, bool rising,
			     u32 rate, ktime_t now)
{
	s64 ns;

	if (!rising)
		return ctr->base;
	ns = ktime_to_ns(ktime_sub(now, ctr->since));
	if (ns <= 0)
		return ctr->base;
	return ctr->base + mul_u64_u32_div(ns, rate, NSEC_PER_SEC);
}

static void pfcsim_read_pause(struct pfcsim_port *port, ktime_t now,
			      u64 *requests, u64 *indications)
{
	int p;

	lockdep_assert_held(&port->lock);
	for (p = 0; p < PFCSIM_NUM_PRIO; p++) {
		requests[p] = pfcsim_pause_read(&port->req[p],
						port->req_rising & BIT(p),
						port->pause_rate, now);
		indications[p] = pfcsim_pause_read(&port->ind[p],
						   port->ind_rising & BIT(p),
						   port->pause_rate, now);
	}
}

/*
 * A pause duration in ns: @base, plus the time since @since if rising, or
 * its paused share (100 - slow_pct %) for a slow receiver's priority.
 */
static u64 pfcsim_dur_read(const struct pfcsim_port *port, int p, ktime_t now)
{
	const struct pfcsim_pause *dur = &port->dur[p];
	s64 ns = ktime_to_ns(ktime_sub(now, dur->since));

	if (!(port->dur_rising & BIT(p)) || ns <= 0)
		return dur->base;
	if (port->dur_slow & BIT(p))
		return dur->base + div_u64((u64)ns * (100 - port->slow_pct),
					   100);
	return dur->base + ns;
}

/*
 * The data frames received and sent so far, all priorities together: the
 * sums of what rx_prioP_packets and tx_prioP_packets show.  Their writers
 * (inject_rx, the TX path) do not take port->lock: u64_stats retry loops.
 */
static void pfcsim_read_packets(const struct pfcsim_port *port,
				u64 *rx, u64 *tx)
{
	const struct pfcsim_queue_stats *q;
	unsigned int start;
	u64 sum, n;
	int p;

	do {
		start = u64_stats_fetch_begin(&port->rx.syncp);
		sum = 0;
		for (p = 0; p < PFCSIM_NUM_PRIO; p++)
			sum += u64_stats_read(&port->rx.packets[p]);
	} while (u64_stats_fetch_retry(&port->rx.syncp, start));
	*rx = sum;

	sum = 0;
	for (p = 0; p < PFCSIM_NUM_PRIO; p++) {
		q = &port->tx[p];
		do {
			start = u64_stats_fetch_begin(&q->syncp);
			n = u64_stats_read(&q->packets);
		} while (u64_stats_fetch_retry(&q->syncp, start));
		sum += n;
	}
	*tx = sum;
}

/*
 * The live counters and durations (in microseconds) at @now, and the
 * frame totals: data frames plus the pause frames received (indications)
 * or sent (requests), so that a copy holds both from the same instant.
 */
static void pfcsim_read_live(struct pfcsim_port *port, ktime_t now,
			     struct pfcsim_snap *snap)
{
	int p;

	pfcsim_read_pause(port, now, snap->req, snap->ind);
	pfcsim_read_packets(port, &snap->rx_frames, &snap->tx_frames);
	for (p = 0; p < PFCSIM_NUM_PRIO; p++) {
		snap->dur[p] = div_u64(pfcsim_dur_read(port, p, now),
				       NSEC_PER_USEC);
		snap->rx_frames += snap->ind[p];
		snap->tx_frames += snap->req[p];
		/* A 32-bit hardware counter: it wraps, the totals do not. */
		if (port->counter_32bit) {
			snap->req[p] = lower_32_bits(snap->req[p]);
			snap->ind[p] = lower_32_bits(snap->ind[p]);
		}
	}
}

/* Whether readers get the copy in port->pub rather than live counters. */
static bool pfcsim_copied(const struct pfcsim_port *port)
{
	return port->knob[PFCSIM_K_STATS_PERIOD] ||
	       port->knob[PFCSIM_K_REFRESH_ON_READ];
}

/* Takes the copy that readers get while pfcsim_copied(). */
void pfcsim_publish(struct pfcsim_port *port, ktime_t now)
{
	lockdep_assert_held(&port->lock);
	pfcsim_read_live(port, now, &port->pub);
}

/* The counters as the port's readers see them: live or the copy. */
void pfcsim_read_counters(struct pfcsim_port *port, ktime_t now,
			  struct pfcsim_snap *snap)
{
	lockdep_assert_held(&port->lock);
	if (pfcsim_copied(port))
		*snap = port->pub;
	else
		pfcsim_read_live(port, now, snap);
}

/* Brings every counter's base up to @now, before an input changes. */
void pfcsim_fold(struct pfcsim_port *port, ktime_t now)
{
	u64 req[PFCSIM_NUM_PRIO], ind[PFCSIM_NUM_PRIO];
	int p;

	pfcsim_read_pause(port, now, req, ind);
	for (p = 0; p < PFCSIM_NUM_PRIO; p++) {
		port->req[p].base = req[p];
		port->req[p].since = now;
		port->ind[p].base = ind[p];
		port->ind[p].since = now;
		port->dur[p].base = pfcsim_dur_read(port, p, now);
		port->dur[p].since = now;
	}
}

/*
 * counter_preset: every pause counter, live and copied, to @val (so that a
 * test reaches a 32-bit wrap in a fraction of a second).
 */
void pfcsim_preset_counters(struct pfcsim_port *port, ktime_t now, u64 val)
{
	int p;

	lockdep_assert_held(&port->lock);
	pfcsim_fold(port, now);
	for (p = 0; p < PFCSIM_NUM_PRIO; p++) {
		port->req[p].base = val;
		port->ind[p].base = val;
	}
	if (pfcsim_copied(port))
		pfcsim_publish(port, now);
}

/* counter_reset: every counter and duration, live and copied, to 0. */
void pfcsim_reset_counters(struct pfcsim_port *port, ktime_t now)
{
	int p;

	lockdep_assert_held(&port->lock);
	for (p = 0; p < PFCSIM_NUM_PRIO; p++) {
		port->req[p].base = 0;
		port->req[p].since = now;
		port->ind[p].base = 0;
		port->ind[p].since = now;
		port->dur[p].base = 0;
		port->dur[p].since = now;
	}
	memset(&port->pub, 0, sizeof(port->pub));
}

/*
 * How late after its grid point the next copy comes: a driver's periodic
 * task is a timer and a work item, both of which run late.  Never half a
 * period or more, so that copies keep their order on the grid.
 */
static unsigned long pfcsim_pub_delay(const struct pfcsim_port *port)
{
	u32 j = min(port->knob[PFCSIM_K_STATS_JITTER],
		    port->knob[PFCSIM_K_STATS_PERIOD] / 2);

	return j ? msecs_to_jiffies(get_random_u32() % (j + 1)) : 0;
}

/*
 * After a write to stats_period_ms, stats_refresh_on_read or profile: a
 * fresh copy if readers get one, and the period restarted from @now.
 */
void pfcsim_stats_restart(struct pfcsim_port *port, ktime_t now)
{
	unsigned long period;

	lockdep_assert_held(&port->lock);
	if (pfcsim_copied(port))
		pfcsim_publish(port, now);
	if (!port->knob[PFCSIM_K_STATS_PERIOD] || port->dead)
		return;	/* a pending work finds period 0 and stops */
	period = msecs_to_jiffies(port->knob[PFCSIM_K_STATS_PERIOD]);
	port->pub_next = jiffies + period;
	port->pub_delay = pfcsim_pub_delay(port);
	mod_delayed_work(system_highpri_wq, &port->publish_work,
			 period + port->pub_delay);
}

/* Every stats_period_ms: a new copy; re-arms itself.  Process context. */
void pfcsim_publish_work(struct work_struct *work)
{
	struct pfcsim_port *port = container_of(to_delayed_work(work),
						struct pfcsim_port,
						publish_work);
	unsigned long period, now;

	spin_lock_bh(&port->lock);
	if (!port->knob[PFCSIM_K_STATS_PERIOD] || port->dead)
		goto out;
	period = msecs_to_jiffies(port->knob[PFCSIM_K_STATS_PERIOD]);
	now = jiffies;
	/* Early (the period was restarted meanwhile): wait until due. */
	if (time_before(now, port->pub_next + port->pub_delay)) {
		mod_delayed_work(system_highpri_wq, &port->publish_work,
				 port->pub_next + port->pub_delay - now);
		goto out;
	}
	port->pub_at = ktime_get();
	pfcsim_publish(port, port->pub_at);
	/* On a fixed grid, unless the work fell a whole period behind. */
	port->pub_next += period;
	if (!time_after(port->pub_next, now))
		port->pub_next = now + period;
	port->pub_delay = pfcsim_pub_delay(port);
	mod_delayed_work(system_highpri_wq, &port->publish_work,
			 port->pub_next + port->pub_delay - now);
out:
	spin_unlock_bh(&port->lock);
}

/*
 * A successful ieee_setpfc changed pfc_en: the carrier goes down for
 * setpfc_bounce_ms (extending a bounce already under way).
 */
void pfcsim_bounce(struct pfcsim_port *port, ktime_t now)
{
	u32 ms = port->knob[PFCSIM_K_SETPFC_BOUNCE];

	lockdep_assert_held(&port->lock);
	if (!ms || port->dead)
		return;
	port->bounce_until = ktime_add_ms(now, ms);
	if (port->up)
		netif_carrier_off(port->dev);
	mod_delayed_work(system_wq, &port->bounce_work, msecs_to_jiffies(ms));
}

/* The end of a bounce: carrier back on if the port is up.  Process context. */
void pfcsim_bounce_work(struct work_struct *work)
{
	struct pfcsim_port *port = container_of(to_delayed_work(work),
						struct pfcsim_port,
						bounce_work);
	ktime_t now;
	s64 left;

	spin_lock_bh(&port->lock);
	now = ktime_get();
	if (pfcsim_bouncing(port, now)) {
		/* Extended, or the jiffies timer was a little early. */
		left = ktime_to_ns(ktime_sub(port->bounce_until, now));
		if (!port->dead)
			mod_delayed_work(system_wq, &port->bounce_work,
					 usecs_to_jiffies(div_u64(left,
								  NSEC_PER_USEC) + 1));
	} else if (port->up) {
		netif_carrier_on(port->dev);
	}
	spin_unlock_bh(&port->lock);
}

/* --- push_pause (push_lock; the timer in softirq) ------------------------- */

#define PFCSIM_PUSH_PERIOD_NS	NSEC_PER_MSEC

enum hrtimer_restart pfcsim_push_tick(struct hrtimer *timer)
{
	struct pfcsim_port *port = container_of(timer, struct pfcsim_port,
						push_timer);
	u8 rising = READ_ONCE(port->ind_rising);
	int p;

	for (p = 0; p < PFCSIM_NUM_PRIO; p++)
		if (rising & BIT(p))
			port->push_fn(port->dev, p, 0xffff);
	hrtimer_forward_now(timer, ns_to_ktime(PFCSIM_PUSH_PERIOD_NS));
	return HRTIMER_RESTART;
}

/* Turns pushing on or off; process context. */
int pfcsim_push_set(struct pfcsim_port *port, bool on)
{
	int err = 0;

	mutex_lock(&port->push_lock);
	if (on && !port->push_fn) {
		port->push_fn = symbol_get(pfcwd_report_pause);
		if (port->push_fn)
			hrtimer_start(&port->push_timer,
				      ns_to_ktime(PFCSIM_PUSH_PERIOD_NS),
				      HRTIMER_MODE_REL_SOFT);
		else
			err = -ENOENT;
	} else if (!on && port->push_fn) {
		hrtimer_cancel(&port->push_timer);
		port->push_fn = NULL;
		symbol_put(pfcwd_report_pause);
	}
	mutex_unlock(&port->push_lock);
	return err;
}
