/* infer: decode and prefill against hand derivations on a shipped system. */
#include <criterion/criterion.h>

#include "fixtures.h"
#include "infer.h"

Test(infer, llama3_70b_decode_on_trn2_is_weight_bandwidth_bound)
{
	/* Llama-3-70B in bf16 is 141 GB; over 16 Trainium2 at 2.9 TB/s that is 3.04 ms per
	 * token at peak bandwidth. At batch 1 the decode ops are memory-bound: at least that and,
	 * with the achievable fraction and per-kernel costs, well under twice it. On top come 2
	 * all-reduces per layer: 160 calls at the measured 58 us Neuron floor = 9.28 ms. */
	hw_system s;
	wl_workload w;
	err e = {0};
	const char *sets[] = {"concurrency=1"};
	plan p = {16, 1, 1, 1, 1, 1, 0, 0, 16};
	infer_result r;
	double floor_s = 2 * 70.55e9 / (16 * 2.9e12);
	cr_assert_eq(hw_find_system("trn2.48xlarge", "models", &s, &e), 0, "%s", e.msg);
	cr_assert_eq(wl_load("llama3-70b-serve", "workloads", "models", sets, 1, &w, &e), 0, "%s", e.msg);
	infer_eval(&s, &w, &p, &r, NULL, NULL);
	cr_assert(r.feasible, "%s", r.reason);
	cr_assert_eq(r.decode_bound, ROOF_MEMORY);
	cr_assert_geq(r.step.t_ops, floor_s);
	cr_assert_leq(r.step.t_ops, 2 * floor_s, "ops %g vs floor %g", r.step.t_ops, floor_s);
	cr_assert_float_eq(r.step.t_comm, 160 * 58e-6, 1e-9);
	cr_assert_float_eq(r.tpot, r.step.t_ops + r.step.t_comm + r.step.t_overhead, 1e-12);
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

Test(infer, throughput_counts_output_tokens)
{
	/* tokens/s = replicas × batch × output_len / (TTFT + (output_len − 1)·TPOT). */
	hw_system s = fx_round_system(8);
	nn_net n = fx_gpt(4, 2048, 16, 32000);
	wl_workload w = fx_infer(n, 512, 128, 8);
	plan p = {1, 1, 1, 2, 1, 1, 0, 0, 2};
	infer_result r;
	infer_eval(&s, &w, &p, &r, NULL, NULL);
	cr_assert_float_eq(r.tokens_per_s, 2 * 8 * 128 / (r.ttft + 127 * r.tpot), 1e-6);
}

Test(infer, kv_cache_limits_batch)
{
	hw_system s = fx_round_system(8);
	nn_net n = fx_gpt(32, 4096, 32, 32000);
	wl_workload w = fx_infer(n, 4096, 4096, 256);
	plan p = {1, 1, 1, 1, 1, 1, 0, 0, 1};
	infer_result r;
	/* KV: 256 × 8192 × 2·4096·32 layers × 2 B = 1.1 TB > 100 GB. */
	infer_eval(&s, &w, &p, &r, NULL, NULL);
	cr_assert_not(r.feasible);
}
