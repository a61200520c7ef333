/* record: evaluate, freeze, check, explain and verify release records (see record.h). */
#include "store/record.h"

#include <cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/json.h"
#include "base/os.h"
#include "engine/cost.h"

#define jstr json_str
#define jnum json_num

int record_valid_name(const char *s)
{
	size_t n = strlen(s);
	if (n == 0 || n > RECORD_NAME_MAX || s[0] == '.' || s[0] == '-')
		return 0;
	for (const char *p = s; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		      *p == '.' || *p == '_' || *p == '-'))
			return 0;
	return 1;
}

/* A copy of j through its canonical text: numbers that JSON cannot hold become null, as in
 * the stored record, so that values compare alike. NULL if out of memory. */
static cJSON *as_stored(const cJSON *j)
{
	char *s = baseline_canonical(j, 0);
	cJSON *out = s ? cJSON_Parse(s) : NULL;
	free(s);
	return out;
}

/* ---- one evaluation and what it read */

/* The input files an evaluation read, one line each: role, its folder in a data folder, and
 * the path its loader kept. Adding an input is one line here. ev NULL: roles and folders. */
static int list_inputs(const record_eval *ev, record_input *in)
{
#define READ(expr) (ev ? (expr) : "")
	const struct { const char *role, *dir, *path; } read[] = {
		{"workload", "workloads", READ(ev->w.path)},
		{"network", "models/nn", READ(ev->w.net.path)},
		{"system", "models/hw/systems", READ(ev->sys.path)},
		{"chip", "models/hw/chips", READ(ev->sys.chip.path)},
		{"collectives", "models/hw", READ(ev->sys.algos.path)},
		{"framework", "models/frameworks", READ(ev->w.fw.path)},
		{"framework base", "models/frameworks", READ(ev->w.fw.bases[0])},   /* based_on, beside it */
		{"framework base 2", "models/frameworks", READ(ev->w.fw.bases[1])},
		{"calibration", "models", READ(ev->sys.calib_path)},
		{"cost", "models", READ(ev->w.cost_path)},   /* models/cost.ini: the [cost] defaults */
	};
#undef READ
	int n = 0;
	for (size_t i = 0; i < sizeof read / sizeof read[0] && n < RECORD_INPUTS_MAX; i++) {
		if (ev && !read[i].path[0])
			continue;   /* not read this time (no calibration file) */
		in[n].role = read[i].role;
		in[n].dir = read[i].dir;
		snprintf(in[n].path, sizeof in[n].path, "%s", read[i].path);
		n++;
	}
	return n;
}

/* The folder of a role in a data folder, or NULL for a role this tool does not read. */
static const char *role_dir(const char *role)
{
	record_input in[RECORD_INPUTS_MAX];
	int n = list_inputs(NULL, in);
	for (int i = 0; i < n; i++)
		if (!strcmp(in[i].role, role))
			return in[i].dir;
	return NULL;
}

/* path relative to the data folder home when it lies inside it ("./" dropped). */
static void relative(const char *home, const char *path, char *out, size_t n)
{
	size_t h = strlen(home);
	if (h && !strncmp(path, home, h) && path[h] == '/')
		path += h + 1;
	while (!strncmp(path, "./", 2))
		path += 2;
	snprintf(out, n, "%s", path);
}

static void eval_release(record_eval *ev)
{
	for (int i = 0; i < ev->nin; i++)
		free(ev->in[i].text);
	ev->nin = 0;
	cJSON_Delete(ev->results);
	ev->results = NULL;
}

void record_eval_free(record_eval *ev)
{
	if (ev) {
		eval_release(ev);
		free(ev);
	}
}

static const record_input *input_of(const record_eval *ev, const char *role)
{
	for (int i = 0; i < ev->nin; i++)
		if (!strcmp(ev->in[i].role, role))
			return &ev->in[i];
	return NULL;
}

/* The interruption test (cost_interrupt_*) into the results: figures at the top level, the
 * inputs and the model in "interruption". */
static void add_interruption(record_eval *ev, cJSON *r)
{
	cJSON *x = cJSON_CreateObject();
	cost_interrupt ci;
	const plan *p = ev->w.mode == WL_TRAIN ? &ev->tr.plan : &ev->ir.plan;
	if (ev->w.mode == WL_TRAIN) {
		cost_train_in in;
		const cost_failures *f = &ev->cost.terms.failures;
		const cost_goodput *g = &ev->cost.result.goodput;
		memset(&in, 0, sizeof in);
		in.chips = p->chips;
		in.usd_per_chip_hour = ev->cost.usd_per_chip_hour;
		in.failures = *f;
		cost_interrupt_train(&in, &ev->cost.result, &ci);
		cJSON_AddItemToObject(r, "interruption_added_h", json_num_or_null(ci.added / 3600));
		cJSON_AddItemToObject(r, "interruption_usd", json_num_or_null(ci.usd));
		cJSON_AddItemToObject(r, "interruption_count", json_num_or_null(ci.count));
		cJSON_AddItemToObject(r, "interruption_run_added_h", json_num_or_null(ci.run_added / 3600));
		cJSON_AddItemToObject(r, "interruption_run_usd", json_num_or_null(ci.run_usd));
		cJSON_AddItemToObject(r, "interruption_loss_pct", json_num_or_null(ci.loss_pct));
		cJSON_AddStringToObject(x, "lost", "one node, just before a checkpoint is durable (the worst moment)");
		cJSON_AddStringToObject(x, "model", "added = restart_time + checkpoint_size / checkpoint_bw (reload) + "
					"interval + checkpoint write (the work redone); the job's chips all wait; over the "
					"run: expected interruptions (run time / system MTBF) x added, an upper bound");
		cJSON_AddNumberToObject(x, "node_chips", hw_node_chips(&ev->sys));
		cJSON_AddNumberToObject(x, "job_chips", p->chips);
		cJSON_AddItemToObject(x, "chip_mtbf_h", json_num_or_null(f->chip_mtbf / 3600));
		cJSON_AddItemToObject(x, "system_mtbf_h", json_num_or_null(g->system_mtbf / 3600));
		cJSON_AddNumberToObject(x, "checkpoint_tb", f->checkpoint_bytes / 1e12);
		cJSON_AddNumberToObject(x, "checkpoint_bw_gb_per_s", f->checkpoint_bw / 1e9);
		cJSON_AddItemToObject(x, "checkpoint_interval_s", json_num_or_null(g->interval));
		cJSON_AddNumberToObject(x, "checkpoint_write_s", g->checkpoint_write);
		cJSON_AddNumberToObject(x, "restart_s", ci.restart);
		cJSON_AddNumberToObject(x, "reload_s", ci.reload);
		cJSON_AddItemToObject(x, "redo_s", json_num_or_null(ci.redo));
		cJSON_AddItemToObject(x, "usd_per_chip_hour", json_num_or_null(ev->cost.usd_per_chip_hour));
	} else {
		/* One replica's capacity within the limits: the highest load its latencies allow,
		 * concurrency uncapped (the best offline batch when the workload has no limits). */
		wl_workload *one = malloc(sizeof *one);
		infer_result *ir = malloc(sizeof *ir);
		cost_interrupt_serve_in in;
		plan q = *p;
		double cap = 0;
		if (one && ir) {
			*one = ev->w;
			one->concurrency = 10000000;
			if (one->scenario == WL_SINGLE)
				one->scenario = one->ttft_slo > 0 || one->tpot_slo > 0 ? WL_SERVER : WL_OFFLINE;
			q.dp = 1;
			q.chips = p->chips / (p->dp > 0 ? p->dp : 1);
			infer_eval(&ev->sys, one, &q, ir, NULL, NULL);
			cap = rank_slo_met(one, ir) ? ir->tokens_per_s : 0;
		}
		free(one);
		free(ir);
		in.replicas = p->dp;
		in.chips_per_replica = q.chips;
		in.usd_per_chip_hour = ev->cost.usd_per_chip_hour;
		in.load = ev->ir.tokens_per_s;
		in.replica_capacity = cap;
		cost_interrupt_serve(&in, &ci);
		cJSON_AddBoolToObject(r, "interruption_meets_slo", ci.meets_slo);
		cJSON_AddItemToObject(r, "interruption_capacity_after_tokens_per_s", json_num_or_null(ci.capacity_after));
		cJSON_AddItemToObject(r, "interruption_standby_replicas", json_num_or_null(ci.standby_replicas));
		cJSON_AddItemToObject(r, "interruption_standby_chips", json_num_or_null(ci.standby_chips));
		cJSON_AddItemToObject(r, "interruption_standby_usd_per_hour", json_num_or_null(ci.standby_usd_per_hour));
		cJSON_AddItemToObject(r, "interruption_loss_pct", json_num_or_null(ci.loss_pct));
		cJSON_AddStringToObject(x, "lost", "one replica");
		cJSON_AddStringToObject(x, "model", "the other replicas carry the same output tokens/s; they meet the "
					"limits if (replicas - 1) x one replica's capacity within the limits covers it; "
					"standby = replicas needed for the load + 1 - replicas");
		cJSON_AddNumberToObject(x, "replicas", p->dp);
		cJSON_AddNumberToObject(x, "chips_per_replica", q.chips);
		cJSON_AddItemToObject(x, "load_tokens_per_s", json_num_or_null(ci.load));
		cJSON_AddItemToObject(x, "replica_capacity_tokens_per_s", json_num_or_null(cap));
		cJSON_AddItemToObject(x, "usd_per_chip_hour", json_num_or_null(ev->cost.usd_per_chip_hour));
	}
	cJSON_AddItemToObject(r, "interruption", x);
}

