// SPDX-License-Identifier: GPL-2.0
/*
 * Counter sources: how pfcwd learns what a priority's pause counters did.
 *
 *  (a) dcbnl: ieee_getpfc() gives, per priority, pause frames received
 *      (indications) and sent (requests); polled by poll.c.  Drivers may
 *      sleep in it (mlx5, mlxsw, hns3, bnxt), so it is called in process
 *      context under RTNL, one read per lock hold.
 *  (b) software PFC (swpfc.c): on a device without dcbnl PFC, pfcwd
 *      receives the PFC frames itself and knows each priority's pause
 *      exactly; pfcwd_swpfc_sample() reports it.
 *  (c) drivers pushing events through pfcwd_report_pause() (push.c) fill
 *      port->prio[].push instead; once a port has pushed, its push
 *      counters replace the others.
 * The port's receive progress comes from dev_get_stats().
 *
 * Context: pfcwd_source_probe() and the reads run in process context with
 * RTNL held (the raw_* copies belong to the poller); pfcwd_source_sample()
 * needs only port->lock.
 */
#include <linux/ethtool.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <net/dcbnl.h>

#include "pfcwd.h"

static bool pfcwd_source_has_dcb(const struct net_device *dev)
{
	const struct dcbnl_rtnl_ops *ops = dev->dcbnl_ops;

	return ops && ops->ieee_getpfc && ops->ieee_setpfc;
}

/* At port creation: what the device offers, and its lossless priorities. */
void pfcwd_source_probe(struct pfcwd_port *port)
{
	struct net_device *dev = port->dev;
	struct ieee_pfc pfc = {};

	ASSERT_RTNL();
	port->has_dcb = false;
	if (!pfcwd_source_has_dcb(dev))
		return;
	if (dev->dcbnl_ops->ieee_getpfc(dev, &pfc))
		return;
	port->has_dcb = true;
	port->pfc_en = pfc.pfc_en;
	port->swapped = pfcwd_quirk_swapped(dev);
}

/*
 * Reads the device's PFC counters; RTNL held.  Returns whether any of them
 * moved since the last read (always true for a device without them).
 */
bool pfcwd_source_read_pfc(struct pfcwd_port *port, struct pfcwd_counters *c)
{
	struct net_device *dev = port->dev;
	struct ieee_pfc pfc = {};
	bool moved;

	ASSERT_RTNL();
	memset(c, 0, sizeof(*c));
	if (!port->has_dcb || dev->dcbnl_ops->ieee_getpfc(dev, &pfc)) {
		c->now = ktime_get_ns();
		return true;
	}
	memcpy(c->indications, port->swapped ? pfc.requests :
	       pfc.indications, sizeof(c->indications));
	memcpy(c->requests, port->swapped ? pfc.indications :
	       pfc.requests, sizeof(c->requests));
	c->pfc_en = pfc.pfc_en;
	c->pfc_valid = true;
	c->now = ktime_get_ns();

	moved = memcmp(c->indications, port->raw_ind, sizeof(port->raw_ind)) ||
		memcmp(c->requests, port->raw_req, sizeof(port->raw_req));
	memcpy(port->raw_ind, c->indications, sizeof(port->raw_ind));
	memcpy(port->raw_req, c->requests, sizeof(port->raw_req));
	return moved;
}

/* The port's receive counter, for NIC-side storms; RTNL held. */
void pfcwd_source_read_stats(struct pfcwd_port *port,
			     struct pfcwd_counters *c)
{
	struct rtnl_link_stats64 stats;

	ASSERT_RTNL();
	dev_get_stats(port->dev, &stats);
	c->rx_packets = stats.rx_packets;
}

/* The sample of priority @prio from counters @c; port->lock held. */
void pfcwd_source_sample(struct pfcwd_port *port, int prio,
			 const struct pfcwd_counters *c,
			 struct pfcwd_sample *s)
{
	struct pfcwd_push *push = &port->prio[prio].push;

	memset(s, 0, sizeof(*s));
	s->now = c->now;
	s->tx_pause = c->requests[prio];
	s->rx_packets = c->rx_packets;
	s->valid = PFCWD_SAMPLE_RX;
	if (READ_ONCE(port->push_active)) {
		s->rx_pause = atomic64_read(&push->xoff);
		s->xoff_first = atomic64_xchg(&push->first, 0);
		s->xoff_last = s->xoff_first ? atomic64_read(&push->last) : 0;
		/* Frames pushed after the counters were read count as "now". */
		s->xoff_first = min(s->xoff_first, s->now);
		s->xoff_last = min(s->xoff_last, s->now);
	} else if (READ_ONCE(port->swpfc.active)) {
		pfcwd_swpfc_sample(port, prio, s);
	} else {
		s->rx_pause = c->indications[prio];
	}
}

/*
 * Per-priority packet counters, for display: the driver's ethtool
 * statistics named "tx_prioP_packets" and "rx_prioP_packets" (mlx5's
 * names, which pfcsim uses too).  RTNL held, process context (allocates).
 * Return: PFCWD_PKTS_TX and/or PFCWD_PKTS_RX for what was found.
 */
unsigned int pfcwd_source_prio_packets(struct pfcwd_port *port,
				       u64 *tx, u64 *rx)
{
	const struct ethtool_ops *ops = port->dev->ethtool_ops;
	struct ethtool_stats *stats;
	unsigned int found = 0;
	int n, i, p;
	u8 *names;

	ASSERT_RTNL();
	if (!ops || !ops->get_sset_count || !ops->get_strings ||
	    !ops->get_ethtool_stats)
		return 0;
	n = ops->get_sset_count(port->dev, ETH_SS_STATS);
	if (n <= 0 || n > PFCWD_ETHTOOL_STATS_MAX)
		return 0;
	names = kvcalloc(n, ETH_GSTRING_LEN, GFP_KERNEL);
	stats = kvzalloc(struct_size(stats, data, n), GFP_KERNEL);
	if (!names || !stats)
		goto out;
	stats->n_stats = n;
	ops->get_strings(port->dev, ETH_SS_STATS, names);
	ops->get_ethtool_stats(port->dev, stats, stats->data);
	for (i = 0; i < n; i++) {
		const char *name = names + i * ETH_GSTRING_LEN;

		/* exactly "tx_prioP_packets" or "rx_prioP_packets" */
		if (strnlen(name, ETH_GSTRING_LEN) != 16 ||
		    (strncmp(name, "tx", 2) && strncmp(name, "rx", 2)) ||
		    strncmp(name + 2, "_prio", 5) || name[7] < '0' ||
		    name[7] >= '0' + PFCWD_NUM_PRIO ||
		    strcmp(name + 8, "_packets"))
			continue;
		p = name[7] - '0';
		if (name[0] == 't') {
			tx[p] = stats->data[i];
			found |= PFCWD_PKTS_TX;
		} else {
			rx[p] = stats->data[i];
			found |= PFCWD_PKTS_RX;
		}
	}
out:
	kvfree(names);
	kvfree(stats);
	return found;
}

/* Where the port's pause information comes from.  Any context. */
enum pfcwd_source pfcwd_port_source(const struct pfcwd_port *port)
{
	if (READ_ONCE(port->push_active))
		return PFCWD_SOURCE_PUSH;
	if (port->has_dcb)
		return PFCWD_SOURCE_DCB;
	if (READ_ONCE(port->swpfc.active))
		return PFCWD_SOURCE_SOFTWARE;
	return PFCWD_SOURCE_NONE;
}
