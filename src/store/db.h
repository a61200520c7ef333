/* db: the SQLite store - price catalogs and their history. The only user of sqlite3.h.
 *
 * One file ($ROOFCOST_DB, else ./roofcost.db: the caller chooses), WAL mode, a busy timeout,
 * roofcost's PRAGMA application_id, the schema versioned with PRAGMA user_version and migrated
 * forward on open (DESIGN §8); a file that is not such a store is refused, never altered.
 * Tables: catalog (one row per imported file: path, sha256, imported_at, rows, added),
 * price (one row per offer and as_of, foreign key to its catalog), baseline (frozen release
 * records, hash-chained; triggers refuse UPDATE and DELETE) and baseline_check (an
 * append-only log of checks, which is where a record's "last check" lives). An import is one
 * transaction: a file is stored whole or not at all. Prices are append-only history: a newer
 * as_of for the same offer adds a row, and a lookup takes the newest at or before a date.
 * Opaque handle: db_open / db_close. Errors name the store's path and SQLite's reason. */
#ifndef ROOFCOST_DB_H
#define ROOFCOST_DB_H

#include <stddef.h>

#include "base/err.h"
#include "model/price.h"
#include "store/baseline.h"

enum { DB_SCHEMA_VERSION = 4, DB_TIME_MAX = 32, DB_NAME_MAX = 128, DB_SHA_HEX = 65 };

typedef struct db db;

/* Fills a store that db_open has just created, inside the creating transaction (the bundled
 * catalogs). Returns 0, or nonzero with e set, which undoes the creation. */
typedef int (*db_seed_fn)(db *d, void *ctx, err *e);

/* Opens (creating it if needed) and migrates the store at path for reading and writing; a
 * store created by this call is filled by seed(d, ctx) when seed is not NULL. Safe against
 * other processes opening, creating or importing at the same time. An existing file is
 * checked before anything is written to it: PRAGMA quick_check, roofcost's application_id (or
 * roofcost's tables, in stores from before it had one) and a schema version from 1 to
 * DB_SCHEMA_VERSION; a foreign, corrupt, negative or newer store is refused with a message
 * naming it and left as it is. Returns 0 with *out set, or nonzero with e set. The caller
 * closes *out with db_close. */
int db_open(const char *path, db_seed_fn seed, void *ctx, db **out, err *e);

/* Like db_open for commands that only read: a current store is opened read-only (it works in
 * a folder this process cannot write); a missing, empty or older one is created or migrated
 * as db_open does. Imports into a read-only handle fail. */
int db_open_read(const char *path, db_seed_fn seed, void *ctx, db **out, err *e);

/* Closes d (NULL is fine). */
void db_close(db *d);

/* The path the store was opened at. */
const char *db_path(const db *d);

/* The schema version of the open store (DB_SCHEMA_VERSION after db_open). */
int db_schema_version(db *d);

typedef struct db_import_result {
	int catalog;                    /* id of the catalog row (the earlier one if already) */
	int already;                    /* 1: a file with the same SHA-256 is stored; nothing written */
	int added;                      /* price rows new to the store */
	int unchanged;                  /* rows equal to one stored already (same offer, as_of, price) */
	char path[PRICE_PATH_MAX];      /* path recorded for the catalog */
	char imported_at[DB_TIME_MAX];  /* UTC, YYYY-MM-DDTHH:MM:SSZ */
} db_import_result;

/* Imports a checked catalog in one transaction (a savepoint inside db_open's seed). A row
 * whose offer and as_of are stored with a different price, unit or accelerator count is an
 * error "FILE:LINE: usd_per_hour: ..." and nothing of the file is written. */
int db_import(db *d, const price_catalog *c, db_import_result *r, err *e);

/* Like db_import for the file that price_scan checked into *checked: its rows are read again
 * one at a time (memory does not grow with the file). A file whose bytes changed since the
 * check stores nothing. */
int db_import_file(db *d, const price_catalog *checked, db_import_result *r, err *e);

