/* hw: chips and systems (the hardware model) and their strict loaders.
 *
 * A chip has dense peaks per precision, memory, the matrix-unit tiling the roofline pads to,
 * and achievable fractions. A system names a chip and its hierarchy levels, innermost first:
 * node, optional scale-up domain, optional scale-out fabric, each with chips, topology,
 * per-chip per-direction bandwidth and latency. Every group of figures keeps its source and
 * as_of. All quantities SI (B, B/s, s, FLOP/s). Loaders read models/hw/ INI files (format in
 * models/README.md); the structs are plain values that tests build as literals. */
#ifndef ROOFCOST_HW_H
#define ROOFCOST_HW_H

#include <stddef.h>
#include <math.h>

#include "base/err.h"

enum { HW_NAME_MAX = 48, HW_TEXT_MAX = 1024, HW_DATE_MAX = 16, HW_LEVELS_MAX = 3, HW_CURVE_MAX = 16 };

/* A measured efficiency against one dimension: eff[i] at x[i], x increasing; n = 0: none. A
 * serving GEMM curve's points may name the GEMM each was measured on (shaped 1: every point
 * has gn[i] x gk[i], its N and K; 0: none has). */
typedef struct hw_curve {
	int n;
	double x[HW_CURVE_MAX], eff[HW_CURVE_MAX];
	int shaped;
	double gn[HW_CURVE_MAX], gk[HW_CURVE_MAX];
} hw_curve;

/* Attention kernel classes a framework names: the chip's best fused kernel (FlashAttention-3,
 * cuDNN, FA4, the compiler's flash kernel), and kernels of the FlashAttention-2 generation
 * that do not use the newer tensor-core paths (FA2, PyTorch SDPA's flash backend). */
typedef enum hw_attn { HW_ATTN_FLASH, HW_ATTN_FLASH2, HW_ATTN_N } hw_attn;

/* Numeric precisions, also the index of chip peaks. */
typedef enum hw_prec {
	HW_FP32, HW_TF32, HW_BF16, HW_FP16, HW_FP8, HW_INT8, HW_FP4, HW_PREC_N
} hw_prec;

/* The rates a chip's [decode] GEMM points were measured at, when another chip's ([decode]
 * measured_on, a chip of the same tile set): dense peak and best-shape GEMM fraction per
 * precision, HBM bandwidth (B/s) and its achievable fraction. */
typedef struct hw_rates {
	double peak[HW_PREC_N];
	double gemm_eff[HW_PREC_N];
	double hbm_bw, hbm_eff;
} hw_rates;

/* "fp32" ... "fp4"; NULL-terminated list for enums. */
extern const char *const hw_prec_names[];

/* Bytes of one element in precision p (fp4 = 0.5, tf32 stored as 4). */
double hw_prec_bytes(hw_prec p);

typedef struct hw_sourced {
	char source[HW_TEXT_MAX];
	char as_of[HW_DATE_MAX];
	char note[HW_TEXT_MAX];
} hw_sourced;

