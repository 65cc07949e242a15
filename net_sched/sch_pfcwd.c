// SPDX-License-Identifier: GPL-2.0
/*
 * sch_pfcwd - the PFC-aware qdisc of pfcwd: the qdisc the user adds.
 *
 * The top layer of net_sched/ (events and calls go one way, down):
 *   sch_pfcwd.c       this file: options (parse, change, dump), the port
 *                     a qdisc attaches to, per-priority xstats, the
 *                     classes, and the registered Qdisc_ops "pfcwd"
 *   sch_pfcwd_mq.c    the multiqueue ROOT role, over the band queues
 *   sch_pfcwd_band.c  the band queue itself (the datapath), the LEAF
 *                     Qdisc_ops and pfcwd_sched_drop_queued()
 * The band queue's operations (enqueue, dequeue, peek, reset) are the
 * datapath of this file's Qdisc_ops too.
 *
 * Eight FIFO bands, one per IEEE 802.1p priority, served in strict priority
 * order: band 7 first, band 0 last.  A packet's band is its priority: the
 * class its skb->priority names (MAJOR:1..MAJOR:8 of the qdisc the user
 * added), else the PCP of a VLAN-tagged frame (a tag in the packet is
 * looked for on Ethernet devices only), else skb->priority when it is
 * 0..7; anything else is best effort, band 0.  Each band holds at most
 * "limit" packets (default: the device's tx_queue_len when the qdisc is
 * created); a packet arriving at a full band is dropped and counted
 * against that band.
 *
 * Roles (struct pfcwd_sched.role, sch_pfcwd.h).  As the root of a
 * multiqueue device the qdisc the user adds is a ROOT (sch_pfcwd_mq.c):
 * it holds no packets and grafts a LEAF band queue, pfcwd_leaf_ops, on
 * every TX queue, so that a queue stopped by a pause holds back only
 * itself.  A LEAF is its TX queue's root qdisc (TCQ_F_ONETXQUEUE): the
 * core does not dequeue it while the queue is stopped.  Anywhere else (a
 * single-queue device, or under another qdisc) the qdisc is a SINGLE band
 * queue for all TX queues: it passes over a band whose head packet's TX
 * queue is stopped (the priority is paused), so that nothing behind a
 * paused priority waits, and on a device with traffic classes steers a
 * packet to a TX queue of its priority's class - unless its TX queue's
 * root serves that queue alone (mq, mqprio: see pfcwd_sched_may_steer()).
 *
 * Band P is class MAJOR:P+1, so "tc -s class show" lists eight classes with
 * their own byte, packet, drop and backlog counters.
 *
 * The watchdog (pfcwd/) tells the datapath what to do with a stormed
 * priority through port->prio[P].dp_action, read with READ_ONCE: DROP
 * drops new packets and empties the band (at once through
 * pfcwd_sched_drop_queued(), else at the next dequeue), FORWARD
 * only counts what goes out.  Those drops and forwards are counted in the
 * port (atomics, written only while mitigating); the fast path adds one
 * read per packet and nothing else.
 *
 * Options (TCA_OPTIONS, strict policy): "limit" is the qdisc's own; detect,
 * restore, action and lossless are the port's watchdog configuration, the
 * values sysfs shows, applied through pfcwd_port_configure() and dumped
 * back from the port.  Everything is checked before anything is applied.
 * dump_stats sends struct tc_pfcwd_xstats: per priority its state and the
 * watchdog's counters.
 *
 * Software PFC (pfcwd/swpfc.c, devices without hardware PFC): a band
 * whose priority the link partner paused is passed over too, until
 * port->swpfc.until[P] - one READ_ONCE per band looked at, and a clock
 * read only while some pause was received.  When nothing can be sent
 * because of such pauses, the qdisc's watchdog timer is armed for the
 * earliest end, so that a band resumes on time; an XON (or the watchdog
 * taking the priority over) reschedules the qdisc at once.  While the
 * watchdog mitigates a priority with drop or forward, its pause is not
 * honoured.
 *
 * Locking and context:
 *  - the datapath (enqueue, dequeue, peek, reset: sch_pfcwd_band.c) runs
 *    with the qdisc root lock held, softirq or process context with BH
 *    disabled; see there.
 *  - init, change, destroy, attach, change_real_num_tx, dump, dump_stats
 *    and the class operations (this file) run under RTNL in process
 *    context.  change takes the root lock (sch_tree_lock, in
 *    pfcwd_sched_set_limit()) before it touches anything the datapath
 *    reads.  The port's configuration and state machines are read and
 *    changed under port->lock (a mutex, taken after RTNL), never under the
 *    root lock.  The class dumps read the counters the datapath writes
 *    under the root lock (pfcwd_sched_band_stats() takes it; bytes and
 *    packets through u64_stats too).
 */
