// SPDX-License-Identifier: GPL-2.0
/*
 * pfcsim's net_device.  The queue state: which TX queues (tx_ring 0) or
 * rings the link partner's pause and tx_hang stop, which rings a slow
 * receiver paces (rx_slow_peer), the queue layout
 * (prio_tc, "ethtool -L"), the NIC's PFC storm prevention, and
 * pfcsim_reconfigure(), which follows a change of the inputs.  The data
 * path: TX queue selection, xmit, the frames of inject_rx and the device
 * statistics.  And the ndo ops.
 *
 * Locking and context:
 *  - The queue state functions run with port->lock held (a spinlock, BH
 *    disabled), in process context: debugfs writes, the dcbnl and ethtool
 *    ops and ndo_open (under RTNL), the prevention work.  TX queues are
 *    stopped (tx_ring 0) and woken for pause under port->lock, the queue's
 *    xmit lock nested inside; ring_lock nests inside port->lock.  Which
 *    queues are stopped by pause (port->paused) and which rings are paused
 *    (ring_paused) or paced (ring_slow) is set by pfcsim_apply_queues(),
 *    after draining the rings up to then under ring_lock.
 *  - The queue layout (prio_tc, tc_prio, channels, num_txq) is changed by
 *    pfcsim_set_layout() (the prio_tc write, set_channels, port creation)
 *    with RTNL held, in process context: the netdev's real_num_tx_queues
 *    and tc map under RTNL alone (they may sleep), then the copy under
 *    port->lock and ring_lock; any of the three is enough to read it.
 *  - port->prevent_work (a delayed work, system_wq, process context)
 *    re-arms itself, under port->lock, only while !port->dead.  The
 *    prevention state (prevent_ms, generating, gen_since, warned,
 *    prevented, storm_warnings, storm_errors) is under port->lock;
 *    prevent_ms is written with RTNL held too.
 *  - ndo_start_xmit runs with the TX queue's xmit lock held (softirq or
 *    process context, BH disabled) and takes ring_lock, never port->lock.
 *    ndo_select_queue (BH disabled) reads the traffic class layout as the
 *    core does, without a lock.
 *  - ndo_open and ndo_stop run under RTNL and take port->lock, then
 *    ring_lock; the carrier is turned on and off under port->lock.
 *    ndo_stop clears ring_live and empties the rings under ring_lock, then
 *    cancels the drain timer with no spinlock held.
 *  - pfcsim_inject() runs in process context (the inject_rx write);
 *    port->inject_lock (a mutex) makes it the only writer of the receive
 *    counters (u64_stats, updated with BH disabled).  Frames are passed up
 *    with netif_receive_skb() with BH disabled, in batches, rescheduling in
 *    between; it stops early once port->dying is set.  tx_storm is read
 *    locklessly.
 *  - ndo_get_stats64 (any context) and ethtool read the packet counters
 *    with the u64_stats retry loops.
 *
 * Calls pause.c and ring.c.
 */
#include <linux/etherdevice.h>
#include <linux/if_vlan.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/sched/signal.h>
#include <linux/spinlock.h>
#include <linux/u64_stats_sync.h>
#include <linux/workqueue.h>
#include <net/dcbnl.h>
#include <net/ipv6.h>

#include "pfcsim.h"

/* Source address of injected frames: the simulated link partner. */
static const u8 pfcsim_peer_addr[ETH_ALEN] __aligned(2) = {
	0x02, 0x70, 0x66, 0x63, 0x73, 0x6d
};

/* --- queue state (port->lock held) ------------------------------------------ */

/* The TX queues of the traffic classes of priorities @prios. */
static u32 pfcsim_prio_queues(const struct pfcsim_port *port, u8 prios)
{
	u32 mask = 0;
	int p, t;

	for (p = 0; p < PFCSIM_NUM_PRIO; p++) {
		if (!(prios & BIT(p)))
			continue;
		t = port->prio_tc[p];
		mask |= GENMASK((t + 1) * port->channels - 1, t * port->channels);
	}
	return mask;
}

/*
 * The TX queues of the traffic classes the link partner pauses, and of
 * those whose transmit hangs (tx_hang).
 */
