// SPDX-License-Identifier: GPL-2.0
/*
 * The per-priority storm state machine; see storm.h for the model.
 *
 * Pure code (pure.h): no kernel calls, no locking, no clock.  Every function
 * runs in whatever context its caller is in; the caller serialises the
 * calls on one machine (pfcwd's poller does so under the port's lock).
 */
#include "storm_est.h"

/*
 * Growth of a counter between two readings.  A smaller reading is a 32-bit
 * wrap when the old value fit in 32 bits and the wrapped difference is
 * plausible (under 2^31), otherwise a reset: everything since counts.
 */
u64 pfcwd_counter_delta(u64 prev, u64 cur)
{
	u32 wrapped;

	if (cur >= prev)
		return cur - prev;
	if (prev <= PFCWD_U32_MAX) {
		wrapped = (u32)cur - (u32)prev;
		if (wrapped < (1U << 31))
			return wrapped;
	}
	return cur;
}

void pfcwd_storm_init(struct pfcwd_storm *sm)
{
	*sm = (struct pfcwd_storm){ .state = PFCWD_OPERATIONAL };
}

/* Ends any pause tracking; keeps the state, the history and the stats. */
static void pfcwd_storm_quiet(struct pfcwd_storm *sm)
{
	sm->pause_start = 0;
	sm->pause_last = 0;
	sm->tx_start = 0;
	sm->tx_last = 0;
	sm->stall_start = 0;
}

/**
 * pfcwd_storm_forget - back to OPERATIONAL, silently
 * @sm: the machine
 *
 * For a watchdog that is disabled or reconfigured: no event, no restoration
 * counted; the counters are re-primed by the next sample.  Stats are kept.
 */
void pfcwd_storm_forget(struct pfcwd_storm *sm)
{
	struct pfcwd_storm_stats stats = sm->stats;

	pfcwd_storm_init(sm);
	sm->stats = stats;
}

void pfcwd_storm_clear_stats(struct pfcwd_storm *sm)
{
	sm->stats = (struct pfcwd_storm_stats){ 0 };
}

/* Number of storms recorded within @window before (and at) @now. */
static u32 pfcwd_storm_recent(struct pfcwd_storm *sm, u64 now, u64 window)
{
	u32 i, n = 0;

	for (i = 0; i < sm->history_len; i++) {
		u64 t = sm->history[i];

		if (t <= now && now - t < window)
			n++;
	}
	return n;
}

static void pfcwd_storm_record(struct pfcwd_storm *sm, u64 now)
{
	sm->history[sm->history_head] = now;
	sm->history_head = (sm->history_head + 1) % PFCWD_STORM_HISTORY;
	if (sm->history_len < PFCWD_STORM_HISTORY)
		sm->history_len++;
}

/*
 * Restore backoff (storm.h): the level a storm detected at @now gets - one
 * above the last storm's when that one was restored less than the storm
 * window before, else 0; always 0 with backoff off.
 */
static u32 pfcwd_storm_next_level(const struct pfcwd_storm *sm,
				  const struct pfcwd_storm_config *cfg, u64 now)
{
	if (!cfg->backoff || !sm->backoff_end || now < sm->backoff_end ||
	    now - sm->backoff_end >= cfg->storm_window_ns)
		return 0;
	if (sm->backoff_level >= PFCWD_STORM_BACKOFF_MAX)
		return PFCWD_STORM_BACKOFF_MAX;
	return sm->backoff_level + 1;
}

/**
 * pfcwd_storm_backoff - the restore backoff level in force
 * @sm: the machine
 * @cfg: its configuration
 * @now: the time
 *
 * Return: STORMED or LATCHED, the storm's level; OPERATIONAL, the level a
 * storm detected at @now would get; 0 with backoff off.
 */
u32 pfcwd_storm_backoff(const struct pfcwd_storm *sm,
			const struct pfcwd_storm_config *cfg, u64 now)
{
	if (!cfg->backoff)
		return 0;
	if (sm->state != PFCWD_OPERATIONAL)
		return sm->backoff_level;
	return pfcwd_storm_next_level(sm, cfg, now);
}

/**
 * pfcwd_storm_restore_ns - the restoration time of a storm
 * @cfg: the configuration in force
 * @level: the storm's backoff level (pfcwd_storm_backoff())
 *
 * Return: cfg->restore_ns (T1) with backoff off or at level 0; else
 * T1 << @level, at most 16 * T1 and 60 s, and never below T1.
 */
u64 pfcwd_storm_restore_ns(const struct pfcwd_storm_config *cfg, u32 level)
{
	u64 t1 = cfg->restore_ns, cap, t;

	if (!cfg->backoff || !level)
		return t1;
	if (level > PFCWD_STORM_BACKOFF_MAX)
		level = PFCWD_STORM_BACKOFF_MAX;
	cap = t1 << PFCWD_STORM_BACKOFF_MAX;
	if (cap > PFCWD_STORM_BACKOFF_CAP_NS)
		cap = PFCWD_STORM_BACKOFF_CAP_NS;
	t = t1 << level;
	if (t > cap)
		t = cap;
	return t > t1 ? t : t1;
}

/* The restoration time of the storm in progress. */
static u64 pfcwd_storm_t1(const struct pfcwd_storm *sm,
			  const struct pfcwd_storm_config *cfg)
{
	return pfcwd_storm_restore_ns(cfg, sm->backoff_level);
}

/* Enters STORMED (or LATCHED for @latch) for a storm detected at @now. */
static unsigned int pfcwd_storm_enter(struct pfcwd_storm *sm,
				      const struct pfcwd_storm_config *cfg,
				      u64 now, enum pfcwd_latch latch)
{
	unsigned int ev = PFCWD_EV_DETECTED;
	u64 span;

	sm->backoff_level = pfcwd_storm_next_level(sm, cfg, now);
	sm->stats.detected++;
	sm->stats.last_detected_at = now;
	sm->stats.last_paused_ns = now - sm->pause_start;
	sm->stormed_at = now;
	sm->xoff_last = sm->pause_last;
	sm->stall_woke = false;
	sm->storm_samples = 0;
	sm->xoff_while_mitigated = false;
	sm->blind_suspect = false;
	sm->pub_paused = true;
	sm->cut_frames = 0;
	/*
	 * The storm's rate, a lower bound (pfcwd_storm_pub_end()): its first
	 * interval's (set there), or more.  With published counters the
	 * frames since the episode began came after the publication its
	 * first read saw, made after the read before that one: up to a
	 * period and its window before the episode's start, however soon
	 * after the previous one the reads saw them.  A period alone makes
	 * the rate too high, and the storm's end too early.
	 */
	span = sm->pause_last - sm->pause_start;
	if (cfg->refresh_ns)
		span += cfg->refresh_ns + cfg->refresh_window_ns;
	if (span >= 1024 &&
	    (!sm->rate_span ||
	     sm->pause_frames * (sm->rate_span >> 10) >
	     sm->rate_frames * (span >> 10))) {
		sm->rate_frames = sm->pause_frames;
		sm->rate_span = span;
	}

	pfcwd_storm_record(sm, now);
	if (latch == PFCWD_LATCH_NONE && cfg->storm_limit &&
	    pfcwd_storm_recent(sm, now, cfg->storm_window_ns) >= cfg->storm_limit)
		latch = PFCWD_LATCH_LIMIT;

	if (latch != PFCWD_LATCH_NONE) {
		sm->state = PFCWD_LATCHED;
		sm->latch = latch;
		ev |= PFCWD_EV_LATCHED;
	} else {
		sm->state = PFCWD_STORMED;
	}
	return ev;
}

