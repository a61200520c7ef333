/* rank: best layout per system, its cost and its verdict (see rank.h). */
#include "engine/rank.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/cost.h"
#include "model/nn.h"
#include "engine/sweep.h"

int rank_slo_met(const wl_workload *w, const infer_result *r)
{
	return r->feasible && frontier_slo_met(w, r->ttft_tail, r->tpot_tail);
}

void rank_frontier_space(const rank_opts *o, const plan *given, frontier_space *sp)
{
	memset(sp, 0, sizeof *sp);
	sp->total = o->total > 0 ? o->total : given->chips;
	sp->rmin = o->cmin;
	sp->rmax = o->cmax >= RANK_CHIPS_OPEN ? 0 : o->cmax;
}

double rank_spot_mtbf(double chip_mtbf, double interval, int node_chips)
{
	if (!(interval > 0) || node_chips < 1)
		return chip_mtbf;
	return 1 / (1 / chip_mtbf + 1 / (node_chips * interval));
}

void rank_cost(const wl_workload *w, const train_result *tr, const infer_result *ir, rank_quote *out)
{
	int feasible = tr ? tr->feasible : ir->feasible;
	out->terms = w->cost;
	out->standby = 0;
	if (out->pricing != PRICE_SPOT)
		out->spot_interval = 0;
	else if (!(out->spot_interval > 0))
		out->spot_interval = w->cost.spot_interval;
	if (out->spot_interval > 0 && tr) {
		out->terms.failures.chip_mtbf = rank_spot_mtbf(w->cost.failures.chip_mtbf, out->spot_interval,
							      out->node_chips);
	} else if (out->spot_interval > 0) {
		/* A replica of k instances loses one every interval / k and is whole again after the
		 * restart time R: it is down kR / (interval + kR) of the time, capacity that stands by
		 * (renewal: up interval / k, down R, on average). */
		int node = out->node_chips > 0 ? out->node_chips : 1;
		double k = ceil((double)ir->plan.tp * ir->plan.pp * ir->plan.cp / node);
		double down = k * w->cost.failures.restart;
		cost_terms *t = &out->terms.terms;
		out->standby = down / (out->spot_interval + down);
		t->idle_headroom = 1 - (1 - t->idle_headroom) * (1 - out->standby);
	}
	if (tr) {
		cost_train_in in;
		memset(&in, 0, sizeof in);
		/* Mixed-precision Adam state, 16 B per parameter (Rajbhandari et al. 2020): the
		 * checkpoint size when the workload gives none. */
		if (out->terms.failures.checkpoint_bytes <= 0)
			out->terms.failures.checkpoint_bytes = 16 * nn_params(&w->net).total;
		in.chips = tr->plan.chips;
		in.usd_per_chip_hour = out->usd_per_chip_hour;
		in.tokens = w->tokens;
		in.tokens_per_s = tr->tokens_per_s;
		in.failures = out->terms.failures;
		in.terms = out->terms.terms;
		cost_train(&in, &out->result);
	} else {
		cost_infer_in in;
		double busy = ir->ttft + (w->output_len - 1) * ir->tpot;
		memset(&in, 0, sizeof in);
		in.unit = w->cost.unit;
		in.chips = ir->plan.chips;
		in.usd_per_chip_hour = out->usd_per_chip_hour;
		in.tokens_per_s = ir->tokens_per_s;
		/* infer.h: a request cycle is TTFT + (output_len - 1) TPOT; prefill is its TTFT. */
		in.prefill_share = busy > 0 ? ir->ttft / busy : 0;
		in.input_per_output = (double)w->input_len / w->output_len;
		in.output_per_example = w->output_len;
		in.terms = out->terms.terms;
		cost_infer(&in, &out->result);
		out->prefill_share = in.prefill_share;
		out->slo_met = rank_slo_met(w, ir);
		if (feasible && !out->slo_met && out->have_price && !out->note[0])
			snprintf(out->note, sizeof out->note, "this layout misses the latency limits: the cost "
				 "per unit is not at the SLO");
	}
	if (!feasible) {
		out->result.ok = 0;
		out->result.usd_per_unit = NAN;
		snprintf(out->result.reason, sizeof out->result.reason, "the layout is infeasible");
	}
	if (out->have_price && !out->result.ok) {
		size_t l = strlen(out->note);
		snprintf(out->note + l, sizeof out->note - l, "%sno cost per %s: %s", l ? "; " : "",
			 cost_unit_text[out->result.unit], out->result.reason);
	}
	cost_energy_eval(tr ? tr->plan.chips : ir->plan.chips, out->rated_w_per_chip, &w->cost.owned, &out->result,
			 tr ? tr->tokens_per_s : ir->tokens_per_s, &out->energy);
}

