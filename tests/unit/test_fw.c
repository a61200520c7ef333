/* fw: framework files, and the sustained-performance mechanisms they drive (power cap,
 * attention kernel classes, elementwise bandwidth, host floor, recompute policies, logits,
 * calibrations). Expected values derived by hand in the comments. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixtures.h"
#include "model/fw.h"
#include "engine/mem.h"
#include "engine/roof.h"
#include "engine/train.h"

Test(fw, every_shipped_framework_loads)
{
	/* Every file of models/frameworks/ loads strictly, and its name is its file stem. */
	DIR *d = opendir("models/frameworks");
	struct dirent *de;
	int n = 0;
	cr_assert_not_null(d);
	while ((de = readdir(d))) {
		char path[512];
		fw_framework f;
		err e = {0};
		size_t l = strlen(de->d_name);
		if (l < 5 || strcmp(de->d_name + l - 4, ".ini") != 0)
			continue;
		snprintf(path, sizeof path, "models/frameworks/%s", de->d_name);
		cr_assert_eq(fw_load(path, &f, &e), 0, "%s: %s", path, e.msg);
		cr_assert(f.has_train || f.has_serve);
		/* A version of a stack (based_on) names the rows that ran it. */
		n += !f.based_on[0];
		cr_assert(!f.based_on[0] || f.source_groups[0], "%s: a version without source_groups", path);
	}
	closedir(d);
	/* DESIGN §7 names 18 stacks (11 training, 7 serving; generic serves both) for the
	 * validation rows; hai-llm is the DeepSeek-V3 workload's, which no row ran. */
	cr_assert_eq(n, 19);
}

Test(fw, attention_kernel_by_family)
{
	/* torchtitan runs SDPA's flash backend (the FlashAttention-2 class, kernel 2) but cuDNN
	 * (the flash class, kernel 1) on Blackwell. */
	fw_framework f;
	err e = {0};
	cr_assert_eq(fw_find("torchtitan", "models", &f, &e), 0, "%s", e.msg);
	cr_assert_eq(fw_attention_kernel(&f.train, "hopper"), 2);
	cr_assert_eq(fw_attention_kernel(&f.train, "blackwell"), 1);
	cr_assert_eq(fw_find("megatron-lm-2021", "models", &f, &e), 0);
	cr_assert_eq(fw_attention_kernel(&f.train, "ampere"), 0);
	cr_assert_neq(fw_find("no-such-stack", "models", &f, &e), 0);
	cr_assert(strstr(e.msg, "list frameworks") != NULL);
}

Test(fw, power_cap_scales_the_clock)
{
	/* grand-teton-h100: 500 W cap on a 700 W chip: (500/700)^(1/3) = 0.8939. */
	hw_system s;
	err e = {0};
	cr_assert_eq(hw_find_system("grand-teton-h100", "models", &s, &e), 0, "%s", e.msg);
	cr_assert_float_eq(s.chip.clock_scale, cbrt(500.0 / 700.0), 1e-12);
	cr_assert_eq(hw_find_system("dgx-h100", "models", &s, &e), 0);
	cr_assert_float_eq(s.chip.clock_scale, 1.0, 1e-12);
}

Test(fw, attention_class_and_key_length)
{
	/* A round chip (100 TFLOP/s, gemm 1) with a flash2 class at 0.5 forward, 0.25 backward,
	 * half reached at 1024 keys. 1 TFLOP forward at 3072 keys: eff 0.5 · 3072/4096 = 0.375,
	 * 1e12 / (100e12 · 0.375) = 26.67 ms; backward at 1024 keys: 0.25 · 0.5 = 0.125, 80 ms. */
	hw_chip c = fx_round_chip();
	ops_op o;
	memset(&o, 0, sizeof o);
	c.attn_k[HW_ATTN_FLASH2][0] = 0.5;
	c.attn_k[HW_ATTN_FLASH2][1] = 0.25;
	c.attn_seq_half[HW_ATTN_FLASH2] = 1024;
	o.kind = OPS_ATTN;
	o.attn = HW_ATTN_FLASH2;
	o.prec = HW_BF16;
	o.m = 3072;
	o.n = 3072;
	o.k = 128;
	o.batch = 1;
	o.flops = 1e12;
	cr_assert_float_eq(roof_op(&c, &o).t, 1e12 / (100e12 * 0.375), 1e-12);
	o.phase = OPS_BWD;
	o.n = 1024;
	o.m = 1024;
	cr_assert_float_eq(roof_op(&c, &o).t, 1e12 / (100e12 * 0.125), 1e-12);
}

