/* roof: roofline bounds and shape efficiency. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "fixtures.h"
#include "engine/roof.h"

/* An H100-like matrix unit: 132 engines, 128×256 output tiles. */
static hw_chip h100_like(void)
{
	hw_chip c = fx_round_chip();
	c.units = 132;
	c.tile_m = 128;
	c.tile_n = 256;
	c.pad_m = 16;
	c.pad_n = 8;
	c.pad_k = 16;
	return c;
}

Test(roof, wave_quantization)
{
	/* 1024³: 8 × 4 = 32 tiles on 132 engines, one wave 24% full (H100 measured 17.9% of peak
	 * against 80% at best shape: ratio 0.22, calibration.md 2.2). 2048³: 128 tiles, 97%. */
	hw_chip c = h100_like();
	cr_assert_float_eq(roof_shape_eff(&c, 1024, 1024, 1024, 1), 32.0 / 132, 1e-12);
	cr_assert_float_eq(roof_shape_eff(&c, 2048, 2048, 2048, 1), 128.0 / 132, 1e-12);
	/* 4096³: 512 of the chip's tiles = 3.88 waves -> 4 waves: 512 / 528; a GEMM of several waves
	 * may run a tile of the library's set that fills them better (H100 measured 79.7 % of
	 * peak, 80 % at best shape), never worse. */
	cr_assert_geq(roof_shape_eff(&c, 4096, 4096, 4096, 1), 512.0 / 528 - 1e-12);
	cr_assert_leq(roof_shape_eff(&c, 4096, 4096, 4096, 1), 1);
}

Test(roof, padding)
{
	/* m = 1 on a 16-row granularity: 1/16 of the unit does useful work. */
	hw_chip c = fx_round_chip();
	c.pad_m = 16;
	cr_assert_float_eq(roof_shape_eff(&c, 1, 4096, 4096, 1), 1.0 / 16, 1e-12);
	c.pad_m = 1;
	c.pad_n = c.pad_k = 128;
	/* n = 200 pads to 256, k = 100 to 128. */
	cr_assert_float_eq(roof_shape_eff(&c, 64, 200, 100, 1), (200.0 * 100) / (256.0 * 128), 1e-12);
}

Test(roof, compute_or_memory_or_overhead)
{
	hw_chip c = fx_round_chip();
	ops_op o;
	roof_time r;
	memset(&o, 0, sizeof o);
	o.kind = OPS_GEMM;
	o.prec = HW_BF16;
	o.m = o.n = o.k = 4096;
	o.batch = 1;
	/* 1 TFLOP at 100 TFLOP/s = 10 ms; 1 GB at 1 TB/s = 1 ms: compute-bound, 10 ms. */
	o.flops = 1e12;
	o.bytes = 1e9;
	r = roof_op(&c, &o);
	cr_assert_eq(r.bound, ROOF_COMPUTE);
	cr_assert_float_eq(r.t, 0.01, 1e-15);
	/* 100 GB: 100 ms memory-bound. */
	o.bytes = 1e11;
	r = roof_op(&c, &o);
	cr_assert_eq(r.bound, ROOF_MEMORY);
	cr_assert_float_eq(r.t, 0.1, 1e-12);
	/* A tiny kernel is bounded by the per-kernel overhead. */
	c.op_overhead = 5e-6;
	o.flops = 1e3;
	o.bytes = 1e3;
	r = roof_op(&c, &o);
	cr_assert_eq(r.bound, ROOF_OVERHEAD);
	cr_assert_float_eq(r.t, 5e-6, 1e-15);
}

Test(roof, unsupported_precision_runs_wider)
{
	/* fp8 on a chip without fp8 runs at the bf16 peak (100 TFLOP/s), not at 0. */
	hw_chip c = fx_round_chip();
	ops_op o;
	roof_time r;
	memset(&o, 0, sizeof o);
	o.kind = OPS_GEMM;
	o.prec = HW_FP8;
	o.m = o.n = o.k = 1024;
	o.batch = 1;
	o.flops = 1e12;
	r = roof_op(&c, &o);
	cr_assert_eq(r.run_prec, HW_BF16);
	cr_assert_float_eq(r.t, 0.01, 1e-15);
}

