// SPDX-License-Identifier: GPL-2.0
/*
 * pfcwd(8): "history" - per priority, the time paused and the pause
 * episodes (total, and over the last completed interval), and the last
 * storms: one history-get dump (all ports, dev DEV, or prio P on them),
 * collected before printing and taken again (up to three times) if the
 * kernel marks it inconsistent.  A table, or JSON with -j.
 *
 * Single-threaded; no locking.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <libmnl/libmnl.h>
#include <linux/genetlink.h>

#include "cli.h"

#define DUMP_TRIES	3
#define HIST_ATTRS	(PFCWD_A_HIST_MAX + 1)
#define STORM_ATTRS	(PFCWD_A_STORM_MAX + 1)

struct storm_info {
	uint64_t have;
	uint64_t v[STORM_ATTRS];
};

struct hist_info {
	unsigned int ifindex;
	char ifname[IF_NAMESIZE];
	uint64_t have;
	uint64_t v[HIST_ATTRS];
	unsigned int n;
	struct storm_info storm[PFCWD_HIST_STORMS_MAX];
};

struct hist_list {
	struct hist_info *v;
	size_t n, cap;
};

/* Numbers of any width; nests and strings are taken apart by the caller. */
static uint64_t attr_num(const struct nlattr *a)
{
	switch (mnl_attr_get_payload_len(a)) {
	case 1:
		return mnl_attr_get_u8(a);
	case 2:
		return mnl_attr_get_u16(a);
	case 4:
		return mnl_attr_get_u32(a);
	case 8:
		return mnl_attr_get_u64(a);
	}
	return 0;
}

static int storm_parse(const struct nlattr *nest, struct storm_info *s)
{
	const struct nlattr *a;

	memset(s, 0, sizeof(*s));
	mnl_attr_for_each_nested(a, nest) {
		uint16_t t = mnl_attr_get_type(a);

		if (t >= STORM_ATTRS || t == PFCWD_A_STORM_PAD)
			continue;
		s->v[t] = attr_num(a);
		s->have |= 1ULL << t;
	}
	return 0;
}

static int hist_parse_nest(const struct nlattr *nest, struct hist_info *h)
{
	const struct nlattr *a;

	mnl_attr_for_each_nested(a, nest) {
		uint16_t t = mnl_attr_get_type(a);

		if (t == PFCWD_A_HIST_STORM) {
			if (h->n >= PFCWD_HIST_STORMS_MAX)
				return -EPROTO;
			storm_parse(a, &h->storm[h->n++]);
			continue;
		}
		if (t >= HIST_ATTRS || t == PFCWD_A_HIST_PAD)
			continue;
		h->v[t] = attr_num(a);
		h->have |= 1ULL << t;
	}
	return 0;
}

static int hist_cb(const struct nlmsghdr *nlh, void *data)
{
	struct hist_list *l = data;
	const struct nlattr *a;
	struct hist_info *h;
	bool nest = false;

	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 64;
		struct hist_info *v = realloc(l->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		l->v = v;
		l->cap = cap;
	}
	h = &l->v[l->n];
	memset(h, 0, sizeof(*h));
	mnl_attr_for_each(a, nlh, sizeof(struct genlmsghdr)) {
		switch (mnl_attr_get_type(a)) {
		case PFCWD_A_PORT_IFINDEX:
			h->ifindex = mnl_attr_get_u32(a);
			break;
		case PFCWD_A_PORT_IFNAME:
			snprintf(h->ifname, sizeof(h->ifname), "%s",
				 mnl_attr_get_str(a));
			break;
		case PFCWD_A_PORT_HISTORY:
			if (hist_parse_nest(a, h))
				goto bad;
			nest = true;
			break;
		}
	}
	if (!nest || !has(h->have, PFCWD_A_HIST_PRIO))
		goto bad;
	l->n++;
	return 0;
bad:
	fprintf(stderr, "pfcwd: malformed history from the kernel\n");
	return -EPROTO;
}

