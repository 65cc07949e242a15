// SPDX-License-Identifier: GPL-2.0
/*
 * pfcwd(8): "monitor" - the events of the multicast group "events" as they
 * come: one line each, readable, or one JSON object per line with -j.
 * Output is flushed after every event, for pipes.  Events are numbered
 * per netns; a gap in the numbers (events lost) is said on stderr.
 *
 * Single-threaded; no locking.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <libmnl/libmnl.h>
#include <linux/genetlink.h>

#include "cli.h"

struct monitor {
	unsigned int ifindex;	/* only this device's events, if not 0 */
	uint32_t count;		/* stop after this many, if not 0 */
	uint32_t seen;
	uint64_t seq;		/* the last event's number; 0: none yet */
};

void usage_monitor(FILE *f)
{
	fprintf(f, "Usage: pfcwd monitor [ dev DEV ] [ count N ]\n");
}

static const char *event_name(uint8_t cmd)
{
	switch (cmd) {
	case PFCWD_CMD_STORM_DETECTED:
		return "storm-detected";
	case PFCWD_CMD_STORM_RESTORED:
		return "storm-restored";
	case PFCWD_CMD_TX_STORM:
		return "tx-storm";
	case PFCWD_CMD_SLOW_RECEIVER:
		return "slow-receiver";
	case PFCWD_CMD_STORM_WARNING:
		return "storm-warning";
	case PFCWD_CMD_PAUSE_RATE:
		return "pause-rate";
	case PFCWD_CMD_PORT_ADDED:
		return "port-added";
	case PFCWD_CMD_PORT_REMOVED:
		return "port-removed";
	case PFCWD_CMD_CONFIG_CHANGED:
		return "config-changed";
	case PFCWD_CMD_SETPFC_FAILED:
		return "setpfc-failed";
	case PFCWD_CMD_SETPFC_FALLBACK:
		return "setpfc-fallback";
	case PFCWD_CMD_SOURCE_BLIND:
		return "source-blind";
	}
	return NULL;
}

/* An event of the port as a whole, not of one of its priorities. */
static bool port_event(uint8_t cmd)
{
	return cmd >= PFCWD_CMD_PORT_ADDED && cmd <= PFCWD_CMD_SOURCE_BLIND;
}

/* The configuration a port-added or config-changed event carries. */
static void port_config_human(const struct port_info *pi)
{
	const uint64_t *v = pi->v;
	char prios[32];

	prio_list(v[PFCWD_A_PORT_PRIOS], prios, sizeof(prios));
	printf("%s, prio %s, detect %llu ms, restore %llu ms, ",
	       v[PFCWD_A_PORT_ENABLED] ? "on" : "off", prios,
	       (unsigned long long)v[PFCWD_A_PORT_DETECT_MS],
	       (unsigned long long)v[PFCWD_A_PORT_RESTORE_MS]);
	printf("action %s, storm-limit %llu, source %s",
	       action_name(v[PFCWD_A_PORT_ACTION]),
	       (unsigned long long)v[PFCWD_A_PORT_STORM_LIMIT],
	       source_name(v[PFCWD_A_PORT_SOURCE]));
	if (has(pi->have, PFCWD_A_PORT_LEVER))
		printf(", %s", lever_reach(v[PFCWD_A_PORT_LEVER]));
}

static void port_event_human(uint8_t cmd, const struct port_info *pi,
			     const char *when)
{
	const uint64_t *v = pi->v;
	char prios[32];

	printf("%s %s: ", when, pi->ifname);
	switch (cmd) {
	case PFCWD_CMD_PORT_ADDED:
		printf("port added (");
		port_config_human(pi);
		putchar(')');
		break;
	case PFCWD_CMD_PORT_REMOVED:
		printf("port removed, everything pfcwd changed undone");
		break;
	case PFCWD_CMD_CONFIG_CHANGED:
		printf("configuration changed (");
		port_config_human(pi);
		putchar(')');
		break;
	case PFCWD_CMD_SETPFC_FAILED:
		prio_list(v[PFCWD_A_PORT_SETPFC_PRIOS], prios, sizeof(prios));
		printf("cannot change pfc_en of prio %s: %s; mitigation stays in the datapath",
		       prios, strerror(v[PFCWD_A_PORT_SETPFC_ERRNO]));
		break;
	case PFCWD_CMD_SETPFC_FALLBACK:
		printf("changing pfc_en took the link down: %s",
		       "device-action auto mitigates in the datapath only from now on");
		break;
	case PFCWD_CMD_SOURCE_BLIND:
		if (v[PFCWD_A_PORT_BLIND])
			printf("blind: a storm cannot be seen (source %s, %llu %s)",
			       source_name(v[PFCWD_A_PORT_SOURCE]),
			       (unsigned long long)v[PFCWD_A_PORT_READ_ERRORS],
			       "failed counter reads");
		else
			printf("sees storms again (source %s)",
			       source_name(v[PFCWD_A_PORT_SOURCE]));
		break;
	}
	putchar('\n');
}

