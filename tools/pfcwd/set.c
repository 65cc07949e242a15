// SPDX-License-Identifier: GPL-2.0
/*
 * pfcwd(8): the commands that change a port - "set" (port-set) and
 * "restore" (prio-restore).  The command line is checked for syntax here
 * (numbers, names, priority lists); ranges are the kernel's to check, so
 * that there is one set of rules and its messages.  Nothing is sent
 * unless the whole command line is good.
 *
 * Single-threaded; no locking.
 */
#include <stdlib.h>
#include <string.h>
#include <libmnl/libmnl.h>

#include "cli.h"

void usage_set(FILE *f)
{
	fprintf(f, "Usage: pfcwd set dev DEV [ on | off ] [ detect MS ] [ restore MS ]\n"
		   "                        [ action { drop | forward | alert } ]\n"
		   "                        [ prio LIST ] [ storm-limit N ]\n"
		   "                        [ device-action { auto | on | off } ]\n"
		   "                        [ warn MS ]   (below detect; 0: off)\n"
		   "                        [ backoff { on | off } ]   (restore backoff)\n"
		   "                        [ rate-rx PPS ] [ rate-tx PPS ] [ rate-window MS ]\n"
		   "                        [ prio-detect P:MS ... ] [ prio-restore P:MS ... ]\n"
		   "                        [ prio-warn P:MS ... ]\n"
		   "                        [ prio-action P:{ drop | forward | alert } ... ]\n"
		   "LIST := PRIO[,PRIO...] | none   PRIO := 0-7 | A-B\n"
		   "P := 0-7   P:default drops the priority's override (it follows the port)\n");
}

void usage_restore(FILE *f)
{
	fprintf(f, "Usage: pfcwd restore dev DEV prio LIST\n");
}

static void need_dev(const char *dev, const char *cmd)
{
	if (!dev)
		usage_error("%s: \"dev DEV\" is required", cmd);
}

static uint32_t arg_u32(int *argc, char ***argv, const char *kw,
			const char *what)
{
	const char *s = next_arg(argc, argv, kw);
	uint32_t v;

	if (parse_u32(s, &v))
		usage_error("bad %s \"%s\": expected a whole number", what, s);
	return v;
}

static uint32_t arg_ms(int *argc, char ***argv, const char *kw,
		       const char *what)
{
	const char *s = next_arg(argc, argv, kw);
	uint32_t v;

	if (parse_ms(s, &v))
		usage_error("bad %s \"%s\": expected milliseconds, a whole number",
			    what, s);
	return v;
}

static uint8_t arg_prios(int *argc, char ***argv, const char *kw)
{
	const char *s = next_arg(argc, argv, kw);
	uint8_t mask;

	if (parse_prios(s, &mask))
		usage_error("bad priority list \"%s\": expected e.g. 3, 3,4, 0-2,5 or none",
			    s);
	return mask;
}

/* A "prio" nest for each priority @pp changes. */
void prio_policy_put(struct nlmsghdr *req, const struct prio_policy *pp)
{
	struct nlattr *nest;
	int p;

	for (p = 0; p < PFCWD_NUM_PRIO; p++) {
		uint8_t set = pp->set[p];

		if (!(set | pp->drop[p]))
			continue;
		nest = mnl_attr_nest_start(req, PFCWD_A_PORT_PRIO);
		mnl_attr_put_u8(req, PFCWD_A_PRIO_PRIO, p);
		if (set & PFCWD_PRIO_OVR_DETECT)
			mnl_attr_put_u32(req, PFCWD_A_PRIO_DETECT_MS,
					 pp->detect_ms[p]);
		if (set & PFCWD_PRIO_OVR_RESTORE)
			mnl_attr_put_u32(req, PFCWD_A_PRIO_RESTORE_MS,
					 pp->restore_ms[p]);
		if (set & PFCWD_PRIO_OVR_WARN)
			mnl_attr_put_u32(req, PFCWD_A_PRIO_WARN_MS,
					 pp->warn_ms[p]);
		if (set & PFCWD_PRIO_OVR_ACTION)
			mnl_attr_put_u32(req, PFCWD_A_PRIO_POLICY_ACTION,
					 pp->action[p]);
		if (pp->drop[p])
			mnl_attr_put_u32(req, PFCWD_A_PRIO_DEFAULTS,
					 pp->drop[p]);
		mnl_attr_nest_end(req, nest);
	}
}

