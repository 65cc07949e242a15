// SPDX-License-Identifier: GPL-2.0
/*
 * pfcsim's TX rings (tx_ring) and their drain: the link sends the frames
 * queued in the rings at link_mbps, frame by frame, round robin among the
 * rings that have frames and whose traffic class is not paused, from
 * drain_timer; a frame counts in the per-priority TX counters when it
 * leaves its ring.  A class that a slow receiver paces (ring_slow) sends
 * at most slow_pct % of link_mbps: its own credit, beside the link's.
 * Each ring keeps BQL's count: each drain reports what it sent, per queue;
 * emptying the rings resets it.
 *
 * Locking and context:
 *  - port->ring_lock (a spinlock) protects the rings and their
 *    descriptors, ring_size, link_mbps, slow_pct (written with port->lock
 *    held too), ring_paused, ring_slow, ring_live, ring_dead, the drain
 *    state (draining, credit, slow_credit, drain_last, rr), tx_busy,
 *    tx_lock_errors, the per-priority TX counters (u64_stats: every writer
 *    holds ring_lock) and every BQL call of pfcsim.
 *    It nests inside port->lock and inside a TX queue's xmit lock; no other
 *    lock of pfcsim, nor an xmit lock, is taken under it
 *    (netif_tx_wake_queue, netif_schedule_queue, the BQL calls and
 *    hrtimer_start are called under it).  Process
 *    context takes it with BH disabled.  Every function here but
 *    pfcsim_drain_tick and pfcsim_drain_cancel is called with it held.
 *  - pfcsim_drain_tick (drain_timer, softirq) takes only ring_lock; it
 *    counts the frames that leave and wakes queues.  It re-arms itself
 *    while a ring that is not paused has frames; "draining" (ring_lock)
 *    says whether it is armed or running, and only a live port starts it
 *    (pfcsim_drain_kick).
 *  - pfcsim_drain_cancel runs in process context with no lock held
 *    (ndo_stop under RTNL, port deletion), once ring_live is cleared and
 *    the rings are empty.
 *
 * Calls no other file of pfcsim.
 */
#include <linux/bitops.h>
#include <linux/hrtimer.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/netdevice.h>
#include <linux/spinlock.h>
#include <linux/u64_stats_sync.h>

#include "pfcsim.h"

/* --- TX rings (ring_lock held) --------------------------------------------- */

/* Counts a frame that left the port.  ring_lock held. */
void pfcsim_count_tx(struct pfcsim_port *port, u8 prio, u32 len)
{
	struct pfcsim_queue_stats *st = &port->tx[prio];

	lockdep_assert_held(&port->ring_lock);
	u64_stats_update_begin(&st->syncp);
	u64_stats_inc(&st->packets);
	u64_stats_add(&st->bytes, len);
	u64_stats_update_end(&st->syncp);
}

/* The queues whose ring has frames and may send them. */
u32 pfcsim_rings_ready(const struct pfcsim_port *port)
{
	u32 ready = 0;
	int q;

	for (q = 0; q < port->num_txq; q++)
		if (port->ring[q].count)
			ready |= BIT(q);
	return ready & ~port->ring_paused;
}

/* Starts the drain timer if @ready and it is not running.  ring_lock held. */
void pfcsim_drain_kick(struct pfcsim_port *port, bool ready)
{
	lockdep_assert_held(&port->ring_lock);
	if (!ready || port->draining || !port->ring_live)
		return;
	port->draining = true;
	port->drain_last = ktime_get();
	port->credit = 0;
	memset(port->slow_credit, 0, sizeof(port->slow_credit));
	hrtimer_start(&port->drain_timer, ns_to_ktime(PFCSIM_DRAIN_TICK_NS),
		      HRTIMER_MODE_REL_SOFT);
}

/* Sends the oldest frame of ring @q on the link.  ring_lock held. */
static void pfcsim_ring_pop(struct pfcsim_port *port, unsigned int q)
{
	struct pfcsim_ring *ring = &port->ring[q];
	struct pfcsim_desc *d = &port->desc[q * port->ring_size + ring->head];
	s64 bits;

	ring->head = (ring->head + 1) % port->ring_size;
	ring->count--;
	ring->done++;
	ring->done_bytes += d->len;
	bits = (s64)(d->len + PFCSIM_WIRE_EXTRA) * BITS_PER_BYTE;
	port->credit -= bits;
	if (port->ring_slow & BIT(q))
		port->slow_credit[q / port->channels] -= bits;
	pfcsim_count_tx(port, d->prio, d->len);
	if (ring->stopped && ring->count <= port->ring_size / 2) {
		ring->stopped = false;
		netif_tx_wake_queue(netdev_get_tx_queue(port->dev, q));
	}
}

/*
 * Tells BQL what each ring sent since the last report: once per drain, as
 * a driver does once per completion interrupt (BQL sizes its limit from
 * what completes between two reports).  ring_lock held.
 */
static void pfcsim_rings_completed(struct pfcsim_port *port)
{
	struct netdev_queue *txq;
	struct pfcsim_ring *ring;
	unsigned int q;

	for (q = 0; q < PFCSIM_MAX_TXQ; q++) {
		ring = &port->ring[q];
		if (!ring->done)
			continue;
		txq = netdev_get_tx_queue(port->dev, q);
		if (port->bql)
			netdev_tx_completed_queue(txq, ring->done,
						  ring->done_bytes);
		ring->done = 0;
		ring->done_bytes = 0;
	}
}

