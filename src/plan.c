/* plan: parallel layouts (see plan.h). */
#include "plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hw.h"
#include "wl.h"

int plan_parse(const char *text, plan *p, err *e)
{
	char buf[256];
	char *save = NULL;
	if (strlen(text) >= sizeof buf)
		return err_set(e, ERR_USAGE, "--plan: too long");
	memcpy(buf, text, strlen(text) + 1);
	for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');
		char *end;
		long v;
		int *dst = NULL;
		if (!eq)
			return err_set(e, ERR_USAGE, "--plan: '%s' is not KEY=N", tok);
		*eq = '\0';
		v = strtol(eq + 1, &end, 10);
		if (end == eq + 1 || *end != '\0' || v < 0 || v > 10000000)
			return err_set(e, ERR_USAGE, "--plan %s: '%s' is not a whole number >= 0", tok, eq + 1);
		if (!strcmp(tok, "tp")) dst = &p->tp;
		else if (!strcmp(tok, "pp")) dst = &p->pp;
		else if (!strcmp(tok, "vpp")) dst = &p->vpp;
		else if (!strcmp(tok, "dp")) dst = &p->dp;
		else if (!strcmp(tok, "cp")) dst = &p->cp;
		else if (!strcmp(tok, "ep")) dst = &p->ep;
		else if (!strcmp(tok, "sp")) dst = &p->sp;
		else if (!strcmp(tok, "mb") || !strcmp(tok, "micro_batch")) dst = &p->micro_batch;
		else if (!strcmp(tok, "chips")) dst = &p->chips;
		else
			return err_set(e, ERR_USAGE,
				       "--plan: unknown key '%s' (tp pp vpp dp cp ep sp mb chips)", tok);
		if (v == 0 && dst != &p->sp)
			return err_set(e, ERR_USAGE, "--plan %s: must be at least 1", tok);
		if (dst == &p->sp && v > 1)
			return err_set(e, ERR_USAGE, "--plan sp: 0 or 1");
		*dst = (int)v;
	}
	return 0;
}

void plan_fill(plan *p)
{
	if (!p->tp) p->tp = 1;
	if (!p->pp) p->pp = 1;
	if (!p->vpp) p->vpp = 1;
	if (!p->cp) p->cp = 1;
	if (!p->ep) p->ep = 1;
	if (p->sp < 0) p->sp = 0;
	if (!p->dp) {
		int inner = p->tp * p->pp * p->cp;
		p->dp = p->chips && p->chips % inner == 0 ? p->chips / inner : 1;
	}
	if (!p->chips)
		p->chips = p->tp * p->pp * p->dp * p->cp;
}

void plan_format(const plan *p, char *buf, int len)
{
	int k = snprintf(buf, (size_t)len, "tp=%d pp=%d", p->tp, p->pp);
	if (p->vpp > 1 && k < len) k += snprintf(buf + k, (size_t)(len - k), " vpp=%d", p->vpp);
	if (k < len) k += snprintf(buf + k, (size_t)(len - k), " dp=%d", p->dp);
	if (p->cp > 1 && k < len) k += snprintf(buf + k, (size_t)(len - k), " cp=%d", p->cp);
	if (p->ep > 1 && k < len) k += snprintf(buf + k, (size_t)(len - k), " ep=%d", p->ep);
	if (p->sp && p->tp > 1 && k < len) k += snprintf(buf + k, (size_t)(len - k), " sp=1");
	if (p->micro_batch > 0 && k < len) snprintf(buf + k, (size_t)(len - k), " mb=%d", p->micro_batch);
}

int plan_check(const hw_system *s, const wl_workload *w, const plan *p, char *reason, int len)
{
	const nn_net *n = &w->net;
	long long product = (long long)p->tp * p->pp * p->dp * p->cp;
	int maxc = hw_max_chips(s);
#define FAIL(...) do { snprintf(reason, (size_t)len, __VA_ARGS__); return 0; } while (0)
	if ((double)p->tp * p->pp * p->dp * p->cp > 1e8)
		FAIL("tp*pp*dp*cp is more than 100,000,000 chips");
	if (p->chips != product)
		FAIL("chips %d differ from tp*pp*dp*cp = %lld", p->chips, product);
	if (maxc > 0 && p->chips > maxc)
		FAIL("%d chips exceed the %d that %s can join", p->chips, maxc, s->name);
	/* Training frameworks split heads evenly; serving runtimes pad them (Neuron). */
	if (w->mode == WL_TRAIN && n->heads % p->tp != 0)
		FAIL("tp %d does not divide %d attention heads", p->tp, n->heads);
	if (p->tp > n->heads)
		FAIL("tp %d exceeds %d attention heads", p->tp, n->heads);
	if (p->pp > n->layers)
		FAIL("pp %d exceeds %d layers", p->pp, n->layers);
	if (p->vpp > 1 && p->pp == 1)
		FAIL("vpp %d needs pp > 1", p->vpp);
	if (p->vpp > 1 && p->pp * p->vpp > n->layers)
		FAIL("pp*vpp = %d exceeds %d layers", p->pp * p->vpp, n->layers);
	if (p->ep > 1 && n->experts == 0)
		FAIL("ep %d needs an MoE network; %s is dense", p->ep, n->name);
	if (p->ep > 1 && n->experts % p->ep != 0)
		FAIL("ep %d does not divide %d experts", p->ep, n->experts);
	if (w->mode == WL_TRAIN) {
		int b = p->micro_batch > 0 ? p->micro_batch : w->micro_batch;
		if (w->global_batch % (p->dp * b) != 0)
			FAIL("dp*micro_batch = %d does not divide global_batch %d", p->dp * b,
			     w->global_batch);
		if (w->seq_len % p->cp != 0)
			FAIL("cp %d does not divide seq_len %d", p->cp, w->seq_len);
		if ((p->dp * p->cp) % p->ep != 0)
			FAIL("ep %d does not divide dp*cp = %d", p->ep, p->dp * p->cp);
		if (p->vpp > 1 && (w->global_batch / (p->dp * b)) % p->pp != 0)
			FAIL("interleaving needs micro-batches (%d) to be a multiple of pp %d",
			     w->global_batch / (p->dp * b), p->pp);
	} else {
		if (p->cp > 1)
			FAIL("cp is for training; inference splits prompts by tp");
		/* Serving experts are spread over replicas (attention data parallel, experts
		 * parallel): ep must divide dp. */
		if (p->dp % p->ep != 0)
			FAIL("ep %d does not divide dp %d (serving spreads experts over replicas)", p->ep, p->dp);
	}
#undef FAIL
	return 1;
}
