/* comm: collectives on the hierarchy (see comm.h). */
#include "engine/comm.h"

#include <math.h>
#include <string.h>

static int imin(int a, int b) { return a < b ? a : b; }
static int imax(int a, int b) { return a > b ? a : b; }

int comm_place(const hw_system *s, int n, int stride, int ranks[HW_LEVELS_MAX])
{
	int inner = 1, outer = -1;
	if (stride < 1)
		stride = 1;
	for (int l = 0; l < HW_LEVELS_MAX; l++)
		ranks[l] = 1;
	for (int l = 0; l < s->nlevels; l++) {
		/* Members of the group inside one unit of this level. */
		int unit = s->levels[l].chips;
		int within = l == s->nlevels - 1 ? n : imin(n, imax(1, unit / stride));
		/* A group that does not fill whole units still spans the next unit: round up. */
		ranks[l] = imax(1, (within + inner - 1) / inner);
		if (ranks[l] > 1)
			outer = l;
		inner *= ranks[l];
	}
	return outer;
}

/* Torus dimensions a group of n ranks stride apart spans, out of how many. */
static double torus_share(const hw_level *l, int n, int stride)
{
	int nd = 0, used = 0, span = 1, cum = 1;
	for (int i = 0; i < 3; i++)
		if (l->dims[i] > 0)
			nd++;
	if (nd == 0)
		return 1;
	for (int i = 0; i < nd; i++) {
		cum *= l->dims[i];
		if (cum <= stride)
			continue; /* the group steps over this dimension */
		used++;
		span *= l->dims[i];
		if (span * stride >= n * stride && span >= n)
			break;
	}
	if (used == 0)
		used = 1;
	return (double)used / nd;
}

double comm_group_bw(const hw_level *l, int n, int stride)
{
	double b = l->bw;
	switch (l->topo) {
	case HW_TOPO_FULLMESH:
		/* Links go one per peer: a group of n uses n-1 of the chips-1 links. */
		if (l->chips > 1)
			b *= (double)(n - 1) / (l->chips - 1);
		break;
	case HW_TOPO_TORUS2D:
	case HW_TOPO_TORUS3D:
		b *= torus_share(l, n, stride);
		break;
	case HW_TOPO_FATTREE:
	case HW_TOPO_DCN:
		b /= l->oversubscription;
		break;
	default:
		break;
	}
	return b;
}

/* Latency steps on a torus: one ring per dimension, so Σ(n_d - 1) instead of n - 1. */
static double torus_nm1(const hw_level *l, int n)
{
	double sum = 0;
	int left = n;
	for (int i = 0; i < 3 && left > 1; i++) {
		int d = l->dims[i] > 0 ? imin(l->dims[i], left) : left;
		sum += d - 1;
		left = (left + d - 1) / d;
	}
	return sum > 0 ? sum : n - 1;
}

/* One level, one collective: the algorithms the topology allows, into c with their latency
 * terms and bandwidth factors (the cheapest at a size is chosen: cands_time), and after them,
 * in c[count], the ring that is always possible, taken when none of them gives a finite time.
 * n ranks on the level getting group_bw, torus_steps latency steps on a torus. p2p: the serving
 * stacks' own peer-to-peer kernels instead, with no ring after them. Returns the count. */
