/* setup: one evaluation's inputs from a front end's options: the workload with its overrides,
 * the system, the layout (the workload's, then --plan, then --chips, then defaults), and how
 * it is priced (the user's prices and discounts, the store's catalogs, the calibration
 * intervals). Shared by every command and by the library's face (roofcost.h): a front end fills
 * setup_opts and calls these; it parses nothing here and prints nothing. */
#ifndef ROOFCOST_SETUP_H
#define ROOFCOST_SETUP_H

#include <stddef.h>

#include "base/err.h"
#include "base/out.h"
#include "engine/infer.h"
#include "engine/rank.h"
#include "engine/train.h"
#include "lib/home.h"
#include "model/hw.h"
#include "model/interval.h"
#include "model/plan.h"
#include "model/wl.h"
#include "store/db.h"

enum { SETUP_SET_MAX = 64, SETUP_PRICE_MAX = 32 };

/* The options setup_option reads, by the codes the CLI's getopt_long gives them (-s, -w, and
 * the long ones), so that every front end takes the same values the same way. */
enum {
	SETUP_OPT_SYSTEM = 's', SETUP_OPT_WORKLOAD = 'w',
	SETUP_OPT_PLAN = 1000, SETUP_OPT_SET, SETUP_OPT_FORMAT, SETUP_OPT_CHIPS, SETUP_OPT_HELP,
	SETUP_OPT_PRICING, SETUP_OPT_AS_OF, SETUP_OPT_FRAMEWORK, SETUP_OPT_PRICE, SETUP_OPT_DISCOUNT,
	SETUP_OPT_WIDE, SETUP_OPT_CAPEX,
	SETUP_OPT_BUDGET = 1100, SETUP_OPT_DEADLINE, SETUP_OPT_DISAGG
};

/* Options shared by eval, roofline and compare. */
typedef struct setup_opts {
	const char *system;            /* -s */
	const char *workload;          /* -w */
	const char *plan_text;         /* --plan */
	int chips;                     /* --chips; 0 = from the plan */
	const char *sets[SETUP_SET_MAX]; /* --set, in order */
	int nsets;
	out_format format;
	int pricing;                   /* --pricing: a price_model, -1 = the workload's */
	const char *as_of;             /* --as-of DATE; NULL = the newest price */
	char framework[HOME_PATH_MAX];  /* --framework NAME|PATH as the override "framework=..."; "" = none */
	rank_user_price prices[SETUP_PRICE_MAX]; /* --price SYSTEM=USD_PER_CHIP_HOUR, in order */
	int nprices;
	rank_user_capex capex[SETUP_PRICE_MAX];  /* --capex SYSTEM=USD[/CHIPS], in order */
	int ncapex;
	rank_discount discounts[SETUP_PRICE_MAX]; /* --discount [KEY=]PCT,..., as shares [0, 1) */
	int ndiscounts;
	int pricing_all;               /* --pricing all (compare: every pricing model per system) */
	int wide;                      /* --wide: text tables keep every column */
} setup_opts;

/* One option's value into o (code: SETUP_OPT_*; the value as a user gives it, "--pricing spot"
 * -> "spot"). Returns 1 if taken, 0 if not one of setup_opts' options, -1 on a bad value (e set,
 * naming the option: "--pricing: 'x' is not one of ..."). The strings must outlive o. */
int setup_option(int code, const char *arg, setup_opts *o, err *e);

/* Starts o with no options given. */
void setup_init(setup_opts *o);

/* Checks that every --price and --capex names a known system: a file in models/hw/systems or
 * one named in -s. Returns 0, or ERR_USAGE with e set ("unknown system ... did you mean ..."). */
int setup_check_prices(const home_paths *paths, const setup_opts *o, err *e);

/* The user's pricing in one line for table footers ("user prices (--price): trn3-ultraserver
 * $4.50 per chip-hour; catalog prices less 10% (--discount)"), "" when there is none. */
void setup_price_terms(const setup_opts *o, char *buf, size_t n);

/* Loads the workload (with --set overrides) and the system, and builds the plan: the
 * workload's [plan], then --plan, then --chips, then defaults (plan_fill). Checks --price
 * (setup_check_prices). */
int setup_load(const home_paths *paths, const setup_opts *o, const char *system,
	      hw_system *sys, wl_workload *w, plan *p, err *e);

/* setup_load of another system with the same options, w as setup_load loaded it (a comparison
 * reads the workload once). */
