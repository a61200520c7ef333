/* fw: software stacks (frameworks) as data, and their strict loader.
 *
 * A framework file (models/frameworks/NAME.ini, format in models/README.md) says what a
 * training or serving stack does by default and how much it overlaps: the attention kernel,
 * optimizer-state sharding, sequence parallelism, which collectives hide behind compute,
 * recompute policy, pipeline interleaving, the FLOP convention its reported MFU uses, host and
 * launch overhead (eager, compiled, graphs), what an fp8 recipe costs, and for serving the
 * scheduler, its token budget and batch limits and its per-iteration cost. Every section keeps
 * its source and as_of. A workload names its framework; its own keys override the defaults.
 * No framework name appears in src/: the engine reads these fields only. Plain values. */
#ifndef ROOFCOST_FW_H
#define ROOFCOST_FW_H

#include "base/err.h"
#include "model/hw.h"

enum { FW_NAME_MAX = 48, FW_SET_MAX = 24, FW_BASES_MAX = 4, FW_KEY_MAX = 96, FW_VALUE_MAX = 128, FW_SUSTAIN_MAX = 8 };

typedef enum fw_kind { FW_KIND_TRAIN, FW_KIND_SERVE, FW_KIND_BOTH } fw_kind;

/* Gradient reduction dtype: 16-bit, fp32, or Megatron's rule (the parameter dtype for fp16,
 * fp32 for bf16 and the rest). */
typedef enum fw_reduce { FW_REDUCE_HALF, FW_REDUCE_FP32, FW_REDUCE_AUTO } fw_reduce;

/* How kernels are issued: one by one from Python (eager), fused by a compiler (compiled:
 * torch.compile, XLA, the Neuron compiler), or replayed as CUDA graphs. */
typedef enum fw_host { FW_HOST_EAGER, FW_HOST_COMPILED, FW_HOST_GRAPHS } fw_host;

/* What selective recompute keeps and re-runs: `attention` keeps everything but the attention
 * core (Korthikanti et al. 2022 §5, Megatron's core_attn); `ops` keeps the outputs of every
 * other matmul and of attention and re-runs the rest (torchtitan's per-op checkpointing);
 * `matmuls` keeps every matmul output and the attention output and re-runs only the
 * elementwise ops (MaxText's minimal / minimal_with_context policies). */
typedef enum fw_selective { FW_SEL_ATTENTION, FW_SEL_OPS, FW_SEL_MATMULS } fw_selective;

/* Serving schedulers (what one iteration holds; notes/fw-serve.md §8):
 * - inflight: iteration-level batching; every iteration runs all running decodes and, within
 *   the token budget, the prefill of waiting prompts in the same forward pass (TensorRT-LLM,
 *   vLLM V1: decodes first, then prompts).
 * - prefill_first: a waiting prompt's prefill runs as its own iteration before the next decode
 *   iteration, which stalls the decodes (SGLang, vLLM V0, vllm-neuron, JetStream).
 * - static: a compiled batch prefills together and decodes together to the end; the next batch
 *   starts when it is done (transformers-neuronx, NxD Inference without continuous batching). */
typedef enum fw_scheduler { FW_SCHED_INFLIGHT, FW_SCHED_PREFILL_FIRST, FW_SCHED_STATIC } fw_scheduler;

/* What kv_mem_fraction is a share of: the memory free after weights and runtime buffers
 * (TensorRT-LLM free_gpu_memory_fraction), the whole device for weights, activations and cache
 * together (vLLM gpu_memory_utilization, SGLang mem_fraction_static), or nothing: the cache is
 * sized at compile time for the compiled batch (Neuron). */
typedef enum fw_kv_share { FW_KV_FREE, FW_KV_TOTAL, FW_KV_STATIC } fw_kv_share;

/* When KV blocks are taken: at admission for the prompt and the whole output (TensorRT-LLM
 * GUARANTEED_NO_EVICT: a started request is never paused), or as tokens are written (vLLM,
 * SGLang: a full cache preempts a running request). */
typedef enum fw_kv_alloc { FW_KV_COMPLETION, FW_KV_CURRENT } fw_kv_alloc;

/* What happens to a running request when the cache runs out (kv_alloc current). */
typedef enum fw_preempt { FW_PREEMPT_NONE, FW_PREEMPT_RECOMPUTE, FW_PREEMPT_SWAP } fw_preempt;

/* Tensor-parallel all-reduce of a serving step: the stack's own peer-to-peer kernels (one-shot
 * or two-shot over NVLink/xGMI, up to allreduce_max bytes), or the collective library. */
