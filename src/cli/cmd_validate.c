/* cmd_validate: `roofcost validate CASES.csv` - predictions against published measurements. */
#include <cJSON.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "base/lim.h"
#include "base/opt.h"
#include "base/names.h"
#include "base/csvin.h"
#include "engine/infer.h"
#include "report/show.h"
#include "engine/train.h"
#include "engine/validate.h"

const char validate_usage[] =
	"usage: roofcost validate CASES.csv [--format table|csv|json|md] [--check-train MEDIAN:MAX]\n"
	"                         [--check-infer MEDIAN:MAX]\n\n"
	"Predicts every published measurement in CASES.csv (DESIGN.md §7 columns) and prints, per\n"
	"case, measured, predicted and the error in percent, then the median, mean and largest\n"
	"absolute error over training rows, inference rows and all. A case whose system or metric\n"
	"cannot be modelled is listed with no prediction and a reason, and counted as skipped.\n"
	"--check-train 10:30 exits 3 unless the training median is <= 10 % and no training row is\n"
	"beyond 30 % (and likewise --check-infer); skipped rows fail a check. --explain ID prints the\n"
	"evaluation behind every row with that case_id and what was picked for the cells the source\n"
	"left empty, in the --format asked for.\n\n"
	"  --format FMT        table | csv | json | md (default table)\n"
	"  --wide              text tables with every column, unwrapped (default: fit 120 columns)\n"
	"  --check-train M:X   thresholds for training rows\n"
	"  --check-infer M:X   thresholds for inference rows\n"
	"  --explain ID        print the full breakdown of case ID (every row with that id)\n"
	"  --fit               refit every calibrated value of models/calibration.ini on its rows\n"
	"  -h, --help          this text\n";

typedef struct result {
	val_case c;
	const hw_system *sys;       /* loaded system and framework (owned by the caches) */
	const fw_framework *fw;
	char family[48];            /* the system's chip family */
	int ok;
	int mem_miss;               /* predicted although the memory model rejects the layout */
	double pred, err_pct;
	char reason[768];
} result;

typedef struct stats {
	int n, skipped, mem_misses;
	double median, mean, max;
	double signed_median;       /* median of the signed errors: the bias */
} stats;

/* Which rows a summary counts: kind 1 train, 0 infer, -1 all; framework / family "" = any. */
typedef struct row_filter {
	int kind;
	const char *framework, *family;
} row_filter;

