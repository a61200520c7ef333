/* infer: serving under load: the steady state of a server, per scenario, and its load curve.
 *
 * An iteration (infer_step_eval) is one forward pass of the layout over b decoding sequences at
 * a context plus the prefill tokens of a group of prompts: the roofline of its ops (serving GEMMs
 * and paged decode attention at the chip's measured rates), the tensor-parallel all-reduces (2 per
 * layer, by the framework's kernels: peer-to-peer one-shot/two-shot or the library), expert
 * all-to-alls, the runtime's per-layer cost and the framework's host work per iteration (hidden
 * behind the device when it overlaps). A pipeline of pp stages keeps the framework's m
 * micro-batches in flight: every sequence advances one token per max(m, pp) stage times.
 *
 * The server (the framework's [serve] section, models/README.md): it holds `cap` sequences per
 * replica, the KV cache it gives (a share of the memory free after the weights, or of the whole
 * device, or a compiled batch) over what one request takes (blocks for prompt and output at
 * admission, or as tokens are written), within max_num_seqs and the token budget. Requests
 * beyond it wait for admission. Its scheduler forms decode-only iterations and iterations that
 * carry a group of prompts: `inflight` puts them beside the decodes within max_num_tokens
 * (chunked or whole prompts), `prefill_first` runs them alone while the decodes stall, `static`
 * prefills a compiled batch together and decodes it to the end.
 *
 * A closed loop of N requests (a new one as one finishes) runs at spread phases when each request
 * comes from its own client: a new prompt waits one iteration for the scheduler (two with an
 * overlap scheduler), then for a prefill slot (M/D/k, Erlang C at half the M/M/k wait: whole
 * prompts have as many slots as fit a pass, each held the pass; a chunked scheduler's prompts
 * share one server of the pass's token room, each holding it for in / room passes; of the N - 1
 * others, the one in the iteration under way is the scheduler wait's, so N - 2 queue beyond it),
 * then its own iterations. The completion rate solves Little's law below the prefill cap; where the
 * cap binds first the server completes the cap and the rest queue for a slot, every request the
 * wait Little's law leaves (a closed system's queue is bounded by its requests). The decoding
 * batch is the root of bd = X (output_len - 1) TPOT in [0, N] (fixed-point steps, else regula
 * falsi), and the prompts a pass holds include those queued for a slot (a queue fills passes). Clients do not stay in step: requests that finish together reach an idle server a
 * little apart, and it starts the first alone, so only one request (or a static scheduler's
 * compiled batch) prefills as a batch. Requests that wait in the server's own queue (offline, and
 * the most the server completes) are admitted by its scheduler: those it can take in one pass stay
 * synchronized, a batch that prefills together and decodes together, and those it takes in
 * several passes lock in groups a pass apart. TPOT is the mean iteration a decoding request runs in (prefill_first: the decode
 * iterations stretched by the prefill ones that stall them). Little's law closes the loop:
 * N = X · (TTFT + (output_len - 1) · TPOT); beyond the cap the rest wait (N - cap) / X.
 *
 * Scenarios: `single` is the closed loop of clients at `concurrency` (over all replicas);
 * `offline` the queued closed loop at the batch the server holds (or `concurrency`); `server` and `interactive` take
 * Poisson arrivals at a rate λ (admission wait Erlang C over the cap, service the time in the
 * server) and find the highest λ whose TTFT and TPOT at the SLO percentile meet the limits, by
 * bisection on λ to a relative tolerance of INFER_LOAD_TOL (with the workload's arrival_rate, λ is
 * that rate: infeasible where the server does not complete it or misses the limits). Percentiles come from the model's
 * distribution: a request's TPOT from the count of prefill-carrying iterations among its own
 * (binomial for an inflight scheduler, whose prompts ride in iterations that decode too; Poisson
 * for prefill_first, whose prompt passes stall the decodes) and, in the open loop, the running batch it sees (Poisson occupancy averaged over its
 * life, variance 2B/3); TTFT from its fixed part, in the open loop the rest of the iteration that
 * runs when it arrives (uniform over that iteration: a Poisson arrival lands at a random time in
 * it), plus the prefill and admission waits (an atom at zero with an exponential tail; the closed
 * loop's admission wait is a sum of N - cap completion gaps, taken as normal). The mean and every
 * percentile of TTFT are those of this one law, so p50 <= p90 <= p99; a part of it rarer than the
 * highest percentile resolves (under 1.5 % at p99) is carried at its mean, so mean <= p99. With the workload's `length_spread = exponential` (open loop only) the
 * output lengths are geometric about output_len, the maximum-entropy law of a positive count with
 * a given mean: a request's TPOT averages its own m iterations, so the TPOT percentiles are those
 * of a mixture over m (infer_tpot_spread); the means, and the prompts, stay as they were.
 *
 * With the workload's `input_spread` (open loop only: server, interactive, and disagg's prefill
 * pool) the prompt lengths follow a dataset's percentiles about input_len (uniform between the
 * points, scaled to input_len's mean). A prompt x times the mean long takes g(x) = (1 - f) x +
 * f x² of a mean prompt's prefill, f the attention share of a prefill pass (linear work per token
 * plus attention over its context): the prefill station's mean hold is E[g] of the mean prompt's
 * and its squared coefficient of variation c_s² = Var g / E[g]² (a pass of k whole prompts: c_s²
 * / k). The wait for a slot is G/G/k: Erlang C for the chance to wait, the M/M/k wait times
 * (c_a² + c_s²) / 2 (Allen-Cunneen; Kingman 1961, "The single server queue in heavy traffic",
 * Proc. Cambridge Phil. Soc. 57; Whitt 1993, "Approximations for the GI/G/m queue", Production
 * and Operations Management 2(2)), c_a² of the arrivals at a replica (1 for Poisson; the
 * workload's arrival_ca2, which disagg sets for a router that takes turns). The TTFT law is the
 * mixture over the lengths of the fixed law at each prompt's own prefill time (its passes, each
 * slower by its attention), the lag and the waits shared (a FIFO wait does not depend on the
 * prompt that waits), so its mean and percentiles widen together.
 *
 * With the framework's `batch_window` (open loop only) a harness in front of the replicas
 * (AMD's MLPerf one: mlcommons/inference_results_v4.1 closed/AMD sync_sut.py) collects the
 * arrivals of all replicas (L a second) for the window w, or until batch_window_max, and sends
 * them to one replica, to each in turn: a replica gets n = L w prompts at once every n / λ, and
 * takes them in as few passes as its room allows (no queue for a slot while they fit the
 * period). A request's TTFT adds its window's wait, uniform on [0, w] (none after an empty
 * window: chance e^(-L w)), the rest of the decode iteration under way (uniform), and the passes
 * of its batch before its own (uniform); the law's two always-on uniforms are integrated over
 * their trapezoid density. The stalls come once a period, so a request of fixed length sees
 * floor or ceil of its mean count (a count rarer than p99 resolves carried at its mean). The
 * framework's seq_overhead adds host work per sequence of an iteration to iter_overhead; its
 * gemm_share (a version's older GEMM library below 1, kernels beating the chip's curve above it)
 * is the share of the chip's serving GEMM rate its ops run at, at most the dense peak (ops_op
 * serve, roof_op).
 * Pure: no I/O, no globals, no allocation. */