typedef struct db_query {
	const char *instance;
	price_model model;
	const char *region;   /* NULL or "": any region, the lowest USD per chip-hour wins */
	const char *as_of;    /* NULL or "": the newest price; else the newest at or before it */
} db_query;

/* Finds the price for q: per region the newest as_of (at or before q->as_of), then the region
 * asked for or the cheapest per chip-hour, a verified price before any unverified one (an
 * unverified row wins only where no region has a verified price). Sets *found to 0 or 1.
 * Returns 0 or nonzero. */
int db_price_find(db *d, const db_query *q, price_row *out, int *found, err *e);

/* Marks in have[PRICE_MODEL_N] the pricing models stored for instance (at or before as_of
 * when given). Returns 0 or nonzero. */
int db_price_models(db *d, const char *instance, const char *as_of, int *have, err *e);

/* Price rows, ordered by provider, instance, pricing_model, region, as_of: for provider (NULL
 * or "": all), at or before as_of (NULL or "": any date), all history when all is 1, else the
 * newest row of each offer. *rows is malloc'd: the caller frees it. Returns 0 or nonzero. */
int db_price_list(db *d, const char *provider, const char *as_of, int all, price_row **rows,
		  int *n, err *e);

/* Counts the catalogs and price rows stored. Returns 0 or nonzero. */
int db_counts(db *d, int *catalogs, int *prices, err *e);

/* The catalog a stored price row came from: its path and SHA-256. *found 0 if the row is
 * not stored. Returns 0 or nonzero. */
int db_price_catalog(db *d, const price_row *r, char *path, size_t n, char sha256[DB_SHA_HEX],
		     int *found, err *e);

/* A release record as stored (baseline.h and cmd_baseline.c say what is in it). */
typedef struct db_baseline {
	int id;                         /* order of recording in this store */
	char name[DB_NAME_MAX];
	char workload[PRICE_PATH_MAX], system[PRICE_PATH_MAX];
	char created_at[DB_TIME_MAX];   /* UTC, YYYY-MM-DDTHH:MM:SSZ */
	char *criteria, *tolerance;     /* canonical rule texts; owned */
	char *record;                   /* the record's canonical JSON; owned */
	char sha256[DB_SHA_HEX];        /* of record */
	char prev_sha256[DB_SHA_HEX];   /* chain_sha256 of the record before (the genesis first) */
	char chain_sha256[DB_SHA_HEX];  /* chain(prev_sha256, sha256) */
	/* the newest check (db_baseline_get and db_baseline_list) */
	int checks;                     /* checks logged */
	char checked_at[DB_TIME_MAX];
	int check_passed, check_frozen, check_failed;
} db_baseline;

/* Appends b (name, workload, system, created_at, criteria, tolerance, record, sha256 set) in
 * one write transaction, linked to the newest record's chain_sha256 (baseline_genesis for the
 * first) by baseline_link under k (NULL or no key: SHA-256; a key: HMAC-SHA256), and seals the
 * head: fills b->id, prev_sha256 and chain_sha256. Refused, with nothing written: a name
 * already stored; a head that does not match the chains (a link added or removed behind the
 * tool's back); k that is not the key of a keyed store, or a key for an unkeyed store that
 * holds records. Safe against other processes adding at the same time. */
int db_baseline_add(db *d, db_baseline *b, const baseline_key *k, err *e);

/* The two modes a store's chains are sealed in: "sha256", "hmac-sha256". */
extern const char *const db_seal_modes[];

/* The chains' head: one row, rewritten with each record or check appended. */
typedef struct db_head {
	int present;
	char mode[16];                  /* db_seal_modes */
	char key_id[BASELINE_KEY_ID];   /* baseline_key_id of the key; "" unkeyed */
	int records;                    /* records chained */
	char record_head[DB_SHA_HEX];   /* the newest record's chain_sha256 (genesis: none) */
	int checks;                     /* checks logged */
	char check_head[DB_SHA_HEX];
	char seal[DB_SHA_HEX];          /* baseline_seal of db_head_text under the store's key */
} db_head;

