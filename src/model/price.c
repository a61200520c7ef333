/* price: pricing catalogs and their strict reader (see price.h). */
#include "model/price.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <strings.h>

#include <nettle/sha2.h>

#include "base/csvin.h"
#include "base/opt.h"

const char *const price_model_names[] = {"on-demand", "capacity-block", "reserved-1y",
					 "reserved-3y", "committed-1y", "committed-3y", "spot", "owned", NULL};
const char *const price_unit_names[] = {"instance", "chip", NULL};
const char price_unverified_prefix[] = "UNVERIFIED: ";

static const char header_text[] =
	"provider,instance,region,pricing_model,usd_per_hour,unit,accelerators,as_of,source";

enum col { C_PROVIDER, C_INSTANCE, C_REGION, C_MODEL, C_USD, C_UNIT, C_ACCEL, C_AS_OF, C_SOURCE, C_N };

const char *const price_columns[] = {"provider", "instance", "region", "pricing_model",
				     "usd_per_hour", "unit", "accelerators", "as_of", "source", NULL};

int price_parse_model(const char *s, price_model *m)
{
	for (int i = 0; price_model_names[i]; i++)
		if (strcmp(s, price_model_names[i]) == 0) {
			*m = (price_model)i;
			return 0;
		}
	return -1;
}

void price_today(int days_ahead, char out[PRICE_DATE_MAX])
{
	time_t t = time(NULL) + (time_t)days_ahead * 86400;
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(out, PRICE_DATE_MAX, "%Y-%m-%d", &tm);
}

int price_is_date(const char *s)
{
	static const int mdays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
	int y, m, d, leap;
	if (strlen(s) != 10 || s[4] != '-' || s[7] != '-')
		return 0;
	for (int i = 0; i < 10; i++)
		if (i != 4 && i != 7 && !isdigit((unsigned char)s[i]))
			return 0;
	y = atoi(s);
	m = atoi(s + 5);
	d = atoi(s + 8);
	if (y < 1990 || y > 2100 || m < 1 || m > 12 || d < 1)
		return 0;
	leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
	return d <= mdays[m - 1] + (m == 2 && leap);
}

int price_date_days(const char *s, long *days)
{
	char full[PRICE_DATE_MAX];
	long y, m, d;
	size_t n = strlen(s);
	if (n == 4)
		snprintf(full, sizeof full, "%s-01-01", s);
	else if (n == 7)
		snprintf(full, sizeof full, "%s-01", s);
	else if (n == 10)
		snprintf(full, sizeof full, "%s", s);
	else
		return -1;
	if (!price_is_date(full))
		return -1;
	y = atol(full);
	m = atol(full + 5);
	d = atol(full + 8);
	/* Days from civil (H. Hinnant, "chrono-Compatible Low-Level Date Algorithms"): years from
	 * March, so that the leap day ends the year. */
	y -= m <= 2;
	{
		long era = y / 400, yoe = y - era * 400;
		long doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
		long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
		*days = era * 146097 + doe - 719468;
	}
	return 0;
}

/* The reason after an unverified mark at the start of a source, NULL when there is no mark.
 * The mark is the word "unverified" in any case, then any of " \t:;,-": so that "UNVERIFIED:x"
 * or a space lost to CSV trimming still marks the price (a lost mark shows it as verified). */
static const char *unverified_reason(const char *s)
{
	if (strncasecmp(s, "unverified", 10) != 0 || isalnum((unsigned char)s[10]) || s[10] == '_')
		return NULL;
	s += 10;
	while (*s && strchr(" \t:;,-", *s))
		s++;
	return s;
}

int price_verified(const price_row *r)
{
	return unverified_reason(r->source) == NULL;
}

double price_per_chip_hour(const price_row *r)
{
	return r->unit == PRICE_PER_CHIP ? r->usd_per_hour : r->usd_per_hour / r->accelerators;
}

void price_catalog_release(price_catalog *c)
{
	free(c->rows);
	c->rows = NULL;
	c->n = 0;
}

/* A name of the characters in `extra` plus letters (upper case only if upper) and digits. */
static int name_ok(const char *s, int upper, const char *extra)
{
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;
		if (isdigit(ch) || islower(ch) || (upper && isupper(ch)) || strchr(extra, ch))
			continue;
		return 0;
	}
	return 1;
}

static int copy_name(char *dst, const char *v, int upper, const char *extra, const char *what,
		     char *why, size_t wl)
{
	if (strlen(v) >= PRICE_NAME_MAX) {
		snprintf(why, wl, "longer than %d characters", PRICE_NAME_MAX - 1);
		return -1;
	}
	if (!name_ok(v, upper, extra)) {
		snprintf(why, wl, "'%s' is not %s", v, what);
		return -1;
	}
	strcpy(dst, v);
	return 0;
}

