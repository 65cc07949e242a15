// SPDX-License-Identifier: GPL-2.0
/*
 * pfcwd(8): "headroom" - the command line and the output of the PFC
 * headroom computation (headroom.c).  Needs no kernel module.
 * Single-threaded; no locking.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "headroom.h"

void usage_headroom(FILE *f)
{
	fprintf(f, "Usage: pfcwd headroom speed SPEED cable LENGTH [ mtu BYTES ]\n"
		   "                      [ lossless-mtu BYTES ] [ cell BYTES ]\n"
		   "                      [ intf-delay BT ] [ resp-delay BT ]\n"
		   "SPEED := { 10G | 25G | 40G | 100G | 400G }\n"
		   "LENGTH := metres, e.g. 100m, 2.5m, 1km\n"
		   "Defaults: mtu %u, lossless-mtu %u, cell %u; the delays (bit times)\n"
		   "default to the IEEE 802.3 upper bounds of the speed.\n",
		   HR_DEFAULT_MTU, HR_DEFAULT_LOSSLESS_MTU, HR_DEFAULT_CELL);
}

static uint32_t arg_bytes(int *argc, char ***argv, const char *kw)
{
	const char *s = next_arg(argc, argv, kw);
	uint32_t v;

	if (parse_u32(s, &v))
		usage_error("headroom: bad %s \"%s\": expected bytes, a whole number",
			    kw, s);
	return v;
}

static uint64_t arg_bt(int *argc, char ***argv, const char *kw)
{
	const char *s = next_arg(argc, argv, kw);
	uint32_t v;

	if (parse_u32(s, &v))
		usage_error("headroom: bad %s \"%s\": expected bit times, a whole number",
			    kw, s);
	return v;
}

static void row(struct table *t, const char *what, uint64_t bt,
		const char *note)
{
	char n[24];
	const char *cells[3] = { what, n, note };

	snprintf(n, sizeof(n), "%llu BT", (unsigned long long)bt);
	table_add(t, cells);
}

/* 18778 -> "18.778 KB" (1 KB = 1000 bytes). */
static void kb(char *buf, size_t size, uint64_t bytes)
{
	snprintf(buf, size, "%llu.%03llu KB", (unsigned long long)(bytes / 1000),
		 (unsigned long long)(bytes % 1000));
}

static void print_human(const struct hr_input *in, const struct hr_result *r)
{
	static const char *const heads[3] = { "term", "bit times", "" };
	char a[64], b[64], c[64], m[32];
	struct table *t = table_new(3, heads, "lrl");

	snprintf(a, sizeof(a), "(%u + 20 bytes)", in->mtu);
	row(t, "largest frame being sent", r->max_frame_bt, a);
	row(t, "PFC frame", r->pfc_frame_bt, "(64 + 20 bytes)");
	row(t, "interface delay, receiver", r->intf_bt, "");
	snprintf(b, sizeof(b), "(%.1f ns)", (double)r->cable_bt / in->gbps);
	row(t, "cable, to the sender", r->cable_bt, b);
	row(t, "interface delay, sender", r->intf_bt, "");
	snprintf(c, sizeof(c), "(%.1f quanta)", r->resp_bt / 512.0);
	row(t, "pause response", r->resp_bt, c);
	snprintf(a, sizeof(a), "(%u + 20 bytes)", in->lossless_mtu);
	row(t, "lossless frame being sent", r->lossless_bt, a);
	row(t, "cable, back", r->cable_bt, b);
	snprintf(c, sizeof(c), "(%llu.%llu ns, %llu quanta)",
		 (unsigned long long)(r->total_ns_x10 / 10),
		 (unsigned long long)(r->total_ns_x10 % 10),
		 (unsigned long long)r->quanta);
	row(t, "total", r->total_bt, c);

	fmt_milli(m, sizeof(m), in->cable_mm);
	printf("PFC headroom at %uG, cable %s m, mtu %u, lossless-mtu %u:\n",
	       in->gbps, m, in->mtu, in->lossless_mtu);
	table_print(t, stdout, "  ");
	table_free(t);
	kb(a, sizeof(a), r->bytes);
	printf("headroom: %llu bytes (%s)\n", (unsigned long long)r->bytes, a);
	kb(a, sizeof(a), r->cell_bytes);
	fmt_milli(m, sizeof(m), r->factor_x1000);
	printf("with %u-byte cells (%u per 64-byte frame, factor %s): ",
	       in->cell, r->cells_per_frame, m);
	printf("%llu bytes (%s), %llu cells\n",
	       (unsigned long long)r->cell_bytes, a,
	       (unsigned long long)r->cells);
}

