/* ops: FLOPs and bytes of the lowered workload against hand derivations. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "fixtures.h"
#include "engine/ops.h"
#include "engine/roof.h"
#include "engine/train.h"

static double sum_flops(const ops_list *l, ops_kind kind, ops_phase phase)
{
	double s = 0;
	for (int i = 0; i < l->n; i++)
		if (l->op[i].kind == kind && l->op[i].phase == phase)
			s += l->op[i].flops * l->op[i].count;
	return s;
}

static const ops_op *find(const ops_list *l, const char *name, ops_phase phase)
{
	for (int i = 0; i < l->n; i++)
		if (!strcmp(l->op[i].name, name) && l->op[i].phase == phase)
			return &l->op[i];
	return NULL;
}

Test(ops, training_gemm_flops_are_2_and_4_per_parameter_token)
{
	/* GPT fixture: L = 2, h = 1024, f = 4h, V = 1000; one micro-batch of s = 512 tokens, tp 1.
	 * Matmul parameters per layer 12·h² (attention 4h², FFN 8h²), plus the LM head V·h.
	 * Forward GEMM FLOPs = 2·T·(12·h²·L + V·h); backward = 2 × forward. */
	nn_net n = fx_gpt(2, 1024, 16, 1000);
	wl_workload w = fx_train(n, 512, 8, 1);
	plan p = {1, 1, 1, 8, 1, 1, 0, 1, 8};
	ops_list l;
	double h = 1024, T = 512;
	double fwd = 2 * T * (12 * h * h * 2 + 1000 * h);
	ops_train(&w, &p, NULL, &l);
	cr_assert_float_eq(sum_flops(&l, OPS_GEMM, OPS_FWD), fwd, fwd * 1e-12);
	cr_assert_float_eq(sum_flops(&l, OPS_GEMM, OPS_BWD), 2 * fwd, fwd * 1e-12);
	/* Causal flash attention executes half of QKᵀ and AV: 2·s²·h per layer per sequence
	 * (4·s²·h counted in full), and 2.5× that backward. */
	cr_assert_float_eq(sum_flops(&l, OPS_ATTN, OPS_FWD), 2 * T * T * h * 2, 1);
	cr_assert_float_eq(sum_flops(&l, OPS_ATTN, OPS_BWD), 2.5 * 2 * T * T * h * 2, 1);
}

Test(ops, model_flops_match_megatron)
{
	/* Narayanan et al. SC21 eq. 3 without recompute (Korthikanti et al. 2022): model FLOPs per
	 * sequence 72·s·L·h²·(1 + s/(6h) + V/(12·L·h)); with full recompute the hardware count is
	 * 96·s·L·h²·(1 + s/(6h) + V/(16·L·h)). Per token divide by s. */
	nn_net n = fx_gpt(24, 2304, 24, 51200);
	wl_workload w = fx_train(n, 2048, 512, 1);
	double s = 2048, L = 24, h = 2304, V = 51200, model, hw;
	w.recompute = WL_RC_FULL;
	train_flops_per_token(&w, &model, &hw);
	cr_assert_float_eq(model, 72 * L * h * h * (1 + s / (6 * h) + V / (12 * L * h)), model * 1e-12);
	cr_assert_float_eq(hw, 96 * L * h * h * (1 + s / (6 * h) + V / (16 * L * h)), hw * 1e-12);
	/* 6·N + attention for the 1.7B model: N ≈ 1.65e9 -> about 1.1e10 FLOP per token. */
	cr_assert(model > 6 * 1.6e9 && model < 6 * 1.9e9);
}

Test(ops, tensor_parallel_splits_gemms)
{
	nn_net n = fx_gpt(2, 1024, 16, 1000);
	wl_workload w = fx_train(n, 512, 8, 1);
	plan p1 = {1, 1, 1, 8, 1, 1, 0, 1, 8}, p4 = {4, 1, 1, 2, 1, 1, 1, 1, 8};
	ops_list a, b;
	ops_train(&w, &p1, NULL, &a);
	ops_train(&w, &p4, NULL, &b);
	cr_assert_float_eq(sum_flops(&b, OPS_GEMM, OPS_FWD) * 4, sum_flops(&a, OPS_GEMM, OPS_FWD), 1);
	cr_assert_float_eq(find(&b, "qkv_proj", OPS_FWD)->n, 3 * 1024 / 4.0, 1e-9);
	cr_assert_float_eq(find(&b, "o_proj", OPS_FWD)->k, 1024 / 4.0, 1e-9);
}

