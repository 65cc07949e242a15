/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The generic netlink family "pfcwd": the core (netlink.c) and one file
 * per message (nl_port_get.c, nl_port_set.c, nl_stats_clear.c,
 * nl_prio_restore.c, nl_history_get.c, nl_event.c), as net/ethtool/ does it.
 *
 * Locking: request handlers run in process context.  Anything that reads a
 * port's device or calls its driver takes RTNL, then port->lock (the order
 * of pfcwd.h); dumps walk pfcwd_ports under pfcwd_ports_lock.
 */
#ifndef _PFCWD_NETLINK_H
#define _PFCWD_NETLINK_H

#include <net/genetlink.h>

#include "pfcwd.h"

extern struct genl_family pfcwd_genl_family;

/* Multicast groups, in the order of the family's mcgrps. */
enum pfcwd_nl_mcgrp {
	PFCWD_NL_MCGRP_EVENTS,
};

/* Policies of the device attributes every request names the port by. */
#define PFCWD_NL_DEV_POLICY						\
	[PFCWD_A_PORT_IFINDEX] = NLA_POLICY_MIN(NLA_U32, 1),		\
	[PFCWD_A_PORT_IFNAME] = { .type = NLA_NUL_STRING,		\
				  .len = IFNAMSIZ - 1 }

struct net_device *pfcwd_nl_dev(struct genl_info *info, bool required);
struct pfcwd_port *pfcwd_nl_port(struct genl_info *info,
				 struct net_device *dev);
struct pfcwd_port *pfcwd_nl_req_port(struct genl_info *info);
int pfcwd_nl_fill_port(struct sk_buff *skb, struct pfcwd_port *port,
		       bool detail);
int pfcwd_nl_fill_prio(struct sk_buff *skb, struct pfcwd_port *port, int p,
		       const u64 *tx_packets, const u64 *rx_packets,
		       u64 event_ns);

/* nl_event.c: the events' numbers, per netns, and whether they go out */
int pfcwd_nl_events_init(void);
void pfcwd_nl_events_live(bool live);
void pfcwd_nl_events_exit(void);

/* Operations, one file each. */
extern const struct nla_policy pfcwd_nl_port_get_policy[PFCWD_A_PORT_MAX + 1];
int pfcwd_nl_port_get_doit(struct sk_buff *skb, struct genl_info *info);
int pfcwd_nl_port_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);

extern const struct nla_policy pfcwd_nl_port_set_policy[PFCWD_A_PORT_MAX + 1];
int pfcwd_nl_port_set_doit(struct sk_buff *skb, struct genl_info *info);

extern const struct nla_policy pfcwd_nl_stats_clear_policy[PFCWD_A_PORT_MAX + 1];
int pfcwd_nl_stats_clear_doit(struct sk_buff *skb, struct genl_info *info);

extern const struct nla_policy pfcwd_nl_prio_restore_policy[PFCWD_A_PORT_MAX + 1];
int pfcwd_nl_prio_restore_doit(struct sk_buff *skb, struct genl_info *info);

extern const struct nla_policy pfcwd_nl_history_get_policy[PFCWD_A_PORT_MAX + 1];
int pfcwd_nl_history_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);

#endif /* _PFCWD_NETLINK_H */
