/* fw: framework files (see fw.h). */
#include "model/fw.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
const char *const fw_fp8_weights_names[] = {"micro", "step", "native", NULL};
const char *const fw_router_names[] = {"random", "round_robin", NULL};
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
	STR("framework", "based_on", based_on, 0),
	STR("framework", "source_groups", source_groups, 0),
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
	OPT_NUM("overlap", "bucket", train.dp_bucket, UNITS_COUNT, 0, 1e13),
	OPT_INT("overlap", "dp_ctas", train.dp_ctas, 0, 1024),
	BOOL("overlap", "pp", train.overlap_pp),
	BOOL("overlap", "ep", train.overlap_ep),
	OPT_INT("overlap", "ep_sms", train.ep_sms, 0, 100000),
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
	OPT_ENUM("fp8", "weights", train.fp8_weights, fw_fp8_weights_names),
	OPT_BOOL("fp8", "dispatch", train.fp8_dispatch),
	SRC("fp8", train.src_fp8),
	NUM("memory", "logits_bytes", train.logits_bytes, UNITS_NONE, 1, 8),
	BOOL("memory", "offload_remat", train.offload_remat),
	SRC("memory", train.src_memory),
	{"calibration", "train_sustained", CFG_STR, UNITS_NONE, 1, 1, 0, OFF(train.sustain_list),
	 sizeof(((fw_framework *)0)->train.sustain_list), NULL},
	SRC("calibration", train.src_calibration),
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
	OPT_NUM("serve", "seq_overhead", serve.seq_overhead, UNITS_TIME, 0, 0.01),
	OPT_NUM("serve", "batch_window", serve.batch_window, UNITS_TIME, 0, 60),
	OPT_INT("serve", "batch_window_max", serve.batch_window_max, 0, 10000000),
	OPT_NUM("serve", "gemm_share", serve.gemm_share, UNITS_NONE, 0.05, 2),
	ENUM("serve", "allreduce", serve.allreduce, fw_allreduce_names),
	OPT_NUM("serve", "allreduce_max", serve.allreduce_max, UNITS_BYTES, 0, 1e12),
	OPT_INT("serve", "pp_microbatches", serve.pp_microbatches, 0, 4096),
	{"serve", "max_num_tokens_by_family", CFG_STR, UNITS_NONE, 0, 1, 0, OFF(serve.tokens_by_family),
	 sizeof(((fw_framework *)0)->serve.tokens_by_family), NULL},
	{"serve", "max_num_seqs_by_family", CFG_STR, UNITS_NONE, 0, 1, 0, OFF(serve.seqs_by_family),
	 sizeof(((fw_framework *)0)->serve.seqs_by_family), NULL},
	{"serve", "fitted", CFG_STR, UNITS_NONE, 0, 1, 0, OFF(serve.fitted), sizeof(((fw_framework *)0)->serve.fitted), NULL},
	SRC("serve", serve.src_serve),
	OPT_BOOL("deploy", "attention_dp", serve.attention_dp),
	OPT_BOOL("deploy", "disaggregated", serve.disagg),
	OPT_ENUM("deploy", "router", serve.router, fw_router_names),
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

/* The sections a kind needs are present (unless the file inherits them: based), and the other
 * kind's are absent. */
static int check_sections(const cfg_doc *d, const fw_framework *f, int based, err *e)
{
	int train = f->kind != FW_KIND_SERVE, serve = f->kind != FW_KIND_TRAIN, line;
	for (int i = 0; train_sections[i]; i++) {
		int has = cfg_has_section(d, train_sections[i], &line);
		if (train && !has && !based)
			return err_at(e, d->path, line_of(d, "framework", "kind"),
				      "kind: %s needs a [%s] section", fw_kind_names[f->kind], train_sections[i]);
		if (!train && has)
			return err_at(e, d->path, line, "section [%s] does not apply to kind serve",
				      train_sections[i]);
	}
	{
		int has = cfg_has_section(d, "serve", &line);
		if (serve && !has && !based)
			return err_at(e, d->path, line_of(d, "framework", "kind"),
				      "kind: %s needs a [serve] section", fw_kind_names[f->kind]);
		if (!serve && has)
			return err_at(e, d->path, line, "section [serve] does not apply to kind train");
		if (!serve && cfg_has_section(d, "deploy", &line))
			return err_at(e, d->path, line, "section [deploy] does not apply to kind train");
	}
	return 0;
}

