/* cmd_baseline: `roofcost baseline record|check|list|show|diff|export|import|verify` - frozen
 * release records (DESIGN §6 "Release records", §8).
 *
 * record evaluates as eval does (the same options, through cli_eval_option and cli_setup, so an
 * option eval gains reaches baseline too) and freezes, in the store, one canonical JSON record:
 * the tool's version and build; the text and SHA-256 of every input file the evaluation read
 * (the table in list_inputs) and of every option; the price row used with its catalog's
 * SHA-256; pricing model, region, layout and chips; the results with the interruption test
 * (cost_interrupt_*); the pass rules; created_at. check evaluates again, with today's data or
 * (--frozen) from the frozen texts written to a temporary data folder beside a store that holds
 * only the frozen price, judges every figure, and says for each one that moved what moved it:
 * the tool (the frozen inputs give another figure), or a frozen input or the price, found by
 * evaluating the frozen inputs with that one cause brought to today (baseline_attribute).
 * Records never change; each check is logged in the store's baseline_check table, which is
 * where `list` finds a record's last check. */
#include <cJSON.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "store/baseline.h"
#include "cli/cli.h"
#include "engine/cost.h"

enum { INPUTS_MAX = 8, OPTIONS_MAX = 96, FIGURES_MAX = 64, FILE_MAX = 16 << 20, NAME_MAX_LEN = 100 };

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
	"calibration, the [cost] defaults) and of every option; the price row used and its catalog's SHA-256; pricing\n"
	"model, region, layout and chips; the results, with an interruption test; the pass rules;\n"
	"the time. The record's SHA-256 is over its canonical JSON and chained to the previous\n"
	"record's. Recording an existing NAME fails and changes nothing; the store's triggers\n"
	"refuse UPDATE and DELETE of records.\n\n"
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

/* ---- small helpers */

static int usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "roofcost: baseline: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, " (see 'roofcost baseline --help')\n");
	return 2;
}

static cJSON *num_or_null(double v)
{
	return isfinite(v) ? cJSON_CreateNumber(v) : cJSON_CreateNull();
}

static const char *jstr(const cJSON *o, const char *key)
{
	const cJSON *j = cJSON_GetObjectItemCaseSensitive(o, key);
	return cJSON_IsString(j) ? j->valuestring : "";
}

