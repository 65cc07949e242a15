// SPDX-License-Identifier: GPL-2.0
/*
 * Software PFC: on a port whose device has no hardware PFC (no usable
 * dcbnl ieee ops: veth, tap, a NIC that passes MAC control frames up),
 * pfcwd receives the MAC control frames (EtherType 0x8808) itself, keeps
 * a pause timer per priority that the qdisc honours, and feeds the storm
 * detector with the exact pause state.
 *
 * The frames are heard by a netfilter netdev ingress hook on the port's
 * device, first in its chain: __netif_receive_skb_core() runs it after
 * the packet taps and tc ingress and before the device's rx_handler, so
 * a port enslaved to a bridge, bond or Open vSwitch hears them too (a
 * packet_type would come after the rx_handler, which may consume them).
 * The hook takes the frames it acts on (valid PFC and PAUSE frames, as a
 * MAC's control sublayer would), so no bridge or switch relays them and
 * nothing counts them as unhandled; the others go on as without pfcwd.
 * A port whose hook cannot be registered has no software PFC: its source
 * is not "software", so it promises no detection.
 *
 * Frames (the MAC control opcode follows the Ethernet header):
 *  - 0x0101, IEEE 802.1Qbb PFC: a class-enable vector (the high octet is
 *    reserved and must be 0; bit P of the low octet: priority P's time is
 *    valid), then eight pause times in quanta of 512 bit times.  For each
 *    enabled priority P, quanta > 0 (XOFF) pauses P until now + quanta *
 *    512 bit times at the link speed, replacing the pause in force (a new
 *    XOFF refreshes it, and may shorten it); quanta 0 (XON) resumes P at
 *    once.  Destination 01:80:c2:00:00:01 only.
 *  - 0x0001, IEEE 802.3x PAUSE: one pause time for the whole link.
 *    Counted (global_pause) and not honoured: PFC and link-level PAUSE
 *    are mutually exclusive on a link, and a DCB NIC running PFC ignores
 *    PAUSE frames; honouring one here would stop every priority, the lossy
 *    ones included, with no per-priority watchdog to end it.  Destination
 *    01:80:c2:00:00:01 or the port's own address.
 *  - anything else - too short, another destination, a VLAN tag with a
 *    VLAN id, reserved vector bits set, another opcode - is ignored and
 *    counted (malformed), and left to the stack.
 * Only the port's lossless (watched) priorities are honoured, as a DCB
 * NIC honours only the priorities in pfc_en; XOFF frames of the others are
 * counted and change nothing.  The watchdog mitigating a priority (action
 * drop or forward) makes the qdisc stop honouring its pause; the timer
 * itself keeps running, so that the pause is back in force, if it still
 * runs, the moment the priority is restored.
 *
 * The pause of a priority is exact: it began at the first XOFF after the
 * priority was last not paused, and ends when an XON comes or the last
 * XOFF's quanta run out.  The poller samples it (pfcwd_swpfc_sample()) and
 * the state machine detects once it has lasted T0 (storm.h,
 * PFCWD_SAMPLE_PAUSE).  A pause that begins asks for a poll, so that a
 * quiet port's first sample does not wait for the quiet interval - at
 * most once per quiet interval (pfcwd_poll_request()).
 *
 * Locking and context:
 *  - pfcwd_swpfc_hook(): softirq (or process context with BHs off),
 *    inside the RCU read-side section netfilter runs hooks in.  It may
 *    run on several CPUs at once for one port; it takes swpfc.lock, reads
 *    quantum_ps and honour with READ_ONCE, and calls nothing that sleeps.
 *  - start and stop: process context, RTNL held.  netfilter does not wait
 *    for running hooks when one is unregistered: stop does
 *    (synchronize_net()), so the port outlives every call of its hook and
 *    no frame sets a pause after stop released them.
 *  - set_speed, set_honour, sample, counters, debugfs: process context,
 *    port->lock held (set_speed: also RTNL); they take swpfc.lock with BHs
 *    off.
 *  - pfcwd_swpfc_paused() and pfcwd_swpfc_kick(): any context, lockless.
 *  - until[] is written under swpfc.lock with WRITE_ONCE and read by the
 *    qdisc's datapath with READ_ONCE, without a lock.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/etherdevice.h>
#include <linux/if_arp.h>
#include <linux/if_vlan.h>
#include <linux/if_ether.h>
#include <linux/ktime.h>
#include <linux/netdevice.h>
#include <linux/netfilter.h>
#include <linux/rtnetlink.h>
#include <linux/seq_file.h>
#include <linux/skbuff.h>

#include "pfcwd.h"
#include "prio_list.h"

#define PFCWD_MAC_CTRL_PAUSE	0x0001	/* IEEE 802.3 Annex 31B */
#define PFCWD_MAC_CTRL_PFC	0x0101	/* IEEE 802.3 Annex 31D, 802.1Qbb */

