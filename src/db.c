/* db: the SQLite store (see db.h). */
#include "db.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { BUSY_TIMEOUT_MS = 15000, WAL_RETRY_MS = 5 };

struct db {
	sqlite3 *h;
	char path[PRICE_PATH_MAX];
	int version;
};

/* Migration i takes the schema from version i to i + 1. Append only: a released step never
 * changes, so that every older store reaches the same schema. */
static const char *const migrations[DB_SCHEMA_VERSION] = {
	/* 1: catalogs and their price rows. */
	"CREATE TABLE catalog ("
	"  id INTEGER PRIMARY KEY,"
	"  path TEXT NOT NULL,"
	"  sha256 TEXT NOT NULL UNIQUE,"
	"  imported_at TEXT NOT NULL,"
	"  rows INTEGER NOT NULL,"
	"  added INTEGER NOT NULL);"
	"CREATE TABLE price ("
	"  id INTEGER PRIMARY KEY,"
	"  catalog_id INTEGER NOT NULL REFERENCES catalog(id),"
	"  line INTEGER NOT NULL,"
	"  provider TEXT NOT NULL,"
	"  instance TEXT NOT NULL,"
	"  region TEXT NOT NULL,"
	"  pricing_model TEXT NOT NULL,"
	"  usd_per_hour REAL NOT NULL CHECK (usd_per_hour > 0),"
	"  unit TEXT NOT NULL CHECK (unit IN ('instance', 'chip')),"
	"  accelerators INTEGER NOT NULL CHECK (accelerators >= 1),"
	"  as_of TEXT NOT NULL,"
	"  source TEXT NOT NULL,"
	"  UNIQUE (provider, instance, region, pricing_model, as_of));",
	/* 2: lookups go by instance and pricing model, not by provider first. */
	"CREATE INDEX price_by_instance ON price (instance, pricing_model, region, as_of);",
	/* 3: frozen release records, immutable and hash-chained, and the log of their checks. */
	"CREATE TABLE baseline ("
	"  id INTEGER PRIMARY KEY,"
	"  name TEXT NOT NULL UNIQUE,"
	"  workload TEXT NOT NULL,"
	"  system TEXT NOT NULL,"
	"  created_at TEXT NOT NULL,"
	"  criteria TEXT NOT NULL,"
	"  tolerance TEXT NOT NULL,"
	"  record TEXT NOT NULL,"
	"  sha256 TEXT NOT NULL,"
	"  prev_sha256 TEXT NOT NULL,"
	"  chain_sha256 TEXT NOT NULL);"
	"CREATE TABLE baseline_check ("
	"  id INTEGER PRIMARY KEY,"
	"  baseline_id INTEGER NOT NULL REFERENCES baseline(id),"
	"  checked_at TEXT NOT NULL,"
	"  frozen INTEGER NOT NULL,"
	"  passed INTEGER NOT NULL,"
	"  failed INTEGER NOT NULL,"
	"  tool TEXT NOT NULL);"
	"CREATE INDEX baseline_check_by_record ON baseline_check (baseline_id, id);"
	"CREATE TRIGGER baseline_no_update BEFORE UPDATE ON baseline "
	"  BEGIN SELECT RAISE(ABORT, 'baseline records are immutable'); END;"
	"CREATE TRIGGER baseline_no_delete BEFORE DELETE ON baseline "
	"  BEGIN SELECT RAISE(ABORT, 'baseline records are immutable'); END;"
	"CREATE TRIGGER baseline_check_no_update BEFORE UPDATE ON baseline_check "
	"  BEGIN SELECT RAISE(ABORT, 'baseline checks are append-only'); END;"
	"CREATE TRIGGER baseline_check_no_delete BEFORE DELETE ON baseline_check "
	"  BEGIN SELECT RAISE(ABORT, 'baseline checks are append-only'); END;",
};

static int fail(db *d, err *e, const char *what)
{
	return err_set(e, ERR_DATA, "%s: %s: %s", d->path, what, sqlite3_errmsg(d->h));
}

static int exec(db *d, const char *sql, err *e)
{
	if (sqlite3_exec(d->h, sql, NULL, NULL, NULL) != SQLITE_OK)
		return fail(d, e, "store");
	return 0;
}

static int prepare(db *d, const char *sql, sqlite3_stmt **st, err *e)
{
	if (sqlite3_prepare_v2(d->h, sql, -1, st, NULL) != SQLITE_OK)
		return fail(d, e, "store");
	return 0;
}

