/* plot: the files behind a plot, and the gnuplot run. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fixtures.h"
#include "report/plot.h"

static plot_spec *bars(void)
{
	/* Two stacked segments over two categories: 1 + 2 and 3 + 4, drawn at running totals
	 * 1, 3 and 3, 7. A label with a quote is doubled in gnuplot's single quotes. */
	plot_spec *s = malloc(sizeof *s);
	plot_series *a, *b;
	plot_init(s, "t_bars", "it's a test");
	snprintf(s->footer, sizeof s->footer, "as_of 2026-01-01");
	s->panel[0].stacked = 1;
	s->panel[0].ncats = 2;
	strcpy(s->panel[0].cats[0], "x_1");
	strcpy(s->panel[0].cats[1], "y");
	a = plot_add(s, 0, PLOT_BARS, 0, 0, "low");
	b = plot_add(s, 0, PLOT_BARS, 1, 0, "high");
	plot_point(a, 0, 1);
	plot_point(a, 1, 3);
	plot_point(b, 0, 2);
	plot_point(b, 1, 4);
	return s;
}

Test(plot, dat_holds_stacked_totals_and_gp_is_relative)
{
	char dir[] = "/tmp/plot-test-XXXXXX", path[128];
	plot_spec *s = bars();
	char *dat, *gp;
	err e = {0};
	cr_assert(mkdtemp(dir));
	cr_assert_eq(plot_write(s, dir, &e), 0, "%s", e.msg);
	snprintf(path, sizeof path, "%s/t_bars.dat", dir);
	dat = fx_slurp(path);
	cr_assert(dat, "%s unreadable", path);
	cr_assert(strstr(dat, "0 1\n1 3\n\n\n"), "%s", dat);
	cr_assert(strstr(dat, "0 3\n1 7\n"), "%s", dat);
	snprintf(path, sizeof path, "%s/t_bars.gp", dir);
	gp = fx_slurp(path);
	cr_assert(gp, "%s unreadable", path);
	cr_assert(strstr(gp, "set terminal svg dynamic"));
	cr_assert(strstr(gp, "pngcairo"));
	cr_assert(strstr(gp, "noenhanced"));
	cr_assert(strstr(gp, "'it''s a test'"));
	cr_assert(strstr(gp, "'as_of 2026-01-01'"));
	cr_assert_null(strstr(gp, dir), "the script names no folder");
	/* Top segment first, so that the lower running total stays visible. */
	cr_assert(strstr(gp, "index 1") < strstr(gp, "index 0"));
	free(dat);
	free(gp);
	if (plot_find_gnuplot(path, sizeof path)) {
		char svg[128], *text;
		cr_assert_eq(plot_render(path, dir, "t_bars", &e), 0, "%s", e.msg);
		snprintf(svg, sizeof svg, "%s/t_bars.svg", dir);
		text = fx_slurp(svg);
		cr_assert(text, "%s unreadable", svg);
		cr_assert(strstr(text, "<desc>Produced by GNUPLOT</desc>"));
		cr_assert(strstr(text, "x_1"), "labels are not enhanced text");
		free(text);
		snprintf(svg, sizeof svg, "%s/t_bars.png", dir);
		cr_assert_eq(access(svg, R_OK), 0);
		remove(svg);
		snprintf(svg, sizeof svg, "%s/t_bars.svg", dir);
		remove(svg);
	}
	snprintf(path, sizeof path, "%s/t_bars.dat", dir);
	remove(path);
	snprintf(path, sizeof path, "%s/t_bars.gp", dir);
	remove(path);
	rmdir(dir);
	free(s);
}

Test(plot, no_gnuplot_on_an_empty_path)
{
	char path[256], *old = getenv("PATH") ? strdup(getenv("PATH")) : NULL;
	setenv("PATH", "/nonexistent", 1);
	cr_assert_eq(plot_find_gnuplot(path, sizeof path), 0);
	if (old)
		setenv("PATH", old, 1);
	free(old);
}

Test(plot, a_failing_run_says_why)
{
	/* /bin/false stands in for a gnuplot that fails: the error names the script. */
	char dir[] = "/tmp/plot-test-XXXXXX";
	plot_spec *s = bars();
	err e = {0};
	cr_assert(mkdtemp(dir));
	cr_assert_eq(plot_write(s, dir, &e), 0);
	cr_assert_neq(plot_render("/bin/false", dir, "t_bars", &e), 0);
	cr_assert(strstr(e.msg, "t_bars.gp"), "%s", e.msg);
	cr_assert_neq(plot_render("/nonexistent/gnuplot", dir, "t_bars", &e), 0);
	cr_assert(strstr(e.msg, "cannot run"), "%s", e.msg);
	for (int i = 0; i < 2; i++) {
		char path[128];
		snprintf(path, sizeof path, "%s/t_bars.%s", dir, i ? "gp" : "dat");
		remove(path);
	}
	rmdir(dir);
	free(s);
}

