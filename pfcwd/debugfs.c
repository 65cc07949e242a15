// SPDX-License-Identifier: GPL-2.0
/*
 * /sys/kernel/debug/pfcwd/ports: every port's configuration and each
 * priority's state and counters, one line each, for tests and debugging.
 * (Generic netlink is the interface for tools.)
 *
 *   DEV enabled E action A prios L pfc_en L dcb B push B hold_us N
 *       granularity_us N next_poll_ns N ingress_hook B profile S
 *       counters B refresh_ms N refresh_learnt B reads N forced N
 *       read_errors N read_rate N device_action S device_pfc B
 *       setpfc_hurts B setpfc_errors N nic_warnings N nic_errors N
 *       stall_prios L warn_ms N backoff B rate_rx N rate_tx N
 *       rate_window_ms N durations S duration_reads N phase B
 *       phase_reads N phase_pubs N pub_width_us N duration_waits N
 *   DEV prio P watched W state S latch R detected N restored N tx_storms N
 *       slow N rx_pause N tx_pause N last_paused_us N last_storm_us N
 *       detected_at_ns N restored_at_ns N tx_dropped N rx_dropped N
 *       tx_forwarded N stalls_refuted N flush_breaks N warnings N
 *       backoff_level N rate_rx_events N rate_tx_events N overrides X
 *       detect_ms N restore_ms N warn_ms N action S pfc_reenabled N
 *       xoff_while_tx N
 * (backoff_level: the restore backoff level of the current or last storm,
 * pfcwd/storm.h)
 * (detected_at_ns, restored_at_ns: CLOCK_MONOTONIC times of the last
 * detection/restoration; flush_breaks: flushes of the priority's queued
 * packets that stopped at their budget to let other work run,
 * net_sched/sch_pfcwd_band.c)
 *   DEV device present B absent_polls N
 * (present: the device was present, netif_device_present(), at the last
 * poll; absent_polls: the polls that found it not present and called no
 * driver op, ethtool_call.c)
 * and, for a port with software PFC, its "DEV swpfc" and "DEV swprio P"
 * lines (swpfc.c).
 *
 * (durations: the name format of the pause-duration counters found in
 * ethtool -S, e.g. rx_pause_duration_prio_%d, or -; duration_reads: the
 * reads that got them (for them alone where live, with the phase counters
 * where published), duration_waits: the reads held back because a
 * publication's pause time had not come with its frames, source.c;
 * phase: the frame totals
 * the driver publishes with its pause counters were found at the last
 * read, phase_reads: the reads of them, phase_pubs: the publications
 * they alone showed, pub_width_us: the interval in which publications
 * are known to come, 0 while unknown, storm.h)
 * (ingress_hook: whether the port's ingress hook, which drops received
 * packets of priorities mitigated with drop, is registered; stall_prios:
 * the watched priorities whose TX queues pfcwd can see stall, txq_stall.c)
 *
 * /sys/kernel/debug/pfcwd/poll: the poller's cost so far,
 *   passes N polls N work_ns N late_ns N quiet_ns N delays N requests N
 *   apply_delays N apply_delays_done N
 * (delays: poll_delay_us delays taken, below; requests: polls asked for
 * from the datapath when a pause began, at most one per port and quiet
 * interval; apply_delays, apply_delays_done: apply_delay_us delays begun
 * and ended, below)
 *
 * /sys/kernel/debug/pfcwd/ingress: ingress hooks of all ports, registered
 * now and ever registered and removed,
 *   hooks N added N removed N
 *
 * /sys/kernel/debug/pfcwd/poll_delay_us (rw, tests only, 0): the poller
 * sleeps that long (up to 5 s) where a port it found disabled or with its
 * link down is about to be left unscheduled (poll.c), so that a test can
 * race an enable or a link-up with it.
 *
 * /sys/kernel/debug/pfcwd/apply_delay_us (rw, tests only, 0): the poller
 * sleeps that long (up to 5 s) between deciding that a pass starts a
 * mitigation (a storm detected or generated) and carrying it out
 * (poll.c), so that a test can make an operator's change come then.
 *
 * Context: process; takes pfcwd_ports_lock, then each port->lock.
 */
