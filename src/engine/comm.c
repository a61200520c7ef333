/* comm: collectives on the hierarchy (see comm.h). */
#include "engine/comm.h"

#include <math.h>
#include <string.h>

#include "base/num.h"

static int imin(int a, int b) { return a < b ? a : b; }
static int imax(int a, int b) { return a > b ? a : b; }

/* Ranks on level l of a group of n ranks stride (>= 1) apart, inner of them on the levels below. */
static inline int place_level(const hw_system *s, int l, int n, int stride, int inner)
{
	/* Members of the group inside one unit of this level. */
	int unit = s->levels[l].chips;
	int within = l == s->nlevels - 1 ? n : imin(n, imax(1, unit / stride));
	/* A group that does not fill whole units still spans the next unit: round up. */
	return imax(1, (within + inner - 1) / inner);
}

int comm_place(const hw_system *s, int n, int stride, int ranks[HW_LEVELS_MAX])
{
	int inner = 1, outer = -1;
	if (stride < 1)
		stride = 1;
	NUM_UNROLL
	for (int l = 0; l < HW_LEVELS_MAX; l++) {
		if (l >= s->nlevels) {
			ranks[l] = 1;
			continue;
		}
		ranks[l] = place_level(s, l, n, stride, inner);
		if (ranks[l] > 1)
			outer = l;
		inner *= ranks[l];
	}
	return outer;
}

