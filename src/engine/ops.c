/* ops: workload -> per-chip ops with FLOPs and bytes (see ops.h).
 *
 * Conventions: T tokens of one micro-batch on this chip (b·s/cp), t tensor-parallel degree,
 * ab activation bytes (2 for 16-bit and narrower math, 4 for fp32/tf32), wb weight bytes of the
 * workload precision. GEMM forward FLOPs 2·m·n·k; backward 4·m·n·k (data and weight
 * gradients). Flash attention backward executes 5 GEMMs to the forward's 2 (Dao et al. 2022,
 * Algorithm 4), hence 2.5× its FLOPs. */
#include "engine/ops.h"

#include "engine/shard.h"

#include <math.h>

#include "base/num.h"

const char *const ops_kind_names[] = {"gemm", "attn", "norm", "elem", "embed", "loss", "optim", NULL};
const char *const ops_phase_names[] = {"fwd", "bwd", "recomp", "step", NULL};

/* Recompute policies of a lowering that re-runs a layer's forward before its backward. */
typedef enum recomp { RC_NONE, RC_FULL, RC_PER_OP, RC_MATMUL } recomp;

/* What a weight GEMM is to a selective recompute policy (which matmuls it re-runs). */
typedef enum gemm_role { GR_OTHER, GR_QKV, GR_OPROJ, GR_UP, GR_DOWN } gemm_role;

/* Timing ops as they are made: ops of a transformer layer into *layer, the embedding into
 * *embed, the rest into *rest, as roof_list sums them, with ck = roof_chip_init(chip). */
typedef struct timing {
	const hw_chip *chip;
	const roof_chip *ck;
	roof_memo *sm;
	roof_sum *layer, *embed, *rest;
} timing;

typedef struct lower {
	ops_list *l;     /* the list the ops go into, or NULL: each is timed (to) */
	int n;           /* ops made so far (at most OPS_MAX, in either case) */
	timing to;
	hw_prec prec;
	double ab, wb;
	int train;       /* lower as a training step: backward ops, training fusions */
	int in_layer;    /* ops added now belong to a transformer layer */
	hw_attn attn;    /* attention kernel class */
	int eager;       /* elementwise ops issued one by one */
	double serve;    /* ops belong to a serving iteration: the GEMM share (ops_op serve); 0: not */
	double cast_bytes; /* fp8 training: HBM bytes per element of each quantized operand */
	int cast_weights;  /* fp8 training: 1 when the weights are cast in every micro-batch */
	double sustain;    /* training: the stack's share of the chip family's train_sustained */
	double op_train;   /* ops_op.train of the ops added: sustain when training or recomputing, else 0 */
	double kernel_overhead; /* s of host time per kernel */
	double host[OPS_KIND_N]; /* s of host time per op of each kind (host_of, set by init) */
	/* Recompute: the layer's forward lowered as a forward pass (train 0), written as phase
	 * OPS_RECOMP ops of the training step (its attention kernel, host mode and share), with
	 * the ops the policy does not re-run left out and kept_qkv of the qkv projection. */
	recomp rc;
	int swiglu;
	double kept_qkv;
} lower;

/* Host time to issue one op: eager PyTorch runs an RMSNorm as about six kernels (cast, square,
 * mean, rsqrt, multiply, scale), an activation or residual as two, the loss as about five. */
static double host_of(const lower *c, ops_kind kind)
{
	double kernels = 1;
	if (c->eager)
		kernels = kind == OPS_NORM ? 6 : kind == OPS_LOSS ? 5 : kind == OPS_ELEM ? 2 : 1;
	return c->kernel_overhead * kernels;
}

/* A new op o of this lowering (not yet made: emit makes it), shape 0, one instance, no FLOPs
 * or bytes yet. 0 when the list is full, or when a selective recompute does not re-run ops of
 * this kind. */
