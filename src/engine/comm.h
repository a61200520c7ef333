/* comm: time of a collective on the system's hierarchy, alpha-beta per algorithm.
 *
 * A group of n ranks placed `stride` chips apart (tensor-parallel groups are contiguous,
 * data-parallel groups stride over tp·cp, pipeline neighbours over tp·cp·dp) spans the levels
 * node, scale-up domain and scale-out: it has n_l ranks on each level, innermost first. One
 * level alone runs the cheapest algorithm its topology allows (models/hw/collectives.ini):
 * time = steps(n)·alpha + factor(n)·S / (B_group·eff), and never less than the level's call
 * floor. Across levels the all-reduce is hierarchical (MODEL.md): reduce-scatter inside, the
 * all-reduce of S/n_inner outside, all-gather inside. The bandwidth a group gets is the level's
 * per-chip figure B, reduced where the group uses only part of the links (a torus dimension,
 * some peers of a full mesh) and by the scale-out oversubscription. Pure; costs nothing that
 * grows with the cluster size. */
#ifndef ROOFCOST_COMM_H
#define ROOFCOST_COMM_H

#include "base/num.h"
#include "model/hw.h"

typedef enum comm_op {
	COMM_ALL_REDUCE = HW_ALL_REDUCE,
	COMM_REDUCE_SCATTER = HW_REDUCE_SCATTER,
	COMM_ALL_GATHER = HW_ALL_GATHER,
	COMM_ALL_TO_ALL = HW_ALL_TO_ALL,
	COMM_BROADCAST = HW_BROADCAST,
	COMM_SEND_RECV
} comm_op;

typedef struct comm_cost {
	double t;                          /* s */
	double t_level[HW_LEVELS_MAX];     /* s per level (before the call floor) */
	int ranks[HW_LEVELS_MAX];          /* group ranks on each level */
	int outer;                         /* index of the outermost level used, -1 if none */
	int algo[HW_LEVELS_MAX];           /* algorithm index per level, -1 if unused */
} comm_cost;

/* A collective of one kind, group size and stride on one system, worked out up to its size:
 * the group's placement on the levels and, per level, each algorithm's latency term and
 * bandwidth factor. comm_plan_time then costs any buffer size in a few operations, exactly as
 * comm_time does (comm_time is comm_plan_init then comm_plan_time). A plain value: a sweep keeps
 * plans of the collectives its layouts repeat, whatever their sizes. */
typedef struct comm_cand {
	double a;                          /* s: latency steps × the level's latency */
	double f;                          /* the bandwidth factor (× S / bw) */
	double bw;                         /* B/s the group gets at the algorithm's efficiency */
	int algo;                          /* index into the system's algorithms; -1 the ring fallback */
} comm_cand;

typedef struct comm_plan {
	const hw_system *s;
	comm_op op;
	int n, stride;
	int outer;                         /* comm_cost.outer; -1: the collective costs nothing */
	int ranks[HW_LEVELS_MAX];
	int nc[HW_LEVELS_MAX][2];          /* candidates per level: [0] op (reduce-scatter of an inner
					      all-reduce), [1] the all-gather after it; the ring
					      fallback follows them (c[l][i][nc]) */
	int two[HW_LEVELS_MAX];            /* 1: the level runs [0] then [1] (an inner all-reduce) */
	comm_cand c[HW_LEVELS_MAX][2][HW_ALGOS_MAX + 1];
	double floor;                      /* s: the outermost level's call floor */
	int np2p;                          /* all-reduce: the node's peer-to-peer kernels (comm_allreduce_p2p) */
	comm_cand p2p[HW_ALGOS_MAX + 1];
	double p2p_floor;                  /* s: level 0's p2p_floor */
} comm_plan;

/* A group of n ranks stride apart placed on s's levels (comm_place), with what every collective
 * in it shares on each level it spans: its ranks and stride there, the bandwidth it gets and a
 * torus's latency steps. Collectives of one group (a reduce-scatter and its all-gather) work it
 * out once. s must outlive it. */
typedef struct comm_group {
	const hw_system *s;
	int n, stride;
	int ctas;                          /* channels (CTAs) the library may use; 0: its own choice */
	int outer;                         /* comm_place's; -1 when the group is one rank */
	int ranks[HW_LEVELS_MAX];
	int lstride[HW_LEVELS_MAX];        /* chips between members inside each level */
	double bw[HW_LEVELS_MAX];          /* comm_group_bw of each spanned level */
	double torus_steps[HW_LEVELS_MAX]; /* a torus level's latency steps, one ring per dimension */
} comm_group;

