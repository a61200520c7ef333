/* csvin: CSV rows with line numbers on libcsv (see csvin.h). */
#include "base/csvin.h"

#include <csv.h>
#include <errno.h>
#include <nettle/sha2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/text.h"
#include "base/os.h"

enum { CHUNK = 1 << 16 };

typedef struct state {
	const char *path;
	csvin_row_fn fn;
	void *ctx;
	err *e;
	int failed;        /* the error code, once something failed */
	int line;          /* physical line being fed */
	int row_open;      /* a row has started and not yet ended */
	int row_line;      /* line the open row started on */
	size_t row_bytes;  /* bytes fed since the open row started */
	int nrows;
	char *fields[CSVIN_FIELDS_MAX];   /* fields of the open row */
	int nfields;
} state;

static void drop_fields(state *st)
{
	for (int i = 0; i < st->nfields; i++)
		free(st->fields[i]);
	st->nfields = 0;
}

static void on_field(void *s, size_t len, void *data)
{
	state *st = data;
	char *f;
	if (st->failed)
		return;
	if (!st->row_open) {
		/* A second row on one physical line (a bare CR ends rows too). */
		st->row_open = 1;
		st->row_line = st->line;
	}
	if (st->nfields == CSVIN_FIELDS_MAX) {
		st->failed = err_at(st->e, st->path, st->row_line, "more than %d fields", CSVIN_FIELDS_MAX);
		return;
	}
	if (len > CSVIN_FIELD_MAX) {
		st->failed = err_at(st->e, st->path, st->row_line, "field %d is longer than %d bytes",
				    st->nfields + 1, CSVIN_FIELD_MAX);
		return;
	}
	f = malloc(len + 1);
	if (!f) {
		st->failed = err_set(st->e, ERR_DATA, "out of memory");
		return;
	}
	if (len)
		memcpy(f, s, len);
	f[len] = '\0';
	st->fields[st->nfields++] = f;
}

static void on_row(int term, void *data)
{
	state *st = data;
	csvin_row r;
	int rc;
	(void)term;
	if (st->failed)
		return;
	if (st->nrows == CSVIN_ROWS_MAX) {
		st->failed = err_at(st->e, st->path, st->row_line, "more than %d rows", CSVIN_ROWS_MAX);
		return;
	}
	r.line = st->row_line;
	r.n = st->nfields;
	r.fields = st->fields;
	rc = st->fn(st->ctx, &r, st->e);
	drop_fields(st);
	st->nrows++;
	st->row_open = 0;
	st->row_bytes = 0;
	if (rc)
		st->failed = rc;
}

static int blank_line(const char *s, size_t n)
{
	return (n == 1 && s[0] == '\n') || (n == 2 && s[0] == '\r' && s[1] == '\n');
}

/* Feeds one physical line (with its line feed, if any) to libcsv. */
static void feed_line(state *st, struct csv_parser *p, const char *s, size_t n)
{
	st->line++;
	if (st->line == 1 && n >= 3 && memcmp(s, "\xEF\xBB\xBF", 3) == 0) {
		s += 3;
		n -= 3;
	}
	if (!st->row_open && blank_line(s, n))
		return;
	if (!st->row_open) {
		st->row_open = 1;
		st->row_line = st->line;
	}
	st->row_bytes += n;
	if (st->row_bytes > CSVIN_LINE_MAX) {
		st->failed = err_at(st->e, st->path, st->row_line, "row longer than %d bytes", CSVIN_LINE_MAX);
		return;
	}
	if (csv_parse(p, s, n, on_field, on_row, st) != n && !st->failed)
		st->failed = err_at(st->e, st->path, st->line, "malformed quoting: a quote inside an "
				    "unquoted field, or text after a closing quote");
}

static void sha256_hex(struct sha256_ctx *ctx, char *out)
{
	uint8_t dg[SHA256_DIGEST_SIZE];
	sha256_digest(ctx, sizeof dg, dg);
	for (int i = 0; i < SHA256_DIGEST_SIZE; i++)
		snprintf(out + 2 * i, 3, "%02x", dg[i]);
}