#include <linux/hashtable.h>
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

static struct netlink_range_validation pfcwd_limit_range = {
	.min = 1,
	.max = PFCWD_LIMIT_MAX,
};

static struct netlink_range_validation pfcwd_time_range = {
	.min = PFCWD_TIME_MS_MIN,
	.max = PFCWD_TIME_MS_MAX,
};

static struct netlink_range_validation pfcwd_warn_range = {
	.min = 0,
	.max = PFCWD_WARN_MS_MAX,
};

static struct netlink_range_validation pfcwd_rate_range = {
	.min = 0,
	.max = PFCWD_RATE_PPS_MAX,
};

static struct netlink_range_validation pfcwd_rate_window_range = {
	.min = PFCWD_RATE_WINDOW_MS_MIN,
	.max = PFCWD_RATE_WINDOW_MS_MAX,
};

static const struct nla_policy pfcwd_tc_policy[TCA_PFCWD_MAX + 1] = {
	[TCA_PFCWD_LIMIT] = NLA_POLICY_FULL_RANGE(NLA_U32, &pfcwd_limit_range),
	[TCA_PFCWD_DETECT] = NLA_POLICY_FULL_RANGE(NLA_U32, &pfcwd_time_range),
	[TCA_PFCWD_RESTORE] = NLA_POLICY_FULL_RANGE(NLA_U32, &pfcwd_time_range),
	[TCA_PFCWD_ACTION] = NLA_POLICY_MAX(NLA_U32, PFCWD_ACTION_MAX),
	[TCA_PFCWD_LOSSLESS] = { .type = NLA_U8 },
	[TCA_PFCWD_WARN] = NLA_POLICY_FULL_RANGE(NLA_U32, &pfcwd_warn_range),
	[TCA_PFCWD_BACKOFF] = NLA_POLICY_MAX(NLA_U8, 1),
	[TCA_PFCWD_RATE_RX] = NLA_POLICY_FULL_RANGE(NLA_U32, &pfcwd_rate_range),
	[TCA_PFCWD_RATE_TX] = NLA_POLICY_FULL_RANGE(NLA_U32, &pfcwd_rate_range),
	[TCA_PFCWD_RATE_WINDOW] =
		NLA_POLICY_FULL_RANGE(NLA_U32, &pfcwd_rate_window_range),
};

/*
 * What one TCA_OPTIONS nest asks for: the qdisc's limit and a change to
 * the port's watchdog configuration (the fields named in chg.set).
 */
struct pfcwd_sched_opts {
	bool has_limit;
	u32 limit;
	struct pfcwd_config_change chg;
};

/*
 * The policy's own messages ("integer out of range", "Attribute failed
 * policy validation") do not say which option was wrong: when the
 * attribute it refused is one inside @opt, say it by name.  The bad
 * attribute and the policy stay in the extack.
 */
static void pfcwd_sched_explain(const struct nlattr *opt,
				struct netlink_ext_ack *extack)
{
	const void *bad, *first, *end;

	if (!extack || !extack->bad_attr)
		return;
	bad = extack->bad_attr;
	first = nla_data(opt);
	end = first + nla_len(opt);
	if (bad < first || bad >= end)
		return;		/* @opt itself, e.g. NLA_F_NESTED missing */

