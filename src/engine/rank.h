/* rank: each system's best layout for a workload, its cost per delivered unit, and the
 * verdict that says why it loses to the first. Shared by compare, report and baseline.
 *
 * Serving: every layout of the system's frontier (frontier.h: tensor and pipeline degrees,
 * attention data parallel for MoE, replicas filling the chip count), each at the highest load
 * that meets the latency limits; the layout with the lowest cost per unit there wins (most
 * tokens/s per chip where there is no price). Training: a sweep of layouts
 * (tp, pp, vpp, sp, micro-batch, ZeRO, recompute) at the chip count, or at every power of two
 * from cmin up to cmax when a range is given, cheapest run first (fewest chip-hours without a
 * price), among the runs that finish within the deadline. A fixed plan is evaluated as given
 * instead.
 *
 * Rows fall into classes, best first: priced, no price, over the budget, missing the latency
 * limits, infeasible. Prices come in through a callback (the command layer looks them up in
 * the store), so this module does no I/O itself. */
#ifndef ROOFCOST_RANK_H
#define ROOFCOST_RANK_H

#include <stddef.h>

#include "base/err.h"
#include "model/hw.h"
#include "model/interval.h"
#include "engine/disagg.h"
#include "engine/frontier.h"
#include "engine/infer.h"
#include "model/plan.h"
#include "engine/cost.h"
#include "model/price.h"
#include "engine/sweep.h"
#include "engine/train.h"
#include "model/wl.h"

enum { RANK_NOTE_MAX = 512 };

/* The price found for a system and what one delivered unit costs with it. */
typedef struct rank_quote {
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
	char note[RANK_NOTE_MAX];     /* why a USD figure is null, or a caveat; "" = none */
	char discount_from[HW_NAME_MAX];/* what the discount was given for: a system, instance or
					   provider name, "all" (--discount PCT); "" = none */
	double rated_w_per_chip;        /* W rated per chip, host share included; NaN = not known */
	char power_note[RANK_NOTE_MAX]; /* when rated_w_per_chip is NaN: the figure missing and why */
	cost_owned_rate owned;          /* PRICE_OWNED: the rate's parts (USD per chip-hour) */
	int user_capex;                 /* PRICE_OWNED: the capex is the user's (--capex) */
	cost_energy energy;             /* power and energy of the result (known = 0: no figure) */
} rank_quote;

typedef struct rank_view {
	const hw_system *sys;
	const wl_workload *w;
	const train_result *train;   /* exactly one of train / infer is set */
	const infer_result *infer;
	const rank_quote *cost;     /* NULL: not costed */
	const interval_status *cal; /* NULL: no interval (models/intervals.ini not read) */
} rank_view;

/* Fills out->have_price, out->price, out->usd_per_chip_hour (or out->note saying why there
 * is none) for system s, out->pricing and out->as_of being set by the caller. Returns 0, or
 * nonzero with e set (the store failed). */
typedef int (*rank_price_fn)(void *ctx, const hw_system *s, const wl_workload *w, rank_quote *out,
			     err *e);

/* A user's own price for one system (--price SYSTEM=USD): it replaces the catalog's. */
typedef struct rank_user_price {
	char system[HW_NAME_MAX];
	double usd_per_chip_hour;    /* USD */
} rank_user_price;

/* A user's own capex quote for one system (--capex SYSTEM=USD[/CHIPS]): USD for `chips`
 * chips with their host (0 = one node of the system). */
typedef struct rank_user_capex {
	char system[HW_NAME_MAX];
	double usd;
	int chips;
} rank_user_capex;

/* A contract discount (--discount): `share` off the catalog prices of `key`, a system name,
 * an instance name or a provider; "" = every catalog price. The most specific one applies:
 * system or instance, then provider, then "". */
typedef struct rank_discount {
	char key[HW_NAME_MAX];
	double share;                /* [0, 1) */
} rank_discount;

