/* interval: prediction intervals and calibration status, looked up per calibration group.
 *
 * models/intervals.ini holds, per calibration group (kind x chip family x framework, or a
 * family's stacks together), the 10th and 90th percentile of the out-of-sample errors of its
 * validation rows (each predicted with every calibrated value refitted without its own source
 * document), and whether the group has rows of its own (calibrated) or borrows a nearer
 * family's value (uncalibrated). `roofcost validate tests/validation/public.csv --intervals`
 * writes it; make test fails when it is stale. Looking a group up costs nothing per layout:
 * the table is read once per command, the status once per system.
 *
 * Errors in percent are in the sense of speed (> 0: the model predicted faster than measured),
 * so a predicted rate R has the interval [R / (1 + p90), R / (1 + p10)] and a time T
 * [T (1 + p10), T (1 + p90)] (p as fractions). Plain values; the loader is strict. */
#ifndef ROOFCOST_INTERVAL_H
#define ROOFCOST_INTERVAL_H

#include "base/err.h"
#include "model/hw.h"

enum { INTERVAL_GROUPS_MAX = 128, INTERVAL_TEXT_MAX = 1024 };

typedef struct interval_group {
	char name[HW_NAME_MAX * 2];     /* the section: "train.hopper.torchtitan" */
	int train;                      /* 1 training rows, 0 serving rows */
	char family[HW_NAME_MAX];       /* "*": every row of the kind */
	char framework[HW_NAME_MAX];    /* "" = the family's stacks together */
	int calibrated;
	int rows;
	double p10, p90;                /* percent, speed sense */
	char from[HW_NAME_MAX];         /* uncalibrated: the family whose spread it takes */
	double widen;                   /* uncalibrated: the log widening applied */
	char sources[INTERVAL_TEXT_MAX];
} interval_group;

typedef struct interval_table {
	interval_group g[INTERVAL_GROUPS_MAX];
	int n;
	char path[INTERVAL_TEXT_MAX];
	int read;                       /* 1: the file exists and was read */
} interval_table;

/* A figure's calibration status (DESIGN §6 `calibration`) and spread. */
typedef struct interval_status {
	int have;                       /* 0: no spread known (no table): no interval */
	int calibrated;
	char group[HW_NAME_MAX * 3];    /* "hopper x torchtitan", "hopper (its stacks)" */
	int rows;
	double p10, p90;                /* percent, speed sense */
	char note[INTERVAL_TEXT_MAX];
} interval_status;

/* Loads models_dir/intervals.ini into t (absent: an empty table, t->read 0). Returns 0, or
 * nonzero with e set ("file:line: key: reason"). */
int interval_load(const char *models_dir, interval_table *t, err *e);

/* The status of a prediction of kind (1 train, 0 infer) on a chip of family with framework:
 * the (family, framework) group when it has its own; else the family's stacks together
 * (calibrated: the framework has no rows of its own there); else the family's uncalibrated
 * group (a borrowed prior, widened); else the kind's rows as a whole widened by their own
 * median error, uncalibrated (no row and no nearer family). Pure. */
void interval_lookup(const interval_table *t, int train, const char *family, const char *framework,
		     interval_status *out);

/* A spread in percent as the file writes it, to 0.01: the same double whichever text it was
 * read from (the file, or the JSON of a sweep shard read back). */
double interval_round(double pct);

/* The interval of a predicted figure v (time 1: smaller is faster, a time or a cost; 0: a
 * rate), with p10 taken as at most 0 and p90 as at least 0, so that it holds v itself. Without a
 * spread (s->have 0): [v, v]. */
void interval_apply(const interval_status *s, double v, int time, double *lo, double *hi);

#endif
