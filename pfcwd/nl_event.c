// SPDX-License-Identifier: GPL-2.0
/*
 * Notifications on the "events" multicast group.
 *
 * A priority's: storm-detected, storm-restored, tx-storm, slow-receiver,
 * storm-warning and pause-rate, each with the port's ifindex, ifname and
 * action and one PFCWD_A_PORT_PRIO nest with the priority's state,
 * counters and the time of the event; pause-rate also the direction, the
 * mean rate and how long it has been above the threshold.
 *
 * A port's: port-added and config-changed with the whole port as port-get
 * shows it (no driver statistics), port-removed, setpfc-failed (the
 * driver's errno and the bits it left), setpfc-fallback (device-action
 * auto stopped using pfc_en: the link bounced) and source-blind (the port
 * can see no storm now, or sees again).
 *
 * Every event carries PFCWD_A_PORT_EVENT_SEQ, numbered per netns from 1:
 * a listener that finds a gap lost events (its socket overflowed, or one
 * could not be built).  Events go to listeners in the port's netns and are
 * only built when someone listens.  None is sent while the family is not
 * registered (module unload tears the ports down after it is gone).
 *
 * A listener of the actions (pfcwd_nl_listener, subscribed by main.c):
 * action.c publishes, this file hears; it never calls action.c.
 *
 * Context: process, with RTNL and port->lock held (called from the
 * emitters, through the listener slot).  RTNL orders the events of a netns
 * and protects their numbers and pfcwd_nl_live.
 */
#include <linux/rtnetlink.h>
#include <net/genetlink.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>

#include "netlink.h"

struct pfcwd_nl_net {
	u64 event_seq;		/* the last event's number; RTNL */
};

static unsigned int pfcwd_nl_net_id __read_mostly;
static bool pfcwd_nl_live;	/* the family is registered; RTNL */

static struct pernet_operations pfcwd_nl_net_ops = {
	.id	= &pfcwd_nl_net_id,
	.size	= sizeof(struct pfcwd_nl_net),
};

/*
 * A message of @cmd about @port, numbered, with its ifindex and ifname
 * unless @whole (the caller writes the whole port); NULL if nobody
 * listens or it cannot be built.  Numbered first, so that a message that
 * cannot be built leaves a gap.
 */