__attribute__((always_inline)) static inline int op_new(const lower *c, ops_op *o, const char *name, ops_kind kind,
							 ops_phase phase, double count)
{
	if (c->n >= OPS_MAX)
		return 0;
	if (c->rc > RC_FULL && (kind == OPS_ATTN || kind == OPS_EMBED))
		return 0;
	o->name = name;
	o->kind = kind;
	o->phase = c->rc ? OPS_RECOMP : phase;
	o->m = o->n = o->k = 0;
	o->batch = 1;
	o->flops = o->bytes = 0;
	o->count = count;
	o->prec = c->prec;
	o->per_layer = c->in_layer;
	o->attn = c->attn;
	o->eager = c->eager;
	o->train = c->op_train;
	o->host = c->host[kind];
	o->serve = c->serve;
	return 1;
}

/* A new op b as a copy of o (its backward or recomputed kernel) in another phase; 0 when the
 * list is full. */
__attribute__((always_inline)) static inline int op_like(const lower *c, ops_op *b, const ops_op *o, ops_phase phase)
{
	if (c->n >= OPS_MAX)
		return 0;
	*b = *o;
	b->phase = phase;
	return 1;
}

/* Makes o, whole: the next op of the list, or timed into its part's sum. */
__attribute__((always_inline)) static inline void emit(lower *c, const ops_op *o)
{
	if (c->l) {
		c->l->op[c->n] = *o;
		c->l->n = c->n + 1;
	} else {
		roof_time r;
		/* Timed as made only by the training lowering (serving lowers into a list). */
		roof_time_train_op(c->to.chip, c->to.ck, o, c->to.sm, &r);
		roof_add_op(o->per_layer ? c->to.layer : o->kind == OPS_EMBED ? c->to.embed : c->to.rest, o, &r);
	}
	c->n++;
}

/* emit of a copy of the tensor op (GEMM, attention) made just before it, in another phase: its
 * shape is that op's, whose efficiency the timing keeps. */
__attribute__((always_inline)) static inline void emit_copy(lower *c, const ops_op *o)
{
	if (!c->l)
		c->to.sm->same = 1;
	emit(c, o);
}

/* emit of a new tensor op (a forward GEMM or attention): a shape the last op timed does not
 * have, as a lowering makes them, so the timing need not compare. */
__attribute__((always_inline)) static inline void emit_new(lower *c, const ops_op *o)
{
	if (!c->l)
		c->to.sm->same = -1;
	emit(c, o);
}

/* The share of a GEMM that a recompute re-runs (0: none). Per-op checkpointing re-runs the
 * k projection (its share of the fused qkv), the attention out-projection, and the second
 * FFN input (SwiGLU) or the FFN down-projection (GELU); the matmul policy none. */
static double recomp_keep(const lower *c, gemm_role role)
{
	if (c->rc == RC_NONE || c->rc == RC_FULL)
		return 1;
	if (c->rc != RC_PER_OP)
		return 0;
	switch (role) {
	case GR_QKV: return c->kept_qkv;
	case GR_OPROJ: return 1;
	case GR_UP: return c->swiglu ? 0.5 : 0;
	case GR_DOWN: return c->swiglu ? 0 : 1;
	default: return 0;
	}
}

/* A weight GEMM: out[m×n] = in[m×k] · W[k×n], `inst` instances (experts). */
__attribute__((always_inline)) static inline void gemm(lower *c, gemm_role role, const char *name, double m, double n,
						       double k, double inst, double count)
{
	ops_op o, b;
	double keep;
	if (count <= 0 || m <= 0 || n <= 0 || k <= 0 || inst <= 0)
		return;
	keep = recomp_keep(c, role);
	if (keep <= 0)
		return;
	if (!op_new(c, &o, name, OPS_GEMM, OPS_FWD, count))
		return;
	o.m = m; o.n = n; o.k = k; o.batch = inst;
	o.flops = 2 * m * n * k * inst;
	o.bytes = inst * (n * k * c->wb + m * k * c->ab + m * n * c->ab);
	if (c->rc) {
		o.flops *= keep;
		o.bytes *= keep;
	}
	emit_new(c, &o);
	if (c->train) {
		if (!op_like(c, &b, &o, OPS_BWD))
			return;
		b.flops = 2 * o.flops;
		/* dX = dY·Wᵀ reads dY, W, writes dX; dW = Xᵀ·dY reads dY, X and accumulates into the
		 * fp32 main gradient (read + write, Megatron's default). */
		b.bytes = inst * ((m * n * c->ab + n * k * c->wb + m * k * c->ab) +
				  (m * n * c->ab + m * k * c->ab + 2 * 4 * n * k));
		emit_copy(c, &b);
		if (o.prec == HW_FP8 && c->cast_bytes > 0) {
			/* An fp8 recipe quantizes each operand it feeds the tensor cores: X and W forward,
			 * dY and the transposed X and W backward (torchao float8, TransformerEngine),
			 * cast_bytes of HBM traffic per element each (the framework's [fp8]). */
			/* A stack that caches the fp8 weights over the micro-batches, or keeps them in fp8
			 * ([fp8] weights), casts only the activations here; the weights' once-per-step
			 * cast is train.c's. */
			double wk = c->cast_weights ? n * k : 0;
			ops_op q;
			if (op_new(c, &q, "fp8_cast", OPS_ELEM, OPS_FWD, count)) {
				q.m = inst * (m * k + wk);
				q.bytes = c->cast_bytes * q.m;
				q.prec = HW_BF16;
				emit(c, &q);
			}
			if (op_new(c, &q, "fp8_cast", OPS_ELEM, OPS_BWD, count)) {
				q.m = inst * (m * n + m * k + wk);
				q.bytes = c->cast_bytes * q.m;
				q.prec = HW_BF16;
				emit(c, &q);
			}
		}
	}
}

