// SPDX-License-Identifier: GPL-2.0
/*
 * pfcwd(8): "show" (configuration and state of each port) and "stats"
 * (per-priority counters), as tables or JSON, from the ports get_ports()
 * fetched (port.c).  "stats" and its subcommands are dispatched by stats.c.
 *
 * Single-threaded; no locking.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <libmnl/libmnl.h>

#include "cli.h"

/* Common to show and stats: [dev DEV]. */
static unsigned int parse_dev_only(int argc, char **argv, const char *cmd,
				   void (*usage)(FILE *f), const char **dev)
{
	unsigned int ifindex = 0;

	*dev = NULL;
	for (; argc > 0; argc--, argv++) {
		if (matches(*argv, "dev")) {
			*dev = next_arg(&argc, &argv, "dev");
			ifindex = dev_index(*dev);
		} else if (matches(*argv, "help")) {
			usage(stdout);
			exit(EXIT_OK);
		} else {
			usage_error("%s: unknown argument \"%s\"", cmd, *argv);
		}
	}
	return ifindex;
}

static void prio_state(const struct prio_info *pr, char *buf, size_t size)
{
	uint64_t st = pr->v[PFCWD_A_PRIO_STATE];

	if (!has(pr->have, PFCWD_A_PRIO_STATE)) {
		snprintf(buf, size, "?");
	} else if (has(pr->have, PFCWD_A_PRIO_LATCH) &&
		   st == PFCWD_PRIO_STATE_LATCHED) {
		snprintf(buf, size, "latched (%s)",
			 latch_name(pr->v[PFCWD_A_PRIO_LATCH]));
	} else if (st == PFCWD_PRIO_STATE_STORMED &&
		   has(pr->have, PFCWD_A_PRIO_ACTION)) {
		snprintf(buf, size, "stormed, action %s",
			 action_name(pr->v[PFCWD_A_PRIO_ACTION]));
	} else {
		snprintf(buf, size, "%s", state_name(st));
	}
}

static bool prio_watched(const struct prio_info *pr)
{
	return pr->v[PFCWD_A_PRIO_WATCHED] != 0;
}

static bool prio_busy(const struct prio_info *pr)
{
	return has(pr->have, PFCWD_A_PRIO_STATE) &&
	       pr->v[PFCWD_A_PRIO_STATE] != PFCWD_PRIO_STATE_OPERATIONAL;
}

/* " key value" if the attribute is there. */
static void show_num(const struct port_info *pi, unsigned int type,
		     const char *fmt)
{
	if (has(pi->have, type))
		printf(fmt, (unsigned long long)pi->v[type]);
}

static void show_prios(const struct port_info *pi, unsigned int type,
		       const char *key)
{
	char l[32];

	if (has(pi->have, type)) {
		prio_list((uint8_t)pi->v[type], l, sizeof(l));
		printf(" %s %s", key, l);
	}
}

/* What device-action comes to on this port: "pfc_en", or why not. */
static const char *device_lever(const struct port_info *pi)
{
	if (pi->v[PFCWD_A_PORT_DEVICE_PFC])
		return "pfc_en";
	if (!has(pi->have, PFCWD_A_PORT_PFC_EN))
		return "datapath only: no DCB";
	switch (pi->v[PFCWD_A_PORT_DEVICE_ACTION]) {
	case PFCWD_DEVICE_ACTION_OFF:
		return "datapath only";
	case PFCWD_DEVICE_ACTION_AUTO:
		if (pi->v[PFCWD_A_PORT_SETPFC_HURTS])
			return "datapath only: setpfc bounced the link";
		return "datapath only: profile";
	}
	return "datapath only";
}

/* What a mitigation reaches, in the words an operator of RoCE looks for. */
static void show_reach(const struct port_info *pi)
{
	const char *lever = port_lever(pi);

	if (!lever)
		return;
	if (!strcmp(lever, "none"))
		printf("    mitigation reaches: nothing (action alert)\n");
	else if (!strcmp(lever, "pfc_en"))
		printf("    mitigation reaches: kernel traffic and RDMA (lever pfc_en)\n");
	else
		printf("    mitigation reaches: %s: RDMA stays paused\n",
		       "kernel traffic only (lever datapath)");
}

