/* infer: serving iterations, the server's batch, closed and open loops, against hand
 * derivations and the identities the model rests on. */
#include <criterion/criterion.h>
#include <math.h>

#include "fixtures.h"
#include "engine/infer.h"

Test(infer, llama3_70b_decode_on_trn2_is_weight_bandwidth_bound)
{
	/* Llama-3-70B in bf16 is 141 GB; over 16 Trainium2 at 2.9 TB/s that is 3.04 ms per
	 * token at peak bandwidth. At batch 1 the decode ops are memory-bound: at least that and,
	 * with the achievable fraction and per-kernel costs, well under twice it. On top come 2
	 * all-reduces per layer: 160 calls at the measured 58 us Neuron floor = 9.28 ms (the
	 * torus has no peer-to-peer kernel, so the library's floor holds). One request alone is a
	 * closed loop of one: its TPOT is the decode iteration. */
	hw_system s;
	wl_workload w;
	err e = {0};
	const char *sets[] = {"concurrency=1", "scenario=single"};
	plan p = {16, 1, 1, 1, 1, 1, 0, 0, 16};
	infer_result r;
	double floor_s = 2 * 70.55e9 / (16 * 2.9e12);
	cr_assert_eq(hw_find_system("trn2.48xlarge", "models", &s, &e), 0, "%s", e.msg);
	cr_assert_eq(wl_load("llama3-70b-serve", "workloads", "models", sets, 2, &w, &e), 0, "%s", e.msg);
	infer_eval(&s, &w, &p, &r, NULL, NULL);
	cr_assert(r.feasible, "%s", r.reason);
	cr_assert_eq(r.decode_bound, ROOF_MEMORY);
	cr_assert_geq(r.step.t_ops, floor_s);
	cr_assert_leq(r.step.t_ops, 2 * floor_s, "ops %g vs floor %g", r.step.t_ops, floor_s);
	cr_assert_float_eq(r.step.t_comm, 160 * 58e-6, 1e-9);
	cr_assert_float_eq(r.tpot, r.step.t_ops + r.step.t_comm + r.step.t_overhead + r.step.t_host, 1e-12);
	cr_assert_eq(r.comm_priced, 1);
}

Test(infer, prefill_is_compute_bound_2N_per_token)
{
	/* A 2048-token prompt costs about 2·N·2048 FLOP plus attention; on the round chip
	 * (100 TFLOP/s, efficiency 1) the TTFT is at least that over the peak. */
	hw_system s = fx_round_system(8);
	nn_net n = fx_gpt(8, 4096, 32, 32000);
	wl_workload w = fx_infer(n, 2048, 16, 1);
	plan p = {1, 1, 1, 1, 1, 1, 0, 0, 1};
	infer_result r;
	double N = 8 * 12.0 * 4096 * 4096;
	double ideal = 2 * N * 2048 / 100e12;
	infer_eval(&s, &w, &p, &r, NULL, NULL);
	cr_assert_eq(r.prefill_bound, ROOF_COMPUTE);
	cr_assert_geq(r.ttft, ideal);
	cr_assert_leq(r.ttft, 1.3 * ideal);
}

Test(infer, a_synchronized_loop_is_a_static_batch)
{
	/* 8 queued requests (offline) over 2 replicas: 4 per replica, whose 4 x 512 = 2048 prompt
	 * tokens fit one iteration's 8192, so the scheduler takes them together and the batch stays
	 * synchronized: they prefill together (TTFT = that iteration) and decode together (TPOT =
	 * the decode iteration at 4), and tokens/s = replicas × 4 × 128 / (TTFT + 127 TPOT). */
	hw_system s = fx_round_system(8);
	nn_net n = fx_gpt(4, 2048, 16, 32000);
	wl_workload w = fx_infer(n, 512, 128, 8);
	plan p = {1, 1, 1, 2, 1, 1, 0, 0, 2};
	infer_result r;
	infer_step pre, dec;
	w.scenario = WL_OFFLINE;
	infer_eval(&s, &w, &p, &r, NULL, NULL);
	infer_step_eval(&s, &w, &p, 0, 0, 4 * 512, &pre);
	infer_step_eval(&s, &w, &p, 4, 512 + 64, 0, &dec);
	cr_assert(r.feasible, "%s", r.reason);
	cr_assert(r.at.synchronized);
	cr_assert_float_eq(r.ttft, pre.t, 1e-12);
	cr_assert_float_eq(r.tpot, dec.t, 1e-12);
	cr_assert_float_eq(r.tokens_per_s, 2 * 4 * 128 / (r.ttft + 127 * r.tpot), 1e-6);
	cr_assert_float_eq(r.ttft_tail, r.ttft, 1e-12); /* nothing random in a static batch */
}

Test(infer, beyond_the_kv_cache_requests_wait)
{
	/* Round chip, 100 GB. KV: 2 × 4096 × 32 layers × 2 B = 0.5 MiB per token; a request
	 * reserves its 4096 + 4096 tokens at admission: 8192 × 524288 = 4 GiB. What the weights
	 * and workspace leave holds cap = pool / 4 GiB ≈ 20 requests; of 256 in flight the rest
	 * wait their turn: (256 - cap) completions at X per second. The layout stays feasible. */
	hw_system s = fx_round_system(8);
	nn_net n = fx_gpt(32, 4096, 32, 32000);
	wl_workload w = fx_infer(n, 4096, 4096, 256);
	plan p = {1, 1, 1, 1, 1, 1, 0, 0, 1};
	infer_result r;
	infer_eval(&s, &w, &p, &r, NULL, NULL);
	cr_assert(r.feasible, "%s", r.reason);
	cr_assert_float_eq(r.kv_per_request, 8192.0 * 524288, 1);
	cr_assert_float_eq(r.cap, r.kv_pool / r.kv_per_request, 1e-9);
	cr_assert(r.cap > 15 && r.cap < 25, "cap %g", r.cap);
	cr_assert_float_eq(r.at.running, r.cap, 1e-9);
	cr_assert_float_eq(r.at.waiting, 256 - r.cap, 1e-9);
	cr_assert_float_eq(r.at.wait, (256 - r.cap) / r.requests_per_s, 1e-9);
	cr_assert(r.at.saturated);
	cr_assert_geq(r.ttft, r.at.wait);
}