static int level_cands(const hw_system *s, int li, hw_coll op, int n, double group_bw, double torus_steps, int p2p,
		       comm_cand *c)
{
	const hw_level *l = &s->levels[li];
	int torus = l->topo == HW_TOPO_TORUS2D || l->topo == HW_TOPO_TORUS3D, nc = 0;
	for (int k = 0; k < s->algos.ntopo[l->topo]; k++) {
		int ai = s->algos.topo[l->topo][k];
		const hw_algo *a = &s->algos.algo[ai];
		int inr = a->in_network;
		double steps;
		if (!a->has[op] || (inr && !l->in_network_reduction) || a->p2p != p2p)
			continue;
		if (torus && a->steps[op].kind == HW_F_NM1)
			steps = a->steps[op].a * torus_steps;
		else
			steps = hw_form_eval(a->steps[op], n);
		c[nc].a = steps * l->latency;
		c[nc].f = hw_form_eval(a->bw[op], n);
		c[nc].bw = group_bw * (inr ? l->inr_eff : l->bw_eff);
		c[nc].algo = ai;
		nc++;
	}
	/* No listed algorithm has this collective: a ring is always possible (not for p2p: its
	 * time is then infinite). */
	c[nc].a = p2p ? INFINITY : (op == HW_ALL_REDUCE ? 2 : 1) * (n - 1) * l->latency;
	c[nc].f = op == HW_ALL_REDUCE ? 2.0 * (n - 1) / n : (double)(n - 1) / n;
	c[nc].bw = group_bw * l->bw_eff;
	c[nc].algo = -1;
	return nc;
}

/* The cheapest candidate at `bytes` (level_time's loop: the first of equal times wins), or
 * the ring after them when none is finite. */
static double cands_time(const comm_cand *c, int nc, double bytes, int *algo)
{
	double best = INFINITY;
	*algo = -1;
	for (int k = 0; k < nc; k++) {
		double t = c[k].a + c[k].f * bytes / c[k].bw;
		if (t < best) {
			best = t;
			*algo = c[k].algo;
		}
	}
	if (!isfinite(best))
		best = isfinite(c[nc].a) ? c[nc].a + c[nc].f * bytes / c[nc].bw : INFINITY;
	return best;
}

void comm_group_init(comm_group *g, const hw_system *s, int n, int stride)
{
	comm_group_init_ctas(g, s, n, stride, 0);
}

double comm_ctas_share(const hw_system *s, int ctas)
{
	const hw_level *l = s->nlevels > 0 ? &s->levels[0] : NULL;
	if (!l || ctas <= 0 || !(l->channel_bw > 0) || !(l->bw > 0) || ctas * l->channel_bw >= l->bw)
		return 1;
	return ctas * l->channel_bw / l->bw;
}

void comm_group_init_ctas(comm_group *g, const hw_system *s, int n, int stride, int ctas)
{
	int inner = 1;
	g->s = s;
	g->n = n;
	g->stride = stride;
	g->ctas = ctas;
	g->outer = -1;
	for (int l = 0; l < HW_LEVELS_MAX; l++)
		g->ranks[l] = 0;
	if (n <= 1 || s->nlevels == 0)
		return;
	g->outer = comm_place(s, n, stride, g->ranks);
	for (int l = 0; l <= g->outer; l++) {
		const hw_level *lv = &s->levels[l];
		g->lstride[l] = stride * inner;
		inner *= g->ranks[l];
		if (g->ranks[l] <= 1)
			continue;
		g->bw[l] = comm_group_bw(lv, g->ranks[l], g->lstride[l]);
		if (ctas > 0 && lv->channel_bw > 0 && ctas * lv->channel_bw < g->bw[l])
			g->bw[l] = ctas * lv->channel_bw;
		g->torus_steps[l] = lv->topo == HW_TOPO_TORUS2D || lv->topo == HW_TOPO_TORUS3D
					    ? torus_nm1(lv, g->ranks[l])
					    : 0;
	}
}

