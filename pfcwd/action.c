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
 * other bits - or to this one - are never overwritten.  A stormed
 * priority that another agent puts back while the storm lasts is taken
 * out again (pfcwd_action_pfc_read()).
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
 *
 * pfc_en changes are batched and rate-limited: mitigation and undoing only
 * say which bits pfcwd wants out (port->pfc_want_off); a commit at the end
 * of a poll pass (or of an operator's request) writes all of them with one
 * getpfc and one setpfc.  Taking bits out is mitigation and never waits;
 * putting them back waits while the port's write budget is spent (a burst
 * of PFCWD_PFC_BURST, then one per PFCWD_PFC_GAP_NS) and, after a failure,
 * for a back-off doubling per failure in a row up to PFCWD_PFC_GAP_MAX_NS,
 * so a flapping peer or a failing driver costs the device at most about
 * ten writes a second.  The datapath is not held back.  A setpfc
 * that fails changes nothing: clearing is then not applied (the datapath
 * still acts), putting a bit back is retried after the gap until it
 * succeeds or the operator changes the bit himself; failures are counted
 * (port->setpfc_errors) and logged.
 *
 * Every event is logged and published to the listeners subscribed in
 * pfcwd_listeners[] (pfcwd_action_listen(): the netlink events of
 * nl_event.c, and the qdisc's band queues, told to drop what is queued
 * when a drop starts), and every storm is recorded in its priority's
 * history ring (history.c): begun at detection, ended with how it ended.
 * A port's own events (added, removed, configuration changed, setpfc
 * failed or fallen back, source blind) go the same way, through
 * pfcwd_action_port_event(), from here and from the layers above.
 * Events go one way: this file calls no listener by name.
 *
 * Context: process, with RTNL and port->lock held (the device is called);
 * the listeners are called in that same context, where the direct calls
 * were.  pfcwd_action_pfc_due() calls no device and needs port->lock
 * only; pfcwd_action_pfc_read() needs RTNL too (following pfc_en may
 * forget priorities, which undoes them).  pfcwd_listeners[] is written
 * only at module load, before any port exists, and at unload, after the
 * last one went (main.c): no emitter runs while it changes, so it needs no
 * lock (READ_ONCE and WRITE_ONCE only say it is shared).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/string.h>
#include <net/dcbnl.h>

#include "pfcwd.h"
#include "prio_list.h"

/* A carrier loss this soon after pfcwd's own setpfc is taken as its doing. */
#define PFCWD_SETPFC_BOUNCE_NS	(2 * NSEC_PER_SEC)

static const struct pfcwd_action_listener *pfcwd_listeners[PFCWD_LISTENERS];

/**
 * pfcwd_action_listen - subscribe (or, with @l NULL, unsubscribe) a listener
 * @slot: its slot
 * @l: what it listens with; NULL callbacks are not called
 *
 * Module load and unload only, while no port exists (see above).
 */
void pfcwd_action_listen(enum pfcwd_listener slot,
			 const struct pfcwd_action_listener *l)
{
	WRITE_ONCE(pfcwd_listeners[slot], l);
}

/**
 * pfcwd_action_port_event - tell every listener what happened to a port
 * @port: the port; RTNL and port->lock held, !port->dead
 * @cmd: PFCWD_CMD_PORT_ADDED, _PORT_REMOVED, _CONFIG_CHANGED,
 *	_SETPFC_FAILED, _SETPFC_FALLBACK or _SOURCE_BLIND
 * @ev: what the event carries beside the port, or NULL
 *
 * The layers above the actions (lifecycle, configuration, the poller)
 * publish through here too, so that listeners hear one stream.
 */
void pfcwd_action_port_event(struct pfcwd_port *port, u8 cmd,
			     const struct pfcwd_port_event *ev)
{
	static const struct pfcwd_port_event none;
	const struct pfcwd_action_listener *l;
	int i;

	ASSERT_RTNL();
	lockdep_assert_held(&port->lock);
	for (i = 0; i < PFCWD_LISTENERS; i++) {
		l = READ_ONCE(pfcwd_listeners[i]);
		if (l && l->port_event)
			l->port_event(port, cmd, ev ? ev : &none);
	}
}

