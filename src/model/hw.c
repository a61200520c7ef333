/* hw: chip and system loaders (see hw.h). */
#include "model/hw.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/cfg.h"
#include "base/lim.h"
#include "base/names.h"
#include "base/os.h"

const char *const hw_prec_names[] = {"fp32", "tf32", "bf16", "fp16", "fp8", "int8", "fp4", NULL};
const char *const hw_topo_names[] = {"ring", "torus2d", "torus3d", "switch", "fullmesh",
				     "fattree", "dcn", NULL};
const char *const hw_level_names[] = {"node", "domain", "scaleout", NULL};
const char *const hw_coll_names[] = {"all_reduce", "reduce_scatter", "all_gather", "all_to_all",
				     "broadcast", NULL};
static const char *const chip_status[] = {"ga", "announced", NULL};
const char *const hw_calib_param_names[] = {"train_sustained", "gemm", NULL};
static const char *const calib_kinds[] = {"infer", "train", "measured", "prior", "all", NULL};

double hw_prec_bytes(hw_prec p)
{
	static const double b[HW_PREC_N] = {4, 4, 2, 2, 1, 1, 0.5};
	return b[p];
}

/* The precisions a workload in p runs at, nearest first: itself, then the next wider format
 * with a matrix rate. fp4 -> fp8 -> bf16 -> fp32; the two 16-bit formats stand in for each other
 * (a chip with only one of them runs both at it); int8 goes to the 16-bit floats (fp8 holds
 * fewer mantissa bits than int8); tf32 is an fp32 mode. HW_PREC_N ends each list. */
static const hw_prec run_order[HW_PREC_N][6] = {
	[HW_FP32] = {HW_FP32, HW_PREC_N},
	[HW_TF32] = {HW_TF32, HW_FP32, HW_PREC_N},
	[HW_BF16] = {HW_BF16, HW_FP16, HW_FP32, HW_PREC_N},
	[HW_FP16] = {HW_FP16, HW_BF16, HW_FP32, HW_PREC_N},
	[HW_FP8] = {HW_FP8, HW_BF16, HW_FP16, HW_FP32, HW_PREC_N},
	[HW_INT8] = {HW_INT8, HW_BF16, HW_FP16, HW_FP32, HW_PREC_N},
	[HW_FP4] = {HW_FP4, HW_FP8, HW_BF16, HW_FP16, HW_FP32, HW_PREC_N},
};

/* hw_run_prec past p itself: run_order starts each list with its own precision. */
hw_prec hw_run_prec_wider(const hw_chip *c, hw_prec p)
{
	if ((int)p < 0 || p >= HW_PREC_N)
		return HW_PREC_N;
	for (int i = 0; run_order[p][i] != HW_PREC_N; i++)
		if (c->peak[run_order[p][i]] > 0)
			return run_order[p][i];
	return HW_PREC_N;
}

hw_prec hw_widest_prec(const hw_chip *c)
{
	static const hw_prec wide[] = {HW_FP32, HW_TF32, HW_BF16, HW_FP16, HW_FP8, HW_INT8, HW_FP4};
	for (int i = 0; i < HW_PREC_N; i++)
		if (c->peak[wide[i]] > 0)
			return wide[i];
	return HW_PREC_N;
}

int hw_prec_note(const hw_chip *c, hw_prec p, char *buf, size_t len)
{
	hw_prec r = hw_run_prec(c, p);
	size_t l = 0;
	if (len > 0)
		buf[0] = 0;
	if (r == p)
		return 0;
	if (r < HW_PREC_N) {
		snprintf(buf, len, "%s has no %s matrix rate; %s is the nearest wider precision it has", c->name,
			 hw_prec_names[p], hw_prec_names[r]);
		return 1;
	}
	l = (size_t)snprintf(buf, len, "%s has no %s matrix rate nor a wider one to run a workload in %s at (its peaks:",
			     c->name, hw_prec_names[p], hw_prec_names[p]);
	for (int i = 0; i < HW_PREC_N && l < len; i++)
		if (c->peak[i] > 0)
			l += (size_t)snprintf(buf + l, len - l, " %s", hw_prec_names[i]);
	if (l < len)
		snprintf(buf + l, len - l, ")");
	return 1;
}

#define F_NUM(sec, key, st, member, unit, req, lo, hi) \
	{sec, key, CFG_NUM, unit, req, lo, hi, offsetof(st, member), 0, NULL}
#define F_INT(sec, key, st, member, req, lo, hi) \
	{sec, key, CFG_INT, UNITS_NONE, req, lo, hi, offsetof(st, member), 0, NULL}
#define F_STR(sec, key, st, member, req) \
	{sec, key, CFG_STR, UNITS_NONE, req, 1, 0, offsetof(st, member), sizeof(((st *)0)->member), NULL}
#define F_DATE(sec, key, st, member) \
	{sec, key, CFG_DATE, UNITS_NONE, 1, 1, 0, offsetof(st, member), sizeof(((st *)0)->member), NULL}
#define F_ENUM(sec, key, st, member, req, ch) \
	{sec, key, CFG_ENUM, UNITS_NONE, req, 1, 0, offsetof(st, member), 0, ch}
#define F_BOOL(sec, key, st, member) \
	{sec, key, CFG_BOOL, UNITS_NONE, 0, 1, 0, offsetof(st, member), 0, NULL}
#define F_SRC(sec, st, member) \
	F_STR(sec, "source", st, member.source, 1), F_DATE(sec, "as_of", st, member.as_of), \
	F_STR(sec, "note", st, member.note, 0)

typedef struct chip_raw {
	hw_chip c;
	int status;
	double eff_default;
	double eff[HW_PREC_N];
	char curve[HW_PREC_N][HW_TEXT_MAX];  /* [decode] gemm_<prec> = "M:eff, M:eff@NxK, ..." */
	char measured_on[HW_NAME_MAX];       /* [decode] measured_on */
} chip_raw;