typedef struct rank_opts {
	int fixed_plan;          /* 1: evaluate the given layout as is (--plan) */
	int cmin, cmax;          /* serving: chips of one replica; training: the chip counts
				    searched (cmax >= RANK_CHIPS_OPEN: only the given plan's) */
	int total;               /* serving: chips the replicas fill; 0: the given plan's */
	double budget;           /* USD per hour (serving) or per run (training); 0 = none */
	double deadline;         /* training: s the run may take, failures included; 0 = none */
	price_model pricing;     /* the pricing model asked for */
	const char *as_of;       /* "" or NULL = the newest price */
	rank_price_fn price;     /* NULL: nothing is priced */
	void *price_ctx;
	const rank_user_price *user_prices; /* systems the user prices (--price), searched by name */
	int nuser_prices;
	const rank_user_capex *user_capex;  /* systems the user gives a capex (--capex), by name */
	int nuser_capex;
	const rank_discount *discounts;     /* contract discounts on catalog prices (--discount) */
	int ndiscounts;
	sweep_ws *ws;            /* training searches: a workspace kept across systems (NULL: each
				    search allocates its own); one search at a time */
	const interval_table *intervals;    /* NULL: rows carry no interval (models/intervals.ini) */
} rank_opts;

enum { RANK_CHIPS_OPEN = 1 << 30 };

/* RANK_MISSES_SLO: serving misses the latency limits, training the deadline. */
enum { RANK_PRICED, RANK_NO_PRICE, RANK_OVER_BUDGET, RANK_MISSES_SLO, RANK_INFEASIBLE };

typedef struct rank_row {
	hw_system *sys;          /* owned by the caller */
	wl_workload w;           /* the workload as evaluated (ZeRO and recompute as chosen) */
	int klass;               /* RANK_* */
	double key;              /* within the class: lower is better */
	train_result tr;         /* the result of the workload's mode */
	infer_result ir;
	rank_quote cost;
	interval_status cal;     /* its calibration group's status and spread (rank_opts intervals) */
	rank_view rep;           /* points into this row: call rank_bind after moving rows */
	char plan[128];
	char bound[48];
	char verdict[320];
	long long searched;      /* layouts tried */
	int has_disagg;          /* serving with w.disagg on: dis and dcost hold the best split */
	disagg_result dis;
	rank_quote dcost;
	double deadline;         /* training: the deadline it was ranked at (s; 0 = none) */
} rank_row;

/* The interval of the figure r is ranked by in its class (USD per unit when priced, USD per
 * hour over the budget; without a price tokens/s per chip serving, training days), from its
 * calibration group (r->cal). Returns 1 with [*lo, *hi] and the figure's name, 0 when r has no
 * interval. *v gets the figure itself. Pure. */
int rank_key_interval(const rank_row *r, double *v, double *lo, double *hi, const char **name);

/* The note of a ranking about the model's error, into buf ("" when none): that the first two
 * rows of one class are within it (their ranking figures' intervals overlap), and which rows
 * are uncalibrated and why. Pure. */
void rank_error_note(const rank_row *rows, int n, char *buf, size_t len);

/* The chip MTBF (s) with spot interruptions joined: an instance of node_chips chips interrupted
 * every `interval` s adds 1 / (node_chips x interval) failures per chip-second. interval <= 0:
 * chip_mtbf. Pure. */
double rank_spot_mtbf(double chip_mtbf, double interval, int node_chips);

/* Costs one evaluation (exactly one of tr / ir set) with w's [cost] terms; out->pricing,
 * out->as_of and the price fields must be filled (see rank_price_fn), out->node_chips too.
 * Under spot pricing with an interruption interval (out->spot_interval, else the workload's),
 * the interruptions join the failures (train) or stand by as capacity (serving). Pure. */
void rank_cost(const wl_workload *w, const train_result *tr, const infer_result *ir, rank_quote *out);

/* Prices system s into out (o's pricing model and date): the user's price when o has one for
 * s; for PRICE_OWNED the cost of owning it (cost_owned_eval: the user's capex or the system
 * file's, its [power], w's owned terms), or out->note naming the missing figure; else o->price
 * with the most specific of o->discounts taken off its price per chip-hour. Returns 0, or
 * nonzero with e set. */
int rank_price(const rank_opts *o, const hw_system *s, const wl_workload *w, rank_quote *out, err *e);

/* Prices (rank_price) and costs one evaluation into out. Returns 0, or nonzero with e
 * set. */