/*
 * Do @n pause frames, the earliest of which may be as early as @from and
 * the latest at @to, continue an episode that so far had @ep_frames frames
 * over @ep_span ns?  See storm.h: dense enough to leave no gap longer than
 * the hold time, and at least half what the episode's rate predicts.
 */
static bool pfcwd_storm_joins(const struct pfcwd_storm_config *cfg, u64 n,
			      u64 from, u64 to, u64 ep_frames, u64 ep_span)
{
	u64 len, expected;

	if (to <= from)
		return true;
	len = to - from;
	if (!cfg->hold_ns)
		return false;
	/* n * hold >= len, without overflowing */
	if (n <= pfcwd_div_u64(len, cfg->hold_ns) && n * cfg->hold_ns < len)
		return false;
	if (!ep_frames || ep_span < cfg->hold_ns)
		return true;		/* no rate yet */
	/* ep_frames * len / ep_span, in units of 1024 ns against overflow */
	expected = pfcwd_div_u64(ep_frames * (len >> 10), (ep_span >> 10) ?: 1);
	return 2 * n >= expected;
}

/*
 * Received pause from a source that knows the pause state (storm.h): the
 * pause in force began at pause_since (not before pause_floor); detection
 * once it has lasted T0.  No pause at the sample ends the episode.
 */
static unsigned int pfcwd_storm_rx_exact(struct pfcwd_storm *sm,
					 const struct pfcwd_storm_config *cfg,
					 const struct pfcwd_sample *s, u64 since,
					 u64 n, u64 last)
{
	if (!since || since > s->now) {
		sm->pause_start = 0;
		sm->pause_last = 0;
		return 0;
	}
	if (since < sm->pause_floor)
		since = sm->pause_floor;
	if (sm->pause_start != since) {
		sm->pause_start = since;
		sm->pause_last = since;
		sm->pause_frames = 0;
	}
	if (n) {
		sm->pause_frames += n;
		if (last > sm->pause_last)
			sm->pause_last = last;
	}
	if (s->now - sm->pause_start >= cfg->detect_ns)
		return pfcwd_storm_enter(sm, cfg, s->now, PFCWD_LATCH_NONE);
	return 0;
}

/*
 * Slack of a pause time that covers an interval of @span: 1/16 + 10 us,
 * plus how uncertain the times of the interval's two reads are.
 */
static u64 pfcwd_storm_dur_slack(u64 span, u64 err)
{
	return (span >> 4) + 10000 + err;
}

/*
 * Published counters: @n frames over @len as the storm's rate, taken from
 * one frame fewer (frames are counted whole: an interval can hold one
 * more than its rate times its length, one at each edge), if higher than
 * the one it has.  Either is a lower bound, so the higher is too.
 */
static void pfcwd_storm_rate_raise(struct pfcwd_storm *sm, u64 n, u64 len)
{
	if (n > 1 && len >= 1024 &&
	    (!sm->rate_span ||
	     (n - 1) * (sm->rate_span >> 10) > sm->rate_frames * (len >> 10))) {
		sm->rate_frames = n - 1;
		sm->rate_span = len;
	}
}

/*
 * Published pause time (storm.h): the storm's rate from @n frames over
 * @d of pause, a lower bound (one frame fewer, the pause time to its
 * slack longer: the last frame's quanta outlast it), kept if higher than
 * the one the episode has.  Frames come only while paused, so this holds
 * from the first publication, where frames alone need a whole period;
 * the frames place the storm's end by it once mitigation took the
 * priority out of pfc_en and its pause time stands still.
 */
static void pfcwd_storm_dur_rate(struct pfcwd_storm *sm, u64 n, u64 d)
{
	pfcwd_storm_rate_raise(sm, n, d + pfcwd_storm_dur_slack(d, 0));
}

/*
 * Published pause time, STORMED: the first publication read since the
 * priority left pfc_en (PFCWD_SAMPLE_DUR_OFF in its sample, not in the
 * one before) - mitigation, which came after detection.  Its pause time
 * @d stopped at the mitigation or at the publication, whichever came
 * first: no earlier than the earlier of detection and @from, the
 * earliest the publication can have been made.  The storm was paused
 * without a break up to there, so its frames @n came since that less @d
 * at the earliest, to the publication at @at at the latest: a lower
 * bound of the storm's rate, where the pause time alone gives none (a
 * storm detected from its queues before its first publication was read
 * would otherwise be restored a period late).
 */
static void pfcwd_storm_cut_rate(struct pfcwd_storm *sm, u64 n, u64 d,
				 u64 at, u64 from)
{
	u64 stop = from < sm->stormed_at ? from : sm->stormed_at, len;

	if (!n || !d || stop <= d || at <= stop - d)
		return;
	len = at - (stop - d);
	pfcwd_storm_rate_raise(sm, n, len + pfcwd_storm_dur_slack(len, 0));
}

/*
 * The earliest the publication @s saw can have been made: after the read
 * before, and no more than a window before the grid's earliest for it.
 */
static u64 pfcwd_storm_pub_earliest(const struct pfcwd_storm_config *cfg,
				    const struct pfcwd_sample *s)
{
	u64 from = s->paused_err < s->paused_at ?
		   s->paused_at - s->paused_err : 0;

	if (s->pub_at && s->pub_lo > cfg->refresh_window_ns &&
	    s->pub_lo - cfg->refresh_window_ns > from &&
	    s->pub_lo < s->paused_at)
		from = s->pub_lo - cfg->refresh_window_ns;
	return from;
}

/*
 * STORMED, published pause time: the pause time in @s that moved since
 * the last sample, if the publication whose frames came without it is
 * waiting for it (cut_frames): that publication's rate, now, for the
 * next one.  Return: whether it was.
 */
static bool pfcwd_storm_cut_pending(struct pfcwd_storm *sm,
				    const struct pfcwd_sample *s)
{
	if (!sm->cut_frames || !(s->valid & PFCWD_SAMPLE_DURATION) ||
	    s->paused_ns <= sm->prev_paused_ns)
		return false;
	pfcwd_storm_cut_rate(sm, sm->cut_frames,
			     s->paused_ns - sm->prev_paused_ns, sm->cut_at,
			     sm->cut_from);
	sm->cut_frames = 0;
	return true;
}

/*
 * Received pause from a pause-duration counter (storm.h): @d ns paused in
 * the interval since the previous sample, with @n XOFF frames.
 */