/* ---- options: recorded as given, replayed through the tool's evaluation */

void record_add_option(cJSON *a, const char *name, int has_arg, const char *value)
{
	cJSON *it = cJSON_CreateObject();
	char text[RECORD_PATH_MAX + 64], sha[BASELINE_SHA_HEX];
	if (!has_arg)
		snprintf(text, sizeof text, "--%s", name);
	else
		snprintf(text, sizeof text, "--%s=%s", name, value ? value : "");
	baseline_sha256(text, strlen(text), sha);
	cJSON_AddStringToObject(it, "option", name);
	cJSON_AddStringToObject(it, "value", value ? value : "");
	cJSON_AddStringToObject(it, "text", text);
	cJSON_AddStringToObject(it, "sha256", sha);
	cJSON_AddItemToArray(a, it);
}

typedef struct replay {
	char *argv[RECORD_OPTIONS_MAX + 2];
	int argc;
} replay;

static void replay_release(replay *r)
{
	for (int i = 0; i < r->argc; i++)
		free(r->argv[i]);
	r->argc = 0;
}

/* Appends "--name=value" to r. */
static int replay_add(replay *r, const char *name, const char *value, err *e)
{
	size_t n = strlen(name) + strlen(value) + 4;
	if (r->argc == RECORD_OPTIONS_MAX + 1)
		return err_set(e, ERR_DATA, "the record has more than %d options", RECORD_OPTIONS_MAX);
	if (!(r->argv[r->argc] = malloc(n)))
		return err_set(e, ERR_DATA, "out of memory");
	snprintf(r->argv[r->argc++], n, "--%s=%s", name, value);
	return 0;
}

/* The recorded options as "--NAME=VALUE" words, with -w / -s replaced when wl / sys are
 * given, and --as-of replaced (or added) when as_of is. */
static int replay_options(const cJSON *options, const char *wl, const char *sys, const char *as_of,
			  replay *r, err *e)
{
	const cJSON *it;
	memset(r, 0, sizeof *r);
	if (!(r->argv[r->argc++] = strdup("baseline")))
		return err_set(e, ERR_DATA, "out of memory");
	cJSON_ArrayForEach(it, options) {
		const char *name = jstr(it, "option"), *value = jstr(it, "value");
		if (wl && !strcmp(name, "workload"))
			value = wl;
		if (sys && !strcmp(name, "system"))
			value = sys;
		if (as_of && !strcmp(name, "as-of"))
			continue;
		if (replay_add(r, name, value, e) != 0)
			return ERR_DATA;
	}
	return as_of ? replay_add(r, "as-of", as_of, e) : 0;
}

/* Evaluates the options (with -w / -s replaced by wl / sys, and --as-of by as_of, when given)
 * over paths and *store, then reads back every input file. */
static int evaluate(const record_paths *paths, const cJSON *options, const char *wl, const char *sys,
		    const char *as_of, const record_tool *tool, db **store, record_eval *ev, err *e)
{
	replay r;
	char layout[128];
	cJSON *res;
	int rc = replay_options(options, wl, sys, as_of, &r, e);
	if (rc == 0)
		rc = tool->fn(tool->ctx, paths, r.argc, r.argv, store, ev, e);
	replay_release(&r);
	if (rc != 0)
		return rc;
	ev->have_catalog = 0;
	if (ev->cost.have_price && *store &&
	    db_price_catalog(*store, &ev->cost.price, ev->catalog_path, sizeof ev->catalog_path,
			     ev->catalog_sha, &ev->have_catalog, e) != 0)
		return ERR_DATA;
	if (ev->have_catalog) {
		/* A bundled catalog under the data folder is named relative to it, as the input files
		 * are: a record committed by one team member does not carry their home folder. */
		char rel[PRICE_PATH_MAX];
		relative(paths->home, ev->catalog_path, rel, sizeof rel);
		snprintf(ev->catalog_path, sizeof ev->catalog_path, "%s", rel);
	}
	if (!ev->results)
		return err_set(e, ERR_DATA, "out of memory");
	plan_format(ev->w.mode == WL_TRAIN ? &ev->tr.plan : &ev->ir.plan, layout, sizeof layout);
	cJSON_AddStringToObject(ev->results, "layout", layout);
	add_interruption(ev, ev->results);
	res = as_stored(ev->results);
	cJSON_Delete(ev->results);
	if (!(ev->results = res))
		return err_set(e, ERR_DATA, "out of memory");
	ev->nin = list_inputs(ev, ev->in);
	for (int i = 0; i < ev->nin; i++) {
		record_input *in = &ev->in[i];
		char read_path[RECORD_PATH_MAX];
		snprintf(read_path, sizeof read_path, "%s", in->path);
		in->text = NULL;
		if (os_read_file(read_path, RECORD_FILE_MAX, &in->text, e) != 0) {
			ev->nin = i;
			return ERR_DATA;
		}
		baseline_sha256(in->text, strlen(in->text), in->sha256);
		relative(paths->home, read_path, in->path, sizeof in->path);
	}
	return 0;
}

int record_evaluate(const record_paths *paths, const cJSON *options, const record_tool *tool,
		    db **store, record_eval **out, err *e)
{
	record_eval *ev = calloc(1, sizeof *ev);
	int rc;
	*out = NULL;
	if (!ev)
		return err_set(e, ERR_DATA, "out of memory");
	if ((rc = evaluate(paths, options, NULL, NULL, NULL, tool, store, ev, e)) != 0) {
		record_eval_free(ev);
		return rc;
	}
	*out = ev;
	return 0;
}

int record_name_free(db *store, const char *name, err *e)
{
	/* Refused before evaluating; db_baseline_add refuses it again under the write lock, for a
	 * recorder racing this one. */
	db_baseline row;
	int found;
	if (db_baseline_get(store, name, &row, &found, e) != 0)
		return ERR_DATA;
	if (!found)
		return 0;
	err_set(e, ERR_DATA, "%s: baseline '%s' exists (recorded %s, sha256 %.12s): records are never "
		"overwritten; record under a new name", db_path(store), name, row.created_at, row.sha256);
	db_baseline_release(&row);
	return ERR_DATA;
}

int record_rules_known(const record_eval *ev, const baseline_rules *rules, err *e)
{
	for (int i = 0; i < rules->ncrit + rules->ntol; i++) {
		const char *fig = i < rules->ncrit ? rules->crit[i].figure : rules->tol[i - rules->ncrit].figure;
		baseline_value v;
		if (!strcmp(fig, "*"))
			continue;
		baseline_value_of(ev->results, fig, &v);
		if (v.kind == BASELINE_ABSENT)
			return err_set(e, ERR_USAGE, "%s: no figure '%s' in an evaluation of mode %s (see 'roofcost "
				       "eval ... --format json' and the interruption_* figures)",
				       i < rules->ncrit ? "--criteria" : "--tolerance", fig, wl_mode_names[ev->w.mode]);
	}
	return 0;
}

/* ---- the record */

/* The price row of an evaluation as its results show it (assumptions.price), with its line
 * and catalog. */
static cJSON *price_json(const record_eval *ev)
{
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(ev->results, "assumptions");
	cJSON *o = cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(a, "price"), 1), *c = cJSON_CreateObject();
	if (!cJSON_IsObject(o)) {
		cJSON_Delete(o);
		o = cJSON_CreateObject();
	}
	cJSON_AddNumberToObject(o, "line", ev->cost.price.line);
	cJSON_AddStringToObject(c, "path", ev->have_catalog ? ev->catalog_path : "");
	cJSON_AddStringToObject(c, "sha256", ev->have_catalog ? ev->catalog_sha : "");
	cJSON_AddItemToObject(o, "catalog", c);
	return o;
}

