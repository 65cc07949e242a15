// SPDX-License-Identifier: GPL-2.0
/*
 * sch_pfcwd_band - the band queue of the pfcwd qdisc: the bottom layer of
 * net_sched/.
 *
 * Layers, one way down (each file calls only the ones below it):
 *   sch_pfcwd.c       the qdisc the user adds: options, dump, classes,
 *                     the registered Qdisc_ops "pfcwd"
 *   sch_pfcwd_mq.c    the multiqueue ROOT role: a leaf per TX queue
 *   sch_pfcwd_band.c  this file: the band queue (enqueue, dequeue, peek,
 *                     reset, the limit, a band's counters), the LEAF
 *                     Qdisc_ops, and pfcwd_sched_drop_queued() for the
 *                     watchdog: a listener of its actions
 *                     (pfcwd_sched_listener), not called by name
 * This file calls nothing above it: it knows a pfcwd qdisc (SINGLE/ROOT or
 * LEAF) by its enqueue operation, which both Qdisc_ops share, not by the
 * upper file's ops.
 *
 * Eight FIFO bands, one per IEEE 802.1p priority, served in strict priority
 * order: band 7 first, band 0 last.  A packet's band is its priority: the
 * class its skb->priority names (MAJOR:1..MAJOR:8 of the qdisc the user
 * added), else the PCP of a VLAN-tagged frame (a tag in the packet is
 * looked for on Ethernet devices only), else skb->priority when it is
 * 0..7; anything else is best effort, band 0.  Each band holds at most
 * "limit" packets; a packet arriving at a full band is dropped and counted
 * against that band.  See sch_pfcwd.c for the roles, the watchdog's
 * dp_action and software PFC as the datapath sees them.
 *
 * Locking and context:
 *  - enqueue, dequeue, peek and reset run with the qdisc root lock held
 *    (softirq or process context with BH disabled) - a LEAF's own lock,
 *    one per TX queue; they touch the band queues and counters, and arm
 *    the qdisc watchdog; dequeue stamps the port's transmit progress
 *    (prio[].tx_jiffies, WRITE_ONCE: pfcwd.h).  The watchdog's hrtimer
 *    (hard irq) only reschedules the root qdisc, never takes its lock.
 *  - under RTNL in process context: pfcwd_sched_drop_queued() (the
 *    watchdog starting a drop) and pfcwd_sched_band_stats() take that same
 *    lock, with BH disabled, one band queue at a time; a drop's flush frees
 *    at most PFCWD_FLUSH_BUDGET packets per lock hold (drop_queued drops
 *    the lock and may reschedule in between, dequeue leaves the rest to a
 *    later NET_TX softirq, scheduled under rcu_read_lock()).
 *    pfcwd_sched_set_limit() takes the root lock (sch_tree_lock).  The leaf
 *    init, destroy and dump run under RTNL in process context; the dump
 *    reads the port's configuration under port->lock (a mutex, taken after
 *    RTNL), never under the root lock.
 */
#include <linux/if_arp.h>
#include <linux/if_vlan.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/random.h>
#include <linux/netdevice.h>
#include <linux/skbuff.h>
#include <net/netlink.h>
#include <net/pkt_sched.h>
#include <net/sch_generic.h>
#include <uapi/linux/pfcwd.h>

#include "sch_pfcwd.h"

/*
 * The 802.1p priority of a VLAN-tagged frame (out of band or in it), or -1.
 * Only an Ethernet frame can carry the tag in its data: on other devices
 * the packet starts elsewhere (an IPv4 header, for a tunnel: bytes 12-15
 * are its source address, and 129.0.x.x would read as a tag).
 */
static int pfcwd_sched_pcp(const struct sk_buff *skb)
{
	const struct vlan_ethhdr *veth;

	if (skb_vlan_tag_present(skb))
		return skb_vlan_tag_get_prio(skb);
	if (!skb->dev || skb->dev->type != ARPHRD_ETHER ||
	    skb_headlen(skb) < VLAN_ETH_HLEN)
		return -1;
	veth = (const struct vlan_ethhdr *)skb->data;
	if (!eth_type_vlan(veth->h_vlan_proto))
		return -1;
	return (ntohs(veth->h_vlan_TCI) & VLAN_PRIO_MASK) >> VLAN_PRIO_SHIFT;
}

