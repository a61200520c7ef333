/* out: text tables that fit a width; CSV untouched by it; control characters escaped in every
 * format, CSV quoting, Markdown '|'. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "base/out.h"

/* The table as printed in format f, into buf. */
static const char *printed(const out_table *t, out_format f, char *buf, size_t n)
{
	FILE *fp = fmemopen(buf, n, "w");
	cr_assert_not_null(fp);
	out_print(t, f, fp);
	fclose(fp);
	return buf;
}

Test(out, fits_as_is)
{
	static const char *const h[] = {"name", "n"}, *const r[] = {"x", "12"};
	out_table t;
	char buf[256];
	out_init(&t, 2, h);
	out_right(&t, 1);
	out_row(&t, r);
	/* name (4) + 2 + n (2): the number right-aligned under its header. */
	cr_assert_str_eq(printed(&t, OUT_TABLE, buf, sizeof buf), "name   n\nx     12\n");
	out_release(&t);
}

Test(out, headers_break_at_underscores)
{
	static const char *const h[] = {"name", "usd_per_hour"}, *const r[] = {"x", "1.5"};
	out_table t;
	char buf[256];
	out_init(&t, 2, h);
	out_right(&t, 1);
	out_row(&t, r);
	/* 4 + 2 + 12 = 18 > 10: the header breaks after each '_' into pieces of 4, the widest piece
	 * and the value (3) make the column 4 wide: 4 + 2 + 4 = 10. Short headers sit on the last
	 * line. */
	t.width = 10;
	cr_assert_str_eq(printed(&t, OUT_TABLE, buf, sizeof buf), "      usd_\n      per_\nname  hour\nx      1.5\n");
	out_release(&t);
}

Test(out, optional_columns_go_and_are_named)
{
	static const char *const h[] = {"a", "bbbbbb", "cccccc"}, *const r[] = {"1", "2", "3"};
	out_table t;
	char buf[256];
	out_init(&t, 3, h);
	out_optional(&t, 1, 1);
	out_optional(&t, 2, 2);
	out_row(&t, r);
	/* 1 + 2 + 6 + 2 + 6 = 17 > 10: c (priority 2) goes first, then 1 + 2 + 6 = 9 fits. */
	t.width = 10;
	cr_assert_str_eq(printed(&t, OUT_TABLE, buf, sizeof buf), "a  bbbbbb\n1  2\n(--wide adds: cccccc)\n");
	out_wide(&t, 1);
	cr_assert_str_eq(printed(&t, OUT_TABLE, buf, sizeof buf), "a  bbbbbb  cccccc\n1  2       3\n");
	out_release(&t);
}

Test(out, a_text_column_wraps)
{
	static const char *const h[] = {"k", "text"}, *const r[] = {"a", "one two three four"};
	out_table t;
	char buf[256];
	out_init(&t, 2, h);
	out_row(&t, r);
	/* 1 + 2 + 18 = 21 > 16: the last text column narrows by 5 to 13 (not below 12) and wraps at
	 * a space: "one two three" and "four", the second line under the column. */
	t.width = 16;
	cr_assert_str_eq(printed(&t, OUT_TABLE, buf, sizeof buf), "k  text\na  one two three\n   four\n");
	out_release(&t);
}

Test(out, a_text_column_is_cut)
{
	static const char *const h[] = {"k", "src"}, *const r[] = {"a", "abcdefghijklmnopqrstuvwxyz"};
	out_table t;
	char buf[256];
	out_init(&t, 2, h);
	out_fit_col(&t, 1, OUT_FIT_CLIP);
	out_row(&t, r);
	/* 1 + 2 + 26 = 29 > 15: src narrows to 12, 9 letters and "...". */
	t.width = 15;
	cr_assert_str_eq(printed(&t, OUT_TABLE, buf, sizeof buf), "k  src\na  abcdefghi...\n");
	/* CSV keeps every character whatever the width. */
	cr_assert_str_eq(printed(&t, OUT_CSV, buf, sizeof buf), "k,src\na,abcdefghijklmnopqrstuvwxyz\n");
	out_release(&t);
}

Test(out, a_column_goes_under_its_row)
{
	static const char *const h[] = {"n", "usd", "why"}, *const r[] = {"1", "2.5", "dearer by a third"};
	out_table t;
	char buf[256];
	out_init(&t, 3, h);
	out_right(&t, 1);
	out_fit_col(&t, 2, OUT_FIT_BELOW);
	out_row(&t, r);
	/* 1 + 2 + 3 + 2 + 17 = 25 > 12: why goes under the row, from the second column on (3). */
	t.width = 12;
	cr_assert_str_eq(printed(&t, OUT_TABLE, buf, sizeof buf), "n  usd\n1  2.5\n   dearer by a third\n");
	out_release(&t);
}