/* out with the pricing model and date of o, and no price yet. */
static void cost_start(const rank_opts *o, rank_quote *out)
{
	memset(out, 0, sizeof *out);
	out->pricing = o->pricing;
	snprintf(out->as_of, sizeof out->as_of, "%s", o->as_of ? o->as_of : "");
	out->usd_per_chip_hour = NAN;
	out->rated_w_per_chip = NAN;
}

/* The user's price of s as a price row: per chip, provider "user", no catalog date. */
static int user_price(const rank_opts *o, const hw_system *s, rank_quote *out)
{
	for (int i = 0; i < o->nuser_prices; i++) {
		const rank_user_price *u = &o->user_prices[i];
		price_row *p = &out->price;
		if (strcmp(u->system, s->name) != 0)
			continue;
		snprintf(p->provider, sizeof p->provider, "user");
		snprintf(p->instance, sizeof p->instance, "%s", s->instance[0] ? s->instance : s->name);
		p->model = out->pricing;
		p->usd_per_hour = u->usd_per_chip_hour;
		p->unit = PRICE_PER_CHIP;
		p->accelerators = 1;
		snprintf(p->source, sizeof p->source, "--price %s=%.10g: the user's own price, no catalog",
			 s->name, u->usd_per_chip_hour);
		out->have_price = out->user_price = 1;
		out->usd_per_chip_hour = u->usd_per_chip_hour;
		return 1;
	}
	return 0;
}

/* The first owned figure w cannot give (models/cost.ini absent and no [cost] key), or NULL. */
static const char *owned_missing(const wl_workload *w)
{
	const cost_owned *t = &w->cost.owned;
	const double v[] = {t->amortization, t->electricity_usd_per_kwh, t->hosting_usd_per_kw_month, t->pue,
			    t->network_storage_share, t->staff_usd_per_kw_month, t->power_share};
	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
		if (!isfinite(v[i]))
			return cost_owned_keys[i];
	return NULL;
}

/* PRICE_OWNED: what owning s costs per chip-hour, as a price row of provider "owned". */
static void owned_price(const rank_opts *o, const hw_system *s, const wl_workload *w, rank_quote *out)
{
	price_row *p = &out->price;
	double capex = hw_capex_per_chip(s);
	const char *miss = owned_missing(w);
	char from[PRICE_SOURCE_MAX];
	for (int i = 0; i < o->nuser_capex; i++) {
		const rank_user_capex *u = &o->user_capex[i];
		int chips = u->chips > 0 ? u->chips : hw_node_chips(s);
		if (strcmp(u->system, s->name) != 0)
			continue;
		capex = u->usd / chips;
		out->user_capex = 1;
		snprintf(from, sizeof from, "--capex %s=%.10g/%d: the user's own quote", s->name, u->usd, chips);
	}
	if (!isfinite(capex) || !isfinite(out->rated_w_per_chip)) {
		/* Every figure missing is named, the capex first (a quote supplies it). */
		char cap[RANK_NOTE_MAX] = "";
		if (!isfinite(capex))
			snprintf(cap, sizeof cap, "no capex for %s (%s); --capex %s=USD gives your own quote%s", s->name,
				 s->no_capex[0] ? s->no_capex : "[capex] in its system file", s->name,
				 isfinite(out->rated_w_per_chip) ? "" : "; ");
		snprintf(out->note, sizeof out->note, "no owned price: %s%s", cap,
			 isfinite(out->rated_w_per_chip) ? "" : out->power_note);
		return;
	}
	if (miss) {
		snprintf(out->note, sizeof out->note, "no owned price: no %s (models/cost.ini is missing; --set %s=... "
			 "gives yours)", miss, miss);
		return;
	}
	cost_owned_eval(capex, out->rated_w_per_chip, &w->cost.owned, &out->owned);
	snprintf(p->provider, sizeof p->provider, "owned");
	snprintf(p->instance, sizeof p->instance, "%s", s->name);
	p->model = PRICE_OWNED;
	p->usd_per_hour = out->owned.total;
	p->unit = PRICE_PER_CHIP;
	p->accelerators = 1;
	if (!out->user_capex) {
		/* The capex date is the price's: the figure that ages. */
		snprintf(p->as_of, sizeof p->as_of, "%s", s->src_capex.as_of);
		snprintf(from, sizeof from, "%s", s->src_capex.source);
	}
	{
		/* The capex's unverified mark (price.h) carries over to the owned price. */
		price_row mark;
		const char *text = from;
		snprintf(mark.source, sizeof mark.source, "%s", from);
		if (!price_verified(&mark)) {
			text += 10;
			text += strspn(text, " \t:;,-");
		}
		snprintf(p->source, sizeof p->source, "%scapex: %s", price_verified(&mark) ? "" : price_unverified_prefix,
			 text);
	}
	out->have_price = 1;
	out->usd_per_chip_hour = out->owned.total;
}