#include <linux/debugfs.h>
#include <linux/seq_file.h>

#include "pfcwd.h"
#include "prio_list.h"

static struct dentry *pfcwd_debugfs_dir;

static void pfcwd_debugfs_port(struct seq_file *m, struct pfcwd_port *port)
{
	char prios[PFCWD_PRIO_LIST_LEN], pfc[PFCWD_PRIO_LIST_LEN];
	char stall[PFCWD_PRIO_LIST_LEN];
	int p;

	pfcwd_prio_list_format(port->cfg.prios, prios, sizeof(prios));
	pfcwd_prio_list_format(port->pfc_en, pfc, sizeof(pfc));
	pfcwd_prio_list_format(READ_ONCE(port->stall_prios), stall,
			       sizeof(stall));
	seq_printf(m, "%s enabled %d action %s prios %s pfc_en %s dcb %d push %d hold_us %llu granularity_us %llu next_poll_ns %lld ingress_hook %d profile %s counters %d refresh_ms %u refresh_learnt %d reads %llu forced %llu read_errors %llu read_rate %u device_action %s device_pfc %d setpfc_hurts %d setpfc_errors %llu nic_warnings %llu nic_errors %llu stall_prios %s warn_ms %u backoff %u rate_rx %u rate_tx %u rate_window_ms %u durations %s duration_reads %llu phase %d phase_reads %llu phase_pubs %llu pub_width_us %u duration_waits %llu\n",
		   port->name, port->cfg.enabled,
		   pfcwd_action_name(port->cfg.action), prios[0] ? prios : "-",
		   pfc[0] ? pfc : "-", port->has_dcb,
		   READ_ONCE(port->push_active),
		   div_u64(port->hold_ns, NSEC_PER_USEC),
		   div_u64(pfcwd_port_granularity_ns(port), NSEC_PER_USEC),
		   (s64)READ_ONCE(port->next_poll),
		   pfcwd_ingress_active(port), port->profile->name,
		   port->counters, READ_ONCE(port->refresh_ms),
		   READ_ONCE(port->refresh_learnt), READ_ONCE(port->reads),
		   READ_ONCE(port->forced), READ_ONCE(port->read_errors),
		   READ_ONCE(port->read_rate),
		   pfcwd_device_action_name(port->cfg.device_action),
		   pfcwd_action_device_pfc(port), READ_ONCE(port->setpfc_hurts),
		   port->setpfc_errors, READ_ONCE(port->nic.warnings),
		   READ_ONCE(port->nic.errors), stall[0] ? stall : "-",
		   port->cfg.warn_ms, port->cfg.backoff, port->cfg.rate_rx,
		   port->cfg.rate_tx, port->cfg.rate_window_ms,
		   pfcwd_ectr_dur_name(port) ?: "-", READ_ONCE(port->dur_reads),
		   READ_ONCE(port->phase_found), READ_ONCE(port->phase_reads),
		   READ_ONCE(port->phase_pubs), pfcwd_source_pub_width_us(port),
		   READ_ONCE(port->dur_waits));
	for (p = 0; p < PFCWD_NUM_PRIO; p++) {
		const struct pfcwd_storm *sm = &port->prio[p].sm;
		const struct pfcwd_storm_stats *st = &sm->stats;

		seq_printf(m, "%s prio %d watched %d state %s latch %s detected %llu restored %llu tx_storms %llu slow %llu rx_pause %llu tx_pause %llu last_paused_us %llu last_storm_us %llu detected_at_ns %llu restored_at_ns %llu tx_dropped %lld rx_dropped %lld tx_forwarded %lld stalls_refuted %llu flush_breaks %lld warnings %llu backoff_level %u rate_rx_events %llu rate_tx_events %llu overrides 0x%x detect_ms %u restore_ms %u warn_ms %u action %s pfc_reenabled %llu xoff_while_tx %llu\n",
			   port->name, p, !!(port->cfg.prios & BIT(p)),
			   pfcwd_state_name(sm->state),
			   pfcwd_latch_name(sm->latch), st->detected,
			   st->restored, st->tx_storms, st->slow_events,
			   st->rx_pause, st->tx_pause,
			   div_u64(st->last_paused_ns, NSEC_PER_USEC),
			   div_u64(st->last_storm_ns, NSEC_PER_USEC),
			   st->last_detected_at, st->last_restored_at,
			   atomic64_read(&port->prio[p].tx_dropped),
			   atomic64_read(&port->prio[p].rx_dropped),
			   atomic64_read(&port->prio[p].tx_forwarded),
			   st->stalls_refuted,
			   atomic64_read(&port->prio[p].flush_breaks),
			   st->warnings, sm->backoff_level,
			   st->rate[PFCWD_RATE_DIR_RX].events,
			   st->rate[PFCWD_RATE_DIR_TX].events,
			   port->cfg.ovr[p],
			   pfcwd_cfg_prio_detect(&port->cfg, p),
			   pfcwd_cfg_prio_restore(&port->cfg, p),
			   pfcwd_cfg_prio_warn(&port->cfg, p),
			   pfcwd_action_name(pfcwd_cfg_prio_action(&port->cfg,
								   p)),
			   port->prio[p].pfc_reenabled, st->xoff_while_tx);
	}
}