#define PEAK(key, idx) F_NUM("peak", key, chip_raw, c.peak[idx], UNITS_FLOPS, 0, 1e9, 1e18)
#define EFF(key, idx) F_NUM("efficiency", key, chip_raw, eff[idx], UNITS_NONE, 0, 0.01, 1.0)

static const cfg_field chip_fields[] = {
	F_STR("chip", "name", chip_raw, c.name, 1),
	F_STR("chip", "display", chip_raw, c.display, 1),
	F_STR("chip", "vendor", chip_raw, c.vendor, 1),
	F_STR("chip", "family", chip_raw, c.family, 0),
	F_ENUM("chip", "status", chip_raw, status, 1, chip_status),
	F_INT("chip", "units", chip_raw, c.units, 1, 1, 100000),
	F_INT("chip", "tile_m", chip_raw, c.tile_m, 1, 1, 65536),
	F_INT("chip", "tile_n", chip_raw, c.tile_n, 1, 1, 65536),
	F_INT("chip", "pad_m", chip_raw, c.pad_m, 1, 1, 65536),
	F_INT("chip", "pad_n", chip_raw, c.pad_n, 1, 1, 65536),
	F_INT("chip", "pad_k", chip_raw, c.pad_k, 1, 1, 65536),
	F_INT("chip", "ranks_per_chip", chip_raw, c.ranks_per_chip, 0, 1, 64),
	F_SRC("chip", chip_raw, c.src_chip),
	PEAK("fp32", HW_FP32), PEAK("tf32", HW_TF32), PEAK("bf16", HW_BF16), PEAK("fp16", HW_FP16),
	PEAK("fp8", HW_FP8), PEAK("int8", HW_INT8), PEAK("fp4", HW_FP4),
	F_NUM("peak", "vector", chip_raw, c.vector, UNITS_FLOPS, 0, 1e9, 1e18),
	F_SRC("peak", chip_raw, c.src_peak),
	F_NUM("memory", "hbm", chip_raw, c.hbm, UNITS_BYTES, 1, 1e6, 1e15),
	F_NUM("memory", "hbm_bw", chip_raw, c.hbm_bw, UNITS_BW, 1, 1e6, 1e15),
	F_NUM("memory", "sram", chip_raw, c.sram, UNITS_BYTES, 0, 0, 1e12),
	F_SRC("memory", chip_raw, c.src_memory),
	F_NUM("efficiency", "gemm", chip_raw, eff_default, UNITS_NONE, 1, 0.01, 1.0),
	EFF("gemm_fp32", HW_FP32), EFF("gemm_tf32", HW_TF32), EFF("gemm_fp8", HW_FP8),
	EFF("gemm_int8", HW_INT8), EFF("gemm_fp4", HW_FP4),
	F_NUM("efficiency", "hbm", chip_raw, c.hbm_eff, UNITS_NONE, 1, 0.01, 1.0),
	F_NUM("efficiency", "attn", chip_raw, c.attn_eff, UNITS_NONE, 0, 0.01, 1.0),
	F_NUM("efficiency", "op_overhead", chip_raw, c.op_overhead, UNITS_TIME, 0, 0, 1e-3),
	F_NUM("efficiency", "layer_overhead", chip_raw, c.layer_overhead, UNITS_TIME, 0, 0, 1e-2),
	F_NUM("kernels", "elem_fwd", chip_raw, c.elem_eff[0][0], UNITS_NONE, 0, 0.01, 1.0),
	F_NUM("kernels", "elem_bwd", chip_raw, c.elem_eff[0][1], UNITS_NONE, 0, 0.01, 1.0),
	F_NUM("kernels", "eager_fwd", chip_raw, c.elem_eff[1][0], UNITS_NONE, 0, 0.01, 1.0),
	F_NUM("kernels", "eager_bwd", chip_raw, c.elem_eff[1][1], UNITS_NONE, 0, 0.01, 1.0),
	F_NUM("kernels", "overlap_slowdown", chip_raw, c.overlap_slowdown, UNITS_NONE, 0, 0, 0.95),
	F_SRC("efficiency", chip_raw, c.src_eff),
	F_NUM("attention", "flash_fwd", chip_raw, c.attn_k[HW_ATTN_FLASH][0], UNITS_NONE, 1, 0.01, 1.0),
	F_NUM("attention", "flash_bwd", chip_raw, c.attn_k[HW_ATTN_FLASH][1], UNITS_NONE, 1, 0.01, 1.0),
	F_NUM("attention", "flash_seq_half", chip_raw, c.attn_seq_half[HW_ATTN_FLASH], UNITS_NONE, 0, 0, 1e6),
	F_NUM("attention", "flash2_fwd", chip_raw, c.attn_k[HW_ATTN_FLASH2][0], UNITS_NONE, 0, 0.01, 1.0),
	F_NUM("attention", "flash2_bwd", chip_raw, c.attn_k[HW_ATTN_FLASH2][1], UNITS_NONE, 0, 0.01, 1.0),
	F_NUM("attention", "flash2_seq_half", chip_raw, c.attn_seq_half[HW_ATTN_FLASH2], UNITS_NONE, 0, 0, 1e6),
	F_SRC("kernels", chip_raw, c.src_kernels),
	F_SRC("attention", chip_raw, c.src_attention),
	F_STR("decode", "gemm_bf16", chip_raw, curve[HW_BF16], 0),
	F_STR("decode", "gemm_fp16", chip_raw, curve[HW_FP16], 0),
	F_STR("decode", "gemm_fp8", chip_raw, curve[HW_FP8], 0),
	F_STR("decode", "gemm_int8", chip_raw, curve[HW_INT8], 0),
	F_STR("decode", "gemm_fp4", chip_raw, curve[HW_FP4], 0),
	F_STR("decode", "measured_on", chip_raw, measured_on, 0),
	F_NUM("decode", "attn_bw", chip_raw, c.decode_attn_bw, UNITS_NONE, 0, 0.01, 1.0),
	F_NUM("decode", "attn_floor", chip_raw, c.decode_attn_floor, UNITS_TIME, 0, 0, 1e-3),
	F_SRC("decode", chip_raw, c.src_decode),
	F_NUM("power", "tdp", chip_raw, c.tdp, UNITS_POWER, 1, 1, 1e5),
	F_SRC("power", chip_raw, c.src_power),
};

