/* csvin: a CSV file read row by row, each row with the line it starts on. The only user of
 * libcsv.
 *
 * RFC 4180 quoting in libcsv's strict mode: a quote inside an unquoted field, text after a
 * closing quote or an unterminated quoted field is an error "FILE:LINE: reason". A quoted field
 * may span lines; its row keeps the line it starts on. Spaces and tabs around unquoted fields
 * are dropped, fully empty lines are skipped, a UTF-8 byte-order mark at the start is ignored.
 * The file must be text (text.h: no NUL, no control characters, UTF-8), else "FILE:LINE: not a
 * text file". csvin_each streams: memory is one line and one row, whatever the file's size.
 * Also computes the SHA-256 of the bytes read (nettle), so that a store can tell a file it has
 * seen. Does not interpret fields: that is the caller's schema (price.c, validate). */
#ifndef ROOFCOST_CSVIN_H
#define ROOFCOST_CSVIN_H

#include "base/err.h"

enum {
	CSVIN_PATH_MAX = 512,
	CSVIN_FIELD_MAX = 4096,      /* bytes in one field */
	CSVIN_FIELDS_MAX = 64,       /* fields in one row */
	CSVIN_LINE_MAX = 1 << 20,    /* bytes in one physical line, and in one row */
	CSVIN_ROWS_MAX = 1000000,
	CSVIN_SHA256_HEX = 65        /* 64 hex digits + NUL */
};

typedef struct csvin_row {
	int line;         /* 1-based line the row starts on */
	int n;            /* fields */
	char **fields;    /* n NUL-terminated strings, owned by the reader (or the doc) */
} csvin_row;

/* Called for each row in file order; the row is valid during the call only. Returns 0 to go
 * on, or nonzero with e set to stop the reading with that code. */
typedef int (*csvin_row_fn)(void *ctx, const csvin_row *row, err *e);

/* Reads path row by row into fn. sha256 (NULL: not wanted) gets the digest of every byte of the
 * file. Returns 0, or nonzero with e set ("path:line: reason", or "path: reason" for I/O, or
 * what fn set). */
int csvin_each(const char *path, csvin_row_fn fn, void *ctx, char *sha256, err *e);

typedef struct csvin_doc {
	char path[CSVIN_PATH_MAX];
	char sha256[CSVIN_SHA256_HEX];  /* of the file's bytes, lower-case hex */
	csvin_row *rows;                /* rows[0] is the first row (a header, for most callers) */
	int nrows, cap;
} csvin_doc;

/* Reads all of path into d (for small files: every row is kept). Returns 0, or nonzero with e
 * set like csvin_each. On failure d holds nothing. The caller releases d with csvin_release. */
int csvin_load(csvin_doc *d, const char *path, err *e);

/* Frees what d owns; d may be zeroed or released already. */
void csvin_release(csvin_doc *d);

#endif
