/* db: the store - creation, migration, imports as one transaction, history, lookups, the
 * malformed-catalog corpus (each rejected with its line, the store unchanged), and two
 * processes importing at once. Every store is a temporary file. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <sqlite3.h>   /* only to forge old and future stores from outside the db module */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "store/db.h"

typedef struct tmp_store {
	char dir[64];
	char path[96];
} tmp_store;

static void tmp_init(tmp_store *t)
{
	strcpy(t->dir, "/tmp/roofcost-db-XXXXXX");
	cr_assert(mkdtemp(t->dir));
	snprintf(t->path, sizeof t->path, "%s/store.db", t->dir);
}

static void tmp_release(tmp_store *t)
{
	char p[128];
	static const char *const sfx[] = {"", "-wal", "-shm"};
	for (int i = 0; i < 3; i++) {
		snprintf(p, sizeof p, "%s%s", t->path, sfx[i]);
		unlink(p);
	}
	rmdir(t->dir);
}

static db *open_ok(const char *path)
{
	db *d = NULL;
	err e = {0};
	cr_assert_eq(db_open(path, NULL, NULL, &d, &e), 0, "%s", e.msg);
	return d;
}

static void import_ok(db *d, const char *path, db_import_result *r)
{
	price_catalog c;
	err e = {0};
	cr_assert_eq(price_catalog_load(&c, path, &e), 0, "%s", e.msg);
	cr_assert_eq(db_import(d, &c, r, &e), 0, "%s", e.msg);
	price_catalog_release(&c);
}

static void counts(db *d, int *cat, int *rows)
{
	err e = {0};
	cr_assert_eq(db_counts(d, cat, rows, &e), 0, "%s", e.msg);
}

Test(db, created_migrated_and_empty)
{
	tmp_store t;
	db *d;
	int c, n;
	tmp_init(&t);
	d = open_ok(t.path);
	cr_assert_eq(db_schema_version(d), DB_SCHEMA_VERSION);
	counts(d, &c, &n);
	cr_assert_eq(c, 0);
	cr_assert_eq(n, 0);
	db_close(d);
	tmp_release(&t);
}

Test(db, import_reimport_and_history)
{
	tmp_store t;
	db *d;
	db_import_result r;
	price_row p;
	int c, n, found;
	err e = {0};
	db_query q = {"p5.48xlarge", PRICE_ON_DEMAND, NULL, NULL};
	tmp_init(&t);
	d = open_ok(t.path);
	import_ok(d, "tests/catalogs/good/history-1.csv", &r);
	cr_assert_eq(r.already, 0);
	cr_assert_eq(r.added, 3);
	/* The same file again: reported, nothing written. */
	import_ok(d, "tests/catalogs/good/history-1.csv", &r);
	cr_assert_eq(r.already, 1);
	cr_assert_eq(r.added, 0);
	cr_assert_str_eq(r.path, "tests/catalogs/good/history-1.csv");
	counts(d, &c, &n);
	cr_assert_eq(c, 1);
	cr_assert_eq(n, 3);
	/* A newer as_of keeps the old row; an equal row is left as is. */
	import_ok(d, "tests/catalogs/good/history-2.csv", &r);
	cr_assert_eq(r.added, 2);
	cr_assert_eq(r.unchanged, 1);
	counts(d, &c, &n);
	cr_assert_eq(c, 2);
	cr_assert_eq(n, 5);
	/* Newest overall: the post-cut 55.04 (us-east-1), cheaper per chip than us-west-2. */
	cr_assert_eq(db_price_find(d, &q, &p, &found, &e), 0, "%s", e.msg);
	cr_assert(found);
	cr_assert_float_eq(p.usd_per_hour, 55.04, 1e-9);
	cr_assert_str_eq(p.as_of, "2025-06-01");
	/* At 2025-03-01 the newest at or before is the pre-cut row; us-east-1 98.32/8 = 12.29 per
	 * chip-hour beats us-west-2 99.00/8 = 12.375. */
	q.as_of = "2025-03-01";
	cr_assert_eq(db_price_find(d, &q, &p, &found, &e), 0, "%s", e.msg);
	cr_assert(found);
	cr_assert_float_eq(p.usd_per_hour, 98.32, 1e-9);
	cr_assert_str_eq(p.region, "us-east-1");
	/* A region asked for wins over the cheaper one. */
	q.region = "us-west-2";
	cr_assert_eq(db_price_find(d, &q, &p, &found, &e), 0, "%s", e.msg);
	cr_assert_float_eq(p.usd_per_hour, 99.0, 1e-9);
	/* Before any price: not found. The date itself counts ("at or before"). */
	q.region = NULL;
	q.as_of = "2024-11-30";
	cr_assert_eq(db_price_find(d, &q, &p, &found, &e), 0, "%s", e.msg);
	cr_assert_not(found);
	q.as_of = "2024-12-01";
	cr_assert_eq(db_price_find(d, &q, &p, &found, &e), 0, "%s", e.msg);
	cr_assert(found);
	/* Lists: newest per offer (4 offers), all history (5 rows), by provider, at a date. */
	{
		price_row *rows;
		int k;
		int have[PRICE_MODEL_N];
		cr_assert_eq(db_price_list(d, NULL, NULL, 0, &rows, &k, &e), 0, "%s", e.msg);
		cr_assert_eq(k, 4);
		free(rows);
		cr_assert_eq(db_price_list(d, NULL, NULL, 1, &rows, &k, &e), 0, "%s", e.msg);
		cr_assert_eq(k, 5);
		free(rows);
		cr_assert_eq(db_price_list(d, "gcp", NULL, 0, &rows, &k, &e), 0, "%s", e.msg);
		cr_assert_eq(k, 2);
		cr_assert_not(price_verified(&rows[1]), "%s", rows[1].source);   /* on-demand after committed-1y */
		free(rows);
		cr_assert_eq(db_price_list(d, "aws", "2025-01-01", 0, &rows, &k, &e), 0, "%s", e.msg);
		cr_assert_eq(k, 2);
		cr_assert_float_eq(rows[0].usd_per_hour, 98.32, 1e-9);
		free(rows);
		cr_assert_eq(db_price_models(d, "tpu-v6e", NULL, have, &e), 0, "%s", e.msg);
		cr_assert(have[PRICE_ON_DEMAND] && have[PRICE_COMMITTED_1Y] && !have[PRICE_SPOT]);
	}
	cr_assert_eq(db_check(d, &e), 0, "%s", e.msg);
	db_close(d);
	tmp_release(&t);
}

