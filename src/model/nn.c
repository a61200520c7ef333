/* nn: network architectures (see nn.h). */
#include "model/nn.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "base/cfg.h"
#include "base/lim.h"
#include "base/names.h"

static const char *const act_names[] = {"gelu", "swiglu", NULL};
static const char *const pos_names[] = {"rope", "learned", "alibi", NULL};
const char *const nn_window_names[] = {"sliding", "chunked", NULL};

#define I(key, member, req, lo, hi) \
	{"network", key, CFG_INT, UNITS_NONE, req, lo, hi, offsetof(nn_net, member), 0, NULL}
#define S(key, member, req) \
	{"network", key, CFG_STR, UNITS_NONE, req, 1, 0, offsetof(nn_net, member), \
	 sizeof(((nn_net *)0)->member), NULL}

static const cfg_field net_fields[] = {
	S("name", name, 1), S("display", display, 1), S("family", family, 1),
	I("layers", layers, 1, 1, LIM_LAYERS), I("hidden", hidden, 1, 1, LIM_HIDDEN),
	I("heads", heads, 1, 1, LIM_HEADS), I("kv_heads", kv_heads, 0, 1, LIM_HEADS),
	I("head_dim", head_dim, 0, 1, LIM_HEAD_DIM), I("ffn", ffn, 1, 1, LIM_WIDTH),
	{"network", "ffn_act", CFG_ENUM, UNITS_NONE, 1, 1, 0, offsetof(nn_net, act), 0, act_names},
	I("vocab", vocab, 1, 1, LIM_VOCAB),
	{"network", "tied_embeddings", CFG_BOOL, UNITS_NONE, 0, 1, 0, offsetof(nn_net, tied_embeddings), 0, NULL},
	{"network", "position", CFG_ENUM, UNITS_NONE, 1, 1, 0, offsetof(nn_net, pos), 0, pos_names},
	I("max_context", max_context, 1, 1, LIM_TOKENS),
	I("experts", experts, 0, 0, LIM_EXPERTS), I("experts_active", experts_active, 0, 0, LIM_EXPERTS),
	I("expert_ffn", expert_ffn, 0, 0, LIM_WIDTH), I("shared_experts", shared_experts, 0, 0, 1000),
	I("dense_layers", dense_layers, 0, 0, LIM_LAYERS),
	I("expert_groups", expert_groups, 0, 0, LIM_EXPERTS), I("route_groups", route_groups, 0, 0, LIM_EXPERTS),
	I("mtp_layers", mtp_layers, 0, 0, 16),
	I("q_lora_rank", q_lora_rank, 0, 0, LIM_HIDDEN), I("kv_lora_rank", kv_lora_rank, 0, 0, LIM_HIDDEN),
	I("rope_head_dim", rope_head_dim, 0, 0, LIM_HEAD_DIM), I("v_head_dim", v_head_dim, 0, 0, LIM_HEAD_DIM),
	I("moe_every", moe_every, 0, 0, LIM_LAYERS), I("shared_expert_ffn", shared_expert_ffn, 0, 0, LIM_WIDTH),
	I("window", window, 0, 0, LIM_TOKENS), I("window_layers", window_layers, 0, 0, LIM_LAYERS),
	{"network", "window_kind", CFG_ENUM, UNITS_NONE, 0, 1, 0, offsetof(nn_net, window_kind), 0, nn_window_names},
	{"network", "attn_sinks", CFG_BOOL, UNITS_NONE, 0, 1, 0, offsetof(nn_net, attn_sinks), 0, NULL},
	{"network", "qk_norm", CFG_BOOL, UNITS_NONE, 0, 1, 0, offsetof(nn_net, qk_norm), 0, NULL},
	S("source", source, 1),
	{"network", "as_of", CFG_DATE, UNITS_NONE, 1, 1, 0, offsetof(nn_net, as_of), sizeof(((nn_net *)0)->as_of), NULL},
	S("note", note, 0),
};

static const char *const net_sections[] = {"network", NULL};

int nn_schema_key(int i, const char **key, int *required)
{
	if (i < 0 || i >= (int)(sizeof net_fields / sizeof net_fields[0]))
		return 0;
	*key = net_fields[i].key;
	*required = net_fields[i].required;
	return 1;
}

static const cfg_field *field_of(const char *key)
{
	for (size_t i = 0; i < sizeof net_fields / sizeof net_fields[0]; i++)
		if (!strcmp(net_fields[i].key, key))
			return &net_fields[i];
	return NULL;
}