/* The discount of o for s priced by provider: system or instance name, then the provider,
 * then one for every price; NULL when none applies. */
static const rank_discount *discount_for(const rank_opts *o, const hw_system *s, const char *provider)
{
	const rank_discount *best = NULL;
	int rank = 0;
	for (int i = 0; i < o->ndiscounts; i++) {
		const rank_discount *d = &o->discounts[i];
		int r = !d->key[0] ? 1 : !strcmp(d->key, provider) ? 2 :
			!strcmp(d->key, s->name) || (s->instance[0] && !strcmp(d->key, s->instance)) ? 3 : 0;
		if (r > rank) {
			rank = r;
			best = d;
		}
	}
	return best;
}

int rank_price(const rank_opts *o, const hw_system *s, const wl_workload *w, rank_quote *out, err *e)
{
	const rank_discount *d;
	cost_start(o, out);
	out->node_chips = hw_node_chips(s);
	out->rated_w_per_chip = hw_rated_w_per_chip(s);
	if (!isfinite(out->rated_w_per_chip))
		snprintf(out->power_note, sizeof out->power_note, "no rated power for %s ([power] rated in its system "
			 "file%s%s)", s->name, s->no_power[0] ? ": " : "", s->no_power);
	if (user_price(o, s, out))
		return 0;
	if (o->pricing == PRICE_OWNED) {
		owned_price(o, s, w, out);
		return 0;
	}
	if (!o->price) {
		snprintf(out->note, sizeof out->note, "not priced");
		return 0;
	}
	if (o->price(o->price_ctx, s, w, out, e) != 0)
		return ERR_DATA;
	d = out->have_price ? discount_for(o, s, out->price.provider[0] ? out->price.provider : s->provider) : NULL;
	if (d && d->share > 0) {
		out->discount = d->share;
		snprintf(out->discount_from, sizeof out->discount_from, "%s", d->key[0] ? d->key : "all");
		out->usd_per_chip_hour *= 1 - d->share;
	}
	return 0;
}

int rank_price_and_cost(const rank_opts *o, const hw_system *s, const wl_workload *w,
			const train_result *tr, const infer_result *ir, rank_quote *out, err *e)
{
	if (rank_price(o, s, w, out, e) != 0)
		return ERR_DATA;
	rank_cost(w, tr, ir, out);
	return 0;
}

/* The largest of compute, memory, exposed communication per level, bubble, runtime. */
static void infer_bound(const infer_result *r, const hw_system *s, char *buf, size_t n)
{
	const infer_step *st = &r->step;
	double best = st->ops.t_bound[ROOF_COMPUTE];
	snprintf(buf, n, "compute");
	if (st->ops.t_bound[ROOF_MEMORY] > best) {
		best = st->ops.t_bound[ROOF_MEMORY];
		snprintf(buf, n, "memory");
	}
	if (st->ops.t_bound[ROOF_OVERHEAD] > best) {
		best = st->ops.t_bound[ROOF_OVERHEAD];
		snprintf(buf, n, "kernel launches");
	}
	for (int l = 0; l < s->nlevels; l++)
		if (st->comm_level[l] > best) {
			best = st->comm_level[l];
			snprintf(buf, n, "link: %s", hw_level_names[s->levels[l].kind]);
		}
	if (st->t_overhead > best)
		snprintf(buf, n, "runtime per layer");
}

static void train_bound(const train_result *r, const hw_system *s, char *buf, size_t n)
{
	double best = r->t_bound[ROOF_COMPUTE];
	snprintf(buf, n, "compute");
	if (r->t_bound[ROOF_MEMORY] > best) {
		best = r->t_bound[ROOF_MEMORY];
		snprintf(buf, n, "memory");
	}
	for (int l = 0; l < s->nlevels; l++)
		if (r->comm.level[l] > best) {
			best = r->comm.level[l];
			snprintf(buf, n, "link: %s", hw_level_names[s->levels[l].kind]);
		}
	if (r->t_bubble > best)
		snprintf(buf, n, "pipeline bubble");
}

/* A layout and the most tokens/s per chip it could reach (-1: it cannot serve). */
typedef struct bounded {
	int i;
	double bound;
} bounded;

/* The most output tokens/s per chip a layout can give within the TPOT limit: a request's TPOT
 * is at least the decode-only iteration t_D(b) of the b sequences decoding beside it, so b is at
 * most the largest batch with t_D(b) <= the limit (within the seats the server holds), and the
 * tokens/s of a replica b / TPOT at most b / t_D(b) there (t_D grows no faster than b). */
