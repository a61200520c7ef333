/* validation: the run of `roofcost validate` and its JSON (see validation.h). */
#include "lib/validation.h"

#include <cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/names.h"
#include "engine/validate.h"
#include "report/show.h"

int validation_run(const char *csv, const char *models_dir, int what, validation_result *out, err *e)
{
	memset(out, 0, sizeof *out);
	if (cases_load(csv, models_dir, &out->cs, e) != 0)
		return 1;
	if (what & (VALIDATION_OOS | VALIDATION_LOFO))
		out->ngroups = fit_loso(out->cs.rows, out->cs.n, out->cs.fs);
	if ((what & VALIDATION_LOFO) && (out->lf = calloc(2 * FIT_GROUPS_MAX, sizeof *out->lf)) != NULL)
		out->nlf = fit_lofo_all(out->cs.rows, out->cs.n, out->cs.fs, out->lf, 2 * FIT_GROUPS_MAX);
	return 0;
}

void validation_release(validation_result *r)
{
	cases_release(&r->cs);
	free(r->lf);
	r->lf = NULL;
	r->nlf = 0;
}

/* "predicted" and "error_pct" into o, or nulls when there is no prediction. */
static void add_prediction(cJSON *o, int ok, double pred, double err_pct)
{
	if (ok) {
		cJSON_AddNumberToObject(o, "predicted", pred);
		cJSON_AddNumberToObject(o, "error_pct", err_pct);
	} else {
		cJSON_AddNullToObject(o, "predicted");
		cJSON_AddNullToObject(o, "error_pct");
	}
}

static cJSON *stats_json(fit_stats s)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "n", s.n);
	cJSON_AddNumberToObject(o, "skipped", s.skipped);
	cJSON_AddNumberToObject(o, "memory_misses", s.mem_misses);
	if (s.n > 0) {
		cJSON_AddNumberToObject(o, "median_abs_error_pct", s.median);
		cJSON_AddNumberToObject(o, "mean_abs_error_pct", s.mean);
		cJSON_AddNumberToObject(o, "max_abs_error_pct", s.max);
		cJSON_AddNumberToObject(o, "signed_median_error_pct", s.signed_median);
	} else {
		cJSON_AddNullToObject(o, "median_abs_error_pct");
		cJSON_AddNullToObject(o, "mean_abs_error_pct");
		cJSON_AddNullToObject(o, "max_abs_error_pct");
		cJSON_AddNullToObject(o, "signed_median_error_pct");
	}
	return o;
}

/* Per framework, chip family or source of one kind: name -> {in-sample stats, "out_of_sample":
 * stats}. */
static cJSON *group_json(const fit_row *r, int n, int kind, fit_field by)
{
	const char *names[FIT_GROUPS_MAX];
	int k = fit_distinct(r, n, kind, by, names, FIT_GROUPS_MAX);
	cJSON *o = cJSON_CreateObject();
	for (int i = 0; i < k; i++) {
		fit_filter f = {kind, by == FIT_BY_FRAMEWORK ? names[i] : NULL, by == FIT_BY_FAMILY ? names[i] : NULL,
				by == FIT_BY_GROUP ? names[i] : NULL, 0};
		cJSON *g = stats_json(fit_summarize(r, n, &f));
		f.oos = 1;
		cJSON_AddItemToObject(g, "out_of_sample", stats_json(fit_summarize(r, n, &f)));
		cJSON_AddItemToObject(o, names[i], g);
	}
	return o;
}

static cJSON *case_json(const fit_row *r, const interval_table *iv)
{
	cJSON *o = cJSON_CreateObject(), *x;
	cJSON_AddStringToObject(o, "case_id", r->c.id);
	cJSON_AddStringToObject(o, "kind", r->c.train ? "train" : "infer");
	cJSON_AddStringToObject(o, "system", r->c.system);
	cJSON_AddStringToObject(o, "framework", r->c.framework);
	cJSON_AddStringToObject(o, "source_group", r->c.group);
	cJSON_AddStringToObject(o, "metric", val_metric_names[r->c.metric]);
	cJSON_AddNumberToObject(o, "measured", r->c.value);
	add_prediction(o, r->ok, r->pred, r->err_pct);
	x = cJSON_AddObjectToObject(o, "out_of_sample");
	add_prediction(x, r->oos_ok, r->oos_pred, r->oos_err_pct);
	cJSON_AddStringToObject(x, "refitted", r->oos_refits);
	if (iv && r->ok) {
		/* DESIGN §6: the case's prediction with its calibration group's interval. */
		interval_status st;
		interval_lookup(iv, r->c.train, r->family, r->c.framework, &st);
		show_interval_add(cJSON_AddObjectToObject(o, "interval"), val_metric_names[r->c.metric], &st, r->pred,
				  fit_metric_is_time(r->c.metric),
				  r->c.metric == VAL_MFU || r->c.metric == VAL_HFU ? 1 : 0);
		show_calibration_fill(cJSON_AddObjectToObject(o, "calibration"), &st);
	}
	cJSON_AddStringToObject(o, "reason", r->reason);
	return o;
}

