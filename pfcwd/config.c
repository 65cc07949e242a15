// SPDX-License-Identifier: GPL-2.0
/*
 * Port configuration changes, one path for every interface (sysfs, tc
 * options, generic netlink): check the whole change first, then apply it,
 * so that a bad request changes nothing.
 *
 * Applying: priorities no longer watched, or every priority when the port
 * is disabled, are restored (their pfc_en bits and datapath state put back)
 * and their state machines forgotten, keeping their stats.  A storm in
 * progress keeps the action it started with, and a device-action change
 * leaves the pfc_en state of storms in progress as it is (a bit cleared
 * stays cleared and is put back at restoration; one not cleared is not
 * cleared now): the new device-action applies from the next storm.  The
 * poller is told to take a full sample of the port next.
 *
 * Per-priority policy (cfg.ovr and cfg.prio_*): a priority's override of
 * T0, T1, the warning time or the action takes the port's value's place
 * for that priority; dropping it makes the priority follow the port
 * again.  Same ranges as the port's, and every priority's warning time in
 * force must stay below its T0 in force, whichever of the four values
 * changes.  Like the port's: new times count from the next sample, a
 * storm in progress among them (a new T1 restores T1 after its last
 * XOFF); a new action applies from the next storm.
 *
 * Layering: applying a change calls down into the actions (forgetting
 * priorities), software PFC (whether pauses are honoured) and the
 * poller's doorbell (poll_req.c); it is called only from above - sysfs,
 * the qdisc's options and netlink's port-set - never by the port object,
 * the sources, the poller or the actions, so events flow one way through
 * it.
 *
 * Context: process.  pfcwd_config_check() needs no lock;
 * pfcwd_port_configure() runs with RTNL and port->lock held.
 */
#include <linux/netlink.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>

#include "pfcwd.h"

/* The per-priority part of pfcwd_config_check(). */
static int pfcwd_config_check_prio(const struct pfcwd_config_change *chg,
				   struct netlink_ext_ack *extack)
{
	const struct pfcwd_config *cfg = &chg->cfg;
	int p;

	for (p = 0; p < PFCWD_NUM_PRIO; p++) {
		u8 set = chg->ovr_set[p];

		if ((set | chg->ovr_drop[p]) & ~PFCWD_PRIO_OVR_ALL) {
			NL_SET_ERR_MSG(extack, "pfcwd: unknown per-priority override");
			return -EINVAL;
		}
		if (set & chg->ovr_drop[p]) {
			NL_SET_ERR_MSG(extack,
				       "pfcwd: a per-priority override both set and dropped");
			return -EINVAL;
		}
		if ((set & PFCWD_PRIO_OVR_DETECT) &&
		    (cfg->prio_detect_ms[p] < PFCWD_TIME_MS_MIN ||
		     cfg->prio_detect_ms[p] > PFCWD_TIME_MS_MAX)) {
			NL_SET_ERR_MSG(extack,
				       "pfcwd: a priority's detection time must be 1-60000 ms");
			return -EINVAL;
		}
		if ((set & PFCWD_PRIO_OVR_RESTORE) &&
		    (cfg->prio_restore_ms[p] < PFCWD_TIME_MS_MIN ||
		     cfg->prio_restore_ms[p] > PFCWD_TIME_MS_MAX)) {
			NL_SET_ERR_MSG(extack,
				       "pfcwd: a priority's restoration time must be 1-60000 ms");
			return -EINVAL;
		}
		if ((set & PFCWD_PRIO_OVR_WARN) &&
		    cfg->prio_warn_ms[p] > PFCWD_WARN_MS_MAX) {
			NL_SET_ERR_MSG(extack,
				       "pfcwd: a priority's warning time must be 0 (off) or 1-59999 ms");
			return -EINVAL;
		}
		if ((set & PFCWD_PRIO_OVR_ACTION) &&
		    cfg->prio_action[p] > PFCWD_ACTION_MAX) {
			NL_SET_ERR_MSG(extack,
				       "pfcwd: a priority's action must be drop, forward or alert");
			return -EINVAL;
		}
	}
	return 0;
}

