/* plot: gnuplot scripts and the gnuplot run (see plot.h). */
#include "report/plot.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

/* Okabe and Ito (2008), "Color Universal Design", then a few more that stay apart. */
static const char *const palette[] = {"#0072b2", "#e69f00", "#009e73", "#d55e00", "#cc79a7",
				      "#56b4e9", "#999933", "#882255", "#44aa99", "#332288",
				      "#aa4499", "#777777"};
enum { PALETTE_N = sizeof palette / sizeof palette[0] };

/* Filled gnuplot point types for the shapes of plot.h, and their open rings. */
static const int point_types[] = {7, 5, 9, 13, 11, 15};

/* Figure geometry in screen fractions: panels left of the legend strip, above the footer. */
static const double AREA_L = 0.09, AREA_R = 0.735, AREA_B = 0.14, AREA_T = 0.88;
static const double GAP_X = 0.11, GAP_Y = 0.13, KEY_X = 0.755;

/* Pixels of labels' text: font 8 runs about 5.5 pixels a character and 10 high, and an `offset
 * character` unit of the default font is 6 by 12 (pngcairo; the SVG is close). A ringed
 * marker reaches 8 pixels from its centre, a small one 3. */
static const double LABEL_CW = 5.5, LABEL_H = 10, OFF_CW = 6, OFF_CH = 12, MARK_R = 8, DOT_R = 3, LINE_R = 1.5;

/* gnuplot label tags: reference lines 1..PLOT_REFS_MAX, point labels from PLOT_LABEL_TAG, the
 * footer one tag above them all. */
enum { PLOT_LABEL_TAG = 100, PLOT_FOOTER_TAG = PLOT_LABEL_TAG + PLOT_LABELS_MAX };

void plot_init(plot_spec *s, const char *name, const char *title)
{
	memset(s, 0, sizeof *s);
	snprintf(s->name, sizeof s->name, "%s", name);
	snprintf(s->title, sizeof s->title, "%s", title);
	s->npanels = 1;
	s->cols = 1;
	for (int k = 0; k < PLOT_PANELS_MAX; k++)
		s->panel[k].xmin = s->panel[k].xmax = s->panel[k].ymin = s->panel[k].ymax = NAN;
}

/* "[lo:hi]" with * for an automatic end. */
static void range(FILE *fp, const char *axis, double lo, double hi)
{
	if (!isfinite(lo) && !isfinite(hi))
		return;
	fprintf(fp, "\tset %srange [", axis);
	if (isfinite(lo))
		fprintf(fp, "%.10g", lo);
	else
		fputc('*', fp);
	fputc(':', fp);
	if (isfinite(hi))
		fprintf(fp, "%.10g", hi);
	else
		fputc('*', fp);
	fputs("]\n", fp);
}

plot_series *plot_add(plot_spec *s, int panel, plot_style style, int color, int point,
		      const char *label)
{
	plot_panel *p = &s->panel[panel];
	plot_series *r;
	if (panel < 0 || panel >= PLOT_PANELS_MAX || p->nseries == PLOT_SERIES_MAX)
		return NULL;
	r = &p->series[p->nseries++];
	memset(r, 0, sizeof *r);
	r->style = style;
	r->color = color;
	r->point = point;
	snprintf(r->label, sizeof r->label, "%s", label ? label : "");
	return r;
}

int plot_point(plot_series *r, double x, double y)
{
	if (!r || r->n == PLOT_POINTS_MAX)
		return -1;
	r->x[r->n] = x;
	r->y[r->n] = y;
	r->n++;
	return 0;
}

void plot_ref_line(plot_spec *s, int panel, int vertical, double v, const char *label)
{
	plot_panel *p = &s->panel[panel];
	if (p->nrefs == PLOT_REFS_MAX || !isfinite(v))
		return;
	p->refs[p->nrefs].vertical = vertical;
	p->refs[p->nrefs].v = v;
	snprintf(p->refs[p->nrefs].label, sizeof p->refs[p->nrefs].label, "%s", label ? label : "");
	p->nrefs++;
}

/* A gnuplot single-quoted string: '' for a quote, control characters as spaces. */
static void quoted(FILE *fp, const char *s)
{
	fputc('\'', fp);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '\'')
			fputs("''", fp);
		else
			fputc(c < 0x20 ? ' ' : c, fp);
	}
	fputc('\'', fp);
}

static const char *color(int i)
{
	return palette[(i < 0 ? -i : i) % PALETTE_N];
}

static int point_type(int i)
{
	return point_types[(i < 0 ? -i : i) % (int)(sizeof point_types / sizeof point_types[0])];
}

/* A legend entry with no data of its own. */
static int key_entry(const plot_series *r)
{
	return r->style == PLOT_KEY_ONLY || r->style == PLOT_KEY_LINE;
}

/* Points of r that gnuplot can draw (finite, and positive on a log axis). */
static int drawable(const plot_panel *p, const plot_series *r, int i)
{
	double x = r->x[i], y = r->y[i];
	if (!isfinite(x) || !isfinite(y))
		return 0;
	if (r->style == PLOT_BARS || r->style == PLOT_TICKS)
		return !p->logy || y > 0;
	return (!p->logx || x > 0) && (!p->logy || y > 0);
}

static int series_points(const plot_panel *p, const plot_series *r)
{
	int n = 0;
	for (int i = 0; i < r->n; i++)
		n += drawable(p, r, i);
	return n;
}

