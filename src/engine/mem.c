/* mem: bytes per chip (see mem.h). */
#include "engine/mem.h"

#include <math.h>
#include <string.h>

#include "base/num.h"
#include "engine/shard.h"

double mem_act_layer(const wl_workload *w, const plan *p, double b)
{
	/* Korthikanti et al. 2022 §4.1, per token per layer, 16-bit: attention 11h (QKV input 2h,
	 * Q and K 4h, V 2h, projection input 2h, dropout mask h) + 5·a·s (scores, softmax,
	 * dropout) ; MLP 19h at f = 4h (input 2h, activation input 8h, output 8h, mask h) ; two
	 * norms 4h. Written here for any widths: Q is a·d, K and V are k·d, the activation input
	 * is f (GELU) or 2f (SwiGLU). The part replicated across tensor ranks without sequence
	 * parallelism is norms 4h, masks 2h, QKV and MLP inputs 4h = 10h. */
	const nn_net *n = &w->net;
	double h = n->hidden, a = n->heads, k = n->kv_heads, d = n->head_dim, dv = n->v_head_dim;
	double s = (double)w->seq_len / p->cp, t = p->tp;
	double f = n->experts > 0 ? n->expert_ffn * (n->experts_active + n->shared_experts) : n->ffn;
	double fin = n->act == NN_SWIGLU ? 2 * f : f;
	double mask = w->dropout ? 1 : 0;
	double repl = 4 * h + 2 * mask * h + 2 * h + 2 * h;
	double par = 2 * a * d + 2 * k * d + 2 * k * dv + 2 * a * dv + 2 * fin + 2 * f;
	double quad = w->flash_attention ? 0 : (4 + mask) * a * (double)w->seq_len;
	double per_token;

	if (w->recompute == WL_RC_FULL)
		/* Only the layer input is kept (Korthikanti §5: 2·s·b·h). */
		return 2 * s * b * h / ((p->sp && t > 1) ? t : 1);
	if (w->recompute == WL_RC_SELECTIVE && w->fw.train.selective != FW_SEL_ATTENTION) {
		/* Kept 16-bit tensors per token (framework's selective policy): the layer input and
		 * the row-parallel outputs (h each, whole on every tensor rank without SP), the
		 * attention output a·d, and the column-parallel matmul outputs that are not re-run:
		 * per-op checkpointing keeps every other matmul (q, v, the first FFN input), the
		 * matmul policy keeps them all (q, k, v and the FFN inputs). */
		double col, rows;
		if (w->fw.train.selective == FW_SEL_OPS) {
			col = a * d + k * dv + f;
			rows = 1 + (n->act == NN_SWIGLU ? 1 : 0); /* input, w2 output */
		} else {
			col = a * d + k * d + k * dv + fin;
			rows = 3; /* input, attention out-projection, FFN down-projection */
		}
		col += a * dv;
		if (p->sp && t > 1)
			return s * b * 2 * (rows * h + col) / t;
		return s * b * 2 * (rows * h + col / t);
	}
	if (w->recompute == WL_RC_SELECTIVE)
		quad = 0; /* the attention core is recomputed */
	if (p->sp && t > 1)
		per_token = (repl + par + quad) / t;
	else
		per_token = repl + (par + quad) / t;
	return s * b * per_token;
}

mem_use mem_train(const wl_workload *w, const plan *p)
{
	nn_counts c = nn_params(&w->net);
	return mem_train_c(w, &c, p);
}

double mem_train_logits(const wl_workload *w, const plan *p)
{
	double b = p->micro_batch > 0 ? p->micro_batch : w->micro_batch;
	return b * ((double)w->seq_len / p->cp) * w->net.vocab / p->tp *
	       (w->fw.train.logits_bytes > 0 ? w->fw.train.logits_bytes : 4);
}

mem_use mem_train_c(const wl_workload *w, const nn_counts *cnt, const plan *p)
{
	double b = p->micro_batch > 0 ? p->micro_batch : w->micro_batch;
	return mem_train_parts(w, cnt, p, w->fw.train.offload_remat ? 0 : mem_act_layer(w, p, b),
			       mem_train_logits(w, p));
}