/*
 * Events are numbered per netns: a gap means the kernel could not send
 * some, or they overflowed our socket.  Said on stderr, once per gap.
 */
static void check_seq(struct monitor *m, const struct port_info *pi)
{
	uint64_t seq;

	if (!has(pi->have, PFCWD_A_PORT_EVENT_SEQ))
		return;
	seq = pi->v[PFCWD_A_PORT_EVENT_SEQ];
	if (m->seq && seq > m->seq + 1)
		fprintf(stderr, "pfcwd: %llu events lost before event %llu\n",
			(unsigned long long)(seq - m->seq - 1),
			(unsigned long long)seq);
	m->seq = seq;
}

static void event_human(uint8_t cmd, const struct port_info *pi, int p,
			const struct prio_info *pr, const char *when)
{
	const uint64_t *v = pr->v;
	char d[32];

	printf("%s %s prio %d: ", when, pi->ifname, p);
	switch (cmd) {
	case PFCWD_CMD_STORM_DETECTED:
		fmt_us(d, sizeof(d), v[PFCWD_A_PRIO_LAST_PAUSED_US]);
		printf("PFC storm detected, action %s (paused %s)",
		       action_name(v[PFCWD_A_PRIO_ACTION]), d);
		if (has(pr->have, PFCWD_A_PRIO_LEVER))
			printf(", %s", lever_reach(v[PFCWD_A_PRIO_LEVER]));
		break;
	case PFCWD_CMD_STORM_RESTORED:
		fmt_us(d, sizeof(d), v[PFCWD_A_PRIO_LAST_STORM_US]);
		printf("PFC storm restored after %s ", d);
		printf("(tx dropped %llu, rx dropped %llu, tx forwarded %llu)",
		       (unsigned long long)v[PFCWD_A_PRIO_LAST_TX_DROPPED],
		       (unsigned long long)v[PFCWD_A_PRIO_LAST_RX_DROPPED],
		       (unsigned long long)v[PFCWD_A_PRIO_LAST_TX_FORWARDED]);
		break;
	case PFCWD_CMD_TX_STORM:
		printf("PFC storm generated by this port (pause sent, nothing received), action %s",
		       action_name(v[PFCWD_A_PRIO_ACTION]));
		break;
	case PFCWD_CMD_STORM_WARNING:
		fmt_us(d, sizeof(d), v[PFCWD_A_PRIO_LAST_WARN_PAUSED_US]);
		printf("PFC storm warning, no action (paused %s, warnings %llu)",
		       d, (unsigned long long)v[PFCWD_A_PRIO_WARNINGS]);
		break;
	case PFCWD_CMD_PAUSE_RATE:
		printf("pause rate %s %llu frames/s for %llu ms (%llu such events)",
		       pi->v[PFCWD_A_PORT_RATE_DIRECTION] == PFCWD_RATE_TX ?
		       "sent" : "received",
		       (unsigned long long)pi->v[PFCWD_A_PORT_RATE_PPS],
		       (unsigned long long)pi->v[PFCWD_A_PORT_RATE_DURATION_MS],
		       (unsigned long long)v[pi->v[PFCWD_A_PORT_RATE_DIRECTION] ==
					     PFCWD_RATE_TX ?
					     PFCWD_A_PRIO_RATE_TX_EVENTS :
					     PFCWD_A_PRIO_RATE_RX_EVENTS]);
		break;
	case PFCWD_CMD_SLOW_RECEIVER:
		printf("slow receiver (%llu pause frames sent, %llu such events)",
		       (unsigned long long)v[PFCWD_A_PRIO_TX_PAUSE],
		       (unsigned long long)v[PFCWD_A_PRIO_SLOW_EVENTS]);
		break;
	}
	if (v[PFCWD_A_PRIO_STATE] == PFCWD_PRIO_STATE_LATCHED)
		printf(", latched (%s)", latch_name(v[PFCWD_A_PRIO_LATCH]));
	putchar('\n');
}