static int row_in(const result *r, const row_filter *f)
{
	if (f->kind >= 0 && r->c.train != f->kind)
		return 0;
	if (f->framework && f->framework[0] && strcmp(r->c.framework, f->framework) != 0)
		return 0;
	if (f->family && f->family[0] && strcmp(r->family, f->family) != 0)
		return 0;
	return 1;
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

static stats summarize(const result *r, int n, const row_filter *f)
{
	stats s = {0, 0, 0, NAN, NAN, NAN, NAN};
	double *v = malloc(sizeof *v * (size_t)(n ? n : 1)), *sv = malloc(sizeof *sv * (size_t)(n ? n : 1));
	double sum = 0;
	if (!v || !sv) {
		free(v);
		free(sv);
		return s;
	}
	for (int i = 0; i < n; i++) {
		if (!row_in(&r[i], f))
			continue;
		if (!r[i].ok) {
			s.skipped++;
			continue;
		}
		s.mem_misses += r[i].mem_miss;
		sv[s.n] = r[i].err_pct;
		v[s.n++] = fabs(r[i].err_pct);
		sum += fabs(r[i].err_pct);
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

static stats summarize_kind(const result *r, int n, int kind)
{
	row_filter f = {kind, NULL, NULL};
	return summarize(r, n, &f);
}

/* The distinct values of a text field of the rows of one kind, in first-seen order. */
static int distinct(const result *r, int n, int kind, int family, const char **out, int max)
{
	int k = 0;
	for (int i = 0; i < n; i++) {
		const char *v = family ? r[i].family : r[i].c.framework;
		int seen = 0;
		if (r[i].c.train != kind || !v[0])
			continue;
		for (int j = 0; j < k && !seen; j++)
			seen = !strcmp(out[j], v);
		if (!seen && k < max)
			out[k++] = v;
	}
	return k;
}

enum { GROUPS_MAX = 64 };

/* A percentage "12.3 %" right-aligned to width (a sign when sign is set), or "-" in its place
 * when there is none (no predicted row): never "nan %". */
static const char *pct_w(char *buf, size_t n, double v, int width, int sign)
{
	if (isnan(v))
		snprintf(buf, n, "%*s", width + 2, "-");
	else
		snprintf(buf, n, sign ? "%+*.1f %%" : "%*.1f %%", width, v);
	return buf;
}

static const char *pct(char *buf, size_t n, double v)
{
	return isnan(v) ? pct_w(buf, n, v, -1, 0) : pct_w(buf, n, v, 0, 0);
}

/* Per framework and per chip family of one kind, as a table (or into JSON objects). */
static void group_table(const result *r, int n, int kind, int family, FILE *fp)
{
	const char *names[GROUPS_MAX];
	int k = distinct(r, n, kind, family, names, GROUPS_MAX);
	fprintf(fp, "%s by %s:\n", kind ? "train" : "infer", family ? "chip family" : "framework");
	for (int i = 0; i < k; i++) {
		row_filter f = {kind, family ? NULL : names[i], family ? names[i] : NULL};
		stats s = summarize(r, n, &f);
		char a[32], b[32], m[32];
		fprintf(fp, "  %-22s n=%-3d skipped=%-2d median |error| %s, bias %s, max %s\n", names[i], s.n,
			s.skipped, pct_w(a, sizeof a, s.median, 5, 0), pct_w(b, sizeof b, s.signed_median, 6, 1),
			pct_w(m, sizeof m, s.max, 6, 0));
	}
}

static cJSON *stats_json(stats s);

static cJSON *group_json(const result *r, int n, int kind, int family)
{
	const char *names[GROUPS_MAX];
	int k = distinct(r, n, kind, family, names, GROUPS_MAX);
	cJSON *o = cJSON_CreateObject();
	for (int i = 0; i < k; i++) {
		row_filter f = {kind, family ? NULL : names[i], family ? names[i] : NULL};
		cJSON_AddItemToObject(o, names[i], stats_json(summarize(r, n, &f)));
	}
	return o;
}

static cJSON *stats_json(stats s)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "n", s.n);
	cJSON_AddNumberToObject(o, "skipped", s.skipped);
	cJSON_AddNumberToObject(o, "memory_misses", s.mem_misses);
	if (s.n > 0) {
		cJSON_AddNumberToObject(o, "median_abs_error_pct", s.median);
		cJSON_AddNumberToObject(o, "mean_abs_error_pct", s.mean);
		cJSON_AddNumberToObject(o, "max_abs_error_pct", s.max);
		cJSON_AddNumberToObject(o, "signed_median_error_pct", s.signed_median);
	} else {
		cJSON_AddNullToObject(o, "median_abs_error_pct");
		cJSON_AddNullToObject(o, "mean_abs_error_pct");
		cJSON_AddNullToObject(o, "max_abs_error_pct");
		cJSON_AddNullToObject(o, "signed_median_error_pct");
	}
	return o;
}

/* "MEDIAN:MAX", two finite percentages >= 0 (nan would pass every comparison). */
static int parse_check(const char *arg, double *med, double *max)
{
	return opt_number_pair(arg, ':', med, max) == 0 && *med >= 0 && *max >= 0 ? 0 : -1;
}

/* The ranges of lim.h for a case's layout and network, before val_build divides by them:
 * "path:line: column: reason". */
static int case_limits(const char *path, const val_case *c, err *e)
{
	plan p;
	char why[160];
	const char *key;
	memset(&p, 0, sizeof p);
	p.tp = c->tp;
	p.pp = c->pp;
	p.vpp = c->vpp;
	p.dp = c->dp;
	p.cp = c->cp;
	p.ep = c->ep;
	p.chips = c->chips;
	p.micro_batch = c->micro_batch;
	if (plan_limits(&p, 1, why, sizeof why) != 0)
		return err_at(e, path, c->line, "chips: %s", why);
	if ((long long)(c->tp > 0 ? c->tp : 1) * (c->pp > 0 ? c->pp : 1) * (c->cp > 0 ? c->cp : 1) > c->chips)
		return err_at(e, path, c->line, "chips: %d is fewer than tp*pp*cp", c->chips);
	{
		const struct { const char *col; int v, hi; } n[] = {
			{"seq_len", c->seq_len, LIM_TOKENS}, {"input_len", c->input_len, LIM_TOKENS},
			{"output_len", c->output_len, LIM_TOKENS}, {"global_batch", c->global_batch, LIM_BATCH},
			{"concurrency", c->concurrency, LIM_CONCURRENCY}, {"layers", c->layers, LIM_LAYERS},
			{"hidden", c->hidden, LIM_HIDDEN}, {"heads", c->heads, LIM_HEADS},
			{"kv_heads", c->kv_heads, LIM_HEADS}, {"head_dim", c->head_dim, LIM_HEAD_DIM},
			{"ffn", c->ffn, LIM_WIDTH}, {"vocab", c->vocab, LIM_VOCAB},
			{"experts", c->experts, LIM_EXPERTS}, {"experts_active", c->experts_active, LIM_EXPERTS}};
		for (size_t i = 0; i < sizeof n / sizeof n[0]; i++)
			if (n[i].v > n[i].hi)
				return err_at(e, path, c->line, "%s: %d is more than %d", n[i].col, n[i].v, n[i].hi);
	}
	{
		/* The network as val_build makes it (empty cells: kv_heads = heads, head_dim from
		 * hidden / heads, experts of ffn width). */
		nn_net n;
		memset(&n, 0, sizeof n);
		n.layers = c->layers;
		n.hidden = c->hidden;
		n.heads = c->heads;
		n.kv_heads = c->kv_heads > 0 ? c->kv_heads : c->heads;
		n.head_dim = c->head_dim > 0 ? c->head_dim : c->hidden / c->heads;
		n.ffn = c->ffn;
		n.act = c->act;
		n.vocab = c->vocab;
		n.experts = c->experts > 0 ? c->experts : 0;
		n.experts_active = n.experts ? c->experts_active : 0;
		n.expert_ffn = n.experts ? c->ffn : 0;
		if (nn_shape_check(&n, &key, why, sizeof why) != 0)
			return err_at(e, path, c->line, "%s: %s", key, why);
	}
	return 0;
}

/* Loads each distinct system once. */
typedef struct sys_cache {
	char name[48];
	hw_system *sys;   /* NULL: could not load */
	char why[ERR_MSG_MAX];
} sys_cache;

/* Loads each distinct framework (with a row's settings over it) once. */
typedef struct fw_cache {
	char name[48];
	char settings[VAL_TEXT_MAX];
	fw_framework *fw;   /* NULL: could not load */
	char why[ERR_MSG_MAX];
} fw_cache;

/* The eval breakdown of one case, for --explain: text to stdout, or added to arr (JSON) or
 * to t (csv, md: rows "LINE.field"). */
static void explain_case(const hw_system *s, const fw_framework *fw, const result *r, out_format f, cJSON *arr,
			 out_table *t)
{
	wl_workload *w = malloc(sizeof *w);
	plan p;
	char picked[512];
	rank_view rep;
	train_result tr;
	infer_result ir;
	if (!w)
		return;
	val_build(&r->c, fw, w, &p, picked, sizeof picked);
	memset(&rep, 0, sizeof rep);
	rep.sys = s;
	rep.w = w;
	if (r->c.train) {
		train_eval(s, w, &p, &tr, NULL);
		rep.train = &tr;
	} else {
		infer_eval(s, w, &p, &ir, NULL, NULL);
		rep.infer = &ir;
	}
	if (f == OUT_TABLE) {
		printf("%s line %d: %s measured %.4g, predicted %.4g (%+.1f %%)\n  picked: %s\n", r->c.id, r->c.line,
		       val_metric_names[r->c.metric], r->c.value, r->pred, r->err_pct, picked);
		show_text(&rep, stdout);
	} else {
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "case_id", r->c.id);
		cJSON_AddNumberToObject(o, "line", r->c.line);
		cJSON_AddStringToObject(o, "metric", val_metric_names[r->c.metric]);
		cJSON_AddNumberToObject(o, "measured", r->c.value);
		if (r->ok) {
			cJSON_AddNumberToObject(o, "predicted", r->pred);
			cJSON_AddNumberToObject(o, "error_pct", r->err_pct);
		} else {
			cJSON_AddNullToObject(o, "predicted");
			cJSON_AddNullToObject(o, "error_pct");
		}
		cJSON_AddStringToObject(o, "reason", r->reason);
		cJSON_AddStringToObject(o, "picked", picked);
		cJSON_AddItemToObject(o, "evaluation", show_json(&rep));
		if (f == OUT_JSON) {
			cJSON_AddItemToArray(arr, o);
		} else {
			char pre[32];
			snprintf(pre, sizeof pre, "%d.", r->c.line);
			show_flat(o, pre, t);
			cJSON_Delete(o);
		}
	}
	free(w);
}