Test(db, a_conflicting_row_rolls_back_the_whole_file)
{
	tmp_store t;
	db *d;
	db_import_result r;
	price_catalog c;
	int cat, n;
	err e = {0};
	tmp_init(&t);
	d = open_ok(t.path);
	import_ok(d, "tests/catalogs/good/history-1.csv", &r);
	cr_assert_eq(price_catalog_load(&c, "tests/catalogs/good/conflict.csv", &e), 0, "%s", e.msg);
	cr_assert_neq(db_import(d, &c, &r, &e), 0);
	cr_assert_str_eq(e.msg, "tests/catalogs/good/conflict.csv:4: usd_per_hour: 90 per instance (8 chips) "
			 "differs from the stored 98.32 per instance (8 chips) for the same offer and as_of "
			 "2024-12-01 (tests/catalogs/good/history-1.csv:2); a new price needs a later as_of");
	price_catalog_release(&c);
	/* Lines 2 and 3 were new, but nothing of the file is stored. */
	counts(d, &cat, &n);
	cr_assert_eq(cat, 1);
	cr_assert_eq(n, 3);
	db_close(d);
	tmp_release(&t);
}

/* The corpus: each malformed catalog gives FILE:LINE: reason and leaves the store as it was. */
Test(db, malformed_catalog_corpus)
{
	FILE *man = fopen("tests/catalogs/bad/expected.txt", "r");
	char buf[1024];
	tmp_store t;
	db *d;
	db_import_result r;
	int cases = 0, cat0, n0;
	cr_assert(man);
	tmp_init(&t);
	d = open_ok(t.path);
	import_ok(d, "tests/catalogs/good/history-1.csv", &r);
	counts(d, &cat0, &n0);
	while (fgets(buf, sizeof buf, man)) {
		char *file, *line, *msg, path[256], want[1200];
		price_catalog c;
		err e = {0};
		int cat, n;
		if (buf[0] == '#' || buf[0] == '\n')
			continue;
		buf[strcspn(buf, "\n")] = '\0';
		file = strtok(buf, "|");
		line = strtok(NULL, "|");
		msg = line ? line + strlen(line) + 1 : NULL;
		cr_assert(file && line && msg, "bad manifest line");
		snprintf(path, sizeof path, "tests/catalogs/bad/%s", file);
		if (atoi(line) > 0)
			snprintf(want, sizeof want, "%s:%s: %s", path, line, msg);
		else
			snprintf(want, sizeof want, "%s: %s", path, msg);
		cr_assert_neq(price_catalog_load(&c, path, &e), 0, "%s was accepted", path);
		cr_assert_str_eq(e.msg, want);
		cr_assert_eq(c.n, 0);
		cr_assert_null(c.rows);
		/* Nothing reached the store: the catalog and price rows are what they were. */
		counts(d, &cat, &n);
		cr_assert_eq(cat, cat0, "%s", path);
		cr_assert_eq(n, n0, "%s", path);
		cases++;
	}
	fclose(man);
	cr_assert_geq(cases, 20);
	/* Every file in the folder has its case. */
	{
		DIR *dir = opendir("tests/catalogs/bad");
		struct dirent *de;
		int files = 0;
		cr_assert(dir);
		while ((de = readdir(dir))) {
			size_t l = strlen(de->d_name);
			files += l > 4 && strcmp(de->d_name + l - 4, ".csv") == 0;
		}
		closedir(dir);
		cr_assert_eq(files, cases);
	}
	cr_assert_eq(db_check(d, &(err){0}), 0);
	db_close(d);
	tmp_release(&t);
}

/* Seeding runs once, inside the creating transaction. */
static int seed_two(db *d, void *ctx, err *e)
{
	static const char *const files[] = {"tests/catalogs/good/history-1.csv", "tests/catalogs/good/history-2.csv"};
	int *calls = ctx;
	(*calls)++;
	for (int i = 0; i < 2; i++) {
		price_catalog c;
		db_import_result r;
		int rc;
		if (price_catalog_load(&c, files[i], e) != 0)
			return 1;
		rc = db_import(d, &c, &r, e);
		price_catalog_release(&c);
		if (rc != 0)
			return rc;
	}
	return 0;
}

static int seed_fails(db *d, void *ctx, err *e)
{
	(void)ctx;
	if (seed_two(d, &(int){0}, e) != 0)
		return 1;
	return err_set(e, ERR_DATA, "seed failed on purpose");
}

Test(db, seeded_once_and_a_failed_seed_undoes_the_creation)
{
	tmp_store t;
	db *d;
	int calls = 0, c, n;
	err e = {0};
	tmp_init(&t);
	cr_assert_neq(db_open(t.path, seed_fails, NULL, &d, &e), 0);
	cr_assert_str_eq(e.msg, "seed failed on purpose");
	cr_assert_eq(db_open(t.path, seed_two, &calls, &d, &e), 0, "%s", e.msg);
	cr_assert_eq(calls, 1);
	counts(d, &c, &n);
	cr_assert_eq(c, 2);
	cr_assert_eq(n, 5);
	db_close(d);
	cr_assert_eq(db_open(t.path, seed_two, &calls, &d, &e), 0, "%s", e.msg);
	cr_assert_eq(calls, 1, "an existing store is not seeded again");
	db_close(d);
	tmp_release(&t);
}

static void raw_exec(const char *path, const char *sql)
{
	sqlite3 *h;
	cr_assert_eq(sqlite3_open(path, &h), SQLITE_OK);
	cr_assert_eq(sqlite3_exec(h, sql, NULL, NULL, NULL), SQLITE_OK, "%s", sqlite3_errmsg(h));
	sqlite3_close(h);
}

