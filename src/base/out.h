/* out: render a small table of strings as an aligned text table, CSV or Markdown.
 *
 * The caller adds a header and rows of cells (copied, with control characters escaped as
 * text_escape does, so no data string reaches a terminal or a file raw); out_print writes to a
 * FILE. Numbers are formatted by the caller. Owns its memory: out_init / out_release.
 *
 * Text tables fit OUT_WIDTH columns unless out_wide lifts the limit (--wide): when a table is
 * wider, headers wider than their column break at '_', then a column marked OUT_FIT_BELOW goes
 * under its row (indented, wrapped), then the optional columns are left out (highest priority
 * number first, named in a note under the table), then the text columns marked OUT_FIT_WRAP
 * or OUT_FIT_CLIP are narrowed (wrapped onto more lines, or cut with "..."). CSV and Markdown
 * always carry every column and every character but control characters ('|' escaped in
 * Markdown). */
#ifndef ROOFCOST_OUT_H
#define ROOFCOST_OUT_H

#include <stdio.h>

typedef enum out_format { OUT_TABLE, OUT_CSV, OUT_JSON, OUT_MD } out_format;

extern const char *const out_format_names[];

enum { OUT_WIDTH = 120 };

/* How a text column may be narrowed to fit. */
typedef enum out_fit { OUT_FIT_NONE, OUT_FIT_WRAP, OUT_FIT_CLIP, OUT_FIT_BELOW } out_fit;

typedef struct out_table {
	int ncols, nrows, cap;
	char **cells;      /* (nrows + 1) × ncols, row 0 the header, control characters escaped; owned */
	char **raw;        /* the same cells as given (for JSON, which escapes them itself); owned */
	int *right;        /* per column: 1 = right-aligned (numbers) */
	int *drop;         /* per column: 0 = always shown, n > 0 = may be left out (highest first) */
	int *fit;          /* per column: an out_fit */
	int width;         /* text tables: the most columns; 0 = no limit */
} out_table;

/* Cell (row, col) as given to out_row (row 0: the header), before text_escape. */
const char *out_cell_raw(const out_table *t, int row, int col);

/* Starts a table with ncols columns named by header[]. Returns 0 or -1 (out of memory). */
int out_init(out_table *t, int ncols, const char *const *header);

/* Marks column i as numeric (right-aligned in text tables). */
void out_right(out_table *t, int col);

/* Marks column col as one a narrow text table may leave out; prio > 0, the highest goes first. */
void out_optional(out_table *t, int col, int prio);

/* Lets a narrow text table wrap (OUT_FIT_WRAP), cut (OUT_FIT_CLIP) or move under its row
 * (OUT_FIT_BELOW) text column col. The last column, when left-aligned, wraps unless told
 * otherwise. */
void out_fit_col(out_table *t, int col, out_fit how);

/* wide != 0: the text table keeps every column and every character (--wide). */
void out_wide(out_table *t, int wide);

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
