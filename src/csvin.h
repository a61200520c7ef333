/* csvin: a CSV file read into rows of strings, each with the line it starts on. The only
 * user of libcsv.
 *
 * RFC 4180 quoting in libcsv's strict mode: a quote inside an unquoted field, text after a
 * closing quote or an unterminated quoted field is an error "FILE:LINE: reason". A quoted field
 * may span lines; its row keeps the line it starts on. Spaces and tabs around unquoted fields
 * are dropped, fully empty lines are skipped, a UTF-8 byte-order mark is ignored. Also
 * computes the SHA-256 of the bytes read (nettle), so that a store can tell a file it has seen.
 * Does not interpret fields: that is the caller's schema (price.c). */
#ifndef ROOFCOST_CSVIN_H
#define ROOFCOST_CSVIN_H

#include "err.h"

enum {
	CSVIN_PATH_MAX = 512,
	CSVIN_FIELD_MAX = 4096,      /* bytes in one field */
	CSVIN_FIELDS_MAX = 64,       /* fields in one row */
	CSVIN_ROWS_MAX = 1000000,
	CSVIN_SHA256_HEX = 65        /* 64 hex digits + NUL */
};

typedef struct csvin_row {
	int line;         /* 1-based line the row starts on */
	int n;            /* fields */
	char **fields;    /* n NUL-terminated strings, owned by the doc */
} csvin_row;

typedef struct csvin_doc {
	char path[CSVIN_PATH_MAX];
	char sha256[CSVIN_SHA256_HEX];  /* of the file's bytes, lower-case hex */
	csvin_row *rows;                /* rows[0] is the first row (a header, for most callers) */
	int nrows, cap;
} csvin_doc;

/* Reads path into d. Returns 0, or nonzero with e set ("path:line: reason", or "path: reason"
 * for I/O). On failure d holds nothing. The caller releases d with csvin_release. */
int csvin_load(csvin_doc *d, const char *path, err *e);

/* Frees what d owns; d may be zeroed or released already. */
void csvin_release(csvin_doc *d);

#endif
