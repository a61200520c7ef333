/* report: the report folder (see report.h). */
#define _XOPEN_SOURCE 700 /* nftw */
#include "report/report.h"

#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/cost.h"
#include "report/html.h"
#include "base/out.h"
#include "report/plot.h"
#include "model/price.h"
#include "report/show.h"
#include "engine/sweep.h"
#include "base/os.h"

/* Set by report_cancel (a signal handler): the report in progress stops. */
static volatile sig_atomic_t cancelled;

static const double GiB = 1073741824.0;

/* ------------------------------------------------------------------ the numbers */

int report_loads(int max, int *out, int cap)
{
	int n = 0, last = 0;
	for (int k = 0; n < cap; k++) {
		int v = (int)lround(pow(2.0, k / 2.0));
		if (v > max)
			break;
		if (v != last)
			out[n++] = last = v;
	}
	return n;
}

void report_load_point(const hw_system *s, const wl_workload *w, const plan *p, int load,
		       double usd_per_chip_hour, report_load *out)
{
	/* A closed loop of `load` requests over all replicas: `single` is the steady state
	 * infer_curve gives, with the batch the KV cache holds and the rest waiting. infer_eval
	 * rather than infer_curve, so that cost and the SLO check see the same result. */
	wl_workload wc = *w;
	infer_result r;
	rank_quote c;
	wc.scenario = WL_SINGLE;
	wc.concurrency = load;
	infer_eval(s, &wc, p, &r, NULL, NULL);
	memset(out, 0, sizeof *out);
	out->load = load;
	out->feasible = r.feasible;
	out->slo_met = rank_slo_met(w, &r);
	out->tokens_per_s = r.tokens_per_s;
	out->per_chip = r.tokens_per_s_per_chip;
	out->per_user = r.tpot > 0 ? 1 / r.tpot : NAN;
	out->ttft = r.ttft;
	out->ttft_tail = r.ttft_tail;
	out->tpot = r.tpot;
	out->tpot_tail = r.tpot_tail;
	out->mem = r.mem.total;
	snprintf(out->reason, sizeof out->reason, "%s", r.feasible ? "" : r.reason);
	memset(&c, 0, sizeof c);
	c.pricing = w->cost.pricing;
	c.have_price = isfinite(usd_per_chip_hour);
	c.usd_per_chip_hour = usd_per_chip_hour;
	c.rated_w_per_chip = hw_rated_w_per_chip(s);
	rank_cost(&wc, NULL, &r, &c);
	out->usd_per_unit = c.result.ok && r.feasible ? c.result.usd_per_unit : NAN;
	out->per_mw = r.feasible ? c.energy.tokens_per_s_per_mw : NAN;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static int priced(const report_load *p)
{
	return p->feasible && isfinite(p->usd_per_unit) && isfinite(p->per_user);
}

int report_cheapest_spans(const report_load *const *curves, const int *n, int nsys, report_span *spans,
			  int cap)
{
	double *u;
	int nu = 0, ns = 0, total = 0;
	for (int k = 0; k < nsys; k++)
		total += n[k];
	u = malloc((size_t)(total ? total : 1) * sizeof *u);
	if (!u)
		return 0;
	for (int k = 0; k < nsys; k++)
		for (int i = 0; i < n[k]; i++)
			if (priced(&curves[k][i]))
				u[nu++] = curves[k][i].per_user;
	qsort(u, (size_t)nu, sizeof *u, cmp_double);
	/* A required speed in (u[j-1], u[j]] admits exactly the points at least u[j] fast. */
	for (int j = 0; j < nu; j++) {
		int best = -1;
		double best_c = INFINITY;
		if (j > 0 && u[j] == u[j - 1])
			continue;
		for (int k = 0; k < nsys; k++)
			for (int i = 0; i < n[k]; i++) {
				const report_load *p = &curves[k][i];
				if (priced(p) && p->per_user >= u[j] && p->usd_per_unit < best_c) {
					best_c = p->usd_per_unit;
					best = k;
				}
			}
		if (ns > 0 && spans[ns - 1].sys == best) {
			spans[ns - 1].hi = u[j];
		} else if (ns < cap) {
			spans[ns].sys = best;
			spans[ns].lo = ns > 0 ? spans[ns - 1].hi : 0;
			spans[ns].hi = u[j];
			ns++;
		}
	}
	free(u);
	return ns;
}

const char *const report_infer_parts_names[REPORT_PARTS] = {
	"compute-bound ops", "memory-bound ops", "kernel floors", "network: node",
	"network: scale-up domain", "network: scale-out", "runtime per layer"};

const char *const report_train_parts_names[REPORT_PARTS] = {
	"compute", "network: node", "network: scale-up domain", "network: scale-out",
	"pipeline bubble", "optimizer step", "lost to failures"};

const char *const report_mem_parts_names[REPORT_MEM_PARTS] = {
	"weights", "gradients", "optimizer state", "activations", "KV cache"};

/* Adds net seconds of exposed communication into parts[first + level kind], split as level[]
 * is (all on the innermost level when level[] is empty). */
static void split_levels(const hw_system *s, const double *level, double net, double *parts, int first)
{
	double sum = 0;
	for (int l = 0; l < s->nlevels; l++)
		sum += level[l];
	for (int l = 0; l < s->nlevels; l++) {
		int k = first + (int)s->levels[l].kind;
		if (sum > 0)
			parts[k] += net * level[l] / sum;
		else if (l == 0)
			parts[k] += net;
	}
}

void report_infer_parts(const hw_system *s, const infer_result *r, double parts[REPORT_PARTS])
{
	const infer_step *st = &r->step;
	double pp = r->plan.pp > 0 ? r->plan.pp : 1;
	for (int k = 0; k < REPORT_PARTS; k++)
		parts[k] = 0;
	for (int k = 0; k < 3; k++)
		parts[k] = pp * st->ops.t_bound[k];
	parts[6] = pp * st->t_overhead;
	/* infer.c: step = pp·(ops + communication + runtime) + (pp-1) pipeline sends. */
	split_levels(s, st->comm_level, fmax(0, st->t - pp * (st->ops.t + st->t_overhead)), parts, 3);
}

void report_train_parts(const hw_system *s, const train_result *r, double goodput,
			double parts[REPORT_PARTS])
{
	for (int k = 0; k < REPORT_PARTS; k++)
		parts[k] = 0;
	/* train.h: step = m·t_micro + bubble + exposed data-parallel sync + optimizer, where
	 * m·t_micro = m·(ops + communication on the critical path). */
	parts[0] = r->t_compute;
	split_levels(s, r->comm.level, r->t_comm_exposed, parts, 1);
	parts[4] = r->t_bubble;
	parts[5] = r->t_optimizer;
	parts[6] = goodput > 0 ? r->step_time * (1 / goodput - 1) : NAN;
}

void report_mem_parts(const mem_use *m, double parts[REPORT_MEM_PARTS])
{
	parts[0] = m->weights;
	parts[1] = m->grads;
	parts[2] = m->optimizer;
	parts[3] = m->activations;
	parts[4] = m->kv_cache;
}

int report_roof_ops(const hw_chip *c, const ops_list *l, report_roof_op *out)
{
	int n = 0;
	for (int i = 0; i < l->n && n < OPS_MAX; i++) {
		const ops_op *o = &l->op[i];
		roof_time t;
		if (!(o->flops > 0) || !(o->bytes > 0) || !(o->count > 0))
			continue;
		t = roof_op(c, o);
		if (!(t.t > 0))
			continue;
		out[n].name = o->name;
		out[n].phase = o->phase;
		out[n].intensity = o->flops / o->bytes;
		out[n].achieved = o->flops / t.t;
		out[n].t = t.t;
		out[n].count = o->count;
		out[n].bound = t.bound;
		n++;
	}
	return n;
}

double report_roof(const hw_chip *c, hw_prec p, double intensity)
{
	hw_prec rp = hw_run_prec(c, p);
	double peak;
	if (rp == HW_PREC_N)
		rp = hw_widest_prec(c); /* no rate for p (an infeasible result): the estimate's */
	peak = rp < HW_PREC_N ? c->peak[rp] : 0;
	return fmin(peak, intensity * c->hbm_bw);
}

/* ------------------------------------------------------------------ the writer */

enum { PLOTS_MAX = 16, PRICES_MAX = 256 };

typedef struct rep {
	const report_opts *o;
	const wl_workload *w;
	err *e;
	char dir[REPORT_PATH_MAX];         /* the folder being written (temporary name) */
	html_page page;
	rank_row *rows;                    /* best first */
	int n;
	int color[REPORT_SYSTEMS_MAX];        /* per row: the system's place in -s */
	char gnuplot[REPORT_PATH_MAX];     /* "" = not found */
	char plot[PLOTS_MAX][PLOT_NAME_MAX];
	int nplots;
	price_row prices[PRICES_MAX];      /* the rows used */
	int nprices;
	char hw_lo[HW_DATE_MAX], hw_hi[HW_DATE_MAX];
	char capex_lo[HW_DATE_MAX], capex_hi[HW_DATE_MAX]; /* of the owned prices used ("" = none) */
	char footer_hw[PLOT_TEXT_MAX], footer_all[PLOT_TEXT_MAX];
	plot_spec *ps;
} rep;

static int oom(rep *r)
{
	return err_set(r->e, ERR_DATA, "out of memory");
}

static int mkdirs(const char *path)
{
	char buf[REPORT_PATH_MAX];
	snprintf(buf, sizeof buf, "%s", path);
	for (char *s = buf + 1; *s; s++)
		if (*s == '/') {
			*s = '\0';
			if (mkdir(buf, 0777) != 0 && errno != EEXIST)
				return -1;
			*s = '/';
		}
	return mkdir(buf, 0777) != 0 && errno != EEXIST ? -1 : 0;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	(void)st;
	(void)flag;
	(void)f;
	return remove(path);
}

static void remove_tree(const char *path)
{
	nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* A paragraph (kind) from a format. Returns 0 or nonzero with e set. */
static int say(rep *r, html_kind kind, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int say(rep *r, html_kind kind, const char *fmt, ...)
{
	char buf[4096];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	return html_add(&r->page, kind, NULL, buf) != 0 ? oom(r) : 0;
}

static int heading(rep *r, const char *id, const char *text)
{
	return html_add(&r->page, HTML_H2, id, text) != 0 ? oom(r) : 0;
}

/* Appends to buf (size n) like snprintf. */
static void cat(char *buf, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void cat(char *buf, size_t n, const char *fmt, ...)
{
	size_t l = strlen(buf);
	va_list ap;
	if (l + 1 >= n)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + l, n - l, fmt, ap);
	va_end(ap);
}

static char *num(char *buf, double v)
{
	if (!isfinite(v))
		snprintf(buf, 32, "%s", "");
	else
		snprintf(buf, 32, "%.6g", v);
	return buf;
}

/* Writes t as DIR/data/NAME.csv. */
static int write_csv(rep *r, const char *name, const out_table *t)
{
	char path[REPORT_PATH_MAX + 64];
	FILE *fp;
	snprintf(path, sizeof path, "%s/data/%s.csv", r->dir, name);
	fp = fopen(path, "w");
	if (!fp)
		return err_set(r->e, ERR_DATA, "%s: cannot write: %s", path, strerror(errno));
	out_print(t, OUT_CSV, fp);
	if (fclose(fp) != 0)
		return err_set(r->e, ERR_DATA, "%s: cannot write: %s", path, strerror(errno));
	return 0;
}

/* Writes t as data/NAME.csv and, when show is 1, hands it to the page. */
static int table_out(rep *r, const char *name, out_table *t, int show)
{
	int rc = write_csv(r, name, t);
	if (rc == 0 && show && html_add_table(&r->page, t) != 0)
		rc = oom(r);
	out_release(t);
	return rc;
}

static int table_start(rep *r, out_table *t, int ncols, const char *const *hdr)
{
	return out_init(t, ncols, hdr) != 0 ? oom(r) : 0;
}

/* Writes the plot's .gp and .dat and puts it on the page. */
static int emit_plot(rep *r, const char *csv, const char *caption)
{
	char plots[REPORT_PATH_MAX + 16], svg[REPORT_PATH_MAX + 96], missing[512];
	const plot_spec *s = r->ps;
	snprintf(plots, sizeof plots, "%s/plots", r->dir);
	if (plot_write(s, plots, r->e) != 0)
		return ERR_DATA;
	if (r->nplots < PLOTS_MAX)
		snprintf(r->plot[r->nplots++], PLOT_NAME_MAX, "%s", s->name);
	snprintf(svg, sizeof svg, "%s/%s.svg", plots, s->name);
	snprintf(missing, sizeof missing, "Plot not drawn (gnuplot was not found): its script is "
		 "`plots/%s.gp`, its numbers `data/%s.csv`.", s->name, csv);
	if (html_add_figure(&r->page, s->name, svg, caption, missing) != 0)
		return oom(r);
	return 0;
}

static void plot_start(rep *r, const char *name, const char *title, int uses_prices)
{
	plot_init(r->ps, name, title);
	r->ps->key_panel = 0;
	snprintf(r->ps->footer, sizeof r->ps->footer, "%s", uses_prices ? r->footer_all : r->footer_hw);
}

static void axes(rep *r, int panel, const char *title, const char *x, const char *y, int logx, int logy)
{
	plot_panel *p = &r->ps->panel[panel];
	snprintf(p->title, sizeof p->title, "%s", title);
	snprintf(p->xlabel, sizeof p->xlabel, "%s", x);
	snprintf(p->ylabel, sizeof p->ylabel, "%s", y);
	p->logx = logx;
	p->logy = logy;
	if (panel + 1 > r->ps->npanels)
		r->ps->npanels = panel + 1;
}

static void date_range(char *lo, char *hi, const char *d)
{
	if (!d[0])
		return;
	if (!lo[0] || strcmp(d, lo) < 0)
		snprintf(lo, HW_DATE_MAX, "%s", d);
	if (!hi[0] || strcmp(d, hi) > 0)
		snprintf(hi, HW_DATE_MAX, "%s", d);
}

/* Records a catalog row used (the user's own prices are in the command, not a catalog). */
static void add_price(rep *r, const rank_quote *c)
{
	if (c->have_price && c->pricing == PRICE_OWNED && !c->user_price && !c->user_capex)
		date_range(r->capex_lo, r->capex_hi, c->price.as_of); /* an owned price is as old as its capex */
	if (!c->have_price || c->user_price || c->pricing == PRICE_OWNED)
		return;   /* a user's or an owned price is no catalog row */
	for (int i = 0; i < r->nprices; i++) {
		const price_row *p = &r->prices[i];
		if (!strcmp(p->provider, c->price.provider) && !strcmp(p->instance, c->price.instance) &&
		    !strcmp(p->region, c->price.region) && p->model == c->price.model &&
		    !strcmp(p->as_of, c->price.as_of))
			return;
	}
	if (r->nprices < PRICES_MAX)
		r->prices[r->nprices++] = c->price;
}

/* The as_of ranges of the hardware figures and of the prices used, for the plots' footers. */
static void footers(rep *r)
{
	char plo[HW_DATE_MAX] = "", phi[HW_DATE_MAX] = "", pr[128] = "";
	for (int i = 0; i < r->n; i++) {
		const hw_system *s = r->rows[i].sys;
		const hw_chip *c = &s->chip;
		date_range(r->hw_lo, r->hw_hi, s->src.as_of);
		date_range(r->hw_lo, r->hw_hi, c->src_chip.as_of);
		date_range(r->hw_lo, r->hw_hi, c->src_peak.as_of);
		date_range(r->hw_lo, r->hw_hi, c->src_memory.as_of);
		date_range(r->hw_lo, r->hw_hi, c->src_eff.as_of);
		for (int l = 0; l < s->nlevels; l++)
			date_range(r->hw_lo, r->hw_hi, s->levels[l].src.as_of);
	}
	for (int i = 0; i < r->nprices; i++)
		date_range(plo, phi, r->prices[i].as_of);
	if (plo[0])
		snprintf(pr, sizeof pr, ", prices %s%s%s", plo, strcmp(plo, phi) ? " to " : "",
			 strcmp(plo, phi) ? phi : "");
	if (r->capex_lo[0])
		cat(pr, sizeof pr, ", capex %s%s%s", r->capex_lo, strcmp(r->capex_lo, r->capex_hi) ? " to " : "",
		    strcmp(r->capex_lo, r->capex_hi) ? r->capex_hi : "");
	snprintf(r->footer_hw, sizeof r->footer_hw, "%s | hardware as_of %s%s%s | roofcost %s",
		 r->w->name, r->hw_lo, strcmp(r->hw_lo, r->hw_hi) ? " to " : "",
		 strcmp(r->hw_lo, r->hw_hi) ? r->hw_hi : "", r->o->version);
	snprintf(r->footer_all, sizeof r->footer_all, "%s | hardware as_of %s%s%s%s | roofcost %s",
		 r->w->name, r->hw_lo, strcmp(r->hw_lo, r->hw_hi) ? " to " : "",
		 strcmp(r->hw_lo, r->hw_hi) ? r->hw_hi : "", pr, r->o->version);
}

static const char *sys_name(const rep *r, int i)
{
	return r->rows[i].sys->name;
}

/* A layout for legends: tp, and the other degrees above 1. */
static void short_plan(const plan *p, char *buf, size_t n)
{
	snprintf(buf, n, "tp=%d", p->tp);
	if (p->pp > 1)
		cat(buf, n, " pp=%d", p->pp);
	if (p->dp > 1)
		cat(buf, n, " dp=%d", p->dp);
	if (p->cp > 1)
		cat(buf, n, " cp=%d", p->cp);
	if (p->ep > 1)
		cat(buf, n, " ep=%d", p->ep);
}

/* "a, b and c" joining: the separator before item i of n. */
static const char *sep(int i, int n)
{
	return i == 0 ? "" : i == n - 1 ? " and " : ", ";
}

/* The unit as a reader says it: "M output tokens" for mtok, else its name. */
static const char *unit_name(const wl_workload *w)
{
	return cost_unit_text[w->cost.unit];
}

/* A cost as "$3.890", "$227,635" or "$231.2M". */
static char *usd(char *buf, double v)
{
	if (!isfinite(v)) {
		snprintf(buf, 32, "-");
	} else if (v >= 1e6) {
		snprintf(buf, 32, "$%.1fM", v / 1e6);
	} else if (v >= 1e3) {
		long k = lround(v);
		snprintf(buf, 32, "$%ld,%03ld", k / 1000, k % 1000);
	} else if (v >= 100) {
		snprintf(buf, 32, "$%.0f", v);
	} else {
		snprintf(buf, 32, "$%.3f", v);
	}
	return buf;
}

/* ---- the ranking, shared by both modes */

/* Row i of the ranking as the page shows it. */
static int ranking_row(rep *r, out_table *d, int i)
{
	const rank_row *x = &r->rows[i];
	const cost_result *cr = &x->cost.result;
	char v[10][48], pl[64];
	const char *cells[11];
	snprintf(v[0], 48, "%d", i + 1);
	short_plan(r->w->mode == WL_INFER ? &x->ir.plan : &x->tr.plan, pl, sizeof pl);
	if (r->w->mode == WL_INFER) {
		snprintf(v[1], 48, "%d", x->ir.plan.chips);
		snprintf(v[2], 48, "%.0f", x->ir.batch);
		snprintf(v[3], 48, "%.1f", x->ir.tokens_per_s_per_chip);
		snprintf(v[4], 48, "%.0f (%.0f)", x->ir.ttft * 1e3, x->ir.ttft_tail * 1e3);
		snprintf(v[5], 48, "%.1f (%.1f)", x->ir.tpot * 1e3, x->ir.tpot_tail * 1e3);
	} else {
		double days = (isfinite(cr->run_time) && cr->run_time > 0 ? cr->run_time : x->tr.train_time) / 86400;
		if (x->tr.plan.vpp > 1)
			cat(pl, sizeof pl, " vpp=%d", x->tr.plan.vpp);
		cat(pl, sizeof pl, " zero=%d%s%s", x->w.zero, x->w.recompute ? " " : "",
		    x->w.recompute ? wl_recompute_names[x->w.recompute] : "");
		snprintf(v[1], 48, "%d", x->tr.plan.chips);
		snprintf(v[2], 48, "%.0f", x->tr.tokens_per_s);
		snprintf(v[3], 48, "%.1f", 100 * x->tr.mfu);
		snprintf(v[4], 48, "%.1f", 100 * cr->goodput.goodput);
		snprintf(v[5], 48, "%.1f", days);
	}
	if (isfinite(cr->usd_per_hour) && cr->usd_per_hour < 1000)
		snprintf(v[6], 48, "%.2f", cr->usd_per_hour);
	else
		usd(v[6], cr->usd_per_hour);
	usd(v[7], cr->ok ? cr->usd_per_unit : NAN);
	cells[0] = v[0];
	cells[1] = x->sys->name;
	cells[2] = v[1];
	cells[3] = pl;
	for (int k = 0; k < 4; k++)
		cells[4 + k] = v[2 + k];
	cells[8] = v[6];
	cells[9] = v[7];
	cells[10] = x->bound;
	return out_row(d, cells);
}

static int ranking(rep *r)
{
	const wl_workload *w = r->w;
	int train = w->mode == WL_TRAIN;
	static const char *const ih[] = {"rank", "system", "chip", "chips", "layout", "load", "tokens_per_s",
					 "tokens_per_s_per_chip", "ttft_ms", "tpot_ms", "ttft_ms_tail",
					 "tpot_ms_tail", "usd_per_hour", "usd_per_unit", "bound", "verdict", "power_w",
					 "energy_kwh_per_unit", "tokens_per_s_per_mw"};
	static const char *const th[] = {"rank", "system", "chip", "chips", "layout", "tokens_per_s", "mfu_pct",
					 "goodput_pct", "step_s", "train_days", "usd_per_hour", "usd_per_unit",
					 "bound", "verdict", "power_w", "energy_kwh_per_unit", "tokens_per_s_per_mw"};
	static const char *const id[] = {"#", "system", "chips", "layout", "load", "tokens/s per chip",
					 "TTFT ms (tail)", "TPOT ms (tail)", "USD/h", "", "bound"};
	static const char *const td[] = {"#", "system", "chips", "layout", "tokens/s", "MFU %", "goodput %",
					 "days", "USD/h", "", "bound"};
	int nc = train ? 14 : 16;   /* and the three of power and energy after them */
	out_table t, d;
	char s[512] = "", b[32], c[32];
	if (table_start(r, &t, nc + 3, train ? th : ih) != 0)
		return ERR_DATA;
	const char *dh[11];
	char unit_h[48], verdicts[4096] = "";
	snprintf(unit_h, sizeof unit_h, "USD per %s", unit_name(w));
	for (int k = 0; k < 11; k++)
		dh[k] = k == 9 ? unit_h : train ? td[k] : id[k];
	if (table_start(r, &d, 11, dh) != 0) {
		out_release(&t);
		return ERR_DATA;
	}
	for (int k = 0; k < 10; k++)
		if (k != 1 && k != 3)
			out_right(&d, k);
	for (int k = 0; k < nc + 3; k++)
		if (k == 0 || k == 3 || (k >= 5 && k < nc - 2) || k >= nc)
			out_right(&t, k);
	for (int i = 0; i < r->n; i++) {
		const rank_row *x = &r->rows[i];
		const cost_result *cr = &x->cost.result;
		char v[12][32], pw[3][32];
		const char *cells[19];
		snprintf(v[0], 32, "%d", i + 1);
		cells[nc] = num(pw[0], x->cost.energy.power_w);
		cells[nc + 1] = num(pw[1], x->cost.energy.energy_kwh_per_unit);
		cells[nc + 2] = num(pw[2], x->cost.energy.tokens_per_s_per_mw);
		if (!train) {
			snprintf(v[1], 32, "%d", x->ir.plan.chips);
			snprintf(v[2], 32, "%.0f", x->ir.batch);
			snprintf(v[3], 32, "%.0f", x->ir.tokens_per_s);
			snprintf(v[4], 32, "%.1f", x->ir.tokens_per_s_per_chip);
			snprintf(v[5], 32, "%.0f", x->ir.ttft * 1e3);
			snprintf(v[6], 32, "%.1f", x->ir.tpot * 1e3);
			snprintf(v[7], 32, "%.0f", x->ir.ttft_tail * 1e3);
			snprintf(v[8], 32, "%.1f", x->ir.tpot_tail * 1e3);
		} else {
			double days = (isfinite(cr->run_time) && cr->run_time > 0 ? cr->run_time : x->tr.train_time) / 86400;
			snprintf(v[1], 32, "%d", x->tr.plan.chips);
			snprintf(v[2], 32, "%.0f", x->tr.tokens_per_s);
			snprintf(v[3], 32, "%.1f", 100 * x->tr.mfu);
			snprintf(v[4], 32, "%.1f", 100 * cr->goodput.goodput);
			snprintf(v[5], 32, "%.3f", x->tr.step_time);
			snprintf(v[6], 32, "%.1f", days);
		}
		if (isfinite(cr->usd_per_hour))
			snprintf(v[9], 32, "%.2f", cr->usd_per_hour);
		else
			snprintf(v[9], 32, "-");
		if (cr->ok && isfinite(cr->usd_per_unit))
			snprintf(v[10], 32, cr->usd_per_unit < 100 ? "%.3f" : "%.0f", cr->usd_per_unit);
		else
			snprintf(v[10], 32, "-");
		cells[0] = v[0];
		cells[1] = x->sys->name;
		cells[2] = x->sys->chip.name;
		cells[3] = v[1];
		cells[4] = x->plan;
		if (!train) {
			for (int k = 0; k < 7; k++)
				cells[5 + k] = v[2 + k];
			cells[12] = v[9];
			cells[13] = v[10];
			cells[14] = x->bound;
			cells[15] = x->verdict;
		} else {
			for (int k = 0; k < 5; k++)
				cells[5 + k] = v[2 + k];
			cells[10] = v[9];
			cells[11] = v[10];
			cells[12] = x->bound;
			cells[13] = x->verdict;
		}
		if (out_row(&t, cells) != 0 || ranking_row(r, &d, i) != 0) {
			out_release(&t);
			out_release(&d);
			return oom(r);
		}
	}
	/* The sentence: who wins, by how much the others lose. */
	for (int i = 0; i < r->n; i++) {
		const rank_row *x = &r->rows[i];
		if (i == 0 && x->klass == RANK_PRICED)
			cat(s, sizeof s, "%s is the cheapest at %s per %s%s (%d chips, %s)", x->sys->name,
			    usd(b, x->cost.result.usd_per_unit), unit_name(w), train ? "" : " at the latency limits",
			    train ? x->tr.plan.chips : x->ir.plan.chips, x->plan);
		else if (i == 0)
			cat(s, sizeof s, "%s ranks first (%s)", x->sys->name, x->verdict);
		else if (x->klass == RANK_PRICED)
			cat(s, sizeof s, "%s%s %s (+%.0f%%)", i == 1 ? "; then " : ", ", x->sys->name,
			    usd(c, x->cost.result.usd_per_unit),
			    100 * (x->cost.result.usd_per_unit / r->rows[0].cost.result.usd_per_unit - 1));
		else if (x->klass == RANK_NO_PRICE)
			cat(s, sizeof s, "%s%s has no price", i == 1 ? "; " : ", ", x->sys->name);
		else if (x->klass == RANK_MISSES_SLO)
			cat(s, sizeof s, "%s%s misses the latency limits", i == 1 ? "; " : ", ", x->sys->name);
		else
			cat(s, sizeof s, "%s%s is %s", i == 1 ? "; " : ", ", x->sys->name,
			    x->klass == RANK_OVER_BUDGET ? "over the budget" : "infeasible");
	}
	for (int i = 1; i < r->n; i++)
		cat(verdicts, sizeof verdicts, "%s%s: %s", i > 1 ? "; " : "", sys_name(r, i), r->rows[i].verdict);
	if (heading(r, "ranking", "Ranking") != 0 || say(r, HTML_P, "%s.", s) != 0 ||
	    html_add_table(&r->page, &d) != 0 ||
	    (verdicts[0] && say(r, HTML_NOTE, "Why the others rank lower: %s.", verdicts) != 0)) {
		out_release(&t);
		out_release(&d);
		return ERR_DATA;
	}
	return table_out(r, "ranking", &t, 0);
}

/* The assumptions and the prices, under the ranking. */
/* Each price's age and the freshness warning (rank_price_ages): ages count to --as-of when
 * given, else to the newest price compared, so that the same inputs give the same report. */
static int price_ages(rep *r)
{
	static const char *const hdr[] = {"system", "pricing_model", "as_of", "age_days", "verified"};
	rank_ages a;
	out_table t;
	const char *ref;
	rank_price_ages(r->rows, r->n, r->w->cost.owned.price_age_days, &a);
	if (!a.n)
		return 0;
	ref = r->o->rank.as_of && r->o->rank.as_of[0] ? r->o->rank.as_of : r->rows[a.newest].cost.price.as_of;
	if (table_start(r, &t, 5, hdr) != 0)
		return ERR_DATA;
	out_right(&t, 3);
	for (int i = 0; i < r->n; i++) {
		const rank_quote *c = &r->rows[i].cost;
		char v[32];
		const char *cells[5] = {sys_name(r, i), price_model_names[c->pricing], c->have_price ? c->price.as_of : "",
					v, c->have_price ? (price_verified(&c->price) ? "yes" : "no") : ""};
		double age = c->have_price && !c->user_price ? rank_price_age_days(&c->price, ref) : NAN;
		snprintf(v, sizeof v, isfinite(age) ? "%.0f" : "-", age);
		if (out_row(&t, cells) != 0) {
			out_release(&t);
			return oom(r);
		}
	}
	if (say(r, HTML_NOTE, "Price ages: days from each price's as_of to %s (%s); the prices compared span %.0f "
		"days.%s%s", ref, r->o->rank.as_of && r->o->rank.as_of[0] ? "--as-of" : "the newest price compared",
		a.spread_days, a.stale ? " Warning: " : "", a.stale ? a.text : "") != 0) {
		out_release(&t);
		return ERR_DATA;
	}
	return table_out(r, "price_ages", &t, 1);
}

static int assumptions(rep *r)
{
	char terms[RANK_NOTE_MAX], buf[4096] = "";
	if (r->n == 0)
		return 0;
	show_terms_text(&r->rows[0].cost, r->w->mode == WL_TRAIN, terms, sizeof terms);
	for (int i = 0; i < r->n; i++) {
		const rank_quote *c = &r->rows[i].cost;
		if (c->have_price && c->user_price)
			cat(buf, sizeof buf, "%s%s: $%.4g per chip-hour (your own, --price)", i ? "; " : "",
			    r->rows[i].sys->name, c->usd_per_chip_hour);
		else if (c->have_price)
			cat(buf, sizeof buf, "%s%s: $%.4g per chip-hour (%s %s %s, as_of %s%s%s)", i ? "; " : "",
			    r->rows[i].sys->name, c->usd_per_chip_hour, c->price.instance, c->price.region,
			    price_model_names[c->price.model], c->price.as_of, price_verified(&c->price) ? "" : ", unverified",
			    c->discount > 0 ? ", after the discount" : "");
		else
			cat(buf, sizeof buf, "%s%s: no price (%s)", i ? "; " : "", r->rows[i].sys->name, c->note);
	}
	if (say(r, HTML_NOTE, "Assumptions: %s. Prices: %s%s%s. Communication: %s.", terms, buf,
		r->o->pricing_note && r->o->pricing_note[0] ? "; " : "", r->o->pricing_note ? r->o->pricing_note : "",
		show_comm_note) != 0)
		return ERR_DATA;
	if (price_ages(r) != 0)
		return ERR_DATA;
	if (r->w->mode == WL_TRAIN) {
		const cost_failures *f = &r->rows[0].cost.terms.failures;
		return say(r, HTML_NOTE, "Failures: chip MTBF %.0f h, checkpoints of %.3g TB at %.4g GB/s, restart %.0f s "
			   "(Young/Daly); days to train and USD per run include them.", f->chip_mtbf / 3600,
			   f->checkpoint_bytes / 1e12, f->checkpoint_bw / 1e9, f->restart);
	}
	return 0;
}

/* ---- parts plots (step, memory), shared */

/* A stacked bar per system (rank order) of parts (scaled by `scale`), skipping parts that are
 * zero everywhere; capacity ticks when cap is not NULL. names: the parts' labels. */
static void stacked(rep *r, const double *parts, int nparts, const char *const *names, double scale,
		    const double *cap, const char *fmt)
{
	plot_panel *p = &r->ps->panel[0];
	p->stacked = 1;
	snprintf(p->value_fmt, sizeof p->value_fmt, "%s", fmt);
	p->ncats = r->n < PLOT_CATS_MAX ? r->n : PLOT_CATS_MAX;
	for (int i = 0; i < p->ncats; i++)
		snprintf(p->cats[i], sizeof p->cats[i], "%s", sys_name(r, i));
	for (int k = 0; k < nparts; k++) {
		plot_series *sr;
		int any = 0;
		for (int i = 0; i < p->ncats; i++)
			any |= isfinite(parts[i * nparts + k]) && parts[i * nparts + k] > 0;
		if (!any || !(sr = plot_add(r->ps, 0, PLOT_BARS, k, 0, names[k])))
			continue;
		for (int i = 0; i < p->ncats; i++)
			plot_point(sr, i, isfinite(parts[i * nparts + k]) ? parts[i * nparts + k] * scale : 0);
	}
	if (cap) {
		plot_series *sr = plot_add(r->ps, 0, PLOT_TICKS, 0, 0, "capacity");
		for (int i = 0; i < p->ncats; i++)
			plot_point(sr, i, cap[i] * scale);
	}
}

/* A CSV column name from a label: "network: node" + "ms" -> "network_node_ms". */
static void col_name(const char *label, const char *unit, char *out, size_t n)
{
	size_t k = 0;
	for (const char *c = label; *c && k + 1 < n; c++) {
		int alnum = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9');
		if (alnum)
			out[k++] = (char)(*c >= 'A' && *c <= 'Z' ? *c - 'A' + 'a' : *c);
		else if (k > 0 && out[k - 1] != '_')
			out[k++] = '_';
	}
	if (k > 0 && out[k - 1] == '_')
		k--;
	out[k] = '\0';
	cat(out, n, "_%s", unit);
}

/* The table and CSV of a parts plot: one row per system, a column per part, the total of the
 * first nsum parts, and the capacity when cap is not NULL. */
static int parts_table(rep *r, const char *name, const double *parts, int nparts, int nsum,
		       const char *const *names, double scale, const char *unit, const double *cap)
{
	const char *hdr[REPORT_PARTS + 3];
	char hb[REPORT_PARTS + 3][64];
	out_table t;
	int nc = 0;
	int used[REPORT_PARTS + 3];
	hdr[nc++] = "system";
	for (int k = 0; k < nparts; k++) {
		used[k] = 0;
		for (int i = 0; i < r->n; i++)
			used[k] |= !(parts[i * nparts + k] == 0);
		if (!used[k])
			continue;
		col_name(names[k], unit, hb[k], sizeof hb[k]);
		hdr[nc++] = hb[k];
	}
	col_name("total", unit, hb[nparts], sizeof hb[nparts]);
	hdr[nc++] = hb[nparts];
	if (cap) {
		col_name("capacity", unit, hb[nparts + 1], sizeof hb[nparts + 1]);
		hdr[nc++] = hb[nparts + 1];
	}
	if (table_start(r, &t, nc, hdr) != 0)
		return ERR_DATA;
	for (int k = 1; k < nc; k++)
		out_right(&t, k);
	for (int i = 0; i < r->n; i++) {
		char v[REPORT_PARTS + 3][32];
		const char *cells[REPORT_PARTS + 3];
		double tot = 0;
		int k = 0;
		cells[k++] = sys_name(r, i);
		for (int j = 0; j < nparts; j++) {
			double x = parts[i * nparts + j];
			if (isfinite(x) && j < nsum)
				tot += x;
			if (used[j])
				cells[k++] = out_num(v[j], 32, x * scale, 4);
		}
		cells[k++] = out_num(v[nparts], 32, tot * scale, 4);
		if (cap)
			cells[k++] = out_num(v[nparts + 1], 32, cap[i] * scale, 4);
		if (out_row(&t, cells) != 0) {
			out_release(&t);
			return oom(r);
		}
	}
	return table_out(r, name, &t, 1);
}

/* "X on every system: P% of T on S, ..." or "X on S (P% of T), Y on ..." */
static void largest_parts(rep *r, const double *parts, int nparts, int nsum, const char *const *names,
			  double scale, const char *unit, char *buf, size_t n)
{
	int best[REPORT_SYSTEMS_MAX], same = 1;
	double tot[REPORT_SYSTEMS_MAX];
	for (int i = 0; i < r->n; i++) {
		best[i] = 0;
		tot[i] = 0;
		for (int k = 0; k < nsum; k++) {
			double x = parts[i * nparts + k];
			if (isfinite(x))
				tot[i] += x;
			if (x > parts[i * nparts + best[i]])
				best[i] = k;
		}
		same &= best[i] == best[0];
	}
	if (same && r->n > 1)
		cat(buf, n, "%s on every system: ", names[best[0]]);
	for (int i = 0; i < r->n; i++) {
		double share = tot[i] > 0 ? 100 * parts[i * nparts + best[i]] / tot[i] : 0;
		if (same && r->n > 1)
			cat(buf, n, "%s%.0f%% of %.3g %s on %s", sep(i, r->n), share, tot[i] * scale, unit, sys_name(r, i));
		else
			cat(buf, n, "%s%s on %s (%.0f%% of %.3g %s)", sep(i, r->n), names[best[i]], sys_name(r, i), share,
			    tot[i] * scale, unit);
	}
}

/* Memory: stacked parts against the chip's capacity. */
static int memory_section(rep *r)
{
	const char *name = r->w->mode == WL_INFER ? "serving_memory" : "training_memory";
	const mem_use *m[REPORT_SYSTEMS_MAX];
	double *parts = calloc((size_t)r->n * REPORT_MEM_PARTS + 1, sizeof *parts);
	double *cap = calloc((size_t)r->n + 1, sizeof *cap);
	const char *names[REPORT_MEM_PARTS];
	char s[2048] = "", title[256];
	int rc, tight = 0;
	if (!parts || !cap) {
		free(parts);
		free(cap);
		return oom(r);
	}
	for (int k = 0; k < REPORT_MEM_PARTS; k++)
		names[k] = report_mem_parts_names[k];
	if (r->w->mode == WL_INFER)
		names[3] = "workspace";
	for (int i = 0; i < r->n; i++)
		m[i] = r->w->mode == WL_INFER ? &r->rows[i].ir.mem : &r->rows[i].tr.mem;
	for (int i = 0; i < r->n; i++) {
		report_mem_parts(m[i], parts + i * REPORT_MEM_PARTS);
		cap[i] = r->rows[i].sys->chip.hbm;
		if (m[i]->total / cap[i] > m[tight]->total / cap[tight])
			tight = i;
	}
	for (int i = 0; i < r->n; i++)
		cat(s, sizeof s, "%s%.1f of %.0f GiB on %s (%.0f%%)", sep(i, r->n), m[i]->total / GiB, cap[i] / GiB,
		    sys_name(r, i), 100 * m[i]->total / cap[i]);
	snprintf(title, sizeof title, "%s: memory per chip against its capacity (%s)", r->w->name,
		 r->w->mode == WL_INFER ? "at the chosen layout and load" : "at the chosen layout");
	plot_start(r, name, title, 0);
	axes(r, 0, "", "", "GiB per chip", 0, 0);
	stacked(r, parts, REPORT_MEM_PARTS, names, 1 / GiB, cap, "%.1f");
	rc = heading(r, "memory", "Memory per chip");
	if (rc == 0)
		rc = say(r, HTML_P, "Each chip holds %s; the tightest is %s.", s, sys_name(r, tight));
	if (rc == 0)
		rc = emit_plot(r, name, "Memory per chip by what holds it; the black bar is the chip's capacity.");
	if (rc == 0)
		rc = parts_table(r, name, parts, REPORT_MEM_PARTS, REPORT_MEM_PARTS, names, 1 / GiB, "gib", cap);
	free(parts);
	free(cap);
	return rc;
}
/* The scale that gives an axis of values up to hi round ticks: 1, 1e3, 1e6 or 1e9, whichever
 * leaves hi between 1 and 1000, and its words for the label ("", " (thousands)", ...). */
static double axis_scale(double hi, const char **words)
{
	static const char *const w[] = {"", " (thousands)", " (millions)", " (billions)"};
	int k = 0;
	while (k < 3 && hi >= 1000 * pow(1000, k))
		k++;
	*words = w[k];
	return pow(1000, k);
}

/* The model's error: each system's ranking figure with the interval of its calibration group
 * (the 10th to 90th percentile of its validation rows' out-of-sample errors), drawn as a bar
 * from low to high with the figure marked. No section when no row has an interval. */
static int error_section(rep *r)
{
	static const char *const hdr[] = {"rank", "system", "figure", "value", "low", "high", "status", "group",
					  "rows", "note"};
	plot_panel *pn;
	out_table t;
	char s[4096] = "", title[256], ylab[64] = "", yaxis[96], other[1024] = "";
	const char *words;
	double top = 0, scale;
	int any = 0, rc;
	plot_start(r, "model_error", "", 0);
	pn = &r->ps->panel[0];
	for (int i = 0; i < r->n; i++) {
		double v, lo, hi;
		const char *name;
		if (rank_key_interval(&r->rows[i], &v, &lo, &hi, &name) && (!ylab[0] || !strcmp(name, ylab))) {
			snprintf(ylab, sizeof ylab, "%s", name);
			top = fmax(top, fmax(v, hi));
		}
	}
	/* USD per run runs to tens of millions: an axis in millions has round ticks, and tick
	 * labels narrow enough to leave its title on the figure. */
	scale = axis_scale(top, &words);
	for (int i = 0; i < r->n; i++) {
		double v, lo, hi;
		const char *name;
		plot_series *sr;
		int k = pn->ncats;
		if (k >= PLOT_CATS_MAX || !rank_key_interval(&r->rows[i], &v, &lo, &hi, &name))
			continue;
		if (strcmp(name, ylab) != 0) {
			/* Ranked by another figure (no price: throughput): one axis holds one unit. */
			cat(other, sizeof other, "%s%s", other[0] ? ", " : "", r->rows[i].sys->name);
			continue;
		}
		any++;
		snprintf(pn->cats[pn->ncats++], PLOT_CAT_MAX, "%s", r->rows[i].sys->name);
		/* The bar with a cap at each end, one line (an interval narrower than the mark still
		 * shows its ends): low cap, up the bar, high cap. */
		if ((sr = plot_add(r->ps, 0, PLOT_CURVE, r->color[i], 0, "")) != NULL) {
			plot_point(sr, k - 0.15, lo / scale);
			plot_point(sr, k + 0.15, lo / scale);
			plot_point(sr, k, lo / scale);
			plot_point(sr, k, hi / scale);
			plot_point(sr, k - 0.15, hi / scale);
			plot_point(sr, k + 0.15, hi / scale);
		}
		if ((sr = plot_add(r->ps, 0, PLOT_MARK, r->color[i], 0, "")) != NULL)
			plot_point(sr, k, v / scale);
	}
	if (!any)
		return 0;
	plot_add(r->ps, 0, PLOT_KEY_ONLY, 0, 0, "the ranking figure");
	plot_add(r->ps, 0, PLOT_KEY_LINE, 0, 0, "its 10th-90th percentile");
	/* A price's figure is dated by its prices too. */
	if (!strncmp(ylab, "USD", 3))
		snprintf(r->ps->footer, sizeof r->ps->footer, "%s", r->footer_all);
	snprintf(title, sizeof title, "%s: each system's figure with the model's error (10th-90th percentile)", r->w->name);
	snprintf(r->ps->title, sizeof r->ps->title, "%s", title);
	snprintf(yaxis, sizeof yaxis, "%s%s", ylab, words);
	axes(r, 0, "", "", yaxis, 0, PLOT_AUTO_LOG);
	if (table_start(r, &t, 10, hdr) != 0)
		return ERR_DATA;
	for (int i = 0; i < r->n; i++) {
		const rank_row *x = &r->rows[i];
		const interval_status *c = x->rep.cal;
		double v, lo, hi;
		const char *name = "";
		char a[4][32], rows[16];
		const char *cells[10];
		int have = rank_key_interval(x, &v, &lo, &hi, &name);
		snprintf(a[0], 32, "%d", i + 1);
		snprintf(a[1], 32, have ? "%.6g" : "-", v);
		snprintf(a[2], 32, have ? "%.6g" : "-", lo);
		snprintf(a[3], 32, have ? "%.6g" : "-", hi);
		snprintf(rows, sizeof rows, "%d", c ? c->rows : 0);
		cells[0] = a[0];
		cells[1] = x->sys->name;
		cells[2] = name;
		cells[3] = a[1];
		cells[4] = a[2];
		cells[5] = a[3];
		cells[6] = c ? (c->calibrated ? "calibrated" : "uncalibrated") : "-";
		cells[7] = c ? c->group : "";
		cells[8] = rows;
		cells[9] = c ? c->note : "";
		if (out_row(&t, cells) != 0) {
			out_release(&t);
			return oom(r);
		}
	}
	rank_error_note(r->rows, r->n, s, sizeof s);
	rc = heading(r, "error", "The model's error");
	if (rc == 0)
		rc = say(r, HTML_P, "%s.", s[0] ? s : "The first two systems' intervals do not overlap: the ranking holds "
						       "within the model's error");
	if (rc == 0 && other[0])
		rc = say(r, HTML_P, "Not drawn, as they are ranked by another figure than %s: %s (in the table).",
			 ylab, other);
	if (rc == 0)
		rc = emit_plot(r, "model_error", "Each system's ranking figure (ringed) and its interval: the 10th to 90th "
				  "percentile of the out-of-sample errors of its calibration group (chip family x framework; "
				  "validate --intervals), applied to the figure. An uncalibrated system's interval is a nearer "
				  "family's, widened.");
	if (rc == 0)
		rc = table_out(r, "model_error", &t, 1);
	else
		out_release(&t);
	return rc;
}

/* The step broken down, one stacked bar per system. */
static int step_section(rep *r)
{
	int train = r->w->mode == WL_TRAIN;
	const char *name = train ? "training_step" : "serving_step";
	const char *const *names = train ? report_train_parts_names : report_infer_parts_names;
	const char *unit = train ? "s" : "ms";
	double scale = train ? 1 : 1e3;
	int nsum = train ? 6 : REPORT_PARTS, rc;
	double *parts = calloc((size_t)r->n * REPORT_PARTS + 1, sizeof *parts);
	char s[2048] = "", title[256], ylab[32];
	if (!parts)
		return oom(r);
	for (int i = 0; i < r->n; i++) {
		const rank_row *x = &r->rows[i];
		if (train)
			report_train_parts(x->sys, &x->tr, x->cost.result.goodput.goodput, parts + i * REPORT_PARTS);
		else
			report_infer_parts(x->sys, &x->ir, parts + i * REPORT_PARTS);
	}
	snprintf(title, sizeof title, train ? "%s: one training step broken down, with what failures cost per step"
					    : "%s: one serving step (decode with its share of prefill) broken down",
		 r->w->name);
	snprintf(ylab, sizeof ylab, "%s per step", unit);
	plot_start(r, name, title, 0);
	axes(r, 0, "", "", ylab, 0, 0);
	stacked(r, parts, REPORT_PARTS, names, scale, NULL, train ? "%.2f" : "%.1f");
	largest_parts(r, parts, REPORT_PARTS, nsum, names, scale, unit, s, sizeof s);
	rc = heading(r, "step", "Where a step's time goes");
	if (rc == 0)
		rc = say(r, HTML_P, "The largest part of a step is %s.", s);
	if (rc == 0)
		rc = emit_plot(r, name, train ? "The step at the chosen layout: the micro-batches' compute, communication "
				    "left exposed on each level (after overlap), the pipeline bubble, the optimizer step, and "
				    "on top the time failures take per step (checkpoints, restarts, lost work)."
				  : "The mean serving step at the chosen layout and load: op time by what bounds each op "
				    "(roofline), communication left exposed on each network level, and the runtime's "
				    "per-layer overhead.");
	if (rc == 0)
		rc = parts_table(r, name, parts, REPORT_PARTS, nsum, names, scale, unit, NULL);
	free(parts);
	return rc;
}


/* The roofline: one roof per distinct chip, the ops as points (series per system and
 * group). groups: per system, ngroups op lists with their names. */
typedef struct roof_group {
	const char *name;          /* "prefill", "decode", "micro-batch" */
	const report_roof_op *ops;
	int n;
} roof_group;

static int roofline_section(rep *r, const char *name, const roof_group *g, int ngroups, const char *sentence)
{
	static const char *const hdr[] = {"system", "chip", "group", "op", "phase", "intensity_flop_per_byte",
					  "achieved_tflops", "roof_tflops", "time_us", "runs", "bound"};
	out_table t;
	char title[256];
	int rc;
	plot_start(r, name, "", 0);
	snprintf(title, sizeof title, "%s: roofline of each chip with the workload's ops", r->w->name);
	snprintf(r->ps->title, sizeof r->ps->title, "%s", title);
	axes(r, 0, "", "arithmetic intensity (FLOP per HBM byte)", "TFLOP/s per chip", 10, 10);
	r->ps->panel[0].xmin = 0.1;
	r->ps->panel[0].xmax = 1e5;
	for (int i = 0; i < r->n; i++)
		r->ps->panel[0].ymax = fmax(isfinite(r->ps->panel[0].ymax) ? r->ps->panel[0].ymax : 0,
					    3 * report_roof(&r->rows[i].sys->chip, r->w->prec, 1e12) / 1e12);
	for (int i = 0; i < r->n; i++) {
		const hw_chip *c = &r->rows[i].sys->chip;
		int dup = 0;
		plot_series *sr;
		char label[PLOT_TEXT_MAX];
		for (int j = 0; j < i; j++)
			dup |= !strcmp(r->rows[j].sys->chip.name, c->name);
		if (dup)
			continue;
		snprintf(label, sizeof label, "%s roof (%s)", c->name,
			 hw_prec_names[hw_run_prec(c, r->w->prec) < HW_PREC_N ? hw_run_prec(c, r->w->prec) : hw_widest_prec(c)]);
		sr = plot_add(r->ps, 0, PLOT_CURVE, r->color[i], 0, label);
		if (sr) {
			double ridge = report_roof(c, r->w->prec, 1e12) / c->hbm_bw;
			plot_point(sr, 0.1, report_roof(c, r->w->prec, 0.1) / 1e12);
			plot_point(sr, ridge, report_roof(c, r->w->prec, ridge) / 1e12);
			plot_point(sr, 1e5, report_roof(c, r->w->prec, 1e5) / 1e12);
		}
	}
	for (int i = 0; i < r->n; i++)
		for (int k = 0; k < ngroups; k++) {
			const roof_group *gr = &g[i * ngroups + k];
			char label[PLOT_TEXT_MAX];
			plot_series *sr;
			if (ngroups > 1)
				snprintf(label, sizeof label, "%s %s", sys_name(r, i), gr->name);
			else
				snprintf(label, sizeof label, "%s ops", sys_name(r, i));
			sr = plot_add(r->ps, 0, PLOT_POINTS, r->color[i], k == 0 ? 0 : 2, label);
			for (int j = 0; j < gr->n; j++)
				plot_point(sr, gr->ops[j].intensity, gr->ops[j].achieved / 1e12);
		}
	if (table_start(r, &t, 11, hdr) != 0)
		return ERR_DATA;
	for (int k = 5; k < 10; k++)
		out_right(&t, k);
	for (int i = 0; i < r->n; i++)
		for (int k = 0; k < ngroups; k++) {
			const roof_group *gr = &g[i * ngroups + k];
			const hw_chip *c = &r->rows[i].sys->chip;
			for (int j = 0; j < gr->n; j++) {
				const report_roof_op *op = &gr->ops[j];
				char v[5][32];
				const char *cells[11] = {sys_name(r, i), c->name, gr->name, op->name, ops_phase_names[op->phase],
							 num(v[0], op->intensity), num(v[1], op->achieved / 1e12),
							 num(v[2], report_roof(c, r->w->prec, op->intensity) / 1e12),
							 num(v[3], op->t * 1e6), num(v[4], op->count), roof_bound_names[op->bound]};
				if (out_row(&t, cells) != 0) {
					out_release(&t);
					return oom(r);
				}
			}
		}
	rc = heading(r, "roofline", "Roofline");
	if (rc == 0)
		rc = say(r, HTML_P, "%s", sentence);
	if (rc == 0)
		rc = emit_plot(r, name, "Attainable FLOP/s against arithmetic intensity (datasheet peak and HBM "
			       "bandwidth); each point is one op at the FLOP/s its roofline time gives it.");
	if (rc == 0)
		rc = table_out(r, name, &t, 0);
	else
		out_release(&t);
	return rc;
}

/* "ridge points from A (chip) to B (chip) FLOP/byte" */
static void ridges(rep *r, char *buf, size_t n)
{
	int lo = 0, hi = 0;
	double rl, rh;
	for (int i = 1; i < r->n; i++) {
		const hw_chip *c = &r->rows[i].sys->chip;
		double x = report_roof(c, r->w->prec, 1e12) / c->hbm_bw;
		if (x < report_roof(&r->rows[lo].sys->chip, r->w->prec, 1e12) / r->rows[lo].sys->chip.hbm_bw)
			lo = i;
		if (x > report_roof(&r->rows[hi].sys->chip, r->w->prec, 1e12) / r->rows[hi].sys->chip.hbm_bw)
			hi = i;
	}
	rl = report_roof(&r->rows[lo].sys->chip, r->w->prec, 1e12) / r->rows[lo].sys->chip.hbm_bw;
	rh = report_roof(&r->rows[hi].sys->chip, r->w->prec, 1e12) / r->rows[hi].sys->chip.hbm_bw;
	if (lo == hi || !strcmp(r->rows[lo].sys->chip.name, r->rows[hi].sys->chip.name))
		snprintf(buf, n, "the ridge point is at %.0f FLOP/byte (%s)", rl, r->rows[lo].sys->chip.name);
	else
		snprintf(buf, n, "ridge points run from %.0f FLOP/byte (%s) to %.0f (%s)", rl,
			 r->rows[lo].sys->chip.name, rh, r->rows[hi].sys->chip.name);
}

/* ------------------------------------------------------------------ serving */

enum { DISAGG_CURVE_MAX = 6 };

typedef struct serve_sys {
	report_load pts[REPORT_LOADS_MAX];
	int npts;
	rank_frontier_set *fr;   /* every layout and load (rank_frontier), fastest per user first */
	int nd;                  /* --disagg: the split's curve, one point per TPOT target */
	disagg_result dis[DISAGG_CURVE_MAX];
	rank_quote by_model[PRICE_MODEL_N];
	report_roof_op pre[OPS_MAX], dec[OPS_MAX];
	int npre, ndec;
} serve_sys;

/* The plan given for row i's system (the rows are in rank order, the plans in -s order). */
static int serve_plan_index(const rep *r, int i)
{
	for (int k = 0; k < r->o->nsys; k++)
		if (r->o->systems[k] == r->rows[i].sys)
			return k;
	return 0;
}

/* --disagg: the split at TPOT targets across the speeds the aggregated frontier spans (the
 * disaggregated frontier, as aiconfigurator draws it), the TTFT limit kept. */
static int serve_disagg_curve(rep *r, int i, serve_sys *v)
{
	const rank_row *x = &r->rows[i];
	wl_workload *w = malloc(sizeof *w);
	double lo = INFINITY, hi = 0;
	int chips = rank_disagg_chips(x->sys, &r->o->plans[serve_plan_index(r, i)], &r->o->rank);
	if (!w)
		return oom(r);
	for (int k = 0; k < v->fr->n; k++)
		if (v->fr->pts[k].front && v->fr->pts[k].per_user > 0) {
			lo = fmin(lo, v->fr->pts[k].per_user);
			hi = fmax(hi, v->fr->pts[k].per_user);
		}
	v->nd = 0;
	if (!(hi > lo)) {
		free(w);
		return 0;
	}
	*w = x->w;
	for (int k = 0; k < DISAGG_CURVE_MAX; k++) {
		double speed = lo * pow(hi / lo, (k + 0.5) / DISAGG_CURVE_MAX);
		w->tpot_slo = 1 / speed;
		if (disagg_search(x->sys, w, chips, &v->dis[v->nd]) && v->dis[v->nd].tokens_per_s_per_chip > 0)
			v->nd++;
	}
	free(w);
	return 0;
}

static int serve_gather(rep *r, serve_sys *sv)
{
	int loads[REPORT_LOADS_MAX], nl = report_loads(1024, loads, REPORT_LOADS_MAX);
	ops_list *pre = malloc(sizeof *pre), *dec = malloc(sizeof *dec);
	infer_result *ir = malloc(sizeof *ir);
	int rc = 0;
	if (!pre || !dec || !ir) {
		free(pre);
		free(dec);
		free(ir);
		return oom(r);
	}
	for (int i = 0; i < r->n && rc == 0; i++) {
		rank_row *x = &r->rows[i];
		serve_sys *v = &sv[i];
		int seen = 0;
		for (int k = 0; k < nl; k++) {
			report_load *pt = &v->pts[v->npts++];
			report_load_point(x->sys, &x->w, &x->ir.plan, loads[k], x->cost.usd_per_chip_hour, pt);
			seen |= pt->feasible;
			if (!pt->feasible && seen)
				break;   /* beyond what memory holds: larger loads fit even less */
		}
		if (rc == 0 && (v->fr = malloc(sizeof *v->fr)) == NULL)
			rc = oom(r);
		if (rc == 0)
			rc = rank_frontier(&x->w, &r->o->plans[serve_plan_index(r, i)], &r->o->rank, x->sys, v->fr, r->e);
		if (rc == 0 && x->w.disagg.on)
			rc = serve_disagg_curve(r, i, v);
		for (int m = 0; m < PRICE_MODEL_N && rc == 0; m++) {
			rank_opts om = r->o->rank;
			om.pricing = (price_model)m;
			rc = rank_price_and_cost(&om, x->sys, &x->w, NULL, &x->ir, &v->by_model[m], r->e);
			add_price(r, &v->by_model[m]);
		}
		infer_eval(x->sys, &x->w, &x->ir.plan, ir, pre, dec);
		v->npre = report_roof_ops(&x->sys->chip, pre, v->pre);
		v->ndec = report_roof_ops(&x->sys->chip, dec, v->dec);
	}
	free(pre);
	free(dec);
	free(ir);
	return rc;
}

static int serve_load_csv(rep *r, const serve_sys *sv)
{
	static const char *const hdr[] = {"system", "layout", "load", "feasible", "slo_met", "tokens_per_s",
					  "tokens_per_s_per_chip", "tokens_per_s_per_user", "ttft_ms", "ttft_ms_tail",
					  "tpot_ms", "tpot_ms_tail", "mem_gib", "usd_per_unit", "reason", "tokens_per_s_per_mw"};
	out_table t;
	if (table_start(r, &t, 16, hdr) != 0)
		return ERR_DATA;
	for (int i = 0; i < r->n; i++)
		for (int k = 0; k < sv[i].npts; k++) {
			const report_load *p = &sv[i].pts[k];
			char v[12][32];
			const char *cells[16] = {sys_name(r, i), r->rows[i].plan, v[0], p->feasible ? "1" : "0",
						 p->slo_met ? "1" : "0", num(v[1], p->tokens_per_s), num(v[2], p->per_chip),
						 num(v[3], p->per_user), num(v[4], p->ttft * 1e3), num(v[5], p->ttft_tail * 1e3),
						 num(v[6], p->tpot * 1e3), num(v[7], p->tpot_tail * 1e3),
						 num(v[8], p->mem / GiB), num(v[9], p->usd_per_unit), p->reason,
						 num(v[10], p->per_mw)};
			snprintf(v[0], 32, "%d", p->load);
			if (out_row(&t, cells) != 0) {
				out_release(&t);
				return oom(r);
			}
		}
	return table_out(r, "serving_load", &t, 0);
}

/* The systems with a finite best[i], highest first, into order; "A (12), then B (9)" into s
 * (n bytes). Returns how many. */
static int best_order(rep *r, const double *best, int *order, char *s, size_t n)
{
	int nb = 0;
	for (int i = 0; i < r->n; i++)
		if (isfinite(best[i])) {
			int j = nb++;
			while (j > 0 && best[order[j - 1]] < best[i]) {
				order[j] = order[j - 1];
				j--;
			}
			order[j] = i;
		}
	for (int j = 0; j < nb; j++)
		cat(s, n, "%s%s (%.0f)", j == 0 ? "" : ", then ", sys_name(r, order[j]), best[order[j]]);
	return nb;
}

/* A layout for the frontier's labels: "tp4 pp2", "tp1 ep8" (replicas left out: per-chip
 * figures do not depend on them). */
static void front_label(const plan *p, char *buf, size_t n)
{
	snprintf(buf, n, "tp%d", p->tp);
	if (p->pp > 1)
		cat(buf, n, " pp%d", p->pp);
	if (p->ep > 1)
		cat(buf, n, " ep%d", p->ep);
}

static int same_layout(const plan *a, const plan *b)
{
	return a->tp == b->tp && a->pp == b->pp && a->ep == b->ep && a->dp / (a->ep > 0 ? a->ep : 1) ==
	       b->dp / (b->ep > 0 ? b->ep : 1);
}

/* One system's frontier (cost: its cost frontier) on panel `panel`, slowest per user first,
 * each layout on it named once, at the middle of its stretch of points. */
static void front_line(rep *r, int i, const rank_frontier_set *f, int cost, int panel, const char *label)
{
	plot_series *sr = plot_add(r->ps, panel, PLOT_LINES, r->color[i], r->color[i], label);
	int idx[RANK_FRONTIER_POINTS], n = 0;
	for (int k = f->n - 1; k >= 0; k--) {
		const frontier_point *q = &f->pts[k];
		double y = cost ? q->usd_per_unit : q->per_chip;
		if (!(cost ? q->cost_front : q->front) || !isfinite(y))
			continue;
		plot_point(sr, q->per_user, y);
		idx[n++] = k;
	}
	for (int a = 0; a < n; a++) {
		const frontier_point *q = &f->pts[idx[a]];
		int seen = 0, count = 0, mid = idx[a];
		char t[PLOT_LABEL_MAX];
		for (int b = 0; b < a && !seen; b++)
			seen = same_layout(&f->pts[idx[b]].plan, &q->plan);
		if (seen)
			continue;
		for (int b = a; b < n; b++)
			count += same_layout(&f->pts[idx[b]].plan, &q->plan);
		for (int b = a, c = 0; b < n; b++)
			if (same_layout(&f->pts[idx[b]].plan, &q->plan) && c++ == count / 2)
				mid = idx[b];
		front_label(&q->plan, t, sizeof t);
		plot_text(r->ps, panel, f->pts[mid].per_user, cost ? f->pts[mid].usd_per_unit : f->pts[mid].per_chip,
			  r->color[i], t);
	}
}

/* data/serving_frontier.csv: every point of every system's frontier search. */
static int serve_frontier_csv(rep *r, const serve_sys *sv)
{
	static const char *const hdr[] = {"system", "layout", "chips", "load", "running", "tokens_per_s_per_user",
					  "tokens_per_s_per_chip", "ttft_ms", "ttft_ms_tail", "tpot_ms", "tpot_ms_tail",
					  "usd_per_unit", "slo_met", "front", "cost_front", "chosen"};
	out_table t;
	if (table_start(r, &t, 16, hdr) != 0)
		return ERR_DATA;
	for (int i = 0; i < r->n; i++)
		for (int k = 0; k < sv[i].fr->n; k++) {
			const frontier_point *q = &sv[i].fr->pts[k];
			char v[14][32], lay[64];
			const char *cells[16];
			plan_format(&q->plan, lay, sizeof lay);
			snprintf(v[0], 32, "%d", q->plan.chips);
			cells[0] = sys_name(r, i);
			cells[1] = lay;
			cells[2] = v[0];
			cells[3] = num(v[1], q->load);
			cells[4] = num(v[2], q->running);
			cells[5] = num(v[3], q->per_user);
			cells[6] = num(v[4], q->per_chip);
			cells[7] = num(v[5], q->ttft * 1e3);
			cells[8] = num(v[6], q->ttft_tail * 1e3);
			cells[9] = num(v[7], q->tpot * 1e3);
			cells[10] = num(v[8], q->tpot_tail * 1e3);
			cells[11] = num(v[9], q->usd_per_unit);
			cells[12] = q->slo_met ? "1" : "0";
			cells[13] = q->front ? "1" : "0";
			cells[14] = q->cost_front ? "1" : "0";
			cells[15] = q->chosen ? "1" : "0";
			if (out_row(&t, cells) != 0) {
				out_release(&t);
				return oom(r);
			}
		}
	return table_out(r, "serving_frontier", &t, 0);
}

/* Throughput per chip against tokens/s per user: each system's frontier over every layout and load. */
static int serve_throughput(rep *r, const serve_sys *sv)
{
	const wl_workload *w = r->w;
	double slo_speed = w->tpot_slo > 0 ? 1 / w->tpot_slo : 0;
	char s[2048] = "", ref[128];
	int nb = 0, rc;
	plot_start(r, "serving_throughput", "", 0);
	snprintf(r->ps->title, sizeof r->ps->title, "%s: throughput per chip against speed per user, every layout and load",
		 w->name);
	axes(r, 0, "", "output tokens/s per user (1 / TPOT)", "output tokens/s per chip", 0, PLOT_AUTO_LOG);
	for (int i = 0; i < r->n; i++)
		front_line(r, i, sv[i].fr, 0, 0, sys_name(r, i));
	for (int i = 0; i < r->n; i++) {
		plot_series *sr;
		if (!r->rows[i].ir.feasible)
			continue;
		sr = plot_add(r->ps, 0, PLOT_MARK, r->color[i], 0, "");
		plot_point(sr, 1 / r->rows[i].ir.tpot, r->rows[i].ir.tokens_per_s_per_chip);
	}
	plot_add(r->ps, 0, PLOT_KEY_ONLY, 0, 0, "the pick at the latency limits");
	if (slo_speed > 0) {
		snprintf(ref, sizeof ref, "TPOT limit %.0f ms", w->tpot_slo * 1e3);
		plot_ref_line(r->ps, 0, 1, slo_speed, ref);
	}
	/* The sentence: the picks at the limits, most tokens/s per chip first. */
	{
		int order[REPORT_SYSTEMS_MAX];
		for (int i = 0; i < r->n; i++)
			if (r->rows[i].ir.feasible && rank_slo_met(w, &r->rows[i].ir)) {
				int j = nb++;
				while (j > 0 && r->rows[order[j - 1]].ir.tokens_per_s_per_chip < r->rows[i].ir.tokens_per_s_per_chip) {
					order[j] = order[j - 1];
					j--;
				}
				order[j] = i;
			}
		for (int j = 0; j < nb; j++) {
			char pl[64];
			front_label(&r->rows[order[j]].ir.plan, pl, sizeof pl);
			cat(s, sizeof s, "%s%s (%.0f, %s)", j == 0 ? "" : ", then ", sys_name(r, order[j]),
			    r->rows[order[j]].ir.tokens_per_s_per_chip, pl);
		}
	}
	if (heading(r, "throughput", "Throughput against speed per user") != 0)
		return ERR_DATA;
	if (nb > 0)
		rc = say(r, HTML_P, "At the latency limits (p%g TTFT and TPOT), over every layout and load, the most output "
			 "tokens/s per chip: %s.", w->slo_percentile, s);
	else
		rc = say(r, HTML_P, "No system meets the latency limits at any layout and load.");
	if (rc != 0)
		return ERR_DATA;
	return emit_plot(r, "serving_frontier", "Each line is one system's frontier over every layout it can serve the "
			 "workload with and every load of the workload's own scenario: at each speed per user, the most "
			 "output tokens/s per chip any layout reaches, the layout named where it changes along the line. "
			 "The ringed point is the ranking's pick, the highest load that meets the TTFT and TPOT limits at "
			 "their percentile; the dashed line is the TPOT limit.");
}

/* The cheapest spans in words: spans too narrow to say at this precision join their
 * neighbours. */
static void spans_text(const rep *r, report_span *spans, int ns, char *s, size_t n)
{
	int k = 0;
	for (int j = 0; j < ns; j++) {
		if (j + 1 < ns && lround(spans[j].lo) == lround(spans[j].hi))
			continue; /* under one token/s wide: the next span starts where this one would */
		if (k > 0 && spans[k - 1].sys == spans[j].sys) {
			spans[k - 1].hi = spans[j].hi;
			continue;
		}
		spans[k] = spans[j];
		if (k > 0)
			spans[k].lo = spans[k - 1].hi;
		k++;
	}
	s[0] = '\0';
	for (int j = 0; j < k; j++) {
		if (j == 0)
			cat(s, n, "up to %.0f tokens/s per user %s is the cheapest per %s", spans[j].hi,
			    sys_name(r, spans[j].sys), unit_name(r->w));
		else
			cat(s, n, "; from %.0f to %.0f, %s", spans[j].lo, spans[j].hi, sys_name(r, spans[j].sys));
	}
}

/* Cost per unit against tokens/s per user: each system's cost frontier. */
static int serve_cost_curve(rep *r, const serve_sys *sv)
{
	const wl_workload *w = r->w;
	report_load *curves = calloc((size_t)r->n * RANK_FRONTIER_POINTS + 1, sizeof *curves);
	const report_load *cp[REPORT_SYSTEMS_MAX];
	int n[REPORT_SYSTEMS_MAX], ns;
	report_span spans[64];
	char s[2048] = "", ylab[96], ref[96];
	if (!curves)
		return oom(r);
	plot_start(r, "serving_cost_curve", "", 1);
	snprintf(r->ps->title, sizeof r->ps->title, "%s: USD per %s against speed per user (%s)", w->name,
		 unit_name(w), price_model_names[r->o->rank.pricing]);
	snprintf(ylab, sizeof ylab, "USD per %s (%s)", unit_name(w), price_model_names[r->o->rank.pricing]);
	axes(r, 0, "", "output tokens/s per user (1 / TPOT)", ylab, 0, PLOT_AUTO_LOG);
	for (int i = 0; i < r->n; i++) {
		report_load *c = curves + (size_t)i * RANK_FRONTIER_POINTS;
		front_line(r, i, sv[i].fr, 1, 0, sys_name(r, i));
		cp[i] = c;
		n[i] = 0;
		for (int k = 0; k < sv[i].fr->n; k++) {
			const frontier_point *q = &sv[i].fr->pts[k];
			if (!q->cost_front || !isfinite(q->usd_per_unit))
				continue;
			c[n[i]].feasible = 1;
			c[n[i]].per_user = q->per_user;
			c[n[i]++].usd_per_unit = q->usd_per_unit;
		}
	}
	for (int i = 0; i < r->n; i++) {
		plot_series *sr;
		if (!(r->rows[i].klass == RANK_PRICED))
			continue;
		sr = plot_add(r->ps, 0, PLOT_MARK, r->color[i], 0, "");
		plot_point(sr, 1 / r->rows[i].ir.tpot, r->rows[i].cost.result.usd_per_unit);
	}
	plot_add(r->ps, 0, PLOT_KEY_ONLY, 0, 0, "the pick at the latency limits");
	if (w->tpot_slo > 0) {
		snprintf(ref, sizeof ref, "TPOT limit %.0f ms", w->tpot_slo * 1e3);
		plot_ref_line(r->ps, 0, 1, 1 / w->tpot_slo, ref);
	}
	ns = report_cheapest_spans(cp, n, r->n, spans, 64);
	free(curves);
	spans_text(r, spans, ns, s, sizeof s);
	if (heading(r, "cost-curve", "Cost against speed per user") != 0)
		return ERR_DATA;
	if (!s[0]) {
		if (say(r, HTML_P, "No system has a priced feasible load.") != 0)
			return ERR_DATA;
	} else if (!strchr(s, ';')) {
		if (say(r, HTML_P, "%s is the cheapest per %s at every speed up to %.0f tokens/s per user, the fastest any "
			"priced system reaches.", sys_name(r, spans[0].sys), unit_name(w), spans[0].hi) != 0)
			return ERR_DATA;
	} else {
		s[0] = (char)(s[0] == 'u' ? 'U' : s[0]);
		if (say(r, HTML_P, "%s (the fastest any priced system reaches).", s) != 0)
			return ERR_DATA;
	}
	return emit_plot(r, "serving_frontier", "Each line is one system's cost frontier over every layout and load, "
			 "priced with the workload's pricing and [cost] terms: the lowest USD per million output tokens "
			 "at which any of its layouts serves a user at least the speed on the x axis, the layout named "
			 "where it changes. The ringed point is the ranking's pick at the latency limits.");
}

/* --disagg: each system's aggregated frontier beside its disaggregated one. */
static int serve_disagg(rep *r, const serve_sys *sv)
{
	const wl_workload *w = r->w;
	static const char *const hdr[] = {"system", "tpot_target_ms", "split", "prefill", "decode", "chips",
					  "tokens_per_s_per_user", "tokens_per_s_per_chip", "ttft_ms_tail", "tpot_ms_tail",
					  "kv_transfer_ms", "kv_link", "feasible"};
	char s[2048] = "", ref[96], label[PLOT_TEXT_MAX];
	out_table t;
	if (!w->disagg.on)
		return 0;
	plot_start(r, "serving_disagg", "", 0);
	snprintf(r->ps->title, sizeof r->ps->title, "%s: aggregated against disaggregated serving", w->name);
	axes(r, 0, "", "output tokens/s per user (1 / TPOT)", "output tokens/s per chip", 0, PLOT_AUTO_LOG);
	for (int i = 0; i < r->n; i++) {
		plot_series *sr;
		snprintf(label, sizeof label, "%s aggregated", sys_name(r, i));
		front_line(r, i, sv[i].fr, 0, 0, label);
		snprintf(label, sizeof label, "%s disaggregated", sys_name(r, i));
		sr = plot_add(r->ps, 0, PLOT_DASHED, r->color[i], r->color[i], label);
		for (int k = 0; k < sv[i].nd; k++) {
			char split[PLOT_LABEL_MAX];
			const disagg_result *d = &sv[i].dis[k];
			plot_point(sr, d->tokens_per_s_per_user, d->tokens_per_s_per_chip);
			if (k == 0 || d->pre.count != sv[i].dis[k - 1].pre.count || d->dec.count != sv[i].dis[k - 1].dec.count) {
				snprintf(split, sizeof split, "%dP%dD", d->pre.count, d->dec.count);
				plot_text(r->ps, 0, d->tokens_per_s_per_user, d->tokens_per_s_per_chip, r->color[i], split);
			}
		}
	}
	for (int i = 0; i < r->n; i++) {
		const disagg_result *d = &r->rows[i].dis;
		plot_series *sr;
		if (!r->rows[i].has_disagg || !d->feasible)
			continue;
		sr = plot_add(r->ps, 0, PLOT_MARK, r->color[i], 0, "");
		plot_point(sr, d->tokens_per_s_per_user, d->tokens_per_s_per_chip);
	}
	plot_add(r->ps, 0, PLOT_KEY_ONLY, 0, 0, "split at the limits");
	if (w->tpot_slo > 0) {
		snprintf(ref, sizeof ref, "TPOT limit %.0f ms", w->tpot_slo * 1e3);
		plot_ref_line(r->ps, 0, 1, 1 / w->tpot_slo, ref);
	}
	for (int i = 0; i < r->n; i++) {
		const rank_row *x = &r->rows[i];
		const disagg_result *d = &x->dis;
		if (!x->has_disagg)
			continue;
		if (!d->feasible) {
			cat(s, sizeof s, "%s%s: no split meets the limits", s[0] ? "; " : "", sys_name(r, i));
			continue;
		}
		cat(s, sizeof s, "%s%s %dP%dD on %d chips, %.0f tokens/s per chip (%+.0f%% against its aggregated best), "
		    "the KV cache moved in %.2g ms over its %s", s[0] ? "; " : "", sys_name(r, i), d->pre.count,
		    d->dec.count, d->chips, d->tokens_per_s_per_chip,
		    x->ir.tokens_per_s_per_chip > 0 ? 100 * (d->tokens_per_s_per_chip / x->ir.tokens_per_s_per_chip - 1) : 0,
		    d->t_transfer * 1e3, hw_level_names[d->link]);
	}
	if (heading(r, "disagg", "Aggregated against disaggregated") != 0 ||
	    say(r, HTML_P, "At the latency limits, disaggregated (prefill and decode pools, split within the scale-up "
		"domain): %s.", s[0] ? s : "none") != 0)
		return ERR_DATA;
	if (emit_plot(r, "serving_disagg", "Solid: each system's aggregated frontier (every layout and load); dashed: "
		      "its best disaggregated split at TPOT limits across the same speeds (the workload's TTFT limit kept), "
		      "named by its prefill and decode replica counts; the ringed point is the split at the workload's "
		      "limits. Disaggregated TTFT includes moving the KV cache.") != 0)
		return ERR_DATA;
	if (table_start(r, &t, 13, hdr) != 0)
		return ERR_DATA;
	for (int i = 0; i < r->n; i++)
		for (int k = 0; k < sv[i].nd; k++) {
			const disagg_result *d = &sv[i].dis[k];
			char v[10][32], pre[64], dec[64];
			const char *cells[13];
			plan_format(&d->pre.plan, pre, sizeof pre);
			plan_format(&d->dec.plan, dec, sizeof dec);
			snprintf(v[0], 32, "%dP%dD", d->pre.count, d->dec.count);
			snprintf(v[1], 32, "%d", d->chips);
			cells[0] = sys_name(r, i);
			cells[1] = num(v[2], d->tpot_tail > 0 ? 1e3 / d->tokens_per_s_per_user : NAN);
			cells[2] = v[0];
			cells[3] = pre;
			cells[4] = dec;
			cells[5] = v[1];
			cells[6] = num(v[3], d->tokens_per_s_per_user);
			cells[7] = num(v[4], d->tokens_per_s_per_chip);
			cells[8] = num(v[5], d->ttft_tail * 1e3);
			cells[9] = num(v[6], d->tpot_tail * 1e3);
			cells[10] = num(v[7], d->t_transfer * 1e3);
			cells[11] = hw_level_names[d->link];
			cells[12] = d->feasible ? "1" : "0";
			if (out_row(&t, cells) != 0) {
				out_release(&t);
				return oom(r);
			}
		}
	return table_out(r, "serving_disagg", &t, 0);
}

/* Cost per unit at the latency limits per system and pricing model. */
static int serve_cost_models(rep *r, const serve_sys *sv)
{
	const wl_workload *w = r->w;
	static const char *const hdr[] = {"system", "layout", "pricing_model", "usd_per_chip_hour", "usd_per_hour",
					  "usd_per_unit", "instance", "region", "as_of", "verified", "source"};
	int used[PRICE_MODEL_N] = {0}, nused = 0;
	char s[2048] = "", ylab[96], b[32];
	out_table t;
	plot_panel *p;
	plot_start(r, "serving_cost", "", 1);
	snprintf(r->ps->title, sizeof r->ps->title, "%s: USD per %s at the latency limits, by pricing model",
		 w->name, unit_name(w));
	snprintf(ylab, sizeof ylab, "USD per %s", unit_name(w));
	axes(r, 0, "", "", ylab, 0, 0);
	p = &r->ps->panel[0];
	snprintf(p->value_fmt, sizeof p->value_fmt, "%%.2f");
	p->ncats = r->n < PLOT_CATS_MAX ? r->n : PLOT_CATS_MAX;
	for (int i = 0; i < p->ncats; i++)
		snprintf(p->cats[i], sizeof p->cats[i], "%s", sys_name(r, i));
	for (int m = 0; m < PRICE_MODEL_N; m++) {
		int best = -1;
		for (int i = 0; i < r->n; i++) {
			const rank_quote *c = &sv[i].by_model[m];
			if (c->have_price && c->slo_met && c->result.ok && isfinite(c->result.usd_per_unit)) {
				used[m] = 1;
				if (best < 0 || c->result.usd_per_unit < sv[best].by_model[m].result.usd_per_unit)
					best = i;
			}
		}
		if (!used[m])
			continue;
		{
			plot_series *sr = plot_add(r->ps, 0, PLOT_BARS, nused, 0, price_model_names[m]);
			for (int i = 0; i < p->ncats; i++) {
				const rank_quote *c = &sv[i].by_model[m];
				if (c->have_price && c->slo_met && c->result.ok)
					plot_point(sr, i, c->result.usd_per_unit);
			}
		}
		cat(s, sizeof s, "%s%s %s (%s)", nused ? ", " : "", price_model_names[m], sys_name(r, best),
		    usd(b, sv[best].by_model[m].result.usd_per_unit));
		nused++;
	}
	if (table_start(r, &t, 11, hdr) != 0)
		return ERR_DATA;
	for (int k = 3; k < 6; k++)
		out_right(&t, k);
	for (int i = 0; i < r->n; i++)
		for (int m = 0; m < PRICE_MODEL_N; m++) {
			const rank_quote *c = &sv[i].by_model[m];
			char v[3][32];
			const char *cells[11] = {sys_name(r, i), r->rows[i].plan, price_model_names[m],
						 num(v[0], c->usd_per_chip_hour), num(v[1], c->result.usd_per_hour),
						 num(v[2], c->have_price && c->result.ok ? c->result.usd_per_unit : NAN),
						 c->have_price ? c->price.instance : "", c->have_price ? c->price.region : "",
						 c->have_price ? c->price.as_of : "",
						 c->have_price ? (price_verified(&c->price) ? "yes" : "no") : "",
						 c->have_price ? c->price.source : c->note};
			if (!c->have_price && m != (int)r->o->rank.pricing)
				continue;
			if (out_row(&t, cells) != 0) {
				out_release(&t);
				return oom(r);
			}
		}
	if (heading(r, "cost", "Cost per unit by pricing model") != 0)
		return ERR_DATA;
	if (nused > 0) {
		if (say(r, HTML_P, "At each system's chosen layout and load, the cheapest per %s is, by pricing model: %s.",
			unit_name(w), s) != 0)
			return ERR_DATA;
	} else if (say(r, HTML_P, "No system has a price that gives a cost per %s at the latency limits.",
		       unit_name(w)) != 0) {
		return ERR_DATA;
	}
	if (emit_plot(r, "serving_cost", "The chosen layout and load of each system, priced with every pricing "
		      "model the store has for its instance; a missing bar is a pricing model without a price.") != 0) {
		out_release(&t);
		return ERR_DATA;
	}
	return table_out(r, "serving_cost", &t, 0);
}

/* Output tokens/s per provisioned MW against tokens/s per user: the throughput plot's frontiers
 * per MW of facility power (the chips' rated power with their hosts, times the PUE), the power
 * side of the cost plots (InferenceMAX's tokens per provisioned megawatt). */
static int serve_power(rep *r, const serve_sys *sv)
{
	const wl_workload *w = r->w;
	double slo_speed = w->tpot_slo > 0 ? 1 / w->tpot_slo : 0, best[REPORT_SYSTEMS_MAX];
	char s[2048] = "", none[4096] = "", ref[128];
	int order[REPORT_SYSTEMS_MAX], nb = 0, rc;
	plot_start(r, "serving_power", "", 0);
	snprintf(r->ps->title, sizeof r->ps->title, "%s: output tokens/s per provisioned MW against speed per user",
		 w->name);
	axes(r, 0, "", "output tokens/s per user (1 / TPOT)", "output tokens/s per MW (rated power x PUE)", 0,
	     PLOT_AUTO_LOG);
	for (int i = 0; i < r->n; i++) {
		const rank_quote *c = &r->rows[i].cost;
		/* tokens/s per MW = tokens/s per chip / (rated W per chip x PUE) x 1e6 */
		double per_mw = 1e6 / (c->rated_w_per_chip * c->terms.owned.pue);
		plot_series *sr;
		best[i] = r->rows[i].ir.feasible && rank_slo_met(w, &r->rows[i].ir) ? c->energy.tokens_per_s_per_mw : NAN;
		if (!isfinite(per_mw)) {
			cat(none, sizeof none, "%s%s", none[0] ? "; " : "", c->power_note);
			continue;
		}
		sr = plot_add(r->ps, 0, PLOT_LINES, r->color[i], r->color[i], sys_name(r, i));
		for (int k = sv[i].fr->n - 1; k >= 0; k--) {
			const frontier_point *q = &sv[i].fr->pts[k];
			if (q->front && isfinite(q->per_chip))
				plot_point(sr, q->per_user, q->per_chip * per_mw);
		}
	}
	for (int i = 0; i < r->n; i++) {
		plot_series *sr;
		const rank_quote *c = &r->rows[i].cost;
		if (!r->rows[i].ir.feasible || !c->energy.known)
			continue;
		sr = plot_add(r->ps, 0, PLOT_MARK, r->color[i], 0, "");
		plot_point(sr, 1 / r->rows[i].ir.tpot, c->energy.tokens_per_s_per_mw);
	}
	plot_add(r->ps, 0, PLOT_KEY_ONLY, 0, 0, "the pick at the latency limits");
	if (slo_speed > 0) {
		snprintf(ref, sizeof ref, "TPOT limit %.0f ms", w->tpot_slo * 1e3);
		plot_ref_line(r->ps, 0, 1, slo_speed, ref);
	}
	nb = best_order(r, best, order, s, sizeof s);
	if (heading(r, "power", "Tokens per megawatt against speed per user") != 0)
		return ERR_DATA;
	if (nb > 0)
		rc = say(r, HTML_P, "At the latency limits, the most output tokens/s per provisioned MW: %s.", s);
	else
		rc = say(r, HTML_P, "No system with a rated power meets the latency limits.");
	if (rc == 0 && none[0])
		rc = say(r, HTML_P, "No curve: %s.", none);
	if (rc != 0)
		return ERR_DATA;
	return emit_plot(r, "serving_frontier", "The frontiers of the throughput plot per MW of facility power "
			 "provisioned for the chips and their hosts: their rated power ([power] in the system file) times "
			 "the PUE, as InferenceMAX counts tokens per provisioned megawatt; the ringed point is the pick at "
			 "the latency limits. Power and energy of the picks: `power_w`, `energy_kwh_per_unit` and "
			 "`tokens_per_s_per_mw` in `data/ranking.csv`.");
}

/* TTFT and TPOT against load. */
static int serve_latency(rep *r, const serve_sys *sv)
{
	const wl_workload *w = r->w;
	char s[2048] = "", ref[96];
	int tails_differ = 0;
	plot_start(r, "serving_latency", "", 0);
	snprintf(r->ps->title, sizeof r->ps->title, "%s: time to first token and time per output token against load",
		 w->name);
	r->ps->cols = 2;
	axes(r, 0, "TTFT", "requests in flight per replica", "TTFT (s)", 2, PLOT_AUTO_LOG);
	axes(r, 1, "TPOT", "requests in flight per replica", "TPOT (ms)", 2, PLOT_AUTO_LOG);
	for (int i = 0; i < r->n; i++)
		for (int k = 0; k < sv[i].npts; k++)
			tails_differ |= sv[i].pts[k].feasible && (fabs(sv[i].pts[k].ttft_tail - sv[i].pts[k].ttft) > 1e-12 ||
								  fabs(sv[i].pts[k].tpot_tail - sv[i].pts[k].tpot) > 1e-12);
	for (int panel = 0; panel < 2; panel++)
		for (int i = 0; i < r->n; i++) {
			char label[PLOT_TEXT_MAX];
			plot_series *mean, *tail = NULL;
			snprintf(label, sizeof label, "%s%s", sys_name(r, i), tails_differ ? " mean" : "");
			mean = plot_add(r->ps, panel, PLOT_LINES, r->color[i], r->color[i], label);
			if (tails_differ) {
				snprintf(label, sizeof label, "%s p%g", sys_name(r, i), w->slo_percentile);
				tail = plot_add(r->ps, panel, PLOT_DASHED, r->color[i], r->color[i], label);
			}
			for (int k = 0; k < sv[i].npts; k++) {
				const report_load *p = &sv[i].pts[k];
				if (!p->feasible)
					continue;
				plot_point(mean, p->load, panel ? 1e3 * p->tpot : p->ttft);
				if (tail)
					plot_point(tail, p->load, panel ? 1e3 * p->tpot_tail : p->ttft_tail);
			}
		}
	for (int panel = 0; panel < 2; panel++) {
		double lim = panel ? w->tpot_slo : w->ttft_slo;
		if (lim > 0) {
			snprintf(ref, sizeof ref, "limit %.0f ms (p%g)", lim * 1e3, w->slo_percentile);
			plot_ref_line(r->ps, panel, 0, panel ? lim * 1e3 : lim, ref);
		}
	}
	for (int i = 0; i < r->n; i++) {
		int most = 0;
		for (int k = 0; k < sv[i].npts; k++)
			if (sv[i].pts[k].slo_met)
				most = sv[i].pts[k].load;
		if (most)
			cat(s, sizeof s, "%s%d%s on %s", sep(i, r->n), most, i == 0 ? " requests in flight" : "",
			    sys_name(r, i));
		else
			cat(s, sizeof s, "%snone on %s", sep(i, r->n), sys_name(r, i));
	}
	if (heading(r, "latency", "Latency against load") != 0)
		return ERR_DATA;
	if (w->ttft_slo > 0 || w->tpot_slo > 0) {
		if (say(r, HTML_P, "A replica meets TTFT %.0f ms and TPOT %.0f ms (means) with up to %s.",
			w->ttft_slo * 1e3, w->tpot_slo * 1e3, s) != 0)
			return ERR_DATA;
	} else if (say(r, HTML_P, "The workload sets no latency limits.") != 0) {
		return ERR_DATA;
	}
	return emit_plot(r, "serving_load", tails_differ ? "Mean (solid) and tail (dashed) latency at each load; the "
			 "dashed line across is the workload's limit." : "Latency at each load (this scenario has no "
			 "spread: the tail equals the mean); the dashed line across is the workload's limit.");
}


/* The sections drawn from the load curves and the pricing models. */
static int serve_curves(rep *r, const serve_sys *sv)
{
	int rc = serve_load_csv(r, sv);
	if (rc == 0)
		rc = serve_frontier_csv(r, sv);
	if (rc == 0)
		rc = serve_throughput(r, sv);
	if (rc == 0)
		rc = serve_cost_curve(r, sv);
	if (rc == 0)
		rc = serve_disagg(r, sv);
	if (rc == 0)
		rc = serve_cost_models(r, sv);
	if (rc == 0)
		rc = serve_power(r, sv);
	if (rc == 0)
		rc = serve_latency(r, sv);
	return rc;
}

static int serve_roofline(rep *r, const serve_sys *sv)
{
	roof_group *g = calloc((size_t)r->n * 2 + 1, sizeof *g);
	char s[2048], rd[256], dm[512] = "", pc[512] = "";
	double dlo = 1, dhi = 0, plo = 1, phi = 0;
	int rc;
	if (!g)
		return oom(r);
	for (int i = 0; i < r->n; i++) {
		const infer_result *x = &r->rows[i].ir;
		double d = x->decode.t > 0 ? x->decode.t_bound[ROOF_MEMORY] / x->decode.t : 0;
		double p = x->prefill.t > 0 ? x->prefill.t_bound[ROOF_COMPUTE] / x->prefill.t : 0;
		g[2 * i].name = "prefill";
		g[2 * i].ops = sv[i].pre;
		g[2 * i].n = sv[i].npre;
		g[2 * i + 1].name = "decode";
		g[2 * i + 1].ops = sv[i].dec;
		g[2 * i + 1].n = sv[i].ndec;
		dlo = fmin(dlo, d);
		dhi = fmax(dhi, d);
		plo = fmin(plo, p);
		phi = fmax(phi, p);
	}
	ridges(r, rd, sizeof rd);
	if (fabs(dhi - dlo) < 0.005)
		snprintf(dm, sizeof dm, "%.0f%%", 100 * dlo);
	else
		snprintf(dm, sizeof dm, "%.0f to %.0f%%", 100 * dlo, 100 * dhi);
	if (fabs(phi - plo) < 0.005)
		snprintf(pc, sizeof pc, "%.0f%%", 100 * plo);
	else
		snprintf(pc, sizeof pc, "%.0f to %.0f%%", 100 * plo, 100 * phi);
	snprintf(s, sizeof s, "A decode step spends %s of its op time in memory-bound ops and a prefill %s in "
		 "compute-bound ones; %s.", dm, pc, rd);
	rc = roofline_section(r, "serving_roofline", g, 2, s);
	free(g);
	return rc;
}


/* ------------------------------------------------------------------ training */

enum { SCALE_MAX = 20, REPORT_SCALE_MAX = 131072 };

typedef struct train_point {
	int chips, feasible;
	char layout[160];
	double step, mfu, goodput, days, usd, chip_hours, tokens_per_s;
	char reason[TRAIN_REASON_MAX];
} train_point;

typedef struct train_sys {
	sweep_point front[PLOT_POINTS_MAX];
	int nfront;
	train_point scale[SCALE_MAX];
	int nscale;
	report_roof_op ops[OPS_MAX];
	int nops;
} train_sys;

/* The sweep's Pareto front of one system over chip counts around the chosen size. */
static int train_front(rep *r, const rank_row *x, const plan *given, train_sys *v)
{
	sweep_space sp;
	sweep_offer of;
	sweep_job job;
	sweep_result *res = malloc(sizeof *res);
	rank_quote pc;
	int node = hw_node_chips(x->sys), maxc = hw_max_chips(x->sys);
	if (!res)
		return oom(r);
	if (rank_price(&r->o->rank, x->sys, &x->w, &pc, r->e) != 0) {
		free(res);
		return ERR_DATA;
	}
	rank_train_space(x->sys, r->w, &sp);
	for (double c = given->chips / 16.0; c <= given->chips * 8.0 && sp.chips.n < SWEEP_VALUES_MAX; c *= 2)
		if (c >= node && (maxc <= 0 || c <= maxc) && c == floor(c))
			sp.chips.v[sp.chips.n++] = (int)c;
	if (sp.chips.n == 0)
		sp.chips.v[sp.chips.n++] = given->chips;
	/* Every field of the offer: chip_mtbf was left as the stack had it, so the front depended on
	 * what ran before (empty with --chips 64-256 on one build); the chip MTBF as the ranking's. */
	memset(&of, 0, sizeof of);
	of.sys = x->sys;
	of.system = 0;
	of.pricing = (int)pc.pricing;
	of.usd_per_chip_hour = pc.have_price ? pc.usd_per_chip_hour : NAN;
	of.chip_mtbf = rank_spot_mtbf(x->w.cost.failures.chip_mtbf, pc.pricing == PRICE_SPOT ?
				      (pc.spot_interval > 0 ? pc.spot_interval : x->w.cost.spot_interval) : 0,
				      pc.node_chips);
	memset(&job, 0, sizeof job);
	job.space = &sp;
	job.w = r->w;
	job.offers = &of;
	job.noffers = 1;
	job.top_k = 1;
	job.threads = 2;
	job.nshards = 1;
	if (sweep_run(&job, res) != 0) {
		free(res);
		return oom(r);
	}
	v->nfront = 0;
	/* Keep at most PLOT_POINTS_MAX points, evenly along the front. */
	for (int i = 0; i < res->nfront; i++) {
		int k = res->nfront <= PLOT_POINTS_MAX ? i : (int)((long long)i * PLOT_POINTS_MAX / res->nfront);
		if (k >= v->nfront && v->nfront < PLOT_POINTS_MAX)
			v->front[v->nfront++] = res->front[i];
	}
	free(res);
	return 0;
}

/* The best layout at each size from one node to 131,072 chips. */
static int train_scale(rep *r, const rank_row *x, train_sys *v)
{
	rank_row *t = malloc(sizeof *t);
	rank_opts o = r->o->rank;
	int node = hw_node_chips(x->sys), maxc = hw_max_chips(x->sys);
	if (!t)
		return oom(r);
	o.fixed_plan = 0;
	/* Each size is searched at exactly its chips, whatever range --chips gave the ranking. */
	o.cmin = 1;
	o.cmax = RANK_CHIPS_OPEN;
	for (long c = node; c <= REPORT_SCALE_MAX && v->nscale < SCALE_MAX; c *= 2) {
		plan p;
		train_point *pt;
		const cost_result *cr;
		if (maxc > 0 && c > maxc) {
			pt = &v->scale[v->nscale++];
			memset(pt, 0, sizeof *pt);
			pt->chips = (int)c;
			snprintf(pt->reason, sizeof pt->reason, "%s's largest cluster has %d chips", x->sys->name, maxc);
			continue;
		}
		memset(&p, 0, sizeof p);
		p.chips = (int)c;
		plan_fill(&p);
		memset(t, 0, sizeof *t);
		t->sys = x->sys;
		if (rank_system(r->w, &p, &o, t, r->e) != 0) {
			free(t);
			return ERR_DATA;
		}
		cr = &t->cost.result;
		pt = &v->scale[v->nscale++];
		memset(pt, 0, sizeof *pt);
		pt->chips = (int)c;
		pt->feasible = t->tr.feasible;
		snprintf(pt->layout, sizeof pt->layout, "%s", t->plan);
		train_reason(&t->tr, t->sys, &t->w, pt->reason, sizeof pt->reason);
		pt->step = t->tr.step_time;
		pt->mfu = t->tr.mfu;
		pt->goodput = cr->goodput.goodput;
		pt->days = (isfinite(cr->run_time) && cr->run_time > 0 ? cr->run_time : t->tr.train_time) / 86400;
		pt->usd = cr->ok ? cr->usd_per_unit : NAN;
		pt->chip_hours = cr->chip_hours;
		pt->tokens_per_s = t->tr.tokens_per_s;
		add_price(r, &t->cost);
	}
	free(t);
	return 0;
}

static int train_gather(rep *r, train_sys *tv)
{
	ops_list *ops = malloc(sizeof *ops);
	train_result *tr = malloc(sizeof *tr);
	int rc = 0;
	if (!ops || !tr) {
		free(ops);
		free(tr);
		return oom(r);
	}
	for (int i = 0; i < r->n && rc == 0; i++) {
		rank_row *x = &r->rows[i];
		plan given = x->tr.plan;
		rc = train_front(r, x, &given, &tv[i]);
		if (rc == 0)
			rc = train_scale(r, x, &tv[i]);
		train_eval(x->sys, &x->w, &x->tr.plan, tr, ops);
		tv[i].nops = report_roof_ops(&x->sys->chip, ops, tv[i].ops);
	}
	free(ops);
	free(tr);
	return rc;
}

static int train_front_section(rep *r, const train_sys *tv)
{
	static const char *const hdr[] = {"system", "chips", "layout", "zero", "recompute", "step_s", "mfu_pct",
					  "goodput_pct", "run_days", "usd_per_run", "chip_hours"};
	out_table t;
	char s[2048] = "", b[32];
	int cheap = -1, cheap_k = 0, fast = -1, fast_k = 0, unpriced = 0;
	double usd_hi = 0, ch_hi = 0, usd_div, ch_div;
	const char *usd_words, *ch_words;
	char usd_lab[64], ch_lab[64];
	for (int i = 0; i < r->n; i++)
		for (int k = 0; k < tv[i].nfront; k++) {
			if (isfinite(tv[i].front[k].usd_per_run))
				usd_hi = fmax(usd_hi, tv[i].front[k].usd_per_run);
			ch_hi = fmax(ch_hi, tv[i].front[k].chip_hours);
		}
	usd_div = axis_scale(usd_hi, &usd_words);
	ch_div = axis_scale(ch_hi, &ch_words);
	snprintf(usd_lab, sizeof usd_lab, "USD per run%s", usd_words);
	snprintf(ch_lab, sizeof ch_lab, "chip-hours per run%s", ch_words);
	plot_start(r, "training_front", "", 1);
	snprintf(r->ps->title, sizeof r->ps->title, "%s: cost of a run against days to train (each system's "
		 "Pareto front)", r->w->name);
	r->ps->cols = 2;
	axes(r, 0, "USD per run", "days to train (failures included)", usd_lab, 10, PLOT_AUTO_LOG);
	axes(r, 1, "chip-hours per run", "days to train (failures included)", ch_lab, 10, PLOT_AUTO_LOG);
	for (int i = 0; i < r->n; i++) {
		plot_series *a = plot_add(r->ps, 0, PLOT_LINES, r->color[i], r->color[i], sys_name(r, i));
		plot_series *c = plot_add(r->ps, 1, PLOT_LINES, r->color[i], r->color[i], sys_name(r, i));
		int priced_any = 0;
		for (int k = 0; k < tv[i].nfront; k++) {
			const sweep_point *p = &tv[i].front[k];
			double days = p->run_time / 86400;
			plot_point(c, days, p->chip_hours / ch_div);
			if (isfinite(p->usd_per_run)) {
				plot_point(a, days, p->usd_per_run / usd_div);
				priced_any = 1;
				if (cheap < 0 || p->usd_per_run < tv[cheap].front[cheap_k].usd_per_run) {
					cheap = i;
					cheap_k = k;
				}
			}
			if (fast < 0 || p->run_time < tv[fast].front[fast_k].run_time) {
				fast = i;
				fast_k = k;
			}
		}
		unpriced += !priced_any && tv[i].nfront > 0;
	}
	for (int i = 0; i < r->n; i++) {
		const rank_row *x = &r->rows[i];
		double days = (isfinite(x->cost.result.run_time) ? x->cost.result.run_time : x->tr.train_time) / 86400;
		plot_series *sr;
		if (!x->tr.feasible)
			continue;
		if (x->klass == RANK_PRICED || x->klass == RANK_OVER_BUDGET) {
			sr = plot_add(r->ps, 0, PLOT_MARK, r->color[i], 0, "");
			plot_point(sr, days, x->cost.result.usd_per_unit / usd_div);
		}
		sr = plot_add(r->ps, 1, PLOT_MARK, r->color[i], 0, "");
		plot_point(sr, days, x->cost.result.chip_hours / ch_div);
	}
	/* The legend from the chip-hours panel: every system is on it, priced or not. */
	r->ps->key_panel = 1;
	plot_add(r->ps, 1, PLOT_KEY_ONLY, 0, 0, "chosen layout at --chips");
	if (cheap >= 0) {
		const sweep_point *p = &tv[cheap].front[cheap_k];
		char pl[128];
		plan_format(&p->plan, pl, sizeof pl);
		cat(s, sizeof s, "The cheapest run on the fronts is %s at %d chips: %s in %.0f days (%s)", sys_name(r, cheap),
		    p->plan.chips, usd(b, p->usd_per_run), p->run_time / 86400, pl);
	}
	if (fast >= 0) {
		const sweep_point *p = &tv[fast].front[fast_k];
		cat(s, sizeof s, "%s%s at %d chips: %.0f days %s %s", cheap >= 0 ? "; the fastest is " : "The fastest run "
		    "on the fronts is ", sys_name(r, fast), p->plan.chips, p->run_time / 86400,
		    isfinite(p->usd_per_run) ? "for" : "with", isfinite(p->usd_per_run) ? usd(b, p->usd_per_run) : "no price");
	}
	if (heading(r, "front", "Cost against time to train") != 0 ||
	    say(r, HTML_P, "%s.%s", s[0] ? s : "No layout fits", unpriced ? " Systems without a price are on the "
		"chip-hours panel only." : "") != 0)
		return ERR_DATA;
	if (emit_plot(r, "training_front", "Each line is one system's Pareto front from a sweep of layouts (tp, pp, "
		      "vpp, sp, micro-batch, ZeRO, recompute) over chip counts from 1/16 to 8 times --chips: every "
		      "point is faster than all cheaper ones. The ringed point is the layout ranked at --chips.") != 0)
		return ERR_DATA;
	if (table_start(r, &t, 11, hdr) != 0)
		return ERR_DATA;
	for (int k = 5; k < 11; k++)
		out_right(&t, k);
	out_right(&t, 1);
	for (int i = 0; i < r->n; i++)
		for (int k = 0; k < tv[i].nfront; k++) {
			const sweep_point *p = &tv[i].front[k];
			char v[8][32], pl[128];
			const char *cells[11];
			plan_format(&p->plan, pl, sizeof pl);
			snprintf(v[0], 32, "%d", p->plan.chips);
			snprintf(v[1], 32, "%d", p->zero);
			cells[0] = sys_name(r, i);
			cells[1] = v[0];
			cells[2] = pl;
			cells[3] = v[1];
			cells[4] = wl_recompute_names[p->recompute];
			cells[5] = num(v[2], p->step_time);
			cells[6] = num(v[3], 100 * p->mfu);
			cells[7] = num(v[4], 100 * p->goodput);
			cells[8] = num(v[5], p->run_time / 86400);
			cells[9] = num(v[6], p->usd_per_run);
			cells[10] = num(v[7], p->chip_hours);
			if (out_row(&t, cells) != 0) {
				out_release(&t);
				return oom(r);
			}
		}
	return table_out(r, "training_front", &t, 0);
}

static int train_scaling_section(rep *r, const train_sys *tv)
{
	static const char *const hdr[] = {"system", "chips", "feasible", "layout", "step_s", "mfu_pct", "goodput_pct",
					  "run_days", "usd_per_run", "chip_hours", "tokens_per_s", "reason"};
	static const char *const ptitle[] = {"step time", "MFU", "goodput", "USD per run"};
	const char *ylab[4] = {"step time (s)", "MFU (%)", "goodput (%)", ""}, *words;
	char usd_lab[64];
	double usd_hi = 0, usd_div;
	out_table t;
	char s[2048] = "", ref[64];
	for (int i = 0; i < r->n; i++)
		for (int j = 0; j < tv[i].nscale; j++)
			if (tv[i].scale[j].feasible && isfinite(tv[i].scale[j].usd))
				usd_hi = fmax(usd_hi, tv[i].scale[j].usd);
	usd_div = axis_scale(usd_hi, &words);
	snprintf(usd_lab, sizeof usd_lab, "USD per run%s", words);
	ylab[3] = usd_lab;
	plot_start(r, "training_scaling", "", 1);
	snprintf(r->ps->title, sizeof r->ps->title, "%s: scaling from one node to %d,%03d chips (best layout at "
		 "each size)", r->w->name, REPORT_SCALE_MAX / 1000, REPORT_SCALE_MAX % 1000);
	r->ps->cols = 2;
	for (int k = 0; k < 4; k++) {
		axes(r, k, ptitle[k], "chips", ylab[k], 4, k == 0 || k == 3 ? PLOT_AUTO_LOG : 0);
		r->ps->panel[k].xmax = REPORT_SCALE_MAX;
	}
	for (int k = 0; k < 4; k++)
		for (int i = 0; i < r->n; i++) {
			plot_series *sr = plot_add(r->ps, k, PLOT_LINES, r->color[i], r->color[i], sys_name(r, i));
			for (int j = 0; j < tv[i].nscale; j++) {
				const train_point *p = &tv[i].scale[j];
				double y = k == 0 ? p->step : k == 1 ? 100 * p->mfu : k == 2 ? 100 * p->goodput : p->usd / usd_div;
				if (p->feasible)
					plot_point(sr, p->chips, y);
			}
		}
	if (r->n > 0) {
		snprintf(ref, sizeof ref, "--chips %d", r->rows[0].tr.plan.chips);
		for (int k = 0; k < 4; k++)
			plot_ref_line(r->ps, k, 1, r->rows[0].tr.plan.chips, k == 1 ? ref : "");
	}
	for (int i = 0; i < r->n; i++) {
		const train_point *a = NULL, *b = NULL, *c = NULL;
		for (int j = 0; j < tv[i].nscale; j++) {
			const train_point *p = &tv[i].scale[j];
			if (!p->feasible)
				continue;
			if (!a)
				a = p;
			b = p;
			if (isfinite(p->usd) && (!c || p->usd < c->usd))
				c = p;
		}
		if (!a) {
			cat(s, sizeof s, "%s%s fits at no size", i ? "; " : "", sys_name(r, i));
			continue;
		}
		cat(s, sizeof s, "%s%s: MFU %.0f%% at %d chips to %.0f%% at %d, goodput %.0f%% to %.0f%%", i ? "; " : "",
		    sys_name(r, i), 100 * a->mfu, a->chips, 100 * b->mfu, b->chips, 100 * a->goodput, 100 * b->goodput);
		if (c)
			cat(s, sizeof s, ", cheapest run at %d chips", c->chips);
	}
	if (heading(r, "scaling", "Scaling") != 0 || say(r, HTML_P, "From the smallest size that fits to the "
							  "largest: %s.", s) != 0)
		return ERR_DATA;
	if (emit_plot(r, "training_scaling", "Each size gets its own best layout (the same search as the ranking); "
		      "a curve starts where the model first fits and ends at the system's largest cluster or where "
		      "the global batch no longer divides.") != 0)
		return ERR_DATA;
	if (table_start(r, &t, 12, hdr) != 0)
		return ERR_DATA;
	for (int k = 4; k < 11; k++)
		out_right(&t, k);
	out_right(&t, 1);
	for (int i = 0; i < r->n; i++)
		for (int j = 0; j < tv[i].nscale; j++) {
			const train_point *p = &tv[i].scale[j];
			char v[8][32];
			const char *cells[12] = {sys_name(r, i), v[0], p->feasible ? "1" : "0", p->layout,
						 num(v[1], p->step), num(v[2], 100 * p->mfu), num(v[3], 100 * p->goodput),
						 num(v[4], p->days), num(v[5], p->usd), num(v[6], p->chip_hours),
						 num(v[7], p->tokens_per_s), p->reason};
			snprintf(v[0], 32, "%d", p->chips);
			if (out_row(&t, cells) != 0) {
				out_release(&t);
				return oom(r);
			}
		}
	return table_out(r, "training_scaling", &t, 0);
}


static int train_roofline(rep *r, const train_sys *tv)
{
	roof_group *g = calloc((size_t)r->n + 1, sizeof *g);
	char s[2048] = "", rd[256];
	int rc;
	if (!g)
		return oom(r);
	for (int i = 0; i < r->n; i++) {
		const roof_sum *m = &r->rows[i].tr.micro;
		g[i].name = "micro-batch";
		g[i].ops = tv[i].ops;
		g[i].n = tv[i].nops;
		cat(s, sizeof s, "%s%.0f%% on %s", sep(i, r->n), m->t > 0 ? 100 * m->t_bound[ROOF_COMPUTE] / m->t : 0,
		    sys_name(r, i));
	}
	ridges(r, rd, sizeof rd);
	{
		char full[2300];
		snprintf(full, sizeof full, "The share of a micro-batch's op time in compute-bound ops is %s; %s.", s, rd);
		rc = roofline_section(r, "training_roofline", g, 1, full);
	}
	free(g);
	return rc;
}


/* ------------------------------------------------------------------ both modes */

/* Every section after the opening: the mode's numbers first (they decide which prices are
 * used, hence the footers), then the ranking and the plots. */
static int sections(rep *r)
{
	int train = r->w->mode == WL_TRAIN, rc;
	void *v = calloc((size_t)r->n + 1, train ? sizeof(train_sys) : sizeof(serve_sys));
	if (!v)
		return oom(r);
	rc = train ? train_gather(r, v) : serve_gather(r, v);
	for (int i = 0; i < r->n && rc == 0; i++)
		add_price(r, &r->rows[i].cost);
	if (rc == 0) {
		footers(r);
		rc = ranking(r);
	}
	if (rc == 0)
		rc = assumptions(r);
	if (rc == 0)
		rc = error_section(r);
	if (rc == 0 && train)
		rc = train_front_section(r, v);
	if (rc == 0 && train)
		rc = train_scaling_section(r, v);
	if (rc == 0 && !train)
		rc = serve_curves(r, v);
	if (rc == 0)
		rc = step_section(r);
	if (rc == 0)
		rc = memory_section(r);
	if (rc == 0)
		rc = train ? train_roofline(r, v) : serve_roofline(r, v);
	if (!train)
		for (int i = 0; i < r->n; i++)
			free(((serve_sys *)v)[i].fr);
	free(v);
	return rc;
}

/* ------------------------------------------------------------------ the folder */

static int copy_file(rep *r, const char *from, const char *to)
{
	FILE *in = os_open_read(from, r->e), *out;   /* a named pipe is refused, not waited on */
	char buf[8192];
	size_t k;
	int rc = 0;
	if (!in)
		return ERR_DATA;
	out = fopen(to, "wb");
	if (!out) {
		fclose(in);
		return err_set(r->e, ERR_DATA, "%s: cannot write: %s", to, strerror(errno));
	}
	while ((k = fread(buf, 1, sizeof buf, in)) > 0)
		if (fwrite(buf, 1, k, out) != k)
			rc = -1;
	if (ferror(in))
		rc = -1;
	fclose(in);
	if (fclose(out) != 0 || rc != 0)
		return err_set(r->e, ERR_DATA, "%s: cannot copy to %s", from, to);
	return 0;
}

static int write_text(rep *r, const char *path, const char *text)
{
	FILE *fp = fopen(path, "w");
	if (!fp || fputs(text, fp) < 0 || fclose(fp) != 0)
		return err_set(r->e, ERR_DATA, "%s: cannot write: %s", path, strerror(errno));
	return 0;
}

static int cmp_price(const void *a, const void *b)
{
	const price_row *x = a, *y = b;
	int c = strcmp(x->provider, y->provider);
	if (!c)
		c = strcmp(x->instance, y->instance);
	if (!c)
		c = (int)x->model - (int)y->model;
	if (!c)
		c = strcmp(x->region, y->region);
	if (!c)
		c = strcmp(x->as_of, y->as_of);
	return c;
}

/* inputs/: the files echoed, the version, the command, the price rows as a catalog. */
static int inputs(rep *r)
{
	char path[REPORT_PATH_MAX + 256], buf[4096];
	out_table t;
	int rc = 0;
	if (heading(r, "inputs", "Inputs") != 0)
		return ERR_DATA;
	for (int i = 0; i < r->o->ninputs && rc == 0; i++) {
		char *slash;
		snprintf(path, sizeof path, "%s/inputs/%s", r->dir, r->o->inputs[i].name);
		slash = strrchr(path, '/');
		*slash = '\0';
		if (mkdirs(path) != 0)
			return err_set(r->e, ERR_DATA, "%s: cannot create: %s", path, strerror(errno));
		*slash = '/';
		rc = copy_file(r, r->o->inputs[i].path, path);
	}
	snprintf(path, sizeof path, "%s/inputs/version.txt", r->dir);
	snprintf(buf, sizeof buf, "roofcost %s\n", r->o->version);
	if (rc == 0)
		rc = write_text(r, path, buf);
	snprintf(path, sizeof path, "%s/inputs/command.txt", r->dir);
	snprintf(buf, sizeof buf, "%s\n", r->o->command ? r->o->command : "");
	if (rc == 0)
		rc = write_text(r, path, buf);
	if (rc != 0)
		return rc;
	qsort(r->prices, (size_t)r->nprices, sizeof r->prices[0], cmp_price);
	if (table_start(r, &t, 9, price_columns) != 0)
		return ERR_DATA;
	for (int i = 0; i < r->nprices; i++) {
		const price_row *p = &r->prices[i];
		char v[2][32];
		const char *cells[9] = {p->provider, p->instance, p->region, price_model_names[p->model], v[0],
					price_unit_names[p->unit], v[1], p->as_of, p->source};
		snprintf(v[0], 32, "%.10g", p->usd_per_hour);
		snprintf(v[1], 32, "%d", p->accelerators);
		if (out_row(&t, cells) != 0) {
			out_release(&t);
			return oom(r);
		}
	}
	snprintf(path, sizeof path, "%s/inputs/catalogs", r->dir);
	if (mkdirs(path) != 0) {
		out_release(&t);
		return err_set(r->e, ERR_DATA, "%s: cannot create: %s", path, strerror(errno));
	}
	snprintf(path, sizeof path, "%s/inputs/catalogs/prices.csv", r->dir);
	{
		FILE *fp = fopen(path, "w");
		if (!fp) {
			out_release(&t);
			return err_set(r->e, ERR_DATA, "%s: cannot write: %s", path, strerror(errno));
		}
		out_print(&t, OUT_CSV, fp);
		out_release(&t);
		if (fclose(fp) != 0)
			return err_set(r->e, ERR_DATA, "%s: cannot write: %s", path, strerror(errno));
	}
	buf[0] = '\0';
	for (int i = 0; i < r->o->ninputs; i++)
		cat(buf, sizeof buf, "%s`inputs/%s`", i ? ", " : "", r->o->inputs[i].name);
	if (say(r, HTML_P, "The command: `%s` (roofcost %s). The files it read are echoed in the folder: %s; the "
		"%d price rows used are `inputs/catalogs/prices.csv`, a catalog `roofcost import` reads.",
		r->o->command ? r->o->command : "", r->o->version, buf, r->nprices) != 0)
		return ERR_DATA;
	return say(r, HTML_P, "To run it again from the echoed files alone: `ROOFCOST_HOME=inputs ROOFCOST_DB=new.db "
		   "roofcost report ... -o OTHER` in this folder, with the command above (systems and workloads "
		   "named, not given by path). Every number behind a table or plot is in `data/`, every plot's "
		   "script and data in `plots/`.");
}

/* Text into report.md with '<', '>' and '&' as entities: Markdown passes raw HTML through, so a
 * workload's name or description (or any data string) would otherwise reach a reader's browser
 * as markup (<script>, <img onerror>). Inside a code span the entity shows as written, which
 * only data that holds those characters meets. */
static void md_put(FILE *fp, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", fp); break;
		case '>': fputs("&gt;", fp); break;
		case '&': fputs("&amp;", fp); break;
		default: fputc(*s, fp);
		}
	}
}

/* A table in Markdown, through md_put. */
static int md_table(const out_table *t, FILE *fp)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *mem = open_memstream(&buf, &n);
	if (!mem)
		return -1;
	out_print(t, OUT_MD, mem);
	if (fclose(mem) != 0) {
		free(buf);
		return -1;
	}
	md_put(fp, buf);
	free(buf);
	return 0;
}