static unsigned int pfcwd_storm_rx_duration(struct pfcwd_storm *sm,
					    const struct pfcwd_storm_config *cfg,
					    const struct pfcwd_sample *s, u64 n,
					    u64 d)
{
	u64 now = s->now, at = s->paused_at;
	u64 span = at > sm->prev_paused_at ? at - sm->prev_paused_at : 0;
	u64 err = s->paused_err + sm->prev_paused_err, start;

	/*
	 * Published: continuous only if the pause time covers the longest
	 * the interval can have been (from the earliest the previous
	 * publication can have been made); the errors are not slack.
	 */
	if (cfg->refresh_ns) {
		span = at + sm->prev_paused_err > sm->prev_paused_at ?
		       at + sm->prev_paused_err - sm->prev_paused_at : 0;
		err = 0;
	}

	if (!d) {
		sm->pause_start = 0;
		sm->pause_last = 0;
		return 0;
	}
	if (!sm->pause_start || d + pfcwd_storm_dur_slack(span, err) < span) {
		/* Began in the interval, or a gap in it: its tail at most. */
		start = at - (d < span ? d : span);
		if (start < sm->pause_floor)
			start = sm->pause_floor;
		sm->pause_start = start;
		sm->pause_frames = 0;
		sm->rate_frames = 0;
		sm->rate_span = 0;
	}
	/* Not over an interval in which PFC came back (straddled). */
	if (cfg->refresh_ns && !sm->dur_was_off)
		pfcwd_storm_dur_rate(sm, n, d);
	sm->pause_last = now;
	if (now - sm->pause_start >= cfg->detect_ns)
		return pfcwd_storm_enter(sm, cfg, now, PFCWD_LATCH_NONE);
	return 0;
}

/* A standing stall that has lasted T0: a storm, from when it began. */
static unsigned int pfcwd_storm_stall_due(struct pfcwd_storm *sm,
					  const struct pfcwd_storm_config *cfg,
					  u64 since, u64 now)
{
	if (!since || now - since < cfg->detect_ns)
		return 0;
	/*
	 * Before the counters showed it, nothing is known of the storm's
	 * rate (a rate from an earlier storm would take its first
	 * publication, half an interval, for one that ran out).
	 */
	if (!sm->pause_start) {
		sm->pause_frames = 0;
		sm->rate_frames = 0;
		sm->rate_span = 0;
		sm->pub_last = 0;
		sm->pub_from = 0;
	}
	if (!sm->pause_start || since < sm->pause_start)
		sm->pause_start = since;
	/* The queues say the pause is still on. */
	sm->pause_last = now;
	return pfcwd_storm_enter(sm, cfg, now, PFCWD_LATCH_NONE);
}

/*
 * Published counters: the longest time @s's frames can have come over,
 * at least @span.  They came after the publication that the read before
 * (pub_after) saw, which was made at most a period and its window before
 * that read: over at most the gap between the reads plus a period and a
 * window.  Reads a period apart can see two publications in one read
 * when the first of them came just after the earlier read (a publication
 * late by a timer's rounding, the next on time), and reads further apart
 * (a loaded host, a read put off) may have missed several.  A rate taken
 * over less is too high: the next publication of a storm that goes on
 * looks like one that ran out, and restores it early.
 */
static u64 pfcwd_storm_pub_span(const struct pfcwd_storm_config *cfg,
				const struct pfcwd_sample *s, u64 span)
{
	u64 max_span;

	if (!s->pub_after || s->pub_after >= s->now)
		return span;
	max_span = s->now - s->pub_after + cfg->refresh_ns +
		   cfg->refresh_window_ns;
	return max_span > span ? max_span : span;
}

/*
 * Received pause: episode tracking and detection, in OPERATIONAL.  An
 * episode continues while each interval's XOFF frames join the previous
 * ones without a gap longer than the hold time; otherwise a new one starts
 * at the first frame (for a counter source: at the sample).
 */
/*
 * A counter episode begins with the interval's frames.  Its rate counts
 * frames after its start only; a publication's pause began by the time it
 * was made, and after the priority last sent.
 */
static void pfcwd_storm_episode_begin(struct pfcwd_storm *sm,
				      const struct pfcwd_storm_config *cfg,
				      const struct pfcwd_sample *s, u64 n,
				      u64 first)
{
	sm->pause_start = s->pub_at && s->pub_at < first ? s->pub_at : first;
	if (sm->pause_start < sm->tx_at)
		sm->pause_start = sm->tx_at;
	sm->pause_last = first > sm->pause_start ? first : sm->pause_start;
	sm->pause_frames = 0;
	if (!cfg->refresh_ns) {
		sm->rate_frames = 0;
		sm->rate_span = 0;
		return;
	}
	/*
	 * Published: the frames that began it came over the whole interval
	 * at least (a lower bound of the rate, for when the storm ends), or
	 * since the earliest the previous one came, or over every period the
	 * reads may have missed.
	 */
	sm->rate_frames = n;
	sm->rate_span = cfg->refresh_ns;
	if (s->pub_after && sm->pub_from && s->now - sm->pub_from > cfg->refresh_ns)
		sm->rate_span = s->now - sm->pub_from;
	sm->rate_span = pfcwd_storm_pub_span(cfg, s, sm->rate_span);
}

/* The counters' pause episode: joined, begun or ended by this sample. */
static void pfcwd_storm_count_episode(struct pfcwd_storm *sm,
				      const struct pfcwd_storm_config *cfg,
				      const struct pfcwd_sample *s, u64 n,
				      u64 first, u64 last)
{
	/* Where the interval's frames may begin: exact, or its start. */
	u64 from = s->xoff_first ? first : sm->prev_now;

	if (!n) {
		/* A publication without XOFF ends a pause at once. */
		if (sm->pause_start && (cfg->refresh_ns ||
					s->now > sm->pause_last + cfg->hold_ns)) {
			sm->pause_start = 0;
			sm->pause_last = 0;
		}
		return;
	}
	if (!sm->pause_start || from > sm->pause_last + cfg->hold_ns ||
	    !pfcwd_storm_joins(cfg, n, from, last, sm->pause_frames,
			       sm->pause_last - sm->pause_start))
		pfcwd_storm_episode_begin(sm, cfg, s, n, first);
	else
		sm->pause_frames += n;
	if (last > sm->pause_last)
		sm->pause_last = last;
}

/*
 * XOFF that may have begun within 2 * hold_ns of PFC coming back after a
 * restoration that saw the counters go blind.  A counter source's frames
 * may lie anywhere in the interval, so they are taken as early as can be.
 */
static bool pfcwd_storm_blind_loop(const struct pfcwd_storm *sm,
				   const struct pfcwd_storm_config *cfg,
				   const struct pfcwd_sample *s, u64 n,
				   u64 first)
{
	u64 from = s->xoff_first ? first : sm->prev_now;

	if (!sm->blind_suspect || !n)
		return false;
	if (from < sm->blind_from)
		from = sm->blind_from;
	return from < sm->blind_from + 2 * cfg->hold_ns + cfg->refresh_ns +
		      cfg->refresh_window_ns;
}

static unsigned int pfcwd_storm_rx_counters(struct pfcwd_storm *sm,
					    const struct pfcwd_storm_config *cfg,
					    const struct pfcwd_sample *s, u64 n,
					    u64 first, u64 last, u64 d_paused)
{
	if (s->valid & PFCWD_SAMPLE_PAUSE)
		return pfcwd_storm_rx_exact(sm, cfg, s, s->pause_since, n, last);
	if (cfg->stall_only)
		return pfcwd_storm_rx_exact(sm, cfg, s,
					    pfcwd_storm_stalled(cfg, s), 0,
					    s->now);
	if ((s->valid & (PFCWD_SAMPLE_DURATION | PFCWD_SAMPLE_DUR_OFF)) ==
	    PFCWD_SAMPLE_DURATION)
		return pfcwd_storm_rx_duration(sm, cfg, s, n, d_paused);

	pfcwd_storm_count_episode(sm, cfg, s, n, first, last);
	if (!sm->pause_start)
		return 0;
	if (pfcwd_storm_blind_loop(sm, cfg, s, n, first))
		return pfcwd_storm_enter(sm, cfg, s->now, PFCWD_LATCH_BLIND);
	if (s->now - sm->pause_start >= cfg->detect_ns)
		return pfcwd_storm_enter(sm, cfg, s->now, PFCWD_LATCH_NONE);
	return 0;
}

