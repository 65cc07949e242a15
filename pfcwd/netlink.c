// SPDX-License-Identifier: GPL-2.0
/*
 * The generic netlink family "pfcwd", version 1: the family, its
 * operations table and what the messages share - finding the port a
 * request names, and writing a port or a priority into a message.
 * Documentation/netlink/specs/pfcwd.yaml describes it for ynl.
 *
 * Every operation has its own strict policy (unknown and unexpected
 * attributes are refused, as are reserved header fields); operations that
 * change anything need CAP_NET_ADMIN in the user namespace owning the
 * caller's netns (GENL_UNS_ADMIN_PERM), and devices are only ever looked
 * up in the caller's netns, so a netns sees and changes its own ports only.
 *
 * Locking and context: process context.  pfcwd_nl_dev() and
 * pfcwd_nl_port() need RTNL; the fill functions need RTNL and port->lock,
 * and call no driver: what they show of the driver's statistics is what
 * the poller last read (source.c), since port-get needs no privilege.
 */
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <net/genetlink.h>
#include <net/netlink.h>

#include "netlink.h"

/**
 * pfcwd_nl_dev - the device a request names
 * @info: the request; RTNL held
 * @required: whether a request without a device is an error
 *
 * By PFCWD_A_PORT_IFINDEX or PFCWD_A_PORT_IFNAME (both: they must agree),
 * in the caller's netns.
 *
 * Return: the device (no reference: RTNL keeps it), NULL if none was
 * named and none is required, or an ERR_PTR.
 */
struct net_device *pfcwd_nl_dev(struct genl_info *info, bool required)
{
	struct nlattr *aindex = info->attrs[PFCWD_A_PORT_IFINDEX];
	struct nlattr *aname = info->attrs[PFCWD_A_PORT_IFNAME];
	struct net *net = genl_info_net(info);
	struct net_device *dev = NULL;

	ASSERT_RTNL();
	if (!aindex && !aname) {
		if (!required)
			return NULL;
		NL_SET_ERR_MSG(info->extack,
			       "pfcwd: name the device with ifindex or ifname");
		return ERR_PTR(-EINVAL);
	}
	if (aindex) {
		dev = __dev_get_by_index(net, nla_get_u32(aindex));
		if (!dev) {
			NL_SET_ERR_MSG_ATTR(info->extack, aindex,
					    "pfcwd: no device with this ifindex");
			return ERR_PTR(-ENODEV);
		}
	}
	if (aname) {
		struct net_device *byname = __dev_get_by_name(net,
							      nla_data(aname));

		if (!byname) {
			NL_SET_ERR_MSG_ATTR(info->extack, aname,
					    "pfcwd: no device with this ifname");
			return ERR_PTR(-ENODEV);
		}
		if (dev && dev != byname) {
			NL_SET_ERR_MSG_ATTR(info->extack, aname,
					    "pfcwd: ifindex and ifname name different devices");
			return ERR_PTR(-EINVAL);
		}
		dev = byname;
	}
	return dev;
}

/**
 * pfcwd_nl_port - the port of a device a request names
 * @info: the request; RTNL held
 * @dev: from pfcwd_nl_dev()
 *
 * Return: the port with a reference, or ERR_PTR(-ENODEV) with a message.
 */
struct pfcwd_port *pfcwd_nl_port(struct genl_info *info,
				 struct net_device *dev)
{
	struct pfcwd_port *port = pfcwd_port_get(dev);

	if (!port || port->dead) {
		if (port)
			pfcwd_port_put(port);
		NL_SET_ERR_MSG(info->extack,
			       "pfcwd: the device is not a pfcwd port");
		return ERR_PTR(-ENODEV);
	}
	return port;
}

/**
 * pfcwd_nl_req_port - the port a request must name
 * @info: the request; RTNL held
 *
 * Return: the port with a reference, or an ERR_PTR with a message.
 */
struct pfcwd_port *pfcwd_nl_req_port(struct genl_info *info)
{
	struct net_device *dev = pfcwd_nl_dev(info, true);

	if (IS_ERR(dev))
		return ERR_CAST(dev);
	return pfcwd_nl_port(info, dev);
}