static const char *const chip_sections[] = {"chip", "peak", "memory", "efficiency", NULL};

/* One dimension of a point's GEMM shape at *p: decimal digits, a whole number in 1..LIM_WIDTH
 * (not strtod's inf, nan, hex or exponents: "0x10" is not 16). Returns it and moves *p past
 * it, or 0 (p unmoved) if there is none. */
static double shape_dim(const char **p)
{
	const char *q = *p;
	double v = 0;
	while (*q >= '0' && *q <= '9' && v <= LIM_WIDTH)
		v = v * 10 + (*q++ - '0');
	if (q == *p || (*q >= '0' && *q <= '9') || !(v >= 1 && v <= LIM_WIDTH))
		return 0;
	*p = q;
	return v;
}

/* "1:0.003, 128:0.33, 1024:0.71" into c: x increasing, 1..LIM_TOKENS, eff in (0, 1]; each
 * point may name the GEMM it was measured on, "128:0.33@43008x5376" (N x K, whole numbers in
 * 1..LIM_WIDTH), and then every point does. Returns 0 or -1 with why set. */
static int parse_curve(const char *s, hw_curve *c, char *why, size_t n)
{
	const char *p = s;
	c->n = 0;
	c->shaped = 0;
	while (*p) {
		char *end;
		double x, e, gn = 0, gk = 0;
		while (*p == ' ' || *p == ',')
			p++;
		if (!*p)
			break;
		x = strtod(p, &end);
		if (end == p || *end != ':') {
			snprintf(why, n, "'%s' is not a list of M:efficiency or M:efficiency@NxK", s);
			return -1;
		}
		p = end + 1;
		e = strtod(p, &end);
		if (end == p || !(e > 0 && e <= 1) || !(x >= 1 && x <= LIM_TOKENS) || (c->n && x <= c->x[c->n - 1])) {
			snprintf(why, n, "point %d: M must be 1 to %d and increasing, efficiency in (0, 1]", c->n + 1,
				 LIM_TOKENS);
			return -1;
		}
		p = end;
		if (*p == '@') {
			const char *q = p + 1;
			gn = shape_dim(&q);
			if (gn > 0 && (*q == 'x' || *q == 'X')) {
				q++;
				gk = shape_dim(&q);
			}
			if (!(gn > 0) || !(gk > 0) || (*q && *q != ',' && *q != ' ')) {
				snprintf(why, n, "point %d: the shape after '@' must be NxK, whole numbers from 1 to %d",
					 c->n + 1, LIM_WIDTH);
				return -1;
			}
			p = q;
		}
		if (c->n && (gn > 0) != c->shaped) {
			snprintf(why, n, "point %d: every point names the GEMM it was measured on (@NxK) or none does",
				 c->n + 1);
			return -1;
		}
		if (c->n == HW_CURVE_MAX) {
			snprintf(why, n, "at most %d points", HW_CURVE_MAX);
			return -1;
		}
		c->shaped = gn > 0;
		c->x[c->n] = x;
		c->eff[c->n] = e;
		c->gn[c->n] = gn;
		c->gk[c->n++] = gk;
	}
	if (c->n == 0) {
		snprintf(why, n, "no points");
		return -1;
	}
	return 0;
}

void hw_file_stem(const char *path, char *out, size_t len)
{
	const char *b = strrchr(path, '/');
	const char *dot;
	size_t n;
	b = b ? b + 1 : path;
	dot = strrchr(b, '.');
	n = dot ? (size_t)(dot - b) : strlen(b);
	if (n >= len)
		n = len - 1;
	memcpy(out, b, n);
	out[n] = '\0';
}

static int check_name(const cfg_doc *d, const char *section, const char *name, err *e)
{
	char stem[HW_NAME_MAX];
	const cfg_entry *en = cfg_find(d, section, "name");
	hw_file_stem(d->path, stem, sizeof stem);
	if (strcmp(stem, name) != 0)
		return err_at(e, d->path, en ? en->line : 0, "name: '%s' differs from the file name '%s'",
			      name, stem);
	return 0;
}

static int load_chip(const char *path, hw_chip *out, err *e, int follow);

/* [decode] measured_on = NAME: the chip file NAME.ini beside path, whose rates c's GEMM points
 * were measured at (its own measured_on is not followed), as the file gives them (no
 * calibration applied). Its tile set must be c's (the points' shapes are weighed with c's
 * tiles), and it must have a peak for each precision c has a curve of. Returns 0 or an error
 * at line. */
