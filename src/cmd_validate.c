/* cmd_validate: `roofcost validate CASES.csv` - predictions against published measurements. */
#include <cJSON.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "names.h"
#include "csvin.h"
#include "infer.h"
#include "show.h"
#include "train.h"
#include "validate.h"

const char validate_usage[] =
	"usage: roofcost validate CASES.csv [--format table|csv|json|md] [--check-train MEDIAN:MAX]\n"
	"                         [--check-infer MEDIAN:MAX]\n\n"
	"Predicts every published measurement in CASES.csv (DESIGN.md §7 columns) and prints, per\n"
	"case, measured, predicted and the error in percent, then the median, mean and largest\n"
	"absolute error over training rows, inference rows and all. A case whose system or metric\n"
	"cannot be modelled is listed with no prediction and a reason, and counted as skipped.\n"
	"--check-train 10:30 exits 1 unless the training median is <= 10 % and no training row is\n"
	"beyond 30 % (and likewise --check-infer); skipped rows fail a check. --explain ID prints the\n"
	"evaluation behind every row with that case_id and what was picked for the cells the source\n"
	"left empty, in the --format asked for.\n\n"
	"  --format FMT        table | csv | json | md (default table)\n"
	"  --wide              text tables with every column, unwrapped (default: fit 120 columns)\n"
	"  --check-train M:X   thresholds for training rows\n"
	"  --check-infer M:X   thresholds for inference rows\n"
	"  --explain ID        print the full breakdown of case ID (every row with that id)\n"
	"  -h, --help          this text\n";

typedef struct result {
	val_case c;
	int ok;
	double pred, err_pct;
	char reason[768];
} result;

typedef struct stats {
	int n, skipped;
	double median, mean, max;
} stats;

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* kind: 1 train, 0 infer, -1 all. */
static stats summarize(const result *r, int n, int kind)
{
	stats s = {0, 0, NAN, NAN, NAN};
	double *v = malloc(sizeof *v * (size_t)(n ? n : 1)), sum = 0;
	for (int i = 0; i < n; i++) {
		if (kind >= 0 && r[i].c.train != kind)
			continue;
		if (!r[i].ok) {
			s.skipped++;
			continue;
		}
		v[s.n++] = fabs(r[i].err_pct);
		sum += fabs(r[i].err_pct);
	}
	if (s.n > 0) {
		qsort(v, (size_t)s.n, sizeof *v, cmp_dbl);
		s.median = s.n % 2 ? v[s.n / 2] : (v[s.n / 2 - 1] + v[s.n / 2]) / 2;
		s.mean = sum / s.n;
		s.max = v[s.n - 1];
	}
	free(v);
	return s;
}

static cJSON *stats_json(stats s)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "n", s.n);
	cJSON_AddNumberToObject(o, "skipped", s.skipped);
	if (s.n > 0) {
		cJSON_AddNumberToObject(o, "median_abs_error_pct", s.median);
		cJSON_AddNumberToObject(o, "mean_abs_error_pct", s.mean);
		cJSON_AddNumberToObject(o, "max_abs_error_pct", s.max);
	} else {
		cJSON_AddNullToObject(o, "median_abs_error_pct");
		cJSON_AddNullToObject(o, "mean_abs_error_pct");
		cJSON_AddNullToObject(o, "max_abs_error_pct");
	}
	return o;
}

static int parse_check(const char *arg, double *med, double *max)
{
	char *end;
	*med = strtod(arg, &end);
	if (end == arg || *end != ':')
		return -1;
	arg = end + 1;
	*max = strtod(arg, &end);
	return end == arg || *end ? -1 : 0;
}

/* Loads each distinct system once. */
typedef struct sys_cache {
	char name[48];
	hw_system *sys;   /* NULL: could not load */
	char why[ERR_MSG_MAX];
} sys_cache;

/* The eval breakdown of one case, for --explain: text to stdout, or added to arr (JSON) or
 * to t (csv, md: rows "LINE.field"). */
