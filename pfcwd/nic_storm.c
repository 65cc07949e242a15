// SPDX-License-Identifier: GPL-2.0
/*
 * The NIC's own PFC storm prevention as a source of generated storms.
 *
 * mlx5 NICs time the pause they send themselves: with ethtool's
 * pfc-prevention-tout (ETHTOOL_PFC_PREVENTION_TOUT, 80..8000 ms) set, a
 * NIC that has sent pause continuously for 85 % of the timeout counts a
 * warning event, and after the timeout stops sending pause and counts an
 * error event - port-wide counters in ethtool -S,
 * tx_pause_storm_warning_events and tx_pause_storm_error_events.  A NIC
 * that acts before pfcwd's T0 ends the pause pfcwd's own generated-storm
 * detection was timing, so without these counters such a storm is seen by
 * nobody on the host.  pfcwd reads them (by name; the statistics' layout
 * may change with pfc_en on mlx5) at most every PFCWD_NIC_READ_NS, and an
 * error event becomes a generated storm, latched with reason nic-storm, on
 * the watched priorities whose sent-pause counter rose since the previous
 * read (those the NIC was pausing); a warning is counted and logged.
 * While a watched priority's sent pause rose since the previous read, the
 * port is read again PFCWD_NIC_READ_NS later even if it went quiet (the
 * NIC stopping the pause makes it quiet): a storm the NIC stops is
 * reported within its timeout + 2 * PFCWD_NIC_READ_NS + a poll.
 * Drivers without the counters are looked up again every
 * PFCWD_NIC_LOOKUP_NS, as statistics may appear later (pfcsim lists them
 * once the timeout is set).
 *
 * Context: process, RTNL held; the fields in port->nic belong to the
 * poller (counters read with READ_ONCE for display).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ethtool.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>

#include "pfcwd.h"
#include "prio_list.h"

#define PFCWD_NIC_READ_NS	(100 * NSEC_PER_MSEC)
#define PFCWD_NIC_LOOKUP_NS	NSEC_PER_SEC

static const char pfcwd_nic_warn_name[] = "tx_pause_storm_warning_events";
static const char pfcwd_nic_err_name[] = "tx_pause_storm_error_events";

/* Finds the two statistics among the driver's @n; allocates. */
static void pfcwd_nic_lookup(struct pfcwd_port *port, int n)
{
	const struct ethtool_ops *ops = port->dev->ethtool_ops;
	struct pfcwd_nic *nic = &port->nic;
	u8 *names;
	int i;

	nic->warn_idx = -1;
	nic->err_idx = -1;
	nic->n_stats = n;
	names = kvcalloc(n, ETH_GSTRING_LEN, GFP_KERNEL);
	if (!names)
		return;
	ops->get_strings(port->dev, ETH_SS_STATS, names);
	for (i = 0; i < n; i++) {
		const char *name = names + i * ETH_GSTRING_LEN;

		if (!strncmp(name, pfcwd_nic_warn_name, ETH_GSTRING_LEN))
			nic->warn_idx = i;
		else if (!strncmp(name, pfcwd_nic_err_name, ETH_GSTRING_LEN))
			nic->err_idx = i;
	}
	kvfree(names);
}

/* The driver's statistics, fresh; NULL if they cannot be read. */
static const u64 *pfcwd_nic_stats(struct pfcwd_port *port, int n,
				  bool forced)
{
	const struct ethtool_ops *ops = port->dev->ethtool_ops;
	struct ethtool_stats *st = port->refresh_stats;

	/* A forced refresh of this poll read them all already. */
	if (forced && st && st->n_stats == n)
		return st->data;
	if (!st || st->n_stats != n) {
		kvfree(st);
		port->refresh_stats = NULL;
		st = kvzalloc(struct_size(st, data, n), GFP_KERNEL);
		if (!st)
			return NULL;
		st->n_stats = n;
		port->refresh_stats = st;
	}
	ops->get_ethtool_stats(port->dev, st, st->data);
	return st->data;
}

/* How far a counter moved; a counter that went back re-primes. */
static u64 pfcwd_nic_delta(u64 *base, u64 cur, bool primed)
{
	u64 d = primed && cur >= *base ? cur - *base : 0;

	*base = cur;
	return d;
}

/**
 * pfcwd_nic_storm_read - read the NIC's storm prevention counters
 * @port: the port; RTNL held, poller
 * @c: the counters of this poll (requests read); c->nic_storm is set to
 *	the priorities whose pause the NIC stopped
 *
 * Return: true if the NIC reported anything (the poll must be a full one).
 */
