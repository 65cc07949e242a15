// SPDX-License-Identifier: GPL-2.0
/*
 * Actions: what pfcwd does when a priority's state machine says so, and
 * how it is undone.
 *
 *  drop     the datapath drops the priority's packets (qdisc, ingress
 *           hook) and the priority leaves the device's pfc_en, so pause is
 *           neither honoured nor sent for it;
 *  forward  the priority leaves pfc_en (pause no longer honoured), traffic
 *           keeps flowing;
 *  alert    counters and a log line only.
 * A generated (NIC-side) storm takes the priority out of pfc_en (unless the
 * action is alert) and latches.  Undoing puts back exactly the pfc_en bit
 * pfcwd cleared, re-reading pfc_en first so that an operator's changes to
 * other bits - or to this one - are never overwritten.
 *
 * pfc_en is the device lever (the only one over RDMA traffic, which
 * bypasses the qdisc), and on many drivers pulling it disrupts the whole
 * port (the profile's setpfc_disruptive: mlx5 toggles the link, i40e/ice
 * reconfigure every VSI, hns3 resets the netdev).  The port's
 * device-action decides: on - always; off - never, mitigation stays in the
 * datapath (qdisc and ingress hook); auto - where the profile says setpfc
 * is harmless and the counters keep counting while the bit is off (else
 * restoration would be blind), until pfcwd sees its own setpfc take the
 * carrier down
 * (pfcwd_action_carrier_lost(): at once, or from the link watch within
 * PFCWD_SETPFC_BOUNCE_NS), which is logged and shown.  Every pfc_en change
 * pfcwd makes is announced with dcbnl_ieee_notify() so DCBX agents see it.
 * A setpfc that fails changes nothing: clearing is then not applied (the
 * datapath still acts), putting a bit back is retried at every poll
 * until it succeeds or the operator changes the bit himself; failures are
 * counted (port->setpfc_errors) and logged.
 *
 * Every event is logged and sent to netlink listeners (nl_event.c).
 *
 * Context: process, with RTNL and port->lock held (the device is called).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/string.h>
#include <net/dcbnl.h>

#include "pfcwd.h"

/* A carrier loss this soon after pfcwd's own setpfc is taken as its doing. */
#define PFCWD_SETPFC_BOUNCE_NS	(2 * NSEC_PER_SEC)

static const char * const pfcwd_device_action_names[] = {
	[PFCWD_DEVICE_ACTION_AUTO] = "auto",
	[PFCWD_DEVICE_ACTION_ON] = "on",
	[PFCWD_DEVICE_ACTION_OFF] = "off",
};

const char *pfcwd_device_action_name(enum pfcwd_device_action da)
{
	return da < ARRAY_SIZE(pfcwd_device_action_names) ?
	       pfcwd_device_action_names[da] : "unknown";
}

/* Parses "auto", "on" or "off" (one trailing newline allowed). */
int pfcwd_device_action_parse(const char *buf, enum pfcwd_device_action *da)
{
	int i = sysfs_match_string(pfcwd_device_action_names, buf);

	if (i < 0)
		return -EINVAL;
	*da = i;
	return 0;
}

/**
 * pfcwd_action_device_pfc - may mitigation take priorities out of pfc_en?
 * @port: the port; port->lock held (or a racy read for display)
 */
bool pfcwd_action_device_pfc(const struct pfcwd_port *port)
{
	if (!port->has_dcb)
		return false;
	switch (port->cfg.device_action) {
	case PFCWD_DEVICE_ACTION_ON:
		return true;
	case PFCWD_DEVICE_ACTION_OFF:
		return false;
	default:
		/*
		 * Also not where the counters stop while the bit is off:
		 * restoration would be blind (ixgbe, which has no RDMA).
		 */
		return !port->profile->setpfc_disruptive &&
		       !port->profile->blind_when_off &&
		       !READ_ONCE(port->setpfc_hurts);
	}
}

static const char * const pfcwd_action_names[] = {
	[PFCWD_ACTION_DROP] = "drop",
	[PFCWD_ACTION_FORWARD] = "forward",
	[PFCWD_ACTION_ALERT] = "alert",
};

const char *pfcwd_action_name(enum pfcwd_action action)
{
	return action < ARRAY_SIZE(pfcwd_action_names) ?
	       pfcwd_action_names[action] : "unknown";
}

