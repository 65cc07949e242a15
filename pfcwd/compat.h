/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Differences between the kernels pfcwd supports (Debian's 6.1 and 6.12).
 * Features are probed where the API was backported; only what cannot be
 * probed compares versions.
 */
#ifndef _PFCWD_COMPAT_H
#define _PFCWD_COMPAT_H

#include <linux/module.h>
#include <net/pkt_sched.h>

/*
 * Since 6.9 the stack asks for "net-sch-KIND" when a qdisc kind is unknown;
 * before, for "sch_KIND".  pkt_sched.h defines the macro where the new name
 * is used, so its presence is the probe.  The old alias is always emitted so
 * that one module file serves both.
 */
#ifdef MODULE_ALIAS_NET_SCH
#define PFCWD_MODULE_ALIAS_SCH(id) \
	MODULE_ALIAS_NET_SCH(id); MODULE_ALIAS("sch_" id)
#else
#define PFCWD_MODULE_ALIAS_SCH(id) \
	MODULE_ALIAS("net-sch-" id); MODULE_ALIAS("sch_" id)
#endif

#endif /* _PFCWD_COMPAT_H */
