/* cli: what every subcommand shares: data paths, the store, the evaluation set-up (system +
 * workload + overrides + plan), pricing a result, output format, and the one error printer.
 * Subcommands live in cmd_<name>.c and are listed in cli.c's command table. */
#ifndef ROOFCOST_CLI_H
#define ROOFCOST_CLI_H

#include "lib/home.h"
#include "lib/setup.h"
#include "store/db.h"
#include "base/err.h"
#include "model/hw.h"
#include "model/interval.h"
#include "engine/infer.h"
#include "base/out.h"
#include "model/plan.h"
#include "model/price.h"
#include "engine/rank.h"
#include "report/show.h"
#include "engine/train.h"
#include "model/wl.h"

/* The tool's version and build (the commit it was built from, "-dirty" with local changes). */
extern const char cli_version[];
extern const char cli_build[];

/* Prints "roofcost: msg" to stderr and returns the exit code of e (1 data, 2 usage). */
int cli_fail(const err *e);

/* Handles one shared option (getopt_long codes below) into o: setup_option. Returns 1 if
 * handled, 0 if not one of them, -1 on a usage error (e set). */
int cli_eval_option(int code, const char *arg, setup_opts *o, err *e);

/* The exit code for an option cli_eval_option did not take (h = its result, 0 or -1): -1 prints
 * e (exit 2), 0 prints usage, the command's text, and exits 2. */
int cli_option_rc(int h, const char *usage, const err *e);

/* getopt_long codes of the shared options. */
enum { CLI_OPT_PLAN = SETUP_OPT_PLAN, CLI_OPT_SET = SETUP_OPT_SET, CLI_OPT_FORMAT = SETUP_OPT_FORMAT,
       CLI_OPT_CHIPS = SETUP_OPT_CHIPS, CLI_OPT_HELP = SETUP_OPT_HELP, CLI_OPT_PRICING = SETUP_OPT_PRICING,
       CLI_OPT_AS_OF = SETUP_OPT_AS_OF, CLI_OPT_FRAMEWORK = SETUP_OPT_FRAMEWORK, CLI_OPT_PRICE = SETUP_OPT_PRICE,
       CLI_OPT_DISCOUNT = SETUP_OPT_DISCOUNT, CLI_OPT_WIDE = SETUP_OPT_WIDE, CLI_OPT_CAPEX = SETUP_OPT_CAPEX };

#define CLI_EVAL_LONGOPTS \
	{"system", required_argument, NULL, 's'}, \
	{"workload", required_argument, NULL, 'w'}, \
	{"plan", required_argument, NULL, CLI_OPT_PLAN}, \
	{"set", required_argument, NULL, CLI_OPT_SET}, \
	{"format", required_argument, NULL, CLI_OPT_FORMAT}, \
	{"chips", required_argument, NULL, CLI_OPT_CHIPS}, \
	{"framework", required_argument, NULL, CLI_OPT_FRAMEWORK}, \
	{"help", no_argument, NULL, 'h'}

/* The inputs of an evaluation (eval, compare, roofline, report, baseline record). */
#define CLI_EVAL_USAGE_INPUTS \
	"  -s, --system NAME      a system (roofcost list systems) or a path to its .ini\n" \
	"  -w, --workload NAME    a workload (roofcost list workloads) or a path to its .ini\n" \
	"      --plan LAYOUT      tp=8,pp=4,vpp=2,dp=16,cp=1,ep=1,sp=1,mb=1 (over the workload's [plan])\n" \
	"      --chips N          total chips; dp = N / (tp*pp*cp) when dp is not given\n" \
	"      --set KEY=VALUE    override a workload key (repeatable); the ones used most: serving\n" \
	"                         input_len, output_len, concurrency, ttft_slo, tpot_slo (--set\n" \
	"                         tpot_slo=50ms), training tokens (--set tokens=1T), global_batch;\n" \
	"                         roofcost help keys lists every key with its unit\n" \
	"      --framework NAME   the software stack (roofcost list frameworks), over the workload's\n"

#define CLI_EVAL_USAGE CLI_EVAL_USAGE_INPUTS \
	"      --format FMT       table | csv | json | md (default table)\n" \
	"  -h, --help             this text\n"