/* The "family:kernel" and "family:N" lists of f are well formed. Returns 0, or -1 with the key
 * in *key and the reason in why. */
static int check_lists(const fw_framework *f, const char **key, char *why, size_t n)
{
	if (f->train.kernel_by_family[0]) {
		/* "family:kernel[,family:kernel]" with kernel one of the attention kernels. */
		char buf[HW_TEXT_MAX], *save = NULL;
		snprintf(buf, sizeof buf, "%s", f->train.kernel_by_family);
		for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
			char *colon = strchr(tok, ':');
			int ok = 0;
			while (*tok == ' ')
				tok++;
			if (colon) {
				for (int k = 0; attn_kernels[k]; k++)
					ok |= !strcmp(colon + 1, attn_kernels[k]);
			}
			if (!colon || colon == tok || !ok) {
				*key = "kernel_by_family";
				snprintf(why, n, "'%s' is not FAMILY:KERNEL (kernel unfused, flash or flash2)", tok);
				return -1;
			}
		}
	}
	for (int k = 0; k < 2; k++) {
		/* "family:N[,family:N]", N a whole number >= 1. */
		const char *name = k ? "max_num_seqs_by_family" : "max_num_tokens_by_family";
		const char *list = k ? f->serve.seqs_by_family : f->serve.tokens_by_family;
		char buf[HW_TEXT_MAX], *save = NULL;
		snprintf(buf, sizeof buf, "%s", list);
		for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
			char *colon = strchr(tok, ':'), *end = NULL;
			long v = colon ? strtol(colon + 1, &end, 10) : 0;
			while (*tok == ' ')
				tok++;
			if (!colon || colon == tok || end == colon + 1 || *end || v < 1 || v > 10000000) {
				*key = name;
				snprintf(why, n, "'%s' is not FAMILY:N", tok);
				return -1;
			}
		}
	}
	return 0;
}

/* [calibration] train_sustained "family:share,..." into the parsed arrays of t. */
static int parse_sustain(fw_train *t, char *why, size_t n)
{
	char buf[HW_TEXT_MAX], *save = NULL;
	t->nsustain = 0;
	snprintf(buf, sizeof buf, "%s", t->sustain_list);
	for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *colon, *end = NULL;
		double v;
		while (*tok == ' ')
			tok++;
		colon = strchr(tok, ':');
		v = colon ? strtod(colon + 1, &end) : 0;
		while (end && *end == ' ')
			end++;
		if (!colon || colon == tok || (size_t)(colon - tok) >= HW_NAME_MAX || end == colon + 1 || (end && *end) ||
		    !(v >= 0.2 && v <= 3)) {
			snprintf(why, n, "'%s' is not FAMILY:SHARE (a share from 0.2 to 3)", tok);
			return -1;
		}
		if (t->nsustain == FW_SUSTAIN_MAX) {
			snprintf(why, n, "more than %d families", FW_SUSTAIN_MAX);
			return -1;
		}
		snprintf(t->sustain_family[t->nsustain], HW_NAME_MAX, "%.*s", (int)(colon - tok), tok);
		t->sustain[t->nsustain++] = v;
	}
	return 0;
}

/* fw_sustain of a stack that lists families. */
double fw_sustain_listed(const fw_train *t, const char *family)
{
	for (int i = 0; family && i < t->nsustain; i++)
		if (!strcmp(t->sustain_family[i], family))
			return t->sustain[i];
	return 1;
}