typedef struct hw_chip {
	char name[HW_NAME_MAX];
	char path[HW_TEXT_MAX];    /* the file it was read from */
	char display[HW_TEXT_MAX];
	char vendor[HW_NAME_MAX];
	char family[HW_NAME_MAX];  /* architecture generation (hopper, neuroncore-v3, ...); default the name */
	int announced;             /* 1: announced, not shipping */
	int units;                 /* matrix engines working in parallel (SMs, NeuronCores, MXUs) */
	int tile_m, tile_n;        /* output tile per engine, for wave quantization */
	int pad_m, pad_n, pad_k;   /* granularity each GEMM dimension is padded to */
	int ranks_per_chip;        /* ranks one chip runs in a tensor-parallel group (Neuron cores) */
	double peak[HW_PREC_N];    /* FLOP/s dense; 0 = not supported */
	double vector;             /* FLOP/s for elementwise work; 0 = unknown (bytes bound it) */
	double hbm;                /* B */
	double hbm_bw;             /* B/s */
	double sram;               /* B */
	double gemm_eff[HW_PREC_N];/* best-shape achievable fraction of peak per precision */
	double attn_eff;           /* fused (flash) attention's fraction of peak; 0 = as gemm */
	double hbm_eff;            /* achievable fraction of hbm_bw */
	double op_overhead;        /* s per kernel */
	double layer_overhead;     /* s per layer per serving step (runtime scheduling, sync) */
	/* Elementwise kernels (norms, activations, residuals, loss, optimizer): achieved fraction
	 * of hbm_bw, [fused or compiled, eager][forward, backward]; 0 = hbm_eff. */
	double elem_eff[2][2];
	double overlap_slowdown;   /* share of compute throughput lost while a collective runs beside
				      it (SMs and HBM bandwidth taken by the communication kernels) */
	/* Attention kernels by class (HW_ATTN_*): achieved fraction of the peak forward and
	 * backward at long sequences, and the key length at which half of that is reached
	 * (eff(s) = eff · s / (s + seq_half)); 0 = attn_eff (flash) or the flash class (flash2). */
	double attn_k[HW_ATTN_N][2];
	double attn_seq_half[HW_ATTN_N];
	/* Serving ([decode], optional): the fraction of the peak a serving GEMM reaches against
	 * the rows M it multiplies (decode batch plus prefill tokens), per precision (n = 0: the
	 * best-shape path), measured on the GEMMs its points name, at this chip's rates or, where
	 * decode_on[0] names another chip, at decode_rates (roof_serve_gemm_eff scales each point
	 * to the GEMM timed); paged decode attention streams the KV cache at decode_attn_bw of
	 * hbm_bw after a fixed decode_attn_floor per call (0: hbm_eff, none). */
	hw_curve decode_gemm[HW_PREC_N];
	char decode_on[HW_NAME_MAX];
	hw_rates decode_rates;
	double decode_attn_bw;
	double decode_attn_floor;  /* s */
	double train_sustained;    /* share of the tensor rate a training loop sustains (calibrated per
				      family, models/calibration.ini); 1 = none */
	double tdp;                /* W the peaks hold at; 0 = no power model */
	double clock_scale;        /* sustained tensor-clock share under the system's power limit,
				      (limit / tdp)^(1/3); 1 = none (set by hw_load_system) */
	hw_sourced src_chip, src_peak, src_memory, src_eff, src_kernels, src_attention, src_power;
	hw_sourced src_decode;
} hw_chip;

typedef enum hw_topo {
	HW_TOPO_RING, HW_TOPO_TORUS2D, HW_TOPO_TORUS3D, HW_TOPO_SWITCH, HW_TOPO_FULLMESH,
	HW_TOPO_FATTREE, HW_TOPO_DCN, HW_TOPO_N
} hw_topo;

extern const char *const hw_topo_names[];

typedef enum hw_level_kind { HW_LEVEL_NODE, HW_LEVEL_DOMAIN, HW_LEVEL_SCALEOUT } hw_level_kind;

extern const char *const hw_level_names[];

/* Collective operations whose algorithms are data (models/hw/collectives.ini). */
typedef enum hw_coll {
	HW_ALL_REDUCE, HW_REDUCE_SCATTER, HW_ALL_GATHER, HW_ALL_TO_ALL, HW_BROADCAST, HW_COLL_N
} hw_coll;

extern const char *const hw_coll_names[];

/* A form a·f(n): f one of 1, log2(n), (n-1), (n-1)/n. */
typedef enum hw_form_kind { HW_F_CONST, HW_F_LOG2N, HW_F_NM1, HW_F_NM1_N } hw_form_kind;

typedef struct hw_form {
	double a;
	hw_form_kind kind;
} hw_form;

enum { HW_ALGOS_MAX = 8 };

typedef struct hw_algo {
	char name[24];
	int has[HW_COLL_N];
	hw_form steps[HW_COLL_N];  /* latency steps (× alpha) */
	hw_form bw[HW_COLL_N];     /* bandwidth factor (× S / B) */
	int p2p;                   /* 1: a serving stack's own peer-to-peer kernel (one-shot, two-shot),
				      used only where the caller asks for it (comm_allreduce_p2p) */
	int in_network;            /* 1: the switch reduces (switch_reduce): only on a level with
				      in_network_reduction, at its inr_eff */
	hw_sourced src;
} hw_algo;

typedef struct hw_algos {
	hw_algo algo[HW_ALGOS_MAX];
	int nalgo;
	int topo[HW_TOPO_N][HW_ALGOS_MAX];  /* indexes into algo, per topology */
	int ntopo[HW_TOPO_N];
	char path[HW_TEXT_MAX];    /* the file it was read from */
} hw_algos;

