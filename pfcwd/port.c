// SPDX-License-Identifier: GPL-2.0
/*
 * Port lifecycle: a port is a net_device watched by pfcwd.
 *
 * A port is created when the first pfcwd qdisc attaches to a device or when
 * netlink enables it (port-set with enabled 1: the port is then "held"),
 * and removed when neither holds it any more (the last qdisc goes, netlink
 * sets enabled 0), when the device is unregistered, or when the module is
 * unloaded.  A device moving to another netns stays registered: its
 * qdiscs are destroyed by the move, so a port only a qdisc held ends, and
 * a held port moves with the device.  Removal first undoes everything
 * pfcwd changed on the device (software PFC packet handler, pfc_en bits,
 * ingress hook), then removes the sysfs group and drops the device
 * reference; the memory goes when the last port reference does.
 *
 * Locking and context (see pfcwd.h for the order RTNL -> ports_lock ->
 * port->lock):
 *  - attach, detach, teardown and the netdevice notifier run in process
 *    context under RTNL; they take pfcwd_ports_lock to change the list and
 *    the hash.
 *  - ports on devices of a netns that a user namespace owns (a tenant's
 *    root creates them) are limited, all tenants together, by the module
 *    parameter max_userns_ports (checked and counted under RTNL); a device
 *    moved to another netns keeps the count it was created with.
 *  - pfcwd_port_get() may run in any context: an RCU lookup and a
 *    refcount_inc_not_zero().
 *  - port->dead is set under RTNL (and port->lock); whoever holds RTNL and
 *    sees it clear may use port->dev.
 *  - the notifier takes port->lock only for events no driver call emits
 *    (rename, unregister): a link event may come from within a driver
 *    call pfcwd makes under port->lock, so it only marks the link for the
 *    poller to read (RTNL) and apply (port->lock), and kicks it.
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
		kfree_rcu(port, rcu);
}

/*
 * How long a full TX ring of @port keeps the link busy down to its wake
 * threshold (half), at @speed Mb/s, in frames of the MTU with their
 * Ethernet, VLAN and wire overhead: how long before a queue stops sending
 * the link may still have been sending from its ring (txq_stall.c).  A
 * driver that does not say gets 4096 descriptors.  RTNL held.
 */
static u64 pfcwd_port_ring_drain_ns(struct pfcwd_port *port, u32 speed)
{
	const struct ethtool_ops *ops = port->dev->ethtool_ops;
	struct kernel_ethtool_ringparam kring = {};
	struct ethtool_ringparam ring = {};
	u64 frame_bits;

	ring.tx_pending = 4096;
	if (ops && ops->get_ringparam)
		ops->get_ringparam(port->dev, &ring, &kring, NULL);
	if (!ring.tx_pending)
		return 0;
	/* MTU + header + tag + preamble, SFD, FCS and inter-frame gap */
	frame_bits = (u64)(READ_ONCE(port->dev->mtu) + ETH_HLEN + VLAN_HLEN +
			   24) * 8;
	return div_u64((ring.tx_pending / 2 + 1) * frame_bits * 1000, speed);
}

/*
 * The link, from the device (driver calls), and what the notifier saw of
 * it since the last read: RTNL held, never port->lock.
 */
static void pfcwd_port_read_link(struct pfcwd_port *port,
				 struct pfcwd_link *link)
{
	struct ethtool_link_ksettings ks;
	u32 speed = SPEED_10000;

