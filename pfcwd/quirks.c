// SPDX-License-Identifier: GPL-2.0
/*
 * Driver quirks: drivers whose PFC counters deviate from dcbnl's contract
 * (ieee_pfc.requests = pause frames sent, .indications = received).
 * Read-only table; pfcwd_quirk_find() runs under RTNL at port creation.
 */
#include <linux/ethtool.h>
#include <linux/netdevice.h>
#include <linux/string.h>

#include "pfcwd.h"

struct pfcwd_quirk {
	const char *driver;
	bool swapped;		/* requests and indications swapped */
};

static const struct pfcwd_quirk pfcwd_quirks[] = {
	/* ixgbe reports received XOFF in requests and sent XOFF in indications */
	{ .driver = "ixgbe", .swapped = true },
};

/**
 * pfcwd_quirk_swapped - does @dev's driver swap requests and indications?
 * @dev: the device; RTNL held
 */
bool pfcwd_quirk_swapped(struct net_device *dev)
{
	struct ethtool_drvinfo info = {};
	size_t i;

	if (!dev->ethtool_ops || !dev->ethtool_ops->get_drvinfo)
		return false;
	dev->ethtool_ops->get_drvinfo(dev, &info);
	for (i = 0; i < ARRAY_SIZE(pfcwd_quirks); i++)
		if (!strcmp(info.driver, pfcwd_quirks[i].driver))
			return pfcwd_quirks[i].swapped;
	return false;
}