Test(fw, elementwise_bandwidth_host_floor_and_training_share)
{
	/* 1 GB of an eager backward norm at 1 TB/s × 0.25 = 4 ms; fused forward at 0.8: 1.25 ms.
	 * A 10 us host floor lifts a 1 MB op (1.25 us) to 10 us. A training GEMM of 1 TFLOP at
	 * train_sustained 0.5 and clock 0.8: 1e12 / (100e12 · 0.4) = 25 ms; the same op outside
	 * training: 10 ms · 1/0.8 = 12.5 ms. */
	hw_chip c = fx_round_chip();
	ops_op o;
	memset(&o, 0, sizeof o);
	c.elem_eff[0][0] = 0.8;
	c.elem_eff[1][1] = 0.25;
	o.kind = OPS_NORM;
	o.bytes = 1e9;
	o.eager = 1;
	o.phase = OPS_BWD;
	cr_assert_float_eq(roof_op(&c, &o).t, 4e-3, 1e-12);
	o.eager = 0;
	o.phase = OPS_FWD;
	cr_assert_float_eq(roof_op(&c, &o).t, 1.25e-3, 1e-12);
	o.bytes = 1e6;
	o.host = 10e-6;
	cr_assert_float_eq(roof_op(&c, &o).t, 10e-6, 1e-15);
	cr_assert_eq(roof_op(&c, &o).bound, ROOF_OVERHEAD);
	memset(&o, 0, sizeof o);
	o.kind = OPS_GEMM;
	o.prec = HW_BF16;
	o.m = o.n = o.k = 8192;
	o.batch = 1;
	o.flops = 1e12;
	c.train_sustained = 0.5;
	c.clock_scale = 0.8;
	o.train = 1;
	cr_assert_float_eq(roof_op(&c, &o).t, 0.025, 1e-12);
	o.train = 0;
	cr_assert_float_eq(roof_op(&c, &o).t, 0.0125, 1e-12);
}

Test(fw, recompute_policies_keep_what_they_keep)
{
	/* A GPT layer (h 1024, a 16, d 64, k 16, f 4096, GELU), s 2048, b 2, tp 1, 16-bit.
	 * Per-op checkpointing keeps the input h, q (a·d = h), v (k·d = h), the FFN input f and
	 * the attention output h: 4h + f = 8192 elements, 2 bytes each, per token.
	 * The matmul policy keeps the input, the attention and FFN output projections (3h), q, k, v
	 * (3h), the FFN input f and the attention output h: 7h + f = 11264 elements per token.
	 * Offloading keeps none on the chip; logits in 16 bits halve the fp32 4 bytes. */
	nn_net n = fx_gpt(4, 1024, 16, 1000);
	wl_workload w = fx_train(n, 2048, 8, 2);
	plan p = {1, 1, 1, 4, 1, 1, 0, 2, 4};
	double tokens = 2048.0 * 2;
	mem_use m;
	w.recompute = WL_RC_SELECTIVE;
	w.fw.train.selective = FW_SEL_OPS;
	cr_assert_float_eq(mem_act_layer(&w, &p, 2), tokens * 2 * (4 * 1024 + 4096), 1e-3);
	w.fw.train.selective = FW_SEL_MATMULS;
	cr_assert_float_eq(mem_act_layer(&w, &p, 2), tokens * 2 * (7 * 1024 + 4096), 1e-3);
	w.fw.train.logits_bytes = 2;
	w.fw.train.offload_remat = 1;
	m = mem_train(&w, &p);
	cr_assert_float_eq(m.activations, tokens * 1000 * 2, 1e-3);
}

