// SPDX-License-Identifier: GPL-2.0
/*
 * sch_pfcwd_mq - the pfcwd qdisc as the root of a multiqueue device.
 *
 * Why one queue per TX queue.  A single root qdisc over many TX queues
 * shares one lock and one requeue slot among them: when a driver stops a
 * queue in the middle of a bulk dequeue (its ring is full because the link
 * partner paused that priority), the core parks the rest of the batch in
 * the root's gso_skb or skb_bad_txq and then dequeues nothing at all until
 * that one queue wakes - every other priority waits behind the paused one.
 * The kernel's answer (sch_mq.c, sch_mqprio.c) is a qdisc per TX queue,
 * each with its own lock, gso_skb and skb_bad_txq, so that a stopped queue
 * holds back only itself; it also lets CPUs transmitting on different
 * queues run without sharing a lock.  pfcwd does the same: the root holds
 * no packets; at attach it grafts a band queue (the LEAF role of
 * sch_pfcwd_band.c, eight priority bands, drop/forward, software PFC) on
 * every TX queue.  The core picks a packet's TX queue before any qdisc sees it
 * (the driver's ndo_select_queue, XPS, or the hash within the queues of
 * the traffic class that skb->priority maps to), so a leaf only sees the
 * packets of its queue and cannot move them to another; within it, the
 * band (the priority the watchdog acts on) is chosen as before.
 *
 * What the user sees stays one qdisc: "tc qdisc show" lists the root only
 * (the leaves are hashed invisible: "tc qdisc show ... invisible" lists
 * them, parent MAJOR:Q+1 for TX queue Q, handle 0:); the root's counters
 * are the sums of its leaves' (as mq's), its classes MAJOR:1..MAJOR:8 are
 * the priorities with each priority's counters summed over the leaves,
 * and its options (limit, the port's watchdog configuration) apply to
 * every leaf.  The root has no class per TX queue, so leaves cannot be
 * replaced one by one.
 *
 * Leaves are created for every TX queue the device has (num_tx_queues),
 * the unused ones too, so that a later change of real_num_tx_queues needs
 * no allocation; only the real ones are hashed.  Each leaf holds a
 * reference on the port (not a qdisc user: the root is the one), so that
 * a leaf that outlives the root (a new root replaces it, and grafts its
 * own queues only after the old root is destroyed) still finds it.
 *
 * Locking and context: everything here runs under RTNL in process
 * context (init, attach, destroy, change, dumps, the core's queue count
 * change).  A leaf's counters and bands are written by its datapath under
 * its own qdisc lock (the leaf is the root qdisc of its TX queue), which
 * the sums and the limit change take, one leaf at a time.
 */
#include <linux/kernel.h>
#include <linux/netdevice.h>
#include <linux/slab.h>
#include <net/pkt_sched.h>
#include <net/sch_generic.h>

#include "sch_pfcwd.h"

/*
 * Root @sch's leaf on TX queue @i, or NULL: before attach (the creation
 * notification) the queue still has the previous root's qdisc.
 */
static struct Qdisc *pfcwd_mq_leaf(struct Qdisc *sch, unsigned int i)
{
	struct net_device *dev = qdisc_dev(sch);
	struct Qdisc *leaf;

	leaf = rtnl_dereference(netdev_get_tx_queue(dev, i)->qdisc_sleeping);
	if (!leaf || leaf->ops != &pfcwd_leaf_ops ||
	    TC_H_MAJ(leaf->parent) != TC_H_MAJ(sch->handle))
		return NULL;
	return leaf;
}

/**
 * pfcwd_mq_init - creates a leaf for every TX queue of the root's device
 * @sch: the root, its port attached
 * @limit: packets per band of each leaf
 * @extack: for errors
 *
 * Nothing is grafted yet: that is attach's, which cannot fail.  On failure
 * the core calls destroy, which frees what was created.
 */
int pfcwd_mq_init(struct Qdisc *sch, u32 limit,
		  struct netlink_ext_ack *extack)
{
	struct pfcwd_sched *q = qdisc_priv(sch);
	struct net_device *dev = qdisc_dev(sch);
	struct pfcwd_sched *lq;
	struct Qdisc *leaf;
	unsigned int i;

