/* record: the life of a frozen release record (DESIGN §6 "Release records", §8), apart from
 * the options that start it and the tables that show it (cmd_baseline.c).
 *
 * - Evaluating a record: its options are replayed through the caller's evaluator (which
 *   evaluates as `roofcost eval` would), then this module adds the layout and the interruption
 *   test (cost_interrupt_*) to the results and reads back every input file the evaluation read.
 * - Freezing: one canonical JSON record (tool, inputs with their texts and SHA-256, options,
 *   the price row and its catalog, pricing model, region, layout, results, rules, created_at),
 *   appended to the store's chain.
 * - Checking: evaluating again with today's data (or --frozen, from the frozen texts laid out
 *   in a temporary data folder beside a store that holds only the frozen price), judging every
 *   figure, and for each figure that moved, what moved it: the tool, a frozen input (file and
 *   key) or the price, found by bringing one cause at a time to today (baseline_attribute).
 * - Verifying the stored chain, importing an export document, and the differences of two
 *   records.
 *
 * Errors are values (err); nothing here prints. Strings returned as char * and cJSON objects
 * are the caller's to free. */
#ifndef ROOFCOST_RECORD_H
#define ROOFCOST_RECORD_H

#include <stddef.h>

#include "base/err.h"
#include "engine/infer.h"
#include "engine/rank.h"
#include "engine/train.h"
#include "model/hw.h"
#include "model/plan.h"
#include "model/wl.h"
#include "store/baseline.h"
#include "store/db.h"

struct cJSON;

enum {
	RECORD_INPUTS_MAX = 10,     /* input files one evaluation reads */
	RECORD_OPTIONS_MAX = 96,    /* options a record replays */
	RECORD_FIGURES_MAX = 64,    /* figures one check compares */
	RECORD_PATH_MAX = 1024,
	RECORD_NAME_MAX = 100,      /* a record's name */
	RECORD_FILE_MAX = 16 << 20  /* an input file or an export document */
};

/* Where the data and the store are (the CLI's home_paths, field for field). */
typedef struct record_paths {
	char home[RECORD_PATH_MAX];       /* folder holding models/, workloads/, catalogs/ */
	char models[RECORD_PATH_MAX];
	char workloads[RECORD_PATH_MAX];
	char catalogs[RECORD_PATH_MAX];
	char db[RECORD_PATH_MAX];         /* the store */
	int db_default;
} record_paths;

/* One input file an evaluation read. */
typedef struct record_input {
	const char *role;                 /* workload, network, system, chip, ... (static) */
	const char *dir;                  /* its folder in a data folder: where --frozen writes it */
	char path[RECORD_PATH_MAX];       /* relative to the data folder when inside it */
	char *text;                       /* owned */
	char sha256[BASELINE_SHA_HEX];
} record_input;

/* One evaluation of a record's options. */
typedef struct record_eval {
	hw_system sys;
	wl_workload w;
	plan p;
	train_result tr;
	infer_result ir;
	rank_quote cost;
	int have_catalog;
	char catalog_path[PRICE_PATH_MAX], catalog_sha[BASELINE_SHA_HEX];
	record_input in[RECORD_INPUTS_MAX];
	int nin;
	struct cJSON *results;            /* as stored: eval's JSON + layout + interruption; owned */
} record_eval;

/* The caller's evaluation: argv[1..argc-1] are options "--NAME=VALUE" (argv[0] a program
 * name), over the data folders of paths, with the store *store (opened on first need, NULL
 * until then). Fills ev->sys, w, p, tr (training) or ir (serving), cost, and ev->results
 * with the JSON `roofcost eval` prints (ev owns it). Returns 0, or the error's code with e
 * set (usage errors keep ERR_USAGE). */
typedef int (*record_eval_fn)(void *ctx, const record_paths *paths, int argc, char **argv,
			      db **store, record_eval *ev, err *e);

/* The tool that evaluates: its evaluation, and its version and build (what a record freezes
 * and a check compares). */
typedef struct record_tool {
	record_eval_fn fn;
	void *ctx;
	const char *version, *build;
	baseline_key key;                 /* ROOFCOST_RECORD_KEY (len 0: none): seals and checks links */
} record_tool;

