/* show: one evaluation's result as JSON (cJSON) or as a readable text block, shared by
 * eval and compare. Holds no engine logic: it formats train_result / infer_result together
 * with the hardware figures' sources, and the price, cost per unit and the assumptions behind
 * them (rank_quote, filled by setup_cost). */
#ifndef ROOFCOST_SHOW_H
#define ROOFCOST_SHOW_H

#include <stddef.h>
#include <stdio.h>

#include "engine/cost.h"
#include "engine/rank.h"
#include "model/hw.h"
#include "engine/infer.h"
#include "base/out.h"
#include "model/price.h"
#include "engine/train.h"
#include "model/wl.h"

/* Returns a new cJSON object (caller frees with cJSON_Delete), NULL if out of memory.
 * Declared as void * so that only files that include cJSON see its type. */
void *show_json(const rank_view *r);

/* The workload's cost terms in one line ("on-demand pricing, utilization 100%, ..."), for
 * tables; train selects "over the run" or "per month of serving". */
void show_terms_text(const rank_quote *c, int train, char *buf, size_t n);

/* Under spot pricing, what is assumed about interruptions ("" otherwise): not modelled, or
 * how the interruption interval feeds the goodput (train) or the standby capacity (serving). */
void show_spot_text(const rank_quote *c, int train, char *buf, size_t n);

/* Appends the fields of a cJSON object (show_json's, declared void * as there) to t as rows
 * "prefix.key.subkey", value: for the csv and md forms. Arrays are left out. */
void show_flat(const void *json, const char *prefix, out_table *t);

/* Adds the fields of DESIGN §6 `calibration` (status, group, rows, note, and the spread) of cal
 * to the cJSON object obj (declared void * as above). */
void show_calibration_fill(void *obj, const interval_status *cal);

/* Adds name: [low, high], the interval of figure v (time: 1 time-like, 0 a rate) from cal, to
 * the cJSON object obj (an `interval` object); high is at most cap when cap > 0 (a share of the
 * peak: MFU, HFU). */
void show_interval_add(void *obj, const char *name, const interval_status *cal, double v, int time, double cap);

/* Writes the readable text form. */
void show_text(const rank_view *r, FILE *fp);

/* A disaggregated split (disagg.h) beside the aggregated result agg (may be NULL), priced by
 * c (may be NULL): the readable block, and a cJSON object (caller frees; void * as above). */
void show_disagg_text(const wl_workload *w, const disagg_result *d, const rank_quote *c, const infer_result *agg,
		      FILE *fp);
void *show_disagg_json(const wl_workload *w, const disagg_result *d, const rank_quote *c);

/* The note printed while communication is not priced. */
extern const char show_comm_note[];

#endif
