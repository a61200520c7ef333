/* hw: the shipped chip and system files against the vendors' documents, and every shipped
 * model file loads. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/hw.h"
#include "engine/infer.h"
#include "model/nn.h"
#include "engine/train.h"
#include "model/wl.h"

Test(hw, trainium2_follows_aws_docs)
{
	/* AWS Neuron docs (trainium2.rst): 8 NeuronCore-v3, 667 BF16 / 1,299 FP8 dense TFLOPS,
	 * 96 GiB HBM at 2.9 TB/s - not the 1,300 "BF16" TFLOPS and 2 cores of marketing texts. */
	hw_chip c;
	err e = {0};
	cr_assert_eq(hw_load_chip("models/hw/chips/trainium2.ini", &c, &e), 0, "%s", e.msg);
	cr_assert_eq(c.units, 8);
	cr_assert_float_eq(c.peak[HW_BF16], 667e12, 1e6);
	cr_assert_float_eq(c.peak[HW_FP8], 1299e12, 1e6);
	cr_assert_float_eq(c.hbm, 96.0 * 1073741824.0, 1);
	cr_assert_float_eq(c.hbm_bw, 2.9e12, 1e3);
	cr_assert_eq(c.peak[HW_INT8], 0, "no INT8 TensorE rate is published");
	cr_assert(strlen(c.src_peak.source) > 10);
	cr_assert(strlen(c.src_peak.as_of) >= 4);
}

Test(hw, trn2_instance_is_a_4x4_torus_of_16)
{
	hw_system s;
	err e = {0};
	cr_assert_eq(hw_find_system("trn2.48xlarge", "models", &s, &e), 0, "%s", e.msg);
	cr_assert_eq(hw_node_chips(&s), 16);
	cr_assert_eq(s.levels[0].topo, HW_TOPO_TORUS2D);
	cr_assert_eq(s.levels[0].dims[0] * s.levels[0].dims[1], 16);
	/* 1,024 GB/s intra-instance NeuronLink per chip, bidirectional: 512 GB/s each way. */
	cr_assert_float_eq(s.levels[0].bw, 512e9, 1e3);
	cr_assert_geq(hw_max_chips(&s), 100000, "UltraClusters of 100,000+ chips");
}

Test(hw, ultraserver_has_a_64_chip_domain)
{
	hw_system s;
	err e = {0};
	cr_assert_eq(hw_find_system("trn2-ultraserver", "models", &s, &e), 0, "%s", e.msg);
	cr_assert_eq(s.nlevels, 3);
	cr_assert_eq(s.levels[1].kind, HW_LEVEL_DOMAIN);
	cr_assert_eq(s.levels[1].chips, 64);
}

Test(hw, trainium3_follows_aws_docs)
{
	/* AWS Neuron docs (trainium3.rst, neuron-core-v4.rst): 8 NeuronCore-v4, 2,517 MXFP8/MXFP4
	 * and 671 BF16 dense TFLOPS, 144 GiB HBM at 4.9 TB/s, 256 MiB SBUF (8 x 32 MiB). */
	hw_chip c;
	err e = {0};
	cr_assert_eq(hw_load_chip("models/hw/chips/trainium3.ini", &c, &e), 0, "%s", e.msg);
	cr_assert_eq(c.units, 8);
	cr_assert_float_eq(c.peak[HW_BF16], 671e12, 1e6);
	cr_assert_float_eq(c.peak[HW_FP8], 2517e12, 1e6);
	cr_assert_float_eq(c.peak[HW_FP4], 2517e12, 1e6, "MXFP4 runs at the MXFP8 rate");
	cr_assert_float_eq(c.hbm, 144.0 * 1073741824.0, 1);
	cr_assert_float_eq(c.hbm_bw, 4.9e12, 1e3);
	cr_assert_float_eq(c.sram, 256.0 * 1048576.0, 1);
	cr_assert(!c.announced, "Trn3 UltraServers ship");
}