void *validation_json(const validation_result *v, const interval_table *iv)
{
	const fit_row *rows = v->cs.rows;
	int n = v->cs.n;
	cJSON *root = cJSON_CreateObject(), *arr = cJSON_AddArrayToObject(root, "cases"), *sum, *oos;
	fit_filter all = {-1, NULL, NULL, NULL, 0}, tr = {1, NULL, NULL, NULL, 0}, in = {0, NULL, NULL, NULL, 0};
	for (int i = 0; i < n; i++)
		cJSON_AddItemToArray(arr, case_json(&rows[i], iv));
	sum = stats_json(fit_summarize(rows, n, &all));
	cJSON_AddItemToObject(sum, "train", stats_json(fit_summarize(rows, n, &tr)));
	cJSON_AddItemToObject(sum, "infer", stats_json(fit_summarize(rows, n, &in)));
	for (int kind = 1; kind >= 0; kind--) {
		cJSON *g = cJSON_CreateObject(), *lo = cJSON_CreateObject();
		cJSON_AddItemToObject(g, "by_framework", group_json(rows, n, kind, FIT_BY_FRAMEWORK));
		cJSON_AddItemToObject(g, "by_family", group_json(rows, n, kind, FIT_BY_FAMILY));
		cJSON_AddItemToObject(g, "by_source", group_json(rows, n, kind, FIT_BY_GROUP));
		for (int i = 0; i < v->nlf; i++)
			if (v->lf[i].kind == kind) {
				cJSON *o = stats_json(v->lf[i].s);
				cJSON_AddStringToObject(o, "refitted", v->lf[i].refits);
				cJSON_AddItemToObject(lo, v->lf[i].framework, o);
			}
		cJSON_AddItemToObject(g, "leave_one_framework_out", lo);
		cJSON_AddItemToObject(sum, kind ? "train_groups" : "infer_groups", g);
	}
	cJSON_AddItemToObject(root, "summary", sum);
	/* DESIGN §6: each row predicted with every calibrated value refitted without its source. */
	oos = cJSON_AddObjectToObject(root, "out_of_sample");
	cJSON_AddStringToObject(oos, "by", "source");
	cJSON_AddNumberToObject(oos, "groups", v->ngroups);
	tr.oos = in.oos = all.oos = 1;
	cJSON_AddItemToObject(oos, "train", stats_json(fit_summarize(rows, n, &tr)));
	cJSON_AddItemToObject(oos, "infer", stats_json(fit_summarize(rows, n, &in)));
	cJSON_AddItemToObject(oos, "all", stats_json(fit_summarize(rows, n, &all)));
	return root;
}

/* A percentage "12.3 %", or "-" when there is none (no predicted row): never "nan %". */
static const char *pct(char *buf, size_t n, double v)
{
	if (isnan(v))
		snprintf(buf, n, "%*s", 1, "-");
	else
		snprintf(buf, n, "%.1f %%", v);
	return buf;
}

int validation_check(const validation_result *r, double chk[2][2][2], char msg[4][256])
{
	int k = 0;
	for (int oos = 0; oos < 2; oos++)
		for (int kind = 0; kind < 2; kind++) {
			fit_filter f = {kind, NULL, NULL, NULL, oos};
			fit_stats s = fit_summarize(r->cs.rows, r->cs.n, &f);
			const double *c = chk[oos][kind];
			char a[32], m[32];
			if (c[0] < 0 || !(s.skipped > 0 || s.n == 0 || s.median > c[0] || s.max > c[1]))
				continue;
			snprintf(msg[k++], 256,
				 "validate: %s rows%s miss the check: median %s (limit %g), max %s (limit %g), skipped %d%s",
				 kind ? "training" : "inference", oos ? " out of sample" : "", pct(a, sizeof a, s.median), c[0],
				 pct(m, sizeof m, s.max), c[1], s.skipped, s.n == 0 ? ", none predicted" : "");
		}
	return k;
}

