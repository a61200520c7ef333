/* plan: a parallel layout (tp, pp, vpp, dp, cp, ep, sp, micro-batch) and its parsing.
 *
 * Degrees count chips: tp·pp·dp·cp = chips (ep splits experts inside dp·cp·tp groups).
 * 0 in a field means "not given" until plan_fill sets defaults. Pure functions. */
#ifndef ROOFCOST_PLAN_H
#define ROOFCOST_PLAN_H

#include "base/err.h"

typedef struct plan {
	int tp, pp, vpp, dp, cp, ep;
	int sp;            /* sequence parallelism 0|1; -1 = not given (the framework's default) */
	int micro_batch;   /* sequences per micro-batch (train); 0 = the workload's */
	int chips;         /* total; 0 = tp·pp·dp·cp */
} plan;

/* Parses "tp=8,pp=4,dp=2,..." onto *p (keys: tp pp vpp dp cp ep sp mb|micro_batch chips).
 * Only the keys given are changed. Returns 0 or ERR_USAGE with e set. */
int plan_parse(const char *text, plan *p, err *e);

/* Sets unset degrees to 1 and chips to tp·pp·dp·cp when 0; when chips is given and dp is
 * not, dp = chips / (tp·pp·cp). */
void plan_fill(plan *p);

/* 0 if p (0 = not given, taken as 1) is within the ranges of lim.h: every degree, tp·pp·dp·cp
 * and tp·cp·ep at most LIM_CHIPS chips, dp·micro_batch at most LIM_BATCH sequences (micro_batch
 * is the workload's, used where p has none), vpp and micro_batch in range. Else -1 with the
 * reason in why (may be NULL). Layouts beyond are usage errors before any arithmetic. */
int plan_limits(const plan *p, int micro_batch, char *why, int len);

/* "tp=8 pp=4 dp=2" style text of p, for tables. */
void plan_format(const plan *p, char *buf, int len);

/* Disaggregated serving: a prefill pool and a decode pool of replicas (xPyD), each replica with
 * its own layout. */
typedef struct plan_disagg {
	int on;              /* 0: aggregated serving */
	int np, nd;          /* prefill and decode replicas; 0: searched */
	plan prefill, decode; /* one replica of each; tp 0: searched */
} plan_disagg;

enum { PLAN_DISAGG_TEXT_MAX = 128 };

/* Parses "off", "auto" (layouts and counts searched), "XpYd" (counts given, layouts searched)
 * or "XpYd:PLAN:PLAN" (both given; PLAN as plan_parse, e.g. 14p2d:tp=4:tp=8) into *d. Returns 0
 * or ERR_USAGE with e set ("disagg: ..."). */
int plan_disagg_parse(const char *text, plan_disagg *d, err *e);

/* "3P1D prefill tp=2 pp=1 dp=1 x3, decode tp=8 pp=1 dp=1 x1" style text (or "auto", "off"). */
void plan_disagg_format(const plan_disagg *d, char *buf, int len);

#endif
