/* train: training step composition (see train.h). */
#include "engine/train.h"
#include "engine/shard.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/num.h"

#include "base/units.h"

/* train_flops_per_token with the counts of w's network given. */
__attribute__((always_inline)) static inline void flops_per_token(const wl_workload *w, const nn_counts *cnt,
								  double *model, double *hardware)
{
	const nn_net *n = &w->net;
	/* Parameters a token's matmuls touch: all active ones except the input embedding (a
	 * gather), plus the LM head even when tied (it is still a matmul). */
	double layer_params = cnt->active - cnt->embed - cnt->head;
	double head = (double)n->vocab * n->hidden;
	/* Attention scores and values over the whole sequence (MODEL.md); a stack whose reported
	 * MFU counts only the causal half (framework [flops] attention = causal) halves it. */
	double attn_fwd = 2.0 * n->layers * n->heads * (double)(n->head_dim + n->v_head_dim) * w->seq_len *
			  (w->fw.train.flops_causal ? 0.5 : 1.0);
	/* Layers with a window compute nn_window_pairs of the s(s+1)/2 causal pairs. */
	if (nn_window_share(n) > 0 && w->seq_len > 0) {
		double s = w->seq_len;
		attn_fwd *= 1 - nn_window_share(n) * (1 - nn_window_pairs(n, s) / (s * (s + 1) / 2));
	}
	double fwd = 2 * (layer_params + head) + attn_fwd;
	double extra = 0;
	*model = 3 * fwd;
	if (w->recompute == WL_RC_FULL)
		extra = 2 * layer_params + attn_fwd;
	else if (w->recompute == WL_RC_SELECTIVE && w->fw.train.selective == FW_SEL_ATTENTION)
		extra = attn_fwd;
	else if (w->recompute == WL_RC_SELECTIVE && w->fw.train.selective == FW_SEL_OPS) {
		/* The re-run matmuls: k projection, out-projection, and w3 (SwiGLU) or the FFN
		 * down-projection (GELU), per layer. */
		double h = n->hidden, kd = (double)n->kv_heads * n->head_dim, ad = (double)n->heads * n->v_head_dim;
		double f = n->experts > 0 ? (double)n->expert_ffn * n->experts_active : n->ffn;
		extra = 2.0 * n->layers * (h * kd + ad * h + h * f);
	}
	*hardware = *model + extra;
}

void train_flops_per_token(const wl_workload *w, double *model, double *hardware)
{
	nn_counts c = nn_params(&w->net);
	flops_per_token(w, &c, model, hardware);
}

/* Returns count × exposed_frac × c->t and adds it, times `per_step` and split in proportion to
 * the levels c spent time on, into level[]. */
static double take(const comm_cost *c, double count, double exposed_frac, double per_step,
		   double level[])
{
	double t = c->t * count * exposed_frac;
	comm_split(c, per_step * t, level);
	return t;
}

/* Time a collective of t_comm adds beside t_compute of work it overlaps: compute slows by the
 * share sigma while the collective runs (its kernels take SMs and HBM bandwidth, calibration
 * notes: NVIDIA/nccl#1428, forum thread 337991), so the pair takes max(t_comm, t_compute +
 * sigma·t_comm) and the communication adds max(t_comm - t_compute, sigma·t_comm). */
static double hide(double t_comm, double t_compute, double sigma)
{
	if (t_comm <= 0)
		return 0;
	return num_max(t_comm - num_max(t_compute, 0), sigma * t_comm);
}

/* a = a + k·b for roofline summaries; fresh: a is not read, a = 0 + k·b (a cleared before). */
__attribute__((always_inline)) static inline void sum_axpy(roof_sum *a, double k, const roof_sum *b, int fresh)
{
#define SUM_AXPY(f) a->f = (fresh ? 0.0 : a->f) + k * b->f
	SUM_AXPY(t);
	SUM_AXPY(flops);
	SUM_AXPY(bytes);
	SUM_AXPY(t_bound[0]);
	SUM_AXPY(t_bound[1]);
	SUM_AXPY(t_bound[2]);
	_Static_assert(OPS_PHASE_N == 4 && OPS_KIND_N == 7, "sum_axpy names every phase and kind");
	SUM_AXPY(t_phase[0]);
	SUM_AXPY(t_phase[1]);
	SUM_AXPY(t_phase[2]);
	SUM_AXPY(t_phase[3]);
	SUM_AXPY(t_kind[0]);
	SUM_AXPY(t_kind[1]);
	SUM_AXPY(t_kind[2]);
	SUM_AXPY(t_kind[3]);
	SUM_AXPY(t_kind[4]);
	SUM_AXPY(t_kind[5]);
	SUM_AXPY(t_kind[6]);
#undef SUM_AXPY
}