/* report.md: the page, plots linked. */
static int write_md(rep *r)
{
	char path[REPORT_PATH_MAX + 32];
	FILE *fp;
	int rc = 0;
	snprintf(path, sizeof path, "%s/report.md", r->dir);
	fp = fopen(path, "w");
	if (!fp)
		return err_set(r->e, ERR_DATA, "%s: cannot write: %s", path, strerror(errno));
	for (int i = 0; i < r->page.n && rc == 0; i++) {
		const html_block *b = &r->page.blocks[i];
		static const char *const lead[] = {[HTML_H1] = "# ", [HTML_H2] = "## ", [HTML_NOTE] = "> "};
		switch (b->kind) {
		case HTML_H1:
		case HTML_H2:
		case HTML_P:
		case HTML_NOTE:
			fputs(lead[b->kind] ? lead[b->kind] : "", fp);
			md_put(fp, b->text);
			fputs("\n\n", fp);
			break;
		case HTML_PRE: fprintf(fp, "```\n%s\n```\n\n", b->text); break;
		case HTML_TABLE:
			rc = md_table(&b->table, fp);
			fputs("\n", fp);
			break;
		case HTML_FIGURE:
			if (access(b->svg_path, R_OK) == 0) {
				fprintf(fp, "![%s](plots/%s.svg)\n\n*", b->id, b->id);
				md_put(fp, b->text);
				fputs("*\n\n", fp);
			} else {
				md_put(fp, b->missing);
				fputs("\n\n", fp);
			}
			break;
		}
	}
	if (fclose(fp) != 0 || rc != 0)
		return err_set(r->e, ERR_DATA, "%s: cannot write: %s", path, rc ? "out of memory" : strerror(errno));
	return 0;
}

