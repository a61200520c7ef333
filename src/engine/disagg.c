/* disagg: disaggregated prefill and decode pools (see disagg.h). */
#include "engine/disagg.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/comm.h"
#include "engine/frontier.h"
#include "engine/mem.h"

/* What a pool split shares across loads. */
typedef struct split {
	const hw_system *s;
	const wl_workload *w;
	wl_workload *wp;          /* the prefill pool's workload: one output token, no limits of its own */
	plan pre, dec;
	int np, nd;
	double n;                 /* decode iterations of a request: output_len - 1 */
	double ctx;               /* mean decode context */
	double q, z;              /* the SLO percentile as a fraction and its normal quantile */
	int pdp, ddp;             /* attention data-parallel ranks of one replica (1: none) */
	double slots;             /* decode: sequences per rank */
	double dec_most;          /* decode: requests/s per rank with every slot busy */
	double pre_most;          /* prefill: requests/s per rank it completes */
	double link_most;         /* requests/s the link carries */
	int ok;
	char reason[DISAGG_REASON_MAX];
} split;

/* A decode replica at λ requests/s. */
typedef struct dstate {
	double b, tD, tpot_tail, wait, wait_tail;
} dstate;

static double dec_step(const split *x, double b)
{
	infer_step st;
	infer_step_eval(x->s, x->w, &x->dec, b > 1 ? b : 1, x->ctx, 0, &st);
	return st.t;
}

/* The q-quantile of a wait that is 0 with probability 1 - C and exponential (mean W / C) else. */
static double wait_quantile(double C, double W, double q)
{
	return C > 1 - q && W > 0 ? W / C * log(C / (1 - q)) : 0;
}

/* Returns 0 when the decode replica cannot keep up with λ (its ranks share it). */
static int decode_at(const split *x, double lam, dstate *o)
{
	double b = 1, R, a, C, b2, slope;
	memset(o, 0, sizeof *o);
	lam /= x->ddp;
	for (int it = 0; it < 60; it++) {
		double nb = lam * x->n * dec_step(x, b);
		if (nb > x->slots)
			nb = x->slots;
		if (fabs(nb - b) <= 1e-4 * (b > 1 ? b : 1)) {
			b = nb;
			break;
		}
		b = 0.5 * (b + nb);
	}
	o->b = b;
	o->tD = dec_step(x, b);
	R = x->n * o->tD;
	a = lam * R;
	if (a >= floor(x->slots))
		return 0;
	/* Slots for new requests: Erlang C over the sequences the KV cache holds. */
	C = infer_erlang_c(x->slots, a);
	o->wait = C * R / (floor(x->slots) - a) * 0.5;
	o->wait_tail = wait_quantile(C, o->wait, x->q);
	b2 = b / 2 > 1 ? b / 2 : 1;
	slope = b > b2 ? (o->tD - dec_step(x, b2)) / (b - b2) : 0;
	o->tpot_tail = o->tD + x->z * slope * sqrt(2 * b / 3);
	return 1;
}

/* The prefill pool's latency at λ per replica: the open loop at that share of what it completes,
 * its arrivals those the router gives one replica (split_init: the pool's workload's arrival_ca2). */
static int prefill_at(const split *x, double lam, infer_load *o)
{
	double share = x->pre_most > 0 ? lam / x->pdp / x->pre_most : 1;
	if (share >= 1)
		return 0;
	infer_open_curve(x->s, x->wp, &x->pre, &share, 1, o, NULL, 0);
	return o->stable;
}