/*
 * Transmit progress since the previous sample, stale or not.  In
 * OPERATIONAL a pause in force began after it: a priority that sends is
 * not paused (DESIGN section 4), whatever XOFF its counters show.
 */
static bool pfcwd_storm_tx_progress(struct pfcwd_storm *sm,
				    const struct pfcwd_sample *s)
{
	bool moved = (s->valid & PFCWD_SAMPLE_TX) &&
		     pfcwd_counter_delta(sm->prev_tx_progress, s->tx_progress);

	u64 at = s->tx_progress_at && s->tx_progress_at < s->now ?
		 s->tx_progress_at : s->now;

	sm->prev_tx_progress = s->tx_progress;
	if (!moved || sm->state != PFCWD_OPERATIONAL)
		return false;
	/* Dated by the stamp, not by the read that happened to see it. */
	sm->tx_at = at;
	if (sm->pause_floor < at)
		sm->pause_floor = at;
	return true;
}

/* Traffic got through: whatever pause came, it was not a stall. */
static void pfcwd_storm_sent(struct pfcwd_storm *sm)
{
	sm->pause_start = 0;
	sm->pause_last = 0;
	sm->stall_start = 0;
}

static unsigned int pfcwd_storm_rx(struct pfcwd_storm *sm,
				   const struct pfcwd_storm_config *cfg,
				   const struct pfcwd_sample *s, u64 n,
				   u64 first, u64 last, bool tx_moved,
				   u64 d_paused)
{
	unsigned int ev;
	u64 stall;

	if (tx_moved) {
		if (n || d_paused)
			sm->stats.xoff_while_tx++;
		pfcwd_storm_sent(sm);
		return 0;
	}
	stall = cfg->stall_only ? 0 :
		pfcwd_storm_stall(sm, cfg, s, n || d_paused, true);
	ev = pfcwd_storm_rx_counters(sm, cfg, s, n, first, last, d_paused);
	if (sm->state == PFCWD_OPERATIONAL)
		ev |= pfcwd_storm_stall_due(sm, cfg, stall, s->now);
	return ev;
}

/* STORMED: restoration once no XOFF came for T1 (backed off: storm.h). */
static unsigned int pfcwd_storm_restoring(struct pfcwd_storm *sm,
					  const struct pfcwd_storm_config *cfg,
					  u64 now)
{
	if (sm->state != PFCWD_STORMED ||
	    now - sm->xoff_last < pfcwd_storm_t1(sm, cfg))
		return 0;

	sm->state = PFCWD_OPERATIONAL;
	sm->backoff_end = now;
	sm->stats.restored++;
	sm->stats.last_restored_at = now;
	sm->stats.last_storm_ns = now - sm->stormed_at;
	sm->blind_suspect = cfg->disables_pfc && !sm->xoff_while_mitigated;
	sm->blind_from = now;
	sm->pause_start = 0;
	sm->pause_last = 0;
	sm->pause_floor = now;
	sm->pub_paused = false;
	sm->dur_was_off = false;
	/* The counters ended the storm while the queues stayed stopped. */
	if (sm->stall_start)
		sm->stall_refuted = true;
	return PFCWD_EV_RESTORED;
}

/*
 * Published counters: the least time between two publications, a period
 * less the window (each is due a period after the one before, and late
 * by at most the window).
 */
static u64 pfcwd_storm_pub_gap(const struct pfcwd_storm_config *cfg)
{
	return cfg->refresh_ns > cfg->refresh_window_ns ?
	       cfg->refresh_ns - cfg->refresh_window_ns : 0;
}

/*
 * The latest the publication before the one made by @at can have been
 * made: @from, the reads' bound, or the least gap before @at if earlier.
 */
static u64 pfcwd_storm_pub_before(const struct pfcwd_storm_config *cfg,
				  u64 at, u64 from)
{
	u64 gap = pfcwd_storm_pub_gap(cfg);

	return at > gap && at - gap < from ? at - gap : from;
}

/*
 * Published pause time, STORMED (storm.h): the previous publication's
 * pause ran to its end, and this one's @d covers less than the interval
 * between them: the pause ran out @d after the previous one.  Both are
 * dated at the latest they can have been made, so that end is never
 * early.  Return: true, with it in @end; false if @d covers the interval
 * (to its slack) or the interval is not known.
 */
static bool pfcwd_storm_dur_ran_out(const struct pfcwd_storm *sm,
				    const struct pfcwd_storm_config *cfg,
				    const struct pfcwd_sample *s, u64 d,
				    u64 *end)
{
	u64 at = s->paused_at, from = sm->prev_paused_at, span;
	u64 min_gap = pfcwd_storm_pub_gap(cfg);

	if (!sm->dur_on || !from || at <= from)
		return false;
	/*
	 * The previous publication was made a gap before this one at the
	 * latest, and the interval is at least that long.
	 */
	from = pfcwd_storm_pub_before(cfg, at, from);
	span = at - s->paused_err > sm->prev_paused_at ?
	       at - s->paused_err - sm->prev_paused_at : 0;
	if (span < min_gap)
		span = min_gap;
	if (d + pfcwd_storm_dur_slack(span, 0) >= span)
		return false;
	/* ...and before this one, made by @at. */
	*end = from + d < at ? from + d : at;
	return true;
}

/*
 * Published counters, STORMED: @n frames published at @to, which came
 * over an interval of at least @pred (to judge whether the storm ran out)
 * and at most @len (for its rate, so that the rate is never taken too
 * high), from the previous publication, at @from at the latest.  Fewer
 * frames than the storm's highest rate predicts for @pred, by more than
 * 1/16, means it ran out within the interval: returns where (no earlier
 * than it did, the rate being a lower bound), else @to.  So neither a
 * late read nor a late publication makes a storm that goes on look like
 * one that ran out (an early restoration would latch the storm as blind
 * counters).  A storm whose rate falls by more than 1/16 while it goes on
 * is restored T1 after the estimate and detected again from the next
 * publication.
 */
static u64 pfcwd_storm_pub_end(struct pfcwd_storm *sm, u64 n, u64 to,
			       u64 from, u64 pred, u64 len)
{
	u64 end = to;

	if (pred < 1024 || from > to)
		return to;
	/* in units of 1024 ns, against overflow */
	if (sm->rate_span >= 1024 &&
	    16 * n * (sm->rate_span >> 10) < 15 * sm->rate_frames * (pred >> 10)) {
		end = from + pfcwd_div_u64(n * (sm->rate_span >> 10),
					   sm->rate_frames ?: 1) * 1024;
		if (end > to)
			end = to;
	}
	/* n frames over len: a lower bound of the rate is n - 1 over it. */
	pfcwd_storm_rate_raise(sm, n, len);
	return end;
}