/*
 * The configuration @chg would leave @cur at: @next, the overrides
 * included.  Checked already.
 */
static void pfcwd_config_next(const struct pfcwd_config *cur,
			      const struct pfcwd_config_change *chg,
			      struct pfcwd_config *next)
{
	const struct pfcwd_config *in = &chg->cfg;
	int p;

	*next = *cur;
	if (chg->set & PFCWD_CFG_DETECT)
		next->detect_ms = in->detect_ms;
	if (chg->set & PFCWD_CFG_WARN)
		next->warn_ms = in->warn_ms;
	if (!(chg->set & PFCWD_CFG_PRIO_POLICY))
		return;
	for (p = 0; p < PFCWD_NUM_PRIO; p++) {
		u8 set = chg->ovr_set[p];

		next->ovr[p] = (next->ovr[p] & ~chg->ovr_drop[p]) | set;
		if (set & PFCWD_PRIO_OVR_DETECT)
			next->prio_detect_ms[p] = in->prio_detect_ms[p];
		if (set & PFCWD_PRIO_OVR_RESTORE)
			next->prio_restore_ms[p] = in->prio_restore_ms[p];
		if (set & PFCWD_PRIO_OVR_WARN)
			next->prio_warn_ms[p] = in->prio_warn_ms[p];
		if (set & PFCWD_PRIO_OVR_ACTION)
			next->prio_action[p] = in->prio_action[p];
	}
}

/*
 * Every priority's warning time in force below its T0 in force, in
 * @next: else -EINVAL, with a message that names what to change.
 */
static int pfcwd_config_check_warn(const struct pfcwd_config *next,
				   const struct pfcwd_config_change *chg,
				   struct netlink_ext_ack *extack)
{
	int p;

	for (p = 0; p < PFCWD_NUM_PRIO; p++) {
		u32 warn = pfcwd_cfg_prio_warn(next, p);
		u8 own = next->ovr[p] & (PFCWD_PRIO_OVR_DETECT |
					 PFCWD_PRIO_OVR_WARN);

		if (!warn || warn < pfcwd_cfg_prio_detect(next, p))
			continue;
		if ((chg->set & PFCWD_CFG_PRIO_POLICY) &&
		    (chg->ovr_set[p] & own))
			NL_SET_ERR_MSG(extack,
				       "pfcwd: a priority's warning time must be below its detection time (T0, its own or the port's), or 0 (off)");
		else if ((chg->set & PFCWD_CFG_PRIO_POLICY) && chg->ovr_drop[p])
			NL_SET_ERR_MSG(extack,
				       "pfcwd: dropping the override would leave a priority's warning time at or above its detection time (T0)");
		else if (chg->set & PFCWD_CFG_WARN)
			NL_SET_ERR_MSG(extack,
				       "pfcwd: warning time must be below the detection time (T0) of every priority that follows it, or 0 (off)");
		else
			NL_SET_ERR_MSG(extack,
				       "pfcwd: detection time (T0) must be above the warning time of every priority that follows it (lower warn first, or 0)");
		return -EINVAL;
	}
	return 0;
}

/**
 * pfcwd_config_check - validate a configuration change
 * @chg: the change; only the fields named in @chg->set are looked at
 * @extack: for the message naming the bad field
 *
 * Return: 0 or -EINVAL.
 */
int pfcwd_config_check(const struct pfcwd_config_change *chg,
		       struct netlink_ext_ack *extack)
{
	const struct pfcwd_config *cfg = &chg->cfg;