int fw_sustain_set(fw_train *t, const char *family, double v)
{
	int i;
	for (i = 0; i < t->nsustain && strcmp(t->sustain_family[i], family) != 0; i++)
		;
	if (i == FW_SUSTAIN_MAX)
		return -1;
	if (i == t->nsustain) {
		snprintf(t->sustain_family[i], HW_NAME_MAX, "%s", family);
		t->nsustain++;
	}
	t->sustain[i] = v;
	return 0;
}

static const char *section_of(const char *key)
{
	for (int i = 0; i < NFIELDS; i++)
		if (!strcmp(fw_fields[i].key, key) && strcmp(fw_fields[i].section, "framework") != 0)
			return fw_fields[i].section;
	return "framework";
}

/* 1 if path names a readable file (not opened: a named pipe would wait for a writer; cfg_load
 * refuses one). */
static int readable(const char *path)
{
	return access(path, R_OK) == 0;
}

/* The file a based_on value names: a path from the child's folder, else NAME.ini beside it,
 * else models_dir/frameworks/NAME.ini (models_dir may be NULL). */
static void base_path(const char *child, const char *value, const char *models_dir, char *out, size_t n)
{
	size_t vl = strlen(value);
	if (strchr(value, '/') || (vl > 4 && !strcmp(value + vl - 4, ".ini"))) {
		names_relative(child, value, out, n);
		return;
	}
	{
		const char *slash = strrchr(child, '/');
		int dl = slash ? (int)(slash - child) : 0;
		snprintf(out, n, "%.*s%s%s.ini", dl, child, slash ? "/" : "", value);
	}
	if (!readable(out) && models_dir)
		snprintf(out, n, "%s/frameworks/%s.ini", models_dir, value);
}

static void trimmed(const char *s, size_t len, char *out, size_t n);

/* The [serve] field of key (a number, whole number or choice a version may fit), or NULL. */
static const cfg_field *fittable(const char *key)
{
	for (int i = 0; i < NFIELDS; i++)
		if (!strcmp(fw_fields[i].section, "serve") && !strcmp(fw_fields[i].key, key))
			return fw_fields[i].type == CFG_NUM || fw_fields[i].type == CFG_INT || fw_fields[i].type == CFG_ENUM ||
					       fw_fields[i].type == CFG_BOOL
				       ? &fw_fields[i]
				       : NULL;
	return NULL;
}

/* The first empty item of a comma list (1-based), or 0 if none is. */
static int empty_item(const char *list)
{
	const char *p = list;
	for (int item = 1;; item++) {
		const char *q = strchr(p, ',');
		size_t l = q ? (size_t)(q - p) : strlen(p);
		while (l > 0 && (*p == ' ' || *p == '\t')) {
			p++;
			l--;
		}
		if (l == 0)
			return item;
		if (!q)
			return 0;
		p = q + 1;
	}
}

/* Each item of the comma list names a fittable [serve] key that the file d itself gives (a
 * value it fitted, not one it inherits). Returns 0, or -1 with why. */
static int check_fitted(const cfg_doc *d, const char *list, char *why, size_t n)
{
	const char *p = list;
	int empty = empty_item(list);
	if (empty) {
		snprintf(why, n, "item %d is empty: give KEY, KEY, ... of [serve]", empty);
		return -1;
	}
	for (;;) {
		const char *q = strchr(p, ',');
		size_t l = q ? (size_t)(q - p) : strlen(p);
		char key[FW_KEY_MAX];
		trimmed(p, l, key, sizeof key);
		if (!fittable(key)) {
			snprintf(why, n, "'%s' is not a number or choice of [serve]", key);
			return -1;
		}
		if (!cfg_find(d, "serve", key)) {
			snprintf(why, n, "'%s' is not given in this file's [serve]: a fitted value is the version's own", key);
			return -1;
		}
		if (!q)
			return 0;
		p = q + 1;
	}
}

/* A file of a based_on chain, from the one asked for down to this one: a base that is one of
 * them (the same file by another name or path too) makes a loop. */
