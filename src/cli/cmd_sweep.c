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

static const char *const rc_names[] = {"none", "selective", "full", NULL};

typedef struct sweep_names {
	char system[SWEEP_OFFERS_MAX][HW_NAME_MAX];
	char pricing[SWEEP_OFFERS_MAX][24];
	double usd[SWEEP_OFFERS_MAX];
	/* W per chip of each offer's system (NaN: no rated power): drawn (rated x power_share),
	 * drawn at the facility (x PUE), and provisioned (rated x PUE). */
	double w_avg[SWEEP_OFFERS_MAX], w_fac[SWEEP_OFFERS_MAX], w_prov[SWEEP_OFFERS_MAX];
	int n;
	char space[2048];            /* the lists and overrides searched: shards must agree */
	double space_layouts;        /* layouts of the whole space (all shards) */
	char assumptions[RANK_NOTE_MAX * 3]; /* prices, [cost] terms, failures, spot */
	int have_cal;                /* 1: cal holds each offer's calibration group (models/intervals.ini) */
	interval_status cal[SWEEP_OFFERS_MAX];
} sweep_names;

/* What a table of the sweep shows: the top list, the front, or both. */
enum { TABLE_BOTH, TABLE_TOP, TABLE_PARETO };

static void progress(void *ctx, uint64_t done, uint64_t total)
{
	(void)ctx;
	fprintf(stderr, "\rsweep %5.1f%% (%llu of %llu layouts)", 100.0 * (double)done / (double)total,
		(unsigned long long)done, (unsigned long long)total);
	fflush(stderr);
}

/* v as a reader of the JSON gets it back: cJSON prints 15 significant digits when they read
 * back within an ulp or so (its compare_double), else 17. A layout's interval is taken from that
 * value, so that shards merged (--merge reads the figures back) print the same bytes. */
static double as_printed(double v)
{
	char buf[64];
	double t;
	if (!isfinite(v))
		return v;
	snprintf(buf, sizeof buf, "%1.15g", v);
	t = strtod(buf, NULL);
	return fabs(t - v) <= fmax(fabs(t), fabs(v)) * DBL_EPSILON ? t : v;
}

static cJSON *point_json(const sweep_point *p, const sweep_names *nm)
{
	cJSON *o = cJSON_CreateObject();
	char pl[128];
	plan_format(&p->plan, pl, sizeof pl);
	cJSON_AddNumberToObject(o, "index", (double)p->index);
	cJSON_AddNumberToObject(o, "offer", p->offer);
	cJSON_AddStringToObject(o, "system", nm->system[p->offer]);
	cJSON_AddStringToObject(o, "pricing", nm->pricing[p->offer]);
	cJSON_AddNumberToObject(o, "chips", p->plan.chips);
	cJSON_AddNumberToObject(o, "tp", p->plan.tp);
	cJSON_AddNumberToObject(o, "pp", p->plan.pp);
	cJSON_AddNumberToObject(o, "vpp", p->plan.vpp);
	cJSON_AddNumberToObject(o, "dp", p->plan.dp);
	cJSON_AddNumberToObject(o, "cp", p->plan.cp);
	cJSON_AddNumberToObject(o, "ep", p->plan.ep);
	cJSON_AddNumberToObject(o, "sp", p->plan.sp);
	cJSON_AddNumberToObject(o, "micro_batch", p->plan.micro_batch);
	cJSON_AddNumberToObject(o, "zero", p->zero);
	cJSON_AddStringToObject(o, "recompute", rc_names[p->recompute]);
	cJSON_AddNumberToObject(o, "step_time_s", p->step_time);
	cJSON_AddNumberToObject(o, "tokens_per_s", p->tokens_per_s);
	cJSON_AddNumberToObject(o, "mfu", p->mfu);
	cJSON_AddNumberToObject(o, "mem_per_chip_gib", p->mem_gib);
	cJSON_AddNumberToObject(o, "run_time_s", p->run_time);
	cJSON_AddNumberToObject(o, "goodput", p->goodput);
	if (isfinite(p->usd_per_run))
		cJSON_AddNumberToObject(o, "usd_per_run", p->usd_per_run);
	else
		cJSON_AddNullToObject(o, "usd_per_run");
	cJSON_AddNumberToObject(o, "chip_hours", p->chip_hours);
	if (isfinite(p->cost))
		cJSON_AddNumberToObject(o, "cost", p->cost);
	else
		cJSON_AddNullToObject(o, "cost");
	if (nm->have_cal) {
		/* DESIGN §6: the layout's figures with their calibration group's interval. */
		const interval_status *c = &nm->cal[p->offer];
		cJSON *iv = cJSON_AddObjectToObject(o, "interval");
		show_interval_add(iv, "step_time_s", c, as_printed(p->step_time), 1, 0);
		show_interval_add(iv, "tokens_per_s", c, as_printed(p->tokens_per_s), 0, 0);
		show_interval_add(iv, "mfu", c, as_printed(p->mfu), 0, 1);
		show_interval_add(iv, "run_time_s", c, as_printed(p->run_time), 1, 0);
		if (isfinite(p->usd_per_run))
			show_interval_add(iv, "usd_per_run", c, as_printed(p->usd_per_run), 1, 0);
		show_calibration_fill(cJSON_AddObjectToObject(o, "calibration"), c);
	}
	{
		/* Power and energy (cost_energy_eval): the run's paid chip-hours at the drawn power. */
		double pw = p->plan.chips * nm->w_avg[p->offer], e = as_printed(p->chip_hours) * nm->w_fac[p->offer] / 1e3;
		double mw = as_printed(p->tokens_per_s) / (p->plan.chips * nm->w_prov[p->offer] / 1e6);
		const char *k[3] = {"power_w", "energy_kwh_per_unit", "tokens_per_s_per_mw"};
		const double v[3] = {pw, e, mw};
		for (int i = 0; i < 3; i++)
			if (isfinite(v[i]))
				cJSON_AddNumberToObject(o, k[i], v[i]);
			else
				cJSON_AddNullToObject(o, k[i]);
	}
	return o;
}

