/* roof: roofline time of an op on a chip (see roof.h). */
#include "engine/roof.h"

#include <limits.h>
#include <math.h>
#include <string.h>

#include "base/num.h"

const char *const roof_bound_names[] = {"compute", "memory", "overhead", NULL};

/* ceil and floor of the dimensions, tile and wave counts below, which are never negative (chip
 * figures are whole numbers >= 1, shapes are checked positive): for 0 <= x < 2^52, x + 2^52
 * falls where doubles are whole numbers, so (x + 2^52) - 2^52 is x rounded to a whole number,
 * exactly, and one step from it gives these libm's figures; libm beyond (and for a NaN). Not
 * for x < 0, whose ceiling in (-1, 0) is -0. */
static inline double round_pos(double x)
{
	return (x + 4503599627370496.0) - 4503599627370496.0;
}

static double ceil_pos(double x)
{
	if (x < 4503599627370496.0) {
		double t = round_pos(x);
		return t < x ? t + 1 : t;
	}
	return ceil(x);
}

static double floor_pos(double x)
{
	if (x < 4503599627370496.0) {
		double t = round_pos(x);
		return t > x ? t - 1 : t;
	}
	return floor(x);
}

static double round_up(double x, double g)
{
	return g <= 1 ? ceil_pos(x) : ceil_pos(x / g) * g;
}

/* num_max(1, x) and num_min(hi, x) for hi a whole number >= 1 (never NaN, never a signed zero):
 * the same values, without the NaN tests on the constant. */
static inline double at_least_1(double x)
{
	return x > 1 ? x : 1;
}

static inline double at_most(double hi, double x)
{
	return x < hi ? x : hi;
}

void roof_chip_init(const hw_chip *c, roof_chip *k)
{
	roof_chip_rates(c, k);
	k->tile_w = round_up(c->tile_n / 2.0, c->pad_n);
	k->ok_w = k->tile_w <= c->tile_n;
	k->tm = c->tile_m;
	k->tn = c->tile_n;
	k->units = c->units;
	k->utt = (double)c->units * c->tile_m * c->tile_n;
	k->pm = c->pad_m;
	k->pn = c->pad_n;
	k->pk = c->pad_k;
}

/* Row i (1 .. 7) of the tile set, (8 - i)/8 of the chip's tile, round_up(tile_m (8 - i) / 8,
 * pad_m) in whole numbers: ceil(N / D) of whole N, D below 2^52 is what ceil_pos(N / D) gives.
 * The rows fall as i grows; a row above the chip's tile (pad_m beyond it) is not in the set. */
static double tile_row(const hw_chip *c, int i)
{
	long long g = c->pad_m > 1 ? c->pad_m : 1, d = (long long)ROOF_TILE_HS * g;
	return (double)(((long long)c->tile_m * (ROOF_TILE_HS - i) + d - 1) / d * g);
}

/* The engines' capacity (denominator of the efficiency) an m x n x k GEMM (`b` of them) takes in
 * output tiles of th x tw, K padded to kp: whole tiles (a partial one, the last row or column of
 * the output, takes as long as a full one) in waves over `units` engines, K split into equal
 * shares per engine where may_split and the tiles leave engines idle. The time is waves x one
 * tile's share of the K loop: for a fixed tile it never falls as the GEMM grows. rows and cols
 * are max(1, ceil(m / th)) and max(1, ceil(n / tw)); K splits into at most kq shares, max(1,
 * floor(k / (4 pad_k))) (kq_of). The efficiency is (m n k b) over it. */
static double kq_of(const hw_chip *c, double k)
{
	return at_least_1(floor_pos(k / (4.0 * c->pad_k)));
}

static double tiled_cap(const hw_chip *c, double th, double tw, double kp, double rows, double cols,
			double cb, double k, int may_split)
{
	double tiles = rows * cols * cb, split = 1, waves;
	if (may_split && tiles < c->units)
		split = num_min(c->units / tiles, kq_of(c, k));
	waves = ceil_pos(num_max(0, tiles * split / c->units - 1e-9));
	return waves * c->units * th * tw * kp / split;
}

/* Rows of tiles h high over m rows, ceil(m / h) (at least 1), for 0 < m / h < 2^52 as
 * ceil_pos gives them. */
static long long tile_rows(double m, double h)
{
	double x = m / h;
	long long r = (long long)x;
	r += (double)r < x;
	return r > 0 ? r : 1;
}