/* A memory-bound op over `elems` elements: bytes per element forward and backward. */
__attribute__((always_inline)) static inline void elem(lower *c, const char *name, ops_kind kind, double elems,
						       double fwd_bpe, double bwd_bpe, double flops_pe, double count)
{
	ops_op o, b;
	if (count <= 0 || elems <= 0)
		return;
	if (!op_new(c, &o, name, kind, OPS_FWD, count))
		return;
	o.m = elems;
	o.bytes = elems * fwd_bpe;
	o.flops = elems * flops_pe;
	emit(c, &o);
	if (c->train && bwd_bpe > 0) {
		if (!op_like(c, &b, &o, OPS_BWD))
			return;
		b.bytes = elems * bwd_bpe;
		b.flops = 2 * o.flops;
		emit(c, &b);
	}
}

/* KV-cache elements per token per layer on one chip. */
static double kv_elems_local(const nn_net *n, int tp)
{
	if (nn_is_mla(n))
		return nn_kv_elems_per_token_layer(n);
	return 2 * shard_kv_heads_local(n, tp) * n->head_dim;
}

typedef struct shape {
	double seqs;     /* sequences in the micro-batch / batch */
	double s_q;      /* query positions per sequence on this chip */
	double s_kv;     /* key/value positions attended */
	double causal;   /* fraction of the s_q×s_kv scores computed */
	int decode;
} shape;