/* The text a head's seal is over. */
void db_head_text(const db_head *h, char *buf, size_t n);

/* The head row into *h (h->present 0 if there is none). Returns 0 or nonzero. */
int db_head_get(db *d, db_head *h, err *e);

/* What is wrong with head h read with key k: 0 sound; 1 tampered (missing, an unknown mode, a
 * seal that does not hold, or an unkeyed chain of links while k is set); 2 the key is missing
 * or another one. why says which. */
int db_head_problem(const db_head *h, const baseline_key *k, char *why, size_t n);

/* One logged check, with its link in the check log's chain. */
typedef struct db_check_row {
	int id, baseline_id;
	char checked_at[DB_TIME_MAX];
	int frozen, passed, failed;
	char tool[160];
	char prev_sha256[DB_SHA_HEX], chain_sha256[DB_SHA_HEX];
	char record_sha256[DB_SHA_HEX]; /* the checked record's (db_check_list: "" if it is gone) */
	char record_name[DB_NAME_MAX];
} db_check_row;

/* The text a check row's SHA-256 is over (the link is baseline_link of it). */
void db_check_text(const char *record_sha256, const db_check_row *c, char *buf, size_t n);

/* Every logged check, in the order logged, into *rows (malloc'd: free). */
int db_check_list(db *d, db_check_row **rows, int *n, err *e);

/* One imported catalog, with the hash of the rows stored from it recomputed. */
typedef struct db_catalog {
	int id;
	char path[PRICE_PATH_MAX], sha256[DB_SHA_HEX], imported_at[DB_TIME_MAX];
	int rows, added;                /* rows in the file; rows new to the store when imported */
	char rows_sha256[DB_SHA_HEX];   /* as stored at the import */
	char computed[DB_SHA_HEX];      /* db_rows_fold over the rows stored now, in order */
	int stored;                     /* price rows that name it now */
} db_catalog;

/* Every catalog, in the order imported, into *out (malloc'd: free). */
int db_catalog_list(db *d, db_catalog **out, int *n, err *e);

/* The checks logged. */
int db_check_count(db *d, int *n, err *e);

/* The stored row with key's provider, instance, region, pricing model and as_of into *out,
 * with its catalog's path and SHA-256 (*found 0: none). Returns 0 or nonzero. */
int db_price_get(db *d, const price_row *key, price_row *out, char *path, size_t n, char sha256[DB_SHA_HEX],
		 int *found, err *e);

/* Price rows whose catalog is not stored. */
int db_price_orphans(db *d, int *n, err *e);

/* Folds one stored price row into the hash of a catalog's rows (acc starts as
 * baseline_genesis): acc = SHA-256(acc || the row's fields and line). */
void db_rows_fold(char acc[DB_SHA_HEX], const price_row *p);

/* The record called name into *b (*found 0 if none; release b with db_baseline_release).
 * Returns 0 or nonzero. */
int db_baseline_get(db *d, const char *name, db_baseline *b, int *found, err *e);

/* Every record in the order recorded into *rows (malloc'd: db_baseline_free). */
int db_baseline_list(db *d, db_baseline **rows, int *n, err *e);

void db_baseline_release(db_baseline *b);
void db_baseline_free(db_baseline *rows, int n);

/* Logs one check of record c->baseline_id (checked_at now, UTC; frozen, passed, failed, tool
 * set): linked to the check log's newest link under k and the head sealed, as
 * db_baseline_add does. Fills c->id, checked_at, record_sha256 and the link. Returns 0 or
 * nonzero with e set. */
int db_baseline_check_add(db *d, db_check_row *c, const baseline_key *k, err *e);

/* SQLite's integrity and foreign-key checks. Returns 0 if both pass, else nonzero with the
 * first problem in e. */
int db_check(db *d, err *e);

#endif
