/* cfg: strict INI documents with line numbers (see cfg.h). The only user of inih. */
#include "base/cfg.h"

#include <ctype.h>
#include <errno.h>
#include <ini.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/text.h"
#include "base/os.h"

enum { CFG_FILE_MAX = 1 << 20 };   /* bytes in one INI file: descriptions are a few KiB */

typedef struct reader_state {
	const char *buf;      /* the file's text, a byte-order mark skipped */
	size_t len, pos;
	cfg_doc *d;
	int line;             /* lines read so far = line of the text inih works on */
	int continuation;     /* the current line began with white space */
	int key_seen;         /* a key line since the last section header (inih's prev_name) */
	int failed;           /* our own error is in e */
	const char *rest;     /* the part of a long key line still to give inih, piece by piece */
	size_t rest_len;
	int glue;             /* the current line is such a piece: joined to the value without a space */
	char last_key[CFG_NAME_MAX];
	char last_section[CFG_NAME_MAX];
	err *e;
} reader_state;

static char *dup_str(const char *s)
{
	size_t n = strlen(s) + 1;
	char *p = malloc(n);
	if (p)
		memcpy(p, s, n);
	return p;
}

static char *line_fail(reader_state *st, const char *fmt, const char *arg)
{
	err_at(st->e, st->d->path, st->line, fmt, arg);
	st->failed = 1;
	return NULL;
}

static int name_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '-' || c == '.';
}

/* A "[name]" line: the name is letters, digits, '_', '-', '.', shorter than CFG_NAME_MAX, and
 * only a comment may follow. Records it (a section may appear once). */
static char *section_line(reader_state *st, const char *p, char *str)
{
	cfg_doc *d = st->d;
	const char *close = strchr(p, ']');
	const char *q;
	char name[CFG_NAME_MAX];
	size_t len;
	if (!close)
		return line_fail(st, "unclosed section header%s: expected ']'", "");
	len = (size_t)(close - p - 1);
	if (len == 0)
		return line_fail(st, "empty section name%s", "");
	if (len >= CFG_NAME_MAX) {
		err_at(st->e, d->path, st->line, "section name longer than %d characters", CFG_NAME_MAX - 1);
		st->failed = 1;
		return NULL;
	}
	memcpy(name, p + 1, len);
	name[len] = '\0';
	for (q = name; *q; q++)
		if (!name_char(*q))
			return line_fail(st, "section name: '%s' is not letters, digits, '_', '-' or '.'", name);
	for (q = close + 1; *q == ' ' || *q == '\t' || *q == '\n'; q++)
		;
	if (*q && *q != ';' && *q != '#')
		return line_fail(st, "text after the section header '%s'", name);
	for (int i = 0; i < d->nsections; i++) {
		if (strcmp(d->sections[i].name, name) == 0) {
			err_at(st->e, d->path, st->line, "section [%s] appears twice (first on line %d)", name,
			       d->sections[i].line);
			st->failed = 1;
			return NULL;
		}
	}
	if (d->nsections == (int)(sizeof d->sections / sizeof d->sections[0]))
		return line_fail(st, "too many sections%s", "");
	snprintf(d->sections[d->nsections].name, CFG_NAME_MAX, "%s", name);
	d->sections[d->nsections].line = st->line;
	d->nsections++;
	st->key_seen = 0;
	return str;
}

/* The longest prefix of p[0..len) of at most room bytes to end a piece of a long line on: it
 * ends on a byte that is not white space, and the rest starts with neither white space nor a
 * comment character (inih trims the one and skips lines that start with the other). 0: none. */
static size_t split_at(const char *p, size_t len, size_t room)
{
	for (size_t k = room < len ? room : len; k > 1; k--)
		if (!isspace((unsigned char)p[k - 1]) && !isspace((unsigned char)p[k]) && p[k] != ';' && p[k] != '#')
			return k;
	return 0;
}

/* inih's reader: the next line of the buffer, checked before inih sees it, so that every
 * syntax error is ours, on its own line, and inih only splits good lines. inih holds a line
 * in INI_MAX_LINE (200) bytes: a longer key line (a path in a deep folder) is given as its
 * first piece and then pieces of continuation, which the handler joins without a space. */