/* 1 if s may name a record: 1-100 of [A-Za-z0-9._-], not starting with '.' or '-'. */
int record_valid_name(const char *s);

/* Appends {"option","value","text","sha256"} for option --name (has_arg 0: a flag) to the
 * options array a. */
void record_add_option(struct cJSON *a, const char *name, int has_arg, const char *value);

/* Evaluates the options array (as record_add_option builds it) through tool into a new *out
 * (free with record_eval_free). Returns 0, or the error's code with e set. */
int record_evaluate(const record_paths *paths, const struct cJSON *options, const record_tool *tool,
		    db **store, record_eval **out, err *e);

void record_eval_free(record_eval *ev);

/* 0 if no record called name is in the store, else ERR_DATA with e saying when the one there
 * was recorded (records are never overwritten). */
int record_name_free(db *store, const char *name, err *e);

/* ERR_USAGE with e set if a rule names a figure the evaluation does not have, else 0. */
int record_rules_known(const record_eval *ev, const baseline_rules *rules, err *e);

/* Freezes ev as record name with options (taken over, freed here) and rules, now, and
 * appends it to the store's chain. Fills *row (release with db_baseline_release; its
 * record is the canonical text). Returns 0, or nonzero with e set (nothing written). */
int record_freeze(db *store, const record_tool *tool, const char *name, const record_eval *ev,
		  struct cJSON *options, const baseline_rules *rules, db_baseline *row, err *e);

/* The record's rules, read back from its canonical texts. Returns 0 or ERR_DATA with e set. */
int record_rules(const struct cJSON *rec, baseline_rules *r, err *e);

/* A record's price row (prices[i]) as a price_row. Returns 0, or nonzero for an unknown
 * pricing model. */
int record_price_of_json(const struct cJSON *j, price_row *p);

/* "aws p5.48xlarge us-east-1 on-demand $98.32/h per instance (8 chips) as_of D (CATALOG)". */
void record_price_text(const price_row *p, const char *catalog, char *buf, size_t n);

/* 1 if two price rows are the same offer, price, as_of and source. */
int record_same_price(const price_row *a, const price_row *b);

/* ---- a store's records, checked */

/* A store's records and head, each record checked: its content hash, canonical form, input
 * hashes, columns against its JSON (a renamed record fails), and its link to the one before
 * under the store's mode (HMAC-SHA256 with the key when keyed). */
typedef struct record_audit {
	db_head head;
	int head_state;                   /* db_head_problem: 0 sound, 1 tampered, 2 key missing or wrong */
	char head_why[512];
	db_baseline *rows;                /* every record, in the order chained */
	int n;
	char (*why)[512];                 /* per record: "" when sound */
	int bad;                          /* records not sound */
	char chain_head[DB_SHA_HEX];      /* the newest record's link (genesis: none) */
	int counts_ok;                    /* the head's counts and newest links are the store's */
	char counts_why[512];
	int absent;                       /* no store at the path, or a 0-byte file (not opened) */
} record_audit;

/* Reads and checks every record and the head of store (NULL: none, a is empty). Returns 0, or
 * nonzero with e set when the store cannot be read. Release a with record_audit_release. */
int record_audit_open(db *store, const record_tool *t, record_audit *a, err *e);
void record_audit_release(record_audit *a);

/* Opens the store at path for a verb that reads records: read-only (it works in a folder this
 * user cannot write) and never created: a missing or empty (0-byte) file is no store (*store
 * NULL, note says which). Returns 0, or nonzero with e set. */
int record_store_open(const char *path, db **store, char *note, size_t n, err *e);

/* The index of record name in a, -1 if none. */
int record_audit_find(const record_audit *a, const char *name);

/* 0 if record i may be used; else ERR_DATA with e saying why: the key is missing or wrong for
 * a keyed store, or the record changed behind the tool's back. */
int record_usable(const record_audit *a, int i, err *e);

/* ---- checking */