/* Parses "drop", "forward" or "alert" (one trailing newline allowed). */
int pfcwd_action_parse(const char *buf, enum pfcwd_action *action)
{
	int i = sysfs_match_string(pfcwd_action_names, buf);

	if (i < 0)
		return -EINVAL;
	*action = i;
	return 0;
}

/* "pfcwd: DEV ..." at KERN_NOTICE, rate limited per port. */
static __printf(2, 3) void pfcwd_log(struct pfcwd_port *port,
				     const char *fmt, ...)
{
	struct va_format vaf;
	va_list args;

	if (!__ratelimit(&port->log_rs))
		return;
	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	pr_notice("%s %pV", port->name, &vaf);
	va_end(args);
}

/* Sets or clears @prio's pfc_en bit; returns true if it changed it. */
static bool pfcwd_pfc_bit(struct pfcwd_port *port, int prio, bool on)
{
	const struct dcbnl_rtnl_ops *ops = port->dev->dcbnl_ops;
	struct net_device *dev = port->dev;
	struct ieee_pfc pfc = {};
	u8 bit = BIT(prio);
	bool carrier;
	int err;

	if (!port->has_dcb || ops->ieee_getpfc(dev, &pfc))
		return false;
	if (!!(pfc.pfc_en & bit) == on)
		return false;
	if (on)
		pfc.pfc_en |= bit;
	else
		pfc.pfc_en &= ~bit;
	carrier = netif_carrier_ok(dev);
	port->setpfc_at = ktime_get_ns();
	err = ops->ieee_setpfc(dev, &pfc);
	if (err) {
		port->setpfc_errors++;
		pfcwd_log(port, "prio %d: cannot %s PFC: %d\n", prio,
			  on ? "re-enable" : "disable", err);
		return false;
	}
	port->pfc_en = pfc.pfc_en;
	dcbnl_ieee_notify(dev, RTM_SETDCB, DCB_CMD_IEEE_SET, 0, 0);
	if (carrier && !netif_carrier_ok(dev))
		pfcwd_action_carrier_lost(port);
	return true;
}

/* Is @prio in the device's pfc_en now (as read back)? */
static bool pfcwd_pfc_on(struct pfcwd_port *port, int prio)
{
	struct ieee_pfc pfc = {};

	if (!port->has_dcb || port->dev->dcbnl_ops->ieee_getpfc(port->dev, &pfc))
		return false;
	return pfc.pfc_en & BIT(prio);
}

/**
 * pfcwd_action_carrier_lost - the carrier went down
 * @port: the port; port->lock held
 *
 * If that came right after pfcwd's own setpfc, device-action auto stops
 * using pfc_en on this port from now on.
 */
void pfcwd_action_carrier_lost(struct pfcwd_port *port)
{
	if (port->setpfc_hurts || !port->setpfc_at ||
	    ktime_get_ns() - port->setpfc_at > PFCWD_SETPFC_BOUNCE_NS)
		return;
	WRITE_ONCE(port->setpfc_hurts, true);
	pr_notice("%s: changing pfc_en took the link down: %s\n", port->name,
		  port->cfg.device_action == PFCWD_DEVICE_ACTION_AUTO ?
		  "device-action auto now mitigates in the datapath only" :
		  "device-action on keeps using it");
}

/**
 * pfcwd_action_retry - put back pfc_en bits whose restoration failed
 * @port: the port; RTNL and port->lock held, !port->dead
 */
void pfcwd_action_retry(struct pfcwd_port *port)
{
	int p;

	for (p = 0; p < PFCWD_NUM_PRIO; p++) {
		struct pfcwd_prio *pp = &port->prio[p];

		if (!pp->pfc_retry)
			continue;
		if (pfcwd_pfc_bit(port, p, true) || pfcwd_pfc_on(port, p)) {
			pp->pfc_retry = false;
			pp->pfc_cleared = false;
		}
	}
}