int csvin_each(const char *path, csvin_row_fn fn, void *ctx, char *sha256, err *e)
{
	struct csv_parser p;
	struct sha256_ctx sc;
	text_scan ts;
	state st;
	FILE *f = os_open_read(path, e);   /* a named pipe is refused, not waited on */
	char *chunk, *line;
	size_t used = 0;    /* bytes of the current physical line in `line` */
	size_t cap = 4096;  /* grows to CSVIN_LINE_MAX for a long line */

	if (!f)
		return ERR_DATA;
	chunk = malloc(CHUNK);
	line = malloc(cap);
	if (!chunk || !line || csv_init(&p, CSV_STRICT | CSV_STRICT_FINI | CSV_APPEND_NULL) != 0) {
		free(chunk);
		free(line);
		fclose(f);
		return err_set(e, ERR_DATA, "out of memory");
	}
	memset(&st, 0, sizeof st);
	st.path = path;
	st.fn = fn;
	st.ctx = ctx;
	st.e = e;
	sha256_init(&sc);
	text_scan_init(&ts);
	/* Fed one physical line at a time, so that a row knows the line it starts on; each line is
	 * checked as text before it is parsed, so errors come in file order. */
	while (!st.failed) {
		size_t got = fread(chunk, 1, CHUNK, f), pos = 0;
		if (got == 0)
			break;
		sha256_update(&sc, got, (const uint8_t *)chunk);
		while (pos < got && !st.failed) {
			const char *nl = memchr(chunk + pos, '\n', got - pos);
			size_t n = nl ? (size_t)(nl - (chunk + pos)) + 1 : got - pos;
			if (used + n > CSVIN_LINE_MAX) {
				st.failed = err_at(e, path, st.line + 1, "line longer than %d bytes", CSVIN_LINE_MAX);
				break;
			}
			if (used + n > cap) {
				char *nl2;
				while (cap < used + n)
					cap *= 2;
				if (!(nl2 = realloc(line, cap))) {
					st.failed = err_set(e, ERR_DATA, "out of memory");
					break;
				}
				line = nl2;
			}
			if (text_scan_feed(&ts, chunk + pos, n) != 0) {
				st.failed = err_at(e, path, (int)ts.line, "not a text file (%s)", ts.why);
				break;
			}
			memcpy(line + used, chunk + pos, n);
			used += n;
			pos += n;
			if (nl) {
				feed_line(&st, &p, line, used);
				used = 0;
			}
		}
	}
	if (!st.failed && ferror(f))
		st.failed = err_set(e, ERR_DATA, "%s: cannot read: %s", path, strerror(errno));
	if (!st.failed && text_scan_end(&ts) != 0)
		st.failed = err_at(e, path, (int)ts.line, "not a text file (%s)", ts.why);
	if (!st.failed && used)
		feed_line(&st, &p, line, used);
	if (!st.failed && csv_fini(&p, on_field, on_row, &st) != 0 && !st.failed)
		st.failed = err_at(e, path, st.row_line, "quoted field not closed before the end of the file");
	csv_free(&p);
	drop_fields(&st);
	fclose(f);
	free(chunk);
	free(line);
	if (!st.failed && sha256)
		sha256_hex(&sc, sha256);
	return st.failed;
}

/* csvin_row_fn of csvin_load: keeps a copy of every row. */
static int keep_row(void *ctx, const csvin_row *row, err *e)
{
	csvin_doc *d = ctx;
	csvin_row *r;
	if (d->nrows == d->cap) {
		int cap = d->cap ? 2 * d->cap : 64;
		csvin_row *nr = realloc(d->rows, (size_t)cap * sizeof *nr);
		if (!nr)
			return err_set(e, ERR_DATA, "out of memory");
		d->rows = nr;
		d->cap = cap;
	}
	r = &d->rows[d->nrows];
	r->line = row->line;
	r->n = 0;
	r->fields = malloc((size_t)(row->n ? row->n : 1) * sizeof *r->fields);
	if (!r->fields)
		return err_set(e, ERR_DATA, "out of memory");
	d->nrows++;
	for (int i = 0; i < row->n; i++) {
		size_t len = strlen(row->fields[i]) + 1;
		if (!(r->fields[i] = malloc(len)))
			return err_set(e, ERR_DATA, "out of memory");
		memcpy(r->fields[i], row->fields[i], len);
		r->n++;
	}
	return 0;
}

int csvin_load(csvin_doc *d, const char *path, err *e)
{
	memset(d, 0, sizeof *d);
	snprintf(d->path, sizeof d->path, "%s", path);
	if (csvin_each(path, keep_row, d, d->sha256, e) != 0) {
		csvin_release(d);
		return ERR_DATA;
	}
	return 0;
}

void csvin_release(csvin_doc *d)
{
	for (int r = 0; r < d->nrows; r++) {
		for (int i = 0; i < d->rows[r].n; i++)
			free(d->rows[r].fields[i]);
		free(d->rows[r].fields);
	}
	free(d->rows);
	d->rows = NULL;
	d->nrows = d->cap = 0;
}
