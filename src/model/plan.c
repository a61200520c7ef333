/* plan: parallel layouts (see plan.h). */
#include "model/plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>

#include "base/lim.h"
#include "base/opt.h"

int plan_parse(const char *text, plan *p, err *e)
{
	char buf[256];
	char *save = NULL;
	if (strlen(text) >= sizeof buf)
		return err_set(e, ERR_USAGE, "--plan: too long");
	memcpy(buf, text, strlen(text) + 1);
	for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');
		int *dst = NULL, hi = LIM_CHIPS, v;
		if (!eq)
			return err_set(e, ERR_USAGE, "--plan: '%s' is not KEY=N", tok);
		*eq = '\0';
		if (!strcmp(tok, "tp")) dst = &p->tp;
		else if (!strcmp(tok, "pp")) dst = &p->pp, hi = LIM_PP;
		else if (!strcmp(tok, "vpp")) dst = &p->vpp, hi = LIM_VPP;
		else if (!strcmp(tok, "dp")) dst = &p->dp;
		else if (!strcmp(tok, "cp")) dst = &p->cp;
		else if (!strcmp(tok, "ep")) dst = &p->ep;
		else if (!strcmp(tok, "sp")) dst = &p->sp, hi = 1;
		else if (!strcmp(tok, "mb") || !strcmp(tok, "micro_batch")) dst = &p->micro_batch, hi = LIM_MICRO_BATCH;
		else if (!strcmp(tok, "chips")) dst = &p->chips;
		else
			return err_set(e, ERR_USAGE,
				       "--plan: unknown key '%s' (tp pp vpp dp cp ep sp mb chips)", tok);
		if (opt_int(eq + 1, 0, INT_MAX, &v) != 0)
			return err_set(e, ERR_USAGE, "--plan %s: '%s' is not a whole number >= 0", tok, eq + 1);
		if (v == 0 && dst != &p->sp)
			return err_set(e, ERR_USAGE, "--plan %s: must be at least 1", tok);
		if (dst == &p->sp && v > 1)
			return err_set(e, ERR_USAGE, "--plan sp: 0 or 1");
		if (v > hi)
			return err_set(e, ERR_USAGE, "--plan %s: %d is more than %d", tok, v, hi);
		*dst = v;
	}
	return 0;
}

/* d, or 1 when not given. */
static long long deg(int d)
{
	return d > 0 ? d : 1;
}

int plan_limits(const plan *p, int micro_batch, char *why, int len)
{
	long long tp = deg(p->tp), pp = deg(p->pp), dp = deg(p->dp), cp = deg(p->cp), ep = deg(p->ep);
	long long mb = deg(p->micro_batch > 0 ? p->micro_batch : micro_batch), chips;
#define OUT(...) do { if (why) snprintf(why, (size_t)len, __VA_ARGS__); return -1; } while (0)
	/* The table below names the degree out of range; it is built only when one is (sweeps
	 * check every layout). */
	if (tp > LIM_CHIPS || pp > LIM_PP || dp > LIM_CHIPS || cp > LIM_CHIPS || ep > LIM_CHIPS ||
	    deg(p->vpp) > LIM_VPP || mb > LIM_MICRO_BATCH || p->chips > LIM_CHIPS) {
		const struct { const char *name; long long v, hi; } one[] = {
			{"tp", tp, LIM_CHIPS}, {"pp", pp, LIM_PP}, {"dp", dp, LIM_CHIPS}, {"cp", cp, LIM_CHIPS},
			{"ep", ep, LIM_CHIPS}, {"vpp", deg(p->vpp), LIM_VPP}, {"micro_batch", mb, LIM_MICRO_BATCH},
			{"chips", p->chips, LIM_CHIPS}};
		for (size_t i = 0; i < sizeof one / sizeof one[0]; i++)
			if (one[i].v > one[i].hi)
				OUT("the layout's %s %lld is more than %lld", one[i].name, one[i].v, one[i].hi);
	}
	/* Each partial product is at most 1e8 * 1e8 before it is checked: no overflow. */
	chips = tp * pp;
	if (chips <= LIM_CHIPS)
		chips *= cp;
	if (chips <= LIM_CHIPS)
		chips *= dp;
	if (chips > LIM_CHIPS)
		OUT("the layout has more than 100,000,000 chips (tp*pp*dp*cp)");
	if (tp * cp * ep > LIM_CHIPS)
		OUT("the layout's tp*cp*ep = %lld is more than %d chips in one expert group", tp * cp * ep,
		    LIM_CHIPS);
	if (dp * mb > LIM_BATCH)
		OUT("the layout's dp*micro_batch = %lld is more than %d sequences per step", dp * mb, LIM_BATCH);
#undef OUT
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
		long long inner = (long long)p->tp * p->pp * p->cp;
		p->dp = p->chips && p->chips % inner == 0 ? (int)(p->chips / inner) : 1;
	}
	if (!p->chips) {
		long long all = (long long)p->tp * p->pp * p->dp * p->cp;
		p->chips = all <= LIM_CHIPS ? (int)all : 0;   /* 0: plan_limits refuses it */
	}
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


