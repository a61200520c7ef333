/* fit: calibrated values fitted on published measurements, and the error the model makes on
 * rows it was not fitted on.
 *
 * A calibration (models/calibration.ini, hw_calib) is one engine parameter of a chip family,
 * fitted on the validation rows of its kind and family (and framework list): the value at
 * which the median of the rows' log errors, taken in the sense of speed (predicted / measured
 * for rates, measured / predicted for times), is zero. Speed grows with the calibrated
 * efficiency, so that median is monotone and bisection finds it.
 *
 * Out of sample: leave one source out (every calibration refitted without the rows of one
 * source document, the `source_group` column, then those rows predicted; DESIGN §6
 * `out_of_sample`) and leave one framework out (the same by framework). A calibration with no
 * row left falls back to its prior. The spread of the out-of-sample errors of a calibration
 * group (kind x chip family x framework) is what a prediction's interval is made of.
 *
 * Pure: the rows hold loaded systems and frameworks (owned by the caller); prediction copies
 * a system to set the values being tried. No I/O. */
#ifndef ROOFCOST_FIT_H
#define ROOFCOST_FIT_H

#include "engine/validate.h"
#include "model/fw.h"
#include "model/hw.h"

enum { FIT_REASON_MAX = 768, FIT_REFITS_MAX = 512, FIT_GROUPS_MAX = 128, FIT_FW_MAX = 64 };

/* A value at the level of one stack: a framework file's [calibration] train_sustained share
 * for one chip family, fitted on that framework's training rows on the family. */
typedef struct fit_fwcal {
	char name[FW_NAME_MAX + HW_NAME_MAX + 2];  /* "nemo-mlperf@hopper" */
	char framework[FW_NAME_MAX];
	char family[HW_NAME_MAX];
	char path[HW_TEXT_MAX];     /* the framework file that holds it */
	double value, prior, lo, hi;
} fit_fwcal;

/* Everything a fit can move: the chip-level calibrations of models/calibration.ini (values
 * 0 .. ks->n - 1) and the stack-level shares of the framework files (ks->n ..). */
typedef struct fit_set {
	const hw_calibs *ks;
	fit_fwcal fw[FIT_FW_MAX];
	int nfw;
} fit_set;

/* One validation row and its predictions. */
typedef struct fit_row {
	val_case c;
	const hw_system *sys;       /* loaded, calibrations of the file applied (caller's) */
	const fw_framework *fw;     /* loaded, the row's settings over it (caller's) */
	const fw_framework *fw_unfit; /* fw with the [serve] keys its version fitted on its own rows
				       at its base's values (fw_unfitted; caller's), what the row is
				       predicted with out of sample; NULL: fw fitted none */
	char family[HW_NAME_MAX];   /* the system's chip family */
	int ok;                     /* 1: predicted (pred, err_pct) */
	int mem_miss;               /* predicted although the memory model rejects the layout */
	double pred, err_pct;       /* in sample: with the values of the file */
	int oos_ok;                 /* 1: predicted with the calibrations refitted without its source */
	double oos_pred, oos_err_pct;
	char oos_refits[FIT_REFITS_MAX]; /* "name=value" of what was refitted without its source */
	char reason[FIT_REASON_MAX];
} fit_row;

/* Summary of the absolute errors of some rows (percent; NaN when n = 0). */
typedef struct fit_stats {
	int n, skipped, mem_misses;
	double median, mean, max;
	double signed_median;       /* median of the signed errors: the bias */
} fit_stats;

/* Which rows a summary counts: kind 1 train, 0 infer, -1 all; the text fields NULL or "" =
 * any; oos 1: the out-of-sample errors instead of the in-sample ones. */
typedef struct fit_filter {
	int kind;
	const char *framework, *family, *group;
	int oos;
} fit_filter;

/* The text fields rows are grouped by. */
typedef enum fit_field { FIT_BY_FRAMEWORK, FIT_BY_FAMILY, FIT_BY_GROUP } fit_field;

/* Rows left out of a fit: those of one framework, or of one source group (NULL = none). */
typedef struct fit_leave {
	const char *framework;
	const char *group;
} fit_leave;

/* What leaving one framework out does to its rows. */
typedef struct fit_lofo {
	char framework[FW_NAME_MAX];
	int kind;
	fit_stats s;                /* the framework's rows with calibrations refitted without them */
	char refits[FIT_REFITS_MAX];/* "name=value" of each refitted calibration */
} fit_lofo;

/* 1 if name is an item of the comma list (spaces around items ignored). */
int fit_listed(const char *list, const char *name);

