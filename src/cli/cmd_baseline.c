/* cmd_baseline: `roofcost baseline record|check|list|show|diff|export|import|verify` - frozen
 * release records (DESIGN §6 "Release records", §8): the options of each verb and the tables
 * that show what it did. What each verb does (the evaluation a record replays, a record made,
 * checked and logged, verified) and its JSON are lib/release.c's, over store/record.c; this
 * file parses and prints. Each check is logged in the store's baseline_check table, which is
 * where `list` finds a record's last check. */
#include <cJSON.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "base/opt.h"
#include "base/os.h"
#include "base/text.h"
#include "cli/cli.h"
#include "lib/release.h"
#include "store/baseline.h"
#include "store/record.h"

#define jstr json_str
#define jnum json_num

const char baseline_usage[] =
	"usage: roofcost baseline record NAME -s SYSTEM -w WORKLOAD [eval options] [--criteria RULES]\n"
	"                                [--tolerance RULES]\n"
	"       roofcost baseline check NAME|--all [--frozen | --as-of DATE] [--fail-on regressed|any]\n"
	"                                [--expect N]\n"
	"       roofcost baseline list | show NAME [--text ROLE] | diff A B | verify [--expect-head HASH]\n"
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
	"                     applies when RULES give no *. Text and true/false figures must not move\n\n";

/* The rest of the help: check, verify and the eval options (split for the length of a C string). */
const char baseline_options_usage[] =
	"`check` evaluates again with today's tool and data and prints, per figure: recorded, now,\n"
	"change, tolerance and criteria, verdict (pass; improved or regressed beyond the tolerance,\n"
	"each figure knowing which way is better; changed; fell short of a criterion), and for each\n"
	"figure that moved why: the frozen input that changed (file, key, old and new value), the\n"
	"price row, or the tool. --frozen evaluates from the frozen texts instead (and the frozen\n"
	"price): what still moves is the tool. --as-of DATE pins prices to the newest at or before\n"
	"DATE and evaluates with today's tool and data. --all checks every record (none is an\n"
	"error); --expect N also fails unless the store holds N records. Each check is logged\n"
	"(skipped, with a warning, in a store this user cannot write); `list` shows the last.\n"
	"  --fail-on WHAT     regressed (default): a figure fails when it falls short of a criterion\n"
	"                     or moves beyond its tolerance the worse way (or a figure with no better\n"
	"                     way moves); any: when it moves beyond its tolerance either way\n"
	"Exit 0 all pass, 3 a figure failed or records are missing, 1 a record or the store is\n"
	"unreadable or was changed behind the tool's back.\n\n"
	"Every verb that uses a record first checks it: its hash, its columns (a renamed record\n"
	"fails) and its link to the record before. `verify` checks every record, the chain's head\n"
	"(how many records and checks, and the newest links: a deleted newest record fails), the\n"
	"hashed check log and every catalog's price rows, prints the mode and the head, and exits 3\n"
	"when anything was changed behind the tool's back or --expect-head HASH (a head kept\n"
	"outside the store) differs. With ROOFCOST_RECORD_KEY set (16 bytes or more) a new store's\n"
	"links and head are HMAC-SHA256 under that key, which nobody without it can recompute; every\n"
	"verb then needs it. `export` writes a record as one schema-versioned JSON document (with\n"
	"hmac_sha256 in a keyed store) that `import` reads into any store (refusing a name that\n"
	"exists, a broken hash, or a keyed document without the key). `show --text ROLE` prints one\n"
	"frozen input file. Reading verbs work in a store this user can only read. The store:\n"
	"$ROOFCOST_DB.\n\n"
	"eval options:\n" CLI_EVAL_USAGE CLI_COST_USAGE;

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

/* ---- the tool */

/* The options a record keeps: eval's, as `baseline record` takes them. */
static const struct option eval_longopts[] = {CLI_EVAL_LONGOPTS, CLI_COST_LONGOPTS, {NULL, 0, NULL, 0}};

static const struct option *eval_option(int code)
{
	for (const struct option *o = eval_longopts; o->name; o++)
		if (o->val == code)
			return o;
	return NULL;
}

