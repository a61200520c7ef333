/* cmd_eval: `roofcost eval` - one evaluation with its breakdown. */
#include <cJSON.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "lib/evaluate.h"
#include "engine/infer.h"
#include "report/show.h"
#include "engine/train.h"

const char eval_usage[] =
	"usage: roofcost eval -s SYSTEM -w WORKLOAD [--chips N] [--plan tp=8,pp=4,...]\n"
	"                     [--set KEY=VALUE]... [--pricing MODEL] [--as-of DATE]\n"
	"                     [--price SYS=USD]... [--discount [KEY=]PCT]... [--capex SYS=USD[/CHIPS]]...\n"
	"                     [--loads LIST] [--frontier]\n"
	"                     [--disagg SPLIT]\n"
	"                     [--format table|csv|json|md]\n\n"
	"Evaluates one workload on one system with one parallel layout: memory per chip and why a\n"
	"layout does not fit; for training the step time, tokens/s, TFLOP/s per chip, MFU and HFU,\n"
	"and the goodput under failures; for inference TTFT, TPOT and output tokens/s; which bound\n"
	"applies and where each hardware figure came from. With the system's price from the store:\n"
	"USD per hour and per delivered unit (a training run, a million output tokens, an example),\n"
	"and the assumptions behind them (the workload's [cost] section).\n\n"
	"--loads gives a serving workload's load curve: at each number of requests in flight (a closed\n"
	"loop over all replicas: a new request as one finishes) TTFT and TPOT (mean and p99), tokens/s\n"
	"per chip and per user (1 / TPOT), and how many wait for admission once the server's batch is\n"
	"full. LIST is numbers and ranges: 1,2,4,8 or 1-250 (every whole number) or 8-256:8 (a step).\n\n"
	"--frontier gives the system's serving frontier: every layout compare searches (replicas\n"
	"filling the plan's chips) at every load of the workload's scenario (requests in flight, or\n"
	"Poisson arrivals up to what the server completes), and the points no other beats in output\n"
	"tokens/s per chip (or USD per unit) at the same or a higher speed per user; the table shows\n"
	"those and the best point at the latency limits, csv and json every point with its layout.\n\n"
	CLI_EVAL_USAGE CLI_COST_USAGE
	"      --loads LIST       the load curve at these requests in flight (serving)\n"
	"      --frontier         every layout and load, and the frontier over them (serving)\n"
	CLI_DISAGG_USAGE;

enum { LOADS_MAX = 4096 };

/* "1,2,4", "1-250", "8-256:8" (mixed by commas) into out; returns the count or -1. */
static int parse_loads(const char *arg, double *out, int max)
{
	int n = 0;
	const char *p = arg;
	while (*p) {
		char *end;
		double a = strtod(p, &end), b, step = 1;
		if (end == p || !(a >= 1) || a > 1e7)
			return -1;
		p = end;
		b = a;
		if (*p == '-') {
			b = strtod(p + 1, &end);
			if (end == p + 1 || !(b >= a) || b > 1e7)
				return -1;
			p = end;
			if (*p == ':') {
				step = strtod(p + 1, &end);
				if (end == p + 1 || !(step > 0))
					return -1;
				p = end;
			}
		}
		for (double x = a; x <= b + 1e-9; x += step) {
			if (n == max)
				return -1;
			out[n++] = x;
		}
		if (*p == ',')
			p++;
		else if (*p)
			return -1;
	}
	return n;
}

static const char *const curve_hdr[] = {"load", "running", "waiting", "wait_ms", "ttft_ms", "ttft_p99_ms",
					"tpot_ms", "tpot_p99_ms", "tokens_per_s", "tokens_per_s_per_chip",
					"tokens_per_s_per_user"};
enum { CURVE_COLS = (int)(sizeof curve_hdr / sizeof curve_hdr[0]) };

static void curve_values(const infer_load *o, double v[CURVE_COLS])
{
	double x[CURVE_COLS] = {o->load, o->running, o->waiting, o->wait * 1e3, o->ttft.mean * 1e3,
				o->ttft.p99 * 1e3, o->tpot.mean * 1e3, o->tpot.p99 * 1e3, o->tokens_per_s,
				o->tokens_per_s_per_chip, o->tokens_per_s_per_user};
	memcpy(v, x, sizeof x);
}

