/* show: one evaluation's result as JSON (cJSON) or as a readable text block, shared by
 * eval and compare. Holds no engine logic: it formats train_result / infer_result together
 * with the hardware figures' sources, and the price, cost per unit and the assumptions behind
 * them (show_cost, filled by cli_cost). */
#ifndef ROOFCOST_SHOW_H
#define ROOFCOST_SHOW_H

#include <stddef.h>
#include <stdio.h>

#include "cost.h"
#include "hw.h"
#include "infer.h"
#include "out.h"
#include "price.h"
#include "train.h"
#include "wl.h"

enum { SHOW_NOTE_MAX = 512 };

/* The price found for a system and what one delivered unit costs with it. */
typedef struct show_cost {
	price_model pricing;            /* the pricing model asked for */
	char as_of[PRICE_DATE_MAX];     /* the date asked for; "" = the newest price */
	int have_price;
	price_row price;                /* when have_price */
	double usd_per_chip_hour;       /* NaN without a price; after the discount */
	int user_price;                 /* the price is the user's own (--price), not a catalog's */
	double discount;                /* [0, 1): share taken off catalog prices (--discount) */
	int slo_met;                    /* infer: the layout meets the latency limits */
	double prefill_share;           /* infer: share of busy time in prefill */
	wl_cost terms;                  /* the workload's [cost], checkpoint size filled in; under
					   spot interruptions, the chip MTBF (train) or idle headroom
					   (serving) with them */
	int node_chips;                 /* chips of one instance (what a spot interruption takes) */
	double spot_interval;           /* spot: s between interruptions of one instance; 0 = not
					   modelled */
	double standby;                 /* serving under spot: share of capacity down at a time,
					   paid as standby */
	cost_result result;             /* money fields NaN without a price */
	char note[SHOW_NOTE_MAX];     /* why a USD figure is null, or a caveat; "" = none */
} show_cost;

typedef struct show_eval {
	const hw_system *sys;
	const wl_workload *w;
	const train_result *train;   /* exactly one of train / infer is set */
	const infer_result *infer;
	const show_cost *cost;     /* NULL: not costed */
} show_eval;

/* Returns a new cJSON object (caller frees with cJSON_Delete), NULL if out of memory.
 * Declared as void * so that only files that include cJSON see its type. */
void *show_json(const show_eval *r);

/* The workload's cost terms in one line ("on-demand pricing, utilization 100%, ..."), for
 * tables; train selects "over the run" or "per month of serving". */
void show_terms_text(const show_cost *c, int train, char *buf, size_t n);

/* Under spot pricing, what is assumed about interruptions ("" otherwise): not modelled, or
 * how the interruption interval feeds the goodput (train) or the standby capacity (serving). */
void show_spot_text(const show_cost *c, int train, char *buf, size_t n);

/* Appends the fields of a cJSON object (show_json's, declared void * as there) to t as rows
 * "prefix.key.subkey", value: for the csv and md forms. Arrays are left out. */
void show_flat(const void *json, const char *prefix, out_table *t);

/* Writes the readable text form. */
void show_text(const show_eval *r, FILE *fp);

/* The note printed while communication is not priced. */
extern const char show_comm_note[];

#endif
