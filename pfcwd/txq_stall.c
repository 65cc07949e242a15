// SPDX-License-Identifier: GPL-2.0
/*
 * Transmit stalls: a priority's TX queues stopped with no transmission
 * since, read from the queues themselves, as a pause signal that costs no
 * driver call and is never stale.
 *
 * A driver stops a TX queue when its ring is full (DRV_XOFF) and byte
 * queue limits stop it when completions stop (STACK_XOFF); a priority
 * paused by the link partner does both, since its ring cannot drain.  The
 * core stamps txq->trans_start (jiffies) on every frame a non-LLTX driver
 * accepts, which is what dev_watchdog() times its transmit timeout on.  So
 * a queue that is stopped now has sent nothing since its trans_start: that
 * is DESIGN's "no transmit progress", known at any moment and for free.
 *
 * Attribution: with a traffic-class map (num_tc > 0), priority P's traffic
 * goes to the queues of its class; a pause of P stops the class in the NIC,
 * so every queue of the class with traffic fills and stops.  P is stalled
 * when at least one real queue of its class is stopped, since the latest
 * transmission on any queue of the class (a queue of the class that still
 * sends means the class is not paused).  Without a map, or for an LLTX
 * driver (its trans_start is not the core's), there is no signal.
 *
 * Times: trans_start is a jiffy, and jiffies lag when ticks are late
 * (under emulation by several at once, caught up in one jump), so an old
 * stamp cannot be turned back into a time.  The poller looks at every
 * class with the signal once per quiet interval instead, and a frame
 * stamp it has not seen before dates the frame to that check: never
 * earlier than the frame, later by at most one check interval.  Frames
 * of the same jiffy may follow a check that saw the stamp while that
 * jiffy lasts, so until a check sees jiffies past the stamp each check
 * dates the stamp's last frame anew.
 * A queue stopped without a transmission just before (a driver stopping
 * it for its own reasons, or an idle queue whose last frame is old) would
 * look stalled since that old frame, so the poller remembers per class
 * when it last saw it running: a stall whose last transmission is older
 * than that is taken to begin when the poller first saw it stopped (late
 * by up to a check interval, never early).  And the last frame a queue
 * took is not when its class was paused: a saturated queue is stopped
 * with a full ring, which the link drains to half before the queue wakes,
 * so a pause may come up to that drain time after the last frame.  That
 * time (port->txq_drain_ns, from the ring size, MTU and link speed) is
 * added: a stall is never taken as longer than the pause behind it, and
 * may be taken as up to the drain time plus a check interval shorter
 * (pfcwd_txq_stall_err_ns()), or longer still by the time a ring that was
 * still filling when the pause came took to fill.
 *
 * Context: the poller, process context, RTNL held (the port's device is
 * valid); port->txq_running/txq_stopped are the poller's.  The queue
 * state and trans_start change without RTNL and are read once each.
 */
#include <linux/jiffies.h>
#include <linux/netdevice.h>

#include "pfcwd.h"

/* The driver transmits without the core's per-queue lock (LLTX). */
static bool pfcwd_txq_lltx(const struct net_device *dev)
{
#ifdef NETIF_F_LLTX
	return dev->features & NETIF_F_LLTX;
#else
	return dev->lltx;
#endif
}

/**
 * pfcwd_txq_stall_prios - the priorities the stall signal covers
 * @dev: the port's device
 *
 * Return: a mask of the priorities whose traffic class owns TX queues.
 */
u8 pfcwd_txq_stall_prios(const struct net_device *dev)
{
	int num_tc = READ_ONCE(dev->num_tc);
	u8 mask = 0;
	int p, tc;

	if (num_tc <= 0 || pfcwd_txq_lltx(dev))
		return 0;
	for (p = 0; p < PFCWD_NUM_PRIO; p++) {
		tc = netdev_get_prio_tc_map(dev, p);
		if (tc < num_tc && READ_ONCE(dev->tc_to_txq[tc].count))
			mask |= BIT(p);
	}
	return mask;
}