/*
 * A packet's band: the class skb->priority names, else the VLAN PCP of a
 * tagged frame, else skb->priority when it is 0-7, else best effort (0).
 */
static unsigned int pfcwd_sched_band(const struct sk_buff *skb,
				     const struct pfcwd_sched *q)
{
	u32 prio = skb->priority;
	int pcp;

	if (TC_H_MAJ(prio) == q->major) {
		u32 minor = TC_H_MIN(prio);

		if (minor >= 1 && minor <= PFCWD_NUM_PRIO)
			return minor - 1;
		return 0;
	}
	pcp = pfcwd_sched_pcp(skb);
	if (pcp >= 0)
		return pcp;
	return prio < PFCWD_NUM_PRIO ? prio : 0;
}

/*
 * Steers @skb to a TX queue of its priority's traffic class, when the
 * device has traffic classes: the stack picked one from skb->priority,
 * which may not be the priority the band was chosen by.
 */
static void pfcwd_sched_steer(struct sk_buff *skb, struct net_device *dev,
			      unsigned int prio)
{
	const struct netdev_tc_txq *tc;
	u16 qid = skb_get_queue_mapping(skb);

	if (!netdev_get_num_tc(dev))
		return;
	tc = &dev->tc_to_txq[netdev_get_prio_tc_map(dev, prio)];
	if (!tc->count || (qid >= tc->offset && qid < tc->offset + tc->count))
		return;
	skb_set_queue_mapping(skb, tc->offset +
			      reciprocal_scale(skb_get_hash(skb), tc->count));
}

/*
 * May a SINGLE band queue move a packet to another TX queue?  Only when
 * the root qdisc of its TX queue serves every queue: such a root (prio,
 * htb, ... on a multiqueue device) dequeues one packet at a time and the
 * core takes that packet's own TX lock.  Under a root that serves one TX
 * queue (TCQ_F_ONETXQUEUE: a child of mq, mqprio, taprio or offloaded
 * htb, or anything below one) the core bulk-dequeues and sends the chain
 * under the first packet's TX lock, and requeues what a stopped queue
 * refuses into this queue's qdisc: a moved packet would go out under
 * another queue's lock or hold this queue behind the other one.  Root
 * lock held, BH disabled; the root is replaced under RTNL and freed after
 * an RCU grace period.
 */
static bool pfcwd_sched_may_steer(const struct Qdisc *sch)
{
	const struct Qdisc *root;

	root = rcu_dereference_bh(sch->dev_queue->qdisc_sleeping);
	return root && !(root->flags & TCQ_F_ONETXQUEUE);
}

static u8 pfcwd_sched_action(const struct pfcwd_sched *q, unsigned int prio)
{
	return READ_ONCE(q->port->prio[prio].dp_action);
}

int pfcwd_sched_enqueue(struct sk_buff *skb, struct Qdisc *sch,
			struct sk_buff **to_free)
{
	struct pfcwd_sched *q = qdisc_priv(sch);
	unsigned int prio = pfcwd_sched_band(skb, q);
	struct pfcwd_band *b = &q->bands[prio];
	unsigned int len = qdisc_pkt_len(skb);

	if (unlikely(pfcwd_sched_action(q, prio) == PFCWD_DP_DROP)) {
		/* The priority is stormed: its traffic goes nowhere. */
		atomic64_inc(&q->port->prio[prio].tx_dropped);
		b->qstats.drops++;
		return qdisc_drop(skb, sch, to_free);
	}
	if (unlikely(b->q.qlen >= q->limit)) {
		b->qstats.drops++;
		return qdisc_drop(skb, sch, to_free);
	}