static void explain_case(const hw_system *s, const result *r, out_format f, cJSON *arr, out_table *t)
{
	wl_workload *w = malloc(sizeof *w);
	plan p;
	char picked[512];
	show_eval rep;
	train_result tr;
	infer_result ir;
	if (!w)
		return;
	val_build(&r->c, w, &p, picked, sizeof picked);
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

int cmd_validate(int argc, char **argv, const cli_paths *paths)
{
	enum { OPT_TRAIN = 2000, OPT_INFER, OPT_EXPLAIN };
	static const struct option longopts[] = {
		{"format", required_argument, NULL, CLI_OPT_FORMAT},
		{"check-train", required_argument, NULL, OPT_TRAIN},
		{"check-infer", required_argument, NULL, OPT_INFER},
		{"explain", required_argument, NULL, OPT_EXPLAIN},
		CLI_TABLE_LONGOPTS,
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0}};
	out_format f = OUT_TABLE;
	double chk[2][2] = {{-1, -1}, {-1, -1}}; /* [infer, train][median, max] */
	csvin_doc d;
	err e = {0};
	result *res = NULL;
	sys_cache *cache = NULL;
	int nres = 0, ncache = 0, c, rc = 0, explained = 0, wide = 0;
	const char *explain = NULL;
	out_table et;
	cJSON *earr = NULL;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'h':
			fputs(validate_usage, stdout);
			return 0;
		case CLI_OPT_FORMAT:
			if (out_parse_format(optarg, &f) != 0) {
				fprintf(stderr, "roofcost: --format: '%s' is not one of table, csv, json, md\n", optarg);
				return 2;
			}
			break;
		case OPT_EXPLAIN:
			explain = optarg;
			break;
		case CLI_OPT_WIDE:
			wide = 1;
			break;
		case OPT_TRAIN:
		case OPT_INFER:
			if (parse_check(optarg, &chk[c == OPT_TRAIN][0], &chk[c == OPT_TRAIN][1]) != 0) {
				fprintf(stderr, "roofcost: --check-%s: '%s' is not MEDIAN:MAX\n",
					c == OPT_TRAIN ? "train" : "infer", optarg);
				return 2;
			}
			break;
		default:
			fputs(validate_usage, stderr);
			return 2;
		}
	}
	if (optind + 1 != argc) {
		fputs(validate_usage, stderr);
		return 2;
	}
	if (csvin_load(&d, argv[optind], &e) != 0)
		return cli_fail(&e);
	if (d.nrows < 1) {
		err_at(&e, argv[optind], 0, "empty file");
		csvin_release(&d);
		return cli_fail(&e);
	}
	if (val_check_header(argv[optind], (const char *const *)d.rows[0].fields, d.rows[0].n, &e) != 0) {
		csvin_release(&d);
		return cli_fail(&e);
	}
	res = calloc((size_t)d.nrows, sizeof *res);
	cache = calloc((size_t)d.nrows, sizeof *cache);
	if (!res || !cache) {
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
			      (const char *const *)row->fields, row->n, &res[nres].c, &e) != 0) {
			rc = cli_fail(&e);
			goto done;
		}
		nres++;
	}
	for (int i = 0; i < nres; i++) {
		result *r = &res[i];
		sys_cache *sc = NULL;
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
		r->ok = val_predict(sc->sys, &r->c, &r->pred, r->reason, sizeof r->reason);
		if (r->ok)
			r->err_pct = 100 * (r->pred - r->c.value) / r->c.value;
		if (explain && !strcmp(explain, r->c.id)) {
			if (!explained++) {
				static const char *const hdr[] = {"field", "value"};
				out_init(&et, 2, hdr);
				out_wide(&et, wide);
				earr = cJSON_CreateArray();
			}
			explain_case(sc->sys, r, f, earr, &et);
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
	{
		stats all = summarize(res, nres, -1), tr = summarize(res, nres, 1), in = summarize(res, nres, 0);
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
				for (int k = 0; k < 3; k++)
					printf("%-5s n=%d skipped=%d median |error| %.1f %%, mean %.1f %%, max %.1f %%\n",
					       nm[k], ss[k]->n, ss[k]->skipped, ss[k]->median, ss[k]->mean, ss[k]->max);
			}
		}
		for (int kind = 0; kind < 2; kind++) {
			const stats *s = kind ? &tr : &in;
			if (chk[kind][0] < 0)
				continue;
			if (s->skipped > 0 || s->n == 0 || s->median > chk[kind][0] || s->max > chk[kind][1]) {
				fprintf(stderr,
					"roofcost: validate: %s rows miss the check: median %.1f %% (limit %g), max %.1f %% (limit %g), skipped %d\n",
					kind ? "training" : "inference", s->median, chk[kind][0], s->max, chk[kind][1],
					s->skipped);
				rc = 1;
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
	free(res);
	csvin_release(&d);
	return rc;
}