static enum pfcwd_prio_state pfcwd_nl_state(enum pfcwd_state state)
{
	switch (state) {
	case PFCWD_STORMED:
		return PFCWD_PRIO_STATE_STORMED;
	case PFCWD_LATCHED:
		return PFCWD_PRIO_STATE_LATCHED;
	default:
		return PFCWD_PRIO_STATE_OPERATIONAL;
	}
}

static enum pfcwd_latch_reason pfcwd_nl_latch(enum pfcwd_latch latch)
{
	switch (latch) {
	case PFCWD_LATCH_LIMIT:
		return PFCWD_LATCH_REASON_STORM_LIMIT;
	case PFCWD_LATCH_BLIND:
		return PFCWD_LATCH_REASON_BLIND;
	case PFCWD_LATCH_TX_STORM:
		return PFCWD_LATCH_REASON_TX_STORM;
	case PFCWD_LATCH_NIC_STORM:
		return PFCWD_LATCH_REASON_NIC_STORM;
	default:
		return PFCWD_LATCH_REASON_NONE;
	}
}

static int pfcwd_nl_put_u64(struct sk_buff *skb, int type, u64 v)
{
	return nla_put_u64_64bit(skb, type, v, PFCWD_A_PRIO_PAD);
}

/**
 * pfcwd_nl_fill_prio - write one priority as a PFCWD_A_PORT_PRIO nest
 * @skb: the message
 * @port: the port; RTNL and port->lock held
 * @p: the priority
 * @tx_packets: the driver's per-priority transmit counters, or NULL
 * @rx_packets: the same for receive, or NULL
 * @event_ns: for a notification, when the event happened; 0 otherwise
 *
 * Return: 0 or -EMSGSIZE.
 */
