/* train: training step composition (see train.h). */
#include "train.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "units.h"

void train_flops_per_token(const wl_workload *w, double *model, double *hardware)
{
	const nn_net *n = &w->net;
	nn_counts c = nn_params(n);
	/* Parameters a token's matmuls touch: all active ones except the input embedding (a
	 * gather), plus the LM head even when tied (it is still a matmul). */
	double layer_params = c.active - c.embed - c.head;
	double head = (double)n->vocab * n->hidden;
	double attn_fwd = 2.0 * n->layers * n->heads * (double)(n->head_dim + n->v_head_dim) * w->seq_len;
	double fwd = 2 * (layer_params + head) + attn_fwd;
	double extra = 0;
	*model = 3 * fwd;
	if (w->recompute == WL_RC_FULL)
		extra = 2 * layer_params + attn_fwd;
	else if (w->recompute == WL_RC_SELECTIVE)
		extra = attn_fwd;
	*hardware = *model + extra;
}

/* Returns count × exposed_frac × c->t and adds it, times `per_step` and split in proportion to
 * the levels c spent time on, into level[]. */
static double take(const comm_cost *c, double count, double exposed_frac, double per_step,
		   double level[])
{
	double t = c->t * count * exposed_frac;
	double sum = 0;
	for (int l = 0; l < HW_LEVELS_MAX; l++)
		sum += c->t_level[l];
	for (int l = 0; l < HW_LEVELS_MAX && sum > 0; l++)
		level[l] += per_step * t * c->t_level[l] / sum;
	if (sum == 0 && c->outer >= 0)
		level[c->outer] += per_step * t;
	return t;
}