/*
 * Published counters, STORMED: the interval @n frames published at @now
 * came over.  Where the reads bound both publications (pub_after,
 * pfcwd_pub_read()), between the bounds: from the latest the previous one
 * can have come, at least from the earliest this one can have come to the
 * latest the previous one can have, at most from its earliest to this
 * read.  (A publication that a timer's rounding made late after one on
 * time covers more than R, and taking it as R placed the end early.)
 * Otherwise between the reads that saw them (each late by the poll's
 * lateness) or the period R (each late by the driver's task's): a
 * late publication leaves the next a shorter interval.  The frames
 * predicted over the shorter of the two, the rate kept over the longer.
 */
static u64 pfcwd_storm_pub_frames(struct pfcwd_storm *sm,
				  const struct pfcwd_storm_config *cfg,
				  const struct pfcwd_sample *s, u64 n)
{
	u64 now = s->now, r = cfg->refresh_ns, span = now - sm->pub_last;
	u64 gap = pfcwd_storm_pub_gap(cfg), from, pred, at;

	if (s->pub_after && sm->pub_from && sm->pub_last &&
	    s->pub_after < now && sm->pub_from < sm->pub_last) {
		/*
		 * Two publications are at least a period less a window
		 * apart, however wide the reads leave them (a phase not
		 * known yet, or reads at the window's end).
		 */
		from = sm->pub_last;
		pred = s->pub_after > from ? s->pub_after - from : 0;
		at = s->pub_at && s->pub_at < now ? s->pub_at : now;
		from = pfcwd_storm_pub_before(cfg, at, from);
		if (pred < gap)
			pred = gap;
		return pfcwd_storm_pub_end(sm, n, now, from, pred,
					   now - sm->pub_from);
	}
	if (!sm->pub_last || span < r / 2 || span > r + cfg->refresh_window_ns)
		span = r;
	if (now < (span < r ? span : r))
		return now;
	return pfcwd_storm_pub_end(sm, n, now, now - (span < r ? span : r),
				   span < r ? span : r,
				   pfcwd_storm_pub_span(cfg, s,
							span > r ? span : r));
}

/* STORMED: how the storm goes on, and its restoration. */
/*
 * Stall only: queues still stopped are paused at the sample.  They wake
 * only after the pause ended (half a ring drained first), so the first
 * sample that finds them running is the earliest the pause is known to be
 * over: T1 runs from there.  Not an XOFF seen while mitigated: the blind
 * watch stays.
 */
static bool pfcwd_storm_queues_paused(struct pfcwd_storm *sm,
				      const struct pfcwd_storm_config *cfg,
				      const struct pfcwd_sample *s)
{
	bool xoff = pfcwd_storm_stalled(cfg, s) != 0;

	if (!xoff && !sm->stall_woke)
		sm->xoff_last = s->now;
	sm->stall_woke = !xoff;
	return xoff;
}

/*
 * XOFF, or a stall the counters confirmed, while mitigated: when the last
 * pause was.  The first sample after detection spans the moment the
 * action took effect: frames it saw may predate it.  Later ones may not.
 */
static void pfcwd_storm_note_xoff(struct pfcwd_storm *sm,
				  const struct pfcwd_storm_config *cfg,
				  const struct pfcwd_sample *s, u64 n, u64 last,
				  u64 d_paused, bool held)
{
	if (d_paused && cfg->refresh_ns && !sm->dur_was_off)
		pfcwd_storm_dur_rate(sm, n, d_paused);
	if (d_paused && cfg->refresh_ns &&
	    pfcwd_storm_dur_ran_out(sm, cfg, s, d_paused, &last)) {
		/* Published pause time that ran out within. */
		sm->pub_paused = false;
	} else if (d_paused) {
		/* Paused in the interval: an XOFF at the sample. */
		last = s->now;
		sm->pub_paused = cfg->refresh_ns != 0;
	} else if (cfg->refresh_ns && n) {
		/* The frames came since the previous publication. */
		last = pfcwd_storm_pub_frames(sm, cfg, s, n);
		sm->pub_paused = last == s->now;
	}
	if (held) {
		last = s->now;
		sm->pub_paused = cfg->refresh_ns != 0;
	}
	if (last > sm->xoff_last)
		sm->xoff_last = last;
	if (sm->storm_samples >= 1)
		sm->xoff_while_mitigated = true;
}

/*
 * Published counters that did not move, within a period of the queues
 * showing the pause on: the first publication made after that may not
 * have come yet, so nothing is learnt - unless a sample already showed
 * frames of a publication made after it (else a storm that ended just
 * before a publication is restored a period late).
 */
static bool pfcwd_storm_pub_pending(const struct pfcwd_storm *sm,
				    const struct pfcwd_storm_config *cfg,
				    u64 now)
{
	return cfg->refresh_ns && sm->stall_last &&
	       now < sm->stall_last + cfg->refresh_ns +
		     cfg->refresh_window_ns &&
	       !(sm->pub_from && sm->pub_from >= sm->stall_last);
}

static unsigned int pfcwd_storm_mitigating(struct pfcwd_storm *sm,
					   const struct pfcwd_storm_config *cfg,
					   const struct pfcwd_sample *s,
					   u64 n, u64 last, u64 d_paused)
{
	bool xoff = n > 0 || d_paused > 0, held = false;

	if (cfg->stall_only) {
		xoff = pfcwd_storm_queues_paused(sm, cfg, s);
		last = s->now;
	} else if (pfcwd_storm_stall(sm, cfg, s, xoff, false) &&
		   sm->stall_xoff) {
		/* A confirmed stall goes on: so does the storm. */
		held = true;
	}
	if (xoff || held) {
		pfcwd_storm_note_xoff(sm, cfg, s, n, last, d_paused, held);
	} else if (pfcwd_storm_pub_pending(sm, cfg, s->now)) {
		sm->storm_samples++;
		return 0;
	}
	if (!xoff && !held)
		sm->pub_paused = false;
	sm->storm_samples++;
	return pfcwd_storm_restoring(sm, cfg, s->now);
}

/*
 * A storm this port generated latches the priority (@why: pfcwd timed it,
 * or the NIC's own prevention did); a received storm in progress keeps
 * its start and back-off.
 */
static unsigned int pfcwd_storm_latch_tx(struct pfcwd_storm *sm, u64 now,
					 enum pfcwd_latch why)
{
	sm->stats.tx_storms++;
	if (sm->state == PFCWD_OPERATIONAL) {
		sm->stormed_at = now;
		sm->backoff_level = 0;	/* no received storm to back off */
	}
	sm->state = PFCWD_LATCHED;
	sm->latch = why;
	sm->tx_start = 0;
	sm->tx_last = 0;
	return PFCWD_EV_TX_STORM | PFCWD_EV_LATCHED;
}

/* A generated storm that has lasted T0 latches the priority. */
static unsigned int pfcwd_storm_tx_due(struct pfcwd_storm *sm,
				       const struct pfcwd_storm_config *cfg,
				       u64 now)
{
	if (!sm->tx_start || sm->state == PFCWD_LATCHED ||
	    now - sm->tx_start < cfg->detect_ns)
		return 0;

	return pfcwd_storm_latch_tx(sm, now, PFCWD_LATCH_TX_STORM);
}

/*
 * The NIC's own prevention stopped a storm this port generated: it timed
 * it (its timeout is the operator's), pfcwd latches as for its own.
 */