static int read_version(db *d, int *v, err *e)
{
	sqlite3_stmt *st;
	if (prepare(d, "PRAGMA user_version", &st, e) != 0)
		return ERR_DATA;
	if (sqlite3_step(st) != SQLITE_ROW) {
		sqlite3_finalize(st);
		return fail(d, e, "cannot read the schema version");
	}
	*v = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return 0;
}

/* Creates or migrates under a write lock; another process may have done it meanwhile. */
static int migrate(db *d, db_seed_fn seed, void *ctx, err *e)
{
	int v;
	char sql[64];
	if (exec(d, "BEGIN IMMEDIATE", e) != 0)
		return ERR_DATA;
	if (read_version(d, &v, e) != 0)
		goto undo;
	if (v > DB_SCHEMA_VERSION) {
		err_set(e, ERR_DATA, "%s: store schema version %d is newer than this roofcost's %d",
			d->path, v, DB_SCHEMA_VERSION);
		goto undo;
	}
	for (int i = v; i < DB_SCHEMA_VERSION; i++)
		if (exec(d, migrations[i], e) != 0)
			goto undo;
	snprintf(sql, sizeof sql, "PRAGMA user_version = %d", DB_SCHEMA_VERSION);
	if (exec(d, sql, e) != 0)
		goto undo;
	if (v == 0 && seed && seed(d, ctx, e) != 0)
		goto undo;
	if (exec(d, "COMMIT", e) != 0)
		goto undo;
	d->version = DB_SCHEMA_VERSION;
	return 0;
undo:
	sqlite3_exec(d->h, "ROLLBACK", NULL, NULL, NULL);
	return ERR_DATA;
}

int db_open(const char *path, db_seed_fn seed, void *ctx, db **out, err *e)
{
	db *d = calloc(1, sizeof *d);
	sqlite3_stmt *st;
	int v;
	*out = NULL;
	if (!d)
		return err_set(e, ERR_DATA, "out of memory");
	snprintf(d->path, sizeof d->path, "%s", path);
	if (sqlite3_open_v2(path, &d->h, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) != SQLITE_OK) {
		if (!d->h) {
			free(d);
			return err_set(e, ERR_DATA, "%s: cannot open the store: out of memory", path);
		}
		fail(d, e, "cannot open the store");
		db_close(d);
		return ERR_DATA;
	}
	sqlite3_busy_timeout(d->h, BUSY_TIMEOUT_MS);
	sqlite3_extended_result_codes(d->h, 1);
	/* WAL: readers do not block the one writer, and a crash leaves the last commit. Switching
	 * takes an exclusive lock; while another process opens the new store SQLite answers at
	 * once, without the busy handler, with SQLITE_BUSY or the old mode: retry for the busy
	 * timeout. */
	if (prepare(d, "PRAGMA journal_mode = WAL", &st, e) != 0)
		goto bad;
	for (int waited = 0;; waited += WAL_RETRY_MS) {
		int rc = sqlite3_step(st);
		if (rc == SQLITE_ROW && sqlite3_column_text(st, 0) &&
		    sqlite3_stricmp((const char *)sqlite3_column_text(st, 0), "wal") == 0)
			break;
		if ((rc != SQLITE_ROW && (rc & 0xff) != SQLITE_BUSY) || waited >= BUSY_TIMEOUT_MS) {
			sqlite3_finalize(st);
			fail(d, e, "cannot switch to WAL mode");
			goto bad;
		}
		sqlite3_reset(st);
		sqlite3_sleep(WAL_RETRY_MS);
	}
	sqlite3_finalize(st);
	if (exec(d, "PRAGMA foreign_keys = ON", e) != 0 || read_version(d, &v, e) != 0)
		goto bad;
	d->version = v;
	if (v != DB_SCHEMA_VERSION && migrate(d, seed, ctx, e) != 0)
		goto bad;
	*out = d;
	return 0;
bad:
	db_close(d);
	return ERR_DATA;
}

void db_close(db *d)
{
	if (!d)
		return;
	sqlite3_close(d->h);
	free(d);
}

int db_schema_version(db *d)
{
	return d->version;
}

static void text_col(sqlite3_stmt *st, int col, char *dst, size_t n)
{
	const unsigned char *s = sqlite3_column_text(st, col);
	snprintf(dst, n, "%s", s ? (const char *)s : "");
}

