/* report: the numbers behind each plot against hand derivations. */
#include <criterion/criterion.h>
#include <math.h>

#include "fixtures.h"
#include "report/report.h"

Test(report, loads_are_half_powers_of_two)
{
	/* round(2^(k/2)): 1, 1.41->1 (repeat), 2, 2.83->3, 4, 5.66->6, 8, 11.3->11, 16, 22.6->23,
	 * 32, 45.3->45, 64. */
	int want[] = {1, 2, 3, 4, 6, 8, 11, 16, 23, 32, 45, 64};
	int got[24];
	int n = report_loads(64, got, 24);
	cr_assert_eq(n, 12);
	for (int i = 0; i < n; i++)
		cr_assert_eq(got[i], want[i], "load %d: %d, want %d", i, got[i], want[i]);
	cr_assert_eq(report_loads(1024, got, 5), 5);
}

Test(report, load_point_is_the_single_scenario_at_that_concurrency)
{
	/* A load of 8 is the workload with 8 requests as one batch: tokens/s = 8 × 128 /
	 * (TTFT + 127 TPOT) (infer.h), per user 1/TPOT, per chip over the 2 chips. Cost per
	 * million tokens at $3 per chip-hour, utilization 1, nothing else: 2 × 3 / 3600 USD per
	 * second over tokens/s, times 1e6. */
	hw_system s = fx_round_system(8);
	wl_workload w = fx_infer(fx_gpt(4, 2048, 16, 32000), 512, 128, 1);
	plan p = {2, 1, 1, 1, 1, 1, 0, 0, 2};
	report_load pt;
	infer_result r;
	wl_workload w8;
	w.scenario = WL_SERVER;
	w.cost.unit = COST_MTOK;
	w.cost.terms.utilization = 1;
	report_load_point(&s, &w, &p, 8, 3.0, &pt);
	w8 = w;
	w8.scenario = WL_SINGLE;
	w8.concurrency = 8;
	infer_eval(&s, &w8, &p, &r, NULL, NULL);
	cr_assert(pt.feasible);
	cr_assert_eq(pt.load, 8);
	cr_assert_float_eq(pt.tpot, r.tpot, 1e-15);
	cr_assert_float_eq(pt.ttft, r.ttft, 1e-15);
	cr_assert_float_eq(pt.tokens_per_s, 8 * 128 / (pt.ttft + 127 * pt.tpot), 1e-9);
	cr_assert_float_eq(pt.per_user, 1 / pt.tpot, 1e-9);
	cr_assert_float_eq(pt.per_chip, pt.tokens_per_s / 2, 1e-9);
	cr_assert_float_eq(pt.usd_per_unit, 2 * 3.0 / 3600 / pt.tokens_per_s * 1e6, 1e-9 * pt.usd_per_unit);
	report_load_point(&s, &w, &p, 8, NAN, &pt);
	cr_assert(isnan(pt.usd_per_unit));
}

static report_load pt(double speed, double usd)
{
	report_load p;
	memset(&p, 0, sizeof p);
	p.feasible = 1;
	p.per_user = speed;
	p.usd_per_unit = usd;
	return p;
}

