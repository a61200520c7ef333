/* cmd_baseline: `roofcost baseline record|check|list|show|diff|export|import|verify` - frozen
 * release records (DESIGN §6 "Release records", §8): the options of each verb and the tables
 * that show what it did. What a record is, how it is frozen, checked, explained and verified
 * lives in store/record.c; this file gives it the evaluation (evaluate: the options replayed
 * through cli_eval_option and cli_setup, so an option eval gains reaches baseline too, then
 * eval's JSON) and prints. Each check is logged in the store's baseline_check table, which is
 * where `list` finds a record's last check. */
#include <cJSON.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "base/os.h"
#include "cli/cli.h"
#include "store/baseline.h"
#include "store/record.h"

#define jstr json_str
#define jnum json_num

const char baseline_usage[] =
	"usage: roofcost baseline record NAME -s SYSTEM -w WORKLOAD [eval options] [--criteria RULES]\n"
	"                                [--tolerance RULES]\n"
	"       roofcost baseline check NAME|--all [--frozen]\n"
	"       roofcost baseline list | show NAME [--text ROLE] | diff A B | verify\n"
	"       roofcost baseline export NAME [-o FILE] | import FILE\n"
	"       (every verb takes --format table|csv|json|md; export writes JSON)\n\n"
	"Frozen release records. `record` evaluates once, as `roofcost eval` would with the same\n"
	"options, and freezes in the store: the tool's version and build; the text and SHA-256 of\n"
	"every input file read (workload, network, framework, system, chip, collectives, the\n"
	"calibration, the [cost] defaults) and of every option; the price row used and its\n"
	"catalog's SHA-256; pricing model, region, layout and chips; the results, with an\n"
	"interruption test; the pass rules; the time. The record's SHA-256 is over its canonical\n"
	"JSON and chained to the previous record's. Recording an existing NAME fails and changes\n"
	"nothing; the store's triggers refuse UPDATE and DELETE of records.\n\n"
	"The interruption test. Training: one node lost at the worst moment, just before a\n"
	"checkpoint is durable: detection and replacement ([cost] restart_time), the checkpoint\n"
	"reloaded at checkpoint_bw, and the interval since the last checkpoint redone; as added\n"
	"hours and USD per interruption and over the run (expected interruptions, each at the worst\n"
	"moment). Serving: one replica lost: whether the others carry the same load within the\n"
	"latency limits, and the replicas (chips, USD/h) that must stand by for them to.\n\n"
	"  --criteria RULES   absolute limits on any figure of the eval JSON or the interruption\n"
	"                     test, e.g. 'tpot_ms<=50,usd_per_unit<=4.5,interruption_loss_pct<=3'\n"
	"                     (<= < >= > =; true counts 1; dots reach into objects: cost.total_usd).\n"
	"                     Default: none. A record whose figures fail them is not written (exit 3)\n"
	"  --tolerance RULES  drift allowed from the recorded figures, per figure or * for every\n"
	"                     other, as a percentage or an absolute amount in the figure's unit,\n"
	"                     e.g. 'tokens_per_s=5%,tpot_ms=0.5,*=2%'. Default: *=1%, which also\n"
	"                     applies when RULES give no *. Text and true/false figures must not move\n\n"
	"`check` evaluates again with today's tool and data and prints, per figure: recorded, now,\n"
	"change, tolerance and criteria, verdict, and for each figure that moved why: the frozen\n"
	"input that changed (file, key, old and new value), the price row, or the tool. --frozen\n"
	"evaluates from the frozen texts instead (and the frozen price): what still moves is the\n"
	"tool. --all checks every record. Each check is logged; `list` shows the last. Exit 0 all\n"
	"pass, 3 a figure fell short or drifted, 1 a record or the store is unreadable.\n\n"
	"`verify` recomputes every record's hash and the chain and names each record changed\n"
	"behind the tool's back (exit 3). `export` writes a record as one schema-versioned JSON\n"
	"document that `import` reads into any store (refusing a name that exists or a broken\n"
	"hash). `show --text ROLE` prints one frozen input file. The store: $ROOFCOST_DB.\n\n";

const char baseline_options_usage[] = "eval options:\n" CLI_EVAL_USAGE CLI_COST_USAGE;

static void usage(FILE *fp)
{
	fputs(baseline_usage, fp);
	fputs(baseline_options_usage, fp);
}


static int usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "roofcost: baseline: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, " (see 'roofcost baseline --help')\n");
	return 2;
}

/* ---- the evaluation a record replays, and the tool that gives it */

static const struct option eval_longopts[] = {CLI_EVAL_LONGOPTS, CLI_COST_LONGOPTS, {NULL, 0, NULL, 0}};

static const struct option *eval_option(int code)
{
	for (const struct option *o = eval_longopts; o->name; o++)
		if (o->val == code)
			return o;
	return NULL;
}

static void to_cli_paths(const record_paths *r, cli_paths *p)
{
	memset(p, 0, sizeof *p);
	snprintf(p->home, sizeof p->home, "%s", r->home);
	snprintf(p->models, sizeof p->models, "%s", r->models);
	snprintf(p->workloads, sizeof p->workloads, "%s", r->workloads);
	snprintf(p->catalogs, sizeof p->catalogs, "%s", r->catalogs);
	snprintf(p->db, sizeof p->db, "%s", r->db);
	p->db_default = r->db_default;
}

