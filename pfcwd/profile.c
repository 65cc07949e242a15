// SPDX-License-Identifier: GPL-2.0
/*
 * Driver profiles: how each upstream driver's PFC counters, reads and
 * setpfc really behave (Documentation/networking/pfcwd-drivers.rst has the
 * study and its sources), so that the poller reads a device no faster than
 * its counters change, the detector knows how stale they can be, and the
 * action knows whether taking a priority out of pfc_en hurts the port.
 *
 * A device is matched by its ethtool driver name at port creation.  A
 * driver that is not in the table gets the "generic" profile: counters
 * taken as live until the poller learns a refresh period from when they
 * change (source.c), setpfc taken as harmless until pfcwd sees its own
 * setpfc take the carrier down (action.c).
 *
 * The table is read-only; pfcwd_profile_probe() runs under RTNL at port
 * creation, and the port's profile pointer never changes afterwards.
 */
#include <linux/ethtool.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/string.h>

#include "pfcwd.h"

#define PFCWD_PROFILE_MLXSW(drv)					\
	{ .name = "mlxsw", .driver = drv, .cost = PFCWD_COST_SEVERAL,	\
	  .durations = true, .force_busy_ms = 10 }

static const struct pfcwd_profile pfcwd_profiles[] = {
	{
		/* cached copy refreshed only by get_ethtool_stats (heavy) */
		.name = "mlx5", .driver = "mlx5_core",
		.force = true, .stale_until_forced = true,
		.force_quiet_ms = 100, .force_busy_ms = 10,
		.cost = PFCWD_COST_FIRMWARE, .setpfc_disruptive = true,
		.setpfc_cost = "the link bounces at each pfc_en change",
	}, {
		/* service task every 2 s; swapped; RX counters stop with pfc_en 0 */
		.name = "ixgbe", .driver = "ixgbe",
		.refresh_ms = 2000, .force = true,
		.force_quiet_ms = 100, .force_busy_ms = 10,
		.cost = PFCWD_COST_FREE, .swapped = true,
		.blind_when_off = true,
	}, {
		/* watchdog task every 1 s; setpfc quiesces every VSI */
		.name = "i40e", .driver = "i40e",
		.refresh_ms = 1000, .force = true,
		.force_quiet_ms = 100, .force_busy_ms = 10,
		.cost = PFCWD_COST_REGISTER, .setpfc_disruptive = true,
		.setpfc_cost = "each pfc_en change quiesces every VSI",
	}, {
		/* as i40e; setpfc closes and reopens the netdev */
		.name = "ice", .driver = "ice",
		.refresh_ms = 1000, .force = true,
		.force_quiet_ms = 100, .force_busy_ms = 10,
		.cost = PFCWD_COST_REGISTER, .setpfc_disruptive = true,
		.setpfc_cost = "each pfc_en change closes and reopens the interface",
	}, {
		/*
		 * port statistics DMAed every 1 s on the driver's timer, the
		 * frame totals (the phase counters) and the pause durations
		 * (pfc_priP_rx_duration_us) in the same refresh
		 */
		.name = "bnxt", .driver = "bnxt_en",
		.refresh_ms = 1000, .cost = PFCWD_COST_FREE,
		.phase_totals = true, .pub_durations = true,
	}, {
		/* live, one firmware command per read; setpfc restarts the port */
		.name = "hns3", .driver = "hns3",
		.cost = PFCWD_COST_FIRMWARE, .setpfc_disruptive = true,
		.setpfc_cost = "each pfc_en change restarts the port",
	},
	/*
	 * live, 8 register queries per read (sleeps); live pause durations
	 * (rx_pause_duration_prio_P), so busy reads pace at 10 ms
	 */
	PFCWD_PROFILE_MLXSW("mlxsw_spectrum"),
	PFCWD_PROFILE_MLXSW("mlxsw_spectrum2"),
	PFCWD_PROFILE_MLXSW("mlxsw_spectrum3"),
	PFCWD_PROFILE_MLXSW("mlxsw_spectrum4"),
	/* pfc_en only, no counters through getpfc */
	{ .name = "qede", .driver = "qede", .no_counters = true,
	  .cost = PFCWD_COST_SEVERAL },
	{ .name = "cxgb4", .driver = "cxgb4", .no_counters = true },
	{ .name = "octeontx2", .driver = "rvu-nicpf", .no_counters = true,
	  .setpfc_disruptive = true },
	{ .name = "octeontx2", .driver = "rvu-nicvf", .no_counters = true,
	  .setpfc_disruptive = true },
	{ .name = "mlx4", .driver = "mlx4_en", .no_counters = true },
	{ .name = "fm10k", .driver = "fm10k", .no_counters = true },
	{ .name = "dpaa2", .driver = "fsl_dpaa2_eth", .no_counters = true,
	  .setpfc_disruptive = true },
	{ .name = "amd-xgbe", .driver = "amd-xgbe", .no_counters = true,
	  .setpfc_disruptive = true },
};

/* Any other driver, pfcsim included: live until a period is learnt. */
static const struct pfcwd_profile pfcwd_profile_generic = {
	.name = "generic", .learn = true, .cost = PFCWD_COST_FREE,
};

/**
 * pfcwd_profile_find - the profile of a driver
 * @driver: the ethtool driver name, or NULL
 *
 * Return: its entry, or the generic profile.
 */
const struct pfcwd_profile *pfcwd_profile_find(const char *driver)
{
	size_t i;

	for (i = 0; driver && i < ARRAY_SIZE(pfcwd_profiles); i++)
		if (!strcmp(driver, pfcwd_profiles[i].driver))
			return &pfcwd_profiles[i];
	return &pfcwd_profile_generic;
}

/**
 * pfcwd_profile_probe - match @port's device against the table
 * @port: the port; RTNL held, at creation
 *
 * A device not present then (a reset) cannot say: the generic profile.
 */
void pfcwd_profile_probe(struct pfcwd_port *port)
{
	struct net_device *dev = port->dev;
	struct ethtool_drvinfo info = {};
	const char *driver = NULL;

	ASSERT_RTNL();
	if (dev->ethtool_ops && dev->ethtool_ops->get_drvinfo &&
	    !pfcwd_ethtool_begin(dev)) {
		dev->ethtool_ops->get_drvinfo(dev, &info);
		pfcwd_ethtool_complete(dev);
		driver = info.driver;
	}
	port->profile = pfcwd_profile_find(driver);
}

static const char * const pfcwd_cost_names[] = {
	[PFCWD_COST_FREE] = "free",
	[PFCWD_COST_REGISTER] = "register",
	[PFCWD_COST_FIRMWARE] = "firmware",
	[PFCWD_COST_SEVERAL] = "several",
};

const char *pfcwd_profile_cost_name(enum pfcwd_read_cost cost)
{
	return cost < ARRAY_SIZE(pfcwd_cost_names) ? pfcwd_cost_names[cost] :
	       "unknown";
}