typedef struct fw_chain {
	const struct fw_chain *up;
	dev_t dev;
	ino_t ino;
	int known;            /* stat succeeded */
	char stem[FW_NAME_MAX];
} fw_chain;

/* 1 if bpath is a file of the chain at c; then why holds the loop, "a -> b -> a". */
static int chain_loop(const fw_chain *c, const char *bpath, char *why, size_t n)
{
	struct stat st;
	const fw_chain *at[FW_BASES_MAX + 2], *hit = NULL;
	int k = 0;
	size_t l = 0;
	if (stat(bpath, &st) != 0)
		return 0;
	for (const fw_chain *q = c; q && !hit; q = q->up)
		if (q->known && q->dev == st.st_dev && q->ino == st.st_ino)
			hit = q;
	if (!hit)
		return 0;
	for (const fw_chain *q = c; q && k < FW_BASES_MAX + 2; q = q->up)
		at[k++] = q;
	why[0] = '\0';
	for (int i = k - 1; i >= 0; i--)
		l += (size_t)snprintf(why + (l < n ? l : n), l < n ? n - l : 0, "%s -> ", at[i]->stem);
	snprintf(why + (l < n ? l : n), l < n ? n - l : 0, "%s", hit->stem);
	return 1;
}

static int load_file(const char *path, const char *models_dir, int depth, const fw_chain *up, fw_framework *out,
		     err *e)
{
	fw_chain self;
	cfg_doc d;
	fw_framework *f = calloc(1, sizeof *f);
	const cfg_entry *based;
	char stem[FW_NAME_MAX];
	int rc = 0;
	if (!f)
		return err_set(e, ERR_DATA, "out of memory");
	if (cfg_load(&d, path, e) != 0) {
		free(f);
		return ERR_DATA;
	}
	hw_file_stem(path, stem, sizeof stem);
	{
		struct stat st;
		self.up = up;
		self.known = stat(path, &st) == 0;
		self.dev = self.known ? st.st_dev : 0;
		self.ino = self.known ? st.st_ino : 0;
		snprintf(self.stem, sizeof self.stem, "%s", stem);
	}
	based = cfg_find(&d, "framework", "based_on");
	if (based) {
		/* The stack this file changes first; then only the keys given here over it. Each
		 * section given keeps its own source (its note is this file's, or none). */
		cfg_field *child = NULL;
		char bpath[HW_TEXT_MAX];
		fw_kind kind;
		char loop[ERR_MSG_MAX / 2];
		if (!based->value[0])
			rc = err_at(e, path, based->line, "based_on: empty value");
		else if (!strcmp(based->value, stem))
			rc = err_at(e, path, based->line, "based_on: '%s' is this file", based->value);
		if (rc == 0) {
			base_path(path, based->value, models_dir, bpath, sizeof bpath);
			if (!readable(bpath))
				rc = err_at(e, path, based->line, "based_on: no framework file '%s' (beside it or in "
					    "'roofcost list frameworks')", based->value);
			else if (chain_loop(&self, bpath, loop, sizeof loop))
				rc = err_at(e, path, based->line, "based_on: '%s' makes a loop: %s", based->value, loop);
			else if (depth + 1 > FW_BASES_MAX)
				rc = err_at(e, path, based->line, "based_on: more than %d files deep", FW_BASES_MAX);
		}
		if (rc == 0 && (rc = load_file(bpath, models_dir, depth + 1, &self, f, e)) != 0) {
			char inner[ERR_MSG_MAX];
			snprintf(inner, sizeof inner, "%s", e ? e->msg : "");
			rc = err_at(e, path, based->line, "based_on: %s", inner);
		}
		if (rc == 0 && !(child = malloc(sizeof fw_fields)))
			rc = err_set(e, ERR_DATA, "out of memory");
		if (rc == 0) {
			kind = f->kind;
			memcpy(child, fw_fields, sizeof fw_fields);
			for (int i = 0; i < NFIELDS; i++) {
				int src = !strcmp(child[i].key, "source") || !strcmp(child[i].key, "as_of");
				int head = !strcmp(child[i].section, "framework") &&
					   (!strcmp(child[i].key, "name") || !strcmp(child[i].key, "display"));
				child[i].required = src || head;
			}
			for (int s = 0; s < d.nsections; s++)
				for (int i = 0; i < NFIELDS; i++)
					if (!strcmp(fw_fields[i].section, d.sections[s].name) && !strcmp(fw_fields[i].key, "source"))
						memset((char *)f + fw_fields[i].offset, 0, sizeof(hw_sourced));
			memmove(f->bases + 1, f->bases, sizeof f->bases[0] * (FW_BASES_MAX - 1));
			snprintf(f->bases[0], sizeof f->bases[0], "%s", bpath);
			f->nbases = f->nbases + 1 < FW_BASES_MAX ? f->nbases + 1 : FW_BASES_MAX;
			f->based_on[0] = '\0';
			f->source_groups[0] = '\0';
			f->serve.fitted[0] = '\0';
			rc = cfg_extract(&d, child, NFIELDS, always, f, e);
			if (rc == 0 && f->kind != kind)
				rc = err_at(e, path, line_of(&d, "framework", "kind"), "kind: %s differs from %s's %s",
					    fw_kind_names[f->kind], based->value, fw_kind_names[kind]);
		}
		free(child);
	} else {
		rc = cfg_extract(&d, fw_fields, NFIELDS, always, f, e);
	}
	if (rc == 0 && strcmp(stem, f->name) != 0)
		rc = err_at(e, path, line_of(&d, "framework", "name"), "name: '%s' differs from the file name '%s'",
			    f->name, stem);
	if (rc == 0)
		rc = check_sections(&d, f, based != NULL, e);
	if (rc == 0) {
		const char *key;
		char why[256];
		if (check_lists(f, &key, why, sizeof why) != 0)
			rc = err_at(e, path, line_of(&d, section_of(key), key), "%s: %s", key, why);
	}
	if (rc == 0 && f->source_groups[0] && !f->based_on[0])
		rc = err_at(e, path, line_of(&d, "framework", "source_groups"),
			    "source_groups: names the rows that ran a version of a stack: needs based_on");
	if (rc == 0 && f->source_groups[0] && empty_item(f->source_groups))
		rc = err_at(e, path, line_of(&d, "framework", "source_groups"),
			    "source_groups: item %d is empty: give GROUP, GROUP, ... (validation rows' source_group)",
			    empty_item(f->source_groups));
	if (rc == 0 && f->serve.fitted[0]) {
		char why[256];
		if (!f->source_groups[0])
			rc = err_at(e, path, line_of(&d, "serve", "fitted"),
				    "fitted: names keys fitted on a version's own rows: needs based_on and source_groups");
		else if (check_fitted(&d, f->serve.fitted, why, sizeof why) != 0)
			rc = err_at(e, path, line_of(&d, "serve", "fitted"), "fitted: %s", why);
	}
	if (rc == 0 && f->serve.batch_window_max > 0 && !(f->serve.batch_window > 0)) {
		int line = line_of(&d, "serve", "batch_window_max");
		if (line)
			rc = err_at(e, path, line, "batch_window_max: %d requests close a batch_window early: needs batch_window > 0",
				    f->serve.batch_window_max);
		else
			rc = err_at(e, path, line_of(&d, "serve", "batch_window"),
				    "batch_window: 0 leaves the batch_window_max %d it inherits nothing to close: set "
				    "batch_window_max = 0 too", f->serve.batch_window_max);
	}
	if (rc == 0 && cfg_has_section(&d, "calibration", NULL) && f->kind == FW_KIND_SERVE)
		rc = err_at(e, path, line_of(&d, "calibration", "train_sustained"),
			    "section [calibration] (train_sustained) does not apply to kind serve");
	if (rc == 0) {
		char why[256];
		if (parse_sustain(&f->train, why, sizeof why) != 0)
			rc = err_at(e, path, line_of(&d, "calibration", "train_sustained"), "train_sustained: %s", why);
	}
	if (rc == 0 && (!based || cfg_has_section(&d, "calibration", NULL))) {
		snprintf(f->train.sustain_from, sizeof f->train.sustain_from, "%s", f->name);
		snprintf(f->train.sustain_path, sizeof f->train.sustain_path, "%s", path);
	}
	if (rc == 0) {
		f->train.flash_attention = f->train.attention_kernel > 0;
		f->has_train = f->kind != FW_KIND_SERVE;
		f->has_serve = f->kind != FW_KIND_TRAIN;
		snprintf(f->path, sizeof f->path, "%s", path);
		*out = *f;
	}
	free(f);
	cfg_release(&d);
	return rc;
}

