/* db: the SQLite store (see db.h). */
#include "store/db.h"

#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "store/baseline.h"

enum {
	BUSY_TIMEOUT_MS = 15000,
	/* PRAGMA application_id of a roofcost store: "Roof". A store that roofcost wrote before it
	 * set one (schema 1 and 2) has 0 and roofcost's tables; it gets the id on its next write. */
	APPLICATION_ID = 0x526f6f66
};

struct db {
	sqlite3 *h;
	char path[PRICE_PATH_MAX];
	int version;
	int readonly;
	dev_t dev;                 /* the file opened, to notice it removed or replaced */
	ino_t ino;
	sqlite3_stmt *price_find;  /* db_price_find's statement, prepared on its first call (compare
				      prices every system with it) */
};

static int migrate_4(db *d, err *e);
static int count(db *d, const char *sql, int *v, err *e);

/* Migration i takes the schema from version i to i + 1. Append only: a released step never
 * changes, so that every older store reaches the same schema. A new version adds one entry
 * here and raises DB_SCHEMA_VERSION. */
typedef struct migration {
	const char *sql;
	int (*fix)(db *d, err *e);    /* after sql, in C: what SQL alone cannot compute (hashes) */
	const char *after;            /* then this SQL (triggers that would refuse the fix) */
} migration;

static const migration migrations[] = {
	/* 1: catalogs and their price rows. */{
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
	"  UNIQUE (provider, instance, region, pricing_model, as_of));", NULL, NULL},
	/* 2: lookups go by instance and pricing model, not by provider first. */
	{"CREATE INDEX price_by_instance ON price (instance, pricing_model, region, as_of);", NULL, NULL},
	/* 3: frozen release records, immutable and hash-chained, and the log of their checks. */
	{"CREATE TABLE baseline ("
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
	"  BEGIN SELECT RAISE(ABORT, 'baseline checks are append-only'); END;", NULL, NULL},
	/* 4: prices are history as records are (no UPDATE, no DELETE of a price or a catalog row;
	 * the rows stored from a catalog hash to its rows_sha256), the check log is chained like
	 * the records, and one head row seals both chains: how many links each has, the newest,
	 * the mode (sha256, or hmac-sha256 under ROOFCOST_RECORD_KEY with the key's id) and a
	 * seal over all of it. The rows hash, the check chain and the head are computed in C for
	 * what an older store holds (migrate_4). */
	{"ALTER TABLE catalog ADD COLUMN rows_sha256 TEXT NOT NULL DEFAULT '';"
	 "ALTER TABLE baseline_check ADD COLUMN prev_sha256 TEXT NOT NULL DEFAULT '';"
	 "ALTER TABLE baseline_check ADD COLUMN chain_sha256 TEXT NOT NULL DEFAULT '';"
	 "CREATE TABLE chain_head ("
	 "  id INTEGER PRIMARY KEY CHECK (id = 1),"
	 "  mode TEXT NOT NULL,"
	 "  key_id TEXT NOT NULL,"
	 "  records INTEGER NOT NULL,"
	 "  record_head TEXT NOT NULL,"
	 "  checks INTEGER NOT NULL,"
	 "  check_head TEXT NOT NULL,"
	 "  seal TEXT NOT NULL);",
	 migrate_4,
	 "CREATE TRIGGER price_no_update BEFORE UPDATE ON price "
	 "  BEGIN SELECT RAISE(ABORT, 'prices are history: a new price is a new row with a later as_of'); END;"
	 "CREATE TRIGGER price_no_delete BEFORE DELETE ON price "
	 "  BEGIN SELECT RAISE(ABORT, 'prices are history: a new price is a new row with a later as_of'); END;"
	 "CREATE TRIGGER catalog_no_update BEFORE UPDATE ON catalog "
	 "  BEGIN SELECT RAISE(ABORT, 'imported catalogs are history'); END;"
	 "CREATE TRIGGER catalog_no_delete BEFORE DELETE ON catalog "
	 "  BEGIN SELECT RAISE(ABORT, 'imported catalogs are history'); END;"
	 "CREATE TRIGGER chain_head_no_delete BEFORE DELETE ON chain_head "
	 "  BEGIN SELECT RAISE(ABORT, 'the chain head is never deleted'); END;"},
};

_Static_assert(sizeof migrations / sizeof migrations[0] == DB_SCHEMA_VERSION,
	       "one migration per schema version");

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

static double now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static int busy(int rc)
{
	return (rc & 0xff) == SQLITE_BUSY || (rc & 0xff) == SQLITE_LOCKED;
}

/* Runs sql (its first result column, if any, into out), retrying for BUSY_TIMEOUT_MS while
 * another process holds a lock: the busy handler does not cover every case (a journal-mode
 * switch, or a BEGIN IMMEDIATE that meets a store being created, can fail at once). */
static int exec_retry(db *d, const char *sql, char *out, size_t n, err *e, const char *what)
{
	double until = now_ms() + BUSY_TIMEOUT_MS;
	for (int i = 0;; i++) {
		sqlite3_stmt *st = NULL;
		int rc = sqlite3_prepare_v2(d->h, sql, -1, &st, NULL);
		if (rc == SQLITE_OK) {
			while ((rc = sqlite3_step(st)) == SQLITE_ROW)
				if (out && n) {
					const unsigned char *t = sqlite3_column_text(st, 0);
					snprintf(out, n, "%s", t ? (const char *)t : "");
					out = NULL;
				}
			if (rc == SQLITE_DONE)
				rc = SQLITE_OK;
		}
		sqlite3_finalize(st);
		if (rc == SQLITE_OK)
			return 0;
		if (!busy(rc) || now_ms() > until)
			return fail(d, e, what);
		{
			/* 1-16 ms, spread by process so that racers do not retry in step. */
			struct timespec ts = {0, (long)(1 + (i + getpid()) % 16) * 1000000L};
			nanosleep(&ts, NULL);
		}
	}
}

/* What an open file is. */
typedef enum store_kind {
	STORE_EMPTY,      /* no schema yet (new, or a creation that was undone) */
	STORE_OURS,       /* roofcost's, at .version (older stores migrate forward) */
	STORE_FOREIGN,    /* another program's SQLite file */
	STORE_NEGATIVE,   /* roofcost's tables with a negative user_version */
	STORE_NEWER       /* a schema newer than this roofcost */
} store_kind;

typedef struct store_info {
	store_kind kind;
	int version, app_id;
} store_info;

static int int_pragma(db *d, const char *sql, int *v)
{
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(d->h, sql, -1, &st, NULL);
	if (rc != SQLITE_OK)
		return rc;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*v = sqlite3_column_int(st, 0);
		rc = SQLITE_OK;
	}
	sqlite3_finalize(st);
	return rc;
}