	ASSERT_RTNL();
	if (!__ethtool_get_link_ksettings(port->dev, &ks) &&
	    ks.base.speed != SPEED_UNKNOWN && ks.base.speed)
		speed = ks.base.speed;
	link->speed = speed;
	link->up = netif_running(port->dev) && netif_carrier_ok(port->dev);
	link->lost_at = port->link_lost_at;
	port->link_lost_at = 0;
	port->link_dirty = false;
	port->link_was_up = link->up;
	WRITE_ONCE(port->txq_drain_ns, pfcwd_port_ring_drain_ns(port, speed));
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
 * pfcwd_port_link_apply - the state machines' view of a link read
 * @port: the port; port->lock held (or not visible yet)
 * @link: what pfcwd_port_link_read() found
 *
 * Pause continuity from the link speed (storm.h), the link state, and a
 * carrier loss that pfcwd's own setpfc may have caused.
 */
void pfcwd_port_link_apply(struct pfcwd_port *port,
			   const struct pfcwd_link *link)
{
	bool was_up = port->link_up;

	/* 65535 quanta of 512 bit times at the link's speed, in ns */
	port->hold_ns = div_u64(65535ULL * 512 * 1000, link->speed);
	pfcwd_swpfc_set_speed(port, link->speed);
	port->link_up = link->up;
	if (link->lost_at)
		pfcwd_action_carrier_lost(port, link->lost_at);
	else if (was_up && !link->up)
		pfcwd_action_carrier_lost(port, ktime_get_ns());
	port->reprime = true;
	WRITE_ONCE(port->quiet, false);
}

/*
 * The pause-rate configuration of both directions: measured over buckets
 * no finer than the counters' refresh period.
 */
void pfcwd_port_rate_config(const struct pfcwd_port *port,
			    struct pfcwd_rate_config rate[PFCWD_RATE_DIRS])
{
	const struct pfcwd_config *cfg = &port->cfg;
	u64 refresh, window;
	int d;

	BUILD_BUG_ON((int)PFCWD_RATE_DIR_RX != (int)PFCWD_RATE_RX ||
		     (int)PFCWD_RATE_DIR_TX != (int)PFCWD_RATE_TX);
	pfcwd_source_refresh(port, &refresh, &window);
	for (d = 0; d < PFCWD_RATE_DIRS; d++) {
		rate[d].threshold = d == PFCWD_RATE_DIR_RX ? cfg->rate_rx :
							     cfg->rate_tx;
		rate[d].window_ns = (u64)cfg->rate_window_ms * NSEC_PER_MSEC;
		rate[d].refresh_ns = refresh;
		rate[d].refresh_window_ns = window;
		rate[d].bucket_ns = pfcwd_rate_bucket_ns(refresh);
	}
}

/* The pause-rate window in force (pause_rate.h); port->lock held. */
u64 pfcwd_port_rate_window_ns(const struct pfcwd_port *port)
{
	struct pfcwd_rate_config rate[PFCWD_RATE_DIRS];

	pfcwd_port_rate_config(port, rate);
	return pfcwd_rate_window_ns(&rate[PFCWD_RATE_DIR_RX]);
}

void pfcwd_port_storm_config(const struct pfcwd_port *port,
			     struct pfcwd_storm_config *scfg)
{
	const struct pfcwd_config *cfg = &port->cfg;

	scfg->detect_ns = (u64)cfg->detect_ms * NSEC_PER_MSEC;
	scfg->restore_ns = (u64)cfg->restore_ms * NSEC_PER_MSEC;
	scfg->warn_ns = (u64)cfg->warn_ms * NSEC_PER_MSEC;
	pfcwd_source_refresh(port, &scfg->refresh_ns, &scfg->refresh_window_ns);
	scfg->hold_ns = port->hold_ns + 2 * pfcwd_source_fine_ns(port);
	scfg->storm_window_ns = (u64)READ_ONCE(pfcwd_params.storm_window_ms) *
				NSEC_PER_MSEC;
	scfg->slow_window_ns = (u64)READ_ONCE(pfcwd_params.slow_window_ms) *
			       NSEC_PER_MSEC;
	scfg->storm_limit = cfg->storm_limit;
	/* The pure code's backoff bounds are the ones the uAPI documents. */
	BUILD_BUG_ON(PFCWD_STORM_BACKOFF_MAX != PFCWD_BACKOFF_LEVEL_MAX);
	BUILD_BUG_ON(PFCWD_STORM_BACKOFF_CAP_NS !=
		     (u64)PFCWD_BACKOFF_MAX_MS * NSEC_PER_MSEC);
	scfg->backoff = cfg->backoff;
	pfcwd_port_rate_config(port, scfg->rate);
	scfg->slow_threshold = READ_ONCE(pfcwd_params.slow_threshold);
	scfg->disables_pfc = pfcwd_action_device_pfc(port) &&
			     cfg->action != PFCWD_ACTION_ALERT;
	scfg->stall_only = pfcwd_port_source(port) == PFCWD_SOURCE_TXQ;
	/* A queue of a saturated link stops while half its ring drains. */
	scfg->stall_min_ns = min(scfg->hold_ns, scfg->detect_ns / 4);
}

/**
 * pfcwd_port_prio_config - one priority's storm configuration
 * @port: the port; port->lock held
 * @p: the priority
 * @base: the port's, from pfcwd_port_storm_config()
 * @scfg: @base with @p's overrides of T0, T1, the warning time and the
 *	action (whether it clears pfc_en: the storm in progress's action,
 *	else the next storm's)
 */
void pfcwd_port_prio_config(const struct pfcwd_port *port, int p,
			    const struct pfcwd_storm_config *base,
			    struct pfcwd_storm_config *scfg)
{
	const struct pfcwd_config *cfg = &port->cfg;
	const struct pfcwd_prio *pp = &port->prio[p];
	struct pfcwd_storm_override ovr = {};
	enum pfcwd_action action;