Test(out, widths_count_characters_not_bytes)
{
	static const char *const h[] = {"a", "b"}, *const r[] = {"\xc3\x97", "1"};
	out_table t;
	char buf[256];
	out_init(&t, 2, h);
	out_row(&t, r);
	/* U+00D7 is two bytes and one column. */
	cr_assert_str_eq(printed(&t, OUT_TABLE, buf, sizeof buf), "a  b\n\xc3\x97  1\n");
	out_release(&t);
}

/* Issue 12: escape sequences in data reached the terminal raw, CSV left a CR unquoted and
 * Markdown took a '|' in a cell as the end of the column. */
Test(out, data_cannot_reach_the_terminal_raw)
{
	static const char *const hdr[] = {"name", "source"};
	static const char *const row[] = {"a|b", "evil \x1b[2J\x07 cr\r lf\n tab\t"};
	out_table t;
	char buf[1024];
	cr_assert_eq(out_init(&t, 2, hdr), 0);
	cr_assert_eq(out_row(&t, row), 0);
	for (int f = OUT_TABLE; f <= OUT_MD; f++) {
		const char *s;
		if (f == OUT_JSON)
			continue;
		memset(buf, 0, sizeof buf);
		s = printed(&t, (out_format)f, buf, sizeof buf);
		for (const char *p = s; *p; p++)
			cr_assert(*p == '\n' || (unsigned char)*p >= 0x20, "format %d: byte 0x%02x", f, *p);
		cr_assert(strstr(s, "evil \\x1b[2J\\x07 cr\\x0d lf\\x0a tab\\x09"), "format %d: %s", f, s);
		if (f == OUT_MD)
			cr_assert(strstr(s, "| a\\|b |"), "%s", s);
	}
	out_release(&t);
}

Test(out, csv_quotes_what_rfc_4180_asks)
{
	static const char *const hdr[] = {"a"};
	out_table t;
	char buf[128];
	cr_assert_eq(out_init(&t, 1, hdr), 0);
	cr_assert_eq(out_row(&t, (const char *const[]){"x,\"y\""}), 0);
	memset(buf, 0, sizeof buf);
	cr_assert_str_eq(printed(&t, OUT_CSV, buf, sizeof buf), "a\n\"x,\"\"y\"\"\"\n");
	out_release(&t);
}

/* Issue 21: a cell a spreadsheet would run as a formula is written as text (a leading
 * apostrophe, OWASP "CSV injection"); the tool's own signed numbers and "-" are not. */
Test(out, csv_cells_are_no_formulas)
{
	static const char *const hdr[] = {"a"};
	static const struct { const char *in, *out; } cases[] = {
		{"=HYPERLINK(\"http://x\")", "\"'=HYPERLINK(\"\"http://x\"\")\""},
		{"@SUM(A1)", "\"'@SUM(A1)\""},
		{"+cmd|' /C calc'!A0", "\"'+cmd|' /C calc'!A0\""},
		{"-2+3+cmd|' /C calc'!A0", "\"'-2+3+cmd|' /C calc'!A0\""},
		{"+107% per mtok: dearer", "\"'+107% per mtok: dearer\""},
		{"-45.49%", "-45.49%"}, {"+-2%", "+-2%"}, {"-1.5e-3", "-1.5e-3"}, {"-", "-"}, {"-12", "-12"},
		{"a=b", "a=b"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		out_table t;
		char buf[256], want[256];
		cr_assert_eq(out_init(&t, 1, hdr), 0);
		cr_assert_eq(out_row(&t, (const char *const[]){cases[i].in}), 0);
		memset(buf, 0, sizeof buf);
		snprintf(want, sizeof want, "a\n%s\n", cases[i].out);
		cr_assert_str_eq(printed(&t, OUT_CSV, buf, sizeof buf), want, "case %zu", i);
		out_release(&t);
	}
}

/* Issue 21: the cells as given stay beside the escaped ones, for JSON. */
Test(out, raw_cells_for_json)
{
	static const char *const hdr[] = {"a"};
	out_table t;
	cr_assert_eq(out_init(&t, 1, hdr), 0);
	cr_assert_eq(out_row(&t, (const char *const[]){"line one\nline two"}), 0);
	cr_assert_str_eq(t.cells[1], "line one\\x0aline two");
	cr_assert_str_eq(out_cell_raw(&t, 1, 0), "line one\nline two");
	out_release(&t);
}
