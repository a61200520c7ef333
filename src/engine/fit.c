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

int fit_listed(const char *list, const char *name)
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

void fit_set_init(fit_set *s, const hw_calibs *ks, const fw_framework *const *fws, int n)
{
	memset(s, 0, sizeof *s);
	s->ks = ks;
	for (int i = 0; i < n; i++) {
		const fw_framework *f = fws[i];
		int seen = 0;
		if (!f || !f->has_train)
			continue;
		/* A version that inherits its base's shares is fitted with the base's value. */
		for (int j = 0; j < s->nfw && !seen; j++)
			seen = !strcmp(s->fw[j].framework, f->train.sustain_from);
		for (int k = 0; !seen && k < f->train.nsustain && s->nfw < FIT_FW_MAX; k++) {
			fit_fwcal *c = &s->fw[s->nfw++];
			snprintf(c->framework, sizeof c->framework, "%s", f->train.sustain_from);
			snprintf(c->family, sizeof c->family, "%s", f->train.sustain_family[k]);
			snprintf(c->name, sizeof c->name, "%s@%s", f->train.sustain_from, f->train.sustain_family[k]);
			snprintf(c->path, sizeof c->path, "%s", f->train.sustain_path);
			c->value = f->train.sustain[k];
			c->prior = 1;
			c->lo = 0.3;
			c->hi = 2;
		}
	}
}

int fit_nvals(const fit_set *s)
{
	return s->ks->n + s->nfw;
}

const char *fit_val_name(const fit_set *s, int i)
{
	return i < s->ks->n ? s->ks->c[i].name : s->fw[i - s->ks->n].name;
}

double fit_val_value(const fit_set *s, int i)
{
	return i < s->ks->n ? s->ks->c[i].value : s->fw[i - s->ks->n].value;
}

int fit_val_fitted(const fit_set *s, int i)
{
	return i >= s->ks->n || (s->ks->c[i].train != HW_CAL_KIND_MEASURED && s->ks->c[i].train != HW_CAL_KIND_PRIOR);
}

static double val_prior(const fit_set *s, int i)
{
	return i < s->ks->n ? s->ks->c[i].prior : s->fw[i - s->ks->n].prior;
}

int fit_uses(const fit_set *s, int i, const fit_row *r, const fit_leave *leave)
{
	if (!r->ok)
		return 0;
	if (i < s->ks->n) {
		const hw_calib *k = &s->ks->c[i];
		if ((k->train == HW_CAL_KIND_ALL ? 0 : r->c.train != k->train) || strcmp(r->family, k->family) != 0 ||
		    k->train == HW_CAL_KIND_MEASURED || k->train == HW_CAL_KIND_PRIOR)
			return 0;
		if (k->frameworks[0] && !fit_listed(k->frameworks, r->c.framework))
			return 0;
	} else {
		const fit_fwcal *c = &s->fw[i - s->ks->n];
		if (!r->c.train || !r->fw || strcmp(r->fw->train.sustain_from, c->framework) != 0 ||
		    strcmp(r->family, c->family) != 0)
			return 0;
	}
	return !left_out(r, leave);
}

int fit_predict(const fit_row *r, const fit_set *fs, const double *vals, double *pred)
{
	hw_system *s;
	char why[FIT_REASON_MAX];
	double sustain = 0;
	int ok;
	if (!vals)
		return val_predict(r->sys, r->fw, &r->c, pred, why, sizeof why, NULL);
	s = malloc(sizeof *s);
	if (!s)
		return 0;
	*s = *r->sys;
	for (int i = 0; i < fs->ks->n; i++)
		hw_calib_apply(&fs->ks->c[i], vals[i], &s->chip);
	for (int i = 0; i < fs->nfw; i++)
		if (r->fw && !strcmp(fs->fw[i].framework, r->fw->train.sustain_from) && !strcmp(fs->fw[i].family, r->family))
			sustain = vals[fs->ks->n + i];
	ok = val_predict_at(s, r->fw, &r->c, sustain, pred, why, sizeof why, NULL);
	free(s);
	return ok;
}

/* fit_predict out of sample: with the row's framework less what its version fitted on its
 * own rows (fw_unfit), when it has any. */
static int predict_oos(const fit_row *r, const fit_set *fs, const double *vals, double *pred)
{
	fit_row *u;
	int ok;
	if (!r->fw_unfit)
		return fit_predict(r, fs, vals, pred);
	if (!(u = malloc(sizeof *u)))
		return 0;
	*u = *r;
	u->fw = r->fw_unfit;
	ok = fit_predict(u, fs, vals, pred);
	free(u);
	return ok;
}

/* Appends to note (len) what r's version fitted on its own rows and gives back out of
 * sample. */
static void note_unfit(const fit_row *r, char *note, size_t len)
{
	size_t l = strlen(note);
	if (r->fw_unfit)
		snprintf(note + l, len - l, "%s%s [serve] %s at %s's (fitted on its own rows)", l ? ", " : "", r->fw->name,
			 r->fw->serve.fitted, r->fw->based_on[0] ? r->fw->based_on : "the base");
}

double fit_speed_log_err(const fit_row *r, double pred)
{
	double l = log(pred / r->c.value);
	return fit_metric_is_time(r->c.metric) ? -l : l;
}

