/* evaluate: one evaluation (see evaluate.h). */
#include "lib/evaluate.h"

#include <cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "report/show.h"

static int run_disagg(const home_paths *paths, db **store, const setup_opts *o, hw_system *sys,
		       const wl_workload *w, const plan *p, disagg_result *dis, rank_quote *dcost, err *e)
{
	rank_row *r = calloc(1, sizeof *r);
	setup_pricer pricer;
	rank_opts ro;
	int rc;
	if (!r)
		return err_set(e, ERR_DATA, "out of memory");
	setup_rank_opts(&pricer, paths, store, o, w, &ro);
	ro.total = o->chips;
	r->sys = sys;
	rc = rank_disagg(w, p, &ro, r, e);
	*dis = r->dis;
	*dcost = r->dcost;
	free(r);
	return rc;
}

int evaluate_run(const home_paths *paths, db **store, const setup_opts *o, const char *serving_only,
		 evaluate_result *out, err *e)
{
	memset(out, 0, sizeof *out);
	out->sys = malloc(sizeof *out->sys);
	out->w = malloc(sizeof *out->w);
	out->dis = malloc(sizeof *out->dis);
	out->dcost = malloc(sizeof *out->dcost);
	if (!out->sys || !out->w || !out->dis || !out->dcost)
		return err_set(e, ERR_DATA, "out of memory");
	if (setup_load(paths, o, o->system, out->sys, out->w, &out->plan, e) != 0)
		return e->code;
	if (serving_only && out->w->mode != WL_INFER)
		return err_set(e, ERR_USAGE, "%s: applies to serving (mode infer) workloads, %s is a training one",
			       serving_only, out->w->name);
	out->rep.sys = out->sys;
	out->rep.w = out->w;
	if (out->w->mode == WL_TRAIN) {
		train_eval(out->sys, out->w, &out->plan, &out->tr, NULL);
		out->rep.train = &out->tr;
	} else {
		infer_eval(out->sys, out->w, &out->plan, &out->ir, NULL, NULL);
		out->rep.infer = &out->ir;
	}
	if (setup_cost(paths, store, o, out->sys, out->w, out->rep.train, out->rep.infer, &out->cost, e) != 0)
		return e->code;
	out->rep.cost = &out->cost;
	out->rep.cal = setup_calibration(paths, out->sys, out->w, &out->cal);
	if (out->w->mode == WL_INFER && out->w->disagg.on) {
		if (run_disagg(paths, store, o, out->sys, out->w, &out->plan, out->dis, out->dcost, e) != 0)
			return e->code;
		out->has_disagg = 1;
	}
	return 0;
}

int evaluate_frontier(const home_paths *paths, db **store, const setup_opts *o, const hw_system *s,
		      const wl_workload *w, const plan *p, rank_frontier_set *f, err *e)
{
	setup_pricer pricer;
	rank_opts ro;
	setup_rank_opts(&pricer, paths, store, o, w, &ro);
	ro.fixed_plan = 0;
	ro.total = p->chips;
	return rank_frontier(w, p, &ro, s, f, e) != 0 ? (int)e->code : 0;
}

int evaluate_curve(const hw_system *s, const wl_workload *w, const plan *p, const double *loads, int n,
		   infer_load *out, char *reason, size_t len)
{
	return infer_curve(s, w, p, loads, n, out, reason, len);
}

void evaluate_ops(const hw_system *s, const wl_workload *w, const plan *p, ops_list *a, ops_list *b,
		  const char **s1, const char **s2)
{
	*s2 = NULL;
	if (w->mode == WL_TRAIN) {
		ops_train(w, p, s->chip.family, a);
		*s1 = "micro-batch";
		return;
	}
	{
		/* The workload's requests in flight, else its operating point: the prompts one
		 * iteration prefills and the running batch. */
		infer_result *ir = w->concurrency > 0 ? NULL : malloc(sizeof *ir);
		if (ir) {
			infer_eval(s, w, p, ir, a, b);
			free(ir);
		} else {
			int batch = w->concurrency > 0 ? w->concurrency : 1;
			ops_prefill(w, p, batch, a);
			ops_decode(w, p, batch, w->input_len + w->output_len / 2.0, b);
		}
		*s1 = "prefill";
		*s2 = "decode";
	}
}

void evaluate_release(evaluate_result *out)
{
	free(out->sys);
	free(out->w);
	free(out->dis);
	free(out->dcost);
	memset(out, 0, sizeof *out);
}

void *evaluate_json(const evaluate_result *r)
{
	cJSON *j = show_json(&r->rep);
	if (j && r->has_disagg)
		cJSON_AddItemToObject(j, "disaggregated", show_disagg_json(r->w, r->dis, r->dcost));
	return j;
}
