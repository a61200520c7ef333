/* ops: lower a workload into per-chip operations with FLOPs and bytes.
 *
 * One op is a kernel a chip runs: a GEMM (shape m×n×k, `batch` independent instances), fused
 * attention, a norm, an elementwise op, an embedding gather, the loss, or the optimizer step.
 * Shapes are per chip after the plan's tensor/sequence/context/expert split; `count` says how
 * many times the op runs per micro-batch (training) or per step (inference), e.g. the layers
 * of one pipeline stage. FLOPs are what the chip executes (causal attention kernels skip the
 * masked half); the papers' model-FLOP conventions live in train.c. Bytes are HBM traffic.
 * Pure: no I/O, no allocation; ops_list is a fixed-size value that a caller keeps and refills
 * (each lowering writes its ops in place, op by op, and sets n). Formulas after MODEL.md. */
#ifndef ROOFCOST_OPS_H
#define ROOFCOST_OPS_H

#include "model/hw.h"
#include "model/plan.h"
#include "model/wl.h"

enum { OPS_MAX = 96 };

typedef enum ops_kind {
	OPS_GEMM, OPS_ATTN, OPS_NORM, OPS_ELEM, OPS_EMBED, OPS_LOSS, OPS_OPTIM, OPS_KIND_N
} ops_kind;

typedef enum ops_phase { OPS_FWD, OPS_BWD, OPS_RECOMP, OPS_STEP, OPS_PHASE_N } ops_phase;

extern const char *const ops_kind_names[];
extern const char *const ops_phase_names[];

typedef struct ops_op {
	const char *name;   /* a string literal of ops.c ("qkv_proj"): static, never freed */
	ops_kind kind;
	ops_phase phase;
	double m, n, k;     /* GEMM shape of one instance (elements); attention: s_q, s_kv, head_dim */
	double batch;       /* independent instances (attention: sequences × local heads) */
	double flops;       /* executed FLOP, all instances, one run */
	double bytes;       /* HBM bytes, one run */
	double count;       /* runs per micro-batch (train) or per step (infer) */
	hw_prec prec;       /* precision of the math */
	int per_layer;      /* 1: part of a transformer layer (count scales with its layers) */
	hw_attn attn;       /* attention: the kernel class that runs it */
	int eager;          /* elementwise: 1 = issued op by op (eager), 0 = fused or compiled */
	double train;       /* > 0: part of a training step, run at this share of the chip's
			       train_sustained (the framework's [calibration] for the family; 1 = none);
			       0: not training */
	double host;        /* s of host time to issue the op's kernels (a floor on its time) */
	int serve;          /* 1: part of a serving iteration (prefill or decode), not training */
} ops_op;

typedef struct ops_list {
	ops_op op[OPS_MAX];
	int n;
	double layers_stage;   /* transformer layers on the bottleneck pipeline stage */
} ops_list;

/* Training: ops of one micro-batch (forward, backward, recompute) on the bottleneck pipeline
 * stage (the last: its layers plus the LM head and loss), and the optimizer step (count 1,
 * phase OPS_STEP). p must be filled (plan_fill). family (may be NULL) is the chip family, for
 * the framework's attention kernel on it. */
void ops_train(const wl_workload *w, const plan *p, const char *family, ops_list *out);

/* ops_train without the optimizer step: one micro-batch (what train_kernel_eval times). */
void ops_train_micro(const wl_workload *w, const plan *p, const char *family, ops_list *out);

/* Inference prefill of `batch` prompts of w->input_len tokens, one pipeline stage. */
void ops_prefill(const wl_workload *w, const plan *p, int batch, ops_list *out);

/* One decode step of `batch` sequences at context length ctx, one pipeline stage. */
void ops_decode(const wl_workload *w, const plan *p, int batch, double ctx, ops_list *out);

/* One iteration of continuous batching: `batch` sequences decode one token each at context
 * ctx while prefill_tokens of new prompts (w->input_len each) are processed in the same
 * forward pass (chunked prefill; Agrawal et al. 2024, Sarathi-Serve). Weights are read once. */
void ops_iter(const wl_workload *w, const plan *p, double batch, double ctx, double prefill_tokens,
	      ops_list *out);

/* The FLOPs of decoding one token at context ctx on the whole network (one chip, no split):
 * every op, and in *attn (may be NULL) the attention core's part. For MLA this is the
 * absorbed form; windowed layers attend their window. */
double ops_decode_flops(const wl_workload *w, double ctx, double *attn);

#endif
