/* wl: workloads (a network plus what is done with it) and their strict loader.
 *
 * Training: sequence length, batches, token budget, optimizer, ZeRO stage, recompute.
 * Inference: prompt and output lengths, concurrency, scenario and latency limits.
 * Both: precision, an optional parallel plan and an optional [cost] section (pricing model,
 * utilization, storage, egress, engineering; failures and checkpoints for training). `--set key=value` overrides go through the
 * same checks as the file (cfg_override). Format in workloads/README.md. */
#ifndef ROOFCOST_WL_H
#define ROOFCOST_WL_H

#include "base/err.h"
#include "model/fw.h"
#include "model/hw.h"
#include "model/nn.h"
#include "model/plan.h"
#include "model/price.h"
#include "model/terms.h"

enum { WL_NAME_MAX = 48, WL_TEXT_MAX = 512 };

typedef enum wl_mode { WL_TRAIN, WL_INFER } wl_mode;
typedef enum wl_scenario { WL_OFFLINE, WL_SERVER, WL_INTERACTIVE, WL_SINGLE } wl_scenario;
typedef enum wl_recompute { WL_RC_NONE, WL_RC_SELECTIVE, WL_RC_FULL } wl_recompute;
typedef enum wl_optimizer { WL_ADAM, WL_SGD } wl_optimizer;
/* Request lengths of an open loop (server, interactive) about input_len and output_len. */
typedef enum wl_spread { WL_SPREAD_FIXED, WL_SPREAD_EXPONENTIAL } wl_spread;

/* [infer] input_spread: prompt lengths drawn from a dataset's percentiles (P:TOKENS, from 0 to
 * 100), its shape about input_len: uniform between the points, every length scaled by input_len
 * over the table's mean. n = 0: every prompt at input_len (fixed, the default). */
enum { WL_LENGTH_POINTS = 32 };
typedef struct wl_lengths {
	int n;
	double pct[WL_LENGTH_POINTS];  /* 0 .. 100, rising */
	double len[WL_LENGTH_POINTS];  /* tokens, not falling, > 0 */
} wl_lengths;

/* Parses an input_spread value, "fixed" or "P:TOKENS P:TOKENS ..." (space or comma apart): the
 * first percentile 0 and the last 100, percentiles rising, lengths positive and not falling.
 * Returns 0, or -1 with why set. */
int wl_lengths_parse(const char *s, wl_lengths *out, char *why, size_t len);

extern const char *const wl_mode_names[];
extern const char *const wl_scenario_names[];
extern const char *const wl_recompute_names[];
extern const char *const wl_spread_names[];

/* The [cost] section, defaults filled in by wl_load (workloads/README.md). */
typedef struct wl_cost {
	price_model pricing;      /* default on-demand; --pricing overrides */
	char region[WL_NAME_MAX]; /* "" = the cheapest region */
	cost_unit unit;           /* run (train); mtok (default) or example (infer) */
	cost_terms terms;         /* utilization 1, idle_headroom 0, the rest 0 by default */
	cost_failures failures;   /* train only: chip_mtbf 50,000 h, checkpoint_bw 2 TB/s,
				     checkpoint_bytes 0 = 16 B per parameter; restart_time 10 min
				     (both modes: it also replaces an interrupted spot instance) */
	double spot_interval;     /* s between interruptions of one spot instance; 0 = not given */
	cost_owned owned;         /* owned hardware, power and price age: the workload's keys, else
				     models/cost.ini; NaN where neither gives one */
} wl_cost;

/* The draft of speculative decoding: none, a smaller network, or the target's own
 * multi-token-prediction modules. */
typedef enum wl_spec_kind { WL_SPEC_NONE, WL_SPEC_NETWORK, WL_SPEC_MTP } wl_spec_kind;

enum { WL_SOURCE_MAX = 512 };