int fw_load(const char *path, fw_framework *out, err *e)
{
	return load_file(path, NULL, 0, NULL, out, e);
}

/* The behaviour sections a run may set keys of. */
static int setting_section(const char *sec, size_t n)
{
	for (int i = 0; train_sections[i]; i++)
		if (strlen(train_sections[i]) == n && !strncmp(train_sections[i], sec, n))
			return 1;
	return n == 5 && !strncmp(sec, "serve", 5);
}

int fw_is_setting(const char *assign)
{
	const char *eq = strchr(assign, '='), *dot = strchr(assign, '.');
	while (*assign == ' ')
		assign++;
	return eq && dot && dot < eq && setting_section(assign, (size_t)(dot - assign));
}

static int set_err(err *e, const char *from, const char *key, const char *why)
{
	if (!strcmp(from, "--set"))
		return err_set(e, ERR_USAGE, "--set %s: %s", key, why);
	return err_set(e, ERR_DATA, "%s: %s: %s", from, key, why);
}

/* s without the white space around it, into out. */
static void trimmed(const char *s, size_t len, char *out, size_t n)
{
	while (len > 0 && (*s == ' ' || *s == '\t')) {
		s++;
		len--;
	}
	while (len > 0 && (s[len - 1] == ' ' || s[len - 1] == '\t'))
		len--;
	snprintf(out, n, "%.*s", (int)(len < n ? len : n - 1), s);
}