/* comm_time through the memo when there is one, else in group g of the same n, stride and
 * channel limit when given (collectives of one group share its placement); ctas as
 * comm_group_init_ctas. */
__attribute__((always_inline)) static inline comm_cost memo_comm(train_memo *mm, const hw_system *s,
								  const comm_group *g, comm_op op, double bytes,
								  int n, int stride, int ctas)
{
	unsigned long long h;
	train_memo_entry *e;
	unsigned gen;
	if (!mm) {
		comm_group own;
		if (!g) {
			if (!ctas) /* the same group as comm_time's (which places a message's pair alone) */
				return comm_time(s, op, bytes, n, stride);
			comm_group_init_ctas(&own, s, n, stride, ctas);
			g = &own;
		}
		return comm_group_time(g, op, bytes);
	}
	gen = mm->gen ? mm->gen : 1;
	h = (unsigned long long)op * 0x9E3779B97F4A7C15ULL;
	h ^= (unsigned long long)n * 0xC2B2AE3D27D4EB4FULL + ((unsigned long long)stride << 20) +
	     ((unsigned long long)ctas << 40);
	h ^= (unsigned long long)(uintptr_t)s * 0x9FB21C651E98DF25ULL;
	h ^= h >> 29;
	e = &mm->e[h & (TRAIN_MEMO_SIZE - 1)];
	if (e->used == gen && e->sys == s && e->op == (int)op && e->n == n && e->stride == stride &&
	    e->ctas == ctas) {
		mm->hits++;
	} else {
		comm_group grp;
		e->used = gen;
		e->sys = s;
		e->op = (int)op;
		e->n = n;
		e->stride = stride;
		e->ctas = ctas;
		comm_group_init_ctas(&grp, s, n, stride, ctas);
		comm_plan_group(&e->plan, &grp, op);
		mm->misses++;
	}
	return comm_plan_time(&e->plan, bytes);
}

/* The share of an expert all-to-all's cross-node traffic that node-limited routing leaves
 * (DeepSeek-V3 §2.1.2, §3.2.2: a token goes once over the scale-out to each of the at most R
 * nodes its experts sit on, and is forwarded inside the node; R = route_groups groups of the
 * network's expert_groups, each spread over m / expert_groups of the m nodes the group spans):
 * R / experts_active of the experts_active copies the plain all-to-all sends, at most 1. */
static double route_share(const hw_system *s, const nn_net *n, int ep, int stride)
{
	int ranks[HW_LEVELS_MAX];
	double m, r;
	if (n->route_groups <= 0 || n->expert_groups <= 0 || n->experts_active <= 0 || comm_place(s, ep, stride, ranks) <= 0)
		return 1;
	m = (double)ep / ranks[0];
	r = m >= n->expert_groups ? n->route_groups * m / n->expert_groups : num_min(m, n->route_groups);
	return num_min(1, r / n->experts_active);
}