static double num(const cJSON *o, const char *k)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, k);
	return cJSON_IsNumber(it) ? it->valuedouble : NAN;
}

/* An offer's calibration as its JSON says it (a shard read back by --merge). */
static void calibration_from_json(const cJSON *o, interval_status *c)
{
	const cJSON *st = cJSON_GetObjectItemCaseSensitive(o, "status"), *g = cJSON_GetObjectItemCaseSensitive(o, "group"),
		    *nt = cJSON_GetObjectItemCaseSensitive(o, "note");
	memset(c, 0, sizeof *c);
	c->calibrated = cJSON_IsString(st) && !strcmp(st->valuestring, "calibrated");
	if (cJSON_IsString(g))
		snprintf(c->group, sizeof c->group, "%s", g->valuestring);
	if (cJSON_IsString(nt))
		snprintf(c->note, sizeof c->note, "%s", nt->valuestring);
	c->rows = isfinite(num(o, "rows")) ? (int)num(o, "rows") : 0;
	c->have = isfinite(num(o, "p10_pct")) && isfinite(num(o, "p90_pct"));
	c->p10 = c->have ? interval_round(num(o, "p10_pct")) : 0;
	c->p90 = c->have ? interval_round(num(o, "p90_pct")) : 0;
}

/* A whole number of o in [0, hi] (a shard file is input like any other: a cast of a NaN,
 * a negative or a huge double is undefined). Returns 0 or -1. */
static int whole(const cJSON *o, const char *k, double hi, double *out)
{
	double v = num(o, k);
	if (!(v >= 0 && v <= hi && v == floor(v)))
		return -1;
	*out = v;
	return 0;
}

static int point_from_json(const cJSON *o, sweep_point *p)
{
	static const struct { const char *key; double hi; } ints[] = {
		{"offer", SWEEP_OFFERS_MAX - 1}, {"chips", LIM_CHIPS}, {"tp", LIM_CHIPS}, {"pp", LIM_PP},
		{"vpp", LIM_VPP}, {"dp", LIM_CHIPS}, {"cp", LIM_CHIPS}, {"ep", LIM_CHIPS}, {"sp", 1},
		{"micro_batch", LIM_MICRO_BATCH}, {"zero", 3}};
	int *dst[] = {&p->offer, &p->plan.chips, &p->plan.tp, &p->plan.pp, &p->plan.vpp, &p->plan.dp,
		      &p->plan.cp, &p->plan.ep, &p->plan.sp, &p->plan.micro_batch, &p->zero};
	const cJSON *rc = cJSON_GetObjectItemCaseSensitive(o, "recompute");
	double v;
	memset(p, 0, sizeof p[0]);
	if (!cJSON_IsObject(o) || whole(o, "index", 9007199254740992.0, &v) != 0)
		return -1;
	p->index = (uint64_t)v;
	for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++) {
		if (whole(o, ints[i].key, ints[i].hi, &v) != 0)
			return -1;
		*dst[i] = (int)v;
	}
	for (int i = 0; rc_names[i]; i++)
		if (cJSON_IsString(rc) && !strcmp(rc->valuestring, rc_names[i]))
			p->recompute = i;
	p->step_time = num(o, "step_time_s");
	p->tokens_per_s = num(o, "tokens_per_s");
	p->mfu = num(o, "mfu");
	p->mem_gib = num(o, "mem_per_chip_gib");
	p->run_time = num(o, "run_time_s");
	p->goodput = num(o, "goodput");
	p->usd_per_run = num(o, "usd_per_run");
	p->chip_hours = num(o, "chip_hours");
	p->cost = isfinite(num(o, "cost")) ? num(o, "cost") : INFINITY;
	return p->offer >= 0 && p->offer < SWEEP_OFFERS_MAX ? 0 : -1;
}

/* Peak resident memory of this process, MB (0 if unknown). */
static double peak_rss_mb(void)
{
	struct rusage ru;
	if (getrusage(RUSAGE_SELF, &ru) != 0)
		return 0;
	return (double)ru.ru_maxrss / 1024.0; /* Linux: KiB */
}

