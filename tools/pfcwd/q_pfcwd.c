// SPDX-License-Identifier: GPL-2.0
/*
 * q_pfcwd.so - tc plugin for the pfcwd qdisc.
 *
 *   tc qdisc add dev DEV root pfcwd [ detect MS ] [ restore MS ]
 *	[ action drop|forward|alert ] [ lossless PRIO[,PRIO...]|none ]
 *	[ limit PACKETS ] [ warn MS ] [ backoff on|off ]
 *	[ rate-rx PPS ] [ rate-tx PPS ] [ rate-window MS ]
 *   tc [-j] qdisc show dev DEV       options
 *   tc [-j] -s qdisc show dev DEV    options and per-priority xstats
 *
 * tc finds this file as $TC_LIB_DIR/q_pfcwd.so (Debian's default directory:
 * /usr/lib/x86_64-linux-gnu/tc) and the descriptor "pfcwd_qdisc_util" in it.
 * The descriptor's layout and the helpers called back in tc are declared
 * in tc_iproute2.h, which says which iproute2 it matches and how that was
 * established; at load the plugin checks tc against it (pfcwd_check_tc()).
 * Options become TCA_PFCWD_* attributes nested in
 * TCA_OPTIONS (include/uapi/linux/pfcwd.h); the kernel checks them again.
 *
 * Plain output: the options as they are typed ("detect 200ms"; warn and
 * backoff only when on); xstats one line per priority.  JSON (tc -j): in
 * "options", keys limit, detect_ms, restore_ms, action, lossless (array
 * of priorities), warn_ms (0: off) and backoff (a boolean); with -s, an
 * array "prios" of objects with keys prio, state, lossless, paused,
 * detected, restored, tx_dropped, rx_dropped, tx_forwarded.
 *
 * Single-threaded, called by tc only; no state kept between calls.
 */
#include <errno.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <stdlib.h>
#include <string.h>
#include <uapi/linux/pfcwd.h>

#include "../../pfcwd/prio_list.h"
#include "tc_iproute2.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* Room we allow ourselves in tc's request buffer (it has 64 KiB). */
#define PFCWD_TC_MAXLEN	1024

static const char * const pfcwd_action_names[] = {
	[PFCWD_ACTION_DROP] = "drop",
	[PFCWD_ACTION_FORWARD] = "forward",
	[PFCWD_ACTION_ALERT] = "alert",
};

static const char * const pfcwd_state_names[] = {
	[PFCWD_PRIO_STATE_OPERATIONAL] = "operational",
	[PFCWD_PRIO_STATE_STORMED] = "stormed",
	[PFCWD_PRIO_STATE_LATCHED] = "latched",
};

static void pfcwd_usage(void)
{
	fprintf(stderr,
		"Usage: ... pfcwd [ detect MS ] [ restore MS ] [ action drop|forward|alert ]\n"
		"                 [ lossless PRIO[,PRIO...]|none ] [ limit PACKETS ] [ warn MS ]\n"
		"                 [ backoff on|off ]\n"
		"                 [ rate-rx PPS ] [ rate-tx PPS ] [ rate-window MS ]\n"
		"  detect   T0: a priority paused this long is stormed, 1-60000 ms\n"
		"  restore  T1: restored after this long without pause, 1-60000 ms\n"
		"  warn     a storm warning after this long paused, below T0; 0: off\n"
		"  backoff  on: each storm in a run waits twice as long to be restored\n"
		"  action   what a storm does to the priority (drop, forward, alert)\n"
		"  lossless the watched priorities 0-7, e.g. 3,4 or 0-2,5; none: no priority\n"
		"  limit    packets per band, 1-%u\n"
		"detect, restore, action, lossless, warn and backoff configure the device's watchdog\n"
		"(the values of /sys/class/net/DEV/pfcwd/); limit is the qdisc's own.\n"
		"This plugin was built for %s.\n",
		PFCWD_LIMIT_MAX, TC_IPROUTE2_BUILT_FOR);
}

