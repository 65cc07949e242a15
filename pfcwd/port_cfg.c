// SPDX-License-Identifier: GPL-2.0
/*
 * The port as its state machines see it: a link read applied to them
 * (pause continuity from the speed, carrier loss), and the configuration
 * in force as they take it - the port's storm configuration, a priority's
 * with its overrides, the pause-rate configuration and window.
 *
 * Layering: above the port object (port.c), the sources (source.c),
 * software PFC (swpfc.c) and the actions (action.c), which it reads or
 * tells; below its callers - the poller (poll.c), netlink and the
 * lifecycle (lifecycle.c) - none of which it calls.
 *
 * Locking and context: process.  pfcwd_port_link_apply() runs with
 * port->lock held (or on a port not visible yet); the configuration
 * accessors with port->lock held (see each), or racily for display.
 */
#include <linux/kernel.h>
#include <linux/ktime.h>

#include "pfcwd.h"

/**
 * pfcwd_port_link_apply - the state machines' view of a link read
 * @port: the port; port->lock held (or not visible yet)
 * @link: what pfcwd_port_link_read() found
 *
 * Pause continuity from the link speed (storm.h), the link state, and a
 * carrier loss that pfcwd's own setpfc may have caused.
 */
void pfcwd_port_link_apply(struct pfcwd_port *port,
			   const struct pfcwd_link *link)
{
	bool was_up = port->link_up;

	/* 65535 quanta of 512 bit times at the link's speed, in ns */
	port->hold_ns = div_u64(65535ULL * 512 * 1000, link->speed);
	pfcwd_swpfc_set_speed(port, link->speed);
	port->link_up = link->up;
	if (link->lost_at)
		pfcwd_action_carrier_lost(port, link->lost_at);
	else if (was_up && !link->up)
		pfcwd_action_carrier_lost(port, ktime_get_ns());
	port->reprime = true;
	WRITE_ONCE(port->quiet, false);
}

/*
 * The pause-rate configuration of both directions: measured over buckets
 * no finer than the counters' refresh period.
 */
void pfcwd_port_rate_config(const struct pfcwd_port *port,
			    struct pfcwd_rate_config rate[PFCWD_RATE_DIRS])
{
	const struct pfcwd_config *cfg = &port->cfg;
	u64 refresh, window;
	int d;

	BUILD_BUG_ON((int)PFCWD_RATE_DIR_RX != (int)PFCWD_RATE_RX ||
		     (int)PFCWD_RATE_DIR_TX != (int)PFCWD_RATE_TX);
	pfcwd_source_refresh(port, &refresh, &window);
	for (d = 0; d < PFCWD_RATE_DIRS; d++) {
		rate[d].threshold = d == PFCWD_RATE_DIR_RX ? cfg->rate_rx :
							     cfg->rate_tx;
		rate[d].window_ns = (u64)cfg->rate_window_ms * NSEC_PER_MSEC;
		rate[d].refresh_ns = refresh;
		rate[d].refresh_window_ns = window;
		rate[d].bucket_ns = pfcwd_rate_bucket_ns(refresh);
	}
}

/* The pause-rate window in force (pause_rate.h); port->lock held. */
u64 pfcwd_port_rate_window_ns(const struct pfcwd_port *port)
{
	struct pfcwd_rate_config rate[PFCWD_RATE_DIRS];

	pfcwd_port_rate_config(port, rate);
	return pfcwd_rate_window_ns(&rate[PFCWD_RATE_DIR_RX]);
}

/*
 * Whether an enabled port's shortest T0 (its own or a priority's) is finer
 * than its pause information resolves: the resolution, not the
 * granularity, since the poller's lateness under load is not the
 * configuration's fault.  port->lock held.
 */
bool pfcwd_port_t0_too_fine(const struct pfcwd_port *port)
{
	const struct pfcwd_config *cfg = &port->cfg;
	u32 t0 = cfg->detect_ms;
	int p;

	if (!cfg->enabled)
		return false;
	for (p = 0; p < PFCWD_NUM_PRIO; p++)
		t0 = min(t0, pfcwd_cfg_prio_detect(cfg, p));
	return pfcwd_port_resolution_ns(port) > (u64)t0 * NSEC_PER_MSEC;
}