/* train_kernel_eval, inline where train_eval composes the kernel straight away. */
__attribute__((always_inline)) static inline void kernel_eval(const hw_system *s, const wl_workload *w,
							      const plan *key, train_kernel *k)
{
	const nn_net *n = &w->net;
	plan p = *key;
	double b, ab, tokens, act, tp_act, moe;
	int recomp_full = w->recompute == WL_RC_FULL;

	/* Every field is written below; these only accumulate. */
	k->tp_layer = k->ep_layer = k->cp_layer = 0;
	NUM_UNROLL
	for (int i = 0; i < HW_LEVELS_MAX; i++)
		k->tp_level[i] = k->ep_level[i] = k->cp_level[i] = 0;
	p.pp = 1;
	p.vpp = 1;
	p.dp = 1;
	p.chips = p.tp * p.cp;
	k->key = p;
	k->counts = nn_params(n);
	flops_per_token(w, &k->counts, &k->model_flops_per_token, &k->hw_flops_per_token);
	k->act_layer = w->fw.train.offload_remat ? 0 : mem_act_layer(w, &p, p.micro_batch > 0 ? p.micro_batch
											    : w->micro_batch);
	k->logits = mem_train_logits(w, &p);
	/* One micro-batch in its per-layer part (counts scale with the layers of a stage), the LM
	 * head and loss, and the embedding (first stage only), timed as it is lowered. */
	ops_train_micro_roof(w, &p, &s->chip, &k->layer, &k->embed, &k->head);
	{
		/* Per layer: the stage above ran all n->layers layers. */
		roof_sum *g = &k->layer;
		double f = 1.0 / n->layers;
		g->t = f * g->t;
		g->flops = f * g->flops;
		g->bytes = f * g->bytes;
		NUM_UNROLL
		for (int i = 0; i < 3; i++)
			g->t_bound[i] = f * g->t_bound[i];
		NUM_UNROLL
		for (int i = 0; i < OPS_PHASE_N; i++)
			g->t_phase[i] = f * g->t_phase[i];
		NUM_UNROLL
		for (int i = 0; i < OPS_KIND_N; i++)
			g->t_kind[i] = f * g->t_kind[i];
	}

	b = p.micro_batch > 0 ? p.micro_batch : w->micro_batch;
	ab = (w->prec == HW_FP32 || w->prec == HW_TF32) ? 4 : 2;
	tokens = b * (double)w->seq_len / p.cp;       /* per chip per micro-batch */
	act = tokens * n->hidden * ab;                /* one activation tensor */
	/* Each tensor-parallel rank keeps its own copy: a chip running several ranks (Neuron
	 * cores) moves that many copies over its links. */
	tp_act = act * s->chip.ranks_per_chip;
	moe = nn_moe_share(n);
	/* One pipeline send: with sequence parallelism each rank holds 1/tp of it; Megatron's
	 * scatter/gather (Narayanan et al. SC21 §4.1) splits it across the tensor ranks anyway
	 * and all-gathers it over the node's links on the other side. */
	k->pp_msg = act / (p.sp || w->fw.train.pp_scatter_gather ? p.tp : 1);
	if (p.tp > 1) {
		/* Megatron (Shoeybi et al. 2019 §3): 2 all-reduces forward and 2 backward per layer;
		 * with sequence parallelism each becomes an all-gather + reduce-scatter pair
		 * (Korthikanti §4.2.2). Full recompute repeats the forward pair. */
		double per_layer = 4 + (recomp_full ? 2 : 0);
		/* Async TP (framework [overlap] tp) decomposes each collective and its matmul into
		 * steps that overlap (Wang et al. 2022; torchtitan's async TP): only what the layer's
		 * GEMMs cannot cover stays, plus the contention. */
		double frac = 1, share = w->fw.train.overlap_tp;
		/* With sequence parallelism an all-gather and a reduce-scatter of one group (cc[0],
		 * cc[1]), else an all-reduce (cc[0]). */
		comm_group g;
		comm_cost cc[2];
		double t0;
		comm_group_init(&g, s, p.tp, 1);
		if (p.sp)
			comm_group_time2(&g, COMM_ALL_GATHER, tp_act, COMM_REDUCE_SCATTER, tp_act, &cc[0], &cc[1]);
		else
			cc[0] = comm_group_time(&g, COMM_ALL_REDUCE, tp_act);
		if (share > 0) {
			double raw = per_layer * (p.sp ? cc[0].t + cc[1].t : cc[0].t);
			/* The overlapped share hides behind the layer's compute-bound time. */
			frac = raw > 0 ? (1 - share) +
					 hide(share * raw, k->layer.t_bound[ROOF_COMPUTE], s->chip.overlap_slowdown) / raw
				       : 1;
		}
		t0 = take(&cc[0], per_layer, frac, 1, k->tp_level);
		k->tp_layer = p.sp ? t0 + take(&cc[1], per_layer, frac, 1, k->tp_level) : t0;
	}
	if (p.ep > 1 && moe > 0) {
		/* Dispatch and combine per MoE layer forward, and again backward (MODEL.md): half of
		 * them toward the experts (the forward dispatch, the backward's gradient dispatch),
		 * which a stack may send in fp8 ([fp8] dispatch; DeepSeek-V3 §3.3.2), half back. */
		double bytes = tokens * n->experts_active * n->hidden * ab / (p.sp ? p.tp : 1);
		double share = route_share(s, n, p.ep, p.tp * p.cp);
		int fp8d = w->fw.train.fp8_dispatch && w->prec == HW_FP8 && hw_run_prec(&s->chip, w->prec) == HW_FP8;
		comm_cost c = comm_a2a_limited(s, bytes, p.ep, p.tp * p.cp, share);
		comm_cost cd = fp8d ? comm_a2a_limited(s, bytes / ab, p.ep, p.tp * p.cp, share) : c;
		double half = moe * (2 + (recomp_full ? 1 : 0)), raw = half * (c.t + cd.t), frac = 1;
		/* A stack that overlaps the expert all-to-alls (framework [overlap] ep) hides them
		 * behind another micro-batch's compute (DualPipe, Megatron's EP overlap), slowed by
		 * the SMs its kernels hold ([overlap] ep_sms) or the chip's overlap slowdown. */
		double sg = w->fw.train.ep_sms > 0 && s->chip.units > 0
				    ? num_min(1, (double)w->fw.train.ep_sms / s->chip.units)
				    : s->chip.overlap_slowdown;
		if (w->fw.train.overlap_ep && raw > 0)
			frac = hide(raw, k->layer.t_bound[ROOF_COMPUTE], sg) / raw;
		/* Two statements: both add into ep_level, in this order (C leaves an operand's order
		 * unspecified, so one expression could sum the levels differently by compiler). */
		double ep_dispatch = take(&c, half, frac, 1, k->ep_level);
		k->ep_layer = ep_dispatch + take(&cd, half, frac, 1, k->ep_level);
	}
	if (p.cp > 1) {
		/* Ring attention: cp-1 exchanges of this rank's K and V per layer forward, K, V and
		 * their gradients backward, each hidden behind the layer's own compute. */
		double kv = b * ((double)w->seq_len / p.cp) * 2 * shard_kv_heads_local(n, p.tp) *
			    n->head_dim * ab;
		comm_cost c = comm_time(s, COMM_SEND_RECV, kv, 2, p.tp);
		double ring_f = (p.cp - 1) * c.t, ring_b = 2 * ring_f;
		double t_f = k->layer.t_phase[OPS_FWD];
		double t_b = k->layer.t_phase[OPS_BWD] + k->layer.t_phase[OPS_RECOMP];
		double sg = s->chip.overlap_slowdown;
		k->cp_layer = hide(ring_f, t_f, sg) + hide(ring_b, t_b, sg);
		if (c.t > 0)
			take(&c, k->cp_layer / c.t, 1, 1, k->cp_level);
	}
}

