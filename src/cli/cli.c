/* cli: main, the command table, and what subcommands share (see cli.h). */
#include "cli/cli.h"
#include "cli/doc.h"
#include "base/names.h"

#include <ctype.h>
#include <dirent.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/lim.h"
#include "base/opt.h"
#include "base/text.h"

#ifndef ROOFCOST_VERSION
#define ROOFCOST_VERSION "0.1.0"
#endif
#ifndef ROOFCOST_DATADIR
#define ROOFCOST_DATADIR "/usr/local/share/roofcost"
#endif
#ifndef ROOFCOST_BUILD
#define ROOFCOST_BUILD "unknown"
#endif

const char cli_version[] = ROOFCOST_VERSION;
const char cli_build[] = ROOFCOST_BUILD;

typedef struct command {
	const char *name;
	int (*run)(int argc, char **argv, const cli_paths *paths);
	const char *summary;
	const char *usage;   /* its --help text */
	const char *more;    /* the rest of it, when --help prints two texts; NULL if not */
} command;

static const command commands[] = {
	{"eval", cmd_eval, "one evaluation of a workload on a system, with its breakdown", eval_usage, NULL},
	{"roofline", cmd_roofline, "per-op table: FLOPs, bytes, intensity, bound, time, share", roofline_usage, NULL},
	{"compare", cmd_compare, "one workload on several systems, side by side", compare_usage, NULL},
	{"import", cmd_import, "import a pricing catalog (CSV) into the store", import_usage, NULL},
	{"list", cmd_list, "list systems, chips, networks, workloads, frameworks or prices", list_usage, NULL},
	{"new", cmd_new, "write a commented template of a network or workload file", new_usage, NULL},
	{"sweep", cmd_sweep, "layout and size search: Pareto front of cost against time, top k", sweep_usage, NULL},
	{"validate", cmd_validate, "predictions against published measurements", validate_usage, NULL},
	{"report", cmd_report, "a report folder with plots: HTML, Markdown, CSV, the inputs", report_usage, NULL},
	{"baseline", cmd_baseline, "frozen release records: record, check, list, show, diff, export, import, verify",
	 baseline_usage, baseline_options_usage},
};

enum { NCOMMANDS = (int)(sizeof commands / sizeof commands[0]) };

static const char about[] =
	"Capacity planning and price-performance of AI accelerators, analytically: which system, how many\n"
	"chips, which parallel layout, and what one delivered unit (a training run, a million output\n"
	"tokens, an example) costs.\n";

static const char notes[] =
	"Data: models/ (chips, systems, networks), workloads/ and catalogs/ beside the binary, in its\n"
	"../share/roofcost, or in $ROOFCOST_HOME. Prices: the store $ROOFCOST_DB, else\n"
	"$XDG_DATA_HOME/roofcost/roofcost.db (~/.local/share/roofcost/roofcost.db), created with the\n"
	"bundled catalogs on first use. Exit codes: 0 success, 1 data/IO/database error, 2 usage error,\n"
	"3 a check that ran and fell short.\n";