/* For a stacked panel with totals printed and a capacity tick (PLOT_TICKS) drawn: the index of
 * the top bar series, whose block gets a third column (where each total's label sits), with
 * tick[c] the tick at category c (NaN: none) and *ylim the largest total or tick. Else -1. */
static int total_labels_at_ticks(const plot_panel *p, double *tick, double *ylim)
{
	double sum[PLOT_CATS_MAX] = {0};
	int top = -1, ticks = 0;
	for (int c = 0; c < PLOT_CATS_MAX; c++)
		tick[c] = NAN;
	if (!p->stacked || !p->value_fmt[0])
		return -1;
	for (int j = 0; j < p->nseries; j++) {
		const plot_series *r = &p->series[j];
		for (int i = 0; i < r->n; i++) {
			int c = (int)r->x[i];
			if (!drawable(p, r, i) || c < 0 || c >= PLOT_CATS_MAX)
				continue;
			if (r->style == PLOT_TICKS) {
				tick[c] = r->y[i];
				ticks = 1;
				*ylim = fmax(*ylim, r->y[i]);
			} else if (r->style == PLOT_BARS) {
				sum[c] += r->y[i];
				*ylim = fmax(*ylim, sum[c]);
				top = j;
			}
		}
	}
	return ticks ? top : -1;
}

/* The .dat file: one block per drawn series, in panel and series order, each two blank lines
 * apart (gnuplot's `index`). Stacked bars are written as the running totals they are drawn
 * at. Returns 0 or -1. */
static int write_dat(const plot_spec *s, const char *path)
{
	FILE *fp = fopen(path, "w");
	int block = 0;
	if (!fp)
		return -1;
	fprintf(fp, "# %s: the numbers behind %s.svg, one block per series (gnuplot index)\n", s->name,
		s->name);
	for (int k = 0; k < s->npanels; k++) {
		const plot_panel *p = &s->panel[k];
		double stack[PLOT_CATS_MAX] = {0}, tick[PLOT_CATS_MAX], ylim = 0;
		int top = total_labels_at_ticks(p, tick, &ylim);
		for (int j = 0; j < p->nseries; j++) {
			const plot_series *r = &p->series[j];
			if (key_entry(r) || series_points(p, r) == 0)
				continue;
			fprintf(fp, "%s# index %d: panel %d, %s\n", block ? "\n\n" : "", block, k + 1,
				r->label[0] ? r->label : "(no label)");
			for (int i = 0; i < r->n; i++) {
				double y = r->y[i];
				if (!drawable(p, r, i))
					continue;
				if (r->style == PLOT_BARS && p->stacked) {
					int c = (int)r->x[i];
					if (c >= 0 && c < PLOT_CATS_MAX)
						y = stack[c] += y;
					if (j == top && c >= 0 && c < PLOT_CATS_MAX) {
						/* Third column: where the total's label sits, above a capacity
						 * tick that would strike through it. */
						double t = tick[c], at = isfinite(t) && t - y <= 0.06 * ylim &&
									 y - t <= 0.03 * ylim ? fmax(y, t) : y;
						fprintf(fp, "%.10g %.10g %.10g\n", r->x[i], y, at);
						continue;
					}
				}
				fprintf(fp, "%.10g %.10g\n", r->x[i], y);
			}
			block++;
		}
	}
	return fclose(fp) == 0 ? 0 : -1;
}

static int nbars(const plot_panel *p)
{
	int n = 0;
	for (int j = 0; j < p->nseries; j++)
		n += p->series[j].style == PLOT_BARS && series_points(p, &p->series[j]) > 0;
	return n;
}

static double panel_px(const plot_spec *s, int k, double *w, double *h);

/* Whether the values printed on side-by-side bars of panel k stand on end: a bar narrower than
 * about five characters of font 8. */
static int upright_values(const plot_spec *s, int k)
{
	const plot_panel *p = &s->panel[k];
	double w, h;
	int bars = nbars(p);
	if (p->stacked || !p->value_fmt[0] || bars <= 1 || p->ncats <= 0)
		return 0;
	return panel_px(s, k, &w, &h) / (p->ncats + 0.2) * 0.8 / bars < 5 * LABEL_CW;
}

/* One `plot` element for series j of panel p, drawn from .dat block `block`. bar = its
 * position among the side-by-side bars. */