static int get_history(struct genl *g, const char *dev, int prio,
		       struct hist_list *l)
{
	char buf[GENL_BUF_SIZE], what[64];
	struct nlmsghdr *req;
	bool intr = false;
	int tries, err;

	for (tries = 0; tries < DUMP_TRIES; tries++) {
		l->n = 0;
		intr = false;
		req = genl_msg(g, buf, PFCWD_CMD_HISTORY_GET, NLM_F_DUMP);
		if (dev)
			mnl_attr_put_strz(req, PFCWD_A_PORT_IFNAME, dev);
		if (prio >= 0)
			mnl_attr_put_u8(req, PFCWD_A_PORT_HISTORY_PRIO, prio);
		err = genl_run(g, req, hist_cb, l, &intr);
		if (err) {
			if (dev)
				snprintf(what, sizeof(what), "history of dev %s",
					 dev);
			else
				snprintf(what, sizeof(what), "history dump");
			genl_perror(g, what);
			return err;
		}
		if (!intr)
			return 0;
	}
	fprintf(stderr, "pfcwd: ports kept changing during the dump; it may be inconsistent\n");
	return 0;
}

static const char *end_name(uint64_t end)
{
	static const char *const names[] = {
		[PFCWD_STORM_END_ONGOING] = "ongoing",
		[PFCWD_STORM_END_RESTORED] = "restored",
		[PFCWD_STORM_END_BY_HAND] = "by-hand",
		[PFCWD_STORM_END_DISABLED] = "disabled",
		[PFCWD_STORM_END_UNWATCHED] = "unwatched",
		[PFCWD_STORM_END_NETNS] = "netns",
		[PFCWD_STORM_END_REMOVED] = "removed",
		[PFCWD_STORM_END_REPLACED] = "replaced",
	};

	return end < ARRAY_SIZE(names) ? names[end] : "unknown";
}

/* Paused time over the interval, x1000 of a percent: 12.5% -> 12500. */
static uint64_t last_percent_x1000(const struct hist_info *h)
{
	uint64_t win = h->v[PFCWD_A_HIST_INTERVAL_MS] * 1000000ULL;

	if (!win)
		return 0;
	return h->v[PFCWD_A_HIST_LAST_PAUSED_NS] * 100000ULL / win;
}

/* A wall-clock time in ns: local "YYYY-MM-DD HH:MM:SS.mmm", or ISO UTC. */
static void fmt_real(char *buf, size_t size, uint64_t ns, bool iso)
{
	time_t sec = (time_t)(ns / 1000000000ULL);
	struct tm tm;
	char s[32];

	if (iso)
		gmtime_r(&sec, &tm);
	else
		localtime_r(&sec, &tm);
	strftime(s, sizeof(s), iso ? "%Y-%m-%dT%H:%M:%S" : "%Y-%m-%d %H:%M:%S",
		 &tm);
	if (iso)
		snprintf(buf, size, "%s.%06lluZ", s,
			 (unsigned long long)(ns % 1000000000ULL / 1000));
	else
		snprintf(buf, size, "%s.%03llu", s,
			 (unsigned long long)(ns % 1000000000ULL / 1000000));
}

static void storm_end_text(const struct storm_info *s, char *buf, size_t size)
{
	uint64_t end = s->v[PFCWD_A_STORM_END], latch = s->v[PFCWD_A_STORM_LATCH];

	if (end == PFCWD_STORM_END_ONGOING && latch)
		snprintf(buf, size, "latched (%s)", latch_name(latch));
	else if (latch)
		snprintf(buf, size, "%s (latched: %s)", end_name(end),
			 latch_name(latch));
	else
		snprintf(buf, size, "%s", end_name(end));
}

#define STORM_COLS	9

