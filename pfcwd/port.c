// SPDX-License-Identifier: GPL-2.0
/*
 * The port object: a net_device watched by pfcwd.
 *
 * The reference count (pfcwd_port_get()/put(): the memory goes with the
 * last reference, after an RCU grace period), the list and hash of ports
 * (pfcwd_port_link() and unlink()) and the link as read from the device.
 * The bottom of the port layers: this file calls nothing of pfcwd's but
 * the ethtool call guards (ethtool_call.c), which call nothing either.
 * Creating, linking and removing a port is lifecycle.c's; the port as the
 * state machines see it (the link applied, the configuration in force)
 * is port_cfg.c's; both are above this file.
 *
 * Locking and context (see pfcwd.h for the order RTNL -> ports_lock ->
 * port->lock):
 *  - link and unlink run in process context under RTNL (called by
 *    lifecycle.c) and take pfcwd_ports_lock to change the list and the
 *    hash.
 *  - pfcwd_port_get() may run in any context: an RCU lookup and a
 *    refcount_inc_not_zero().
 *  - the link is read under RTNL, never port->lock (the driver is called).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ethtool.h>
#include <linux/hash.h>
#include <linux/if_vlan.h>
#include <linux/rculist.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <linux/user_namespace.h>
#include <net/netlink.h>

#include "pfcwd.h"

#define PFCWD_HASH_BITS	8

/*
 * Serialises changes to pfcwd_ports and the hash; readers use RCU.  The
 * list is in creation order (port->id ascending), which netlink dumps
 * resume from; pfcwd_ports_gen changes with every addition and removal.
 */
DEFINE_MUTEX(pfcwd_ports_lock);
LIST_HEAD(pfcwd_ports);
unsigned int pfcwd_nr_ports;		/* under pfcwd_ports_lock; READ_ONCE */
/* ...of which created in a netns a user namespace owns (tenants'). */
unsigned int pfcwd_nr_userns_ports;
unsigned int pfcwd_ports_gen;		/* under pfcwd_ports_lock */
static u64 pfcwd_port_next_id;		/* under pfcwd_ports_lock */
static struct hlist_head pfcwd_port_hash[1 << PFCWD_HASH_BITS];

static struct hlist_head *pfcwd_port_bucket(const struct net_device *dev)
{
	return &pfcwd_port_hash[hash_ptr(dev, PFCWD_HASH_BITS)];
}

/**
 * pfcwd_port_get - find the port of a device and take a reference
 * @dev: the device
 *
 * Any context.  Return: the port (release with pfcwd_port_put()) or NULL.
 */
struct pfcwd_port *pfcwd_port_get(const struct net_device *dev)
{
	struct pfcwd_port *port, *found = NULL;

	rcu_read_lock();
	hlist_for_each_entry_rcu(port, pfcwd_port_bucket(dev), hnode) {
		if (port->dev == dev && refcount_inc_not_zero(&port->refcnt)) {
			found = port;
			break;
		}
	}
	rcu_read_unlock();
	return found;
}

void pfcwd_port_put(struct pfcwd_port *port)
{
	if (refcount_dec_and_test(&port->refcnt))
		kvfree_rcu(port, rcu);
}

/*
 * How long a full TX ring of @port keeps the link busy down to its wake
 * threshold (half), at @speed Mb/s, in frames of the MTU with their
 * Ethernet, VLAN and wire overhead: how long before a queue stops sending
 * the link may still have been sending from its ring (txq_stall.c).  A
 * driver that does not say gets 4096 descriptors.  RTNL held, between
 * pfcwd_ethtool_begin() and complete() if @present.
 */
