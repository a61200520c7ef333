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

/* Issue 19: the architectures of today's models, each derived by hand. */
static nn_net mla_fixture(void)
{
	/* MLA: h = 1024, 8 heads of q/k 96 (nope 64 + rope 32), v 64, query rank 256, latent
	 * 128, one layer. */
	nn_net n = fx_gpt(1, 1024, 8, 1000);
	n.head_dim = 96;
	n.v_head_dim = 64;
	n.q_lora_rank = 256;
	n.kv_lora_rank = 128;
	n.rope_head_dim = 32;
	return n;
}

Test(ops, mla_decode_runs_absorbed)
{
	/* 2 sequences decode at context 1000, tp 1. Absorbed (DeepSeek-V2 §2.1.3): per head the
	 * scores run over the latent and rope key (128 + 32) and the values over the latent (128)
	 * of each cached token: 2·2·8·1000·(160 + 128) = 9,216,000 FLOPs. Bytes: the absorbed
	 * query (160) and output (128) of each head, 2·1·8·288·2 = 9,216, and the cache once per
	 * sequence, 2·1000·160·2 = 640,000: 649,216. q_absorb takes each head's nope query
	 * (64) into the latent, 8 instances of 2×128×64: 2·2·128·64·8 = 262,144 FLOPs; o_absorb
	 * the latent output into v, 8 instances of 2×64×128: 262,144. No kv_up: the cache is not
	 * expanded. */
	wl_workload w = fx_infer(mla_fixture(), 500, 1000, 2);
	plan p = {1, 1, 1, 1, 1, 1, 0, 0, 1};
	ops_list l;
	const ops_op *a, *q, *o;
	ops_decode(&w, &p, 2, 1000, &l);
	a = find(&l, "attention", OPS_FWD);
	q = find(&l, "q_absorb", OPS_FWD);
	o = find(&l, "o_absorb", OPS_FWD);
	cr_assert(a && q && o);
	cr_assert_float_eq(a->flops, 9216000.0, 1e-6);
	cr_assert_float_eq(a->bytes, 649216.0, 1e-6);
	cr_assert_float_eq(q->flops, 262144.0, 1e-6);
	cr_assert_float_eq(q->batch, 8.0, 1e-12);
	cr_assert_float_eq(o->flops, 262144.0, 1e-6);
	cr_assert(!find(&l, "kv_up", OPS_FWD));
	/* The same per-token weights and FLOPs as the expanded form: kv_up of one token would be
	 * 2·128·8·(64 + 64) = 262,144 per token, here 2 tokens: 524,288 = q_absorb + o_absorb. */
	cr_assert_float_eq(q->flops + o->flops, 2 * 2 * 128 * 8 * 128.0, 1e-6);
	/* A prompt still expands its keys and values: kv_up over its 500 tokens,
	 * 2·500·1024·128 = 131,072,000 FLOPs. */
	ops_prefill(&w, &p, 1, &l);
	cr_assert(find(&l, "kv_up", OPS_FWD));
	cr_assert_float_eq(find(&l, "kv_up", OPS_FWD)->flops, 131072000.0, 1e-3);
	cr_assert(!find(&l, "q_absorb", OPS_FWD));
}

Test(ops, a_sliding_window_bounds_decode_attention)
{
	/* Window 128 on both layers; 4 sequences at context 1050 read only the last 128 keys:
	 * bytes 4·(1·16·128·2 + 128·2·16·64·2) = 4·(4,096 + 524,288) = 2,113,536; FLOPs
	 * 2·4·16·128·(64 + 64) = 2,097,152. */
	nn_net n = fx_gpt(2, 1024, 16, 1000);
	wl_workload w;
	plan p = {1, 1, 1, 1, 1, 1, 0, 0, 1};
	ops_list l;
	const ops_op *o;
	n.window = 128;
	n.window_layers = 2;
	w = fx_infer(n, 1000, 100, 4);
	ops_decode(&w, &p, 4, 1050, &l);
	o = find(&l, "attention", OPS_FWD);
	cr_assert_float_eq(o->bytes, 2113536.0, 1e-6);
	cr_assert_float_eq(o->flops, 2097152.0, 1e-6);
	cr_assert_float_eq(o->count, 2.0, 1e-12);
	/* One layer of two with the window (gpt-oss alternates): a full op and a windowed one,
	 * each for one layer; the full one reads all 1050 keys. */
	w.net.window_layers = 1;
	ops_decode(&w, &p, 4, 1050, &l);
	cr_assert_float_eq(sum_flops(&l, OPS_ATTN, OPS_FWD), 2 * 4 * 16 * 1050 * 128.0 + 2097152.0, 1e-3);
}