static u32 pfcsim_paused_queues(const struct pfcsim_port *port)
{
	return pfcsim_prio_queues(port, (port->rx_storm & port->pfc_en) |
				  port->tx_hang);
}

/*
 * The priorities a slow receiver paces: in rx_slow_peer, not in rx_storm
 * (a storm pauses the class outright).
 */
static u8 pfcsim_slow_prios(const struct pfcsim_port *port)
{
	return port->rx_slow_peer & ~port->rx_storm;
}

/*
 * Makes the TX queues follow the link partner's pause: without rings
 * (tx_ring 0) exactly the paused ones are stopped; with rings, the paused
 * rings stop draining instead.  A slow receiver's short pauses stop no
 * queue: with rings, those of its classes drain at slow_pct % of the link
 * (ring_slow), unless a storm pauses the class.  port->lock held.
 */
static void pfcsim_apply_queues(struct pfcsim_port *port)
{
	u32 want = pfcsim_paused_queues(port);
	u32 stop = port->ring_size ? 0 : want;
	u32 slow = pfcsim_prio_queues(port, pfcsim_slow_prios(port) &
				      port->pfc_en) & ~want;
	struct netdev_queue *txq;
	int q, t;

	lockdep_assert_held(&port->lock);
	spin_lock(&port->ring_lock);
	/*
	 * Up to now the link sent at the old pause state, however late the
	 * drain timer runs (under emulation, by milliseconds): a pause stops
	 * a ring from now on, not from the last tick.
	 */
	if (port->draining)
		pfcsim_drain_to(port, ktime_get());
	port->ring_paused = want;
	port->ring_slow = slow;
	/* A class no longer paced keeps no share, nor debt, for later. */
	for (t = 0; t < PFCSIM_NUM_PRIO; t++)
		if (!(slow & BIT(t * port->channels)))
			port->slow_credit[t] = 0;
	pfcsim_drain_kick(port, pfcsim_rings_ready(port));
	spin_unlock(&port->ring_lock);
	if (!port->up)
		return;
	for (q = 0; q < PFCSIM_MAX_TXQ; q++) {
		if (!((stop ^ port->paused) & BIT(q)))
			continue;
		txq = netdev_get_tx_queue(port->dev, q);
		if (stop & BIT(q)) {
			/* As hardware would: no frame leaves once paused. */
			__netif_tx_lock_bh(txq);
			netif_tx_stop_queue(txq);
			__netif_tx_unlock_bh(txq);
		} else {
			netif_tx_wake_queue(txq);
		}
	}
	port->paused = stop;
}

/*
 * A new slow_peer_pct: the rings first brought up to @now at the old pace.
 * port->lock held; takes ring_lock.
 */
void pfcsim_set_slow_pct(struct pfcsim_port *port, u32 pct, ktime_t now)
{
	lockdep_assert_held(&port->lock);
	spin_lock(&port->ring_lock);
	if (port->draining)
		pfcsim_drain_to(port, now);
	port->slow_pct = pct;
	spin_unlock(&port->ring_lock);
}

/*
 * Empties the rings (counting nothing), gives them @desc of @size
 * descriptors, wakes the queues stopped because their ring was full (but
 * for those that pause stops without rings, which stay stopped) and makes
 * the queues follow the pause again.  Returns the old descriptors, for
 * the caller to free.  RTNL and port->lock held.
 */
struct pfcsim_desc *pfcsim_rings_reset(struct pfcsim_port *port,
				       struct pfcsim_desc *desc,
				       u32 size)
{
	struct pfcsim_desc *old;
	u32 stopped, keep;
	int q;

	lockdep_assert_held(&port->lock);
	spin_lock(&port->ring_lock);
	old = port->desc;
	port->desc = desc;
	port->ring_size = size;
	stopped = pfcsim_rings_flush(port);
	keep = size ? 0 : pfcsim_paused_queues(port);
	if (port->up) {
		for (q = 0; q < PFCSIM_MAX_TXQ; q++)
			if ((stopped & ~keep) & BIT(q))
				netif_tx_wake_queue(netdev_get_tx_queue(port->dev,
									q));
		port->paused |= stopped & keep;
	}
	spin_unlock(&port->ring_lock);
	pfcsim_apply_queues(port);
	return old;
}

