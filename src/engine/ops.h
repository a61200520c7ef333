/* ops: lower a workload into per-chip operations with FLOPs and bytes.
 *
 * One op is a kernel a chip runs: a GEMM (shape m×n×k, `batch` independent instances), fused
 * attention, a norm, an elementwise op, an embedding gather, the loss, or the optimizer step.
 * Shapes are per chip after the plan's tensor/sequence/context/expert split; `count` says how
 * many times the op runs per micro-batch (training) or per step (inference), e.g. the layers
 * of one pipeline stage. FLOPs are what the chip executes (causal attention kernels skip the
 * masked half); the papers' model-FLOP conventions live in train.c. Bytes are HBM traffic.
 * Pure: no I/O, no allocation; ops_list (op.h) is a fixed-size value that a caller keeps and
 * refills (each lowering writes its ops op by op and sets n); the training micro-batch can
 * instead be timed op by op as it is lowered (ops_train_micro_roof), with no list. Formulas
 * after MODEL.md. */
#ifndef ROOFCOST_OPS_H
#define ROOFCOST_OPS_H

#include "engine/op.h"
#include "engine/roof.h"
#include "model/hw.h"
#include "model/plan.h"
#include "model/wl.h"

extern const char *const ops_kind_names[];
extern const char *const ops_phase_names[];

/* Training: ops of one micro-batch (forward, backward, recompute) on the bottleneck pipeline
 * stage (the last: its layers plus the LM head and loss), and the optimizer step (count 1,
 * phase OPS_STEP). p must be filled (plan_fill). family (may be NULL) is the chip family, for
 * the framework's attention kernel on it. */
void ops_train(const wl_workload *w, const plan *p, const char *family, ops_list *out);

/* ops_train without the optimizer step: one micro-batch (the list ops_train_micro_roof times). */
void ops_train_micro(const wl_workload *w, const plan *p, const char *family, ops_list *out);

/* ops_train_micro on chip, each op timed as it is made (roof_time_op) and summed as roof_list
 * sums a list, without the list: the ops of a transformer layer into *layer, the embedding
 * (OPS_EMBED) into *embed, the rest into *rest (each from zero). What train_kernel_eval times:
 * the same sums as roof_list over those parts of ops_train_micro(w, p, chip->family), figure
 * for figure. */
void ops_train_micro_roof(const wl_workload *w, const plan *p, const hw_chip *chip, roof_sum *layer, roof_sum *embed,
			  roof_sum *rest);

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
