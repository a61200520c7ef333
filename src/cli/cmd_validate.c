/* cmd_validate: `roofcost validate CASES.csv` - predictions against published measurements. */
#include <cJSON.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "base/opt.h"
#include "base/names.h"
#include "engine/disagg.h"
#include "engine/fit.h"
#include "engine/infer.h"
#include "report/show.h"
#include "store/cases.h"
#include "engine/train.h"
#include "engine/validate.h"
#include "lib/validation.h"

enum { INTERVALS_MAX = 128 };

const char validate_usage[] =
	"usage: roofcost validate CASES.csv [--format table|csv|json|md] [--check-train MEDIAN:MAX]\n"
	"                         [--check-infer MEDIAN:MAX] [--check-oos-train MEDIAN:MAX]\n"
	"                         [--check-oos-infer MEDIAN:MAX] [--explain ID] [--fit] [--intervals]\n"
	"                         [--reproduce]\n\n"
	"Predicts every published measurement in CASES.csv (DESIGN.md §7 columns) and prints, per\n"
	"case, measured, predicted and the error in percent, in sample (with the calibrated values\n"
	"of models/calibration.ini, fitted on these rows) and out of sample (oos: every calibrated\n"
	"value refitted without the rows of the case's own source document, its source_group).\n"
	"Then per framework, per chip family and per source, leave-one-framework-out, and the\n"
	"median, mean and largest absolute error: out of sample first, the headline, then in\n"
	"sample. A case whose system or metric cannot be modelled is listed with no prediction and\n"
	"a reason, and counted as skipped. --check-train 10:30 exits 3 unless the in-sample\n"
	"training median is <= 10 % and no training row is beyond 30 % (--check-infer likewise,\n"
	"--check-oos-train and --check-oos-infer for the out-of-sample errors); skipped rows fail a\n"
	"check. --explain ID prints the evaluation behind every row with that case_id and what was\n"
	"picked for the cells the source left empty, in the --format asked for.\n\n"
	"  --format FMT           table | csv | json | md (default table)\n"
	"  --wide                 text tables with every column, unwrapped (default: fit 120 columns)\n"
	"  --check-train M:X      thresholds for training rows (in sample)\n"
	"  --check-infer M:X      thresholds for inference rows (in sample)\n"
	"  --check-oos-train M:X  thresholds for training rows, each source left out\n"
	"  --check-oos-infer M:X  thresholds for inference rows, each source left out\n"
	"  --explain ID           print the full breakdown of case ID (every row with that id)\n"
	"  --fit                  refit every calibrated value of models/calibration.ini on its rows,\n"
	"                         and say which rows (by source) fed each\n"
	"  --reproduce            check every shipped workload that names a case of the file\n"
	"                         ([workload] reproduces = CASE_ID): evaluated on the case's system with\n"
	"                         its own plan, the measured value within its interval (exit 3 if not)\n"
	"  --intervals            print models/intervals.ini: each calibration group's spread of\n"
	"                         out-of-sample errors, which every prediction's interval is made of\n"
	"  -h, --help             this text\n";

/* The eval breakdown of one explained row, for --explain: text to stdout, or its JSON flattened
 * into t (csv, md: rows "LINE.field"). */
static void explain_print(const validation_explained *x, out_format f, out_table *t)
{
	const fit_row *r = x->row;
	if (f == OUT_TABLE) {
		printf("%s line %d: %s measured %.4g, predicted %.4g (%+.1f %%)\n  picked: %s\n", r->c.id, r->c.line,
		       val_metric_names[r->c.metric], r->c.value, r->pred, r->err_pct, x->picked);
		if (x->at_load[0])
			printf("  at the run's load (not what the row is predicted at): %s\n", x->at_load);
		show_text(&x->rep, stdout);
		if (x->dis) {
			printf("\n");
			show_disagg_text(x->w, x->dis, NULL, &x->ir, stdout);
		}
	} else {
		cJSON *o = validation_explained_json(x);
		char pre[32];
		snprintf(pre, sizeof pre, "%d.", r->c.line);
		show_flat(o, pre, t);
		cJSON_Delete(o);
	}
}

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