static int split_init(split *x, const hw_system *s, const wl_workload *w, wl_workload *wp, const plan *pre, int np,
		      const plan *dec, int nd, disagg_result *r)
{
	double seqs;
	plan one;
	int rp = pre->chips, rd = dec->chips, n, node = hw_node_chips(s), dom = frontier_domain_chips(s);
	int stride;
	comm_cost c;
	memset(x, 0, sizeof *x);
	x->s = s;
	x->w = w;
	x->wp = wp;
	x->pre = *pre;
	x->dec = *dec;
	x->np = np;
	x->nd = nd;
	x->pdp = pre->dp > 0 ? pre->dp : 1;
	x->ddp = dec->dp > 0 ? dec->dp : 1;
	x->n = w->output_len > 1 ? w->output_len - 1 : 1;
	x->ctx = w->input_len + w->output_len / 2.0;
	x->q = w->slo_percentile > 0 ? w->slo_percentile / 100 : 0.99;
	x->z = infer_normal_quantile(x->q);
	r->chips = np * rp + nd * rd;
	if (!infer_capacity(s, wp, pre, &seqs, &x->pre_most, x->reason, sizeof x->reason)) {
		char why[DISAGG_REASON_MAX];
		snprintf(why, sizeof why, "%s", x->reason);
		snprintf(x->reason, sizeof x->reason, "prefill: %s", why);
		return 0;
	}
	if (!infer_capacity(s, w, dec, &x->slots, &x->dec_most, x->reason, sizeof x->reason)) {
		char why[DISAGG_REASON_MAX];
		snprintf(why, sizeof why, "%s", x->reason);
		snprintf(x->reason, sizeof x->reason, "decode: %s", why);
		return 0;
	}
	/* The router (the framework's [deploy] router): one that spreads the Poisson arrivals in turn
	 * over np replicas gives each the sum of np gaps, a squared coefficient of variation 1/np
	 * (Erlang-np); one that picks a replica by its share leaves each Poisson. infer's queues wait
	 * in proportion to c_a² + c_s² (Kingman 1961; Whitt 1993 for k servers). */
	wp->arrival_ca2 = w->fw.serve.router == FW_ROUTER_ROUND_ROBIN ? 1.0 / np : 1.0;
	/* Decode-only iterations: with every slot busy a rank completes slots / ((out - 1) t_D). */
	x->dec_most = x->slots / (x->n * dec_step(x, x->slots));
	/* The KV cache of the prompt, every layer, from prefill chips to decode chips: the shards of
	 * min(R_p, R_d) chips move in parallel over the level that holds both pools. */
	memset(&one, 0, sizeof one);
	one.tp = one.pp = one.dp = one.cp = one.ep = one.vpp = one.chips = 1;
	r->kv_bytes = mem_infer(w, &one, 1, 1, 0).kv_cache * w->input_len;
	n = pre->tp * pre->pp < dec->tp * dec->pp ? pre->tp * pre->pp : dec->tp * dec->pp;
	stride = r->chips <= node ? 1 : r->chips <= dom ? node : dom;
	c = comm_time(s, COMM_SEND_RECV, r->kv_bytes / n, 2, stride);
	r->t_transfer = c.t;
	r->link = c.outer >= 0 ? s->levels[c.outer].kind : HW_LEVEL_NODE;
	{
		/* The decode chips take in every request's cache at their bandwidth on that level. */
		const hw_level *l = c.outer >= 0 ? &s->levels[c.outer] : &s->levels[0];
		double bw = l->bw * (l->bw_eff > 0 ? l->bw_eff : 1) * nd * rd;
		x->link_most = r->kv_bytes > 0 ? bw / r->kv_bytes : INFINITY;
	}
	return 1;
}

/* The deployment at λ requests/s in all; its margin to the limits (> 1: misses), or INFINITY
 * when a pool or the link cannot carry λ. */
static double deploy_at(const split *x, double lam, disagg_result *r)
{
	const wl_workload *w = x->w;
	infer_load pl;
	dstate d;
	double g = 0;
	if (lam >= x->link_most || !prefill_at(x, lam / x->np, &pl) || !decode_at(x, lam / x->nd, &d))
		return INFINITY;
	r->requests_per_s = lam;
	r->tokens_per_s = lam * w->output_len;
	r->tokens_per_s_per_chip = r->tokens_per_s / r->chips;
	r->ttft_prefill = pl.ttft.mean;
	r->ttft = pl.ttft.mean + r->t_transfer + d.wait;
	r->ttft_tail = pl.ttft.slo + r->t_transfer + d.wait_tail;
	r->tpot = d.tD;
	r->tpot_tail = d.tpot_tail;
	r->tokens_per_s_per_user = d.tD > 0 ? 1 / d.tD : 0;
	r->wait = d.wait;
	r->link_share = lam / x->link_most;
	r->pre.rate = lam / x->np;
	r->pre.batch = pl.prompts_per_iter;
	r->pre.iter = pl.iter_prefill;
	r->dec.rate = lam / x->nd;
	r->dec.batch = d.b;
	r->dec.iter = d.tD;
	if (w->ttft_slo > 0)
		g = fmax(g, r->ttft_tail / w->ttft_slo);
	if (w->tpot_slo > 0)
		g = fmax(g, r->tpot_tail / w->tpot_slo);
	return g;
}

/* The prefill pool's workload: the same requests with one output token, no limits. */
static void prefill_workload(const wl_workload *w, wl_workload *wp)
{
	*wp = *w;
	wp->output_len = 1;
	wp->scenario = WL_SERVER;
	wp->ttft_slo = wp->tpot_slo = 0;
	wp->spec_kind = WL_SPEC_NONE;
	wp->disagg.on = 0;
}

