/* nn: parameter counts derived by hand. */
#include <criterion/criterion.h>

#include <string.h>

#include "model/nn.h"

Test(nn, llama3_70b_parameters)
{
	/* h = 8192, a = 64, k = 8, d = 128, f = 28672, V = 128256, L = 80, untied.
	 * attention h·(a·d + 2·k·d) + a·d·h = 8192·10240 + 8192·8192 = 150,994,944
	 * SwiGLU FFN 3·h·f = 704,643,072 ; per layer 855,638,016 ; × 80 = 68,451,041,280
	 * embedding + head 2·V·h = 2,101,346,304 ; total 70,552,387,584 (Meta: "70B"). */
	nn_net n;
	err e = {0};
	nn_counts c;
	cr_assert_eq(nn_load("models/nn/llama3-70b.ini", &n, &e), 0, "%s", e.msg);
	c = nn_params(&n);
	cr_assert_float_eq(c.attn, 150994944.0, 0.5);
	cr_assert_float_eq(c.ffn_dense, 704643072.0, 0.5);
	cr_assert_float_eq(c.total, 70552387584.0, 0.5);
	cr_assert_float_eq(c.active, c.total, 0.5);
}

Test(nn, mixtral_active_experts)
{
	/* 8 experts of 3·4096·14336 = 176,160,768, 2 active; attention 4096·(4096+2·1024) +
	 * 4096·4096 = 41,943,040; router 4096·8 = 32,768; 32 layers; 2·32000·4096 embeddings.
	 * total = 32·(41,943,040 + 32,768 + 8·176,160,768) + 262,144,000 = 46,702,526,464
	 * active = 32·(41,943,040 + 32,768 + 2·176,160,768) + 262,144,000 = 12,879,659,008 */
	nn_net n;
	err e = {0};
	nn_counts c;
	cr_assert_eq(nn_load("models/nn/mixtral-8x7b.ini", &n, &e), 0, "%s", e.msg);
	c = nn_params(&n);
	cr_assert_float_eq(c.total, 46702526464.0, 0.5);
	cr_assert_float_eq(c.active, 12879659008.0, 0.5);
}

Test(nn, kv_cache_elements)
{
	/* GQA: 2·k·d = 2·8·128 = 2048 per token per layer. MLA (DeepSeek-V3): the 512-wide
	 * latent plus the 64-wide RoPE key = 576. */
	nn_net n;
	err e = {0};
	cr_assert_eq(nn_load("models/nn/llama3-70b.ini", &n, &e), 0, "%s", e.msg);
	cr_assert_float_eq(nn_kv_elems_per_token_layer(&n), 2048.0, 1e-9);
	cr_assert_eq(nn_load("models/nn/deepseek-v3.ini", &n, &e), 0, "%s", e.msg);
	cr_assert_float_eq(nn_kv_elems_per_token_layer(&n), 576.0, 1e-9);
	/* DeepSeek-V3 reports 671B total, 37B activated. */
	cr_assert_float_eq(nn_params(&n).total / 1e9, 671.0, 1.0);
	cr_assert_float_eq(nn_params(&n).active / 1e9, 37.0, 1.0);
}

/* Issue 12: hidden < heads without head_dim gave head_dim 0 and a "feasible" layout; a large
 * expert count overflowed int widths (negative GiB). nn_shape_check holds them to lim.h. */
Test(nn, shapes_beyond_the_ranges_are_refused)
{
	nn_net n;
	const char *key = NULL;
	char why[160];
	err e = {0};
	cr_assert_eq(nn_load("models/nn/mixtral-8x7b.ini", &n, &e), 0, "%s", e.msg);
	cr_assert_eq(nn_shape_check(&n, &key, why, sizeof why), 0, "%s", why);
	n.head_dim = 0;   /* hidden 16 / heads 32 */
	cr_assert_eq(nn_shape_check(&n, &key, why, sizeof why), -1);
	cr_assert_str_eq(key, "head_dim");
	n.head_dim = 128;
	/* 10^7 x (10^5 + 0) = 10^12 > 2^31: expert_ffn * experts_active wrapped in mem.c. */
	n.experts = n.experts_active = 100000;
	n.expert_ffn = 10000000;
	cr_assert_eq(nn_shape_check(&n, &key, why, sizeof why), -1);
	cr_assert_str_eq(key, "expert_ffn");
	cr_assert_str_eq(why, "expert_ffn*(experts_active + shared_experts) = 1000000000000 is more than 10000000");
	/* 100,000 experts of 3 x 4096 x 200 = 2.5e6 each, 32 layers: 7.9e12 parameters, fine;
	 * with hidden 10^6 the experts alone are 32 x 10^5 x 3 x 10^6 x 200 = 1.9e15 > 1e15. */
	n.experts_active = 2;
	n.expert_ffn = 200;
	cr_assert_eq(nn_shape_check(&n, &key, why, sizeof why), 0, "%s", why);
	n.hidden = 1000000;
	cr_assert_eq(nn_shape_check(&n, &key, why, sizeof why), -1);
	cr_assert_str_eq(key, "experts");
}