/*
 * Sets the priority to traffic class map (traffic classes 0..max, each
 * used) and @channels TX queues per class: TC t owns queues
 * [t * channels, (t + 1) * channels).  Empties the rings.  RTNL held,
 * process context (the queue kobjects come and go).
 */
int pfcsim_set_layout(struct pfcsim_port *port,
		      const u8 prio_tc[PFCSIM_NUM_PRIO],
		      unsigned int channels)
{
	struct net_device *dev = port->dev;
	unsigned int num_tc = 0, txq, p, t;
	u8 tc_prio[PFCSIM_NUM_PRIO] = { };
	int err = 0;

	ASSERT_RTNL();
	for (p = 0; p < PFCSIM_NUM_PRIO; p++)
		num_tc = max_t(unsigned int, num_tc, prio_tc[p] + 1);
	for (p = PFCSIM_NUM_PRIO; p-- > 0; )
		tc_prio[prio_tc[p]] = p;
	txq = num_tc * channels;
	/* The TC ranges must fit the real queues whenever these change. */
	if (txq > dev->real_num_tx_queues)
		err = netif_set_real_num_tx_queues(dev, txq);
	if (!err)
		err = netdev_set_num_tc(dev, num_tc);
	for (t = 0; !err && t < num_tc; t++)
		err = netdev_set_tc_queue(dev, t, channels, t * channels);
	for (p = 0; !err && p < PFCSIM_NUM_PRIO; p++)
		err = netdev_set_prio_tc_map(dev, p, prio_tc[p]);
	if (!err && txq < dev->real_num_tx_queues)
		err = netif_set_real_num_tx_queues(dev, txq);
	if (err)
		return err;

	spin_lock_bh(&port->lock);
	spin_lock(&port->ring_lock);
	memcpy(port->prio_tc, prio_tc, sizeof(port->prio_tc));
	memcpy(port->tc_prio, tc_prio, sizeof(port->tc_prio));
	port->channels = channels;
	port->num_txq = txq;
	spin_unlock(&port->ring_lock);
	pfcsim_rings_reset(port, port->desc, port->ring_size);
	spin_unlock_bh(&port->lock);
	return 0;
}

/* The warning watermark of a prevention timeout: 85 %, at least 80 ms. */
static u32 pfcsim_prevent_warn_ms(u32 ms)
{
	return max(ms * 85 / 100, 80U);
}

/*
 * Follows which priorities send pause because their receive path is
 * stalled (tx_storm), and arms the prevention work for the next warning or
 * timeout.  port->lock held.
 */
void pfcsim_prevent_arm(struct pfcsim_port *port, ktime_t now)
{
	u8 gen = port->tx_storm & port->pfc_en & ~port->prevented;
	s64 next = S64_MAX, due;
	int p;

	lockdep_assert_held(&port->lock);
	for (p = 0; p < PFCSIM_NUM_PRIO; p++)
		if ((gen & ~port->generating) & BIT(p))
			port->gen_since[p] = now;
	port->warned &= gen;
	port->generating = gen;
	if (!port->prevent_ms || !gen || port->dead)
		return;
	for (p = 0; p < PFCSIM_NUM_PRIO; p++) {
		if (!(gen & BIT(p)))
			continue;
		due = ktime_to_ns(port->gen_since[p]) + NSEC_PER_MSEC *
		      ((port->warned & BIT(p)) ? port->prevent_ms :
		       pfcsim_prevent_warn_ms(port->prevent_ms));
		next = min(next, due);
	}
	due = max_t(s64, next - ktime_to_ns(now), 0);
	mod_delayed_work(system_wq, &port->prevent_work,
			 usecs_to_jiffies(div_u64(due, NSEC_PER_USEC)) + 1);
}

