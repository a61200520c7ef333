/* cmd_report: `roofcost report` - one workload on several systems as a report folder with
 * plots (report.c), for a planner to hand to a decision. */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "store/db.h"
#include "report/report.h"

const char report_usage[] =
	"usage: roofcost report -w WORKLOAD -s SYS1,SYS2,... -o DIR [--chips N|MIN-MAX] [--plan ...]\n"
	"                       [--set KEY=VALUE]... [--framework NAME] [--pricing MODEL] [--as-of DATE]\n"
	"                       [--price SYS=USD]... [--discount [KEY=]PCT]... [--capex SYS=USD[/CHIPS]]...\n"
	"                       [--budget USD] [--deadline DAYS] [--disagg SPLIT]\n\n"
	"Ranks each system's best layout for the workload as compare does and writes a folder: DIR/index.html\n"
	"(one self-contained page, plots inlined, opens offline), DIR/report.md (the same, plots linked),\n"
	"DIR/plots/NAME.gp, .dat, .svg and .png, DIR/data/*.csv (every number behind every table and plot)\n"
	"and DIR/inputs/ (the files read, the version, the command, the price rows used as a catalog).\n"
	"It takes compare's options. Serving: each system's frontier over every layout and load (throughput\n"
	"per chip, and cost per unit, against tokens/s per user), cost by pricing model, TTFT and TPOT\n"
	"against load, with --disagg aggregated against disaggregated, the step broken down, memory, the\n"
	"roofline.\n"
	"Training: USD and chip-hours per run against days to train (each system's front), scaling from\n"
	"one node to 131,072 chips, the step broken down, memory, the roofline. The same inputs give\n"
	"the same bytes. DIR must be new or empty. Plots need gnuplot; without it the folder has the\n"
	"tables, the data and the plot scripts, and stderr says how to install it. Prints the path of\n"
	"index.html.\n\n" CLI_EVAL_USAGE_INPUTS CLI_COST_USAGE CLI_RANK_USAGE
	"  -o, --output DIR       the folder to write (new or empty)\n"
	"  -h, --help             this text\n";

/* Echoed files: where to read them and their names under inputs/ (folder/stem.ini). */
typedef struct echo_list {
	report_input in[REPORT_INPUTS_MAX];
	char path[REPORT_INPUTS_MAX][HOME_PATH_MAX + 64];
	char name[REPORT_INPUTS_MAX][HOME_PATH_MAX + 64];
	int n;
} echo_list;

static void echo(echo_list *l, const char *path, const char *folder)
{
	const char *base = strrchr(path, '/');
	char name[HOME_PATH_MAX + 64];
	base = base ? base + 1 : path;
	snprintf(name, sizeof name, "%s/%s", folder, base);
	for (int i = 0; i < l->n; i++)
		if (!strcmp(l->name[i], name))
			return;
	if (l->n == REPORT_INPUTS_MAX)
		return;
	snprintf(l->path[l->n], sizeof l->path[l->n], "%s", path);
	snprintf(l->name[l->n], sizeof l->name[l->n], "%s", name);
	l->in[l->n].path = l->path[l->n];
	l->in[l->n].name = l->name[l->n];
	l->n++;
}

/* The command line without -o DIR, quoted where a word needs it. */
static void command_text(int argc, char **argv, char *buf, size_t n)
{
	snprintf(buf, n, "roofcost report");
	for (int i = 1; i < argc; i++) {
		size_t l = strlen(buf);
		const char *a = argv[i];
		if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
			i++;
			continue;
		}
		if (!strncmp(a, "-o", 2) || !strncmp(a, "--output=", 9))
			continue;
		snprintf(buf + l, n - l, strpbrk(a, " \t'\"$\\") ? " '%s'" : " %s", a);
	}
}

static volatile sig_atomic_t stopped_by;

static void on_stop(int sig)
{
	stopped_by = sig;
	report_cancel();
}

/* report_write with SIGINT, SIGTERM and SIGHUP stopping it cleanly (no partial folder, no
 * gnuplot left running); the signal is then taken as it would have been. */
static int write_report(const report_opts *ro, report_result *res, err *e)
{
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
	struct sigaction sa, old[3];
	int rc;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_stop;
	sigemptyset(&sa.sa_mask);
	stopped_by = 0;
	for (int i = 0; i < 3; i++)
		sigaction(sigs[i], &sa, &old[i]);
	rc = report_write(ro, res, e);
	for (int i = 0; i < 3; i++)
		sigaction(sigs[i], &old[i], NULL);
	if (stopped_by)
		raise(stopped_by);
	return rc;
}

