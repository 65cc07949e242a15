// SPDX-License-Identifier: GPL-2.0
/*
 * pfcwd(8): a small streaming JSON writer.  Objects and arrays nest up to
 * JW_DEPTH; members are written as they come (no buffering), with commas
 * and, when pretty, newlines and four-space indentation.  A value at the
 * top level ends with a newline, so that a stream of events is one JSON
 * text per line (unless pretty).  Strings are escaped as RFC 8259 requires
 * (quote, backslash, control characters); other bytes pass through.
 *
 * Single-threaded; the state is static.
 */
#include <stdio.h>

#include "cli.h"

#define JW_DEPTH 8

static struct {
	FILE *f;
	bool pretty;
	int depth;
	bool first[JW_DEPTH];	/* no member yet at this level */
} jw;

void jw_init(FILE *f, bool pretty)
{
	jw.f = f;
	jw.pretty = pretty;
	jw.depth = 0;
	jw.first[0] = true;
}

static void jw_indent(void)
{
	int i;

	fputc('\n', jw.f);
	for (i = 0; i < jw.depth; i++)
		fputs("    ", jw.f);
}

static void jw_string(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	fputc('"', jw.f);
	for (; *p; p++) {
		switch (*p) {
		case '"':
			fputs("\\\"", jw.f);
			break;
		case '\\':
			fputs("\\\\", jw.f);
			break;
		case '\n':
			fputs("\\n", jw.f);
			break;
		case '\t':
			fputs("\\t", jw.f);
			break;
		default:
			if (*p < 0x20)
				fprintf(jw.f, "\\u%04x", *p);
			else
				fputc(*p, jw.f);
		}
	}
	fputc('"', jw.f);
}

/* Separator, indentation and key before a member or element. */
static void jw_member(const char *key)
{
	if (jw.depth > 0) {
		if (!jw.first[jw.depth])
			fputc(',', jw.f);
		if (jw.pretty)
			jw_indent();
	}
	jw.first[jw.depth] = false;
	if (key) {
		jw_string(key);
		fputs(jw.pretty ? ": " : ":", jw.f);
	}
}

/* After a complete value: the end of a top-level one is a line's end. */
static void jw_value_done(void)
{
	if (jw.depth == 0) {
		fputc('\n', jw.f);
		jw.first[0] = true;
	}
}

static void jw_open(const char *key, char c)
{
	jw_member(key);
	fputc(c, jw.f);
	if (jw.depth + 1 < JW_DEPTH)
		jw.depth++;
	jw.first[jw.depth] = true;
}

static void jw_close(char c)
{
	bool empty = jw.first[jw.depth];

	if (jw.depth > 0)
		jw.depth--;
	if (jw.pretty && !empty)
		jw_indent();
	fputc(c, jw.f);
	jw_value_done();
}

void jw_obj_open(const char *key)
{
	jw_open(key, '{');
}

void jw_obj_close(void)
{
	jw_close('}');
}

void jw_arr_open(const char *key)
{
	jw_open(key, '[');
}

void jw_arr_close(void)
{
	jw_close(']');
}

void jw_u64(const char *key, uint64_t v)
{
	jw_member(key);
	fprintf(jw.f, "%llu", (unsigned long long)v);
	jw_value_done();
}

void jw_str(const char *key, const char *s)
{
	jw_member(key);
	jw_string(s);
	jw_value_done();
}

void jw_bool(const char *key, bool v)
{
	jw_member(key);
	fputs(v ? "true" : "false", jw.f);
	jw_value_done();
}

/* A number with three decimals, trailing zeros dropped: 6500 -> 6.5. */
void jw_fixed(const char *key, uint64_t v_x1000)
{
	char buf[32];

	jw_member(key);
	fmt_milli(buf, sizeof(buf), v_x1000);
	fputs(buf, jw.f);
	jw_value_done();
}

/* A priority bitmask as an array of numbers: 0x18 -> [3,4]. */
void jw_prio_list(const char *key, uint8_t mask)
{
	bool pretty = jw.pretty;
	int p;

	jw_arr_open(key);
	jw.pretty = false;	/* short: keep it on one line */
	for (p = 0; p < PFCWD_NUM_PRIO; p++)
		if (mask & (1U << p))
			jw_u64(NULL, (uint64_t)p);
	jw_arr_close();
	jw.pretty = pretty;
}