void disagg_eval(const hw_system *s, const wl_workload *w, const plan *pre, int np, const plan *dec, int nd,
		 disagg_result *r)
{
	wl_workload *wp = malloc(sizeof *wp);
	disagg_result *t = malloc(sizeof *t);
	split x;
	double lo, hi, best_g;
	memset(r, 0, sizeof *r);
	r->pre.plan = *pre;
	r->pre.count = np;
	r->dec.plan = *dec;
	r->dec.count = nd;
	r->searched = 1;
	if (!wp || !t) {
		snprintf(r->reason, sizeof r->reason, "out of memory");
		free(wp);
		free(t);
		return;
	}
	prefill_workload(w, wp);
	if (!split_init(&x, s, w, wp, pre, np, dec, nd, r)) {
		snprintf(r->reason, sizeof r->reason, "%s", x.reason);
		free(wp);
		free(t);
		return;
	}
	r->pre.most = x.pre_most;
	r->pre.slots = 0;
	r->dec.slots = x.slots;
	r->dec.most = x.dec_most;
	hi = fmin(fmin(np * x.pdp * x.pre_most, nd * x.ddp * x.dec_most), x.link_most) * (1 - 1e-6);
	lo = hi * 1e-3;
	*t = *r;
	best_g = deploy_at(&x, lo, t);
	if (!(best_g <= 1)) {
		*r = *t;
		r->feasible = 0;
		snprintf(r->reason, sizeof r->reason,
			 "even %.3g requests/s miss the limits: p%g TTFT %.0f ms (%.0f ms of it moving the KV cache), TPOT %.1f ms",
			 lo, w->slo_percentile, t->ttft_tail * 1e3, t->t_transfer * 1e3, t->tpot_tail * 1e3);
		free(wp);
		free(t);
		return;
	}
	*r = *t;
	/* The margin grows with the load: bisect to a relative tolerance. */
	while (hi - lo > INFER_LOAD_TOL * hi) {
		double mid = 0.5 * (lo + hi);
		*t = *r;
		if (deploy_at(&x, mid, t) <= 1) {
			lo = mid;
			*r = *t;
		} else {
			hi = mid;
		}
	}
	r->feasible = 1;
	r->slo_met = 1;
	free(wp);
	free(t);
}

