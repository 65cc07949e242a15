// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of tools/pfcwd/conf.c, the reader of /etc/pfcwd.conf: every
 * setting read, continuations and comments, rules merged in file order by
 * pattern, and each kind of bad line refused with its line number.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../pfcwd/cli.h"
#include "tap.h"

struct cli_opts cli;

static int parse(const char *text, struct conf *c)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int ret;

	ret = conf_parse(f, "t.conf", c);
	fclose(f);
	return ret;
}

static void test_full_line(void)
{
	struct conf c;
	struct conf_set s;
	unsigned int line = 0;
	int ok;

	ok = !parse("# pfcwd\n\n"
		    "dev eth0 off detect 200ms restore 400 action forward prio 3,4 \\\n"
		    "  storm-limit 3 device-action off qdisc pfcwd limit 1000  # end\n",
		    &c);
	tap_ok(ok && c.n == 1, "a full line is one rule");
	if (!ok)
		printf("# %s\n", c.err);
	ok = conf_resolve(&c, "eth0", false, &s, &line);
	tap_ok(ok && line == 3 && s.has == (CONF_HAS_ENABLED | CONF_HAS_DETECT |
		  CONF_HAS_RESTORE | CONF_HAS_ACTION | CONF_HAS_PRIOS |
		  CONF_HAS_STORM_LIMIT | CONF_HAS_DEVICE_ACTION |
		  CONF_HAS_QDISC | CONF_HAS_QDISC_LIMIT),
	       "every setting of the line is read, on line 3");
	tap_ok(s.enabled == 0 && s.detect_ms == 200 && s.restore_ms == 400 &&
	       s.action == PFCWD_ACTION_FORWARD && s.prios == 0x18 &&
	       s.storm_limit == 3 && s.device_action == PFCWD_DEVICE_ACTION_OFF &&
	       s.qdisc == CONF_QDISC_PFCWD && s.qdisc_limit == 1000,
	       "with the values written");
	tap_ok(!conf_resolve(&c, "eth1", false, &s, NULL) && !s.has,
	       "another device matches nothing");
	conf_free(&c);
}

static void test_merge(void)
{
	struct conf c;
	struct conf_set s;
	unsigned int line = 0;
	int ok;

	ok = !parse("dev * detect 500 action alert qdisc pfcwd limit 50\n"
		    "dev enp65s0f[01] \\\n"
		    "    detect 100 \\\n"
		    "    prio none\n"
		    "dev enp65s0f1 action drop qdisc pfcwd\n"
		    "dev lo qdisc none\n", &c);
	tap_ok(ok && c.n == 4, "continued lines make one rule");
	conf_resolve(&c, "enp65s0f1", false, &s, &line);
	tap_ok(s.detect_ms == 100 && s.action == PFCWD_ACTION_DROP &&
	       (s.has & CONF_HAS_PRIOS) && s.prios == 0 && line == 5,
	       "later rules override earlier ones, setting by setting");
	tap_ok(s.qdisc == CONF_QDISC_PFCWD && !(s.has & CONF_HAS_QDISC_LIMIT),
	       "a later qdisc clause replaces an earlier one whole");
	conf_resolve(&c, "enp65s0f0", false, &s, &line);
	tap_ok(s.detect_ms == 100 && s.action == PFCWD_ACTION_ALERT &&
	       s.qdisc_limit == 50 && line == 2,
	       "a rule continued over lines is numbered by its first");
	conf_resolve(&c, "lo", true, &s, NULL);
	tap_ok(s.qdisc == CONF_QDISC_NONE && !(s.has & CONF_HAS_DETECT),
	       "loopback named in full: qdisc none, and not dev *'s defaults");
	tap_ok(conf_pattern_is_glob("enp*") && !conf_pattern_is_glob("eth0"),
	       "globs told from names");
	conf_free(&c);
}

/* A glob skips loopback and virtual devices unless its rule says virtual. */
static void test_virtual(void)
{
	struct conf c;
	struct conf_set s;
	int ok;

	ok = !parse("dev * detect 500\n"
		    "dev veth* virtual action forward\n"
		    "dev veth0 prio 3\n", &c);
	tap_ok(ok && c.n == 3 && c.rules[1].virtual_too &&
	       !c.rules[0].virtual_too, "virtual read after the pattern");
	conf_resolve(&c, "eth0", false, &s, NULL);
	tap_ok(s.detect_ms == 500 && !(s.has & CONF_HAS_ACTION),
	       "a NIC: dev * applies");
	conf_resolve(&c, "veth0", true, &s, NULL);
	tap_ok(!(s.has & CONF_HAS_DETECT) &&
	       s.action == PFCWD_ACTION_FORWARD && s.prios == 0x08,
	       "a veth: not dev *, but the virtual glob and its own name");
	tap_ok(!conf_resolve(&c, "lo", true, &s, NULL) && !s.has,
	       "loopback: no rule");
	conf_free(&c);
}