Test(plot, points_past_the_limit_are_dropped)
{
	plot_spec *s = malloc(sizeof *s);
	plot_series *r;
	plot_init(s, "t", "t");
	r = plot_add(s, 0, PLOT_LINES, 0, 0, "a");
	for (int i = 0; i < PLOT_POINTS_MAX; i++)
		cr_assert_eq(plot_point(r, i, i), 0);
	cr_assert_eq(plot_point(r, 1, 1), -1);
	cr_assert_eq(r->n, PLOT_POINTS_MAX);
	free(s);
}

/* Writes s into a fresh folder and returns its NAME.ext ("gp" or "dat"; caller frees), the
 * folder removed. */
static char *file_of(plot_spec *s, const char *ext)
{
	char dir[] = "/tmp/plot-test-XXXXXX", path[128];
	char *text;
	err e = {0};
	cr_assert(mkdtemp(dir));
	cr_assert_eq(plot_write(s, dir, &e), 0, "%s", e.msg);
	snprintf(path, sizeof path, "%s/%s.%s", dir, s->name, ext);
	text = fx_slurp(path);
	snprintf(path, sizeof path, "%s/%s.gp", dir, s->name);
	remove(path);
	snprintf(path, sizeof path, "%s/%s.dat", dir, s->name);
	remove(path);
	rmdir(dir);
	return text;
}

static char *script_of(plot_spec *s)
{
	return file_of(s, "gp");
}

/* A log-10 y axis over 1.5 to 80: its range starts below the tick 1 (the largest of 1, 2, 5 x
 * 10^k at or below 1.5), so the lowest point has a tick under it; a log-10 x axis over 30 to
 * 2700 days (almost two decades) ticks 1 and 3 x 10^k only: 30, 100, 300, 1000. */
Test(plot, log_axes_keep_a_tick_under_the_lowest_point)
{
	plot_spec *s = malloc(sizeof *s);
	plot_series *a;
	char *gp;
	plot_init(s, "t_log", "log");
	s->panel[0].logx = s->panel[0].logy = 10;
	a = plot_add(s, 0, PLOT_LINES, 0, 0, "a");
	plot_point(a, 30, 1.5);
	plot_point(a, 2700, 80);
	gp = script_of(s);
	cr_assert(strstr(gp, "set yrange [0.909091:100]"), "%s", gp);
	cr_assert(strstr(gp, "set ytics (1, 2, 5, 10, 20, 50, 100)"), "%s", gp);
	cr_assert(strstr(gp, "set xtics (30, 100, 300, 1000, 3000)"), "%s", gp);
	free(gp);
	free(s);
}

/* Chip counts on a log-4 axis up to 65,536: ticks 4^k, from 1,024 up in binary thousands
 * (16K = 16,384), so that 16384 and 65536 (or 1024 and 4096) do not run into one label. */
Test(plot, wide_chip_counts_tick_in_thousands)
{
	plot_spec *s = malloc(sizeof *s);
	plot_series *a;
	char *gp;
	plot_init(s, "t_chips", "chips");
	s->panel[0].logx = 4;
	a = plot_add(s, 0, PLOT_LINES, 0, 0, "a");
	plot_point(a, 8, 1);
	plot_point(a, 65536, 2);
	gp = script_of(s);
	cr_assert(strstr(gp, "set xtics (\"4\" 4, \"16\" 16, \"64\" 64, \"256\" 256, \"1K\" 1024, \"4K\" 4096, "
			     "\"16K\" 16384, \"64K\" 65536)"), "%s", gp);
	free(gp);
	free(s);
}

/* Labels at points: a label takes the spot around its point (above right, below right, above
 * left, below left) that stays in the plot area, covers no earlier label and no marker, and
 * crosses the fewest lines; one with no such spot is left out. */
