// SPDX-License-Identifier: GPL-2.0
/*
 * pfcwd(8): the configuration file, /etc/pfcwd.conf, read into rules.
 * No netlink here (apply.c does that), so the parser is unit-tested in
 * user space.
 *
 * The format, one rule per line, in the words of "pfcwd set":
 *
 *	# comment
 *	dev PATTERN [ virtual ] [ on | off ] [ detect MS ] [ restore MS ] [ warn MS ]
 *		[ backoff on|off ]
 *		[ rate-rx PPS ] [ rate-tx PPS ] [ rate-window MS ]
 *		[ action drop|forward|alert ] [ prio LIST ] [ storm-limit N ]
 *		[ device-action auto|on|off ]
 *		[ prio-detect P:MS ... ] [ prio-restore P:MS ... ]
 *		[ prio-warn P:MS ... ] [ prio-action P:A ... ]
 *		[ qdisc pfcwd [ limit PACKETS ] | qdisc none ]
 *
 * PATTERN is a device name or a shell glob over names (fnmatch(3):
 * "enp65s0f*", "eth[01]").  A glob skips loopback and virtual devices
 * (those made by "ip link add": veth, bridge, dummy, ...) unless the rule
 * says "virtual": "dev *" means the host's NICs.  A line may be continued
 * with a backslash at its end.  Keywords are written out in full (a file is read by people, and
 * an abbreviation that is unique today may not be tomorrow); each may be
 * given once per line.  "qdisc" comes last, and what follows it is the
 * qdisc's own: its packet limit.  The watchdog's settings (detect, restore,
 * warn, backoff, action, prio) are the port's, whether the qdisc is there
 * or not, so they are written before "qdisc" and never twice.
 *
 * Every rule whose pattern matches a device applies to it, in file order;
 * a later rule's setting overrides an earlier one's, so a "dev *" line
 * gives defaults that the lines after it refine.  What no matching rule
 * sets is left as it is.
 *
 * Values are checked against the uAPI's ranges here, so that a bad file
 * is refused as a whole, with its line, before anything changes.
 *
 * Single-threaded; no locking.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define CONF_LINE_MAX	4096	/* a logical line, continuations joined */

