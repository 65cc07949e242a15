/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the three layers of the pfcwd qdisc share, from the bottom up: the
 * band queue (sch_pfcwd_band.c, one per TX queue, or the whole qdisc on a
 * single-queue device or under another qdisc), the multiqueue root that
 * grafts one band queue per TX queue (sch_pfcwd_mq.c), and the qdisc the
 * user adds (sch_pfcwd.c).  Each calls only the ones below it.
 */
#ifndef _SCH_PFCWD_H
#define _SCH_PFCWD_H

#include <net/sch_generic.h>

#include "../pfcwd/pfcwd.h"

struct pfcwd_band {
	struct qdisc_skb_head q;
	struct gnet_stats_basic_sync bstats;
	struct gnet_stats_queue qstats;
};

/*
 * How a pfcwd qdisc sits on its device:
 *  SINGLE  the qdisc of every packet it gets (root of a single-queue
 *          device, or a child of another qdisc); holds its port as a
 *          qdisc user; steers packets to their priority's TX queue,
 *          but never under a root that serves one TX queue (mq...).
 *  LEAF    the queue of one TX queue under a pfcwd root; holds a plain
 *          reference on the root's port; sees only its queue's packets.
 *  ROOT    the root of a multiqueue device: no queue of its own, one LEAF
 *          grafted on every TX queue; holds the port as a qdisc user.
 */
enum pfcwd_sched_role {
	PFCWD_SCHED_SINGLE,
	PFCWD_SCHED_LEAF,
	PFCWD_SCHED_ROOT,
};

/*
 * Packets a flush of a band drops before it lets other work run: about
 * what a NAPI poll handles, some tens of microseconds of kfree_skb().
 */
#define PFCWD_FLUSH_BUDGET	256

struct pfcwd_sched {
	struct pfcwd_port *port;	/* the watchdog of this device */
	enum pfcwd_sched_role role;
	u32 major;			/* classes MAJOR:P+1 name priorities */
	u32 limit;			/* packets per band */
	u8 backlogged;			/* bit P: band P has packets */
	struct pfcwd_band bands[PFCWD_NUM_PRIO];
	struct qdisc_watchdog watchdog;	/* end of the first software pause */
	struct Qdisc **leaves;		/* ROOT: until attached */
};

extern struct Qdisc_ops pfcwd_leaf_ops;

/* sch_pfcwd_band.c: the band queue, for sch_pfcwd_mq.c and sch_pfcwd.c. */
int pfcwd_sched_enqueue(struct sk_buff *skb, struct Qdisc *sch,
			struct sk_buff **to_free);
struct sk_buff *pfcwd_sched_dequeue(struct Qdisc *sch);
struct sk_buff *pfcwd_sched_peek(struct Qdisc *sch);
void pfcwd_sched_reset(struct Qdisc *sch);
void pfcwd_sched_init_bands(struct Qdisc *sch, enum pfcwd_sched_role role);
void pfcwd_sched_set_limit(struct Qdisc *sch, u32 limit);
void pfcwd_sched_band_stats(struct Qdisc *sch, unsigned int prio,
			    struct gnet_stats_basic_sync *bstats,
			    struct gnet_stats_queue *qstats, __u32 *qlen);
int pfcwd_sched_dump_opts(struct Qdisc *sch, struct sk_buff *skb);

/* sch_pfcwd_mq.c: the ROOT role, called by the ops of sch_pfcwd.c. */
int pfcwd_mq_init(struct Qdisc *sch, u32 limit,
		  struct netlink_ext_ack *extack);
void pfcwd_mq_attach(struct Qdisc *sch);
void pfcwd_mq_destroy(struct Qdisc *sch);
void pfcwd_mq_set_limit(struct Qdisc *sch, u32 limit);
void pfcwd_mq_sum(struct Qdisc *sch);
void pfcwd_mq_prio_stats(struct Qdisc *sch, unsigned int prio,
			 struct gnet_stats_basic_sync *bstats,
			 struct gnet_stats_queue *qstats, __u32 *qlen);
void pfcwd_mq_change_real_num_tx(struct Qdisc *sch, unsigned int new_real_tx);

#endif /* _SCH_PFCWD_H */
