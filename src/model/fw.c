/* fw: framework files (see fw.h). */
#include "model/fw.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cfg.h"
#include "base/names.h"

const char *const fw_kind_names[] = {"train", "serve", "both", NULL};
const char *const fw_host_names[] = {"eager", "compiled", "graphs", NULL};
const char *const fw_selective_names[] = {"attention", "ops", "matmuls", NULL};
const char *const fw_scheduler_names[] = {"inflight", "prefill_first", "static", NULL};
const char *const fw_kv_share_names[] = {"free", "total", "static", NULL};
const char *const fw_kv_alloc_names[] = {"completion", "current", NULL};
const char *const fw_preempt_names[] = {"none", "recompute", "swap", NULL};
const char *const fw_allreduce_names[] = {"custom", "library", NULL};
const char *const fw_recompute_names[] = {"none", "selective", "full", NULL};
static const char *const attn_kernels[] = {"unfused", "flash", "flash2", NULL};
static const char *const reduce_types[] = {"half", "fp32", "auto", NULL};
static const char *const flops_conv[] = {"full", "causal", NULL};
static const char *const elem_kinds[] = {"fused", "eager", NULL};
static const char *const micro_kinds[] = {"sequence", "stages", NULL};

#define OFF(m) offsetof(fw_framework, m)
#define STR(sec, key, m, req) {sec, key, CFG_STR, UNITS_NONE, req, 1, 0, OFF(m), sizeof(((fw_framework *)0)->m), NULL}
#define INT(sec, key, m, lo, hi) {sec, key, CFG_INT, UNITS_NONE, 1, lo, hi, OFF(m), 0, NULL}
#define NUM(sec, key, m, u, lo, hi) {sec, key, CFG_NUM, u, 1, lo, hi, OFF(m), 0, NULL}
#define OPT_NUM(sec, key, m, u, lo, hi) {sec, key, CFG_NUM, u, 0, lo, hi, OFF(m), 0, NULL}
#define OPT_INT(sec, key, m, lo, hi) {sec, key, CFG_INT, UNITS_NONE, 0, lo, hi, OFF(m), 0, NULL}
#define ENUM(sec, key, m, ch) {sec, key, CFG_ENUM, UNITS_NONE, 1, 1, 0, OFF(m), 0, ch}
#define OPT_ENUM(sec, key, m, ch) {sec, key, CFG_ENUM, UNITS_NONE, 0, 1, 0, OFF(m), 0, ch}
#define BOOL(sec, key, m) {sec, key, CFG_BOOL, UNITS_NONE, 1, 1, 0, OFF(m), 0, NULL}
#define OPT_BOOL(sec, key, m) {sec, key, CFG_BOOL, UNITS_NONE, 0, 1, 0, OFF(m), 0, NULL}
#define SRC(sec, m) STR(sec, "source", m.source, 1), \
	{sec, "as_of", CFG_DATE, UNITS_NONE, 1, 1, 0, OFF(m.as_of), sizeof(((fw_framework *)0)->m.as_of), NULL}, \
	STR(sec, "note", m.note, 0)

