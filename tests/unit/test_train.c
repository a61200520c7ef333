/* train: step composition, bubble, MFU, and layouts that do not fit or divide. */
#include <criterion/criterion.h>
#include <string.h>

#include "fixtures.h"
#include "engine/train.h"

Test(train, pipeline_bubble)
{
	/* 1F1B bubble (Narayanan et al. SC21 §2.2): (p-1)/m of the ideal time, i.e. (p-1)·t_micro;
	 * interleaved with v chunks: (p-1)/v · t_micro. pp = 4, m = 8. */
	hw_system s = fx_round_system(8);
	nn_net n = fx_gpt(8, 1024, 16, 1000);
	wl_workload w = fx_train(n, 512, 8, 1);
	plan p = {1, 4, 1, 1, 1, 1, 0, 1, 4};
	train_result r;
	char why[TRAIN_REASON_MAX];
	train_eval(&s, &w, &p, &r, NULL);
	cr_assert(r.feasible, "%s", train_reason(&r, &s, &w, why, sizeof why));
	cr_assert_float_eq(r.micro_batches, 8, 1e-12);
	cr_assert_float_eq(r.t_bubble, 3 * r.t_micro, 1e-15);
	/* The micro-batch time includes the pipeline sends on its critical path. */
	cr_assert_float_eq(r.t_bubble / (r.micro_batches * r.t_micro), 3.0 / 8, 1e-12);
	cr_assert(r.comm.pp > 0);
	p.vpp = 2;
	train_eval(&s, &w, &p, &r, NULL);
	cr_assert(r.feasible, "%s", train_reason(&r, &s, &w, why, sizeof why));
	cr_assert_float_eq(r.t_bubble, 1.5 * r.t_micro, 1e-15);
	cr_assert_float_eq(r.step_time, r.micro_batches * r.t_micro + r.t_bubble + r.comm.dp + r.t_optimizer,
			   1e-15);
	cr_assert_eq(r.comm_priced, 1);
}

Test(train, mfu_is_model_flops_over_peak)
{
	hw_system s = fx_round_system(8);
	nn_net n = fx_gpt(4, 2048, 16, 1000);
	wl_workload w = fx_train(n, 1024, 16, 2);
	plan p = {1, 1, 1, 8, 1, 1, 0, 2, 8};
	train_result r;
	double model, hw;
	train_eval(&s, &w, &p, &r, NULL);
	train_flops_per_token(&w, &model, &hw);
	cr_assert_float_eq(r.tokens_per_s, 16.0 * 1024 / r.step_time, r.tokens_per_s * 1e-12);
	cr_assert_float_eq(r.mfu, model * r.tokens_per_s / 8 / 100e12, 1e-12);
	/* Efficiencies of 1 and no padding: MFU < 1 only by the memory-bound ops, attention
	 * executing its causal half and the flash backward's extra GEMMs. */
	cr_assert(r.mfu > 0.5 && r.mfu < 1.0, "mfu %f", r.mfu);
}

Test(train, layouts_that_do_not_divide_or_fit)
{
	hw_system s = fx_round_system(8);
	nn_net n = fx_gpt(4, 1024, 16, 1000);
	wl_workload w = fx_train(n, 512, 8, 1);
	plan p = {3, 1, 1, 1, 1, 1, 0, 1, 3};
	train_result r;
	char why[TRAIN_REASON_MAX];
	train_eval(&s, &w, &p, &r, NULL);
	cr_assert_not(r.feasible);
	cr_assert_str_eq(train_reason(&r, &s, &w, why, sizeof why), "tp 3 does not divide 16 attention heads");
	p = (plan){1, 1, 1, 3, 1, 1, 0, 1, 3};
	train_eval(&s, &w, &p, &r, NULL);
	cr_assert_str_eq(train_reason(&r, &s, &w, why, sizeof why), "dp*micro_batch = 3 does not divide global_batch 8");
	/* 4·12·h² + V·h = 51.4M parameters × 16 B = 0.82 GB: shrink HBM to 0.5 GB. */
	s.chip.hbm = 0.5e9;
	p = (plan){1, 1, 1, 1, 1, 1, 0, 1, 1};
	train_eval(&s, &w, &p, &r, NULL);
	cr_assert_not(r.feasible);
	cr_assert(strstr(train_reason(&r, &s, &w, why, sizeof why), "GiB per chip, has 0.5 GiB"), "%s", why);
	cr_assert(r.step_time > 0, "an infeasible layout still reports its estimate");
}