/* Parses a decimal number in [min, max], with an optional unit suffix. */
static int pfcwd_parse_uint(const char *s, const char *suffix,
			    unsigned long min, unsigned long max,
			    unsigned int *out)
{
	unsigned long v;
	char *end;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno)
		return -EINVAL;
	if (*end && !(suffix && !strcmp(end, suffix)))
		return -EINVAL;
	if (v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

static int pfcwd_parse_action(const char *s, unsigned int *out)
{
	unsigned int i;

	for (i = 0; i < PFCWD_ACTION_MAX + 1; i++) {
		if (!strcmp(s, pfcwd_action_names[i])) {
			*out = i;
			return 0;
		}
	}
	return -EINVAL;
}

static int pfcwd_parse_lossless(const char *s, unsigned int *out)
{
	__u8 mask;

	if (!strcmp(s, "none")) {
		*out = 0;
		return 0;
	}
	/* The kernel's own grammar; but no empty list, no newline here. */
	if (!*s || strchr(s, '\n') ||
	    pfcwd_prio_list_parse(s, strlen(s), &mask))
		return -EINVAL;
	*out = mask;
	return 0;
}

/* One option: its keyword, attribute, how to parse it, what to say. */
struct pfcwd_opt {
	const char *name;
	int type;
	int size;		/* attribute payload: 4 (u32) or 1 (u8) */
	int (*parse)(const struct pfcwd_opt *o, const char *s,
		     unsigned int *out);
	const char *want;	/* for errors: what a good value is */
};

static int pfcwd_parse_ms(const struct pfcwd_opt *o, const char *s,
			  unsigned int *out)
{
	(void)o;
	return pfcwd_parse_uint(s, "ms", PFCWD_TIME_MS_MIN, PFCWD_TIME_MS_MAX,
				out);
}

/* The warning time: 0 (off) too; below T0 is the kernel's to check. */
static int pfcwd_parse_warn(const struct pfcwd_opt *o, const char *s,
			    unsigned int *out)
{
	(void)o;
	return pfcwd_parse_uint(s, "ms", 0, PFCWD_WARN_MS_MAX, out);
}

static int pfcwd_parse_backoff(const struct pfcwd_opt *o, const char *s,
			       unsigned int *out)
{
	(void)o;
	if (strcmp(s, "on") && strcmp(s, "off"))
		return -EINVAL;
	*out = !strcmp(s, "on");
	return 0;
}

/* A pause-rate threshold, frames/s: 0 (off) too. */
static int pfcwd_parse_rate(const struct pfcwd_opt *o, const char *s,
			    unsigned int *out)
{
	(void)o;
	return pfcwd_parse_uint(s, NULL, 0, PFCWD_RATE_PPS_MAX, out);
}

static int pfcwd_parse_rate_window(const struct pfcwd_opt *o, const char *s,
				   unsigned int *out)
{
	(void)o;
	return pfcwd_parse_uint(s, "ms", PFCWD_RATE_WINDOW_MS_MIN,
				PFCWD_RATE_WINDOW_MS_MAX, out);
}

static int pfcwd_parse_limit(const struct pfcwd_opt *o, const char *s,
			     unsigned int *out)
{
	(void)o;
	return pfcwd_parse_uint(s, NULL, 1, PFCWD_LIMIT_MAX, out);
}

static int pfcwd_parse_act(const struct pfcwd_opt *o, const char *s,
			   unsigned int *out)
{
	(void)o;
	return pfcwd_parse_action(s, out);
}

static int pfcwd_parse_prios(const struct pfcwd_opt *o, const char *s,
			     unsigned int *out)
{
	(void)o;
	return pfcwd_parse_lossless(s, out);
}

static const struct pfcwd_opt pfcwd_opts[] = {
	{ "detect", TCA_PFCWD_DETECT, 4, pfcwd_parse_ms,
	  "milliseconds, 1-60000" },
	{ "restore", TCA_PFCWD_RESTORE, 4, pfcwd_parse_ms,
	  "milliseconds, 1-60000" },
	{ "action", TCA_PFCWD_ACTION, 4, pfcwd_parse_act,
	  "drop, forward or alert" },
	{ "lossless", TCA_PFCWD_LOSSLESS, 1, pfcwd_parse_prios,
	  "priorities 0-7 such as 3,4 or 0-2,5 (each once), or none" },
	{ "limit", TCA_PFCWD_LIMIT, 4, pfcwd_parse_limit,
	  "packets per band, 1-1048576" },
	{ "warn", TCA_PFCWD_WARN, 4, pfcwd_parse_warn,
	  "milliseconds, 0 (off) or 1-59999, below detect" },
	{ "backoff", TCA_PFCWD_BACKOFF, 1, pfcwd_parse_backoff, "on or off" },
	{ "rate-rx", TCA_PFCWD_RATE_RX, 4, pfcwd_parse_rate,
	  "pause frames received per second, 0 (off) to 100000000" },
	{ "rate-tx", TCA_PFCWD_RATE_TX, 4, pfcwd_parse_rate,
	  "pause frames sent per second, 0 (off) to 100000000" },
	{ "rate-window", TCA_PFCWD_RATE_WINDOW, 4, pfcwd_parse_rate_window,
	  "milliseconds, 100-3600000" },
};

#define PFCWD_NOPTS	ARRAY_SIZE(pfcwd_opts)

static int pfcwd_parse_qopt(struct tc_qdisc_plugin *qp, int argc, char **argv,
			    struct nlmsghdr *n, const char *dev)
{
	unsigned int val[PFCWD_NOPTS], i, ngiven = 0;
	bool given[PFCWD_NOPTS] = { false };
	struct rtattr *nest;
	int err;

	(void)qp;
	(void)dev;
	for (; argc > 0; argc--, argv++) {
		const struct pfcwd_opt *o = NULL;

		if (!strcmp(*argv, "help")) {
			pfcwd_usage();
			return -1;
		}
		for (i = 0; i < PFCWD_NOPTS; i++) {
			if (!strcmp(*argv, pfcwd_opts[i].name)) {
				o = &pfcwd_opts[i];
				break;
			}
		}
		if (!o) {
			fprintf(stderr, "pfcwd: unknown option \"%s\"\n", *argv);
			pfcwd_usage();
			return -1;
		}
		if (given[i]) {
			fprintf(stderr, "pfcwd: option \"%s\" given twice\n",
				o->name);
			return -1;
		}
		if (argc < 2) {
			fprintf(stderr, "pfcwd: option \"%s\" needs a value: %s\n",
				o->name, o->want);
			return -1;
		}
		argc--;
		argv++;
		err = o->parse(o, *argv, &val[i]);
		if (err) {
			fprintf(stderr, "pfcwd: bad %s \"%s\"%s: want %s\n",
				o->name, *argv,
				err == -ERANGE ? " (out of range)" : "",
				o->want);
			return -1;
		}
		given[i] = true;
		ngiven++;
	}

	if (!ngiven)
		return 0;	/* no options: the kernel's defaults */

	if (!addattr_l || !addattr_nest || !addattr_nest_end) {
		fprintf(stderr,
			"pfcwd: this tc lacks addattr_l/addattr_nest: cannot send options\n");
		return -1;
	}
	nest = addattr_nest(n, PFCWD_TC_MAXLEN, TCA_OPTIONS | NLA_F_NESTED);
	if (!nest)
		return -1;
	for (i = 0; i < PFCWD_NOPTS; i++) {
		__u32 v32 = val[i];
		__u8 v8 = val[i];

		if (!given[i])
			continue;
		if (pfcwd_opts[i].size == 1)
			err = addattr_l(n, PFCWD_TC_MAXLEN, pfcwd_opts[i].type,
					&v8, 1);
		else
			err = addattr_l(n, PFCWD_TC_MAXLEN, pfcwd_opts[i].type,
					&v32, 4);
		if (err)
			return -1;
	}
	addattr_nest_end(n, nest);
	return 0;
}

/* --- printing ------------------------------------------------------------ */

static bool pfcwd_json(void)
{
	return is_json_context && print_color_uint && is_json_context();
}

static void pfcwd_nl(void)
{
	if (print_nl)
		print_nl();
	else
		putchar('\n');
}

/* A plain-text fragment (never in JSON). */
static void pfcwd_plain(const char *fmt, const char *s)
{
	if (print_color_string)
		print_color_string(TC_OUT_PLAIN, TC_COLOR_NONE, NULL, fmt, s);
	else
		printf(fmt, s);
}

static void pfcwd_uint(const char *key, const char *fmt, unsigned int v)
{
	if (print_color_uint)
		print_color_uint(TC_OUT_ANY, TC_COLOR_NONE, key, fmt, v);
	else
		printf(fmt, v);
}

static void pfcwd_u64(const char *key, const char *fmt, __u64 v)
{
	if (print_color_u64)
		print_color_u64(TC_OUT_ANY, TC_COLOR_NONE, key, fmt, v);
	else
		printf(fmt, (unsigned long long)v);
}

static void pfcwd_string(const char *key, const char *fmt, const char *s)
{
	if (print_color_string)
		print_color_string(TC_OUT_ANY, TC_COLOR_NONE, key, fmt, s);
	else
		printf(fmt, s);
}

/* A flag: "word " in plain text when set; key: true/false in JSON. */
static void pfcwd_flag(const char *key, const char *word, bool on)
{
	if (pfcwd_json()) {
		if (print_color_bool)
			print_color_bool(TC_OUT_JSON, TC_COLOR_NONE, key, NULL, on);
		return;
	}
	if (on)
		pfcwd_plain("%s ", word);
}

/* Reads the u32 (or u8) payload of @rta into @v; false if malformed. */
static bool pfcwd_rta_uint(const struct rtattr *rta, int size,
			   unsigned int *v)
{
	__u32 v32;
	__u8 v8;

	if (RTA_PAYLOAD(rta) != (unsigned int)size)
		return false;
	if (size == 1) {
		memcpy(&v8, RTA_DATA(rta), 1);
		*v = v8;
	} else {
		memcpy(&v32, RTA_DATA(rta), 4);
		*v = v32;
	}
	return true;
}

static void pfcwd_print_lossless(unsigned int mask)
{
	char list[PFCWD_PRIO_LIST_LEN];
	int p;

	if (pfcwd_json()) {
		if (!open_json_array || !close_json_array)
			return;
		open_json_array(TC_OUT_JSON, "lossless");
		for (p = 0; p < PFCWD_NUM_PRIO; p++)
			if (mask & (1U << p))
				print_color_uint(TC_OUT_JSON, TC_COLOR_NONE,
						 NULL, "%u", p);
		close_json_array(TC_OUT_JSON, NULL);
		return;
	}
	pfcwd_prio_list_format(mask, list, sizeof(list));
	pfcwd_plain("lossless %s ", mask ? list : "none");
}

static int pfcwd_print_qopt(struct tc_qdisc_plugin *qp, FILE *f,
			    struct rtattr *opt)
{
	unsigned int val[TCA_PFCWD_MAX + 1];
	bool have[TCA_PFCWD_MAX + 1] = { false };
	struct rtattr *rta;
	unsigned int i;
	bool rate_on;
	int len;

	(void)qp;
	(void)f;
	if (!opt)
		return 0;
	len = RTA_PAYLOAD(opt);
	for (rta = RTA_DATA(opt); RTA_OK(rta, len); rta = RTA_NEXT(rta, len)) {
		int type = rta->rta_type & NLA_TYPE_MASK;

		for (i = 0; i < PFCWD_NOPTS; i++) {
			if (pfcwd_opts[i].type != type)
				continue;
			have[type] = pfcwd_rta_uint(rta, pfcwd_opts[i].size,
						    &val[type]);
			if (!have[type])
				fprintf(stderr, "pfcwd: malformed %s attribute in the dump\n",
					pfcwd_opts[i].name);
		}
	}

	if (have[TCA_PFCWD_LIMIT])
		pfcwd_uint("limit", "limit %u ", val[TCA_PFCWD_LIMIT]);
	if (have[TCA_PFCWD_DETECT])
		pfcwd_uint("detect_ms", "detect %ums ", val[TCA_PFCWD_DETECT]);
	if (have[TCA_PFCWD_RESTORE])
		pfcwd_uint("restore_ms", "restore %ums ",
			   val[TCA_PFCWD_RESTORE]);
	if (have[TCA_PFCWD_ACTION]) {
		unsigned int a = val[TCA_PFCWD_ACTION];

		if (a <= PFCWD_ACTION_MAX)
			pfcwd_string("action", "action %s ",
				     pfcwd_action_names[a]);
		else
			pfcwd_uint("action", "action %u ", a);
	}
	if (have[TCA_PFCWD_LOSSLESS])
		pfcwd_print_lossless(val[TCA_PFCWD_LOSSLESS]);
	/* Off is the default: in JSON always, in plain text when on. */
	if (have[TCA_PFCWD_WARN] && (val[TCA_PFCWD_WARN] || pfcwd_json()))
		pfcwd_uint("warn_ms", "warn %ums ", val[TCA_PFCWD_WARN]);
	if (have[TCA_PFCWD_BACKOFF])
		pfcwd_flag("backoff", "backoff on", val[TCA_PFCWD_BACKOFF]);
	/* Pause rate: in JSON always, in plain text when a direction is on. */
	rate_on = (have[TCA_PFCWD_RATE_RX] && val[TCA_PFCWD_RATE_RX]) ||
		  (have[TCA_PFCWD_RATE_TX] && val[TCA_PFCWD_RATE_TX]);
	if (rate_on || pfcwd_json()) {
		if (have[TCA_PFCWD_RATE_RX])
			pfcwd_uint("rate_rx", "rate-rx %u ",
				   val[TCA_PFCWD_RATE_RX]);
		if (have[TCA_PFCWD_RATE_TX])
			pfcwd_uint("rate_tx", "rate-tx %u ",
				   val[TCA_PFCWD_RATE_TX]);
		if (have[TCA_PFCWD_RATE_WINDOW])
			pfcwd_uint("rate_window_ms", "rate-window %ums ",
				   val[TCA_PFCWD_RATE_WINDOW]);
	}
	return 0;
}

static void pfcwd_print_prio(unsigned int p,
			     const struct tc_pfcwd_prio_xstats *x)
{
	pfcwd_uint("prio", "  prio %u ", p);
	if (x->state < ARRAY_SIZE(pfcwd_state_names))
		pfcwd_string("state", "%s ", pfcwd_state_names[x->state]);
	else
		pfcwd_uint("state", "state %u ", x->state);
	pfcwd_flag("lossless", "lossless", x->flags & TC_PFCWD_PRIO_WATCHED);
	pfcwd_flag("paused", "paused", x->flags & TC_PFCWD_PRIO_PAUSED);
	pfcwd_u64("detected", "detected %llu ", x->detected);
	pfcwd_u64("restored", "restored %llu ", x->restored);
	pfcwd_u64("tx_dropped", "tx_dropped %llu ", x->tx_dropped);
	pfcwd_u64("rx_dropped", "rx_dropped %llu ", x->rx_dropped);
	pfcwd_u64("tx_forwarded", "tx_forwarded %llu", x->tx_forwarded);
}

static int pfcwd_print_xstats(struct tc_qdisc_plugin *qp, FILE *f,
			      struct rtattr *xstats)
{
	struct tc_pfcwd_xstats st;
	bool json = pfcwd_json();
	unsigned int p;

	(void)qp;
	(void)f;
	if (!xstats)
		return 0;
	if (RTA_PAYLOAD(xstats) < sizeof(st)) {
		fprintf(stderr, "pfcwd: xstats of %u bytes, want %zu\n",
			(unsigned int)RTA_PAYLOAD(xstats), sizeof(st));
		return -1;
	}
	/* Newer kernels may append fields: the known prefix is used. */
	memcpy(&st, RTA_DATA(xstats), sizeof(st));

	if (json) {
		if (!open_json_array || !close_json_array ||
		    !open_json_object || !close_json_object)
			return 0;
		open_json_array(TC_OUT_JSON, "prios");
	}
	for (p = 0; p < PFCWD_NUM_PRIO; p++) {
		if (json)
			open_json_object(NULL);
		else if (p)
			pfcwd_nl();
		pfcwd_print_prio(p, &st.prio[p]);
		if (json)
			close_json_object();
	}
	if (json)
		close_json_array(TC_OUT_JSON, NULL);
	return 0;
}

/* What tc looks up (dlsym) in this file: "<kind>_qdisc_util". */
struct tc_qdisc_plugin pfcwd_qdisc_util = {
	.kind		= "pfcwd",
	.parse_qopt	= pfcwd_parse_qopt,
	.print_qopt	= pfcwd_print_qopt,
	.print_xstats	= pfcwd_print_xstats,
};

/*
 * At dlopen(), before tc reads our descriptor: a tc whose own prio
 * descriptor does not have its kind where ours has would call our slots as
 * something else.  Then offer nothing but the kind, as if no plugin were
 * installed, and say why once.
 */
__attribute__((constructor)) static void pfcwd_check_tc(void)
{
	const struct tc_qdisc_plugin *prio = &prio_qdisc_util;

	if (prio && prio->kind && !strcmp(prio->kind, "prio") &&
	    prio->parse_qopt && prio->print_qopt)
		return;
	pfcwd_qdisc_util.parse_qopt = NULL;
	pfcwd_qdisc_util.print_qopt = NULL;
	pfcwd_qdisc_util.print_xstats = NULL;
	fprintf(stderr,
		"pfcwd: q_pfcwd.so was built for %s; this tc lays out its qdisc descriptors otherwise: pfcwd options are not parsed or printed\n",
		TC_IPROUTE2_BUILT_FOR);
}