static char *reader(char *str, int num, void *stream)
{
	reader_state *st = stream;
	const char *p, *nl;
	size_t n, body;

	if (st->failed)
		return NULL;
	if (st->rest_len) {
		size_t room = (size_t)num - 3;   /* a leading space, the line feed, the NUL */
		size_t k = st->rest_len <= room ? st->rest_len : split_at(st->rest, st->rest_len, room);
		if (k == 0)
			return line_fail(st, "a value with more than %s characters of white space or comment "
					 "characters in a row", "190");
		str[0] = ' ';
		memcpy(str + 1, st->rest, k);
		str[k + 1] = '\n';
		str[k + 2] = '\0';
		st->rest += k;
		st->rest_len -= k;
		st->continuation = st->glue = 1;
		return str;
	}
	st->glue = 0;
	if (st->pos >= st->len)
		return NULL;
	p = st->buf + st->pos;
	nl = memchr(p, '\n', st->len - st->pos);
	n = nl ? (size_t)(nl - p) + 1 : st->len - st->pos;
	st->pos += n;
	st->line++;
	body = nl ? n - 1 : n;               /* without the line feed ... */
	if (body > 0 && p[body - 1] == '\r')
		body--;                      /* ... and the carriage return of CRLF */
	if (body > (size_t)num - 2) {
		const char *q = p, *eq = memchr(p, '=', body);
		size_t k;
		while (q < p + body && (*q == ' ' || *q == '\t'))
			q++;
		if (q == p + body || *q == ';' || *q == '#') {
			/* A long comment: nothing of it reaches inih. */
			str[0] = '\n';
			str[1] = '\0';
			return str;
		}
		/* A long key line: its inline comment cut here (a piece would not see it), then
		 * pieces. */
		for (const char *c = eq ? eq + 1 : p + body; c < p + body; c++)
			if ((*c == '#' || *c == ';') && (c[-1] == ' ' || c[-1] == '\t')) {
				body = (size_t)(c - p);
				break;
			}
		while (body > 0 && isspace((unsigned char)p[body - 1]))
			body--;
		k = body > (size_t)num - 2 ? split_at(p, body, (size_t)num - 2) : body;
		if (*q == '[' || !eq || k == 0 || (size_t)(eq - p) + 2 > k) {
			err_at(st->e, st->d->path, st->line, "line longer than %d characters (a section header, or a "
			       "key that long)", num - 2);
			st->failed = 1;
			return NULL;
		}
		st->rest = p + k;
		st->rest_len = body - k;
		body = k;
	}
	memcpy(str, p, body);
	str[body] = '\n';
	str[body + 1] = '\0';
	st->continuation = body > 0 && (str[0] == ' ' || str[0] == '\t');
	p = str;
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p == '\n' || *p == ';' || *p == '#')
		return str;                  /* blank or a comment */
	if (st->continuation && st->key_seen)
		return str;                  /* more of the last value */
	if (*p == '[')
		return section_line(st, p, str);
	{
		/* key = value (inih also takes ':'); an inline comment starts at " ;". */
		const char *q = p;
		while (*q && *q != '=' && *q != ':' && !(*q == ';' && q > p && (q[-1] == ' ' || q[-1] == '\t')))
			q++;
		if (*q != '=' && *q != ':')
			return line_fail(st, "syntax error: expected 'key = value' or '[section]'%s", "");
		if (q == p)
			return line_fail(st, "syntax error: a value without a key%s", "");
	}
	st->key_seen = 1;
	return str;
}

static int add_entry(cfg_doc *d, const char *section, const char *key, const char *value, int line)
{
	cfg_entry *en;
	if (d->n == d->cap) {
		int cap = d->cap ? d->cap * 2 : 32;
		cfg_entry *ne = realloc(d->entries, (size_t)cap * sizeof *ne);
		if (!ne)
			return -1;
		d->entries = ne;
		d->cap = cap;
	}
	en = &d->entries[d->n];
	memset(en, 0, sizeof *en);
	snprintf(en->section, CFG_NAME_MAX, "%s", section);
	snprintf(en->key, CFG_NAME_MAX, "%s", key);
	en->value = dup_str(value);
	if (!en->value)
		return -1;
	en->line = line;
	d->n++;
	return 0;
}