Test(hw, trn3_ultraservers_have_their_documented_hierarchy)
{
	/* trn3-arch.rst: Gen1 = 4 servers x 16 chips (64), Gen2 = 36 servers x 4 chips (144) behind
	 * a first-level switch per server and second-level switches across servers; EFA 12,800 and
	 * 28,800 Gbps per UltraServer = 200 Gbps (25 GB/s) per chip in both. */
	static const struct { const char *name; int node, domain; } want[] = {
		{"trn3-ultraserver-gen1", 16, 64}, {"trn3-ultraserver", 4, 144}};
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
		hw_system s;
		err e = {0};
		cr_assert_eq(hw_find_system(want[i].name, "models", &s, &e), 0, "%s", e.msg);
		cr_assert_eq(s.nlevels, 3);
		cr_assert_eq(s.levels[0].chips, want[i].node);
		cr_assert_eq(s.levels[0].topo, HW_TOPO_SWITCH);
		cr_assert_eq(s.levels[1].kind, HW_LEVEL_DOMAIN);
		cr_assert_eq(s.levels[1].chips, want[i].domain);
		cr_assert_eq(s.levels[1].topo, HW_TOPO_SWITCH);
		cr_assert_float_eq(s.levels[2].bw, 25e9, 1);
		cr_assert(strlen(s.no_public_price) > 10, "Trn3 has no public hourly price");
		cr_assert_str_eq(s.instance, "");
	}
}

Test(hw, precision_fallback)
{
	hw_chip c;
	err e = {0};
	cr_assert_eq(hw_load_chip("models/hw/chips/a100-80gb.ini", &c, &e), 0, "%s", e.msg);
	/* The A100 has no fp8: fp8 and fp4 workloads run at the bf16 rate. */
	cr_assert_eq(hw_run_prec(&c, HW_FP8), HW_BF16);
	cr_assert_eq(hw_run_prec(&c, HW_FP4), HW_BF16);
	cr_assert_eq(hw_run_prec(&c, HW_BF16), HW_BF16);
	cr_assert_eq(hw_load_chip("models/hw/chips/h100-sxm.ini", &c, &e), 0, "%s", e.msg);
	cr_assert_eq(hw_run_prec(&c, HW_FP4), HW_FP8);
}

Test(hw, every_precision_falls_back_to_the_nearest_wider_rate)
{
	/* TPU v5p publishes bf16, fp8 and int8 only: an fp16 workload runs at bf16 (it ran at
	 * peak 0, "MFU 0.0 %" and 700 model TFLOP/s per chip); fp32 has nothing wider and no rate,
	 * so none, with a note naming the chip. A chip with fp16 and no bf16 runs bf16 at fp16. */
	hw_chip c;
	err e = {0};
	char note[256];
	cr_assert_eq(hw_load_chip("models/hw/chips/tpu-v5p.ini", &c, &e), 0, "%s", e.msg);
	cr_assert_eq(hw_run_prec(&c, HW_FP16), HW_BF16);
	cr_assert_eq(hw_run_prec(&c, HW_BF16), HW_BF16);
	cr_assert_eq(hw_run_prec(&c, HW_FP4), HW_FP8);
	cr_assert_eq(hw_run_prec(&c, HW_FP32), HW_PREC_N);
	cr_assert_eq(hw_run_prec(&c, HW_TF32), HW_PREC_N);
	cr_assert_eq(hw_prec_note(&c, HW_FP16, note, sizeof note), 1);
	cr_assert(strstr(note, "tpu-v5p") && strstr(note, "fp16") && strstr(note, "bf16"), "%s", note);
	cr_assert_eq(hw_prec_note(&c, HW_FP32, note, sizeof note), 1);
	cr_assert(strstr(note, "tpu-v5p") && strstr(note, "nor a wider one"), "%s", note);
	cr_assert_eq(hw_prec_note(&c, HW_BF16, note, sizeof note), 0);
	cr_assert_str_eq(note, "");
	c.peak[HW_FP16] = c.peak[HW_BF16];
	c.peak[HW_BF16] = 0;
	cr_assert_eq(hw_run_prec(&c, HW_BF16), HW_FP16);
	cr_assert_eq(hw_run_prec(&c, HW_FP8), HW_FP8);
	c.peak[HW_FP8] = 0;
	cr_assert_eq(hw_run_prec(&c, HW_FP8), HW_FP16);
	cr_assert_eq(hw_run_prec(&c, HW_INT8), HW_INT8);
	c.peak[HW_INT8] = 0;
	cr_assert_eq(hw_run_prec(&c, HW_INT8), HW_FP16, "int8 goes to a 16-bit float, not to fp8");
	c.peak[HW_FP32] = 1e12;
	cr_assert_eq(hw_run_prec(&c, HW_TF32), HW_FP32);
	cr_assert_eq(hw_widest_prec(&c), HW_FP32);
}

