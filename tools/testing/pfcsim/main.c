// SPDX-License-Identifier: GPL-2.0
/*
 * pfcsim - a simulated lossless (DCB) NIC for testing pfcwd.
 *
 * Each port is an Ethernet net_device with eight TX queues and eight
 * traffic classes by default: priority P maps to traffic class P, which
 * maps to TX queue P (prio_tc and "ethtool -L" change this, see below).
 * Transmitted packets are counted per priority and freed, at once or,
 * with tx_ring, when they leave a TX ring drained at the link rate.  The
 * link reports link_mbps (100000 Mb/s) full duplex.  The port has real
 * IEEE DCB ops (PFC, ETS, DCBX mode), so that "dcb pfc show dev NAME" reads
 * its pause counters: ieee_pfc.requests[P] counts pause frames sent for
 * priority P, ieee_pfc.indications[P] pause frames received.  ethtool -S
 * shows the same as tx_prioP_pause and rx_prioP_pause, next to
 * tx_prioP_packets and rx_prioP_packets.
 *
 * Control lives in debugfs, /sys/kernel/debug/pfcsim/:
 *   new_port		write NAME: create a port called NAME
 *   del_port		write NAME: delete the port called NAME
 * and per port NAME/ (the directory keeps the name the port was created
 * with, even if the device is renamed):
 *   rx_storm		priority list: the link partner pauses these
 *			priorities continuously.  indications[P] rises at
 *			pause_rate while P is in pfc_en (or always, with
 *			count_when_disabled).  While P is in pfc_en its
 *			traffic class (prio_tc[P]) is paused, as hardware
 *			honouring the pause would: with tx_ring 0 every TX
 *			queue of that class is stopped; with rings, those
 *			queues' rings stop draining (the queues stop by
 *			themselves once their rings are full).
 *   tx_hang		priority list: the traffic classes of these
 *			priorities stop sending, with no pause frame at all
 *			(a hung transmit engine): as a pause would, with
 *			tx_ring 0 their TX queues are stopped, with rings
 *			the rings stop draining.
 *   tx_storm		priority list: this NIC emits pause for these
 *			priorities (requests[P] rises at pause_rate while P
 *			is in pfc_en) and its receive path is stalled:
 *			injected packets are dropped, counted in rx_dropped.
 *   rx_slow		priority list: this NIC emits pause for these
 *			priorities (as tx_storm) but keeps receiving.
 *   pause_rate		pause frames per second, 1..10000000 (10000)
 *   count_when_disabled 0/1 (1): whether received pause frames are counted
 *			for a priority that is not in pfc_en.
 *   push_pause		0/1 (0): also report every received pause to pfcwd
 *			through its push API, pfcwd_report_pause(): once a
 *			millisecond, one XOFF per priority whose indications
 *			are rising.  Needs pfcwd.ko loaded (-ENOENT otherwise;
 *			found with symbol_get(), so pfcsim does not depend on
 *			it); holds a reference on pfcwd.ko while on.
 *   PFC storm prevention (mlx5's): "ethtool --set-tunable NAME
 *			pfc-prevention-tout MS" (ETHTOOL_PFC_PREVENTION_TOUT:
 *			0 off, the default; 80..8000 ms; auto = 100 ms).  When
 *			on, a priority of tx_storm that has been sending pause
 *			for 85 % of MS (at least 80 ms) counts a warning event,
 *			and after MS the NIC stops sending pause for it (its
 *			requests stop) and counts an error event, until
 *			tx_storm is written again; ethtool -S then also shows
 *			the port-wide tx_pause_storm_warning_events and
 *			tx_pause_storm_error_events (after the per-priority
 *			statistics).  rx_slow is not a stall and is never
 *			stopped.
 *   changed_ns		read: when rx_storm, tx_storm, rx_slow and tx_hang
 *			last changed (CLOCK_MONOTONIC ns), to time pfcwd
 *			exactly.
 *   inject_rx		write "PRIO COUNT": receive COUNT (1..1000000)
 *			802.1Q-tagged frames with PCP PRIO, VID 0, EtherType
 *			0x88b5, addressed to the port, with a pfcwd-pkt
 *			payload (magic, priority, sequence number).
 *			Or write "ipv4 DSCP COUNT" / "ipv6 DSCP COUNT": COUNT
 *			untagged IPv4 (192.0.2.2 -> 192.0.2.1) or IPv6
 *			(2001:db8::2 -> 2001:db8::1) packets with that DSCP
 *			(0..63), IP protocol 253 (experimental), the same
 *			payload right after the IP header.  Their priority,
 *			for the rx_prioP_packets counters and the payload, is
 *			the one the port's DCB APP table gives the DSCP (the
 *			highest if several, as a NIC trusting DSCP would), else
 *			0.
 * Driver behaviours (pfcwd must cope with what real NIC drivers do; each
 * knob reads back its value):
 *   stats_period_ms	0..60000 (0): when > 0, the pause counters that
 *			ieee_getpfc (requests/indications) and ethtool -S
 *			(rx/tx_prioP_pause, rx_prioP_pause_duration) report are
 *			a copy of the live counters, taken every this many ms
 *			by a delayed work, as drivers that read the hardware
 *			periodically; between copies they stand still.
 *   stats_refresh_on_read 0/1 (0): ethtool -S (get_ethtool_stats) first
 *			takes a fresh copy, as mlx5, ixgbe, i40e and ice do.
 *			With stats_period_ms 0 and this 1 only ethtool -S
 *			refreshes the copy (mlx5: stale indefinitely).  With
 *			both 0 every read is live.  Writing either knob (or
 *			profile) takes a copy at once if the counters are
 *			then copied, and restarts the period from then.
 *   stats_reads	read: get_ethtool_stats calls so far.
 *   getpfc_calls	read: ieee_getpfc calls so far (failed ones too).
 *   setpfc_calls	read: ieee_setpfc calls so far (failed ones too).
 *   getpfc_delay_us	0..1000000 (0): ieee_getpfc sleeps this long first
 *			(a firmware command), under RTNL.
 *   getpfc_fail	0..4095 (0): an errno; ieee_getpfc returns -errno
 *			(after the delay).
 *   setpfc_fail	0..4095 (0): ieee_setpfc returns -errno and changes
 *			nothing.
 *   setpfc_bounce_ms	0..60000 (0): a successful ieee_setpfc that changes
 *			pfc_en takes the carrier down for this long (as mlx5
 *			toggles the port): netif_carrier_off(), and a delayed
 *			work turns it back on (if the port is still up).
 *   setpfc_reopen	0/1 (0): a successful ieee_setpfc that changes
 *			pfc_en closes and reopens the netdev, announcing each
 *			step, from within the call (as ice's setpfc does,
 *			ice_dcbnl_devreset(): dev_close(), netdev_state_change(),
 *			dev_open(), netdev_state_change(), under RTNL):
 *			netdevice events (NETDEV_GOING_DOWN, DOWN, UP, CHANGE)
 *			reach every notifier before setpfc returns.
 *   swap		0/1 (0): ieee_getpfc reports requests and indications
 *			swapped, as ixgbe does (ethtool -S is not swapped).
 *   no_counters	0/1 (0): ieee_getpfc leaves requests and indications
 *			0 (qede, cxgb4, octeontx2, mlx4) and ethtool -S has no
 *			pause counters (nor durations): they are absent, only
 *			the packet counters remain.
 *   pause_duration	0..3 (0): ethtool -S also shows, per priority P, the
 *			microseconds P was paused by the link partner, i.e.
 *			while in rx_storm and in pfc_en, copied like the pause
 *			counters, under the name a driver gives it: 1
 *			rx_prioP_pause_duration (mlx5), 2
 *			rx_pause_duration_prio_P (mlxsw, mlx4), 3
 *			pfc_priP_rx_duration_us (bnxt_en).
 *   counter_reset	write 1: the live and copied pause counters and
 *			durations drop to 0, as after a driver reset.
 *   profile		write a name to set all the knobs above and
 *			count_when_disabled as that driver behaves (the table
 *			pfcsim_profiles[]): ideal, mlx5, ixgbe, i40e, ice,
 *			bnxt, hns3, mlxsw, qede, cxgb4, octeontx2.  Reads the
 *			name last written ("ideal" at creation), or "custom"
 *			once one of those knobs was changed by a write of its
 *			own.  While a driver's profile is in effect,
 *			get_drvinfo gives that driver's name (mlx5_core, ixgbe,
 *			i40e, ice, bnxt_en, hns3, mlxsw_spectrum, qede, cxgb4,
 *			rvu-nicpf), so that pfcwd's driver profiles (looked up
 *			by drvinfo.driver when its port is created) apply;
 *			with ideal or custom, "pfcsim".
 * Transmit path and queue layout (profile writes leave these alone):
 *   tx_ring		0..4096 (0): descriptors per TX queue.  0: every
 *			frame leaves at once, counted in xmit.  Otherwise each
 *			TX queue has a ring of that many descriptors: xmit
 *			puts the frame in its queue's ring (keeping only its
 *			length and priority; the skb is freed at once) and,
 *			when that fills the ring, stops the queue with
 *			netif_tx_stop_queue(), as real drivers do.  A frame
 *			counts in tx_prioP_packets/bytes and the device's tx
 *			statistics when it leaves its ring.  The link sends
 *			(len + 24) * 8 bits per frame (preamble, SFD, IFG and
 *			FCS: 24 bytes) at link_mbps, shared frame by frame,
 *			round robin, among the rings that have frames and
 *			whose traffic class is not paused; a paused class's
 *			rings keep their frames.  A queue stopped because its
 *			ring was full is woken (netif_tx_wake_queue) once the
 *			ring is at most half full.  Any write (even of the
 *			same value) empties every ring, counting nothing, and
 *			wakes the queues stopped because their ring was full
 *			(but for those a pause stops with tx_ring 0).  While
 *			the port is down the rings are empty and xmit drops
 *			frames uncounted.
 *   tx_ring_depth	read: the frames in each real TX queue's ring, space
 *			separated, queue 0 first.
 *   tx_busy		read: xmit calls on a full ring, answered with
 *			NETDEV_TX_BUSY (the queue is then stopped too); 0 as
 *			long as the stack honours stopped queues.
 *   link_mbps		10..400000 (100000): the link rate in Mb/s, reported by
 *			get_link_ksettings (ethtool) and the rate the rings
 *			drain at (from the next drain tick on).
 *   prio_tc		write 8 traffic classes 0-7, one per priority 0-7,
 *			single spaces ("0 0 1 1 2 2 3 3"): the priority to
 *			traffic class map; num_tc is the highest + 1, and
 *			every class 0..highest must be used by some priority.
 *			Reads back the 8 numbers ("0 1 2 3 4 5 6 7" at
 *			creation).  Applied with netdev_set_num_tc(),
 *			netdev_set_prio_tc_map() and netdev_set_tc_queue()
 *			under RTNL; empties the rings like tx_ring.  It is
 *			not the ETS prio_tc of "dcb ets", which is kept apart.
 *   "ethtool -L NAME tx N" (get/set_channels): N = 1..4 (1) TX queues per
 *			traffic class, as mlx5's channels: real_num_tx_queues
 *			is num_tc * N (the device has 32), class t owning
 *			queues [t * N, (t + 1) * N).  rx stays 1 (fixed);
 *			combined and other are 0.  Empties the rings like
 *			tx_ring.
 *   TX queue selection (ndo_select_queue), as mlx5's: a VLAN-tagged frame
 *   goes to a queue of its PCP's traffic class, any other frame where the
 *   core puts it (skb->priority's class).
 *   A transmitted frame's priority, for tx_prioP_*, is its VLAN PCP if it
 *   is tagged (in the skb or in the frame), else the lowest priority
 *   mapped to its queue's traffic class (the queue number with the
 *   default layout).
 * Priority lists are "3,4", "0-2,5" or empty ("echo > rx_storm" ends a
 * storm).  A bad write fails with -EINVAL and changes nothing.
 *
 * Pause counters are not driven by timers: each is a base count plus the
 * time since which it has been rising; a read adds the frames of the
 * elapsed time at pause_rate.  Whenever an input changes (storm lists,
 * pfc_en, pause_rate, count_when_disabled) the elapsed part is first
 * folded into the base, at the old settings.  Pause durations work the
 * same way (nanoseconds, rising while P is in rx_storm and pfc_en).  The
 * copy that stats_period_ms and stats_refresh_on_read report is a
 * snapshot of these at the time it was taken.
 *
 * The rings drain on a timer: drain_timer (an hrtimer, softirq), started
 * when a ring that is not paused gets a frame (or is unpaused with frames)
 * and ticking every 250 us while some ring that is not paused has frames;
 * no timer runs otherwise.  Each tick adds the elapsed time (at most
 * 50 ms: a later tick loses the rest) times link_mbps to the link's
 * credit in bits, and sends frames while the credit is positive (it may
 * go below 0 by the last frame, which is then still on the wire); an idle
 * link keeps no credit.  A change of what is paused first brings the
 * link up to that instant (pfcsim_drain_to()), so that a late tick does
 * not hold frames a real link had sent before the pause began.
 *
 * Locking and context:
 *  - The push timer (hrtimer, softirq) reads ind_rising locklessly and
 *    calls pfcwd_report_pause(), which any context may call.  push_lock
 *    (a mutex) serialises turning it on and off (process context).
 *  - pfcsim_lock (a mutex) serialises port creation and deletion and
 *    protects pfcsim_ports.  It is taken by the new_port and del_port
 *    writes and by module exit, in process context, before RTNL.  The
 *    per-port debugfs handlers never take it, so deleting a port may wait
 *    for them (debugfs_remove) while holding it.
 *  - port->lock (a spinlock, taken with BH disabled) protects the DCB
 *    configuration (pfc_en, mbc, delay, ETS), the storm lists, pause_rate,
 *    count_when_disabled, the pause counters and durations, their copy,
 *    the driver knobs, the profile, the call counters, port->up,
 *    port->paused, the bounce deadline and port->dead.  Its users run in
 *    process context: debugfs reads and writes, the dcbnl ops and ethtool
 *    (under RTNL), ndo_open/ndo_stop (under RTNL), and the publish and
 *    bounce works.  The dcbnl ops are called in process context under RTNL
 *    (dcbnl, pfcwd): ieee_getpfc sleeps for getpfc_delay_us, outside
 *    port->lock, so it must not be called from atomic context.  TX queues
 *    are stopped (tx_ring 0) and woken for pause under port->lock, the
 *    queue's xmit lock nested inside; the transmit path never takes
 *    port->lock.  With rings, xmit stops a queue whose ring is full and
 *    the drain timer (or a reset of the rings) wakes it, under ring_lock.
 *    The carrier is turned on and off under port->lock (ndo_open/ndo_stop,
 *    a bouncing ieee_setpfc, the bounce work), so that the bounce work
 *    never turns on the carrier of a port that is down.  Nothing sleeps
 *    under it.
 *  - The knobs that decide which ethtool -S statistics exist (no_counters,
 *    pause_duration, so also profile) are written with RTNL held as well
 *    (debugfs handlers take RTNL, then port->lock), so that get_sset_count,
 *    get_strings and get_ethtool_stats, all called under RTNL, agree on
 *    the layout; the other knob writes take RTNL too, for simplicity.
 *  - port->publish_work, port->bounce_work and port->prevent_work (delayed
 *    works, system_wq) re-arm themselves, under port->lock, only while
 *    !port->dead.  The prevention state (prevent_ms, generating, gen_since,
 *    warned, prevented, storm_warnings, storm_errors) is under port->lock;
 *    prevent_ms, which decides whether the two port-wide statistics exist,
 *    is written with RTNL held too (set_tunable runs under RTNL).  Port
 *    deletion sets port->dead under port->lock after removing the debugfs
 *    directory, then cancels both works synchronously (no lock held; the
 *    works take only port->lock) before unregistering, and so freeing,
 *    the device.  A later ieee_setpfc sees port->dead and queues nothing.
 *  - port->inject_lock (a mutex) serialises inject_rx writes, which makes
 *    them the only writer of the receive counters (u64_stats, updated with
 *    BH disabled).  Frames are passed up with netif_receive_skb() with BH
 *    disabled, in batches, rescheduling in between.
 *  - port->ring_lock (a spinlock) protects the rings and their
 *    descriptors, ring_size (tx_ring; written with RTNL and port->lock
 *    held too, so that either is enough to read it), link_mbps,
 *    ring_paused, ring_live, ring_dead, the drain state (draining,
 *    credit, drain_last, rr), tx_busy and the per-priority TX counters
 *    (u64_stats: every writer holds ring_lock).  It nests inside
 *    port->lock and inside a TX queue's xmit lock; no other lock of
 *    pfcsim, nor an xmit lock, is taken under it (netif_tx_stop_queue,
 *    netif_tx_wake_queue and hrtimer_start are called under it).  Process
 *    context takes it with BH disabled.
 *  - ndo_start_xmit runs with the TX queue's xmit lock held (softirq or
 *    process context, BH disabled) and takes ring_lock, never port->lock:
 *    it counts the frame (tx_ring 0) or queues it, stops the queue when
 *    its ring is full, and starts the drain timer if it is idle.
 *  - pfcsim_drain_tick (drain_timer, softirq) takes only ring_lock; it
 *    counts the frames that leave and wakes queues.  It re-arms itself
 *    while a ring that is not paused has frames; "draining" (ring_lock)
 *    says whether it is armed or running, and only a live port starts
 *    it.  ndo_stop (RTNL) and port deletion clear ring_live and empty the
 *    rings under ring_lock, then hrtimer_cancel() it, no spinlock held;
 *    deletion also sets ring_dead (so that no ndo_open makes the rings
 *    live again) and frees the descriptors before unregistering, and so
 *    freeing, the device.
 *  - The queue layout (prio_tc, the class of each queue's lowest
 *    priority, channels, num_txq) is changed by the prio_tc write and
 *    set_channels (ethtool, RTNL held), in process context: the netdev's
 *    real_num_tx_queues and tc map under RTNL alone (they may sleep),
 *    then the copy under port->lock and ring_lock; any of the three is
 *    enough to read it.  tx_ring writes take RTNL, port->lock and
 *    ring_lock, allocating the new descriptors (GFP_KERNEL) before and
 *    freeing the old ones after.  Which queues are stopped by pause
 *    (port->paused, tx_ring 0) and which rings are paused
 *    (ring_paused) is set by pfcsim_apply_queues() under port->lock, after
 *    draining the rings up to then under ring_lock (as the tick does).
 *  - Readers of the packet counters (ndo_get_stats64, any context;
 *    ethtool) use the u64_stats retry loops.
 *  - port->dying is set (under pfcsim_lock) before a port's debugfs
 *    directory is removed, so that a long inject_rx stops early.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ctype.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/etherdevice.h>
#include <linux/ethtool.h>
#include <linux/if_vlan.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/u64_stats_sync.h>
#include <linux/workqueue.h>
#include <net/dcbnl.h>
#include <net/ipv6.h>
#include <net/pfcwd.h>

#include "../../../pfcwd/prio_list.h"

#if !IS_ENABLED(CONFIG_DCB)
#error "pfcsim needs CONFIG_DCB"
#endif

#define PFCSIM_NUM_PRIO		8
#define PFCSIM_PFC_EN_DEFAULT	0x18	/* priorities 3 and 4 lossless */
#define PFCSIM_RATE_DEFAULT	10000
#define PFCSIM_RATE_MAX		10000000
#define PFCSIM_INJECT_MAX	1000000
#define PFCSIM_INJECT_BATCH	256
#define PFCSIM_RX_FRAME_LEN	64
#define PFCSIM_NUM_DSCP		64
#define PFCSIM_IP_PROTO		253	/* RFC 3692 experimentation */
#define PFCSIM_PKT_MAGIC	0x70666377	/* "pfcw", as pfcwd-pkt */
#define PFCSIM_ARG_MAX		32	/* longest accepted debugfs write */
#define PFCSIM_MAX_CHANNELS	4	/* TX queues per traffic class */
#define PFCSIM_MAX_TXQ		(PFCSIM_NUM_PRIO * PFCSIM_MAX_CHANNELS)
#define PFCSIM_RING_MAX		4096	/* tx_ring */
#define PFCSIM_MBPS_MIN		10	/* link_mbps */
#define PFCSIM_MBPS_MAX		400000
#define PFCSIM_MBPS_DEFAULT	100000
#define PFCSIM_WIRE_EXTRA	24	/* preamble and SFD 8, IFG 12, FCS 4 */
#define PFCSIM_DRAIN_TICK_NS	(250 * NSEC_PER_USEC)
#define PFCSIM_DRAIN_MAX_NS	(50 * NSEC_PER_MSEC)	/* a late tick's cap */