int record_price_of_json(const cJSON *j, price_row *p)
{
	memset(p, 0, sizeof *p);
	snprintf(p->provider, sizeof p->provider, "%s", jstr(j, "provider"));
	snprintf(p->instance, sizeof p->instance, "%s", jstr(j, "instance"));
	snprintf(p->region, sizeof p->region, "%s", jstr(j, "region"));
	snprintf(p->as_of, sizeof p->as_of, "%s", jstr(j, "as_of"));
	snprintf(p->source, sizeof p->source, "%s", jstr(j, "source"));
	p->usd_per_hour = jnum(j, "usd_per_hour");
	p->accelerators = (int)jnum(j, "accelerators");
	p->line = (int)jnum(j, "line");
	p->unit = !strcmp(jstr(j, "unit"), "chip") ? PRICE_PER_CHIP : PRICE_PER_INSTANCE;
	return price_parse_model(jstr(j, "pricing_model"), &p->model);
}

static cJSON *make_record(const record_tool *tool, const char *name, const char *created,
			  const record_eval *ev, cJSON *options, const baseline_rules *rules)
{
	cJSON *rec = cJSON_CreateObject(), *t = cJSON_CreateObject(), *in = cJSON_CreateArray();
	cJSON *prices = cJSON_CreateArray(), *lay = cJSON_CreateObject();
	const plan *p = ev->w.mode == WL_TRAIN ? &ev->tr.plan : &ev->ir.plan;
	char text[4096];
	cJSON_AddNumberToObject(rec, "schema_version", BASELINE_SCHEMA_VERSION);
	cJSON_AddStringToObject(rec, "name", name);
	cJSON_AddStringToObject(rec, "created_at", created);
	cJSON_AddStringToObject(t, "version", tool->version);
	cJSON_AddStringToObject(t, "build", tool->build);
	cJSON_AddItemToObject(rec, "tool", t);
	cJSON_AddStringToObject(rec, "workload", ev->w.name);
	cJSON_AddStringToObject(rec, "system", ev->sys.name);
	cJSON_AddStringToObject(rec, "mode", wl_mode_names[ev->w.mode]);
	cJSON_AddItemToObject(rec, "options", options);
	for (int i = 0; i < ev->nin; i++) {
		cJSON *it = cJSON_CreateObject();
		cJSON_AddStringToObject(it, "role", ev->in[i].role);
		cJSON_AddStringToObject(it, "path", ev->in[i].path);
		cJSON_AddStringToObject(it, "sha256", ev->in[i].sha256);
		cJSON_AddStringToObject(it, "text", ev->in[i].text);
		cJSON_AddItemToArray(in, it);
	}
	cJSON_AddItemToObject(rec, "inputs", in);
	if (ev->cost.have_price)
		cJSON_AddItemToArray(prices, price_json(ev));
	cJSON_AddItemToObject(rec, "prices", prices);
	cJSON_AddStringToObject(rec, "price_note", ev->cost.note);
	cJSON_AddStringToObject(rec, "pricing_model", price_model_names[ev->cost.pricing]);
	cJSON_AddStringToObject(rec, "region", ev->cost.have_price ? ev->cost.price.region : ev->w.cost.region);
	cJSON_AddStringToObject(rec, "as_of", ev->cost.as_of);
	cJSON_AddNumberToObject(lay, "tp", p->tp);
	cJSON_AddNumberToObject(lay, "pp", p->pp);
	cJSON_AddNumberToObject(lay, "vpp", p->vpp);
	cJSON_AddNumberToObject(lay, "dp", p->dp);
	cJSON_AddNumberToObject(lay, "cp", p->cp);
	cJSON_AddNumberToObject(lay, "ep", p->ep);
	cJSON_AddNumberToObject(lay, "sp", p->sp);
	cJSON_AddNumberToObject(lay, "micro_batch", p->micro_batch);
	cJSON_AddItemToObject(rec, "layout", lay);
	cJSON_AddNumberToObject(rec, "chips", p->chips);
	cJSON_AddItemToObject(rec, "results", cJSON_Duplicate(ev->results, 1));
	baseline_criteria_text(rules, text, sizeof text);
	cJSON_AddStringToObject(rec, "criteria", text);
	baseline_tolerance_text(rules, text, sizeof text);
	cJSON_AddStringToObject(rec, "tolerance", text);
	return rec;
}

int record_freeze(db *store, const record_tool *tool, const char *name, const record_eval *ev,
		  cJSON *options, const baseline_rules *rules, db_baseline *row, err *e)
{
	char created[DB_TIME_MAX], *text;
	cJSON *rec;
	int rc;
	memset(row, 0, sizeof *row);
	os_now_utc(created, sizeof created);
	rec = make_record(tool, name, created, ev, options, rules);
	if (!rec || !(text = baseline_canonical(rec, 0))) {
		cJSON_Delete(rec);
		return err_set(e, ERR_DATA, "out of memory");
	}
	snprintf(row->name, sizeof row->name, "%s", name);
	snprintf(row->workload, sizeof row->workload, "%s", ev->w.name);
	snprintf(row->system, sizeof row->system, "%s", ev->sys.name);
	snprintf(row->created_at, sizeof row->created_at, "%s", created);
	row->criteria = strdup(jstr(rec, "criteria"));
	row->tolerance = strdup(jstr(rec, "tolerance"));
	row->record = text;
	cJSON_Delete(rec);
	if (!row->criteria || !row->tolerance) {
		db_baseline_release(row);
		return err_set(e, ERR_DATA, "out of memory");
	}
	baseline_sha256(text, strlen(text), row->sha256);
	if ((rc = db_baseline_add(store, row, &tool->key, e)) != 0)
		db_baseline_release(row);
	return rc;
}

int record_rules(const cJSON *rec, baseline_rules *r, err *e)
{
	memset(r, 0, sizeof *r);
	if (baseline_parse_criteria(jstr(rec, "criteria"), r, e) != 0 ||
	    baseline_parse_tolerance(jstr(rec, "tolerance"), r, e) != 0) {
		err_prefix(e, "the record's rules");
		e->code = ERR_DATA;
		return ERR_DATA;
	}
	return 0;
}

/* ---- a data folder of frozen inputs */

typedef struct frozen_dir {
	char dir[RECORD_PATH_MAX];
	char made[32][RECORD_PATH_MAX + 64];   /* files and folders made, to remove in reverse */
	int nmade;
	char wl[RECORD_PATH_MAX], sys[RECORD_PATH_MAX];  /* stems to evaluate */
	record_paths paths;
} frozen_dir;

static int made(frozen_dir *fd, const char *path, err *e)
{
	if (fd->nmade == (int)(sizeof fd->made / sizeof fd->made[0]))
		return err_set(e, ERR_DATA, "%s: too many frozen files", fd->dir);
	snprintf(fd->made[fd->nmade++], sizeof fd->made[0], "%s", path);
	return 0;
}

/* Makes fd->dir/rel and the folders above it. */
static int make_dirs(frozen_dir *fd, const char *rel, err *e)
{
	char path[RECORD_PATH_MAX + 64];
	size_t base = strlen(fd->dir) + 1;
	snprintf(path, sizeof path, "%s/%s", fd->dir, rel);
	for (char *p = path + base;; p++) {
		if (*p == '/' || *p == '\0') {
			char c = *p;
			*p = '\0';
			if (mkdir(path, 0700) == 0) {
				if (made(fd, path, e) != 0)
					return ERR_DATA;
			} else if (errno != EEXIST) {
				return err_set(e, ERR_DATA, "%s: cannot make the folder: %s", path, strerror(errno));
			}
			*p = c;
			if (!c)
				break;
		}
	}
	return 0;
}

static void frozen_close(frozen_dir *fd)
{
	static const char *const sfx[] = {"", "-wal", "-shm", "-journal"};
	if (!fd->dir[0])
		return;
	for (int i = 0; i < 4; i++) {
		char p[RECORD_PATH_MAX + 32];
		snprintf(p, sizeof p, "%s/frozen.db%s", fd->dir, sfx[i]);
		unlink(p);
	}
	for (int i = fd->nmade - 1; i >= 0; i--)
		if (unlink(fd->made[i]) != 0)
			rmdir(fd->made[i]);
	rmdir(fd->dir);
	fd->dir[0] = '\0';
}

/* Writes one input text at its place; role workload / system also names what to evaluate. */
static int place(frozen_dir *fd, const char *role, const char *path, const char *text, err *e)
{
	const char *dir = role_dir(role);
	char file[RECORD_PATH_MAX + 64];
	if (!dir)
		return err_set(e, ERR_DATA, "the record holds a '%s' input, which this roofcost does not read", role);
	if (make_dirs(fd, dir, e) != 0)
		return ERR_DATA;
	snprintf(file, sizeof file, "%s/%s/%s", fd->dir, dir, os_base_name(path));
	if (os_write_file(file, text, e) != 0 || made(fd, file, e) != 0)
		return ERR_DATA;
	if (!strcmp(role, "workload"))
		os_stem(path, fd->wl, sizeof fd->wl);
	if (!strcmp(role, "system"))
		os_stem(path, fd->sys, sizeof fd->sys);
	return 0;
}

