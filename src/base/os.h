/* os: what roofcost asks of the operating system, in one place: opening an input file so that
 * no reader can wait for ever (a named pipe or a socket is refused before anything blocks on
 * it), reading a text file whole, writing one whole or not at all, the last part of a path and
 * its stem, and the time in UTC.
 *
 * Does not check what a file holds (text.h does) or parse it. Strings returned as char * are
 * malloc'd: the caller frees them. */
#ifndef ROOFCOST_OS_H
#define ROOFCOST_OS_H

#include <stddef.h>
#include <stdio.h>

#include "base/err.h"

enum { OS_TIME_MAX = 32 };

/* Opens path for reading. A named pipe, a socket or a folder is refused with e set ("PATH: a
 * named pipe, not a file: reading it would wait for a writer"), without waiting on it; a
 * regular file or a character device (/dev/zero, /dev/null) opens as fopen "rb" would.
 * Returns the stream (the caller fcloses it), or NULL with e set ("PATH: cannot open:
 * reason"). */
FILE *os_open_read(const char *path, err *e);

/* Reads the text file path whole into *text (NUL-terminated; the caller frees it): at most
 * max bytes, and no NUL byte. Returns 0, or ERR_DATA with e set naming path. */
int os_read_file(const char *path, size_t max, char **text, err *e);

/* Writes text to path (created or truncated). A failed write removes what it wrote. Returns
 * 0, or ERR_DATA with e set naming path. */
int os_write_file(const char *path, const char *text, err *e);

/* Writes text to path whole or not at all: to "PATH.tmp" beside it, then renamed over path.
 * Returns 0, or ERR_DATA with e set (nothing left behind). */
int os_write_file_whole(const char *path, const char *text, err *e);

/* The part of path after its last '/'. */
const char *os_base_name(const char *path);

/* "dir/x.ini" -> "x" into out. */
void os_stem(const char *path, char *out, size_t n);

/* The time now, UTC, as YYYY-MM-DDTHH:MM:SSZ into buf (OS_TIME_MAX bytes suffice). */
void os_now_utc(char *buf, size_t n);

#endif