/*
 * The device side: profile, counter refresh, device-action and its lever,
 * counter reads.  Nothing from a kernel that does not report them.
 */
static void show_device(const struct port_info *pi)
{
	if (!has(pi->have, PFCWD_A_PORT_DEVICE_ACTION))
		return;
	printf("   ");
	if (has(pi->have, PFCWD_A_PORT_PROFILE))
		printf(" profile %s", pi->profile);
	if (has(pi->have, PFCWD_A_PORT_REFRESH_MS)) {
		if (pi->v[PFCWD_A_PORT_REFRESH_MS])
			printf(" refresh %llums",
			       (unsigned long long)pi->v[PFCWD_A_PORT_REFRESH_MS]);
		else
			printf(" refresh live");
		if (pi->v[PFCWD_A_PORT_REFRESH_LEARNT])
			printf(" (learnt)");
	}
	printf(" device-action %s (%s)",
	       device_action_name(pi->v[PFCWD_A_PORT_DEVICE_ACTION]),
	       device_lever(pi));
	show_num(pi, PFCWD_A_PORT_READ_RATE, " reads/s %llu");
	/* Published counters: where publications come, and from what. */
	if (pi->v[PFCWD_A_PORT_REFRESH_MS] &&
	    has(pi->have, PFCWD_A_PORT_PUB_WIDTH_US)) {
		unsigned long long w = pi->v[PFCWD_A_PORT_PUB_WIDTH_US];

		if (w)
			printf(" phase within %llums%s", (w + 999) / 1000,
			       pi->v[PFCWD_A_PORT_PHASE] ? " (frame totals)" : "");
		else
			printf(" phase unknown");
	}
	show_num(pi, PFCWD_A_PORT_FORCED_READS, " forced reads %llu");
	show_num(pi, PFCWD_A_PORT_READ_ERRORS, " read errors %llu");
	show_num(pi, PFCWD_A_PORT_SETPFC_ERRORS, " setpfc errors %llu");
	/* The NIC's own storm prevention, where the driver has the tunable. */
	if (has(pi->have, PFCWD_A_PORT_NIC_PREVENTION_MS)) {
		if (pi->v[PFCWD_A_PORT_NIC_PREVENTION_MS])
			show_num(pi, PFCWD_A_PORT_NIC_PREVENTION_MS,
				 " nic-prevention %llums");
		else
			printf(" nic-prevention off");
	}
	show_num(pi, PFCWD_A_PORT_NIC_STORM_WARNINGS, " nic storm warnings %llu");
	show_num(pi, PFCWD_A_PORT_NIC_STORM_ERRORS, " nic storm errors %llu");
	printf("\n");
	/* A DCB port whose driver has no pause counters. */
	if (has(pi->have, PFCWD_A_PORT_PFC_EN) &&
	    has(pi->have, PFCWD_A_PORT_SOURCE) &&
	    pi->v[PFCWD_A_PORT_SOURCE] == PFCWD_SOURCE_NONE)
		printf("    no PFC counters: storms cannot be seen\n");
	show_reach(pi);
}

/*
 * Configured versus effective: the latest a storm is detected after its
 * pause began (T0 + granularity) and restored after its last pause frame
 * (T1 + the restoration bound).  Whether T0 is finer than the source
 * resolves is the kernel's to say, when it is set (an extack warning):
 * the granularity shown here also holds the poller's lateness, which
 * load moves.
 */
