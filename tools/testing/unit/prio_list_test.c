// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of pfcwd/prio_list.c, compiled from the module's own source.
 */
#include <string.h>

#include "../../../pfcwd/prio_list.h"
#include "tap.h"

struct parse_case {
	const char *in;
	int err;
	u8 mask;
};

static const struct parse_case parse_cases[] = {
	{ "", 0, 0x00 },
	{ "\n", 0, 0x00 },
	{ "3", 0, 0x08 },
	{ "3,4", 0, 0x18 },
	{ "3,4\n", 0, 0x18 },
	{ "4,3", 0, 0x18 },
	{ "0-7", 0, 0xff },
	{ "0-2,5", 0, 0x27 },
	{ "7,0-1", 0, 0x83 },
	{ "0,1,2,3,4,5,6,7", 0, 0xff },
	{ "8", -EINVAL, 0 },
	{ "3,", -EINVAL, 0 },
	{ ",3", -EINVAL, 0 },
	{ "3,,4", -EINVAL, 0 },
	{ "3 4", -EINVAL, 0 },
	{ " 3", -EINVAL, 0 },
	{ "3\n\n", -EINVAL, 0 },
	{ "3,3", -EINVAL, 0 },
	{ "0-3,2", -EINVAL, 0 },
	{ "4-2", -EINVAL, 0 },
	{ "2-2", -EINVAL, 0 },
	{ "2-", -EINVAL, 0 },
	{ "-2", -EINVAL, 0 },
	{ "1-8", -EINVAL, 0 },
	{ "03", -EINVAL, 0 },
	{ "a", -EINVAL, 0 },
	{ "-1", -EINVAL, 0 },
};

#define N_PARSE ARRAY_SIZE(parse_cases)

/* The input made printable on one TAP line: newlines as \n. */
static const char *show(const char *s)
{
	static char buf[64];
	size_t n = 0;

	for (; *s && n + 3 < sizeof(buf); s++) {
		if (*s == '\n') {
			buf[n++] = '\\';
			buf[n++] = 'n';
		} else {
			buf[n++] = *s;
		}
	}
	buf[n] = '\0';
	return buf;
}

static void test_parse(void)
{
	size_t i;

	for (i = 0; i < N_PARSE; i++) {
		const struct parse_case *c = &parse_cases[i];
		u8 mask = 0xa5;
		int err;

		err = pfcwd_prio_list_parse(c->in, strlen(c->in), &mask);
		if (c->err)
			tap_ok(err == c->err && mask == 0xa5,
			       "parse \"%s\" rejected, mask untouched", show(c->in));
		else
			tap_ok(!err && mask == c->mask,
			       "parse \"%s\" -> 0x%02x (got %d, 0x%02x)",
			       show(c->in), c->mask, err, mask);
	}
}

/* The text need not be NUL-terminated: only len bytes are read. */
static void test_parse_length(void)
{
	u8 mask = 0;

	tap_ok(!pfcwd_prio_list_parse("3,4xyz", 3, &mask) && mask == 0x18,
	       "parse honours the length");
}

static void test_format(void)
{
	char buf[PFCWD_PRIO_LIST_LEN];
	char small[4];
	unsigned int m;
	int roundtrip_ok = 1;

	tap_ok(pfcwd_prio_list_format(0, buf, sizeof(buf)) == 0 && !strcmp(buf, ""),
	       "format empty mask");
	tap_ok(pfcwd_prio_list_format(0x18, buf, sizeof(buf)) == 3 && !strcmp(buf, "3,4"),
	       "format 0x18 -> \"3,4\"");
	tap_ok(pfcwd_prio_list_format(0xff, buf, sizeof(buf)) == 15 &&
	       !strcmp(buf, "0,1,2,3,4,5,6,7"), "format 0xff fits PFCWD_PRIO_LIST_LEN");
	tap_ok(pfcwd_prio_list_format(0xff, small, sizeof(small)) == 15 &&
	       !strcmp(small, "0,1"), "format truncates like snprintf");
	tap_ok(pfcwd_prio_list_format(0x01, small, 0) == 1, "format with size 0");

	for (m = 0; m < 256; m++) {
		u8 back = 0;
		size_t n = pfcwd_prio_list_format(m, buf, sizeof(buf));

		if (pfcwd_prio_list_parse(buf, n, &back) || back != m)
			roundtrip_ok = 0;
	}
	tap_ok(roundtrip_ok, "format/parse round trip for all 256 masks");
}

int main(void)
{
	tap_plan(N_PARSE + 1 + 6);
	test_parse();
	test_parse_length();
	test_format();
	return tap_done();
}
