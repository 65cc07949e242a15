/* SPDX-License-Identifier: GPL-2.0 */
/*
 * PFC (IEEE 802.1Qbb) headroom: how much a receiver must still be able to
 * buffer on a lossless priority after it decides to send pause, because of
 * what is already on its way.  Pure computation: no I/O, no global state;
 * unit-tested in tools/testing/unit/headroom_test.c.
 */
#ifndef _PFCWD_TOOLS_HEADROOM_H
#define _PFCWD_TOOLS_HEADROOM_H

#include <stdbool.h>
#include <stdint.h>

/* Defaults of the command line. */
#define HR_DEFAULT_MTU		9216
#define HR_DEFAULT_LOSSLESS_MTU	2300
#define HR_DEFAULT_CELL		416

/* Accepted ranges. */
#define HR_FRAME_MIN		64		/* bytes, a minimum frame */
#define HR_FRAME_MAX		65535		/* bytes */
#define HR_CELL_MAX		65535		/* bytes */
#define HR_CABLE_MM_MAX		100000000ULL	/* 100 km */
#define HR_DELAY_BT_MAX		100000000ULL	/* bit times, overrides */

struct hr_input {
	unsigned int gbps;	/* 10, 25, 40, 100 or 400 */
	uint64_t cable_mm;	/* cable length, millimetres, > 0 */
	uint32_t mtu;		/* largest frame on the link, bytes */
	uint32_t lossless_mtu;	/* largest frame of the lossless priority */
	uint32_t cell;		/* the receiver's buffer cell, bytes */
	bool has_intf_bt;	/* override the speed's interface delay */
	uint64_t intf_bt;
	bool has_resp_bt;	/* override the speed's pause response */
	uint64_t resp_bt;
};

/* Every term in bit times (BT, the time to send one bit at the speed). */
struct hr_result {
	uint64_t max_frame_bt;	/* receiver finishes sending a largest frame */
	uint64_t pfc_frame_bt;	/* then sends the PFC frame */
	uint64_t intf_bt;	/* interface delay, each direction */
	uint64_t cable_bt;	/* cable propagation, each direction */
	uint64_t resp_bt;	/* the sender's pause response */
	uint64_t lossless_bt;	/* sender finishes a lossless frame */
	uint64_t total_bt;	/* all of it, interface and cable twice */
	uint64_t total_ns_x10;	/* the same in tenths of nanoseconds */
	uint64_t quanta;	/* in pause quanta (512 BT), rounded up */
	uint64_t bytes;		/* total_bt / 8, rounded up */
	/*
	 * Buffer cells: in the worst case every byte comes in a minimum
	 * (64-byte) frame that occupies whole cells, so the headroom grows
	 * by cell_factor = cells per minimum frame * cell / 64.
	 */
	uint32_t cells_per_frame;
	uint64_t factor_x1000;	/* cell_factor * 1000, rounded up */
	uint64_t cell_bytes;	/* bytes * cell_factor, rounded up */
	uint64_t cells;		/* cell_bytes / cell, rounded up */
};

/* The upper bounds of DESIGN section 1 for a speed; false if unknown. */
bool hr_speed_bounds(unsigned int gbps, uint64_t *intf_bt, uint64_t *resp_bt);

/*
 * Each returns 0, or -EINVAL with *why set to a static message saying what
 * is wrong with the value (without repeating the value).
 */
int hr_parse_speed(const char *s, unsigned int *gbps, const char **why);
int hr_parse_length(const char *s, uint64_t *mm, const char **why);
int hr_compute(const struct hr_input *in, struct hr_result *out,
	       const char **why);

#endif /* _PFCWD_TOOLS_HEADROOM_H */