	if ((chg->set & PFCWD_CFG_DETECT) &&
	    (cfg->detect_ms < PFCWD_TIME_MS_MIN ||
	     cfg->detect_ms > PFCWD_TIME_MS_MAX)) {
		NL_SET_ERR_MSG(extack, "pfcwd: detection time must be 1-60000 ms");
		return -EINVAL;
	}
	if ((chg->set & PFCWD_CFG_RESTORE) &&
	    (cfg->restore_ms < PFCWD_TIME_MS_MIN ||
	     cfg->restore_ms > PFCWD_TIME_MS_MAX)) {
		NL_SET_ERR_MSG(extack, "pfcwd: restoration time must be 1-60000 ms");
		return -EINVAL;
	}
	if ((chg->set & PFCWD_CFG_WARN) && cfg->warn_ms > PFCWD_WARN_MS_MAX) {
		NL_SET_ERR_MSG(extack,
			       "pfcwd: warning time must be 0 (off) or 1-59999 ms, below the detection time");
		return -EINVAL;
	}
	if ((chg->set & PFCWD_CFG_WARN) && (chg->set & PFCWD_CFG_DETECT) &&
	    cfg->warn_ms && cfg->warn_ms >= cfg->detect_ms) {
		NL_SET_ERR_MSG(extack,
			       "pfcwd: warning time must be below the detection time (T0), or 0 (off)");
		return -EINVAL;
	}
	if (((chg->set & PFCWD_CFG_RATE_RX) &&
	     cfg->rate_rx > PFCWD_RATE_PPS_MAX) ||
	    ((chg->set & PFCWD_CFG_RATE_TX) &&
	     cfg->rate_tx > PFCWD_RATE_PPS_MAX)) {
		NL_SET_ERR_MSG(extack,
			       "pfcwd: pause rate must be 0 (off) to 100000000 frames/s");
		return -EINVAL;
	}
	if ((chg->set & PFCWD_CFG_RATE_WINDOW) &&
	    (cfg->rate_window_ms < PFCWD_RATE_WINDOW_MS_MIN ||
	     cfg->rate_window_ms > PFCWD_RATE_WINDOW_MS_MAX)) {
		NL_SET_ERR_MSG(extack,
			       "pfcwd: pause-rate window must be 100 to 3600000 ms");
		return -EINVAL;
	}
	if ((chg->set & PFCWD_CFG_BACKOFF) && cfg->backoff > 1) {
		NL_SET_ERR_MSG(extack, "pfcwd: backoff must be 0 (off) or 1 (on)");
		return -EINVAL;
	}
	if ((chg->set & PFCWD_CFG_ACTION) && cfg->action > PFCWD_ACTION_MAX) {
		NL_SET_ERR_MSG(extack, "pfcwd: action must be drop, forward or alert");
		return -EINVAL;
	}
	if ((chg->set & PFCWD_CFG_DEVICE_ACTION) &&
	    cfg->device_action > PFCWD_DEVICE_ACTION_MAX) {
		NL_SET_ERR_MSG(extack, "pfcwd: device-action must be auto, on or off");
		return -EINVAL;
	}
	if ((chg->set & PFCWD_CFG_STORM_LIMIT) &&
	    cfg->storm_limit > PFCWD_STORM_LIMIT_MAX) {
		NL_SET_ERR_MSG(extack, "pfcwd: storm limit must be 0-16");
		return -EINVAL;
	}
	if (chg->set & PFCWD_CFG_PRIO_POLICY)
		return pfcwd_config_check_prio(chg, extack);
	return 0;
}

/**
 * pfcwd_port_configure - check and apply a configuration change
 * @port: the port; RTNL and port->lock held
 * @chg: the change
 * @extack: for errors
 *
 * The warning time must stay below T0 (when not 0): a change that would
 * leave it at or above T0, through either, is refused.
 *
 * Return: 0, -ENODEV if the port is going away, or -EINVAL (nothing
 * changed).
 */
int pfcwd_port_configure(struct pfcwd_port *port,
			 const struct pfcwd_config_change *chg,
			 struct netlink_ext_ack *extack)
{
	const struct pfcwd_config *in = &chg->cfg;
	struct pfcwd_config *cfg = &port->cfg;
	struct pfcwd_config next, was;
	u32 warn, detect;
	int err;