static double tpot_bound(const hw_system *s, const wl_workload *w, const plan *p, double seats)
{
	double ctx = w->input_len + w->output_len / 2.0, lo = 1, hi = seats > 1 ? seats : 1;
	infer_step st;
	infer_step_eval(s, w, p, lo, ctx, 0, &st);
	if (st.t > w->tpot_slo)
		return 0; /* not even one sequence decodes within the limit */
	infer_step_eval(s, w, p, hi, ctx, 0, &st);
	if (st.t > w->tpot_slo) {
		for (int it = 0; it < 30 && hi - lo > 1e-3 * hi; it++) {
			double mid = 0.5 * (lo + hi);
			infer_step_eval(s, w, p, mid, ctx, 0, &st);
			if (st.t <= w->tpot_slo)
				lo = mid;
			else
				hi = mid;
		}
	} else {
		lo = hi;
	}
	infer_step_eval(s, w, p, lo, ctx, 0, &st);
	return lo / st.t * (p->dp > 0 ? p->dp : 1) / p->chips;
}

static int by_bound(const void *a, const void *b)
{
	const bounded *x = a, *y = b;
	if (x->bound != y->bound)
		return x->bound > y->bound ? -1 : 1;
	return x->i - y->i;
}

/* Serving: the best layout of the frontier's (frontier_layouts) at the latency limits. */
static int best_serving(const wl_workload *w, const plan *given, const rank_opts *o, rank_row *r, err *e)
{
	const hw_system *s = r->sys;
	plan *cand = malloc(sizeof *cand * FRONTIER_LAYOUTS_MAX);
	bounded *order = malloc(sizeof *order * FRONTIER_LAYOUTS_MAX);
	int nc = 0, have = 0, prune = 0, best_i = 0;
	infer_result *cur = malloc(sizeof *cur);
	rank_quote *cc = malloc(sizeof *cc);
	double best_key = INFINITY, best_per_chip = 0;
	int best_klass = RANK_INFEASIBLE + 1;
	if (!cur || !cc || !cand || !order) {
		free(cur);
		free(cc);
		free(cand);
		free(order);
		return err_set(e, ERR_DATA, "out of memory");
	}
	if (o->fixed_plan) {
		cand[nc++] = *given;
	} else {
		frontier_space sp;
		rank_frontier_space(o, given, &sp);
		nc = frontier_layouts(s, w, &sp, cand, FRONTIER_LAYOUTS_MAX);
	}
	/* Pruning (the result is the same as without it): a layout's tokens/s per chip at the limits
	 * is at most what it completes with its batch full (infer_capacity), and where the ranking
	 * key falls as tokens/s per chip rise (priced at one price per chip-hour, or unpriced; no
	 * budget, no spot standby that differs by layout), a layout whose bound is below the best
	 * found so far cannot win. The bounds first, the most promising layout evaluated first. */
	if (nc > 1 && !o->fixed_plan && o->budget <= 0 && o->pricing != PRICE_SPOT) {
		for (int i = 0; i < nc; i++) {
			double seats, rate;
			plan p = cand[i];
			p.sp = given->sp;
			order[i].i = i;
			order[i].bound = infer_capacity(s, w, &p, &seats, &rate, NULL, 0)
						 ? rate * (p.dp > 0 ? p.dp : 1) * w->output_len / p.chips
						 : -1;
			if (order[i].bound > 0 && w->tpot_slo > 0)
				order[i].bound = fmin(order[i].bound, tpot_bound(s, w, &p, seats));
		}
		qsort(order, (size_t)nc, sizeof *order, by_bound);
		prune = 1;
	} else {
		for (int i = 0; i < nc; i++)
			order[i].i = i;
	}
	for (int j = 0; j < nc; j++) {
		int i = order[j].i;
		plan p = cand[i];
		int klass;
		double key;
		if (prune && have && best_klass <= RANK_NO_PRICE && order[j].bound < best_per_chip * (1 - 1e-9)) {
			r->searched++;
			continue;
		}
		if (!o->fixed_plan)
			p.sp = given->sp;
		infer_eval(s, w, &p, cur, NULL, NULL);
		if (rank_price_and_cost(o, s, w, NULL, cur, cc, e) != 0) {
			free(cur);
			free(cc);
			free(cand);
			free(order);
			return e->code;
		}
		r->searched++;
		if (!cur->feasible) {
			klass = RANK_INFEASIBLE;
			key = cur->tpot;
		} else if (!rank_slo_met(w, cur)) {
			klass = RANK_MISSES_SLO;
			key = cur->tpot_tail;
		} else if (cc->result.ok && isfinite(cc->result.usd_per_unit)) {
			klass = o->budget > 0 && cc->result.usd_per_hour > o->budget ? RANK_OVER_BUDGET : RANK_PRICED;
			key = klass == RANK_OVER_BUDGET ? cc->result.usd_per_hour : cc->result.usd_per_unit;
		} else {
			klass = RANK_NO_PRICE;
			key = -cur->tokens_per_s_per_chip;
		}
		/* Ties go to the earlier layout of the list, whatever order they were evaluated in. */
		if (!have || klass < best_klass || (klass == best_klass && (key < best_key || (key == best_key && i < best_i)))) {
			have = 1;
			best_klass = klass;
			best_key = key;
			best_i = i;
			best_per_chip = cur->tokens_per_s_per_chip;
			r->ir = *cur;
			r->cost = *cc;
		}
	}
	free(cur);
	free(cc);
	free(cand);
	free(order);
	if (!have)
		return err_set(e, ERR_USAGE, "--chips %d-%d leaves no layout for %s", o->cmin, o->cmax, s->name);
	r->klass = best_klass;
	r->key = best_key;
	plan_format(&r->ir.plan, r->plan, sizeof r->plan);
	infer_bound(&r->ir, s, r->bound, sizeof r->bound);
	return 0;
}

