/* roof: time one op on one chip with the roofline.
 *
 * time = max(FLOPs / (peak(p) × e_gemm(p) × e_shape), bytes / (hbm_bw × e_hbm), op_overhead)
 * (Williams et al. 2009, MODEL.md "Time"). e_shape is the padding efficiency (each GEMM
 * dimension rounded up to the matrix unit's granularity) times the wave efficiency (output tiles
 * spread over the chip's matrix engines in whole waves). p is the workload precision, or the
 * next wider one the chip supports. Elementwise work runs at the vector rate when the chip
 * file gives one, else only its bytes count. Serving ops use the chip's measured decode curves
 * where it has them (roof_op). Pure. */
#ifndef ROOFCOST_ROOF_H
#define ROOFCOST_ROOF_H

#include "model/hw.h"
#include "engine/ops.h"

typedef enum roof_bound { ROOF_COMPUTE, ROOF_MEMORY, ROOF_OVERHEAD } roof_bound;

extern const char *const roof_bound_names[];

typedef struct roof_time {
	double t_compute;   /* s, one run */
	double t_memory;    /* s, one run */
	double t;           /* s, one run: the max of the three */
	double eff;         /* compute efficiency used (fraction of the peak) */
	double peak;        /* FLOP/s of the precision it ran at */
	hw_prec run_prec;
	roof_bound bound;
} roof_time;

typedef struct roof_sum {
	double t;                    /* s: Σ count × time */
	double flops, bytes;         /* Σ count × FLOPs / bytes */
	double t_bound[3];           /* s spent in ops of each bound */
	double t_phase[OPS_PHASE_N]; /* s per phase */
	double t_kind[OPS_KIND_N];   /* s per op kind (GEMM, attention, norms, ...) */
} roof_sum;

/* Padding × wave efficiency of an m×n×k GEMM with `batch` instances on chip c, in (0, 1]. */
double roof_shape_eff(const hw_chip *c, double m, double n, double k, double batch);

/* Efficiency of curve c at x: log-linear between points, the first point's rate below it
 * (eff scaled by x / x0, a flat time), the last point's above it; 0 when c has no points. */
double roof_curve(const hw_curve *c, double x);

/* Times one run of op o on chip c. A serving op (o->serve) runs its GEMMs at the chip's
 * measured rate for its rows M ([decode] curves) and its decode attention over the paged
 * KV cache at the bandwidth such kernels reach, where the chip file gives them. */
roof_time roof_op(const hw_chip *c, const ops_op *o);

/* Times every op of l and sums them as roof_list does, in three parts: the ops of a transformer
 * layer (per_layer) into *layer, the embedding (OPS_EMBED) into *embed, the rest into *rest (each
 * from zero). A shape repeated by the next op, as a backward GEMM repeats its forward's, is not
 * worked out twice. */
void roof_parts(const hw_chip *c, const ops_list *l, roof_sum *layer, roof_sum *embed, roof_sum *rest);

/* Times every op of l; per_op (may be NULL) receives l->n entries. */
roof_sum roof_list(const hw_chip *c, const ops_list *l, roof_time *per_op);

#endif
