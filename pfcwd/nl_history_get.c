// SPDX-License-Identifier: GPL-2.0
/*
 * PFCWD_CMD_HISTORY_GET (dump): the pause history of every priority of
 * every port of the caller's netns, of one port (PFCWD_A_PORT_IFINDEX or
 * PFCWD_A_PORT_IFNAME) or of one priority (PFCWD_A_PORT_HISTORY_PRIO).
 * One message per port and priority: the device, and one
 * PFCWD_A_PORT_HISTORY nest (history.h says what it counts).
 *
 * Dumps resume at the port and priority where the last part stopped, by
 * port id (the list is in id order, as in nl_port_get.c); the dump is
 * flagged NLM_F_DUMP_INTR when the port list changed while it ran.  A
 * named device that does not exist, or is not a port, fails the dump with
 * -ENODEV and an extack message.
 *
 * Storm start times are sent as CLOCK_REALTIME (converted here, at the
 * dump, from the CLOCK_MONOTONIC time recorded) and as recorded.
 *
 * Locking and context: process context; RTNL (device names),
 * pfcwd_ports_lock for the walk, port->lock for each port, then
 * port->swpfc.lock (software PFC) or port->push_lock (push) for the exact
 * pause time.
 */
#include <linux/rtnetlink.h>
#include <linux/timekeeping.h>
#include <net/genetlink.h>
#include <net/sock.h>

#include "netlink.h"

const struct nla_policy pfcwd_nl_history_get_policy[PFCWD_A_PORT_MAX + 1] = {
	PFCWD_NL_DEV_POLICY,
	[PFCWD_A_PORT_HISTORY_PRIO] = NLA_POLICY_MAX(NLA_U8, PFCWD_NUM_PRIO - 1),
};

/* The internal latch reasons are the uAPI's; the end reasons too. */
static_assert((int)PFCWD_LATCH_LIMIT == (int)PFCWD_LATCH_REASON_STORM_LIMIT);
static_assert((int)PFCWD_LATCH_NIC_STORM == (int)PFCWD_LATCH_REASON_NIC_STORM);
static_assert((int)PFCWD_HIST_BY_HAND == (int)PFCWD_STORM_END_BY_HAND);
static_assert((int)PFCWD_HIST_REPLACED == (int)PFCWD_STORM_END_REPLACED);
static_assert(PFCWD_HIST_STORMS == PFCWD_HIST_STORMS_MAX);

/* The device the request names, NULL for none, or an ERR_PTR.  RTNL. */
static struct net_device *pfcwd_nl_history_dev(struct netlink_callback *cb,
					       struct nlattr **attrs)
{
	struct nlattr *aindex = attrs[PFCWD_A_PORT_IFINDEX];
	struct nlattr *aname = attrs[PFCWD_A_PORT_IFNAME];
	struct net *net = sock_net(cb->skb->sk);
	struct net_device *dev = NULL, *byname;

	if (aindex) {
		dev = __dev_get_by_index(net, nla_get_u32(aindex));
		if (!dev) {
			NL_SET_ERR_MSG_ATTR(cb->extack, aindex,
					    "pfcwd: no device with this ifindex");
			return ERR_PTR(-ENODEV);
		}
	}
	if (aname) {
		byname = __dev_get_by_name(net, nla_data(aname));
		if (!byname) {
			NL_SET_ERR_MSG_ATTR(cb->extack, aname,
					    "pfcwd: no device with this ifname");
			return ERR_PTR(-ENODEV);
		}
		if (dev && dev != byname) {
			NL_SET_ERR_MSG_ATTR(cb->extack, aname,
					    "pfcwd: ifindex and ifname name different devices");
			return ERR_PTR(-EINVAL);
		}
		dev = byname;
	}
	return dev;
}