/* One group's line: in sample, then out of sample (each source left out). */
static void group_line(const fit_row *r, int n, fit_filter f, const char *name, FILE *fp)
{
	fit_stats s, o;
	char a[32], b[32], m[32], oa[32], ob[32], om[32];
	f.oos = 0;
	s = fit_summarize(r, n, &f);
	f.oos = 1;
	o = fit_summarize(r, n, &f);
	fprintf(fp, "  %-31s %4d %4d %s %s %s | %s %s %s\n", name, s.n, s.skipped, pct_w(a, sizeof a, s.median, 6, 0),
		pct_w(b, sizeof b, s.signed_median, 6, 1), pct_w(m, sizeof m, s.max, 6, 0),
		pct_w(oa, sizeof oa, o.median, 6, 0), pct_w(ob, sizeof ob, o.signed_median, 6, 1),
		pct_w(om, sizeof om, o.max, 6, 0));
}

/* Per framework, chip family or source of one kind: in sample, then each source left out. */
static void group_table(const fit_row *r, int n, int kind, fit_field by, FILE *fp)
{
	static const char *const what[] = {"framework", "chip family", "source"};
	const char *names[FIT_GROUPS_MAX];
	int k = fit_distinct(r, n, kind, by, names, FIT_GROUPS_MAX);
	char title[64];
	snprintf(title, sizeof title, "%s by %s:", kind ? "train" : "infer", what[by]);
	fprintf(fp, "%-33s %4s %4s %8s %8s %8s | %8s %8s %8s\n", title, "n", "skip", "median", "bias", "max",
		"oos med", "oos bias", "oos max");
	for (int i = 0; i < k; i++) {
		fit_filter f = {kind, by == FIT_BY_FRAMEWORK ? names[i] : NULL, by == FIT_BY_FAMILY ? names[i] : NULL,
				by == FIT_BY_GROUP ? names[i] : NULL, 0};
		group_line(r, n, f, names[i], fp);
	}
}

/* "MEDIAN:MAX", two finite percentages >= 0 (nan would pass every comparison). */
static int parse_check(const char *arg, double *med, double *max)
{
	return opt_number_pair(arg, ':', med, max) == 0 && *med >= 0 && *max >= 0 ? 0 : -1;
}

/* --fit: each calibration refitted on all its rows beside the value its file holds, and the
 * rows (by source) that fed it. */