static void to_record_paths(const cli_paths *p, record_paths *r)
{
	memset(r, 0, sizeof *r);
	snprintf(r->home, sizeof r->home, "%s", p->home);
	snprintf(r->models, sizeof r->models, "%s", p->models);
	snprintf(r->workloads, sizeof r->workloads, "%s", p->workloads);
	snprintf(r->catalogs, sizeof r->catalogs, "%s", p->catalogs);
	snprintf(r->db, sizeof r->db, "%s", p->db);
	r->db_default = p->db_default;
}

/* record_eval_fn: the options as `roofcost eval` takes them, evaluated as it does. */
static int evaluate(void *ctx, const record_paths *rp, int argc, char **argv, db **store, record_eval *ev,
		    err *e)
{
	cli_paths *paths = malloc(sizeof *paths);
	cli_eval_opts o;
	rank_view rep;
	int c, rc = 0, old_opterr = opterr;
	(void)ctx;
	if (!paths)
		return err_set(e, ERR_DATA, "out of memory");
	to_cli_paths(rp, paths);
	cli_eval_init(&o);
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", eval_longopts, NULL)) != -1) {
		int h = c == '?' || c == 'h' ? 0 : cli_eval_option(c, optarg, &o, e);
		if (h != 1) {
			if (h == 0)
				err_set(e, ERR_DATA, "the record's option '%s' is not one this roofcost knows",
					argv[optind > 1 ? optind - 1 : 1]);
			else
				err_prefix(e, "the record's options");
			rc = ERR_DATA;
			break;
		}
	}
	opterr = old_opterr;
	if (rc == 0)
		rc = cli_setup(paths, &o, o.system, &ev->sys, &ev->w, &ev->p, e);
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
		if (cli_cost(paths, store, &o, &ev->sys, &ev->w, rep.train, rep.infer, &ev->cost, e) != 0)
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

static const record_tool roofcost_tool = {evaluate, NULL, cli_version, cli_build};

/* ---- printing */

/* The table of a check: figure, recorded, now, change, limit, verdict, why; with_record puts
 * the record's name first (one csv or md table for every record). */
static void check_table(out_table *t, int with_record)
{
	static const char *const hdr[] = {"record", "figure", "recorded", "now", "change", "limit", "verdict", "why"};
	int o = with_record ? 0 : 1;
	out_init(t, 8 - o, hdr + o);
	for (int i = 2; i <= 4; i++)
		out_right(t, i - o);
	out_fit_col(t, 7 - o, OUT_FIT_BELOW); /* why: under its figure when the table is narrow */
}

static void check_rows(const db_baseline *row, const record_check *c, out_table *t, int with_record)
{
	for (int f = 0; f < c->nfig; f++) {
		char r[64], n[64], ch[32], why[2048];
		const char *cells[8] = {row->name, c->names[f], r, n, ch, c->j[f].limit, c->j[f].verdict, why};
		baseline_value_text(&c->rec[f], r, sizeof r);
		baseline_value_text(&c->now[f], n, sizeof n);
		record_change_text(&c->j[f], ch, sizeof ch);
		record_why_text(c, f, why, sizeof why);
		out_row(t, cells + (with_record ? 0 : 1));
	}
}

/* The text form of one check: a header line, the table, why each moved figure moved, and
 * the verdict. */
static void check_print(const db_baseline *row, const record_check *c, FILE *fp)
{
	out_table t;
	fprintf(fp, "baseline %s: %s on %s, recorded %s by %s; checked %s\n", row->name, row->workload,
		row->system, row->created_at, c->tool_rec,
		c->frozen ? "from the frozen inputs and price with today's tool" : "with today's data and tool");
	check_table(&t, 0);
	check_rows(row, c, &t, 0);
	out_print(&t, OUT_TABLE, fp);
	out_release(&t);
	for (int k = 0, first = 1; k <= c->ndata; k++) {
		if (!record_cause_used(c, k))
			continue;
		if (first)
			fprintf(fp, "why:\n");
		first = 0;
		for (int i = 0; i < c->cause[k].ndetail; i++)
			fprintf(fp, "  %s\n", c->cause[k].detail[i]);
		fprintf(fp, "    moves:");
		for (int f = 0, n = 0; f < c->nfig; f++)
			if (c->why[f] & (1u << k))
				fprintf(fp, "%s %s", n++ ? "," : "", c->names[f]);
		fprintf(fp, "\n");
	}
	if (c->failed)
		fprintf(fp, "%s: fell short: %d of %d figures\n", row->name, c->failed, c->nfig);
	else
		fprintf(fp, "%s: pass (%d figures)\n", row->name, c->nfig);
}

/* ---- verbs */

typedef struct verb_opts {
	out_format format;
	int format_given;
	int all, frozen;
	const char *out, *text;
	const char *args[4];
	int nargs;
} verb_opts;

enum { OPT_ALL = 2000, OPT_FROZEN, OPT_TEXT, OPT_CRITERIA, OPT_TOLERANCE };

