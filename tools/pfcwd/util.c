// SPDX-License-Identifier: GPL-2.0
/*
 * pfcwd(8): argument parsing and formatting helpers.  Single-threaded; no
 * locking.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <net/if.h>

#include "cli.h"
#include "../../pfcwd/prio_list.h"

/* True if @arg is a non-empty prefix of @keyword (iproute2 style). */
bool matches(const char *arg, const char *keyword)
{
	size_t n = strlen(arg);

	return n && n <= strlen(keyword) && !strncmp(arg, keyword, n);
}

void usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs("pfcwd: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\nTry \"pfcwd help\".\n", stderr);
	exit(EXIT_USAGE);
}

/* Moves to the value after @keyword; a usage error if there is none. */
const char *next_arg(int *argc, char ***argv, const char *keyword)
{
	if (*argc < 2)
		usage_error("\"%s\" needs a value", keyword);
	(*argc)--;
	(*argv)++;
	return **argv;
}

/* A decimal number 0..UINT32_MAX: digits only, no sign, no spaces. */
int parse_u32(const char *s, uint32_t *v)
{
	unsigned long long x = 0;
	const char *p;

	if (!*s)
		return -EINVAL;
	for (p = s; *p; p++) {
		if (*p < '0' || *p > '9')
			return -EINVAL;
		x = x * 10 + (unsigned int)(*p - '0');
		if (x > UINT32_MAX)
			return -ERANGE;
	}
	*v = (uint32_t)x;
	return 0;
}

/* Milliseconds: a number, optionally followed by "ms". */
int parse_ms(const char *s, uint32_t *v)
{
	size_t n = strlen(s);
	char buf[16];

	if (n > 2 && !strcmp(s + n - 2, "ms")) {
		if (n - 2 >= sizeof(buf))
			return -ERANGE;
		memcpy(buf, s, n - 2);
		buf[n - 2] = '\0';
		return parse_u32(buf, v);
	}
	return parse_u32(s, v);
}

/* A priority list as sysfs takes it ("3,4", "0-2,5"), or "none". */
int parse_prios(const char *s, uint8_t *mask)
{
	u8 m;

	if (!strcmp(s, "none")) {
		*mask = 0;
		return 0;
	}
	if (!*s || strchr(s, '\n') || pfcwd_prio_list_parse(s, strlen(s), &m))
		return -EINVAL;
	*mask = m;
	return 0;
}

static const char *const actions[] = {
	[PFCWD_ACTION_DROP] = "drop",
	[PFCWD_ACTION_FORWARD] = "forward",
	[PFCWD_ACTION_ALERT] = "alert",
};

int parse_action(const char *s, uint32_t *action)
{
	uint32_t i;

	for (i = 0; i <= PFCWD_ACTION_MAX; i++) {
		if (!strcmp(s, actions[i])) {
			*action = i;
			return 0;
		}
	}
	return -EINVAL;
}

static const char *const device_actions[] = {
	[PFCWD_DEVICE_ACTION_AUTO] = "auto",
	[PFCWD_DEVICE_ACTION_ON] = "on",
	[PFCWD_DEVICE_ACTION_OFF] = "off",
};

int parse_device_action(const char *s, uint32_t *da)
{
	uint32_t i;

	for (i = 0; i <= PFCWD_DEVICE_ACTION_MAX; i++) {
		if (!strcmp(s, device_actions[i])) {
			*da = i;
			return 0;
		}
	}
	return -EINVAL;
}

/* The ifindex of @name in our netns; a usage error if there is none. */
unsigned int dev_index(const char *name)
{
	unsigned int idx;

	if (!*name || strlen(name) >= IF_NAMESIZE)
		usage_error("bad device name \"%s\"", name);
	idx = if_nametoindex(name);
	if (!idx) {
		fprintf(stderr, "pfcwd: cannot find device \"%s\"\n", name);
		exit(EXIT_FAIL);
	}
	return idx;
}

static const char *name_of(const char *const *names, size_t n, uint64_t v)
{
	return v < n && names[v] ? names[v] : "unknown";
}

const char *action_name(uint64_t action)
{
	return name_of(actions, ARRAY_SIZE(actions), action);
}

const char *device_action_name(uint64_t da)
{
	return name_of(device_actions, ARRAY_SIZE(device_actions), da);
}

