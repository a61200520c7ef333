/* mem: bytes each chip needs for a layout.
 *
 * Training: weights, gradients and optimizer state per ZeRO stage (Rajbhandari et al. 2020:
 * 2 + 2 + 12 bytes per parameter for mixed-precision Adam), activations per layer after
 * Korthikanti et al. 2022 (Table 2, generalised to GQA/SwiGLU widths) with sequence
 * parallelism and recompute, times the micro-batches in flight on the first pipeline stage
 * under 1F1B (with the interleaving factor 1 + (p-1)/(p·v)), plus the fp32 logits of the
 * last stage. Inference: weights and the KV cache of `batch` sequences. Pure. */
#ifndef ROOFCOST_MEM_H
#define ROOFCOST_MEM_H

#include "model/plan.h"
#include "model/wl.h"

typedef struct mem_use {
	double weights, grads, optimizer;  /* B per chip */
	double activations;                /* B per chip (train: in flight; infer: workspace) */
	double kv_cache;                   /* B per chip */
	double total;                      /* B per chip */
	double params_local;               /* parameters stored on one chip (before ZeRO-3) */
	double params_expert;              /* of which routed-expert parameters */
} mem_use;

/* Activation bytes of one layer for one micro-batch on one chip (Korthikanti Table 2). */
double mem_act_layer(const wl_workload *w, const plan *p, double micro_batch);

/* Training memory per chip on the most loaded pipeline stage. */
mem_use mem_train(const wl_workload *w, const plan *p);

/* mem_train with the network's counts given (c = nn_params(&w->net)). */
mem_use mem_train_c(const wl_workload *w, const nn_counts *c, const plan *p);

/* The fp32 (or [memory] logits_bytes) logits the loss keeps on the last stage, B per chip. */
double mem_train_logits(const wl_workload *w, const plan *p);

/* mem_train with the parts that depend on tp, cp, sp and the micro-batch only given, for
 * searches that hold them: c = nn_params(&w->net), act_layer = mem_act_layer(w, p, micro
 * batch), logits = mem_train_logits(w, p). Figure for figure mem_train's result. */
mem_use mem_train_parts(const wl_workload *w, const nn_counts *c, const plan *p, double act_layer,
			double logits);

/* Inference memory per chip for `batch` sequences of up to ctx tokens, with prefill_tokens
 * processed in one forward pass (the activation workspace). */
mem_use mem_infer(const wl_workload *w, const plan *p, double batch, double ctx,
		  double prefill_tokens);

#endif