/* What inject_rx receives. */
enum pfcsim_rx_kind {
	PFCSIM_RX_TAGGED,		/* 802.1Q, PCP = prio */
	PFCSIM_RX_IPV4,			/* untagged IPv4 with a DSCP */
	PFCSIM_RX_IPV6,			/* untagged IPv6 with a DSCP */
};

struct pfcsim_rx_spec {
	enum pfcsim_rx_kind kind;
	u8 prio;			/* PCP, or the DSCP's priority */
	u8 dscp;
};

/* Source address of injected frames: the simulated link partner. */
static const u8 pfcsim_peer_addr[ETH_ALEN] __aligned(2) = {
	0x02, 0x70, 0x66, 0x63, 0x73, 0x6d
};

struct pfcsim_queue_stats {
	struct u64_stats_sync syncp;
	u64_stats_t packets;
	u64_stats_t bytes;
};

/* A TX ring descriptor: what is left of a frame once it is queued. */
struct pfcsim_desc {
	u32 len;
	u8 prio;
};

/* A TX queue's ring: count descriptors from head, in port->desc. */
struct pfcsim_ring {
	u16 head;
	u16 count;
	bool stopped;			/* queue stopped because full */
};

struct pfcsim_rx_stats {
	struct u64_stats_sync syncp;
	u64_stats_t packets[PFCSIM_NUM_PRIO];
	u64_stats_t bytes;
	u64_stats_t dropped;
};

/* A pause frame counter: @base frames up to @since, then rising or not. */
struct pfcsim_pause {
	u64 base;
	ktime_t since;
};

/* Pause counters and durations (microseconds), read at one instant. */
struct pfcsim_snap {
	u64 req[PFCSIM_NUM_PRIO];
	u64 ind[PFCSIM_NUM_PRIO];
	u64 dur[PFCSIM_NUM_PRIO];
};

/* The knobs that make a port behave like a given NIC driver. */
enum pfcsim_knob {
	PFCSIM_K_STATS_PERIOD,		/* stats_period_ms */
	PFCSIM_K_REFRESH_ON_READ,	/* stats_refresh_on_read */
	PFCSIM_K_GETPFC_DELAY,		/* getpfc_delay_us */
	PFCSIM_K_GETPFC_FAIL,		/* getpfc_fail */
	PFCSIM_K_SETPFC_FAIL,		/* setpfc_fail */
	PFCSIM_K_SETPFC_BOUNCE,		/* setpfc_bounce_ms */
	PFCSIM_K_SWAP,			/* swap */
	PFCSIM_K_NO_COUNTERS,		/* no_counters */
	PFCSIM_K_PAUSE_DURATION,	/* pause_duration */
	PFCSIM_K_SETPFC_REOPEN,		/* setpfc_reopen */
	PFCSIM_NUM_KNOBS,
};

struct pfcsim_knob_def {
	const char *name;		/* its debugfs file */
	u32 max;			/* accepted: 0..max */
};

static const struct pfcsim_knob_def pfcsim_knob_defs[PFCSIM_NUM_KNOBS] = {
	[PFCSIM_K_STATS_PERIOD]		= { "stats_period_ms", 60000 },
	[PFCSIM_K_REFRESH_ON_READ]	= { "stats_refresh_on_read", 1 },
	[PFCSIM_K_GETPFC_DELAY]		= { "getpfc_delay_us", 1000000 },
	[PFCSIM_K_GETPFC_FAIL]		= { "getpfc_fail", MAX_ERRNO },
	[PFCSIM_K_SETPFC_FAIL]		= { "setpfc_fail", MAX_ERRNO },
	[PFCSIM_K_SETPFC_BOUNCE]	= { "setpfc_bounce_ms", 60000 },
	[PFCSIM_K_SWAP]			= { "swap", 1 },
	[PFCSIM_K_NO_COUNTERS]		= { "no_counters", 1 },
	[PFCSIM_K_PAUSE_DURATION]	= { "pause_duration", 3 },
	[PFCSIM_K_SETPFC_REOPEN]	= { "setpfc_reopen", 1 },
};

/* Read-only call counters, one debugfs file each. */
enum pfcsim_calls {
	PFCSIM_C_STATS_READS,		/* get_ethtool_stats */
	PFCSIM_C_GETPFC,		/* ieee_getpfc */
	PFCSIM_C_SETPFC,		/* ieee_setpfc */
	PFCSIM_NUM_CALLS,
};

static const char * const pfcsim_calls_names[PFCSIM_NUM_CALLS] = {
	[PFCSIM_C_STATS_READS]	= "stats_reads",
	[PFCSIM_C_GETPFC]	= "getpfc_calls",
	[PFCSIM_C_SETPFC]	= "setpfc_calls",
};

/* What a driver's ports do; knobs not named are 0. */
struct pfcsim_profile {
	const char *name;		/* written to "profile" */
	const char *driver;		/* get_drvinfo's driver; NULL: pfcsim */
	bool count_when_disabled;
	u32 knob[PFCSIM_NUM_KNOBS];
};

#define PFCSIM_PROFILE_IDEAL	0	/* index of "ideal", the default */
#define PFCSIM_PROFILE_CUSTOM	(-1)	/* a knob changed since */

static const struct pfcsim_profile pfcsim_profiles[] = {
	{ "ideal", NULL, true, { } },
	{ "mlx5", "mlx5_core", true, {
		[PFCSIM_K_REFRESH_ON_READ] = 1,
		[PFCSIM_K_GETPFC_DELAY] = 50,
		[PFCSIM_K_SETPFC_BOUNCE] = 200,
		[PFCSIM_K_PAUSE_DURATION] = 1 } },
	{ "ixgbe", "ixgbe", false, {
		[PFCSIM_K_STATS_PERIOD] = 2000,
		[PFCSIM_K_REFRESH_ON_READ] = 1,
		[PFCSIM_K_SWAP] = 1 } },
	{ "i40e", "i40e", true, {
		[PFCSIM_K_STATS_PERIOD] = 1000,
		[PFCSIM_K_REFRESH_ON_READ] = 1 } },
	{ "ice", "ice", true, {
		[PFCSIM_K_STATS_PERIOD] = 1000,
		[PFCSIM_K_REFRESH_ON_READ] = 1,
		[PFCSIM_K_SETPFC_REOPEN] = 1 } },
	{ "bnxt", "bnxt_en", true, {
		[PFCSIM_K_STATS_PERIOD] = 1000,
		[PFCSIM_K_GETPFC_DELAY] = 100,
		[PFCSIM_K_PAUSE_DURATION] = 3 } },
	{ "hns3", "hns3", true, {
		[PFCSIM_K_GETPFC_DELAY] = 100,
		[PFCSIM_K_SETPFC_BOUNCE] = 100 } },
	{ "mlxsw", "mlxsw_spectrum", true, {
		[PFCSIM_K_GETPFC_DELAY] = 500,
		[PFCSIM_K_PAUSE_DURATION] = 2 } },
	{ "qede", "qede", true, { [PFCSIM_K_NO_COUNTERS] = 1 } },
	{ "cxgb4", "cxgb4", true, { [PFCSIM_K_NO_COUNTERS] = 1 } },
	{ "octeontx2", "rvu-nicpf", true, { [PFCSIM_K_NO_COUNTERS] = 1 } },
};

/* pfcwd_report_pause(), found at run time with symbol_get(). */
typedef void (*pfcsim_push_fn)(struct net_device *dev, unsigned int prio,
			       u16 quanta);

/* The priority lists a port is driven by. */
enum pfcsim_list {
	PFCSIM_RX_STORM,
	PFCSIM_TX_STORM,
	PFCSIM_RX_SLOW,
	PFCSIM_TX_HANG,
	PFCSIM_NUM_LISTS,
};

/* Their debugfs files. */
static const char *const pfcsim_list_names[PFCSIM_NUM_LISTS] = {
	[PFCSIM_RX_STORM]	= "rx_storm",
	[PFCSIM_TX_STORM]	= "tx_storm",
	[PFCSIM_RX_SLOW]	= "rx_slow",
	[PFCSIM_TX_HANG]	= "tx_hang",
};

struct pfcsim_port {
	struct list_head list;		/* pfcsim_lock */
	struct net_device *dev;
	struct dentry *dir;
	bool dying;

	spinlock_t lock;		/* the fields down to dead */
	bool up;			/* between ndo_open and ndo_stop */
	u32 paused;			/* TX queues stopped by pause */
	u8 pfc_en;
	u8 mbc;
	u16 delay;
	struct ieee_ets ets;
	u8 rx_storm;
	u8 tx_hang;			/* classes that send nothing, no pause */
	u8 tx_storm;			/* also read locklessly, by inject */
	u8 rx_slow;
	u32 pause_rate;
	bool count_when_disabled;
	u8 ind_rising;			/* indications[P] rising */
	u8 req_rising;			/* requests[P] rising */
	u8 dur_rising;			/* dur[P] rising */
	struct pfcsim_pause ind[PFCSIM_NUM_PRIO];
	struct pfcsim_pause req[PFCSIM_NUM_PRIO];
	struct pfcsim_pause dur[PFCSIM_NUM_PRIO];	/* in ns */
	ktime_t changed[PFCSIM_NUM_LISTS];	/* last change of each list */
	u32 knob[PFCSIM_NUM_KNOBS];	/* written under RTNL too */
	/* in pfcsim_profiles[], or CUSTOM; get_drvinfo reads it locklessly */
	int profile;
	u64 calls[PFCSIM_NUM_CALLS];
	struct pfcsim_snap pub;		/* the copy reported, if any */
	unsigned long pub_next;		/* jiffies: next copy is due */
	ktime_t bounce_until;		/* carrier down until then */
	/* The NIC's PFC storm prevention (ETHTOOL_PFC_PREVENTION_TOUT). */
	u16 prevent_ms;			/* 0: off */
	u8 generating;			/* tx_storm pause being sent */
	u8 warned;			/* ...that counted a warning */
	u8 prevented;			/* tx_storm whose pause the NIC stopped */
	ktime_t gen_since[PFCSIM_NUM_PRIO];
	u64 storm_warnings, storm_errors;
	bool dead;			/* works no longer re-armed */