/* Refuses a file that is not a roofcost store, or is damaged: rc is SQLite's code. */
static int refuse(db *d, int rc, err *e)
{
	if ((rc & 0xff) == SQLITE_NOTADB)
		return err_set(e, ERR_DATA, "%s: not a roofcost store: %s; left as it is", d->path,
			       sqlite3_errmsg(d->h));
	if ((rc & 0xff) == SQLITE_CORRUPT)
		return err_set(e, ERR_DATA, "%s: the store is corrupt (%s); left as it is: restore it from a "
			       "copy or move it away", d->path, sqlite3_errmsg(d->h));
	return fail(d, e, "cannot read the store");
}

/* Reads what the file is (application_id, user_version, roofcost's tables) and, when quick is
 * set, runs PRAGMA quick_check. Writes nothing; the caller holds a transaction. */
static int inspect_in(db *d, int quick, store_info *in, err *e)
{
	sqlite3_stmt *st;
	int rc, objects = 0, ours = 0;
	memset(in, 0, sizeof *in);
	if ((rc = int_pragma(d, "PRAGMA application_id", &in->app_id)) != SQLITE_OK ||
	    (rc = int_pragma(d, "PRAGMA user_version", &in->version)) != SQLITE_OK)
		return refuse(d, rc, e);
	if ((rc = sqlite3_prepare_v2(d->h, "SELECT name, type FROM sqlite_master", -1, &st, NULL)) != SQLITE_OK)
		return refuse(d, rc, e);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 0);
		const char *type = (const char *)sqlite3_column_text(st, 1);
		objects++;
		ours += type && name && !strcmp(type, "table") && (!strcmp(name, "catalog") || !strcmp(name, "price"));
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return refuse(d, rc, e);
	if (quick) {
		const char *res;
		if ((rc = sqlite3_prepare_v2(d->h, "PRAGMA quick_check(1)", -1, &st, NULL)) != SQLITE_OK)
			return refuse(d, rc, e);
		rc = sqlite3_step(st);
		res = rc == SQLITE_ROW ? (const char *)sqlite3_column_text(st, 0) : NULL;
		if (res && strcmp(res, "ok") != 0) {
			char why[256];
			const char *p = strstr(res, "***\n") ? strstr(res, "***\n") + 4 : res;
			snprintf(why, sizeof why, "%s", p);
			for (char *q = why; *q; q++)
				if (*q == '\n')
					*q = ' ';
			err_set(e, ERR_DATA, "%s: the store is corrupt (quick_check: %s); left as it is: restore "
				"it from a copy or move it away", d->path, why);
			sqlite3_finalize(st);
			return ERR_DATA;
		}
		sqlite3_finalize(st);
		if (rc != SQLITE_ROW)
			return refuse(d, rc, e);
	}
	if (in->app_id != APPLICATION_ID && in->app_id != 0)
		in->kind = STORE_FOREIGN;
	else if (in->app_id == 0 && objects == 0 && in->version == 0)
		in->kind = STORE_EMPTY;
	else if (in->app_id == 0 && ours < 2)
		in->kind = STORE_FOREIGN;
	else if (in->version <= 0)
		in->kind = in->version < 0 || in->app_id == APPLICATION_ID ? STORE_NEGATIVE : STORE_FOREIGN;
	else if (in->version > DB_SCHEMA_VERSION)
		in->kind = STORE_NEWER;
	else
		in->kind = STORE_OURS;
	return 0;
}

/* inspect_in in a read transaction of its own. */
static int inspect(db *d, int quick, store_info *in, err *e)
{
	int rc = sqlite3_exec(d->h, "BEGIN", NULL, NULL, NULL);
	if (rc != SQLITE_OK)
		return refuse(d, rc, e);
	rc = inspect_in(d, quick, in, e);
	sqlite3_exec(d->h, rc ? "ROLLBACK" : "COMMIT", NULL, NULL, NULL);
	return rc;
}

/* Nonzero with e set unless the store is one this roofcost may use (or create). */
static int acceptable(db *d, const store_info *in, err *e)
{
	switch (in->kind) {
	case STORE_EMPTY:
	case STORE_OURS:
		return 0;
	case STORE_FOREIGN:
		if (in->app_id)
			return err_set(e, ERR_DATA, "%s: not a roofcost store (the SQLite file of another "
				       "program, application_id %#x); left as it is", d->path, (unsigned)in->app_id);
		return err_set(e, ERR_DATA, "%s: not a roofcost store (an SQLite file without roofcost's "
			       "tables); left as it is", d->path);
	case STORE_NEGATIVE:
		return err_set(e, ERR_DATA, "%s: store schema version %d is not one roofcost writes; left as "
			       "it is", d->path, in->version);
	case STORE_NEWER:
		return err_set(e, ERR_DATA, "%s: store schema version %d is newer than this roofcost's %d",
			       d->path, in->version, DB_SCHEMA_VERSION);
	}
	return ERR_DATA;
}

/* Creates or migrates under the write lock; another process may have done it meanwhile, so
 * what the file is is read again inside the transaction. */
static int migrate(db *d, db_seed_fn seed, void *ctx, err *e)
{
	store_info in;
	char sql[64];
	int v;
	if (exec_retry(d, "BEGIN IMMEDIATE", NULL, 0, e, "cannot lock the store") != 0)
		return ERR_DATA;
	if (inspect_in(d, 0, &in, e) != 0 || acceptable(d, &in, e) != 0)
		goto undo;
	v = in.kind == STORE_EMPTY ? 0 : in.version;
	for (int i = v; i < DB_SCHEMA_VERSION; i++)
		if (exec(d, migrations[i].sql, e) != 0 || (migrations[i].fix && migrations[i].fix(d, e) != 0) ||
		    (migrations[i].after && exec(d, migrations[i].after, e) != 0))
			goto undo;
	snprintf(sql, sizeof sql, "PRAGMA user_version = %d", DB_SCHEMA_VERSION);
	if (v != DB_SCHEMA_VERSION && exec(d, sql, e) != 0)
		goto undo;
	snprintf(sql, sizeof sql, "PRAGMA application_id = %d", APPLICATION_ID);
	if (in.app_id != APPLICATION_ID && exec(d, sql, e) != 0)
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
static int connect(db *d, const char *name, int flags, err *e)
{
	if (sqlite3_open_v2(name, &d->h, flags, NULL) != SQLITE_OK) {
		if (!d->h)
			return err_set(e, ERR_DATA, "%s: cannot open the store: out of memory", d->path);
		fail(d, e, "cannot open the store");
		sqlite3_close(d->h);
		d->h = NULL;
		return ERR_DATA;
	}
	sqlite3_busy_timeout(d->h, BUSY_TIMEOUT_MS);
	sqlite3_extended_result_codes(d->h, 1);
	{
		struct stat sb;
		if (stat(d->path, &sb) == 0) {
			d->dev = sb.st_dev;
			d->ino = sb.st_ino;
		}
	}
	return 0;
}

/* Nonzero with e set when the file at the store's path is no longer the one opened (removed
 * with its folder, or replaced): what is written then goes to a file nobody will open. */
static int still_there(db *d, err *e)
{
	struct stat sb;
	if (stat(d->path, &sb) != 0)
		return err_set(e, ERR_DATA, "%s: the store was removed while in use (%s): nothing stored", d->path,
			       strerror(errno));
	if (sb.st_dev != d->dev || sb.st_ino != d->ino)
		return err_set(e, ERR_DATA, "%s: the store was replaced by another file while in use: nothing "
			       "stored", d->path);
	return 0;
}

static void disconnect(db *d)
{
	sqlite3_close(d->h);
	d->h = NULL;
}

/* 1 if this process may create files in the folder of path. */
static int folder_writable(const char *path)
{
	char p[PRICE_PATH_MAX], *slash;
	snprintf(p, sizeof p, "%s", path);
	slash = strrchr(p, '/');
	if (!slash)
		snprintf(p, sizeof p, ".");
	else if (slash == p)
		p[1] = '\0';
	else
		*slash = '\0';
	return access(p, W_OK) == 0;
}

/* 1 if a -wal file with content sits beside path. */
static int has_wal(const char *path)
{
	char p[PRICE_PATH_MAX + 8];
	struct stat sb;
	snprintf(p, sizeof p, "%s-wal", path);
	return stat(p, &sb) == 0 && sb.st_size > 0;
}

/* "file:PATH?immutable=1" with PATH percent-encoded where a URI needs it. */
static void immutable_uri(const char *path, char *out, size_t n)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t k = (size_t)snprintf(out, n, "file:");
	for (const unsigned char *p = (const unsigned char *)path; *p && k + 4 < n; p++) {
		if (*p == '%' || *p == '?' || *p == '#' || *p <= ' ' || *p >= 0x7F) {
			out[k++] = '%';
			out[k++] = hex[*p >> 4];
			out[k++] = hex[*p & 15];
		} else {
			out[k++] = (char)*p;
		}
	}
	snprintf(out + k, n - k, "?immutable=1");
}

