/* cmd_roofline: `roofcost roofline` - the per-op roofline table of one evaluation. */
#include <cJSON.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "lib/evaluate.h"
#include "engine/ops.h"
#include "engine/roof.h"

const char roofline_usage[] =
	"usage: roofcost roofline -s SYSTEM -w WORKLOAD [--chips N] [--plan ...] [--set KEY=VALUE]...\n"
	"                         [--format table|csv|json|md] [--wide]\n\n"
	"Per-op roofline of one chip: for training the ops of one micro-batch on the bottleneck\n"
	"pipeline stage and the optimizer step; for inference the prefill and one decode step.\n"
	"Columns: stage, op, phase, kind, shape (m x n x k, x instances), runs, FLOPs and bytes per\n"
	"run, arithmetic intensity (FLOP/B), the bound (compute, memory or per-kernel overhead), the\n"
	"compute efficiency used, time of all runs and its share of the stage.\n\n" CLI_EVAL_USAGE
	CLI_TABLE_USAGE;

static const char *const cols[] = {"stage", "op", "phase", "kind", "shape", "runs", "gflop",
				   "mbytes", "flop_per_byte", "bound", "eff", "time_us", "share_pct"};
enum { NCOLS = (int)(sizeof cols / sizeof cols[0]) };

static void add_ops(const hw_chip *c, const char *stage, const ops_list *l, out_table *t, cJSON *arr)
{
	roof_time rt[OPS_MAX];
	roof_sum s = roof_list(c, l, rt);
	for (int i = 0; i < l->n; i++) {
		const ops_op *o = &l->op[i];
		char shape[96], runs[32], gf[32], mb[32], ai[32], eff[32], tus[32], sh[32];
		double t_all = rt[i].t * o->count;
		double share = s.t > 0 ? 100 * t_all / s.t : 0;
		if (o->kind == OPS_GEMM || o->kind == OPS_ATTN)
			snprintf(shape, sizeof shape, "%.6g x %.6g x %.6g%s%.4g", o->m, o->n, o->k,
				 o->batch != 1 ? " x" : "", o->batch != 1 ? o->batch : 0.0);
		else
			snprintf(shape, sizeof shape, "%.6g elems", o->m);
		if (o->batch == 1 && (o->kind == OPS_GEMM || o->kind == OPS_ATTN))
			snprintf(shape, sizeof shape, "%.6g x %.6g x %.6g", o->m, o->n, o->k);
		out_num(runs, sizeof runs, o->count, 3);
		out_num(gf, sizeof gf, o->flops / 1e9, 4);
		out_num(mb, sizeof mb, o->bytes / 1e6, 4);
		out_num(ai, sizeof ai, o->bytes > 0 ? o->flops / o->bytes : 0, 3);
		out_num(eff, sizeof eff, rt[i].eff, 3);
		out_num(tus, sizeof tus, t_all * 1e6, 4);
		snprintf(sh, sizeof sh, "%.1f", share);
		if (t) {
			const char *cells[NCOLS] = {stage, o->name, ops_phase_names[o->phase],
						    ops_kind_names[o->kind], shape, runs, gf, mb, ai,
						    roof_bound_names[rt[i].bound], eff, tus, sh};
			out_row(t, cells);
		}
		if (arr) {
			cJSON *j = cJSON_CreateObject();
			cJSON_AddStringToObject(j, "stage", stage);
			cJSON_AddStringToObject(j, "op", o->name);
			cJSON_AddStringToObject(j, "phase", ops_phase_names[o->phase]);
			cJSON_AddStringToObject(j, "kind", ops_kind_names[o->kind]);
			cJSON_AddNumberToObject(j, "m", o->m);
			cJSON_AddNumberToObject(j, "n", o->n);
			cJSON_AddNumberToObject(j, "k", o->k);
			cJSON_AddNumberToObject(j, "instances", o->batch);
			cJSON_AddNumberToObject(j, "runs", o->count);
			cJSON_AddNumberToObject(j, "flops", o->flops);
			cJSON_AddNumberToObject(j, "bytes", o->bytes);
			cJSON_AddNumberToObject(j, "intensity", o->bytes > 0 ? o->flops / o->bytes : 0);
			cJSON_AddStringToObject(j, "bound", roof_bound_names[rt[i].bound]);
			cJSON_AddStringToObject(j, "precision", hw_prec_names[rt[i].run_prec]);
			cJSON_AddNumberToObject(j, "efficiency", rt[i].eff);
			cJSON_AddNumberToObject(j, "compute_s", rt[i].t_compute);
			cJSON_AddNumberToObject(j, "memory_s", rt[i].t_memory);
			cJSON_AddNumberToObject(j, "time_s", t_all);
			cJSON_AddNumberToObject(j, "share", share / 100);
			cJSON_AddItemToArray(arr, j);
		}
	}
}