static double jnum(const cJSON *o, const char *key)
{
	const cJSON *j = cJSON_GetObjectItemCaseSensitive(o, key);
	return cJSON_IsNumber(j) ? j->valuedouble : NAN;
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

static int read_file(const char *path, char **text, err *e)
{
	FILE *f = fopen(path, "rb");
	size_t n = 0, cap = 0;
	char *buf = NULL;
	*text = NULL;
	if (!f)
		return err_set(e, ERR_DATA, "%s: cannot open: %s", path, strerror(errno));
	for (;;) {
		size_t got;
		if (n + 1 >= cap) {
			size_t ncap = cap ? 2 * cap : 4096;
			char *nb = ncap > FILE_MAX ? NULL : realloc(buf, ncap);
			if (!nb) {
				free(buf);
				fclose(f);
				return err_set(e, ERR_DATA, "%s: larger than %d MiB or out of memory", path, FILE_MAX >> 20);
			}
			buf = nb;
			cap = ncap;
		}
		got = fread(buf + n, 1, cap - n - 1, f);
		n += got;
		if (got == 0)
			break;
	}
	if (ferror(f)) {
		free(buf);
		fclose(f);
		return err_set(e, ERR_DATA, "%s: cannot read", path);
	}
	fclose(f);
	buf[n] = '\0';
	if (memchr(buf, '\0', n)) {
		free(buf);
		return err_set(e, ERR_DATA, "%s: holds a NUL byte: not a text file", path);
	}
	*text = buf;
	return 0;
}

static int write_file(const char *path, const char *text, err *e)
{
	FILE *f = fopen(path, "wb");
	size_t n = strlen(text);
	if (!f)
		return err_set(e, ERR_DATA, "%s: cannot write: %s", path, strerror(errno));
	if (fwrite(text, 1, n, f) != n || fclose(f) != 0) {
		if (f)
			unlink(path);
		return err_set(e, ERR_DATA, "%s: cannot write: %s", path, strerror(errno));
	}
	return 0;
}

static const char *base_name(const char *path)
{
	const char *b = strrchr(path, '/');
	return b ? b + 1 : path;
}

/* "x.ini" -> "x" into out. */
static void stem(const char *path, char *out, size_t n)
{
	const char *b = base_name(path), *dot = strrchr(b, '.');
	size_t len = dot ? (size_t)(dot - b) : strlen(b);
	snprintf(out, n, "%.*s", (int)(len < n ? len : n - 1), b);
}

static void now_utc(char *buf, size_t n)
{
	time_t t = time(NULL);
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static int valid_name(const char *s)
{
	size_t n = strlen(s);
	if (n == 0 || n > NAME_MAX_LEN || s[0] == '.' || s[0] == '-')
		return 0;
	for (const char *p = s; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		      *p == '.' || *p == '_' || *p == '-'))
			return 0;
	return 1;
}

/* ---- one evaluation and what it read */

typedef struct bl_input {
	const char *role;
	const char *dir;                  /* its folder in a data folder: where --frozen writes it */
	char path[CLI_PATH_MAX];          /* relative to the data folder when inside it */
	char *text;                       /* owned */
	char sha256[BASELINE_SHA_HEX];
} bl_input;

typedef struct bl_eval {
	hw_system sys;
	wl_workload w;
	plan p;
	train_result tr;
	infer_result ir;
	rank_quote cost;
	int have_catalog;
	char catalog_path[PRICE_PATH_MAX], catalog_sha[BASELINE_SHA_HEX];
	bl_input in[INPUTS_MAX];
	int nin;
	cJSON *results;                   /* as stored: show_json + layout + interruption */
} bl_eval;

/* The input files an evaluation read, one line each: role, its folder in a data folder, and
 * the path its loader kept. Adding an input is one line here. ev NULL: roles and folders. */
static int list_inputs(const bl_eval *ev, bl_input *in)
{
#define READ(expr) (ev ? (expr) : "")
	const struct { const char *role, *dir, *path; } read[] = {
		{"workload", "workloads", READ(ev->w.path)},
		{"network", "models/nn", READ(ev->w.net.path)},
		{"system", "models/hw/systems", READ(ev->sys.path)},
		{"chip", "models/hw/chips", READ(ev->sys.chip.path)},
		{"collectives", "models/hw", READ(ev->sys.algos.path)},
		{"framework", "models/frameworks", READ(ev->w.fw.path)},
		{"calibration", "models", READ(ev->sys.calib_path)},
		{"cost", "models", READ(ev->w.cost_path)},
	};
#undef READ
	int n = 0;
	for (size_t i = 0; i < sizeof read / sizeof read[0] && n < INPUTS_MAX; i++) {
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
	bl_input in[INPUTS_MAX];
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

static void eval_release(bl_eval *ev)
{
	for (int i = 0; i < ev->nin; i++)
		free(ev->in[i].text);
	ev->nin = 0;
	cJSON_Delete(ev->results);
	ev->results = NULL;
}

static void eval_free(bl_eval *ev)
{
	if (ev) {
		eval_release(ev);
		free(ev);
	}
}

static const bl_input *input_of(const bl_eval *ev, const char *role)
{
	for (int i = 0; i < ev->nin; i++)
		if (!strcmp(ev->in[i].role, role))
			return &ev->in[i];
	return NULL;
}

/* The interruption test (cost_interrupt_*) into the results: figures at the top level, the
 * inputs and the model in "interruption". */
static void add_interruption(bl_eval *ev, cJSON *r)
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
		cJSON_AddItemToObject(r, "interruption_added_h", num_or_null(ci.added / 3600));
		cJSON_AddItemToObject(r, "interruption_usd", num_or_null(ci.usd));
		cJSON_AddItemToObject(r, "interruption_count", num_or_null(ci.count));
		cJSON_AddItemToObject(r, "interruption_run_added_h", num_or_null(ci.run_added / 3600));
		cJSON_AddItemToObject(r, "interruption_run_usd", num_or_null(ci.run_usd));
		cJSON_AddItemToObject(r, "interruption_loss_pct", num_or_null(ci.loss_pct));
		cJSON_AddStringToObject(x, "lost", "one node, just before a checkpoint is durable (the worst moment)");
		cJSON_AddStringToObject(x, "model", "added = restart_time + checkpoint_size / checkpoint_bw (reload) + "
					"interval + checkpoint write (the work redone); the job's chips all wait; over the "
					"run: expected interruptions (run time / system MTBF) x added, an upper bound");
		cJSON_AddNumberToObject(x, "node_chips", hw_node_chips(&ev->sys));
		cJSON_AddNumberToObject(x, "job_chips", p->chips);
		cJSON_AddItemToObject(x, "chip_mtbf_h", num_or_null(f->chip_mtbf / 3600));
		cJSON_AddItemToObject(x, "system_mtbf_h", num_or_null(g->system_mtbf / 3600));
		cJSON_AddNumberToObject(x, "checkpoint_tb", f->checkpoint_bytes / 1e12);
		cJSON_AddNumberToObject(x, "checkpoint_bw_gb_per_s", f->checkpoint_bw / 1e9);
		cJSON_AddItemToObject(x, "checkpoint_interval_s", num_or_null(g->interval));
		cJSON_AddNumberToObject(x, "checkpoint_write_s", g->checkpoint_write);
		cJSON_AddNumberToObject(x, "restart_s", ci.restart);
		cJSON_AddNumberToObject(x, "reload_s", ci.reload);
		cJSON_AddItemToObject(x, "redo_s", num_or_null(ci.redo));
		cJSON_AddItemToObject(x, "usd_per_chip_hour", num_or_null(ev->cost.usd_per_chip_hour));
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
		cJSON_AddItemToObject(r, "interruption_capacity_after_tokens_per_s", num_or_null(ci.capacity_after));
		cJSON_AddItemToObject(r, "interruption_standby_replicas", num_or_null(ci.standby_replicas));
		cJSON_AddItemToObject(r, "interruption_standby_chips", num_or_null(ci.standby_chips));
		cJSON_AddItemToObject(r, "interruption_standby_usd_per_hour", num_or_null(ci.standby_usd_per_hour));
		cJSON_AddItemToObject(r, "interruption_loss_pct", num_or_null(ci.loss_pct));
		cJSON_AddStringToObject(x, "lost", "one replica");
		cJSON_AddStringToObject(x, "model", "the other replicas carry the same output tokens/s; they meet the "
					"limits if (replicas - 1) x one replica's capacity within the limits covers it; "
					"standby = replicas needed for the load + 1 - replicas");
		cJSON_AddNumberToObject(x, "replicas", p->dp);
		cJSON_AddNumberToObject(x, "chips_per_replica", q.chips);
		cJSON_AddItemToObject(x, "load_tokens_per_s", num_or_null(ci.load));
		cJSON_AddItemToObject(x, "replica_capacity_tokens_per_s", num_or_null(cap));
		cJSON_AddItemToObject(x, "usd_per_chip_hour", num_or_null(ev->cost.usd_per_chip_hour));
	}
	cJSON_AddItemToObject(r, "interruption", x);
}

/* Evaluates as `roofcost eval` with o over the data and store of paths (*store: opened on
 * first need, as cli_cost does), then reads back every input file. */
static int evaluate(const cli_paths *paths, const cli_eval_opts *o, db **store, bl_eval *ev, err *e)
{
	rank_view rep;
	cJSON *r;
	char layout[128];
	int rc;
	if ((rc = cli_setup(paths, o, o->system, &ev->sys, &ev->w, &ev->p, e)) != 0)
		return rc;
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
	if (cli_cost(paths, store, o, &ev->sys, &ev->w, rep.train, rep.infer, &ev->cost, e) != 0)
		return ERR_DATA;
	rep.cost = &ev->cost;
	ev->have_catalog = 0;
	if (ev->cost.have_price && *store &&
	    db_price_catalog(*store, &ev->cost.price, ev->catalog_path, sizeof ev->catalog_path,
			     ev->catalog_sha, &ev->have_catalog, e) != 0)
		return ERR_DATA;
	if (!(r = show_json(&rep)))
		return err_set(e, ERR_DATA, "out of memory");
	plan_format(rep.train ? &ev->tr.plan : &ev->ir.plan, layout, sizeof layout);
	cJSON_AddStringToObject(r, "layout", layout);
	add_interruption(ev, r);
	ev->results = as_stored(r);
	cJSON_Delete(r);
	if (!ev->results)
		return err_set(e, ERR_DATA, "out of memory");
	ev->nin = list_inputs(ev, ev->in);
	for (int i = 0; i < ev->nin; i++) {
		bl_input *in = &ev->in[i];
		char read_path[CLI_PATH_MAX];
		snprintf(read_path, sizeof read_path, "%s", in->path);
		in->text = NULL;
		if (read_file(read_path, &in->text, e) != 0) {
			ev->nin = i;
			return ERR_DATA;
		}
		baseline_sha256(in->text, strlen(in->text), in->sha256);
		relative(paths->home, read_path, in->path, sizeof in->path);
	}
	return 0;
}

/* ---- options: recorded as given, replayed through cli_eval_option */

static const struct option eval_longopts[] = {CLI_EVAL_LONGOPTS, CLI_COST_LONGOPTS, {NULL, 0, NULL, 0}};

static const struct option *eval_option(int code)
{
	for (const struct option *o = eval_longopts; o->name; o++)
		if (o->val == code)
			return o;
	return NULL;
}

/* Appends {"option","value","text","sha256"} for one eval option to a. */
static void add_option(cJSON *a, const struct option *o, const char *value)
{
	cJSON *it = cJSON_CreateObject();
	char text[CLI_PATH_MAX + 64], sha[BASELINE_SHA_HEX];
	if (o->has_arg == no_argument)
		snprintf(text, sizeof text, "--%s", o->name);
	else
		snprintf(text, sizeof text, "--%s=%s", o->name, value ? value : "");
	baseline_sha256(text, strlen(text), sha);
	cJSON_AddStringToObject(it, "option", o->name);
	cJSON_AddStringToObject(it, "value", value ? value : "");
	cJSON_AddStringToObject(it, "text", text);
	cJSON_AddStringToObject(it, "sha256", sha);
	cJSON_AddItemToArray(a, it);
}

typedef struct replay {
	cli_eval_opts o;
	char *argv[OPTIONS_MAX + 2];
	int argc;
} replay;

static void replay_release(replay *r)
{
	for (int i = 0; i < r->argc; i++)
		free(r->argv[i]);
	r->argc = 0;
}

/* The recorded options as cli_eval_opts, with -w / -s replaced when wl / sys are given. */
static int replay_options(const cJSON *options, const char *wl, const char *sys, replay *r, err *e)
{
	const cJSON *it;
	int c, old_opterr = opterr;
	memset(r, 0, sizeof *r);
	cli_eval_init(&r->o);
	r->argv[r->argc++] = strdup("baseline");
	cJSON_ArrayForEach(it, options) {
		const char *name = jstr(it, "option"), *value = jstr(it, "value");
		size_t n;
		if (r->argc == OPTIONS_MAX + 1)
			return err_set(e, ERR_DATA, "the record has more than %d options", OPTIONS_MAX);
		if (wl && !strcmp(name, "workload"))
			value = wl;
		if (sys && !strcmp(name, "system"))
			value = sys;
		n = strlen(name) + strlen(value) + 4;
		if (!(r->argv[r->argc] = malloc(n)))
			return err_set(e, ERR_DATA, "out of memory");
		snprintf(r->argv[r->argc++], n, "--%s=%s", name, value);
	}
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(r->argc, r->argv, "", eval_longopts, NULL)) != -1) {
		int h = c == '?' || c == 'h' ? 0 : cli_eval_option(c, optarg, &r->o, e);
		if (h != 1) {
			opterr = old_opterr;
			if (h == 0)
				err_set(e, ERR_DATA, "the record's option '%s' is not one this roofcost knows",
					r->argv[optind > 1 ? optind - 1 : 1]);
			else
				err_prefix(e, "the record's options");
			return ERR_DATA;
		}
	}
	opterr = old_opterr;
	return 0;
}

