/* cli: what every subcommand shares: data paths, the store, the evaluation set-up (system +
 * workload + overrides + plan), pricing a result, output format, and the one error printer.
 * Subcommands live in cmd_<name>.c and are listed in cli.c's command table. */
#ifndef ROOFCOST_CLI_H
#define ROOFCOST_CLI_H

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

enum { CLI_PATH_MAX = 1024, CLI_SET_MAX = 64, CLI_PRICE_MAX = 32 };

/* The tool's version and build (the commit it was built from, "-dirty" with local changes). */
extern const char cli_version[];
extern const char cli_build[];

typedef struct cli_paths {
	char home[CLI_PATH_MAX];        /* folder holding models/, workloads/, catalogs/ */
	char models[CLI_PATH_MAX];
	char workloads[CLI_PATH_MAX];
	char catalogs[CLI_PATH_MAX];    /* bundled pricing catalogs */
	char db[CLI_PATH_MAX];          /* the store: $ROOFCOST_DB, else the XDG default (DESIGN §6) */
	int db_default;                 /* 1: db is the XDG default, whose folder may be created */
	const interval_table *intervals;/* models/intervals.ini, read once per command by main; NULL
					   when the data folder has none */
} cli_paths;

/* Options shared by eval, roofline and compare. */
typedef struct cli_eval_opts {
	const char *system;            /* -s */
	const char *workload;          /* -w */
	const char *plan_text;         /* --plan */
	int chips;                     /* --chips; 0 = from the plan */
	const char *sets[CLI_SET_MAX]; /* --set, in order */
	int nsets;
	out_format format;
	int pricing;                   /* --pricing: a price_model, -1 = the workload's */
	const char *as_of;             /* --as-of DATE; NULL = the newest price */
	char framework[CLI_PATH_MAX];  /* --framework NAME|PATH as the override "framework=..."; "" = none */
	rank_user_price prices[CLI_PRICE_MAX]; /* --price SYSTEM=USD_PER_CHIP_HOUR, in order */
	int nprices;
	rank_user_capex capex[CLI_PRICE_MAX];  /* --capex SYSTEM=USD[/CHIPS], in order */
	int ncapex;
	rank_discount discounts[CLI_PRICE_MAX]; /* --discount [KEY=]PCT,..., as shares [0, 1) */
	int ndiscounts;
	int pricing_all;               /* --pricing all (compare: every pricing model per system) */
	int wide;                      /* --wide: text tables keep every column */
} cli_eval_opts;

/* Finds the data folders: $ROOFCOST_HOME, else the executable's folder or its ../share/roofcost,
 * else the working directory; and the store: $ROOFCOST_DB, else
 * $XDG_DATA_HOME/roofcost/roofcost.db, else ~/.local/share/roofcost/roofcost.db (roofcost.db
 * here when neither XDG_DATA_HOME nor HOME is set). */
void cli_find_paths(cli_paths *p, const char *argv0);

/* Opens the store, creating its folder and it, with the bundled catalogs (every .csv in
 * catalogs/, in name order, in the creating transaction), on first use. The caller closes
 * *out with db_close. */
int cli_open_db(const cli_paths *p, db **out, err *e);

/* The same for commands that only read the store (db_open_read). */
int cli_open_db_read(const cli_paths *p, db **out, err *e);

/* Starts o with no options given. */
void cli_eval_init(cli_eval_opts *o);

/* Prints "roofcost: msg" to stderr and returns the exit code of e (1 data, 2 usage). */
int cli_fail(const err *e);

/* Handles one shared option (getopt_long codes below) into o. Returns 1 if handled, 0 if
 * not one of them, -1 on a usage error (e set). */
int cli_eval_option(int code, const char *arg, cli_eval_opts *o, err *e);

/* The exit code for an option cli_eval_option did not take (h = its result, 0 or -1): -1 prints
 * e (exit 2), 0 prints usage, the command's text, and exits 2. */
int cli_option_rc(int h, const char *usage, const err *e);

/* Checks that every --price and --capex names a known system: a file in models/hw/systems or
 * one named in -s. Returns 0, or ERR_USAGE with e set ("unknown system ... did you mean ..."). */
int cli_check_prices(const cli_paths *paths, const cli_eval_opts *o, err *e);

/* The user's pricing in one line for table footers ("user prices (--price): trn3-ultraserver
 * $4.50 per chip-hour; catalog prices less 10% (--discount)"), "" when there is none. */
void cli_price_terms(const cli_eval_opts *o, char *buf, size_t n);

/* Loads the workload (with --set overrides) and the system, and builds the plan: the
 * workload's [plan], then --plan, then --chips, then defaults (plan_fill). Checks --price
 * (cli_check_prices). */
int cli_setup(const cli_paths *paths, const cli_eval_opts *o, const char *system,
	      hw_system *sys, wl_workload *w, plan *p, err *e);

/* The calibration status and interval spread of a prediction of w on s (models/intervals.ini),
 * into out; returns out, or NULL when the data folder has no intervals file. */
const interval_status *cli_calibration(const cli_paths *paths, const hw_system *s, const wl_workload *w,
				       interval_status *out);

/* Prices one evaluation (exactly one of tr / ir set): the user's --price for the system, else
 * its instance's price in the store (opened into *store on first need, NULL until then) less
 * --discount, then costs a delivered unit with the workload's [cost] terms. A missing instance
 * or price is not an error: out->note says why the USD figures are null. Returns 0, or nonzero
 * with e set (the store failed). */
