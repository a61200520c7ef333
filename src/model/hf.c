/* hf: a Hugging Face config.json as a network (see hf.h).
 *
 * Each family reads the keys its transformers modelling code reads to build the layers
 * (modeling_llama.py, modeling_deepseek_v3.py, modeling_gpt_oss.py, modeling_llama4.py, ...),
 * with the defaults of its configuration class where the file leaves a key out. */
#include "model/hf.h"

#include <cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/text.h"

const char hf_model_types[] = "llama, mistral, mixtral, qwen2, qwen2_moe, qwen3, qwen3_moe, deepseek_v2, "
			      "deepseek_v3, kimi_k2, gpt_oss, llama4 (llama4_text), gemma, gemma2, gemma3 (gemma3_text)";

enum { HF_FILE_MAX = 1 << 20, USED_MAX = 128 };

typedef enum fam {
	F_LLAMA, F_MISTRAL, F_MIXTRAL, F_QWEN2, F_QWEN2_MOE, F_QWEN3, F_QWEN3_MOE, F_DEEPSEEK, F_GPT_OSS,
	F_LLAMA4, F_GEMMA, F_GEMMA2, F_GEMMA3
} fam;

static const struct {
	const char *type;
	fam f;
	const char *cls;      /* the transformers configuration class, whose defaults apply */
	const char *wrapper;  /* for a multimodal wrapper: the model_type of its text_config */
} types[] = {
	{"llama", F_LLAMA, "LlamaConfig", NULL},
	{"mistral", F_MISTRAL, "MistralConfig", NULL},
	{"mixtral", F_MIXTRAL, "MixtralConfig", NULL},
	{"qwen2", F_QWEN2, "Qwen2Config", NULL},
	{"qwen2_moe", F_QWEN2_MOE, "Qwen2MoeConfig", NULL},
	{"qwen3", F_QWEN3, "Qwen3Config", NULL},
	{"qwen3_moe", F_QWEN3_MOE, "Qwen3MoeConfig", NULL},
	{"deepseek_v2", F_DEEPSEEK, "DeepseekV2Config", NULL},
	{"deepseek_v3", F_DEEPSEEK, "DeepseekV3Config", NULL},
	{"kimi_k2", F_DEEPSEEK, "DeepseekV3Config", NULL},
	{"gpt_oss", F_GPT_OSS, "GptOssConfig", NULL},
	{"llama4_text", F_LLAMA4, "Llama4TextConfig", NULL},
	{"llama4", F_LLAMA4, "Llama4TextConfig", "llama4_text"},
	{"gemma", F_GEMMA, "GemmaConfig", NULL},
	{"gemma2", F_GEMMA2, "Gemma2Config", NULL},
	{"gemma3_text", F_GEMMA3, "Gemma3TextConfig", NULL},
	{"gemma3", F_GEMMA3, "Gemma3TextConfig", "gemma3_text"},
};

/* Keys that do not change what a layer computes or stores, and why. */
static const struct {
	const char *key, *why;
} neutral[] = {
	{"architectures", "the class name; model_type says the family"},
	{"model_type", "read: it picks the family"},
	{"_name_or_path", "bookkeeping"},
	{"auto_map", "bookkeeping: where custom code lives"},
	{"transformers_version", "bookkeeping"},
	{"torch_dtype", "the checkpoint's dtype: the workload's precision sets the cost"},
	{"dtype", "the checkpoint's dtype: the workload's precision sets the cost"},
	{"use_cache", "a runtime switch"},
	{"bos_token_id", "token ids"},
	{"eos_token_id", "token ids"},
	{"pad_token_id", "token ids"},
	{"sep_token_id", "token ids"},
	{"decoder_start_token_id", "token ids"},
	{"initializer_range", "initialisation"},
	{"rms_norm_eps", "numerics of the norm"},
	{"layer_norm_eps", "numerics of the norm"},
	{"rope_theta", "the RoPE base: positions, not work"},
	{"rope_scaling", "RoPE scaling (YaRN, llama3): positions, not work"},
	{"rope_parameters", "RoPE base and scaling: positions, not work"},
	{"rope_local_base_freq", "the RoPE base of the local layers"},
	{"partial_rotary_factor", "how much of a head rotates: positions, not work"},
	{"attention_dropout", "dropout: the workload's [train] dropout says"},
	{"hidden_dropout", "dropout: the workload's [train] dropout says"},
	{"pretraining_tp", "how the checkpoint was sliced, not the layers"},
	{"output_router_logits", "a runtime switch"},
	{"output_attentions", "a runtime switch"},
	{"output_hidden_states", "a runtime switch"},
	{"return_dict", "a runtime switch"},
	{"router_aux_loss_coef", "a training loss weight: who is routed, not how many"},
	{"aux_loss_alpha", "a training loss weight: who is routed, not how many"},
	{"seq_aux", "a training loss: who is routed, not how many"},
	{"router_jitter_noise", "routing noise: who is routed, not how many"},
	{"norm_topk_prob", "how the routed experts' outputs are weighted"},
	{"scoring_func", "how experts are scored: who is routed, not how many"},
	{"topk_method", "how experts are picked: who is routed, not how many"},
	{"routed_scaling_factor", "a scale on the routed experts' output"},
	{"ep_size", "the reference code's expert parallelism: the plan's ep sets it"},
	{"moe_router_dtype", "the router's numerics"},
	{"swiglu_limit", "a clamp in the activation"},
	{"initial_context_length", "the pre-training context before RoPE scaling; max_position_embeddings is the limit"},
	{"query_pre_attn_scalar", "the scale of the scores"},
	{"attn_logit_softcapping", "a tanh on the scores"},
	{"final_logit_softcapping", "a tanh on the logits"},
	{"cache_implementation", "the runtime's cache class"},
	{"attn_temperature_tuning", "a scale on the scores of the NoPE layers"},
	{"floor_scale", "a scale on the scores of the NoPE layers"},
	{"attn_scale", "a scale on the scores of the NoPE layers"},
	{"attention_bias", "biases on the attention projections: one width per matrix, under 0.05 % of the parameters"},
	{"qkv_bias", "biases on q, k, v: one width per matrix, under 0.05 % of the parameters"},
	{"mlp_bias", "biases on the FFN: one width per matrix, under 0.05 % of the parameters"},
	{"quantization_config", "the checkpoint's quantisation: the workload's precision sets the cost"},
	{"for_llm_compressor", "bookkeeping"},
	{"id2label", "classification heads"},
	{"label2id", "classification heads"},
	{"tokenizer_class", "bookkeeping"},
	{"vision_config", "the vision encoder is not modelled (text in, text out)"},
	{"image_token_index", "a token id of the vision path"},
	{"image_token_id", "a token id of the vision path"},
	{"boi_token_index", "a token id of the vision path"},
	{"eoi_token_index", "a token id of the vision path"},
	{"mm_tokens_per_image", "the vision path"},
	{"initializer_factor", "initialisation"},
	{"_attn_implementation_autoset", "a runtime switch"},
	{"attn_implementation", "a runtime switch"},
};