/* ---- the record */

/* The price row of an evaluation as its results show it (assumptions.price), with its line
 * and catalog. */
static cJSON *price_json(const bl_eval *ev)
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

static int price_of_json(const cJSON *j, price_row *p)
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

static cJSON *make_record(const char *name, const char *created, const bl_eval *ev, cJSON *options,
			  const cli_eval_opts *o, const baseline_rules *rules)
{
	cJSON *rec = cJSON_CreateObject(), *tool = cJSON_CreateObject(), *in = cJSON_CreateArray();
	cJSON *prices = cJSON_CreateArray(), *lay = cJSON_CreateObject();
	const plan *p = ev->w.mode == WL_TRAIN ? &ev->tr.plan : &ev->ir.plan;
	char text[4096];
	cJSON_AddNumberToObject(rec, "schema_version", BASELINE_SCHEMA_VERSION);
	cJSON_AddStringToObject(rec, "name", name);
	cJSON_AddStringToObject(rec, "created_at", created);
	cJSON_AddStringToObject(tool, "version", cli_version);
	cJSON_AddStringToObject(tool, "build", cli_build);
	cJSON_AddItemToObject(rec, "tool", tool);
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
	cJSON_AddStringToObject(rec, "as_of", o->as_of ? o->as_of : "");
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

/* The record's rules, read back from its canonical texts. */
static int record_rules(const cJSON *rec, baseline_rules *r, err *e)
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
	char dir[CLI_PATH_MAX];
	char made[32][CLI_PATH_MAX + 64];   /* files and folders made, to remove in reverse */
	int nmade;
	char wl[CLI_PATH_MAX], sys[CLI_PATH_MAX];  /* stems to evaluate */
	cli_paths paths;
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
	char path[CLI_PATH_MAX + 64];
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
		char p[CLI_PATH_MAX + 32];
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
	char file[CLI_PATH_MAX + 64];
	if (!dir)
		return err_set(e, ERR_DATA, "the record holds a '%s' input, which this roofcost does not read", role);
	if (make_dirs(fd, dir, e) != 0)
		return ERR_DATA;
	snprintf(file, sizeof file, "%s/%s/%s", fd->dir, dir, base_name(path));
	if (write_file(file, text, e) != 0 || made(fd, file, e) != 0)
		return ERR_DATA;
	if (!strcmp(role, "workload"))
		stem(path, fd->wl, sizeof fd->wl);
	if (!strcmp(role, "system"))
		stem(path, fd->sys, sizeof fd->sys);
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
		if (price_of_json(it, &row) != 0) {
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
static int frozen_open(const cJSON *rec, const cli_paths *real, const bl_eval *today,
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
		const bl_input *now = today ? input_of(today, role) : NULL;
		if (swap && !swap_price && now && (!strcmp(role, swap) ||
						   strcmp(base_name(now->path), base_name(jstr(it, "path"))))) {
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
static bl_eval *eval_record(const cJSON *rec, const cli_paths *paths, db **store, int frozen,
			    const bl_eval *today, const char *swap, err *e)
{
	bl_eval *ev = calloc(1, sizeof *ev);
	frozen_dir *fd = frozen ? calloc(1, sizeof *fd) : NULL;
	replay r;
	int rc;
	if (!ev || (frozen && !fd)) {
		free(ev);
		free(fd);
		err_set(e, ERR_DATA, "out of memory");
		return NULL;
	}
	if (!frozen) {
		rc = replay_options(cJSON_GetObjectItemCaseSensitive(rec, "options"), NULL, NULL, &r, e);
		if (rc == 0)
			rc = evaluate(paths, &r.o, store, ev, e);
		replay_release(&r);
	} else {
		db *fs = NULL;
		rc = frozen_open(rec, paths, today, swap, fd, e);
		if (rc == 0) {
			rc = replay_options(cJSON_GetObjectItemCaseSensitive(rec, "options"), fd->wl, fd->sys, &r, e);
			if (rc == 0)
				rc = evaluate(&fd->paths, &r.o, &fs, ev, e);
			replay_release(&r);
			db_close(fs);
		}
		if (rc == 0 && !swap) {
			const cJSON *it;
			cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(rec, "inputs")) {
				const bl_input *in = input_of(ev, jstr(it, "role"));
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
		eval_free(ev);
		return NULL;
	}
	return ev;
}

/* ---- judging and explaining */

typedef struct bl_cause {
	char kind[8];                    /* tool, input, price */
	char role[24];
	char path[CLI_PATH_MAX];
	char label[512];                 /* for the table's why column */
	char detail[8][640];             /* one line each: file, key, old and new value */
	int ndetail;
	baseline_change changes[16];
	int nchanges;
} bl_cause;

typedef struct bl_check {
	int nfig;
	const char *names[FIGURES_MAX];
	baseline_value rec[FIGURES_MAX], now[FIGURES_MAX];
	baseline_judgement j[FIGURES_MAX];
	unsigned why[FIGURES_MAX];
	bl_cause cause[BASELINE_CAUSES_MAX + 1];  /* [0] the tool, then the data causes */
	int ndata;
	int failed;
	int frozen;
	char tool_rec[160], tool_now[160];
} bl_check;

static void values_of(const cJSON *results, const bl_check *c, baseline_value *v)
{
	for (int f = 0; f < c->nfig; f++)
		baseline_value_of(results, c->names[f], &v[f]);
}

static void price_text(const price_row *p, const char *cat, char *buf, size_t n)
{
	snprintf(buf, n, "%s %s %s %s $%g/h per %s (%d chips) as_of %s (%s)", p->provider, p->instance,
		 p->region, price_model_names[p->model], p->usd_per_hour, price_unit_names[p->unit],
		 p->accelerators, p->as_of, cat[0] ? cat : "no catalog");
}

static int same_price(const price_row *a, const price_row *b)
{
	return !strcmp(a->provider, b->provider) && !strcmp(a->instance, b->instance) &&
	       !strcmp(a->region, b->region) && a->model == b->model && a->usd_per_hour == b->usd_per_hour &&
	       a->unit == b->unit && a->accelerators == b->accelerators && !strcmp(a->as_of, b->as_of) &&
	       !strcmp(a->source, b->source);
}

/* The data causes: every frozen input whose text differs from today's, and the price row. */
static int find_causes(const cJSON *rec, const bl_eval *now, bl_check *c, err *e)
{
	const cJSON *it, *prices = cJSON_GetObjectItemCaseSensitive(rec, "prices");
	const cJSON *pr = cJSON_GetArrayItem(prices, 0);
	price_row was;
	int had = pr != NULL;
	c->ndata = 0;
	cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(rec, "inputs")) {
		const char *role = jstr(it, "role"), *path = jstr(it, "path");
		const bl_input *in = input_of(now, role);
		bl_cause *k;
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
		bl_cause *k;
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
	if (had && price_of_json(pr, &was) != 0)
		return err_set(e, ERR_DATA, "the record's price row has an unknown pricing model");
	if ((had != now->cost.have_price || (had && !same_price(&was, &now->cost.price))) &&
	    c->ndata < BASELINE_CAUSES_MAX) {
		bl_cause *k = &c->cause[1 + c->ndata++];
		char a[PRICE_SOURCE_MAX + 256], b[PRICE_SOURCE_MAX + 256];
		memset(k, 0, sizeof *k);
		snprintf(k->kind, sizeof k->kind, "price");
		snprintf(k->role, sizeof k->role, "price");
		if (had)
			price_text(&was, jstr(cJSON_GetObjectItemCaseSensitive(pr, "catalog"), "path"), a, sizeof a);
		else
			snprintf(a, sizeof a, "no price (%s)", jstr(rec, "price_note"));
		if (now->cost.have_price)
			price_text(&now->cost.price, now->have_catalog ? now->catalog_path : "", b, sizeof b);
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

static void tool_cause(const cJSON *rec, bl_check *c)
{
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(rec, "tool");
	bl_cause *k = &c->cause[0];
	memset(k, 0, sizeof *k);
	snprintf(c->tool_rec, sizeof c->tool_rec, "roofcost %s (%s)", jstr(t, "version"), jstr(t, "build"));
	snprintf(c->tool_now, sizeof c->tool_now, "roofcost %s (%s)", cli_version, cli_build);
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

/* Checks one record: evaluates it (today's data, or --frozen), judges every figure and, for
 * those that moved, finds what moved them. Returns 0 (c->failed says how it went) or nonzero
 * with e set when the record or its inputs cannot be read or evaluated. */
static int check_record(const db_baseline *row, const cli_paths *paths, db **store, int frozen,
			bl_check *c, err *e)
{
	char why[256];
	cJSON *rec;
	baseline_rules rules;
	bl_eval *now = NULL, *fz = NULL;
	const cJSON *recorded;
	int rc = 0, moved = 0;
	memset(c, 0, sizeof *c);
	c->frozen = frozen;
	if (!baseline_sound(row->record, row->sha256, why, sizeof why))
		return err_set(e, ERR_DATA, "baseline '%s': %s: the record changed behind the tool's back "
			       "(see 'roofcost baseline verify')", row->name, why);
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
	c->nfig = baseline_figures(jstr(rec, "mode"), &rules, c->names, FIGURES_MAX);
	values_of(recorded, c, c->rec);
	tool_cause(rec, c);
	if (!(now = eval_record(rec, paths, store, frozen, NULL, NULL, e)))
		goto done_err;
	values_of(now->results, c, c->now);
	for (int f = 0; f < c->nfig; f++) {
		baseline_judge(&rules, c->names[f], &c->rec[f], &c->now[f], &c->j[f]);
		c->failed += c->j[f].drifted || c->j[f].fell_short;
		moved |= c->j[f].moved;
	}
	if (moved && frozen) {
		/* From the frozen inputs, only the tool can have moved a figure. */
		for (int f = 0; f < c->nfig; f++)
			c->why[f] = c->j[f].moved ? 1u : 0u;
	} else if (moved) {
		baseline_value *fv = NULL, *sv[BASELINE_CAUSES_MAX] = {NULL};
		err ignored = {0};
		if ((rc = find_causes(rec, now, c, e)) != 0)
			goto done;
		fz = eval_record(rec, paths, store, 1, NULL, NULL, &ignored);
		if (fz && (fv = malloc(FIGURES_MAX * sizeof *fv))) {
			values_of(fz->results, c, fv);
		} else if (!fz) {
			/* Then no cause can be told from another: each gets every moved figure. */
			bl_cause *t = &c->cause[0];
			snprintf(t->label, sizeof t->label, "tool: the frozen inputs do not evaluate with %s", c->tool_now);
			snprintf(t->detail[0], sizeof t->detail[0], "tool: %s -> %s: the frozen inputs do not evaluate "
				 "with it (%.400s), so what moved cannot be told apart", c->tool_rec, c->tool_now, ignored.msg);
			t->ndetail = 1;
		}
		for (int k = 0; k < c->ndata; k++) {
			bl_eval *sw = eval_record(rec, paths, store, 1, now, c->cause[1 + k].role, &ignored);
			if (sw && (sv[k] = malloc(FIGURES_MAX * sizeof *sv[k])))
				values_of(sw->results, c, sv[k]);
			eval_free(sw);
		}
		baseline_attribute(c->nfig, c->rec, c->now, fv, c->ndata, (const baseline_value *const *)sv, c->why);
		free(fv);
		for (int k = 0; k < c->ndata; k++)
			free(sv[k]);
	}
done:
	eval_free(now);
	eval_free(fz);
	cJSON_Delete(rec);
	return rc;
done_err:
	rc = ERR_DATA;
	goto done;
}

/* ---- printing */

static cJSON *value_json(const baseline_value *v)
{
	switch (v->kind) {
	case BASELINE_NUM: return cJSON_CreateNumber(v->num);
	case BASELINE_BOOL: return cJSON_CreateBool(v->num != 0);
	case BASELINE_TEXT: return cJSON_CreateString(v->text);
	default: return cJSON_CreateNull();
	}
}

static void change_text(const baseline_judgement *j, char *buf, size_t n)
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

static void why_text(const bl_check *c, int f, char *buf, size_t n)
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

/* The causes that moved some figure, and the figures each moved. */
static int cause_used(const bl_check *c, int k)
{
	for (int f = 0; f < c->nfig; f++)
		if (c->why[f] & (1u << k))
			return 1;
	return 0;
}

static cJSON *check_json(const db_baseline *row, const bl_check *c)
{
	cJSON *o = cJSON_CreateObject(), *figs = cJSON_CreateArray(), *causes = cJSON_CreateArray();
	cJSON_AddStringToObject(o, "name", row->name);
	cJSON_AddStringToObject(o, "workload", row->workload);
	cJSON_AddStringToObject(o, "system", row->system);
	cJSON_AddStringToObject(o, "created_at", row->created_at);
	cJSON_AddBoolToObject(o, "frozen", c->frozen);
	cJSON_AddBoolToObject(o, "passed", c->failed == 0);
	cJSON_AddNumberToObject(o, "failed", c->failed);
	cJSON_AddStringToObject(o, "tool_recorded", c->tool_rec);
	cJSON_AddStringToObject(o, "tool_now", c->tool_now);
	for (int f = 0; f < c->nfig; f++) {
		cJSON *it = cJSON_CreateObject(), *why = cJSON_CreateArray();
		cJSON_AddStringToObject(it, "figure", c->names[f]);
		cJSON_AddItemToObject(it, "recorded", value_json(&c->rec[f]));
		cJSON_AddItemToObject(it, "now", value_json(&c->now[f]));
		cJSON_AddItemToObject(it, "change", num_or_null(c->j[f].moved ? c->j[f].change : 0));
		cJSON_AddStringToObject(it, "limit", c->j[f].limit);
		cJSON_AddStringToObject(it, "verdict", c->j[f].verdict);
		cJSON_AddBoolToObject(it, "passed", !c->j[f].drifted && !c->j[f].fell_short);
		for (int k = 0; k <= c->ndata; k++)
			if (c->why[f] & (1u << k))
				cJSON_AddItemToArray(why, cJSON_CreateString(c->cause[k].label));
		cJSON_AddItemToObject(it, "why", why);
		cJSON_AddItemToArray(figs, it);
	}
	cJSON_AddItemToObject(o, "figures", figs);
	for (int k = 0; k <= c->ndata; k++) {
		cJSON *it, *ch, *mv;
		if (!cause_used(c, k))
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

static void check_rows(const db_baseline *row, const bl_check *c, out_table *t, int with_record)
{
	for (int f = 0; f < c->nfig; f++) {
		char r[64], n[64], ch[32], why[2048];
		const char *cells[8] = {row->name, c->names[f], r, n, ch, c->j[f].limit, c->j[f].verdict, why};
		baseline_value_text(&c->rec[f], r, sizeof r);
		baseline_value_text(&c->now[f], n, sizeof n);
		change_text(&c->j[f], ch, sizeof ch);
		why_text(c, f, why, sizeof why);
		out_row(t, cells + (with_record ? 0 : 1));
	}
}

/* The text form of one check: a header line, the table, why each moved figure moved, and
 * the verdict. */
static void check_print(const db_baseline *row, const bl_check *c, FILE *fp)
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
		if (!cause_used(c, k))
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

static void print_json(cJSON *j, FILE *fp)
{
	char *s = cJSON_Print(j);
	if (s)
		fprintf(fp, "%s\n", s);
	free(s);
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

static int print_figure_table(const char *mode, const baseline_rules *rules, const cJSON *results,
			      out_format fmt, FILE *fp)
{
	static const char *const hdr[] = {"figure", "value", "limit", "verdict"};
	const char *names[FIGURES_MAX];
	int n = baseline_figures(mode, rules, names, FIGURES_MAX), failed = 0;
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
	const char *criteria = "", *tolerance = "", *name = NULL;
	cJSON *options = cJSON_CreateArray(), *rec = NULL;
	bl_eval *ev = calloc(1, sizeof *ev);
	db *store = NULL;
	db_baseline row;
	char created[DB_TIME_MAX], *text = NULL;
	err e = {0};
	int c, rc = 0;

	cli_eval_init(&o);
	memset(&rules, 0, sizeof rules);
	if (!ev || !options) {
		err_set(&e, ERR_DATA, "out of memory");
		rc = cli_fail(&e);
		goto done;
	}
	optind = 1;
	while ((c = getopt_long(argc, argv, "s:w:h", longopts, NULL)) != -1) {
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
		if (c != CLI_OPT_FORMAT && eval_option(c))
			add_option(options, eval_option(c), optarg);
	}
	if (optind != argc - 1) {
		rc = usage_error("record: expected one NAME%s", optind < argc - 1 ? ", got more" : "");
		goto done;
	}
	name = argv[optind];
	if (!valid_name(name)) {
		rc = usage_error("record: '%s' is not a record name (letters, digits, '.', '_', '-', at most 100)",
				 name);
		goto done;
	}
	if (baseline_parse_criteria(criteria, &rules, &e) != 0 || baseline_parse_tolerance(tolerance, &rules, &e) != 0) {
		rc = cli_fail(&e);
		goto done;
	}
	if (cli_open_db(paths, &store, &e) != 0) {
		rc = cli_fail(&e);
		goto done;
	}
	{
		/* Refuse an existing name before evaluating (db_baseline_add refuses it again under
		 * the write lock, for a recorder racing this one). */
		int found;
		if (db_baseline_get(store, name, &row, &found, &e) != 0) {
			rc = cli_fail(&e);
			goto done;
		}
		if (found) {
			fprintf(stderr, "roofcost: %s: baseline '%s' exists (recorded %s, sha256 %.12s): records "
				"are never overwritten; record under a new name\n", paths->db, name, row.created_at,
				row.sha256);
			db_baseline_release(&row);
			rc = 1;
			goto done;
		}
	}
	if ((rc = evaluate(paths, &o, &store, ev, &e)) != 0) {
		rc = cli_fail(&e);
		goto done;
	}
	/* Every figure the rules name must be one the evaluation has. */
	for (int i = 0; i < rules.ncrit + rules.ntol; i++) {
		const char *fig = i < rules.ncrit ? rules.crit[i].figure : rules.tol[i - rules.ncrit].figure;
		baseline_value v;
		if (!strcmp(fig, "*"))
			continue;
		baseline_value_of(ev->results, fig, &v);
		if (v.kind == BASELINE_ABSENT) {
			fprintf(stderr, "roofcost: %s: no figure '%s' in an evaluation of mode %s (see 'roofcost "
				"eval ... --format json' and the interruption_* figures)\n", i < rules.ncrit ? "--criteria"
				: "--tolerance", fig, wl_mode_names[ev->w.mode]);
			rc = 2;
			goto done;
		}
	}
	if (print_figure_table(wl_mode_names[ev->w.mode], &rules, ev->results, o.format, NULL) > 0) {
		if (o.format != OUT_JSON)
			print_figure_table(wl_mode_names[ev->w.mode], &rules, ev->results, o.format, stdout);
		fprintf(stderr, "roofcost: baseline record: %s: a figure fails the criteria: nothing recorded\n", name);
		rc = 3;
		goto done;
	}
	now_utc(created, sizeof created);
	rec = make_record(name, created, ev, options, &o, &rules);
	options = NULL;
	if (!rec || !(text = baseline_canonical(rec, 0))) {
		err_set(&e, ERR_DATA, "out of memory");
		rc = cli_fail(&e);
		goto done;
	}
	memset(&row, 0, sizeof row);
	snprintf(row.name, sizeof row.name, "%s", name);
	snprintf(row.workload, sizeof row.workload, "%s", ev->w.name);
	snprintf(row.system, sizeof row.system, "%s", ev->sys.name);
	snprintf(row.created_at, sizeof row.created_at, "%s", created);
	row.criteria = (char *)jstr(rec, "criteria");
	row.tolerance = (char *)jstr(rec, "tolerance");
	row.record = text;
	baseline_sha256(text, strlen(text), row.sha256);
	if (db_baseline_add(store, &row, baseline_genesis, baseline_chain, &e) != 0) {
		rc = cli_fail(&e);
		goto done;
	}
	if (o.format == OUT_JSON) {
		cJSON *j = cJSON_CreateObject();
		cJSON_AddStringToObject(j, "name", name);
		cJSON_AddNumberToObject(j, "id", row.id);
		cJSON_AddStringToObject(j, "created_at", created);
		cJSON_AddStringToObject(j, "sha256", row.sha256);
		cJSON_AddStringToObject(j, "prev_sha256", row.prev_sha256);
		cJSON_AddStringToObject(j, "chain_sha256", row.chain_sha256);
		cJSON_AddItemToObject(j, "results", cJSON_Duplicate(ev->results, 1));
		print_json(j, stdout);
		cJSON_Delete(j);
	} else {
		print_figure_table(wl_mode_names[ev->w.mode], &rules, ev->results, o.format, stdout);
		if (o.format == OUT_TABLE)
			printf("recorded %s in %s as record %d: %d inputs, sha256 %.12s, chained to %.12s\n", name,
			       paths->db, row.id, ev->nin, row.sha256, row.prev_sha256);
	}
done:
	cJSON_Delete(options);
	cJSON_Delete(rec);
	free(text);
	eval_free(ev);
	db_close(store);
	return rc;
}

static int verb_check(int argc, char **argv, const cli_paths *paths)
{
	verb_opts v;
	db *store = NULL;
	db_baseline *rows = NULL, one;
	bl_check *c = calloc(1, sizeof *c);
	cJSON *all = NULL;
	out_table flat;
	err e = {0};
	int n = 0, rc = verb_parse(argc, argv, "check", "all frozen", &v), unreadable = 0, short_ = 0;
	memset(&one, 0, sizeof one);
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
		if (check_record(&rows[i], paths, &store, v.frozen, c, &e) != 0) {
			unreadable++;
			cli_fail(&e);
			continue;
		}
		short_ += c->failed > 0;
		if (all) {
			cJSON_AddItemToArray(all, check_json(&rows[i], c));
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
		print_json(o, stdout);
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
		print_json(a, stdout);
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
		print_json(o, stdout);
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
			price_of_json(pr, &p);
			price_text(&p, jstr(cJSON_GetObjectItemCaseSensitive(pr, "catalog"), "path"), buf, sizeof buf);
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
			const char *names[FIGURES_MAX];
			int n = baseline_figures(jstr(rec, "mode"), &rules, names, FIGURES_MAX);
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
	const char *names[FIGURES_MAX];
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
	{
		/* The figures of both: a's headline and rules, then b's. */
		baseline_rules rb_rules;
		n = baseline_figures(jstr(ra, "mode"), &rules, names, FIGURES_MAX);
		if (record_rules(rb, &rb_rules, &e) == 0) {
			const char *more[FIGURES_MAX];
			int m = baseline_figures(jstr(rb, "mode"), &rb_rules, more, FIGURES_MAX);
			for (int i = 0; i < m && n < FIGURES_MAX; i++) {
				int have = 0;
				for (int k = 0; k < n; k++)
					have |= !strcmp(names[k], more[i]);
				if (!have)
					names[n++] = more[i];
			}
		}
	}
	/* Inputs, options, price and tool that differ, one line each. */
	{
		char line[1024];
		const cJSON *ta = cJSON_GetObjectItemCaseSensitive(ra, "tool"), *tb = cJSON_GetObjectItemCaseSensitive(rb, "tool");
		char ca[4096], cb[4096];
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
				snprintf(line, sizeof line, "%s: only in %s (%s)", jstr(it, "role"), a.name, jstr(it, "path"));
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
				price_of_json(pa, &x);
			if (pb)
				price_of_json(pb, &y);
			if ((!pa) != (!pb) || (pa && !same_price(&x, &y))) {
				char sa[PRICE_SOURCE_MAX + 256] = "none", sb[PRICE_SOURCE_MAX + 256] = "none";
				if (pa)
					price_text(&x, jstr(cJSON_GetObjectItemCaseSensitive(pa, "catalog"), "path"), sa, sizeof sa);
				if (pb)
					price_text(&y, jstr(cJSON_GetObjectItemCaseSensitive(pb, "catalog"), "path"), sb, sizeof sb);
				snprintf(line, sizeof line, "price: %.400s -> %.400s", sa, sb);
				cJSON_AddItemToArray(lines, cJSON_CreateString(line));
			}
		}
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
			cJSON_AddItemToObject(r, "a", value_json(&x));
			cJSON_AddItemToObject(r, "b", value_json(&y));
			cJSON_AddItemToObject(r, "change", num_or_null(j.moved ? j.change : 0));
			cJSON_AddItemToArray(figs, r);
		}
		cJSON_AddItemToObject(o, "figures", figs);
		cJSON_AddItemToObject(o, "differences", lines);
		lines = NULL;
		print_json(o, stdout);
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
		change_text(&j, ch, sizeof ch);
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
		char tmp[CLI_PATH_MAX + 16];
		snprintf(tmp, sizeof tmp, "%s.tmp", v.out);
		if (write_file(tmp, doc, &e) != 0 || rename(tmp, v.out) != 0) {
			if (!e.msg[0])
				err_set(&e, ERR_DATA, "%s: cannot write: %s", v.out, strerror(errno));
			unlink(tmp);
			rc = cli_fail(&e);
		} else if (v.format == OUT_JSON) {
			cJSON *o = cJSON_CreateObject();
			cJSON_AddStringToObject(o, "name", row.name);
			cJSON_AddStringToObject(o, "file", v.out);
			cJSON_AddStringToObject(o, "sha256", row.sha256);
			print_json(o, stdout);
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
	cJSON *rec = NULL;
	char *doc = NULL, *text = NULL;
	err e = {0};
	int rc = verb_begin(argc, argv, "import", "", 1, "one FILE", paths, &v, &store);
	if (rc >= 0)
		return rc;
	rc = 0;
	memset(&row, 0, sizeof row);
	if (read_file(v.args[0], &doc, &e) != 0 || !(text = baseline_import(v.args[0], doc, row.sha256, &e))) {
		rc = cli_fail(&e);
		goto done;
	}
	rec = cJSON_Parse(text);
	snprintf(row.name, sizeof row.name, "%s", jstr(rec, "name"));
	if (!valid_name(row.name)) {
		fprintf(stderr, "roofcost: %s: record name '%s' is not a record name\n", v.args[0], row.name);
		rc = 1;
		goto done;
	}
	snprintf(row.workload, sizeof row.workload, "%s", jstr(rec, "workload"));
	snprintf(row.system, sizeof row.system, "%s", jstr(rec, "system"));
	snprintf(row.created_at, sizeof row.created_at, "%s", jstr(rec, "created_at"));
	row.criteria = (char *)jstr(rec, "criteria");
	row.tolerance = (char *)jstr(rec, "tolerance");
	row.record = text;
	if (db_baseline_add(store, &row, baseline_genesis, baseline_chain, &e) != 0) {
		rc = cli_fail(&e);
		goto done;
	}
	if (v.format == OUT_JSON) {
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "name", row.name);
		cJSON_AddNumberToObject(o, "id", row.id);
		cJSON_AddStringToObject(o, "sha256", row.sha256);
		cJSON_AddStringToObject(o, "chain_sha256", row.chain_sha256);
		print_json(o, stdout);
		cJSON_Delete(o);
	} else {
		printf("imported %s from %s into %s as record %d: sha256 %.12s, chained to %.12s\n", row.name,
		       v.args[0], paths->db, row.id, row.sha256, row.prev_sha256);
	}
done:
	cJSON_Delete(rec);
	free(doc);
	free(text);
	db_close(store);
	return rc;
}

/* What is wrong with stored record i (given the one before), "" if nothing. */
static void verify_one(const db_baseline *rows, int i, char *why, size_t n)
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
	baseline_chain(b->prev_sha256, b->sha256, chain);
	if (strcmp(chain, b->chain_sha256) != 0) {
		snprintf(why, n, "its chain hash is %.12s, computed %.12s", b->chain_sha256, chain);
		return;
	}
	rec = cJSON_Parse(b->record);
	if (strcmp(jstr(rec, "name"), b->name) || strcmp(jstr(rec, "workload"), b->workload) ||
	    strcmp(jstr(rec, "system"), b->system) || strcmp(jstr(rec, "created_at"), b->created_at) ||
	    strcmp(jstr(rec, "criteria"), b->criteria) || strcmp(jstr(rec, "tolerance"), b->tolerance))
		snprintf(why, n, "the store's columns (name, workload, system, created, criteria, tolerance) differ "
			 "from the record");
	cJSON_Delete(rec);
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
		verify_one(rows, i, why, sizeof why);
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
		print_json(o, stdout);
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
