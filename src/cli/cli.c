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
	int (*run)(int argc, char **argv, const home_paths *paths);
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
static int parse_price(const char *arg, setup_opts *o, err *e)
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
	if (o->nprices == SETUP_PRICE_MAX) {
		err_set(e, ERR_USAGE, "--price: at most %d systems", SETUP_PRICE_MAX);
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
static int parse_capex(const char *arg, setup_opts *o, err *e)
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
	if (o->ncapex == SETUP_PRICE_MAX) {
		err_set(e, ERR_USAGE, "--capex: at most %d systems", SETUP_PRICE_MAX);
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
static int parse_discount(const char *arg, setup_opts *o, err *e)
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
		if (o->ndiscounts == SETUP_PRICE_MAX) {
			err_set(e, ERR_USAGE, "--discount: at most %d discounts", SETUP_PRICE_MAX);
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

int cli_eval_option(int code, const char *arg, setup_opts *o, err *e)
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
		if (o->nsets == SETUP_SET_MAX) {
			err_set(e, ERR_USAGE, "--set: at most %d overrides", SETUP_SET_MAX);
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
static int help(int argc, char **argv, const home_paths *paths)
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
	home_paths paths;
	char name[64];
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		home_find(&paths, argv[0]);
		return help(argc, argv, &paths);
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		printf("roofcost %s\n", ROOFCOST_VERSION);
		return 0;
	}
	home_find(&paths, argv[0]);
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

int cli_rank_option(int code, const char *arg, setup_opts *o, setup_rank_args *a, err *e)
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