static void hist_human(const struct hist_info *h)
{
	static const char *const heads[STORM_COLS] = {
		"START", "DETECT", "DURATION", "ACTION", "TX-DROP", "RX-DROP",
		"FORWARDED", "KIND", "END",
	};
	char tot[32], last[32], pct[32], c[STORM_COLS][48];
	const char *row[STORM_COLS];
	struct table *t;
	unsigned int i, j;

	fmt_us(tot, sizeof(tot), h->v[PFCWD_A_HIST_PAUSED_NS] / 1000);
	fmt_us(last, sizeof(last), h->v[PFCWD_A_HIST_LAST_PAUSED_NS] / 1000);
	fmt_milli(pct, sizeof(pct), last_percent_x1000(h));
	printf("dev %s prio %llu%s: paused %s, %llu episodes%s; ",
	       h->ifname, (unsigned long long)h->v[PFCWD_A_HIST_PRIO],
	       h->v[PFCWD_A_HIST_WATCHED] ? "" : " (not watched)", tot,
	       (unsigned long long)h->v[PFCWD_A_HIST_EPISODES],
	       h->v[PFCWD_A_HIST_PAUSED] ? ", paused now" : "");
	printf("last %llu s: paused %s (%s%%), %llu episodes (%s); storms %llu\n",
	       (unsigned long long)h->v[PFCWD_A_HIST_INTERVAL_MS] / 1000, last,
	       pct, (unsigned long long)h->v[PFCWD_A_HIST_LAST_EPISODES],
	       h->v[PFCWD_A_HIST_EXACT] ? "exact" : "estimated",
	       (unsigned long long)h->v[PFCWD_A_HIST_STORMS]);
	if (!h->n)
		return;
	t = table_new(STORM_COLS, heads, "lrrlrrrll");
	for (i = 0; i < h->n; i++) {
		const struct storm_info *s = &h->storm[i];

		fmt_real(c[0], sizeof(c[0]), s->v[PFCWD_A_STORM_START_NS], false);
		fmt_us(c[1], sizeof(c[1]), s->v[PFCWD_A_STORM_DETECT_US]);
		fmt_us(c[2], sizeof(c[2]), s->v[PFCWD_A_STORM_DURATION_US]);
		snprintf(c[3], sizeof(c[3]), "%s",
			 action_name(s->v[PFCWD_A_STORM_ACTION]));
		snprintf(c[4], sizeof(c[4]), "%llu",
			 (unsigned long long)s->v[PFCWD_A_STORM_TX_DROPPED]);
		snprintf(c[5], sizeof(c[5]), "%llu",
			 (unsigned long long)s->v[PFCWD_A_STORM_RX_DROPPED]);
		snprintf(c[6], sizeof(c[6]), "%llu",
			 (unsigned long long)s->v[PFCWD_A_STORM_TX_FORWARDED]);
		snprintf(c[7], sizeof(c[7]), "%s",
			 s->v[PFCWD_A_STORM_TX] ? "tx" : "rx");
		storm_end_text(s, c[8], sizeof(c[8]));
		for (j = 0; j < STORM_COLS; j++)
			row[j] = c[j];
		table_add(t, row);
	}
	table_print(t, stdout, "  ");
	table_free(t);
}