Test(db, an_old_store_is_migrated_and_a_newer_one_refused)
{
	tmp_store t;
	db *d;
	price_row p;
	int found, c, n;
	err e = {0};
	db_query q = {"p5.48xlarge", PRICE_ON_DEMAND, NULL, NULL};
	tmp_init(&t);
	/* A version-1 store, as roofcost wrote it before the lookup index. */
	raw_exec(t.path,
		 "CREATE TABLE catalog (id INTEGER PRIMARY KEY, path TEXT NOT NULL, sha256 TEXT NOT NULL UNIQUE,"
		 " imported_at TEXT NOT NULL, rows INTEGER NOT NULL, added INTEGER NOT NULL);"
		 "CREATE TABLE price (id INTEGER PRIMARY KEY, catalog_id INTEGER NOT NULL REFERENCES catalog(id),"
		 " line INTEGER NOT NULL, provider TEXT NOT NULL, instance TEXT NOT NULL, region TEXT NOT NULL,"
		 " pricing_model TEXT NOT NULL, usd_per_hour REAL NOT NULL CHECK (usd_per_hour > 0),"
		 " unit TEXT NOT NULL CHECK (unit IN ('instance', 'chip')),"
		 " accelerators INTEGER NOT NULL CHECK (accelerators >= 1), as_of TEXT NOT NULL, source TEXT NOT NULL,"
		 " UNIQUE (provider, instance, region, pricing_model, as_of));"
		 "INSERT INTO catalog VALUES (1, 'old.csv', 'abc', '2025-01-01T00:00:00Z', 1, 1);"
		 "INSERT INTO price VALUES (1, 1, 2, 'aws', 'p5.48xlarge', 'us-east-1', 'on-demand', 98.32,"
		 " 'instance', 8, '2024-12-01', 'old');"
		 "PRAGMA user_version = 1;");
	d = open_ok(t.path);
	cr_assert_eq(db_schema_version(d), DB_SCHEMA_VERSION);
	counts(d, &c, &n);
	cr_assert_eq(n, 1);
	cr_assert_eq(db_price_find(d, &q, &p, &found, &e), 0, "%s", e.msg);
	cr_assert(found);
	cr_assert_float_eq(p.usd_per_hour, 98.32, 1e-9);
	db_close(d);
	raw_exec(t.path, "PRAGMA user_version = 99;");
	cr_assert_neq(db_open(t.path, NULL, NULL, &d, &e), 0);
	{
		char want[96];
		snprintf(want, sizeof want, "store schema version 99 is newer than this roofcost's %d",
			 DB_SCHEMA_VERSION);
		cr_assert(strstr(e.msg, want), "%s", e.msg);
	}
	tmp_release(&t);
}

Test(db, not_a_store)
{
	tmp_store t;
	db *d;
	err e = {0};
	FILE *f;
	tmp_init(&t);
	f = fopen(t.path, "w");
	fputs("provider,instance\nthis is not SQLite, but long enough to have a header of sorts............"
	      "...............................................................................\n", f);
	fclose(f);
	cr_assert_neq(db_open(t.path, NULL, NULL, &d, &e), 0);
	cr_assert(strstr(e.msg, "file is not a database"), "%s", e.msg);
	tmp_release(&t);
}

/* Two processes create the store and import at the same moment: each file is stored once and
 * whole, and the store passes SQLite's checks. */
Test(db, concurrent_imports_from_two_processes)
{
	static const char *const mine[2][3] = {
		{"catalogs/aws.csv", "catalogs/gcp.csv", "tests/catalogs/good/history-1.csv"},
		{"catalogs/gcp.csv", "catalogs/azure.csv", "tests/catalogs/good/history-1.csv"},
	};
	tmp_store t;
	int go[2];
	pid_t kid[2];
	db *d;
	int c, n, want = 0;
	err e = {0};
	tmp_init(&t);
	cr_assert_eq(pipe(go), 0);
	for (int k = 0; k < 2; k++) {
		kid[k] = fork();
		cr_assert_geq(kid[k], 0);
		if (kid[k] == 0) {
			char b;
			int bad = 0;
			close(go[1]);
			if (read(go[0], &b, 1) != 0)   /* wait until the parent closes the pipe */
				_exit(3);
			for (int round = 0; round < 5 && !bad; round++) {
				db *me = NULL;
				err ke = {0};
				if (db_open(t.path, NULL, NULL, &me, &ke) != 0) {
					fprintf(stderr, "child %d: %s\n", k, ke.msg);
					_exit(1);
				}
				for (int i = 0; i < 3 && !bad; i++) {
					price_catalog cat;
					db_import_result r;
					if (price_catalog_load(&cat, mine[k][i], &ke) != 0 ||
					    db_import(me, &cat, &r, &ke) != 0) {
						fprintf(stderr, "child %d: %s\n", k, ke.msg);
						bad = 1;
					}
					price_catalog_release(&cat);
				}
				db_close(me);
			}
			_exit(bad ? 2 : 0);
		}
	}
	close(go[0]);
	close(go[1]);   /* both children start now */
	for (int k = 0; k < 2; k++) {
		int status;
		cr_assert_eq(waitpid(kid[k], &status, 0), kid[k]);
		cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child %d failed", k);
	}
	d = open_ok(t.path);
	counts(d, &c, &n);
	cr_assert_eq(c, 4, "aws, gcp, azure, history-1: each once");
	{
		static const char *const all[] = {"catalogs/aws.csv", "catalogs/gcp.csv", "catalogs/azure.csv",
						  "tests/catalogs/good/history-1.csv"};
		for (int i = 0; i < 4; i++) {
			price_catalog cat;
			cr_assert_eq(price_catalog_load(&cat, all[i], &e), 0, "%s", e.msg);
			want += cat.n;
			price_catalog_release(&cat);
		}
	}
	/* history-1 repeats two bundled offers at their dates and prices (p5.48xlarge us-east-1
	 * on-demand 98.32 and tpu-v6e us-east1 on-demand 2.7, both 2024-12-01): whichever file
	 * comes second leaves those two as they are. */
	cr_assert_eq(n, want - 2, "%d rows, want %d", n, want - 2);
	cr_assert_eq(db_check(d, &e), 0, "%s", e.msg);
	db_close(d);
	tmp_release(&t);
}

