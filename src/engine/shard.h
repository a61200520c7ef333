/* shard: how a network divides over a parallel layout: the layers of a pipeline stage, the KV
 * heads and parameters one chip holds, the ranks ZeRO shards over, and whether a layout
 * divides the workload and fits the system at all. The one home of these rules for ops (what a
 * chip computes), mem (what a chip holds), train and infer. Pure: no I/O, no globals. */
#ifndef ROOFCOST_SHARD_H
#define ROOFCOST_SHARD_H

#include <math.h>

#include "model/hw.h"
#include "model/nn.h"
#include "model/plan.h"
#include "model/wl.h"

/* Layers on the bottleneck pipeline stage: ceil(layers / pp). */
static inline int shard_layers_per_stage(const nn_net *n, int pp)
{
	return (n->layers + pp - 1) / pp;
}

/* Query heads one chip holds under tensor parallelism tp: ceil(heads / tp) (padded when tp does
 * not divide them), in whole numbers: libm's ceil of the double quotient of whole numbers below
 * 2^53 is the whole-number ceiling. */
static inline double shard_heads_local(const nn_net *n, int tp)
{
	if (tp > 0 && n->heads >= 0)
		return (double)(((long long)n->heads + tp - 1) / tp);
	return ceil((double)n->heads / tp);
}

/* KV heads one chip holds under tensor parallelism tp: ceil(kv_heads / tp) (replicated when
 * tp > kv_heads). MLA keeps the whole latent cache on every tensor-parallel rank. */
static inline double shard_kv_heads_local(const nn_net *n, int tp)
{
	if (nn_is_mla(n))
		return 1;
	/* ceil(kv_heads / tp) in whole numbers: libm's ceil of the double quotient of whole numbers
	 * below 2^53 is the whole-number ceiling. */
	if (tp > 0 && n->kv_heads >= 0)
		return (double)(((long long)n->kv_heads + tp - 1) / tp);
	return ceil((double)n->kv_heads / tp);
}

/* Parameters one chip stores on the bottleneck stage, before ZeRO sharding. */
double shard_params_local(const nn_net *n, const plan *p);

/* Routed-expert parameters among them (0 for a dense network). */
double shard_params_expert_local(const nn_net *n, const plan *p);

/* The same two with n's counts given (c = nn_params(n)), for callers that hold them. */
double shard_params_local_c(const nn_net *n, const nn_counts *c, const plan *p);
double shard_params_expert_local_c(const nn_net *n, const nn_counts *c, const plan *p);

/* Ranks that ZeRO shards over: dp·cp for dense parameters, dp·cp/ep for routed experts. */
static inline double shard_zero(const plan *p, int expert)
{
	/* Dense parameters are replicated over dp·cp ranks; routed experts only over the dp·cp/ep
	 * ranks that hold the same experts (expert data parallelism). */
	double n = (double)p->dp * p->cp;
	if (expert && p->ep > 1)
		n /= p->ep;
	return n < 1 ? 1 : n;
}

/* The rule a layout breaks (SHARD_OK: none). SHARD_PRECISION: the chip has no matrix rate for
 * the workload's precision nor a wider one (hw_run_prec), whatever the layout. SHARD_MEMORY is
 * not shard_rule's: train and infer use it for a layout that divides but does not fit the chip's
 * memory. */
typedef enum shard_code {
	SHARD_OK, SHARD_LIMITS, SHARD_CHIPS, SHARD_MAX_CHIPS, SHARD_HEADS_DIVIDE, SHARD_HEADS_EXCEED,
	SHARD_LAYERS, SHARD_VPP_NEEDS_PP, SHARD_VPP_LAYERS, SHARD_EP_DENSE, SHARD_EP_EXPERTS,
	SHARD_BATCH, SHARD_CP_SEQ, SHARD_EP_DPCP, SHARD_VPP_MICRO, SHARD_CP_SERVE, SHARD_EP_DP,
	SHARD_PRECISION, SHARD_MEMORY
} shard_code;

/* Checks that p divides the workload and fits the system (not memory: see mem). Returns
 * SHARD_OK, or the rule it breaks with, when reason is not NULL, its text in reason (such as
 * "tp 16 does not divide 24 heads"): the text is formatted only when asked for, so a search
 * that only counts failures formats nothing. p must be filled. */
shard_code shard_rule(const hw_system *s, const wl_workload *w, const plan *p, char *reason, int len);

/* shard_rule(...) == SHARD_OK: 1 if valid, else 0 with the reason (reason may be NULL). */
int shard_check(const hw_system *s, const wl_workload *w, const plan *p, char *reason, int len);

#endif
