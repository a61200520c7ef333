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
	int nfw;
} cases_set;

/* Loads and predicts the cases of path with the data of models_dir into out. Returns 0, or
 * nonzero with e set (nothing is kept then). The caller releases out with cases_release. */
int cases_load(const char *path, const char *models_dir, cases_set *out, err *e);

/* Frees what s owns; s may be zeroed or released already. */
void cases_release(cases_set *s);

/* The index of the first row with case_id id, or -1. */
int cases_find(const cases_set *s, const char *id);

#endif