Test(fw, calibrations_load_and_apply_by_family)
{
	/* models/calibration.ini: every entry's value lies in its range, and applying one sets
	 * its parameter on chips of its family only. */
	hw_calibs cs;
	hw_chip h = fx_round_chip(), a = fx_round_chip();
	err e = {0};
	cr_assert_eq(hw_load_calibs("models", &cs, &e), 0, "%s", e.msg);
	cr_assert_gt(cs.n, 0);
	strcpy(h.family, "hopper");
	strcpy(a.family, "ampere");
	h.train_sustained = a.train_sustained = 1;
	for (int i = 0; i < cs.n; i++) {
		cr_assert(cs.c[i].lo <= cs.c[i].value && cs.c[i].value <= cs.c[i].hi);
		if (!strcmp(cs.c[i].family, "hopper") && cs.c[i].param == HW_CAL_TRAIN_SUSTAINED) {
			hw_calib_apply(&cs.c[i], 0.5, &h);
			hw_calib_apply(&cs.c[i], 0.5, &a);
		}
	}
	cr_assert_float_eq(h.train_sustained, 0.5, 1e-12);
	cr_assert_float_eq(a.train_sustained, 1.0, 1e-12);
}

Test(fw, serving_defaults_by_device)
{
	/* vLLM's token budget and running limit depend on the device: 8192 / 1024 on >= 70 GiB
	 * GPUs, 1024 tokens on TPU v6e, 2048 / 256 on A100 (vllm.ini, arg_utils); unknown families
	 * keep the file's default. */
	fw_framework f;
	err e = {0};
	cr_assert_eq(fw_find("vllm", "models", &f, &e), 0, "%s", e.msg);
	cr_assert_eq(f.serve.scheduler, FW_SCHED_INFLIGHT);
	cr_assert_eq(f.serve.kv_share, FW_KV_TOTAL);
	cr_assert_eq(f.serve.kv_alloc, FW_KV_CURRENT);
	cr_assert_eq(fw_by_family(f.serve.tokens_by_family, "tpu-v6e", f.serve.max_num_tokens), 1024);
	cr_assert_eq(fw_by_family(f.serve.tokens_by_family, "ampere", f.serve.max_num_tokens), 2048);
	cr_assert_eq(fw_by_family(f.serve.tokens_by_family, "hopper", f.serve.max_num_tokens), 8192);
	cr_assert_eq(fw_by_family(f.serve.seqs_by_family, "ampere", f.serve.max_num_seqs), 256);
	cr_assert_eq(fw_find("trt-llm", "models", &f, &e), 0, "%s", e.msg);
	cr_assert_eq(f.serve.kv_share, FW_KV_FREE);
	cr_assert_eq(f.serve.kv_alloc, FW_KV_COMPLETION);
	cr_assert_eq(f.serve.chunked_prefill, 0);
}

Test(fw, fsdp_under_a_pipeline_gathers_once_per_step)
{
	/* torchtitan with pp > 1 keeps a stage's parameters gathered over all micro-batches and
	 * reduce-scatters the accumulated gradients once (pp_keep_gathered). Same layout, 8
	 * micro-batches: per-micro-batch ZeRO-3 exposure goes to zero, and the step's data-parallel
	 * sync time before overlap is 1/8 of the gather-per-micro-batch schedule's gathers plus
	 * the reduce-scatters: L·(a + g) against m·L·(2a + g), so less than a fifth of it. Memory:
	 * the stage's P local parameters unsharded in 16 bits (2P) and their gradients
	 * accumulated in fp32 (4P), instead of 2P/dp and 2P/dp. */
	hw_system s = fx_round_system(8);
	nn_net n = fx_gpt(8, 2048, 16, 1000);
	wl_workload w = fx_train(n, 2048, 64, 1);
	plan p = {1, 2, 1, 8, 1, 1, 0, 1, 16};
	train_result a, b;
	mem_use m;
	w.zero = 3;
	w.fw.train.grad_reduce = FW_REDUCE_FP32;
	w.fw.train.overlap_param_gather = 0;
	train_eval(&s, &w, &p, &a, NULL);
	w.fw.train.pp_keep_gathered = 1;
	train_eval(&s, &w, &p, &b, NULL);
	cr_assert_gt(a.comm.zero3, 0);
	cr_assert_float_eq(b.comm.zero3, 0, 1e-15);
	cr_assert_lt(b.comm.dp_total, a.comm.dp_total / 5);
	cr_assert_lt(b.step_time, a.step_time);
	m = mem_train(&w, &p);
	cr_assert_float_eq(m.weights, 2 * m.params_local, 1e-3);
	cr_assert_float_eq(m.grads, 4 * m.params_local, 1e-3);
	w.fw.train.pp_keep_gathered = 0;
	m = mem_train(&w, &p);
	cr_assert_float_eq(m.weights, 2 * m.params_local / 8, 1e-3);
}