/* Read-only: the file exists and is not empty. Sets *ready when it is a current roofcost store
 * (d stays connected, read-only); else d is disconnected for the caller to create or migrate.
 * Nonzero with e set: refused, and left as it is. */
static int open_reading(db *d, int *ready, err *e)
{
	store_info in;
	char shm[PRICE_PATH_MAX + 8];
	struct stat sb;
	int rc, own_files = access(d->path, W_OK) == 0, have_shm;
	snprintf(shm, sizeof shm, "%s-shm", d->path);
	have_shm = stat(shm, &sb) == 0;
	*ready = 0;
	if (!own_files && !have_shm && has_wal(d->path))
		return err_set(e, ERR_DATA, "%s: holds changes not yet in the store file (%s-wal) and its -shm file "
			       "is missing; a reader who cannot write the store would leave one its owner cannot use: "
			       "its owner must open it once (roofcost list prices)", d->path, d->path);
	if (!own_files && !have_shm) {
		/* A reader who cannot write the store file: SQLite would make -wal and -shm files owned
		 * by this user beside it, which its owner then cannot write (or, in a sticky folder,
		 * even remove). With no -wal there is nothing but the file to read: read it as
		 * immutable, which makes none. */
		char uri[3 * PRICE_PATH_MAX + 32];
		immutable_uri(d->path, uri, sizeof uri);
		rc = connect(d, uri, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, e);
		if (rc == 0)
			rc = inspect(d, 1, &in, e);
	} else {
		rc = connect(d, d->path, SQLITE_OPEN_READONLY, e);
		if (rc == 0 && (rc = inspect(d, 1, &in, e)) != 0 && !has_wal(d->path) && !folder_writable(d->path)) {
			/* A store in a folder this process cannot write: without a -wal file nobody can be
			 * writing it, and SQLite cannot create the -shm it wants: read it as immutable. */
			char uri[3 * PRICE_PATH_MAX + 32];
			immutable_uri(d->path, uri, sizeof uri);
			disconnect(d);
			rc = connect(d, uri, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, e);
			if (rc == 0)
				rc = inspect(d, 1, &in, e);
		}
	}
	if (rc == 0)
		rc = acceptable(d, &in, e);
	if (rc != 0)
		return rc;
	if (in.kind == STORE_OURS && in.version == DB_SCHEMA_VERSION) {
		d->readonly = 1;
		d->version = in.version;
		*ready = 1;
		return exec(d, "PRAGMA foreign_keys = ON", e);
	}
	disconnect(d);
	return 0;
}

/* Read-write: the file may be missing, empty, older or current; checked (quick_check
 * included) is set when open_reading has looked at it already. */
static int open_writing(db *d, int fresh, int checked, db_seed_fn seed, void *ctx, err *e)
{
	store_info in;
	char mode[16] = "";
	int app = 0, v = 0;
	if (!folder_writable(d->path))
		return err_set(e, ERR_DATA, "%s: cannot open the store: its folder %s (SQLite keeps a -wal "
			       "and a -shm file beside it)", d->path,
			       errno == ENOENT ? "does not exist" : "is not writable");
	if (!fresh && access(d->path, W_OK) != 0)
		/* Checked before SQLite opens it: it would open the file read-only and make -wal and
		 * -shm files owned by this user, which the store's owner then cannot write. */
		return err_set(e, ERR_DATA, "%s: cannot write the store: the file is read-only (%s)", d->path,
			       strerror(errno));
	if (connect(d, d->path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, e) != 0)
		return ERR_DATA;
	if (!fresh && !checked && (inspect(d, 1, &in, e) != 0 || acceptable(d, &in, e) != 0))
		return ERR_DATA;
	if (sqlite3_db_readonly(d->h, "main") == 1)
		return err_set(e, ERR_DATA, "%s: cannot write the store: the file is read-only", d->path);
	/* WAL: readers do not block the one writer, and a crash leaves the last commit. Only now,
	 * once the file is known to be a store (or new), is anything written to it. */
	if (exec_retry(d, "PRAGMA journal_mode", mode, sizeof mode, e, "cannot read the journal mode") != 0)
		return ERR_DATA;
	{
		/* While another process creates the same store, the switch can also answer the old
		 * mode without an error: that is retried for the busy timeout as well. */
		double until = now_ms() + BUSY_TIMEOUT_MS;
		while (sqlite3_stricmp(mode, "wal") != 0) {
			struct timespec ts = {0, 5000000L};
			if (exec_retry(d, "PRAGMA journal_mode = WAL", mode, sizeof mode, e, "cannot switch to WAL mode") != 0)
				return ERR_DATA;
			if (sqlite3_stricmp(mode, "wal") == 0)
				break;
			if (now_ms() > until)
				return err_set(e, ERR_DATA, "%s: cannot switch to WAL mode (it stays %s)", d->path, mode);
			nanosleep(&ts, NULL);
		}
	}
	if (exec(d, "PRAGMA foreign_keys = ON", e) != 0)
		return ERR_DATA;
	if (int_pragma(d, "PRAGMA application_id", &app) != SQLITE_OK ||
	    int_pragma(d, "PRAGMA user_version", &v) != SQLITE_OK)
		return fail(d, e, "cannot read the schema version");
	d->version = v;
	if (app == APPLICATION_ID && v == DB_SCHEMA_VERSION)
		return 0;
	return migrate(d, seed, ctx, e);
}

