// SPDX-License-Identifier: GPL-2.0
/*
 * Pause history of one priority: pause time and episodes, and the ring of
 * its last storms.  Pure code; see history.h for the rules (the locking
 * rule too: the caller serialises every call on one object).
 */
#include "history.h"

/* Paused time by @t, which is not before the latest call's time. */
static u64 pfcwd_hist_total_at(const struct pfcwd_hist_pause *h, u64 t)
{
	u64 end;

	if (!h->open_since || t <= h->open_since)
		return h->closed_ns;
	end = t < h->open_until ? t : h->open_until;
	return h->closed_ns + (end - h->open_since);
}

/* Closes the windows that ended by @now. */
static void pfcwd_hist_roll(struct pfcwd_hist_pause *h, u64 now)
{
	const u64 len = PFCWD_HIST_INTERVAL_NS;
	u64 k, start;

	if (!h->win_start) {
		pfcwd_hist_pause_init(h, now);
		return;
	}
	if (now < h->win_start + len)
		return;
	k = pfcwd_div_u64(now - h->win_start, len);
	start = h->win_start + k * len;
	if (k == 1) {
		h->last_ns = pfcwd_hist_total_at(h, start) - h->win_base_ns;
		h->last_eps = h->episodes - h->win_base_eps;
	} else {
		/* Windows with no call in them: no episode began there. */
		h->last_ns = pfcwd_hist_total_at(h, start) -
			     pfcwd_hist_total_at(h, start - len);
		h->last_eps = 0;
	}
	h->win_start = start;
	h->win_base_ns = pfcwd_hist_total_at(h, start);
	h->win_base_eps = h->episodes;
}

/* The time of a call: never before the latest one (clocks of two CPUs). */
static u64 pfcwd_hist_now(struct pfcwd_hist_pause *h, u64 now)
{
	if (now < h->last_at)
		now = h->last_at;
	h->last_at = now;
	pfcwd_hist_roll(h, now);
	return now;
}

/* Closes the open pause at @end (not after its known end). */
static void pfcwd_hist_close(struct pfcwd_hist_pause *h, u64 end)
{
	if (!h->open_since)
		return;
	if (end > h->open_until)
		end = h->open_until;
	if (end > h->open_since)
		h->closed_ns += end - h->open_since;
	h->open_since = 0;
	h->open_until = 0;
}

/**
 * pfcwd_hist_pause_init - start empty, the first window counting from @now
 * @h: the accounting
 * @now: ns
 */
void pfcwd_hist_pause_init(struct pfcwd_hist_pause *h, u64 now)
{
	const u64 len = PFCWD_HIST_INTERVAL_NS;

	*h = (struct pfcwd_hist_pause){ 0 };
	h->last_at = now;
	/* Window 0 would read as "not started": start it at 1 ns. */
	h->win_start = now < len ? 1 : now - (now % len);
}

/**
 * pfcwd_hist_pause_set - an exact source: paused from @now until @until
 * @h: the accounting
 * @now: the frame's time, ns
 * @until: when its pause ends; @until <= @now (XON): not paused from @now
 *
 * A pause in force at @now goes on with its new end (a later frame's
 * quanta replace the earlier one's); otherwise a new episode begins.
 */
void pfcwd_hist_pause_set(struct pfcwd_hist_pause *h, u64 now, u64 until)
{
	now = pfcwd_hist_now(h, now);
	if (h->open_since && h->open_until <= now)
		pfcwd_hist_close(h, h->open_until);
	if (until <= now) {
		pfcwd_hist_close(h, now);
		return;
	}
	if (!h->open_since) {
		h->open_since = now;
		h->episodes++;
	}
	h->open_until = until;
}

/**
 * pfcwd_hist_pause_begin - an estimating source saw a pause begin
 * @h: the accounting
 * @start: when it began, ns (counted from the current window at the earliest)
 * @now: ns
 *
 * Nothing if a pause is open already.
 */
void pfcwd_hist_pause_begin(struct pfcwd_hist_pause *h, u64 start, u64 now)
{
	now = pfcwd_hist_now(h, now);
	if (h->open_since && h->open_until > now)
		return;
	pfcwd_hist_close(h, now);
	if (start < h->win_start)
		start = h->win_start;
	if (start > now || !start)
		start = now;
	h->open_since = start;
	h->open_until = PFCWD_U64_MAX;
	h->episodes++;
}