static void plot_elem(FILE *fp, const plot_spec *s, const plot_panel *p, const plot_series *r,
		      int block, int bar, int bars, int *first)
{
	const char *c = color(r->color);
	fputs(*first ? "\tplot " : ", \\\n\t     ", fp);
	*first = 0;
	if (key_entry(r)) {
		if (r->style == PLOT_KEY_LINE)
			fputs("keyentry with lines lw 2 lc rgb '#555555' title ", fp);
		else
			fprintf(fp, "keyentry with points pt %d ps 1.6 lc rgb '#000000' title ", point_type(r->point));
		quoted(fp, r->label);
		return;
	}
	fprintf(fp, "'%s.dat' index %d ", s->name, block);
	switch (r->style) {
	case PLOT_LINES:
	case PLOT_DASHED:
		fprintf(fp, "using 1:2 with linespoints lw 2 %s pt %d ps 0.55 lc rgb '%s'",
			r->style == PLOT_DASHED ? "dt (7,4)" : "dt 1", point_type(r->point), c);
		break;
	case PLOT_CURVE:
		fprintf(fp, "using 1:2 with lines lw 2 lc rgb '%s'", c);
		break;
	case PLOT_POINTS:
		fprintf(fp, "using 1:2 with points pt %d ps 0.9 lc rgb '%s'", point_type(r->point), c);
		break;
	case PLOT_MARK:
		fprintf(fp, "using 1:2 with points pt %d ps 2.2 lc rgb '%s'", point_type(r->point), c);
		break;
	case PLOT_TICKS:
		fprintf(fp, "using ($1-0.42):2:(0.84):(0) with vectors nohead lw 3 lc rgb '#000000'");
		break;
	default: {
		double w = p->stacked || bars <= 1 ? 0.6 : 0.8 / bars;
		double off = p->stacked || bars <= 1 ? 0 : (bar - (bars - 1) / 2.0) * w;
		fprintf(fp, "using ($1%+.4f):2:(%.4f) with boxes fs solid 0.85 border lc rgb '#333333' "
			"fc rgb '%s'", off, w * 0.95, c);
		if (p->value_fmt[0] && !p->stacked) {
			int upright = upright_values(s, (int)(p - s->panel));
			fprintf(fp, " title ");
			quoted(fp, r->label);
			fprintf(fp, ", \\\n\t     '%s.dat' index %d using ($1%+.4f):2:(sprintf('%s', $2)) "
				"with labels %s font ',8' notitle", s->name, block, off, p->value_fmt,
				upright ? "rotate by 90 left offset 0,0.4" : "offset 0,0.6");
			return;
		}
	}
	}
	fputs(" title ", fp);
	if (r->label[0])
		quoted(fp, r->label);
	else
		fputs("''", fp);
	if (r->style == PLOT_MARK)
		fprintf(fp, ", \\\n\t     '%s.dat' index %d using 1:2 with points pt %d ps 2.2 lw 1.5 "
			"lc rgb '#000000' notitle", s->name, block, point_type(r->point) - 1);
}

static void panel_box(const plot_spec *s, int k, double *l, double *r, double *b, double *t)
{
	int cols = s->cols < 1 ? 1 : s->cols;
	int rows = (s->npanels + cols - 1) / cols;
	int row = k / cols, col = k % cols;
	double w = (AREA_R - AREA_L - (cols - 1) * GAP_X) / cols;
	double h = (AREA_T - AREA_B - (rows - 1) * GAP_Y) / rows;
	*l = AREA_L + col * (w + GAP_X);
	*r = *l + w;
	*t = AREA_T - row * (h + GAP_Y);
	*b = *t - h;
}

/* The width of panel k's plot area in pixels (960 across the figure), its height into *h (of
 * 540, or 760 with two rows of panels). */
static double panel_px(const plot_spec *s, int k, double *w, double *h)
{
	double l, r, b, t;
	int rows = (s->npanels + (s->cols < 1 ? 1 : s->cols) - 1) / (s->cols < 1 ? 1 : s->cols);
	panel_box(s, k, &l, &r, &b, &t);
	*w = (r - l) * 960;
	*h = (t - b) * (rows > 1 ? 760 : 540);
	return *w;
}

void plot_text(plot_spec *s, int panel, double x, double y, int color, const char *text)
{
	plot_panel *p;
	plot_label *l;
	if (panel < 0 || panel >= PLOT_PANELS_MAX || s->panel[panel].nlabels == PLOT_LABELS_MAX || !isfinite(x) ||
	    !isfinite(y))
		return;
	p = &s->panel[panel];
	l = &p->labels[p->nlabels++];
	l->x = x;
	l->y = y;
	l->color = color;
	snprintf(l->text, sizeof l->text, "%s", text);
}

/* The largest of m x 10^k (m in ms, 0-terminated) at or below v. */
static double tick_below(double v, const int *ms)
{
	double e = floor(log10(v)), best = 0;
	for (int d = -1; d <= 1; d++)
		for (int j = 0; ms[j]; j++) {
			double t = ms[j] * pow(10, e + d);
			if (t <= v * (1 + 1e-12) && t > best)
				best = t;
		}
	return best;
}

/* A log-10 axis with no range given, fitted to its data and reference lines: from just below
 * a tick at or below the lowest value (so that every point has a tick under it to read it by)
 * to hi·1.25. Tics at 1, 2 and 5 × 10^k while that makes at most 12 of them on a y axis; an x
 * axis keeps 1, 2, 5 over at most 1.5 decades, 1 and 3 over at most 3, else 1 alone, so that
 * its labels do not run into each other. */
static int log_span(const plot_panel *p, int y, double *lop, double *hip, const int **msp)
{
	static const int m125[] = {1, 2, 5, 0}, m13[] = {1, 3, 0}, m1[] = {1, 0};
	const int *ms;
	double lo = INFINITY, hi = 0, decades;
	for (int j = 0; j < p->nseries; j++)
		for (int i = 0; i < p->series[j].n; i++) {
			double v = y ? p->series[j].y[i] : p->series[j].x[i];
			if (drawable(p, &p->series[j], i)) {
				lo = fmin(lo, v);
				hi = fmax(hi, v);
			}
		}
	for (int i = 0; i < p->nrefs; i++)
		if (p->refs[i].vertical != y && p->refs[i].v > 0) {
			lo = fmin(lo, p->refs[i].v);
			hi = fmax(hi, p->refs[i].v);
		}
	if (!(hi > 0) || !isfinite(lo) || !(lo > 0))
		return 0;
	decades = log10(hi / lo);
	ms = y ? m125 : decades <= 1.5 ? m125 : decades <= 3 ? m13 : m1;
	*lop = fmin(lo / 1.25, tick_below(lo, ms) / 1.1);
	*hip = hi * 1.25;
	*msp = ms;
	return 1;
}

