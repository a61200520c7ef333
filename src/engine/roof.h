/* roof: time one op on one chip with the roofline.
 *
 * time = max(FLOPs / (peak(p) × e_gemm(p) × e_shape), bytes / (hbm_bw × e_hbm), op_overhead)
 * (Williams et al. 2009, MODEL.md "Time"). e_shape is the padding efficiency (each GEMM
 * dimension rounded up to the matrix unit's granularity) times the wave efficiency (output tiles
 * spread over the chip's matrix engines in whole waves). p is the workload precision, or the
 * next wider one the chip supports. Elementwise work runs at the vector rate when the chip
 * file gives one, else only its bytes count. Serving ops use the chip's measured decode curves
 * where it has them (roof_op, roof_serve_gemm_eff). The per-op timing is inline below
 * (roof_time_op, roof_add_op), for the lowering that times a micro-batch's ops as it makes them
 * (ops_train_micro_roof). Pure. */
#ifndef ROOFCOST_ROOF_H
#define ROOFCOST_ROOF_H

#include "model/hw.h"
#include "engine/op.h"
#include "base/num.h"

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

/* Times every op of l; per_op (may be NULL) receives l->n entries. */
roof_sum roof_list(const hw_chip *c, const ops_list *l, roof_time *per_op);

/* Tile heights of the library's set: the chip's and 7/8 .. 1/8 of it. */
enum { ROOF_TILE_HS = 8 };

/* What timing an op reads of a chip, worked out once for a list of ops (roof_chip_init): the
 * rates, and the tile set roof_shape_eff searches. */
typedef struct roof_chip {
	double clock;       /* clock_scale, 1 when not given */
	double sustained;   /* train_sustained, 1 when not given */
	double hbm;         /* hbm_bw × hbm_eff */
	double elem_bw[2][2]; /* B/s elementwise kernels reach: hbm_bw × elem_eff, or hbm when 0 */
	double tile_w;      /* the tile set's half-width column (its rows: roof.c's tile_row) */
	int ok_w;           /* 1: that column does not exceed the chip's */
	double tm, tn;      /* the chip's tile_m, tile_n, units and pads as doubles, units x tile_m x */
	double units, utt;  /* tile_n in utt (roof_shape_eff's arithmetic, without the conversions) */
	double pm, pn, pk;
} roof_chip;

/* Fills k for chip c (the tile set too). */
void roof_chip_init(const hw_chip *c, roof_chip *k);

/* The rates of k only, enough for ops that are not tensor work (GEMM, attention); inline, so a
 * caller that times one op works out only what that op reads. */
static inline void roof_chip_rates(const hw_chip *c, roof_chip *k)
{
	k->clock = c->clock_scale > 0 ? c->clock_scale : 1;
	k->sustained = c->train_sustained > 0 ? c->train_sustained : 1;
	k->hbm = c->hbm_bw * c->hbm_eff;
	for (int i = 0; i < 2; i++)
		for (int j = 0; j < 2; j++) {
			double e = c->elem_eff[i][j];
			k->elem_bw[i][j] = e > 0 ? c->hbm_bw * e : k->hbm;
		}
}

/* roof_shape_eff with ck = roof_chip_init(c). */
double roof_shape_eff_chip(const hw_chip *c, const roof_chip *ck, double m, double n, double k, double batch);

/* The last GEMM shape timed and its efficiency: a backward GEMM or attention repeats its
 * forward's shape, so a list's timing computes roof_shape_eff once for the pair. Zero it
 * (roof_memo_init) before a list. */
typedef struct roof_memo {
	int valid;
	int same;            /* 1: the next tensor op timed is a copy of the last one (its backward):
				 its shape is the last one's, no need to compare; -1: it is new (a
				 lowering's forward GEMM or attention), no need to compare either; 0:
				 compare (each cleared as it is used) */
	double m, n, k, batch, eff;
	/* Serving GEMMs (roof_serve_gemm_eff): the measured side of the last one's ratio, which
	 * the GEMMs of one iteration share (their rows M): for rows serve_m between points
	 * serve_lo and serve_hi of precision serve_run's curve. roof_list sets serve_ok = 0;
	 * nothing else reads these (training lowers no serving GEMM). */
	int serve_ok, serve_lo, serve_hi;
	hw_prec serve_run;
	double serve_m, serve_ax;
} roof_memo;

static inline void roof_memo_init(roof_memo *sm)
{
	sm->valid = sm->same = 0;
	sm->m = sm->n = sm->k = sm->batch = sm->eff = 0;
}