/* db_seed_fn: the bundled AWS catalog, streamed as the CLI seeds a new store. */
static int seed_aws(db *d, void *ctx, err *e)
{
	price_catalog c;
	db_import_result r;
	(void)ctx;
	if (price_scan("catalogs/aws.csv", NULL, NULL, &c, e) != 0)
		return ERR_DATA;
	return db_import_file(d, &c, &r, e);
}

/* First use from many processes at once (issue 12: 4 failures in 80 with "cannot switch to WAL
 * mode: database is locked"): 8 processes create one new store, 20 times over. Every process
 * opens it, half of them read-only, and the store is seeded exactly once. */
Test(db, eight_processes_create_one_store_twenty_times, .timeout = 120)
{
	for (int round = 0; round < 20; round++) {
		tmp_store t;
		int go[2];
		pid_t kid[8];
		db *d;
		int c, n;
		tmp_init(&t);
		cr_assert_eq(pipe(go), 0);
		for (int k = 0; k < 8; k++) {
			kid[k] = fork();
			cr_assert_geq(kid[k], 0);
			if (kid[k] == 0) {
				char b;
				db *me = NULL;
				err ke = {0};
				int kc, kn;
				close(go[1]);
				if (read(go[0], &b, 1) != 0)
					_exit(3);
				if ((k % 2 ? db_open_read : db_open)(t.path, seed_aws, NULL, &me, &ke) != 0 ||
				    db_counts(me, &kc, &kn, &ke) != 0) {
					fprintf(stderr, "round %d, process %d: %s\n", round, k, ke.msg);
					_exit(1);
				}
				db_close(me);
				_exit(kc == 1 ? 0 : 2);
			}
		}
		close(go[0]);
		close(go[1]);
		for (int k = 0; k < 8; k++) {
			int status;
			cr_assert_eq(waitpid(kid[k], &status, 0), kid[k]);
			cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "round %d: process %d failed (%d)",
				  round, k, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
		}
		d = open_ok(t.path);
		counts(d, &c, &n);
		cr_assert_eq(c, 1, "round %d: seeded %d times", round, c);
		db_close(d);
		tmp_release(&t);
	}
}

/* The bytes of a file, to show a refused store is left as it was. */
static char *slurp(const char *path, long *n)
{
	FILE *f = fopen(path, "rb");
	char *b;
	cr_assert(f);
	fseek(f, 0, SEEK_END);
	*n = ftell(f);
	fseek(f, 0, SEEK_SET);
	b = malloc((size_t)*n + 1);
	cr_assert_eq(fread(b, 1, (size_t)*n, f), (size_t)*n);
	fclose(f);
	return b;
}

/* Opens path both ways; each must fail with want in the message and leave the file as it was. */
static void refused_untouched(const char *path, const char *want)
{
	long n0, n1;
	char *before = slurp(path, &n0), *after;
	for (int mode = 0; mode < 2; mode++) {
		db *d = NULL;
		err e = {0};
		cr_assert_neq((mode ? db_open : db_open_read)(path, NULL, NULL, &d, &e), 0, "%s opened", path);
		cr_assert(strstr(e.msg, want), "%s", e.msg);
		cr_assert(strstr(e.msg, path), "%s", e.msg);
	}
	after = slurp(path, &n1);
	cr_assert(n0 == n1 && memcmp(before, after, (size_t)n0) == 0, "%s was changed", path);
	free(before);
	free(after);
}

/* Issue 12: a foreign SQLite file was converted (WAL, tables, prices seeded into it), a
 * corrupt store read and written, a negative user_version indexed before the migrations. */
Test(db, foreign_corrupt_negative_and_newer_stores_are_refused_untouched)
{
	tmp_store t;
	db *d;
	err e = {0};
	tmp_init(&t);
	raw_exec(t.path, "CREATE TABLE notes (x TEXT); INSERT INTO notes VALUES ('mine');");
	refused_untouched(t.path, "not a roofcost store (an SQLite file without roofcost's tables)");
	tmp_release(&t);

	tmp_init(&t);
	raw_exec(t.path, "PRAGMA application_id = 1234; CREATE TABLE catalog (x); CREATE TABLE price (y);");
	refused_untouched(t.path, "application_id 0x4d2");
	tmp_release(&t);

	tmp_init(&t);
	d = open_ok(t.path);
	db_close(d);
	raw_exec(t.path, "PRAGMA user_version = -1;");
	refused_untouched(t.path, "store schema version -1 is not one roofcost writes");
	raw_exec(t.path, "PRAGMA user_version = 3000000;");
	refused_untouched(t.path, "store schema version 3000000 is newer than this roofcost's");
	tmp_release(&t);

	/* Corrupt: the b-tree pages of a store with rows, their headers overwritten. */
	tmp_init(&t);
	d = open_ok(t.path);
	{
		db_import_result r;
		import_ok(d, "catalogs/aws.csv", &r);
	}
	db_close(d);
	raw_exec(t.path, "PRAGMA wal_checkpoint(TRUNCATE); PRAGMA journal_mode = DELETE;");
	{
		long n;
		char *b = slurp(t.path, &n);
		FILE *f;
		for (long p = 4096; p + 8 < n; p += 4096)
			b[p + 3] = b[p + 4] = 0x7f;   /* cell counts of every page after the first */
		f = fopen(t.path, "wb");
		fwrite(b, 1, (size_t)n, f);
		fclose(f);
		free(b);
	}
	refused_untouched(t.path, "the store is corrupt");
	tmp_release(&t);
	(void)e;
}

/* Commands that only read open the store read-only: an import through that handle fails,
 * and the file is not written. */
Test(db, a_reading_open_writes_nothing)
{
	tmp_store t;
	db *d;
	db_import_result r;
	price_catalog c;
	err e = {0};
	long n0, n1;
	char *before, *after;
	tmp_init(&t);
	d = open_ok(t.path);
	db_close(d);
	raw_exec(t.path, "PRAGMA wal_checkpoint(TRUNCATE);");
	before = slurp(t.path, &n0);
	cr_assert_eq(db_open_read(t.path, NULL, NULL, &d, &e), 0, "%s", e.msg);
	cr_assert_eq(price_catalog_load(&c, "tests/catalogs/good/history-1.csv", &e), 0, "%s", e.msg);
	cr_assert_neq(db_import(d, &c, &r, &e), 0);
	cr_assert(strstr(e.msg, "open read-only"), "%s", e.msg);
	price_catalog_release(&c);
	db_close(d);
	after = slurp(t.path, &n1);
	cr_assert(n0 == n1 && memcmp(before, after, (size_t)n0) == 0);
	free(before);
	free(after);
	/* A missing store is created by a reading open too (first use). */
	tmp_release(&t);
	tmp_init(&t);
	cr_assert_eq(db_open_read(t.path, NULL, NULL, &d, &e), 0, "%s", e.msg);
	cr_assert_eq(db_schema_version(d), DB_SCHEMA_VERSION);
	db_close(d);
	tmp_release(&t);
}

