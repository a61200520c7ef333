/* text: what a text file is (UTF-8, no NUL or control characters, one leading BOM) and the
 * escaping of control characters for output. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "base/text.h"


/* Scans s (n bytes) in pieces of `step` bytes; returns 0 or -1 with the line in *line and the
 * offence in *why (copied while the scan lives: ts.why may point into ts). */
static int scan(const char *s, size_t n, size_t step, long *line, const char **why, int *bom)
{
	static char kept[256];
	text_scan ts;
	text_scan_init(&ts);
	for (size_t i = 0; i < n; i += step) {
		size_t k = n - i < step ? n - i : step;
		if (text_scan_feed(&ts, s + i, k) != 0) {
			*line = ts.line;
			snprintf(kept, sizeof kept, "%s", ts.why);
			*why = kept;
			return -1;
		}
	}
	*line = ts.line;
	*bom = ts.bom;
	if (text_scan_end(&ts) != 0) {
		snprintf(kept, sizeof kept, "%s", ts.why);
		*why = kept;
		return -1;
	}
	return 0;
}

Test(text, good_text_in_any_pieces)
{
	/* "a\tb\r\n", "µs ×2" (2- and 2-byte sequences), "€" (3 bytes), "😀" (4 bytes). */
	static const char s[] = "a\tb\r\nc = 2 \xC2\xB5s \xC3\x97" "2\n\xE2\x82\xAC \xF0\x9F\x98\x80\nlast";
	for (size_t step = 1; step <= sizeof s; step++) {
		long line;
		const char *why = NULL;
		int bom = 0;
		cr_assert_eq(scan(s, sizeof s - 1, step, &line, &why, &bom), 0, "step %zu: %s", step, why);
		cr_assert_eq(line, 4);   /* three line feeds: the last line is 4 */
		cr_assert_eq(bom, 0);
	}
}

Test(text, offences_name_their_line)
{
	static const struct { const char *s; size_t n; long line; const char *why; } cases[] = {
		{"a\nb\0c\n", 6, 2, "a NUL byte"},
		{"ok\n\x1b[31mred\n", 12, 2, "a control character"},
		{"x\x7f", 2, 1, "a control character"},
		{"a\rb\n", 4, 1, "a carriage return not before a line feed"},
		{"a\r", 2, 1, "a carriage return not before a line feed"},
		{"\n\n\xC2\x9B" "1m", 6, 3, "a control character"},        /* C1 CSI */
		{"\xC0\xAF", 2, 1, "invalid UTF-8"},                        /* overlong '/' */
		{"\xED\xA0\x80", 3, 1, "invalid UTF-8"},                    /* a surrogate */
		{"\xF4\x90\x80\x80", 4, 1, "invalid UTF-8"},                /* past U+10FFFF */
		{"\xFF", 1, 1, "invalid UTF-8"},
		{"ab\xE2\x82", 4, 1, "invalid UTF-8 (a character cut short at the end)"},
		{"a\n\xEF\xBB\xBF" "b", 6, 2, "a byte-order mark after the start"},
		{"\xEF\xBB\xBF\xEF\xBB\xBF", 6, 1, "a byte-order mark after the start"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		long line;
		const char *why = NULL;
		int bom;
		cr_assert_eq(scan(cases[i].s, cases[i].n, 1, &line, &why, &bom), -1, "case %zu accepted", i);
		cr_assert_eq(line, cases[i].line, "case %zu: line %ld", i, line);
		cr_assert_str_eq(why, cases[i].why, "case %zu", i);
	}
}

Test(text, one_bom_at_the_start)
{
	long line;
	const char *why = NULL;
	int bom = 0;
	cr_assert_eq(scan("\xEF\xBB\xBF[a]\n", 7, 2, &line, &why, &bom), 0, "%s", why);
	cr_assert_eq(bom, 1);
}

Test(text, escape_controls_keep_the_rest)
{
	char buf[128];
	cr_assert_str_eq(text_escape(buf, sizeof buf, "plain \xC2\xB5s"), "plain \xC2\xB5s");
	cr_assert_str_eq(text_escape(buf, sizeof buf, "\x1b[2Jx\ty\n"), "\\x1b[2Jx\\x09y\\x0a");
	cr_assert_str_eq(text_escape(buf, sizeof buf, "a\x7f" "b\xC2\x9B" "c\xFF"), "a\\x7fb\\u009bc\\xff");
	cr_assert_eq(text_escaped_len("\x1b" "a"), strlen("\\x1ba") + 1);
	/* Truncation never cuts an escape in half: 6 bytes hold "ab" and not "ab\x1b". */
	cr_assert_str_eq(text_escape(buf, 6, "ab\x1b"), "ab");
}

/* Issue 21: bidi overrides (Trojan Source, CVE-2021-42574) and zero-width characters are no
 * text; printed, they show as their code point. */
Test(text, bidi_and_invisible_characters)
{
	long line;
	const char *why;
	int bom;
	char out[64];
	static const char *const bad[] = {"a\xe2\x80\xae" "b\n", "x\n\xe2\x80\x8b\n", "\xe2\x81\xa6isolate\n",
					  "\xe2\x80\x8fmark\n", "\xd8\x9c" "arabic mark\n"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		cr_assert_eq(scan(bad[i], strlen(bad[i]), 1, &line, &why, &bom), -1, "case %zu", i);
	cr_assert_eq(scan("ok\n\xe2\x80\xae\n", 7, 3, &line, &why, &bom), -1);
	cr_assert_eq(line, 2);
	cr_assert(strstr(why, "a Unicode bidi control (U+202E)"), "%s", why);
	cr_assert_eq(scan("\xe2\x80\x8b", 3, 2, &line, &why, &bom), -1);
	cr_assert(strstr(why, "an invisible character (U+200B)"), "%s", why);
	/* Other characters of the same blocks are text: an en dash, a right single quote. */
	cr_assert_eq(scan("a \xe2\x80\x93 b \xe2\x80\x99\n", 11, 1, &line, &why, &bom), 0);
	text_escape(out, sizeof out, "p5\xe2\x80\xae" "x\xe2\x80\x8b");
	cr_assert_str_eq(out, "p5\\u202ex\\u200b");
	cr_assert(text_printable("line one\nline two\ttab", 1));
	cr_assert_not(text_printable("line one\nline two", 0));
	cr_assert_not(text_printable("a\xe2\x80\xae", 1));
	cr_assert_not(text_printable("esc\x1b", 1));
}

/* Issue 13: a 128 KiB argument is quoted by its start and its length. */
Test(text, a_quote_is_clipped)
{
	static char big[131001];
	char q[400], c[32];
	memset(big, 'a', sizeof big - 1);
	text_quote(q, sizeof q, big);
	cr_assert_lt(strlen(q), 120);
	cr_assert(strstr(q, "aaa... (131000 bytes)"), "%s", q);
	text_quote(q, sizeof q, "short \x1b[31m");
	cr_assert_str_eq(q, "short \\x1b[31m");
	/* Never inside a UTF-8 sequence: 9 bytes of room over "é" (2 bytes) x 20. */
	text_clip(c, sizeof c, "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
		  "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9");
	cr_assert(strstr(c, "... (40 bytes)"), "%s", c);
	cr_assert_eq((unsigned char)c[0], 0xc3);
	cr_assert_neq(((unsigned char)c[strlen(c) - strlen("... (40 bytes)") - 1]) & 0xC0, 0xC0,
		      "the cut ends a character: %s", c);
}