static int load_measured_on(const char *path, int line, const char *name, hw_chip *c, err *e)
{
	char ref[HW_NAME_MAX + 8], other[CFG_PATH_MAX];
	hw_chip *m;
	int rc;
	if (strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, ".."))
		return err_at(e, path, line, "measured_on: '%s' is not a chip name (the stem of a file beside this one)", name);
	if (!(m = malloc(sizeof *m)))
		return err_at(e, path, line, "measured_on: out of memory");
	snprintf(ref, sizeof ref, "%s.ini", name);
	names_relative(path, ref, other, sizeof other);
	rc = load_chip(other, m, e, 0);
	if (rc != 0) {
		char inner[ERR_MSG_MAX];
		snprintf(inner, sizeof inner, "%s", e ? e->msg : "");
		err_at(e, path, line, "measured_on: %s", inner);
	} else if (m->units != c->units || m->tile_m != c->tile_m || m->tile_n != c->tile_n ||
		   m->pad_m != c->pad_m || m->pad_n != c->pad_n || m->pad_k != c->pad_k) {
		rc = err_at(e, path, line,
			    "measured_on: chip %s has another tile set than %s (units, tile_m, tile_n, pad_m, pad_n, pad_k)", name,
			    c->name);
	} else {
		for (int p = 0; p < HW_PREC_N && rc == 0; p++)
			if (c->decode_gemm[p].n && !(m->peak[p] > 0))
				rc = err_at(e, path, line, "measured_on: chip %s has no %s peak for gemm_%s", name,
					    hw_prec_names[p], hw_prec_names[p]);
	}
	if (rc == 0) {
		for (int p = 0; p < HW_PREC_N; p++) {
			c->decode_rates.peak[p] = m->peak[p];
			c->decode_rates.gemm_eff[p] = m->gemm_eff[p];
		}
		c->decode_rates.hbm_bw = m->hbm_bw;
		c->decode_rates.hbm_eff = m->hbm_eff;
		snprintf(c->decode_on, sizeof c->decode_on, "%s", name);
	}
	free(m);
	return rc;
}

int hw_load_chip(const char *path, hw_chip *out, err *e)
{
	return load_chip(path, out, e, 1);
}

static int load_chip(const char *path, hw_chip *out, err *e, int follow)
{
	cfg_doc d;
	chip_raw r;
	int rc;

	memset(&r, 0, sizeof r);
	if (cfg_load(&d, path, e) != 0)
		return ERR_DATA;
	rc = cfg_extract(&d, chip_fields, (int)(sizeof chip_fields / sizeof chip_fields[0]),
			 chip_sections, &r, e);
	if (rc == 0)
		rc = check_name(&d, "chip", r.c.name, e);
	if (rc == 0 && r.c.peak[HW_BF16] <= 0 && r.c.peak[HW_FP16] <= 0 && r.c.peak[HW_FP32] <= 0) {
		int line = 0;
		cfg_has_section(&d, "peak", &line);
		rc = err_at(e, path, line, "peak: chip %s gives none of bf16, fp16, fp32, the rates every precision falls back to",
			    r.c.name);
	}
	if (rc == 0) {
		r.c.announced = r.status == 1;
		if (!r.c.family[0])
			snprintf(r.c.family, sizeof r.c.family, "%s", r.c.name);
		if (r.c.ranks_per_chip == 0)
			r.c.ranks_per_chip = 1;
		for (int p = 0; p < HW_PREC_N; p++)
			r.c.gemm_eff[p] = r.eff[p] > 0 ? r.eff[p] : r.eff_default;
		/* Absent attention figures: the flash class is the chip's attn (else its GEMM
		 * fraction), the flash2 class is the flash class. */
		if (r.c.attn_k[HW_ATTN_FLASH][0] <= 0) {
			double a = r.c.attn_eff > 0 ? r.c.attn_eff : 0;
			r.c.attn_k[HW_ATTN_FLASH][0] = r.c.attn_k[HW_ATTN_FLASH][1] = a;
		}
		for (int k = 0; k < 2; k++)
			if (r.c.attn_k[HW_ATTN_FLASH2][k] <= 0)
				r.c.attn_k[HW_ATTN_FLASH2][k] = r.c.attn_k[HW_ATTN_FLASH][k];
		if (r.c.attn_seq_half[HW_ATTN_FLASH2] <= 0)
			r.c.attn_seq_half[HW_ATTN_FLASH2] = r.c.attn_seq_half[HW_ATTN_FLASH];
		for (int f = 0; f < 2; f++)
			for (int k = 0; k < 2; k++)
				if (r.c.elem_eff[f][k] <= 0)
					r.c.elem_eff[f][k] = r.c.hbm_eff;
		r.c.clock_scale = 1;
		r.c.train_sustained = 1;
		snprintf(r.c.path, sizeof r.c.path, "%s", path);
		for (int p = 0; p < HW_PREC_N && rc == 0; p++) {
			char why[128], key[16];
			snprintf(key, sizeof key, "gemm_%s", hw_prec_names[p]);
			if (r.curve[p][0] && parse_curve(r.curve[p], &r.c.decode_gemm[p], why, sizeof why) != 0) {
				const cfg_entry *en = cfg_find(&d, "decode", key);
				rc = err_at(e, path, en ? en->line : 0, "%s: %s", key, why);
			}
		}
		if (rc == 0 && r.measured_on[0]) {
			const cfg_entry *en = cfg_find(&d, "decode", "measured_on");
			int any = 0;
			for (int p = 0; p < HW_PREC_N; p++)
				any |= r.c.decode_gemm[p].n > 0;
			if (!any)
				rc = err_at(e, path, en ? en->line : 0, "measured_on: [decode] gives no gemm_<precision> curve");
			else if (follow && strcmp(r.measured_on, r.c.name) != 0)
				rc = load_measured_on(path, en ? en->line : 0, r.measured_on, &r.c, e);
		}
	}
	if (rc == 0) {
		*out = r.c;
	}
	cfg_release(&d);
	return rc;
}

typedef struct sys_raw {
	hw_system s;
	hw_level lv[HW_LEVELS_MAX];
	char dims[HW_LEVELS_MAX][32];
} sys_raw;