/* Where the batch fills and what the curve does beyond it. */
static void curve_note(const infer_result *r, const infer_load *o, int n, int dp, char *buf, size_t len)
{
	int k = -1;
	for (int i = 0; i < n && k < 0; i++)
		if (o[i].saturated)
			k = i;
	if (k < 0) {
		snprintf(buf, len, "the server holds up to %.0f requests per replica (%s): no load here fills it; "
			 "throughput grows with load while TPOT grows with the batch", r->cap, r->cap_reason);
		return;
	}
	snprintf(buf, len, "from %.0f requests in flight the server's batch is full: it holds %.0f per replica (%s); "
		 "the rest wait for admission, so TTFT grows by %.0f ms per extra request while throughput stays at "
		 "%.0f tokens/s (%.1f per chip) and TPOT at %.1f ms", o[k].load, r->cap, r->cap_reason,
		 1e3 / (o[k].requests_per_s > 0 ? o[k].requests_per_s : 1), o[k].tokens_per_s, o[k].tokens_per_s_per_chip,
		 o[k].tpot.mean * 1e3);
	(void)dp;
}

/* Where the stack's peer-to-peer all-reduce gives way to the library's along the curve: a step
 * the model states (infer_load.allreduce_library). */
static void curve_allreduce_note(const wl_workload *w, const infer_load *o, int n, char *buf, size_t len)
{
	size_t l = strlen(buf);
	for (int i = 1; i < n && l < len; i++) {
		int now = o[i].allreduce_library & ~o[i - 1].allreduce_library;
		if (now)
			l += (size_t)snprintf(buf + l, len - l, "; from %.0f requests in flight the %s iterations' tensor-parallel "
					      "all-reduce passes the %.3g MiB the stack's peer-to-peer kernels take (allreduce_max, %s) "
					      "and runs the library's, a step in the curve", o[i].load,
					      now & 1 ? "prompt-carrying" : "decode", w->fw.serve.allreduce_max / 1048576,
					      w->fw.name);
	}
}

static int print_curve(const hw_system *sys, const wl_workload *w, const plan *p, const infer_result *r,
		       const double *loads, int n, out_format f, void *json)
{
	infer_load *o = calloc((size_t)n, sizeof *o);
	char note[1024], reason[INFER_REASON_MAX];
	if (!o)
		return -1;
	evaluate_curve(sys, w, p, loads, n, o, reason, sizeof reason);
	curve_note(r, o, n, p->dp, note, sizeof note);
	curve_allreduce_note(w, o, n, note, sizeof note);
	if (f == OUT_JSON) {
		cJSON *c = cJSON_CreateObject(), *pts = cJSON_CreateArray();
		cJSON_AddNumberToObject(c, "cap_per_replica", r->cap);
		cJSON_AddStringToObject(c, "cap_reason", r->cap_reason);
		cJSON_AddStringToObject(c, "load_unit", "requests in flight, all replicas (closed loop)");
		cJSON_AddStringToObject(c, "note", note);
		for (int i = 0; i < n; i++) {
			cJSON *q = cJSON_CreateObject();
			double v[CURVE_COLS];
			curve_values(&o[i], v);
			for (int k = 0; k < CURVE_COLS; k++)
				cJSON_AddNumberToObject(q, curve_hdr[k], v[k]);
			cJSON_AddNumberToObject(q, "ttft_p50_ms", o[i].ttft.p50 * 1e3);
			cJSON_AddNumberToObject(q, "ttft_p90_ms", o[i].ttft.p90 * 1e3);
			cJSON_AddNumberToObject(q, "tpot_p50_ms", o[i].tpot.p50 * 1e3);
			cJSON_AddNumberToObject(q, "tpot_p90_ms", o[i].tpot.p90 * 1e3);
			cJSON_AddBoolToObject(q, "saturated", o[i].saturated);
			cJSON_AddItemToArray(pts, q);
		}
		cJSON_AddItemToObject(c, "points", pts);
		cJSON_AddItemToObject((cJSON *)json, "load_curve", c);
	} else {
		out_table t;
		out_init(&t, CURVE_COLS, curve_hdr);
		for (int k = 0; k < CURVE_COLS; k++)
			out_right(&t, k);
		for (int i = 0; i < n; i++) {
			char buf[CURVE_COLS][32];
			const char *cells[CURVE_COLS];
			double v[CURVE_COLS];
			curve_values(&o[i], v);
			for (int k = 0; k < CURVE_COLS; k++) {
				if (k == 0)
					snprintf(buf[k], sizeof buf[k], "%.0f", v[k]);
				else
					out_num(buf[k], sizeof buf[k], v[k], 4);
				cells[k] = buf[k];
			}
			out_row(&t, cells);
		}
		if (f == OUT_TABLE)
			printf("\nload curve (requests in flight over all replicas, closed loop):\n");
		out_print(&t, f, stdout);
		out_release(&t);
		if (f == OUT_TABLE)
			printf("%s\n", note);
	}
	free(o);
	return 0;
}

