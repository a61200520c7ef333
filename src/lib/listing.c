/* listing: what a data root holds, as tables (see listing.h). */
#include "lib/listing.h"

#include <cJSON.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/text.h"
#include "model/hf.h"
#include "model/hw.h"
#include "model/nn.h"
#include "model/price.h"
#include "model/wl.h"
#include "model/fw.h"
#include "store/db.h"

static void gbps(char *b, size_t n, double v)
{
	snprintf(b, n, "%.4g", v / 1e9);
}

/* Loads every system file of models/hw/systems in name order and calls fn on each; stops at
 * the first file that does not load. Returns 0, or 1 with e set. */
static int each_system(const home_paths *p, void (*fn)(const hw_system *s, void *ctx), void *ctx, err *e)
{
	char dir[HOME_PATH_MAX + 32], **names;
	int n, rc = 0;
	hw_system *s = malloc(sizeof *s);
	snprintf(dir, sizeof dir, "%s/hw/systems", p->models);
	n = home_ini_stems(dir, &names, e);
	if (n < 0 || !s) {
		free(s);
		return 1;
	}
	for (int i = 0; i < n && rc == 0; i++) {
		char path[HOME_PATH_MAX + 64];
		snprintf(path, sizeof path, "%s/%s.ini", dir, names[i]);
		if (hw_load_system(path, p->models, s, e) != 0)
			rc = 1;
		else
			fn(s, ctx);
	}
	home_free_names(names, n);
	free(s);
	return rc;
}

/* each_system: one row of `list systems`. */
static void system_row(const hw_system *s, void *ctx)
{
	char nc[16], dc[16] = "-", mc[16], bw[3][16] = {"-", "-", "-"}, hier[160] = "";
	snprintf(nc, sizeof nc, "%d", hw_node_chips(s));
	snprintf(mc, sizeof mc, "%d", hw_max_chips(s));
	for (int k = 0; k < s->nlevels; k++) {
		const hw_level *lv = &s->levels[k];
		size_t l = strlen(hier);
		gbps(bw[lv->kind], 16, lv->bw);
		if (lv->kind == HW_LEVEL_DOMAIN)
			snprintf(dc, sizeof dc, "%d", lv->chips);
		/* "16 torus2d 4x4 > 64 ring 4 > 100000 fattree": chips and topology per level. */
		l += (size_t)snprintf(hier + l, sizeof hier - l, "%s%d %s", k ? " > " : "", lv->chips,
				      hw_topo_names[lv->topo]);
		for (int d = 0; d < 3 && lv->dims[d] && l < sizeof hier; d++)
			l += (size_t)snprintf(hier + l, sizeof hier - l, "%s%d", d ? "x" : " ", lv->dims[d]);
	}
	{
		const char *cells[11] = {s->name, s->provider, s->chip.name, nc, dc, mc,
					 bw[0], bw[1], bw[2], s->instance, hier};
		out_row(ctx, cells);
	}
}

static int list_systems(const home_paths *p, out_table *t, err *e)
{
	static const char *const hdr[] = {"system", "provider", "chip", "node_chips", "domain_chips",
					  "max_chips", "node_GBps", "domain_GBps", "scaleout_GBps",
					  "instance", "hierarchy"};
	out_init(t, 11, hdr);
	for (int i = 3; i < 9; i++)
		out_right(t, i);
	out_fit_col(t, 10, OUT_FIT_BELOW); /* the hierarchy, under its system when narrow */
	out_optional(t, 1, 1);             /* provider: the system and its instance name it */
	return each_system(p, system_row, t, e);
}

static int list_chips(const home_paths *p, out_table *t, err *e)
{
	char dir[HOME_PATH_MAX + 32], **names;
	static const char *const hdr[] = {"chip", "display", "status", "bf16_TFLOPs", "fp8_TFLOPs",
					  "fp4_TFLOPs", "hbm_GiB", "hbm_TBps", "units"};
	int n, rc = 0;
	hw_chip c;
	snprintf(dir, sizeof dir, "%s/hw/chips", p->models);
	n = home_ini_stems(dir, &names, e);
	if (n < 0)
		return 1;
	out_init(t, 9, hdr);
	for (int i = 3; i < 9; i++)
		out_right(t, i);
	for (int i = 0; i < n; i++) {
		char path[HOME_PATH_MAX + 64], v[6][24];
		snprintf(path, sizeof path, "%s/%s.ini", dir, names[i]);
		if (!rc && hw_load_chip(path, &c, e) != 0)
			rc = 1;
		if (!rc) {
			snprintf(v[0], 24, "%.0f", c.peak[HW_BF16] / 1e12);
			snprintf(v[1], 24, c.peak[HW_FP8] > 0 ? "%.0f" : "-", c.peak[HW_FP8] / 1e12);
			snprintf(v[2], 24, c.peak[HW_FP4] > 0 ? "%.0f" : "-", c.peak[HW_FP4] / 1e12);
			snprintf(v[3], 24, "%.1f", c.hbm / 1073741824.0);
			snprintf(v[4], 24, "%.3g", c.hbm_bw / 1e12);
			snprintf(v[5], 24, "%d", c.units);
			{
				const char *cells[9] = {c.name, c.display, c.announced ? "announced" : "ga",
							v[0], v[1], v[2], v[3], v[4], v[5]};
				out_row(t, cells);
			}
		}
		free(names[i]);
	}
	free(names);
	return rc;
}