/* Calibrated values and their leave-one-framework-out check.
 *
 * A calibration of models/calibration.ini is fitted on the rows of its kind whose chip family
 * is its family (and whose framework is in its list, when it has one): the value at which the
 * median of the log errors, taken in the sense of speed (predicted / measured for rates,
 * measured / predicted for times), is zero. Speed grows with the calibrated efficiency, so the
 * median is monotone and bisection finds it. Leave-one-framework-out refits every calibration
 * without one framework's rows (its prior when no row is left) and predicts that framework's
 * rows with the refitted values: the error a stack the calibration never saw would get. */

static int metric_is_time(val_metric m)
{
	return m == VAL_STEP_TIME || m == VAL_TTFT_MS || m == VAL_TPOT_MS;
}

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

/* 1 if row r takes part in fitting k (and is not of framework `left_out`). */
static int fits_on(const hw_calib *k, const result *r, const char *left_out)
{
	if (!r->ok || r->c.train != k->train || strcmp(r->family, k->family) != 0)
		return 0;
	if (k->frameworks[0] && !in_list(k->frameworks, r->c.framework))
		return 0;
	return !left_out || strcmp(r->c.framework, left_out) != 0;
}

/* Predicts row r with the calibrations of ks set to vals (r->sys copied). */
static int predict_with(const result *r, const hw_calibs *ks, const double *vals, double *pred)
{
	hw_system *s = malloc(sizeof *s);
	char why[768];
	int ok;
	if (!s)
		return 0;
	*s = *r->sys;
	for (int i = 0; i < ks->n; i++)
		hw_calib_apply(&ks->c[i], vals[i], &s->chip);
	ok = val_predict(s, r->fw, &r->c, pred, why, sizeof why, NULL);
	free(s);
	return ok;
}

