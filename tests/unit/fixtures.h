/* Test fixtures: hand-made chips and systems whose numbers make hand derivation easy. */
#ifndef ROOFCOST_TEST_FIXTURES_H
#define ROOFCOST_TEST_FIXTURES_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/hw.h"
#include "model/nn.h"
#include "model/wl.h"

/* A chip with round numbers: 100 TFLOP/s bf16, 1 TB/s, 100 GB, efficiencies 1, no padding,
 * one engine with huge tiles (no wave loss), no per-kernel overhead. */
static inline hw_chip fx_round_chip(void)
{
	hw_chip c;
	memset(&c, 0, sizeof c);
	strcpy(c.name, "round");
	c.units = 1;
	c.tile_m = c.tile_n = 1 << 30;
	c.pad_m = c.pad_n = c.pad_k = 1;
	c.peak[HW_BF16] = c.peak[HW_FP16] = 100e12;
	c.peak[HW_FP32] = 25e12;
	c.hbm = 100e9;
	c.hbm_bw = 1e12;
	for (int p = 0; p < HW_PREC_N; p++)
		c.gemm_eff[p] = 1.0;
	c.hbm_eff = 1.0;
	return c;
}

static inline hw_system fx_round_system(int node_chips)
{
	hw_system s;
	memset(&s, 0, sizeof s);
	strcpy(s.name, "round-sys");
	s.chip = fx_round_chip();
	s.nlevels = 2;
	s.levels[0].kind = HW_LEVEL_NODE;
	s.levels[0].chips = node_chips;
	s.levels[0].topo = HW_TOPO_SWITCH;
	s.levels[0].bw = 100e9;
	s.levels[0].latency = 1e-6;
	s.levels[1].kind = HW_LEVEL_SCALEOUT;
	s.levels[1].chips = 1 << 20;
	s.levels[1].topo = HW_TOPO_FATTREE;
	s.levels[1].bw = 10e9;
	s.levels[1].latency = 10e-6;
	for (int l = 0; l < 2; l++) {
		s.levels[l].bw_eff = s.levels[l].inr_eff = 1;
		s.levels[l].oversubscription = 1;
	}
	hw_load_algos("models/hw/collectives.ini", &s.algos, NULL);
	return s;
}

/* A GPT-style network: a·d = h, k = a, f = 4h, GELU, tied embeddings. */
static inline nn_net fx_gpt(int layers, int hidden, int heads, int vocab)
{
	nn_net n;
	memset(&n, 0, sizeof n);
	strcpy(n.name, "gpt-fixture");
	n.layers = layers;
	n.hidden = hidden;
	n.heads = n.kv_heads = heads;
	n.head_dim = n.v_head_dim = hidden / heads;
	n.ffn = 4 * hidden;
	n.act = NN_GELU;
	n.vocab = vocab;
	n.tied_embeddings = 1;
	n.pos = NN_LEARNED;
	n.max_context = 1 << 20;
	return n;
}

static inline wl_workload fx_train(nn_net n, int seq, int gbs, int mbs)
{
	wl_workload w;
	memset(&w, 0, sizeof w);
	strcpy(w.name, "fixture-train");
	w.mode = WL_TRAIN;
	w.prec = HW_BF16;
	w.kv_prec = HW_BF16;
	w.seq_len = seq;
	w.global_batch = gbs;
	w.micro_batch = mbs;
	w.tokens = 1e9;
	w.optimizer = WL_ADAM;
	w.recompute = WL_RC_NONE;
	w.flash_attention = 1;
	w.net = n;
	return w;
}

static inline wl_workload fx_infer(nn_net n, int in, int out, int conc)
{
	wl_workload w;
	memset(&w, 0, sizeof w);
	strcpy(w.name, "fixture-infer");
	w.mode = WL_INFER;
	w.prec = HW_BF16;
	w.kv_prec = HW_BF16;
	w.input_len = in;
	w.output_len = out;
	w.concurrency = conc;
	w.scenario = WL_SINGLE;
	w.flash_attention = 1;
	w.net = n;
	/* A serving stack with whole numbers: in-flight batching of whole prompts within 8192
	 * tokens, the KV cache all of the memory left (blocks of one token, taken for the prompt
	 * and the whole output at admission), no host work. */
	w.fw.has_serve = 1;
	w.fw.serve.scheduler = w.scheduler = FW_SCHED_INFLIGHT;
	w.fw.serve.max_num_tokens = w.max_num_tokens = 8192;
	w.fw.serve.kv_share = FW_KV_FREE;
	w.fw.serve.kv_mem_fraction = w.kv_mem_fraction = 1;
	w.fw.serve.kv_block = 1;
	w.fw.serve.kv_alloc = FW_KV_COMPLETION;
	w.slo_percentile = 99;
	return w;
}

/* A shipped system and workload (with n overrides) and the workload's own layout, filled as
 * eval fills it. Returns 0, or nonzero with e set. */
static inline int fx_shipped(const char *sys, const char *wl, const char *const *sets, int n, hw_system *s,
			     wl_workload *w, plan *p, err *e)
{
	if (hw_find_system(sys, "models", s, e) != 0 || wl_load(wl, "workloads", "models", sets, n, w, e) != 0)
		return 1;
	*p = w->plan;
	wl_plan_defaults(w, p);
	plan_fill(p);
	return 0;
}

/* The bytes of a file as a string (caller frees), NULL if it cannot be read. */
static inline char *fx_slurp(const char *path)
{
	FILE *fp = fopen(path, "rb");
	char *buf = NULL;
	long n;
	if (!fp)
		return NULL;
	if (fseek(fp, 0, SEEK_END) == 0 && (n = ftell(fp)) >= 0 && fseek(fp, 0, SEEK_SET) == 0 &&
	    (buf = calloc(1, (size_t)n + 1)) && fread(buf, 1, (size_t)n, fp) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	fclose(fp);
	return buf;
}

#endif
