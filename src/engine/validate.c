/* validate: published cases into workloads and predictions (see validate.h). */
#include "engine/validate.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/disagg.h"
#include "engine/infer.h"
#include "base/opt.h"
#include "engine/train.h"

const char *const val_metric_names[] = {"model_tflops_per_chip", "hw_tflops_per_chip", "mfu", "hfu",
					"step_time_s", "tokens_per_s", "tokens_per_s_per_chip",
					"ttft_ms", "tpot_ms", NULL};

const char *const val_columns[] = {
	"case_id", "kind", "system", "chips", "precision", "layers", "hidden", "heads", "kv_heads",
	"head_dim", "ffn", "ffn_act", "vocab", "experts", "experts_active", "seq_len", "global_batch",
	"micro_batch", "tp", "pp", "vpp", "dp", "cp", "ep", "zero", "seq_parallel", "recompute",
	"input_len", "output_len", "concurrency", "scenario", "ttft_slo_ms", "tpot_slo_ms", "metric",
	"value", "flops_basis", "source", "framework", "settings", "source_group", NULL};

/* 1 for a column a file may leave out. */
static int optional_column(const char *name)
{
	return !strcmp(name, "settings") || !strcmp(name, "source_group");
}

static int col_index(const char *const *header, int ncols, const char *name)
{
	for (int i = 0; i < ncols; i++)
		if (!strcmp(header[i], name))
			return i;
	return -1;
}

int val_check_header(const char *path, const char *const *header, int ncols, err *e)
{
	for (int i = 0; val_columns[i]; i++)
		if (col_index(header, ncols, val_columns[i]) < 0 && !optional_column(val_columns[i]))
			return err_at(e, path, 1, "%s: missing column", val_columns[i]);
	for (int i = 0; i < ncols; i++) {
		int known = 0;
		for (int k = 0; val_columns[k] && !known; k++)
			known = !strcmp(header[i], val_columns[k]);
		if (!known)
			return err_at(e, path, 1, "%s: unknown column", header[i]);
		if (col_index(header, ncols, header[i]) != i)
			return err_at(e, path, 1, "%s: column appears twice (columns %d and %d)", header[i],
				      col_index(header, ncols, header[i]) + 1, i + 1);
	}
	return 0;
}

typedef struct row_ctx {
	const char *path;
	int line;
	const char *const *header, *const *cells;
	int ncols;
	err *e;
} row_ctx;

static const char *cell(const row_ctx *r, const char *name)
{
	int i = col_index(r->header, r->ncols, name);
	return i >= 0 ? r->cells[i] : "";
}

/* Integer cell: -1 when empty and optional. */
static int get_int(const row_ctx *r, const char *name, int required, int lo, int *out)
{
	const char *s = cell(r, name);
	double v;
	if (!*s) {
		if (required)
			return err_at(r->e, r->path, r->line, "%s: empty", name);
		*out = -1;
		return 0;
	}
	if (opt_number(s, &v) != 0 || v != floor(v) || v < lo || v > 2e9)
		return err_at(r->e, r->path, r->line, "%s: '%s' is not a whole number >= %d", name, s, lo);
	*out = (int)v;
	return 0;
}

static int get_num(const row_ctx *r, const char *name, int required, double *out)
{
	const char *s = cell(r, name);
	double v;
	if (!*s) {
		if (required)
			return err_at(r->e, r->path, r->line, "%s: empty", name);
		*out = -1;
		return 0;
	}
	if (opt_number(s, &v) != 0 || v < 0)
		return err_at(r->e, r->path, r->line, "%s: '%s' is not a number >= 0", name, s);
	*out = v;
	return 0;
}

static int get_enum(const row_ctx *r, const char *name, const char *const *choices, int required,
		    int *out)
{
	const char *s = cell(r, name);
	if (!*s) {
		if (required)
			return err_at(r->e, r->path, r->line, "%s: empty", name);
		*out = -1;
		return 0;
	}
	for (int i = 0; choices[i]; i++)
		if (!strcmp(choices[i], s)) {
			*out = i;
			return 0;
		}
	return err_at(r->e, r->path, r->line, "%s: '%s' is not a known value", name, s);
}