static cfg_entry *find_mut(cfg_doc *d, const char *section, const char *key)
{
	for (int i = 0; i < d->n; i++)
		if (strcmp(d->entries[i].section, section) == 0 && strcmp(d->entries[i].key, key) == 0)
			return &d->entries[i];
	return NULL;
}

const cfg_entry *cfg_find(const cfg_doc *d, const char *section, const char *key)
{
	return find_mut((cfg_doc *)d, section, key);
}

/* Cuts an inline "# comment" (inih itself handles " ;"). */
static void strip_hash_comment(char *v)
{
	for (char *p = v; *p; p++) {
		if (*p == '#' && (p == v || p[-1] == ' ' || p[-1] == '\t')) {
			*p = '\0';
			break;
		}
	}
	for (size_t n = strlen(v); n > 0 && isspace((unsigned char)v[n - 1]); n--)
		v[n - 1] = '\0';
}

static int handle(reader_state *st, cfg_doc *d, const char *section, const char *name, const char *v);

static int handler(void *user, const char *section, const char *name, const char *value)
{
	reader_state *st = user;
	cfg_doc *d = st->d;
	char *v = dup_str(value);
	int rc;

	if (!v) {
		err_set(st->e, ERR_DATA, "out of memory");
		st->failed = 1;
		return 0;
	}
	if (!st->glue)
		strip_hash_comment(v);
	rc = handle(st, d, section, name, v);
	free(v);
	return rc;
}

static int handle(reader_state *st, cfg_doc *d, const char *section, const char *name, const char *v)
{
	if (*section == '\0') {
		err_at(st->e, d->path, st->line, "%s: key outside any [section]", name);
		st->failed = 1;
		return 0;
	}
	if (strlen(section) >= CFG_NAME_MAX || strlen(name) >= CFG_NAME_MAX) {
		err_at(st->e, d->path, st->line, "%s: name too long", name);
		st->failed = 1;
		return 0;
	}
	if (st->continuation && strcmp(st->last_key, name) == 0 &&
	    strcmp(st->last_section, section) == 0) {
		/* A continuation line joins with a space; a piece of one long line joins as it was. */
		cfg_entry *en = find_mut(d, section, name);
		size_t a = strlen(en->value), b = strlen(v), sp = st->glue ? 0 : 1;
		char *nv = realloc(en->value, a + b + 2);
		if (!nv)
			return 0;
		nv[a] = ' ';
		memcpy(nv + a + sp, v, b + 1);
		en->value = nv;
		return 1;
	}
	{
		const cfg_entry *prev = find_mut(d, section, name);
		if (prev) {
			err_at(st->e, d->path, st->line, "%s: duplicate key in [%s] (first on line %d)",
			       name, section, prev->line);
			st->failed = 1;
			return 0;
		}
	}
	if (add_entry(d, section, name, v, st->line) != 0) {
		err_set(st->e, ERR_DATA, "out of memory");
		st->failed = 1;
		return 0;
	}
	snprintf(st->last_key, CFG_NAME_MAX, "%s", name);
	snprintf(st->last_section, CFG_NAME_MAX, "%s", section);
	return 1;
}

/* Reads path into *buf: at most CFG_FILE_MAX + 1 bytes (one more tells it is too long). */
static int read_raw(const char *path, char **buf, size_t *len, err *e)
{
	FILE *f = os_open_read(path, e);   /* a named pipe is refused, not waited on */
	size_t n = 0, cap = 0;
	char *b = NULL;
	if (!f)
		return ERR_DATA;
	for (;;) {
		size_t got;
		if (n == cap) {
			size_t nc = cap ? 2 * cap : 16384;
			char *nb;
			if (nc > CFG_FILE_MAX + 1)
				nc = CFG_FILE_MAX + 1;
			if (nc == cap)
				break;
			if (!(nb = realloc(b, nc))) {
				free(b);
				fclose(f);
				return err_set(e, ERR_DATA, "out of memory");
			}
			b = nb;
			cap = nc;
		}
		got = fread(b + n, 1, cap - n, f);
		if (got == 0)
			break;
		n += got;
	}
	if (ferror(f)) {
		free(b);
		fclose(f);
		return err_set(e, ERR_DATA, "%s: cannot read: %s", path, strerror(errno));
	}
	fclose(f);
	*buf = b;
	*len = n;
	return 0;
}