/* warn: a setting of its own, 0 (off) included, merged as the others. */
static void test_warn(void)
{
	struct conf c;
	struct conf_set s;
	int ok;

	ok = !parse("dev * detect 500 warn 100\n"
		    "dev eth1 warn 0\n"
		    "dev eth2 warn 250ms detect 300\n", &c);
	tap_ok(ok && c.n == 3, "warn is read: three rules");
	conf_resolve(&c, "eth0", false, &s, NULL);
	tap_ok((s.has & CONF_HAS_WARN) && s.warn_ms == 100 && s.detect_ms == 500,
	       "warn 100 with detect 500");
	conf_resolve(&c, "eth1", false, &s, NULL);
	tap_ok((s.has & CONF_HAS_WARN) && s.warn_ms == 0,
	       "warn 0 (off) is a setting, overriding the earlier rule");
	conf_resolve(&c, "eth2", false, &s, NULL);
	tap_ok(s.warn_ms == 250 && s.detect_ms == 300,
	       "warn 250ms before detect on the same line: below it, accepted");
	conf_free(&c);
}

/* backoff on|off: a setting of its own, merged as the others. */
static void test_backoff(void)
{
	struct conf c;
	struct conf_set s;
	int ok;

	ok = !parse("dev * backoff on storm-limit 4\n"
		    "dev eth1 backoff off\n"
		    "dev eth2 restore 100\n", &c);
	tap_ok(ok && c.n == 3, "backoff is read: three rules");
	conf_resolve(&c, "eth0", false, &s, NULL);
	tap_ok((s.has & CONF_HAS_BACKOFF) && s.backoff == 1 &&
	       s.storm_limit == 4, "backoff on, with a storm limit");
	conf_resolve(&c, "eth1", false, &s, NULL);
	tap_ok((s.has & CONF_HAS_BACKOFF) && s.backoff == 0,
	       "backoff off is a setting, overriding the earlier rule");
	conf_resolve(&c, "eth2", false, &s, NULL);
	tap_ok((s.has & CONF_HAS_BACKOFF) && s.backoff == 1 &&
	       s.restore_ms == 100,
	       "a later rule without backoff leaves the earlier one's");
	conf_free(&c);
}

/* prio-detect/-restore/-warn/-action P:VALUE: per priority, merged alone. */
static void test_prio_policy(void)
{
	struct conf c;
	struct conf_set s;
	int ok;

	ok = !parse("dev * detect 400 prio-detect 3:100 4:200 prio-action 3:drop\n"
		    "dev eth1 prio-detect 4:default prio-warn 3:50 \\\n"
		    "    prio-restore 3:300 storm-limit 2\n", &c);
	tap_ok(ok && c.n == 2, "per-priority policy is read: two rules");
	conf_resolve(&c, "eth0", false, &s, NULL);
	tap_ok((s.has & CONF_HAS_PRIO_POLICY) && s.detect_ms == 400 &&
	       s.pp.set[3] == (PFCWD_PRIO_OVR_DETECT | PFCWD_PRIO_OVR_ACTION) &&
	       s.pp.detect_ms[3] == 100 && s.pp.action[3] == PFCWD_ACTION_DROP &&
	       s.pp.set[4] == PFCWD_PRIO_OVR_DETECT && s.pp.detect_ms[4] == 200 &&
	       !s.pp.drop[3] && !s.pp.drop[4],
	       "eth0: prio 3 T0 100 and drop, prio 4 T0 200, the port's T0 400");
	conf_resolve(&c, "eth1", false, &s, NULL);
	tap_ok(s.pp.set[3] == (PFCWD_PRIO_OVR_DETECT | PFCWD_PRIO_OVR_ACTION |
			       PFCWD_PRIO_OVR_WARN | PFCWD_PRIO_OVR_RESTORE) &&
	       s.pp.detect_ms[3] == 100 && s.pp.warn_ms[3] == 50 &&
	       s.pp.restore_ms[3] == 300 && s.storm_limit == 2,
	       "eth1: prio 3 keeps the earlier overrides and adds its own");
	tap_ok(!s.pp.set[4] && s.pp.drop[4] == PFCWD_PRIO_OVR_DETECT,
	       "eth1: 4:default replaces the earlier 4:200 with a drop");
	conf_free(&c);
}