/* 1 if name is one of the space-separated words of allowed. */
static int allows(const char *allowed, const char *name)
{
	size_t n = strlen(name);
	for (const char *p = allowed; (p = strstr(p, name)); p += n)
		if ((p == allowed || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
			return 1;
	return 0;
}

/* Options of every verb but record: --format, --all, --frozen, -o, --text, and arguments. */
static int verb_parse(int argc, char **argv, const char *verb, const char *allowed, verb_opts *v)
{
	static const struct option longopts[] = {
		{"format", required_argument, NULL, CLI_OPT_FORMAT}, {"all", no_argument, NULL, OPT_ALL},
		{"frozen", no_argument, NULL, OPT_FROZEN}, {"output", required_argument, NULL, 'o'},
		{"text", required_argument, NULL, OPT_TEXT}, {"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0}};
	int c;
	memset(v, 0, sizeof *v);
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
		const char *name = c == 'o' ? "o" : c == OPT_ALL ? "all" : c == OPT_FROZEN ? "frozen"
			: c == OPT_TEXT ? "text" : "";
		if (c == 'h') {
			usage(stdout);
			return -1;
		}
		if (c == '?')
			return 2;
		if (c == CLI_OPT_FORMAT) {
			if (out_parse_format(optarg, &v->format) != 0)
				return usage_error("--format: '%s' is not one of table, csv, json, md", optarg);
			v->format_given = 1;
			continue;
		}
		if (!allows(allowed, name)) {
			fprintf(stderr, "roofcost: baseline %s: %s%s does not apply (see 'roofcost baseline --help')\n",
				verb, c == 'o' ? "-" : "--", name);
			return 2;
		}
		if (c == OPT_ALL)
			v->all = 1;
		else if (c == OPT_FROZEN)
			v->frozen = 1;
		else if (c == 'o')
			v->out = optarg;
		else if (c == OPT_TEXT)
			v->text = optarg;
	}
	for (int i = optind; i < argc; i++) {
		if (v->nargs == 4) {
			fprintf(stderr, "roofcost: baseline %s: unexpected argument '%s'\n", verb, argv[i]);
			return 2;
		}
		v->args[v->nargs++] = argv[i];
	}
	return 0;
}

static int want_args(const char *verb, const verb_opts *v, int n, const char *what)
{
	if (v->nargs == n)
		return 0;
	fprintf(stderr, "roofcost: baseline %s: expected %s (see 'roofcost baseline --help')\n", verb, what);
	return 2;
}

/* The start of every verb but record and check: its options and n arguments (what names
 * them), then the store. Returns -1 to go on, else the exit code (0 after --help). */
static int verb_begin(int argc, char **argv, const char *verb, const char *allowed, int n,
		      const char *what, const cli_paths *paths, verb_opts *v, db **store)
{
	err e = {0};
	int rc = verb_parse(argc, argv, verb, allowed, v);
	*store = NULL;
	if (rc != 0)
		return rc < 0 ? 0 : rc;
	if ((rc = want_args(verb, v, n, what)) != 0)
		return rc;
	if (cli_open_db(paths, store, &e) != 0)
		return cli_fail(&e);
	return -1;
}

/* The named record, or 1 with the error printed. */
static int get_record(db *store, const cli_paths *paths, const char *name, db_baseline *row)
{
	int found;
	err e = {0};
	if (db_baseline_get(store, name, row, &found, &e) != 0)
		return cli_fail(&e);
	if (!found) {
		fprintf(stderr, "roofcost: baseline: no record '%s' in %s (see 'roofcost baseline list')\n", name,
			paths->db);
		return 1;
	}
	return 0;
}

/* The figures of a record or an evaluation against its criteria; fp NULL only counts. Returns
 * the figures that fall short. */
static int print_figure_table(const char *mode, const baseline_rules *rules, const cJSON *results,
			      out_format fmt, FILE *fp)
{
	static const char *const hdr[] = {"figure", "value", "limit", "verdict"};
	const char *names[RECORD_FIGURES_MAX];
	int n = baseline_figures(mode, rules, names, RECORD_FIGURES_MAX), failed = 0;
	out_table t;
	out_init(&t, 4, hdr);
	out_right(&t, 1);
	for (int f = 0; f < n; f++) {
		baseline_value v;
		baseline_judgement j;
		char val[BASELINE_TEXT_MAX];
		const char *cells[4];
		baseline_value_of(results, names[f], &v);
		baseline_judge(rules, names[f], &v, &v, &j);
		baseline_value_text(&v, val, sizeof val);
		failed += j.fell_short;
		cells[0] = names[f];
		cells[1] = val;
		cells[2] = j.limit;
		cells[3] = j.verdict;
		out_row(&t, cells);
	}
	if (fp)
		out_print(&t, fmt, fp);
	out_release(&t);
	return failed;
}

static int verb_record(int argc, char **argv, const cli_paths *paths)
{
	static const struct option longopts[] = {CLI_EVAL_LONGOPTS, CLI_COST_LONGOPTS,
						 {"criteria", required_argument, NULL, OPT_CRITERIA},
						 {"tolerance", required_argument, NULL, OPT_TOLERANCE},
						 {NULL, 0, NULL, 0}};
	cli_eval_opts o;
	baseline_rules rules;
	record_paths rp;
	const char *criteria = "", *tolerance = "", *name = NULL;
	cJSON *options = cJSON_CreateArray();
	record_eval *ev = NULL;
	db *store = NULL;
	db_baseline row;
	err e = {0};
	int c, rc = 0;

	cli_eval_init(&o);
	memset(&rules, 0, sizeof rules);
	memset(&row, 0, sizeof row);
	to_record_paths(paths, &rp);
	if (!options) {
		err_set(&e, ERR_DATA, "out of memory");
		rc = cli_fail(&e);
		goto done;
	}
	optind = 1;
	while ((c = getopt_long(argc, argv, "s:w:h", longopts, NULL)) != -1) {
		const struct option *opt;
		int h;
		if (c == 'h') {
			usage(stdout);
			goto done;
		}
		if (c == OPT_CRITERIA || c == OPT_TOLERANCE) {
			*(c == OPT_CRITERIA ? &criteria : &tolerance) = optarg;
			continue;
		}
		h = cli_eval_option(c, optarg, &o, &e);
		if (h < 0) {
			rc = cli_fail(&e);
			goto done;
		}
		if (h == 0) {
			rc = usage_error("record: %s", "unknown option");
			goto done;
		}
		if (c != CLI_OPT_FORMAT && (opt = eval_option(c)))
			record_add_option(options, opt->name, opt->has_arg != no_argument, optarg);
	}
	if (optind != argc - 1) {
		rc = usage_error("record: expected one NAME%s", optind < argc - 1 ? ", got more" : "");
		goto done;
	}
	name = argv[optind];
	if (!record_valid_name(name)) {
		rc = usage_error("record: '%s' is not a record name (letters, digits, '.', '_', '-', at most 100)",
				 name);
		goto done;
	}
	if (baseline_parse_criteria(criteria, &rules, &e) != 0 || baseline_parse_tolerance(tolerance, &rules, &e) != 0 ||
	    cli_open_db(paths, &store, &e) != 0 || record_name_free(store, name, &e) != 0 ||
	    record_evaluate(&rp, options, &roofcost_tool, &store, &ev, &e) != 0 || record_rules_known(ev, &rules, &e) != 0) {
		rc = cli_fail(&e);
		goto done;
	}
	if (print_figure_table(wl_mode_names[ev->w.mode], &rules, ev->results, o.format, NULL) > 0) {
		if (o.format != OUT_JSON)
			print_figure_table(wl_mode_names[ev->w.mode], &rules, ev->results, o.format, stdout);
		fprintf(stderr, "roofcost: baseline record: %s: a figure fails the criteria: nothing recorded\n", name);
		rc = 3;
		goto done;
	}
	rc = record_freeze(store, &roofcost_tool, name, ev, options, &rules, &row, &e);
	options = NULL;
	if (rc != 0) {
		rc = cli_fail(&e);
		goto done;
	}
	if (o.format == OUT_JSON) {
		cJSON *j = cJSON_CreateObject();
		cJSON_AddStringToObject(j, "name", name);
		cJSON_AddNumberToObject(j, "id", row.id);
		cJSON_AddStringToObject(j, "created_at", row.created_at);
		cJSON_AddStringToObject(j, "sha256", row.sha256);
		cJSON_AddStringToObject(j, "prev_sha256", row.prev_sha256);
		cJSON_AddStringToObject(j, "chain_sha256", row.chain_sha256);
		cJSON_AddItemToObject(j, "results", cJSON_Duplicate(ev->results, 1));
		json_print(j, stdout);
		cJSON_Delete(j);
	} else {
		print_figure_table(wl_mode_names[ev->w.mode], &rules, ev->results, o.format, stdout);
		if (o.format == OUT_TABLE)
			printf("recorded %s in %s as record %d: %d inputs, sha256 %.12s, chained to %.12s\n", name,
			       paths->db, row.id, ev->nin, row.sha256, row.prev_sha256);
	}
done:
	cJSON_Delete(options);
	db_baseline_release(&row);
	record_eval_free(ev);
	db_close(store);
	return rc;
}

static int verb_check(int argc, char **argv, const cli_paths *paths)
{
	verb_opts v;
	db *store = NULL;
	db_baseline *rows = NULL, one;
	record_check *c = calloc(1, sizeof *c);
	record_paths rp;
	cJSON *all = NULL;
	out_table flat;
	err e = {0};
	int n = 0, rc = verb_parse(argc, argv, "check", "all frozen", &v), unreadable = 0, short_ = 0;
	memset(&one, 0, sizeof one);
	to_record_paths(paths, &rp);
	if (rc != 0 || !c) {
		free(c);
		return rc < 0 ? 0 : rc ? rc : 1;
	}
	if (v.all ? v.nargs != 0 : v.nargs != 1) {
		free(c);
		return want_args("check", &v, v.all ? 0 : 1, "NAME or --all");
	}
	if (cli_open_db(paths, &store, &e) != 0) {
		free(c);
		return cli_fail(&e);
	}
	if (v.all) {
		if (db_baseline_list(store, &rows, &n, &e) != 0) {
			rc = cli_fail(&e);
			goto done;
		}
	} else {
		if ((rc = get_record(store, paths, v.args[0], &one)) != 0)
			goto done;
		rows = &one;
		n = 1;
	}
	if (v.format == OUT_JSON)
		all = cJSON_CreateArray();
	check_table(&flat, 1);
	for (int i = 0; i < n; i++) {
		if (record_check_one(&rows[i], &rp, &roofcost_tool, &store, v.frozen, c, &e) != 0) {
			unreadable++;
			cli_fail(&e);
			continue;
		}
		short_ += c->failed > 0;
		if (all) {
			cJSON_AddItemToArray(all, record_check_json(&rows[i], c));
		} else if (v.format == OUT_TABLE) {
			if (i)
				printf("\n");
			check_print(&rows[i], c, stdout);
		} else {
			check_rows(&rows[i], c, &flat, 1);
		}
		if (db_baseline_check_add(store, rows[i].id, v.frozen, c->failed == 0, c->failed,
					  c->tool_now, &e) != 0) {
			err_prefix(&e, "warning: the check was not logged");
			fprintf(stderr, "roofcost: %s\n", e.msg);
		}
	}
	if (all) {
		cJSON *o = cJSON_CreateObject();
		cJSON_AddItemToObject(o, "records", all);
		cJSON_AddNumberToObject(o, "passed", n - short_ - unreadable);
		cJSON_AddNumberToObject(o, "fell_short", short_);
		cJSON_AddNumberToObject(o, "unreadable", unreadable);
		json_print(o, stdout);
		cJSON_Delete(o);
	} else if (v.format != OUT_TABLE) {
		out_print(&flat, v.format, stdout);
	} else if (v.all) {
		printf("\n%d records: %d pass, %d fell short, %d unreadable\n", n, n - short_ - unreadable, short_,
		       unreadable);
	}
	out_release(&flat);
	rc = unreadable ? 1 : short_ ? 3 : 0;
done:
	if (rows == &one)
		db_baseline_release(&one);
	else
		db_baseline_free(rows, n);
	db_close(store);
	free(c);
	return rc;
}

static void last_check(const db_baseline *b, char *buf, size_t n)
{
	if (!b->checks)
		snprintf(buf, n, "never");
	else if (b->check_passed)
		snprintf(buf, n, "%s pass%s", b->checked_at, b->check_frozen ? " (frozen)" : "");
	else
		snprintf(buf, n, "%s fell short (%d)%s", b->checked_at, b->check_failed,
			 b->check_frozen ? " (frozen)" : "");
}
static int verb_list(int argc, char **argv, const cli_paths *paths)
{
	static const char *const hdr[] = {"name", "workload", "system", "created", "criteria", "tolerance",
					  "last_check"};
	verb_opts v;
	db *store = NULL;
	db_baseline *rows;
	err e = {0};
	int n, rc = verb_begin(argc, argv, "list", "", 0, "no arguments", paths, &v, &store);
	if (rc >= 0)
		return rc;
	if (db_baseline_list(store, &rows, &n, &e) != 0) {
		db_close(store);
		return cli_fail(&e);
	}
	if (v.format == OUT_JSON) {
		cJSON *a = cJSON_CreateArray();
		for (int i = 0; i < n; i++) {
			cJSON *o = cJSON_CreateObject(), *k;
			cJSON_AddStringToObject(o, "name", rows[i].name);
			cJSON_AddStringToObject(o, "workload", rows[i].workload);
			cJSON_AddStringToObject(o, "system", rows[i].system);
			cJSON_AddStringToObject(o, "created_at", rows[i].created_at);
			cJSON_AddStringToObject(o, "criteria", rows[i].criteria);
			cJSON_AddStringToObject(o, "tolerance", rows[i].tolerance);
			cJSON_AddStringToObject(o, "sha256", rows[i].sha256);
			cJSON_AddNumberToObject(o, "checks", rows[i].checks);
			if (rows[i].checks) {
				k = cJSON_CreateObject();
				cJSON_AddStringToObject(k, "checked_at", rows[i].checked_at);
				cJSON_AddBoolToObject(k, "passed", rows[i].check_passed);
				cJSON_AddBoolToObject(k, "frozen", rows[i].check_frozen);
				cJSON_AddNumberToObject(k, "failed", rows[i].check_failed);
				cJSON_AddItemToObject(o, "last_check", k);
			} else {
				cJSON_AddNullToObject(o, "last_check");
			}
			cJSON_AddItemToArray(a, o);
		}
		json_print(a, stdout);
		cJSON_Delete(a);
	} else {
		out_table t;
		out_init(&t, 7, hdr);
		out_fit_col(&t, 4, OUT_FIT_BELOW); /* criteria: under the record when narrow */
		for (int i = 0; i < n; i++) {
			char last[96];
			const char *cells[7];
			last_check(&rows[i], last, sizeof last);
			cells[0] = rows[i].name;
			cells[1] = rows[i].workload;
			cells[2] = rows[i].system;
			cells[3] = rows[i].created_at;
			cells[4] = rows[i].criteria[0] ? rows[i].criteria : "-";
			cells[5] = rows[i].tolerance;
			cells[6] = last;
			out_row(&t, cells);
		}
		out_print(&t, v.format, stdout);
		out_release(&t);
		if (n == 0 && v.format == OUT_TABLE)
			printf("(no records in %s: see 'roofcost baseline record --help')\n", paths->db);
	}
	db_baseline_free(rows, n);
	db_close(store);
	return 0;
}

static void kv(out_table *t, const char *k, const char *v)
{
	const char *cells[2] = {k, v};
	out_row(t, cells);
}

static int verb_show(int argc, char **argv, const cli_paths *paths)
{
	static const char *const hdr[] = {"field", "value"};
	verb_opts v;
	db *store = NULL;
	db_baseline row;
	cJSON *rec = NULL;
	const cJSON *it;
	err e = {0};
	char buf[4096];
	int rc = verb_begin(argc, argv, "show", "text", 1, "one NAME", paths, &v, &store);
	if (rc >= 0)
		return rc;
	if ((rc = get_record(store, paths, v.args[0], &row)) != 0) {
		db_close(store);
		return rc;
	}
	if (!(rec = cJSON_Parse(row.record))) {
		fprintf(stderr, "roofcost: baseline show: %s: the record is not JSON (see 'roofcost baseline verify')\n",
			row.name);
		rc = 1;
		goto done;
	}
	if (v.text) {
		int found = 0;
		cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(rec, "inputs")) {
			if (!strcmp(jstr(it, "role"), v.text)) {
				fputs(jstr(it, "text"), stdout);
				found = 1;
			}
		}
		if (!found) {
			fprintf(stderr, "roofcost: baseline show: %s has no '%s' input (its inputs:", row.name, v.text);
			cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(rec, "inputs")) {
				fprintf(stderr, " %s", jstr(it, "role"));
			}
			fprintf(stderr, ")\n");
			rc = 1;
		}
		goto done;
	}
	if (v.format == OUT_JSON) {
		cJSON *o = cJSON_CreateObject();
		cJSON_AddItemToObject(o, "record", cJSON_Duplicate(rec, 1));
		cJSON_AddStringToObject(o, "sha256", row.sha256);
		cJSON_AddStringToObject(o, "prev_sha256", row.prev_sha256);
		cJSON_AddStringToObject(o, "chain_sha256", row.chain_sha256);
		cJSON_AddNumberToObject(o, "checks", row.checks);
		json_print(o, stdout);
		cJSON_Delete(o);
	} else {
		out_table t;
		const cJSON *tool = cJSON_GetObjectItemCaseSensitive(rec, "tool");
		const cJSON *pr = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(rec, "prices"), 0);
		baseline_rules rules;
		out_init(&t, 2, hdr);
		kv(&t, "name", row.name);
		kv(&t, "created", row.created_at);
		snprintf(buf, sizeof buf, "roofcost %s (%s)", jstr(tool, "version"), jstr(tool, "build"));
		kv(&t, "tool", buf);
		snprintf(buf, sizeof buf, "%s (%s) on %s", jstr(rec, "workload"), jstr(rec, "mode"), jstr(rec, "system"));
		kv(&t, "evaluation", buf);
		buf[0] = '\0';
		cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(rec, "options")) {
			snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%s", buf[0] ? " " : "", jstr(it, "text"));
		}
		kv(&t, "options", buf);
		snprintf(buf, sizeof buf, "%s, %.0f chips", jstr(cJSON_GetObjectItemCaseSensitive(rec, "results"), "layout"),
			 jnum(rec, "chips"));
		kv(&t, "layout", buf);
		if (pr) {
			price_row p;
			record_price_of_json(pr, &p);
			record_price_text(&p, jstr(cJSON_GetObjectItemCaseSensitive(pr, "catalog"), "path"), buf, sizeof buf);
			kv(&t, "price", buf);
			snprintf(buf, sizeof buf, "%s", jstr(cJSON_GetObjectItemCaseSensitive(pr, "catalog"), "sha256"));
			kv(&t, "catalog sha256", buf);
		} else {
			snprintf(buf, sizeof buf, "none: %s", jstr(rec, "price_note"));
			kv(&t, "price", buf);
		}
		cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(rec, "inputs")) {
			char key[64];
			snprintf(key, sizeof key, "input %s", jstr(it, "role"));
			snprintf(buf, sizeof buf, "%s (sha256 %.12s)", jstr(it, "path"), jstr(it, "sha256"));
			kv(&t, key, buf);
		}
		kv(&t, "criteria", jstr(rec, "criteria")[0] ? jstr(rec, "criteria") : "none");
		kv(&t, "tolerance", jstr(rec, "tolerance"));
		if (record_rules(rec, &rules, &e) == 0) {
			const char *names[RECORD_FIGURES_MAX];
			int n = baseline_figures(jstr(rec, "mode"), &rules, names, RECORD_FIGURES_MAX);
			for (int f = 0; f < n; f++) {
				baseline_value val;
				baseline_value_of(cJSON_GetObjectItemCaseSensitive(rec, "results"), names[f], &val);
				baseline_value_text(&val, buf, sizeof buf);
				kv(&t, names[f], buf);
			}
		}
		kv(&t, "sha256", row.sha256);
		snprintf(buf, sizeof buf, "%s (previous %s)", row.chain_sha256, row.prev_sha256);
		kv(&t, "chain", buf);
		last_check(&row, buf, sizeof buf);
		kv(&t, "last check", buf);
		out_print(&t, v.format, stdout);
		out_release(&t);
	}
