/* cases: validation case files loaded and predicted (see cases.h). */
#include "store/cases.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cfg.h"
#include "base/csvin.h"
#include "base/lim.h"
#include "base/names.h"
#include "engine/validate.h"
#include "model/nn.h"
#include "model/wl.h"
#include <math.h>
#include "model/plan.h"

/* The ranges of lim.h for a case's layout and network, before val_build divides by them:
 * "path:line: column: reason". */
static int case_limits(const char *path, const val_case *c, err *e)
{
	plan p;
	char why[160];
	const char *key;
	memset(&p, 0, sizeof p);
	p.tp = c->tp;
	p.pp = c->pp;
	p.vpp = c->vpp;
	p.dp = c->dp;
	p.cp = c->cp;
	p.ep = c->ep;
	p.chips = c->chips;
	p.micro_batch = c->micro_batch;
	if (plan_limits(&p, 1, why, sizeof why) != 0)
		return err_at(e, path, c->line, "chips: %s", why);
	if ((long long)(c->tp > 0 ? c->tp : 1) * (c->pp > 0 ? c->pp : 1) * (c->cp > 0 ? c->cp : 1) > c->chips)
		return err_at(e, path, c->line, "chips: %d is fewer than tp*pp*cp", c->chips);
	{
		const struct { const char *col; int v, hi; } n[] = {
			{"seq_len", c->seq_len, LIM_TOKENS}, {"input_len", c->input_len, LIM_TOKENS},
			{"output_len", c->output_len, LIM_TOKENS}, {"global_batch", c->global_batch, LIM_BATCH},
			{"concurrency", c->concurrency, LIM_CONCURRENCY}, {"layers", c->layers, LIM_LAYERS},
			{"hidden", c->hidden, LIM_HIDDEN}, {"heads", c->heads, LIM_HEADS},
			{"kv_heads", c->kv_heads, LIM_HEADS}, {"head_dim", c->head_dim, LIM_HEAD_DIM},
			{"ffn", c->ffn, LIM_WIDTH}, {"vocab", c->vocab, LIM_VOCAB},
			{"experts", c->experts, LIM_EXPERTS}, {"experts_active", c->experts_active, LIM_EXPERTS}};
		for (size_t i = 0; i < sizeof n / sizeof n[0]; i++)
			if (n[i].v > n[i].hi)
				return err_at(e, path, c->line, "%s: %d is more than %d", n[i].col, n[i].v, n[i].hi);
	}
	{
		/* The network as val_build makes it (empty cells: kv_heads = heads, head_dim from
		 * hidden / heads, experts of ffn width). */
		nn_net n;
		memset(&n, 0, sizeof n);
		n.layers = c->layers;
		n.hidden = c->hidden;
		n.heads = c->heads;
		n.kv_heads = c->kv_heads > 0 ? c->kv_heads : c->heads;
		n.head_dim = c->head_dim > 0 ? c->head_dim : c->hidden / c->heads;
		n.ffn = c->ffn;
		n.act = c->act;
		n.vocab = c->vocab;
		n.experts = c->experts > 0 ? c->experts : 0;
		n.experts_active = n.experts ? c->experts_active : 0;
		n.expert_ffn = n.experts ? c->ffn : 0;
		if (nn_shape_check(&n, &key, why, sizeof why) != 0)
			return err_at(e, path, c->line, "%s: %s", key, why);
	}
	return 0;
}

void cases_release(cases_set *s)
{
	for (int i = 0; i < s->nsys; i++)
		free(s->sys[i]);
	for (int i = 0; i < s->nfw; i++)
		free(s->fw[i]);
	for (int i = 0; s->fw_unfit && i < s->nfw; i++)
		free(s->fw_unfit[i]);
	free(s->fw_unfit);
	free(s->sys);
	free(s->fw);
	free(s->rows);
	free(s->ks);
	free(s->fs);
	memset(s, 0, sizeof *s);
}

int cases_find(const cases_set *s, const char *id)
{
	for (int i = 0; i < s->n; i++)
		if (!strcmp(s->rows[i].c.id, id))
			return i;
	return -1;
}