/* Attention core: scores and values over the context. */
__attribute__((always_inline)) static inline void attention(lower *c, const wl_workload *w, const plan *p, shape sh,
							    double count)
{
	const nn_net *n = &w->net;
	double heads_l = shard_heads_local(n, p->tp); /* padded when tp does not divide */
	double d = n->head_dim, dv = n->v_head_dim;
	double kvl = kv_elems_local(n, p->tp);
	double kvb = c->train ? c->ab : hw_prec_bytes(w->kv_prec);
	ops_op o, b;
	if (!op_new(c, &o, "attention", OPS_ATTN, OPS_FWD, count))
		return;
	if (o.prec == HW_FP4) /* attention kernels run fp8 at the narrowest */
		o.prec = HW_FP8;
	/* fp8 training recipes quantize the linear layers; attention stays in bf16 (torchao
	 * float8 converts nn.Linear only; TransformerEngine's fp8 attention is off by default). */
	if ((c->train || c->rc) && (o.prec == HW_FP8 || o.prec == HW_FP4))
		o.prec = HW_BF16;
	o.m = sh.s_q;
	o.n = sh.s_kv;
	o.k = d;
	o.batch = sh.seqs * heads_l;
	if (sh.decode && nn_is_mla(n)) {
		/* Absorbed MLA decode (DeepSeek-V2 §2.1.3, FlashMLA): each head's query is taken into
		 * the latent (q_absorb), so the scores run over the dc+dr latent-and-rope key and the
		 * values over the dc latent of every cached token, and the output leaves the latent
		 * through o_absorb: 2·(dc+dr) + 2·dc FLOPs per head and cached token. */
		double dc = n->kv_lora_rank, dr = n->rope_head_dim;
		o.k = dc + dr;
		o.flops = 2 * sh.seqs * heads_l * sh.s_q * sh.s_kv * ((dc + dr) + dc);
		/* The absorbed query (dc+dr) and output (dc) per head, the latent cache once. */
		o.bytes = sh.seqs * (sh.s_q * heads_l * ((dc + dr) + dc) * c->ab + sh.s_kv * kvl * kvb);
	} else {
		o.flops = 2 * sh.seqs * heads_l * sh.s_q * sh.s_kv * (d + dv) * sh.causal;
		/* Q and O once, K/V of the context once (flash: no scores in HBM). */
		o.bytes = sh.seqs * (sh.s_q * heads_l * (d + dv) * c->ab + sh.s_kv * kvl * kvb);
	}
	/* A learned sink (gpt-oss) is one more score per query and head, whose exponential joins
	 * the softmax's denominator and which has no value (GptOssAttention). */
	if (n->attn_sinks)
		o.flops += 2 * sh.seqs * heads_l * sh.s_q;
	if (!w->flash_attention && !sh.decode) {
		/* Unfused: scores written by QKᵀ, read and written by the (fused scale-mask) softmax,
		 * read by AV; attention dropout reads the probabilities and writes its output and a
		 * 1-byte mask that AV then reads (the 5·a·s/h activation term of Korthikanti et al.
		 * 2022 §4 is what these passes leave behind). */
		double scores = sh.seqs * heads_l * sh.s_q * sh.s_kv;
		double drop = c->train && w->dropout ? 2 * c->ab + 1 : 0;
		o.bytes += scores * (4 * c->ab + drop);
	}
	emit_new(c, &o);
	if (c->train) {
		if (!op_like(c, &b, &o, OPS_BWD))
			return;
		b.flops = o.flops * (w->flash_attention ? 2.5 : 2.0);
		b.bytes = o.bytes * 2.5;
		emit_copy(c, &b);
		if (!w->flash_attention && w->recompute == WL_RC_SELECTIVE && op_like(c, &b, &o, OPS_RECOMP))
			emit_copy(c, &b);
	}
}

/* Attention of `count` layers: the share with the window attends at most its window of keys
 * (sliding: the last W; chunked: the positions of the token's own chunk), the rest the whole
 * context. Decode: min(ctx, W) keys (sliding) or ctx's place in its chunk; a prompt of s
 * tokens: nn_window_pairs query-key pairs instead of s(s+1)/2, scaling the causal share of a
 * fused kernel (one that masks the whole score matrix computes it all). */
__attribute__((always_inline)) static inline void attention_layers(lower *c, const wl_workload *w, const plan *p,
								   shape sh, double count)
{
	const nn_net *n = &w->net;
	double ws = nn_window_share(n);
	shape win = sh;
	if (ws <= 0) {
		attention(c, w, p, sh, count);
		return;
	}
	if (ws < 1)
		attention(c, w, p, sh, count * (1 - ws));
	if (sh.decode) {
		win.s_kv = nn_window_keys(n, sh.s_kv);
	} else {
		double s = sh.s_kv;
		if (sh.causal < 1 && s > 0)
			win.causal = sh.causal * nn_window_pairs(n, s) / (s * (s + 1) / 2);
	}
	attention(c, w, p, win, count * ws);
}

/* One transformer layer's forward ops (and backward when training), `count` layers, with
 * `moe_share` of them MoE layers. T tokens per chip. */