/* Records the first error: "FILE:LINE: reason". */
static __printf(3, 4) int conf_error(struct conf *c, unsigned int line, const char *fmt, ...)
{
	int n = snprintf(c->err, sizeof(c->err), "%s:%u: ", c->name, line);
	va_list ap;

	if (n < 0 || (size_t)n >= sizeof(c->err))
		return -EINVAL;
	va_start(ap, fmt);
	vsnprintf(c->err + n, sizeof(c->err) - (size_t)n, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* A device name or glob: what could be a name, plus glob characters. */
static bool conf_pattern_ok(const char *p)
{
	const char *s;

	if (!*p || strlen(p) >= sizeof(((struct conf_rule *)0)->pattern))
		return false;
	for (s = p; *s; s++)
		if (*s == '/' || *s == ':' || (unsigned char)*s <= ' ' ||
		    (unsigned char)*s >= 0x7f)
			return false;
	/* A name without glob characters must fit IFNAMSIZ. */
	if (!strpbrk(p, "*?[") && strlen(p) >= IF_NAMESIZE)
		return false;
	return true;
}

struct conf_word {
	const char *kw;
	unsigned int bit;	/* CONF_HAS_* */
};

static const struct conf_word conf_words[] = {
	{ "detect", CONF_HAS_DETECT },
	{ "restore", CONF_HAS_RESTORE },
	{ "action", CONF_HAS_ACTION },
	{ "prio", CONF_HAS_PRIOS },
	{ "storm-limit", CONF_HAS_STORM_LIMIT },
	{ "device-action", CONF_HAS_DEVICE_ACTION },
	{ "warn", CONF_HAS_WARN },
	{ "backoff", CONF_HAS_BACKOFF },
	{ "rate-rx", CONF_HAS_RATE_RX },
	{ "rate-tx", CONF_HAS_RATE_TX },
	{ "rate-window", CONF_HAS_RATE_WINDOW },
};

/* A pause-rate threshold: 0 (off) to PFCWD_RATE_PPS_MAX frames/s. */
static int conf_rate(struct conf *c, unsigned int line, const char *kw,
		     const char *v, uint32_t *out)
{
	if (parse_u32(v, out) || *out > PFCWD_RATE_PPS_MAX)
		return conf_error(c, line,
				  "bad %s \"%s\": expected 0 (off) to %u frames/s",
				  kw, v, PFCWD_RATE_PPS_MAX);
	return 0;
}

/* A time: 1..60000 ms, as the kernel takes it. */
static int conf_ms(struct conf *c, unsigned int line, const char *kw,
		   const char *v, uint32_t *out)
{
	if (parse_ms(v, out) || *out < PFCWD_TIME_MS_MIN ||
	    *out > PFCWD_TIME_MS_MAX)
		return conf_error(c, line,
				  "bad %s \"%s\": expected %u to %u ms", kw, v,
				  PFCWD_TIME_MS_MIN, PFCWD_TIME_MS_MAX);
	return 0;
}

/* The value of keyword @kw (index @i of conf_words) into @s. */
static int conf_value(struct conf *c, unsigned int line, size_t i,
		      const char *v, struct conf_set *s)
{
	const char *kw = conf_words[i].kw;

	switch (conf_words[i].bit) {
	case CONF_HAS_DETECT:
		return conf_ms(c, line, kw, v, &s->detect_ms);
	case CONF_HAS_RESTORE:
		return conf_ms(c, line, kw, v, &s->restore_ms);
	case CONF_HAS_ACTION:
		if (parse_action(v, &s->action))
			return conf_error(c, line,
					  "bad action \"%s\": expected drop, forward or alert",
					  v);
		return 0;
	case CONF_HAS_PRIOS:
		if (parse_prios(v, &s->prios))
			return conf_error(c, line,
					  "bad priority list \"%s\": expected e.g. 3, 3,4, 0-2,5 or none",
					  v);
		return 0;
	case CONF_HAS_STORM_LIMIT:
		if (parse_u32(v, &s->storm_limit) ||
		    s->storm_limit > PFCWD_STORM_LIMIT_MAX)
			return conf_error(c, line,
					  "bad storm limit \"%s\": expected 0 (none) to %u",
					  v, PFCWD_STORM_LIMIT_MAX);
		return 0;
	case CONF_HAS_DEVICE_ACTION:
		if (parse_device_action(v, &s->device_action))
			return conf_error(c, line,
					  "bad device-action \"%s\": expected auto, on or off",
					  v);
		return 0;
	case CONF_HAS_WARN:
		if (parse_ms(v, &s->warn_ms) || s->warn_ms > PFCWD_WARN_MS_MAX)
			return conf_error(c, line,
					  "bad warn \"%s\": expected 0 (off) to %u ms, below detect",
					  v, PFCWD_WARN_MS_MAX);
		return 0;
	case CONF_HAS_BACKOFF:
		if (strcmp(v, "on") && strcmp(v, "off"))
			return conf_error(c, line,
					  "bad backoff \"%s\": expected on or off",
					  v);
		s->backoff = !strcmp(v, "on");
		return 0;
	case CONF_HAS_RATE_RX:
		return conf_rate(c, line, kw, v, &s->rate_rx);
	case CONF_HAS_RATE_TX:
		return conf_rate(c, line, kw, v, &s->rate_tx);
	case CONF_HAS_RATE_WINDOW:
		if (parse_ms(v, &s->rate_window_ms) ||
		    s->rate_window_ms < PFCWD_RATE_WINDOW_MS_MIN ||
		    s->rate_window_ms > PFCWD_RATE_WINDOW_MS_MAX)
			return conf_error(c, line,
					  "bad rate-window \"%s\": expected %u to %u ms",
					  v, PFCWD_RATE_WINDOW_MS_MIN,
					  PFCWD_RATE_WINDOW_MS_MAX);
		return 0;
	}
	return conf_error(c, line, "internal error: keyword %s", kw);
}

/* "qdisc pfcwd [ limit PACKETS ]" or "qdisc none": the rest of the line. */
static int conf_qdisc(struct conf *c, unsigned int line, char **w, int n,
		      struct conf_set *s)
{
	int i;

	if (n < 1)
		return conf_error(c, line,
				  "\"qdisc\" needs a value: pfcwd or none");
	if (!strcmp(w[0], "none")) {
		if (n > 1)
			return conf_error(c, line,
					  "unexpected \"%s\" after \"qdisc none\"",
					  w[1]);
		s->qdisc = CONF_QDISC_NONE;
		s->has |= CONF_HAS_QDISC;
		return 0;
	}
	if (strcmp(w[0], "pfcwd"))
		return conf_error(c, line,
				  "bad qdisc \"%s\": expected pfcwd or none",
				  w[0]);
	s->qdisc = CONF_QDISC_PFCWD;
	s->has |= CONF_HAS_QDISC;
	for (i = 1; i < n; i++) {
		if (strcmp(w[i], "limit")) {
			if (strcmp(w[i], "detect") && strcmp(w[i], "restore") &&
			    strcmp(w[i], "action") && strcmp(w[i], "lossless") &&
			    strcmp(w[i], "warn") && strcmp(w[i], "backoff"))
				return conf_error(c, line,
						  "unknown qdisc option \"%s\": the qdisc takes only \"limit PACKETS\"",
						  w[i]);
			return conf_error(c, line,
					  "\"%s\" after \"qdisc pfcwd\": the watchdog's settings are the port's; write detect, restore, warn, backoff, action and prio before \"qdisc\"",
					  w[i]);
		}
		if (s->has & CONF_HAS_QDISC_LIMIT)
			return conf_error(c, line,
					  "qdisc \"limit\" given twice");
		if (i + 1 >= n)
			return conf_error(c, line,
					  "qdisc \"limit\" needs a value");
		i++;
		if (parse_u32(w[i], &s->qdisc_limit) || !s->qdisc_limit ||
		    s->qdisc_limit > PFCWD_LIMIT_MAX)
			return conf_error(c, line,
					  "bad qdisc limit \"%s\": expected 1 to %u packets",
					  w[i], PFCWD_LIMIT_MAX);
		s->has |= CONF_HAS_QDISC_LIMIT;
	}
	return 0;
}

/*
 * "prio-detect P:MS ..." (or -restore, -warn, -action) at word *@i: its
 * P:VALUE words into @s->pp, with the ranges the kernel takes (a warning
 * time against T0 is the kernel's to check: T0 may be the port's, as it
 * is on the device).  *@i is left at the last one.
 */
static int conf_prio_policy(struct conf *c, unsigned int line, char **w,
			    int n, int *i, struct conf_set *s)
{
	unsigned int ovr = prio_policy_keyword(w[*i]);
	const char *kw = w[*i];
	struct prio_policy *pp = &s->pp;
	char err[128];
	int k = 0, p;

	while (*i + 1 < n && strchr(w[*i + 1], ':')) {
		(*i)++;
		if (prio_policy_parse(pp, ovr, w[*i], err, sizeof(err)))
			return conf_error(c, line, "%s", err);
		k++;
		p = w[*i][0] - '0';
		if (!(pp->set[p] & ovr))
			continue;
		if ((ovr == PFCWD_PRIO_OVR_DETECT &&
		     (pp->detect_ms[p] < PFCWD_TIME_MS_MIN ||
		      pp->detect_ms[p] > PFCWD_TIME_MS_MAX)) ||
		    (ovr == PFCWD_PRIO_OVR_RESTORE &&
		     (pp->restore_ms[p] < PFCWD_TIME_MS_MIN ||
		      pp->restore_ms[p] > PFCWD_TIME_MS_MAX)))
			return conf_error(c, line,
					  "bad %s \"%s\": expected %u to %u ms",
					  kw, w[*i], PFCWD_TIME_MS_MIN,
					  PFCWD_TIME_MS_MAX);
		if (ovr == PFCWD_PRIO_OVR_WARN &&
		    pp->warn_ms[p] > PFCWD_WARN_MS_MAX)
			return conf_error(c, line,
					  "bad %s \"%s\": expected 0 (off) to %u ms",
					  kw, w[*i], PFCWD_WARN_MS_MAX);
	}
	if (!k)
		return conf_error(c, line,
				  "\"%s\" needs one or more P:VALUE", kw);
	s->has |= CONF_HAS_PRIO_POLICY;
	return 0;
}

/* One logical line, split into @n words @w, into a rule. */
static int conf_rule(struct conf *c, unsigned int line, char **w, int n)
{
	struct conf_rule r = { .line = line };
	struct conf_set *s = &r.set;
	size_t k;
	int i;

	if (strcmp(w[0], "dev"))
		return conf_error(c, line,
				  "unknown keyword \"%s\": a rule begins with \"dev PATTERN\"",
				  w[0]);
	if (n < 2)
		return conf_error(c, line, "\"dev\" needs a device name or pattern");
	if (!conf_pattern_ok(w[1]))
		return conf_error(c, line,
				  "bad device name or pattern \"%s\"", w[1]);
	snprintf(r.pattern, sizeof(r.pattern), "%s", w[1]);

	if (n > 2 && !strcmp(w[2], "virtual")) {
		if (!conf_pattern_is_glob(r.pattern))
			return conf_error(c, line,
					  "\"virtual\" is for a glob: a name in full matches any device");
		r.virtual_too = true;
		w++;
		n--;
	}
	if (n == 2)
		return conf_error(c, line, "nothing to set for \"%s\"", r.pattern);

	for (i = 2; i < n; i++) {
		if (!strcmp(w[i], "on") || !strcmp(w[i], "off")) {
			if (s->has & CONF_HAS_ENABLED)
				return conf_error(c, line,
						  "\"on\" or \"off\" given twice");
			s->has |= CONF_HAS_ENABLED;
			s->enabled = !strcmp(w[i], "on");
			continue;
		}
		if (!strcmp(w[i], "qdisc")) {
			if (conf_qdisc(c, line, w + i + 1, n - i - 1, s))
				return -EINVAL;
			break;
		}
		if (prio_policy_keyword(w[i])) {
			if (conf_prio_policy(c, line, w, n, &i, s))
				return -EINVAL;
			continue;
		}
		for (k = 0; k < ARRAY_SIZE(conf_words); k++)
			if (!strcmp(w[i], conf_words[k].kw))
				break;
		if (k == ARRAY_SIZE(conf_words) && !strcmp(w[i], "limit"))
			return conf_error(c, line,
					  "\"limit\" goes after \"qdisc pfcwd\"; the storm limit is \"storm-limit N\"");
		if (k == ARRAY_SIZE(conf_words))
			return conf_error(c, line, "unknown keyword \"%s\"",
					  w[i]);
		if (s->has & conf_words[k].bit)
			return conf_error(c, line, "\"%s\" given twice", w[i]);
		if (i + 1 >= n)
			return conf_error(c, line, "\"%s\" needs a value", w[i]);
		if (conf_value(c, line, k, w[i + 1], s))
			return -EINVAL;
		s->has |= conf_words[k].bit;
		i++;
	}
	/* The kernel's rule, where one line gives both. */
	if ((s->has & CONF_HAS_WARN) && (s->has & CONF_HAS_DETECT) &&
	    s->warn_ms && s->warn_ms >= s->detect_ms)
		return conf_error(c, line,
				  "warn %u ms is not below detect %u ms (T0)",
				  s->warn_ms, s->detect_ms);

	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 16;
		struct conf_rule *v = realloc(c->rules, cap * sizeof(*v));

		if (!v)
			return conf_error(c, line, "out of memory");
		c->rules = v;
		c->cap = cap;
	}
	c->rules[c->n++] = r;
	return 0;
}

/* Splits @buf in place into at most @max words; -1 if there are more. */
static int conf_split(char *buf, char **w, int max)
{
	int n = 0;
	char *p = buf;

	for (;;) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p || *p == '#')
			return n;
		if (n == max)
			return -1;
		w[n++] = p;
		while (*p && *p != ' ' && *p != '\t')
			p++;
		if (*p)
			*p++ = '\0';
	}
}