static const char *const front_hdr[] = {"layout", "chips", "load", "running", "tokens_per_s_per_user",
					"tokens_per_s_per_chip", "ttft_ms", "ttft_tail_ms", "tpot_ms", "tpot_tail_ms",
					"usd_per_unit", "slo_met", "front", "cost_front", "chosen"};
enum { FRONT_COLS = (int)(sizeof front_hdr / sizeof front_hdr[0]) };

/* The load of a frontier point in words, for the header. */
static const char *front_load_unit(const wl_workload *w)
{
	return w->scenario == WL_SERVER || w->scenario == WL_INTERACTIVE
		       ? "requests/s over all replicas (Poisson arrivals, the workload's scenario)"
		       : "requests in flight over all replicas (a closed loop)";
}

/* The best point at the latency limits: the cheapest (else the most tokens/s per chip) of the
 * layouts' operating points that meet them; -1 when none does. */
static int front_best(const rank_frontier_set *f)
{
	int best = -1;
	for (int i = 0; i < f->n; i++) {
		const frontier_point *q = &f->pts[i], *b = best >= 0 ? &f->pts[best] : NULL;
		if (!q->chosen || !q->slo_met)
			continue;
		if (!b || (f->priced ? q->usd_per_unit < b->usd_per_unit : q->per_chip > b->per_chip))
			best = i;
	}
	return best;
}

static void front_cells(const frontier_point *q, char buf[FRONT_COLS][48])
{
	double v[] = {q->load, q->running, q->per_user, q->per_chip, q->ttft * 1e3, q->ttft_tail * 1e3,
		      q->tpot * 1e3, q->tpot_tail * 1e3, q->usd_per_unit};
	plan_format(&q->plan, buf[0], 48);
	snprintf(buf[1], 48, "%d", q->plan.chips);
	for (int k = 0; k < 9; k++) {
		if (isfinite(v[k]))
			out_num(buf[k + 2], 48, v[k], 4);
		else
			snprintf(buf[k + 2], 48, "-");
	}
	snprintf(buf[11], 48, "%d", q->slo_met);
	snprintf(buf[12], 48, "%d", q->front);
	snprintf(buf[13], 48, "%d", q->cost_front);
	snprintf(buf[14], 48, "%d", q->chosen);
}