__attribute__((always_inline)) static inline void layer(lower *c, const wl_workload *w, const plan *p, shape sh,
							double count, double moe_share, const shape *extra)
{
	const nn_net *n = &w->net;
	double t = p->tp, h = n->hidden, a = n->heads, d = n->head_dim, dv = n->v_head_dim;
	double a_l = shard_heads_local(n, p->tp); /* query heads per chip, padded when tp does not divide */
	double T = sh.seqs * sh.s_q + (extra ? extra->seqs * extra->s_q : 0);
	double Tsp = (p->sp && p->tp > 1) ? T / t : T;  /* norms/dropout split under SP */
	double ab = c->ab;
	double fin = n->act == NN_SWIGLU ? 2.0 : 1.0;
	double drop = c->train && w->dropout ? 1.0 : 0.0;
	double dense_count = count * (1 - moe_share), moe_count = count * moe_share;

	c->in_layer = 1;

	/* RMSNorm/LayerNorm: read x, write y; backward reads x, dy, writes dx. Serving engines
	 * fuse the residual add into the next norm (read x and residual, write both). */
	double norm_bytes = c->train ? 2 * ab : 4 * ab;
	elem(c, c->train ? "attn_norm" : "add_norm", OPS_NORM, Tsp * h, norm_bytes, 3 * ab, 5, count);
	if (nn_is_mla(n)) {
		double dq = n->q_lora_rank, dc = n->kv_lora_rank, dr = n->rope_head_dim;
		if (dq > 0) {
			gemm(c, GR_OTHER, "q_down", T, dq, h, 1, count);
			gemm(c, GR_OTHER, "q_up", T, a * d / t, dq, 1, count);
		} else {
			gemm(c, GR_OTHER, "q_proj", T, a * d / t, h, 1, count);
		}
		gemm(c, GR_OTHER, "kv_down", T, dc + dr, h, 1, count);
		if (sh.decode) {
			/* Decode runs MLA absorbed: W_UK is taken into each head's query (T×(d-dr) into
			 * T×dc per head) and W_UV into its output (T×dc into T×dv per head), instead of
			 * expanding the whole cache to keys and values (DeepSeek-V2 §2.1.3). The same
			 * weights and FLOPs per new token as kv_up, as per-head GEMMs. */
			double Td = sh.seqs * sh.s_q;
			gemm(c, GR_OTHER, "q_absorb", Td, dc, d - dr, a_l, count);
			gemm(c, GR_OTHER, "o_absorb", Td, dv, dc, a_l, count);
			if (T > Td)   /* prompts in the same pass expand their own keys and values */
				gemm(c, GR_OTHER, "kv_up", T - Td, a * ((d - dr) + dv) / t, dc, 1, count);
		} else {
			gemm(c, GR_OTHER, "kv_up", T, a * ((d - dr) + dv) / t, dc, 1, count);
		}
	} else {
		/* Per chip: its (padded) query heads and its KV heads, replicated when tp > kv_heads. */
		double k_l = shard_kv_heads_local(n, p->tp);
		gemm(c, GR_QKV, "qkv_proj", T, (a_l + 2 * k_l) * d, h, 1, count);
		if (n->qk_norm)
			/* QK-norm (Qwen3, Gemma 3): an RMSNorm over each query and key head after the
			 * projection, reading and writing q and k. */
			elem(c, "qk_norm", OPS_NORM, T * (a_l + k_l) * d, 2 * ab, 3 * ab, 5, count);
	}
	attention_layers(c, w, p, sh, count);
	if (extra && extra->seqs > 0)
		attention_layers(c, w, p, *extra, count);
	gemm(c, GR_OPROJ, "o_proj", T, h, a_l * dv, 1, count);
	/* Residual add (+ dropout): read x and residual, write out (+ 1-byte mask). */
	if (c->train)
		elem(c, "attn_residual", OPS_ELEM, Tsp * h, 3 * ab + drop, drop ? 2 * ab + 1 : 0, 1, count);
	elem(c, c->train ? "ffn_norm" : "ffn_add_norm", OPS_NORM, Tsp * h, norm_bytes, 3 * ab, 5, count);

	if (dense_count > 0) {
		double f = n->ffn;
		gemm(c, GR_UP, "ffn_up", T, fin * f / t, h, 1, dense_count);
		elem(c, "ffn_act", OPS_ELEM, T * f / t, (fin + 1) * ab, (2 * fin + 1) * ab, 8, dense_count);
		gemm(c, GR_DOWN, "ffn_down", T, h, f / t, 1, dense_count);
	}
	if (moe_count > 0) {
		double E = n->experts, k = n->experts_active, fe = n->expert_ffn;
		double ep = p->ep, e_local = E / ep;
		/* Tokens routed into this chip's experts: T·k·ep spread over E experts (balanced). With
		 * few tokens not every expert is hit: P(hit) = 1-(1-k/E)^(T·ep). */
		double routed = T * k * ep / E;
		double hit = 1 - pow(1 - k / E, T * ep);
		double inst = e_local * hit;
		double m_e = routed / hit;
		if (!c->train && ep > 1 && T * k > 0)
			/* A serving step waits for the busiest expert rank: of ep ranks expecting T·k routed
			 * tokens each, the most loaded holds about T·k + √(2 T·k ln ep) (the largest of ep
			 * near-normal counts). */
			m_e *= 1 + sqrt(2 * log(ep) / (T * k));
		gemm(c, GR_OTHER, "router", T, E, h, 1, moe_count);
		gemm(c, GR_UP, "expert_up", m_e, fin * fe / t, h, inst, moe_count);
		elem(c, "expert_act", OPS_ELEM, T * k * fe / t, (fin + 1) * ab, (2 * fin + 1) * ab, 8,
		     moe_count);
		gemm(c, GR_DOWN, "expert_down", m_e, h, fe / t, inst, moe_count);
		if (n->shared_experts > 0) {
			double fs = (double)n->shared_experts * (n->shared_expert_ffn > 0 ? n->shared_expert_ffn : fe);
			gemm(c, GR_UP, "shared_up", T, fin * fs / t, h, 1, moe_count);
			elem(c, "shared_act", OPS_ELEM, T * fs / t, (fin + 1) * ab, (2 * fin + 1) * ab, 8,
			     moe_count);
			gemm(c, GR_DOWN, "shared_down", T, h, fs / t, 1, moe_count);
		}
	}
	if (c->train)
		elem(c, "ffn_residual", OPS_ELEM, Tsp * h, 3 * ab + drop, drop ? 2 * ab + 1 : 0, 1, count);
	c->in_layer = 0;
}