static int open_store(const char *path, int write, db_seed_fn seed, void *ctx, db **out, err *e)
{
	db *d = calloc(1, sizeof *d);
	struct stat sb;
	int fresh, ready = 0, rc = 0;
	*out = NULL;
	if (!d)
		return err_set(e, ERR_DATA, "out of memory");
	snprintf(d->path, sizeof d->path, "%s", path);
	if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode)) {
		free(d);
		return err_set(e, ERR_DATA, "%s: cannot open the store: not a regular file", path);
	}
	fresh = stat(path, &sb) != 0 || sb.st_size == 0;
	if (!write && !fresh)
		rc = open_reading(d, &ready, e);
	if (rc == 0 && !ready)
		rc = open_writing(d, fresh, !write && !fresh, seed, ctx, e);
	if (rc != 0) {
		db_close(d);
		return ERR_DATA;
	}
	*out = d;
	return 0;
}

int db_open(const char *path, db_seed_fn seed, void *ctx, db **out, err *e)
{
	return open_store(path, 1, seed, ctx, out, e);
}

int db_open_read(const char *path, db_seed_fn seed, void *ctx, db **out, err *e)
{
	return open_store(path, 0, seed, ctx, out, e);
}

void db_close(db *d)
{
	if (!d)
		return;
	sqlite3_finalize(d->price_find);
	sqlite3_close(d->h);
	free(d);
}

