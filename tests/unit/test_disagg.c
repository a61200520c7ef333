/* disagg and speculative decoding: the split's grammar, the KV cache a request moves and the
 * time it takes, the rate matching of the two pools, and the tokens a verify pass accepts,
 * against hand derivations. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fixtures.h"
#include "engine/comm.h"
#include "engine/disagg.h"
#include "engine/infer.h"

Test(disagg, parses_the_split)
{
	plan_disagg d;
	err e = {0};
	cr_assert_eq(plan_disagg_parse("off", &d, &e), 0);
	cr_assert_eq(d.on, 0);
	cr_assert_eq(plan_disagg_parse("auto", &d, &e), 0);
	cr_assert(d.on && d.np == 0);
	cr_assert_eq(plan_disagg_parse("3p1d", &d, &e), 0);
	cr_assert(d.on && d.np == 3 && d.nd == 1 && d.prefill.tp == 0);
	cr_assert_eq(plan_disagg_parse("14P2D:tp=4:tp=8,pp=1", &d, &e), 0);
	cr_assert(d.np == 14 && d.nd == 2 && d.prefill.tp == 4 && d.decode.tp == 8 && d.decode.chips == 8);
	cr_assert_neq(plan_disagg_parse("3x", &d, &e), 0);
	cr_assert_neq(plan_disagg_parse("0p1d", &d, &e), 0);
	cr_assert_neq(plan_disagg_parse("1p1d:tp=4", &d, &e), 0);
	cr_assert_neq(plan_disagg_parse("1p1d:tp=4,dp=2:tp=4", &d, &e), 0);
	cr_assert_neq(plan_disagg_parse("1p1d:tp=4:tp=zz", &d, &e), 0);
}

/* 1 + a + ... + a^k (Leviathan et al. 2023): k = 3, a = 0.5 gives 1 + .5 + .25 + .125 = 1.875;
 * k = 1, a = 0.85 (DeepSeek-V3's MTP) 1.85; no draft, 1. */
Test(disagg, tokens_a_verify_pass_accepts)
{
	wl_workload w;
	memset(&w, 0, sizeof w);
	cr_assert_float_eq(infer_spec_gain(&w), 1, 1e-12);
	w.spec_kind = WL_SPEC_NETWORK;
	w.spec_tokens = 3;
	w.spec_acceptance = 0.5;
	cr_assert_float_eq(infer_spec_gain(&w), 1.875, 1e-12);
	w.spec_kind = WL_SPEC_MTP;
	w.spec_tokens = 1;
	w.spec_acceptance = 0.85;
	cr_assert_float_eq(infer_spec_gain(&w), 1.85, 1e-12);
}

/* A request's KV cache, every layer: 2 (K and V) x layers x kv_heads x head_dim x 2 B per token of
 * the prompt. The fixture network (8 layers, hidden 4096, 32 heads of 128) at 1000 prompt tokens:
 * 2 x 8 x 32 x 128 x 2 x 1000 = 131,072,000 B. Both pools (one chip each) sit in one 8-chip node,
 * so it moves over the node: comm's send/recv of the whole cache between two chips. */
Test(disagg, the_kv_cache_a_request_moves)
{
	hw_system s = fx_round_system(8);
	nn_net n = fx_gpt(8, 4096, 32, 32000);
	wl_workload w = fx_infer(n, 1000, 100, 1);
	plan p = {1, 1, 1, 1, 1, 1, 0, 0, 1};
	disagg_result r;
	comm_cost c = comm_time(&s, COMM_SEND_RECV, 131072000.0, 2, 1);
	w.scenario = WL_SERVER;
	disagg_eval(&s, &w, &p, 1, &p, 1, &r);
	cr_assert_float_eq(r.kv_bytes, 131072000.0, 1);
	cr_assert_float_eq(r.t_transfer, c.t, 1e-12);
	cr_assert_eq(r.link, HW_LEVEL_NODE);
	cr_assert_eq(r.chips, 2);
	/* 3 prefill + 6 decode chips exceed the node: the cache crosses the scale-out network. */
	disagg_eval(&s, &w, &p, 3, &p, 6, &r);
	cr_assert_eq(r.link, HW_LEVEL_SCALEOUT);
	cr_assert(r.t_transfer > c.t);
}

/* Rate matching: the deployment serves no more than either pool, and with no limits the highest
 * load is the smaller pool's capacity, so doubling the decode pool of a decode-bound split adds
 * load until the prefill pool binds. */
Test(disagg, the_pools_bound_the_load)
{
	hw_system s = fx_round_system(64);
	nn_net n = fx_gpt(8, 4096, 32, 32000);
	wl_workload w = fx_infer(n, 256, 512, 1);
	plan p = {1, 1, 1, 1, 1, 1, 0, 0, 1};
	disagg_result a, b;
	w.scenario = WL_SERVER;
	disagg_eval(&s, &w, &p, 1, &p, 1, &a);
	disagg_eval(&s, &w, &p, 1, &p, 2, &b);
	cr_assert(a.feasible && b.feasible, "%s / %s", a.reason, b.reason);
	cr_assert(a.requests_per_s <= a.pre.count * a.pre.most * (1 + 1e-6) + 1e-9);
	cr_assert(a.dec.rate <= a.dec.most * (1 + 1e-6));
	cr_assert(b.requests_per_s >= a.requests_per_s * (1 - 1e-3));
	cr_assert_float_eq(a.tokens_per_s, a.requests_per_s * 512, 1e-6 * a.tokens_per_s);
	cr_assert_float_eq(a.tokens_per_s_per_chip, a.tokens_per_s / 2, 1e-9 * a.tokens_per_s);
	/* TTFT holds the transfer and the prefill pool's part. */
	cr_assert(a.ttft >= a.ttft_prefill + a.t_transfer - 1e-12);
}

/* A TPOT limit the decode pool cannot meet at any load makes the split infeasible, and says so. */
Test(disagg, a_limit_no_load_meets)
{
	hw_system s = fx_round_system(8);
	nn_net n = fx_gpt(8, 4096, 32, 32000);
	wl_workload w = fx_infer(n, 256, 512, 1);
	plan p = {1, 1, 1, 1, 1, 1, 0, 0, 1};
	disagg_result r;
	w.scenario = WL_SERVER;
	w.tpot_slo = 1e-6;
	disagg_eval(&s, &w, &p, 1, &p, 1, &r);
	cr_assert(!r.feasible);
	cr_assert(strstr(r.reason, "miss the limits") != NULL, "%s", r.reason);
}
