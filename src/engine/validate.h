/* validate: published measurements as cases, turned into workloads and layouts, and the
 * engine's prediction of each (DESIGN §7 schema).
 *
 * A row names a system, a network's shape, a layout and one metric with its published value.
 * Cells left empty mean "not published": the tool picks what the row's framework (its
 * `framework` cell, a file of models/frameworks/) does by default, and says so in `picked`. Parsing is strict:
 * a bad cell is "FILE:LINE: column: reason". Prediction is pure. */
#ifndef ROOFCOST_VALIDATE_H
#define ROOFCOST_VALIDATE_H

#include "base/err.h"
#include "model/fw.h"
#include "model/hw.h"
#include "model/plan.h"
#include "model/wl.h"
#include "engine/infer.h"
#include "engine/train.h"

enum { VAL_TEXT_MAX = 1024, VAL_ID_MAX = 96 };

typedef enum val_metric {
	VAL_MODEL_TFLOPS, VAL_HW_TFLOPS, VAL_MFU, VAL_HFU, VAL_STEP_TIME, VAL_TOKENS_PER_S,
	VAL_TOKENS_PER_S_PER_CHIP, VAL_TTFT_MS, VAL_TPOT_MS, VAL_METRIC_N
} val_metric;

extern const char *const val_metric_names[];

typedef struct val_case {
	char id[VAL_ID_MAX];
	char system[48];
	char source[VAL_TEXT_MAX];
	char framework[48];         /* the software stack (DESIGN §7 values) */
	char settings[VAL_TEXT_MAX];/* what the run changed from its framework: "SECTION.KEY=VALUE;..." */
	char wl_settings[VAL_TEXT_MAX]; /* the cell's workload keys ("disagg=14p2d:tp=4:tp=8;..."), set over
				       the workload the columns describe (wl_set) */
	char group[VAL_ID_MAX];     /* source_group: the rows of one source document (the id when absent) */
	int line;
	int train;                  /* 1 train, 0 infer */
	int chips;
	hw_prec prec;
	/* network; -1 = empty cell */
	int layers, hidden, heads, kv_heads, head_dim, ffn, vocab, experts, experts_active;
	nn_act act;
	/* training */
	int seq_len, global_batch, micro_batch, zero, seq_parallel;
	int recompute;              /* wl_recompute or -1 */
	/* layout */
	int tp, pp, vpp, dp, cp, ep;
	/* inference */
	int input_len, output_len, concurrency;
	int scenario;               /* wl_scenario or -1 */
	double ttft_slo_ms, tpot_slo_ms;  /* -1 = none */
	val_metric metric;
	double value;
	char dataset[48];           /* the benchmark dataset whose request lengths an open-loop row
				       takes (models/datasets.ini); "" : none */
	wl_lengths ds_input;        /* its prompt lengths and output law (wl_spread), set before the
				       row's own keys (wl_settings) */
	int ds_output;
	double load;                /* requests/s over all replicas a latency row is predicted at: its
				       case's throughput row over output_len (val_case_load); 0: none */
} val_case;

/* The columns of DESIGN §7, in order; the last two (settings, source_group) are optional. */
extern const char *const val_columns[];

/* Parses one data row. header/cells hold ncols strings each (header names, order free).
 * Returns 0 or nonzero with e set ("path:line: column: reason"). */
int val_parse(const char *path, int line, const char *const *header, const char *const *cells,
	      int ncols, val_case *out, err *e);

/* Checks that a header has every column of DESIGN §7 (settings and source_group may be
 * absent) and no other. */
int val_check_header(const char *path, const char *const *header, int ncols, err *e);

/* The load a server or interactive case ran at, for its latency rows: when t is the case's
 * throughput row (tokens_per_s, or tokens_per_s_per_chip times chips) and c a ttft_ms or tpot_ms
 * row of the same case_id and scenario, t's output tokens/s over c's output_len, requests/s
 * over all replicas; else 0. In MLPerf's Server and Interactive scenarios the completed rate is
 * LoadGen's scheduled one (the submitter's target QPS), an input of the run that the row set
 * publishes: the latencies are those at that load, the throughput row stays the capacity at the
 * limits. */
double val_case_load(const val_case *c, const val_case *t);

/* Builds the workload (network included) and layout of c with the defaults of c's framework
 * fw for the cells the source left empty; notes what it picked in picked. */
void val_build(const val_case *c, const fw_framework *fw, wl_workload *w, plan *p, char *picked, int len);

/* Predicts c's metric on s with framework fw (disaggregated pools when the row's settings give
 * `disagg`: disagg_search within the row's chips). Returns 1 with *pred set, or 0 with a reason
 * (not modelled). A training layout that the memory model rejects although it ran is still
 * predicted, with *mem_miss (may be NULL) set to 1 and the shortfall in reason. */
int val_predict(const hw_system *s, const fw_framework *fw, const val_case *c, double *pred, char *reason,
		int len, int *mem_miss);

/* The figure of metric m in a training (tr) or serving (ir) result on `chips` chips, into *out.
 * Returns 1, or 0 when m is not a figure of that kind of result. */
int val_result_metric(val_metric m, const train_result *tr, const infer_result *ir, int chips, double *out);

/* val_predict with the framework's [calibration] share for s's chip family set to sustain
 * (what a fit tries; sustain <= 0: the framework's own). */
int val_predict_at(const hw_system *s, const fw_framework *fw, const val_case *c, double sustain, double *pred,
		   char *reason, int len, int *mem_miss);

#endif