const char *db_path(const db *d)
{
	return d->path;
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

/* One import in progress: the transaction, the catalog row (written last, with the count and
 * the hash of the rows stored), and the two statements. */
typedef struct importer {
	db *d;
	const char *path;          /* the catalog's, for messages */
	const char *sha256;        /* of its bytes */
	int rows;
	db_import_result *r;
	sqlite3_stmt *find, *ins;
	char rows_sha[DB_SHA_HEX]; /* fold of the rows stored so far (db_rows_fold) */
	int nested;                /* a savepoint inside db_open's creating transaction */
} importer;

enum { STILL_THERE_EVERY = 8192 };   /* rows between checks that the store is still there */

void db_rows_fold(char acc[DB_SHA_HEX], const price_row *p)
{
	/* acc' = SHA-256(acc || the row's fields, 0x1f between them): 0x1f is no text a
	 * catalog may hold, so two rows cannot spell one another. */
	char text[2 * PRICE_SOURCE_MAX];
	int n = snprintf(text, sizeof text, "%.64s%s\x1f%s\x1f%s\x1f%s\x1f%.17g\x1f%s\x1f%d\x1f%s\x1f%s\x1f%d",
			 acc, p->provider, p->instance, p->region,
			 p->model < PRICE_MODEL_N ? price_model_names[p->model] : "", p->usd_per_hour,
			 price_unit_names[p->unit], p->accelerators, p->as_of, p->source, p->line);
	baseline_sha256(text, n < 0 ? 0 : (size_t)n < sizeof text ? (size_t)n : sizeof text - 1, acc);
}

/* Starts the transaction; when a file with sha256 is stored already, sets r->already and
 * writes nothing. */
static int import_begin(importer *im, db *d, const char *path, const char *sha256, int rows,
			db_import_result *r, err *e)
{
	sqlite3_stmt *cat = NULL;
	memset(im, 0, sizeof *im);
	memset(r, 0, sizeof *r);
	im->d = d;
	im->path = path;
	im->sha256 = sha256;
	im->rows = rows;
	im->r = r;
	snprintf(im->rows_sha, sizeof im->rows_sha, "%s", baseline_genesis);
	if (d->readonly)
		return err_set(e, ERR_DATA, "%s: the store is open read-only", d->path);
	/* Inside db_open's creating transaction a savepoint nests; alone, BEGIN IMMEDIATE takes
	 * the write lock first, so that two importers queue instead of failing on upgrade. */
	im->nested = !sqlite3_get_autocommit(d->h);
	if (im->nested ? exec(d, "SAVEPOINT import", e) != 0
		       : exec_retry(d, "BEGIN IMMEDIATE", NULL, 0, e, "cannot lock the store") != 0)
		return ERR_DATA;
	if (prepare(d, "SELECT id, path, imported_at FROM catalog WHERE sha256 = ?1", &cat, e) != 0)
		return ERR_DATA;
	bind_text(cat, 1, sha256);
	if (sqlite3_step(cat) == SQLITE_ROW) {
		r->already = 1;
		r->catalog = sqlite3_column_int(cat, 0);
		text_col(cat, 1, r->path, sizeof r->path);
		text_col(cat, 2, r->imported_at, sizeof r->imported_at);
		sqlite3_finalize(cat);
		return 0;
	}
	sqlite3_finalize(cat);
	/* The catalog row is written at the end, whole (catalogs refuse UPDATE): its price rows
	 * name its id before it exists, with the foreign keys checked at commit. */
	if (exec(d, "PRAGMA defer_foreign_keys = ON", e) != 0 ||
	    count(d, "SELECT COALESCE(MAX(id), 0) + 1 FROM catalog", &r->catalog, e) != 0)
		return ERR_DATA;
	snprintf(r->path, sizeof r->path, "%s", path);
	if (prepare(d, "SELECT " ROW_COLS ", (SELECT path FROM catalog WHERE id = catalog_id) FROM price "
		       "WHERE provider = ?1 AND instance = ?2 AND region = ?3 AND pricing_model = ?4 "
		       "AND as_of = ?5", &im->find, e) != 0 ||
	    prepare(d, "INSERT INTO price (catalog_id, line, " ROW_COLS_NO_LINE ") VALUES "
		       "(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)", &im->ins, e) != 0)
		return ERR_DATA;
	return 0;
}

/* Stores one row, or counts it as unchanged; a different price for a stored offer and as_of
 * is an error at the row's line. */
static int import_row(importer *im, const price_row *p, err *e)
{
	db *d = im->d;
	price_row old;
	char from[PRICE_PATH_MAX];
	int found;
	if ((im->r->added + im->r->unchanged) % STILL_THERE_EVERY == STILL_THERE_EVERY - 1 && still_there(d, e) != 0)
		return ERR_DATA;
	if (find_offer(d, im->find, p, &old, from, sizeof from, &found, e) != 0)
		return ERR_DATA;
	if (found) {
		if (old.usd_per_hour == p->usd_per_hour && old.unit == p->unit &&
		    old.accelerators == p->accelerators) {
			im->r->unchanged++;
			return 0;
		}
		return err_at(e, im->path, p->line,
			      "usd_per_hour: %.6g per %s (%d chips) differs from the stored %.6g per %s "
			      "(%d chips) for the same offer and as_of %s (%s:%d); a new price needs a "
			      "later as_of", p->usd_per_hour, price_unit_names[p->unit], p->accelerators,
			      old.usd_per_hour, price_unit_names[old.unit], old.accelerators, p->as_of,
			      from, old.line);
	}
	sqlite3_reset(im->ins);
	sqlite3_bind_int(im->ins, 1, im->r->catalog);
	sqlite3_bind_int(im->ins, 2, p->line);
	bind_text(im->ins, 3, p->provider);
	bind_text(im->ins, 4, p->instance);
	bind_text(im->ins, 5, p->region);
	bind_text(im->ins, 6, price_model_names[p->model]);
	sqlite3_bind_double(im->ins, 7, p->usd_per_hour);
	bind_text(im->ins, 8, price_unit_names[p->unit]);
	sqlite3_bind_int(im->ins, 9, p->accelerators);
	bind_text(im->ins, 10, p->as_of);
	bind_text(im->ins, 11, p->source);
	if (sqlite3_step(im->ins) != SQLITE_DONE)
		return fail(d, e, "import");
	db_rows_fold(im->rows_sha, p);
	im->r->added++;
	return 0;
}

/* price_row_fn over an importer. */
static int import_cb(void *ctx, const price_row *p, err *e)
{
	return import_row(ctx, p, e);
}

/* Writes the catalog row and commits when rc is 0, else rolls back. Returns rc, or nonzero
 * if the commit failed (or the store was removed meanwhile). */
static int import_end(importer *im, int rc, err *e)
{
	db *d = im->d;
	sqlite3_finalize(im->find);
	sqlite3_finalize(im->ins);
	if (rc == 0 && !im->r->already) {
		sqlite3_stmt *cat = NULL;
		if (prepare(d, "INSERT INTO catalog (id, path, sha256, imported_at, rows, added, rows_sha256) VALUES "
			       "(?1, ?2, ?3, strftime('%Y-%m-%dT%H:%M:%SZ', 'now'), ?4, ?5, ?6) RETURNING imported_at",
			    &cat, e) != 0) {
			rc = ERR_DATA;
		} else {
			sqlite3_bind_int(cat, 1, im->r->catalog);
			bind_text(cat, 2, im->path);
			bind_text(cat, 3, im->sha256);
			sqlite3_bind_int(cat, 4, im->rows);
			sqlite3_bind_int(cat, 5, im->r->added);
			bind_text(cat, 6, im->rows_sha);
			if (sqlite3_step(cat) == SQLITE_ROW)
				text_col(cat, 0, im->r->imported_at, sizeof im->r->imported_at);
			else
				rc = fail(d, e, "import");
			sqlite3_finalize(cat);
		}
	}
	if (rc == 0 && !im->nested)
		rc = still_there(d, e);
	if (rc == 0 && exec(d, im->nested ? "RELEASE import" : "COMMIT", e) == 0)
		return 0;
	if (!sqlite3_get_autocommit(d->h) || im->nested)
		sqlite3_exec(d->h, im->nested ? "ROLLBACK TO import; RELEASE import" : "ROLLBACK", NULL, NULL, NULL);
	return rc ? rc : ERR_DATA;
}

int db_import(db *d, const price_catalog *c, db_import_result *r, err *e)
{
	importer im;
	int rc = import_begin(&im, d, c->path, c->sha256, c->n, r, e);
	for (int i = 0; rc == 0 && !r->already && i < c->n; i++)
		rc = import_row(&im, &c->rows[i], e);
	return import_end(&im, rc, e);
}

int db_import_file(db *d, const price_catalog *checked, db_import_result *r, err *e)
{
	importer im;
	price_catalog again;
	int rc = import_begin(&im, d, checked->path, checked->sha256, checked->n, r, e);
	if (rc == 0 && !r->already) {
		rc = price_scan(checked->path, import_cb, &im, &again, e);
		if (rc == 0 && (strcmp(again.sha256, checked->sha256) != 0 || again.n != checked->n))
			rc = err_set(e, ERR_DATA, "%s: changed while it was imported; nothing stored", checked->path);
	}
	return import_end(&im, rc, e);
}

/* The newest row of each offer at or before ?2 (any date when ?2 is ''). */
#define NEWEST_AT \
	"as_of = (SELECT MAX(q.as_of) FROM price q WHERE q.provider = p.provider AND " \
	"q.instance = p.instance AND q.region = p.region AND q.pricing_model = p.pricing_model " \
	"AND (?2 = '' OR q.as_of <= ?2))"

int db_price_find(db *d, const db_query *q, price_row *out, int *found, err *e)
{
	sqlite3_stmt *st;
	char today[PRICE_DATE_MAX];
	int rc;
	*found = 0;
	if (!d->price_find &&
	    prepare(d, "SELECT " ROW_COLS " FROM price p WHERE instance = ?1 AND pricing_model = ?3 "
		       "AND (?4 = '' OR region = ?4) AND (?2 = '' OR as_of <= ?2) AND " NEWEST_AT
		       " ORDER BY substr(source, 1, length(?5)) = ?5, "
		       "usd_per_hour / (CASE unit WHEN 'instance' THEN accelerators ELSE 1 END), "
		       "region LIMIT 1", &d->price_find, e) != 0)
		return ERR_DATA;
	st = d->price_find;
	/* The newest price is the newest of today: a row dated later (a store from before imports
	 * refused them) is not yet the offer's price. */
	price_today(0, today);
	bind_text(st, 1, q->instance);
	bind_text(st, 2, q->as_of && *q->as_of ? q->as_of : today);
	bind_text(st, 3, q->model < PRICE_MODEL_N ? price_model_names[q->model] : "");
	bind_text(st, 4, q->region);
	bind_text(st, 5, price_unverified_prefix);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		read_row(st, 0, out);
		*found = 1;
	}
	if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
		int r = fail(d, e, "price lookup");
		sqlite3_reset(st);
		return r;
	}
	/* Kept for the next lookup: reset, so that it holds no read transaction meanwhile. */
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return 0;
}