Test(plot, labels_move_aside_or_are_left_out)
{
	plot_spec *s = malloc(sizeof *s);
	plot_series *a;
	char *gp;
	plot_init(s, "t_labels", "labels");
	a = plot_add(s, 0, PLOT_CURVE, 0, 0, "a");
	plot_point(a, 0, 0);
	plot_point(a, 100, 100);
	plot_text(s, 0, 10, 10, 1, "first");
	plot_text(s, 0, 11, 10.5, 1, "second");
	plot_text(s, 0, 80, 80, 2, "third");
	gp = script_of(s);
	/* The curve y = x runs through the spot above right of each point: the first label goes
	 * below right, clear of it; the second, whose below right would cover the first, goes
	 * above left. */
	cr_assert(strstr(gp, "'first' at first 10, first 10 offset character 0.5, -0.7 left"), "%s", gp);
	cr_assert(strstr(gp, "'second' at first 11, first 10.5 offset character -0.5, 0.7 right"), "%s", gp);
	cr_assert(strstr(gp, "'third' at first 80, first 80 offset character 0.5, -0.7 left"), "%s", gp);
	free(gp);
	/* Ringed markers all round the point, and the panel's corner: no spot is free. */
	plot_init(s, "t_labels", "labels");
	a = plot_add(s, 0, PLOT_MARK, 0, 0, "");
	plot_point(a, 0, 0);
	plot_point(a, 1, 1);
	plot_point(a, 100, 100);
	plot_text(s, 0, 0, 0, 1, "boxed");
	gp = script_of(s);
	cr_assert_null(strstr(gp, "'boxed'"), "%s", gp);
	free(gp);
	free(s);
}

/* Values on narrow side-by-side bars stand on end (six bars a category over six categories),
 * with room above them; on wide bars they lie flat. A stack's total sits above a capacity tick
 * just over it (the .dat's third column), not under it. */
Test(plot, bar_values_stay_legible)
{
	plot_spec *s = malloc(sizeof *s);
	plot_series *a;
	char *gp, *dat;
	plot_init(s, "t_vals", "values");
	s->panel[0].ncats = 6;
	snprintf(s->panel[0].value_fmt, sizeof s->panel[0].value_fmt, "%%.2f");
	for (int j = 0; j < 6; j++) {
		a = plot_add(s, 0, PLOT_BARS, j, 0, "m");
		for (int c = 0; c < 6; c++)
			plot_point(a, c, 1 + j + c);
	}
	gp = script_of(s);
	cr_assert(strstr(gp, "with labels rotate by 90 left offset 0,0.4"), "%s", gp);
	cr_assert(strstr(gp, "set offsets 0, 0, graph 0.14, 0"), "%s", gp);
	free(gp);
	plot_init(s, "t_vals", "values");
	s->panel[0].ncats = 2;
	snprintf(s->panel[0].value_fmt, sizeof s->panel[0].value_fmt, "%%.2f");
	a = plot_add(s, 0, PLOT_BARS, 0, 0, "m");
	plot_point(a, 0, 1);
	plot_point(a, 1, 2);
	gp = script_of(s);
	cr_assert_null(strstr(gp, "rotate by 90"), "%s", gp);
	free(gp);
	plot_init(s, "t_vals", "values");
	s->panel[0].ncats = 2;
	s->panel[0].stacked = 1;
	snprintf(s->panel[0].value_fmt, sizeof s->panel[0].value_fmt, "%%.1f");
	a = plot_add(s, 0, PLOT_BARS, 0, 0, "m");
	plot_point(a, 0, 73.7);
	plot_point(a, 1, 20);
	a = plot_add(s, 0, PLOT_TICKS, 0, 0, "capacity");
	plot_point(a, 0, 74.5);
	plot_point(a, 1, 96);
	dat = file_of(s, "dat");
	cr_assert(dat && strstr(dat, "0 73.7 74.5\n1 20 20\n"), "%s", dat);
	gp = script_of(s);
	cr_assert(gp && strstr(gp, "using 1:3:(sprintf('%.1f', $2)) with labels boxed"), "%s", gp);
	free(dat);
	free(gp);
	free(s);
}

Test(plot, point_labels_keep_the_footer)
{
	/* A frontier names its layouts with point labels; they were tagged 100, 101, ... and
	 * the footer 100 too, so the first layout name replaced the footer (seen on the serving
	 * throughput and cost-curve plots). */
	plot_spec *s = malloc(sizeof *s);
	plot_series *a;
	char *gp, *footer, *label;
	plot_init(s, "t_footer", "footer");
	snprintf(s->footer, sizeof s->footer, "as_of 2026-01-01");
	a = plot_add(s, 0, PLOT_LINES, 0, 0, "a");
	plot_point(a, 0, 0);
	plot_point(a, 100, 100);
	plot_text(s, 0, 10, 10, 1, "tp8");
	gp = script_of(s);
	footer = strstr(gp, "'as_of 2026-01-01'");
	label = strstr(gp, "'tp8'");
	cr_assert(footer && label, "%s", gp);
	cr_assert(strstr(gp, "set label 132 'as_of 2026-01-01'"), "%s", gp);
	cr_assert(strstr(gp, "set label 100 'tp8'"), "%s", gp);
	free(gp);
	free(s);
}