Test(hw, a_chip_without_a_16_or_32_bit_rate_is_a_load_error_naming_it)
{
	/* No precision can fall back to fp8 alone: the file is refused, and the message names the
	 * file, the line and the chip. */
	char dir[] = "/tmp/roofcost-hw-XXXXXX", path[64];
	FILE *f;
	hw_chip c;
	err e = {0};
	cr_assert_not_null(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/fp8only.ini", dir);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs("[chip]\nname = fp8only\ndisplay = x\nvendor = x\nstatus = ga\nunits = 1\ntile_m = 128\ntile_n = 128\n"
	      "pad_m = 16\npad_n = 8\npad_k = 16\nsource = x\nas_of = 2025-01\n\n[peak]\nfp8 = 100 TFLOP/s\n"
	      "source = x\nas_of = 2025-01\n\n[memory]\nhbm = 80 GB\nhbm_bw = 3 TB/s\nsource = x\nas_of = 2025-01\n\n"
	      "[efficiency]\ngemm = 0.8\nhbm = 0.8\nop_overhead = 4 us\nsource = x\nas_of = 2025-01\n", f);
	fclose(f);
	cr_assert_neq(hw_load_chip(path, &c, &e), 0);
	unlink(path);
	rmdir(dir);
	cr_assert(strstr(e.msg, "fp8only") && strstr(e.msg, "peak"), "%s", e.msg);
}

Test(hw, unknown_system_is_a_clear_error)
{
	hw_system s;
	err e = {0};
	cr_assert_neq(hw_find_system("no-such-box", "models", &s, &e), 0);
	cr_assert(strstr(e.msg, "unknown system 'no-such-box'"), "%s", e.msg);
}

/* Every shipped file loads with the strict loaders, so none can rot. */
static int each_ini(const char *dir, int (*load)(const char *path, err *e))
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;
	cr_assert(d, "cannot open %s", dir);
	while ((de = readdir(d))) {
		char path[512];
		err e = {0};
		size_t l = strlen(de->d_name);
		if (l < 5 || strcmp(de->d_name + l - 4, ".ini"))
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
		cr_expect_eq(load(path, &e), 0, "%s: %s", path, e.msg);
		n++;
	}
	closedir(d);
	return n;
}

static hw_system sys_buf;
static nn_net net_buf;
static wl_workload wl_buf;
static int load_chip(const char *p, err *e) { return hw_load_chip(p, &sys_buf.chip, e); }
static int load_sys(const char *p, err *e) { return hw_load_system(p, "models", &sys_buf, e); }
static int load_net(const char *p, err *e) { return nn_load(p, &net_buf, e); }
static int load_wl(const char *p, err *e) { return wl_load(p, "workloads", "models", NULL, 0, &wl_buf, e); }

Test(hw, every_shipped_file_loads)
{
	cr_assert_geq(each_ini("models/hw/chips", load_chip), 20);
	cr_assert_geq(each_ini("models/hw/systems", load_sys), 28);
	cr_assert_geq(each_ini("models/nn", load_net), 19);
	cr_assert_geq(each_ini("workloads", load_wl), 10);
}

Test(hw, every_design_system_exists)
{
	/* DESIGN.md §7: system names the validation cases use. */
	static const char *const names[] = {
		"dgx-a100-80g", "dgx-h100", "p4d.24xlarge", "p5.48xlarge", "p5e.48xlarge",
		"p5en.48xlarge", "hgx-h200", "hgx-b200", "p6-b200.48xlarge", "gb200-nvl72",
		"mi300x-8", "mi325x-8", "trn1.32xlarge", "trn1n.32xlarge", "inf2.48xlarge",
		"trn2.48xlarge", "trn2-ultraserver", "tpu-v4", "tpu-v5e", "tpu-v5p", "tpu-v6e"};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		err e = {0};
		cr_expect_eq(hw_find_system(names[i], "models", &sys_buf, &e), 0, "%s: %s", names[i], e.msg);
	}
}

