/* frontier: serving as the field charts it (SemiAnalysis InferenceMAX, NVIDIA aiconfigurator):
 * every layout a system can serve a workload with, every load it can run at, and the Pareto
 * frontier of output tokens/s per chip against tokens/s per user (and of USD per unit against
 * tokens/s per user) over all of them. The per-layout model is infer's; this module only
 * chooses what to evaluate.
 *
 * Layouts (frontier_layouts): tp a power of two up to the scale-up domain and the heads (and
 * the node, when its chip count is not a power of two), times pp 1, 2 or 4 while a replica
 * stays within two domains; for an MoE network whose framework offers attention data
 * parallelism ([deploy] attention_dp), also d = 2, 4, ... attention replicas of tp chips that
 * spread the experts over them (dp = ep = d) within the domain. Replicas fill the chip count
 * asked for (`total`) when one divides it (MLPerf's tp=1 x 8 on an 8-GPU node); a replica
 * larger than it runs alone. Per-chip figures do not depend on the replica count except under
 * the closed loop, where the load is shared by the replicas.
 *
 * Loads (frontier_sweep): in the workload's own scenario, so that the point the latency limits
 * choose lies on its layout's curve. A closed loop (single, offline): 1, 2, 3, 4, 6, 8, ...
 * requests in flight per replica (steps of about √2) up to the batch the server holds. An open
 * loop (server, interactive): Poisson arrivals at the same running batch's share of the most
 * the server completes, below saturation. The layout's operating point at the latency limits
 * (infer_eval) is one more point, marked chosen.
 *
 * Pure: no I/O, no globals, no allocation (the caller gives the arrays). */
#ifndef ROOFCOST_FRONTIER_H
#define ROOFCOST_FRONTIER_H

#include "engine/infer.h"
#include "model/hw.h"
#include "model/plan.h"
#include "model/wl.h"

enum { FRONTIER_LAYOUTS_MAX = 96, FRONTIER_LOADS_MAX = 40 };

/* What layouts may be. */
typedef struct frontier_space {
	int total;          /* chips the replicas fill; 0: one replica */
	int rmin, rmax;     /* chips of one replica (rmax 0: no bound) */
} frontier_space;

typedef struct frontier_point {
	plan plan;               /* the layout, replicas in dp */
	int layout;              /* index of the layout in the caller's list */
	double load;             /* requests in flight (closed loop) or per second (open), all replicas */
	double running;          /* mean sequences running per replica */
	double tokens_per_s;     /* output tokens/s, all replicas */
	double per_chip;         /* output tokens/s per chip */
	double per_user;         /* output tokens/s one stream gets: 1 / mean TPOT */
	double ttft, ttft_tail;  /* s: mean, at the workload's SLO percentile */
	double tpot, tpot_tail;
	double usd_per_unit;     /* NaN until priced (rank_cost_points) */
	int slo_met;             /* the tails meet the workload's TTFT and TPOT limits */
	int chosen;              /* the layout's operating point at the latency limits */
	int front;               /* on the frontier of per_chip against per_user */
	int cost_front;          /* on the frontier of usd_per_unit against per_user */
} frontier_point;

/* Chips of s's scale-up domain (the node when it has no domain level). */
int frontier_domain_chips(const hw_system *s);

/* The layouts of s for w within sp into out (at most max). Returns the count. */
int frontier_layouts(const hw_system *s, const wl_workload *w, const frontier_space *sp, plan *out, int max);

/* The load points of layout p (index `layout`) into out (at most max), the chosen one last;
 * r receives infer_eval's result at the latency limits. Returns the count: 0 when the layout
 * cannot serve (r->reason says why). */
int frontier_sweep(const hw_system *s, const wl_workload *w, const plan *p, int layout, infer_result *r,
		   frontier_point *out, int max);

/* 1 if a point's latencies at the SLO percentile meet w's limits. */
int frontier_slo_met(const wl_workload *w, double ttft_tail, double tpot_tail);

/* Sets front and cost_front over the n points, which it sorts fastest per user first: a point
 * is on a frontier when no other point is at least as fast per user and better (more tokens/s
 * per chip; a lower USD per unit). */
void frontier_mark(frontier_point *pts, int n);

#endif