static void pfcwd_action_apply(struct pfcwd_port *port, int prio, bool tx)
{
	struct pfcwd_prio *pp = &port->prio[prio];
	enum pfcwd_action action = port->cfg.action;

	if (pp->mitigating)
		return;
	pp->mitigating = true;
	pp->applied = action;
	pp->tx_dropped_base = atomic64_read(&pp->tx_dropped);
	pp->rx_dropped_base = atomic64_read(&pp->rx_dropped);
	pp->tx_forwarded_base = atomic64_read(&pp->tx_forwarded);
	if (action == PFCWD_ACTION_ALERT)
		return;
	/*
	 * The datapath first: leaving pfc_en wakes the priority's TX queue,
	 * and what was queued must meet the action, not go out as before.
	 */
	if (!tx)
		WRITE_ONCE(pp->dp_action, action == PFCWD_ACTION_DROP ?
			   PFCWD_DP_DROP : PFCWD_DP_FORWARD);
	/* Software PFC: a band held by a pause is no longer held. */
	pfcwd_swpfc_kick(port);
	if (pp->pfc_retry)		/* still out of pfc_en, by pfcwd */
		pp->pfc_retry = false;
	else if (pfcwd_action_device_pfc(port))
		pp->pfc_cleared = pfcwd_pfc_bit(port, prio, false);
	/*
	 * Received packets of a dropping priority meet the ingress hook;
	 * after pfc_en, as registering it may patch code on every CPU.
	 */
	pfcwd_ingress_update(port);
}

/**
 * pfcwd_action_undo - end whatever pfcwd does on one priority
 * @port: the port; RTNL and port->lock held, !port->dead
 * @prio: the priority
 */
void pfcwd_action_undo(struct pfcwd_port *port, int prio)
{
	struct pfcwd_prio *pp = &port->prio[prio];

	WRITE_ONCE(pp->dp_action, PFCWD_DP_NORMAL);
	if (pp->mitigating)
		pfcwd_action_last(pp, &pp->last_tx_dropped,
				  &pp->last_rx_dropped, &pp->last_tx_forwarded);
	if (pp->pfc_cleared && !pfcwd_pfc_bit(port, prio, true) &&
	    !pfcwd_pfc_on(port, prio) && !port->dead) {
		/* Left as it is: retried at every poll (pfcwd_action_retry). */
		pp->pfc_retry = true;
	} else {
		pp->pfc_cleared = false;
		pp->pfc_retry = false;
	}
	pp->mitigating = false;
	/* After pfc_en: the hook's removal may patch code on every CPU. */
	pfcwd_ingress_update(port);
}

/**
 * pfcwd_action_forget - undo and forget everything about some priorities
 * @port: the port; RTNL and port->lock held, !port->dead
 * @prios: the priorities, a bitmask
 *
 * Their state machines go back to OPERATIONAL silently; their counters
 * stay.
 */
void pfcwd_action_forget(struct pfcwd_port *port, u8 prios)
{
	int p;

	for (p = 0; p < PFCWD_NUM_PRIO; p++) {
		if (!(prios & BIT(p)))
			continue;
		pfcwd_action_undo(port, p);
		pfcwd_storm_forget(&port->prio[p].sm);
	}
}

/**
 * pfcwd_action_last - what the last storm dropped and forwarded
 * @pp: the priority; port->lock held
 * @tx_dropped: set to the packets dropped on transmit
 * @rx_dropped: set to the packets dropped on receive
 * @tx_forwarded: set to the packets forwarded
 *
 * For a storm in progress, so far; otherwise the last one that ended.
 */
void pfcwd_action_last(const struct pfcwd_prio *pp, u64 *tx_dropped,
		       u64 *rx_dropped, u64 *tx_forwarded)
{
	if (!pp->mitigating) {
		*tx_dropped = pp->last_tx_dropped;
		*rx_dropped = pp->last_rx_dropped;
		*tx_forwarded = pp->last_tx_forwarded;
		return;
	}
	*tx_dropped = atomic64_read(&pp->tx_dropped) - pp->tx_dropped_base;
	*rx_dropped = atomic64_read(&pp->rx_dropped) - pp->rx_dropped_base;
	*tx_forwarded = atomic64_read(&pp->tx_forwarded) - pp->tx_forwarded_base;
}

/**
 * pfcwd_action_clear_stats - zero a priority's counters
 * @pp: the priority; port->lock held
 *
 * A storm in progress counts on from zero.
 */
