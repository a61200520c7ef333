/* text: text files and printable strings (see text.h). */
#include "base/text.h"

#include <stdio.h>
#include <string.h>

void text_scan_init(text_scan *s)
{
	memset(s, 0, sizeof *s);
	s->line = 1;
}

static int offence(text_scan *s, const char *why)
{
	s->why = why;
	return -1;
}

int text_invisible(uint32_t cp)
{
	if (cp == 0x061C || cp == 0x200E || cp == 0x200F || (cp >= 0x202A && cp <= 0x202E) ||
	    (cp >= 0x2066 && cp <= 0x2069))
		return 1;   /* bidi marks, embeddings, overrides and isolates */
	if ((cp >= 0x200B && cp <= 0x200D) || (cp >= 0x2060 && cp <= 0x2064) || cp == 0x180E ||
	    cp == 0x2028 || cp == 0x2029)
		return 2;   /* zero-width characters, invisible operators, line and paragraph separators */
	return 0;
}

/* A complete code point whose first byte was at position start. */
static int code_point(text_scan *s, uint32_t cp, uint64_t start)
{
	int inv;
	if (cp < s->min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
		return offence(s, "invalid UTF-8");
	if (cp >= 0x80 && cp <= 0x9F)
		return offence(s, "a control character");
	if ((inv = text_invisible(cp)) != 0) {
		/* A source or a name could make a terminal show other text than the file holds
		 * (Trojan Source, CVE-2021-42574). */
		snprintf(s->why_buf, sizeof s->why_buf, inv == 1 ? "a Unicode bidi control (U+%04X), which makes a "
			 "terminal show text in another order than the file holds" : "an invisible character (U+%04X), "
			 "which makes a terminal show other text than the file holds", (unsigned)cp);
		return offence(s, s->why_buf);
	}
	if (cp == 0xFEFF) {
		if (start != 0)
			return offence(s, "a byte-order mark after the start");
		s->bom = 1;
	}
	return 0;
}

int text_scan_feed(text_scan *s, const char *buf, size_t n)
{
	if (s->why)
		return -1;
	for (size_t i = 0; i < n; i++, s->pos++) {
		unsigned char b = (unsigned char)buf[i];
		if (s->cr && b != '\n')
			return offence(s, "a carriage return not before a line feed");
		s->cr = 0;
		if (s->need > 0) {
			if ((b & 0xC0) != 0x80)
				return offence(s, "invalid UTF-8");
			s->cp = s->cp << 6 | (b & 0x3Fu);
			if (--s->need == 0 && code_point(s, s->cp, s->start) != 0)
				return -1;
			continue;
		}
		if (b == '\n') {
			s->line++;
		} else if (b == '\r') {
			s->cr = 1;
		} else if (b == '\0') {
			return offence(s, "a NUL byte");
		} else if ((b < 0x20 && b != '\t') || b == 0x7F) {
			return offence(s, "a control character");
		} else if (b >= 0x80) {
			s->start = s->pos;
			if (b >= 0xC2 && b <= 0xDF) {
				s->need = 1;
				s->min = 0x80;
				s->cp = b & 0x1Fu;
			} else if (b >= 0xE0 && b <= 0xEF) {
				s->need = 2;
				s->min = 0x800;
				s->cp = b & 0x0Fu;
			} else if (b >= 0xF0 && b <= 0xF4) {
				s->need = 3;
				s->min = 0x10000;
				s->cp = b & 0x07u;
			} else {
				return offence(s, "invalid UTF-8");
			}
		}
	}
	return 0;
}

int text_scan_end(text_scan *s)
{
	if (s->why)
		return -1;
	if (s->need > 0)
		return offence(s, "invalid UTF-8 (a character cut short at the end)");
	if (s->cr)
		return offence(s, "a carriage return not before a line feed");
	return 0;
}

/* Length of the valid, printable UTF-8 sequence at p (1-4), or 0 when *p must be escaped. */
static size_t printable(const unsigned char *p)
{
	uint32_t cp;
	size_t len;
	if (*p < 0x80)
		return *p >= 0x20 && *p != 0x7F ? 1 : 0;
	if (*p >= 0xC2 && *p <= 0xDF) {
		len = 2;
		cp = *p & 0x1Fu;
	} else if (*p >= 0xE0 && *p <= 0xEF) {
		len = 3;
		cp = *p & 0x0Fu;
	} else if (*p >= 0xF0 && *p <= 0xF4) {
		len = 4;
		cp = *p & 0x07u;
	} else {
		return 0;
	}
	for (size_t i = 1; i < len; i++) {
		if ((p[i] & 0xC0) != 0x80)
			return 0;
		cp = cp << 6 | (p[i] & 0x3Fu);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
	    (cp >= 0xD800 && cp <= 0xDFFF))
		return 0;
	return (cp >= 0x80 && cp <= 0x9F) || text_invisible(cp) ? 0 : len;
}

/* Writes the escape of the unit at p into out (at most 7 bytes); returns its input length. */
static size_t escape_unit(const unsigned char *p, char out[8])
{
	static const char hex[] = "0123456789abcdef";
	if (p[0] >= 0xE0 && p[0] <= 0xEF && (p[1] & 0xC0) == 0x80 && (p[2] & 0xC0) == 0x80) {
		/* A bidi control or an invisible character: its code point, \u202e. */
		uint32_t cp = (uint32_t)(p[0] & 0x0F) << 12 | (uint32_t)(p[1] & 0x3F) << 6 | (p[2] & 0x3Fu);
		if (text_invisible(cp)) {
			snprintf(out, 8, "\\u%04x", (unsigned)cp);
			return 3;
		}
	}
	if (p[0] == 0xC2 && p[1] >= 0x80 && p[1] <= 0x9F) {
		memcpy(out, "\\u00", 4);
		out[4] = hex[p[1] >> 4];
		out[5] = hex[p[1] & 15];
		out[6] = '\0';
		return 2;
	}
	out[0] = '\\';
	out[1] = 'x';
	out[2] = hex[p[0] >> 4];
	out[3] = hex[p[0] & 15];
	out[4] = '\0';
	return 1;
}

char *text_escape(char *dst, size_t n, const char *src)
{
	const unsigned char *p = (const unsigned char *)src;
	size_t k = 0;
	if (n == 0)
		return dst;
	while (*p) {
		char esc[8];
		size_t len = printable(p), in, out;
		const char *from;
		if (len) {
			in = out = len;
			from = (const char *)p;
		} else {
			in = escape_unit(p, esc);
			out = strlen(esc);
			from = esc;
		}
		if (k + out >= n)
			break;
		memcpy(dst + k, from, out);
		k += out;
		p += in;
	}
	dst[k] = '\0';
	return dst;
}

size_t text_escaped_len(const char *src)
{
	const unsigned char *p = (const unsigned char *)src;
	size_t k = 1;
	while (*p) {
		char esc[8];
		size_t len = printable(p);
		if (len) {
			k += len;
			p += len;
		} else {
			p += escape_unit(p, esc);
			k += strlen(esc);
		}
	}
	return k;
}

char *text_clip(char *dst, size_t n, const char *src)
{
	size_t len = strlen(src), keep;
	char tail[40];
	if (len < n) {
		memcpy(dst, src, len + 1);
		return dst;
	}
	snprintf(tail, sizeof tail, "... (%zu bytes)", len);
	keep = n > strlen(tail) + 1 ? n - strlen(tail) - 1 : 0;
	while (keep > 0 && ((unsigned char)src[keep] & 0xC0) == 0x80)
		keep--;   /* not inside a UTF-8 sequence */
	memcpy(dst, src, keep);
	snprintf(dst + keep, n - keep, "%s", tail);
	return dst;
}

int text_printable(const char *s, int lines)
{
	const unsigned char *p = (const unsigned char *)s;
	while (*p) {
		size_t len;
		if (lines && (*p == '\n' || *p == '\t' || *p == '\r')) {
			p++;
			continue;
		}
		if (!(len = printable(p)))
			return 0;
		p += len;
	}
	return 1;
}

char *text_quote(char *dst, size_t n, const char *src)
{
	char clipped[256];
	text_clip(clipped, n / 4 < sizeof clipped ? (n / 4 > 24 ? n / 4 : 24) : sizeof clipped, src);
	return text_escape(dst, n, clipped);
}