/* The title and the opening paragraph. */
static int opening(rep *r)
{
	const wl_workload *w = r->w;
	char title[512] = "", what[1024];
	snprintf(title, sizeof title, "%s on ", w->name);
	for (int i = 0; i < r->o->nsys; i++)
		cat(title, sizeof title, "%s%s", sep(i, r->o->nsys), r->o->systems[i]->name);
	if (html_init(&r->page, title) != 0 || html_add(&r->page, HTML_H1, NULL, title) != 0)
		return oom(r);
	if (w->mode == WL_INFER) {
		char load[96];
		if (w->concurrency > 0)
			snprintf(load, sizeof load, "%s %d concurrent requests", w->scenario == WL_SINGLE ? "with" : "at most",
				 w->concurrency);
		else
			snprintf(load, sizeof load, "as many concurrent requests as the limits allow");
		snprintf(what, sizeof what, "%s serving in %s on the `%s` stack: %d-token prompts, %d output tokens, "
			 "scenario %s %s, TTFT %.0f ms and TPOT %.0f ms at p%g", w->net.display, hw_prec_names[w->prec],
			 w->framework_name, w->input_len, w->output_len, wl_scenario_names[w->scenario], load,
			 w->ttft_slo * 1e3, w->tpot_slo * 1e3, w->slo_percentile);
	} else
		snprintf(what, sizeof what, "%s training in %s on the `%s` stack: %.4g trillion tokens, %d sequences of "
			 "%d tokens per step, at %d chips", w->net.display, hw_prec_names[w->prec], w->framework_name,
			 w->tokens / 1e12, w->global_batch, w->seq_len,
			 r->o->nsys ? r->o->plans[0].chips : 0);
	if (say(r, HTML_P, "%s.", what) != 0)
		return ERR_DATA;
	return w->description[0] ? say(r, HTML_NOTE, "The workload file says: %s", w->description) : 0;
}

