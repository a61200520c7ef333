/* mem: bytes per chip against ZeRO and Korthikanti et al. 2022. */
#include <criterion/criterion.h>

#include "fixtures.h"
#include "engine/mem.h"
#include "engine/shard.h"
#include "engine/ops.h"

Test(mem, zero_stages)
{
	/* Mixed-precision Adam: 2 (weights) + 2 (grads) + 12 (optimizer) bytes per parameter
	 * (Rajbhandari et al. 2020 §3.1). With dp = 8: ZeRO-1 shards the 12, ZeRO-2 also the
	 * grads, ZeRO-3 also the weights. */
	nn_net n = fx_gpt(4, 1024, 16, 1000);
	wl_workload w = fx_train(n, 128, 8, 1);
	plan p = {1, 1, 1, 8, 1, 1, 0, 1, 8};
	double P = shard_params_local(&n, &p);
	mem_use m;
	w.zero = 0;
	m = mem_train(&w, &p);
	cr_assert_float_eq(m.weights + m.grads + m.optimizer, 16 * P, 1e-3);
	w.zero = 1;
	m = mem_train(&w, &p);
	cr_assert_float_eq(m.weights + m.grads + m.optimizer, 4 * P + 12 * P / 8, 1e-3);
	w.zero = 2;
	m = mem_train(&w, &p);
	cr_assert_float_eq(m.weights + m.grads + m.optimizer, 2 * P + 14 * P / 8, 1e-3);
	w.zero = 3;
	m = mem_train(&w, &p);
	cr_assert_float_eq(m.weights + m.grads + m.optimizer, 16 * P / 8, 1e-3);
}

Test(mem, params_local)
{
	/* 4 layers of 12·h² plus the tied embedding V·h on one stage, split by tp = 2. */
	nn_net n = fx_gpt(4, 1024, 16, 1000);
	plan p = {2, 1, 1, 1, 1, 1, 0, 1, 2};
	cr_assert_float_eq(shard_params_local(&n, &p), (4 * 12.0 * 1024 * 1024 + 1000 * 1024) / 2, 1e-3);
}

Test(mem, korthikanti_activations)
{
	/* Korthikanti et al. 2022 Table 2, per layer, 16-bit, GPT layer with dropout:
	 * no parallelism s·b·h·(34 + 5·a·s/h); tensor parallel without sequence parallelism
	 * s·b·h·(10 + 24/t + 5·a·s/(h·t)); with it s·b·h·(34 + 5·a·s/h)/t; selective recompute
	 * s·b·h·34/t; full recompute 2·s·b·h. */
	nn_net n = fx_gpt(4, 1024, 16, 1000);
	wl_workload w = fx_train(n, 2048, 8, 2);
	double s = 2048, b = 2, h = 1024, a = 16, t = 4;
	plan p1 = {1, 1, 1, 4, 1, 1, 0, 2, 4};
	plan pt = {4, 1, 1, 1, 1, 1, 0, 2, 4};
	plan ps = {4, 1, 1, 1, 1, 1, 1, 2, 4};
	w.dropout = 1;
	w.flash_attention = 0;
	w.recompute = WL_RC_NONE;
	cr_assert_float_eq(mem_act_layer(&w, &p1, b), s * b * h * (34 + 5 * a * s / h), 1e-3);
	cr_assert_float_eq(mem_act_layer(&w, &pt, b), s * b * h * (10 + 24 / t + 5 * a * s / (h * t)), 1e-3);
	cr_assert_float_eq(mem_act_layer(&w, &ps, b), s * b * h * (34 + 5 * a * s / h) / t, 1e-3);
	w.recompute = WL_RC_SELECTIVE;
	cr_assert_float_eq(mem_act_layer(&w, &ps, b), s * b * h * 34 / t, 1e-3);
	w.recompute = WL_RC_FULL;
	cr_assert_float_eq(mem_act_layer(&w, &p1, b), 2 * s * b * h, 1e-3);
	/* Flash attention keeps no s×s scores: the 5·a·s/h term goes. */
	w.recompute = WL_RC_NONE;
	w.flash_attention = 1;
	cr_assert_float_eq(mem_act_layer(&w, &p1, b), s * b * h * 34, 1e-3);
}