/* Columns from `col` on: provider, instance, region, pricing_model, usd_per_hour, unit,
 * accelerators, as_of, source, line. */
#define ROW_COLS_NO_LINE "provider, instance, region, pricing_model, usd_per_hour, unit, accelerators, as_of, source"
#define ROW_COLS ROW_COLS_NO_LINE ", line"

static void read_row(sqlite3_stmt *st, int col, price_row *r)
{
	char model[PRICE_NAME_MAX], unit[16];
	memset(r, 0, sizeof *r);
	text_col(st, col, r->provider, sizeof r->provider);
	text_col(st, col + 1, r->instance, sizeof r->instance);
	text_col(st, col + 2, r->region, sizeof r->region);
	text_col(st, col + 3, model, sizeof model);
	if (price_parse_model(model, &r->model) != 0)
		r->model = PRICE_MODEL_N;
	r->usd_per_hour = sqlite3_column_double(st, col + 4);
	text_col(st, col + 5, unit, sizeof unit);
	r->unit = strcmp(unit, "chip") == 0 ? PRICE_PER_CHIP : PRICE_PER_INSTANCE;
	r->accelerators = sqlite3_column_int(st, col + 6);
	text_col(st, col + 7, r->as_of, sizeof r->as_of);
	text_col(st, col + 8, r->source, sizeof r->source);
	r->line = sqlite3_column_int(st, col + 9);
}

static void bind_text(sqlite3_stmt *st, int i, const char *s)
{
	sqlite3_bind_text(st, i, s ? s : "", -1, SQLITE_TRANSIENT);
}

/* The stored row for r's offer and as_of, with the catalog path it came from. */
static int find_offer(db *d, sqlite3_stmt *st, const price_row *r, price_row *old, char *from,
		      size_t fn, int *found, err *e)
{
	int rc;
	sqlite3_reset(st);
	bind_text(st, 1, r->provider);
	bind_text(st, 2, r->instance);
	bind_text(st, 3, r->region);
	bind_text(st, 4, price_model_names[r->model]);
	bind_text(st, 5, r->as_of);
	rc = sqlite3_step(st);
	*found = rc == SQLITE_ROW;
	if (rc == SQLITE_ROW) {
		read_row(st, 0, old);
		text_col(st, 10, from, fn);
		return 0;
	}
	return rc == SQLITE_DONE ? 0 : fail(d, e, "import");
}