Test(infer, infeasible_only_when_one_request_does_not_fit)
{
	/* 200,000 prompt tokens at 0.5 MiB: 98 GiB, more than the ~86 GB the weights leave. */
	hw_system s = fx_round_system(8);
	nn_net n = fx_gpt(32, 4096, 32, 32000);
	wl_workload w = fx_infer(n, 200000, 1, 1);
	plan p = {1, 1, 1, 1, 1, 1, 0, 0, 1};
	infer_result r;
	infer_eval(&s, &w, &p, &r, NULL, NULL);
	cr_assert_not(r.feasible);
	cr_assert(strstr(r.reason, "one request's KV cache") != NULL, "%s", r.reason);
}

Test(infer, a_closed_loop_obeys_little)
{
	/* 8 requests of 4096-token prompts: 8 × 4096 > 8192, so phases spread. In the steady state
	 * N = X · (TTFT + (output_len - 1) · TPOT) (Little, the loop has no think time); a mixed
	 * iteration schedule gives TPOT = f·t_prefill + (1 - f)·t_decode, f the share of
	 * iterations that carry prompts. */
	hw_system s = fx_round_system(8);
	nn_net n = fx_gpt(8, 4096, 32, 32000);
	wl_workload w = fx_infer(n, 4096, 256, 8);
	plan p = {1, 1, 1, 1, 1, 1, 0, 0, 1};
	infer_result r;
	double f;
	infer_eval(&s, &w, &p, &r, NULL, NULL);
	cr_assert(r.feasible, "%s", r.reason);
	cr_assert_not(r.at.synchronized);
	cr_assert_float_eq(8.0, r.requests_per_s * (r.ttft + 255 * r.tpot), 1e-3);
	f = r.at.prefill_share;
	cr_assert(f > 0 && f < 1);
	cr_assert_float_eq(r.tpot, f * r.at.iter_prefill + (1 - f) * r.at.iter_decode, 1e-9);
}

Test(infer, prefill_first_stalls_the_decodes)
{
	/* Prompts in their own iterations, one a pass (so phases spread): a decoding request waits
	 * through them, TPOT = t_decode + t_prefill · f / (1 - f) (prefill iterations per decode
	 * iteration). */
	hw_system s = fx_round_system(8);
	nn_net n = fx_gpt(8, 4096, 32, 32000);
	wl_workload w = fx_infer(n, 4096, 256, 8);
	plan p = {1, 1, 1, 1, 1, 1, 0, 0, 1};
	infer_result r;
	double f;
	w.scheduler = w.fw.serve.scheduler = FW_SCHED_PREFILL_FIRST;
	w.fw.serve.max_prefill_seqs = 1;
	infer_eval(&s, &w, &p, &r, NULL, NULL);
	f = r.at.prefill_share;
	cr_assert(f > 0 && f < 1);
	cr_assert_float_eq(r.tpot, r.at.iter_decode + r.at.iter_prefill * f / (1 - f), 1e-9);
	cr_assert_float_eq(8.0, r.requests_per_s * (r.ttft + 255 * r.tpot), 1e-3);
}

Test(infer, a_loop_that_takes_prompts_in_passes_locks_in_groups)
{
	/* 16 queued requests (offline: the scheduler admits them, so those that finish together
	 * are replaced together) of 1024-token prompts, 8192 tokens a pass: 16 x 1024 does not fit one pass,
	 * a pass beside the other groups' decodes takes floor((8192 - 10.7) / 1024) = 7 prompts, so
	 * the loop locks in G = ceil(16 / 7) = 3 groups of 5.3. A request's 255 decode iterations
	 * run through the 2 other groups' passes: TPOT = t_d + 2 (t_p - t_d) / 255; it waits for
	 * the iteration under way (no overlap scheduler) and its own pass: TTFT = t_d + t_p. */
	hw_system s = fx_round_system(8);
	nn_net n = fx_gpt(8, 4096, 32, 32000);
	wl_workload w = fx_infer(n, 1024, 256, 16);
	plan p = {1, 1, 1, 1, 1, 1, 0, 0, 1};
	infer_result r;
	w.scenario = WL_OFFLINE;
	infer_eval(&s, &w, &p, &r, NULL, NULL);
	cr_assert(r.feasible, "%s", r.reason);
	cr_assert(r.at.synchronized);
	cr_assert_float_eq(r.at.groups, 3, 1e-12);
	cr_assert_float_eq(r.at.prompts_per_iter, 16.0 / 3, 1e-9);
	cr_assert_float_eq(r.tpot, r.at.iter_decode + 2 * (r.at.iter_prefill - r.at.iter_decode) / 255, 1e-12);
	cr_assert_float_eq(r.ttft, r.at.iter_decode + r.at.iter_prefill, 1e-12);
	cr_assert_float_eq(16.0, r.requests_per_s * (r.ttft + 255 * r.tpot), 1e-9);
}

Test(infer, percentiles_are_ordered)
{
	hw_system s;
	wl_workload w;
	err e = {0};
	plan p = {2, 1, 1, 1, 1, 1, 0, 0, 2};
	infer_result r;
	cr_assert_eq(hw_find_system("dgx-h100", "models", &s, &e), 0, "%s", e.msg);
	cr_assert_eq(wl_load("llama3-70b-fp8-tp2", "workloads", "models", NULL, 0, &w, &e), 0, "%s", e.msg);
	infer_eval(&s, &w, &p, &r, NULL, NULL);
	cr_assert(r.feasible, "%s", r.reason);
	cr_assert_leq(r.at.ttft.p50, r.at.ttft.p90);
	cr_assert_leq(r.at.ttft.p90, r.at.ttft.p99);
	cr_assert_leq(r.at.tpot.p50, r.at.tpot.p90);
	cr_assert_leq(r.at.tpot.p90, r.at.tpot.p99);
	cr_assert_gt(r.at.tpot.p99, r.at.tpot.mean); /* other requests' prompts share iterations */
	cr_assert_float_eq(r.ttft_tail, r.at.ttft.p99, 1e-12); /* slo_percentile 99 */
}