/**
 * pfcwd_hist_pause_end - an estimating source saw the pause end
 * @h: the accounting
 * @end: when it ended, ns (at most @now)
 * @now: ns
 */
void pfcwd_hist_pause_end(struct pfcwd_hist_pause *h, u64 end, u64 now)
{
	now = pfcwd_hist_now(h, now);
	if (end > now)
		end = now;
	/* Not before the window it is counted in began: see _begin(). */
	if (end < h->win_start)
		end = h->win_start;
	pfcwd_hist_close(h, end);
}

/**
 * pfcwd_hist_pause_follow - an estimating source's pause state at @now
 * @h: the accounting
 * @since: when the pause in force began, 0 if none
 * @last: the last XOFF seen in it (0: unknown)
 * @now: ns
 *
 * A pause that was open and is no longer ends at the last XOFF seen in it.
 */
void pfcwd_hist_pause_follow(struct pfcwd_hist_pause *h, u64 since,
			     u64 last, u64 now)
{
	if (since) {
		if (!h->open_since)
			h->seen_last = 0;
		pfcwd_hist_pause_begin(h, since, now);
		if (last > h->seen_last)
			h->seen_last = last;
	} else if (h->open_since) {
		pfcwd_hist_pause_end(h, h->seen_last ? h->seen_last : now, now);
	}
}

/**
 * pfcwd_hist_pause_read - what the accounting says at @now
 * @h: the accounting (windows that ended are closed)
 * @now: ns
 * @r: the reading
 */
void pfcwd_hist_pause_read(struct pfcwd_hist_pause *h, u64 now,
			   struct pfcwd_hist_pause_read *r)
{
	now = pfcwd_hist_now(h, now);
	r->paused_ns = pfcwd_hist_total_at(h, now);
	r->episodes = h->episodes;
	r->last_ns = h->last_ns;
	r->last_eps = h->last_eps;
	r->paused = h->open_since && h->open_until > now;
}

/**
 * pfcwd_hist_pause_clear - zero the counts; a pause in force counts on
 * @h: the accounting
 * @now: ns
 *
 * The open pause, if any, is counted from @now, as time and not as a new
 * episode; the windows start again from @now.
 */
void pfcwd_hist_pause_clear(struct pfcwd_hist_pause *h, u64 now)
{
	u64 until = 0;

	now = pfcwd_hist_now(h, now);
	if (h->open_since && h->open_until > now)
		until = h->open_until;
	pfcwd_hist_pause_init(h, now);
	if (until) {
		h->open_since = now;
		h->open_until = until;
	}
}

/**
 * pfcwd_hist_ring_init - an empty ring
 * @ring: the ring
 */
void pfcwd_hist_ring_init(struct pfcwd_hist_ring *ring)
{
	*ring = (struct pfcwd_hist_ring){ 0 };
}

static struct pfcwd_hist_storm *pfcwd_hist_newest(struct pfcwd_hist_ring *ring)
{
	if (!ring->len)
		return NULL;
	return &ring->rec[(ring->head + PFCWD_HIST_STORMS - 1) %
			  PFCWD_HIST_STORMS];
}

/**
 * pfcwd_hist_storm_ongoing - the storm in progress
 * @ring: the ring
 *
 * Return: its record, or NULL when the newest one ended or there is none.
 */
struct pfcwd_hist_storm *pfcwd_hist_storm_ongoing(struct pfcwd_hist_ring *ring)
{
	struct pfcwd_hist_storm *r = pfcwd_hist_newest(ring);

	return r && r->end_reason == PFCWD_HIST_ONGOING ? r : NULL;
}

/**
 * pfcwd_hist_storm_begin - record a storm, detected at @detected
 * @ring: the ring; the oldest record goes when it is full
 * @start: when its pause began, ns (at most @detected)
 * @detected: ns
 * @action: the action applied
 * @tx: a generated storm
 *
 * A storm still open in the ring ends at @detected as REPLACED.
 *
 * Return: the new record.
 */