int conf_parse(FILE *f, const char *name, struct conf *c)
{
	char *raw = NULL, *logical, *w[128];
	unsigned int lineno = 0, first = 0;
	size_t len = 0, have = 0, rawcap = 0;
	ssize_t got;
	bool more;
	int n, ret = 0;

	memset(c, 0, sizeof(*c));
	snprintf(c->name, sizeof(c->name), "%s", name);
	logical = malloc(CONF_LINE_MAX);
	if (!logical)
		return conf_error(c, 0, "out of memory");

	while ((got = getline(&raw, &rawcap, f)) >= 0) {
		len = (size_t)got;
		lineno++;
		if (!have)
			first = lineno;
		if (len && raw[len - 1] == '\n')
			raw[--len] = '\0';
		if (strlen(raw) != len) {
			ret = conf_error(c, lineno, "a NUL byte in the line");
			goto out;
		}
		if (len && raw[len - 1] == '\r')
			raw[--len] = '\0';
		more = len && raw[len - 1] == '\\';
		if (more)
			raw[--len] = ' ';
		if (have + len + 2 > CONF_LINE_MAX) {
			ret = conf_error(c, first, "line longer than %d characters",
					 CONF_LINE_MAX - 2);
			goto out;
		}
		memcpy(logical + have, raw, len);
		have += len;
		logical[have++] = ' ';
		logical[have] = '\0';
		if (more)
			continue;
		n = conf_split(logical, w, (int)ARRAY_SIZE(w));
		have = 0;
		if (n < 0) {
			ret = conf_error(c, first, "too many words");
			goto out;
		}
		if (n && conf_rule(c, first, w, n)) {
			ret = -EINVAL;
			goto out;
		}
	}
	if (ferror(f)) {
		ret = conf_error(c, lineno, "read error: %s", strerror(errno));
		goto out;
	}
	if (have) {
		ret = conf_error(c, first,
				 "the file ends inside a continued line");
		goto out;
	}
out:
	free(raw);
	free(logical);
	if (ret) {
		free(c->rules);
		c->rules = NULL;
		c->n = 0;
	}
	return ret;
}

