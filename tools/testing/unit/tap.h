/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Minimal TAP output for pfcwd's user-space unit tests.
 *
 *	tap_plan(n);
 *	tap_ok(cond, "fmt", ...);	one test point
 *	return tap_done();		0 if every point passed
 */
#ifndef _PFCWD_UNIT_TAP_H
#define _PFCWD_UNIT_TAP_H

#include <stdio.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static int tap_n, tap_failed, tap_planned;

static inline void tap_plan(int n)
{
	tap_planned = n;
	printf("TAP version 13\n1..%d\n", n);
}

static inline void tap_begin(int cond)
{
	tap_n++;
	printf("%sok %d - ", cond ? "" : "not ", tap_n);
}

static inline int tap_end(int cond, const char *file, int line)
{
	if (!cond) {
		tap_failed++;
		printf("# failed at %s:%d\n", file, line);
	}
	return cond;
}

/* One test point; the description is a printf format and its arguments. */
#define tap_ok(cond, fmt, ...) ({					\
	int __tap_c = !!(cond);						\
	tap_begin(__tap_c);						\
	printf(fmt "\n", ##__VA_ARGS__);				\
	tap_end(__tap_c, __FILE__, __LINE__);				\
})

static inline int tap_done(void)
{
	if (tap_n != tap_planned) {
		printf("# planned %d tests but ran %d\n", tap_planned, tap_n);
		return 1;
	}
	printf("# passed: %d failed: %d\n", tap_n - tap_failed, tap_failed);
	return tap_failed ? 1 : 0;
}

#endif /* _PFCWD_UNIT_TAP_H */