bool pfcwd_nic_storm_read(struct pfcwd_port *port, struct pfcwd_counters *c)
{
	const struct ethtool_ops *ops = port->dev->ethtool_ops;
	struct pfcwd_nic *nic = &port->nic;
	char list[PFCWD_PRIO_LIST_LEN];
	u64 d_warn, d_err;
	const u64 *data;
	u8 rose = 0;
	int n, p;

	ASSERT_RTNL();
	if (!port->has_dcb || !port->counters || !ops ||
	    !ops->get_sset_count || !ops->get_strings ||
	    !ops->get_ethtool_stats)
		return false;
	if (nic->read_at && c->now - nic->read_at < PFCWD_NIC_READ_NS)
		return false;
	if (nic->warn_idx < 0 && nic->err_idx < 0 && nic->looked_at &&
	    c->now - nic->looked_at < PFCWD_NIC_LOOKUP_NS)
		return false;
	nic->read_at = c->now;
	n = ops->get_sset_count(port->dev, ETH_SS_STATS);
	if (n <= 0 || n > PFCWD_ETHTOOL_STATS_MAX)
		return false;
	if (n != nic->n_stats || (nic->warn_idx < 0 && nic->err_idx < 0)) {
		nic->looked_at = c->now;
		pfcwd_nic_lookup(port, n);
	}
	if (nic->warn_idx < 0 && nic->err_idx < 0)
		return false;
	data = pfcwd_nic_stats(port, n, c->forced);
	if (!data)
		return false;

	d_warn = nic->warn_idx < 0 ? 0 :
		 pfcwd_nic_delta(&nic->warn_base, data[nic->warn_idx],
				 nic->primed);
	d_err = nic->err_idx < 0 ? 0 :
		pfcwd_nic_delta(&nic->err_base, data[nic->err_idx],
				nic->primed);
	for (p = 0; p < PFCWD_NUM_PRIO; p++) {
		if (nic->primed && c->requests[p] != nic->req[p] &&
		    (port->cfg.prios & BIT(p)))
			rose |= BIT(p);
		nic->req[p] = c->requests[p];
	}
	nic->primed = true;
	nic->rising = rose;
	if (!d_warn && !d_err)
		return false;

	pfcwd_prio_list_format(rose, list, sizeof(list));
	if (d_warn) {
		WRITE_ONCE(nic->warnings, nic->warnings + d_warn);
		pr_notice_ratelimited("%s prio %s: the NIC warns of a pause storm it sends (%llu warning events)\n",
				      port->name, rose ? list : "-", d_warn);
	}
	if (d_err) {
		WRITE_ONCE(nic->errors, nic->errors + d_err);
		c->nic_storm = rose;
		if (!rose)
			pr_notice_ratelimited("%s: the NIC stopped a pause storm it sent, on no priority pfcwd watches\n",
					      port->name);
	}
	return true;
}

/**
 * pfcwd_nic_storm_due - when the NIC's counters must be read again
 * @port: the port; poller
 *
 * Return: U64_MAX unless the port has the counters and sent pause rose at
 * the last read; then the time of the next read.
 */
u64 pfcwd_nic_storm_due(const struct pfcwd_port *port)
{
	const struct pfcwd_nic *nic = &port->nic;

	if (!nic->rising || (nic->warn_idx < 0 && nic->err_idx < 0))
		return U64_MAX;
	return nic->read_at + PFCWD_NIC_READ_NS;
}

/**
 * pfcwd_nic_prevention_ms - the NIC's own storm prevention timeout
 * @port: the port; RTNL held
 * @ms: set to the timeout, 0 if off
 *
 * Return: 0, or -EOPNOTSUPP if the driver has no such tunable.
 */
int pfcwd_nic_prevention_ms(const struct pfcwd_port *port, u32 *ms)
{
	const struct ethtool_ops *ops = port->dev->ethtool_ops;
	struct ethtool_tunable tuna = {
		.cmd = ETHTOOL_GTUNABLE,
		.id = ETHTOOL_PFC_PREVENTION_TOUT,
		.type_id = ETHTOOL_TUNABLE_U16,
		.len = sizeof(u16),
	};
	u16 v = 0;
	int err;

	ASSERT_RTNL();
	if (port->dead || !ops || !ops->get_tunable)
		return -EOPNOTSUPP;
	err = ops->get_tunable(port->dev, &tuna, &v);
	if (err)
		return err;
	*ms = v;
	return 0;
}
