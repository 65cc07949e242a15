// SPDX-License-Identifier: GPL-2.0
/*
 * pfcwd(8): "metrics", every port and priority in the Prometheus text
 * exposition format (version 0.0.4), for node_exporter's textfile
 * collector and for "pfcwd exporter".
 *
 * Names are stable (pfcwd(8) lists them): add metrics, never rename one.
 * All are prefixed pfcwd_; labels are device (the interface name, as
 * node_exporter calls it) and, for per-priority metrics, prio (0-7).  The
 * only other labels are those of the state sets below (state, reason,
 * action) and of the two info metrics: pfcwd_build_info (version) and
 * pfcwd_port_info (driver, profile, source, device_action, lever), each
 * always 1, to join on.  Counters end in _total
 * and are reset by "pfcwd stats clear" (rate() copes with resets); times
 * are in seconds, as Prometheus wants base units.
 *
 * Enumerations (priority state, latch reason, action) are exported as
 * state sets: one series per possible value, 1 for the current one and 0
 * for the others, which is what Prometheus' instrumentation guidelines
 * and OpenMetrics' StateSet recommend.  A bare enum number would mean
 * nothing on a dashboard, could not be summed, and would need its
 * encoding in every alert rule; with a state set, sum() counts the
 * stormed priorities and "== 1" alerts read as what they test.  Every
 * value is always present, so no series appears or vanishes on a change.
 *
 * Each family is written as one block (# HELP, # TYPE, then its samples
 * for every port), as the format requires.  A family whose attribute the
 * kernel does not report (an older module) has no samples, and then no
 * header either.
 *
 * Single-threaded; no locking.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include "cli.h"

/* How an attribute becomes a sample value. */
enum mval {
	MV_NUM,		/* as it is */
	MV_MS,		/* milliseconds, to seconds */
	MV_US,		/* microseconds, to seconds */
	MV_MONO_NS,	/* CLOCK_MONOTONIC ns to Unix time, s; 0 stays 0 */
	MV_BOOL,	/* 0 or 1 */
	MV_STATESET,	/* one series per value of the enum, 1 or 0 */
};

struct metric {
	const char *name;	/* without the pfcwd_ prefix */
	const char *type;	/* counter or gauge */
	const char *help;
	bool prio;		/* per priority (else per port) */
	uint16_t attr;		/* PFCWD_A_PORT_x or PFCWD_A_PRIO_x */
	enum mval val;
	/* MV_STATESET: the label and the names of the values. */
	const char *label;
	const char *(*value_name)(uint64_t v);
	unsigned int n_values;
};

#define PORT_M(n, t, a, v, h)	{ n, t, h, false, a, v, NULL, NULL, 0 }
#define PRIO_M(n, t, a, v, h)	{ n, t, h, true, a, v, NULL, NULL, 0 }