/* The streaming import stores what db_import stores, and refuses a file changed in between. */
Test(db, import_file_streams_and_notices_a_change)
{
	tmp_store t;
	db *d;
	db_import_result r;
	price_catalog c;
	err e = {0};
	int cat, n;
	char path[96];
	FILE *f;
	tmp_init(&t);
	d = open_ok(t.path);
	cr_assert_eq(price_scan("tests/catalogs/good/history-1.csv", NULL, NULL, &c, &e), 0, "%s", e.msg);
	cr_assert_eq(db_import_file(d, &c, &r, &e), 0, "%s", e.msg);
	cr_assert_eq(r.added, 3);
	snprintf(path, sizeof path, "%s/changing.csv", t.dir);
	f = fopen(path, "w");
	fputs("provider,instance,region,pricing_model,usd_per_hour,unit,accelerators,as_of,source\n"
	      "aws,x1,us-east-1,spot,1.5,instance,8,2025-01-01,src\n", f);
	fclose(f);
	cr_assert_eq(price_scan(path, NULL, NULL, &c, &e), 0, "%s", e.msg);
	f = fopen(path, "a");
	fputs("aws,x2,us-east-1,spot,1.5,instance,8,2025-01-01,src\n", f);
	fclose(f);
	cr_assert_neq(db_import_file(d, &c, &r, &e), 0);
	cr_assert(strstr(e.msg, "changed while it was imported"), "%s", e.msg);
	counts(d, &cat, &n);
	cr_assert_eq(cat, 1);
	cr_assert_eq(n, 3);
	unlink(path);
	db_close(d);
	tmp_release(&t);
}

/* ---- release records (baseline) */

#include "store/baseline.h"

static void sample_record(db_baseline *b, const char *name, const char *text)
{
	memset(b, 0, sizeof *b);
	snprintf(b->name, sizeof b->name, "%s", name);
	snprintf(b->workload, sizeof b->workload, "llama3-70b-serve");
	snprintf(b->system, sizeof b->system, "trn2.48xlarge");
	snprintf(b->created_at, sizeof b->created_at, "2026-12-01T00:00:00Z");
	b->criteria = (char *)"tpot_ms<=50";
	b->tolerance = (char *)"*=1%";
	b->record = (char *)text;
	baseline_sha256(text, strlen(text), b->sha256);
}

static int log_check(db *d, int id, int frozen, int passed, int failed, const char *tool, err *e)
{
	db_check_row c;
	memset(&c, 0, sizeof c);
	c.baseline_id = id;
	c.frozen = frozen;
	c.passed = passed;
	c.failed = failed;
	snprintf(c.tool, sizeof c.tool, "%s", tool);
	return db_baseline_check_add(d, &c, NULL, e);
}

static int raw_try(const char *path, const char *sql, char *msg, size_t n)
{
	sqlite3 *h;
	char *m = NULL;
	int rc;
	cr_assert_eq(sqlite3_open(path, &h), SQLITE_OK);
	rc = sqlite3_exec(h, sql, NULL, NULL, &m);
	snprintf(msg, n, "%s", m ? m : "");
	sqlite3_free(m);
	sqlite3_close(h);
	return rc;
}

Test(db, baseline_records_are_chained_and_never_overwritten)
{
	tmp_store t;
	db *d;
	db_baseline a, b, again, got, *rows;
	int found, n;
	char chain[DB_SHA_HEX];
	err e = {0};
	tmp_init(&t);
	d = open_ok(t.path);
	sample_record(&a, "r1", "{\"a\":1}");
	cr_assert_eq(db_baseline_add(d, &a, NULL, &e), 0, "%s", e.msg);
	cr_assert_str_eq(a.prev_sha256, baseline_genesis);
	baseline_chain(baseline_genesis, a.sha256, chain);
	cr_assert_str_eq(a.chain_sha256, chain);
	sample_record(&b, "r2", "{\"b\":2}");
	cr_assert_eq(db_baseline_add(d, &b, NULL, &e), 0, "%s", e.msg);
	cr_assert_str_eq(b.prev_sha256, a.chain_sha256, "the second links to the first");
	/* The same name again: refused, naming it, and nothing is added. */
	sample_record(&again, "r1", "{\"c\":3}");
	cr_assert_neq(db_baseline_add(d, &again, NULL, &e), 0);
	cr_assert(strstr(e.msg, "baseline 'r1' exists (recorded 2026-12-01T00:00:00Z"), "%s", e.msg);
	cr_assert_eq(db_baseline_list(d, &rows, &n, &e), 0, "%s", e.msg);
	cr_assert_eq(n, 2);
	cr_assert_str_eq(rows[0].record, "{\"a\":1}");
	cr_assert_str_eq(rows[1].name, "r2");
	cr_assert_eq(rows[1].checks, 0);
	db_baseline_free(rows, n);
	/* The check log keeps the newest check beside the record. */
	cr_assert_eq(log_check(d, a.id, 0, 1, 0, "0.1.0 (x)", &e), 0, "%s", e.msg);
	cr_assert_eq(log_check(d, a.id, 1, 0, 2, "0.1.0 (x)", &e), 0, "%s", e.msg);
	cr_assert_eq(db_baseline_get(d, "r1", &got, &found, &e), 0, "%s", e.msg);
	cr_assert(found);
	cr_assert_eq(got.checks, 2);
	cr_assert(!got.check_passed && got.check_frozen && got.check_failed == 2);
	cr_assert_str_eq(got.criteria, "tpot_ms<=50");
	db_baseline_release(&got);
	cr_assert_eq(db_baseline_get(d, "nope", &got, &found, &e), 0);
	cr_assert_not(found);
	db_close(d);
	tmp_release(&t);
}

