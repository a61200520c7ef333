/* cmd_sweep: `roofcost sweep` - layouts × chip counts × systems × pricing models, streamed into
 * a Pareto front (USD per run against time to train) and the top k; `--shard I/N` runs one
 * slice, `--merge FILE...` joins the JSON of the slices. */
#include <cJSON.h>
#include <limits.h>
#include <getopt.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>
#include <unistd.h>

#include "cli/cli.h"
#include "lib/search.h"
#include "base/lim.h"
#include "base/opt.h"
#include "store/db.h"
#include "report/show.h"
#include "engine/sweep.h"
#include "base/os.h"

const char sweep_usage[] =
	"usage: roofcost sweep -w WORKLOAD -s SYS1,SYS2,...|all [--chips LIST] [--tp LIST] [--pp LIST]\n"
	"                      [--vpp LIST] [--cp LIST] [--ep LIST] [--sp LIST] [--mb LIST] [--zero LIST]\n"
	"                      [--recompute LIST] [--pricing MODEL,...|all] [--top K] [--threads N]\n"
	"                      [--shard I/N] [--max-layouts N] [--set KEY=VALUE]... [--as-of DATE]\n"
	"                      [--price SYS=USD]... [--discount [KEY=]PCT]... [--capex SYS=USD[/CHIPS]]...\n"
	"                      [--format table|csv|json|md]\n"
	"                      [--table top|pareto|both] [--wide]\n"
	"       roofcost sweep --merge SHARD.json... [--top K] [--format ...]\n\n"
	"Searches training layouts (tp, pp, vpp, dp = chips / (tp*pp*cp), cp, ep, sequence parallelism,\n"
	"micro-batch, ZeRO stage, recompute) over chip counts, systems and pricing models, prunes what\n"
	"cannot divide or fit, and keeps in constant memory the Pareto front of USD per run (goodput\n"
	"included) against time to train, and the k cheapest layouts (chip-hours where no price).\n"
	"LIST is 1,2,4 or a range 8-64 (powers of two) or 8-64:8 (a step). Defaults: chips from the\n"
	"workload's plan, tp 1 to a node, pp 1-16, vpp 1,2, cp 1, ep 1 (1 to the experts for MoE),\n"
	"sp 0,1, mb 1,2,4, zero 0-3, recompute none,selective,full, the workload's pricing model.\n"
	"The size of the space goes to stderr before the sweep starts, and a progress bar when it is a\n"
	"terminal; a space beyond --max-layouts is refused. --shard I/N (0 <= I < N) evaluates the\n"
	"I-th of N equal slices, for array jobs of a batch scheduler; --format json of each slice,\n"
	"then --merge, gives exactly the unsharded answer (the slices must be one complete set: each of\n"
	"0..N-1 once, of one space). CSV is one table with a list column (top or pareto); --table\n"
	"picks one of the two lists in any format.\n\n"
	"  -s, --system LIST      systems, or all\n"
	"  -w, --workload NAME    a training workload\n"
	"      --top K            rows of the top list (default 10)\n"
	"      --table LIST       top, pareto or both (default)\n"
	"      --threads N        worker threads (default: the cores)\n"
	"      --shard I/N        this slice of the space\n"
	"      --max-layouts N    refuse a slice larger than N (default 1000000000)\n"
	"      --merge            the arguments are shard outputs to join\n"
	"      --set KEY=VALUE    override a workload key (repeatable)\n"
	"      --pricing LIST     pricing models, or all\n"
	"      --as-of DATE       the newest prices at or before DATE\n"
	"      --price SYS=USD    your own price for system SYS, USD per chip-hour (repeatable)\n"
	"      --discount [KEY=]PCT  take PCT percent off catalog prices: every system's (30), a provider's\n"
	"                         (aws=30,gcp=20) or one system's or instance's; the most specific applies\n"
	"      --capex SYS=USD[/CHIPS]  your own purchase quote for SYS (pricing owned)\n"
	"      --format FMT       table | csv | json | md\n" CLI_TABLE_USAGE
	"  -h, --help             this text\n";




static void progress(void *ctx, uint64_t done, uint64_t total)
{
	(void)ctx;
	fprintf(stderr, "\rsweep %5.1f%% (%llu of %llu layouts)", 100.0 * (double)done / (double)total,
		(unsigned long long)done, (unsigned long long)total);
	fflush(stderr);
}