/* A row of the sweep's table for point p of list `list` ("top" or "pareto"). */
static void point_row(out_table *t, const sweep_point *p, int rank, const char *list, const sweep_names *nm,
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
	cells[k++] = rc_names[p->recompute];
	for (int i = 3; i < 10; i++)
		cells[k++] = v[i];
	if (csv) {
		cells[k++] = v[10];
		cells[k++] = nm->assumptions;
	}
	out_row(t, cells);
}

static void print_result(const sweep_result *r, const sweep_names *nm, const char *workload,
			 out_format f, double secs, int threads, int shard, int nshards, int table, int wide)
{
	static const char *const hdr[] = {"list", "rank", "system", "pricing", "chips", "layout", "zero",
					  "recompute", "mem_GiB", "step_s", "mfu_pct", "goodput_pct", "run_days",
					  "usd_per_run", "chip_hours", "usd_per_chip_hour", "assumptions"};
	if (f == OUT_JSON) {
		cJSON *root = cJSON_CreateObject(), *sum = cJSON_CreateObject(), *offers, *top, *front;
		char *s;
		cJSON_AddStringToObject(root, "workload", workload);
		cJSON_AddNumberToObject(sum, "layouts", (double)r->total);
		cJSON_AddNumberToObject(sum, "pruned", (double)r->pruned);
		cJSON_AddNumberToObject(sum, "infeasible", (double)r->infeasible);
		cJSON_AddNumberToObject(sum, "evaluated", (double)r->evaluated);
		cJSON_AddBoolToObject(sum, "front_truncated", r->front_truncated);
		cJSON_AddNumberToObject(sum, "shard", shard);
		cJSON_AddNumberToObject(sum, "shards", nshards);
		cJSON_AddStringToObject(sum, "space", nm->space);
		cJSON_AddNumberToObject(sum, "space_layouts", nm->space_layouts);
		cJSON_AddNumberToObject(sum, "seconds", secs);
		cJSON_AddNumberToObject(sum, "threads", threads);
		cJSON_AddNumberToObject(sum, "peak_rss_mb", peak_rss_mb());
		cJSON_AddItemToObject(root, "summary", sum);
		cJSON_AddStringToObject(root, "assumptions", nm->assumptions);
		offers = cJSON_AddArrayToObject(root, "offers");
		for (int i = 0; i < nm->n; i++) {
			cJSON *o = cJSON_CreateObject();
			cJSON_AddStringToObject(o, "system", nm->system[i]);
			cJSON_AddStringToObject(o, "pricing", nm->pricing[i]);
			if (isfinite(nm->w_avg[i])) {
				cJSON_AddNumberToObject(o, "w_per_chip", nm->w_avg[i]);
				cJSON_AddNumberToObject(o, "facility_w_per_chip", nm->w_fac[i]);
				cJSON_AddNumberToObject(o, "provisioned_w_per_chip", nm->w_prov[i]);
			}
			if (isfinite(nm->usd[i]))
				cJSON_AddNumberToObject(o, "usd_per_chip_hour", nm->usd[i]);
			else
				cJSON_AddNullToObject(o, "usd_per_chip_hour");
			if (nm->have_cal)
				show_calibration_fill(cJSON_AddObjectToObject(o, "calibration"), &nm->cal[i]);
			cJSON_AddItemToArray(offers, o);
		}
		top = cJSON_AddArrayToObject(root, "top");
		for (int i = 0; i < r->ntop && table != TABLE_PARETO; i++)
			cJSON_AddItemToArray(top, point_json(&r->top[i], nm));
		front = cJSON_AddArrayToObject(root, "pareto");
		for (int i = 0; i < r->nfront && table != TABLE_TOP; i++)
			cJSON_AddItemToArray(front, point_json(&r->front[i], nm));
		s = cJSON_Print(root);
		puts(s);
		free(s);
		cJSON_Delete(root);
		return;
	}
	if (f == OUT_CSV) {
		/* One table, one header: the list column tells the cheapest from the front. */
		out_table t;
		out_init(&t, 17, hdr);
		for (int i = 0; i < r->ntop && table != TABLE_PARETO; i++)
			point_row(&t, &r->top[i], i + 1, "top", nm, 1, 1);
		for (int i = 0; i < r->nfront && table != TABLE_TOP; i++)
			point_row(&t, &r->front[i], i + 1, "pareto", nm, 1, 1);
		out_print(&t, f, stdout);
		out_release(&t);
		return;
	}
	for (int part = 0; part < 2; part++) {
		const sweep_point *pts = part ? r->front : r->top;
		int n = part ? r->nfront : r->ntop;
		out_table t;
		if ((part == 0 && table == TABLE_PARETO) || (part == 1 && table == TABLE_TOP))
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
		       secs > 0 ? (double)r->total / secs : 0.0, peak_rss_mb(),
		       r->front_truncated ? "; the front was truncated" : "");
}