int cli_cost(const cli_paths *paths, db **store, const cli_eval_opts *o, const hw_system *s,
	     const wl_workload *w, const train_result *tr, const infer_result *ir, rank_quote *out,
	     err *e);

/* What the store pricer of rank_opts carries. */
typedef struct cli_pricer {
	const cli_paths *paths;
	db **store;
} cli_pricer;

/* Fills ro for ranking w's systems: the pricing of o (or the workload's), --as-of, --plan as a
 * fixed layout, --price and --discount, and prices from the store (opened into *store on first
 * need) through pr, which must outlive ro (and so must o). cmin/cmax/budget are left open for
 * the caller. */
void cli_rank_opts(cli_pricer *pr, const cli_paths *paths, db **store, const cli_eval_opts *o,
		   const wl_workload *w, rank_opts *ro);

/* Looks up the price of s's instance in the store for out->pricing at out->as_of (the caller
 * sets both): out->have_price, out->price and out->usd_per_chip_hour, or out->note saying why
 * there is none ("no public price: ..." where the system file says so and the store has no
 * price for it). Neither --price nor --discount: see rank_price. Returns 0, or nonzero with e
 * set (the store failed). */
int cli_price(const cli_paths *paths, db **store, const hw_system *s, const wl_workload *w,
	      rank_quote *out, err *e);

/* When no row of a comparison has a price for the pricing model asked for: which pricing
 * models the store holds for the systems compared, and what to do ("--price", "--pricing
 * MODEL"), into buf; "" when some row is priced. Returns 0, or nonzero with e set (the store
 * failed). */
int cli_no_price_note(const cli_paths *paths, db **store, const rank_row *rows, int n, const cli_eval_opts *o,
		      char *buf, size_t len, err *e);

/* Sorted .ini file stems of dir into *names (caller frees with cli_free_names). Returns the
 * count, or -1 with e set. */
int cli_ini_stems(const char *dir, char ***names, err *e);
void cli_free_names(char **names, int n);

enum { CLI_SYSTEMS_MAX = 128 };

/* The systems of "-s": "all" (every file in models/hw/systems) or a comma list. Returns the
 * count into *names (caller frees with cli_free_names), or -1 with e set. */
int cli_system_names(const cli_paths *paths, const char *list, char ***names, err *e);

/* getopt_long codes of the shared options. */
enum { CLI_OPT_PLAN = 1000, CLI_OPT_SET, CLI_OPT_FORMAT, CLI_OPT_CHIPS, CLI_OPT_HELP,
       CLI_OPT_PRICING, CLI_OPT_AS_OF, CLI_OPT_FRAMEWORK, CLI_OPT_PRICE, CLI_OPT_DISCOUNT, CLI_OPT_WIDE,
       CLI_OPT_CAPEX };

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

/* The ranking options of compare and report: --budget, --deadline, --chips MIN-MAX, --disagg. */
typedef struct cli_rank_args {
	double budget;            /* USD per hour (serving) or per run (training); 0 = none */
	double deadline;          /* days; 0 = none */
	int cmin, cmax, range;    /* --chips MIN-MAX (range 1), or the single --chips N (range 0) */
	char disagg[PLAN_DISAGG_TEXT_MAX + 8]; /* "disagg=SPLIT", given to cli_eval_option as --set */
} cli_rank_args;

void cli_rank_args_init(cli_rank_args *a);

/* Handles one ranking option (codes below, or --chips with MIN-MAX) into a, or into o (--disagg
 * as --set disagg=SPLIT). Returns 1 if handled, 0 if not one of them, -1 on a usage error. */
int cli_rank_option(int code, const char *arg, cli_eval_opts *o, cli_rank_args *a, err *e);

/* Sets ro's chip bounds, budget and deadline from a and o for workload w with plan p: serving
 * --chips N is the chips the replicas fill (ro->total), MIN-MAX bounds a replica; training
 * searches MIN-MAX or takes N. *fill: the chips serving replicas fill. Returns 0, or ERR_USAGE
 * with e set (--deadline on a serving workload). */
int cli_rank_apply(const cli_rank_args *a, const cli_eval_opts *o, const wl_workload *w, const plan *p,
		   rank_opts *ro, int *fill, err *e);

/* A training run of --chips N (no --plan, no range): the workload's layout with dp filling N,
 * or pure data parallelism where the layout does not divide N. The plan was set up without
 * --chips (a search is not tied to the workload's layout). */
void cli_rank_plan(const cli_rank_args *a, const cli_eval_opts *o, const wl_workload *w, plan *p);

enum { CLI_OPT_BUDGET = 1100, CLI_OPT_DEADLINE, CLI_OPT_DISAGG };

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
int cmd_eval(int argc, char **argv, const cli_paths *paths);
/* `roofcost help keys`: every workload key, its unit, whether required, what it is. */
int new_help_keys(FILE *fp);
int cmd_roofline(int argc, char **argv, const cli_paths *paths);
int cmd_list(int argc, char **argv, const cli_paths *paths);
int cmd_compare(int argc, char **argv, const cli_paths *paths);
int cmd_validate(int argc, char **argv, const cli_paths *paths);
int cmd_sweep(int argc, char **argv, const cli_paths *paths);
int cmd_import(int argc, char **argv, const cli_paths *paths);
int cmd_new(int argc, char **argv, const cli_paths *paths);
int cmd_report(int argc, char **argv, const cli_paths *paths);
int cmd_baseline(int argc, char **argv, const cli_paths *paths);

#endif
