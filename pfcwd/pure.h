/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Base types for pfcwd's pure code: the files that make no kernel calls and
 * are compiled both into pfcwd.ko and into the user-space unit tests
 * (tools/testing/unit/).  They include this header and nothing else of the
 * kernel's.
 */
#ifndef _PFCWD_PURE_H
#define _PFCWD_PURE_H

#ifdef __KERNEL__
#include <linux/errno.h>
#include <linux/stddef.h>
#include <linux/types.h>
#else
#include <errno.h>
#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>

typedef __u8 u8;
typedef __u16 u16;
typedef __u32 u32;
typedef __u64 u64;
typedef __s64 s64;
#endif

#endif /* _PFCWD_PURE_H */