static int parse_usd(const char *v, double *out, char *why, size_t wl)
{
	char *end;
	double x = strtod(v, &end);
	if (end == v || *end || strpbrk(v, "xX")) {
		snprintf(why, wl, "'%s' is not a number", v);
		return -1;
	}
	if (isnan(x)) {
		snprintf(why, wl, "'%s' is not a number", v);
		return -1;
	}
	if (!isfinite(x)) {
		snprintf(why, wl, "'%s' is not a finite number", v);
		return -1;
	}
	if (x < 0) {
		snprintf(why, wl, "%s is negative", v);
		return -1;
	}
	if (x == 0) {
		snprintf(why, wl, "0 is not a price (free offers are not catalogued)");
		return -1;
	}
	{
		double y;
		if (opt_number(v, &y) != 0) {   /* "+5", " 5": a catalog writes 5 */
			snprintf(why, wl, "'%s' is not a number", v);
			return -1;
		}
	}
	if (x < PRICE_USD_MIN || x > PRICE_USD_MAX) {
		snprintf(why, wl, "%s is out of range [%g, %g] USD per hour", v, PRICE_USD_MIN, PRICE_USD_MAX);
		return -1;
	}
	{
		/* Significant digits of the mantissa: from the first non-zero digit, trailing zeros
		 * after the point left out. */
		int digits = 0, zeros = 0, point = 0;
		for (const char *p = v; *p && *p != 'e' && *p != 'E'; p++) {
			if (*p == '.')
				point = 1;
			else if (*p == '0' && digits == 0)
				continue;
			else if (*p == '0')
				zeros++;
			else if (isdigit((unsigned char)*p)) {
				digits += zeros + 1;
				zeros = 0;
			}
		}
		if (!point)
			digits += zeros;
		if (digits > PRICE_DIGITS_MAX) {
			snprintf(why, wl, "'%s' has more than %d significant digits", v, PRICE_DIGITS_MAX);
			return -1;
		}
	}
	*out = x;
	return 0;
}

static int parse_count(const char *v, int *out, char *why, size_t wl)
{
	long x;
	char *end;
	const char *s = v;
	if (*s == '-' || *s == '+')
		s++;
	for (const char *p = s; *p; p++)
		if (!isdigit((unsigned char)*p)) {
			snprintf(why, wl, "'%s' is not a whole number", v);
			return -1;
		}
	if (!*s) {
		snprintf(why, wl, "'%s' is not a whole number", v);
		return -1;
	}
	x = strtol(v, &end, 10);
	if (x < 1) {
		snprintf(why, wl, "%s is not a chip count (at least 1)", v);
		return -1;
	}
	if (x > 1000000) {
		snprintf(why, wl, "%s is out of range [1, 1000000]", v);
		return -1;
	}
	*out = (int)x;
	return 0;
}