void train_comm_eval(const hw_system *s, const wl_workload *w, const plan *p, const roof_sum *micro,
		     double m, train_comm *out)
{
	const nn_net *n = &w->net;
	double b = p->micro_batch > 0 ? p->micro_batch : w->micro_batch;
	double L = ops_layers_per_stage(n, p->pp);
	double ab = (w->prec == HW_FP32 || w->prec == HW_TF32) ? 4 : 2;
	double tokens = b * (double)w->seq_len / p->cp;      /* per chip per micro-batch */
	double act = tokens * n->hidden * ab;                /* one activation tensor */
	/* Each tensor-parallel rank keeps its own copy: a chip running several ranks (Neuron
	 * cores) moves that many copies over its links. */
	double tp_act = act * s->chip.ranks_per_chip;
	double moe = n->experts > 0 ? (double)(n->layers - n->dense_layers) / n->layers : 0;
	double lv[HW_LEVELS_MAX] = {0};
	double t_fwd = micro->t_phase[OPS_FWD];
	double t_bwd = micro->t_phase[OPS_BWD] + micro->t_phase[OPS_RECOMP];
	int recomp_full = w->recompute == WL_RC_FULL;
	memset(out, 0, sizeof *out);

	if (p->tp > 1) {
		/* Megatron (Shoeybi et al. 2019 §3): 2 all-reduces forward and 2 backward per layer;
		 * with sequence parallelism each becomes an all-gather + reduce-scatter pair
		 * (Korthikanti §4.2.2). Full recompute repeats the forward pair. */
		double per_layer = 4 + (recomp_full ? 2 : 0);
		if (p->sp) {
			comm_cost ag = comm_time(s, COMM_ALL_GATHER, tp_act, p->tp, 1);
			comm_cost rs = comm_time(s, COMM_REDUCE_SCATTER, tp_act, p->tp, 1);
			out->tp = take(&ag, L * per_layer, 1, m, lv) + take(&rs, L * per_layer, 1, m, lv);
		} else {
			comm_cost ar = comm_time(s, COMM_ALL_REDUCE, tp_act, p->tp, 1);
			out->tp = take(&ar, L * per_layer, 1, m, lv);
		}
	}
	if (p->pp > 1) {
		/* One activation forward and one gradient backward per micro-batch and model chunk;
		 * with sequence parallelism only 1/tp of it crosses (scatter-gather, SC21 §4.1). */
		double msg = act / (p->sp ? p->tp : 1);
		comm_cost c = comm_time(s, COMM_SEND_RECV, msg, 2, p->tp * p->cp * p->dp);
		out->pp = take(&c, 2.0 * p->vpp, 1, m, lv);
	}
	if (p->ep > 1 && moe > 0) {
		/* Dispatch and combine per MoE layer forward, and again backward (MODEL.md). */
		double bytes = tokens * n->experts_active * n->hidden * ab / (p->sp ? p->tp : 1);
		comm_cost c = comm_time(s, COMM_ALL_TO_ALL, bytes, p->ep, p->tp * p->cp);
		out->ep = take(&c, L * moe * (4 + (recomp_full ? 2 : 0)), 1, m, lv);
	}
	if (p->cp > 1) {
		/* Ring attention: cp-1 exchanges of this rank's K and V per layer forward, K, V and
		 * their gradients backward, overlapped with the attention blocks they feed. */
		double kv = b * ((double)w->seq_len / p->cp) * 2 * ops_kv_heads_local(n, p->tp) *
			    n->head_dim * ab;
		comm_cost c = comm_time(s, COMM_SEND_RECV, kv, 2, p->tp);
		double ring_f = (p->cp - 1) * c.t, ring_b = 2 * ring_f;
		double exposed;
		/* The attention share of the micro-batch is not separated in roof_sum: overlap with
		 * a layer's forward (backward) time, which bounds what the ring can hide behind. */
		exposed = fmax(0, ring_f - t_fwd / L) + fmax(0, ring_b - t_bwd / L);
		out->cp = exposed * L;
		if (c.t > 0)
			take(&c, out->cp / c.t, 1, m, lv);
	}
	{
		/* Data parallelism over dp·cp ranks stride tp: gradients (bf16, or fp32 for fp16
		 * mixed precision) reduced; with ZeRO >= 1 reduce-scattered and the updated 16-bit
		 * parameters all-gathered (Rajbhandari et al. 2020). */
		int ndp = p->dp * p->cp;
		double P = mem_params_local(n, p);
		double gb = w->prec == HW_FP16 ? 4 : (ab == 4 ? 4 : 2);
		if (ndp > 1 && w->zero < 3) {
			comm_cost g = comm_time(s, w->zero >= 1 ? COMM_REDUCE_SCATTER : COMM_ALL_REDUCE, P * gb,
						ndp, p->tp);
			comm_cost a = comm_time(s, COMM_ALL_GATHER, P * ab, ndp, p->tp);
			double t_g = g.t, t_a = w->zero >= 1 ? a.t : 0;
			/* Bucketed gradient sync overlaps the last micro-batch's backward except its last
			 * layer; the parameter gather overlaps the next forward the same way. */
			double e_g = w->overlap_grad_reduce ? fmax(t_g - t_bwd * (L - 1) / L, t_g / L) : t_g;
			double e_a = t_a > 0 ? (w->overlap_grad_reduce ? fmax(t_a - t_fwd * (L - 1) / L, t_a / L) : t_a)
					     : 0;
			out->dp_total = t_g + t_a;
			out->dp = take(&g, 1, t_g > 0 ? e_g / t_g : 0, 1, lv) +
				  (t_a > 0 ? take(&a, 1, e_a / t_a, 1, lv) : 0);
		} else if (ndp > 1) {
			/* ZeRO-3 / FSDP: each layer's parameters gathered before its forward and again
			 * before its backward, its gradients reduce-scattered after; prefetched behind the
			 * previous layer's compute. */
			double Pl = P / L;
			comm_cost a = comm_time(s, COMM_ALL_GATHER, Pl * ab, ndp, p->tp);
			comm_cost g = comm_time(s, COMM_REDUCE_SCATTER, Pl * gb, ndp, p->tp);
			double ex = fmax(0, a.t - t_fwd / L) + fmax(0, a.t + g.t - t_bwd / L);
			out->zero3 = ex * L + a.t; /* the first gather is never hidden */
			out->dp_total = m * L * (2 * a.t + g.t);
			if (a.t > 0)
				take(&a, out->zero3 / a.t, 1, m, lv);
		}
	}
	for (int l = 0; l < HW_LEVELS_MAX; l++)
		out->level[l] = lv[l];
}