static int rank_all(rep *r)
{
	r->rows = calloc((size_t)r->o->nsys + 1, sizeof *r->rows);
	if (!r->rows)
		return oom(r);
	for (int i = 0; i < r->o->nsys; i++) {
		rank_row *x = &r->rows[i];
		x->sys = r->o->systems[i];
		r->n++;
		if (rank_system(r->w, &r->o->plans[i], &r->o->rank, x, r->e) != 0)
			return ERR_DATA;
	}
	rank_sort(r->rows, r->n);
	rank_verdicts(r->rows, r->n, r->o->rank.budget);
	for (int i = 0; i < r->n; i++)
		for (int j = 0; j < r->o->nsys; j++)
			if (r->rows[i].sys == r->o->systems[j])
				r->color[i] = j;
	return 0;
}

/* Draws every plot written, if gnuplot is there. */
static int render(rep *r, report_result *res)
{
	char plots[REPORT_PATH_MAX + 16];
	snprintf(plots, sizeof plots, "%s/plots", r->dir);
	if (r->o->gnuplot)
		snprintf(r->gnuplot, sizeof r->gnuplot, "%s", r->o->gnuplot);
	else if (!plot_find_gnuplot(r->gnuplot, sizeof r->gnuplot))
		r->gnuplot[0] = '\0';
	if (!r->gnuplot[0] || access(r->gnuplot, X_OK) != 0) {
		snprintf(res->note, sizeof res->note, "gnuplot not found on PATH: the report has its tables and "
			 "data, the plots only their scripts (plots/*.gp); install gnuplot "
			 "(sudo apt-get install gnuplot-nox) and run the report again");
		return 0;
	}
	for (int i = 0; i < r->nplots; i++) {
		if (cancelled)
			return err_set(r->e, ERR_DATA, "interrupted: nothing written");
		if (plot_render(r->gnuplot, plots, r->plot[i], r->e) != 0)
			return ERR_DATA;
		res->drawn++;
	}
	return 0;
}