/* A store holding only the record's price rows, each under its catalog's path and SHA-256. */
static int frozen_store(const char *path, const cJSON *rec, err *e)
{
	db *d = NULL;
	const cJSON *it;
	int rc = db_open(path, NULL, NULL, &d, e);
	cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(rec, "prices")) {
		price_catalog c;
		price_row row;
		db_import_result r;
		const cJSON *cat = cJSON_GetObjectItemCaseSensitive(it, "catalog");
		if (rc != 0)
			break;
		memset(&c, 0, sizeof c);
		if (record_price_of_json(it, &row) != 0) {
			rc = err_set(e, ERR_DATA, "the record's price row has an unknown pricing model");
			break;
		}
		snprintf(c.path, sizeof c.path, "%s", jstr(cat, "path"));
		snprintf(c.sha256, sizeof c.sha256, "%s", jstr(cat, "sha256"));
		c.rows = &row;
		c.n = 1;
		rc = db_import(d, &c, &r, e);
	}
	db_close(d);
	return rc;
}

/* Lays out a data folder with the record's frozen inputs and a store with its frozen price.
 * swap: one role (or "price") brought to today, from today's evaluation, with today's files
 * of other roles beside the frozen ones wherever their names differ (so that what the swapped
 * file names is found). */
static int frozen_open(const cJSON *rec, const record_paths *real, const record_eval *today,
		       const char *swap, frozen_dir *fd, err *e)
{
	const char *tmp = getenv("TMPDIR");
	const cJSON *it, *inputs = cJSON_GetObjectItemCaseSensitive(rec, "inputs");
	int swap_price = swap && !strcmp(swap, "price");
	memset(fd, 0, sizeof *fd);
	snprintf(fd->dir, sizeof fd->dir, "%s/roofcost-frozen-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(fd->dir)) {
		err_set(e, ERR_DATA, "%s: cannot make a temporary folder: %s", fd->dir, strerror(errno));
		fd->dir[0] = '\0';
		return ERR_DATA;
	}
	cJSON_ArrayForEach(it, inputs) {
		const char *role = jstr(it, "role");
		const record_input *now = today ? input_of(today, role) : NULL;
		if (swap && !swap_price && now && (!strcmp(role, swap) ||
						   strcmp(os_base_name(now->path), os_base_name(jstr(it, "path"))))) {
			if (place(fd, role, now->path, now->text, e) != 0)
				goto bad;
			if (!strcmp(role, swap))
				continue;
		}
		if (place(fd, role, jstr(it, "path"), jstr(it, "text"), e) != 0)
			goto bad;
	}
	/* An input today's evaluation reads that the record does not hold. */
	for (int i = 0; swap && !swap_price && today && i < today->nin; i++) {
		int held = 0;
		cJSON_ArrayForEach(it, inputs) {
			held |= !strcmp(jstr(it, "role"), today->in[i].role);
		}
		if (!held && !strcmp(today->in[i].role, swap) &&
		    place(fd, today->in[i].role, today->in[i].path, today->in[i].text, e) != 0)
			goto bad;
	}
	snprintf(fd->paths.home, sizeof fd->paths.home, "%s", fd->dir);
	snprintf(fd->paths.models, sizeof fd->paths.models, "%s/models", fd->dir);
	snprintf(fd->paths.workloads, sizeof fd->paths.workloads, "%s/workloads", fd->dir);
	snprintf(fd->paths.catalogs, sizeof fd->paths.catalogs, "%s/catalogs", fd->dir);
	if (swap_price) {
		snprintf(fd->paths.db, sizeof fd->paths.db, "%s", real->db);
	} else {
		snprintf(fd->paths.db, sizeof fd->paths.db, "%s/frozen.db", fd->dir);
		if (frozen_store(fd->paths.db, rec, e) != 0)
			goto bad;
	}
	return 0;
bad:
	frozen_close(fd);
	return ERR_DATA;
}

/* Evaluates the record: with today's data (frozen 0; *store the real store), or from its
 * frozen inputs with swap (NULL: none) brought to today. Frozen with no swap also checks that
 * every input read is the frozen one. Returns a new evaluation, or NULL with e set. */
static record_eval *eval_record(const cJSON *rec, const record_paths *paths, const record_tool *tool,
				db **store, int frozen, const char *as_of, const record_eval *today,
				const char *swap, err *e)
{
	record_eval *ev = calloc(1, sizeof *ev);
	frozen_dir *fd = frozen ? calloc(1, sizeof *fd) : NULL;
	const cJSON *options = cJSON_GetObjectItemCaseSensitive(rec, "options");
	int rc;
	if (!ev || (frozen && !fd)) {
		free(ev);
		free(fd);
		err_set(e, ERR_DATA, "out of memory");
		return NULL;
	}
	if (!frozen) {
		rc = evaluate(paths, options, NULL, NULL, as_of, tool, store, ev, e);
	} else {
		db *fs = NULL;
		rc = frozen_open(rec, paths, today, swap, fd, e);
		if (rc == 0) {
			rc = evaluate(&fd->paths, options, fd->wl, fd->sys, swap && !strcmp(swap, "price") ? as_of : NULL,
				      tool, &fs, ev, e);
			db_close(fs);
		}
		if (rc == 0 && !swap) {
			const cJSON *it;
			cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(rec, "inputs")) {
				const record_input *in = input_of(ev, jstr(it, "role"));
				if (!in || strcmp(in->sha256, jstr(it, "sha256")) != 0) {
					rc = err_set(e, ERR_DATA, "--frozen: the %s read is not the frozen one (%s): "
						     "a file named by path is read from where it is today",
						     jstr(it, "role"), in ? in->path : "not read at all");
					break;
				}
			}
			for (int i = 0; rc == 0 && i < ev->nin; i++) {
				int held = 0;
				cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(rec, "inputs")) {
					held |= !strcmp(jstr(it, "role"), ev->in[i].role);
				}
				if (!held)
					rc = err_set(e, ERR_DATA, "--frozen: this roofcost reads a %s file (%s), which "
						     "the record does not hold", ev->in[i].role, ev->in[i].path);
			}
		}
		frozen_close(fd);
		free(fd);
	}
	if (rc != 0) {
		if (e->code == ERR_USAGE)
			e->code = ERR_DATA;
		record_eval_free(ev);
		return NULL;
	}
	return ev;
}

/* ---- judging and explaining */

static void values_of(const cJSON *results, const record_check *c, baseline_value *v)
{
	for (int f = 0; f < c->nfig; f++)
		baseline_value_of(results, c->names[f], &v[f]);
}

void record_price_text(const price_row *p, const char *cat, char *buf, size_t n)
{
	snprintf(buf, n, "%s %s %s %s $%g/h per %s (%d chips) as_of %s (%s)", p->provider, p->instance,
		 p->region, price_model_names[p->model], p->usd_per_hour, price_unit_names[p->unit],
		 p->accelerators, p->as_of, cat[0] ? cat : "no catalog");
}

int record_same_price(const price_row *a, const price_row *b)
{
	return !strcmp(a->provider, b->provider) && !strcmp(a->instance, b->instance) &&
	       !strcmp(a->region, b->region) && a->model == b->model && a->usd_per_hour == b->usd_per_hour &&
	       a->unit == b->unit && a->accelerators == b->accelerators && !strcmp(a->as_of, b->as_of) &&
	       !strcmp(a->source, b->source);
}