/* The pricing options of eval, compare, sweep, report and baseline (handled by cli_eval_option). */
#define CLI_COST_LONGOPTS \
	{"pricing", required_argument, NULL, CLI_OPT_PRICING}, \
	{"as-of", required_argument, NULL, CLI_OPT_AS_OF}, \
	{"price", required_argument, NULL, CLI_OPT_PRICE}, \
	{"discount", required_argument, NULL, CLI_OPT_DISCOUNT}, \
	{"capex", required_argument, NULL, CLI_OPT_CAPEX}

#define CLI_COST_USAGE \
	"      --pricing MODEL    on-demand (default, or the workload's [cost] pricing), capacity-block,\n" \
	"                         reserved-1y, reserved-3y, committed-1y, committed-3y, spot, owned\n" \
	"                         (buying the hardware: capex, power, hosting; models/README.md)\n" \
	"      --as-of DATE       the newest price at or before YYYY-MM-DD (default: the newest)\n" \
	"      --price SYS=USD    your own price for system SYS, USD per chip-hour (repeatable); it\n" \
	"                         replaces the catalog's for every pricing model, --discount aside\n" \
	"      --discount [KEY=]PCT  take PCT percent (0-99.99) off catalog prices: of every system\n" \
	"                         (30), of a provider (aws=30,gcp=20) or of one system or instance\n" \
	"                         (trn2.48xlarge=35); the most specific applies (repeatable)\n" \
	"      --capex SYS=USD[/CHIPS]  your own purchase quote for SYS (--pricing owned): USD for\n" \
	"                         CHIPS chips with their host, one node when not given (repeatable)\n"

/* Handles one ranking option (codes below, or --chips with MIN-MAX) into a, or into o (--disagg
 * as --set disagg=SPLIT). Returns 1 if handled, 0 if not one of them, -1 on a usage error. */
int cli_rank_option(int code, const char *arg, setup_opts *o, setup_rank_args *a, err *e);

enum { CLI_OPT_BUDGET = SETUP_OPT_BUDGET, CLI_OPT_DEADLINE = SETUP_OPT_DEADLINE, CLI_OPT_DISAGG = SETUP_OPT_DISAGG };

#define CLI_RANK_LONGOPTS \
	{"budget", required_argument, NULL, CLI_OPT_BUDGET}, \
	{"deadline", required_argument, NULL, CLI_OPT_DEADLINE}, \
	{"disagg", required_argument, NULL, CLI_OPT_DISAGG}

/* --disagg SPLIT (eval, compare, report): the workload key disagg, as --set disagg=SPLIT. */
#define CLI_DISAGG_USAGE \
	"      --disagg SPLIT     disaggregated prefill and decode pools beside the aggregated result:\n" \
	"                         auto (search the layouts and the split), XpYd (X prefill and Y decode\n" \
	"                         replicas, layouts searched) or XpYd:PLAN:PLAN (14p2d:tp=4:tp=8)\n"

#define CLI_RANK_USAGE \
	"      --budget USD       the most a system may cost: per hour (serving) or per run (training)\n" \
	"      --deadline DAYS    training: drop runs that take longer, failures included\n" \
	CLI_DISAGG_USAGE

/* --wide, for the commands that print tables (handled by cli_eval_option). */
#define CLI_TABLE_LONGOPTS {"wide", no_argument, NULL, CLI_OPT_WIDE}

#define CLI_TABLE_USAGE \
	"      --wide             text tables with every column, unwrapped (default: fit 120 columns)\n"

/* Subcommands, and their --help texts (also the man page and the completion). */
extern const char eval_usage[], roofline_usage[], list_usage[], compare_usage[], validate_usage[],
	sweep_usage[], import_usage[], new_usage[], report_usage[], baseline_usage[], baseline_options_usage[];
int cmd_eval(int argc, char **argv, const home_paths *paths);
/* `roofcost help keys`: every workload key, its unit, whether required, what it is. */
int new_help_keys(FILE *fp);
int cmd_roofline(int argc, char **argv, const home_paths *paths);
int cmd_list(int argc, char **argv, const home_paths *paths);
int cmd_compare(int argc, char **argv, const home_paths *paths);
int cmd_validate(int argc, char **argv, const home_paths *paths);
int cmd_sweep(int argc, char **argv, const home_paths *paths);
int cmd_import(int argc, char **argv, const home_paths *paths);
int cmd_new(int argc, char **argv, const home_paths *paths);
int cmd_report(int argc, char **argv, const home_paths *paths);
int cmd_baseline(int argc, char **argv, const home_paths *paths);

#endif
