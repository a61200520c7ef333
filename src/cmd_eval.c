/* cmd_eval: `roofcost eval` - one evaluation with its breakdown. */
#include <cJSON.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "infer.h"
#include "show.h"
#include "train.h"

const char eval_usage[] =
	"usage: roofcost eval -s SYSTEM -w WORKLOAD [--chips N] [--plan tp=8,pp=4,...]\n"
	"                     [--set KEY=VALUE]... [--pricing MODEL] [--as-of DATE]\n"
	"                     [--price SYS=USD]... [--discount PCT]\n"
	"                     [--format table|csv|json|md]\n\n"
	"Evaluates one workload on one system with one parallel layout: memory per chip and why a\n"
	"layout does not fit; for training the step time, tokens/s, TFLOP/s per chip, MFU and HFU,\n"
	"and the goodput under failures; for inference TTFT, TPOT and output tokens/s; which bound\n"
	"applies and where each hardware figure came from. With the system's price from the store:\n"
	"USD per hour and per delivered unit (a training run, a million output tokens, an example),\n"
	"and the assumptions behind them (the workload's [cost] section).\n\n" CLI_EVAL_USAGE
	CLI_COST_USAGE;

int cmd_eval(int argc, char **argv, const cli_paths *paths)
{
	static const struct option longopts[] = {CLI_EVAL_LONGOPTS, CLI_COST_LONGOPTS, {NULL, 0, NULL, 0}};
	cli_eval_opts o;
	db *store = NULL;
	show_cost cost;
	err e = {0};
	hw_system *sys = malloc(sizeof *sys);
	wl_workload *w = malloc(sizeof *w);
	plan p;
	int c, rc = 0;
	show_eval rep;
	train_result tr;
	infer_result ir;

	cli_eval_init(&o);
	if (!sys || !w) {
		free(sys);
		free(w);
		err_set(&e, ERR_DATA, "out of memory");
		return cli_fail(&e);
	}
	optind = 1;
	while ((c = getopt_long(argc, argv, "s:w:h", longopts, NULL)) != -1) {
		int h;
		if (c == 'h') {
			fputs(eval_usage, stdout);
			goto done;
		}
		h = cli_eval_option(c, optarg, &o, &e);
		if (h < 0) {
			rc = cli_fail(&e);
			goto done;
		}
		if (h == 0) {
			fputs(eval_usage, stderr);
			rc = 2;
			goto done;
		}
	}
	if (optind < argc) {
		err_set(&e, ERR_USAGE, "eval: unexpected argument '%s'", argv[optind]);
		rc = cli_fail(&e);
		goto done;
	}
	if (cli_setup(paths, &o, o.system, sys, w, &p, &e) != 0) {
		rc = cli_fail(&e);
		goto done;
	}
	memset(&rep, 0, sizeof rep);
	rep.sys = sys;
	rep.w = w;
	if (w->mode == WL_TRAIN) {
		train_eval(sys, w, &p, &tr, NULL);
		rep.train = &tr;
	} else {
		infer_eval(sys, w, &p, &ir, NULL, NULL);
		rep.infer = &ir;
	}
	if (cli_cost(paths, &store, &o, sys, w, rep.train, rep.infer, &cost, &e) != 0) {
		rc = cli_fail(&e);
		goto done;
	}
	rep.cost = &cost;
	if (o.format == OUT_TABLE) {
		show_text(&rep, stdout);
	} else {
		cJSON *j = show_json(&rep);
		if (o.format == OUT_JSON) {
			char *s = cJSON_Print(j);
			puts(s);
			free(s);
		} else {
			out_table t;
			static const char *const hdr[] = {"field", "value"};
			out_init(&t, 2, hdr);
			show_flat(j, "", &t);
			out_print(&t, o.format, stdout);
			out_release(&t);
		}
		cJSON_Delete(j);
	}
done:
	db_close(store);
	free(sys);
	free(w);
	return rc;
}