/* An event of @prio to every listener; RTNL and port->lock held. */
static void pfcwd_publish(struct pfcwd_port *port, int prio, u8 cmd, u64 when)
{
	const struct pfcwd_action_listener *l;
	int i;

	for (i = 0; i < PFCWD_LISTENERS; i++) {
		l = READ_ONCE(pfcwd_listeners[i]);
		if (l && l->event)
			l->event(port, prio, cmd, when);
	}
}

/* A pause-rate event of @prio, direction @dir; RTNL and port->lock held. */
static void pfcwd_publish_rate(struct pfcwd_port *port, int prio, int dir)
{
	const struct pfcwd_action_listener *l;
	int i;

	for (i = 0; i < PFCWD_LISTENERS; i++) {
		l = READ_ONCE(pfcwd_listeners[i]);
		if (l && l->rate_event)
			l->rate_event(port, prio, dir);
	}
}

/* A drop starts on @port: drop what is queued; RTNL and port->lock held. */
static void pfcwd_publish_drop(struct pfcwd_port *port)
{
	const struct pfcwd_action_listener *l;
	int i;

	for (i = 0; i < PFCWD_LISTENERS; i++) {
		l = READ_ONCE(pfcwd_listeners[i]);
		if (l && l->drop_queued)
			l->drop_queued(port->dev);
	}
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
		/*
		 * Nor where stopped TX queues are all pfcwd sees: with the bit
		 * off the queues drain and the signal is gone.
		 */
		return !port->profile->setpfc_disruptive &&
		       !port->profile->blind_when_off &&
		       pfcwd_port_source(port) != PFCWD_SOURCE_TXQ &&
		       !READ_ONCE(port->setpfc_hurts);
	}
}

/**
 * pfcwd_action_port_lever - what a storm's mitigation acts through now
 * @port: the port; port->lock held (or a racy read for display)
 *
 * Under the port's own action; a priority's may differ.
 */
enum pfcwd_lever pfcwd_action_port_lever(const struct pfcwd_port *port)
{
	if (port->cfg.action == PFCWD_ACTION_ALERT)
		return PFCWD_LEVER_NONE;
	return pfcwd_action_device_pfc(port) ? PFCWD_LEVER_PFC_EN :
					       PFCWD_LEVER_DATAPATH;
}

/**
 * pfcwd_action_lever - what @prio's mitigation acts through
 * @port: the port; port->lock held (or a racy read for display)
 * @prio: the priority
 *
 * The storm in progress: what it took; otherwise what the next would.
 */
enum pfcwd_lever pfcwd_action_lever(const struct pfcwd_port *port, int prio)
{
	const struct pfcwd_prio *pp = &port->prio[prio];
	bool pfc_en;

	if (pp->mitigating) {
		if (pp->applied == PFCWD_ACTION_ALERT)
			return PFCWD_LEVER_NONE;
		pfc_en = port->pfc_want_off & BIT(prio);
	} else {
		if (pfcwd_cfg_prio_action(&port->cfg, prio) ==
		    PFCWD_ACTION_ALERT)
			return PFCWD_LEVER_NONE;
		pfc_en = pfcwd_action_device_pfc(port);
	}
	return pfc_en ? PFCWD_LEVER_PFC_EN : PFCWD_LEVER_DATAPATH;
}

/*
 * On a NIC where auto stays out of pfc_en because changing it disrupts the
 * port, RDMA is not covered by default: say so once, when the port comes.
 * RTNL held, at creation.
 */