/*
 * How much shorter than it is a stall on @port may be taken to be, ns,
 * beyond the check interval (the quiet interval, which the caller adds).
 */
u64 pfcwd_txq_stall_err_ns(const struct pfcwd_port *port)
{
	return READ_ONCE(port->txq_drain_ns);
}

/*
 * Traffic class @tc: 0 if none of its queues is stopped, else when it may
 * have been paused at the earliest, in ns (at most @now).
 */
static u64 pfcwd_txq_stall_tc(struct pfcwd_port *port, int tc, u64 now)
{
	const struct net_device *dev = port->dev;
	unsigned int first = READ_ONCE(dev->tc_to_txq[tc].offset);
	unsigned int n = READ_ONCE(dev->tc_to_txq[tc].count);
	unsigned int real = READ_ONCE(dev->real_num_tx_queues), q;
	unsigned long latest = 0;
	bool stopped = false, any = false;

	real = min(real, dev->num_tx_queues);
	for (q = first; q < first + n && q < real; q++) {
		const struct netdev_queue *txq = netdev_get_tx_queue(dev, q);
		unsigned long ts = READ_ONCE(txq->trans_start);

		if (netif_xmit_stopped(txq))
			stopped = true;
		if (!any || time_after(ts, latest))
			latest = ts;
		any = true;
	}
	/*
	 * A frame stamp not seen before: the frame was sent by now.  While
	 * the stamp's jiffy has not ended, more frames can take the same
	 * stamp (a queue woken and stopped again between two checks), so
	 * the bound stays open and moves to each check until a check finds
	 * the jiffy over.  (Closed at the first check, a frame sent after
	 * it in the same jiffy was dated to it: a stall taken as begun
	 * before its pause, and a storm detected before T0; seen on 6.1,
	 * 0.5 ms early.)
	 */
	if (!port->txq_sent[tc] || port->txq_stamp[tc] != latest ||
	    (port->txq_open & BIT(tc))) {
		port->txq_stamp[tc] = latest;
		port->txq_sent[tc] = now;
		if (time_after(jiffies, latest))
			port->txq_open &= ~BIT(tc);
		else
			port->txq_open |= BIT(tc);
	}
	if (!stopped) {
		port->txq_running[tc] = now;
		port->txq_stopped[tc] = 0;
		return 0;
	}
	if (!port->txq_stopped[tc])
		port->txq_stopped[tc] = now;
	/* Stopped with no frame since it was last seen running. */
	if (port->txq_running[tc] &&
	    port->txq_sent[tc] <= port->txq_running[tc])
		return port->txq_stopped[tc];
	/* The link may have drained the ring after that frame: paused since. */
	return min(port->txq_sent[tc] + port->txq_drain_ns, now);
}

/**
 * pfcwd_txq_stall_read - which priorities cannot send, and since when
 * @port: the port; poller, device pinned
 * @now: the time, ns
 * @since: per priority, when its stall began (ns), 0 if not stalled
 *
 * Return: the priorities the signal covers (the others' @since is 0).
 */
u8 pfcwd_txq_stall_read(struct pfcwd_port *port, u64 now, u64 *since)
{
	struct net_device *dev = port->dev;
	u64 tc_since[TC_MAX_QUEUE];
	u16 done = 0;
	u8 mask;
	int p, tc;

	memset(since, 0, PFCWD_NUM_PRIO * sizeof(*since));
	mask = pfcwd_txq_stall_prios(dev);
	for (p = 0; p < PFCWD_NUM_PRIO; p++) {
		if (!(mask & BIT(p)))
			continue;
		tc = netdev_get_prio_tc_map(dev, p);
		if (tc >= TC_MAX_QUEUE)
			continue;
		if (!(done & BIT(tc))) {
			tc_since[tc] = pfcwd_txq_stall_tc(port, tc, now);
			done |= BIT(tc);
		}
		since[p] = tc_since[tc];
	}
	return mask;
}