/*
 * First among the device's ingress hooks, before pfcwd's own drop hook
 * (ingress.c), nftables chains, and anything else that could drop a frame
 * of a stormed priority before its pause is heard.
 */
#define PFCWD_SWPFC_PRIORITY	INT_MIN

/* A PFC frame's MAC control PDU, after the Ethernet header. */
struct pfcwd_pfc_pdu {
	__be16 opcode;
	__be16 enable;			/* class-enable vector */
	__be16 quanta[PFCWD_NUM_PRIO];
} __packed;

/* An 802.3x PAUSE frame's MAC control PDU. */
struct pfcwd_pause_pdu {
	__be16 opcode;
	__be16 quanta;
} __packed;

/* The reserved multicast address of MAC control frames. */
static const u8 pfcwd_mac_ctrl_dst[ETH_ALEN] __aligned(2) = {
	0x01, 0x80, 0xc2, 0x00, 0x00, 0x01
};

/* Bands whose pause the datapath must look at again, for a kick. */
static void __pfcwd_swpfc_kick(struct net_device *dev)
{
	unsigned int i;

	for (i = 0; i < dev->real_num_tx_queues; i++)
		netif_schedule_queue(netdev_get_tx_queue(dev, i));
}

/**
 * pfcwd_swpfc_kick - have the device's qdiscs look at their bands again
 * @port: the port; its device must be alive (RTNL and !dead, or the
 *        receive path)
 *
 * For a pause that ended early (XON, a shorter XOFF) or that the datapath
 * stopped honouring (mitigation): without it, a held band would wait for
 * the qdisc's timer.  Any context.
 */
void pfcwd_swpfc_kick(struct pfcwd_port *port)
{
	if (READ_ONCE(port->swpfc.active))
		__pfcwd_swpfc_kick(port->dev);
}

/*
 * Whether a MAC control frame is for the port: the reserved address, or
 * (@unicast_ok) the port's own; no VLAN id (a priority tag is fine).
 */
static bool pfcwd_swpfc_dst_ok(const struct sk_buff *skb,
			       const struct net_device *dev, bool unicast_ok)
{
	const u8 *dst;

	if (!skb_mac_header_was_set(skb) || skb->pkt_type == PACKET_OTHERHOST)
		return false;
	/* The core marks a VLAN id OTHERHOST only after this hook runs. */
	if (skb_vlan_tag_present(skb) && skb_vlan_tag_get_id(skb))
		return false;
	dst = eth_hdr(skb)->h_dest;
	return ether_addr_equal(dst, pfcwd_mac_ctrl_dst) ||
	       (unicast_ok && ether_addr_equal(dst, dev->dev_addr));
}

/*
 * Applies a PFC frame received at @now.  swpfc.lock held.  Returns whether
 * a pause began (for the poller) in *@started and whether one ended early
 * (for the datapath) in *@resumed.
 */
static void pfcwd_swpfc_apply(struct pfcwd_swpfc *sw,
			      const struct pfcwd_pfc_pdu *pdu, u64 now,
			      bool *started, bool *resumed)
{
	u32 quantum_ps = READ_ONCE(sw->quantum_ps);
	u8 honour = READ_ONCE(sw->honour);
	u8 enable = be16_to_cpu(pdu->enable) & 0xff;
	int p;

	sw->frames++;
	for (p = 0; p < PFCWD_NUM_PRIO; p++) {
		struct pfcwd_swpfc_prio *pp = &sw->prio[p];
		u16 quanta = be16_to_cpu(pdu->quanta[p]);
		u64 until = sw->until[p], end;

		if (!(enable & BIT(p)))
			continue;
		if (!quanta) {
			/* XON: never pause; ends the pause in force. */
			pp->xon++;
			if (until > now)
				*resumed = true;
			if (until)
				WRITE_ONCE(sw->until[p], 0);
			pfcwd_hist_pause_set(&pp->paused, now, now);
			continue;
		}
		pp->xoff++;
		if (!pp->first)
			pp->first = now;
		pp->last = now;
		if (!(honour & BIT(p)))
			continue;
		end = now + pfcwd_quanta_ns(quantum_ps, quanta);
		if (until <= now) {
			pp->since = now;
			pp->pauses++;
			*started = true;
		} else if (end < until) {
			*resumed = true;
		}
		WRITE_ONCE(sw->until[p], end);
		pfcwd_hist_pause_set(&pp->paused, now, end);
	}
}