Test(ops, a_sliding_window_bounds_prompt_attention)
{
	/* A 1000-token prompt under a 128 window: 119,872 query-key pairs (nn test) instead of
	 * 1000·1001/2 = 500,500, so the causal half 2·16·1000·1000·128·0.5 = 2,048,000,000 FLOPs
	 * of a layer scales by 119,872 / 500,500: 490,504,... per layer. */
	nn_net n = fx_gpt(2, 1024, 16, 1000);
	wl_workload w;
	plan p = {1, 1, 1, 1, 1, 1, 0, 0, 1};
	ops_list l;
	n.window = 128;
	n.window_layers = 2;
	w = fx_infer(n, 1000, 100, 1);
	ops_prefill(&w, &p, 1, &l);
	cr_assert_float_eq(sum_flops(&l, OPS_ATTN, OPS_FWD), 2 * 2048e6 * 119872.0 / 500500.0, 1e-3);
}

Test(ops, a_chunk_attends_its_own_positions)
{
	/* Chunks of 8192 (Llama 4): the token at context 8193 opens a chunk and attends itself
	 * only: 2·1·16·1·128 = 4,096 FLOPs per layer; at 8192 the whole chunk. */
	nn_net n = fx_gpt(2, 1024, 16, 1000);
	wl_workload w;
	plan p = {1, 1, 1, 1, 1, 1, 0, 0, 1};
	ops_list l;
	n.window = 8192;
	n.window_layers = 2;
	n.window_kind = NN_WIN_CHUNKED;
	n.max_context = 1 << 20;
	w = fx_infer(n, 8000, 1000, 1);
	ops_decode(&w, &p, 1, 8193, &l);
	cr_assert_float_eq(find(&l, "attention", OPS_FWD)->flops, 4096.0, 1e-9);
	ops_decode(&w, &p, 1, 8192, &l);
	cr_assert_float_eq(find(&l, "attention", OPS_FWD)->flops, 2 * 16 * 8192 * 128.0, 1e-6);
}

Test(ops, sinks_add_one_score_per_query_and_head)
{
	/* 4 sequences at 1050: 2·4·16·1050·(64 + 64) = 17,203,200 FLOPs, and with a sink per head
	 * one more score each: 2·4·16·1 = 128. */
	nn_net n = fx_gpt(2, 1024, 16, 1000);
	wl_workload w;
	plan p = {1, 1, 1, 1, 1, 1, 0, 0, 1};
	ops_list l;
	n.attn_sinks = 1;
	w = fx_infer(n, 1000, 100, 4);
	ops_decode(&w, &p, 4, 1050, &l);
	cr_assert_float_eq(find(&l, "attention", OPS_FWD)->flops, 17203200.0 + 128.0, 1e-6);
}

Test(ops, qk_norm_reads_and_writes_q_and_k)
{
	/* 4 decoded tokens, 16 query and 16 KV heads of 64: 4·(16 + 16)·64 = 8,192 elements,
	 * read and written in bf16: 32,768 B. */
	nn_net n = fx_gpt(2, 1024, 16, 1000);
	wl_workload w;
	plan p = {1, 1, 1, 1, 1, 1, 0, 0, 1};
	ops_list l;
	const ops_op *o;
	n.qk_norm = 1;
	w = fx_infer(n, 1000, 100, 4);
	ops_decode(&w, &p, 4, 1050, &l);
	o = find(&l, "qk_norm", OPS_FWD);
	cr_assert(o);
	cr_assert_float_eq(o->m, 8192.0, 1e-9);
	cr_assert_float_eq(o->bytes, 32768.0, 1e-9);
	cr_assert_float_eq(o->count, 2.0, 1e-12);
}

Test(ops, moe_every_other_layer_and_a_wider_shared_expert)
{
	/* 4 layers, MoE in every 2nd (moe_every 2): the FFN of 2 layers is dense, 2 are MoE. The
	 * shared expert has its own width 2048 (SwiGLU: up is 2·2048 wide). */
	nn_net n = fx_gpt(4, 1024, 16, 1000);
	wl_workload w;
	plan p = {1, 1, 1, 1, 1, 1, 0, 0, 1};
	ops_list l;
	n.act = NN_SWIGLU;
	n.experts = 8;
	n.experts_active = 2;
	n.expert_ffn = 512;
	n.moe_every = 2;
	n.shared_experts = 1;
	n.shared_expert_ffn = 2048;
	w = fx_infer(n, 100, 100, 4);
	ops_decode(&w, &p, 4, 150, &l);
	cr_assert_float_eq(find(&l, "ffn_up", OPS_FWD)->count, 2.0, 1e-12);
	cr_assert_float_eq(find(&l, "expert_up", OPS_FWD)->count, 2.0, 1e-12);
	cr_assert_float_eq(find(&l, "shared_up", OPS_FWD)->n, 4096.0, 1e-12);
	cr_assert_float_eq(find(&l, "shared_up", OPS_FWD)->flops, 2 * 4 * 4096 * 1024.0, 1e-6);
}