/* Issue 19: MLA, shared experts, dense-first layers and MoE every k-th layer, windows, sinks,
 * QK-norm, each counted by hand. */
Test(nn, mla_attention_parameters)
{
	/* DeepSeek-V3 (models/nn/deepseek-v3.ini): h = 7168, q rank 1536, 128 heads of q/k 192
	 * (nope 128 + rope 64), v 128, latent 512.
	 *   W_DQ 7168·1536 = 11,010,048; W_UQ 1536·128·192 = 37,748,736
	 *   W_DKV 7168·(512 + 64) = 4,128,768; W_UK, W_UV 512·128·(128 + 128) = 16,777,216
	 *   W_O 128·128·7168 = 117,440,512; one layer 187,105,280. */
	nn_net n;
	err e = {0};
	cr_assert_eq(nn_load("models/nn/deepseek-v3.ini", &n, &e), 0, "%s", e.msg);
	cr_assert_float_eq(nn_params(&n).attn, 187105280.0, 0.5);
	/* KV cache per token: (512 + 64) · 61 layers · 2 B = 70,272 B in bf16. */
	cr_assert_float_eq(nn_kv_bytes_per_token(&n, 2), 70272.0, 1e-6);
}

static nn_net moe_fixture(void)
{
	/* 4 layers, h = 100, 4 heads of 25 (MHA), FFN 400 (SwiGLU), 8 experts of 50, top 2,
	 * vocab 10, untied. Attention 4·100·100 = 40,000 per layer; dense FFN 3·100·400 =
	 * 120,000; an expert 3·100·50 = 15,000; router 100·8 = 800; embeddings 2·10·100 = 2,000. */
	nn_net n;
	const char *key;
	char why[160];
	memset(&n, 0, sizeof n);
	n.layers = 4;
	n.hidden = 100;
	n.heads = 4;
	n.ffn = 400;
	n.act = NN_SWIGLU;
	n.vocab = 10;
	n.experts = 8;
	n.experts_active = 2;
	n.expert_ffn = 50;
	cr_assert_eq(nn_complete(&n, &key, why, sizeof why), 0, "%s", why);
	return n;
}

Test(nn, dense_first_layers_and_moe_every_kth_layer)
{
	const char *key;
	char why[160];
	nn_net n = moe_fixture();
	nn_counts c;
	/* dense_layers 1, moe_every 1: 3 MoE layers.
	 * total = 4·40,000 + 1·120,000 + 3·(800 + 8·15,000) + 2,000 = 644,400
	 * active = 4·40,000 + 120,000 + 3·(800 + 2·15,000) + 2,000 = 374,400 */
	n.dense_layers = 1;
	c = nn_params(&n);
	cr_assert_eq(nn_moe_layers(&n), 3);
	cr_assert_float_eq(c.total, 644400.0, 1e-6);
	cr_assert_float_eq(c.active, 374400.0, 1e-6);
	/* Without the embedding row lookup (1,000): 373,400. */
	cr_assert_float_eq(c.active_compute, 373400.0, 1e-6);
	/* moe_every 2 (Llama 4 Maverick's interleave_moe_layer_step): of the 3 layers after the
	 * dense one, every 2nd is MoE, the second of them: 3 / 2 = 1 MoE layer, 3 dense.
	 * total = 160,000 + 3·120,000 + 1·120,800 + 2,000 = 642,800 */
	n.moe_every = 2;
	cr_assert_eq(nn_moe_layers(&n), 1);
	cr_assert_float_eq(nn_params(&n).total, 642800.0, 1e-6);
	cr_assert_float_eq(nn_moe_share(&n), 0.25, 1e-12);
	n.moe_every = 4;
	cr_assert_eq(nn_complete(&n, &key, why, sizeof why), -1);
	cr_assert_str_eq(key, "moe_every");
}