static int merge_files(int argc, char **argv, int top, out_format f, int table, int wide)
{
	int nshards = 0, *seen = NULL;
	sweep_result *acc = calloc(1, sizeof *acc), *one = calloc(1, sizeof *one);
	sweep_names *nm = calloc(1, sizeof *nm);
	char workload[128] = "";
	int rc = 0;
	err e = {0};
	if (!acc || !one || !nm) {
		free(acc);
		free(one);
		free(nm);
		err_set(&e, ERR_DATA, "out of memory");
		return cli_fail(&e);
	}
	for (int i = 0; i < argc && rc == 0; i++) {
		FILE *fp = os_open_read(argv[i], &e);   /* a named pipe is refused, not waited on */
		char *buf = NULL;
		long len;
		cJSON *root = NULL;
		const cJSON *it;
		memset(one, 0, sizeof *one);
		if (!fp) {
			rc = ERR_DATA;
			break;
		}
		if (fseek(fp, 0, SEEK_END) != 0 || (len = ftell(fp)) < 0 || fseek(fp, 0, SEEK_SET) != 0) {
			fclose(fp);
			rc = err_set(&e, ERR_DATA, "%s: not a regular file", argv[i]);
			break;
		}
		buf = malloc((size_t)len + 1);
		if (buf && fread(buf, 1, (size_t)len, fp) == (size_t)len) {
			buf[len] = '\0';
			root = cJSON_Parse(buf);
		}
		fclose(fp);
		free(buf);
		if (!root) {
			rc = err_set(&e, ERR_DATA, "%s: not a sweep JSON output", argv[i]);
			break;
		}
		{
			const cJSON *offers = cJSON_GetObjectItemCaseSensitive(root, "offers");
			const cJSON *wl = cJSON_GetObjectItemCaseSensitive(root, "workload");
			const cJSON *sum = cJSON_GetObjectItemCaseSensitive(root, "summary");
			int k = 0;
			if (!cJSON_IsArray(offers) || !cJSON_IsString(wl) || !cJSON_IsObject(sum)) {
				rc = err_set(&e, ERR_DATA, "%s: not a sweep JSON output", argv[i]);
				cJSON_Delete(root);
				break;
			}
			if (i == 0)
				snprintf(workload, sizeof workload, "%s", wl->valuestring);
			else if (strcmp(workload, wl->valuestring))
				rc = err_set(&e, ERR_DATA, "%s: workload %s differs from %s", argv[i], wl->valuestring,
					     workload);
			/* One complete set of slices of one space: the same N and space everywhere, every
			 * shard 0..N-1 exactly once. */
			{
				const cJSON *sp = cJSON_GetObjectItemCaseSensitive(sum, "space");
				const cJSON *as = cJSON_GetObjectItemCaseSensitive(root, "assumptions");
				double sh = num(sum, "shard"), n = num(sum, "shards");
				if (rc == 0 && (!cJSON_IsString(sp) || !(n >= 1 && n <= 1e6) || !(sh >= 0 && sh < n) ||
						sh != floor(sh) || n != floor(n)))
					rc = err_set(&e, ERR_DATA, "%s: not a sweep --shard output (no shard, shards or space)",
						     argv[i]);
				if (rc == 0 && i == 0) {
					nshards = (int)n;
					snprintf(nm->space, sizeof nm->space, "%s", sp->valuestring);
					nm->space_layouts = num(sum, "space_layouts");
					if (cJSON_IsString(as))
						snprintf(nm->assumptions, sizeof nm->assumptions, "%s", as->valuestring);
					seen = calloc((size_t)nshards, sizeof *seen);
					if (!seen)
						rc = err_set(&e, ERR_DATA, "out of memory");
				} else if (rc == 0 && (int)n != nshards) {
					rc = err_set(&e, ERR_DATA, "%s: shard %d of %d, but %s is one of %d", argv[i], (int)sh,
						     (int)n, argv[0], nshards);
				} else if (rc == 0 && strcmp(nm->space, sp->valuestring)) {
					rc = err_set(&e, ERR_DATA, "%s: a slice of another sweep than %s (its lists, systems, "
						     "pricing or --set differ)", argv[i], argv[0]);
				}
				if (rc == 0 && seen[(int)sh]++)
					rc = err_set(&e, ERR_DATA, "%s: shard %d/%d is given twice", argv[i], (int)sh, nshards);
			}
			cJSON_ArrayForEach(it, offers) {
				const cJSON *sy = cJSON_GetObjectItemCaseSensitive(it, "system");
				const cJSON *pr = cJSON_GetObjectItemCaseSensitive(it, "pricing");
				if (k >= SWEEP_OFFERS_MAX || !cJSON_IsString(sy) || !cJSON_IsString(pr))
					break;
				if (i == 0) {
					const cJSON *cal = cJSON_GetObjectItemCaseSensitive(it, "calibration");
					snprintf(nm->system[k], HW_NAME_MAX, "%s", sy->valuestring);
					snprintf(nm->pricing[k], 24, "%s", pr->valuestring);
					nm->usd[k] = num(it, "usd_per_chip_hour");
					if (cJSON_IsObject(cal)) {
						nm->have_cal = 1;
						calibration_from_json(cal, &nm->cal[k]);
					}
					nm->w_avg[k] = num(it, "w_per_chip");
					nm->w_fac[k] = num(it, "facility_w_per_chip");
					nm->w_prov[k] = num(it, "provisioned_w_per_chip");
				} else if (k >= nm->n || strcmp(nm->system[k], sy->valuestring) ||
					   strcmp(nm->pricing[k], pr->valuestring)) {
					rc = err_set(&e, ERR_DATA, "%s: its systems and prices differ from %s", argv[i], argv[0]);
				}
				k++;
			}
			if (i == 0)
				nm->n = k;
			{
				static const char *const keys[] = {"layouts", "pruned", "infeasible", "evaluated"};
				uint64_t *dst[] = {&one->total, &one->pruned, &one->infeasible, &one->evaluated};
				for (int k2 = 0; k2 < 4 && rc == 0; k2++) {
					double v;
					if (whole(sum, keys[k2], 1.8e19, &v) != 0)
						rc = err_set(&e, ERR_DATA, "%s: summary.%s is not a count", argv[i], keys[k2]);
					else
						*dst[k2] = (uint64_t)v;
				}
			}
			for (int part = 0; part < 2 && rc == 0; part++) {
				const cJSON *arr = cJSON_GetObjectItemCaseSensitive(root, part ? "pareto" : "top");
				cJSON_ArrayForEach(it, arr) {
					sweep_point p;
					if (point_from_json(it, &p) != 0 || p.offer >= nm->n) {
						rc = err_set(&e, ERR_DATA, "%s: a point is malformed", argv[i]);
						break;
					}
					if (part)
						one->front[one->nfront < SWEEP_FRONT_MAX ? one->nfront++ : one->nfront - 1] = p;
					else if (one->ntop < SWEEP_TOP_MAX)
						one->top[one->ntop++] = p;
				}
			}
		}
		cJSON_Delete(root);
		if (rc == 0)
			sweep_merge(acc, one, top);
	}
	for (int k = 0; rc == 0 && k < nshards; k++)
		if (!seen[k])
			rc = err_set(&e, ERR_DATA, "sweep --merge: shard %d/%d is missing (%d of %d given)", k, nshards,
				     argc, nshards);
	if (rc == 0 && isfinite(nm->space_layouts) && (double)acc->total != nm->space_layouts)
		rc = err_set(&e, ERR_DATA, "sweep --merge: the shards hold %llu layouts, the space %.0f",
			     (unsigned long long)acc->total, nm->space_layouts);
	if (rc == 0)
		print_result(acc, nm, workload, f, 0, 0, 0, 1, table, wide);
	else
		rc = cli_fail(&e);
	free(seen);
	free(acc);
	free(one);
	free(nm);
	return rc;
}