void pfcwd_action_clear_stats(struct pfcwd_prio *pp)
{
	pfcwd_storm_clear_stats(&pp->sm);
	atomic64_set(&pp->tx_dropped, 0);
	atomic64_set(&pp->rx_dropped, 0);
	atomic64_set(&pp->tx_forwarded, 0);
	pp->tx_dropped_base = 0;
	pp->rx_dropped_base = 0;
	pp->tx_forwarded_base = 0;
	pp->last_tx_dropped = 0;
	pp->last_rx_dropped = 0;
	pp->last_tx_forwarded = 0;
}

static u32 pfcwd_ms(u64 ns)
{
	return div_u64(ns, NSEC_PER_MSEC);
}

static void pfcwd_log_restored(struct pfcwd_port *port, int prio,
			       const char *how)
{
	struct pfcwd_prio *pp = &port->prio[prio];

	pfcwd_log(port,
		  "prio %d: PFC storm restored%s after %u ms (tx dropped %llu, rx dropped %llu)\n",
		  prio, how, pfcwd_ms(pp->sm.stats.last_storm_ns),
		  pp->last_tx_dropped, pp->last_rx_dropped);
}

/**
 * pfcwd_action_events - carry out what a sample of @prio produced
 * @port: the port; RTNL and port->lock held, !port->dead
 * @prio: the priority
 * @events: PFCWD_EV_* from pfcwd_storm_sample()
 */
void pfcwd_action_events(struct pfcwd_port *port, int prio,
			 unsigned int events)
{
	struct pfcwd_prio *pp = &port->prio[prio];
	const struct pfcwd_storm_stats *st = &pp->sm.stats;

	if (events & PFCWD_EV_RESTORED) {
		pfcwd_action_undo(port, prio);
		pfcwd_storm_undone(&pp->sm, ktime_get_ns());
		pfcwd_log_restored(port, prio, "");
		pfcwd_nl_event(port, prio, PFCWD_CMD_STORM_RESTORED,
			       st->last_restored_at);
	}
	if (events & PFCWD_EV_DETECTED) {
		pfcwd_action_apply(port, prio, false);
		pfcwd_log(port,
			  "prio %d: PFC storm detected, action %s (paused %u ms)\n",
			  prio, pfcwd_action_name(pp->applied),
			  pfcwd_ms(st->last_paused_ns));
		pfcwd_nl_event(port, prio, PFCWD_CMD_STORM_DETECTED,
			       st->last_detected_at);
	}
	if (events & PFCWD_EV_TX_STORM) {
		pfcwd_action_apply(port, prio, true);
		pfcwd_log(port,
			  "prio %d: PFC storm generated by this port (pause sent, nothing received), %s\n",
			  prio, pp->applied == PFCWD_ACTION_ALERT ?
			  "alert only" : "pause generation stopped");
		pfcwd_nl_event(port, prio, PFCWD_CMD_TX_STORM, ktime_get_ns());
	}
	if (events & PFCWD_EV_LATCHED)
		pfcwd_log(port,
			  "prio %d: latched (%s): lossless operation waits for an operator\n",
			  prio, pfcwd_latch_name(pp->sm.latch));
	if (events & PFCWD_EV_SLOW) {
		pfcwd_log(port,
			  "prio %d: slow receiver: sending more than %u pause frames/s\n",
			  prio, READ_ONCE(pfcwd_params.slow_threshold));
		pfcwd_nl_event(port, prio, PFCWD_CMD_SLOW_RECEIVER,
			       ktime_get_ns());
	}
}

/**
 * pfcwd_action_restore - an operator restores stormed or latched priorities
 * @port: the port; RTNL and port->lock held, !port->dead
 * @prios: the priorities
 *
 * Return: how many were restored.
 */
int pfcwd_action_restore(struct pfcwd_port *port, u8 prios)
{
	u64 now = ktime_get_ns();
	int p, n = 0;

	for (p = 0; p < PFCWD_NUM_PRIO; p++) {
		if (!(prios & BIT(p)) || !pfcwd_storm_restore(&port->prio[p].sm, now))
			continue;
		pfcwd_action_undo(port, p);
		pfcwd_log_restored(port, p, " by hand");
		pfcwd_nl_event(port, p, PFCWD_CMD_STORM_RESTORED, now);
		n++;
	}
	return n;
}
