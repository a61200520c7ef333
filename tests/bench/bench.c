/* bench: training-layout evaluations per second on one core (make bench).
 *
 * What a sweep does per layout once its kernels are cached: compose the step (pipeline,
 * data-parallel sync, ZeRO, memory, optimizer) and check feasibility, over a fixed set of
 * layouts of llama3-405b-train on trn2.48xlarge. Prints "evals_per_s_per_core: N". Then one
 * layout evaluated from scratch each time (lowering, roofline, collectives, composition,
 * memory: train_eval) over the same layouts: "full_evals_per_s_per_core: N". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/train.h"

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* bench --count N: N full evaluations and nothing else, for an instruction count
 * (callgrind): instructions_per_full_eval = (Ir of --count N) - (Ir of --count 0), over N. */
int main(int argc, char **argv)
{
	hw_system *s = malloc(sizeof *s);
	wl_workload *w = malloc(sizeof *w);
	train_memo *mm = calloc(1, sizeof *mm);
	train_kernel *k = malloc(5 * sizeof *k);
	train_result *r = malloc(sizeof *r);
	plan keys[5];
	err e = {0};
	long n = 0;
	double t0, t1, sink = 0;
	int tps[5] = {1, 2, 4, 8, 16};
	if (!s || !w || !mm || !k || !r)
		return 1;
	if (hw_find_system("trn2.48xlarge", "models", s, &e) != 0 ||
	    wl_load("llama3-405b-train", "workloads", "models", NULL, 0, w, &e) != 0) {
		fprintf(stderr, "bench: %s\n", e.msg);
		return 1;
	}
	for (int i = 0; i < 5; i++) {
		memset(&keys[i], 0, sizeof keys[i]);
		keys[i].tp = tps[i];
		keys[i].pp = keys[i].vpp = keys[i].cp = keys[i].ep = 1;
		keys[i].sp = tps[i] > 1;
		keys[i].micro_batch = 1;
		train_kernel_eval(s, w, &keys[i], &k[i]);
	}
	if (argc == 3 && !strcmp(argv[1], "--count")) {
		long want = atol(argv[2]);
		for (n = 0; n < want;) {
			for (int i = 0; i < 5 && n < want; i++)
				for (int pp = 1; pp <= 32 && n < want; pp *= 2)
					for (int dp = 8; dp <= 4096 && n < want; dp *= 2) {
						plan p = keys[i];
						p.pp = pp;
						p.dp = dp;
						p.chips = p.tp * pp * dp;
						train_eval(s, w, &p, r, NULL);
						sink += r->step_time;
						n++;
					}
		}
		printf("checksum %.17g\n", sink);
		free(s);
		free(w);
		free(mm);
		free(k);
		free(r);
		return 0;
	}
	t0 = now();
	do {
		for (int i = 0; i < 5; i++)
			for (int pp = 1; pp <= 32; pp *= 2)
				for (int dp = 8; dp <= 4096; dp *= 2)
					for (int z = 0; z < 4; z++) {
						plan p = keys[i];
						p.pp = pp;
						p.dp = dp;
						p.chips = p.tp * pp * dp;
						w->zero = z;
						train_compose(s, w, &k[i], &p, mm, r);
						sink += r->step_time;
						n++;
					}
		t1 = now();
	} while (t1 - t0 < 1.0);
	printf("evals_per_s_per_core: %.0f\n", (double)n / (t1 - t0));
	fprintf(stderr, "(%ld evaluations in %.2f s, checksum %.6g, memo hits %lld misses %lld)\n", n, t1 - t0,
		sink, mm->hits, mm->misses);
	n = 0;
	t0 = now();
	do {
		for (int i = 0; i < 5; i++)
			for (int pp = 1; pp <= 32; pp *= 2)
				for (int dp = 8; dp <= 4096; dp *= 2) {
					plan p = keys[i];
					p.pp = pp;
					p.dp = dp;
					p.chips = p.tp * pp * dp;
					train_eval(s, w, &p, r, NULL);
					sink += r->step_time;
					n++;
				}
		t1 = now();
	} while (t1 - t0 < 1.0);
	printf("full_evals_per_s_per_core: %.0f\n", (double)n / (t1 - t0));
	free(s);
	free(w);
	free(mm);
	free(k);
	free(r);
	return 0;
}