/* The `settings` cell, "ASSIGN;...": framework keys (SECTION.KEY=VALUE of a framework file,
 * checked against the framework when it loads) into out->settings, the workload's keys (as
 * --set takes them: KEY=VALUE, checked here on a workload of the row's mode) into
 * out->wl_settings. */
/* The next assignment of a "A;B;..." list at *q into one (cut to len), *q moved past it. */
static void next_setting(const char **q, char *one, size_t len)
{
	const char *x = strchr(*q, ';');
	snprintf(one, len, "%.*s", (int)(x ? (size_t)(x - *q) : strlen(*q)), *q);
	*q = x ? x + 1 : *q + strlen(*q);
}

static int split_settings(const char *path, int line, const char *cellv, val_case *out, err *e)
{
	wl_workload *w = calloc(1, sizeof *w);
	char from[VAL_TEXT_MAX];
	int rc = 0;
	if (!w)
		return err_set(e, ERR_DATA, "out of memory");
	w->mode = out->train ? WL_TRAIN : WL_INFER;
	/* The scenario val_build picks, for the keys that apply to some only. */
	w->scenario = out->scenario >= 0 ? (wl_scenario)out->scenario : (out->concurrency > 0 ? WL_SINGLE : WL_OFFLINE);
	snprintf(from, sizeof from, "%s:%d: settings", path, line);
	for (const char *p = cellv; *p && rc == 0;) {
		char one[VAL_TEXT_MAX];
		char *to;
		size_t have;
		next_setting(&p, one, sizeof one);
		if (fw_is_setting(one)) {
			to = out->settings;
		} else {
			if ((rc = wl_set(w, one, from, e)) != 0)
				break;
			to = out->wl_settings;
		}
		have = strlen(to);
		if (have + strlen(one) + 2 > VAL_TEXT_MAX) {
			rc = err_at(e, path, line, "settings: longer than %d characters", VAL_TEXT_MAX - 1);
			break;
		}
		snprintf(to + have, VAL_TEXT_MAX - have, "%s%s", have ? ";" : "", one);
	}
	free(w);
	return rc;
}