static int import_rows(db *d, const price_catalog *c, db_import_result *r, err *e)
{
	sqlite3_stmt *find = NULL, *ins = NULL, *cat = NULL;
	int rc = 0;
	if (prepare(d, "SELECT id, path, imported_at FROM catalog WHERE sha256 = ?1", &cat, e) != 0)
		return ERR_DATA;
	bind_text(cat, 1, c->sha256);
	if (sqlite3_step(cat) == SQLITE_ROW) {
		r->already = 1;
		r->catalog = sqlite3_column_int(cat, 0);
		text_col(cat, 1, r->path, sizeof r->path);
		text_col(cat, 2, r->imported_at, sizeof r->imported_at);
		sqlite3_finalize(cat);
		return 0;
	}
	sqlite3_finalize(cat);
	if (prepare(d, "INSERT INTO catalog (path, sha256, imported_at, rows, added) VALUES "
		       "(?1, ?2, strftime('%Y-%m-%dT%H:%M:%SZ', 'now'), ?3, 0) RETURNING id, imported_at",
		    &cat, e) != 0)
		return ERR_DATA;
	bind_text(cat, 1, c->path);
	bind_text(cat, 2, c->sha256);
	sqlite3_bind_int(cat, 3, c->n);
	if (sqlite3_step(cat) != SQLITE_ROW) {
		sqlite3_finalize(cat);
		return fail(d, e, "import");
	}
	r->catalog = sqlite3_column_int(cat, 0);
	text_col(cat, 1, r->imported_at, sizeof r->imported_at);
	snprintf(r->path, sizeof r->path, "%s", c->path);
	sqlite3_finalize(cat);
	cat = NULL;
	if (prepare(d, "SELECT " ROW_COLS ", (SELECT path FROM catalog WHERE id = catalog_id) FROM price "
		       "WHERE provider = ?1 AND instance = ?2 AND region = ?3 AND pricing_model = ?4 "
		       "AND as_of = ?5", &find, e) != 0 ||
	    prepare(d, "INSERT INTO price (catalog_id, line, " ROW_COLS_NO_LINE ") VALUES "
		       "(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)", &ins, e) != 0) {
		rc = ERR_DATA;
		goto done;
	}
	for (int i = 0; i < c->n && rc == 0; i++) {
		const price_row *p = &c->rows[i];
		price_row old;
		char from[PRICE_PATH_MAX];
		int found;
		if ((rc = find_offer(d, find, p, &old, from, sizeof from, &found, e)) != 0)
			break;
		if (found) {
			if (old.usd_per_hour == p->usd_per_hour && old.unit == p->unit &&
			    old.accelerators == p->accelerators) {
				r->unchanged++;
				continue;
			}
			rc = err_at(e, c->path, p->line,
				    "usd_per_hour: %.6g per %s (%d chips) differs from the stored %.6g per %s "
				    "(%d chips) for the same offer and as_of %s (%s:%d); a new price needs a "
				    "later as_of", p->usd_per_hour, price_unit_names[p->unit], p->accelerators,
				    old.usd_per_hour, price_unit_names[old.unit], old.accelerators, p->as_of,
				    from, old.line);
			break;
		}
		sqlite3_reset(ins);
		sqlite3_bind_int(ins, 1, r->catalog);
		sqlite3_bind_int(ins, 2, p->line);
		bind_text(ins, 3, p->provider);
		bind_text(ins, 4, p->instance);
		bind_text(ins, 5, p->region);
		bind_text(ins, 6, price_model_names[p->model]);
		sqlite3_bind_double(ins, 7, p->usd_per_hour);
		bind_text(ins, 8, price_unit_names[p->unit]);
		sqlite3_bind_int(ins, 9, p->accelerators);
		bind_text(ins, 10, p->as_of);
		bind_text(ins, 11, p->source);
		if (sqlite3_step(ins) != SQLITE_DONE)
			rc = fail(d, e, "import");
		else
			r->added++;
	}
	if (rc == 0) {
		char sql[96];
		snprintf(sql, sizeof sql, "UPDATE catalog SET added = %d WHERE id = %d", r->added, r->catalog);
		rc = exec(d, sql, e);
	}
done:
	sqlite3_finalize(find);
	sqlite3_finalize(ins);
	return rc;
}

int db_import(db *d, const price_catalog *c, db_import_result *r, err *e)
{
	/* Inside db_open's creating transaction a savepoint nests; alone, BEGIN IMMEDIATE takes
	 * the write lock first, so that two importers queue instead of failing on upgrade. */
	int nested = !sqlite3_get_autocommit(d->h);
	memset(r, 0, sizeof *r);
	if (exec(d, nested ? "SAVEPOINT import" : "BEGIN IMMEDIATE", e) != 0)
		return ERR_DATA;
	if (import_rows(d, c, r, e) != 0) {
		sqlite3_exec(d->h, nested ? "ROLLBACK TO import; RELEASE import" : "ROLLBACK", NULL, NULL, NULL);
		return ERR_DATA;
	}
	if (exec(d, nested ? "RELEASE import" : "COMMIT", e) != 0) {
		sqlite3_exec(d->h, nested ? "ROLLBACK TO import; RELEASE import" : "ROLLBACK", NULL, NULL, NULL);
		return ERR_DATA;
	}
	return 0;
}

/* The newest row of each offer at or before ?2 (any date when ?2 is ''). */
#define NEWEST_AT \
	"as_of = (SELECT MAX(q.as_of) FROM price q WHERE q.provider = p.provider AND " \
	"q.instance = p.instance AND q.region = p.region AND q.pricing_model = p.pricing_model " \
	"AND (?2 = '' OR q.as_of <= ?2))"

int db_price_find(db *d, const db_query *q, price_row *out, int *found, err *e)
{
	sqlite3_stmt *st;
	int rc;
	*found = 0;
	if (prepare(d, "SELECT " ROW_COLS " FROM price p WHERE instance = ?1 AND pricing_model = ?3 "
		       "AND (?4 = '' OR region = ?4) AND (?2 = '' OR as_of <= ?2) AND " NEWEST_AT
		       " ORDER BY substr(source, 1, length(?5)) = ?5, "
		       "usd_per_hour / (CASE unit WHEN 'instance' THEN accelerators ELSE 1 END), "
		       "region LIMIT 1", &st, e) != 0)
		return ERR_DATA;
	bind_text(st, 1, q->instance);
	bind_text(st, 2, q->as_of);
	bind_text(st, 3, q->model < PRICE_MODEL_N ? price_model_names[q->model] : "");
	bind_text(st, 4, q->region);
	bind_text(st, 5, price_unverified_prefix);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		read_row(st, 0, out);
		*found = 1;
	}
	sqlite3_finalize(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : fail(d, e, "price lookup");
}