const char *lever_name(uint64_t lever)
{
	static const char *const names[] = {
		[PFCWD_LEVER_NONE] = "none",
		[PFCWD_LEVER_DATAPATH] = "datapath",
		[PFCWD_LEVER_PFC_EN] = "pfc_en",
	};

	return name_of(names, ARRAY_SIZE(names), lever);
}

/* What a lever reaches, in the words of the kernel's detection log line. */
const char *lever_reach(uint64_t lever)
{
	static const char *const words[] = {
		[PFCWD_LEVER_NONE] = "lever none",
		[PFCWD_LEVER_DATAPATH] = "lever datapath: RDMA stays paused",
		[PFCWD_LEVER_PFC_EN] = "lever pfc_en: RDMA covered",
	};

	return name_of(words, ARRAY_SIZE(words), lever);
}

const char *state_name(uint64_t state)
{
	static const char *const names[] = {
		[PFCWD_PRIO_STATE_OPERATIONAL] = "operational",
		[PFCWD_PRIO_STATE_STORMED] = "stormed",
		[PFCWD_PRIO_STATE_LATCHED] = "latched",
	};

	return name_of(names, ARRAY_SIZE(names), state);
}

const char *latch_name(uint64_t latch)
{
	static const char *const names[] = {
		[PFCWD_LATCH_REASON_NONE] = "none",
		[PFCWD_LATCH_REASON_STORM_LIMIT] = "storm-limit",
		[PFCWD_LATCH_REASON_BLIND] = "blind-counters",
		[PFCWD_LATCH_REASON_TX_STORM] = "tx-storm",
		[PFCWD_LATCH_REASON_NIC_STORM] = "nic-storm",
	};

	return name_of(names, ARRAY_SIZE(names), latch);
}

const char *source_name(uint64_t source)
{
	static const char *const names[] = {
		[PFCWD_SOURCE_NONE] = "none",
		[PFCWD_SOURCE_DCB] = "dcb",
		[PFCWD_SOURCE_PUSH] = "push",
		[PFCWD_SOURCE_SOFTWARE] = "software",
		[PFCWD_SOURCE_TXQ] = "txq",
	};

	return name_of(names, ARRAY_SIZE(names), source);
}

/* "3,4", or "none" for the empty mask. */
void prio_list(uint8_t mask, char *buf, size_t size)
{
	if (!mask)
		snprintf(buf, size, "none");
	else
		pfcwd_prio_list_format(mask, buf, size);
}

uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* A number with three decimals, trailing zeros dropped: 6500 -> "6.5". */
void fmt_milli(char *buf, size_t size, uint64_t v_x1000)
{
	size_t n;

	snprintf(buf, size, "%llu.%03llu", (unsigned long long)(v_x1000 / 1000),
		 (unsigned long long)(v_x1000 % 1000));
	n = strlen(buf);
	while (n && buf[n - 1] == '0')
		buf[--n] = '\0';
	if (n && buf[n - 1] == '.')
		buf[--n] = '\0';
}

/* A duration: "850 us", "201.3 ms", "12.5 s". */
void fmt_us(char *buf, size_t size, uint64_t us)
{
	if (us < 1000)
		snprintf(buf, size, "%llu us", (unsigned long long)us);
	else if (us < 10000000)
		snprintf(buf, size, "%.1f ms", us / 1e3);
	else
		snprintf(buf, size, "%.1f s", us / 1e6);
}

/* How long before @now_ns the CLOCK_MONOTONIC time @then_ns was: "-" if
 * never (0).
 */
void fmt_ago(char *buf, size_t size, uint64_t then_ns, uint64_t now_ns)
{
	char d[32];

	if (!then_ns) {
		snprintf(buf, size, "-");
		return;
	}
	fmt_us(d, sizeof(d), then_ns < now_ns ? (now_ns - then_ns) / 1000 : 0);
	snprintf(buf, size, "%s ago", d);
}

/*
 * The wall-clock time of the CLOCK_MONOTONIC time @ev_ns: local
 * "YYYY-MM-DD HH:MM:SS.uuuuuu", or ISO 8601 UTC with @iso_utc.
 */