/* Checks field c of a row into r. Returns 0, or -1 with why set. */
static int set_field(price_row *r, int c, const char *v, char *why, size_t wl)
{
	if (*v == '\0') {
		snprintf(why, wl, "empty");
		return -1;
	}
	switch ((enum col)c) {
	case C_PROVIDER:
		return copy_name(r->provider, v, 0, "-", "a lower-case name (a-z, 0-9, -)", why, wl);
	case C_INSTANCE:
		return copy_name(r->instance, v, 1, "-._", "an instance name (letters, digits, '.', '_', '-')",
				 why, wl);
	case C_REGION:
		return copy_name(r->region, v, 0, "-", "a region name (a-z, 0-9, -)", why, wl);
	case C_MODEL:
		if (price_parse_model(v, &r->model) == 0 && (int)r->model < PRICE_CATALOG_N)
			return 0;
		if (price_parse_model(v, &r->model) == 0) {
			snprintf(why, wl, "'%s' is not catalogued: roofcost computes it from the system's capex and "
				 "power (models/README.md)", v);
			return -1;
		}
		{
			int k = snprintf(why, wl, "'%s' is not one of", v);
			for (int i = 0; i < PRICE_CATALOG_N && k > 0 && (size_t)k < wl; i++)
				k += snprintf(why + k, wl - (size_t)k, "%s %s", i ? "," : "", price_model_names[i]);
		}
		return -1;
	case C_USD:
		return parse_usd(v, &r->usd_per_hour, why, wl);
	case C_UNIT:
		for (int i = 0; price_unit_names[i]; i++)
			if (strcmp(v, price_unit_names[i]) == 0) {
				r->unit = (price_unit)i;
				return 0;
			}
		snprintf(why, wl, "'%s' is not one of instance, chip", v);
		return -1;
	case C_ACCEL:
		return parse_count(v, &r->accelerators, why, wl);
	case C_AS_OF:
		if (!price_is_date(v)) {
			snprintf(why, wl, "'%s' is not a date (YYYY-MM-DD, a day that exists)", v);
			return -1;
		}
		{
			/* A price is dated when it was published; a later date would make it the current
			 * price before its time (and move eval to it). A day of slack for time zones. */
			char today[PRICE_DATE_MAX], tomorrow[PRICE_DATE_MAX];
			price_today(0, today);
			price_today(1, tomorrow);
			if (strcmp(v, tomorrow) > 0) {
				snprintf(why, wl, "%s is after today (%s, UTC): a price is dated when it was published, "
					 "and a future one would be taken as the current price", v, today);
				return -1;
			}
		}
		strcpy(r->as_of, v);
		return 0;
	case C_SOURCE:
	{
		/* A source a spreadsheet would run as a formula when a table of prices is opened in one
		 * (=HYPERLINK(...), +cmd|...): no citation starts so. */
		if (strchr("=+-@", v[0]) && v[0]) {
			snprintf(why, wl, "starts with '%c', which a spreadsheet would run as a formula; a source is "
				 "a citation (a document, a page, a commit)", v[0]);
			return -1;
		}
		/* An unverified mark is stored in one spelling, "UNVERIFIED: reason". */
		const char *reason = unverified_reason(v);
		if (reason && !*reason) {
			snprintf(why, wl, "'%s' needs the reason and the source after it", price_unverified_prefix);
			return -1;
		}
		if (snprintf(r->source, sizeof r->source, "%s%s", reason ? price_unverified_prefix : "",
			     reason ? reason : v) >= (int)sizeof r->source) {
			snprintf(why, wl, "longer than %d characters", PRICE_SOURCE_MAX - 1);
			return -1;
		}
		return 0;
	}
	case C_N:
		break;
	}
	return 0;
}

/* Maps header columns to contract columns: colmap[i] = contract index of file column i. */
static int check_header(const char *path, const csvin_row *h, int *colmap, err *e)
{
	int seen[C_N];
	for (int c = 0; c < C_N; c++)
		seen[c] = -1;
	for (int i = 0; i < h->n; i++) {
		int c = 0;
		if (h->fields[i][0] == '\0')
			return err_at(e, path, h->line, "header: column %d has no name", i + 1);
		while (c < C_N && strcmp(h->fields[i], price_columns[c]) != 0)
			c++;
		if (c == C_N)
			return err_at(e, path, h->line, "header: unknown column '%s' (expected %s)",
				      h->fields[i], header_text);
		if (seen[c] >= 0)
			return err_at(e, path, h->line, "header: column '%s' appears twice (columns %d and %d)",
				      price_columns[c], seen[c] + 1, i + 1);
		seen[c] = i;
		colmap[i] = c;
	}
	for (int c = 0; c < C_N; c++)
		if (seen[c] < 0)
			return err_at(e, path, h->line, "header: missing column '%s'", price_columns[c]);
	return 0;
}

/* The offer of each row, as 96 bits of the SHA-256 of its key and the row's line: 16 bytes a
 * row however long the names (the rows themselves are not kept), sorted after the scan to find
 * repeats. Two different offers share 96 bits with odds below 1e-17 in a million rows. */
typedef struct offer_key {
	uint64_t h;
	uint32_t h2;
	int32_t line;
} offer_key;

typedef struct scan_state {
	price_catalog *info;
	price_row_fn fn;
	void *ctx;
	int colmap[CSVIN_FIELDS_MAX];
	int header_line;          /* 0 until the header is read */
	offer_key *keys;
	size_t nkeys, cap;
} scan_state;

static int add_offer(scan_state *st, const price_row *r)
{
	struct sha256_ctx c;
	uint8_t dg[SHA256_DIGEST_SIZE];
	const char *parts[5] = {r->provider, r->instance, r->region, price_model_names[r->model], r->as_of};
	offer_key *k;
	if (st->nkeys == st->cap) {
		size_t cap = st->cap ? 2 * st->cap : 1024;
		offer_key *nk = realloc(st->keys, cap * sizeof *nk);
		if (!nk)
			return -1;
		st->keys = nk;
		st->cap = cap;
	}
	sha256_init(&c);
	for (int i = 0; i < 5; i++)
		sha256_update(&c, strlen(parts[i]) + 1, (const uint8_t *)parts[i]);
	sha256_digest(&c, sizeof dg, dg);
	k = &st->keys[st->nkeys++];
	k->h = 0;
	k->h2 = 0;
	for (int i = 0; i < 8; i++)
		k->h = k->h << 8 | dg[i];
	for (int i = 8; i < 12; i++)
		k->h2 = k->h2 << 8 | dg[i];
	k->line = r->line;
	return 0;
}