static int pfcwd_debugfs_ports_show(struct seq_file *m, void *v)
{
	struct pfcwd_port *port;

	mutex_lock(&pfcwd_ports_lock);
	list_for_each_entry(port, &pfcwd_ports, node) {
		mutex_lock(&port->lock);
		pfcwd_debugfs_port(m, port);
		seq_printf(m, "%s device present %d absent_polls %llu\n",
			   port->name, !READ_ONCE(port->absent),
			   READ_ONCE(port->absent_polls));
		pfcwd_swpfc_debugfs(m, port);
		mutex_unlock(&port->lock);
	}
	mutex_unlock(&pfcwd_ports_lock);
	return 0;
}

DEFINE_SHOW_ATTRIBUTE(pfcwd_debugfs_ports);

static int pfcwd_debugfs_poll_show(struct seq_file *m, void *v)
{
	seq_printf(m, "passes %llu polls %llu work_ns %llu late_ns %llu quiet_ns %llu delays %llu requests %llu apply_delays %llu apply_delays_done %llu\n",
		   READ_ONCE(pfcwd_poll_stats.passes),
		   READ_ONCE(pfcwd_poll_stats.polls),
		   READ_ONCE(pfcwd_poll_stats.work_ns),
		   READ_ONCE(pfcwd_poll_stats.late_ns),
		   pfcwd_poll_quiet_ns(),
		   READ_ONCE(pfcwd_poll_stats.delays),
		   READ_ONCE(pfcwd_poll_stats.requests),
		   READ_ONCE(pfcwd_poll_stats.apply_delays),
		   READ_ONCE(pfcwd_poll_stats.apply_delays_done));
	return 0;
}

DEFINE_SHOW_ATTRIBUTE(pfcwd_debugfs_poll);

static int pfcwd_debugfs_ingress_show(struct seq_file *m, void *v)
{
	u64 added, removed;
	int now;

	pfcwd_ingress_counts(&now, &added, &removed);
	seq_printf(m, "hooks %d added %llu removed %llu\n", now, added,
		   removed);
	return 0;
}

DEFINE_SHOW_ATTRIBUTE(pfcwd_debugfs_ingress);

void pfcwd_debugfs_init(void)
{
	pfcwd_debugfs_dir = debugfs_create_dir("pfcwd", NULL);
	debugfs_create_file("ports", 0444, pfcwd_debugfs_dir, NULL,
			    &pfcwd_debugfs_ports_fops);
	debugfs_create_file("poll", 0444, pfcwd_debugfs_dir, NULL,
			    &pfcwd_debugfs_poll_fops);
	debugfs_create_file("ingress", 0444, pfcwd_debugfs_dir, NULL,
			    &pfcwd_debugfs_ingress_fops);
	debugfs_create_u32("poll_delay_us", 0600, pfcwd_debugfs_dir,
			   &pfcwd_poll_delay_us);
	debugfs_create_u32("apply_delay_us", 0600, pfcwd_debugfs_dir,
			   &pfcwd_poll_apply_delay_us);
}

void pfcwd_debugfs_exit(void)
{
	debugfs_remove_recursive(pfcwd_debugfs_dir);
}
