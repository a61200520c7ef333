/* text: what a text file is (UTF-8, no NUL or control characters, one leading BOM) and the
 * escaping of control characters for output. */
#include <criterion/criterion.h>
#include <string.h>

#include "base/text.h"

/* Scans s (n bytes) in pieces of `step` bytes; returns 0 or -1 with the line in *line. */
static int scan(const char *s, size_t n, size_t step, long *line, const char **why, int *bom)
{
	text_scan ts;
	text_scan_init(&ts);
	for (size_t i = 0; i < n; i += step) {
		size_t k = n - i < step ? n - i : step;
		if (text_scan_feed(&ts, s + i, k) != 0) {
			*line = ts.line;
			*why = ts.why;
			return -1;
		}
	}
	*line = ts.line;
	*bom = ts.bom;
	if (text_scan_end(&ts) != 0) {
		*why = ts.why;
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
