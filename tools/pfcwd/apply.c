// SPDX-License-Identifier: GPL-2.0
/*
 * pfcwd(8) apply: make the configuration file true on the devices there
 * are (conf.c reads it; the format is described there and in pfcwd(8)).
 *
 *	pfcwd [ -j ] apply [ -f FILE ] [ --dry-run ] [ dev DEV ]
 *
 * The whole file is read and checked first; a bad file is refused with its
 * line and the reason, and nothing is changed.  Then, for every device of
 * the network namespace (or DEV alone: the udev rule's hot-plug case) that
 * a rule matches, the settings the rules give are compared with what the
 * device has, and only what differs is changed: the root qdisc first
 * (which may create or release the port), then the port's settings in one
 * port-set.  So a second apply changes nothing, and prints nothing.  A
 * matched device becomes a port (enabled, held over netlink) unless the
 * rules say "off".  What no rule sets is left as it is.
 *
 * Each change is printed, one line per device: "DEV: what was -> what is";
 * with -j, a JSON array of {"ifname", "changes": [...], "dry_run"}.  With
 * --dry-run the same changes are printed and nothing is changed.
 *
 * Exit status: 0 if every device matched is as the file says (after the
 * changes, or already for a dry run); 1 if the file could not be read or
 * is bad (nothing changed), or a change failed (the other devices are
 * still applied); 2 for a bad command line; 3 for a dry run that found a
 * device to change (drift).
 *
 * Single-threaded; no locking.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <libmnl/libmnl.h>

#include "cli.h"

#define APPLY_DEFAULT_FILE	"/etc/pfcwd.conf"
#define APPLY_MAX_NOTES		64
#define EXIT_DRIFT		3	/* a dry run would change something */

void usage_apply(FILE *f)
{
	fprintf(f, "Usage: pfcwd [ -j ] apply [ -f FILE ] [ --dry-run ] [ dev DEV ]\n"
		   "FILE defaults to " APPLY_DEFAULT_FILE "; - is standard input.\n"
		   "Exit 0: as the file says; 1: failed; 2: bad command line;\n"
		   "3: --dry-run found something to change.\n");
}

struct apply_ctx {
	struct genl g;		/* pfcwd family */
	struct genl r;		/* rtnetlink */
	struct port_list ports;	/* as the kernel last said */
	struct root_qdiscs roots; /* as they were before apply */
	bool dry;
	bool drift;		/* a device had something to change */
	char line[1024];	/* this device's changes, for the message */
	size_t len;
	size_t at[APPLY_MAX_NOTES];	/* where each change starts in line */
	unsigned int notes;
};

/* Adds "what" to the device's line of changes. */
static __printf(2, 3) void apply_note(struct apply_ctx *a, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (a->len >= sizeof(a->line) - 1)
		return;
	if (a->len) {
		n = snprintf(a->line + a->len, sizeof(a->line) - a->len, ", ");
		a->len += (size_t)n;
	}
	if (a->notes < APPLY_MAX_NOTES)
		a->at[a->notes++] = a->len;
	va_start(ap, fmt);
	n = vsnprintf(a->line + a->len, sizeof(a->line) - a->len, fmt, ap);
	va_end(ap);
	if (n > 0)
		a->len += (size_t)n;
	if (a->len >= sizeof(a->line))
		a->len = sizeof(a->line) - 1;
}

/* Reads every port again (the list is read once, and after a qdisc change). */
static int apply_read_ports(struct apply_ctx *a)
{
	a->ports.n = 0;
	return get_ports(&a->g, 0, NULL, &a->ports);
}

/* The port of @ifindex, or NULL if the device is not a port. */
static const struct port_info *apply_port(const struct apply_ctx *a,
					  unsigned int ifindex)
{
	size_t i;

	for (i = 0; i < a->ports.n; i++)
		if (a->ports.v[i].v[PFCWD_A_PORT_IFINDEX] == ifindex)
			return &a->ports.v[i];
	return NULL;
}

static void apply_qdisc_desc(const struct root_qdisc *q, char *buf,
			     size_t size)
{
	if (!q->kind[0])
		snprintf(buf, size, "default");
	else if (q->has_limit)
		snprintf(buf, size, "%s limit %u", q->kind, q->limit);
	else
		snprintf(buf, size, "%s", q->kind);
}