Test(infer, the_load_curve_fills_then_flattens)
{
	/* Llama 70B fp8 TP2 on H100, 5000 / 500 tokens: the closed loop's throughput rises with
	 * load and stops at the batch the KV cache holds; beyond it each extra request adds one
	 * completion gap, 1 / X, to TTFT. */
	hw_system s;
	wl_workload w;
	err e = {0};
	plan p = {2, 1, 1, 1, 1, 1, 0, 0, 2};
	double loads[250];
	infer_load o[250];
	char why[INFER_REASON_MAX];
	int first = -1;
	for (int i = 0; i < 250; i++)
		loads[i] = i + 1;
	cr_assert_eq(hw_find_system("dgx-h100", "models", &s, &e), 0, "%s", e.msg);
	cr_assert_eq(wl_load("llama3-70b-fp8-tp2", "workloads", "models", NULL, 0, &w, &e), 0, "%s", e.msg);
	cr_assert_eq(infer_curve(&s, &w, &p, loads, 250, o, why, sizeof why), 1, "%s", why);
	for (int i = 1; i < 250; i++) {
		cr_assert_geq(o[i].tokens_per_s, o[i - 1].tokens_per_s * (1 - 1e-9), "load %d", i + 1);
		cr_assert_geq(o[i].ttft.mean, o[i - 1].ttft.mean * (1 - 1e-9), "load %d", i + 1);
		if (o[i].saturated && first < 0)
			first = i;
	}
	cr_assert(first > 50 && first < 150, "saturates at %d", first + 1);
	cr_assert_float_eq(o[249].tokens_per_s, o[first].tokens_per_s, 1e-9 * o[first].tokens_per_s);
	cr_assert_float_eq(o[249].ttft.mean - o[248].ttft.mean, 1 / o[249].requests_per_s, 1e-9);
}

/* llama3-70b-serve on dgx-h100 at TP 8 with the overrides `set`, into r (w: the workload). */
static void serve_h100(const char *const *set, int n, wl_workload *w, infer_result *r)
{
	hw_system s;
	err e = {0};
	plan p = {8, 1, 1, 1, 1, 1, 0, 0, 8};
	cr_assert_eq(hw_find_system("dgx-h100", "models", &s, &e), 0, "%s", e.msg);
	cr_assert_eq(wl_load("llama3-70b-serve", "workloads", "models", set, n, w, &e), 0, "%s", e.msg);
	infer_eval(&s, w, &p, r, NULL, NULL);
	cr_assert(r->feasible, "%s", r->reason);
}

Test(infer, the_slo_search_is_monotone_in_the_limit)
{
	/* A tighter TPOT limit admits no more load; the answer meets its limits. */
	wl_workload w;
	infer_result a, b;
	const char *loose[] = {"concurrency=4096", "tpot_slo=60ms"};
	const char *tight[] = {"concurrency=4096", "tpot_slo=40ms"};
	serve_h100(loose, 2, &w, &a);
	serve_h100(tight, 2, &w, &b);
	cr_assert_leq(a.tpot_tail, 0.060);
	cr_assert_leq(a.ttft_tail, 2.0);
	cr_assert_leq(b.tpot_tail, 0.040);
	cr_assert_leq(b.tokens_per_s, a.tokens_per_s);
}

Test(infer, a_pipeline_keeps_a_micro_batch_per_stage)
{
	/* pp 2 with the framework's default of pp micro-batches: every sequence advances one
	 * token per 2 stage times, each stage running half the batch: t = 2 · stage(b / 2) plus
	 * one send; a single micro-batch (pp_microbatches 1) waits through both stages with the
	 * whole batch: t = 2 · stage(b) plus the send. */
	hw_system s = fx_round_system(8);
	nn_net n = fx_gpt(8, 4096, 32, 32000);
	wl_workload w = fx_infer(n, 512, 128, 64);
	plan p = {1, 2, 1, 1, 1, 1, 0, 0, 2};
	infer_step two, one;
	double st2, st1;
	infer_step_eval(&s, &w, &p, 64, 576, 0, &two);
	w.fw.serve.pp_microbatches = 1;
	infer_step_eval(&s, &w, &p, 64, 576, 0, &one);
	st2 = two.t_ops + two.t_comm + two.t_overhead;
	st1 = one.t_ops + one.t_comm + one.t_overhead;
	cr_assert_lt(st2, st1);   /* half the batch per stage */
	cr_assert(two.t > 2 * st2 && two.t < 2 * st2 + 50e-6, "%g vs %g", two.t, 2 * st2);
	cr_assert(one.t > 2 * st1 && one.t < 2 * st1 + 50e-6, "%g vs %g", one.t, 2 * st1);
}

Test(infer, host_work_hides_behind_an_overlapped_step)
{
	/* 2 ms of host work per iteration: added after the device step without overlap; with
	 * it, the iteration is the longer of the two. */
	hw_system s = fx_round_system(8);
	nn_net n = fx_gpt(4, 2048, 16, 32000);
	wl_workload w = fx_infer(n, 512, 128, 1);
	plan p = {1, 1, 1, 1, 1, 1, 0, 0, 1};
	infer_step a, b;
	w.iter_overhead = 2e-3;
	infer_step_eval(&s, &w, &p, 1, 576, 0, &a);
	w.fw.serve.overlap = 1;
	infer_step_eval(&s, &w, &p, 1, 576, 0, &b);
	cr_assert_float_eq(a.t_host, 2e-3, 1e-15);
	cr_assert_float_eq(b.t, fmax(2e-3, a.t - 2e-3), 1e-12);
}