static void print_json(const struct hr_input *in, const struct hr_result *r)
{
	jw_init(stdout, cli.pretty);
	jw_obj_open(NULL);
	jw_u64("speed_gbps", in->gbps);
	jw_fixed("cable_m", in->cable_mm);
	jw_u64("mtu", in->mtu);
	jw_u64("lossless_mtu", in->lossless_mtu);
	jw_u64("cell", in->cell);
	jw_u64("max_frame_bt", r->max_frame_bt);
	jw_u64("pfc_frame_bt", r->pfc_frame_bt);
	jw_u64("intf_delay_bt", r->intf_bt);
	jw_u64("cable_bt", r->cable_bt);
	jw_u64("resp_delay_bt", r->resp_bt);
	jw_u64("lossless_frame_bt", r->lossless_bt);
	jw_u64("total_bt", r->total_bt);
	jw_fixed("total_ns", r->total_ns_x10 * 100);
	jw_u64("total_quanta", r->quanta);
	jw_u64("bytes", r->bytes);
	jw_u64("cells_per_frame", r->cells_per_frame);
	jw_fixed("cell_factor", r->factor_x1000);
	jw_u64("cell_bytes", r->cell_bytes);
	jw_u64("cells", r->cells);
	jw_obj_close();
}

int cmd_headroom(int argc, char **argv)
{
	struct hr_input in = {
		.mtu = HR_DEFAULT_MTU,
		.lossless_mtu = HR_DEFAULT_LOSSLESS_MTU,
		.cell = HR_DEFAULT_CELL,
	};
	bool has_speed = false, has_cable = false;
	struct hr_result r;
	const char *s, *why;

	for (; argc > 0; argc--, argv++) {
		if (matches(*argv, "speed")) {
			s = next_arg(&argc, &argv, "speed");
			if (hr_parse_speed(s, &in.gbps, &why))
				usage_error("headroom: bad speed \"%s\": %s", s, why);
			has_speed = true;
		} else if (matches(*argv, "cable")) {
			s = next_arg(&argc, &argv, "cable");
			if (hr_parse_length(s, &in.cable_mm, &why))
				usage_error("headroom: bad cable length \"%s\": %s", s, why);
			has_cable = true;
		} else if (!strcmp(*argv, "mtu")) {
			in.mtu = arg_bytes(&argc, &argv, "mtu");
		} else if (!strcmp(*argv, "lossless-mtu")) {
			in.lossless_mtu = arg_bytes(&argc, &argv, "lossless-mtu");
		} else if (matches(*argv, "cell")) {
			in.cell = arg_bytes(&argc, &argv, "cell");
		} else if (!strcmp(*argv, "intf-delay")) {
			in.intf_bt = arg_bt(&argc, &argv, "intf-delay");
			in.has_intf_bt = true;
		} else if (!strcmp(*argv, "resp-delay")) {
			in.resp_bt = arg_bt(&argc, &argv, "resp-delay");
			in.has_resp_bt = true;
		} else if (matches(*argv, "help")) {
			usage_headroom(stdout);
			exit(EXIT_OK);
		} else {
			usage_error("headroom: unknown argument \"%s\"", *argv);
		}
	}
	if (!has_speed || !has_cable)
		usage_error("headroom: \"speed SPEED\" and \"cable LENGTH\" are required");
	if (hr_compute(&in, &r, &why))
		usage_error("headroom: %s", why);
	if (cli.json)
		print_json(&in, &r);
	else
		print_human(&in, &r);
	return fflush(stdout) ? EXIT_FAIL : EXIT_OK;
}