/* A later rule's per-priority overrides replace an earlier one's, each alone. */
static void conf_merge_prio(struct prio_policy *to,
			    const struct prio_policy *from)
{
	int p;

	for (p = 0; p < PFCWD_NUM_PRIO; p++) {
		uint8_t said = from->set[p] | from->drop[p];

		to->set[p] = (to->set[p] & ~said) | from->set[p];
		to->drop[p] = (to->drop[p] & ~said) | from->drop[p];
		if (from->set[p] & PFCWD_PRIO_OVR_DETECT)
			to->detect_ms[p] = from->detect_ms[p];
		if (from->set[p] & PFCWD_PRIO_OVR_RESTORE)
			to->restore_ms[p] = from->restore_ms[p];
		if (from->set[p] & PFCWD_PRIO_OVR_WARN)
			to->warn_ms[p] = from->warn_ms[p];
		if (from->set[p] & PFCWD_PRIO_OVR_ACTION)
			to->action[p] = from->action[p];
	}
}

/* Copies the fields of @from that it has into @to. */
static void conf_merge(struct conf_set *to, const struct conf_set *from)
{
	unsigned int h = from->has;

	if (h & CONF_HAS_ENABLED)
		to->enabled = from->enabled;
	if (h & CONF_HAS_DETECT)
		to->detect_ms = from->detect_ms;
	if (h & CONF_HAS_RESTORE)
		to->restore_ms = from->restore_ms;
	if (h & CONF_HAS_ACTION)
		to->action = from->action;
	if (h & CONF_HAS_PRIOS)
		to->prios = from->prios;
	if (h & CONF_HAS_STORM_LIMIT)
		to->storm_limit = from->storm_limit;
	if (h & CONF_HAS_DEVICE_ACTION)
		to->device_action = from->device_action;
	if (h & CONF_HAS_WARN)
		to->warn_ms = from->warn_ms;
	if (h & CONF_HAS_BACKOFF)
		to->backoff = from->backoff;
	if (h & CONF_HAS_PRIO_POLICY)
		conf_merge_prio(&to->pp, &from->pp);
	if (h & CONF_HAS_RATE_RX)
		to->rate_rx = from->rate_rx;
	if (h & CONF_HAS_RATE_TX)
		to->rate_tx = from->rate_tx;
	if (h & CONF_HAS_RATE_WINDOW)
		to->rate_window_ms = from->rate_window_ms;
	if (h & CONF_HAS_QDISC) {
		/* A later qdisc clause replaces the whole of an earlier one. */
		to->qdisc = from->qdisc;
		to->has &= ~CONF_HAS_QDISC_LIMIT;
	}
	if (h & CONF_HAS_QDISC_LIMIT)
		to->qdisc_limit = from->qdisc_limit;
	to->has |= h;
}

bool conf_resolve(const struct conf *c, const char *ifname, bool virt,
		  struct conf_set *out, unsigned int *last_line)
{
	const struct conf_rule *r;
	bool matched = false;
	size_t i;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < c->n; i++) {
		r = &c->rules[i];
		if (fnmatch(r->pattern, ifname, 0))
			continue;
		if (virt && !r->virtual_too && conf_pattern_is_glob(r->pattern))
			continue;
		conf_merge(out, &r->set);
		matched = true;
		if (last_line)
			*last_line = r->line;
	}
	return matched;
}

bool conf_pattern_is_glob(const char *pattern)
{
	return strpbrk(pattern, "*?[");
}

void conf_free(struct conf *c)
{
	free(c->rules);
	c->rules = NULL;
	c->n = 0;
	c->cap = 0;
}
