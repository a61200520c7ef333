/* compare: every system's best layout, ranked (see compare.h). */
#include "lib/compare.h"

#include <cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/show.h"

/* Serving: the concurrency cap decides a row when the load it settled on is the cap. */
int compare_capped(const rank_row *r)
{
	const wl_workload *w = &r->w;
	return w->mode == WL_INFER && w->scenario != WL_SINGLE && r->klass <= RANK_OVER_BUDGET &&
	       w->concurrency > 0 && r->ir.cap_limits && strstr(r->ir.cap_reason, "concurrency") != NULL;
}

/* The line above the table: what the systems are ranked at. */
static void limits_text(const wl_workload *w, const rank_opts *ro, int fill, char *buf, size_t n)
{
	if (w->mode == WL_INFER) {
		char lim[160] = "";
		if (w->ttft_slo > 0 || w->tpot_slo > 0)
			snprintf(lim, sizeof lim, "p%g TTFT <= %.4g ms, p%g TPOT <= %.4g ms", w->slo_percentile,
				 w->ttft_slo * 1e3, w->slo_percentile, w->tpot_slo * 1e3);
		else
			snprintf(lim, sizeof lim, "no latency limits");
		char most[96] = "";
		if (w->concurrency > 0)
			snprintf(most, sizeof most, ", at most %d streams over the replicas (the workload's concurrency)",
				 w->concurrency);
		if (w->scenario == WL_SINGLE)
			snprintf(buf, n, "limits: %s; load: %d concurrent streams over the replicas (scenario single)", lim,
				 w->concurrency);
		else if (w->scenario == WL_OFFLINE)
			snprintf(buf, n, "limits: %s; load: the batch that maximises tokens/s%s (scenario offline)", lim,
				 most);
		else if (w->arrival_rate > 0)
			snprintf(buf, n, "limits: %s; load: %.4g requests/s over the replicas (the workload's arrival_rate)%s "
				 "(scenario %s)", lim, w->arrival_rate, most, wl_scenario_names[w->scenario]);
		else
			snprintf(buf, n, "limits: %s; load: the highest that meets them%s (scenario %s)", lim, most,
				 wl_scenario_names[w->scenario]);
		if (ro->fixed_plan)
			snprintf(buf + strlen(buf), n - strlen(buf), "; the --plan layout as given");
		else
			snprintf(buf + strlen(buf), n - strlen(buf), "; every layout, replicas filling %d chips", fill);
		if (!ro->fixed_plan && (ro->cmax < RANK_CHIPS_OPEN || ro->cmin > 1))
			snprintf(buf + strlen(buf), n - strlen(buf), ", %d-%d chips per replica", ro->cmin, ro->cmax);
	} else {
		size_t l;
		if (ro->fixed_plan)
			snprintf(buf, n, "search: the --plan layout as given");
		else if (ro->cmax >= RANK_CHIPS_OPEN)
			snprintf(buf, n, "search: every layout at the workload's chip count");
		else if (ro->cmin == ro->cmax)
			snprintf(buf, n, "search: every layout at %d chips", ro->cmin);
		else
			snprintf(buf, n, "search: every layout at each power of two from %d to %d chips", ro->cmin, ro->cmax);
		l = strlen(buf);
		if (ro->deadline > 0)
			snprintf(buf + l, n - l, "; deadline %.4g days, failures included", ro->deadline / 86400);
		else
			snprintf(buf + l, n - l, "; no deadline (--deadline DAYS)");
	}
}

/* The notes under the table (and in JSON): the concurrency cap, spot. "" when none. */
static void cap_note(const rank_row *rows, int n, char *buf, size_t len)
{
	size_t l;
	int k = 0;
	buf[0] = '\0';
	for (int i = 0; i < n; i++)
		if (compare_capped(&rows[i])) {
			if (k++ == 0)
				snprintf(buf, len, "the workload's concurrency (%d streams over the replicas) decides the "
					 "result of", rows[i].w.concurrency);
			l = strlen(buf);
			snprintf(buf + l, len - l, "%s %s", k > 1 ? "," : "", rows[i].sys->name);
		}
	if (k) {
		l = strlen(buf);
		snprintf(buf + l, len - l, ": the latency limits allow more load and a lower cost per unit "
			 "(--set concurrency=N, or leave it out)");
	}
}