/*
 * A MAC control frame received on the port's device.  Returns the opcode
 * it was handled as, 0 if ignored as malformed.  Softirq.
 */
static u16 pfcwd_swpfc_rcv(struct pfcwd_port *port, struct sk_buff *skb)
{
	struct pfcwd_swpfc *sw = &port->swpfc;
	struct net_device *dev = port->dev;
	const struct pfcwd_pfc_pdu *pdu;
	struct pfcwd_pfc_pdu buf;
	bool started = false, resumed = false;
	u16 opcode;
	u64 now;

	pdu = skb_header_pointer(skb, 0, sizeof(pdu->opcode), &buf);
	opcode = pdu ? be16_to_cpu(pdu->opcode) : 0;
	if (opcode == PFCWD_MAC_CTRL_PFC) {
		pdu = skb_header_pointer(skb, 0, sizeof(*pdu), &buf);
		if (!pdu || !pfcwd_swpfc_dst_ok(skb, dev, false) ||
		    (be16_to_cpu(pdu->enable) & 0xff00))
			opcode = 0;
	} else if (opcode == PFCWD_MAC_CTRL_PAUSE) {
		if (skb->len < sizeof(struct pfcwd_pause_pdu) ||
		    !pfcwd_swpfc_dst_ok(skb, dev, true))
			opcode = 0;
	} else {
		opcode = 0;
	}

	now = ktime_get_ns();
	spin_lock(&sw->lock);
	switch (opcode) {
	case PFCWD_MAC_CTRL_PFC:
		pfcwd_swpfc_apply(sw, pdu, now, &started, &resumed);
		break;
	case PFCWD_MAC_CTRL_PAUSE:
		sw->global_pause++;
		break;
	default:
		sw->malformed++;
		break;
	}
	spin_unlock(&sw->lock);

	/* The port's own queues, whatever upper the frame would go to. */
	if (resumed)
		__pfcwd_swpfc_kick(dev);
	/* A quiet port: sample the new pause now, not a tick later. */
	if (started)
		pfcwd_poll_request(port, now);
	return opcode;
}

/* The netdev ingress hook of the port's device.  Softirq, RCU. */
static unsigned int pfcwd_swpfc_hook(void *priv, struct sk_buff *skb,
				     const struct nf_hook_state *state)
{
	if (skb->protocol != htons(ETH_P_PAUSE) ||
	    !pfcwd_swpfc_rcv(priv, skb))
		return NF_ACCEPT;
	consume_skb(skb);
	return NF_STOLEN;
}

/**
 * pfcwd_swpfc_set_speed - the link speed that quanta are timed at
 * @port: the port; port->lock held
 * @speed_mbps: Mb/s, > 0
 */
void pfcwd_swpfc_set_speed(struct pfcwd_port *port, u32 speed_mbps)
{
	/* 512 bit times at @speed_mbps Mb/s, in ps */
	WRITE_ONCE(port->swpfc.quantum_ps,
		   (u32)div_u64(512ULL * 1000 * 1000, speed_mbps));
}

/**
 * pfcwd_swpfc_set_honour - the priorities whose pause is honoured
 * @port: the port; port->lock held
 * @prios: the port's lossless priorities
 *
 * A priority that leaves the set resumes at once.
 */
void pfcwd_swpfc_set_honour(struct pfcwd_port *port, u8 prios)
{
	struct pfcwd_swpfc *sw = &port->swpfc;
	bool resumed = false;
	int p;

	spin_lock_bh(&sw->lock);
	WRITE_ONCE(sw->honour, prios);
	for (p = 0; p < PFCWD_NUM_PRIO; p++) {
		if ((prios & BIT(p)) || !sw->until[p])
			continue;
		WRITE_ONCE(sw->until[p], 0);
		pfcwd_hist_pause_set(&sw->prio[p].paused, ktime_get_ns(), 0);
		resumed = true;
	}
	spin_unlock_bh(&sw->lock);
	if (resumed && !port->dead)
		pfcwd_swpfc_kick(port);
}

