// SPDX-License-Identifier: GPL-2.0
/*
 * PFC headroom computation (IEEE 802.1Qbb), pure code: no I/O, no global
 * state, no locking; safe from any thread.
 *
 * After a receiver decides to pause a priority, data keeps arriving for:
 *   - the largest frame it may have just begun to send (pause does not
 *     preempt a frame): MTU + preamble/SFD (8) + inter-frame gap (12);
 *   - the PFC frame itself: 64 bytes + 20;
 *   - the interface delay of both ends (PHY/MAC, IEEE 802.3 bounds);
 *   - the cable, 5 ns per metre, one way;
 *   - the sender's pause response (bounds per speed);
 *   - the lossless frame the sender may have just begun: lossless MTU + 20;
 *   - the cable and the interface again, for the last bits to come back.
 * The worked example of DESIGN section 1 (10G, 100 m, 9216/2300) gives
 * 73888 + 672 + 8192 + 5000 + 8192 + 30720 + 18560 + 5000 = 150224 BT.
 */
#include <errno.h>
#include <stddef.h>

#include "headroom.h"

#define HR_FRAME_OVERHEAD	20	/* preamble + SFD + inter-frame gap */
#define HR_PFC_FRAME		64	/* bytes, without overhead */
#define HR_MIN_FRAME		64	/* the worst case for cells */
#define HR_QUANTUM_BT		512
#define HR_NS_PER_M		5	/* propagation, ns per metre */

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
#endif

struct hr_speed {
	unsigned int gbps;
	uint64_t intf_bt;
	uint64_t resp_bt;
};

/*
 * Interface delay and pause response upper bounds, bit times (DESIGN
 * section 1).  400G: DESIGN gives no interface delay; we take the 100G
 * bound's duration (1228.8 ns = 122880 BT at 100G) at 400G, 491520 BT,
 * on the safe side; "intf-delay" overrides it.
 */
static const struct hr_speed hr_speeds[] = {
	{ 10,	8192,	30720 },	/* response: 60 quanta */
	{ 25,	6144,	40960 },	/* 80 */
	{ 40,	24576,	60416 },	/* 118 */
	{ 100,	122880,	201728 },	/* 394 */
	{ 400,	491520,	463360 },	/* 905 */
};

static uint64_t div_up(uint64_t a, uint64_t b)
{
	return a / b + (a % b != 0);
}

bool hr_speed_bounds(unsigned int gbps, uint64_t *intf_bt, uint64_t *resp_bt)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(hr_speeds); i++) {
		if (hr_speeds[i].gbps == gbps) {
			*intf_bt = hr_speeds[i].intf_bt;
			*resp_bt = hr_speeds[i].resp_bt;
			return true;
		}
	}
	return false;
}

/* Decimal digits s[0..n) as a number, at most 9 of them. */
static int hr_digits(const char *s, size_t n, uint64_t *v)
{
	uint64_t x = 0;
	size_t i;

	if (n == 0 || n > 9)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -EINVAL;
		x = x * 10 + (uint64_t)(s[i] - '0');
	}
	*v = x;
	return 0;
}

static size_t hr_span_digits(const char *s)
{
	size_t n = 0;

	while (s[n] >= '0' && s[n] <= '9')
		n++;
	return n;
}

static int hr_strcaseeq(const char *a, const char *b)
{
	for (; *a && *b; a++, b++) {
		char x = *a, y = *b;

		if (x >= 'A' && x <= 'Z')
			x = (char)(x - 'A' + 'a');
		if (y >= 'A' && y <= 'Z')
			y = (char)(y - 'A' + 'a');
		if (x != y)
			return 0;
	}
	return *a == *b;
}

/**
 * hr_parse_speed - parse a link speed
 * @s: "10G", "25G", "40G", "100G" or "400G" (g or G), or the same in Mb/s
 *     as ethtool prints it ("100000")
 * @gbps: the speed in Gb/s
 * @why: the reason on error
 *
 * Return: 0 or -EINVAL.
 */
int hr_parse_speed(const char *s, unsigned int *gbps, const char **why)
{
	uint64_t intf, resp, v;
	size_t n = hr_span_digits(s);

	*why = "unknown speed: use 10G, 25G, 40G, 100G or 400G";
	if (hr_digits(s, n, &v))
		return -EINVAL;
	if (s[n] == '\0' && v % 1000 == 0)
		v /= 1000;		/* Mb/s */
	else if (!hr_strcaseeq(s + n, "g"))
		return -EINVAL;
	if (s[0] == '0' || !hr_speed_bounds((unsigned int)v, &intf, &resp))
		return -EINVAL;
	*gbps = (unsigned int)v;
	return 0;
}