/* The freshness of the prices compared (rank_price_ages) as JSON fields of root. */
static void ages_json(cJSON *root, const rank_row *rows, const rank_ages *a)
{
	cJSON *o = cJSON_CreateObject();
	if (a->n)
		cJSON_AddNumberToObject(root, "price_age_spread_days", a->spread_days);
	else
		cJSON_AddNullToObject(root, "price_age_spread_days");
	cJSON_AddNumberToObject(o, "threshold_days", a->threshold_days);
	cJSON_AddNumberToObject(o, "dated_prices", a->n);
	cJSON_AddBoolToObject(o, "stale", a->stale);
	for (int k = 0; k < 2; k++) {
		int i = k ? a->newest : a->oldest;
		cJSON *x;
		if (i < 0) {
			cJSON_AddNullToObject(o, k ? "newest" : "oldest");
			continue;
		}
		x = cJSON_AddObjectToObject(o, k ? "newest" : "oldest");
		cJSON_AddStringToObject(x, "system", rows[i].sys->name);
		cJSON_AddStringToObject(x, "pricing_model", price_model_names[rows[i].cost.price.model]);
		cJSON_AddStringToObject(x, "as_of", rows[i].cost.price.as_of);
	}
	if (a->stale)
		cJSON_AddStringToObject(o, "warning", a->text);
	else
		cJSON_AddNullToObject(o, "warning");
	cJSON_AddItemToObject(root, "price_age", o);
}

void *compare_json(const compare_result *c)
{
	const wl_workload *w0 = c->w0;
	const rank_row *rows = c->rows;
	const rank_opts *ro = &c->ro;
	const char *limits = c->limits, *note = c->note, *empty = c->price_note;
	const rank_ages *ages = &c->ages;
	int nrows = c->nrows;
	cJSON *root = cJSON_CreateObject(), *arr, *lim = cJSON_CreateObject();
	if (!root || !lim) {
		cJSON_Delete(root);
		cJSON_Delete(lim);
		return NULL;
	}
	cJSON_AddStringToObject(root, "workload", w0->name);
	cJSON_AddStringToObject(root, "unit", cost_unit_names[w0->cost.unit]);
	if (w0->mode == WL_INFER) {
		cJSON_AddNumberToObject(lim, "percentile", w0->slo_percentile);
		if (w0->ttft_slo > 0)
			cJSON_AddNumberToObject(lim, "ttft_ms", w0->ttft_slo * 1e3);
		else
			cJSON_AddNullToObject(lim, "ttft_ms");
		if (w0->tpot_slo > 0)
			cJSON_AddNumberToObject(lim, "tpot_ms", w0->tpot_slo * 1e3);
		else
			cJSON_AddNullToObject(lim, "tpot_ms");
		cJSON_AddStringToObject(lim, "scenario", wl_scenario_names[w0->scenario]);
		cJSON_AddNumberToObject(lim, "concurrency", w0->concurrency);
	} else {
		int open = ro->cmax >= RANK_CHIPS_OPEN;
		if (open) {
			cJSON_AddNullToObject(lim, "chips_min");
			cJSON_AddNullToObject(lim, "chips_max");
		} else {
			cJSON_AddNumberToObject(lim, "chips_min", ro->cmin);
			cJSON_AddNumberToObject(lim, "chips_max", ro->cmax);
		}
		if (ro->deadline > 0)
			cJSON_AddNumberToObject(lim, "deadline_days", ro->deadline / 86400);
		else
			cJSON_AddNullToObject(lim, "deadline_days");
	}
	if (ro->budget > 0)
		cJSON_AddNumberToObject(lim, "budget_usd", ro->budget);
	else
		cJSON_AddNullToObject(lim, "budget_usd");
	cJSON_AddStringToObject(lim, "text", limits);
	cJSON_AddItemToObject(root, "limits", lim);
	if (note[0])
		cJSON_AddStringToObject(root, "note", note);
	else
		cJSON_AddNullToObject(root, "note");
	if (empty[0])
		cJSON_AddStringToObject(root, "price_note", empty);
	ages_json(root, rows, ages);
	cJSON_AddStringToObject(root, "comm_note", show_comm_note);
	arr = cJSON_AddArrayToObject(root, "systems");
	for (int i = 0; i < nrows; i++) {
		cJSON *j = show_json(&rows[i].rep);
		cJSON_AddNumberToObject(j, "rank", i + 1);
		cJSON_AddStringToObject(j, "pricing_model", price_model_names[rows[i].cost.pricing]);
		cJSON_AddStringToObject(j, "layout", rows[i].plan);
		cJSON_AddStringToObject(j, "bound", rows[i].bound);
		cJSON_AddStringToObject(j, "verdict", rows[i].verdict);
		cJSON_AddNumberToObject(j, "layouts_searched", (double)rows[i].searched);
		if (w0->mode == WL_INFER)
			cJSON_AddBoolToObject(j, "capped_by_concurrency", compare_capped(&rows[i]));
		if (rows[i].has_disagg)
			cJSON_AddItemToObject(j, "disaggregated", show_disagg_json(&rows[i].w, &rows[i].dis, &rows[i].dcost));
		cJSON_AddItemToArray(arr, j);
	}
	return root;
}