/* Parses len bytes of text into d (text.h: UTF-8 without NUL or control characters, a BOM
 * skipped once at the start), naming it path in errors. */
static int parse_text(cfg_doc *d, const char *path, const char *text, size_t len, err *e)
{
	reader_state st;
	text_scan ts;
	int rc;

	memset(d, 0, sizeof *d);
	snprintf(d->path, sizeof d->path, "%s", path);
	text_scan_init(&ts);
	if (text_scan_feed(&ts, text, len > CFG_FILE_MAX ? CFG_FILE_MAX : len) != 0 ||
	    (len <= CFG_FILE_MAX && text_scan_end(&ts) != 0))
		return err_at(e, path, (int)ts.line, "not a text file (%s)", ts.why);
	if (len > CFG_FILE_MAX)
		return err_at(e, path, (int)ts.line, "longer than %d KiB: not a description file", CFG_FILE_MAX >> 10);
	memset(&st, 0, sizeof st);
	st.d = d;
	st.e = e;
	st.buf = text;
	st.len = len;
	st.pos = ts.bom ? 3 : 0;
	rc = ini_parse_stream(reader, &st, handler, &st);
	if (st.failed) {
		cfg_release(d);
		return ERR_DATA;
	}
	if (rc != 0) {
		err_at(e, path, rc > 0 ? rc : 0,
		       rc > 0 ? "syntax error: expected 'key = value' or '[section]'"
			      : "cannot read the file");
		cfg_release(d);
		return ERR_DATA;
	}
	return 0;
}

int cfg_load(cfg_doc *d, const char *path, err *e)
{
	char *buf = NULL;
	size_t len = 0;
	int rc;
	memset(d, 0, sizeof *d);
	if (read_raw(path, &buf, &len, e) != 0)
		return ERR_DATA;
	rc = parse_text(d, path, buf, len, e);
	free(buf);
	return rc;
}

int cfg_load_text(cfg_doc *d, const char *name, const char *text, err *e)
{
	return parse_text(d, name, text, strlen(text), e);
}

void cfg_release(cfg_doc *d)
{
	for (int i = 0; i < d->n; i++)
		free(d->entries[i].value);
	free(d->entries);
	d->entries = NULL;
	d->n = d->cap = 0;
}

int cfg_has_section(const cfg_doc *d, const char *name, int *line)
{
	for (int i = 0; i < d->nsections; i++) {
		if (strcmp(d->sections[i].name, name) == 0) {
			if (line)
				*line = d->sections[i].line;
			return 1;
		}
	}
	/* A section added by --set has no header line. */
	for (int i = 0; i < d->n; i++) {
		if (strcmp(d->entries[i].section, name) == 0) {
			if (line)
				*line = 0;
			return 1;
		}
	}
	return 0;
}

const cfg_field *cfg_field_find(const cfg_field *fields, int nfields, const char *assign, err *e)
{
	char key[2 * CFG_NAME_MAX], section[CFG_NAME_MAX] = "";
	const char *eq = strchr(assign, '=');
	const char *dot;
	const cfg_field *hit = NULL;
	size_t klen;

	if (!eq || eq == assign) {
		err_set(e, ERR_USAGE, "--set '%s': expected KEY=VALUE", assign);
		return NULL;
	}
	klen = (size_t)(eq - assign);
	if (klen >= sizeof key) {
		err_set(e, ERR_USAGE, "--set '%s': key too long", assign);
		return NULL;
	}
	memcpy(key, assign, klen);
	key[klen] = '\0';
	dot = strchr(key, '.');
	if (dot) {
		size_t sl = (size_t)(dot - key);
		if (sl >= CFG_NAME_MAX) {
			err_set(e, ERR_USAGE, "--set '%s': section too long", assign);
			return NULL;
		}
		memcpy(section, key, sl);
		section[sl] = '\0';
		memmove(key, dot + 1, strlen(dot + 1) + 1);
	}
	for (int i = 0; i < nfields; i++) {
		if (strcmp(fields[i].key, key) != 0)
			continue;
		if (*section && strcmp(fields[i].section, section) != 0)
			continue;
		if (hit) {
			err_set(e, ERR_USAGE, "--set %s: key is in [%s] and [%s]: write SECTION.%s", key, hit->section,
				fields[i].section, key);
			return NULL;
		}
		hit = &fields[i];
	}
	if (!hit)
		err_set(e, ERR_USAGE, "--set %s: unknown key", key);
	return hit;
}