Test(db, baseline_rows_refuse_update_and_delete)
{
	tmp_store t;
	db *d;
	db_baseline a;
	char msg[256];
	err e = {0};
	tmp_init(&t);
	d = open_ok(t.path);
	sample_record(&a, "r1", "{\"a\":1}");
	cr_assert_eq(db_baseline_add(d, &a, NULL, &e), 0, "%s", e.msg);
	cr_assert_eq(log_check(d, a.id, 0, 1, 0, "t", &e), 0, "%s", e.msg);
	db_close(d);
	cr_assert_neq(raw_try(t.path, "UPDATE baseline SET record = '{\"a\":2}'", msg, sizeof msg), SQLITE_OK);
	cr_assert_str_eq(msg, "baseline records are immutable");
	cr_assert_neq(raw_try(t.path, "DELETE FROM baseline", msg, sizeof msg), SQLITE_OK);
	cr_assert_str_eq(msg, "baseline records are immutable");
	cr_assert_neq(raw_try(t.path, "UPDATE baseline_check SET passed = 0", msg, sizeof msg), SQLITE_OK);
	cr_assert_str_eq(msg, "baseline checks are append-only");
	cr_assert_neq(raw_try(t.path, "DELETE FROM baseline_check", msg, sizeof msg), SQLITE_OK);
	d = open_ok(t.path);
	{
		db_baseline got;
		int found;
		cr_assert_eq(db_baseline_get(d, "r1", &got, &found, &e), 0);
		cr_assert_str_eq(got.record, "{\"a\":1}");
		cr_assert_eq(got.checks, 1);
		db_baseline_release(&got);
	}
	db_close(d);
	tmp_release(&t);
}

Test(db, price_catalog_of_a_row)
{
	tmp_store t;
	db *d;
	db_import_result r;
	price_row p;
	int found;
	char path[PRICE_PATH_MAX], sha[DB_SHA_HEX];
	err e = {0};
	db_query q = {"p5.48xlarge", PRICE_ON_DEMAND, "us-east-1", NULL};
	tmp_init(&t);
	d = open_ok(t.path);
	import_ok(d, "catalogs/aws.csv", &r);
	cr_assert_eq(db_price_find(d, &q, &p, &found, &e), 0, "%s", e.msg);
	cr_assert(found);
	cr_assert_eq(db_price_catalog(d, &p, path, sizeof path, sha, &found, &e), 0, "%s", e.msg);
	cr_assert(found);
	cr_assert_str_eq(path, "catalogs/aws.csv");
	cr_assert_eq(strlen(sha), 64);
	snprintf(p.as_of, sizeof p.as_of, "1999-01-01");
	cr_assert_eq(db_price_catalog(d, &p, path, sizeof path, sha, &found, &e), 0);
	cr_assert_not(found);
	db_close(d);
	tmp_release(&t);
}

Test(db, two_processes_record_at_once)
{
	/* Two processes each add 10 records under their own names at the same moment: all 20
	 * are stored, and the chain is one line (each links to the row before it). */
	tmp_store t;
	int go[2];
	pid_t kid[2];
	db *d;
	db_baseline *rows;
	int n;
	err e = {0};
	tmp_init(&t);
	db_close(open_ok(t.path));
	cr_assert_eq(pipe(go), 0);
	for (int k = 0; k < 2; k++) {
		kid[k] = fork();
		cr_assert_geq(kid[k], 0);
		if (kid[k] == 0) {
			char b;
			db *me = NULL;
			err ke = {0};
			close(go[1]);
			if (read(go[0], &b, 1) != 0)
				_exit(3);
			if (db_open(t.path, NULL, NULL, &me, &ke) != 0)
				_exit(1);
			for (int i = 0; i < 10; i++) {
				db_baseline r;
				char name[32], text[64];
				snprintf(name, sizeof name, "p%d-%d", k, i);
				snprintf(text, sizeof text, "{\"k\":%d,\"i\":%d}", k, i);
				sample_record(&r, name, text);
				if (db_baseline_add(me, &r, NULL, &ke) != 0) {
					fprintf(stderr, "child %d: %s\n", k, ke.msg);
					_exit(2);
				}
			}
			db_close(me);
			_exit(0);
		}
	}
	close(go[0]);
	close(go[1]);
	for (int k = 0; k < 2; k++) {
		int status;
		cr_assert_eq(waitpid(kid[k], &status, 0), kid[k]);
		cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child %d failed", k);
	}
	d = open_ok(t.path);
	cr_assert_eq(db_baseline_list(d, &rows, &n, &e), 0, "%s", e.msg);
	cr_assert_eq(n, 20);
	for (int i = 0; i < n; i++) {
		char chain[DB_SHA_HEX];
		cr_assert_str_eq(rows[i].prev_sha256, i ? rows[i - 1].chain_sha256 : baseline_genesis);
		baseline_chain(rows[i].prev_sha256, rows[i].sha256, chain);
		cr_assert_str_eq(rows[i].chain_sha256, chain);
	}
	db_baseline_free(rows, n);
	db_close(d);
	tmp_release(&t);
}

Test(db, a_verified_price_wins_over_a_cheaper_unverified_one)
{
	/* us-central1 at 43.07 is marked unverified, us-east4 at 87.83 is not: the cheapest-region
	 * lookup takes the verified one; a region asked for, or a pricing model with only an
	 * unverified row, still gets the unverified price. */
	tmp_store t;
	db *d;
	db_import_result r;
	price_row p;
	int found;
	err e = {0};
	db_query q = {"a3-highgpu-8g", PRICE_ON_DEMAND, NULL, NULL};
	tmp_init(&t);
	d = open_ok(t.path);
	import_ok(d, "tests/catalogs/good/unverified-cheaper.csv", &r);
	cr_assert_eq(db_price_find(d, &q, &p, &found, &e), 0, "%s", e.msg);
	cr_assert(found);
	cr_assert_float_eq(p.usd_per_hour, 87.83247, 1e-9);
	cr_assert(price_verified(&p));
	q.region = "us-central1";
	cr_assert_eq(db_price_find(d, &q, &p, &found, &e), 0, "%s", e.msg);
	cr_assert_float_eq(p.usd_per_hour, 43.06615, 1e-9);
	cr_assert_not(price_verified(&p));
	q.region = NULL;
	q.model = PRICE_SPOT;
	cr_assert_eq(db_price_find(d, &q, &p, &found, &e), 0, "%s", e.msg);
	cr_assert(found);
	cr_assert_float_eq(p.usd_per_hour, 20.0, 1e-9);
	db_close(d);
	tmp_release(&t);
}