/**
 * hr_parse_length - parse a cable length
 * @s: metres, "100m", "100", "2.5m", "0.75m", or kilometres, "2km"; at
 *     most millimetre precision
 * @mm: the length in millimetres, > 0 and at most 100 km
 * @why: the reason on error
 *
 * Return: 0 or -EINVAL.
 */
int hr_parse_length(const char *s, uint64_t *mm, const char **why)
{
	uint64_t whole, frac = 0, unit, scale = 1, v;
	size_t n = hr_span_digits(s), nf = 0;
	const char *p = s + n;

	*why = "expected a length in metres such as 100m, 2.5m or 1km";
	if (hr_digits(s, n, &whole))
		return -EINVAL;
	if (*p == '.') {
		p++;
		nf = hr_span_digits(p);
		if (hr_digits(p, nf, &frac))
			return -EINVAL;
		p += nf;
	}
	if (*p == '\0' || hr_strcaseeq(p, "m"))
		unit = 1000;
	else if (hr_strcaseeq(p, "km"))
		unit = 1000000;
	else
		return -EINVAL;

	while (nf--)
		scale *= 10;
	if ((frac * unit) % scale) {
		*why = "finer than a millimetre";
		return -EINVAL;
	}
	v = whole * unit + frac * unit / scale;
	if (v == 0) {
		*why = "must be longer than 0";
		return -EINVAL;
	}
	if (v > HR_CABLE_MM_MAX) {
		*why = "longer than 100 km";
		return -EINVAL;
	}
	*mm = v;
	return 0;
}

/**
 * hr_compute - the headroom of a lossless priority
 * @in: link speed, cable, frame sizes, cell size, optional overrides
 * @out: every term and the totals
 * @why: the reason on error
 *
 * Return: 0, or -EINVAL for an unknown speed or a value out of range.
 */
int hr_compute(const struct hr_input *in, struct hr_result *out,
	       const char **why)
{
	uint64_t intf, resp;

	if (!hr_speed_bounds(in->gbps, &intf, &resp)) {
		*why = "unknown speed: use 10G, 25G, 40G, 100G or 400G";
		return -EINVAL;
	}
	if (in->cable_mm == 0 || in->cable_mm > HR_CABLE_MM_MAX) {
		*why = "cable length must be more than 0 and at most 100 km";
		return -EINVAL;
	}
	if (in->mtu < HR_FRAME_MIN || in->mtu > HR_FRAME_MAX) {
		*why = "mtu must be 64-65535 bytes";
		return -EINVAL;
	}
	if (in->lossless_mtu < HR_FRAME_MIN || in->lossless_mtu > in->mtu) {
		*why = "lossless-mtu must be 64 bytes to the mtu";
		return -EINVAL;
	}
	if (in->cell < 1 || in->cell > HR_CELL_MAX) {
		*why = "cell must be 1-65535 bytes";
		return -EINVAL;
	}
	if ((in->has_intf_bt && (!in->intf_bt || in->intf_bt > HR_DELAY_BT_MAX)) ||
	    (in->has_resp_bt && (!in->resp_bt || in->resp_bt > HR_DELAY_BT_MAX))) {
		*why = "delays must be 1-100000000 bit times";
		return -EINVAL;
	}
	if (in->has_intf_bt)
		intf = in->intf_bt;
	if (in->has_resp_bt)
		resp = in->resp_bt;

	out->max_frame_bt = ((uint64_t)in->mtu + HR_FRAME_OVERHEAD) * 8;
	out->pfc_frame_bt = (HR_PFC_FRAME + HR_FRAME_OVERHEAD) * 8;
	out->intf_bt = intf;
	/* mm * 5 ns/m / 1000 = ns; ns * Gb/s = bits */
	out->cable_bt = div_up(in->cable_mm * HR_NS_PER_M * in->gbps, 1000);
	out->resp_bt = resp;
	out->lossless_bt = ((uint64_t)in->lossless_mtu + HR_FRAME_OVERHEAD) * 8;
	out->total_bt = out->max_frame_bt + out->pfc_frame_bt +
			2 * out->intf_bt + 2 * out->cable_bt + out->resp_bt +
			out->lossless_bt;
	out->total_ns_x10 = div_up(out->total_bt * 10, in->gbps);
	out->quanta = div_up(out->total_bt, HR_QUANTUM_BT);
	out->bytes = div_up(out->total_bt, 8);

	out->cells_per_frame = (uint32_t)div_up(HR_MIN_FRAME, in->cell);
	out->factor_x1000 = div_up((uint64_t)out->cells_per_frame * in->cell *
				   1000, HR_MIN_FRAME);
	out->cell_bytes = div_up(out->bytes * out->cells_per_frame * in->cell,
				 HR_MIN_FRAME);
	out->cells = div_up(out->cell_bytes, in->cell);
	return 0;
}