static void show_bounds(const struct port_info *pi)
{
	uint64_t t0 = pi->v[PFCWD_A_PORT_DETECT_MS] * 1000;
	uint64_t t1 = pi->v[PFCWD_A_PORT_RESTORE_MS] * 1000;
	uint64_t g = pi->v[PFCWD_A_PORT_GRANULARITY_US];
	char d0[32], d[32], r0[32], r[32];

	if (!has(pi->have, PFCWD_A_PORT_GRANULARITY_US) ||
	    !has(pi->have, PFCWD_A_PORT_RESTORE_LATE_US) ||
	    !has(pi->have, PFCWD_A_PORT_DETECT_MS) ||
	    !has(pi->have, PFCWD_A_PORT_RESTORE_MS))
		return;
	if (has(pi->have, PFCWD_A_PORT_SOURCE) &&
	    pi->v[PFCWD_A_PORT_SOURCE] == PFCWD_SOURCE_NONE)
		return;		/* no bound: nothing is seen */
	snprintf(d0, sizeof(d0), "%llu ms", (unsigned long long)t0 / 1000);
	fmt_us(d, sizeof(d), t0 + g);
	snprintf(r0, sizeof(r0), "%llu ms", (unsigned long long)t1 / 1000);
	fmt_us(r, sizeof(r), t1 + pi->v[PFCWD_A_PORT_RESTORE_LATE_US]);
	printf("    effective: detect within [%s, %s] restore within [%s, %s]\n",
	       d0, d, r0, r);
}

/*
 * A stormed priority: the restoration time it waits for (T1, or backed
 * off: T1 << level, capped), and the backoff level when above 0.
 */
static void show_restore_eff(const struct prio_info *pr)
{
	const uint64_t *v = pr->v;

	if (!has(pr->have, PFCWD_A_PRIO_STATE) ||
	    v[PFCWD_A_PRIO_STATE] != PFCWD_PRIO_STATE_STORMED ||
	    !has(pr->have, PFCWD_A_PRIO_EFFECTIVE_RESTORE_MS))
		return;
	printf(", restore after %llums",
	       (unsigned long long)v[PFCWD_A_PRIO_EFFECTIVE_RESTORE_MS]);
	if (v[PFCWD_A_PRIO_BACKOFF_LEVEL])
		printf(" (backoff %llu)",
		       (unsigned long long)v[PFCWD_A_PRIO_BACKOFF_LEVEL]);
}

/*
 * Per-priority policy: the T0, T1, warning time and action a priority
 * goes by, each marked '*' when it is the priority's own (an override),
 * not the port's.
 */
static bool prio_has_policy(const struct prio_info *pr)
{
	return has(pr->have, PFCWD_A_PRIO_OVERRIDES) &&
	       pr->v[PFCWD_A_PRIO_OVERRIDES];
}

static void show_policy(const struct port_info *pi, const struct prio_info *pr)
{
	uint64_t ovr = pr->v[PFCWD_A_PRIO_OVERRIDES];
	const uint64_t *v = pr->v;
	uint64_t warn;

	if (!has(pr->have, PFCWD_A_PRIO_EFFECTIVE_DETECT_MS) ||
	    !has(pr->have, PFCWD_A_PRIO_EFFECTIVE_WARN_MS) ||
	    !has(pr->have, PFCWD_A_PRIO_EFFECTIVE_ACTION))
		return;
	printf(" [detect %llums%s",
	       (unsigned long long)v[PFCWD_A_PRIO_EFFECTIVE_DETECT_MS],
	       ovr & PFCWD_PRIO_OVR_DETECT ? "*" : "");
	printf(" restore %llums%s",
	       (unsigned long long)(ovr & PFCWD_PRIO_OVR_RESTORE ?
				    v[PFCWD_A_PRIO_RESTORE_MS] :
				    pi->v[PFCWD_A_PORT_RESTORE_MS]),
	       ovr & PFCWD_PRIO_OVR_RESTORE ? "*" : "");
	warn = v[PFCWD_A_PRIO_EFFECTIVE_WARN_MS];
	if (warn)
		printf(" warn %llums%s", (unsigned long long)warn,
		       ovr & PFCWD_PRIO_OVR_WARN ? "*" : "");
	else
		printf(" warn off%s", ovr & PFCWD_PRIO_OVR_WARN ? "*" : "");
	printf(" action %s%s]",
	       action_name(v[PFCWD_A_PRIO_EFFECTIVE_ACTION]),
	       ovr & PFCWD_PRIO_OVR_ACTION ? "*" : "");
}