Test(ops, decode_flops_of_the_whole_network)
{
	/* ops_decode_flops: one token of the MLA fixture at context 1000 on one chip; attention
	 * 2·1·8·1000·288 = 4,608,000 of it. */
	wl_workload w = fx_infer(mla_fixture(), 500, 1000, 1);
	double attn, all = ops_decode_flops(&w, 1000, &attn);
	cr_assert_float_eq(attn, 4608000.0, 1e-6);
	cr_assert(all > attn);
}

/* roof_list over the three parts ops_train_micro_roof sums: ops of a layer, the embedding, the rest. */
static void list_parts(const hw_chip *c, const ops_list *l, roof_sum *layer, roof_sum *embed, roof_sum *rest)
{
	static ops_list part[3];
	for (int i = 0; i < 3; i++)
		part[i].n = 0;
	for (int i = 0; i < l->n; i++) {
		const ops_op *o = &l->op[i];
		ops_list *d = &part[o->per_layer ? 0 : o->kind == OPS_EMBED ? 1 : 2];
		d->op[d->n++] = *o;
	}
	*layer = roof_list(c, &part[0], NULL);
	*embed = roof_list(c, &part[1], NULL);
	*rest = roof_list(c, &part[2], NULL);
}

Test(ops, timed_as_lowered_is_roof_list_of_the_list)
{
	/* ops_train_micro_roof times each op as it is made; the sums must be roof_list's over the
	 * list ops_train_micro writes, bit for bit, on every shipped training workload, on chips
	 * of each kind, under each recompute policy, fp8 and fp32 math, unfused attention with
	 * dropout, and layouts that split heads, sequences, experts and stages. */
	static const char *const wls[] = {"llama3-8b-train", "llama3-405b-train", "gpt3-175b-train",
					  "mixtral-8x7b-train", "deepseek-v3-train", "megatron-1t-train",
					  "llama2-70b-train"};
	static const char *const syss[] = {"trn2.48xlarge", "p5.48xlarge", "tpu-v5p", "mi300x-8", "gb200-nvl72"};
	static const char *const variants[][3] = {{"recompute=none", NULL, NULL},
						  {"recompute=selective", NULL, NULL},
						  {"recompute=full", NULL, NULL},
						  {"precision=fp8", "recompute=full", NULL},
						  {"precision=fp32", "flash_attention=0", "dropout=1"}};
	static const int layouts[][5] = {{1, 1, 1, 1, 1}, {8, 2, 1, 1, 1}, {4, 1, 2, 1, 2}, {2, 4, 1, 8, 1}};
	static hw_system s;
	static wl_workload w;
	long checked = 0, bad = 0;
	for (size_t wi = 0; wi < sizeof wls / sizeof wls[0]; wi++)
		for (size_t si = 0; si < sizeof syss / sizeof syss[0]; si++)
			for (size_t vi = 0; vi < sizeof variants / sizeof variants[0]; vi++) {
				const char *sets[3];
				int ns = 0;
				err e = {0};
				plan p0;
				for (int i = 0; i < 3 && variants[vi][i]; i++)
					sets[ns++] = variants[vi][i];
				if (fx_shipped(syss[si], wls[wi], sets, ns, &s, &w, &p0, &e) != 0)
					continue; /* a precision the chip lacks */
				for (size_t li = 0; li < sizeof layouts / sizeof layouts[0]; li++) {
					static ops_list l;
					roof_sum a[3], b[3];
					plan p = p0;
					p.tp = layouts[li][0];
					p.pp = layouts[li][1];
					p.cp = layouts[li][2];
					p.ep = w.net.experts > 0 ? layouts[li][3] : 1;
					p.micro_batch = layouts[li][4];
					p.sp = p.tp > 1;
					ops_train_micro(&w, &p, s.chip.family, &l);
					list_parts(&s.chip, &l, &a[0], &a[1], &a[2]);
					ops_train_micro_roof(&w, &p, &s.chip, &b[0], &b[1], &b[2]);
					checked++;
					if (memcmp(a, b, sizeof a) != 0 && bad++ < 5)
						cr_log_error("%s on %s (%s) tp %d pp %d cp %d ep %d: %.17g vs %.17g", wls[wi],
							     syss[si], variants[vi][0], p.tp, p.pp, p.cp, p.ep, a[0].t, b[0].t);
				}
			}
	cr_assert_gt(checked, 400);
	cr_assert_eq(bad, 0, "%ld of %ld layouts off roof_list's sums", bad, checked);
}
