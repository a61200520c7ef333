/* cmd_compare: `roofcost compare` - one workload on several systems, side by side.
 *
 * Inference: unless --plan is given, each system serves with the tensor-parallel degree,
 * within one node, that meets the workload's TPOT limit with the most output tokens/s per
 * chip (the smallest TPOT when none meets it). Training: the workload's layout (or --plan),
 * with dp from --chips. */
#include <cJSON.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "infer.h"
#include "report.h"
#include "train.h"

static const char compare_usage[] =
	"usage: roofcost compare -w WORKLOAD -s SYS1,SYS2,... [--plan ...] [--chips N]\n"
	"                        [--set KEY=VALUE]... [--pricing MODEL] [--as-of DATE]\n"
	"                        [--format table|csv|json|md]\n\n"
	"Evaluates one workload on each system and prints them side by side, best first\n"
	"(inference: output tokens/s per chip among layouts within the TPOT limit; training:\n"
	"time to train), with USD per hour and per delivered unit where the store has a price.\n"
	"Without --plan an inference workload tries every tensor-parallel degree that fits one\n"
	"node.\n\n" CLI_EVAL_USAGE CLI_COST_USAGE;

typedef struct row {
	char system[HW_NAME_MAX];
	int feasible;
	double score;        /* higher is better */
	report_eval rep;
	train_result tr;
	infer_result ir;
	report_cost cost;
	hw_system *sys;
	char plan[96];
} row;

static int meets(const wl_workload *w, const infer_result *r)
{
	return cli_slo_met(w, r);
}

/* Picks the tensor-parallel degree on one node for inference. */
static void best_infer(const hw_system *s, const wl_workload *w, const plan *base, infer_result *best)
{
	int node = hw_node_chips(s);
	int have = 0;
	for (int tp = 1; tp <= node; tp *= 2) {
		plan p = *base;
		infer_result r;
		if (node % tp != 0 || w->net.heads % tp != 0)
			continue;
		p.tp = tp;
		p.pp = p.dp = p.cp = 1;
		p.ep = 1;
		p.chips = tp;
		infer_eval(s, w, &p, &r, NULL, NULL);
		if (!have) {
			*best = r;
			have = 1;
			continue;
		}
		if (meets(w, &r) && (!meets(w, best) || r.tokens_per_s_per_chip > best->tokens_per_s_per_chip))
			*best = r;
		else if (!meets(w, best) && !meets(w, &r) && r.feasible &&
			 (!best->feasible || r.tpot < best->tpot))
			*best = r;
	}
}

static int cmp_rows(const void *a, const void *b)
{
	const row *x = a, *y = b;
	if (x->feasible != y->feasible)
		return y->feasible - x->feasible;
	return (x->score < y->score) - (x->score > y->score);
}