static const cfg_field fw_fields[] = {
	STR("framework", "name", name, 1),
	STR("framework", "display", display, 1),
	ENUM("framework", "kind", kind, fw_kind_names),
	SRC("framework", src),
	ENUM("attention", "kernel", train.attention_kernel, attn_kernels),
	BOOL("attention", "dropout", train.dropout),
	{"attention", "kernel_by_family", CFG_STR, UNITS_NONE, 0, 1, 0, OFF(train.kernel_by_family),
	 sizeof(((fw_framework *)0)->train.kernel_by_family), NULL},
	SRC("attention", train.src_attention),
	INT("sharding", "zero", train.zero, 0, 3),
	ENUM("sharding", "grad_reduce", train.grad_reduce, reduce_types),
	OPT_BOOL("sharding", "pp_keep_gathered", train.pp_keep_gathered),
	SRC("sharding", train.src_sharding),
	BOOL("parallel", "seq_parallel", train.seq_parallel),
	INT("parallel", "vpp", train.vpp, 1, 64),
	BOOL("parallel", "pp_scatter_gather", train.pp_scatter_gather),
	OPT_ENUM("parallel", "micro_batches", train.micro_batches, micro_kinds),
	SRC("parallel", train.src_parallel),
	BOOL("overlap", "dp_reduce", train.overlap_dp_reduce),
	BOOL("overlap", "param_gather", train.overlap_param_gather),
	NUM("overlap", "tp", train.overlap_tp, UNITS_NONE, 0, 1),
	BOOL("overlap", "pp", train.overlap_pp),
	BOOL("overlap", "ep", train.overlap_ep),
	SRC("overlap", train.src_overlap),
	ENUM("recompute", "default", train.recompute, fw_recompute_names),
	ENUM("recompute", "selective", train.selective, fw_selective_names),
	SRC("recompute", train.src_recompute),
	ENUM("flops", "attention", train.flops_causal, flops_conv),
	SRC("flops", train.src_flops),
	ENUM("host", "mode", train.host, fw_host_names),
	ENUM("host", "elementwise", train.eager_elementwise, elem_kinds),
	NUM("host", "kernel_overhead", train.kernel_overhead, UNITS_TIME, 0, 1e-3),
	SRC("host", train.src_host),
	NUM("fp8", "cast_bytes", train.fp8_cast_bytes, UNITS_NONE, 0, 64),
	SRC("fp8", train.src_fp8),
	NUM("memory", "logits_bytes", train.logits_bytes, UNITS_NONE, 1, 8),
	BOOL("memory", "offload_remat", train.offload_remat),
	SRC("memory", train.src_memory),
	ENUM("serve", "scheduler", serve.scheduler, fw_scheduler_names),
	BOOL("serve", "chunked_prefill", serve.chunked_prefill),
	INT("serve", "max_num_tokens", serve.max_num_tokens, 16, 10000000),
	INT("serve", "max_num_seqs", serve.max_num_seqs, 0, 10000000),
	INT("serve", "max_prefill_seqs", serve.max_prefill_seqs, 0, 10000000),
	ENUM("serve", "kv_share", serve.kv_share, fw_kv_share_names),
	NUM("serve", "kv_mem_fraction", serve.kv_mem_fraction, UNITS_NONE, 0.05, 1),
	OPT_NUM("serve", "reserve", serve.reserve, UNITS_BYTES, 0, 1e13),
	INT("serve", "kv_block", serve.kv_block, 0, 10000000),
	ENUM("serve", "kv_alloc", serve.kv_alloc, fw_kv_alloc_names),
	ENUM("serve", "preempt", serve.preempt, fw_preempt_names),
	BOOL("serve", "overlap", serve.overlap),
	NUM("serve", "iter_overhead", serve.iter_overhead, UNITS_TIME, 0, 1),
	ENUM("serve", "allreduce", serve.allreduce, fw_allreduce_names),
	OPT_NUM("serve", "allreduce_max", serve.allreduce_max, UNITS_BYTES, 0, 1e12),
	OPT_INT("serve", "pp_microbatches", serve.pp_microbatches, 0, 4096),
	{"serve", "max_num_tokens_by_family", CFG_STR, UNITS_NONE, 0, 1, 0, OFF(serve.tokens_by_family),
	 sizeof(((fw_framework *)0)->serve.tokens_by_family), NULL},
	{"serve", "max_num_seqs_by_family", CFG_STR, UNITS_NONE, 0, 1, 0, OFF(serve.seqs_by_family),
	 sizeof(((fw_framework *)0)->serve.seqs_by_family), NULL},
	SRC("serve", serve.src_serve),
	OPT_BOOL("deploy", "attention_dp", serve.attention_dp),
	OPT_BOOL("deploy", "disaggregated", serve.disagg),
	SRC("deploy", serve.src_deploy),
};

enum { NFIELDS = (int)(sizeof fw_fields / sizeof fw_fields[0]) };

static const char *const always[] = {"framework", NULL};
static const char *const train_sections[] = {"attention", "sharding", "parallel", "overlap",
					     "recompute", "flops", "host", "fp8", "memory", NULL};

static int line_of(const cfg_doc *d, const char *sec, const char *key)
{
	const cfg_entry *en = cfg_find(d, sec, key);
	return en ? en->line : 0;
}

/* The sections a kind needs are present, and the other kind's are absent. */
static int check_sections(const cfg_doc *d, const fw_framework *f, err *e)
{
	int train = f->kind != FW_KIND_SERVE, serve = f->kind != FW_KIND_TRAIN, line;
	for (int i = 0; train_sections[i]; i++) {
		int has = cfg_has_section(d, train_sections[i], &line);
		if (train && !has)
			return err_at(e, d->path, line_of(d, "framework", "kind"),
				      "kind: %s needs a [%s] section", fw_kind_names[f->kind], train_sections[i]);
		if (!train && has)
			return err_at(e, d->path, line, "section [%s] does not apply to kind serve",
				      train_sections[i]);
	}
	{
		int has = cfg_has_section(d, "serve", &line);
		if (serve && !has)
			return err_at(e, d->path, line_of(d, "framework", "kind"),
				      "kind: %s needs a [serve] section", fw_kind_names[f->kind]);
		if (!serve && has)
			return err_at(e, d->path, line, "section [serve] does not apply to kind train");
		if (!serve && cfg_has_section(d, "deploy", &line))
			return err_at(e, d->path, line, "section [deploy] does not apply to kind train");
	}
	return 0;
}

