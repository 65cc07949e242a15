// SPDX-License-Identifier: GPL-2.0
/*
 * PFCWD_CMD_PORT_SET: change a port's configuration; "enabled 1" on a
 * device that is not a port makes it one, held by netlink (it lives
 * without a qdisc, mitigating on the device side only), and "enabled 0"
 * disables a port and lets it go unless a pfcwd qdisc still holds it.
 *
 * The whole request is checked before anything changes; what only the
 * port's configuration can refuse (a warning time against its T0) is
 * checked once it is held, and a refused "enabled 1" gives the hold back.
 *
 * Per-priority policy: a "prio" nest (PFCWD_A_PORT_PRIO, any number of
 * them, each priority once) names its priority and sets its overrides
 * (detect-ms, restore-ms, warn-ms, policy-action) or drops them
 * (defaults, a mask of PFCWD_PRIO_OVR_*).
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

static const struct nla_policy pfcwd_nl_prio_set_policy[PFCWD_A_PRIO_MAX + 1] = {
	[PFCWD_A_PRIO_PRIO] = NLA_POLICY_MAX(NLA_U8, PFCWD_NUM_PRIO - 1),
	[PFCWD_A_PRIO_DETECT_MS] = NLA_POLICY_FULL_RANGE(NLA_U32,
							 &pfcwd_nl_time_range),
	[PFCWD_A_PRIO_RESTORE_MS] = NLA_POLICY_FULL_RANGE(NLA_U32,
							  &pfcwd_nl_time_range),
	[PFCWD_A_PRIO_WARN_MS] = NLA_POLICY_FULL_RANGE(NLA_U32,
						       &pfcwd_nl_warn_range),
	[PFCWD_A_PRIO_POLICY_ACTION] = NLA_POLICY_MAX(NLA_U32,
						      PFCWD_ACTION_MAX),
	[PFCWD_A_PRIO_DEFAULTS] = NLA_POLICY_MASK(NLA_U32, PFCWD_PRIO_OVR_ALL),
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
	[PFCWD_A_PORT_PRIO] = NLA_POLICY_NESTED(pfcwd_nl_prio_set_policy),
};

/* One "prio" nest of a request (validated by the policy) into @chg. */
static int pfcwd_nl_prio_change(const struct nlattr *nest,
				struct pfcwd_config_change *chg, u8 *seen,
				struct netlink_ext_ack *extack)
{
	struct pfcwd_config *cfg = &chg->cfg;
	struct nlattr *tb[PFCWD_A_PRIO_MAX + 1];
	u8 set = 0;
	int err, p;

	err = nla_parse_nested(tb, PFCWD_A_PRIO_MAX, nest,
			       pfcwd_nl_prio_set_policy, extack);
	if (err)
		return err;
	if (!tb[PFCWD_A_PRIO_PRIO]) {
		NL_SET_ERR_MSG_ATTR(extack, nest,
				    "pfcwd: a prio nest must name its priority");
		return -EINVAL;
	}
	p = nla_get_u8(tb[PFCWD_A_PRIO_PRIO]);
	if (*seen & BIT(p)) {
		NL_SET_ERR_MSG_ATTR(extack, nest,
				    "pfcwd: a priority is given twice");
		return -EINVAL;
	}
	*seen |= BIT(p);
	if (tb[PFCWD_A_PRIO_DETECT_MS]) {
		set |= PFCWD_PRIO_OVR_DETECT;
		cfg->prio_detect_ms[p] = nla_get_u32(tb[PFCWD_A_PRIO_DETECT_MS]);
	}
	if (tb[PFCWD_A_PRIO_RESTORE_MS]) {
		set |= PFCWD_PRIO_OVR_RESTORE;
		cfg->prio_restore_ms[p] =
			nla_get_u32(tb[PFCWD_A_PRIO_RESTORE_MS]);
	}
	if (tb[PFCWD_A_PRIO_WARN_MS]) {
		set |= PFCWD_PRIO_OVR_WARN;
		cfg->prio_warn_ms[p] = nla_get_u32(tb[PFCWD_A_PRIO_WARN_MS]);
	}
	if (tb[PFCWD_A_PRIO_POLICY_ACTION]) {
		set |= PFCWD_PRIO_OVR_ACTION;
		cfg->prio_action[p] =
			nla_get_u32(tb[PFCWD_A_PRIO_POLICY_ACTION]);
	}
	chg->ovr_set[p] = set;
	if (tb[PFCWD_A_PRIO_DEFAULTS])
		chg->ovr_drop[p] = nla_get_u32(tb[PFCWD_A_PRIO_DEFAULTS]);
	if (!set && !chg->ovr_drop[p]) {
		NL_SET_ERR_MSG_ATTR(extack, nest,
				    "pfcwd: a prio nest with nothing to set or drop");
		return -EINVAL;
	}
	if (set & chg->ovr_drop[p]) {
		NL_SET_ERR_MSG_ATTR(extack, nest,
				    "pfcwd: a per-priority override both set and dropped");
		return -EINVAL;
	}
	chg->set |= PFCWD_CFG_PRIO_POLICY;
	return 0;
}