/* The queues of traffic class @tc. */
static unsigned long pfcsim_tc_queues(const struct pfcsim_port *port,
				      unsigned int tc)
{
	return GENMASK((tc + 1) * port->channels - 1, tc * port->channels);
}

/*
 * Of the @ready rings, those that may send now: not those of a paced
 * class (ring_slow) that has used up its share.  ring_lock held.
 */
static unsigned long pfcsim_rings_sendable(const struct pfcsim_port *port,
					   unsigned long ready)
{
	unsigned int tc;

	for (tc = 0; tc * port->channels < port->num_txq; tc++)
		if (port->slow_credit[tc] <= 0)
			ready &= ~(port->ring_slow & pfcsim_tc_queues(port, tc));
	return ready;
}

/*
 * The link's time from the last drain to @now: it sent what that time
 * allows at link_mbps, one frame per ready ring in turn; a paced class
 * sends what slow_pct % of that time allows, in the short gaps between
 * its partner's pauses.  Returns the rings still ready (paced ones too,
 * out of credit or not).  ring_lock held.
 */
unsigned long pfcsim_drain_to(struct pfcsim_port *port, ktime_t now)
{
	unsigned long ready, send, slow;
	unsigned int q, tc;
	s64 ns, pace;

	lockdep_assert_held(&port->ring_lock);
	ns = ktime_to_ns(ktime_sub(now, port->drain_last));
	port->drain_last = now;
	ns = clamp_t(s64, ns, 0, PFCSIM_DRAIN_MAX_NS);
	port->credit += div_u64((u64)ns * port->link_mbps, 1000);
	pace = div_u64((u64)ns * port->link_mbps * port->slow_pct, 100 * 1000);
	for (tc = 0; port->ring_slow && tc < PFCSIM_NUM_PRIO; tc++)
		port->slow_credit[tc] += pace;
	ready = pfcsim_rings_ready(port);
	send = pfcsim_rings_sendable(port, ready);
	while (send && port->credit > 0) {
		q = find_next_bit(&send, PFCSIM_MAX_TXQ, port->rr);
		if (q >= PFCSIM_MAX_TXQ)
			q = find_first_bit(&send, PFCSIM_MAX_TXQ);
		pfcsim_ring_pop(port, q);
		if (!port->ring[q].count) {
			__clear_bit(q, &ready);
			__clear_bit(q, &send);
		}
		if (port->ring_slow & BIT(q))
			send = pfcsim_rings_sendable(port, send);
		port->rr = (q + 1) % PFCSIM_MAX_TXQ;
	}
	/* Time nothing could use is lost: neither link nor class saves it. */
	if (!send)
		port->credit = min_t(s64, port->credit, 0);
	slow = port->ring_slow;
	for (tc = 0; tc < PFCSIM_NUM_PRIO; tc++) {
		if (!(send & slow & pfcsim_tc_queues(port, tc)))
			port->slow_credit[tc] = min_t(s64, port->slow_credit[tc], 0);
		else
			port->slow_credit[tc] = min(port->slow_credit[tc], pace);
	}
	pfcsim_rings_completed(port);
	return ready;
}

/*
 * The drain timer (softirq): the link sends what the time since the last
 * tick allows; runs while a ring that is not paused has frames.
 */
enum hrtimer_restart pfcsim_drain_tick(struct hrtimer *timer)
{
	struct pfcsim_port *port = container_of(timer, struct pfcsim_port,
						drain_timer);
	enum hrtimer_restart ret = HRTIMER_RESTART;

	spin_lock(&port->ring_lock);
	if (pfcsim_drain_to(port, ktime_get())) {
		hrtimer_forward_now(timer, ns_to_ktime(PFCSIM_DRAIN_TICK_NS));
	} else {
		/* An idle link saves no credit for later. */
		port->credit = min_t(s64, port->credit, 0);
		port->draining = false;
		ret = HRTIMER_NORESTART;
	}
	spin_unlock(&port->ring_lock);
	return ret;
}

/*
 * Empties every ring without counting, and BQL's count of what is in
 * flight with it (a queue BQL had stopped is rescheduled, unless stopped
 * otherwise); returns the queues that were stopped because their ring was
 * full (no longer marked so).
 */
u32 pfcsim_rings_flush(struct pfcsim_port *port)
{
	struct netdev_queue *txq;
	u32 stopped = 0;
	int q;

	lockdep_assert_held(&port->ring_lock);
	for (q = 0; q < PFCSIM_MAX_TXQ; q++) {
		if (port->ring[q].stopped)
			stopped |= BIT(q);
		port->ring[q].head = 0;
		port->ring[q].count = 0;
		port->ring[q].stopped = false;
		port->ring[q].done = 0;
		port->ring[q].done_bytes = 0;
		txq = netdev_get_tx_queue(port->dev, q);
		netdev_tx_reset_queue(txq);
		if (port->ring_live)
			netif_schedule_queue(txq);
	}
	port->credit = 0;
	memset(port->slow_credit, 0, sizeof(port->slow_credit));
	return stopped;
}

/* Stops the drain timer of a port whose rings no longer live.  No lock. */
void pfcsim_drain_cancel(struct pfcsim_port *port)
{
	hrtimer_cancel(&port->drain_timer);
	spin_lock_bh(&port->ring_lock);
	port->draining = false;
	spin_unlock_bh(&port->ring_lock);
}