#define LEVEL_FIELDS(sec, i) \
	F_INT(sec, "chips", sys_raw, lv[i].chips, 1, 1, LIM_CHIPS), \
	F_ENUM(sec, "topology", sys_raw, lv[i].topo, 1, hw_topo_names), \
	F_STR(sec, "dims", sys_raw, dims[i], 0), \
	F_NUM(sec, "bw", sys_raw, lv[i].bw, UNITS_BW, 1, 1e6, 1e15), \
	F_NUM(sec, "latency", sys_raw, lv[i].latency, UNITS_TIME, 1, 1e-9, 1e-1), \
	F_BOOL(sec, "in_network_reduction", sys_raw, lv[i].in_network_reduction), \
	F_NUM(sec, "bw_eff", sys_raw, lv[i].bw_eff, UNITS_NONE, 0, 0.05, 1.0), \
	F_NUM(sec, "inr_eff", sys_raw, lv[i].inr_eff, UNITS_NONE, 0, 0.05, 1.0), \
	F_NUM(sec, "call_floor", sys_raw, lv[i].call_floor, UNITS_TIME, 0, 0, 1e-2), \
	F_NUM(sec, "p2p_floor", sys_raw, lv[i].p2p_floor, UNITS_TIME, 0, 0, 1e-2), \
	F_NUM(sec, "channel_bw", sys_raw, lv[i].channel_bw, UNITS_BW, 0, 1e6, 1e15), \
	F_NUM(sec, "oversubscription", sys_raw, lv[i].oversubscription, UNITS_NONE, 0, 1, 100), \
	F_SRC(sec, sys_raw, lv[i].src)

static const cfg_field sys_fields[] = {
	F_STR("system", "name", sys_raw, s.name, 1),
	F_STR("system", "display", sys_raw, s.display, 1),
	F_STR("system", "provider", sys_raw, s.provider, 1),
	F_STR("system", "chip", sys_raw, s.chip_name, 1),
	F_STR("system", "instance", sys_raw, s.instance, 0),
	F_STR("system", "no_public_price", sys_raw, s.no_public_price, 0),
	F_NUM("system", "power_limit", sys_raw, s.power_limit, UNITS_POWER, 0, 1, 1e5),
	F_STR("system", "no_capex", sys_raw, s.no_capex, 0),
	F_STR("system", "no_power", sys_raw, s.no_power, 0),
	F_SRC("system", sys_raw, s.src),
	F_NUM("power", "rated", sys_raw, s.power_rated, UNITS_POWER, 1, 1, 1e8),
	F_INT("power", "chips", sys_raw, s.power_chips, 0, 1, LIM_CHIPS),
	F_SRC("power", sys_raw, s.src_power),
	F_NUM("capex", "usd", sys_raw, s.capex_usd, UNITS_NONE, 1, 1, 1e10),
	F_INT("capex", "chips", sys_raw, s.capex_chips, 0, 1, LIM_CHIPS),
	F_SRC("capex", sys_raw, s.src_capex),
	LEVEL_FIELDS("node", 0),
	LEVEL_FIELDS("domain", 1),
	LEVEL_FIELDS("scaleout", 2),
};

static const char *const sys_sections[] = {"system", "node", NULL};

/* "4x4x4" into dims; returns the product, or -1 if it is not such a list or the product is
 * more than LIM_CHIPS. */
static int parse_dims(const char *s, int dims[3])
{
	int n = 0;
	long long prod = 1;
	const char *p = s;
	while (*p) {
		char *end;
		long v;
		if (*p < '0' || *p > '9')
			return -1;
		v = strtol(p, &end, 10);
		if (end == p || v <= 0 || v > LIM_CHIPS || n == 3)
			return -1;
		dims[n++] = (int)v;
		prod *= v;
		if (prod > LIM_CHIPS)
			return -1;
		p = end;
		if (*p == 'x' || *p == 'X')
			p++;
		else if (*p)
			return -1;
	}
	return n ? (int)prod : -1;
}

static int check_levels(const cfg_doc *d, sys_raw *r, err *e)
{
	int prev = 0;
	for (int i = 0; i < HW_LEVELS_MAX; i++) {
		int line = 0;
		hw_level *lv = &r->lv[i];
		if (!cfg_has_section(d, hw_level_names[i], &line))
			continue;
		lv->kind = (hw_level_kind)i;
		if (lv->oversubscription == 0)
			lv->oversubscription = 1;
		if (lv->bw_eff == 0)
			lv->bw_eff = 1;
		if (lv->inr_eff == 0)
			lv->inr_eff = lv->bw_eff;
		if (lv->p2p_floor == 0)
			lv->p2p_floor = lv->call_floor;
		if (r->dims[i][0]) {
			const cfg_entry *en = cfg_find(d, hw_level_names[i], "dims");
			int prod = parse_dims(r->dims[i], lv->dims);
			if (prod < 0)
				return err_at(e, d->path, en->line, "dims: '%s' is not like 4x4 or 16x16x16 (at most "
					      "%d chips)", r->dims[i], LIM_CHIPS);
			/* A domain's dims may describe the whole domain or the ring of nodes. */
			if (lv->kind != HW_LEVEL_SCALEOUT && prod != lv->chips &&
			    !(lv->kind == HW_LEVEL_DOMAIN && prev && (long long)prod * prev == lv->chips))
				return err_at(e, d->path, en->line, "dims: %s makes %d chips, [%s] has %d",
					      r->dims[i], prod, hw_level_names[i], lv->chips);
		} else if (lv->topo == HW_TOPO_TORUS2D || lv->topo == HW_TOPO_TORUS3D) {
			return err_at(e, d->path, line, "dims: a torus needs dims (e.g. 4x4)");
		}
		if (prev && lv->kind == HW_LEVEL_DOMAIN && lv->chips % prev != 0)
			return err_at(e, d->path, line, "chips: %d is not a multiple of the %d chips below",
				      lv->chips, prev);
		if (prev && lv->chips < prev)
			return err_at(e, d->path, line, "chips: %d is fewer than the %d chips below",
				      lv->chips, prev);
		prev = lv->chips;
		r->s.levels[r->s.nlevels++] = *lv;
	}
	return 0;
}