static int pfcwd_nl_put_storm(struct sk_buff *skb, struct pfcwd_prio *pp,
			      const struct pfcwd_hist_storm *r, u64 mono,
			      u64 real)
{
	u64 start = pfcwd_hist_storm_start(r), detected = r->detected;
	u64 tx = r->tx_dropped, rx = r->rx_dropped, fwd = r->tx_forwarded;
	u64 end = r->end;
	struct nlattr *nest;

	if (r->end_reason == PFCWD_HIST_ONGOING) {
		end = mono;
		if (pp->mitigating)
			pfcwd_action_last(pp, &tx, &rx, &fwd);
	}
	nest = nla_nest_start(skb, PFCWD_A_HIST_STORM);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u64_64bit(skb, PFCWD_A_STORM_START_NS,
			      real - min(real, mono - start),
			      PFCWD_A_STORM_PAD) ||
	    nla_put_u64_64bit(skb, PFCWD_A_STORM_START_MONO_NS, start,
			      PFCWD_A_STORM_PAD) ||
	    nla_put_u32(skb, PFCWD_A_STORM_DETECT_US, r->detect_us) ||
	    nla_put_u64_64bit(skb, PFCWD_A_STORM_DURATION_US,
			      div_u64(end > detected ? end - detected : 0,
				      NSEC_PER_USEC), PFCWD_A_STORM_PAD) ||
	    nla_put_u32(skb, PFCWD_A_STORM_ACTION, r->action) ||
	    nla_put_u8(skb, PFCWD_A_STORM_TX, r->tx) ||
	    nla_put_u32(skb, PFCWD_A_STORM_LATCH, r->latch) ||
	    nla_put_u32(skb, PFCWD_A_STORM_END, r->end_reason) ||
	    nla_put_u64_64bit(skb, PFCWD_A_STORM_TX_DROPPED, tx,
			      PFCWD_A_STORM_PAD) ||
	    nla_put_u64_64bit(skb, PFCWD_A_STORM_RX_DROPPED, rx,
			      PFCWD_A_STORM_PAD) ||
	    nla_put_u64_64bit(skb, PFCWD_A_STORM_TX_FORWARDED, fwd,
			      PFCWD_A_STORM_PAD)) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

/* One priority's history.  RTNL and port->lock held. */
static int pfcwd_nl_fill_history(struct sk_buff *skb, struct pfcwd_port *port,
				 int p)
{
	struct pfcwd_prio *pp = &port->prio[p];
	enum pfcwd_source src = pfcwd_port_source(port);
	bool exact = src == PFCWD_SOURCE_SOFTWARE || src == PFCWD_SOURCE_PUSH;
	u64 mono = ktime_get_ns(), real = ktime_get_real_ns();
	const struct pfcwd_hist_storm *r;
	struct pfcwd_hist_pause_read rd;
	struct nlattr *nest;
	u32 i;

	if (src == PFCWD_SOURCE_SOFTWARE)
		pfcwd_swpfc_history(port, p, mono, &rd);
	else if (src == PFCWD_SOURCE_PUSH)
		pfcwd_push_history(port, p, mono, &rd);
	else
		pfcwd_hist_pause_read(&pp->paused_est, mono, &rd);
	nest = nla_nest_start(skb, PFCWD_A_PORT_HISTORY);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u8(skb, PFCWD_A_HIST_PRIO, p) ||
	    nla_put_u8(skb, PFCWD_A_HIST_WATCHED, !!(port->cfg.prios & BIT(p))) ||
	    nla_put_u8(skb, PFCWD_A_HIST_EXACT, exact) ||
	    nla_put_u64_64bit(skb, PFCWD_A_HIST_PAUSED_NS, rd.paused_ns,
			      PFCWD_A_HIST_PAD) ||
	    nla_put_u64_64bit(skb, PFCWD_A_HIST_EPISODES, rd.episodes,
			      PFCWD_A_HIST_PAD) ||
	    nla_put_u32(skb, PFCWD_A_HIST_INTERVAL_MS,
			PFCWD_HIST_INTERVAL_NS / NSEC_PER_MSEC) ||
	    nla_put_u64_64bit(skb, PFCWD_A_HIST_LAST_PAUSED_NS, rd.last_ns,
			      PFCWD_A_HIST_PAD) ||
	    nla_put_u64_64bit(skb, PFCWD_A_HIST_LAST_EPISODES, rd.last_eps,
			      PFCWD_A_HIST_PAD) ||
	    nla_put_u8(skb, PFCWD_A_HIST_PAUSED, rd.paused) ||
	    nla_put_u64_64bit(skb, PFCWD_A_HIST_STORMS, pp->storms.total,
			      PFCWD_A_HIST_PAD))
		goto cancel;
	for (i = 0; (r = pfcwd_hist_storm_at(&pp->storms, i)); i++)
		if (pfcwd_nl_put_storm(skb, pp, r, mono, real))
			goto cancel;
	nla_nest_end(skb, nest);
	return 0;