int nn_key_range(const char *key, long long *lo, long long *hi)
{
	const cfg_field *f = field_of(key);
	if (!f || f->type != CFG_INT)
		return 0;
	*lo = (long long)f->min;
	*hi = (long long)f->max;
	return 1;
}

int nn_key_text(const nn_net *n, const char *key, char *buf, int len)
{
	const cfg_field *f = field_of(key);
	const char *base = (const char *)n;
	if (!f)
		return 0;
	switch (f->type) {
	case CFG_INT:
	case CFG_BOOL:
		snprintf(buf, (size_t)len, "%d", *(const int *)(base + f->offset));
		break;
	case CFG_ENUM:
		snprintf(buf, (size_t)len, "%s", f->choices[*(const int *)(base + f->offset)]);
		break;
	default:
		snprintf(buf, (size_t)len, "%s", base + f->offset);
		break;
	}
	return 1;
}

double nn_kv_elems_per_token_layer(const nn_net *n)
{
	if (nn_is_mla(n))
		return (double)n->kv_lora_rank + n->rope_head_dim;
	return 2.0 * n->kv_heads * n->head_dim;
}

double nn_window_keys(const nn_net *n, double pos)
{
	double w = n->window;
	if (w <= 0 || pos <= w)
		return pos;
	if (n->window_kind == NN_WIN_CHUNKED)
		return pos - w * floor((pos - 1) / w);
	return w;
}

double nn_window_pairs(const nn_net *n, double s)
{
	double w = n->window;
	if (w <= 0 || s <= w)
		return s * (s + 1) / 2;
	if (n->window_kind == NN_WIN_CHUNKED) {
		double q = floor(s / w), r = s - q * w;
		return q * w * (w + 1) / 2 + r * (r + 1) / 2;
	}
	return s * w - w * (w - 1) / 2;
}

double nn_kv_tokens(const nn_net *n, double ctx, int windowed)
{
	return windowed && n->window > 0 && ctx > n->window ? n->window : ctx;
}

double nn_kv_bytes_per_token(const nn_net *n, double b)
{
	return nn_kv_elems_per_token_layer(n) * n->layers * b;
}

nn_counts nn_params(const nn_net *n)
{
	nn_counts c;
	double h = n->hidden, a = n->heads, k = n->kv_heads, d = n->head_dim;
	double mult = n->act == NN_SWIGLU ? 3.0 : 2.0; /* MODEL.md: 2·h·f GELU, 3·h·f SwiGLU */

	memset(&c, 0, sizeof c);
	if (nn_is_mla(n)) {
		/* DeepSeek-V2 §2.1: W_DQ h×dq, W_UQ dq×(a·d); W_DKV h×(dc+dr); W_UK, W_UV dc×a·(d-dr), dc×a·dv;
		 * W_O (a·dv)×h. Without q_lora_rank the query is a full h×(a·d) projection. */
		double dv = n->v_head_dim, dr = n->rope_head_dim, dc = n->kv_lora_rank, dq = n->q_lora_rank;
		double q = dq > 0 ? h * dq + dq * a * d : h * a * d;
		c.attn = q + h * (dc + dr) + dc * a * ((d - dr) + dv) + a * dv * h;
	} else {
		/* MODEL.md: h·(h + 2·k·d) + h·h, written for a·d possibly != h. */
		c.attn = h * (a * d + 2 * k * d) + a * d * h;
	}
	/* A learned sink logit per head (gpt-oss: `sinks`, one per attention head); QK-norm
	 * scales q and k by a head_dim-wide weight each (Qwen3 q_norm, k_norm). */
	if (n->attn_sinks)
		c.attn += a;
	if (n->qk_norm)
		c.attn += 2 * d;
	c.ffn_dense = mult * h * n->ffn;
	if (n->experts > 0) {
		c.ffn_expert = mult * h * n->expert_ffn;
		c.shared = n->shared_experts * mult * h * (n->shared_expert_ffn > 0 ? n->shared_expert_ffn : n->expert_ffn);
		c.router = h * n->experts;
		c.moe_layers = nn_moe_layers(n);
	}
	c.embed = (double)n->vocab * h;
	c.head = n->tied_embeddings ? 0 : (double)n->vocab * h;
	{
		double dense_l = n->layers - c.moe_layers;
		double moe_total = c.moe_layers * (c.router + n->experts * c.ffn_expert + c.shared);
		double moe_active = c.moe_layers * (c.router + n->experts_active * c.ffn_expert + c.shared);
		double base = n->layers * c.attn + dense_l * c.ffn_dense + c.embed + c.head;
		c.total = base + moe_total;
		c.active = base + moe_active;
		/* A tied head multiplies by the embedding matrix: it stays. */
		c.active_compute = n->tied_embeddings ? c.active : c.active - c.embed;
	}
	return c;
}