/* rate-rx, rate-tx, rate-window: settings of their own, merged. */
static void test_rate(void)
{
	struct conf c;
	struct conf_set s;
	int ok;

	ok = !parse("dev * rate-rx 1000 rate-tx 2000 rate-window 500\n"
		    "dev eth1 rate-tx 0 rate-window 3600000\n", &c);
	tap_ok(ok && c.n == 2, "rate settings are read: two rules");
	conf_resolve(&c, "eth0", false, &s, NULL);
	tap_ok((s.has & CONF_HAS_RATE_RX) && (s.has & CONF_HAS_RATE_TX) &&
	       (s.has & CONF_HAS_RATE_WINDOW) && s.rate_rx == 1000 &&
	       s.rate_tx == 2000 && s.rate_window_ms == 500,
	       "rate-rx 1000 rate-tx 2000 rate-window 500");
	conf_resolve(&c, "eth1", false, &s, NULL);
	tap_ok(s.rate_rx == 1000 && (s.has & CONF_HAS_RATE_TX) &&
	       s.rate_tx == 0 && s.rate_window_ms == 3600000,
	       "a later rule's rate-tx 0 (off) and window override");
	conf_free(&c);
}

static const struct {
	const char *text;
	const char *err;	/* the whole message */
} bad[] = {
	{ "dev eth0 prio-detect 8:100\n",
	  "t.conf:1: bad prio-detect \"8:100\": expected P:VALUE with P 0-7" },
	{ "dev eth0 prio-detect 3:0\n",
	  "t.conf:1: bad prio-detect \"3:0\": expected 1 to 60000 ms" },
	{ "dev eth0 prio-restore 3:60001\n",
	  "t.conf:1: bad prio-restore \"3:60001\": expected 1 to 60000 ms" },
	{ "dev eth0 prio-warn 3:60000\n",
	  "t.conf:1: bad prio-warn \"3:60000\": expected 0 (off) to 59999 ms" },
	{ "dev eth0 prio-action 3:explode\n",
	  "t.conf:1: bad prio-action \"3:explode\": expected 3:{drop|forward|alert} or 3:default" },
	{ "dev eth0 prio-detect 3:100 3:default\n",
	  "t.conf:1: prio-detect: priority 3 given twice" },
	{ "dev eth0 prio-detect on\n",
	  "t.conf:1: \"prio-detect\" needs one or more P:VALUE" },
	{ "dev eth0 rate-rx 100000001\n",
	  "t.conf:1: bad rate-rx \"100000001\": expected 0 (off) to 100000000 frames/s" },
	{ "dev eth0 rate-tx -1\n",
	  "t.conf:1: bad rate-tx \"-1\": expected 0 (off) to 100000000 frames/s" },
	{ "dev eth0 rate-window 99\n",
	  "t.conf:1: bad rate-window \"99\": expected 100 to 3600000 ms" },
	{ "dev eth0 rate-window 3600001\n",
	  "t.conf:1: bad rate-window \"3600001\": expected 100 to 3600000 ms" },
	{ "dev eth0 on\nport eth1 on\n",
	  "t.conf:2: unknown keyword \"port\": a rule begins with \"dev PATTERN\"" },
	{ "dev eth0\n", "t.conf:1: nothing to set for \"eth0\"" },
	{ "dev\n", "t.conf:1: \"dev\" needs a device name or pattern" },
	{ "dev abcdefghijklmnop on\n",
	  "t.conf:1: bad device name or pattern \"abcdefghijklmnop\"" },
	{ "dev a/b on\n", "t.conf:1: bad device name or pattern \"a/b\"" },
	{ "\n\ndev eth0 detect 0\n",
	  "t.conf:3: bad detect \"0\": expected 1 to 60000 ms" },
	{ "dev eth0 restore 60001\n",
	  "t.conf:1: bad restore \"60001\": expected 1 to 60000 ms" },
	{ "dev eth0 detect -5\n",
	  "t.conf:1: bad detect \"-5\": expected 1 to 60000 ms" },
	{ "dev eth0 action storm\n",
	  "t.conf:1: bad action \"storm\": expected drop, forward or alert" },
	{ "dev eth0 prio 8\n",
	  "t.conf:1: bad priority list \"8\": expected e.g. 3, 3,4, 0-2,5 or none" },
	{ "dev eth0 storm-limit 17\n",
	  "t.conf:1: bad storm limit \"17\": expected 0 (none) to 16" },
	{ "dev eth0 device-action maybe\n",
	  "t.conf:1: bad device-action \"maybe\": expected auto, on or off" },
	{ "dev eth0 detect\n", "t.conf:1: \"detect\" needs a value" },
	{ "dev eth0 detect 1 detect 2\n", "t.conf:1: \"detect\" given twice" },
	{ "dev eth0 on off\n", "t.conf:1: \"on\" or \"off\" given twice" },
	{ "dev eth0 det 200\n", "t.conf:1: unknown keyword \"det\"" },
	{ "dev eth0 qdisc\n",
	  "t.conf:1: \"qdisc\" needs a value: pfcwd or none" },
	{ "dev eth0 qdisc prio\n",
	  "t.conf:1: bad qdisc \"prio\": expected pfcwd or none" },
	{ "dev eth0 virtual detect 100\n",
	  "t.conf:1: \"virtual\" is for a glob: a name in full matches any device" },
	{ "dev e* virtual\n",
	  "t.conf:1: nothing to set for \"e*\"" },
	{ "dev eth0 limit 3\n",
	  "t.conf:1: \"limit\" goes after \"qdisc pfcwd\"; the storm limit is \"storm-limit N\"" },
	{ "dev eth0 qdisc none limit 3\n",
	  "t.conf:1: unexpected \"limit\" after \"qdisc none\"" },
	{ "dev eth0 qdisc pfcwd limit 0\n",
	  "t.conf:1: bad qdisc limit \"0\": expected 1 to 1048576 packets" },
	{ "dev eth0 qdisc pfcwd limit\n",
	  "t.conf:1: qdisc \"limit\" needs a value" },
	{ "dev eth0 qdisc pfcwd limit 5 limit 6\n",
	  "t.conf:1: qdisc \"limit\" given twice" },
	{ "dev eth0 qdisc pfcwd lossless 3\n",
	  "t.conf:1: \"lossless\" after \"qdisc pfcwd\": the watchdog's settings are the port's; "
	  "write detect, restore, warn, backoff, action and prio before \"qdisc\"" },
	{ "dev eth0 warn 60000\n",
	  "t.conf:1: bad warn \"60000\": expected 0 (off) to 59999 ms, below detect" },
	{ "dev eth0 warn soon\n",
	  "t.conf:1: bad warn \"soon\": expected 0 (off) to 59999 ms, below detect" },
	{ "dev eth0 detect 100 warn 100\n",
	  "t.conf:1: warn 100 ms is not below detect 100 ms (T0)" },
	{ "dev eth0 warn 300 detect 200\n",
	  "t.conf:1: warn 300 ms is not below detect 200 ms (T0)" },
	{ "dev eth0 warn 1 warn 2\n", "t.conf:1: \"warn\" given twice" },
	{ "dev eth0 qdisc pfcwd warn 3\n",
	  "t.conf:1: \"warn\" after \"qdisc pfcwd\": the watchdog's settings are the port's; "
	  "write detect, restore, warn, backoff, action and prio before \"qdisc\"" },
	{ "dev eth0 backoff 1\n",
	  "t.conf:1: bad backoff \"1\": expected on or off" },
	{ "dev eth0 backoff yes\n",
	  "t.conf:1: bad backoff \"yes\": expected on or off" },
	{ "dev eth0 backoff\n", "t.conf:1: \"backoff\" needs a value" },
	{ "dev eth0 backoff on backoff off\n",
	  "t.conf:1: \"backoff\" given twice" },
	{ "dev eth0 qdisc pfcwd backoff on\n",
	  "t.conf:1: \"backoff\" after \"qdisc pfcwd\": the watchdog's settings are the port's; "
	  "write detect, restore, warn, backoff, action and prio before \"qdisc\"" },
	{ "dev eth0 qdisc pfcwd quantum 3\n",
	  "t.conf:1: unknown qdisc option \"quantum\": the qdisc takes only \"limit PACKETS\"" },
	{ "dev eth0 on \\\n",
	  "t.conf:1: the file ends inside a continued line" },
};