	ASSERT_RTNL();
	lockdep_assert_held(&port->lock);
	if (port->dead) {
		NL_SET_ERR_MSG(extack, "pfcwd: the port is going away");
		return -ENODEV;
	}
	err = pfcwd_config_check(chg, extack);
	if (err)
		return err;
	/* The warning comes before T0, whichever of the two changes. */
	warn = chg->set & PFCWD_CFG_WARN ? in->warn_ms : cfg->warn_ms;
	detect = chg->set & PFCWD_CFG_DETECT ? in->detect_ms : cfg->detect_ms;
	if (warn && warn >= detect) {
		if (chg->set & PFCWD_CFG_WARN)
			NL_SET_ERR_MSG(extack,
				       "pfcwd: warning time must be below the detection time (T0), or 0 (off)");
		else
			NL_SET_ERR_MSG(extack,
				       "pfcwd: detection time (T0) must be above the warning time (lower warn first, or 0)");
		return -EINVAL;
	}
	/* ...and for every priority, with the overrides as they will be. */
	pfcwd_config_next(cfg, chg, &next);
	err = pfcwd_config_check_warn(&next, chg, extack);
	if (err)
		return err;
	memcpy(&was, cfg, sizeof(was));

	if (chg->set & PFCWD_CFG_PRIO_POLICY) {
		memcpy(cfg->ovr, next.ovr, sizeof(cfg->ovr));
		memcpy(cfg->prio_detect_ms, next.prio_detect_ms,
		       sizeof(cfg->prio_detect_ms));
		memcpy(cfg->prio_restore_ms, next.prio_restore_ms,
		       sizeof(cfg->prio_restore_ms));
		memcpy(cfg->prio_warn_ms, next.prio_warn_ms,
		       sizeof(cfg->prio_warn_ms));
		memcpy(cfg->prio_action, next.prio_action,
		       sizeof(cfg->prio_action));
	}
	if (chg->set & PFCWD_CFG_DETECT)
		cfg->detect_ms = in->detect_ms;
	if (chg->set & PFCWD_CFG_WARN)
		cfg->warn_ms = in->warn_ms;
	if (chg->set & PFCWD_CFG_RESTORE)
		cfg->restore_ms = in->restore_ms;
	if (chg->set & PFCWD_CFG_ACTION)
		cfg->action = in->action;
	if (chg->set & PFCWD_CFG_STORM_LIMIT)
		cfg->storm_limit = in->storm_limit;
	/* A storm in progress keeps its backoff level; off: T1 at once. */
	if (chg->set & PFCWD_CFG_BACKOFF)
		cfg->backoff = in->backoff;
	/* An episode in progress goes on under the new values. */
	if (chg->set & PFCWD_CFG_RATE_RX)
		cfg->rate_rx = in->rate_rx;
	if (chg->set & PFCWD_CFG_RATE_TX)
		cfg->rate_tx = in->rate_tx;
	if (chg->set & PFCWD_CFG_RATE_WINDOW)
		cfg->rate_window_ms = in->rate_window_ms;
	/* Storms in progress keep their pfc_en bits as they are (above). */
	if (chg->set & PFCWD_CFG_DEVICE_ACTION)
		cfg->device_action = in->device_action;
	if (chg->set & PFCWD_CFG_PRIOS) {
		pfcwd_action_forget(port, cfg->prios & ~in->prios,
				    PFCWD_HIST_UNWATCHED);
		cfg->prios = in->prios;
		cfg->prios_follow = false;
		pfcwd_swpfc_set_honour(port, cfg->prios);
	}
	if (chg->set & PFCWD_CFG_ENABLED) {
		if (!in->enabled && cfg->enabled)
			pfcwd_action_forget(port, 0xff, PFCWD_HIST_DISABLED);
		cfg->enabled = in->enabled;
	}

	/* Listeners hear of a change, not of a request that changed nothing. */
	if (memcmp(&was, cfg, sizeof(was)))
		pfcwd_action_port_event(port, PFCWD_CMD_CONFIG_CHANGED, NULL);

	WRITE_ONCE(port->quiet, false);		/* the next poll is a full one */
	WRITE_ONCE(port->next_poll, 0);
	pfcwd_poll_kick();
	return 0;
}