/* A serving GEMM's fraction of the peak at run precision `run`: m rows of `flops` over `bytes`,
 * timed by the chip's [decode] curve for the precision (0: the chip has none). The curve,
 * log-linear in m between its points, gives what the kernels measured reach at these rows on
 * the GEMMs its points name (@NxK) at the rates of the chip they ran on (this chip's, or
 * decode_rates: [decode] measured_on). It is moved to this GEMM on this chip by the roofline's
 * ratio at the same rows: its fraction of the peak here, min(gemm_eff, FLOP/B x hbm_bw x hbm_eff
 * / peak), over that of the points' GEMMs at the measuring chip's rates (the two points' weighted
 * log-linearly as the curve is). Where the rows leave both memory-bound the ratio is the chips'
 * bandwidths over their peaks (an H100's point on an H200's HBM) times the GEMMs' FLOP per byte,
 * where compute-bound that of their best-shape fractions. The tile and wave model is left out:
 * on the curves' shapes it is within 3 % of 1, and its steps over m would let a GEMM's time fall
 * as its rows grow. A curve without shapes measured on the chip itself is the curve alone. sm
 * (may be NULL): the measured side, which the GEMMs of one iteration (one m) share, kept from one
 * to the next. ck = roof_chip_init(c). */
double roof_serve_gemm_eff(const hw_chip *c, const roof_chip *ck, hw_prec run, double m, double flops, double bytes,
			   roof_memo *sm);

/* Decode attention (one query row) over a paged KV cache: a fixed cost per call, then the
 * bytes at the bandwidth paged-decode kernels reach (0: not a serving decode, or no data). */
static inline double roof_paged_attn_time(const hw_chip *c, const ops_op *o)
{
	if (!o->serve || o->kind != OPS_ATTN || o->m > 1 || c->decode_attn_bw <= 0)
		return 0;
	return c->decode_attn_floor + o->bytes / (c->hbm_bw * c->decode_attn_bw);
}

/* roof_shape_eff of o's shape, through the memo when there is one. */
__attribute__((always_inline)) static inline double roof_memo_eff(const hw_chip *c, const roof_chip *ck, double m,
								   double n, double k, double batch, roof_memo *sm)
{
	if (!sm)
		return roof_shape_eff_chip(c, ck, m, n, k, batch);
	if (sm->same > 0) {
		sm->same = 0;
		return sm->eff;
	}
	if (sm->same < 0 || !sm->valid || sm->m != m || sm->n != n || sm->k != k || sm->batch != batch) {
		sm->valid = 1;
		sm->same = 0;
		sm->m = m;
		sm->n = n;
		sm->k = k;
		sm->batch = batch;
		sm->eff = roof_shape_eff_chip(c, ck, m, n, k, batch);
	}
	return sm->eff;
}

/* roof_op into *out, every field written, with ck = roof_chip_init(c) (sm: the shape memo, may
 * be NULL); serving 0: o is no serving op (a training lowering's), so neither the [decode]
 * curves nor the paged attention are looked up and nothing of o leaves the caller's registers
 * for them. Inline, for the loops that time ops as they make them (ops_train_micro_roof:
 * roof_time_train_op). */
