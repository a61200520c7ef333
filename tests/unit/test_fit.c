/* fit: calibrations fitted on rows, summaries, leave one source out. Expected values derived
 * by hand in the comments; the rows are loaded from a small case file written here. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/fit.h"
#include "store/cases.h"

Test(fit, percentile_interpolates_between_order_statistics)
{
	/* 10 values 1..10: the 10th percentile sits at rank 0.9 (1 + 0.9 = 1.9), the 90th at
	 * rank 8.1 (9 + 0.1 = 9.1), the median at 5.5. */
	double v[10] = {10, 9, 8, 7, 6, 5, 4, 3, 2, 1};
	cr_assert_float_eq(fit_percentile(v, 10, 10), 1.9, 1e-12);
	cr_assert_float_eq(fit_percentile(v, 10, 90), 9.1, 1e-12);
	cr_assert_float_eq(fit_percentile(v, 10, 50), 5.5, 1e-12);
	cr_assert_float_eq(fit_percentile(v, 1, 90), 1, 1e-12);
}

Test(fit, speed_error_flips_for_times)
{
	/* Predicting 1.1 s for a measured 1.0 s step is 10 % slow: log(1/1.1) < 0; predicting
	 * 1.1 tokens/s for 1.0 measured is fast: log 1.1 > 0. */
	fit_row r;
	memset(&r, 0, sizeof r);
	r.c.value = 1.0;
	r.c.metric = VAL_STEP_TIME;
	cr_assert_float_eq(fit_speed_log_err(&r, 1.1), -log(1.1), 1e-12);
	r.c.metric = VAL_TOKENS_PER_S;
	cr_assert_float_eq(fit_speed_log_err(&r, 1.1), log(1.1), 1e-12);
}

/* Two Megatron-LM rows of the public file (SC21 Table 1, 1.7B and 3.6B on A100) in two
 * source groups, written to a temporary case file. */
static void two_row_file(char *path, size_t n, const char *g1, const char *g2)
{
	FILE *in = fopen("tests/validation/public.csv", "r"), *out;
	char line[8192];
	int k = 0;
	cr_assert_not_null(in);
	snprintf(path, n, "/tmp/roofcost-fit-%d.csv", (int)getpid());
	out = fopen(path, "w");
	cr_assert_not_null(out);
	while (fgets(line, sizeof line, in)) {
		char *last;
		if (k == 0) {
			fputs(line, out);
			k++;
			continue;
		}
		if (strncmp(line, "MEG-SC21-T1-", 12) != 0 || k > 2)
			continue;
		last = strrchr(line, ',');
		cr_assert_not_null(last);
		*last = '\0';
		fprintf(out, "%s,%s\n", line, k == 1 ? g1 : g2);
		k++;
	}
	fclose(in);
	fclose(out);
}

Test(fit, a_value_fitted_on_rows_zeroes_their_median_error)
{
	/* ampere-train fitted on two rows alone: at the fitted value the median of the two speed
	 * errors is zero, so the two rows' errors straddle it (one >= 0, one <= 0). */
	char path[128];
	cases_set cs;
	err e = {0};
	double *vals;
	int used = -1, i;
	two_row_file(path, sizeof path, "g1", "g2");
	cr_assert_eq(cases_load(path, "models", &cs, &e), 0, "%s", e.msg);
	cr_assert_eq(cs.n, 2);
	cr_assert(cs.rows[0].ok && cs.rows[1].ok);
	for (i = 0; i < cs.ks->n && strcmp(cs.ks->c[i].name, "ampere-train") != 0; i++)
		;
	cr_assert_lt(i, cs.ks->n);
	vals = malloc(sizeof *vals * (size_t)cs.ks->n);
	for (int k = 0; k < cs.ks->n; k++)
		vals[k] = cs.ks->c[k].value;
	vals[i] = fit_value(cs.rows, cs.n, cs.fs, vals, i, NULL, &used, NULL);
	cr_assert_eq(used, 2);
	{
		double p0, p1;
		cr_assert(fit_predict(&cs.rows[0], cs.fs, vals, &p0) && fit_predict(&cs.rows[1], cs.fs, vals, &p1));
		double l0 = fit_speed_log_err(&cs.rows[0], p0), l1 = fit_speed_log_err(&cs.rows[1], p1);
		cr_assert(fabs((l0 + l1) / 2) < 2e-3, "median %g", (l0 + l1) / 2);
	}
	/* Leaving one group out refits on the other row alone: its own error goes to zero, and the
	 * left-out row is predicted with that value (out of sample). */
	cr_assert_eq(fit_loso(cs.rows, cs.n, cs.fs), 2);
	cr_assert(cs.rows[0].oos_ok && cs.rows[1].oos_ok);
	cr_assert(strstr(cs.rows[0].oos_refits, "ampere-train=") != NULL);
	cr_assert(fabs(cs.rows[0].oos_err_pct - cs.rows[0].err_pct) > 0.01, "leaving g1 out changed nothing");
	{
		/* One group's summary counts its row once. */
		fit_filter f = {1, NULL, NULL, "g2", 1};
		fit_stats s = fit_summarize(cs.rows, cs.n, &f);
		cr_assert_eq(s.n, 1);
		cr_assert_float_eq(s.median, fabs(cs.rows[1].oos_err_pct), 1e-9);
	}
	/* The same source for both rows: leaving it out leaves nothing, so the prior (1) applies. */
	cases_release(&cs);
	two_row_file(path, sizeof path, "g", "g");
	cr_assert_eq(cases_load(path, "models", &cs, &e), 0, "%s", e.msg);
	fit_loso(cs.rows, cs.n, cs.fs);
	cr_assert(strstr(cs.rows[0].oos_refits, "prior: no other rows") != NULL, "%s", cs.rows[0].oos_refits);
	free(vals);
	cases_release(&cs);
	remove(path);
}
