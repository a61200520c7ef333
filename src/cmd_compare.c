/* cmd_compare: `roofcost compare` - one workload on several systems, each at its best layout
 * (rank.c), side by side and ranked by cost per delivered unit, with the verdict that says
 * why each loses to the first. */
#include <cJSON.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "db.h"
#include "infer.h"
#include "show.h"
#include "sweep.h"
#include "train.h"

static const char compare_usage[] =
	"usage: roofcost compare -w WORKLOAD -s SYS1,SYS2,...|all [--chips N|MIN-MAX] [--budget USD]\n"
	"                        [--plan ...] [--set KEY=VALUE]... [--pricing MODEL] [--as-of DATE]\n"
	"                        [--price SYS=USD]... [--discount PCT]\n"
	"                        [--format table|csv|json|md]\n\n"
	"Finds each system's best layout for the workload and ranks the systems by cost per delivered\n"
	"unit (a million output tokens at the latency limits, an example, or a finished training run),\n"
	"then by throughput where a system has no price. Each row gives chips, layout, throughput,\n"
	"latency, USD per hour and per unit, what bounds it (compute, memory, a link, the pipeline\n"
	"bubble, runtime overhead) and why it loses to the first. Serving searches tensor-parallel\n"
	"degrees within the scale-up domain (and 2 pipeline stages); training sweeps layouts at the\n"
	"chip count (--chips, else the workload's). --chips MIN-MAX bounds the chips of a serving\n"
	"replica; --budget caps USD per hour (serving) or per run (training).\n\n" CLI_EVAL_USAGE CLI_COST_USAGE
	"      --budget USD       the most a system may cost: per hour (serving) or per run (training)\n";

