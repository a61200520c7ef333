/* cmd_compare: `roofcost compare` - one workload on several systems, each at its best layout,
 * side by side and ranked by cost per delivered unit.
 *
 * Serving: every tensor-parallel degree that fits the system's scale-up domain (and two
 * pipeline stages), one replica; the layout that meets the latency limits at the lowest cost
 * per unit wins (most tokens/s per chip where there is no price). Training: a sweep of
 * layouts (tp, pp, vpp, sp, micro-batch, ZeRO, recompute) at the chip count, cheapest run
 * first (fewest chip-hours without a price). --plan fixes the layout instead. Each system's row
 * says what bounds it and why it loses to the first. */
#include <cJSON.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "db.h"
#include "infer.h"
#include "report.h"
#include "sweep.h"
#include "train.h"

static const char compare_usage[] =
	"usage: roofcost compare -w WORKLOAD -s SYS1,SYS2,...|all [--chips N|MIN-MAX] [--budget USD]\n"
	"                        [--plan ...] [--set KEY=VALUE]... [--pricing MODEL] [--as-of DATE]\n"
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

typedef struct row {
	hw_system *sys;
	int klass;          /* 0 ranked by cost, 1 no price, 2 over budget, 3 misses SLO, 4 infeasible */
	double key;         /* within the class: lower is better */
	train_result tr;
	infer_result ir;
	report_cost cost;
	report_eval rep;
	char plan[128];
	char bound[48];
	char verdict[320];
	int searched;       /* layouts tried */
} row;

static int cmp_rows(const void *a, const void *b)
{
	const row *x = a, *y = b;
	if (x->klass != y->klass)
		return x->klass - y->klass;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return strcmp(x->sys->name, y->sys->name);
}

/* The largest of compute, memory, exposed communication per level, bubble, runtime. */
static void infer_bound(const infer_result *r, const hw_system *s, char *buf, size_t n)
{
	const infer_step *st = &r->step;
	double best = st->ops.t_bound[ROOF_COMPUTE];
	snprintf(buf, n, "compute");
	if (st->ops.t_bound[ROOF_MEMORY] > best) {
		best = st->ops.t_bound[ROOF_MEMORY];
		snprintf(buf, n, "memory");
	}
	if (st->ops.t_bound[ROOF_OVERHEAD] > best) {
		best = st->ops.t_bound[ROOF_OVERHEAD];
		snprintf(buf, n, "kernel launches");
	}
	for (int l = 0; l < s->nlevels; l++)
		if (st->comm_level[l] > best) {
			best = st->comm_level[l];
			snprintf(buf, n, "link: %s", hw_level_names[s->levels[l].kind]);
		}
	if (st->t_overhead > best)
		snprintf(buf, n, "runtime per layer");
}

static void train_bound(const train_result *r, const hw_system *s, char *buf, size_t n)
{
	double best = r->t_bound[ROOF_COMPUTE];
	snprintf(buf, n, "compute");
	if (r->t_bound[ROOF_MEMORY] > best) {
		best = r->t_bound[ROOF_MEMORY];
		snprintf(buf, n, "memory");
	}
	for (int l = 0; l < s->nlevels; l++)
		if (r->comm.level[l] > best) {
			best = r->comm.level[l];
			snprintf(buf, n, "link: %s", hw_level_names[s->levels[l].kind]);
		}
	if (r->t_bubble > best)
		snprintf(buf, n, "pipeline bubble");
}

/* Serving: the best layout within the scale-up domain. */
static int best_serving(const cli_paths *paths, db **store, const cli_eval_opts *o, const wl_workload *w,
			const plan *given, int cmin, int cmax, double budget, row *r, err *e)
{
	const hw_system *s = r->sys;
	int up = s->nlevels > 1 && s->levels[1].kind == HW_LEVEL_DOMAIN ? s->levels[1].chips : hw_node_chips(s);
	int cand[48], nc = 0, have = 0;
	infer_result *cur = malloc(sizeof *cur);
	report_cost *cc = malloc(sizeof *cc);
	double best_key = INFINITY;
	int best_klass = 5;
	if (!cur || !cc) {
		free(cur);
		free(cc);
		return err_set(e, ERR_DATA, "out of memory");
	}
	if (o->plan_text) {
		cand[nc++] = given->tp * 100 + given->pp;
	} else {
		for (int tp = 1; tp <= up && tp <= w->net.heads; tp *= 2)
			for (int pp = 1; pp <= 2; pp++)
				cand[nc++] = tp * 100 + pp;
		if (hw_node_chips(s) & (hw_node_chips(s) - 1))
			cand[nc++] = hw_node_chips(s) * 100 + 1; /* a node that is not a power of two */
	}
	for (int i = 0; i < nc; i++) {
		plan p = *given;
		int klass;
		double key;
		p.tp = cand[i] / 100;
		p.pp = cand[i] % 100;
		if (!o->plan_text) {
			p.dp = p.cp = p.ep = p.vpp = 1;
			p.chips = p.tp * p.pp;
			if (p.chips < cmin || p.chips > cmax || p.pp > w->net.layers)
				continue;
		}
		infer_eval(s, w, &p, cur, NULL, NULL);
		if (cli_cost(paths, store, o, s, w, NULL, cur, cc, e) != 0) {
			free(cur);
			free(cc);
			return e->code;
		}
		r->searched++;
		if (!cur->feasible) {
			klass = 4;
			key = cur->tpot;
		} else if (!cli_slo_met(w, cur)) {
			klass = 3;
			key = cur->tpot_tail;
		} else if (cc->result.ok && isfinite(cc->result.usd_per_unit)) {
			klass = budget > 0 && cc->result.usd_per_hour > budget ? 2 : 0;
			key = klass == 2 ? cc->result.usd_per_hour : cc->result.usd_per_unit;
		} else {
			klass = 1;
			key = -cur->tokens_per_s_per_chip;
		}
		if (!have || klass < best_klass || (klass == best_klass && key < best_key)) {
			have = 1;
			best_klass = klass;
			best_key = key;
			r->ir = *cur;
			r->cost = *cc;
		}
	}
	free(cur);
	free(cc);
	if (!have)
		return err_set(e, ERR_USAGE, "--chips %d-%d leaves no layout for %s", cmin, cmax, s->name);
	r->klass = best_klass;
	r->key = best_key;
	plan_format(&r->ir.plan, r->plan, sizeof r->plan);
	infer_bound(&r->ir, s, r->bound, sizeof r->bound);
	r->rep.infer = &r->ir;
	return 0;
}

