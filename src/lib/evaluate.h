/* evaluate: one evaluation of a workload on a system with one layout, as `roofcost eval` runs it:
 * the set-up (setup_load), the training step or the server's steady state, its price and cost
 * per delivered unit, the calibration interval, and disaggregated prefill/decode pools when the
 * workload asks for them; and its JSON (what `eval --format json` prints and the library's face
 * returns). The CLI prints the text from the same result. No printing here. */
#ifndef ROOFCOST_EVALUATE_H
#define ROOFCOST_EVALUATE_H

#include "engine/infer.h"
#include "engine/rank.h"
#include "engine/train.h"
#include "lib/home.h"
#include "lib/setup.h"
#include "model/hw.h"
#include "model/interval.h"
#include "model/wl.h"
#include "store/db.h"

/* One evaluation, filled by evaluate_run; released with evaluate_release. It must not move
 * while rep is in use (rep points into it). */
typedef struct evaluate_result {
	hw_system *sys;
	wl_workload *w;
	plan plan;                  /* the layout as evaluated */
	train_result tr;            /* training (rep.train) */
	infer_result ir;            /* serving (rep.infer) */
	rank_quote cost;
	interval_status cal;
	rank_view rep;              /* what show_text and show_json print */
	int has_disagg;             /* serving with disagg: dis and dcost are set */
	disagg_result *dis;
	rank_quote *dcost;
} evaluate_result;

/* Evaluates o->workload on o->system with o's options; prices from the store (opened into
 * *store on first need). serving_only (may be NULL) names an option that applies to serving
 * workloads only ("--loads"): a training workload is then a usage error, before anything is
 * evaluated. Returns 0, or nonzero with e set; out is filled as far as it got either way:
 * release it. */
int evaluate_run(const home_paths *paths, db **store, const setup_opts *o, const char *serving_only,
		 evaluate_result *out, err *e);

void evaluate_release(evaluate_result *out);

/* eval --frontier: every serving layout of system s (replicas filling p->chips) at every load of
 * w's scenario, priced with o's options, into f (rank_frontier). Returns 0 or nonzero with e set. */
int evaluate_frontier(const home_paths *paths, db **store, const setup_opts *o, const hw_system *s,
		      const wl_workload *w, const plan *p, rank_frontier_set *f, err *e);

/* The ops `roofline` shows: training, one micro-batch (and the optimizer step) into a; serving,
 * the prefill of one prompt group into a and the decode step into b, at the workload's requests
 * in flight, else at its operating point. *s1 and *s2 name them ("micro-batch"; "prefill",
 * "decode"; *s2 NULL for training). */
void evaluate_ops(const hw_system *s, const wl_workload *w, const plan *p, ops_list *a, ops_list *b,
		  const char **s1, const char **s2);

/* eval --loads: the closed-loop load curve at loads[0..n-1] into out (infer_curve). Returns 1,
 * or 0 with reason set when the layout cannot serve. */
int evaluate_curve(const hw_system *s, const wl_workload *w, const plan *p, const double *loads, int n,
		   infer_load *out, char *reason, size_t len);

/* The evaluation as a new cJSON object (void * as in show.h; caller frees), NULL if out of
 * memory: show_json of it, with "disaggregated" when it has pools. */
void *evaluate_json(const evaluate_result *r);

#endif
