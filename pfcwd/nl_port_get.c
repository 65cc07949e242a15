// SPDX-License-Identifier: GPL-2.0
/*
 * PFCWD_CMD_PORT_GET: one port (do, named by ifindex or ifname) or every
 * port of the caller's netns (dump).
 *
 * Dumps resume after the last port sent, by port id: the port list is in
 * id order, so ports added or removed between two parts of a dump never
 * make a surviving port appear twice or go missing; the dump is flagged
 * NLM_F_DUMP_INTR when the list changed while it ran.
 *
 * Locking and context: process context; RTNL (device names),
 * pfcwd_ports_lock for the walk, port->lock for each port.  No driver is
 * called: anyone may dump, and what is shown of the driver's statistics
 * is what the poller last read (source.c).
 */
#include <linux/rtnetlink.h>
#include <net/genetlink.h>
#include <net/sock.h>

#include "netlink.h"

const struct nla_policy pfcwd_nl_port_get_policy[PFCWD_A_PORT_MAX + 1] = {
	PFCWD_NL_DEV_POLICY,
};

static int pfcwd_nl_port_put(struct sk_buff *skb, struct pfcwd_port *port,
			     u32 portid, u32 seq, int flags,
			     struct netlink_callback *cb)
{
	void *hdr;
	int err;

	hdr = genlmsg_put(skb, portid, seq, &pfcwd_genl_family, flags,
			  PFCWD_CMD_PORT_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (cb)
		genl_dump_check_consistent(cb, hdr);
	mutex_lock(&port->lock);
	err = pfcwd_nl_fill_port(skb, port, true);
	mutex_unlock(&port->lock);
	if (err) {
		genlmsg_cancel(skb, hdr);
		return err;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

int pfcwd_nl_port_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct pfcwd_port *port;
	struct sk_buff *msg;
	int err;

	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	rtnl_lock();
	port = pfcwd_nl_req_port(info);
	if (IS_ERR(port)) {
		err = PTR_ERR(port);
		goto out;
	}
	err = pfcwd_nl_port_put(msg, port, info->snd_portid, info->snd_seq,
				0, NULL);
	pfcwd_port_put(port);
out:
	rtnl_unlock();
	if (err) {
		nlmsg_free(msg);
		return err;
	}
	return genlmsg_reply(msg, info);
}

/* cb->args[0]: the id of the last port sent. */
int pfcwd_nl_port_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct net *net = sock_net(cb->skb->sk);
	struct pfcwd_port *port;
	int err = 0;

	rtnl_lock();
	mutex_lock(&pfcwd_ports_lock);
	cb->seq = pfcwd_ports_gen + 1;
	list_for_each_entry(port, &pfcwd_ports, node) {
		if (port->id <= cb->args[0] || port->dead ||
		    !net_eq(dev_net(port->dev), net))
			continue;
		err = pfcwd_nl_port_put(skb, port,
					NETLINK_CB(cb->skb).portid,
					cb->nlh->nlmsg_seq, NLM_F_MULTI, cb);
		if (err)
			break;
		cb->args[0] = port->id;
	}
	mutex_unlock(&pfcwd_ports_lock);
	rtnl_unlock();
	/* A port too big for an empty message would loop forever. */
	if (err == -EMSGSIZE && skb->len)
		return skb->len;
	return err ? err : skb->len;
}
