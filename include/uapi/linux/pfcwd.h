/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * pfcwd - PFC storm watchdog: user/kernel ABI.
 *
 * Two interfaces share the enums below:
 *  - tc: the options of the "pfcwd" qdisc, nested in TCA_OPTIONS
 *    (TCA_PFCWD_*), and its extended statistics (struct tc_pfcwd_xstats);
 *  - the generic netlink family PFCWD_GENL_NAME, version
 *    PFCWD_GENL_VERSION (PFCWD_CMD_*, PFCWD_A_*), described for ynl by
 *    Documentation/netlink/specs/pfcwd.yaml.
 */
#ifndef _UAPI_LINUX_PFCWD_H
#define _UAPI_LINUX_PFCWD_H

#include <linux/types.h>

/* Number of bands of the qdisc: one per IEEE 802.1p priority. */
#define PFCWD_NUM_PRIO		8

/* Largest per-band packet limit accepted by the qdisc. */
#define PFCWD_LIMIT_MAX		(1U << 20)

/* Range of T0 (detection) and T1 (restoration), milliseconds. */
#define PFCWD_TIME_MS_MIN	1
#define PFCWD_TIME_MS_MAX	60000

/*
 * The warning time: 0 (off, the default) or 1 ms to below T0, so at most
 * PFCWD_TIME_MS_MAX - 1.  A port's for now; a per-priority one would be
 * an attribute of the "prio" nest overriding it, as T0 and T1 would.
 */
#define PFCWD_WARN_MS_MAX	(PFCWD_TIME_MS_MAX - 1)

/* Largest storm limit (storms within the window that latch). */
#define PFCWD_STORM_LIMIT_MAX	16

/*
 * Restore backoff (a port's, off by default): a storm detected within the
 * storm window (the storm limit's) of the previous one's restoration waits
 * twice as long as that one to be restored, T1 << level, at most
 * T1 << PFCWD_BACKOFF_LEVEL_MAX and PFCWD_BACKOFF_MAX_MS, never below T1;
 * a window without a storm starts again from T1.
 */
#define PFCWD_BACKOFF_LEVEL_MAX	4
#define PFCWD_BACKOFF_MAX_MS	60000

/*
 * Pause-rate early warning (a port's, per priority, off by default): pause
 * frames received (rate-rx) or sent (rate-tx) per second above the
 * threshold, for the window.  The window in force is at least the
 * measurement interval: 100 ms, or the counters' refresh period if longer.
 */
#define PFCWD_RATE_PPS_MAX		100000000
#define PFCWD_RATE_WINDOW_MS_MIN	100
#define PFCWD_RATE_WINDOW_MS_MAX	3600000
#define PFCWD_RATE_WINDOW_MS_DEFAULT	1000

/* Direction of a pause-rate event. */
enum pfcwd_rate_direction {
	PFCWD_RATE_RX,		/* pause frames received */
	PFCWD_RATE_TX,		/* pause frames sent */
};

/* What the watchdog does to a stormed priority. */
enum pfcwd_action {
	PFCWD_ACTION_DROP,	/* drop its traffic, stop honouring pause */
	PFCWD_ACTION_FORWARD,	/* stop honouring pause, keep forwarding */
	PFCWD_ACTION_ALERT,	/* counters, log and event only */
	__PFCWD_ACTION_CNT
};

#define PFCWD_ACTION_MAX	(__PFCWD_ACTION_CNT - 1)

/*
 * May mitigation take a priority out of the device's pfc_en?  auto: where
 * the driver's profile says setpfc is harmless, until pfcwd sees its own
 * setpfc take the carrier down; on: always; off: never (the datapath only).
 */
enum pfcwd_device_action {
	PFCWD_DEVICE_ACTION_AUTO,
	PFCWD_DEVICE_ACTION_ON,
	PFCWD_DEVICE_ACTION_OFF,
	__PFCWD_DEVICE_ACTION_CNT
};

#define PFCWD_DEVICE_ACTION_MAX	(__PFCWD_DEVICE_ACTION_CNT - 1)

/*
 * What a mitigation acts through: none (action alert), pfcwd's datapath
 * only (kernel traffic: RDMA bypasses the qdisc and stays paused), or the
 * device's pfc_en as well (RDMA too).
 */