typedef enum fw_allreduce { FW_AR_CUSTOM, FW_AR_LIBRARY } fw_allreduce;

/* When an fp8 training recipe casts a GEMM's weights: in every micro-batch's forward and (the
 * transpose) backward (torchao's dynamic scaling), once per step into a cache the later
 * micro-batches reuse (Transformer Engine under Megatron: is_first_microbatch), or never, the
 * weights being kept in fp8 (fp8 parameters: the optimizer writes them, the parameter gather
 * moves 1 B each, only the transpose is made once per step). */
typedef enum fw_fp8_weights { FW_FP8W_MICRO, FW_FP8W_STEP, FW_FP8W_NATIVE } fw_fp8_weights;

/* How a disaggregated server picks a prefill replica: at random (each replica sees Poisson
 * arrivals at its share) or in turn (round robin: each sees every np-th arrival, Erlang-np
 * gaps, a squared coefficient of variation 1 / np). */
typedef enum fw_router { FW_ROUTER_RANDOM, FW_ROUTER_ROUND_ROBIN } fw_router;

extern const char *const fw_router_names[];
extern const char *const fw_kind_names[];
extern const char *const fw_host_names[];
extern const char *const fw_selective_names[];
extern const char *const fw_scheduler_names[];
extern const char *const fw_kv_share_names[];
extern const char *const fw_kv_alloc_names[];
extern const char *const fw_preempt_names[];
extern const char *const fw_allreduce_names[];
extern const char *const fw_recompute_names[];
extern const char *const fw_fp8_weights_names[];   /* "micro", "step", "native" */   /* "none", "selective", "full": wl_recompute order */

typedef struct fw_train {
	int attention_kernel;     /* 0 unfused, 1 flash (the chip's best fused kernel), 2 flash2
				     (FlashAttention-2 generation) */
	int flash_attention;      /* 1: fused (flash) attention, no s×s scores in HBM */
	int dropout;              /* 1: dropout masks are stored and applied */
	int zero;                 /* default optimizer-state sharding stage 0..3 (FSDP = 3) */
	int grad_reduce;          /* FW_REDUCE_*: the dtype gradients are reduced in */
	int seq_parallel;         /* default sequence parallelism when tp > 1 */
	int vpp;                  /* default virtual stages per pipeline rank when pp > 1 */
	int pp_scatter_gather;    /* 1: pipeline sends are split across the tensor ranks */
	int micro_batches;        /* when a case leaves the micro-batch open: 0 one sequence each,
				     1 as many micro-batches as pipeline stages (pp x vpp) */
	int overlap_dp_reduce;    /* 1: bucketed gradient reduce overlaps the backward */
	int overlap_param_gather; /* 1: parameter all-gathers are prefetched behind compute */
	int pp_keep_gathered;     /* 1: with pp > 1, FSDP keeps a stage's parameters gathered over all
				     micro-batches and reduce-scatters gradients once per step */
	double overlap_tp;        /* share of the tensor-parallel collectives that overlap matmuls
				     (1: async TP; Megatron's backward async all-reduce: a part) */
	double dp_bucket;         /* parameters per gradient bucket (Megatron's bucket_size): the last
				     bucket's reduce and the first one's gather are not hidden; 0: one
				     layer's parameters (the default) */
	int dp_ctas;              /* channels (CTAs) the data-parallel communicator may run (Megatron's
				     per-communicator max_ctas); 0: the library's own choice */
	int ep_sms;               /* SMs the expert dispatch/combine kernels hold while they overlap
				     compute: the compute slows by ep_sms / units; 0: the chip's
				     overlap_slowdown */
	int overlap_pp;           /* 1: pipeline sends overlap compute */
	int overlap_ep;           /* 1: expert all-to-alls overlap compute */
	int recompute;            /* default: index into fw_recompute_names */
	fw_selective selective;   /* what selective recompute re-runs */
	int flops_causal;         /* 1: reported MFU counts the causal half of attention */
	fw_host host;
	int eager_elementwise;    /* 1: norms, activations and the loss run as PyTorch's own kernels,
				     op by op; 0: fused kernels (jit, Apex, TE, Liger, a compiler) */
	double kernel_overhead;   /* s of host time per kernel launched: a floor on each kernel's time
				     (eager stacks issue several kernels per elementwise op) */
	double fp8_cast_bytes;    /* B of HBM traffic per fp8 GEMM input element for scaling/casts */
	int fp8_weights;          /* FW_FP8W_*: when an fp8 recipe casts the weights */
	int fp8_dispatch;         /* 1: under fp8 the expert all-to-alls toward the experts (the forward
				     dispatch, the backward's gradient dispatch) carry fp8, 1 B */
	double logits_bytes;      /* B per logit element kept for the loss backward (4: fp32) */
	int offload_remat;        /* 1: the tensors recompute keeps go to host memory */
	char kernel_by_family[HW_TEXT_MAX]; /* "family:kernel,..." attention kernel per chip family */
	/* [calibration] train_sustained "family:share,...": what this stack holds of the chip
	 * family's sustained tensor rate (models/calibration.ini) on its own rows, fitted with
	 * `validate --fit` (the section's note names them); a family not listed: 1. */
	char sustain_list[HW_TEXT_MAX];
	int nsustain;
	char sustain_family[FW_SUSTAIN_MAX][HW_NAME_MAX];
	double sustain[FW_SUSTAIN_MAX];
	char sustain_from[FW_NAME_MAX];  /* the stack whose file gives this [calibration]: the file
					    itself, or the base a version inherits it from, whose
					    value the version's rows are fitted with */
	char sustain_path[HW_TEXT_MAX];  /* that file */
	hw_sourced src_calibration;
	hw_sourced src_attention, src_sharding, src_parallel, src_overlap, src_recompute, src_flops,
		src_host, src_fp8, src_memory;
} fw_train;