/* ---- issue 21: prices as history, the sealed head, the chained check log */

static const char drop_triggers[] =
	"DROP TRIGGER baseline_no_update; DROP TRIGGER baseline_no_delete; DROP TRIGGER baseline_check_no_update;"
	"DROP TRIGGER baseline_check_no_delete; DROP TRIGGER price_no_update; DROP TRIGGER price_no_delete;"
	"DROP TRIGGER catalog_no_update; DROP TRIGGER catalog_no_delete; DROP TRIGGER chain_head_no_delete;";

Test(db, prices_and_catalogs_refuse_update_and_delete)
{
	tmp_store t;
	db *d;
	db_import_result r;
	db_catalog *cats;
	int n;
	char msg[256];
	err e = {0};
	tmp_init(&t);
	d = open_ok(t.path);
	import_ok(d, "tests/catalogs/good/history-1.csv", &r);
	/* The rows stored from a catalog hash to what its import wrote. */
	cr_assert_eq(db_catalog_list(d, &cats, &n, &e), 0, "%s", e.msg);
	cr_assert_eq(n, 1);
	cr_assert_str_eq(cats[0].computed, cats[0].rows_sha256);
	cr_assert_eq(cats[0].stored, cats[0].added);
	free(cats);
	db_close(d);
	cr_assert_neq(raw_try(t.path, "UPDATE price SET usd_per_hour = 1", msg, sizeof msg), SQLITE_OK);
	cr_assert(strstr(msg, "prices are history"), "%s", msg);
	cr_assert_neq(raw_try(t.path, "DELETE FROM price", msg, sizeof msg), SQLITE_OK);
	cr_assert(strstr(msg, "prices are history"), "%s", msg);
	cr_assert_neq(raw_try(t.path, "UPDATE catalog SET path = 'x'", msg, sizeof msg), SQLITE_OK);
	cr_assert_str_eq(msg, "imported catalogs are history");
	cr_assert_neq(raw_try(t.path, "DELETE FROM chain_head", msg, sizeof msg), SQLITE_OK);
	/* An attacker who drops the triggers: the rows no longer hash to the import's hash. */
	raw_exec(t.path, drop_triggers);
	raw_exec(t.path, "UPDATE price SET usd_per_hour = usd_per_hour / 2 WHERE id = 1");
	d = open_ok(t.path);
	cr_assert_eq(db_catalog_list(d, &cats, &n, &e), 0, "%s", e.msg);
	cr_assert_str_neq(cats[0].computed, cats[0].rows_sha256);
	free(cats);
	db_close(d);
	tmp_release(&t);
}

Test(db, the_head_seals_records_and_checks)
{
	tmp_store t;
	db *d;
	db_baseline a, b, c;
	db_head h;
	db_check_row *rows;
	char why[512];
	int n;
	err e = {0};
	baseline_key key = {"0123456789abcdef", 16}, other = {"fedcba9876543210", 16};
	tmp_init(&t);
	d = open_ok(t.path);
	cr_assert_eq(db_head_get(d, &h, &e), 0, "%s", e.msg);
	cr_assert(h.present && h.records == 0 && h.checks == 0, "a new store has its head");
	cr_assert_str_eq(h.mode, "sha256");
	sample_record(&a, "r1", "{\"a\":1}");
	cr_assert_eq(db_baseline_add(d, &a, NULL, &e), 0, "%s", e.msg);
	cr_assert_eq(log_check(d, a.id, 0, 1, 0, "t", &e), 0, "%s", e.msg);
	sample_record(&b, "r2", "{\"b\":2}");
	cr_assert_eq(db_baseline_add(d, &b, NULL, &e), 0, "%s", e.msg);
	cr_assert_eq(db_head_get(d, &h, &e), 0);
	cr_assert(h.records == 2 && h.checks == 1);
	cr_assert_str_eq(h.record_head, b.chain_sha256);
	cr_assert_eq(db_head_problem(&h, NULL, why, sizeof why), 0, "%s", why);
	/* The check log is chained: the first check links to the genesis. */
	cr_assert_eq(db_check_list(d, &rows, &n, &e), 0);
	cr_assert_eq(n, 1);
	cr_assert_str_eq(rows[0].prev_sha256, baseline_genesis);
	cr_assert_str_eq(rows[0].chain_sha256, h.check_head);
	cr_assert_str_eq(rows[0].record_sha256, a.sha256);
	free(rows);
	/* A key for an unkeyed chain with records: refused, nothing written. */
	sample_record(&c, "r3", "{\"c\":3}");
	cr_assert_neq(db_baseline_add(d, &c, &key, &e), 0);
	cr_assert(strstr(e.msg, "the store's chain is not keyed (2 records, 1 checks)"), "%s", e.msg);
	db_close(d);
	/* The newest record deleted behind the tool's back: the head no longer matches, and the
	 * next record is refused rather than chained onto the cut. */
	raw_exec(t.path, drop_triggers);
	raw_exec(t.path, "DELETE FROM baseline WHERE name = 'r2'");
	d = open_ok(t.path);
	cr_assert_neq(db_baseline_add(d, &c, NULL, &e), 0);
	cr_assert(strstr(e.msg, "the chain head says 2 records and 1 checks"), "%s", e.msg);
	db_close(d);
	tmp_release(&t);
	/* A keyed store: the head is an HMAC; without the key, or with another, nothing is added. */
	tmp_init(&t);
	d = open_ok(t.path);
	sample_record(&a, "k1", "{\"a\":1}");
	cr_assert_eq(db_baseline_add(d, &a, &key, &e), 0, "%s", e.msg);
	cr_assert_eq(db_head_get(d, &h, &e), 0);
	cr_assert_str_eq(h.mode, "hmac-sha256");
	cr_assert_eq(db_head_problem(&h, &key, why, sizeof why), 0, "%s", why);
	cr_assert_eq(db_head_problem(&h, NULL, why, sizeof why), 2);
	cr_assert_eq(db_head_problem(&h, &other, why, sizeof why), 2);
	cr_assert(strstr(why, "is not this store's key"), "%s", why);
	sample_record(&b, "k2", "{\"b\":2}");
	cr_assert_neq(db_baseline_add(d, &b, NULL, &e), 0);
	cr_assert(strstr(e.msg, "set ROOFCOST_RECORD_KEY"), "%s", e.msg);
	cr_assert_neq(db_baseline_add(d, &b, &other, &e), 0);
	cr_assert_eq(db_baseline_add(d, &b, &key, &e), 0, "%s", e.msg);
	{
		/* The link is HMAC-SHA256(key, prev || sha256), not the unkeyed chain. */
		char link[DB_SHA_HEX], plain[DB_SHA_HEX];
		baseline_link(&key, a.chain_sha256, b.sha256, link);
		baseline_chain(a.chain_sha256, b.sha256, plain);
		cr_assert_str_eq(b.chain_sha256, link);
		cr_assert_str_neq(b.chain_sha256, plain);
	}
	db_close(d);
	tmp_release(&t);
}