int cfg_override(cfg_doc *d, const cfg_field *fields, int nfields, const char *assign, err *e)
{
	const cfg_field *hit = cfg_field_find(fields, nfields, assign, e);
	const char *eq = strchr(assign, '=');
	cfg_entry *en;

	if (!hit)
		return e ? (int)e->code : ERR_USAGE;
	en = find_mut(d, hit->section, hit->key);
	if (en) {
		char *nv = dup_str(eq + 1);
		if (!nv)
			return err_set(e, ERR_DATA, "out of memory");
		free(en->value);
		en->value = nv;
		en->line = 0;
		return 0;
	}
	if (add_entry(d, hit->section, hit->key, eq + 1, 0) != 0)
		return err_set(e, ERR_DATA, "out of memory");
	return 0;
}

/* Where an entry came from, for messages: "file:line: " or "--set ". */
static int entry_err(err *e, const cfg_doc *d, const cfg_entry *en, const char *fmt, const char *why)
{
	if (en->line == 0)
		return err_set(e, ERR_USAGE, "--set %s: %s", en->key, why);
	return err_at(e, d->path, en->line, fmt, en->key, why);
}

static int is_date(const char *s)
{
	int y, m = 1, dd = 1, n = 0;
	size_t len = strlen(s);
	for (size_t i = 0; i < len; i++)    /* digits and '-' where they go: no " 1" or "+1" */
		if ((i == 4 || i == 7) ? s[i] != '-' : !isdigit((unsigned char)s[i]))
			return 0;
	if (len == 4 && sscanf(s, "%4d%n", &y, &n) == 1 && n == 4)
		return y >= 1900 && y <= 2100;
	if (len == 7 && sscanf(s, "%4d-%2d%n", &y, &m, &n) == 2 && n == 7)
		return y >= 1900 && y <= 2100 && m >= 1 && m <= 12;
	if (len == 10 && sscanf(s, "%4d-%2d-%2d%n", &y, &m, &dd, &n) == 3 && n == 10)
		return y >= 1900 && y <= 2100 && m >= 1 && m <= 12 && dd >= 1 && dd <= 31;
	return 0;
}

int cfg_parse_value(const cfg_field *f, const char *value, void *out, char *why, size_t n)
{
	char *base = out;
	double v;

	switch (f->type) {
	case CFG_DATE:
		if (!is_date(value)) {
			snprintf(why, n, "'%s' is not a date (YYYY-MM-DD, YYYY-MM or YYYY)", value);
			return -1;
		}
		/* fall through */
	case CFG_STR:
		if (value[0] == '\0') {
			snprintf(why, n, "empty value");
			return -1;
		}
		if (strlen(value) >= f->size) {
			snprintf(why, n, "value longer than %zu characters", f->size - 1);
			return -1;
		}
		memcpy(base + f->offset, value, strlen(value) + 1);
		return 0;
	case CFG_ENUM:
		for (int i = 0; f->choices[i]; i++) {
			if (strcmp(f->choices[i], value) == 0) {
				*(int *)(void *)(base + f->offset) = i;
				return 0;
			}
		}
		{
			int k = snprintf(why, n, "'%s' is not one of", value);
			for (int i = 0; f->choices[i] && k >= 0 && (size_t)k + 16 < n; i++)
				k += snprintf(why + k, n - (size_t)k, "%s %s", i ? "," : "", f->choices[i]);
		}
		return -1;
	case CFG_BOOL:
		if (strcmp(value, "1") == 0 || strcmp(value, "yes") == 0 || strcmp(value, "true") == 0) {
			*(int *)(void *)(base + f->offset) = 1;
			return 0;
		}
		if (strcmp(value, "0") == 0 || strcmp(value, "no") == 0 || strcmp(value, "false") == 0) {
			*(int *)(void *)(base + f->offset) = 0;
			return 0;
		}
		snprintf(why, n, "'%s' is not 0 or 1", value);
		return -1;
	case CFG_NUM:
	case CFG_INT:
		if (units_parse(value, f->type == CFG_INT && f->unit != UNITS_COUNT ? UNITS_NONE : f->unit, &v, why,
				(int)n) != 0)
			return -1;
		if (f->type == CFG_INT && (v != floor(v) || fabs(v) > 2e9)) {
			snprintf(why, n, "'%s' is not a whole number", value);
			return -1;
		}
		if (f->min <= f->max && (v < f->min || v > f->max)) {
			snprintf(why, n, "%s is out of range [%g, %g]", value, f->min, f->max);
			return -1;
		}
		if (f->type == CFG_INT)
			*(int *)(void *)(base + f->offset) = (int)v;
		else
			*(double *)(void *)(base + f->offset) = v;
		return 0;
	}
	return 0;
}