int pfcwd_nl_fill_prio(struct sk_buff *skb, struct pfcwd_port *port, int p,
		       const u64 *tx_packets, const u64 *rx_packets,
		       u64 event_ns)
{
	const struct pfcwd_prio *pp = &port->prio[p];
	const struct pfcwd_storm_stats *st = &pp->sm.stats;
	u64 last_tx, last_rx, last_fwd, storm_ns = st->last_storm_ns;
	u64 now = ktime_get_ns(), t1;
	struct pfcwd_storm_config base, scfg;
	const struct pfcwd_config *cfg = &port->cfg;
	enum pfcwd_lever lever = pfcwd_action_lever(port, p);
	u8 ovr = cfg->ovr[p];
	struct nlattr *nest;
	u32 level;

	pfcwd_action_last(pp, &last_tx, &last_rx, &last_fwd);
	/* A storm in progress: how long it has lasted so far. */
	if (pp->sm.state != PFCWD_OPERATIONAL && st->last_detected_at)
		storm_ns = now - st->last_detected_at;
	/* Restore backoff: the storm's, or a storm's detected now. */
	pfcwd_port_storm_config(port, &base);
	pfcwd_port_prio_config(port, p, &base, &scfg);
	level = pfcwd_storm_backoff(&pp->sm, &scfg, now);
	t1 = pfcwd_storm_restore_ns(&scfg, level);

	nest = nla_nest_start(skb, PFCWD_A_PORT_PRIO);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u8(skb, PFCWD_A_PRIO_PRIO, p) ||
	    nla_put_u8(skb, PFCWD_A_PRIO_WATCHED, !!(port->cfg.prios & BIT(p))) ||
	    nla_put_u32(skb, PFCWD_A_PRIO_STATE, pfcwd_nl_state(pp->sm.state)) ||
	    nla_put_u32(skb, PFCWD_A_PRIO_LATCH, pfcwd_nl_latch(pp->sm.latch)) ||
	    ((pp->mitigating || event_ns) &&
	     nla_put_u32(skb, PFCWD_A_PRIO_ACTION, pp->applied)) ||
	    pfcwd_nl_put_u64(skb, PFCWD_A_PRIO_DETECTED, st->detected) ||
	    pfcwd_nl_put_u64(skb, PFCWD_A_PRIO_RESTORED, st->restored) ||
	    pfcwd_nl_put_u64(skb, PFCWD_A_PRIO_TX_STORMS, st->tx_storms) ||
	    pfcwd_nl_put_u64(skb, PFCWD_A_PRIO_SLOW_EVENTS, st->slow_events) ||
	    pfcwd_nl_put_u64(skb, PFCWD_A_PRIO_WARNINGS, st->warnings) ||
	    pfcwd_nl_put_u64(skb, PFCWD_A_PRIO_LAST_WARN_PAUSED_US,
			     div_u64(st->last_warn_paused_ns, NSEC_PER_USEC)) ||
	    nla_put_u32(skb, PFCWD_A_PRIO_BACKOFF_LEVEL, level) ||
	    nla_put_u32(skb, PFCWD_A_PRIO_EFFECTIVE_RESTORE_MS,
			div_u64(t1, NSEC_PER_MSEC)) ||
	    nla_put_u32(skb, PFCWD_A_PRIO_OVERRIDES, ovr) ||
	    ((ovr & PFCWD_PRIO_OVR_DETECT) &&
	     nla_put_u32(skb, PFCWD_A_PRIO_DETECT_MS, cfg->prio_detect_ms[p])) ||
	    ((ovr & PFCWD_PRIO_OVR_RESTORE) &&
	     nla_put_u32(skb, PFCWD_A_PRIO_RESTORE_MS,
			 cfg->prio_restore_ms[p])) ||
	    ((ovr & PFCWD_PRIO_OVR_WARN) &&
	     nla_put_u32(skb, PFCWD_A_PRIO_WARN_MS, cfg->prio_warn_ms[p])) ||
	    ((ovr & PFCWD_PRIO_OVR_ACTION) &&
	     nla_put_u32(skb, PFCWD_A_PRIO_POLICY_ACTION,
			 cfg->prio_action[p])) ||
	    nla_put_u32(skb, PFCWD_A_PRIO_EFFECTIVE_DETECT_MS,
			pfcwd_cfg_prio_detect(cfg, p)) ||
	    nla_put_u32(skb, PFCWD_A_PRIO_EFFECTIVE_WARN_MS,
			pfcwd_cfg_prio_warn(cfg, p)) ||
	    nla_put_u32(skb, PFCWD_A_PRIO_EFFECTIVE_ACTION,
			pfcwd_cfg_prio_action(cfg, p)) ||
	    pfcwd_nl_put_u64(skb, PFCWD_A_PRIO_RATE_RX_EVENTS,
			     st->rate[PFCWD_RATE_DIR_RX].events) ||
	    pfcwd_nl_put_u64(skb, PFCWD_A_PRIO_RATE_TX_EVENTS,
			     st->rate[PFCWD_RATE_DIR_TX].events) ||
	    pfcwd_nl_put_u64(skb, PFCWD_A_PRIO_PFC_REENABLED,
			     pp->pfc_reenabled) ||
	    pfcwd_nl_put_u64(skb, PFCWD_A_PRIO_XOFF_WHILE_TX,
			     st->xoff_while_tx) ||
	    nla_put_u32(skb, PFCWD_A_PRIO_LEVER, lever) ||
	    nla_put_u8(skb, PFCWD_A_PRIO_RDMA_COVERED,
		       lever == PFCWD_LEVER_PFC_EN) ||
	    pfcwd_nl_put_u64(skb, PFCWD_A_PRIO_RX_PAUSE, st->rx_pause) ||
	    pfcwd_nl_put_u64(skb, PFCWD_A_PRIO_TX_PAUSE, st->tx_pause) ||
	    (tx_packets &&
	     pfcwd_nl_put_u64(skb, PFCWD_A_PRIO_TX_PACKETS, tx_packets[p])) ||
	    (rx_packets &&
	     pfcwd_nl_put_u64(skb, PFCWD_A_PRIO_RX_PACKETS, rx_packets[p])) ||
	    pfcwd_nl_put_u64(skb, PFCWD_A_PRIO_TX_DROPPED,
			     atomic64_read(&pp->tx_dropped)) ||
	    pfcwd_nl_put_u64(skb, PFCWD_A_PRIO_RX_DROPPED,
			     atomic64_read(&pp->rx_dropped)) ||
	    pfcwd_nl_put_u64(skb, PFCWD_A_PRIO_TX_FORWARDED,
			     atomic64_read(&pp->tx_forwarded)) ||
	    pfcwd_nl_put_u64(skb, PFCWD_A_PRIO_LAST_TX_DROPPED, last_tx) ||
	    pfcwd_nl_put_u64(skb, PFCWD_A_PRIO_LAST_RX_DROPPED, last_rx) ||
	    pfcwd_nl_put_u64(skb, PFCWD_A_PRIO_LAST_TX_FORWARDED, last_fwd) ||
	    pfcwd_nl_put_u64(skb, PFCWD_A_PRIO_LAST_PAUSED_US,
			     div_u64(st->last_paused_ns, NSEC_PER_USEC)) ||
	    pfcwd_nl_put_u64(skb, PFCWD_A_PRIO_LAST_STORM_US,
			     div_u64(storm_ns, NSEC_PER_USEC)) ||
	    pfcwd_nl_put_u64(skb, PFCWD_A_PRIO_LAST_DETECTED_NS,
			     st->last_detected_at) ||
	    pfcwd_nl_put_u64(skb, PFCWD_A_PRIO_LAST_RESTORED_NS,
			     st->last_restored_at) ||
	    (event_ns &&
	     pfcwd_nl_put_u64(skb, PFCWD_A_PRIO_EVENT_NS, event_ns))) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

