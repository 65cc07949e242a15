// SPDX-License-Identifier: GPL-2.0
/*
 * pfcsim's ethtool ops: the driver name (the profile's), the link speed
 * (link_mbps), the statistics of ethtool -S (per priority, as no_counters
 * and pause_duration lay them out, then the port-wide ones: the frame
 * totals while frame_counters is on, the storm prevention's events while
 * prevent_ms is on), the PFC storm prevention tunable, the channels (TX
 * queues per traffic class) and the TX ring size; and begin/complete,
 * which with the ops pfcwd calls count each call and check it the way
 * drivers rely on the ethtool core (ethtool_calls).
 *
 * Locking and context: process context, RTNL held.  The knobs that decide
 * which statistics exist (no_counters, pause_duration, frame_counters, so
 * also profile; prevent_ms) are written with RTNL held as well, so that
 * get_sset_count, get_strings and get_ethtool_stats agree on the layout.
 * The rest of the port's state is read under port->lock (a spinlock, BH
 * disabled; nothing sleeps under it), or with READ_ONCE where a comment
 * says so; the per-priority packet counters with the u64_stats retry
 * loops.  The frame totals come with the pause counters, from the same
 * copy or the same live read, under port->lock (pause.c).
 *
 * Calls pause.c and netdev.c, and reads profile.c's table.
 */
#include <linux/ethtool.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/spinlock.h>
#include <linux/string.h>

#include "pfcsim.h"

/* --- ethtool (RTNL held, process context) ---------------------------------- */

const char * const pfcsim_eop_names[PFCSIM_NUM_EOPS] = {
	[PFCSIM_EOP_BEGIN]		= "begin",
	[PFCSIM_EOP_COMPLETE]		= "complete",
	[PFCSIM_EOP_DRVINFO]		= "drvinfo",
	[PFCSIM_EOP_LINK_KSETTINGS]	= "link_ksettings",
	[PFCSIM_EOP_SSET_COUNT]		= "sset_count",
	[PFCSIM_EOP_STRINGS]		= "strings",
	[PFCSIM_EOP_STATS]		= "stats",
	[PFCSIM_EOP_TUNABLE]		= "tunable",
	[PFCSIM_EOP_RINGPARAM]		= "ringparam",
};

/*
 * Counts a call of op @op, and checks it the way a driver relies on the
 * ethtool core: inside begin()/complete(), never on a detached device.
 */
static void pfcsim_eop(struct pfcsim_port *port, enum pfcsim_eop op)
{
	struct pfcsim_eop_audit *a = &port->eop;

	spin_lock_bh(&port->lock);
	a->calls[op]++;
	if (!netif_device_present(port->dev))
		a->absent++;
	if (op == PFCSIM_EOP_BEGIN)
		a->depth++;
	else if (!a->depth)
		a->unbracketed++;
	else if (op == PFCSIM_EOP_COMPLETE)
		a->depth--;
	spin_unlock_bh(&port->lock);
}

static int pfcsim_begin(struct net_device *dev)
{
	pfcsim_eop(netdev_priv(dev), PFCSIM_EOP_BEGIN);
	return 0;
}

static void pfcsim_complete(struct net_device *dev)
{
	pfcsim_eop(netdev_priv(dev), PFCSIM_EOP_COMPLETE);
}

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

	pfcsim_eop(port, PFCSIM_EOP_DRVINFO);
	if (prof != PFCSIM_PROFILE_CUSTOM)
		driver = pfcsim_profiles[prof].driver;
	strscpy(info->driver, driver ?: KBUILD_MODNAME, sizeof(info->driver));
}

static int pfcsim_get_link_ksettings(struct net_device *dev,
				     struct ethtool_link_ksettings *cmd)
{
	struct pfcsim_port *port = netdev_priv(dev);

	pfcsim_eop(port, PFCSIM_EOP_LINK_KSETTINGS);
	/* No link modes: the speed is all pfcwd needs (pause quanta). */
	cmd->base.speed = READ_ONCE(port->link_mbps);
	cmd->base.duplex = DUPLEX_FULL;
	cmd->base.port = PORT_DA;
	cmd->base.autoneg = AUTONEG_DISABLE;
	return 0;
}

/* The port-wide statistics, after the per-priority ones. */
enum {
	PFCSIM_PSTAT_RX_FRAMES,		/* frame_counters */
	PFCSIM_PSTAT_TX_FRAMES,
	PFCSIM_PSTAT_STORM_WARNINGS,	/* storm prevention on */
	PFCSIM_PSTAT_STORM_ERRORS,
	PFCSIM_PORT_STATS_MAX
};