/* The loaded system of name (loaded on first need), or NULL with its loader's message in why. */
static const hw_system *system_of(cases_set *s, const char *models_dir, const char *name, char **names,
				  char (*whys)[ERR_MSG_MAX], char *why, size_t n)
{
	int k;
	for (k = 0; k < s->nsys && strcmp(names[k], name) != 0; k++)
		;
	if (k == s->nsys) {
		err le = {0};
		if (!(names[k] = strdup(name))) {
			snprintf(why, n, "out of memory");
			return NULL;
		}
		s->sys[k] = malloc(sizeof *s->sys[k]);
		whys[k][0] = '\0';
		s->nsys++;
		if (!s->sys[k]) {
			snprintf(whys[k], ERR_MSG_MAX, "out of memory");
		} else if (hw_find_system(name, models_dir, s->sys[k], &le) != 0) {
			snprintf(whys[k], ERR_MSG_MAX, "%s", le.msg);
			free(s->sys[k]);
			s->sys[k] = NULL;
		}
	}
	if (!s->sys[k])
		snprintf(why, n, "%s", whys[k]);
	return s->sys[k];
}

/* A version of a stack: a framework file based_on another that names the source groups whose
 * rows ran it. */
typedef struct version {
	char name[FW_NAME_MAX], based_on[FW_NAME_MAX];
	char groups[HW_TEXT_MAX];
	char path[CASES_PATH_MAX + 256];
} version;

/* The line of a framework file's source_groups (0: not found). */
static int groups_line(const char *path)
{
	cfg_doc d;
	const cfg_entry *en;
	int line = 0;
	err ignored = {0};
	if (cfg_load(&d, path, &ignored) == 0) {
		en = cfg_find(&d, "framework", "source_groups");
		line = en ? en->line : 0;
		cfg_release(&d);
	}
	return line;
}

/* A group two versions of one stack both name: "path:line: source_groups: ..." in e (the line
 * of the later file's source_groups). Returns -1. */
static int version_clash(const version *a, const version *b, const char *group, err *e)
{
	err_at(e, b->path, groups_line(b->path),
	       "source_groups: '%s' is also %s's, another version of %s: a row of the group ran one of them", group,
	       a->name, b->based_on);
	return -1;
}

/* The versions among the framework files of models_dir (at most max); no two versions of one
 * stack name the same group. Returns the count, or -1 with e set (a file that does not load, too
 * many versions, a group claimed twice). */
static int load_versions(const char *models_dir, version *out, int max, err *e)
{
	char dir[CASES_PATH_MAX + 16], **names = NULL;
	fw_framework *f = malloc(sizeof *f);
	int n, k = 0;
	snprintf(dir, sizeof dir, "%s/frameworks", models_dir);
	if (!f)
		return -err_set(e, ERR_DATA, "out of memory");
	n = names_list(dir, ".ini", &names, e);
	for (int i = 0; i < n; i++) {
		char p[CASES_PATH_MAX + 256];
		snprintf(p, sizeof p, "%s/%s.ini", dir, names[i]);
		if (k >= 0 && fw_find(p, models_dir, f, e) != 0) {
			k = -1;
		} else if (k >= 0 && f->source_groups[0] && k == max) {
			err_at(e, p, groups_line(p),
			       "source_groups: more than %d versions of stacks (framework files with source_groups) in %s", max,
			       dir);
			k = -1;
		} else if (k >= 0 && f->source_groups[0]) {
			snprintf(out[k].name, sizeof out[k].name, "%s", f->name);
			snprintf(out[k].based_on, sizeof out[k].based_on, "%s", f->based_on);
			snprintf(out[k].groups, sizeof out[k].groups, "%s", f->source_groups);
			snprintf(out[k].path, sizeof out[k].path, "%s", p);
			k++;
		}
		free(names[i]);
	}
	free(names);
	free(f);
	for (int j = 1; j < k; j++)
		for (int i = 0; i < j && k >= 0; i++) {
			char buf[HW_TEXT_MAX], *save = NULL;
			if (strcmp(out[i].based_on, out[j].based_on) != 0)
				continue;
			snprintf(buf, sizeof buf, "%s", out[j].groups);
			for (char *g = strtok_r(buf, ",", &save); g && k >= 0; g = strtok_r(NULL, ",", &save)) {
				while (*g == ' ')
					g++;
				for (size_t l = strlen(g); l > 0 && g[l - 1] == ' '; l--)
					g[l - 1] = '\0';
				if (fit_listed(out[i].groups, g))
					k = version_clash(&out[i], &out[j], g, e);
			}
		}
	return n < 0 ? -1 : k;
}