/* A result with only what rank_cost reads: feasibility, the layout (its chips), the rate and
 * the latencies. */
static void stub_result(infer_result *ir, int feasible, const plan *p, double tokens_per_s, double ttft, double tpot,
			double ttft_tail, double tpot_tail)
{
	memset(ir, 0, sizeof *ir);
	ir->feasible = feasible;
	ir->plan = *p;
	ir->tokens_per_s = tokens_per_s;
	ir->tokens_per_s_per_chip = p->chips > 0 ? tokens_per_s / p->chips : 0;
	ir->ttft = ttft;
	ir->tpot = tpot;
	ir->ttft_tail = ttft_tail;
	ir->tpot_tail = tpot_tail;
}

void rank_cost_points(const wl_workload *w, const rank_quote *q, frontier_point *pts, int n)
{
	infer_result *ir = malloc(sizeof *ir);
	rank_quote *c = malloc(sizeof *c);
	for (int i = 0; i < n && ir && c; i++) {
		frontier_point *f = &pts[i];
		f->usd_per_unit = NAN;
		if (!q->have_price)
			continue;
		stub_result(ir, 1, &f->plan, f->tokens_per_s, f->ttft, f->tpot, f->ttft_tail, f->tpot_tail);
		*c = *q;
		rank_cost(w, NULL, ir, c);
		if (c->result.ok && isfinite(c->result.usd_per_unit))
			f->usd_per_unit = c->result.usd_per_unit;
	}
	free(ir);
	free(c);
}

int rank_frontier(const wl_workload *w, const plan *given, const rank_opts *o, const hw_system *s,
		  rank_frontier_set *out, err *e)
{
	infer_result *r = malloc(sizeof *r);
	rank_quote q;
	frontier_space sp;
	out->nlayouts = out->n = 0;
	if (!r)
		return err_set(e, ERR_DATA, "out of memory");
	rank_frontier_space(o, given, &sp);
	out->nlayouts = frontier_layouts(s, w, &sp, out->layouts, FRONTIER_LAYOUTS_MAX);
	for (int i = 0; i < out->nlayouts; i++) {
		plan p = out->layouts[i];
		p.sp = given->sp;
		out->n += frontier_sweep(s, w, &p, i, r, out->pts + out->n, RANK_FRONTIER_POINTS - out->n);
	}
	free(r);
	if (rank_price(o, s, w, &q, e) != 0)
		return e->code;
	out->priced = q.have_price;
	rank_cost_points(w, &q, out->pts, out->n);
	frontier_mark(out->pts, out->n);
	return 0;
}

void rank_train_space(const hw_system *s, const wl_workload *w, sweep_space *sp)
{
	char tps[16];
	int node = hw_node_chips(s);
	memset(sp, 0, sizeof *sp);
	snprintf(tps, sizeof tps, "1-%d", node < 64 ? node : 64);
	sweep_parse_list(tps, &sp->tp);
	sweep_parse_list("1-64", &sp->pp);
	sweep_parse_list("1,2", &sp->vpp);
	sweep_parse_list("1", &sp->cp);
	if (w->net.experts > 1) {
		char eps[16];
		snprintf(eps, sizeof eps, "1-%d", w->net.experts);
		sweep_parse_list(eps, &sp->ep);
	} else {
		sweep_parse_list("1", &sp->ep);
	}
	sweep_parse_list("0,1", &sp->sp);
	sweep_parse_list("1,2,4", &sp->mb);
	sweep_parse_list("0-3:1", &sp->zero);
	sweep_parse_list("0-2:1", &sp->recompute);
}