/* The tile set's search: the least capacity (tiled_cap) over the set's tiles gives the largest
 * efficiency, work / least, which is what the loop of max(work / tiled_cap) gives (division is
 * monotone), with one division. Exact, and cheap:
 * - A tile that fills the engines (or of a GEMM not split along K) has split 1 and a capacity of
 *   whole factors, waves x units x h x w x kp, below 2^52 where the caller checked the GEMM's
 *   size: q = waves x h x w is compared in integers (waves a ceiling division, which
 *   ceil(tiles / units - 1e-9) is for whole tiles below 2^52 and units below 5e8) and times
 *   units x kp once. A tile split along K keeps tiled_cap's own arithmetic.
 * - Two heights with the same rows (or widths with the same columns) have the same tiles, split
 *   and waves, and the capacity is monotone in the height: the lower wins or ties. So heights
 *   above th (the GEMM's own, which holds it in one row when it is below the chip's) are
 *   skipped.
 * - The heights go down from th. Once a height's tiles fill the engines, every lower one's do
 *   (more rows): those have q >= rows x h x cols x cb x w / units >= ceil(m) x cols x cb x w /
 *   units, and the search stops when the best q reaches that. */
/* The capacity best_cap weighs for tile h x w of `cols` columns (cw = cols x cb whole), rows of
 * it over m: the least of it so far into *best_q (a tile that fills the engines, in whole
 * numbers) or *best_f (one split along K, tiled_cap's arithmetic). Returns 0 for a split one. */
static inline int weigh(const hw_chip *c, double h, long long rows, double w, double cols, long long cw, double kp,
			double cb, double k, int may_split, long long *best_q, double *best_f)
{
	const long long units = c->units, tiles = rows * cw;
	/* A tile is split along K when it may be and its tiles leave engines idle. */
	if (may_split && tiles < units) {
		double cap = tiled_cap(c, h, w, kp, (double)rows, cols, cb, k, may_split);
		if (cap < *best_f)
			*best_f = cap;
		return 0;
	} else {
		long long q = (tiles + units - 1) / units * ((long long)h * (long long)w);
		if (q < *best_q)
			*best_q = q;
		return 1;
	}
}

__attribute__((always_inline)) static inline double best_cap(const hw_chip *c, const roof_chip *ck, double m, double n,
							      double th, double tw, double kp, double cb, double k,
							      int may_split, double cols0)
{
	const long long units = c->units, icb = (long long)cb, mc = (long long)ceil_pos(m);
	double w0 = tw, c0 = cols0, w1 = 0, c1 = 0, best_f = INFINITY, h = th;
	long long cw0, cw1 = 0, lb, best_q = LLONG_MAX;
	int two = 0, i = 1, filled; /* i: the next row of the set to try (tile_row) */
	long long rows;
	if (ck->ok_w && ck->tile_w != tw) {
		w1 = ck->tile_w;
		c1 = at_least_1(ceil_pos(n / w1));
		two = 1;
		if (c1 == c0) { /* the narrower of the two widths wins or ties */
			two = 0;
			if (w1 < w0) {
				w0 = w1;
				c0 = c1;
			}
		}
	}
	cw0 = (long long)c0 * icb;
	lb = (mc * cw0 * (long long)w0 + units - 1) / units;
	if (two) {
		long long l;
		cw1 = (long long)c1 * icb;
		l = (mc * cw1 * (long long)w1 + units - 1) / units;
		if (l < lb)
			lb = l;
	}
	/* The first height, th, usually ends the search: it is weighed before the loop over the
	 * lower ones. */
#define WEIGH_ROW()                                                                                    \
	(rows = tile_rows(m, h),                                                                       \
	 weigh(c, h, rows, w0, c0, cw0, kp, cb, k, may_split, &best_q, &best_f) &                      \
		 (two ? weigh(c, h, rows, w1, c1, cw1, kp, cb, k, may_split, &best_q, &best_f) : 1))
	filled = WEIGH_ROW();
	while (!(filled && best_q <= lb)) {
		/* The next lower row of the set, each height once (they fall with i); heights above
		 * th hold the GEMM in one row as th does, and those above the chip's are not in it. */
		double next = 0;
		for (; i < ROOF_TILE_HS && !next; i++) {
			double r = tile_row(c, i);
			if (r < h && r <= c->tile_m)
				next = r;
		}
		if (!next)
			break;
		h = next;
		filled = WEIGH_ROW();
	}
#undef WEIGH_ROW
	if (best_q != LLONG_MAX && (double)best_q * ((double)units * kp) < best_f)
		best_f = (double)best_q * ((double)units * kp);
	return best_f;
}

