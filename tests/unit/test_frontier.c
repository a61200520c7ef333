/* frontier: the layouts a serving search tries, the load points of one layout, and the Pareto
 * marking, against hand-made points and properties the search must keep. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine/frontier.h"

static frontier_point pt(double per_user, double per_chip, double usd, int layout)
{
	frontier_point f;
	memset(&f, 0, sizeof f);
	f.per_user = per_user;
	f.per_chip = per_chip;
	f.usd_per_unit = usd;
	f.layout = layout;
	return f;
}

/* By hand, fastest per user first: (100, 10) is the fastest; (60, 20) beats it per chip; (50, 30)
 * beats both and (50, 25) is beaten by it at the same speed; (30, 28) is beaten by (50, 30);
 * (20, 35) and (10, 40) each beat every faster point. Frontier: 100, 60, 50/30, 20, 10. Costs
 * 1 / per_chip give the same front, but the point without a price is on neither cost front. */
Test(frontier, marks_the_pareto_points)
{
	frontier_point p[] = {pt(50, 25, 1 / 25.0, 0), pt(10, 40, 1 / 40.0, 1), pt(100, 10, 1 / 10.0, 2),
			      pt(30, 28, 1 / 28.0, 3), pt(60, 20, NAN, 4), pt(20, 35, 1 / 35.0, 5),
			      pt(50, 30, 1 / 30.0, 6)};
	int want_front[] = {1, 1, 1, 0, 0, 1, 1}; /* after sorting: 100, 60, 50/30, 50/25, 30, 20, 10 */
	int want_cost[] = {1, 0, 1, 0, 0, 1, 1};
	frontier_mark(p, 7);
	for (int i = 0; i < 7; i++) {
		cr_assert(i == 0 || p[i].per_user <= p[i - 1].per_user, "sorted fastest first");
		cr_assert_eq(p[i].front, want_front[i], "point %d (%g, %g)", i, p[i].per_user, p[i].per_chip);
		cr_assert_eq(p[i].cost_front, want_cost[i], "cost point %d (%g, %g)", i, p[i].per_user, p[i].per_chip);
	}
}

static int has(const plan *l, int n, int tp, int pp, int dp, int ep)
{
	for (int i = 0; i < n; i++)
		if (l[i].tp == tp && l[i].pp == pp && l[i].dp == dp && l[i].ep == ep)
			return 1;
	return 0;
}

/* An 8-GPU node asked for 8 chips: every tp from 1 to 8 with the replicas that fill the node
 * (MLPerf llama2-70b on H200: tp=1 x 8), pipelines within it, and none beyond the NVLink domain. */
Test(frontier, layouts_fill_the_chips_with_replicas)
{
	hw_system s;
	wl_workload w;
	err e = {0};
	plan l[FRONTIER_LAYOUTS_MAX];
	frontier_space sp = {8, 1, 0};
	int n;
	cr_assert_eq(hw_find_system("hgx-h200", "models", &s, &e), 0, "%s", e.msg);
	cr_assert_eq(wl_load("llama2-70b-serve", "workloads", "models", NULL, 0, &w, &e), 0, "%s", e.msg);
	n = frontier_layouts(&s, &w, &sp, l, FRONTIER_LAYOUTS_MAX);
	cr_assert(has(l, n, 1, 1, 8, 1) && has(l, n, 2, 1, 4, 1) && has(l, n, 4, 1, 2, 1) && has(l, n, 8, 1, 1, 1));
	cr_assert(has(l, n, 1, 2, 4, 1) && has(l, n, 4, 2, 1, 1));
	for (int i = 0; i < n; i++) {
		cr_assert(l[i].tp <= 8, "tp %d beyond the node", l[i].tp);
		cr_assert_eq(l[i].chips, l[i].tp * l[i].pp * l[i].dp);
		cr_assert(l[i].chips == 8 || (l[i].dp == 1 && l[i].chips > 8), "replicas fill 8 chips");
		cr_assert_eq(l[i].ep, 1, "a dense network has no expert parallelism");
	}
	/* A replica bound (--chips MIN-MAX) keeps only replicas of that size. */
	sp.rmin = sp.rmax = 2;
	n = frontier_layouts(&s, &w, &sp, l, FRONTIER_LAYOUTS_MAX);
	cr_assert(n >= 2);
	for (int i = 0; i < n; i++)
		cr_assert_eq(l[i].chips / l[i].dp * l[i].ep, 2);
}