/* Training: the cheapest layout of a sweep at the chip count. */
static int best_training(const plan *given, const rank_opts *o, rank_row *r, err *e)
{
	const hw_system *s = r->sys;
	wl_workload *w = &r->w;
	plan p = *given;
	int late = 0, priced = 0;
	rank_quote pc = {0};
	r->deadline = o->deadline;
	if (!o->fixed_plan) {
		sweep_space sp;
		sweep_offer of;
		sweep_job job;
		sweep_result *res = o->ws ? sweep_ws_result(o->ws) : malloc(sizeof *res);
		if (!res)
			return err_set(e, ERR_DATA, "out of memory");
		if (rank_price(o, s, w, &pc, e) != 0) {
			if (!o->ws)
				free(res);
			return e->code;
		}
		priced = 1;
		rank_train_space(s, w, &sp);
		if (o->cmax >= RANK_CHIPS_OPEN) {
			sp.chips.v[sp.chips.n++] = given->chips;
		} else {
			for (long c = o->cmin; c <= o->cmax && sp.chips.n < SWEEP_VALUES_MAX; c *= 2)
				sp.chips.v[sp.chips.n++] = (int)c;
		}
		of.sys = s;
		of.system = 0;
		of.pricing = (int)pc.pricing;
		of.usd_per_chip_hour = pc.have_price ? pc.usd_per_chip_hour : NAN;
		of.chip_mtbf = rank_spot_mtbf(w->cost.failures.chip_mtbf, pc.pricing == PRICE_SPOT ?
					      (pc.spot_interval > 0 ? pc.spot_interval : w->cost.spot_interval) : 0,
					      pc.node_chips);
		memset(&job, 0, sizeof job);
		job.space = &sp;
		job.w = w;
		job.offers = &of;
		job.noffers = 1;
		job.top_k = 1;
		job.threads = 1;
		job.nshards = 1;
		job.ws = o->ws;
		if (sweep_run(&job, res) != 0) {
			if (!o->ws)
				free(res);
			return err_set(e, ERR_DATA, "out of memory");
		}
		r->searched = (long long)res->total;
		if (res->ntop > 0) {
			/* The front holds the cheapest run of every speed: the first within the deadline
			 * is the cheapest that meets it; else the fastest, which misses it. */
			const sweep_point *pt = &res->top[0];
			if (o->deadline > 0 && pt->run_time > o->deadline) {
				late = 1;
				for (int i = 0; i < res->nfront; i++) {
					pt = &res->front[i];
					if (pt->run_time <= o->deadline) {
						late = 0;
						break;
					}
				}
			}
			p = pt->plan;
			w->zero = pt->zero;
			w->recompute = (wl_recompute)pt->recompute;
		}
		if (!o->ws)
			free(res);
	}
	train_eval(s, w, &p, &r->tr, NULL);
	if (priced) {
		/* The price the search ran at (rank_price is a pure lookup): cost the winner. */
		r->cost = pc;
		rank_cost(w, &r->tr, NULL, &r->cost);
	} else if (rank_price_and_cost(o, s, w, &r->tr, NULL, &r->cost, e) != 0) {
		return e->code;
	}
	if (!r->tr.feasible) {
		r->klass = RANK_INFEASIBLE;
		r->key = 0;
	} else if (late || (o->deadline > 0 && !(r->cost.result.run_time <= o->deadline))) {
		r->klass = RANK_MISSES_SLO;
		r->key = r->cost.result.run_time;
	} else if (r->cost.result.ok && isfinite(r->cost.result.usd_per_unit)) {
		r->klass = o->budget > 0 && r->cost.result.usd_per_unit > o->budget ? RANK_OVER_BUDGET : RANK_PRICED;
		r->key = r->cost.result.usd_per_unit;
	} else {
		r->klass = RANK_NO_PRICE;
		r->key = r->tr.train_time;
	}
	plan_format(&r->tr.plan, r->plan, sizeof r->plan);
	{
		size_t l = strlen(r->plan);
		snprintf(r->plan + l, sizeof r->plan - l, " zero=%d %s", w->zero, wl_recompute_names[w->recompute]);
	}
	train_bound(&r->tr, s, r->bound, sizeof r->bound);
	return 0;
}

void rank_bind(rank_row *r)
{
	memset(&r->rep, 0, sizeof r->rep);
	r->rep.sys = r->sys;
	r->rep.w = &r->w;
	r->rep.train = r->w.mode == WL_TRAIN ? &r->tr : NULL;
	r->rep.infer = r->w.mode == WL_INFER ? &r->ir : NULL;
	r->rep.cost = &r->cost;
	r->rep.cal = r->cal.group[0] ? &r->cal : NULL;
}

