/* cli: main, the command table, and what subcommands share (see cli.h). */
#include "cli.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef ROOFCOST_VERSION
#define ROOFCOST_VERSION "0.1.0"
#endif
#ifndef ROOFCOST_DATADIR
#define ROOFCOST_DATADIR "/usr/local/share/roofcost"
#endif

typedef struct command {
	const char *name;
	int (*run)(int argc, char **argv, const cli_paths *paths);
	const char *summary;
} command;

static const command commands[] = {
	{"eval", cmd_eval, "one evaluation of a workload on a system, with its breakdown"},
	{"roofline", cmd_roofline, "per-op table: FLOPs, bytes, intensity, bound, time, share"},
	{"compare", cmd_compare, "one workload on several systems, side by side"},
	{"list", cmd_list, "list systems, chips, networks or workloads"},
	{"validate", cmd_validate, "predictions against published measurements"},
};

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
		if (exe[0] && has_models(exe))
			snprintf(p->home, sizeof p->home, "%s", exe);
		else if (has_models("."))
			snprintf(p->home, sizeof p->home, ".");
		else if (exe[0] && has_models(cand))
			snprintf(p->home, sizeof p->home, "%s", cand);
		else
			snprintf(p->home, sizeof p->home, "%s", ROOFCOST_DATADIR);
	}
	snprintf(p->models, sizeof p->models, "%s/models", p->home);
	snprintf(p->workloads, sizeof p->workloads, "%s/workloads", p->home);
	snprintf(p->catalogs, sizeof p->catalogs, "%s/catalogs", p->home);
}

int cli_fail(const err *e)
{
	fprintf(stderr, "roofcost: %s\n", e->msg);
	return e->code == ERR_USAGE ? 2 : 1;
}

int cli_eval_option(int code, const char *arg, cli_eval_opts *o, err *e)
{
	char *end;
	long v;
	switch (code) {
	case 's': o->system = arg; return 1;
	case 'w': o->workload = arg; return 1;
	case CLI_OPT_PLAN: o->plan_text = arg; return 1;
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
	case CLI_OPT_CHIPS:
		v = strtol(arg, &end, 10);
		if (end == arg || *end || v < 1 || v > 100000000) {
			err_set(e, ERR_USAGE, "--chips: '%s' is not a whole number >= 1", arg);
			return -1;
		}
		o->chips = (int)v;
		return 1;
	default:
		return 0;
	}
}

int cli_setup(const cli_paths *paths, const cli_eval_opts *o, const char *system,
	      hw_system *sys, wl_workload *w, plan *p, err *e)
{
	if (!o->workload)
		return err_set(e, ERR_USAGE, "missing -w WORKLOAD (see 'roofcost list workloads')");
	if (!system)
		return err_set(e, ERR_USAGE, "missing -s SYSTEM (see 'roofcost list systems')");
	if (wl_load(o->workload, paths->workloads, paths->models, o->sets, o->nsets, w, e) != 0)
		return e->code;
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
	plan_fill(p);
	return 0;
}

static void usage(FILE *fp)
{
	fprintf(fp, "usage: roofcost COMMAND [OPTIONS]   (roofcost COMMAND --help for its options)\n\n"
		    "Capacity planning and price-performance of AI accelerators, analytically.\n\n"
		    "commands:\n");
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
		fprintf(fp, "  %-10s %s\n", commands[i].name, commands[i].summary);
	fprintf(fp, "\ndata: models/ (chips, systems, networks) and workloads/ beside the binary,\n"
		    "or in $ROOFCOST_HOME. Exit codes: 0 success, 1 data/IO error, 2 usage error.\n");
}

int main(int argc, char **argv)
{
	cli_paths paths;
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("roofcost %s\n", ROOFCOST_VERSION);
		return 0;
	}
	cli_find_paths(&paths, argv[0]);
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].run(argc - 1, argv + 1, &paths);
	fprintf(stderr, "roofcost: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return 2;
}