int setup_load_system(const home_paths *paths, const setup_opts *o, const char *system, const wl_workload *w,
		      hw_system *sys, plan *p, err *e);

/* The calibration status and interval spread of a prediction of w on s (models/intervals.ini),
 * into out; returns out, or NULL when the data folder has no intervals file. */
const interval_status *setup_calibration(const home_paths *paths, const hw_system *s, const wl_workload *w,
				       interval_status *out);

/* Prices one evaluation (exactly one of tr / ir set): the user's --price for the system, else
 * its instance's price in the store (opened into *store on first need, NULL until then) less
 * --discount, then costs a delivered unit with the workload's [cost] terms. A missing instance
 * or price is not an error: out->note says why the USD figures are null. Returns 0, or nonzero
 * with e set (the store failed). */
int setup_cost(const home_paths *paths, db **store, const setup_opts *o, const hw_system *s,
	     const wl_workload *w, const train_result *tr, const infer_result *ir, rank_quote *out,
	     err *e);

/* What the store pricer of rank_opts carries. */
typedef struct setup_pricer {
	const home_paths *paths;
	db **store;
} setup_pricer;

/* Fills ro for ranking w's systems: the pricing of o (or the workload's), --as-of, --plan as a
 * fixed layout, --price and --discount, and prices from the store (opened into *store on first
 * need) through pr, which must outlive ro (and so must o). cmin/cmax/budget are left open for
 * the caller. */
void setup_rank_opts(setup_pricer *pr, const home_paths *paths, db **store, const setup_opts *o,
		   const wl_workload *w, rank_opts *ro);

/* Looks up the price of s's instance in the store for out->pricing at out->as_of (the caller
 * sets both): out->have_price, out->price and out->usd_per_chip_hour, or out->note saying why
 * there is none ("no public price: ..." where the system file says so and the store has no
 * price for it). Neither --price nor --discount: see rank_price. Returns 0, or nonzero with e
 * set (the store failed). */
int setup_price(const home_paths *paths, db **store, const hw_system *s, const wl_workload *w,
	      rank_quote *out, err *e);

/* When no row of a comparison has a price for the pricing model asked for: which pricing
 * models the store holds for the systems compared, and what to do ("--price", "--pricing
 * MODEL"), into buf; "" when some row is priced. Returns 0, or nonzero with e set (the store
 * failed). */
int setup_no_price_note(const home_paths *paths, db **store, const rank_row *rows, int n, const setup_opts *o,
		      char *buf, size_t len, err *e);

/* The ranking options of compare and report: --budget, --deadline, --chips MIN-MAX, --disagg. */
typedef struct setup_rank_args {
	double budget;            /* USD per hour (serving) or per run (training); 0 = none */
	double deadline;          /* days; 0 = none */
	int cmin, cmax, range;    /* --chips MIN-MAX (range 1), or the single --chips N (range 0) */
	char disagg[PLAN_DISAGG_TEXT_MAX + 8]; /* "disagg=SPLIT", given to cli_eval_option as --set */
} setup_rank_args;

void setup_rank_args_init(setup_rank_args *a);

/* A ranking option's value (SETUP_OPT_BUDGET, _DEADLINE, _DISAGG, or _CHIPS as MIN-MAX) into a,
 * or into o (--disagg as --set disagg=SPLIT). Returns 1 if taken, 0 if not one of them, -1 on a
 * bad value (e set). */
int setup_rank_option(int code, const char *arg, setup_opts *o, setup_rank_args *a, err *e);

/* Sets ro's chip bounds, budget and deadline from a and o for workload w with plan p: serving
 * --chips N is the chips the replicas fill (ro->total), MIN-MAX bounds a replica; training
 * searches MIN-MAX or takes N. *fill: the chips serving replicas fill. Returns 0, or ERR_USAGE
 * with e set (--deadline on a serving workload). */
int setup_rank_apply(const setup_rank_args *a, const setup_opts *o, const wl_workload *w, const plan *p,
		   rank_opts *ro, int *fill, err *e);

/* A training run of --chips N (no --plan, no range): the workload's layout with dp filling N,
 * or pure data parallelism where the layout does not divide N. The plan was set up without
 * --chips (a search is not tied to the workload's layout). */
void setup_rank_plan(const setup_rank_args *a, const setup_opts *o, const wl_workload *w, plan *p);

#endif