enum pfcwd_lever {
	PFCWD_LEVER_NONE,
	PFCWD_LEVER_DATAPATH,
	PFCWD_LEVER_PFC_EN,
};

/* State of one priority. */
enum pfcwd_prio_state {
	PFCWD_PRIO_STATE_OPERATIONAL,	/* lossless, watched */
	PFCWD_PRIO_STATE_STORMED,	/* mitigating a storm */
	PFCWD_PRIO_STATE_LATCHED,	/* waits for prio-restore */
};

/* Why a priority latched. */
enum pfcwd_latch_reason {
	PFCWD_LATCH_REASON_NONE,
	PFCWD_LATCH_REASON_STORM_LIMIT,	/* storm limit reached */
	PFCWD_LATCH_REASON_BLIND,	/* counters blind while PFC off */
	PFCWD_LATCH_REASON_TX_STORM,	/* this port generated the storm */
	PFCWD_LATCH_REASON_NIC_STORM,	/* ...and the NIC's prevention stopped it */
};

/* Where a port's pause information comes from. */
enum pfcwd_source {
	PFCWD_SOURCE_NONE,	/* nothing to read: the port sees no pause */
	PFCWD_SOURCE_DCB,	/* polled dcbnl ieee_getpfc counters */
	PFCWD_SOURCE_PUSH,	/* the driver calls pfcwd_report_pause() */
	PFCWD_SOURCE_SOFTWARE,	/* PFC frames received in software */
	PFCWD_SOURCE_TXQ,	/* no counters: TX queues stopped, not sending */
};

/* ---- tc ---------------------------------------------------------------- */

enum {
	TCA_PFCWD_UNSPEC,
	TCA_PFCWD_LIMIT,	/* u32: per-band packet limit, 1..PFCWD_LIMIT_MAX */
	TCA_PFCWD_DETECT,	/* u32: T0, ms */
	TCA_PFCWD_RESTORE,	/* u32: T1, ms */
	TCA_PFCWD_ACTION,	/* u32: enum pfcwd_action */
	TCA_PFCWD_LOSSLESS,	/* u8: bitmask of watched priorities */
	TCA_PFCWD_WARN,		/* u32: warning time, ms; 0 = off, < T0 */
	TCA_PFCWD_BACKOFF,	/* u8: restore backoff, 0 off or 1 on */
	TCA_PFCWD_RATE_RX,	/* u32: pause-rate received, frames/s; 0 off */
	TCA_PFCWD_RATE_TX,	/* u32: pause-rate sent, frames/s; 0 off */
	TCA_PFCWD_RATE_WINDOW,	/* u32: pause-rate window, ms */
	__TCA_PFCWD_MAX
};

#define TCA_PFCWD_MAX (__TCA_PFCWD_MAX - 1)

/* Extended statistics of one priority (band) of the qdisc. */
struct tc_pfcwd_prio_xstats {
	__u32	state;		/* enum pfcwd_prio_state */
	__u32	flags;		/* TC_PFCWD_PRIO_* */
	__u64	detected;	/* storms detected */
	__u64	restored;	/* storms restored */
	__u64	tx_dropped;	/* packets dropped by the watchdog, tx */
	__u64	rx_dropped;	/* packets dropped by the watchdog, rx */
	__u64	tx_forwarded;	/* packets forwarded during a storm */
};

#define TC_PFCWD_PRIO_WATCHED	0x1	/* a lossless priority */
#define TC_PFCWD_PRIO_PAUSED	0x2	/* software pause timer running */

struct tc_pfcwd_xstats {
	struct tc_pfcwd_prio_xstats prio[PFCWD_NUM_PRIO];
};

/* ---- generic netlink --------------------------------------------------- */

#define PFCWD_GENL_NAME		"pfcwd"
#define PFCWD_GENL_VERSION	1
#define PFCWD_MCGRP_EVENTS	"events"

/*
 * A port: its device, configuration, state, and one PFCWD_A_PORT_PRIO
 * nest (attribute set "prio") per priority.
 */
