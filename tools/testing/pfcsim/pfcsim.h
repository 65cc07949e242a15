/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pfcsim - what the files of pfcsim.ko share: struct pfcsim_port, the
 * other types and constants, and the functions one file calls in another.
 * The knobs, the model and the locking rules are documented at the top of
 * main.c; each file's comment says which of those rules are its own.
 *
 * The files call each other in one direction only, lower layers first:
 *   pause.c, ring.c	the pause model and the TX rings: call no other file
 *   profile.c		the driver profiles: data only
 *   netdev.c		queue state, data path, ndo ops: pause.c, ring.c
 *   ethtool.c, dcbnl.c	pause.c, netdev.c (ethtool.c: profile.c as well)
 *   debugfs.c		the per-port files: pause.c, netdev.c, profile.c
 *   main.c		ports and the module: all of them
 */
#ifndef _PFCSIM_H
#define _PFCSIM_H

#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/u64_stats_sync.h>
#include <linux/workqueue.h>
#include <net/dcbnl.h>

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
#define PFCSIM_SLOW_PCT_DEFAULT	25	/* slow_peer_pct */

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

/*
 * A TX queue's ring: count descriptors from head, in port->desc; what a
 * drain sent from it since it last reported completions to BQL.
 */
struct pfcsim_ring {
	u16 head;
	u16 count;
	bool stopped;			/* queue stopped because full */
	u16 done;			/* frames sent, not yet reported */
	u32 done_bytes;
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

/*
 * Pause counters and durations (microseconds), read at one instant, and
 * the port's frame totals of that instant (frame_counters): the packets
 * received (sent) on every priority plus the pause frames received (sent).
 */
struct pfcsim_snap {
	u64 req[PFCSIM_NUM_PRIO];
	u64 ind[PFCSIM_NUM_PRIO];
	u64 dur[PFCSIM_NUM_PRIO];
	u64 rx_frames;
	u64 tx_frames;
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
	PFCSIM_K_FRAME_COUNTERS,	/* frame_counters */
	PFCSIM_K_STATS_JITTER,		/* stats_jitter_ms */
	PFCSIM_NUM_KNOBS,
};

/* Read-only call counters, one debugfs file each. */
enum pfcsim_calls {
	PFCSIM_C_STATS_READS,		/* get_ethtool_stats */
	PFCSIM_C_GETPFC,		/* ieee_getpfc */
	PFCSIM_C_SETPFC,		/* ieee_setpfc */
	PFCSIM_NUM_CALLS,
};

/*
 * The ethtool ops counted in ethtool_calls, with the calls made outside a
 * begin()/complete() pair and those made while the device was detached.
 */
enum pfcsim_eop {
	PFCSIM_EOP_BEGIN,
	PFCSIM_EOP_COMPLETE,
	PFCSIM_EOP_DRVINFO,
	PFCSIM_EOP_LINK_KSETTINGS,
	PFCSIM_EOP_SSET_COUNT,
	PFCSIM_EOP_STRINGS,
	PFCSIM_EOP_STATS,
	PFCSIM_EOP_TUNABLE,
	PFCSIM_EOP_RINGPARAM,
	PFCSIM_NUM_EOPS,
};

struct pfcsim_eop_audit {
	u64 calls[PFCSIM_NUM_EOPS];
	u64 unbracketed;		/* an op, or complete, outside a pair */
	u64 absent;			/* ops called while detached */
	u32 depth;			/* begin() calls not completed */
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

/* pfcwd_report_pause(), found at run time with symbol_get(). */
typedef void (*pfcsim_push_fn)(struct net_device *dev, unsigned int prio,
			       u16 quanta);

/* The priority lists a port is driven by. */
enum pfcsim_list {
	PFCSIM_RX_STORM,
	PFCSIM_TX_STORM,
	PFCSIM_RX_SLOW,
	PFCSIM_TX_HANG,
	PFCSIM_RX_SLOW_PEER,
	PFCSIM_NUM_LISTS,
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
	u8 rx_slow_peer;		/* the partner paces these, briefly */
	u32 pause_rate;
	bool count_when_disabled;
	bool counter_32bit;		/* pause counters wrap at 2^32 */
	u8 ind_rising;			/* indications[P] rising */
	u8 req_rising;			/* requests[P] rising */
	u8 dur_rising;			/* dur[P] rising */
	u8 dur_slow;			/* ...at (100 - slow_pct) % of the time */
	struct pfcsim_pause ind[PFCSIM_NUM_PRIO];
	struct pfcsim_pause req[PFCSIM_NUM_PRIO];
	struct pfcsim_pause dur[PFCSIM_NUM_PRIO];	/* in ns */
	ktime_t changed[PFCSIM_NUM_LISTS];	/* last change of each list */
	u32 knob[PFCSIM_NUM_KNOBS];	/* written under RTNL too */
	/* in pfcsim_profiles[], or CUSTOM; get_drvinfo reads it locklessly */
	int profile;
	u64 calls[PFCSIM_NUM_CALLS];
	struct pfcsim_eop_audit eop;
	struct pfcsim_snap pub;		/* the copy reported, if any */
	unsigned long pub_next;		/* jiffies: next grid point */
	unsigned long pub_delay;	/* jiffies: this copy's lateness */
	ktime_t pub_at;			/* the last periodic copy */
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
	bool select_pcp;		/* select_pcp; read locklessly */
	bool bql;			/* bql; written under ring_lock too */

