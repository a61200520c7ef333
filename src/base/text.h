/* text: what the tool accepts as a text file, and how data strings are made safe to print.
 *
 * A text file is UTF-8 (no overlong forms, surrogates or code points past U+10FFFF) without NUL,
 * without control characters other than tab, line feed and a carriage return right before a
 * line feed, and with a byte-order mark at most once, as its first three bytes. text_scan
 * checks a file as it is read, in pieces of any size, and names the line of the first offence;
 * every reader of input files (cfg, csvin) runs it, so no loader sees a NUL or an escape
 * sequence. text_escape is the other side: strings that reach a terminal or an output file
 * (table cells, text blocks, error messages) have every control character (C0, DEL, C1) written
 * as a visible \xNN or \u00NN. Pure functions, no allocation. */
#ifndef ROOFCOST_TEXT_H
#define ROOFCOST_TEXT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef struct text_scan {
	long line;            /* line of the next byte (1-based); of the offence after a failure */
	uint64_t pos;         /* bytes seen */
	uint32_t cp;          /* code point being decoded */
	uint32_t min;         /* the least code point its length may encode (overlong check) */
	uint64_t start;       /* position of the sequence's first byte */
	int need;             /* continuation bytes still expected */
	int cr;               /* the last byte was a carriage return */
	int bom;              /* the input starts with a byte-order mark (3 bytes to skip) */
	const char *why;      /* after a failure: what was found ("a NUL byte", ...); it may point
				 into why_buf, so it lives as long as the scan */
	char why_buf[160];    /* what why points to when it names a code point */
} text_scan;

/* 1 for a Unicode bidi control (U+061C, U+200E-U+200F, U+202A-U+202E, U+2066-U+2069), 2 for
 * an invisible character (zero-width U+200B-U+200D, U+2060-U+2064, U+180E, the line and
 * paragraph separators U+2028-U+2029), else 0: neither a text file nor a printed string may
 * hold one. */
int text_invisible(uint32_t cp);

/* Starts a scan at line 1. */
void text_scan_init(text_scan *s);

/* Checks the next n bytes. Returns 0, or -1 at the first offence with s->line and s->why set
 * (and every later call failing the same way). */
int text_scan_feed(text_scan *s, const char *buf, size_t n);

/* Ends the input: a UTF-8 sequence cut short or a final lone carriage return is an offence.
 * Returns 0 or -1 like text_scan_feed. */
int text_scan_end(text_scan *s);

/* Copies src into dst (n bytes, always terminated) with control characters escaped: C0 and
 * DEL as \xNN, C1 (U+0080-U+009F) as \u00NN. Bytes that are not valid UTF-8 are escaped as
 * \xNN too. Truncates to fit. Returns dst. */
char *text_escape(char *dst, size_t n, const char *src);

/* src into dst (n bytes) for a message that quotes it: whole when it fits, else its start (cut
 * at a character boundary) and "... (N bytes)", so that a huge argument is not echoed whole.
 * Returns dst. */
char *text_clip(char *dst, size_t n, const char *src);

/* src as a message quotes it: clipped (text_clip, to about n / 4 bytes) and escaped
 * (text_escape) into dst (n bytes). Returns dst. */
char *text_quote(char *dst, size_t n, const char *src);

/* 1 if text_escape would leave src as it is (with lines 1: but for line feeds, tabs and
 * carriage returns, which a JSON string escapes itself). */
int text_printable(const char *src, int lines);

/* Bytes text_escape needs for src, terminator included. */
size_t text_escaped_len(const char *src);

#endif
