// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of tools/pfcwd/headroom.c: the worked example of DESIGN
 * section 1, every speed, the parsers, and bad input.  The expected figures
 * are worked out by hand here, term by term, not by the code under test.
 */
#include <errno.h>
#include <string.h>

#include "../../pfcwd/headroom.h"
#include "tap.h"

static struct hr_input example(unsigned int gbps)
{
	struct hr_input in = {
		.gbps = gbps,
		.cable_mm = 100000,		/* 100 m */
		.mtu = 9216,
		.lossless_mtu = 2300,
		.cell = 416,
	};

	return in;
}

static void test_worked_example(void)
{
	struct hr_input in = example(10);
	struct hr_result r;
	const char *why = NULL;

	tap_ok(hr_compute(&in, &r, &why) == 0, "worked example computes");
	tap_ok(r.max_frame_bt == 73888, "max frame (9216 + 20) * 8 = 73888 BT: %llu",
	       (unsigned long long)r.max_frame_bt);
	tap_ok(r.pfc_frame_bt == 672, "PFC frame (64 + 20) * 8 = 672 BT");
	tap_ok(r.intf_bt == 8192, "10G interface delay 8192 BT");
	tap_ok(r.cable_bt == 5000, "100 m at 10G: 500 ns = 5000 BT: %llu",
	       (unsigned long long)r.cable_bt);
	tap_ok(r.resp_bt == 30720, "10G pause response 30720 BT");
	tap_ok(r.lossless_bt == 18560, "lossless frame (2300 + 20) * 8 = 18560 BT");
	tap_ok(r.total_bt == 150224, "D-total 150224 bit times: %llu",
	       (unsigned long long)r.total_bt);
	tap_ok(r.bytes == 18778, "18778 bytes (18.778 KB): %llu",
	       (unsigned long long)r.bytes);
	tap_ok(r.cells_per_frame == 1 && r.factor_x1000 == 6500,
	       "416-byte cells, 64-byte frames: factor 6.5 (%u, %llu)",
	       r.cells_per_frame, (unsigned long long)r.factor_x1000);
	/* 18778 * 6.5 = 122057: "about 122 KB" */
	tap_ok(r.cell_bytes == 122057, "with cells 122057 bytes: %llu",
	       (unsigned long long)r.cell_bytes);
	tap_ok(r.cells == 294, "294 cells of 416 bytes: %llu",
	       (unsigned long long)r.cells);
	tap_ok(r.quanta == 294, "150224 / 512 rounded up = 294 quanta");
	tap_ok(r.total_ns_x10 == 150224, "15022.4 ns at 10G");
}

struct speed_case {
	unsigned int gbps;
	uint64_t intf, resp, cable, total;
};

/*
 * 100 m, 9216/2300: 73888 + 672 + 18560 = 93120 BT of frames, plus twice
 * the interface delay and the cable (500 ns * Gb/s), plus the response.
 */
static const struct speed_case speed_cases[] = {
	{ 10, 8192, 30720, 5000, 93120 + 2 * 8192 + 2 * 5000 + 30720 },
	{ 25, 6144, 40960, 12500, 93120 + 2 * 6144 + 2 * 12500 + 40960 },
	{ 40, 24576, 60416, 20000, 93120 + 2 * 24576 + 2 * 20000 + 60416 },
	{ 100, 122880, 201728, 50000, 93120 + 2 * 122880 + 2 * 50000 + 201728 },
	{ 400, 491520, 463360, 200000, 93120 + 2 * 491520 + 2 * 200000 + 463360 },
};

static void test_speeds(void)
{
	const uint64_t totals[] = { 150224, 171368, 242688, 640608, 1939520 };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(speed_cases); i++) {
		const struct speed_case *c = &speed_cases[i];
		struct hr_input in = example(c->gbps);
		struct hr_result r;
		const char *why = NULL;
		int err = hr_compute(&in, &r, &why);

		tap_ok(!err && r.intf_bt == c->intf && r.resp_bt == c->resp &&
		       r.cable_bt == c->cable && r.total_bt == c->total &&
		       c->total == totals[i] && r.bytes == (totals[i] + 7) / 8,
		       "%uG, 100 m: %llu BT, %llu bytes", c->gbps,
		       (unsigned long long)r.total_bt,
		       (unsigned long long)r.bytes);
	}
}

static void test_cells_and_overrides(void)
{
	struct hr_input in = example(10);
	struct hr_result r;
	const char *why;

	in.cell = 32;		/* two cells per 64-byte frame: no waste */
	tap_ok(hr_compute(&in, &r, &why) == 0 && r.cells_per_frame == 2 &&
	       r.factor_x1000 == 1000 && r.cell_bytes == 18778 &&
	       r.cells == 587, "32-byte cells: factor 1, 587 cells");
	in.cell = 100;		/* one cell holds a 64-byte frame, wastes 36 */
	tap_ok(hr_compute(&in, &r, &why) == 0 && r.factor_x1000 == 1563 &&
	       r.cell_bytes == (18778 * 100 + 63) / 64,
	       "100-byte cells: factor 1.5625");
	in = example(10);
	in.has_intf_bt = true;
	in.intf_bt = 1000;
	in.has_resp_bt = true;
	in.resp_bt = 2000;
	tap_ok(hr_compute(&in, &r, &why) == 0 &&
	       r.total_bt == 93120 + 2 * 1000 + 2 * 5000 + 2000,
	       "intf-delay and resp-delay override the bounds");
	in = example(25);
	in.cable_mm = 3;	/* 15 ps * 25 = 0.375 BT: rounds up */
	tap_ok(hr_compute(&in, &r, &why) == 0 && r.cable_bt == 1,
	       "3 mm at 25G rounds up to 1 BT");
	in = example(400);
	in.cable_mm = HR_CABLE_MM_MAX;
	tap_ok(hr_compute(&in, &r, &why) == 0 && r.cable_bt == 200000000,
	       "100 km at 400G: 200000000 BT");
}