	*scfg = *base;
	if (!cfg->ovr[p])
		return;
	if (cfg->ovr[p] & PFCWD_PRIO_OVR_DETECT)
		ovr.detect_ns = (u64)cfg->prio_detect_ms[p] * NSEC_PER_MSEC;
	if (cfg->ovr[p] & PFCWD_PRIO_OVR_RESTORE)
		ovr.restore_ns = (u64)cfg->prio_restore_ms[p] * NSEC_PER_MSEC;
	if (cfg->ovr[p] & PFCWD_PRIO_OVR_WARN) {
		ovr.warn_set = true;
		ovr.warn_ns = (u64)cfg->prio_warn_ms[p] * NSEC_PER_MSEC;
	}
	pfcwd_storm_config_prio(scfg, &ovr);
	action = pp->mitigating ? pp->applied : pfcwd_cfg_prio_action(cfg, p);
	scfg->disables_pfc = pfcwd_action_device_pfc(port) &&
			     action != PFCWD_ACTION_ALERT;
}

static struct pfcwd_port *pfcwd_port_create(struct net_device *dev)
{
	struct pfcwd_link link;
	struct pfcwd_port *port;
	int p;

	port = kzalloc(sizeof(*port), GFP_KERNEL);
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
	port->dead = true;
	mutex_unlock(&port->lock);
	pfcwd_source_free(port);

	mutex_lock(&pfcwd_ports_lock);
	hlist_del_rcu(&port->hnode);
	list_del_rcu(&port->node);
	WRITE_ONCE(pfcwd_nr_ports, pfcwd_nr_ports - 1);
	if (port->userns)
		WRITE_ONCE(pfcwd_nr_userns_ports, pfcwd_nr_userns_ports - 1);
	pfcwd_ports_gen++;
	mutex_unlock(&pfcwd_ports_lock);

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

	mutex_lock(&pfcwd_ports_lock);
	if (userns)
		WRITE_ONCE(pfcwd_nr_userns_ports, pfcwd_nr_userns_ports + 1);
	port->id = ++pfcwd_port_next_id;
	hlist_add_head_rcu(&port->hnode, pfcwd_port_bucket(dev));
	list_add_tail_rcu(&port->node, &pfcwd_ports);
	WRITE_ONCE(pfcwd_nr_ports, pfcwd_nr_ports + 1);
	pfcwd_ports_gen++;
	mutex_unlock(&pfcwd_ports_lock);

	err = pfcwd_sysfs_add(port);
	if (err) {
		NL_SET_ERR_MSG(extack, "pfcwd: cannot create the sysfs directory");
		pfcwd_port_teardown(port);
		return ERR_PTR(err);
	}
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
		 * What pfcwd applied belongs to the old netns (the ingress
		 * hook is registered there): undo it all and start afresh.
		 */
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
 * reference), but ports may: remove them all.
 */
void pfcwd_port_exit(void)
{
	struct pfcwd_port *port, *tmp;

	unregister_netdevice_notifier(&pfcwd_netdev_nb);
	rtnl_lock();
	list_for_each_entry_safe(port, tmp, &pfcwd_ports, node)
		pfcwd_port_teardown(port);
	rtnl_unlock();
}
