// SPDX-License-Identifier: GPL-2.0
/*
 * Port lifecycle: when a net_device becomes a port of pfcwd and when it
 * stops being one.  The layer above everything a port is made of: it
 * creates a port (allocation, initial configuration and state, the
 * source probe, the first link read) and calls down into the port object
 * (port.c, port_cfg.c), its sources, software PFC, the actions, sysfs and
 * the poller's doorbell; nothing of those calls it (the qdisc and
 * netlink, above it, do).
 *
 * A port is created when the first pfcwd qdisc attaches to a device or when
 * netlink enables it (port-set with enabled 1: the port is then "held"),
 * and removed when neither holds it any more (the last qdisc goes, netlink
 * sets enabled 0), when the device is unregistered, or when the module is
 * unloaded.  A device moving to another netns stays registered: its
 * qdiscs are destroyed by the move, so a port only a qdisc held ends, and
 * a held port moves with the device, unless it leaves a netns that a user
 * namespace owns (a tenant's hold ends with the tenant's reach).  Removal
 * first undoes everything pfcwd changed on the device (software PFC
 * packet handler, pfc_en bits, ingress hook), then removes the sysfs
 * group and drops the device reference; the memory goes when the last
 * port reference does.
 *
 * Locking and context (see pfcwd.h for the order RTNL -> ports_lock ->
 * port->lock):
 *  - attach, detach, hold, release, teardown and the netdevice notifier
 *    run in process context under RTNL; linking and unlinking a port
 *    (port.c) take pfcwd_ports_lock to change the list and the hash.
 *  - ports on devices of a netns that a user namespace owns (a tenant's
 *    root creates them) are limited, all tenants together, by the module
 *    parameter max_userns_ports (checked and counted under RTNL); a device
 *    moved to another netns keeps the count it was created with.
 *  - port->dead is set under RTNL (and port->lock); whoever holds RTNL and
 *    sees it clear may use port->dev.
 *  - the notifier takes port->lock only for events no driver call emits
 *    (rename, unregister): a link event may come from within a driver
 *    call pfcwd makes under port->lock, so it only marks the link for the
 *    poller to read (RTNL) and apply (port->lock), and kicks it.
 *  - pfcwd_port_init() and pfcwd_port_exit() run at module load and
 *    unload (main.c), in the same places of its order as before.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/mm.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <linux/user_namespace.h>
#include <net/netlink.h>

#include "pfcwd.h"

/*
 * A new port for @dev, not linked in yet.  RTNL held, process context
 * (the driver is probed and read).  Return: the port with one reference
 * (the list's, once linked), or NULL.
 */
static struct pfcwd_port *pfcwd_port_create(struct net_device *dev)
{
	struct pfcwd_link link;
	struct pfcwd_port *port;
	int p;

	/* 17 KB: vmalloc's pages when no order-3 run is free. */
	port = kvzalloc(sizeof(*port), GFP_KERNEL);
	if (!port)
		return NULL;
	refcount_set(&port->refcnt, 1);
	pfcwd_ectr_init(port);
	mutex_init(&port->lock);
	spin_lock_init(&port->push_lock);
	port->dev = dev;
	strscpy(port->name, dev->name, sizeof(port->name));
	ratelimit_state_init(&port->log_rs, 5 * HZ, 40);
	port->next_poll = 0;

	port->cfg.detect_ms = READ_ONCE(pfcwd_params.detect_ms);
	port->cfg.restore_ms = READ_ONCE(pfcwd_params.restore_ms);
	port->cfg.action = READ_ONCE(pfcwd_params.action);
	port->cfg.rate_window_ms = PFCWD_RATE_WINDOW_MS_DEFAULT;
	port->cfg.enabled = true;
	for (p = 0; p < PFCWD_NUM_PRIO; p++) {
		u64 now = ktime_get_ns();

		pfcwd_storm_init(&port->prio[p].sm);
		pfcwd_hist_pause_init(&port->prio[p].paused_est, now);
		pfcwd_hist_ring_init(&port->prio[p].storms);
		pfcwd_hist_pause_init(&port->swpfc.prio[p].paused, now);
		pfcwd_hist_pause_init(&port->prio[p].push.paused, now);
	}

	pfcwd_source_probe(port);
	port->cfg.prios = port->has_dcb ? port->pfc_en : PFCWD_DEFAULT_PRIOS;
	port->cfg.prios_follow = port->has_dcb;
	pfcwd_port_read_link(port, &link);
	pfcwd_port_link_apply(port, &link);
	netdev_hold(dev, &port->dev_tracker, GFP_KERNEL);
	pfcwd_swpfc_start(port);
	return port;
}

