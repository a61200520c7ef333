/* sweep: enumerate training layouts, chip counts, systems and pricing models; keep the Pareto
 * front (USD per run against time to train) and the top k, in constant memory.
 *
 * The space is the product of its value lists, walked as one mixed-radix index so that a
 * shard I/N takes the I-th contiguous slice and threads split a slice the same way: results do
 * not depend on the thread or shard count (ties break on the index). Layouts that do not divide
 * are pruned before any arithmetic; the rest are composed from a per-thread cache of
 * train_kernel (one per system, recompute, tp, cp, ep, sp, micro-batch) and costed with
 * cost_train, goodput included. Memory is the kernel cache, the front and the top-k heaps,
 * whatever the number of layouts. The only I/O is none: prices come in as numbers. */
#ifndef ROOFCOST_SWEEP_H
#define ROOFCOST_SWEEP_H

#include <stdint.h>

#include "engine/cost.h"
#include "model/hw.h"
#include "model/plan.h"
#include "engine/train.h"
#include "model/wl.h"

enum { SWEEP_VALUES_MAX = 64, SWEEP_OFFERS_MAX = 128, SWEEP_FRONT_MAX = 4096, SWEEP_TOP_MAX = 1000 };

typedef struct sweep_list {
	int v[SWEEP_VALUES_MAX];
	int n;
} sweep_list;

typedef struct sweep_space {
	sweep_list chips, tp, pp, vpp, cp, ep, sp, mb, zero, recompute;
} sweep_space;

/* One system at one price. */
typedef struct sweep_offer {
	const hw_system *sys;
	int system;                 /* caller's index of the system */
	int pricing;                /* caller's pricing model index */
	double usd_per_chip_hour;   /* NaN: no price (ranked by chip-hours instead) */
	double chip_mtbf;           /* s, with this offer's spot interruptions; 0 = the workload's */
} sweep_offer;

typedef struct sweep_point {
	uint64_t index;             /* position in the space (the tie-break) */
	int offer;
	plan plan;
	int zero, recompute;
	double step_time, tokens_per_s, mfu, mem_gib;
	double run_time;            /* s: the run with goodput */
	double goodput;
	double usd_per_run;         /* NaN without a price */
	double chip_hours;
	double cost;                /* the ranking objective: usd_per_run; chip-hours when no offer
				     * has a price; INFINITY for an unpriced system among priced ones */
} sweep_point;

typedef struct sweep_result {
	uint64_t total;             /* layouts in the slice */
	uint64_t pruned;            /* did not divide or exceed the system */
	uint64_t infeasible;        /* divided but did not fit memory */
	uint64_t evaluated;         /* composed and costed */
	sweep_point top[SWEEP_TOP_MAX];
	int ntop;                   /* sorted: lowest cost first */
	sweep_point front[SWEEP_FRONT_MAX];
	int nfront;                 /* sorted by cost; each faster than every cheaper point */
	int front_truncated;
} sweep_result;

/* What sweeps keep from one run to the next, per thread: the kernel cache, the collective
 * memo, a result and a copy of the workload. A caller that runs many sweeps (compare: one per
 * system) keeps one and names it in each job, so that a sweep allocates and clears nothing;
 * caches are invalidated per run (a generation count), so results never depend on it. One
 * sweep at a time per workspace. */
typedef struct sweep_ws sweep_ws;

/* A new, empty workspace (NULL: out of memory); sweep_ws_free releases it (NULL is fine). */
sweep_ws *sweep_ws_new(void);
void sweep_ws_free(sweep_ws *ws);

/* A result buffer the workspace owns, for a caller that runs one sweep after another (NULL:
 * out of memory). Valid until sweep_ws_free; the next call returns the same buffer. */
sweep_result *sweep_ws_result(sweep_ws *ws);

/* Progress: called from the threads with the layouts done so far (may be NULL). */
typedef void (*sweep_progress_fn)(void *ctx, uint64_t done, uint64_t total);

typedef struct sweep_job {
	const sweep_space *space;
	const wl_workload *w;       /* mode train; its [cost] terms and failure figures apply */
	const sweep_offer *offers;
	int noffers;
	int top_k;                  /* 1..SWEEP_TOP_MAX */
	int threads;                /* >= 1 */
	int shard, nshards;         /* this is shard `shard` of `nshards` (0-based) */
	sweep_progress_fn progress;
	void *progress_ctx;
	sweep_ws *ws;               /* NULL: a workspace for this run alone */
} sweep_job;

/* Layouts in the whole space (all shards); UINT64_MAX when the product does not fit. */
uint64_t sweep_size(const sweep_space *s, int noffers);

/* The indices [*lo, *hi) of shard `shard` of `nshards` equal slices of total layouts. */
void sweep_slice(uint64_t total, int shard, int nshards, uint64_t *lo, uint64_t *hi);

/* The most layouts a sweep runs unless --max-layouts raises it: about seven minutes at the
 * 2.5e6 layouts/s of two cores (make bench); a space of 5e10 would take hours. */
#define SWEEP_LAYOUTS_DEFAULT_MAX 1000000000ULL

/* Runs job into out (caller-owned, about 700 KB; only the lists' used entries are written).
 * Returns 0, or -1 if a thread could not start or memory ran out. */
int sweep_run(const sweep_job *job, sweep_result *out);

/* Merges b into a (same job, other shard): a ends as if both slices had run together. */
void sweep_merge(sweep_result *a, const sweep_result *b, int top_k);

/* Parses "1,2,4" or "8-64" (powers of two from 8 to 64) or "8-64:8" (step 8) into l.
 * Returns 0 or -1. */
int sweep_parse_list(const char *text, sweep_list *l);

#endif