static int set_field(const cfg_doc *d, const cfg_entry *en, const cfg_field *f, void *out, err *e)
{
	char why[256];
	if (cfg_parse_value(f, en->value, out, why, sizeof why) != 0)
		return entry_err(e, d, en, "%s: %s", why);
	return 0;
}

int cfg_extract(const cfg_doc *d, const cfg_field *fields, int nfields,
		const char *const *required_sections, void *out, err *e)
{
	/* Unknown sections and keys first, in file order. */
	for (int i = 0; i < d->nsections; i++) {
		int known = 0;
		for (int j = 0; j < nfields && !known; j++)
			known = strcmp(fields[j].section, d->sections[i].name) == 0;
		if (!known)
			return err_at(e, d->path, d->sections[i].line, "unknown section [%s]",
				      d->sections[i].name);
	}
	for (int i = 0; i < d->n; i++) {
		const cfg_entry *en = &d->entries[i];
		const cfg_field *f = NULL;
		for (int j = 0; j < nfields && !f; j++)
			if (strcmp(fields[j].section, en->section) == 0 && strcmp(fields[j].key, en->key) == 0)
				f = &fields[j];
		if (!f) {
			if (en->line == 0)
				return err_set(e, ERR_USAGE, "--set %s: unknown key", en->key);
			return err_at(e, d->path, en->line, "%s: unknown key in [%s]", en->key, en->section);
		}
		if (set_field(d, en, f, out, e) != 0)
			return e ? (int)e->code : ERR_DATA;
	}
	for (int i = 0; required_sections && required_sections[i]; i++)
		if (!cfg_has_section(d, required_sections[i], NULL))
			return err_at(e, d->path, 0, "missing section [%s]", required_sections[i]);
	for (int j = 0; j < nfields; j++) {
		int line;
		if (!fields[j].required || !cfg_has_section(d, fields[j].section, &line))
			continue;
		if (!cfg_find(d, fields[j].section, fields[j].key))
			return err_at(e, d->path, line, "%s: missing in [%s]", fields[j].key,
				      fields[j].section);
	}
	return 0;
}

int cfg_extract_section(const cfg_doc *d, int s, const cfg_field *fields, int nfields, void *out, err *e)
{
	cfg_doc one = *d;
	cfg_field *f = malloc(sizeof *f * (size_t)(nfields ? nfields : 1));
	int rc;
	one.n = 0;
	one.entries = malloc(sizeof *one.entries * (size_t)(d->n ? d->n : 1));
	if (!f || !one.entries) {
		free(f);
		free(one.entries);
		return err_set(e, ERR_DATA, "out of memory");
	}
	for (int i = 0; i < nfields; i++) {
		f[i] = fields[i];
		f[i].section = d->sections[s].name;
	}
	for (int i = 0; i < d->n; i++)
		if (!strcmp(d->entries[i].section, d->sections[s].name))
			one.entries[one.n++] = d->entries[i];
	one.sections[0] = d->sections[s];
	one.nsections = 1;
	rc = cfg_extract(&one, f, nfields, NULL, out, e);
	free(one.entries);
	free(f);
	return rc;
}