typedef struct rd {
	const char *path, *text;    /* the file and its text (for line numbers) */
	const cJSON *obj;           /* the model's object: the file's, or its text_config */
	const char *prefix;         /* "" or "text_config." */
	const char *at;             /* where obj starts in text */
	const char *type, *cls;
	fam f;
	const char *const *ignore;
	int tied_wrapper;           /* a wrapper's tie_word_embeddings (-1: not given) */
	const char *used[USED_MAX];
	int nused;
	hf_config *c;
	err *e;
} rd;

/* The line of `"key":` in the text, searched from r->at, else 0. */
static int line_of(const rd *r, const char *key)
{
	size_t kl = strlen(key);
	for (const char *p = strchr(r->at ? r->at : r->text, '"'); p; p = strchr(p + 1, '"')) {
		const char *q = p + 1 + kl;
		if (strncmp(p + 1, key, kl) != 0 || *q != '"')
			continue;
		for (q++; *q == ' ' || *q == '\t' || *q == '\n' || *q == '\r'; q++)
			;
		if (*q == ':') {
			int line = 1;
			for (const char *s = r->text; s < p; s++)
				line += *s == '\n';
			return line;
		}
	}
	return 0;
}

static int bad(rd *r, const char *key, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int bad(rd *r, const char *key, const char *fmt, ...)
{
	char msg[ERR_MSG_MAX / 2];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	err_at(r->e, r->path, line_of(r, key), "%s%s: %s", r->prefix, key, msg);
	return -1;
}

static void trace(rd *r, const char *nnkey, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void trace(rd *r, const char *nnkey, const char *fmt, ...)
{
	hf_config *c = r->c;
	hf_trace *t = NULL;
	va_list ap;
	for (int i = 0; i < c->ntrace && !t; i++)
		if (!strcmp(c->trace[i].key, nnkey))
			t = &c->trace[i];
	if (!t && c->ntrace < HF_TRACE_MAX)
		t = &c->trace[c->ntrace++];
	if (!t)
		return;
	snprintf(t->key, sizeof t->key, "%s", nnkey);
	va_start(ap, fmt);
	vsnprintf(t->from, sizeof t->from, fmt, ap);
	va_end(ap);
}

static void use(rd *r, const char *key)
{
	for (int i = 0; i < r->nused; i++)
		if (!strcmp(r->used[i], key))
			return;
	if (r->nused < USED_MAX)
		r->used[r->nused++] = key;
}

static int used(const rd *r, const char *key)
{
	for (int i = 0; i < r->nused; i++)
		if (!strcmp(r->used[i], key))
			return 1;
	return 0;
}

static void ignored(rd *r, const char *key, const char *why)
{
	hf_config *c = r->c;
	if (c->nignored >= HF_IGNORED_MAX)
		return;
	snprintf(c->ignored[c->nignored].key, HF_KEY_MAX, "%s%s", r->prefix, key);
	snprintf(c->ignored[c->nignored].why, HF_WHY_MAX, "%s", why);
	c->nignored++;
}

/* The item of key (marked as read), or NULL when it is absent or null. */
static const cJSON *item(rd *r, const char *key)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(r->obj, key);
	if (!it)
		return NULL;
	use(r, key);
	return cJSON_IsNull(it) ? NULL : it;
}

/* A whole number at key: 1 with *v, 0 when absent or null, -1 (e set) when not one. */
static int whole(rd *r, const char *key, double *v)
{
	const cJSON *it = item(r, key);
	if (!it)
		return 0;
	if (!cJSON_IsNumber(it) || !isfinite(it->valuedouble) || it->valuedouble != floor(it->valuedouble) ||
	    fabs(it->valuedouble) > 1e15) {
		char *s = cJSON_PrintUnformatted(it);
		bad(r, key, "'%.40s' is not a whole number", s ? s : "?");
		free(s);
		return -1;
	}
	*v = it->valuedouble;
	return 1;
}

/* Puts v into the network key nnkey (checked against the format's range). */
static int put(rd *r, const char *cfgkey, const char *nnkey, int *dst, double v)
{
	long long lo = 0, hi = 0;
	if (nn_key_range(nnkey, &lo, &hi) && (v < (double)lo || v > (double)hi))
		return bad(r, cfgkey, "%.0f is out of range [%lld, %lld] (network key %s)", v, lo, hi, nnkey);
	*dst = (int)v;
	return 0;
}

/* key -> nnkey. Absent: dflt >= 0 is taken (traced as the class default), dflt < 0 is an error. */
static int take(rd *r, const char *key, const char *nnkey, int *dst, double dflt)
{
	double v;
	int k = whole(r, key, &v);
	if (k < 0)
		return -1;
	if (k == 0 && dflt < 0)
		return bad(r, key, "missing (the network's %s)", nnkey);
	if (k == 0) {
		trace(r, nnkey, "%s absent: %s's default %.0f", key, r->cls, dflt);
		v = dflt;
	} else {
		trace(r, nnkey, "%s", key);
	}
	return put(r, key, nnkey, dst, v);
}

/* A boolean at key: 1/0 into *v, or dflt when absent. Returns 0 or -1. */
static int boolean(rd *r, const char *key, int *v, int dflt)
{
	const cJSON *it = item(r, key);
	if (!it) {
		*v = dflt;
		return 0;
	}
	if (!cJSON_IsBool(it))
		return bad(r, key, "not true or false");
	*v = cJSON_IsTrue(it);
	return 0;
}

/* A string at key, or NULL when absent (-1 in *bad_ when it is not a string). */
static const char *string(rd *r, const char *key, int *fail)
{
	const cJSON *it = item(r, key);
	if (!it)
		return NULL;
	if (!cJSON_IsString(it) || !it->valuestring) {
		bad(r, key, "not a string");
		*fail = 1;
		return NULL;
	}
	return it->valuestring;
}

/* Counts the layer_types entries: sliding and chunked ones, the rest full. -1 on an
 * entry this module does not model; 0 when layer_types is absent. */
static int layer_types(rd *r, int *sliding, int *chunked)
{
	const cJSON *lt = item(r, "layer_types"), *it;
	int n = 0;
	*sliding = *chunked = 0;
	if (!lt)
		return 0;
	if (!cJSON_IsArray(lt))
		return bad(r, "layer_types", "not a list");
	cJSON_ArrayForEach(it, lt) {
		const char *s = cJSON_IsString(it) ? it->valuestring : NULL;
		if (s && !strcmp(s, "sliding_attention"))
			(*sliding)++;
		else if (s && !strcmp(s, "chunked_attention"))
			(*chunked)++;
		else if (!s || strcmp(s, "full_attention") != 0)
			return bad(r, "layer_types", "entry %d is '%.40s': roofcost models full_attention, "
				   "sliding_attention and chunked_attention", n, s ? s : "(not a string)");
		n++;
	}
	if (n != r->c->net.layers)
		return bad(r, "layer_types", "%d entries for %d layers", n, r->c->net.layers);
	if (*sliding && *chunked)
		return bad(r, "layer_types", "both sliding and chunked layers: roofcost models one window kind");
	return 1;
}

/* The FFN of these families is gated (gate_proj, up_proj, down_proj): hidden_act names its
 * activation only. */
static int gated_act(rd *r, const char *key)
{
	static const char *const acts[] = {"silu", "swish", "gelu", "gelu_new", "gelu_fast",
					   "gelu_pytorch_tanh", "gelu_python", "relu", NULL};
	int fail = 0;
	const char *a = string(r, key, &fail);
	if (fail)
		return -1;
	if (!a)
		return 0;
	for (int i = 0; acts[i]; i++)
		if (!strcmp(a, acts[i])) {
			r->c->net.act = NN_SWIGLU;
			trace(r, "ffn_act", "%s %s in a gated FFN (gate_proj, up_proj, down_proj): the three matrices of "
			      "SwiGLU", key, a);
			return 1;
		}
	return bad(r, key, "'%.40s' is not an activation roofcost knows", a);
}

/* A sliding window on every layer (Mistral, Mixtral) or on the layers layer_types names. */
static int window_keys(rd *r, int all_layers)
{
	nn_net *n = &r->c->net;
	double w;
	int sl = 0, ch = 0, k = layer_types(r, &sl, &ch);
	int got = whole(r, "sliding_window", &w);
	if (k < 0 || got < 0)
		return -1;
	if (k > 0 && (sl || ch)) {
		if (got == 0 && sl)
			return bad(r, "layer_types", "sliding_attention layers without sliding_window");
		if (sl && put(r, "sliding_window", "window", &n->window, w) != 0)
			return -1;
		n->window_layers = sl;
		trace(r, "window", "sliding_window");
		trace(r, "window_layers", "layer_types: %d sliding_attention of %d", sl, n->layers);
		trace(r, "window_kind", "layer_types sliding_attention");
		return 0;
	}
	if (got > 0 && all_layers) {
		if (put(r, "sliding_window", "window", &n->window, w) != 0)
			return -1;
		n->window_layers = n->layers;
		trace(r, "window", "sliding_window");
		trace(r, "window_layers", "every layer (%s applies sliding_window to all)", r->type);
		trace(r, "window_kind", "sliding_window");
	} else if (got > 0) {
		ignored(r, "sliding_window", "no layer uses it (layer_types has none)");
	}
	return 0;
}

/* Qwen2/Qwen3: sliding_window holds only with use_sliding_window, on the layers from
 * max_window_layers on (Qwen2Config.layer_types). */
static int qwen_window(rd *r)
{
	nn_net *n = &r->c->net;
	int on = 0, sl = 0, ch = 0, k;
	double w = 0, from = 0;
	if (boolean(r, "use_sliding_window", &on, 0) != 0)
		return -1;
	k = layer_types(r, &sl, &ch);
	if (k < 0 || whole(r, "sliding_window", &w) < 0 || whole(r, "max_window_layers", &from) < 0)
		return -1;
	if (!on) {
		if (w > 0)
			ignored(r, "sliding_window", "use_sliding_window is false: full attention");
		if (from > 0)
			ignored(r, "max_window_layers", "use_sliding_window is false: full attention");
		if (k > 0 && (sl || ch))
			return bad(r, "layer_types", "sliding layers, but use_sliding_window is false");
		return 0;
	}
	if (w <= 0)
		return bad(r, "sliding_window", "missing, and use_sliding_window is true");
	if (put(r, "sliding_window", "window", &n->window, w) != 0)
		return -1;
	n->window_layers = k > 0 ? sl : n->layers - (int)fmin(fmax(from, 0), n->layers);
	trace(r, "window", "sliding_window (use_sliding_window true)");
	trace(r, "window_layers", k > 0 ? "layer_types: the sliding_attention layers"
					: "num_hidden_layers - max_window_layers");
	trace(r, "window_kind", "sliding_window");
	return 0;
}

static int common(rd *r, double head_dim_default)
{
	nn_net *n = &r->c->net;
	double hd;
	int k;
	if (take(r, "num_hidden_layers", "layers", &n->layers, -1) || take(r, "hidden_size", "hidden", &n->hidden, -1) ||
	    take(r, "num_attention_heads", "heads", &n->heads, -1))
		return -1;
	if (n->heads < 1)
		return bad(r, "num_attention_heads", "must be at least 1");
	if (take(r, "num_key_value_heads", "kv_heads", &n->kv_heads, n->heads))
		return -1;
	if (!cJSON_GetObjectItemCaseSensitive(r->obj, "num_key_value_heads"))
		trace(r, "kv_heads", "num_key_value_heads absent: num_attention_heads (multi-head attention)");
	k = whole(r, "head_dim", &hd);
	if (k < 0)
		return -1;
	if (k > 0) {
		if (put(r, "head_dim", "head_dim", &n->head_dim, hd) != 0)
			return -1;
		trace(r, "head_dim", "head_dim");
	} else if (head_dim_default > 0) {
		n->head_dim = (int)head_dim_default;
		trace(r, "head_dim", "head_dim absent: %s's default %.0f", r->cls, head_dim_default);
	} else {
		trace(r, "head_dim", "head_dim absent: hidden_size / num_attention_heads");
	}
	n->pos = NN_ROPE;
	trace(r, "position", "RoPE (%s rotates q and k; rope_theta and rope_scaling move positions, not work)", r->type);
	return 0;
}

static int ending(rd *r, int tied_default, double vocab_default, double ctx_default)
{
	nn_net *n = &r->c->net;
	int k;
	if (take(r, "vocab_size", "vocab", &n->vocab, vocab_default) ||
	    take(r, "max_position_embeddings", "max_context", &n->max_context, ctx_default))
		return -1;
	if (r->tied_wrapper >= 0)
		tied_default = r->tied_wrapper;
	if (boolean(r, "tie_word_embeddings", &n->tied_embeddings, tied_default) != 0)
		return -1;
	k = cJSON_GetObjectItemCaseSensitive(r->obj, "tie_word_embeddings") != NULL;
	if (k)
		trace(r, "tied_embeddings", "tie_word_embeddings");
	else if (r->tied_wrapper >= 0)
		trace(r, "tied_embeddings", "tie_word_embeddings of the wrapper (text_config has none)");
	else
		trace(r, "tied_embeddings", "tie_word_embeddings absent: %s's default %s", r->cls,
		      tied_default ? "true" : "false");
	return 0;
}

/* Routed experts: count, per token and width. */
static int experts(rd *r, const char *count, const char *width)
{
	nn_net *n = &r->c->net;
	double v;
	int k = whole(r, count, &v);
	if (k < 0)
		return -1;
	if (k == 0 || v == 0)
		return 0;   /* a dense model of an MoE family */
	if (put(r, count, "experts", &n->experts, v) || take(r, "num_experts_per_tok", "experts_active", &n->experts_active, -1) ||
	    take(r, width, "expert_ffn", &n->expert_ffn, -1))
		return -1;
	trace(r, "experts", "%s", count);
	n->moe_every = 1;
	trace(r, "moe_every", "every layer is MoE (%s)", r->type);
	return 0;
}

static int deepseek(rd *r)
{
	nn_net *n = &r->c->net;
	double nope = 0, rope = 0, v = 0, q = 0, freq = 1, kdense = 0;
	int k;
	if (common(r, 0) != 0 || take(r, "intermediate_size", "ffn", &n->ffn, -1))
		return -1;
	n->act = NN_SWIGLU;
	trace(r, "ffn_act", "hidden_act silu in DeepseekV3MLP (gate_proj, up_proj, down_proj): SwiGLU");
	if (gated_act(r, "hidden_act") < 0)
		return -1;
	if (take(r, "kv_lora_rank", "kv_lora_rank", &n->kv_lora_rank, -1) ||
	    whole(r, "qk_nope_head_dim", &nope) < 0 || whole(r, "qk_rope_head_dim", &rope) < 0 ||
	    whole(r, "v_head_dim", &v) < 0 || (k = whole(r, "q_lora_rank", &q)) < 0)
		return -1;
	if (nope <= 0 || rope <= 0 || v <= 0)
		return bad(r, nope <= 0 ? "qk_nope_head_dim" : rope <= 0 ? "qk_rope_head_dim" : "v_head_dim",
			   "missing or 0: MLA needs qk_nope_head_dim, qk_rope_head_dim and v_head_dim");
	if (put(r, "qk_rope_head_dim", "rope_head_dim", &n->rope_head_dim, rope) ||
	    put(r, "qk_nope_head_dim", "head_dim", &n->head_dim, nope + rope) ||
	    put(r, "v_head_dim", "v_head_dim", &n->v_head_dim, v))
		return -1;
	trace(r, "rope_head_dim", "qk_rope_head_dim");
	trace(r, "head_dim", "qk_nope_head_dim %.0f + qk_rope_head_dim %.0f (the query/key head)", nope, rope);
	trace(r, "v_head_dim", "v_head_dim");
	if (k > 0 && put(r, "q_lora_rank", "q_lora_rank", &n->q_lora_rank, q) != 0)
		return -1;
	trace(r, "q_lora_rank", k > 0 ? "q_lora_rank" : "q_lora_rank null: the query is a full projection");
	/* MLA caches one latent for all heads; num_key_value_heads is the heads' count. */
	n->kv_heads = n->heads;
	trace(r, "kv_heads", "num_attention_heads (MLA: the latent serves every head)");
	if (experts(r, "n_routed_experts", "moe_intermediate_size") != 0)
		return -1;
	if (cJSON_GetObjectItemCaseSensitive(r->obj, "num_nextn_predict_layers")) {
		/* The multi-token-prediction modules: speculative decoding's draft (draft = mtp), not
		 * counted among the layers or the parameters, as the model card leaves them out. */
		if (take(r, "num_nextn_predict_layers", "mtp_layers", &n->mtp_layers, 0))
			return -1;
		trace(r, "mtp_layers", "num_nextn_predict_layers (the MTP module: a draft for speculative decoding)");
	}
	if (n->experts > 0) {
		if (take(r, "n_shared_experts", "shared_experts", &n->shared_experts, 0))
			return -1;
		const cJSON *ng = cJSON_GetObjectItemCaseSensitive(r->obj, "n_group");
		const cJSON *tg = cJSON_GetObjectItemCaseSensitive(r->obj, "topk_group");
		if ((ng && !cJSON_IsNull(ng)) != (tg && !cJSON_IsNull(tg))) {
			/* One without the other: node-limited routing names both. */
			const char *has = ng && !cJSON_IsNull(ng) ? "n_group" : "topk_group";
			use(r, has);
			return bad(r, has, "node-limited routing needs n_group and topk_group (network keys expert_groups "
				   "and route_groups); %s is missing", ng && !cJSON_IsNull(ng) ? "topk_group" : "n_group");
		}
		if (ng && tg) {
			/* Node-limited routing: a token's experts in at most topk_group of n_group groups. */
			if (take(r, "n_group", "expert_groups", &n->expert_groups, 0) ||
			    take(r, "topk_group", "route_groups", &n->route_groups, 0))
				return -1;
			trace(r, "expert_groups", "n_group (node-limited routing: the routed experts in groups)");
			trace(r, "route_groups", "topk_group (a token's experts in at most this many groups)");
		}
		if ((k = whole(r, "first_k_dense_replace", &kdense)) < 0 || whole(r, "moe_layer_freq", &freq) < 0)
			return -1;
		if (k > 0 && put(r, "first_k_dense_replace", "dense_layers", &n->dense_layers, kdense) != 0)
			return -1;
		trace(r, "dense_layers", "first_k_dense_replace (leading layers with the dense FFN of intermediate_size)");
		if (freq < 1)
			return bad(r, "moe_layer_freq", "%.0f: must be at least 1", freq);
		{
			/* DeepSeek's layer i is MoE when i >= first_k_dense_replace and i % moe_layer_freq == 0. */
			int ds = 0, every = (int)fmin(freq, 1e6);
			for (int i = (int)kdense; i < n->layers; i++)
				ds += i % every == 0;
			if (ds != (n->layers - (int)kdense) / every)
				return bad(r, "moe_layer_freq", "%d MoE layers (i %% %d == 0 from layer %.0f): not the pattern "
					   "roofcost models (every moe_every-th of the layers after dense_layers)", ds, every, kdense);
			n->moe_every = every;
			trace(r, "moe_every", "moe_layer_freq");
		}
	}
	return ending(r, 0, -1, -1);
}

static int gpt_oss(rd *r)
{
	nn_net *n = &r->c->net;
	double per = 0;
	int sl = 0, ch = 0, k;
	double w = 0;
	if (common(r, 64) != 0 || take(r, "intermediate_size", "ffn", &n->ffn, -1))
		return -1;
	if (gated_act(r, "hidden_act") < 0)
		return -1;
	n->act = NN_SWIGLU;
	if (experts(r, "num_local_experts", "intermediate_size") != 0)
		return -1;
	if (n->experts == 0)
		return bad(r, "num_local_experts", "missing: gpt-oss is an MoE");
	trace(r, "ffn", "intermediate_size (no dense layer: every FFN is MoE)");
	if ((k = whole(r, "experts_per_token", &per)) < 0)
		return -1;
	if (k > 0 && per != n->experts_active)
		return bad(r, "experts_per_token", "%.0f differs from num_experts_per_tok %d", per, n->experts_active);
	k = layer_types(r, &sl, &ch);
	if (k < 0 || whole(r, "sliding_window", &w) < 0)
		return -1;
	if (k == 0)
		sl = (n->layers + 1) / 2;   /* GptOssConfig: layer i slides when i is even */
	if (ch)
		return bad(r, "layer_types", "chunked layers in gpt-oss");
	if (sl > 0) {
		if (w <= 0)
			return bad(r, "sliding_window", "missing: %d layers slide", sl);
		if (put(r, "sliding_window", "window", &n->window, w) != 0)
			return -1;
		n->window_layers = sl;
		trace(r, "window", "sliding_window");
		trace(r, "window_layers", k > 0 ? "layer_types: %d sliding_attention of %d"
						: "layer_types absent: GptOssConfig slides every other layer (%d of %d)",
		      sl, n->layers);
		trace(r, "window_kind", "sliding_attention (banded, the last sliding_window positions)");
	}
	n->attn_sinks = 1;
	trace(r, "attn_sinks", "model_type gpt_oss: GptOssAttention.sinks, a learned logit per head in the softmax");
	return ending(r, 0, -1, -1);
}

static int llama4(rd *r)
{
	nn_net *n = &r->c->net;
	double step = 1, chunk = 0;
	int qk = 0, sl = 0, ch = 0, k;
	const cJSON *nr, *ml;
	if (common(r, 0) != 0 || take(r, "intermediate_size_mlp", "ffn", &n->ffn, -1))
		return -1;
	trace(r, "ffn", "intermediate_size_mlp (the dense layers' FFN)");
	if (gated_act(r, "hidden_act") < 0)
		return -1;
	n->act = NN_SWIGLU;
	if (experts(r, "num_local_experts", "intermediate_size") != 0)
		return -1;
	if (n->experts > 0) {
		n->shared_experts = 1;
		trace(r, "shared_experts", "Llama4TextMoe.shared_expert: one, of intermediate_size");
		if (whole(r, "interleave_moe_layer_step", &step) < 0)
			return -1;
		if (step < 1 || step > n->layers)
			return bad(r, "interleave_moe_layer_step", "%.0f is not in [1, %d]", step, n->layers);
		n->moe_every = (int)step;
		trace(r, "moe_every", "interleave_moe_layer_step (layer i is MoE when (i + 1) %% step == 0)");
		if ((ml = item(r, "moe_layers")) != NULL) {
			const cJSON *it;
			int i = 0, ok = cJSON_IsArray(ml);
			cJSON_ArrayForEach(it, ml) {
				ok &= cJSON_IsNumber(it) && it->valuedouble == (double)((i + 1) * n->moe_every - 1);
				i++;
			}
			if (!ok || i != n->layers / n->moe_every)
				return bad(r, "moe_layers", "not every interleave_moe_layer_step-th layer: not modelled");
		}
	}
	if (boolean(r, "use_qk_norm", &qk, 0) != 0)
		return -1;
	if (qk) {
		n->qk_norm = 1;
		trace(r, "qk_norm", "use_qk_norm (an L2 norm on q and k of the RoPE layers)");
	}
	k = layer_types(r, &sl, &ch);
	if (k < 0 || whole(r, "attention_chunk_size", &chunk) < 0)
		return -1;
	if (sl)
		return bad(r, "layer_types", "sliding layers in Llama 4");
	if (k == 0 && (nr = item(r, "no_rope_layers")) != NULL) {
		/* no_rope_layers[i] = 1: layer i uses RoPE and chunked attention; 0: NoPE, global. */
		const cJSON *it;
		int i = 0;
		if (!cJSON_IsArray(nr))
			return bad(r, "no_rope_layers", "not a list");
		cJSON_ArrayForEach(it, nr) {
			if (!cJSON_IsNumber(it) || (it->valuedouble != 0 && it->valuedouble != 1))
				return bad(r, "no_rope_layers", "entry %d is not 0 or 1", i);
			ch += it->valuedouble == 1;
			i++;
		}
		if (i != n->layers)
			return bad(r, "no_rope_layers", "%d entries for %d layers", i, n->layers);
		trace(r, "window_layers", "no_rope_layers: %d RoPE layers of %d attend their chunk, the NoPE ones all",
		      ch, n->layers);
	} else if (k == 0) {
		ch = n->layers - n->layers / 4;   /* Llama4TextConfig: every 4th layer is NoPE and global */
		trace(r, "window_layers", "no_rope_layers absent: Llama4TextConfig's every 4th layer global (%d of %d "
		      "chunked)", ch, n->layers);
	} else {
		trace(r, "window_layers", "layer_types: %d chunked_attention of %d", ch, n->layers);
	}
	if (ch > 0) {
		if (chunk <= 0)
			return bad(r, "attention_chunk_size", "missing: %d layers attend in chunks", ch);
		if (put(r, "attention_chunk_size", "window", &n->window, chunk) != 0)
			return -1;
		n->window_layers = ch;
		n->window_kind = NN_WIN_CHUNKED;
		trace(r, "window", "attention_chunk_size");
		trace(r, "window_kind", "chunked (a RoPE layer attends the positions of its own chunk)");
	}
	return ending(r, 0, -1, -1);
}

static int gemma(rd *r)
{
	nn_net *n = &r->c->net;
	double pattern = 6, w = 0;
	int sl = 0, ch = 0, k, a, b;
	if (common(r, 256) != 0 || take(r, "intermediate_size", "ffn", &n->ffn, -1))
		return -1;
	n->act = NN_SWIGLU;
	a = gated_act(r, "hidden_activation");
	b = a < 0 ? -1 : gated_act(r, "hidden_act");
	if (a < 0 || b < 0)
		return -1;
	if (a == 0 && b == 0)
		trace(r, "ffn_act", "GemmaMLP: gated GELU (gate_proj, up_proj, down_proj), the three matrices of SwiGLU");
	if (r->f == F_GEMMA) {
		if (window_keys(r, 0) != 0)
			return -1;
		return ending(r, 1, -1, -1);
	}
	k = layer_types(r, &sl, &ch);
	if (k < 0 || whole(r, "sliding_window", &w) < 0)
		return -1;
	if (ch)
		return bad(r, "layer_types", "chunked layers in Gemma");
	if (k == 0 && r->f == F_GEMMA2) {
		sl = (n->layers + 1) / 2;   /* Gemma2DecoderLayer: layer i slides when i is even */
		trace(r, "window_layers", "Gemma2: every other layer slides (%d of %d)", sl, n->layers);
	} else if (k == 0) {
		int pk = whole(r, "sliding_window_pattern", &pattern);
		if (pk < 0)
			return -1;
		if (pattern < 1)
			return bad(r, "sliding_window_pattern", "must be at least 1");
		/* Gemma3: layer i slides unless (i + 1) % pattern == 0. */
		sl = n->layers - n->layers / (int)fmin(pattern, 1e6);
		trace(r, "window_layers", "%s: %d of %d layers slide (all but every %.0fth)",
		      pk ? "sliding_window_pattern" : "sliding_window_pattern absent: Gemma3TextConfig's 6", sl, n->layers,
		      pattern);
	} else {
		trace(r, "window_layers", "layer_types: %d sliding_attention of %d", sl, n->layers);
	}
	if (sl > 0) {
		if (w <= 0)
			w = 4096;   /* Gemma2Config and Gemma3TextConfig default */
		if (put(r, "sliding_window", "window", &n->window, w) != 0)
			return -1;
		n->window_layers = sl;
		trace(r, "window", cJSON_GetObjectItemCaseSensitive(r->obj, "sliding_window") ? "sliding_window"
			: "sliding_window absent: the class's default 4096");
		trace(r, "window_kind", "sliding (local layers)");
	}
	if (r->f == F_GEMMA3) {
		n->qk_norm = 1;
		trace(r, "qk_norm", "model_type gemma3: q_norm and k_norm (Gemma3Attention)");
		return ending(r, 1, 262208, 131072);
	}
	return ending(r, 1, -1, -1);
}

/* Llama, Mistral, Mixtral, Qwen2, Qwen3 and their MoE forms. */
static int llama_like(rd *r)
{
	nn_net *n = &r->c->net;
	fam f = r->f;
	if (common(r, f == F_QWEN3 || f == F_QWEN3_MOE ? 128 : 0) != 0 ||
	    take(r, "intermediate_size", "ffn", &n->ffn, -1))
		return -1;
	n->act = NN_SWIGLU;
	if (gated_act(r, "hidden_act") < 0)
		return -1;
	if (f == F_MIXTRAL && experts(r, "num_local_experts", "intermediate_size") != 0)
		return -1;
	if (f == F_QWEN2_MOE || f == F_QWEN3_MOE) {
		double step = 1, shared = 0;
		const cJSON *only = item(r, "mlp_only_layers");
		if (experts(r, "num_experts", "moe_intermediate_size") != 0)
			return -1;
		if (only && (!cJSON_IsArray(only) || cJSON_GetArraySize(only) > 0))
			return bad(r, "mlp_only_layers", "dense layers picked one by one: not modelled");
		if (whole(r, "decoder_sparse_step", &step) < 0)
			return -1;
		if (n->experts > 0) {
			if (step < 1 || step > n->layers)
				return bad(r, "decoder_sparse_step", "%.0f is not in [1, %d]", step, n->layers);
			n->moe_every = (int)step;
			trace(r, "moe_every", "decoder_sparse_step (layer i is MoE when (i + 1) %% step == 0)");
		}
		if (whole(r, "shared_expert_intermediate_size", &shared) < 0)
			return -1;
		if (shared > 0 && n->experts > 0) {
			n->shared_experts = 1;
			if (put(r, "shared_expert_intermediate_size", "shared_expert_ffn", &n->shared_expert_ffn, shared) != 0)
				return -1;
			trace(r, "shared_experts", "shared_expert_intermediate_size > 0: one shared expert (Qwen2MoeSparseMoeBlock)");
			trace(r, "shared_expert_ffn", "shared_expert_intermediate_size");
		}
	}
	if (f == F_QWEN3 || f == F_QWEN3_MOE) {
		n->qk_norm = 1;
		trace(r, "qk_norm", "model_type %s: q_norm and k_norm over each head (Qwen3Attention)", r->type);
	}
	if (f == F_QWEN2 || f == F_QWEN2_MOE || f == F_QWEN3 || f == F_QWEN3_MOE) {
		if (qwen_window(r) != 0)
			return -1;
	} else if (f == F_MISTRAL || f == F_MIXTRAL) {
		if (window_keys(r, 1) != 0)
			return -1;
	} else if (window_keys(r, 0) != 0) {
		return -1;
	}
	return ending(r, 0, -1, -1);
}

static int neutral_why(const char *key, const char **why)
{
	for (size_t i = 0; i < sizeof neutral / sizeof neutral[0]; i++)
		if (!strcmp(neutral[i].key, key)) {
			*why = neutral[i].why;
			return 1;
		}
	return 0;
}

/* A key given twice in r->obj is an error (cJSON would read the first). */
static int twice(rd *r)
{
	for (const cJSON *it = r->obj->child; it; it = it->next)
		for (const cJSON *o = it->next; it->string && o; o = o->next)
			if (o->string && !strcmp(o->string, it->string))
				return bad(r, it->string, "given twice");
	return 0;
}

/* Every key of r->obj that was not read: ignored with why, or an error. */
static int rest(rd *r)
{
	const cJSON *it;
	for (it = r->obj->child; it; it = it->next) {
		const char *why = NULL;
		int asked = 0;
		if (!it->string || used(r, it->string))
			continue;
		for (int i = 0; r->ignore && r->ignore[i]; i++)
			asked |= !strcmp(r->ignore[i], it->string) ||
				 (r->prefix[0] && !strncmp(r->ignore[i], r->prefix, strlen(r->prefix)) &&
				  !strcmp(r->ignore[i] + strlen(r->prefix), it->string));
		if (asked) {
			ignored(r, it->string, "left out on request (--ignore)");
			continue;
		}
		if (!neutral_why(it->string, &why))
			return bad(r, it->string, "not a key roofcost knows for model_type %s: it may change the cost "
				   "(roofcost new network --from-hf ... --ignore %s%s leaves it out)", r->type, r->prefix,
				   it->string);
		if (!strcmp(it->string, "quantization_config")) {
			const cJSON *m = cJSON_GetObjectItemCaseSensitive(it, "quant_method");
			char w[HF_WHY_MAX];
			snprintf(w, sizeof w, "the checkpoint's weights are %s: the workload's precision sets the cost",
				 cJSON_IsString(m) ? m->valuestring : "quantised");
			ignored(r, it->string, w);
		} else if (strcmp(it->string, "model_type") != 0) {
			ignored(r, it->string, why);
		}
	}
	return 0;
}

/* The network's name: the file's stem, or for config.json its folder's name. */
static void name_of(const char *path, char *out, size_t n)
{
	const char *b = strrchr(path, '/');
	const char *base = b ? b + 1 : path;
	size_t len = strlen(base);
	if (!strcmp(base, "config.json") && b && b > path) {
		const char *p = b;
		while (p > path && p[-1] != '/')
			p--;
		snprintf(out, n, "%.*s", (int)(b - p), p);
		return;
	}
	if (len > 5)
		len -= 5;
	snprintf(out, n, "%.*s", (int)len, base);
}

/* Reads path whole into a NUL-terminated text (checked as text). Caller frees. */
static char *slurp(const char *path, err *e)
{
	FILE *fp = fopen(path, "rb");
	char *buf;
	size_t n;
	text_scan ts;
	if (!fp) {
		err_set(e, ERR_DATA, "%s: cannot open it (%s)", path, strerror(errno));
		return NULL;
	}
	buf = malloc(HF_FILE_MAX + 1);
	if (!buf) {
		fclose(fp);
		err_set(e, ERR_DATA, "out of memory");
		return NULL;
	}
	n = fread(buf, 1, HF_FILE_MAX + 1, fp);
	if (ferror(fp)) {
		err_set(e, ERR_DATA, "%s: cannot read it (%s)", path, strerror(errno));
		fclose(fp);
		free(buf);
		return NULL;
	}
	fclose(fp);
	if (n > HF_FILE_MAX) {
		err_set(e, ERR_DATA, "%s: more than 1 MiB: not a config.json", path);
		free(buf);
		return NULL;
	}
	buf[n] = '\0';
	text_scan_init(&ts);
	if (text_scan_feed(&ts, buf, n) != 0 || text_scan_end(&ts) != 0) {
		err_at(e, path, (int)ts.line, "not a text file (%s)", ts.why);
		free(buf);
		return NULL;
	}
	return buf;
}

static int type_of(rd *r, const cJSON *obj, int *idx)
{
	const cJSON *mt = cJSON_GetObjectItemCaseSensitive(obj, "model_type");
	if (!cJSON_IsString(mt))
		return bad(r, "model_type", mt ? "not a string" : "missing: roofcost reads %s", hf_model_types);
	for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
		if (!strcmp(types[i].type, mt->valuestring)) {
			*idx = (int)i;
			return 0;
		}
	return bad(r, "model_type", "'%.40s' is not a family roofcost reads (%s)", mt->valuestring, hf_model_types);
}

int hf_load(const char *path, const char *const *ignore, hf_config *out, err *e)
{
	char *text = slurp(path, e);
	cJSON *root;
	rd r;
	int ti, rc = 0;
	const char *end = NULL;
	if (!text)
		return ERR_DATA;
	memset(out, 0, sizeof *out);
	memset(&r, 0, sizeof r);
	r.path = path;
	r.text = text;
	r.prefix = "";
	r.c = out;
	r.e = e;
	r.ignore = ignore;
	r.tied_wrapper = -1;
	root = cJSON_ParseWithOpts(text + (strncmp(text, "\xEF\xBB\xBF", 3) ? 0 : 3), &end, 1);
	if (!root || !cJSON_IsObject(root)) {
		const char *at = root ? text : cJSON_GetErrorPtr();
		int line = 1;
		for (const char *s = text; at && s < at && *s; s++)
			line += *s == '\n';
		cJSON_Delete(root);
		free(text);
		return err_at(e, path, line, root ? "not a JSON object" : "not JSON");
	}
	r.obj = root;
	if (twice(&r) != 0 || type_of(&r, root, &ti) != 0) {
		rc = ERR_DATA;
		goto done;
	}
	if (types[ti].wrapper) {
		/* A multimodal wrapper (Llama4ForConditionalGeneration, Gemma3ForConditionalGeneration):
		 * the language model is text_config; the wrapper's own keys are listed as ignored. */
		const cJSON *tc = cJSON_GetObjectItemCaseSensitive(root, "text_config");
		int inner;
		if (!cJSON_IsObject(tc)) {
			rc = bad(&r, "text_config", "missing: a %s config holds its language model there", types[ti].type);
			goto done;
		}
		use(&r, "text_config");
		use(&r, "model_type");
		r.type = types[ti].type;
		if (boolean(&r, "tie_word_embeddings", &r.tied_wrapper, -1) != 0 || rest(&r) != 0) {
			rc = ERR_DATA;
			goto done;
		}
		r.nused = 0;
		r.obj = tc;
		r.prefix = "text_config.";
		r.at = strstr(text, "\"text_config\"");
		if (twice(&r) != 0) {
			rc = ERR_DATA;
			goto done;
		}
		if (!cJSON_GetObjectItemCaseSensitive(tc, "model_type")) {
			inner = -1;
			for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
				if (!strcmp(types[i].type, types[ti].wrapper))
					inner = (int)i;
			ti = inner;
		} else if (type_of(&r, tc, &ti) != 0) {
			rc = ERR_DATA;
			goto done;
		}
	}
	r.type = types[ti].type;
	r.cls = types[ti].cls;
	r.f = types[ti].f;
	use(&r, "model_type");
	snprintf(out->model_type, sizeof out->model_type, "%s", r.type);
	switch (r.f) {
	case F_DEEPSEEK:
		rc = deepseek(&r);
		break;
	case F_GPT_OSS:
		rc = gpt_oss(&r);
		break;
	case F_LLAMA4:
		rc = llama4(&r);
		break;
	case F_GEMMA:
	case F_GEMMA2:
	case F_GEMMA3:
		rc = gemma(&r);
		break;
	default:
		rc = llama_like(&r);
		break;
	}
	if (rc == 0)
		rc = rest(&r);
	if (rc == 0) {
		nn_net *n = &out->net;
		const char *key = NULL;
		char why[160];
		name_of(path, n->name, sizeof n->name);
		snprintf(n->display, sizeof n->display, "%s", n->name);
		snprintf(n->family, sizeof n->family, "%s", r.type);
		snprintf(n->source, sizeof n->source, "%s", path);
		snprintf(n->path, sizeof n->path, "%s", path);
		trace(&r, "family", "model_type");
		if (nn_complete(n, &key, why, sizeof why) != 0) {
			/* Blame the config key the network key came from. */
			const char *from = hf_from(out, key);
			char cfgkey[HF_KEY_MAX];
			size_t l = from ? strcspn(from, " :(") : 0;
			snprintf(cfgkey, sizeof cfgkey, "%.*s", (int)l, from ? from : key);
			rc = bad(&r, cfgkey[0] ? cfgkey : key, "%s (network key %s)", why, key);
		}
	}
done:
	cJSON_Delete(root);
	free(text);
	return rc != 0 ? ERR_DATA : 0;
}

const char *hf_from(const hf_config *c, const char *key)
{
	for (int i = 0; i < c->ntrace; i++)
		if (!strcmp(c->trace[i].key, key))
			return c->trace[i].from;
	return NULL;
}

int hf_is_config(const char *s)
{
	size_t n = strlen(s);
	return n > 5 && !strcmp(s + n - 5, ".json");
}

int hf_find_net(const char *name_or_path, const char *models_dir, nn_net *out, err *e)
{
	hf_config *c;
	int rc;
	if (!hf_is_config(name_or_path))
		return nn_find(name_or_path, models_dir, out, e);
	c = malloc(sizeof *c);
	if (!c)
		return err_set(e, ERR_DATA, "out of memory");
	rc = hf_load(name_or_path, NULL, c, e);
	if (rc == 0)
		*out = c->net;
	free(c);
	return rc;
}