int fw_set(fw_framework *f, const char *assign, const char *from, err *e)
{
	const char *eq = strchr(assign, '=');
	char key[FW_KEY_MAX], value[FW_VALUE_MAX], why[256];
	const char *dot;
	const cfg_field *hit = NULL;
	fw_framework *t;
	int slot;
	if (!eq)
		return set_err(e, from, assign, "expected SECTION.KEY=VALUE");
	trimmed(assign, (size_t)(eq - assign), key, sizeof key);
	trimmed(eq + 1, strlen(eq + 1), value, sizeof value);
	dot = strchr(key, '.');
	if (!dot || !setting_section(key, (size_t)(dot - key)))
		return set_err(e, from, key, "not a framework key: SECTION.KEY with SECTION one of attention, sharding, "
			       "parallel, overlap, recompute, flops, host, fp8, memory, serve");
	for (int i = 0; i < NFIELDS && !hit; i++)
		if (strlen(fw_fields[i].section) == (size_t)(dot - key) && !strncmp(fw_fields[i].section, key, (size_t)(dot - key)) &&
		    !strcmp(fw_fields[i].key, dot + 1))
			hit = &fw_fields[i];
	if (!hit || !strcmp(hit->key, "source") || !strcmp(hit->key, "as_of") || !strcmp(hit->key, "note") ||
	    !strcmp(hit->key, "fitted"))
		return set_err(e, from, key,
			       !hit ? "unknown key (models/README.md lists them)"
			       : !strcmp(hit->key, "fitted") ? "what the file fitted on its rows, not a run's"
							     : "a source is the file's, not a run's");
	if (!strcmp(hit->section, "serve") ? !f->has_serve : !f->has_train) {
		snprintf(why, sizeof why, "%s is a %s stack: [%s] does not apply", f->name,
			 f->has_train ? "training" : "serving", hit->section);
		return set_err(e, from, key, why);
	}
	if (!value[0] && hit->type != CFG_STR)
		return set_err(e, from, key, "empty value");
	t = malloc(sizeof *t);
	if (!t)
		return err_set(e, ERR_DATA, "out of memory");
	*t = *f;
	if (cfg_parse_value(hit, value, t, why, sizeof why) != 0) {
		free(t);
		return set_err(e, from, key, why);
	}
	if (!strcmp(key, "attention.kernel"))
		t->train.kernel_by_family[0] = '\0';   /* the kernel asked for, on every chip */
	{
		const char *lk;
		if (check_lists(t, &lk, why, sizeof why) != 0) {
			free(t);
			return set_err(e, from, key, why);
		}
	}
	t->train.flash_attention = t->train.attention_kernel > 0;
	for (slot = 0; slot < t->nset && strcmp(t->set[slot].key, key) != 0; slot++)
		;
	if (slot == FW_SET_MAX) {
		free(t);
		snprintf(why, sizeof why, "more than %d framework keys set", FW_SET_MAX);
		return set_err(e, from, key, why);
	}
	snprintf(t->set[slot].key, sizeof t->set[slot].key, "%s", key);
	snprintf(t->set[slot].value, sizeof t->set[slot].value, "%s", value);
	snprintf(t->set[slot].from, sizeof t->set[slot].from, "%s", from);
	if (slot == t->nset)
		t->nset++;
	*f = *t;
	free(t);
	return 0;
}