	/* debugfs private data of the knob, call counter and list files */
	struct pfcsim_port_file {
		struct pfcsim_port *port;
		unsigned int idx;
	} knob_file[PFCSIM_NUM_KNOBS], calls_file[PFCSIM_NUM_CALLS],
	  list_file[PFCSIM_NUM_LISTS];

	struct delayed_work publish_work;	/* stats_period_ms copies */
	struct delayed_work bounce_work;	/* carrier back on */
	struct delayed_work prevent_work;	/* storm prevention timeouts */

	struct mutex inject_lock;	/* one inject_rx at a time */

	struct mutex push_lock;		/* push_fn, push_timer on/off */
	pfcsim_push_fn push_fn;		/* non-NULL while pushing */
	struct hrtimer push_timer;
	struct pfcsim_rx_stats rx;
	struct pfcsim_queue_stats tx[PFCSIM_NUM_PRIO];	/* ring_lock */

	/*
	 * The queue layout: written under RTNL, port->lock and ring_lock, so
	 * any of them is enough to read it.
	 */
	u8 prio_tc[PFCSIM_NUM_PRIO];	/* the prio_tc knob */
	u8 tc_prio[PFCSIM_NUM_PRIO];	/* the lowest priority of each TC */
	u8 channels;			/* TX queues per TC (ethtool -L) */
	u8 num_txq;			/* num_tc * channels */

	/* The TX rings and their drain. */
	spinlock_t ring_lock;		/* the fields below, and tx[] */
	u32 ring_size;			/* tx_ring; written under port->lock too */
	struct pfcsim_desc *desc;	/* PFCSIM_MAX_TXQ * ring_size */
	u32 link_mbps;
	u32 ring_paused;		/* queues whose TC the partner pauses */
	bool ring_live;			/* up, and not being deleted */
	bool ring_dead;			/* being deleted: never live again */
	bool draining;			/* drain_timer armed or running */
	ktime_t drain_last;		/* the link is accounted up to then */
	s64 credit;			/* bits the link may still send */
	unsigned int rr;		/* the queue served next */
	u64 tx_busy;
	struct pfcsim_ring ring[PFCSIM_MAX_TXQ];
	struct hrtimer drain_timer;
};

static DEFINE_MUTEX(pfcsim_lock);
static LIST_HEAD(pfcsim_ports);
static struct dentry *pfcsim_debugfs;

/* --- pause model (port->lock held) -------------------------------------- */

static u64 pfcsim_pause_read(const struct pfcsim_pause *ctr, bool rising,
			     u32 rate, ktime_t now)
{
	s64 ns;

	if (!rising)
		return ctr->base;
	ns = ktime_to_ns(ktime_sub(now, ctr->since));
	if (ns <= 0)
		return ctr->base;
	return ctr->base + mul_u64_u32_div(ns, rate, NSEC_PER_SEC);
}

static void pfcsim_read_pause(struct pfcsim_port *port, ktime_t now,
			      u64 *requests, u64 *indications)
{
	int p;

	lockdep_assert_held(&port->lock);
	for (p = 0; p < PFCSIM_NUM_PRIO; p++) {
		requests[p] = pfcsim_pause_read(&port->req[p],
						port->req_rising & BIT(p),
						port->pause_rate, now);
		indications[p] = pfcsim_pause_read(&port->ind[p],
						   port->ind_rising & BIT(p),
						   port->pause_rate, now);
	}
}

/* A pause duration in ns: @base, plus the time since @since if rising. */
static u64 pfcsim_dur_read(const struct pfcsim_pause *dur, bool rising,
			   ktime_t now)
{
	s64 ns = ktime_to_ns(ktime_sub(now, dur->since));

	return rising && ns > 0 ? dur->base + ns : dur->base;
}

/* The live counters and durations (in microseconds) at @now. */
static void pfcsim_read_live(struct pfcsim_port *port, ktime_t now,
			     struct pfcsim_snap *snap)
{
	int p;

	pfcsim_read_pause(port, now, snap->req, snap->ind);
	for (p = 0; p < PFCSIM_NUM_PRIO; p++)
		snap->dur[p] = div_u64(pfcsim_dur_read(&port->dur[p],
						       port->dur_rising & BIT(p),
						       now), NSEC_PER_USEC);
}

/* Whether readers get the copy in port->pub rather than live counters. */
static bool pfcsim_copied(const struct pfcsim_port *port)
{
	return port->knob[PFCSIM_K_STATS_PERIOD] ||
	       port->knob[PFCSIM_K_REFRESH_ON_READ];
}

/* Takes the copy that readers get while pfcsim_copied(). */
static void pfcsim_publish(struct pfcsim_port *port, ktime_t now)
{
	lockdep_assert_held(&port->lock);
	pfcsim_read_live(port, now, &port->pub);
}

/* The counters as the port's readers see them: live or the copy. */
static void pfcsim_read_counters(struct pfcsim_port *port, ktime_t now,
				 struct pfcsim_snap *snap)
{
	lockdep_assert_held(&port->lock);
	if (pfcsim_copied(port))
		*snap = port->pub;
	else
		pfcsim_read_live(port, now, snap);
}

/* Brings every counter's base up to @now, before an input changes. */
static void pfcsim_fold(struct pfcsim_port *port, ktime_t now)
{
	u64 req[PFCSIM_NUM_PRIO], ind[PFCSIM_NUM_PRIO];
	int p;

	pfcsim_read_pause(port, now, req, ind);
	for (p = 0; p < PFCSIM_NUM_PRIO; p++) {
		port->req[p].base = req[p];
		port->req[p].since = now;
		port->ind[p].base = ind[p];
		port->ind[p].since = now;
		port->dur[p].base = pfcsim_dur_read(&port->dur[p],
						    port->dur_rising & BIT(p),
						    now);
		port->dur[p].since = now;
	}
}

/* counter_reset: every counter and duration, live and copied, to 0. */
static void pfcsim_reset_counters(struct pfcsim_port *port, ktime_t now)
{
	int p;

	lockdep_assert_held(&port->lock);
	for (p = 0; p < PFCSIM_NUM_PRIO; p++) {
		port->req[p].base = 0;
		port->req[p].since = now;
		port->ind[p].base = 0;
		port->ind[p].since = now;
		port->dur[p].base = 0;
		port->dur[p].since = now;
	}
	memset(&port->pub, 0, sizeof(port->pub));
}

/*
 * After a write to stats_period_ms, stats_refresh_on_read or profile: a
 * fresh copy if readers get one, and the period restarted from @now.
 */
static void pfcsim_stats_restart(struct pfcsim_port *port, ktime_t now)
{
	unsigned long period;

	lockdep_assert_held(&port->lock);
	if (pfcsim_copied(port))
		pfcsim_publish(port, now);
	if (!port->knob[PFCSIM_K_STATS_PERIOD] || port->dead)
		return;	/* a pending work finds period 0 and stops */
	period = msecs_to_jiffies(port->knob[PFCSIM_K_STATS_PERIOD]);
	port->pub_next = jiffies + period;
	mod_delayed_work(system_wq, &port->publish_work, period);
}

/* Every stats_period_ms: a new copy; re-arms itself.  Process context. */
static void pfcsim_publish_work(struct work_struct *work)
{
	struct pfcsim_port *port = container_of(to_delayed_work(work),
						struct pfcsim_port,
						publish_work);
	unsigned long period, now;

	spin_lock_bh(&port->lock);
	if (!port->knob[PFCSIM_K_STATS_PERIOD] || port->dead)
		goto out;
	period = msecs_to_jiffies(port->knob[PFCSIM_K_STATS_PERIOD]);
	now = jiffies;
	/* Early (the period was restarted meanwhile): wait until due. */
	if (time_before(now, port->pub_next)) {
		mod_delayed_work(system_wq, &port->publish_work,
				 port->pub_next - now);
		goto out;
	}
	pfcsim_publish(port, ktime_get());
	/* On a fixed grid, unless the work fell a whole period behind. */
	port->pub_next += period;
	if (!time_after(port->pub_next, now))
		port->pub_next = now + period;
	mod_delayed_work(system_wq, &port->publish_work, port->pub_next - now);
out:
	spin_unlock_bh(&port->lock);
}

/*
 * A successful ieee_setpfc changed pfc_en: the carrier goes down for
 * setpfc_bounce_ms (extending a bounce already under way).
 */
static void pfcsim_bounce(struct pfcsim_port *port, ktime_t now)
{
	u32 ms = port->knob[PFCSIM_K_SETPFC_BOUNCE];

	lockdep_assert_held(&port->lock);
	if (!ms || port->dead)
		return;
	port->bounce_until = ktime_add_ms(now, ms);
	if (port->up)
		netif_carrier_off(port->dev);
	mod_delayed_work(system_wq, &port->bounce_work, msecs_to_jiffies(ms));
}

/* Whether a bounce still holds the carrier down at @now. */
static bool pfcsim_bouncing(const struct pfcsim_port *port, ktime_t now)
{
	return ktime_before(now, port->bounce_until);
}

/* The end of a bounce: carrier back on if the port is up.  Process context. */
static void pfcsim_bounce_work(struct work_struct *work)
{
	struct pfcsim_port *port = container_of(to_delayed_work(work),
						struct pfcsim_port,
						bounce_work);
	ktime_t now;
	s64 left;

	spin_lock_bh(&port->lock);
	now = ktime_get();
	if (pfcsim_bouncing(port, now)) {
		/* Extended, or the jiffies timer was a little early. */
		left = ktime_to_ns(ktime_sub(port->bounce_until, now));
		if (!port->dead)
			mod_delayed_work(system_wq, &port->bounce_work,
					 usecs_to_jiffies(div_u64(left,
								  NSEC_PER_USEC) + 1));
	} else if (port->up) {
		netif_carrier_on(port->dev);
	}
	spin_unlock_bh(&port->lock);
}

/* --- TX rings (ring_lock held) --------------------------------------------- */

/* Counts a frame that left the port.  ring_lock held. */
static void pfcsim_count_tx(struct pfcsim_port *port, u8 prio, u32 len)
{
	struct pfcsim_queue_stats *st = &port->tx[prio];

	lockdep_assert_held(&port->ring_lock);
	u64_stats_update_begin(&st->syncp);
	u64_stats_inc(&st->packets);
	u64_stats_add(&st->bytes, len);
	u64_stats_update_end(&st->syncp);
}

/* The queues whose ring has frames and may send them. */
static u32 pfcsim_rings_ready(const struct pfcsim_port *port)
{
	u32 ready = 0;
	int q;

	for (q = 0; q < port->num_txq; q++)
		if (port->ring[q].count)
			ready |= BIT(q);
	return ready & ~port->ring_paused;
}

/* Starts the drain timer if @ready and it is not running.  ring_lock held. */
static void pfcsim_drain_kick(struct pfcsim_port *port, bool ready)
{
	lockdep_assert_held(&port->ring_lock);
	if (!ready || port->draining || !port->ring_live)
		return;
	port->draining = true;
	port->drain_last = ktime_get();
	port->credit = 0;
	hrtimer_start(&port->drain_timer, ns_to_ktime(PFCSIM_DRAIN_TICK_NS),
		      HRTIMER_MODE_REL_SOFT);
}

/* Sends the oldest frame of ring @q on the link.  ring_lock held. */
static void pfcsim_ring_pop(struct pfcsim_port *port, unsigned int q)
{
	struct pfcsim_ring *ring = &port->ring[q];
	struct pfcsim_desc *d = &port->desc[q * port->ring_size + ring->head];

	ring->head = (ring->head + 1) % port->ring_size;
	ring->count--;
	port->credit -= (s64)(d->len + PFCSIM_WIRE_EXTRA) * BITS_PER_BYTE;
	pfcsim_count_tx(port, d->prio, d->len);
	if (ring->stopped && ring->count <= port->ring_size / 2) {
		ring->stopped = false;
		netif_tx_wake_queue(netdev_get_tx_queue(port->dev, q));
	}
}

/*
 * The link's time from the last drain to @now: it sent what that time
 * allows at link_mbps, one frame per ready ring in turn.  Returns the rings
 * still ready.  ring_lock held.
 */
static unsigned long pfcsim_drain_to(struct pfcsim_port *port, ktime_t now)
{
	unsigned long ready;
	unsigned int q;
	s64 ns;

	lockdep_assert_held(&port->ring_lock);
	ns = ktime_to_ns(ktime_sub(now, port->drain_last));
	port->drain_last = now;
	ns = clamp_t(s64, ns, 0, PFCSIM_DRAIN_MAX_NS);
	port->credit += div_u64((u64)ns * port->link_mbps, 1000);
	ready = pfcsim_rings_ready(port);
	while (ready && port->credit > 0) {
		q = find_next_bit(&ready, PFCSIM_MAX_TXQ, port->rr);
		if (q >= PFCSIM_MAX_TXQ)
			q = find_first_bit(&ready, PFCSIM_MAX_TXQ);
		pfcsim_ring_pop(port, q);
		if (!port->ring[q].count)
			__clear_bit(q, &ready);
		port->rr = (q + 1) % PFCSIM_MAX_TXQ;
	}
	return ready;
}

/*
 * The drain timer (softirq): the link sends what the time since the last
 * tick allows; runs while a ring that is not paused has frames.
 */
static enum hrtimer_restart pfcsim_drain_tick(struct hrtimer *timer)
{
	struct pfcsim_port *port = container_of(timer, struct pfcsim_port,
						drain_timer);
	enum hrtimer_restart ret = HRTIMER_RESTART;

	spin_lock(&port->ring_lock);
	if (pfcsim_drain_to(port, ktime_get())) {
		hrtimer_forward_now(timer, ns_to_ktime(PFCSIM_DRAIN_TICK_NS));
	} else {
		/* An idle link saves no credit for later. */
		port->credit = min_t(s64, port->credit, 0);
		port->draining = false;
		ret = HRTIMER_NORESTART;
	}
	spin_unlock(&port->ring_lock);
	return ret;
}

/*
 * Empties every ring without counting; returns the queues that were
 * stopped because their ring was full (no longer marked so).
 */