/* A row of the sweep's table for point p of list `list` ("top" or "pareto"). */
static void point_row(out_table *t, const sweep_point *p, int rank, const char *list, const search_names *nm,
		      int with_list, int csv)
{
	char v[11][48], pl[128];
	const char *cells[17];
	int k = 0;
	plan_format(&p->plan, pl, sizeof pl);
	snprintf(v[0], 48, "%d", rank);
	snprintf(v[1], 48, "%d", p->plan.chips);
	snprintf(v[2], 48, "%d", p->zero);
	snprintf(v[3], 48, "%.1f", p->mem_gib);
	snprintf(v[4], 48, "%.3f", p->step_time);
	snprintf(v[5], 48, "%.1f", 100 * p->mfu);
	snprintf(v[6], 48, "%.1f", 100 * p->goodput);
	snprintf(v[7], 48, "%.1f", p->run_time / 86400);
	snprintf(v[8], 48, isfinite(p->usd_per_run) ? "%.0f" : "-", p->usd_per_run);
	snprintf(v[9], 48, "%.0f", p->chip_hours);
	snprintf(v[10], 48, isfinite(nm->usd[p->offer]) ? "%.6g" : "-", nm->usd[p->offer]);
	if (with_list)
		cells[k++] = list;
	cells[k++] = v[0];
	cells[k++] = nm->system[p->offer];
	cells[k++] = nm->pricing[p->offer];
	cells[k++] = v[1];
	cells[k++] = pl;
	cells[k++] = v[2];
	cells[k++] = search_recompute_names[p->recompute];
	for (int i = 3; i < 10; i++)
		cells[k++] = v[i];
	if (csv) {
		cells[k++] = v[10];
		cells[k++] = nm->assumptions;
	}
	out_row(t, cells);
}

/* The sweep's tables (table, CSV, Markdown); JSON is search_json's. */
static void print_result(const search_result *out, out_format f, int table, int wide)
{
	const sweep_result *r = out->res;
	const search_names *nm = out->nm;
	double secs = out->secs;
	int threads = out->threads;
	static const char *const hdr[] = {"list", "rank", "system", "pricing", "chips", "layout", "zero",
					  "recompute", "mem_GiB", "step_s", "mfu_pct", "goodput_pct", "run_days",
					  "usd_per_run", "chip_hours", "usd_per_chip_hour", "assumptions"};
	if (f == OUT_CSV) {
		/* One table, one header: the list column tells the cheapest from the front. */
		out_table t;
		out_init(&t, 17, hdr);
		for (int i = 0; i < r->ntop && table != SEARCH_TABLE_PARETO; i++)
			point_row(&t, &r->top[i], i + 1, "top", nm, 1, 1);
		for (int i = 0; i < r->nfront && table != SEARCH_TABLE_TOP; i++)
			point_row(&t, &r->front[i], i + 1, "pareto", nm, 1, 1);
		out_print(&t, f, stdout);
		out_release(&t);
		return;
	}
	for (int part = 0; part < 2; part++) {
		const sweep_point *pts = part ? r->front : r->top;
		int n = part ? r->nfront : r->ntop;
		out_table t;
		if ((part == 0 && table == SEARCH_TABLE_PARETO) || (part == 1 && table == SEARCH_TABLE_TOP))
			continue;
		/* Two sections, each with its heading and its table. */
		printf("%s%s\n%s", f == OUT_MD ? "### " : "",
		       part ? "Pareto front (cheaper runs are slower):" : "Cheapest layouts:", f == OUT_MD ? "\n" : "");
		out_init(&t, 14, hdr + 1);
		out_wide(&t, wide);
		for (int k = 0; k < 14; k++)
			if (k == 0 || k == 3 || k >= 7)
				out_right(&t, k);
		{
			/* The pricing column may go when every row has one and the same catalog model. */
			price_model m;
			int one = price_parse_model(nm->pricing[0], &m) == 0;
			for (int i = 1; i < nm->n; i++)
				one &= !strcmp(nm->pricing[i], nm->pricing[0]);
			if (one)
				out_optional(&t, 2, 1);
		}
		for (int i = 0; i < n; i++)
			point_row(&t, &pts[i], i + 1, part ? "pareto" : "top", nm, 0, 0);
		out_print(&t, f, stdout);
		out_release(&t);
		printf("\n");
	}
	printf("%s%s\n", f == OUT_MD ? "" : "", nm->assumptions);
	if (f == OUT_TABLE && threads == 0)
		printf("%llu layouts: %llu pruned (do not divide), %llu do not fit, %llu evaluated; merged from the "
		       "shards%s\n", (unsigned long long)r->total, (unsigned long long)r->pruned,
		       (unsigned long long)r->infeasible, (unsigned long long)r->evaluated,
		       r->front_truncated ? "; the front was truncated" : "");
	else if (f == OUT_TABLE)
		printf("%llu layouts: %llu pruned (do not divide), %llu do not fit, %llu evaluated; %.2f s on %d "
		       "thread%s (%.3g layouts/s), peak memory %.0f MB%s\n",
		       (unsigned long long)r->total, (unsigned long long)r->pruned, (unsigned long long)r->infeasible,
		       (unsigned long long)r->evaluated, secs, threads, threads == 1 ? "" : "s",
		       secs > 0 ? (double)r->total / secs : 0.0, search_peak_rss_mb(),
		       r->front_truncated ? "; the front was truncated" : "");
}