/* The root qdisc as @s says; *changed set if it was (or would be). */
static int apply_qdisc(struct apply_ctx *a, const char *dev,
		       unsigned int ifindex, const struct conf_set *s,
		       bool *changed)
{
	static const struct root_qdisc builtin;	/* noqueue: not dumped */
	const struct root_qdisc *q;
	char was[64], what[96];
	int err;

	*changed = false;
	if (!(s->has & CONF_HAS_QDISC))
		return 0;
	q = rtnl_root_of(&a->roots, ifindex);
	if (!q)
		q = &builtin;
	apply_qdisc_desc(q, was, sizeof(was));
	if (s->qdisc == CONF_QDISC_NONE) {
		if (strcmp(q->kind, "pfcwd"))
			return 0;
		apply_note(a, "qdisc %s -> default", was);
		*changed = true;
		if (a->dry)
			return 0;
		err = rtnl_root_delete(&a->r, ifindex);
		snprintf(what, sizeof(what), "%s: delete the pfcwd qdisc", dev);
	} else {
		if (!strcmp(q->kind, "pfcwd") &&
		    (!(s->has & CONF_HAS_QDISC_LIMIT) ||
		     (q->has_limit && q->limit == s->qdisc_limit)))
			return 0;
		if (s->has & CONF_HAS_QDISC_LIMIT)
			apply_note(a, "qdisc %s -> pfcwd limit %u", was,
				   s->qdisc_limit);
		else
			apply_note(a, "qdisc %s -> pfcwd", was);
		*changed = true;
		if (a->dry)
			return 0;
		err = rtnl_pfcwd_replace(&a->r, ifindex,
					 s->has & CONF_HAS_QDISC_LIMIT,
					 s->qdisc_limit);
		snprintf(what, sizeof(what), "%s: qdisc pfcwd", dev);
	}
	if (err)
		genl_perror(&a->r, what);
	return err;
}

/*
 * One u32 setting: put into @req if the port does not have it (@pi NULL:
 * no port yet) or has another value.
 */
static void apply_u32(struct apply_ctx *a, struct nlmsghdr *req,
		      const struct port_info *pi, uint16_t type,
		      const char *kw, uint32_t want,
		      const char *(*name)(uint64_t))
{
	uint64_t cur = pi ? pi->v[type] : 0;

	if (pi && has(pi->have, type) && cur == want)
		return;
	if (name && pi && has(pi->have, type))
		apply_note(a, "%s %s -> %s", kw, name(cur), name(want));
	else if (name)
		apply_note(a, "%s %s", kw, name(want));
	else if (pi && has(pi->have, type))
		apply_note(a, "%s %llu -> %u", kw, (unsigned long long)cur,
			   want);
	else
		apply_note(a, "%s %u", kw, want);
	mnl_attr_put_u32(req, type, want);
}

/* One override's value as the rules want it (@pp) and as @pr has it. */
static uint32_t apply_ovr_val(const struct prio_policy *pp, int p,
			      unsigned int ovr)
{
	switch (ovr) {
	case PFCWD_PRIO_OVR_DETECT:
		return pp->detect_ms[p];
	case PFCWD_PRIO_OVR_RESTORE:
		return pp->restore_ms[p];
	case PFCWD_PRIO_OVR_WARN:
		return pp->warn_ms[p];
	default:
		return pp->action[p];
	}
}

static const unsigned int apply_ovr_attr[] = {
	[PFCWD_PRIO_OVR_DETECT] = PFCWD_A_PRIO_DETECT_MS,
	[PFCWD_PRIO_OVR_RESTORE] = PFCWD_A_PRIO_RESTORE_MS,
	[PFCWD_PRIO_OVR_WARN] = PFCWD_A_PRIO_WARN_MS,
	[PFCWD_PRIO_OVR_ACTION] = PFCWD_A_PRIO_POLICY_ACTION,
};

static void apply_ovr_fmt(char *buf, size_t size, unsigned int ovr,
			  uint64_t v)
{
	if (ovr == PFCWD_PRIO_OVR_ACTION)
		snprintf(buf, size, "%s", action_name(v));
	else
		snprintf(buf, size, "%llu", (unsigned long long)v);
}

