/* nn: parameter counts derived by hand. */
#include <criterion/criterion.h>

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