int val_parse(const char *path, int line, const char *const *header, const char *const *cells,
	      int ncols, val_case *out, err *e)
{
	static const char *const kinds[] = {"infer", "train", NULL};
	static const char *const acts[] = {"gelu", "swiglu", NULL};
	row_ctx r = {path, line, header, cells, ncols, e};
	int kind, prec, act, metric, rc;
	memset(out, 0, sizeof *out);
	out->line = line;
	snprintf(out->id, sizeof out->id, "%s", cell(&r, "case_id"));
	snprintf(out->system, sizeof out->system, "%s", cell(&r, "system"));
	snprintf(out->source, sizeof out->source, "%s", cell(&r, "source"));
	snprintf(out->framework, sizeof out->framework, "%s", cell(&r, "framework"));
	snprintf(out->group, sizeof out->group, "%s", cell(&r, "source_group")[0] ? cell(&r, "source_group") : out->id);
	if (!out->id[0])
		return err_at(e, path, line, "case_id: empty");
	if (!out->system[0])
		return err_at(e, path, line, "system: empty");
	if (get_enum(&r, "kind", kinds, 1, &kind) || get_int(&r, "chips", 1, 1, &out->chips) ||
	    get_enum(&r, "precision", hw_prec_names, 1, &prec) ||
	    get_int(&r, "layers", 1, 1, &out->layers) || get_int(&r, "hidden", 1, 1, &out->hidden) ||
	    get_int(&r, "heads", 1, 1, &out->heads) || get_int(&r, "kv_heads", 0, 1, &out->kv_heads) ||
	    get_int(&r, "head_dim", 0, 1, &out->head_dim) || get_int(&r, "ffn", 1, 1, &out->ffn) ||
	    get_enum(&r, "ffn_act", acts, 1, &act) || get_int(&r, "vocab", 1, 1, &out->vocab) ||
	    get_int(&r, "experts", 0, 0, &out->experts) ||
	    get_int(&r, "experts_active", 0, 0, &out->experts_active) ||
	    get_int(&r, "seq_len", 0, 1, &out->seq_len) ||
	    get_int(&r, "global_batch", 0, 1, &out->global_batch) ||
	    get_int(&r, "micro_batch", 0, 1, &out->micro_batch) || get_int(&r, "tp", 0, 1, &out->tp) ||
	    get_int(&r, "pp", 0, 1, &out->pp) || get_int(&r, "vpp", 0, 1, &out->vpp) ||
	    get_int(&r, "dp", 0, 1, &out->dp) || get_int(&r, "cp", 0, 1, &out->cp) ||
	    get_int(&r, "ep", 0, 1, &out->ep) || get_int(&r, "zero", 0, 0, &out->zero) ||
	    get_int(&r, "seq_parallel", 0, 0, &out->seq_parallel) ||
	    get_enum(&r, "recompute", wl_recompute_names, 0, &out->recompute) ||
	    get_int(&r, "input_len", 0, 1, &out->input_len) ||
	    get_int(&r, "output_len", 0, 1, &out->output_len) ||
	    get_int(&r, "concurrency", 0, 1, &out->concurrency) ||
	    get_enum(&r, "scenario", wl_scenario_names, 0, &out->scenario) ||
	    get_num(&r, "ttft_slo_ms", 0, &out->ttft_slo_ms) ||
	    get_num(&r, "tpot_slo_ms", 0, &out->tpot_slo_ms) ||
	    get_enum(&r, "metric", val_metric_names, 1, &metric) ||
	    get_num(&r, "value", 1, &out->value))
		return e ? (int)e->code : ERR_DATA;
	out->train = kind == 1;
	if ((rc = split_settings(path, line, cell(&r, "settings"), out, e)) != 0)
		return rc;
	out->prec = (hw_prec)prec;
	out->act = (nn_act)act;
	out->metric = (val_metric)metric;
	if (out->zero > 3)
		return err_at(e, path, line, "zero: %d is not 0..3", out->zero);
	if (out->seq_parallel > 1)
		return err_at(e, path, line, "seq_parallel: %d is not 0 or 1", out->seq_parallel);
	if (!(out->value > 0))
		return err_at(e, path, line, "value: a measurement must be above 0");
	if (out->kv_heads > 0 && out->heads % out->kv_heads)
		return err_at(e, path, line, "kv_heads: %d does not divide heads %d", out->kv_heads, out->heads);
	if (out->experts > 0 && (out->experts_active < 1 || out->experts_active > out->experts))
		return err_at(e, path, line, "experts_active: %d is not in [1, experts = %d]", out->experts_active,
			      out->experts);
	if (out->experts <= 0 && out->experts_active > 0)
		return err_at(e, path, line, "experts_active: needs experts > 0");
	if (!out->train && out->scenario == WL_SINGLE && out->concurrency <= 0)
		return err_at(e, path, line, "concurrency: a single-stream case needs its concurrency");
	if (out->train && (out->seq_len < 0 || out->global_batch < 0))
		return err_at(e, path, line, "seq_len: a training case needs seq_len and global_batch");
	if (!out->train && (out->input_len < 0 || out->output_len < 0))
		return err_at(e, path, line, "input_len: an inference case needs input_len and output_len");
	return 0;
}

double val_case_load(const val_case *c, const val_case *t)
{
	double tok;
	if (c->train || t->train || strcmp(c->id, t->id) != 0 || c->scenario != t->scenario ||
	    (c->scenario != WL_SERVER && c->scenario != WL_INTERACTIVE) ||
	    (c->metric != VAL_TTFT_MS && c->metric != VAL_TPOT_MS) || c->output_len <= 0)
		return 0;
	if (t->metric == VAL_TOKENS_PER_S)
		tok = t->value;
	else if (t->metric == VAL_TOKENS_PER_S_PER_CHIP)
		tok = t->value * t->chips;
	else
		return 0;
	return tok / c->output_len;
}