Test(report, cheapest_spans_by_required_speed)
{
	/* A: (10 tok/s, $1) (20, $2) (30, $5); B: (15, $1.5) (25, $2.5) (40, $8); an infeasible
	 * and an unpriced point of B change nothing. A requirement in (u_{j-1}, u_j] admits the
	 * points at least u_j fast: u=10 A $1; 15 B $1.5; 20 A $2 (B $2.5); 25 B $2.5 (A $5);
	 * 30 A $5 (B $8); 40 B $8. */
	report_load a[] = {pt(10, 1), pt(20, 2), pt(30, 5)};
	report_load b[] = {pt(15, 1.5), pt(25, 2.5), pt(40, 8), pt(50, 0.1), pt(60, NAN)};
	const report_load *curves[] = {a, b};
	int n[] = {3, 5};
	report_span sp[8];
	int want_sys[] = {0, 1, 0, 1, 0, 1};
	double want_lo[] = {0, 10, 15, 20, 25, 30}, want_hi[] = {10, 15, 20, 25, 30, 40};
	int ns;
	b[3].feasible = 0;
	ns = report_cheapest_spans(curves, n, 2, sp, 8);
	cr_assert_eq(ns, 6);
	for (int i = 0; i < ns; i++) {
		cr_assert_eq(sp[i].sys, want_sys[i], "span %d", i);
		cr_assert_float_eq(sp[i].lo, want_lo[i], 1e-12);
		cr_assert_float_eq(sp[i].hi, want_hi[i], 1e-12);
	}
	/* One system cheapest everywhere: a single span up to its fastest point. */
	n[1] = 0;
	ns = report_cheapest_spans(curves, n, 2, sp, 8);
	cr_assert_eq(ns, 1);
	cr_assert_eq(sp[0].sys, 0);
	cr_assert_float_eq(sp[0].hi, 30, 1e-12);
}

Test(report, serving_step_parts_add_up)
{
	/* Two stages; per stage ops 3.5 s (compute 2, memory 1, floors 0.5), runtime 0.25 s,
	 * communication 0.4 s; pipeline sends 0.2 s: step = 2·(3.5 + 0.4 + 0.25) + 0.2 = 8.5 s.
	 * Network 8.5 − 2·(3.5 + 0.25) = 1.0 s, split 0.3 : 0.1 between node and scale-out. */
	hw_system s = fx_round_system(8);
	infer_result r;
	double parts[REPORT_PARTS], want[] = {4, 2, 1, 0.75, 0, 0.25, 0.5}, sum = 0;
	memset(&r, 0, sizeof r);
	r.plan.pp = 2;
	r.step.ops.t_bound[ROOF_COMPUTE] = 2;
	r.step.ops.t_bound[ROOF_MEMORY] = 1;
	r.step.ops.t_bound[ROOF_OVERHEAD] = 0.5;
	r.step.ops.t = r.step.t_ops = 3.5;
	r.step.t_overhead = 0.25;
	r.step.t_comm = 0.4;
	r.step.comm_level[0] = 0.3;
	r.step.comm_level[1] = 0.1;
	r.step.t = 8.5;
	report_infer_parts(&s, &r, parts);
	for (int k = 0; k < REPORT_PARTS; k++) {
		cr_assert_float_eq(parts[k], want[k], 1e-12, "%s: %g, want %g", report_infer_parts_names[k], parts[k],
				   want[k]);
		sum += parts[k];
	}
	cr_assert_float_eq(sum, r.step.t, 1e-12);
}

Test(report, training_step_parts_add_up_and_failures_on_top)
{
	/* compute 10 s, exposed communication 2 s split 1 : 3 over node and domain, bubble 1 s,
	 * optimizer 0.5 s: step 13.5 s; at 80% goodput failures cost 13.5·(1/0.8 − 1) = 3.375 s. */
	hw_system s = fx_round_system(8);
	train_result r;
	double parts[REPORT_PARTS], want[] = {10, 0.5, 1.5, 0, 1, 0.5, 3.375}, sum = 0;
	s.nlevels = 3;
	s.levels[2] = s.levels[1];
	s.levels[1].kind = HW_LEVEL_DOMAIN;
	memset(&r, 0, sizeof r);
	r.t_compute = 10;
	r.t_comm_exposed = 2;
	r.comm.level[0] = 1;
	r.comm.level[1] = 3;
	r.t_bubble = 1;
	r.t_optimizer = 0.5;
	r.step_time = 13.5;
	report_train_parts(&s, &r, 0.8, parts);
	for (int k = 0; k < REPORT_PARTS; k++) {
		cr_assert_float_eq(parts[k], want[k], 1e-12, "%s", report_train_parts_names[k]);
		if (k < 6)
			sum += parts[k];
	}
	cr_assert_float_eq(sum, r.step_time, 1e-12);
	report_train_parts(&s, &r, 0, parts);
	cr_assert(isnan(parts[6]), "a run that never finishes has no failure share");
}