/* The data causes: every frozen input whose text differs from today's, and the price row. */
static int find_causes(const cJSON *rec, const record_eval *now, record_check *c, err *e)
{
	const cJSON *it, *prices = cJSON_GetObjectItemCaseSensitive(rec, "prices");
	const cJSON *pr = cJSON_GetArrayItem(prices, 0);
	price_row was;
	int had = pr != NULL;
	c->ndata = 0;
	cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(rec, "inputs")) {
		const char *role = jstr(it, "role"), *path = jstr(it, "path");
		const record_input *in = input_of(now, role);
		record_cause *k;
		int more = 0;
		if (in && !strcmp(in->sha256, jstr(it, "sha256")) && !strcmp(in->path, path))
			continue;
		if (c->ndata == BASELINE_CAUSES_MAX)
			break;
		k = &c->cause[1 + c->ndata++];
		memset(k, 0, sizeof *k);
		snprintf(k->kind, sizeof k->kind, "input");
		snprintf(k->role, sizeof k->role, "%s", role);
		snprintf(k->path, sizeof k->path, "%s", in ? in->path : path);
		if (!in) {
			snprintf(k->label, sizeof k->label, "%s: no longer read", path);
			snprintf(k->detail[k->ndetail++], sizeof k->detail[0], "%s (%s): no longer read", path, role);
			continue;
		}
		if (strcmp(in->path, path) != 0)
			snprintf(k->detail[k->ndetail++], sizeof k->detail[0], "%s: read from %s, was %s", role,
				 in->path, path);
		k->nchanges = baseline_ini_diff(in->path, jstr(it, "text"), in->text, k->changes,
						(int)(sizeof k->changes / sizeof k->changes[0]), &more, e);
		if (k->nchanges < 0)
			return ERR_DATA;
		snprintf(k->label, sizeof k->label, "%s:", in->path);
		for (int i = 0; i < k->nchanges; i++) {
			size_t l = strlen(k->label);
			if (i < 4)
				snprintf(k->label + l, sizeof k->label - l, "%s %s", i ? "," : "", k->changes[i].key);
			if (k->ndetail < (int)(sizeof k->detail / sizeof k->detail[0]))
				baseline_change_text(in->path, &k->changes[i], k->detail[k->ndetail++], sizeof k->detail[0]);
		}
		if (k->nchanges > 4 || more) {
			size_t l = strlen(k->label);
			snprintf(k->label + l, sizeof k->label - l, " and %d more", k->nchanges - 4 + more);
		}
		if (k->nchanges == 0 && strcmp(in->path, path) == 0) {
			snprintf(k->label + strlen(k->label), sizeof k->label - strlen(k->label), " comments or layout");
			snprintf(k->detail[k->ndetail++], sizeof k->detail[0],
				 "%s: the text changed but no key did (comments or layout)", in->path);
		}
	}
	/* What today's evaluation reads that the record does not hold (a file added since). */
	for (int i = 0; i < now->nin && c->ndata < BASELINE_CAUSES_MAX; i++) {
		int held = 0;
		record_cause *k;
		cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(rec, "inputs")) {
			held |= !strcmp(jstr(it, "role"), now->in[i].role);
		}
		if (held)
			continue;
		k = &c->cause[1 + c->ndata++];
		memset(k, 0, sizeof *k);
		snprintf(k->kind, sizeof k->kind, "input");
		snprintf(k->role, sizeof k->role, "%s", now->in[i].role);
		snprintf(k->path, sizeof k->path, "%s", now->in[i].path);
		snprintf(k->label, sizeof k->label, "%s: read now, not when recorded", now->in[i].path);
		snprintf(k->detail[k->ndetail++], sizeof k->detail[0], "%s: a %s file read now that the record "
			 "does not hold", now->in[i].path, now->in[i].role);
	}
	if (had && record_price_of_json(pr, &was) != 0)
		return err_set(e, ERR_DATA, "the record's price row has an unknown pricing model");
	if ((had != now->cost.have_price || (had && !record_same_price(&was, &now->cost.price))) &&
	    c->ndata < BASELINE_CAUSES_MAX) {
		record_cause *k = &c->cause[1 + c->ndata++];
		char a[PRICE_SOURCE_MAX + 256], b[PRICE_SOURCE_MAX + 256];
		memset(k, 0, sizeof *k);
		snprintf(k->kind, sizeof k->kind, "price");
		snprintf(k->role, sizeof k->role, "price");
		if (had)
			record_price_text(&was, jstr(cJSON_GetObjectItemCaseSensitive(pr, "catalog"), "path"), a, sizeof a);
		else
			snprintf(a, sizeof a, "no price (%s)", jstr(rec, "price_note"));
		if (now->cost.have_price)
			record_price_text(&now->cost.price, now->have_catalog ? now->catalog_path : "", b, sizeof b);
		else
			snprintf(b, sizeof b, "no price (%s)", now->cost.note);
		if (had && now->cost.have_price)
			snprintf(k->label, sizeof k->label, "price: $%g/h as_of %s -> $%g/h as_of %s", was.usd_per_hour,
				 was.as_of, now->cost.price.usd_per_hour, now->cost.price.as_of);
		else
			snprintf(k->label, sizeof k->label, "price: %s", had ? "none today" : "none when recorded");
		snprintf(k->detail[k->ndetail++], sizeof k->detail[0], "price row: %s -> %s", a, b);
	}
	return 0;
}

static void tool_cause(const cJSON *rec, const record_tool *tool, record_check *c)
{
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(rec, "tool");
	record_cause *k = &c->cause[0];
	memset(k, 0, sizeof *k);
	snprintf(c->tool_rec, sizeof c->tool_rec, "roofcost %s (%s)", jstr(t, "version"), jstr(t, "build"));
	snprintf(c->tool_now, sizeof c->tool_now, "roofcost %s (%s)", tool->version, tool->build);
	snprintf(k->kind, sizeof k->kind, "tool");
	snprintf(k->role, sizeof k->role, "tool");
	if (strcmp(c->tool_rec, c->tool_now) != 0) {
		snprintf(k->label, sizeof k->label, "tool: %s -> %s", c->tool_rec, c->tool_now);
		snprintf(k->detail[k->ndetail++], sizeof k->detail[0],
			 "tool: %s -> %s: the frozen inputs give this figure another value", c->tool_rec, c->tool_now);
	} else {
		snprintf(k->label, sizeof k->label, "tool: same version and build, other figure");
		snprintf(k->detail[k->ndetail++], sizeof k->detail[0],
			 "tool: %s as recorded, yet the frozen inputs give another value (a change not committed?)",
			 c->tool_now);
	}
}

/* A frozen price row that the store holds under the same offer, as_of and catalog with other
 * figures: rows are history (import refuses another price for an offer and as_of), so it was
 * changed behind the tool's back. A row of another catalog under the same offer and as_of
 * (a record imported from another store) is not. */
static int price_tampered(db *store, const db_baseline *row, const cJSON *rec, err *e)
{
	const cJSON *it;
	if (!store)
		return 0;
	cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(rec, "prices")) {
		price_row was, now;
		char path[PRICE_PATH_MAX], sha[DB_SHA_HEX];
		int found;
		const char *frozen_sha = jstr(cJSON_GetObjectItemCaseSensitive(it, "catalog"), "sha256");
		if (record_price_of_json(it, &was) != 0)
			return err_set(e, ERR_DATA, "baseline '%s': the record's price row has an unknown pricing model",
				       row->name);
		if (db_price_get(store, &was, &now, path, sizeof path, sha, &found, e) != 0)
			return ERR_DATA;
		if (!found || strcmp(sha, frozen_sha) != 0)
			continue;
		if (now.usd_per_hour != was.usd_per_hour || now.unit != was.unit ||
		    now.accelerators != was.accelerators || strcmp(now.source, was.source) != 0)
			return err_set(e, ERR_DATA, "baseline '%s': the price row %s %s %s %s as_of %s of %s:%d is $%g/h "
				       "per %s (%d chips) in the store, frozen at $%g/h per %s (%d chips): a price row "
				       "changed under the same as_of and catalog is the store altered behind the tool's "
				       "back, not drift (see 'roofcost baseline verify')", row->name, was.provider,
				       was.instance, was.region, price_model_names[was.model], was.as_of, path, now.line,
				       now.usd_per_hour, price_unit_names[now.unit], now.accelerators, was.usd_per_hour,
				       price_unit_names[was.unit], was.accelerators);
	}
	return 0;
}