static double speed_log_err(const result *r, double pred)
{
	double l = log(pred / r->c.value);
	return metric_is_time(r->c.metric) ? -l : l;
}

/* Fits calibration i (others at vals) on its rows without framework left_out. Returns the
 * value, the prior when no row is left; *n gets the row count. */
static double fit_one(const result *res, int nres, const hw_calibs *ks, const double *vals, int i,
		      const char *left_out, int *n)
{
	const hw_calib *k = &ks->c[i];
	double lo = k->lo, hi = k->hi, v[GROUPS_MAX * 8];
	double *cur = malloc(sizeof *cur * (size_t)(ks->n ? ks->n : 1));
	int cnt = 0;
	for (int r = 0; r < nres; r++)
		cnt += fits_on(k, &res[r], left_out);
	*n = cnt;
	if (!cur || cnt == 0) {
		free(cur);
		return k->prior;
	}
	memcpy(cur, vals, sizeof *cur * (size_t)ks->n);
	for (int it = 0; it < 40 && hi - lo > 1e-4; it++) {
		double mid = (lo + hi) / 2, m;
		int nv = 0;
		cur[i] = mid;
		for (int r = 0; r < nres && nv < (int)(sizeof v / sizeof v[0]); r++) {
			double p;
			if (fits_on(k, &res[r], left_out) && predict_with(&res[r], ks, cur, &p) && p > 0)
				v[nv++] = speed_log_err(&res[r], p);
		}
		m = nv ? median_of(v, nv) : 0;
		if (m < 0)
			lo = mid;
		else
			hi = mid;
	}
	free(cur);
	return (lo + hi) / 2;
}

typedef struct lofo {
	char framework[48];
	int kind;
	stats s;            /* the framework's rows predicted with calibrations refitted without them */
	char refits[512];   /* "name=value" of each refitted calibration */
} lofo;

