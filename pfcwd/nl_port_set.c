// SPDX-License-Identifier: GPL-2.0
/*
 * PFCWD_CMD_PORT_SET: change a port's configuration; "enabled 1" on a
 * device that is not a port makes it one, held by netlink (it lives
 * without a qdisc, mitigating on the device side only), and "enabled 0"
 * disables a port and lets it go unless a pfcwd qdisc still holds it.
 *
 * The whole request is checked before anything changes.
 *
 * Locking and context: process context; RTNL, then port->lock.
 */
#include <linux/rtnetlink.h>
#include <net/genetlink.h>

#include "netlink.h"

static struct netlink_range_validation pfcwd_nl_time_range = {
	.min = PFCWD_TIME_MS_MIN,
	.max = PFCWD_TIME_MS_MAX,
};

static struct netlink_range_validation pfcwd_nl_rate_range = {
	.min = 0,
	.max = PFCWD_RATE_PPS_MAX,
};

static struct netlink_range_validation pfcwd_nl_rate_window_range = {
	.min = PFCWD_RATE_WINDOW_MS_MIN,
	.max = PFCWD_RATE_WINDOW_MS_MAX,
};

static struct netlink_range_validation pfcwd_nl_warn_range = {
	.min = 0,
	.max = PFCWD_WARN_MS_MAX,
};

const struct nla_policy pfcwd_nl_port_set_policy[PFCWD_A_PORT_MAX + 1] = {
	PFCWD_NL_DEV_POLICY,
	[PFCWD_A_PORT_ENABLED] = NLA_POLICY_MAX(NLA_U8, 1),
	[PFCWD_A_PORT_DETECT_MS] = NLA_POLICY_FULL_RANGE(NLA_U32,
							 &pfcwd_nl_time_range),
	[PFCWD_A_PORT_RESTORE_MS] = NLA_POLICY_FULL_RANGE(NLA_U32,
							  &pfcwd_nl_time_range),
	[PFCWD_A_PORT_WARN_MS] = NLA_POLICY_FULL_RANGE(NLA_U32,
						       &pfcwd_nl_warn_range),
	[PFCWD_A_PORT_BACKOFF] = NLA_POLICY_MAX(NLA_U8, 1),
	[PFCWD_A_PORT_RATE_RX] = NLA_POLICY_FULL_RANGE(NLA_U32,
						       &pfcwd_nl_rate_range),
	[PFCWD_A_PORT_RATE_TX] = NLA_POLICY_FULL_RANGE(NLA_U32,
						       &pfcwd_nl_rate_range),
	[PFCWD_A_PORT_RATE_WINDOW_MS] =
		NLA_POLICY_FULL_RANGE(NLA_U32, &pfcwd_nl_rate_window_range),
	[PFCWD_A_PORT_ACTION] = NLA_POLICY_MAX(NLA_U32, PFCWD_ACTION_MAX),
	[PFCWD_A_PORT_PRIOS] = { .type = NLA_U8 },
	[PFCWD_A_PORT_STORM_LIMIT] = NLA_POLICY_MAX(NLA_U32,
						    PFCWD_STORM_LIMIT_MAX),
	/*
	 * A range, not a validation function with a message of our own: the
	 * policy of an integer with a function cannot be dumped (nor
	 * reported in an extended ack) without a warning from the core.
	 */
	[PFCWD_A_PORT_DEVICE_ACTION] = NLA_POLICY_MAX(NLA_U32,
						      PFCWD_DEVICE_ACTION_MAX),
};

