/* release: `roofcost baseline` below its options and tables (see release.h). */
#include "lib/release.h"

#include <cJSON.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "base/text.h"
#include "lib/setup.h"
#include "model/price.h"
#include "report/show.h"

void release_paths(const home_paths *p, record_paths *r)
{
	memset(r, 0, sizeof *r);
	snprintf(r->home, sizeof r->home, "%s", p->home);
	snprintf(r->models, sizeof r->models, "%s", p->models);
	snprintf(r->workloads, sizeof r->workloads, "%s", p->workloads);
	snprintf(r->catalogs, sizeof r->catalogs, "%s", p->catalogs);
	snprintf(r->db, sizeof r->db, "%s", p->db);
	r->db_default = p->db_default;
}

static void home_of(const record_paths *r, home_paths *p)
{
	memset(p, 0, sizeof *p);
	snprintf(p->home, sizeof p->home, "%s", r->home);
	snprintf(p->models, sizeof p->models, "%s", r->models);
	snprintf(p->workloads, sizeof p->workloads, "%s", r->workloads);
	snprintf(p->catalogs, sizeof p->catalogs, "%s", r->catalogs);
	snprintf(p->db, sizeof p->db, "%s", r->db);
	p->db_default = r->db_default;
}

int release_tool(record_tool *t, const char *version, const char *build, const char *key, err *e)
{
	memset(t, 0, sizeof *t);
	t->fn = release_evaluate;
	t->version = version;
	t->build = build;
	if (key && *key) {
		if (strlen(key) < BASELINE_KEY_MIN)
			return err_set(e, ERR_USAGE, "ROOFCOST_RECORD_KEY: %zu bytes; a key has at least %d (32 random "
				       "characters, kept as a CI secret)", strlen(key), BASELINE_KEY_MIN);
		t->key.bytes = key;
		t->key.len = strlen(key);
	}
	return 0;
}

/* ---- the evaluation a record replays */

/* The options of `roofcost eval` a record holds (its inputs and pricing), by their long names;
 * help is one of eval's too, which a record cannot take. */
static const struct {
	const char *name;
	int code;
} eval_options[] = {
	{"system", SETUP_OPT_SYSTEM},       {"workload", SETUP_OPT_WORKLOAD}, {"plan", SETUP_OPT_PLAN},
	{"set", SETUP_OPT_SET},             {"format", SETUP_OPT_FORMAT},     {"chips", SETUP_OPT_CHIPS},
	{"framework", SETUP_OPT_FRAMEWORK}, {"help", 'h'},                    {"pricing", SETUP_OPT_PRICING},
	{"as-of", SETUP_OPT_AS_OF},         {"price", SETUP_OPT_PRICE},       {"discount", SETUP_OPT_DISCOUNT},
	{"capex", SETUP_OPT_CAPEX},
};
enum { EVAL_OPTIONS = sizeof eval_options / sizeof eval_options[0] };

/* The option "--NAME[=VALUE]" names, as getopt_long finds it: the one of that name, else the
 * only one NAME begins; -1 for none or several. */
static int eval_option(const char *name, size_t len)
{
	int found = -1, n = 0;
	for (int i = 0; i < EVAL_OPTIONS; i++) {
		if (strlen(eval_options[i].name) == len && !strncmp(eval_options[i].name, name, len))
			return i;
		if (!strncmp(eval_options[i].name, name, len)) {
			found = i;
			n++;
		}
	}
	return n == 1 ? found : -1;
}

/* argv's options into o as getopt_long and setup_option read them (non-options are left, "--"
 * ends them). Returns 0, or ERR_DATA with e set. */
static int replayed(int argc, char **argv, setup_opts *o, err *e)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *eq, *value = NULL;
		int k, h;
		size_t len;
		if (!strcmp(a, "--"))
			break;
		if (strncmp(a, "--", 2) != 0 || !a[2])
			continue;
		eq = strchr(a + 2, '=');
		len = eq ? (size_t)(eq - (a + 2)) : strlen(a + 2);
		k = eval_option(a + 2, len);
		if (k >= 0 && eval_options[k].code != 'h') {
			if (eq)
				value = eq + 1;
			else if (i + 1 < argc)
				value = argv[++i];
		}
		h = value ? setup_option(eval_options[k].code, value, o, e) : 0;
		if (h != 1) {
			if (h == 0)
				err_set(e, ERR_DATA, "the record's option '%s' is not one this roofcost knows", argv[i]);
			else
				err_prefix(e, "the record's options");
			return ERR_DATA;
		}
	}
	return 0;
}