Test(infer, one_decode_iteration_is_a_plain_normal)
{
	/* M = 1: every request decodes once, so the spread is one normal. Prefill share alone,
	 * a = (20 ms)²: p99 = 20 ms · z(0.99) = 20 · 2.326348 = 46.527 ms. Running batch alone,
	 * b = (10 ms)², a window of one mean life (x = 1) keeps 2(1 - 1 + e^-1) = 0.735759 of the
	 * variance: p99 = 10 ms · √0.735759 · 2.326348 = 19.955 ms. Below the median the spread
	 * mirrors: p1 = -p99. */
	cr_assert_float_eq(infer_tpot_spread(1, 4e-4, 0, 0.99), 0.046527, 1e-6);
	cr_assert_float_eq(infer_tpot_spread(1, 0, 1e-4, 0.99), 0.019955, 1e-6);
	cr_assert_float_eq(infer_tpot_spread(1, 4e-4, 0, 0.01), -infer_tpot_spread(1, 4e-4, 0, 0.99), 1e-12);
	cr_assert_float_eq(infer_tpot_spread(290, 4e-4, 1e-4, 0.5), 0, 1e-12);
}

Test(infer, prompt_work_per_iteration_is_a_compound_poisson_sum)
{
	/* Prompts arriving one by one, x = 1.4 per iteration, each iteration taking every one that
	 * arrived (TensorRT-LLM's fused batches without chunking): K ~ Poisson(1.4) prompts, so a
	 * share per = 1 - e^-1.4 = 0.753403 of the iterations carries prompts, nc = x / per =
	 * 1.858235 of them on average, extra = 100 ms for those. One prompt's work is then
	 * c = extra / nc = 53.8145 ms, and the iteration's work K·c has variance x c² = 1.4 ·
	 * 0.0028960 = 0.0040544 s² (a compound Poisson sum); prompts of spread lengths (each
	 * prompt's cs² 0.6) multiply it by 1 + 0.6: 0.0064870 s². The Bernoulli count of carrying
	 * iterations alone, extra² per (1 - per), gives 0.0018579 s²: 2.2 times less, since the
	 * carrying iterations hold 1, 2, 3... prompts, not always nc. */
	double x = 1.4, per = -expm1(-x), nc = x / per;
	cr_assert_float_eq(infer_prefill_var(0.1, per, nc, 0, 1, 1), 0.0040544, 1e-7);
	cr_assert_float_eq(infer_prefill_var(0.1, per, nc, 0.6, 1, 1), 0.0064870, 1e-7);
	cr_assert_float_eq(infer_prefill_var(0.1, per, nc, 0, 1, 0), 0.0018579, 1e-7);
	/* Where the room caps what an iteration takes (not poisson): the Bernoulli count plus each
	 * carrying iteration's own length spread, extra² per cs2 / nc = 0.01 · 0.753403 · 0.6 /
	 * 1.858235 = 0.0024326: 0.0042905 in all. Prompt iterations between decodes (not mixed,
	 * per = 0.2 of them per decode iteration, nc = 2): a Poisson count, extra² per, and the
	 * spread: 0.01 · 0.2 · (1 + 0.6 / 2) = 0.0026 s². */
	cr_assert_float_eq(infer_prefill_var(0.1, per, nc, 0.6, 1, 0), 0.0042905, 1e-7);
	cr_assert_float_eq(infer_prefill_var(0.1, 0.2, 2, 0.6, 0, 0), 0.0026, 1e-9);
	cr_assert_eq(infer_prefill_var(0.1, 0, 2, 0.6, 1, 1), 0);
}

Test(infer, geometric_lengths_spread_the_tpot_of_short_requests)
{
	/* Output lengths geometric with mean M = 290 decode iterations, a = (67 ms)² per iteration
	 * (the MLPerf llama2-70b Server point on H200): the quantile d must solve
	 * Σ_m (1/M)(1 - 1/M)^(m-1) · ½erfc(d √m / (67 ms · √2)) = 0.01, summed here term by term
	 * to m = 20,000 (the tail beyond is e^-69) against the binned mixture. Fixed lengths give
	 * only 67 ms · z(0.99) / √290 = 9.15 ms; the short requests (m <= 30, 9.8 % of them)
	 * average few iterations and lift p99 to 26.44 ms, 2.9 times that (the same sum solved
	 * by bisection outside the tool: d = 0.026442 s). */
	double M = 290, a = 0.067 * 0.067, d = infer_tpot_spread(M, a, 0, 0.99), sv = 0;
	for (int m = 1; m <= 20000; m++)
		sv += (1 / M) * pow(1 - 1 / M, m - 1) * 0.5 * erfc(d * sqrt((double)m) / (0.067 * sqrt(2.0)));
	cr_assert_float_eq(sv, 0.01, 2e-4, "survival at d = %g s is %g", d, sv);
	cr_assert_float_eq(d, 0.026442, 3e-4);
	cr_assert_lt(d, 0.067 * 2.326348); /* below a single-iteration request's own p99 */
}

Test(infer, spread_lengths_lower_the_load_a_tpot_limit_admits)
{
	/* The same open loop with request lengths spread: the mean TPOT is the same function of
	 * the load, but its p99 sits further above it, so the highest load whose p99 meets 60 ms
	 * runs a lower mean TPOT and fewer tokens/s; the median is the mean (a mixture of spreads
	 * centred on it). */
	wl_workload w;
	infer_result a, b;
	const char *fixed[] = {"concurrency=4096", "tpot_slo=60ms"};
	const char *expo[] = {"concurrency=4096", "tpot_slo=60ms", "length_spread=exponential"};
	serve_h100(fixed, 2, &w, &a);
	cr_assert_eq(w.length_spread, WL_SPREAD_FIXED); /* the default */
	serve_h100(expo, 3, &w, &b);
	cr_assert_eq(w.length_spread, WL_SPREAD_EXPONENTIAL);
	cr_assert_leq(b.tpot_tail, 0.060);
	cr_assert_gt(b.tpot_tail - b.tpot, a.tpot_tail - a.tpot);
	cr_assert_lt(b.tpot, a.tpot);
	cr_assert_lt(b.tokens_per_s, a.tokens_per_s);
	cr_assert_float_eq(b.at.tpot.p50, b.tpot, 1e-15);
}