Test(roof, serving_gemm_curve_and_paged_attention)
{
	/* Curve 1:0.01, 100:0.5: log-linear between, sqrt(0.01 · 0.5) = 0.0707 at M 10; below
	 * the first point the time stays flat (0.005 at M 0.5), above the last the rate holds. */
	hw_chip c = fx_round_chip();
	hw_curve k = {.n = 2, .x = {1, 100}, .eff = {0.01, 0.5}};
	ops_op o;
	roof_time r;
	cr_assert_float_eq(roof_curve(&k, 10), sqrt(0.01 * 0.5), 1e-12);
	cr_assert_float_eq(roof_curve(&k, 0.5), 0.005, 1e-12);
	cr_assert_float_eq(roof_curve(&k, 1000), 0.5, 1e-12);
	/* A serving GEMM of 10 rows runs at 0.0707 of the 100 TFLOP/s peak; a training one at the
	 * best-shape path (efficiency 1 on the round chip). */
	c.decode_gemm[HW_BF16] = k;
	memset(&o, 0, sizeof o);
	o.kind = OPS_GEMM;
	o.prec = HW_BF16;
	o.m = 10; o.n = o.k = 1000; o.batch = 1;
	o.flops = 2 * 10 * 1000 * 1000.0;
	o.serve = 1;
	r = roof_op(&c, &o);
	cr_assert_float_eq(r.t_compute, o.flops / (100e12 * sqrt(0.01 * 0.5)), 1e-18);
	o.serve = 0;
	cr_assert_float_eq(roof_op(&c, &o).t_compute, o.flops / 100e12, 1e-18);
	/* Decode attention over a paged cache: 8 us + 100 MB at 0.5 of 1 TB/s = 208 us. */
	c.decode_attn_bw = 0.5;
	c.decode_attn_floor = 8e-6;
	memset(&o, 0, sizeof o);
	o.kind = OPS_ATTN;
	o.prec = HW_BF16;
	o.m = 1; o.n = 4096; o.k = 128; o.batch = 32;
	o.bytes = 100e6;
	o.serve = 1;
	cr_assert_float_eq(roof_op(&c, &o).t_memory, 8e-6 + 100e6 / 0.5e12, 1e-15);
}

/* A 16-bit serving GEMM m x n x k of o's fields, as ops.c's gemm counts it (weights, activations
 * in and out at 2 bytes), into o. */
static void serve_gemm(ops_op *o, double m, double n, double k)
{
	memset(o, 0, sizeof *o);
	o->kind = OPS_GEMM;
	o->prec = HW_BF16;
	o->m = m; o->n = n; o->k = k; o->batch = 1;
	o->flops = 2 * m * n * k;
	o->bytes = 2 * (n * k + m * k + m * n);
	o->serve = 1;
}

/* c's [decode] points measured on a chip of c's peaks at half its bandwidth and a best-shape
 * fraction of 0.8. */
static void measured_on_half(hw_chip *c)
{
	snprintf(c->decode_on, sizeof c->decode_on, "half");
	for (int p = 0; p < HW_PREC_N; p++) {
		c->decode_rates.peak[p] = c->peak[p];
		c->decode_rates.gemm_eff[p] = 0.8;
	}
	c->decode_rates.hbm_bw = 0.5 * c->hbm_bw;
	c->decode_rates.hbm_eff = 1;
}

