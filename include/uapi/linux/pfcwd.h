/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * pfcwd - PFC storm watchdog: user/kernel ABI.
 *
 * tc: the options of the "pfcwd" qdisc are nested in TCA_OPTIONS.
 */
#ifndef _UAPI_LINUX_PFCWD_H
#define _UAPI_LINUX_PFCWD_H

#include <linux/types.h>

/* Number of bands of the qdisc: one per IEEE 802.1p priority. */
#define PFCWD_NUM_PRIO		8

/* Largest per-band packet limit accepted by the qdisc. */
#define PFCWD_LIMIT_MAX		(1U << 20)

enum {
	TCA_PFCWD_UNSPEC,
	TCA_PFCWD_LIMIT,	/* u32: per-band packet limit, 1..PFCWD_LIMIT_MAX */
	__TCA_PFCWD_MAX
};

#define TCA_PFCWD_MAX (__TCA_PFCWD_MAX - 1)

#endif /* _UAPI_LINUX_PFCWD_H */
