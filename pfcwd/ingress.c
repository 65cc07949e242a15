// SPDX-License-Identifier: GPL-2.0
/*
 * The ingress hook: while a priority of a port is mitigated with action
 * drop after a received storm (its dp_action is PFCWD_DP_DROP), packets of
 * that priority received on the port's device are dropped and counted in
 * prio[P].rx_dropped.
 *
 * Mechanism: one netfilter hook per port, family NFPROTO_NETDEV, hook
 * NF_NETDEV_INGRESS, bound to the device.  It runs in
 * __netif_receive_skb_core() after the packet taps and tc ingress, before
 * the device's rx_handler (bridge, bond, macvlan...) and the protocol
 * handlers, and it shares the device with nftables netdev chains: nothing
 * the device already uses is taken over.
 *
 * It exists only while some priority of the port drops:
 * pfcwd_ingress_update(), called by the action code whenever a dp_action
 * changes, registers it when the first priority starts dropping and
 * removes it when the last one stops.  Every way into a mitigation goes
 * through pfcwd_action_apply() and every way out (restoration, restoring
 * by hand, reconfiguration, port teardown on qdisc removal, device removal
 * or module unload, netns move) through pfcwd_action_undo(); the action
 * code calls here once the pass's pfc_en change is made: registering the
 * system's first netdev ingress hook, or removing its last, flips static
 * keys (the kernel patches its receive path on every CPU), and that must
 * not delay giving PFC back at a restoration.
 *
 * A received packet's priority is, in this order: the PCP of its VLAN tag
 * (in the skb, as the core leaves it after untagging, or still in the
 * frame); else, for IPv4 and IPv6, the priority the device's DCB APP table
 * gives its DSCP (IEEE DSCP selector entries; when one DSCP maps to several
 * priorities, the highest, as hardware does); else it is unknown, and such
 * a packet is never dropped.  The DSCP table is copied when the hook is
 * registered and copied again (by a work item) whenever a DSCP APP entry of
 * any device is added or removed, so the hook needs no DCB lock.
 *
 * Locking and context:
 *  - pfcwd_ingress_update(): process context, RTNL and port->lock held.
 *    nf_register_net_hook() and nf_unregister_net_hook() take netfilter's
 *    own mutex inside port->lock.  port->ingress is written only with both
 *    held, so either lock is enough to read it.
 *  - pfcwd_ingress_hook(): softirq (or process context with BH disabled),
 *    inside the RCU read-side section netfilter runs hooks in.  Takes no
 *    lock: dp_action, the DSCP table and its flag are read with READ_ONCE,
 *    drops are counted with atomic64_add().  netfilter does not wait for
 *    hooks already running when one is unregistered, so the hook's state
 *    is freed after an RCU grace period (kfree_rcu()), without making the
 *    RTNL holder wait; the port outlives it (teardown undoes every
 *    priority before it drops its references, and the port is freed after
 *    a grace period too); module unload waits for a grace period after the
 *    last hook is gone, so that no hook still runs the module's code.
 *  - pfcwd_ingress_dcb_event(): DCB notifier, atomic context; only queues
 *    pfcwd_ingress_work.
 *  - pfcwd_ingress_refresh(): a work item, process context; takes
 *    pfcwd_ports_lock, then each port->lock (no RTNL: a port whose hook
 *    exists under port->lock still holds its device).
 *  - pfcwd_ingress_init()/exit(): module load and unload.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/bitops.h>
#include <linux/if_vlan.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/netdevice.h>
#include <linux/netfilter.h>
#include <linux/notifier.h>
#include <linux/rtnetlink.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <net/dcbevent.h>
#include <net/dcbnl.h>
#include <net/dsfield.h>

#include "pfcwd.h"

#define PFCWD_NUM_DSCP		64
#define PFCWD_PRIO_UNKNOWN	0xff

/*
 * Drop before any other work, but after software PFC's hook (swpfc.c, at
 * INT_MIN), which must hear a stormed priority's pause frames.
 */
#define PFCWD_INGRESS_PRIORITY	(INT_MIN + 1)

struct pfcwd_ingress {
	struct nf_hook_ops ops;
	struct rcu_head rcu;
	struct pfcwd_port *port;
	bool dscp_any;				/* some DSCP has a priority */
	u8 dscp_prio[PFCWD_NUM_DSCP];		/* or PFCWD_PRIO_UNKNOWN */
};