/*
 * The per-priority overrides the rules set or drop that the port does not
 * have so already, into @out (what to send), each noted as
 * "prio-detect 3:400 -> 100" ("default" for none).
 */
static void apply_prio_policy(struct apply_ctx *a, const struct conf_set *s,
			      const struct port_info *pi,
			      struct prio_policy *out)
{
	const struct prio_policy *pp = &s->pp;
	char was[32], now[32];
	unsigned int ovr;
	int p;

	for (p = 0; p < PFCWD_NUM_PRIO; p++) {
		const struct prio_info *pr = pi ? &pi->prio[p] : NULL;
		uint64_t have = pr && has(pr->have, PFCWD_A_PRIO_OVERRIDES) ?
				pr->v[PFCWD_A_PRIO_OVERRIDES] : 0;

		for (ovr = PFCWD_PRIO_OVR_DETECT; ovr <= PFCWD_PRIO_OVR_ACTION;
		     ovr <<= 1) {
			bool had = have & ovr;
			uint64_t cur = had ? pr->v[apply_ovr_attr[ovr]] : 0;

			if (had)
				apply_ovr_fmt(was, sizeof(was), ovr, cur);
			else
				snprintf(was, sizeof(was), "default");
			if (pp->set[p] & ovr) {
				uint32_t want = apply_ovr_val(pp, p, ovr);

				if (had && cur == want)
					continue;
				out->set[p] |= ovr;
				if (ovr == PFCWD_PRIO_OVR_DETECT)
					out->detect_ms[p] = want;
				else if (ovr == PFCWD_PRIO_OVR_RESTORE)
					out->restore_ms[p] = want;
				else if (ovr == PFCWD_PRIO_OVR_WARN)
					out->warn_ms[p] = want;
				else
					out->action[p] = want;
				apply_ovr_fmt(now, sizeof(now), ovr, want);
			} else if ((pp->drop[p] & ovr) && had) {
				out->drop[p] |= ovr;
				snprintf(now, sizeof(now), "default");
			} else {
				continue;
			}
			apply_note(a, "%s %d:%s -> %s", prio_policy_kw(ovr), p,
				   was, now);
		}
	}
}

