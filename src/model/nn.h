/* nn: transformer network architectures and their strict loader.
 *
 * Dense decoder-only transformers with MHA/GQA or MLA attention, GELU or SwiGLU FFNs, MoE
 * layers (routed + shared experts, leading dense layers, MoE in every k-th layer), attention
 * bounded by a sliding window or a chunk in some of the layers, learned attention sinks and
 * QK-norm. nn_params counts parameters after MODEL.md "Parameters and FLOPs". The loader
 * reads models/nn/ INI files; hf.c reads a Hugging Face config.json into the same struct. */
#ifndef ROOFCOST_NN_H
#define ROOFCOST_NN_H

#include "base/err.h"

enum { NN_NAME_MAX = 48, NN_TEXT_MAX = 1024 };

typedef enum nn_act { NN_GELU, NN_SWIGLU } nn_act;
typedef enum nn_pos { NN_ROPE, NN_LEARNED, NN_ALIBI } nn_pos;
/* What a windowed layer attends: the last `window` positions (sliding, Mistral, gpt-oss,
 * Gemma 2/3) or the positions of its own `window`-long chunk (chunked, Llama 4). */
typedef enum nn_window { NN_WIN_SLIDING, NN_WIN_CHUNKED } nn_window;

extern const char *const nn_window_names[];

typedef struct nn_net {
	char name[NN_NAME_MAX];
	char path[NN_TEXT_MAX];      /* the file it was read from */
	char display[NN_TEXT_MAX];
	char family[NN_NAME_MAX];
	int layers, hidden, heads, kv_heads, head_dim;
	int ffn;
	nn_act act;
	int vocab;
	int tied_embeddings;
	nn_pos pos;
	int max_context;
	int experts, experts_active, expert_ffn, shared_experts, dense_layers;
	int q_lora_rank, kv_lora_rank, rope_head_dim, v_head_dim; /* MLA; 0 = not MLA */
	int moe_every;         /* of the layers after dense_layers, every moe_every-th is MoE (default 1) */
	int shared_expert_ffn; /* FFN width of one shared expert (default expert_ffn) */
	int window;            /* tokens a windowed layer attends; 0 = full attention everywhere */
	int window_layers;     /* layers with the window (default all, when window > 0) */
	nn_window window_kind;
	int attn_sinks;        /* 1: a learned sink logit per head joins each softmax (gpt-oss) */
	int qk_norm;           /* 1: RMSNorm over each query and key head (Qwen3, Gemma 3, Llama 4) */
	int expert_groups;     /* node-limited routing (DeepSeek-V3 §2.1.2): the routed experts in this
				  many equal groups, ... */
	int route_groups;      /* ... and a token's experts in at most this many of them; 0 = unlimited */
	int mtp_layers;              /* multi-token-prediction modules (speculative decoding's draft,
					DeepSeek-V3 §2.2); not counted among the layers */
	char source[NN_TEXT_MAX];
	char as_of[16];
	char note[NN_TEXT_MAX];
} nn_net;

/* Parameter counts (elements). */
typedef struct nn_counts {
	double attn;        /* attention projections (with sinks and QK-norm weights), one layer */
	double ffn_dense;   /* dense FFN, one layer */
	double ffn_expert;  /* one routed expert */
	double router;      /* MoE router, one MoE layer */
	double embed;       /* input embedding */
	double head;        /* LM head (0 if tied) */
	double total;       /* all parameters */
	double active;      /* parameters touched per token (active experts only), embedding included */
	double active_compute; /* = active less the input embedding: the weights a token's forward
			       * multiplies by (the embedding is a row lookup; gpt-oss's card counts so) */
	double shared;      /* the shared experts of one MoE layer */
	int moe_layers;     /* layers with MoE FFN */
} nn_counts;

/* Counts n's parameters. Pure. */
nn_counts nn_params(const nn_net *n);

