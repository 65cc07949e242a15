// SPDX-License-Identifier: GPL-2.0
/*
 * Driver statistics pfcwd reads by name from the ethtool statistics
 * (ETH_SS_STATS): the NIC's own storm prevention events (nic_storm.c),
 * under the names mlx5 gives them, the port's frame totals that some
 * drivers publish with their pause counters (bnxt_en's names; the phase
 * counters of source.c), the per-priority pause durations (source.c),
 * in microseconds, under whichever of the names drivers give them is
 * found (pfcwd_ectr_dur_fmt[]), and the per-priority packet counters
 * port-get shows (source.c).  The layout of the statistics
 * may change at run time (mlx5 lists per-priority statistics only for
 * priorities in pfc_en), so the names are looked up again whenever the
 * count changes, and, while none of those a caller wants is found, at
 * most every PFCWD_ECTR_LOOKUP_NS (a driver may list them later).  A
 * forced refresh (source.c) has read all of them already in the same
 * poll: its buffer, port->refresh_stats, is used instead of a second read.
 * The driver is called as the ethtool core calls it (ethtool_call.c).
 *
 * Context: process, RTNL held; port->ectr belongs to the poller (idx and
 * dur_name read with READ_ONCE for display).
 */
#include <linux/ethtool.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>

#include "pfcwd.h"

#define PFCWD_ECTR_LOOKUP_NS	NSEC_PER_SEC

/*
 * Names of the time priority P was paused by the link partner, in us
 * (Documentation/networking/pfcwd-drivers.rst): mlx5; mlxsw and mlx4;
 * bnxt_en.  hns3's mac_rx_pfc_priP_xoff_time is left out: its unit is
 * not stated.
 */
static const char * const pfcwd_ectr_dur_fmt[PFCWD_ECTR_DUR_NAMES] = {
	"rx_prio%d_pause_duration",
	"rx_pause_duration_prio_%d",
	"pfc_pri%d_rx_duration_us",
};

/*
 * Fills @name with name number @alt of counter @id; false if it has no
 * such name.
 */
static bool pfcwd_ectr_is_dur(int id)
{
	return id >= PFCWD_ECTR_DUR0 && id < PFCWD_ECTR_DUR0 + PFCWD_NUM_PRIO;
}

static bool pfcwd_ectr_name(int id, int alt, char *name)
{
	if (pfcwd_ectr_is_dur(id)) {
		if (alt >= PFCWD_ECTR_DUR_NAMES)
			return false;
		snprintf(name, ETH_GSTRING_LEN, pfcwd_ectr_dur_fmt[alt],
			 id - PFCWD_ECTR_DUR0);
		return true;
	}
	if (alt)
		return false;
	if (id >= PFCWD_ECTR_TX_PKTS0 && id < PFCWD_ECTR_NUM) {
		snprintf(name, ETH_GSTRING_LEN, "%cx_prio%d_packets",
			 id < PFCWD_ECTR_RX_PKTS0 ? 't' : 'r',
			 (id - PFCWD_ECTR_TX_PKTS0) % PFCWD_NUM_PRIO);
		return true;
	}
	if (id == PFCWD_ECTR_NIC_WARN)
		strscpy(name, "tx_pause_storm_warning_events", ETH_GSTRING_LEN);
	else if (id == PFCWD_ECTR_NIC_ERR)
		strscpy(name, "tx_pause_storm_error_events", ETH_GSTRING_LEN);
	else if (id == PFCWD_ECTR_RX_FRAMES)
		strscpy(name, "rx_total_frames", ETH_GSTRING_LEN);
	else if (id == PFCWD_ECTR_TX_FRAMES)
		strscpy(name, "tx_total_frames", ETH_GSTRING_LEN);
	else
		return false;
	return true;
}

/* The index among the driver's @n statistics @names of @want; -1. */
static int pfcwd_ectr_find(const u8 *names, int n, const char *want)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strncmp(names + i * ETH_GSTRING_LEN, want,
			     ETH_GSTRING_LEN))
			return i;
	return -1;
}

/* Finds the counters among the driver's @n statistics; allocates. */
static void pfcwd_ectr_lookup(struct pfcwd_port *port, int n, u64 now)
{
	const struct ethtool_ops *ops = port->dev->ethtool_ops;
	struct pfcwd_ectrs *e = &port->ectr;
	char want[ETH_GSTRING_LEN];
	int i, id, alt;
	u8 *names;

	for (id = 0; id < PFCWD_ECTR_NUM; id++)
		WRITE_ONCE(e->idx[id], -1);
	WRITE_ONCE(e->dur_name, -1);
	e->found = 0;
	e->n_stats = n;
	e->looked_at = now;
	names = kvcalloc(n, ETH_GSTRING_LEN, GFP_KERNEL);
	if (!names)
		return;
	ops->get_strings(port->dev, ETH_SS_STATS, names);
	for (id = 0; id < PFCWD_ECTR_NUM; id++) {
		/* The durations all under one name: the first found. */
		alt = pfcwd_ectr_is_dur(id) && e->dur_name >= 0 ? e->dur_name : 0;
		for (; pfcwd_ectr_name(id, alt, want); alt++) {
			i = pfcwd_ectr_find(names, n, want);
			if (i < 0)
				continue;
			WRITE_ONCE(e->idx[id], i);
			e->found |= BIT(id);
			if (pfcwd_ectr_is_dur(id))
				WRITE_ONCE(e->dur_name, alt);
			break;
		}
	}
	kvfree(names);
}

