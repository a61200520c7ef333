/* sweep: thread- and shard-independence, and the Pareto front against brute force. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine/sweep.h"

static hw_system sys_p5, sys_trn2;
static wl_workload wl8;

static void setup(void)
{
	err e = {0};
	cr_assert_eq(hw_find_system("p5.48xlarge", "models", &sys_p5, &e), 0, "%s", e.msg);
	cr_assert_eq(hw_find_system("trn2.48xlarge", "models", &sys_trn2, &e), 0, "%s", e.msg);
	cr_assert_eq(wl_load("llama3-8b-train", "workloads", "models", NULL, 0, &wl8, &e), 0, "%s", e.msg);
}

static void space(sweep_space *sp)
{
	memset(sp, 0, sizeof *sp);
	cr_assert_eq(sweep_parse_list("16-128", &sp->chips), 0);
	cr_assert_eq(sweep_parse_list("1-8", &sp->tp), 0);
	cr_assert_eq(sweep_parse_list("1-4", &sp->pp), 0);
	cr_assert_eq(sweep_parse_list("1,2", &sp->vpp), 0);
	cr_assert_eq(sweep_parse_list("1", &sp->cp), 0);
	cr_assert_eq(sweep_parse_list("1", &sp->ep), 0);
	cr_assert_eq(sweep_parse_list("0,1", &sp->sp), 0);
	cr_assert_eq(sweep_parse_list("1,2", &sp->mb), 0);
	cr_assert_eq(sweep_parse_list("0-3:1", &sp->zero), 0);
	cr_assert_eq(sweep_parse_list("0-2:1", &sp->recompute), 0);
}

static sweep_result *run(const sweep_space *sp, const sweep_offer *of, int nof, int threads, int shard, int nshards)
{
	sweep_job job;
	sweep_result *r = malloc(sizeof *r);
	cr_assert(r);
	memset(&job, 0, sizeof job);
	job.space = sp;
	job.w = &wl8;
	job.offers = of;
	job.noffers = nof;
	job.top_k = 20;
	job.threads = threads;
	job.shard = shard;
	job.nshards = nshards;
	cr_assert_eq(sweep_run(&job, r), 0);
	return r;
}

static void same(const sweep_result *a, const sweep_result *b)
{
	cr_assert_eq(a->total, b->total);
	cr_assert_eq(a->pruned, b->pruned);
	cr_assert_eq(a->evaluated, b->evaluated);
	cr_assert_eq(a->ntop, b->ntop);
	cr_assert_eq(a->nfront, b->nfront);
	for (int i = 0; i < a->ntop; i++) {
		cr_assert_eq(a->top[i].index, b->top[i].index, "top %d", i);
		cr_assert_eq(a->top[i].cost, b->top[i].cost);
	}
	for (int i = 0; i < a->nfront; i++) {
		cr_assert_eq(a->front[i].index, b->front[i].index, "front %d", i);
		cr_assert_eq(a->front[i].run_time, b->front[i].run_time);
	}
}

Test(sweep, parse_lists)
{
	sweep_list l;
	cr_assert_eq(sweep_parse_list("1,2,4", &l), 0);
	cr_assert_eq(l.n, 3);
	cr_assert_eq(sweep_parse_list("8-64", &l), 0);
	cr_assert_eq(l.n, 4);   /* 8 16 32 64 */
	cr_assert_eq(l.v[3], 64);
	cr_assert_eq(sweep_parse_list("0-3:1", &l), 0);
	cr_assert_eq(l.n, 4);
	cr_assert_neq(sweep_parse_list("4-2", &l), 0);
	cr_assert_neq(sweep_parse_list("x", &l), 0);
	cr_assert_neq(sweep_parse_list("", &l), 0);
}

Test(sweep, one_or_two_threads_agree, .init = setup)
{
	sweep_space sp;
	sweep_offer of[2] = {{&sys_p5, 0, 0, 6.88, 0}, {&sys_trn2, 1, 0, 5.37, 0}};
	sweep_result *a, *b;
	space(&sp);
	a = run(&sp, of, 2, 1, 0, 1);
	b = run(&sp, of, 2, 2, 0, 1);
	cr_assert_gt(a->evaluated, 100);
	same(a, b);
	free(a);
	free(b);
}

Test(sweep, shards_merge_to_the_whole, .init = setup)
{
	sweep_space sp;
	sweep_offer of[2] = {{&sys_p5, 0, 0, 6.88, 0}, {&sys_trn2, 1, 0, NAN, 0}};
	sweep_result *whole, *acc = calloc(1, sizeof *acc);
	space(&sp);
	whole = run(&sp, of, 2, 1, 0, 1);
	for (int s = 0; s < 3; s++) {
		sweep_result *part = run(&sp, of, 2, 2, s, 3);
		sweep_merge(acc, part, 20);
		free(part);
	}
	same(whole, acc);
	free(whole);
	free(acc);
}

