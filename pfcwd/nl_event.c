// SPDX-License-Identifier: GPL-2.0
/*
 * Notifications on the "events" multicast group: storm-detected,
 * storm-restored, tx-storm, slow-receiver, storm-warning and pause-rate.
 * Each carries the port's ifindex and ifname and one PFCWD_A_PORT_PRIO
 * nest with the priority's state, counters and the time of the event;
 * pause-rate also the direction, the mean rate and how long it has been
 * above the threshold (PFCWD_A_PORT_RATE_*).  They go
 * to listeners in the port's netns, and are only built when someone
 * listens.
 *
 * A listener of the actions (pfcwd_nl_listener, subscribed by main.c):
 * action.c publishes, this file hears; it never calls action.c.
 *
 * Context: process, with RTNL and port->lock held (called from action.c's
 * emitters, through the listener slot).
 */
#include <linux/rtnetlink.h>
#include <net/genetlink.h>

#include "netlink.h"

static void pfcwd_nl_event_send(struct pfcwd_port *port, int prio, u8 cmd,
				u64 when, int dir)
{
	struct net *net = dev_net(port->dev);
	struct sk_buff *msg;
	void *hdr;

	if (!genl_has_listeners(&pfcwd_genl_family, net, PFCWD_NL_MCGRP_EVENTS))
		return;
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return;
	hdr = genlmsg_put(msg, 0, 0, &pfcwd_genl_family, 0, cmd);
	if (!hdr)
		goto err;
	if (nla_put_u32(msg, PFCWD_A_PORT_IFINDEX, port->dev->ifindex) ||
	    nla_put_string(msg, PFCWD_A_PORT_IFNAME, port->dev->name) ||
	    nla_put_u32(msg, PFCWD_A_PORT_ACTION, port->cfg.action) ||
	    pfcwd_nl_fill_prio(msg, port, prio, NULL, NULL, when ? when : 1))
		goto err;
	if (dir >= 0) {
		const struct pfcwd_rate_stats *rs =
			&port->prio[prio].sm.stats.rate[dir];

		if (nla_put_u8(msg, PFCWD_A_PORT_RATE_DIRECTION, dir) ||
		    nla_put_u64_64bit(msg, PFCWD_A_PORT_RATE_PPS, rs->last_rate,
				      PFCWD_A_PORT_PAD) ||
		    nla_put_u32(msg, PFCWD_A_PORT_RATE_DURATION_MS,
				div_u64(rs->last_duration_ns, NSEC_PER_MSEC)))
			goto err;
	}
	genlmsg_end(msg, hdr);
	genlmsg_multicast_netns(&pfcwd_genl_family, net, msg, 0,
				PFCWD_NL_MCGRP_EVENTS, GFP_KERNEL);
	return;
err:
	nlmsg_free(msg);
}

/**
 * pfcwd_nl_event - tell listeners what happened to a priority
 * @port: the port; RTNL and port->lock held, !port->dead
 * @prio: the priority
 * @cmd: PFCWD_CMD_STORM_DETECTED, _STORM_RESTORED, _TX_STORM,
 *	_SLOW_RECEIVER or _STORM_WARNING
 * @when: CLOCK_MONOTONIC ns of the event
 */
void pfcwd_nl_event(struct pfcwd_port *port, int prio, u8 cmd, u64 when)
{
	pfcwd_nl_event_send(port, prio, cmd, when, -1);
}

/**
 * pfcwd_nl_rate_event - a pause-rate event, from its direction's stats
 * @port: the port; RTNL and port->lock held, !port->dead
 * @prio: the priority
 * @dir: PFCWD_RATE_DIR_RX or _TX
 */
void pfcwd_nl_rate_event(struct pfcwd_port *port, int prio, int dir)
{
	pfcwd_nl_event_send(port, prio, PFCWD_CMD_PAUSE_RATE,
			    port->prio[prio].sm.stats.rate[dir].last_at, dir);
}

/* What the netlink events hear of the actions. */
const struct pfcwd_action_listener pfcwd_nl_listener = {
	.event		= pfcwd_nl_event,
	.rate_event	= pfcwd_nl_rate_event,
};