void train_eval(const hw_system *s, const wl_workload *w, const plan *p, train_result *r,
		ops_list *ops)
{
	ops_list local;
	/* cppcheck-suppress uninitvar ; local is an output ops_train fills */
	ops_list *l = ops ? ops : &local;
	const hw_chip *c = &s->chip;
	double b;
	roof_sum opt;

	memset(r, 0, sizeof *r);
	r->plan = *p;
	r->feasible = plan_check(s, w, p, r->reason, TRAIN_REASON_MAX);
	r->mem = mem_train(w, p);
	if (r->feasible && r->mem.total > c->hbm) {
		r->feasible = 0;
		snprintf(r->reason, TRAIN_REASON_MAX, "needs %.1f GiB per chip, has %.1f GiB",
			 r->mem.total / 1073741824.0, c->hbm / 1073741824.0);
	}
	b = p->micro_batch > 0 ? p->micro_batch : w->micro_batch;
	r->plan.micro_batch = (int)b;
	r->micro_batches = (double)w->global_batch / (p->dp * b);
	r->run_prec = hw_run_prec(c, w->prec);
	r->peak = r->run_prec < HW_PREC_N ? c->peak[r->run_prec] : 0;

	ops_train(w, p, l);
	/* The optimizer (phase step) runs once per step; the rest once per micro-batch. */
	{
		ops_list mb = *l;
		ops_list st;
		memset(&st, 0, sizeof st);
		mb.n = 0;
		for (int i = 0; i < l->n; i++) {
			if (l->op[i].phase == OPS_STEP)
				st.op[st.n++] = l->op[i];
			else
				mb.op[mb.n++] = l->op[i];
		}
		r->micro = roof_list(c, &mb, NULL);
		opt = roof_list(c, &st, NULL);
	}
	train_comm_eval(s, w, p, &r->micro, r->micro_batches, &r->comm);
	{
		double per_micro = r->comm.tp + r->comm.pp + r->comm.ep + r->comm.cp + r->comm.zero3;
		r->t_micro = r->micro.t + per_micro;
		r->t_compute = r->micro_batches * r->micro.t;
		r->t_bubble = (p->pp - 1.0) / p->vpp * r->t_micro;
		r->t_optimizer = opt.t;
		r->t_comm_exposed = r->micro_batches * per_micro + r->comm.dp;
		r->comm_priced = 1;
		r->step_time = r->micro_batches * r->t_micro + r->t_bubble + r->comm.dp + r->t_optimizer;
	}
	for (int k = 0; k < 3; k++)
		r->t_bound[k] = r->micro.t_bound[k] * r->micro_batches + opt.t_bound[k];
	r->tokens_per_step = (double)w->global_batch * w->seq_len;
	r->tokens_per_s = r->tokens_per_step / r->step_time;
	r->train_time = w->tokens / r->tokens_per_s;
	train_flops_per_token(w, &r->model_flops_per_token, &r->hw_flops_per_token);
	r->model_tflops_per_chip = r->model_flops_per_token * r->tokens_per_s / p->chips / 1e12;
	r->hw_tflops_per_chip = r->hw_flops_per_token * r->tokens_per_s / p->chips / 1e12;
	if (r->peak > 0) {
		r->mfu = r->model_tflops_per_chip * 1e12 / r->peak;
		r->hfu = r->hw_tflops_per_chip * 1e12 / r->peak;
	}
}