Test(db, a_version_3_store_migrates_with_its_chains_sealed)
{
	tmp_store t;
	db *d;
	db_baseline a;
	db_head h;
	db_import_result r;
	db_catalog *cats;
	db_check_row *rows;
	char why[512];
	int n;
	err e = {0};
	tmp_init(&t);
	d = open_ok(t.path);
	import_ok(d, "tests/catalogs/good/history-1.csv", &r);
	sample_record(&a, "r1", "{\"a\":1}");
	cr_assert_eq(db_baseline_add(d, &a, NULL, &e), 0, "%s", e.msg);
	cr_assert_eq(log_check(d, a.id, 0, 1, 0, "t", &e), 0, "%s", e.msg);
	cr_assert_eq(log_check(d, a.id, 1, 0, 3, "t", &e), 0, "%s", e.msg);
	db_close(d);
	/* Back to schema 3 as roofcost wrote it: no head, no check links, no rows hash. */
	raw_exec(t.path, drop_triggers);
	raw_exec(t.path, "DROP TABLE chain_head; ALTER TABLE catalog DROP COLUMN rows_sha256;"
		 "ALTER TABLE baseline_check DROP COLUMN prev_sha256; ALTER TABLE baseline_check DROP COLUMN chain_sha256;"
		 "CREATE TRIGGER baseline_check_no_update BEFORE UPDATE ON baseline_check "
		 "BEGIN SELECT RAISE(ABORT, 'baseline checks are append-only'); END; PRAGMA user_version = 3;");
	d = open_ok(t.path);
	cr_assert_eq(db_schema_version(d), 4);
	cr_assert_eq(db_head_get(d, &h, &e), 0, "%s", e.msg);
	cr_assert(h.present && h.records == 1 && h.checks == 2);
	cr_assert_str_eq(h.record_head, a.chain_sha256);
	cr_assert_eq(db_head_problem(&h, NULL, why, sizeof why), 0, "%s", why);
	cr_assert_eq(db_check_list(d, &rows, &n, &e), 0);
	cr_assert_eq(n, 2);
	cr_assert_str_eq(rows[1].prev_sha256, rows[0].chain_sha256);
	cr_assert_str_eq(rows[1].chain_sha256, h.check_head);
	free(rows);
	cr_assert_eq(db_catalog_list(d, &cats, &n, &e), 0);
	cr_assert_str_eq(cats[0].computed, cats[0].rows_sha256);
	free(cats);
	db_close(d);
	tmp_release(&t);
}

Test(db, an_import_into_a_removed_store_stores_nothing)
{
	tmp_store t;
	db *d;
	price_catalog c;
	db_import_result r;
	char p[128];
	err e = {0};
	tmp_init(&t);
	d = open_ok(t.path);
	/* The folder emptied under an open store (rm -rf of a CI workspace): SQLite would write to
	 * the unlinked file and report success. */
	unlink(t.path);
	snprintf(p, sizeof p, "%s-wal", t.path);
	unlink(p);
	snprintf(p, sizeof p, "%s-shm", t.path);
	unlink(p);
	cr_assert_eq(price_catalog_load(&c, "tests/catalogs/good/history-1.csv", &e), 0, "%s", e.msg);
	cr_assert_neq(db_import(d, &c, &r, &e), 0);
	cr_assert(strstr(e.msg, "the store was removed while in use"), "%s", e.msg);
	price_catalog_release(&c);
	db_close(d);
	tmp_release(&t);
}

Test(db, a_stored_future_price_is_not_yet_the_price)
{
	/* A store from before imports refused a future as_of: its row is the price from its date,
	 * not today (eval would have moved to it, and to its region). */
	tmp_store t;
	db *d;
	db_import_result r;
	price_row p;
	int found;
	err e = {0};
	db_query now = {"p5.48xlarge", PRICE_ON_DEMAND, "us-east-1", NULL}, later = now;
	later.as_of = "2099-12-31";
	tmp_init(&t);
	d = open_ok(t.path);
	import_ok(d, "tests/catalogs/good/history-1.csv", &r);
	db_close(d);
	raw_exec(t.path, "INSERT INTO price (catalog_id, line, provider, instance, region, pricing_model, usd_per_hour,"
		 " unit, accelerators, as_of, source) VALUES (1, 9, 'aws', 'p5.48xlarge', 'us-east-1', 'on-demand', 1,"
		 " 'instance', 8, '2099-01-01', 'future')");
	d = open_ok(t.path);
	cr_assert_eq(db_price_find(d, &now, &p, &found, &e), 0, "%s", e.msg);
	cr_assert(found);
	cr_assert_str_neq(p.as_of, "2099-01-01");
	cr_assert_eq(db_price_find(d, &later, &p, &found, &e), 0, "%s", e.msg);
	cr_assert_str_eq(p.as_of, "2099-01-01");
	db_close(d);
	tmp_release(&t);
}