enum {
	PFCWD_A_PORT_UNSPEC,
	PFCWD_A_PORT_IFINDEX,		/* u32 */
	PFCWD_A_PORT_IFNAME,		/* string */
	PFCWD_A_PORT_ENABLED,		/* u8: 0 or 1 */
	PFCWD_A_PORT_DETECT_MS,		/* u32: T0 */
	PFCWD_A_PORT_RESTORE_MS,	/* u32: T1 */
	PFCWD_A_PORT_ACTION,		/* u32: enum pfcwd_action */
	PFCWD_A_PORT_PRIOS,		/* u8: bitmask of priorities */
	PFCWD_A_PORT_STORM_LIMIT,	/* u32: 0..PFCWD_STORM_LIMIT_MAX */
	PFCWD_A_PORT_STORMED,		/* u8: bitmask, stormed or latched */
	PFCWD_A_PORT_GRANULARITY_US,	/* u32: bound on detection lateness */
	PFCWD_A_PORT_SOURCE,		/* u32: enum pfcwd_source */
	PFCWD_A_PORT_PFC_EN,		/* u8: the device's pfc_en */
	PFCWD_A_PORT_QDISCS,		/* u32: pfcwd qdiscs attached */
	PFCWD_A_PORT_HELD,		/* u8: enabled over netlink */
	PFCWD_A_PORT_GLOBAL_PAUSE,	/* u64: 802.3x pause frames received */
	PFCWD_A_PORT_PAUSE_MALFORMED,	/* u64: bad MAC control frames ignored */
	PFCWD_A_PORT_PRIO,		/* nest: "prio", one per priority */
	PFCWD_A_PORT_PAD,
	/* Added after PAD, so that no earlier number changed. */
	PFCWD_A_PORT_DEVICE_ACTION,	/* u32: enum pfcwd_device_action */
	PFCWD_A_PORT_DEVICE_PFC,	/* u8: mitigation uses pfc_en now */
	PFCWD_A_PORT_SETPFC_HURTS,	/* u8: our setpfc took the link down */
	PFCWD_A_PORT_SETPFC_ERRORS,	/* u64: failed setpfc calls of pfcwd */
	PFCWD_A_PORT_PROFILE,		/* string: driver profile name */
	PFCWD_A_PORT_REFRESH_MS,	/* u32: counter refresh period, 0 = live */
	PFCWD_A_PORT_REFRESH_LEARNT,	/* u8: refresh_ms learnt at run time */
	PFCWD_A_PORT_READS,		/* u64: counter reads (ieee_getpfc) */
	PFCWD_A_PORT_FORCED_READS,	/* u64: forced counter refreshes */
	PFCWD_A_PORT_READ_ERRORS,	/* u64: failed counter reads */
	PFCWD_A_PORT_READ_RATE,		/* u32: counter reads per second */
	PFCWD_A_PORT_NIC_PREVENTION_MS,	/* u32: NIC's pfc-prevention-tout */
	PFCWD_A_PORT_NIC_STORM_WARNINGS,	/* u64: its warning events */
	PFCWD_A_PORT_NIC_STORM_ERRORS,	/* u64: its error events (stops) */
	PFCWD_A_PORT_RESTORE_LATE_US,	/* u32: bound on restoration lateness */
	PFCWD_A_PORT_WARN_MS,		/* u32: warning time; 0 = off, < T0 */
	PFCWD_A_PORT_BACKOFF,		/* u8: restore backoff, 0 or 1 */
	PFCWD_A_PORT_RATE_RX,		/* u32: pause received, frames/s; 0 off */
	PFCWD_A_PORT_RATE_TX,		/* u32: pause sent, frames/s; 0 off */
	PFCWD_A_PORT_RATE_WINDOW_MS,	/* u32: how long above, 100-3600000 */
	PFCWD_A_PORT_EFFECTIVE_RATE_WINDOW_MS,	/* u32: the window in force */
	PFCWD_A_PORT_RATE_DIRECTION,	/* u8: pause-rate event: enum pfcwd_rate_direction */
	PFCWD_A_PORT_RATE_PPS,		/* u64: pause-rate event: mean rate, frames/s */
	PFCWD_A_PORT_RATE_DURATION_MS,	/* u32: pause-rate event: above for */
	PFCWD_A_PORT_HISTORY,		/* nest: "history", one priority's */
	PFCWD_A_PORT_HISTORY_PRIO,	/* u8: history-get: only this priority */
	PFCWD_A_PORT_PHASE,		/* u8: frame totals give the publication phase */
	PFCWD_A_PORT_PHASE_PUBS,	/* u64: publications the totals alone showed */
	PFCWD_A_PORT_PUB_WIDTH_US,	/* u32: where publications come, wide; 0 unknown */
	PFCWD_A_PORT_TX_PROGRESS,	/* u8: a qdisc shows transmit progress */
	PFCWD_A_PORT_LEVER,		/* u32: enum pfcwd_lever, port's action */
	PFCWD_A_PORT_RDMA_COVERED,	/* u8: that lever reaches RDMA */
	PFCWD_A_PORT_EVENT_SEQ,		/* u64: events: number in the netns */
	PFCWD_A_PORT_BLIND,		/* u8: source-blind: 1 blind, 0 sees again */
	PFCWD_A_PORT_SETPFC_ERRNO,	/* u32: setpfc-failed: the driver's errno */
	PFCWD_A_PORT_SETPFC_PRIOS,	/* u8: setpfc-failed: bits not changed */
	__PFCWD_A_PORT_CNT
};