/* MoE: attention data parallel (experts over the replicas, ep = dp within the domain) only where
 * the framework offers it. */
Test(frontier, attention_dp_where_the_framework_offers_it)
{
	hw_system s;
	wl_workload w;
	err e = {0};
	plan l[FRONTIER_LAYOUTS_MAX];
	frontier_space sp = {8, 1, 0};
	int n, with_ep = 0;
	cr_assert_eq(hw_find_system("hgx-h200", "models", &s, &e), 0, "%s", e.msg);
	cr_assert_eq(wl_load("mixtral-8x7b-serve", "workloads", "models", NULL, 0, &w, &e), 0, "%s", e.msg);
	w.fw.serve.attention_dp = 0;
	n = frontier_layouts(&s, &w, &sp, l, FRONTIER_LAYOUTS_MAX);
	for (int i = 0; i < n; i++)
		cr_assert_eq(l[i].ep, 1);
	w.fw.serve.attention_dp = 1;
	n = frontier_layouts(&s, &w, &sp, l, FRONTIER_LAYOUTS_MAX);
	for (int i = 0; i < n; i++)
		if (l[i].ep > 1) {
			with_ep++;
			cr_assert_eq(l[i].dp % l[i].ep, 0);
			cr_assert(l[i].tp * l[i].ep <= 8, "an attention-DP group stays within the NVLink domain");
			cr_assert_eq(w.net.experts % l[i].ep, 0);
		}
	cr_assert(has(l, n, 1, 1, 8, 8) && has(l, n, 2, 1, 4, 4), "%d layouts", n);
	cr_assert(with_ep >= 4);
}

/* One layout's curve in the open loop: more load, more tokens/s per chip and fewer per user; the
 * chosen point comes last, meets the limits, and no grid point that meets them carries more load
 * (it is the highest load that does, to the bisection's tolerance). */
Test(frontier, a_layout_curve_and_its_chosen_point)
{
	hw_system s;
	wl_workload w;
	err e = {0};
	plan p = {8, 1, 1, 1, 1, 1, 0, 0, 8};
	infer_result *r = malloc(sizeof *r);
	frontier_point f[FRONTIER_LOADS_MAX + 1];
	int n;
	cr_assert_eq(hw_find_system("dgx-h100", "models", &s, &e), 0, "%s", e.msg);
	cr_assert_eq(wl_load("llama3-70b-serve", "workloads", "models", NULL, 0, &w, &e), 0, "%s", e.msg);
	n = frontier_sweep(&s, &w, &p, 3, r, f, FRONTIER_LOADS_MAX + 1);
	cr_assert(n > 10, "%d points", n);
	cr_assert(f[n - 1].chosen && f[n - 1].slo_met);
	cr_assert_float_eq(f[n - 1].per_chip, r->tokens_per_s_per_chip, 1e-9);
	cr_assert(f[0].running < 2, "the curve starts near one request running (%g)", f[0].running);
	for (int i = 0; i < n - 1; i++) {
		cr_assert_eq(f[i].layout, 3);
		cr_assert(!f[i].chosen);
		if (i > 0) {
			cr_assert(f[i].per_chip > f[i - 1].per_chip);
			cr_assert(f[i].per_user < f[i - 1].per_user);
		}
		if (f[i].slo_met)
			cr_assert(f[i].load <= f[n - 1].load * (1 + 2e-3), "%g > %g", f[i].load, f[n - 1].load);
	}
	free(r);
}

/* A layout that cannot hold the weights has no points. */
Test(frontier, a_layout_that_does_not_fit_has_no_points)
{
	hw_system s;
	wl_workload w;
	err e = {0};
	plan p = {1, 1, 1, 1, 1, 1, 0, 0, 1};
	infer_result *r = malloc(sizeof *r);
	frontier_point f[FRONTIER_LOADS_MAX + 1];
	cr_assert_eq(hw_find_system("dgx-h100", "models", &s, &e), 0, "%s", e.msg);
	cr_assert_eq(wl_load("llama3-70b-serve", "workloads", "models", NULL, 0, &w, &e), 0, "%s", e.msg);
	cr_assert_eq(frontier_sweep(&s, &w, &p, 0, r, f, FRONTIER_LOADS_MAX + 1), 0);
	cr_assert(!r->feasible);
	free(r);
}
