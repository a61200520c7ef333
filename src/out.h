/* out: render a small table of strings as an aligned text table, CSV or Markdown.
 *
 * The caller adds a header and rows of cells (copied, with control characters escaped as
 * text_escape does, so no data string reaches a terminal or a file raw); out_print writes to a
 * FILE. Numbers are formatted by the caller. Owns its memory: out_init / out_release. */
#ifndef ROOFCOST_OUT_H
#define ROOFCOST_OUT_H

#include <stdio.h>

typedef enum out_format { OUT_TABLE, OUT_CSV, OUT_JSON, OUT_MD } out_format;

extern const char *const out_format_names[];

typedef struct out_table {
	int ncols, nrows, cap;
	char **cells;      /* (nrows + 1) × ncols, row 0 the header; owned */
	int *right;        /* per column: 1 = right-aligned (numbers) */
} out_table;

/* Starts a table with ncols columns named by header[]. Returns 0 or -1 (out of memory). */
int out_init(out_table *t, int ncols, const char *const *header);

/* Marks column i as numeric (right-aligned in text tables). */
void out_right(out_table *t, int col);

/* Appends a row of ncols cells (NULL = empty). Returns 0 or -1. */
int out_row(out_table *t, const char *const *cells);

/* Writes t as text (aligned columns), CSV (RFC 4180 quoting) or Markdown ('|' escaped).
 * OUT_JSON is not handled here (commands build JSON with cJSON, which escapes controls). */
void out_print(const out_table *t, out_format f, FILE *fp);

void out_release(out_table *t);

/* Parses "table|csv|json|md". Returns 0 or -1. */
int out_parse_format(const char *s, out_format *f);

/* Formats v with `sig` significant digits into buf ("-" for NaN). Returns buf. */
char *out_num(char *buf, int len, double v, int sig);

#endif