/* comm_group_init of a group whose communicator may run at most ctas channels (CTAs; 0 = no
 * limit, as comm_group_init): on a level whose file gives channel_bw, the group gets no more than
 * ctas x channel_bw per direction (NCCL needs 2 CTAs per NVLink to fill it, NVIDIA/nccl#1703;
 * Megatron sets max_ctas per communicator from nccl_communicator_config_path). */
void comm_group_init_ctas(comm_group *g, const hw_system *s, int n, int stride, int ctas);

/* A group of n ranks stride apart with no channel limit. */
static inline void comm_group_init(comm_group *g, const hw_system *s, int n, int stride)
{
	comm_group_init_ctas(g, s, n, stride, 0);
}

/* The share of a chip's own links (the innermost level) a communicator capped at ctas channels
 * drives: min(1, ctas x channel_bw / bw), 1 when it is not capped or the level gives no
 * channel_bw. What a collective beside compute takes from it (SMs, HBM traffic) scales with it. */
static inline double comm_ctas_share(const hw_system *s, int ctas)
{
	const hw_level *l = s->nlevels > 0 ? &s->levels[0] : NULL;
	if (!l || ctas <= 0 || !(l->channel_bw > 0) || !(l->bw > 0) || ctas * l->channel_bw >= l->bw)
		return 1;
	return ctas * l->channel_bw / l->bw;
}

/* comm_plan_init of op in group g. */
void comm_plan_group(comm_plan *cp, const comm_group *g, comm_op op);

/* comm_time(g->s, op, bytes, g->n, g->stride), figure for figure. */
comm_cost comm_group_time(const comm_group *g, comm_op op, double bytes);

/* comm_group_time of two collectives of g at once (an all-gather and a reduce-scatter), into
 * *a and *b, figure for figure: the levels and their algorithms are walked once. */
void comm_group_time2(const comm_group *g, comm_op oa, double ba, comm_op ob, double bb, comm_cost *a, comm_cost *b);

/* Works out op in a group of n ranks stride apart on s (see comm_time). s must outlive it. */
void comm_plan_init(comm_plan *cp, const hw_system *s, comm_op op, int n, int stride);

/* comm_time(cp->s, cp->op, bytes, cp->n, cp->stride), figure for figure. */
comm_cost comm_plan_time(const comm_plan *cp, double bytes);

/* comm_allreduce_p2p(cp->s, bytes, cp->n, cp->stride) of an all-reduce plan, figure for figure. */
comm_cost comm_plan_time_p2p(const comm_plan *cp, double bytes);

/* Time of op over S bytes per rank (the buffer each rank holds: all-reduce input, all-gather
 * output, reduce-scatter input, all-to-all send buffer, point-to-point message) in a group of
 * n ranks `stride` chips apart. n <= 1 costs 0. */
comm_cost comm_time(const hw_system *s, comm_op op, double bytes, int n, int stride);

/* A tensor-parallel all-reduce by a serving stack's own peer-to-peer kernels (the p2p
 * algorithms of collectives.ini: one-shot, two-shot) when the group sits in one node whose
 * topology lists them, never below the level's p2p_floor; otherwise comm_time's all-reduce. */
comm_cost comm_allreduce_p2p(const hw_system *s, double bytes, int n, int stride);

/* An all-to-all as comm_time's, of which only share (0..1] of what leaves the innermost level
 * crosses it: S per rank inside, S·share on every level above (node-limited MoE routing sends a
 * token once to each of at most so many nodes, DeepSeek-V3 §2.1.2, §3.2.2). */
comm_cost comm_a2a_limited(const hw_system *s, double bytes, int n, int stride, double share);

/* Adds t seconds of c's kind of traffic into level[], split in proportion to the time c spent
 * on each level (all on the outermost when c has no split). */
static inline void comm_split(const comm_cost *c, double t, double level[HW_LEVELS_MAX])
{
	double sum = 0;
	NUM_UNROLL
	for (int l = 0; l < HW_LEVELS_MAX; l++)
		sum += c->t_level[l];
	if (sum > 0) {
		NUM_UNROLL
		for (int l = 0; l < HW_LEVELS_MAX; l++)
			level[l] += t * c->t_level[l] / sum;
	}
	if (sum == 0 && c->outer >= 0)
		level[c->outer] += t;
}

/* Ranks of such a group on each level (innermost first); returns the outermost level index. */
int comm_place(const hw_system *s, int n, int stride, int ranks[HW_LEVELS_MAX]);

/* Bandwidth (B/s, before efficiency) a group of n ranks gets on level l. */
double comm_group_bw(const hw_level *l, int n, int stride_in_level);

#endif