/*
 * The NIC's own storm prevention: its timeout where the driver has the
 * tunable, its events where it has the counters, as the poller last read
 * them (no driver call: anyone may ask).
 */
static int pfcwd_nl_fill_nic(struct sk_buff *skb,
			     const struct pfcwd_port *port)
{
	const struct pfcwd_nic *nic = &port->nic;
	u32 ms;

	if (!pfcwd_nic_prevention_shown(port, &ms) &&
	    nla_put_u32(skb, PFCWD_A_PORT_NIC_PREVENTION_MS, ms))
		return -EMSGSIZE;
	if (pfcwd_ectr_has(port, PFCWD_ECTR_NIC_WARN) &&
	    nla_put_u64_64bit(skb, PFCWD_A_PORT_NIC_STORM_WARNINGS,
			      READ_ONCE(nic->warnings), PFCWD_A_PORT_PAD))
		return -EMSGSIZE;
	if (pfcwd_ectr_has(port, PFCWD_ECTR_NIC_ERR) &&
	    nla_put_u64_64bit(skb, PFCWD_A_PORT_NIC_STORM_ERRORS,
			      READ_ONCE(nic->errors), PFCWD_A_PORT_PAD))
		return -EMSGSIZE;
	return 0;
}

/*
 * The device side of a port: device-action and what it comes to, the
 * driver profile, and how its counters are read.  The freshness fields
 * are the poller's, written without port->lock: they are read once each
 * with READ_ONCE, for display, and may be from slightly different polls.
 */
static int pfcwd_nl_fill_device(struct sk_buff *skb,
				const struct pfcwd_port *port)
{
	enum pfcwd_lever lever = pfcwd_action_port_lever(port);

	if (nla_put_u32(skb, PFCWD_A_PORT_LEVER, lever) ||
	    nla_put_u8(skb, PFCWD_A_PORT_RDMA_COVERED,
		       lever == PFCWD_LEVER_PFC_EN) ||
	    nla_put_u32(skb, PFCWD_A_PORT_DEVICE_ACTION,
			port->cfg.device_action) ||
	    nla_put_u8(skb, PFCWD_A_PORT_DEVICE_PFC,
		       pfcwd_action_device_pfc(port)) ||
	    nla_put_u8(skb, PFCWD_A_PORT_SETPFC_HURTS,
		       READ_ONCE(port->setpfc_hurts)) ||
	    nla_put_u64_64bit(skb, PFCWD_A_PORT_SETPFC_ERRORS,
			      port->setpfc_errors, PFCWD_A_PORT_PAD) ||
	    nla_put_string(skb, PFCWD_A_PORT_PROFILE, port->profile->name) ||
	    nla_put_u32(skb, PFCWD_A_PORT_REFRESH_MS,
			READ_ONCE(port->refresh_ms)) ||
	    nla_put_u8(skb, PFCWD_A_PORT_REFRESH_LEARNT,
		       READ_ONCE(port->refresh_learnt)) ||
	    nla_put_u64_64bit(skb, PFCWD_A_PORT_READS,
			      READ_ONCE(port->reads), PFCWD_A_PORT_PAD) ||
	    nla_put_u64_64bit(skb, PFCWD_A_PORT_FORCED_READS,
			      READ_ONCE(port->forced), PFCWD_A_PORT_PAD) ||
	    nla_put_u64_64bit(skb, PFCWD_A_PORT_READ_ERRORS,
			      READ_ONCE(port->read_errors), PFCWD_A_PORT_PAD) ||
	    nla_put_u32(skb, PFCWD_A_PORT_READ_RATE,
			READ_ONCE(port->read_rate)) ||
	    nla_put_u8(skb, PFCWD_A_PORT_PHASE, READ_ONCE(port->phase_found)) ||
	    nla_put_u64_64bit(skb, PFCWD_A_PORT_PHASE_PUBS,
			      READ_ONCE(port->phase_pubs), PFCWD_A_PORT_PAD) ||
	    nla_put_u32(skb, PFCWD_A_PORT_PUB_WIDTH_US,
			pfcwd_source_pub_width_us(port)))
		return -EMSGSIZE;
	return pfcwd_nl_fill_nic(skb, port);
}