int release_evaluate(void *ctx, const record_paths *rp, int argc, char **argv, db **store, record_eval *ev,
		     err *e)
{
	home_paths *paths = malloc(sizeof *paths);
	setup_opts o;
	rank_view rep;
	int rc;
	(void)ctx;
	if (!paths)
		return err_set(e, ERR_DATA, "out of memory");
	home_of(rp, paths);
	setup_init(&o);
	rc = replayed(argc, argv, &o, e);
	if (rc == 0)
		rc = setup_load(paths, &o, o.system, &ev->sys, &ev->w, &ev->p, e);
	if (rc == 0) {
		memset(&rep, 0, sizeof rep);
		rep.sys = &ev->sys;
		rep.w = &ev->w;
		if (ev->w.mode == WL_TRAIN) {
			train_eval(&ev->sys, &ev->w, &ev->p, &ev->tr, NULL);
			rep.train = &ev->tr;
		} else {
			infer_eval(&ev->sys, &ev->w, &ev->p, &ev->ir, NULL, NULL);
			rep.infer = &ev->ir;
		}
		if (setup_cost(paths, store, &o, &ev->sys, &ev->w, rep.train, rep.infer, &ev->cost, e) != 0)
			rc = ERR_DATA;
	}
	if (rc == 0) {
		rep.cost = &ev->cost;
		if (!(ev->results = show_json(&rep)))
			rc = err_set(e, ERR_DATA, "out of memory");
	}
	free(paths);
	return rc;
}

/* ---- record */

int release_figures(const char *mode, const baseline_rules *rules, const cJSON *results, release_figure *out,
		    int max)
{
	const char *names[RECORD_FIGURES_MAX];
	int n = baseline_figures(mode, rules, names, RECORD_FIGURES_MAX);
	if (n > max)
		n = max;
	for (int f = 0; f < n; f++) {
		out[f].name = names[f];
		baseline_value_of(results, names[f], &out[f].v);
		baseline_judge(rules, names[f], &out[f].v, &out[f].v, &out[f].j);
	}
	return n;
}

int release_record(const home_paths *paths, const record_tool *t, db **store, const char *name, cJSON *options,
		   const char *criteria, const char *tolerance, release_made *m, err *e)
{
	record_paths rp;
	memset(m, 0, sizeof *m);
	m->age = NAN;
	release_paths(paths, &rp);
	if (baseline_parse_criteria(criteria, &m->rules, e) != 0 || baseline_parse_tolerance(tolerance, &m->rules, e) != 0 ||
	    home_open_db(paths, store, e) != 0 || record_name_free(*store, name, e) != 0 ||
	    record_evaluate(&rp, options, t, store, &m->ev, e) != 0 || record_rules_known(m->ev, &m->rules, e) != 0) {
		cJSON_Delete(options);
		return 1;
	}
	m->nfig = release_figures(wl_mode_names[m->ev->w.mode], &m->rules, m->ev->results, m->fig, RECORD_FIGURES_MAX);
	for (int f = 0; f < m->nfig; f++)
		m->fell_short += m->fig[f].j.fell_short;
	if (m->fell_short) {
		cJSON_Delete(options);
		return 0;
	}
	if (record_freeze(*store, t, name, m->ev, options, &m->rules, &m->row, e) != 0)
		return 1;
	{
		/* The price frozen against the record's day: a price older than [cost] price_age_days
		 * may predate a price change (the record keeps it as it is). */
		const record_eval *ev = m->ev;
		char day[11];
		snprintf(day, sizeof day, "%.10s", m->row.created_at);
		m->age = ev->cost.have_price && !ev->cost.user_price ? rank_price_age_days(&ev->cost.price, day) : NAN;
		if (isfinite(m->age) && m->age > ev->w.cost.owned.price_age_days)
			snprintf(m->stale, sizeof m->stale, "the price frozen is %.0f days older than the record: %s %s as_of %s, "
				 "recorded %s, more than %.0f days ([cost] price_age_days); a price change since does not show "
				 "(import newer rows, or --price)", m->age, ev->cost.price.instance,
				 price_model_names[ev->cost.price.model], ev->cost.price.as_of, day,
				 ev->w.cost.owned.price_age_days);
	}
	return 0;
}