int record_check_one(const record_audit *a, int i, const record_paths *paths, const record_tool *tool,
		     db **store, const record_check_opts *o, record_check *c, err *e)
{
	const db_baseline *row = &a->rows[i];
	cJSON *rec;
	baseline_rules rules;
	record_eval *now = NULL, *fz = NULL;
	const cJSON *recorded;
	int rc = 0, moved = 0;
	memset(c, 0, sizeof *c);
	c->frozen = o->frozen;
	c->fail_any = o->fail_any;
	snprintf(c->as_of, sizeof c->as_of, "%s", o->as_of && !o->frozen ? o->as_of : "");
	if (record_usable(a, i, e) != 0)
		return ERR_DATA;
	if (!(rec = cJSON_Parse(row->record)))
		return err_set(e, ERR_DATA, "baseline '%s': cannot read the record", row->name);
	if (!(jnum(rec, "schema_version") <= BASELINE_SCHEMA_VERSION)) {
		err_set(e, ERR_DATA, "baseline '%s': record schema version %g is newer than this roofcost's %d",
			row->name, jnum(rec, "schema_version"), BASELINE_SCHEMA_VERSION);
		goto done_err;
	}
	if (record_rules(rec, &rules, e) != 0)
		goto done_err;
	recorded = cJSON_GetObjectItemCaseSensitive(rec, "results");
	c->nfig = baseline_figures(jstr(rec, "mode"), &rules, c->names, RECORD_FIGURES_MAX);
	values_of(recorded, c, c->rec);
	tool_cause(rec, tool, c);
	if (price_tampered(*store, row, rec, e) != 0)
		goto done_err;
	if (!(now = eval_record(rec, paths, tool, store, o->frozen, o->frozen ? NULL : o->as_of, NULL, NULL, e)))
		goto done_err;
	values_of(now->results, c, c->now);
	for (int f = 0; f < c->nfig; f++) {
		baseline_judge(&rules, c->names[f], &c->rec[f], &c->now[f], &c->j[f]);
		c->failed += baseline_fails(&c->j[f], o->fail_any);
		c->improved += c->j[f].improved && !c->j[f].fell_short;
		c->regressed += c->j[f].regressed || c->j[f].fell_short;
		moved |= c->j[f].moved;
	}
	if (moved && o->frozen) {
		/* From the frozen inputs, only the tool can have moved a figure. */
		for (int f = 0; f < c->nfig; f++)
			c->why[f] = c->j[f].moved ? 1u : 0u;
	} else if (moved) {
		baseline_value *fv = NULL, *sv[BASELINE_CAUSES_MAX] = {NULL};
		err ignored = {0};
		if ((rc = find_causes(rec, now, c, e)) != 0)
			goto done;
		fz = eval_record(rec, paths, tool, store, 1, NULL, NULL, NULL, &ignored);
		if (fz && (fv = malloc(RECORD_FIGURES_MAX * sizeof *fv))) {
			values_of(fz->results, c, fv);
		} else if (!fz) {
			/* Then no cause can be told from another: each gets every moved figure. */
			record_cause *t = &c->cause[0];
			snprintf(t->label, sizeof t->label, "tool: the frozen inputs do not evaluate with %s", c->tool_now);
			snprintf(t->detail[0], sizeof t->detail[0], "tool: %s -> %s: the frozen inputs do not evaluate "
				 "with it (%.400s), so what moved cannot be told apart", c->tool_rec, c->tool_now, ignored.msg);
			t->ndetail = 1;
		}
		for (int k = 0; k < c->ndata; k++) {
			record_eval *sw = eval_record(rec, paths, tool, store, 1, o->as_of, now, c->cause[1 + k].role,
						      &ignored);
			if (sw && (sv[k] = malloc(RECORD_FIGURES_MAX * sizeof *sv[k])))
				values_of(sw->results, c, sv[k]);
			record_eval_free(sw);
		}
		baseline_attribute(c->nfig, c->rec, c->now, fv, c->ndata, (const baseline_value *const *)sv, c->why);
		free(fv);
		for (int k = 0; k < c->ndata; k++)
			free(sv[k]);
	}
done:
	record_eval_free(now);
	record_eval_free(fz);
	cJSON_Delete(rec);
	return rc;
done_err:
	rc = ERR_DATA;
	goto done;
}

/* ---- a check's forms */

cJSON *record_value_json(const baseline_value *v)
{
	switch (v->kind) {
	case BASELINE_NUM: return cJSON_CreateNumber(v->num);
	case BASELINE_BOOL: return cJSON_CreateBool(v->num != 0);
	case BASELINE_TEXT: return cJSON_CreateString(v->text);
	default: return cJSON_CreateNull();
	}
}

void record_change_text(const baseline_judgement *j, char *buf, size_t n)
{
	if (!j->moved)
		snprintf(buf, n, "%s", "");
	else if (isnan(j->change))
		snprintf(buf, n, "changed");
	else if (fabs(j->change) < 1e-4)
		snprintf(buf, n, "%+.2g%%", 100 * j->change);
	else
		snprintf(buf, n, "%+.2f%%", 100 * j->change);
}

void record_why_text(const record_check *c, int f, char *buf, size_t n)
{
	buf[0] = '\0';
	for (int k = 0; k <= c->ndata; k++) {
		size_t l = strlen(buf);
		if (c->why[f] & (1u << k))
			snprintf(buf + l, n - l, "%s%s", l ? "; " : "", c->cause[k].label);
	}
	if (c->j[f].moved && !buf[0])
		snprintf(buf, n, "unexplained: no frozen input, price or tool changed");
}

int record_cause_used(const record_check *c, int k)
{
	for (int f = 0; f < c->nfig; f++)
		if (c->why[f] & (1u << k))
			return 1;
	return 0;
}

cJSON *record_check_json(const db_baseline *row, const record_check *c)
{
	cJSON *o = cJSON_CreateObject(), *figs = cJSON_CreateArray(), *causes = cJSON_CreateArray();
	cJSON_AddStringToObject(o, "name", row->name);
	cJSON_AddStringToObject(o, "workload", row->workload);
	cJSON_AddStringToObject(o, "system", row->system);
	cJSON_AddStringToObject(o, "created_at", row->created_at);
	cJSON_AddBoolToObject(o, "frozen", c->frozen);
	cJSON_AddBoolToObject(o, "passed", c->failed == 0);
	cJSON_AddNumberToObject(o, "failed", c->failed);
	cJSON_AddNumberToObject(o, "regressed", c->regressed);
	cJSON_AddNumberToObject(o, "improved", c->improved);
	cJSON_AddStringToObject(o, "fail_on", c->fail_any ? "any" : "regressed");
	if (c->as_of[0])
		cJSON_AddStringToObject(o, "as_of", c->as_of);
	cJSON_AddStringToObject(o, "tool_recorded", c->tool_rec);
	cJSON_AddStringToObject(o, "tool_now", c->tool_now);
	for (int f = 0; f < c->nfig; f++) {
		cJSON *it = cJSON_CreateObject(), *why = cJSON_CreateArray();
		cJSON_AddStringToObject(it, "figure", c->names[f]);
		cJSON_AddItemToObject(it, "recorded", record_value_json(&c->rec[f]));
		cJSON_AddItemToObject(it, "now", record_value_json(&c->now[f]));
		cJSON_AddItemToObject(it, "change", json_num_or_null(c->j[f].moved ? c->j[f].change : 0));
		cJSON_AddStringToObject(it, "limit", c->j[f].limit);
		cJSON_AddStringToObject(it, "verdict", c->j[f].verdict);
		cJSON_AddStringToObject(it, "direction", !c->j[f].drifted ? (c->j[f].moved ? "within" : "unchanged")
					: c->j[f].improved ? "improved" : "regressed");
		cJSON_AddStringToObject(it, "better", c->j[f].direction > 0 ? "higher" : c->j[f].direction < 0 ? "lower"
					: "unknown");
		cJSON_AddBoolToObject(it, "passed", !baseline_fails(&c->j[f], c->fail_any));
		for (int k = 0; k <= c->ndata; k++)
			if (c->why[f] & (1u << k))
				cJSON_AddItemToArray(why, cJSON_CreateString(c->cause[k].label));
		cJSON_AddItemToObject(it, "why", why);
		cJSON_AddItemToArray(figs, it);
	}
	cJSON_AddItemToObject(o, "figures", figs);
	for (int k = 0; k <= c->ndata; k++) {
		cJSON *it, *ch, *mv;
		if (!record_cause_used(c, k))
			continue;
		it = cJSON_CreateObject();
		ch = cJSON_CreateArray();
		mv = cJSON_CreateArray();
		cJSON_AddStringToObject(it, "kind", c->cause[k].kind);
		cJSON_AddStringToObject(it, "role", c->cause[k].role);
		if (c->cause[k].path[0])
			cJSON_AddStringToObject(it, "path", c->cause[k].path);
		cJSON_AddStringToObject(it, "label", c->cause[k].label);
		for (int i = 0; i < c->cause[k].nchanges; i++) {
			const baseline_change *x = &c->cause[k].changes[i];
			cJSON *d = cJSON_CreateObject();
			cJSON_AddStringToObject(d, "section", x->section);
			cJSON_AddStringToObject(d, "key", x->key);
			if (x->added)
				cJSON_AddNullToObject(d, "old");
			else
				cJSON_AddStringToObject(d, "old", x->old);
			if (x->removed)
				cJSON_AddNullToObject(d, "new");
			else
				cJSON_AddStringToObject(d, "new", x->now);
			cJSON_AddItemToArray(ch, d);
		}
		cJSON_AddItemToObject(it, "changes", ch);
		for (int i = 0; i < c->cause[k].ndetail; i++)
			cJSON_AddItemToArray(mv, cJSON_CreateString(c->cause[k].detail[i]));
		cJSON_AddItemToObject(it, "detail", mv);
		mv = cJSON_CreateArray();
		for (int f = 0; f < c->nfig; f++)
			if (c->why[f] & (1u << k))
				cJSON_AddItemToArray(mv, cJSON_CreateString(c->names[f]));
		cJSON_AddItemToObject(it, "moves", mv);
		cJSON_AddItemToArray(causes, it);
	}
	cJSON_AddItemToObject(o, "causes", causes);
	return o;
}