/* The closed-loop curve of a shipped workload on a shipped system at loads[0..n-1]. */
static void shipped_curve(const char *sys, const char *wl, const double *loads, int n, infer_load *out)
{
	hw_system s;
	wl_workload w;
	err e = {0};
	const char *sets[] = {"concurrency=1024"};
	plan p;
	char why[256];
	cr_assert_eq(fx_shipped(sys, wl, sets, 1, &s, &w, &p, &e), 0, "%s", e.msg);
	cr_assert(infer_curve(&s, &w, &p, loads, n, out, why, sizeof why), "%s", why);
}

Test(infer, more_clients_in_flight_never_lower_ttft)
{
	/* Llama 3 70B on p5.48xlarge, 1 to 16 requests in flight, each from its own client. Four
	 * 2048-token prompts fit one 8192-token pass; the loop used to stay in step up to 4 (TTFT =
	 * a pass of 4 prompts, 317.8 ms) and lock in 2 groups at 5 (221.8 ms), 3 at 8 (235.4 ms):
	 * more requests, a faster first token. Clients do not stay in step, so from 2 on the phases
	 * spread and every latency grows with the load. */
	double loads[16];
	infer_load o[16];
	for (int i = 0; i < 16; i++)
		loads[i] = i + 1;
	shipped_curve("p5.48xlarge", "llama3-70b-serve", loads, 16, o);
	for (int i = 1; i < 16; i++) {
		cr_assert_geq(o[i].ttft.mean, o[i - 1].ttft.mean, "TTFT at %d: %g < %g", i + 1, o[i].ttft.mean, o[i - 1].ttft.mean);
		cr_assert_geq(o[i].ttft.p99, o[i - 1].ttft.p99);
		cr_assert_geq(o[i].tpot.mean, o[i - 1].tpot.mean);
		cr_assert_geq(o[i].tokens_per_s, o[i - 1].tokens_per_s);
	}
}

Test(infer, a_quarter_more_requests_do_not_cut_throughput)
{
	/* Llama 3 70B bf16 on mi300x-8: 256 -> 320 requests in flight used to cut throughput by a
	 * third (3,759 -> 2,462 tokens/s) and nearly double TPOT (67.4 -> 129.1 ms): the decode
	 * GEMMs went from one row of 256-row tiles (split along K over the 304 CUs) to two rows
	 * without the split. */
	double loads[2] = {256, 320};
	infer_load o[2];
	shipped_curve("mi300x-8", "llama3-70b-serve", loads, 2, o);
	cr_assert_geq(o[1].tokens_per_s, o[0].tokens_per_s, "%g -> %g tokens/s", o[0].tokens_per_s, o[1].tokens_per_s);
	cr_assert_leq(o[1].tpot.mean, 1.25 * o[0].tpot.mean * 1.05, "TPOT %g -> %g", o[0].tpot.mean, o[1].tpot.mean);
}

Test(infer, the_p99_ttft_is_at_or_above_its_mean)
{
	/* Llama 3 70B on trn1n.32xlarge, the workload's server scenario: at the highest load the
	 * TPOT limit admits, few requests wait, so the waits' atom at zero held more than 99 % of
	 * the law and p99 (641.445 ms) fell below the mean (641.449 ms). A Poisson arrival also
	 * waits for the rest of the iteration under way, uniform over it: the law has that spread,
	 * and its p99 lies above its mean. */
	hw_system s;
	wl_workload w;
	err e = {0};
	plan p;
	infer_result r;
	cr_assert_eq(fx_shipped("trn1n.32xlarge", "llama3-70b-serve", NULL, 0, &s, &w, &p, &e), 0, "%s", e.msg);
	infer_eval(&s, &w, &p, &r, NULL, NULL);
	cr_assert(r.feasible, "%s", r.reason);
	cr_assert_leq(r.at.ttft.p50, r.at.ttft.p90);
	cr_assert_leq(r.at.ttft.p90, r.at.ttft.p99);
	cr_assert_geq(r.at.ttft.p99, r.at.ttft.mean, "p99 %g < mean %g", r.at.ttft.p99, r.at.ttft.mean);
}

Test(infer, fewer_requests_than_replicas_is_infeasible_not_a_negative_wait)
{
	/* deepseek-v3-serve's server scenario with concurrency 1 over 2 replicas held half a
	 * sequence per replica: Erlang C over floor(0.5) = 0 slots gave an admission wait of
	 * -1259 ms and a mean TTFT of -1234 ms (found by the property suite, seed 4). */
	hw_system s;
	wl_workload w;
	err e = {0};
	const char *sets[] = {"precision=fp8", "concurrency=1", "input_len=437"};
	plan p;
	infer_result r;
	cr_assert_eq(fx_shipped("hgx-b300", "deepseek-v3-serve", sets, 3, &s, &w, &p, &e), 0, "%s", e.msg);
	p.dp = 2;
	p.chips = 2 * p.tp * p.pp * p.cp;
	infer_eval(&s, &w, &p, &r, NULL, NULL);
	cr_assert_not(r.feasible);
	cr_assert(strstr(r.reason, "less than one sequence"), "%s", r.reason);
}

/* --- prompt lengths spread about input_len ([infer] input_spread) */