/* roof_shape_eff with the chip's tile set from ck. */
double roof_shape_eff_chip(const hw_chip *c, const roof_chip *ck, double m, double n, double k, double batch)
{
	double th, tw, kp, b, cb, work, e, cols0;
	int split;
	if (m <= 0 || n <= 0 || k <= 0)
		return 1;
	/* The chip's output tile, shrunk to the matrix where it is larger: a skinny GEMM's rows
	 * pad to the matrix unit's granularity, not to a whole tile. K pads to its granularity. A
	 * fractional m (expert tokens below one) pads to a whole row. */
	th = at_most(ck->tm, round_up(m, ck->pm));
	tw = at_most(ck->tn, round_up(n, ck->pn));
	kp = round_up(k, ck->pk);
	b = batch > 1 ? batch : 1;
	cb = batch > 1 ? ceil_pos(batch) : 1;
	work = m * n * k * b;
	/* Output tiles that leave engines idle are split along K by the libraries (split-K /
	 * stream-K / GEMV kernels: an equal share of the K loop per engine) until the engines are
	 * busy or the K chunks get short (4 x pad_k), when the GEMM is skinny (one row of tiles, as
	 * in decode) or its reduction is the long dimension (K > M: CUTLASS's split-K case,
	 * NVIDIA/cutlass@0e137486 examples/06_splitK_gemm/splitk_gemm.cu "M = 128, N = 128,
	 * K = 4096 ... a single thread-block ... split-k"). A square GEMM below one wave is not
	 * split: 1024^3 and 2048^3 on an H100 reach 17.9 and 68.4 % of peak (calibration.md 2.2),
	 * 32 and 128 of its 128x256 tiles on 132 SMs. */
	split = m <= ck->tm || k > m;
	/* A GEMM split along K, or of several waves, runs the tile of the library's set that fills
	 * the engines best: the chip's, or one of 1/8 to 7/8 of its height, of its width or half of
	 * it (cuBLAS and hipBLASLt pick a kernel per shape from tiles of 16 to 256 rows and 64 to 256
	 * columns). The set does not change with the rows, so neither does the rule that time never
	 * falls as the GEMM grows; and a larger batch does not cost a whole extra wave or row of the
	 * chip's tile. */
	cols0 = ceil_pos(n / tw);
	if (!split) {
		double rows0 = ceil_pos(m / th);
		if (rows0 * cols0 * cb < ck->units)
			return work / tiled_cap(c, th, tw, kp, at_least_1(rows0), at_least_1(cols0), cb, k, 0);
	}
	cols0 = at_least_1(cols0);
	/* Every tile's capacity is below (m + tile_m)(n + tile_n) cb kp + units tile_m tile_n kp (rows
	 * x h < m + h, waves < tiles / units + 1): below 2^52, best_cap's integers are exact. */
	if ((m + ck->tm) * (n + ck->tn) * cb * kp + ck->utt * kp <
	    4503599627370496.0) {
		e = work / best_cap(c, ck, m, n, th, tw, kp, cb, k, split, cols0);
	} else {
		/* Beyond: the loop over the set, in floating point. */
		double hs[ROOF_TILE_HS], rows[ROOF_TILE_HS], wds[2], cols[2];
		int ok_w[2] = {1, ck->ok_w};
		for (int i = 0; i < ROOF_TILE_HS; i++) {
			hs[i] = i ? tile_row(c, i) : th;
			rows[i] = num_max(1, ceil_pos(m / hs[i]));
		}
		for (int j = 0; j < 2; j++) {
			wds[j] = j ? ck->tile_w : tw;
			cols[j] = num_max(1, ceil_pos(n / wds[j]));
		}
		e = work / tiled_cap(c, th, tw, kp, rows[0], cols[0], cb, k, split);
		for (int i = 0; i < ROOF_TILE_HS; i++)
			for (int j = 0; j < 2; j++)
				if ((i || j) && hs[i] <= c->tile_m && ok_w[j])
					e = num_max(e, work / tiled_cap(c, hs[i], wds[j], kp, rows[i], cols[j], cb, k,
									   split));
	}
	/* Unsplit, it takes at least as long as the largest GEMM of these columns below one wave of
	 * the chip's tile, which runs that tile (the square GEMMs above): the rows of a larger one
	 * never run in less time than fewer rows. */
	if (!split) {
		double rows_sub = floor_pos((c->units - 1) / (cols0 * cb));
		if (rows_sub >= 1 && rows_sub * c->tile_m < m)
			e = num_min(e, work / tiled_cap(c, c->tile_m, tw, kp, rows_sub, cols0, cb, k, 0));
	}
	return e;
}

double roof_shape_eff(const hw_chip *c, double m, double n, double k, double batch)
{
	roof_chip ck;
	roof_chip_init(c, &ck);
	return roof_shape_eff_chip(c, &ck, m, n, k, batch);
}