static void print_fit(const cases_set *cs, int wide)
{
	const fit_set *fs = cs->fs;
	const hw_calibs *ks = fs->ks;
	int nv = fit_nvals(fs);
	double *vals = malloc(sizeof *vals * (size_t)(nv ? nv : 1));
	if (!vals)
		return;
	for (int i = 0; i < nv; i++)
		vals[i] = fit_val_value(fs, i);
	printf("chip level, %s: %d values; stack level, the frameworks' [calibration]: %d values\n",
	       fw_shown_path(ks->path), ks->n, fs->nfw);
	for (int i = 0; i < nv; i++) {
		const char *groups[FIT_GROUPS_MAX] = {0};
		int n, ng = 0, stacks;
		double v;
		if (i < ks->n) {
			const hw_calib *k = &ks->c[i];
			if (k->train == HW_CAL_KIND_MEASURED) {
				printf("  %-22s %s of %s: %.4f derived from a measurement, not fitted (%s)\n", k->name,
				       hw_calib_param_names[k->param], k->family, k->value, k->src.source);
				continue;
			}
			if (k->train == HW_CAL_KIND_PRIOR) {
				printf("  %-22s %s of %s: %.4f, no rows of its own: the share %s holds over its prior, on this "
				       "family's prior %.4f (uncalibrated)\n", k->name, hw_calib_param_names[k->param], k->family,
				       k->value, k->from, k->prior);
				continue;
			}
			v = fit_value(cs->rows, cs->n, fs, vals, i, NULL, &n, &stacks);
			printf("  %-22s %s of %s (%s rows%s%s): fitted %.4f on %d rows of %d stacks, file %.4f, prior %.4f%s\n",
			       k->name, hw_calib_param_names[k->param], k->family,
			       k->train == HW_CAL_KIND_ALL ? "training and serving" : k->train ? "training" : "serving",
			       k->frameworks[0] ? " of " : "", k->frameworks, v, n, stacks, k->value, k->prior,
			       stacks < 2 && n > 0 ? " (one stack: a chip-level value needs two, or a microbenchmark)" : "");
		} else {
			const fit_fwcal *c = &fs->fw[i - ks->n];
			v = fit_value(cs->rows, cs->n, fs, vals, i, NULL, &n, NULL);
			printf("  %-22s train_sustained share of %s on %s (%s): fitted %.4f on %d rows, file %.4f, prior 1\n",
			       c->name, c->framework, c->family, fw_shown_path(c->path), v, n, c->value);
		}
		/* Which rows fed it: per source document, with their count (--wide: every case). */
		for (int r = 0; r < cs->n; r++) {
			int seen = 0;
			if (!fit_uses(fs, i, &cs->rows[r], NULL))
				continue;
			for (int g = 0; g < ng && !seen; g++)
				seen = !strcmp(groups[g], cs->rows[r].c.group);
			if (!seen && ng < FIT_GROUPS_MAX)
				groups[ng++] = cs->rows[r].c.group;
		}
		for (int g = 0; g < ng; g++) {
			int cnt = 0;
			for (int r = 0; r < cs->n; r++)
				cnt += fit_uses(fs, i, &cs->rows[r], NULL) && !strcmp(cs->rows[r].c.group, groups[g]);
			printf("    %-40s %3d rows", groups[g], cnt);
			if (wide)
				for (int r = 0; r < cs->n; r++)
					if (fit_uses(fs, i, &cs->rows[r], NULL) && !strcmp(cs->rows[r].c.group, groups[g]))
						printf(" %s", cs->rows[r].c.id);
			putchar('\n');
		}
	}
	free(vals);
}

/* A value of models/intervals.ini, wrapped on indented lines below 190 characters at ", ". */
static void ini_long(const char *key, const char *v)
{
	int col = printf("%s = ", key);
	for (const char *p = v; *p;) {
		const char *q = strstr(p, ", ");
		int len = q ? (int)(q - p) + 1 : (int)strlen(p);
		if (col + len > 150 && p != v) {
			printf("\n   ");
			col = 3;
		}
		col += printf("%s%.*s", p == v || col == 3 ? "" : " ", len, p);
		p = q ? q + 2 : p + len;
	}
	putchar('\n');
}

/* --intervals: models/intervals.ini as it follows from the rows' out-of-sample errors. */
static void print_intervals(const cases_set *cs)
{
	fit_group *g = calloc(INTERVALS_MAX, sizeof *g);
	int n;
	if (!g)
		return;
	n = fit_groups(cs->rows, cs->n, cs->fs, g, INTERVALS_MAX);
	printf("; Prediction intervals per calibration group (DESIGN §6 interval, calibration): the 10th and 90th\n"
	       "; percentile of the out-of-sample errors of the group's validation rows, each predicted with every\n"
	       "; calibrated value refitted without the rows of its own source document. Errors are percent in the\n"
	       "; sense of speed (> 0: the model predicted faster than measured): a predicted rate R lies in\n"
	       "; [R / (1 + p90), R / (1 + p10)], a time T in [T (1 + p10), T (1 + p90)]. Groups: kind x chip family x\n"
	       "; framework (%d rows or more), the family's stacks together, the kind's rows as a whole (*), and each\n"
	       "; family with no rows that borrows a nearer family's calibration (kind = prior in calibration.ini):\n"
	       "; uncalibrated, that family's spread widened in log space by its median out-of-sample error\n"
	       "; (rows: the rows its spread comes from, the borrowed family's).\n"
	       ";\n"
	       "; Written by: roofcost validate tests/validation/public.csv --intervals > models/intervals.ini\n"
	       "; make test fails when this file differs from what that prints: regenerate it, never edit it.\n",
	       FIT_GROUP_MIN_ROWS);
	for (int i = 0; i < n; i++) {
		const fit_group *x = &g[i];
		printf("\n[%s.%s%s%s]\nkind = %s\nfamily = %s\n", x->train ? "train" : "infer",
		       strcmp(x->family, "*") ? x->family : "all", x->framework[0] ? "." : "", x->framework,
		       x->train ? "train" : "infer", x->family);
		if (x->framework[0])
			printf("framework = %s\n", x->framework);
		printf("status = %s\nrows = %d\np10 = %.2f\np90 = %.2f\n", x->calibrated ? "calibrated" : "uncalibrated",
		       x->rows, x->p10, x->p90);
		if (!x->calibrated)
			printf("from = %s\n", x->from);
		if (!x->calibrated || !strcmp(x->family, "*"))
			printf("widen = %.4f\n", x->widen);
		if (x->sources[0])
			ini_long("sources", x->sources);
	}
	free(g);
}

