/* train: one training step of a layout on a system, composed from ops, roof and mem.
 *
 * step = m·t_micro + bubble + optimizer (+ exposed communication once comm is priced), where
 * t_micro is the roofline time of one micro-batch (forward, backward, recompute) on the
 * bottleneck pipeline stage, m = global_batch / (dp·micro_batch), and the 1F1B bubble is
 * (pp-1)/vpp · t_micro (Narayanan et al. SC21 §2.2). Model FLOPs follow Megatron/PaLM
 * (6·N + attention 6·L·a·(d+dv)·s per token, i.e. 12·L·a·d·s); hardware FLOPs add the
 * recomputed forward. Pure: no I/O, no allocation. */
#ifndef ROOFCOST_TRAIN_H
#define ROOFCOST_TRAIN_H

#include "hw.h"
#include "mem.h"
#include "ops.h"
#include "roof.h"
#include "wl.h"

enum { TRAIN_REASON_MAX = 256 };

typedef struct train_result {
	int feasible;
	char reason[TRAIN_REASON_MAX];
	plan plan;
	mem_use mem;
	double micro_batches;      /* m per pipeline per step */
	double t_micro;            /* s, one micro-batch on the bottleneck stage */
	double t_compute;          /* s, m·t_micro */
	double t_bubble;           /* s */
	double t_optimizer;        /* s */
	double t_comm_exposed;     /* s; 0 and comm_priced = 0 until communication is priced */
	int comm_priced;
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

/* Evaluates w on s with layout p (filled). ops receives the micro-batch ops (may be NULL). */
void train_eval(const hw_system *s, const wl_workload *w, const plan *p, train_result *r,
		ops_list *ops);

#endif
