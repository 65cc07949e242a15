/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pfcwd - interfaces between the parts of pfcwd.ko.
 *
 * Objects and their rules (each file's header says more):
 *
 * struct pfcwd_port - one watched net_device (port.c; lifecycle.c says
 *   when it comes and goes).  Lives while a pfcwd qdisc is attached to the
 *   device or netlink holds it; dies with the device or the module.
 *   Reference counted (refcnt); freed after an RCU grace period.
 *   Found by device through an RCU hash (pfcwd_port_lookup_rcu()).
 *
 * Lock order: RTNL -> pfcwd_ports_lock -> port->lock -> port->swpfc.lock
 * (and port->lock -> netfilter's hook mutex, when the ingress hook comes
 * or goes; port->push_lock is a leaf, taken with IRQs off).
 *   RTNL         attaching and detaching, teardown, every driver call
 *                (dcbnl, stats), port->dead.  Driver calls may emit
 *                netdevice events synchronously, so pfcwd's notifier
 *                takes no port->lock for them (lifecycle.c).
 *   ports_lock   the port list and hash (writers); readers use RCU.
 *   port->lock   (a mutex) cfg, the per-priority state machines and
 *                their bookkeeping (mitigation applied, pfc bits cleared).
 *   swpfc.lock   (a spinlock) software PFC pause state and counters.
 *   push_lock    (a spinlock, IRQs off: any context) the pushed pause
 *                history, prio[].push.paused.
 *   The datapath (qdisc, ingress hook) reads prio[].dp_action and
 *   swpfc.until[] with READ_ONCE only, and stamps prio[].tx_jiffies
 *   with WRITE_ONCE (pfcwd_prio_note_tx()), which the poller reads with
 *   READ_ONCE: a lost race only moves the stamp by a jiffy.
 *
 * Contexts: the poll timer is a hard-irq hrtimer that only queues work;
 * everything else runs in process context (work items, sysfs, RTNL
 * callers), except pfcwd_report_pause(), callable from any context, and
 * the ingress hook (softirq) and the software PFC receive hook
 * (softirq), which takes only port->swpfc.lock (everyone else takes it
 * with BHs off).
 */
#ifndef _PFCWD_PFCWD_H
#define _PFCWD_PFCWD_H

#include <linux/cache.h>
#include <linux/debugfs.h>
#include <linux/jiffies.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/netfilter.h>
#include <linux/ratelimit.h>
#include <linux/refcount.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <uapi/linux/pfcwd.h>

#include "history.h"
#include "storm.h"

#define PFCWD_DEFAULT_PRIOS	0x18	/* 3,4 when the device has no DCB */

struct seq_file;
struct ethtool_stats;

struct pfcwd_config {
	u32 detect_ms;			/* T0 */
	u32 restore_ms;			/* T1 */
	u32 warn_ms;			/* warning time; 0 = off, < T0 */
	enum pfcwd_action action;
	enum pfcwd_device_action device_action;	/* may pfc_en be used */
	u8 prios;			/* watched (lossless) priorities */
	bool prios_follow;		/* none given: prios follow pfc_en */
	u32 storm_limit;		/* 0..PFCWD_STORM_LIMIT_MAX */
	u8 backoff;			/* restore backoff: 0 off, 1 on */
	u32 rate_rx;			/* pause-rate received, frames/s; 0 off */
	u32 rate_tx;			/* pause-rate sent, frames/s; 0 off */
	u32 rate_window_ms;		/* pause-rate window */
	bool enabled;
	/*
	 * Per-priority policy: the overrides each priority has
	 * (PFCWD_PRIO_OVR_*) and their values; a priority follows the
	 * port's value for each one it has not (pfcwd_cfg_prio_*()).
	 */
	u8 ovr[PFCWD_NUM_PRIO];
	u32 prio_detect_ms[PFCWD_NUM_PRIO];
	u32 prio_restore_ms[PFCWD_NUM_PRIO];
	u32 prio_warn_ms[PFCWD_NUM_PRIO];
	enum pfcwd_action prio_action[PFCWD_NUM_PRIO];
};

/* A priority's value in force: its override, else the port's. */
static inline u32 pfcwd_cfg_prio_detect(const struct pfcwd_config *cfg, int p)
{
	return cfg->ovr[p] & PFCWD_PRIO_OVR_DETECT ? cfg->prio_detect_ms[p] :
						     cfg->detect_ms;
}

static inline u32 pfcwd_cfg_prio_restore(const struct pfcwd_config *cfg, int p)
{
	return cfg->ovr[p] & PFCWD_PRIO_OVR_RESTORE ? cfg->prio_restore_ms[p] :
						      cfg->restore_ms;
}

static inline u32 pfcwd_cfg_prio_warn(const struct pfcwd_config *cfg, int p)
{
	return cfg->ovr[p] & PFCWD_PRIO_OVR_WARN ? cfg->prio_warn_ms[p] :
						   cfg->warn_ms;
}

static inline enum pfcwd_action
pfcwd_cfg_prio_action(const struct pfcwd_config *cfg, int p)
{
	return cfg->ovr[p] & PFCWD_PRIO_OVR_ACTION ? cfg->prio_action[p] :
						     cfg->action;
}

/* A change to a port's configuration: the fields named in @set. */
#define PFCWD_CFG_DETECT	BIT(0)
#define PFCWD_CFG_RESTORE	BIT(1)
#define PFCWD_CFG_ACTION	BIT(2)
#define PFCWD_CFG_PRIOS		BIT(3)
#define PFCWD_CFG_STORM_LIMIT	BIT(4)
#define PFCWD_CFG_ENABLED	BIT(5)
#define PFCWD_CFG_DEVICE_ACTION	BIT(6)
#define PFCWD_CFG_WARN		BIT(7)
#define PFCWD_CFG_BACKOFF	BIT(8)
#define PFCWD_CFG_PRIO_POLICY	BIT(9)
#define PFCWD_CFG_RATE_RX	BIT(10)
#define PFCWD_CFG_RATE_TX	BIT(11)
#define PFCWD_CFG_RATE_WINDOW	BIT(12)

/*
 * PFCWD_CFG_PRIO_POLICY: per priority, the overrides to set (ovr_set,
 * their values in cfg.prio_*) and to drop (ovr_drop); cfg.ovr unused.
 */
struct pfcwd_config_change {
	unsigned int set;
	struct pfcwd_config cfg;
	u8 ovr_set[PFCWD_NUM_PRIO];
	u8 ovr_drop[PFCWD_NUM_PRIO];
};

/* Module-wide settings (params.c), read with READ_ONCE. */
struct pfcwd_params {
	u32 detect_ms;
	u32 restore_ms;
	enum pfcwd_action action;
	u32 poll_quiet_us;
	u32 poll_fine_us;
	u32 poll_budget;
	u32 storm_window_ms;
	u32 slow_threshold;
	u32 slow_window_ms;
	u32 max_userns_ports;
};

extern struct pfcwd_params pfcwd_params;

/* Push source: what pfcwd_report_pause() accumulated since the last poll. */
struct pfcwd_push {
	atomic64_t xoff;		/* XOFF frames, cumulative */
	atomic64_t first;		/* first XOFF since the last poll, 0 = none */
	atomic64_t last;		/* last XOFF, ns */
	/*
	 * Exact pause time from each report's quanta at the link speed
	 * (history.c), XON ending it; port->push_lock.
	 */
	struct pfcwd_hist_pause paused;
};

/*
 * Software PFC (swpfc.c): PFC frames received by the stack on a device
 * without hardware PFC.  One priority's pause, under swpfc.lock.
 */
struct pfcwd_swpfc_prio {
	u64 since;		/* when the pause in force began, ns */
	u64 first;		/* first XOFF since the last sample, 0 = none */
	u64 last;		/* last XOFF, ns; 0 = never */
	u64 xoff;		/* XOFF frames (quanta > 0), cumulative */
	u64 xon;		/* XON frames (quanta 0), cumulative */
	u64 pauses;		/* pauses begun (a storm: 1 + its lapses) */
	struct pfcwd_hist_pause paused;	/* exact pause time (history.c) */
};

struct pfcwd_swpfc {
	/*
	 * Per priority, when its pause ends (ns, CLOCK_MONOTONIC; 0 or past:
	 * not paused).  Read by the qdisc with READ_ONCE for each band it
	 * looks at; written under lock by the receive handler.  Alone in its
	 * cache line.
	 */
	u64 until[PFCWD_NUM_PRIO] ____cacheline_aligned_in_smp;

	spinlock_t lock ____cacheline_aligned_in_smp;
	struct pfcwd_swpfc_prio prio[PFCWD_NUM_PRIO];
	u64 frames;		/* valid PFC frames */
	u64 global_pause;	/* 802.3x PAUSE frames (counted, not honoured) */
	u64 malformed;		/* MAC control frames ignored as malformed */
	u32 quantum_ps;		/* 512 bit times at the link speed; READ_ONCE */
	u8 honour;		/* priorities whose pause is honoured; READ_ONCE */

	bool active;		/* RTNL: the ingress hook is registered */
	struct nf_hook_ops ops;
};

struct pfcwd_prio {
	struct pfcwd_storm sm;
	struct pfcwd_push push;
	enum pfcwd_action applied;	/* action of the storm in progress */
	bool mitigating;		/* an action is applied */
	u8 dp_action;			/* PFCWD_DP_*, for the datapath */

	/*
	 * Packets the datapath dropped or forwarded for the watchdog, since
	 * the port was created; written (only while mitigating) by every
	 * qdisc of the port, hence atomic.  *_base: the counts when the
	 * last storm began; last_*: what the last storm that ended added.
	 */
	atomic64_t tx_dropped;
	atomic64_t rx_dropped;
	atomic64_t tx_forwarded;
	/*
	 * The jiffy of the last packet a qdisc of the port dequeued at this
	 * priority: its transmit progress, which no pause counter shows.
	 */
	unsigned long tx_jiffies;
	/* flushes of queued packets that stopped at their budget */
	atomic64_t flush_breaks;
	u64 tx_dropped_base, rx_dropped_base, tx_forwarded_base;
	u64 last_tx_dropped, last_rx_dropped, last_tx_forwarded;
	/* port->lock: another agent put it back into pfc_en during a storm */
	u64 pfc_reenabled;		/* ...this often, each taken out again */
	bool reenable_logged;		/* ...logged for the storm in progress */

	/* Pause history (history.c), port->lock: estimated pause time, */
	struct pfcwd_hist_pause paused_est;
	struct pfcwd_hist_ring storms;	/* ...and the last storms */
};

/* Whether @prio's stamp is older than this jiffy. */
static inline bool pfcwd_prio_tx_stale(const struct pfcwd_prio *pp)
{
	unsigned long now = jiffies;

	return READ_ONCE(pp->tx_jiffies) != now;
}

/* Stamps @prio's transmit progress: at most once a jiffy (no bouncing). */
static inline void pfcwd_prio_note_tx(struct pfcwd_prio *pp)
{
	WRITE_ONCE(pp->tx_jiffies, jiffies);
}

/* What the datapath does with a priority's packets. */
#define PFCWD_DP_NORMAL		0
#define PFCWD_DP_DROP		1
#define PFCWD_DP_FORWARD	2

struct pfcwd_ingress;

/* What one read of a device's PFC counters costs (profile.c). */
enum pfcwd_read_cost {
	PFCWD_COST_FREE,	/* memory, or a cached copy */
	PFCWD_COST_REGISTER,	/* register reads */
	PFCWD_COST_FIRMWARE,	/* a firmware command */
	PFCWD_COST_SEVERAL,	/* several commands or register queries */
};

/*
 * A driver's PFC counters and setpfc, as studied (profile.c).  Counters
 * are published every refresh_ms (0: live at every read); with force,
 * get_ethtool_stats publishes them at once (stale_until_forced: only it
 * does), which pfcwd does before each read, at most every force_quiet_ms
 * while the port is quiet and every force_busy_ms while it is busy.
 * With durations (live counters only), every read that the state machines
 * see also reads the pause durations through get_ethtool_stats, and
 * force_busy_ms paces the busy reads likewise.
 */
struct pfcwd_profile {
	const char *name;
	const char *driver;		/* ethtool drvinfo driver */
	u32 refresh_ms;
	u32 force_quiet_ms;
	u32 force_busy_ms;
	enum pfcwd_read_cost cost;
	bool learn;			/* refresh period learnt at run time */
	bool force;
	bool stale_until_forced;
	bool swapped;			/* requests and indications swapped */
	bool blind_when_off;		/* no RX count while pfc_en bit is off */
	bool no_counters;		/* pfc_en only: nothing to watch */
	bool setpfc_disruptive;		/* setpfc bounces or quiesces the port */
	const char *setpfc_cost;	/* what that costs, for the log */
	bool durations;			/* live pause durations in ethtool -S */
	/*
	 * pause durations in ethtool -S, published with the pause counters
	 * and read with the phase counters (no read of their own)
	 */
	bool pub_durations;
	/*
	 * ethtool -S has frame totals published with the pause counters
	 * (rx_total_frames, tx_total_frames): the phase counters (storm.h)
	 */
	bool phase_totals;
};

/* Driver statistics read by name (ethtool_ctr.c). */
enum {
	PFCWD_ECTR_NIC_WARN,		/* tx_pause_storm_warning_events */
	PFCWD_ECTR_NIC_ERR,		/* tx_pause_storm_error_events */
	PFCWD_ECTR_RX_FRAMES,		/* rx_total_frames (phase counter) */
	PFCWD_ECTR_TX_FRAMES,		/* tx_total_frames (phase counter) */
	PFCWD_ECTR_DUR0,		/* priority 0's pause duration (us), ... */
	/* tx_prioP_packets, rx_prioP_packets (mlx5's names), for display */
	PFCWD_ECTR_TX_PKTS0 = PFCWD_ECTR_DUR0 + PFCWD_NUM_PRIO,
	PFCWD_ECTR_RX_PKTS0 = PFCWD_ECTR_TX_PKTS0 + PFCWD_NUM_PRIO,
	PFCWD_ECTR_NUM = PFCWD_ECTR_RX_PKTS0 + PFCWD_NUM_PRIO,
};

/* The names drivers give the pause durations (ethtool_ctr.c). */
#define PFCWD_ECTR_DUR_NAMES	3

struct pfcwd_ectrs {
	int n_stats;			/* statistics count looked up for */
	int idx[PFCWD_ECTR_NUM];	/* where each is; -1: absent */
	u32 found;			/* BIT(id) of those found */
	int dur_name;			/* the durations' name; -1: none */
	u64 looked_at;			/* ns */
};

/* The NIC's own storm prevention counters (nic_storm.c); the poller's. */
struct pfcwd_nic {
	bool primed;
	u8 rising;			/* watched prios whose requests rose */
	u64 warn_base, err_base;	/* values last read */
	u64 req[PFCWD_NUM_PRIO];	/* requests at the last read */
	u64 rose_at[PFCWD_NUM_PRIO];	/* last read they had risen at, ns */
	u64 read_at;			/* ns */
	u64 warnings, errors;		/* events seen; READ_ONCE elsewhere */
	int shown_ms;			/* the tunable as last read; -1: none */
};

/* The link as a netdevice event left it (port.c). */
struct pfcwd_link {
	u32 speed;			/* Mb/s */
	bool up;			/* running, carrier on */
	u64 lost_at;			/* the carrier went down then, ns; 0 */
};

/* One read of a port's sources (source.c), for its state machines. */
struct pfcwd_counters {
	u64 now;
	u64 indications[PFCWD_NUM_PRIO];
	u64 requests[PFCWD_NUM_PRIO];
	u64 rx_packets;
	u8 pfc_en;
	bool pfc_valid;
	bool stale;		/* not republished since the last read */
	bool forced;		/* refresh_stats was read by this poll */
	u8 dur_valid;		/* priorities with a pause duration */
	u64 paused_ns[PFCWD_NUM_PRIO];	/* their pause durations */
	u64 dur_at, dur_err;	/* when they were read, ns, +- dur_err */
	bool dur_pub;		/* ...published with the counters (bnxt) */
	bool dur_lag;		/* ...a step behind or ahead of them */
	u8 nic_storm;		/* the NIC's prevention stopped these */
	u8 stall_valid;		/* priorities the transmit-stall signal covers */
	u64 stall_since[PFCWD_NUM_PRIO];	/* their stalls; 0: none */
};

struct pfcwd_port {
	struct hlist_node hnode;	/* pfcwd_port_hash, by dev */
	struct list_head node;		/* pfcwd_ports */
	u64 id;				/* creation order; never reused */
	refcount_t refcnt;
	struct rcu_head rcu;

	struct net_device *dev;		/* valid while !dead, under RTNL */
	netdevice_tracker dev_tracker;
	char name[IFNAMSIZ];		/* for logs; updated on rename */
	bool dead;			/* RTNL */
	u32 qdisc_users;		/* RTNL */
	bool held;			/* RTNL: enabled over netlink */
	bool sysfs;			/* RTNL: the sysfs group exists */
	bool userns;			/* created in a user namespace's netns */
	/*
	 * Link events the netdevice notifier left for the poller (RTNL).
	 * The notifier never takes port->lock: it can run inside a driver
	 * call pfcwd makes under it (ice's ieee_setpfc closes and reopens
	 * the netdev: NETDEV_DOWN and NETDEV_UP from within the call).
	 */
	bool link_dirty;		/* RTNL: re-read the link */
	bool link_was_up;		/* RTNL: up at the last event */
	u64 link_lost_at;		/* RTNL: the carrier went down, ns; 0 */

	struct mutex lock;		/* the fields below, but next_poll */
	struct pfcwd_config cfg;
	bool has_dcb;			/* ieee_getpfc/ieee_setpfc usable */
	bool counters;			/* ...and its pause counters mean something */
	bool swapped;			/* profile: requests/indications swapped */
	const struct pfcwd_profile *profile;	/* fixed at creation */
	bool setpfc_hurts;		/* our setpfc took the carrier down */
	u64 setpfc_at;			/* when pfcwd last called setpfc, ns */
	u64 setpfc_errors;		/* setpfc calls of pfcwd that failed */
	u8 pfc_want_off;		/* mitigation wants these out of pfc_en */
	u8 pfc_off;			/* pfcwd took these out, not yet back */
	u8 pfc_retake;			/* ...put back by another: out again */
	u64 pfc_tried_at;		/* last pfc_en write attempted, ns */
	u32 pfc_fails;			/* pfc_en writes failed in a row */
	u32 pfc_budget;			/* writes left at pfc_budget_at */
	u64 pfc_budget_at;		/* ns; 0: never spent (full) */
	bool push_active;		/* a driver pushes pause events */
	spinlock_t push_lock;		/* prio[].push.paused; IRQs off */
	bool push_seen;			/* the poller switched to them */
	bool link_up;
	bool reprime;			/* counters may have jumped: re-prime */
	u64 hold_ns;			/* pause continuity from link speed */
	u8 pfc_en;			/* last read from the device; READ_ONCE */
	struct pfcwd_prio prio[PFCWD_NUM_PRIO];
	struct pfcwd_ingress *ingress;	/* the hook, while some prio drops */
	struct ratelimit_state log_rs;

	bool quiet;			/* last full poll found nothing to follow */

	/*
	 * Counter freshness (source.c), written by the poller only; read
	 * elsewhere with READ_ONCE.  refresh_ms is the period in force: the
	 * profile's, or learnt (refresh_learnt), 0 while taken as live.
	 */
	u32 refresh_ms;
	bool refresh_learnt;
	bool live_proven;		/* two reads in a row saw them move */
	u64 last_change;		/* read that saw the counters move, ns */
	u64 change_after;		/* the read before that one, ns */
	struct pfcwd_pub pub;		/* published: the phase reads found */
	/*
	 * Phase counters (profile phase_totals): their sum at the last read,
	 * whether that read found them, the reads of them and the
	 * publications that they alone showed.
	 */
	u64 phase_total;
	bool phase_found;
	u64 phase_reads;
	u64 phase_pubs;
	u64 last_forced;		/* last forced refresh, ns */
	u64 forced_end, forced_span;	/* its statistics call: end, length */
	u64 reads;			/* ieee_getpfc calls */
	u64 forced;			/* forced refreshes (get_ethtool_stats) */
	u64 dur_reads;			/* reads with pause durations (same) */
	u64 dur_waits;			/* ...held back for their step (same) */
	u64 dur_wait_since;		/* poller: held back since, ns; 0 */
	u64 read_errors;		/* failed ieee_getpfc calls */
	u32 read_fails;			/* ...of them in a row */
	bool blind;			/* last said it sees no storm; RTNL */
	u32 read_rate;			/* reads per second, last full window */
	u64 rate_start, rate_reads;	/* the window being measured */
	u32 unchanged_reads;		/* reads since last_change */
	struct ethtool_stats *refresh_stats;	/* forced refreshes; RTNL */
	struct pfcwd_ectrs ectr;
	struct pfcwd_nic nic;
	bool absent;			/* poller: device not present */
	u64 absent_polls;		/* polls that found it so (READ_ONCE) */
	/*
	 * What port-get shows of the driver's statistics, as the poller last
	 * read them (source.c): under port->lock, but shown_at (poller).
	 */
	u64 shown_at;			/* poller: last read, ns */
	u8 shown_pkts;			/* PFCWD_PKTS_* found */
	u64 shown_tx[PFCWD_NUM_PRIO];	/* tx_prioP_packets */
	u64 shown_rx[PFCWD_NUM_PRIO];	/* rx_prioP_packets */

	/*
	 * Transmit stalls (txq_stall.c): the watched priorities the signal
	 * covered at the last poll (READ_ONCE elsewhere).  Poller only: the
	 * next poll is only a stall check (stall_check) before the full one
	 * due at full_next, which last_c, the counters of the last read,
	 * stand in for.
	 */
	u8 stall_prios;
	u64 txq_drain_ns;		/* RTNL: a full ring to half, at link rate */
	u64 txq_running[TC_MAX_QUEUE];	/* per class: last seen running, ns */
	u64 txq_stopped[TC_MAX_QUEUE];	/* ...first seen stopped since; 0 */
	unsigned long txq_stamp[TC_MAX_QUEUE];	/* ...its last frame's jiffy */
	u64 txq_sent[TC_MAX_QUEUE];	/* ...first seen at (ns): sent by then */
	u16 txq_open;			/* bit tc: its jiffy had not ended then */
	bool stall_check;
	u64 full_next;
	struct pfcwd_counters last_c;

	/* Poller only. */
	u64 next_poll;			/* ns; U64_MAX never; poll.c */
	u64 pause_kick_ns;		/* pfcwd_poll_request(): last at */
	struct pfcwd_port *poll_next;	/* the poller's list of due ports */
	u64 poll_due;			/* when this poll was due */
	u64 raw_ind[PFCWD_NUM_PRIO];	/* last counters read, to spot change */
	u64 raw_req[PFCWD_NUM_PRIO];
	u64 raw_dur[PFCWD_NUM_PRIO];	/* pause durations last read, ns */

	struct pfcwd_swpfc swpfc;	/* software PFC, see swpfc.c */
};

/*
 * Whether what a qdisc of @port on @dev dequeues is transmit progress:
 * the qdisc holds the software pause itself, or @dev queues for the wire.
 * A stacked device (vlan, bond: IFF_NO_QUEUE) hands it to another queue,
 * which a storm below stops while this one still dequeues.
 */
static inline bool pfcwd_dev_shows_tx(const struct pfcwd_port *port,
				      const struct net_device *dev)
{
	return READ_ONCE(port->swpfc.active) ||
	       !(dev->priv_flags & IFF_NO_QUEUE);
}

/* port.c: the port object */
extern struct mutex pfcwd_ports_lock;
extern struct list_head pfcwd_ports;
extern unsigned int pfcwd_nr_ports;
extern unsigned int pfcwd_nr_userns_ports;
extern unsigned int pfcwd_ports_gen;
void pfcwd_port_link(struct pfcwd_port *port);
void pfcwd_port_unlink(struct pfcwd_port *port);
struct pfcwd_port *pfcwd_port_get(const struct net_device *dev);
void pfcwd_port_put(struct pfcwd_port *port);
void pfcwd_port_read_link(struct pfcwd_port *port, struct pfcwd_link *link);
bool pfcwd_port_link_read(struct pfcwd_port *port, struct pfcwd_link *link);

/* port_cfg.c: the port as the state machines see it */
void pfcwd_port_link_apply(struct pfcwd_port *port,
			   const struct pfcwd_link *link);
void pfcwd_port_rate_config(const struct pfcwd_port *port,
			    struct pfcwd_rate_config rate[PFCWD_RATE_DIRS]);
u64 pfcwd_port_rate_window_ns(const struct pfcwd_port *port);
bool pfcwd_port_t0_too_fine(const struct pfcwd_port *port);
/* The warning in the ACK (as iproute2 prints it) of a T0 too fine. */
#define PFCWD_MSG_T0_TOO_FINE \
	"pfcwd: T0 is finer than this port's pause information resolves: detection may come later than 2 x T0 (see granularity-us)"
void pfcwd_port_storm_config(const struct pfcwd_port *port,
			     struct pfcwd_storm_config *scfg);
void pfcwd_port_prio_config(const struct pfcwd_port *port, int p,
			    const struct pfcwd_storm_config *base,
			    struct pfcwd_storm_config *scfg);

/* lifecycle.c: ports come and go (above port.c and what a port is made of) */
struct pfcwd_port *pfcwd_port_attach(struct net_device *dev,
				     struct netlink_ext_ack *extack);
void pfcwd_port_detach(struct pfcwd_port *port);
struct pfcwd_port *pfcwd_port_hold(struct net_device *dev,
				   struct netlink_ext_ack *extack);
void pfcwd_port_release(struct pfcwd_port *port);
int pfcwd_port_init(void);
void pfcwd_port_exit(void);

/* poll.c */
struct pfcwd_poll_stats {
	u64 passes;		/* runs of the poll work */
	u64 polls;		/* port samples taken */
	u64 work_ns;		/* time spent in the poll work */
	u64 late_ns;		/* worst lateness of a poll, recent windows */
	u64 delays;		/* test delays taken (poll_delay_us) */
	u64 requests;		/* polls asked for by pfcwd_poll_request() */
	u64 apply_delays;	/* test delays begun (apply_delay_us) */
	u64 apply_delays_done;	/* ...and ended */
};

int pfcwd_poll_init(void);
void pfcwd_poll_exit(void);
extern u32 pfcwd_poll_delay_us;
extern u32 pfcwd_poll_apply_delay_us;

/* poll_req.c: the poller's doorbell and grid, below what asks for a poll */
/* Ports due this close to now are polled in the same pass. */
#define PFCWD_POLL_SLACK_NS	(50 * NSEC_PER_USEC)
extern struct pfcwd_poll_stats pfcwd_poll_stats;
extern struct workqueue_struct *pfcwd_poll_wq;	/* poll.c's */
extern struct work_struct pfcwd_poll_work;	/* poll.c's */
extern bool pfcwd_poll_stopping;		/* poll.c's */
void pfcwd_poll_kick(void);
void pfcwd_poll_request(struct pfcwd_port *port, u64 now);
u64 pfcwd_poll_granularity_ns(void);
u64 pfcwd_poll_quiet_ns(void);
u64 pfcwd_poll_quiet_next(u64 now, u64 quiet);

/* profile.c */
const struct pfcwd_profile *pfcwd_profile_find(const char *driver);
void pfcwd_profile_probe(struct pfcwd_port *port);
const char *pfcwd_profile_cost_name(enum pfcwd_read_cost cost);

/* source.c */
void pfcwd_source_probe(struct pfcwd_port *port);
bool pfcwd_source_read_pfc(struct pfcwd_port *port, struct pfcwd_counters *c);
void pfcwd_source_read_stats(struct pfcwd_port *port,
			     struct pfcwd_counters *c);
u8 pfcwd_source_read_stall(struct pfcwd_port *port, struct pfcwd_counters *c);
bool pfcwd_source_published(const struct pfcwd_port *port);
void pfcwd_source_sample(struct pfcwd_port *port, int prio,
			 const struct pfcwd_counters *c,
			 struct pfcwd_sample *s);
enum pfcwd_source pfcwd_port_source(const struct pfcwd_port *port);
bool pfcwd_source_blind(const struct pfcwd_port *port);
u64 pfcwd_port_resolution_ns(const struct pfcwd_port *port);
u64 pfcwd_port_granularity_ns(const struct pfcwd_port *port);
u64 pfcwd_port_restore_late_ns(const struct pfcwd_port *port);
u64 pfcwd_source_next_read(struct pfcwd_port *port, u64 now, bool busy);
u64 pfcwd_source_fine_ns(const struct pfcwd_port *port);
u32 pfcwd_source_pub_width_us(const struct pfcwd_port *port);
void pfcwd_source_refresh(const struct pfcwd_port *port, u64 *period,
			  u64 *window);
void pfcwd_source_free(struct pfcwd_port *port);
void pfcwd_source_read_durations(struct pfcwd_port *port,
				 struct pfcwd_counters *c);

/* ethtool_call.c: driver ethtool ops called as the ethtool core does */
int pfcwd_ethtool_begin(struct net_device *dev);
void pfcwd_ethtool_complete(struct net_device *dev);
bool pfcwd_port_absent(struct pfcwd_port *port);

/* ethtool_ctr.c */
void pfcwd_ectr_init(struct pfcwd_port *port);
struct ethtool_stats *pfcwd_ectr_buf(struct pfcwd_port *port, int n);
const u64 *pfcwd_ectr_fetch(struct pfcwd_port *port, u64 now, bool forced,
			    u32 want);
#define PFCWD_ECTR_NIC_MASK	(BIT(PFCWD_ECTR_NIC_WARN) | BIT(PFCWD_ECTR_NIC_ERR))
#define PFCWD_ECTR_DUR_MASK	GENMASK(PFCWD_ECTR_TX_PKTS0 - 1, PFCWD_ECTR_DUR0)
#define PFCWD_ECTR_PKTS_MASK	GENMASK(PFCWD_ECTR_NUM - 1, PFCWD_ECTR_TX_PKTS0)
#define PFCWD_ECTR_PHASE_MASK	(BIT(PFCWD_ECTR_RX_FRAMES) | BIT(PFCWD_ECTR_TX_FRAMES))
bool pfcwd_ectr_has(const struct pfcwd_port *port, int id);
const char *pfcwd_ectr_dur_name(const struct pfcwd_port *port);

/* nic_storm.c */
bool pfcwd_nic_storm_read(struct pfcwd_port *port, struct pfcwd_counters *c);
int pfcwd_nic_prevention_ms(const struct pfcwd_port *port, u32 *ms);
void pfcwd_nic_prevention_read(struct pfcwd_port *port);
int pfcwd_nic_prevention_shown(const struct pfcwd_port *port, u32 *ms);
u64 pfcwd_nic_storm_due(const struct pfcwd_port *port);

/* txq_stall.c: transmit stalls, read from the TX queues */
u8 pfcwd_txq_stall_prios(const struct net_device *dev);
u8 pfcwd_txq_stall_read(struct pfcwd_port *port, u64 now, u64 *since);
u64 pfcwd_txq_stall_err_ns(const struct pfcwd_port *port);

/* swpfc.c: software PFC, on ports without hardware PFC */
void pfcwd_swpfc_start(struct pfcwd_port *port);
void pfcwd_swpfc_stop(struct pfcwd_port *port);
void pfcwd_swpfc_set_speed(struct pfcwd_port *port, u32 speed_mbps);

/* How long @quanta pause the link, in ns (rounded up): swpfc.quantum_ps. */
static inline u64 pfcwd_quanta_ns(u32 quantum_ps, u16 quanta)
{
	return DIV_ROUND_UP_ULL((u64)quanta * quantum_ps, 1000);
}

void pfcwd_swpfc_set_honour(struct pfcwd_port *port, u8 prios);
void pfcwd_swpfc_kick(struct pfcwd_port *port);
void pfcwd_swpfc_sample(struct pfcwd_port *port, int prio,
			struct pfcwd_sample *s);
bool pfcwd_swpfc_paused(const struct pfcwd_port *port, int prio);
void pfcwd_swpfc_counters(struct pfcwd_port *port, u64 *global_pause,
			  u64 *malformed);
void pfcwd_swpfc_clear_stats(struct pfcwd_port *port);
void pfcwd_swpfc_history(struct pfcwd_port *port, int prio, u64 now,
			 struct pfcwd_hist_pause_read *r);
void pfcwd_swpfc_debugfs(struct seq_file *m, struct pfcwd_port *port);

void pfcwd_push_history(struct pfcwd_port *port, int prio, u64 now,
			struct pfcwd_hist_pause_read *r);

#define PFCWD_PKTS_TX		0x1
#define PFCWD_PKTS_RX		0x2
#define PFCWD_ETHTOOL_STATS_MAX	65536	/* beyond this, do not look */
unsigned int pfcwd_source_prio_packets(const struct pfcwd_port *port,
				       u64 *tx, u64 *rx);

/* action.c */
void pfcwd_action_events(struct pfcwd_port *port,
			 const unsigned int events[PFCWD_NUM_PRIO]);
void pfcwd_action_undo_all(struct pfcwd_port *port);
void pfcwd_action_forget(struct pfcwd_port *port, u8 prios,
			 enum pfcwd_hist_end why);
int pfcwd_action_restore(struct pfcwd_port *port, u8 prios);
void pfcwd_action_last(const struct pfcwd_prio *pp, u64 *tx_dropped,
		       u64 *rx_dropped, u64 *tx_forwarded);
void pfcwd_action_clear_stats(struct pfcwd_prio *pp);
bool pfcwd_action_device_pfc(const struct pfcwd_port *port);
enum pfcwd_lever pfcwd_action_port_lever(const struct pfcwd_port *port);
enum pfcwd_lever pfcwd_action_lever(const struct pfcwd_port *port, int prio);
void pfcwd_action_announce(const struct pfcwd_port *port);
void pfcwd_action_carrier_lost(struct pfcwd_port *port, u64 at);
u64 pfcwd_action_pfc_due(const struct pfcwd_port *port, u64 now);
void pfcwd_action_pfc_read(struct pfcwd_port *port, u8 pfc_en, u64 read_at);

/* action_name.c: the names of actions, device-actions and levers */
const char *pfcwd_action_name(enum pfcwd_action action);
int pfcwd_action_parse(const char *buf, enum pfcwd_action *action);
const char *pfcwd_device_action_name(enum pfcwd_device_action da);
int pfcwd_device_action_parse(const char *buf, enum pfcwd_device_action *da);
const char *pfcwd_lever_reach(enum pfcwd_lever lever);

/*
 * Listeners of the actions: action.c publishes what it does to a priority
 * (the events it logs, and "drop what is queued" when a drop starts) to
 * the listeners subscribed in its slots, never calling up into them.  The
 * slots are filled first thing at module load and emptied last thing at
 * unload (main.c), when no port exists, so no emitter runs while one
 * changes.  A listener runs in the emitter's context: process, RTNL and
 * port->lock held, !port->dead.
 */
enum pfcwd_listener {
	PFCWD_LISTENER_NL,	/* nl_event.c: the "events" multicast group */
	PFCWD_LISTENER_SCHED,	/* net_sched/sch_pfcwd_band.c: band queues */
	PFCWD_LISTENERS,
};

/* What a port event carries beside the port itself. */
struct pfcwd_port_event {
	int err;		/* setpfc-failed: the driver's error */
	u8 prios;		/* setpfc-failed: the bits left unchanged */
};

struct pfcwd_action_listener {
	/* @cmd: PFCWD_CMD_STORM_DETECTED etc.; @when: its CLOCK_MONOTONIC ns */
	void (*event)(struct pfcwd_port *port, int prio, u8 cmd, u64 when);
	/* a pause-rate event of direction @dir, from its stats */
	void (*rate_event)(struct pfcwd_port *port, int prio, int dir);
	/* the watchdog starts dropping: drop what @dev's queues hold too */
	void (*drop_queued)(struct net_device *dev);
	/* @cmd: PFCWD_CMD_PORT_ADDED etc., of the port as a whole */
	void (*port_event)(struct pfcwd_port *port, u8 cmd,
			   const struct pfcwd_port_event *ev);
};

void pfcwd_action_listen(enum pfcwd_listener slot,
			 const struct pfcwd_action_listener *l);
void pfcwd_action_port_event(struct pfcwd_port *port, u8 cmd,
			     const struct pfcwd_port_event *ev);

/* netlink.c, nl_event.c */
int pfcwd_nl_init(void);
void pfcwd_nl_exit(void);
void pfcwd_nl_event(struct pfcwd_port *port, int prio, u8 cmd, u64 when);
void pfcwd_nl_rate_event(struct pfcwd_port *port, int prio, int dir);
void pfcwd_nl_port_event(struct pfcwd_port *port, u8 cmd,
			 const struct pfcwd_port_event *ev);
extern const struct pfcwd_action_listener pfcwd_nl_listener;

/* ingress.c */
void pfcwd_ingress_update(struct pfcwd_port *port);
bool pfcwd_ingress_active(const struct pfcwd_port *port);
void pfcwd_ingress_counts(int *now, u64 *added, u64 *removed);
int pfcwd_ingress_init(void);
void pfcwd_ingress_exit(void);

/* config.c */
int pfcwd_config_check(const struct pfcwd_config_change *chg,
		       struct netlink_ext_ack *extack);
int pfcwd_port_configure(struct pfcwd_port *port,
			 const struct pfcwd_config_change *chg,
			 struct netlink_ext_ack *extack);

/* sysfs.c */
int pfcwd_sysfs_add(struct pfcwd_port *port);
void pfcwd_sysfs_del(struct pfcwd_port *port);

/* debugfs.c */
void pfcwd_debugfs_init(void);
void pfcwd_debugfs_exit(void);

/* net_sched/sch_pfcwd.c: the qdisc kind, registered at module load. */
int pfcwd_sched_register(void);
void pfcwd_sched_unregister(void);
/* net_sched/sch_pfcwd_band.c */
void pfcwd_sched_drop_queued(struct net_device *dev);
extern const struct pfcwd_action_listener pfcwd_sched_listener;

#endif /* _PFCWD_PFCWD_H */