/* eval --frontier: the table (frontier points only) or every point (csv, json). */
static int print_frontier(const home_paths *paths, db **store, const setup_opts *o, const hw_system *sys,
			  const wl_workload *w, const plan *p, void *json, err *e)
{
	rank_frontier_set *f = malloc(sizeof *f);
	int best, nfront = 0;
	if (!f)
		return err_set(e, ERR_DATA, "out of memory");
	if (evaluate_frontier(paths, store, o, sys, w, p, f, e) != 0) {
		free(f);
		return e->code;
	}
	best = front_best(f);
	for (int i = 0; i < f->n; i++)
		nfront += f->pts[i].front;
	if (o->format == OUT_JSON) {
		cJSON *c = cJSON_CreateObject(), *pts = cJSON_CreateArray();
		cJSON_AddNumberToObject(c, "layouts", f->nlayouts);
		cJSON_AddNumberToObject(c, "chips", p->chips);
		cJSON_AddStringToObject(c, "load_unit", front_load_unit(w));
		for (int i = 0; i < f->n; i++) {
			const frontier_point *q = &f->pts[i];
			cJSON *j = cJSON_CreateObject(), *pl = cJSON_CreateObject();
			char lay[48];
			plan_format(&q->plan, lay, sizeof lay);
			cJSON_AddStringToObject(j, "layout", lay);
			cJSON_AddNumberToObject(pl, "tp", q->plan.tp);
			cJSON_AddNumberToObject(pl, "pp", q->plan.pp);
			cJSON_AddNumberToObject(pl, "dp", q->plan.dp);
			cJSON_AddNumberToObject(pl, "ep", q->plan.ep);
			cJSON_AddItemToObject(j, "plan", pl);
			cJSON_AddNumberToObject(j, "chips", q->plan.chips);
			cJSON_AddNumberToObject(j, "load", q->load);
			cJSON_AddNumberToObject(j, "running", q->running);
			cJSON_AddNumberToObject(j, "tokens_per_s", q->tokens_per_s);
			cJSON_AddNumberToObject(j, "tokens_per_s_per_user", q->per_user);
			cJSON_AddNumberToObject(j, "tokens_per_s_per_chip", q->per_chip);
			cJSON_AddNumberToObject(j, "ttft_ms", q->ttft * 1e3);
			cJSON_AddNumberToObject(j, "ttft_tail_ms", q->ttft_tail * 1e3);
			cJSON_AddNumberToObject(j, "tpot_ms", q->tpot * 1e3);
			cJSON_AddNumberToObject(j, "tpot_tail_ms", q->tpot_tail * 1e3);
			if (isfinite(q->usd_per_unit))
				cJSON_AddNumberToObject(j, "usd_per_unit", q->usd_per_unit);
			else
				cJSON_AddNullToObject(j, "usd_per_unit");
			cJSON_AddBoolToObject(j, "slo_met", q->slo_met);
			cJSON_AddBoolToObject(j, "front", q->front);
			cJSON_AddBoolToObject(j, "cost_front", q->cost_front);
			cJSON_AddBoolToObject(j, "chosen", q->chosen);
			cJSON_AddBoolToObject(j, "best", i == best);
			cJSON_AddItemToArray(pts, j);
		}
		cJSON_AddItemToObject(c, "points", pts);
		cJSON_AddItemToObject((cJSON *)json, "frontier", c);
	} else {
		out_table t;
		out_init(&t, FRONT_COLS, front_hdr);
		for (int k = 1; k < 11; k++)
			out_right(&t, k);
		for (int i = 0; i < f->n; i++) {
			char buf[FRONT_COLS][48];
			const char *cells[FRONT_COLS];
			/* The table shows the frontier and the best point; csv and md every point. */
			if (o->format == OUT_TABLE && !f->pts[i].front && !f->pts[i].cost_front && i != best)
				continue;
			front_cells(&f->pts[i], buf);
			for (int k = 0; k < FRONT_COLS; k++)
				cells[k] = buf[k];
			out_row(&t, cells);
		}
		if (o->format == OUT_TABLE)
			printf("\nfrontier of %s on %s: %d layouts (replicas filling %d chips), %d points, %d on the frontier "
			       "of tokens/s per chip against tokens/s per user; load in %s:\n",
			       w->name, sys->name, f->nlayouts, p->chips, f->n, nfront, front_load_unit(w));
		out_print(&t, o->format, stdout);
		out_release(&t);
		if (o->format == OUT_TABLE) {
			if (best >= 0) {
				const frontier_point *q = &f->pts[best];
				char lay[48], usd[48] = "";
				plan_format(&q->plan, lay, sizeof lay);
				if (isfinite(q->usd_per_unit))
					snprintf(usd, sizeof usd, ", $%.4g per %s", q->usd_per_unit, cost_unit_text[w->cost.unit]);
				printf("best at the latency limits: %s on %d chips, %.4g tokens/s per chip at %.4g tokens/s per "
				       "user%s\n", lay, q->plan.chips, q->per_chip, q->per_user, usd);
			} else {
				printf("no layout meets the latency limits at any load\n");
			}
		}
	}
	free(f);
	return 0;
}