	if (q->role == PFCWD_SCHED_SINGLE && pfcwd_sched_may_steer(sch))
		pfcwd_sched_steer(skb, qdisc_dev(sch), prio);
	__qdisc_enqueue_tail(skb, &b->q);
	q->backlogged |= BIT(prio);
	b->qstats.backlog += len;
	qdisc_qstats_backlog_inc(sch, skb);
	sch->q.qlen++;
	return NET_XMIT_SUCCESS;
}

/*
 * Drops what band @prio holds, for the watchdog, at most
 * PFCWD_FLUSH_BUDGET packets; true when the band is empty.  A band may
 * hold up to PFCWD_LIMIT_MAX packets: freed in one go they would keep a
 * softirq (or, in pfcwd_sched_drop_queued(), a CPU with BH disabled) busy
 * for a long time; the callers go on later instead, and count the break.
 * Root lock held; may run in the datapath (dequeue), hence kfree_skb().
 */
static bool pfcwd_sched_flush(struct Qdisc *sch, struct pfcwd_sched *q,
			      unsigned int prio)
{
	struct pfcwd_band *b = &q->bands[prio];
	unsigned int pkts = 0, bytes = 0;
	struct sk_buff *skb;
	bool empty;

	while (pkts < PFCWD_FLUSH_BUDGET &&
	       (skb = __qdisc_dequeue_head(&b->q))) {
		pkts++;
		bytes += qdisc_pkt_len(skb);
		qdisc_qstats_backlog_dec(sch, skb);
		qdisc_qstats_drop(sch);
		sch->q.qlen--;
		b->qstats.backlog -= qdisc_pkt_len(skb);
		kfree_skb(skb);
	}
	empty = !b->q.qlen;
	b->qstats.drops += pkts;
	if (empty)
		q->backlogged &= ~BIT(prio);
	else
		atomic64_inc(&q->port->prio[prio].flush_breaks);
	atomic64_add(pkts, &q->port->prio[prio].tx_dropped);
	qdisc_tree_reduce_backlog(sch, pkts, bytes);
	return empty;
}

/*
 * The rest of a flush that stopped at its budget, in a later NET_TX
 * softirq: the qdisc's root is scheduled (dequeue may have nothing else
 * to return, and the core would not call it again by itself).
 */
static void pfcwd_sched_flush_later(struct Qdisc *sch)
{
	rcu_read_lock();
	__netif_schedule(qdisc_root(sch));
	rcu_read_unlock();
}

/*
 * Is band @prio held by a software pause (pfcwd/swpfc.c)?  Not when the
 * watchdog forwards it (or drops it: the caller checked).  *@now is the
 * time, read on first need; *@wake the earliest end of a pause so far.
 */
static bool pfcwd_sched_sw_paused(const struct pfcwd_sched *q,
				  unsigned int prio, u8 action, u64 *now,
				  u64 *wake)
{
	u64 until = READ_ONCE(q->port->swpfc.until[prio]);

	if (likely(!until) || action == PFCWD_DP_FORWARD)
		return false;
	if (!*now)
		*now = ktime_get_ns();
	if (until <= *now)
		return false;
	if (until < *wake)
		*wake = until;
	return true;
}

/*
 * The band to serve next: the highest priority with a packet whose TX
 * queue is not stopped (paused) and that no software pause holds, so that
 * a paused priority never holds up the others.  Only bands with packets
 * are looked at (q->backlogged).  With @flush, bands the watchdog drops
 * are emptied on the way (dequeue); without (peek), they are only passed
 * over.  When software pauses hold every band that has packets, the qdisc
 * watchdog is set for the first of them to end.  *@action is the chosen
 * band's dp_action, as read for the choice.
 */