int nn_shape_check(const nn_net *n, const char **key, char *why, int len)
{
	long long attn = (long long)n->heads * n->head_dim, kv = 2LL * n->kv_heads * n->head_dim;
	int fs = n->shared_expert_ffn > 0 ? n->shared_expert_ffn : n->expert_ffn;
	long long moe = (long long)n->expert_ffn * n->experts_active + (long long)fs * n->shared_experts;
	nn_counts c;
#define BAD(k, ...) do { *key = k; snprintf(why, (size_t)len, __VA_ARGS__); return -1; } while (0)
	if (n->head_dim < 1)
		BAD("head_dim", "hidden %d / heads %d leaves 0: give head_dim", n->hidden, n->heads);
	if (attn > LIM_WIDTH)
		BAD("head_dim", "heads*head_dim = %lld is more than %d", attn, LIM_WIDTH);
	if (kv > LIM_WIDTH)
		BAD("kv_heads", "2*kv_heads*head_dim = %lld is more than %d", kv, LIM_WIDTH);
	if (n->experts > 0 && moe > LIM_WIDTH && (fs == n->expert_ffn || n->shared_experts == 0))
		BAD("expert_ffn", "expert_ffn*(experts_active + shared_experts) = %lld is more than %d", moe,
		    LIM_WIDTH);
	if (n->experts > 0 && moe > LIM_WIDTH)
		BAD("shared_expert_ffn", "expert_ffn*experts_active + shared_expert_ffn*shared_experts = %lld is "
		    "more than %d", moe, LIM_WIDTH);
	c = nn_params(n);
	if (!(c.total <= LIM_PARAMS))
		BAD(n->experts > 0 ? "experts" : "hidden", "%.3g parameters are more than %g", c.total, LIM_PARAMS);
#undef BAD
	return 0;
}

int nn_complete(nn_net *n, const char **key, char *why, int len)
{
#define BAD(k, ...) do { *key = k; snprintf(why, (size_t)len, __VA_ARGS__); return -1; } while (0)
	if (n->heads < 1 || n->layers < 1)
		BAD(n->heads < 1 ? "heads" : "layers", "must be at least 1");
	if (n->kv_heads == 0)
		n->kv_heads = n->heads;
	if (n->head_dim == 0 && n->hidden % n->heads != 0)
		BAD("head_dim", "hidden %d is not a multiple of heads %d: give head_dim", n->hidden, n->heads);
	if (n->head_dim == 0)
		n->head_dim = n->hidden / n->heads;
	if (n->v_head_dim == 0)
		n->v_head_dim = n->head_dim;
	if (n->heads % n->kv_heads != 0)
		BAD("kv_heads", "%d does not divide heads %d", n->kv_heads, n->heads);
	if (n->experts > 0 && (n->experts_active < 1 || n->experts_active > n->experts))
		BAD("experts_active", "%d is not in [1, experts = %d]", n->experts_active, n->experts);
	if (n->experts == 0 && (n->experts_active || n->shared_experts || n->dense_layers || n->moe_every ||
				n->shared_expert_ffn)) {
		const char *k = n->experts_active ? "experts_active" : n->shared_experts ? "shared_experts"
				: n->dense_layers ? "dense_layers" : n->moe_every ? "moe_every" : "shared_expert_ffn";
		BAD(k, "needs experts > 0 (an MoE network)");
	}
	if (n->dense_layers >= n->layers)
		BAD("dense_layers", "must be less than layers");
	if ((n->expert_groups > 0) != (n->route_groups > 0))
		BAD(n->expert_groups > 0 ? "route_groups" : "expert_groups", "expert_groups and route_groups go together");
	if (n->expert_groups > 0 && n->experts == 0)
		BAD("expert_groups", "needs experts > 0 (an MoE network)");
	if (n->expert_groups > 0 && n->experts % n->expert_groups != 0)
		BAD("expert_groups", "%d does not divide experts %d", n->expert_groups, n->experts);
	if (n->route_groups > n->expert_groups)
		BAD("route_groups", "%d is more than expert_groups %d", n->route_groups, n->expert_groups);
	/* A token's experts_active experts lie in at most route_groups groups of experts /
	 * expert_groups each. */
	if (n->expert_groups > 0 && (long long)n->route_groups * (n->experts / n->expert_groups) < n->experts_active)
		BAD("route_groups", "%d groups x %d experts a group are fewer than experts_active %d", n->route_groups,
		    n->experts / n->expert_groups, n->experts_active);
	if (nn_is_mla(n) && n->rope_head_dim >= n->head_dim)
		BAD("rope_head_dim", "must be less than head_dim");
	if (n->experts > 0) {
		if (n->expert_ffn == 0)
			n->expert_ffn = n->ffn;
		if (n->shared_expert_ffn == 0)
			n->shared_expert_ffn = n->expert_ffn;
		if (n->moe_every == 0)
			n->moe_every = 1;
		if (n->moe_every > n->layers - n->dense_layers)
			BAD("moe_every", "%d leaves no MoE layer among the %d after dense_layers", n->moe_every,
			    n->layers - n->dense_layers);
	}
	if (n->window == 0 && (n->window_layers > 0 || n->window_kind != NN_WIN_SLIDING))
		BAD(n->window_layers > 0 ? "window_layers" : "window_kind", "needs window > 0");
	if (n->window > 0 && n->window_layers == 0)
		n->window_layers = n->layers;
	if (n->window_layers > n->layers)
		BAD("window_layers", "%d is more than layers %d", n->window_layers, n->layers);
#undef BAD
	return nn_shape_check(n, key, why, len);
}

