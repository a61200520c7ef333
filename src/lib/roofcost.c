/* roofcost: the library's face over lib/ (see roofcost.h). Each call turns the options into the
 * setup_opts the command-line tool builds (through setup_option, so values are read and refused
 * the same way, with the same messages), runs the same lib/ function the tool's command runs,
 * and returns its JSON or its figures. */
#include "roofcost.h"

#include <cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/compare.h"
#include "lib/evaluate.h"
#include "lib/home.h"
#include "lib/listing.h"
#include "lib/release.h"
#include "lib/search.h"
#include "lib/setup.h"
#include "lib/validation.h"
#include "model/price.h"

#ifndef ROOFCOST_VERSION
#define ROOFCOST_VERSION "0.1.0"
#endif
/* The commit the library was built from (the Makefile's, as the tool's): what a release record's
 * check compares its tool with. */
#ifndef ROOFCOST_BUILD
#define ROOFCOST_BUILD "unknown"
#endif

struct roofcost {
	home_paths paths;
	interval_table *intervals;  /* models/intervals.ini, NULL where the data root has none */
	hw_cache hw;                /* the systems' shared files, once read */
	db *store;                  /* opened on first need */
	char msg[ERR_MSG_MAX];      /* the last failure's message */
};

const char *roofcost_version(void)
{
	return ROOFCOST_VERSION;
}

roofcost *roofcost_open(const char *home, const char *store, char *errbuf, size_t errlen)
{
	roofcost *h = calloc(1, sizeof *h);
	err e = {0};
	if (errlen)
		errbuf[0] = '\0';
	if (!h || !(h->intervals = calloc(1, sizeof *h->intervals))) {
		err_set(&e, ERR_DATA, "out of memory");
	} else if (home_at(&h->paths, home, store, &e) == 0 && interval_load(h->paths.models, h->intervals, &e) == 0) {
		if (!h->intervals->read) {
			free(h->intervals);
			h->intervals = NULL;
		}
		h->paths.intervals = h->intervals;
		h->paths.hw = &h->hw;
		return h;
	}
	if (errlen)
		snprintf(errbuf, errlen, "%s", e.msg);
	roofcost_close(h);
	return NULL;
}

void roofcost_close(roofcost *h)
{
	if (!h)
		return;
	if (h->store)
		db_close(h->store);
	free(h->intervals);
	free(h);
}

const char *roofcost_errmsg(const roofcost *h)
{
	return h ? h->msg : "no handle";
}

const char *roofcost_home(const roofcost *h)
{
	return h->paths.home;
}

const char *roofcost_store(const roofcost *h)
{
	return h->paths.db;
}

void roofcost_opts_init(roofcost_opts *o)
{
	memset(o, 0, sizeof *o);
}

void roofcost_free(void *p)
{
	free(p);
}

/* The end of a call: the message kept for roofcost_errmsg, the tool's exit code returned. */
static int done(roofcost *h, int rc, const err *e)
{
	if (rc == 0) {
		h->msg[0] = '\0';
		return 0;
	}
	snprintf(h->msg, sizeof h->msg, "%s", e->msg[0] ? e->msg : "failed");
	return e->code == ERR_USAGE ? 2 : 1;
}

/* One option into so (setup_option): 0, or nonzero with e set. */
static int opt(int code, const char *value, setup_opts *so, err *e)
{
	int r;
	if (!value)
		return 0;
	r = setup_option(code, value, so, e);
	if (r > 0)
		return 0;
	return r < 0 ? (int)e->code : err_set(e, ERR_USAGE, "option %d is not taken", code);
}