static struct pfcwd_band *pfcwd_sched_next(struct Qdisc *sch, bool flush,
					   u8 *action)
{
	struct pfcwd_sched *q = qdisc_priv(sch);
	struct net_device *dev = qdisc_dev(sch);
	unsigned long todo = q->backlogged;
	u64 now = 0, wake = U64_MAX;

	while (todo) {
		unsigned int prio = __fls(todo);
		struct pfcwd_band *b = &q->bands[prio];
		u8 act = pfcwd_sched_action(q, prio);

		todo &= ~BIT(prio);
		if (unlikely(act == PFCWD_DP_DROP)) {
			if (flush && !pfcwd_sched_flush(sch, q, prio))
				pfcwd_sched_flush_later(sch);
			continue;
		}
		if (unlikely(pfcwd_sched_sw_paused(q, prio, act, &now, &wake)))
			continue;
		/* A leaf is not dequeued while its one TX queue is stopped. */
		if (q->role != PFCWD_SCHED_LEAF &&
		    netif_xmit_stopped(skb_get_tx_queue(dev, b->q.head)))
			continue;
		*action = act;
		return b;
	}
	if (unlikely(wake != U64_MAX))
		qdisc_watchdog_schedule_ns(&q->watchdog, wake);
	return NULL;
}

/*
 * @skb, dequeued at @prio, is the priority's transmit progress if it goes
 * to a TX queue of the priority's traffic class: PFC pauses classes, and
 * a frame on another class's queue (mq, a PCP that is not skb->priority)
 * leaves even while the priority is paused.  Once a jiffy at most.
 */
static void pfcwd_sched_note_tx(struct Qdisc *sch, const struct sk_buff *skb,
				unsigned int prio)
{
	struct pfcwd_sched *q = qdisc_priv(sch);
	struct pfcwd_prio *pp = &q->port->prio[prio];
	struct net_device *dev = qdisc_dev(sch);

	if (!pfcwd_prio_tx_stale(pp) || !pfcwd_dev_shows_tx(q->port, dev))
		return;
	if (netdev_get_num_tc(dev) &&
	    netdev_txq_to_tc(dev, skb_get_queue_mapping(skb)) !=
	    netdev_get_prio_tc_map(dev, prio))
		return;
	pfcwd_prio_note_tx(pp);
}

struct sk_buff *pfcwd_sched_dequeue(struct Qdisc *sch)
{
	struct pfcwd_sched *q = qdisc_priv(sch);
	struct pfcwd_band *b;
	struct sk_buff *skb;
	unsigned int prio;
	u8 action;

	b = pfcwd_sched_next(sch, true, &action);
	if (!b)
		return NULL;

	prio = b - q->bands;
	skb = __qdisc_dequeue_head(&b->q);
	if (!b->q.qlen)
		q->backlogged &= ~BIT(prio);
	b->qstats.backlog -= qdisc_pkt_len(skb);
	bstats_update(&b->bstats, skb);
	qdisc_qstats_backlog_dec(sch, skb);
	qdisc_bstats_update(sch, skb);
	sch->q.qlen--;

	pfcwd_sched_note_tx(sch, skb, prio);
	if (unlikely(action == PFCWD_DP_FORWARD))
		atomic64_inc(&q->port->prio[prio].tx_forwarded);
	return skb;
}

struct sk_buff *pfcwd_sched_peek(struct Qdisc *sch)
{
	struct pfcwd_band *b;
	u8 action;

	b = pfcwd_sched_next(sch, false, &action);
	return b ? b->q.head : NULL;
}

/* Drops the oldest packets of @b until it holds at most @limit packets. */
static void pfcwd_sched_trim(struct Qdisc *sch, struct pfcwd_band *b,
			     u32 limit)
{
	unsigned int pkts = 0, bytes = 0;
	struct sk_buff *skb;

	while (b->q.qlen > limit) {
		skb = __qdisc_dequeue_head(&b->q);
		pkts++;
		bytes += qdisc_pkt_len(skb);
		b->qstats.backlog -= qdisc_pkt_len(skb);
		b->qstats.drops++;
		qdisc_qstats_backlog_dec(sch, skb);
		qdisc_qstats_drop(sch);
		sch->q.qlen--;
		rtnl_kfree_skbs(skb, skb);
	}
	if (pkts)
		qdisc_tree_reduce_backlog(sch, pkts, bytes);
}