Test(fw, a_setting_is_checked_and_recorded)
{
	/* torchtitan leaves async TP off (overlap.tp = 0); a run's setting turns it on, through
	 * the file's checks (tp is a share in [0, 1]), and says where it came from. */
	fw_framework f;
	err e = {0};
	cr_assert_eq(fw_find("torchtitan", "models", &f, &e), 0, "%s", e.msg);
	cr_assert_float_eq(f.train.overlap_tp, 0, 1e-12);
	cr_assert_eq(fw_set(&f, "overlap.tp=1", "--set", &e), 0, "%s", e.msg);
	cr_assert_float_eq(f.train.overlap_tp, 1, 1e-12);
	cr_assert_eq(f.nset, 1);
	cr_assert_str_eq(f.set[0].key, "overlap.tp");
	cr_assert_str_eq(f.set[0].from, "--set");
	/* Set again: one entry, the latest value and origin. */
	cr_assert_eq(fw_set_list(&f, " overlap.tp = 0.5 ; host.mode=eager", "cases.csv:7: settings", &e), 0, "%s", e.msg);
	cr_assert_eq(f.nset, 2);
	cr_assert_float_eq(f.train.overlap_tp, 0.5, 1e-12);
	cr_assert_eq(f.train.host, FW_HOST_EAGER);
	cr_assert_str_eq(f.set[0].from, "cases.csv:7: settings");
	/* Out of range, unknown, a source, the other kind's section, an empty piece: errors, f kept. */
	cr_assert_neq(fw_set(&f, "overlap.tp=2", "--set", &e), 0);
	cr_assert_eq(e.code, ERR_USAGE);
	cr_assert_str_eq(e.msg, "--set overlap.tp: 2 is out of range [0, 1]");
	cr_assert_float_eq(f.train.overlap_tp, 0.5, 1e-12);
	cr_assert_neq(fw_set(&f, "overlap.tq=1", "x.csv:3: settings", &e), 0);
	cr_assert_eq(e.code, ERR_DATA);
	cr_assert(strstr(e.msg, "x.csv:3: settings: overlap.tq: unknown key") == e.msg, "%s", e.msg);
	cr_assert_neq(fw_set(&f, "overlap.source=x", "--set", &e), 0);
	cr_assert_neq(fw_set(&f, "serve.overlap=1", "--set", &e), 0);
	cr_assert(strstr(e.msg, "training stack") != NULL, "%s", e.msg);
	cr_assert_neq(fw_set_list(&f, "overlap.tp=1;;host.mode=eager", "--set", &e), 0);
	/* Only behaviour sections are settings. */
	cr_assert(fw_is_setting("overlap.tp=1"));
	cr_assert(fw_is_setting("serve.max_num_seqs=256"));
	cr_assert(!fw_is_setting("framework.name=x"));
	cr_assert(!fw_is_setting("train.zero=3"));
	cr_assert(!fw_is_setting("concurrency=1"));
	/* Setting the attention kernel drops the per-family list: the kernel asked for, everywhere. */
	cr_assert_eq(fw_set(&f, "attention.kernel=unfused", "--set", &e), 0, "%s", e.msg);
	cr_assert_eq(fw_attention_kernel(&f.train, "blackwell"), 0);
	cr_assert_eq(f.train.flash_attention, 0);
}