static void hist_json(const struct hist_info *h)
{
	char b[48];
	unsigned int i;

	jw_obj_open(NULL);
	jw_str("ifname", h->ifname);
	jw_u64("ifindex", h->ifindex);
	jw_u64("prio", h->v[PFCWD_A_HIST_PRIO]);
	jw_bool("watched", h->v[PFCWD_A_HIST_WATCHED]);
	jw_bool("exact", h->v[PFCWD_A_HIST_EXACT]);
	jw_bool("paused", h->v[PFCWD_A_HIST_PAUSED]);
	jw_u64("paused_ns", h->v[PFCWD_A_HIST_PAUSED_NS]);
	jw_u64("episodes", h->v[PFCWD_A_HIST_EPISODES]);
	jw_u64("interval_ms", h->v[PFCWD_A_HIST_INTERVAL_MS]);
	jw_u64("last_paused_ns", h->v[PFCWD_A_HIST_LAST_PAUSED_NS]);
	jw_u64("last_episodes", h->v[PFCWD_A_HIST_LAST_EPISODES]);
	jw_fixed("last_paused_pct", last_percent_x1000(h));
	jw_u64("storms_total", h->v[PFCWD_A_HIST_STORMS]);
	jw_arr_open("storms");
	for (i = 0; i < h->n; i++) {
		const struct storm_info *s = &h->storm[i];

		jw_obj_open(NULL);
		fmt_real(b, sizeof(b), s->v[PFCWD_A_STORM_START_NS], true);
		jw_str("start", b);
		jw_u64("start_ns", s->v[PFCWD_A_STORM_START_NS]);
		jw_u64("start_mono_ns", s->v[PFCWD_A_STORM_START_MONO_NS]);
		jw_u64("detect_us", s->v[PFCWD_A_STORM_DETECT_US]);
		jw_u64("duration_us", s->v[PFCWD_A_STORM_DURATION_US]);
		jw_bool("ongoing",
			s->v[PFCWD_A_STORM_END] == PFCWD_STORM_END_ONGOING);
		jw_str("action", action_name(s->v[PFCWD_A_STORM_ACTION]));
		jw_str("kind", s->v[PFCWD_A_STORM_TX] ? "tx" : "rx");
		jw_str("latch", latch_name(s->v[PFCWD_A_STORM_LATCH]));
		jw_str("end", end_name(s->v[PFCWD_A_STORM_END]));
		jw_u64("tx_dropped", s->v[PFCWD_A_STORM_TX_DROPPED]);
		jw_u64("rx_dropped", s->v[PFCWD_A_STORM_RX_DROPPED]);
		jw_u64("tx_forwarded", s->v[PFCWD_A_STORM_TX_FORWARDED]);
		jw_obj_close();
	}
	jw_arr_close();
	jw_obj_close();
}

void usage_history(FILE *f)
{
	fprintf(f, "Usage: pfcwd history [ dev DEV ] [ prio PRIO ]\n");
}

int cmd_history(int argc, char **argv)
{
	struct hist_list l = { 0 };
	const char *dev = NULL;
	int prio = -1, ret = EXIT_FAIL;
	struct genl g;
	uint32_t v;
	size_t i;

	for (; argc > 0; argc--, argv++) {
		if (matches(*argv, "dev")) {
			dev = next_arg(&argc, &argv, "dev");
			if (!*dev || strlen(dev) >= IF_NAMESIZE)
				usage_error("bad device name \"%s\"", dev);
		} else if (matches(*argv, "prio")) {
			const char *s = next_arg(&argc, &argv, "prio");

			if (parse_u32(s, &v) || v >= PFCWD_NUM_PRIO)
				usage_error("history: bad prio \"%s\" (0-7)", s);
			prio = (int)v;
		} else if (matches(*argv, "help")) {
			usage_history(stdout);
			exit(EXIT_OK);
		} else {
			usage_error("history: unknown argument \"%s\"", *argv);
		}
	}
	if (genl_open(&g))
		goto out;
	if (get_history(&g, dev, prio, &l))
		goto out;
	if (cli.json) {
		jw_init(stdout, cli.pretty);
		jw_arr_open(NULL);
		for (i = 0; i < l.n; i++)
			hist_json(&l.v[i]);
		jw_arr_close();
	} else {
		for (i = 0; i < l.n; i++)
			/* Unwatched priorities with nothing: left out. */
			if (prio >= 0 || l.v[i].v[PFCWD_A_HIST_WATCHED] ||
			    l.v[i].n || l.v[i].v[PFCWD_A_HIST_EPISODES])
				hist_human(&l.v[i]);
	}
	ret = fflush(stdout) ? EXIT_FAIL : EXIT_OK;
out:
	genl_close(&g);
	free(l.v);
	return ret;
}
