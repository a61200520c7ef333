/* train: training step composition (see train.h). */
#include "train.h"

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
	r->t_micro = r->micro.t;
	r->t_compute = r->micro_batches * r->t_micro;
	r->t_bubble = (p->pp - 1.0) / p->vpp * r->t_micro;
	r->t_optimizer = opt.t;
	r->comm_priced = 0;
	r->step_time = r->t_compute + r->t_bubble + r->t_optimizer + r->t_comm_exposed;
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