int rank_price_and_cost(const rank_opts *o, const hw_system *s, const wl_workload *w,
			const train_result *tr, const infer_result *ir, rank_quote *out, err *e);

/* 1 if an inference result is feasible and meets the workload's TTFT and TPOT limits at its
 * SLO percentile. */
int rank_slo_met(const wl_workload *w, const infer_result *r);

/* The serving layouts a search tries (frontier.h): replicas fill o->total chips (else the given
 * plan's), each replica within o->cmin..o->cmax. */
void rank_frontier_space(const rank_opts *o, const plan *given, frontier_space *sp);

enum { RANK_FRONTIER_POINTS = FRONTIER_LAYOUTS_MAX * (FRONTIER_LOADS_MAX + 1) };

/* One system's frontier: its layouts and every load point of each, fastest per user first. */
typedef struct rank_frontier_set {
	plan layouts[FRONTIER_LAYOUTS_MAX];
	int nlayouts;
	frontier_point pts[RANK_FRONTIER_POINTS];
	int n;
	int priced;              /* 1: the points carry USD per unit */
} rank_frontier_set;

/* Prices each point with q (rank_price's quote for its system) into usd_per_unit (NaN without
 * a price). */
void rank_cost_points(const wl_workload *w, const rank_quote *q, frontier_point *pts, int n);

/* The frontier of s for w (frontier.h): every layout of rank_frontier_space (the plan given
 * fills the chips) at every load, priced with o's pricing and marked. Returns 0, or nonzero
 * with e set (the store failed, out of memory). */
int rank_frontier(const wl_workload *w, const plan *given, const rank_opts *o, const hw_system *s,
		  rank_frontier_set *out, err *e);

/* The layouts a training search tries on s (every list but chips, which the caller sets):
 * tp 1 to a node (at most 64), pp 1-64, vpp 1,2, sp 0,1, micro-batch 1,2,4, ZeRO 0-3, each
 * recompute policy, ep 1 to the experts for MoE. */
void rank_train_space(const hw_system *s, const wl_workload *w, sweep_space *sp);

/* Finds r->sys's best layout for w (plan `given` filled: the chips, and the layout when
 * o->fixed_plan) into r. Returns 0, or nonzero with e set (the store failed, out of memory,
 * or no serving layout within o->cmin..o->cmax). */
int rank_system(const wl_workload *w, const plan *given, const rank_opts *o, rank_row *r, err *e);

/* The chips a disaggregated split may take: o->total when given, else the larger of the given
 * plan's chips and s's scale-up domain (where the KV cache moves over the fastest link). */
int rank_disagg_chips(const hw_system *s, const plan *given, const rank_opts *o);

/* The best disaggregated split of s for w (w->disagg) into r->dis, priced into r->dcost like an
 * aggregated result (rank_cost). Returns 0, or nonzero with e set. */
int rank_disagg(const wl_workload *w, const plan *given, const rank_opts *o, rank_row *r, err *e);

/* Sorts rows best first (class, key, system name) and re-binds their reports. */
void rank_sort(rank_row *rows, int n);

/* Points r->rep at r's own system, workload and results. */
void rank_bind(rank_row *r);

/* Writes each row's verdict against the first. */
void rank_verdicts(rank_row *rows, int n, double budget);

/* How far apart in time the prices of rows are: over the rows with a dated price (a catalog
 * row, or an owned price's capex; the user's --price has no date), the oldest and the newest
 * as_of and the days between them. stale: the spread is above threshold_days (the workload's
 * [cost] price_age_days). Pure. */
typedef struct rank_ages {
	int n;                       /* rows with a dated price; 0: no spread (NaN) */
	int oldest, newest;          /* indexes into rows */
	double spread_days;          /* newest - oldest, days; NaN when n = 0 */
	double threshold_days;
	int stale;
	char text[RANK_NOTE_MAX];    /* "prices 182 days apart: ..." when stale, else "" */
} rank_ages;

void rank_price_ages(const rank_row *rows, int n, double threshold_days, rank_ages *out);

/* Days from a price row's as_of to date (YYYY-MM-DD, YYYY-MM or YYYY); NaN if either is
 * no date. */
double rank_price_age_days(const price_row *p, const char *date);

#endif