static double moe_share(const nn_net *n)
{
	return nn_moe_share(n);
}

/* The lowering's context for w, into out (NULL: timed, into the sums the caller set in c). */
__attribute__((always_inline)) static inline void init(lower *c, ops_list *out, const wl_workload *w, int train)
{
	/* Each op is written whole when made (emit): nothing is cleared. */
	if (out) {
		out->n = 0;
		out->layers_stage = 0;
	}
	c->l = out;
	c->n = 0;
	c->prec = w->prec;
	c->wb = hw_prec_bytes(w->prec);
	c->ab = (w->prec == HW_FP32 || w->prec == HW_TF32) ? 4 : 2;
	c->train = train;
	c->in_layer = 0;
	/* Training runs the framework's attention kernel and host mode; serving engines run
	 * their fused kernels, compiled or as graphs. */
	c->attn = train && w->fw.train.attention_kernel == 2 ? HW_ATTN_FLASH2 : HW_ATTN_FLASH;
	c->eager = train && w->fw.has_train && w->fw.train.eager_elementwise;
	c->cast_bytes = train ? w->fw.train.fp8_cast_bytes : 0;
	c->cast_weights = w->fw.train.fp8_weights == FW_FP8W_MICRO;
	c->sustain = 1;
	c->op_train = train ? c->sustain : 0;
	c->kernel_overhead = train && w->fw.has_train ? w->fw.train.kernel_overhead : 0;
	NUM_UNROLL
	for (int k = 0; k < OPS_KIND_N; k++)
		c->host[k] = host_of(c, (ops_kind)k);
	c->serve = 0;
	c->rc = RC_NONE;
	c->swiglu = w->net.act == NN_SWIGLU;
	c->kept_qkv = 0;
}

/* The ops of one training micro-batch on the bottleneck stage, and the optimizer step when
 * `optimizer`, into out, or (out NULL) timed into the sums `to` holds (its chip .. rest). */