int rank_disagg_chips(const hw_system *s, const plan *given, const rank_opts *o)
{
	int dom = frontier_domain_chips(s);
	if (o->total > 0)
		return o->total;
	return given->chips > dom ? given->chips : dom;
}

int rank_disagg(const wl_workload *w, const plan *given, const rank_opts *o, rank_row *r, err *e)
{
	infer_result *ir = malloc(sizeof *ir);
	disagg_result *d = &r->dis;
	if (!ir)
		return err_set(e, ERR_DATA, "out of memory");
	r->has_disagg = 1;
	disagg_search(r->sys, w, rank_disagg_chips(r->sys, given, o), d);
	{
		plan p = d->dec.plan;
		p.chips = d->chips;
		stub_result(ir, d->feasible, &p, d->tokens_per_s, d->ttft, d->tpot, d->ttft_tail, d->tpot_tail);
	}
	if (rank_price_and_cost(o, r->sys, w, NULL, ir, &r->dcost, e) != 0) {
		free(ir);
		return e->code;
	}
	free(ir);
	return 0;
}

int rank_system(const wl_workload *w, const plan *given, const rank_opts *o, rank_row *r, err *e)
{
	int rc;
	r->w = *w;
	r->searched = 0;
	memset(&r->cal, 0, sizeof r->cal);
	if (o->intervals)
		interval_lookup(o->intervals, w->mode == WL_TRAIN, r->sys->chip.family, w->fw.name, &r->cal);
	r->has_disagg = 0;
	if (w->mode == WL_INFER)
		rc = best_serving(w, given, o, r, e);
	else
		rc = best_training(given, o, r, e);
	if (rc == 0 && w->mode == WL_INFER && w->disagg.on)
		rc = rank_disagg(w, given, o, r, e);
	rank_bind(r);
	return rc;
}

static int cmp_rows(const void *a, const void *b)
{
	const rank_row *x = a, *y = b;
	if (x->klass != y->klass)
		return x->klass - y->klass;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return strcmp(x->sys->name, y->sys->name);
}

void rank_sort(rank_row *rows, int n)
{
	if (n > 1)
		qsort(rows, (size_t)n, sizeof *rows, cmp_rows);
	for (int i = 0; i < n; i++)
		rank_bind(&rows[i]);
}

void rank_verdicts(rank_row *rows, int n, double budget)
{
	const rank_row *best = n > 0 ? &rows[0] : NULL;
	for (int i = 0; i < n; i++) {
		rank_row *r = &rows[i];
		const wl_workload *w = &r->w;
		const char *unit = cost_unit_text[w->cost.unit];
		const cost_result *cr = &r->cost.result;
		switch (r->klass) {
		case RANK_PRICED:
			if (i == 0)
				snprintf(r->verdict, sizeof r->verdict, "cheapest per %s%s", unit,
					 w->mode == WL_INFER ? " at the SLO" : "");
			else
				snprintf(r->verdict, sizeof r->verdict, "+%.0f%% per %s: $%.2f/h for %.4g %s, bound by %s",
					 100 * (cr->usd_per_unit / best->cost.result.usd_per_unit - 1), unit,
					 cr->usd_per_hour, w->mode == WL_INFER ? r->ir.tokens_per_s : r->tr.tokens_per_s,
					 "tokens/s", r->bound);
			break;
		case RANK_NO_PRICE:
			snprintf(r->verdict, sizeof r->verdict, "%s%s",
				 strncmp(r->cost.note, "no ", 3) ? "no price: " : "", r->cost.note);
			break;
		case RANK_OVER_BUDGET:
			snprintf(r->verdict, sizeof r->verdict, "over the budget: $%.4g > $%.4g %s",
				 w->mode == WL_INFER ? cr->usd_per_hour : cr->usd_per_unit, budget,
				 w->mode == WL_INFER ? "per hour" : "per run");
			break;
		case RANK_MISSES_SLO:
			if (w->mode == WL_TRAIN) {
				snprintf(r->verdict, sizeof r->verdict, "misses the deadline: the fastest run found takes %.1f "
					 "days, the limit is %.4g", r->cost.result.run_time / 86400, r->deadline / 86400);
				break;
			}
			snprintf(r->verdict, sizeof r->verdict,
				 "misses the latency limits at every layout tried: best p%g TPOT %.1f ms, TTFT %.0f ms "
				 "against %.0f / %.0f ms", w->slo_percentile, r->ir.tpot_tail * 1e3, r->ir.ttft_tail * 1e3,
				 w->tpot_slo * 1e3, w->ttft_slo * 1e3);
			break;
		default: {
			char why[TRAIN_REASON_MAX];
			snprintf(r->verdict, sizeof r->verdict, "infeasible: %s",
				 w->mode == WL_INFER ? r->ir.reason : train_reason(&r->tr, r->sys, w, why, sizeof why));
		}
		}
		if (r->klass == RANK_NO_PRICE && w->mode == WL_INFER && i > 0 && rows[0].klass == RANK_NO_PRICE) {
			size_t l = strlen(r->verdict);
			snprintf(r->verdict + l, sizeof r->verdict - l, "; %.0f%% of the best tokens/s per chip",
				 100 * r->ir.tokens_per_s_per_chip / rows[0].ir.tokens_per_s_per_chip);
		}
	}
}