void fmt_wall(char *buf, size_t size, uint64_t ev_ns, bool iso_utc)
{
	struct timespec real;
	uint64_t now_mono = mono_ns(), real_ns, t;
	time_t sec;
	struct tm tm;
	char s[32];

	clock_gettime(CLOCK_REALTIME, &real);
	real_ns = (uint64_t)real.tv_sec * 1000000000ULL + (uint64_t)real.tv_nsec;
	t = real_ns - (now_mono > ev_ns ? now_mono - ev_ns : 0);
	sec = (time_t)(t / 1000000000ULL);
	if (iso_utc)
		gmtime_r(&sec, &tm);
	else
		localtime_r(&sec, &tm);
	strftime(s, sizeof(s), iso_utc ? "%Y-%m-%dT%H:%M:%S" : "%Y-%m-%d %H:%M:%S",
		 &tm);
	snprintf(buf, size, "%s.%06llu%s", s,
		 (unsigned long long)(t % 1000000000ULL / 1000), iso_utc ? "Z" : "");
}

/* ---- per-priority policy: P:VALUE (set, conf) ---- */

static const struct {
	const char *kw;
	unsigned int ovr;
} prio_policy_kws[] = {
	{ "prio-detect", PFCWD_PRIO_OVR_DETECT },
	{ "prio-restore", PFCWD_PRIO_OVR_RESTORE },
	{ "prio-warn", PFCWD_PRIO_OVR_WARN },
	{ "prio-action", PFCWD_PRIO_OVR_ACTION },
};

/* The PFCWD_PRIO_OVR_* a keyword names (exactly), or 0. */
unsigned int prio_policy_keyword(const char *kw)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(prio_policy_kws); i++)
		if (!strcmp(kw, prio_policy_kws[i].kw))
			return prio_policy_kws[i].ovr;
	return 0;
}

const char *prio_policy_kw(unsigned int ovr)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(prio_policy_kws); i++)
		if (prio_policy_kws[i].ovr == ovr)
			return prio_policy_kws[i].kw;
	return "?";
}

/**
 * prio_policy_parse - one P:VALUE of a per-priority keyword into @pp
 * @pp: what the command line asks for so far
 * @ovr: which override (PFCWD_PRIO_OVR_*)
 * @tok: "P:VALUE": P 0-7, VALUE milliseconds (prio-action: an action) or
 *	"default"
 * @err: the reason, when it is bad
 * @err_size: its size
 *
 * The value's range is the kernel's to check.  A priority given twice
 * for one keyword is an error.
 *
 * Return: 0 or -1.
 */
int prio_policy_parse(struct prio_policy *pp, unsigned int ovr,
		      const char *tok, char *err, size_t err_size)
{
	const char *kw = prio_policy_kw(ovr), *val = tok + 2;
	uint32_t v = 0;
	int p;

	if (tok[0] < '0' || tok[0] > '7' || tok[1] != ':') {
		snprintf(err, err_size,
			 "bad %s \"%s\": expected P:VALUE with P 0-7", kw, tok);
		return -1;
	}
	p = tok[0] - '0';
	if ((pp->set[p] | pp->drop[p]) & ovr) {
		snprintf(err, err_size, "%s: priority %d given twice", kw, p);
		return -1;
	}
	if (!strcmp(val, "default")) {
		pp->drop[p] |= ovr;
		return 0;
	}
	if (ovr == PFCWD_PRIO_OVR_ACTION ? parse_action(val, &v) :
					   parse_ms(val, &v)) {
		snprintf(err, err_size, "bad %s \"%s\": expected %d:%s or %d:default",
			 kw, tok, p,
			 ovr == PFCWD_PRIO_OVR_ACTION ? "{drop|forward|alert}" :
							"MS",
			 p);
		return -1;
	}
	pp->set[p] |= ovr;
	if (ovr == PFCWD_PRIO_OVR_DETECT)
		pp->detect_ms[p] = v;
	else if (ovr == PFCWD_PRIO_OVR_RESTORE)
		pp->restore_ms[p] = v;
	else if (ovr == PFCWD_PRIO_OVR_WARN)
		pp->warn_ms[p] = v;
	else
		pp->action[p] = v;
	return 0;
}

bool prio_policy_empty(const struct prio_policy *pp)
{
	int p;

	for (p = 0; p < PFCWD_NUM_PRIO; p++)
		if (pp->set[p] | pp->drop[p])
			return false;
	return true;
}