/* "XpYd" at *t into np, nd; returns the end, or NULL. */
static const char *counts(const char *t, int *np, int *nd)
{
	char *end;
	long a = strtol(t, &end, 10), b;
	if (end == t || (*end != 'p' && *end != 'P') || a < 1 || a > LIM_CHIPS)
		return NULL;
	t = end + 1;
	b = strtol(t, &end, 10);
	if (end == t || (*end != 'd' && *end != 'D') || b < 1 || b > LIM_CHIPS)
		return NULL;
	*np = (int)a;
	*nd = (int)b;
	return end + 1;
}

int plan_disagg_parse(const char *text, plan_disagg *d, err *e)
{
	const char *t;
	char buf[PLAN_DISAGG_TEXT_MAX], *second;
	memset(d, 0, sizeof *d);
	if (!strcmp(text, "off") || !text[0])
		return 0;
	d->on = 1;
	if (!strcmp(text, "auto"))
		return 0;
	t = counts(text, &d->np, &d->nd);
	if (!t || (*t && *t != ':'))
		return err_set(e, ERR_USAGE, "disagg: '%s' is not off, auto, XpYd or XpYd:PLAN:PLAN (e.g. 3p1d:tp=2:tp=8)",
			       text);
	if (!*t)
		return 0;
	if (strlen(t + 1) >= sizeof buf)
		return err_set(e, ERR_USAGE, "disagg: too long");
	memcpy(buf, t + 1, strlen(t + 1) + 1);
	second = strchr(buf, ':');
	if (!second || !buf[0] || !second[1])
		return err_set(e, ERR_USAGE, "disagg: '%s': give both pools' layouts, PREFILL:DECODE (e.g. 3p1d:tp=2:tp=8)",
			       text);
	*second++ = '\0';
	if (plan_parse(buf, &d->prefill, e) != 0 || plan_parse(second, &d->decode, e) != 0)
		return ERR_USAGE;
	if (d->prefill.dp > 1 || d->decode.dp > 1 || d->prefill.chips || d->decode.chips)
		return err_set(e, ERR_USAGE, "disagg: a pool's layout is one replica: its count is XpYd, not dp or chips");
	plan_fill(&d->prefill);
	plan_fill(&d->decode);
	return 0;
}

void plan_disagg_format(const plan_disagg *d, char *buf, int len)
{
	char a[64], b[64];
	if (!d->on) {
		snprintf(buf, (size_t)len, "off");
		return;
	}
	if (!d->np) {
		snprintf(buf, (size_t)len, "auto");
		return;
	}
	if (!d->prefill.tp) {
		snprintf(buf, (size_t)len, "%dP%dD", d->np, d->nd);
		return;
	}
	plan_format(&d->prefill, a, sizeof a);
	plan_format(&d->decode, b, sizeof b);
	snprintf(buf, (size_t)len, "%dP%dD: prefill %s x%d, decode %s x%d", d->np, d->nd, a, d->np, b, d->nd);
}
