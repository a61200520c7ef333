/* infer: serving latency and throughput of a layout on a system, per scenario.
 *
 * A serving step is one iteration of continuous batching (ops_iter): B sequences decode a
 * token each at the mean context input_len + output_len/2 while the prompts of newly arrived
 * requests are prefilled in the same pass; on average B/output_len requests arrive per
 * iteration, i.e. B·input_len/output_len prefill tokens. Its time is the roofline of those
 * ops plus the tensor-parallel all-reduces (2 per layer, latency-bound at small batch),
 * expert all-to-alls, pipeline sends and the runtime's per-layer overhead.
 *
 * Scenarios (DESIGN §7, MLPerf rules): `single` runs `concurrency` streams as one static batch
 * (TTFT is the prefill of all prompts, TPOT a decode step); `offline` picks the batch that
 * maximises output tokens/s within memory (and concurrency, when given); `server` and
 * `interactive` find the highest load whose TTFT and TPOT at the SLO percentile stay within
 * ttft_slo / tpot_slo: occupancy is Poisson, so a request's TPOT at the SLO percentile is an
 * iteration with B + z√B streams; TTFT is the rest of the running iteration plus the one that
 * holds the prompt, its tail with a Poisson burst of k + z√k other prompts (k = B/output_len
 * arrivals per iteration). Output tokens/s = replicas × B / iteration. Pure. */
#ifndef ROOFCOST_INFER_H
#define ROOFCOST_INFER_H

#include "comm.h"
#include "hw.h"
#include "mem.h"
#include "ops.h"
#include "roof.h"
#include "wl.h"

enum { INFER_REASON_MAX = 256 };

typedef struct infer_step {
	double t;                 /* s: one step on the whole pipeline */
	double t_ops;             /* s: roofline of the ops, one stage */
	double t_comm;            /* s: exposed communication, one stage */
	double t_overhead;        /* s: runtime per-layer overhead, one stage */
	double comm_level[HW_LEVELS_MAX];
	roof_sum ops;
} infer_step;

typedef struct infer_result {
	int feasible;
	char reason[INFER_REASON_MAX];
	char batch_reason[INFER_REASON_MAX];  /* why this batch */
	plan plan;
	mem_use mem;
	wl_scenario scenario;
	double batch;             /* mean sequences in flight per replica */
	double ctx_mean;          /* mean context of a decode step */
	double ttft, tpot;        /* s, means */
	double ttft_tail, tpot_tail; /* s, at the SLO percentile */
	double tokens_per_s;      /* output tokens/s, all replicas */
	double tokens_per_s_per_chip;
	double requests_per_s;    /* all replicas */
	double t_comm_exposed;    /* s per decode step */
	int comm_priced;
	infer_step step;          /* the mean serving step (decode + its share of prefill) */
	roof_sum prefill, decode; /* static prefill of one batch, pure decode step: one stage */
	roof_bound prefill_bound, decode_bound; /* where most of the op time goes */
	hw_prec run_prec;
} infer_result;

/* One serving step: `batch` decoding sequences at context ctx plus prefill_tokens. */
void infer_step_eval(const hw_system *s, const wl_workload *w, const plan *p, double batch,
		     double ctx, double prefill_tokens, infer_step *out);

/* Evaluates w (mode infer) on s with layout p (filled). pre/dec receive the static prefill
 * and the decode-step ops (either may be NULL). */
void infer_eval(const hw_system *s, const wl_workload *w, const plan *p, infer_result *r,
		ops_list *pre, ops_list *dec);

/* z such that P(N(0,1) <= z) = q (0 < q < 1). */
double infer_normal_quantile(double q);

#endif
