/* release: `roofcost baseline` below its options and tables (DESIGN §6 "Release records", §8).
 * The evaluation a record replays (its options read as `roofcost eval` reads them, then eval's
 * JSON) and the tool that gives it; a record made (its criteria, frozen, the price's age); one
 * record or every one checked and each check logged; what verify finds; and the JSON of every
 * verb's result, which `baseline VERB --format json` prints and, for a check, the library's face
 * returns. What a record is, how it is frozen, checked, explained and verified is
 * store/record.c's. Nothing here prints: what the tool says on stderr along the way goes to the
 * caller's sink. */
#ifndef ROOFCOST_RELEASE_H
#define ROOFCOST_RELEASE_H

#include <stddef.h>

#include "base/err.h"
#include "engine/rank.h"
#include "lib/home.h"
#include "store/baseline.h"
#include "store/db.h"
#include "store/record.h"

struct cJSON;

/* paths as record.c takes them. */
void release_paths(const home_paths *p, record_paths *r);

/* The tool: version and build, the evaluation (release_evaluate) and the record key (key NULL
 * or "": none). Returns 0, or ERR_USAGE with e set for a key shorter than BASELINE_KEY_MIN. */
int release_tool(record_tool *t, const char *version, const char *build, const char *key, err *e);

/* record_eval_fn: argv[1..] "--NAME=VALUE" as `roofcost eval` takes them (a NAME that is a
 * unique beginning of one is that one), evaluated as it evaluates, with eval's JSON. */
int release_evaluate(void *ctx, const record_paths *rp, int argc, char **argv, db **store, record_eval *ev,
		     err *e);

/* One figure of a record or an evaluation against its criteria. */
typedef struct release_figure {
	const char *name;
	baseline_value v;
	baseline_judgement j;
} release_figure;

/* The figures of mode's results against rules into out (at most max). Returns the count. */
int release_figures(const char *mode, const baseline_rules *rules, const struct cJSON *results,
		    release_figure *out, int max);

/* A record being made: its evaluation, then (when its figures meet the criteria) its row. */
typedef struct release_made {
	baseline_rules rules;
	record_eval *ev;            /* owned */
	release_figure fig[RECORD_FIGURES_MAX];
	int nfig;
	int fell_short;             /* figures that fail the criteria: nothing was recorded */
	db_baseline row;            /* the record written (fell_short 0) */
	double age;                 /* days the price frozen is older than the record; NaN: none */
	char stale[RANK_NOTE_MAX];  /* the warning when older than [cost] price_age_days; "" none */
} release_made;

/* Records `name` in the store (opened for writing into *store) from the eval options in
 * `options` (a JSON array of record_add_option, consumed) under criteria and tolerance (RULES
 * as --criteria and --tolerance take them, "" none). Returns 0 (out->fell_short says whether it
 * was written), or nonzero with e set. Release out with release_made_release. */
int release_record(const home_paths *paths, const record_tool *t, db **store, const char *name,
		   struct cJSON *options, const char *criteria, const char *tolerance, release_made *out, err *e);

void release_made_release(release_made *m);

/* A record made, as JSON (a new cJSON object; NULL if out of memory). */
struct cJSON *release_made_json(const char *name, const release_made *m);

/* What `baseline check` checks. */
typedef struct release_check_opts {
	const char *name;           /* one record; NULL with all */
	int all;                    /* every record */
	int expect;                 /* --expect N (with all): the records the store must hold; -1 none */
	record_check_opts how;      /* frozen, --fail-on any, --as-of */
} release_check_opts;

/* What a check tells its caller as it goes: each record checked, in turn k (from 0: records
 * that cannot be read take their turn too), and what the tool says on stderr: an error (printed
 * as the tool prints an err) or a plain message (printed after "roofcost: " as it is). Any may
 * be NULL. */
typedef struct release_sink {
	void (*checked)(void *ctx, int k, const db_baseline *row, const record_check *c);
	void (*fail)(void *ctx, const err *e);
	void (*say)(void *ctx, const char *msg);
	void *ctx;
} release_sink;

/* How a check went. */
typedef struct release_tally {
	int ran;                    /* 1: the store was read and the records named were tried */
	int n;                      /* records tried */
	int passed, fell_short, unreadable;
	int records_in_store;
} release_tally;

/* Runs `baseline check`: the store opened for reading and its records checked as they are; the
 * record named, or every one, evaluated again and judged, each check logged in the store (one
 * this user cannot write: said, and left as it is); *tally (may be NULL) how it went; *json
 * (json may be NULL) the JSON `check --format json` prints, when it got that far. Returns the
 * exit code: 0 every figure passes, 3 a figure fell short or records are missing (none with all,
 * not --expect N), 1 a record or the store cannot be read or was changed, 2 a usage error; what
 * went wrong is said through sink. */
int release_check(const home_paths *paths, const record_tool *t, const release_check_opts *o,
		  const release_sink *sink, release_tally *tally, struct cJSON **json);

/* `baseline list` as JSON: every record of a with its last check. */
struct cJSON *release_list_json(const record_audit *a);

/* `baseline show` as JSON: row's record (rec, its parsed JSON) with its links. */
struct cJSON *release_show_json(const db_baseline *row, const struct cJSON *rec);

/* `baseline diff`: the figures of two records (ra, rb: their parsed JSON) judged under a's rules. */
typedef struct release_diff {
	release_figure a[RECORD_FIGURES_MAX], b[RECORD_FIGURES_MAX]; /* b[f].j: b against a */
	int n;
	struct cJSON *lines;        /* the inputs, options, price and tool that differ (owned) */
} release_diff;

/* Returns 0, or nonzero with e set (a record that cannot be read, out of memory). Release d
 * with release_diff_release. */
int release_diff_run(const struct cJSON *ra, const struct cJSON *rb, release_diff *d, err *e);
void release_diff_release(release_diff *d);
struct cJSON *release_diff_json(const char *a, const char *b, const release_diff *d);

/* `baseline export -o FILE` and `baseline import` as JSON. */
struct cJSON *release_exported_json(const db_baseline *row, const char *file);
struct cJSON *release_imported_json(const db_baseline *row);

/* `baseline verify`: the log and prices audited beside a's records, the mode the chain is sealed
 * in, and every problem found (expect_head: the head kept outside the store, NULL none). */
typedef struct release_verified {
	record_log_audit log;
	record_price_audit prices;
	char mode[160];
	struct cJSON *problems;     /* strings (owned) */
	int bad;                    /* changed records and problems */
} release_verified;

/* Returns 0, or nonzero with e set. Release v with release_verified_release. */
int release_verify(db *store, const record_tool *t, const record_audit *a, const char *expect_head,
		   release_verified *v, err *e);
void release_verified_release(release_verified *v);
struct cJSON *release_verified_json(const record_audit *a, release_verified *v);

#endif