int db_price_models(db *d, const char *instance, const char *as_of, int *have, err *e)
{
	sqlite3_stmt *st;
	char today[PRICE_DATE_MAX];
	int rc;
	for (int i = 0; i < PRICE_MODEL_N; i++)
		have[i] = 0;
	if (prepare(d, "SELECT DISTINCT pricing_model FROM price WHERE instance = ?1 "
		       "AND (?2 = '' OR as_of <= ?2)", &st, e) != 0)
		return ERR_DATA;
	price_today(0, today);
	bind_text(st, 1, instance);
	bind_text(st, 2, as_of && *as_of ? as_of : today);
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

/* ---- the chains' head */

const char *const db_seal_modes[] = {"sha256", "hmac-sha256"};

void db_head_text(const db_head *h, char *buf, size_t n)
{
	snprintf(buf, n, "roofcost-chain-head 1\nmode %s\nkey %s\nrecords %d %s\nchecks %d %s\n", h->mode,
		 h->key_id, h->records, h->record_head, h->checks, h->check_head);
}

int db_head_get(db *d, db_head *h, err *e)
{
	sqlite3_stmt *st;
	int rc;
	memset(h, 0, sizeof *h);
	if (prepare(d, "SELECT mode, key_id, records, record_head, checks, check_head, seal FROM chain_head "
		       "WHERE id = 1", &st, e) != 0)
		return ERR_DATA;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		h->present = 1;
		text_col(st, 0, h->mode, sizeof h->mode);
		text_col(st, 1, h->key_id, sizeof h->key_id);
		h->records = sqlite3_column_int(st, 2);
		text_col(st, 3, h->record_head, sizeof h->record_head);
		h->checks = sqlite3_column_int(st, 4);
		text_col(st, 5, h->check_head, sizeof h->check_head);
		text_col(st, 6, h->seal, sizeof h->seal);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : fail(d, e, "chain head");
}

/* What the chains hold now: their lengths and newest links. */
static int chains_now(db *d, db_head *now, err *e)
{
	sqlite3_stmt *st;
	memset(now, 0, sizeof *now);
	if (count(d, "SELECT COUNT(*) FROM baseline", &now->records, e) != 0 ||
	    count(d, "SELECT COUNT(*) FROM baseline_check", &now->checks, e) != 0)
		return ERR_DATA;
	snprintf(now->record_head, sizeof now->record_head, "%s", baseline_genesis);
	snprintf(now->check_head, sizeof now->check_head, "%s", baseline_genesis);
	if (prepare(d, "SELECT (SELECT chain_sha256 FROM baseline ORDER BY id DESC LIMIT 1), "
		       "(SELECT chain_sha256 FROM baseline_check ORDER BY id DESC LIMIT 1)", &st, e) != 0)
		return ERR_DATA;
	if (sqlite3_step(st) == SQLITE_ROW) {
		if (sqlite3_column_type(st, 0) != SQLITE_NULL)
			text_col(st, 0, now->record_head, sizeof now->record_head);
		if (sqlite3_column_type(st, 1) != SQLITE_NULL)
			text_col(st, 1, now->check_head, sizeof now->check_head);
	}
	sqlite3_finalize(st);
	return 0;
}

int db_head_problem(const db_head *h, const baseline_key *k, char *why, size_t n)
{
	char text[512], seal[DB_SHA_HEX], id[BASELINE_KEY_ID];
	int keyed = !strcmp(h->mode, db_seal_modes[1]);
	why[0] = '\0';
	if (!h->present) {
		snprintf(why, n, "the chain head row is missing: it was deleted behind the tool's back");
		return 1;
	}
	if (!keyed && strcmp(h->mode, db_seal_modes[0]) != 0) {
		snprintf(why, n, "the chain head's mode '%.40s' is not one roofcost writes", h->mode);
		return 1;
	}
	baseline_key_id(k, id);
	if (keyed && !(k && k->len)) {
		snprintf(why, n, "the store's chain is keyed (HMAC-SHA256, key id %s): set ROOFCOST_RECORD_KEY to "
			 "its key to read or verify it", h->key_id);
		return 2;
	}
	if (keyed && strcmp(id, h->key_id) != 0) {
		snprintf(why, n, "ROOFCOST_RECORD_KEY is not this store's key (the store's key id is %s, the one "
			 "given has %s)", h->key_id, id);
		return 2;
	}
	db_head_text(h, text, sizeof text);
	baseline_seal(keyed ? k : NULL, text, strlen(text), seal);
	if (strcmp(seal, h->seal) != 0) {
		snprintf(why, n, "the chain head's seal is %.12s, computed %.12s: the head was rewritten behind the "
			 "tool's back", h->seal, seal);
		return 1;
	}
	if (!keyed && k && k->len && (h->records || h->checks)) {
		snprintf(why, n, "the store's chain is not keyed (%d records, %d checks), though ROOFCOST_RECORD_KEY "
			 "is set: recorded without the key, or rewritten by someone without it", h->records, h->checks);
		return 1;
	}
	return 0;
}

/* The head, checked against the chains as they are (under the write lock before an append).
 * Nonzero with e set when a link was added or removed behind the tool's back, or k is not
 * the store's key. */
static int head_holds(db *d, const baseline_key *k, db_head *h, err *e)
{
	db_head now;
	char why[512];
	int p;
	if (db_head_get(d, h, e) != 0 || chains_now(d, &now, e) != 0)
		return ERR_DATA;
	if (h->present && !strcmp(h->mode, db_seal_modes[0]) && k && k->len && (h->records || h->checks))
		return err_set(e, ERR_DATA, "%s: the store's chain is not keyed (%d records, %d checks): "
			       "ROOFCOST_RECORD_KEY cannot key it now; unset it for this store, or start a keyed "
			       "chain in a new one", d->path, h->records, h->checks);
	p = db_head_problem(h, k, why, sizeof why);
	if (p != 0)
		return err_set(e, ERR_DATA, "%s: %s (see 'roofcost baseline verify')", d->path, why);
	if (now.records != h->records || strcmp(now.record_head, h->record_head) != 0 ||
	    now.checks != h->checks || strcmp(now.check_head, h->check_head) != 0)
		return err_set(e, ERR_DATA, "%s: the chain head says %d records and %d checks (newest %.12s, %.12s), "
			       "the store holds %d and %d (%.12s, %.12s): a record or check was added or removed "
			       "behind the tool's back (see 'roofcost baseline verify')", d->path, h->records,
			       h->checks, h->record_head, h->check_head, now.records, now.checks, now.record_head,
			       now.check_head);
	return 0;
}

/* Writes the head, sealed under k (which also sets the mode when the chains were empty). */
static int head_write(db *d, db_head *h, const baseline_key *k, err *e)
{
	sqlite3_stmt *st;
	char text[512];
	int rc;
	snprintf(h->mode, sizeof h->mode, "%s", db_seal_modes[k && k->len ? 1 : 0]);
	baseline_key_id(k, h->key_id);
	db_head_text(h, text, sizeof text);
	baseline_seal(k, text, strlen(text), h->seal);
	if (prepare(d, h->present ? "UPDATE chain_head SET mode = ?1, key_id = ?2, records = ?3, record_head = ?4, "
		       "checks = ?5, check_head = ?6, seal = ?7 WHERE id = 1"
		       : "INSERT INTO chain_head (id, mode, key_id, records, record_head, checks, check_head, seal) "
		       "VALUES (1, ?1, ?2, ?3, ?4, ?5, ?6, ?7)", &st, e) != 0)
		return ERR_DATA;
	bind_text(st, 1, h->mode);
	bind_text(st, 2, h->key_id);
	sqlite3_bind_int(st, 3, h->records);
	bind_text(st, 4, h->record_head);
	sqlite3_bind_int(st, 5, h->checks);
	bind_text(st, 6, h->check_head);
	bind_text(st, 7, h->seal);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	h->present = 1;
	return rc == SQLITE_DONE ? 0 : fail(d, e, "chain head");
}

void db_check_text(const char *record_sha256, const db_check_row *c, char *buf, size_t n)
{
	snprintf(buf, n, "roofcost-check 1\nrecord %s\nchecked_at %s\nfrozen %d\npassed %d\nfailed %d\ntool %s\n",
		 record_sha256, c->checked_at, c->frozen, c->passed, c->failed, c->tool);
}

/* Migration 4 for what an older store holds: each catalog's rows hash, the check log's links
 * (unkeyed: the key is not known at an open) and the head. */
static int migrate_4(db *d, err *e)
{
	sqlite3_stmt *cats = NULL, *rows = NULL, *up = NULL;
	db_check_row *checks = NULL;
	db_head h;
	int n = 0, rc = 0;
	if (prepare(d, "SELECT id FROM catalog ORDER BY id", &cats, e) != 0 ||
	    prepare(d, "SELECT " ROW_COLS " FROM price WHERE catalog_id = ?1 ORDER BY id", &rows, e) != 0 ||
	    prepare(d, "UPDATE catalog SET rows_sha256 = ?1 WHERE id = ?2", &up, e) != 0)
		rc = ERR_DATA;
	while (rc == 0 && sqlite3_step(cats) == SQLITE_ROW) {
		int id = sqlite3_column_int(cats, 0);
		char acc[DB_SHA_HEX];
		price_row p;
		snprintf(acc, sizeof acc, "%s", baseline_genesis);
		sqlite3_reset(rows);
		sqlite3_bind_int(rows, 1, id);
		while (sqlite3_step(rows) == SQLITE_ROW) {
			read_row(rows, 0, &p);
			db_rows_fold(acc, &p);
		}
		sqlite3_reset(up);
		bind_text(up, 1, acc);
		sqlite3_bind_int(up, 2, id);
		if (sqlite3_step(up) != SQLITE_DONE)
			rc = fail(d, e, "migration 4");
	}
	sqlite3_finalize(cats);
	sqlite3_finalize(rows);
	sqlite3_finalize(up);
	if (rc != 0)
		return rc;
	/* The checks logged before: linked in the order logged, unkeyed. */
	if (db_check_list(d, &checks, &n, e) != 0)
		return ERR_DATA;
	if (n && exec(d, "DROP TRIGGER baseline_check_no_update", e) != 0)
		rc = ERR_DATA;
	if (rc == 0 && n && prepare(d, "UPDATE baseline_check SET prev_sha256 = ?1, chain_sha256 = ?2 WHERE id = ?3",
				    &up, e) != 0)
		rc = ERR_DATA;
	{
		char prev[DB_SHA_HEX];
		snprintf(prev, sizeof prev, "%s", baseline_genesis);
		for (int i = 0; rc == 0 && i < n; i++) {
			char text[1024], sha[DB_SHA_HEX];
			db_check_text(checks[i].record_sha256, &checks[i], text, sizeof text);
			baseline_sha256(text, strlen(text), sha);
			baseline_link(NULL, prev, sha, checks[i].chain_sha256);
			sqlite3_reset(up);
			bind_text(up, 1, prev);
			bind_text(up, 2, checks[i].chain_sha256);
			sqlite3_bind_int(up, 3, checks[i].id);
			if (sqlite3_step(up) != SQLITE_DONE)
				rc = fail(d, e, "migration 4");
			snprintf(prev, sizeof prev, "%s", checks[i].chain_sha256);
		}
	}
	if (n) {
		sqlite3_finalize(up);
		if (rc == 0 && exec(d, "CREATE TRIGGER baseline_check_no_update BEFORE UPDATE ON baseline_check "
				    "BEGIN SELECT RAISE(ABORT, 'baseline checks are append-only'); END;", e) != 0)
			rc = ERR_DATA;
	}
	free(checks);
	if (rc == 0 && chains_now(d, &h, e) != 0)
		rc = ERR_DATA;
	if (rc == 0) {
		h.present = 0;
		rc = head_write(d, &h, NULL, e);
	}
	return rc;
}

/* ---- records and checks */

static int add_baseline(db *d, db_baseline *b, const baseline_key *k, err *e)
{
	sqlite3_stmt *st;
	db_head h;
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
	if (head_holds(d, k, &h, e) != 0)
		return ERR_DATA;
	snprintf(b->prev_sha256, sizeof b->prev_sha256, "%s", h.record_head);
	baseline_link(k, b->prev_sha256, b->sha256, b->chain_sha256);
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
	if (rc != SQLITE_ROW)
		return fail(d, e, "baseline");
	h.records++;
	snprintf(h.record_head, sizeof h.record_head, "%s", b->chain_sha256);
	return head_write(d, &h, k, e);
}

/* One append to a chain (add: add_baseline or add_check on item) in a write transaction, of a
 * store still where it was opened. BEGIN IMMEDIATE: the checks, the chain's newest link and
 * the insert see one state, and a second writer waits for the lock (busy timeout) instead of
 * forking the chain. */
static int append(db *d, int (*add)(db *, void *, const baseline_key *, err *), void *item,
		  const baseline_key *k, err *e)
{
	if (d->readonly)
		return err_set(e, ERR_DATA, "%s: the store is open read-only", d->path);
	if (exec_retry(d, "BEGIN IMMEDIATE", NULL, 0, e, "cannot lock the store") != 0)
		return ERR_DATA;
	if (add(d, item, k, e) != 0 || still_there(d, e) != 0 || exec(d, "COMMIT", e) != 0) {
		sqlite3_exec(d->h, "ROLLBACK", NULL, NULL, NULL);
		return ERR_DATA;
	}
	return 0;
}

static int add_record_cb(db *d, void *item, const baseline_key *k, err *e)
{
	return add_baseline(d, item, k, e);
}

int db_baseline_add(db *d, db_baseline *b, const baseline_key *k, err *e)
{
	return append(d, add_record_cb, b, k, e);
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

static int add_check(db *d, db_check_row *c, const baseline_key *k, err *e)
{
	sqlite3_stmt *st;
	db_head h;
	char text[1024], sha[DB_SHA_HEX];
	int rc;
	if (head_holds(d, k, &h, e) != 0)
		return ERR_DATA;
	if (prepare(d, "SELECT sha256, strftime('%Y-%m-%dT%H:%M:%SZ', 'now') FROM baseline WHERE id = ?1", &st, e) != 0)
		return ERR_DATA;
	sqlite3_bind_int(st, 1, c->baseline_id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		text_col(st, 0, c->record_sha256, sizeof c->record_sha256);
		text_col(st, 1, c->checked_at, sizeof c->checked_at);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW)
		return rc == SQLITE_DONE ? err_set(e, ERR_DATA, "%s: no record %d to log a check of", d->path,
						   c->baseline_id) : fail(d, e, "baseline check");
	db_check_text(c->record_sha256, c, text, sizeof text);
	baseline_sha256(text, strlen(text), sha);
	snprintf(c->prev_sha256, sizeof c->prev_sha256, "%s", h.check_head);
	baseline_link(k, c->prev_sha256, sha, c->chain_sha256);
	if (prepare(d, "INSERT INTO baseline_check (baseline_id, checked_at, frozen, passed, failed, tool, "
		       "prev_sha256, chain_sha256) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8) RETURNING id", &st, e) != 0)
		return ERR_DATA;
	sqlite3_bind_int(st, 1, c->baseline_id);
	bind_text(st, 2, c->checked_at);
	sqlite3_bind_int(st, 3, c->frozen != 0);
	sqlite3_bind_int(st, 4, c->passed != 0);
	sqlite3_bind_int(st, 5, c->failed);
	bind_text(st, 6, c->tool);
	bind_text(st, 7, c->prev_sha256);
	bind_text(st, 8, c->chain_sha256);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		c->id = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW)
		return fail(d, e, "baseline check");
	h.checks++;
	snprintf(h.check_head, sizeof h.check_head, "%s", c->chain_sha256);
	return head_write(d, &h, k, e);
}

static int add_check_cb(db *d, void *item, const baseline_key *k, err *e)
{
	return add_check(d, item, k, e);
}

int db_baseline_check_add(db *d, db_check_row *c, const baseline_key *k, err *e)
{
	return append(d, add_check_cb, c, k, e);
}

int db_check_list(db *d, db_check_row **rows, int *n, err *e)
{
	sqlite3_stmt *st;
	int rc, cap = 0;
	*rows = NULL;
	*n = 0;
	if (prepare(d, "SELECT k.id, k.baseline_id, k.checked_at, k.frozen, k.passed, k.failed, k.tool, "
		       "k.prev_sha256, k.chain_sha256, COALESCE(b.sha256, ''), COALESCE(b.name, '') FROM baseline_check k "
		       "LEFT JOIN baseline b ON b.id = k.baseline_id ORDER BY k.id", &st, e) != 0)
		return ERR_DATA;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		db_check_row *c;
		if (*n == cap) {
			db_check_row *nr;
			cap = cap ? 2 * cap : 64;
			if (!(nr = realloc(*rows, (size_t)cap * sizeof *nr))) {
				rc = SQLITE_NOMEM;
				break;
			}
			*rows = nr;
		}
		c = &(*rows)[(*n)++];
		memset(c, 0, sizeof *c);
		c->id = sqlite3_column_int(st, 0);
		c->baseline_id = sqlite3_column_int(st, 1);
		text_col(st, 2, c->checked_at, sizeof c->checked_at);
		c->frozen = sqlite3_column_int(st, 3);
		c->passed = sqlite3_column_int(st, 4);
		c->failed = sqlite3_column_int(st, 5);
		text_col(st, 6, c->tool, sizeof c->tool);
		text_col(st, 7, c->prev_sha256, sizeof c->prev_sha256);
		text_col(st, 8, c->chain_sha256, sizeof c->chain_sha256);
		text_col(st, 9, c->record_sha256, sizeof c->record_sha256);
		text_col(st, 10, c->record_name, sizeof c->record_name);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		free(*rows);
		*rows = NULL;
		*n = 0;
		return rc == SQLITE_NOMEM ? err_set(e, ERR_DATA, "out of memory") : fail(d, e, "baseline check list");
	}
	return 0;
}