/* The tool: this evaluation, version and build, and ROOFCOST_RECORD_KEY. Returns 0, or 2 with
 * the usage error printed for a key shorter than BASELINE_KEY_MIN. */
static int tool_init(record_tool *t)
{
	err e = {0};
	if (release_tool(t, cli_version, cli_build, getenv("ROOFCOST_RECORD_KEY"), &e) != 0)
		return cli_fail(&e);
	return 0;
}

/* A record-reading verb's store (record_store_open) and its records, checked. Returns -1 to
 * go on, else the exit code with the error printed. */
static int open_audit(const home_paths *paths, const record_tool *t, db **store, record_audit *a, char *note,
		      size_t n)
{
	err e = {0};
	*store = NULL;
	memset(a, 0, sizeof *a);
	if (record_store_open(paths->db, store, note, n, &e) != 0 || record_audit_open(*store, t, a, &e) != 0) {
		db_close(*store);
		*store = NULL;
		return cli_fail(&e);
	}
	if (a->head_state == 2) {
		fprintf(stderr, "roofcost: %s: %s\n", paths->db, a->head_why);
		record_audit_release(a);
		db_close(*store);
		*store = NULL;
		return 1;
	}
	return -1;
}

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
	fprintf(fp, "baseline %s: %s on %s, recorded %s by %s; checked %s%s%s\n", row->name, row->workload,
		row->system, row->created_at, c->tool_rec,
		c->frozen ? "from the frozen inputs and price with today's tool" : "with today's data and tool",
		c->as_of[0] ? ", prices as at " : "", c->as_of);
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
	if (c->failed && c->regressed && c->improved)
		fprintf(fp, "%s: regressed: %d of %d figures (%d improved)\n", row->name, c->regressed, c->nfig,
			c->improved);
	else if (c->failed && c->regressed)
		fprintf(fp, "%s: regressed: %d of %d figures\n", row->name, c->regressed, c->nfig);
	else if (c->failed)
		fprintf(fp, "%s: moved beyond tolerance: %d of %d figures improved (--fail-on any)\n", row->name,
			c->improved, c->nfig);
	else if (c->improved)
		fprintf(fp, "%s: pass: %d of %d figures improved beyond tolerance\n", row->name, c->improved, c->nfig);
	else
		fprintf(fp, "%s: pass (%d figures)\n", row->name, c->nfig);

}

/* ---- verbs */

typedef struct verb_opts {
	out_format format;
	int format_given;
	int all, frozen, fail_any, expect;  /* expect: --expect N, -1 none */
	const char *out, *text, *as_of, *expect_head;
	const char *args[4];
	int nargs;
} verb_opts;

enum { OPT_ALL = 2000, OPT_FROZEN, OPT_TEXT, OPT_CRITERIA, OPT_TOLERANCE, OPT_FAIL_ON, OPT_AS_OF, OPT_EXPECT,
       OPT_EXPECT_HEAD };