void train_kernel_eval(const hw_system *s, const wl_workload *w, const plan *key, train_kernel *k)
{
	kernel_eval(s, w, key, k);
}

int train_fits(const hw_system *s, const wl_workload *w, const train_kernel *k, const plan *p,
	       mem_use *m)
{
	*m = mem_train_parts(w, &k->counts, p, k->act_layer, k->logits);
	return !(m->total > s->chip.hbm);
}

/* train_compose; fit: the layout is known to divide and fit, with that memory (else NULL). */
__attribute__((always_inline)) static inline void compose(const hw_system *s, const wl_workload *w,
							  const train_kernel *k, const plan *p, train_memo *mm,
							  const mem_use *fit, train_result *r)
{
	const hw_chip *c = &s->chip;
	const nn_net *n = &w->net;
	double L = shard_layers_per_stage(n, p->pp);
	double b = p->micro_batch > 0 ? p->micro_batch : w->micro_batch;
	double ab = (w->prec == HW_FP32 || w->prec == HW_TF32) ? 4 : 2;
	double m, t_fwd, t_bwd, P;
	double lv[HW_LEVELS_MAX] = {0};
	train_comm *cm = &r->comm;
	roof_time opt;

	/* Every field is written below; these only where a case sets them. */
	r->over_memory = 0;
	cm->pp = cm->dp = cm->dp_total = cm->zero3 = 0;
	r->mfu = r->hfu = 0;
	r->plan = *p;
	r->plan.micro_batch = (int)b;
	if (fit) {
		r->why = SHARD_OK;
		r->feasible = 1;
		r->mem = *fit;
	} else {
		r->why = shard_rule(s, w, p, NULL, 0);
		r->feasible = r->why == SHARD_OK;
		r->mem = mem_train_parts(w, &k->counts, p, k->act_layer, k->logits);
		if (r->feasible && r->mem.total > c->hbm) {
			r->feasible = 0;
			r->over_memory = 1;
			r->why = SHARD_MEMORY;
		}
	}
	m = (double)w->global_batch / (p->dp * b);
	r->micro_batches = m;
	r->run_prec = hw_run_prec(c, w->prec);
	{
		/* No rate for the precision (shard_rule: infeasible): the estimate runs at the widest. */
		hw_prec est = r->run_prec < HW_PREC_N ? r->run_prec : hw_widest_prec(c);
		r->peak = est < HW_PREC_N ? c->peak[est] : 0;
	}

	/* One micro-batch on the last stage: its layers, the LM head and loss, and the embedding
	 * when the first stage is the last. */
	sum_axpy(&r->micro, L, &k->layer, 1);
	sum_axpy(&r->micro, 1, &k->head, 0);
	if (p->pp == 1)
		sum_axpy(&r->micro, 1, &k->embed, 0);
	t_fwd = r->micro.t_phase[OPS_FWD];
	t_bwd = r->micro.t_phase[OPS_BWD] + r->micro.t_phase[OPS_RECOMP];

	cm->tp = L * k->tp_layer;
	cm->ep = L * k->ep_layer;
	cm->cp = L * k->cp_layer;
	NUM_UNROLL
	for (int l = 0; l < HW_LEVELS_MAX; l++)
		lv[l] += m * L * (k->tp_level[l] + k->ep_level[l] + k->cp_level[l]);
	if (p->pp > 1) {
		/* One activation forward and one gradient backward per micro-batch and model chunk;
		 * with sequence parallelism only 1/tp of it crosses (scatter-gather, SC21 §4.1). */
		comm_cost cc = memo_comm(mm, s, NULL, COMM_SEND_RECV, k->pp_msg, 2, p->tp * p->cp * p->dp, 0);
		/* Overlapped sends (framework [overlap] pp) hide behind the micro-batch's compute. */
		double frac = w->fw.train.overlap_pp && cc.t > 0
				      ? hide(2.0 * p->vpp * cc.t, r->micro.t, c->overlap_slowdown) / (2.0 * p->vpp * cc.t)
				      : 1;
		cm->pp = take(&cc, 2.0 * p->vpp, frac, m, lv);
	}
	P = r->mem.params_local;
	{
		/* Data parallelism over dp·cp ranks stride tp: gradients reduced in the framework's
		 * dtype ([sharding] grad_reduce); with ZeRO >= 1 reduce-scattered and the updated 16-bit
		 * parameters all-gathered (Rajbhandari et al. 2020). Routed experts sync only over
		 * the dp·cp/ep ranks that hold the same experts, ep·tp·cp chips apart. */
		int red = w->fw.train.grad_reduce;
		double gb = ab == 4 || red == FW_REDUCE_FP32 || (red == FW_REDUCE_AUTO && w->prec != HW_FP16) ? 4 : 2;
		double part[2] = {P - r->mem.params_expert, r->mem.params_expert};
		for (int ex = 0; ex < 2; ex++) {
			int ndp = (int)shard_zero(p, ex);
			int stride = ex ? p->tp * p->cp * p->ep : p->tp;
			int ctas = w->fw.train.dp_ctas;
			/* A capped communicator moves less at once, and takes that much less of the
			 * SMs and HBM from the compute it overlaps (the chip's overlap_slowdown is
			 * derived from a collective at the links' full rate). */
			double sg = c->overlap_slowdown * comm_ctas_share(s, ctas);
			double Pp = part[ex];
			comm_group grp, *gp = NULL;
			if (ndp <= 1 || Pp <= 0)
				continue;
			if (!mm) {
				comm_group_init_ctas(&grp, s, ndp, stride, ctas);
				gp = &grp;
			}
			if (w->zero < 3) {
				/* fp8 parameters are gathered in fp8 (1 B; Megatron's fp8_param_gather). */
				double pb = r->run_prec == HW_FP8 && w->fw.train.fp8_weights == FW_FP8W_NATIVE ? 1 : ab;
				comm_cost g, a;
				if (gp && w->zero >= 1) {
					comm_group_time2(gp, COMM_REDUCE_SCATTER, Pp * gb, COMM_ALL_GATHER, Pp * pb, &g, &a);
				} else {
					g = memo_comm(mm, s, gp, w->zero >= 1 ? COMM_REDUCE_SCATTER : COMM_ALL_REDUCE, Pp * gb,
						      ndp, stride, ctas);
					a = w->zero >= 1 ? memo_comm(mm, s, gp, COMM_ALL_GATHER, Pp * pb, ndp, stride, ctas) : g;
				}
				double t_g = g.t, t_a = w->zero >= 1 ? a.t : 0;
				/* Bucketed gradient sync overlaps the last micro-batch's backward: a bucket's
				 * reduce starts when its gradients are ready, so the last bucket's (the first
				 * layers and the embedding) is never hidden, nor is the compute before the
				 * first bucket is ready. The parameter gather overlaps the next forward the
				 * same way, its first bucket before the first layer. f is the bucket's share
				 * of the chip's parameters: a layer's, or what the stack's bucket holds
				 * ([overlap] bucket, Megatron's bucket_size in parameters). */
				double f = w->fw.train.dp_bucket > 0 ? num_min(1, w->fw.train.dp_bucket / Pp) : 1 / L;
				double e_g = w->overlap_grad_reduce
						     ? num_max(hide(t_g, t_bwd * (1 - f), sg), t_g * f + sg * t_g * (1 - f))
						     : t_g;
				double e_a = t_a > 0 ? (w->fw.train.overlap_param_gather || w->overlap_grad_reduce
								? num_max(hide(t_a, t_fwd * (1 - f), sg),
								       t_a * f + sg * t_a * (1 - f))
								: t_a)
						     : 0;
				cm->dp_total += t_g + t_a;
				/* Two statements: both add into lv, the gradient reduce first. */
				double dp_reduce = take(&g, 1, t_g > 0 ? e_g / t_g : 0, 1, lv);
				cm->dp += dp_reduce + (t_a > 0 ? take(&a, 1, e_a / t_a, 1, lv) : 0);
			} else {
				/* ZeRO-3 / FSDP: each layer's parameters gathered before its forward and
				 * again before its backward, its gradients reduce-scattered after; prefetched
				 * behind the previous layer's compute. */
				double Pl = Pp / L;
				comm_cost a, g;
				if (gp) {
					comm_group_time2(gp, COMM_ALL_GATHER, Pl * ab, COMM_REDUCE_SCATTER, Pl * gb, &a, &g);
				} else {
					a = memo_comm(mm, s, gp, COMM_ALL_GATHER, Pl * ab, ndp, stride, ctas);
					g = memo_comm(mm, s, gp, COMM_REDUCE_SCATTER, Pl * gb, ndp, stride, ctas);
				}
				if (p->pp > 1 && w->fw.train.pp_keep_gathered) {
					/* Under a pipeline the stage keeps its parameters gathered from the
					 * first micro-batch's forward to the last one's backward and
					 * reduce-scatters the accumulated gradients once: one gather and
					 * one reduce-scatter per layer per step, not per micro-batch. */
					double ex1 = w->fw.train.overlap_param_gather
							     ? hide(a.t, t_fwd / L, sg) + hide(g.t, t_bwd / L, sg)
							     : a.t + g.t;
					double z = ex1 * L + a.t;
					cm->dp += z;
					cm->dp_total += L * (a.t + g.t);
					if (a.t > 0)
						take(&a, z / a.t, 1, 1, lv);
					continue;
				}
				double ex3 = w->fw.train.overlap_param_gather
						     ? hide(a.t, t_fwd / L, sg) + hide(a.t + g.t, t_bwd / L, sg)
						     : 2 * a.t + g.t;
				double z = ex3 * L + a.t; /* the first gather is never hidden */
				cm->zero3 += z;
				cm->dp_total += m * L * (2 * a.t + g.t);
				if (a.t > 0)
					take(&a, z / a.t, 1, m, lv);
			}
		}
	}
	NUM_UNROLL
	for (int l = 0; l < HW_LEVELS_MAX; l++)
		cm->level[l] = lv[l];
	{
		/* Optimizer step over this chip's parameter shard. Adam, mixed precision: reads fp32
		 * master, m, v and main grad (16 B), writes master, m, v (12 B) and the 16-bit
		 * weight (2 B). SGD: reads master and grad, writes master and weight (14 B). */
		ops_op o = {.kind = OPS_OPTIM, .phase = OPS_STEP, .prec = HW_FP32, .count = 1};
		double E = r->mem.params_expert;
		o.m = w->zero >= 1 ? (P - E) / shard_zero(p, 0) + E / shard_zero(p, 1) : P;
		o.bytes = o.m * (w->optimizer == WL_ADAM ? 30 : 14);
		o.flops = o.m * (w->optimizer == WL_ADAM ? 12 : 2);
		opt = roof_op(c, &o);
		if (r->run_prec == HW_FP8 && w->fw.train.fp8_cast_bytes > 0 && w->fw.train.fp8_weights != FW_FP8W_MICRO) {
			/* The fp8 weights made once per step for every micro-batch (Transformer Engine's
			 * is_first_microbatch cache under Megatron): one fused cast and transpose of the
			 * chip's weights, read 2 B and write 1 + 1 B more than a cast; kept in fp8, only
			 * the transpose (read and write 1 B). */
			roof_time wc;
			o.kind = OPS_ELEM;
			o.m = P;
			o.bytes = P * (w->fw.train.fp8_weights == FW_FP8W_STEP ? w->fw.train.fp8_cast_bytes + 1 : 2);
			o.flops = 0;
			wc = roof_op(c, &o);
			opt.t += wc.t;
		}
	}
	{
		double per_micro = cm->tp + cm->pp + cm->ep + cm->cp + cm->zero3;
		r->t_micro = r->micro.t + per_micro;
		r->t_compute = m * r->micro.t;
		r->t_bubble = (p->pp - 1.0) / p->vpp * r->t_micro;
		r->t_optimizer = opt.t;
		r->t_comm_exposed = m * per_micro + cm->dp;
		r->comm_priced = 1;
		r->step_time = m * r->t_micro + r->t_bubble + cm->dp + r->t_optimizer;
	}
	NUM_UNROLL
	for (int i = 0; i < 3; i++)
		r->t_bound[i] = r->micro.t_bound[i] * m + (opt.bound == (roof_bound)i ? opt.t : 0);
	r->tokens_per_step = (double)w->global_batch * w->seq_len;
	r->tokens_per_s = r->tokens_per_step / r->step_time;
	r->train_time = w->tokens / r->tokens_per_s;
	r->model_flops_per_token = k->model_flops_per_token;
	r->hw_flops_per_token = k->hw_flops_per_token;
	r->model_tflops_per_chip = r->model_flops_per_token * r->tokens_per_s / p->chips / 1e12;
	r->hw_tflops_per_chip = r->hw_flops_per_token * r->tokens_per_s / p->chips / 1e12;
	if (r->peak > 0) {
		r->mfu = r->model_tflops_per_chip * 1e12 / r->peak;
		r->hfu = r->hw_tflops_per_chip * 1e12 / r->peak;
	}
}