/* 1 for a metric that is a time (a faster chip makes it smaller). */
int fit_metric_is_time(val_metric m);

/* The fit set of ks and the [calibration] entries of the frameworks fws[0..n) (each file's
 * entries once). */
void fit_set_init(fit_set *s, const hw_calibs *ks, const fw_framework *const *fws, int n);

/* The number of values of s (chip-level, then stack-level). */
int fit_nvals(const fit_set *s);

/* Value i's name, its file value, and whether it is fitted (not measured or a prior). */
const char *fit_val_name(const fit_set *s, int i);
double fit_val_value(const fit_set *s, int i);
int fit_val_fitted(const fit_set *s, int i);

/* Predicts row r with the values of s set to vals (NULL: r->sys and r->fw as loaded). Returns
 * 1 with *pred set, 0 if the row cannot be predicted. */
int fit_predict(const fit_row *r, const fit_set *s, const double *vals, double *pred);

/* The log error of pred against r's measurement in the sense of speed (> 0: predicted faster). */
double fit_speed_log_err(const fit_row *r, double pred);

/* 1 if row r takes part in fitting value i of s, leave aside. A chip-level value is fitted on
 * the rows of its kind and family (its framework list, when it has one); a stack-level value on
 * its framework's training rows on its family. */
int fit_uses(const fit_set *s, int i, const fit_row *r, const fit_leave *leave);

/* Fits value i of s (the others at vals) on its rows less those of leave. Returns the value,
 * or its prior when no row is left; *used gets the row count, *stacks (may be NULL) the number
 * of distinct frameworks among them. */
double fit_value(const fit_row *rows, int n, const fit_set *s, const double *vals, int i,
		 const fit_leave *leave, int *used, int *stacks);

/* The summary of the rows f selects. */
fit_stats fit_summarize(const fit_row *rows, int n, const fit_filter *f);

/* The distinct values of a text field over the predicted-or-not rows of one kind (-1 any), in
 * first-seen order, into out (pointers into rows). Returns the count (at most max). */
int fit_distinct(const fit_row *rows, int n, int kind, fit_field by, const char **out, int max);

/* Leave one framework out, for every framework of every kind, into out (at most max). Returns
 * the count. */
int fit_lofo_all(const fit_row *rows, int n, const fit_set *s, fit_lofo *out, int max);

/* Leave one source out: for every source group, every calibration that any of its rows feeds
 * is refitted without the group, and the group's rows are predicted with the refitted values
 * (rows of a group no calibration uses keep their in-sample prediction: nothing was fitted on
 * them). Fills oos_* of every row. Returns the number of groups. */
int fit_loso(fit_row *rows, int n, const fit_set *s);

/* The q-th percentile (0..100, linear between order statistics) of v[0..n) (sorted here). */
double fit_percentile(double *v, int n, double q);

/* The 10th and 90th percentile of the out-of-sample speed errors (percent: > 0 predicted
 * faster than measured) of the rows of kind, family and framework (NULL = any framework).
 * Returns the row count (0: *p10 and *p90 untouched). */
int fit_spread(const fit_row *rows, int n, int kind, const char *family, const char *framework, double *p10,
	       double *p90);

/* Rows a (family, framework) needs for its own spread; fewer share the family's. */
enum { FIT_GROUP_MIN_ROWS = 5 };

/* One calibration group's spread: what models/intervals.ini holds. */
typedef struct fit_group {
	int train;
	char family[HW_NAME_MAX];
	char framework[FW_NAME_MAX];   /* "" = every stack of the family ("*" for the kind's rows) */
	int rows;
	double p10, p90;               /* percent: out-of-sample speed errors (> 0: predicted fast) */
	int calibrated;                /* 0: no rows of its own (a prior) */
	char from[HW_NAME_MAX];        /* uncalibrated: the family whose spread it takes */
	double widen;                  /* uncalibrated: the widening, the median |log oos error| of from's rows */
	char sources[FIT_REFITS_MAX];  /* the source groups of its rows */
} fit_group;

/* The groups of the rows: per kind, every family with rows (all its stacks), every (family,
 * framework) with at least FIT_GROUP_MIN_ROWS rows, the kind's rows as a whole ("*"), and for
 * each `kind = prior` calibration of a family without rows of the kind, that family,
 * uncalibrated: the spread of its from entry's family, widened on both sides in log space by
 * the median absolute log out-of-sample error of that family's rows (how far a borrowed value is
 * from the rows it was not fitted on). Call fit_loso first. Returns the count (at most max). */
int fit_groups(const fit_row *rows, int n, const fit_set *s, fit_group *out, int max);

#endif
