/* csvin: CSV rows with line numbers on libcsv (see csvin.h). */
#include "csvin.h"

#include <csv.h>
#include <errno.h>
#include <nettle/sha2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { FILE_MAX = 64 << 20 };

typedef struct state {
	csvin_doc *d;
	err *e;
	int failed;
	int line;          /* physical line being fed */
	int row_open;      /* a row has started and not yet ended */
	int row_line;      /* line the open row started on */
	char **fields;     /* fields of the open row */
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
		st->failed = err_at(st->e, st->d->path, st->row_line, "more than %d fields", CSVIN_FIELDS_MAX);
		return;
	}
	if (len > CSVIN_FIELD_MAX) {
		st->failed = err_at(st->e, st->d->path, st->row_line, "field %d is longer than %d bytes",
				    st->nfields + 1, CSVIN_FIELD_MAX);
		return;
	}
	if (s && memchr(s, '\0', len)) {
		st->failed = err_at(st->e, st->d->path, st->row_line, "field %d holds a NUL byte",
				    st->nfields + 1);
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
	csvin_doc *d = st->d;
	csvin_row *r;
	(void)term;
	if (st->failed)
		return;
	if (d->nrows == CSVIN_ROWS_MAX) {
		st->failed = err_at(st->e, d->path, st->row_line, "more than %d rows", CSVIN_ROWS_MAX);
		return;
	}
	if (d->nrows == d->cap) {
		int cap = d->cap ? 2 * d->cap : 64;
		csvin_row *nr = realloc(d->rows, (size_t)cap * sizeof *nr);
		if (!nr) {
			st->failed = err_set(st->e, ERR_DATA, "out of memory");
			return;
		}
		d->rows = nr;
		d->cap = cap;
	}
	r = &d->rows[d->nrows];
	r->line = st->row_line;
	r->n = st->nfields;
	r->fields = malloc((size_t)(st->nfields ? st->nfields : 1) * sizeof *r->fields);
	if (!r->fields) {
		st->failed = err_set(st->e, ERR_DATA, "out of memory");
		return;
	}
	memcpy(r->fields, st->fields, (size_t)st->nfields * sizeof *r->fields);
	st->nfields = 0;    /* the row owns them now */
	d->nrows++;
	st->row_open = 0;
}

/* Reads the whole file (at most FILE_MAX bytes). Caller frees *buf. */
static int read_all(const char *path, char **buf, size_t *len, err *e)
{
	FILE *f = fopen(path, "rb");
	size_t cap = 1 << 16, n = 0;
	char *b;
	if (!f)
		return err_set(e, ERR_DATA, "%s: cannot open: %s", path, strerror(errno));
	b = malloc(cap);
	while (b) {
		size_t got = fread(b + n, 1, cap - n, f);
		n += got;
		if (got == 0)
			break;
		if (n == cap) {
			char *nb;
			if (cap >= FILE_MAX) {
				free(b);
				fclose(f);
				return err_set(e, ERR_DATA, "%s: larger than %d MiB", path, FILE_MAX >> 20);
			}
			nb = realloc(b, cap * 2);
			if (!nb) {
				free(b);
				b = NULL;
				break;
			}
			b = nb;
			cap *= 2;
		}
	}
	if (!b) {
		fclose(f);
		return err_set(e, ERR_DATA, "out of memory");
	}
	if (ferror(f)) {
		free(b);
		fclose(f);
		return err_set(e, ERR_DATA, "%s: read error", path);
	}
	fclose(f);
	*buf = b;
	*len = n;
	return 0;
}

static void sha256_hex(const char *buf, size_t len, char out[CSVIN_SHA256_HEX])
{
	struct sha256_ctx ctx;
	uint8_t dg[SHA256_DIGEST_SIZE];
	sha256_init(&ctx);
	sha256_update(&ctx, len, (const uint8_t *)buf);
	sha256_digest(&ctx, sizeof dg, dg);
	for (int i = 0; i < SHA256_DIGEST_SIZE; i++)
		snprintf(out + 2 * i, 3, "%02x", dg[i]);
}

static int blank_line(const char *s, size_t n)
{
	return (n == 1 && s[0] == '\n') || (n == 2 && s[0] == '\r' && s[1] == '\n');
}

int csvin_load(csvin_doc *d, const char *path, err *e)
{
	struct csv_parser p;
	state st;
	char *buf = NULL;
	size_t len = 0, pos = 0;
	char *fields[CSVIN_FIELDS_MAX];

	memset(d, 0, sizeof *d);
	snprintf(d->path, sizeof d->path, "%s", path);
	if (read_all(path, &buf, &len, e) != 0)
		return ERR_DATA;
	sha256_hex(buf, len, d->sha256);
	if (csv_init(&p, CSV_STRICT | CSV_STRICT_FINI | CSV_APPEND_NULL) != 0) {
		free(buf);
		return err_set(e, ERR_DATA, "out of memory");
	}
	memset(&st, 0, sizeof st);
	st.d = d;
	st.e = e;
	st.fields = fields;
	if (len >= 3 && memcmp(buf, "\xEF\xBB\xBF", 3) == 0)
		pos = 3;
	/* Fed one physical line at a time, so that a row knows the line it starts on. */
	while (pos < len && !st.failed) {
		const char *nl = memchr(buf + pos, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - (buf + pos)) + 1 : len - pos;
		st.line++;
		if (!st.row_open && blank_line(buf + pos, n)) {
			pos += n;
			continue;
		}
		if (!st.row_open) {
			st.row_open = 1;
			st.row_line = st.line;
		}
		if (csv_parse(&p, buf + pos, n, on_field, on_row, &st) != n && !st.failed)
			st.failed = err_at(e, path, st.line, "malformed quoting: a quote inside an "
				"unquoted field, or text after a closing quote");
		pos += n;
	}
	if (!st.failed && csv_fini(&p, on_field, on_row, &st) != 0 && !st.failed)
		st.failed = err_at(e, path, st.row_line, "quoted field not closed before the end of the file");
	csv_free(&p);
	free(buf);
	drop_fields(&st);
	if (st.failed) {
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