	switch (nla_type(extack->bad_attr)) {
	case TCA_PFCWD_LIMIT:
		NL_SET_ERR_MSG(extack, "pfcwd: bad limit: a u32 of 1-1048576 (packets per band)");
		break;
	case TCA_PFCWD_DETECT:
		NL_SET_ERR_MSG(extack, "pfcwd: bad detect: a u32 of 1-60000 (ms)");
		break;
	case TCA_PFCWD_RESTORE:
		NL_SET_ERR_MSG(extack, "pfcwd: bad restore: a u32 of 1-60000 (ms)");
		break;
	case TCA_PFCWD_ACTION:
		NL_SET_ERR_MSG(extack,
			       "pfcwd: bad action: a u32, 0 (drop), 1 (forward) or 2 (alert)");
		break;
	case TCA_PFCWD_LOSSLESS:
		NL_SET_ERR_MSG(extack, "pfcwd: bad lossless: a u8 bitmask of priorities");
		break;
	case TCA_PFCWD_WARN:
		NL_SET_ERR_MSG(extack, "pfcwd: bad warn: a u32 of 0-59999 (ms; 0 = off)");
		break;
	case TCA_PFCWD_BACKOFF:
		NL_SET_ERR_MSG(extack, "pfcwd: bad backoff: a u8, 0 (off) or 1 (on)");
		break;
	case TCA_PFCWD_RATE_RX:
	case TCA_PFCWD_RATE_TX:
		NL_SET_ERR_MSG(extack,
			       "pfcwd: bad pause rate: a u32 of 0-100000000 (frames/s; 0 = off)");
		break;
	case TCA_PFCWD_RATE_WINDOW:
		NL_SET_ERR_MSG(extack,
			       "pfcwd: bad pause-rate window: a u32 of 100-3600000 (ms)");
		break;
	default:
		NL_SET_ERR_MSG(extack,
			       "pfcwd: unknown option (attribute type not in TCA_PFCWD_*)");
		break;
	}
}

/*
 * Parses and checks @opt (may be NULL: no options) into @o.  Nothing is
 * applied: a request that fails here changes nothing.
 */
static int pfcwd_sched_parse(struct nlattr *opt, struct pfcwd_sched_opts *o,
			     struct netlink_ext_ack *extack)
{
	struct pfcwd_config *cfg = &o->chg.cfg;
	struct nlattr *tb[TCA_PFCWD_MAX + 1];
	int err;

	memset(o, 0, sizeof(*o));
	if (!opt)
		return 0;

	err = nla_parse_nested(tb, TCA_PFCWD_MAX, opt, pfcwd_tc_policy, extack);
	if (err < 0) {
		pfcwd_sched_explain(opt, extack);
		return err;
	}