/* The configuration change a request asks for. */
static void pfcwd_nl_change(struct nlattr **tb, struct pfcwd_config_change *chg)
{
	struct pfcwd_config *cfg = &chg->cfg;

	if (tb[PFCWD_A_PORT_DETECT_MS]) {
		chg->set |= PFCWD_CFG_DETECT;
		cfg->detect_ms = nla_get_u32(tb[PFCWD_A_PORT_DETECT_MS]);
	}
	if (tb[PFCWD_A_PORT_RESTORE_MS]) {
		chg->set |= PFCWD_CFG_RESTORE;
		cfg->restore_ms = nla_get_u32(tb[PFCWD_A_PORT_RESTORE_MS]);
	}
	if (tb[PFCWD_A_PORT_WARN_MS]) {
		chg->set |= PFCWD_CFG_WARN;
		cfg->warn_ms = nla_get_u32(tb[PFCWD_A_PORT_WARN_MS]);
	}
	if (tb[PFCWD_A_PORT_BACKOFF]) {
		chg->set |= PFCWD_CFG_BACKOFF;
		cfg->backoff = nla_get_u8(tb[PFCWD_A_PORT_BACKOFF]);
	}
	if (tb[PFCWD_A_PORT_RATE_RX]) {
		chg->set |= PFCWD_CFG_RATE_RX;
		cfg->rate_rx = nla_get_u32(tb[PFCWD_A_PORT_RATE_RX]);
	}
	if (tb[PFCWD_A_PORT_RATE_TX]) {
		chg->set |= PFCWD_CFG_RATE_TX;
		cfg->rate_tx = nla_get_u32(tb[PFCWD_A_PORT_RATE_TX]);
	}
	if (tb[PFCWD_A_PORT_RATE_WINDOW_MS]) {
		chg->set |= PFCWD_CFG_RATE_WINDOW;
		cfg->rate_window_ms = nla_get_u32(tb[PFCWD_A_PORT_RATE_WINDOW_MS]);
	}
	if (tb[PFCWD_A_PORT_ACTION]) {
		chg->set |= PFCWD_CFG_ACTION;
		cfg->action = nla_get_u32(tb[PFCWD_A_PORT_ACTION]);
	}
	if (tb[PFCWD_A_PORT_PRIOS]) {
		chg->set |= PFCWD_CFG_PRIOS;
		cfg->prios = nla_get_u8(tb[PFCWD_A_PORT_PRIOS]);
	}
	if (tb[PFCWD_A_PORT_STORM_LIMIT]) {
		chg->set |= PFCWD_CFG_STORM_LIMIT;
		cfg->storm_limit = nla_get_u32(tb[PFCWD_A_PORT_STORM_LIMIT]);
	}
	if (tb[PFCWD_A_PORT_DEVICE_ACTION]) {
		chg->set |= PFCWD_CFG_DEVICE_ACTION;
		cfg->device_action = nla_get_u32(tb[PFCWD_A_PORT_DEVICE_ACTION]);
	}
	if (tb[PFCWD_A_PORT_ENABLED]) {
		chg->set |= PFCWD_CFG_ENABLED;
		cfg->enabled = nla_get_u8(tb[PFCWD_A_PORT_ENABLED]);
	}
}

int pfcwd_nl_port_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct pfcwd_config_change chg = {};
	struct nlattr **tb = info->attrs;
	struct net_device *dev;
	struct pfcwd_port *port;
	int err;

	pfcwd_nl_change(tb, &chg);
	if (!chg.set) {
		NL_SET_ERR_MSG(info->extack, "pfcwd: nothing to change");
		return -EINVAL;
	}
	err = pfcwd_config_check(&chg, info->extack);
	if (err)
		return err;

	rtnl_lock();
	dev = pfcwd_nl_dev(info, true);
	if (IS_ERR(dev)) {
		err = PTR_ERR(dev);
		goto out;
	}
	if ((chg.set & PFCWD_CFG_ENABLED) && chg.cfg.enabled)
		port = pfcwd_port_hold(dev, info->extack);
	else
		port = pfcwd_nl_port(info, dev);
	if (IS_ERR(port)) {
		err = PTR_ERR(port);
		goto out;
	}

	mutex_lock(&port->lock);
	err = pfcwd_port_configure(port, &chg, info->extack);
	if (!err && port->cfg.enabled &&
	    (chg.set & (PFCWD_CFG_DETECT | PFCWD_CFG_ENABLED)) &&
	    pfcwd_port_resolution_ns(port) >
	    (u64)port->cfg.detect_ms * NSEC_PER_MSEC)
		/*
		 * Done, with a warning in the ACK (as iproute2 prints it).
		 * The resolution, not the granularity: the poller's
		 * lateness under load is not the configuration's fault.
		 */
		NL_SET_ERR_MSG(info->extack,
			       "pfcwd: T0 is finer than this port's pause information resolves: detection may come later than 2 x T0 (see granularity-us)");
	else if (!err && (chg.set & PFCWD_CFG_RATE_WINDOW) &&
		 pfcwd_port_rate_window_ns(port) >
		 (u64)port->cfg.rate_window_ms * NSEC_PER_MSEC)
		/* Done, clamped: a rate is not known finer than R. */
		NL_SET_ERR_MSG(info->extack,
			       "pfcwd: rate-window is finer than this port's counters are refreshed: the window in force is longer (see effective-rate-window-ms)");
	mutex_unlock(&port->lock);
	if (!err && (chg.set & PFCWD_CFG_ENABLED) && !chg.cfg.enabled)
		pfcwd_port_release(port);
	pfcwd_port_put(port);
out:
	rtnl_unlock();
	return err;
}
