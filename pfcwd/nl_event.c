// SPDX-License-Identifier: GPL-2.0
/*
 * Notifications on the "events" multicast group: storm-detected,
 * storm-restored, tx-storm, slow-receiver and storm-warning.  Each
 * carries the port's ifindex and ifname and one PFCWD_A_PORT_PRIO nest
 * with the priority's state, counters and the time of the event.  They go
 * to listeners in the port's netns, and are only built when someone
 * listens.
 *
 * Context: process, with RTNL and port->lock held (called from action.c).
 */
#include <linux/rtnetlink.h>
#include <net/genetlink.h>

#include "netlink.h"

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
	genlmsg_end(msg, hdr);
	genlmsg_multicast_netns(&pfcwd_genl_family, net, msg, 0,
				PFCWD_NL_MCGRP_EVENTS, GFP_KERNEL);
	return;
err:
	nlmsg_free(msg);
}