/* ---- the chain, import and differences */

/* What is wrong with stored record i (given the one before), "" if nothing; k: the key its
 * links are sealed with (NULL unkeyed). */
static void verify_one(const db_baseline *rows, int i, const baseline_key *k, char *why, size_t n)
{
	const db_baseline *b = &rows[i];
	char chain[BASELINE_SHA_HEX];
	cJSON *rec;
	why[0] = '\0';
	if (!baseline_sound(b->record, b->sha256, why, n))
		return;
	if (strcmp(b->prev_sha256, i ? rows[i - 1].chain_sha256 : baseline_genesis) != 0) {
		snprintf(why, n, "the chain is broken before it: it links to %.12s, the record before is %.12s",
			 b->prev_sha256, i ? rows[i - 1].chain_sha256 : baseline_genesis);
		return;
	}
	baseline_link(k, b->prev_sha256, b->sha256, chain);
	if (strcmp(chain, b->chain_sha256) != 0) {
		snprintf(why, n, "its chain hash is %.12s, computed %.12s%s", b->chain_sha256, chain,
			 k ? " under the key: rewritten by someone without it" : "");
		return;
	}
	rec = cJSON_Parse(b->record);
	if (strcmp(jstr(rec, "name"), b->name) || strcmp(jstr(rec, "workload"), b->workload) ||
	    strcmp(jstr(rec, "system"), b->system) || strcmp(jstr(rec, "created_at"), b->created_at) ||
	    strcmp(jstr(rec, "criteria"), b->criteria) || strcmp(jstr(rec, "tolerance"), b->tolerance))
		snprintf(why, n, "the store's columns (name, workload, system, created, criteria, tolerance) differ "
			 "from the record: renamed or edited behind the tool's back (the record says it is '%.100s')",
			 jstr(rec, "name"));
	cJSON_Delete(rec);
}

/* The key a store's links are checked with: the tool's for a keyed store, none otherwise. */
static const baseline_key *store_key(const record_audit *a, const record_tool *t)
{
	return !strcmp(a->head.mode, db_seal_modes[1]) && t->key.len ? &t->key : NULL;
}

int record_audit_open(db *store, const record_tool *t, record_audit *a, err *e)
{
	int checks = 0;
	memset(a, 0, sizeof *a);
	snprintf(a->chain_head, sizeof a->chain_head, "%s", baseline_genesis);
	a->counts_ok = 1;
	if (!store) {
		a->absent = 1;
		snprintf(a->head.mode, sizeof a->head.mode, "%s", db_seal_modes[t->key.len ? 1 : 0]);
		return 0;
	}
	if (db_head_get(store, &a->head, e) != 0 || db_baseline_list(store, &a->rows, &a->n, e) != 0 ||
	    db_check_count(store, &checks, e) != 0)
		return ERR_DATA;
	if (a->n && !(a->why = calloc((size_t)a->n, sizeof *a->why))) {
		record_audit_release(a);
		return err_set(e, ERR_DATA, "out of memory");
	}
	a->head_state = db_head_problem(&a->head, &t->key, a->head_why, sizeof a->head_why);
	for (int i = 0; i < a->n; i++) {
		if (a->head_state != 2)
			verify_one(a->rows, i, store_key(a, t), a->why[i], sizeof a->why[i]);
		a->bad += a->why[i][0] != '\0';
	}
	if (a->n)
		snprintf(a->chain_head, sizeof a->chain_head, "%s", a->rows[a->n - 1].chain_sha256);
	if (a->head.present && (a->head.records != a->n || strcmp(a->head.record_head, a->chain_head) != 0)) {
		a->counts_ok = 0;
		snprintf(a->counts_why, sizeof a->counts_why, "the chain head says %d records ending in %.12s, the store "
			 "holds %d ending in %.12s: records were %s behind the tool's back", a->head.records,
			 a->head.record_head, a->n, a->chain_head, a->n < a->head.records ? "deleted" : "added or rewritten");
	} else if (a->head.present && a->head.checks != checks) {
		a->counts_ok = 0;
		snprintf(a->counts_why, sizeof a->counts_why, "the chain head says %d checks were logged, the store holds "
			 "%d: the check log was %s behind the tool's back", a->head.checks, checks,
			 checks < a->head.checks ? "cut" : "added to");
	}
	return 0;
}

void record_audit_release(record_audit *a)
{
	db_baseline_free(a->rows, a->n);
	free(a->why);
	a->rows = NULL;
	a->why = NULL;
	a->n = 0;
}