struct pfcwd_hist_storm *pfcwd_hist_storm_begin(struct pfcwd_hist_ring *ring,
						u64 start, u64 detected,
						u8 action, bool tx)
{
	struct pfcwd_hist_storm *r = pfcwd_hist_storm_ongoing(ring);
	u64 us;

	if (r) {
		r->end = detected;
		r->end_reason = PFCWD_HIST_REPLACED;
	}
	if (!start || start > detected)
		start = detected;
	us = pfcwd_div_u64(detected - start, 1000);
	r = &ring->rec[ring->head];
	*r = (struct pfcwd_hist_storm){
		.detected = detected,
		.detect_us = us > PFCWD_U32_MAX ? PFCWD_U32_MAX : (u32)us,
		.action = action,
		.tx = tx,
	};
	ring->head = (ring->head + 1) % PFCWD_HIST_STORMS;
	if (ring->len < PFCWD_HIST_STORMS)
		ring->len++;
	ring->total++;
	return r;
}

/**
 * pfcwd_hist_storm_latch - the storm in progress latched
 * @ring: the ring
 * @latch: why (enum pfcwd_latch_reason, non-zero)
 */
void pfcwd_hist_storm_latch(struct pfcwd_hist_ring *ring, u8 latch)
{
	struct pfcwd_hist_storm *r = pfcwd_hist_storm_ongoing(ring);

	if (r)
		r->latch = latch;
}

/**
 * pfcwd_hist_storm_end - the storm in progress ended
 * @ring: the ring
 * @end: when, ns
 * @reason: how (not PFCWD_HIST_ONGOING)
 * @tx_dropped: what it dropped and forwarded
 * @rx_dropped:
 * @tx_forwarded:
 *
 * Return: whether a storm was in progress.
 */
bool pfcwd_hist_storm_end(struct pfcwd_hist_ring *ring, u64 end,
			  enum pfcwd_hist_end reason, u64 tx_dropped,
			  u64 rx_dropped, u64 tx_forwarded)
{
	struct pfcwd_hist_storm *r = pfcwd_hist_storm_ongoing(ring);

	if (!r || reason == PFCWD_HIST_ONGOING)
		return false;
	r->end = end > r->detected ? end : r->detected;
	r->end_reason = reason;
	r->tx_dropped = tx_dropped;
	r->rx_dropped = rx_dropped;
	r->tx_forwarded = tx_forwarded;
	return true;
}

/**
 * pfcwd_hist_storm_at - a record, oldest first
 * @ring: the ring
 * @i: 0 is the oldest held
 *
 * Return: the record, or NULL past the newest.
 */
const struct pfcwd_hist_storm *
pfcwd_hist_storm_at(const struct pfcwd_hist_ring *ring, u32 i)
{
	if (i >= ring->len)
		return NULL;
	return &ring->rec[(ring->head + PFCWD_HIST_STORMS - ring->len + i) %
			  PFCWD_HIST_STORMS];
}

/**
 * pfcwd_hist_storm_start - when a storm's pause began
 * @r: the record
 *
 * Return: ns (monotonic), to the microsecond.
 */
u64 pfcwd_hist_storm_start(const struct pfcwd_hist_storm *r)
{
	return r->detected - (u64)r->detect_us * 1000;
}

static const char * const pfcwd_hist_end_names[] = {
	[PFCWD_HIST_ONGOING] = "ongoing",
	[PFCWD_HIST_RESTORED] = "restored",
	[PFCWD_HIST_BY_HAND] = "by-hand",
	[PFCWD_HIST_DISABLED] = "disabled",
	[PFCWD_HIST_UNWATCHED] = "unwatched",
	[PFCWD_HIST_NETNS] = "netns",
	[PFCWD_HIST_REMOVED] = "removed",
	[PFCWD_HIST_REPLACED] = "replaced",
};

/**
 * pfcwd_hist_end_name - the name of an end reason
 * @reason: the reason
 *
 * Return: a static string, "unknown" if out of range.
 */
const char *pfcwd_hist_end_name(enum pfcwd_hist_end reason)
{
	if ((unsigned int)reason >= sizeof(pfcwd_hist_end_names) /
				    sizeof(pfcwd_hist_end_names[0]))
		return "unknown";
	return pfcwd_hist_end_names[reason];
}
