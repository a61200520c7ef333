/* sweep: layouts × chips × systems × prices, Pareto front and top k (see sweep.h). */
#include "engine/sweep.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/lim.h"

enum { KCACHE = 2048 };

typedef struct kslot {
	unsigned gen;            /* valid when the workspace's generation */
	int key[7];
	train_kernel k;
} kslot;

struct sweep_ws {
	int nthreads;            /* per-thread slots below */
	unsigned gen;            /* the run: kernel slots of another run are stale */
	wl_workload **w;         /* each thread's copy of the job's workload (ZeRO, recompute set
				    per layout) */
	kslot **cache;
	train_memo **memo;
	sweep_result **parts;    /* threads after the first write into these, then merge */
	int *max_chips;          /* per offer */
	int noffers;             /* room in max_chips */
	sweep_result *result;    /* sweep_ws_result */
};

typedef struct worker {
	const sweep_job *job;
	wl_workload *w;          /* this thread's copy of the workload: ZeRO and recompute per layout */
	unsigned gen;            /* the workspace's generation */
	const int *max_chips;    /* per offer: hw_max_chips */
	double checkpoint_bytes; /* 16 B per parameter: the checkpoint when [cost] gives none */
	int within_limits;       /* 1: every layout of the space passes plan_limits */
	uint64_t lo, hi;         /* global indices */
	sweep_result *res;
	kslot *cache;
	train_memo *memo;
	_Atomic uint64_t *done;
	int first;               /* reports progress */
	int any_price;           /* some offer has a price */
	int rc;
} worker;

void sweep_slice(uint64_t total, int shard, int nshards, uint64_t *lo, uint64_t *hi)
{
	/* floor(total * i / n) without forming total * i: total = q n + r. */
	uint64_t n = nshards > 0 ? (uint64_t)nshards : 1, q = total / n, r = total % n;
	uint64_t i = shard > 0 ? (uint64_t)shard : 0;
	*lo = q * i + r * i / n;
	*hi = q * (i + 1) + r * (i + 1) / n;
}

uint64_t sweep_size(const sweep_space *s, int noffers)
{
	const sweep_list *l[] = {&s->chips, &s->tp, &s->pp, &s->vpp, &s->cp, &s->ep, &s->sp, &s->mb,
				 &s->zero, &s->recompute};
	uint64_t n = noffers > 0 ? (uint64_t)noffers : 0;
	for (size_t i = 0; i < sizeof l / sizeof l[0]; i++) {
		uint64_t k = l[i]->n > 0 ? (uint64_t)l[i]->n : 0;
		if (k && n > UINT64_MAX / k)
			return UINT64_MAX;   /* saturates: it cannot wrap to a small number */
		n *= k;
	}
	return n;
}

/* (cost, run_time, index) order: the front and the top k sort by it. */
static int before(const sweep_point *a, const sweep_point *b)
{
	if (a->cost != b->cost)
		return a->cost < b->cost;
	if (a->run_time != b->run_time)
		return a->run_time < b->run_time;
	return a->index < b->index;
}