static u32 pfcsim_rings_flush(struct pfcsim_port *port)
{
	u32 stopped = 0;
	int q;

	lockdep_assert_held(&port->ring_lock);
	for (q = 0; q < PFCSIM_MAX_TXQ; q++) {
		if (port->ring[q].stopped)
			stopped |= BIT(q);
		port->ring[q].head = 0;
		port->ring[q].count = 0;
		port->ring[q].stopped = false;
	}
	port->credit = 0;
	return stopped;
}

/* Stops the drain timer of a port whose rings no longer live.  No lock. */
static void pfcsim_drain_cancel(struct pfcsim_port *port)
{
	hrtimer_cancel(&port->drain_timer);
	spin_lock_bh(&port->ring_lock);
	port->draining = false;
	spin_unlock_bh(&port->ring_lock);
}

/* --- queue state (port->lock held) ------------------------------------------ */

/*
 * The TX queues of the traffic classes the link partner pauses, and of
 * those whose transmit hangs (tx_hang).
 */
static u32 pfcsim_paused_queues(const struct pfcsim_port *port)
{
	u8 prios = (port->rx_storm & port->pfc_en) | port->tx_hang;
	u32 mask = 0;
	int p, t;

	for (p = 0; p < PFCSIM_NUM_PRIO; p++) {
		if (!(prios & BIT(p)))
			continue;
		t = port->prio_tc[p];
		mask |= GENMASK((t + 1) * port->channels - 1, t * port->channels);
	}
	return mask;
}

/*
 * Makes the TX queues follow the link partner's pause: without rings
 * (tx_ring 0) exactly the paused ones are stopped; with rings, the paused
 * rings stop draining instead.  port->lock held.
 */
static void pfcsim_apply_queues(struct pfcsim_port *port)
{
	u32 want = pfcsim_paused_queues(port);
	u32 stop = port->ring_size ? 0 : want;
	struct netdev_queue *txq;
	int q;

	lockdep_assert_held(&port->lock);
	spin_lock(&port->ring_lock);
	/*
	 * Up to now the link sent at the old pause state, however late the
	 * drain timer runs (under emulation, by milliseconds): a pause stops
	 * a ring from now on, not from the last tick.
	 */
	if (port->draining)
		pfcsim_drain_to(port, ktime_get());
	port->ring_paused = want;
	pfcsim_drain_kick(port, pfcsim_rings_ready(port));
	spin_unlock(&port->ring_lock);
	if (!port->up)
		return;
	for (q = 0; q < PFCSIM_MAX_TXQ; q++) {
		if (!((stop ^ port->paused) & BIT(q)))
			continue;
		txq = netdev_get_tx_queue(port->dev, q);
		if (stop & BIT(q)) {
			/* As hardware would: no frame leaves once paused. */
			__netif_tx_lock_bh(txq);
			netif_tx_stop_queue(txq);
			__netif_tx_unlock_bh(txq);
		} else {
			netif_tx_wake_queue(txq);
		}
	}
	port->paused = stop;
}

/*
 * Empties the rings (counting nothing), gives them @desc of @size
 * descriptors, wakes the queues stopped because their ring was full (but
 * for those that pause stops without rings, which stay stopped) and makes
 * the queues follow the pause again.  Returns the old descriptors, for
 * the caller to free.  RTNL and port->lock held.
 */
static struct pfcsim_desc *pfcsim_rings_reset(struct pfcsim_port *port,
					      struct pfcsim_desc *desc,
					      u32 size)
{
	struct pfcsim_desc *old;
	u32 stopped, keep;
	int q;

	lockdep_assert_held(&port->lock);
	spin_lock(&port->ring_lock);
	old = port->desc;
	port->desc = desc;
	port->ring_size = size;
	stopped = pfcsim_rings_flush(port);
	keep = size ? 0 : pfcsim_paused_queues(port);
	if (port->up) {
		for (q = 0; q < PFCSIM_MAX_TXQ; q++)
			if ((stopped & ~keep) & BIT(q))
				netif_tx_wake_queue(netdev_get_tx_queue(port->dev,
									q));
		port->paused |= stopped & keep;
	}
	spin_unlock(&port->ring_lock);
	pfcsim_apply_queues(port);
	return old;
}

/*
 * Sets the priority to traffic class map (traffic classes 0..max, each
 * used) and @channels TX queues per class: TC t owns queues
 * [t * channels, (t + 1) * channels).  Empties the rings.  RTNL held,
 * process context (the queue kobjects come and go).
 */
static int pfcsim_set_layout(struct pfcsim_port *port,
			     const u8 prio_tc[PFCSIM_NUM_PRIO],
			     unsigned int channels)
{
	struct net_device *dev = port->dev;
	unsigned int num_tc = 0, txq, p, t;
	u8 tc_prio[PFCSIM_NUM_PRIO] = { };
	int err = 0;

	ASSERT_RTNL();
	for (p = 0; p < PFCSIM_NUM_PRIO; p++)
		num_tc = max_t(unsigned int, num_tc, prio_tc[p] + 1);
	for (p = PFCSIM_NUM_PRIO; p-- > 0; )
		tc_prio[prio_tc[p]] = p;
	txq = num_tc * channels;
	/* The TC ranges must fit the real queues whenever these change. */
	if (txq > dev->real_num_tx_queues)
		err = netif_set_real_num_tx_queues(dev, txq);
	if (!err)
		err = netdev_set_num_tc(dev, num_tc);
	for (t = 0; !err && t < num_tc; t++)
		err = netdev_set_tc_queue(dev, t, channels, t * channels);
	for (p = 0; !err && p < PFCSIM_NUM_PRIO; p++)
		err = netdev_set_prio_tc_map(dev, p, prio_tc[p]);
	if (!err && txq < dev->real_num_tx_queues)
		err = netif_set_real_num_tx_queues(dev, txq);
	if (err)
		return err;

	spin_lock_bh(&port->lock);
	spin_lock(&port->ring_lock);
	memcpy(port->prio_tc, prio_tc, sizeof(port->prio_tc));
	memcpy(port->tc_prio, tc_prio, sizeof(port->tc_prio));
	port->channels = channels;
	port->num_txq = txq;
	spin_unlock(&port->ring_lock);
	pfcsim_rings_reset(port, port->desc, port->ring_size);
	spin_unlock_bh(&port->lock);
	return 0;
}

static void pfcsim_reconfigure(struct pfcsim_port *port);

/* The warning watermark of a prevention timeout: 85 %, at least 80 ms. */
static u32 pfcsim_prevent_warn_ms(u32 ms)
{
	return max(ms * 85 / 100, 80U);
}

/*
 * Follows which priorities send pause because their receive path is
 * stalled (tx_storm), and arms the prevention work for the next warning or
 * timeout.  port->lock held.
 */
static void pfcsim_prevent_arm(struct pfcsim_port *port, ktime_t now)
{
	u8 gen = port->tx_storm & port->pfc_en & ~port->prevented;
	s64 next = S64_MAX, due;
	int p;

	lockdep_assert_held(&port->lock);
	for (p = 0; p < PFCSIM_NUM_PRIO; p++)
		if ((gen & ~port->generating) & BIT(p))
			port->gen_since[p] = now;
	port->warned &= gen;
	port->generating = gen;
	if (!port->prevent_ms || !gen || port->dead)
		return;
	for (p = 0; p < PFCSIM_NUM_PRIO; p++) {
		if (!(gen & BIT(p)))
			continue;
		due = ktime_to_ns(port->gen_since[p]) + NSEC_PER_MSEC *
		      ((port->warned & BIT(p)) ? port->prevent_ms :
		       pfcsim_prevent_warn_ms(port->prevent_ms));
		next = min(next, due);
	}
	due = max_t(s64, next - ktime_to_ns(now), 0);
	mod_delayed_work(system_wq, &port->prevent_work,
			 usecs_to_jiffies(div_u64(due, NSEC_PER_USEC)) + 1);
}

/* Warnings and timeouts that are due.  Process context. */
static void pfcsim_prevent_work(struct work_struct *work)
{
	struct pfcsim_port *port = container_of(to_delayed_work(work),
						struct pfcsim_port,
						prevent_work);
	u8 stop = 0;
	ktime_t now;
	int p;

	spin_lock_bh(&port->lock);
	now = ktime_get();
	for (p = 0; p < PFCSIM_NUM_PRIO && port->prevent_ms; p++) {
		s64 ms;

		if (!(port->generating & BIT(p)))
			continue;
		ms = ktime_ms_delta(now, port->gen_since[p]);
		if (ms >= pfcsim_prevent_warn_ms(port->prevent_ms) &&
		    !(port->warned & BIT(p))) {
			port->warned |= BIT(p);
			port->storm_warnings++;
		}
		if (ms >= port->prevent_ms) {
			stop |= BIT(p);
			port->storm_errors++;
		}
	}
	if (stop) {
		pfcsim_fold(port, now);
		port->prevented |= stop;
		pfcsim_reconfigure(port);
	} else {
		pfcsim_prevent_arm(port, now);
	}
	spin_unlock_bh(&port->lock);
}

/*
 * Recomputes which counters rise and which queues are paused after an
 * input changed; pfcsim_fold(port, now) must have run before the change.
 */
static void pfcsim_reconfigure(struct pfcsim_port *port)
{
	u8 ind = port->rx_storm;

	lockdep_assert_held(&port->lock);
	if (!port->count_when_disabled)
		ind &= port->pfc_en;
	port->ind_rising = ind;
	port->req_rising = ((port->tx_storm & ~port->prevented) |
			    port->rx_slow) & port->pfc_en;
	port->dur_rising = port->rx_storm & port->pfc_en;
	pfcsim_apply_queues(port);
	pfcsim_prevent_arm(port, ktime_get());
}

/* --- data path ------------------------------------------------------------ */

/*
 * A frame's priority: its PCP if it is VLAN-tagged, else the lowest
 * priority of its queue's traffic class.  ring_lock held.
 */
static u8 pfcsim_tx_prio(const struct pfcsim_port *port, struct sk_buff *skb,
			 unsigned int qid)
{
	unsigned int tc = qid / port->channels;
	u16 tci;

	if (!vlan_get_tag(skb, &tci))
		return (tci & VLAN_PRIO_MASK) >> VLAN_PRIO_SHIFT;
	return tc < PFCSIM_NUM_PRIO ? port->tc_prio[tc] : 0;
}

/*
 * The TX queue of a frame, picked as mlx5 picks it: a VLAN-tagged frame
 * (tag in the skb or in the frame) goes to a queue of its PCP's traffic
 * class - the core's own pick, which follows skb->priority, saying which
 * one of them - and any other frame where the core puts it.  Called by
 * dev_queue_xmit(), BH disabled; reads the traffic class layout as the
 * core does, without a lock (it changes under RTNL).
 */
static u16 pfcsim_select_queue(struct net_device *dev, struct sk_buff *skb,
			       struct net_device *sb_dev)
{
	u16 qid = netdev_pick_tx(dev, skb, sb_dev);
	const struct netdev_tc_txq *tc;
	u16 tci;
	u8 pcp;

	if (netdev_get_num_tc(dev) <= 1 || vlan_get_tag(skb, &tci))
		return qid;
	pcp = (tci & VLAN_PRIO_MASK) >> VLAN_PRIO_SHIFT;
	tc = &dev->tc_to_txq[netdev_get_prio_tc_map(dev, pcp)];
	if (!tc->count)
		return qid;
	return tc->offset + qid % tc->count;
}

/*
 * Without rings, a frame leaves at once.  With rings, it is queued (its
 * length and priority; the skb is freed) and the queue is stopped once its
 * ring is full; the drain timer sends it.  Called with the queue's xmit
 * lock held, BH disabled; takes ring_lock.
 */
static netdev_tx_t pfcsim_start_xmit(struct sk_buff *skb,
				     struct net_device *dev)
{
	struct pfcsim_port *port = netdev_priv(dev);
	unsigned int qid = skb_get_queue_mapping(skb);
	struct netdev_queue *txq;
	struct pfcsim_ring *ring;
	struct pfcsim_desc *d;
	u8 prio;

	if (qid >= PFCSIM_MAX_TXQ)
		qid = 0;
	txq = netdev_get_tx_queue(dev, qid);
	ring = &port->ring[qid];
	spin_lock(&port->ring_lock);
	if (port->ring_size && port->ring_live &&
	    ring->count >= port->ring_size) {
		/* Only a caller ignoring the stopped queue gets here. */
		port->tx_busy++;
		ring->stopped = true;
		netif_tx_stop_queue(txq);
		spin_unlock(&port->ring_lock);
		return NETDEV_TX_BUSY;
	}
	prio = pfcsim_tx_prio(port, skb, qid);
	if (!port->ring_size) {
		pfcsim_count_tx(port, prio, skb->len);
	} else if (!port->ring_live) {
		/* Going down or away: dropped, not counted. */
	} else {
		d = &port->desc[qid * port->ring_size +
				(ring->head + ring->count) % port->ring_size];
		d->len = skb->len;
		d->prio = prio;
		if (++ring->count == port->ring_size) {
			ring->stopped = true;
			netif_tx_stop_queue(txq);
		}
		pfcsim_drain_kick(port, !(port->ring_paused & BIT(qid)));
	}
	spin_unlock(&port->ring_lock);
	dev_kfree_skb_any(skb);
	return NETDEV_TX_OK;
}

/* Fills a frame's Ethernet header; returns where its payload goes. */
static void *pfcsim_rx_eth(struct sk_buff *skb, struct net_device *dev,
			   const struct pfcsim_rx_spec *spec)
{
	struct vlan_ethhdr *veth;
	struct ethhdr *eth;

	if (spec->kind == PFCSIM_RX_TAGGED) {
		veth = (struct vlan_ethhdr *)skb->data;
		ether_addr_copy(veth->h_dest, dev->dev_addr);
		ether_addr_copy(veth->h_source, pfcsim_peer_addr);
		veth->h_vlan_proto = htons(ETH_P_8021Q);
		veth->h_vlan_TCI = htons((u16)spec->prio << VLAN_PRIO_SHIFT);
		veth->h_vlan_encapsulated_proto = htons(ETH_P_802_EX1);
		return veth + 1;
	}
	eth = (struct ethhdr *)skb->data;
	ether_addr_copy(eth->h_dest, dev->dev_addr);
	ether_addr_copy(eth->h_source, pfcsim_peer_addr);
	eth->h_proto = htons(spec->kind == PFCSIM_RX_IPV4 ? ETH_P_IP :
			     ETH_P_IPV6);
	return eth + 1;
}