#define PFCWD_A_PORT_MAX (__PFCWD_A_PORT_CNT - 1)

/*
 * One priority.  Counters are since the port was created or its stats
 * were last cleared; LAST_* describe the last storm only.  Times are
 * CLOCK_MONOTONIC nanoseconds, 0 when never.
 */
enum {
	PFCWD_A_PRIO_UNSPEC,
	PFCWD_A_PRIO_PRIO,		/* u8: 0..7 */
	PFCWD_A_PRIO_WATCHED,		/* u8: 0 or 1 */
	PFCWD_A_PRIO_STATE,		/* u32: enum pfcwd_prio_state */
	PFCWD_A_PRIO_LATCH,		/* u32: enum pfcwd_latch_reason */
	PFCWD_A_PRIO_ACTION,		/* u32: action of the storm in progress */
	PFCWD_A_PRIO_DETECTED,		/* u64: storms detected */
	PFCWD_A_PRIO_RESTORED,		/* u64: storms restored */
	PFCWD_A_PRIO_TX_STORMS,		/* u64: storms generated by the port */
	PFCWD_A_PRIO_SLOW_EVENTS,	/* u64: slow receiver events */
	PFCWD_A_PRIO_RX_PAUSE,		/* u64: XOFF frames received */
	PFCWD_A_PRIO_TX_PAUSE,		/* u64: pause frames sent */
	PFCWD_A_PRIO_TX_PACKETS,	/* u64: sent (driver counter) */
	PFCWD_A_PRIO_RX_PACKETS,	/* u64: received (driver counter) */
	PFCWD_A_PRIO_TX_DROPPED,	/* u64: dropped by the watchdog, tx */
	PFCWD_A_PRIO_RX_DROPPED,	/* u64: dropped by the watchdog, rx */
	PFCWD_A_PRIO_TX_FORWARDED,	/* u64: forwarded during storms */
	PFCWD_A_PRIO_LAST_TX_DROPPED,	/* u64 */
	PFCWD_A_PRIO_LAST_RX_DROPPED,	/* u64 */
	PFCWD_A_PRIO_LAST_TX_FORWARDED,	/* u64 */
	PFCWD_A_PRIO_LAST_PAUSED_US,	/* u64: paused for, when detected */
	PFCWD_A_PRIO_LAST_STORM_US,	/* u64: detection to restoration */
	PFCWD_A_PRIO_LAST_DETECTED_NS,	/* u64: time of the last detection */
	PFCWD_A_PRIO_LAST_RESTORED_NS,	/* u64: time of the last restoration */
	PFCWD_A_PRIO_EVENT_NS,		/* u64: events: when it happened */
	PFCWD_A_PRIO_PAD,
	/* Added after PAD, so that no earlier number changed. */
	PFCWD_A_PRIO_WARNINGS,		/* u64: storm warnings */
	PFCWD_A_PRIO_LAST_WARN_PAUSED_US,	/* u64: paused for, when warned */
	PFCWD_A_PRIO_BACKOFF_LEVEL,	/* u32: restore backoff level, 0-4 */
	PFCWD_A_PRIO_EFFECTIVE_RESTORE_MS,	/* u32: T1 in force, backed off */
	/*
	 * Per-priority policy: overrides of the port's T0, T1, warning time
	 * and action (port-set: in a "prio" nest with PFCWD_A_PRIO_PRIO; a
	 * bit of PFCWD_A_PRIO_DEFAULTS drops that override: the priority
	 * follows the port again).  port-get gives each override that is
	 * set, PFCWD_A_PRIO_OVERRIDES, and the values in force.
	 */
	PFCWD_A_PRIO_DETECT_MS,		/* u32: T0 override, ms */
	PFCWD_A_PRIO_RESTORE_MS,	/* u32: T1 override, ms */
	PFCWD_A_PRIO_WARN_MS,		/* u32: warning time override; 0 = off */
	PFCWD_A_PRIO_POLICY_ACTION,	/* u32: action override, enum pfcwd_action */
	PFCWD_A_PRIO_DEFAULTS,		/* u32: set: PFCWD_PRIO_OVR_* to drop */
	PFCWD_A_PRIO_OVERRIDES,		/* u32: get: PFCWD_PRIO_OVR_* set */
	PFCWD_A_PRIO_EFFECTIVE_DETECT_MS,	/* u32: T0 in force */
	PFCWD_A_PRIO_EFFECTIVE_WARN_MS,		/* u32: warning time in force */
	PFCWD_A_PRIO_EFFECTIVE_ACTION,		/* u32: action of the next storm */
	PFCWD_A_PRIO_RATE_RX_EVENTS,	/* u64: pause-rate events, received */
	PFCWD_A_PRIO_RATE_TX_EVENTS,	/* u64: pause-rate events, sent */
	PFCWD_A_PRIO_PFC_REENABLED,	/* u64: stormed prio put back in pfc_en */
	PFCWD_A_PRIO_XOFF_WHILE_TX,	/* u64: samples of XOFF while sending */
	PFCWD_A_PRIO_LEVER,		/* u32: enum pfcwd_lever, this storm's */
	PFCWD_A_PRIO_RDMA_COVERED,	/* u8: that lever reaches RDMA */
	__PFCWD_A_PRIO_CNT
};

