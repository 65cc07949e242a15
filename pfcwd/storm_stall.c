// SPDX-License-Identifier: GPL-2.0
/*
 * Transmit stalls as evidence of pause (PFCWD_SAMPLE_STALL; see storm.h
 * for the model): whether a stall has lasted long enough to count, and
 * whether the pause counters since confirmed or refuted it.  What a stall
 * that stands for T0 does is the machine's (storm.c).
 *
 * Pure code (pure.h): no kernel calls, no locking, no clock.  Every function
 * runs in whatever context its caller is in; the caller serialises the
 * calls on one machine (pfcwd's poller does so under the port's lock).
 */
#include "storm_est.h"

/* The stall in @s, if it has lasted long enough to count; else 0. */
u64 pfcwd_storm_stalled(const struct pfcwd_storm_config *cfg,
			const struct pfcwd_sample *s)
{
	u64 since = s->stall_since;

	if (!(s->valid & PFCWD_SAMPLE_STALL) || !since || since > s->now ||
	    s->now - since < cfg->stall_min_ns)
		return 0;
	return since;
}

/*
 * A transmit stall, with pause counters (storm.h): follows the stall in
 * @s, confirmed by XOFF (@xoff: frames or pause time in this sample) or
 * refuted by a @fresh reading without any that must include a publication
 * made after it began.  Return: when the stall began, if it stands; 0.
 */
u64 pfcwd_storm_stall(struct pfcwd_storm *sm,
		      const struct pfcwd_storm_config *cfg,
		      const struct pfcwd_sample *s, bool xoff,
		      bool fresh)
{
	u64 since = pfcwd_storm_stalled(cfg, s);

	if (!since) {
		sm->stall_start = 0;
		return 0;
	}
	sm->stall_last = s->now;
	/* Not from before the machine was primed or last restored. */
	if (since < sm->pause_floor)
		since = sm->pause_floor;
	/*
	 * A later start with the queues still stopped (their stamp's jiffy
	 * still open, or a frame out on another queue of the class): the
	 * same stall, its bound moved.  Judged again from there, counted once.
	 */
	if (since != sm->stall_start) {
		if (!sm->stall_start)
			sm->stall_counted = false;
		sm->stall_start = since;
		sm->stall_xoff = false;
		sm->stall_refuted = false;
	}
	if (xoff) {
		sm->stall_xoff = true;
	} else if (fresh && !sm->stall_xoff && !sm->stall_refuted &&
		   s->now >= since + cfg->hold_ns + cfg->refresh_ns +
			     cfg->refresh_window_ns) {
		sm->stall_refuted = true;
		if (!sm->stall_counted)
			sm->stats.stalls_refuted++;
		sm->stall_counted = true;
	}
	return sm->stall_refuted ? 0 : since;
}

/**
 * pfcwd_storm_stall_news - is a transmit stall news to the machine?
 * @sm: the machine
 * @cfg: its configuration
 * @since: when the priority's queues stopped sending (0: they did not)
 * @now: the time
 *
 * For a caller that sees the queues between samples: true if a sample now
 * would follow a stall the machine does not follow yet (OPERATIONAL, long
 * enough to count, not one it refuted).
 */
bool pfcwd_storm_stall_news(const struct pfcwd_storm *sm,
			    const struct pfcwd_storm_config *cfg, u64 since,
			    u64 now)
{
	if (sm->state != PFCWD_OPERATIONAL || !since || since > now ||
	    now - since < cfg->stall_min_ns)
		return false;
	if (since < sm->pause_floor)
		since = sm->pause_floor;
	return !(sm->stall_refuted && since == sm->stall_start);
}