static unsigned int pfcwd_storm_nic(struct pfcwd_storm *sm, u64 now)
{
	if (sm->state == PFCWD_LATCHED)
		return 0;
	return pfcwd_storm_latch_tx(sm, now, PFCWD_LATCH_NIC_STORM);
}

/* Generated pause while nothing is received: a NIC-side storm. */
static unsigned int pfcwd_storm_tx(struct pfcwd_storm *sm,
				   const struct pfcwd_storm_config *cfg,
				   const struct pfcwd_sample *s, u64 d_tx_pause,
				   u64 d_rx_packets)
{
	u64 now = s->now;

	if (!(s->valid & PFCWD_SAMPLE_RX) || d_rx_packets) {
		sm->tx_start = 0;
		sm->tx_last = 0;
		return 0;
	}

	if (d_tx_pause) {
		if (!sm->tx_start || sm->prev_now > sm->tx_last + cfg->hold_ns ||
		    !pfcwd_storm_joins(cfg, d_tx_pause, sm->prev_now, now,
				       sm->tx_frames, sm->tx_last - sm->tx_start)) {
			sm->tx_start = now;
			sm->tx_frames = 0;
		} else {
			sm->tx_frames += d_tx_pause;
		}
		sm->tx_last = now;
	} else if (sm->tx_start && now > sm->tx_last + cfg->hold_ns) {
		sm->tx_start = 0;
		sm->tx_last = 0;
	}

	return pfcwd_storm_tx_due(sm, cfg, now);
}

/* Rate of generated pause, over buckets of PFCWD_SLOW_BUCKET_NS. */
static unsigned int pfcwd_storm_slow(struct pfcwd_storm *sm,
				     const struct pfcwd_storm_config *cfg,
				     u64 now, u64 d_tx_pause)
{
	u64 span, frames;

	if (!cfg->slow_threshold)
		return 0;
	if (!sm->slow_bucket_start) {
		sm->slow_bucket_start = sm->prev_now;
		sm->slow_bucket_frames = 0;
	}
	sm->slow_bucket_frames += d_tx_pause;
	span = now - sm->slow_bucket_start;
	if (span < PFCWD_SLOW_BUCKET_NS)
		return 0;

	/* frames / span > threshold / 1 s, without dividing or overflowing */
	frames = sm->slow_bucket_frames;
	if (frames > PFCWD_U64_MAX / PFCWD_NSEC_PER_SEC)
		frames = PFCWD_U64_MAX / PFCWD_NSEC_PER_SEC;
	if (frames * PFCWD_NSEC_PER_SEC > (u64)cfg->slow_threshold * span) {
		if (!sm->slow_since)
			sm->slow_since = sm->slow_bucket_start;
	} else {
		sm->slow_since = 0;
		sm->slow_reported = false;
	}
	sm->slow_bucket_start = now;
	sm->slow_bucket_frames = 0;

	if (sm->slow_since && !sm->slow_reported &&
	    now - sm->slow_since >= cfg->slow_window_ns) {
		sm->slow_reported = true;
		sm->stats.slow_events++;
		return PFCWD_EV_SLOW;
	}
	return 0;
}

/*
 * The received pause followed in OPERATIONAL (storm.h): when its episode
 * began - the counters' pause or a standing transmit stall, the earlier -
 * or 0 when there is none.
 */
static u64 pfcwd_storm_episode(const struct pfcwd_storm *sm)
{
	u64 t = sm->pause_start;

	if (sm->stall_start && !sm->stall_refuted &&
	    (!t || sm->stall_start < t))
		t = sm->stall_start;
	return t;
}

/* Was the episode that began at @start warned about already? */
static bool pfcwd_storm_warned(const struct pfcwd_storm *sm, u64 start)
{
	return sm->warned_at && start <= sm->warned_at;
}

/* The warning time in force: 0 when off or not below T0. */
static u64 pfcwd_storm_warn_ns(const struct pfcwd_storm_config *cfg)
{
	return cfg->warn_ns < cfg->detect_ns ? cfg->warn_ns : 0;
}

/*
 * The warning (storm.h), after a sample that found the machine in
 * OPERATIONAL and left it with events @ev: due once the episode has
 * lasted the warning time, unless it began no later than the last
 * warning (the one warned about).  A detection in the same sample (a
 * late sample) comes with it; the blind-counter latch does not.
 */
static unsigned int pfcwd_storm_warn(struct pfcwd_storm *sm,
				     const struct pfcwd_storm_config *cfg,
				     unsigned int ev, u64 now)
{
	u64 warn = pfcwd_storm_warn_ns(cfg), start;

	if (!warn)
		return 0;
	if (sm->state == PFCWD_OPERATIONAL)
		start = pfcwd_storm_episode(sm);
	else if ((ev & PFCWD_EV_DETECTED) && sm->latch != PFCWD_LATCH_BLIND)
		start = sm->pause_start;
	else
		return 0;
	if (!start || start > now || now - start < warn ||
	    pfcwd_storm_warned(sm, start))
		return 0;
	sm->warned_at = now;
	sm->stats.warnings++;
	sm->stats.last_warned_at = now;
	sm->stats.last_warn_paused_ns = now - start;
	return PFCWD_EV_WARNING;
}

/*
 * A read of published counters that cannot have seen a new publication:
 * nothing is learnt, only time passes (storm.h).  Transitions that are
 * due on what the last publication showed happen.
 */
static unsigned int pfcwd_storm_stale(struct pfcwd_storm *sm,
				      const struct pfcwd_storm_config *cfg,
				      const struct pfcwd_sample *s)
{
	u64 now = s->now, stall = 0;
	unsigned int ev = 0;

	/*
	 * Published pause time a step behind the frames (storm.h): the rest
	 * of the publication the last sample went by the frames for.
	 */
	if ((s->valid & (PFCWD_SAMPLE_DURATION | PFCWD_SAMPLE_DUR_OFF)) ==
	    (PFCWD_SAMPLE_DURATION | PFCWD_SAMPLE_DUR_OFF)) {
		if (sm->state == PFCWD_STORMED)
			pfcwd_storm_cut_pending(sm, s);
		sm->prev_paused_ns = s->paused_ns;
	}
	/* The queues are read at every sample: a stall is never stale. */
	if (!cfg->stall_only)
		stall = pfcwd_storm_stall(sm, cfg, s, false, false);
	if (sm->state == PFCWD_OPERATIONAL && sm->pause_start &&
	    now - sm->pause_start >= cfg->detect_ns)
		ev |= pfcwd_storm_enter(sm, cfg, now, PFCWD_LATCH_NONE);
	else if (sm->state == PFCWD_OPERATIONAL && stall)
		ev |= pfcwd_storm_stall_due(sm, cfg, stall, now);
	else if (sm->state == PFCWD_STORMED && !sm->pub_paused)
		ev |= pfcwd_storm_restoring(sm, cfg, now);

	return ev | pfcwd_storm_tx_due(sm, cfg, now);
}

/* What changed since the previous sample. */
struct pfcwd_storm_delta {
	u64 rx_pause;		/* XOFF frames received */
	u64 tx_pause;		/* pause frames sent */
	u64 rx_packets;
	u64 paused;		/* pause time, ns */
	u64 first, last;	/* exact XOFF times, else the sample's */
};