done:
	cJSON_Delete(rec);
	db_baseline_release(&row);
	db_close(store);
	return rc;
}

static int verb_diff(int argc, char **argv, const cli_paths *paths)
{
	static const char *const hdr[] = {"figure", "a", "b", "change"};
	verb_opts v;
	db *store = NULL;
	db_baseline a, b;
	cJSON *ra = NULL, *rb = NULL, *lines = cJSON_CreateArray();
	const cJSON *it;
	baseline_rules rules;
	const char *names[RECORD_FIGURES_MAX];
	out_table t;
	err e = {0};
	int n, rc = verb_begin(argc, argv, "diff", "", 2, "two NAMEs", paths, &v, &store);
	if (rc >= 0) {
		cJSON_Delete(lines);
		return rc;
	}
	memset(&a, 0, sizeof a);
	memset(&b, 0, sizeof b);
	if ((rc = get_record(store, paths, v.args[0], &a)) != 0 || (rc = get_record(store, paths, v.args[1], &b)) != 0)
		goto done;
	ra = cJSON_Parse(a.record);
	rb = cJSON_Parse(b.record);
	if (!ra || !rb || record_rules(ra, &rules, &e) != 0) {
		fprintf(stderr, "roofcost: baseline diff: a record cannot be read (see 'roofcost baseline verify')\n");
		rc = 1;
		goto done;
	}
	n = record_diff_figures(ra, rb, names, RECORD_FIGURES_MAX);
	cJSON_Delete(lines);
	if (!(lines = record_diff_lines(ra, rb))) {
		fprintf(stderr, "roofcost: baseline diff: out of memory\n");
		rc = 1;
		goto done;
	}
	if (v.format == OUT_JSON) {
		cJSON *o = cJSON_CreateObject(), *figs = cJSON_CreateArray();
		cJSON_AddStringToObject(o, "a", a.name);
		cJSON_AddStringToObject(o, "b", b.name);
		for (int f = 0; f < n; f++) {
			baseline_value x, y;
			baseline_judgement j;
			cJSON *r = cJSON_CreateObject();
			baseline_value_of(cJSON_GetObjectItemCaseSensitive(ra, "results"), names[f], &x);
			baseline_value_of(cJSON_GetObjectItemCaseSensitive(rb, "results"), names[f], &y);
			baseline_judge(&rules, names[f], &x, &y, &j);
			cJSON_AddStringToObject(r, "figure", names[f]);
			cJSON_AddItemToObject(r, "a", record_value_json(&x));
			cJSON_AddItemToObject(r, "b", record_value_json(&y));
			cJSON_AddItemToObject(r, "change", json_num_or_null(j.moved ? j.change : 0));
			cJSON_AddItemToArray(figs, r);
		}
		cJSON_AddItemToObject(o, "figures", figs);
		cJSON_AddItemToObject(o, "differences", lines);
		lines = NULL;
		json_print(o, stdout);
		cJSON_Delete(o);
		goto done;
	}
	out_init(&t, 4, hdr);
	out_right(&t, 1);
	out_right(&t, 2);
	out_right(&t, 3);
	for (int f = 0; f < n; f++) {
		baseline_value x, y;
		baseline_judgement j;
		char sx[64], sy[64], ch[32];
		const char *cells[4];
		baseline_value_of(cJSON_GetObjectItemCaseSensitive(ra, "results"), names[f], &x);
		baseline_value_of(cJSON_GetObjectItemCaseSensitive(rb, "results"), names[f], &y);
		baseline_judge(&rules, names[f], &x, &y, &j);
		baseline_value_text(&x, sx, sizeof sx);
		baseline_value_text(&y, sy, sizeof sy);
		record_change_text(&j, ch, sizeof ch);
		cells[0] = names[f];
		cells[1] = sx;
		cells[2] = sy;
		cells[3] = ch;
		out_row(&t, cells);
	}
	if (v.format == OUT_TABLE)
		printf("a = %s (%s on %s, %s), b = %s (%s on %s, %s)\n", a.name, a.workload, a.system, a.created_at,
		       b.name, b.workload, b.system, b.created_at);
	out_print(&t, v.format, stdout);
	out_release(&t);
	if (v.format == OUT_TABLE) {
		printf("%s\n", cJSON_GetArraySize(lines) ? "differences:" : "same inputs, options, price and tool");
		cJSON_ArrayForEach(it, lines) {
			printf("  %s\n", it->valuestring);
		}
	}
done:
	cJSON_Delete(lines);
	cJSON_Delete(ra);
	cJSON_Delete(rb);
	db_baseline_release(&a);
	db_baseline_release(&b);
	db_close(store);
	return rc;
}