int validation_explain_rows(const validation_result *r, const char *id, int *idx, int max, err *e)
{
	const cases_set *cs = &r->cs;
	int k = 0;
	for (int i = 0; i < cs->n; i++) {
		const fit_row *row = &cs->rows[i];
		if (strcmp(id, row->c.id) != 0 || !row->sys || !row->fw)
			continue;
		if (k < max)
			idx[k] = i;
		k++;
	}
	if (!k) {
		const char **ids = calloc((size_t)cs->n + 1, sizeof *ids);
		char sugg[512] = "";
		for (int i = 0; ids && i < cs->n; i++)
			ids[i] = cs->rows[i].c.id;
		if (ids)
			names_suggest(id, ids, cs->n, sugg, sizeof sugg);
		free(ids);
		err_at(e, cs->path, 0, "--explain: no case '%s'%s%s%s", id, sugg[0] ? "; did you mean " : "", sugg,
		       sugg[0] ? "?" : "");
		return -1;
	}
	return k;
}

/* What the model's server gives at the run's own load (the case's throughput row over
 * output_len), beside the prediction at the highest load meeting the limits. */
static void explain_at_load(const fit_row *r, validation_explained *x)
{
	wl_workload *w = malloc(sizeof *w);
	infer_result *ir = malloc(sizeof *ir);
	if (w && ir) {
		*w = *x->w;
		w->arrival_rate = r->c.load;
		infer_eval(r->sys, w, &x->p, ir, NULL, NULL);
		if (ir->at.stable && ir->at.requests_per_s > 0)
			snprintf(x->at_load, sizeof x->at_load, "%s; TTFT %.1f ms, TPOT %.2f ms (means)", ir->batch_reason,
				 ir->ttft * 1e3, ir->tpot * 1e3);
		else
			snprintf(x->at_load, sizeof x->at_load, "%s", ir->batch_reason);
	}
	free(w);
	free(ir);
}

int validation_explain(const fit_row *r, validation_explained *x)
{
	memset(x, 0, sizeof *x);
	x->row = r;
	if (!(x->w = malloc(sizeof *x->w)))
		return 1;
	val_build(&r->c, r->fw, x->w, &x->p, x->picked, sizeof x->picked);
	x->rep.sys = r->sys;
	x->rep.w = x->w;
	if (r->c.train) {
		train_eval(r->sys, x->w, &x->p, &x->tr, NULL);
		x->rep.train = &x->tr;
	} else {
		infer_eval(r->sys, x->w, &x->p, &x->ir, NULL, NULL);
		x->rep.infer = &x->ir;
		if (r->c.load > 0 && !x->w->disagg.on)
			explain_at_load(r, x);
		/* A disaggregated row is predicted by its pools (val_predict): shown after the
		 * aggregated layout its chips give. */
		if (x->w->disagg.on && (x->dis = malloc(sizeof *x->dis)) != NULL)
			disagg_search(r->sys, x->w, x->p.chips, x->dis);
	}
	return 0;
}

void validation_explained_release(validation_explained *x)
{
	free(x->dis);
	free(x->w);
	x->dis = NULL;
	x->w = NULL;
}

void *validation_explained_json(const validation_explained *x)
{
	const fit_row *r = x->row;
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "case_id", r->c.id);
	cJSON_AddNumberToObject(o, "line", r->c.line);
	cJSON_AddStringToObject(o, "metric", val_metric_names[r->c.metric]);
	cJSON_AddNumberToObject(o, "measured", r->c.value);
	add_prediction(o, r->ok, r->pred, r->err_pct);
	cJSON_AddStringToObject(o, "reason", r->reason);
	cJSON_AddStringToObject(o, "picked", x->picked);
	if (x->at_load[0])
		cJSON_AddStringToObject(o, "at_run_load", x->at_load);
	cJSON_AddItemToObject(o, "evaluation", show_json(&x->rep));
	if (x->dis)
		cJSON_AddItemToObject(o, "disaggregated", show_disagg_json(x->w, x->dis, NULL));
	return o;
}

void *validation_explain_json(const validation_result *r, const char *id, err *e)
{
	int idx[VALIDATION_EXPLAIN_MAX], n = validation_explain_rows(r, id, idx, VALIDATION_EXPLAIN_MAX, e);
	cJSON *root, *arr;
	if (n < 0)
		return NULL;
	root = cJSON_CreateObject();
	arr = cJSON_AddArrayToObject(root, "cases");
	for (int i = 0; i < n && i < VALIDATION_EXPLAIN_MAX; i++) {
		validation_explained x;
		if (validation_explain(&r->cs.rows[idx[i]], &x) == 0)
			cJSON_AddItemToArray(arr, validation_explained_json(&x));
		validation_explained_release(&x);
	}
	return root;
}
