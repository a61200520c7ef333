/* shard: how a network divides over a layout (see shard.h). */
#include "engine/shard.h"

#include <math.h>
#include <stdio.h>

#include "base/lim.h"
#include "base/num.h"

double shard_params_local_c(const nn_net *n, const nn_counts *c, const plan *p)
{
	double L = shard_layers_per_stage(n, p->pp);
	double share = nn_moe_share(n);
	double ffn = (1 - share) * c->ffn_dense +
		     share * (c->router + (double)n->experts / p->ep * c->ffn_expert + c->shared);
	/* The first stage holds the embedding, the last the LM head; take the larger end. */
	double ends = p->pp == 1 ? c->embed + c->head : num_max(c->embed, c->head);
	return (L * (c->attn + ffn) + ends) / p->tp;
}

double shard_params_local(const nn_net *n, const plan *p)
{
	nn_counts c = nn_params(n);
	return shard_params_local_c(n, &c, p);
}

double shard_params_expert_local_c(const nn_net *n, const nn_counts *c, const plan *p)
{
	double share;
	if (n->experts == 0)
		return 0;
	share = nn_moe_share(n);
	return shard_layers_per_stage(n, p->pp) * share * ((double)n->experts / p->ep) * c->ffn_expert / p->tp;
}

double shard_params_expert_local(const nn_net *n, const plan *p)
{
	nn_counts c;
	if (n->experts == 0)
		return 0;
	c = nn_params(n);
	return shard_params_expert_local_c(n, &c, p);
}

shard_code shard_rule(const hw_system *s, const wl_workload *w, const plan *p, char *reason, int len)
{
	const nn_net *n = &w->net;
	long long product = (long long)p->tp * p->pp * p->dp * p->cp;
	int maxc = hw_max_chips(s);
	int b = p->micro_batch > 0 ? p->micro_batch : w->micro_batch;
#define FAIL(code, ...) do { if (reason) snprintf(reason, (size_t)len, __VA_ARGS__); return code; } while (0)
	if (plan_limits(p, w->micro_batch, reason, len) != 0)
		return SHARD_LIMITS;
	if (hw_run_prec(&s->chip, w->prec) == HW_PREC_N) {
		if (reason)
			hw_prec_note(&s->chip, w->prec, reason, (size_t)len);
		return SHARD_PRECISION;
	}
	/* Within the limits (lim.h) the products below fit an int. */
	if (p->chips != product)
		FAIL(SHARD_CHIPS, "chips %d differ from tp*pp*dp*cp = %lld", p->chips, product);
	if (maxc > 0 && p->chips > maxc)
		FAIL(SHARD_MAX_CHIPS, "%d chips exceed the %d that %s can join", p->chips, maxc, s->name);
	/* Training frameworks split heads evenly; serving runtimes pad them (Neuron). */
	if (w->mode == WL_TRAIN && n->heads % p->tp != 0)
		FAIL(SHARD_HEADS_DIVIDE, "tp %d does not divide %d attention heads", p->tp, n->heads);
	if (p->tp > n->heads)
		FAIL(SHARD_HEADS_EXCEED, "tp %d exceeds %d attention heads", p->tp, n->heads);
	if (p->pp > n->layers)
		FAIL(SHARD_LAYERS, "pp %d exceeds %d layers", p->pp, n->layers);
	if (p->vpp > 1 && p->pp == 1)
		FAIL(SHARD_VPP_NEEDS_PP, "vpp %d needs pp > 1", p->vpp);
	if (p->vpp > 1 && p->pp * p->vpp > n->layers)
		FAIL(SHARD_VPP_LAYERS, "pp*vpp = %d exceeds %d layers", p->pp * p->vpp, n->layers);
	if (p->ep > 1 && n->experts == 0)
		FAIL(SHARD_EP_DENSE, "ep %d needs an MoE network; %s is dense", p->ep, n->name);
	if (p->ep > 1 && n->experts % p->ep != 0)
		FAIL(SHARD_EP_EXPERTS, "ep %d does not divide %d experts", p->ep, n->experts);
	if (w->mode == WL_TRAIN) {
		if (w->global_batch % (p->dp * b) != 0)
			FAIL(SHARD_BATCH, "dp*micro_batch = %d does not divide global_batch %d", p->dp * b,
			     w->global_batch);
		if (w->seq_len % p->cp != 0)
			FAIL(SHARD_CP_SEQ, "cp %d does not divide seq_len %d", p->cp, w->seq_len);
		if ((p->dp * p->cp) % p->ep != 0)
			FAIL(SHARD_EP_DPCP, "ep %d does not divide dp*cp = %d", p->ep, p->dp * p->cp);
		if (p->vpp > 1 && (w->global_batch / (p->dp * b)) % p->pp != 0)
			FAIL(SHARD_VPP_MICRO, "interleaving needs micro-batches (%d) to be a multiple of pp %d",
			     w->global_batch / (p->dp * b), p->pp);
	} else {
		if (p->cp > 1)
			FAIL(SHARD_CP_SERVE, "cp is for training; inference splits prompts by tp");
		/* Serving experts are spread over replicas (attention data parallel, experts
		 * parallel): ep must divide dp. */
		if (p->dp % p->ep != 0)
			FAIL(SHARD_EP_DP, "ep %d does not divide dp %d (serving spreads experts over replicas)", p->ep, p->dp);
	}
#undef FAIL
	return SHARD_OK;
}

int shard_check(const hw_system *s, const wl_workload *w, const plan *p, char *reason, int len)
{
	return shard_rule(s, w, p, reason, len) == SHARD_OK;
}
