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

/* One level, one collective: the cheapest algorithm the topology allows. */
static double level_time(const hw_system *s, int li, hw_coll op, double bytes, int n, int stride,
			 int p2p, int *algo)
{
	const hw_level *l = &s->levels[li];
	double best = INFINITY;
	*algo = -1;
	if (n <= 1)
		return 0;
	for (int k = 0; k < s->algos.ntopo[l->topo]; k++) {
		int ai = s->algos.topo[l->topo][k];
		const hw_algo *a = &s->algos.algo[ai];
		double steps, factor, bw, t;
		int inr = !strcmp(a->name, "switch_reduce");
		if (!a->has[op] || (inr && !l->in_network_reduction) || a->p2p != p2p)
			continue;
		steps = hw_form_eval(a->steps[op], n);
		if ((l->topo == HW_TOPO_TORUS2D || l->topo == HW_TOPO_TORUS3D) &&
		    a->steps[op].kind == HW_F_NM1)
			steps = a->steps[op].a * torus_nm1(l, n);
		factor = hw_form_eval(a->bw[op], n);
		bw = comm_group_bw(l, n, stride) * (inr ? l->inr_eff : l->bw_eff);
		t = steps * l->latency + factor * bytes / bw;
		if (t < best) {
			best = t;
			*algo = ai;
		}
	}
	if (!isfinite(best)) {
		/* No listed algorithm has this collective: a ring is always possible. */
		double f = op == HW_ALL_REDUCE ? 2.0 * (n - 1) / n : (double)(n - 1) / n;
		if (p2p)
			return best;
		best = (op == HW_ALL_REDUCE ? 2 : 1) * (n - 1) * l->latency +
		       f * bytes / (comm_group_bw(l, n, stride) * l->bw_eff);
	}
	return best;
}

/* Stride of the group inside level li: chips between consecutive members there. */
static int level_stride(const hw_system *s, int li, int stride, const int ranks[])
{
	int inner = 1;
	for (int l = 0; l < li; l++)
		inner *= ranks[l];
	(void)s;
	return stride * inner;
}

comm_cost comm_time(const hw_system *s, comm_op op, double bytes, int n, int stride)
{
	comm_cost c;
	int ranks[HW_LEVELS_MAX];
	memset(&c, 0, sizeof c);
	for (int l = 0; l < HW_LEVELS_MAX; l++)
		c.algo[l] = -1;
	c.outer = -1;
	if (n <= 1 || bytes <= 0 || s->nlevels == 0)
		return c;
	c.outer = comm_place(s, n, stride, ranks);
	memcpy(c.ranks, ranks, sizeof ranks);
	if (c.outer < 0)
		return c;

	if (op == COMM_SEND_RECV) {
		/* One message between neighbours `stride` apart: the level that joins them. */
		const hw_level *l = &s->levels[c.outer];
		c.t_level[c.outer] = l->latency + bytes / (comm_group_bw(l, 2, stride) * l->bw_eff);
		c.t = c.t_level[c.outer];
	} else if (op == COMM_ALL_TO_ALL) {
		/* Every rank sends (n-1)/n of S. Of it, (reach - inner)/n leaves its inner unit over
		 * level l, where inner and reach are the ranks below and up to l: an all-to-all among
		 * m = ranks[l] units of S·reach/n each, since (reach-inner)/n = (reach/n)(m-1)/m.
		 * Levels move their shares at once: the slowest sets the time. */
		int inner = 1;
		for (int l = 0; l <= c.outer; l++) {
			int reach = inner * ranks[l];
			if (ranks[l] > 1) {
				double t = level_time(s, l, HW_ALL_TO_ALL, bytes * reach / n, ranks[l],
						      level_stride(s, l, stride, ranks), 0, &c.algo[l]);
				c.t_level[l] = t;
				if (t > c.t)
					c.t = t;
			}
			inner = reach;
		}
	} else {
		/* Hierarchical: reduce-scatter (or its mirror) on inner levels, op on the outermost. */
		double part = bytes;
		for (int l = 0; l <= c.outer; l++) {
			int st = level_stride(s, l, stride, ranks);
			if (ranks[l] <= 1)
				continue;
			if (l < c.outer && (op == COMM_ALL_REDUCE)) {
				/* reduce-scatter in, all-gather out */
				c.t_level[l] = level_time(s, l, HW_REDUCE_SCATTER, part, ranks[l], st, 0, &c.algo[l]) +
					       level_time(s, l, HW_ALL_GATHER, part, ranks[l], st, 0, &c.algo[l]);
			} else if (l < c.outer) {
				c.t_level[l] = level_time(s, l, (hw_coll)op, part, ranks[l], st, 0, &c.algo[l]);
			} else {
				c.t_level[l] = level_time(s, l, (hw_coll)op, part, ranks[l], st, 0, &c.algo[l]);
			}
			c.t += c.t_level[l];
			part /= ranks[l];
		}
	}
	if (c.t < s->levels[c.outer].call_floor)
		c.t = s->levels[c.outer].call_floor;
	return c;
}

comm_cost comm_allreduce_p2p(const hw_system *s, double bytes, int n, int stride)
{
	comm_cost c = comm_time(s, COMM_ALL_REDUCE, bytes, n, stride);
	double t;
	int algo;
	if (c.outer != 0)
		return c; /* more than one node, or nothing to do: the library's hierarchy */
	t = level_time(s, 0, HW_ALL_REDUCE, bytes, n, stride, 1, &algo);
	if (!isfinite(t))
		return c; /* the node's topology lists no peer-to-peer kernel */
	if (t < s->levels[0].p2p_floor)
		t = s->levels[0].p2p_floor;
	c.t = c.t_level[0] = t;
	c.algo[0] = algo;
	return c;
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