int cmd_compare(int argc, char **argv, const cli_paths *paths)
{
	enum { O_BUDGET = 4000 };
	static const struct option longopts[] = {CLI_EVAL_LONGOPTS, CLI_COST_LONGOPTS,
						 {"budget", required_argument, NULL, O_BUDGET}, {NULL, 0, NULL, 0}};
	cli_eval_opts o;
	err e = {0};
	db *store = NULL;
	wl_workload *w0 = malloc(sizeof *w0);
	rank_row *rows = NULL;
	cli_pricer pricer;
	rank_opts ro;
	char **names = NULL;
	int nnames = 0, nrows = 0, c, rc = 0, cmin = 1, cmax = 1 << 30;
	double budget = 0;
	const char *chips_text = NULL;

	cli_eval_init(&o);
	optind = 1;
	while ((c = getopt_long(argc, argv, "s:w:h", longopts, NULL)) != -1) {
		int h;
		if (c == 'h') {
			fputs(compare_usage, stdout);
			goto done;
		}
		if (c == O_BUDGET) {
			char *end;
			budget = strtod(optarg, &end);
			if (end == optarg || *end || !(budget > 0)) {
				err_set(&e, ERR_USAGE, "--budget: '%s' is not a positive number of USD", optarg);
				rc = cli_fail(&e);
				goto done;
			}
			continue;
		}
		if (c == CLI_OPT_CHIPS && strchr(optarg, '-')) {
			chips_text = optarg;
			if (sscanf(optarg, "%d-%d", &cmin, &cmax) != 2 || cmin < 1 || cmax < cmin) {
				err_set(&e, ERR_USAGE, "--chips: '%s' is not N or MIN-MAX", optarg);
				rc = cli_fail(&e);
				goto done;
			}
			continue;
		}
		h = cli_eval_option(c, optarg, &o, &e);
		if (h <= 0) {
			if (h == 0)
				fputs(compare_usage, stderr);
			rc = h < 0 ? cli_fail(&e) : 2;
			goto done;
		}
	}
	if (o.chips && !chips_text) {
		/* A single count bounds a serving replica exactly; for training it is the chips. */
		cmin = cmax = o.chips;
	}
	if (!w0) {
		err_set(&e, ERR_DATA, "out of memory");
		rc = cli_fail(&e);
		goto done;
	}
	if (optind < argc || !o.system) {
		err_set(&e, ERR_USAGE, optind < argc ? "compare: unexpected argument" : "missing -s SYS1,SYS2,...|all");
		rc = cli_fail(&e);
		goto done;
	}
	nnames = cli_system_names(paths, o.system, &names, &e);
	if (nnames < 0) {
		rc = cli_fail(&e);
		goto done;
	}
	rows = calloc((size_t)(nnames ? nnames : 1), sizeof *rows);
	if (!rows) {
		err_set(&e, ERR_DATA, "out of memory");
		rc = cli_fail(&e);
		goto done;
	}
	for (int i = 0; i < nnames; i++) {
		rank_row *r = &rows[nrows];
		plan p;
		r->sys = malloc(sizeof *r->sys);
		if (!r->sys) {
			rc = err_set(&e, ERR_DATA, "out of memory");
			break;
		}
		nrows++;
		if (cli_setup(paths, &o, names[i], r->sys, w0, &p, &e) != 0) {
			rc = e.code;
			break;
		}
		cli_rank_opts(&pricer, paths, &store, &o, w0, &ro);
		ro.cmin = cmin;
		ro.cmax = cmax;
		ro.budget = budget;
		if ((rc = rank_system(w0, &p, &ro, r, &e)) != 0)
			break;
	}
	if (rc != 0) {
		rc = cli_fail(&e);
		goto done;
	}
	(void)chips_text;
	rank_sort(rows, nrows);
	rank_verdicts(rows, nrows, budget);
	if (o.format == OUT_JSON) {
		cJSON *root = cJSON_CreateObject(), *arr;
		char *s;
		cJSON_AddStringToObject(root, "workload", w0->name);
		cJSON_AddStringToObject(root, "unit", cost_unit_names[w0->cost.unit]);
		cJSON_AddStringToObject(root, "comm_note", show_comm_note);
		arr = cJSON_AddArrayToObject(root, "systems");
		for (int i = 0; i < nrows; i++) {
			cJSON *j = show_json(&rows[i].rep);
			cJSON_AddNumberToObject(j, "rank", i + 1);
			cJSON_AddStringToObject(j, "layout", rows[i].plan);
			cJSON_AddStringToObject(j, "bound", rows[i].bound);
			cJSON_AddStringToObject(j, "verdict", rows[i].verdict);
			cJSON_AddNumberToObject(j, "layouts_searched", rows[i].searched);
			cJSON_AddItemToArray(arr, j);
		}
		s = cJSON_Print(root);
		puts(s);
		free(s);
		cJSON_Delete(root);
	} else {
		out_table t;
		static const char *const ih[] = {"rank", "system", "chip", "chips", "layout", "tokens_per_s",
						 "ttft_ms", "tpot_ms", "usd_per_h", "usd_per_unit", "bound", "verdict"};
		static const char *const th[] = {"rank", "system", "chip", "chips", "layout", "tokens_per_s",
						 "mfu_pct", "train_days", "usd_per_h", "usd_per_unit", "bound", "verdict"};
		char unit_col[32];
		const char *hdr[12];
		for (int k = 0; k < 12; k++)
			hdr[k] = w0->mode == WL_TRAIN ? th[k] : ih[k];
		snprintf(unit_col, sizeof unit_col, "usd_per_%s", cost_unit_names[w0->cost.unit]);
		hdr[9] = unit_col;
		out_init(&t, 12, hdr);
		for (int k = 0; k < 10; k++)
			if (k != 1 && k != 2 && k != 4)
				out_right(&t, k);
		for (int i = 0; i < nrows; i++) {
			rank_row *r = &rows[i];
			const cost_result *cr = &r->cost.result;
			char v[6][48], usd_h[32] = "-", usd_u[32] = "-";
			if (isfinite(cr->usd_per_hour))
				snprintf(usd_h, sizeof usd_h, "%.2f", cr->usd_per_hour);
			if (cr->ok && isfinite(cr->usd_per_unit))
				snprintf(usd_u, sizeof usd_u, cr->usd_per_unit < 100 ? "%.3f" : "%.0f", cr->usd_per_unit);
			snprintf(v[0], 48, "%d", i + 1);
			if (w0->mode == WL_INFER) {
				snprintf(v[1], 48, "%d", r->ir.plan.chips);
				snprintf(v[2], 48, "%.0f", r->ir.tokens_per_s);
				snprintf(v[3], 48, "%.0f", r->ir.ttft * 1e3);
				snprintf(v[4], 48, "%.1f", r->ir.tpot * 1e3);
			} else {
				snprintf(v[1], 48, "%d", r->tr.plan.chips);
				snprintf(v[2], 48, "%.0f", r->tr.tokens_per_s);
				snprintf(v[3], 48, "%.1f", 100 * r->tr.mfu);
				snprintf(v[4], 48, "%.1f", (isfinite(cr->run_time) && cr->run_time > 0 ? cr->run_time
												  : r->tr.train_time) / 86400);
			}
			{
				const char *cells[12] = {v[0], r->sys->name, r->sys->chip.name, v[1], r->plan, v[2],
							 v[3], v[4], usd_h, usd_u, r->bound, r->verdict};
				out_row(&t, cells);
			}
		}
		if (o.format == OUT_TABLE)
			printf("%s (%s, %s): best layout per system, ranked by USD per %s%s\n", w0->name, w0->net.display,
			       wl_mode_names[w0->mode], cost_unit_names[w0->cost.unit],
			       w0->mode == WL_INFER ? " at the latency limits (means shown; limits hold at the percentile)" : "");
		out_print(&t, o.format, stdout);
		if (o.format == OUT_TABLE && nrows > 0) {
			char terms[SHOW_NOTE_MAX];
			show_terms_text(&rows[0].cost, w0->mode == WL_TRAIN, terms, sizeof terms);
			printf("prices: the newest%s%s in the store %s, per chip-hour; assumptions: %s\n",
			       o.as_of ? " at or before " : "", o.as_of ? o.as_of : "", paths->db, terms);
			cli_price_terms(&o, terms, sizeof terms);
			if (terms[0])
				printf("%s\n", terms);
			if (w0->mode == WL_TRAIN) {
				const cost_failures *f = &rows[0].cost.terms.failures;
				printf("failures: chip MTBF %.0f h, checkpoints %.3g TB at %.4g GB/s, restart %.0f s "
				       "(Young/Daly); train_days and usd_per_run include them\n", f->chip_mtbf / 3600,
				       f->checkpoint_bytes / 1e12, f->checkpoint_bw / 1e9, f->restart);
			}
		}
		out_release(&t);
	}
done:
	if (store)
		db_close(store);
	for (int i = 0; i < nrows; i++)
		free(rows[i].sys);
	free(rows);
	if (names)
		cli_free_names(names, nnames);
	free(w0);
	return rc;
}
