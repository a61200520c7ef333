/* price: pricing catalogs - the row type, the names a catalog may use, and the strict reader
 * that turns a CSV file (csvin) into checked rows.
 *
 * Columns (DESIGN §5; header required, order free, missing, unknown or repeated columns
 * rejected): provider,instance,region,pricing_model,usd_per_hour,unit,accelerators,as_of,source.
 * Every field is checked; the first bad one is an error "FILE:LINE: FIELD: reason", and a row
 * that repeats (provider, instance, region, pricing_model, as_of) of an earlier one is an error
 * naming that line. A price whose source starts with the word "unverified" (any case, then
 * any of " :;,-") is kept, marked unverified and stored as "UNVERIFIED: reason". Format and allowed values: catalogs/README.md. Does not touch the store (db.c). */
#ifndef ROOFCOST_PRICE_H
#define ROOFCOST_PRICE_H

#include "base/err.h"

enum { PRICE_NAME_MAX = 64, PRICE_DATE_MAX = 11, PRICE_SOURCE_MAX = 1024, PRICE_PATH_MAX = 512 };

/* The range of a price a catalog may hold, USD per hour of one unit (a chip or an instance):
 * from a hundredth of a cent (a spot chip-hour is cents) to $100,000 (a rack-scale instance is
 * a few hundred), written with at most PRICE_DIGITS_MAX significant digits. Beyond it is a
 * typo or an attack, and 1e308 would print as +inf% in a comparison. */
#define PRICE_USD_MIN 1e-4
#define PRICE_USD_MAX 1e5
enum { PRICE_DIGITS_MAX = 12 };

/* How a system is paid for. The catalog models come first; PRICE_OWNED (buying the hardware
 * and running it: capex, power and hosting, models/README.md) is computed, never catalogued. */
typedef enum price_model {
	PRICE_ON_DEMAND, PRICE_CAPACITY_BLOCK, PRICE_RESERVED_1Y, PRICE_RESERVED_3Y,
	PRICE_COMMITTED_1Y, PRICE_COMMITTED_3Y, PRICE_SPOT, PRICE_OWNED, PRICE_MODEL_N
} price_model;

/* The pricing models a catalog row may name: those before PRICE_OWNED. */
enum { PRICE_CATALOG_N = PRICE_OWNED };

/* "on-demand" ... "spot", "owned", NULL-terminated (usable as cfg enum choices). */
extern const char *const price_model_names[];

typedef enum price_unit { PRICE_PER_INSTANCE, PRICE_PER_CHIP, PRICE_UNIT_N } price_unit;

/* "instance", "chip", NULL-terminated. */
extern const char *const price_unit_names[];

/* The prefix of a source that marks a price as not verified. */
extern const char price_unverified_prefix[];

/* The nine catalog columns, in DESIGN order, NULL-terminated. */
extern const char *const price_columns[];

typedef struct price_row {
	char provider[PRICE_NAME_MAX];
	char instance[PRICE_NAME_MAX];   /* equals a system's `instance` key */
	char region[PRICE_NAME_MAX];
	price_model model;
	double usd_per_hour;             /* USD per hour of one `unit` */
	price_unit unit;
	int accelerators;                /* chips per instance (1 when unit is chip) */
	char as_of[PRICE_DATE_MAX];      /* YYYY-MM-DD */
	char source[PRICE_SOURCE_MAX];
	int line;                        /* line in the catalog it came from */
} price_row;

typedef struct price_catalog {
	char path[PRICE_PATH_MAX];
	char sha256[65];                 /* of the file's bytes */
	price_row *rows;                 /* owned; NULL after price_scan */
	int n, cap;                      /* rows */
} price_catalog;

/* Called by price_scan for each checked row, in file order. Returns 0 to go on, or nonzero
 * with e set to stop the scan. */
typedef int (*price_row_fn)(void *ctx, const price_row *r, err *e);

/* Reads and checks a catalog file row by row, in memory that does not grow with the file but
 * for 16 bytes a row (to find repeated offers), calling fn (NULL: none) with each row once it
 * is checked. info gets the path, the SHA-256 of the bytes and the row count (rows stays
 * NULL). Returns 0, or nonzero with e set: the first bad field or what fn returned, else,
 * after the last row, the first repeated offer (fn has seen it: roll back what fn did). */
int price_scan(const char *path, price_row_fn fn, void *ctx, price_catalog *info, err *e);

/* Reads and checks a small catalog file with all its rows in c->rows. Returns 0, or nonzero
 * with e set; on failure c holds nothing. The caller releases c with price_catalog_release. */
int price_catalog_load(price_catalog *c, const char *path, err *e);

void price_catalog_release(price_catalog *c);

/* Parses a pricing model name. Returns 0, or -1 if s is not one of price_model_names. */
int price_parse_model(const char *s, price_model *m);

/* 1 if s is a calendar date YYYY-MM-DD (years 1990-2100), else 0. */
int price_is_date(const char *s);

/* The date days_ahead days from now, UTC, as YYYY-MM-DD. */
void price_today(int days_ahead, char out[PRICE_DATE_MAX]);

/* Days since 1970-01-01 of a date YYYY-MM-DD, YYYY-MM (its first day) or YYYY (January 1st)
 * into *days. Returns 0, or -1 if s is none of these. */
int price_date_days(const char *s, long *days);

/* 1 unless the row's source starts with price_unverified_prefix. */
int price_verified(const price_row *r);

/* USD per chip-hour: usd_per_hour / accelerators for an instance price, usd_per_hour for a
 * chip price. */
double price_per_chip_hour(const price_row *r);

#endif