static const struct metric metrics[] = {
	/* Port configuration. */
	PORT_M("port_enabled", "gauge", PFCWD_A_PORT_ENABLED, MV_BOOL,
	       "Whether the watchdog runs on the port (1) or not (0)."),
	PORT_M("port_detection_time_seconds", "gauge", PFCWD_A_PORT_DETECT_MS,
	       MV_MS, "Detection time T0: paused this long is a storm."),
	PORT_M("port_restoration_time_seconds", "gauge",
	       PFCWD_A_PORT_RESTORE_MS, MV_MS,
	       "Restoration time T1: this long without pause ends a storm."),
	PORT_M("port_warning_time_seconds", "gauge", PFCWD_A_PORT_WARN_MS,
	       MV_MS, "Warning time: paused this long warns (0: off)."),
	PORT_M("port_restore_backoff", "gauge", PFCWD_A_PORT_BACKOFF, MV_BOOL,
	       "Restore backoff: storms in a run wait longer (1) or not (0)."),
	PORT_M("port_pause_rate_rx", "gauge", PFCWD_A_PORT_RATE_RX, MV_NUM,
	       "Pause-rate warning: pause frames received per second (0: off)."),
	PORT_M("port_pause_rate_tx", "gauge", PFCWD_A_PORT_RATE_TX, MV_NUM,
	       "Pause-rate warning: pause frames sent per second (0: off)."),
	PORT_M("port_pause_rate_window_seconds", "gauge",
	       PFCWD_A_PORT_EFFECTIVE_RATE_WINDOW_MS, MV_MS,
	       "Pause-rate warning: how long above the rate, as in force."),
	PORT_M("port_storm_limit", "gauge", PFCWD_A_PORT_STORM_LIMIT, MV_NUM,
	       "Storms within the window that latch a priority (0: no limit)."),
	PORT_M("port_detection_granularity_seconds", "gauge",
	       PFCWD_A_PORT_GRANULARITY_US, MV_US,
	       "Bound on how late after T0 a storm is detected."),
	{ "port_action", "gauge",
	  "Action taken on a storm: 1 for the configured one, 0 for the others.",
	  false, PFCWD_A_PORT_ACTION, MV_STATESET, "action", action_name,
	  PFCWD_ACTION_MAX + 1 },
	/* Port counters. */
	PORT_M("global_pause_frames_received_total", "counter",
	       PFCWD_A_PORT_GLOBAL_PAUSE, MV_NUM,
	       "802.3x (global) pause frames received."),
	PORT_M("malformed_pause_frames_total", "counter",
	       PFCWD_A_PORT_PAUSE_MALFORMED, MV_NUM,
	       "Malformed MAC control frames ignored."),
	PORT_M("device_reads_total", "counter", PFCWD_A_PORT_READS, MV_NUM,
	       "Reads of the device's PFC counters."),
	PORT_M("device_forced_reads_total", "counter",
	       PFCWD_A_PORT_FORCED_READS, MV_NUM,
	       "Forced refreshes of the device's PFC counters."),
	PORT_M("device_read_errors_total", "counter",
	       PFCWD_A_PORT_READ_ERRORS, MV_NUM,
	       "Failed reads of the device's PFC counters."),
	PORT_M("setpfc_errors_total", "counter", PFCWD_A_PORT_SETPFC_ERRORS,
	       MV_NUM, "Failed changes of the device's pfc_en by the watchdog."),
	PORT_M("nic_storm_warnings_total", "counter",
	       PFCWD_A_PORT_NIC_STORM_WARNINGS, MV_NUM,
	       "Storm warnings of the NIC's own storm prevention."),
	PORT_M("nic_storm_errors_total", "counter",
	       PFCWD_A_PORT_NIC_STORM_ERRORS, MV_NUM,
	       "Storms the NIC's own storm prevention stopped."),
	/* Priority configuration and state. */
	PRIO_M("prio_watched", "gauge", PFCWD_A_PRIO_WATCHED, MV_BOOL,
	       "Whether the priority is watched (lossless) (1) or not (0)."),
	{ "prio_state", "gauge",
	  "State of the priority: 1 for the current one, 0 for the others.",
	  true, PFCWD_A_PRIO_STATE, MV_STATESET, "state", state_name,
	  PFCWD_PRIO_STATE_LATCHED + 1 },
	{ "prio_latch_reason", "gauge",
	  "Why the priority is latched: 1 for the reason, 0 for the others.",
	  true, PFCWD_A_PRIO_LATCH, MV_STATESET, "reason", latch_name,
	  PFCWD_LATCH_REASON_NIC_STORM + 1 },
	PRIO_M("prio_backoff_level", "gauge", PFCWD_A_PRIO_BACKOFF_LEVEL,
	       MV_NUM,
	       "Restore backoff level: of the storm in progress, else of a storm now."),
	PRIO_M("prio_restoration_time_seconds", "gauge",
	       PFCWD_A_PRIO_EFFECTIVE_RESTORE_MS, MV_MS,
	       "Restoration time in force: T1, or T1 backed off."),
	/* Priority counters. */
	PRIO_M("storms_detected_total", "counter", PFCWD_A_PRIO_DETECTED,
	       MV_NUM, "PFC storms detected (received pause)."),
	PRIO_M("storms_restored_total", "counter", PFCWD_A_PRIO_RESTORED,
	       MV_NUM, "PFC storms ended, by the watchdog or by hand."),
	PRIO_M("tx_storms_total", "counter", PFCWD_A_PRIO_TX_STORMS, MV_NUM,
	       "PFC storms generated by the port itself (NIC side)."),
	PRIO_M("slow_receiver_events_total", "counter",
	       PFCWD_A_PRIO_SLOW_EVENTS, MV_NUM,
	       "Slow receiver events: pause sent above the rate threshold."),
	PRIO_M("pause_rate_rx_events_total", "counter",
	       PFCWD_A_PRIO_RATE_RX_EVENTS, MV_NUM,
	       "Pause-rate events: pause received above the rate for the window."),
	PRIO_M("pause_rate_tx_events_total", "counter",
	       PFCWD_A_PRIO_RATE_TX_EVENTS, MV_NUM,
	       "Pause-rate events: pause sent above the rate for the window."),
	PRIO_M("pfc_reenabled_total", "counter",
	       PFCWD_A_PRIO_PFC_REENABLED, MV_NUM,
	       "Stormed priority put back in pfc_en by another agent, taken out again."),
	PRIO_M("xoff_while_tx_total", "counter", PFCWD_A_PRIO_XOFF_WHILE_TX,
	       MV_NUM, "Samples of XOFF received while the priority transmitted: no pause."),
	PRIO_M("storm_warnings_total", "counter", PFCWD_A_PRIO_WARNINGS,
	       MV_NUM, "Storm warnings: paused for the warning time."),
	PRIO_M("rx_pause_frames_total", "counter", PFCWD_A_PRIO_RX_PAUSE,
	       MV_NUM, "PFC XOFF frames received."),
	PRIO_M("tx_pause_frames_total", "counter", PFCWD_A_PRIO_TX_PAUSE,
	       MV_NUM, "PFC pause frames sent."),
	PRIO_M("tx_packets_total", "counter", PFCWD_A_PRIO_TX_PACKETS, MV_NUM,
	       "Packets sent (the driver's counter)."),
	PRIO_M("rx_packets_total", "counter", PFCWD_A_PRIO_RX_PACKETS, MV_NUM,
	       "Packets received (the driver's counter)."),
	PRIO_M("tx_dropped_packets_total", "counter", PFCWD_A_PRIO_TX_DROPPED,
	       MV_NUM, "Packets to send dropped by the watchdog."),
	PRIO_M("rx_dropped_packets_total", "counter", PFCWD_A_PRIO_RX_DROPPED,
	       MV_NUM, "Packets received dropped by the watchdog."),
	PRIO_M("tx_forwarded_packets_total", "counter",
	       PFCWD_A_PRIO_TX_FORWARDED, MV_NUM,
	       "Packets sent during storms with the forward action."),
	/* The last storm. */
	PRIO_M("last_storm_tx_dropped_packets", "gauge",
	       PFCWD_A_PRIO_LAST_TX_DROPPED, MV_NUM,
	       "Packets to send dropped during the last storm."),
	PRIO_M("last_storm_rx_dropped_packets", "gauge",
	       PFCWD_A_PRIO_LAST_RX_DROPPED, MV_NUM,
	       "Packets received dropped during the last storm."),
	PRIO_M("last_storm_tx_forwarded_packets", "gauge",
	       PFCWD_A_PRIO_LAST_TX_FORWARDED, MV_NUM,
	       "Packets sent during the last storm (forward action)."),
	PRIO_M("last_storm_paused_seconds", "gauge",
	       PFCWD_A_PRIO_LAST_PAUSED_US, MV_US,
	       "How long the priority had been paused when the last storm was detected."),
	PRIO_M("last_storm_duration_seconds", "gauge",
	       PFCWD_A_PRIO_LAST_STORM_US, MV_US,
	       "From detection to restoration of the last storm."),
	PRIO_M("last_storm_detected_timestamp_seconds", "gauge",
	       PFCWD_A_PRIO_LAST_DETECTED_NS, MV_MONO_NS,
	       "Unix time of the last detection, 0 if never."),
	PRIO_M("last_storm_restored_timestamp_seconds", "gauge",
	       PFCWD_A_PRIO_LAST_RESTORED_NS, MV_MONO_NS,
	       "Unix time of the last restoration, 0 if never."),
};

