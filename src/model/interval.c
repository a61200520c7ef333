/* interval: the calibration groups of models/intervals.ini (see interval.h). */
#include "model/interval.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "base/cfg.h"

static const char *const kinds[] = {"infer", "train", NULL};
static const char *const statuses[] = {"uncalibrated", "calibrated", NULL};

#define FLD(key, type, member, req, lo, hi, ch) \
	{"", key, type, UNITS_NONE, req, lo, hi, offsetof(interval_group, member), 0, ch}
#define STRF(key, member, req) \
	{"", key, CFG_STR, UNITS_NONE, req, 1, 0, offsetof(interval_group, member), sizeof(((interval_group *)0)->member), NULL}

int interval_load(const char *models_dir, interval_table *t, err *e)
{
	static const cfg_field fields[] = {
		FLD("kind", CFG_ENUM, train, 1, 1, 0, kinds),
		STRF("family", family, 1),
		STRF("framework", framework, 0),
		FLD("status", CFG_ENUM, calibrated, 1, 1, 0, statuses),
		FLD("rows", CFG_INT, rows, 1, 0, 1e6, NULL),
		FLD("p10", CFG_NUM, p10, 1, -100, 1e6, NULL),
		FLD("p90", CFG_NUM, p90, 1, -100, 1e6, NULL),
		STRF("from", from, 0),
		FLD("widen", CFG_NUM, widen, 0, 0, 100, NULL),
		STRF("sources", sources, 0),
	};
	cfg_doc d;
	FILE *f;
	int rc = 0;
	memset(t, 0, sizeof *t);
	snprintf(t->path, sizeof t->path, "%s/intervals.ini", models_dir);
	f = fopen(t->path, "r");
	if (!f)
		return 0;
	fclose(f);
	if (cfg_load(&d, t->path, e) != 0)
		return ERR_DATA;
	t->read = 1;
	for (int s = 0; s < d.nsections && rc == 0; s++) {
		interval_group *g = &t->g[t->n];
		if (t->n == INTERVAL_GROUPS_MAX) {
			rc = err_at(e, t->path, d.sections[s].line, "more than %d groups", INTERVAL_GROUPS_MAX);
			break;
		}
		memset(g, 0, sizeof *g);
		snprintf(g->name, sizeof g->name, "%s", d.sections[s].name);
		rc = cfg_extract_section(&d, s, fields, (int)(sizeof fields / sizeof fields[0]), g, e);
		g->p10 = interval_round(g->p10);
		g->p90 = interval_round(g->p90);
		if (rc == 0 && !(g->p10 <= g->p90))
			rc = err_at(e, t->path, d.sections[s].line, "[%s]: p10 is above p90", g->name);
		if (rc == 0 && !g->calibrated && !g->from[0] && strcmp(g->family, "*") != 0)
			rc = err_at(e, t->path, d.sections[s].line, "[%s]: an uncalibrated group names the family it borrows (from)",
				    g->name);
		if (rc == 0)
			t->n++;
	}
	cfg_release(&d);
	return rc;
}

static const interval_group *find(const interval_table *t, int train, const char *family, const char *framework)
{
	for (int i = 0; i < t->n; i++)
		if (t->g[i].train == train && !strcmp(t->g[i].family, family) && !strcmp(t->g[i].framework, framework))
			return &t->g[i];
	return NULL;
}

void interval_lookup(const interval_table *t, int train, const char *family, const char *framework,
		     interval_status *out)
{
	const char *what = train ? "training" : "serving";
	const interval_group *g = find(t, train, family, framework);
	memset(out, 0, sizeof *out);
	if (g && g->rows > 0) {
		out->calibrated = 1;
		snprintf(out->group, sizeof out->group, "%s x %s", family, framework);
		snprintf(out->note, sizeof out->note, "%d %s rows of %s on %s, each predicted with the calibrations "
			 "refitted without its own source (%s)", g->rows, what, framework, family, g->sources);
	} else if ((g = find(t, train, family, "")) && g->calibrated && g->rows > 0) {
		out->calibrated = 1;
		snprintf(out->group, sizeof out->group, "%s (its stacks)", family);
		snprintf(out->note, sizeof out->note, "%s has fewer than 5 %s rows of its own on %s: the spread of the "
			 "family's %d rows across its stacks, out of sample (%s)", framework, what, family, g->rows, g->sources);
	} else if (g && !g->calibrated) {
		snprintf(out->group, sizeof out->group, "%s (from %s)", family, g->from);
		snprintf(out->note, sizeof out->note, "no published %s row on %s: its calibrated values are borrowed "
			 "from %s (models/calibration.ini), and the interval is %s's spread (%d rows) widened by its "
			 "out-of-sample error (x%.2f either way)", what, family, g->from, g->from, g->rows, exp(g->widen));
	} else if ((g = find(t, train, "*", ""))) {
		double w = g->widen;
		snprintf(out->group, sizeof out->group, "%s (no rows)", family);
		snprintf(out->note, sizeof out->note, "no published %s row on %s and no nearer family in "
			 "models/calibration.ini: the model's priors alone; the interval is the spread of all %d %s rows "
			 "widened by their median out-of-sample error (x%.2f either way)", what, family, g->rows, what, exp(w));
		out->have = 1;
		out->rows = 0;
		out->p10 = 100 * (exp(log1p(g->p10 / 100) - w) - 1);
		out->p90 = 100 * (exp(log1p(g->p90 / 100) + w) - 1);
		return;
	} else {
		snprintf(out->group, sizeof out->group, "%s", family);
		snprintf(out->note, sizeof out->note, "%s", t->read ? "no calibration group in models/intervals.ini"
								    : "no models/intervals.ini: no interval");
		return;
	}
	out->have = 1;
	out->rows = out->calibrated ? g->rows : 0;
	out->p10 = g->p10;
	out->p90 = g->p90;
}

double interval_round(double pct)
{
	return round(pct * 100) / 100;
}

void interval_apply(const interval_status *s, double v, int time, double *lo, double *hi)
{
	/* The interval holds the prediction itself: a group whose rows were all too fast out of
	 * sample (one source, the prior's error) still reaches up to the value fitted on them. */
	double a = 1 + (s->have && s->p10 < 0 ? s->p10 : 0) / 100, b = 1 + (s->have && s->p90 > 0 ? s->p90 : 0) / 100;
	if (time) {
		*lo = v * a;
		*hi = v * b;
	} else {
		*lo = b > 0 ? v / b : v;
		*hi = a > 0 ? v / a : INFINITY;
	}
}