static int parse_list_opt(const char *name, const char *arg, sweep_list *l, err *e)
{
	if (!strcmp(name, "recompute")) {
		char buf[512], *save = NULL;
		if (strlen(arg) >= sizeof buf)
			return err_set(e, ERR_USAGE, "--recompute: longer than %zu characters", sizeof buf - 1);
		snprintf(buf, sizeof buf, "%s", arg);
		l->n = 0;
		for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
			int k = -1;
			for (int i = 0; rc_names[i]; i++)
				if (!strcmp(t, rc_names[i]))
					k = i;
			if (k < 0 || l->n == SWEEP_VALUES_MAX)
				return err_set(e, ERR_USAGE, "--recompute: '%s' is not none, selective or full", t);
			l->v[l->n++] = k;
		}
		return 0;
	}
	if (sweep_parse_list(arg, l) != 0)
		return err_set(e, ERR_USAGE, "--%s: '%s' is not a list like 1,2,4 or 8-64 or 8-64:8", name, arg);
	return 0;
}

/* nm->space (the lists, offers and overrides, which shards of one sweep share), its size, and
 * the assumptions line: prices, the [cost] terms, failures, spot. */
static void describe(const sweep_space *sp, sweep_names *nm, const setup_opts *o, const wl_workload *w,
		     const int *models, int nmodels, const home_paths *paths, const hw_system *first)
{
	const sweep_list *l[] = {&sp->chips, &sp->tp, &sp->pp, &sp->vpp, &sp->cp, &sp->ep, &sp->sp, &sp->mb,
				 &sp->zero, &sp->recompute};
	static const char *const names[] = {"chips", "tp", "pp", "vpp", "cp", "ep", "sp", "mb", "zero", "recompute"};
	char *b = nm->space, terms[RANK_NOTE_MAX], spot[RANK_NOTE_MAX] = "";
	size_t n = sizeof nm->space, u = 0;
	rank_quote c;
	for (int i = 0; i < 10; i++) {
		u += (size_t)snprintf(b + u, u < n ? n - u : 0, "%s%s=", i ? ";" : "", names[i]);
		for (int k = 0; k < l[i]->n && u < n; k++)
			u += (size_t)snprintf(b + u, n - u, "%s%d", k ? "," : "", l[i]->v[k]);
	}
	for (int i = 0; i < nm->n && u < n; i++)
		u += (size_t)snprintf(b + u, n - u, "%s%s/%s", i ? "," : ";offers=", nm->system[i], nm->pricing[i]);
	for (int i = 0; i < o->nsets && u < n; i++)
		u += (size_t)snprintf(b + u, n - u, "%s%s", i ? "," : ";set=", o->sets[i]);
	nm->space_layouts = (double)sweep_size(sp, nm->n);
	memset(&c, 0, sizeof c);
	c.pricing = nmodels > 0 ? (price_model)models[0] : w->cost.pricing;
	c.terms = w->cost;
	c.node_chips = first ? hw_node_chips(first) : 1;
	show_terms_text(&c, 1, terms, sizeof terms);
	for (int k = 0; k < nmodels; k++)
		if (models[k] == PRICE_SPOT) {
			c.pricing = PRICE_SPOT;
			c.spot_interval = w->cost.spot_interval;
			c.terms.failures.chip_mtbf = rank_spot_mtbf(w->cost.failures.chip_mtbf, c.spot_interval, c.node_chips);
			show_spot_text(&c, 1, spot, sizeof spot);
		}
	snprintf(nm->assumptions, sizeof nm->assumptions,
		 "prices: the newest%s%s in the store %s, per chip-hour; assumptions: %s%s; failures: chip MTBF %.0f h, "
		 "checkpoints at %.4g GB/s (16 B per parameter unless [cost] checkpoint_size), restart %.0f s "
		 "(Young/Daly), in run_days and usd_per_run%s%s",
		 o->as_of ? " at or before " : "", o->as_of ? o->as_of : "", paths->db,
		 nmodels > 1 ? "pricing per row, " : "", nmodels > 1 ? strchr(terms, ',') + 2 : terms,
		 w->cost.failures.chip_mtbf / 3600, w->cost.failures.checkpoint_bw / 1e9, w->cost.failures.restart,
		 spot[0] ? "; " : "", spot);
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
	sweep_space sp;
	sweep_list *lists[10] = {&sp.chips, &sp.tp, &sp.pp, &sp.vpp, &sp.cp, &sp.ep, &sp.sp, &sp.mb, &sp.zero,
				 &sp.recompute};
	int given[10] = {0};
	int top = 10, threads = (int)sysconf(_SC_NPROCESSORS_ONLN), shard = 0, nshards = 1, merge = 0, c, rc = 0;
	int table = TABLE_BOTH, nmodels = 0, models[PRICE_MODEL_N];
	const char *chips_text = NULL, *pricing_text = NULL;
	uint64_t max_layouts = SWEEP_LAYOUTS_DEFAULT_MAX;
	err e = {0};
	wl_workload *w = malloc(sizeof *w);
	hw_system *systems = NULL;
	sweep_names *nm = calloc(1, sizeof *nm);
	sweep_offer *offers = calloc(SWEEP_OFFERS_MAX, sizeof *offers);
	sweep_result *res = malloc(sizeof *res);
	char **names = NULL;
	int nnames = 0;
	db *store = NULL;

	setup_init(&o);
	memset(&sp, 0, sizeof sp);
	if (threads < 1)
		threads = 1;
	optind = 1;
	while ((c = getopt_long(argc, argv, "s:w:h", longopts, NULL)) != -1) {
		int h;
		if (c == 'h') {
			fputs(sweep_usage, stdout);
			goto done;
		}
		if (c == CLI_OPT_CHIPS) {
			chips_text = optarg;
			continue;
		}
		if (c == CLI_OPT_PRICING) {
			pricing_text = optarg;
			continue;
		}
		if (c > O_LIST && c <= O_LIST + 9) {
			if (parse_list_opt(list_names[c - O_LIST], optarg, lists[c - O_LIST], &e) != 0) {
				rc = cli_fail(&e);
				goto done;
			}
			given[c - O_LIST] = 1;
			continue;
		}
		switch (c) {
		case O_TOP:
			if (opt_int(optarg, 1, SWEEP_TOP_MAX, &top) != 0) {
				err_set(&e, ERR_USAGE, "--top: '%s' is not 1..%d", optarg, SWEEP_TOP_MAX);
				rc = cli_fail(&e);
				goto done;
			}
			continue;
		case O_THREADS:
			if (opt_int(optarg, 1, 256, &threads) != 0) {
				err_set(&e, ERR_USAGE, "--threads: '%s' is not 1..256", optarg);
				rc = cli_fail(&e);
				goto done;
			}
			continue;
		case O_SHARD:
			if (opt_int_pair(optarg, '/', 0, 1000000, &shard, &nshards) != 0 || nshards < 1 ||
			    shard >= nshards) {
				err_set(&e, ERR_USAGE, "--shard: '%s' is not I/N with 0 <= I < N <= 1000000", optarg);
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
			max_layouts = (uint64_t)v;
			continue;
		}
		case O_MERGE:
			merge = 1;
			continue;
		case O_TABLE:
			if (!strcmp(optarg, "top") || !strcmp(optarg, "pareto") || !strcmp(optarg, "both")) {
				table = !strcmp(optarg, "top") ? TABLE_TOP : !strcmp(optarg, "pareto") ? TABLE_PARETO : TABLE_BOTH;
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
	if (!w || !nm || !offers || !res) {
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
		rc = merge_files(argc - optind, argv + optind, top, o.format, table, o.wide);
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
	if (wl_load(o.workload, paths->workloads, paths->models, o.sets, o.nsets, w, &e) != 0) {
		rc = cli_fail(&e);
		goto done;
	}
	if (w->mode != WL_TRAIN) {
		err_set(&e, ERR_USAGE, "sweep searches training layouts; %s is a serving workload (use compare)", w->name);
		rc = cli_fail(&e);
		goto done;
	}
	/* Systems. */
	nnames = home_system_names(paths, o.system, &names, &e);
	if (nnames < 0) {
		rc = cli_fail(&e);
		goto done;
	}
	systems = calloc((size_t)(nnames ? nnames : 1), sizeof *systems);
	if (!systems) {
		err_set(&e, ERR_DATA, "out of memory");
		rc = cli_fail(&e);
		goto done;
	}
	for (int i = 0; i < nnames; i++)
		if (hw_find_system(names[i], paths->models, &systems[i], &e) != 0) {
			rc = cli_fail(&e);
			goto done;
		}
	/* Pricing models and offers. */
	{
		if (!pricing_text) {
			models[nmodels++] = o.pricing >= 0 ? o.pricing : (int)w->cost.pricing;
		} else if (!strcmp(pricing_text, "all")) {
			for (int i = 0; i < PRICE_MODEL_N; i++)
				models[nmodels++] = i;
		} else {
			char buf[256], *save = NULL;
			if (strlen(pricing_text) >= sizeof buf) {
				err_set(&e, ERR_USAGE, "--pricing: longer than %zu characters", sizeof buf - 1);
				rc = cli_fail(&e);
				goto done;
			}
			snprintf(buf, sizeof buf, "%s", pricing_text);
			for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
				price_model m;
				if (price_parse_model(t, &m) != 0 || nmodels == PRICE_MODEL_N) {
					err_set(&e, ERR_USAGE, "--pricing: '%s' is not a pricing model", t);
					rc = cli_fail(&e);
					goto done;
				}
				models[nmodels++] = (int)m;
			}
		}
		setup_pricer pr;
		rank_opts ro;
		if (setup_check_prices(paths, &o, &e) != 0) {
			rc = cli_fail(&e);
			goto done;
		}
		setup_rank_opts(&pr, paths, &store, &o, w, &ro);
		for (int i = 0; i < nnames; i++)
			for (int k = 0, first = nm->n; k < nmodels; k++) {
				rank_quote rcst;
				if (nm->n == SWEEP_OFFERS_MAX)
					break;
				ro.pricing = (price_model)models[k];
				if (rank_price(&ro, &systems[i], w, &rcst, &e) != 0) {
					rc = cli_fail(&e);
					goto done;
				}
				/* Pricing models without a price drop out while one has a price (the last
				 * model tried stands for them all); the user's own price is one offer. */
				if ((!rcst.have_price && (k + 1 < nmodels || nm->n > first)) ||
				    (rcst.user_price && k > 0))
					continue;
				offers[nm->n].sys = &systems[i];
				offers[nm->n].system = i;
				offers[nm->n].pricing = models[k];
				offers[nm->n].usd_per_chip_hour = rcst.have_price ? rcst.usd_per_chip_hour : NAN;
				if (models[k] == PRICE_SPOT)
					offers[nm->n].chip_mtbf = rank_spot_mtbf(w->cost.failures.chip_mtbf, w->cost.spot_interval,
										 hw_node_chips(&systems[i]));
				snprintf(nm->system[nm->n], HW_NAME_MAX, "%s", systems[i].name);
				if (rcst.user_price)
					snprintf(nm->pricing[nm->n], 24, "user (--price)");
				else if (rcst.have_price && rcst.discount > 0)
					snprintf(nm->pricing[nm->n], 24, "%s -%.3g%%", price_model_names[models[k]],
						 100 * rcst.discount);
				else
					snprintf(nm->pricing[nm->n], 24, "%s", rcst.have_price ? price_model_names[models[k]]
						 : !strncmp(rcst.note, "no public price", 15) ? "no public price" : "no price");
				nm->usd[nm->n] = offers[nm->n].usd_per_chip_hour;
				nm->have_cal = setup_calibration(paths, &systems[i], w, &nm->cal[nm->n]) != NULL;
				{
					const cost_owned *t = &w->cost.owned;
					double rated = hw_rated_w_per_chip(&systems[i]);
					nm->w_avg[nm->n] = rated * t->power_share;
					nm->w_fac[nm->n] = rated * t->power_share * t->pue;
					nm->w_prov[nm->n] = rated * t->pue;
				}
				nm->n++;
			}
	}
	/* Defaults for the lists not given. */
	if (chips_text) {
		if (sweep_parse_list(chips_text, &sp.chips) != 0) {
			err_set(&e, ERR_USAGE, "--chips: '%s' is not a list like 1024,2048 or 1024-16384", chips_text);
			rc = cli_fail(&e);
			goto done;
		}
	} else {
		plan p = w->plan;
		plan_fill(&p);
		sp.chips.v[0] = p.chips;
		sp.chips.n = 1;
	}
	if (!given[1]) {
		int node = nnames ? hw_node_chips(&systems[0]) : 8;
		for (int i = 0; i < nnames; i++)
			if (hw_node_chips(&systems[i]) > node)
				node = hw_node_chips(&systems[i]);
		sweep_parse_list(node >= 2 ? (node >= 16 ? "1-16" : node >= 8 ? "1-8" : "1-4") : "1", &sp.tp);
	}
	if (!given[2])
		sweep_parse_list("1-16", &sp.pp);
	if (!given[3])
		sweep_parse_list("1,2", &sp.vpp);
	if (!given[4])
		sweep_parse_list("1", &sp.cp);
	if (!given[5]) {
		if (w->net.experts > 1) {
			char buf[32];
			snprintf(buf, sizeof buf, "1-%d", w->net.experts);
			sweep_parse_list(buf, &sp.ep);
		} else {
			sweep_parse_list("1", &sp.ep);
		}
	}
	if (!given[6])
		sweep_parse_list("0,1", &sp.sp);
	if (!given[7])
		sweep_parse_list("1,2,4", &sp.mb);
	if (!given[8])
		sweep_parse_list("0-3:1", &sp.zero);
	if (!given[9])
		sweep_parse_list("0-2:1", &sp.recompute);
	for (int i = 0; i < sp.zero.n; i++)
		if (sp.zero.v[i] > 3) {
			err_set(&e, ERR_USAGE, "--zero: stages are 0..3");
			rc = cli_fail(&e);
			goto done;
		}
	for (int i = 0; i < sp.sp.n; i++)
		if (sp.sp.v[i] > 1) {
			err_set(&e, ERR_USAGE, "--sp: 0 or 1");
			rc = cli_fail(&e);
			goto done;
		}
	for (int li = 0; li < 8; li++) {
		/* chips tp pp vpp cp ep sp mb: the ranges of lim.h. */
		static const int hi[8] = {LIM_CHIPS, LIM_CHIPS, LIM_PP, LIM_VPP, LIM_CHIPS, LIM_CHIPS, 1,
					  LIM_MICRO_BATCH};
		for (int i = 0; i < lists[li]->n; i++) {
			if (lists[li]->v[i] < (li == 6 ? 0 : 1)) {
				err_set(&e, ERR_USAGE, "--%s: values must be at least 1", list_names[li]);
				rc = cli_fail(&e);
				goto done;
			}
			if (lists[li]->v[i] > hi[li]) {
				err_set(&e, ERR_USAGE, "--%s: %d is more than %d", list_names[li], lists[li]->v[i], hi[li]);
				rc = cli_fail(&e);
				goto done;
			}
		}
	}
	describe(&sp, nm, &o, w, models, nmodels, paths, nnames ? &systems[0] : NULL);
	{
		sweep_job job;
		struct timespec t0, t1;
		double secs;
		memset(&job, 0, sizeof job);
		job.space = &sp;
		job.w = w;
		job.offers = offers;
		job.noffers = nm->n;
		job.top_k = top;
		job.threads = threads;
		job.shard = shard;
		job.nshards = nshards;
		if (isatty(STDERR_FILENO))
			job.progress = progress;
		{
			/* The size first: refused beyond --max-layouts, printed before it starts. */
			uint64_t total = sweep_size(&sp, nm->n), lo, hi;
			sweep_slice(total, shard, nshards, &lo, &hi);
			if (total == UINT64_MAX || hi - lo > max_layouts) {
				if (total == UINT64_MAX)
					err_set(&e, ERR_USAGE, "sweep: the space has more than 1.8e19 layouts; "
						"narrow the lists");
				else
					err_set(&e, ERR_USAGE, "sweep: %llu layouts%s are more than --max-layouts %llu "
						"(at about 2.5e6 layouts/s on two cores); narrow the lists, split it with "
						"--shard, or raise --max-layouts", (unsigned long long)(hi - lo),
						nshards > 1 ? " in this shard" : "", (unsigned long long)max_layouts);
				rc = cli_fail(&e);
				goto done;
			}
			fprintf(stderr, "sweep: %llu layouts", (unsigned long long)(hi - lo));
			if (nshards > 1)
				fprintf(stderr, " (shard %d of %d, of %llu)", shard, nshards, (unsigned long long)total);
			fprintf(stderr, " on %d thread%s\n", threads, threads == 1 ? "" : "s");
		}
		clock_gettime(CLOCK_MONOTONIC, &t0);
		if (sweep_run(&job, res) != 0) {
			err_set(&e, ERR_DATA, "sweep: out of memory or could not start threads");
			rc = cli_fail(&e);
			goto done;
		}
		clock_gettime(CLOCK_MONOTONIC, &t1);
		secs = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
		if (job.progress)
			fprintf(stderr, "\r%60s\r", "");
		print_result(res, nm, w->name, o.format, secs, threads, shard, nshards, table, o.wide);
		if (o.format == OUT_TABLE) {
			char terms[512];
			setup_price_terms(&o, terms, sizeof terms);
			if (terms[0])
				printf("%s\n", terms);
		}
	}
done:
	if (store)
		db_close(store);
	if (names)
		home_free_names(names, nnames);
	free(systems);
	free(w);
	free(nm);
	free(offers);
	free(res);
	return rc;
}
