/* infer: prefill and decode composition (see infer.h). */
#include "infer.h"

#include <stdio.h>
#include <string.h>

static roof_bound main_bound(const roof_sum *s)
{
	roof_bound b = ROOF_COMPUTE;
	for (int k = 1; k < 3; k++)
		if (s->t_bound[k] > s->t_bound[b])
			b = (roof_bound)k;
	return b;
}

void infer_eval(const hw_system *s, const wl_workload *w, const plan *p, infer_result *r,
		ops_list *pre, ops_list *dec)
{
	ops_list lp, ld;
	/* cppcheck-suppress uninitvar ; lp and ld are outputs ops_prefill/ops_decode fill */
	ops_list *P = pre ? pre : &lp, *D = dec ? dec : &ld;
	const hw_chip *c = &s->chip;
	double ctx_max = (double)w->input_len + w->output_len;

	memset(r, 0, sizeof *r);
	r->plan = *p;
	r->batch = w->concurrency;
	r->run_prec = hw_run_prec(c, w->prec);
	r->feasible = plan_check(s, w, p, r->reason, INFER_REASON_MAX);
	r->mem = mem_infer(w, p, r->batch, ctx_max);
	if (r->feasible && r->mem.total > c->hbm) {
		r->feasible = 0;
		snprintf(r->reason, INFER_REASON_MAX,
			 "needs %.1f GiB per chip (weights %.1f, KV cache %.1f), has %.1f GiB",
			 r->mem.total / 1073741824.0, r->mem.weights / 1073741824.0,
			 r->mem.kv_cache / 1073741824.0, c->hbm / 1073741824.0);
	}
	r->ctx_mean = w->input_len + w->output_len / 2.0;
	ops_prefill(w, p, r->batch, P);
	ops_decode(w, p, r->batch, r->ctx_mean, D);
	r->prefill = roof_list(c, P, NULL);
	r->decode = roof_list(c, D, NULL);
	r->prefill_bound = main_bound(&r->prefill);
	r->decode_bound = main_bound(&r->decode);
	/* Every pipeline stage runs in turn for one token or one prompt. */
	r->ttft = r->prefill.t * p->pp;
	r->tpot = r->decode.t * p->pp + r->t_comm_exposed;
	r->comm_priced = 0;
	{
		double per_replica = r->batch * (double)w->output_len /
				     (r->ttft + (w->output_len - 1) * r->tpot);
		r->tokens_per_s = per_replica * p->dp;
		r->tokens_per_s_per_chip = r->tokens_per_s / p->chips;
	}
}