/* For debugfs: hooks registered now, and ever registered and removed. */
static atomic_t pfcwd_ingress_hooks = ATOMIC_INIT(0);
static atomic64_t pfcwd_ingress_added = ATOMIC64_INIT(0);
static atomic64_t pfcwd_ingress_removed = ATOMIC64_INIT(0);

/* --- the datapath (softirq) ---------------------------------------------- */

/* The 802.1p priority of a VLAN-tagged packet, or -1. */
static int pfcwd_ingress_pcp(const struct sk_buff *skb)
{
	const struct vlan_hdr *vh;
	struct vlan_hdr _vh;

	if (skb_vlan_tag_present(skb))
		return skb_vlan_tag_get_prio(skb);
	if (!eth_type_vlan(skb->protocol))
		return -1;
	/* At ingress skb->data is past the MAC header: at the tag. */
	vh = skb_header_pointer(skb, 0, sizeof(_vh), &_vh);
	if (!vh)
		return -1;
	return (ntohs(vh->h_vlan_TCI) & VLAN_PRIO_MASK) >> VLAN_PRIO_SHIFT;
}

/* The DSCP of an IPv4 or IPv6 packet, or -1. */
static int pfcwd_ingress_dscp(const struct sk_buff *skb)
{
	switch (skb->protocol) {
	case htons(ETH_P_IP): {
		const struct iphdr *iph;
		struct iphdr _iph;

		iph = skb_header_pointer(skb, 0, sizeof(_iph), &_iph);
		if (!iph || iph->version != 4)
			return -1;
		return ipv4_get_dsfield(iph) >> 2;
	}
	case htons(ETH_P_IPV6): {
		const struct ipv6hdr *ip6h;
		struct ipv6hdr _ip6h;

		ip6h = skb_header_pointer(skb, 0, sizeof(_ip6h), &_ip6h);
		if (!ip6h || ip6h->version != 6)
			return -1;
		return ipv6_get_dsfield(ip6h) >> 2;
	}
	default:
		return -1;
	}
}

/* A received packet's priority, or -1 when it cannot be told. */
static int pfcwd_ingress_prio(const struct pfcwd_ingress *ing,
			      const struct sk_buff *skb)
{
	int prio, dscp;

	prio = pfcwd_ingress_pcp(skb);
	if (prio >= 0)
		return prio;
	if (!READ_ONCE(ing->dscp_any))
		return -1;
	dscp = pfcwd_ingress_dscp(skb);
	if (dscp < 0)
		return -1;
	prio = READ_ONCE(ing->dscp_prio[dscp]);
	return prio == PFCWD_PRIO_UNKNOWN ? -1 : prio;
}

static unsigned int pfcwd_ingress_hook(void *priv, struct sk_buff *skb,
				       const struct nf_hook_state *state)
{
	struct pfcwd_ingress *ing = priv;
	struct pfcwd_prio *pp;
	int prio;

	prio = pfcwd_ingress_prio(ing, skb);
	if (prio < 0)
		return NF_ACCEPT;
	pp = &ing->port->prio[prio];
	if (READ_ONCE(pp->dp_action) != PFCWD_DP_DROP)
		return NF_ACCEPT;
	/* A GRO packet stands for the frames it was built from. */
	atomic64_add(skb_shinfo(skb)->gso_segs ?: 1, &pp->rx_dropped);
	return NF_DROP;
}

/* --- the hook's lifetime (process context) -------------------------------- */

/*
 * Copies the device's DSCP APP entries into @ing.  Writers hold port->lock;
 * the hook may be reading: each entry is written once, whole.
 */
static void pfcwd_ingress_read_dscp(struct pfcwd_ingress *ing,
				    const struct net_device *dev)
{
	struct dcb_ieee_app_dscp_map map;
	bool any = false;
	int d;

	dcb_ieee_getapp_dscp_prio_mask_map(dev, &map);
	for (d = 0; d < PFCWD_NUM_DSCP; d++) {
		u8 mask = map.map[d];

		WRITE_ONCE(ing->dscp_prio[d],
			   mask ? fls(mask) - 1 : PFCWD_PRIO_UNKNOWN);
		any |= mask != 0;
	}
	WRITE_ONCE(ing->dscp_any, any);
}