/* Value of form f at n ranks (inline: collectives evaluate it per algorithm and level). */
static inline double hw_form_eval(hw_form f, double n)
{
	switch (f.kind) {
	case HW_F_CONST: return f.a;
	case HW_F_LOG2N: return f.a * (n > 1 ? log2(n) : 0);
	case HW_F_NM1: return f.a * (n - 1);
	case HW_F_NM1_N: return f.a * (n - 1) / n;
	}
	return 0;
}

/* Loads models/hw/collectives.ini. Returns 0 or nonzero with e set. */
int hw_load_algos(const char *path, hw_algos *out, err *e);

typedef struct hw_level {
	hw_level_kind kind;
	int chips;                 /* chips one group of this level holds (scale-out: the largest cluster) */
	hw_topo topo;
	int dims[3];               /* torus dimensions; 0 = unused */
	double bw;                 /* B/s per chip per direction */
	double latency;            /* s per hop / algorithm step */
	int in_network_reduction;  /* switches reduce (NVLink SHARP) */
	double bw_eff;             /* achieved fraction of bw for large messages (ring busbw / bw) */
	double inr_eff;            /* same for in-network reduction (NVLS algbw / bw) */
	double call_floor;         /* s: the least one collective call takes at this level */
	double p2p_floor;          /* s: the same for a peer-to-peer kernel; default call_floor */
	double channel_bw;         /* B/s per direction one channel (CTA) of the collective library
				      drives on this level; 0: not limited (comm_group_init_ctas) */
	double oversubscription;   /* >= 1 */
	hw_sourced src;
} hw_level;

typedef struct hw_system {
	char name[HW_NAME_MAX];
	char path[HW_TEXT_MAX];      /* the file it was read from */
	char display[HW_TEXT_MAX];
	char provider[HW_NAME_MAX];
	char chip_name[HW_NAME_MAX];
	char instance[HW_NAME_MAX];  /* price-catalog name of one node; "" if none */
	char no_public_price[HW_TEXT_MAX]; /* why the provider publishes no hourly price; "" = not said */
	double power_limit;          /* W each chip is capped at; 0 = the chip's tdp */
	/* [power] (optional): the rated input power of power_chips chips with their share of the
	 * host, in-node switches and fans (one node, or a rack for rack-scale systems). */
	double power_rated;          /* W; 0 = not known */
	int power_chips;             /* chips that power feeds; one node when not given */
	/* [capex] (optional): what buying capex_chips chips with their host costs. */
	double capex_usd;            /* USD; 0 = not known */
	int capex_chips;             /* chips that price buys; one node when not given */
	char no_capex[HW_TEXT_MAX];  /* [system] no_capex: why it cannot be bought; "" = not said */
	char no_power[HW_TEXT_MAX];  /* [system] no_power: why no rated power is given; "" = not said */
	hw_chip chip;
	hw_level levels[HW_LEVELS_MAX];
	int nlevels;
	hw_algos algos;              /* collective algorithms (shared data file) */
	char calib[HW_TEXT_MAX];     /* calibrations applied to its chip, "name=value, ..."; "" = none */
	char calib_path[HW_TEXT_MAX];/* the calibration file read; "" = none */
	hw_sourced src;
	hw_sourced src_power, src_capex;
} hw_system;

/* A calibrated value (models/calibration.ini): one engine parameter of every chip of a family,
 * fitted across a family of validation rows (`roofcost validate --fit`); the note names them. */
enum { HW_CALIB_MAX = 32 };

typedef enum hw_calib_param { HW_CAL_TRAIN_SUSTAINED, HW_CAL_GEMM, HW_CAL_N } hw_calib_param;

/* What a calibration is fitted on (its `kind`). */
enum { HW_CAL_KIND_INFER, HW_CAL_KIND_TRAIN, HW_CAL_KIND_MEASURED, HW_CAL_KIND_PRIOR, HW_CAL_KIND_ALL };

extern const char *const hw_calib_param_names[];