mem_use mem_train_parts(const wl_workload *w, const nn_counts *cnt, const plan *p, double act_layer,
			double logits)
{
	mem_use m;
	const nn_net *n = &w->net;
	double b = p->micro_batch > 0 ? p->micro_batch : w->micro_batch;
	double P = shard_params_local_c(n, cnt, p);
	double shard = (double)p->dp * p->cp;
	double micro = (double)w->global_batch / (p->dp * b);
	double inflight = num_min((double)p->pp, micro);
	double L = shard_layers_per_stage(n, p->pp);
	double wb = 2, gb = 2, ob = w->optimizer == WL_ADAM ? 12 : 4;

	memset(&m, 0, sizeof m);
	m.params_local = P;
	if (w->prec == HW_FP32 || w->prec == HW_TF32)
		wb = gb = 4;
	{
		double E = shard_params_expert_local_c(n, cnt, p), D = P - E, se = shard_zero(p, 1);
		m.params_expert = E;
		m.weights = D * wb / (w->zero >= 3 ? shard : 1) + E * wb / (w->zero >= 3 ? se : 1);
		m.grads = D * gb / (w->zero >= 2 ? shard : 1) + E * gb / (w->zero >= 2 ? se : 1);
		if (w->zero >= 3 && p->pp > 1 && w->fw.train.pp_keep_gathered) {
			/* The stage's parameters stay gathered across the micro-batches and their
			 * gradients accumulate unsharded, in the dtype they are reduced in. */
			double ga = w->fw.train.grad_reduce == FW_REDUCE_FP32 ? 4 : gb;
			m.weights = P * wb;
			m.grads = P * ga;
		}
		m.optimizer = D * ob / (w->zero >= 1 ? shard : 1) + E * ob / (w->zero >= 1 ? se : 1);
	}
	/* What recompute keeps goes to host memory when the framework offloads it (MaxText's
	 * offloading remat policies); the live working set of one layer is not counted here. */
	m.activations = w->fw.train.offload_remat ? 0 : act_layer * L * inflight;
	if (p->pp > 1 && p->vpp > 1)
		m.activations *= 1 + (p->pp - 1.0) / (p->pp * (double)p->vpp);
	/* The logits the loss keeps for its backward on the last stage: fp32 unless the framework
	 * keeps them in 16 bits ([memory] logits_bytes). */
	m.activations += logits;
	m.total = m.weights + m.grads + m.optimizer + m.activations;
	return m;
}

mem_use mem_infer(const wl_workload *w, const plan *p, double batch, double ctx,
		  double prefill_tokens)
{
	mem_use m;
	const nn_net *n = &w->net;
	double L = shard_layers_per_stage(n, p->pp);
	double kv_token = nn_is_mla(n) ? nn_kv_elems_per_token_layer(n)
				       : 2 * shard_kv_heads_local(n, p->tp) * n->head_dim;
	double f = n->experts > 0 ? n->expert_ffn * n->experts_active : n->ffn;

	memset(&m, 0, sizeof m);
	m.params_local = shard_params_local(n, p);
	m.weights = m.params_local * hw_prec_bytes(w->prec);
	/* A layer with a window keeps at most its window of each sequence's tokens (vLLM's
	 * SlidingWindowSpec and ChunkedLocalAttentionSpec free the blocks that fall out of it). */
	{
		double ws = nn_window_share(n);
		double tokens = (1 - ws) * ctx + ws * nn_kv_tokens(n, ctx, 1);
		m.kv_cache = batch * tokens * kv_token * L * hw_prec_bytes(w->kv_prec);
	}
	/* Workspace: the live tensors of one prefill layer (input, QKV, FFN activation input). */
	m.activations = prefill_tokens * 2 *
			(2 * n->hidden + (double)(n->heads + 2 * n->kv_heads) * n->head_dim / p->tp +
			 (n->act == NN_SWIGLU ? 2 : 1) * f / p->tp);
	m.total = m.weights + m.kv_cache + m.activations;
	return m;
}