/* The options every call shares into so. */
static int shared_opts(const roofcost_opts *o, setup_opts *so, err *e)
{
	int rc = 0;
	setup_init(so);
	so->format = OUT_JSON;
	rc = opt(SETUP_OPT_SYSTEM, o->system, so, e);
	if (!rc)
		rc = opt(SETUP_OPT_WORKLOAD, o->workload, so, e);
	if (!rc)
		rc = opt(SETUP_OPT_PLAN, o->plan, so, e);
	for (int i = 0; i < o->nsets && !rc; i++)
		rc = opt(SETUP_OPT_SET, o->sets[i], so, e);
	if (!rc)
		rc = opt(SETUP_OPT_FRAMEWORK, o->framework, so, e);
	if (!rc)
		rc = opt(SETUP_OPT_AS_OF, o->as_of, so, e);
	for (int i = 0; i < o->nprices && !rc; i++)
		rc = opt(SETUP_OPT_PRICE, o->prices[i], so, e);
	if (!rc)
		rc = opt(SETUP_OPT_DISCOUNT, o->discount, so, e);
	return rc;
}

/* *json = the printed object, which is deleted. */
static int to_string(void *obj, char **json, err *e)
{
	char *s = obj ? cJSON_Print((cJSON *)obj) : NULL;
	cJSON_Delete((cJSON *)obj);
	if (!s)
		return err_set(e, ERR_DATA, "out of memory");
	if (json)
		*json = s;
	else
		free(s);
	return 0;
}

static int eval_setup(const roofcost_opts *o, setup_opts *so, err *e)
{
	int rc = shared_opts(o, so, e);
	if (!rc)
		rc = opt(SETUP_OPT_PRICING, o->pricing, so, e);
	if (!rc)
		rc = opt(SETUP_OPT_CHIPS, o->chips, so, e);
	return rc;
}

int roofcost_eval_json(roofcost *h, const roofcost_opts *o, char **json)
{
	setup_opts so;
	evaluate_result *ev = calloc(1, sizeof *ev);
	err e = {0};
	int rc = ev ? eval_setup(o, &so, &e) : err_set(&e, ERR_DATA, "out of memory");
	if (json)
		*json = NULL;
	if (!rc)
		rc = evaluate_run(&h->paths, &h->store, &so, NULL, ev, &e);
	if (!rc)
		rc = to_string(evaluate_json(ev), json, &e);
	if (ev)
		evaluate_release(ev);
	free(ev);
	return done(h, rc, &e);
}

int roofcost_eval(roofcost *h, const roofcost_opts *o, roofcost_result *out)
{
	setup_opts so;
	evaluate_result *ev = calloc(1, sizeof *ev);
	err e = {0};
	int rc = ev ? eval_setup(o, &so, &e) : err_set(&e, ERR_DATA, "out of memory");
	memset(out, 0, sizeof *out);
	if (!rc)
		rc = evaluate_run(&h->paths, &h->store, &so, NULL, ev, &e);
	if (!rc) {
		const train_result *tr = ev->rep.train;
		const infer_result *ir = ev->rep.infer;
		const cost_result *cr = &ev->cost.result;
		const plan *p = tr ? &tr->plan : &ir->plan;
		double nan = NAN;
		out->training = tr != NULL;
		out->feasible = tr ? tr->feasible : ir->feasible;
		if (tr)
			train_reason(tr, ev->sys, ev->w, out->reason, sizeof out->reason);
		else if (!ir->feasible)
			snprintf(out->reason, sizeof out->reason, "%s", ir->reason);
		snprintf(out->system, sizeof out->system, "%s", ev->sys->name);
		snprintf(out->workload, sizeof out->workload, "%s", ev->w->name);
		plan_format(p, out->plan, sizeof out->plan);
		out->chips = p->chips;
		out->mem_per_chip_gib = (tr ? tr->mem.total : ir->mem.total) / 1073741824.0;
		out->step_time_s = tr ? tr->step_time : nan;
		out->tokens_per_s = tr ? tr->tokens_per_s : ir->tokens_per_s;
		out->model_tflops_per_chip = tr ? tr->model_tflops_per_chip : nan;
		out->mfu = tr ? tr->mfu : nan;
		out->hfu = tr ? tr->hfu : nan;
		out->train_days = tr ? (isfinite(cr->run_time) && cr->run_time > 0 ? cr->run_time : tr->train_time) / 86400
				     : nan;
		out->ttft_ms = ir ? ir->ttft * 1e3 : nan;
		out->tpot_ms = ir ? ir->tpot * 1e3 : nan;
		out->ttft_tail_ms = ir ? ir->ttft_tail * 1e3 : nan;
		out->tpot_tail_ms = ir ? ir->tpot_tail * 1e3 : nan;
		out->tokens_per_s_per_chip = ir ? ir->tokens_per_s_per_chip : tr->tokens_per_s / p->chips;
		out->usd_per_hour = ev->cost.have_price && isfinite(cr->usd_per_hour) ? cr->usd_per_hour : nan;
		out->usd_per_unit = ev->cost.have_price && cr->ok && isfinite(cr->usd_per_unit) ? cr->usd_per_unit : nan;
		snprintf(out->unit, sizeof out->unit, "%s", cost_unit_names[cr->unit]);
	}
	if (ev)
		evaluate_release(ev);
	free(ev);
	return done(h, rc, &e);
}

