// SPDX-License-Identifier: GPL-2.0
/*
 * Calling a driver's ethtool ops as the ethtool core does.
 *
 * The core never calls a driver's ethtool op on a device that is not
 * present (detached for a reset, a PCI error, suspend), it resumes the
 * parent device first (runtime PM: a suspended NIC may not answer) and it
 * brackets each request with ops->begin() and ops->complete(), which some
 * drivers use to power up or to lock their state.  Drivers rely on that:
 * pfcwd_ethtool_begin() and pfcwd_ethtool_complete() do the same around
 * every ethtool op pfcwd calls, and pfcwd_port_absent() keeps the poller
 * away from a device that is not present.
 *
 * Context: process context, RTNL held (the core calls the ops under RTNL,
 * and a detach racing with a request is ordered by it).  The absent fields
 * of the port belong to the poller (read with READ_ONCE for display).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ethtool.h>
#include <linux/netdevice.h>
#include <linux/pm_runtime.h>
#include <linux/rtnetlink.h>

#include "pfcwd.h"

/**
 * pfcwd_ethtool_begin - before one or more ethtool ops of @dev
 * @dev: the device; RTNL held, process context (may sleep)
 *
 * Return: 0, and then pfcwd_ethtool_complete() must follow the calls; or
 * -ENODEV if the device is not present or going away, or the error of
 * the driver's begin(), and then no op may be called.
 */
int pfcwd_ethtool_begin(struct net_device *dev)
{
	const struct ethtool_ops *ops = dev->ethtool_ops;
	int err = -ENODEV;

	ASSERT_RTNL();
	if (!ops)
		return -EOPNOTSUPP;
	/* As the core: resume the parent first; a failure leaves the count. */
	if (dev->dev.parent)
		pm_runtime_get_sync(dev->dev.parent);
	if (!netif_device_present(dev) ||
	    dev->reg_state >= NETREG_UNREGISTERING)
		goto out;
	err = ops->begin ? ops->begin(dev) : 0;
	if (!err)
		return 0;
out:
	if (dev->dev.parent)
		pm_runtime_put(dev->dev.parent);
	return err;
}

/**
 * pfcwd_ethtool_complete - after the ethtool ops a successful
 *	pfcwd_ethtool_begin() allowed
 * @dev: the device; RTNL held
 */
void pfcwd_ethtool_complete(struct net_device *dev)
{
	ASSERT_RTNL();
	if (dev->ethtool_ops->complete)
		dev->ethtool_ops->complete(dev);
	if (dev->dev.parent)
		pm_runtime_put(dev->dev.parent);
}

/**
 * pfcwd_port_absent - whether the poller must leave @port's device alone
 * @port: the port; RTNL held, poller
 *
 * A device that is not present (netif_device_detach(): a reset, a PCI
 * error, suspend) gets no driver call at all, dcbnl included: drivers
 * count on the core refusing them then.  Its machines keep their state
 * and are re-primed once it is back (its counters may have been reset).
 * Counted in absent_polls, and logged when it goes and comes back.
 *
 * Return: true if the device is not present.
 */
bool pfcwd_port_absent(struct pfcwd_port *port)
{
	ASSERT_RTNL();
	if (netif_device_present(port->dev)) {
		if (port->absent)
			pr_notice("%s: device present again: pfcwd reads it again\n",
				  port->name);
		WRITE_ONCE(port->absent, false);
		return false;
	}
	if (!port->absent)
		pr_notice("%s: device not present: pfcwd calls no driver op until it is back\n",
			  port->name);
	WRITE_ONCE(port->absent, true);
	WRITE_ONCE(port->absent_polls, port->absent_polls + 1);
	mutex_lock(&port->lock);
	port->reprime = true;
	/* So that the first poll once it is back is a full one. */
	WRITE_ONCE(port->quiet, false);
	mutex_unlock(&port->lock);
	return true;
}