/* The readings the next sample's deltas start from. */
static void pfcwd_storm_keep(struct pfcwd_storm *sm,
			     const struct pfcwd_sample *s, u8 valid)
{
	sm->valid = valid;
	sm->prev_now = s->now;
	sm->prev_rx_pause = s->rx_pause;
	sm->prev_tx_pause = s->tx_pause;
	sm->prev_rx_packets = s->rx_packets;
	sm->prev_paused_ns = s->paused_ns;
	sm->prev_paused_at = s->paused_at;
	sm->prev_paused_err = s->paused_err;
}

/*
 * First sample, or a counter that was not there before: nothing to
 * compare with yet, and nothing measured may span the unobserved time.
 */
static unsigned int pfcwd_storm_prime(struct pfcwd_storm *sm,
				      const struct pfcwd_sample *s, u8 valid)
{
	sm->primed = true;
	pfcwd_storm_keep(sm, s, valid);
	sm->prev_tx_progress = s->tx_progress;
	sm->dur_on = false;
	sm->dur_was_off = !!(s->valid & PFCWD_SAMPLE_DUR_OFF);
	sm->slow_bucket_start = 0;
	pfcwd_rate_restart(&sm->rate[PFCWD_RATE_DIR_RX]);
	pfcwd_rate_restart(&sm->rate[PFCWD_RATE_DIR_TX]);
	/* An exact pause counts from now at the earliest. */
	sm->pause_floor = s->now;
	/* The NIC's word is not a delta of these counters. */
	return s->nic_storm ? pfcwd_storm_nic(sm, s->now) : 0;
}

static void pfcwd_storm_deltas(const struct pfcwd_storm *sm,
			       const struct pfcwd_sample *s,
			       struct pfcwd_storm_delta *d)
{
	d->rx_pause = pfcwd_counter_delta(sm->prev_rx_pause, s->rx_pause);
	d->tx_pause = pfcwd_counter_delta(sm->prev_tx_pause, s->tx_pause);
	d->rx_packets = 0;
	if (s->valid & PFCWD_SAMPLE_RX)
		d->rx_packets = pfcwd_counter_delta(sm->prev_rx_packets,
						    s->rx_packets);
	/* A pause time that went back was reset: nothing known of it. */
	d->paused = 0;
	if ((s->valid & (PFCWD_SAMPLE_DURATION | PFCWD_SAMPLE_DUR_OFF)) ==
	    PFCWD_SAMPLE_DURATION && s->paused_ns > sm->prev_paused_ns)
		d->paused = s->paused_ns - sm->prev_paused_ns;
	/* Exact times, when given, cannot be later than the sample. */
	d->first = s->xoff_first && s->xoff_first < s->now ?
		   s->xoff_first : s->now;
	d->last = s->xoff_last && s->xoff_last < s->now ? s->xoff_last : s->now;
	if (d->first > d->last)
		d->first = d->last;
}

/*
 * The first publication since the priority left pfc_en: its rate, for the
 * next one (its own frames began within), or once its pause time comes.
 */
static void pfcwd_storm_cut_note(struct pfcwd_storm *sm,
				 const struct pfcwd_storm_config *cfg,
				 const struct pfcwd_sample *s, u64 n)
{
	u64 from;

	if (!cfg->refresh_ns || sm->dur_was_off ||
	    !(s->valid & PFCWD_SAMPLE_DUR_OFF) ||
	    !(s->valid & PFCWD_SAMPLE_DURATION))
		return;
	from = pfcwd_storm_pub_earliest(cfg, s);
	if (s->paused_ns > sm->prev_paused_ns) {
		pfcwd_storm_cut_rate(sm, n, s->paused_ns - sm->prev_paused_ns,
				     s->paused_at, from);
	} else if (n) {
		sm->cut_frames = n;
		sm->cut_at = s->paused_at;
		sm->cut_from = from;
	}
}

/* Stormed or latched: whether the storm goes on. */
static unsigned int pfcwd_storm_held(struct pfcwd_storm *sm,
				     const struct pfcwd_storm_config *cfg,
				     const struct pfcwd_sample *s,
				     const struct pfcwd_storm_delta *d)
{
	bool cut = pfcwd_storm_cut_pending(sm, s);
	unsigned int ev;

	ev = pfcwd_storm_mitigating(sm, cfg, s, d->rx_pause, d->last,
				    d->paused);
	if (!cut)
		pfcwd_storm_cut_note(sm, cfg, s, d->rx_pause);
	/* Unless the pause time ran out within (published). */
	sm->dur_on = d->paused && sm->pub_paused;
	return ev;
}

/* The pause-rate events, both directions. */
static unsigned int pfcwd_storm_rates(struct pfcwd_storm *sm,
				      const struct pfcwd_storm_config *cfg,
				      const struct pfcwd_sample *s,
				      const struct pfcwd_storm_delta *d)
{
	unsigned int ev = 0;

	if (pfcwd_rate_sample(&sm->rate[PFCWD_RATE_DIR_RX],
			      &sm->stats.rate[PFCWD_RATE_DIR_RX],
			      &cfg->rate[PFCWD_RATE_DIR_RX], sm->prev_now,
			      s->now, d->rx_pause,
			      pfcwd_counter_went_back(sm->prev_rx_pause,
						      s->rx_pause)))
		ev |= PFCWD_EV_RATE_RX;
	if (pfcwd_rate_sample(&sm->rate[PFCWD_RATE_DIR_TX],
			      &sm->stats.rate[PFCWD_RATE_DIR_TX],
			      &cfg->rate[PFCWD_RATE_DIR_TX], sm->prev_now,
			      s->now, d->tx_pause,
			      pfcwd_counter_went_back(sm->prev_tx_pause,
						      s->tx_pause)))
		ev |= PFCWD_EV_RATE_TX;
	return ev;
}

/**
 * pfcwd_storm_sample - feed one observation to the machine
 * @sm: the machine
 * @cfg: the configuration in force
 * @s: the observation; s->now must not go backwards (a sample that does is
 *     ignored)
 *
 * The first sample after init or pfcwd_storm_forget() only primes the
 * counters.
 *
 * Return: a mask of PFCWD_EV_* for what happened.
 */