void release_made_release(release_made *m)
{
	db_baseline_release(&m->row);
	record_eval_free(m->ev);
	m->ev = NULL;
}

cJSON *release_made_json(const char *name, const release_made *m)
{
	cJSON *j = cJSON_CreateObject();
	cJSON_AddStringToObject(j, "name", name);
	cJSON_AddNumberToObject(j, "id", m->row.id);
	cJSON_AddStringToObject(j, "created_at", m->row.created_at);
	if (isfinite(m->age))
		cJSON_AddNumberToObject(j, "price_age_days", m->age);
	else
		cJSON_AddNullToObject(j, "price_age_days");
	if (m->stale[0])
		cJSON_AddStringToObject(j, "price_warning", m->stale);
	else
		cJSON_AddNullToObject(j, "price_warning");
	cJSON_AddStringToObject(j, "sha256", m->row.sha256);
	cJSON_AddStringToObject(j, "prev_sha256", m->row.prev_sha256);
	cJSON_AddStringToObject(j, "chain_sha256", m->row.chain_sha256);
	cJSON_AddItemToObject(j, "results", cJSON_Duplicate(m->ev->results, 1));
	return j;
}

/* ---- check */

static void sink_fail(const release_sink *s, const err *e)
{
	if (s && s->fail)
		s->fail(s->ctx, e);
}