/* --reproduce: each shipped workload that names a case of the file, against it. Returns 3 when
 * one does not reproduce its case, 1 on an error. */
static int print_reproduce(const cases_set *cs, const home_paths *paths, out_format f, int wide)
{
	static const char *const hdr[] = {"workload", "case_id", "metric", "measured", "case_predicted", "predicted",
					  "low", "high", "verdict"};
	cases_repro *x = calloc(256, sizeof *x);
	out_table t;
	err e = {0};
	int n, rc = 0;
	if (!x) {
		err_set(&e, ERR_DATA, "out of memory");
		return cli_fail(&e);
	}
	n = cases_reproduce(cs, paths->models, paths->workloads, paths->intervals, x, 256, &e);
	if (n < 0) {
		free(x);
		return cli_fail(&e);
	}
	out_init(&t, 9, hdr);
	out_wide(&t, wide);
	out_fit_col(&t, 8, OUT_FIT_BELOW);
	for (int k = 3; k < 8; k++)
		out_right(&t, k);
	for (int i = 0; i < n; i++) {
		char v[5][32];
		const char *cells[9];
		const double num[5] = {x[i].measured, x[i].case_pred, x[i].pred, x[i].lo, x[i].hi};
		for (int k = 0; k < 5; k++)
			if (isfinite(num[k]))
				out_num(v[k], sizeof v[k], num[k], 4);
			else
				snprintf(v[k], sizeof v[k], "-");
		cells[0] = x[i].workload;
		cells[1] = x[i].case_id;
		cells[2] = isfinite(x[i].measured) ? val_metric_names[x[i].metric] : "-";
		for (int k = 0; k < 5; k++)
			cells[3 + k] = v[k];
		cells[8] = x[i].ok ? "reproduces" : x[i].why;
		out_row(&t, cells);
		if (!x[i].ok)
			rc = 3;
	}
	out_print(&t, f, stdout);
	out_release(&t);
	if (f == OUT_TABLE)
		printf("%d figures of shipped workloads that name a case (reproduces), each within its case's calibration group's "
		       "interval or not\n", n);
	if (rc)
		fprintf(stderr, "roofcost: validate: a shipped workload does not reproduce the case it names\n");
	free(x);
	return rc;
}

/* The threshold checks (exit 3 when one falls short). */
static int run_checks(const validation_result *v, double chk[2][2][2])
{
	char msg[4][256];
	int n = validation_check(v, chk, msg);
	for (int i = 0; i < n; i++)
		fprintf(stderr, "roofcost: %s\n", msg[i]);
	return n ? 3 : 0;
}

/* A JSON document to stdout, then freed. */
static void print_doc(void *obj)
{
	char *s = obj ? cJSON_Print((cJSON *)obj) : NULL;
	if (s)
		puts(s);
	free(s);
	cJSON_Delete((cJSON *)obj);
}