static int is_dir(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static int has_models(const char *dir)
{
	char p[CLI_PATH_MAX + 32];
	snprintf(p, sizeof p, "%s/models/hw", dir);
	return is_dir(p);
}

void cli_find_paths(cli_paths *p, const char *argv0)
{
	const char *env = getenv("ROOFCOST_HOME");
	char exe[CLI_PATH_MAX] = "";
	char cand[CLI_PATH_MAX + 32];
	memset(p, 0, sizeof *p);
	if (env && *env) {
		snprintf(p->home, sizeof p->home, "%s", env);
	} else {
		ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
		if (n > 0) {
			char *slash;
			exe[n] = '\0';
			slash = strrchr(exe, '/');
			if (slash)
				*slash = '\0';
		} else if (argv0 && strchr(argv0, '/')) {
			snprintf(exe, sizeof exe, "%s", argv0);
			*strrchr(exe, '/') = '\0';
		}
		snprintf(cand, sizeof cand, "%s/../share/roofcost", exe);
		/* An installed binary takes its own data before the working directory's. */
		if (exe[0] && has_models(exe))
			snprintf(p->home, sizeof p->home, "%s", exe);
		else if (exe[0] && has_models(cand))
			snprintf(p->home, sizeof p->home, "%s", cand);
		else if (has_models("."))
			snprintf(p->home, sizeof p->home, ".");
		else
			snprintf(p->home, sizeof p->home, "%s", ROOFCOST_DATADIR);
	}
	snprintf(p->models, sizeof p->models, "%s/models", p->home);
	snprintf(p->workloads, sizeof p->workloads, "%s/workloads", p->home);
	snprintf(p->catalogs, sizeof p->catalogs, "%s/catalogs", p->home);
	env = getenv("ROOFCOST_DB");
	if (env && *env) {
		snprintf(p->db, sizeof p->db, "%s", env);
	} else {
		/* DESIGN §6: the XDG base directory of data files. */
		const char *xdg = getenv("XDG_DATA_HOME"), *home = getenv("HOME");
		p->db_default = 1;
		if (xdg && xdg[0] == '/')
			snprintf(p->db, sizeof p->db, "%s/roofcost/roofcost.db", xdg);
		else if (home && *home)
			snprintf(p->db, sizeof p->db, "%s/.local/share/roofcost/roofcost.db", home);
		else
			snprintf(p->db, sizeof p->db, "roofcost.db");
	}
}

/* strcmp ignoring ASCII case. */
static int strcasecmp_ascii(const char *a, const char *b)
{
	for (; *a && tolower((unsigned char)*a) == tolower((unsigned char)*b); a++, b++)
		;
	return tolower((unsigned char)*a) - tolower((unsigned char)*b);
}

/* mkdir -p of the folder that holds path. Returns 0, or -1 with errno set. */
static int make_parent(const char *path)
{
	char buf[CLI_PATH_MAX];
	snprintf(buf, sizeof buf, "%s", path);
	for (char *q = buf + 1; *q; q++) {
		if (*q != '/')
			continue;
		*q = '\0';
		if (mkdir(buf, 0755) != 0 && !is_dir(buf))
			return -1;
		*q = '/';
	}
	return 0;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* db_seed_fn: imports every .csv of the bundled catalogs folder, in name order. */
static int seed_catalogs(db *d, void *ctx, err *e)
{
	const char *dir = ctx;
	DIR *dp = opendir(dir);
	struct dirent *de;
	char *names[64];
	int n = 0, rc = 0;
	if (!dp)
		return err_set(e, ERR_DATA, "%s: cannot open the bundled catalogs folder", dir);
	while ((de = readdir(dp)) && rc == 0) {
		size_t l = strlen(de->d_name);
		if (l <= 4 || strcmp(de->d_name + l - 4, ".csv") != 0)
			continue;
		if (n == 64)
			rc = err_set(e, ERR_DATA, "%s: more than 64 bundled catalogs", dir);
		else if (!(names[n] = strdup(de->d_name)))
			rc = err_set(e, ERR_DATA, "out of memory");
		else
			n++;
	}
	closedir(dp);
	qsort(names, (size_t)n, sizeof names[0], cmp_name);
	for (int i = 0; i < n; i++) {
		char path[CLI_PATH_MAX + 256];
		price_catalog c;
		db_import_result r;
		snprintf(path, sizeof path, "%s/%s", dir, names[i]);
		if (rc == 0 && (rc = price_scan(path, NULL, NULL, &c, e)) == 0)
			rc = db_import_file(d, &c, &r, e);
		free(names[i]);
	}
	return rc;
}

/* Opens the store for writing, or read-only when `read` (db_open_read), its default folder
 * made first: a store is created on first use either way. */
static int open_store(const cli_paths *p, int read, db **out, err *e)
{
	if (p->db_default && strchr(p->db, '/') && make_parent(p->db) != 0)
		return err_set(e, ERR_DATA, "%s: cannot open the store: cannot create its folder", p->db);
	return (read ? db_open_read : db_open)(p->db, seed_catalogs, (void *)p->catalogs, out, e);
}

int cli_open_db(const cli_paths *p, db **out, err *e)
{
	return open_store(p, 0, out, e);
}

int cli_open_db_read(const cli_paths *p, db **out, err *e)
{
	return open_store(p, 1, out, e);
}

void cli_eval_init(cli_eval_opts *o)
{
	memset(o, 0, sizeof *o);
	o->pricing = -1;
}

int cli_fail(const err *e)
{
	char esc[4 * ERR_MSG_MAX];
	/* Messages quote paths, names and values as given: escape what a terminal would act on. */
	fprintf(stderr, "roofcost: %s\n", text_escape(esc, sizeof esc, e->msg));
	return e->code == ERR_USAGE ? 2 : 1;
}

int cli_option_rc(int h, const char *usage, const err *e)
{
	if (h < 0)
		return cli_fail(e);
	fputs(usage, stderr);
	return 2;
}

/* --price SYSTEM=USD_PER_CHIP_HOUR into o->prices. Returns 1, or -1 with e set. */
static int parse_price(const char *arg, cli_eval_opts *o, err *e)
{
	const char *eq = strrchr(arg, '=');
	rank_user_price *u = &o->prices[o->nprices];
	size_t l = eq ? (size_t)(eq - arg) : 0;
	double v = 0;
	if (!eq || l == 0 || l >= sizeof u->system || opt_number(eq + 1, &v) != 0 || !(v > 0 && v < 1e6)) {
		err_set(e, ERR_USAGE, "--price: '%s' is not SYSTEM=USD_PER_CHIP_HOUR (a number > 0, e.g. "
			"trn2-ultraserver=4.5)", arg);
		return -1;
	}
	if (o->nprices == CLI_PRICE_MAX) {
		err_set(e, ERR_USAGE, "--price: at most %d systems", CLI_PRICE_MAX);
		return -1;
	}
	memcpy(u->system, arg, l);
	u->system[l] = '\0';
	for (int i = 0; i < o->nprices; i++)
		if (!strcmp(o->prices[i].system, u->system)) {
			err_set(e, ERR_USAGE, "--price: %s is priced twice", u->system);
			return -1;
		}
	u->usd_per_chip_hour = v;
	o->nprices++;
	return 1;
}

/* --capex SYSTEM=USD[/CHIPS] */
static int parse_capex(const char *arg, cli_eval_opts *o, err *e)
{
	const char *eq = strrchr(arg, '=');
	rank_user_capex *u = &o->capex[o->ncapex];
	size_t l = eq ? (size_t)(eq - arg) : 0;
	char num[64];
	const char *slash = eq ? strchr(eq + 1, '/') : NULL;
	size_t nl = eq ? (slash ? (size_t)(slash - eq - 1) : strlen(eq + 1)) : 0;
	double v = 0;
	u->chips = 0;
	if (eq && nl < sizeof num) {
		memcpy(num, eq + 1, nl);
		num[nl] = '\0';
	}
	if (!eq || l == 0 || l >= sizeof u->system || nl >= sizeof num || opt_number(num, &v) != 0 ||
	    !(v >= 1 && v <= 1e10) || (slash && opt_int(slash + 1, 1, LIM_CHIPS, &u->chips) != 0)) {
		err_set(e, ERR_USAGE, "--capex: '%s' is not SYSTEM=USD or SYSTEM=USD/CHIPS (the price of CHIPS chips "
			"with their host, e.g. gb200-nvl72=3400000/72)", arg);
		return -1;
	}
	if (o->ncapex == CLI_PRICE_MAX) {
		err_set(e, ERR_USAGE, "--capex: at most %d systems", CLI_PRICE_MAX);
		return -1;
	}
	memcpy(u->system, arg, l);
	u->system[l] = '\0';
	for (int i = 0; i < o->ncapex; i++)
		if (!strcmp(o->capex[i].system, u->system)) {
			err_set(e, ERR_USAGE, "--capex: %s has two quotes", u->system);
			return -1;
		}
	u->usd = v;
	o->ncapex++;
	return 1;
}

/* --discount [KEY=]PCT[%][,[KEY=]PCT[%]]... */
static int parse_discount(const char *arg, cli_eval_opts *o, err *e)
{
	const char *p = arg;
	for (;;) {
		const char *end = strchr(p, ','), *eq;
		size_t l = end ? (size_t)(end - p) : strlen(p), kl = 0;
		char item[96], num[32];
		double pct = -1;
		rank_discount *d = &o->discounts[o->ndiscounts];
		if (l >= sizeof item)
			l = sizeof item - 1;
		memcpy(item, p, l);
		item[l] = '\0';
		eq = strchr(item, '=');
		if (eq) {
			kl = (size_t)(eq - item);
			eq++;
		} else {
			eq = item;
		}
		l = strlen(eq);
		if (l > 1 && eq[l - 1] == '%')
			l--;    /* "20%" as well as "20" */
		if (l < sizeof num) {
			memcpy(num, eq, l);
			num[l] = '\0';
			if (opt_number(num, &pct) != 0)
				pct = -1;
		}
		if (!(pct >= 0 && pct < 100) || (eq != item && (kl == 0 || kl >= sizeof d->key))) {
			err_set(e, ERR_USAGE, "--discount: '%s' is not a percentage from 0 to below 100 (PCT for every "
				"system, or KEY=PCT for a provider such as aws, a system or an instance)", item);
			return -1;
		}
		for (size_t i = 0; i < kl; i++)
			if (!(isalnum((unsigned char)item[i]) || strchr("._-", item[i]))) {
				err_set(e, ERR_USAGE, "--discount: '%.*s' is not a provider, system or instance name", (int)kl,
					item);
				return -1;
			}
		if (o->ndiscounts == CLI_PRICE_MAX) {
			err_set(e, ERR_USAGE, "--discount: at most %d discounts", CLI_PRICE_MAX);
			return -1;
		}
		snprintf(d->key, sizeof d->key, "%.*s", (int)kl, item);
		for (int i = 0; i < o->ndiscounts; i++)
			if (!strcmp(o->discounts[i].key, d->key)) {
				err_set(e, ERR_USAGE, "--discount: %s is given twice", d->key[0] ? d->key : "a discount for all");
				return -1;
			}
		d->share = pct / 100;
		o->ndiscounts++;
		if (!end)
			return 1;
		p = end + 1;
	}
}

int cli_eval_option(int code, const char *arg, cli_eval_opts *o, err *e)
{
	switch (code) {
	case 's': o->system = arg; return 1;
	case 'w': o->workload = arg; return 1;
	case CLI_OPT_PLAN: o->plan_text = arg; return 1;
	case CLI_OPT_WIDE: o->wide = 1; return 1;
	case CLI_OPT_FRAMEWORK:
		if (!*arg || strchr(arg, '=')) {
			err_set(e, ERR_USAGE, "--framework: '%s' is not a framework name or file", arg);
			return -1;
		}
		if (strlen(arg) + sizeof "framework=" > sizeof o->framework) {
			err_set(e, ERR_USAGE, "--framework: longer than %zu characters", sizeof o->framework - sizeof "framework=");
			return -1;
		}
		snprintf(o->framework, sizeof o->framework, "framework=%s", arg);
		return 1;
	case CLI_OPT_SET:
		if (o->nsets == CLI_SET_MAX) {
			err_set(e, ERR_USAGE, "--set: at most %d overrides", CLI_SET_MAX);
			return -1;
		}
		o->sets[o->nsets++] = arg;
		return 1;
	case CLI_OPT_FORMAT:
		if (out_parse_format(arg, &o->format) != 0) {
			err_set(e, ERR_USAGE, "--format: '%s' is not one of table, csv, json, md", arg);
			return -1;
		}
		return 1;
	case CLI_OPT_PRICING: {
		price_model m;
		if (!strcmp(arg, "all")) {
			o->pricing_all = 1;
			o->pricing = -1;
			return 1;
		}
		if (price_parse_model(arg, &m) != 0) {
			err_set(e, ERR_USAGE, "--pricing: '%s' is not one of on-demand, capacity-block, "
				"reserved-1y, reserved-3y, committed-1y, committed-3y, spot, owned (compare: all)", arg);
			return -1;
		}
		o->pricing = (int)m;
		o->pricing_all = 0;
		return 1;
	}
	case CLI_OPT_AS_OF:
		if (!price_is_date(arg)) {
			err_set(e, ERR_USAGE, "--as-of: '%s' is not a date (YYYY-MM-DD)", arg);
			return -1;
		}
		o->as_of = arg;
		return 1;
	case CLI_OPT_PRICE:
		return parse_price(arg, o, e);
	case CLI_OPT_DISCOUNT:
		return parse_discount(arg, o, e);
	case CLI_OPT_CAPEX:
		return parse_capex(arg, o, e);
	case CLI_OPT_CHIPS:
		if (opt_int(arg, 1, LIM_CHIPS, &o->chips) != 0) {
			err_set(e, ERR_USAGE, "--chips: '%s' is not a whole number from 1 to %d", arg, LIM_CHIPS);
			return -1;
		}
		return 1;
	default:
		return 0;
	}
}

/* 1 if name is the file stem of one item of the -s list (a name or a path to a .ini). */
static int in_system_list(const char *list, const char *name)
{
	size_t n = strlen(name);
	for (const char *p = list; p && *p;) {
		const char *end = strchr(p, ','), *stem = p, *q;
		size_t l = end ? (size_t)(end - p) : strlen(p);
		for (q = p; q < p + l; q++)
			if (*q == '/')
				stem = q + 1;
		l -= (size_t)(stem - p);
		if (l > 4 && !strncmp(stem + l - 4, ".ini", 4))
			l -= 4;
		if (l == n && !strncmp(stem, name, n))
			return 1;
		p = end ? end + 1 : NULL;
	}
	return 0;
}

int cli_check_prices(const cli_paths *paths, const cli_eval_opts *o, err *e)
{
	for (int i = 0; i < o->nprices + o->ncapex; i++) {
		const char *name = i < o->nprices ? o->prices[i].system : o->capex[i - o->nprices].system;
		const char *opt = i < o->nprices ? "--price" : "--capex";
		char path[CLI_PATH_MAX + 96], dir[CLI_PATH_MAX + 32], **names = NULL, sugg[512];
		struct stat st;
		int n;
		snprintf(dir, sizeof dir, "%s/hw/systems", paths->models);
		snprintf(path, sizeof path, "%s/%s.ini", dir, name);
		if (stat(path, &st) == 0 || (o->system && in_system_list(o->system, name)))
			continue;
		n = cli_ini_stems(dir, &names, e);
		names_suggest(name, (const char *const *)names, n > 0 ? n : 0, sugg, sizeof sugg);
		if (sugg[0])
			err_set(e, ERR_USAGE, "%s: unknown system '%s'; did you mean %s?", opt, name, sugg);
		else
			err_set(e, ERR_USAGE, "%s: unknown system '%s' (see 'roofcost list systems')", opt, name);
		cli_free_names(names, n > 0 ? n : 0);
		return ERR_USAGE;
	}
	return 0;
}

void cli_price_terms(const cli_eval_opts *o, char *buf, size_t n)
{
	size_t l = 0;
	buf[0] = '\0';
	for (int i = 0; i < o->nprices && l < n; i++)
		l += (size_t)snprintf(buf + l, n - l, "%s%s $%.4g", i ? ", " : "user prices (--price, per chip-hour): ",
				      o->prices[i].system, o->prices[i].usd_per_chip_hour);
	for (int i = 0; i < o->ncapex && l < n; i++)
		l += (size_t)snprintf(buf + l, n - l, "%s%s $%.10g for %s%.0d chip%s", i ? ", " : l ? "; capex (--capex): " :
				      "capex (--capex): ", o->capex[i].system, o->capex[i].usd, o->capex[i].chips ? "" : "one node",
				      o->capex[i].chips, o->capex[i].chips == 1 ? "" : o->capex[i].chips ? "s" : "'s");
	for (int i = 0; i < o->ndiscounts && l < n; i++)
		l += (size_t)snprintf(buf + l, n - l, "%s%s%s%.4g%%", i ? ", " : l ? "; catalog prices less (--discount): " :
				      "catalog prices less (--discount): ", o->discounts[i].key,
				      o->discounts[i].key[0] ? " " : "all ", 100 * o->discounts[i].share);
}

int cli_setup(const cli_paths *paths, const cli_eval_opts *o, const char *system,
	      hw_system *sys, wl_workload *w, plan *p, err *e)
{
	if (cli_check_prices(paths, o, e) != 0)
		return ERR_USAGE;
	if (o->pricing_all)
		return err_set(e, ERR_USAGE, "--pricing all: only compare prices every pricing model (and sweep takes a list)");
	if (!o->workload || !*o->workload)
		return err_set(e, ERR_USAGE, "%s -w WORKLOAD (see 'roofcost list workloads')", o->workload ? "an empty" : "missing");
	if (!system || !*system)
		return err_set(e, ERR_USAGE, "%s -s SYSTEM (see 'roofcost list systems')", system ? "an empty" : "missing");
	{
		/* --framework first, so that a later --set framework=... wins. */
		const char *sets[CLI_SET_MAX + 1];
		int n = 0;
		if (o->framework[0])
			sets[n++] = o->framework;
		for (int i = 0; i < o->nsets; i++)
			sets[n++] = o->sets[i];
		if (wl_load(o->workload, paths->workloads, paths->models, sets, n, w, e) != 0)
			return e->code;
	}
	if (hw_find_system(system, paths->models, sys, e) != 0)
		return e->code;
	*p = w->plan;
	if (o->plan_text) {
		/* --plan replaces the workload's layout degrees it names; dp is recomputed from
		 * --chips when --plan names no dp. */
		if (plan_parse(o->plan_text, p, e) != 0)
			return e->code;
		if (!strstr(o->plan_text, "chips"))
			p->chips = 0;
	}
	if (o->chips) {
		if (!o->plan_text || !strstr(o->plan_text, "dp="))
			p->dp = 0;
		p->chips = o->chips;
	}
	if (!p->chips && !o->plan_text)
		p->chips = w->plan.chips;
	{
		/* Layouts beyond the ranges of lim.h are usage errors, before any arithmetic. */
		char why[160];
		long long inner = (long long)(p->tp ? p->tp : 1) * (p->pp ? p->pp : 1) * (p->cp ? p->cp : 1);
		long long all = inner * (p->dp ? p->dp : 1);
		if (plan_limits(p, w->micro_batch, why, sizeof why) != 0)
			return err_set(e, ERR_USAGE, "%s", why);
		if (p->chips && !p->dp && p->chips % inner != 0)
			return err_set(e, ERR_USAGE, "%d chips are not a multiple of tp*pp*cp = %lld", p->chips, inner);
		if (p->chips && p->dp && p->chips != all)
			return err_set(e, ERR_USAGE, "%d chips differ from tp*pp*dp*cp = %lld", p->chips, all);
		wl_plan_defaults(w, p);
		plan_fill(p);
		if (plan_limits(p, w->micro_batch, why, sizeof why) != 0)
			return err_set(e, ERR_USAGE, "%s", why);
	}
	return 0;
}

/* Looks up s's price into out, or says in out->note why there is none. */
int cli_price(const cli_paths *paths, db **store, const hw_system *s, const wl_workload *w,
	      rank_quote *out, err *e)
{
	db_query q;
	int found, have[PRICE_MODEL_N];
	char where[160] = "", models[160] = "";
	out->node_chips = hw_node_chips(s);
	if (!s->instance[0]) {
		if (s->no_public_price[0])
			snprintf(out->note, sizeof out->note, "no public price: %s (--price %s=USD gives your own)",
				 s->no_public_price, s->name);
		else
			snprintf(out->note, sizeof out->note, "%s has no instance name in its system file: it is "
				 "not rented by the hour, so it has no price", s->name);
		return 0;
	}
	if (!*store && cli_open_db_read(paths, store, e) != 0)
		return ERR_DATA;
	q.instance = s->instance;
	q.model = out->pricing;
	q.region = w->cost.region;
	q.as_of = out->as_of;
	if (db_price_find(*store, &q, &out->price, &found, e) != 0)
		return ERR_DATA;
	if (found) {
		int node = hw_node_chips(s);
		out->have_price = 1;
		out->usd_per_chip_hour = price_per_chip_hour(&out->price);
		if (out->price.unit == PRICE_PER_INSTANCE && out->price.accelerators != node)
			snprintf(out->note, sizeof out->note, "the catalog prices %s with %d chips, the system "
				 "file's node has %d: priced per chip", s->instance, out->price.accelerators, node);
		return 0;
	}
	if (db_price_models(*store, s->instance, out->as_of, have, e) != 0)
		return ERR_DATA;
	for (int i = 0; i < PRICE_MODEL_N; i++)
		if (have[i])
			snprintf(models + strlen(models), sizeof models - strlen(models), "%s%s",
				 models[0] ? ", " : "", price_model_names[i]);
	if (!models[0] && s->no_public_price[0]) {
		snprintf(out->note, sizeof out->note, "no public price: %s (--price %s=USD gives your own)",
			 s->no_public_price, s->name);
		return 0;
	}
	if (w->cost.region[0])
		snprintf(where, sizeof where, " in %s", w->cost.region);
	if (out->as_of[0])
		snprintf(where + strlen(where), sizeof where - strlen(where), " at or before %s", out->as_of);
	snprintf(out->note, sizeof out->note, "no %s price for %s%s in the store (%s%s)",
		 price_model_names[out->pricing], s->instance, where,
		 models[0] ? "it has: " : "it has none; see 'roofcost list prices'", models);
	return 0;
}

const interval_status *cli_calibration(const cli_paths *paths, const hw_system *s, const wl_workload *w,
				       interval_status *out)
{
	if (!paths->intervals)
		return NULL;
	interval_lookup(paths->intervals, w->mode == WL_TRAIN, s->chip.family, w->fw.name, out);
	return out;
}

int cli_no_price_note(const cli_paths *paths, db **store, const rank_row *rows, int n, const cli_eval_opts *o,
		      char *buf, size_t len, err *e)
{
	int any[PRICE_MODEL_N] = {0};
	size_t l;
	price_model asked = rows[0].cost.pricing;
	buf[0] = '\0';
	for (int i = 0; i < n; i++)
		if (rows[i].cost.have_price)
			return 0;
	for (int i = 0; i < n; i++) {
		int have[PRICE_MODEL_N];
		if (!rows[i].sys->instance[0])
			continue;
		if (!*store && cli_open_db_read(paths, store, e) != 0)
			return ERR_DATA;
		if (db_price_models(*store, rows[i].sys->instance, o->as_of ? o->as_of : "", have, e) != 0)
			return ERR_DATA;
		for (int m = 0; m < PRICE_CATALOG_N; m++)
			any[m] |= have[m];
	}
	l = (size_t)snprintf(buf, len, "no system compared has a%s %s price", asked == PRICE_ON_DEMAND || asked ==
			     PRICE_OWNED ? "n" : "", price_model_names[asked]);
	for (int m = 0, k = 0; m < PRICE_CATALOG_N && l < len; m++)
		if (any[m])
			l += (size_t)snprintf(buf + l, len - l, "%s%s", k++ ? ", " : "; the store has for them: ",
					      price_model_names[m]);
	if (l < len)
		snprintf(buf + l, len - l, "%s; --pricing all compares every pricing model, --pricing owned prices "
			 "buying the hardware, and --price SYSTEM=USD_PER_CHIP_HOUR gives your own", l && any[0] + any[1] +
			 any[2] + any[3] + any[4] + any[5] + any[6] ? "" : "; the store has none for them");
	return 0;
}

int cli_cost(const cli_paths *paths, db **store, const cli_eval_opts *o, const hw_system *s,
	     const wl_workload *w, const train_result *tr, const infer_result *ir, rank_quote *out,
	     err *e)
{
	cli_pricer pr;
	rank_opts ro;
	cli_rank_opts(&pr, paths, store, o, w, &ro);
	return rank_price_and_cost(&ro, s, w, tr, ir, out, e);
}

/* rank_price_fn over the store. */
static int price_cb(void *ctx, const hw_system *s, const wl_workload *w, rank_quote *out, err *e)
{
	cli_pricer *pr = ctx;
	return cli_price(pr->paths, pr->store, s, w, out, e);
}

void cli_rank_opts(cli_pricer *pr, const cli_paths *paths, db **store, const cli_eval_opts *o,
		   const wl_workload *w, rank_opts *ro)
{
	pr->paths = paths;
	pr->store = store;
	memset(ro, 0, sizeof *ro);
	ro->fixed_plan = o->plan_text != NULL;
	ro->cmin = 1;
	ro->cmax = 1 << 30;
	ro->pricing = o->pricing >= 0 ? (price_model)o->pricing : w->cost.pricing;
	ro->as_of = o->as_of ? o->as_of : "";
	ro->price = price_cb;
	ro->price_ctx = pr;
	ro->intervals = paths->intervals;
	ro->user_prices = o->prices;
	ro->nuser_prices = o->nprices;
	ro->user_capex = o->capex;
	ro->nuser_capex = o->ncapex;
	ro->discounts = o->discounts;
	ro->ndiscounts = o->ndiscounts;
}

static void usage(FILE *fp)
{
	fprintf(fp, "usage: roofcost COMMAND [OPTIONS]   (roofcost help COMMAND, or COMMAND --help, for its options)\n"
		    "       roofcost --version\n\n%s\ncommands:\n", about);
	for (int i = 0; i < NCOMMANDS; i++)
		fprintf(fp, "  %-10s %s\n", commands[i].name, commands[i].summary);
	fprintf(fp, "  %-10s %s\n  %-10s %s\n  %-10s %s\n\n%s", "help", "this text, or a command's (help CMD)", "",
		"help keys: every workload key, its unit, what it is (for --set)", "",
		"help --man, help --bash-completion: the manual page, the bash completion", notes);
}

static void doc_info(doc_program *d)
{
	static doc_command dc[NCOMMANDS];
	static const char *const formats[] = {"table", "csv", "json", "md", NULL};
	static char joined[NCOMMANDS][16384];
	for (int i = 0; i < NCOMMANDS; i++) {
		dc[i].name = commands[i].name;
		dc[i].summary = commands[i].summary;
		dc[i].usage = commands[i].usage;
		if (commands[i].more) {
			snprintf(joined[i], sizeof joined[i], "%s%s", commands[i].usage, commands[i].more);
			dc[i].usage = joined[i];
		}
	}
	d->version = ROOFCOST_VERSION;
	d->about = about;
	d->notes = notes;
	d->cmds = dc;
	d->ncmds = NCOMMANDS;
	d->formats = formats;
	d->pricing = price_model_names;
}

/* roofcost help [COMMAND | --man | --bash-completion] */
static int help(int argc, char **argv, const cli_paths *paths)
{
	doc_program d;
	if (argc < 3) {
		usage(stdout);
		return 0;
	}
	doc_info(&d);
	if (!strcmp(argv[2], "--man")) {
		doc_man(&d, stdout);
		return 0;
	}
	if (!strcmp(argv[2], "--bash-completion")) {
		doc_bash_completion(&d, stdout);
		return 0;
	}
	if (!strcmp(argv[2], "keys"))
		return new_help_keys(stdout);
	for (int i = 0; i < NCOMMANDS; i++)
		if (!strcmp(argv[2], commands[i].name)) {
			char name[64], flag[] = "--help", *av[3];
			snprintf(name, sizeof name, "roofcost %s", commands[i].name);
			av[0] = name;
			av[1] = flag;
			av[2] = NULL;
			return commands[i].run(2, av, paths);
		}
	{
		char q[400];
		fprintf(stderr, "roofcost help: unknown command '%s' (roofcost help lists them)\n",
			text_quote(q, sizeof q, argv[2]));
	}
	return 2;
}

int main(int argc, char **argv)
{
	cli_paths paths;
	char name[64];
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		cli_find_paths(&paths, argv[0]);
		return help(argc, argv, &paths);
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		printf("roofcost %s\n", ROOFCOST_VERSION);
		return 0;
	}
	cli_find_paths(&paths, argv[0]);
	for (int i = 0; i < NCOMMANDS; i++)
		if (!strcmp(argv[1], commands[i].name)) {
			interval_table *iv = malloc(sizeof *iv);
			err e = {0};
			int rc;
			/* The intervals of every prediction (DESIGN §6), read once for the command; a bad
			 * file is an error before the command runs. --help needs none. */
			if (!iv) {
				err_set(&e, ERR_DATA, "out of memory");
				return cli_fail(&e);
			}
			if (interval_load(paths.models, iv, &e) != 0) {
				int wants_help = 0;
				for (int k = 2; k < argc && !wants_help; k++)
					wants_help = !strcmp(argv[k], "--help") || !strcmp(argv[k], "-h");
				if (!wants_help) {
					free(iv);
					return cli_fail(&e);
				}
			}
			paths.intervals = iv->read ? iv : NULL;
			/* getopt's messages start with argv[0]: "roofcost eval: unrecognized option". */
			snprintf(name, sizeof name, "roofcost %s", commands[i].name);
			argv[1] = name;
			rc = commands[i].run(argc - 1, argv + 1, &paths);
			free(iv);
			return rc;
		}
	{
		char q[400];
		fprintf(stderr, "roofcost: unknown command '%s'\n", text_quote(q, sizeof q, argv[1]));
	}
	usage(stderr);
	return 2;
}

int cli_ini_stems(const char *dir, char ***out, err *e)
{
	return names_list(dir, ".ini", out, e);
}

void cli_free_names(char **names, int n)
{
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

int cli_system_names(const cli_paths *paths, const char *list, char ***names, err *e)
{
	char dir[CLI_PATH_MAX + 32];
	const char *p = list;
	int n = 0;
	*names = NULL;
	snprintf(dir, sizeof dir, "%s/hw/systems", paths->models);
	while (*p == ' ')
		p++;
	if (!strcasecmp_ascii(p, "all"))
		return cli_ini_stems(dir, names, e);
	for (const char *q = p, *c; q; q = c ? c + 1 : NULL) {
		size_t sp = strspn(q, " \t");
		c = strchr(q, ',');
		if (q[sp] == ',' || q[sp] == '\0')
			return -err_set(e, ERR_USAGE, "-s: an empty name in '%s'", list);
	}
	*names = calloc(CLI_SYSTEMS_MAX, sizeof **names);
	if (!*names)
		return -err_set(e, ERR_DATA, "out of memory");
	/* Names separated by commas, spaces around them ignored; each one a system (case does not
	 * matter) or a path; none empty, none twice. */
	for (;;) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		char name[CLI_PATH_MAX], stem[CLI_PATH_MAX];
		int rc = 0;
		while (len > 0 && (p[len - 1] == ' ' || p[len - 1] == '\t'))
			len--;
		while (len > 0 && (*p == ' ' || *p == '\t')) {
			p++;
			len--;
		}
		if (len == 0)
			rc = err_set(e, ERR_USAGE, "-s: an empty name in '%s'", list);
		else if (len >= sizeof name)
			rc = err_set(e, ERR_USAGE, "-s: a name longer than %d characters", (int)sizeof name - 1);
		else if (n == CLI_SYSTEMS_MAX)
			rc = err_set(e, ERR_USAGE, "-s: at most %d systems", CLI_SYSTEMS_MAX);
		if (rc == 0) {
			snprintf(name, sizeof name, "%.*s", (int)len, p);
			if (strchr(name, '/') || (len > 4 && !strcmp(name + len - 4, ".ini")))
				snprintf(stem, sizeof stem, "%s", name);
			else
				rc = names_find(dir, name, "system", stem, sizeof stem, e);
		}
		for (int i = 0; rc == 0 && i < n; i++)
			if (!strcmp((*names)[i], stem))
				rc = err_set(e, ERR_USAGE, "-s: '%s' is named twice", stem);
		if (rc == 0 && !((*names)[n] = strdup(stem)))
			rc = err_set(e, ERR_DATA, "out of memory");
		if (rc != 0) {
			cli_free_names(*names, n);
			*names = NULL;
			return -rc;
		}
		n++;
		if (!end)
			break;
		p = end + 1;
	}
	return n;
}

void cli_rank_args_init(cli_rank_args *a)
{
	memset(a, 0, sizeof *a);
	a->cmin = 1;
	a->cmax = RANK_CHIPS_OPEN;
}

int cli_rank_option(int code, const char *arg, cli_eval_opts *o, cli_rank_args *a, err *e)
{
	if (code == CLI_OPT_BUDGET || code == CLI_OPT_DEADLINE) {
		double *v = code == CLI_OPT_BUDGET ? &a->budget : &a->deadline;
		if (opt_number(arg, v) != 0 || !(*v > 0)) {
			err_set(e, ERR_USAGE, "%s: '%s' is not a positive number of %s",
				code == CLI_OPT_BUDGET ? "--budget" : "--deadline", arg, code == CLI_OPT_BUDGET ? "USD" : "days");
			return -1;
		}
		return 1;
	}
	if (code == CLI_OPT_DISAGG) {
		snprintf(a->disagg, sizeof a->disagg, "disagg=%s", arg);
		return cli_eval_option(CLI_OPT_SET, a->disagg, o, e) <= 0 ? -1 : 1;
	}
	if (code == CLI_OPT_CHIPS && strchr(arg, '-')) {
		int lo, hi;
		if (opt_int_pair(arg, '-', 1, LIM_CHIPS, &lo, &hi) != 0 || hi < lo) {
			err_set(e, ERR_USAGE, "--chips: '%s' is not N or MIN-MAX", arg);
			return -1;
		}
		a->cmin = lo;
		a->cmax = hi;
		a->range = 1;
		return 1;
	}
	return 0;
}

int cli_rank_apply(const cli_rank_args *a, const cli_eval_opts *o, const wl_workload *w, const plan *p,
		   rank_opts *ro, int *fill, err *e)
{
	if (w->mode == WL_INFER && a->deadline > 0)
		return err_set(e, ERR_USAGE, "--deadline: applies to training; %s is a serving workload", w->name);
	ro->cmin = a->cmin;
	ro->cmax = a->cmax;
	/* A single count: the chips of a training run; for serving, the chips the replicas fill. */
	if (o->chips && !a->range)
		ro->cmin = ro->cmax = o->chips;
	ro->budget = a->budget;
	ro->deadline = a->deadline * 86400;
	ro->total = 0;
	*fill = p->chips;
	if (w->mode == WL_INFER && !o->plan_text && o->chips && !a->range) {
		ro->total = *fill = o->chips;
		ro->cmin = 1;
	}
	return 0;
}

void cli_rank_plan(const cli_rank_args *a, const cli_eval_opts *o, const wl_workload *w, plan *p)
{
	int inner = p->tp * p->pp * p->cp;
	if (o->plan_text || !o->chips || a->range || w->mode != WL_TRAIN)
		return;
	p->chips = o->chips;
	if (o->chips % inner == 0) {
		p->dp = o->chips / inner;
	} else {
		p->tp = p->pp = p->cp = p->vpp = p->ep = 1;
		p->dp = o->chips;
	}
}