Test(train, a_window_takes_its_share_of_attention_model_flops)
{
	/* GPT fixture (heads of 128), s = 1000: the attention core counts 2·L·a·(d + dv)·s =
	 * 2·2·16·256·1000 = 16,384,000 FLOPs per token forward, x 3 with the backward. A window
	 * of 128 on both layers computes 119,872 of the 500,500 causal pairs:
	 * 16,384,000·(1 - 119,872/500,500) fewer forward FLOPs, 3 times that per token. */
	nn_net n = fx_gpt(2, 2048, 16, 1000);
	wl_workload w = fx_train(n, 1000, 8, 1);
	double m0, h0, m1, h1;
	train_flops_per_token(&w, &m0, &h0);
	w.net.window = 128;
	w.net.window_layers = 2;
	train_flops_per_token(&w, &m1, &h1);
	cr_assert_float_eq(m0 - m1, 3 * 16384000.0 * (1 - 119872.0 / 500500.0), 1e-3);
}

Test(train, fp16_on_a_chip_with_only_bf16_runs_at_bf16)
{
	/* Megatron GPT 1T is fp16; TPU v5p publishes no fp16 rate. It ran at a peak of 0 (MFU 0.0 %,
	 * 700 model TFLOP/s per chip on a chip whose bf16 peak is 459) and ranked first. It runs at
	 * bf16 now: MFU in (0, 1), model TFLOP/s per chip below the bf16 peak. */
	hw_system s;
	wl_workload w;
	err e = {0};
	plan p;
	train_result r;
	cr_assert_eq(fx_shipped("tpu-v5p", "megatron-1t-train", NULL, 0, &s, &w, &p, &e), 0, "%s", e.msg);
	train_eval(&s, &w, &p, &r, NULL);
	cr_assert_eq(r.run_prec, HW_BF16);
	cr_assert_float_eq(r.peak, s.chip.peak[HW_BF16], 1);
	cr_assert_gt(r.mfu, 0);
	cr_assert_leq(r.mfu, r.hfu);
	cr_assert_leq(r.hfu, 1);
	cr_assert_leq(r.model_tflops_per_chip * 1e12, s.chip.peak[HW_BF16]);
}

Test(train, a_precision_with_no_rate_is_infeasible_not_free)
{
	/* fp32 on TPU v5p: no fp32 rate and nothing wider. The layout is infeasible, its reason
	 * names the chip, and the estimate runs at the widest rate it has, never at a peak of 0. */
	hw_system s;
	wl_workload w;
	err e = {0};
	const char *sets[] = {"precision=fp32"};
	plan p;
	train_result r;
	char why[TRAIN_REASON_MAX];
	cr_assert_eq(fx_shipped("tpu-v5p", "llama3-8b-train", sets, 1, &s, &w, &p, &e), 0, "%s", e.msg);
	train_eval(&s, &w, &p, &r, NULL);
	cr_assert_not(r.feasible);
	cr_assert_eq(r.why, SHARD_PRECISION);
	cr_assert(strstr(train_reason(&r, &s, &w, why, sizeof why), "tpu-v5p"), "%s", why);
	cr_assert_gt(r.peak, 0);
	cr_assert_gt(r.step_time, 0);
}

Test(train, the_last_gradient_bucket_is_not_hidden)
{
	/* ZeRO-1, gradient reduce and parameter gather overlapped, one micro-batch (dp 8, global
	 * batch 8), no contention (the round chip's overlap_slowdown is 0). 4 layers of h = 1024 at
	 * s = 4096: the backward (~8 ms) and forward (~4 ms) dwarf the sync of ~52M parameters (about
	 * 0.9 ms each way at 100 GB/s), so only the bucket whose gradients come last (and the first
	 * bucket gathered) stays exposed: a layer's share by default (1/L = 1/4 of the sync), half
	 * with buckets of half the parameters, all of it with one bucket for every parameter (nothing
	 * starts before the backward ends). */
	hw_system s = fx_round_system(8);
	nn_net n = fx_gpt(4, 1024, 16, 1000);
	wl_workload w = fx_train(n, 4096, 8, 1);
	plan p = {1, 1, 1, 8, 1, 1, 0, 1, 8};
	train_result r;
	double P;
	w.zero = 1;
	w.overlap_grad_reduce = 1;
	w.fw.has_train = 1;
	w.fw.train.overlap_param_gather = 1;
	train_eval(&s, &w, &p, &r, NULL);
	cr_assert(r.feasible);
	cr_assert(r.comm.dp_total > 0);
	cr_assert_float_eq(r.comm.dp, r.comm.dp_total / 4, r.comm.dp_total * 1e-9, "%g of %g", r.comm.dp,
			   r.comm.dp_total);
	P = r.mem.params_local;
	w.fw.train.dp_bucket = P / 2;
	train_eval(&s, &w, &p, &r, NULL);
	cr_assert_float_eq(r.comm.dp, r.comm.dp_total / 2, r.comm.dp_total * 1e-9, "%g of %g", r.comm.dp,
			   r.comm.dp_total);
	w.fw.train.dp_bucket = 2 * P;
	train_eval(&s, &w, &p, &r, NULL);
	cr_assert_float_eq(r.comm.dp, r.comm.dp_total, r.comm.dp_total * 1e-9);
	cr_assert_float_eq(r.step_time, r.micro_batches * r.t_micro + r.t_bubble + r.comm.dp + r.t_optimizer,
			   1e-15);
}
