/* out: text, CSV and Markdown tables (see out.h). */
#include "out.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "text.h"

const char *const out_format_names[] = {"table", "csv", "json", "md", NULL};

/* A cell as it will be printed: control characters escaped (text.h), in every format. */
static char *dup_cell(const char *s)
{
	size_t n;
	char *p;
	if (!s)
		s = "";
	n = text_escaped_len(s);
	p = malloc(n);
	if (p)
		text_escape(p, n, s);
	return p;
}

int out_init(out_table *t, int ncols, const char *const *header)
{
	memset(t, 0, sizeof *t);
	t->ncols = ncols;
	t->right = calloc((size_t)ncols, sizeof *t->right);
	if (!t->right)
		return -1;
	return out_row(t, header) == 0 ? (t->nrows = 0, 0) : -1;
}

void out_right(out_table *t, int col)
{
	if (col >= 0 && col < t->ncols)
		t->right[col] = 1;
}

int out_row(out_table *t, const char *const *cells)
{
	int used = t->cells ? t->nrows + 1 : 0;
	if (used + 1 > t->cap) {
		int cap = t->cap ? t->cap * 2 : 16;
		char **nc = realloc(t->cells, (size_t)cap * (size_t)t->ncols * sizeof *nc);
		if (!nc)
			return -1;
		t->cells = nc;
		t->cap = cap;
	}
	for (int i = 0; i < t->ncols; i++)
		t->cells[used * t->ncols + i] = dup_cell(cells[i]);
	if (used > 0)
		t->nrows++;
	return 0;
}

static void csv_cell(const char *s, FILE *fp)
{
	if (strpbrk(s, ",\"\n\r")) {
		fputc('"', fp);
		for (; *s; s++) {
			if (*s == '"')
				fputc('"', fp);
			fputc(*s, fp);
		}
		fputc('"', fp);
	} else {
		fputs(s, fp);
	}
}

/* " cell |" with '|' escaped, so that a cell cannot end the column early. */
static void md_cell(const char *s, FILE *fp)
{
	fputc(' ', fp);
	for (; *s; s++) {
		if (*s == '|')
			fputc('\\', fp);
		fputc(*s, fp);
	}
	fputs(" |", fp);
}

void out_print(const out_table *t, out_format f, FILE *fp)
{
	int rows = t->nrows + 1;
	if (f == OUT_CSV) {
		for (int r = 0; r < rows; r++)
			for (int c = 0; c < t->ncols; c++) {
				csv_cell(t->cells[r * t->ncols + c], fp);
				fputc(c + 1 < t->ncols ? ',' : '\n', fp);
			}
		return;
	}
	if (f == OUT_MD) {
		for (int r = 0; r < rows; r++) {
			fputs("|", fp);
			for (int c = 0; c < t->ncols; c++)
				md_cell(t->cells[r * t->ncols + c], fp);
			fputc('\n', fp);
			if (r == 0) {
				fputs("|", fp);
				for (int c = 0; c < t->ncols; c++)
					fputs(t->right[c] ? " ---: |" : " --- |", fp);
				fputc('\n', fp);
			}
		}
		return;
	}
	{
		int w[64] = {0};
		int nc = t->ncols < 64 ? t->ncols : 64;
		for (int r = 0; r < rows; r++)
			for (int c = 0; c < nc; c++) {
				int l = (int)strlen(t->cells[r * t->ncols + c]);
				if (l > w[c])
					w[c] = l;
			}
		for (int r = 0; r < rows; r++) {
			for (int c = 0; c < nc; c++) {
				const char *s = t->cells[r * t->ncols + c];
				const char *sep = c + 1 < nc ? "  " : "";
				if (c + 1 == nc && !t->right[c])
					fprintf(fp, "%s", s);
				else if (t->right[c])
					fprintf(fp, "%*s%s", w[c], s, sep);
				else
					fprintf(fp, "%-*s%s", w[c], s, sep);
			}
			fputc('\n', fp);
		}
	}
}

void out_release(out_table *t)
{
	int used = t->cells ? t->nrows + 1 : 0;
	for (int i = 0; i < used * t->ncols; i++)
		free(t->cells[i]);
	free(t->cells);
	free(t->right);
	memset(t, 0, sizeof *t);
}

int out_parse_format(const char *s, out_format *f)
{
	for (int i = 0; out_format_names[i]; i++)
		if (strcmp(s, out_format_names[i]) == 0) {
			*f = (out_format)i;
			return 0;
		}
	return -1;
}

char *out_num(char *buf, int len, double v, int sig)
{
	if (isnan(v))
		snprintf(buf, (size_t)len, "-");
	else if (v != 0 && (fabs(v) >= 1e7 || fabs(v) < 1e-3))
		snprintf(buf, (size_t)len, "%.*e", sig - 1, v);
	else {
		/* Fixed notation with `sig` significant digits. */
		int mag = v == 0 ? 0 : (int)floor(log10(fabs(v)));
		int dec = sig - 1 - mag;
		if (dec < 0)
			dec = 0;
		snprintf(buf, (size_t)len, "%.*f", dec, v);
	}
	return buf;
}