/* The port's settings as @s says; @pi is the port, NULL if none. */
static int apply_settings(struct apply_ctx *a, const char *dev,
			  unsigned int ifindex, const struct conf_set *s,
			  const struct port_info *pi)
{
	bool want_on = !(s->has & CONF_HAS_ENABLED) || s->enabled;
	char buf[GENL_BUF_SIZE], what[64], was[32], now[32];
	struct nlmsghdr *req;
	size_t empty;

	if (!pi && !want_on)
		return 0;	/* off, and not a port: nothing to do */

	req = genl_msg(&a->g, buf, PFCWD_CMD_PORT_SET, NLM_F_ACK);
	mnl_attr_put_u32(req, PFCWD_A_PORT_IFINDEX, ifindex);
	empty = req->nlmsg_len;

	if (s->has & CONF_HAS_DETECT)
		apply_u32(a, req, pi, PFCWD_A_PORT_DETECT_MS, "detect",
			  s->detect_ms, NULL);
	if (s->has & CONF_HAS_RESTORE)
		apply_u32(a, req, pi, PFCWD_A_PORT_RESTORE_MS, "restore",
			  s->restore_ms, NULL);
	if (s->has & CONF_HAS_WARN)
		apply_u32(a, req, pi, PFCWD_A_PORT_WARN_MS, "warn", s->warn_ms,
			  NULL);
	if (s->has & CONF_HAS_RATE_RX)
		apply_u32(a, req, pi, PFCWD_A_PORT_RATE_RX, "rate-rx",
			  s->rate_rx, NULL);
	if (s->has & CONF_HAS_RATE_TX)
		apply_u32(a, req, pi, PFCWD_A_PORT_RATE_TX, "rate-tx",
			  s->rate_tx, NULL);
	if (s->has & CONF_HAS_RATE_WINDOW)
		apply_u32(a, req, pi, PFCWD_A_PORT_RATE_WINDOW_MS, "rate-window",
			  s->rate_window_ms, NULL);
	if ((s->has & CONF_HAS_BACKOFF) &&
	    (!pi || !has(pi->have, PFCWD_A_PORT_BACKOFF) ||
	     pi->v[PFCWD_A_PORT_BACKOFF] != s->backoff)) {
		if (pi && has(pi->have, PFCWD_A_PORT_BACKOFF))
			apply_note(a, "backoff %s -> %s",
				   pi->v[PFCWD_A_PORT_BACKOFF] ? "on" : "off",
				   s->backoff ? "on" : "off");
		else
			apply_note(a, "backoff %s", s->backoff ? "on" : "off");
		mnl_attr_put_u8(req, PFCWD_A_PORT_BACKOFF, s->backoff);
	}
	if (s->has & CONF_HAS_ACTION)
		apply_u32(a, req, pi, PFCWD_A_PORT_ACTION, "action", s->action,
			  action_name);
	if (s->has & CONF_HAS_STORM_LIMIT)
		apply_u32(a, req, pi, PFCWD_A_PORT_STORM_LIMIT, "storm-limit",
			  s->storm_limit, NULL);
	if (s->has & CONF_HAS_DEVICE_ACTION)
		apply_u32(a, req, pi, PFCWD_A_PORT_DEVICE_ACTION,
			  "device-action", s->device_action,
			  device_action_name);
	if ((s->has & CONF_HAS_PRIOS) &&
	    (!pi || !has(pi->have, PFCWD_A_PORT_PRIOS) ||
	     pi->v[PFCWD_A_PORT_PRIOS] != s->prios)) {
		prio_list(s->prios, now, sizeof(now));
		if (pi && has(pi->have, PFCWD_A_PORT_PRIOS)) {
			prio_list((uint8_t)pi->v[PFCWD_A_PORT_PRIOS], was,
				  sizeof(was));
			apply_note(a, "prio %s -> %s", was, now);
		} else {
			apply_note(a, "prio %s", now);
		}
		mnl_attr_put_u8(req, PFCWD_A_PORT_PRIOS, s->prios);
	}
	if (s->has & CONF_HAS_PRIO_POLICY) {
		struct prio_policy pp = {};

		apply_prio_policy(a, s, pi, &pp);
		prio_policy_put(req, &pp);
	}
	if (!pi) {
		apply_note(a, "on (new port)");
		mnl_attr_put_u8(req, PFCWD_A_PORT_ENABLED, 1);
	} else if (!has(pi->have, PFCWD_A_PORT_ENABLED) ||
		   pi->v[PFCWD_A_PORT_ENABLED] != want_on) {
		apply_note(a, want_on ? "off -> on" : "on -> off");
		mnl_attr_put_u8(req, PFCWD_A_PORT_ENABLED, want_on);
	}
	if (req->nlmsg_len == empty || a->dry)
		return 0;
	snprintf(what, sizeof(what), "%s: set", dev);
	return genl_do(&a->g, req, what);
}

/* This device's changes: a line, or an element of the JSON array. */
static void apply_print(const struct apply_ctx *a, const char *dev)
{
	char one[sizeof(a->line)];
	unsigned int i;
	size_t end;

	if (!cli.json) {
		printf("%s: %s%s\n", dev, a->line, a->dry ? " (dry run)" : "");
		return;
	}
	jw_obj_open(NULL);
	jw_str("ifname", dev);
	jw_arr_open("changes");
	for (i = 0; i < a->notes; i++) {
		/* The next one starts after the ", " that ends this one. */
		end = i + 1 < a->notes ? a->at[i + 1] - 2 : a->len;
		snprintf(one, sizeof(one), "%.*s", (int)(end - a->at[i]),
			 a->line + a->at[i]);
		jw_str(NULL, one);
	}
	jw_arr_close();
	jw_bool("dry_run", a->dry);
	jw_obj_close();
}

/* Makes device @dev as the rules @s say. */
static int apply_dev(struct apply_ctx *a, const char *dev,
		     unsigned int ifindex, const struct conf_set *s)
{
	bool qchanged;
	int err;

	a->len = 0;
	a->notes = 0;
	a->line[0] = '\0';
	err = apply_qdisc(a, dev, ifindex, s, &qchanged);
	/* After the qdisc: it may have made or let go the port. */
	if (!err && qchanged && !a->dry)
		err = apply_read_ports(a);
	if (!err)
		err = apply_settings(a, dev, ifindex, s,
				     apply_port(a, ifindex));
	if (a->len) {
		a->drift = true;
		apply_print(a, dev);
	}
	return err;
}

