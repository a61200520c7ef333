/* cfg: strict INI with line numbers, schema extraction, --set overrides. */
#include <criterion/criterion.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/cfg.h"

typedef struct thing {
	char name[16];
	int count;
	double size;
	int mode;
	char as_of[16];
} thing;

static const char *const modes[] = {"fast", "slow", NULL};

static const cfg_field fields[] = {
	{"a", "name", CFG_STR, UNITS_NONE, 1, 1, 0, offsetof(thing, name), 16, NULL},
	{"a", "count", CFG_INT, UNITS_NONE, 1, 1, 100, offsetof(thing, count), 0, NULL},
	{"b", "size", CFG_NUM, UNITS_BYTES, 0, 1, 1e12, offsetof(thing, size), 0, NULL},
	{"b", "mode", CFG_ENUM, UNITS_NONE, 0, 1, 0, offsetof(thing, mode), 0, modes},
	{"b", "as_of", CFG_DATE, UNITS_NONE, 0, 1, 0, offsetof(thing, as_of), 16, NULL},
};
static const char *const secs[] = {"a", NULL};

/* Loads n bytes of text (NUL bytes included) with the override set (may be NULL) into t. */
static int run_bytes_set(const char *text, size_t n, thing *t, err *e, const char *set)
{
	char path[64];
	cfg_doc d;
	int fd, rc;
	memset(t, 0, sizeof *t);
	memset(e, 0, sizeof *e);
	strcpy(path, "/tmp/roofcost-cfg-XXXXXX");
	fd = mkstemp(path);
	cr_assert(fd >= 0);
	cr_assert_eq(write(fd, text, n), (ssize_t)n);
	close(fd);
	rc = cfg_load(&d, path, e);
	if (rc == 0 && set)
		rc = cfg_override(&d, fields, 5, set, e);
	if (rc == 0)
		rc = cfg_extract(&d, fields, 5, secs, t, e);
	if (d.entries)
		cfg_release(&d);
	unlink(path);
	return rc;
}

static int run(const char *text, thing *t, err *e, const char *set)
{
	return run_bytes_set(text, strlen(text), t, e, set);
}

Test(cfg, good_file_with_continuation_and_comments)
{
	thing t;
	err e;
	cr_assert_eq(run("; comment\n[a]\nname = x ; inline\ncount = 7 # hash\n[b]\nsize = 2\n"
			 "    GiB\nmode = slow\nas_of = 2026-08\n", &t, &e, NULL), 0, "%s", e.msg);
	cr_assert_str_eq(t.name, "x");
	cr_assert_eq(t.count, 7);
	cr_assert_float_eq(t.size, 2.0 * 1073741824.0, 1);
	cr_assert_eq(t.mode, 1);
	cr_assert_str_eq(t.as_of, "2026-08");
}

Test(cfg, duplicate_key_names_its_line)
{
	thing t;
	err e;
	cr_assert_neq(run("[a]\nname = x\ncount = 1\ncount = 2\n", &t, &e, NULL), 0);
	cr_assert(strstr(e.msg, ":4: count: duplicate key in [a] (first on line 3)"), "%s", e.msg);
}

Test(cfg, unknown_key_and_section)
{
	thing t;
	err e;
	cr_assert_neq(run("[a]\nname = x\ncount = 1\ncolour = red\n", &t, &e, NULL), 0);
	cr_assert(strstr(e.msg, ":4: colour: unknown key in [a]"), "%s", e.msg);
	cr_assert_neq(run("[a]\nname = x\ncount = 1\n[zzz]\nq = 1\n", &t, &e, NULL), 0);
	cr_assert(strstr(e.msg, ":4: unknown section [zzz]"), "%s", e.msg);
}

Test(cfg, missing_key_points_at_its_section)
{
	thing t;
	err e;
	cr_assert_neq(run("\n\n[a]\nname = x\n", &t, &e, NULL), 0);
	cr_assert(strstr(e.msg, ":3: count: missing in [a]"), "%s", e.msg);
	cr_assert_neq(run("[b]\nsize = 1 GB\n", &t, &e, NULL), 0);
	cr_assert(strstr(e.msg, "missing section [a]"), "%s", e.msg);
}