void pfcwd_sched_reset(struct Qdisc *sch)
{
	struct pfcwd_sched *q = qdisc_priv(sch);
	int prio;

	qdisc_watchdog_cancel(&q->watchdog);

	for (prio = 0; prio < PFCWD_NUM_PRIO; prio++) {
		struct pfcwd_band *b = &q->bands[prio];

		rtnl_kfree_skbs(b->q.head, b->q.tail);
		b->q.head = NULL;
		b->q.tail = NULL;
		b->q.qlen = 0;
		b->qstats.backlog = 0;
	}
	q->backlogged = 0;
	sch->q.qlen = 0;
	sch->qstats.backlog = 0;
}

/* Sets the per-band limit, dropping the oldest packets above it. */
void pfcwd_sched_set_limit(struct Qdisc *sch, u32 limit)
{
	struct pfcwd_sched *q = qdisc_priv(sch);
	int prio;

	sch_tree_lock(sch);
	q->limit = limit;
	for (prio = 0; prio < PFCWD_NUM_PRIO; prio++)
		pfcwd_sched_trim(sch, &q->bands[prio], limit);
	sch_tree_unlock(sch);
}

/* What every role starts with: empty bands. */
void pfcwd_sched_init_bands(struct Qdisc *sch, enum pfcwd_sched_role role)
{
	struct pfcwd_sched *q = qdisc_priv(sch);
	int prio;

	/* The core hands us zeroed private data: the bands are empty. */
	q->role = role;
	q->major = TC_H_MAJ(sch->handle);
	for (prio = 0; prio < PFCWD_NUM_PRIO; prio++)
		gnet_stats_basic_sync_init(&q->bands[prio].bstats);
	qdisc_watchdog_init(&q->watchdog, sch);	/* destroy cancels it */
}

/*
 * The band queue of one TX queue, created by the root with
 * qdisc_create_dflt(); the root then gives it its port and limit.
 */
static int pfcwd_leaf_init(struct Qdisc *sch, struct nlattr *opt,
			   struct netlink_ext_ack *extack)
{
	pfcwd_sched_init_bands(sch, PFCWD_SCHED_LEAF);
	return 0;
}

static void pfcwd_leaf_destroy(struct Qdisc *sch)
{
	struct pfcwd_sched *q = qdisc_priv(sch);

	qdisc_watchdog_cancel(&q->watchdog);
	if (q->port)
		pfcwd_port_put(q->port);
	q->port = NULL;
}

/*
 * The limit and the port's configuration as in force (sysfs shows the
 * same): the dump of a leaf, and of the qdisc the user adds after a ROOT
 * summed its counters.  RTNL held.
 */
int pfcwd_sched_dump_opts(struct Qdisc *sch, struct sk_buff *skb)
{
	struct pfcwd_sched *q = qdisc_priv(sch);
	struct pfcwd_config cfg;
	struct nlattr *opts;

	if (!q->port)
		return 0;
	mutex_lock(&q->port->lock);
	cfg = q->port->cfg;
	mutex_unlock(&q->port->lock);

	opts = nla_nest_start_noflag(skb, TCA_OPTIONS);
	if (!opts)
		return -EMSGSIZE;
	if (nla_put_u32(skb, TCA_PFCWD_LIMIT, q->limit) ||
	    nla_put_u32(skb, TCA_PFCWD_DETECT, cfg.detect_ms) ||
	    nla_put_u32(skb, TCA_PFCWD_RESTORE, cfg.restore_ms) ||
	    nla_put_u32(skb, TCA_PFCWD_ACTION, cfg.action) ||
	    nla_put_u8(skb, TCA_PFCWD_LOSSLESS, cfg.prios) ||
	    nla_put_u32(skb, TCA_PFCWD_WARN, cfg.warn_ms) ||
	    nla_put_u8(skb, TCA_PFCWD_BACKOFF, cfg.backoff) ||
	    nla_put_u32(skb, TCA_PFCWD_RATE_RX, cfg.rate_rx) ||
	    nla_put_u32(skb, TCA_PFCWD_RATE_TX, cfg.rate_tx) ||
	    nla_put_u32(skb, TCA_PFCWD_RATE_WINDOW, cfg.rate_window_ms)) {
		nla_nest_cancel(skb, opts);
		return -EMSGSIZE;
	}
	return nla_nest_end(skb, opts);
}