int cases_load(const char *path, const char *models_dir, cases_set *out, err *e)
{
	csvin_doc d;
	char **sys_names = NULL;
	char (*sys_why)[ERR_MSG_MAX] = NULL;
	char **fw_keys = NULL;
	char (*fw_why)[ERR_MSG_MAX] = NULL;
	int rc = 0;
	memset(out, 0, sizeof *out);
	snprintf(out->path, sizeof out->path, "%s", path);
	if (!(out->ks = malloc(sizeof *out->ks)))
		return err_set(e, ERR_DATA, "out of memory");
	if (hw_load_calibs(models_dir, out->ks, e) != 0) {
		cases_release(out);
		return ERR_DATA;
	}
	if (csvin_load(&d, path, e) != 0) {
		cases_release(out);
		return ERR_DATA;
	}
	if (d.nrows < 1)
		rc = err_at(e, path, 0, "empty file");
	if (rc == 0)
		rc = val_check_header(path, (const char *const *)d.rows[0].fields, d.rows[0].n, e);
	if (rc == 0) {
		size_t n = (size_t)d.nrows;
		out->rows = calloc(n, sizeof *out->rows);
		out->sys = calloc(n, sizeof *out->sys);
		out->fw = calloc(n, sizeof *out->fw);
		out->fw_unfit = calloc(n, sizeof *out->fw_unfit);
		sys_names = calloc(n, sizeof *sys_names);
		sys_why = calloc(n, sizeof *sys_why);
		fw_keys = calloc(n, sizeof *fw_keys);
		fw_why = calloc(n, sizeof *fw_why);
		if (!out->rows || !out->sys || !out->fw || !out->fw_unfit || !sys_names || !sys_why || !fw_keys || !fw_why)
			rc = err_set(e, ERR_DATA, "out of memory");
	}
	/* Every row parsed first: a bad file is an error before anything is predicted. */
	for (int i = 1; rc == 0 && i < d.nrows; i++) {
		const csvin_row *row = &d.rows[i];
		if (row->n != d.rows[0].n)
			rc = err_at(e, path, row->line, "%d fields, the header has %d", row->n, d.rows[0].n);
		else if ((rc = val_parse(path, row->line, (const char *const *)d.rows[0].fields,
					 (const char *const *)row->fields, row->n, &out->rows[out->n].c, e)) == 0 &&
			 (rc = case_limits(path, &out->rows[out->n].c, e)) == 0)
			out->n++;
	}
	/* A latency row of a server or interactive case is predicted at the load its case's
	 * throughput row gives (val_case_load). */
	for (int i = 0; rc == 0 && i < out->n; i++)
		for (int j = 0; j < out->n && out->rows[i].c.load <= 0; j++)
			out->rows[i].c.load = val_case_load(&out->rows[i].c, &out->rows[j].c);
	if (rc == 0) {
		/* A row of a stack's framework cell whose source document ran a version of it (a file
		 * based_on the stack that names the document's source_group) is predicted with that
		 * version, and counts under its name; a version of that version naming the group too
		 * (a build of one year, based_on the builds' file) is taken in turn, down the chain. */
		enum { VERSIONS_MAX = 32 };
		version *vs = calloc(VERSIONS_MAX, sizeof *vs);
		int nv = vs ? load_versions(models_dir, vs, VERSIONS_MAX, e) : -err_set(e, ERR_DATA, "out of memory");
		if (nv < 0)
			rc = ERR_DATA;
		for (int i = 0; rc == 0 && i < out->n; i++) {
			val_case *c = &out->rows[i].c;
			for (int depth = 0, moved = 1; moved && depth < nv; depth++) {
				moved = 0;
				for (int k = 0; k < nv; k++)
					if (!strcmp(vs[k].based_on, c->framework[0] ? c->framework : "generic") &&
					    fit_listed(vs[k].groups, c->group)) {
						snprintf(c->framework, sizeof c->framework, "%s", vs[k].name);
						moved = 1;
						break;
					}
			}
		}
		free(vs);
	}
	if (rc == 0) {
		/* An open-loop row (server, interactive) of a benchmark's model whose input_len is its
		 * dataset's mean input (within a token), of the source documents the dataset names if
		 * it names any, takes its request lengths (models/datasets.ini); the row's own settings
		 * cell is set after them. */
		wl_dataset *ds = calloc(WL_DATASETS_MAX, sizeof *ds);
		int nd = ds ? wl_datasets_load(models_dir, ds, WL_DATASETS_MAX, e) : -err_set(e, ERR_DATA, "out of memory");
		if (nd < 0)
			rc = ERR_DATA;
		for (int i = 0; rc == 0 && i < out->n; i++) {
			val_case *c = &out->rows[i].c;
			if (c->train || (c->scenario != WL_SERVER && c->scenario != WL_INTERACTIVE))
				continue;
			for (int k = 0; k < nd; k++)
				if ((!ds[k].groups[0] || fit_listed(ds[k].groups, c->group)) &&
				    fabs(c->input_len - ds[k].input_mean) < 1 && (!ds[k].layers || c->layers == ds[k].layers) &&
				    (!ds[k].hidden || c->hidden == ds[k].hidden)) {
					snprintf(c->dataset, sizeof c->dataset, "%s", ds[k].name);
					c->ds_input = ds[k].input;
					c->ds_output = ds[k].output_spread;
					break;
				}
		}
		free(ds);
	}
	/* Systems once each; frameworks once per name and settings cell (a setting the framework
	 * does not know is an error in the file, at the first row that has it). */
	for (int i = 0; rc == 0 && i < out->n; i++) {
		fit_row *r = &out->rows[i];
		const char *name = r->c.framework[0] ? r->c.framework : "generic";
		char key[VAL_TEXT_MAX + FW_NAME_MAX + 2];
		int k;
		r->sys = system_of(out, models_dir, r->c.system, sys_names, sys_why, r->reason, sizeof r->reason);
		if (!r->sys)
			continue;
		snprintf(key, sizeof key, "%s;%s", name, r->c.settings);
		for (k = 0; k < out->nfw && strcmp(fw_keys[k], key) != 0; k++)
			;
		if (k == out->nfw) {
			err le = {0};
			if (!(fw_keys[k] = strdup(key)) || !(out->fw[k] = malloc(sizeof *out->fw[k]))) {
				rc = err_set(e, ERR_DATA, "out of memory");
				break;
			}
			out->nfw++;
			fw_why[k][0] = '\0';
			if (fw_find(name, models_dir, out->fw[k], &le) != 0) {
				snprintf(fw_why[k], ERR_MSG_MAX, "%s", le.msg);
				free(out->fw[k]);
				out->fw[k] = NULL;
			} else if (r->c.settings[0]) {
				char from[CASES_PATH_MAX + 32];
				snprintf(from, sizeof from, "%s:%d: settings", path, r->c.line);
				if ((rc = fw_set_list(out->fw[k], r->c.settings, from, e)) != 0)
					break;
				/* The origin of a cell shared by rows is the file's column, not this row. */
				for (int j = 0; j < out->fw[k]->nset; j++)
					snprintf(out->fw[k]->set[j].from, sizeof out->fw[k]->set[j].from, "%s: settings", path);
			}
			if (out->fw[k] && out->fw[k]->serve.fitted[0]) {
				int u;
				if (!(out->fw_unfit[k] = malloc(sizeof *out->fw_unfit[k]))) {
					rc = err_set(e, ERR_DATA, "out of memory");
					break;
				}
				if ((u = fw_unfitted(out->fw[k], models_dir, out->fw_unfit[k], e)) != 0) {
					free(out->fw_unfit[k]);
					out->fw_unfit[k] = NULL;
					if (u != 1) {
						rc = u;
						break;
					}
				}
			}
		}
		if (!out->fw[k]) {
			snprintf(r->reason, sizeof r->reason, "%s", fw_why[k]);
			continue;
		}
		r->fw = out->fw[k];
		r->fw_unfit = out->fw_unfit[k];
		snprintf(r->family, sizeof r->family, "%s", r->sys->chip.family);
		r->ok = val_predict(r->sys, r->fw, &r->c, &r->pred, r->reason, sizeof r->reason, &r->mem_miss);
		if (r->ok)
			r->err_pct = 100 * (r->pred - r->c.value) / r->c.value;
	}
	for (int k = 0; sys_names && k < out->nsys; k++)
		free(sys_names[k]);
	for (int k = 0; fw_keys && k < d.nrows; k++)
		free(fw_keys[k]);
	free(sys_names);
	free(sys_why);
	free(fw_keys);
	free(fw_why);
	csvin_release(&d);
	if (rc == 0 && !(out->fs = malloc(sizeof *out->fs)))
		rc = err_set(e, ERR_DATA, "out of memory");
	if (rc == 0)
		fit_set_init(out->fs, out->ks, (const fw_framework *const *)out->fw, out->nfw);
	if (rc != 0)
		cases_release(out);
	return rc;
}