static void test_bad(void)
{
	struct conf c;
	size_t i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		ret = parse(bad[i].text, &c);
		tap_ok(ret && !strcmp(c.err, bad[i].err) && !c.n && !c.rules,
		       "refused: %s", bad[i].err);
		if (!ret || strcmp(c.err, bad[i].err))
			printf("# got: %s\n", ret ? c.err : "(accepted)");
		conf_free(&c);
	}
}

static void test_nul_and_long(void)
{
	static const char nul[] = "dev eth0 on\0 off\n";
	char *big;
	struct conf c;
	FILE *f;
	int ret;

	f = fmemopen((void *)nul, sizeof(nul) - 1, "r");
	ret = conf_parse(f, "t.conf", &c);
	fclose(f);
	tap_ok(ret && !strcmp(c.err, "t.conf:1: a NUL byte in the line"),
	       "a NUL byte is refused");
	conf_free(&c);

	big = malloc(6000);
	memset(big, ' ', 5998);
	memcpy(big, "dev eth0 on", 11);
	big[5998] = '\n';
	big[5999] = '\0';
	ret = parse(big, &c);
	tap_ok(ret && strstr(c.err, "t.conf:1: line longer than"),
	       "an overlong line is refused");
	conf_free(&c);
	free(big);
}

int main(void)
{
	tap_plan(4 + 6 + 4 + 4 + 4 + 4 + 3 + (int)ARRAY_SIZE(bad) + 2);
	test_full_line();
	test_merge();
	test_virtual();
	test_warn();
	test_backoff();
	test_prio_policy();
	test_rate();
	test_bad();
	test_nul_and_long();
	return tap_done();
}