/* Warnings and timeouts that are due.  Process context. */
void pfcsim_prevent_work(struct work_struct *work)
{
	struct pfcsim_port *port = container_of(to_delayed_work(work),
						struct pfcsim_port,
						prevent_work);
	u8 stop = 0;
	ktime_t now;
	int p;

	spin_lock_bh(&port->lock);
	now = ktime_get();
	for (p = 0; p < PFCSIM_NUM_PRIO && port->prevent_ms; p++) {
		s64 ms;

		if (!(port->generating & BIT(p)))
			continue;
		ms = ktime_ms_delta(now, port->gen_since[p]);
		if (ms >= pfcsim_prevent_warn_ms(port->prevent_ms) &&
		    !(port->warned & BIT(p))) {
			port->warned |= BIT(p);
			port->storm_warnings++;
		}
		if (ms >= port->prevent_ms) {
			stop |= BIT(p);
			port->storm_errors++;
		}
	}
	if (stop) {
		pfcsim_fold(port, now);
		port->prevented |= stop;
		pfcsim_reconfigure(port);
	} else {
		pfcsim_prevent_arm(port, now);
	}
	spin_unlock_bh(&port->lock);
}

/*
 * Recomputes which counters rise and which queues are paused after an
 * input changed; pfcsim_fold(port, now) must have run before the change.
 */
void pfcsim_reconfigure(struct pfcsim_port *port)
{
	u8 ind = port->rx_storm | port->rx_slow_peer;

	lockdep_assert_held(&port->lock);
	if (!port->count_when_disabled)
		ind &= port->pfc_en;
	port->ind_rising = ind;
	port->req_rising = ((port->tx_storm & ~port->prevented) |
			    port->rx_slow) & port->pfc_en;
	port->dur_rising = (port->rx_storm | port->rx_slow_peer) & port->pfc_en;
	port->dur_slow = pfcsim_slow_prios(port) & port->pfc_en;
	pfcsim_apply_queues(port);
	pfcsim_prevent_arm(port, ktime_get());
}

/* --- data path ------------------------------------------------------------ */

/*
 * A frame's priority: its PCP if it is VLAN-tagged, else the lowest
 * priority of its queue's traffic class.  ring_lock held.
 */
static u8 pfcsim_tx_prio(const struct pfcsim_port *port, struct sk_buff *skb,
			 unsigned int qid)
{
	unsigned int tc = qid / port->channels;
	u16 tci;

	if (!vlan_get_tag(skb, &tci))
		return (tci & VLAN_PRIO_MASK) >> VLAN_PRIO_SHIFT;
	return tc < PFCSIM_NUM_PRIO ? port->tc_prio[tc] : 0;
}

/*
 * The TX queue of a frame, picked as mlx5 picks it: a VLAN-tagged frame
 * (tag in the skb or in the frame) goes to a queue of its PCP's traffic
 * class - the core's own pick, which follows skb->priority, saying which
 * one of them - and any other frame where the core puts it.  With
 * select_pcp 0, every frame goes where the core puts it.  Called by
 * dev_queue_xmit(), BH disabled; reads the traffic class layout as the
 * core does, without a lock (it changes under RTNL).
 */
static u16 pfcsim_select_queue(struct net_device *dev, struct sk_buff *skb,
			       struct net_device *sb_dev)
{
	const struct pfcsim_port *port = netdev_priv(dev);
	u16 qid = netdev_pick_tx(dev, skb, sb_dev);
	const struct netdev_tc_txq *tc;
	u16 tci;
	u8 pcp;

	if (!READ_ONCE(port->select_pcp) || netdev_get_num_tc(dev) <= 1 ||
	    vlan_get_tag(skb, &tci))
		return qid;
	pcp = (tci & VLAN_PRIO_MASK) >> VLAN_PRIO_SHIFT;
	tc = &dev->tc_to_txq[netdev_get_prio_tc_map(dev, pcp)];
	if (!tc->count)
		return qid;
	return tc->offset + qid % tc->count;
}

/*
 * A driver writes the ring of the queue an skb maps to, relying on that
 * queue's xmit lock: true unless the caller holds another (or none).
 * Counted and warned about once, so that a test sees it.  BH disabled.
 */
static bool pfcsim_tx_unlocked(struct pfcsim_port *port,
			       struct netdev_queue *txq, unsigned int qid)
{
	int owner = READ_ONCE(txq->xmit_lock_owner);

