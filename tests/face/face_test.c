/* face_test: drives the library's face (roofcost.h) as a C user would, linked against
 * libroofcost.so, so that tests/library.sh can hold its answers against the tool's:
 *   face_test eval SYSTEM WORKLOAD [KEY=VALUE...]   the JSON roofcost_eval_json returns
 *   face_test figures SYSTEM WORKLOAD               roofcost_eval's struct, one field a line
 *   face_test compare WORKLOAD SYSTEMS              roofcost_compare_json
 *   face_test sweep WORKLOAD SYSTEMS CHIPS TOP      roofcost_sweep's JSON; the points it called back
 *                                                   with on stderr, one a line
 *   face_test merge TOP FILE...                     roofcost_sweep_merge
 *   face_test list WHAT                             roofcost_list_json
 *   face_test validate CASES                        roofcost_validate_json
 *   face_test check NAME|all [frozen|AS_OF]         roofcost_baseline_check_json; the JSON also when
 *                                                   a figure fell short (exit 3)
 *   face_test errors                                the refusals: exit 0 when each is as expected
 * The data root is $ROOFCOST_HOME (or the working directory), the store $ROOFCOST_DB. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "roofcost.h"

static int fail(roofcost *h, int rc)
{
	fprintf(stderr, "face_test: %s (code %d)\n", roofcost_errmsg(h), rc);
	return rc;
}

static int print_point(void *ctx, const roofcost_point *p)
{
	int *n = ctx;
	(*n)++;
	fprintf(stderr, "point %s %d %s %d tp=%d pp=%d dp=%d zero=%d %s %.17g\n", p->front ? "pareto" : "top", p->rank,
		p->system, p->chips, p->tp, p->pp, p->dp, p->zero, p->recompute, p->run_time_s);
	return 0;
}

static int stop_after_one(void *ctx, const roofcost_point *p)
{
	(void)p;
	(*(int *)ctx)++;
	return 1;
}

/* A check of the errors test: prints what failed. */
static int expect(int ok, const char *what, roofcost *h)
{
	if (!ok)
		fprintf(stderr, "face_test errors: %s (last message: %s)\n", what, h ? roofcost_errmsg(h) : "");
	return ok ? 0 : 1;
}

static int errors(void)
{
	char msg[256];
	roofcost *h = roofcost_open("/nonexistent-roofcost-home", NULL, msg, sizeof msg);
	roofcost_opts o;
	char *json = (char *)"untouched";
	int bad = 0, n = 0, rc;
	bad += expect(h == NULL && strstr(msg, "not a roofcost data folder") != NULL, "open of a folder without models/", NULL);
	h = roofcost_open(NULL, NULL, msg, sizeof msg);
	if (!h) {
		fprintf(stderr, "face_test: %s\n", msg);
		return 1;
	}
	roofcost_opts_init(&o);
	o.system = "no-such-system";
	o.workload = "llama3-8b-train";
	rc = roofcost_eval_json(h, &o, &json);
	bad += expect(rc == 1 && json == NULL && strstr(roofcost_errmsg(h), "unknown system 'no-such-system'"),
		      "eval of an unknown system: exit 1, no JSON, the tool's message", h);
	o.system = "trn2.48xlarge";
	o.pricing = "bogus";
	rc = roofcost_eval_json(h, &o, &json);
	bad += expect(rc == 2 && strstr(roofcost_errmsg(h), "--pricing: 'bogus' is not one of"), "a bad --pricing: exit 2", h);
	o.pricing = NULL;
	o.plan = "tp=3";
	rc = roofcost_eval_json(h, &o, &json);
	bad += expect(rc == 0 && json && strstr(json, "\"feasible\":\tfalse") && strstr(json, "tp 3 does not divide"),
		      "an infeasible layout is a result with its reason, not an error", h);
	roofcost_free(json);
	bad += expect(roofcost_errmsg(h)[0] == '\0', "a call that succeeds clears the message", h);
	o.plan = NULL;
	o.workload = "llama3-70b-serve";
	rc = roofcost_sweep(h, &o, NULL, NULL, &json);
	bad += expect(rc == 2 && strstr(roofcost_errmsg(h), "is a serving workload"), "a sweep of a serving workload", h);
	o.workload = "llama3-8b-train";
	o.system = "p5.48xlarge";
	o.chips = "8-16";
	o.threads = 1;
	rc = roofcost_sweep(h, &o, stop_after_one, &n, NULL);
	bad += expect(rc == 0 && n == 1, "a callback that returns nonzero is called no more", h);
	o.shard = "auto";
	unsetenv("SLURM_ARRAY_TASK_ID");
	unsetenv("JOB_COMPLETION_INDEX");
	rc = roofcost_sweep(h, &o, NULL, NULL, &json);
	bad += expect(rc == 2 && strstr(roofcost_errmsg(h), "--shard auto: neither"), "--shard auto outside a job array", h);
	rc = roofcost_list_json(h, "planets", &json);
	bad += expect(rc == 2 && strstr(roofcost_errmsg(h), "'planets' is not one of"), "an unknown list", h);
	rc = roofcost_sweep_merge(h, NULL, 0, 10, &json);
	bad += expect(rc == 2, "a merge of no files", h);
	rc = roofcost_validate_json(h, NULL, &json);
	bad += expect(rc == 2 && strstr(roofcost_errmsg(h), "needs a case file"), "validate without a case file", h);
	rc = roofcost_validate_json(h, "/nonexistent/cases.csv", &json);
	bad += expect(rc == 1 && json == NULL && strstr(roofcost_errmsg(h), "/nonexistent/cases.csv"),
		      "validate of a file that is not there: exit 1, the tool's message", h);
	rc = roofcost_baseline_check_json(h, "r", 0, "yesterday", 0, &json);
	bad += expect(rc == 2 && strstr(roofcost_errmsg(h), "'yesterday' is not a date"), "check --as-of not a date", h);
	rc = roofcost_baseline_check_json(h, "r", 1, "2026-01-01", 0, &json);
	bad += expect(rc == 2 && strstr(roofcost_errmsg(h), "--frozen pins prices"), "check --frozen with --as-of", h);
	bad += expect(strcmp(roofcost_version(), "0.1.0") >= 0 && strlen(roofcost_version()) > 0, "a version", h);
	roofcost_close(h);
	roofcost_close(NULL);
	if (bad == 0)
		printf("face_test errors: all refused as expected\n");
	return bad != 0;
}