static int pfcwd_ingress_add(struct pfcwd_port *port)
{
	struct net_device *dev = port->dev;
	struct pfcwd_ingress *ing;
	int err;

	ing = kzalloc(sizeof(*ing), GFP_KERNEL);
	if (!ing)
		return -ENOMEM;
	ing->port = port;
	pfcwd_ingress_read_dscp(ing, dev);
	ing->ops.hook = pfcwd_ingress_hook;
	ing->ops.dev = dev;
	ing->ops.priv = ing;
	ing->ops.pf = NFPROTO_NETDEV;
	ing->ops.hooknum = NF_NETDEV_INGRESS;
	ing->ops.priority = PFCWD_INGRESS_PRIORITY;

	err = nf_register_net_hook(dev_net(dev), &ing->ops);
	if (err) {
		kfree(ing);
		return err;
	}
	port->ingress = ing;
	atomic_inc(&pfcwd_ingress_hooks);
	atomic64_inc(&pfcwd_ingress_added);
	return 0;
}

static void pfcwd_ingress_del(struct pfcwd_port *port)
{
	struct pfcwd_ingress *ing = port->ingress;

	port->ingress = NULL;
	/*
	 * The hook is bound to the device, wherever its netns is now:
	 * netfilter finds it through the device and only checks that the
	 * namespace given is the device's.
	 */
	nf_unregister_net_hook(dev_net(port->dev), &ing->ops);
	atomic_dec(&pfcwd_ingress_hooks);
	atomic64_inc(&pfcwd_ingress_removed);
	/* Hooks already running may still use @ing. */
	kfree_rcu(ing, rcu);
}

/**
 * pfcwd_ingress_update - have the ingress hook exactly while it is needed
 * @port: the port; RTNL and port->lock held, !port->dead
 *
 * Call after changing any priority's dp_action.  The hook exists while at
 * least one priority drops (PFCWD_DP_DROP).  If it cannot be registered,
 * received packets are not dropped; the next call tries again.
 */
void pfcwd_ingress_update(struct pfcwd_port *port)
{
	bool want = false;
	int p, err;

	ASSERT_RTNL();
	lockdep_assert_held(&port->lock);
	for (p = 0; p < PFCWD_NUM_PRIO; p++)
		want |= port->prio[p].dp_action == PFCWD_DP_DROP;
	if (want == !!port->ingress)
		return;
	if (!want) {
		pfcwd_ingress_del(port);
		return;
	}
	err = pfcwd_ingress_add(port);
	if (err)
		pr_warn_ratelimited("%s: cannot drop received packets of stormed priorities: ingress hook: %d\n",
				    port->name, err);
}

/* Whether @port has its ingress hook now; port->lock or RTNL held. */
bool pfcwd_ingress_active(const struct pfcwd_port *port)
{
	return port->ingress;
}

/* debugfs: hooks registered now, ever registered, ever removed. */
void pfcwd_ingress_counts(int *now, u64 *added, u64 *removed)
{
	*now = atomic_read(&pfcwd_ingress_hooks);
	*added = atomic64_read(&pfcwd_ingress_added);
	*removed = atomic64_read(&pfcwd_ingress_removed);
}

/* --- DSCP APP table changes ------------------------------------------------ */

static void pfcwd_ingress_refresh(struct work_struct *work)
{
	struct pfcwd_port *port;

	mutex_lock(&pfcwd_ports_lock);
	list_for_each_entry(port, &pfcwd_ports, node) {
		mutex_lock(&port->lock);
		if (port->ingress)
			pfcwd_ingress_read_dscp(port->ingress, port->dev);
		mutex_unlock(&port->lock);
	}
	mutex_unlock(&pfcwd_ports_lock);
}

static DECLARE_WORK(pfcwd_ingress_work, pfcwd_ingress_refresh);

/*
 * The event names the device by ifindex only, which is not unique across
 * namespaces: every hook's copy is refreshed.  Changes are rare.
 */
static int pfcwd_ingress_dcb_event(struct notifier_block *nb,
				   unsigned long event, void *ptr)
{
	const struct dcb_app_type *app = ptr;

	if (event == DCB_APP_EVENT &&
	    app->app.selector == IEEE_8021QAZ_APP_SEL_DSCP)
		schedule_work(&pfcwd_ingress_work);
	return NOTIFY_DONE;
}

static struct notifier_block pfcwd_ingress_dcb_nb = {
	.notifier_call = pfcwd_ingress_dcb_event,
};

int pfcwd_ingress_init(void)
{
	return register_dcbevent_notifier(&pfcwd_ingress_dcb_nb);
}

/* Module unload, after every port is gone. */
void pfcwd_ingress_exit(void)
{
	unregister_dcbevent_notifier(&pfcwd_ingress_dcb_nb);
	cancel_work_sync(&pfcwd_ingress_work);
	WARN_ON(atomic_read(&pfcwd_ingress_hooks));
	/* Hooks unregistered last may still be running the module's code. */
	synchronize_net();
}