/* Counts an event printed; 1 (stop) once the count asked for is reached. */
static int event_done(struct monitor *m)
{
	if (fflush(stdout))
		return -EPIPE;
	m->seen++;
	return m->count && m->seen >= m->count ? 1 : 0;
}

static int port_event_cb(uint8_t cmd, const char *name,
			 const struct port_info *pi, struct monitor *m)
{
	char when[48];

	fmt_wall(when, sizeof(when), mono_ns(), cli.json);
	if (cli.json) {
		jw_obj_open(NULL);
		jw_str("event", name);
		jw_str("time", when);
		json_port_members(pi, AK_EVENT | AK_SHOW);
		jw_obj_close();
	} else {
		port_event_human(cmd, pi, when);
	}
	return event_done(m);
}

static int event_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct genlmsghdr *gh = mnl_nlmsg_get_payload(nlh);
	const struct prio_info *pr = NULL;
	struct monitor *m = data;
	const char *name;
	struct port_info pi;
	char when[48];
	int p;

	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(*gh))
		return 0;
	name = event_name(gh->cmd);
	if (!name)
		return 0;	/* not an event we know */
	if (port_parse(nlh, &pi)) {
		fprintf(stderr, "pfcwd: malformed %s event from the kernel\n",
			name);
		return 0;
	}
	/* Every event of the netns counts, whichever device is asked for. */
	check_seq(m, &pi);
	if (m->ifindex && pi.v[PFCWD_A_PORT_IFINDEX] != m->ifindex)
		return 0;
	if (port_event(gh->cmd))
		return port_event_cb(gh->cmd, name, &pi, m);
	for (p = 0; p < PFCWD_NUM_PRIO; p++) {
		if (pi.prio[p].have) {
			pr = &pi.prio[p];
			break;
		}
	}
	if (!pr) {
		fprintf(stderr, "pfcwd: %s event without a priority\n", name);
		return 0;
	}
	fmt_wall(when, sizeof(when), has(pr->have, PFCWD_A_PRIO_EVENT_NS) ?
		 pr->v[PFCWD_A_PRIO_EVENT_NS] : mono_ns(), cli.json);
	if (cli.json) {
		jw_obj_open(NULL);
		jw_str("event", name);
		jw_str("time", when);
		json_port_members(&pi, AK_EVENT);
		json_prio_members(pr, AK_EVENT);
		jw_obj_close();
	} else {
		event_human(gh->cmd, &pi, p, pr, when);
	}
	return event_done(m);
}

int cmd_monitor(int argc, char **argv)
{
	struct monitor m = { 0 };
	const char *s;
	struct genl g;
	int ret = EXIT_FAIL, err;

	for (; argc > 0; argc--, argv++) {
		if (matches(*argv, "dev")) {
			m.ifindex = dev_index(next_arg(&argc, &argv, "dev"));
		} else if (matches(*argv, "count")) {
			s = next_arg(&argc, &argv, "count");
			if (parse_u32(s, &m.count) || !m.count)
				usage_error("bad count \"%s\": expected 1 or more",
					    s);
		} else if (matches(*argv, "help")) {
			usage_monitor(stdout);
			exit(EXIT_OK);
		} else {
			usage_error("monitor: unknown argument \"%s\"", *argv);
		}
	}
	if (genl_open(&g))
		goto out;
	if (!g.events_group) {
		fprintf(stderr, "pfcwd: the kernel's pfcwd family has no \"%s\" group\n",
			PFCWD_MCGRP_EVENTS);
		goto out;
	}
	if (genl_subscribe(&g, g.events_group)) {
		genl_perror(&g, "cannot subscribe to events");
		goto out;
	}
	jw_init(stdout, cli.pretty);
	err = genl_recv_events(&g, event_cb, &m);
	if (err < 0) {
		if (err != -EPIPE)
			genl_perror(&g, "monitor");
		goto out;
	}
	ret = EXIT_OK;
out:
	genl_close(&g);
	return ret;
}