static const char * const pfcsim_port_stat_names[PFCSIM_PORT_STATS_MAX] = {
	[PFCSIM_PSTAT_RX_FRAMES]	= "rx_total_frames",
	[PFCSIM_PSTAT_TX_FRAMES]	= "tx_total_frames",
	[PFCSIM_PSTAT_STORM_WARNINGS]	= "tx_pause_storm_warning_events",
	[PFCSIM_PSTAT_STORM_ERRORS]	= "tx_pause_storm_error_events",
};

/*
 * The port-wide statistics shown, in order, as frame_counters and
 * prevent_ms decide; returns how many.  RTNL held, as pfcsim_stat_ids().
 */
static int pfcsim_port_stat_ids(struct pfcsim_port *port, int *ids)
{
	int n = 0;

	ASSERT_RTNL();
	if (port->knob[PFCSIM_K_FRAME_COUNTERS]) {
		ids[n++] = PFCSIM_PSTAT_RX_FRAMES;
		ids[n++] = PFCSIM_PSTAT_TX_FRAMES;
	}
	if (port->prevent_ms) {
		ids[n++] = PFCSIM_PSTAT_STORM_WARNINGS;
		ids[n++] = PFCSIM_PSTAT_STORM_ERRORS;
	}
	return n;
}

static int pfcsim_get_sset_count(struct net_device *dev, int sset)
{
	int ids[PFCSIM_STATS_PER_PRIO_MAX], pids[PFCSIM_PORT_STATS_MAX];
	struct pfcsim_port *port = netdev_priv(dev);

	pfcsim_eop(port, PFCSIM_EOP_SSET_COUNT);
	if (sset != ETH_SS_STATS)
		return -EOPNOTSUPP;
	return PFCSIM_NUM_PRIO * pfcsim_stat_ids(port, ids) +
	       pfcsim_port_stat_ids(port, pids);
}

static void pfcsim_get_strings(struct net_device *dev, u32 sset, u8 *data)
{
	int ids[PFCSIM_STATS_PER_PRIO_MAX], pids[PFCSIM_PORT_STATS_MAX];
	struct pfcsim_port *port = netdev_priv(dev);
	const char *fmt;
	int n, p, i;

	pfcsim_eop(port, PFCSIM_EOP_STRINGS);
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
	n = pfcsim_port_stat_ids(port, pids);
	for (i = 0; i < n; i++) {
		strscpy_pad(data, pfcsim_port_stat_names[pids[i]],
			    ETH_GSTRING_LEN);
		data += ETH_GSTRING_LEN;
	}
}

/*
 * With stats_refresh_on_read, takes a fresh copy of the pause counters
 * (and frame totals).
 */
static void pfcsim_get_ethtool_stats(struct net_device *dev,
				     struct ethtool_stats *stats, u64 *data)
{
	int ids[PFCSIM_STATS_PER_PRIO_MAX], pids[PFCSIM_PORT_STATS_MAX];
	struct pfcsim_port *port = netdev_priv(dev);
	u64 rx[PFCSIM_NUM_PRIO], tx, bytes, dropped, warnings, errors;
	struct pfcsim_snap snap;
	ktime_t now;
	int n, p, i;

	pfcsim_eop(port, PFCSIM_EOP_STATS);
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
	n = pfcsim_port_stat_ids(port, pids);
	for (i = 0; i < n; i++) {
		switch (pids[i]) {
		case PFCSIM_PSTAT_RX_FRAMES:
			*data++ = snap.rx_frames;
			break;
		case PFCSIM_PSTAT_TX_FRAMES:
			*data++ = snap.tx_frames;
			break;
		case PFCSIM_PSTAT_STORM_WARNINGS:
			*data++ = warnings;
			break;
		default:
			*data++ = errors;
			break;
		}
	}
}

static int pfcsim_get_tunable(struct net_device *dev,
			      const struct ethtool_tunable *tuna, void *data)
{
	struct pfcsim_port *port = netdev_priv(dev);

	pfcsim_eop(port, PFCSIM_EOP_TUNABLE);
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

	pfcsim_eop(port, PFCSIM_EOP_RINGPARAM);
	ring->tx_max_pending = PFCSIM_RING_MAX;
	spin_lock_bh(&port->lock);
	ring->tx_pending = port->ring_size;
	spin_unlock_bh(&port->lock);
}

/* "ethtool -L NAME tx N": N TX queues per traffic class. */
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

const struct ethtool_ops pfcsim_ethtool_ops = {
	.begin			= pfcsim_begin,
	.complete		= pfcsim_complete,
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