static void print_table(const fit_row *rows, int n, const fit_lofo *lf, int nlf, int ngroups, out_format f,
			int wide)
{
	out_table t;
	static const char *const hdr[] = {"case_id", "kind", "metric", "measured", "predicted", "error_pct",
					  "oos_error_pct", "reason"};
	out_init(&t, 8, hdr);
	out_wide(&t, wide);
	out_fit_col(&t, 7, OUT_FIT_BELOW);
	for (int k = 3; k < 7; k++)
		out_right(&t, k);
	for (int i = 0; i < n; i++) {
		const fit_row *r = &rows[i];
		char m[32], p[32], ep[32], op[32];
		out_num(m, sizeof m, r->c.value, 4);
		snprintf(p, sizeof p, "-");
		snprintf(ep, sizeof ep, "-");
		snprintf(op, sizeof op, "-");
		if (r->ok) {
			out_num(p, sizeof p, r->pred, 4);
			snprintf(ep, sizeof ep, "%+.1f", r->err_pct);
		}
		if (r->oos_ok)
			snprintf(op, sizeof op, "%+.1f", r->oos_err_pct);
		{
			const char *cells[8] = {r->c.id, r->c.train ? "train" : "infer", val_metric_names[r->c.metric], m, p,
						ep, op, f == OUT_TABLE && r->ok ? "" : r->reason};
			out_row(&t, cells);
		}
	}
	out_print(&t, f, stdout);
	out_release(&t);
	if (f != OUT_TABLE)
		return;
	for (int kind = 1; kind >= 0; kind--) {
		group_table(rows, n, kind, FIT_BY_FRAMEWORK, stdout);
		group_table(rows, n, kind, FIT_BY_FAMILY, stdout);
		group_table(rows, n, kind, FIT_BY_GROUP, stdout);
		printf("%s leave-one-framework-out (calibrations refitted without the framework's rows):\n",
		       kind ? "train" : "infer");
		for (int i = 0; i < nlf; i++) {
			char a[32], b[32], m[32];
			if (lf[i].kind == kind)
				printf("  %-22s n=%-3d median |error| %s, bias %s, max %s%s%s\n", lf[i].framework, lf[i].s.n,
				       pct_w(a, sizeof a, lf[i].s.median, 5, 0), pct_w(b, sizeof b, lf[i].s.signed_median, 6, 1),
				       pct_w(m, sizeof m, lf[i].s.max, 6, 0), lf[i].refits[0] ? "; refitted " : "", lf[i].refits);
		}
	}
	for (int oos = 1; oos >= 0; oos--) {
		static const char *const nm[3] = {"train", "infer", "all"};
		static const int kinds[3] = {1, 0, -1};
		if (oos)
			printf("out of sample: each of %d sources left out, every calibrated value refitted without it\n",
			       ngroups);
		else
			printf("in sample: the calibrated values of models/calibration.ini, fitted on these rows\n");
		for (int k = 0; k < 3; k++) {
			fit_filter fl = {kinds[k], NULL, NULL, NULL, oos};
			fit_stats s = fit_summarize(rows, n, &fl);
			char a[32], b[32], m[32];
			printf("%-5s n=%d skipped=%d memory-misses=%d median |error| %s, mean %s, max %s\n", nm[k], s.n,
			       s.skipped, s.mem_misses, pct(a, sizeof a, s.median), pct(b, sizeof b, s.mean),
			       pct(m, sizeof m, s.max));
		}
	}
}

/* --explain ID: every row with that id, or an error with the ids near it. */
static int explain(const validation_result *v, const char *id, out_format f, int wide, err *e)
{
	out_table et;
	static const char *const hdr[] = {"field", "value"};
	int idx[VALIDATION_EXPLAIN_MAX], n = validation_explain_rows(v, id, idx, VALIDATION_EXPLAIN_MAX, e);
	if (n < 0)
		return -1;
	if (f == OUT_JSON) {
		void *doc = validation_explain_json(v, id, e);
		if (!doc)
			return -1;
		print_doc(doc);
		return 0;
	}
	out_init(&et, 2, hdr);
	out_wide(&et, wide);
	for (int i = 0; i < n && i < VALIDATION_EXPLAIN_MAX; i++) {
		validation_explained x;
		if (validation_explain(&v->cs.rows[idx[i]], &x) == 0)
			explain_print(&x, f, &et);
		validation_explained_release(&x);
	}
	if (f != OUT_TABLE)
		out_print(&et, f, stdout);
	out_release(&et);
	return 0;
}