/* Every "prio" nest of the request. */
static int pfcwd_nl_prio_changes(struct genl_info *info,
				 struct pfcwd_config_change *chg)
{
	const struct nlattr *a;
	u8 seen = 0;
	int rem, err;

	nla_for_each_attr(a, genlmsg_data(info->genlhdr),
			  genlmsg_len(info->genlhdr), rem) {
		if (nla_type(a) != PFCWD_A_PORT_PRIO)
			continue;
		err = pfcwd_nl_prio_change(a, chg, &seen, info->extack);
		if (err)
			return err;
	}
	return 0;
}

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

/*
 * The port a request changes, held first if the request enables it.
 * *@held_here: this request took the hold (a failed request gives it
 * back, so that it changes nothing).  RTNL held.
 */
static struct pfcwd_port *pfcwd_nl_set_port(struct genl_info *info,
					    struct net_device *dev,
					    bool enable, bool *held_here)
{
	struct pfcwd_port *port;

	*held_here = false;
	if (!enable)
		return pfcwd_nl_port(info, dev);
	port = pfcwd_port_get(dev);
	*held_here = !port || !port->held;
	if (port)
		pfcwd_port_put(port);
	return pfcwd_port_hold(dev, info->extack);
}

int pfcwd_nl_port_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct pfcwd_config_change chg = {};
	struct nlattr **tb = info->attrs;
	struct net_device *dev;
	struct pfcwd_port *port;
	bool enable, held_here;
	int err;

	pfcwd_nl_change(tb, &chg);
	err = pfcwd_nl_prio_changes(info, &chg);
	if (err)
		return err;
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
	enable = (chg.set & PFCWD_CFG_ENABLED) && chg.cfg.enabled;
	port = pfcwd_nl_set_port(info, dev, enable, &held_here);
	if (IS_ERR(port)) {
		err = PTR_ERR(port);
		goto out;
	}

	mutex_lock(&port->lock);
	err = pfcwd_port_configure(port, &chg, info->extack);
	if (!err && (chg.set & (PFCWD_CFG_DETECT | PFCWD_CFG_ENABLED |
				PFCWD_CFG_PRIO_POLICY)) &&
	    pfcwd_port_t0_too_fine(port))
		/* Done, with a warning in the ACK. */
		NL_SET_ERR_MSG(info->extack, PFCWD_MSG_T0_TOO_FINE);
	else if (!err && (chg.set & PFCWD_CFG_RATE_WINDOW) &&
		 pfcwd_port_rate_window_ns(port) >
		 (u64)port->cfg.rate_window_ms * NSEC_PER_MSEC)
		/* Done, clamped: a rate is not known finer than R. */
		NL_SET_ERR_MSG(info->extack,
			       "pfcwd: rate-window is finer than this port's counters are refreshed: the window in force is longer (see effective-rate-window-ms)");
	mutex_unlock(&port->lock);
	if (err && held_here)
		/* All or nothing: the hold this request took goes too. */
		pfcwd_port_release(port);
	else if (!err && (chg.set & PFCWD_CFG_ENABLED) && !enable)
		pfcwd_port_release(port);
	pfcwd_port_put(port);
out:
	rtnl_unlock();
	return err;
}