	if (tb[TCA_PFCWD_LIMIT]) {
		o->has_limit = true;
		o->limit = nla_get_u32(tb[TCA_PFCWD_LIMIT]);
	}
	if (tb[TCA_PFCWD_DETECT]) {
		o->chg.set |= PFCWD_CFG_DETECT;
		cfg->detect_ms = nla_get_u32(tb[TCA_PFCWD_DETECT]);
	}
	if (tb[TCA_PFCWD_RESTORE]) {
		o->chg.set |= PFCWD_CFG_RESTORE;
		cfg->restore_ms = nla_get_u32(tb[TCA_PFCWD_RESTORE]);
	}
	if (tb[TCA_PFCWD_ACTION]) {
		o->chg.set |= PFCWD_CFG_ACTION;
		cfg->action = nla_get_u32(tb[TCA_PFCWD_ACTION]);
	}
	if (tb[TCA_PFCWD_LOSSLESS]) {
		o->chg.set |= PFCWD_CFG_PRIOS;
		cfg->prios = nla_get_u8(tb[TCA_PFCWD_LOSSLESS]);
	}
	if (tb[TCA_PFCWD_WARN]) {
		o->chg.set |= PFCWD_CFG_WARN;
		cfg->warn_ms = nla_get_u32(tb[TCA_PFCWD_WARN]);
	}
	if (tb[TCA_PFCWD_BACKOFF]) {
		o->chg.set |= PFCWD_CFG_BACKOFF;
		cfg->backoff = nla_get_u8(tb[TCA_PFCWD_BACKOFF]);
	}
	if (tb[TCA_PFCWD_RATE_RX]) {
		o->chg.set |= PFCWD_CFG_RATE_RX;
		cfg->rate_rx = nla_get_u32(tb[TCA_PFCWD_RATE_RX]);
	}
	if (tb[TCA_PFCWD_RATE_TX]) {
		o->chg.set |= PFCWD_CFG_RATE_TX;
		cfg->rate_tx = nla_get_u32(tb[TCA_PFCWD_RATE_TX]);
	}
	if (tb[TCA_PFCWD_RATE_WINDOW]) {
		o->chg.set |= PFCWD_CFG_RATE_WINDOW;
		cfg->rate_window_ms = nla_get_u32(tb[TCA_PFCWD_RATE_WINDOW]);
	}
	/* The policy checked the ranges; this is the check sysfs uses too. */
	return pfcwd_config_check(&o->chg, extack);
}

/* Applies the watchdog part of @o to the port; RTNL held. */
/*
 * @created: the qdisc is new, so the port's T0 is checked whatever the
 * options; a change checks it when it sets one.  A T0 finer than the port
 * resolves is a warning in the ACK, as at a port-set.
 */
static int pfcwd_sched_configure(struct pfcwd_port *port,
				 const struct pfcwd_sched_opts *o,
				 bool created, struct netlink_ext_ack *extack)
{
	int err = 0;

	if (!o->chg.set && !created)
		return 0;
	mutex_lock(&port->lock);
	if (o->chg.set)
		err = pfcwd_port_configure(port, &o->chg, extack);
	if (!err && (created || (o->chg.set & (PFCWD_CFG_DETECT |
					       PFCWD_CFG_PRIO_POLICY))) &&
	    pfcwd_port_t0_too_fine(port))
		NL_SET_ERR_MSG(extack, PFCWD_MSG_T0_TOO_FINE);
	mutex_unlock(&port->lock);
	return err;
}

static int pfcwd_sched_change(struct Qdisc *sch, struct nlattr *opt,
			      struct netlink_ext_ack *extack)
{
	struct pfcwd_sched *q = qdisc_priv(sch);
	struct pfcwd_sched_opts o;
	int err;

	err = pfcwd_sched_parse(opt, &o, extack);
	if (err)
		return err;
	/* The only step that can still fail (a dying port): first. */
	err = pfcwd_sched_configure(q->port, &o, false, extack);
	if (err)
		return err;
	if (!o.has_limit)
		return 0;

	if (q->role == PFCWD_SCHED_ROOT)
		pfcwd_mq_set_limit(sch, o.limit);
	else
		pfcwd_sched_set_limit(sch, o.limit);
	return 0;
}

/*
 * The qdisc whose class a qdisc with parent @parent hangs from, if it is
 * on @dev's list of qdiscs (the core's own lookup is not exported).  RTNL
 * held.
 */
static struct Qdisc *pfcwd_sched_parent(struct net_device *dev, u32 parent)
{
	u32 maj = TC_H_MAJ(parent);
	struct Qdisc *root = rtnl_dereference(dev->qdisc), *q;

	if (parent == TC_H_ROOT || parent == TC_H_UNSPEC)
		return NULL;
	if (root && root->handle == maj)
		return root;
	hash_for_each_possible(dev->qdisc_hash, q, hash, maj)
		if (q->handle == maj)
			return q;
	return NULL;
}