#define PICK(...) do { k += snprintf(picked + k, (size_t)(len > k ? len - k : 0), __VA_ARGS__); } while (0)

void val_build(const val_case *c, const fw_framework *fw, wl_workload *w, plan *p, char *picked, int len)
{
	nn_net *n = &w->net;
	int k = 0;
	memset(w, 0, sizeof *w);
	memset(p, 0, sizeof *p);
	snprintf(w->name, sizeof w->name, "%s", c->id);
	snprintf(n->name, sizeof n->name, "%s", c->id);
	n->layers = c->layers;
	n->hidden = c->hidden;
	n->heads = c->heads;
	n->kv_heads = c->kv_heads > 0 ? c->kv_heads : c->heads;
	n->head_dim = c->head_dim > 0 ? c->head_dim : c->hidden / c->heads;
	n->v_head_dim = n->head_dim;
	n->ffn = c->ffn;
	n->act = c->act;
	n->vocab = c->vocab;
	n->max_context = 1 << 30;
	n->experts = c->experts > 0 ? c->experts : 0;
	n->experts_active = c->experts > 0 ? c->experts_active : 0;
	n->expert_ffn = n->experts ? c->ffn : 0;
	/* GPT-style (GELU) recipes tie the embeddings; Llama-style (SwiGLU) do not. */
	n->tied_embeddings = c->act == NN_GELU;
	wl_apply_framework(w, fw);
	snprintf(w->framework_name, sizeof w->framework_name, "%s", fw->name);
	PICK("framework %s (%s)", fw->name, fw_shown_path(fw->path));
	for (int i = 0; i < fw->nset; i++)
		PICK("%s%s=%s", i ? ", " : ", settings ", fw->set[i].key, fw->set[i].value);

	w->prec = c->prec;
	w->kv_prec = (c->prec == HW_FP8 || c->prec == HW_FP4) ? HW_FP8 : HW_BF16;
	w->optimizer = WL_ADAM;
	w->slo_percentile = 99;
	p->tp = c->tp > 0 ? c->tp : 1;
	p->pp = c->pp > 0 ? c->pp : 1;
	p->cp = c->cp > 0 ? c->cp : 1;
	p->ep = c->ep > 0 ? c->ep : 1;
	p->chips = c->chips;
	p->dp = c->dp > 0 ? c->dp : c->chips / (p->tp * p->pp * p->cp);
	if (c->dp <= 0)
		PICK(", dp %d from chips", p->dp);
	if (c->train) {
		w->mode = WL_TRAIN;
		w->seq_len = c->seq_len;
		w->global_batch = c->global_batch;
		w->micro_batch = c->micro_batch > 0 ? c->micro_batch : 1;
		w->tokens = 1e12;
		if (c->zero >= 0)
			w->zero = c->zero;
		else
			PICK(", ZeRO-%d", w->zero);
		p->sp = c->seq_parallel >= 0 ? c->seq_parallel : -1;
		p->vpp = c->vpp > 0 ? c->vpp : 0;
		wl_plan_defaults(w, p);
		if (c->micro_batch <= 0) {
			/* A stack that splits each replica's batch into as many micro-batches as the
			 * pipeline has stages (torchtitan), when the batch divides that way. */
			long local = p->dp > 0 ? c->global_batch / p->dp : 0;
			long stages = (long)p->pp * (p->vpp > 0 ? p->vpp : 1);
			if (w->fw.train.micro_batches == 1 && p->pp > 1 && local >= stages && local % stages == 0)
				w->micro_batch = (int)(local / stages);
			PICK(", micro_batch %d%s", w->micro_batch,
			     w->micro_batch > 1 ? " (as many micro-batches as pipeline stages)" : "");
		}
		if (c->seq_parallel < 0 && p->tp > 1)
			PICK(", sequence parallelism %s", p->sp ? "on" : "off");
		if (c->vpp <= 0 && p->pp > 1)
			PICK(", vpp %d", p->vpp);
		if (c->recompute >= 0)
			w->recompute = (wl_recompute)c->recompute;
		else
			PICK(", recompute %s", wl_recompute_names[w->recompute]);
		PICK(", %s attention%s%s", w->flash_attention ? (w->fw.train.attention_kernel == 2 ? "flash2-class" : "flash") : "unfused softmax",
		     w->dropout ? ", dropout" : "", w->overlap_grad_reduce ? "" : ", gradient all-reduce after backward");
	} else {
		w->mode = WL_INFER;
		w->input_len = c->input_len;
		w->output_len = c->output_len;
		w->scenario = c->scenario >= 0 ? (wl_scenario)c->scenario
					       : (c->concurrency > 0 ? WL_SINGLE : WL_OFFLINE);
		if (c->scenario < 0)
			PICK(", scenario %s", wl_scenario_names[w->scenario]);
		w->concurrency = c->concurrency > 0 ? c->concurrency : 0;
		p->sp = 0;
		p->vpp = 1;
		PICK(", %s scheduling, %d tokens per iteration", fw_scheduler_names[w->scheduler], w->max_num_tokens);
		w->ttft_slo = c->ttft_slo_ms > 0 ? c->ttft_slo_ms / 1e3 : 0;
		w->tpot_slo = c->tpot_slo_ms > 0 ? c->tpot_slo_ms / 1e3 : 0;
		if (c->concurrency <= 0 && w->scenario != WL_SINGLE)
			PICK(", batch chosen by the scheduler");
		if (c->load > 0)
			PICK(", latencies at the highest load meeting the limits (the run's own load, its throughput row over "
			     "output_len, is %.4g requests/s)", c->load);
	}
	if (c->dataset[0]) {
		/* The benchmark dataset's request lengths (models/datasets.ini), before the row's
		 * own keys. */
		w->input_spread = c->ds_input;
		w->length_spread = (wl_spread)c->ds_output;
		PICK(", request lengths of dataset %s (models/datasets.ini: prompts as its table, output lengths %s about "
		     "output_len)", c->dataset, w->length_spread == WL_SPREAD_EXPONENTIAL ? "geometric" : "fixed");
	}
	for (const char *q = c->wl_settings; *q;) {
		/* The row's workload keys over what its columns describe (checked by val_parse). */
		char one[VAL_TEXT_MAX];
		next_setting(&q, one, sizeof one);
		if (wl_set(w, one, "settings", NULL) == 0)
			PICK(", %s", one);
	}
	plan_fill(p);
}