/* Plain device names in the file that no device has: said, not an error. */
static void apply_missing(const struct conf *c, struct if_nameindex *ifs)
{
	struct if_nameindex *i;
	size_t r;

	for (r = 0; r < c->n; r++) {
		if (conf_pattern_is_glob(c->rules[r].pattern))
			continue;
		for (i = ifs; i->if_index; i++)
			if (!strcmp(i->if_name, c->rules[r].pattern))
				break;
		if (!i->if_index)
			fprintf(stderr, "pfcwd: %s:%u: no device %s (yet); skipped\n",
				c->name, c->rules[r].line, c->rules[r].pattern);
	}
}

static FILE *apply_open(const char *file)
{
	FILE *f;

	if (!strcmp(file, "-"))
		return stdin;
	f = fopen(file, "r");
	if (!f)
		fprintf(stderr, "pfcwd: cannot read %s: %s\n", file,
			strerror(errno));
	return f;
}

int cmd_apply(int argc, char **argv)
{
	const char *file = APPLY_DEFAULT_FILE, *dev = NULL;
	struct apply_ctx a = { 0 };
	struct virtual_links virt = { 0 };
	struct if_nameindex *ifs = NULL, *i;
	struct conf c;
	struct conf_set s;
	int ret = EXIT_FAIL, failed = 0;
	unsigned int only = 0;
	FILE *f;

	for (; argc > 0; argc--, argv++) {
		if (!strcmp(*argv, "-f") || !strcmp(*argv, "--file")) {
			file = next_arg(&argc, &argv, *argv);
		} else if (!strcmp(*argv, "--dry-run")) {
			a.dry = true;
		} else if (matches(*argv, "dev")) {
			dev = next_arg(&argc, &argv, "dev");
			only = dev_index(dev);
		} else if (matches(*argv, "help")) {
			usage_apply(stdout);
			exit(EXIT_OK);
		} else {
			usage_error("apply: unknown argument \"%s\"", *argv);
		}
	}

	f = apply_open(file);
	if (!f)
		return EXIT_FAIL;
	if (conf_parse(f, !strcmp(file, "-") ? "<stdin>" : file, &c)) {
		fprintf(stderr, "pfcwd: %s\npfcwd: nothing was changed\n",
			c.err);
		if (f != stdin)
			fclose(f);
		return EXIT_FAIL;
	}
	if (f != stdin)
		fclose(f);

	ifs = if_nameindex();
	if (!ifs) {
		perror("pfcwd: list of devices");
		goto out;
	}
	if (!only)
		apply_missing(&c, ifs);
	if (genl_open(&a.g) || genl_open_route(&a.r) || apply_read_ports(&a))
		goto out;
	if (rtnl_root_qdiscs(&a.r, &a.roots)) {
		genl_perror(&a.r, "dump of the qdiscs");
		goto out;
	}
	if (links_virtual(&a.r, &virt)) {
		genl_perror(&a.r, "dump of the links");
		goto out;
	}
	if (cli.json) {
		jw_init(stdout, cli.pretty);
		jw_arr_open(NULL);
	}
	for (i = ifs; i->if_index; i++) {
		if (only && i->if_index != only)
			continue;
		if (!conf_resolve(&c, i->if_name,
				  links_is_virtual(&virt, i->if_index), &s, NULL))
			continue;
		if (apply_dev(&a, i->if_name, i->if_index, &s))
			failed++;
	}
	if (cli.json)
		jw_arr_close();
	if (fflush(stdout))
		failed++;
	if (failed)
		ret = EXIT_FAIL;
	else
		ret = a.dry && a.drift ? EXIT_DRIFT : EXIT_OK;
out:
	genl_close(&a.g);
	genl_close(&a.r);
	if (ifs)
		if_freenameindex(ifs);
	conf_free(&c);
	free(a.ports.v);
	free(a.roots.v);
	free(virt.v);
	return ret;
}