Test(sweep, front_matches_brute_force, .init = setup)
{
	/* Every layout evaluated the slow way (train_eval + cost_train); the non-dominated set
	 * (cost, run time) must be the sweep's front, point for point. */
	sweep_space sp;
	sweep_offer of[1] = {{&sys_p5, 0, 0, 6.88, 0}};
	sweep_result *r;
	uint64_t total;
	double *cost, *time;
	int *ok, nfront = 0;
	space(&sp);
	sweep_parse_list("16,32", &sp.chips);
	r = run(&sp, of, 1, 2, 0, 1);
	total = sweep_size(&sp, 1);
	cost = calloc(total, sizeof *cost);
	time = calloc(total, sizeof *time);
	ok = calloc(total, sizeof *ok);
	for (uint64_t i = 0; i < total; i++) {
		uint64_t x = i;
		int chips = sp.chips.v[x % (uint64_t)sp.chips.n];
		int zero, vpp, pp, mb, spl, ep, cp, tp, rc;
		wl_workload w = wl8;
		plan p;
		train_result tr;
		cost_train_in in;
		cost_result cr;
		x /= (uint64_t)sp.chips.n;
		zero = sp.zero.v[x % (uint64_t)sp.zero.n]; x /= (uint64_t)sp.zero.n;
		vpp = sp.vpp.v[x % (uint64_t)sp.vpp.n]; x /= (uint64_t)sp.vpp.n;
		pp = sp.pp.v[x % (uint64_t)sp.pp.n]; x /= (uint64_t)sp.pp.n;
		mb = sp.mb.v[x % (uint64_t)sp.mb.n]; x /= (uint64_t)sp.mb.n;
		spl = sp.sp.v[x % (uint64_t)sp.sp.n]; x /= (uint64_t)sp.sp.n;
		ep = sp.ep.v[x % (uint64_t)sp.ep.n]; x /= (uint64_t)sp.ep.n;
		cp = sp.cp.v[x % (uint64_t)sp.cp.n]; x /= (uint64_t)sp.cp.n;
		tp = sp.tp.v[x % (uint64_t)sp.tp.n]; x /= (uint64_t)sp.tp.n;
		rc = sp.recompute.v[x % (uint64_t)sp.recompute.n];
		if (chips % (tp * pp * cp) || (spl && tp == 1) || (vpp > 1 && pp == 1))
			continue;
		w.zero = zero;
		w.recompute = (wl_recompute)rc;
		memset(&p, 0, sizeof p);
		p.tp = tp; p.pp = pp; p.vpp = vpp; p.cp = cp; p.ep = ep; p.sp = spl; p.micro_batch = mb;
		p.dp = chips / (tp * pp * cp);
		p.chips = chips;
		train_eval(&sys_p5, &w, &p, &tr, NULL);
		if (!tr.feasible)
			continue;
		memset(&in, 0, sizeof in);
		in.chips = chips;
		in.usd_per_chip_hour = 6.88;
		in.tokens = w.tokens;
		in.tokens_per_s = tr.tokens_per_s;
		in.failures = w.cost.failures;
		in.failures.checkpoint_bytes = 16 * nn_params(&w.net).total;
		in.terms = w.cost.terms;
		cost_train(&in, &cr);
		ok[i] = 1;
		cost[i] = cr.usd_per_unit;
		time[i] = cr.run_time;
	}
	for (uint64_t i = 0; i < total; i++) {
		int dominated = 0;
		if (!ok[i])
			continue;
		for (uint64_t j = 0; j < total && !dominated; j++) {
			if (!ok[j] || j == i)
				continue;
			dominated = cost[j] <= cost[i] && time[j] <= time[i] &&
				    (cost[j] < cost[i] || time[j] < time[i] || j < i);
		}
		if (!dominated) {
			int found = 0;
			for (int k = 0; k < r->nfront; k++)
				if (r->front[k].index == i) {
					found = 1;
					cr_assert_float_eq(r->front[k].usd_per_run, cost[i], cost[i] * 1e-9);
				}
			cr_assert(found, "layout %llu is on the brute-force front, not the sweep's",
				  (unsigned long long)i);
			nfront++;
		}
	}
	cr_assert_eq(nfront, r->nfront);
	cr_assert_gt(nfront, 1);
	free(cost);
	free(time);
	free(ok);
	free(r);
}
