/* infer: serving steps and scenarios (see infer.h). */
#include "infer.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const double GiB = 1073741824.0;

double infer_normal_quantile(double q)
{
	/* Newton on Φ(z) = ½·erfc(-z/√2). */
	double z = 0;
	for (int i = 0; i < 60; i++) {
		double f = 0.5 * erfc(-z / sqrt(2.0)) - q;
		double d = exp(-z * z / 2) / sqrt(2 * 3.14159265358979323846);
		double step = f / d;
		z -= step;
		if (fabs(step) < 1e-12)
			break;
	}
	return z;
}

static roof_bound main_bound(const roof_sum *s)
{
	roof_bound b = ROOF_COMPUTE;
	for (int k = 1; k < 3; k++)
		if (s->t_bound[k] > s->t_bound[b])
			b = (roof_bound)k;
	return b;
}

static void add_comm(infer_step *st, const comm_cost *c, double count)
{
	st->t_comm += c->t * count;
	comm_split(c, c->t * count, st->comm_level);
}

/* Communication and overheads of one forward pass over T tokens on one stage. */
static void pass_extras(const hw_system *s, const wl_workload *w, const plan *p, double T,
			infer_step *st)
{
	const nn_net *n = &w->net;
	double L = ops_layers_per_stage(n, p->pp);
	double ab = (w->prec == HW_FP32 || w->prec == HW_TF32) ? 4 : 2;
	double moe = n->experts > 0 ? (double)(n->layers - n->dense_layers) / n->layers : 0;
	if (p->tp > 1) {
		/* Megatron-style TP: all-reduce after attention and after the FFN (MODEL.md). */
		comm_cost c = comm_time(s, COMM_ALL_REDUCE, T * n->hidden * ab * s->chip.ranks_per_chip,
					p->tp, 1);
		add_comm(st, &c, 2 * L);
	}
	if (p->ep > 1 && moe > 0) {
		comm_cost c = comm_time(s, COMM_ALL_TO_ALL, T * n->experts_active * n->hidden * ab / p->tp,
					p->ep, p->tp);
		add_comm(st, &c, 2 * L * moe);
	}
	st->t_overhead = L * s->chip.layer_overhead;
}

/* The whole pipeline: every stage in turn, activations sent between them. */
static void pipeline(const hw_system *s, const wl_workload *w, const plan *p, double T, infer_step *st)
{
	double ab = (w->prec == HW_FP32 || w->prec == HW_TF32) ? 4 : 2;
	double stage = st->t_ops + st->t_comm + st->t_overhead;
	st->t = stage * p->pp;
	if (p->pp > 1) {
		comm_cost c = comm_time(s, COMM_SEND_RECV, T * w->net.hidden * ab, 2, p->tp * p->dp);
		st->t += (p->pp - 1) * c.t;
		for (int l = 0; l < HW_LEVELS_MAX; l++)
			st->comm_level[l] += (p->pp - 1) * c.t_level[l];
	}
}

void infer_step_eval(const hw_system *s, const wl_workload *w, const plan *p, double batch,
		     double ctx, double prefill_tokens, infer_step *out)
{
	ops_list l;
	memset(out, 0, sizeof *out);
	ops_iter(w, p, batch, ctx, prefill_tokens, &l);
	out->ops = roof_list(&s->chip, &l, NULL);
	out->t_ops = out->ops.t;
	pass_extras(s, w, p, batch + prefill_tokens, out);
	pipeline(s, w, p, batch + prefill_tokens, out);
}

/* Static prefill of `batch` whole prompts (scenario single). */
static void prefill_step(const hw_system *s, const wl_workload *w, const plan *p, double batch,
			 infer_step *out, ops_list *ops)
{
	memset(out, 0, sizeof *out);
	ops_prefill(w, p, (int)batch, ops);
	out->ops = roof_list(&s->chip, ops, NULL);
	out->t_ops = out->ops.t;
	pass_extras(s, w, p, batch * w->input_len, out);
	pipeline(s, w, p, batch * w->input_len, out);
}