int db_catalog_list(db *d, db_catalog **out, int *n, err *e)
{
	sqlite3_stmt *cats, *rows;
	int rc, cap = 0;
	*out = NULL;
	*n = 0;
	if (prepare(d, "SELECT id, path, sha256, imported_at, rows, added, rows_sha256 FROM catalog ORDER BY id",
		    &cats, e) != 0)
		return ERR_DATA;
	if (prepare(d, "SELECT " ROW_COLS " FROM price WHERE catalog_id = ?1 ORDER BY id", &rows, e) != 0) {
		sqlite3_finalize(cats);
		return ERR_DATA;
	}
	while ((rc = sqlite3_step(cats)) == SQLITE_ROW) {
		db_catalog *c;
		price_row p;
		if (*n == cap) {
			db_catalog *nc;
			cap = cap ? 2 * cap : 16;
			if (!(nc = realloc(*out, (size_t)cap * sizeof *nc))) {
				rc = SQLITE_NOMEM;
				break;
			}
			*out = nc;
		}
		c = &(*out)[(*n)++];
		memset(c, 0, sizeof *c);
		c->id = sqlite3_column_int(cats, 0);
		text_col(cats, 1, c->path, sizeof c->path);
		text_col(cats, 2, c->sha256, sizeof c->sha256);
		text_col(cats, 3, c->imported_at, sizeof c->imported_at);
		c->rows = sqlite3_column_int(cats, 4);
		c->added = sqlite3_column_int(cats, 5);
		text_col(cats, 6, c->rows_sha256, sizeof c->rows_sha256);
		snprintf(c->computed, sizeof c->computed, "%s", baseline_genesis);
		sqlite3_reset(rows);
		sqlite3_bind_int(rows, 1, c->id);
		while (sqlite3_step(rows) == SQLITE_ROW) {
			read_row(rows, 0, &p);
			db_rows_fold(c->computed, &p);
			c->stored++;
		}
	}
	sqlite3_finalize(cats);
	sqlite3_finalize(rows);
	if (rc != SQLITE_DONE) {
		free(*out);
		*out = NULL;
		*n = 0;
		return rc == SQLITE_NOMEM ? err_set(e, ERR_DATA, "out of memory") : fail(d, e, "catalog list");
	}
	return 0;
}