int db_price_models(db *d, const char *instance, const char *as_of, int *have, err *e)
{
	sqlite3_stmt *st;
	int rc;
	for (int i = 0; i < PRICE_MODEL_N; i++)
		have[i] = 0;
	if (prepare(d, "SELECT DISTINCT pricing_model FROM price WHERE instance = ?1 "
		       "AND (?2 = '' OR as_of <= ?2)", &st, e) != 0)
		return ERR_DATA;
	bind_text(st, 1, instance);
	bind_text(st, 2, as_of);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		price_model m;
		if (price_parse_model((const char *)sqlite3_column_text(st, 0), &m) == 0)
			have[m] = 1;
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : fail(d, e, "price lookup");
}

int db_price_list(db *d, const char *provider, const char *as_of, int all, price_row **rows,
		  int *n, err *e)
{
	sqlite3_stmt *st;
	int rc, cap = 0;
	*rows = NULL;
	*n = 0;
	if (prepare(d, "SELECT " ROW_COLS " FROM price p WHERE (?1 = '' OR provider = ?1) "
		       "AND (?2 = '' OR as_of <= ?2) AND (?3 OR " NEWEST_AT ") "
		       "ORDER BY provider, instance, pricing_model, region, as_of", &st, e) != 0)
		return ERR_DATA;
	bind_text(st, 1, provider);
	bind_text(st, 2, as_of);
	sqlite3_bind_int(st, 3, all != 0);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (*n == cap) {
			price_row *nr;
			cap = cap ? 2 * cap : 64;
			nr = realloc(*rows, (size_t)cap * sizeof *nr);
			if (!nr) {
				sqlite3_finalize(st);
				free(*rows);
				*rows = NULL;
				*n = 0;
				return err_set(e, ERR_DATA, "out of memory");
			}
			*rows = nr;
		}
		read_row(st, 0, &(*rows)[(*n)++]);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		free(*rows);
		*rows = NULL;
		*n = 0;
		return fail(d, e, "price list");
	}
	return 0;
}

static int count(db *d, const char *sql, int *v, err *e)
{
	sqlite3_stmt *st;
	int rc;
	if (prepare(d, sql, &st, e) != 0)
		return ERR_DATA;
	rc = sqlite3_step(st);
	*v = rc == SQLITE_ROW ? sqlite3_column_int(st, 0) : 0;
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 0 : fail(d, e, "count");
}

int db_counts(db *d, int *catalogs, int *prices, err *e)
{
	if (count(d, "SELECT COUNT(*) FROM catalog", catalogs, e) != 0)
		return ERR_DATA;
	return count(d, "SELECT COUNT(*) FROM price", prices, e);
}

int db_check(db *d, err *e)
{
	sqlite3_stmt *st;
	int rc, bad = 0;
	if (prepare(d, "PRAGMA integrity_check", &st, e) != 0)
		return ERR_DATA;
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW || strcmp((const char *)sqlite3_column_text(st, 0), "ok") != 0) {
		bad = err_set(e, ERR_DATA, "%s: integrity check: %s", d->path,
			      rc == SQLITE_ROW ? (const char *)sqlite3_column_text(st, 0) : sqlite3_errmsg(d->h));
	}
	sqlite3_finalize(st);
	if (bad)
		return bad;
	if (prepare(d, "PRAGMA foreign_key_check", &st, e) != 0)
		return ERR_DATA;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		bad = err_set(e, ERR_DATA, "%s: foreign key check: a row of %s points nowhere", d->path,
			      (const char *)sqlite3_column_text(st, 0));
	else if (rc != SQLITE_DONE)
		bad = fail(d, e, "foreign key check");
	sqlite3_finalize(st);
	return bad;
}