void pfcwd_port_storm_config(const struct pfcwd_port *port,
			     struct pfcwd_storm_config *scfg)
{
	const struct pfcwd_config *cfg = &port->cfg;

	scfg->detect_ns = (u64)cfg->detect_ms * NSEC_PER_MSEC;
	scfg->restore_ns = (u64)cfg->restore_ms * NSEC_PER_MSEC;
	scfg->warn_ns = (u64)cfg->warn_ms * NSEC_PER_MSEC;
	pfcwd_source_refresh(port, &scfg->refresh_ns, &scfg->refresh_window_ns);
	scfg->hold_ns = port->hold_ns + 2 * pfcwd_source_fine_ns(port);
	scfg->storm_window_ns = (u64)READ_ONCE(pfcwd_params.storm_window_ms) *
				NSEC_PER_MSEC;
	scfg->slow_window_ns = (u64)READ_ONCE(pfcwd_params.slow_window_ms) *
			       NSEC_PER_MSEC;
	scfg->storm_limit = cfg->storm_limit;
	/* The pure code's backoff bounds are the ones the uAPI documents. */
	BUILD_BUG_ON(PFCWD_STORM_BACKOFF_MAX != PFCWD_BACKOFF_LEVEL_MAX);
	BUILD_BUG_ON(PFCWD_STORM_BACKOFF_CAP_NS !=
		     (u64)PFCWD_BACKOFF_MAX_MS * NSEC_PER_MSEC);
	scfg->backoff = cfg->backoff;
	pfcwd_port_rate_config(port, scfg->rate);
	scfg->slow_threshold = READ_ONCE(pfcwd_params.slow_threshold);
	scfg->disables_pfc = pfcwd_action_device_pfc(port) &&
			     cfg->action != PFCWD_ACTION_ALERT;
	scfg->stall_only = pfcwd_port_source(port) == PFCWD_SOURCE_TXQ;
	/* A queue of a saturated link stops while half its ring drains. */
	scfg->stall_min_ns = min(scfg->hold_ns, scfg->detect_ns / 4);
}

/**
 * pfcwd_port_prio_config - one priority's storm configuration
 * @port: the port; port->lock held
 * @p: the priority
 * @base: the port's, from pfcwd_port_storm_config()
 * @scfg: @base with @p's overrides of T0, T1, the warning time and the
 *	action (whether it clears pfc_en: the storm in progress's action,
 *	else the next storm's)
 */
void pfcwd_port_prio_config(const struct pfcwd_port *port, int p,
			    const struct pfcwd_storm_config *base,
			    struct pfcwd_storm_config *scfg)
{
	const struct pfcwd_config *cfg = &port->cfg;
	const struct pfcwd_prio *pp = &port->prio[p];
	struct pfcwd_storm_override ovr = {};
	enum pfcwd_action action;

	*scfg = *base;
	if (!cfg->ovr[p])
		return;
	if (cfg->ovr[p] & PFCWD_PRIO_OVR_DETECT)
		ovr.detect_ns = (u64)cfg->prio_detect_ms[p] * NSEC_PER_MSEC;
	if (cfg->ovr[p] & PFCWD_PRIO_OVR_RESTORE)
		ovr.restore_ns = (u64)cfg->prio_restore_ms[p] * NSEC_PER_MSEC;
	if (cfg->ovr[p] & PFCWD_PRIO_OVR_WARN) {
		ovr.warn_set = true;
		ovr.warn_ns = (u64)cfg->prio_warn_ms[p] * NSEC_PER_MSEC;
	}
	pfcwd_storm_config_prio(scfg, &ovr);
	action = pp->mitigating ? pp->applied : pfcwd_cfg_prio_action(cfg, p);
	scfg->disables_pfc = pfcwd_action_device_pfc(port) &&
			     action != PFCWD_ACTION_ALERT;
}
