// SPDX-License-Identifier: GPL-2.0
/*
 * pfcwd(8): human-readable tables.  Rows are collected as strings, then
 * printed with each column as wide as its widest cell, left- or
 * right-aligned.  Single-threaded; no locking.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

struct table {
	unsigned int cols, rows, cap;
	const char *align;	/* per column: 'l' or 'r' */
	char **cells;		/* rows * cols, row 0 the heads */
	size_t *width;
};

static void *xalloc(void *p, size_t n)
{
	p = realloc(p, n);
	if (!p) {
		perror("pfcwd");
		exit(EXIT_FAIL);
	}
	return p;
}

static char *xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;

	return memcpy(xalloc(NULL, n), s, n);
}

/* @heads: @cols column heads; @align: @cols letters 'l' or 'r'. */
struct table *table_new(unsigned int cols, const char *const *heads,
			const char *align)
{
	struct table *t = xalloc(NULL, sizeof(*t));

	t->cols = cols;
	t->rows = 0;
	t->cap = 0;
	t->align = align;
	t->cells = NULL;
	t->width = xalloc(NULL, cols * sizeof(*t->width));
	memset(t->width, 0, cols * sizeof(*t->width));
	table_add(t, heads);
	return t;
}

void table_add(struct table *t, const char *const *cells)
{
	unsigned int c;

	if (t->rows == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 16;
		t->cells = xalloc(t->cells, (size_t)t->cap * t->cols *
				  sizeof(*t->cells));
	}
	for (c = 0; c < t->cols; c++) {
		char *s = xstrdup(cells[c]);
		size_t n = strlen(s);

		t->cells[(size_t)t->rows * t->cols + c] = s;
		if (n > t->width[c])
			t->width[c] = n;
	}
	t->rows++;
}

void table_print(struct table *t, FILE *f, const char *indent)
{
	unsigned int r, c;
	size_t n, len;
	char *line;

	for (len = 0, c = 0; c < t->cols; c++)
		len += t->width[c] + 2;
	line = xalloc(NULL, len + 1);
	for (r = 0; r < t->rows; r++) {
		n = 0;
		for (c = 0; c < t->cols; c++) {
			const char *s = t->cells[(size_t)r * t->cols + c];
			int w = (int)t->width[c];

			n += (size_t)snprintf(line + n, len + 1 - n,
					      t->align[c] == 'r' ? "%*s  " : "%-*s  ",
					      w, s);
		}
		while (n && line[n - 1] == ' ')
			n--;	/* no trailing blanks */
		line[n] = '\0';
		fprintf(f, "%s%s\n", indent, line);
	}
	free(line);
}

void table_free(struct table *t)
{
	size_t i;

	for (i = 0; i < (size_t)t->rows * t->cols; i++)
		free(t->cells[i]);
	free(t->cells);
	free(t->width);
	free(t);
}
