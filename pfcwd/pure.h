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
#include <linux/limits.h>
#include <linux/math64.h>
#include <linux/stddef.h>
#include <linux/types.h>

#define PFCWD_U64_MAX	U64_MAX
#define PFCWD_U32_MAX	U32_MAX

static inline u64 pfcwd_div_u64(u64 a, u64 b)
{
	return div64_u64(a, b);
}
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

#define PFCWD_U64_MAX	((u64)~0ULL)
#define PFCWD_U32_MAX	((u32)~0U)

static inline u64 pfcwd_div_u64(u64 a, u64 b)
{
	return a / b;
}
#endif

#define PFCWD_NSEC_PER_MSEC	1000000ULL
#define PFCWD_NSEC_PER_SEC	1000000000ULL

#endif /* _PFCWD_PURE_H */