int cmd_roofline(int argc, char **argv, const home_paths *paths)
{
	static const struct option longopts[] = {CLI_EVAL_LONGOPTS, CLI_TABLE_LONGOPTS, {NULL, 0, NULL, 0}};
	setup_opts o;
	err e = {0};
	hw_system *sys = malloc(sizeof *sys);
	wl_workload *w = malloc(sizeof *w);
	ops_list *a = malloc(sizeof *a), *b = malloc(sizeof *b);
	plan p;
	int c, rc = 0;

	memset(&o, 0, sizeof o);
	if (!sys || !w || !a || !b) {
		err_set(&e, ERR_DATA, "out of memory");
		rc = cli_fail(&e);
		goto done;
	}
	optind = 1;
	while ((c = getopt_long(argc, argv, "s:w:h", longopts, NULL)) != -1) {
		int h;
		if (c == 'h') {
			fputs(roofline_usage, stdout);
			goto done;
		}
		h = cli_eval_option(c, optarg, &o, &e);
		if (h <= 0) {
			rc = cli_option_rc(h, roofline_usage, &e);
			goto done;
		}
	}
	if (optind < argc) {
		err_set(&e, ERR_USAGE, "roofline: unexpected argument '%s'", argv[optind]);
		rc = cli_fail(&e);
		goto done;
	}
	if (setup_load(paths, &o, o.system, sys, w, &p, &e) != 0) {
		rc = cli_fail(&e);
		goto done;
	}
	{
		out_table t;
		cJSON *root = NULL, *arr = NULL;
		const char *s1, *s2;
		evaluate_ops(sys, w, &p, a, b, &s1, &s2);
		if (o.format == OUT_JSON) {
			char pl[128];
			root = cJSON_CreateObject();
			plan_format(&p, pl, sizeof pl);
			cJSON_AddStringToObject(root, "system", sys->name);
			cJSON_AddStringToObject(root, "chip", sys->chip.name);
			cJSON_AddStringToObject(root, "workload", w->name);
			cJSON_AddStringToObject(root, "plan", pl);
			arr = cJSON_AddArrayToObject(root, "ops");
			add_ops(&sys->chip, s1, a, NULL, arr);
			if (s2)
				add_ops(&sys->chip, s2, b, NULL, arr);
			{
				char *txt = cJSON_Print(root);
				puts(txt);
				free(txt);
			}
			cJSON_Delete(root);
		} else {
			char pl[128];
			out_init(&t, NCOLS, cols);
			out_wide(&t, o.wide);
			out_optional(&t, 3, 1); /* kind: the op's name says it */
			for (int i = 5; i < NCOLS; i++)
				if (i != 9)
					out_right(&t, i);
			add_ops(&sys->chip, s1, a, &t, NULL);
			if (s2)
				add_ops(&sys->chip, s2, b, &t, NULL);
			plan_format(&p, pl, sizeof pl);
			if (o.format == OUT_TABLE)
				printf("%s on one %s (%s), %s; time = max(FLOPs / (peak x eff), bytes / "
				       "(%.3g TB/s x %.2f), %.3g us per kernel)\n",
				       w->name, sys->chip.name, sys->name, pl, sys->chip.hbm_bw / 1e12,
				       sys->chip.hbm_eff, sys->chip.op_overhead * 1e6);
			out_print(&t, o.format, stdout);
			out_release(&t);
		}
	}
done:
	free(sys);
	free(w);
	free(a);
	free(b);
	return rc;
}
