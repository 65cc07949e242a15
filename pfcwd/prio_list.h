/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Priority lists as users write them ("3,4", "0-2,5") and their bitmask
 * form (bit P set = priority P in the list).  Pure code: see pure.h.
 */
#ifndef _PFCWD_PRIO_LIST_H
#define _PFCWD_PRIO_LIST_H

#include "pure.h"

/* Longest formatted list, "0,1,2,3,4,5,6,7", with its NUL. */
#define PFCWD_PRIO_LIST_LEN	16

int pfcwd_prio_list_parse(const char *s, size_t len, u8 *mask);
size_t pfcwd_prio_list_format(u8 mask, char *buf, size_t size);

#endif /* _PFCWD_PRIO_LIST_H */
