/* op: one kernel a chip runs, the value the lowering writes (ops.h) and the roofline times
 * (roof.h), and a fixed-size list of them. Types only, named in the lowering's vocabulary
 * (ops_); the lowering, which also times its ops as it writes them, sits above the roofline.
 *
 * A GEMM (shape m×n×k, `batch` independent instances), fused attention, a norm, an elementwise
 * op, an embedding gather, the loss, or the optimizer step. Shapes are per chip after the
 * plan's tensor/sequence/context/expert split; `count` says how many times the op runs per
 * micro-batch (training) or per step (inference), e.g. the layers of one pipeline stage. FLOPs
 * are what the chip executes; bytes are HBM traffic. */
#ifndef ROOFCOST_OP_H
#define ROOFCOST_OP_H

#include "model/hw.h"

enum { OPS_MAX = 96 };

typedef enum ops_kind {
	OPS_GEMM, OPS_ATTN, OPS_NORM, OPS_ELEM, OPS_EMBED, OPS_LOSS, OPS_OPTIM, OPS_KIND_N
} ops_kind;

typedef enum ops_phase { OPS_FWD, OPS_BWD, OPS_RECOMP, OPS_STEP, OPS_PHASE_N } ops_phase;

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
	double serve;       /* > 0: part of a serving iteration (prefill or decode), its GEMMs at this
			       share of the chip's serving rate (the stack's [serve] gemm_share; 1 =
			       the whole, above 1 beyond the curve, never beyond the dense peak);
			       0: not serving */
} ops_op;

typedef struct ops_list {
	ops_op op[OPS_MAX];
	int n;
	double layers_stage;   /* transformer layers on the bottleneck pipeline stage */
} ops_list;

#endif