static void log_axis(FILE *fp, const plot_panel *p, int y)
{
	const int *ms;
	double lo, hi;
	int n = 0;
	if (!log_span(p, y, &lo, &hi, &ms))
		return;
	fprintf(fp, "\tset %srange [%.6g:%.6g]\n", y ? "y" : "x", lo, hi);
	for (int e = (int)floor(log10(lo)); e <= (int)ceil(log10(hi)); e++)
		for (int j = 0; ms[j]; j++)
			n += ms[j] * pow(10, e) >= lo && ms[j] * pow(10, e) <= hi;
	if (n > 12)
		return;
	fprintf(fp, "\tset %stics (", y ? "y" : "x");
	n = 0;
	for (int e = (int)floor(log10(lo)); e <= (int)ceil(log10(hi)); e++)
		for (int j = 0; ms[j]; j++) {
			double v = ms[j] * pow(10, e);
			if (v >= lo && v <= hi)
				fprintf(fp, "%s%.6g", n++ ? ", " : "", v);
		}
	fputs(")\n", fp);
}

/* A log-2 or log-4 x axis whose values reach 10,000 or more (chip counts): its tics at the
 * powers of the base, from 1,024 up written in binary thousands (1K, 4K, 16K = 16,384), so that
 * wide numbers do not run into each other. */
static void pow_axis(FILE *fp, const plot_panel *p)
{
	double lo = INFINITY, hi = 0;
	int n = 0;
	for (int j = 0; j < p->nseries; j++)
		for (int i = 0; i < p->series[j].n; i++)
			if (drawable(p, &p->series[j], i)) {
				lo = fmin(lo, p->series[j].x[i]);
				hi = fmax(hi, p->series[j].x[i]);
			}
	if (!(hi >= 10000) || !(lo > 0))
		return;
	fputs("	set xtics (", fp);
	for (double v = pow(p->logx, floor(log(lo) / log(p->logx) + 1e-9)); v <= hi * (1 + 1e-9); v *= p->logx) {
		if (v >= 1024)
			fprintf(fp, "%s\"%.0fK\" %.10g", n++ ? ", " : "", v / 1024, v);
		else
			fprintf(fp, "%s\"%.0f\" %.10g", n++ ? ", " : "", v, v);
	}
	fputs(")\n", fp);
}

/* gnuplot's autoscaled tic step for a linear axis spanning `span` (quantize_normal_tics, guide 20). */
static double tic_step(double span)
{
	double power = pow(10, floor(log10(span))), xnorm = span / power, posns = 20 / xnorm;
	double t = posns > 40 ? 0.05 : posns > 20 ? 0.1 : posns > 10 ? 0.2 : posns > 4 ? 0.5 : posns > 2 ? 1 :
		   posns > 0.5 ? 2 : ceil(xnorm);
	return t * power;
}

/* The range an axis of p is drawn over, as write_panel and gnuplot set it: a given range, the
 * fitted log-10 range of log_axis, whole powers on a log-2 or log-4 axis, else the data's
 * extent widened to whole tic steps (from 0 on a y axis). Returns 0 when there is nothing to
 * draw. */
static int axis_span(const plot_panel *p, int y, double *lo, double *hi)
{
	double given_lo = y ? p->ymin : p->xmin, given_hi = y ? p->ymax : p->xmax, step;
	int logb = y ? p->logy : p->logx;
	const int *ms;
	if (!y && p->ncats > 0) {
		*lo = -0.6;
		*hi = p->ncats - 0.4;
		return 1;
	}
	if (logb == 10 && !isfinite(given_lo) && !isfinite(given_hi))
		return log_span(p, y, lo, hi, &ms);
	*lo = INFINITY;
	*hi = -INFINITY;
	for (int j = 0; j < p->nseries; j++)
		for (int i = 0; i < p->series[j].n; i++)
			if (drawable(p, &p->series[j], i)) {
				*lo = fmin(*lo, y ? p->series[j].y[i] : p->series[j].x[i]);
				*hi = fmax(*hi, y ? p->series[j].y[i] : p->series[j].x[i]);
			}
	if (!isfinite(*lo))
		return 0;
	if (logb > 1) {
		*lo = pow(logb, floor(log(*lo) / log(logb) + 1e-9));
		*hi = pow(logb, ceil(log(*hi) / log(logb) - 1e-9));
	} else {
		if (y && !isfinite(given_lo) && !isfinite(given_hi))
			*lo = fmin(*lo, 0);
		step = *hi > *lo ? tic_step(*hi - *lo) : 1;
		*lo = floor(*lo / step + 1e-9) * step;
		*hi = ceil(*hi / step - 1e-9) * step;
	}
	if (isfinite(given_lo))
		*lo = given_lo;
	if (isfinite(given_hi))
		*hi = given_hi;
	return *hi > *lo && (logb <= 1 || *lo > 0);
}


/* Where a label may go around its point, in `offset character` units with its alignment:
 * above right (the default), below right, above left, below left. */
static const struct {
	double dx, dy;
	int right;
} label_spots[] = {{0.5, 0.7, 0}, {0.5, -0.7, 0}, {-0.5, 0.7, 1}, {-0.5, -0.7, 1}};
enum { LABEL_SPOTS = sizeof label_spots / sizeof label_spots[0] };

typedef struct panel_geom {
	double w, h, xlo, xhi, ylo, yhi;
	int logx, logy, ok;
} panel_geom;