static int verb_export(int argc, char **argv, const cli_paths *paths)
{
	verb_opts v;
	db *store = NULL;
	db_baseline row;
	char *doc;
	err e = {0};
	int rc = verb_begin(argc, argv, "export", "o", 1, "one NAME", paths, &v, &store);
	if (rc >= 0)
		return rc;
	if (!v.out && v.format_given && v.format != OUT_JSON) {
		db_close(store);
		return usage_error("export: %s", "the document is JSON: --format table|csv|md need -o FILE");
	}
	if ((rc = get_record(store, paths, v.args[0], &row)) != 0) {
		db_close(store);
		return rc;
	}
	if (!(doc = baseline_export(row.record, row.sha256))) {
		fprintf(stderr, "roofcost: baseline export: %s: the record cannot be read (see 'roofcost baseline "
			"verify')\n", row.name);
		rc = 1;
	} else if (!v.out) {
		fputs(doc, stdout);
	} else {
		/* Written whole beside the target, then renamed: never half a document. */
		if (os_write_file_whole(v.out, doc, &e) != 0) {
			rc = cli_fail(&e);
		} else if (v.format == OUT_JSON) {
			cJSON *o = cJSON_CreateObject();
			cJSON_AddStringToObject(o, "name", row.name);
			cJSON_AddStringToObject(o, "file", v.out);
			cJSON_AddStringToObject(o, "sha256", row.sha256);
			json_print(o, stdout);
			cJSON_Delete(o);
		} else {
			printf("exported %s to %s: sha256 %.12s, schema %s %d\n", row.name, v.out, row.sha256,
			       baseline_schema, BASELINE_SCHEMA_VERSION);
		}
	}
	free(doc);
	db_baseline_release(&row);
	db_close(store);
	return rc;
}