/**
 * pfcwd_swpfc_start - receive PFC frames on a new port, if it needs it
 * @port: a port being created; RTNL held, process context
 *
 * Only for Ethernet devices without hardware PFC (!port->has_dcb).  If
 * the hook cannot be registered, the port stays without (and says so).
 */
void pfcwd_swpfc_start(struct pfcwd_port *port)
{
	struct pfcwd_swpfc *sw = &port->swpfc;
	int err;

	ASSERT_RTNL();
	spin_lock_init(&sw->lock);
	sw->honour = port->cfg.prios;
	if (port->has_dcb || port->dev->type != ARPHRD_ETHER)
		return;
	sw->ops.hook = pfcwd_swpfc_hook;
	sw->ops.dev = port->dev;
	sw->ops.priv = port;
	sw->ops.pf = NFPROTO_NETDEV;
	sw->ops.hooknum = NF_NETDEV_INGRESS;
	sw->ops.priority = PFCWD_SWPFC_PRIORITY;
	err = nf_register_net_hook(dev_net(port->dev), &sw->ops);
	if (err) {
		pr_warn("%s: no software PFC, PFC frames cannot be heard: ingress hook: %d\n",
			port->name, err);
		return;
	}
	WRITE_ONCE(sw->active, true);
}

/**
 * pfcwd_swpfc_stop - stop receiving PFC frames and release every pause
 * @port: a port being torn down, its device still there; RTNL held,
 *        process context
 *
 * Returns once no handler runs any more.  The qdisc may outlive the port
 * (device unregistration): its bands must not stay held.
 */
void pfcwd_swpfc_stop(struct pfcwd_port *port)
{
	struct pfcwd_swpfc *sw = &port->swpfc;
	int p;

	ASSERT_RTNL();
	if (!sw->active)
		return;
	/* The device may have moved: its hooks went with it. */
	nf_unregister_net_hook(dev_net(port->dev), &sw->ops);
	synchronize_net();
	WRITE_ONCE(sw->active, false);
	spin_lock_bh(&sw->lock);
	for (p = 0; p < PFCWD_NUM_PRIO; p++) {
		WRITE_ONCE(sw->until[p], 0);
		pfcwd_hist_pause_set(&sw->prio[p].paused, ktime_get_ns(), 0);
	}
	spin_unlock_bh(&sw->lock);
	__pfcwd_swpfc_kick(port->dev);
}

/**
 * pfcwd_swpfc_sample - the exact pause state of one priority
 * @port: a port with software PFC; port->lock held (the poller)
 * @prio: the priority
 * @s: the sample being built: s->now set; rx_pause, xoff_first, xoff_last,
 *     pause_since and PFCWD_SAMPLE_PAUSE are filled in
 */
void pfcwd_swpfc_sample(struct pfcwd_port *port, int prio,
			struct pfcwd_sample *s)
{
	struct pfcwd_swpfc *sw = &port->swpfc;
	struct pfcwd_swpfc_prio *pp = &sw->prio[prio];

	spin_lock_bh(&sw->lock);
	s->rx_pause = pp->xoff;
	s->xoff_first = pp->first;
	s->xoff_last = pp->first ? pp->last : 0;
	pp->first = 0;
	/* A pause that began after the sample's time is the next sample's. */
	if (sw->until[prio] > s->now && pp->since <= s->now)
		s->pause_since = pp->since;
	else
		s->pause_since = 0;
	spin_unlock_bh(&sw->lock);
	s->valid |= PFCWD_SAMPLE_PAUSE;
}

/**
 * pfcwd_swpfc_paused - is a software pause timer running on a priority?
 * @port: the port
 * @prio: the priority, 0-7
 *
 * True from an XOFF until its quanta run out or an XON comes, whether or
 * not the datapath honours it (it does not while the watchdog mitigates
 * the priority with drop or forward).  Any context, lockless: for tc's
 * TC_PFCWD_PRIO_PAUSED.
 */
bool pfcwd_swpfc_paused(const struct pfcwd_port *port, int prio)
{
	u64 until = READ_ONCE(port->swpfc.until[prio]);

	return until && until > ktime_get_ns();
}