	if (likely(owner == smp_processor_id()))
		return false;
	netdev_WARN_ONCE(port->dev,
			 "xmit on TX queue %u without its lock (owner: CPU %d, here: %d)\n",
			 qid, owner, smp_processor_id());
	return true;
}

/*
 * Without rings, a frame leaves at once.  With rings, it is queued (its
 * length and priority; the skb is freed), counted by BQL, and the queue is
 * stopped once its ring is full; the drain timer sends it.  Called with
 * the queue's xmit lock held, BH disabled; takes ring_lock.
 */
static netdev_tx_t pfcsim_start_xmit(struct sk_buff *skb,
				     struct net_device *dev)
{
	struct pfcsim_port *port = netdev_priv(dev);
	unsigned int qid = skb_get_queue_mapping(skb);
	struct netdev_queue *txq;
	struct pfcsim_ring *ring;
	struct pfcsim_desc *d;
	bool unlocked;
	u8 prio;

	if (qid >= PFCSIM_MAX_TXQ)
		qid = 0;
	txq = netdev_get_tx_queue(dev, qid);
	ring = &port->ring[qid];
	unlocked = pfcsim_tx_unlocked(port, txq, qid);
	spin_lock(&port->ring_lock);
	if (unlikely(unlocked))
		port->tx_lock_errors++;
	if (port->ring_size && port->ring_live &&
	    ring->count >= port->ring_size) {
		/* Only a caller ignoring the stopped queue gets here. */
		port->tx_busy++;
		ring->stopped = true;
		netif_tx_stop_queue(txq);
		spin_unlock(&port->ring_lock);
		return NETDEV_TX_BUSY;
	}
	prio = pfcsim_tx_prio(port, skb, qid);
	if (!port->ring_size) {
		pfcsim_count_tx(port, prio, skb->len);
	} else if (!port->ring_live) {
		/* Going down or away: dropped, not counted. */
	} else {
		d = &port->desc[qid * port->ring_size +
				(ring->head + ring->count) % port->ring_size];
		d->len = skb->len;
		d->prio = prio;
		if (port->bql)
			netdev_tx_sent_queue(txq, skb->len);
		if (++ring->count == port->ring_size) {
			ring->stopped = true;
			netif_tx_stop_queue(txq);
		}
		pfcsim_drain_kick(port, !(port->ring_paused & BIT(qid)));
	}
	spin_unlock(&port->ring_lock);
	dev_kfree_skb_any(skb);
	return NETDEV_TX_OK;
}

/* Fills a frame's Ethernet header; returns where its payload goes. */
static void *pfcsim_rx_eth(struct sk_buff *skb, struct net_device *dev,
			   const struct pfcsim_rx_spec *spec)
{
	struct vlan_ethhdr *veth;
	struct ethhdr *eth;

	if (spec->kind == PFCSIM_RX_TAGGED) {
		veth = (struct vlan_ethhdr *)skb->data;
		ether_addr_copy(veth->h_dest, dev->dev_addr);
		ether_addr_copy(veth->h_source, pfcsim_peer_addr);
		veth->h_vlan_proto = htons(ETH_P_8021Q);
		veth->h_vlan_TCI = htons((u16)spec->prio << VLAN_PRIO_SHIFT);
		veth->h_vlan_encapsulated_proto = htons(ETH_P_802_EX1);
		return veth + 1;
	}
	eth = (struct ethhdr *)skb->data;
	ether_addr_copy(eth->h_dest, dev->dev_addr);
	ether_addr_copy(eth->h_source, pfcsim_peer_addr);
	eth->h_proto = htons(spec->kind == PFCSIM_RX_IPV4 ? ETH_P_IP :
			     ETH_P_IPV6);
	return eth + 1;
}