/*
 * The P:VALUE arguments after a per-priority keyword: at least one; the
 * list ends at the first argument that is not one (a keyword).
 */
static void arg_prio_policy(int *argc, char ***argv, unsigned int ovr,
			    struct prio_policy *pp)
{
	const char *kw = **argv;
	char err[128];
	int n = 0;

	while (*argc > 1 && strchr((*argv)[1], ':')) {
		(*argc)--;
		(*argv)++;
		if (prio_policy_parse(pp, ovr, **argv, err, sizeof(err)))
			usage_error("%s", err);
		n++;
	}
	if (!n)
		usage_error("%s: expected one or more P:VALUE, e.g. %s 3:%s",
			    kw, kw,
			    ovr == PFCWD_PRIO_OVR_ACTION ? "drop" : "200");
}

/* Sends @req, which asks for an ACK; prints the error or warning. */
static int run(struct genl *g, struct nlmsghdr *req, const char *what)
{
	return genl_do(g, req, what) ? EXIT_FAIL : EXIT_OK;
}

int cmd_set(int argc, char **argv)
{
	char buf[GENL_BUF_SIZE], what[64];
	uint32_t detect = 0, restore = 0, action = 0, limit = 0, dev_action = 0;
	uint32_t warn = 0, rate_rx = 0, rate_tx = 0, rate_window = 0;
	bool has_rate_rx = false, has_rate_tx = false, has_rate_window = false;
	bool has_detect = false, has_restore = false, has_action = false;
	bool has_warn = false;
	bool has_limit = false, has_prios = false, has_enabled = false;
	bool has_dev_action = false, has_backoff = false;
	const char *dev = NULL, *s;
	uint8_t prios = 0, enabled = 0, backoff = 0;
	unsigned int ifindex = 0;
	struct prio_policy pp = {};
	struct nlmsghdr *req;
	unsigned int ovr;
	struct genl g;
	int ret;

	for (; argc > 0; argc--, argv++) {
		if (matches(*argv, "dev")) {
			dev = next_arg(&argc, &argv, "dev");
			ifindex = dev_index(dev);
		} else if (prio_policy_keyword(*argv)) {
			ovr = prio_policy_keyword(*argv);
			arg_prio_policy(&argc, &argv, ovr, &pp);
		} else if (!strcmp(*argv, "on") || !strcmp(*argv, "off")) {
			has_enabled = true;
			enabled = !strcmp(*argv, "on");
		} else if (matches(*argv, "detect")) {
			detect = arg_ms(&argc, &argv, "detect", "detection time");
			has_detect = true;
		} else if (matches(*argv, "restore")) {
			restore = arg_ms(&argc, &argv, "restore", "restoration time");
			has_restore = true;
		} else if (matches(*argv, "warn")) {
			warn = arg_ms(&argc, &argv, "warn", "warning time");
			has_warn = true;
		} else if (matches(*argv, "rate-rx")) {
			rate_rx = arg_u32(&argc, &argv, "rate-rx",
					  "pause rate received");
			has_rate_rx = true;
		} else if (matches(*argv, "rate-tx")) {
			rate_tx = arg_u32(&argc, &argv, "rate-tx",
					  "pause rate sent");
			has_rate_tx = true;
		} else if (matches(*argv, "rate-window")) {
			rate_window = arg_ms(&argc, &argv, "rate-window",
					     "pause-rate window");
			has_rate_window = true;
		} else if (matches(*argv, "backoff")) {
			s = next_arg(&argc, &argv, "backoff");
			if (strcmp(s, "on") && strcmp(s, "off"))
				usage_error("bad backoff \"%s\": expected on or off",
					    s);
			backoff = !strcmp(s, "on");
			has_backoff = true;
		} else if (matches(*argv, "action")) {
			s = next_arg(&argc, &argv, "action");
			if (parse_action(s, &action))
				usage_error("bad action \"%s\": expected drop, forward or alert",
					    s);
			has_action = true;
		} else if (matches(*argv, "prio")) {
			prios = arg_prios(&argc, &argv, "prio");
			has_prios = true;
		} else if (matches(*argv, "device-action")) {
			s = next_arg(&argc, &argv, "device-action");
			if (parse_device_action(s, &dev_action))
				usage_error("bad device-action \"%s\": expected auto, on or off",
					    s);
			has_dev_action = true;
		} else if (matches(*argv, "storm-limit")) {
			limit = arg_u32(&argc, &argv, "storm-limit",
					"storm limit");
			has_limit = true;
		} else if (!strcmp(*argv, "limit")) {
			usage_error("set: \"limit\" is tc's packet limit; write \"storm-limit N\"");
		} else if (matches(*argv, "help")) {
			usage_set(stdout);
			exit(EXIT_OK);
		} else {
			usage_error("set: unknown argument \"%s\"", *argv);
		}
	}
	need_dev(dev, "set");
	if (!has_enabled && !has_detect && !has_restore && !has_action &&
	    !has_prios && !has_limit && !has_dev_action && !has_warn &&
	    !has_backoff && !has_rate_rx && !has_rate_tx && !has_rate_window &&
	    prio_policy_empty(&pp))
		usage_error("set: nothing to change on %s", dev);

	if (genl_open(&g)) {
		genl_close(&g);
		return EXIT_FAIL;
	}
	req = genl_msg(&g, buf, PFCWD_CMD_PORT_SET, NLM_F_ACK);
	mnl_attr_put_u32(req, PFCWD_A_PORT_IFINDEX, ifindex);
	if (has_enabled)
		mnl_attr_put_u8(req, PFCWD_A_PORT_ENABLED, enabled);
	if (has_detect)
		mnl_attr_put_u32(req, PFCWD_A_PORT_DETECT_MS, detect);
	if (has_restore)
		mnl_attr_put_u32(req, PFCWD_A_PORT_RESTORE_MS, restore);
	if (has_warn)
		mnl_attr_put_u32(req, PFCWD_A_PORT_WARN_MS, warn);
	if (has_backoff)
		mnl_attr_put_u8(req, PFCWD_A_PORT_BACKOFF, backoff);
	if (has_rate_rx)
		mnl_attr_put_u32(req, PFCWD_A_PORT_RATE_RX, rate_rx);
	if (has_rate_tx)
		mnl_attr_put_u32(req, PFCWD_A_PORT_RATE_TX, rate_tx);
	if (has_rate_window)
		mnl_attr_put_u32(req, PFCWD_A_PORT_RATE_WINDOW_MS, rate_window);
	if (has_action)
		mnl_attr_put_u32(req, PFCWD_A_PORT_ACTION, action);
	if (has_prios)
		mnl_attr_put_u8(req, PFCWD_A_PORT_PRIOS, prios);
	if (has_limit)
		mnl_attr_put_u32(req, PFCWD_A_PORT_STORM_LIMIT, limit);
	if (has_dev_action)
		mnl_attr_put_u32(req, PFCWD_A_PORT_DEVICE_ACTION, dev_action);
	prio_policy_put(req, &pp);
	snprintf(what, sizeof(what), "set dev %s", dev);
	ret = run(&g, req, what);
	genl_close(&g);
	return ret;
}

