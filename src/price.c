/* price: pricing catalogs and their strict reader (see price.h). */
#include "price.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csvin.h"

const char *const price_model_names[] = {"on-demand", "capacity-block", "reserved-1y",
					 "reserved-3y", "committed-1y", "committed-3y", "spot", NULL};
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

int price_verified(const price_row *r)
{
	return strncmp(r->source, price_unverified_prefix, sizeof price_unverified_prefix - 1) != 0;
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
		if (price_parse_model(v, &r->model) == 0)
			return 0;
		{
			int k = snprintf(why, wl, "'%s' is not one of", v);
			for (int i = 0; price_model_names[i] && k > 0 && (size_t)k < wl; i++)
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
		strcpy(r->as_of, v);
		return 0;
	case C_SOURCE:
		if (strlen(v) >= PRICE_SOURCE_MAX) {
			snprintf(why, wl, "longer than %d characters", PRICE_SOURCE_MAX - 1);
			return -1;
		}
		if (strncmp(v, price_unverified_prefix, sizeof price_unverified_prefix - 1) == 0 &&
		    v[sizeof price_unverified_prefix - 1] == '\0') {
			snprintf(why, wl, "'%s' needs the reason and the source after it", price_unverified_prefix);
			return -1;
		}
		strcpy(r->source, v);
		return 0;
	case C_N:
		break;
	}
	return 0;
}

/* Maps header columns to contract columns: colmap[i] = contract index of file column i. */
static int check_header(const csvin_doc *d, int *colmap, err *e)
{
	const csvin_row *h = &d->rows[0];
	int seen[C_N];
	for (int c = 0; c < C_N; c++)
		seen[c] = -1;
	for (int i = 0; i < h->n; i++) {
		int c = 0;
		if (h->fields[i][0] == '\0')
			return err_at(e, d->path, h->line, "header: column %d has no name", i + 1);
		while (c < C_N && strcmp(h->fields[i], price_columns[c]) != 0)
			c++;
		if (c == C_N)
			return err_at(e, d->path, h->line, "header: unknown column '%s' (expected %s)",
				      h->fields[i], header_text);
		if (seen[c] >= 0)
			return err_at(e, d->path, h->line, "header: column '%s' appears twice (columns %d and %d)",
				      price_columns[c], seen[c] + 1, i + 1);
		seen[c] = i;
		colmap[i] = c;
	}
	for (int c = 0; c < C_N; c++)
		if (seen[c] < 0)
			return err_at(e, d->path, h->line, "header: missing column '%s'", price_columns[c]);
	return 0;
}

/* Orders rows by offer: provider, instance, region, pricing_model, as_of. */
static int cmp_key(const price_row *a, const price_row *b)
{
	int k = strcmp(a->provider, b->provider);
	if (!k)
		k = strcmp(a->instance, b->instance);
	if (!k)
		k = strcmp(a->region, b->region);
	if (!k)
		k = (a->model > b->model) - (a->model < b->model);
	return k ? k : strcmp(a->as_of, b->as_of);
}

/* By offer, then by line: the first row of an offer comes first. */
static int cmp_offer(const void *pa, const void *pb)
{
	const price_row *a = *(const price_row *const *)pa, *b = *(const price_row *const *)pb;
	int k = cmp_key(a, b);
	return k ? k : (a->line > b->line) - (a->line < b->line);
}

/* Reports the repeated offer on the smallest line, against the first row of that offer. */
static int check_duplicates(price_catalog *c, err *e)
{
	const price_row **v = malloc((size_t)c->n * sizeof *v);
	const price_row *dup = NULL, *first = NULL;
	int g = 0;   /* first row of the current group of equal offers */
	if (!v)
		return err_set(e, ERR_DATA, "out of memory");
	for (int i = 0; i < c->n; i++)
		v[i] = &c->rows[i];
	qsort(v, (size_t)c->n, sizeof *v, cmp_offer);
	for (int i = 1; i < c->n; i++) {
		if (cmp_key(v[g], v[i]) != 0) {
			g = i;
			continue;
		}
		if (!dup || v[i]->line < dup->line) {
			dup = v[i];
			first = v[g];
		}
	}
	free(v);
	if (dup)
		return err_at(e, c->path, dup->line, "duplicate of line %d (same provider, instance, region, "
			      "pricing_model and as_of)", first->line);
	return 0;
}

static int check_rows(const csvin_doc *d, const int *colmap, price_catalog *c, err *e)
{
	for (int r = 1; r < d->nrows; r++) {
		const csvin_row *in = &d->rows[r];
		price_row *out = &c->rows[c->n];
		const char *val[C_N];
		char why[512];
		if (in->n != C_N)
			return err_at(e, d->path, in->line, "expected %d fields, found %d", C_N, in->n);
		memset(out, 0, sizeof *out);
		for (int i = 0; i < C_N; i++)
			val[colmap[i]] = in->fields[i];
		/* Fields in contract order, so that the first bad one named is stable. */
		for (int k = 0; k < C_N; k++)
			if (set_field(out, k, val[k], why, sizeof why) != 0)
				return err_at(e, d->path, in->line, "%s: %s", price_columns[k], why);
		if (out->unit == PRICE_PER_CHIP && out->accelerators != 1)
			return err_at(e, d->path, in->line,
				      "accelerators: a chip price is for one chip, found %d", out->accelerators);
		out->line = in->line;
		c->n++;
	}
	return check_duplicates(c, e);
}

int price_catalog_load(price_catalog *c, const char *path, err *e)
{
	csvin_doc d;
	int colmap[CSVIN_FIELDS_MAX];
	int rc;

	memset(c, 0, sizeof *c);
	snprintf(c->path, sizeof c->path, "%s", path);
	if (csvin_load(&d, path, e) != 0)
		return ERR_DATA;
	memcpy(c->sha256, d.sha256, sizeof c->sha256);
	if (d.nrows == 0)
		rc = err_at(e, path, 0, "empty file: expected the header %s", header_text);
	else if ((rc = check_header(&d, colmap, e)) != 0)
		;
	else if (d.nrows == 1)
		rc = err_at(e, path, d.rows[0].line, "no price rows after the header");
	else if (!(c->rows = malloc((size_t)(d.nrows - 1) * sizeof *c->rows)))
		rc = err_set(e, ERR_DATA, "out of memory");
	else
		rc = check_rows(&d, colmap, c, e);
	csvin_release(&d);
	if (rc != 0)
		price_catalog_release(c);
	return rc;
}