/**
 * pfcwd_nl_fill_port - write a port: device, configuration, state, and
 *	every priority
 * @skb: the message
 * @port: the port; RTNL and port->lock held, !port->dead
 * @detail: the driver's per-priority packet counters too (as the poller
 *	last read them: no driver call)
 *
 * Return: 0 or -EMSGSIZE.
 */
int pfcwd_nl_fill_port(struct sk_buff *skb, struct pfcwd_port *port,
		       bool detail)
{
	u64 tx[PFCWD_NUM_PRIO] = {}, rx[PFCWD_NUM_PRIO] = {};
	enum pfcwd_source source = pfcwd_port_source(port);
	const struct pfcwd_config *cfg = &port->cfg;
	unsigned int pkts = 0;
	u8 stormed = 0;
	int p;

	for (p = 0; p < PFCWD_NUM_PRIO; p++)
		if (port->prio[p].sm.state != PFCWD_OPERATIONAL)
			stormed |= BIT(p);
	if (detail)
		pkts = pfcwd_source_prio_packets(port, tx, rx);

	if (nla_put_u32(skb, PFCWD_A_PORT_IFINDEX, port->dev->ifindex) ||
	    nla_put_string(skb, PFCWD_A_PORT_IFNAME, port->dev->name) ||
	    nla_put_u8(skb, PFCWD_A_PORT_ENABLED, cfg->enabled) ||
	    nla_put_u32(skb, PFCWD_A_PORT_DETECT_MS, cfg->detect_ms) ||
	    nla_put_u32(skb, PFCWD_A_PORT_RESTORE_MS, cfg->restore_ms) ||
	    nla_put_u32(skb, PFCWD_A_PORT_WARN_MS, cfg->warn_ms) ||
	    nla_put_u8(skb, PFCWD_A_PORT_BACKOFF, cfg->backoff) ||
	    nla_put_u32(skb, PFCWD_A_PORT_RATE_RX, cfg->rate_rx) ||
	    nla_put_u32(skb, PFCWD_A_PORT_RATE_TX, cfg->rate_tx) ||
	    nla_put_u32(skb, PFCWD_A_PORT_RATE_WINDOW_MS, cfg->rate_window_ms) ||
	    nla_put_u32(skb, PFCWD_A_PORT_EFFECTIVE_RATE_WINDOW_MS,
			div_u64(pfcwd_port_rate_window_ns(port),
				NSEC_PER_MSEC)) ||
	    nla_put_u32(skb, PFCWD_A_PORT_ACTION, cfg->action) ||
	    nla_put_u8(skb, PFCWD_A_PORT_PRIOS, cfg->prios) ||
	    nla_put_u32(skb, PFCWD_A_PORT_STORM_LIMIT, cfg->storm_limit) ||
	    nla_put_u8(skb, PFCWD_A_PORT_STORMED, stormed) ||
	    nla_put_u32(skb, PFCWD_A_PORT_GRANULARITY_US,
			div_u64(pfcwd_port_granularity_ns(port), NSEC_PER_USEC)) ||
	    nla_put_u32(skb, PFCWD_A_PORT_RESTORE_LATE_US,
			div_u64(pfcwd_port_restore_late_ns(port),
				NSEC_PER_USEC)) ||
	    nla_put_u32(skb, PFCWD_A_PORT_SOURCE, source) ||
	    (port->has_dcb &&
	     nla_put_u8(skb, PFCWD_A_PORT_PFC_EN, port->pfc_en)) ||
	    nla_put_u32(skb, PFCWD_A_PORT_QDISCS, port->qdisc_users) ||
	    nla_put_u8(skb, PFCWD_A_PORT_HELD, port->held) ||
	    nla_put_u8(skb, PFCWD_A_PORT_TX_PROGRESS,
		       port->qdisc_users && !port->dead &&
		       pfcwd_dev_shows_tx(port, port->dev)))
		return -EMSGSIZE;
	if (source == PFCWD_SOURCE_SOFTWARE) {
		u64 global_pause, malformed;

		pfcwd_swpfc_counters(port, &global_pause, &malformed);
		if (nla_put_u64_64bit(skb, PFCWD_A_PORT_GLOBAL_PAUSE,
				      global_pause, PFCWD_A_PORT_PAD) ||
		    nla_put_u64_64bit(skb, PFCWD_A_PORT_PAUSE_MALFORMED,
				      malformed, PFCWD_A_PORT_PAD))
			return -EMSGSIZE;
	}
	if (pfcwd_nl_fill_device(skb, port))
		return -EMSGSIZE;

	for (p = 0; p < PFCWD_NUM_PRIO; p++)
		if (pfcwd_nl_fill_prio(skb, port, p,
				       (pkts & PFCWD_PKTS_TX) ? tx : NULL,
				       (pkts & PFCWD_PKTS_RX) ? rx : NULL, 0))
			return -EMSGSIZE;
	return 0;
}