/* The attention of a network in a few words: "gqa", "mla", "mha", with its window and sinks. */
static void attention_kind(const nn_net *n, char *b, size_t len)
{
	size_t l = (size_t)snprintf(b, len, "%s", nn_is_mla(n) ? "mla" : n->kv_heads == n->heads ? "mha"
						: n->kv_heads == 1 ? "mqa" : "gqa");
	if (n->window > 0 && l < len)
		l += (size_t)snprintf(b + l, len - l, " %s %d x%d", nn_window_names[n->window_kind], n->window,
				      n->window_layers);
	if (n->attn_sinks && l < len)
		l += (size_t)snprintf(b + l, len - l, " sinks");
	if (n->qk_norm && l < len)
		snprintf(b + l, len - l, " qk-norm");
}

/* One row of `list networks`. */
static void network_row(out_table *t, const nn_net *net)
{
	nn_counts c = nn_params(net);
	char v[12][32];
	snprintf(v[0], 32, "%.1f", c.total / 1e9);
	snprintf(v[1], 32, "%.1f", c.active_compute / 1e9);
	snprintf(v[2], 32, "%d", net->layers);
	snprintf(v[3], 32, "%d", net->hidden);
	snprintf(v[4], 32, "%d", net->heads);
	snprintf(v[5], 32, "%d", net->kv_heads);
	snprintf(v[6], 32, "%d", net->experts ? net->expert_ffn : net->ffn);
	snprintf(v[7], 32, net->experts ? "%d" : "-", net->experts);
	snprintf(v[8], 32, net->experts ? "%d" : "-", net->experts_active);
	attention_kind(net, v[9], 32);
	/* KV-cache bytes of one token over all layers in 16 bits (a windowed layer keeps at most
	 * its window of tokens). */
	snprintf(v[10], 32, "%.1f", nn_kv_bytes_per_token(net, 2) / 1e3);
	snprintf(v[11], 32, "%.2f", c.embed / 1e9);
	{
		const char *cells[14] = {net->name, net->family, v[0], v[1], v[2], v[3], v[4], v[5], v[6],
					 v[7], v[8], v[9], v[10], v[11]};
		out_row(t, cells);
	}
}

/* The known networks (models/nn), or the files given (an .ini or a config.json each). */
static int list_networks(const home_paths *p, char **files, int nfiles, out_table *t, err *e)
{
	char dir[HOME_PATH_MAX + 32], **names = NULL;
	static const char *const hdr[] = {"network", "family", "params_B", "active_B", "layers",
					  "hidden", "heads", "kv_heads", "ffn", "experts", "experts_active",
					  "attention", "kv_KB", "embedding_B"};
	int n, rc = 0;
	nn_net *net = malloc(sizeof *net);
	if (!net)
		return err_set(e, ERR_DATA, "out of memory");
	snprintf(dir, sizeof dir, "%s/nn", p->models);
	n = nfiles > 0 ? nfiles : home_ini_stems(dir, &names, e);
	if (n < 0) {
		free(net);
		return 1;
	}
	out_init(t, 14, hdr);
	for (int i = 2; i < 14; i++)
		if (i != 11)
			out_right(t, i);
	out_optional(t, 13, 3);   /* embedding_B: params_B and active_B say enough */
	out_optional(t, 12, 2);
	out_optional(t, 11, 1);
	for (int i = 0; i < n; i++) {
		char path[HOME_PATH_MAX + 64];
		if (nfiles > 0)
			snprintf(path, sizeof path, "%s", files[i]);
		else
			snprintf(path, sizeof path, "%s/%s.ini", dir, names[i]);
		if (!rc && (nfiles > 0 ? hf_find_net(path, p->models, net, e) : nn_load(path, net, e)) != 0)
			rc = 1;
		if (!rc)
			network_row(t, net);
		if (names)
			free(names[i]);
	}
	free(names);
	free(net);
	return rc;
}