/* A folder that may take the report: absent, or an empty folder. */
static int check_target(const char *dir, err *e)
{
	struct stat st;
	DIR *d;
	struct dirent *de;
	int empty = 1;
	if (stat(dir, &st) != 0)
		return errno == ENOENT ? 0 : err_set(e, ERR_DATA, "%s: %s", dir, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return err_set(e, ERR_DATA, "%s: exists and is not a folder", dir);
	if (!(d = opendir(dir)))
		return err_set(e, ERR_DATA, "%s: %s", dir, strerror(errno));
	while (empty && (de = readdir(d)))
		empty = !strcmp(de->d_name, ".") || !strcmp(de->d_name, "..");
	closedir(d);
	if (!empty)
		return err_set(e, ERR_DATA, "%s: the folder is not empty; give a new or empty one (a report "
			       "is never written over another)", dir);
	return 0;
}

void report_cancel(void)
{
	cancelled = 1;
	plot_cancel();
}

/* Removes the partial folders that reports killed before they could clean up left in folder:
 * entries "PREFIXPID-XXXXXX" whose process PID is gone. */
static void remove_stale(const char *folder, const char *prefix)
{
	DIR *d = opendir(folder);
	struct dirent *de;
	size_t n = strlen(prefix);
	if (!d)
		return;
	while ((de = readdir(d))) {
		char path[REPORT_PATH_MAX + 256], *end;
		long pid;
		if (strncmp(de->d_name, prefix, n) != 0)
			continue;
		pid = strtol(de->d_name + n, &end, 10);
		if (pid <= 0 || *end != '-' || strlen(end) != 7)
			continue;
		if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;   /* its report still runs (or the process is another user's) */
		snprintf(path, sizeof path, "%s/%s", folder, de->d_name);
		remove_tree(path);
	}
	closedir(d);
}

/* Where the report is built before it is published whole: beside the target ("DIR.partial-PID-
 * XXXXXX", renamed to DIR), or inside a target that exists as an empty folder (followed through
 * a symlink, "-o .", or one whose parent cannot be written: "DIR/.partial-PID-XXXXXX", its
 * entries moved up). */
typedef struct stage {
	char target[REPORT_PATH_MAX];   /* -o without trailing slashes */
	char real[REPORT_PATH_MAX];     /* inside: the target's real path */
	int inside;
} stage;

static int stage_open(const char *dir, stage *sg, char *partial, size_t n, err *e)
{
	struct stat st;
	size_t len;
	memset(sg, 0, sizeof *sg);
	snprintf(sg->target, sizeof sg->target, "%s", dir);
	for (len = strlen(sg->target); len > 1 && sg->target[len - 1] == '/'; len--)
		sg->target[len - 1] = '\0';
	sg->inside = stat(sg->target, &st) == 0;
	if (sg->inside) {
		if (!S_ISDIR(st.st_mode))
			return err_set(e, ERR_DATA, "%s: exists and is not a folder", sg->target);
		if (!realpath(sg->target, sg->real))
			return err_set(e, ERR_DATA, "%s: %s", sg->target, strerror(errno));
		remove_stale(sg->real, ".partial-");
	} else {
		char parent[REPORT_PATH_MAX], prefix[REPORT_PATH_MAX];
		const char *slash = strrchr(sg->target, '/');
		if (slash) {
			snprintf(parent, sizeof parent, "%.*s", slash == sg->target ? 1 : (int)(slash - sg->target), sg->target);
			snprintf(prefix, sizeof prefix, "%s.partial-", slash + 1);
		} else {
			snprintf(parent, sizeof parent, ".");
			snprintf(prefix, sizeof prefix, "%s.partial-", sg->target);
		}
		remove_stale(parent, prefix);
	}
	if (check_target(sg->target, e) != 0)
		return ERR_DATA;
	if (sg->inside)
		snprintf(partial, n, "%s/.partial-%ld-XXXXXX", sg->real, (long)getpid());
	else
		snprintf(partial, n, "%s.partial-%ld-XXXXXX", sg->target, (long)getpid());
	if (!mkdtemp(partial))
		return err_set(e, ERR_DATA, "%s: cannot create a folder %s it: %s", sg->target,
			       sg->inside ? "in" : "beside", strerror(errno));
	return 0;
}

/* Publishes the built report: renamed to the target, or its entries moved into it (and, if one
 * cannot be, those moved already taken back out, so that the target stays empty). */
static int stage_publish(const stage *sg, const char *partial, err *e)
{
	DIR *d;
	struct dirent *de;
	char moved[16][64];
	int nmoved = 0, rc = 0;
	if (!sg->inside) {
		if (rename(partial, sg->target) != 0)
			return err_set(e, ERR_DATA, "%s: cannot rename %s to it: %s", sg->target, partial, strerror(errno));
		return 0;
	}
	if (!(d = opendir(partial)))
		return err_set(e, ERR_DATA, "%s: %s", partial, strerror(errno));
	while (rc == 0 && (de = readdir(d))) {
		char from[REPORT_PATH_MAX + 320], to[REPORT_PATH_MAX + 320];
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		snprintf(from, sizeof from, "%s/%s", partial, de->d_name);
		snprintf(to, sizeof to, "%s/%s", sg->real, de->d_name);
		if (nmoved == 16 || strlen(de->d_name) >= sizeof moved[0] || rename(from, to) != 0)
			rc = err_set(e, ERR_DATA, "%s: cannot move %s into it: %s", sg->target, de->d_name,
				     nmoved == 16 ? "too many entries" : strerror(errno));
		else
			snprintf(moved[nmoved++], sizeof moved[0], "%s", de->d_name);
	}
	closedir(d);
	for (int i = 0; rc != 0 && i < nmoved; i++) {
		char from[REPORT_PATH_MAX + 320], to[REPORT_PATH_MAX + 320];
		snprintf(from, sizeof from, "%s/%s", sg->real, moved[i]);
		snprintf(to, sizeof to, "%s/%s", partial, moved[i]);
		if (rename(from, to) != 0)
			remove_tree(from);
	}
	if (rc == 0)
		rmdir(partial);
	return rc;
}

int report_write(const report_opts *o, report_result *res, err *e)
{
	rep *r = calloc(1, sizeof *r);
	static const char *const subs[] = {"plots", "data", "inputs"};
	char sub[REPORT_PATH_MAX + 16];
	stage sg;
	int rc = 0;
	memset(res, 0, sizeof *res);
	if (!r)
		return err_set(e, ERR_DATA, "out of memory");
	r->o = o;
	r->w = o->w;
	r->e = e;
	if (o->nsys > REPORT_SYSTEMS_MAX) {
		free(r);
		return err_set(e, ERR_USAGE, "report: at most %d systems", REPORT_SYSTEMS_MAX);
	}
	cancelled = 0;
	if (stage_open(o->dir, &sg, r->dir, sizeof r->dir, e) != 0) {
		free(r);
		return ERR_DATA;
	}
	for (int i = 0; i < 3 && rc == 0; i++) {
		snprintf(sub, sizeof sub, "%s/%s", r->dir, subs[i]);
		if (mkdir(sub, 0777) != 0)
			rc = err_set(e, ERR_DATA, "%s: cannot create: %s", sub, strerror(errno));
	}
	r->ps = malloc(sizeof *r->ps);
	if (rc == 0 && !r->ps)
		rc = oom(r);
	if (rc == 0)
		rc = rank_all(r);
	if (rc == 0)
		rc = opening(r);
	if (rc == 0)
		rc = sections(r);
	if (rc == 0)
		rc = inputs(r);
	res->plots = r->nplots;
	if (rc == 0)
		rc = render(r, res);
	if (rc == 0) {
		char path[REPORT_PATH_MAX + 32];
		snprintf(path, sizeof path, "%s/index.html", r->dir);
		rc = html_write(&r->page, path, e);
	}
	if (rc == 0)
		rc = write_md(r);
	if (rc == 0 && cancelled)
		rc = err_set(e, ERR_DATA, "%s: interrupted: nothing written", sg.target);
	if (rc == 0)
		rc = stage_publish(&sg, r->dir, e);
	if (rc != 0) {
		remove_tree(r->dir);
	} else {
		snprintf(res->index, sizeof res->index, "%s/index.html", sg.target);
	}
	html_release(&r->page);
	free(r->rows);
	free(r->ps);
	free(r);
	return rc;
}
