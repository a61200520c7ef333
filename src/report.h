/* report: one evaluation's result as JSON (cJSON) or as a readable text block, shared by
 * eval and compare. Holds no engine logic: it formats train_result / infer_result together
 * with the hardware figures' sources. */
#ifndef ROOFCOST_REPORT_H
#define ROOFCOST_REPORT_H

#include <stdio.h>

#include "hw.h"
#include "infer.h"
#include "train.h"
#include "wl.h"

typedef struct report_eval {
	const hw_system *sys;
	const wl_workload *w;
	const train_result *train;   /* exactly one of train / infer is set */
	const infer_result *infer;
} report_eval;

/* Returns a new cJSON object (caller frees with cJSON_Delete), NULL if out of memory.
 * Declared as void * so that only files that include cJSON see its type. */
void *report_json(const report_eval *r);

/* Writes the readable text form. */
void report_text(const report_eval *r, FILE *fp);

/* The note printed while communication is not priced. */
extern const char report_comm_note[];

#endif