Test(roof, serving_gemm_points_move_to_the_gemm_and_the_chip_timed)
{
	/* The round chip (100 TFLOP/s, 1 TB/s, fractions 1), bf16 curve 1:0.01, 100:0.5 measured on
	 * N = K = 1000. A GEMM of that shape at M 10 takes the curve, sqrt(0.01 · 0.5): the
	 * roofline's ratio at its rows is 1. */
	hw_chip c = fx_round_chip();
	hw_curve k = {.n = 2, .x = {1, 100}, .eff = {0.01, 0.5}, .shaped = 1, .gn = {1000, 1000}, .gk = {1000, 1000}};
	ops_op o;
	double e10 = sqrt(0.01 * 0.5), i10 = 2e7 / 2.04e6, i4k = 3.2e8 / (2 * (16e6 + 8e4));
	c.decode_gemm[HW_BF16] = k;
	serve_gemm(&o, 10, 1000, 1000);
	cr_assert_float_eq(roof_op(&c, &o).eff, e10, 1e-12);
	/* At M 10 both GEMMs are memory-bound (FLOP/B 9.80 and 9.95 against a ridge of 100): a GEMM
	 * of N = K = 4000 moves by its intensity over the points', 9.95 / 9.80. */
	serve_gemm(&o, 10, 4000, 4000);
	cr_assert_float_eq(roof_op(&c, &o).eff, e10 * i4k / i10, 1e-12);
	/* Measured on a chip of half the bandwidth: memory-bound rows run twice the share of the
	 * peak here (0.141 at M 10); compute-bound ones (M 1000 on the points' shape, FLOP/B 333)
	 * by the best-shape fractions, 1 here over 0.8 there: 0.5 / 0.8 = 0.625. */
	measured_on_half(&c);
	serve_gemm(&o, 10, 1000, 1000);
	cr_assert_float_eq(roof_op(&c, &o).eff, 2 * e10, 1e-12);
	serve_gemm(&o, 1000, 1000, 1000);
	cr_assert_float_eq(roof_op(&c, &o).eff, 0.5 / 0.8, 1e-12);
	/* A curve without shapes measured on another chip is moved on the GEMM timed itself. */
	c.decode_gemm[HW_BF16].shaped = 0;
	serve_gemm(&o, 10, 4000, 4000);
	cr_assert_float_eq(roof_op(&c, &o).eff, 2 * e10, 1e-12);
}

Test(roof, serving_gemms_of_one_iteration_share_the_measured_side)
{
	/* roof_list keeps the measured side from one GEMM to the next of the same rows: every
	 * GEMM of a list times as it does alone (roof_op), across points of two shapes. */
	hw_chip c = fx_round_chip();
	hw_curve k = {.n = 3, .x = {1, 100, 4096}, .eff = {0.01, 0.5, 0.7}, .shaped = 1,
		      .gn = {1000, 1000, 300}, .gk = {1000, 1000, 5000}};
	ops_list l;
	roof_time per[6];
	double ms[3] = {10, 700, 700};
	c.decode_gemm[HW_BF16] = k;
	measured_on_half(&c);
	memset(&l, 0, sizeof l);
	for (int i = 0; i < 6; i++)
		serve_gemm(&l.op[i], ms[i % 3], 1000 + 500 * i, 2000 + 100 * i);
	for (int i = 0; i < 6; i++)
		l.op[i].count = 1;
	l.n = 6;
	roof_list(&c, &l, per);
	for (int i = 0; i < 6; i++)
		cr_assert_float_eq(per[i].eff, roof_op(&c, &l.op[i]).eff, 1e-15, "op %d", i);
}

/* An MI300X-like matrix unit: 304 CUs, 256×256 output tiles. */
static hw_chip mi300x_like(void)
{
	hw_chip c = h100_like();
	c.units = 304;
	c.tile_m = c.tile_n = 256;
	return c;
}