/* Writes an IPv4 or IPv6 header at @l3; returns where the payload goes. */
static void *pfcsim_rx_ip(void *l3, const struct pfcsim_rx_spec *spec,
			  unsigned int payload_len)
{
	struct ipv6hdr *ip6h;
	struct iphdr *iph;

	if (spec->kind == PFCSIM_RX_IPV4) {
		iph = l3;
		iph->version = 4;
		iph->ihl = sizeof(*iph) / 4;
		iph->tos = spec->dscp << 2;
		iph->tot_len = htons(sizeof(*iph) + payload_len);
		iph->ttl = 64;
		iph->protocol = PFCSIM_IP_PROTO;
		iph->saddr = htonl(0xc0000202);		/* 192.0.2.2 */
		iph->daddr = htonl(0xc0000201);		/* 192.0.2.1 */
		iph->check = ip_fast_csum(iph, iph->ihl);
		return iph + 1;
	}
	ip6h = l3;
	ip6_flow_hdr(ip6h, spec->dscp << 2, 0);
	ip6h->payload_len = htons(payload_len);
	ip6h->nexthdr = PFCSIM_IP_PROTO;
	ip6h->hop_limit = 64;
	ip6h->saddr.s6_addr[0] = 0x20;			/* 2001:db8::2 */
	ip6h->saddr.s6_addr[1] = 0x01;
	ip6h->saddr.s6_addr[2] = 0x0d;
	ip6h->saddr.s6_addr[3] = 0xb8;
	ip6h->daddr = ip6h->saddr;			/* 2001:db8::1 */
	ip6h->saddr.s6_addr[15] = 2;
	ip6h->daddr.s6_addr[15] = 1;
	return ip6h + 1;
}

/* Receives one frame; BH disabled, port->inject_lock held. */
static int pfcsim_rx_one(struct pfcsim_port *port,
			 const struct pfcsim_rx_spec *spec, u32 seq)
{
	struct net_device *dev = port->dev;
	struct pfcsim_rx_stats *st = &port->rx;
	struct sk_buff *skb;
	__be32 payload[3] = {
		htonl(PFCSIM_PKT_MAGIC), htonl(spec->prio), htonl(seq)
	};
	unsigned int len = PFCSIM_RX_FRAME_LEN;
	void *data;

	if (READ_ONCE(port->tx_storm)) {
		/* Receive path stalled: the frame never reaches the host. */
		u64_stats_update_begin(&st->syncp);
		u64_stats_inc(&st->dropped);
		u64_stats_update_end(&st->syncp);
		return 0;
	}

	if (spec->kind == PFCSIM_RX_IPV6)
		len = max_t(unsigned int, len, ETH_HLEN +
			    sizeof(struct ipv6hdr) + sizeof(payload));
	skb = netdev_alloc_skb(dev, len);
	if (!skb)
		return -ENOMEM;
	skb_put_zero(skb, len);
	data = pfcsim_rx_eth(skb, dev, spec);
	if (spec->kind != PFCSIM_RX_TAGGED)
		data = pfcsim_rx_ip(data, spec, sizeof(payload));
	/* After an 18-byte header: not 4-byte aligned. */
	memcpy(data, payload, sizeof(payload));
	skb->protocol = eth_type_trans(skb, dev);

	u64_stats_update_begin(&st->syncp);
	u64_stats_inc(&st->packets[spec->prio]);
	u64_stats_add(&st->bytes, len);
	u64_stats_update_end(&st->syncp);

	netif_receive_skb(skb);
	return 0;
}

/*
 * The priority of an untagged IP packet with DSCP @dscp: the highest the
 * device's DCB APP table gives it, else 0.  Process context.
 */
static u8 pfcsim_dscp_prio(struct net_device *dev, u8 dscp)
{
	struct dcb_ieee_app_dscp_map map;

	dcb_ieee_getapp_dscp_prio_mask_map(dev, &map);
	return map.map[dscp] ? fls(map.map[dscp]) - 1 : 0;
}

/* Process context, from the inject_rx write. */
static int pfcsim_inject(struct pfcsim_port *port,
			 struct pfcsim_rx_spec *spec, u32 count)
{
	u32 done = 0, i, n;
	int err = 0;

	if (!netif_running(port->dev))
		return -ENETDOWN;
	if (spec->kind != PFCSIM_RX_TAGGED)
		spec->prio = pfcsim_dscp_prio(port->dev, spec->dscp);
	mutex_lock(&port->inject_lock);
	while (done < count) {
		if (READ_ONCE(port->dying)) {
			err = -ENODEV;
			break;
		}
		if (fatal_signal_pending(current)) {
			err = -EINTR;
			break;
		}
		n = min_t(u32, count - done, PFCSIM_INJECT_BATCH);
		local_bh_disable();
		for (i = 0; i < n && !err; i++)
			err = pfcsim_rx_one(port, spec, done + i);
		local_bh_enable();
		if (err)
			break;
		done += n;
		cond_resched();
	}
	mutex_unlock(&port->inject_lock);
	return err;
}

static void pfcsim_read_tx(const struct pfcsim_queue_stats *st,
			   u64 *packets, u64 *bytes)
{
	unsigned int start;

	do {
		start = u64_stats_fetch_begin(&st->syncp);
		*packets = u64_stats_read(&st->packets);
		*bytes = u64_stats_read(&st->bytes);
	} while (u64_stats_fetch_retry(&st->syncp, start));
}

static void pfcsim_read_rx(const struct pfcsim_rx_stats *st, u64 *packets,
			   u64 *bytes, u64 *dropped)
{
	unsigned int start;
	int p;

	do {
		start = u64_stats_fetch_begin(&st->syncp);
		for (p = 0; p < PFCSIM_NUM_PRIO; p++)
			packets[p] = u64_stats_read(&st->packets[p]);
		*bytes = u64_stats_read(&st->bytes);
		*dropped = u64_stats_read(&st->dropped);
	} while (u64_stats_fetch_retry(&st->syncp, start));
}

static void pfcsim_get_stats64(struct net_device *dev,
			       struct rtnl_link_stats64 *stats)
{
	struct pfcsim_port *port = netdev_priv(dev);
	u64 packets, bytes, dropped, rx[PFCSIM_NUM_PRIO];
	int p;

	for (p = 0; p < PFCSIM_NUM_PRIO; p++) {
		pfcsim_read_tx(&port->tx[p], &packets, &bytes);
		stats->tx_packets += packets;
		stats->tx_bytes += bytes;
	}
	pfcsim_read_rx(&port->rx, rx, &bytes, &dropped);
	for (p = 0; p < PFCSIM_NUM_PRIO; p++)
		stats->rx_packets += rx[p];
	stats->rx_bytes += bytes;
	stats->rx_dropped += dropped;
}

/* RTNL held. */
static int pfcsim_open(struct net_device *dev)
{
	struct pfcsim_port *port = netdev_priv(dev);

	spin_lock_bh(&port->lock);
	netif_tx_start_all_queues(dev);
	port->up = true;
	port->paused = 0;
	spin_lock(&port->ring_lock);
	port->ring_live = !port->ring_dead;
	spin_unlock(&port->ring_lock);
	pfcsim_apply_queues(port);
	/* Under a bounce, the bounce work turns the carrier on. */
	if (!pfcsim_bouncing(port, ktime_get()))
		netif_carrier_on(dev);
	spin_unlock_bh(&port->lock);
	return 0;
}

/* RTNL held; the qdiscs are already deactivated. */
static int pfcsim_stop(struct net_device *dev)
{
	struct pfcsim_port *port = netdev_priv(dev);

	spin_lock_bh(&port->lock);
	netif_carrier_off(dev);
	port->up = false;
	port->paused = 0;
	netif_tx_stop_all_queues(dev);
	spin_lock(&port->ring_lock);
	port->ring_live = false;
	pfcsim_rings_flush(port);
	spin_unlock(&port->ring_lock);
	spin_unlock_bh(&port->lock);
	pfcsim_drain_cancel(port);
	return 0;
}

static const struct net_device_ops pfcsim_netdev_ops = {
	.ndo_open		= pfcsim_open,
	.ndo_stop		= pfcsim_stop,
	.ndo_start_xmit		= pfcsim_start_xmit,
	.ndo_select_queue	= pfcsim_select_queue,
	.ndo_get_stats64	= pfcsim_get_stats64,
	.ndo_set_mac_address	= eth_mac_addr,
	.ndo_validate_addr	= eth_validate_addr,
};

/* --- ethtool (RTNL held, process context) ---------------------------------- */

enum {
	PFCSIM_STAT_TX_PACKETS,
	PFCSIM_STAT_RX_PACKETS,
	PFCSIM_STAT_RX_PAUSE,
	PFCSIM_STAT_TX_PAUSE,
	PFCSIM_STAT_RX_PAUSE_DURATION,
	PFCSIM_STATS_PER_PRIO_MAX
};

static const char * const pfcsim_stat_fmt[PFCSIM_STATS_PER_PRIO_MAX] = {
	[PFCSIM_STAT_TX_PACKETS]	= "tx_prio%d_packets",
	[PFCSIM_STAT_RX_PACKETS]	= "rx_prio%d_packets",
	[PFCSIM_STAT_RX_PAUSE]		= "rx_prio%d_pause",
	[PFCSIM_STAT_TX_PAUSE]		= "tx_prio%d_pause",
	[PFCSIM_STAT_RX_PAUSE_DURATION]	= "rx_prio%d_pause_duration",
};

/* The pause duration's name for each value of the pause_duration knob. */
static const char * const pfcsim_duration_fmt[] = {
	[1] = "rx_prio%d_pause_duration",
	[2] = "rx_pause_duration_prio_%d",
	[3] = "pfc_pri%d_rx_duration_us",
};

/*
 * The statistics shown per priority, in order, as they depend on
 * no_counters and pause_duration; returns how many.  RTNL held (those
 * knobs are written under RTNL), so that the three ethtool ops agree.
 */
static int pfcsim_stat_ids(struct pfcsim_port *port, int *ids)
{
	int n = 0;

	ASSERT_RTNL();
	ids[n++] = PFCSIM_STAT_TX_PACKETS;
	ids[n++] = PFCSIM_STAT_RX_PACKETS;
	if (port->knob[PFCSIM_K_NO_COUNTERS])
		return n;
	ids[n++] = PFCSIM_STAT_RX_PAUSE;
	ids[n++] = PFCSIM_STAT_TX_PAUSE;
	if (port->knob[PFCSIM_K_PAUSE_DURATION])
		ids[n++] = PFCSIM_STAT_RX_PAUSE_DURATION;
	return n;
}

/* RTNL held: pfcwd looks the name up in its quirk table. */
static void pfcsim_get_drvinfo(struct net_device *dev,
			       struct ethtool_drvinfo *info)
{
	struct pfcsim_port *port = netdev_priv(dev);
	int prof = READ_ONCE(port->profile);
	const char *driver = NULL;

	if (prof != PFCSIM_PROFILE_CUSTOM)
		driver = pfcsim_profiles[prof].driver;
	strscpy(info->driver, driver ?: KBUILD_MODNAME, sizeof(info->driver));
}

static int pfcsim_get_link_ksettings(struct net_device *dev,
				     struct ethtool_link_ksettings *cmd)
{
	struct pfcsim_port *port = netdev_priv(dev);

	/* No link modes: the speed is all pfcwd needs (pause quanta). */
	cmd->base.speed = READ_ONCE(port->link_mbps);
	cmd->base.duplex = DUPLEX_FULL;
	cmd->base.port = PORT_DA;
	cmd->base.autoneg = AUTONEG_DISABLE;
	return 0;
}

/* The port-wide statistics of the storm prevention, while it is on. */
static const char * const pfcsim_prevent_stats[] = {
	"tx_pause_storm_warning_events",
	"tx_pause_storm_error_events",
};

/* How many port-wide statistics follow the per-priority ones.  RTNL. */
static int pfcsim_port_stats(struct pfcsim_port *port)
{
	ASSERT_RTNL();
	return port->prevent_ms ? ARRAY_SIZE(pfcsim_prevent_stats) : 0;
}

static int pfcsim_get_sset_count(struct net_device *dev, int sset)
{
	int ids[PFCSIM_STATS_PER_PRIO_MAX];
	struct pfcsim_port *port = netdev_priv(dev);

	if (sset != ETH_SS_STATS)
		return -EOPNOTSUPP;
	return PFCSIM_NUM_PRIO * pfcsim_stat_ids(port, ids) +
	       pfcsim_port_stats(port);
}

static void pfcsim_get_strings(struct net_device *dev, u32 sset, u8 *data)
{
	struct pfcsim_port *port = netdev_priv(dev);
	int ids[PFCSIM_STATS_PER_PRIO_MAX];
	const char *fmt;
	int n, p, i;

	if (sset != ETH_SS_STATS)
		return;
	n = pfcsim_stat_ids(port, ids);
	for (p = 0; p < PFCSIM_NUM_PRIO; p++)
		for (i = 0; i < n; i++) {
			fmt = pfcsim_stat_fmt[ids[i]];
			if (ids[i] == PFCSIM_STAT_RX_PAUSE_DURATION)
				fmt = pfcsim_duration_fmt[port->knob[PFCSIM_K_PAUSE_DURATION]];
			ethtool_sprintf(&data, fmt, p);
		}
	for (i = 0; i < pfcsim_port_stats(netdev_priv(dev)); i++) {
		strscpy_pad(data, pfcsim_prevent_stats[i], ETH_GSTRING_LEN);
		data += ETH_GSTRING_LEN;
	}
}

/* With stats_refresh_on_read, takes a fresh copy of the pause counters. */
static void pfcsim_get_ethtool_stats(struct net_device *dev,
				     struct ethtool_stats *stats, u64 *data)
{
	struct pfcsim_port *port = netdev_priv(dev);
	u64 rx[PFCSIM_NUM_PRIO], tx, bytes, dropped, warnings, errors;
	int ids[PFCSIM_STATS_PER_PRIO_MAX];
	struct pfcsim_snap snap;
	ktime_t now;
	int n, p, i;

	n = pfcsim_stat_ids(port, ids);
	spin_lock_bh(&port->lock);
	port->calls[PFCSIM_C_STATS_READS]++;
	now = ktime_get();
	if (port->knob[PFCSIM_K_REFRESH_ON_READ])
		pfcsim_publish(port, now);
	pfcsim_read_counters(port, now, &snap);
	warnings = port->storm_warnings;
	errors = port->storm_errors;
	spin_unlock_bh(&port->lock);
	pfcsim_read_rx(&port->rx, rx, &bytes, &dropped);
	for (p = 0; p < PFCSIM_NUM_PRIO; p++) {
		pfcsim_read_tx(&port->tx[p], &tx, &bytes);
		for (i = 0; i < n; i++) {
			switch (ids[i]) {
			case PFCSIM_STAT_TX_PACKETS:
				*data++ = tx;
				break;
			case PFCSIM_STAT_RX_PACKETS:
				*data++ = rx[p];
				break;
			case PFCSIM_STAT_RX_PAUSE:
				*data++ = snap.ind[p];
				break;
			case PFCSIM_STAT_TX_PAUSE:
				*data++ = snap.req[p];
				break;
			default:
				*data++ = snap.dur[p];
				break;
			}
		}
	}
	if (pfcsim_port_stats(port)) {
		*data++ = warnings;
		*data++ = errors;
	}
}

