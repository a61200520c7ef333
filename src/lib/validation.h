/* validation: the run of `roofcost validate`: the published measurements of a case file predicted
 * (cases_load), each row again out of sample (every calibrated value refitted without the rows
 * of its own source, fit_loso) and each framework left out (fit_lofo_all); the threshold checks;
 * one case explained (its evaluation and what was picked for the cells the source left empty);
 * and the JSON of each, which `validate --format json` prints and the library's face returns.
 * The CLI prints its tables from the same results. No printing here. */
#ifndef ROOFCOST_VALIDATION_H
#define ROOFCOST_VALIDATION_H

#include <stddef.h>

#include "base/err.h"
#include "engine/disagg.h"
#include "engine/fit.h"
#include "engine/infer.h"
#include "engine/rank.h"
#include "engine/train.h"
#include "model/interval.h"
#include "model/plan.h"
#include "model/wl.h"
#include "store/cases.h"

/* A case file predicted, filled by validation_run; released with validation_release. */
typedef struct validation_result {
	cases_set cs;
	int ngroups;                /* the sources left out in turn (fit_loso) */
	fit_lofo *lf;               /* leave-one-framework-out, nlf of them */
	int nlf;
} validation_result;

/* What validation_run does after predicting every row in sample. */
enum { VALIDATION_OOS = 1,   /* each row out of sample (fit_loso) */
       VALIDATION_LOFO = 2   /* each framework left out (fit_lofo_all) */
};

/* Loads and predicts the cases of csv with the data of models_dir, and what `what` (VALIDATION_*
 * bits) asks. Returns 0, or nonzero with e set (nothing is kept then). */
int validation_run(const char *csv, const char *models_dir, int what, validation_result *out, err *e);

void validation_release(validation_result *r);

/* The whole validation as a new cJSON object (void * as in show.h; caller frees), NULL if out
 * of memory: every case with its interval from iv (may be NULL), the summaries per kind,
 * framework, chip family and source, leave-one-framework-out and out of sample. */
void *validation_json(const validation_result *r, const interval_table *iv);

/* The threshold checks: chk[oos][train] = {median, max} in percent (a negative median: no
 * check). Each that falls short (skipped rows fail a check) adds its message, as the tool prints
 * it after "roofcost: ", to msg[0 .. 3]. Returns how many fell short. */
int validation_check(const validation_result *r, double chk[2][2][2], char msg[4][256]);

/* The rows one --explain shows at most (a case id is one row per metric it publishes). */
enum { VALIDATION_EXPLAIN_MAX = 256 };

/* --explain: the rows of case id with a system and framework (the first max of their indexes into
 * idx). Returns their count, or -1 with e set ("no case 'x'; did you mean ...?") when there is
 * none. */
int validation_explain_rows(const validation_result *r, const char *id, int *idx, int max, err *e);

/* One row's evaluation behind its prediction, filled by validation_explain; released with
 * validation_explained_release. It must not move while rep is in use. */
typedef struct validation_explained {
	const fit_row *row;
	wl_workload *w;
	plan p;
	char picked[1024];          /* what was picked for the cells the source left empty */
	char at_load[INFER_BATCH_REASON_MAX]; /* a latency row of a case with a throughput row: the
					       model's server at the run's own load (c.load), not
					       what the row is predicted at; "" = none */
	train_result tr;
	infer_result ir;
	disagg_result *dis;         /* a disaggregated row's pools, else NULL */
	rank_view rep;              /* what show_text and show_json print */
} validation_explained;

/* Evaluates row r (with a system and framework) as its prediction did. Returns 0, or nonzero
 * when out of memory. */
int validation_explain(const fit_row *r, validation_explained *x);

void validation_explained_release(validation_explained *x);

/* One explained row as a new cJSON object (void *; caller frees), NULL if out of memory. */
void *validation_explained_json(const validation_explained *x);

/* Every row of case id explained, {"cases": [...]}, as a new cJSON object (caller frees), or
 * NULL with e set. */
void *validation_explain_json(const validation_result *r, const char *id, err *e);

#endif