/* The llama3.1-405b MLPerf dataset's prompt lengths, nearest-rank percentiles of the 8,313
 * samples of openshift-psap/performance-dashboard@67033bae mlperf-data/summaries/llama3-1-405b.csv
 * (p50, p90, p99 and the ends as shared/data/mlperf-rules.md §2 lists them). */
static const char *const spread_405b = "input_spread=0:476 1:1597 5:2782 10:3677 20:5122 30:6998 40:8804 50:10112 "
				       "60:11038 70:11731 80:12758 90:14157 95:15836 99:18958 100:19988";

Test(infer, length_moments_of_a_uniform_table)
{
	/* Lengths uniform on [1, 3] tokens: x = L / 2 is uniform on [0.5, 1.5], so E[x²] = 1 + 1/12,
	 * E[x³] = (1.5⁴ - 0.5⁴) / 4 = 1.25, E[x⁴] = (1.5⁵ - 0.5⁵) / 5 = 1.5125. Work linear in the
	 * length (f = 0): E[g] = 1, c_s² = 1/12. All attention (f = 1, g = x²): E[g] = 13/12,
	 * c_s² = 1.5125 / (13/12)² - 1 = 0.288757. Half and half: E[g] = 1.0416667, E[g²] =
	 * (E[x²] + 2 E[x³] + E[x⁴]) / 4 = 1.2739583, c_s² = 0.174080. */
	wl_lengths l;
	char why[128];
	double g, c;
	cr_assert_eq(wl_lengths_parse("0:1 100:3", &l, why, sizeof why), 0, "%s", why);
	cr_assert(infer_length_moments(&l, 0, &g, &c));
	cr_assert_float_eq(g, 1, 1e-12);
	cr_assert_float_eq(c, 1.0 / 12, 1e-12);
	infer_length_moments(&l, 1, &g, &c);
	cr_assert_float_eq(g, 13.0 / 12, 1e-12);
	cr_assert_float_eq(c, 0.288757, 1e-6);
	infer_length_moments(&l, 0.5, &g, &c);
	cr_assert_float_eq(g, 1.0416667, 1e-7);
	cr_assert_float_eq(c, 0.174080, 1e-6);
	/* Two pieces with a point in common: the same law split at its middle. */
	cr_assert_eq(wl_lengths_parse("0:1, 50:2, 100:3", &l, why, sizeof why), 0, "%s", why);
	infer_length_moments(&l, 0, &g, &c);
	cr_assert_float_eq(c, 1.0 / 12, 1e-12);
	/* fixed: no spread. */
	cr_assert_eq(wl_lengths_parse("fixed", &l, why, sizeof why), 0);
	cr_assert_eq(l.n, 0);
	cr_assert_not(infer_length_moments(&l, 0, &g, &c));
}