Test(roof, a_gemm_never_takes_less_time_as_it_grows)
{
	/* Time ∝ m·n·k / efficiency: one more row never makes a GEMM faster. Partial tiles (the
	 * last row of the output) take as long as full ones, so crossing a tile row cannot raise the
	 * efficiency enough to lower the time (it did: an A100 GEMM of 256.1 rows ran in 70 % of the
	 * time of one of 254.7, 3 rows of tiles counted as full work against 2). */
	hw_chip chips[2] = {h100_like(), mi300x_like()};
	double ns[3] = {1280, 6144, 7168}, ks[2] = {1024, 8192};
	for (int c = 0; c < 2; c++)
		for (int i = 0; i < 3; i++)
			for (int j = 0; j < 2; j++) {
				double last = 0;
				for (double m = 1; m <= 6000; m += 1) {
					double t = m / roof_shape_eff(&chips[c], m, ns[i], ks[j], 1);
					cr_assert_geq(t, last * (1 - 1e-12), "chip %d n %g k %g: m %g takes %g, m - 1 took %g",
						      c, ns[i], ks[j], m, t, last);
					last = t;
				}
			}
}

Test(roof, a_quarter_more_rows_does_not_cost_twice)
{
	/* Llama-3-70B's QKV projection at TP8 (n = 1280, k = 8192) on 304 CUs of 256×256 tiles: 256
	 * decode rows are one row of 5 tiles, split along K over the CUs; 320 rows are two rows, 10
	 * tiles, which the libraries split along K as well (K = 8192 > M). Without that split they
	 * ran on 10 of 304 CUs and 25 % more rows cost 30 times as much. */
	hw_chip c = mi300x_like();
	double t256 = 256 / roof_shape_eff(&c, 256, 1280, 8192, 1);
	double t320 = 320 / roof_shape_eff(&c, 320, 1280, 8192, 1);
	cr_assert_leq(t320, 2 * t256, "320 rows %g vs 256 rows %g", t320, t256);
	cr_assert_geq(t320, t256);
}

/* The tile set's search as roof.h defines it, the plain loop: the chip's tile shrunk to the
 * GEMM, or one of 7/8 .. 1/8 of its height (rounded up to pad_m), by its width or half of it
 * (rounded up to pad_n), each in whole waves over the units, K split where the tiles leave units
 * idle and the GEMM is skinny or K > M; the best efficiency of them, then no better than the
 * largest unsplit GEMM of these columns below one wave. roof_shape_eff's search (integers, a
 * bound, heights that cannot win skipped) must give this figure for figure. */
static double ref_up(double x, double g) { return g <= 1 ? ceil(x) : ceil(x / g) * g; }

static double ref_cap(const hw_chip *c, double th, double tw, double kp, double rows, double cols, double cb,
		      double kq, int split)
{
	double tiles = rows * cols * cb, s = 1;
	if (split && tiles < c->units)
		s = fmin(c->units / tiles, kq);
	return ceil(fmax(0, tiles * s / c->units - 1e-9)) * c->units * th * tw * kp / s;
}

static double ref_shape_eff(const hw_chip *c, double m, double n, double k, double batch)
{
	double th, tw, kp, b, cb, kq, work, e, cols0, rows_sub;
	int split;
	if (m <= 0 || n <= 0 || k <= 0)
		return 1;
	th = fmin(c->tile_m, ref_up(m, c->pad_m));
	tw = fmin(c->tile_n, ref_up(n, c->pad_n));
	kp = ref_up(k, c->pad_k);
	b = batch > 1 ? batch : 1;
	cb = ceil(b);
	kq = fmax(1, floor(k / (4.0 * c->pad_k)));
	work = m * n * k * b;
	split = m <= c->tile_m || k > m;
	cols0 = fmax(1, ceil(n / tw));
	e = work / ref_cap(c, th, tw, kp, fmax(1, ceil(m / th)), cols0, cb, kq, split);
	if (!split && ceil(m / th) * ceil(n / tw) * cb < c->units)
		return e;
	for (int i = 0; i < 8; i++)
		for (int j = 0; j < 2; j++) {
			double h = i ? ref_up((double)c->tile_m * (8 - i) / 8, c->pad_m) : th;
			double w = j ? ref_up(c->tile_n / 2.0, c->pad_n) : tw;
			if (h <= c->tile_m && w <= c->tile_n)
				e = fmax(e, work / ref_cap(c, h, w, kp, fmax(1, ceil(m / h)), fmax(1, ceil(n / w)), cb, kq,
							   split));
		}
	rows_sub = floor((c->units - 1) / (cols0 * cb));
	if (!split && rows_sub >= 1 && rows_sub * c->tile_m < m)
		e = fmin(e, work / ref_cap(c, c->tile_m, tw, kp, rows_sub, cols0, cb, kq, 0));
	return e;
}

