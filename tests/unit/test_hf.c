/* hf: Hugging Face config.json files as networks, against the published files of tests/hf and
 * small configs written here, each value checked by hand against the config's keys. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/hf.h"

static hf_config *load(const char *path)
{
	hf_config *c = malloc(sizeof *c);
	err e = {0};
	cr_assert(c);
	cr_assert_eq(hf_load(path, NULL, c, &e), 0, "%s", e.msg);
	return c;
}

/* Writes text to a temporary NAME.json and returns its path (static buffer). */
static const char *tmp_json(const char *name, const char *text)
{
	static char path[256];
	FILE *fp;
	snprintf(path, sizeof path, "%s/%s.json", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", name);
	fp = fopen(path, "w");
	cr_assert(fp);
	fputs(text, fp);
	fclose(fp);
	return path;
}

static int has_ignored(const hf_config *c, const char *key)
{
	for (int i = 0; i < c->nignored; i++)
		if (!strcmp(c->ignored[i].key, key))
			return 1;
	return 0;
}

Test(hf, deepseek_v3_reads_mla_shared_experts_and_dense_layers)
{
	/* tests/hf/deepseek-v3.json: head_dim = qk_nope_head_dim 128 + qk_rope_head_dim 64 = 192;
	 * kv_lora_rank 512, q_lora_rank 1536, v_head_dim 128; 256 routed experts of 2048, 8 per
	 * token, 1 shared; first_k_dense_replace 3 (dense FFN 18432), moe_layer_freq 1. */
	hf_config *c = load("tests/hf/deepseek-v3.json");
	nn_net *n = &c->net;
	cr_assert_str_eq(n->name, "deepseek-v3");
	cr_assert_str_eq(c->model_type, "deepseek_v3");
	cr_assert_eq(n->head_dim, 192);
	cr_assert_eq(n->rope_head_dim, 64);
	cr_assert_eq(n->kv_lora_rank, 512);
	cr_assert_eq(n->q_lora_rank, 1536);
	cr_assert_eq(n->v_head_dim, 128);
	cr_assert_eq(n->experts, 256);
	cr_assert_eq(n->experts_active, 8);
	cr_assert_eq(n->expert_ffn, 2048);
	cr_assert_eq(n->shared_experts, 1);
	cr_assert_eq(n->dense_layers, 3);
	cr_assert_eq(n->ffn, 18432);
	cr_assert_eq(n->max_context, 163840);
	cr_assert_eq(nn_moe_layers(n), 58);
	cr_assert_str_eq(hf_from(c, "dense_layers"), "first_k_dense_replace (leading layers with the dense FFN of intermediate_size)");
	cr_assert(has_ignored(c, "rope_theta"));
	cr_assert_eq(n->mtp_layers, 1);
	cr_assert(has_ignored(c, "quantization_config"));
	free(c);
}

Test(hf, gpt_oss_reads_the_band_of_every_other_layer_and_sinks)
{
	/* tests/hf/gpt-oss-120b.json: layer_types alternates sliding_attention and full_attention
	 * over 36 layers: 18 slide over sliding_window 128; sinks come with the model type. */
	hf_config *c = load("tests/hf/gpt-oss-120b.json");
	cr_assert_eq(c->net.window, 128);
	cr_assert_eq(c->net.window_layers, 18);
	cr_assert_eq(c->net.window_kind, NN_WIN_SLIDING);
	cr_assert_eq(c->net.attn_sinks, 1);
	cr_assert_eq(c->net.experts, 128);
	cr_assert_eq(c->net.experts_active, 4);
	free(c);
}

Test(hf, qwen3_moe_with_qk_norm_and_no_window)
{
	/* use_sliding_window false: sliding_window (null) and max_window_layers (94) change
	 * nothing; QK-norm comes with the model type. */
	hf_config *c = load("tests/hf/qwen3-235b-a22b.json");
	cr_assert_eq(c->net.qk_norm, 1);
	cr_assert_eq(c->net.window, 0);
	cr_assert_eq(c->net.moe_every, 1);
	cr_assert_eq(c->net.experts, 128);
	cr_assert_eq(c->net.expert_ffn, 1536);
	cr_assert(has_ignored(c, "max_window_layers"));
	free(c);
}

Test(hf, llama4_wrapper_chunks_and_interleaved_moe)
{
	/* Maverick: text_config; interleave_moe_layer_step 2 -> 24 MoE layers of 48, the other 24
	 * dense of intermediate_size_mlp 16384; experts of intermediate_size 8192 and one shared;
	 * no_rope_layers has a 0 every 4th layer: 36 RoPE layers attend 8192-token chunks. The
	 * wrapper's tie_word_embeddings (false) holds for the text model. */
	hf_config *c = load("tests/hf/llama-4-maverick-17b-128e.json");
	nn_net *n = &c->net;
	cr_assert_str_eq(c->model_type, "llama4_text");
	cr_assert_eq(n->moe_every, 2);
	cr_assert_eq(nn_moe_layers(n), 24);
	cr_assert_eq(n->ffn, 16384);
	cr_assert_eq(n->expert_ffn, 8192);
	cr_assert_eq(n->shared_experts, 1);
	cr_assert_eq(n->window, 8192);
	cr_assert_eq(n->window_layers, 36);
	cr_assert_eq(n->window_kind, NN_WIN_CHUNKED);
	cr_assert_eq(n->tied_embeddings, 0);
	cr_assert(has_ignored(c, "text_config.rope_theta"));
	free(c);
}

Test(hf, gemma3_pattern_and_defaults)
{
	/* A Gemma 3 wrapper whose text_config leaves vocab_size and max_position_embeddings out:
	 * Gemma3TextConfig's 262208 and 131072. sliding_window_pattern 6 on 62 layers: all but
	 * every 6th slide, 62 - 10 = 52, over sliding_window 1024. Tied embeddings (the class's
	 * default), QK-norm, the gated GELU counted as the three matrices of SwiGLU. */
	const char *p = tmp_json("gemma-3-test", "{\"architectures\": [\"Gemma3ForConditionalGeneration\"],\n"
		"\"model_type\": \"gemma3\", \"vision_config\": {\"hidden_size\": 1152},\n"
		"\"text_config\": {\"head_dim\": 128, \"hidden_size\": 5376, \"intermediate_size\": 21504,\n"
		" \"model_type\": \"gemma3_text\", \"num_attention_heads\": 32, \"num_hidden_layers\": 62,\n"
		" \"num_key_value_heads\": 16, \"query_pre_attn_scalar\": 168, \"sliding_window\": 1024,\n"
		" \"sliding_window_pattern\": 6, \"hidden_activation\": \"gelu_pytorch_tanh\"}}\n");
	hf_config *c = load(p);
	nn_net *n = &c->net;
	cr_assert_eq(n->vocab, 262208);
	cr_assert_eq(n->max_context, 131072);
	cr_assert_eq(n->window, 1024);
	cr_assert_eq(n->window_layers, 52);
	cr_assert_eq(n->tied_embeddings, 1);
	cr_assert_eq(n->qk_norm, 1);
	cr_assert_eq(n->act, NN_SWIGLU);
	cr_assert(has_ignored(c, "vision_config"));
	free(c);
}

Test(hf, mistral_slides_on_every_layer)
{
	/* Mistral 7B v0.1: sliding_window 4096 on all 32 layers; num_key_value_heads 8; head_dim
	 * left out: hidden_size / num_attention_heads = 128. */
	const char *p = tmp_json("mistral-test", "{\"model_type\": \"mistral\", \"hidden_size\": 4096,\n"
		"\"intermediate_size\": 14336, \"num_attention_heads\": 32, \"num_hidden_layers\": 32,\n"
		"\"num_key_value_heads\": 8, \"sliding_window\": 4096, \"vocab_size\": 32000,\n"
		"\"max_position_embeddings\": 32768, \"hidden_act\": \"silu\", \"rope_theta\": 10000.0}\n");
	hf_config *c = load(p);
	cr_assert_eq(c->net.window, 4096);
	cr_assert_eq(c->net.window_layers, 32);
	cr_assert_eq(c->net.head_dim, 128);
	cr_assert_eq(c->net.kv_heads, 8);
	free(c);
}

Test(hf, qwen2_moe_shared_expert_of_its_own_width)
{
	/* Qwen2-MoE: 60 experts of 1408, 4 per token, a shared expert of 5632. */
	const char *p = tmp_json("qwen2-moe-test", "{\"model_type\": \"qwen2_moe\", \"hidden_size\": 2048,\n"
		"\"intermediate_size\": 5632, \"moe_intermediate_size\": 1408, \"num_experts\": 60,\n"
		"\"num_experts_per_tok\": 4, \"shared_expert_intermediate_size\": 5632,\n"
		"\"decoder_sparse_step\": 1, \"mlp_only_layers\": [], \"num_attention_heads\": 16,\n"
		"\"num_hidden_layers\": 24, \"num_key_value_heads\": 16, \"vocab_size\": 151936,\n"
		"\"max_position_embeddings\": 8192, \"use_sliding_window\": false, \"sliding_window\": 32768}\n");
	hf_config *c = load(p);
	cr_assert_eq(c->net.shared_experts, 1);
	cr_assert_eq(c->net.shared_expert_ffn, 5632);
	cr_assert_eq(c->net.expert_ffn, 1408);
	/* 3·2048·5632 = 34,603,008 per MoE layer for the shared expert. */
	cr_assert_float_eq(nn_params(&c->net).shared, 34603008.0, 1e-6);
	free(c);
}

Test(hf, what_it_refuses)
{
	hf_config *c = malloc(sizeof *c);
	err e = {0};
	const char *const ig[] = {"frobnication", NULL};
	/* An unknown key: named with its line. */
	const char *p = tmp_json("odd", "{\"model_type\": \"llama\", \"hidden_size\": 64,\n\"frobnication\": 1,\n"
		"\"intermediate_size\": 128, \"num_attention_heads\": 4, \"num_hidden_layers\": 2,\n"
		"\"vocab_size\": 100, \"max_position_embeddings\": 128}\n");
	cr_assert_neq(hf_load(p, NULL, c, &e), 0);
	cr_assert(strstr(e.msg, "odd.json:2: frobnication: not a key roofcost knows for model_type llama"), "%s", e.msg);
	/* The same with --ignore. */
	memset(&e, 0, sizeof e);
	cr_assert_eq(hf_load(p, ig, c, &e), 0, "%s", e.msg);
	/* A key given twice, a value of the wrong type, a missing one. */
	p = tmp_json("twice", "{\"model_type\": \"llama\", \"hidden_size\": 64, \"hidden_size\": 65}\n");
	cr_assert_neq(hf_load(p, NULL, c, &e), 0);
	cr_assert(strstr(e.msg, "twice.json:1: hidden_size: given twice"), "%s", e.msg);
	p = tmp_json("typed", "{\"model_type\": \"llama\", \"num_hidden_layers\": 2, \"hidden_size\": \"64\"}\n");
	cr_assert_neq(hf_load(p, NULL, c, &e), 0);
	cr_assert(strstr(e.msg, "hidden_size: '\"64\"' is not a whole number"), "%s", e.msg);
	p = tmp_json("missing", "{\"model_type\": \"llama\", \"hidden_size\": 64}\n");
	cr_assert_neq(hf_load(p, NULL, c, &e), 0);
	cr_assert(strstr(e.msg, "num_hidden_layers: missing"), "%s", e.msg);
	/* A window kind roofcost does not model. */
	p = tmp_json("linear", "{\"model_type\": \"qwen3\", \"hidden_size\": 64, \"intermediate_size\": 128,\n"
		"\"num_attention_heads\": 4, \"num_hidden_layers\": 2, \"vocab_size\": 100,\n"
		"\"max_position_embeddings\": 128, \"layer_types\": [\"linear_attention\", \"full_attention\"]}\n");
	cr_assert_neq(hf_load(p, NULL, c, &e), 0);
	cr_assert(strstr(e.msg, "layer_types: entry 0 is 'linear_attention'"), "%s", e.msg);
	free(c);
}