#ifndef ROOFCOST_INFER_H
#define ROOFCOST_INFER_H

#include <stddef.h>

#include "engine/comm.h"
#include "model/hw.h"
#include "engine/mem.h"
#include "engine/ops.h"
#include "engine/roof.h"
#include "model/wl.h"

enum { INFER_REASON_MAX = 256, INFER_BATCH_REASON_MAX = 384 };

/* Relative tolerance of the search for the highest load that meets the latency limits. */
#define INFER_LOAD_TOL 1e-3

typedef struct infer_step {
	double t;                 /* s: one iteration on the whole pipeline, host work included */
	double t_ops;             /* s: roofline of the ops, the stage that carries the prompts */
	double t_comm;            /* s: exposed communication, that stage */
	double t_overhead;        /* s: runtime per-layer overhead, that stage */
	double t_host;            /* s: host work per iteration that the device waits for */
	double t_draft;           /* s: speculative decoding's draft passes (in t, as t_ops is) */
	double tokens_per_pass;   /* speculative decoding: tokens a verify pass advances a sequence
				     (0: no speculation) */
	double comm_level[HW_LEVELS_MAX];
	roof_sum ops;
} infer_step;

/* A latency distribution (s). */
typedef struct infer_dist {
	double mean, p50, p90, p99;
	double slo;               /* at the workload's slo_percentile */
} infer_dist;