/*
 * Undoes what pfcwd did to the device and unlinks the port.  RTNL held.
 * The caller's reference (the list's) is dropped.
 */
static void pfcwd_port_teardown(struct pfcwd_port *port)
{
	ASSERT_RTNL();
	pfcwd_sysfs_del(port);
	pfcwd_swpfc_stop(port);

	mutex_lock(&port->lock);
	pfcwd_action_undo_all(port);
	pfcwd_action_port_event(port, PFCWD_CMD_PORT_REMOVED, NULL);
	port->dead = true;
	mutex_unlock(&port->lock);
	pfcwd_source_free(port);

	pfcwd_port_unlink(port);

	netdev_put(port->dev, &port->dev_tracker);
	pfcwd_port_put(port);
}

/*
 * Creates the port of @dev and links it in.  RTNL held.  Return: the port
 * with the list's reference only, or an ERR_PTR.
 */
static struct pfcwd_port *pfcwd_port_add(struct net_device *dev,
					 struct netlink_ext_ack *extack)
{
	bool userns = dev_net(dev)->user_ns != &init_user_ns;
	struct pfcwd_port *port;
	int err;

	/*
	 * Every port costs the poller (and stretches the quiet interval of
	 * all once there are more than poll_budget allows): root in a user
	 * namespace creates ports up to a limit shared by all tenants.
	 * RTNL serialises the check with the additions.
	 */
	if (userns && READ_ONCE(pfcwd_nr_userns_ports) >=
		      READ_ONCE(pfcwd_params.max_userns_ports)) {
		NL_SET_ERR_MSG(extack,
			       "pfcwd: ports in user namespaces are at their limit (module parameter max_userns_ports)");
		return ERR_PTR(-ENOSPC);
	}
	port = pfcwd_port_create(dev);
	if (!port) {
		NL_SET_ERR_MSG(extack, "pfcwd: out of memory creating the port");
		return ERR_PTR(-ENOMEM);
	}
	port->userns = userns;

	pfcwd_port_link(port);

	err = pfcwd_sysfs_add(port);
	if (err) {
		NL_SET_ERR_MSG(extack, "pfcwd: cannot create the sysfs directory");
		pfcwd_port_teardown(port);
		return ERR_PTR(err);
	}
	pfcwd_action_announce(port);
	mutex_lock(&port->lock);
	pfcwd_action_port_event(port, PFCWD_CMD_PORT_ADDED, NULL);
	mutex_unlock(&port->lock);
	pfcwd_poll_kick();
	return port;
}

/* Removes @port if nothing holds it any more.  RTNL held. */
static void pfcwd_port_unused(struct pfcwd_port *port)
{
	if (!port->qdisc_users && !port->held && !port->dead)
		pfcwd_port_teardown(port);
}

/* @dev's port with a reference for the caller, created if need be.  RTNL. */
static struct pfcwd_port *pfcwd_port_get_or_add(struct net_device *dev,
						struct netlink_ext_ack *extack)
{
	struct pfcwd_port *port = pfcwd_port_get(dev);

	if (port)
		return port;
	port = pfcwd_port_add(dev, extack);
	if (!IS_ERR(port))
		refcount_inc(&port->refcnt);
	return port;
}

/**
 * pfcwd_port_attach - a pfcwd qdisc attaches to @dev
 * @dev: the device
 * @extack: for errors
 *
 * RTNL held, process context.  Creates the port on first use.
 *
 * Return: the port, with a "qdisc user" and a reference that
 * pfcwd_port_detach() gives back; or an ERR_PTR.
 */
struct pfcwd_port *pfcwd_port_attach(struct net_device *dev,
				     struct netlink_ext_ack *extack)
{
	struct pfcwd_port *port;

	ASSERT_RTNL();
	port = pfcwd_port_get_or_add(dev, extack);
	if (IS_ERR(port))
		return port;
	port->qdisc_users++;
	return port;
}

/**
 * pfcwd_port_detach - a pfcwd qdisc leaves its port
 * @port: from pfcwd_port_attach()
 *
 * RTNL held, process context.  The port goes when nothing holds it (and
 * its device has not taken it along already).  Drops the qdisc's
 * reference.
 */