int db_check_count(db *d, int *n, err *e)
{
	return count(d, "SELECT COUNT(*) FROM baseline_check", n, e);
}

int db_price_get(db *d, const price_row *key, price_row *out, char *path, size_t n, char sha256[DB_SHA_HEX],
		 int *found, err *e)
{
	sqlite3_stmt *st;
	int rc;
	*found = 0;
	if (prepare(d, "SELECT " ROW_COLS ", c.path, c.sha256 FROM price p JOIN catalog c ON c.id = p.catalog_id "
		       "WHERE p.provider = ?1 AND p.instance = ?2 AND p.region = ?3 AND p.pricing_model = ?4 "
		       "AND p.as_of = ?5", &st, e) != 0)
		return ERR_DATA;
	bind_text(st, 1, key->provider);
	bind_text(st, 2, key->instance);
	bind_text(st, 3, key->region);
	bind_text(st, 4, key->model < PRICE_MODEL_N ? price_model_names[key->model] : "");
	bind_text(st, 5, key->as_of);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		read_row(st, 0, out);
		text_col(st, 10, path, n);
		text_col(st, 11, sha256, DB_SHA_HEX);
		*found = 1;
	}
	sqlite3_finalize(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : fail(d, e, "price lookup");
}

int db_price_orphans(db *d, int *n, err *e)
{
	return count(d, "SELECT COUNT(*) FROM price WHERE catalog_id NOT IN (SELECT id FROM catalog)", n, e);
}