static struct sk_buff *pfcwd_nl_event_start(struct pfcwd_port *port, u8 cmd,
					    bool whole)
{
	struct net *net = dev_net(port->dev);
	struct pfcwd_nl_net *nn;
	struct sk_buff *msg;
	u64 seq;

	ASSERT_RTNL();
	if (!pfcwd_nl_live ||
	    !genl_has_listeners(&pfcwd_genl_family, net, PFCWD_NL_MCGRP_EVENTS))
		return NULL;
	nn = net_generic(net, pfcwd_nl_net_id);
	seq = ++nn->event_seq;
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return NULL;
	if (!genlmsg_put(msg, 0, 0, &pfcwd_genl_family, 0, cmd) ||
	    nla_put_u64_64bit(msg, PFCWD_A_PORT_EVENT_SEQ, seq,
			      PFCWD_A_PORT_PAD) ||
	    (!whole &&
	     (nla_put_u32(msg, PFCWD_A_PORT_IFINDEX, port->dev->ifindex) ||
	      nla_put_string(msg, PFCWD_A_PORT_IFNAME, port->dev->name)))) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

/* Sends what pfcwd_nl_event_start() began, or frees it if @err. */
static void pfcwd_nl_event_end(struct pfcwd_port *port, struct sk_buff *msg,
			       int err)
{
	if (err) {
		nlmsg_free(msg);
		return;
	}
	nlmsg_end(msg, nlmsg_hdr(msg));
	genlmsg_multicast_netns(&pfcwd_genl_family, dev_net(port->dev), msg, 0,
				PFCWD_NL_MCGRP_EVENTS, GFP_KERNEL);
}

static int pfcwd_nl_put_rate(struct sk_buff *msg, struct pfcwd_port *port,
			     int prio, int dir)
{
	const struct pfcwd_rate_stats *rs = &port->prio[prio].sm.stats.rate[dir];

	if (nla_put_u8(msg, PFCWD_A_PORT_RATE_DIRECTION, dir) ||
	    nla_put_u64_64bit(msg, PFCWD_A_PORT_RATE_PPS, rs->last_rate,
			      PFCWD_A_PORT_PAD) ||
	    nla_put_u32(msg, PFCWD_A_PORT_RATE_DURATION_MS,
			div_u64(rs->last_duration_ns, NSEC_PER_MSEC)))
		return -EMSGSIZE;
	return 0;
}

static void pfcwd_nl_event_send(struct pfcwd_port *port, int prio, u8 cmd,
				u64 when, int dir)
{
	struct sk_buff *msg = pfcwd_nl_event_start(port, cmd, false);
	int err;

	if (!msg)
		return;
	err = nla_put_u32(msg, PFCWD_A_PORT_ACTION, port->cfg.action) ||
	      pfcwd_nl_fill_prio(msg, port, prio, NULL, NULL, when ? when : 1);
	if (!err && dir >= 0)
		err = pfcwd_nl_put_rate(msg, port, prio, dir);
	pfcwd_nl_event_end(port, msg, err ? -EMSGSIZE : 0);
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

/* What a port event says beside the port's name, by its kind. */
static int pfcwd_nl_put_port_event(struct sk_buff *msg,
				   struct pfcwd_port *port, u8 cmd,
				   const struct pfcwd_port_event *ev)
{
	enum pfcwd_lever lever = pfcwd_action_port_lever(port);

	switch (cmd) {
	case PFCWD_CMD_PORT_ADDED:
	case PFCWD_CMD_CONFIG_CHANGED:
		return pfcwd_nl_fill_port(msg, port, false);
	case PFCWD_CMD_SETPFC_FAILED:
		if (nla_put_u32(msg, PFCWD_A_PORT_SETPFC_ERRNO, -ev->err) ||
		    nla_put_u8(msg, PFCWD_A_PORT_SETPFC_PRIOS, ev->prios) ||
		    nla_put_u64_64bit(msg, PFCWD_A_PORT_SETPFC_ERRORS,
				      port->setpfc_errors, PFCWD_A_PORT_PAD))
			return -EMSGSIZE;
		break;
	case PFCWD_CMD_SETPFC_FALLBACK:
		if (nla_put_u32(msg, PFCWD_A_PORT_DEVICE_ACTION,
				port->cfg.device_action) ||
		    nla_put_u8(msg, PFCWD_A_PORT_SETPFC_HURTS,
			       READ_ONCE(port->setpfc_hurts)))
			return -EMSGSIZE;
		break;
	case PFCWD_CMD_SOURCE_BLIND:
		if (nla_put_u8(msg, PFCWD_A_PORT_BLIND, port->blind) ||
		    nla_put_u32(msg, PFCWD_A_PORT_SOURCE,
				pfcwd_port_source(port)) ||
		    nla_put_u64_64bit(msg, PFCWD_A_PORT_READ_ERRORS,
				      READ_ONCE(port->read_errors),
				      PFCWD_A_PORT_PAD))
			return -EMSGSIZE;
		return 0;
	default:	/* PFCWD_CMD_PORT_REMOVED: the name says it all */
		return 0;
	}
	/* What mitigation acts through from now on. */
	if (nla_put_u32(msg, PFCWD_A_PORT_LEVER, lever) ||
	    nla_put_u8(msg, PFCWD_A_PORT_RDMA_COVERED,
		       lever == PFCWD_LEVER_PFC_EN))
		return -EMSGSIZE;
	return 0;
}

/**
 * pfcwd_nl_port_event - tell listeners what happened to a port
 * @port: the port; RTNL and port->lock held, !port->dead
 * @cmd: PFCWD_CMD_PORT_ADDED, _PORT_REMOVED, _CONFIG_CHANGED,
 *	_SETPFC_FAILED, _SETPFC_FALLBACK or _SOURCE_BLIND
 * @ev: what it carries beside the port
 */
void pfcwd_nl_port_event(struct pfcwd_port *port, u8 cmd,
			 const struct pfcwd_port_event *ev)
{
	bool whole = cmd == PFCWD_CMD_PORT_ADDED ||
		     cmd == PFCWD_CMD_CONFIG_CHANGED;
	struct sk_buff *msg = pfcwd_nl_event_start(port, cmd, whole);

	if (msg)
		pfcwd_nl_event_end(port, msg,
				   pfcwd_nl_put_port_event(msg, port, cmd, ev));
}

/* What the netlink events hear of the actions. */
const struct pfcwd_action_listener pfcwd_nl_listener = {
	.event		= pfcwd_nl_event,
	.rate_event	= pfcwd_nl_rate_event,
	.port_event	= pfcwd_nl_port_event,
};

/**
 * pfcwd_nl_events_init - the events' numbers, before the family exists
 *
 * Return: 0 or a negative errno (nothing registered).
 */
int pfcwd_nl_events_init(void)
{
	return register_pernet_subsys(&pfcwd_nl_net_ops);
}

/* Events may be sent (@live: the family is registered) or not. */
void pfcwd_nl_events_live(bool live)
{
	rtnl_lock();
	pfcwd_nl_live = live;
	rtnl_unlock();
}

/* The events' numbers go, after the family. */
void pfcwd_nl_events_exit(void)
{
	unregister_pernet_subsys(&pfcwd_nl_net_ops);
}