/*
 * pfcwd is not work-conserving: it passes over paused priorities, so its
 * peek and dequeue can find nothing while it holds packets.  QFQ takes
 * that for a bug of its child (6.1 warns with a stack trace, WARN_ONCE).
 * DRR, ETS and HFSC stop their whole dequeue at such a class (they return
 * NULL instead of trying the next one), so a paused priority would stall
 * every sibling class for the whole storm.  prio, htb, tbf, mq and mqprio
 * move on.  Checked all the way up: any of these above pfcwd stalls.
 * Returns true (and says why) when @p is one of them.
 */
static bool pfcwd_sched_bad_parent(const struct Qdisc *p,
				   struct netlink_ext_ack *extack)
{
	const char *id = p->ops->id;

	if (!strcmp(id, "qfq"))
		NL_SET_ERR_MSG(extack,
			       "pfcwd cannot be under QFQ: it passes over paused priorities (not work-conserving) and QFQ requires work-conserving children; use prio, htb, tbf, mq or mqprio as its parent, or pfcwd as the root");
	else if (!strcmp(id, "drr"))
		NL_SET_ERR_MSG(extack,
			       "pfcwd cannot be under DRR: DRR stops all its classes while one returns nothing, as pfcwd does for a paused priority; use prio, htb, tbf, mq or mqprio as its parent, or pfcwd as the root");
	else if (!strcmp(id, "ets"))
		NL_SET_ERR_MSG(extack,
			       "pfcwd cannot be under ETS: ETS stops all its classes while one returns nothing, as pfcwd does for a paused priority; use prio, htb, tbf, mq or mqprio as its parent, or pfcwd as the root");
	else if (!strcmp(id, "hfsc"))
		NL_SET_ERR_MSG(extack,
			       "pfcwd cannot be under HFSC: HFSC stops all its classes while one returns nothing, as pfcwd does for a paused priority; use prio, htb, tbf, mq or mqprio as its parent, or pfcwd as the root");
	else
		return false;
	return true;
}

/* Deeper than any tree the core lets a user build (its check_loop: 7). */
#define PFCWD_PARENT_DEPTH_MAX	16

static int pfcwd_sched_check_parent(struct net_device *dev, struct Qdisc *sch,
				    struct netlink_ext_ack *extack)
{
	struct Qdisc *p = pfcwd_sched_parent(dev, sch->parent);
	int depth;

	for (depth = 0; p && depth < PFCWD_PARENT_DEPTH_MAX; depth++) {
		if (pfcwd_sched_bad_parent(p, extack))
			return -EOPNOTSUPP;
		p = pfcwd_sched_parent(dev, p->parent);
	}
	return 0;
}

/*
 * "tc qdisc add ... pfcwd": the root of a multiqueue device grafts a band
 * queue on every TX queue (sch_pfcwd_mq.c); anywhere else the qdisc is
 * its own single band queue.
 */
static int pfcwd_sched_init(struct Qdisc *sch, struct nlattr *opt,
			    struct netlink_ext_ack *extack)
{
	struct pfcwd_sched *q = qdisc_priv(sch);
	struct net_device *dev = qdisc_dev(sch);
	struct pfcwd_sched_opts o;
	struct pfcwd_port *port;
	u32 limit;
	int err;

	pfcwd_sched_init_bands(sch, sch->parent == TC_H_ROOT &&
			       netif_is_multiqueue(dev) ?
			       PFCWD_SCHED_ROOT : PFCWD_SCHED_SINGLE);
	err = pfcwd_sched_check_parent(dev, sch, extack);
	if (err)
		return err;
	err = pfcwd_sched_parse(opt, &o, extack);
	if (err)
		return err;

	port = pfcwd_port_attach(dev, extack);
	if (IS_ERR(port))
		return PTR_ERR(port);
	q->port = port;

	if (o.has_limit)
		limit = o.limit;
	else
		limit = clamp_t(u32, READ_ONCE(dev->tx_queue_len), 1,
				PFCWD_LIMIT_MAX);
	q->limit = limit;
	if (q->role == PFCWD_SCHED_ROOT) {
		/* On failure the core calls destroy, which frees the leaves. */
		err = pfcwd_mq_init(sch, limit, extack);
		if (err)
			return err;
	}