__attribute__((always_inline)) static inline void lower_train(const wl_workload *w, const plan *p, const char *family,
							      int optimizer, ops_list *out, const timing *to)
{
	lower c;
	const nn_net *n = &w->net;
	double b = p->micro_batch > 0 ? p->micro_batch : w->micro_batch;
	double L = shard_layers_per_stage(n, p->pp);
	shape sh = {b, (double)w->seq_len / p->cp, w->seq_len, 0.5, 0};
	double T = b * sh.s_q, t = p->tp;

	if (out)
		c.to = (timing){0};
	else
		c.to = *to;
	init(&c, out, w, 1);
	if (family && w->fw.has_train) {
		int k = fw_attention_kernel(&w->fw.train, family);
		c.attn = k == 2 ? HW_ATTN_FLASH2 : HW_ATTN_FLASH;
		c.sustain = fw_sustain(&w->fw.train, family);
		c.op_train = c.sustain;
	}
	if (out)
		out->layers_stage = L;
	if (!w->flash_attention)
		sh.causal = 1.0; /* unfused kernels compute the full score matrix */
	if (p->pp == 1) /* the embedding sits on the first stage; the bottleneck is the last */
		elem(&c, "embedding", OPS_EMBED, T * n->hidden, 2 * c.ab, 2 * 4, 0, 1);
	layer(&c, w, p, sh, L, moe_share(n), NULL);
	{
		/* The output projection stays in 16-bit under fp8 and fp4 training recipes (torchao's
		 * default filter skips `output`; Megatron's output layer is not a TE layer). */
		hw_prec keep = c.prec;
		if (c.prec == HW_FP8 || c.prec == HW_FP4)
			c.prec = HW_BF16;
		gemm(&c, GR_OTHER, "lm_head", T, n->vocab / t, n->hidden, 1, 1);
		c.prec = keep;
	}
	/* Vocab-parallel cross-entropy: read logits, fp32 softmax; backward writes dlogits. */
	elem(&c, "loss", OPS_LOSS, T * n->vocab / t, c.ab + 4, 4 + c.ab, 6, 1);

	if (w->recompute == WL_RC_FULL ||
	    (w->recompute == WL_RC_SELECTIVE && w->fw.train.selective != FW_SEL_ATTENTION)) {
		/* Full recompute re-runs the layer forward before its backward (Korthikanti §5).
		 * Per-op checkpointing re-runs the elementwise ops and every other matmul (the k
		 * projection, the attention out-projection, and the second FFN input or the FFN
		 * down-projection); the matmul policy re-runs the elementwise ops only. The layer is
		 * lowered as a forward pass, straight into the list (see lower.rc). */
		lower r = c;
		double a_l = shard_heads_local(n, p->tp), k_l = shard_kv_heads_local(n, p->tp);
		r.train = 0;
		r.cast_bytes = 0;
		r.rc = w->recompute == WL_RC_FULL ? RC_FULL
			: w->fw.train.selective == FW_SEL_OPS ? RC_PER_OP : RC_MATMUL;
		r.kept_qkv = k_l / (a_l + 2 * k_l);
		r.op_train = r.sustain;
		layer(&r, w, p, sh, L, moe_share(n), NULL);
		c.n = r.n;
	}
	if (optimizer) {
		/* Optimizer step over this chip's parameter shard. Adam, mixed precision: reads fp32
		 * master, m, v and main grad (16 B), writes master, m, v (12 B) and the 16-bit
		 * weight (2 B). SGD: reads master and grad, writes master and weight (14 B). */
		nn_counts cnt = nn_params(n);
		double per_layer = cnt.attn + (n->experts > 0
			? (1 - moe_share(n)) * cnt.ffn_dense +
			  moe_share(n) * (cnt.router + n->experts / p->ep * cnt.ffn_expert + cnt.shared)
			: cnt.ffn_dense);
		double local = (L * per_layer + (p->pp == 1 ? cnt.embed + cnt.head : cnt.head)) / t;
		double E = shard_params_expert_local(n, p);
		double sharded = w->zero >= 1 ? (local - E) / shard_zero(p, 0) + E / shard_zero(p, 1) : local;
		double bpp = w->optimizer == WL_ADAM ? 30 : 14;
		ops_op o;
		if (op_new(&c, &o, "optimizer", OPS_OPTIM, OPS_STEP, 1)) {
			o.m = sharded;
			o.bytes = o.m * bpp;
			o.flops = o.m * (w->optimizer == WL_ADAM ? 12 : 2);
			o.prec = HW_FP32;
			emit(&c, &o);
		}
	}
}