/* A label value: backslash, double quote and newline escaped. */
static void label_value(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '\\')
			fputs("\\\\", f);
		else if (*s == '"')
			fputs("\\\"", f);
		else if (*s == '\n')
			fputs("\\n", f);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

struct clocks {
	uint64_t mono_ns, real_ns;
};

static void value(FILE *f, const struct metric *m, uint64_t v,
		  const struct clocks *c)
{
	uint64_t t;

	switch (m->val) {
	case MV_MS:
		fprintf(f, "%llu.%03llu", (unsigned long long)(v / 1000),
			(unsigned long long)(v % 1000));
		break;
	case MV_US:
		fprintf(f, "%llu.%06llu", (unsigned long long)(v / 1000000),
			(unsigned long long)(v % 1000000));
		break;
	case MV_MONO_NS:
		/* Now in Unix time, less how long ago it was. */
		t = 0;
		if (v && v <= c->mono_ns && c->mono_ns - v < c->real_ns)
			t = c->real_ns - (c->mono_ns - v);
		fprintf(f, "%llu.%06llu", (unsigned long long)(t / 1000000000),
			(unsigned long long)(t % 1000000000 / 1000));
		break;
	case MV_BOOL:
		fputc(v ? '1' : '0', f);
		break;
	default:
		fprintf(f, "%llu", (unsigned long long)v);
	}
}