int rank_key_interval(const rank_row *r, double *vp, double *lo, double *hi, const char **name)
{
	double v;
	int time = 1;
	if (!r->rep.cal || !r->rep.cal->have)
		return 0;
	switch (r->klass) {
	case RANK_PRICED:
		v = r->cost.result.usd_per_unit;
		*name = r->w.cost.unit == COST_RUN ? "USD per run" : r->w.cost.unit == COST_MTOK ? "USD per M output tokens" : "USD per example";
		break;
	case RANK_OVER_BUDGET:
		v = r->cost.result.usd_per_hour;
		*name = "USD per hour";
		break;
	case RANK_NO_PRICE:
		if (r->w.mode == WL_INFER) {
			v = r->ir.tokens_per_s_per_chip;
			time = 0;
			*name = "tokens/s per chip";
		} else {
			v = r->tr.train_time / 86400;
			*name = "days to train";
		}
		break;
	default:
		return 0;
	}
	if (!isfinite(v))
		return 0;
	*vp = v;
	interval_apply(r->rep.cal, v, time, lo, hi);
	return 1;
}

void rank_error_note(const rank_row *rows, int n, char *buf, size_t len)
{
	double a0, a1, b0, b1, va, vb;
	const char *na, *nb;
	size_t l;
	int k = 0;
	buf[0] = '\0';
	if (n >= 2 && rows[0].klass == rows[1].klass && rank_key_interval(&rows[0], &va, &a0, &a1, &na) &&
	    rank_key_interval(&rows[1], &vb, &b0, &b1, &nb) && a0 <= b1 && b0 <= a1)
		snprintf(buf, len, "within the model's error: the intervals of %s of %s (%.4g-%.4g) and %s (%.4g-%.4g) "
			 "overlap (10th-90th percentile of out-of-sample error), so the data cannot tell which is first",
			 na, rows[0].sys->name, a0, a1, rows[1].sys->name, b0, b1);
	for (int i = 0; i < n; i++) {
		const interval_status *c = rows[i].rep.cal;
		if (!c || c->calibrated)
			continue;
		l = strlen(buf);
		snprintf(buf + l, len - l, "%s%s %s (%s)", k++ ? "," : l ? "; uncalibrated:" : "uncalibrated:",
			 "", rows[i].sys->name, c->group);
	}
}

/* A dated price of r: a catalog row or an owned price (its capex date), not the user's. */
static int dated(const rank_row *r, long *days)
{
	const rank_quote *c = &r->cost;
	return c->have_price && !c->user_price && price_date_days(c->price.as_of, days) == 0;
}

void rank_price_ages(const rank_row *rows, int n, double threshold_days, rank_ages *out)
{
	long lo = 0, hi = 0;
	memset(out, 0, sizeof *out);
	out->oldest = out->newest = -1;
	out->spread_days = NAN;
	out->threshold_days = threshold_days;
	for (int i = 0; i < n; i++) {
		long d;
		if (!dated(&rows[i], &d))
			continue;
		if (!out->n || d < lo) {
			lo = d;
			out->oldest = i;
		}
		if (!out->n || d > hi) {
			hi = d;
			out->newest = i;
		}
		out->n++;
	}
	if (!out->n)
		return;
	out->spread_days = (double)(hi - lo);
	out->stale = isfinite(threshold_days) && out->spread_days > threshold_days;
	if (out->stale) {
		const rank_row *a = &rows[out->oldest], *b = &rows[out->newest];
		snprintf(out->text, sizeof out->text, "prices %.0f days apart: %s %s from %s (the oldest), %s %s from %s "
			 "(the newest), more than %.0f days ([cost] price_age_days); a price change between them does not "
			 "show (import newer rows, --capex for an owned price, or --as-of DATE)", out->spread_days, a->sys->name,
			 price_model_names[a->cost.price.model], a->cost.price.as_of, b->sys->name,
			 price_model_names[b->cost.price.model], b->cost.price.as_of, threshold_days);
	}
}

double rank_price_age_days(const price_row *p, const char *date)
{
	long a, b;
	if (price_date_days(p->as_of, &a) != 0 || price_date_days(date, &b) != 0)
		return NAN;
	return (double)(b - a);
}