int record_store_open(const char *path, db **store, char *note, size_t n, err *e)
{
	struct stat sb;
	char wal[RECORD_PATH_MAX + 8];
	*store = NULL;
	note[0] = '\0';
	snprintf(wal, sizeof wal, "%s-wal", path);
	if (stat(path, &sb) != 0 && errno == ENOENT) {
		snprintf(note, n, "there is no store at %s", path);
		return 0;
	}
	if (stat(path, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size == 0 && (stat(wal, &sb) != 0 || sb.st_size == 0)) {
		snprintf(note, n, "%s is empty (0 bytes): a store truncated, or one never written; not re-created", path);
		return 0;
	}
	return db_open_read(path, NULL, NULL, store, e);
}

int record_audit_find(const record_audit *a, const char *name)
{
	for (int i = 0; i < a->n; i++)
		if (!strcmp(a->rows[i].name, name))
			return i;
	return -1;
}

int record_usable(const record_audit *a, int i, err *e)
{
	if (a->head_state == 2)
		return err_set(e, ERR_DATA, "%s", a->head_why);
	if (a->why[i][0])
		return err_set(e, ERR_DATA, "baseline '%s': %s: the record changed behind the tool's back (see "
			       "'roofcost baseline verify')", a->rows[i].name, a->why[i]);
	if (a->head_state == 1 && strstr(a->head_why, "not keyed"))
		return err_set(e, ERR_DATA, "baseline '%s': %s", a->rows[i].name, a->head_why);
	return 0;
}

int record_audit_log(db *store, const record_tool *t, const record_audit *a, record_log_audit *l, err *e)
{
	db_check_row *rows = NULL;
	const baseline_key *k = store_key(a, t);
	char prev[DB_SHA_HEX];
	int n = 0;
	memset(l, 0, sizeof *l);
	snprintf(prev, sizeof prev, "%s", baseline_genesis);
	snprintf(l->head, sizeof l->head, "%s", baseline_genesis);
	if (!store)
		return 0;
	if (db_check_list(store, &rows, &n, e) != 0)
		return ERR_DATA;
	l->checks = n;
	for (int i = 0; i < n; i++) {
		char text[1024], sha[DB_SHA_HEX], link[DB_SHA_HEX];
		const db_check_row *c = &rows[i];
		const char *problem = NULL;
		db_check_text(c->record_sha256, c, text, sizeof text);
		baseline_sha256(text, strlen(text), sha);
		baseline_link(k, c->prev_sha256, sha, link);
		if (!c->record_name[0])
			problem = "it checks a record the store no longer holds";
		else if (strcmp(c->prev_sha256, prev) != 0)
			problem = "it does not link to the check before it: checks were deleted before it";
		else if (strcmp(link, c->chain_sha256) != 0)
			problem = "its link does not hold: the check was rewritten";
		if (problem) {
			if (!l->bad)
				snprintf(l->why, sizeof l->why, "check %d (of '%.100s', %s): %s", c->id, c->record_name,
					 c->checked_at, problem);
			l->bad++;
		}
		snprintf(prev, sizeof prev, "%s", c->chain_sha256);
	}
	if (n)
		snprintf(l->head, sizeof l->head, "%s", rows[n - 1].chain_sha256);
	if (a->head.present && a->head_state != 2 && (a->head.checks != n || strcmp(a->head.check_head, l->head) != 0)) {
		if (!l->bad)
			snprintf(l->why, sizeof l->why, "the chain head says %d checks ending in %.12s, the log holds %d "
				 "ending in %.12s: checks were %s behind the tool's back", a->head.checks,
				 a->head.check_head, n, l->head, n < a->head.checks ? "deleted" : "added or rewritten");
		l->bad++;
	}
	free(rows);
	return 0;
}

int record_audit_prices(db *store, record_price_audit *p, err *e)
{
	db_catalog *cats = NULL;
	int n = 0, orphans = 0;
	memset(p, 0, sizeof *p);
	if (!store)
		return 0;
	if (db_catalog_list(store, &cats, &n, e) != 0 || db_price_orphans(store, &orphans, e) != 0) {
		free(cats);
		return ERR_DATA;
	}
	p->catalogs = n;
	for (int i = 0; i < n; i++) {
		const db_catalog *c = &cats[i];
		p->rows += c->stored;
		if (!strcmp(c->computed, c->rows_sha256) && c->stored == c->added)
			continue;
		if (p->nwhy < (int)(sizeof p->why / sizeof p->why[0]))
			snprintf(p->why[p->nwhy++], sizeof p->why[0], "catalog %s (imported %s): its %d price rows hash to "
				 "%.12s, the store wrote %.12s for %d rows at the import: a price row was changed, added "
				 "or deleted behind the tool's back", c->path, c->imported_at, c->stored, c->computed,
				 c->rows_sha256, c->added);
		p->bad++;
	}
	if (orphans) {
		if (p->nwhy < (int)(sizeof p->why / sizeof p->why[0]))
			snprintf(p->why[p->nwhy++], sizeof p->why[0], "%d price rows name no stored catalog: a catalog was "
				 "deleted behind the tool's back", orphans);
		p->bad++;
	}
	free(cats);
	return 0;
}

char *record_export(const record_tool *t, const db_baseline *row)
{
	char mac[BASELINE_SHA_HEX];
	if (!t->key.len)
		return baseline_export(row->record, row->sha256);
	baseline_hmac(&t->key, row->record, strlen(row->record), mac);
	return baseline_export_keyed(row->record, row->sha256, mac);
}

int record_import(db *store, const record_tool *t, const char *file, db_baseline *row, err *e)
{
	cJSON *rec = NULL;
	char *doc = NULL, *text = NULL, mac[BASELINE_SHA_HEX], want[BASELINE_SHA_HEX];
	int rc = 0;
	memset(row, 0, sizeof *row);
	if (os_read_file(file, RECORD_FILE_MAX, &doc, e) != 0 || !(text = baseline_import(file, doc, row->sha256, e))) {
		rc = ERR_DATA;
		goto done;
	}
	/* Without a key anyone can recompute a document's sha256 after an edit; with one, its
	 * hmac_sha256 says the record is as the keyholder exported it. */
	if (baseline_import_hmac(doc, mac) && !t->key.len) {
		rc = err_set(e, ERR_DATA, "%s: the export is keyed (hmac_sha256): set ROOFCOST_RECORD_KEY to its key to "
			     "import it", file);
		goto done;
	}
	if (t->key.len) {
		if (!mac[0]) {
			rc = err_set(e, ERR_DATA, "%s: the export is not keyed (no hmac_sha256) and ROOFCOST_RECORD_KEY is "
				     "set: an unkeyed document can be edited and its sha256 recomputed by anyone", file);
			goto done;
		}
		baseline_hmac(&t->key, text, strlen(text), want);
		if (strcmp(mac, want) != 0) {
			rc = err_set(e, ERR_DATA, "%s: broken hmac_sha256: the record is not as the keyholder exported it "
				     "(edited, or ROOFCOST_RECORD_KEY is another key)", file);
			goto done;
		}
	}
	if (!(rec = cJSON_Parse(text))) {
		rc = err_set(e, ERR_DATA, "out of memory");
		goto done;
	}
	snprintf(row->name, sizeof row->name, "%s", jstr(rec, "name"));
	if (!record_valid_name(row->name)) {
		rc = err_set(e, ERR_DATA, "%s: record name '%s' is not a record name", file, row->name);
		goto done;
	}
	snprintf(row->workload, sizeof row->workload, "%s", jstr(rec, "workload"));
	snprintf(row->system, sizeof row->system, "%s", jstr(rec, "system"));
	snprintf(row->created_at, sizeof row->created_at, "%s", jstr(rec, "created_at"));
	row->criteria = strdup(jstr(rec, "criteria"));
	row->tolerance = strdup(jstr(rec, "tolerance"));
	row->record = text;
	text = NULL;
	if (!row->criteria || !row->tolerance)
		rc = err_set(e, ERR_DATA, "out of memory");
	else
		rc = db_baseline_add(store, row, &t->key, e);
done:
	if (rc != 0)
		db_baseline_release(row);
	cJSON_Delete(rec);
	free(doc);
	free(text);
	return rc;
}

int record_diff_figures(const cJSON *ra, const cJSON *rb, const char **names, int max)
{
	baseline_rules rules, rb_rules;
	err e = {0};
	int n = 0;
	if (record_rules(ra, &rules, &e) != 0)
		return 0;
	n = baseline_figures(jstr(ra, "mode"), &rules, names, max);
	if (record_rules(rb, &rb_rules, &e) == 0) {
		const char *more[RECORD_FIGURES_MAX];
		int m = baseline_figures(jstr(rb, "mode"), &rb_rules, more, RECORD_FIGURES_MAX);
		for (int i = 0; i < m && n < max; i++) {
			int have = 0;
			for (int k = 0; k < n; k++)
				have |= !strcmp(names[k], more[i]);
			if (!have)
				names[n++] = more[i];
		}
	}
	return n;
}

cJSON *record_diff_lines(const cJSON *ra, const cJSON *rb)
{
	cJSON *lines = cJSON_CreateArray();
	const cJSON *it;
	char line[1024];
	const cJSON *ta = cJSON_GetObjectItemCaseSensitive(ra, "tool"), *tb = cJSON_GetObjectItemCaseSensitive(rb, "tool");
	char ca[4096], cb[4096];
	err e = {0};
	if (!lines)
		return NULL;
	if (strcmp(jstr(ta, "version"), jstr(tb, "version")) || strcmp(jstr(ta, "build"), jstr(tb, "build"))) {
		snprintf(line, sizeof line, "tool: roofcost %s (%s) -> %s (%s)", jstr(ta, "version"), jstr(ta, "build"),
			 jstr(tb, "version"), jstr(tb, "build"));
		cJSON_AddItemToArray(lines, cJSON_CreateString(line));
	}
	ca[0] = cb[0] = '\0';
	cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(ra, "options")) {
		snprintf(ca + strlen(ca), sizeof ca - strlen(ca), " %s", jstr(it, "text"));
	}
	cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(rb, "options")) {
		snprintf(cb + strlen(cb), sizeof cb - strlen(cb), " %s", jstr(it, "text"));
	}
	if (strcmp(ca, cb)) {
		snprintf(line, sizeof line, "options:%s ->%s", ca, cb);
		cJSON_AddItemToArray(lines, cJSON_CreateString(line));
	}
	cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(ra, "inputs")) {
		const cJSON *other = NULL, *x;
		baseline_change ch[16];
		int more, k;
		cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(rb, "inputs")) {
			if (!strcmp(jstr(x, "role"), jstr(it, "role")))
				other = x;
		}
		if (!other) {
			snprintf(line, sizeof line, "%s: only in %s (%s)", jstr(it, "role"), jstr(ra, "name"), jstr(it, "path"));
			cJSON_AddItemToArray(lines, cJSON_CreateString(line));
			continue;
		}
		if (!strcmp(jstr(it, "sha256"), jstr(other, "sha256")))
			continue;
		if (strcmp(jstr(it, "path"), jstr(other, "path"))) {
			snprintf(line, sizeof line, "%s: %s -> %s", jstr(it, "role"), jstr(it, "path"), jstr(other, "path"));
			cJSON_AddItemToArray(lines, cJSON_CreateString(line));
		}
		k = baseline_ini_diff(jstr(other, "path"), jstr(it, "text"), jstr(other, "text"), ch, 16, &more, &e);
		for (int i = 0; i < k; i++) {
			baseline_change_text(jstr(other, "path"), &ch[i], line, sizeof line);
			cJSON_AddItemToArray(lines, cJSON_CreateString(line));
		}
		if (more) {
			snprintf(line, sizeof line, "%s: and %d more keys", jstr(other, "path"), more);
			cJSON_AddItemToArray(lines, cJSON_CreateString(line));
		}
	}
	{
		const cJSON *pa = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(ra, "prices"), 0);
		const cJSON *pb = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(rb, "prices"), 0);
		price_row x, y;
		memset(&x, 0, sizeof x);
		memset(&y, 0, sizeof y);
		if (pa)
			record_price_of_json(pa, &x);
		if (pb)
			record_price_of_json(pb, &y);
		if ((!pa) != (!pb) || (pa && !record_same_price(&x, &y))) {
			char sa[PRICE_SOURCE_MAX + 256] = "none", sb[PRICE_SOURCE_MAX + 256] = "none";
			if (pa)
				record_price_text(&x, jstr(cJSON_GetObjectItemCaseSensitive(pa, "catalog"), "path"), sa, sizeof sa);
			if (pb)
				record_price_text(&y, jstr(cJSON_GetObjectItemCaseSensitive(pb, "catalog"), "path"), sb, sizeof sb);
			snprintf(line, sizeof line, "price: %.400s -> %.400s", sa, sb);
			cJSON_AddItemToArray(lines, cJSON_CreateString(line));
		}
	}
	return lines;
}