static int pfcsim_get_tunable(struct net_device *dev,
			      const struct ethtool_tunable *tuna, void *data)
{
	struct pfcsim_port *port = netdev_priv(dev);

	if (tuna->id != ETHTOOL_PFC_PREVENTION_TOUT)
		return -EOPNOTSUPP;
	*(u16 *)data = READ_ONCE(port->prevent_ms);
	return 0;
}

/* 0 (off), 80..8000 ms or PFC_STORM_PREVENTION_AUTO (100 ms), as mlx5. */
static int pfcsim_set_tunable(struct net_device *dev,
			      const struct ethtool_tunable *tuna,
			      const void *data)
{
	struct pfcsim_port *port = netdev_priv(dev);
	u16 ms = *(const u16 *)data;

	ASSERT_RTNL();
	if (tuna->id != ETHTOOL_PFC_PREVENTION_TOUT)
		return -EOPNOTSUPP;
	if (ms == PFC_STORM_PREVENTION_AUTO)
		ms = 100;
	else if (ms && (ms < 80 || ms > 8000))
		return -EINVAL;
	spin_lock_bh(&port->lock);
	WRITE_ONCE(port->prevent_ms, ms);
	pfcsim_prevent_arm(port, ktime_get());
	spin_unlock_bh(&port->lock);
	return 0;
}

static void pfcsim_get_channels(struct net_device *dev,
				struct ethtool_channels *ch)
{
	struct pfcsim_port *port = netdev_priv(dev);

	ch->max_rx = 1;
	ch->max_tx = PFCSIM_MAX_CHANNELS;
	ch->rx_count = 1;
	spin_lock_bh(&port->lock);
	ch->tx_count = port->channels;
	spin_unlock_bh(&port->lock);
}

static int pfcsim_set_layout(struct pfcsim_port *port,
			     const u8 prio_tc[PFCSIM_NUM_PRIO],
			     unsigned int channels);

/* "ethtool -L NAME tx N": N TX queues per traffic class. */
/*
 * "ethtool -g": the TX ring size is tx_ring (0: none); set with the
 * tx_ring knob, not with "ethtool -G".  The RX ring is not modelled.
 */
static void pfcsim_get_ringparam(struct net_device *dev,
				 struct ethtool_ringparam *ring,
				 struct kernel_ethtool_ringparam *kring,
				 struct netlink_ext_ack *extack)
{
	struct pfcsim_port *port = netdev_priv(dev);

	ring->tx_max_pending = PFCSIM_RING_MAX;
	spin_lock_bh(&port->lock);
	ring->tx_pending = port->ring_size;
	spin_unlock_bh(&port->lock);
}

static int pfcsim_set_channels(struct net_device *dev,
			       struct ethtool_channels *ch)
{
	struct pfcsim_port *port = netdev_priv(dev);
	u8 prio_tc[PFCSIM_NUM_PRIO];

	ASSERT_RTNL();
	if (ch->rx_count != 1 || ch->combined_count || ch->other_count ||
	    !ch->tx_count || ch->tx_count > PFCSIM_MAX_CHANNELS)
		return -EINVAL;
	memcpy(prio_tc, port->prio_tc, sizeof(prio_tc));
	return pfcsim_set_layout(port, prio_tc, ch->tx_count);
}

static const struct ethtool_ops pfcsim_ethtool_ops = {
	.get_drvinfo		= pfcsim_get_drvinfo,
	.get_link		= ethtool_op_get_link,
	.get_link_ksettings	= pfcsim_get_link_ksettings,
	.get_sset_count		= pfcsim_get_sset_count,
	.get_strings		= pfcsim_get_strings,
	.get_ethtool_stats	= pfcsim_get_ethtool_stats,
	.get_tunable		= pfcsim_get_tunable,
	.set_tunable		= pfcsim_set_tunable,
	.get_channels		= pfcsim_get_channels,
	.get_ringparam		= pfcsim_get_ringparam,
	.set_channels		= pfcsim_set_channels,
};

/* --- dcbnl (RTNL held, process context) ------------------------------------ */

/* Sleeps @us microseconds, as a firmware command would; may sleep. */
static void pfcsim_sleep_us(u32 us)
{
	if (!us)
		return;
	if (us < 20 * USEC_PER_MSEC)
		usleep_range(us, us + us / 8 + 10);
	else
		msleep(DIV_ROUND_UP(us, USEC_PER_MSEC));
}

/* May sleep (getpfc_delay_us): process context only. */
static int pfcsim_ieee_getpfc(struct net_device *dev, struct ieee_pfc *pfc)
{
	struct pfcsim_port *port = netdev_priv(dev);
	struct pfcsim_snap snap;
	u32 delay, fail;
	bool swap;

	memset(pfc, 0, sizeof(*pfc));
	spin_lock_bh(&port->lock);
	port->calls[PFCSIM_C_GETPFC]++;
	delay = port->knob[PFCSIM_K_GETPFC_DELAY];
	fail = port->knob[PFCSIM_K_GETPFC_FAIL];
	spin_unlock_bh(&port->lock);
	pfcsim_sleep_us(delay);
	if (fail)
		return -(int)fail;

	pfc->pfc_cap = PFCSIM_NUM_PRIO;
	spin_lock_bh(&port->lock);
	pfc->pfc_en = port->pfc_en;
	pfc->mbc = port->mbc;
	pfc->delay = port->delay;
	if (!port->knob[PFCSIM_K_NO_COUNTERS]) {
		pfcsim_read_counters(port, ktime_get(), &snap);
		swap = port->knob[PFCSIM_K_SWAP];
		memcpy(pfc->requests, swap ? snap.ind : snap.req,
		       sizeof(pfc->requests));
		memcpy(pfc->indications, swap ? snap.req : snap.ind,
		       sizeof(pfc->indications));
	}
	spin_unlock_bh(&port->lock);
	return 0;
}

static int pfcsim_ieee_setpfc(struct net_device *dev, struct ieee_pfc *pfc)
{
	struct pfcsim_port *port = netdev_priv(dev);
	bool changed, reopen;
	ktime_t now;
	u32 fail;

	spin_lock_bh(&port->lock);
	port->calls[PFCSIM_C_SETPFC]++;
	fail = port->knob[PFCSIM_K_SETPFC_FAIL];
	if (fail) {
		spin_unlock_bh(&port->lock);
		return -(int)fail;
	}
	now = ktime_get();
	changed = port->pfc_en != pfc->pfc_en;
	pfcsim_fold(port, now);
	port->pfc_en = pfc->pfc_en;
	port->mbc = pfc->mbc;
	port->delay = pfc->delay;
	pfcsim_reconfigure(port);
	if (changed)
		pfcsim_bounce(port, now);
	reopen = changed && port->knob[PFCSIM_K_SETPFC_REOPEN];
	spin_unlock_bh(&port->lock);
	/* ice: enough of an ifdown/ifup to apply it, inside the call. */
	if (reopen && netif_running(dev)) {
		ASSERT_RTNL();
		dev_close(dev);
		netdev_state_change(dev);
		dev_open(dev, NULL);
		netdev_state_change(dev);
	}
	return 0;
}

static int pfcsim_ieee_getets(struct net_device *dev, struct ieee_ets *ets)
{
	struct pfcsim_port *port = netdev_priv(dev);

	spin_lock_bh(&port->lock);
	*ets = port->ets;
	spin_unlock_bh(&port->lock);
	return 0;
}

static int pfcsim_ieee_setets(struct net_device *dev, struct ieee_ets *ets)
{
	struct pfcsim_port *port = netdev_priv(dev);
	bool has_ets = false;
	int bw = 0, i;

	for (i = 0; i < IEEE_8021QAZ_MAX_TCS; i++) {
		if (ets->prio_tc[i] >= PFCSIM_NUM_PRIO)
			return -EINVAL;
		switch (ets->tc_tsa[i]) {
		case IEEE_8021QAZ_TSA_ETS:
			has_ets = true;
			bw += ets->tc_tx_bw[i];
			break;
		case IEEE_8021QAZ_TSA_STRICT:
		case IEEE_8021QAZ_TSA_CB_SHAPER:
		case IEEE_8021QAZ_TSA_VENDOR:
			break;
		default:
			return -EINVAL;
		}
	}
	/* The ETS classes share the bandwidth left by the others. */
	if (has_ets && bw != 100)
		return -EINVAL;

	spin_lock_bh(&port->lock);
	port->ets = *ets;
	port->ets.ets_cap = PFCSIM_NUM_PRIO;
	spin_unlock_bh(&port->lock);
	return 0;
}

static u8 pfcsim_getdcbx(struct net_device *dev)
{
	return DCB_CAP_DCBX_HOST | DCB_CAP_DCBX_VER_IEEE;
}

static u8 pfcsim_setdcbx(struct net_device *dev, u8 mode)
{
	return mode == (DCB_CAP_DCBX_HOST | DCB_CAP_DCBX_VER_IEEE) ? 0 : 1;
}

static const struct dcbnl_rtnl_ops pfcsim_dcbnl_ops = {
	.ieee_getets	= pfcsim_ieee_getets,
	.ieee_setets	= pfcsim_ieee_setets,
	.ieee_getpfc	= pfcsim_ieee_getpfc,
	.ieee_setpfc	= pfcsim_ieee_setpfc,
	.getdcbx	= pfcsim_getdcbx,
	.setdcbx	= pfcsim_setdcbx,
};

/* --- per-port debugfs (process context) ------------------------------------ */

/* Copies a whole debugfs write into @buf, NUL-terminated. */
static int pfcsim_user_arg(const char __user *ubuf, size_t count,
			   loff_t *ppos, char *buf, size_t size)
{
	if (*ppos != 0 || count >= size)
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	return 0;
}

/*
 * A decimal number with no sign, no spaces and at most one trailing
 * newline; kstrtouint() alone would also take a leading '+'.  Overflow is
 * -EINVAL too, like every other bad write.
 */
static int pfcsim_parse_uint(const char *s, unsigned int *val)
{
	if (!isdigit(*s) || kstrtouint(s, 10, val))
		return -EINVAL;
	return 0;
}

static u8 *pfcsim_list_mask(struct pfcsim_port *port, enum pfcsim_list which)
{
	switch (which) {
	case PFCSIM_RX_STORM:
		return &port->rx_storm;
	case PFCSIM_TX_STORM:
		return &port->tx_storm;
	case PFCSIM_TX_HANG:
		return &port->tx_hang;
	default:
		return &port->rx_slow;
	}
}