/* Torus dimensions a group of n ranks stride apart spans, out of how many. */
__attribute__((always_inline)) static inline double torus_share(const hw_level *l, int n, int stride)
{
	int nd = 0, used = 0, span = 1, cum = 1;
	NUM_UNROLL
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

/* comm_group_bw, inline for the group's placement. */
__attribute__((always_inline)) static inline double group_bw(const hw_level *l, int n, int stride)
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

double comm_group_bw(const hw_level *l, int n, int stride)
{
	return group_bw(l, n, stride);
}

/* Latency steps on a torus: one ring per dimension, so Σ(n_d - 1) instead of n - 1. */
__attribute__((always_inline)) static inline double torus_nm1(const hw_level *l, int n)
{
	double sum = 0;
	int left = n;
	NUM_UNROLL
	for (int i = 0; i < 3 && left > 1; i++) {
		int d = l->dims[i] > 0 ? imin(l->dims[i], left) : left;
		sum += d - 1;
		left = (left + d - 1) / d;
	}
	return sum > 0 ? sum : n - 1;
}

/* Algorithm ai of level l for collective op over n ranks getting group_bw, torus_steps latency
 * steps on a torus: its latency term, bandwidth factor and bandwidth into *c. 0 when the
 * algorithm does not run op there (not listed for it, an in-network reduction the level lacks,
 * or not of the kind p2p asks for). */
static inline int cand_of(const hw_system *s, const hw_level *l, int ai, hw_coll op, int n, double group_bw,
			  double torus_steps, int p2p, comm_cand *c)
{
	const hw_algo *a = &s->algos.algo[ai];
	int inr = a->in_network;
	double steps;
	if (!a->has[op] || (inr && !l->in_network_reduction) || a->p2p != p2p)
		return 0;
	if ((l->topo == HW_TOPO_TORUS2D || l->topo == HW_TOPO_TORUS3D) && a->steps[op].kind == HW_F_NM1)
		steps = a->steps[op].a * torus_steps;
	else
		steps = hw_form_eval(a->steps[op], n);
	c->a = steps * l->latency;
	c->f = hw_form_eval(a->bw[op], n);
	c->bw = group_bw * (inr ? l->inr_eff : l->bw_eff);
	c->algo = ai;
	return 1;
}

/* The ring that is always possible (not for p2p: its time is then infinite). */
static inline void ring_of(const hw_level *l, hw_coll op, int n, double group_bw, int p2p, comm_cand *c)
{
	c->a = p2p ? INFINITY : (op == HW_ALL_REDUCE ? 2 : 1) * (n - 1) * l->latency;
	c->f = op == HW_ALL_REDUCE ? 2.0 * (n - 1) / n : (double)(n - 1) / n;
	c->bw = group_bw * l->bw_eff;
	c->algo = -1;
}

/* s a candidate takes for `bytes`. */
static inline double cand_time(const comm_cand *c, double bytes)
{
	return c->a + c->f * bytes / c->bw;
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
	int nc = 0;
	for (int k = 0; k < s->algos.ntopo[l->topo]; k++)
		nc += cand_of(s, l, s->algos.topo[l->topo][k], op, n, group_bw, torus_steps, p2p, &c[nc]);
	ring_of(l, op, n, group_bw, p2p, &c[nc]);
	return nc;
}

/* The cheapest candidate at `bytes` (level_time's loop: the first of equal times wins), or
 * the ring after them when none is finite. */
static double cands_time(const comm_cand *c, int nc, double bytes, int *algo)
{
	double best = INFINITY;
	*algo = -1;
	for (int k = 0; k < nc; k++) {
		double t = cand_time(&c[k], bytes);
		if (t < best) {
			best = t;
			*algo = c[k].algo;
		}
	}
	if (!isfinite(best))
		best = isfinite(c[nc].a) ? cand_time(&c[nc], bytes) : INFINITY;
	return best;
}

/* The ring's time at `bytes`, taken when no listed algorithm gives a finite one (rare: out of
 * the way of the loops that cost the listed ones). */
__attribute__((cold, noinline)) static double ring_time(const hw_level *l, hw_coll op, int n, double group_bw,
							 double bytes)
{
	comm_cand c;
	ring_of(l, op, n, group_bw, 0, &c);
	return isfinite(c.a) ? cand_time(&c, bytes) : INFINITY;
}

/* best, the cheapest algorithm's time at `bytes`, or the ring's when none is finite (as
 * cands_time). */
static inline double ring_if_none(const hw_level *l, hw_coll op, int n, double group_bw, double bytes, double best)
{
	return isfinite(best) ? best : ring_time(l, op, n, group_bw, bytes);
}

/* cands_time of level_cands (not p2p) at `bytes`, worked out as it goes: no table. */
__attribute__((always_inline)) static inline double level_direct(const hw_system *s, int li, hw_coll op, int n,
								  double group_bw, double torus_steps, double bytes,
								  int *algo)
{
	const hw_level *l = &s->levels[li];
	double best = INFINITY;
	comm_cand c;
	*algo = -1;
	for (int k = 0; k < s->algos.ntopo[l->topo]; k++)
		if (cand_of(s, l, s->algos.topo[l->topo][k], op, n, group_bw, torus_steps, 0, &c)) {
			double t = cand_time(&c, bytes);
			if (t < best) {
				best = t;
				*algo = c.algo;
			}
		}
	return ring_if_none(l, op, n, group_bw, bytes, best);
}

void comm_group_init_ctas(comm_group *g, const hw_system *s, int n, int stride, int ctas)
{
	int inner = 1, ps = stride < 1 ? 1 : stride;
	g->s = s;
	g->n = n;
	g->stride = stride;
	g->ctas = ctas;
	g->outer = -1;
	if (n <= 1 || s->nlevels == 0) {
		NUM_UNROLL
		for (int l = 0; l < HW_LEVELS_MAX; l++)
			g->ranks[l] = 0;
		return;
	}
	/* comm_place, and what a spanned level gives the group, in one pass. */
	NUM_UNROLL
	for (int l = 0; l < HW_LEVELS_MAX; l++) {
		const hw_level *lv = &s->levels[l];
		int r;
		if (l >= s->nlevels) {
			g->ranks[l] = 1;
			continue;
		}
		r = g->ranks[l] = place_level(s, l, n, ps, inner);
		g->lstride[l] = stride * inner;
		inner *= r;
		if (r <= 1)
			continue;
		g->outer = l;
		g->bw[l] = group_bw(lv, r, g->lstride[l]);
		if (ctas > 0 && lv->channel_bw > 0 && ctas * lv->channel_bw < g->bw[l])
			g->bw[l] = ctas * lv->channel_bw;
		g->torus_steps[l] = lv->topo == HW_TOPO_TORUS2D || lv->topo == HW_TOPO_TORUS3D ? torus_nm1(lv, r) : 0;
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

/* comm_plan_time of cp, or, with cp NULL, of the plan comm_plan_group would make of op in g,
 * each level's candidates worked out as they are costed (level_direct): figure for figure. An
 * all-to-all sends share of what leaves the innermost level over each level above it (1: all,
 * comm_a2a_limited). */
__attribute__((always_inline)) static inline comm_cost cost(const comm_plan *cp, const comm_group *g, comm_op op,
							  double bytes, double share)
{
	const hw_system *s = cp ? cp->s : g->s;
	const int *ranks = cp ? cp->ranks : g->ranks;
	int n = cp ? cp->n : g->n;
	comm_cost c;
	memset(&c, 0, sizeof c);
	NUM_UNROLL
	for (int l = 0; l < HW_LEVELS_MAX; l++)
		c.algo[l] = -1;
	c.outer = -1;
	if (n <= 1 || bytes <= 0 || s->nlevels == 0)
		return c;
	c.outer = cp ? cp->outer : g->outer;
	memcpy(c.ranks, ranks, sizeof c.ranks);
	if (c.outer < 0)
		return c;
	if (op == COMM_SEND_RECV) {
		const hw_level *lv = &s->levels[c.outer];
		if (cp) {
			const comm_cand *k = &cp->c[c.outer][0][0];
			c.t_level[c.outer] = k->a + bytes / k->bw;
		} else {
			c.t_level[c.outer] = lv->latency + bytes / (group_bw(lv, 2, g->stride) * lv->bw_eff);
		}
		c.t = c.t_level[c.outer];
	} else if (op == COMM_ALL_TO_ALL) {
		/* Every rank sends (n-1)/n of S. Of it, (reach - inner)/n leaves its inner unit over
		 * level l, where inner and reach are the ranks below and up to l: an all-to-all among
		 * m = ranks[l] units of S·reach/n each, since (reach-inner)/n = (reach/n)(m-1)/m; share
		 * of it above the innermost level. Levels move their shares at once: the slowest sets
		 * the time. */
		int inner = 1;
		NUM_UNROLL
		for (int l = 0; l <= c.outer; l++) {
			int reach = inner * ranks[l];
			if (ranks[l] > 1) {
				double part = bytes * (l > 0 ? share : 1) * reach / n;
				double t = cp ? cands_time(cp->c[l][0], cp->nc[l][0], part, &c.algo[l])
					      : level_direct(s, l, HW_ALL_TO_ALL, ranks[l], g->bw[l], g->torus_steps[l], part,
							     &c.algo[l]);
				c.t_level[l] = t;
				if (t > c.t)
					c.t = t;
			}
			inner = reach;
		}
	} else {
		/* Hierarchical: reduce-scatter (or its mirror) on inner levels, op on the outermost. */
		double part = bytes;
		NUM_UNROLL
		for (int l = 0; l <= c.outer; l++) {
			int two;
			if (ranks[l] <= 1)
				continue;
			two = cp ? cp->two[l] : l < c.outer && op == COMM_ALL_REDUCE;
			if (cp)
				c.t_level[l] = cands_time(cp->c[l][0], cp->nc[l][0], part, &c.algo[l]);
			else
				c.t_level[l] = level_direct(s, l, two ? HW_REDUCE_SCATTER : (hw_coll)op, ranks[l], g->bw[l],
							    g->torus_steps[l], part, &c.algo[l]);
			if (two)
				c.t_level[l] += cp ? cands_time(cp->c[l][1], cp->nc[l][1], part, &c.algo[l])
						   : level_direct(s, l, HW_ALL_GATHER, ranks[l], g->bw[l], g->torus_steps[l],
								  part, &c.algo[l]);
			c.t += c.t_level[l];
			part /= ranks[l];
		}
	}
	{
		double floor = cp ? cp->floor : s->levels[c.outer].call_floor;
		if (c.t < floor)
			c.t = floor;
	}
	return c;
}

comm_cost comm_group_time(const comm_group *g, comm_op op, double bytes)
{
	return cost(NULL, g, op, bytes, 1);
}

/* level_direct of two collectives on one level in one pass over its algorithms. */
__attribute__((always_inline)) static inline void level_pair(const hw_system *s, int li, hw_coll oa, hw_coll ob,
							     int n, double group_bw, double torus_steps, double ba,
							     double bb, double *ta, double *tb, int *algo_a,
							     int *algo_b)
{
	const hw_level *l = &s->levels[li];
	double best_a = INFINITY, best_b = INFINITY;
	comm_cand c;
	*algo_a = *algo_b = -1;
	for (int k = 0; k < s->algos.ntopo[l->topo]; k++) {
		int ai = s->algos.topo[l->topo][k];
		if (cand_of(s, l, ai, oa, n, group_bw, torus_steps, 0, &c)) {
			double t = cand_time(&c, ba);
			if (t < best_a) {
				best_a = t;
				*algo_a = c.algo;
			}
		}
		if (cand_of(s, l, ai, ob, n, group_bw, torus_steps, 0, &c)) {
			double t = cand_time(&c, bb);
			if (t < best_b) {
				best_b = t;
				*algo_b = c.algo;
			}
		}
	}
	*ta = ring_if_none(l, oa, n, group_bw, ba, best_a);
	*tb = ring_if_none(l, ob, n, group_bw, bb, best_b);
}

void comm_group_time2(const comm_group *g, comm_op oa, double ba, comm_op ob, double bb, comm_cost *a, comm_cost *b)
{
	const hw_system *s = g->s;
	double pa = ba, pb = bb;
	/* A collective that is not one pass per level (an all-reduce, an all-to-all, a message),
	 * or one that costs nothing: one at a time. */
	if (oa == COMM_ALL_REDUCE || ob == COMM_ALL_REDUCE || oa == COMM_ALL_TO_ALL || ob == COMM_ALL_TO_ALL ||
	    oa == COMM_SEND_RECV || ob == COMM_SEND_RECV || g->n <= 1 || ba <= 0 || bb <= 0 || s->nlevels == 0 ||
	    g->outer < 0) {
		*a = comm_group_time(g, oa, ba);
		*b = comm_group_time(g, ob, bb);
		return;
	}
	memset(a, 0, sizeof *a);
	memset(b, 0, sizeof *b);
	NUM_UNROLL
	for (int l = 0; l < HW_LEVELS_MAX; l++) {
		a->algo[l] = b->algo[l] = -1;
		a->ranks[l] = b->ranks[l] = g->ranks[l];
	}
	a->outer = b->outer = g->outer;
	NUM_UNROLL
	for (int l = 0; l <= g->outer; l++) {
		if (g->ranks[l] <= 1)
			continue;
		level_pair(s, l, (hw_coll)oa, (hw_coll)ob, g->ranks[l], g->bw[l], g->torus_steps[l], pa, pb,
			   &a->t_level[l], &b->t_level[l], &a->algo[l], &b->algo[l]);
		a->t += a->t_level[l];
		b->t += b->t_level[l];
		pa /= g->ranks[l];
		pb /= g->ranks[l];
	}
	if (a->t < s->levels[g->outer].call_floor)
		a->t = s->levels[g->outer].call_floor;
	if (b->t < s->levels[g->outer].call_floor)
		b->t = s->levels[g->outer].call_floor;
}

comm_cost comm_plan_time(const comm_plan *cp, double bytes)
{
	return cost(cp, NULL, cp->op, bytes, 1);
}

comm_cost comm_time(const hw_system *s, comm_op op, double bytes, int n, int stride)
{
	comm_group g;
	if (n <= 1 || bytes <= 0 || s->nlevels == 0) {
		g.s = s;
		g.n = n;
		return cost(NULL, &g, op, bytes, 1);
	}
	if (op == COMM_SEND_RECV) {
		/* One message: only the level that joins the two (its bandwidth is cost's own). */
		g.s = s;
		g.n = n;
		g.stride = stride;
		g.outer = comm_place(s, n, stride, g.ranks);
		return cost(NULL, &g, op, bytes, 1);
	}
	comm_group_init(&g, s, n, stride);
	return cost(NULL, &g, op, bytes, 1);
}

comm_cost comm_a2a_limited(const hw_system *s, double bytes, int n, int stride, double share)
{
	comm_group g;
	if (share >= 1 || n <= 1 || bytes <= 0 || s->nlevels == 0)
		return comm_time(s, COMM_ALL_TO_ALL, bytes, n, stride);
	comm_group_init(&g, s, n, stride);
	return cost(NULL, &g, COMM_ALL_TO_ALL, bytes, share > 0 ? share : 0);
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