Test(fw, based_on_inherits_and_overrides)
{
	/* A version file gives only what it changes: nemo's keys stay, overlap.tp changes, and the
	 * section it gives has its own source. */
	char dir[] = "/tmp/roofcost-fw-XXXXXX", path[512], cmd[1200];
	fw_framework base, f;
	err e = {0};
	FILE *fp;
	cr_assert_not_null(mkdtemp(dir));
	snprintf(cmd, sizeof cmd, "cp models/frameworks/nemo.ini %s/", dir);
	cr_assert_eq(system(cmd), 0);
	snprintf(path, sizeof path, "%s/nemo-v.ini", dir);
	fp = fopen(path, "w");
	cr_assert_not_null(fp);
	fputs("[framework]\nname = nemo-v\ndisplay = v\nbased_on = nemo\nsource = s\nas_of = 2025\n\n"
	      "[overlap]\ntp = 1\nsource = o\nas_of = 2025-06\n", fp);
	fclose(fp);
	cr_assert_eq(fw_find("nemo", "models", &base, &e), 0, "%s", e.msg);
	cr_assert_eq(fw_load(path, &f, &e), 0, "%s", e.msg);
	cr_assert_str_eq(f.name, "nemo-v");
	cr_assert_eq(f.kind, base.kind);
	cr_assert_eq(f.nbases, 1);
	cr_assert(strstr(f.bases[0], "/nemo.ini") != NULL);
	cr_assert_float_eq(f.train.overlap_tp, 1, 1e-12);
	cr_assert_eq(f.train.overlap_dp_reduce, base.train.overlap_dp_reduce);
	cr_assert_eq(f.train.zero, base.train.zero);
	cr_assert_str_eq(f.train.src_overlap.source, "o");
	cr_assert_str_eq(f.train.src_overlap.note, "");
	cr_assert_str_eq(f.train.src_fp8.source, base.train.src_fp8.source);
	/* Without the section's source it is refused, at the section's line. */
	fp = fopen(path, "w");
	fputs("[framework]\nname = nemo-v\ndisplay = v\nbased_on = nemo\nsource = s\nas_of = 2025\n\n[overlap]\ntp = 1\n", fp);
	fclose(fp);
	cr_assert_neq(fw_load(path, &f, &e), 0);
	cr_assert(strstr(e.msg, "nemo-v.ini:8: source: missing in [overlap]") != NULL, "%s", e.msg);
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	cr_assert_eq(system(cmd), 0);
}

Test(fw, fp8_weights_cast_once_per_step)
{
	/* Llama 3 70B in fp8 on H200 with 32 micro-batches per step. torchao (weights micro) casts
	 * every weight in every micro-batch's forward and backward; Transformer Engine under
	 * Megatron (weights step) casts and transposes them once per step: the step's optimizer
	 * part grows by P x (cast_bytes + 1) B at the fused-kernel bandwidth, and each micro-batch
	 * loses its weight casts, so the step is faster. */
	static const char *const micro[] = {"precision=fp8", "framework=megatron-core", "fp8.weights=micro"};
	static const char *const step[] = {"precision=fp8", "framework=megatron-core", "fp8.weights=step"};
	wl_workload *w = malloc(sizeof *w), *v = malloc(sizeof *v);
	hw_system s;
	plan p;
	train_result a, b;
	err e = {0};
	cr_assert_eq(hw_find_system("hgx-h200", "models", &s, &e), 0, "%s", e.msg);
	cr_assert_eq(wl_load("llama3-70b-train", "workloads", "models", micro, 3, w, &e), 0, "%s", e.msg);
	cr_assert_eq(wl_load("llama3-70b-train", "workloads", "models", step, 3, v, &e), 0, "%s", e.msg);
	p = w->plan;
	plan_fill(&p);
	train_eval(&s, w, &p, &a, NULL);
	train_eval(&s, v, &p, &b, NULL);
	cr_assert_gt(a.micro_batches, 1);
	{
		double P = b.mem.params_local, bw = s.chip.hbm_bw * s.chip.elem_eff[0][0];
		double extra = P * (v->fw.train.fp8_cast_bytes + 1) / bw;
		cr_assert_float_eq(b.t_optimizer - a.t_optimizer, extra, extra * 1e-6);
	}
	cr_assert_lt(b.t_micro, a.t_micro);
	cr_assert_lt(b.step_time, a.step_time);
	free(w);
	free(v);
}