Test(nn, shared_experts_of_their_own_width)
{
	/* One shared expert of 200 (Qwen2-MoE's shared_expert_intermediate_size) beside the
	 * routed ones of 50: 3·100·200 = 60,000 per MoE layer, in total and active alike.
	 * total = 160,000 + 4·(800 + 120,000 + 60,000) + 2,000 = 885,200
	 * active = 160,000 + 4·(800 + 30,000 + 60,000) + 2,000 = 525,200 */
	nn_net n = moe_fixture();
	n.shared_experts = 1;
	n.shared_expert_ffn = 200;
	cr_assert_float_eq(nn_params(&n).shared, 60000.0, 1e-6);
	cr_assert_float_eq(nn_params(&n).total, 885200.0, 1e-6);
	cr_assert_float_eq(nn_params(&n).active, 525200.0, 1e-6);
}

Test(nn, sinks_and_qk_norm_weights)
{
	/* A sink logit per head: +4 per layer; QK-norm: a head_dim-wide weight for q and one
	 * for k: +2·25 = 50 per layer. 40,000 + 4 + 50 = 40,054. */
	nn_net n = moe_fixture();
	n.attn_sinks = 1;
	n.qk_norm = 1;
	cr_assert_float_eq(nn_params(&n).attn, 40054.0, 1e-9);
}

Test(nn, window_keys_pairs_and_kv_tokens)
{
	const char *key;
	char why[160];
	nn_net n = moe_fixture();
	/* Sliding window of 128: a query at position 100 sees 100 keys, at 1000 the last 128.
	 * A 1000-token prompt: 1 + 2 + ... + 128 = 8,256 pairs, then 872 queries of 128 each =
	 * 111,616: 119,872 = 1000·128 - 128·127/2. Within the window: 100·101/2 = 5,050. */
	n.window = 128;
	cr_assert_eq(nn_complete(&n, &key, why, sizeof why), 0, "%s", why);
	cr_assert_eq(n.window_layers, 4);   /* every layer by default */
	cr_assert_float_eq(nn_window_keys(&n, 100), 100.0, 1e-12);
	cr_assert_float_eq(nn_window_keys(&n, 1000), 128.0, 1e-12);
	cr_assert_float_eq(nn_window_pairs(&n, 1000), 119872.0, 1e-9);
	cr_assert_float_eq(nn_window_pairs(&n, 100), 5050.0, 1e-9);
	cr_assert_float_eq(nn_kv_tokens(&n, 4096, 1), 128.0, 1e-12);
	cr_assert_float_eq(nn_kv_tokens(&n, 4096, 0), 4096.0, 1e-12);
	/* Chunks of 8192 (Llama 4): position 8192 sees its whole chunk, 8193 only itself, 10000
	 * sees 10000 - 8192 = 1808. A 10000-token prompt: one whole chunk 8192·8193/2 =
	 * 33,558,528 and 1808·1809/2 = 1,635,336: 35,193,864 pairs. */
	n.window = 8192;
	n.window_kind = NN_WIN_CHUNKED;
	n.window_layers = 3;
	cr_assert_float_eq(nn_window_keys(&n, 8192), 8192.0, 1e-12);
	cr_assert_float_eq(nn_window_keys(&n, 8193), 1.0, 1e-12);
	cr_assert_float_eq(nn_window_keys(&n, 10000), 1808.0, 1e-12);
	cr_assert_float_eq(nn_window_pairs(&n, 10000), 35193864.0, 1e-6);
	cr_assert_float_eq(nn_window_share(&n), 0.75, 1e-12);
	/* A window on more layers than there are, or layers without a window, is refused. */
	n.window_layers = 5;
	cr_assert_eq(nn_complete(&n, &key, why, sizeof why), -1);
	cr_assert_str_eq(key, "window_layers");
	n.window = 0;
	n.window_layers = 2;
	cr_assert_eq(nn_complete(&n, &key, why, sizeof why), -1);
	cr_assert_str_eq(key, "window_layers");
}