static u64 pfcwd_port_ring_drain_ns(struct pfcwd_port *port, u32 speed,
				    bool present)
{
	const struct ethtool_ops *ops = port->dev->ethtool_ops;
	struct kernel_ethtool_ringparam kring = {};
	struct ethtool_ringparam ring = {};
	u64 frame_bits;

	ring.tx_pending = 4096;
	if (present && ops->get_ringparam)
		ops->get_ringparam(port->dev, &ring, &kring, NULL);
	if (!ring.tx_pending)
		return 0;
	/* MTU + header + tag + preamble, SFD, FCS and inter-frame gap */
	frame_bits = (u64)(READ_ONCE(port->dev->mtu) + ETH_HLEN + VLAN_HLEN +
			   24) * 8;
	return div_u64((ring.tx_pending / 2 + 1) * frame_bits * 1000, speed);
}

/*
 * The link, from the device (driver calls, as the ethtool core makes
 * them), and what the notifier saw of it since the last read: RTNL held,
 * never port->lock.  Also for a port being created (lifecycle.c), which
 * has no event to read yet.  A device not present (only at creation: the
 * poller leaves those alone) gets the defaults.
 */
void pfcwd_port_read_link(struct pfcwd_port *port, struct pfcwd_link *link)
{
	bool present = !pfcwd_ethtool_begin(port->dev);
	struct ethtool_link_ksettings ks;
	u32 speed = SPEED_10000;

	ASSERT_RTNL();
	if (present && !__ethtool_get_link_ksettings(port->dev, &ks) &&
	    ks.base.speed != SPEED_UNKNOWN && ks.base.speed)
		speed = ks.base.speed;
	link->speed = speed;
	link->up = netif_running(port->dev) && netif_carrier_ok(port->dev);
	link->lost_at = port->link_lost_at;
	port->link_lost_at = 0;
	port->link_dirty = false;
	port->link_was_up = link->up;
	WRITE_ONCE(port->txq_drain_ns,
		   pfcwd_port_ring_drain_ns(port, speed, present));
	if (present)
		pfcwd_ethtool_complete(port->dev);
}

/**
 * pfcwd_port_link_read - the link changed: read it
 * @port: the port; RTNL held, not port->lock (the driver is called)
 * @link: filled in, for pfcwd_port_link_apply()
 *
 * Return: false if no netdevice event came since the last read.
 */
bool pfcwd_port_link_read(struct pfcwd_port *port, struct pfcwd_link *link)
{
	if (!port->link_dirty)
		return false;
	pfcwd_port_read_link(port, link);
	return true;
}

/**
 * pfcwd_port_link - puts a created @port on the list and in the hash
 * @port: from pfcwd_port_create(); port->userns set
 *
 * RTNL held, process context; takes pfcwd_ports_lock.
 */
void pfcwd_port_link(struct pfcwd_port *port)
{
	mutex_lock(&pfcwd_ports_lock);
	if (port->userns)
		WRITE_ONCE(pfcwd_nr_userns_ports, pfcwd_nr_userns_ports + 1);
	port->id = ++pfcwd_port_next_id;
	hlist_add_head_rcu(&port->hnode, pfcwd_port_bucket(port->dev));
	list_add_tail_rcu(&port->node, &pfcwd_ports);
	WRITE_ONCE(pfcwd_nr_ports, pfcwd_nr_ports + 1);
	pfcwd_ports_gen++;
	mutex_unlock(&pfcwd_ports_lock);
}

/**
 * pfcwd_port_unlink - takes @port off the list and out of the hash
 * @port: a linked port; RCU readers may still see it (kvfree_rcu)
 *
 * RTNL held, process context; takes pfcwd_ports_lock.
 */
void pfcwd_port_unlink(struct pfcwd_port *port)
{
	mutex_lock(&pfcwd_ports_lock);
	hlist_del_rcu(&port->hnode);
	list_del_rcu(&port->node);
	WRITE_ONCE(pfcwd_nr_ports, pfcwd_nr_ports - 1);
	if (port->userns)
		WRITE_ONCE(pfcwd_nr_userns_ports, pfcwd_nr_userns_ports - 1);
	pfcwd_ports_gen++;
	mutex_unlock(&pfcwd_ports_lock);
}