static const struct genl_ops pfcwd_nl_ops[] = {
	{
		.cmd		= PFCWD_CMD_PORT_GET,
		.doit		= pfcwd_nl_port_get_doit,
		.dumpit		= pfcwd_nl_port_get_dumpit,
		.policy		= pfcwd_nl_port_get_policy,
		.maxattr	= PFCWD_A_PORT_MAX,
	},
	{
		.cmd		= PFCWD_CMD_PORT_SET,
		.doit		= pfcwd_nl_port_set_doit,
		.policy		= pfcwd_nl_port_set_policy,
		.maxattr	= PFCWD_A_PORT_MAX,
		.flags		= GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd		= PFCWD_CMD_STATS_CLEAR,
		.doit		= pfcwd_nl_stats_clear_doit,
		.policy		= pfcwd_nl_stats_clear_policy,
		.maxattr	= PFCWD_A_PORT_MAX,
		.flags		= GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd		= PFCWD_CMD_PRIO_RESTORE,
		.doit		= pfcwd_nl_prio_restore_doit,
		.policy		= pfcwd_nl_prio_restore_policy,
		.maxattr	= PFCWD_A_PORT_MAX,
		.flags		= GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd		= PFCWD_CMD_HISTORY_GET,
		.dumpit		= pfcwd_nl_history_get_dumpit,
		.policy		= pfcwd_nl_history_get_policy,
		.maxattr	= PFCWD_A_PORT_MAX,
	},
};

static const struct genl_multicast_group pfcwd_nl_mcgrps[] = {
	[PFCWD_NL_MCGRP_EVENTS] = { .name = PFCWD_MCGRP_EVENTS },
};

struct genl_family pfcwd_genl_family __ro_after_init = {
	.name		= PFCWD_GENL_NAME,
	.version	= PFCWD_GENL_VERSION,
	.netnsok	= true,
	.parallel_ops	= true,
	.module		= THIS_MODULE,
	.ops		= pfcwd_nl_ops,
	.n_ops		= ARRAY_SIZE(pfcwd_nl_ops),
	.resv_start_op	= PFCWD_CMD_PORT_GET,	/* all: reserved fields must be 0 */
	.mcgrps		= pfcwd_nl_mcgrps,
	.n_mcgrps	= ARRAY_SIZE(pfcwd_nl_mcgrps),
};

int pfcwd_nl_init(void)
{
	int err;

	err = pfcwd_nl_events_init();
	if (err)
		return err;
	err = genl_register_family(&pfcwd_genl_family);
	if (err) {
		pfcwd_nl_events_exit();
		return err;
	}
	pfcwd_nl_events_live(true);
	return 0;
}

void pfcwd_nl_exit(void)
{
	pfcwd_nl_events_live(false);
	genl_unregister_family(&pfcwd_genl_family);
	pfcwd_nl_events_exit();
}
