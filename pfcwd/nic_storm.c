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
 * nobody on the host.  pfcwd reads them (by name, ethtool_ctr.c) at most
 * every PFCWD_NIC_READ_NS, and an
 * error event becomes a generated storm, latched with reason nic-storm, on
 * the watched priorities the NIC was pausing; a warning is counted and
 * logged.  Those are the priorities whose sent-pause counter was seen
 * rising during the stopped pause: it lasted the timeout and ended after
 * the previous read, so a priority counts if a read later than the
 * previous one less the timeout saw its counter rise.  The read that sees
 * the error may see no rise of its own: the pause can have ended before it
 * with its last frames counted by the read before (a forced refresh reads
 * the counters and the events together).
 * While a watched priority's sent pause rose since the previous read, the
 * port is read again PFCWD_NIC_READ_NS later even if it went quiet (the
 * NIC stopping the pause makes it quiet): a storm the NIC stops is
 * reported within its timeout + 2 * PFCWD_NIC_READ_NS + a poll.
 *
 * Context: process, RTNL held; the fields in port->nic belong to the
 * poller (counters and shown_ms read with READ_ONCE for display).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ethtool.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>

#include "pfcwd.h"
#include "prio_list.h"

#define PFCWD_NIC_READ_NS	(100 * NSEC_PER_MSEC)
/* ETHTOOL_PFC_PREVENTION_TOUT's largest value (mlx5's limit). */
#define PFCWD_NIC_TOUT_MAX_MS	8000

/* How far a counter moved; a counter that went back re-primes. */
static u64 pfcwd_nic_delta(u64 *base, u64 cur, bool primed)
{
	u64 d = primed && cur >= *base ? cur - *base : 0;

	*base = cur;
	return d;
}

/*
 * The watched priorities whose sent pause was seen rising since @since
 * (this read included); RTNL held, poller.
 */
static u8 pfcwd_nic_rose_since(const struct pfcwd_port *port, u64 since)
{
	const struct pfcwd_nic *nic = &port->nic;
	u8 rose = 0;
	int p;

	for (p = 0; p < PFCWD_NUM_PRIO; p++)
		if ((port->cfg.prios & BIT(p)) && nic->rose_at[p] &&
		    nic->rose_at[p] > since)
			rose |= BIT(p);
	return rose;
}

/*
 * The NIC warned of, or stopped, a pause this read found: the priorities
 * it was timing.  @prev: the previous read, ns.  RTNL held, poller.
 */
static u8 pfcwd_nic_timed(struct pfcwd_port *port, u64 prev)
{
	u32 tout_ms = 0;
	u64 tout;

	/* Unknown (the tunable went): the longest timeout there is. */
	if (pfcwd_nic_prevention_ms(port, &tout_ms) || !tout_ms)
		tout_ms = PFCWD_NIC_TOUT_MAX_MS;
	tout = (u64)tout_ms * NSEC_PER_MSEC;
	return pfcwd_nic_rose_since(port, prev > tout ? prev - tout : 0);
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
	const int *idx = port->ectr.idx;
	struct pfcwd_nic *nic = &port->nic;
	char list[PFCWD_PRIO_LIST_LEN];
	u64 d_warn, d_err, prev;
	const u64 *data;
	u8 rose = 0;
	int p;

	ASSERT_RTNL();
	if (!port->has_dcb || !port->counters)
		return false;
	if (nic->read_at && c->now - nic->read_at < PFCWD_NIC_READ_NS)
		return false;
	prev = nic->read_at;
	nic->read_at = c->now;
	data = pfcwd_ectr_fetch(port, c->now, c->forced, PFCWD_ECTR_NIC_MASK);
	if (!data || (idx[PFCWD_ECTR_NIC_WARN] < 0 &&
		      idx[PFCWD_ECTR_NIC_ERR] < 0))
		return false;

	d_warn = idx[PFCWD_ECTR_NIC_WARN] < 0 ? 0 :
		 pfcwd_nic_delta(&nic->warn_base,
				 data[idx[PFCWD_ECTR_NIC_WARN]], nic->primed);
	d_err = idx[PFCWD_ECTR_NIC_ERR] < 0 ? 0 :
		pfcwd_nic_delta(&nic->err_base,
				data[idx[PFCWD_ECTR_NIC_ERR]], nic->primed);
	/* A failed getpfc read no counters: nothing rose, nothing to keep. */
	for (p = 0; p < PFCWD_NUM_PRIO && c->pfc_valid; p++) {
		if (nic->primed && c->requests[p] != nic->req[p] &&
		    (port->cfg.prios & BIT(p))) {
			rose |= BIT(p);
			nic->rose_at[p] = c->now;
		}
		nic->req[p] = c->requests[p];
	}
	nic->primed = true;
	nic->rising = rose;
	if (!d_warn && !d_err)
		return false;

	/* The events' priorities: those the NIC's timing covers. */
	rose = pfcwd_nic_timed(port, prev);
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

	if (!nic->rising || (port->ectr.idx[PFCWD_ECTR_NIC_WARN] < 0 &&
			     port->ectr.idx[PFCWD_ECTR_NIC_ERR] < 0))
		return U64_MAX;
	return nic->read_at + PFCWD_NIC_READ_NS;
}

/**
 * pfcwd_nic_prevention_ms - the NIC's own storm prevention timeout
 * @port: the port; RTNL held, poller (the driver is called)
 * @ms: set to the timeout, 0 if off
 *
 * Return: 0, or -EOPNOTSUPP if the driver has no such tunable, -ENODEV if
 * the device is not present.
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
	err = pfcwd_ethtool_begin(port->dev);
	if (err)
		return err;
	err = ops->get_tunable(port->dev, &tuna, &v);
	pfcwd_ethtool_complete(port->dev);
	if (err)
		return err;
	*ms = v;
	return 0;
}

/**
 * pfcwd_nic_prevention_read - the timeout, for port-get to show
 * @port: the port; RTNL held, poller
 *
 * port-get, which anyone may call, shows this copy and calls no driver.
 */
void pfcwd_nic_prevention_read(struct pfcwd_port *port)
{
	u32 ms;

	if (pfcwd_nic_prevention_ms(port, &ms))
		WRITE_ONCE(port->nic.shown_ms, -1);
	else
		WRITE_ONCE(port->nic.shown_ms, min_t(u32, ms, S32_MAX));
}

/**
 * pfcwd_nic_prevention_shown - the timeout as the poller last read it
 * @port: the port; any context
 * @ms: set to the timeout, 0 if off
 *
 * Return: 0, or -EOPNOTSUPP if the driver has none (or it was not read).
 */
int pfcwd_nic_prevention_shown(const struct pfcwd_port *port, u32 *ms)
{
	int v = READ_ONCE(port->nic.shown_ms);

	if (v < 0)
		return -EOPNOTSUPP;
	*ms = v;
	return 0;
}