/* The server at one load. */
typedef struct infer_load {
	double load;              /* requests in flight (closed loop) or per second (open), all replicas */
	double running;           /* mean sequences running per replica */
	double waiting;           /* mean requests per replica waiting for admission */
	double wait;              /* s: mean wait for admission */
	double ttft_unqueued;     /* s: TTFT at the SLO percentile without the admission wait */
	infer_dist ttft, tpot;
	double tokens_per_s;      /* output tokens/s, all replicas */
	double tokens_per_s_per_chip;
	double tokens_per_s_per_user; /* 1 / mean TPOT: the rate one stream is decoded at */
	double requests_per_s;    /* all replicas */
	double iter_decode;       /* s: a decode-only iteration */
	double iter_prefill;      /* s: an iteration that carries a group of prompts */
	double prefill_share;     /* share of iterations that carry prefill */
	double prompts_per_iter;  /* prompts one prefill-carrying iteration holds */
	int synchronized;         /* 1: phases are locked: the requests prefill in `groups` passes */
	double groups;            /* prompt groups a cycle when synchronized (1: one batch) */
	int saturated;            /* 1: the running batch is at its cap, the rest wait */
	int stable;               /* 0: an arrival rate beyond what the server completes */
	double prefill_wait;      /* s: mean wait of a prompt for a prefill slot (spread phases) */
	double prefill_hold;      /* s: a prompt's mean hold of its prefill slot */
	double prefill_cs2;       /* that hold's squared coefficient of variation (0: prompts of one
				     length; input_spread in an open loop) */
	int allreduce_library;    /* the iterations whose tensor-parallel all-reduce is past the
				     stack's peer-to-peer kernels (allreduce_max) and runs the
				     library's, slower: 1 the prompt-carrying, 2 the decode ones */
} infer_load;

typedef struct infer_result {
	int feasible;
	char reason[INFER_REASON_MAX];
	char batch_reason[INFER_BATCH_REASON_MAX]; /* the operating point and why */
	char cap_reason[INFER_REASON_MAX];    /* what bounds the running batch */
	plan plan;
	mem_use mem;              /* weights, workspace, and the KV blocks of the running batch */
	wl_scenario scenario;
	double cap;               /* sequences per replica the server holds */
	int cap_limits;           /* 1: the cap is what stops more load (requests wait for admission) */
	double kv_pool;           /* B per chip the framework gives the KV cache */
	double kv_per_request;    /* B per chip one request's blocks take */
	infer_load at;            /* the operating point */
	double batch;             /* = at.running */
	double ctx_mean;          /* mean context of a decode step */
	double ttft, tpot;        /* s, means (= at.ttft.mean, at.tpot.mean) */
	double ttft_tail, tpot_tail; /* s, at the SLO percentile */
	double tokens_per_s;      /* output tokens/s, all replicas */
	double tokens_per_s_per_chip;
	double requests_per_s;    /* all replicas */
	double t_comm_exposed;    /* s per decode iteration */
	int comm_priced;
	infer_step step;          /* the decode iteration at the running batch */
	roof_sum prefill, decode; /* one prompt group alone, the decode iteration: one stage */
	roof_bound prefill_bound, decode_bound; /* where most of the op time goes */
	hw_prec run_prec;
} infer_result;

/* One iteration: `batch` decoding sequences at context ctx plus prefill_tokens of prompts,
 * on the whole pipeline (out->t), with the breakdown of the stage that carries the prompts. */
void infer_step_eval(const hw_system *s, const wl_workload *w, const plan *p, double batch,
		     double ctx, double prefill_tokens, infer_step *out);

