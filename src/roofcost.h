/* roofcost.h: the library's face (libroofcost.a, libroofcost.so).
 *
 * Capacity planning and price-performance of AI accelerators, in-process: open a data root
 * (chips, systems, networks, workloads, frameworks and bundled price catalogs, with the store of
 * prices beside it), then evaluate a workload on a system, compare systems, sweep layouts, or
 * list what the data root holds. Results come as the JSON the command-line tool prints with
 * --format json (the same code builds both) or, for an evaluation, as a plain struct. Errors are
 * values: a function returns 0 or the tool's exit code (1 data/IO/store, 2 usage) and
 * roofcost_errmsg says what went wrong, as the tool says it. Nothing here prints, exits or keeps
 * global state; one handle is not to be used by two threads at once, two handles are
 * independent. Strings given in are copied or used only during the call. A handle keeps the
 * files every system shares (collectives, calibration) and the calibration intervals as it first
 * read them: open another to see them changed on disk.
 *
 * Ownership: roofcost_open returns a handle the caller closes with roofcost_close; every
 * char ** out-parameter receives a string the caller frees with roofcost_free. */
#ifndef ROOFCOST_H
#define ROOFCOST_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped when a struct below changes layout or a function its meaning. */
#define ROOFCOST_API_VERSION 1

/* What the shared library exports: these functions, nothing else. */
#if defined(__GNUC__) && !defined(ROOFCOST_STATIC)
#define ROOFCOST_API __attribute__((visibility("default")))
#else
#define ROOFCOST_API
#endif

/* The library's version, "0.1.0". */
ROOFCOST_API const char *roofcost_version(void);

/* A data root and its store; opaque. */
typedef struct roofcost roofcost;

/* Opens the data root `home` (a folder holding models/, workloads/ and catalogs/; NULL:
 * $ROOFCOST_HOME, else the installed $(PREFIX)/share/roofcost) with the store `store` (a SQLite
 * file; NULL: $ROOFCOST_DB, else $XDG_DATA_HOME/roofcost/roofcost.db, created with the bundled
 * catalogs on first use). Returns the handle, or NULL with the reason in err (errlen bytes, may
 * be 0) when the folder is not a data root or its calibration intervals do not load. */
ROOFCOST_API roofcost *roofcost_open(const char *home, const char *store, char *err, size_t errlen);

/* Closes h and what it opened (NULL is fine). */
ROOFCOST_API void roofcost_close(roofcost *h);

/* The message of the last call on h that failed ("" after one that succeeded), as the tool
 * prints it after "roofcost: "; valid until the next call on h. */
ROOFCOST_API const char *roofcost_errmsg(const roofcost *h);

/* The data root and store h uses (for messages). */
ROOFCOST_API const char *roofcost_home(const roofcost *h);
ROOFCOST_API const char *roofcost_store(const roofcost *h);

/* What to evaluate, compare or sweep; roofcost_opts_init gives none of them. Every field is
 * what the tool's option of the same name takes (roofcost COMMAND --help). */
typedef struct roofcost_opts {
	const char *system;         /* -s: a system name or .ini path; compare and sweep: a comma
				       list, or "all" */
	const char *workload;       /* -w: a workload name or .ini path */
	const char *plan;           /* --plan: "tp=8,pp=4,dp=2,..." over the workload's layout;
				       NULL: the workload's (compare: searched) */
	const char *chips;          /* --chips: "N" (eval, compare), "MIN-MAX" (compare), a list
				       "64-1024" or "64,128" (sweep); NULL: the workload's */
	const char *const *sets;    /* --set KEY=VALUE overrides, in order, nsets of them */
	int nsets;
	const char *framework;      /* --framework: a framework name or .ini path; NULL: the workload's */
	const char *pricing;        /* --pricing: on-demand, spot, reserved-1y, ..., owned (sweep: a
				       list, or all); NULL: the workload's */
	const char *as_of;          /* --as-of YYYY-MM-DD: the newest price at or before; NULL: newest */
	const char *const *prices;  /* --price SYS=USD (per chip-hour), nprices of them */
	int nprices;
	const char *discount;       /* --discount [KEY=]PCT,...; NULL: none */
	const char *budget;         /* compare --budget USD; NULL: none */
	const char *deadline;       /* compare --deadline DAYS; NULL: none */
	/* sweep */
	const char *tp, *pp, *vpp, *cp, *ep, *sp, *mb, *zero, *recompute; /* lists; NULL: defaults */
	int top;                    /* --top K; 0: 10 */
	int threads;                /* --threads N; 0: one per core */
	const char *shard;          /* --shard I/N, auto or auto/N; NULL: the whole space */
} roofcost_opts;

ROOFCOST_API void roofcost_opts_init(roofcost_opts *o);