int compare_run(const home_paths *paths, db **store, const setup_opts *opts, const setup_rank_args *ra,
		compare_result *out, err *e)
{
	const setup_opts *o = opts;
	char **names = NULL;
	int nnames, nmodels, rc = 0;
	memset(out, 0, sizeof *out);
	out->budget = ra->budget;
	out->ws = sweep_ws_new();   /* the training searches of every system share it */
	out->w0 = malloc(sizeof *out->w0);
	if (!out->ws || !out->w0)
		return err_set(e, ERR_DATA, "out of memory");
	nnames = home_system_names(paths, o->system, &names, e);
	if (nnames < 0)
		return e->code;
	nmodels = o->pricing_all ? PRICE_MODEL_N : 1;
	out->rows = calloc((size_t)(nnames ? nnames : 1) * (size_t)nmodels, sizeof *out->rows);
	out->systems = calloc((size_t)(nnames ? nnames : 1), sizeof *out->systems);
	out->nsystems = nnames;
	if (!out->rows || !out->systems) {
		home_free_names(names, nnames);
		return err_set(e, ERR_DATA, "out of memory");
	}
	for (int i = 0; i < nnames && rc == 0; i++) {
		setup_opts so = *o;
		plan p;
		int first = out->nrows, kept = 0;
		/* A search is not tied to the workload's layout: --chips is checked against it only
		 * when --plan fixes the layout. */
		if (!o->plan_text)
			so.chips = 0;
		so.pricing_all = 0;
		/* The workload once: the same options load it the same for every system. */
		if ((i == 0 ? setup_load(paths, &so, names[i], &out->systems[i], out->w0, &p, e)
			    : setup_load_system(paths, &so, names[i], out->w0, &out->systems[i], &p, e)) != 0) {
			rc = e->code;
			break;
		}
		setup_rank_plan(ra, o, out->w0, &p);
		setup_rank_opts(&out->pricer, paths, store, o, out->w0, &out->ro);
		out->ro.ws = out->ws;
		if ((rc = setup_rank_apply(ra, o, out->w0, &p, &out->ro, &out->fill, e)) != 0)
			break;
		for (int k = 0; k < nmodels && rc == 0; k++) {
			rank_row *r = &out->rows[out->nrows];
			if (o->pricing_all)
				out->ro.pricing = (price_model)k;
			r->sys = &out->systems[i];
			if ((rc = rank_system(out->w0, &p, &out->ro, r, e)) != 0)
				break;
			out->nrows++;
		}
		/* --pricing all: the pricing models with a price; one row (the first model's) when none
		 * has. A user's price stands for every model: one row. */
		for (int k = first; k < out->nrows && o->pricing_all; k++) {
			const rank_quote *q = &out->rows[k].cost;
			if (q->have_price && !(q->user_price && kept))
				out->rows[first + kept++] = out->rows[k];
		}
		if (o->pricing_all)
			out->nrows = first + (kept ? kept : 1);
	}
	home_free_names(names, nnames);
	if (rc != 0)
		return rc;
	rank_sort(out->rows, out->nrows);
	rank_verdicts(out->rows, out->nrows, ra->budget);
	rank_price_ages(out->rows, out->nrows, out->w0->cost.owned.price_age_days, &out->ages);
	if (out->nrows > 0 && !o->pricing_all &&
	    setup_no_price_note(paths, store, out->rows, out->nrows, o, out->price_note, sizeof out->price_note, e) != 0)
		return e->code ? e->code : ERR_DATA;
	if (out->nrows > 0) {
		char spot[RANK_NOTE_MAX];
		char *note = out->note;
		limits_text(&out->rows[0].w, &out->ro, out->fill, out->limits, sizeof out->limits);
		cap_note(out->rows, out->nrows, note, sizeof out->note);
		show_spot_text(&out->rows[0].cost, out->rows[0].w.mode == WL_TRAIN, spot, sizeof spot);
		if (spot[0])
			snprintf(note + strlen(note), sizeof out->note - strlen(note), "%s%s", note[0] ? "; " : "", spot);
		rank_error_note(out->rows, out->nrows, spot, sizeof spot);
		if (spot[0])
			snprintf(note + strlen(note), sizeof out->note - strlen(note), "%s%s", note[0] ? "; " : "", spot);
	}
	return 0;
}

void compare_release(compare_result *out)
{
	sweep_ws_free(out->ws);
	free(out->systems);
	free(out->rows);
	free(out->w0);
	memset(out, 0, sizeof *out);
}
