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

int cli_eval_option(int code, const char *arg, setup_opts *o, err *e)
{
	return setup_option(code, arg, o, e);
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
			/* The systems' shared files, read once for the command (compare reads every system). */
			paths.hw = calloc(1, sizeof *paths.hw);
			/* getopt's messages start with argv[0]: "roofcost eval: unrecognized option". */
			snprintf(name, sizeof name, "roofcost %s", commands[i].name);
			argv[1] = name;
			rc = commands[i].run(argc - 1, argv + 1, &paths);
			free(paths.hw);
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
	return setup_rank_option(code, arg, o, a, e);
}