typedef struct hw_calib {
	char name[HW_NAME_MAX];
	hw_calib_param param;
	char family[HW_NAME_MAX];   /* chips whose family this is */
	int train;                  /* HW_CAL_KIND_*: 1 fitted on training rows, 0 on serving rows,
				       2 not fitted (derived from a measurement, which the source
				       names), 3 a prior borrowed from the nearest calibrated family,
				       4 fitted on training and serving rows together */
	char from[HW_NAME_MAX];     /* kind prior: the calibration whose fitted share it takes */
	char frameworks[HW_TEXT_MAX]; /* comma list of the frameworks whose rows it is fitted on; "" = all */
	double value, prior, lo, hi;
	hw_sourced src;
} hw_calib;

typedef struct hw_calibs {
	hw_calib c[HW_CALIB_MAX];
	int n;
	char path[HW_TEXT_MAX];
	int read;                   /* 1: the file exists and was read */
} hw_calibs;

/* Loads models_dir/calibration.ini (absent: no calibrations). A `kind = prior` entry (a family
 * with no rows of its own) takes the share its `from` entry holds over that entry's prior:
 * value = prior x from.value / from.prior (the fitted entry must come first in the file and have
 * the same parameter). Returns 0 or nonzero with e set. */
int hw_load_calibs(const char *models_dir, hw_calibs *out, err *e);

/* Sets parameter c->param of chip ch to v when ch's family is c's. */
void hw_calib_apply(const hw_calib *c, double v, hw_chip *ch);

/* The file stem of path into out (len bytes): "models/hw/chips/h100.ini" -> "h100". */
void hw_file_stem(const char *path, char *out, size_t len);

/* Loads one chip file. Returns 0 or nonzero with e set ("file:line: key: reason"). */
int hw_load_chip(const char *path, hw_chip *out, err *e);

/* Loads a system file and its chip (models_dir/hw/chips/<chip>.ini, or a path when `chip`
 * contains a slash or ends in .ini). */
int hw_load_system(const char *path, const char *models_dir, hw_system *out, err *e);

/* What every system of one models folder shares (hw/collectives.ini and calibration.ini), kept
 * by hw_find_system_cached once read: a command that loads every system (compare, list) reads
 * them once. Zero it before first use; it holds nothing to free. */
typedef struct hw_cache {
	char models_dir[HW_TEXT_MAX];
	int have_algos, have_calibs;
	hw_algos algos;
	hw_calibs calibs;
} hw_cache;

/* hw_find_system with the shared files from cache (may be NULL), read into it on first need. */
int hw_find_system_cached(const char *name_or_path, const char *models_dir, hw_cache *cache, hw_system *out,
			  err *e);

/* Finds a system by name (models_dir/hw/systems/<name>.ini) or by path (contains '/' or
 * ends in .ini) and loads it. */
int hw_find_system(const char *name_or_path, const char *models_dir, hw_system *out, err *e);

/* Chips one node holds; chips of the largest group the system can form (0 = unbounded). */
int hw_node_chips(const hw_system *s);
static inline int hw_max_chips(const hw_system *s)
{
	return s->nlevels ? s->levels[s->nlevels - 1].chips : 1;
}

/* Rated input power per chip, host share included (W): [power] rated / chips; NaN when the
 * system file gives none. */
double hw_rated_w_per_chip(const hw_system *s);

/* Capex per chip, host share included (USD): [capex] usd / chips; NaN when not given. */
double hw_capex_per_chip(const hw_system *s);

/* Precision the chip runs p at: p itself if the chip has a matrix rate for it, else the
 * nearest wider one it has: fp4 -> fp8 -> bf16 -> fp32, fp16 and bf16 for each other where a
 * chip has only one, int8 -> bf16, tf32 -> fp32. Returns HW_PREC_N if none (an fp32 workload on
 * a chip without an fp32 rate). */
hw_prec hw_run_prec_wider(const hw_chip *c, hw_prec p); /* past p itself, out of line */
static inline hw_prec hw_run_prec(const hw_chip *c, hw_prec p)
{
	if ((int)p >= 0 && p < HW_PREC_N && c->peak[p] > 0)
		return p;
	return hw_run_prec_wider(c, p);
}

/* The widest precision the chip has a rate for (HW_PREC_N: none; a loaded chip has one). */
hw_prec hw_widest_prec(const hw_chip *c);

/* When c runs p at another precision or at none: 1 and the sentence that says so, naming the
 * chip, in buf ("tpu-v5p has no fp16 matrix rate; bf16 is the nearest wider precision
 * it has"); else 0 and "". */
int hw_prec_note(const hw_chip *c, hw_prec p, char *buf, size_t len);

#endif