typedef struct record_cause {
	char kind[8];                     /* tool, input, price */
	char role[24];
	char path[RECORD_PATH_MAX];
	char label[512];                  /* for the table's why column */
	char detail[8][640];              /* one line each: file, key, old and new value */
	int ndetail;
	baseline_change changes[16];
	int nchanges;
} record_cause;

typedef struct record_check {
	int nfig;
	const char *names[RECORD_FIGURES_MAX];
	baseline_value rec[RECORD_FIGURES_MAX], now[RECORD_FIGURES_MAX];
	baseline_judgement j[RECORD_FIGURES_MAX];
	unsigned why[RECORD_FIGURES_MAX]; /* bit k: cause[k] moved the figure */
	record_cause cause[BASELINE_CAUSES_MAX + 1];  /* [0] the tool, then the data causes */
	int ndata;
	int failed;                       /* figures that fail (baseline_fails) */
	int improved, regressed;          /* figures beyond their tolerance each way (fell short: regressed) */
	int frozen, fail_any;
	char as_of[PRICE_DATE_MAX];       /* check --as-of: prices as at this date ("" as recorded) */
	char tool_rec[160], tool_now[160];
} record_check;

/* How a check runs. */
typedef struct record_check_opts {
	int frozen;                       /* from the frozen inputs and price */
	int fail_any;                     /* 1: a figure beyond its tolerance fails even when improved */
	const char *as_of;                /* prices as at this date (NULL: as recorded) */
} record_check_opts;

/* Checks one stored record (a->rows[i], which must be usable): evaluates it (today's data, or frozen), judges every figure and,
 * for those that moved, finds what moved them. Returns 0 (c->failed says how it went) or
 * nonzero with e set when the record or its inputs cannot be read or evaluated. The names in
 * c point into static strings or into nothing the caller frees. */
int record_check_one(const record_audit *a, int i, const record_paths *paths, const record_tool *tool,
		     db **store, const record_check_opts *o, record_check *c, err *e);

/* The JSON form of a check (the caller frees it). */
struct cJSON *record_check_json(const db_baseline *row, const record_check *c);

/* The why column of figure f: the labels of the causes that moved it. */
void record_why_text(const record_check *c, int f, char *buf, size_t n);

/* 1 if cause k moved some figure. */
int record_cause_used(const record_check *c, int k);

/* A judgement's change column: "", "changed", "+1.23%". */
void record_change_text(const baseline_judgement *j, char *buf, size_t n);

/* A figure's value as JSON. */
struct cJSON *record_value_json(const baseline_value *v);

/* ---- the chain, import and differences */

/* The check log checked link by link, and against the head. */
typedef struct record_log_audit {
	int checks, bad;
	char why[512];                    /* the first problem, "" none */
	char head[DB_SHA_HEX];            /* the newest link */
} record_log_audit;

int record_audit_log(db *store, const record_tool *t, const record_audit *a, record_log_audit *l, err *e);

/* Every catalog's stored rows re-hashed against the hash written at its import. */
typedef struct record_price_audit {
	int catalogs, rows, bad;
	char why[8][512];                 /* the first problems */
	int nwhy;
} record_price_audit;

int record_audit_prices(db *store, record_price_audit *p, err *e);

/* Reads the export document at file and appends its record to the store's chain under the
 * tool's key: a keyed tool needs the document's hmac_sha256 to hold under it, an unkeyed one
 * refuses a keyed document. Fills *row (release with db_baseline_release). Returns 0, or
 * nonzero with e set (nothing written). */
int record_import(db *store, const record_tool *t, const char *file, db_baseline *row, err *e);

/* The export document of a usable record (hmac_sha256 under the tool's key when it has one);
 * NULL if out of memory. */
char *record_export(const record_tool *t, const db_baseline *row);

/* The figures of two records: a's headline figures and rules, then b's. Returns the count. */
int record_diff_figures(const struct cJSON *ra, const struct cJSON *rb, const char **names, int max);

/* The inputs, options, price and tool that differ between two records, one line each, as a
 * new JSON array of strings (NULL if out of memory). */
struct cJSON *record_diff_lines(const struct cJSON *ra, const struct cJSON *rb);

#endif