int roofcost_compare_json(roofcost *h, const roofcost_opts *o, char **json)
{
	setup_opts so;
	setup_rank_args ra;
	compare_result *cr = calloc(1, sizeof *cr);
	err e = {0};
	int rc = cr ? shared_opts(o, &so, &e) : err_set(&e, ERR_DATA, "out of memory");
	if (json)
		*json = NULL;
	setup_rank_args_init(&ra);
	if (!rc && o->pricing && !strcmp(o->pricing, "all")) {
		so.pricing_all = 1;
	} else if (!rc) {
		rc = opt(SETUP_OPT_PRICING, o->pricing, &so, &e);
	}
	if (!rc && o->chips) {
		/* MIN-MAX bounds the search (setup_rank_option), N is the chips (setup_option). */
		int r = setup_rank_option(SETUP_OPT_CHIPS, o->chips, &so, &ra, &e);
		rc = r < 0 ? (int)e.code : r == 0 ? opt(SETUP_OPT_CHIPS, o->chips, &so, &e) : 0;
	}
	if (!rc && o->budget && setup_rank_option(SETUP_OPT_BUDGET, o->budget, &so, &ra, &e) < 0)
		rc = e.code;
	if (!rc && o->deadline && setup_rank_option(SETUP_OPT_DEADLINE, o->deadline, &so, &ra, &e) < 0)
		rc = e.code;
	if (!rc && !so.system)
		rc = err_set(&e, ERR_USAGE, "missing -s SYS1,SYS2,...|all");
	if (!rc)
		rc = compare_run(&h->paths, &h->store, &so, &ra, cr, &e);
	if (!rc)
		rc = to_string(compare_json(cr), json, &e);
	if (cr)
		compare_release(cr);
	free(cr);
	return done(h, rc, &e);
}

/* The sweep's options of o into so. */
static int sweep_opts(const roofcost_opts *o, search_opts *so, err *e)
{
	static const char *const names[] = {"chips", "tp", "pp", "vpp", "cp", "ep", "sp", "mb", "zero", "recompute"};
	const char *vals[10] = {o->chips, o->tp, o->pp, o->vpp, o->cp, o->ep, o->sp, o->mb, o->zero, o->recompute};
	sweep_list *lists[10] = {&so->space.chips, &so->space.tp, &so->space.pp, &so->space.vpp, &so->space.cp,
				 &so->space.ep, &so->space.sp, &so->space.mb, &so->space.zero, &so->space.recompute};
	search_opts_init(so);
	so->chips_text = o->chips;
	so->pricing_text = o->pricing;
	for (int i = 1; i < 10; i++) {
		if (!vals[i])
			continue;
		if (search_parse_list(names[i], vals[i], lists[i], e) != 0)
			return e->code;
		so->given[i] = 1;
	}
	if (o->top) {
		if (o->top < 1 || o->top > SWEEP_TOP_MAX)
			return err_set(e, ERR_USAGE, "--top: %d is not 1..%d", o->top, SWEEP_TOP_MAX);
		so->top = o->top;
	}
	if (o->threads) {
		if (o->threads < 1 || o->threads > 256)
			return err_set(e, ERR_USAGE, "--threads: %d is not 1..256", o->threads);
		so->threads = o->threads;
	}
	if (o->shard && search_shard_option(o->shard, &so->shard, &so->nshards, e) != 0)
		return e->code;
	return 0;
}