#define PFCWD_A_PRIO_MAX (__PFCWD_A_PRIO_CNT - 1)

/* Per-priority overrides (PFCWD_A_PRIO_OVERRIDES, PFCWD_A_PRIO_DEFAULTS). */
#define PFCWD_PRIO_OVR_DETECT	0x1
#define PFCWD_PRIO_OVR_RESTORE	0x2
#define PFCWD_PRIO_OVR_WARN	0x4
#define PFCWD_PRIO_OVR_ACTION	0x8
#define PFCWD_PRIO_OVR_ALL	0xf

/*
 * Pause history of one priority (PFCWD_CMD_HISTORY_GET): time paused and
 * pause episodes, total (since the port was created or its stats cleared)
 * and over the last completed interval (windows of INTERVAL_MS aligned on
 * CLOCK_MONOTONIC), exact (software PFC: from each frame's quanta) or
 * estimated (the detector's own paused episodes, at its sampling
 * granularity); and one PFCWD_A_HIST_STORM nest per storm, oldest first,
 * at most PFCWD_HIST_STORMS_MAX.
 */
#define PFCWD_HIST_STORMS_MAX	16

enum {
	PFCWD_A_HIST_UNSPEC,
	PFCWD_A_HIST_PRIO,		/* u8: 0..7 */
	PFCWD_A_HIST_WATCHED,		/* u8: 0 or 1 */
	PFCWD_A_HIST_EXACT,		/* u8: 1 exact, 0 estimated */
	PFCWD_A_HIST_PAUSED_NS,		/* u64: time paused, total */
	PFCWD_A_HIST_EPISODES,		/* u64: pause episodes, total */
	PFCWD_A_HIST_INTERVAL_MS,	/* u32: the interval's length */
	PFCWD_A_HIST_LAST_PAUSED_NS,	/* u64: paused in the last interval */
	PFCWD_A_HIST_LAST_EPISODES,	/* u64: episodes begun in it */
	PFCWD_A_HIST_PAUSED,		/* u8: paused now */
	PFCWD_A_HIST_STORMS,		/* u64: storms recorded, ever */
	PFCWD_A_HIST_STORM,		/* nest: "storm", one per record */
	PFCWD_A_HIST_PAD,
	__PFCWD_A_HIST_CNT
};