static int same_offer(const offer_key *a, const offer_key *b)
{
	return a->h == b->h && a->h2 == b->h2;
}

/* By offer, then by line: the first row of an offer comes first. */
static int cmp_offer(const void *pa, const void *pb)
{
	const offer_key *a = pa, *b = pb;
	if (a->h != b->h)
		return a->h < b->h ? -1 : 1;
	if (a->h2 != b->h2)
		return a->h2 < b->h2 ? -1 : 1;
	return (a->line > b->line) - (a->line < b->line);
}

/* Reports the repeated offer on the smallest line, against the first row of that offer. */
static int check_repeats(scan_state *st, err *e)
{
	const offer_key *dup = NULL, *first = NULL;
	size_t g = 0;   /* first row of the current group of equal offers */
	qsort(st->keys, st->nkeys, sizeof *st->keys, cmp_offer);
	for (size_t i = 1; i < st->nkeys; i++) {
		if (!same_offer(&st->keys[g], &st->keys[i])) {
			g = i;
			continue;
		}
		if (!dup || st->keys[i].line < dup->line) {
			dup = &st->keys[i];
			first = &st->keys[g];
		}
	}
	if (dup)
		return err_at(e, st->info->path, dup->line, "duplicate of line %d (same provider, instance, "
			      "region, pricing_model and as_of)", first->line);
	return 0;
}

/* csvin_row_fn: the header, then one checked row at a time. */
static int scan_row(void *ctx, const csvin_row *in, err *e)
{
	scan_state *st = ctx;
	const char *path = st->info->path;
	const char *val[C_N];
	price_row out;
	char why[512];
	if (!st->header_line) {
		st->header_line = in->line;
		return check_header(path, in, st->colmap, e);
	}
	if (in->n != C_N)
		return err_at(e, path, in->line, "expected %d fields, found %d", C_N, in->n);
	memset(&out, 0, sizeof out);
	for (int i = 0; i < C_N; i++)
		val[st->colmap[i]] = in->fields[i];
	/* Fields in contract order, so that the first bad one named is stable. */
	for (int k = 0; k < C_N; k++)
		if (set_field(&out, k, val[k], why, sizeof why) != 0)
			return err_at(e, path, in->line, "%s: %s", price_columns[k], why);
	if (out.unit == PRICE_PER_CHIP && out.accelerators != 1)
		return err_at(e, path, in->line, "accelerators: a chip price is for one chip, found %d",
			      out.accelerators);
	out.line = in->line;
	st->info->n++;
	/* A repeated offer is reported after the scan, so that a bad field anywhere comes first. */
	if (add_offer(st, &out) != 0)
		return err_set(e, ERR_DATA, "out of memory");
	return st->fn ? st->fn(st->ctx, &out, e) : 0;
}

int price_scan(const char *path, price_row_fn fn, void *ctx, price_catalog *info, err *e)
{
	scan_state st;
	int rc;
	memset(info, 0, sizeof *info);
	snprintf(info->path, sizeof info->path, "%s", path);
	memset(&st, 0, sizeof st);
	st.info = info;
	st.fn = fn;
	st.ctx = ctx;
	rc = csvin_each(path, scan_row, &st, info->sha256, e);
	if (rc == 0 && !st.header_line)
		rc = err_at(e, path, 0, "empty file: expected the header %s", header_text);
	else if (rc == 0 && info->n == 0)
		rc = err_at(e, path, st.header_line, "no price rows after the header");
	else if (rc == 0)
		rc = check_repeats(&st, e);
	free(st.keys);
	return rc;
}

/* price_row_fn of price_catalog_load: keeps every row. */
static int keep_row(void *ctx, const price_row *r, err *e)
{
	price_catalog *c = ctx;
	if (c->n == c->cap) {
		int cap = c->cap ? 2 * c->cap : 64;
		price_row *nr = realloc(c->rows, (size_t)cap * sizeof *nr);
		if (!nr)
			return err_set(e, ERR_DATA, "out of memory");
		c->rows = nr;
		c->cap = cap;
	}
	c->rows[c->n++] = *r;
	return 0;
}

int price_catalog_load(price_catalog *c, const char *path, err *e)
{
	price_catalog info;
	int rc;
	memset(c, 0, sizeof *c);
	rc = price_scan(path, keep_row, c, &info, e);
	if (rc != 0) {
		price_catalog_release(c);
		return rc;
	}
	memcpy(c->path, info.path, sizeof c->path);
	memcpy(c->sha256, info.sha256, sizeof c->sha256);
	return 0;
}
