/* cfg: strict INI with line numbers, schema extraction, --set overrides. */
#include <criterion/criterion.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cfg.h"

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

/* Writes text to a temporary file; returns its path in buf. */
static const char *tmp_ini(char *buf, const char *text)
{
	int fd;
	FILE *f;
	strcpy(buf, "/tmp/roofcost-cfg-XXXXXX");
	fd = mkstemp(buf);
	cr_assert(fd >= 0);
	f = fdopen(fd, "w");
	fputs(text, f);
	fclose(f);
	return buf;
}

static int run(const char *text, thing *t, err *e, const char *set)
{
	char path[64];
	cfg_doc d;
	int rc;
	memset(t, 0, sizeof *t);
	memset(e, 0, sizeof *e);
	tmp_ini(path, text);
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
	snprintf(big, sizeof big, "[a]\nname = %0300d\n", 0);
	cr_assert_neq(run(big, &t, &e, NULL), 0);
	cr_assert(strstr(e.msg, ":2: line longer than"), "%s", e.msg);
	cr_assert_neq(run("[a]\nname = x\n[a]\ncount = 1\n", &t, &e, NULL), 0);
	cr_assert(strstr(e.msg, ":3: section [a] appears twice"), "%s", e.msg);
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
