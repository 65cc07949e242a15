// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of tools/pfcwd/json.c, the JSON writer of the pfcwd command:
 * exact output, compact and pretty, string escaping, numbers.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../pfcwd/cli.h"
#include "tap.h"

struct cli_opts cli;

static char *out;
static size_t out_len;
static FILE *f;

static void begin(bool pretty)
{
	f = open_memstream(&out, &out_len);
	jw_init(f, pretty);
}

/* Ends the output and compares it with @want. */
static int end_is(const char *want)
{
	int ok;

	fclose(f);
	ok = !strcmp(out, want);
	if (!ok)
		printf("# got:  %s# want: %s", out, want);
	free(out);
	return ok;
}

static void test_compact(void)
{
	begin(false);
	jw_obj_open(NULL);
	jw_u64("a", 18446744073709551615ULL);
	jw_str("s", "q\"b\\n\nt\tc\x01");
	jw_obj_close();
	tap_ok(end_is("{\"a\":18446744073709551615,\"s\":\"q\\\"b\\\\n\\nt\\tc\\u0001\"}\n"),
	       "compact object, escaping, u64 max");

	begin(false);
	jw_obj_open(NULL);
	jw_bool("t", true);
	jw_bool("f", false);
	jw_obj_close();
	tap_ok(end_is("{\"t\":true,\"f\":false}\n"), "booleans");

	begin(false);
	jw_obj_open(NULL);
	jw_prio_list("l", 0x18);
	jw_prio_list("none", 0);
	jw_obj_open("o");
	jw_arr_open("e");
	jw_arr_close();
	jw_obj_close();
	jw_obj_close();
	tap_ok(end_is("{\"l\":[3,4],\"none\":[],\"o\":{\"e\":[]}}\n"),
	       "priority lists, empty containers, nesting");
}

static void test_pretty(void)
{
	begin(true);
	jw_arr_open(NULL);
	jw_obj_open(NULL);
	jw_str("ifname", "sw1");
	jw_prio_list("prios", 0x81);
	jw_arr_open("prio");
	jw_obj_open(NULL);
	jw_u64("prio", 3);
	jw_obj_close();
	jw_arr_close();
	jw_obj_close();
	jw_obj_open(NULL);
	jw_obj_close();
	jw_arr_close();
	tap_ok(end_is("[\n"
		      "    {\n"
		      "        \"ifname\": \"sw1\",\n"
		      "        \"prios\": [0,7],\n"
		      "        \"prio\": [\n"
		      "            {\n"
		      "                \"prio\": 3\n"
		      "            }\n"
		      "        ]\n"
		      "    },\n"
		      "    {}\n"
		      "]\n"),
	       "pretty: four-space indentation, short lists on one line");
}

static void test_lines(void)
{
	begin(false);
	jw_obj_open(NULL);
	jw_str("event", "storm-detected");
	jw_obj_close();
	jw_obj_open(NULL);
	jw_str("event", "storm-restored");
	jw_obj_close();
	tap_ok(end_is("{\"event\":\"storm-detected\"}\n{\"event\":\"storm-restored\"}\n"),
	       "top-level values: one per line");
}

static void test_fixed(void)
{
	begin(false);
	jw_arr_open(NULL);
	jw_fixed(NULL, 6500);
	jw_fixed(NULL, 1000);
	jw_fixed(NULL, 15022400);
	jw_fixed(NULL, 1);
	jw_fixed(NULL, 0);
	jw_arr_close();
	tap_ok(end_is("[6.5,1,15022.4,0.001,0]\n"), "fixed-point numbers");
}

int main(void)
{
	tap_plan(6);
	test_compact();
	test_pretty();
	test_lines();
	test_fixed();
	return tap_done();
}