Test(cfg, bad_values_name_line_and_field)
{
	thing t;
	err e;
	cr_assert_neq(run("[a]\nname = x\ncount = 1000\n", &t, &e, NULL), 0);
	cr_assert(strstr(e.msg, ":3: count: 1000 is out of range [1, 100]"), "%s", e.msg);
	cr_assert_neq(run("[a]\nname = x\ncount = 2.5\n", &t, &e, NULL), 0);
	cr_assert(strstr(e.msg, ":3: count: '2.5' is not a whole number"), "%s", e.msg);
	cr_assert_neq(run("[a]\nname = x\ncount = 1\n[b]\nsize = 3 us\n", &t, &e, NULL), 0);
	cr_assert(strstr(e.msg, ":5: size: unit 'us' does not fit"), "%s", e.msg);
	cr_assert_neq(run("[a]\nname = x\ncount = 1\n[b]\nmode = medium\n", &t, &e, NULL), 0);
	cr_assert(strstr(e.msg, ":5: mode: 'medium' is not one of fast, slow"), "%s", e.msg);
	cr_assert_neq(run("[a]\nname = x\ncount = 1\n[b]\nas_of = last year\n", &t, &e, NULL), 0);
	cr_assert(strstr(e.msg, ":5: as_of: 'last year' is not a date"), "%s", e.msg);
}

Test(cfg, syntax_and_long_lines)
{
	thing t;
	err e;
	char big[400];
	cr_assert_neq(run("[a]\nname = x\nthis line has no equals\n", &t, &e, NULL), 0);
	cr_assert(strstr(e.msg, ":3: syntax error"), "%s", e.msg);
	/* A value longer than inih's 200-byte line reaches the field whole (and is then too long
	 * for a 16-byte name); a long header line is refused. */
	snprintf(big, sizeof big, "[a]\nname = %0300d\n", 0);
	cr_assert_neq(run(big, &t, &e, NULL), 0);
	cr_assert(strstr(e.msg, ":2: name: value longer than 15 characters"), "%s", e.msg);
	snprintf(big, sizeof big, "[%0300d]\nname = x\n", 0);
	cr_assert_neq(run(big, &t, &e, NULL), 0);
	cr_assert(strstr(e.msg, ":1: line longer than 198 characters"), "%s", e.msg);
	cr_assert_neq(run("[a]\nname = x\n[a]\ncount = 1\n", &t, &e, NULL), 0);
	cr_assert(strstr(e.msg, ":3: section [a] appears twice"), "%s", e.msg);
}

Test(cfg, a_long_line_is_one_value)
{
	/* issue 21: a path in a deep folder (a CI checkout) is longer than inih's line; it is read
	 * as it is written, without the space a continuation line adds, and its inline comment cut;
	 * a long comment line is a comment. */
	static char text[1400];
	char path[700];
	cfg_doc d;
	const cfg_entry *en;
	err e = {0};
	int k = snprintf(path, sizeof path, "/ci");
	for (int i = 0; i < 40; i++)
		k += snprintf(path + k, sizeof path - (size_t)k, "/folder-%02d", i);
	snprintf(text, sizeof text, "[a]\n; %0400d\nfile = %s   # where it is\nnote = one\n  two\n", 0, path);
	cr_assert_gt(strlen(path), 400);
	cr_assert_eq(cfg_load_text(&d, "long.ini", text, &e), 0, "%s", e.msg);
	cr_assert(en = cfg_find(&d, "a", "file"));
	cr_assert_str_eq(en->value, path);
	cr_assert_eq(en->line, 3);
	cr_assert(en = cfg_find(&d, "a", "note"));
	cr_assert_str_eq(en->value, "one two", "a continuation line still joins with a space");
	cfg_release(&d);
}

