/* compare: one workload on several systems, each at its best layout (rank.c), ranked by cost
 * per delivered unit with the verdict that says why each loses to the first, the limits they
 * were ranked at, the notes and the freshness of the prices; and its JSON (what `roofcost
 * compare --format json` prints and the library's face returns). The CLI prints the table from
 * the same result. No printing here. */
#ifndef ROOFCOST_COMPARE_H
#define ROOFCOST_COMPARE_H

#include "engine/rank.h"
#include "engine/sweep.h"
#include "lib/home.h"
#include "lib/setup.h"
#include "model/wl.h"
#include "store/db.h"

enum { COMPARE_TEXT_MAX = 512 };

/* A comparison, filled by compare_run; the caller releases it with compare_release. It
 * must not move while in use (rows point into it, ro at its pricer). */
typedef struct compare_result {
	wl_workload *w0;            /* the workload as loaded */
	hw_system *systems;         /* one per system named */
	rank_row *rows;             /* ranked, best first */
	int nrows, nsystems;
	rank_opts ro;               /* the options the systems were ranked with */
	setup_pricer pricer;
	sweep_ws *ws;               /* the training searches' workspace */
	rank_ages ages;             /* the freshness of the prices compared */
	int fill;                   /* serving: the chips the replicas fill */
	double budget;              /* USD (--budget); 0 = none */
	char limits[COMPARE_TEXT_MAX];   /* what the systems are ranked at (the line above the table) */
	char note[RANK_NOTE_MAX];        /* the concurrency cap, spot, model errors; "" = none */
	char price_note[RANK_NOTE_MAX];  /* when no system compared has a price; "" = none */
} compare_result;

/* Compares w on the systems of o->system (a list or "all") with o's options and ra's ranking
 * options, prices from the store (opened into *store on first need). Returns 0, or nonzero
 * with e set. out is filled as far as it got either way: release it. */
int compare_run(const home_paths *paths, db **store, const setup_opts *o, const setup_rank_args *ra,
		compare_result *out, err *e);

/* Frees what compare_run allocated (out itself is the caller's). */
void compare_release(compare_result *out);

/* 1: a serving row whose result the workload's concurrency cap decided. */
int compare_capped(const rank_row *r);

/* The comparison as a new cJSON object (void * so that only who includes cJSON sees its type;
 * caller frees with cJSON_Delete), NULL if out of memory. */
void *compare_json(const compare_result *c);

#endif