static double px_along(double v, double lo, double hi, int logs, double size)
{
	if (logs) {
		v = log(v);
		lo = log(lo);
		hi = log(hi);
	}
	return (v - lo) / (hi - lo) * size;
}

static void to_px(const panel_geom *g, double x, double y, double *px, double *py)
{
	*px = px_along(x, g->xlo, g->xhi, g->logx, g->w);
	*py = px_along(y, g->ylo, g->yhi, g->logy, g->h);
}

typedef struct box {
	double l, r, b, t;
} box;

static int boxes_meet(box a, box b)
{
	return a.l < b.r && b.l < a.r && a.b < b.t && b.b < a.t;
}

/* Whether the segment (x0, y0)-(x1, y1) crosses box a (Liang and Barsky's clip). */
static int segment_meets(box a, double x0, double y0, double x1, double y1)
{
	double t0 = 0, t1 = 1, dx = x1 - x0, dy = y1 - y0;
	const double pq[4][2] = {{-dx, x0 - a.l}, {dx, a.r - x0}, {-dy, y0 - a.b}, {dy, a.t - y0}};
	for (int k = 0; k < 4; k++) {
		double pk = pq[k][0], qk = pq[k][1];
		if (pk == 0) {
			if (qk < 0)
				return 0;
		} else if (pk < 0) {
			t0 = fmax(t0, qk / pk);
		} else {
			t1 = fmin(t1, qk / pk);
		}
		if (t0 > t1)
			return 0;
	}
	return 1;
}

/* How much of the panel's drawing box a meets: -1 when it leaves the plot area or covers a
 * ringed marker or another series' point (never), else the line segments it crosses. */
static int box_cost(const plot_panel *p, const panel_geom *g, box a)
{
	int cost = 0;
	if (a.l < 0 || a.r > g->w || a.b < 0 || a.t > g->h)
		return -1;
	for (int j = 0; j < p->nseries; j++) {
		const plot_series *r = &p->series[j];
		double lx = NAN, ly = NAN;
		int dots = r->style == PLOT_LINES || r->style == PLOT_DASHED || r->style == PLOT_POINTS, mark = r->style == PLOT_MARK,
		    line = r->style == PLOT_LINES || r->style == PLOT_DASHED || r->style == PLOT_CURVE;
		if (!dots && !mark && !line)
			continue;
		for (int i = 0; i < r->n; i++) {
			double x, y, rad = mark ? MARK_R : DOT_R;
			if (!drawable(p, r, i))
				continue;
			to_px(g, r->x[i], r->y[i], &x, &y);
			if ((dots || mark) && boxes_meet(a, (box){x - rad, x + rad, y - rad, y + rad}))
				return -1;
			if (line && isfinite(lx) &&
			    segment_meets((box){a.l - LINE_R, a.r + LINE_R, a.b - LINE_R, a.t + LINE_R}, lx, ly, x, y))
				cost++;
			lx = x;
			ly = y;
		}
	}
	for (int i = 0; i < p->nrefs; i++) {
		/* A reference line is crossed at a cost; its label, in font 9 beside it (write_panel),
		 * is never covered. */
		const plot_ref *f = &p->refs[i];
		double x, y, w = 6.2 * (double)strlen(f->label);
		box line, text;
		to_px(g, f->vertical ? f->v : g->xlo, f->vertical ? g->ylo : f->v, &x, &y);
		line = f->vertical ? (box){x - LINE_R, x + LINE_R, 0, g->h} : (box){0, g->w, y - LINE_R, y + LINE_R};
		text = f->vertical ? (box){x + 0.6 * OFF_CW, x + 0.6 * OFF_CW + w, 0.03 * g->h - 6, 0.03 * g->h + 6}
				   : (box){0.01 * g->w, 0.01 * g->w + w, y + 0.6 * OFF_CH - 6, y + 0.6 * OFF_CH + 6};
		if (f->label[0] && boxes_meet(a, text))
			return -1;
		cost += boxes_meet(a, line);
	}
	return cost;
}

/* Where each point label of panel k goes: spot[i] indexes label_spots, or is -1 for a label
 * left out. Labels are placed in order; each takes the first spot, in label_spots' order,
 * that stays in the plot area, covers no marker and no earlier label, and crosses the
 * fewest lines: names that run into each other or into the data say nothing. */
static void place_labels(const plot_spec *s, int k, int *spot)
{
	const plot_panel *p = &s->panel[k];
	panel_geom g;
	box kept[PLOT_LABELS_MAX];
	int nkept = 0;
	panel_px(s, k, &g.w, &g.h);
	g.logx = p->logx > 1;
	g.logy = p->logy > 1;
	g.ok = axis_span(p, 0, &g.xlo, &g.xhi) && axis_span(p, 1, &g.ylo, &g.yhi);
	for (int i = 0; i < p->nlabels; i++) {
		const plot_label *lb = &p->labels[i];
		double x, y, w = LABEL_CW * (double)strlen(lb->text);
		int best = -1, best_cost = 0;
		box bb = {0, 0, 0, 0};
		spot[i] = -1;
		if (!g.ok || (g.logx && !(lb->x > 0)) || (g.logy && !(lb->y > 0)))
			continue;
		to_px(&g, lb->x, lb->y, &x, &y);
		for (int c = 0; c < LABEL_SPOTS; c++) {
			double ax = x + label_spots[c].dx * OFF_CW, cy = y + label_spots[c].dy * OFF_CH;
			box a = {label_spots[c].right ? ax - w : ax, label_spots[c].right ? ax : ax + w, cy - LABEL_H / 2,
				 cy + LABEL_H / 2};
			int cost = box_cost(p, &g, a);
			for (int j = 0; j < nkept && cost >= 0; j++)
				if (boxes_meet(a, kept[j]))
					cost = -1;
			if (cost >= 0 && (best < 0 || cost < best_cost)) {
				best = c;
				best_cost = cost;
				bb = a;
			}
		}
		spot[i] = best;
		if (best >= 0)
			kept[nkept++] = bb;
	}
}