/* 1 if n uses MLA (kv_lora_rank > 0). */
static inline int nn_is_mla(const nn_net *n)
{
	return n->kv_lora_rank > 0;
}

/* Layers with an MoE FFN: (layers - dense_layers) / moe_every, 0 for a dense network. */
static inline int nn_moe_layers(const nn_net *n)
{
	int every = n->moe_every > 0 ? n->moe_every : 1;
	return n->experts > 0 ? (n->layers - n->dense_layers) / every : 0;
}

/* The share of the layers that are MoE (nn_moe_layers / layers). */
static inline double nn_moe_share(const nn_net *n)
{
	return n->layers > 0 ? (double)nn_moe_layers(n) / n->layers : 0;
}

/* The share of the layers whose attention is bounded by the window (0 without one). */
static inline double nn_window_share(const nn_net *n)
{
	if (n->window <= 0 || n->layers <= 0)
		return 0;
	return (double)(n->window_layers > 0 ? n->window_layers : n->layers) / n->layers;
}

/* Key positions one query at position pos (1-based: the pos-th token) attends in a layer
 * with the window (sliding: min(pos, window); chunked: its place in its chunk), or pos
 * without one. */
double nn_window_keys(const nn_net *n, double pos);

/* Query-key pairs a causal layer with the window computes over a prompt of s tokens:
 * sliding s·W - W·(W-1)/2 for s > W; chunked: whole chunks C·(C+1)/2 each and the rest;
 * s·(s+1)/2 when the window holds the prompt. */
double nn_window_pairs(const nn_net *n, double s);

/* Tokens of KV cache a layer keeps for a sequence of ctx tokens: ctx, or at most the window
 * in a windowed layer (sliding: the last W; chunked: the current chunk, up to W). */
double nn_kv_tokens(const nn_net *n, double ctx, int windowed);

/* KV-cache bytes of one token over all layers at b bytes an element, before tensor
 * parallelism (the MLA latent is not split by heads). */
double nn_kv_bytes_per_token(const nn_net *n, double b);

/* KV-cache elements per token per layer: 2·kv_heads·head_dim, or kv_lora_rank+rope_head_dim
 * for MLA (Liu et al. 2024, DeepSeek-V2 §2.1). */
double nn_kv_elems_per_token_layer(const nn_net *n);

/* Fills the defaults of the optional keys a file left at 0 (kv_heads, head_dim, v_head_dim,
 * expert_ffn, shared_expert_ffn, moe_every, window_layers), then checks how the keys fit
 * together (kv_heads divides heads, experts_active in [1, experts], MoE keys need experts, ...)
 * and the shape (nn_shape_check). Returns 0, or -1 with the key to blame in *key and the
 * reason in why. Pure. */
int nn_complete(nn_net *n, const char **key, char *why, int len);

/* Checks the shape of a network whose defaults are filled in (kv_heads, head_dim) against
 * the ranges of lim.h: head_dim at least 1, attention and expert widths, the parameter count.
 * Returns 0, or -1 with the key to blame in *key and the reason in why. Pure. */
int nn_shape_check(const nn_net *n, const char **key, char *why, int len);

/* Loads one network file. Returns 0 or nonzero with e set. */
int nn_load(const char *path, nn_net *out, err *e);

/* The i-th key of the network format, for templates (`roofcost new`): its key and whether it
 * is required. Returns 1, or 0 past the last. */
int nn_schema_key(int i, const char **key, int *required);

/* The range of the whole-number key `key` of the network format. Returns 1, or 0 when key is
 * not a whole-number key. */
int nn_key_range(const char *key, long long *lo, long long *hi);

/* The value of key in n as the format writes it ("61", "swiglu", "1", a string). Returns 1,
 * or 0 for a key the format does not have. */
int nn_key_text(const nn_net *n, const char *key, char *buf, int len);

/* Finds a network by name (models_dir/nn/<name>.ini) or path and loads it. */
int nn_find(const char *name_or_path, const char *models_dir, nn_net *out, err *e);

#endif
