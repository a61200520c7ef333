/* frontier: every serving layout and load, and their Pareto frontier (see frontier.h). */
#include "engine/frontier.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int frontier_domain_chips(const hw_system *s)
{
	for (int l = 0; l < s->nlevels; l++)
		if (s->levels[l].kind == HW_LEVEL_DOMAIN)
			return s->levels[l].chips;
	return hw_node_chips(s);
}

/* Adds the layout of replicas of tp·pp·d chips (d attention replicas sharing experts). */
static int add(const frontier_space *sp, int tp, int pp, int d, plan *out, int n, int max)
{
	int r = tp * pp * d, reps = 1;
	plan p;
	if (n >= max || r < (sp->rmin > 0 ? sp->rmin : 1) || (sp->rmax > 0 && r > sp->rmax))
		return n;
	if (sp->total >= r && sp->total % r == 0)
		reps = sp->total / r;
	memset(&p, 0, sizeof p);
	p.tp = tp;
	p.pp = pp;
	p.vpp = p.cp = 1;
	p.dp = d * reps;
	p.ep = d;
	p.chips = r * reps;
	out[n] = p;
	return n + 1;
}

int frontier_layouts(const hw_system *s, const wl_workload *w, const frontier_space *sp, plan *out, int max)
{
	const nn_net *net = &w->net;
	int up = frontier_domain_chips(s), node = hw_node_chips(s), n = 0;
	int tps[16], ntp = 0;
	for (int tp = 1; tp <= up && tp <= net->heads && ntp < 15; tp *= 2)
		tps[ntp++] = tp;
	if (node & (node - 1) && node <= up)
		tps[ntp++] = node;   /* a node that is not a power of two */
	for (int i = 0; i < ntp; i++)
		for (int pp = 1; pp <= 4 && pp <= net->layers; pp *= 2) {
			int tp = tps[i];
			if (tp * pp > 2 * up || (pp > 1 && tp * pp > up && tp < up))
				continue; /* a pipeline across domains only of whole domains */
			n = add(sp, tp, pp, 1, out, n, max);
			if (pp == 1 && net->experts > 1 && w->fw.serve.attention_dp)
				for (int d = 2; tp * d <= up && net->experts % d == 0; d *= 2)
					n = add(sp, tp, 1, d, out, n, max);
		}
	return n;
}

int frontier_slo_met(const wl_workload *w, double ttft_tail, double tpot_tail)
{
	return (w->ttft_slo <= 0 || ttft_tail <= w->ttft_slo * (1 + 1e-9)) &&
	       (w->tpot_slo <= 0 || tpot_tail <= w->tpot_slo * (1 + 1e-9));
}

static void from_load(const wl_workload *w, const plan *p, int layout, const infer_load *o, frontier_point *f)
{
	memset(f, 0, sizeof *f);
	f->plan = *p;
	f->layout = layout;
	f->load = o->load;
	f->running = o->running;
	f->tokens_per_s = o->tokens_per_s;
	f->per_chip = o->tokens_per_s_per_chip;
	f->per_user = o->tpot.mean > 0 ? 1 / o->tpot.mean : 0;
	f->ttft = o->ttft.mean;
	f->ttft_tail = o->ttft.slo;
	f->tpot = o->tpot.mean;
	f->tpot_tail = o->tpot.slo;
	f->usd_per_unit = NAN;
	f->slo_met = frontier_slo_met(w, f->ttft_tail, f->tpot_tail);
}

/* Requests running per replica along a curve: 1, 2, 3, 4, 6, 8, 11, 16, ... (about √2 apart). */
static int grid(double cap, double *out, int max)
{
	int n = 0;
	double last = 0;
	for (int k = 0; n < max; k++) {
		double v = round(pow(2.0, k / 2.0));
		if (v >= cap)
			break;
		if (v > last)
			out[n++] = last = v;
	}
	if (n < max && cap >= 1)
		out[n++] = cap;
	return n;
}

int frontier_sweep(const hw_system *s, const wl_workload *w, const plan *p, int layout, infer_result *r,
		   frontier_point *out, int max)
{
	infer_load loads[FRONTIER_LOADS_MAX];
	double x[FRONTIER_LOADS_MAX];
	int dp = p->dp > 0 ? p->dp : 1, n = 0, k;
	int open = w->scenario == WL_SERVER || w->scenario == WL_INTERACTIVE;
	int ok;
	infer_eval(s, w, p, r, NULL, NULL);
	k = grid(floor(r->cap), x, FRONTIER_LOADS_MAX < max ? FRONTIER_LOADS_MAX : max - 1);
	if (open) {
		/* Arrival rates as shares of the most the server completes: from the share that keeps
		 * one request running (found from a light load, where the running batch grows in
		 * proportion to the rate), √2 apart, to just below saturation. */
		double f0 = 1 / (r->cap > 1 ? r->cap : 1), f1 = f0;
		ok = infer_open_curve(s, w, p, &f0, 1, loads, NULL, 0);
		if (ok && loads[0].stable && loads[0].running > 0)
			f1 = fmin(f0 / loads[0].running, 0.5);
		k = 0;
		for (double f = f1; f < 0.99 && k < FRONTIER_LOADS_MAX - 1 && k < max - 2; f *= sqrt(2.0))
			x[k++] = f;
		x[k++] = 0.99;
		if (ok)
			ok = infer_open_curve(s, w, p, x, k, loads, NULL, 0);
	} else {
		for (int i = 0; i < k; i++)
			x[i] *= dp;
		ok = infer_curve(s, w, p, x, k, loads, NULL, 0);
	}
	if (!ok)
		return 0; /* cannot serve at all (weights or one request do not fit, the layout) */
	for (int i = 0; i < k && n < max - 1; i++)
		if (loads[i].stable && loads[i].tokens_per_s > 0)
			from_load(w, p, layout, &loads[i], &out[n++]);
	if (r->at.tokens_per_s > 0) {
		from_load(w, p, layout, &r->at, &out[n]);
		out[n++].chosen = 1;
	}
	return n;
}

static int by_speed(const void *a, const void *b)
{
	const frontier_point *x = a, *y = b;
	if (x->per_user != y->per_user)
		return x->per_user > y->per_user ? -1 : 1;
	if (x->per_chip != y->per_chip)
		return x->per_chip > y->per_chip ? -1 : 1;
	return x->layout - y->layout;
}

void frontier_mark(frontier_point *pts, int n)
{
	double best = -1, cheapest = INFINITY;
	if (n > 1)
		qsort(pts, (size_t)n, sizeof *pts, by_speed);
	/* Fastest per user first: a point is on the frontier when it beats every faster one. */
	for (int i = 0; i < n; i++) {
		frontier_point *f = &pts[i];
		f->front = f->per_chip > best;
		if (f->front)
			best = f->per_chip;
		f->cost_front = isfinite(f->usd_per_unit) && f->usd_per_unit < cheapest;
		if (f->cost_front)
			cheapest = f->usd_per_unit;
	}
}