static void write_panel(FILE *fp, const plot_spec *s, int k, int *block)
{
	const plot_panel *p = &s->panel[k];
	double l, r, b, t;
	int first = 1, bars = nbars(p), bar = 0, any = 0, last_bars = -1, blk[PLOT_SERIES_MAX], spot[PLOT_LABELS_MAX];
	panel_box(s, k, &l, &r, &b, &t);
	fprintf(fp, "\t# panel %d\n", k + 1);
	fprintf(fp, "\tset lmargin at screen %.4f; set rmargin at screen %.4f\n", l, r);
	fprintf(fp, "\tset bmargin at screen %.4f; set tmargin at screen %.4f\n", b, t);
	fputs("\tset title ", fp);
	quoted(fp, p->title);
	fputs(" font ',11'\n\tset xlabel ", fp);
	quoted(fp, p->xlabel);
	fputs("\n\tset ylabel ", fp);
	quoted(fp, p->ylabel);
	fputs("\n\tset grid xtics ytics lc rgb '#e4e4e4' lw 1\n", fp);
	fputs("\tset border 3 lc rgb '#444444'\n\tset tics nomirror out scale 0.6\n", fp);
	if (p->logx)
		fprintf(fp, "\tset logscale x %d\n\tset format x '%%g'\n", p->logx);
	if (p->logy)
		fprintf(fp, "\tset logscale y %d\n\tset format y '%%g'\n", p->logy);
	if (p->ncats > 0) {
		fputs("\tset xtics (", fp);
		for (int c = 0; c < p->ncats; c++) {
			if (c)
				fputs(", ", fp);
			quoted(fp, p->cats[c]);
			fprintf(fp, " %d", c);
		}
		{
			/* Names wider than their category's share of the panel (7 px a character at the
			 * tick font) would run into each other: they hang at an angle instead. */
			double pw, ph, longest = 0;
			for (int c = 0; c < p->ncats; c++)
				longest = fmax(longest, (double)strlen(p->cats[c]));
			panel_px(s, k, &pw, &ph);
			fprintf(fp, ") scale 0%s\n\tset xrange [-0.6:%.1f]\n",
				longest * 7 > 0.95 * pw / (p->ncats + 0.2) ? " rotate by -25 left" : "", p->ncats - 0.4);
		}
		if (!p->logy)
			fputs("\tset yrange [0:*]\n", fp);
		if (p->stacked && p->value_fmt[0])
			fputs("\tset offsets 0, 0, graph 0.06, 0\n", fp);
		else if (p->value_fmt[0])
			fputs(upright_values(s, k) ? "\tset offsets 0, 0, graph 0.14, 0\n" : "\tset offsets 0, 0, graph 0.08, 0\n", fp);
	}
	range(fp, "x", p->xmin, p->xmax);
	range(fp, "y", p->ymin, p->ymax);
	if (p->logx == 10 && p->ncats == 0 && !isfinite(p->xmin) && !isfinite(p->xmax))
		log_axis(fp, p, 0);
	if ((p->logx == 2 || p->logx == 4) && p->ncats == 0)
		pow_axis(fp, p);
	if (p->logy == 10 && p->ncats == 0 && !isfinite(p->ymin) && !isfinite(p->ymax))
		log_axis(fp, p, 1);
	if (!p->logy && p->ncats == 0 && !isfinite(p->ymin) && !isfinite(p->ymax))
		fputs("\tset yrange [0:*]\n", fp);
	if (k == s->key_panel)
		fprintf(fp, "\tset key at screen %.4f, screen %.4f left top vertical Left reverse samplen 2.5 "
			"spacing 1.1 font ',10' noenhanced\n", KEY_X, AREA_T);
	else
		fputs("\tunset key\n", fp);
	for (int i = 0; i < p->nrefs; i++) {
		const plot_ref *f = &p->refs[i];
		if (f->vertical)
			fprintf(fp, "\tset arrow %d from first %.10g, graph 0 to first %.10g, graph 1 nohead "
				"dt (5,4) lw 1.5 lc rgb '#333333' front\n", i + 1, f->v, f->v);
		else
			fprintf(fp, "\tset arrow %d from graph 0, first %.10g to graph 1, first %.10g nohead "
				"dt (5,4) lw 1.5 lc rgb '#333333' front\n", i + 1, f->v, f->v);
		if (f->label[0]) {
			fprintf(fp, "\tset label %d ", i + 1);
			quoted(fp, f->label);
			if (f->vertical)
				fprintf(fp, " at first %.10g, graph 0.03 offset character 0.6, 0 left font ',9' "
					"tc rgb '#333333' front\n", f->v);
			else
				fprintf(fp, " at graph 0.01, first %.10g offset 0, character 0.6 left font ',9' "
					"tc rgb '#333333' front\n", f->v);
		}
	}
	place_labels(s, k, spot);
	for (int i = 0; i < p->nlabels; i++) {
		const plot_label *lb = &p->labels[i];
		if (spot[i] < 0)
			continue;
		fprintf(fp, "\tset label %d ", PLOT_LABEL_TAG + i);
		quoted(fp, lb->text);
		fprintf(fp, " at first %.10g, first %.10g offset character %.1f, %.1f %s font ',8' tc rgb '%s' front\n",
			lb->x, lb->y, label_spots[spot[i]].dx, label_spots[spot[i]].dy,
			label_spots[spot[i]].right ? "right" : "left", palette[(lb->color % PALETTE_N + PALETTE_N) % PALETTE_N]);
	}
	/* Blocks in series order; stacked bars drawn top segment first so that each running
	 * total shows above the one below it (and the legend lists them top down). */
	for (int j = 0; j < p->nseries; j++) {
		const plot_series *sr = &p->series[j];
		blk[j] = -1;
		if (!key_entry(sr) && series_points(p, sr) > 0)
			blk[j] = (*block)++;
	}
	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < p->nseries; i++) {
			int stacked_bar, j = i;
			const plot_series *sr;
			if (pass == 0 && p->stacked)
				j = p->nseries - 1 - i;
			sr = &p->series[j];
			stacked_bar = p->stacked && sr->style == PLOT_BARS;
			if (stacked_bar != (pass == 0) || (!key_entry(sr) && blk[j] < 0))
				continue;
			any |= !key_entry(sr);
			plot_elem(fp, s, p, sr, blk[j], bar, bars, &first);
			if (sr->style == PLOT_BARS) {
				bar++;
				if (last_bars < blk[j])
					last_bars = blk[j];
			}
		}
	if (p->stacked && p->value_fmt[0] && last_bars >= 0) {
		/* The stack totals: the running totals of the top segment, on an opaque box, at the
		 * third column's height where a capacity tick is drawn (write_dat). */
		double tick[PLOT_CATS_MAX], ylim = 0;
		fprintf(fp, ", \\\n\t     '%s.dat' index %d using 1:%d:(sprintf('%s', $2)) with labels "
			"boxed offset 0,0.6 font ',8' notitle", s->name, last_bars,
			total_labels_at_ticks(p, tick, &ylim) >= 0 ? 3 : 2, p->value_fmt);
	}
	if (!any) {
		fputs(first ? "\tset xrange [0:1]; set yrange [0:1]; unset logscale\n"
			      "\tset label 20 'no point to draw' at graph 0.5, graph 0.5 center\n"
			      "\tplot 2 notitle"
			    : "", fp);
		if (!first)
			fputs(", 2 notitle", fp);
	}
	fputs("\n", fp);
	fputs("\tunset label; unset arrow; unset logscale; set xtics autofreq; set ytics autofreq; unset offsets\n"
	      "\tset xrange [*:*]; set yrange [*:*]; set format x; set format y\n", fp);
}

