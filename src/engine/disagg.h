/* disagg: disaggregated serving (DistServe, Zhong et al. OSDI 2024; Splitwise, Patel et al.
 * ISCA 2024; TensorRT-LLM with Dynamo, SGLang and vLLM as their [deploy] disaggregated key says):
 * a prefill pool and a decode pool of replicas (xPyD), each replica with its own layout, batch
 * and queue.
 *
 * A request is prefilled by a prefill replica: infer's server for the workload with one output
 * token (its own prompt batches and prefill-slot queue, the prompts' lengths spread with the
 * workload's input_spread; arrivals Poisson, or, from a router that takes turns, the sum of np
 * gaps, c_a² = 1/np, the wait in proportion to c_a² + c_s²: Kingman 1961). Its KV cache (the
 * prompt's tokens, every layer) then moves to a decode replica over the level that connects the
 * pools: the node or the scale-up domain when both pools fit in one, else the scale-out network
 * (comm's send/recv: the shards of min(prefill, decode) replica chips move in parallel). The
 * decode replica runs decode-only iterations (infer_step_eval with no prompts) at the batch
 * Poisson arrivals keep, b = λ_d (output_len - 1) t_D(b), within the KV cache it holds (its
 * sequences, infer_capacity); beyond it requests wait for a slot (Erlang C over those slots, half
 * the M/M/c wait for deterministic service, as infer's admission). TTFT = the prefill pool's
 * TTFT + the transfer + the wait for a decode slot, its percentile the sum of the parts'
 * percentiles (an upper bound of the sum's); TPOT = t_D(b), its percentile from the running
 * batch's spread over a request's life (variance 2b/3, as infer's open loop).
 *
 * The highest load (disagg_eval): bisection on the arrival rate for the highest whose TTFT and
 * TPOT at the SLO percentile meet the limits, within what both pools and the link carry.
 *
 * The split (disagg_search): rate matching, the TensorRT-LLM team's method (blog 5,
 * "Disaggregated Serving in TensorRT LLM"): each decode layout serves at most λ_d at the TPOT
 * limit, each prefill layout λ_p at the TTFT limit less the transfer; the pair and the counts
 * np, nd within the chips give the most output tokens/s per chip,
 * min(np λ_p, nd λ_d) output_len / (np R_p + nd R_d); the best few are then evaluated exactly.
 *
 * Pure: no I/O, no globals; allocates only its scratch. */
#ifndef ROOFCOST_DISAGG_H
#define ROOFCOST_DISAGG_H

#include "engine/infer.h"
#include "model/hw.h"
#include "model/plan.h"
#include "model/wl.h"

enum { DISAGG_REASON_MAX = 256 };

typedef struct disagg_pool {
	plan plan;                /* one replica */
	int count;                /* replicas */
	double rate;              /* requests/s per replica at the operating point */
	double most;              /* requests/s per replica at which its part of the limits holds */
	double batch;             /* decode: sequences running per replica; prefill: prompts in one pass */
	double slots;             /* decode: sequences its KV cache holds per replica */
	double iter;              /* s: one iteration at the operating point */
} disagg_pool;

typedef struct disagg_result {
	int feasible;             /* 0: reason says why */
	char reason[DISAGG_REASON_MAX];
	disagg_pool pre, dec;
	int chips;                /* np R_p + nd R_d */
	double requests_per_s, tokens_per_s, tokens_per_s_per_chip, tokens_per_s_per_user;
	double ttft, ttft_tail;   /* s: mean and at the SLO percentile, the transfer included */
	double tpot, tpot_tail;
	double ttft_prefill;      /* s: the prefill pool's part (mean) */
	double kv_bytes;          /* B moved per request */
	double t_transfer;        /* s per request */
	hw_level_kind link;       /* the level that carries it */
	double link_share;        /* of the receiving chips' bandwidth on that level, at the load */
	double wait;              /* s: mean wait for a decode slot */
	int slo_met;
	long long searched;       /* pool splits tried */
} disagg_result;

/* np replicas of layout pre and nd of dec (each filled, one replica) at the highest load that
 * meets w's limits. */
void disagg_eval(const hw_system *s, const wl_workload *w, const plan *pre, int np, const plan *dec, int nd,
		 disagg_result *r);

/* The split asked for (w->disagg): given layouts and counts evaluated as they are; counts given,
 * the layouts searched; neither, both searched, np R_p + nd R_d within max_chips. Layouts come
 * from frontier_layouts (one replica). Returns 1, or 0 when no split can serve (r->reason). */
int disagg_search(const hw_system *s, const wl_workload *w, int max_chips, disagg_result *r);

#endif