void pfcwd_action_announce(const struct pfcwd_port *port)
{
	const struct pfcwd_profile *pr = port->profile;

	if (!port->has_dcb || !pr->setpfc_cost ||
	    port->cfg.device_action != PFCWD_DEVICE_ACTION_AUTO ||
	    pfcwd_action_device_pfc(port))
		return;
	pr_notice("%s: device-action auto mitigates kernel traffic only: RoCE on a stormed priority stays paused unless device-action on, which costs on %s: %s\n",
		  port->name, pr->name, pr->setpfc_cost);
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

/*
 * pfcwd's pfc_en writes on one port: a budget of PFCWD_PFC_BURST writes,
 * one more every PFCWD_PFC_GAP_NS; after a failure, the next attempt
 * waits PFCWD_PFC_GAP_NS, doubling per failure in a row, at most
 * PFCWD_PFC_GAP_MAX_NS.
 */
#define PFCWD_PFC_BURST		4
#define PFCWD_PFC_GAP_NS	(100 * NSEC_PER_MSEC)
#define PFCWD_PFC_GAP_MAX_NS	(1600 * NSEC_PER_MSEC)

/* Writes the budget allows at @now, and how many gaps refilled it. */
static u32 pfcwd_pfc_budget(const struct pfcwd_port *port, u64 now,
			    u64 *gaps)
{
	u64 n = now > port->pfc_budget_at ?
		div64_u64(now - port->pfc_budget_at, PFCWD_PFC_GAP_NS) : 0;

	if (gaps)
		*gaps = n;
	return min_t(u64, port->pfc_budget + n, PFCWD_PFC_BURST);
}

/* Spends one write of the budget (none left: spends nothing). */
static void pfcwd_pfc_spend(struct pfcwd_port *port, u64 now)
{
	u64 gaps;
	u32 b = pfcwd_pfc_budget(port, now, &gaps);

	if (b == PFCWD_PFC_BURST)
		port->pfc_budget_at = now;	/* full: the refill starts now */
	else
		port->pfc_budget_at += gaps * PFCWD_PFC_GAP_NS;
	port->pfc_budget = b ? b - 1 : 0;
}

/**
 * pfcwd_action_pfc_due - when the pending pfc_en write may be made
 * @port: the port; port->lock held
 * @now: the time, ns
 *
 * Return: U64_MAX if no write is pending; otherwise the time (ns) from
 * which pfcwd_action_commit() makes it.  Taking priorities out of pfc_en
 * is mitigation and is due at once; putting them back, or taking out again
 * what another agent put back (pfcwd_action_pfc_read()), waits for the
 * budget, or for the back-off after failures.
 */
u64 pfcwd_action_pfc_due(const struct pfcwd_port *port, u64 now)
{
	u8 clear = port->pfc_want_off & ~port->pfc_off;
	u64 gaps, backoff;

	if (clear & ~port->pfc_retake)
		return 0;
	if (!clear && !(port->pfc_off & ~port->pfc_want_off))
		return U64_MAX;
	if (port->pfc_fails) {
		backoff = PFCWD_PFC_GAP_NS << min_t(u32, port->pfc_fails - 1, 4);
		return port->pfc_tried_at + min_t(u64, backoff,
						  PFCWD_PFC_GAP_MAX_NS);
	}
	if (pfcwd_pfc_budget(port, now, &gaps))
		return 0;
	return port->pfc_budget_at + (gaps + 1) * PFCWD_PFC_GAP_NS;
}

/*
 * Priorities nobody gave (cfg.prios_follow) are pfc_en's: DCB configured
 * after the port was made is watched.  A bit pfcwd took out stays
 * watched, its storm still pfcwd's; a priority the operator took out of
 * PFC is no longer lossless, so it is forgotten (restored).
 */
static void pfcwd_action_follow_pfc_en(struct pfcwd_port *port, u8 pfc_en)
{
	char was[PFCWD_PRIO_LIST_LEN], now[PFCWD_PRIO_LIST_LEN];
	struct pfcwd_config *cfg = &port->cfg;
	u8 want = pfc_en | port->pfc_off;

	if (!cfg->prios_follow || want == cfg->prios)
		return;
	pfcwd_prio_list_format(cfg->prios, was, sizeof(was));
	pfcwd_prio_list_format(want, now, sizeof(now));
	pfcwd_log(port, "watched priorities follow pfc_en: %s -> %s\n",
		  cfg->prios ? was : "none", want ? now : "none");
	pfcwd_action_forget(port, cfg->prios & ~want, PFCWD_HIST_UNWATCHED);
	cfg->prios = want;
	pfcwd_swpfc_set_honour(port, want);
	pfcwd_action_port_event(port, PFCWD_CMD_CONFIG_CHANGED, NULL);
}

/**
 * pfcwd_action_pfc_read - the poller read the device's pfc_en
 * @port: the port; RTNL and port->lock held
 * @pfc_en: what the read found
 * @read_at: when, ns (RTNL held, right after the getpfc)
 *
 * A priority pfcwd took out for a storm still in progress that is found
 * back in pfc_en was put back by another agent (a DCBX agent, the NIC's
 * firmware, an operator with dcb; none of them tells pfcwd): the fabric
 * is exposed again, so it is taken out again at the next commit, within
 * the write budget, so that an agent that keeps putting it back costs the
 * device no more writes than pfcwd's own.  Counted each time, logged once
 * per storm; an operator who wants it back uses pfcwd restore.  A read
 * made before pfcwd's last write says nothing of it: ignored.  RTNL held
 * too: a port whose priorities follow pfc_en may forget some.
 */
void pfcwd_action_pfc_read(struct pfcwd_port *port, u8 pfc_en, u64 read_at)
{
	struct pfcwd_prio *pp;
	u8 back;
	int p;

	if (port->pfc_tried_at > read_at)
		return;
	WRITE_ONCE(port->pfc_en, pfc_en);
	pfcwd_action_follow_pfc_en(port, pfc_en);
	back = pfc_en & port->pfc_off & port->pfc_want_off;
	if (!back)
		return;
	port->pfc_off &= ~back;
	port->pfc_retake |= back;
	for (p = 0; p < PFCWD_NUM_PRIO; p++) {
		if (!(back & BIT(p)))
			continue;
		pp = &port->prio[p];
		pp->pfc_reenabled++;
		if (pp->reenable_logged)
			continue;
		pp->reenable_logged = true;
		pfcwd_log(port,
			  "prio %d: pfc_en set again by another agent during a storm, taken out again\n",
			  p);
	}
}

/*
 * pfcwd_action_commit - bring the device's pfc_en to what mitigation wants
 * @port: the port; RTNL and port->lock held
 * @at_once: write even if the write budget is spent (an
 *	operator's request, configuration, teardown)
 *
 * All the changes of one poll pass go to the device in one getpfc and one
 * setpfc.  Bits are only ever changed from what the device says now: a
 * bit to clear that is already off was not pfcwd's to clear; a bit to put
 * back that is already on was put back by someone else.  A failed clear
 * is not retried (the datapath still acts); a failed put-back is retried
 * when the budget allows, unless @at_once (then the port is going away or the
 * operator is told through setpfc_errors and the log).
 */
static void pfcwd_action_commit(struct pfcwd_port *port, bool at_once)
{
	const struct dcbnl_rtnl_ops *ops = port->dev->dcbnl_ops;
	struct net_device *dev = port->dev;
	struct pfcwd_port_event ev = {};
	struct ieee_pfc pfc = {};
	char list[PFCWD_PRIO_LIST_LEN];
	u64 t = ktime_get_ns();
	u8 clear, set;
	bool carrier;
	int err;

	if (!at_once && pfcwd_action_pfc_due(port, t) > t)
		return;
	clear = port->pfc_want_off & ~port->pfc_off;
	set = port->pfc_off & ~port->pfc_want_off;
	if (!clear && !set)
		return;
	if (!port->has_dcb) {
		port->pfc_want_off = 0;
		port->pfc_off = 0;
		return;
	}
	port->pfc_tried_at = ktime_get_ns();
	pfcwd_pfc_spend(port, port->pfc_tried_at);
	err = ops->ieee_getpfc(dev, &pfc);
	if (err)
		goto failed;
	/* Not pfcwd's to clear, or put back by someone else. */
	port->pfc_want_off &= ~(clear & ~pfc.pfc_en);
	port->pfc_off &= ~(set & pfc.pfc_en);
	clear &= pfc.pfc_en;
	set &= ~pfc.pfc_en;
	if (!clear && !set)
		return;
	pfc.pfc_en = (pfc.pfc_en & ~clear) | set;
	carrier = netif_carrier_ok(dev);
	port->setpfc_at = port->pfc_tried_at;
	err = ops->ieee_setpfc(dev, &pfc);
	if (err)
		goto failed;
	port->pfc_off = (port->pfc_off | clear) & ~set;
	port->pfc_retake &= ~clear;
	port->pfc_fails = 0;
	WRITE_ONCE(port->pfc_en, pfc.pfc_en);
	dcbnl_ieee_notify(dev, RTM_SETDCB, DCB_CMD_IEEE_SET, 0, 0);
	if (carrier && !netif_carrier_ok(dev))
		pfcwd_action_carrier_lost(port, ktime_get_ns());
	return;

failed:
	port->setpfc_errors++;
	port->pfc_fails++;
	ev.err = err;
	ev.prios = clear | set;
	pfcwd_action_port_event(port, PFCWD_CMD_SETPFC_FAILED, &ev);
	if (clear) {
		pfcwd_prio_list_format(clear, list, sizeof(list));
		pfcwd_log(port, "prio %s: cannot disable PFC: %d\n", list, err);
	}
	if (set) {
		pfcwd_prio_list_format(set, list, sizeof(list));
		pfcwd_log(port, "prio %s: cannot re-enable PFC: %d%s\n", list,
			  err, at_once ? "" : ", will retry");
	}
	/* Mitigation stays in the datapath. */
	port->pfc_want_off &= ~clear;
	if (at_once)
		port->pfc_off &= ~set;
}

/**
 * pfcwd_action_carrier_lost - the carrier went down
 * @port: the port; port->lock held
 * @at: when, ns
 *
 * If that came right after pfcwd's own setpfc, device-action auto stops
 * using pfc_en on this port from now on.
 */
void pfcwd_action_carrier_lost(struct pfcwd_port *port, u64 at)
{
	if (port->setpfc_hurts || !port->setpfc_at || at < port->setpfc_at ||
	    at - port->setpfc_at > PFCWD_SETPFC_BOUNCE_NS)
		return;
	WRITE_ONCE(port->setpfc_hurts, true);
	pr_notice("%s: changing pfc_en took the link down: %s\n", port->name,
		  port->cfg.device_action == PFCWD_DEVICE_ACTION_AUTO ?
		  "device-action auto now mitigates in the datapath only" :
		  "device-action on keeps using it");
	if (port->cfg.device_action == PFCWD_DEVICE_ACTION_AUTO)
		pfcwd_action_port_event(port, PFCWD_CMD_SETPFC_FALLBACK, NULL);
}

static void pfcwd_action_apply(struct pfcwd_port *port, int prio, bool tx)
{
	struct pfcwd_prio *pp = &port->prio[prio];
	enum pfcwd_action action = pfcwd_cfg_prio_action(&port->cfg, prio);

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
	if (!tx) {
		WRITE_ONCE(pp->dp_action, action == PFCWD_ACTION_DROP ?
			   PFCWD_DP_DROP : PFCWD_DP_FORWARD);
		/* What is queued behind a queue that stays stopped, too. */
		if (action == PFCWD_ACTION_DROP)
			pfcwd_publish_drop(port);
	}
	/* Software PFC: a band held by a pause is no longer held. */
	pfcwd_swpfc_kick(port);
	/*
	 * Out of pfc_en at the next commit, with every other change of the
	 * pass - or kept out if its put-back is still pending.
	 */
	if ((port->pfc_off & BIT(prio)) || pfcwd_action_device_pfc(port))
		port->pfc_want_off |= BIT(prio);
}

/*
 * Ends whatever pfcwd does on one priority; its pfc_en bit goes back at
 * the next commit.  RTNL and port->lock held, !port->dead.
 */
static void pfcwd_action_undo(struct pfcwd_port *port, int prio)
{
	struct pfcwd_prio *pp = &port->prio[prio];

	WRITE_ONCE(pp->dp_action, PFCWD_DP_NORMAL);
	if (pp->mitigating)
		pfcwd_action_last(pp, &pp->last_tx_dropped,
				  &pp->last_rx_dropped, &pp->last_tx_forwarded);
	port->pfc_want_off &= ~BIT(prio);
	port->pfc_retake &= ~BIT(prio);
	pp->reenable_logged = false;
	pp->mitigating = false;
}

/*
 * The history record of the storm in progress on @prio ends at @now, @why,
 * with what the storm dropped and forwarded (pfcwd_action_undo() left
 * them in last_*).  port->lock held.
 */
static void pfcwd_action_hist_end(struct pfcwd_port *port, int prio,
				  enum pfcwd_hist_end why, u64 now)
{
	struct pfcwd_prio *pp = &port->prio[prio];

	pfcwd_hist_storm_end(&pp->storms, now, why, pp->last_tx_dropped,
			     pp->last_rx_dropped, pp->last_tx_forwarded);
}

/*
 * pfc_en first, then the ingress hook: registering or removing it may
 * patch code on every CPU.  RTNL and port->lock held, !port->dead.
 */
static void pfcwd_action_flush(struct pfcwd_port *port, bool at_once)
{
	pfcwd_action_commit(port, at_once);
	pfcwd_ingress_update(port);
}

/**
 * pfcwd_action_undo_all - end everything pfcwd does on the port, now
 * @port: the port; RTNL and port->lock held, !port->dead
 *
 * pfc_en bits go back at once; one that cannot is left to the operator
 * (logged, counted).
 */
void pfcwd_action_undo_all(struct pfcwd_port *port)
{
	u64 now = ktime_get_ns();
	int p;

	for (p = 0; p < PFCWD_NUM_PRIO; p++) {
		pfcwd_action_undo(port, p);
		pfcwd_action_hist_end(port, p, PFCWD_HIST_REMOVED, now);
	}
	pfcwd_action_flush(port, true);
}

/**
 * pfcwd_action_forget - undo and forget everything about some priorities
 * @port: the port; RTNL and port->lock held, !port->dead
 * @prios: the priorities, a bitmask
 * @why: how a storm in progress ends, for the history
 *
 * Their state machines go back to OPERATIONAL silently; their counters
 * stay.
 */
void pfcwd_action_forget(struct pfcwd_port *port, u8 prios,
			 enum pfcwd_hist_end why)
{
	u64 now = ktime_get_ns();
	int p;

	for (p = 0; p < PFCWD_NUM_PRIO; p++) {
		if (!(prios & BIT(p)))
			continue;
		pfcwd_action_undo(port, p);
		pfcwd_action_hist_end(port, p, why, now);
		/* No longer followed: an estimated pause ends here. */
		pfcwd_hist_pause_follow(&port->prio[p].paused_est, 0, 0, now);
		pfcwd_storm_forget(&port->prio[p].sm);
	}
	pfcwd_action_flush(port, true);
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
	pfcwd_hist_pause_clear(&pp->paused_est, ktime_get_ns());
	atomic64_set(&pp->tx_dropped, 0);
	atomic64_set(&pp->rx_dropped, 0);
	atomic64_set(&pp->tx_forwarded, 0);
	pp->tx_dropped_base = 0;
	pp->rx_dropped_base = 0;
	pp->tx_forwarded_base = 0;
	pp->last_tx_dropped = 0;
	pp->last_rx_dropped = 0;
	pp->last_tx_forwarded = 0;
	pp->pfc_reenabled = 0;
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

/*
 * May a sample's detection of @prio start a mitigation?  Only for a storm
 * in progress, on a watched priority of an enabled port: a mitigation
 * started for anything else is one that nothing ends.  The poller acts in
 * the section that decided (poll.c), so this is a guard.
 */
static bool pfcwd_action_storm_live(const struct pfcwd_port *port, int prio)
{
	return port->prio[prio].sm.state != PFCWD_OPERATIONAL &&
	       port->cfg.enabled && (port->cfg.prios & BIT(prio));
}

/* Carries out what a sample of @prio produced, pfc_en left to commit. */
static void pfcwd_action_prio_events(struct pfcwd_port *port, int prio,
				     unsigned int events)
{
	struct pfcwd_prio *pp = &port->prio[prio];
	const struct pfcwd_storm_stats *st = &pp->sm.stats;
	int d;

	if ((events & (PFCWD_EV_DETECTED | PFCWD_EV_TX_STORM)) &&
	    !pfcwd_action_storm_live(port, prio)) {
		pfcwd_log(port, "prio %d: storm event without a storm in progress, not acted on\n",
			  prio);
		events &= ~(PFCWD_EV_DETECTED | PFCWD_EV_TX_STORM |
			    PFCWD_EV_LATCHED);
	}

	if (events & PFCWD_EV_RESTORED) {
		pfcwd_action_undo(port, prio);
		pfcwd_storm_undone(&pp->sm, ktime_get_ns());
		pfcwd_action_hist_end(port, prio, PFCWD_HIST_RESTORED,
				      st->last_restored_at);
		pfcwd_log_restored(port, prio, "");
		pfcwd_publish(port, prio, PFCWD_CMD_STORM_RESTORED,
			      st->last_restored_at);
	}
	if (events & PFCWD_EV_WARNING) {
		pfcwd_log(port,
			  "prio %d: PFC storm warning, no action (paused %u ms, T0 %u ms)\n",
			  prio, pfcwd_ms(st->last_warn_paused_ns),
			  pfcwd_cfg_prio_detect(&port->cfg, prio));
		pfcwd_publish(port, prio, PFCWD_CMD_STORM_WARNING,
			      st->last_warned_at);
	}
	if (events & PFCWD_EV_DETECTED) {
		pfcwd_action_apply(port, prio, false);
		pfcwd_hist_storm_begin(&pp->storms, st->last_detected_at -
				       min(st->last_paused_ns,
					   st->last_detected_at),
				       st->last_detected_at, pp->applied, false);
		pfcwd_log(port,
			  "prio %d: PFC storm detected, action %s (paused %u ms), %s\n",
			  prio, pfcwd_action_name(pp->applied),
			  pfcwd_ms(st->last_paused_ns),
			  pfcwd_lever_reach(pfcwd_action_lever(port, prio)));
		pfcwd_publish(port, prio, PFCWD_CMD_STORM_DETECTED,
			      st->last_detected_at);
	}
	if (events & PFCWD_EV_TX_STORM) {
		u64 now = ktime_get_ns();

		pfcwd_action_apply(port, prio, true);
		pfcwd_hist_storm_begin(&pp->storms, now, now, pp->applied, true);
		pfcwd_log(port,
			  "prio %d: PFC storm generated by this port (%s), %s\n",
			  prio, pp->sm.latch == PFCWD_LATCH_NIC_STORM ?
			  "the NIC's own storm prevention stopped its pause" :
			  "pause sent, nothing received",
			  pp->applied == PFCWD_ACTION_ALERT ?
			  "alert only" : "pause generation stopped");
		pfcwd_publish(port, prio, PFCWD_CMD_TX_STORM, now);
	}
	if (events & PFCWD_EV_LATCHED) {
		pfcwd_hist_storm_latch(&pp->storms, pp->sm.latch);
		pfcwd_log(port,
			  "prio %d: latched (%s): lossless operation waits for an operator\n",
			  prio, pfcwd_latch_name(pp->sm.latch));
	}
	if (events & PFCWD_EV_SLOW) {
		pfcwd_log(port,
			  "prio %d: slow receiver: sending more than %u pause frames/s\n",
			  prio, READ_ONCE(pfcwd_params.slow_threshold));
		pfcwd_publish(port, prio, PFCWD_CMD_SLOW_RECEIVER,
			      ktime_get_ns());
	}
	for (d = 0; d < PFCWD_RATE_DIRS; d++) {
		const struct pfcwd_rate_stats *rs = &st->rate[d];

		if (!(events & (d == PFCWD_RATE_DIR_RX ? PFCWD_EV_RATE_RX :
							 PFCWD_EV_RATE_TX)))
			continue;
		pfcwd_log(port,
			  "prio %d: pause rate %s %llu frames/s for %u ms (threshold %u)\n",
			  prio, d == PFCWD_RATE_DIR_RX ? "received" : "sent",
			  rs->last_rate, pfcwd_ms(rs->last_duration_ns),
			  d == PFCWD_RATE_DIR_RX ? port->cfg.rate_rx :
						   port->cfg.rate_tx);
		pfcwd_publish_rate(port, prio, d);
	}
}

/**
 * pfcwd_action_events - carry out what one poll pass produced
 * @port: the port; RTNL and port->lock held, !port->dead
 * @events: per priority, PFCWD_EV_* from pfcwd_storm_sample()
 *
 * Also makes a pending pfc_en write whose time has come (a put-back that
 * waited for the gap or failed before), so it is called on such passes
 * even without events.  All of a pass's pfc_en changes are one setpfc.
 */
void pfcwd_action_events(struct pfcwd_port *port,
			 const unsigned int events[PFCWD_NUM_PRIO])
{
	int p;

	for (p = 0; p < PFCWD_NUM_PRIO; p++)
		if (events[p])
			pfcwd_action_prio_events(port, p, events[p]);
	pfcwd_action_flush(port, false);
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
		pfcwd_action_hist_end(port, p, PFCWD_HIST_BY_HAND, now);
		pfcwd_log_restored(port, p, " by hand");
		pfcwd_publish(port, p, PFCWD_CMD_STORM_RESTORED, now);
		n++;
	}
	if (n)
		pfcwd_action_flush(port, true);
	return n;
}