void comm_plan_group(comm_plan *cp, const comm_group *g, comm_op op)
{
	const hw_system *s = g->s;
	memset(cp->nc, 0, sizeof cp->nc);
	memset(cp->two, 0, sizeof cp->two);
	cp->s = s;
	cp->op = op;
	cp->n = g->n;
	cp->stride = g->stride;
	cp->outer = -1;
	cp->floor = 0;
	cp->np2p = 0;
	cp->p2p[0].a = INFINITY;
	cp->p2p[0].algo = -1;
	cp->p2p_floor = 0;
	for (int l = 0; l < HW_LEVELS_MAX; l++)
		cp->ranks[l] = g->ranks[l];
	if (g->n <= 1 || s->nlevels == 0)
		return;
	cp->outer = g->outer;
	if (cp->outer < 0)
		return;
	cp->floor = s->levels[cp->outer].call_floor;
	if (op == COMM_SEND_RECV) {
		/* One message between neighbours `stride` apart: the level that joins them. */
		const hw_level *l = &s->levels[cp->outer];
		comm_cand *c = &cp->c[cp->outer][0][0];
		c->a = l->latency;
		c->f = 1;
		c->bw = comm_group_bw(l, 2, g->stride) * l->bw_eff;
		c->algo = -1;
		cp->nc[cp->outer][0] = 1;
		return;
	}
	for (int l = 0; l <= cp->outer; l++) {
		int r = cp->ranks[l];
		double bw = g->bw[l], ts = g->torus_steps[l];
		if (r <= 1)
			continue;
		if (op == COMM_ALL_TO_ALL) {
			cp->nc[l][0] = level_cands(s, l, HW_ALL_TO_ALL, r, bw, ts, 0, cp->c[l][0]);
		} else if (l < cp->outer && op == COMM_ALL_REDUCE) {
			/* Hierarchical: reduce-scatter in, all-gather out, the all-reduce outermost. */
			cp->nc[l][0] = level_cands(s, l, HW_REDUCE_SCATTER, r, bw, ts, 0, cp->c[l][0]);
			cp->nc[l][1] = level_cands(s, l, HW_ALL_GATHER, r, bw, ts, 0, cp->c[l][1]);
			cp->two[l] = 1;
		} else {
			cp->nc[l][0] = level_cands(s, l, (hw_coll)op, r, bw, ts, 0, cp->c[l][0]);
		}
	}
	if (op == COMM_ALL_REDUCE && cp->outer == 0) {
		/* One node: the serving stacks' own kernels over the whole group (comm_allreduce_p2p):
		 * level 0 holds it all, its ranks n at the group's stride. */
		cp->np2p = level_cands(s, 0, HW_ALL_REDUCE, g->n, g->bw[0], g->torus_steps[0], 1, cp->p2p);
		cp->p2p_floor = s->levels[0].p2p_floor;
	}
}

void comm_plan_init(comm_plan *cp, const hw_system *s, comm_op op, int n, int stride)
{
	comm_group g;
	comm_group_init(&g, s, n, stride);
	comm_plan_group(cp, &g, op);
}

comm_cost comm_group_time(const comm_group *g, comm_op op, double bytes)
{
	comm_plan cp;
	if (g->n <= 1 || bytes <= 0 || g->s->nlevels == 0)
		return comm_time(g->s, op, bytes, g->n, g->stride);
	comm_plan_group(&cp, g, op);
	return comm_plan_time(&cp, bytes);
}

/* An all-to-all plan's levels into c (c.t the slowest): every rank sends (n-1)/n of S. Of it,
 * (reach - inner)/n leaves its inner unit over level l, where inner and reach are the ranks below
 * and up to l: an all-to-all among m = ranks[l] units of S·reach/n each, since
 * (reach-inner)/n = (reach/n)(m-1)/m; share of it above the innermost level (1: all). Levels move
 * their shares at once: the slowest sets the time. */
static void a2a_levels(const comm_plan *cp, double bytes, double share, comm_cost *c)
{
	int inner = 1;
	for (int l = 0; l <= c->outer; l++) {
		int reach = inner * cp->ranks[l];
		if (cp->ranks[l] > 1) {
			double t = cands_time(cp->c[l][0], cp->nc[l][0], bytes * (l > 0 ? share : 1) * reach / cp->n,
					      &c->algo[l]);
			c->t_level[l] = t;
			if (t > c->t)
				c->t = t;
		}
		inner = reach;
	}
}