/* hw_load_system with what every system of models_dir shares taken from (and kept in) cache, may
 * be NULL. */
static int load_system(const char *path, const char *models_dir, hw_cache *cache, hw_system *out, err *e);

int hw_load_system(const char *path, const char *models_dir, hw_system *out, err *e)
{
	return load_system(path, models_dir, NULL, out, e);
}

/* The cache of models_dir (forgotten when it is another folder's). */
static hw_cache *cache_of(hw_cache *c, const char *models_dir)
{
	if (!c)
		return NULL;
	if (strcmp(c->models_dir, models_dir) != 0) {
		c->have_algos = c->have_calibs = 0;
		snprintf(c->models_dir, sizeof c->models_dir, "%s", models_dir);
	}
	return c;
}

static int load_system(const char *path, const char *models_dir, hw_cache *cache, hw_system *out, err *e)
{
	cfg_doc d;
	sys_raw *r = calloc(1, sizeof *r);
	char chip_path[CFG_PATH_MAX + 64];
	int rc;

	if (!r)
		return err_set(e, ERR_DATA, "out of memory");
	if (cfg_load(&d, path, e) != 0) {
		free(r);
		return ERR_DATA;
	}
	rc = cfg_extract(&d, sys_fields, (int)(sizeof sys_fields / sizeof sys_fields[0]),
			 sys_sections, r, e);
	if (rc == 0)
		rc = check_name(&d, "system", r->s.name, e);
	if (rc == 0)
		rc = check_levels(&d, r, e);
	if (rc == 0) {
		/* [power] and [capex] price `chips` chips, one node when not said. */
		if (cfg_has_section(&d, "power", NULL) && !r->s.power_chips)
			r->s.power_chips = hw_node_chips(&r->s);
		if (cfg_has_section(&d, "capex", NULL) && !r->s.capex_chips)
			r->s.capex_chips = hw_node_chips(&r->s);
		if (r->s.capex_usd > 0 && r->s.no_capex[0]) {
			const cfg_entry *en = cfg_find(&d, "system", "no_capex");
			rc = err_at(e, d.path, en ? en->line : 0, "no_capex: the file has a [capex] section");
		}
		if (rc == 0 && r->s.power_rated > 0 && r->s.no_power[0]) {
			const cfg_entry *en = cfg_find(&d, "system", "no_power");
			rc = err_at(e, d.path, en ? en->line : 0, "no_power: the file has a [power] section");
		}
	}
	if (rc == 0) {
		size_t cl = strlen(r->s.chip_name);
		/* A path in the file is taken from the file's folder; a name from models/hw/chips. */
		if (strchr(r->s.chip_name, '/') || (cl > 4 && !strcmp(r->s.chip_name + cl - 4, ".ini")))
			names_relative(path, r->s.chip_name, chip_path, sizeof chip_path);
		else
			snprintf(chip_path, sizeof chip_path, "%s/hw/chips/%s.ini", models_dir,
				 r->s.chip_name);
		rc = hw_load_chip(chip_path, &r->s.chip, e);
		if (rc != 0) {
			const cfg_entry *en = cfg_find(&d, "system", "chip");
			char inner[ERR_MSG_MAX];
			snprintf(inner, sizeof inner, "%s", e ? e->msg : "");
			err_at(e, path, en ? en->line : 0, "chip: %s", inner);
		}
	}
	if (rc == 0 && r->s.power_limit > 0 && r->s.chip.tdp > 0 && r->s.power_limit < r->s.chip.tdp) {
		/* Dynamic power ~ f·V² with V roughly proportional to f in the DVFS range, so the
		 * sustained clock under a cap P scales as (P / TDP)^(1/3). Cross-check: the H100 NVL
		 * datasheet (400 W) lists 835 dense bf16 TFLOP/s against the SXM's 989 at 700 W,
		 * 0.84; (400/700)^(1/3) = 0.83. */
		r->s.chip.clock_scale = cbrt(r->s.power_limit / r->s.chip.tdp);
	}
	cache = cache_of(cache, models_dir);
	if (rc == 0 && cache && cache->have_algos) {
		r->s.algos = cache->algos;
	} else if (rc == 0) {
		char algo_path[CFG_PATH_MAX + 64];
		snprintf(algo_path, sizeof algo_path, "%s/hw/collectives.ini", models_dir);
		rc = hw_load_algos(algo_path, &r->s.algos, e);
		if (rc == 0 && cache) {
			cache->algos = r->s.algos;
			cache->have_algos = 1;
		}
	}
	if (rc == 0) {
		hw_calibs *cs = cache && cache->have_calibs ? &cache->calibs : malloc(sizeof *cs);
		if (!cs)
			rc = err_set(e, ERR_DATA, "out of memory");
		else if ((cache && cs == &cache->calibs) || (rc = hw_load_calibs(models_dir, cs, e)) == 0) {
			if (cs->read)
				snprintf(r->s.calib_path, sizeof r->s.calib_path, "%s", cs->path);
			for (int i = 0; i < cs->n; i++)
				if (!strcmp(cs->c[i].family, r->s.chip.family)) {
					size_t l = strlen(r->s.calib);
					hw_calib_apply(&cs->c[i], cs->c[i].value, &r->s.chip);
					snprintf(r->s.calib + l, sizeof r->s.calib - l, "%s%s %s = %g%s%s%s", l ? ", " : "",
						 cs->c[i].name, hw_calib_param_names[cs->c[i].param], cs->c[i].value,
						 cs->c[i].train == HW_CAL_KIND_PRIOR ? " (uncalibrated: borrowed from " : "",
						 cs->c[i].train == HW_CAL_KIND_PRIOR ? cs->c[i].from : "",
						 cs->c[i].train == HW_CAL_KIND_PRIOR ? ")" : "");
				}
			if (cache && cs != &cache->calibs) {
				cache->calibs = *cs;
				cache->have_calibs = 1;
			}
		}
		if (!cache || cs != &cache->calibs)
			free(cs);
	}
	if (rc == 0) {
		snprintf(r->s.path, sizeof r->s.path, "%s", path);
		*out = r->s;
	}
	cfg_release(&d);
	free(r);
	return rc;
}