int fw_load(const char *path, fw_framework *out, err *e)
{
	cfg_doc d;
	fw_framework f;
	char stem[FW_NAME_MAX];
	int rc;
	memset(&f, 0, sizeof f);
	if (cfg_load(&d, path, e) != 0)
		return ERR_DATA;
	rc = cfg_extract(&d, fw_fields, NFIELDS, always, &f, e);
	if (rc == 0) {
		hw_file_stem(path, stem, sizeof stem);
		if (strcmp(stem, f.name) != 0)
			rc = err_at(e, path, line_of(&d, "framework", "name"),
				    "name: '%s' differs from the file name '%s'", f.name, stem);
	}
	if (rc == 0)
		rc = check_sections(&d, &f, e);
	if (rc == 0 && f.train.kernel_by_family[0]) {
		/* "family:kernel[,family:kernel]" with kernel one of the attention kernels. */
		char buf[HW_TEXT_MAX], *save = NULL;
		snprintf(buf, sizeof buf, "%s", f.train.kernel_by_family);
		for (char *tok = strtok_r(buf, ",", &save); tok && rc == 0; tok = strtok_r(NULL, ",", &save)) {
			char *colon = strchr(tok, ':');
			int ok = 0;
			while (*tok == ' ')
				tok++;
			if (colon) {
				for (int k = 0; attn_kernels[k]; k++)
					ok |= !strcmp(colon + 1, attn_kernels[k]);
			}
			if (!colon || colon == tok || !ok)
				rc = err_at(e, path, line_of(&d, "attention", "kernel_by_family"),
					    "kernel_by_family: '%s' is not FAMILY:KERNEL (kernel unfused, flash or flash2)", tok);
		}
	}
	for (int k = 0; k < 2 && rc == 0; k++) {
		/* "family:N[,family:N]", N a whole number >= 1. */
		const char *key = k ? "max_num_seqs_by_family" : "max_num_tokens_by_family";
		const char *list = k ? f.serve.seqs_by_family : f.serve.tokens_by_family;
		char buf[HW_TEXT_MAX], *save = NULL;
		snprintf(buf, sizeof buf, "%s", list);
		for (char *tok = strtok_r(buf, ",", &save); tok && rc == 0; tok = strtok_r(NULL, ",", &save)) {
			char *colon = strchr(tok, ':'), *end = NULL;
			long v = colon ? strtol(colon + 1, &end, 10) : 0;
			while (*tok == ' ')
				tok++;
			if (!colon || colon == tok || end == colon + 1 || *end || v < 1 || v > 10000000)
				rc = err_at(e, path, line_of(&d, "serve", key), "%s: '%s' is not FAMILY:N", key, tok);
		}
	}
	if (rc == 0) {
		f.train.flash_attention = f.train.attention_kernel > 0;
		f.has_train = f.kind != FW_KIND_SERVE;
		f.has_serve = f.kind != FW_KIND_TRAIN;
		snprintf(f.path, sizeof f.path, "%s", path);
		*out = f;
	}
	cfg_release(&d);
	return rc;
}

const char *fw_shown_path(const char *path)
{
	const char *m = strstr(path, "/models/");
	return m ? m + 1 : path;
}

int fw_attention_kernel(const fw_train *t, const char *family)
{
	size_t fl = strlen(family);
	for (const char *p = t->kernel_by_family; p && *p;) {
		const char *q = strchr(p, ',');
		const char *c = strchr(p, ':');
		while (*p == ' ')
			p++;
		if (c && (!q || c < q) && (size_t)(c - p) == fl && !strncmp(p, family, fl)) {
			size_t kl = q ? (size_t)(q - c - 1) : strlen(c + 1);
			for (int k = 0; attn_kernels[k]; k++)
				if (strlen(attn_kernels[k]) == kl && !strncmp(c + 1, attn_kernels[k], kl))
					return k;
		}
		p = q ? q + 1 : NULL;
	}
	return t->attention_kernel;
}

int fw_by_family(const char *list, const char *family, int dflt)
{
	size_t fl = strlen(family);
	for (const char *p = list; p && *p;) {
		const char *q = strchr(p, ',');
		const char *c;
		while (*p == ' ')
			p++;
		c = strchr(p, ':');
		if (c && (!q || c < q) && (size_t)(c - p) == fl && !strncmp(p, family, fl))
			return atoi(c + 1);
		p = q ? q + 1 : NULL;
	}
	return dflt;
}

int fw_find(const char *name_or_path, const char *models_dir, fw_framework *out, err *e)
{
	char path[HW_TEXT_MAX];
	size_t n = strlen(name_or_path);
	if (strchr(name_or_path, '/') || (n > 4 && strcmp(name_or_path + n - 4, ".ini") == 0)) {
		snprintf(path, sizeof path, "%s", name_or_path);
	} else {
		char dir[HW_TEXT_MAX], stem[HW_NAME_MAX * 2];
		snprintf(dir, sizeof dir, "%s/frameworks", models_dir);
		if (names_find(dir, name_or_path, "framework", stem, sizeof stem, e) != 0)
			return ERR_DATA;
		snprintf(path, sizeof path, "%s/%s.ini", dir, stem);
	}
	return fw_load(path, out, e);
}
