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

/* The evaluation as a new cJSON object (void * as in show.h; caller frees), NULL if out of
 * memory: show_json of it, with "disaggregated" when it has pools. */
void *evaluate_json(const evaluate_result *r);

#endif