static void show_human(const struct port_info *pi)
{
	bool policy = false;
	char s[64];
	int p;

	/* The first line reads like the set command that gives it. */
	printf("%s:", pi->ifname);
	if (has(pi->have, PFCWD_A_PORT_ENABLED))
		printf(" %s", pi->v[PFCWD_A_PORT_ENABLED] ? "on" : "off");
	show_num(pi, PFCWD_A_PORT_DETECT_MS, " detect %llums");
	show_num(pi, PFCWD_A_PORT_RESTORE_MS, " restore %llums");
	if (has(pi->have, PFCWD_A_PORT_ACTION))
		printf(" action %s", action_name(pi->v[PFCWD_A_PORT_ACTION]));
	show_prios(pi, PFCWD_A_PORT_PRIOS, "prio");
	show_num(pi, PFCWD_A_PORT_STORM_LIMIT, " storm-limit %llu");
	/* Off is the default, and reads like no word at all. */
	if (pi->v[PFCWD_A_PORT_WARN_MS])
		show_num(pi, PFCWD_A_PORT_WARN_MS, " warn %llums");
	if (pi->v[PFCWD_A_PORT_BACKOFF])
		printf(" backoff on");
	if (pi->v[PFCWD_A_PORT_RATE_RX] || pi->v[PFCWD_A_PORT_RATE_TX]) {
		show_num(pi, PFCWD_A_PORT_RATE_RX, " rate-rx %llu");
		show_num(pi, PFCWD_A_PORT_RATE_TX, " rate-tx %llu");
		show_num(pi, PFCWD_A_PORT_RATE_WINDOW_MS, " rate-window %llums");
		if (pi->v[PFCWD_A_PORT_EFFECTIVE_RATE_WINDOW_MS] >
		    pi->v[PFCWD_A_PORT_RATE_WINDOW_MS])
			show_num(pi, PFCWD_A_PORT_EFFECTIVE_RATE_WINDOW_MS,
				 " (in force %llums)");
	}
	printf("\n   ");
	show_prios(pi, PFCWD_A_PORT_STORMED, "stormed");
	show_prios(pi, PFCWD_A_PORT_PFC_EN, "pfc_en");
	if (has(pi->have, PFCWD_A_PORT_SOURCE))
		printf(" source %s", source_name(pi->v[PFCWD_A_PORT_SOURCE]));
	if (has(pi->have, PFCWD_A_PORT_GRANULARITY_US)) {
		fmt_us(s, sizeof(s), pi->v[PFCWD_A_PORT_GRANULARITY_US]);
		printf(" granularity %s", s);
	}
	show_num(pi, PFCWD_A_PORT_QDISCS, " qdiscs %llu");
	/* Without a qdisc, XOFF alone is a pause, even while traffic flows. */
	if (has(pi->have, PFCWD_A_PORT_TX_PROGRESS))
		printf(" tx-progress %s",
		       pi->v[PFCWD_A_PORT_TX_PROGRESS] ? "qdisc" : "none");
	if (has(pi->have, PFCWD_A_PORT_HELD))
		printf(" held %s", pi->v[PFCWD_A_PORT_HELD] ? "yes" : "no");
	printf(" ifindex %llu\n",
	       (unsigned long long)pi->v[PFCWD_A_PORT_IFINDEX]);
	show_bounds(pi);
	show_device(pi);
	for (p = 0; p < PFCWD_NUM_PRIO; p++)
		policy |= prio_has_policy(&pi->prio[p]);
	for (p = 0; p < PFCWD_NUM_PRIO; p++) {
		const struct prio_info *pr = &pi->prio[p];

		if (!pr->have || (!prio_watched(pr) && !prio_busy(pr) &&
				  !prio_has_policy(pr)))
			continue;
		prio_state(pr, s, sizeof(s));
		printf("    prio %d: %s", p, s);
		show_restore_eff(pr);
		/* Only on a port with overrides: '*' marks them. */
		if (policy)
			show_policy(pi, pr);
		printf("%s\n", prio_watched(pr) ? "" : " (not watched)");
	}
}