	q->leaves = kcalloc(dev->num_tx_queues, sizeof(q->leaves[0]),
			    GFP_KERNEL);
	if (!q->leaves)
		return -ENOMEM;
	for (i = 0; i < dev->num_tx_queues; i++) {
		leaf = qdisc_create_dflt(netdev_get_tx_queue(dev, i),
					 &pfcwd_leaf_ops,
					 TC_H_MAKE(TC_H_MAJ(sch->handle),
						   TC_H_MIN(i + 1)), extack);
		if (!leaf)
			return -ENOMEM;
		q->leaves[i] = leaf;
		/*
		 * Its own root: nothing above it counts its backlog.  One TX
		 * queue: the core neither dequeues it while that queue is
		 * stopped nor checks each packet's queue when it bulks.
		 */
		leaf->flags |= TCQ_F_ONETXQUEUE | TCQ_F_NOPARENT;
		lq = qdisc_priv(leaf);
		lq->port = pfcwd_port_get(dev);	/* the root's, under RTNL */
		if (!lq->port)
			return -ENODEV;
		lq->limit = limit;
		lq->major = TC_H_MAJ(sch->handle);
	}
	sch->flags |= TCQ_F_MQROOT;
	return 0;
}

/* Grafts the leaves on their TX queues; the queues now own them. */
void pfcwd_mq_attach(struct Qdisc *sch)
{
	struct pfcwd_sched *q = qdisc_priv(sch);
	struct net_device *dev = qdisc_dev(sch);
	struct Qdisc *leaf, *old;
	unsigned int i;

	for (i = 0; i < dev->num_tx_queues; i++) {
		leaf = q->leaves[i];
		old = dev_graft_qdisc(leaf->dev_queue, leaf);
		if (old)
			qdisc_put(old);
		if (i < dev->real_num_tx_queues)
			qdisc_hash_add(leaf, true);
	}
	kfree(q->leaves);
	q->leaves = NULL;
}

/* Frees the leaves that were never attached (init failed, or no attach). */
void pfcwd_mq_destroy(struct Qdisc *sch)
{
	struct pfcwd_sched *q = qdisc_priv(sch);
	struct net_device *dev = qdisc_dev(sch);
	unsigned int i;

	if (!q->leaves)
		return;
	for (i = 0; i < dev->num_tx_queues && q->leaves[i]; i++)
		qdisc_put(q->leaves[i]);
	kfree(q->leaves);
	q->leaves = NULL;
}

/* The limit of every leaf (and the root's, which dump shows). */
void pfcwd_mq_set_limit(struct Qdisc *sch, u32 limit)
{
	struct pfcwd_sched *q = qdisc_priv(sch);
	struct net_device *dev = qdisc_dev(sch);
	struct Qdisc *leaf;
	unsigned int i;

	q->limit = limit;
	for (i = 0; i < dev->num_tx_queues; i++) {
		leaf = pfcwd_mq_leaf(sch, i);
		if (leaf)
			pfcwd_sched_set_limit(leaf, limit);
	}
}

/* The root's counters: the sums of its leaves', for a dump (as mq's). */
void pfcwd_mq_sum(struct Qdisc *sch)
{
	struct net_device *dev = qdisc_dev(sch);
	struct Qdisc *leaf;
	unsigned int i;

	sch->q.qlen = 0;
	gnet_stats_basic_sync_init(&sch->bstats);
	memset(&sch->qstats, 0, sizeof(sch->qstats));
	for (i = 0; i < dev->num_tx_queues; i++) {
		leaf = pfcwd_mq_leaf(sch, i);
		if (!leaf)
			continue;
		spin_lock_bh(qdisc_lock(leaf));
		gnet_stats_add_basic(&sch->bstats, NULL, &leaf->bstats, false);
		gnet_stats_add_queue(&sch->qstats, NULL, &leaf->qstats);
		sch->q.qlen += leaf->q.qlen;
		spin_unlock_bh(qdisc_lock(leaf));
	}
}

/* Priority @prio's counters: its band's in every leaf, summed. */
void pfcwd_mq_prio_stats(struct Qdisc *sch, unsigned int prio,
			 struct gnet_stats_basic_sync *bstats,
			 struct gnet_stats_queue *qstats, __u32 *qlen)
{
	struct net_device *dev = qdisc_dev(sch);
	struct Qdisc *leaf;
	unsigned int i;

	for (i = 0; i < dev->num_tx_queues; i++) {
		leaf = pfcwd_mq_leaf(sch, i);
		if (leaf)
			pfcwd_sched_band_stats(leaf, prio, bstats, qstats, qlen);
	}
}

/* The device's real TX queue count changes: only real queues are hashed. */
void pfcwd_mq_change_real_num_tx(struct Qdisc *sch, unsigned int new_real_tx)
{
	struct net_device *dev = qdisc_dev(sch);
	struct Qdisc *leaf;
	unsigned int i;

	for (i = new_real_tx; i < dev->real_num_tx_queues; i++) {
		leaf = pfcwd_mq_leaf(sch, i);
		if (leaf)
			qdisc_hash_del(leaf);
	}
	for (i = dev->real_num_tx_queues; i < new_real_tx; i++) {
		leaf = pfcwd_mq_leaf(sch, i);
		if (leaf)
			qdisc_hash_add(leaf, true);
	}
}
