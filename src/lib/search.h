/* search: the layout search of `roofcost sweep`: the systems and pricing models it prices into
 * offers, the lists it searches (defaults for those not given, their ranges checked), the size
 * refused beyond --max-layouts, the run (sweep.c) of one shard or of the whole, the merge of
 * shards' JSON into the unsharded answer (a complete set is checked), the shard a batch
 * scheduler's array index names, and the JSON of a result. The CLI prints its tables from the
 * same result; the library's face returns the same JSON. No printing here. */
#ifndef ROOFCOST_SEARCH_H
#define ROOFCOST_SEARCH_H

#include <stdint.h>

#include "engine/sweep.h"
#include "lib/home.h"
#include "lib/setup.h"
#include "model/hw.h"
#include "model/interval.h"
#include "model/wl.h"
#include "store/db.h"

/* Recompute policies by index, as sweep lists and JSON name them. */
extern const char *const search_recompute_names[];

/* What each offer of a sweep is (its system, pricing, price, power) and what the sweep was. */
typedef struct search_names {
	char system[SWEEP_OFFERS_MAX][HW_NAME_MAX];
	char pricing[SWEEP_OFFERS_MAX][24];
	double usd[SWEEP_OFFERS_MAX];
	/* W per chip of each offer's system (NaN: no rated power): drawn (rated x power_share),
	 * drawn at the facility (x PUE), and provisioned (rated x PUE). */
	double w_avg[SWEEP_OFFERS_MAX], w_fac[SWEEP_OFFERS_MAX], w_prov[SWEEP_OFFERS_MAX];
	int n;
	char space[2048];            /* the lists and overrides searched: shards must agree */
	double space_layouts;        /* layouts of the whole space (all shards) */
	char assumptions[RANK_NOTE_MAX * 3]; /* prices, [cost] terms, failures, spot */
	int have_cal;                /* 1: cal holds each offer's calibration group (models/intervals.ini) */
	interval_status cal[SWEEP_OFFERS_MAX];
} search_names;

/* What a table or JSON of the sweep shows: both lists, the top list, or the front. */
enum { SEARCH_TABLE_BOTH, SEARCH_TABLE_TOP, SEARCH_TABLE_PARETO };

/* A sweep's options beyond setup_opts (which gives -w, -s, --set, --price, --discount, --as-of). */
typedef struct search_opts {
	sweep_space space;          /* the lists given; search_prepare fills the others */
	int given[10];              /* 1: list i given (chips tp pp vpp cp ep sp mb zero recompute) */
	const char *chips_text;     /* --chips LIST; NULL: the workload's plan's */
	const char *pricing_text;   /* --pricing MODEL,...|all; NULL: setup_opts' or the workload's */
	int top;                    /* 1..SWEEP_TOP_MAX */
	int threads;                /* >= 1 */
	int shard, nshards;         /* this slice */
	uint64_t max_layouts;       /* a slice larger is refused */
	sweep_progress_fn progress; /* NULL: none */
	void *progress_ctx;
} search_opts;

/* Top 10, a thread per core, the whole space, SWEEP_LAYOUTS_DEFAULT_MAX, nothing given. */
void search_opts_init(search_opts *so);

/* List `name` (chips tp pp vpp cp ep sp mb zero recompute) from "1,2,4", "8-64", "8-64:8" or, for
 * recompute, "none,selective,full" into l. Returns 0 or ERR_USAGE with e set. */
int search_parse_list(const char *name, const char *arg, sweep_list *l, err *e);

/* The shard of a batch scheduler's array job (--shard auto): Slurm's SLURM_ARRAY_TASK_ID with
 * SLURM_ARRAY_TASK_COUNT (or count), else a Kubernetes Indexed Job's JOB_COMPLETION_INDEX with
 * count (the Job's completions, which it does not export). The values are the environment's
 * (NULL: unset); count 0: not given. Returns 0 with *shard and *nshards set, or ERR_USAGE with e
 * set when neither is set, the index is not below the count, or a value is not a number. */
int search_shard_auto(const char *slurm_id, const char *slurm_count, const char *k8s_index, int count,
		      int *shard, int *nshards, err *e);

/* --shard's value: I/N, or auto (auto/N: with N shards), the shard of the array job this runs in,
 * from its environment (search_shard_auto). Returns 0 or ERR_USAGE with e set. */
int search_shard_option(const char *arg, int *shard, int *nshards, err *e);

/* A sweep's result (search_prepare, search_run) or a merge of shards (search_merge). Released
 * with search_release. */
typedef struct search_result {
	wl_workload *w;             /* NULL after a merge */
	hw_system *systems;
	int nsystems;
	search_names *nm;
	sweep_offer *offers;
	sweep_result *res;
	sweep_space space;          /* the lists searched, defaults filled */
	uint64_t total, lo, hi;     /* layouts of the space and of this slice [lo, hi) */
	int threads, shard, nshards;   /* a merge: 0 threads, shard 0 of 1 */
	double secs;                /* the run's wall time */
	char workload[128];
} search_result;

/* Loads the workload and the systems, prices the offers, fills the lists not given and checks
 * them, and the size against so->max_layouts. Returns 0, or nonzero with e set (usage: a
 * serving workload, a bad list, a slice too large). out is filled as far as it got. */
int search_prepare(const home_paths *paths, db **store, const setup_opts *o, const search_opts *so,
		   search_result *out, err *e);

/* Runs the prepared sweep (its slice) into out->res, timing it. Returns 0 or ERR_DATA with e set. */
int search_run(search_result *out, const search_opts *so, err *e);

/* Joins the JSON outputs of the shards of one sweep (files, n of them) into out, as if the space
 * had run whole: one complete set (every shard 0..N-1 once, one space, one workload, the same
 * offers) and the layouts of the space all counted. Returns 0, or ERR_DATA with e set naming the
 * file and what is wrong or missing. */
int search_merge(int n, const char *const *files, int top, search_result *out, err *e);

void search_release(search_result *out);

/* The result as a new cJSON object (void * as in show.h; caller frees): the summary, offers, the
 * top list and the front (table: SEARCH_TABLE_* picks the lists), as `sweep --format json` and
 * `--merge` print them. */
void *search_json(const search_result *r, int table);

/* Peak resident memory of this process, MB (0 if unknown). */
double search_peak_rss_mb(void);

#endif