Test(ops, decode_gemv_is_memory_bound)
{
	/* Batch 1 decode: ffn_up reads its 4h×h weights in bf16 (2 B) = 8·h² bytes and does
	 * 2·4h·h FLOP: intensity ~1 FLOP/B, far below the round chip's 100 FLOP/B ridge, so the
	 * time is bytes / 1 TB/s. */
	nn_net n = fx_gpt(2, 1024, 16, 1000);
	wl_workload w = fx_infer(n, 128, 128, 1);
	plan p = {1, 1, 1, 1, 1, 1, 0, 0, 1};
	hw_chip c = fx_round_chip();
	ops_list l;
	const ops_op *o;
	roof_time r;
	ops_decode(&w, &p, 1, 192, &l);
	o = find(&l, "ffn_up", OPS_FWD);
	cr_assert(o);
	cr_assert_float_eq(o->bytes, 4.0 * 1024 * 1024 * 2 + (1024 + 4096) * 2, 1e-6);
	r = roof_op(&c, o);
	cr_assert_eq(r.bound, ROOF_MEMORY);
	cr_assert_float_eq(r.t, o->bytes / 1e12, 1e-15);
}

Test(ops, decode_reads_the_kv_cache)
{
	/* Attention at context c reads K and V: c·2·k·d·2 B per sequence per layer. */
	nn_net n = fx_gpt(2, 1024, 16, 1000);
	wl_workload w = fx_infer(n, 1000, 100, 4);
	plan p = {1, 1, 1, 1, 1, 1, 0, 0, 1};
	ops_list l;
	const ops_op *o;
	ops_decode(&w, &p, 4, 1050, &l);
	o = find(&l, "attention", OPS_FWD);
	cr_assert_float_eq(o->bytes, 4 * (1 * 16 * 128 * 2.0 + 1050 * 2 * 16 * 64 * 2.0), 1e-6);
}

Test(ops, moe_decode_touches_only_hit_experts)
{
	/* 8 experts, top-2, one token: exactly 2 experts receive it, so expert_up runs 2
	 * instances of m = 1 token: P(hit) = 1 - (1 - 2/8)^1 = 1/4 of 8 experts. */
	nn_net n = fx_gpt(2, 1024, 16, 1000);
	wl_workload w;
	plan p = {1, 1, 1, 1, 1, 1, 0, 0, 1};
	ops_list l;
	const ops_op *o;
	n.experts = 8;
	n.experts_active = 2;
	n.expert_ffn = 4096;
	w = fx_infer(n, 16, 16, 1);
	ops_decode(&w, &p, 1, 24, &l);
	o = find(&l, "expert_up", OPS_FWD);
	cr_assert(o);
	cr_assert_float_eq(o->batch, 2.0, 1e-9);
	cr_assert_float_eq(o->m, 1.0, 1e-9);
}

Test(ops, a_serving_step_waits_for_the_busiest_expert_rank)
{
	/* Mixtral-like: 8 experts, top 2, 32 decoding sequences per rank. Balanced, each expert
	 * of a rank gets T·k·ep / E = 32 · 2 · 8 / 8 = 64 rows; over ep = 8 ranks the busiest holds
	 * T·k + √(2 T·k ln 8) of its T·k = 64: a factor 1 + √(2 ln 8 / 64) = 1.3605. Without
	 * expert parallelism nothing waits. */
	nn_net n = fx_gpt(4, 4096, 32, 32000);
	wl_workload w;
	plan p8 = {1, 1, 1, 8, 1, 8, 0, 0, 8}, p1 = {1, 1, 1, 1, 1, 1, 0, 0, 1};
	ops_list l;
	const ops_op *o;
	n.experts = 8;
	n.experts_active = 2;
	n.expert_ffn = n.ffn;
	w = fx_infer(n, 128, 128, 32);
	ops_decode(&w, &p8, 32, 192, &l);
	o = find(&l, "expert_up", OPS_FWD);
	cr_assert(o);
	cr_assert_float_eq(o->m, 64 * (1 + sqrt(2 * log(8.0) / 64)), 1e-9);
	ops_decode(&w, &p1, 32, 192, &l);
	o = find(&l, "expert_up", OPS_FWD);
	cr_assert(o);
	cr_assert_float_eq(o->m, 32 * 2 / 8.0 / (1 - pow(1 - 2 / 8.0, 32)), 1e-9);
}