/* Training: the cheapest layout of a sweep at the chip count. */
static int best_training(const cli_paths *paths, db **store, const cli_eval_opts *o, wl_workload *w,
			 const plan *given, double budget, row *r, err *e)
{
	const hw_system *s = r->sys;
	plan p = *given;
	if (!o->plan_text) {
		sweep_space sp;
		sweep_offer of;
		sweep_job job;
		sweep_result *res = malloc(sizeof *res);
		report_cost pc;
		char tps[16];
		int node = hw_node_chips(s);
		if (!res)
			return err_set(e, ERR_DATA, "out of memory");
		memset(&pc, 0, sizeof pc);
		pc.pricing = o->pricing >= 0 ? (price_model)o->pricing : w->cost.pricing;
		snprintf(pc.as_of, sizeof pc.as_of, "%s", o->as_of ? o->as_of : "");
		if (cli_price(paths, store, s, w, &pc, e) != 0) {
			free(res);
			return e->code;
		}
		memset(&sp, 0, sizeof sp);
		sp.chips.v[0] = given->chips;
		sp.chips.n = 1;
		snprintf(tps, sizeof tps, "1-%d", node < 64 ? node : 64);
		sweep_parse_list(tps, &sp.tp);
		sweep_parse_list("1-64", &sp.pp);
		sweep_parse_list("1,2", &sp.vpp);
		sweep_parse_list("1", &sp.cp);
		if (w->net.experts > 1) {
			char eps[16];
			snprintf(eps, sizeof eps, "1-%d", w->net.experts);
			sweep_parse_list(eps, &sp.ep);
		} else {
			sweep_parse_list("1", &sp.ep);
		}
		sweep_parse_list("0,1", &sp.sp);
		sweep_parse_list("1,2,4", &sp.mb);
		sweep_parse_list("0-3:1", &sp.zero);
		sweep_parse_list("0-2:1", &sp.recompute);
		of.sys = s;
		of.system = 0;
		of.pricing = (int)pc.pricing;
		of.usd_per_chip_hour = pc.have_price ? pc.usd_per_chip_hour : NAN;
		memset(&job, 0, sizeof job);
		job.space = &sp;
		job.w = w;
		job.offers = &of;
		job.noffers = 1;
		job.top_k = 1;
		job.threads = 1;
		job.nshards = 1;
		if (sweep_run(&job, res) != 0) {
			free(res);
			return err_set(e, ERR_DATA, "out of memory");
		}
		r->searched = (int)res->total;
		if (res->ntop > 0) {
			p = res->top[0].plan;
			w->zero = res->top[0].zero;
			w->recompute = (wl_recompute)res->top[0].recompute;
		}
		free(res);
	}
	train_eval(s, w, &p, &r->tr, NULL);
	if (cli_cost(paths, store, o, s, w, &r->tr, NULL, &r->cost, e) != 0)
		return e->code;
	if (!r->tr.feasible) {
		r->klass = 4;
		r->key = 0;
	} else if (r->cost.result.ok && isfinite(r->cost.result.usd_per_unit)) {
		r->klass = budget > 0 && r->cost.result.usd_per_unit > budget ? 2 : 0;
		r->key = r->cost.result.usd_per_unit;
	} else {
		r->klass = 1;
		r->key = r->tr.train_time;
	}
	plan_format(&r->tr.plan, r->plan, sizeof r->plan);
	{
		size_t l = strlen(r->plan);
		snprintf(r->plan + l, sizeof r->plan - l, " zero=%d %s", w->zero, wl_recompute_names[w->recompute]);
	}
	train_bound(&r->tr, s, r->bound, sizeof r->bound);
	r->rep.train = &r->tr;
	return 0;
}