/* Prints the result in format f (JSON: search_json). Returns 0, or 1 (out of memory). */
static int print_any(const search_result *out, out_format f, int table, int wide)
{
	if (f == OUT_JSON) {
		cJSON *j = search_json(out, table);
		char *s = j ? cJSON_Print(j) : NULL;
		if (s)
			puts(s);
		free(s);
		cJSON_Delete(j);
		return s ? 0 : 1;
	}
	print_result(out, f, table, wide);
	return 0;
}


int cmd_sweep(int argc, char **argv, const home_paths *paths)
{
	enum { O_TOP = 3000, O_THREADS, O_SHARD, O_MERGE, O_MAX_LAYOUTS, O_TABLE, O_LIST };
	static const char *const list_names[] = {"chips", "tp", "pp", "vpp", "cp", "ep", "sp", "mb", "zero",
						 "recompute"};
	static const struct option longopts[] = {
		CLI_EVAL_LONGOPTS, CLI_COST_LONGOPTS, CLI_TABLE_LONGOPTS,
		{"top", required_argument, NULL, O_TOP},
		{"table", required_argument, NULL, O_TABLE},
		{"threads", required_argument, NULL, O_THREADS},
		{"shard", required_argument, NULL, O_SHARD},
		{"merge", no_argument, NULL, O_MERGE},
		{"max-layouts", required_argument, NULL, O_MAX_LAYOUTS},
		{"tp", required_argument, NULL, O_LIST + 1}, {"pp", required_argument, NULL, O_LIST + 2},
		{"vpp", required_argument, NULL, O_LIST + 3}, {"cp", required_argument, NULL, O_LIST + 4},
		{"ep", required_argument, NULL, O_LIST + 5}, {"sp", required_argument, NULL, O_LIST + 6},
		{"mb", required_argument, NULL, O_LIST + 7}, {"zero", required_argument, NULL, O_LIST + 8},
		{"recompute", required_argument, NULL, O_LIST + 9},
		{NULL, 0, NULL, 0}};
	setup_opts o;
	search_opts so;
	sweep_list *lists[10] = {&so.space.chips, &so.space.tp, &so.space.pp, &so.space.vpp, &so.space.cp,
				 &so.space.ep, &so.space.sp, &so.space.mb, &so.space.zero, &so.space.recompute};
	int merge = 0, c, rc = 0, table = SEARCH_TABLE_BOTH;
	err e = {0};
	search_result *out = calloc(1, sizeof *out);
	db *store = NULL;

	setup_init(&o);
	search_opts_init(&so);
	optind = 1;
	while ((c = getopt_long(argc, argv, "s:w:h", longopts, NULL)) != -1) {
		int h;
		if (c == 'h') {
			fputs(sweep_usage, stdout);
			goto done;
		}
		if (c == CLI_OPT_CHIPS) {
			so.chips_text = optarg;
			continue;
		}
		if (c == CLI_OPT_PRICING) {
			so.pricing_text = optarg;
			continue;
		}
		if (c > O_LIST && c <= O_LIST + 9) {
			if (search_parse_list(list_names[c - O_LIST], optarg, lists[c - O_LIST], &e) != 0) {
				rc = cli_fail(&e);
				goto done;
			}
			so.given[c - O_LIST] = 1;
			continue;
		}
		switch (c) {
		case O_TOP:
			if (opt_int(optarg, 1, SWEEP_TOP_MAX, &so.top) != 0) {
				err_set(&e, ERR_USAGE, "--top: '%s' is not 1..%d", optarg, SWEEP_TOP_MAX);
				rc = cli_fail(&e);
				goto done;
			}
			continue;
		case O_THREADS:
			if (opt_int(optarg, 1, 256, &so.threads) != 0) {
				err_set(&e, ERR_USAGE, "--threads: '%s' is not 1..256", optarg);
				rc = cli_fail(&e);
				goto done;
			}
			continue;
		case O_SHARD:
			if (search_shard_option(optarg, &so.shard, &so.nshards, &e) != 0) {
				rc = cli_fail(&e);
				goto done;
			}
			continue;
		case O_MAX_LAYOUTS: {
			long long v;
			if (opt_whole(optarg, 1, LLONG_MAX, &v) != 0) {
				err_set(&e, ERR_USAGE, "--max-layouts: '%s' is not a whole number >= 1", optarg);
				rc = cli_fail(&e);
				goto done;
			}
			so.max_layouts = (uint64_t)v;
			continue;
		}
		case O_MERGE:
			merge = 1;
			continue;
		case O_TABLE:
			if (!strcmp(optarg, "top") || !strcmp(optarg, "pareto") || !strcmp(optarg, "both")) {
				table = !strcmp(optarg, "top") ? SEARCH_TABLE_TOP : !strcmp(optarg, "pareto") ? SEARCH_TABLE_PARETO
														: SEARCH_TABLE_BOTH;
				continue;
			}
			err_set(&e, ERR_USAGE, "--table: '%s' is not top, pareto or both", optarg);
			rc = cli_fail(&e);
			goto done;
		default:
			break;
		}
		h = cli_eval_option(c, optarg, &o, &e);
		if (h <= 0) {
			rc = cli_option_rc(h, sweep_usage, &e);
			goto done;
		}
	}
	if (!out) {
		err_set(&e, ERR_DATA, "out of memory");
		rc = cli_fail(&e);
		goto done;
	}
	if (merge) {
		if (optind >= argc) {
			fputs(sweep_usage, stderr);
			rc = 2;
			goto done;
		}
		if (search_merge(argc - optind, (const char *const *)argv + optind, so.top, out, &e) != 0) {
			rc = cli_fail(&e);
			goto done;
		}
		rc = print_any(out, o.format, table, o.wide);
		goto done;
	}
	if (o.plan_text || o.chips) {
		err_set(&e, ERR_USAGE, "sweep takes lists (--tp 1,2,4 --pp 1-16 ...), not --plan");
		rc = cli_fail(&e);
		goto done;
	}
	if (optind < argc || !o.workload || !*o.workload || !o.system || !*o.system) {
		err_set(&e, ERR_USAGE, "sweep needs -w WORKLOAD and -s SYSTEMS (see --help)");
		rc = cli_fail(&e);
		goto done;
	}
	if (isatty(STDERR_FILENO))
		so.progress = progress;
	if (search_prepare(paths, &store, &o, &so, out, &e) != 0) {
		rc = cli_fail(&e);
		goto done;
	}
	fprintf(stderr, "sweep: %llu layouts", (unsigned long long)(out->hi - out->lo));
	if (so.nshards > 1)
		fprintf(stderr, " (shard %d of %d, of %llu)", so.shard, so.nshards, (unsigned long long)out->total);
	fprintf(stderr, " on %d thread%s\n", so.threads, so.threads == 1 ? "" : "s");
	if (search_run(out, &so, &e) != 0) {
		rc = cli_fail(&e);
		goto done;
	}
	if (so.progress)
		fprintf(stderr, "\r%60s\r", "");
	rc = print_any(out, o.format, table, o.wide);
	if (o.format == OUT_TABLE) {
		char terms[512];
		setup_price_terms(&o, terms, sizeof terms);
		if (terms[0])
			printf("%s\n", terms);
	}
done:
	if (store)
		db_close(store);
	if (out)
		search_release(out);
	free(out);
	return rc;
}