/* lower_train into a list: one copy for both entries below (the timed one has its own). */
__attribute__((noinline)) static void lower_train_list(const wl_workload *w, const plan *p, const char *family,
							int optimizer, ops_list *out)
{
	if (out)
		lower_train(w, p, family, optimizer, out, NULL);
}

void ops_train(const wl_workload *w, const plan *p, const char *family, ops_list *out)
{
	lower_train_list(w, p, family, 1, out);
}

void ops_train_micro(const wl_workload *w, const plan *p, const char *family, ops_list *out)
{
	lower_train_list(w, p, family, 0, out);
}

void ops_train_micro_roof(const wl_workload *w, const plan *p, const hw_chip *chip, roof_sum *layer, roof_sum *embed,
			  roof_sum *rest)
{
	roof_chip ck;
	roof_memo sm;
	timing to = {chip, &ck, &sm, layer, embed, rest};
	roof_chip_init(chip, &ck);
	roof_memo_init(&sm);
	*layer = (roof_sum){0};
	*embed = (roof_sum){0};
	*rest = (roof_sum){0};
	lower_train(w, p, chip->family, 0, NULL, &to);
}

void ops_prefill(const wl_workload *w, const plan *p, int batch, ops_list *out)
{
	ops_iter(w, p, 0, 0, (double)batch * w->input_len, out);
}

void ops_decode(const wl_workload *w, const plan *p, int batch, double ctx, ops_list *out)
{
	ops_iter(w, p, batch, ctx, 0, out);
}

void ops_iter(const wl_workload *w, const plan *p, double batch, double ctx, double prefill_tokens,
	      ops_list *out)
{
	lower c;
	const nn_net *n = &w->net;
	/* Speculative decoding verifies the draft's tokens and one more per sequence in one pass. */
	double q = w->spec_kind != WL_SPEC_NONE ? 1.0 + w->spec_tokens : 1.0;
	shape dec = {batch, q, ctx, 1.0, 1};
	shape pre = {prefill_tokens / w->input_len, w->input_len, w->input_len, 0.5, 0};
	double L = shard_layers_per_stage(n, p->pp);
	double T = batch * q + prefill_tokens;
	if (!out)
		return;
	init(&c, out, w, 0);
	/* Serving rates (roof_op: [decode] curves, paged attention), at the share the stack's GEMM
	 * library reaches of them. */
	c.serve = w->fw.serve.gemm_share > 0 ? w->fw.serve.gemm_share : 1;
	out->layers_stage = L;
	if (p->pp == 1)
		elem(&c, "embedding", OPS_EMBED, T * n->hidden, 2 * c.ab, 0, 0, 1);
	/* A prefill-only pass (batch 0) has the prompts as its only attention. */
	if (batch > 0)
		layer(&c, w, p, dec, L, moe_share(n), prefill_tokens > 0 ? &pre : NULL);
	else
		layer(&c, w, p, pre, L, moe_share(n), NULL);
	/* Logits for the decoded tokens and the last position of each new prompt. */
	gemm(&c, GR_OTHER, "lm_head", batch * q + pre.seqs, (double)n->vocab / p->tp, n->hidden, 1, 1);
	if (prefill_tokens > 0) {
		/* Writing the prompts' K/V into the cache. */
		ops_op o;
		if (op_new(&c, &o, "kv_write", OPS_ELEM, OPS_FWD, L)) {
			o.m = prefill_tokens * kv_elems_local(n, p->tp);
			o.bytes = o.m * hw_prec_bytes(w->kv_prec);
			emit(&c, &o);
		}
	}
}

double ops_decode_flops(const wl_workload *w, double ctx, double *attn)
{
	plan one = {1, 1, 1, 1, 1, 1, 0, 0, 1};
	ops_list l;
	double all = 0, a = 0;
	ops_iter(w, &one, 1, ctx, 0, &l);
	for (int i = 0; i < l.n; i++) {
		all += l.op[i].flops * l.op[i].count;
		if (l.op[i].kind == OPS_ATTN)
			a += l.op[i].flops * l.op[i].count;
	}
	if (attn)
		*attn = a;
	return all;
}
