/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Pause-rate early warning: one direction (pause frames received or sent)
 * of one priority.  Pure code (pure.h): no kernel calls, no locks, no clock
 * of its own; the storm machine (storm.c) feeds it each sample's counter
 * delta with the interval it covers, under the same serialisation as the
 * machine itself (the caller's port->lock).
 *
 * The rate is measured over buckets: a bucket runs from the sample that
 * opened it to the first sample at least cfg->bucket_ns later (so no finer
 * than PFCWD_RATE_BUCKET_NS, nor than the source's refresh period), its
 * rate the frames counted in it over its real elapsed time.  A bucket whose
 * rate is above cfg->threshold (frames per second) starts, or continues,
 * an episode; one at or below it ends the episode (the "cleared"
 * transition, which re-arms the warning; it is not reported).  An episode
 * that has lasted cfg->window_ns - from the start of its first bucket to
 * the end of its latest - is reported once: pfcwd_rate_sample() returns
 * true, counts stats->events and records the episode's mean rate and its
 * duration so far.  So the effective window is at least one bucket
 * (pfcwd_rate_window_ns()).
 *
 * Published counters (cfg->refresh_ns > 0) move only when the driver
 * republishes them: a bucket then ends only on a sample that brought
 * frames (a publication), so that each bucket holds whole publications,
 * or once it has lasted a bucket plus a period plus the publication
 * window without any (the rate is then low, or zero).
 *
 * A counter that went back (a driver reset, not a 32-bit wrap) says
 * nothing of its interval: the bucket restarts at that sample and an
 * unreported episode is dropped (its window must be observed afresh), so
 * no rate is ever taken from a reset.  pfcwd_rate_restart() does the same
 * for time nobody observed (the storm machine re-primed).
 */
#ifndef _PFCWD_PAUSE_RATE_H
#define _PFCWD_PAUSE_RATE_H

#include "pure.h"

/* The shortest bucket, as the slow-receiver alert's. */
#define PFCWD_RATE_BUCKET_NS	(100 * PFCWD_NSEC_PER_MSEC)

enum pfcwd_rate_dir {
	PFCWD_RATE_DIR_RX,	/* pause frames received (XOFF requests) */
	PFCWD_RATE_DIR_TX,	/* pause frames sent */
	PFCWD_RATE_DIRS
};

struct pfcwd_rate_config {
	u32 threshold;		/* frames per second; 0 = off */
	u64 window_ns;		/* how long the rate must stay above it */
	u64 bucket_ns;		/* measurement interval: pfcwd_rate_bucket_ns() */
	u64 refresh_ns;		/* counters published this often; 0 = live */
	u64 refresh_window_ns;	/* ...each up to this late */
};

struct pfcwd_rate_stats {
	u64 events;		/* episodes reported */
	u64 last_rate;		/* the last report: mean rate, frames/s */
	u64 last_duration_ns;	/* ...how long it had been above */
	u64 last_at;		/* ...and when (the sample's time) */
};

struct pfcwd_rate {
	u64 bucket_start;	/* 0: no bucket open */
	u64 bucket_frames;
	u64 above_since;	/* 0: no episode */
	u64 above_frames;	/* frames of the episode's closed buckets */
	bool reported;		/* the episode was reported */
};

u64 pfcwd_rate_bucket_ns(u64 refresh_ns);
u64 pfcwd_rate_window_ns(const struct pfcwd_rate_config *cfg);
u64 pfcwd_rate_pps(u64 frames, u64 span_ns);
void pfcwd_rate_restart(struct pfcwd_rate *r);
bool pfcwd_rate_sample(struct pfcwd_rate *r, struct pfcwd_rate_stats *stats,
		       const struct pfcwd_rate_config *cfg, u64 from, u64 now,
		       u64 frames, bool reset);
bool pfcwd_counter_went_back(u64 prev, u64 cur);

#endif /* _PFCWD_PAUSE_RATE_H */