int val_result_metric(val_metric m, const train_result *tr, const infer_result *ir, int chips, double *out)
{
	if (tr) {
		switch (m) {
		case VAL_MODEL_TFLOPS: *out = tr->model_tflops_per_chip; return 1;
		case VAL_HW_TFLOPS: *out = tr->hw_tflops_per_chip; return 1;
		case VAL_MFU: *out = tr->mfu; return 1;
		case VAL_HFU: *out = tr->hfu; return 1;
		case VAL_STEP_TIME: *out = tr->step_time; return 1;
		case VAL_TOKENS_PER_S: *out = tr->tokens_per_s; return 1;
		case VAL_TOKENS_PER_S_PER_CHIP: *out = tr->tokens_per_s / chips; return 1;
		default: return 0;
		}
	}
	switch (m) {
	case VAL_TOKENS_PER_S: *out = ir->tokens_per_s; return 1;
	case VAL_TOKENS_PER_S_PER_CHIP: *out = ir->tokens_per_s_per_chip; return 1;
	case VAL_TTFT_MS: *out = ir->ttft * 1e3; return 1;
	case VAL_TPOT_MS: *out = ir->tpot * 1e3; return 1;
	default: return 0;
	}
}

/* The figure of metric m of a disaggregated result (whole system), into *out; 0 when m is not
 * one. */
