/* err: errors as values.
 *
 * A function that can fail takes an `err *` and returns nonzero on failure after filling
 * it. Only the command layer prints an err, in the one format
 *   roofcost: FILE:LINE: FIELD: reason
 * Does not allocate; the message is truncated to fit the buffer. */
#ifndef ROOFCOST_ERR_H
#define ROOFCOST_ERR_H

enum { ERR_MSG_MAX = 1024 };

typedef enum err_code {
	ERR_NONE = 0,
	ERR_DATA = 1,  /* bad data, IO or database: exit 1 */
	ERR_USAGE = 2  /* bad command line: exit 2 */
} err_code;

typedef struct err {
	err_code code;
	char msg[ERR_MSG_MAX];
} err;

/* Sets e (if not NULL) to code and a printf-formatted message; returns (int)code. */
int err_set(err *e, err_code code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Like err_set with a "file:line: " prefix (line 0 leaves the line out). */
int err_at(err *e, const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Prepends "prefix: " to an existing message. */
void err_prefix(err *e, const char *prefix);

#endif
