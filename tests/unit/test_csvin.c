/* csvin: rows with the line they start on, quoting, blank lines, BOM, CRLF, SHA-256. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/csvin.h"

static const char *tmp_csv(char *buf, const char *text, size_t len)
{
	int fd;
	strcpy(buf, "/tmp/roofcost-csvin-XXXXXX");
	fd = mkstemp(buf);
	cr_assert(fd >= 0);
	cr_assert_eq(write(fd, text, len), (ssize_t)len);
	close(fd);
	return buf;
}

Test(csvin, rows_keep_the_line_they_start_on)
{
	static const char text[] = "\xEF\xBB\xBF" "a,b\r\n\r\n\"x\ny\",2\n  spaced ,\"q\"\"uote\"\nlast,row";
	char path[64];
	csvin_doc d;
	err e = {0};
	tmp_csv(path, text, sizeof text - 1);
	cr_assert_eq(csvin_load(&d, path, &e), 0, "%s", e.msg);
	cr_assert_eq(d.nrows, 4);
	cr_assert_eq(d.rows[0].line, 1);
	cr_assert_str_eq(d.rows[0].fields[0], "a");   /* the BOM is dropped */
	cr_assert_eq(d.rows[1].line, 3);              /* line 2 is blank */
	cr_assert_str_eq(d.rows[1].fields[0], "x\ny");
	cr_assert_eq(d.rows[2].line, 5);              /* after the two-line field */
	cr_assert_str_eq(d.rows[2].fields[0], "spaced");
	cr_assert_str_eq(d.rows[2].fields[1], "q\"uote");
	cr_assert_eq(d.rows[3].line, 6);              /* no newline at the end */
	cr_assert_eq(d.rows[3].n, 2);
	csvin_release(&d);
	unlink(path);
}

Test(csvin, sha256_of_the_bytes)
{
	/* FIPS 180-2 test vector: SHA-256("abc"). */
	char path[64];
	csvin_doc d;
	err e = {0};
	tmp_csv(path, "abc", 3);
	cr_assert_eq(csvin_load(&d, path, &e), 0, "%s", e.msg);
	cr_assert_str_eq(d.sha256, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	csvin_release(&d);
	unlink(path);
}

Test(csvin, malformed_quoting_names_the_line)
{
	char path[64];
	csvin_doc d;
	err e = {0};
	char want[128];
	tmp_csv(path, "a,b\n1,2\n3,x\"y\n", 14);
	cr_assert_neq(csvin_load(&d, path, &e), 0);
	snprintf(want, sizeof want, "%s:3: malformed quoting", path);
	cr_assert(strncmp(e.msg, want, strlen(want)) == 0, "%s", e.msg);
	cr_assert_eq(d.nrows, 0);
	unlink(path);
	cr_assert_neq(csvin_load(&d, "/nonexistent/x.csv", &e), 0);
	cr_assert(strstr(e.msg, "/nonexistent/x.csv: cannot open"), "%s", e.msg);
}

/* Issue 12: text only, in bounded memory - /dev/zero and a NUL end at line 1, not after 64 MiB. */
Test(csvin, not_text_and_endless_input)
{
	static const struct { const char *text, *want; } cases[] = {
		{"a,b\n1,\x1b[31m\n", ":2: not a text file (a control character)"},
		{"a,b\n1,2\r3\n", ":2: not a text file (a carriage return not before a line feed)"},
	};
	char path[64], want[128];
	csvin_doc d;
	err e = {0};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		tmp_csv(path, cases[i].text, strlen(cases[i].text));
		cr_assert_neq(csvin_load(&d, path, &e), 0);
		snprintf(want, sizeof want, "%s%s", path, cases[i].want);
		cr_assert_str_eq(e.msg, want);
		unlink(path);
	}
	cr_assert_neq(csvin_load(&d, "/dev/zero", &e), 0);
	cr_assert_str_eq(e.msg, "/dev/zero:1: not a text file (a NUL byte)");
}

static int count_rows(void *ctx, const csvin_row *row, err *e)
{
	(void)row;
	(void)e;
	(*(int *)ctx)++;
	return 0;
}

/* A quoted field never closed reads at most CSVIN_LINE_MAX bytes before it is an error. */
Test(csvin, a_row_is_bounded)
{
	char path[64];
	err e = {0};
	int rows = 0;
	FILE *f;
	strcpy(path, "/tmp/roofcost-csvin-XXXXXX");
	close(mkstemp(path));
	f = fopen(path, "w");
	fputs("a,b\n1,\"", f);
	for (int i = 0; i < 40000; i++)
		fputs("a quoted field that goes on and on\n", f);
	fclose(f);
	cr_assert_neq(csvin_each(path, count_rows, &rows, NULL, &e), 0);
	cr_assert(strstr(e.msg, ":2: row longer than 1048576 bytes"), "%s", e.msg);
	cr_assert_eq(rows, 1);
	unlink(path);
}