/*
 * Adds band @prio's counters to the sums: bytes and packets, drops and
 * backlog, queue length.  RTNL held; takes the root lock the datapath
 * writes them under.
 */
void pfcwd_sched_band_stats(struct Qdisc *sch, unsigned int prio,
			    struct gnet_stats_basic_sync *bstats,
			    struct gnet_stats_queue *qstats, __u32 *qlen)
{
	struct pfcwd_sched *q = qdisc_priv(sch);
	struct pfcwd_band *b = &q->bands[prio];

	spinlock_t *lock = qdisc_root_sleeping_lock(sch);

	spin_lock_bh(lock);
	gnet_stats_add_basic(bstats, NULL, &b->bstats, true);
	gnet_stats_add_queue(qstats, NULL, &b->qstats);
	*qlen += b->q.qlen;
	spin_unlock_bh(lock);
}

/**
 * pfcwd_sched_drop_queued - drops what @dev's band queues hold for the
 * priorities the watchdog now drops
 * @dev: the device, alive (RTNL held and its port not dead)
 *
 * New packets of such a priority are dropped at enqueue; those already
 * queued would wait for the next dequeue, which never comes while their
 * TX queue stays stopped (the priority still paused, pfc_en untouched: a
 * leaf is not dequeued while its queue is stopped).  Takes each band
 * queue's lock in turn.  A pfcwd qdisc under another qdisc is emptied at
 * its next dequeue instead.  Process context.
 */
void pfcwd_sched_drop_queued(struct net_device *dev)
{
	struct pfcwd_sched *q;
	struct Qdisc *sch;
	unsigned int i;
	unsigned long todo;

	ASSERT_RTNL();
	for (i = 0; i < dev->num_tx_queues; i++) {
		sch = rtnl_dereference(netdev_get_tx_queue(dev, i)->qdisc_sleeping);
		if (sch->ops->enqueue != pfcwd_sched_enqueue)
			continue;
		q = qdisc_priv(sch);
		spin_lock_bh(qdisc_lock(sch));
		todo = q->backlogged;
		while (todo) {
			unsigned int prio = __fls(todo);

			todo &= ~BIT(prio);
			/*
			 * A budget at a time, letting BH and other tasks
			 * in between; RTNL keeps the qdisc.
			 */
			while (pfcwd_sched_action(q, prio) == PFCWD_DP_DROP &&
			       !pfcwd_sched_flush(sch, q, prio)) {
				spin_unlock_bh(qdisc_lock(sch));
				cond_resched();
				spin_lock_bh(qdisc_lock(sch));
			}
		}
		spin_unlock_bh(qdisc_lock(sch));
	}
}

/* What the band queues hear of the watchdog's actions (main.c subscribes). */
const struct pfcwd_action_listener pfcwd_sched_listener = {
	.drop_queued	= pfcwd_sched_drop_queued,
};

/*
 * The band queue of one TX queue under a multiqueue root; not registered
 * (only the root creates it), shown as "pfcwd" too.
 */
struct Qdisc_ops pfcwd_leaf_ops __read_mostly = {
	.id		= "pfcwd",
	.priv_size	= sizeof(struct pfcwd_sched),
	.enqueue	= pfcwd_sched_enqueue,
	.dequeue	= pfcwd_sched_dequeue,
	.peek		= pfcwd_sched_peek,
	.init		= pfcwd_leaf_init,
	.reset		= pfcwd_sched_reset,
	.destroy	= pfcwd_leaf_destroy,
	.dump		= pfcwd_sched_dump_opts,
	.owner		= THIS_MODULE,
};