/* Writes an IPv4 or IPv6 header at @l3; returns where the payload goes. */
static void *pfcsim_rx_ip(void *l3, const struct pfcsim_rx_spec *spec,
			  unsigned int payload_len)
{
	struct ipv6hdr *ip6h;
	struct iphdr *iph;

	if (spec->kind == PFCSIM_RX_IPV4) {
		iph = l3;
		iph->version = 4;
		iph->ihl = sizeof(*iph) / 4;
		iph->tos = spec->dscp << 2;
		iph->tot_len = htons(sizeof(*iph) + payload_len);
		iph->ttl = 64;
		iph->protocol = PFCSIM_IP_PROTO;
		iph->saddr = htonl(0xc0000202);		/* 192.0.2.2 */
		iph->daddr = htonl(0xc0000201);		/* 192.0.2.1 */
		iph->check = ip_fast_csum(iph, iph->ihl);
		return iph + 1;
	}
	ip6h = l3;
	ip6_flow_hdr(ip6h, spec->dscp << 2, 0);
	ip6h->payload_len = htons(payload_len);
	ip6h->nexthdr = PFCSIM_IP_PROTO;
	ip6h->hop_limit = 64;
	ip6h->saddr.s6_addr[0] = 0x20;			/* 2001:db8::2 */
	ip6h->saddr.s6_addr[1] = 0x01;
	ip6h->saddr.s6_addr[2] = 0x0d;
	ip6h->saddr.s6_addr[3] = 0xb8;
	ip6h->daddr = ip6h->saddr;			/* 2001:db8::1 */
	ip6h->saddr.s6_addr[15] = 2;
	ip6h->daddr.s6_addr[15] = 1;
	return ip6h + 1;
}

/* Receives one frame; BH disabled, port->inject_lock held. */
static int pfcsim_rx_one(struct pfcsim_port *port,
			 const struct pfcsim_rx_spec *spec, u32 seq)
{
	struct net_device *dev = port->dev;
	struct pfcsim_rx_stats *st = &port->rx;
	struct sk_buff *skb;
	__be32 payload[3] = {
		htonl(PFCSIM_PKT_MAGIC), htonl(spec->prio), htonl(seq)
	};
	unsigned int len = PFCSIM_RX_FRAME_LEN;
	void *data;

	if (READ_ONCE(port->tx_storm)) {
		/* Receive path stalled: the frame never reaches the host. */
		u64_stats_update_begin(&st->syncp);
		u64_stats_inc(&st->dropped);
		u64_stats_update_end(&st->syncp);
		return 0;
	}

	if (spec->kind == PFCSIM_RX_IPV6)
		len = max_t(unsigned int, len, ETH_HLEN +
			    sizeof(struct ipv6hdr) + sizeof(payload));
	skb = netdev_alloc_skb(dev, len);
	if (!skb)
		return -ENOMEM;
	skb_put_zero(skb, len);
	data = pfcsim_rx_eth(skb, dev, spec);
	if (spec->kind != PFCSIM_RX_TAGGED)
		data = pfcsim_rx_ip(data, spec, sizeof(payload));
	/* After an 18-byte header: not 4-byte aligned. */
	memcpy(data, payload, sizeof(payload));
	skb->protocol = eth_type_trans(skb, dev);

	u64_stats_update_begin(&st->syncp);
	u64_stats_inc(&st->packets[spec->prio]);
	u64_stats_add(&st->bytes, len);
	u64_stats_update_end(&st->syncp);

	netif_receive_skb(skb);
	return 0;
}

/*
 * The priority of an untagged IP packet with DSCP @dscp: the highest the
 * device's DCB APP table gives it, else 0.  Process context.
 */
static u8 pfcsim_dscp_prio(struct net_device *dev, u8 dscp)
{
	struct dcb_ieee_app_dscp_map map;

	dcb_ieee_getapp_dscp_prio_mask_map(dev, &map);
	return map.map[dscp] ? fls(map.map[dscp]) - 1 : 0;
}

/* Process context, from the inject_rx write. */
int pfcsim_inject(struct pfcsim_port *port,
		  struct pfcsim_rx_spec *spec, u32 count)
{
	u32 done = 0, i, n;
	int err = 0;