/**
 * pfcwd_swpfc_counters - the port's MAC control frame counters
 * @port: the port
 * @global_pause: 802.3x PAUSE frames received (not honoured)
 * @malformed: MAC control frames ignored as malformed
 *
 * Both 0 on a port without software PFC.  Process context.
 */
void pfcwd_swpfc_counters(struct pfcwd_port *port, u64 *global_pause,
			  u64 *malformed)
{
	struct pfcwd_swpfc *sw = &port->swpfc;

	spin_lock_bh(&sw->lock);
	*global_pause = sw->global_pause;
	*malformed = sw->malformed;
	spin_unlock_bh(&sw->lock);
}

/**
 * pfcwd_swpfc_clear_stats - zero the port's MAC control frame counters
 * @port: the port
 *
 * PFC frames, global_pause and malformed; not the per-priority XOFF counts,
 * which are the state machines' source counters.  Process context.
 */
void pfcwd_swpfc_clear_stats(struct pfcwd_port *port)
{
	struct pfcwd_swpfc *sw = &port->swpfc;

	u64 now = ktime_get_ns();
	int p;

	spin_lock_bh(&sw->lock);
	sw->frames = 0;
	sw->global_pause = 0;
	sw->malformed = 0;
	for (p = 0; p < PFCWD_NUM_PRIO; p++)
		pfcwd_hist_pause_clear(&sw->prio[p].paused, now);
	spin_unlock_bh(&sw->lock);
}

/**
 * pfcwd_swpfc_history - the exact pause time of one priority
 * @port: a port; process context
 * @prio: the priority
 * @now: ns
 * @r: the reading (history.h)
 */
void pfcwd_swpfc_history(struct pfcwd_port *port, int prio, u64 now,
			 struct pfcwd_hist_pause_read *r)
{
	struct pfcwd_swpfc *sw = &port->swpfc;

	spin_lock_bh(&sw->lock);
	pfcwd_hist_pause_read(&sw->prio[prio].paused, now, r);
	spin_unlock_bh(&sw->lock);
}

/*
 * /sys/kernel/debug/pfcwd/ports lines of a port with software PFC, port->lock
 * held:
 *   DEV swpfc honour LIST quantum_ps N frames N global_pause N malformed N
 *       paused LIST
 *   DEV swprio P xoff N xon N pauses N since_ns N last_xoff_ns N until_ns N
 * (paused: priorities whose pause timer runs; pauses: pauses begun, a
 * storm's lapses each beginning a new one; since_ns: when the pause in
 * force, or the last one, began; until_ns: when it ends or ended, 0 after
 * an XON)
 */
void pfcwd_swpfc_debugfs(struct seq_file *m, struct pfcwd_port *port)
{
	char honour[PFCWD_PRIO_LIST_LEN], paused[PFCWD_PRIO_LIST_LEN];
	struct pfcwd_swpfc *sw = &port->swpfc;
	struct pfcwd_swpfc_prio pp[PFCWD_NUM_PRIO];
	u64 until[PFCWD_NUM_PRIO], frames, global, malformed;
	u64 now = ktime_get_ns();
	u8 running = 0;
	int p;

	if (!READ_ONCE(sw->active))
		return;
	spin_lock_bh(&sw->lock);
	memcpy(pp, sw->prio, sizeof(pp));
	memcpy(until, sw->until, sizeof(until));
	frames = sw->frames;
	global = sw->global_pause;
	malformed = sw->malformed;
	spin_unlock_bh(&sw->lock);

	for (p = 0; p < PFCWD_NUM_PRIO; p++)
		if (until[p] > now)
			running |= BIT(p);
	pfcwd_prio_list_format(READ_ONCE(sw->honour), honour, sizeof(honour));
	pfcwd_prio_list_format(running, paused, sizeof(paused));
	seq_printf(m, "%s swpfc honour %s quantum_ps %u frames %llu global_pause %llu malformed %llu paused %s\n",
		   port->name, honour[0] ? honour : "-",
		   READ_ONCE(sw->quantum_ps), frames, global, malformed,
		   paused[0] ? paused : "-");
	for (p = 0; p < PFCWD_NUM_PRIO; p++)
		seq_printf(m, "%s swprio %d xoff %llu xon %llu pauses %llu since_ns %llu last_xoff_ns %llu until_ns %llu\n",
			   port->name, p, pp[p].xoff, pp[p].xon, pp[p].pauses,
			   pp[p].since, pp[p].last, until[p]);
}