typedef struct fw_serve {
	fw_scheduler scheduler;
	int chunked_prefill;      /* 1: a prompt is split across iterations to fill the budget */
	int max_num_tokens;       /* tokens one iteration may process (decodes + prefill) */
	int max_num_seqs;         /* running-batch limit; 0 = none (the KV cache decides) */
	int max_prefill_seqs;     /* prompts one prefill pass takes; 0 = what the budget holds */
	fw_kv_share kv_share;
	double kv_mem_fraction;   /* the share kv_share names */
	double reserve;           /* B per chip kept for graphs, the runtime and activations */
	int kv_block;             /* tokens per KV block (page); 0 = one block of the whole context */
	fw_kv_alloc kv_alloc;
	fw_preempt preempt;
	int overlap;              /* 1: host work of iteration n+1 runs beside device step n (overlap
				     or async scheduling): hidden, but a new request waits one iteration */
	double iter_overhead;     /* s of host work per iteration (scheduling, sampling, detokenizing) */
	double seq_overhead;      /* s of host work per sequence an iteration holds (a scheduler that
				     rebuilds each sequence's inputs and processes each one's output
				     every step), beside iter_overhead */
	double batch_window;      /* s: a harness in front of the replicas collects the arriving
				     requests this long (0: none) and sends them to one replica as a
				     batch, to each replica in turn */
	int batch_window_max;     /* requests that close a window early (0: none) */
	double gemm_share;        /* share of the chip's serving GEMM rate ([decode] curves) the stack's
				     kernels reach, 0.05 to 2: below 1 a version's older kernels, above 1
				     kernels that beat the curve's (0: all of it, 1); the rate stays at
				     most the dense peak */
	fw_allreduce allreduce;
	double allreduce_max;     /* B: the largest message the custom kernel takes */
	int pp_microbatches;      /* micro-batches a pipeline keeps in flight; 0 = pp */
	/* Defaults that depend on the device ("family:N,..."): max_num_tokens, max_num_seqs. */
	char tokens_by_family[HW_TEXT_MAX];
	char seqs_by_family[HW_TEXT_MAX];
	/* [serve] fitted (a version's file only): the keys of the section it fitted on its own
	 * rows (its source_groups) for want of a source; out of sample they take the values of
	 * the stack it is based on (fw_unfitted). "" = none. */
	char fitted[HW_TEXT_MAX];
	hw_sourced src_serve;
	/* [deploy] (optional; absent: neither): how the stack may lay a model out beyond one
	 * tensor-parallel replica, each with the stack's own documents as its source. */
	int attention_dp;         /* 1: MoE with attention data parallel over replicas whose experts
				     are spread over them (expert parallel) */
	int disagg;               /* 1: disaggregated serving: prefill and decode pools, the KV cache
				     of each request moved from one to the other */
	fw_router router;         /* how the disaggregated server spreads requests over the prefill
				     replicas */
	hw_sourced src_deploy;
} fw_serve;

/* One framework key set from outside the stack's file: a run's setting (a validation row's
 * `settings` cell), a workload's [framework] section, or --set. */