/* Calls fn on each point of the top list, then of the front, until it returns nonzero. */
static void each_point(const search_result *r, roofcost_sweep_fn fn, void *ctx)
{
	for (int part = 0; part < 2; part++) {
		const sweep_point *pts = part ? r->res->front : r->res->top;
		int n = part ? r->res->nfront : r->res->ntop;
		for (int i = 0; i < n; i++) {
			const sweep_point *p = &pts[i];
			roofcost_point q;
			memset(&q, 0, sizeof q);
			q.front = part;
			q.rank = i + 1;
			snprintf(q.system, sizeof q.system, "%s", r->nm->system[p->offer]);
			snprintf(q.pricing, sizeof q.pricing, "%s", r->nm->pricing[p->offer]);
			snprintf(q.recompute, sizeof q.recompute, "%s", search_recompute_names[p->recompute]);
			q.chips = p->plan.chips;
			q.tp = p->plan.tp;
			q.pp = p->plan.pp;
			q.vpp = p->plan.vpp;
			q.dp = p->plan.dp;
			q.cp = p->plan.cp;
			q.ep = p->plan.ep;
			q.sp = p->plan.sp;
			q.micro_batch = p->plan.micro_batch;
			q.zero = p->zero;
			q.step_time_s = p->step_time;
			q.tokens_per_s = p->tokens_per_s;
			q.mfu = p->mfu;
			q.mem_per_chip_gib = p->mem_gib;
			q.run_time_s = p->run_time;
			q.goodput = p->goodput;
			q.usd_per_run = p->usd_per_run;
			q.chip_hours = p->chip_hours;
			if (fn(ctx, &q) != 0)
				return;
		}
	}
}

int roofcost_sweep(roofcost *h, const roofcost_opts *o, roofcost_sweep_fn fn, void *ctx, char **json)
{
	setup_opts so;
	search_opts sw;
	search_result *r = calloc(1, sizeof *r);
	err e = {0};
	int rc = r ? shared_opts(o, &so, &e) : err_set(&e, ERR_DATA, "out of memory");
	if (json)
		*json = NULL;
	if (!rc)
		rc = sweep_opts(o, &sw, &e);
	if (!rc && o->plan)
		rc = err_set(&e, ERR_USAGE, "sweep takes lists (--tp 1,2,4 --pp 1-16 ...), not --plan");
	if (!rc && (!so.workload || !*so.workload || !so.system || !*so.system))
		rc = err_set(&e, ERR_USAGE, "sweep needs -w WORKLOAD and -s SYSTEMS (see --help)");
	if (!rc)
		rc = search_prepare(&h->paths, &h->store, &so, &sw, r, &e);
	if (!rc)
		rc = search_run(r, &sw, &e);
	if (!rc && fn)
		each_point(r, fn, ctx);
	if (!rc && json)
		rc = to_string(search_json(r, SEARCH_TABLE_BOTH), json, &e);
	if (r)
		search_release(r);
	free(r);
	return done(h, rc, &e);
}

int roofcost_sweep_merge(roofcost *h, const char *const *files, int n, int top, char **json)
{
	search_result *r = calloc(1, sizeof *r);
	err e = {0};
	int rc = 0;
	if (json)
		*json = NULL;
	if (!r)
		rc = err_set(&e, ERR_DATA, "out of memory");
	else if (n < 1)
		rc = err_set(&e, ERR_USAGE, "sweep --merge: no shard files");
	else if (top < 0 || top > SWEEP_TOP_MAX)
		rc = err_set(&e, ERR_USAGE, "--top: %d is not 1..%d", top, SWEEP_TOP_MAX);
	if (!rc)
		rc = search_merge(n, files, top ? top : 10, r, &e);
	if (!rc)
		rc = to_string(search_json(r, SEARCH_TABLE_BOTH), json, &e);
	if (r)
		search_release(r);
	free(r);
	return done(h, rc, &e);
}