	/* The TX rings and their drain. */
	spinlock_t ring_lock;		/* the fields below, and tx[] */
	u32 ring_size;			/* tx_ring; written under port->lock too */
	struct pfcsim_desc *desc;	/* PFCSIM_MAX_TXQ * ring_size */
	u32 link_mbps;
	u32 slow_pct;			/* slow_peer_pct; port->lock too */
	u32 ring_paused;		/* queues whose TC the partner pauses */
	u32 ring_slow;			/* queues whose TC it paces (slow peer) */
	s64 slow_credit[PFCSIM_NUM_PRIO];	/* bits each slow TC may send */
	bool ring_live;			/* up, and not being deleted */
	bool ring_dead;			/* being deleted: never live again */
	bool draining;			/* drain_timer armed or running */
	ktime_t drain_last;		/* the link is accounted up to then */
	s64 credit;			/* bits the link may still send */
	unsigned int rr;		/* the queue served next */
	u64 tx_busy;
	u64 tx_lock_errors;		/* xmit without its queue's TX lock */
	struct pfcsim_ring ring[PFCSIM_MAX_TXQ];
	struct hrtimer drain_timer;
};

/* profile.c: the driver profiles (port->profile is an index). */
extern const struct pfcsim_profile pfcsim_profiles[];
extern const unsigned int pfcsim_num_profiles;

/* pause.c: the pause model (port->lock held, but for the works and push). */
void pfcsim_publish(struct pfcsim_port *port, ktime_t now);
void pfcsim_read_counters(struct pfcsim_port *port, ktime_t now,
			  struct pfcsim_snap *snap);
void pfcsim_fold(struct pfcsim_port *port, ktime_t now);
void pfcsim_reset_counters(struct pfcsim_port *port, ktime_t now);
void pfcsim_preset_counters(struct pfcsim_port *port, ktime_t now, u64 val);
void pfcsim_stats_restart(struct pfcsim_port *port, ktime_t now);
void pfcsim_publish_work(struct work_struct *work);
void pfcsim_bounce(struct pfcsim_port *port, ktime_t now);
void pfcsim_bounce_work(struct work_struct *work);
enum hrtimer_restart pfcsim_push_tick(struct hrtimer *timer);
int pfcsim_push_set(struct pfcsim_port *port, bool on);

/* Whether a bounce still holds the carrier down at @now. */
static inline bool pfcsim_bouncing(const struct pfcsim_port *port, ktime_t now)
{
	return ktime_before(now, port->bounce_until);
}

/* ring.c: the TX rings (ring_lock held, but for the timer and cancel). */
void pfcsim_count_tx(struct pfcsim_port *port, u8 prio, u32 len);
u32 pfcsim_rings_ready(const struct pfcsim_port *port);
void pfcsim_drain_kick(struct pfcsim_port *port, bool ready);
unsigned long pfcsim_drain_to(struct pfcsim_port *port, ktime_t now);
enum hrtimer_restart pfcsim_drain_tick(struct hrtimer *timer);
u32 pfcsim_rings_flush(struct pfcsim_port *port);
void pfcsim_drain_cancel(struct pfcsim_port *port);

/* netdev.c: queue state, data path, ndo ops. */
struct pfcsim_desc *pfcsim_rings_reset(struct pfcsim_port *port,
				       struct pfcsim_desc *desc,
				       u32 size);
int pfcsim_set_layout(struct pfcsim_port *port,
		      const u8 prio_tc[PFCSIM_NUM_PRIO],
		      unsigned int channels);
void pfcsim_set_slow_pct(struct pfcsim_port *port, u32 pct, ktime_t now);
void pfcsim_prevent_arm(struct pfcsim_port *port, ktime_t now);
void pfcsim_prevent_work(struct work_struct *work);
void pfcsim_reconfigure(struct pfcsim_port *port);
int pfcsim_inject(struct pfcsim_port *port,
		  struct pfcsim_rx_spec *spec, u32 count);
void pfcsim_read_tx(const struct pfcsim_queue_stats *st,
		    u64 *packets, u64 *bytes);
void pfcsim_read_rx(const struct pfcsim_rx_stats *st, u64 *packets,
		    u64 *bytes, u64 *dropped);
extern const struct net_device_ops pfcsim_netdev_ops;

/* ethtool.c, dcbnl.c */
extern const struct ethtool_ops pfcsim_ethtool_ops;
extern const char * const pfcsim_eop_names[PFCSIM_NUM_EOPS];
extern const struct dcbnl_rtnl_ops pfcsim_dcbnl_ops;

/* debugfs.c: /sys/kernel/debug/pfcsim/ (main.c creates and removes it). */
extern struct dentry *pfcsim_debugfs;
int pfcsim_port_debugfs(struct pfcsim_port *port);

#endif /* _PFCSIM_H */
