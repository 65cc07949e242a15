// SPDX-License-Identifier: GPL-2.0
/*
 * The port object: a net_device watched by pfcwd.
 *
 * Allocation and initial state (pfcwd_port_create()), the reference count
 * (pfcwd_port_get()/put(): the memory goes with the last reference, after
 * an RCU grace period), the list and hash of ports (pfcwd_port_link() and
 * unlink()), the link as the port sees it (read from the device, applied
 * to the state machines) and the configuration in force as the state
 * machines take it (storm, priority and pause-rate configuration).  When
 * a port is created, linked and removed is lifecycle.c's, above this
 * file: this file never calls it, nor sysfs, netlink or the poller.
 *
 * Locking and context (see pfcwd.h for the order RTNL -> ports_lock ->
 * port->lock):
 *  - create, link and unlink run in process context under RTNL (called by
 *    lifecycle.c); link and unlink take pfcwd_ports_lock to change the
 *    list and the hash.
 *  - pfcwd_port_get() may run in any context: an RCU lookup and a
 *    refcount_inc_not_zero().
 *  - the link is read under RTNL, never port->lock (the driver is called),
 *    and applied under port->lock; the configuration accessors run under
 *    port->lock (see each).
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

/**
 * pfcwd_port_create - a new port object for @dev, not linked in yet
 * @dev: the device
 *
 * RTNL held, process context (the driver is probed and read).  Return:
 * the port with one reference (the list's, once linked), or NULL.
 */
struct pfcwd_port *pfcwd_port_create(struct net_device *dev)
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
 * @port: a linked port; RCU readers may still see it (kfree_rcu)
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