__attribute__((always_inline)) static inline void roof_time_op_as(const hw_chip *c, const roof_chip *ck,
								   const ops_op *o, roof_memo *sm, roof_time *out,
								   int serving)
{
	double t_compute = 0, t_memory, eff = 0, peak, t, paged;
	hw_prec run = o->prec;
	roof_bound bound;
	if (!(c->peak[run] > 0)) {
		run = hw_run_prec(c, run);
		if (run == HW_PREC_N)
			run = hw_widest_prec(c); /* no rate to run at (an infeasible result): an estimate */
		if (run == HW_PREC_N)
			run = HW_FP32;
	}
	peak = c->peak[run];
	if (o->kind == OPS_GEMM || o->kind == OPS_ATTN) {
		double base = c->gemm_eff[run], serve_eff = 0;
		if (o->kind == OPS_ATTN) {
			/* The kernel class's forward or backward fraction at this key length
			 * (calibration notes: FlashAttention-3 paper figures, FA issues). */
			const double *k = c->attn_k[o->attn];
			double a = k[o->phase == OPS_BWD ? 1 : 0];
			double half = c->attn_seq_half[o->attn];
			if (a > 0)
				base = num_min(a * (half > 0 && o->n > 0 ? o->n / (o->n + half) : 1), base);
		}
		double share = 1;
		if (serving && o->serve > 0 && o->kind == OPS_GEMM) {
			/* A serving GEMM: the measured curve where the chip has one, at the share of it
			 * the stack's GEMM library reaches. */
			if (c->decode_gemm[run].n)
				serve_eff = roof_serve_gemm_eff(c, ck, run, o->m, o->flops, o->bytes, sm);
			share = o->serve;
		}
		/* Tensor work runs at the clock the power limit sustains. */
		eff = (serve_eff > 0 ? serve_eff : base * roof_memo_eff(c, ck, o->m, o->n, o->k, o->batch, sm)) * ck->clock *
		      (o->train > 0 ? o->train * ck->sustained : 1) * share;
		/* A share above 1 (kernels beyond the curve) stops at the dense peak, at the clock. */
		if (serving && share > 1 && eff > ck->clock)
			eff = ck->clock;
		if (sm)
			sm->same = 0;
		t_compute = peak > 0 && eff > 0 ? o->flops / (peak * eff) : 0;
	} else if (c->vector > 0) {
		eff = 1;
		peak = c->vector;
		t_compute = o->flops / c->vector;
	}
	paged = serving && o->serve ? roof_paged_attn_time(c, o) : 0;
	if (paged > 0)
		t_memory = paged;
	else if (o->kind == OPS_GEMM || o->kind == OPS_ATTN || o->kind == OPS_EMBED)
		t_memory = o->bytes / ck->hbm;
	else {
		/* Norms, activations, residuals, the loss and the optimizer: the bandwidth such
		 * kernels reach, fused or eager, forward or backward (0 in a literal: hbm_eff). */
		t_memory = o->bytes / ck->elem_bw[o->eager ? 1 : 0][o->phase == OPS_BWD ? 1 : 0];
	}
	t = t_compute;
	bound = ROOF_COMPUTE;
	if (t_memory > t) {
		t = t_memory;
		bound = ROOF_MEMORY;
	}
	if (c->op_overhead > t) {
		t = c->op_overhead;
		bound = ROOF_OVERHEAD;
	}
	if (o->host > t) {
		/* The host issues the kernels slower than the chip runs them (eager, small ops). */
		t = o->host;
		bound = ROOF_OVERHEAD;
	}
	out->t_compute = t_compute;
	out->t_memory = t_memory;
	out->t = t;
	out->eff = eff;
	out->peak = peak;
	out->run_prec = run;
	out->bound = bound;
}

/* roof_time_op_as for any op (roof_list, roof_op). */
__attribute__((always_inline)) static inline void roof_time_op(const hw_chip *c, const roof_chip *ck, const ops_op *o,
								roof_memo *sm, roof_time *out)
{
	roof_time_op_as(c, ck, o, sm, out, 1);
}

/* roof_time_op_as for an op of a training lowering (never a serving GEMM). */
__attribute__((always_inline)) static inline void roof_time_train_op(const hw_chip *c, const roof_chip *ck,
								      const ops_op *o, roof_memo *sm, roof_time *out)
{
	roof_time_op_as(c, ck, o, sm, out, 0);
}

/* Adds o, each run timed r, count times into s (roof_list's sum, op by op). */
__attribute__((always_inline)) static inline void roof_add_op(roof_sum *s, const ops_op *o, const roof_time *r)
{
	double t = r->t * o->count;
	s->t += t;
	s->flops += o->flops * o->count;
	s->bytes += o->bytes * o->count;
	s->t_bound[r->bound] += t;
	s->t_phase[o->phase] += t;
	s->t_kind[o->kind] += t;
}

/* Times one run of op o on chip c. A serving op (o->serve) runs its GEMMs at the chip's
 * measured rate for its rows M ([decode] curves) and its decode attention over the paged
 * KV cache at the bandwidth such kernels reach, where the chip file gives them. Inline: the
 * op's kind, known where it is made, picks the rates it needs. */
__attribute__((always_inline)) static inline roof_time roof_op(const hw_chip *c, const ops_op *o)
{
	roof_time r;
	roof_chip ck;
	/* The tile set only for tensor work: one optimizer or elementwise op needs the rest. */
	if (o->kind == OPS_GEMM || o->kind == OPS_ATTN)
		roof_chip_init(c, &ck);
	else
		roof_chip_rates(c, &ck);
	roof_time_op(c, &ck, o, NULL, &r);
	return r;
}

#endif