Test(roof, the_search_gives_the_loops_figures)
{
	/* The shipped chips' matrix units (units, tile_m, tile_n, pad_m, pad_n, pad_k: models/hw/chips)
	 * and odd ones, over random shapes: whole and fractional rows, skinny (decode) and square,
	 * near multiples of the tiles, batches. */
	static const int chips[][6] = {{108, 128, 128, 16, 8, 16}, {132, 128, 256, 16, 8, 16}, {148, 128, 256, 16, 8, 16},
				       {160, 128, 256, 16, 8, 16}, {304, 256, 256, 16, 8, 16}, {256, 256, 256, 16, 8, 16},
				       {2, 512, 128, 1, 128, 128},  {8, 512, 128, 1, 128, 128},  {8, 512, 128, 8, 128, 128},
				       {4, 512, 128, 8, 128, 128},  {2, 512, 256, 8, 256, 256},  {8, 512, 256, 8, 256, 256},
				       {7, 100, 90, 16, 64, 3},      {5, 48, 24, 64, 64, 1},      {3, 96, 40, 1, 1, 1}};
	unsigned long long x = 88172645463325252ULL;
	long bad = 0;
	for (size_t ci = 0; ci < sizeof chips / sizeof chips[0]; ci++) {
		hw_chip c = fx_round_chip();
		c.units = chips[ci][0];
		c.tile_m = chips[ci][1];
		c.tile_n = chips[ci][2];
		c.pad_m = chips[ci][3];
		c.pad_n = chips[ci][4];
		c.pad_k = chips[ci][5];
		for (int t = 0; t < 20000; t++) {
			double r[5], m, n, k, b, got, want;
			for (int i = 0; i < 5; i++) {
				x ^= x << 13;
				x ^= x >> 7;
				x ^= x << 17;
				r[i] = (double)(x >> 11) / 9007199254740992.0;
			}
			switch (t % 5) {
			case 0: m = floor(exp(r[0] * log(20000))); break;                     /* whole rows */
			case 1: m = exp(r[0] * log(30000)); break;                             /* fractional */
			case 2: m = 1 + floor(r[0] * 256); break;                              /* decode */
			case 3: m = c.tile_m / 8.0 * (1 + floor(r[0] * 64)) + floor(r[4] * 3) - 1; break; /* near tiles */
			default: m = 128 * (1 + floor(r[0] * 64)); break;
			}
			if (m <= 0)
				m = 1;
			n = t % 3 ? 8 * floor(exp(r[1] * log(20000))) : floor(exp(r[1] * log(200000)));
			k = t % 4 ? 16 * floor(exp(r[2] * log(8192))) : exp(r[2] * log(100000));
			b = r[3] < 0.6 ? 1 : r[3] < 0.8 ? 1 + floor(r[3] * 100) : r[3] * 40;
			got = roof_shape_eff(&c, m, n, k, b);
			want = ref_shape_eff(&c, m, n, k, b);
			if (memcmp(&got, &want, sizeof got) != 0 && bad++ < 5)
				cr_log_error("chip %zu: %.17g x %.17g x %.17g (batch %.17g): %.17g, the loop %.17g", ci, m, n, k,
					     b, got, want);
		}
	}
	cr_assert_eq(bad, 0, "%ld shapes off the loop's figure", bad);
}