int db_price_catalog(db *d, const price_row *r, char *path, size_t n, char sha256[DB_SHA_HEX],
		     int *found, err *e)
{
	sqlite3_stmt *st;
	int rc;
	*found = 0;
	if (prepare(d, "SELECT c.path, c.sha256 FROM price p JOIN catalog c ON c.id = p.catalog_id "
		       "WHERE p.provider = ?1 AND p.instance = ?2 AND p.region = ?3 AND p.pricing_model = ?4 "
		       "AND p.as_of = ?5", &st, e) != 0)
		return ERR_DATA;
	bind_text(st, 1, r->provider);
	bind_text(st, 2, r->instance);
	bind_text(st, 3, r->region);
	bind_text(st, 4, r->model < PRICE_MODEL_N ? price_model_names[r->model] : "");
	bind_text(st, 5, r->as_of);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		text_col(st, 0, path, n);
		text_col(st, 1, sha256, DB_SHA_HEX);
		*found = 1;
	}
	sqlite3_finalize(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : fail(d, e, "price lookup");
}

/* Columns of a baseline row and its newest check, as read_baseline reads them. */
#define BASELINE_COLS \
	"b.id, b.name, b.workload, b.system, b.created_at, b.criteria, b.tolerance, b.record, " \
	"b.sha256, b.prev_sha256, b.chain_sha256, " \
	"(SELECT COUNT(*) FROM baseline_check k WHERE k.baseline_id = b.id), k.checked_at, " \
	"k.passed, k.frozen, k.failed FROM baseline b LEFT JOIN baseline_check k ON k.id = " \
	"(SELECT MAX(id) FROM baseline_check WHERE baseline_id = b.id)"

static char *dup_col(sqlite3_stmt *st, int col)
{
	const unsigned char *s = sqlite3_column_text(st, col);
	size_t n = s ? strlen((const char *)s) : 0;
	char *p = malloc(n + 1);
	if (p) {
		memcpy(p, s ? (const char *)s : "", n);
		p[n] = '\0';
	}
	return p;
}

static int read_baseline(db *d, sqlite3_stmt *st, db_baseline *b, err *e)
{
	memset(b, 0, sizeof *b);
	b->id = sqlite3_column_int(st, 0);
	text_col(st, 1, b->name, sizeof b->name);
	text_col(st, 2, b->workload, sizeof b->workload);
	text_col(st, 3, b->system, sizeof b->system);
	text_col(st, 4, b->created_at, sizeof b->created_at);
	b->criteria = dup_col(st, 5);
	b->tolerance = dup_col(st, 6);
	b->record = dup_col(st, 7);
	text_col(st, 8, b->sha256, sizeof b->sha256);
	text_col(st, 9, b->prev_sha256, sizeof b->prev_sha256);
	text_col(st, 10, b->chain_sha256, sizeof b->chain_sha256);
	b->checks = sqlite3_column_int(st, 11);
	text_col(st, 12, b->checked_at, sizeof b->checked_at);
	b->check_passed = sqlite3_column_int(st, 13);
	b->check_frozen = sqlite3_column_int(st, 14);
	b->check_failed = sqlite3_column_int(st, 15);
	if (!b->criteria || !b->tolerance || !b->record) {
		db_baseline_release(b);
		return err_set(e, ERR_DATA, "%s: out of memory", d->path);
	}
	return 0;
}

void db_baseline_release(db_baseline *b)
{
	free(b->criteria);
	free(b->tolerance);
	free(b->record);
	b->criteria = b->tolerance = b->record = NULL;
}

void db_baseline_free(db_baseline *rows, int n)
{
	for (int i = 0; i < n; i++)
		db_baseline_release(&rows[i]);
	free(rows);
}