cancel:
	nla_nest_cancel(skb, nest);
	return -EMSGSIZE;
}

static int pfcwd_nl_history_put(struct sk_buff *skb, struct pfcwd_port *port,
				int p, struct netlink_callback *cb)
{
	void *hdr;
	int err;

	hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
			  &pfcwd_genl_family, NLM_F_MULTI,
			  PFCWD_CMD_HISTORY_GET);
	if (!hdr)
		return -EMSGSIZE;
	genl_dump_check_consistent(cb, hdr);
	mutex_lock(&port->lock);
	err = port->dead ? -ENODEV : 0;
	if (!err && (nla_put_u32(skb, PFCWD_A_PORT_IFINDEX, port->dev->ifindex) ||
		     nla_put_string(skb, PFCWD_A_PORT_IFNAME, port->dev->name)))
		err = -EMSGSIZE;
	if (!err)
		err = pfcwd_nl_fill_history(skb, port, p);
	mutex_unlock(&port->lock);
	if (err) {
		genlmsg_cancel(skb, hdr);
		return err;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

/*
 * cb->args[0]: the id of the port the dump is at; args[1]: the priority
 * to send next there (PFCWD_NUM_PRIO: that port is done).
 */
int pfcwd_nl_history_get_dumpit(struct sk_buff *skb,
				struct netlink_callback *cb)
{
	struct nlattr *attrs[PFCWD_A_PORT_MAX + 1];
	struct net *net = sock_net(cb->skb->sk);
	struct net_device *dev;
	struct pfcwd_port *port;
	int err, p, only = -1;

	/*
	 * The request, validated by the core against the same policy (where
	 * the core keeps it parsed differs between kernels).
	 */
	err = nlmsg_parse(cb->nlh, GENL_HDRLEN, attrs, PFCWD_A_PORT_MAX,
			  pfcwd_nl_history_get_policy, cb->extack);
	if (err)
		return err;
	if (attrs[PFCWD_A_PORT_HISTORY_PRIO])
		only = nla_get_u8(attrs[PFCWD_A_PORT_HISTORY_PRIO]);
	rtnl_lock();
	dev = pfcwd_nl_history_dev(cb, attrs);
	if (IS_ERR(dev)) {
		err = PTR_ERR(dev);
		goto out_rtnl;
	}
	if (dev) {
		port = pfcwd_port_get(dev);
		if (port)
			pfcwd_port_put(port);
		if (!port || port->dead) {
			NL_SET_ERR_MSG(cb->extack,
				       "pfcwd: the device is not a pfcwd port");
			err = -ENODEV;
			goto out_rtnl;
		}
	}
	mutex_lock(&pfcwd_ports_lock);
	cb->seq = pfcwd_ports_gen + 1;
	list_for_each_entry(port, &pfcwd_ports, node) {
		if (port->id < cb->args[0] ||
		    (port->id == cb->args[0] && cb->args[1] >= PFCWD_NUM_PRIO) ||
		    port->dead || !net_eq(dev_net(port->dev), net) ||
		    (dev && port->dev != dev))
			continue;
		p = port->id == cb->args[0] ? cb->args[1] : 0;
		for (; p < PFCWD_NUM_PRIO; p++) {
			if (only >= 0 && p != only)
				continue;
			err = pfcwd_nl_history_put(skb, port, p, cb);
			if (err)
				break;
		}
		cb->args[0] = port->id;
		cb->args[1] = p;
		if (err)
			break;
	}
	mutex_unlock(&pfcwd_ports_lock);
out_rtnl:
	rtnl_unlock();
	/* A priority too big for an empty message would loop forever. */
	if (err == -EMSGSIZE && skb->len)
		return skb->len;
	return err ? err : skb->len;
}
