/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The per-priority storm state machine.  Pure code (pure.h): no kernel
 * calls, no locks, no clock of its own; the caller feeds it samples of the
 * priority's cumulative counters taken at times it chooses, and acts on the
 * events it returns.  The caller serialises all calls for one machine.
 *
 * States:
 *
 *   OPERATIONAL --(paused continuously >= T0)--> STORMED
 *   STORMED --(no XOFF for >= T1)--> OPERATIONAL
 *   OPERATIONAL/STORMED --(storm limit reached | pause counters blind while
 *	PFC is off | generated storm)--> LATCHED
 *   LATCHED --(pfcwd_storm_restore(), by an operator)--> OPERATIONAL
 *
 * Paused: XOFF frames (pause with quanta > 0; XON is never counted) for the
 * priority kept arriving - with no gap longer than cfg->hold_ns between
 * them - and the priority made no transmit progress, or its transmit
 * progress is unknown.  A counter source cannot say where in a sample
 * interval its frames fell, so an interval continues a pause only if its
 * frames are dense enough to leave no such gap and, once the pause has a
 * rate, at least half as many as that rate predicts (a late sample over a
 * gap and the start of a new burst must not look continuous).  The pause
 * is taken to start at the first observation of an XOFF frame (for a
 * counter source: the sample that saw the counter move), so detection is
 * never early; it is late by at most the time between the storm's first
 * frame and that sample.
 *
 * Sources that know the pause state exactly (software PFC: each frame's
 * quanta give the time the priority stays paused) say so with
 * PFCWD_SAMPLE_PAUSE and give, in pause_since, when the pause in force at
 * the sample began: at the first XOFF after the priority was last not
 * paused (an XON, or the expiry of the last XOFF's quanta, ends a pause).
 * Their pause is that one, with no guessing from frame counts: detection
 * when it has lasted T0.  It never counts from before the machine was
 * primed or last restored (pause_floor): what happened before was not
 * watched, or was the storm just ended.
 *
 * Sources with a pause-duration counter (PFCWD_SAMPLE_DURATION: mlx5's
 * rx_prioP_pause_duration) give the time the priority was paused, in
 * paused_ns: an interval whose pause time covers it (to 1/16 + 10 us) was
 * paused throughout, whatever the frames say (sparse XOFF with long
 * quanta, frames lost to a counter copy); otherwise the pause in force at
 * the sample began at the latest its pause time before the counter was
 * read, and no pause time ends the pause.  Intervals are measured between
 * the counter's reads (paused_at, the end of the driver's statistics
 * call, which read it up to paused_err earlier), not between samples.
 * Detection
 * once it has lasted T0; while STORMED, an interval with pause time is an
 * XOFF at the sample.  A priority out of the device's pfc_en is not
 * paused whatever it receives, so its pause time stands still; the source
 * then adds PFCWD_SAMPLE_DUR_OFF (a state, like the stall: no re-prime)
 * and the machine goes by the frames, as without the counter, keeping
 * the pause time's last value as the base of the next interval.
 *
 * Warning (cfg->warn_ns, 0 = off; below T0 or ignored): the received pause
 * the machine follows in OPERATIONAL - its episode, from the counters or a
 * standing transmit stall, whichever began first - has lasted the warning
 * time: PFCWD_EV_WARNING and stats.warnings, nothing else.  Once per
 * episode: an episode that began no later than the last warning is the one
 * warned about.  It works on whatever the source gives, as detection does
 * (exact, duration, counters, published and stale reads, stalls), and
 * pfcwd_storm_deadline() asks for a sample when it is due.  A pause that
 * ends before T0 leaves it at that; one that goes on is detected at T0 as
 * without it.  A sample that finds an unwarned pause past T0 (a late one)
 * returns the warning with the detection.  Generated storms, slow
 * receivers and the blind-counter latch have no warning.
 *
 * Restore backoff (cfg->backoff; off: restoration after T1, always): the
 * restoration time of a storm is T1 << n, capped at min(16 * T1, 60 s)
 * (PFCWD_STORM_BACKOFF_MAX, PFCWD_STORM_BACKOFF_CAP_NS) and never below T1,
 * where n, the backoff level, counts the storms before it in a run: a
 * storm detected less than cfg->storm_window_ns (the storm limit's
 * window) after the previous one was restored is one level above it
 * (n + 1, at most PFCWD_STORM_BACKOFF_MAX); one detected after a quiet
 * window (no storm for that long), or the first, is level 0.  So a peer
 * that storms again after each restoration is restored after T1, 2 * T1,
 * 4 * T1 ..., and a storm limit, counting detections in the same window,
 * latches it later than without.  The level is fixed at detection; the
 * time follows T1 and cfg->backoff as they are (turning backoff off
 * restores after T1 from then on).  A restoration by hand ends the run.
 * pfcwd_storm_backoff() and pfcwd_storm_restore_ns() say what is in force.
 *
 * Per-priority policy: the caller gives each priority's machine the
 * port's configuration with that priority's overrides of T0, T1 and the
 * warning time put in (pfcwd_storm_config_prio(); unset: the port's).
 * Like every cfg field they are read at each sample: a change while
 * STORMED counts from the next sample (restoration T1-as-it-is after the
 * last XOFF), one in OPERATIONAL for the pause in progress too.
 *
 * Generated (NIC-side) storm: the pause frames this port sends kept rising
 * while the port received nothing, for >= T0.  Slow receiver: the rate of
 * pause frames sent stayed above cfg->slow_threshold frames/s for
 * cfg->slow_window_ns, measured over buckets of PFCWD_SLOW_BUCKET_NS.
 * Pause-rate early warning (pause_rate.h): the rate of pause frames
 * received (cfg->rate[PFCWD_RATE_DIR_RX]) or sent (..._TX) stayed above
 * its threshold for its window: PFCWD_EV_RATE_RX or _TX, once per episode,
 * and stats.rate[dir]; nothing else.  Measured on every sample that is not
 * stale, whatever the state.  The slow receiver is the sent direction's
 * special case with module-wide knobs and live-counter buckets, kept as
 * it was.
 *
 * Published counters (cfg->refresh_ns > 0): many drivers report a copy of
 * their counters that a periodic task refreshes every R (storm.h's caller
 * knows R, from the driver's profile or learnt).  Between two
 * publications the counters stand still whatever happens, so a read that
 * cannot have seen a new publication is marked PFCWD_SAMPLE_STALE and
 * changes nothing the machine knows: the pause state is the one the last
 * publication showed, until the next one says otherwise.  A pause seen in
 * a publication therefore goes on until a publication shows no XOFF, and
 * is detected T0 after it was first seen (within R of its start); bursts
 * shorter than T0 - R cannot be detected, longer ones may be when R is
 * not shorter than T0 (nothing can tell them from a storm in time).  While
 * STORMED, a publication with fewer frames than the storm's highest rate
 * predicts for its interval (by more than 1/16) ends the storm within it:
 * the last XOFF is placed where that rate says the frames ran out, and
 * restoration comes T1 after that (stale reads may restore then); a
 * publication with no XOFF at all ends it at the previous one, which the
 * reader knows only R plus its window (refresh_window_ns) after it.  The
 * rate is a lower bound: each publication's frames are taken to have come
 * over the longest time they can have - since the earliest the previous
 * publication that showed frames can have been made, or, where that is
 * not known, since a period and its window before the read before (two
 * publications can show in one read a period after the last) - and a
 * storm's first rate over its episode plus a period and its window (a
 * rate taken too high restores early).  Two publications are at least a
 * period less the window apart, however wide the reads leave them: the
 * interval is predicted over that much at least, and the previous one
 * taken to be made that long before this one at the latest.
 * Restoration thus lands within [T1, T1 + R] of the storm's end when T1 is
 * at least R / 16 plus the window, and within R + R / 16 + the window
 * otherwise (once the storm covered a whole period; a shorter one may be
 * known to be over only a period later).  The refresh period also widens
 * the blind-counter watch below by R: a loop shows in the next
 * publication.
 *
 * Published pause time (PFCWD_SAMPLE_DURATION with cfg->refresh_ns:
 * bnxt_en's pfc_priP_rx_duration_us, in the same refresh as its frame
 * counts): paused_at is the publication's time at the latest (pub_at, or
 * the read) and paused_err how much earlier it can have been.  A pause is
 * continuous over an interval only if its pause time covers the longest
 * the interval can have been; otherwise it began within it, its pause
 * time before the publication, so a publication dates a pause's start
 * (not its read): the first storm on a port whose phase is not known is
 * detected within 2R of its start, not T0 + 2R.  The frames over the
 * pause time give the storm's rate from its first publication (frames
 * come only while paused; one frame fewer, the time to its 1/16 longer: a
 * lower bound), where frames alone need a whole period - but not over an
 * interval in which the priority came back into pfc_en (frames counted
 * while out of it, without pause time).  While STORMED, a publication
 * whose pause time covers less than the interval can have been (to its
 * 1/16), after one whose pause ran to its end (dur_on), ends the storm
 * within it: its last XOFF that pause time after the previous one.  So
 * restoration lands within T1 + R + the window of the storm's end whatever
 * its length; and where mitigation took the priority out of pfc_en (its
 * pause time stands still, PFCWD_SAMPLE_DUR_OFF), the frames place the end
 * by that rate.  A storm detected before its first publication was read
 * (from its stopped queues) was mitigated first: that publication's pause
 * time stopped at the mitigation while its frames went on to it.  The
 * storm was paused since the mitigation less that pause time at the
 * earliest - the mitigation no earlier than detection or the
 * publication, whichever came first, the publication no earlier than
 * the read before or a window before the grid's earliest (pub_lo) - so
 * those frames over the time from there to the publication are the rate
 * (for the next publication: its own frames began within), taken when
 * its pause time comes, in the same sample or a later step (cut_frames).
 * The source holds back a read that sees a publication's frames before
 * its pause time (a driver that copies them in steps), and pause time
 * that moves alone comes with DUR_OFF: a stale sample with it takes it as
 * the base of the next interval.
 *
 * Transmit stalls (PFCWD_SAMPLE_STALL): the priority's TX queues are
 * stopped and have sent nothing since stall_since (txq_stall.c) - no
 * transmit progress, known at every sample and never stale, but only while
 * the priority has traffic.  Without pause counters (cfg->stall_only) the
 * stall is the pause, as for an exact source: detection once it has lasted
 * T0, restoration T1 after the first sample that found the queues running
 * again (they wake after the pause ended: never early, at most a check
 * interval and half a ring's drain late).  With counters it
 * starts a pause at stall_since that the counters have not had time to
 * show: it stands until a reading that must include a publication made
 * after it began (hold_ns + refresh_ns + refresh_window_ns later) shows no
 * XOFF since it began, which refutes it (a queue stopped for another
 * reason); XOFF since it began confirms it.  A standing stall that has
 * lasted T0 is detected even on a stale read, so a storm on a priority
 * with traffic is detected T0 after its queues stopped, however seldom
 * the counters are published.  While STORMED, a stall the counters
 * confirmed holds the storm for as long as it stands (the queues of a
 * paused class cannot drain; mitigation in the datapath leaves them
 * so); otherwise restoration is the counters', and a stall that lasts
 * through a restoration is refuted.  Published counters that did not move
 * within a period of the stall's last sample are taken as stale (the
 * publication made after it may not have come), unless a sample already
 * showed frames of a publication made after it: then they are a
 * publication without pause.  A stall counts only once it has
 * lasted cfg->stall_min_ns (the caller's: min(hold time, T0 / 4)): a
 * saturated link stops and wakes its queues all the time, each stop as
 * long as half a ring takes to drain.
 *
 * Blind sources: some NICs stop counting received pause frames once the
 * priority is no longer in pfc_en.  Mitigation clears pfc_en, the counter
 * goes quiet, restoration re-enables PFC and the storm is back at once: a
 * storm/restore loop.  When a storm that mitigated by disabling PFC saw no
 * XOFF at all after its first sample and XOFF frames reappear within
 * 2 * hold_ns of PFC coming back (the restoration, or later when the caller
 * says so with pfcwd_storm_undone()), the machine goes straight to LATCHED
 * with reason PFCWD_LATCH_BLIND instead of looping.  For a counter source
 * that is any XOFF in the first sample that covers that window: a late
 * sample cannot tell the loop from a new storm, and latching is the safe
 * reading of the two.
 */
#ifndef _PFCWD_STORM_H
#define _PFCWD_STORM_H

#include "pure.h"
#include "pause_rate.h"

#define PFCWD_STORM_HISTORY	16	/* largest storm limit */
/* Restore backoff: at most T1 << 4 = 16 * T1, and at most 60 s. */
#define PFCWD_STORM_BACKOFF_MAX		4
#define PFCWD_STORM_BACKOFF_CAP_NS	(60 * PFCWD_NSEC_PER_SEC)
#define PFCWD_SLOW_BUCKET_NS	(100 * PFCWD_NSEC_PER_MSEC)

enum pfcwd_state {
	PFCWD_OPERATIONAL,
	PFCWD_STORMED,
	PFCWD_LATCHED,
};

enum pfcwd_latch {
	PFCWD_LATCH_NONE,
	PFCWD_LATCH_LIMIT,	/* storm limit reached within the window */
	PFCWD_LATCH_BLIND,	/* counters stop while PFC is off: would loop */
	PFCWD_LATCH_TX_STORM,	/* this port generated the storm */
	PFCWD_LATCH_NIC_STORM,	/* ...and the NIC's prevention stopped it */
};

/* Events returned by pfcwd_storm_sample(), a bitmask. */
#define PFCWD_EV_DETECTED	0x01	/* a received storm was detected */
#define PFCWD_EV_RESTORED	0x02	/* STORMED -> OPERATIONAL */
#define PFCWD_EV_LATCHED	0x04	/* entered LATCHED; see ->latch */
#define PFCWD_EV_TX_STORM	0x08	/* a generated storm was detected */
#define PFCWD_EV_SLOW		0x10	/* slow receiver */
#define PFCWD_EV_WARNING	0x20	/* paused for the warning time */
#define PFCWD_EV_RATE_RX	0x40	/* pause received above rate-rx */
#define PFCWD_EV_RATE_TX	0x80	/* pause sent above rate-tx */

/* Which optional counters of a sample are valid. */
#define PFCWD_SAMPLE_TX		0x01	/* tx_progress */
#define PFCWD_SAMPLE_RX		0x02	/* rx_packets */
#define PFCWD_SAMPLE_PAUSE	0x04	/* pause_since: exact pause state */
#define PFCWD_SAMPLE_STALE	0x08	/* counters not republished since */
#define PFCWD_SAMPLE_DURATION	0x10	/* paused_ns: cumulative pause time */
#define PFCWD_SAMPLE_STALL	0x20	/* stall_since: TX queues stopped */
#define PFCWD_SAMPLE_DUR_OFF	0x40	/* paused_ns cannot show pause now */

struct pfcwd_storm_config {
	u64 detect_ns;		/* T0 */
	u64 restore_ns;		/* T1 */
	u64 warn_ns;		/* warning time; 0 = off, else below T0 */
	u64 hold_ns;		/* largest gap within one continuous pause */
	u64 refresh_ns;		/* counters published this often; 0 = live */
	u64 refresh_window_ns;	/* ...each up to this late */
	u64 storm_window_ns;	/* storm limit window */
	u64 slow_window_ns;	/* slow receiver: how long the rate must stay high */
	u32 storm_limit;	/* storms per window that latch; 0 = no limit */
	u32 slow_threshold;	/* pause frames sent per second; 0 = off */
	bool backoff;		/* restore backoff: T1 << level, capped */
	bool disables_pfc;	/* the action clears the priority from pfc_en */
	bool stall_only;	/* no pause counters: a transmit stall is the pause */
	u64 stall_min_ns;	/* a shorter transmit stall is not one */
	/* Pause-rate early warning, per direction (pause_rate.h). */
	struct pfcwd_rate_config rate[PFCWD_RATE_DIRS];
};

/*
 * A priority's overrides of its port's configuration (per-priority
 * policy): detect_ns and restore_ns 0 follow the port; the warning time
 * follows it unless warn_set (then warn_ns, 0 = off for this priority).
 */
struct pfcwd_storm_override {
	u64 detect_ns;
	u64 restore_ns;
	u64 warn_ns;
	bool warn_set;
};

/*
 * One observation of one priority at time @now (ns, monotonic), of
 * counters that only grow (a 32-bit wrap is recognised; any other decrease
 * is taken as a reset, after which the new value counts).  Exact sources
 * (software PFC, driver push) give the times of the first and last XOFF
 * frame since the previous sample; counter sources leave them 0, meaning
 * "now".  Sources with PFCWD_SAMPLE_PAUSE also give pause_since: when the
 * pause in force at @now began, 0 if the priority is not paused at @now.
 */
struct pfcwd_sample {
	u64 now;
	u64 rx_pause;		/* XOFF frames received */
	u64 tx_pause;		/* pause frames sent */
	/*
	 * Grows whenever the priority transmitted (a packet count, or the
	 * jiffy of the datapath's last dequeue): only its growth is read.
	 */
	u64 tx_progress;
	/* The latest the last progress can have been, ns; 0: the sample's. */
	u64 tx_progress_at;
	u64 rx_packets;		/* frames received by the port */
	u64 xoff_first;
	u64 xoff_last;
	u64 pause_since;
	u64 paused_ns;		/* time paused, cumulative (a NIC's counter) */
	u64 paused_at;		/* paused_ns read by then, ns (see above) */
	u64 paused_err;
	/*
	 * Published counters: the publication this sample is the first to
	 * see was made after pub_after and at or before pub_at
	 * (pfcwd_pub_read()); 0: at @now.  A pause it shows began no later
	 * than pub_at; its frames came since the previous one's pub_after.
	 */
	u64 pub_after;
	u64 pub_at;
	/*
	 * ...and the grid's earliest for it (pfcwd_pub.lo; 0: unknown): it
	 * may have come up to a window before that (a late one before it
	 * moved the grid late).
	 */
	u64 pub_lo;
	/*
	 * PFCWD_SAMPLE_STALL: the priority's TX queues are stopped and sent
	 * nothing since this time; 0: they are not stopped.
	 */
	u64 stall_since;
	u8 valid;		/* PFCWD_SAMPLE_* */
	/*
	 * The NIC's own storm prevention stopped this priority's pause since
	 * the last sample: a generated storm, whatever T0 says.
	 */
	bool nic_storm;
};

struct pfcwd_storm_stats {
	u64 detected;		/* received storms detected */
	u64 restored;		/* storms ended: automatically or by hand */
	u64 tx_storms;		/* generated storms detected */
	u64 slow_events;	/* slow receiver events */
	u64 warnings;		/* storm warnings (paused for warn_ns) */
	u64 last_warn_paused_ns;	/* last warning: pause length then */
	u64 last_warned_at;	/* ...and its time */
	u64 stalls_refuted;	/* TX stalls the counters showed were no pause */
	u64 xoff_while_tx;	/* samples of XOFF while the priority sent */
	u64 rx_pause;		/* XOFF frames received */
	u64 tx_pause;		/* pause frames sent */
	u64 last_paused_ns;	/* last storm: pause length when detected */
	u64 last_storm_ns;	/* last storm: detection to restoration */
	u64 last_detected_at;	/* times of the last detection / restoration */
	u64 last_restored_at;
	struct pfcwd_rate_stats rate[PFCWD_RATE_DIRS];	/* pause-rate */
};

struct pfcwd_storm {
	enum pfcwd_state state;
	enum pfcwd_latch latch;

	/* Previous sample, for deltas; primed is false until the first. */
	bool primed;
	u8 valid;
	u64 prev_now;
	u64 prev_rx_pause, prev_tx_pause, prev_tx_progress, prev_rx_packets;
	u64 prev_paused_ns, prev_paused_at, prev_paused_err;

	/* Received pause: the current episode, 0 when none, and its frames. */
	u64 pause_start;
	u64 pause_last;
	u64 pause_frames;
	u64 pause_floor;	/* exact pause: counts from here at the earliest */
	u64 tx_at;		/* the last sample that saw transmit progress */

	u64 warned_at;		/* the last warning; 0: none since init */

	/* Generated pause with nothing received: the current episode. */
	u64 tx_start;
	u64 tx_last;
	u64 tx_frames;

	/* STORMED/LATCHED: when, and whether XOFF kept coming afterwards. */
	u64 stormed_at;
	u64 xoff_last;		/* last XOFF observation */
	u32 storm_samples;	/* samples since detection */
	bool xoff_while_mitigated;
	bool pub_paused;	/* published counters: last one showed pause */
	/*
	 * Published pause time: the last publication's pause is taken to
	 * run to its end (so a shorter one next ends it within)
	 */
	bool dur_on;
	bool dur_was_off;	/* the last sample's pause time could not show */
	/*
	 * The frames of the first publication read since the priority left
	 * pfc_en, whose pause time had not come with them (a later step):
	 * pfcwd_storm_cut_rate() once it does.  0: none.
	 */
	u64 cut_frames, cut_at, cut_from;
	u64 pub_last;		/* the last sample that showed XOFF frames */
	u64 pub_from;		/* ...its publication came after; 0: unknown */
	u64 rate_frames;	/* STORMED: the storm's highest rate seen, */
	u64 rate_span;		/* as frames over ns */

	/* The transmit stall being followed (counters: confirmed or not). */
	u64 stall_start;	/* 0: none */
	u64 stall_last;		/* the last sample a stall stood at */
	bool stall_xoff;	/* XOFF counted since it began */
	bool stall_refuted;	/* a publication since it began showed none */
	bool stall_counted;	/* this stall's refutation is in the stats */
	bool stall_woke;	/* stall only, STORMED: the queues ran since */

	/* After a restoration that saw no XOFF while PFC was off. */
	bool blind_suspect;
	u64 blind_from;		/* restoration, or PFC back if later */

	/* Restore backoff: the current or last storm's level, */
	u32 backoff_level;
	u64 backoff_end;	/* ...its restoration; 0: none, or by hand */

	/* Detection times of recent storms, for the storm limit (a ring). */
	u64 history[PFCWD_STORM_HISTORY];
	u32 history_len;
	u32 history_head;

	/* Slow receiver measurement. */
	u64 slow_bucket_start;
	u64 slow_bucket_frames;
	u64 slow_since;		/* 0: rate not above the threshold */
	bool slow_reported;

	/* Pause-rate early warning, received and sent. */
	struct pfcwd_rate rate[PFCWD_RATE_DIRS];

	struct pfcwd_storm_stats stats;
};

/*
 * Published counters: when the port's publications come, as its reads see
 * them, and so when to read it (source.c).  A read that sees the counters
 * move places the publication after the read before it (lo) and at or
 * before itself (hi).  Publications come on a grid of period R, each late
 * by up to the window: an interval that overlaps the previous one
 * projected by a period narrows it (reads straddling it bound it from
 * both sides), one later by less than half the window is a publication
 * late by a timer's rounding and leaves it (the phase is the grid's
 * early edge); any other replaces it (earlier: the phase was taken from
 * a read long after its publication; later: a learnt R a little short,
 * which drifts; periods later: R is known only so well).  The
 * publication was made by the window after the projected grid point (k
 * windows, k periods on) at the latest: a pause it shows is dated from
 * there when the read came later.  So the phase no longer stays with a
 * read long after the publication: the old phase, the read that saw a
 * move, was up to a period late when that read was a quiet one, and a
 * busy read shortly before the next publication that already saw it kept
 * it there, so quiet reads could land just before each publication and
 * see a storm a period late.
 *
 * Reads: quiet, once a period, at the end of the window after the grid
 * point (prompt: see phase counters below); busy, from the interval's
 * lower edge projected to the next publication, in steps of an eighth of
 * the interval (at least @fine) up to its upper edge, then every @fine
 * until the window closes, and from the next period's lower edge if
 * nothing came.  Locked, that is a
 * read or two per publication; unlocked, at most 8 + window / fine, and
 * each publication seen so narrows the interval eightfold.
 *
 * Phase counters: some drivers publish counters that move with any
 * traffic in the same copy as the pause counters (bnxt_en's port frame
 * totals, in the same firmware DMA).  A read that sees them move saw a
 * publication even when no pause came, so the phase is learnt before the
 * first storm, and a storm is then seen within a period of its start, not
 * two.  Pause frames are frames: in a publication whose pause counters
 * rose, the totals rose too.  A read that saw the pause counters move without
 * the totals saw a publication copied in steps (bnxt_en: the pause
 * counters DMAed, the totals accumulated from the DMA after another
 * firmware command; read the totals first, as source.c does, and that is
 * the only order in which they can lag): the next move of the totals alone
 * is the rest of it, not a publication without pause:
 * pfcwd_pub_phase().  While they keep showing publications, a quiet
 * port is read as pfcwd_pub_quiet_reads() says: while the interval is
 * wider than two fine reads, as a busy one, to narrow it (a few periods
 * of up to 8 + window / fine reads); then promptly, a fine read after the
 * grid point's upper edge, and only if that one saw nothing (the
 * publication is late) in quarters of the window until it closes: one
 * read a period when publications come on time, five at most, and a
 * storm's first publication is seen a fine read after it comes, or a
 * quarter of the window, not at the window's end.  Once the totals stood
 * still for two periods (no traffic: a read just after the grid point
 * would find nothing), quiet again.
 */
enum pfcwd_pub_reads {
	PFCWD_PUB_QUIET,	/* once a period, at the window's end */
	PFCWD_PUB_PROMPT,	/* a fine read after the grid point, then */
				/* in quarters of the window */
	PFCWD_PUB_BUSY,		/* around the grid point (the machines */
				/* follow a pause; or narrowing) */
};

struct pfcwd_pub {
	u64 last_read;		/* the latest read, ns; 0: none */
	u64 lo, hi;		/* the last publication came in (lo, hi]; */
	u64 at;			/* ...at or before this, by the grid; */
	u64 after;		/* ...after this read, which did not see it */
	u64 seen;		/* the latest read that saw one; 0: none */
	bool lag;		/* its totals are still to come (phase) */
};

u64 pfcwd_pub_read(struct pfcwd_pub *pub, u64 now, bool moved, u64 r,
		   u64 window);
u64 pfcwd_pub_next(const struct pfcwd_pub *pub, u64 now,
		   enum pfcwd_pub_reads how, u64 r, u64 window, u64 fine);
bool pfcwd_pub_phase(struct pfcwd_pub *pub, bool moved, bool phase);
enum pfcwd_pub_reads pfcwd_pub_quiet_reads(const struct pfcwd_pub *pub,
					   u64 now, u64 r, u64 window,
					   u64 fine);

void pfcwd_storm_init(struct pfcwd_storm *sm);
unsigned int pfcwd_storm_sample(struct pfcwd_storm *sm,
				const struct pfcwd_storm_config *cfg,
				const struct pfcwd_sample *s);
bool pfcwd_storm_restore(struct pfcwd_storm *sm, u64 now);
void pfcwd_storm_undone(struct pfcwd_storm *sm, u64 now);
void pfcwd_storm_forget(struct pfcwd_storm *sm);
void pfcwd_storm_clear_stats(struct pfcwd_storm *sm);
u64 pfcwd_storm_deadline(const struct pfcwd_storm *sm,
			 const struct pfcwd_storm_config *cfg);
bool pfcwd_storm_busy(const struct pfcwd_storm *sm);
u32 pfcwd_storm_backoff(const struct pfcwd_storm *sm,
			const struct pfcwd_storm_config *cfg, u64 now);
u64 pfcwd_storm_restore_ns(const struct pfcwd_storm_config *cfg, u32 level);
bool pfcwd_storm_stall_news(const struct pfcwd_storm *sm,
			    const struct pfcwd_storm_config *cfg, u64 since,
			    u64 now);
u64 pfcwd_counter_delta(u64 prev, u64 cur);
void pfcwd_storm_config_prio(struct pfcwd_storm_config *cfg,
			     const struct pfcwd_storm_override *ovr);

const char *pfcwd_state_name(enum pfcwd_state state);
const char *pfcwd_latch_name(enum pfcwd_latch latch);

#endif /* _PFCWD_STORM_H */