double fit_value(const fit_row *rows, int n, const fit_set *fs, const double *vals, int i,
		 const fit_leave *leave, int *used, int *stacks)
{
	double lo = i < fs->ks->n ? fs->ks->c[i].lo : fs->fw[i - fs->ks->n].lo;
	double hi = i < fs->ks->n ? fs->ks->c[i].hi : fs->fw[i - fs->ks->n].hi, *v, *cur;
	const char *names[FIT_GROUPS_MAX];
	int cnt = 0, nst = 0, nv = fit_nvals(fs);
	for (int r = 0; r < n; r++) {
		int seen = 0;
		if (!fit_uses(fs, i, &rows[r], leave))
			continue;
		cnt++;
		for (int k = 0; k < nst && !seen; k++)
			seen = !strcmp(names[k], rows[r].c.framework);
		if (!seen && nst < FIT_GROUPS_MAX)
			names[nst++] = rows[r].c.framework;
	}
	*used = cnt;
	if (stacks)
		*stacks = nst;
	if (cnt == 0)
		return val_prior(fs, i);
	v = malloc(sizeof *v * (size_t)cnt);
	cur = malloc(sizeof *cur * (size_t)(nv ? nv : 1));
	if (!v || !cur) {
		free(v);
		free(cur);
		return fit_val_value(fs, i);
	}
	memcpy(cur, vals, sizeof *cur * (size_t)nv);
	for (int it = 0; it < 40 && hi - lo > 1e-4; it++) {
		double mid = (lo + hi) / 2, m;
		int k = 0;
		cur[i] = mid;
		for (int r = 0; r < n; r++) {
			double p;
			if (fit_uses(fs, i, &rows[r], leave) && fit_predict(&rows[r], fs, cur, &p) && p > 0)
				v[k++] = fit_speed_log_err(&rows[r], p);
		}
		m = k ? median_of(v, k) : 0;
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

/* Refits, in order (the chip-level values, then the stack-level ones), every value that a row of
 * `leave` (its framework or group) would feed, the others at their file values, into vals;
 * notes each in refits. Returns 1 if any was. */
static int refit_without(const fit_row *rows, int n, const fit_set *fs, const fit_leave *leave, double *vals,
			 char *refits, size_t len)
{
	int touched = 0, nv = fit_nvals(fs);
	for (int i = 0; i < nv; i++)
		vals[i] = fit_val_value(fs, i);
	if (refits && len)
		refits[0] = '\0';
	for (int i = 0; i < nv; i++) {
		int uses = 0, used;
		if (!fit_val_fitted(fs, i))
			continue;   /* measured or a prior, not fitted: nothing to refit */
		for (int r = 0; r < n && !uses; r++)
			uses = fit_uses(fs, i, &rows[r], NULL) && left_out(&rows[r], leave);
		if (!uses)
			continue;
		vals[i] = fit_value(rows, n, fs, vals, i, leave, &used, NULL);
		touched = 1;
		if (refits) {
			size_t l = strlen(refits);
			snprintf(refits + l, len - l, "%s%s=%.3g%s", l ? ", " : "", fit_val_name(fs, i), vals[i],
				 used ? "" : " (prior: no other rows)");
		}
	}
	return touched;
}

int fit_lofo_all(const fit_row *rows, int n, const fit_set *ks, fit_lofo *out, int max)
{
	int nout = 0;
	double *vals = malloc(sizeof *vals * (size_t)(fit_nvals(ks) ? fit_nvals(ks) : 1));
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
			for (int r = 0; r < n; r++) {
				double p;
				if (!row_in(&copy[r], &flt) || !copy[r].ok || (!touched && !copy[r].fw_unfit))
					continue;
				if (copy[r].fw_unfit && !strstr(L->refits, copy[r].fw->serve.fitted))
					note_unfit(&copy[r], L->refits, sizeof L->refits);
				if (predict_oos(&copy[r], ks, vals, &p))
					copy[r].err_pct = 100 * (p - copy[r].c.value) / copy[r].c.value;
			}
			L->s = fit_summarize(copy, n, &flt);
		}
	}
	free(vals);
	free(copy);
	return nout;
}

int fit_loso(fit_row *rows, int n, const fit_set *ks)
{
	const char *names[FIT_GROUPS_MAX * 4];
	int k = fit_distinct(rows, n, -1, FIT_BY_GROUP, names, FIT_GROUPS_MAX * 4);
	double *vals = malloc(sizeof *vals * (size_t)(fit_nvals(ks) ? fit_nvals(ks) : 1));
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
		int touched = refit_without(rows, n, ks, &leave, vals, refits, sizeof refits);
		for (int i = 0; i < n; i++) {
			fit_row *r = &rows[i];
			double p;
			/* A version's values fitted on its own rows (r's group among them) are given back
			 * too: the stack it is based on predicts them. */
			if (!r->ok || strcmp(r->c.group, grp[g]) != 0 || (!touched && !r->fw_unfit))
				continue;
			r->oos_ok = predict_oos(r, ks, vals, &p) && p > 0;
			if (r->oos_ok) {
				r->oos_pred = p;
				r->oos_err_pct = 100 * (p - r->c.value) / r->c.value;
			}
			snprintf(r->oos_refits, sizeof r->oos_refits, "%s", refits);
			note_unfit(r, r->oos_refits, sizeof r->oos_refits);
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

int fit_groups(const fit_row *rows, int n, const fit_set *fs, fit_group *out, int max)
{
	const hw_calibs *ks = fs->ks;
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
			if (!src || (src->train != kind && src->train != HW_CAL_KIND_ALL))
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
