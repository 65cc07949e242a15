// SPDX-License-Identifier: GPL-2.0
/*
 * Parsing and formatting of priority lists.  Pure code (pure.h): no kernel
 * calls, no locking, callable from any context.
 *
 * Grammar, strict: a list is empty, or ITEM(,ITEM)*, where ITEM is a single
 * digit 0-7 or a range A-B of such digits with A < B.  No spaces, no empty
 * items, no priority named twice.  One trailing newline is accepted (sysfs
 * writes from echo).  The empty list is the empty mask.
 */
#include "prio_list.h"

static int pfcwd_prio_digit(char c)
{
	return c >= '0' && c <= '7' ? c - '0' : -1;
}

/**
 * pfcwd_prio_list_parse - parse a priority list
 * @s: the text, not necessarily NUL-terminated
 * @len: its length in bytes
 * @mask: set to the priorities' bitmask on success, untouched on error
 *
 * Return: 0 or -EINVAL.
 */
int pfcwd_prio_list_parse(const char *s, size_t len, u8 *mask)
{
	size_t i = 0;
	u8 m = 0;

	if (len && s[len - 1] == '\n')
		len--;

	while (i < len) {
		int lo, hi, p;
		u8 bits = 0;

		lo = pfcwd_prio_digit(s[i++]);
		if (lo < 0)
			return -EINVAL;
		hi = lo;
		if (i < len && s[i] == '-') {
			if (++i >= len)
				return -EINVAL;
			hi = pfcwd_prio_digit(s[i++]);
			if (hi <= lo)
				return -EINVAL;
		}
		for (p = lo; p <= hi; p++)
			bits |= 1U << p;
		if (m & bits)
			return -EINVAL;
		m |= bits;

		if (i < len) {
			if (s[i] != ',' || i + 1 == len)
				return -EINVAL;
			i++;
		}
	}
	*mask = m;
	return 0;
}

/**
 * pfcwd_prio_list_format - format a bitmask as "P,P,..." in ascending order
 * @mask: the priorities
 * @buf: output, NUL-terminated when @size > 0
 * @size: size of @buf; PFCWD_PRIO_LIST_LEN always suffices
 *
 * Return: the length of the full list (without the NUL), as snprintf does:
 * the output was truncated if this is >= @size.
 */
size_t pfcwd_prio_list_format(u8 mask, char *buf, size_t size)
{
	size_t n = 0;
	int p;

	for (p = 0; p < 8; p++) {
		if (!(mask & (1U << p)))
			continue;
		if (n) {
			if (n + 1 < size)
				buf[n] = ',';
			n++;
		}
		if (n + 1 < size)
			buf[n] = '0' + p;
		n++;
	}
	if (size)
		buf[n < size ? n : size - 1] = '\0';
	return n;
}