/* eval --disagg: the split asked for (rank_disagg: searched within the plan's chips or the
 * scale-up domain), priced like the aggregated result. */

int cmd_eval(int argc, char **argv, const home_paths *paths)
{
	enum { OPT_LOADS = 2100, OPT_FRONTIER, OPT_DISAGG };
	static const struct option longopts[] = {CLI_EVAL_LONGOPTS, CLI_COST_LONGOPTS,
						 {"loads", required_argument, NULL, OPT_LOADS},
						 {"frontier", no_argument, NULL, OPT_FRONTIER},
						 {"disagg", required_argument, NULL, OPT_DISAGG}, {NULL, 0, NULL, 0}};
	double *loads = NULL;
	int nloads = 0, frontier = 0;
	char disagg[PLAN_DISAGG_TEXT_MAX + 8];
	setup_opts o;
	db *store = NULL;
	err e = {0};
	evaluate_result *ev = calloc(1, sizeof *ev);
	hw_system *sys;
	wl_workload *w;
	plan p;
	int c, rc = 0;

	setup_init(&o);
	if (!ev) {
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
		if (c == OPT_FRONTIER) {
			frontier = 1;
			continue;
		}
		if (c == OPT_DISAGG) {
			snprintf(disagg, sizeof disagg, "disagg=%s", optarg);
			if (cli_eval_option(CLI_OPT_SET, disagg, &o, &e) <= 0) {
				rc = cli_fail(&e);
				goto done;
			}
			continue;
		}
		if (c == OPT_LOADS) {
			if (!loads)
				loads = malloc(sizeof *loads * LOADS_MAX);
			nloads = loads ? parse_loads(optarg, loads, LOADS_MAX) : -1;
			if (nloads < 1) {
				err_set(&e, ERR_USAGE, "--loads: '%s' is not a list of loads >= 1 like 1,2,4 or 1-250 or 8-256:8 (at most %d)",
					optarg, LOADS_MAX);
				rc = cli_fail(&e);
				goto done;
			}
			continue;
		}
		h = cli_eval_option(c, optarg, &o, &e);
		if (h <= 0) {
			rc = cli_option_rc(h, eval_usage, &e);
			goto done;
		}
	}
	if (optind < argc) {
		err_set(&e, ERR_USAGE, "eval: unexpected argument '%s'", argv[optind]);
		rc = cli_fail(&e);
		goto done;
	}
	if (evaluate_run(paths, &store, &o, nloads > 0 || frontier ? (frontier ? "--frontier" : "--loads") : NULL, ev,
			 &e) != 0) {
		rc = cli_fail(&e);
		goto done;
	}
	sys = ev->sys;
	w = ev->w;
	p = ev->plan;
	if (o.format == OUT_TABLE) {
		show_text(&ev->rep, stdout);
		if (ev->has_disagg) {
			printf("\n");
			show_disagg_text(w, ev->dis, ev->dcost, &ev->ir, stdout);
		}
		if (nloads > 0)
			print_curve(sys, w, &p, &ev->ir, loads, nloads, o.format, NULL);
		if (frontier && (rc = print_frontier(paths, &store, &o, sys, w, &p, NULL, &e)) != 0)
			rc = cli_fail(&e);
	} else if ((nloads > 0 || frontier) && o.format != OUT_JSON) {
		if (nloads > 0)
			print_curve(sys, w, &p, &ev->ir, loads, nloads, o.format, NULL);
		if (frontier && (rc = print_frontier(paths, &store, &o, sys, w, &p, NULL, &e)) != 0)
			rc = cli_fail(&e);
	} else {
		cJSON *j = evaluate_json(ev);
		if (nloads > 0)
			print_curve(sys, w, &p, &ev->ir, loads, nloads, o.format, j);
		if (frontier && print_frontier(paths, &store, &o, sys, w, &p, j, &e) != 0) {
			rc = cli_fail(&e);
			cJSON_Delete(j);
			goto done;
		}
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
	free(loads);
	db_close(store);
	evaluate_release(ev);
	free(ev);
	return rc;
}