static ssize_t pfcsim_list_read(struct file *file, char __user *ubuf,
				size_t count, loff_t *ppos)
{
	struct pfcsim_port_file *pf = file->private_data;
	struct pfcsim_port *port = pf->port;
	enum pfcsim_list which = pf->idx;
	char buf[PFCWD_PRIO_LIST_LEN + 1];
	size_t len;
	u8 mask;

	spin_lock_bh(&port->lock);
	mask = *pfcsim_list_mask(port, which);
	spin_unlock_bh(&port->lock);
	len = pfcwd_prio_list_format(mask, buf, PFCWD_PRIO_LIST_LEN);
	buf[len++] = '\n';
	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

static ssize_t pfcsim_list_write(struct file *file, const char __user *ubuf,
				 size_t count, loff_t *ppos)
{
	struct pfcsim_port_file *pf = file->private_data;
	struct pfcsim_port *port = pf->port;
	enum pfcsim_list which = pf->idx;
	char buf[PFCSIM_ARG_MAX];
	ktime_t now;
	u8 mask;
	int err;

	err = pfcsim_user_arg(ubuf, count, ppos, buf, sizeof(buf));
	if (err)
		return err;
	err = pfcwd_prio_list_parse(buf, count, &mask);
	if (err)
		return err;

	spin_lock_bh(&port->lock);
	now = ktime_get();
	pfcsim_fold(port, now);
	/* tx_storm is also read, without the lock, by inject_rx. */
	WRITE_ONCE(*pfcsim_list_mask(port, which), mask);
	port->changed[which] = now;
	/* A new tx_storm is a new stall: the NIC's prevention starts over. */
	if (which == PFCSIM_TX_STORM) {
		port->prevented = 0;
		port->generating = 0;
	}
	pfcsim_reconfigure(port);
	spin_unlock_bh(&port->lock);
	return count;
}

/*
 * changed_ns: when each list last changed, in CLOCK_MONOTONIC ns (the
 * clock of ktime_get() and of pfcwd's timestamps), so that tests can time
 * pfcwd against the exact start and end of a storm.
 */
static ssize_t pfcsim_changed_read(struct file *file, char __user *ubuf,
				   size_t count, loff_t *ppos)
{
	struct pfcsim_port *port = file->private_data;
	ktime_t t[PFCSIM_NUM_LISTS];
	char buf[160];
	int i, len = 0;

	spin_lock_bh(&port->lock);
	memcpy(t, port->changed, sizeof(t));
	spin_unlock_bh(&port->lock);
	for (i = 0; i < PFCSIM_NUM_LISTS; i++)
		len += scnprintf(buf + len, sizeof(buf) - len, "%s %lld\n",
				 pfcsim_list_names[i], ktime_to_ns(t[i]));
	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

static ssize_t pfcsim_uint_read(char __user *ubuf, size_t count,
				loff_t *ppos, unsigned int val)
{
	char buf[16];
	int len;

	len = scnprintf(buf, sizeof(buf), "%u\n", val);
	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

static ssize_t pfcsim_pause_rate_read(struct file *file, char __user *ubuf,
				      size_t count, loff_t *ppos)
{
	struct pfcsim_port *port = file->private_data;
	u32 rate;

	spin_lock_bh(&port->lock);
	rate = port->pause_rate;
	spin_unlock_bh(&port->lock);
	return pfcsim_uint_read(ubuf, count, ppos, rate);
}

static ssize_t pfcsim_pause_rate_write(struct file *file,
				       const char __user *ubuf, size_t count,
				       loff_t *ppos)
{
	struct pfcsim_port *port = file->private_data;
	char buf[PFCSIM_ARG_MAX];
	unsigned int rate;
	int err;

	err = pfcsim_user_arg(ubuf, count, ppos, buf, sizeof(buf));
	if (!err)
		err = pfcsim_parse_uint(buf, &rate);
	if (err || rate < 1 || rate > PFCSIM_RATE_MAX)
		return err ?: -EINVAL;

	spin_lock_bh(&port->lock);
	pfcsim_fold(port, ktime_get());
	port->pause_rate = rate;
	pfcsim_reconfigure(port);
	spin_unlock_bh(&port->lock);
	return count;
}

static ssize_t pfcsim_cwd_read(struct file *file, char __user *ubuf,
			       size_t count, loff_t *ppos)
{
	struct pfcsim_port *port = file->private_data;
	bool cwd;

	spin_lock_bh(&port->lock);
	cwd = port->count_when_disabled;
	spin_unlock_bh(&port->lock);
	return pfcsim_uint_read(ubuf, count, ppos, cwd);
}

static ssize_t pfcsim_cwd_write(struct file *file, const char __user *ubuf,
				size_t count, loff_t *ppos)
{
	struct pfcsim_port *port = file->private_data;
	char buf[PFCSIM_ARG_MAX];
	unsigned int val;
	int err;

	err = pfcsim_user_arg(ubuf, count, ppos, buf, sizeof(buf));
	if (!err)
		err = pfcsim_parse_uint(buf, &val);
	if (err || val > 1)
		return err ?: -EINVAL;

	spin_lock_bh(&port->lock);
	pfcsim_fold(port, ktime_get());
	if (port->count_when_disabled != val)
		WRITE_ONCE(port->profile, PFCSIM_PROFILE_CUSTOM);
	port->count_when_disabled = val;
	pfcsim_reconfigure(port);
	spin_unlock_bh(&port->lock);
	return count;
}

/* The driver knobs: one pair of handlers, the knob in the private data. */
static ssize_t pfcsim_knob_read(struct file *file, char __user *ubuf,
				size_t count, loff_t *ppos)
{
	struct pfcsim_port_file *pf = file->private_data;
	struct pfcsim_port *port = pf->port;
	u32 val;

	spin_lock_bh(&port->lock);
	val = port->knob[pf->idx];
	spin_unlock_bh(&port->lock);
	return pfcsim_uint_read(ubuf, count, ppos, val);
}

static ssize_t pfcsim_knob_write(struct file *file, const char __user *ubuf,
				 size_t count, loff_t *ppos)
{
	struct pfcsim_port_file *pf = file->private_data;
	struct pfcsim_port *port = pf->port;
	char buf[PFCSIM_ARG_MAX];
	unsigned int val;
	int err;

	err = pfcsim_user_arg(ubuf, count, ppos, buf, sizeof(buf));
	if (!err)
		err = pfcsim_parse_uint(buf, &val);
	if (err || val > pfcsim_knob_defs[pf->idx].max)
		return err ?: -EINVAL;

	/* RTNL: no_counters and pause_duration change ethtool's layout. */
	rtnl_lock();
	spin_lock_bh(&port->lock);
	if (port->knob[pf->idx] != val)
		WRITE_ONCE(port->profile, PFCSIM_PROFILE_CUSTOM);
	port->knob[pf->idx] = val;
	if (pf->idx == PFCSIM_K_STATS_PERIOD ||
	    pf->idx == PFCSIM_K_REFRESH_ON_READ)
		pfcsim_stats_restart(port, ktime_get());
	spin_unlock_bh(&port->lock);
	rtnl_unlock();
	return count;
}

static ssize_t pfcsim_calls_read(struct file *file, char __user *ubuf,
				 size_t count, loff_t *ppos)
{
	struct pfcsim_port_file *pf = file->private_data;
	struct pfcsim_port *port = pf->port;
	char buf[24];
	u64 val;
	int len;

	spin_lock_bh(&port->lock);
	val = port->calls[pf->idx];
	spin_unlock_bh(&port->lock);
	len = scnprintf(buf, sizeof(buf), "%llu\n", val);
	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

static ssize_t pfcsim_counter_reset_write(struct file *file,
					  const char __user *ubuf,
					  size_t count, loff_t *ppos)
{
	struct pfcsim_port *port = file->private_data;
	char buf[PFCSIM_ARG_MAX];
	unsigned int val;
	int err;

	err = pfcsim_user_arg(ubuf, count, ppos, buf, sizeof(buf));
	if (!err)
		err = pfcsim_parse_uint(buf, &val);
	if (err || val != 1)
		return err ?: -EINVAL;

	spin_lock_bh(&port->lock);
	pfcsim_reset_counters(port, ktime_get());
	spin_unlock_bh(&port->lock);
	return count;
}

static ssize_t pfcsim_profile_read(struct file *file, char __user *ubuf,
				   size_t count, loff_t *ppos)
{
	struct pfcsim_port *port = file->private_data;
	const char *name = "custom";
	char buf[32];
	int prof, len;

	spin_lock_bh(&port->lock);
	prof = port->profile;
	spin_unlock_bh(&port->lock);
	if (prof != PFCSIM_PROFILE_CUSTOM)
		name = pfcsim_profiles[prof].name;
	len = scnprintf(buf, sizeof(buf), "%s\n", name);
	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

/* A profile's name, with at most one trailing newline. */
static ssize_t pfcsim_profile_write(struct file *file,
				    const char __user *ubuf, size_t count,
				    loff_t *ppos)
{
	struct pfcsim_port *port = file->private_data;
	const struct pfcsim_profile *prof;
	char buf[PFCSIM_ARG_MAX];
	size_t len;
	ktime_t now;
	int err, i;

	err = pfcsim_user_arg(ubuf, count, ppos, buf, sizeof(buf));
	if (err)
		return err;
	len = strlen(buf);
	if (len && buf[len - 1] == '\n')
		buf[--len] = '\0';
	for (i = 0; i < ARRAY_SIZE(pfcsim_profiles); i++)
		if (!strcmp(buf, pfcsim_profiles[i].name))
			break;
	if (i == ARRAY_SIZE(pfcsim_profiles))
		return -EINVAL;
	prof = &pfcsim_profiles[i];

	rtnl_lock();
	spin_lock_bh(&port->lock);
	now = ktime_get();
	pfcsim_fold(port, now);
	memcpy(port->knob, prof->knob, sizeof(port->knob));
	port->count_when_disabled = prof->count_when_disabled;
	WRITE_ONCE(port->profile, i);
	pfcsim_reconfigure(port);
	pfcsim_stats_restart(port, now);
	spin_unlock_bh(&port->lock);
	rtnl_unlock();
	return count;
}

#define PFCSIM_PUSH_PERIOD_NS	NSEC_PER_MSEC

static enum hrtimer_restart pfcsim_push_tick(struct hrtimer *timer)
{
	struct pfcsim_port *port = container_of(timer, struct pfcsim_port,
						push_timer);
	u8 rising = READ_ONCE(port->ind_rising);
	int p;

	for (p = 0; p < PFCSIM_NUM_PRIO; p++)
		if (rising & BIT(p))
			port->push_fn(port->dev, p, 0xffff);
	hrtimer_forward_now(timer, ns_to_ktime(PFCSIM_PUSH_PERIOD_NS));
	return HRTIMER_RESTART;
}

/* Turns pushing on or off; process context. */
static int pfcsim_push_set(struct pfcsim_port *port, bool on)
{
	int err = 0;

	mutex_lock(&port->push_lock);
	if (on && !port->push_fn) {
		port->push_fn = symbol_get(pfcwd_report_pause);
		if (port->push_fn)
			hrtimer_start(&port->push_timer,
				      ns_to_ktime(PFCSIM_PUSH_PERIOD_NS),
				      HRTIMER_MODE_REL_SOFT);
		else
			err = -ENOENT;
	} else if (!on && port->push_fn) {
		hrtimer_cancel(&port->push_timer);
		port->push_fn = NULL;
		symbol_put(pfcwd_report_pause);
	}
	mutex_unlock(&port->push_lock);
	return err;
}

static ssize_t pfcsim_push_read(struct file *file, char __user *ubuf,
				size_t count, loff_t *ppos)
{
	struct pfcsim_port *port = file->private_data;
	char buf[4];
	int len;

	len = scnprintf(buf, sizeof(buf), "%d\n", !!READ_ONCE(port->push_fn));
	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

static ssize_t pfcsim_push_write(struct file *file, const char __user *ubuf,
				 size_t count, loff_t *ppos)
{
	struct pfcsim_port *port = file->private_data;
	char buf[PFCSIM_ARG_MAX];
	unsigned int val;
	int err;

	err = pfcsim_user_arg(ubuf, count, ppos, buf, sizeof(buf));
	if (!err)
		err = pfcsim_parse_uint(buf, &val);
	if (err || val > 1)
		return err ?: -EINVAL;
	err = pfcsim_push_set(port, val);
	return err ?: count;
}

/*
 * "PRIO COUNT" (one digit 0-7, one space, a decimal count) or
 * "ipv4 DSCP COUNT" / "ipv6 DSCP COUNT" (DSCP 0-63), single spaces.
 */
static int pfcsim_parse_inject(char *buf, struct pfcsim_rx_spec *spec,
			       unsigned int *count)
{
	unsigned int dscp;
	char *arg, *sp;

	memset(spec, 0, sizeof(*spec));
	if (!strncmp(buf, "ipv4 ", 5) || !strncmp(buf, "ipv6 ", 5)) {
		spec->kind = buf[3] == '4' ? PFCSIM_RX_IPV4 : PFCSIM_RX_IPV6;
		arg = buf + 5;
		sp = strchr(arg, ' ');
		if (!sp)
			return -EINVAL;
		*sp = '\0';
		if (pfcsim_parse_uint(arg, &dscp) || dscp >= PFCSIM_NUM_DSCP)
			return -EINVAL;
		spec->dscp = dscp;
		arg = sp + 1;
	} else if (buf[0] >= '0' && buf[0] <= '7' && buf[1] == ' ') {
		spec->kind = PFCSIM_RX_TAGGED;
		spec->prio = buf[0] - '0';
		arg = buf + 2;
	} else {
		return -EINVAL;
	}
	if (pfcsim_parse_uint(arg, count) || *count < 1 ||
	    *count > PFCSIM_INJECT_MAX)
		return -EINVAL;
	return 0;
}

static ssize_t pfcsim_inject_rx_write(struct file *file,
				      const char __user *ubuf, size_t count,
				      loff_t *ppos)
{
	struct pfcsim_port *port = file->private_data;
	struct pfcsim_rx_spec spec;
	char buf[PFCSIM_ARG_MAX];
	unsigned int n;
	int err;

	err = pfcsim_user_arg(ubuf, count, ppos, buf, sizeof(buf));
	if (!err)
		err = pfcsim_parse_inject(buf, &spec, &n);
	if (!err)
		err = pfcsim_inject(port, &spec, n);
	return err ?: count;
}

static ssize_t pfcsim_tx_ring_read(struct file *file, char __user *ubuf,
				   size_t count, loff_t *ppos)
{
	struct pfcsim_port *port = file->private_data;
	u32 size;

	spin_lock_bh(&port->ring_lock);
	size = port->ring_size;
	spin_unlock_bh(&port->ring_lock);
	return pfcsim_uint_read(ubuf, count, ppos, size);
}

/* Any write, even of the same size, empties the rings. */
static ssize_t pfcsim_tx_ring_write(struct file *file,
				    const char __user *ubuf, size_t count,
				    loff_t *ppos)
{
	struct pfcsim_port *port = file->private_data;
	struct pfcsim_desc *desc = NULL;
	char buf[PFCSIM_ARG_MAX];
	unsigned int size;
	int err;

	err = pfcsim_user_arg(ubuf, count, ppos, buf, sizeof(buf));
	if (!err)
		err = pfcsim_parse_uint(buf, &size);
	if (err || size > PFCSIM_RING_MAX)
		return err ?: -EINVAL;
	if (size) {
		desc = kvcalloc(PFCSIM_MAX_TXQ * size, sizeof(*desc),
				GFP_KERNEL);
		if (!desc)
			return -ENOMEM;
	}

	rtnl_lock();
	spin_lock_bh(&port->lock);
	desc = pfcsim_rings_reset(port, desc, size);
	spin_unlock_bh(&port->lock);
	rtnl_unlock();
	kvfree(desc);
	return count;
}

static ssize_t pfcsim_link_mbps_read(struct file *file, char __user *ubuf,
				     size_t count, loff_t *ppos)
{
	struct pfcsim_port *port = file->private_data;

	return pfcsim_uint_read(ubuf, count, ppos, READ_ONCE(port->link_mbps));
}

static ssize_t pfcsim_link_mbps_write(struct file *file,
				      const char __user *ubuf, size_t count,
				      loff_t *ppos)
{
	struct pfcsim_port *port = file->private_data;
	char buf[PFCSIM_ARG_MAX];
	unsigned int mbps;
	int err;

	err = pfcsim_user_arg(ubuf, count, ppos, buf, sizeof(buf));
	if (!err)
		err = pfcsim_parse_uint(buf, &mbps);
	if (err || mbps < PFCSIM_MBPS_MIN || mbps > PFCSIM_MBPS_MAX)
		return err ?: -EINVAL;
	spin_lock_bh(&port->ring_lock);
	WRITE_ONCE(port->link_mbps, mbps);
	spin_unlock_bh(&port->ring_lock);
	return count;
}

static ssize_t pfcsim_tx_busy_read(struct file *file, char __user *ubuf,
				   size_t count, loff_t *ppos)
{
	struct pfcsim_port *port = file->private_data;
	char buf[24];
	u64 busy;
	int len;

	spin_lock_bh(&port->ring_lock);
	busy = port->tx_busy;
	spin_unlock_bh(&port->ring_lock);
	len = scnprintf(buf, sizeof(buf), "%llu\n", busy);
	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

/* The occupancy of each real TX queue's ring, space separated. */
static ssize_t pfcsim_tx_ring_depth_read(struct file *file,
					 char __user *ubuf, size_t count,
					 loff_t *ppos)
{
	struct pfcsim_port *port = file->private_data;
	u16 depth[PFCSIM_MAX_TXQ];
	char buf[PFCSIM_MAX_TXQ * 5 + 1];
	int q, n, len = 0;

	spin_lock_bh(&port->ring_lock);
	n = port->num_txq;
	for (q = 0; q < n; q++)
		depth[q] = port->ring[q].count;
	spin_unlock_bh(&port->ring_lock);
	for (q = 0; q < n; q++)
		len += scnprintf(buf + len, sizeof(buf) - len, "%s%u",
				 q ? " " : "", depth[q]);
	len += scnprintf(buf + len, sizeof(buf) - len, "\n");
	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

static ssize_t pfcsim_prio_tc_read(struct file *file, char __user *ubuf,
				   size_t count, loff_t *ppos)
{
	struct pfcsim_port *port = file->private_data;
	u8 tc[PFCSIM_NUM_PRIO];
	char buf[2 * PFCSIM_NUM_PRIO + 1];
	int p;

	spin_lock_bh(&port->lock);
	memcpy(tc, port->prio_tc, sizeof(tc));
	spin_unlock_bh(&port->lock);
	for (p = 0; p < PFCSIM_NUM_PRIO; p++) {
		buf[2 * p] = '0' + tc[p];
		buf[2 * p + 1] = p == PFCSIM_NUM_PRIO - 1 ? '\n' : ' ';
	}
	return simple_read_from_buffer(ubuf, count, ppos, buf,
				       2 * PFCSIM_NUM_PRIO);
}

/*
 * Eight traffic classes 0-7, one per priority, single spaces, at most one
 * trailing newline; the classes used must be 0..max, each of them.
 */
static int pfcsim_parse_prio_tc(const char *buf, u8 tc[PFCSIM_NUM_PRIO])
{
	size_t len = strlen(buf);
	u8 used = 0, max = 0;
	int p;

	if (len && buf[len - 1] == '\n')
		len--;
	if (len != 2 * PFCSIM_NUM_PRIO - 1)
		return -EINVAL;
	for (p = 0; p < PFCSIM_NUM_PRIO; p++) {
		if (buf[2 * p] < '0' || buf[2 * p] > '7' ||
		    (p < PFCSIM_NUM_PRIO - 1 && buf[2 * p + 1] != ' '))
			return -EINVAL;
		tc[p] = buf[2 * p] - '0';
		used |= BIT(tc[p]);
		max = max(max, tc[p]);
	}
	return used == GENMASK(max, 0) ? 0 : -EINVAL;
}

static ssize_t pfcsim_prio_tc_write(struct file *file,
				    const char __user *ubuf, size_t count,
				    loff_t *ppos)
{
	struct pfcsim_port *port = file->private_data;
	char buf[PFCSIM_ARG_MAX];
	u8 tc[PFCSIM_NUM_PRIO];
	int err;

	err = pfcsim_user_arg(ubuf, count, ppos, buf, sizeof(buf));
	if (!err)
		err = pfcsim_parse_prio_tc(buf, tc);
	if (err)
		return err;
	rtnl_lock();
	err = pfcsim_set_layout(port, tc, port->channels);
	rtnl_unlock();
	return err ?: count;
}

#define PFCSIM_FOPS(_name, _read, _write)		\
static const struct file_operations _name = {		\
	.owner	= THIS_MODULE,				\
	.open	= simple_open,				\
	.read	= _read,				\
	.write	= _write,				\
	.llseek	= default_llseek,			\
}

PFCSIM_FOPS(pfcsim_list_fops, pfcsim_list_read, pfcsim_list_write);
PFCSIM_FOPS(pfcsim_pause_rate_fops, pfcsim_pause_rate_read,
	    pfcsim_pause_rate_write);
PFCSIM_FOPS(pfcsim_cwd_fops, pfcsim_cwd_read, pfcsim_cwd_write);
PFCSIM_FOPS(pfcsim_inject_rx_fops, NULL, pfcsim_inject_rx_write);
PFCSIM_FOPS(pfcsim_push_fops, pfcsim_push_read, pfcsim_push_write);
PFCSIM_FOPS(pfcsim_changed_fops, pfcsim_changed_read, NULL);
PFCSIM_FOPS(pfcsim_knob_fops, pfcsim_knob_read, pfcsim_knob_write);
PFCSIM_FOPS(pfcsim_calls_fops, pfcsim_calls_read, NULL);
PFCSIM_FOPS(pfcsim_counter_reset_fops, NULL, pfcsim_counter_reset_write);
PFCSIM_FOPS(pfcsim_profile_fops, pfcsim_profile_read, pfcsim_profile_write);
PFCSIM_FOPS(pfcsim_tx_ring_fops, pfcsim_tx_ring_read, pfcsim_tx_ring_write);
PFCSIM_FOPS(pfcsim_link_mbps_fops, pfcsim_link_mbps_read,
	    pfcsim_link_mbps_write);
PFCSIM_FOPS(pfcsim_prio_tc_fops, pfcsim_prio_tc_read, pfcsim_prio_tc_write);
PFCSIM_FOPS(pfcsim_tx_busy_fops, pfcsim_tx_busy_read, NULL);
PFCSIM_FOPS(pfcsim_tx_ring_depth_fops, pfcsim_tx_ring_depth_read, NULL);

static int pfcsim_port_debugfs(struct pfcsim_port *port)
{
	struct pfcsim_port_file *pf;
	struct dentry *dir;
	int i;

	dir = debugfs_create_dir(port->dev->name, pfcsim_debugfs);
	if (IS_ERR(dir))
		return PTR_ERR(dir);
	for (i = 0; i < PFCSIM_NUM_LISTS; i++) {
		pf = &port->list_file[i];
		pf->port = port;
		pf->idx = i;
		debugfs_create_file(pfcsim_list_names[i], 0600, dir, pf,
				    &pfcsim_list_fops);
	}
	debugfs_create_file("pause_rate", 0600, dir, port,
			    &pfcsim_pause_rate_fops);
	debugfs_create_file("count_when_disabled", 0600, dir, port,
			    &pfcsim_cwd_fops);
	debugfs_create_file("inject_rx", 0200, dir, port,
			    &pfcsim_inject_rx_fops);
	debugfs_create_file("push_pause", 0600, dir, port, &pfcsim_push_fops);
	debugfs_create_file("changed_ns", 0400, dir, port, &pfcsim_changed_fops);
	for (i = 0; i < PFCSIM_NUM_KNOBS; i++) {
		pf = &port->knob_file[i];
		pf->port = port;
		pf->idx = i;
		debugfs_create_file(pfcsim_knob_defs[i].name, 0600, dir, pf,
				    &pfcsim_knob_fops);
	}
	for (i = 0; i < PFCSIM_NUM_CALLS; i++) {
		pf = &port->calls_file[i];
		pf->port = port;
		pf->idx = i;
		debugfs_create_file(pfcsim_calls_names[i], 0400, dir, pf,
				    &pfcsim_calls_fops);
	}
	debugfs_create_file("counter_reset", 0200, dir, port,
			    &pfcsim_counter_reset_fops);
	debugfs_create_file("profile", 0600, dir, port, &pfcsim_profile_fops);
	debugfs_create_file("tx_ring", 0600, dir, port, &pfcsim_tx_ring_fops);
	debugfs_create_file("link_mbps", 0600, dir, port,
			    &pfcsim_link_mbps_fops);
	debugfs_create_file("prio_tc", 0600, dir, port, &pfcsim_prio_tc_fops);
	debugfs_create_file("tx_busy", 0400, dir, port, &pfcsim_tx_busy_fops);
	debugfs_create_file("tx_ring_depth", 0400, dir, port,
			    &pfcsim_tx_ring_depth_fops);
	port->dir = dir;
	return 0;
}

/* --- ports ----------------------------------------------------------------- */

static void pfcsim_setup(struct net_device *dev)
{
	ether_setup(dev);
	dev->netdev_ops = &pfcsim_netdev_ops;
	dev->ethtool_ops = &pfcsim_ethtool_ops;
	dev->dcbnl_ops = &pfcsim_dcbnl_ops;
	dev->needs_free_netdev = true;
	dev->min_mtu = ETH_MIN_MTU;
	dev->max_mtu = 9216;
}

static void pfcsim_port_init(struct pfcsim_port *port, struct net_device *dev)
{
	ktime_t now = ktime_get();
	int p;

	port->dev = dev;
	spin_lock_init(&port->lock);
	spin_lock_init(&port->ring_lock);
	mutex_init(&port->inject_lock);
	mutex_init(&port->push_lock);
	hrtimer_init(&port->push_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_SOFT);
	port->push_timer.function = pfcsim_push_tick;
	hrtimer_init(&port->drain_timer, CLOCK_MONOTONIC,
		     HRTIMER_MODE_REL_SOFT);
	port->drain_timer.function = pfcsim_drain_tick;
	port->link_mbps = PFCSIM_MBPS_DEFAULT;
	port->channels = 1;
	INIT_DELAYED_WORK(&port->publish_work, pfcsim_publish_work);
	INIT_DELAYED_WORK(&port->bounce_work, pfcsim_bounce_work);
	INIT_DELAYED_WORK(&port->prevent_work, pfcsim_prevent_work);
	port->profile = PFCSIM_PROFILE_IDEAL;
	port->pfc_en = PFCSIM_PFC_EN_DEFAULT;
	port->pause_rate = PFCSIM_RATE_DEFAULT;
	port->count_when_disabled = true;
	port->ets.ets_cap = PFCSIM_NUM_PRIO;
	for (p = 0; p < PFCSIM_NUM_PRIO; p++) {
		port->prio_tc[p] = p;
		port->ets.prio_tc[p] = p;
		port->ets.tc_tsa[p] = IEEE_8021QAZ_TSA_STRICT;
		port->req[p].since = now;
		port->ind[p].since = now;
		port->dur[p].since = now;
		u64_stats_init(&port->tx[p].syncp);
	}
	u64_stats_init(&port->rx.syncp);
}

/* Called with pfcsim_lock held, in process context. */
static int pfcsim_port_new(const char *name)
{
	u8 prio_tc[PFCSIM_NUM_PRIO] = { 0, 1, 2, 3, 4, 5, 6, 7 };
	struct pfcsim_port *port;
	struct net_device *dev;
	struct dentry *dir;
	int err;

	/* The directory keeps a renamed port's old name; that name is taken. */
	dir = debugfs_lookup(name, pfcsim_debugfs);
	if (dir) {
		dput(dir);
		return -EEXIST;
	}
	dev = alloc_netdev_mqs(sizeof(*port), name, NET_NAME_USER, pfcsim_setup,
			       PFCSIM_MAX_TXQ, 1);
	if (!dev)
		return -ENOMEM;
	port = netdev_priv(dev);
	pfcsim_port_init(port, dev);
	eth_hw_addr_random(dev);

	rtnl_lock();
	err = pfcsim_set_layout(port, prio_tc, 1);
	if (!err)
		err = register_netdevice(dev);
	rtnl_unlock();
	if (err) {
		free_netdev(dev);
		return err;
	}
	err = pfcsim_port_debugfs(port);
	if (err) {
		unregister_netdev(dev);
		return err;
	}
	list_add_tail(&port->list, &pfcsim_ports);
	return 0;
}

/*
 * Stops everything of @port but its net_device, and moves it from
 * pfcsim_ports to @dying; the caller unregisters the device (which frees
 * the port).  Called with pfcsim_lock held, in process context, without
 * RTNL (the works cancelled here take it).
 */
static void pfcsim_port_stop(struct pfcsim_port *port, struct list_head *dying)
{
	struct pfcsim_desc *desc;

	list_move_tail(&port->list, dying);
	WRITE_ONCE(port->dying, true);
	/* Waits for the port's debugfs handlers; none can start after. */
	debugfs_remove(port->dir);
	pfcsim_push_set(port, false);
	/* No work re-arms itself, nor does ieee_setpfc queue one, after. */
	spin_lock_bh(&port->lock);
	port->dead = true;
	spin_unlock_bh(&port->lock);
	cancel_delayed_work_sync(&port->publish_work);
	cancel_delayed_work_sync(&port->bounce_work);
	cancel_delayed_work_sync(&port->prevent_work);
	/* No frame is queued, nor the drain timer started, after. */
	spin_lock_bh(&port->ring_lock);
	port->ring_dead = true;
	port->ring_live = false;
	pfcsim_rings_flush(port);
	desc = port->desc;
	port->desc = NULL;
	spin_unlock_bh(&port->ring_lock);
	pfcsim_drain_cancel(port);
	kvfree(desc);
}

/*
 * Unregisters the devices of the stopped ports on @dying, in one batch
 * (one round of RCU waits for all: a thousand ports, one by one, took
 * half a minute under emulation).  Frees the ports.
 */
static void pfcsim_ports_unregister(struct list_head *dying)
{
	struct pfcsim_port *port;
	LIST_HEAD(devs);

	rtnl_lock();
	list_for_each_entry(port, dying, list)
		unregister_netdevice_queue(port->dev, &devs);
	unregister_netdevice_many(&devs);
	rtnl_unlock();
}

/* Called with pfcsim_lock held, in process context. */
static void pfcsim_port_del(struct pfcsim_port *port)
{
	LIST_HEAD(dying);

	pfcsim_port_stop(port, &dying);
	pfcsim_ports_unregister(&dying);
}

/* Called with pfcsim_lock held; RTNL keeps the names stable. */
static struct pfcsim_port *pfcsim_port_find(const char *name)
{
	struct pfcsim_port *port, *found = NULL;

	rtnl_lock();
	list_for_each_entry(port, &pfcsim_ports, list) {
		if (!strcmp(port->dev->name, name)) {
			found = port;
			break;
		}
	}
	rtnl_unlock();
	return found;
}

/* --- control files (process context) --------------------------------------- */

/* Copies a one-word debugfs write into @name; strips one trailing newline. */
static int pfcsim_read_name(const char __user *ubuf, size_t count,
			    char name[IFNAMSIZ])
{
	if (count == 0 || count > IFNAMSIZ)
		return -EINVAL;
	if (copy_from_user(name, ubuf, count))
		return -EFAULT;
	if (name[count - 1] == '\n')
		count--;
	if (count == 0 || count >= IFNAMSIZ)
		return -EINVAL;
	name[count] = '\0';
	return dev_valid_name(name) ? 0 : -EINVAL;
}

static ssize_t pfcsim_new_port_write(struct file *file,
				     const char __user *ubuf, size_t count,
				     loff_t *ppos)
{
	char name[IFNAMSIZ];
	int err;

	err = pfcsim_read_name(ubuf, count, name);
	if (err)
		return err;
	mutex_lock(&pfcsim_lock);
	err = pfcsim_port_new(name);
	mutex_unlock(&pfcsim_lock);
	return err ? err : count;
}

static ssize_t pfcsim_del_port_write(struct file *file,
				     const char __user *ubuf, size_t count,
				     loff_t *ppos)
{
	struct pfcsim_port *port;
	char name[IFNAMSIZ];
	int err;

	err = pfcsim_read_name(ubuf, count, name);
	if (err)
		return err;
	mutex_lock(&pfcsim_lock);
	port = pfcsim_port_find(name);
	if (port)
		pfcsim_port_del(port);
	mutex_unlock(&pfcsim_lock);
	return port ? count : -ENODEV;
}

static const struct file_operations pfcsim_new_port_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.write	= pfcsim_new_port_write,
	.llseek	= noop_llseek,
};

static const struct file_operations pfcsim_del_port_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.write	= pfcsim_del_port_write,
	.llseek	= noop_llseek,
};

static int __init pfcsim_init(void)
{
	pfcsim_debugfs = debugfs_create_dir("pfcsim", NULL);
	if (IS_ERR(pfcsim_debugfs))
		return PTR_ERR(pfcsim_debugfs);
	debugfs_create_file("new_port", 0200, pfcsim_debugfs, NULL,
			    &pfcsim_new_port_fops);
	debugfs_create_file("del_port", 0200, pfcsim_debugfs, NULL,
			    &pfcsim_del_port_fops);
	return 0;
}

static void __exit pfcsim_exit(void)
{
	struct pfcsim_port *port, *tmp;
	LIST_HEAD(dying);

	/*
	 * An open debugfs file holds a module reference, so no handler runs
	 * any more: delete the ports (and their directories), then the rest.
	 */
	mutex_lock(&pfcsim_lock);
	list_for_each_entry_safe(port, tmp, &pfcsim_ports, list)
		pfcsim_port_stop(port, &dying);
	pfcsim_ports_unregister(&dying);
	mutex_unlock(&pfcsim_lock);
	debugfs_remove_recursive(pfcsim_debugfs);
}

module_init(pfcsim_init);
module_exit(pfcsim_exit);

MODULE_DESCRIPTION("Simulated lossless (DCB) NIC for pfcwd tests");
MODULE_LICENSE("GPL");