typedef struct fw_setting {
	char key[FW_KEY_MAX];       /* SECTION.KEY */
	char value[FW_VALUE_MAX];
	char from[HW_TEXT_MAX];     /* where it was given: "--set", "workloads/x.ini:12" */
} fw_setting;

typedef struct fw_framework {
	char name[FW_NAME_MAX];
	char display[HW_TEXT_MAX];
	char path[HW_TEXT_MAX];   /* the file it was loaded from */
	fw_kind kind;
	int has_train, has_serve;
	fw_train train;
	fw_serve serve;
	hw_sourced src;
	char based_on[FW_NAME_MAX];  /* [framework] based_on: the stack this file changes; "" = none */
	char source_groups[HW_TEXT_MAX]; /* [framework] source_groups: the validation source groups
				       whose rows ran this version of based_on (comma list); "" = none */
	char bases[FW_BASES_MAX][HW_TEXT_MAX]; /* the files beneath it, nearest first */
	int nbases;
	fw_setting set[FW_SET_MAX];  /* keys set over the files, in the order applied */
	int nset;
} fw_framework;

/* The attention kernel (0 unfused, 1 flash, 2 flash2) the stack runs on chips of `family`:
 * its kernel_by_family entry for the family, else its kernel. */
int fw_attention_kernel_by_family(const fw_train *t, const char *family); /* the lookup, out of line */
static inline int fw_attention_kernel(const fw_train *t, const char *family)
{
	return t->kernel_by_family[0] ? fw_attention_kernel_by_family(t, family) : t->attention_kernel;
}

/* The share of the chip family's sustained tensor rate the stack holds ([calibration]
 * train_sustained), 1 when the family is not listed (or family is NULL). */
double fw_sustain_listed(const fw_train *t, const char *family); /* the lookup, out of line */
static inline double fw_sustain(const fw_train *t, const char *family)
{
	return family && t->nsustain > 0 ? fw_sustain_listed(t, family) : 1;
}

/* Sets the stack's share for family to v (adding the family when absent; at most
 * FW_SUSTAIN_MAX): what a fit tries. Returns 0, or -1 when the list is full. */
int fw_sustain_set(fw_train *t, const char *family, double v);

/* The stack's default for chips of `family` from a "family:N,..." list, else dflt. */
int fw_by_family(const char *list, const char *family, int dflt);

/* path as a reader knows it: from its "models/" component on when it has one (the data
 * folder's own files), else path itself. Returns a pointer into path. */
const char *fw_shown_path(const char *path);

/* Loads one framework file. A file with `based_on = NAME` (a file NAME.ini beside it, or a
 * path from its folder) loads NAME first and sets only the keys it gives over it; each section
 * it gives still needs its source and as_of (at most FW_BASES_MAX files deep). Returns 0 or
 * nonzero with e set ("file:line: key: reason"). */
int fw_load(const char *path, fw_framework *out, err *e);

/* 1 if assign ("SECTION.KEY=VALUE") names a key of a framework file that a run may set:
 * SECTION one of the behaviour sections (attention ... memory, serve), not [framework]. */
int fw_is_setting(const char *assign);

/* Sets one framework key over f ("SECTION.KEY=VALUE", the checks of the file) and records it
 * in f->set with from. A key of a section f's kind has not (a serving key on a training stack),
 * source/as_of/note, or a bad value is an error: "--set KEY: reason" (usage) when from is
 * "--set", else "FROM: KEY: reason" (data). */
int fw_set(fw_framework *f, const char *assign, const char *from, err *e);

/* fw_set for each of the ';'-separated assignments of list (a validation row's `settings`
 * cell; empty pieces are errors). */
int fw_set_list(fw_framework *f, const char *list, const char *from, err *e);

/* Finds a framework by name (models_dir/frameworks/<name>.ini) or by path (contains '/' or
 * ends in .ini) and loads it (a based_on name not beside the file: models_dir/frameworks). An unknown name is an error naming 'roofcost list frameworks'. */
int fw_find(const char *name_or_path, const char *models_dir, fw_framework *out, err *e);

/* f with the keys its [serve] fitted names at the values of the stack it is based on (its
 * file's based_on, loaded from models_dir), into *out: what f predicts without the values fitted
 * on its own rows. Returns 0, 1 when f names none (out untouched), or nonzero with e set. */
int fw_unfitted(const fw_framework *f, const char *models_dir, fw_framework *out, err *e);

#endif