int cmd_compare(int argc, char **argv, const cli_paths *paths)
{
	static const struct option longopts[] = {CLI_EVAL_LONGOPTS, CLI_COST_LONGOPTS, {NULL, 0, NULL, 0}};
	cli_eval_opts o;
	err e = {0};
	db *store = NULL;
	wl_workload *w = malloc(sizeof *w);
	row *rows = NULL;
	int nrows = 0, c, rc = 0;
	char list[2048];

	cli_eval_init(&o);
	optind = 1;
	while ((c = getopt_long(argc, argv, "s:w:h", longopts, NULL)) != -1) {
		int h;
		if (c == 'h') {
			fputs(compare_usage, stdout);
			free(w);
			return 0;
		}
		h = cli_eval_option(c, optarg, &o, &e);
		if (h <= 0) {
			if (h == 0)
				fputs(compare_usage, stderr);
			free(w);
			return h < 0 ? cli_fail(&e) : 2;
		}
	}
	if (!o.system) {
		err_set(&e, ERR_USAGE, "missing -s SYS1,SYS2,...");
		free(w);
		return cli_fail(&e);
	}
	snprintf(list, sizeof list, "%s", o.system);
	{
		char *save = NULL;
		for (char *tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
			row *nr = realloc(rows, (size_t)(nrows + 1) * sizeof *rows);
			plan p;
			if (!nr) {
				rc = err_set(&e, ERR_DATA, "out of memory");
				break;
			}
			rows = nr;
			memset(&rows[nrows], 0, sizeof rows[nrows]);
			rows[nrows].sys = malloc(sizeof(hw_system));
			if (!rows[nrows].sys) {
				rc = err_set(&e, ERR_DATA, "out of memory");
				break;
			}
			nrows++;
			if (cli_setup(paths, &o, tok, rows[nrows - 1].sys, w, &p, &e) != 0) {
				rc = e.code;
				break;
			}
			{
				row *r = &rows[nrows - 1];
				snprintf(r->system, sizeof r->system, "%s", r->sys->name);
				r->rep.sys = r->sys;
				r->rep.w = w;
				if (w->mode == WL_TRAIN) {
					train_eval(r->sys, w, &p, &r->tr, NULL);
					r->rep.train = &r->tr;
					r->feasible = r->tr.feasible;
					r->score = r->tr.tokens_per_s;
					plan_format(&r->tr.plan, r->plan, sizeof r->plan);
				} else {
					if (o.plan_text)
						infer_eval(r->sys, w, &p, &r->ir, NULL, NULL);
					else
						best_infer(r->sys, w, &p, &r->ir);
					r->rep.infer = &r->ir;
					r->feasible = meets(w, &r->ir) ? 2 : r->ir.feasible;
					r->score = r->ir.tokens_per_s_per_chip;
					plan_format(&r->ir.plan, r->plan, sizeof r->plan);
				}
				if (cli_cost(paths, &store, &o, r->sys, w, r->rep.train, r->rep.infer, &r->cost, &e) != 0) {
					rc = e.code;
					break;
				}
			}
		}
	}
	if (rc != 0) {
		rc = cli_fail(&e);
		goto done;
	}
	qsort(rows, (size_t)nrows, sizeof *rows, cmp_rows);
	for (int i = 0; i < nrows; i++) {
		/* qsort moved the rows: re-point the reports at their own results. */
		rows[i].rep.train = w->mode == WL_TRAIN ? &rows[i].tr : NULL;
		rows[i].rep.infer = w->mode == WL_INFER ? &rows[i].ir : NULL;
		rows[i].rep.sys = rows[i].sys;
		rows[i].rep.cost = &rows[i].cost;
	}
	if (o.format == OUT_JSON) {
		cJSON *root = cJSON_CreateObject(), *arr;
		char *s;
		cJSON_AddStringToObject(root, "workload", w->name);
		cJSON_AddStringToObject(root, "comm_note", report_comm_note);
		arr = cJSON_AddArrayToObject(root, "systems");
		for (int i = 0; i < nrows; i++)
			cJSON_AddItemToArray(arr, report_json(&rows[i].rep));
		s = cJSON_Print(root);
		puts(s);
		free(s);
		cJSON_Delete(root);
	} else {
		out_table t;
		static const char *const ih[] = {"rank", "system", "chip", "chips", "plan", "mem_GiB",
						 "ttft_ms", "tpot_ms", "tokens_per_s", "per_chip", "decode",
						 "usd_per_h", "usd_per_unit", "verdict"};
		static const char *const th[] = {"rank", "system", "chip", "chips", "plan", "mem_GiB",
						 "step_s", "tokens_per_s", "mfu_pct", "train_days", "bound",
						 "usd_per_h", "usd_per_unit", "verdict"};
		char unit_col[32];
		const char *hdr[14];
		for (int k = 0; k < 14; k++)
			hdr[k] = w->mode == WL_TRAIN ? th[k] : ih[k];
		/* The unit column says its unit: usd_per_mtok, usd_per_example, usd_per_run. */
		snprintf(unit_col, sizeof unit_col, "usd_per_%s", cost_unit_names[w->cost.unit]);
		hdr[12] = unit_col;
		out_init(&t, 14, hdr);
		for (int k = 0; k < 13; k++)
			if (k != 1 && k != 2 && k != 4 && k != 10)
				out_right(&t, k);
		for (int i = 0; i < nrows; i++) {
			row *r = &rows[i];
			const cost_result *cr = &r->cost.result;
			char v[8][48], verdict[300], usd_h[32] = "-", usd_u[32] = "-";
			if (isfinite(cr->usd_per_hour))
				snprintf(usd_h, sizeof usd_h, "%.2f", cr->usd_per_hour);
			if (cr->ok && isfinite(cr->usd_per_unit))
				snprintf(usd_u, sizeof usd_u, cr->usd_per_unit < 100 ? "%.3f" : "%.0f", cr->usd_per_unit);
			snprintf(v[0], 48, "%d", i + 1);
			if (w->mode == WL_INFER) {
				const infer_result *x = &r->ir;
				snprintf(v[1], 48, "%d", x->plan.chips);
				snprintf(v[2], 48, "%.1f", x->mem.total / 1073741824.0);
				snprintf(v[3], 48, "%.1f", x->ttft * 1e3);
				snprintf(v[4], 48, "%.2f", x->tpot * 1e3);
				snprintf(v[5], 48, "%.0f", x->tokens_per_s);
				snprintf(v[6], 48, "%.1f", x->tokens_per_s_per_chip);
				snprintf(v[7], 48, "%s", roof_bound_names[x->decode_bound]);
				if (!x->feasible)
					snprintf(verdict, sizeof verdict, "infeasible: %s", x->reason);
				else if (!meets(w, x))
					snprintf(verdict, sizeof verdict, "misses the latency limit (TPOT %.0f ms, TTFT %.0f ms)",
						 w->tpot_slo * 1e3, w->ttft_slo * 1e3);
				else
					snprintf(verdict, sizeof verdict, i == 0 ? "best tokens/s per chip" : "%.0f%% of the best per chip",
						 100 * x->tokens_per_s_per_chip / rows[0].ir.tokens_per_s_per_chip);
			} else {
				const train_result *x = &r->tr;
				double op = x->t_compute + x->t_optimizer;
				snprintf(v[1], 48, "%d", x->plan.chips);
				snprintf(v[2], 48, "%.1f", x->mem.total / 1073741824.0);
				snprintf(v[3], 48, "%.2f", x->step_time);
				snprintf(v[4], 48, "%.0f", x->tokens_per_s);
				snprintf(v[5], 48, "%.1f", 100 * x->mfu);
				snprintf(v[6], 48, "%.1f", x->train_time / 86400);
				snprintf(v[7], 48, "%s", x->t_bound[0] >= op / 2 ? "compute" : "memory");
				if (!x->feasible)
					snprintf(verdict, sizeof verdict, "infeasible: %s", x->reason);
				else
					snprintf(verdict, sizeof verdict, i == 0 ? "fastest" : "%.0f%% of the fastest",
						 100 * x->tokens_per_s / rows[0].tr.tokens_per_s);
			}
			{
				const char *cells[14] = {v[0], r->system, r->sys->chip.name, v[1], r->plan,
							 v[2], v[3], v[4], v[5], v[6], v[7], usd_h, usd_u, verdict};
				out_row(&t, cells);
			}
		}
		if (o.format == OUT_TABLE)
			printf("%s (%s, %s)%s\n", w->name, w->net.display, wl_mode_names[w->mode],
			       w->mode == WL_INFER ? ", output tokens; ranked by tokens/s per chip within the latency limits" : "");
		out_print(&t, o.format, stdout);
		if (o.format == OUT_TABLE) {
			printf("note: %s\n", report_comm_note);
			char terms[REPORT_NOTE_MAX];
			report_terms_text(&rows[0].cost, w->mode == WL_TRAIN, terms, sizeof terms);
			printf("prices: the newest%s%s in the store %s, per chip-hour (eval -s SYSTEM shows each)\n"
			       "assumptions: %s\n", o.as_of ? " at or before " : "", o.as_of ? o.as_of : "",
			       paths->db, terms);
			if (w->mode == WL_TRAIN) {
				const cost_failures *f = &rows[0].cost.terms.failures;
				printf("failures: chip MTBF %.0f h, checkpoints of %.3g TB at %.4g GB/s, restart %.0f s "
				       "(Young/Daly); usd_per_run includes the time they cost\n", f->chip_mtbf / 3600,
				       f->checkpoint_bytes / 1e12, f->checkpoint_bw / 1e9, f->restart);
			}
			for (int i = 0; i < nrows; i++)
				if (rows[i].cost.note[0])
					printf("  %s: %s\n", rows[i].system, rows[i].cost.note);
		}
		out_release(&t);
	}
done:
	db_close(store);
	for (int i = 0; i < nrows; i++)
		free(rows[i].sys);
	free(rows);
	free(w);
	return rc;
}