/* The line of key in [network], else fallback. */
static int key_line(const cfg_doc *d, const char *key, int fallback)
{
	const cfg_entry *en = cfg_find(d, "network", key);
	return en && en->line > 0 ? en->line : fallback;
}

int nn_load(const char *path, nn_net *out, err *e)
{
	cfg_doc d;
	nn_net n;
	int rc;
	char stem[NN_NAME_MAX];

	memset(&n, 0, sizeof n);
	if (cfg_load(&d, path, e) != 0)
		return ERR_DATA;
	rc = cfg_extract(&d, net_fields, (int)(sizeof net_fields / sizeof net_fields[0]), net_sections,
			 &n, e);
	if (rc == 0) {
		const char *b = strrchr(path, '/');
		const char *dot;
		size_t len;
		b = b ? b + 1 : path;
		dot = strrchr(b, '.');
		len = dot ? (size_t)(dot - b) : strlen(b);
		snprintf(stem, sizeof stem, "%.*s", (int)len, b);
		if (strcmp(stem, n.name) != 0) {
			const cfg_entry *en = cfg_find(&d, "network", "name");
			rc = err_at(e, path, en ? en->line : 0, "name: '%s' differs from the file name '%s'",
				    n.name, stem);
		}
	}
	if (rc == 0) {
		const char *key;
		char why[160];
		if (nn_complete(&n, &key, why, sizeof why) != 0) {
			/* A head_dim left out is blamed on the line of hidden, which it came from. */
			int fallback = key_line(&d, !strcmp(key, "head_dim") ? "hidden" : "name", 0);
			rc = err_at(e, path, key_line(&d, key, fallback), "%s: %s", key, why);
		}
	}
	if (rc == 0) {
		snprintf(n.path, sizeof n.path, "%s", path);
		*out = n;
	}
	cfg_release(&d);
	return rc;
}

int nn_find(const char *name_or_path, const char *models_dir, nn_net *out, err *e)
{
	char path[1024];
	size_t n = strlen(name_or_path);
	if (strchr(name_or_path, '/') || (n > 4 && strcmp(name_or_path + n - 4, ".ini") == 0))
		return nn_load(name_or_path, out, e);
	{
		char dir[1024], stem[NN_NAME_MAX * 2];
		snprintf(dir, sizeof dir, "%s/nn", models_dir);
		if (names_find(dir, name_or_path, "network", stem, sizeof stem, e) != 0)
			return ERR_DATA;
		snprintf(path, sizeof path, "%s/%s.ini", dir, stem);
	}
	return nn_load(path, out, e);
}
