/* shard: how a network divides over a layout (see shard.h). */
#include "engine/shard.h"

#include <math.h>
#include <stdio.h>

#include "base/lim.h"

int shard_layers_per_stage(const nn_net *n, int pp)
{
	return (n->layers + pp - 1) / pp;
}

double shard_kv_heads_local(const nn_net *n, int tp)
{
	if (nn_is_mla(n))
		return 1;
	return ceil((double)n->kv_heads / tp);
}

double shard_params_local(const nn_net *n, const plan *p)
{
	nn_counts c = nn_params(n);
	double L = shard_layers_per_stage(n, p->pp);
	double share = nn_moe_share(n);
	double ffn = (1 - share) * c.ffn_dense +
		     share * (c.router + (double)n->experts / p->ep * c.ffn_expert + c.shared);
	/* The first stage holds the embedding, the last the LM head; take the larger end. */
	double ends = p->pp == 1 ? c.embed + c.head : fmax(c.embed, c.head);
	return (L * (c.attn + ffn) + ends) / p->tp;
}

double shard_params_expert_local(const nn_net *n, const plan *p)
{
	nn_counts c;
	double share;
	if (n->experts == 0)
		return 0;
	c = nn_params(n);
	share = nn_moe_share(n);
	return shard_layers_per_stage(n, p->pp) * share * ((double)n->experts / p->ep) * c.ffn_expert / p->tp;
}

double shard_zero(const plan *p, int expert)
{
	/* Dense parameters are replicated over dp·cp ranks; routed experts only over the dp·cp/ep
	 * ranks that hold the same experts (expert data parallelism). */
	double n = (double)p->dp * p->cp;
	if (expert && p->ep > 1)
		n /= p->ep;
	return n < 1 ? 1 : n;
}

int shard_check(const hw_system *s, const wl_workload *w, const plan *p, char *reason, int len)
{
	const nn_net *n = &w->net;
	long long product = (long long)p->tp * p->pp * p->dp * p->cp;
	int maxc = hw_max_chips(s);
	int b = p->micro_batch > 0 ? p->micro_batch : w->micro_batch;
#define FAIL(...) do { snprintf(reason, (size_t)len, __VA_ARGS__); return 0; } while (0)
	if (plan_limits(p, w->micro_batch, reason, len) != 0)
		return 0;
	/* Within the limits (lim.h) the products below fit an int. */
	if (p->chips != product)
		FAIL("chips %d differ from tp*pp*dp*cp = %lld", p->chips, product);
	if (maxc > 0 && p->chips > maxc)
		FAIL("%d chips exceed the %d that %s can join", p->chips, maxc, s->name);
	/* Training frameworks split heads evenly; serving runtimes pad them (Neuron). */
	if (w->mode == WL_TRAIN && n->heads % p->tp != 0)
		FAIL("tp %d does not divide %d attention heads", p->tp, n->heads);
	if (p->tp > n->heads)
		FAIL("tp %d exceeds %d attention heads", p->tp, n->heads);
	if (p->pp > n->layers)
		FAIL("pp %d exceeds %d layers", p->pp, n->layers);
	if (p->vpp > 1 && p->pp == 1)
		FAIL("vpp %d needs pp > 1", p->vpp);
	if (p->vpp > 1 && p->pp * p->vpp > n->layers)
		FAIL("pp*vpp = %d exceeds %d layers", p->pp * p->vpp, n->layers);
	if (p->ep > 1 && n->experts == 0)
		FAIL("ep %d needs an MoE network; %s is dense", p->ep, n->name);
	if (p->ep > 1 && n->experts % p->ep != 0)
		FAIL("ep %d does not divide %d experts", p->ep, n->experts);
	if (w->mode == WL_TRAIN) {
		if (w->global_batch % (p->dp * b) != 0)
			FAIL("dp*micro_batch = %d does not divide global_batch %d", p->dp * b,
			     w->global_batch);
		if (w->seq_len % p->cp != 0)
			FAIL("cp %d does not divide seq_len %d", p->cp, w->seq_len);
		if ((p->dp * p->cp) % p->ep != 0)
			FAIL("ep %d does not divide dp*cp = %d", p->ep, p->dp * p->cp);
		if (p->vpp > 1 && (w->global_batch / (p->dp * b)) % p->pp != 0)
			FAIL("interleaving needs micro-batches (%d) to be a multiple of pp %d",
			     w->global_batch / (p->dp * b), p->pp);
	} else {
		if (p->cp > 1)
			FAIL("cp is for training; inference splits prompts by tp");
		/* Serving experts are spread over replicas (attention data parallel, experts
		 * parallel): ep must divide dp. */
		if (p->dp % p->ep != 0)
			FAIL("ep %d does not divide dp %d (serving spreads experts over replicas)", p->ep, p->dp);
	}
#undef FAIL
	return 1;
}