/* Leave-one-framework-out over every framework of every kind; returns the count in out. */
static int lofo_all(const result *res, int nres, const hw_calibs *ks, lofo *out, int max)
{
	int nout = 0;
	double *vals = malloc(sizeof *vals * (size_t)(ks->n ? ks->n : 1));
	result *copy = malloc(sizeof *copy * (size_t)(nres ? nres : 1));
	if (!vals || !copy) {
		free(vals);
		free(copy);
		return 0;
	}
	for (int kind = 1; kind >= 0; kind--) {
		const char *names[GROUPS_MAX];
		int k = distinct(res, nres, kind, 0, names, GROUPS_MAX);
		for (int f = 0; f < k && nout < max; f++) {
			lofo *L = &out[nout++];
			row_filter flt = {kind, names[f], NULL};
			int touched = 0;
			memset(L, 0, sizeof *L);
			snprintf(L->framework, sizeof L->framework, "%s", names[f]);
			L->kind = kind;
			for (int i = 0; i < ks->n; i++)
				vals[i] = ks->c[i].value;
			for (int i = 0; i < ks->n; i++) {
				int uses = 0, n;
				for (int r = 0; r < nres && !uses; r++)
					uses = fits_on(&ks->c[i], &res[r], NULL) && !strcmp(res[r].c.framework, names[f]);
				if (!uses)
					continue;
				vals[i] = fit_one(res, nres, ks, vals, i, names[f], &n);
				touched = 1;
				{
					size_t l = strlen(L->refits);
					snprintf(L->refits + l, sizeof L->refits - l, "%s%s=%.3g%s", l ? ", " : "",
						 ks->c[i].name, vals[i], n ? "" : " (prior: no other rows)");
				}
			}
			memcpy(copy, res, sizeof *copy * (size_t)nres);
			if (touched)
				for (int r = 0; r < nres; r++) {
					double p;
					if (!row_in(&copy[r], &flt) || !copy[r].ok)
						continue;
					if (predict_with(&copy[r], ks, vals, &p))
						copy[r].err_pct = 100 * (p - copy[r].c.value) / copy[r].c.value;
				}
			L->s = summarize(copy, nres, &flt);
		}
	}
	free(vals);
	free(copy);
	return nout;
}

