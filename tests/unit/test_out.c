/* out: control characters escaped in every format, CSV quoting of CR, Markdown '|'. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "out.h"

/* t printed in format f, as a malloc'd string. */
static char *printed(const out_table *t, out_format f)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *fp = open_memstream(&buf, &n);
	cr_assert(fp);
	out_print(t, f, fp);
	fclose(fp);
	return buf;
}

Test(out, data_cannot_reach_the_terminal_raw)
{
	static const char *const hdr[] = {"name", "source"};
	static const char *const row[] = {"a|b", "evil \x1b[2J\x07 cr\r lf\n tab\t"};
	out_table t;
	cr_assert_eq(out_init(&t, 2, hdr), 0);
	cr_assert_eq(out_row(&t, row), 0);
	for (int f = OUT_TABLE; f <= OUT_MD; f++) {
		char *s;
		if (f == OUT_JSON)
			continue;
		s = printed(&t, (out_format)f);
		for (const char *p = s; *p; p++)
			cr_assert(*p == '\n' || (unsigned char)*p >= 0x20, "format %d: byte 0x%02x", f, *p);
		cr_assert(strstr(s, "evil \\x1b[2J\\x07 cr\\x0d lf\\x0a tab\\x09"), "format %d: %s", f, s);
		if (f == OUT_MD)
			cr_assert(strstr(s, "| a\\|b |"), "%s", s);
		free(s);
	}
	out_release(&t);
}

Test(out, csv_quotes_what_rfc_4180_asks)
{
	static const char *const hdr[] = {"a"};
	out_table t;
	char *s;
	/* A CR cannot survive escaping, but a cell with one would still be quoted. */
	cr_assert_eq(out_init(&t, 1, hdr), 0);
	cr_assert_eq(out_row(&t, (const char *const[]){"x,\"y\""}), 0);
	s = printed(&t, OUT_CSV);
	cr_assert_str_eq(s, "a\n\"x,\"\"y\"\"\"\n");
	free(s);
	out_release(&t);
}