/* A decode layout's most requests/s per replica with its TPOT at the limit (and a free slot). */
static double decode_most(split *x)
{
	double lo = 0, hi = x->ddp * x->dec_most * 0.999;
	dstate d;
	if (x->w->tpot_slo <= 0)
		return hi;
	if (!decode_at(x, hi * 1e-3, &d) || d.tpot_tail > x->w->tpot_slo)
		return 0;
	for (int it = 0; it < 40 && hi - lo > INFER_LOAD_TOL * hi; it++) {
		double mid = 0.5 * (lo + hi);
		if (decode_at(x, mid, &d) && d.tpot_tail <= x->w->tpot_slo)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* A prefill layout's most requests/s per replica with its TTFT within budget. */
static double prefill_most(split *x, double budget)
{
	double lo = 0, hi = x->pdp * x->pre_most * 0.999;
	infer_load o;
	if (budget <= 0)
		return hi;
	if (!prefill_at(x, hi * 1e-3, &o) || o.ttft.slo > budget)
		return 0;
	for (int it = 0; it < 40 && hi - lo > INFER_LOAD_TOL * hi; it++) {
		double mid = 0.5 * (lo + hi);
		if (prefill_at(x, mid, &o) && o.ttft.slo <= budget)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

enum { TOP = 3 };

typedef struct cand {
	int ip, id, np, nd;
	double per_chip;
} cand;

/* Keeps the TOP best candidates, best first. */
static void keep(cand *top, int *ntop, cand c)
{
	int i = *ntop < TOP ? (*ntop)++ : TOP - 1;
	if (*ntop == TOP && i == TOP - 1 && !(c.per_chip > top[i].per_chip))
		return;
	top[i] = c;
	while (i > 0 && top[i].per_chip > top[i - 1].per_chip) {
		cand t = top[i];
		top[i] = top[i - 1];
		top[i - 1] = t;
		i--;
	}
}

int disagg_search(const hw_system *s, const wl_workload *w, int max_chips, disagg_result *r)
{
	const plan_disagg *g = &w->disagg;
	plan *lay = malloc(sizeof *lay * FRONTIER_LAYOUTS_MAX);
	double *lp = malloc(sizeof *lp * FRONTIER_LAYOUTS_MAX), *ld = malloc(sizeof *ld * FRONTIER_LAYOUTS_MAX);
	wl_workload *wp = malloc(sizeof *wp);
	disagg_result *t = malloc(sizeof *t), *scratch = malloc(sizeof *scratch);
	frontier_space sp = {0, 1, 0};
	cand top[TOP];
	int n = 0, ntop = 0, ok = 0;
	long long tried = 0;
	memset(r, 0, sizeof *r);
	if (!lay || !lp || !ld || !wp || !t || !scratch) {
		snprintf(r->reason, sizeof r->reason, "out of memory");
		goto done;
	}
	if (g->np > 0 && g->prefill.tp > 0) {
		disagg_eval(s, w, &g->prefill, g->np, &g->decode, g->nd, r);
		ok = r->feasible;
		goto done;
	}
	n = frontier_layouts(s, w, &sp, lay, FRONTIER_LAYOUTS_MAX);
	prefill_workload(w, wp);
	/* Each layout's most requests/s per replica within its part of the limits: the decode pool
	 * at the TPOT limit, the prefill pool at the TTFT limit less the slowest transfer. */
	for (int i = 0; i < n; i++) {
		split x;
		lp[i] = ld[i] = 0;
		memset(scratch, 0, sizeof *scratch);
		if (!split_init(&x, s, w, wp, &lay[i], 1, &lay[i], 1, scratch))
			continue;
		ld[i] = decode_most(&x);
	}
	for (int i = 0; i < n; i++) {
		double slowest = 0, budget;
		int np = g->np > 0 ? g->np : 1;
		split x;
		for (int j = 0; j < n; j++) {
			if (!(ld[j] > 0))
				continue;
			memset(scratch, 0, sizeof *scratch);
			if (split_init(&x, s, w, wp, &lay[i], 1, &lay[j], 1, scratch) && scratch->t_transfer > slowest)
				slowest = scratch->t_transfer;
		}
		budget = w->ttft_slo > 0 ? w->ttft_slo - slowest : 0;
		if (w->ttft_slo > 0 && budget <= 0)
			continue;
		/* The router's effect depends on the replica count: size with the counts asked for,
		 * else with as many replicas as half the chips hold. */
		if (g->np == 0)
			np = max_chips / 2 / lay[i].chips > 1 ? max_chips / 2 / lay[i].chips : 1;
		memset(scratch, 0, sizeof *scratch);
		if (split_init(&x, s, w, wp, &lay[i], np, &lay[i], 1, scratch))
			lp[i] = prefill_most(&x, budget);
	}
	/* Every pair and every split within the chips, rate-matched. */
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++) {
			int rp = lay[i].chips, rd = lay[j].chips;
			if (!(lp[i] > 0 && ld[j] > 0) || (g->np > 0 && (g->np * rp + g->nd * rd > max_chips)))
				continue;
			for (int np = g->np > 0 ? g->np : 1; np * rp + rd <= max_chips || g->np > 0; np++) {
				int nd0 = g->nd > 0 ? g->nd : (int)ceil(np * lp[i] / ld[j] - 1e-9);
				for (int nd = nd0 > 1 ? nd0 - 1 : 1; nd <= nd0 + (g->nd > 0 ? 0 : 0); nd++) {
					int chips = np * rp + nd * rd;
					cand c;
					if (chips > max_chips && g->np == 0)
						continue;
					tried++;
					c.ip = i;
					c.id = j;
					c.np = np;
					c.nd = nd;
					c.per_chip = fmin(np * lp[i], nd * ld[j]) * w->output_len / chips;
					keep(top, &ntop, c);
				}
				if (g->np > 0)
					break;
			}
		}
	/* The best few, evaluated exactly. */
	for (int k = 0; k < ntop; k++) {
		disagg_eval(s, w, &lay[top[k].ip], top[k].np, &lay[top[k].id], top[k].nd, t);
		if (t->feasible && (!ok || t->tokens_per_s_per_chip > r->tokens_per_s_per_chip)) {
			*r = *t;
			ok = 1;
		} else if (!ok && k == 0) {
			*r = *t;
		}
	}
	if (!ntop)
		snprintf(r->reason, sizeof r->reason,
			 "no pair of layouts serves within %d chips: a decode replica misses the TPOT limit or a prefill "
			 "replica the TTFT limit at any load", max_chips);
	r->searched = tried;
done:
	free(lay);
	free(lp);
	free(ld);
	free(wp);
	free(t);
	free(scratch);
	return ok;
}