int cmd_validate(int argc, char **argv, const cli_paths *paths)
{
	enum { OPT_TRAIN = 2000, OPT_INFER, OPT_EXPLAIN, OPT_FIT };
	static const struct option longopts[] = {
		{"format", required_argument, NULL, CLI_OPT_FORMAT},
		{"check-train", required_argument, NULL, OPT_TRAIN},
		{"check-infer", required_argument, NULL, OPT_INFER},
		{"explain", required_argument, NULL, OPT_EXPLAIN},
		{"fit", no_argument, NULL, OPT_FIT},
		CLI_TABLE_LONGOPTS,
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0}};
	out_format f = OUT_TABLE;
	double chk[2][2] = {{-1, -1}, {-1, -1}}; /* [infer, train][median, max] */
	csvin_doc d;
	err e = {0};
	result *res = NULL;
	sys_cache *cache = NULL;
	fw_cache *fcache = NULL;
	int nres = 0, ncache = 0, nfcache = 0, c, rc = 0;
	const char *explain = NULL;
	int fit = 0, explained = 0, wide = 0;
	out_table et;
	cJSON *earr = NULL;
	hw_calibs *ks = malloc(sizeof *ks);
	lofo *lf = NULL;
	int nlf = 0;

	if (!ks) {
		err_set(&e, ERR_DATA, "out of memory");
		return cli_fail(&e);
	}
	if (hw_load_calibs(paths->models, ks, &e) != 0) {
		free(ks);
		return cli_fail(&e);
	}
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'h':
			fputs(validate_usage, stdout);
			free(ks);
			return 0;
		case CLI_OPT_FORMAT:
			if (out_parse_format(optarg, &f) != 0) {
				fprintf(stderr, "roofcost: --format: '%s' is not one of table, csv, json, md\n", optarg);
				free(ks);
				return 2;
			}
			break;
		case OPT_EXPLAIN:
			explain = optarg;
			break;
		case CLI_OPT_WIDE:
			wide = 1;
			break;
		case OPT_FIT:
			fit = 1;
			break;
		case OPT_TRAIN:
		case OPT_INFER:
			if (parse_check(optarg, &chk[c == OPT_TRAIN][0], &chk[c == OPT_TRAIN][1]) != 0) {
				fprintf(stderr, "roofcost: --check-%s: '%s' is not MEDIAN:MAX\n",
					c == OPT_TRAIN ? "train" : "infer", optarg);
				free(ks);
				return 2;
			}
			break;
		default:
			fputs(validate_usage, stderr);
			free(ks);
			return 2;
		}
	}
	if (optind + 1 != argc) {
		fputs(validate_usage, stderr);
		free(ks);
		return 2;
	}
	if (csvin_load(&d, argv[optind], &e) != 0) {
		free(ks);
		return cli_fail(&e);
	}
	if (d.nrows < 1) {
		err_at(&e, argv[optind], 0, "empty file");
		csvin_release(&d);
		free(ks);
		return cli_fail(&e);
	}
	if (val_check_header(argv[optind], (const char *const *)d.rows[0].fields, d.rows[0].n, &e) != 0) {
		csvin_release(&d);
		free(ks);
		return cli_fail(&e);
	}
	res = calloc((size_t)d.nrows, sizeof *res);
	cache = calloc((size_t)d.nrows, sizeof *cache);
	fcache = calloc((size_t)d.nrows, sizeof *fcache);
	if (!res || !cache || !fcache) {
		err_set(&e, ERR_DATA, "out of memory");
		rc = cli_fail(&e);
		goto done;
	}
	/* Parse every row first: a bad file is an error before anything is predicted. */
	for (int i = 1; i < d.nrows; i++) {
		const csvin_row *row = &d.rows[i];
		if (row->n != d.rows[0].n) {
			err_at(&e, argv[optind], row->line, "%d fields, the header has %d", row->n, d.rows[0].n);
			rc = cli_fail(&e);
			goto done;
		}
		if (val_parse(argv[optind], row->line, (const char *const *)d.rows[0].fields,
			      (const char *const *)row->fields, row->n, &res[nres].c, &e) != 0 ||
		    case_limits(argv[optind], &res[nres].c, &e) != 0) {
			rc = cli_fail(&e);
			goto done;
		}
		nres++;
	}
	for (int i = 0; i < nres; i++) {
		result *r = &res[i];
		sys_cache *sc = NULL;
		fw_cache *fc = NULL;
		for (int k = 0; k < ncache && !sc; k++)
			if (!strcmp(cache[k].name, r->c.system))
				sc = &cache[k];
		if (!sc) {
			err le = {0};
			sc = &cache[ncache++];
			snprintf(sc->name, sizeof sc->name, "%s", r->c.system);
			sc->sys = malloc(sizeof *sc->sys);
			if (sc->sys && hw_find_system(r->c.system, paths->models, sc->sys, &le) != 0) {
				free(sc->sys);
				sc->sys = NULL;
				snprintf(sc->why, sizeof sc->why, "%s", le.msg);
			}
		}
		if (!sc->sys) {
			snprintf(r->reason, sizeof r->reason, "%s", sc->why);
			continue;
		}
		{
			const char *name = r->c.framework[0] ? r->c.framework : "generic";
			for (int k = 0; k < nfcache && !fc; k++)
				if (!strcmp(fcache[k].name, name) && !strcmp(fcache[k].settings, r->c.settings))
					fc = &fcache[k];
			if (!fc) {
				err le = {0};
				fc = &fcache[nfcache++];
				snprintf(fc->name, sizeof fc->name, "%s", name);
				snprintf(fc->settings, sizeof fc->settings, "%s", r->c.settings);
				fc->fw = malloc(sizeof *fc->fw);
				if (fc->fw && fw_find(name, paths->models, fc->fw, &le) != 0) {
					free(fc->fw);
					fc->fw = NULL;
					snprintf(fc->why, sizeof fc->why, "%s", le.msg);
				} else if (fc->fw && r->c.settings[0]) {
					/* A setting the framework does not know is an error in the file. */
					char from[CLI_PATH_MAX + 32];
					snprintf(from, sizeof from, "%s:%d: settings", argv[optind], r->c.line);
					if (fw_set_list(fc->fw, r->c.settings, from, &e) != 0) {
						rc = cli_fail(&e);
						goto done;
					}
				}
			}
		}
		if (!fc->fw) {
			snprintf(r->reason, sizeof r->reason, "%s", fc->why);
			continue;
		}
		snprintf(r->family, sizeof r->family, "%s", sc->sys->chip.family);
		r->sys = sc->sys;
		r->fw = fc->fw;
		r->ok = val_predict(sc->sys, fc->fw, &r->c, &r->pred, r->reason, sizeof r->reason, &r->mem_miss);
		if (r->ok)
			r->err_pct = 100 * (r->pred - r->c.value) / r->c.value;
		if (explain && !strcmp(explain, r->c.id)) {
			if (!explained++) {
				static const char *const hdr[] = {"field", "value"};
				out_init(&et, 2, hdr);
				out_wide(&et, wide);
				earr = cJSON_CreateArray();
			}
			explain_case(sc->sys, fc->fw, r, f, earr, &et);
		}
	}
	if (explain && !explained) {
		/* An id that is not in the file is an error, with the ids that are near it. */
		const char **ids = calloc((size_t)nres + 1, sizeof *ids);
		char sugg[512] = "";
		for (int i = 0; ids && i < nres; i++)
			ids[i] = res[i].c.id;
		if (ids)
			names_suggest(explain, ids, nres, sugg, sizeof sugg);
		free(ids);
		err_at(&e, argv[optind], 0, "--explain: no case '%s'%s%s%s", explain, sugg[0] ? "; did you mean " : "",
		       sugg, sugg[0] ? "?" : "");
		rc = cli_fail(&e);
		goto done;
	}
	if (explain) {
		if (f == OUT_JSON) {
			cJSON *root = cJSON_CreateObject();
			char *js;
			cJSON_AddItemToObject(root, "cases", earr);
			earr = NULL;
			js = cJSON_Print(root);
			puts(js);
			free(js);
			cJSON_Delete(root);
		} else if (f != OUT_TABLE) {
			out_print(&et, f, stdout);
		}
		goto done;
	}
	if (fit) {
		/* Each calibration refitted on all its rows, beside the value its file holds. */
		double *vals = malloc(sizeof *vals * (size_t)(ks->n ? ks->n : 1));
		if (!vals) {
			err_set(&e, ERR_DATA, "out of memory");
			rc = cli_fail(&e);
			goto done;
		}
		for (int i = 0; i < ks->n; i++)
			vals[i] = ks->c[i].value;
		printf("%s: %d calibrations\n", fw_shown_path(ks->path), ks->n);
		for (int i = 0; i < ks->n; i++) {
			int n;
			double v;
			if (ks->c[i].train == 2) {
				printf("  %-20s %s of %s: %.4f derived from a measurement, not fitted (%s)\n", ks->c[i].name,
				       hw_calib_param_names[ks->c[i].param], ks->c[i].family, ks->c[i].value, ks->c[i].src.source);
				continue;
			}
			v = fit_one(res, nres, ks, vals, i, NULL, &n);
			printf("  %-20s %s of %s (%s rows%s%s): fitted %.4f on %d rows, file %.4f, prior %.4f\n",
			       ks->c[i].name, hw_calib_param_names[ks->c[i].param], ks->c[i].family,
			       ks->c[i].train ? "training" : "serving", ks->c[i].frameworks[0] ? " of " : "",
			       ks->c[i].frameworks, v, n, ks->c[i].value, ks->c[i].prior);
		}
		free(vals);
		goto done;
	}
	lf = calloc(2 * GROUPS_MAX, sizeof *lf);
	if (lf)
		nlf = lofo_all(res, nres, ks, lf, 2 * GROUPS_MAX);
	{
		stats all = summarize_kind(res, nres, -1), tr = summarize_kind(res, nres, 1),
		      in = summarize_kind(res, nres, 0);
		if (f == OUT_JSON) {
			cJSON *root = cJSON_CreateObject(), *arr = cJSON_AddArrayToObject(root, "cases");
			cJSON *sum;
			char *s;
			for (int i = 0; i < nres; i++) {
				cJSON *o = cJSON_CreateObject();
				cJSON_AddStringToObject(o, "case_id", res[i].c.id);
				cJSON_AddStringToObject(o, "kind", res[i].c.train ? "train" : "infer");
				cJSON_AddStringToObject(o, "system", res[i].c.system);
				cJSON_AddStringToObject(o, "metric", val_metric_names[res[i].c.metric]);
				cJSON_AddNumberToObject(o, "measured", res[i].c.value);
				if (res[i].ok) {
					cJSON_AddNumberToObject(o, "predicted", res[i].pred);
					cJSON_AddNumberToObject(o, "error_pct", res[i].err_pct);
				} else {
					cJSON_AddNullToObject(o, "predicted");
					cJSON_AddNullToObject(o, "error_pct");
				}
				cJSON_AddStringToObject(o, "reason", res[i].reason);
				cJSON_AddItemToArray(arr, o);
			}
			sum = stats_json(all);
			cJSON_AddItemToObject(sum, "train", stats_json(tr));
			cJSON_AddItemToObject(sum, "infer", stats_json(in));
			for (int kind = 1; kind >= 0; kind--) {
				cJSON *g = cJSON_CreateObject();
				cJSON_AddItemToObject(g, "by_framework", group_json(res, nres, kind, 0));
				cJSON_AddItemToObject(g, "by_family", group_json(res, nres, kind, 1));
				{
					cJSON *lo = cJSON_CreateObject();
					for (int i = 0; i < nlf; i++)
						if (lf[i].kind == kind) {
							cJSON *o = stats_json(lf[i].s);
							cJSON_AddStringToObject(o, "refitted", lf[i].refits);
							cJSON_AddItemToObject(lo, lf[i].framework, o);
						}
					cJSON_AddItemToObject(g, "leave_one_framework_out", lo);
				}
				cJSON_AddItemToObject(sum, kind ? "train_groups" : "infer_groups", g);
			}
			cJSON_AddItemToObject(root, "summary", sum);
			s = cJSON_Print(root);
			puts(s);
			free(s);
			cJSON_Delete(root);
		} else {
			out_table t;
			static const char *const hdr[] = {"case_id", "kind", "metric", "measured", "predicted",
							  "error_pct", "reason"};
			out_init(&t, 7, hdr);
			out_wide(&t, wide);
			out_fit_col(&t, 6, OUT_FIT_BELOW);
			for (int k = 3; k < 6; k++)
				out_right(&t, k);
			for (int i = 0; i < nres; i++) {
				char m[32], p[32], ep[32];
				out_num(m, sizeof m, res[i].c.value, 4);
				if (res[i].ok) {
					out_num(p, sizeof p, res[i].pred, 4);
					snprintf(ep, sizeof ep, "%+.1f", res[i].err_pct);
				} else {
					snprintf(p, sizeof p, "-");
					snprintf(ep, sizeof ep, "-");
				}
				{
					const char *cells[7] = {res[i].c.id, res[i].c.train ? "train" : "infer",
								val_metric_names[res[i].c.metric], m, p, ep,
								f == OUT_TABLE && res[i].ok ? "" : res[i].reason};
					out_row(&t, cells);
				}
			}
			out_print(&t, f, stdout);
			out_release(&t);
			if (f == OUT_TABLE) {
				const stats *ss[3] = {&tr, &in, &all};
				static const char *const nm[3] = {"train", "infer", "all"};
				for (int kind = 1; kind >= 0; kind--) {
					group_table(res, nres, kind, 0, stdout);
					group_table(res, nres, kind, 1, stdout);
					printf("%s leave-one-framework-out (calibrations refitted without the framework's rows):\n",
					       kind ? "train" : "infer");
					for (int i = 0; i < nlf; i++) {
						char a[32], b[32], m[32];
						if (lf[i].kind == kind)
							printf("  %-22s n=%-3d median |error| %s, bias %s, max %s%s%s\n",
							       lf[i].framework, lf[i].s.n, pct_w(a, sizeof a, lf[i].s.median, 5, 0),
							       pct_w(b, sizeof b, lf[i].s.signed_median, 6, 1),
							       pct_w(m, sizeof m, lf[i].s.max, 6, 0),
							       lf[i].refits[0] ? "; refitted " : "", lf[i].refits);
					}
				}
				for (int k = 0; k < 3; k++) {
					char a[32], b[32], m[32];
					printf("%-5s n=%d skipped=%d memory-misses=%d median |error| %s, mean %s, max %s\n", nm[k],
					       ss[k]->n, ss[k]->skipped, ss[k]->mem_misses, pct(a, sizeof a, ss[k]->median),
					       pct(b, sizeof b, ss[k]->mean), pct(m, sizeof m, ss[k]->max));
				}
			}
		}
		for (int kind = 0; kind < 2; kind++) {
			const stats *s = kind ? &tr : &in;
			if (chk[kind][0] < 0)
				continue;
			if (s->skipped > 0 || s->n == 0 || s->median > chk[kind][0] || s->max > chk[kind][1]) {
				char a[32], m[32];
				fprintf(stderr,
					"roofcost: validate: %s rows miss the check: median %s (limit %g), max %s (limit %g), skipped %d%s\n",
					kind ? "training" : "inference", pct(a, sizeof a, s->median), chk[kind][0],
					pct(m, sizeof m, s->max), chk[kind][1], s->skipped, s->n == 0 ? ", none predicted" : "");
				rc = 3;
			}
		}
	}
done:
	if (explained)
		out_release(&et);
	cJSON_Delete(earr);
	for (int k = 0; k < ncache; k++)
		free(cache[k].sys);
	free(cache);
	for (int k = 0; k < nfcache; k++)
		free(fcache[k].fw);
	free(fcache);
	free(res);
	free(lf);
	free(ks);
	csvin_release(&d);
	return rc;
}