/* Speculative decoding ([infer] draft): the tokens one verify pass accepts per sequence on
 * average, 1 + a + ... + a^k = (1 - a^(k+1)) / (1 - a) for k proposals each accepted with
 * probability a given the one before (Leviathan et al. 2023, ICML, eq. 1); 1 without a draft.
 * An iteration that decodes b sequences takes the draft's k passes and the target's verify pass
 * over b (k + 1) tokens, and infer_step_eval reports 1 / E of its decode part, so TPOT and
 * throughput follow from the draft's cost and the accepted tokens. */
double infer_spec_gain(const wl_workload *w);

/* Evaluates w (mode infer) on s with layout p (filled) for w's scenario. pre/dec receive the
 * ops of one prompt group alone and of the decode iteration (either may be NULL). */
void infer_eval(const hw_system *s, const wl_workload *w, const plan *p, infer_result *r,
		ops_list *pre, ops_list *dec);

/* The closed-loop load curve: out[i] is the steady state with loads[i] requests in flight over
 * all replicas (a new one as one finishes), whatever w's scenario. Returns 1, or 0 with reason
 * set when the layout cannot serve (one request does not fit, weights do not fit, plan). */
int infer_curve(const hw_system *s, const wl_workload *w, const plan *p, const double *loads, int n,
		infer_load *out, char *reason, size_t len);

/* What layout p's server holds: *cap sequences per replica (the KV cache, the framework's batch
 * limits, the workload's concurrency) and *rate, the requests/s one replica completes with that
 * batch full (a closed loop at the cap). Returns 1, or 0 with reason set when it cannot serve. */
int infer_capacity(const hw_system *s, const wl_workload *w, const plan *p, double *cap, double *rate, char *reason,
		   size_t len);

/* Erlang C: the probability that an arrival waits, c servers (whole), offered load a < c. */
double infer_erlang_c(double c, double a);

/* The open loop (Poisson arrivals, w's server) at shares[i] of the most the server completes
 * (its batch full): out[i].load is the arrival rate over all replicas, out[i].stable 0 where the
 * server cannot keep up with it. Returns 1, or 0 with reason set when the layout cannot serve. */
int infer_open_curve(const hw_system *s, const wl_workload *w, const plan *p, const double *shares, int n,
		     infer_load *out, char *reason, size_t len);

/* Requests with geometric output lengths (`length_spread = exponential`): the q-quantile, less
 * the mean, of a request's TPOT when it runs m decode iterations (geometric on 1, 2, ..., mean
 * M) and its TPOT is normal about the mean with variance a / m + b · 2(x - 1 + e^-x) / x²,
 * x = m / M (a: s² of one iteration's prefill share; b: s² of the running batch). */
double infer_tpot_spread(double M, double a, double b, double q);

/* The variance (s²) an iteration's prompt work adds to the iterations a request decodes in: the
 * work of a carrying iteration, `extra` s on average for nc prompts (each of squared coefficient
 * of variation cs2: input_spread's), carried by a share `per` of the iterations (mixed: prompts and
 * decodes in one pass, a Bernoulli share; else per prompt iterations a decode one, a Poisson count).
 * poisson: the prompts come one by one and a carrying iteration holds every one that arrived (a
 * Poisson number, at least one): the work of an iteration is then a compound Poisson sum, variance
 * x (1 + cs2) (extra / nc)² with x = per nc the prompts per iteration; otherwise the Bernoulli (or
 * Poisson) count of carrying iterations, extra² per (1 - per) (or extra² per), plus each one's
 * own spread, extra² per cs2 / nc. */
double infer_prefill_var(double extra, double per, double nc, double cs2, int mixed, int poisson);

/* Prompt lengths drawn from l ([infer] input_spread: uniform between its points, about their
 * mean): a prompt x times the mean long takes g(x) = (1 - f) x + f x² of a mean prompt's prefill
 * (f: the attention share, quadratic in the length); *gmean = E[g] and *cs2 = Var g / E[g]², the
 * squared coefficient of variation of its service time. Returns 0 when l is fixed (n < 2). */
int infer_length_moments(const wl_lengths *l, double f, double *gmean, double *cs2);

/* z such that P(N(0,1) <= z) = q (0 < q < 1). */
double infer_normal_quantile(double q);

#endif
