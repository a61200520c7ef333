/* nn: transformer network architectures and their strict loader.
 *
 * Dense decoder-only transformers with MHA/GQA or MLA attention, GELU or SwiGLU FFNs, and
 * MoE layers (routed + shared experts, leading dense layers). nn_params counts parameters
 * after MODEL.md "Parameters and FLOPs". Loader reads models/nn/ INI files. */
#ifndef ROOFCOST_NN_H
#define ROOFCOST_NN_H

#include "base/err.h"

enum { NN_NAME_MAX = 48, NN_TEXT_MAX = 1024 };

typedef enum nn_act { NN_GELU, NN_SWIGLU } nn_act;
typedef enum nn_pos { NN_ROPE, NN_LEARNED, NN_ALIBI } nn_pos;

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
	int mtp_layers;              /* multi-token-prediction modules (speculative decoding's draft,
					DeepSeek-V3 §2.2); not counted among the layers */
	char source[NN_TEXT_MAX];
	char as_of[16];
	char note[NN_TEXT_MAX];
} nn_net;

/* Parameter counts (elements). */
typedef struct nn_counts {
	double attn;        /* attention projections, one layer */
	double ffn_dense;   /* dense FFN, one layer */
	double ffn_expert;  /* one routed expert */
	double router;      /* MoE router, one MoE layer */
	double embed;       /* input embedding */
	double head;        /* LM head (0 if tied) */
	double total;       /* all parameters */
	double active;      /* parameters touched per token (active experts only) */
	int moe_layers;     /* layers with MoE FFN */
} nn_counts;

/* Counts n's parameters. Pure. */
nn_counts nn_params(const nn_net *n);

/* 1 if n uses MLA (kv_lora_rank > 0). */
int nn_is_mla(const nn_net *n);

/* KV-cache elements per token per layer: 2·kv_heads·head_dim, or kv_lora_rank+rope_head_dim
 * for MLA (Liu et al. 2024, DeepSeek-V2 §2.1). */
double nn_kv_elems_per_token_layer(const nn_net *n);

/* Checks the shape of a network whose defaults are filled in (kv_heads, head_dim) against
 * the ranges of lim.h: head_dim at least 1, attention and expert widths, the parameter count.
 * Returns 0, or -1 with the key to blame in *key and the reason in why. Pure. */
int nn_shape_check(const nn_net *n, const char **key, char *why, int len);

/* Loads one network file. Returns 0 or nonzero with e set. */
int nn_load(const char *path, nn_net *out, err *e);

/* The i-th key of the network format, for templates (`roofcost new`): its key and whether it
 * is required. Returns 1, or 0 past the last. */
int nn_schema_key(int i, const char **key, int *required);

/* Finds a network by name (models_dir/nn/<name>.ini) or path and loads it. */
int nn_find(const char *name_or_path, const char *models_dir, nn_net *out, err *e);

#endif