void pfcwd_port_detach(struct pfcwd_port *port)
{
	ASSERT_RTNL();
	port->qdisc_users--;
	pfcwd_port_unused(port);
	pfcwd_port_put(port);
}

/**
 * pfcwd_port_hold - netlink enables @dev as a port
 * @dev: the device
 * @extack: for errors
 *
 * RTNL held, process context.  Creates the port if needed and marks it
 * held, so that it outlives its qdiscs.
 *
 * Return: the port with a reference (pfcwd_port_put()), or an ERR_PTR.
 */
struct pfcwd_port *pfcwd_port_hold(struct net_device *dev,
				   struct netlink_ext_ack *extack)
{
	struct pfcwd_port *port;

	ASSERT_RTNL();
	port = pfcwd_port_get_or_add(dev, extack);
	if (IS_ERR(port))
		return port;
	port->held = true;
	return port;
}

/**
 * pfcwd_port_release - netlink no longer holds @port
 * @port: the port
 *
 * RTNL held, process context.  The port goes if no qdisc holds it.
 */
void pfcwd_port_release(struct pfcwd_port *port)
{
	ASSERT_RTNL();
	port->held = false;
	pfcwd_port_unused(port);
}

static int pfcwd_netdev_event(struct notifier_block *nb, unsigned long event,
			      void *ptr)
{
	struct net_device *dev = netdev_notifier_info_to_dev(ptr);
	struct pfcwd_port *port;
	bool up;

	port = pfcwd_port_get(dev);
	if (!port)
		return NOTIFY_DONE;

	switch (event) {
	case NETDEV_UNREGISTER:
		if (port->dead)
			break;
		if (dev->reg_state == NETREG_UNREGISTERING) {
			pfcwd_port_teardown(port);
			break;
		}
		/*
		 * Moving to another netns keeps the device registered (only
		 * a held port is still here: the move destroyed the qdiscs).
		 * A tenant's hold (the netns left is a user namespace's) is
		 * not carried to where the tenant cannot reach it: it goes,
		 * as the device would with the tenant's netns, were it
		 * virtual.  Otherwise what pfcwd applied belongs to the old
		 * netns (the ingress hook is registered there): undo it all
		 * and start afresh.
		 */
		if (dev_net(dev)->user_ns != &init_user_ns) {
			pfcwd_port_release(port);
			break;
		}
		mutex_lock(&port->lock);
		pfcwd_action_forget(port, 0xff, PFCWD_HIST_NETNS);
		mutex_unlock(&port->lock);
		break;
	case NETDEV_CHANGENAME:
		mutex_lock(&port->lock);
		strscpy(port->name, dev->name, sizeof(port->name));
		mutex_unlock(&port->lock);
		break;
	case NETDEV_UP:
	case NETDEV_DOWN:
	case NETDEV_CHANGE:
		/*
		 * Maybe from within pfcwd's own driver call, under port->lock
		 * (ice's setpfc closes and reopens the netdev): no port->lock
		 * here.  The poller reads the link and applies it at once.
		 */
		up = netif_running(dev) && netif_carrier_ok(dev);
		if (port->link_was_up && !up && !port->link_lost_at)
			port->link_lost_at = ktime_get_ns();
		port->link_was_up = up;
		port->link_dirty = true;
		WRITE_ONCE(port->quiet, false);
		WRITE_ONCE(port->next_poll, 0);
		pfcwd_poll_kick();
		break;
	}
	pfcwd_port_put(port);
	return NOTIFY_DONE;
}

static struct notifier_block pfcwd_netdev_nb = {
	.notifier_call = pfcwd_netdev_event,
};

int pfcwd_port_init(void)
{
	return register_netdevice_notifier(&pfcwd_netdev_nb);
}

/*
 * Module unload.  No qdisc can exist any more (each holds a module
 * reference), but ports may: remove them all, under one RTNL hold and
 * while the notifier still runs, so that a device unregistered meanwhile
 * takes its port along before its sysfs goes.  Nothing can create a port
 * after (the netlink family and the qdisc kind are gone), so the
 * unregistration's replayed events find none to misread as netns moves.
 */
void pfcwd_port_exit(void)
{
	struct pfcwd_port *port, *tmp;

	rtnl_lock();
	list_for_each_entry_safe(port, tmp, &pfcwd_ports, node)
		pfcwd_port_teardown(port);
	rtnl_unlock();
	unregister_netdevice_notifier(&pfcwd_netdev_nb);
}