struct bad_case {
	const char *what;
	unsigned int gbps;
	uint64_t mm;
	uint32_t mtu, lossless_mtu, cell;
	int intf;		/* > -1: override the interface delay */
	const char *word;	/* the message names this */
};

static void test_bad_input(void)
{
	const uint64_t mm = 100000, far = HR_CABLE_MM_MAX + 1;
	const struct bad_case cases[] = {
		{ "unknown speed 50G", 50, mm, 9216, 2300, 416, -1, "speed" },
		{ "speed 0", 0, mm, 9216, 2300, 416, -1, "speed" },
		{ "cable 0", 10, 0, 9216, 2300, 416, -1, "cable" },
		{ "cable 101 km", 10, far, 9216, 2300, 416, -1, "cable" },
		{ "mtu 63", 10, mm, 63, 63, 416, -1, "mtu" },
		{ "mtu 65536", 10, mm, 65536, 2300, 416, -1, "mtu" },
		{ "lossless-mtu over mtu", 10, mm, 1500, 2300, 416, -1, "lossless-mtu" },
		{ "lossless-mtu 63", 10, mm, 9216, 63, 416, -1, "lossless-mtu" },
		{ "cell 0", 10, mm, 9216, 2300, 0, -1, "cell" },
		{ "cell 65536", 10, mm, 9216, 2300, 65536, -1, "cell" },
		{ "intf-delay 0", 10, mm, 9216, 2300, 416, 0, "delay" },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		const struct bad_case *c = &cases[i];
		struct hr_input in = {
			.gbps = c->gbps, .cable_mm = c->mm, .mtu = c->mtu,
			.lossless_mtu = c->lossless_mtu, .cell = c->cell,
			.has_intf_bt = c->intf > -1,
			.intf_bt = c->intf > -1 ? (uint64_t)c->intf : 0,
		};
		struct hr_result r;
		const char *why = NULL;
		int err = hr_compute(&in, &r, &why);

		tap_ok(err == -EINVAL && why && strstr(why, c->word),
		       "refused: %s (%s)", c->what, why ? why : "no message");
	}
}

static void test_parse_speed(void)
{
	const struct { const char *s; unsigned int gbps; } good[] = {
		{ "10G", 10 }, { "25g", 25 }, { "40G", 40 }, { "100G", 100 },
		{ "400G", 400 }, { "10000", 10 }, { "100000", 100 },
	};
	static const char *const bad[] = {
		"", "G", "50G", "10", "100", "1G", "010G", "-10G", "10 G",
		"10Gb", "10M", "abc", "4294967306G", "10G ",
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(good); i++) {
		unsigned int v = 0;
		const char *why;

		tap_ok(hr_parse_speed(good[i].s, &v, &why) == 0 &&
		       v == good[i].gbps, "speed \"%s\" = %uG", good[i].s, v);
	}
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		unsigned int v = 7;
		const char *why = NULL;

		tap_ok(hr_parse_speed(bad[i], &v, &why) == -EINVAL && v == 7 &&
		       why && strstr(why, "10G, 25G, 40G, 100G or 400G"),
		       "speed \"%s\" refused", bad[i]);
	}
}

static void test_parse_length(void)
{
	const struct { const char *s; uint64_t mm; } good[] = {
		{ "100m", 100000 }, { "100", 100000 }, { "2.5m", 2500 },
		{ "0.75m", 750 }, { "0.001m", 1 }, { "1km", 1000000 },
		{ "1.5KM", 1500000 }, { "100km", 100000000 }, { "3M", 3000 },
	};
	const struct { const char *s; const char *word; } bad[] = {
		{ "", "metres" }, { "m", "metres" }, { "0m", "longer than 0" },
		{ "0", "longer than 0" }, { "0.0m", "longer than 0" },
		{ "-1m", "metres" }, { "1.0001m", "millimetre" },
		{ "101km", "100 km" }, { "1e3", "metres" }, { "10 m", "metres" },
		{ "5.m", "metres" }, { ".5m", "metres" }, { "10mm", "metres" },
		{ "10ft", "metres" }, { "1234567890m", "metres" },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(good); i++) {
		uint64_t v = 0;
		const char *why;

		tap_ok(hr_parse_length(good[i].s, &v, &why) == 0 &&
		       v == good[i].mm, "length \"%s\" = %llu mm", good[i].s,
		       (unsigned long long)v);
	}
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		uint64_t v = 7;
		const char *why = NULL;

		tap_ok(hr_parse_length(bad[i].s, &v, &why) == -EINVAL && v == 7 &&
		       why && strstr(why, bad[i].word),
		       "length \"%s\" refused: %s", bad[i].s, why ? why : "-");
	}
}

int main(void)
{
	tap_plan(14 + 5 + 5 + 11 + 21 + 24);
	test_worked_example();
	test_speeds();
	test_cells_and_overrides();
	test_bad_input();
	test_parse_speed();
	test_parse_length();
	return tap_done();
}
