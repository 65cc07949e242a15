/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pfcwd - interfaces between the parts of pfcwd.ko.
 *
 * Objects and their rules (each file's header says more):
 *
 * struct pfcwd_port - one watched net_device (port.c).  Lives while a
 *   pfcwd qdisc is attached to the device; dies with the device or the
 *   module.  Reference counted (refcnt); freed after an RCU grace period.
 *   Found by device through an RCU hash (pfcwd_port_lookup_rcu()).
 *
 * Lock order: RTNL -> pfcwd_ports_lock -> port->lock (-> netfilter's hook
 * mutex, when the ingress hook comes or goes).
 *   RTNL         attaching and detaching, teardown, every driver call
 *                (dcbnl, stats), port->dead.
 *   ports_lock   the port list and hash (writers); readers use RCU.
 *   port->lock   (a mutex) cfg, the per-priority state machines and
 *                their bookkeeping (mitigation applied, pfc bits cleared).
 *   The datapath (qdisc, ingress hook) reads prio[].dp_action with
 *   READ_ONCE only.
 *
 * Contexts: the poll timer is a hard-irq hrtimer that only queues work;
 * everything else runs in process context (work items, sysfs, RTNL
 * callers), except pfcwd_report_pause(), callable from any context, and
 * the ingress hook (softirq).
 */
#ifndef _PFCWD_PFCWD_H
#define _PFCWD_PFCWD_H

#include <linux/debugfs.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/ratelimit.h>
#include <linux/refcount.h>
#include <linux/types.h>
#include <uapi/linux/pfcwd.h>

#include "storm.h"

#define PFCWD_DEFAULT_PRIOS	0x18	/* 3,4 when the device has no DCB */

struct pfcwd_config {
	u32 detect_ms;			/* T0 */
	u32 restore_ms;			/* T1 */
	enum pfcwd_action action;
	u8 prios;			/* watched (lossless) priorities */
	u32 storm_limit;		/* 0..PFCWD_STORM_LIMIT_MAX */
	bool enabled;
};

/* A change to a port's configuration: the fields named in @set. */
#define PFCWD_CFG_DETECT	BIT(0)
#define PFCWD_CFG_RESTORE	BIT(1)
#define PFCWD_CFG_ACTION	BIT(2)
#define PFCWD_CFG_PRIOS		BIT(3)
#define PFCWD_CFG_STORM_LIMIT	BIT(4)
#define PFCWD_CFG_ENABLED	BIT(5)

struct pfcwd_config_change {
	unsigned int set;
	struct pfcwd_config cfg;
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
};

extern struct pfcwd_params pfcwd_params;

/* Push source: what pfcwd_report_pause() accumulated since the last poll. */
struct pfcwd_push {
	atomic64_t xoff;		/* XOFF frames, cumulative */
	atomic64_t first;		/* first XOFF since the last poll, 0 = none */
	atomic64_t last;		/* last XOFF, ns */
};

struct pfcwd_prio {
	struct pfcwd_storm sm;
	struct pfcwd_push push;
	enum pfcwd_action applied;	/* action of the storm in progress */
	bool mitigating;		/* an action is applied */
	bool pfc_cleared;		/* we cleared this priority's pfc_en bit */
	u8 dp_action;			/* PFCWD_DP_*, for the datapath */

	/*
	 * Packets the datapath dropped or forwarded for the watchdog, since
	 * the port was created; written (only while mitigating) by every
	 * qdisc of the port, hence atomic.  *_base: the drop counts when the
	 * last storm began, for its log line.
	 */
	atomic64_t tx_dropped;
	atomic64_t rx_dropped;
	atomic64_t tx_forwarded;
	u64 tx_dropped_base, rx_dropped_base;
};

/* What the datapath does with a priority's packets. */
#define PFCWD_DP_NORMAL		0
#define PFCWD_DP_DROP		1
#define PFCWD_DP_FORWARD	2

struct pfcwd_ingress;

struct pfcwd_port {
	struct hlist_node hnode;	/* pfcwd_port_hash, by dev */
	struct list_head node;		/* pfcwd_ports */
	refcount_t refcnt;
	struct rcu_head rcu;

	struct net_device *dev;		/* valid while !dead, under RTNL */
	netdevice_tracker dev_tracker;
	char name[IFNAMSIZ];		/* for logs; updated on rename */
	bool dead;			/* RTNL */
	u32 qdisc_users;		/* RTNL */
	bool sysfs;			/* RTNL: the sysfs group exists */

	struct mutex lock;		/* the fields below, but next_poll */
	struct pfcwd_config cfg;
	bool has_dcb;			/* ieee_getpfc/ieee_setpfc usable */
	bool swapped;			/* quirk: requests/indications swapped */
	bool push_active;		/* a driver pushes pause events */
	bool push_seen;			/* the poller switched to them */
	bool link_up;
	bool reprime;			/* counters may have jumped: re-prime */
	u64 hold_ns;			/* pause continuity from link speed */
	u8 pfc_en;			/* last value read from the device */
	struct pfcwd_prio prio[PFCWD_NUM_PRIO];
	struct pfcwd_ingress *ingress;	/* the hook, while some prio drops */
	struct ratelimit_state log_rs;

	bool quiet;			/* last full poll found nothing to follow */

	/* Poller only. */
	u64 next_poll;			/* ns; U64_MAX = never */
	struct pfcwd_port *poll_next;	/* the poller's list of due ports */
	u64 poll_due;			/* when this poll was due */
	u64 raw_ind[PFCWD_NUM_PRIO];	/* last counters read, to spot change */
	u64 raw_req[PFCWD_NUM_PRIO];
};

/* port.c */
extern struct mutex pfcwd_ports_lock;
extern struct list_head pfcwd_ports;
extern unsigned int pfcwd_nr_ports;
struct pfcwd_port *pfcwd_port_attach(struct net_device *dev,
				     struct netlink_ext_ack *extack);
void pfcwd_port_detach(struct pfcwd_port *port);
struct pfcwd_port *pfcwd_port_get(const struct net_device *dev);
void pfcwd_port_put(struct pfcwd_port *port);
void pfcwd_port_storm_config(const struct pfcwd_port *port,
			     struct pfcwd_storm_config *scfg);
int pfcwd_port_init(void);
void pfcwd_port_exit(void);

/* poll.c */
struct pfcwd_poll_stats {
	u64 passes;		/* runs of the poll work */
	u64 polls;		/* port samples taken */
	u64 work_ns;		/* time spent in the poll work */
	u64 late_ns;		/* worst lateness of a poll, recent windows */
};

extern struct pfcwd_poll_stats pfcwd_poll_stats;
int pfcwd_poll_init(void);
void pfcwd_poll_exit(void);
void pfcwd_poll_kick(void);
u64 pfcwd_poll_granularity_ns(void);
u64 pfcwd_poll_quiet_ns(void);

/* quirks.c */
bool pfcwd_quirk_swapped(struct net_device *dev);

/* source.c */
struct pfcwd_counters {
	u64 now;
	u64 indications[PFCWD_NUM_PRIO];
	u64 requests[PFCWD_NUM_PRIO];
	u64 rx_packets;
	u8 pfc_en;
	bool pfc_valid;
};

void pfcwd_source_probe(struct pfcwd_port *port);
bool pfcwd_source_read_pfc(struct pfcwd_port *port, struct pfcwd_counters *c);
void pfcwd_source_read_stats(struct pfcwd_port *port,
			     struct pfcwd_counters *c);
void pfcwd_source_sample(struct pfcwd_port *port, int prio,
			 const struct pfcwd_counters *c,
			 struct pfcwd_sample *s);

/* action.c */
void pfcwd_action_events(struct pfcwd_port *port, int prio,
			 unsigned int events);
void pfcwd_action_undo(struct pfcwd_port *port, int prio);
int pfcwd_action_restore(struct pfcwd_port *port, u8 prios);
const char *pfcwd_action_name(enum pfcwd_action action);
int pfcwd_action_parse(const char *buf, enum pfcwd_action *action);

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

#endif /* _PFCWD_PFCWD_H */