static int write_gp(const plot_spec *s, const char *path)
{
	FILE *fp = fopen(path, "w");
	int block = 0, rows, h;
	if (!fp)
		return -1;
	rows = (s->npanels + (s->cols < 1 ? 1 : s->cols) - 1) / (s->cols < 1 ? 1 : s->cols);
	h = rows > 1 ? 760 : 540;
	fprintf(fp, "# %s: ", s->name);
	for (const char *c = s->title; *c; c++)
		fputc(*c == '\n' ? ' ' : *c, fp);
	fprintf(fp, "\n# Draws %s.svg and %s.png from %s.dat; run `gnuplot %s.gp` in this folder.\n", s->name,
		s->name, s->name, s->name);
	fputs("do for [fmt in 'svg png'] {\n\treset\n", fp);
	fprintf(fp, "\tif (fmt eq 'svg') {\n"
		    "\t\tset terminal svg dynamic size 960,%d font 'sans,12' background '#ffffff' noenhanced\n"
		    "\t} else {\n"
		    "\t\tset terminal pngcairo size 960,%d font 'sans,10' background '#ffffff' noenhanced\n"
		    "\t}\n", h, h);
	fprintf(fp, "\tset output '%s.'.fmt\n", s->name);
	fputs("\tset style textbox opaque noborder\n", fp);
	fputs("\tset multiplot title ", fp);
	quoted(fp, s->title);
	/* The footer's tag lies above every panel's own labels (refs from 1, points from
	 * PLOT_LABEL_TAG), which would otherwise overwrite it. */
	fprintf(fp, " font ',14'\n\tset label %d ", PLOT_FOOTER_TAG);
	quoted(fp, s->footer);
	fputs(" at screen 0.01, screen 0.018 left font ',9' tc rgb '#555555'\n", fp);
	for (int k = 0; k < s->npanels; k++) {
		write_panel(fp, s, k, &block);
	}
	fputs("\tunset multiplot\n\tunset output\n}\n", fp);
	return fclose(fp) == 0 ? 0 : -1;
}

/* PLOT_AUTO_LOG for one axis: 10 when the positive finite values span more than 20x. */
static int auto_log(const plot_panel *p, int y)
{
	double lo = INFINITY, hi = 0;
	for (int j = 0; j < p->nseries; j++)
		for (int i = 0; i < p->series[j].n; i++) {
			double v = y ? p->series[j].y[i] : p->series[j].x[i];
			if (isfinite(v) && v > 0) {
				lo = fmin(lo, v);
				hi = fmax(hi, v);
			}
		}
	return hi > 20 * lo ? 10 : 0;
}