/* Largest batch whose KV cache (full context) and workspace fit one chip. */
static double memory_batch(const wl_workload *w, const plan *p, const hw_chip *c, double chunk)
{
	double ctx = (double)w->input_len + w->output_len;
	mem_use one = mem_infer(w, p, 1, ctx, chunk);
	mem_use none = mem_infer(w, p, 0, ctx, chunk);
	double per = one.total - none.total;
	/* Serving runtimes give the KV cache a share of what weights and workspace leave
	 * (TensorRT-LLM kv_cache_free_gpu_mem_fraction, vLLM gpu_memory_utilization: 0.9). */
	double room = (c->hbm - none.total) * w->kv_mem_fraction;
	if (room <= 0 || per <= 0)
		return 0;
	return floor(room / per);
}

typedef struct load_point {
	double B, iter_mean, iter_tail, ttft_mean, ttft_tail;
	infer_step mean;
} load_point;

/* Mean and tail of continuous batching with B streams in flight. Occupancy is Poisson with
 * mean B (tail Bt = B + z√B); a request's TPOT averages the iterations of its whole life, over
 * which B arrivals' prompts are prefilled (Little), so its tail is an iteration at occupancy Bt
 * with the mean prefill rate. TTFT is the rest of the running iteration plus the one that
 * holds the prompt; its tail takes Bt streams and a burst of kt = k + z√k other prompts. */
/* Batched prefill (vLLM): prompts collected for a period D run as one prefill pass of
 * n = λ·D prompts taking t_p, and decode iterations (t_d, no prompts in them) fill the rest of
 * the period. The scheduler spends the TTFT budget: the p-th percentile wait (z-scaled share
 * of D) plus t_p meets ttft_slo. Tokens per period B·(D - t_p)/t_d = λ·out·D gives λ; a
 * stream's TPOT stretches by D / (D - t_p); TTFT averages D/2 + t_p. */
static void batched_prefill(const hw_system *s, const wl_workload *w, const plan *p, double B,
			    double z, double ctx, load_point *lp)
{
	infer_step dec, dec_tail, pre;
	double in = w->input_len, out = w->output_len, Bt = B + z * sqrt(B);
	double q = 0.5 * erfc(-z / sqrt(2.0));   /* the percentile as a fraction */
	double D = w->ttft_slo, t_p = 0, lambda = 0;
	infer_step_eval(s, w, p, B, ctx, 0, &dec);
	infer_step_eval(s, w, p, Bt, ctx, 0, &dec_tail);
	for (int i = 0; i < 20; i++) {
		double n = lambda * D;
		infer_step_eval(s, w, p, 0, ctx, n * in, &pre);
		t_p = n > 0 ? pre.t : 0;
		D = (w->ttft_slo - t_p) / q;
		if (D <= t_p) {
			D = 2 * t_p + 1e-6;
			break;
		}
		lambda = B * (D - t_p) / (dec.t * out * D);
	}
	lp->mean = dec;
	lp->mean.t = dec.t * D / (D - t_p);
	lp->iter_mean = lp->mean.t;
	lp->iter_tail = dec_tail.t * D / (D - t_p);
	lp->ttft_mean = D / 2 + t_p;
	lp->ttft_tail = q * D + t_p;
}

static void at_load(const hw_system *s, const wl_workload *w, const plan *p, double B, double z,
		    double ctx, load_point *lp)
{
	infer_step tail, burst, own_mean, own_tail;
	double in = w->input_len, out = w->output_len;
	double k = B / out;                       /* arrivals per iteration */
	double Bt = B + z * sqrt(B), kt = k + z * sqrt(k);
	lp->B = B;
	infer_step_eval(s, w, p, B, ctx, k * in, &lp->mean);
	infer_step_eval(s, w, p, Bt, ctx, Bt * in / out, &tail);
	infer_step_eval(s, w, p, B, ctx, (1 + k) * in, &own_mean);
	infer_step_eval(s, w, p, Bt, ctx, kt * in, &burst);
	infer_step_eval(s, w, p, Bt, ctx, (1 + kt) * in, &own_tail);
	lp->iter_mean = lp->mean.t;
	lp->iter_tail = tail.t;
	lp->ttft_mean = 0.5 * lp->mean.t + own_mean.t;
	lp->ttft_tail = burst.t + own_tail.t;
	if (w->scheduler == FW_SCHED_BATCHED_PREFILL && w->ttft_slo > 0)
		batched_prefill(s, w, p, B, z, ctx, lp);
}