int roofcost_list_json(roofcost *h, const char *what, char **json)
{
	out_table t;
	err e = {0};
	int rc;
	if (json)
		*json = NULL;
	rc = listing_table(&h->paths, what ? what : "", NULL, NULL, 0, NULL, 0, &t, &e);
	if (!rc)
		rc = to_string(listing_json(&t), json, &e);
	out_release(&t);
	return done(h, rc, &e);
}

int roofcost_validate_json(roofcost *h, const char *cases, char **json)
{
	validation_result *v = calloc(1, sizeof *v);
	err e = {0};
	int rc = 0;
	if (json)
		*json = NULL;
	if (!v)
		rc = err_set(&e, ERR_DATA, "out of memory");
	else if (!cases || !*cases)
		rc = err_set(&e, ERR_USAGE, "validate needs a case file (CASES.csv)");
	else if (validation_run(cases, h->paths.models, VALIDATION_LOFO, v, &e) != 0)
		rc = e.code ? (int)e.code : ERR_DATA;
	else
		rc = to_string(validation_json(v, h->paths.intervals), json, &e);
	if (v)
		validation_release(v);
	free(v);
	return done(h, rc, &e);
}

/* What a check says, kept for roofcost_errmsg: each message, "; " between them. */
static void keep(roofcost *h, const char *msg)
{
	size_t n = strlen(h->msg);
	if (n + 3 < sizeof h->msg)
		snprintf(h->msg + n, sizeof h->msg - n, "%s%s", n ? "; " : "", msg);
}

static void check_fail(void *ctx, const err *e)
{
	keep(ctx, e->msg);
}

static void check_say(void *ctx, const char *msg)
{
	keep(ctx, msg);
}

int roofcost_baseline_check_json(roofcost *h, const char *name, int frozen, const char *as_of, int fail_any,
				 char **json)
{
	record_tool t;
	release_check_opts co;
	release_sink sink = {NULL, check_fail, check_say, h};
	release_tally n;
	cJSON *out = NULL;
	err e = {0};
	int rc;
	if (json)
		*json = NULL;
	h->msg[0] = '\0';
	if (as_of && !price_is_date(as_of))
		return done(h, err_set(&e, ERR_USAGE, "baseline check: --as-of: '%s' is not a date (YYYY-MM-DD)", as_of), &e);
	if (frozen && as_of)
		return done(h, err_set(&e, ERR_USAGE, "baseline check: --frozen pins prices already (to the record's); "
				       "--as-of goes without it"), &e);
	if (name && !*name)
		return done(h, err_set(&e, ERR_USAGE, "baseline check: an empty record name"), &e);
	if (release_tool(&t, ROOFCOST_VERSION, ROOFCOST_BUILD, getenv("ROOFCOST_RECORD_KEY"), &e) != 0)
		return done(h, ERR_USAGE, &e);
	memset(&co, 0, sizeof co);
	co.name = name;
	co.all = name == NULL;
	co.expect = -1;
	co.how.frozen = frozen;
	co.how.fail_any = fail_any;
	co.how.as_of = as_of;
	rc = release_check(&h->paths, &t, &co, &sink, &n, &out);
	if (out && to_string(out, json, &e) != 0)
		return done(h, ERR_DATA, &e);
	if (rc == 3 && !h->msg[0])
		snprintf(h->msg, sizeof h->msg, "baseline check: %d of %d record%s fell short", n.fell_short, n.n,
			 n.n == 1 ? "" : "s");
	if (rc == 0)
		h->msg[0] = '\0';
	return rc;
}