unsigned int pfcwd_storm_sample(struct pfcwd_storm *sm,
				const struct pfcwd_storm_config *cfg,
				const struct pfcwd_sample *s)
{
	u8 valid = s->valid & ~(PFCWD_SAMPLE_STALE | PFCWD_SAMPLE_DUR_OFF);
	bool was_op = sm->state == PFCWD_OPERATIONAL;
	struct pfcwd_storm_delta d;
	unsigned int ev = 0;
	bool tx_moved;

	/* The stall signal is a state, not a counter: no delta to lose. */
	if (!sm->primed || (valid & ~sm->valid & ~PFCWD_SAMPLE_STALL))
		return pfcwd_storm_prime(sm, s, valid);
	if (s->now < sm->prev_now)
		return 0;
	tx_moved = pfcwd_storm_tx_progress(sm, s);
	if (s->nic_storm) {
		ev |= pfcwd_storm_nic(sm, s->now);
		was_op = false;
	}
	if (s->valid & PFCWD_SAMPLE_STALE) {
		if (tx_moved)
			pfcwd_storm_sent(sm);
		ev |= pfcwd_storm_stale(sm, cfg, s);
		return was_op ? ev | pfcwd_storm_warn(sm, cfg, ev, s->now) : ev;
	}

	pfcwd_storm_deltas(sm, s, &d);
	sm->stats.rx_pause += d.rx_pause;
	sm->stats.tx_pause += d.tx_pause;
	if (sm->state == PFCWD_OPERATIONAL) {
		ev |= pfcwd_storm_rx(sm, cfg, s, d.rx_pause, d.first, d.last,
				     tx_moved, d.paused);
		sm->dur_on = d.paused != 0;
	} else {
		ev |= pfcwd_storm_held(sm, cfg, s, &d);
	}
	/*
	 * Pause time that could not show: the next interval may straddle the
	 * return to pfc_en.  Not after a restoration: nothing came for T1.
	 */
	sm->dur_was_off = (s->valid & PFCWD_SAMPLE_DUR_OFF) &&
			  !(ev & PFCWD_EV_RESTORED);
	if (was_op)
		ev |= pfcwd_storm_warn(sm, cfg, ev, s->now);
	/* A loop shows at once or not at all: the blind watch ends. */
	if (sm->blind_suspect &&
	    s->now >= sm->blind_from + 2 * cfg->hold_ns + cfg->refresh_ns +
			       cfg->refresh_window_ns)
		sm->blind_suspect = false;

	ev |= pfcwd_storm_tx(sm, cfg, s, d.tx_pause, d.rx_packets);
	ev |= pfcwd_storm_slow(sm, cfg, s->now, d.tx_pause);
	ev |= pfcwd_storm_rates(sm, cfg, s, &d);
	if (d.rx_pause) {
		sm->pub_last = s->now;
		sm->pub_from = s->pub_after < s->now ? s->pub_after : 0;
	}
	/* A counter that goes away is re-primed when it comes back. */
	pfcwd_storm_keep(sm, s, valid);
	return ev;
}

/**
 * pfcwd_storm_restore - an operator ends a storm by hand
 * @sm: the machine
 * @now: the time
 *
 * Return: true if the priority was STORMED or LATCHED and is now
 * OPERATIONAL; the storm history is cleared so the limit starts afresh,
 * and so is the restore backoff (the next storm is restored after T1).
 */
bool pfcwd_storm_restore(struct pfcwd_storm *sm, u64 now)
{
	if (sm->state == PFCWD_OPERATIONAL)
		return false;
	sm->state = PFCWD_OPERATIONAL;
	sm->latch = PFCWD_LATCH_NONE;
	sm->stats.restored++;
	sm->stats.last_restored_at = now;
	sm->stats.last_storm_ns = now - sm->stormed_at;
	sm->blind_suspect = false;
	sm->history_len = 0;
	sm->history_head = 0;
	sm->backoff_level = 0;
	sm->backoff_end = 0;
	pfcwd_storm_quiet(sm);
	sm->pause_floor = now;
	return true;
}

/**
 * pfcwd_storm_undone - the caller undid a restored storm's action
 * @sm: the machine
 * @now: when the priority was put back in pfc_en
 *
 * Undoing takes a while after the sample that restored (the caller needs
 * the device), and a blind counter can only come back once PFC is back:
 * the blind-counter watch runs from @now.
 */
void pfcwd_storm_undone(struct pfcwd_storm *sm, u64 now)
{
	if (sm->blind_suspect && now > sm->blind_from)
		sm->blind_from = now;
}

/**
 * pfcwd_storm_deadline - when the next transition could happen
 * @sm: the machine
 * @cfg: the configuration in force
 *
 * A sample taken at the returned time (if the pause goes on, or stays
 * away) makes the transition: the poller schedules one then, so timing does
 * not depend on the poll interval.
 *
 * Return: a time in ns, or PFCWD_U64_MAX if nothing is pending.
 */
u64 pfcwd_storm_deadline(const struct pfcwd_storm *sm,
			 const struct pfcwd_storm_config *cfg)
{
	u64 warn = pfcwd_storm_warn_ns(cfg), t = PFCWD_U64_MAX, start;

	if (sm->state == PFCWD_OPERATIONAL && sm->pause_start)
		t = sm->pause_start + cfg->detect_ns;
	if (sm->state == PFCWD_OPERATIONAL && sm->stall_start &&
	    !sm->stall_refuted && sm->stall_start + cfg->detect_ns < t)
		t = sm->stall_start + cfg->detect_ns;
	else if (sm->state == PFCWD_STORMED &&
		 !(cfg->refresh_ns && sm->pub_paused))
		t = sm->xoff_last + pfcwd_storm_t1(sm, cfg);
	if (sm->tx_start && sm->state != PFCWD_LATCHED &&
	    sm->tx_start + cfg->detect_ns < t)
		t = sm->tx_start + cfg->detect_ns;
	/* The warning, not given yet for this episode. */
	start = sm->state == PFCWD_OPERATIONAL ? pfcwd_storm_episode(sm) : 0;
	if (warn && start && !pfcwd_storm_warned(sm, start) &&
	    start + warn < t)
		t = start + warn;
	return t;
}

/*
 * True while the machine wants fine-grained samples.  Never when LATCHED:
 * nothing there changes without an operator, and the pause tracking it
 * entered with (or that pfcwd_storm_tx() keeps up) is stale.
 */
bool pfcwd_storm_busy(const struct pfcwd_storm *sm)
{
	if (sm->state == PFCWD_LATCHED)
		return false;
	return sm->pause_start || sm->tx_start || sm->blind_suspect ||
	       (sm->stall_start && !sm->stall_refuted) ||
	       sm->state == PFCWD_STORMED;
}

/**
 * pfcwd_storm_config_prio - put a priority's overrides into its port's
 *	configuration
 * @cfg: the port's configuration, made the priority's
 * @ovr: the priority's overrides
 *
 * T0, T1 and the warning time overridden take the port's place; the
 * shortest transmit stall that counts follows T0 as the port's does
 * (min(hold time, T0 / 4)).
 */
void pfcwd_storm_config_prio(struct pfcwd_storm_config *cfg,
			     const struct pfcwd_storm_override *ovr)
{
	if (ovr->detect_ns) {
		cfg->detect_ns = ovr->detect_ns;
		cfg->stall_min_ns = cfg->detect_ns / 4 < cfg->hold_ns ?
				    cfg->detect_ns / 4 : cfg->hold_ns;
	}
	if (ovr->restore_ns)
		cfg->restore_ns = ovr->restore_ns;
	if (ovr->warn_set)
		cfg->warn_ns = ovr->warn_ns;
}

const char *pfcwd_state_name(enum pfcwd_state state)
{
	switch (state) {
	case PFCWD_OPERATIONAL:
		return "operational";
	case PFCWD_STORMED:
		return "stormed";
	case PFCWD_LATCHED:
		return "latched";
	}
	return "unknown";
}

const char *pfcwd_latch_name(enum pfcwd_latch latch)
{
	switch (latch) {
	case PFCWD_LATCH_NONE:
		return "none";
	case PFCWD_LATCH_LIMIT:
		return "storm-limit";
	case PFCWD_LATCH_BLIND:
		return "blind-counters";
	case PFCWD_LATCH_TX_STORM:
		return "tx-storm";
	case PFCWD_LATCH_NIC_STORM:
		return "nic-storm";
	}
	return "unknown";
}
