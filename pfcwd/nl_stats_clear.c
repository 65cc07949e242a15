// SPDX-License-Identifier: GPL-2.0
/*
 * PFCWD_CMD_STATS_CLEAR: zero the counters of one port, or of every port
 * of the caller's netns when no device is named.  State, configuration
 * and storms in progress are untouched (a storm in progress counts on
 * from zero).
 *
 * Locking and context: process context; RTNL, pfcwd_ports_lock for the
 * walk, port->lock for each port.
 */
#include <linux/rtnetlink.h>
#include <net/genetlink.h>

#include "netlink.h"

const struct nla_policy pfcwd_nl_stats_clear_policy[PFCWD_A_PORT_MAX + 1] = {
	PFCWD_NL_DEV_POLICY,
};

static void pfcwd_nl_clear_port(struct pfcwd_port *port)
{
	int p;

	mutex_lock(&port->lock);
	for (p = 0; p < PFCWD_NUM_PRIO; p++)
		pfcwd_action_clear_stats(&port->prio[p]);
	pfcwd_swpfc_clear_stats(port);
	mutex_unlock(&port->lock);
}

int pfcwd_nl_stats_clear_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct net *net = genl_info_net(info);
	struct net_device *dev;
	struct pfcwd_port *port;
	int err = 0;

	rtnl_lock();
	dev = pfcwd_nl_dev(info, false);
	if (IS_ERR(dev)) {
		err = PTR_ERR(dev);
	} else if (dev) {
		port = pfcwd_nl_port(info, dev);
		if (IS_ERR(port)) {
			err = PTR_ERR(port);
		} else {
			pfcwd_nl_clear_port(port);
			pfcwd_port_put(port);
		}
	} else {
		mutex_lock(&pfcwd_ports_lock);
		list_for_each_entry(port, &pfcwd_ports, node)
			if (!port->dead && net_eq(dev_net(port->dev), net))
				pfcwd_nl_clear_port(port);
		mutex_unlock(&pfcwd_ports_lock);
	}
	rtnl_unlock();
	return err;
}