int fw_set_list(fw_framework *f, const char *list, const char *from, err *e)
{
	const char *p = list;
	while (*p) {
		const char *q = strchr(p, ';');
		size_t l = q ? (size_t)(q - p) : strlen(p);
		char one[FW_KEY_MAX + FW_VALUE_MAX + 2];
		trimmed(p, l, one, sizeof one);
		if (!one[0])
			return set_err(e, from, list, "an empty assignment between ';'");
		if (fw_set(f, one, from, e) != 0)
			return e ? (int)e->code : ERR_DATA;
		if (!q)
			break;
		p = q + 1;
	}
	return 0;
}

const char *fw_shown_path(const char *path)
{
	const char *m = strstr(path, "/models/");
	return m ? m + 1 : path;
}

/* fw_attention_kernel of a stack that names kernels per family. */
int fw_attention_kernel_by_family(const fw_train *t, const char *family)
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
	return load_file(path, models_dir, 0, NULL, out, e);
}

int fw_unfitted(const fw_framework *f, const char *models_dir, fw_framework *out, err *e)
{
	char buf[HW_TEXT_MAX], *save = NULL;
	fw_framework *base;
	if (!f->serve.fitted[0] || f->nbases < 1)
		return 1;
	if (!(base = malloc(sizeof *base)))
		return err_set(e, ERR_DATA, "out of memory");
	if (fw_find(f->bases[0], models_dir, base, e) != 0) {
		free(base);
		return ERR_DATA;
	}
	*out = *f;
	snprintf(buf, sizeof buf, "%s", f->serve.fitted);
	for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char key[FW_KEY_MAX];
		const cfg_field *c;
		int set = 0;
		trimmed(tok, strlen(tok), key, sizeof key);
		c = fittable(key);
		/* A key the run sets over the file is the run's, not a fitted value. */
		for (int j = 0; j < f->nset && !set; j++)
			set = !strncmp(f->set[j].key, "serve.", 6) && !strcmp(f->set[j].key + 6, key);
		if (c && !set)
			memcpy((char *)out + c->offset, (const char *)base + c->offset, c->type == CFG_NUM ? sizeof(double) : sizeof(int));
	}
	free(base);
	return 0;
}