/* One evaluation (roofcost eval): its JSON into *json. Returns 0 or the exit code. */
ROOFCOST_API int roofcost_eval_json(roofcost *h, const roofcost_opts *o, char **json);

/* The headline figures of one evaluation. Times in s, rates per s, money in USD; a figure the
 * evaluation does not have (a training figure of a serving workload, a price that is not
 * known) is NaN. */
typedef struct roofcost_result {
	int feasible;               /* 0: the layout does not divide, fit the system or the memory */
	char reason[256];           /* why not, "" when feasible */
	int training;               /* 1 training, 0 serving */
	char system[64], workload[64], plan[128];
	int chips;
	double mem_per_chip_gib;
	double step_time_s, tokens_per_s, model_tflops_per_chip, mfu, hfu, train_days; /* training */
	double ttft_ms, tpot_ms, ttft_tail_ms, tpot_tail_ms, tokens_per_s_per_chip;     /* serving */
	double usd_per_hour, usd_per_unit;
	char unit[32];              /* what usd_per_unit buys: run, mtok, example */
} roofcost_result;

/* One evaluation into *out. Returns 0 or the exit code. */
ROOFCOST_API int roofcost_eval(roofcost *h, const roofcost_opts *o, roofcost_result *out);

/* Every system of o->system at its best layout, ranked (roofcost compare): JSON into *json.
 * Returns 0 or the exit code. */
ROOFCOST_API int roofcost_compare_json(roofcost *h, const roofcost_opts *o, char **json);

/* One layout of a sweep's result: its place, system, layout and figures. */
typedef struct roofcost_point {
	int front;                  /* 0: of the top list (cheapest first), 1: of the Pareto front */
	int rank;                   /* 1-based within its list */
	char system[64], pricing[32], recompute[16];
	int chips, tp, pp, vpp, dp, cp, ep, sp, micro_batch, zero;
	double step_time_s, tokens_per_s, mfu, mem_per_chip_gib, run_time_s, goodput;
	double usd_per_run;         /* NaN without a price */
	double chip_hours;
} roofcost_point;

/* Called for each point of a sweep's result, the top list first; a nonzero return stops the
 * calls (the sweep has already run). */
typedef int (*roofcost_sweep_fn)(void *ctx, const roofcost_point *p);

/* A layout search (roofcost sweep) of a training workload over o's systems and lists (or one
 * shard of it): fn (may be NULL) sees each point of the result, and *json (json may be NULL)
 * receives the whole result as `sweep --format json` prints it. Returns 0 or the exit code. */
ROOFCOST_API int roofcost_sweep(roofcost *h, const roofcost_opts *o, roofcost_sweep_fn fn, void *ctx, char **json);

/* Joins the JSON outputs of the n shards of one sweep (files) into *json, the unsharded answer;
 * a set that is not complete is an error that names what is missing. Returns 0 or the code. */
ROOFCOST_API int roofcost_sweep_merge(roofcost *h, const char *const *files, int n, int top, char **json);

/* What the data root holds (roofcost list WHAT --format json): systems, chips, networks,
 * workloads, frameworks or prices. Returns 0 or the exit code. */
ROOFCOST_API int roofcost_list_json(roofcost *h, const char *what, char **json);

/* Predictions against published measurements (roofcost validate CASES --format json): every row
 * of the case file `cases` (a path; DESIGN §7 columns) predicted in sample, out of sample (every
 * calibrated value refitted without the rows of the row's own source) and with each framework
 * left out, with the summaries. JSON into *json. Returns 0 or the exit code. */
ROOFCOST_API int roofcost_validate_json(roofcost *h, const char *cases, char **json);

/* A release record checked again (roofcost baseline check NAME --format json): the record `name`
 * in h's store (NULL: every record, as --all), evaluated again with today's tool and data, or
 * from its frozen inputs and price (frozen 1), prices as at as_of (YYYY-MM-DD; NULL: as
 * recorded), every figure judged against the record's tolerance and criteria (fail_any 1: a
 * figure beyond its tolerance fails either way, as --fail-on any). Each check is logged in the
 * store; a keyed store needs ROOFCOST_RECORD_KEY in the environment, as the tool does. JSON into
 * *json, also when a figure fell short. Returns 0 (every figure passes), 3 (a figure fell short,
 * or there are no records), 1 (a record or the store cannot be read or was changed) or 2; then
 * roofcost_errmsg says what, each problem the tool would print, "; " between them. */
ROOFCOST_API int roofcost_baseline_check_json(roofcost *h, const char *name, int frozen, const char *as_of,
					      int fail_any, char **json);

/* Frees a string the library returned (NULL is fine). */
ROOFCOST_API void roofcost_free(void *p);

#ifdef __cplusplus
}
#endif

#endif