static void verdicts(row *rows, int n, const wl_workload *w, double budget)
{
	const row *best = n > 0 ? &rows[0] : NULL;
	const char *unit = cost_unit_names[w->cost.unit];
	for (int i = 0; i < n; i++) {
		row *r = &rows[i];
		const cost_result *cr = &r->cost.result;
		switch (r->klass) {
		case 0:
			if (i == 0)
				snprintf(r->verdict, sizeof r->verdict, "cheapest per %s%s", unit,
					 w->mode == WL_INFER ? " at the SLO" : "");
			else
				snprintf(r->verdict, sizeof r->verdict, "+%.0f%% per %s: $%.2f/h for %.4g %s, bound by %s",
					 100 * (cr->usd_per_unit / best->cost.result.usd_per_unit - 1), unit,
					 cr->usd_per_hour, w->mode == WL_INFER ? r->ir.tokens_per_s : r->tr.tokens_per_s,
					 "tokens/s", r->bound);
			break;
		case 1:
			snprintf(r->verdict, sizeof r->verdict, "no price: %s", r->cost.note);
			break;
		case 2:
			snprintf(r->verdict, sizeof r->verdict, "over the budget: $%.4g > $%.4g %s",
				 w->mode == WL_INFER ? cr->usd_per_hour : cr->usd_per_unit, budget,
				 w->mode == WL_INFER ? "per hour" : "per run");
			break;
		case 3:
			snprintf(r->verdict, sizeof r->verdict,
				 "misses the latency limits at every layout tried: best p%g TPOT %.1f ms, TTFT %.0f ms "
				 "against %.0f / %.0f ms", w->slo_percentile, r->ir.tpot_tail * 1e3, r->ir.ttft_tail * 1e3,
				 w->tpot_slo * 1e3, w->ttft_slo * 1e3);
			break;
		default:
			snprintf(r->verdict, sizeof r->verdict, "infeasible: %s",
				 w->mode == WL_INFER ? r->ir.reason : r->tr.reason);
		}
		if (r->klass == 1 && w->mode == WL_INFER && i > 0 && rows[0].klass == 1) {
			size_t l = strlen(r->verdict);
			snprintf(r->verdict + l, sizeof r->verdict - l, "; %.0f%% of the best tokens/s per chip",
				 100 * r->ir.tokens_per_s_per_chip / rows[0].ir.tokens_per_s_per_chip);
		}
	}
}

int cmd_compare(int argc, char **argv, const cli_paths *paths)
{
	enum { O_BUDGET = 4000 };
	static const struct option longopts[] = {CLI_EVAL_LONGOPTS, CLI_COST_LONGOPTS,
						 {"budget", required_argument, NULL, O_BUDGET}, {NULL, 0, NULL, 0}};
	cli_eval_opts o;
	err e = {0};
	db *store = NULL;
	wl_workload *w = malloc(sizeof *w), *w0 = malloc(sizeof *w0);
	row *rows = NULL;
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
	if (!w || !w0) {
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
		row *r = &rows[nrows];
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
		*w = *w0;
		r->rep.sys = r->sys;
		if (w->mode == WL_INFER)
			rc = best_serving(paths, &store, &o, w, &p, cmin, cmax, budget, r, &e);
		else
			rc = best_training(paths, &store, &o, w, &p, budget, r, &e);
		if (rc != 0)
			break;
		r->rep.w = w0;
	}
	if (rc != 0) {
		rc = cli_fail(&e);
		goto done;
	}
	(void)chips_text;
	qsort(rows, (size_t)nrows, sizeof *rows, cmp_rows);
	for (int i = 0; i < nrows; i++) {
		/* qsort moved the rows: re-point the reports at their own results. */
		rows[i].rep.sys = rows[i].sys;
		rows[i].rep.w = w0;
		rows[i].rep.train = w0->mode == WL_TRAIN ? &rows[i].tr : NULL;
		rows[i].rep.infer = w0->mode == WL_INFER ? &rows[i].ir : NULL;
		rows[i].rep.cost = &rows[i].cost;
	}
	verdicts(rows, nrows, w0, budget);
	if (o.format == OUT_JSON) {
		cJSON *root = cJSON_CreateObject(), *arr;
		char *s;
		cJSON_AddStringToObject(root, "workload", w0->name);
		cJSON_AddStringToObject(root, "unit", cost_unit_names[w0->cost.unit]);
		cJSON_AddStringToObject(root, "comm_note", report_comm_note);
		arr = cJSON_AddArrayToObject(root, "systems");
		for (int i = 0; i < nrows; i++) {
			cJSON *j = report_json(&rows[i].rep);
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
			row *r = &rows[i];
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
			char terms[REPORT_NOTE_MAX];
			report_terms_text(&rows[0].cost, w0->mode == WL_TRAIN, terms, sizeof terms);
			printf("prices: the newest%s%s in the store %s, per chip-hour; assumptions: %s\n",
			       o.as_of ? " at or before " : "", o.as_of ? o.as_of : "", paths->db, terms);
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
	free(w);
	free(w0);
	return rc;
}