static void sink_say(const release_sink *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void sink_say(const release_sink *s, const char *fmt, ...)
{
	char msg[2 * ERR_MSG_MAX];
	va_list ap;
	if (!s || !s->say)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	s->say(s->ctx, msg);
}

/* Logs one check in the store, opened for writing on first use; a store this user cannot write
 * is left as it is, said. */
static void log_check(const home_paths *paths, const record_tool *t, db **w, int *tried, const db_baseline *row,
		      const record_check *c, const release_sink *s)
{
	db_check_row k;
	err e = {0};
	if (!*w && !*tried) {
		*tried = 1;
		if (home_open_db(paths, w, &e) != 0) {
			err_prefix(&e, "warning: the checks were not logged");
			sink_say(s, "%s", e.msg);
			return;
		}
	}
	if (!*w)
		return;
	memset(&k, 0, sizeof k);
	k.baseline_id = row->id;
	k.frozen = c->frozen;
	k.passed = c->failed == 0;
	k.failed = c->failed;
	snprintf(k.tool, sizeof k.tool, "%s", c->tool_now);
	if (db_baseline_check_add(*w, &k, &t->key, &e) != 0) {
		err_prefix(&e, "warning: the check was not logged");
		sink_say(s, "%s", e.msg);
	}
}

int release_check(const home_paths *paths, const record_tool *t, const release_check_opts *o,
		  const release_sink *sink, release_tally *tally, cJSON **json)
{
	db *store = NULL, *w = NULL;
	record_audit a;
	record_check *c = NULL;
	record_paths rp;
	cJSON *all = NULL;
	char note[RECORD_PATH_MAX + 128];
	err e = {0};
	int idx = -1, n = 0, rc, unreadable = 0, short_ = 0, tried = 0, missing = 0;
	if (json)
		*json = NULL;
	if (tally)
		memset(tally, 0, sizeof *tally);
	memset(&a, 0, sizeof a);
	if (record_store_open(paths->db, &store, note, sizeof note, &e) != 0 || record_audit_open(store, t, &a, &e) != 0) {
		db_close(store);
		sink_fail(sink, &e);
		return e.code == ERR_USAGE ? 2 : 1;
	}
	if (a.head_state == 2) {
		sink_say(sink, "%s: %s", paths->db, a.head_why);
		record_audit_release(&a);
		db_close(store);
		return 1;
	}
	release_paths(paths, &rp);
	if (!(c = calloc(1, sizeof *c))) {
		record_audit_release(&a);
		db_close(store);
		return 1;
	}
	if (o->all) {
		if (!a.counts_ok || (a.head_state == 1)) {
			/* Records lost, added or rewritten, or a head rewritten: no pass can stand on it. */
			sink_say(sink, "%s: %s (see 'roofcost baseline verify')", paths->db, !a.counts_ok ? a.counts_why : a.head_why);
			unreadable++;
		}
		if (a.n == 0) {
			sink_say(sink, "baseline check --all: no records in %s%s%s: nothing was checked, which is no pass",
				 paths->db, note[0] ? ": " : "", note);
			missing = 1;
		}
		if (o->expect >= 0 && a.n != o->expect) {
			sink_say(sink, "baseline check --all --expect %d: the store holds %d record%s: records were %s", o->expect,
				 a.n, a.n == 1 ? "" : "s", a.n < o->expect ? "lost (a store replaced, truncated or cut)"
									     : "added that the expectation does not know");
			missing = 1;
		}
		n = a.n;
	} else {
		char clipped[400];
		if ((idx = record_audit_find(&a, o->name)) < 0) {
			text_quote(clipped, sizeof clipped, o->name);
			sink_say(sink, "baseline: no record '%s' in %s%s%s (see 'roofcost baseline list')", clipped, paths->db,
				 note[0] ? ": " : "", note);
		} else if (record_usable(&a, idx, &e) != 0) {
			sink_fail(sink, &e);
			idx = -1;
		}
		if (idx < 0) {
			free(c);
			record_audit_release(&a);
			db_close(store);
			return 1;
		}
		n = 1;
	}
	if (json)
		all = cJSON_CreateArray();
	for (int k = 0; k < n; k++) {
		int i = o->all ? k : idx;
		err ek = {0};
		if (record_check_one(&a, i, &rp, t, &store, &o->how, c, &ek) != 0) {
			unreadable++;
			sink_fail(sink, &ek);
			continue;
		}
		short_ += c->failed > 0;
		if (all)
			cJSON_AddItemToArray(all, record_check_json(&a.rows[i], c));
		if (sink && sink->checked)
			sink->checked(sink->ctx, k, &a.rows[i], c);
		log_check(paths, t, &w, &tried, &a.rows[i], c, sink);
	}
	if (all) {
		cJSON *j = cJSON_CreateObject();
		cJSON_AddItemToObject(j, "records", all);
		cJSON_AddNumberToObject(j, "passed", n - short_ - unreadable > 0 ? n - short_ - unreadable : 0);
		cJSON_AddNumberToObject(j, "fell_short", short_);
		cJSON_AddNumberToObject(j, "unreadable", unreadable);
		if (o->all)
			cJSON_AddNumberToObject(j, "records_in_store", a.n);
		if (o->expect >= 0)
			cJSON_AddNumberToObject(j, "expected", o->expect);
		*json = j;
	}
	if (tally) {
		tally->ran = 1;
		tally->n = n;
		tally->passed = n - short_ - unreadable > 0 ? n - short_ - unreadable : 0;
		tally->fell_short = short_;
		tally->unreadable = unreadable;
		tally->records_in_store = a.n;
	}
	/* Records that are not there (--all found none, or not the --expect N) fall short first:
	 * the question was whether they are there; then unreadable records; then figures. */
	rc = missing ? 3 : unreadable ? 1 : short_ ? 3 : 0;
	free(c);
	record_audit_release(&a);
	db_close(store);
	db_close(w); /* last: the writer's close folds the log into the store file */
	return rc;
}

/* ---- list, show, diff, export, import */

cJSON *release_list_json(const record_audit *a)
{
	cJSON *arr = cJSON_CreateArray();
	for (int i = 0; i < a->n; i++) {
		const db_baseline *r = &a->rows[i];
		cJSON *o = cJSON_CreateObject(), *k;
		cJSON_AddStringToObject(o, "name", r->name);
		cJSON_AddStringToObject(o, "workload", r->workload);
		cJSON_AddStringToObject(o, "system", r->system);
		cJSON_AddStringToObject(o, "created_at", r->created_at);
		cJSON_AddStringToObject(o, "criteria", r->criteria);
		cJSON_AddStringToObject(o, "tolerance", r->tolerance);
		cJSON_AddStringToObject(o, "sha256", r->sha256);
		cJSON_AddNumberToObject(o, "checks", r->checks);
		cJSON_AddBoolToObject(o, "verified", !a->why[i][0]);
		if (a->why[i][0])
			cJSON_AddStringToObject(o, "problem", a->why[i]);
		if (r->checks) {
			k = cJSON_CreateObject();
			cJSON_AddStringToObject(k, "checked_at", r->checked_at);
			cJSON_AddBoolToObject(k, "passed", r->check_passed);
			cJSON_AddBoolToObject(k, "frozen", r->check_frozen);
			cJSON_AddNumberToObject(k, "failed", r->check_failed);
			cJSON_AddItemToObject(o, "last_check", k);
		} else {
			cJSON_AddNullToObject(o, "last_check");
		}
		cJSON_AddItemToArray(arr, o);
	}
	return arr;
}

cJSON *release_show_json(const db_baseline *row, const cJSON *rec)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddItemToObject(o, "record", cJSON_Duplicate(rec, 1));
	cJSON_AddStringToObject(o, "sha256", row->sha256);
	cJSON_AddStringToObject(o, "prev_sha256", row->prev_sha256);
	cJSON_AddStringToObject(o, "chain_sha256", row->chain_sha256);
	cJSON_AddNumberToObject(o, "checks", row->checks);
	return o;
}

