/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pfcwd - interfaces between the parts of pfcwd.ko.
 */
#ifndef _PFCWD_PFCWD_H
#define _PFCWD_PFCWD_H

/* net_sched/sch_pfcwd.c: the qdisc kind, registered at module load. */
int pfcwd_sched_register(void);
void pfcwd_sched_unregister(void);

#endif /* _PFCWD_PFCWD_H */