/* "pfcwd_NAME{device="D"[,prio="P"][,LABEL="X"]} " */
static void series(FILE *f, const struct metric *m, const char *dev, int prio,
		   const char *extra)
{
	fprintf(f, "pfcwd_%s{device=", m->name);
	label_value(f, dev);
	if (prio >= 0)
		fprintf(f, ",prio=\"%d\"", prio);
	if (extra) {
		fprintf(f, ",%s=", m->label);
		label_value(f, extra);
	}
	fputs("} ", f);
}

static void sample(FILE *f, const struct metric *m, const char *dev, int prio,
		   uint64_t v, const struct clocks *c)
{
	unsigned int i;

	if (m->val != MV_STATESET) {
		series(f, m, dev, prio, NULL);
		value(f, m, v, c);
		fputc('\n', f);
		return;
	}
	for (i = 0; i < m->n_values; i++) {
		series(f, m, dev, prio, m->value_name(i));
		fprintf(f, "%d\n", v == i);
	}
}

static void header(FILE *f, const struct metric *m)
{
	fprintf(f, "# HELP pfcwd_%s %s\n# TYPE pfcwd_%s %s\n", m->name,
		m->help, m->name, m->type);
}

static void family(FILE *f, const struct metric *m,
		   const struct port_list *l, const struct clocks *c)
{
	bool started = false;
	size_t i;
	int p;

	for (i = 0; i < l->n; i++) {
		const struct port_info *pi = &l->v[i];

		for (p = 0; p < (m->prio ? PFCWD_NUM_PRIO : 1); p++) {
			const struct prio_info *pr = &pi->prio[p];
			uint64_t have = m->prio ? pr->have : pi->have;
			const uint64_t *v = m->prio ? pr->v : pi->v;

			if (!has(have, m->attr))
				continue;
			if (!started)
				header(f, m);
			started = true;
			sample(f, m, pi->ifname, m->prio ? p : -1, v[m->attr],
			       c);
		}
	}
}