static int add_baseline(db *d, db_baseline *b, const char *genesis, db_chain_fn chain, err *e)
{
	sqlite3_stmt *st;
	int rc;
	if (prepare(d, "SELECT created_at, sha256 FROM baseline WHERE name = ?1", &st, e) != 0)
		return ERR_DATA;
	bind_text(st, 1, b->name);
	if ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		err_set(e, ERR_DATA, "%s: baseline '%s' exists (recorded %s, sha256 %.12s): records are never "
			"overwritten; record under a new name", d->path, b->name,
			(const char *)sqlite3_column_text(st, 0), (const char *)sqlite3_column_text(st, 1));
		sqlite3_finalize(st);
		return ERR_DATA;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return fail(d, e, "baseline");
	if (prepare(d, "SELECT chain_sha256 FROM baseline ORDER BY id DESC LIMIT 1", &st, e) != 0)
		return ERR_DATA;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		text_col(st, 0, b->prev_sha256, sizeof b->prev_sha256);
	else
		snprintf(b->prev_sha256, sizeof b->prev_sha256, "%s", genesis);
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return fail(d, e, "baseline");
	chain(b->prev_sha256, b->sha256, b->chain_sha256);
	if (prepare(d, "INSERT INTO baseline (name, workload, system, created_at, criteria, tolerance, "
		       "record, sha256, prev_sha256, chain_sha256) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, "
		       "?9, ?10) RETURNING id", &st, e) != 0)
		return ERR_DATA;
	bind_text(st, 1, b->name);
	bind_text(st, 2, b->workload);
	bind_text(st, 3, b->system);
	bind_text(st, 4, b->created_at);
	bind_text(st, 5, b->criteria);
	bind_text(st, 6, b->tolerance);
	bind_text(st, 7, b->record);
	bind_text(st, 8, b->sha256);
	bind_text(st, 9, b->prev_sha256);
	bind_text(st, 10, b->chain_sha256);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		b->id = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 0 : fail(d, e, "baseline");
}

int db_baseline_add(db *d, db_baseline *b, const char *genesis, db_chain_fn chain, err *e)
{
	/* BEGIN IMMEDIATE: the name check, the chain's newest link and the insert see one state,
	 * and a second recorder waits for the lock (busy timeout) instead of forking the chain. */
	if (exec(d, "BEGIN IMMEDIATE", e) != 0)
		return ERR_DATA;
	if (add_baseline(d, b, genesis, chain, e) != 0 || exec(d, "COMMIT", e) != 0) {
		sqlite3_exec(d->h, "ROLLBACK", NULL, NULL, NULL);
		return ERR_DATA;
	}
	return 0;
}

int db_baseline_get(db *d, const char *name, db_baseline *b, int *found, err *e)
{
	sqlite3_stmt *st;
	int rc;
	*found = 0;
	memset(b, 0, sizeof *b);
	if (prepare(d, "SELECT " BASELINE_COLS " WHERE b.name = ?1", &st, e) != 0)
		return ERR_DATA;
	bind_text(st, 1, name);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		if (read_baseline(d, st, b, e) != 0) {
			sqlite3_finalize(st);
			return ERR_DATA;
		}
		*found = 1;
	}
	sqlite3_finalize(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : fail(d, e, "baseline");
}

int db_baseline_list(db *d, db_baseline **rows, int *n, err *e)
{
	sqlite3_stmt *st;
	int rc, cap = 0;
	*rows = NULL;
	*n = 0;
	if (prepare(d, "SELECT " BASELINE_COLS " ORDER BY b.id", &st, e) != 0)
		return ERR_DATA;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (*n == cap) {
			db_baseline *nr;
			cap = cap ? 2 * cap : 16;
			nr = realloc(*rows, (size_t)cap * sizeof *nr);
			if (!nr) {
				rc = SQLITE_NOMEM;
				break;
			}
			*rows = nr;
		}
		if (read_baseline(d, st, &(*rows)[*n], e) != 0) {
			sqlite3_finalize(st);
			db_baseline_free(*rows, *n);
			*rows = NULL;
			*n = 0;
			return ERR_DATA;
		}
		(*n)++;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		db_baseline_free(*rows, *n);
		*rows = NULL;
		*n = 0;
		return rc == SQLITE_NOMEM ? err_set(e, ERR_DATA, "out of memory") : fail(d, e, "baseline list");
	}
	return 0;
}

int db_baseline_check_add(db *d, int id, int frozen, int passed, int failed, const char *tool,
			  err *e)
{
	sqlite3_stmt *st;
	int rc;
	if (prepare(d, "INSERT INTO baseline_check (baseline_id, checked_at, frozen, passed, failed, tool) "
		       "VALUES (?1, strftime('%Y-%m-%dT%H:%M:%SZ', 'now'), ?2, ?3, ?4, ?5)", &st, e) != 0)
		return ERR_DATA;
	sqlite3_bind_int(st, 1, id);
	sqlite3_bind_int(st, 2, frozen != 0);
	sqlite3_bind_int(st, 3, passed != 0);
	sqlite3_bind_int(st, 4, failed);
	bind_text(st, 5, tool);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : fail(d, e, "baseline check");
}