int release_diff_run(const cJSON *ra, const cJSON *rb, release_diff *d, err *e)
{
	baseline_rules rules;
	const char *names[RECORD_FIGURES_MAX];
	memset(d, 0, sizeof *d);
	if (!ra || !rb || record_rules(ra, &rules, e) != 0)
		return err_set(e, ERR_DATA, "baseline diff: a record cannot be read (see 'roofcost baseline verify')");
	d->n = record_diff_figures(ra, rb, names, RECORD_FIGURES_MAX);
	if (!(d->lines = record_diff_lines(ra, rb)))
		return err_set(e, ERR_DATA, "baseline diff: out of memory");
	for (int f = 0; f < d->n; f++) {
		d->a[f].name = d->b[f].name = names[f];
		baseline_value_of(cJSON_GetObjectItemCaseSensitive(ra, "results"), names[f], &d->a[f].v);
		baseline_value_of(cJSON_GetObjectItemCaseSensitive(rb, "results"), names[f], &d->b[f].v);
		baseline_judge(&rules, names[f], &d->a[f].v, &d->b[f].v, &d->b[f].j);
	}
	return 0;
}

void release_diff_release(release_diff *d)
{
	cJSON_Delete(d->lines);
	d->lines = NULL;
}

cJSON *release_diff_json(const char *a, const char *b, const release_diff *d)
{
	cJSON *o = cJSON_CreateObject(), *figs = cJSON_CreateArray();
	cJSON_AddStringToObject(o, "a", a);
	cJSON_AddStringToObject(o, "b", b);
	for (int f = 0; f < d->n; f++) {
		cJSON *r = cJSON_CreateObject();
		cJSON_AddStringToObject(r, "figure", d->a[f].name);
		cJSON_AddItemToObject(r, "a", record_value_json(&d->a[f].v));
		cJSON_AddItemToObject(r, "b", record_value_json(&d->b[f].v));
		cJSON_AddItemToObject(r, "change", json_num_or_null(d->b[f].j.moved ? d->b[f].j.change : 0));
		cJSON_AddItemToArray(figs, r);
	}
	cJSON_AddItemToObject(o, "figures", figs);
	cJSON_AddItemToObject(o, "differences", cJSON_Duplicate(d->lines, 1));
	return o;
}

cJSON *release_exported_json(const db_baseline *row, const char *file)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "name", row->name);
	cJSON_AddStringToObject(o, "file", file);
	cJSON_AddStringToObject(o, "sha256", row->sha256);
	return o;
}