int plot_write(const plot_spec *s, const char *dir, err *e)
{
	char path[4096];
	plot_spec *r = malloc(sizeof *r);
	int rc = 0;
	if (!r)
		return err_set(e, ERR_DATA, "out of memory");
	*r = *s;
	for (int k = 0; k < r->npanels; k++) {
		if (r->panel[k].logx < 0)
			r->panel[k].logx = auto_log(&r->panel[k], 0);
		if (r->panel[k].logy < 0)
			r->panel[k].logy = auto_log(&r->panel[k], 1);
	}
	snprintf(path, sizeof path, "%s/%s.dat", dir, r->name);
	if (write_dat(r, path) != 0)
		rc = err_set(e, ERR_DATA, "%s: cannot write: %s", path, strerror(errno));
	snprintf(path, sizeof path, "%s/%s.gp", dir, r->name);
	if (rc == 0 && write_gp(r, path) != 0)
		rc = err_set(e, ERR_DATA, "%s: cannot write: %s", path, strerror(errno));
	free(r);
	return rc;
}

int plot_find_gnuplot(char *path, size_t n)
{
	const char *env = getenv("PATH");
	char buf[8192];
	char *save = NULL;
	if (!env || !*env)
		return 0;
	snprintf(buf, sizeof buf, "%s", env);
	for (char *d = strtok_r(buf, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		snprintf(path, n, "%s/gnuplot", *d ? d : ".");
		if (access(path, X_OK) == 0)
			return 1;
	}
	path[0] = '\0';
	return 0;
}

/* Replaces the text of the SVG's <desc>, where gnuplot writes its version, with a fixed one. */
static int normalise_svg(const char *path)
{
	static const char fixed[] = "<desc>Produced by GNUPLOT</desc>";
	FILE *fp = fopen(path, "rb");
	char *buf, *a, *b;
	long n;
	int rc = -1;
	if (!fp)
		return -1;
	if (fseek(fp, 0, SEEK_END) != 0 || (n = ftell(fp)) < 0 || fseek(fp, 0, SEEK_SET) != 0 ||
	    !(buf = malloc((size_t)n + 1))) {
		fclose(fp);
		return -1;
	}
	if (fread(buf, 1, (size_t)n, fp) != (size_t)n) {
		fclose(fp);
		free(buf);
		return -1;
	}
	fclose(fp);
	buf[n] = '\0';
	a = strstr(buf, "<desc>");
	b = a ? strstr(a, "</desc>") : NULL;
	if (!a || !b) {
		free(buf);
		return 0;
	}
	b += strlen("</desc>");
	fp = fopen(path, "wb");
	if (fp) {
		size_t head = (size_t)(a - buf), tail = (size_t)(buf + n - b);
		if (fwrite(buf, 1, head, fp) == head && fwrite(fixed, 1, sizeof fixed - 1, fp) == sizeof fixed - 1 &&
		    fwrite(b, 1, tail, fp) == tail)
			rc = 0;
		if (fclose(fp) != 0)
			rc = -1;
	}
	free(buf);
	return rc;
}

/* The gnuplot child being waited on (0: none), for plot_cancel. */
static volatile pid_t running;

void plot_cancel(void)
{
	pid_t p = running;
	if (p > 0)
		kill(p, SIGKILL);
}

int plot_render(const char *gnuplot, const char *dir, const char *name, err *e)
{
	char script[PLOT_NAME_MAX + 8], svg[4096], msg[512] = "";
	int fds[2], status = 0;
	size_t got = 0;
	pid_t pid, parent;
	snprintf(script, sizeof script, "%s.gp", name);
	if (pipe(fds) != 0)
		return err_set(e, ERR_DATA, "cannot start gnuplot: %s", strerror(errno));
	parent = getpid();
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return err_set(e, ERR_DATA, "cannot start gnuplot: %s", strerror(errno));
	}
	if (pid == 0) {
		char *const argv[] = {(char *)gnuplot, script, NULL};
		int dn;
#ifdef __linux__
		/* gnuplot dies with roofcost, however roofcost dies (a SIGKILL cannot be caught). */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent)
			_exit(125);
#endif
		dn = open("/dev/null", O_RDWR);
		if (dn >= 0) {
			dup2(dn, 0);
			dup2(dn, 1);
		}
		dup2(fds[1], 2);
		close(fds[0]);
		close(fds[1]);
		if (chdir(dir) != 0)
			_exit(126);
		execv(gnuplot, argv);
		_exit(127);
	}
	running = pid;
	close(fds[1]);
	for (;;) {
		char tmp[512];
		ssize_t k = read(fds[0], tmp, sizeof tmp);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		for (ssize_t i = 0; i < k && got + 1 < sizeof msg; i++)
			msg[got++] = tmp[i];
	}
	msg[got] = '\0';
	close(fds[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	running = 0;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		/* gnuplot's complaint ends with the line that says what went wrong. */
		char *line = msg, *nl;
		for (char *c = msg; *c; c++)
			if (*c == '\n' && c[1])
				line = c + 1;
		if ((nl = strchr(line, '\n')))
			*nl = '\0';
		if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
			return err_set(e, ERR_DATA, "%s: cannot run %s", script, gnuplot);
		return err_set(e, ERR_DATA, "%s/%s: gnuplot failed: %s", dir, script, line[0] ? line : "no message");
	}
	snprintf(svg, sizeof svg, "%s/%s.svg", dir, name);
	if (normalise_svg(svg) != 0)
		return err_set(e, ERR_DATA, "%s: gnuplot wrote no readable SVG", svg);
	return 0;
}
