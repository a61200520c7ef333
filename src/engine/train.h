/* train: one training step of a layout on a system, composed from ops, roof and mem.
 *
 * step = (m + (pp-1)/vpp)·t_micro + exposed data-parallel sync + optimizer, where t_micro is
 * one micro-batch (forward, backward, recompute) on the bottleneck pipeline stage: its roofline
 * compute plus the communication on its critical path (tensor-parallel collectives per layer,
 * pipeline sends, expert all-to-alls, context-parallel exchange beyond the attention it
 * overlaps, ZeRO-3 gathers beyond the layer compute they overlap), m = global_batch /
 * (dp·micro_batch) and (pp-1)/vpp·t_micro the 1F1B bubble (Narayanan et al. SC21 §2.2). The
 * gradient reduce-scatter/all-reduce overlaps the last micro-batch's backward except its
 * last bucket (one layer). Model FLOPs follow Megatron/PaLM
 * (6·N + attention 6·L·a·(d+dv)·s per token, i.e. 12·L·a·d·s); hardware FLOPs add the
 * recomputed forward. Pure: no I/O, no allocation. */
#ifndef ROOFCOST_TRAIN_H
#define ROOFCOST_TRAIN_H

#include "engine/comm.h"
#include "model/hw.h"
#include "engine/mem.h"
#include "engine/ops.h"
#include "engine/roof.h"
#include "engine/shard.h"
#include "model/wl.h"

enum { TRAIN_REASON_MAX = 256 };

/* Exposed communication of a step (after overlap). */
typedef struct train_comm {
	double tp, pp, ep, cp;       /* s per micro-batch on the critical path */
	double dp;                   /* s per step: gradient reduce + parameter gather left exposed */
	double dp_total;             /* s per step the data-parallel sync takes before overlap */
	double zero3;                /* s per micro-batch: ZeRO-3 gathers not hidden by compute */
	double level[HW_LEVELS_MAX]; /* s per step exposed on each level */
} train_comm;

typedef struct train_result {
	int feasible;
	int over_memory;           /* 1: the layout divides and fits the system but not the memory */
	shard_code why;            /* SHARD_OK, the rule it breaks, or SHARD_MEMORY (train_reason) */
	plan plan;
	mem_use mem;
	double micro_batches;      /* m per pipeline per step */
	double t_micro;            /* s, one micro-batch on the bottleneck stage */
	double t_compute;          /* s, m·t_micro */
	double t_bubble;           /* s */
	double t_optimizer;        /* s */
	double t_comm_exposed;     /* s per step: exposed communication (in the micro-batches and after) */
	int comm_priced;
	train_comm comm;
	double step_time;          /* s */
	double tokens_per_step;
	double tokens_per_s;
	double train_time;         /* s for the workload's token budget */
	double model_flops_per_token, hw_flops_per_token;
	double model_tflops_per_chip, hw_tflops_per_chip; /* 1e12 FLOP/s */
	double mfu, hfu;
	double peak;               /* FLOP/s per chip at the training precision */
	hw_prec run_prec;
	roof_sum micro;            /* roofline summary of one micro-batch */
	double t_bound[3];         /* s per step in compute-, memory-, overhead-bound ops */
} train_result;

/* Model and hardware FLOPs per token for w (all chips together). */
void train_flops_per_token(const wl_workload *w, double *model, double *hardware);

/* What a step costs that does not depend on pp, vpp, dp or ZeRO: one transformer layer, the
 * LM head and loss, and the embedding of one micro-batch (roofline), and the communication
 * on a layer's critical path (TP collectives, EP all-to-alls, CP exchange beyond the layer's
 * compute). Keyed by tp, cp, ep, sp and micro-batch (and the workload's recompute). */
typedef struct train_kernel {
	plan key;
	roof_sum layer, head, embed;        /* one micro-batch; layer: per transformer layer */
	double tp_layer, ep_layer, cp_layer; /* s exposed per layer per micro-batch */
	double tp_level[HW_LEVELS_MAX], ep_level[HW_LEVELS_MAX], cp_level[HW_LEVELS_MAX];
	double pp_msg;                      /* B: one pipeline send */
	nn_counts counts;                   /* nn_params of the network */
	double model_flops_per_token, hw_flops_per_token; /* train_flops_per_token */
	double act_layer;                   /* B: mem_act_layer at the key (memory, per layer) */
	double logits;                      /* B: mem_train_logits at the key */
} train_kernel;

/* Memo of collectives for sweeps: a direct-mapped table of comm_plan by system, collective,
 * group size, stride and channel limit, whatever the buffer size (a data-parallel sync of a layout repeats in
 * the layouts that differ in pp, ZeRO or micro-batch, at other sizes); results identical to
 * comm_time. Zero it before use (calloc); one per thread, about 2 MB. */
enum { TRAIN_MEMO_SIZE = 1024 };
typedef struct train_memo_entry {
	const hw_system *sys;
	unsigned used;               /* the memo's generation when filled */
	int op, n, stride, ctas;
	comm_plan plan;
} train_memo_entry;
typedef struct train_memo {
	train_memo_entry e[TRAIN_MEMO_SIZE];
	unsigned gen;                /* entries of another generation are empty (0 counts as 1):
					a caller that reuses the memo for other systems moves it on */
	long long hits, misses;
} train_memo;

/* Fills k for workload w and layout key (tp, cp, ep, sp, micro_batch used; the rest ignored).
 * No allocation: the ops of one micro-batch are timed as they are lowered (ops_train_micro_roof). */
void train_kernel_eval(const hw_system *s, const wl_workload *w, const plan *key, train_kernel *k);

/* Composes a step of layout p (filled; tp, cp, ep, sp, micro_batch equal to k's key) from k.
 * mm may be NULL. No allocation. */
void train_compose(const hw_system *s, const wl_workload *w, const train_kernel *k, const plan *p,
		   train_memo *mm, train_result *r);

/* For searches, which discard what does not fit before composing it: the memory of layout p
 * (as train_compose, from k) into *m, and 1 if it fits the chip, else 0. p must divide the
 * workload and fit the system (shard_rule(...) == SHARD_OK). */
int train_fits(const hw_system *s, const wl_workload *w, const train_kernel *k, const plan *p,
	       mem_use *m);

/* train_compose of a layout that train_fits passed with memory m: the same result, without
 * checking again. */
void train_compose_fit(const hw_system *s, const wl_workload *w, const train_kernel *k, const plan *p,
		       train_memo *mm, const mem_use *m, train_result *r);

/* The text of why r is infeasible ("needs 152.0 GiB per chip, has 96.0 GiB", "tp 3 does not
 * divide 16 attention heads"; "" when feasible) into buf, which it returns. s and w are those r
 * was evaluated with: the text is formatted here, from r->why, never in the evaluation. */
const char *train_reason(const train_result *r, const hw_system *s, const wl_workload *w, char *buf,
			 size_t len);

/* Evaluates w on s with layout p (filled). ops receives the micro-batch ops (may be NULL). */
void train_eval(const hw_system *s, const wl_workload *w, const plan *p, train_result *r,
		ops_list *ops);

#endif