/* Issue 12: torus dims overflowed int (100000x100000x100000 = 10^15 chips). */
Test(hw, torus_dims_beyond_the_range_are_refused)
{
	char dir[64], path[128], text[4096];
	FILE *in, *out;
	size_t n;
	hw_system s;
	err e = {0};
	strcpy(dir, "/tmp/roofcost-hw-XXXXXX");
	cr_assert(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/trn2.48xlarge.ini", dir);
	in = fopen("models/hw/systems/trn2.48xlarge.ini", "r");
	cr_assert(in);
	n = fread(text, 1, sizeof text - 1, in);
	fclose(in);
	text[n] = '\0';
	cr_assert(strstr(text, "dims = 4x4"), "the shipped file changed");
	out = fopen(path, "w");
	fwrite(text, 1, (size_t)(strstr(text, "dims = 4x4") - text), out);
	fputs("dims = 100000x100000x100000", out);
	fputs(strstr(text, "dims = 4x4") + strlen("dims = 4x4"), out);
	fclose(out);
	cr_assert_neq(hw_load_system(path, "models", &s, &e), 0);
	cr_assert(strstr(e.msg, "dims: '100000x100000x100000' is not like 4x4 or 16x16x16 (at most 100000000 chips)"),
		  "%s", e.msg);
	unlink(path);
	rmdir(dir);
}

Test(hw, decode_curves_load)
{
	/* h100-sxm [decode]: gemm_fp8 five points from M 1 to 4096, each on the GEMM it was measured
	 * on (43008x5376 to M 128, 2112x7168 at 4096), paged attention 0.88 / 8 us, measured on
	 * itself; h200 names h100-sxm as the chip its points ran on and takes that chip's rates; a
	 * chip without the section keeps the best-shape path (n = 0). */
	hw_chip c;
	err e = {0};
	cr_assert_eq(hw_load_chip("models/hw/chips/h100-sxm.ini", &c, &e), 0, "%s", e.msg);
	cr_assert_eq(c.decode_gemm[HW_FP8].n, 5);
	cr_assert(c.decode_gemm[HW_FP8].shaped);
	cr_assert_float_eq(c.decode_gemm[HW_FP8].x[3], 128, 1e-12);
	cr_assert_float_eq(c.decode_gemm[HW_FP8].eff[3], 0.327, 1e-12);
	cr_assert_float_eq(c.decode_gemm[HW_FP8].gn[3], 43008, 1e-12);
	cr_assert_float_eq(c.decode_gemm[HW_FP8].gk[3], 5376, 1e-12);
	cr_assert_float_eq(c.decode_gemm[HW_FP8].x[4], 4096, 1e-12);
	cr_assert_float_eq(c.decode_gemm[HW_FP8].eff[4], 0.549, 1e-12);
	cr_assert_float_eq(c.decode_gemm[HW_FP8].gn[4], 2112, 1e-12);
	cr_assert_float_eq(c.decode_gemm[HW_FP8].gk[4], 7168, 1e-12);
	cr_assert_float_eq(c.decode_attn_bw, 0.88, 1e-12);
	cr_assert_float_eq(c.decode_attn_floor, 8e-6, 1e-15);
	cr_assert_str_empty(c.decode_on);
	cr_assert_eq(hw_load_chip("models/hw/chips/h200.ini", &c, &e), 0, "%s", e.msg);
	cr_assert_str_eq(c.decode_on, "h100-sxm");
	cr_assert_float_eq(c.decode_rates.hbm_bw, 3.35e12, 1e3);
	cr_assert_float_eq(c.decode_rates.hbm_eff, 0.69, 1e-12);
	cr_assert_float_eq(c.decode_rates.peak[HW_FP8], 1979e12, 1e3);
	cr_assert_float_eq(c.decode_rates.gemm_eff[HW_FP8], 0.709, 1e-12);
	cr_assert_float_eq(c.hbm_bw, 4.8e12, 1e3);
	cr_assert_eq(hw_load_chip("models/hw/chips/trainium2.ini", &c, &e), 0, "%s", e.msg);
	cr_assert_eq(c.decode_gemm[HW_BF16].n, 0);
}

/* A copy of the shipped h100-sxm.ini in dir as NAME.ini, its [decode] lines from gemm_bf16 to
 * measured_on or attn_bw replaced by decode (a chip named NAME). */
static void write_h100_variant(const char *dir, const char *name, const char *decode)
{
	char path[128], text[32768], *a, *b, *nm;
	FILE *in, *out;
	size_t n;
	in = fopen("models/hw/chips/h100-sxm.ini", "r");
	cr_assert(in);
	n = fread(text, 1, sizeof text - 1, in);
	fclose(in);
	text[n] = '\0';
	a = strstr(text, "gemm_bf16 = ");
	b = strstr(text, "attn_bw = 0.88");
	nm = strstr(text, "name = h100-sxm\n");
	cr_assert(a && b && nm && nm < a, "the shipped file changed");
	snprintf(path, sizeof path, "%s/%s.ini", dir, name);
	out = fopen(path, "w");
	cr_assert(out);
	fwrite(text, 1, (size_t)(nm - text), out);
	fprintf(out, "name = %s\n", name);
	nm += strlen("name = h100-sxm\n");
	fwrite(nm, 1, (size_t)(a - nm), out);
	fputs(decode, out);
	fputs(b, out);
	fclose(out);
}

Test(hw, decode_curve_shapes_and_measured_on_are_strict)
{
	/* Each bad [decode] is refused with the file, the line of its key and what is wrong. */
	static const struct {
		const char *decode, *msg;
	} bad[] = {
		{"gemm_fp8 = 1:0.003@43008x5376, 128:0.33\n", "gemm_fp8: point 2: every point names the GEMM"},
		{"gemm_fp8 = 1:0.003, 128:0.33@43008x5376\n", "gemm_fp8: point 2: every point names the GEMM"},
		{"gemm_fp8 = 1:0.003@43008\n", "gemm_fp8: point 1: the shape after '@' must be NxK"},
		{"gemm_fp8 = 1:0.003@0x5376\n", "gemm_fp8: point 1: the shape after '@' must be NxK"},
		{"gemm_fp8 = 1:0.003@8x8y\n", "gemm_fp8: point 1: the shape after '@' must be NxK"},
		{"gemm_fp8 = 1:0.003\nmeasured_on = nosuchchip\n", "measured_on: "},
		{"gemm_fp8 = 1:0.003\nmeasured_on = ../h100-sxm\n", "measured_on: '../h100-sxm' is not a chip name"},
		{"gemm_fp8 = 1:0.003\nmeasured_on = other\n", "measured_on: chip other has another tile set"},
		{"gemm_fp4 = 1:0.003\nmeasured_on = peer\n", "measured_on: chip peer has no fp4 peak for gemm_fp4"},
		{"measured_on = peer\n", "measured_on: [decode] gives no gemm_<precision> curve"},
	};
	char dir[] = "/tmp/roofcost-hw-XXXXXX", path[128];
	hw_chip c;
	err e = {0};
	cr_assert_not_null(mkdtemp(dir));
	/* peer: h100-sxm's tile set; other: another one. */
	write_h100_variant(dir, "peer", "gemm_fp8 = 1:0.003\n");
	write_h100_variant(dir, "other", "gemm_fp8 = 1:0.003\n");
	snprintf(path, sizeof path, "%s/other.ini", dir);
	{
		char text[32768], *u;
		FILE *f = fopen(path, "r");
		size_t n = fread(text, 1, sizeof text - 1, f);
		fclose(f);
		text[n] = '\0';
		u = strstr(text, "units = 132");
		cr_assert(u);
		memcpy(u, "units = 133", 11);
		f = fopen(path, "w");
		fputs(text, f);
		fclose(f);
	}
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		write_h100_variant(dir, "bad", bad[i].decode);
		snprintf(path, sizeof path, "%s/bad.ini", dir);
		memset(&e, 0, sizeof e);
		cr_assert_neq(hw_load_chip(path, &c, &e), 0, "case %zu loaded", i);
		cr_assert(strstr(e.msg, bad[i].msg) && strstr(e.msg, "bad.ini:"), "case %zu: %s", i, e.msg);
	}
	/* A good one: measured on peer, whose rates it keeps. */
	write_h100_variant(dir, "good", "gemm_fp8 = 1:0.003@43008x5376, 128:0.33@43008x5376\nmeasured_on = peer\n");
	snprintf(path, sizeof path, "%s/good.ini", dir);
	cr_assert_eq(hw_load_chip(path, &c, &e), 0, "%s", e.msg);
	cr_assert_str_eq(c.decode_on, "peer");
	cr_assert_float_eq(c.decode_rates.hbm_bw, 3.35e12, 1e3);
	cr_assert(c.decode_gemm[HW_FP8].shaped);
	const char *names[] = {"peer", "other", "bad", "good"};
	for (size_t i = 0; i < 4; i++) {
		snprintf(path, sizeof path, "%s/%s.ini", dir, names[i]);
		unlink(path);
	}
	rmdir(dir);
}

