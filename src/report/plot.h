/* plot: the only module that writes gnuplot scripts and runs gnuplot.
 *
 * A plot is a value (plot_spec): a title, one to four panels (axes with units, linear or log
 * scales, series of points, lines or bars, reference lines such as a latency limit) and a
 * footer. plot_write puts the numbers into DIR/NAME.dat (one block per series) and a script
 * into DIR/NAME.gp that draws NAME.svg (`set terminal svg dynamic`) and NAME.png (pngcairo)
 * from them, labels `noenhanced` so that names print as written; run in DIR, `gnuplot
 * NAME.gp` redraws both. plot_render runs gnuplot on the script: fork and exec of a fixed
 * argv (no shell), working directory DIR, and then rewrites the version line gnuplot puts in
 * the SVG, so that the same plot gives the same bytes whatever gnuplot drew it.
 *
 * Colours are indexes into one fixed palette, so that a caller can keep a system's colour
 * across plots. The legend sits in a strip right of the panels, never over the data. Knows
 * nothing of what the numbers mean. */
#ifndef ROOFCOST_PLOT_H
#define ROOFCOST_PLOT_H

#include <stddef.h>

#include "base/err.h"

enum { PLOT_AUTO_LOG = -1 };

enum { PLOT_SERIES_MAX = 34, PLOT_POINTS_MAX = 256, PLOT_PANELS_MAX = 4, PLOT_CATS_MAX = 16,
       PLOT_REFS_MAX = 4, PLOT_TEXT_MAX = 200, PLOT_NAME_MAX = 64, PLOT_CAT_MAX = 48, PLOT_LABELS_MAX = 32,
       PLOT_LABEL_MAX = 32 };

typedef enum plot_style {
	PLOT_LINES,     /* a solid line with small markers */
	PLOT_CURVE,     /* a solid line, no markers */
	PLOT_DASHED,    /* a dashed line with small markers */
	PLOT_POINTS,    /* markers only */
	PLOT_MARK,      /* a large ringed marker: a chosen point */
	PLOT_BARS,      /* bars at the categories (x = category index 0..ncats-1) */
	PLOT_TICKS,     /* a short horizontal bar across each category: a capacity */
	PLOT_KEY_ONLY,  /* no points: an entry in the legend only (style of `point`, black) */
	PLOT_KEY_LINE   /* no points: an entry in the legend only (a grey line) */
} plot_style;

typedef struct plot_series {
	char label[PLOT_TEXT_MAX];   /* "" = not in the legend */
	plot_style style;
	int color;                   /* palette index (any int >= 0; it wraps) */
	int point;                   /* marker shape 0..5: circle, square, triangle, diamond,
				      * inverted triangle, pentagon */
	int n;                       /* points; a series without points is left out */
	double x[PLOT_POINTS_MAX], y[PLOT_POINTS_MAX]; /* non-finite values are skipped */
} plot_series;

typedef struct plot_ref {
	int vertical;                /* 1: the line x = v; 0: the line y = v */
	double v;
	char label[PLOT_TEXT_MAX];
} plot_ref;

/* A short text at a point of the data (a layout named where a curve changes it). */
typedef struct plot_label {
	double x, y;
	int color;                   /* palette index, as the series it annotates */
	char text[PLOT_LABEL_MAX];
} plot_label;

typedef struct plot_panel {
	char title[PLOT_TEXT_MAX];   /* "" = none */
	char xlabel[PLOT_TEXT_MAX];  /* with units */
	char ylabel[PLOT_TEXT_MAX];
	int logx, logy;              /* 0 = linear, else the log base (2, 4, 10); PLOT_AUTO_LOG: base
				      * 10 when the data spans more than a factor 20, else linear */
	double xmin, xmax, ymin, ymax; /* axis range; NaN or equal ends = automatic */
	int stacked;                 /* bars: stacked in series order (bottom first), else side by side */
	char value_fmt[16];          /* bars: printf format of the value printed on each bar
				      * (side by side) or on each stack's total; "" = none */
	int ncats;                   /* bar categories, the x tick labels at 0..ncats-1 */
	char cats[PLOT_CATS_MAX][PLOT_CAT_MAX];
	int nseries;
	plot_series series[PLOT_SERIES_MAX];
	int nrefs;
	plot_ref refs[PLOT_REFS_MAX];
	int nlabels;
	plot_label labels[PLOT_LABELS_MAX];
} plot_panel;

typedef struct plot_spec {
	char name[PLOT_NAME_MAX];    /* file stem: [a-z0-9_-] */
	char title[PLOT_TEXT_MAX];
	char footer[PLOT_TEXT_MAX];  /* small print at the bottom (where the data is from) */
	int npanels;                 /* 1..PLOT_PANELS_MAX */
	int cols;                    /* panels per row (1 or 2) */
	int key_panel;               /* the panel whose series make the legend; -1 = none */
	plot_panel panel[PLOT_PANELS_MAX];
} plot_spec;

/* Clears *s (about 400 KB: allocate it) and sets name, title and one panel, axis ranges
 * automatic. */
void plot_init(plot_spec *s, const char *name, const char *title);

/* Adds a series to panel p (0-based). Returns it (points to fill), or NULL when the panel is
 * full. */
plot_series *plot_add(plot_spec *s, int panel, plot_style style, int color, int point,
		      const char *label);

/* Appends a point; points past PLOT_POINTS_MAX are dropped (returns -1). */
int plot_point(plot_series *r, double x, double y);

/* Adds a reference line to panel p (dropped past PLOT_REFS_MAX). */
void plot_ref_line(plot_spec *s, int panel, int vertical, double v, const char *label);

/* Adds a label at (x, y) of panel p in palette colour `color` (dropped past PLOT_LABELS_MAX). */
void plot_text(plot_spec *s, int panel, double x, double y, int color, const char *text);

/* Writes DIR/NAME.dat and DIR/NAME.gp. Returns 0, or nonzero with e set. */
int plot_write(const plot_spec *s, const char *dir, err *e);

/* Finds an executable gnuplot on $PATH into path. Returns 1 if found, else 0. */
int plot_find_gnuplot(char *path, size_t n);

/* Kills the gnuplot child plot_render is waiting on, if any (plot_render then fails).
 * Async-signal-safe. */
void plot_cancel(void);

/* Runs the gnuplot at `gnuplot` on DIR/NAME.gp (working directory DIR) and normalises the
 * version line of DIR/NAME.svg. Returns 0, or nonzero with e set (gnuplot could not start,
 * failed, or wrote no SVG; e says which, with gnuplot's first line of complaint). */
int plot_render(const char *gnuplot, const char *dir, const char *name, err *e);

#endif