static void num_cell(const struct prio_info *pr, unsigned int type,
		     char *buf, size_t size)
{
	if (has(pr->have, type))
		snprintf(buf, size, "%llu", (unsigned long long)pr->v[type]);
	else
		snprintf(buf, size, "-");
}

#define MAIN_COLS 12
#define LAST_COLS 10
#define MAX_COLS 12	/* the larger */

static void stats_human(const struct port_info *pi, uint64_t now)
{
	static const char *const main_heads[MAIN_COLS] = {
		"prio", "state", "storms", "restored", "tx ok", "tx drop",
		"tx fwd", "rx ok", "rx drop", "rx pause", "tx pause",
		"warnings",
	};
	static const unsigned int main_attrs[MAIN_COLS] = {
		0, 0, PFCWD_A_PRIO_DETECTED, PFCWD_A_PRIO_RESTORED,
		PFCWD_A_PRIO_TX_PACKETS, PFCWD_A_PRIO_TX_DROPPED,
		PFCWD_A_PRIO_TX_FORWARDED, PFCWD_A_PRIO_RX_PACKETS,
		PFCWD_A_PRIO_RX_DROPPED, PFCWD_A_PRIO_RX_PAUSE,
		PFCWD_A_PRIO_TX_PAUSE, PFCWD_A_PRIO_WARNINGS,
	};
	static const char *const last_heads[LAST_COLS] = {
		"prio", "paused", "lasted", "tx drop", "rx drop", "tx fwd",
		"detected", "restored", "tx storms", "slow",
	};
	char cells[MAX_COLS][48];
	const char *row[MAX_COLS];
	struct table *t, *last;
	bool any_last = false;
	int p, c;

	for (c = 0; c < MAX_COLS; c++)
		row[c] = cells[c];
	t = table_new(MAIN_COLS, main_heads, "llrrrrrrrrrr");
	last = table_new(LAST_COLS, last_heads, "lrrrrrrrrr");
	for (p = 0; p < PFCWD_NUM_PRIO; p++) {
		const struct prio_info *pr = &pi->prio[p];
		const uint64_t *v = pr->v;
		bool running;

		if (!pr->have)
			continue;
		snprintf(cells[0], sizeof(cells[0]), "%d", p);
		if (prio_watched(pr) || prio_busy(pr))
			prio_state(pr, cells[1], sizeof(cells[1]));
		else
			snprintf(cells[1], sizeof(cells[1]), "-");
		for (c = 2; c < MAIN_COLS; c++)
			num_cell(pr, main_attrs[c], cells[c], sizeof(cells[c]));
		table_add(t, row);

		if (!v[PFCWD_A_PRIO_DETECTED] && !v[PFCWD_A_PRIO_TX_STORMS] &&
		    !v[PFCWD_A_PRIO_SLOW_EVENTS])
			continue;
		any_last = true;
		running = v[PFCWD_A_PRIO_STATE] != PFCWD_PRIO_STATE_OPERATIONAL &&
			  v[PFCWD_A_PRIO_LAST_DETECTED_NS] >
			  v[PFCWD_A_PRIO_LAST_RESTORED_NS];
		if (v[PFCWD_A_PRIO_LAST_DETECTED_NS])
			fmt_us(cells[1], sizeof(cells[1]),
			       v[PFCWD_A_PRIO_LAST_PAUSED_US]);
		else
			snprintf(cells[1], sizeof(cells[1]), "-");
		if (running)
			snprintf(cells[2], sizeof(cells[2]), "running");
		else if (v[PFCWD_A_PRIO_LAST_RESTORED_NS])
			fmt_us(cells[2], sizeof(cells[2]),
			       v[PFCWD_A_PRIO_LAST_STORM_US]);
		else
			snprintf(cells[2], sizeof(cells[2]), "-");
		num_cell(pr, PFCWD_A_PRIO_LAST_TX_DROPPED, cells[3], sizeof(cells[3]));
		num_cell(pr, PFCWD_A_PRIO_LAST_RX_DROPPED, cells[4], sizeof(cells[4]));
		num_cell(pr, PFCWD_A_PRIO_LAST_TX_FORWARDED, cells[5], sizeof(cells[5]));
		fmt_ago(cells[6], sizeof(cells[6]), v[PFCWD_A_PRIO_LAST_DETECTED_NS], now);
		fmt_ago(cells[7], sizeof(cells[7]), v[PFCWD_A_PRIO_LAST_RESTORED_NS], now);
		num_cell(pr, PFCWD_A_PRIO_TX_STORMS, cells[8], sizeof(cells[8]));
		num_cell(pr, PFCWD_A_PRIO_SLOW_EVENTS, cells[9], sizeof(cells[9]));
		table_add(last, row);
	}
	printf("%s:\n", pi->ifname);
	table_print(t, stdout, "  ");
	if (any_last) {
		printf("  last storm:\n");
		table_print(last, stdout, "  ");
	}
	if (has(pi->have, PFCWD_A_PORT_GLOBAL_PAUSE) ||
	    has(pi->have, PFCWD_A_PORT_PAUSE_MALFORMED))
		printf("  global pause %llu, malformed pause frames %llu\n",
		       (unsigned long long)pi->v[PFCWD_A_PORT_GLOBAL_PAUSE],
		       (unsigned long long)pi->v[PFCWD_A_PORT_PAUSE_MALFORMED]);
	table_free(t);
	table_free(last);
}