	if (!netif_running(port->dev))
		return -ENETDOWN;
	if (spec->kind != PFCSIM_RX_TAGGED)
		spec->prio = pfcsim_dscp_prio(port->dev, spec->dscp);
	mutex_lock(&port->inject_lock);
	while (done < count) {
		if (READ_ONCE(port->dying)) {
			err = -ENODEV;
			break;
		}
		if (fatal_signal_pending(current)) {
			err = -EINTR;
			break;
		}
		n = min_t(u32, count - done, PFCSIM_INJECT_BATCH);
		local_bh_disable();
		for (i = 0; i < n && !err; i++)
			err = pfcsim_rx_one(port, spec, done + i);
		local_bh_enable();
		if (err)
			break;
		done += n;
		cond_resched();
	}
	mutex_unlock(&port->inject_lock);
	return err;
}

void pfcsim_read_tx(const struct pfcsim_queue_stats *st,
		    u64 *packets, u64 *bytes)
{
	unsigned int start;

	do {
		start = u64_stats_fetch_begin(&st->syncp);
		*packets = u64_stats_read(&st->packets);
		*bytes = u64_stats_read(&st->bytes);
	} while (u64_stats_fetch_retry(&st->syncp, start));
}

void pfcsim_read_rx(const struct pfcsim_rx_stats *st, u64 *packets,
		    u64 *bytes, u64 *dropped)
{
	unsigned int start;
	int p;

	do {
		start = u64_stats_fetch_begin(&st->syncp);
		for (p = 0; p < PFCSIM_NUM_PRIO; p++)
			packets[p] = u64_stats_read(&st->packets[p]);
		*bytes = u64_stats_read(&st->bytes);
		*dropped = u64_stats_read(&st->dropped);
	} while (u64_stats_fetch_retry(&st->syncp, start));
}

static void pfcsim_get_stats64(struct net_device *dev,
			       struct rtnl_link_stats64 *stats)
{
	struct pfcsim_port *port = netdev_priv(dev);
	u64 packets, bytes, dropped, rx[PFCSIM_NUM_PRIO];
	int p;

	for (p = 0; p < PFCSIM_NUM_PRIO; p++) {
		pfcsim_read_tx(&port->tx[p], &packets, &bytes);
		stats->tx_packets += packets;
		stats->tx_bytes += bytes;
	}
	pfcsim_read_rx(&port->rx, rx, &bytes, &dropped);
	for (p = 0; p < PFCSIM_NUM_PRIO; p++)
		stats->rx_packets += rx[p];
	stats->rx_bytes += bytes;
	stats->rx_dropped += dropped;
}

/* RTNL held. */
static int pfcsim_open(struct net_device *dev)
{
	struct pfcsim_port *port = netdev_priv(dev);

	spin_lock_bh(&port->lock);
	netif_tx_start_all_queues(dev);
	port->up = true;
	port->paused = 0;
	spin_lock(&port->ring_lock);
	port->ring_live = !port->ring_dead;
	spin_unlock(&port->ring_lock);
	pfcsim_apply_queues(port);
	/* Under a bounce, the bounce work turns the carrier on. */
	if (!pfcsim_bouncing(port, ktime_get()))
		netif_carrier_on(dev);
	spin_unlock_bh(&port->lock);
	return 0;
}

/* RTNL held; the qdiscs are already deactivated. */
static int pfcsim_stop(struct net_device *dev)
{
	struct pfcsim_port *port = netdev_priv(dev);

	spin_lock_bh(&port->lock);
	netif_carrier_off(dev);
	port->up = false;
	port->paused = 0;
	netif_tx_stop_all_queues(dev);
	spin_lock(&port->ring_lock);
	port->ring_live = false;
	pfcsim_rings_flush(port);
	spin_unlock(&port->ring_lock);
	spin_unlock_bh(&port->lock);
	pfcsim_drain_cancel(port);
	return 0;
}

const struct net_device_ops pfcsim_netdev_ops = {
	.ndo_open		= pfcsim_open,
	.ndo_stop		= pfcsim_stop,
	.ndo_start_xmit		= pfcsim_start_xmit,
	.ndo_select_queue	= pfcsim_select_queue,
	.ndo_get_stats64	= pfcsim_get_stats64,
	.ndo_set_mac_address	= eth_mac_addr,
	.ndo_validate_addr	= eth_validate_addr,
};