/* 1 if name is one of the systems added for December 2026 (issue 14), which must be feasible. */
static int is_new_system(const char *name)
{
	static const char *const names[] = {"trn3-ultraserver-gen1", "trn3-ultraserver", "hgx-b300",
					    "p6-b300.48xlarge", "gb300-nvl72", "mi355x-8", "tpu7x"};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (!strcmp(name, names[i]))
			return 1;
	return 0;
}

static wl_workload serve_buf, train_buf;
static infer_result ir_buf;
static train_result tr_buf;
static char tr_why[TRAIN_REASON_MAX];

Test(hw, every_shipped_system_evaluates)
{
	/* Every system file serves Llama 3 70B at its workload layout and trains Llama 3 405B at
	 * its layout (tp 8, pp 16) on 16,384 chips, or on the largest power-of-two number of replicas
	 * the system can join when it is smaller (tpu7x: 9216 chips -> 64 x 128 = 8192). Each gives a result with
	 * a status; the December 2026 systems must be feasible for both. */
	DIR *d = opendir("models/hw/systems");
	struct dirent *de;
	err e = {0};
	int n = 0, fresh = 0;
	cr_assert(d);
	cr_assert_eq(wl_load("llama3-70b-serve", "workloads", "models", NULL, 0, &serve_buf, &e), 0, "%s", e.msg);
	cr_assert_eq(wl_load("llama3-405b-train", "workloads", "models", NULL, 0, &train_buf, &e), 0, "%s", e.msg);
	while ((de = readdir(d))) {
		char path[512];
		size_t l = strlen(de->d_name);
		plan p;
		int inner, max;
		if (l < 5 || strcmp(de->d_name + l - 4, ".ini"))
			continue;
		snprintf(path, sizeof path, "models/hw/systems/%s", de->d_name);
		cr_assert_eq(hw_load_system(path, "models", &sys_buf, &e), 0, "%s: %s", path, e.msg);
		p = serve_buf.plan;
		plan_fill(&p);
		infer_eval(&sys_buf, &serve_buf, &p, &ir_buf, NULL, NULL);
		p = train_buf.plan;
		inner = p.tp * p.pp * (p.cp ? p.cp : 1);
		max = hw_max_chips(&sys_buf);
		p.dp = 16384 / inner;
		while (max > 0 && p.dp > 1 && p.dp * inner > max)
			p.dp /= 2; /* whole replicas that still divide the 2048-sequence batch */
		p.chips = p.dp * inner;
		plan_fill(&p);
		train_eval(&sys_buf, &train_buf, &p, &tr_buf, NULL);
		train_reason(&tr_buf, &sys_buf, &train_buf, tr_why, sizeof tr_why);
		if (is_new_system(sys_buf.name)) {
			cr_expect(ir_buf.feasible, "%s: llama3-70b-serve: %s", sys_buf.name, ir_buf.reason);
			cr_expect(p.chips >= 8192 && tr_buf.feasible, "%s: llama3-405b-train on %d chips: %s",
				  sys_buf.name, p.chips, tr_why);
			cr_expect(tr_buf.mfu > 0.1 && tr_buf.mfu < 0.8, "%s: mfu %.3f", sys_buf.name, tr_buf.mfu);
			fresh++;
		} else {
			cr_expect(ir_buf.feasible || ir_buf.reason[0], "%s: an infeasible result names why", sys_buf.name);
			cr_expect(tr_buf.feasible || tr_why[0], "%s: an infeasible result names why", sys_buf.name);
		}
		n++;
	}
	closedir(d);
	cr_assert_geq(n, 28);
	cr_assert_eq(fresh, 7);
}