static int disagg_metric(val_metric m, const disagg_result *d, double *out)
{
	switch (m) {
	case VAL_TOKENS_PER_S: *out = d->tokens_per_s; return 1;
	case VAL_TOKENS_PER_S_PER_CHIP: *out = d->tokens_per_s_per_chip; return 1;
	case VAL_TTFT_MS: *out = d->ttft * 1e3; return 1;
	case VAL_TPOT_MS: *out = d->tpot * 1e3; return 1;
	default: return 0;
	}
}

int val_predict(const hw_system *s, const fw_framework *fw, const val_case *c, double *pred, char *reason,
		int len, int *mem_miss)
{
	return val_predict_at(s, fw, c, 0, pred, reason, len, mem_miss);
}

int val_predict_at(const hw_system *s, const fw_framework *fw, const val_case *c, double sustain, double *pred,
		   char *reason, int len, int *mem_miss)
{
	wl_workload *w = malloc(sizeof *w);
	plan p;
	char picked[1024];
	int ok = 1;
	if (mem_miss)
		*mem_miss = 0;
	if (!w) {
		snprintf(reason, (size_t)len, "out of memory");
		return 0;
	}
	val_build(c, fw, w, &p, picked, sizeof picked);
	if (sustain > 0)
		fw_sustain_set(&w->fw.train, s->chip.family, sustain);
	snprintf(reason, (size_t)len, "%s", picked);
	if (c->train) {
		train_result r;
		char why[TRAIN_REASON_MAX];
		train_eval(s, w, &p, &r, NULL);
		train_reason(&r, s, w, why, sizeof why);
		if (!(ok = val_result_metric(c->metric, &r, NULL, p.chips, pred)))
			snprintf(reason, (size_t)len, "metric %s is not a training metric", val_metric_names[c->metric]);
		if (ok && r.over_memory) {
			/* The run happened, so its memory fit: predict anyway and say that the memory
			 * model disagrees (counted as a memory miss, not skipped). */
			if (mem_miss)
				*mem_miss = 1;
			snprintf(reason, (size_t)len, "memory miss: the model %s; %s", why, picked);
		} else if (ok && !r.feasible) {
			ok = 0;
			snprintf(reason, (size_t)len, "the layout is infeasible in the model: %s (%s)", why, picked);
		}
	} else if (w->disagg.on) {
		disagg_result *d = malloc(sizeof *d);
		if (!d) {
			free(w);
			snprintf(reason, (size_t)len, "out of memory");
			return 0;
		}
		disagg_search(s, w, p.chips, d);
		if (!(ok = disagg_metric(c->metric, d, pred)))
			snprintf(reason, (size_t)len, "metric %s is not a disaggregated serving metric", val_metric_names[c->metric]);
		if (ok && !d->feasible) {
			ok = 0;
			snprintf(reason, (size_t)len, "the split is infeasible in the model: %s (%s)", d->reason, picked);
		} else if (ok) {
			size_t l = strlen(reason);
			snprintf(reason + l, (size_t)len - l, "; prefill %d x %d chips, decode %d x %d chips, %.0f running per decode replica",
				 d->pre.count, d->pre.plan.chips, d->dec.count, d->dec.plan.chips, d->dec.batch);
		}
		free(d);
	} else {
		infer_result r;
		infer_eval(s, w, &p, &r, NULL, NULL);
		if (!(ok = val_result_metric(c->metric, NULL, &r, p.chips, pred)))
			snprintf(reason, (size_t)len, "metric %s is not an inference metric", val_metric_names[c->metric]);
		if (ok && !r.feasible) {
			ok = 0;
			snprintf(reason, (size_t)len, "the layout is infeasible in the model: %s (%s)", r.reason, picked);
		} else if (ok) {
			size_t l = strlen(reason);
			snprintf(reason + l, (size_t)len - l, "; batch %.0f", r.batch);
		}
	}
	free(w);
	return ok;
}