Test(cfg, override_is_checked_like_the_file)
{
	thing t;
	err e;
	cr_assert_eq(run("[a]\nname = x\ncount = 1\n", &t, &e, "count=9"), 0, "%s", e.msg);
	cr_assert_eq(t.count, 9);
	cr_assert_eq(run("[a]\nname = x\ncount = 1\n", &t, &e, "b.size=4 GB"), 0, "%s", e.msg);
	cr_assert_float_eq(t.size, 4e9, 1);
	cr_assert_neq(run("[a]\nname = x\ncount = 1\n", &t, &e, "count=lots"), 0);
	cr_assert_str_eq(e.msg, "--set count: 'lots' is not a number");
	cr_assert_eq(e.code, ERR_USAGE);
	cr_assert_neq(run("[a]\nname = x\ncount = 1\n", &t, &e, "nothing=1"), 0);
	cr_assert_str_eq(e.msg, "--set nothing: unknown key");
}

/* Issue 12, each case with the message it must give: a NUL in a comment hid the key after
 * it from the line-length check and shifted the line numbers after it; text after a NUL in a
 * value was dropped unseen; a BOM hid the first section from the duplicate check (it is skipped
 * once, at the start); an unclosed header was reported on the next line (inih went on into
 * the section before); a long section name was silently ignored. */
Test(cfg, hostile_text_and_headers_name_their_line)
{
	static const struct { const char *text; size_t n; const char *want; } cases[] = {
		{"[a]\nname = x\n; note\0hidden\ncount = 1\n", 37, ":3: not a text file (a NUL byte)"},
		{"[a]\nname = x\0junk\ncount = 1\n", 28, ":2: not a text file (a NUL byte)"},
		{"[a]\nname = \x1b[2Jx\n", 0, ":2: not a text file (a control character)"},
		{"\xEF\xBB\xBF[a]\nname = x\ncount = 1\n[a]\n", 0, ":4: section [a] appears twice (first on line 1)"},
		{"\xEF\xBB\xBF\xEF\xBB\xBF[a]\nname = x\n", 0, ":1: not a text file (a byte-order mark after the start)"},
		{"[a]\nname = x\ncount = 1\n[b\nsize = 1 GB\n", 0, ":4: unclosed section header: expected ']'"},
		{"[a]\nname = x\ncount = 1\n[nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn]\n", 0,
		 ":4: section name longer than 47 characters"},
		{"[a]\nname = x\ncount = 1\n[b] size = 1\n", 0, ":4: text after the section header 'b'"},
		{"[a]\nname = x\n[]\n", 0, ":3: empty section name"},
		/* A syntax error stops there: the duplicate key after it is not what is reported. */
		{"[a]\nname = x\ngarbage\ncount = 1\ncount = 2\n", 0, ":3: syntax error"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		thing t;
		err e;
		size_t n = cases[i].n ? cases[i].n : strlen(cases[i].text);
		cr_assert_neq(run_bytes_set(cases[i].text, n, &t, &e, NULL), 0, "case %zu accepted", i);
		cr_assert(strstr(e.msg, cases[i].want), "case %zu: %s", i, e.msg);
	}
}

Test(cfg, a_bom_at_the_start_and_an_indented_bracket_are_fine)
{
	thing t;
	err e;
	cr_assert_eq(run("\xEF\xBB\xBF[a]\nname = x\ncount = 1\n", &t, &e, NULL), 0, "%s", e.msg);
	/* An indented '[' continues a value, as inih reads it. */
	cr_assert_eq(run("[a]\nname = x\n  [more]\ncount = 1\n", &t, &e, NULL), 0, "%s", e.msg);
}

Test(cfg, dev_zero_ends_at_once)
{
	cfg_doc d;
	err e = {0};
	cr_assert_neq(cfg_load(&d, "/dev/zero", &e), 0);
	cr_assert_str_eq(e.msg, "/dev/zero:1: not a text file (a NUL byte)");
}
