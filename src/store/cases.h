/* cases: a validation case file (DESIGN §7) loaded and predicted, for `validate` and for
 * anything else that holds the model to published measurements (the workloads that say which
 * case they reproduce, the intervals of models/intervals.ini).
 *
 * Loading parses every row strictly first ("FILE:LINE: column: reason", the ranges of lim.h
 * before any arithmetic), then loads each distinct system once and each framework once per
 * distinct `settings` cell (the cell set over the file: an unknown key is an error at the
 * row's line), then predicts every row in sample. A row whose system or framework cannot be
 * loaded is kept with ok = 0 and the loader's message as its reason, and counts as skipped.
 * The fitting and out-of-sample work on the loaded rows is engine/fit's. Nothing here prints. */
#ifndef ROOFCOST_CASES_H
#define ROOFCOST_CASES_H

#include "base/err.h"
#include "engine/fit.h"
#include "model/fw.h"
#include "model/hw.h"
#include "model/interval.h"

enum { CASES_PATH_MAX = 1024 };

typedef struct cases_set {
	char path[CASES_PATH_MAX];
	fit_row *rows;              /* owned; rows[i].sys and .fw point into the caches */
	int n;
	hw_calibs *ks;              /* models/calibration.ini (owned) */
	fit_set *fs;                /* ks and the frameworks' [calibration] values (owned) */
	hw_system **sys;            /* the distinct systems (owned) */
	int nsys;
	fw_framework **fw;          /* the distinct frameworks with their settings (owned) */
	fw_framework **fw_unfit;    /* fw[k] without the values its version fitted (owned; NULL: none) */
	int nfw;
} cases_set;

/* Loads and predicts the cases of path with the data of models_dir into out. Returns 0, or
 * nonzero with e set (nothing is kept then). The caller releases out with cases_release. */
int cases_load(const char *path, const char *models_dir, cases_set *out, err *e);

/* Frees what s owns; s may be zeroed or released already. */
void cases_release(cases_set *s);

/* The index of the first row with case_id id, or -1. */
int cases_find(const cases_set *s, const char *id);

/* A shipped workload that claims a published run ([workload] reproduces = CASE_ID), one row
 * per metric the case publishes. */
typedef struct cases_repro {
	char workload[HW_NAME_MAX];
	char case_id[VAL_ID_MAX];
	val_metric metric;
	double measured;            /* the case's published value */
	double case_pred;           /* the case predicted from its own cells */
	double pred, lo, hi;        /* the workload evaluated as eval would, and its interval */
	int ok;                     /* 1: the measured value lies in [lo, hi] */
	char why[FIT_REASON_MAX];   /* what differs, when not */
} cases_repro;

/* Every workload of workloads_dir that names a case of s: evaluated on the case's system with
 * its own plan, each metric of the case against the measured value, within the interval of the
 * case's calibration group (iv; NULL: the workload must match the measurement exactly). A plan
 * whose chip count is not the case's, or a case id the file does not have, fails with why.
 * Returns the count written to out (at most max), or -1 with e set (a workload that does not
 * load). */
int cases_reproduce(const cases_set *s, const char *models_dir, const char *workloads_dir, const interval_table *iv,
		    cases_repro *out, int max, err *e);

#endif