static void port_json(const struct port_info *pi, unsigned int kind)
{
	int p;

	jw_obj_open(NULL);
	json_port_members(pi, kind);
	jw_arr_open("prio");
	for (p = 0; p < PFCWD_NUM_PRIO; p++) {
		if (!pi->prio[p].have)
			continue;
		jw_obj_open(NULL);
		json_prio_members(&pi->prio[p], kind);
		jw_obj_close();
	}
	jw_arr_close();
	jw_obj_close();
}

/*
 * "show" or "stats" (@kind) [dev DEV]: the ports as tables or JSON; "help"
 * prints @usage.
 */
int ports_print(int argc, char **argv, const char *cmd,
		void (*usage)(FILE *f), unsigned int kind)
{
	struct port_list l = { 0 };
	unsigned int ifindex;
	const char *dev;
	struct genl g;
	uint64_t now;
	size_t i;
	int ret = EXIT_FAIL;

	ifindex = parse_dev_only(argc, argv, cmd, usage, &dev);
	if (genl_open(&g))
		goto out;
	if (get_ports(&g, ifindex, dev, &l))
		goto out;
	now = mono_ns();
	if (cli.json) {
		jw_init(stdout, cli.pretty);
		jw_arr_open(NULL);
		for (i = 0; i < l.n; i++)
			port_json(&l.v[i], kind);
		jw_arr_close();
	} else {
		for (i = 0; i < l.n; i++) {
			if (kind == AK_SHOW)
				show_human(&l.v[i]);
			else
				stats_human(&l.v[i], now);
		}
	}
	ret = fflush(stdout) ? EXIT_FAIL : EXIT_OK;
out:
	genl_close(&g);
	free(l.v);
	return ret;
}

void usage_show(FILE *f)
{
	fprintf(f, "Usage: pfcwd show [ dev DEV ]\n");
}

int cmd_show(int argc, char **argv)
{
	return ports_print(argc, argv, "show", usage_show, AK_SHOW);
}