int main(int argc, char **argv)
{
	char msg[1024];
	roofcost *h;
	roofcost_opts o;
	char *json = NULL;
	int rc = 0;
	if (argc >= 2 && !strcmp(argv[1], "errors"))
		return errors();
	if (argc < 3) {
		fprintf(stderr, "usage: see the file's header\n");
		return 2;
	}
	h = roofcost_open(NULL, NULL, msg, sizeof msg);
	if (!h) {
		fprintf(stderr, "face_test: %s\n", msg);
		return 1;
	}
	roofcost_opts_init(&o);
	if (!strcmp(argv[1], "eval") && argc >= 4) {
		o.system = argv[2];
		o.workload = argv[3];
		o.sets = (const char *const *)argv + 4;
		o.nsets = argc - 4;
		rc = roofcost_eval_json(h, &o, &json);
	} else if (!strcmp(argv[1], "figures") && argc == 4) {
		roofcost_result r;
		o.system = argv[2];
		o.workload = argv[3];
		rc = roofcost_eval(h, &o, &r);
		if (rc == 0)
			printf("feasible %d\ntraining %d\nsystem %s\nworkload %s\nplan %s\nchips %d\nmem_per_chip_gib %.17g\n"
			       "step_time_s %.17g\ntokens_per_s %.17g\nmfu %.17g\nhfu %.17g\nttft_ms %.17g\ntpot_ms %.17g\n"
			       "usd_per_hour %.17g\nusd_per_unit %.17g\nunit %s\n", r.feasible, r.training, r.system, r.workload,
			       r.plan, r.chips, r.mem_per_chip_gib, r.step_time_s, r.tokens_per_s, r.mfu, r.hfu, r.ttft_ms,
			       r.tpot_ms, r.usd_per_hour, r.usd_per_unit, r.unit);
	} else if (!strcmp(argv[1], "compare") && argc == 4) {
		o.workload = argv[2];
		o.system = argv[3];
		rc = roofcost_compare_json(h, &o, &json);
	} else if (!strcmp(argv[1], "sweep") && argc == 6) {
		int n = 0;
		o.workload = argv[2];
		o.system = argv[3];
		o.chips = argv[4];
		o.top = atoi(argv[5]);
		rc = roofcost_sweep(h, &o, print_point, &n, &json);
		if (rc == 0)
			fprintf(stderr, "points %d\n", n);
	} else if (!strcmp(argv[1], "merge") && argc >= 4) {
		rc = roofcost_sweep_merge(h, (const char *const *)argv + 3, argc - 3, atoi(argv[2]), &json);
	} else if (!strcmp(argv[1], "list") && argc == 3) {
		rc = roofcost_list_json(h, argv[2], &json);
	} else if (!strcmp(argv[1], "validate") && argc == 3) {
		rc = roofcost_validate_json(h, argv[2], &json);
	} else if (!strcmp(argv[1], "check") && (argc == 3 || argc == 4)) {
		int frozen = argc == 4 && !strcmp(argv[3], "frozen");
		rc = roofcost_baseline_check_json(h, strcmp(argv[2], "all") ? argv[2] : NULL, frozen,
						  argc == 4 && !frozen ? argv[3] : NULL, 0, &json);
		if (rc == 3 && json) {
			puts(json);
			roofcost_free(json);
			json = NULL;
		}
	} else {
		fprintf(stderr, "usage: see the file's header\n");
		rc = 2;
	}
	if (rc != 0)
		rc = fail(h, rc);
	else if (json)
		puts(json);
	roofcost_free(json);
	roofcost_close(h);
	return rc;
}