/* "2(n-1)/n", "log2(n)", "0.25(n-1)/n", "1" into f. Returns 0 or -1. */
static int parse_form(const char *s, hw_form *f)
{
	char *end;
	double a = strtod(s, &end);
	if (end == s)
		a = 1;
	while (*end == ' ')
		end++;
	f->a = a;
	if (*end == '\0' && end != s) {
		f->kind = HW_F_CONST;
		return 0;
	}
	if (!strcmp(end, "log2(n)"))
		f->kind = HW_F_LOG2N;
	else if (!strcmp(end, "(n-1)"))
		f->kind = HW_F_NM1;
	else if (!strcmp(end, "(n-1)/n"))
		f->kind = HW_F_NM1_N;
	else
		return -1;
	return 0;
}

int hw_load_algos(const char *path, hw_algos *out, err *e)
{
	cfg_doc d;
	int rc = 0;
	memset(out, 0, sizeof *out);
	if (cfg_load(&d, path, e) != 0)
		return ERR_DATA;
	/* Algorithm sections first, then topology lists that name them. */
	for (int i = 0; i < d.nsections && rc == 0; i++) {
		const char *name = d.sections[i].name;
		hw_algo *a;
		if (!strncmp(name, "topology.", 9))
			continue;
		if (out->nalgo == HW_ALGOS_MAX) {
			rc = err_at(e, path, d.sections[i].line, "too many algorithms (at most %d)", HW_ALGOS_MAX);
			break;
		}
		a = &out->algo[out->nalgo++];
		snprintf(a->name, sizeof a->name, "%s", name);
		a->in_network = !strcmp(name, "switch_reduce");
		for (int j = 0; j < d.n && rc == 0; j++) {
			const cfg_entry *en = &d.entries[j];
			int op = -1;
			char steps[64], bw[64];
			if (strcmp(en->section, name))
				continue;
			if (!strcmp(en->key, "source")) {
				snprintf(a->src.source, sizeof a->src.source, "%s", en->value);
				continue;
			}
			if (!strcmp(en->key, "as_of")) {
				snprintf(a->src.as_of, sizeof a->src.as_of, "%s", en->value);
				continue;
			}
			if (!strcmp(en->key, "note"))
				continue;
			if (!strcmp(en->key, "p2p")) {
				if (strcmp(en->value, "0") && strcmp(en->value, "1")) {
					rc = err_at(e, path, en->line, "p2p: '%s' is not 0 or 1", en->value);
					break;
				}
				a->p2p = en->value[0] == '1';
				continue;
			}
			for (int k = 0; k < HW_COLL_N; k++)
				if (!strcmp(en->key, hw_coll_names[k]))
					op = k;
			if (op < 0) {
				rc = err_at(e, path, en->line, "%s: unknown collective in [%s]", en->key, name);
				break;
			}
			if (sscanf(en->value, " %63[^:]: %63[^\n]", steps, bw) != 2) {
				rc = err_at(e, path, en->line, "%s: expected 'STEPS : BANDWIDTH_FACTOR'", en->key);
				break;
			}
			for (char *p = steps + strlen(steps); p > steps && p[-1] == ' '; p--)
				p[-1] = '\0';
			if (parse_form(steps, &a->steps[op]) || parse_form(bw, &a->bw[op])) {
				rc = err_at(e, path, en->line,
					    "%s: '%s' is not a form (1, log2(n), (n-1), (n-1)/n, each with a factor)",
					    en->key, en->value);
				break;
			}
			a->has[op] = 1;
		}
		if (rc == 0 && (!a->src.source[0] || !a->src.as_of[0]))
			rc = err_at(e, path, d.sections[i].line, "[%s] needs source and as_of", name);
	}
	for (int i = 0; i < d.n && rc == 0; i++) {
		const cfg_entry *en = &d.entries[i];
		int topo = -1;
		char buf[256], *save = NULL;
		if (strncmp(en->section, "topology.", 9))
			continue;
		for (int k = 0; k < HW_TOPO_N; k++)
			if (!strcmp(en->section + 9, hw_topo_names[k]))
				topo = k;
		if (topo < 0 || strcmp(en->key, "algorithms")) {
			rc = err_at(e, path, en->line, "%s: unknown topology or key in [%s]", en->key, en->section);
			break;
		}
		snprintf(buf, sizeof buf, "%s", en->value);
		for (char *t = strtok_r(buf, " ", &save); t && rc == 0; t = strtok_r(NULL, " ", &save)) {
			int found = -1;
			for (int k = 0; k < out->nalgo; k++)
				if (!strcmp(out->algo[k].name, t))
					found = k;
			if (found < 0 || out->ntopo[topo] == HW_ALGOS_MAX)
				rc = err_at(e, path, en->line, "algorithms: unknown algorithm '%s'", t);
			else
				out->topo[topo][out->ntopo[topo]++] = found;
		}
	}
	for (int k = 0; k < HW_TOPO_N && rc == 0; k++)
		if (out->ntopo[k] == 0)
			rc = err_at(e, path, 0, "no algorithms for topology %s", hw_topo_names[k]);
	snprintf(out->path, sizeof out->path, "%s", path);
	cfg_release(&d);
	return rc;
}