#define PFCWD_A_HIST_MAX (__PFCWD_A_HIST_CNT - 1)

/* How a recorded storm ended. */
enum pfcwd_storm_end {
	PFCWD_STORM_END_ONGOING,	/* mitigating, or latched */
	PFCWD_STORM_END_RESTORED,	/* T1 without XOFF: restored */
	PFCWD_STORM_END_BY_HAND,	/* prio-restore by an operator */
	PFCWD_STORM_END_DISABLED,	/* the port was disabled */
	PFCWD_STORM_END_UNWATCHED,	/* the priority was unwatched */
	PFCWD_STORM_END_NETNS,		/* the device changed netns */
	PFCWD_STORM_END_REMOVED,	/* the port went away */
	PFCWD_STORM_END_REPLACED,	/* a new storm began first */
};

/*
 * One storm.  START_NS is CLOCK_REALTIME (wall clock) ns, converted when
 * the dump is made; START_MONO_NS the CLOCK_MONOTONIC time it was taken at.
 */
enum {
	PFCWD_A_STORM_UNSPEC,
	PFCWD_A_STORM_START_NS,		/* u64: its pause began, wall clock */
	PFCWD_A_STORM_START_MONO_NS,	/* u64: the same, CLOCK_MONOTONIC */
	PFCWD_A_STORM_DETECT_US,	/* u32: start to detection */
	PFCWD_A_STORM_DURATION_US,	/* u64: detection to end, or to now */
	PFCWD_A_STORM_ACTION,		/* u32: enum pfcwd_action */
	PFCWD_A_STORM_TX,		/* u8: generated by this port */
	PFCWD_A_STORM_LATCH,		/* u32: enum pfcwd_latch_reason */
	PFCWD_A_STORM_END,		/* u32: enum pfcwd_storm_end */
	PFCWD_A_STORM_TX_DROPPED,	/* u64 */
	PFCWD_A_STORM_RX_DROPPED,	/* u64 */
	PFCWD_A_STORM_TX_FORWARDED,	/* u64 */
	PFCWD_A_STORM_PAD,
	__PFCWD_A_STORM_CNT
};

#define PFCWD_A_STORM_MAX (__PFCWD_A_STORM_CNT - 1)

enum {
	PFCWD_CMD_UNSPEC,
	PFCWD_CMD_PORT_GET,		/* do (by device) and dump */
	PFCWD_CMD_PORT_SET,		/* change, create (enabled 1), remove (0) */
	PFCWD_CMD_STATS_CLEAR,		/* one port, or every port of the netns */
	PFCWD_CMD_PRIO_RESTORE,		/* restore PFCWD_A_PORT_PRIOS by hand */
	PFCWD_CMD_STORM_DETECTED,	/* notification */
	PFCWD_CMD_STORM_RESTORED,	/* notification */
	PFCWD_CMD_TX_STORM,		/* notification */
	PFCWD_CMD_SLOW_RECEIVER,	/* notification */
	PFCWD_CMD_STORM_WARNING,	/* notification */
	PFCWD_CMD_PAUSE_RATE,		/* notification */
	PFCWD_CMD_HISTORY_GET,		/* dump: pause history, per priority */
	PFCWD_CMD_PORT_ADDED,		/* notification */
	PFCWD_CMD_PORT_REMOVED,		/* notification */
	PFCWD_CMD_CONFIG_CHANGED,	/* notification */
	PFCWD_CMD_SETPFC_FAILED,	/* notification */
	PFCWD_CMD_SETPFC_FALLBACK,	/* notification */
	PFCWD_CMD_SOURCE_BLIND,		/* notification */
	__PFCWD_CMD_CNT
};

#define PFCWD_CMD_MAX (__PFCWD_CMD_CNT - 1)

#endif /* _UAPI_LINUX_PFCWD_H */