Test(fw, a_stack_share_per_chip_family)
{
	/* [calibration] train_sustained "family:share": what the stack holds of the family's
	 * calibrated rate; other families 1. */
	fw_framework f;
	err e = {0};
	cr_assert_eq(fw_find("maxtext", "models", &f, &e), 0, "%s", e.msg);
	cr_assert_gt(fw_sustain(&f.train, "tpu-v6e"), 0.5);
	cr_assert_float_eq(fw_sustain(&f.train, "hopper"), 1, 1e-12);
	cr_assert_float_eq(fw_sustain(&f.train, NULL), 1, 1e-12);
	cr_assert_eq(fw_sustain_set(&f.train, "hopper", 0.9), 0);
	cr_assert_float_eq(fw_sustain(&f.train, "hopper"), 0.9, 1e-12);
	/* nemo-mlperf is the version of nemo that the MLPerf Training rows ran. */
	cr_assert_eq(fw_find("nemo-mlperf", "models", &f, &e), 0, "%s", e.msg);
	cr_assert_str_eq(f.based_on, "nemo");
	cr_assert(strstr(f.source_groups, "mlperf-training-v5.0") != NULL);
	cr_assert_eq(f.train.fp8_weights, FW_FP8W_NATIVE);
}

Test(fw, a_version_gives_back_what_it_fitted)
{
	/* vllm-v0 fitted its host work (iter_overhead, seq_overhead) on its own rows ([serve]
	 * fitted): without them it holds vLLM's (none), and keeps what it sourced (256 sequences). A
	 * run's own setting of a fitted key is the run's, and stays. */
	fw_framework f, u;
	err e = {0};
	cr_assert_eq(fw_find("vllm-v0", "models", &f, &e), 0, "%s", e.msg);
	cr_assert_gt(f.serve.seq_overhead, 0);
	cr_assert_gt(f.serve.iter_overhead, 0);
	cr_assert_eq(fw_unfitted(&f, "models", &u, &e), 0, "%s", e.msg);
	cr_assert_eq(u.serve.seq_overhead, 0);
	cr_assert_eq(u.serve.iter_overhead, 0);
	cr_assert_eq(u.serve.max_num_seqs, 256);
	cr_assert_eq(fw_set(&f, "serve.seq_overhead=50us", "--set", &e), 0, "%s", e.msg);
	cr_assert_eq(fw_unfitted(&f, "models", &u, &e), 0, "%s", e.msg);
	cr_assert_float_eq(u.serve.seq_overhead, 50e-6, 1e-15);
	cr_assert_eq(u.serve.iter_overhead, 0);
	/* A stack that fitted nothing has nothing to give back. */
	cr_assert_eq(fw_find("vllm", "models", &f, &e), 0, "%s", e.msg);
	cr_assert_eq(fw_unfitted(&f, "models", &u, &e), 1);
}

Test(fw, a_version_fits_with_its_bases_calibration)
{
	/* nemo-mlperf-v5.1 gives no [calibration]: its shares are nemo-mlperf's, and a fit moves
	 * that one value with the rows of both; nemo-mlperf gives its own. */
	fw_framework f;
	err e = {0};
	cr_assert_eq(fw_find("nemo-mlperf-v5.1", "models", &f, &e), 0, "%s", e.msg);
	cr_assert_str_eq(f.train.sustain_from, "nemo-mlperf");
	cr_assert_eq(fw_find("nemo-mlperf", "models", &f, &e), 0, "%s", e.msg);
	cr_assert_str_eq(f.train.sustain_from, "nemo-mlperf");
	cr_assert_eq(fw_find("nemo", "models", &f, &e), 0, "%s", e.msg);
	cr_assert_str_eq(f.train.sustain_from, "nemo");
}