Test(infer, input_spread_bad_values)
{
	wl_lengths l;
	char why[160];
	hw_system s;
	wl_workload w;
	err e = {0};
	plan p;
	const char *bad[] = {"input_spread=0:100 50:50 100:200"};
	static const char *const cases[][2] = {
		{"10:100 100:200", "from 0 to 100"},
		{"0:100 50:90 100:200", "point 2: 90 tokens is below the point before it (100)"},
		{"0:100 0:200 100:300", "point 2: percentile 0 is not above"},
		{"0:100 100:x", "not a length in tokens"},
		{"exponential", "is not fixed or PERCENTILE:TOKENS"},
		{"0:100 100:100", "that is fixed"},
		{"0:0.5 100:100", "point 1: 0.5 tokens is outside 1-"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		cr_assert_eq(wl_lengths_parse(cases[i][0], &l, why, sizeof why), -1, "%s", cases[i][0]);
		cr_assert(strstr(why, cases[i][1]), "%s: %s", cases[i][0], why);
	}
	cr_assert_neq(fx_shipped("dgx-h100", "llama3-70b-serve", bad, 1, &s, &w, &p, &e), 0);
	cr_assert(strstr(e.msg, "input_spread: point 2: 50 tokens is below"), "%s", e.msg);
}

/* The prefill pool of the MLPerf v5.1 GB200 run (tests/validation/disagg.csv): one TP4 context
 * server, 4096 tokens a pass, prompts of one output token, in an open loop at `share` of what it
 * completes, with lengths fixed or spread (the dataset's), arrivals Poisson or with c_a² ca2. */
static void prefill_pool(int spread, double ca2, double share, infer_load *o, wl_workload *w)
{
	hw_system s;
	err e = {0};
	plan p = {4, 1, 1, 1, 1, 1, 0, 0, 4};
	const char *sets[] = {"output_len=1", "max_num_tokens=4096", spread ? spread_405b : "input_spread=fixed"};
	cr_assert_eq(hw_find_system("gb200-nvl72", "models", &s, &e), 0, "%s", e.msg);
	cr_assert_eq(wl_load("tests/cli/good/mlperf/mlperf51-405b-interactive.ini", "workloads", "models", sets, 3, w, &e),
		     0, "%s", e.msg);
	cr_assert_eq(w->input_spread.n, spread ? 15 : 0);
	w->arrival_ca2 = ca2;
	plan_fill(&p);
	cr_assert(infer_open_curve(&s, w, &p, &share, 1, o, NULL, 0));
	cr_assert(o->stable);
}

Test(infer, the_prefill_wait_is_pollaczek_khinchine)
{
	/* A chunked prefill station is one server (each prompt holds it for its share of the passes)
	 * with Poisson arrivals: M/G/1, whose mean wait is exact (Pollaczek-Khinchine): W = λ E[S²] /
	 * (2 (1 - ρ)), ρ = λ E[S], E[S²] = E[S]² (1 + c_s²). Fixed lengths: c_s² = 0 (M/D/1). The
	 * dataset's lengths: c_s² about the lengths' own 0.1885 (their table; 0.186 over the samples),
	 * a little more for the attention that grows with the square of the length. */
	wl_workload w;
	for (int spread = 0; spread <= 1; spread++) {
		infer_load o;
		double lam, S, rho, pk;
		prefill_pool(spread, 0, 0.8, &o, &w);
		lam = o.requests_per_s;
		S = o.prefill_hold;
		rho = lam * S;
		pk = lam * S * S * (1 + o.prefill_cs2) / (2 * (1 - rho));
		cr_assert_float_eq(o.prefill_wait, pk, 1e-9 * pk, "spread %d: wait %g, P-K %g", spread, o.prefill_wait, pk);
		if (spread) {
			cr_assert_gt(o.prefill_cs2, 0.1885);
			cr_assert_lt(o.prefill_cs2, 0.1885 * 1.1);
		} else {
			cr_assert_eq(o.prefill_cs2, 0);
		}
	}
}

Test(infer, arrivals_in_turn_wait_by_kingman)
{
	/* A router that hands np replicas the arrivals in turn gives each one the sum of np Poisson
	 * gaps (c_a² = 1/np); at the same load the wait scales by (c_a² + c_s²) / (1 + c_s²)
	 * (Kingman 1961: W ≈ ρ/(1-ρ) (c_a² + c_s²)/2 E[S]). */
	wl_workload w;
	for (int spread = 0; spread <= 1; spread++) {
		infer_load a, b;
		prefill_pool(spread, 0, 0.8, &a, &w);
		prefill_pool(spread, 1.0 / 14, 0.8, &b, &w);
		cr_assert_float_eq(b.requests_per_s, a.requests_per_s, 1e-12 * a.requests_per_s);
		cr_assert_float_eq(b.prefill_wait / a.prefill_wait, (1.0 / 14 + a.prefill_cs2) / (1 + a.prefill_cs2), 1e-9);
	}
}

Test(infer, a_spread_of_prompts_widens_the_ttft_tail)
{
	/* With no queue a prompt's TTFT is its own passes of 4096 tokens: the mean prompt (9429)
	 * ceil(9429 / 4096) = 3 of them; the dataset's longest 1 % (18958-19988 tokens, 2.0-2.1 times
	 * its mean 9448) ceil(4.6-4.9) = 5, each slower by its attention over twice the context
	 * (1 + f (x - 1), f a few %). So the p99 rises by 5/3 (to 5/3 × 1.05), while the median
	 * (10112 tokens: 3 passes) stays at the fixed one's 3 passes. */
	wl_workload w;
	infer_load a, b;
	prefill_pool(0, 0, 1e-4, &a, &w);
	prefill_pool(1, 0, 1e-4, &b, &w);
	cr_assert_float_eq(a.ttft.p99, 3 * a.iter_prefill, 1e-3 * a.ttft.p99);
	cr_assert_geq(b.ttft.p99 / a.ttft.p99, 5.0 / 3, "p99 %g against %g", b.ttft.p99, a.ttft.p99);
	cr_assert_leq(b.ttft.p99 / a.ttft.p99, 5.0 / 3 * 1.05, "p99 %g against %g", b.ttft.p99, a.ttft.p99);
	cr_assert_float_eq(b.ttft.p50, a.ttft.p50, 0.03 * a.ttft.p50, "p50 %g against %g", b.ttft.p50, a.ttft.p50);
	cr_assert_leq(b.ttft.p50, b.ttft.p90);
	cr_assert_leq(b.ttft.p90, b.ttft.p99);
	cr_assert_leq(b.ttft.mean, b.ttft.p99);
}

Test(infer, host_work_grows_with_the_sequences_of_an_iteration)
{
	/* seq_overhead: host time per sequence an iteration holds, beside iter_overhead: 10
	 * decodes and two prompts of 512 tokens (1024 prefill tokens) take 1 ms + 12 x 50 us =
	 * 1.6 ms without overlap. The workload's iter_overhead is what the engine reads (a
	 * workload's or --set's own value, over the stack's). */
	hw_system s = fx_round_system(8);
	nn_net n = fx_gpt(4, 2048, 16, 32000);
	wl_workload w = fx_infer(n, 512, 128, 1);
	plan p = {1, 1, 1, 1, 1, 1, 0, 0, 1};
	infer_step a;
	w.iter_overhead = 1e-3;
	w.fw.serve.seq_overhead = 50e-6;
	infer_step_eval(&s, &w, &p, 10, 576, 1024, &a);
	cr_assert_float_eq(a.t_host, 1.6e-3, 1e-15);
	infer_step_eval(&s, &w, &p, 0, 576, 0, &a);
	cr_assert_float_eq(a.t_host, 1e-3, 1e-15);
}

/* The MLPerf llama2-70b Server workload on 8 MI300X, one replica a GPU, behind a harness batcher
 * of `win` s (at most 96 a batch) in an open loop at `share` of what the server completes:
 * prefill_first, whole prompts within 49,152 tokens (vllm-mlperf-amd.ini's scheduler). */
static void batched_server(double win, double share, infer_load *o)
{
	hw_system s;
	wl_workload w;
	err e = {0};
	plan p = {1, 1, 1, 8, 1, 1, 0, 0, 8};
	/* Every request at the means (the shipped workload carries OpenOrca's mix). */
	const char *sets[] = {"scenario=server", "input_len=222", "output_len=293", "input_spread=fixed", "length_spread=fixed"};
	cr_assert_eq(hw_find_system("mi300x-8", "models", &s, &e), 0, "%s", e.msg);
	cr_assert_eq(wl_load("llama2-70b-serve", "workloads", "models", sets, 5, &w, &e), 0, "%s", e.msg);
	w.scheduler = w.fw.serve.scheduler = FW_SCHED_PREFILL_FIRST;
	w.fw.serve.chunked_prefill = 0;
	w.max_num_tokens = w.fw.serve.max_num_tokens = 49152;
	w.fw.serve.overlap = 0;
	w.iter_overhead = w.fw.serve.iter_overhead = 0;
	w.fw.serve.batch_window = win;
	w.fw.serve.batch_window_max = 96;
	plan_fill(&p);
	cr_assert(infer_open_curve(&s, &w, &p, &share, 1, o, NULL, 0));
	cr_assert(o->stable);
}

Test(infer, a_harness_batcher_sends_a_window_to_one_replica)
{
	/* At L requests/s over 8 replicas a 0.3 s window holds n = 0.3 L prompts, all sent to one
	 * replica, which gets one batch every 8 x 0.3 s: its prompt passes carry the n prompts
	 * (one pass: n x 222 tokens fit 49,152), Rp = L / 8 / n passes a second. A request waits for
	 * its window, 0.15 s on average (the chance of an empty window, e^-0.3L, is nil here), then
	 * for the decode iteration under way (half of one), then its batch's pass: TTFT = 0.15 +
	 * tD / 2 + tP. The decodes stall in the passes: TPOT = tD / (1 - Rp tP). */
	infer_load o;
	double L, n, Rp;
	batched_server(0.3, 0.7, &o);
	L = o.requests_per_s;
	n = 0.3 * L;
	Rp = L / 8 / n;
	cr_assert_float_eq(o.prompts_per_iter, n, 1e-9 * n);
	cr_assert_float_eq(o.ttft.mean, 0.15 * -expm1(-n) + 0.5 * o.iter_decode + o.iter_prefill, 1e-3 * o.ttft.mean, "%g",
			   o.ttft.mean);
	cr_assert_float_eq(o.tpot.mean, o.iter_decode / (1 - Rp * o.iter_prefill), 1e-9 * o.tpot.mean);
	/* The window's wait is uniform on [0, 0.3 s]: its spread lifts p99 above the median by
	 * most of 0.15 s (plus the half decode iteration's). */
	cr_assert(o.ttft.p50 <= o.ttft.p90 && o.ttft.p90 <= o.ttft.p99);
	cr_assert_gt(o.ttft.p99 - o.ttft.p50, 0.13);
	cr_assert_lt(o.ttft.p99 - o.ttft.p50, 0.15 + 0.5 * o.iter_decode);
	/* Every stall comes once a period: a request of 292 decode iterations sees floor or ceil of
	 * its mean count, one stall (iter_prefill / 292) at most above its mean share, beside the
	 * running batch's spread: with every output 293 tokens the p99 TPOT stays within 10 % of the
	 * mean (the MLPerf dataset's spread of lengths is the workload's length_spread). */
	cr_assert_geq(o.tpot.p99, o.tpot.mean);
	cr_assert_lt(o.tpot.p99, 1.1 * o.tpot.mean, "p99 %g, mean %g", o.tpot.p99, o.tpot.mean);
}

Test(infer, a_wider_window_batches_more_and_waits_longer)
{
	/* Twice the window at the same load: twice the prompts a pass, half the passes a second,
	 * and a TTFT longer by the wait (0.15 s more on average) and the longer pass. */
	infer_load a, b;
	batched_server(0.3, 0.6, &a);
	batched_server(0.6, 0.6, &b);
	cr_assert_float_eq(b.requests_per_s, a.requests_per_s, 1e-12 * a.requests_per_s);
	cr_assert_float_eq(b.prompts_per_iter, 2 * a.prompts_per_iter, 1e-9 * a.prompts_per_iter);
	cr_assert_gt(b.ttft.mean - a.ttft.mean, 0.15);
	cr_assert_gt(b.iter_prefill, a.iter_prefill);
}

Test(infer, the_open_loop_batch_is_the_fixed_point_near_capacity)
{
	/* Near capacity the running batch bd = λ (output_len - 1) TPOT(bd) has a slope near 1, and
	 * plain steps from a lower load's batch crawl: the search once judged a batch still rising
	 * (MLPerf llama2-70b on 8 H200, OpenOrca's lengths: 495 running at 92.45 requests/s meeting
	 * the limits, where that load held at its own solution runs 636 and misses). The point the
	 * search picks must be the server's state at that load: the same batch and TPOT when the
	 * load is given as arrival_rate (within 0.5 %: each step also moves the iteration mix, so
	 * two starts settle a little apart), and Little's law between them. */
	hw_system s;
	wl_workload w, w2;
	err e = {0};
	plan p = {1, 1, 1, 8, 1, 1, 0, 0, 8};
	infer_result a, b;
	char rate[64];
	const char *sets[1];
	cr_assert_eq(hw_find_system("hgx-h200", "models", &s, &e), 0, "%s", e.msg);
	cr_assert_eq(wl_load("llama2-70b-serve", "workloads", "models", NULL, 0, &w, &e), 0, "%s", e.msg);
	plan_fill(&p);
	infer_eval(&s, &w, &p, &a, NULL, NULL);
	cr_assert(a.feasible, "%s", a.reason);
	cr_assert_leq(a.tpot_tail, w.tpot_slo * (1 + 1e-9));
	/* The limit binds: within 2 % of it (the bisection's load step moves the p99 by less). */
	cr_assert_gt(a.tpot_tail, 0.98 * w.tpot_slo, "p99 TPOT %g s at the highest load", a.tpot_tail);
	snprintf(rate, sizeof rate, "arrival_rate=%.9g", a.at.load);
	sets[0] = rate;
	cr_assert_eq(wl_load("llama2-70b-serve", "workloads", "models", sets, 1, &w2, &e), 0, "%s", e.msg);
	infer_eval(&s, &w2, &p, &b, NULL, NULL);
	cr_assert_float_eq(b.tpot, a.tpot, 0.005 * a.tpot, "TPOT %g s searched, %g s at its load", a.tpot, b.tpot);
	cr_assert_float_eq(b.at.running, a.at.running, 0.005 * a.at.running);
	/* Little: the decoding batch is the completions a second per replica times a request's decode time. */
	cr_assert_float_eq(a.at.running, a.at.load / 8 * (a.ttft + (w.output_len - 1) * a.tpot), 2e-3 * a.at.running);
}