	/* On failure the core calls destroy, which detaches. */
	return pfcwd_sched_configure(port, &o, true, extack);
}

/* Also called when init failed, before or after attaching. */
static void pfcwd_sched_destroy(struct Qdisc *sch)
{
	struct pfcwd_sched *q = qdisc_priv(sch);

	qdisc_watchdog_cancel(&q->watchdog);
	if (q->role == PFCWD_SCHED_ROOT)
		pfcwd_mq_destroy(sch);
	if (q->port)
		pfcwd_port_detach(q->port);
	q->port = NULL;
}

/*
 * The core grafts a root qdisc on the TX queues itself unless it has an
 * attach operation.  The root role needs one (its leaves go on the
 * queues), so the single role, as the root of a single-queue device, does
 * what the core would: the qdisc on every TX queue, a reference each.
 */
static void pfcwd_sched_attach(struct Qdisc *sch)
{
	struct pfcwd_sched *q = qdisc_priv(sch);
	struct net_device *dev = qdisc_dev(sch);
	struct Qdisc *old;
	unsigned int i;

	if (q->role == PFCWD_SCHED_ROOT) {
		pfcwd_mq_attach(sch);
		return;
	}
	for (i = 0; i < dev->num_tx_queues; i++) {
		qdisc_refcount_inc(sch);
		old = dev_graft_qdisc(netdev_get_tx_queue(dev, i), sch);
		if (old)
			qdisc_put(old);
	}
}

static void pfcwd_sched_change_real_num_tx(struct Qdisc *sch,
					   unsigned int new_real_tx)
{
	struct pfcwd_sched *q = qdisc_priv(sch);

	if (q->role == PFCWD_SCHED_ROOT)
		pfcwd_mq_change_real_num_tx(sch, new_real_tx);
}

/* The limit and the port's configuration as in force (sysfs shows the same). */
static int pfcwd_sched_dump(struct Qdisc *sch, struct sk_buff *skb)
{
	struct pfcwd_sched *q = qdisc_priv(sch);

	if (q->port && q->role == PFCWD_SCHED_ROOT)
		pfcwd_mq_sum(sch);
	return pfcwd_sched_dump_opts(sch, skb);
}

static u32 pfcwd_sched_prio_state(enum pfcwd_state state)
{
	switch (state) {
	case PFCWD_STORMED:
		return PFCWD_PRIO_STATE_STORMED;
	case PFCWD_LATCHED:
		return PFCWD_PRIO_STATE_LATCHED;
	case PFCWD_OPERATIONAL:
		break;
	}
	return PFCWD_PRIO_STATE_OPERATIONAL;
}

/*
 * Per-priority state and watchdog counters: struct tc_pfcwd_xstats.  The
 * port's, so only the qdisc the user added gives them, not its leaves.
 */
static int pfcwd_sched_dump_stats(struct Qdisc *sch, struct gnet_dump *d)
{
	struct pfcwd_sched *q = qdisc_priv(sch);
	struct pfcwd_port *port = q->port;
	struct tc_pfcwd_xstats st;
	int p;

	if (q->role == PFCWD_SCHED_LEAF || !port)
		return 0;
	memset(&st, 0, sizeof(st));
	mutex_lock(&port->lock);
	for (p = 0; p < PFCWD_NUM_PRIO; p++) {
		const struct pfcwd_prio *pp = &port->prio[p];
		struct tc_pfcwd_prio_xstats *x = &st.prio[p];

		x->state = pfcwd_sched_prio_state(pp->sm.state);
		if (port->cfg.prios & BIT(p))
			x->flags |= TC_PFCWD_PRIO_WATCHED;
		if (pfcwd_swpfc_paused(port, p))
			x->flags |= TC_PFCWD_PRIO_PAUSED;
		x->detected = pp->sm.stats.detected;
		x->restored = pp->sm.stats.restored;
		x->tx_dropped = atomic64_read(&pp->tx_dropped);
		x->rx_dropped = atomic64_read(&pp->rx_dropped);
		x->tx_forwarded = atomic64_read(&pp->tx_forwarded);
	}
	mutex_unlock(&port->lock);
	return gnet_stats_copy_app(d, &st, sizeof(st));
}