Test(mem, pipeline_holds_p_micro_batches)
{
	/* 1F1B: the first stage keeps pp micro-batches of its L/pp layers in flight. */
	nn_net n = fx_gpt(8, 1024, 16, 1000);
	wl_workload w = fx_train(n, 512, 64, 1);
	plan p = {1, 4, 1, 1, 1, 1, 0, 1, 4};
	mem_use m = mem_train(&w, &p);
	double logits = 512.0 * 1000 * 4;
	cr_assert_float_eq(m.activations - logits, mem_act_layer(&w, &p, 1) * 2 * 4, 1e-3);
}

Test(mem, kv_cache_bytes)
{
	/* KV cache = 2 (K,V) × L × k × d × bytes × context × batch. Llama-3-70B-like: 80 layers,
	 * 8 KV heads of 128, bf16: 327,680 B per token; 4 sequences of 4096 tokens = 5.37 GB.
	 * Under tp = 8 each chip keeps one KV head: 1/8 of it. */
	nn_net n = fx_gpt(80, 8192, 64, 128256);
	wl_workload w;
	plan p = {1, 1, 1, 1, 1, 1, 0, 0, 1};
	plan p8 = {8, 1, 1, 1, 1, 1, 0, 0, 8};
	n.kv_heads = 8;
	n.head_dim = n.v_head_dim = 128;
	w = fx_infer(n, 3072, 1024, 4);
	cr_assert_float_eq(mem_infer(&w, &p, 4, 4096, 0).kv_cache, 4 * 4096 * 327680.0, 1);
	cr_assert_float_eq(mem_infer(&w, &p8, 4, 4096, 0).kv_cache, 4 * 4096 * 327680.0 / 8, 1);
	/* tp = 16 > 8 KV heads: each chip still holds one head (replicated). */
	p8.tp = 16;
	cr_assert_float_eq(shard_kv_heads_local(&n, 16), 1.0, 1e-12);
}

Test(mem, zero_shards_experts_over_their_replicas)
{
	/* 8 experts of 3·h·f, ep = 8 over dp = 64: each chip holds 1 expert per layer, and only the
	 * 64/8 = 8 ranks with the same expert share its optimizer state. Dense parameters shard over
	 * all 64. ZeRO-1: optimizer 12 B per parameter = 12·D/64 + 12·E/8. */
	nn_net n = fx_gpt(4, 1024, 16, 1000);
	wl_workload w;
	plan p = {1, 1, 1, 64, 1, 8, 0, 1, 64};
	double E, D;
	mem_use m;
	n.act = NN_SWIGLU;
	n.experts = 8;
	n.experts_active = 2;
	n.expert_ffn = 4096;
	w = fx_train(n, 128, 64, 1);
	w.zero = 1;
	E = shard_params_expert_local(&n, &p);
	cr_assert_float_eq(E, 4 * 1 * 3.0 * 1024 * 4096, 1e-3);
	D = shard_params_local(&n, &p) - E;
	m = mem_train(&w, &p);
	cr_assert_float_eq(m.optimizer, 12 * D / 64 + 12 * E / 8, 1e-3);
	cr_assert_float_eq(shard_zero(&p, 1), 8, 1e-12);
	cr_assert_float_eq(shard_zero(&p, 0), 64, 1e-12);
}

Test(mem, a_window_bounds_the_kv_cache)
{
	/* 2 layers, 16 KV heads of 64 in bf16: 4,096 B per token per layer. One layer keeps the
	 * last 128 tokens (a sliding window), the other all 4096: 3 sequences hold
	 * 3·(4096 + 128)·4,096 = 51,904,512 B. */
	nn_net n = fx_gpt(2, 1024, 16, 1000);
	wl_workload w;
	plan p = {1, 1, 1, 1, 1, 1, 0, 0, 1};
	n.window = 128;
	n.window_layers = 1;
	w = fx_infer(n, 3072, 1024, 3);
	cr_assert_float_eq(mem_infer(&w, &p, 3, 4096, 0).kv_cache, 51904512.0, 1e-3);
	/* Within the window the cache is the whole context: 3·2·100·4,096 = 2,457,600. */
	cr_assert_float_eq(mem_infer(&w, &p, 3, 100, 0).kv_cache, 2457600.0, 1e-6);
}
