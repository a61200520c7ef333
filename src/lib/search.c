/* search: the sweep's offers, lists, run, shards and JSON (see search.h). */
#include "lib/search.h"

#include <cJSON.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "base/lim.h"
#include "base/opt.h"
#include "base/os.h"
#include "report/show.h"

const char *const search_recompute_names[] = {"none", "selective", "full", NULL};

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

static cJSON *point_json(const sweep_point *p, const search_names *nm)
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
	cJSON_AddStringToObject(o, "recompute", search_recompute_names[p->recompute]);
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
	for (int i = 0; search_recompute_names[i]; i++)
		if (cJSON_IsString(rc) && !strcmp(rc->valuestring, search_recompute_names[i]))
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
double search_peak_rss_mb(void)
{
	struct rusage ru;
	if (getrusage(RUSAGE_SELF, &ru) != 0)
		return 0;
	return (double)ru.ru_maxrss / 1024.0; /* Linux: KiB */
}

int search_parse_list(const char *name, const char *arg, sweep_list *l, err *e)
{
	if (!strcmp(name, "recompute")) {
		char buf[512], *save = NULL;
		if (strlen(arg) >= sizeof buf)
			return err_set(e, ERR_USAGE, "--recompute: longer than %zu characters", sizeof buf - 1);
		snprintf(buf, sizeof buf, "%s", arg);
		l->n = 0;
		for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
			int k = -1;
			for (int i = 0; search_recompute_names[i]; i++)
				if (!strcmp(t, search_recompute_names[i]))
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
static void describe(const sweep_space *sp, search_names *nm, const setup_opts *o, const wl_workload *w,
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

void *search_json(const search_result *out, int table)
{
	const sweep_result *r = out->res;
	const search_names *nm = out->nm;
	const char *workload = out->workload;
	double secs = out->secs;
	int threads = out->threads, shard = out->shard, nshards = out->nshards;
	cJSON *root = cJSON_CreateObject(), *sum = cJSON_CreateObject(), *offers, *top, *front;
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
	cJSON_AddNumberToObject(sum, "peak_rss_mb", search_peak_rss_mb());
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
	for (int i = 0; i < r->ntop && table != SEARCH_TABLE_PARETO; i++)
		cJSON_AddItemToArray(top, point_json(&r->top[i], nm));
	front = cJSON_AddArrayToObject(root, "pareto");
	for (int i = 0; i < r->nfront && table != SEARCH_TABLE_TOP; i++)
		cJSON_AddItemToArray(front, point_json(&r->front[i], nm));
	return root;
}

int search_merge(int argc, const char *const *argv, int top, search_result *out, err *e)
{
	int nshards = 0, *seen = NULL;
	sweep_result *acc = calloc(1, sizeof *acc), *one = calloc(1, sizeof *one);
	search_names *nm = calloc(1, sizeof *nm);
	char *workload = out->workload;
	int rc = 0;
	memset(out, 0, sizeof *out);
	out->res = acc;
	out->nm = nm;
	out->nshards = 1;
	if (!acc || !one || !nm) {
		free(one);
		return err_set(e, ERR_DATA, "out of memory");
	}
	for (int i = 0; i < argc && rc == 0; i++) {
		FILE *fp = os_open_read(argv[i],  e);   /* a named pipe is refused, not waited on */
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
			rc = err_set(e, ERR_DATA, "%s: not a regular file", argv[i]);
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
			rc = err_set(e, ERR_DATA, "%s: not a sweep JSON output", argv[i]);
			break;
		}
		{
			const cJSON *offers = cJSON_GetObjectItemCaseSensitive(root, "offers");
			const cJSON *wl = cJSON_GetObjectItemCaseSensitive(root, "workload");
			const cJSON *sum = cJSON_GetObjectItemCaseSensitive(root, "summary");
			int k = 0;
			if (!cJSON_IsArray(offers) || !cJSON_IsString(wl) || !cJSON_IsObject(sum)) {
				rc = err_set(e, ERR_DATA, "%s: not a sweep JSON output", argv[i]);
				cJSON_Delete(root);
				break;
			}
			if (i == 0)
				snprintf(workload, sizeof out->workload, "%s", wl->valuestring);
			else if (strcmp(workload, wl->valuestring))
				rc = err_set(e, ERR_DATA, "%s: workload %s differs from %s", argv[i], wl->valuestring,
					     workload);
			/* One complete set of slices of one space: the same N and space everywhere, every
			 * shard 0..N-1 exactly once. */
			{
				const cJSON *sp = cJSON_GetObjectItemCaseSensitive(sum, "space");
				const cJSON *as = cJSON_GetObjectItemCaseSensitive(root, "assumptions");
				double sh = num(sum, "shard"), n = num(sum, "shards");
				if (rc == 0 && (!cJSON_IsString(sp) || !(n >= 1 && n <= 1e6) || !(sh >= 0 && sh < n) ||
						sh != floor(sh) || n != floor(n)))
					rc = err_set(e, ERR_DATA, "%s: not a sweep --shard output (no shard, shards or space)",
						     argv[i]);
				if (rc == 0 && i == 0) {
					nshards = (int)n;
					snprintf(nm->space, sizeof nm->space, "%s", sp->valuestring);
					nm->space_layouts = num(sum, "space_layouts");
					if (cJSON_IsString(as))
						snprintf(nm->assumptions, sizeof nm->assumptions, "%s", as->valuestring);
					seen = calloc((size_t)nshards, sizeof *seen);
					if (!seen)
						rc = err_set(e, ERR_DATA, "out of memory");
				} else if (rc == 0 && (int)n != nshards) {
					rc = err_set(e, ERR_DATA, "%s: shard %d of %d, but %s is one of %d", argv[i], (int)sh,
						     (int)n, argv[0], nshards);
				} else if (rc == 0 && strcmp(nm->space, sp->valuestring)) {
					rc = err_set(e, ERR_DATA, "%s: a slice of another sweep than %s (its lists, systems, "
						     "pricing or --set differ)", argv[i], argv[0]);
				}
				if (rc == 0 && seen[(int)sh]++)
					rc = err_set(e, ERR_DATA, "%s: shard %d/%d is given twice", argv[i], (int)sh, nshards);
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
					rc = err_set(e, ERR_DATA, "%s: its systems and prices differ from %s", argv[i], argv[0]);
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
						rc = err_set(e, ERR_DATA, "%s: summary.%s is not a count", argv[i], keys[k2]);
					else
						*dst[k2] = (uint64_t)v;
				}
			}
			for (int part = 0; part < 2 && rc == 0; part++) {
				const cJSON *arr = cJSON_GetObjectItemCaseSensitive(root, part ? "pareto" : "top");
				cJSON_ArrayForEach(it, arr) {
					sweep_point p;
					if (point_from_json(it, &p) != 0 || p.offer >= nm->n) {
						rc = err_set(e, ERR_DATA, "%s: a point is malformed", argv[i]);
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
			rc = err_set(e, ERR_DATA, "sweep --merge: shard %d/%d is missing (%d of %d given)", k, nshards,
				     argc, nshards);
	if (rc == 0 && isfinite(nm->space_layouts) && (double)acc->total != nm->space_layouts)
		rc = err_set(e, ERR_DATA, "sweep --merge: the shards hold %llu layouts, the space %.0f",
			     (unsigned long long)acc->total, nm->space_layouts);
	free(seen);
	free(one);
	return rc;
}

void search_opts_init(search_opts *so)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	memset(so, 0, sizeof *so);
	so->top = 10;
	so->threads = n >= 1 && n <= 256 ? (int)n : 1;
	so->nshards = 1;
	so->max_layouts = SWEEP_LAYOUTS_DEFAULT_MAX;
}

int search_prepare(const home_paths *paths, db **store, const setup_opts *o, const search_opts *so,
		   search_result *out, err *e)
{
	static const char *const list_names[] = {"chips", "tp", "pp", "vpp", "cp", "ep", "sp", "mb", "zero",
						 "recompute"};
	sweep_space *sp = &out->space;
	sweep_list *lists[10];
	int nmodels = 0, models[PRICE_MODEL_N], nnames;
	char **names = NULL;
	wl_workload *w;
	hw_system *systems;
	search_names *nm;
	sweep_offer *offers;
	memset(out, 0, sizeof *out);
	*sp = so->space;
	lists[0] = &sp->chips;
	lists[1] = &sp->tp;
	lists[2] = &sp->pp;
	lists[3] = &sp->vpp;
	lists[4] = &sp->cp;
	lists[5] = &sp->ep;
	lists[6] = &sp->sp;
	lists[7] = &sp->mb;
	lists[8] = &sp->zero;
	lists[9] = &sp->recompute;
	out->w = w = malloc(sizeof *w);
	out->nm = nm = calloc(1, sizeof *nm);
	out->offers = offers = calloc(SWEEP_OFFERS_MAX, sizeof *offers);
	out->res = malloc(sizeof *out->res);
	out->threads = so->threads;
	out->shard = so->shard;
	out->nshards = so->nshards;
	if (!w || !nm || !offers || !out->res)
		return err_set(e, ERR_DATA, "out of memory");
	if (wl_load(o->workload, paths->workloads, paths->models, o->sets, o->nsets, w, e) != 0) {
		return e->code;
	}
	if (w->mode != WL_TRAIN) {
		err_set(e, ERR_USAGE, "sweep searches training layouts; %s is a serving workload (use compare)", w->name);
		return e->code;
	}
	/* Systems. */
	nnames = home_system_names(paths, o->system, &names, e);
	if (nnames < 0)
		return e->code;
	out->nsystems = nnames;
	out->systems = systems = calloc((size_t)(nnames ? nnames : 1), sizeof *systems);
	if (!systems) {
		home_free_names(names, nnames);
		return err_set(e, ERR_DATA, "out of memory");
	}
	for (int i = 0; i < nnames; i++)
		if (hw_find_system_cached(names[i], paths->models, paths->hw, &systems[i], e) != 0) {
			home_free_names(names, nnames);
			return e->code;
		}
	home_free_names(names, nnames);
	/* Pricing models and offers. */
	{
		if (!so->pricing_text) {
			models[nmodels++] = o->pricing >= 0 ? o->pricing : (int)w->cost.pricing;
		} else if (!strcmp(so->pricing_text, "all")) {
			for (int i = 0; i < PRICE_MODEL_N; i++)
				models[nmodels++] = i;
		} else {
			char buf[256], *save = NULL;
			if (strlen(so->pricing_text) >= sizeof buf) {
				err_set(e, ERR_USAGE, "--pricing: longer than %zu characters", sizeof buf - 1);
				return e->code;
			}
			snprintf(buf, sizeof buf, "%s", so->pricing_text);
			for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
				price_model m;
				if (price_parse_model(t, &m) != 0 || nmodels == PRICE_MODEL_N) {
					err_set(e, ERR_USAGE, "--pricing: '%s' is not a pricing model", t);
					return e->code;
				}
				models[nmodels++] = (int)m;
			}
		}
		setup_pricer pr;
		rank_opts ro;
		if (setup_check_prices(paths, o, e) != 0) {
			return e->code;
		}
		setup_rank_opts(&pr, paths, store, o, w, &ro);
		for (int i = 0; i < nnames; i++)
			for (int k = 0, first = nm->n; k < nmodels; k++) {
				rank_quote rcst;
				if (nm->n == SWEEP_OFFERS_MAX)
					break;
				ro.pricing = (price_model)models[k];
				if (rank_price(&ro, &systems[i], w, &rcst, e) != 0) {
					return e->code;
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
	if (so->chips_text) {
		if (sweep_parse_list(so->chips_text, &sp->chips) != 0) {
			err_set(e, ERR_USAGE, "--chips: '%s' is not a list like 1024,2048 or 1024-16384", so->chips_text);
			return e->code;
		}
	} else {
		plan p = w->plan;
		plan_fill(&p);
		sp->chips.v[0] = p.chips;
		sp->chips.n = 1;
	}
	if (!so->given[1]) {
		int node = nnames ? hw_node_chips(&systems[0]) : 8;
		for (int i = 0; i < nnames; i++)
			if (hw_node_chips(&systems[i]) > node)
				node = hw_node_chips(&systems[i]);
		sweep_parse_list(node >= 2 ? (node >= 16 ? "1-16" : node >= 8 ? "1-8" : "1-4") : "1", &sp->tp);
	}
	if (!so->given[2])
		sweep_parse_list("1-16", &sp->pp);
	if (!so->given[3])
		sweep_parse_list("1,2", &sp->vpp);
	if (!so->given[4])
		sweep_parse_list("1", &sp->cp);
	if (!so->given[5]) {
		if (w->net.experts > 1) {
			char buf[32];
			snprintf(buf, sizeof buf, "1-%d", w->net.experts);
			sweep_parse_list(buf, &sp->ep);
		} else {
			sweep_parse_list("1", &sp->ep);
		}
	}
	if (!so->given[6])
		sweep_parse_list("0,1", &sp->sp);
	if (!so->given[7])
		sweep_parse_list("1,2,4", &sp->mb);
	if (!so->given[8])
		sweep_parse_list("0-3:1", &sp->zero);
	if (!so->given[9])
		sweep_parse_list("0-2:1", &sp->recompute);
	for (int i = 0; i < sp->zero.n; i++)
		if (sp->zero.v[i] > 3) {
			err_set(e, ERR_USAGE, "--zero: stages are 0..3");
			return e->code;
		}
	for (int i = 0; i < sp->sp.n; i++)
		if (sp->sp.v[i] > 1) {
			err_set(e, ERR_USAGE, "--sp: 0 or 1");
			return e->code;
		}
	for (int li = 0; li < 8; li++) {
		/* chips tp pp vpp cp ep sp mb: the ranges of lim.h. */
		static const int hi[8] = {LIM_CHIPS, LIM_CHIPS, LIM_PP, LIM_VPP, LIM_CHIPS, LIM_CHIPS, 1,
					  LIM_MICRO_BATCH};
		for (int i = 0; i < lists[li]->n; i++) {
			if (lists[li]->v[i] < (li == 6 ? 0 : 1)) {
				err_set(e, ERR_USAGE, "--%s: values must be at least 1", list_names[li]);
				return e->code;
			}
			if (lists[li]->v[i] > hi[li]) {
				err_set(e, ERR_USAGE, "--%s: %d is more than %d", list_names[li], lists[li]->v[i], hi[li]);
				return e->code;
			}
		}
	}
	snprintf(out->workload, sizeof out->workload, "%s", w->name);
	describe(sp, nm, o, w, models, nmodels, paths, out->nsystems ? &systems[0] : NULL);
	/* The size first: refused beyond --max-layouts (the caller says it before the run). */
	out->total = sweep_size(sp, nm->n);
	sweep_slice(out->total, so->shard, so->nshards, &out->lo, &out->hi);
	if (out->total == UINT64_MAX)
		return err_set(e, ERR_USAGE, "sweep: the space has more than 1.8e19 layouts; narrow the lists");
	if (out->hi - out->lo > so->max_layouts)
		return err_set(e, ERR_USAGE, "sweep: %llu layouts%s are more than --max-layouts %llu "
			       "(at about 2.5e6 layouts/s on two cores); narrow the lists, split it with "
			       "--shard, or raise --max-layouts", (unsigned long long)(out->hi - out->lo),
			       so->nshards > 1 ? " in this shard" : "", (unsigned long long)so->max_layouts);
	return 0;
}

int search_run(search_result *out, const search_opts *so, err *e)
{
	sweep_job job;
	struct timespec t0, t1;
	memset(&job, 0, sizeof job);
	job.space = &out->space;
	job.w = out->w;
	job.offers = out->offers;
	job.noffers = out->nm->n;
	job.top_k = so->top;
	job.threads = so->threads;
	job.shard = so->shard;
	job.nshards = so->nshards;
	job.progress = so->progress;
	job.progress_ctx = so->progress_ctx;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (sweep_run(&job, out->res) != 0)
		return err_set(e, ERR_DATA, "sweep: out of memory or could not start threads");
	clock_gettime(CLOCK_MONOTONIC, &t1);
	out->secs = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
	return 0;
}

void search_release(search_result *out)
{
	free(out->w);
	free(out->systems);
	free(out->nm);
	free(out->offers);
	free(out->res);
	memset(out, 0, sizeof *out);
}

int search_shard_auto(const char *slurm_id, const char *slurm_count, const char *k8s_index, int count,
		      int *shard, int *nshards, err *e)
{
	int i, n;
	const char *what;
	if (slurm_id && *slurm_id) {
		what = "SLURM_ARRAY_TASK_ID";
		if (opt_int(slurm_id, 0, 1000000, &i) != 0)
			return err_set(e, ERR_USAGE, "--shard auto: %s='%s' is not a whole number", what, slurm_id);
		if (count > 0) {
			n = count;
		} else if (slurm_count && *slurm_count) {
			if (opt_int(slurm_count, 1, 1000000, &n) != 0)
				return err_set(e, ERR_USAGE, "--shard auto: SLURM_ARRAY_TASK_COUNT='%s' is not a whole "
					       "number from 1", slurm_count);
		} else {
			return err_set(e, ERR_USAGE, "--shard auto: SLURM_ARRAY_TASK_ID is set but not "
				       "SLURM_ARRAY_TASK_COUNT; give the count (--shard auto/N)");
		}
	} else if (k8s_index && *k8s_index) {
		what = "JOB_COMPLETION_INDEX";
		if (opt_int(k8s_index, 0, 1000000, &i) != 0)
			return err_set(e, ERR_USAGE, "--shard auto: %s='%s' is not a whole number", what, k8s_index);
		if (count <= 0)
			return err_set(e, ERR_USAGE, "--shard auto: a Kubernetes Indexed Job does not export its "
				       "completions; give them (--shard auto/N)");
		n = count;
	} else {
		return err_set(e, ERR_USAGE, "--shard auto: neither SLURM_ARRAY_TASK_ID (a Slurm job array) nor "
			       "JOB_COMPLETION_INDEX (a Kubernetes Indexed Job) is set; give --shard I/N");
	}
	if (i >= n)
		return err_set(e, ERR_USAGE, "--shard auto: %s=%d is not below the %d shards (array indices are "
			       "0..N-1: sbatch --array=0-%d)", what, i, n, n - 1);
	*shard = i;
	*nshards = n;
	return 0;
}


int search_shard_option(const char *arg, int *shard, int *nshards, err *e)
{
	if (!strncmp(arg, "auto", 4) && (arg[4] == '\0' || arg[4] == '/')) {
		int count = 0;
		if (arg[4] == '/' && opt_int(arg + 5, 1, 1000000, &count) != 0)
			return err_set(e, ERR_USAGE, "--shard: '%s' is not auto or auto/N with 1 <= N <= 1000000", arg);
		return search_shard_auto(getenv("SLURM_ARRAY_TASK_ID"), getenv("SLURM_ARRAY_TASK_COUNT"),
					 getenv("JOB_COMPLETION_INDEX"), count, shard, nshards, e);
	}
	if (opt_int_pair(arg, '/', 0, 1000000, shard, nshards) != 0 || *nshards < 1 || *shard >= *nshards)
		return err_set(e, ERR_USAGE, "--shard: '%s' is not I/N with 0 <= I < N <= 1000000, or auto", arg);
	return 0;
}