int cmd_validate(int argc, char **argv, const home_paths *paths)
{
	enum { OPT_TRAIN = 2000, OPT_INFER, OPT_OOS_TRAIN, OPT_OOS_INFER, OPT_EXPLAIN, OPT_FIT, OPT_INTERVALS, OPT_REPRODUCE };
	static const struct option longopts[] = {
		{"format", required_argument, NULL, CLI_OPT_FORMAT},
		{"check-train", required_argument, NULL, OPT_TRAIN},
		{"check-infer", required_argument, NULL, OPT_INFER},
		{"check-oos-train", required_argument, NULL, OPT_OOS_TRAIN},
		{"check-oos-infer", required_argument, NULL, OPT_OOS_INFER},
		{"explain", required_argument, NULL, OPT_EXPLAIN},
		{"fit", no_argument, NULL, OPT_FIT},
		{"intervals", no_argument, NULL, OPT_INTERVALS},
		{"reproduce", no_argument, NULL, OPT_REPRODUCE},
		CLI_TABLE_LONGOPTS,
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0}};
	out_format f = OUT_TABLE;
	double chk[2][2][2] = {{{-1, -1}, {-1, -1}}, {{-1, -1}, {-1, -1}}}; /* [in, oos][infer, train][median, max] */
	validation_result v;
	err e = {0};
	const char *explain_id = NULL;
	int fit = 0, intervals = 0, reproduce = 0, wide = 0, c, rc = 0;

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
			explain_id = optarg;
			break;
		case CLI_OPT_WIDE:
			wide = 1;
			break;
		case OPT_FIT:
			fit = 1;
			break;
		case OPT_INTERVALS:
			intervals = 1;
			break;
		case OPT_REPRODUCE:
			reproduce = 1;
			break;
		case OPT_TRAIN:
		case OPT_INFER:
		case OPT_OOS_TRAIN:
		case OPT_OOS_INFER: {
			int oos = c == OPT_OOS_TRAIN || c == OPT_OOS_INFER, train = c == OPT_TRAIN || c == OPT_OOS_TRAIN;
			if (parse_check(optarg, &chk[oos][train][0], &chk[oos][train][1]) != 0) {
				fprintf(stderr, "roofcost: --check-%s%s: '%s' is not MEDIAN:MAX\n", oos ? "oos-" : "",
					train ? "train" : "infer", optarg);
				return 2;
			}
			break;
		}
		default:
			fputs(validate_usage, stderr);
			return 2;
		}
	}
	if (optind + 1 != argc) {
		fputs(validate_usage, stderr);
		return 2;
	}
	if (validation_run(argv[optind], paths->models,
			   explain_id || fit || reproduce ? 0 : intervals ? VALIDATION_OOS : VALIDATION_LOFO, &v, &e) != 0)
		return cli_fail(&e);
	if (explain_id) {
		if (explain(&v, explain_id, f, wide, &e) != 0)
			rc = cli_fail(&e);
	} else if (fit) {
		print_fit(&v.cs, wide);
	} else if (reproduce) {
		rc = print_reproduce(&v.cs, paths, f, wide);
	} else if (intervals) {
		print_intervals(&v.cs);
	} else {
		if (f == OUT_JSON)
			print_doc(validation_json(&v, paths->intervals));
		else
			print_table(v.cs.rows, v.cs.n, v.lf, v.nlf, v.ngroups, f, wide);
		rc = run_checks(&v, chk);
	}
	validation_release(&v);
	return rc;
}