comm_cost comm_plan_time(const comm_plan *cp, double bytes)
{
	comm_cost c;
	memset(&c, 0, sizeof c);
	for (int l = 0; l < HW_LEVELS_MAX; l++)
		c.algo[l] = -1;
	c.outer = -1;
	if (cp->n <= 1 || bytes <= 0 || cp->s->nlevels == 0)
		return c;
	c.outer = cp->outer;
	memcpy(c.ranks, cp->ranks, sizeof c.ranks);
	if (c.outer < 0)
		return c;
	if (cp->op == COMM_SEND_RECV) {
		const comm_cand *k = &cp->c[c.outer][0][0];
		c.t_level[c.outer] = k->a + bytes / k->bw;
		c.t = c.t_level[c.outer];
	} else if (cp->op == COMM_ALL_TO_ALL) {
		a2a_levels(cp, bytes, 1, &c);
	} else {
		/* Hierarchical: reduce-scatter (or its mirror) on inner levels, op on the outermost. */
		double part = bytes;
		for (int l = 0; l <= c.outer; l++) {
			if (cp->ranks[l] <= 1)
				continue;
			c.t_level[l] = cands_time(cp->c[l][0], cp->nc[l][0], part, &c.algo[l]);
			if (cp->two[l])
				c.t_level[l] += cands_time(cp->c[l][1], cp->nc[l][1], part, &c.algo[l]);
			c.t += c.t_level[l];
			part /= cp->ranks[l];
		}
	}
	if (c.t < cp->floor)
		c.t = cp->floor;
	return c;
}

comm_cost comm_time(const hw_system *s, comm_op op, double bytes, int n, int stride)
{
	comm_plan cp;
	if (n <= 1 || bytes <= 0 || s->nlevels == 0) {
		comm_cost c;
		memset(&c, 0, sizeof c);
		for (int l = 0; l < HW_LEVELS_MAX; l++)
			c.algo[l] = -1;
		c.outer = -1;
		return c;
	}
	comm_plan_init(&cp, s, op, n, stride);
	return comm_plan_time(&cp, bytes);
}

comm_cost comm_a2a_limited(const hw_system *s, double bytes, int n, int stride, double share)
{
	comm_plan cp;
	comm_cost c;
	if (share >= 1 || n <= 1 || bytes <= 0 || s->nlevels == 0)
		return comm_time(s, COMM_ALL_TO_ALL, bytes, n, stride);
	comm_plan_init(&cp, s, COMM_ALL_TO_ALL, n, stride);
	memset(&c, 0, sizeof c);
	for (int l = 0; l < HW_LEVELS_MAX; l++)
		c.algo[l] = -1;
	c.outer = cp.outer;
	memcpy(c.ranks, cp.ranks, sizeof c.ranks);
	if (c.outer < 0)
		return c;
	a2a_levels(&cp, bytes, share > 0 ? share : 0, &c);
	if (c.t < cp.floor)
		c.t = cp.floor;
	return c;
}

comm_cost comm_plan_time_p2p(const comm_plan *cp, double bytes)
{
	comm_cost c = comm_plan_time(cp, bytes);
	double t;
	int algo;
	if (c.outer != 0)
		return c; /* more than one node, or nothing to do: the library's hierarchy */
	t = cands_time(cp->p2p, cp->np2p, bytes, &algo);
	if (!isfinite(t))
		return c; /* the node's topology lists no peer-to-peer kernel */
	if (t < cp->p2p_floor)
		t = cp->p2p_floor;
	c.t = c.t_level[0] = t;
	c.algo[0] = algo;
	return c;
}

comm_cost comm_allreduce_p2p(const hw_system *s, double bytes, int n, int stride)
{
	comm_plan cp;
	if (n <= 1 || bytes <= 0 || s->nlevels == 0)
		return comm_time(s, COMM_ALL_REDUCE, bytes, n, stride);
	comm_plan_init(&cp, s, COMM_ALL_REDUCE, n, stride);
	return comm_plan_time_p2p(&cp, bytes);
}

void comm_split(const comm_cost *c, double t, double level[HW_LEVELS_MAX])
{
	double sum = 0;
	for (int l = 0; l < HW_LEVELS_MAX; l++)
		sum += c->t_level[l];
	for (int l = 0; l < HW_LEVELS_MAX && sum > 0; l++)
		level[l] += t * c->t_level[l] / sum;
	if (sum == 0 && c->outer >= 0)
		level[c->outer] += t;
}