int cases_reproduce(const cases_set *s, const char *models_dir, const char *workloads_dir, const interval_table *iv,
		    cases_repro *out, int max, err *e)
{
	char **names = NULL;
	wl_workload *w = malloc(sizeof *w);
	int n, k = 0, rc = 0;
	if (!w)
		return -err_set(e, ERR_DATA, "out of memory");
	n = names_list(workloads_dir, ".ini", &names, e);
	for (int i = 0; i < n; i++) {
		char path[CASES_PATH_MAX + 256];
		int found = 0;
		snprintf(path, sizeof path, "%s/%s.ini", workloads_dir, names[i]);
		if (rc == 0 && wl_load(path, workloads_dir, models_dir, NULL, 0, w, e) != 0)
			rc = ERR_DATA;
		for (int r = 0; rc == 0 && w->reproduces[0] && r < s->n && k < max; r++) {
			const fit_row *row = &s->rows[r];
			cases_repro *x;
			plan p = w->plan;
			train_result *tr = NULL;
			infer_result *ir = NULL;
			interval_status st;
			if (strcmp(row->c.id, w->reproduces) != 0)
				continue;
			found = 1;
			x = &out[k++];
			memset(x, 0, sizeof *x);
			snprintf(x->workload, sizeof x->workload, "%s", w->name);
			snprintf(x->case_id, sizeof x->case_id, "%s", row->c.id);
			x->metric = row->c.metric;
			x->measured = row->c.value;
			x->case_pred = row->ok ? row->pred : NAN;
			x->pred = x->lo = x->hi = NAN;
			if (!row->sys) {
				snprintf(x->why, sizeof x->why, "the case's system does not load: %s", row->reason);
				continue;
			}
			wl_plan_defaults(w, &p);
			plan_fill(&p);
			if (p.chips != row->c.chips) {
				snprintf(x->why, sizeof x->why, "its plan has %d chips, the case ran on %d", p.chips, row->c.chips);
				continue;
			}
			if (w->mode == WL_TRAIN && (tr = malloc(sizeof *tr)))
				train_eval(row->sys, w, &p, tr, NULL);
			else if (w->mode == WL_INFER && (ir = malloc(sizeof *ir)))
				infer_eval(row->sys, w, &p, ir, NULL, NULL);
			if (!(tr || ir) || !val_result_metric(x->metric, tr, ir, p.chips, &x->pred)) {
				snprintf(x->why, sizeof x->why, "%s is not a figure of a %s workload", val_metric_names[x->metric],
					 wl_mode_names[w->mode]);
			} else {
				memset(&st, 0, sizeof st);
				if (iv)
					interval_lookup(iv, row->c.train, row->sys->chip.family, w->fw.name, &st);
				interval_apply(&st, x->pred, fit_metric_is_time(x->metric), &x->lo, &x->hi);
				x->ok = x->measured >= x->lo && x->measured <= x->hi;
				if (!x->ok)
					snprintf(x->why, sizeof x->why, "measured %.4g lies outside the workload's %.4g-%.4g (%s)",
						 x->measured, x->lo, x->hi, st.group[0] ? st.group : "no interval");
			}
			free(tr);
			free(ir);
		}
		if (rc == 0 && w->reproduces[0] && !found && k < max) {
			cases_repro *x = &out[k++];
			memset(x, 0, sizeof *x);
			snprintf(x->workload, sizeof x->workload, "%s", w->name);
			snprintf(x->case_id, sizeof x->case_id, "%s", w->reproduces);
			x->measured = x->case_pred = x->pred = x->lo = x->hi = NAN;
			snprintf(x->why, sizeof x->why, "no case '%s' in %s", w->reproduces, s->path);
		}
	}
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
	free(w);
	return rc ? -1 : k;
}
