/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Pause history of one priority: how long it was paused and how many pause
 * episodes it had, in total and over the last completed interval, and a
 * ring of its last PFCWD_HIST_STORMS storms.  Pure code (pure.h): no kernel
 * calls, no locks, no clock of its own; every call is given the time, ns of
 * CLOCK_MONOTONIC.
 *
 * Locking: none here.  The caller serialises all calls on one object: a
 * struct pfcwd_hist_pause fed by software PFC frames is under its port's
 * swpfc.lock; the estimated one and the storm ring are under port->lock.
 *
 * Pause time.  A pause is open from its start until a known or unknown
 * end: an exact source (software PFC) knows when each XOFF's quanta run
 * out (pfcwd_hist_pause_set(), a later frame moving the end either way);
 * an estimating one (the storm detector's own paused/unpaused episodes,
 * at its sampling granularity) learns the end when it sees it
 * (pfcwd_hist_pause_begin(), pfcwd_hist_pause_end()).  An episode is one
 * pause from its start to its end; XON ends it at once.
 *
 * Interval: fixed windows of PFCWD_HIST_INTERVAL_NS (10 s) aligned to
 * multiples of that on CLOCK_MONOTONIC.  "Last interval" is the last
 * completed window: its paused time, and the episodes that began in it.
 * The first window after creation or a clear counts from then only.
 * Windows close lazily, at the next call, from the time the open pause
 * would have had at the boundary, so nothing is lost between calls.
 *
 * Storm ring: the last PFCWD_HIST_STORMS storms, oldest overwritten.  A
 * record is 48 bytes, so a port's rings (8 priorities) take 6 KiB.
 */
#ifndef _PFCWD_HISTORY_H
#define _PFCWD_HISTORY_H

#include "pure.h"

#define PFCWD_HIST_INTERVAL_NS	(10 * PFCWD_NSEC_PER_SEC)
#define PFCWD_HIST_STORMS	16

/* Why a storm record ended (the uAPI's enum pfcwd_storm_end). */
enum pfcwd_hist_end {
	PFCWD_HIST_ONGOING,	/* mitigating or latched, still */
	PFCWD_HIST_RESTORED,	/* restored automatically, T1 after */
	PFCWD_HIST_BY_HAND,	/* restored by an operator (prio-restore) */
	PFCWD_HIST_DISABLED,	/* the port was disabled */
	PFCWD_HIST_UNWATCHED,	/* the priority stopped being watched */
	PFCWD_HIST_NETNS,	/* the device moved to another netns */
	PFCWD_HIST_REMOVED,	/* the port went away */
	PFCWD_HIST_REPLACED,	/* a new storm began before its end was seen */
};

/* One storm.  48 bytes. */
struct pfcwd_hist_storm {
	u64 detected;		/* it was detected, ns (monotonic) */
	u64 end;		/* it ended, ns; 0 while ongoing */
	u64 tx_dropped;		/* at its end (ongoing: the caller's count) */
	u64 rx_dropped;
	u64 tx_forwarded;
	u32 detect_us;		/* from its pause's start to detection */
	u8 action;		/* enum pfcwd_action applied */
	u8 tx;			/* a generated (NIC-side) storm */
	u8 latch;		/* enum pfcwd_latch_reason; 0: did not latch */
	u8 end_reason;		/* enum pfcwd_hist_end */
};

struct pfcwd_hist_ring {
	struct pfcwd_hist_storm rec[PFCWD_HIST_STORMS];
	u32 head;		/* the next slot written */
	u32 len;		/* records held, <= PFCWD_HIST_STORMS */
	u64 total;		/* storms recorded, ever */
};

struct pfcwd_hist_pause {
	u64 closed_ns;		/* paused time of the pauses closed */
	u64 open_since;		/* the open pause began; 0: none */
	u64 open_until;		/* ...and ends; PFCWD_U64_MAX: not known */
	u64 episodes;		/* episodes begun */
	u64 last_at;		/* the latest time seen */
	u64 win_start;		/* the current window; 0: not started */
	u64 win_base_ns;	/* paused time and episodes at its start */
	u64 win_base_eps;
	u64 last_ns;		/* the last completed window */
	u64 last_eps;
	u64 seen_last;		/* estimated: the last XOFF seen in the pause */
};

/* A reading of a struct pfcwd_hist_pause. */
struct pfcwd_hist_pause_read {
	u64 paused_ns;		/* total */
	u64 episodes;
	u64 last_ns;		/* the last completed window */
	u64 last_eps;
	bool paused;		/* a pause is open now */
};

void pfcwd_hist_pause_init(struct pfcwd_hist_pause *h, u64 now);
void pfcwd_hist_pause_set(struct pfcwd_hist_pause *h, u64 now, u64 until);
void pfcwd_hist_pause_begin(struct pfcwd_hist_pause *h, u64 start, u64 now);
void pfcwd_hist_pause_end(struct pfcwd_hist_pause *h, u64 end, u64 now);
void pfcwd_hist_pause_follow(struct pfcwd_hist_pause *h, u64 since,
			     u64 last, u64 now);
void pfcwd_hist_pause_read(struct pfcwd_hist_pause *h, u64 now,
			   struct pfcwd_hist_pause_read *r);
void pfcwd_hist_pause_clear(struct pfcwd_hist_pause *h, u64 now);

void pfcwd_hist_ring_init(struct pfcwd_hist_ring *ring);
struct pfcwd_hist_storm *pfcwd_hist_storm_begin(struct pfcwd_hist_ring *ring,
						u64 start, u64 detected,
						u8 action, bool tx);
struct pfcwd_hist_storm *pfcwd_hist_storm_ongoing(struct pfcwd_hist_ring *ring);
void pfcwd_hist_storm_latch(struct pfcwd_hist_ring *ring, u8 latch);
bool pfcwd_hist_storm_end(struct pfcwd_hist_ring *ring, u64 end,
			  enum pfcwd_hist_end reason, u64 tx_dropped,
			  u64 rx_dropped, u64 tx_forwarded);
const struct pfcwd_hist_storm *
pfcwd_hist_storm_at(const struct pfcwd_hist_ring *ring, u32 i);
u64 pfcwd_hist_storm_start(const struct pfcwd_hist_storm *r);
const char *pfcwd_hist_end_name(enum pfcwd_hist_end reason);

#endif /* _PFCWD_HISTORY_H */