/* 1 if name is one of the space-separated words of allowed. */
static int allows(const char *allowed, const char *name)
{
	size_t n = strlen(name);
	for (const char *p = allowed; (p = strstr(p, name)); p += n)
		if ((p == allowed || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
			return 1;
	return 0;
}

/* Options of every verb but record, and arguments. */
static int verb_parse(int argc, char **argv, const char *verb, const char *allowed, verb_opts *v)
{
	static const struct option longopts[] = {
		{"format", required_argument, NULL, CLI_OPT_FORMAT}, {"all", no_argument, NULL, OPT_ALL},
		{"frozen", no_argument, NULL, OPT_FROZEN}, {"output", required_argument, NULL, 'o'},
		{"text", required_argument, NULL, OPT_TEXT}, {"fail-on", required_argument, NULL, OPT_FAIL_ON},
		{"as-of", required_argument, NULL, OPT_AS_OF}, {"expect", required_argument, NULL, OPT_EXPECT},
		{"expect-head", required_argument, NULL, OPT_EXPECT_HEAD}, {"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0}};
	int c;
	char arg[400];
	memset(v, 0, sizeof *v);
	v->expect = -1;
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
		const char *name = "";
		for (const struct option *o = longopts; o->name; o++)
			if (o->val == c)
				name = c == 'o' ? "o" : o->name;
		if (c == 'h') {
			usage(stdout);
			return -1;
		}
		if (c == '?')
			return 2;
		if (optarg)
			text_quote(arg, sizeof arg, optarg);
		if (c == CLI_OPT_FORMAT) {
			if (out_parse_format(optarg, &v->format) != 0)
				return usage_error("--format: '%s' is not one of table, csv, json, md", arg);
			v->format_given = 1;
			continue;
		}
		if (!allows(allowed, name)) {
			fprintf(stderr, "roofcost: baseline %s: %s%s does not apply (see 'roofcost baseline --help')\n",
				verb, c == 'o' ? "-" : "--", name);
			return 2;
		}
		if (c == OPT_ALL) {
			v->all = 1;
		} else if (c == OPT_FROZEN) {
			v->frozen = 1;
		} else if (c == 'o') {
			v->out = optarg;
		} else if (c == OPT_TEXT) {
			v->text = optarg;
		} else if (c == OPT_FAIL_ON) {
			if (strcmp(optarg, "regressed") && strcmp(optarg, "any"))
				return usage_error("--fail-on: '%s' is not one of regressed, any", arg);
			v->fail_any = !strcmp(optarg, "any");
		} else if (c == OPT_AS_OF) {
			if (!price_is_date(optarg))
				return usage_error("--as-of: '%s' is not a date (YYYY-MM-DD)", arg);
			v->as_of = optarg;
		} else if (c == OPT_EXPECT) {
			if (opt_int(optarg, 0, 1000000000, &v->expect) != 0)
				return usage_error("--expect: '%s' is not a count of records (0 or more)", arg);
		} else if (c == OPT_EXPECT_HEAD) {
			size_t n = strlen(optarg);
			if (n != 64 || strspn(optarg, "0123456789abcdef") != n)
				return usage_error("--expect-head: '%s' is not a chain head (64 hex digits, as verify "
						   "prints it)", arg);
			v->expect_head = optarg;
		}
	}
	if (v->frozen && v->as_of)
		return usage_error("%s", "check: --frozen pins prices already (to the record's); --as-of goes without it");
	for (int i = optind; i < argc; i++) {
		if (v->nargs == 4) {
			text_quote(arg, sizeof arg, argv[i]);
			fprintf(stderr, "roofcost: baseline %s: unexpected argument '%s'\n", verb, arg);
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

/* The start of every verb that reads records: its options and n arguments (what names them),
 * the tool, then the store opened for reading and its records checked. Returns -1 to go on,
 * else the exit code (0 after --help). */
static int verb_begin(int argc, char **argv, const char *verb, const char *allowed, int n, const char *what,
		      const home_paths *paths, verb_opts *v, record_tool *t, db **store, record_audit *a, char *note,
		      size_t nn)
{
	int rc = verb_parse(argc, argv, verb, allowed, v);
	*store = NULL;
	memset(a, 0, sizeof *a);
	if (rc != 0)
		return rc < 0 ? 0 : rc;
	if ((rc = want_args(verb, v, n, what)) != 0 || (rc = tool_init(t)) != 0)
		return rc;
	return open_audit(paths, t, store, a, note, nn);
}

static void verb_end(db *store, record_audit *a)
{
	record_audit_release(a);
	db_close(store);
}

/* The index of the named record, usable, or -1 with the error printed. */
static int get_record(const record_audit *a, const home_paths *paths, const char *name, const char *note)
{
	int i = record_audit_find(a, name);
	char clipped[400];
	err e = {0};
	if (i < 0) {
		text_quote(clipped, sizeof clipped, name);
		fprintf(stderr, "roofcost: baseline: no record '%s' in %s%s%s (see 'roofcost baseline list')\n", clipped,
			paths->db, note[0] ? ": " : "", note);
		return -1;
	}
	if (record_usable(a, i, &e) != 0) {
		cli_fail(&e);
		return -1;
	}
	return i;
}

/* The figures of a record or an evaluation against its criteria. */
static void print_figure_table(const release_figure *fig, int n, out_format fmt, FILE *fp)
{
	static const char *const hdr[] = {"figure", "value", "limit", "verdict"};
	out_table t;
	out_init(&t, 4, hdr);
	out_right(&t, 1);
	for (int f = 0; f < n; f++) {
		char val[BASELINE_TEXT_MAX];
		const char *cells[4];
		baseline_value_text(&fig[f].v, val, sizeof val);
		cells[0] = fig[f].name;
		cells[1] = val;
		cells[2] = fig[f].j.limit;
		cells[3] = fig[f].j.verdict;
		out_row(&t, cells);
	}
	out_print(&t, fmt, fp);
	out_release(&t);
}

static int verb_record(int argc, char **argv, const home_paths *paths)
{
	static const struct option longopts[] = {CLI_EVAL_LONGOPTS, CLI_COST_LONGOPTS,
						 {"criteria", required_argument, NULL, OPT_CRITERIA},
						 {"tolerance", required_argument, NULL, OPT_TOLERANCE},
						 {NULL, 0, NULL, 0}};
	setup_opts o;
	record_tool t;
	release_made m;
	const char *criteria = "", *tolerance = "", *name = NULL;
	cJSON *options = cJSON_CreateArray();
	db *store = NULL;
	char clipped[400];
	err e = {0};
	int c, rc = 0, made = 0;

	setup_init(&o);
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
		text_quote(clipped, sizeof clipped, name);
		rc = usage_error("record: '%s' is not a record name (letters, digits, '.', '_', '-', at most 100)",
				 clipped);
		goto done;
	}
	if ((rc = tool_init(&t)) != 0)
		goto done;
	made = 1;
	rc = release_record(paths, &t, &store, name, options, criteria, tolerance, &m, &e);
	options = NULL;
	if (rc != 0) {
		rc = cli_fail(&e);
		goto done;
	}
	if (m.fell_short) {
		if (o.format != OUT_JSON)
			print_figure_table(m.fig, m.nfig, o.format, stdout);
		fprintf(stderr, "roofcost: baseline record: %s: a figure fails the criteria: nothing recorded\n", name);
		rc = 3;
		goto done;
	}
	if (o.format == OUT_JSON) {
		cJSON *j = release_made_json(name, &m);
		json_print(j, stdout);
		cJSON_Delete(j);
	} else {
		print_figure_table(m.fig, m.nfig, o.format, stdout);
		if (o.format == OUT_TABLE)
			printf("recorded %s in %s as record %d: %d inputs, sha256 %.12s, chained to %.12s%s\n", name,
			       paths->db, m.row.id, m.ev->nin, m.row.sha256, m.row.prev_sha256, t.key.len ? " (keyed)" : "");
		if (m.stale[0])
			printf("%swarning: %s\n", o.format == OUT_MD ? "\n" : "", m.stale);
	}
done:
	cJSON_Delete(options);
	if (made)
		release_made_release(&m);
	db_close(store);
	return rc;
}

/* check's sink: each record's table as it is checked, the errors and warnings on stderr. */
typedef struct check_out {
	out_format format;
	out_table *flat;
} check_out;

static void check_checked(void *ctx, int k, const db_baseline *row, const record_check *c)
{
	const check_out *x = ctx;
	if (x->format == OUT_JSON)
		return;
	if (x->format == OUT_TABLE) {
		if (k)
			printf("\n");
		check_print(row, c, stdout);
	} else {
		check_rows(row, c, x->flat, 1);
	}
}

static void check_fail(void *ctx, const err *e)
{
	(void)ctx;
	cli_fail(e);
}

static void check_say(void *ctx, const char *msg)
{
	(void)ctx;
	fprintf(stderr, "roofcost: %s\n", msg);
}

static int verb_check(int argc, char **argv, const home_paths *paths)
{
	verb_opts v;
	record_tool t;
	release_check_opts co;
	release_tally n;
	out_table flat;
	check_out x;
	release_sink sink = {check_checked, check_fail, check_say, &x};
	cJSON *all = NULL;
	int rc;
	int parsed = verb_parse(argc, argv, "check", "all frozen fail-on as-of expect", &v);
	if (parsed != 0)
		return parsed < 0 ? 0 : parsed;
	if (v.all ? v.nargs != 0 : v.nargs != 1)
		return want_args("check", &v, v.all ? 0 : 1, "NAME or --all");
	if (v.expect >= 0 && !v.all)
		return usage_error("%s", "check: --expect N counts the records of --all");
	if ((rc = tool_init(&t)) != 0)
		return rc;
	memset(&co, 0, sizeof co);
	co.name = v.all ? NULL : v.args[0];
	co.all = v.all;
	co.expect = v.expect;
	co.how.frozen = v.frozen;
	co.how.fail_any = v.fail_any;
	co.how.as_of = v.as_of;
	check_table(&flat, 1);
	x.format = v.format;
	x.flat = &flat;
	rc = release_check(paths, &t, &co, &sink, &n, v.format == OUT_JSON ? &all : NULL);
	if (all) {
		json_print(all, stdout);
		cJSON_Delete(all);
	} else if (n.ran && v.format != OUT_TABLE && v.format != OUT_JSON) {
		out_print(&flat, v.format, stdout);
	} else if (n.ran && v.all && v.format == OUT_TABLE) {
		printf("%s%d records: %d pass, %d fell short, %d unreadable\n", n.n ? "\n" : "", n.n, n.passed,
		       n.fell_short, n.unreadable);
	}
	out_release(&flat);
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

static int verb_list(int argc, char **argv, const home_paths *paths)
{
	static const char *const hdr[] = {"name", "workload", "system", "created", "criteria", "tolerance",
					  "last_check"};
	verb_opts v;
	db *store;
	record_audit a;
	record_tool tl;
	char note[RECORD_PATH_MAX + 128];
	int rc = verb_begin(argc, argv, "list", "", 0, "no arguments", paths, &v, &tl, &store, &a, note, sizeof note);
	const db_baseline *rows = a.rows;
	int n = a.n;
	if (rc >= 0)
		return rc;
	if (v.format == OUT_JSON) {
		cJSON *arr = release_list_json(&a);
		json_print(arr, stdout);
		cJSON_Delete(arr);
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
			printf("(no records in %s%s%s: see 'roofcost baseline record --help')\n", paths->db, note[0] ? "; " : "",
			       note);
	}
	for (int i = 0; i < n; i++)
		if (a.why[i][0])
			fprintf(stderr, "roofcost: baseline list: %s: %s: the record changed behind the tool's back (see "
				"'roofcost baseline verify')\n", rows[i].name, a.why[i]);
	if (!a.counts_ok || a.head_state == 1)
		fprintf(stderr, "roofcost: %s: %s (see 'roofcost baseline verify')\n", paths->db,
			!a.counts_ok ? a.counts_why : a.head_why);
	rc = a.bad || !a.counts_ok || a.head_state ? 1 : 0;
	verb_end(store, &a);
	return rc;
}

static void kv(out_table *t, const char *k, const char *v)
{
	const char *cells[2] = {k, v};
	out_row(t, cells);
}

static int verb_show(int argc, char **argv, const home_paths *paths)
{
	static const char *const hdr[] = {"field", "value"};
	verb_opts v;
	db *store;
	record_audit a;
	record_tool tl;
	const db_baseline *rowp;
	cJSON *rec = NULL;
	const cJSON *it;
	err e = {0};
	char buf[4096], note[RECORD_PATH_MAX + 128];
	int i, rc = verb_begin(argc, argv, "show", "text", 1, "one NAME", paths, &v, &tl, &store, &a, note, sizeof note);
	if (rc >= 0)
		return rc;
	rc = 0;
	if ((i = get_record(&a, paths, v.args[0], note)) < 0) {
		verb_end(store, &a);
		return 1;
	}
	rowp = &a.rows[i];
#define row (*rowp)
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
		cJSON *o = release_show_json(&row, rec);
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
#undef row
done:
	cJSON_Delete(rec);
	verb_end(store, &a);
	return rc;
}

static int verb_diff(int argc, char **argv, const home_paths *paths)
{
	static const char *const hdr[] = {"figure", "a", "b", "change"};
	verb_opts v;
	db *store;
	record_audit au;
	record_tool tl;
	db_baseline a, b;
	cJSON *ra = NULL, *rb = NULL;
	const cJSON *it;
	release_diff d;
	out_table t;
	err e = {0};
	char note[RECORD_PATH_MAX + 128];
	int ia, ib, rc = verb_begin(argc, argv, "diff", "", 2, "two NAMEs", paths, &v, &tl, &store, &au, note,
				   sizeof note);
	if (rc >= 0)
		return rc;
	rc = 0;
	if ((ia = get_record(&au, paths, v.args[0], note)) < 0 || (ib = get_record(&au, paths, v.args[1], note)) < 0) {
		verb_end(store, &au);
		return 1;
	}
	a = au.rows[ia];
	b = au.rows[ib];
	ra = cJSON_Parse(a.record);
	rb = cJSON_Parse(b.record);
	if (release_diff_run(ra, rb, &d, &e) != 0) {
		fprintf(stderr, "roofcost: %s\n", e.msg);
		rc = 1;
		goto done;
	}
	if (v.format == OUT_JSON) {
		cJSON *o = release_diff_json(a.name, b.name, &d);
		json_print(o, stdout);
		cJSON_Delete(o);
		goto done;
	}
	out_init(&t, 4, hdr);
	out_right(&t, 1);
	out_right(&t, 2);
	out_right(&t, 3);
	for (int f = 0; f < d.n; f++) {
		char sx[64], sy[64], ch[32];
		const char *cells[4];
		baseline_value_text(&d.a[f].v, sx, sizeof sx);
		baseline_value_text(&d.b[f].v, sy, sizeof sy);
		record_change_text(&d.b[f].j, ch, sizeof ch);
		cells[0] = d.a[f].name;
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
		printf("%s\n", cJSON_GetArraySize(d.lines) ? "differences:" : "same inputs, options, price and tool");
		cJSON_ArrayForEach(it, d.lines) {
			printf("  %s\n", it->valuestring);
		}
	}
done:
	release_diff_release(&d);
	cJSON_Delete(ra);
	cJSON_Delete(rb);
	verb_end(store, &au);
	return rc;
}

static int verb_export(int argc, char **argv, const home_paths *paths)
{
	verb_opts v;
	db *store;
	record_audit a;
	record_tool t;
	const db_baseline *row;
	char *doc, note[RECORD_PATH_MAX + 128];
	err e = {0};
	int i, rc = verb_begin(argc, argv, "export", "o", 1, "one NAME", paths, &v, &t, &store, &a, note, sizeof note);
	if (rc >= 0)
		return rc;
	rc = 0;
	if (!v.out && v.format_given && v.format != OUT_JSON) {
		verb_end(store, &a);
		return usage_error("export: %s", "the document is JSON: --format table|csv|md need -o FILE");
	}
	if ((i = get_record(&a, paths, v.args[0], note)) < 0) {
		verb_end(store, &a);
		return 1;
	}
	row = &a.rows[i];
	if (!(doc = record_export(&t, row))) {
		fprintf(stderr, "roofcost: baseline export: %s: the record cannot be read (see 'roofcost baseline "
			"verify')\n", row->name);
		rc = 1;
	} else if (!v.out) {
		fputs(doc, stdout);
	} else if (os_write_file_whole(v.out, doc, &e) != 0) {
		/* Written whole beside the target, then renamed: never half a document. */
		rc = cli_fail(&e);
	} else if (v.format == OUT_JSON) {
		cJSON *o = release_exported_json(row, v.out);
		json_print(o, stdout);
		cJSON_Delete(o);
	} else {
		printf("exported %s to %s: sha256 %.12s, schema %s %d%s\n", row->name, v.out, row->sha256,
		       baseline_schema, BASELINE_SCHEMA_VERSION, t.key.len ? ", keyed (hmac_sha256)" : "");
	}
	free(doc);
	verb_end(store, &a);
	return rc;
}

static int verb_import(int argc, char **argv, const home_paths *paths)
{
	verb_opts v;
	db *store = NULL;
	db_baseline row;
	record_tool t;
	err e = {0};
	int rc = verb_parse(argc, argv, "import", "", &v);
	if (rc != 0)
		return rc < 0 ? 0 : rc;
	if ((rc = want_args("import", &v, 1, "one FILE")) != 0 || (rc = tool_init(&t)) != 0)
		return rc;
	if (home_open_db(paths, &store, &e) != 0 || record_import(store, &t, v.args[0], &row, &e) != 0) {
		db_close(store);
		return cli_fail(&e);
	}
	if (v.format == OUT_JSON) {
		cJSON *o = release_imported_json(&row);
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

static int verb_verify(int argc, char **argv, const home_paths *paths)
{
	static const char *const hdr[] = {"name", "created", "sha256", "verdict"};
	verb_opts v;
	db *store;
	record_audit a;
	record_tool t;
	release_verified vf;
	const cJSON *it;
	out_table tb;
	err e = {0};
	char note[RECORD_PATH_MAX + 128];
	int rc = verb_begin(argc, argv, "verify", "expect-head", 0, "no arguments", paths, &v, &t, &store, &a, note,
			    sizeof note);
	if (rc >= 0)
		return rc;
	if (release_verify(store, &t, &a, v.expect_head, &vf, &e) != 0) {
		verb_end(store, &a);
		return cli_fail(&e);
	}
	for (int i = 0; i < a.n; i++)
		if (a.why[i][0])
			fprintf(stderr, "roofcost: baseline verify: %s: %s\n", a.rows[i].name, a.why[i]);
	cJSON_ArrayForEach(it, vf.problems) {
		fprintf(stderr, "roofcost: baseline verify: %s\n", it->valuestring);
	}
	if (v.format == OUT_JSON) {
		cJSON *o = release_verified_json(&a, &vf);
		json_print(o, stdout);
		cJSON_Delete(o);
	} else {
		out_init(&tb, 4, hdr);
		for (int i = 0; i < a.n; i++) {
			char sha[16];
			const char *cells[4];
			snprintf(sha, sizeof sha, "%.12s", a.rows[i].sha256);
			cells[0] = a.rows[i].name;
			cells[1] = a.rows[i].created_at;
			cells[2] = sha;
			cells[3] = a.why[i][0] ? a.why[i] : "ok";
			out_row(&tb, cells);
		}
		out_print(&tb, v.format, stdout);
		out_release(&tb);
		if (v.format == OUT_TABLE) {
			printf("%d records: %s\n", a.n, vf.bad ? "some changed behind the tool's back" :
			       "every hash and the chain hold");
			printf("chain head: %s (%d records; %s)\n", a.chain_head, a.n, vf.mode);
			printf("check log: %d checks, head %.12s: %s\n", vf.log.checks, vf.log.head, vf.log.bad ? "broken" : "holds");
			printf("prices: %d catalogs, %d rows: %s\n", vf.prices.catalogs, vf.prices.rows,
			       vf.prices.bad ? "changed" : "hold");
			if (note[0])
				printf("(%s)\n", note);
		}
	}
	rc = vf.bad ? 3 : 0;
	release_verified_release(&vf);
	verb_end(store, &a);
	return rc;
}

int cmd_baseline(int argc, char **argv, const home_paths *paths)
{
	static const struct { const char *name; int (*run)(int, char **, const home_paths *); } verbs[] = {
		{"record", verb_record}, {"check", verb_check}, {"list", verb_list}, {"show", verb_show},
		{"diff", verb_diff}, {"export", verb_export}, {"import", verb_import}, {"verify", verb_verify},
	};
	char clipped[400];
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
	text_quote(clipped, sizeof clipped, argv[1]);
	return usage_error("unknown verb '%s': record, check, list, show, diff, export, import or verify", clipped);
}