/*
 * The statistics buffer for @n counters, port->refresh_stats, reallocated
 * when the count changed.  RTNL held.  Return: the buffer, or NULL.
 */
struct ethtool_stats *pfcwd_ectr_buf(struct pfcwd_port *port, int n)
{
	struct ethtool_stats *st = port->refresh_stats;

	if (st && st->n_stats == n)
		return st;
	kvfree(st);
	port->refresh_stats = NULL;
	st = kvzalloc(struct_size(st, data, n), GFP_KERNEL);
	if (!st)
		return NULL;
	st->n_stats = n;
	port->refresh_stats = st;
	return st;
}

/*
 * pfcwd_ectr_fetch() between pfcwd_ethtool_begin() and complete(): the
 * same, with the driver's ops known to be there.
 */
static const u64 *pfcwd_ectr_read(struct pfcwd_port *port, u64 now,
				  bool forced, u32 want)
{
	const struct ethtool_ops *ops = port->dev->ethtool_ops;
	struct pfcwd_ectrs *e = &port->ectr;
	struct ethtool_stats *st;
	int n;

	n = forced ? port->refresh_stats->n_stats :
		     ops->get_sset_count(port->dev, ETH_SS_STATS);
	if (n <= 0 || n > PFCWD_ETHTOOL_STATS_MAX)
		return NULL;
	if (n != e->n_stats ||
	    (!(e->found & want) && now - e->looked_at >= PFCWD_ECTR_LOOKUP_NS))
		pfcwd_ectr_lookup(port, n, now);
	if (!(e->found & want))
		return NULL;
	if (forced)
		return port->refresh_stats->data;
	st = pfcwd_ectr_buf(port, n);
	if (!st)
		return NULL;
	ops->get_ethtool_stats(port->dev, st, st->data);
	return st->data;
}

/**
 * pfcwd_ectr_fetch - the driver's statistics, with the named ones found
 * @port: the port; RTNL held, poller
 * @now: the time, ns
 * @forced: port->refresh_stats was filled by this poll's forced refresh
 * @want: the named counters wanted, a mask of BIT(PFCWD_ECTR_*)
 *
 * Return: the statistics (port->ectr.idx[] says where each named counter
 * is, -1 where it is not), or NULL if the driver has none of @want or they
 * cannot be read.  Reads them (get_ethtool_stats) only if not @forced.
 */
const u64 *pfcwd_ectr_fetch(struct pfcwd_port *port, u64 now, bool forced,
			    u32 want)
{
	const struct ethtool_ops *ops = port->dev->ethtool_ops;
	struct pfcwd_ectrs *e = &port->ectr;
	const u64 *data;

	ASSERT_RTNL();
	BUILD_BUG_ON(PFCWD_ECTR_NUM > 32);
	if (!ops || !ops->get_sset_count || !ops->get_strings ||
	    !ops->get_ethtool_stats)
		return NULL;
	forced = forced && port->refresh_stats;
	/* None wanted found lately: not even the count, until it is time. */
	if (!forced && !(e->found & want) && e->looked_at &&
	    now - e->looked_at < PFCWD_ECTR_LOOKUP_NS)
		return NULL;
	/* Read by this poll, in the layout looked up: no call at all. */
	if (forced && port->refresh_stats->n_stats == e->n_stats &&
	    ((e->found & want) || now - e->looked_at < PFCWD_ECTR_LOOKUP_NS))
		return e->found & want ? port->refresh_stats->data : NULL;
	if (pfcwd_ethtool_begin(port->dev))
		return NULL;
	data = pfcwd_ectr_read(port, now, forced, want);
	pfcwd_ethtool_complete(port->dev);
	return data;
}

/* At port creation: nothing found yet. */
void pfcwd_ectr_init(struct pfcwd_port *port)
{
	int id;

	for (id = 0; id < PFCWD_ECTR_NUM; id++)
		port->ectr.idx[id] = -1;
	port->ectr.dur_name = -1;
	/* Nor the storm prevention timeout port-get shows (nic_storm.c). */
	port->nic.shown_ms = -1;
}

/* The name format of the pause durations found, or NULL (racy, display). */
const char *pfcwd_ectr_dur_name(const struct pfcwd_port *port)
{
	int alt = READ_ONCE(port->ectr.dur_name);

	return alt >= 0 ? pfcwd_ectr_dur_fmt[alt] : NULL;
}

/* Whether the driver has named counter @id (racy, for display). */
bool pfcwd_ectr_has(const struct pfcwd_port *port, int id)
{
	return READ_ONCE(port->ectr.idx[id]) >= 0;
}