void infer_eval(const hw_system *s, const wl_workload *w, const plan *p, infer_result *r,
		ops_list *pre, ops_list *dec)
{
	ops_list lp_ops, ld_ops;
	/* cppcheck-suppress uninitvar ; outputs the ops_* functions fill */
	ops_list *P = pre ? pre : &lp_ops, *D = dec ? dec : &ld_ops;
	const hw_chip *c = &s->chip;
	double ctx_max = (double)w->input_len + w->output_len;
	double chunk = w->max_num_tokens;   /* tokens per pass (TensorRT-LLM default 8192) */
	double cap, B;
	const char *limit = "memory";   /* what caps the batch */
	infer_step pstep;

	memset(r, 0, sizeof *r);
	r->plan = *p;
	r->scenario = w->scenario;
	r->run_prec = hw_run_prec(c, w->prec);
	r->feasible = plan_check(s, w, p, r->reason, INFER_REASON_MAX);
	r->ctx_mean = w->input_len + w->output_len / 2.0;
	r->comm_priced = 1;
	cap = memory_batch(w, p, c, w->scenario == WL_SINGLE ? w->concurrency * (double)w->input_len : chunk);

	if (w->scenario == WL_SINGLE) {
		B = w->concurrency;
		snprintf(r->batch_reason, INFER_REASON_MAX,
			 "single: the workload's %d concurrent streams as one batch per replica", w->concurrency);
		prefill_step(s, w, p, B, &pstep, P);
		infer_step_eval(s, w, p, B, r->ctx_mean, 0, &r->step);
		r->ttft = r->ttft_tail = pstep.t;
		r->tpot = r->tpot_tail = r->step.t;
		r->tokens_per_s = p->dp * B * w->output_len / (r->ttft + (w->output_len - 1) * r->tpot);
		r->requests_per_s = r->tokens_per_s / w->output_len;
	} else {
		double z = w->scenario == WL_OFFLINE ? 0 : infer_normal_quantile(w->slo_percentile / 100);
		double hi = cap;
		load_point best, cur;
		int ok_any = 0;
		/* An iteration carries B decode tokens and B·in/out prompt tokens within the token
		 * budget; beyond it prompts queue and the batch cannot grow. */
		if (w->scheduler == FW_SCHED_INFLIGHT) {
			double budget = floor(chunk / (1.0 + (double)w->input_len / w->output_len));
			if (budget >= 1 && budget < hi) {
				hi = budget;
				limit = "the max_num_tokens budget per iteration";
			}
		}
		/* Memory must hold the tail occupancy, not the mean: B + z·√B <= cap. */
		if (z > 0 && hi > 1)
			hi = fmax(1, floor(pow((-z + sqrt(z * z + 4 * hi)) / 2, 2)));
		if (z > 0 && hi > 1 && !strcmp(limit, "memory"))
			limit = "memory at the tail occupancy";
		if (w->concurrency > 0 && w->concurrency < hi) {
			hi = w->concurrency;
			limit = "concurrency";
		}
		memset(&best, 0, sizeof best);
		if (hi < 1) {
			hi = 1;
		}
		if (w->scenario == WL_OFFLINE) {
			/* Throughput grows with the batch until compute saturates: take the best of the
			 * powers of two and the memory bound. */
			double best_tp = 0;
			for (double b = 1;; b = fmin(b * 2, hi)) {
				at_load(s, w, p, b, 0, r->ctx_mean, &cur);
				if (b / cur.iter_mean > best_tp * 1.0001) {
					best_tp = b / cur.iter_mean;
					best = cur;
				}
				if (b >= hi)
					break;
			}
			ok_any = 1;
			snprintf(r->batch_reason, INFER_REASON_MAX,
				 "offline: %.0f streams maximise tokens/s (%s allows %.0f)", best.B,
				 limit, hi);
		} else {
			/* Highest load within the limits: the tail grows with B, so bisect. */
			double lo_b = 1, hi_b = hi;
			at_load(s, w, p, 1, z, r->ctx_mean, &cur);
			if ((w->tpot_slo <= 0 || cur.iter_tail <= w->tpot_slo) &&
			    (w->ttft_slo <= 0 || cur.ttft_tail <= w->ttft_slo)) {
				ok_any = 1;
				best = cur;
				at_load(s, w, p, hi_b, z, r->ctx_mean, &cur);
				if ((w->tpot_slo <= 0 || cur.iter_tail <= w->tpot_slo) &&
				    (w->ttft_slo <= 0 || cur.ttft_tail <= w->ttft_slo)) {
					best = cur;
				} else {
					for (int it = 0; it < 40 && hi_b - lo_b > 0.5; it++) {
						double mid = floor((lo_b + hi_b) / 2);
						at_load(s, w, p, mid, z, r->ctx_mean, &cur);
						if ((w->tpot_slo <= 0 || cur.iter_tail <= w->tpot_slo) &&
						    (w->ttft_slo <= 0 || cur.ttft_tail <= w->ttft_slo)) {
							lo_b = mid;
							best = cur;
						} else {
							hi_b = mid;
						}
					}
				}
				snprintf(r->batch_reason, INFER_REASON_MAX,
					 "%s: %.0f streams is the highest load whose p%g TPOT %.1f ms and TTFT %.0f ms meet %.0f / %.0f ms%s%s%s",
					 wl_scenario_names[w->scenario], best.B, w->slo_percentile, best.iter_tail * 1e3,
					 best.ttft_tail * 1e3, w->tpot_slo * 1e3, w->ttft_slo * 1e3,
					 best.B >= hi ? " (capped by " : "", best.B >= hi ? limit : "", best.B >= hi ? ")" : "");
			} else {
				best = cur;
				snprintf(r->batch_reason, INFER_REASON_MAX,
					 "%s: even one stream misses the limits (p%g TPOT %.1f ms, TTFT %.0f ms against %.0f / %.0f ms)",
					 wl_scenario_names[w->scenario], w->slo_percentile, cur.iter_tail * 1e3,
					 cur.ttft_tail * 1e3, w->tpot_slo * 1e3, w->ttft_slo * 1e3);
			}
		}
		if (!ok_any && r->feasible) {
			r->feasible = 0;
			snprintf(r->reason, INFER_REASON_MAX, "%s", r->batch_reason);
		}
		B = best.B;
		r->step = best.mean;
		r->tpot = best.iter_mean;
		r->tpot_tail = best.iter_tail;
		r->ttft = best.ttft_mean;
		r->ttft_tail = best.ttft_tail;
		r->tokens_per_s = p->dp * B / best.iter_mean;
		r->requests_per_s = r->tokens_per_s / w->output_len;
		ops_prefill(w, p, 1, P);
	}
	r->batch = B;
	r->mem = mem_infer(w, p, B, ctx_max, w->scenario == WL_SINGLE ? B * w->input_len : chunk);
	if (r->feasible && r->mem.total > c->hbm) {
		r->feasible = 0;
		snprintf(r->reason, INFER_REASON_MAX,
			 "needs %.1f GiB per chip (weights %.1f, KV cache %.1f), has %.1f GiB",
			 r->mem.total / GiB, r->mem.weights / GiB, r->mem.kv_cache / GiB, c->hbm / GiB);
	}
	ops_decode(w, p, B < 1 ? 1 : (int)ceil(B), r->ctx_mean, D);
	r->prefill = roof_list(c, P, NULL);
	r->decode = roof_list(c, D, NULL);
	r->prefill_bound = main_bound(&r->prefill);
	r->decode_bound = main_bound(&r->decode);
	r->t_comm_exposed = r->step.t_comm;
	r->tokens_per_s_per_chip = r->tokens_per_s / p->chips;
}