void hw_calib_apply(const hw_calib *c, double v, hw_chip *ch)
{
	if (strcmp(c->family, ch->family) != 0)
		return;
	switch (c->param) {
	case HW_CAL_TRAIN_SUSTAINED:
		ch->train_sustained = v;
		break;
	case HW_CAL_GEMM:
		ch->gemm_eff[HW_BF16] = ch->gemm_eff[HW_FP16] = v;
		break;
	case HW_CAL_N:
		break;
	}
}

int hw_load_calibs(const char *models_dir, hw_calibs *out, err *e)
{
	cfg_doc d;
	int rc = 0;
	memset(out, 0, sizeof *out);
	snprintf(out->path, sizeof out->path, "%s/calibration.ini", models_dir);
	/* Only whether it is there: cfg_load opens it (and refuses a named pipe without waiting). */
	if (access(out->path, F_OK) != 0)
		return 0;
	if (cfg_load(&d, out->path, e) != 0)
		return ERR_DATA;
	out->read = 1;
	for (int s = 0; s < d.nsections && rc == 0; s++) {
		hw_calib *c;
		cfg_field fields[] = {
			F_ENUM("", "parameter", hw_calib, param, 1, hw_calib_param_names),
			F_STR("", "family", hw_calib, family, 1),
			F_ENUM("", "kind", hw_calib, train, 1, calib_kinds),
			F_STR("", "frameworks", hw_calib, frameworks, 0),
			F_STR("", "from", hw_calib, from, 0),
			F_NUM("", "value", hw_calib, value, UNITS_NONE, 0, 0.01, 10),
			F_NUM("", "prior", hw_calib, prior, UNITS_NONE, 1, 0.01, 10),
			F_NUM("", "min", hw_calib, lo, UNITS_NONE, 1, 0.01, 10),
			F_NUM("", "max", hw_calib, hi, UNITS_NONE, 1, 0.01, 10),
			F_SRC("", hw_calib, src),
		};
		int nf = (int)(sizeof fields / sizeof fields[0]);
		if (out->n == HW_CALIB_MAX) {
			rc = err_at(e, out->path, d.sections[s].line, "more than %d calibrations", HW_CALIB_MAX);
			break;
		}
		c = &out->c[out->n];
		memset(c, 0, sizeof *c);
		snprintf(c->name, sizeof c->name, "%s", d.sections[s].name);
		rc = cfg_extract_section(&d, s, fields, nf, c, e);
		if (rc == 0 && (c->train == HW_CAL_KIND_PRIOR) == (cfg_find(&d, d.sections[s].name, "value") != NULL))
			rc = err_at(e, out->path, d.sections[s].line, "[%s]: value: %s", c->name,
				    c->train == HW_CAL_KIND_PRIOR ? "a prior's value is its from entry's share, not given"
								  : "missing");
		if (rc == 0 && (c->train == HW_CAL_KIND_PRIOR) != (c->from[0] != '\0'))
			rc = err_at(e, out->path, d.sections[s].line, "[%s]: %s", c->name,
				    c->from[0] ? "from: only a kind = prior entry borrows a value"
					       : "kind: prior needs from = the calibration it borrows");
		if (rc == 0 && c->train == HW_CAL_KIND_PRIOR) {
			/* The nearest calibrated family's share over its own prior, on this family's prior. */
			const hw_calib *src = NULL;
			for (int k = 0; k < out->n && !src; k++)
				if (!strcmp(out->c[k].name, c->from))
					src = &out->c[k];
			if (!src || src->train == HW_CAL_KIND_PRIOR || src->param != c->param)
				rc = err_at(e, out->path, d.sections[s].line, "[%s]: from: '%s' is not a fitted or measured "
					    "%s calibration above it", c->name, c->from, hw_calib_param_names[c->param]);
			else
				c->value = c->prior * src->value / src->prior;
		}
		if (rc == 0 && !(c->lo <= c->value && c->value <= c->hi && c->lo <= c->prior && c->prior <= c->hi))
			rc = err_at(e, out->path, d.sections[s].line, "[%s]: value and prior must lie in [min, max]",
				    c->name);
		if (rc == 0)
			out->n++;
	}
	cfg_release(&d);
	return rc;
}

int hw_find_system_cached(const char *name_or_path, const char *models_dir, hw_cache *cache, hw_system *out,
			  err *e)
{
	char path[CFG_PATH_MAX + 64];
	size_t n = strlen(name_or_path);
	if (strchr(name_or_path, '/') || (n > 4 && strcmp(name_or_path + n - 4, ".ini") == 0))
		return load_system(name_or_path, models_dir, cache, out, e);
	{
		char dir[CFG_PATH_MAX + 32], stem[HW_NAME_MAX * 2];
		snprintf(dir, sizeof dir, "%s/hw/systems", models_dir);
		if (names_find(dir, name_or_path, "system", stem, sizeof stem, e) != 0)
			return ERR_DATA;
		snprintf(path, sizeof path, "%s/%s.ini", dir, stem);
	}
	return load_system(path, models_dir, cache, out, e);
}

int hw_find_system(const char *name_or_path, const char *models_dir, hw_system *out, err *e)
{
	return hw_find_system_cached(name_or_path, models_dir, NULL, out, e);
}

int hw_node_chips(const hw_system *s)
{
	return s->nlevels ? s->levels[0].chips : 1;
}

double hw_rated_w_per_chip(const hw_system *s)
{
	return s->power_rated > 0 && s->power_chips > 0 ? s->power_rated / s->power_chips : NAN;
}

double hw_capex_per_chip(const hw_system *s)
{
	return s->capex_usd > 0 && s->capex_chips > 0 ? s->capex_usd / s->capex_chips : NAN;
}