double roof_curve(const hw_curve *c, double x)
{
	int i = 1;
	double f;
	if (c->n == 0)
		return 0;
	if (x <= c->x[0])
		return c->eff[0] * (x > 0 ? x / c->x[0] : 1);
	if (x >= c->x[c->n - 1])
		return c->eff[c->n - 1];
	while (c->x[i] < x)
		i++;
	f = log(x / c->x[i - 1]) / log(c->x[i] / c->x[i - 1]);
	return exp(log(c->eff[i - 1]) + f * (log(c->eff[i]) - log(c->eff[i - 1])));
}

/* The roofline's fraction of the peak for a GEMM of `flops` over `bytes` at a best-shape
 * fraction g, a peak and a streaming bandwidth bw (B/s): the least of g and FLOP/B x bw / peak. */
static double roof_rate_fraction(double g, double peak, double bw, double flops, double bytes)
{
	return bytes > 0 && peak > 0 ? num_min(g, flops / bytes * bw / peak) : g;
}

/* roof_rate_fraction at the rates point j of curve cv was measured at (the chip's, or
 * decode_rates) for m rows of the GEMM the point names (gn x gk, with the bytes ops.c's gemm
 * counts: weights at the precision, activations in and out at 16 bits), or of the GEMM timed
 * (flops over bytes) when the curve names none. */
static double measured_fraction(const hw_chip *c, const roof_chip *ck, const hw_curve *cv, int j, hw_prec run,
				double m, double flops, double bytes)
{
	const hw_rates *r = &c->decode_rates;
	int other = c->decode_on[0] != 0;
	double g = other ? r->gemm_eff[run] : c->gemm_eff[run];
	double peak = other ? r->peak[run] : c->peak[run];
	double bw = other ? r->hbm_bw * r->hbm_eff : ck->hbm;
	double n = cv->gn[j], k = cv->gk[j], ab = (run == HW_FP32 || run == HW_TF32) ? 4 : 2;
	if (cv->shaped) {
		flops = 2 * m * n * k;
		bytes = n * k * hw_prec_bytes(run) + (m * k + m * n) * ab;
	}
	return roof_rate_fraction(g, peak, bw, flops, bytes);
}

double roof_serve_gemm_eff(const hw_chip *c, const roof_chip *ck, hw_prec run, double m, double flops, double bytes,
			   roof_memo *sm)
{
	const hw_curve *cv = &c->decode_gemm[run];
	double e, f = 0, ay, ax;
	int lo = 0, hi = 0;
	if (cv->n == 0)
		return 0;
	e = roof_curve(cv, m);
	if (!cv->shaped && !c->decode_on[0])
		return e;
	/* The points the curve interpolates between at m (one below the first or above the last). */
	if (m >= cv->x[cv->n - 1]) {
		lo = hi = cv->n - 1;
	} else if (m > cv->x[0]) {
		while (cv->x[hi] < m)
			hi++;
		lo = hi - 1;
		f = log(m / cv->x[lo]) / log(cv->x[hi] / cv->x[lo]);
	}
	ay = roof_rate_fraction(c->gemm_eff[run], c->peak[run], ck->hbm, flops, bytes);
	if (cv->shaped && sm && sm->serve_ok && sm->serve_m == m && sm->serve_lo == lo && sm->serve_hi == hi &&
	    sm->serve_run == run) {
		ax = sm->serve_ax;
	} else {
		ax = measured_fraction(c, ck, cv, lo, run, m, flops, bytes);
		if (hi != lo && (cv->gn[hi] != cv->gn[lo] || cv->gk[hi] != cv->gk[lo]))
			ax = exp((1 - f) * log(ax) + f * log(measured_fraction(c, ck, cv, hi, run, m, flops, bytes)));
		if (cv->shaped && sm) {
			sm->serve_ok = 1;
			sm->serve_m = m;
			sm->serve_lo = lo;
			sm->serve_hi = hi;
			sm->serve_run = run;
			sm->serve_ax = ax;
		}
	}
	return ay > 0 && ax > 0 ? num_min(1, e * ay / ax) : e;
}

roof_sum roof_list(const hw_chip *c, const ops_list *l, roof_time *per_op)
{
	roof_sum s;
	roof_memo sm;
	roof_chip ck;
	roof_chip_init(c, &ck);
	roof_memo_init(&sm);
	sm.serve_ok = 0;
	memset(&s, 0, sizeof s);
	for (int i = 0; i < l->n; i++) {
		const ops_op *o = &l->op[i];
		roof_time r;
		roof_time_op(c, &ck, o, &sm, &r);
		if (per_op)
			per_op[i] = r;
		roof_add_op(&s, o, &r);
	}
	return s;
}
