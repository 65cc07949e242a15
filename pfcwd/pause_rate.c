// SPDX-License-Identifier: GPL-2.0
/*
 * Pause-rate early warning (pause_rate.h): pure code, serialised by the
 * caller (the storm machine's, under port->lock).
 */
#include "pause_rate.h"

/**
 * pfcwd_rate_bucket_ns - the measurement interval a source allows
 * @refresh_ns: the counters' refresh period, 0 when live
 *
 * Return: PFCWD_RATE_BUCKET_NS, or the refresh period when longer: a rate
 * cannot be known at a finer resolution than the counters move.
 */
u64 pfcwd_rate_bucket_ns(u64 refresh_ns)
{
	return refresh_ns > PFCWD_RATE_BUCKET_NS ? refresh_ns :
	       PFCWD_RATE_BUCKET_NS;
}

/**
 * pfcwd_rate_window_ns - the window in force
 * @cfg: the configuration
 *
 * Return: the configured window, or one bucket when that is longer (the
 * first bucket above the threshold already lasted that long).
 */
u64 pfcwd_rate_window_ns(const struct pfcwd_rate_config *cfg)
{
	return cfg->window_ns > cfg->bucket_ns ? cfg->window_ns :
	       cfg->bucket_ns;
}

/**
 * pfcwd_rate_pps - frames per second
 * @frames: frames counted
 * @span_ns: over this long
 *
 * Return: the rate, rounded down; 0 for an empty span.
 */
u64 pfcwd_rate_pps(u64 frames, u64 span_ns)
{
	if (!span_ns)
		return 0;
	if (frames <= PFCWD_U64_MAX / PFCWD_NSEC_PER_SEC)
		return pfcwd_div_u64(frames * PFCWD_NSEC_PER_SEC, span_ns);
	/* Beyond 1.8e10 frames: a span of seconds loses nothing that counts. */
	span_ns = pfcwd_div_u64(span_ns, PFCWD_NSEC_PER_MSEC);
	return span_ns ? pfcwd_div_u64(frames, span_ns) * 1000 : PFCWD_U64_MAX;
}

/**
 * pfcwd_counter_went_back - whether a cumulative counter was reset
 * @prev: the previous reading
 * @cur: this one
 *
 * Return: true if @cur is below @prev and that is not a 32-bit counter
 * wrapping (pfcwd_counter_delta() in storm.c reads the same way).
 */
bool pfcwd_counter_went_back(u64 prev, u64 cur)
{
	if (cur >= prev)
		return false;
	return prev > PFCWD_U32_MAX || (u32)cur - (u32)prev >= (1U << 31);
}

/**
 * pfcwd_rate_restart - forget the measurement in progress
 * @r: one direction's state
 *
 * For time that was not observed: the next sample opens a bucket, and an
 * episode not yet reported must be seen for a whole window again.  A
 * reported one stays reported until a bucket at or below the threshold.
 */
void pfcwd_rate_restart(struct pfcwd_rate *r)
{
	r->bucket_start = 0;
	r->bucket_frames = 0;
	if (!r->reported) {
		r->above_since = 0;
		r->above_frames = 0;
	}
}

/**
 * pfcwd_rate_sample - one sample's frames in one direction
 * @r: the direction's state
 * @stats: its counters
 * @cfg: the configuration in force
 * @from: the previous sample's time (the interval's start)
 * @now: this sample's time; not before @from
 * @frames: frames counted in (@from, @now]
 * @reset: the counter went back: @frames means nothing
 *
 * Return: true when an episode has just lasted the window (reported once:
 * @stats records it).
 */
bool pfcwd_rate_sample(struct pfcwd_rate *r, struct pfcwd_rate_stats *stats,
		       const struct pfcwd_rate_config *cfg, u64 from, u64 now,
		       u64 frames, bool reset)
{
	u64 span, rate, dur;
	bool above;

	if (!cfg->threshold) {
		*r = (struct pfcwd_rate){ 0 };
		return false;
	}
	if (reset) {
		pfcwd_rate_restart(r);
		r->bucket_start = now;
		return false;
	}
	if (!r->bucket_start || r->bucket_start > from) {
		r->bucket_start = from;
		r->bucket_frames = 0;
	}
	r->bucket_frames += frames;
	span = now - r->bucket_start;
	if (span < cfg->bucket_ns || !span)
		return false;
	/* Published counters: whole publications, unless none came. */
	if (cfg->refresh_ns && !frames &&
	    span < cfg->bucket_ns + cfg->refresh_ns + cfg->refresh_window_ns)
		return false;

	rate = pfcwd_rate_pps(r->bucket_frames, span);
	above = rate > cfg->threshold;
	if (above) {
		if (!r->above_since) {
			r->above_since = r->bucket_start;
			r->above_frames = 0;
		}
		r->above_frames += r->bucket_frames;
	} else {
		r->above_since = 0;
		r->above_frames = 0;
		r->reported = false;
	}
	r->bucket_start = now;
	r->bucket_frames = 0;

	if (!above || r->reported)
		return false;
	dur = now - r->above_since;
	if (dur < cfg->window_ns)
		return false;
	r->reported = true;
	stats->events++;
	stats->last_rate = pfcwd_rate_pps(r->above_frames, dur);
	stats->last_duration_ns = dur;
	stats->last_at = now;
	return true;
}