static int verb_import(int argc, char **argv, const cli_paths *paths)
{
	verb_opts v;
	db *store = NULL;
	db_baseline row;
	err e = {0};
	int rc = verb_begin(argc, argv, "import", "", 1, "one FILE", paths, &v, &store);
	if (rc >= 0)
		return rc;
	if (record_import(store, v.args[0], &row, &e) != 0) {
		db_close(store);
		return cli_fail(&e);
	}
	if (v.format == OUT_JSON) {
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "name", row.name);
		cJSON_AddNumberToObject(o, "id", row.id);
		cJSON_AddStringToObject(o, "sha256", row.sha256);
		cJSON_AddStringToObject(o, "chain_sha256", row.chain_sha256);
		json_print(o, stdout);
		cJSON_Delete(o);
	} else {
		printf("imported %s from %s into %s as record %d: sha256 %.12s, chained to %.12s\n", row.name,
		       v.args[0], paths->db, row.id, row.sha256, row.prev_sha256);
	}
	db_baseline_release(&row);
	db_close(store);
	return 0;
}

static int verb_verify(int argc, char **argv, const cli_paths *paths)
{
	static const char *const hdr[] = {"name", "created", "sha256", "verdict"};
	verb_opts v;
	db *store = NULL;
	db_baseline *rows;
	cJSON *a = NULL;
	out_table t;
	err e = {0};
	int n, bad = 0, rc = verb_begin(argc, argv, "verify", "", 0, "no arguments", paths, &v, &store);
	if (rc >= 0)
		return rc;
	if (db_baseline_list(store, &rows, &n, &e) != 0) {
		db_close(store);
		return cli_fail(&e);
	}
	out_init(&t, 4, hdr);
	if (v.format == OUT_JSON)
		a = cJSON_CreateArray();
	for (int i = 0; i < n; i++) {
		char why[512], sha[16];
		const char *cells[4];
		record_verify_one(rows, i, why, sizeof why);
		if (why[0]) {
			bad++;
			fprintf(stderr, "roofcost: baseline verify: %s: %s\n", rows[i].name, why);
		}
		snprintf(sha, sizeof sha, "%.12s", rows[i].sha256);
		cells[0] = rows[i].name;
		cells[1] = rows[i].created_at;
		cells[2] = sha;
		cells[3] = why[0] ? why : "ok";
		out_row(&t, cells);
		if (a) {
			cJSON *o = cJSON_CreateObject();
			cJSON_AddStringToObject(o, "name", rows[i].name);
			cJSON_AddStringToObject(o, "sha256", rows[i].sha256);
			cJSON_AddBoolToObject(o, "ok", !why[0]);
			if (why[0])
				cJSON_AddStringToObject(o, "problem", why);
			cJSON_AddItemToArray(a, o);
		}
	}
	if (a) {
		cJSON *o = cJSON_CreateObject();
		cJSON_AddItemToObject(o, "records", a);
		cJSON_AddNumberToObject(o, "changed", bad);
		json_print(o, stdout);
		cJSON_Delete(o);
	} else {
		out_print(&t, v.format, stdout);
		if (v.format == OUT_TABLE)
			printf("%d records: %s\n", n, bad ? "some changed behind the tool's back" :
			       "every hash and the chain hold");
	}
	out_release(&t);
	db_baseline_free(rows, n);
	db_close(store);
	return bad ? 3 : 0;
}

int cmd_baseline(int argc, char **argv, const cli_paths *paths)
{
	static const struct { const char *name; int (*run)(int, char **, const cli_paths *); } verbs[] = {
		{"record", verb_record}, {"check", verb_check}, {"list", verb_list}, {"show", verb_show},
		{"diff", verb_diff}, {"export", verb_export}, {"import", verb_import}, {"verify", verb_verify},
	};
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return 0;
	}
	for (size_t i = 0; i < sizeof verbs / sizeof verbs[0]; i++)
		if (!strcmp(argv[1], verbs[i].name))
			return verbs[i].run(argc - 1, argv + 1, paths);
	return usage_error("unknown verb '%s': record, check, list, show, diff, export, import or verify", argv[1]);
}
