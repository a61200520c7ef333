/* hf: a Hugging Face config.json as a network.
 *
 * Reads the config.json of a model of the Llama, Mistral/Mixtral, Qwen2/Qwen3 (dense and MoE),
 * DeepSeek V2/V3 (Kimi K2 shares its keys), gpt-oss, Llama 4 or Gemma (1, 2, 3) families into
 * an nn_net, and says for each network key which config keys it came from: the trace that
 * `roofcost new network --from-hf` writes as a comment per key. A key the config leaves out
 * takes the default of the transformers configuration class of its model_type (named in the
 * trace). A key known not to change the cost (token ids, norm epsilons, RoPE base and
 * scaling, router losses, biases, ...) is listed as ignored, with why; a key this module does
 * not know is an error naming it, since it may change the cost. Errors name the file, the line
 * of the key and the key. The file is read whole (at most 1 MiB, checked as text, text.h);
 * the only user of cJSON in model/. Does not keep the file open. */
#ifndef ROOFCOST_HF_H
#define ROOFCOST_HF_H

#include "base/err.h"
#include "model/nn.h"

enum { HF_TRACE_MAX = 40, HF_IGNORED_MAX = 160, HF_KEY_MAX = 64, HF_FROM_MAX = 200, HF_WHY_MAX = 160 };

typedef struct hf_trace {
	char key[24];              /* the network key (layers, head_dim, ...) */
	char from[HF_FROM_MAX];    /* the config keys it came from, and how */
} hf_trace;

typedef struct hf_ignored {
	char key[HF_KEY_MAX];      /* as the file has it (text_config.rope_theta) */
	char why[HF_WHY_MAX];
} hf_ignored;

typedef struct hf_config {
	nn_net net;                /* complete (nn_complete), name from the file, family = model_type */
	char model_type[32];
	hf_trace trace[HF_TRACE_MAX];
	int ntrace;
	hf_ignored ignored[HF_IGNORED_MAX];
	int nignored;
} hf_config;

/* The model types this module reads, for help texts: "llama, mistral, ...". */
extern const char hf_model_types[];

/* Reads the config.json at path into out (about 40 KB: the caller allocates it). ignore (may
 * be NULL, NULL-terminated) lists keys to leave out as ignored although they are not known
 * (`--ignore`). The network is named after the file (its stem; for a file named config.json,
 * its folder). Returns 0, or ERR_DATA with e set ("FILE:LINE: KEY: reason"). */
int hf_load(const char *path, const char *const *ignore, hf_config *out, err *e);

/* The trace of network key `key` in c, or NULL when the config did not set it. */
const char *hf_from(const hf_config *c, const char *key);

/* 1 if name_or_path names a config.json (ends in .json). */
int hf_is_config(const char *name_or_path);

/* A network by name (models_dir/nn/NAME.ini), by path to an .ini, or by path to a
 * config.json. Returns 0 or nonzero with e set. */
int hf_find_net(const char *name_or_path, const char *models_dir, nn_net *out, err *e);

#endif