static void top_insert(sweep_result *r, int k, const sweep_point *p)
{
	int lo = 0, hi = r->ntop;
	if (r->ntop == k && !before(p, &r->top[k - 1]))
		return;
	while (lo < hi) {
		int mid = (lo + hi) / 2;
		if (before(&r->top[mid], p))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (r->ntop < k)
		r->ntop++;
	memmove(&r->top[lo + 1], &r->top[lo], (size_t)(r->ntop - 1 - lo) * sizeof *p);
	r->top[lo] = *p;
}

/* The front is sorted by cost with run_time strictly falling: p joins it unless a point at
 * most as costly is at most as slow; it removes the costlier points it is faster than. */
static void front_insert(sweep_result *r, const sweep_point *p)
{
	int lo = 0, hi = r->nfront, end;
	while (lo < hi) {
		int mid = (lo + hi) / 2;
		if (before(&r->front[mid], p))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo > 0 && r->front[lo - 1].run_time <= p->run_time)
		return;
	end = lo;
	while (end < r->nfront && r->front[end].run_time >= p->run_time)
		end++;
	if (end == lo && r->nfront == SWEEP_FRONT_MAX) {
		r->front_truncated = 1;
		return;
	}
	memmove(&r->front[lo + 1], &r->front[end], (size_t)(r->nfront - end) * sizeof *p);
	r->nfront += 1 - (end - lo);
	r->front[lo] = *p;
}

static const train_kernel *kernel(worker *wk, const hw_system *s, int sys, const wl_workload *w,
				  const plan *key)
{
	int k[7] = {sys, (int)w->recompute, key->tp, key->cp, key->ep, key->sp, key->micro_batch};
	uint64_t h = 1469598103934665603ULL;
	kslot *slot;
	for (int i = 0; i < 7; i++)
		h = (h ^ (uint64_t)(unsigned)k[i]) * 1099511628211ULL;
	slot = &wk->cache[h % KCACHE];
	if (slot->gen == wk->gen && !memcmp(slot->key, k, sizeof k))
		return &slot->k;
	train_kernel_eval(s, w, key, &slot->k);
	memcpy(slot->key, k, sizeof k);
	slot->gen = wk->gen;
	return &slot->k;
}

/* The index's digits, fastest first (chips, then ZeRO, ...), and the offer above them. A worker
 * walks its slice by counting them up: no division per layout. */
enum { NDIMS = 10, DIM_MB = 4 };

typedef struct cursor {
	const sweep_list *dims[NDIMS];
	int d[NDIMS];
	uint64_t offer;
	int changed;             /* the slowest digit the last step moved (NDIMS: the offer) */
} cursor;

static void cursor_init(cursor *c, const sweep_job *job, uint64_t idx)
{
	const sweep_space *sp = job->space;
	const sweep_list *dims[NDIMS] = {&sp->chips, &sp->zero, &sp->vpp, &sp->pp, &sp->mb, &sp->sp,
					 &sp->ep, &sp->cp, &sp->tp, &sp->recompute};
	for (int i = 0; i < NDIMS; i++) {
		c->dims[i] = dims[i];
		c->d[i] = (int)(idx % (uint64_t)dims[i]->n);
		idx /= (uint64_t)dims[i]->n;
	}
	c->offer = idx;
	c->changed = NDIMS;
}

static void cursor_next(cursor *c)
{
	for (int i = 0; i < NDIMS; i++) {
		if (++c->d[i] < c->dims[i]->n) {
			c->changed = i;
			return;
		}
		c->d[i] = 0;
	}
	c->offer++;
	c->changed = NDIMS;
}

/* What the layouts of one kernel share: the kernel is looked up once for them. */
typedef struct walk {
	const train_kernel *k;   /* NULL: not looked up since the slower digits moved */
} walk;

static void eval_one(worker *wk, const cursor *cu, uint64_t idx, walk *wa, train_result *tr)
{
	const sweep_job *job = wk->job;
	const sweep_space *sp = job->space;
	const int *d = cu->d;
	sweep_result *r = wk->res;
	const sweep_offer *of;
	wl_workload *w = wk->w;
	const nn_net *n;
	plan p;
	mem_use mem;
	int chips, tp, pp, cp, zero, rc, inner, maxc;

	of = &job->offers[cu->offer];
	chips = sp->chips.v[d[0]];
	zero = sp->zero.v[d[1]];
	rc = sp->recompute.v[d[9]];
	tp = sp->tp.v[d[8]];
	cp = sp->cp.v[d[7]];
	pp = sp->pp.v[d[3]];
	w->recompute = (wl_recompute)rc;
	w->zero = zero;
	n = &w->net;
	maxc = wk->max_chips[cu->offer];
	memset(&p, 0, sizeof p);
	p.tp = tp;
	p.pp = pp;
	p.vpp = sp->vpp.v[d[2]];
	p.cp = cp;
	p.ep = sp->ep.v[d[6]];
	p.sp = sp->sp.v[d[5]];
	p.micro_batch = sp->mb.v[d[4]];
	/* Prune what cannot divide, and duplicates (sp without tp, vpp without pp, ep on a dense
	 * network), before any arithmetic: a degree above chips cannot divide them, and below
	 * it the products stay within the ranges of lim.h. */
	if (tp > chips || pp > chips || cp > chips || (long long)tp * pp > chips ||
	    (long long)tp * pp * cp > chips) {
		r->pruned++;
		return;
	}
	inner = tp * pp * cp;
	if (chips % inner || (p.sp && tp == 1) || (p.vpp > 1 && pp == 1) || (p.ep > 1 && n->experts == 0) ||
	    n->heads % tp || pp > n->layers || w->seq_len % cp) {
		r->pruned++;
		return;
	}
	p.dp = chips / inner;
	p.chips = chips;
	if ((!wk->within_limits && plan_limits(&p, w->micro_batch, NULL, 0) != 0) ||
	    w->global_batch % (p.dp * p.micro_batch) ||
	    (p.dp * cp) % p.ep ||
	    (maxc > 0 && chips > maxc) ||
	    (p.vpp > 1 && (pp * p.vpp > n->layers || (w->global_batch / (p.dp * p.micro_batch)) % pp))) {
		r->pruned++;
		return;
	}
	if (!wa->k)
		wa->k = kernel(wk, of->sys, of->system, w, &p);
	if (w->mode != WL_TRAIN) {
		/* Not a sweep's workload (sweep.h), but the general composition answers it. */
		train_compose(of->sys, w, wa->k, &p, wk->memo, tr);
		if (!tr->feasible) {
			r->infeasible++;
			return;
		}
	} else {
		/* What survives the pruning divides the workload and fits the system (shard_rule)
		 * but for the experts that ep must divide; it fits the memory or is infeasible. */
		if ((p.ep > 1 && n->experts % p.ep != 0) || !train_fits(of->sys, w, wa->k, &p, &mem)) {
			r->infeasible++;
			return;
		}
		train_compose_fit(of->sys, w, wa->k, &p, wk->memo, &mem, tr);
	}
	r->evaluated++;
	{
		sweep_point pt;
		cost_train_in in;
		cost_result cr;
		memset(&in, 0, sizeof in);
		in.chips = chips;
		in.usd_per_chip_hour = of->usd_per_chip_hour;
		in.tokens = w->tokens;
		in.tokens_per_s = tr->tokens_per_s;
		in.failures = w->cost.failures;
		if (of->chip_mtbf > 0)
			in.failures.chip_mtbf = of->chip_mtbf;
		if (in.failures.checkpoint_bytes <= 0)
			in.failures.checkpoint_bytes = wk->checkpoint_bytes;
		in.terms = w->cost.terms;
		cost_train(&in, &cr);
		if (!cr.goodput.finishes)
			return;
		memset(&pt, 0, sizeof pt);
		pt.index = idx;
		pt.offer = (int)cu->offer;
		pt.plan = tr->plan;
		pt.zero = zero;
		pt.recompute = rc;
		pt.step_time = tr->step_time;
		pt.tokens_per_s = tr->tokens_per_s;
		pt.mfu = tr->mfu;
		pt.mem_gib = tr->mem.total / 1073741824.0;
		pt.run_time = cr.run_time;
		pt.goodput = cr.goodput.goodput;
		pt.usd_per_run = cr.usd_per_unit;
		pt.chip_hours = chips * cr.run_time / 3600;
		/* USD where there is a price; chip-hours when no offer has one; a system without a
		 * price among priced ones ranks after them (its cost is unknown, not zero). */
		pt.cost = isfinite(pt.usd_per_run) ? pt.usd_per_run : wk->any_price ? INFINITY : pt.chip_hours;
		top_insert(r, wk->job->top_k, &pt);
		front_insert(r, &pt);
	}
}

static long long list_max(const sweep_list *l)
{
	long long m = 1;
	for (int i = 0; i < l->n; i++)
		if (l->v[i] > m)
			m = l->v[i];
	return m;
}

/* 1 if every layout of the space is within the ranges of lim.h (plan_limits passes them all):
 * each degree at most its limit, and the products at most theirs, at the lists' largest values
 * (dp is at most the chips). Then the sweep does not check layout by layout. */
static int space_within_limits(const sweep_space *sp, int micro_batch)
{
	long long chips = list_max(&sp->chips), tp = list_max(&sp->tp), pp = list_max(&sp->pp);
	long long cp = list_max(&sp->cp), ep = list_max(&sp->ep), vpp = list_max(&sp->vpp);
	long long mb = list_max(&sp->mb);
	if (micro_batch > mb)
		mb = micro_batch;   /* a micro-batch of 0 stands for the workload's */
	return chips <= LIM_CHIPS && tp <= LIM_CHIPS && pp <= LIM_PP && cp <= LIM_CHIPS && ep <= LIM_CHIPS &&
	       vpp <= LIM_VPP && mb <= LIM_MICRO_BATCH && tp * cp * ep <= LIM_CHIPS && chips * mb <= LIM_BATCH;
}

static void *work(void *arg)
{
	worker *wk = arg;
	train_result *tr = malloc(sizeof *tr);
	uint64_t last = wk->lo;
	cursor cu;
	walk wa = {NULL};
	if (!tr) {
		wk->rc = -1;
		return NULL;
	}
	wk->res->total = wk->hi - wk->lo;
	if (wk->lo < wk->hi)
		cursor_init(&cu, wk->job, wk->lo);
	for (uint64_t i = wk->lo; i < wk->hi; i++) {
		if (cu.changed >= DIM_MB)
			wa.k = NULL;   /* micro-batch, sp, ep, cp, tp, recompute or offer moved */
		eval_one(wk, &cu, i, &wa, tr);
		cursor_next(&cu);
		if (i - last >= 65536) {
			atomic_fetch_add(wk->done, i - last);
			last = i;
			if (wk->first && wk->job->progress)
				wk->job->progress(wk->job->progress_ctx, atomic_load(wk->done),
						  sweep_size(wk->job->space, wk->job->noffers));
		}
	}
	atomic_fetch_add(wk->done, wk->hi - last);
	free(tr);
	return NULL;
}

void sweep_merge(sweep_result *a, const sweep_result *b, int top_k)
{
	a->total += b->total;
	a->pruned += b->pruned;
	a->infeasible += b->infeasible;
	a->evaluated += b->evaluated;
	a->front_truncated |= b->front_truncated;
	for (int i = 0; i < b->ntop; i++)
		top_insert(a, top_k, &b->top[i]);
	for (int i = 0; i < b->nfront; i++)
		front_insert(a, &b->front[i]);
}

sweep_ws *sweep_ws_new(void)
{
	return calloc(1, sizeof(sweep_ws));
}

void sweep_ws_free(sweep_ws *ws)
{
	if (!ws)
		return;
	for (int t = 0; t < ws->nthreads; t++) {
		free(ws->w[t]);
		free(ws->cache[t]);
		free(ws->memo[t]);
		free(ws->parts[t]);
	}
	free(ws->w);
	free(ws->cache);
	free(ws->memo);
	free(ws->parts);
	free(ws->max_chips);
	free(ws->result);
	free(ws);
}

sweep_result *sweep_ws_result(sweep_ws *ws)
{
	if (!ws->result)
		ws->result = malloc(sizeof *ws->result);
	return ws->result;
}

/* Room in ws for T threads and n offers. Returns 0 or -1 (out of memory). */
static int ws_reserve(sweep_ws *ws, int T, int n)
{
	if (n > ws->noffers) {
		int *m = realloc(ws->max_chips, (size_t)n * sizeof *m);
		if (!m)
			return -1;
		ws->max_chips = m;
		ws->noffers = n;
	}
	if (T > ws->nthreads) {
		wl_workload **w = realloc(ws->w, (size_t)T * sizeof *w);
		kslot **c = w ? realloc(ws->cache, (size_t)T * sizeof *c) : NULL;
		train_memo **m = c ? realloc(ws->memo, (size_t)T * sizeof *m) : NULL;
		sweep_result **p = m ? realloc(ws->parts, (size_t)T * sizeof *p) : NULL;
		if (w)
			ws->w = w;
		if (c)
			ws->cache = c;
		if (m)
			ws->memo = m;
		if (p)
			ws->parts = p;
		if (!p)
			return -1;
		for (; ws->nthreads < T; ws->nthreads++) {
			int t = ws->nthreads;
			ws->w[t] = malloc(sizeof **ws->w);
			ws->cache[t] = calloc(KCACHE, sizeof(kslot));
			ws->memo[t] = calloc(1, sizeof(train_memo));
			ws->parts[t] = t > 0 ? malloc(sizeof(sweep_result)) : NULL;
			if (!ws->w[t] || !ws->cache[t] || !ws->memo[t] || (t > 0 && !ws->parts[t])) {
				ws->nthreads++;
				return -1;
			}
		}
	}
	return 0;
}

/* An empty result: counts, lists and flags; the lists' entries are written as they fill. */
static void result_clear(sweep_result *r)
{
	r->total = r->pruned = r->infeasible = r->evaluated = 0;
	r->ntop = r->nfront = 0;
	r->front_truncated = 0;
}

int sweep_run(const sweep_job *job, sweep_result *out)
{
	uint64_t total = sweep_size(job->space, job->noffers), lo, hi;
	int T = job->threads < 1 ? 1 : job->threads;
	sweep_ws *own = job->ws ? NULL : sweep_ws_new(), *ws = job->ws ? job->ws : own;
	worker *wk = calloc((size_t)T, sizeof *wk);
	pthread_t *th = calloc((size_t)T, sizeof *th);
	_Atomic uint64_t done = 0;
	int rc = 0, started = 0, any_price = 0, within;
	double ckpt;

	result_clear(out);
	sweep_slice(total, job->shard, job->nshards, &lo, &hi);
	if (!ws || !wk || !th || ws_reserve(ws, T, job->noffers > 0 ? job->noffers : 1) != 0) {
		rc = -1;
		goto end;
	}
	/* One run: what the workspace's caches hold from another is stale. */
	if (++ws->gen == 0)
		ws->gen = 1;
	for (int o = 0; o < job->noffers; o++) {
		ws->max_chips[o] = hw_max_chips(job->offers[o].sys);
		if (isfinite(job->offers[o].usd_per_chip_hour))
			any_price = 1;
	}
	ckpt = 16 * nn_params(&job->w->net).total;
	within = space_within_limits(job->space, job->w->micro_batch);
	for (int t = 0; t < T; t++) {
		*ws->w[t] = *job->w;
		ws->memo[t]->gen = ws->gen;
		wk[t].job = job;
		wk[t].w = ws->w[t];
		wk[t].gen = ws->gen;
		wk[t].max_chips = ws->max_chips;
		wk[t].checkpoint_bytes = ckpt;
		wk[t].within_limits = within;
		wk[t].lo = lo + (hi - lo) * (uint64_t)t / (uint64_t)T;
		wk[t].hi = lo + (hi - lo) * (uint64_t)(t + 1) / (uint64_t)T;
		/* The first thread fills the result itself; merging into an empty result gives
		 * the same lists. */
		wk[t].res = t == 0 ? out : ws->parts[t];
		result_clear(wk[t].res);
		wk[t].cache = ws->cache[t];
		wk[t].memo = ws->memo[t];
		wk[t].done = &done;
		wk[t].first = t == 0;
		wk[t].any_price = any_price;
	}
	for (int t = 1; t < T; t++) {
		if (pthread_create(&th[t], NULL, work, &wk[t]) != 0) {
			rc = -1;
			break;
		}
		started = t;
	}
	if (rc == 0)
		work(&wk[0]);
	for (int t = 1; t <= started; t++)
		pthread_join(th[t], NULL);
	for (int t = 0; t < T && rc == 0; t++) {
		if (wk[t].rc)
			rc = -1;
		if (t > 0)
			sweep_merge(out, ws->parts[t], job->top_k);
	}
end:
	sweep_ws_free(own);
	free(wk);
	free(th);
	return rc;
}

/* The digits at *s as a number in [0, LIM_CHIPS], moving *s past them. Returns 0 or -1. */
static int list_number(const char **s, long *v)
{
	const char *p = *s;
	*v = 0;
	if (*p < '0' || *p > '9')
		return -1;
	for (; *p >= '0' && *p <= '9'; p++) {
		*v = *v * 10 + (*p - '0');
		if (*v > LIM_CHIPS)
			return -1;
	}
	*s = p;
	return 0;
}

int sweep_parse_list(const char *text, sweep_list *l)
{
	char buf[512], *save = NULL;
	l->n = 0;
	if (strlen(text) >= sizeof buf)
		return -1;
	memcpy(buf, text, strlen(text) + 1);
	for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		const char *p = tok;
		long a, b, step = 0;
		if (list_number(&p, &a) != 0)
			return -1;
		if (*p == '\0') {
			if (l->n == SWEEP_VALUES_MAX)
				return -1;
			l->v[l->n++] = (int)a;
			continue;
		}
		if (*p++ != '-' || list_number(&p, &b) != 0 || b < a)
			return -1;
		if (*p == ':') {
			p++;
			if (list_number(&p, &step) != 0 || step < 1)
				return -1;
		}
		if (*p)
			return -1;
		if (step == 0 && a < 1)
			return -1;
		for (long v = a; v <= b; v = step ? v + step : v * 2) {
			if (l->n == SWEEP_VALUES_MAX)
				return -1;
			l->v[l->n++] = (int)v;
		}
	}
	return l->n > 0 ? 0 : -1;
}
