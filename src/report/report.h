/* report: the report generator behind `roofcost report` (DESIGN §6 "Reports").
 *
 * For one workload on several systems it ranks each system's best layout (rank.c), gathers
 * the numbers behind each plot, and writes a folder a planner can attach to a decision:
 * index.html (one self-contained page, html.c), report.md (the same page, plots linked),
 * plots/NAME.{gp,dat,svg,png} (plot.c draws them with gnuplot), data/NAME.csv (every number
 * behind every table and plot) and inputs/ (the input files echoed, the tool version, the
 * command, the price rows used as a catalog). The same inputs give the same bytes: no dates,
 * no paths of the output folder, gnuplot's version line normalised.
 *
 * Serving plots: output tokens/s per chip against tokens/s per user (1/TPOT) over load, one
 * curve per system, the TPOT limit drawn and the chosen point marked; cost per million tokens
 * against tokens/s per user; cost per million tokens at the latency limits per system and
 * pricing model; TTFT and TPOT against load; the step broken down; memory per chip against
 * capacity; the roofline with the ops. Training: USD (and chip-hours) per run against days to
 * train, each system's sweep front; scaling from one node to 131,072 chips (step time, MFU,
 * goodput, USD per run); the step broken down; memory per chip; the roofline. Each section
 * opens with one sentence computed from its data.
 *
 * The folder is written beside DIR under a temporary name and renamed to DIR at the end, so
 * that a failure leaves nothing half written; DIR must not exist or be empty. Without gnuplot
 * the plots' .gp and .dat are still written and the pages show the tables; the result's note
 * says what is missing. The data functions below are pure and tested on their own. */
#ifndef ROOFCOST_REPORT_H
#define ROOFCOST_REPORT_H

#include "base/err.h"
#include "model/hw.h"
#include "engine/infer.h"
#include "engine/mem.h"
#include "engine/ops.h"
#include "model/plan.h"
#include "engine/rank.h"
#include "engine/roof.h"
#include "engine/train.h"
#include "model/wl.h"

enum { REPORT_PATH_MAX = 4096, REPORT_SYSTEMS_MAX = 16, REPORT_INPUTS_MAX = 64, REPORT_LOADS_MAX = 24,
       REPORT_PARTS = 7, REPORT_MEM_PARTS = 5, REPORT_NOTE_MAX = 1024 };

/* A file echoed into inputs/. */
typedef struct report_input {
	const char *path;           /* where to read it */
	const char *name;           /* its path under inputs/ ("models/hw/chips/h200.ini") */
} report_input;

typedef struct report_opts {
	const char *dir;            /* the folder to write: absent or empty */
	const wl_workload *w;       /* as loaded, overrides applied */
	hw_system *const *systems;  /* nsys systems, in the order asked for (their colours) */
	const plan *plans;          /* per system: the chips, and the layout when rank.fixed_plan */
	int nsys;                   /* 1..REPORT_SYSTEMS_MAX */
	rank_opts rank;             /* pricing model, date, fixed plan, the pricer */
	const char *version;        /* the tool's version */
	const char *command;        /* the command line without -o DIR, for inputs/command.txt */
	const char *pricing_note;   /* the user's pricing (--price, --discount) in one line; "" = none */
	const report_input *inputs;
	int ninputs;
	const char *gnuplot;        /* the gnuplot to run; NULL: look on $PATH */
} report_opts;

typedef struct report_result {
	char index[REPORT_PATH_MAX]; /* DIR/index.html */
	int plots;                   /* plots written (.gp and .dat) */
	int drawn;                   /* of which drawn (.svg and .png) */
	char note[REPORT_NOTE_MAX];  /* what the user should know (gnuplot missing); "" = none */
} report_result;

/* Writes the report folder. Returns 0, or nonzero with e set (nothing is left at DIR then). */
int report_write(const report_opts *o, report_result *r, err *e);

/* Asks a report_write in progress to stop: its gnuplot child is killed and it returns an error
 * with nothing written (its partial folder removed). Async-signal-safe: for a signal handler
 * (SIGINT, SIGTERM). A report killed outright (SIGKILL) leaves its partial folder, named with
 * its process id, which the next report_write into the same place removes; its gnuplot child
 * dies with it (Linux: PR_SET_PDEATHSIG). */
