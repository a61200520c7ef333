/* infer: serving latency and throughput of a layout on a system.
 *
 * TTFT is the prefill of the batch's prompts (compute-bound: 2·N·tokens plus attention over
 * the prompt); TPOT is one decode step at the mean context input_len + output_len/2 (the
 * step time grows linearly with context, so the mean context gives the mean TPOT): weights
 * and KV cache read at the achievable HBM bandwidth while the batch is small, compute-bound
 * when it is large. Throughput counts output tokens: replicas × batch × output_len /
 * (TTFT + (output_len-1)·TPOT). The batch is the workload's concurrency. Pure. */
#ifndef ROOFCOST_INFER_H
#define ROOFCOST_INFER_H

#include "hw.h"
#include "mem.h"
#include "ops.h"
#include "roof.h"
#include "wl.h"

enum { INFER_REASON_MAX = 256 };

typedef struct infer_result {
	int feasible;
	char reason[INFER_REASON_MAX];
	plan plan;
	mem_use mem;
	int batch;                /* sequences decoded together per replica */
	double ctx_mean;          /* mean context of a decode step */
	double ttft, tpot;        /* s */
	double tokens_per_s;      /* output tokens/s, all replicas */
	double tokens_per_s_per_chip;
	double t_comm_exposed;    /* s per decode step; 0 until communication is priced */
	int comm_priced;
	roof_sum prefill, decode; /* per prefill and per decode step, one pipeline stage */
	roof_bound prefill_bound, decode_bound; /* where most of the time goes */
	hw_prec run_prec;
} infer_result;

/* Evaluates w (mode infer) on s with layout p (filled). pre/dec receive the prefill and
 * decode ops (either may be NULL). */
void infer_eval(const hw_system *s, const wl_workload *w, const plan *p, infer_result *r,
		ops_list *pre, ops_list *dec);

#endif