void train_compose(const hw_system *s, const wl_workload *w, const train_kernel *k, const plan *p,
		   train_memo *mm, train_result *r)
{
	compose(s, w, k, p, mm, NULL, r);
}

void train_compose_fit(const hw_system *s, const wl_workload *w, const train_kernel *k, const plan *p,
		       train_memo *mm, const mem_use *m, train_result *r)
{
	compose(s, w, k, p, mm, m, r);
}

const char *train_reason(const train_result *r, const hw_system *s, const wl_workload *w, char *buf,
			 size_t len)
{
	if (len == 0)
		return buf;
	buf[0] = '\0';
	if (r->why == SHARD_MEMORY)
		snprintf(buf, len, "needs %.1f GiB per chip, has %.1f GiB", r->mem.total / 1073741824.0,
			 s->chip.hbm / 1073741824.0);
	else if (r->why != SHARD_OK)
		shard_rule(s, w, &r->plan, buf, len > INT_MAX ? INT_MAX : (int)len);
	return buf;
}

void train_eval(const hw_system *s, const wl_workload *w, const plan *p, train_result *r,
		ops_list *ops)
{
	train_kernel k;
	kernel_eval(s, w, p, &k);
	compose(s, w, &k, p, NULL, NULL, r);
	if (ops)
		ops_train(w, p, s->chip.family, ops);
}