void report_cancel(void);

/* --- the numbers behind the plots --- */

/* One point of a serving load curve: `load` requests in flight per replica. */
typedef struct report_load {
	int load;
	int feasible;
	int slo_met;                /* the mean TTFT and TPOT meet the workload's limits */
	double tokens_per_s;        /* output tokens/s, all replicas */
	double per_chip;            /* output tokens/s per chip */
	double per_user;            /* tokens/s one user sees: 1 / TPOT */
	double ttft, ttft_tail;     /* s: mean and at the SLO percentile */
	double tpot, tpot_tail;
	double usd_per_unit;        /* at the price given; NaN without one */
	double per_mw;              /* output tokens/s per MW of provisioned facility power (rated
				       W of the chips with their hosts x PUE); NaN: no rated power */
	double mem;                 /* B per chip */
	char reason[160];           /* why infeasible */
} report_load;

/* The loads of a curve: round(2^(k/2)) for k = 0, 1, ... (1, 2, 3, 4, 6, 8, 11, 16, ...) up to
 * max, at most cap of them. Returns the count. */
int report_loads(int max, int *out, int cap);

/* One point of w's load curve on s at layout p (filled), priced at usd_per_chip_hour (NaN:
 * none) with w's [cost] terms. Until the engine gives a load curve, a load of N is the
 * workload in scenario `single` with concurrency N. Pure. */
void report_load_point(const hw_system *s, const wl_workload *w, const plan *p, int load,
		       double usd_per_chip_hour, report_load *out);

/* Where each system is the cheapest per unit by the speed a user needs: spans[i] says that
 * for a required speed in [lo, hi] tokens/s per user (1/TPOT), system `sys` offers the lowest
 * cost among the feasible priced points at least that fast. curves[k] has n[k] points. Spans
 * are in increasing speed; hi of the last is the fastest point any system reaches. Returns
 * the number of spans (at most cap). */
typedef struct report_span {
	int sys;
	double lo, hi;
} report_span;
int report_cheapest_spans(const report_load *const *curves, const int *n, int nsys, report_span *spans,
			  int cap);

/* The parts of a serving step (the result's mean step, whole pipeline), s each, in the order
 * of report_infer_parts_names: ops bound by compute, by memory, by the per-kernel floor;
 * exposed communication on the node, the scale-up domain and the scale-out level (split in
 * proportion to each level's share); the runtime's per-layer overhead. They add up to the step. */
extern const char *const report_infer_parts_names[REPORT_PARTS];
void report_infer_parts(const hw_system *s, const infer_result *r, double parts[REPORT_PARTS]);

/* The parts of a training step, s each, in the order of report_train_parts_names: the
 * micro-batches' compute, exposed communication on each level, the pipeline bubble, the
 * optimizer step, and the time failures cost per step at this goodput (step·(1/goodput - 1)).
 * The first six add up to the step time. */
extern const char *const report_train_parts_names[REPORT_PARTS];
void report_train_parts(const hw_system *s, const train_result *r, double goodput,
			double parts[REPORT_PARTS]);

/* Memory per chip, B: weights, gradients, optimizer state, activations (serving: the
 * workspace), KV cache. They add up to m->total. */
extern const char *const report_mem_parts_names[REPORT_MEM_PARTS];
void report_mem_parts(const mem_use *m, double parts[REPORT_MEM_PARTS]);

/* An op on the roofline: its arithmetic intensity and the FLOP/s it reaches. */
typedef struct report_roof_op {
	const char *name;           /* the op's name (static, ops.h) */
	ops_phase phase;
	double intensity;           /* FLOP per HBM byte */
	double achieved;            /* FLOP/s: FLOPs over the op's roofline time */
	double t;                   /* s, one run */
	double count;               /* runs per step */
	roof_bound bound;
} report_roof_op;

/* The ops of l that have FLOPs and bytes (others have no place on a roofline), timed on c.
 * Returns the count (at most OPS_MAX). */
int report_roof_ops(const hw_chip *c, const ops_list *l, report_roof_op *out);

/* The roof of chip c at precision p (the next wider it supports): min(peak, intensity × HBM
 * bandwidth), FLOP/s, from the datasheet figures (no efficiency). */
double report_roof(const hw_chip *c, hw_prec p, double intensity);

#endif