typedef struct wl_workload {
	char name[WL_NAME_MAX];
	char network_name[WL_TEXT_MAX];
	char description[WL_TEXT_MAX];
	char source[WL_TEXT_MAX];
	char path[WL_TEXT_MAX];
	char framework_name[WL_TEXT_MAX]; /* [workload] framework, a name or a path; "" = generic */
	char reproduces[WL_NAME_MAX * 2]; /* [workload] reproduces: the validation case_id of the published
					     run it claims to be; "" = none (validate --reproduce checks it) */
	wl_mode mode;
	hw_prec prec;             /* weights and GEMM inputs */
	hw_prec kv_prec;          /* KV-cache elements */
	/* training */
	int seq_len, global_batch, micro_batch;
	double tokens;            /* token budget of the run */
	wl_optimizer optimizer;
	int zero;                 /* 0..3 */
	wl_recompute recompute;
	/* The framework's defaults, each overridable by the workload's own key: */
	int flash_attention;      /* 1: fused attention, no s×s scores in HBM */
	int dropout;              /* 1: dropout masks are stored (Megatron GPT) */
	int overlap_grad_reduce;  /* 1: gradient sync overlaps the backward pass (bucketed) */
	/* inference */
	int input_len, output_len, concurrency;
	wl_scenario scenario;
	double ttft_slo, tpot_slo; /* s; 0 = none */
	double slo_percentile;
	wl_spread length_spread;  /* open loop: every request at the means, or lengths spread about them */
	wl_lengths input_spread;  /* open loop: prompt lengths about input_len (n 0: all at input_len) */
	double arrival_rate;      /* open loop: a fixed Poisson load, requests/s over all replicas ([infer]
				     arrival_rate); 0: the highest load whose latencies meet the limits */
	double arrival_ca2;       /* open loop: arrivals at one replica, squared coefficient of variation;
				     0: Poisson (1). Not a key: disagg sets it for a router that takes turns */
	fw_scheduler scheduler;   /* framework default, or [infer] scheduler */
	double kv_mem_fraction;   /* share of the memory left after weights that the KV cache gets */
	int max_num_tokens;       /* tokens one serving iteration may process (decode + prefill chunk) */
	int max_num_seqs;         /* running-batch limit; 0 = none */
	double iter_overhead;     /* s of host work per serving iteration */
	plan plan;                /* as given in [plan]; zeros where absent */
	plan_disagg disagg;       /* [infer] disagg: prefill and decode pools; .on 0: aggregated */
	/* Speculative decoding ([infer] draft, draft_tokens, acceptance): a draft proposes
	 * spec_tokens tokens per sequence, the target verifies them in one pass, and each is
	 * accepted with probability spec_acceptance given the one before it was. */
	wl_spec_kind spec_kind;
	int spec_tokens;          /* tokens the draft proposes per step; 0: no speculation */
	double spec_acceptance;   /* (0, 1) */
	nn_net spec_draft;        /* WL_SPEC_NETWORK: the draft network */
	wl_cost cost;
	/* Where each cost_owned figure came from (cost_owned_keys order): "workload [cost]",
	 * "--set", or "models/cost.ini: SOURCE (AS_OF)"; "" = nowhere (the figure is NaN). */
	char owned_source[COST_OWNED_N][WL_SOURCE_MAX];
	char cost_path[WL_TEXT_MAX];  /* the defaults file read (models/cost.ini); "" = none */
	nn_net net;
	fw_framework fw;          /* the software stack (models/frameworks/) */
} wl_workload;

/* The i-th key of the workload format, for templates (`roofcost new`): its section, key and
 * whether it is required when its section is present. Returns 1, or 0 past the last. */
int wl_schema_key(int i, const char **section, const char **key, int *required);

/* What the i-th key of the workload format takes, for help texts, into buf: its unit ("a time
 * (e.g. 2 us, 200 ms)", "a count (...)"), "a whole number", "one of a | b | c", "0 | 1", "a
 * date", "text". Returns 1, or 0 past the last key. */
int wl_schema_what(int i, char *buf, int len);

/* Loads a workload by name (workloads_dir/<name>.ini) or path, applies the "key=value"
 * overrides in order, validates, and loads its network and framework from models_dir. */
int wl_load(const char *name_or_path, const char *workloads_dir, const char *models_dir,
	    const char *const *overrides, int noverrides, wl_workload *out, err *e);

/* Applies one workload key, "KEY=VALUE" or "SECTION.KEY=VALUE" as --set takes it, to a
 * workload built without a file (a validation row, w->mode set): the keys of a run's behaviour
 * that a row's columns do not give (kv_precision, the [train] kernel and overlap keys, the
 * [infer] scheduler, limits, percentile, length and input spread and disagg), with the file's checks.
 * Returns 0, or ERR_DATA with e set ("FROM: KEY: why"), w untouched. */
int wl_set(wl_workload *w, const char *assign, const char *from, err *e);

/* Sets w's framework-dependent fields (attention, dropout, overlap, ZeRO, recompute, the
 * serving scheduler and limits) from fw, and copies fw into w->fw. The workload's own keys
 * are applied after this by wl_load. Pure. */
void wl_apply_framework(wl_workload *w, const fw_framework *fw);

/* Fills the layout choices the framework makes by default into p before plan_fill: sequence
 * parallelism (p->sp < 0: not given) when tp > 1, and pipeline interleaving (p->vpp 0) when
 * pp > 1 and the layers split into whole virtual stages. Pure. */
void wl_plan_defaults(const wl_workload *w, plan *p);

/* A benchmark dataset's request lengths (models/datasets.ini, one section each): what
 * `validate` picks for the open-loop rows (server, interactive) of the benchmark's model
 * (layers, hidden, where given) whose input_len is the dataset's mean input within a token (of
 * the source documents it names, where it names any): prompts spread as the dataset's
 * (input_spread) and output lengths by output_spread. Two datasets a row could match both (means
 * within 2 tokens, the same model or either any) are an error. */
enum { WL_DATASETS_MAX = 16 };

typedef struct wl_dataset {
	char name[WL_NAME_MAX];
	char display[WL_TEXT_MAX];
	char groups[WL_TEXT_MAX];        /* source_groups: comma-separated source_group names ("": any) */
	double input_mean;               /* tokens */
	int layers, hidden;              /* the benchmark's model (0: any) */
	char input_spread[WL_TEXT_MAX];  /* as [infer] input_spread takes it */
	wl_lengths input;                /* input_spread, parsed */
	int output_spread;               /* wl_spread */
	char source[1024];
	char as_of[16];
	char note[2048];
	char path[WL_TEXT_MAX];
	int line;                        /* of its section header */
} wl_dataset;

/* Reads models_dir/datasets.ini into out (at most max). Returns the count (0 where the file is
 * absent), or -1 with e set ("FILE:LINE: [name]: key: reason"). */
int wl_datasets_load(const char *models_dir, wl_dataset *out, int max, err *e);

#endif