Test(report, memory_parts_are_the_total)
{
	/* mem.h: training total = weights + grads + optimizer + activations; serving total =
	 * weights + KV cache + workspace. */
	wl_workload w = fx_train(fx_gpt(8, 2048, 16, 32000), 2048, 8, 1);
	plan p = {2, 2, 1, 2, 1, 1, 0, 1, 8};
	mem_use m = mem_train(&w, &p), mi;
	double parts[REPORT_MEM_PARTS], sum = 0;
	report_mem_parts(&m, parts);
	for (int k = 0; k < REPORT_MEM_PARTS; k++)
		sum += parts[k];
	cr_assert_float_eq(sum, m.total, 1e-6 * m.total);
	w = fx_infer(fx_gpt(8, 2048, 16, 32000), 1024, 128, 16);
	mi = mem_infer(&w, &p, 16, 1152, 1024);
	report_mem_parts(&mi, parts);
	cr_assert_float_eq(parts[0] + parts[3] + parts[4], mi.total, 1e-6 * mi.total);
	cr_assert_float_eq(parts[1] + parts[2], 0, 1e-12);
}

Test(report, roofline_points_and_roof)
{
	/* Round chip: 100 TFLOP/s bf16, 1 TB/s, no overheads. A 4096³ GEMM: 2·4096³ = 1.374e11
	 * FLOP over 3·4096²·2 B = 1.007e8 B (intensity 1365.3) is compute-bound at the peak. A
	 * matrix-vector product 1×8192×8192: 1.342e8 FLOP over 1.343e8 B (intensity ≈ 1.0) is
	 * memory-bound at intensity × 1 TB/s. A copy without FLOPs has no place on a roofline. */
	hw_chip c = fx_round_chip();
	ops_list l;
	report_roof_op out[OPS_MAX];
	double g = 4096, k = 8192;
	int n;
	memset(&l, 0, sizeof l);
	l.n = 3;
	l.op[0].kind = l.op[1].kind = OPS_GEMM;
	l.op[0].m = l.op[0].n = l.op[0].k = g;
	l.op[0].batch = 1;
	l.op[0].flops = 2 * g * g * g;
	l.op[0].bytes = 3 * g * g * 2;
	l.op[1].m = 1;
	l.op[1].n = l.op[1].k = k;
	l.op[1].batch = 1;
	l.op[1].flops = 2 * k * k;
	l.op[1].bytes = (k * k + 2 * k) * 2;
	l.op[2].kind = OPS_ELEM;
	l.op[2].bytes = 1e9;
	for (int i = 0; i < 3; i++) {
		l.op[i].count = 1;
		l.op[i].prec = HW_BF16;
		l.op[i].name = (const char *[]){"op0", "op1", "op2"}[i];
	}
	n = report_roof_ops(&c, &l, out);
	cr_assert_eq(n, 2);
	cr_assert_float_eq(out[0].intensity, 4096.0 / 3, 1e-9);
	cr_assert_float_eq(out[0].achieved, 100e12, 1e3);
	cr_assert_eq(out[0].bound, ROOF_COMPUTE);
	cr_assert_float_eq(out[1].intensity, 2 * k * k / ((k * k + 2 * k) * 2), 1e-12);
	cr_assert_float_eq(out[1].achieved, out[1].intensity * 1e12, 1);
	cr_assert_eq(out[1].bound, ROOF_MEMORY);
	cr_assert_float_eq(report_roof(&c, HW_BF16, 0.5), 0.5e12, 1);
	cr_assert_float_eq(report_roof(&c, HW_BF16, 1000), 100e12, 1);
	/* fp8 is not on the round chip: it runs at the next wider, bf16. */
	cr_assert_float_eq(report_roof(&c, HW_FP8, 1e6), 100e12, 1);
}