int cmd_report(int argc, char **argv, const home_paths *paths)
{
	static const struct option longopts[] = {CLI_EVAL_LONGOPTS, CLI_COST_LONGOPTS, CLI_RANK_LONGOPTS,
						 {"output", required_argument, NULL, 'o'}, {NULL, 0, NULL, 0}};
	setup_opts o;
	setup_rank_args ra;
	int fill = 0;
	err e = {0};
	db *store = NULL;
	wl_workload *w = malloc(sizeof *w);
	hw_system *sys[REPORT_SYSTEMS_MAX] = {0};
	plan plans[REPORT_SYSTEMS_MAX];
	echo_list *el = calloc(1, sizeof *el);
	char **names = NULL, command[4096], pricing_note[1024];
	int nnames = 0, nsys = 0, c, rc = 0;
	const char *dir = NULL;
	setup_pricer pricer;
	report_opts ro;
	report_result res;

	setup_init(&o);
	setup_rank_args_init(&ra);
	optind = 1;
	while ((c = getopt_long(argc, argv, "s:w:o:h", longopts, NULL)) != -1) {
		int h;
		if (c == 'h') {
			fputs(report_usage, stdout);
			goto done;
		}
		if (c == 'o') {
			dir = optarg;
			continue;
		}
		if (c == CLI_OPT_FORMAT) {
			/* A report folder holds every format (index.html, report.md, the data CSVs). */
			err_set(&e, ERR_USAGE, "report: --format: a report writes index.html, report.md and data/*.csv "
				"(every format); drop --format");
			rc = cli_fail(&e);
			goto done;
		}
		h = cli_rank_option(c, optarg, &o, &ra, &e);
		if (h < 0) {
			rc = cli_fail(&e);
			goto done;
		}
		if (h > 0)
			continue;
		h = cli_eval_option(c, optarg, &o, &e);
		if (h <= 0) {
			rc = cli_option_rc(h, report_usage, &e);
			goto done;
		}
	}
	if (!w || !el) {
		err_set(&e, ERR_DATA, "out of memory");
		rc = cli_fail(&e);
		goto done;
	}
	if (optind < argc || !o.system || !dir || !*dir) {
		err_set(&e, ERR_USAGE, "%s", optind < argc ? "report: unexpected argument"
					    : !o.system ? "missing -s SYS1,SYS2,..." : "missing -o DIR");
		rc = cli_fail(&e);
		goto done;
	}
	nnames = home_system_names(paths, o.system, &names, &e);
	if (nnames < 0) {
		rc = cli_fail(&e);
		goto done;
	}
	if (nnames == 0 || nnames > REPORT_SYSTEMS_MAX) {
		err_set(&e, ERR_USAGE, "-s: give 1 to %d systems for a report", REPORT_SYSTEMS_MAX);
		rc = cli_fail(&e);
		goto done;
	}
	for (int i = 0; i < nnames; i++) {
		setup_opts so;
		if (!(sys[i] = malloc(sizeof *sys[i]))) {
			rc = err_set(&e, ERR_DATA, "out of memory");
			break;
		}
		nsys++;
		so = o;
		/* As compare: a search is not tied to the workload's layout, so --chips is checked
		 * against it only when --plan fixes the layout. */
		if (!o.plan_text)
			so.chips = 0;
		if (setup_load(paths, &so, names[i], sys[i], w, &plans[i], &e) != 0) {
			rc = e.code;
			break;
		}
		setup_rank_plan(&ra, &o, w, &plans[i]);
		/* The files the loaders read, as they kept their paths. */
		echo(el, sys[i]->path, "models/hw/systems");
		echo(el, sys[i]->chip.path, "models/hw/chips");
		echo(el, sys[i]->algos.path, "models/hw");
		if (sys[i]->calib_path[0])
			echo(el, sys[i]->calib_path, "models");
	}
	if (rc != 0) {
		rc = cli_fail(&e);
		goto done;
	}
	echo(el, w->path, "workloads");
	echo(el, w->net.path, "models/nn");
	echo(el, w->fw.path, "models/frameworks");
	if (paths->intervals)
		echo(el, paths->intervals->path, "models");   /* every figure's interval */
	for (int i = 0; i < w->fw.nbases; i++)
		echo(el, w->fw.bases[i], "models/frameworks");   /* based_on: read beside it */
	if (w->cost_path[0])
		echo(el, w->cost_path, "models");
	command_text(argc, argv, command, sizeof command);
	memset(&ro, 0, sizeof ro);
	setup_rank_opts(&pricer, paths, &store, &o, w, &ro.rank);
	if (setup_rank_apply(&ra, &o, w, &plans[0], &ro.rank, &fill, &e) != 0) {
		rc = cli_fail(&e);
		goto done;
	}
	ro.dir = dir;
	ro.w = w;
	ro.systems = sys;
	ro.plans = plans;
	ro.nsys = nsys;
	ro.version = cli_version;
	ro.command = command;
	setup_price_terms(&o, pricing_note, sizeof pricing_note);
	ro.pricing_note = pricing_note;
	ro.inputs = el->in;
	ro.ninputs = el->n;
	if (write_report(&ro, &res, &e) != 0) {
		rc = cli_fail(&e);
		goto done;
	}
	if (res.note[0])
		fprintf(stderr, "roofcost report: %s\n", res.note);
	printf("%s\n", res.index);
done:
	if (store)
		db_close(store);
	for (int i = 0; i < nsys; i++)
		free(sys[i]);
	if (names)
		home_free_names(names, nnames);
	free(el);
	free(w);
	return rc;
}