/*
 * Classes: priority P is class MAJOR:P+1, the class handle P+1.  Its
 * counters are its band's; under the multiqueue root the sums of that band
 * over every TX queue's leaf.
 */

static unsigned long pfcwd_class_find(struct Qdisc *sch, u32 classid)
{
	unsigned long band = TC_H_MIN(classid);

	return band >= 1 && band <= PFCWD_NUM_PRIO ? band : 0;
}

static struct Qdisc *pfcwd_class_leaf(struct Qdisc *sch, unsigned long cl)
{
	return NULL;
}

static void pfcwd_class_walk(struct Qdisc *sch, struct qdisc_walker *arg)
{
	unsigned long band;

	if (arg->stop)
		return;
	for (band = 1; band <= PFCWD_NUM_PRIO; band++)
		if (!tc_qdisc_stats_dump(sch, band, arg))
			break;
}

static int pfcwd_class_dump(struct Qdisc *sch, unsigned long cl,
			    struct sk_buff *skb, struct tcmsg *tcm)
{
	tcm->tcm_handle |= TC_H_MIN(cl);
	tcm->tcm_info = 0;
	return 0;
}

static int pfcwd_class_dump_stats(struct Qdisc *sch, unsigned long cl,
				  struct gnet_dump *d)
{
	struct pfcwd_sched *q = qdisc_priv(sch);
	struct gnet_stats_basic_sync bstats;
	struct gnet_stats_queue qstats = {};
	__u32 qlen = 0;

	gnet_stats_basic_sync_init(&bstats);
	if (q->role == PFCWD_SCHED_ROOT)
		pfcwd_mq_prio_stats(sch, cl - 1, &bstats, &qstats, &qlen);
	else
		pfcwd_sched_band_stats(sch, cl - 1, &bstats, &qstats, &qlen);
	if (gnet_stats_copy_basic(d, NULL, &bstats, true) < 0 ||
	    gnet_stats_copy_queue(d, NULL, &qstats, qlen) < 0)
		return -1;
	return 0;
}

static const struct Qdisc_class_ops pfcwd_class_ops = {
	.leaf		= pfcwd_class_leaf,
	.find		= pfcwd_class_find,
	.walk		= pfcwd_class_walk,
	.dump		= pfcwd_class_dump,
	.dump_stats	= pfcwd_class_dump_stats,
};

/* The qdisc the user adds: the root or single role. */
static struct Qdisc_ops pfcwd_qdisc_ops __read_mostly = {
	.cl_ops		= &pfcwd_class_ops,
	.id		= "pfcwd",
	.priv_size	= sizeof(struct pfcwd_sched),
	.enqueue	= pfcwd_sched_enqueue,
	.dequeue	= pfcwd_sched_dequeue,
	.peek		= pfcwd_sched_peek,
	.init		= pfcwd_sched_init,
	.reset		= pfcwd_sched_reset,
	.destroy	= pfcwd_sched_destroy,
	.change		= pfcwd_sched_change,
	.attach		= pfcwd_sched_attach,
	.change_real_num_tx = pfcwd_sched_change_real_num_tx,
	.dump		= pfcwd_sched_dump,
	.dump_stats	= pfcwd_sched_dump_stats,
	.owner		= THIS_MODULE,
};

/*
 * "tc qdisc add ... pfcwd" loads this module when the kind is unknown: the
 * kernel asks for "sch_pfcwd" before 6.9 and "net-sch-pfcwd" since.
 */
MODULE_ALIAS("sch_pfcwd");
MODULE_ALIAS("net-sch-pfcwd");

int pfcwd_sched_register(void)
{
	return register_qdisc(&pfcwd_qdisc_ops);
}

void pfcwd_sched_unregister(void)
{
	unregister_qdisc(&pfcwd_qdisc_ops);
}