int cmd_restore(int argc, char **argv)
{
	char buf[GENL_BUF_SIZE], what[64];
	unsigned int ifindex = 0;
	const char *dev = NULL;
	bool has_prios = false;
	struct nlmsghdr *req;
	uint8_t prios = 0;
	struct genl g;
	int ret;

	for (; argc > 0; argc--, argv++) {
		if (matches(*argv, "dev")) {
			dev = next_arg(&argc, &argv, "dev");
			ifindex = dev_index(dev);
		} else if (matches(*argv, "prio")) {
			prios = arg_prios(&argc, &argv, "prio");
			has_prios = true;
		} else if (matches(*argv, "help")) {
			usage_restore(stdout);
			exit(EXIT_OK);
		} else {
			usage_error("restore: unknown argument \"%s\"", *argv);
		}
	}
	need_dev(dev, "restore");
	if (!has_prios)
		usage_error("restore: \"prio LIST\" is required");
	if (genl_open(&g)) {
		genl_close(&g);
		return EXIT_FAIL;
	}
	req = genl_msg(&g, buf, PFCWD_CMD_PRIO_RESTORE, NLM_F_ACK);
	mnl_attr_put_u32(req, PFCWD_A_PORT_IFINDEX, ifindex);
	mnl_attr_put_u8(req, PFCWD_A_PORT_PRIOS, prios);
	snprintf(what, sizeof(what), "restore dev %s", dev);
	ret = run(&g, req, what);
	genl_close(&g);
	return ret;
}