static int list_workloads(const home_paths *p, out_table *t, err *e)
{
	char **names;
	static const char *const hdr[] = {"workload", "mode", "network", "precision", "framework", "plan",
					  "description"};
	int n, rc = 0;
	wl_workload *w = malloc(sizeof *w);
	n = home_ini_stems(p->workloads, &names, e);
	if (n < 0 || !w) {
		free(w);
		return 1;
	}
	out_init(t, 7, hdr);
	out_fit_col(t, 6, OUT_FIT_CLIP);
	for (int i = 0; i < n; i++) {
		if (!rc && wl_load(names[i], p->workloads, p->models, NULL, 0, w, e) != 0)
			rc = 1;
		if (!rc) {
			char pl[128];
			plan pp = w->plan;
			plan_fill(&pp);
			plan_format(&pp, pl, sizeof pl);
			{
				const char *cells[7] = {w->name, wl_mode_names[w->mode], w->net.name,
							hw_prec_names[w->prec], w->framework_name, pl, w->description};
				out_row(t, cells);
			}
		}
		free(names[i]);
	}
	free(names);
	free(w);
	return rc;
}

typedef struct gap_ctx {
	const char *provider;   /* NULL = every provider */
	const price_row *rows;  /* the store's rows being listed */
	int nrows;
	out_table *t;
} gap_ctx;

/* each_system: a row for a system whose file says the provider publishes no price and whose
 * instance has no row in the store (a private catalog's price wins), so that `list prices`
 * shows the gap. */
static void gap_row(const hw_system *s, void *ctx)
{
	const gap_ctx *g = ctx;
	char acc[16], src[HW_TEXT_MAX + 64];
	if (!s->no_public_price[0] || (g->provider && strcmp(g->provider, s->provider) != 0))
		return;
	for (int k = 0; k < g->nrows && s->instance[0]; k++)
		if (!strcmp(g->rows[k].instance, s->instance))
			return;
	snprintf(acc, sizeof acc, "%d", hw_node_chips(s));
	snprintf(src, sizeof src, "no public price (system %s): %s", s->name, s->no_public_price);
	{
		const char *cells[11] = {s->provider, s->instance[0] ? s->instance : s->name, "-", "-", "-", "-",
					 acc, "-", s->src.as_of, "-", src};
		out_row(g->t, cells);
	}
}

static int list_frameworks(const home_paths *p, out_table *t, err *e)
{
	char dir[HOME_PATH_MAX + 32], **names;
	static const char *const hdr[] = {"framework", "kind", "attention", "zero", "recompute", "overlap",
					  "host", "scheduler", "tokens_per_iter", "display"};
	int n, rc = 0;
	fw_framework *f = malloc(sizeof *f);
	snprintf(dir, sizeof dir, "%s/frameworks", p->models);
	n = home_ini_stems(dir, &names, e);
	if (n < 0 || !f) {
		free(f);
		return 1;
	}
	out_init(t, 10, hdr);
	out_right(t, 3);
	out_right(t, 8);
	out_fit_col(t, 9, OUT_FIT_CLIP); /* the display name is the one text that may be cut */
	for (int i = 0; i < n; i++) {
		char path[HOME_PATH_MAX + 64];
		snprintf(path, sizeof path, "%s/%s.ini", dir, names[i]);
		if (!rc && fw_load(path, f, e) != 0)
			rc = 1;
		if (!rc) {
			const fw_train *tr = &f->train;
			char zero[8] = "-", ov[64] = "-", tok[16] = "-";
			const char *attn = "-", *rcp = "-", *host = "-", *sched = "-";
			if (f->has_train) {
				snprintf(zero, sizeof zero, "%d", tr->zero);
				attn = tr->attention_kernel == 2 ? "flash2" : tr->flash_attention ? "flash" : "unfused";
				rcp = fw_recompute_names[tr->recompute];
				host = fw_host_names[tr->host];
				snprintf(ov, sizeof ov, "%s%s%s%s%s", tr->overlap_dp_reduce ? "dp " : "",
					 tr->overlap_param_gather ? "gather " : "", tr->overlap_tp > 0 ? "tp " : "",
					 tr->overlap_pp ? "pp " : "", tr->overlap_ep ? "ep " : "");
				if (ov[0] && ov[strlen(ov) - 1] == ' ')
					ov[strlen(ov) - 1] = '\0';
				if (!ov[0])
					snprintf(ov, sizeof ov, "none");
			}
			if (f->has_serve) {
				sched = fw_scheduler_names[f->serve.scheduler];
				snprintf(tok, sizeof tok, "%d", f->serve.max_num_tokens);
			}
			{
				const char *cells[10] = {f->name, fw_kind_names[f->kind], attn, zero, rcp, ov, host,
							 sched, tok, f->display};
				out_row(t, cells);
			}
		}
		free(names[i]);
	}
	free(names);
	free(f);
	return rc;
}