/* The device's driver, as ethtool -i says; "" if it cannot tell. */
static void port_driver(int fd, const char *dev, char *drv, size_t len)
{
	struct ethtool_drvinfo info = { .cmd = ETHTOOL_GDRVINFO };
	struct ifreq ifr = { 0 };

	drv[0] = '\0';
	if (fd < 0 || strlen(dev) >= sizeof(ifr.ifr_name))
		return;
	memcpy(ifr.ifr_name, dev, strlen(dev) + 1);
	ifr.ifr_data = (void *)&info;
	if (!ioctl(fd, SIOCETHTOOL, &ifr))
		snprintf(drv, len, "%.*s", (int)sizeof(info.driver),
			 info.driver);
}

#define PORT_INFO_HELP \
	"A port's driver, profile, source, device-action and mitigation lever."

static void info_label(FILE *f, const char *name, const char *v)
{
	fprintf(f, ",%s=", name);
	label_value(f, v);
}

/* The build, and each port's identity: series of value 1 to join on. */
static void info_families(FILE *f, const struct port_list *l)
{
	char drv[64];
	size_t i;
	int fd;

	fputs("# HELP pfcwd_build_info The pfcwd tool's version.\n"
	      "# TYPE pfcwd_build_info gauge\n", f);
	fputs("pfcwd_build_info{version=", f);
	label_value(f, PFCWD_VERSION);
	fputs("} 1\n", f);
	if (!l->n)
		return;
	fprintf(f, "# HELP pfcwd_port_info %s\n# TYPE pfcwd_port_info gauge\n",
		PORT_INFO_HELP);
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	for (i = 0; i < l->n; i++) {
		const struct port_info *pi = &l->v[i];

		port_driver(fd, pi->ifname, drv, sizeof(drv));
		fputs("pfcwd_port_info{device=", f);
		label_value(f, pi->ifname);
		info_label(f, "driver", drv);
		info_label(f, "profile", pi->profile);
		info_label(f, "source",
			   source_name(pi->v[PFCWD_A_PORT_SOURCE]));
		info_label(f, "device_action",
			   device_action_name(pi->v[PFCWD_A_PORT_DEVICE_ACTION]));
		info_label(f, "lever", port_lever(pi) ?: "datapath");
		fputs("} 1\n", f);
	}
	if (fd >= 0)
		close(fd);
}

/**
 * metrics_write - the metrics of every port of our netns
 * @f: where to write them
 *
 * Errors (module not loaded, netlink) are printed on stderr and nothing is
 * written.
 *
 * Return: 0, or a negative errno.
 */
int metrics_write(FILE *f)
{
	struct port_list l = { 0 };
	struct timespec ts;
	struct clocks c;
	struct genl g;
	size_t i;
	int err;

	err = genl_open(&g);
	if (!err)
		err = get_ports(&g, 0, NULL, &l);
	genl_close(&g);
	if (err)
		goto out;
	clock_gettime(CLOCK_REALTIME, &ts);
	c.real_ns = (uint64_t)ts.tv_sec * 1000000000 + (uint64_t)ts.tv_nsec;
	c.mono_ns = mono_ns();
	fputs("# HELP pfcwd_ports Ports watched by pfcwd.\n"
	      "# TYPE pfcwd_ports gauge\n", f);
	fprintf(f, "pfcwd_ports %zu\n", l.n);
	info_families(f, &l);
	for (i = 0; i < ARRAY_SIZE(metrics); i++)
		family(f, &metrics[i], &l, &c);
out:
	free(l.v);
	return err;
}

void usage_metrics(FILE *f)
{
	fprintf(f, "Usage: pfcwd metrics\n");
}

int cmd_metrics(int argc, char **argv)
{
	if (argc > 0 && matches(argv[0], "help")) {
		usage_metrics(stdout);
		return EXIT_OK;
	}
	if (argc > 0)
		usage_error("metrics: unknown argument \"%s\"", argv[0]);
	if (metrics_write(stdout))
		return EXIT_FAIL;
	if (fflush(stdout) || ferror(stdout)) {
		perror("pfcwd: stdout");
		return EXIT_FAIL;
	}
	return EXIT_OK;
}