cJSON *release_imported_json(const db_baseline *row)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "name", row->name);
	cJSON_AddNumberToObject(o, "id", row->id);
	cJSON_AddStringToObject(o, "sha256", row->sha256);
	cJSON_AddStringToObject(o, "chain_sha256", row->chain_sha256);
	return o;
}

/* ---- verify */

int release_verify(db *store, const record_tool *t, const record_audit *a, const char *expect_head,
		   release_verified *v, err *e)
{
	memset(v, 0, sizeof *v);
	if (record_audit_log(store, t, a, &v->log, e) != 0 || record_audit_prices(store, &v->prices, e) != 0)
		return 1;
	if (!strcmp(a->head.mode, db_seal_modes[1]))
		snprintf(v->mode, sizeof v->mode, "keyed: HMAC-SHA256 under ROOFCOST_RECORD_KEY, key id %s", a->head.key_id);
	else
		snprintf(v->mode, sizeof v->mode, "unkeyed: SHA-256, which anyone who can write the store can recompute; "
			 "pin the head with --expect-head, or key a new store with ROOFCOST_RECORD_KEY");
	v->problems = cJSON_CreateArray();
	if (a->head_state == 1)
		cJSON_AddItemToArray(v->problems, cJSON_CreateString(a->head_why));
	if (!a->counts_ok)
		cJSON_AddItemToArray(v->problems, cJSON_CreateString(a->counts_why));
	if (v->log.bad)
		cJSON_AddItemToArray(v->problems, cJSON_CreateString(v->log.why));
	for (int i = 0; i < v->prices.nwhy; i++)
		cJSON_AddItemToArray(v->problems, cJSON_CreateString(v->prices.why[i]));
	if (expect_head && strcmp(expect_head, a->chain_head) != 0) {
		char line[1024];
		snprintf(line, sizeof line, "the chain head is %s (%d records), not the expected %s: records were "
			 "rewritten, added or lost", a->chain_head, a->n, expect_head);
		cJSON_AddItemToArray(v->problems, cJSON_CreateString(line));
	}
	v->bad = a->bad + cJSON_GetArraySize(v->problems);
	return 0;
}

void release_verified_release(release_verified *v)
{
	cJSON_Delete(v->problems);
	v->problems = NULL;
}

cJSON *release_verified_json(const record_audit *a, release_verified *v)
{
	cJSON *o = cJSON_CreateObject(), *recs = cJSON_CreateArray(), *h = cJSON_CreateObject();
	cJSON *l = cJSON_CreateObject(), *p = cJSON_CreateObject();
	for (int i = 0; i < a->n; i++) {
		cJSON *r = cJSON_CreateObject();
		cJSON_AddStringToObject(r, "name", a->rows[i].name);
		cJSON_AddStringToObject(r, "sha256", a->rows[i].sha256);
		cJSON_AddBoolToObject(r, "ok", !a->why[i][0]);
		if (a->why[i][0])
			cJSON_AddStringToObject(r, "problem", a->why[i]);
		cJSON_AddItemToArray(recs, r);
	}
	cJSON_AddItemToObject(o, "records", recs);
	cJSON_AddNumberToObject(o, "changed", a->bad);
	cJSON_AddNumberToObject(h, "records", a->n);
	cJSON_AddStringToObject(h, "sha256", a->chain_head);
	cJSON_AddStringToObject(h, "mode", a->head.mode);
	cJSON_AddStringToObject(h, "key_id", a->head.key_id);
	cJSON_AddItemToObject(o, "head", h);
	cJSON_AddNumberToObject(l, "checks", v->log.checks);
	cJSON_AddStringToObject(l, "head", v->log.head);
	cJSON_AddBoolToObject(l, "ok", !v->log.bad);
	cJSON_AddItemToObject(o, "check_log", l);
	cJSON_AddNumberToObject(p, "catalogs", v->prices.catalogs);
	cJSON_AddNumberToObject(p, "rows", v->prices.rows);
	cJSON_AddBoolToObject(p, "ok", !v->prices.bad);
	cJSON_AddItemToObject(o, "prices", p);
	cJSON_AddItemToObject(o, "problems", cJSON_Duplicate(v->problems, 1));
	cJSON_AddBoolToObject(o, "ok", v->bad == 0);
	return o;
}
