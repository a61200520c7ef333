/* fit: calibrations fitted on validation rows, and out-of-sample error (see fit.h). */
#include "engine/fit.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int fit_metric_is_time(val_metric m)
{
	return m == VAL_STEP_TIME || m == VAL_TTFT_MS || m == VAL_TPOT_MS;
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median_of(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, cmp_dbl);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double fit_percentile(double *v, int n, double q)
{
	double x;
	int i;
	if (n <= 0)
		return NAN;
	qsort(v, (size_t)n, sizeof *v, cmp_dbl);
	x = q / 100 * (n - 1);
	i = (int)floor(x);
	if (i >= n - 1)
		return v[n - 1];
	return v[i] + (x - i) * (v[i + 1] - v[i]);
}

/* 1 if name is in the comma list (spaces around items ignored). */
static int in_list(const char *list, const char *name)
{
	size_t n = strlen(name);
	for (const char *p = list; p && *p;) {
		const char *q = strchr(p, ',');
		size_t l = q ? (size_t)(q - p) : strlen(p);
		while (l > 0 && *p == ' ') {
			p++;
			l--;
		}
		while (l > 0 && p[l - 1] == ' ')
			l--;
		if (l == n && !strncmp(p, name, n))
			return 1;
		p = q ? q + 1 : NULL;
	}
	return 0;
}

static int left_out(const fit_row *r, const fit_leave *leave)
{
	if (!leave)
		return 0;
	if (leave->framework && !strcmp(r->c.framework, leave->framework))
		return 1;
	return leave->group && !strcmp(r->c.group, leave->group);
}

int fit_uses(const hw_calib *k, const fit_row *r, const fit_leave *leave)
{
	if (!r->ok || r->c.train != k->train || strcmp(r->family, k->family) != 0)
		return 0;
	if (k->frameworks[0] && !in_list(k->frameworks, r->c.framework))
		return 0;
	return !left_out(r, leave);
}

int fit_predict(const fit_row *r, const hw_calibs *ks, const double *vals, double *pred)
{
	hw_system *s;
	char why[FIT_REASON_MAX];
	int ok;
	if (!vals)
		return val_predict(r->sys, r->fw, &r->c, pred, why, sizeof why, NULL);
	s = malloc(sizeof *s);
	if (!s)
		return 0;
	*s = *r->sys;
	for (int i = 0; i < ks->n; i++)
		hw_calib_apply(&ks->c[i], vals[i], &s->chip);
	ok = val_predict(s, r->fw, &r->c, pred, why, sizeof why, NULL);
	free(s);
	return ok;
}

double fit_speed_log_err(const fit_row *r, double pred)
{
	double l = log(pred / r->c.value);
	return fit_metric_is_time(r->c.metric) ? -l : l;
}

double fit_value(const fit_row *rows, int n, const hw_calibs *ks, const double *vals, int i,
		 const fit_leave *leave, int *used)
{
	const hw_calib *k = &ks->c[i];
	double lo = k->lo, hi = k->hi, *v, *cur;
	int cnt = 0;
	for (int r = 0; r < n; r++)
		cnt += fit_uses(k, &rows[r], leave);
	*used = cnt;
	if (cnt == 0)
		return k->prior;
	v = malloc(sizeof *v * (size_t)cnt);
	cur = malloc(sizeof *cur * (size_t)(ks->n ? ks->n : 1));
	if (!v || !cur) {
		free(v);
		free(cur);
		return k->value;
	}
	memcpy(cur, vals, sizeof *cur * (size_t)ks->n);
	for (int it = 0; it < 40 && hi - lo > 1e-4; it++) {
		double mid = (lo + hi) / 2, m;
		int nv = 0;
		cur[i] = mid;
		for (int r = 0; r < n; r++) {
			double p;
			if (fit_uses(k, &rows[r], leave) && fit_predict(&rows[r], ks, cur, &p) && p > 0)
				v[nv++] = fit_speed_log_err(&rows[r], p);
		}
		m = nv ? median_of(v, nv) : 0;
		if (m < 0)
			lo = mid;
		else
			hi = mid;
	}
	free(v);
	free(cur);
	return (lo + hi) / 2;
}

static int row_in(const fit_row *r, const fit_filter *f)
{
	if (f->kind >= 0 && r->c.train != f->kind)
		return 0;
	if (f->framework && f->framework[0] && strcmp(r->c.framework, f->framework) != 0)
		return 0;
	if (f->family && f->family[0] && strcmp(r->family, f->family) != 0)
		return 0;
	return !(f->group && f->group[0] && strcmp(r->c.group, f->group) != 0);
}

fit_stats fit_summarize(const fit_row *rows, int n, const fit_filter *f)
{
	fit_stats s = {0, 0, 0, NAN, NAN, NAN, NAN};
	double *v = malloc(sizeof *v * (size_t)(n ? n : 1)), *sv = malloc(sizeof *sv * (size_t)(n ? n : 1));
	double sum = 0;
	if (!v || !sv) {
		free(v);
		free(sv);
		return s;
	}
	for (int i = 0; i < n; i++) {
		const fit_row *r = &rows[i];
		int ok = f->oos ? r->oos_ok : r->ok;
		double e = f->oos ? r->oos_err_pct : r->err_pct;
		if (!row_in(r, f))
			continue;
		if (!ok) {
			s.skipped++;
			continue;
		}
		s.mem_misses += r->mem_miss;
		sv[s.n] = e;
		v[s.n++] = fabs(e);
		sum += fabs(e);
	}
	if (s.n > 0) {
		s.median = median_of(v, s.n);
		s.signed_median = median_of(sv, s.n);
		s.mean = sum / s.n;
		s.max = v[s.n - 1];
	}
	free(v);
	free(sv);
	return s;
}

static const char *field_of(const fit_row *r, fit_field by)
{
	return by == FIT_BY_FAMILY ? r->family : by == FIT_BY_GROUP ? r->c.group : r->c.framework;
}

int fit_distinct(const fit_row *rows, int n, int kind, fit_field by, const char **out, int max)
{
	int k = 0;
	for (int i = 0; i < n; i++) {
		const char *v = field_of(&rows[i], by);
		int seen = 0;
		if ((kind >= 0 && rows[i].c.train != kind) || !v[0])
			continue;
		for (int j = 0; j < k && !seen; j++)
			seen = !strcmp(out[j], v);
		if (!seen && k < max)
			out[k++] = v;
	}
	return k;
}

/* Refits, in file order, every calibration that a row of `leave` (its framework or group) would
 * feed, the others at their file values, into vals; notes each in refits. Returns 1 if any was. */
static int refit_without(const fit_row *rows, int n, const hw_calibs *ks, const fit_leave *leave, double *vals,
			 char *refits, size_t len)
{
	int touched = 0;
	for (int i = 0; i < ks->n; i++)
		vals[i] = ks->c[i].value;
	if (refits && len)
		refits[0] = '\0';
	for (int i = 0; i < ks->n; i++) {
		int uses = 0, used;
		if (ks->c[i].train >= HW_CAL_KIND_MEASURED)
			continue;   /* measured or a prior, not fitted: nothing to refit */
		for (int r = 0; r < n && !uses; r++)
			uses = fit_uses(&ks->c[i], &rows[r], NULL) && left_out(&rows[r], leave);
		if (!uses)
			continue;
		vals[i] = fit_value(rows, n, ks, vals, i, leave, &used);
		touched = 1;
		if (refits) {
			size_t l = strlen(refits);
			snprintf(refits + l, len - l, "%s%s=%.3g%s", l ? ", " : "", ks->c[i].name, vals[i],
				 used ? "" : " (prior: no other rows)");
		}
	}
	return touched;
}

int fit_lofo_all(const fit_row *rows, int n, const hw_calibs *ks, fit_lofo *out, int max)
{
	int nout = 0;
	double *vals = malloc(sizeof *vals * (size_t)(ks->n ? ks->n : 1));
	fit_row *copy = malloc(sizeof *copy * (size_t)(n ? n : 1));
	if (!vals || !copy) {
		free(vals);
		free(copy);
		return 0;
	}
	for (int kind = 1; kind >= 0; kind--) {
		const char *names[FIT_GROUPS_MAX];
		int k = fit_distinct(rows, n, kind, FIT_BY_FRAMEWORK, names, FIT_GROUPS_MAX);
		for (int f = 0; f < k && nout < max; f++) {
			fit_lofo *L = &out[nout++];
			fit_filter flt = {kind, names[f], NULL, NULL, 0};
			fit_leave leave = {names[f], NULL};
			int touched;
			memset(L, 0, sizeof *L);
			snprintf(L->framework, sizeof L->framework, "%s", names[f]);
			L->kind = kind;
			touched = refit_without(rows, n, ks, &leave, vals, L->refits, sizeof L->refits);
			memcpy(copy, rows, sizeof *copy * (size_t)n);
			if (touched)
				for (int r = 0; r < n; r++) {
					double p;
					if (!row_in(&copy[r], &flt) || !copy[r].ok)
						continue;
					if (fit_predict(&copy[r], ks, vals, &p))
						copy[r].err_pct = 100 * (p - copy[r].c.value) / copy[r].c.value;
				}
			L->s = fit_summarize(copy, n, &flt);
		}
	}
	free(vals);
	free(copy);
	return nout;
}

int fit_loso(fit_row *rows, int n, const hw_calibs *ks)
{
	const char *names[FIT_GROUPS_MAX * 4];
	int k = fit_distinct(rows, n, -1, FIT_BY_GROUP, names, FIT_GROUPS_MAX * 4);
	double *vals = malloc(sizeof *vals * (size_t)(ks->n ? ks->n : 1));
	char (*grp)[VAL_ID_MAX] = malloc(sizeof *grp * (size_t)(k ? k : 1));
	if (!vals || !grp) {
		free(vals);
		free(grp);
		return 0;
	}
	/* The names point into the rows, whose fields are rewritten below: copy them first. */
	for (int g = 0; g < k; g++)
		snprintf(grp[g], sizeof grp[g], "%s", names[g]);
	for (int i = 0; i < n; i++) {
		rows[i].oos_ok = rows[i].ok;
		rows[i].oos_pred = rows[i].pred;
		rows[i].oos_err_pct = rows[i].err_pct;
		rows[i].oos_refits[0] = '\0';
	}
	for (int g = 0; g < k; g++) {
		fit_leave leave = {NULL, grp[g]};
		char refits[FIT_REFITS_MAX];
		if (!refit_without(rows, n, ks, &leave, vals, refits, sizeof refits))
			continue;
		for (int i = 0; i < n; i++) {
			fit_row *r = &rows[i];
			double p;
			if (!r->ok || strcmp(r->c.group, grp[g]) != 0)
				continue;
			r->oos_ok = fit_predict(r, ks, vals, &p) && p > 0;
			if (r->oos_ok) {
				r->oos_pred = p;
				r->oos_err_pct = 100 * (p - r->c.value) / r->c.value;
			}
			snprintf(r->oos_refits, sizeof r->oos_refits, "%s", refits);
		}
	}
	free(vals);
	free(grp);
	return k;
}

int fit_spread(const fit_row *rows, int n, int kind, const char *family, const char *framework, double *p10,
	       double *p90)
{
	double *v = malloc(sizeof *v * (size_t)(n ? n : 1));
	int k = 0;
	if (!v)
		return 0;
	for (int i = 0; i < n; i++) {
		const fit_row *r = &rows[i];
		if (!r->oos_ok || r->c.train != kind || strcmp(r->family, family) != 0)
			continue;
		if (framework && strcmp(r->c.framework, framework) != 0)
			continue;
		v[k++] = 100 * (exp(fit_speed_log_err(r, r->oos_pred)) - 1);
	}
	if (k > 0) {
		*p10 = fit_percentile(v, k, 10);
		*p90 = fit_percentile(v, k, 90);
	}
	free(v);
	return k;
}

/* The median |log speed error| out of sample of the rows of kind and family ("*": any). */
static double median_abs_log(const fit_row *rows, int n, int kind, const char *family)
{
	double *v = malloc(sizeof *v * (size_t)(n ? n : 1)), m = 0;
	int k = 0;
	if (!v)
		return 0;
	for (int i = 0; i < n; i++)
		if (rows[i].oos_ok && rows[i].c.train == kind && (!strcmp(family, "*") || !strcmp(rows[i].family, family)))
			v[k++] = fabs(fit_speed_log_err(&rows[i], rows[i].oos_pred));
	if (k)
		m = median_of(v, k);
	free(v);
	return m;
}

/* The source groups of the rows of kind, family ("*" any) and framework (NULL any), ", "-joined. */
static void sources_of(const fit_row *rows, int n, int kind, const char *family, const char *framework, char *out,
		       size_t len)
{
	out[0] = '\0';
	for (int i = 0; i < n; i++) {
		const fit_row *r = &rows[i];
		int seen = 0;
		if (!r->oos_ok || r->c.train != kind || (strcmp(family, "*") && strcmp(r->family, family)) ||
		    (framework && strcmp(r->c.framework, framework)))
			continue;
		for (int j = 0; j < i && !seen; j++)
			seen = rows[j].oos_ok && rows[j].c.train == kind && !strcmp(rows[j].c.group, r->c.group) &&
			       (!strcmp(family, "*") || !strcmp(rows[j].family, family)) &&
			       (!framework || !strcmp(rows[j].c.framework, framework));
		if (!seen) {
			size_t l = strlen(out);
			snprintf(out + l, len - l, "%s%s", l ? ", " : "", r->c.group);
		}
	}
}

static fit_group *new_group(fit_group *out, int *k, int max, int kind, const char *family, const char *framework)
{
	fit_group *g;
	if (*k >= max)
		return NULL;
	g = &out[(*k)++];
	memset(g, 0, sizeof *g);
	g->train = kind;
	snprintf(g->family, sizeof g->family, "%s", family);
	snprintf(g->framework, sizeof g->framework, "%s", framework);
	return g;
}

/* The spread of the rows of kind, family ("*" any) and framework (NULL any) into g. */
static void fill_group(const fit_row *rows, int n, fit_group *g, const char *framework)
{
	double *v = malloc(sizeof *v * (size_t)(n ? n : 1));
	int k = 0;
	if (!v)
		return;
	for (int i = 0; i < n; i++) {
		const fit_row *r = &rows[i];
		if (!r->oos_ok || r->c.train != g->train || (strcmp(g->family, "*") && strcmp(r->family, g->family)) ||
		    (framework && strcmp(r->c.framework, framework)))
			continue;
		v[k++] = 100 * (exp(fit_speed_log_err(r, r->oos_pred)) - 1);
	}
	g->rows = k;
	g->calibrated = 1;
	if (k) {
		g->p10 = fit_percentile(v, k, 10);
		g->p90 = fit_percentile(v, k, 90);
	}
	free(v);
	sources_of(rows, n, g->train, g->family, framework, g->sources, sizeof g->sources);
}

int fit_groups(const fit_row *rows, int n, const hw_calibs *ks, fit_group *out, int max)
{
	int k = 0;
	for (int kind = 1; kind >= 0; kind--) {
		const char *fam[FIT_GROUPS_MAX], *fws[FIT_GROUPS_MAX];
		int nf = fit_distinct(rows, n, kind, FIT_BY_FAMILY, fam, FIT_GROUPS_MAX);
		int nw = fit_distinct(rows, n, kind, FIT_BY_FRAMEWORK, fws, FIT_GROUPS_MAX);
		fit_group *g = new_group(out, &k, max, kind, "*", "");
		if (g) {
			/* The kind's rows as a whole: for a family with no rows and no nearer family. */
			fill_group(rows, n, g, NULL);
			g->widen = median_abs_log(rows, n, kind, "*");
		}
		for (int f = 0; f < nf; f++) {
			if ((g = new_group(out, &k, max, kind, fam[f], "")))
				fill_group(rows, n, g, NULL);
			for (int w = 0; w < nw; w++) {
				fit_filter flt = {kind, fws[w], fam[f], NULL, 1};
				if (fit_summarize(rows, n, &flt).n >= FIT_GROUP_MIN_ROWS && (g = new_group(out, &k, max, kind, fam[f], fws[w])))
					fill_group(rows, n, g, fws[w]);
			}
		}
		for (int i = 0; i < ks->n; i++) {
			const hw_calib *c = &ks->c[i], *src = NULL;
			int has = 0;
			if (c->train != HW_CAL_KIND_PRIOR)
				continue;
			for (int j = 0; j < ks->n && !src; j++)
				if (!strcmp(ks->c[j].name, c->from))
					src = &ks->c[j];
			if (!src || src->train != kind)
				continue;
			for (int f = 0; f < nf && !has; f++)
				has = !strcmp(fam[f], c->family);
			if (has || !(g = new_group(out, &k, max, kind, src->family, "")))
				continue;
			fill_group(rows, n, g, NULL);
			snprintf(g->family, sizeof g->family, "%s", c->family);
			snprintf(g->from, sizeof g->from, "%s", src->family);
			g->calibrated = 0;
			g->widen = median_abs_log(rows, n, kind, src->family);
			if (g->rows) {
				g->p10 = 100 * (exp(log1p(g->p10 / 100) - g->widen) - 1);
				g->p90 = 100 * (exp(log1p(g->p90 / 100) + g->widen) - 1);
			}
		}
	}
	return k;
}