static int list_prices(const home_paths *p, const char *provider, const char *as_of, int all,
		       out_table *t, err *e)
{
	static const char *const hdr[] = {"provider", "instance", "region", "pricing_model", "usd_per_hour",
					  "unit", "accelerators", "usd_per_chip_hour", "as_of", "verified",
					  "source"};
	db *store = NULL;
	price_row *rows = NULL;
	int n = 0;
	if (home_open_db_read(p, &store, e) != 0)
		return 1;
	if (db_price_list(store, provider, as_of, all, &rows, &n, e) != 0) {
		db_close(store);
		return 1;
	}
	db_close(store);
	out_init(t, 11, hdr);
	out_right(t, 4);
	out_right(t, 6);
	out_right(t, 7);
	out_optional(t, 5, 3); /* unit and accelerators: usd_per_chip_hour has them */
	out_optional(t, 6, 2);
	/* On a terminal a long source goes under its row. Into a pipe or a file a row stays on one
	 * line (list prices | grep tpu-v6e finds whole rows): the source is cut, or left out where
	 * the row would not fit even so and named in the note (--wide keeps it whole). */
	out_fit_col(t, 10, isatty(STDOUT_FILENO) ? OUT_FIT_BELOW : OUT_FIT_CLIP);
	if (!isatty(STDOUT_FILENO))
		out_optional(t, 10, 1);
	for (int i = 0; i < n; i++) {
		const price_row *r = &rows[i];
		char usd[32], acc[16], chip[32];
		snprintf(usd, sizeof usd, "%.10g", r->usd_per_hour);
		snprintf(acc, sizeof acc, "%d", r->accelerators);
		snprintf(chip, sizeof chip, "%.4f", price_per_chip_hour(r));
		{
			const char *cells[11] = {r->provider, r->instance, r->region, price_model_names[r->model],
						 usd, price_unit_names[r->unit], acc, chip, r->as_of,
						 price_verified(r) ? "true" : "false", r->source};
			out_row(t, cells);
		}
	}
	{
		gap_ctx g = {provider, rows, n, t};
		int rc = each_system(p, gap_row, &g, e);
		free(rows);
		return rc;
	}
}

/* The table as an array of objects, typed: numeric columns as numbers, "-" or an empty cell
 * as null, "true"/"false" as booleans, the rest as strings. */
void *listing_json(const out_table *t)
{
	cJSON *arr = cJSON_CreateArray();
	if (!arr)
		return NULL;
	for (int r = 1; r <= t->nrows; r++) {
		cJSON *o = cJSON_CreateObject();
		for (int c = 0; c < t->ncols; c++) {
			/* A cell that is text but for line breaks and tabs goes as it is: JSON escapes
			 * those as \n and \t, where the table's escaped form would read \x0a. */
			const char *k = t->cells[c], *raw = out_cell_raw(t, r, c);
			const char *v = text_printable(raw, 1) ? raw : t->cells[r * t->ncols + c];
			char *end;
			double x = strtod(v, &end);
			if (!v[0] || !strcmp(v, "-"))
				cJSON_AddNullToObject(o, k);
			else if (!strcmp(v, "true") || !strcmp(v, "false"))
				cJSON_AddBoolToObject(o, k, v[0] == 't');
			else if (t->right[c] && end != v && !*end)
				cJSON_AddNumberToObject(o, k, x);
			else
				cJSON_AddStringToObject(o, k, v);
		}
		cJSON_AddItemToArray(arr, o);
	}
	return arr;
}


int listing_table(const home_paths *paths, const char *what, const char *provider, const char *as_of, int all,
		  char **files, int nfiles, out_table *t, err *e)
{
	memset(t, 0, sizeof *t);
	if (!strcmp(what, "systems"))
		return list_systems(paths, t, e);
	if (!strcmp(what, "chips"))
		return list_chips(paths, t, e);
	if (!strcmp(what, "networks"))
		return list_networks(paths, files, nfiles, t, e);
	if (!strcmp(what, "workloads"))
		return list_workloads(paths, t, e);
	if (!strcmp(what, "frameworks"))
		return list_frameworks(paths, t, e);
	if (!strcmp(what, "prices"))
		return list_prices(paths, provider, as_of, all, t, e);
	return err_set(e, ERR_USAGE, "list: '%s' is not one of systems, chips, networks, workloads, frameworks, prices",
		       what);
}
