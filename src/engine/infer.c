/* infer: serving under load (see infer.h). */
#include "engine/infer.h"
#include "engine/shard.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const double GiB = 1073741824.0;

double infer_normal_quantile(double q)
{
	/* Newton on Φ(z) = ½·erfc(-z/√2). */
	double z = 0;
	for (int i = 0; i < 60; i++) {
		double f = 0.5 * erfc(-z / sqrt(2.0)) - q;
		double d = exp(-z * z / 2) / sqrt(2 * 3.14159265358979323846);
		double step = f / d;
		z -= step;
		if (fabs(step) < 1e-12)
			break;
	}
	return z;
}

static roof_bound main_bound(const roof_sum *s)
{
	roof_bound b = ROOF_COMPUTE;
	for (int k = 1; k < 3; k++)
		if (s->t_bound[k] > s->t_bound[b])
			b = (roof_bound)k;
	return b;
}

static void add_comm(infer_step *st, const comm_cost *c, double count)
{
	st->t_comm += c->t * count;
	comm_split(c, c->t * count, st->comm_level);
}

static double act_bytes(const wl_workload *w)
{
	return (w->prec == HW_FP32 || w->prec == HW_TF32) ? 4 : 2;
}

/* Bytes of one tensor-parallel all-reduce over T tokens on chip s, and whether the stack runs it
 * with its peer-to-peer kernels (up to their largest message, allreduce_max) or the library's. */
static double ar_bytes(const hw_system *s, const wl_workload *w, double T)
{
	return T * w->net.hidden * act_bytes(w) * s->chip.ranks_per_chip;
}

static int ar_p2p(const wl_workload *w, double bytes)
{
	const fw_serve *f = &w->fw.serve;
	return f->allreduce == FW_AR_CUSTOM && (f->allreduce_max <= 0 || bytes <= f->allreduce_max);
}

/* A layout's collectives worked out once (comm_plan), for the many iterations a server's
 * search times: the tensor-parallel all-reduce, the expert all-to-all, the pipeline send. */
typedef struct step_plans {
	comm_plan ar, a2a, send;
} step_plans;

static void plans_init(step_plans *pl, const hw_system *s, const plan *p)
{
	comm_plan_init(&pl->ar, s, COMM_ALL_REDUCE, p->tp, 1);
	comm_plan_init(&pl->a2a, s, COMM_ALL_TO_ALL, p->ep, p->tp);
	comm_plan_init(&pl->send, s, COMM_SEND_RECV, 2, p->tp * p->dp);
}

/* Communication and runtime cost of one forward pass over T tokens on one stage (pl: the
 * layout's plans, or NULL). */
static void pass_extras(const hw_system *s, const wl_workload *w, const plan *p, const step_plans *pl,
			double T, infer_step *st)
{
	const nn_net *n = &w->net;
	double L = shard_layers_per_stage(n, p->pp);
	double ab = act_bytes(w);
	double moe = nn_moe_share(n);
	if (p->tp > 1 && T > 0) {
		/* Megatron-style TP: all-reduce after attention and after the FFN (MODEL.md), by the
		 * stack's peer-to-peer kernels up to their largest message, else the library. */
		double bytes = ar_bytes(s, w, T);
		int p2p = ar_p2p(w, bytes);
		comm_cost c = pl ? (p2p ? comm_plan_time_p2p(&pl->ar, bytes) : comm_plan_time(&pl->ar, bytes))
				 : p2p ? comm_allreduce_p2p(s, bytes, p->tp, 1)
				       : comm_time(s, COMM_ALL_REDUCE, bytes, p->tp, 1);
		add_comm(st, &c, 2 * L);
	}
	if (p->ep > 1 && moe > 0 && T > 0) {
		double bytes = T * n->experts_active * n->hidden * ab / p->tp;
		comm_cost c = pl ? comm_plan_time(&pl->a2a, bytes) : comm_time(s, COMM_ALL_TO_ALL, bytes, p->ep, p->tp);
		add_comm(st, &c, 2 * L * moe);
	}
	st->t_overhead = L * s->chip.layer_overhead;
}

/* Query tokens per decoding sequence in one pass: 1, or the draft's tokens and one more. */
static double decode_q(const wl_workload *w)
{
	return w->spec_kind != WL_SPEC_NONE ? 1.0 + w->spec_tokens : 1.0;
}

/* One stage: b decodes at ctx and ptok prefill tokens. */
static double stage_eval(const hw_system *s, const wl_workload *w, const plan *p, const step_plans *pl,
			 double b, double ctx, double ptok, infer_step *st)
{
	ops_list l;
	memset(st, 0, sizeof *st);
	ops_iter(w, p, b, ctx, ptok, &l);
	st->ops = roof_list(&s->chip, &l, NULL);
	st->t_ops = st->ops.t;
	pass_extras(s, w, p, pl, b * decode_q(w) + ptok, st);
	return st->t_ops + st->t_comm + st->t_overhead;
}

double infer_spec_gain(const wl_workload *w)
{
	double a = w->spec_acceptance;
	if (w->spec_kind == WL_SPEC_NONE || w->spec_tokens <= 0 || !(a > 0 && a < 1))
		return 1;
	return (1 - pow(a, w->spec_tokens + 1)) / (1 - a);
}

static void step_once(const hw_system *s, const wl_workload *w, const plan *p, const step_plans *pl,
		      double batch, double ctx, double prefill_tokens, infer_step *out);

/* The draft's proposals for `batch` sequences: spec_tokens decode passes of the draft network, or
 * of the target's MTP modules and LM head (on the last pipeline stage), on the same chips and
 * layout; the host work of the iteration is counted once, in the verify pass. The layout's
 * collective plans hold for the draft: its tp, ep and dp are the target's. */
static double draft_time(const hw_system *s, const wl_workload *w, const plan *p, const step_plans *pl,
			 double batch, double ctx)
{
	wl_workload *d = malloc(sizeof *d);
	infer_step st;
	plan dp = *p;
	double t;
	if (!d)
		return 0;
	*d = *w;
	d->spec_kind = WL_SPEC_NONE;
	if (w->spec_kind == WL_SPEC_NETWORK) {
		d->net = w->spec_draft;
	} else {
		d->net.layers = w->net.mtp_layers;
		d->net.dense_layers = 0;
		dp.pp = 1;
	}
	step_once(s, d, &dp, pl, batch, ctx, 0, &st);
	t = w->spec_tokens * (st.t - st.t_host);
	free(d);
	return t;
}

/* infer_step_eval with the layout's plans (pl; NULL: collectives worked out here). */
static void step_eval(const hw_system *s, const wl_workload *w, const plan *p, const step_plans *pl,
		      double batch, double ctx, double prefill_tokens, infer_step *out)
{
	double E, draft, tdec;
	step_once(s, w, p, pl, batch, ctx, prefill_tokens, out);
	if (w->spec_kind == WL_SPEC_NONE || batch <= 0)
		return;
	/* Speculative decoding: the draft's passes, then the target verifies them in one pass that
	 * advances each sequence E tokens on average. The servers count iterations that advance a
	 * sequence one token, so the decode part counts 1/E of itself and the prompts it carries
	 * their whole cost: t = t_prompts + (t_verify + t_draft) / E. */
	E = infer_spec_gain(w);
	draft = draft_time(s, w, p, pl, batch, ctx);
	if (prefill_tokens > 0) {
		infer_step d;
		step_once(s, w, p, pl, batch, ctx, 0, &d);
		tdec = d.t + draft;
	} else {
		tdec = out->t + draft;
	}
	out->t_draft = draft;
	out->tokens_per_pass = E;
	out->t = out->t + draft - tdec * (1 - 1 / E);
}

static void step_once(const hw_system *s, const wl_workload *w, const plan *p, const step_plans *pl,
		      double batch, double ctx, double prefill_tokens, infer_step *out)
{
	const fw_serve *f = &w->fw.serve;
	int m = p->pp > 1 ? (f->pp_microbatches > 0 ? f->pp_microbatches : p->pp) : 1;
	int M = m > p->pp ? m : p->pp;
	double mb = batch / m;
	double t = stage_eval(s, w, p, pl, mb, ctx, prefill_tokens, out);
	if (M > 1) {
		/* A pipeline keeps m micro-batches in flight: each stage runs them in turn, so every
		 * sequence advances one token per max(m, pp) stage times (Narayanan et al. SC21 §2.2);
		 * the micro-batch that carries the prompts paces its slot. */
		infer_step d;
		double td = prefill_tokens > 0 ? stage_eval(s, w, p, pl, mb, ctx, 0, &d) : t;
		double bytes = (mb * decode_q(w) + prefill_tokens) * w->net.hidden * act_bytes(w);
		comm_cost c = pl ? comm_plan_time(&pl->send, bytes) : comm_time(s, COMM_SEND_RECV, bytes, 2, p->tp * p->dp);
		t += (M - 1) * td + (p->pp - 1) * c.t;
		for (int l = 0; l < HW_LEVELS_MAX; l++)
			out->comm_level[l] += (p->pp - 1) * c.t_level[l];
	}
	/* Host work per iteration (scheduling, sampling, detokenizing), and per sequence it holds
	 * where the scheduler handles each one every step (its inputs rebuilt, its output
	 * processed): beside the device step when the scheduler overlaps it, else after it. */
	{
		double seqs = batch + (prefill_tokens > 0 ? prefill_tokens / (w->input_len > 1 ? w->input_len : 1) : 0);
		double host = w->iter_overhead + f->seq_overhead * seqs;
		if (f->overlap) {
			out->t_host = host > t ? host - t : 0;
			t += out->t_host;
		} else {
			out->t_host = host;
			t += host;
		}
	}
	out->t = t;
}

void infer_step_eval(const hw_system *s, const wl_workload *w, const plan *p, double batch,
		     double ctx, double prefill_tokens, infer_step *out)
{
	step_eval(s, w, p, NULL, batch, ctx, prefill_tokens, out);
}

/* Bins of the prompt-length law: each piece between two percentile points in LEN_SUB. */
enum { LEN_SUB = 3, LEN_BINS = (WL_LENGTH_POINTS - 1) * LEN_SUB };

/* What a layout's server shares across loads. */
typedef struct srv {
	const hw_system *s;
	const wl_workload *w;
	const plan *p;
	const fw_serve *f;
	double in, out, ctx;     /* prompt and output tokens; mean decode context */
	double budget;           /* tokens per iteration */
	int mixed, chunked, stat;
	int spread;              /* 1: request lengths spread about the means (open loop) */
	double cap;              /* sequences per replica */
	double z, q;             /* the SLO percentile: quantile, fraction */
	double evals;            /* iterations evaluated (for the cost of a search) */
	step_plans plans;        /* the layout's collectives */
	/* Prompt lengths about input_len ([infer] input_spread, the open loop; nlen 0: all at
	 * input_len): bins of weight lw and length lx (of input_len). A prompt x input_len long
	 * takes g(x) = (1 - fatt) x + fatt x² of a mean prompt's prefill work (fatt: the attention
	 * share of a prefill pass, quadratic in the length); gmean = E[g], cs2 = Var g / E[g]². */
	int nlen;
	double lw[LEN_BINS], lx[LEN_BINS];
	double fatt, gmean, cs2;
	double ca2;              /* open loop: arrivals at a replica, squared coefficient of variation */
	double win;              /* s: the harness's batching window (0: requests reach a replica one
				    by one); open loop only */
	double win_max;          /* requests that close a window early (0: none) */
} srv;

/* The steady state at one load, with what the percentiles need. */
typedef struct state {
	double X;                /* requests/s completed per replica */
	double Ns;               /* requests in the server */
	double bd;               /* decoding sequences */
	double tD, tP;           /* s: decode-only iteration, prompt-carrying iteration */
	double ptok;             /* prefill tokens of a prompt-carrying iteration */
	double kown;             /* iterations one prompt's prefill spans */
	double Rp, Rd;           /* prompt-carrying and decode-only iterations per second */
	double rho;              /* share of time in prompt-carrying iterations */
	double lag, wq, pq;      /* s: scheduler lag (its mean); mean prefill-slot wait, probability of waiting */
	double wfix;             /* s: the prefill-slot wait every request waits (a closed loop whose
				    prompts queue at the cap: FIFO behind the same queue) */
	/* The lag's law (mean `lag`): lag_base, and with probability lag_p a further lag_shift plus,
	 * in an open loop, a rest of an iteration uniform on [0, lag_u] (s). */
	double lag_p, lag_shift, lag_u;
	double ttft_s, tpot;     /* s: in-server means */
	double slope;            /* s per sequence: decode iteration against its batch */
	double cs2;              /* the prefill station's service time: squared coefficient of variation */
	double hold;             /* s: its mean (a prompt's hold of its prefill slot) */
	int sync;                /* 1: deterministic phases (one batch, or locked groups) */
	double groups;           /* prompt groups a cycle (locked phases) */
	/* A harness batcher (open loop): bn prompts reach the replica together once a period, in
	 * bpass passes (0: arrivals one by one); a request waits for its window to close, uniform
	 * on [0, hw], and for the passes of its batch before its own, uniform on [0, hx]. */
	double bn, bpass, hw, hx;
	infer_step dstep;
} state;

static double iter_t(srv *v, double b, double ptok, infer_step *st)
{
	infer_step tmp;
	v->evals += 1;
	step_eval(v->s, v->w, v->p, &v->plans, b, v->ctx, ptok, st ? st : &tmp);
	return st ? st->t : tmp.t;
}

/* Prompt tokens one iteration can take beside bd decodes. */
static double room_of(const srv *v, double bd)
{
	double room = v->mixed ? v->budget - bd : v->budget;
	if (v->f->max_prefill_seqs > 0 && room > v->f->max_prefill_seqs * v->in)
		room = v->f->max_prefill_seqs * v->in;
	return room < 1 ? 1 : room;
}

/* Prompts one iteration serves at once: a chunked scheduler fills its room, whole prompts
 * go as many as fit, at least one. */
static double slots_of(const srv *v, double room)
{
	double k = v->chunked ? room / v->in : floor(room / v->in);
	return k < 1 ? 1 : k;
}

/* Prefill tokens of a prompt-carrying iteration when x prompts arrive per iteration: every
 * iteration takes what waits, so one with prompts holds x / (1 - e^-x) of them (Poisson, at
 * least one), up to its room. */
static double group_tokens(const srv *v, double bd, double x)
{
	double room = room_of(v, bd), n = x > 1e-9 ? x / -expm1(-x) : 1, k = slots_of(v, room);
	if (n > k)
		n = k;
	return n * v->in < room || !v->chunked ? n * v->in : room;
}

/* Erlang C: the probability that an arrival waits, c servers (whole), offered load a < c. */
static double erlang_c(double c, double a)
{
	double B = 1;
	int n = (int)floor(c);
	if (n < 1)
		n = 1;
	if (a >= n)
		return 1;
	for (int k = 1; k <= n; k++)
		B = a * B / (k + a * B);
	return B / (1 - (a / n) * (1 - B));
}

/* The prefill station a prompt waits at: *k slots, each held *s_p s. Whole prompts: as many
 * slots as prompts fit a pass, each held the pass. A chunked scheduler fills its token budget
 * from the waiting prompts chunk by chunk, so its prompts share one server of the pass's room: a
 * prompt holds it for its share of a full pass (in / room passes). */
static void prefill_station(const srv *v, const state *st, double *k, double *s_p)
{
	double room = room_of(v, st->bd);
	if (v->chunked) {
		*k = 1;
		*s_p = st->tP * v->in / room;
	} else {
		*k = floor(slots_of(v, room));
		if (*k < 1)
			*k = 1;
		*s_p = st->tP;
	}
}

/* Queueing and latencies from the iteration times at completion rate X (per replica), with
 * `others` requests that can be ahead of a new one (N - 1 closed, ∞ open) and `busy` the
 * probability that an iteration runs when it arrives. */
static void latencies(const srv *v, state *st, double X, double others, double busy, int open)
{
	double k, s_p, a, share, C, tbar, work = open && v->nlen ? v->gmean : 1;
	prefill_station(v, st, &k, &s_p);
	/* Prompts of spread lengths (open loop): a prompt's mean work is gmean of the mean one's, and
	 * its service time spreads by cs2 (a pass of k whole prompts by cs2 / k: the sum of its k). */
	s_p *= work;
	st->cs2 = open && v->nlen ? (v->chunked ? v->cs2 : v->cs2 / k) : 0;
	st->hold = s_p;
	a = X * s_p;
	/* The open loop's searches may try a rate beyond the prefill slots (held just below them,
	 * where the wait is long enough to fail any limit); a closed loop's solver stays below its
	 * cap (closed_rate). */
	if (a > 0.999 * k)
		a = open ? 0.999 * k : k;
	st->X = X;
	/* Prompt-carrying iterations per second, and the share of time they take. */
	st->Rp = X * v->in / st->ptok;
	share = st->Rp * st->tP * work;
	if (share > (open ? 0.999 : 1))
		share = open ? 0.999 : 1;
	st->rho = share;
	st->Rd = (1 - share) / st->tD;
	st->tpot = v->mixed ? 1 / (st->Rp + st->Rd) : 1 / st->Rd;
	tbar = 1 / (st->Rp + st->Rd);
	/* Waiting for a prefill slot: k slots, each held s_p (prefill_station), as G/G/k: Erlang C
	 * for the chance to wait and the M/M/k wait times (c_a² + c_s²) / 2 (Allen-Cunneen; Kingman
	 * 1961 for one server, Whitt 1993 for k), c_a² that of the arrivals (1: Poisson; a closed
	 * loop's 1) and c_s² = st->cs2 (0: prompts of one length, half the M/M/k wait). In a closed loop only
	 * the N - 1 others can be ahead, and the one whose prompt runs in the iteration under way is
	 * waited for already (the lag below, which waits that iteration whole): N - 2 can queue
	 * beyond it. */
	C = erlang_c(k, a);
	if (!isinf(others))
		C *= others > 1 ? (others - 1) / others : 0;
	st->pq = C;
	st->wq = C > 0 ? (a < k ? C * s_p / (k - a) * 0.5 * ((open ? v->ca2 : 1) + st->cs2) : INFINITY) : 0;
	/* A new request waits for the iteration that runs (its rest, half of one on average, in an
	 * open loop; all of it in a closed loop, where requests arrive as one ends), one more with an
	 * overlap scheduler, which has planned the next iteration already. */
	st->lag = busy * ((open ? 0.5 : 1.0) + (v->f->overlap ? 1.0 : 0.0)) * tbar;
	if (open) {
		/* A Poisson arrival finds an iteration running with probability busy and waits the rest
		 * of it, uniform over its length, after the one an overlap scheduler has planned. */
		st->lag_p = busy;
		st->lag_shift = (v->f->overlap ? 1.0 : 0.0) * tbar;
		st->lag_u = tbar;
	} else {
		/* A closed loop's request arrives as another ends and waits the next iteration whole:
		 * one that carries prompts (tP) as often as those run among all, else a decode (tD). */
		st->lag_p = st->Rp / (st->Rp + st->Rd);
		st->lag_shift = busy * (st->tP - st->tD);
		st->lag_u = 0;
		if (!(st->lag_shift > 0))
			st->lag_p = st->lag_shift = 0;
	}
	if (open && st->bn > 0) {
		/* Batches from the harness, one a period: the scheduler takes a batch in its passes as
		 * it arrives (no queue for a slot while the passes fit the period); the batch comes at
		 * a random phase of the replica's iterations, during a decode one (the prompt passes
		 * follow the batches). Its prompts after the first pass wait for those before:
		 * uniform on [0, (passes - 1) tP]. */
		st->pq = st->wq = 0;
		st->lag = busy * (0.5 + (v->f->overlap ? 1.0 : 0.0)) * st->tD;
		st->lag_p = busy;
		st->lag_shift = (v->f->overlap ? 1.0 : 0.0) * st->tD;
		st->lag_u = st->tD;
		st->hx = (st->bpass - 1) * st->tP * st->kown;
	}
	st->wfix = 0;
	st->ttft_s = st->lag + st->wq + st->kown * st->tP + 0.5 * st->hx;
}

/* The iteration times at bd decodes with the prompts of a rate X. queue: the prompts waiting
 * for a slot (X times their wait in st, Little) are there at each pass boundary too, beside
 * those that arrived during the last pass: a queue fills the passes to their slots. */
static void iterations(srv *v, state *st, double bd, double X, int keep_step, int queue)
{
	double tbar, x;
	st->bd = bd;
	st->tD = iter_t(v, bd > 0 ? bd : 0, 0, keep_step ? &st->dstep : NULL);
	tbar = st->Rp + st->Rd > 0 ? 1 / (st->Rp + st->Rd) : st->tD;
	x = X * tbar;
	if (queue && isfinite(st->wq))
		x += X * (st->wq + st->wfix);
	if (st->bn > 0) {
		/* A batch from the harness: its prompts in as few passes as the room allows, shared
		 * equally. */
		double k = slots_of(v, room_of(v, bd));
		st->bpass = st->bn > k ? ceil(st->bn / k - 1e-9) : 1;
		st->ptok = st->bn * v->in / st->bpass;
	} else {
		st->ptok = group_tokens(v, bd, x);
	}
	st->kown = v->chunked && v->in > st->ptok ? ceil(v->in / st->ptok - 1e-9) : 1;
	st->tP = iter_t(v, v->mixed ? bd : 0, st->ptok, NULL);
}

/* A synchronized batch of n: its prompts in one pass, then output_len - 1 decode iterations. */
static void sync_state(srv *v, double n, state *st)
{
	memset(st, 0, sizeof *st);
	st->sync = 1;
	st->Ns = st->bd = n;
	st->ptok = n * v->in;
	st->kown = 1;
	st->tP = iter_t(v, 0, st->ptok, NULL);
	st->tD = iter_t(v, n, 0, &st->dstep);
	st->ttft_s = st->tP;
	st->tpot = st->tD;
	st->X = n / (st->tP + (v->out - 1) * st->tD);
	st->Rp = st->X / n;
	st->Rd = st->X * (v->out - 1) / n;
}

/* Prompts one pass takes beside bd decodes: a chunked scheduler fills its room, whole prompts
 * go as many as fit (less than one: a prompt spans passes). */
static double pass_prompts(const srv *v, double bd)
{
	double room = room_of(v, bd);
	return v->chunked ? room / v->in : floor(room / v->in);
}

/* A closed loop of n whose scheduler takes k >= 2 prompts a pass keeps the phases it started
 * with (requests of fixed lengths that arrive together finish together): G = ceil(n / k) groups
 * a pass apart, each prefilled in one pass beside the others' decodes (inflight) or alone
 * (prefill_first), whose decodes then run through the G - 1 other passes. Returns 0 when the
 * loop does not lock: one prompt a pass, or more passes than a request's output spans. */
static int group_state(srv *v, double n, state *st)
{
	double G = 1, g = n, k, extra, lag;
	for (int it = 0; it < 64; it++) {
		g = n / G;
		k = pass_prompts(v, v->mixed ? n - g : 0);
		if (k < 2)
			return 0;
		if (g <= k + 1e-9)
			break;
		G = ceil(n / k - 1e-9);
	}
	if (G - 1 > (v->out - 1) / 2)
		return 0;
	memset(st, 0, sizeof *st);
	st->sync = 1;
	st->groups = G;
	st->Ns = n;
	st->bd = n;
	st->ptok = g * v->in;
	st->kown = 1;
	st->tP = iter_t(v, v->mixed ? n - g : 0, st->ptok, NULL);
	st->tD = iter_t(v, n, 0, &st->dstep);
	/* A group's requests arrive as the iteration that finished them hands off: they wait for the
	 * one the scheduler has started (and the one it has planned, with overlap). */
	lag = (v->f->overlap ? 2.0 : 1.0) * st->tD;
	st->lag = lag;
	st->ttft_s = lag + st->tP;
	extra = v->mixed ? st->tP - st->tD : st->tP;
	st->tpot = v->out > 1 ? st->tD + (G - 1) * extra / (v->out - 1) : st->tD;
	st->X = n / (st->ttft_s + (v->out - 1) * st->tpot);
	st->Rp = st->X / g;
	st->Rd = (1 - st->Rp * st->tP) / st->tD;
	return 1;
}

/* The most requests/s the prompt-carrying iterations of st complete: k prompts a pass, each
 * holding its slot s_p, and no more prompt tokens than those iterations carry when they take all
 * the time. */
static double prefill_cap(const srv *v, const state *st)
{
	double k, s_p, slots, tokens = st->ptok / (v->in * st->tP);
	prefill_station(v, st, &k, &s_p);
	slots = k / s_p;
	return slots < tokens ? slots : tokens;
}

/* The completion rate X of a closed loop of Ns at the iteration times of st: Ns = X · latency(X)
 * (Little's law), the latency rising with X, by bisection below the prefill cap, where the wait
 * for a slot grows without bound. Where the latency at the cap is still shorter than Ns / X (no
 * slot wait: two in the server, or prompt-carrying iterations that take all the time before the
 * slots fill), the server completes the cap and the rest wait for a prefill slot, the wait Little's
 * law leaves (a closed loop's queue is bounded by its requests). */
static void closed_rate(srv *v, state *st, double Ns, double others, double busy)
{
	double cap = prefill_cap(v, st), lo = 0, hi = cap, L;
	for (int it = 0; it < 64 && hi - lo > 1e-12 * cap; it++) {
		double mid = 0.5 * (lo + hi);
		latencies(v, st, mid, others, busy, 0);
		if (Ns / (st->ttft_s + (v->out - 1) * st->tpot) > mid)
			lo = mid;
		else
			hi = mid;
	}
	latencies(v, st, lo, others, busy, 0);
	L = st->ttft_s + (v->out - 1) * st->tpot;
	if (lo > 0 && Ns / L > lo) {
		st->wfix = Ns / lo - L;
		st->ttft_s += st->wfix;
	}
}

enum { CLOSED_PASSES = 16 };

/* The decoding sequences the loop gives back at bd: bd' - bd, with bd' = X (output_len - 1) TPOT
 * (Little's law over the requests past their first token), X from closed_rate at the iteration
 * times of bd decodes (and the prompt groups of the rate found before, *X). */
static double closed_gap(srv *v, state *st, double Ns, double bd, double *X, int keep)
{
	double others = Ns - 1, busy = Ns - 1 < 1 ? (Ns - 1 > 0 ? Ns - 1 : 0) : 1;
	/* The prompt groups and the rate they allow, from no load up (a function of bd alone). */
	memset(st, 0, sizeof *st);
	st->Ns = Ns;
	*X = 0;
	for (int pass = 0; pass < CLOSED_PASSES; pass++) {
		double last = st->ptok;
		iterations(v, st, bd, *X, 0, 1);
		closed_rate(v, st, Ns, others, busy);
		*X = st->X;
		if (pass > 0 && fabs(st->ptok - last) <= 1e-4 * last)
			break;
	}
	if (keep)
		st->tD = iter_t(v, bd > 0 ? bd : 0, 0, &st->dstep);
	return st->X * (v->out - 1) * st->tpot - bd;
}

/* Closed loop with Ns requests in the server at spread phases: the decoding batch bd in [0, Ns]
 * at which the loop is consistent (closed_gap 0: at bd = 0 it gives back at least 0, at Ns at most
 * Ns), by fixed-point steps bd <- bd' while they close in, else by regula falsi (Illinois) on the
 * bracket the steps found: a root, where the steps alone would circle one (a shared token budget:
 * more decodes leave less room for prompts, which lets fewer requests reach their decodes). */
static void closed_state(srv *v, double Ns, state *st)
{
	double X = 0, tol = 1e-4 * (Ns > 1 ? Ns : 1), lo = 0, hi = Ns, glo = NAN, ghi, bd = Ns, g, last;
	memset(st, 0, sizeof *st);
	st->Ns = Ns;
	g = ghi = closed_gap(v, st, Ns, bd, &X, 0);
	last = fabs(g);
	for (int it = 0; it < 8 && fabs(g) > tol; it++) {
		double next = bd + g;
		if (next < lo || next > hi || (it > 0 && fabs(g) > 0.5 * last))
			break;
		last = fabs(g);
		bd = next;
		g = closed_gap(v, st, Ns, bd, &X, 0);
		if (g > 0) {
			lo = bd;
			glo = g;
		} else {
			hi = bd;
			ghi = g;
		}
	}
	if (fabs(g) > tol) {
		int side = 0;
		if (isnan(glo))
			glo = closed_gap(v, st, Ns, lo, &X, 0);
		for (int it = 0; it < 60 && hi - lo > tol && glo > 0 && ghi < 0; it++) {
			bd = (lo * ghi - hi * glo) / (ghi - glo);
			g = closed_gap(v, st, Ns, bd, &X, 0);
			if (fabs(g) <= tol)
				break;
			if (g > 0) {
				lo = bd;
				glo = g;
				if (side == 1)
					ghi *= 0.5;
				side = 1;
			} else {
				hi = bd;
				ghi = g;
				if (side == -1)
					glo *= 0.5;
				side = -1;
			}
		}
	}
	closed_gap(v, st, Ns, bd, &X, 1);
	st->Ns = Ns;
}

/* Open loop at λ per replica; returns 0 when the server cannot complete λ. */
static int open_state(srv *v, double lambda, state *st, double bd0)
{
	double bd = bd0 > 0 ? bd0 : 1;
	memset(st, 0, sizeof *st);
	if (v->win > 0 && lambda > 0) {
		/* A harness batcher: the requests of every replica arrive at it (L a second); it sends
		 * what came in a window of win (or the first win_max) to one replica, to each in turn,
		 * so a replica gets a batch of n = L win every n / lambda. A request waits for its
		 * window to close, uniform on [0, win], unless it came after an empty window (chance
		 * e^(-L win)) and went at once. */
		double dp = v->p->dp > 0 ? v->p->dp : 1, L = lambda * dp, n = L * v->win, span = v->win;
		if (v->win_max > 0 && n > v->win_max) {
			n = v->win_max;
			span = n / L;
		}
		st->bn = n > 1 ? n : 1;
		st->hw = span * -expm1(-L * v->win);
	}
	/* The running batch bd solves bd = F(bd) = λ (output_len - 1) TPOT(bd) (Little); each step
	 * b -> F(b) also brings the iteration mix (prompt-carrying iterations a second, read from the
	 * step before) to the new batch, so the pair converges together, the first step from a mix of
	 * none. Below the stable solution the steps rise towards it; near capacity F's slope nears 1
	 * and they crawl (linear convergence at the steps' ratio r), so three steps that shrink by a
	 * steady ratio are extrapolated to their limit (Aitken's Δ²), at most 20 of the last step's
	 * lengths on; steps that change sign (the mix overshooting) are halved. Done when the
	 * distance left, |step| / (1 - r), is within 1e-3 of the batch. */
	{
		double d1 = 0;
		int run = 0;
		for (int it = 0; it < 60; it++) {
			double occ, f, d2, tol, r = 0;
			iterations(v, st, bd, lambda, 0, 0);
			occ = lambda * (st->kown * st->tP + (v->out - 1) * st->tD);
			latencies(v, st, lambda, INFINITY, 1 - exp(-occ), 1);
			f = lambda * (v->out - 1) * st->tpot;
			if (!isfinite(f) || f > 2 * v->cap + 16)
				return 0; /* the decodes cannot keep up */
			if (it == 0)
				continue; /* the mix of no step before: F again, from this one's */
			d2 = f - bd;
			tol = 1e-3 * (f > 1 ? f : 1);
			if (run >= 1 && d1 != 0)
				r = d2 / d1;
			if (fabs(d2) <= tol * (r > 0 && r < 1 ? 1 - r : 1))
				break;
			if (run >= 1 && r < 0) {
				/* The steps changed sign: halve this one. */
				run = 0;
				bd += 0.5 * d2;
				continue;
			}
			if (run >= 2 && r > 0 && r < 1) {
				double jump = d2 * r / (1 - r);
				if (fabs(jump) > 20 * fabs(d2))
					jump = 20 * fabs(d2) * (jump > 0 ? 1 : -1);
				run = 0;
				bd = f + jump > 1e-9 ? f + jump : 1e-9;
				continue;
			}
			d1 = d2;
			run++;
			bd = f;
		}
	}
	if (lambda * st->tP * v->in / st->ptok * (v->nlen ? v->gmean : 1) >= 1)
		return 0; /* prompt-carrying iterations would take all the time */
	st->Ns = lambda * (st->ttft_s + (v->out - 1) * st->tpot);
	iterations(v, st, st->bd, lambda, 1, 0);
	{
		double b2 = st->bd / 2 > 1 ? st->bd / 2 : 1;
		st->slope = st->bd > b2 ? (st->tD - iter_t(v, b2, 0, NULL)) / (st->bd - b2) : 0;
	}
	latencies(v, st, lambda, INFINITY, 1 - exp(-st->Ns), 1);
	return 1;
}

/* log Φ(x), without underflow in the far left tail. */
static double log_phi_cdf(double x)
{
	if (x > -30)
		return log(0.5 * erfc(-x / sqrt(2.0)));
	return -0.5 * x * x - log(-x) - 0.5 * log(2 * 3.14159265358979323846);
}

/* P(T > t) for T = N(mu, sd²) + (0 w.p. 1 - p, Exp(theta) w.p. p) (exponentially modified
 * Gaussian with an atom). */
static double emg_survival(double t, double mu, double sd, double p, double theta)
{
	double u, q;
	if (sd <= 0) {
		if (t < mu)
			return 1;
		return p > 0 ? p * exp(-theta * (t - mu)) : 0;
	}
	u = (t - mu) / sd;
	q = 0.5 * erfc(u / sqrt(2.0));
	if (p > 0)
		q += p * exp(-theta * (t - mu) + 0.5 * theta * theta * sd * sd + log_phi_cdf(u - theta * sd));
	return q;
}

static double emg_quantile(double qq, double mu, double sd, double p, double theta)
{
	double lo = mu - 8 * sd, hi = mu + 8 * sd + (p > 0 ? 50 / theta : 0) + 1e-12;
	if (sd <= 0) {
		if (p <= 1 - qq)
			return mu;
		return mu + log(p / (1 - qq)) / theta;
	}
	for (int i = 0; i < 60; i++) {
		double mid = 0.5 * (lo + hi);
		if (emg_survival(mid, mu, sd, p, theta) > 1 - qq)
			lo = mid;
		else
			hi = mid;
	}
	return 0.5 * (lo + hi);
}

/* A request's TTFT as one law: a fixed part mu with a normal spread sd; with probability b a
 * further c and, in an open loop, the rest of the iteration that runs when the request arrives
 * (uniform on [0, tau]: an arrival at a random time within an iteration of that length); then the
 * waits (prefill slot, admission), none with probability 1 - p, else exponential of rate theta.
 * tau > 0 only with sd = 0 (the open loop). */
typedef struct ttft_law {
	double mu, sd, b, c, tau, p, theta;
	double ua, ub;            /* s: two waits every request has, uniform on [0, ua] and [0, ub]
				     (a harness batcher's window, the passes of its batch before the
				     request's own); 0: none */
} ttft_law;

/* P(mu + W > t) for the waits W alone (atom at 0, exponential tail). */
static double waits_survival(double x, double p, double theta)
{
	if (x < 0)
		return 1;
	return p > 0 ? p * exp(-theta * x) : 0;
}

/* E over U in [0, 1] of P(W > y - U tau): the waits after a uniform residual. */
static double resid_survival(double y, double tau, double p, double theta)
{
	double s;
	if (y <= 0)
		return 1;
	if (tau <= 0)
		return waits_survival(y, p, theta);
	if (y >= tau)
		return p > 0 ? p * (exp(-theta * (y - tau)) - exp(-theta * y)) / (theta * tau) : 0;
	s = 1 - y / tau;
	if (p > 0)
		s += p * -expm1(-theta * y) / (theta * tau);
	return s;
}

static double part_survival(const ttft_law *l, double t, double shift, double tau)
{
	if (tau > 0)
		return resid_survival(t - l->mu - shift, tau, l->p, l->theta);
	return emg_survival(t, l->mu + shift, l->sd, l->p, l->theta);
}

static double base_survival(const ttft_law *l, double t)
{
	double s = part_survival(l, t, 0, 0);
	if (l->b > 0)
		s = (1 - l->b) * s + l->b * part_survival(l, t, l->c, l->tau);
	return s;
}

enum { UNIFORM_NODES = 32 };

/* P(T > t) of the law: base_survival averaged over the sum S of the two uniform waits, whose
 * density is the trapezoid of U[0, a] + U[0, b] (a <= b: rising to 1 / b over [0, a], flat to b,
 * falling to 0 at a + b), by the midpoint rule on UNIFORM_NODES points. Monotone in t. */
static double law_survival(const ttft_law *l, double t)
{
	double a = fmin(l->ua, l->ub), b = fmax(l->ua, l->ub), h, sum = 0, wsum = 0;
	if (b <= 0)
		return base_survival(l, t);
	h = (a + b) / UNIFORM_NODES;
	for (int i = 0; i < UNIFORM_NODES; i++) {
		double x = (i + 0.5) * h, f = a <= 0 ? 1 : x < a ? x / a : x <= b ? 1 : (a + b - x) / a;
		sum += f * base_survival(l, t - x);
		wsum += f;
	}
	return sum / wsum;
}

static double law_quantile(const ttft_law *l, double q)
{
	double lo = l->mu - 8 * l->sd, hi;
	if (l->b <= 0 && l->ua <= 0 && l->ub <= 0)
		return emg_quantile(q, l->mu, l->sd, l->p, l->theta);
	hi = l->mu + 8 * l->sd + l->c + l->tau + l->ua + l->ub + (l->p > 0 ? 50 / l->theta : 0) + 1e-12;
	for (int i = 0; i < 80; i++) {
		double mid = 0.5 * (lo + hi), lo0 = lo, hi0 = hi;
		if (law_survival(l, mid) > 1 - q)
			lo = mid;
		else
			hi = mid;
		if (lo == lo0 && hi == hi0)
			break; /* a fixed point: the steps left would repeat this one */
	}
	return 0.5 * (lo + hi);
}

/* TTFT: fixed part mu (with a normal spread sd), the lag of state st (its law: lag_p, lag_shift,
 * lag_u; NULL: none), plus waits of mean W with P(wait) = p. The mean and the percentiles are
 * those of this one law. */
static void ttft_law_of(const state *st, double mu, double sd, double p, double W, double rare, ttft_law *out)
{
	ttft_law l;
	double lag = st ? st->lag : 0;
	l.sd = sd;
	l.b = st && st->lag_p > 0 ? st->lag_p : 0;
	/* A part rarer than the percentiles the law reports resolve (rare: 1.5 times the share above
	 * the highest of them) is carried at its mean by every request: its own tail lies beyond p99,
	 * where a law of a rare long wait has its mean above its percentiles (an arrival that finds
	 * a prompt pass under way one time in a few hundred). */
	if (l.b < rare)
		l.b = 0;
	if (p < rare) {
		mu += W;
		p = W = 0;
	}
	l.c = l.b > 0 ? st->lag_shift : 0;
	l.tau = l.b > 0 ? st->lag_u : 0;
	l.mu = mu + lag - l.b * (l.c + 0.5 * l.tau); /* the lag's part every request waits */
	if (l.mu < mu)
		l.mu = mu;
	l.theta = p > 0 && W > 0 ? p / W : 0;
	l.p = l.theta > 0 ? p : 0;
	l.ua = st ? st->hw : 0;
	l.ub = st ? st->hx : 0;
	*out = l;
}

/* The mean of the law's uniform waits (ttft_law ua, ub). */
static double uniform_waits(const state *st)
{
	return st ? 0.5 * (st->hw + st->hx) : 0;
}

/* What the TTFT law folds in at its mean (ttft_law_of): 1.5 times the share above the highest
 * percentile reported (p99, or the SLO's where higher). */
static double ttft_rare(const srv *v)
{
	return 1.5 * (1 - (v->q > 0.99 ? v->q : 0.99));
}

/* The TTFT at the SLO percentile alone (ttft_dist's d->slo). */
static double ttft_slo(const srv *v, const state *st, double mu, double sd, double p, double W)
{
	ttft_law l;
	ttft_law_of(st, mu, sd, p, W, ttft_rare(v), &l);
	return law_quantile(&l, v->q);
}

static void ttft_dist(const srv *v, const state *st, double mu, double sd, double p, double W, infer_dist *d)
{
	ttft_law l;
	double lag = st ? st->lag : 0;
	ttft_law_of(st, mu, sd, p, W, ttft_rare(v), &l);
	d->mean = mu + lag + W + uniform_waits(st);
	d->p50 = law_quantile(&l, 0.5);
	d->p90 = law_quantile(&l, 0.9);
	d->p99 = law_quantile(&l, 0.99);
	d->slo = v->q == 0.99 ? d->p99 : v->q == 0.9 ? d->p90 : v->q == 0.5 ? d->p50 : law_quantile(&l, v->q);
}

/* A prompt x input_len long, from its first pass to its last (kown tP at x = 1). Chunked and
 * longer than a pass's room, it spans ceil(x in / room) passes of the room (their time in
 * proportion to their tokens), each slower by its attention over a longer context
 * (1 - fatt + fatt x); else it rides one pass, longer by its work beyond a mean prompt's
 * ((g(x) - 1) in / ptok of the pass). */
static double own_time(const srv *v, const state *st, double x)
{
	double room = room_of(v, st->bd), g = (1 - v->fatt) * x + v->fatt * x * x;
	if (v->chunked && x * v->in > room) {
		double n = ceil(x * v->in / room - 1e-9);
		return n * st->tP * room / st->ptok * (1 - v->fatt + v->fatt * x);
	}
	return st->tP * (1 + (g - 1) * v->in / st->ptok);
}

/* P(T > t) of the mixture of laws l (weights w, n of them). */
static double mix_law_survival(const ttft_law *l, const double *w, int n, double t)
{
	double s = 0;
	for (int i = 0; i < n; i++)
		s += w[i] * law_survival(&l[i], t);
	return s;
}

static double mix_law_quantile(const ttft_law *l, const double *w, int n, double q)
{
	double lo = INFINITY, hi = -INFINITY;
	for (int i = 0; i < n; i++) {
		double a = l[i].mu - 8 * l[i].sd;
		double b = l[i].mu + 8 * l[i].sd + l[i].c + l[i].tau + l[i].ua + l[i].ub + (l[i].p > 0 ? 50 / l[i].theta : 0) +
			   1e-12;
		lo = a < lo ? a : lo;
		hi = b > hi ? b : hi;
	}
	for (int i = 0; i < 80; i++) {
		double mid = 0.5 * (lo + hi), lo0 = lo, hi0 = hi;
		if (mix_law_survival(l, w, n, mid) > 1 - q)
			lo = mid;
		else
			hi = mid;
		if (lo == lo0 && hi == hi0)
			break;
	}
	return 0.5 * (lo + hi);
}

/* The open loop's TTFT when prompt lengths spread (v->nlen bins): each bin's law (ttft_law_of)
 * at its own prefill time (own_time), the lag and the waits (P(wait) p, mean W) shared, since a
 * FIFO queue's wait does not depend on the prompt that waits; the mean and every percentile are
 * those of the mixture. */
static void ttft_mix(const srv *v, const state *st, double p, double W, infer_dist *d)
{
	ttft_law l[LEN_BINS];
	double mean = 0;
	for (int i = 0; i < v->nlen; i++) {
		double mu = own_time(v, st, v->lx[i]);
		mean += v->lw[i] * mu;
		ttft_law_of(st, mu, 0, p, W, ttft_rare(v), &l[i]);
	}
	d->mean = mean + st->lag + W + uniform_waits(st);
	d->p50 = mix_law_quantile(l, v->lw, v->nlen, 0.5);
	d->p90 = mix_law_quantile(l, v->lw, v->nlen, 0.9);
	d->p99 = mix_law_quantile(l, v->lw, v->nlen, 0.99);
	d->slo = v->q == 0.99 ? d->p99 : v->q == 0.9 ? d->p90 : v->q == 0.5 ? d->p50
		 : mix_law_quantile(l, v->lw, v->nlen, v->q);
}

/* The q-quantile of a Poisson count of mean m: the least k whose distribution function
 * reaches q. */
static double poisson_q(double q, double m)
{
	double pmf = exp(-m), cdf = pmf;
	int k = 0;
	while (cdf < q && k < 100000) {
		k++;
		pmf *= m / k;
		cdf += pmf;
	}
	return k;
}

/* count_q's b for prompt-carrying iterations that come once a period (a harness batcher's),
 * and the chance below which such an iteration is carried at its mean: 1.5 times the share
 * above p99 (ttft_rare's). */
#define COUNT_PERIODIC (-2.0)
#define COUNT_RARE 0.015

/* The q-quantile of the count of prefill-carrying iterations among a request's n, of mean mk:
 * binomial when each carries prompts with probability b (an inflight scheduler puts them beside
 * the decodes: at most n, none spread when every one does), else Poisson (b < 0: prefill_first,
 * whose prompt passes stall the decodes between their own). Cornish-Fisher while the count
 * spreads over a few units or more, or while prompt-carrying iterations are the rarer kind (its
 * skew keeps every quantile from the median up above the mean); where nearly every iteration carries
 * prompts and the count hardly spreads, exactly, by the Poisson count of those that do not. */
static double count_q(double q, double mk, double n, double b)
{
	double var = b >= 0 ? mk * (1 - b) : mk, z, k;
	if (mk <= 0)
		return 0;
	if (b < -1.5) {
		/* Periodic (COUNT_PERIODIC): a window of the request's length holds floor(mk) or
		 * ceil(mk) of them, the latter with chance frac(mk). One rarer than p99 resolves
		 * (COUNT_RARE) is carried at its mean, as the TTFT law carries a rare part
		 * (ttft_law_of), so that no percentile from the median up falls below the mean. */
		double f = mk - floor(mk);
		if (f < COUNT_RARE && q >= 0.5)
			return mk;
		return q < 1 - f ? floor(mk) : ceil(mk);
	}
	if (var < 9 && b > 0.5) {
		k = n - poisson_q(1 - q, n - mk);
	} else {
		z = infer_normal_quantile(q);
		k = mk + z * sqrt(var) + (z * z - 1) * (b >= 0 ? 1 - 2 * b : 1) / 6;
	}
	if (k < 0)
		k = 0;
	if (b >= 0 && k > n)
		k = n;
	return k;
}

/* A request's TPOT at quantile q: tD plus `extra` per prefill-carrying iteration among its
 * output_len - 1 (count_q), and a normal spread sd from its batch; the two deviations add in
 * quadrature where they lie on the same side of the mean (independent spreads), else in sum, so
 * that the quantile rises with q and with each spread. */
static double tpot_q(double q, double mean, double extra, double mk, double n, double b, double sd)
{
	double d1 = n > 0 ? extra * (count_q(q, mk, n, b) - mk) / n : 0, d2 = q == 0.5 ? 0 : infer_normal_quantile(q) * sd;
	if (d1 * d2 > 0)
		return mean + (d2 > 0 ? 1 : -1) * sqrt(d1 * d1 + d2 * d2);
	return mean + d1 + d2;
}

/* Requests whose output lengths spread about the mean: the mixture, over a request's decode
 * iterations m, of normal spreads about the mean TPOT with variance a / m (the prompts that
 * share its iterations, averaged over m of them) plus b · g(m / M) (the running batch it sees,
 * averaged over its life; M the mean of m). */
enum { MIX_BINS = 64 };

typedef struct tpot_mix {
	int n;
	double w[MIX_BINS], sd[MIX_BINS];
} tpot_mix;

/* The variance share of a stationary occupancy with autocovariance e^(-τ/S) that survives an
 * average over a window x·S: (2 / x²)·(x - 1 + e^-x); 1 at x = 0, 0.736 at x = 1. */
static double window_share(double x)
{
	if (x < 1e-3)
		return 1 - x / 3 + x * x / 12;
	return 2 * (x + expm1(-x)) / (x * x);
}

/* Geometric m >= 1 with mean M (the maximum-entropy law of a positive count with a given mean),
 * in bins one count wide up to 2, then 40 % wide, the tail past 1e-9 in the last. */
static void mix_init(tpot_mix *x, double M, double a, double b)
{
	double lq, lo = 1;
	x->n = 0;
	if (M <= 1) {
		/* Every request decodes once after its first token. */
		x->n = 1;
		x->w[0] = 1;
		x->sd[0] = sqrt(a + b * window_share(1));
		return;
	}
	lq = log1p(-1 / M);
	while (x->n < MIX_BINS) {
		double hi = lo + floor(lo / 2.5), left = exp((lo - 1) * lq), m, mass;
		if (x->n == MIX_BINS - 1 || left < 1e-9) {
			m = lo - 1 + M;  /* the mean of m given m >= lo */
			mass = left;
		} else {
			m = 0.5 * (lo + hi);
			mass = left - exp(hi * lq);
		}
		x->w[x->n] = mass;
		x->sd[x->n] = sqrt(a / m + b * window_share(m / M));
		x->n++;
		if (mass == left)
			break;
		lo = hi + 1;
	}
}

/* P(T - mean > d) of the mixture (d >= 0), and its density in *dens. Components more than
 * 7.5 sd below d add under 1e-13. */
static double mix_survival(const tpot_mix *x, double d, double *dens)
{
	double sv = 0, f = 0;
	for (int i = 0; i < x->n; i++) {
		double u = x->sd[i] > 0 ? d / x->sd[i] : INFINITY;
		if (u > 7.5)
			continue;
		sv += x->w[i] * 0.5 * erfc(u / sqrt(2.0));
		f += x->w[i] * exp(-0.5 * u * u) / (x->sd[i] * sqrt(2 * 3.14159265358979323846));
	}
	*dens = f;
	return sv;
}

/* The q-quantile of the mixture less its mean (every component is centred on the mean):
 * Newton on log P(T - mean > d) = log(1 - q), kept inside a bracket that halves when a step
 * leaves it. */
static double mix_quantile(const tpot_mix *x, double q)
{
	double lo = 0, hi = 0, d, target;
	if (q < 0.5)
		return -mix_quantile(x, 1 - q);
	for (int i = 0; i < x->n; i++)
		if (x->sd[i] > hi)
			hi = x->sd[i];
	hi *= infer_normal_quantile(q); /* no component exceeds its own q-quantile there */
	target = log(1 - q);
	d = 0.5 * hi;
	for (int it = 0; it < 60 && hi > 0; it++) {
		double f, sv = mix_survival(x, d, &f), g = log(sv) - target, next;
		if (g > 0)
			lo = d;
		else
			hi = d;
		next = sv > 0 && f > 0 ? d + g * sv / f : 0.5 * (lo + hi);
		if (!(next > lo && next < hi))
			next = 0.5 * (lo + hi);
		if (fabs(next - d) <= 1e-7 * d || hi - lo <= 1e-7 * hi)
			return next;
		d = next;
	}
	return d;
}

double infer_tpot_spread(double M, double a, double b, double q)
{
	tpot_mix x;
	mix_init(&x, M, a, b);
	return mix_quantile(&x, q);
}

double infer_prefill_var(double extra, double per, double nc, double cs2, int mixed, int poisson)
{
	double bern = extra * extra * per * (mixed ? 1 - per : 1);
	if (!(per > 0) || !(extra > 0))
		return 0;
	if (nc < 1)
		nc = 1;
	if (mixed && poisson && per < 1)
		return extra * extra * per * (1 + cs2) / nc;
	return bern + extra * extra * per * cs2 / nc;
}

/* sd: the running batch's spread over a request's life (open loop); spread: output lengths
 * spread about the mean (geometric), else every request runs output_len - 1 iterations. */
static void tpot_dist(const srv *v, const state *st, double sd, int spread, infer_dist *d)
{
	double n = v->out - 1;
	double extra = v->mixed ? st->tP - st->tD : st->tP;
	double per = v->mixed ? st->Rp / (st->Rp + st->Rd) : st->Rp / st->Rd;
	double mk = st->sync ? 0 : per * n, b = st->bn > 0 ? COUNT_PERIODIC : v->mixed ? per : -1;
	/* The prompt work an iteration carries (infer_prefill_var): whole prompts arriving one by
	 * one come a Poisson number at a time, x / (1 - e^-x) in a carrying iteration while the room
	 * holds them, and prompts of spread lengths (input_spread) add their own variance, cs2 of a
	 * prompt's work. A harness batch (bn) comes whole, once a period: the Bernoulli count of
	 * carrying iterations alone (ab); so does a chunked pass whose budget the waiting prompts
	 * fill (ptok at the room), whose work neither the count nor the lengths spread. */
	int full = v->chunked && st->ptok >= room_of(v, st->bd) * (1 - 1e-9);
	double nc = v->in > 0 ? st->ptok / v->in : 1, cs2 = v->nlen && !full ? v->cs2 : 0;
	double ab = st->sync ? 0 : extra * extra * per * (v->mixed ? 1 - per : 1), av = ab;
	if (!st->sync && st->bn <= 0) {
		int poisson = 0;
		if (per > 0 && per < 1 && v->mixed && !full) {
			double x = -log1p(-per);
			poisson = nc >= x / -expm1(-x) * (1 - 1e-9);
		}
		av = infer_prefill_var(extra, per, nc, cs2, v->mixed, poisson);
	}
	d->mean = st->tpot;
	if (spread && n >= 1 && !st->sync) {
		tpot_mix x;
		mix_init(&x, n, av, st->slope * st->slope * st->bd);
		d->p50 = st->tpot;
		d->p90 = st->tpot + mix_quantile(&x, 0.9);
		d->p99 = st->tpot + mix_quantile(&x, 0.99);
		d->slo = v->q == 0.99 ? d->p99 : v->q == 0.9 ? d->p90 : st->tpot + mix_quantile(&x, v->q);
		return;
	}
	/* The count of carrying iterations among a request's is tpot_q's; what the carrying ones
	 * spread beyond it joins the batch's spread. */
	if (av > ab && n >= 1)
		sd = sqrt(sd * sd + (av - ab) / n);
	d->p50 = tpot_q(0.5, st->tpot, extra, mk, n, b, sd);
	d->p90 = tpot_q(0.9, st->tpot, extra, mk, n, b, sd);
	d->p99 = tpot_q(0.99, st->tpot, extra, mk, n, b, sd);
	d->slo = tpot_q(v->q, st->tpot, extra, mk, n, b, sd);
}

/* Fills the load point from a state: per replica ns running of N requests (closed loop). */
static void fill_load(const srv *v, const state *st, double N, int open, infer_load *o)
{
	int dp = v->p->dp > 0 ? v->p->dp : 1;
	double wait = 0, wsd = 0, p = st->pq, W = st->wq;
	memset(o, 0, sizeof *o);
	o->running = st->Ns;
	o->synchronized = st->sync;
	o->groups = st->sync ? (st->groups > 0 ? st->groups : 1) : 0;
	o->stable = 1;
	o->prefill_cs2 = st->cs2;
	o->prefill_hold = st->hold;
	if (!open && N > st->Ns + 1e-9) {
		/* FIFO for a free slot: the (N - cap) completions ahead, each gap 1/X. */
		double k = N - st->Ns;
		wait = k / st->X;
		wsd = sqrt(k) / st->X;
		o->waiting = k;
		o->saturated = 1;
	}
	o->wait = wait;
	/* The open loop's TTFT joins the admission wait: open_load writes it. */
	if (!open)
		ttft_dist(v, st, st->kown * st->tP + st->wfix + wait, wsd, p, W, &o->ttft);
	tpot_dist(v, st, open ? st->slope * sqrt(2 * st->bd / 3) : 0, open && v->spread, &o->tpot);
	o->requests_per_s = dp * st->X;
	o->tokens_per_s = o->requests_per_s * v->out;
	o->tokens_per_s_per_chip = o->tokens_per_s / v->p->chips;
	o->tokens_per_s_per_user = st->tpot > 0 ? 1 / st->tpot : 0;
	o->iter_decode = st->tD;
	o->iter_prefill = st->tP;
	o->prefill_share = st->Rp + st->Rd > 0 ? st->Rp / (st->Rp + st->Rd) : 0;
	o->prompts_per_iter = st->ptok / v->in;
	o->prefill_wait = st->wq + st->wfix;
	if (v->p->tp > 1 && v->f->allreduce == FW_AR_CUSTOM) {
		/* Where the stack's peer-to-peer all-reduce gives way to the library's (a step in the
		 * iteration time the curve shows, from the framework file's allreduce_max). */
		int m = v->p->pp > 1 ? (v->f->pp_microbatches > 0 ? v->f->pp_microbatches : v->p->pp) : 1;
		double pre = (v->mixed ? st->bd : 0) / m + st->ptok, dec = st->bd / m;
		o->allreduce_library = (st->ptok > 0 && !ar_p2p(v->w, ar_bytes(v->s, v->w, pre)) ? 1 : 0) |
				       (!ar_p2p(v->w, ar_bytes(v->s, v->w, dec)) ? 2 : 0);
	}
}

/* Synchronized when the scheduler takes all n prompts in one pass (or is static). */
static int takes_all(const srv *v, double n)
{
	if (v->stat || n <= 1)
		return 1;
	if (v->f->max_prefill_seqs > 0 && n > v->f->max_prefill_seqs)
		return 0;
	return n * v->in <= v->budget;
}

/* The closed loop with N requests in flight per replica. queued: the requests wait in the
 * server's queue and its scheduler admits them (offline, the most the server completes), so a
 * batch it takes together stays together; else each comes from its own client. */
static void closed_load(srv *v, double N, int queued, infer_load *o, state *st)
{
	double ns = N < v->cap ? N : v->cap;
	if (ns < 1e-9)
		ns = 1e-9;
	if (queued ? takes_all(v, ns) : v->stat || ns <= 1)
		sync_state(v, ns, st);
	else if (!queued || !group_state(v, ns, st))
		closed_state(v, ns, st);
	fill_load(v, st, N, 0, o);
	o->load = N * (v->p->dp > 0 ? v->p->dp : 1);
}

/* The open loop at λ per replica: admission over cap slots (Erlang C, deterministic service:
 * the M/M/c wait times c_a² / 2, half for Poisson arrivals), then the server. Returns 0 if
 * unstable. */
static int open_load(srv *v, double lambda, infer_load *o, state *st, double bd0)
{
	double R, a, C, W2;
	if (!open_state(v, lambda, st, bd0)) {
		memset(o, 0, sizeof *o);
		o->load = lambda * v->p->dp;
		return 0;
	}
	R = st->ttft_s + (v->out - 1) * st->tpot;
	a = lambda * R;
	if (a >= floor(v->cap > 1 ? v->cap : 1)) {
		memset(o, 0, sizeof *o);
		o->load = lambda * v->p->dp;
		return 0;
	}
	C = erlang_c(v->cap, a);
	W2 = C * R / (floor(v->cap) - a) * 0.5 * v->ca2;
	fill_load(v, st, 0, 1, o);
	{
		/* Both waits as one atom-and-exponential with their total mean. */
		double p = 1 - (1 - st->pq) * (1 - C), W = st->wq + W2;
		if (v->nlen) {
			infer_dist u;
			ttft_mix(v, st, p, W, &o->ttft);
			o->ttft_unqueued = o->ttft.slo;
			if (W2 > 0) {
				ttft_mix(v, st, st->pq, st->wq, &u);
				o->ttft_unqueued = u.slo;
			}
		} else {
			ttft_dist(v, st, st->kown * st->tP, 0, p, W, &o->ttft);
			o->ttft_unqueued = o->ttft.slo;
			if (W2 > 0)
				o->ttft_unqueued = ttft_slo(v, st, st->kown * st->tP, 0, st->pq, st->wq);
		}
	}
	o->wait = W2;
	o->waiting = lambda * W2;
	o->running = a < v->cap ? a : v->cap;
	o->saturated = C > 0.5;
	o->load = lambda * v->p->dp;
	return 1;
}

/* KV room and the running-batch cap; returns 0 (infeasible, reason set) or 1. */
static int server_cap(srv *v, infer_result *r)
{
	const wl_workload *w = v->w;
	const hw_chip *c = &v->s->chip;
	const fw_serve *f = v->f;
	mem_use none = mem_infer(w, v->p, 0, 0, v->budget);
	double kvt = mem_infer(w, v->p, 1, 1, 0).kv_cache;  /* B per token per chip */
	double tok = f->kv_alloc == FW_KV_COMPLETION || f->kv_block == 0 ? v->in + v->out : v->in + v->out / 2;
	double fixed = none.total + f->reserve, pool, per;
	int dp = v->p->dp > 0 ? v->p->dp : 1;
	if (f->kv_block > 0)
		tok = ceil(tok / f->kv_block) * f->kv_block;
	/* A windowed layer keeps at most its window of a request's tokens (mem_infer). */
	per = kvt > 0 ? mem_infer(w, v->p, 1, tok, 0).kv_cache : 0;
	if (fixed > c->hbm) {
		snprintf(r->reason, INFER_REASON_MAX, "weights and workspace need %.1f GiB per chip (weights %.1f), has %.1f GiB",
			 fixed / GiB, none.weights / GiB, c->hbm / GiB);
		return 0;
	}
	switch (f->kv_share) {
	case FW_KV_FREE: pool = f->kv_mem_fraction * (c->hbm - fixed); break;
	case FW_KV_TOTAL: pool = f->kv_mem_fraction * c->hbm - fixed; break;
	default: pool = c->hbm - fixed; break;
	}
	if (pool < 0)
		pool = 0;
	r->kv_pool = pool;
	r->kv_per_request = per;
	if (pool < per) {
		snprintf(r->reason, INFER_REASON_MAX,
			 "one request's KV cache (%.2f GiB per chip for %.0f tokens) does not fit the %.2f GiB the framework gives it",
			 per / GiB, tok, pool / GiB);
		return 0;
	}
	if (v->stat) {
		/* A compiled batch: max_num_seqs, else the workload's concurrency. */
		double b = f->max_num_seqs > 0 ? f->max_num_seqs : (w->concurrency > 0 ? (double)w->concurrency / dp : 1);
		if (b * per > pool) {
			snprintf(r->reason, INFER_REASON_MAX, "the compiled batch of %.0f needs %.1f GiB of KV cache per chip, %.1f GiB is free",
				 b, b * per / GiB, pool / GiB);
			return 0;
		}
		v->cap = b;
		snprintf(r->cap_reason, INFER_REASON_MAX, "the compiled batch of %.0f", b);
		return 1;
	}
	v->cap = pool / per;
	snprintf(r->cap_reason, INFER_REASON_MAX, "the KV cache: %.1f GiB per chip over %.2f GiB per request (%.0f tokens%s)",
		 pool / GiB, per / GiB, tok, f->kv_alloc == FW_KV_COMPLETION ? " reserved at admission" : " on average, preempting when full");
	{
		int seqs = w->max_num_seqs == f->max_num_seqs ? fw_by_family(f->seqs_by_family, c->family, f->max_num_seqs)
							       : w->max_num_seqs;
		if (seqs > 0 && v->cap > seqs) {
			v->cap = seqs;
			snprintf(r->cap_reason, INFER_REASON_MAX, "max_num_seqs %d", seqs);
		}
	}
	if (v->mixed) {
		/* Decodes share the token budget with a prompt: whole prompts need room beside them. */
		double room = v->chunked ? v->budget : v->budget - v->in;
		if (room >= 1 && v->cap > room) {
			v->cap = room;
			snprintf(r->cap_reason, INFER_REASON_MAX, "max_num_tokens %.0f %s", v->budget,
				 v->chunked ? "(one token per decode)" : "beside one whole prompt");
		}
	}
	if ((w->scenario == WL_SERVER || w->scenario == WL_INTERACTIVE) && w->concurrency > 0 &&
	    (double)w->concurrency / dp < 1) {
		/* Less than one sequence per replica: an admission queue of no slots (Erlang C over 0
		 * servers), whose wait came out negative. */
		snprintf(r->reason, INFER_REASON_MAX, "the workload's concurrency %d is less than one sequence for each of %d replicas",
			 w->concurrency, dp);
		return 0;
	}
	if ((w->scenario == WL_SERVER || w->scenario == WL_INTERACTIVE) && w->concurrency > 0 &&
	    v->cap > (double)w->concurrency / dp) {
		v->cap = (double)w->concurrency / dp;
		snprintf(r->cap_reason, INFER_REASON_MAX, "the workload's concurrency %d", w->concurrency);
	}
	return 1;
}

/* E[x^k] of a law uniform on [a, b]. */
static double uniform_moment(double a, double b, int k)
{
	return b > a ? (pow(b, k + 1) - pow(a, k + 1)) / ((k + 1) * (b - a)) : pow(a, k);
}

int infer_length_moments(const wl_lengths *l, double f, double *gmean, double *cs2)
{
	double m[5] = {0}, g2;
	if (l->n < 2)
		return 0;
	for (int j = 0; j + 1 < l->n; j++) {
		double w = (l->pct[j + 1] - l->pct[j]) / 100;
		for (int k = 1; k <= 4; k++)
			m[k] += w * uniform_moment(l->len[j], l->len[j + 1], k);
	}
	/* Moments of x = L / E[L]. */
	for (int k = 2; k <= 4; k++)
		m[k] /= pow(m[1], k);
	*gmean = (1 - f) + f * m[2];
	g2 = (1 - f) * (1 - f) * m[2] + 2 * f * (1 - f) * m[3] + f * f * m[4];
	*cs2 = g2 / (*gmean * *gmean) - 1;
	if (*cs2 < 0)
		*cs2 = 0;
	return 1;
}

/* The prompt-length bins of w's input_spread (none: fixed lengths): LEN_SUB equal parts of each
 * piece between two points, each at its middle, lengths over the table's mean; and the attention
 * share of a prefill pass (its ops' attention time over the stage's), which makes a prompt's work
 * quadratic in its length. */
static void lengths_init(srv *v)
{
	const wl_lengths *l = &v->w->input_spread;
	double mean = 0;
	infer_step st;
	v->nlen = 0;
	if (l->n < 2)
		return;
	for (int j = 0; j + 1 < l->n; j++)
		mean += (l->pct[j + 1] - l->pct[j]) / 100 * 0.5 * (l->len[j] + l->len[j + 1]);
	for (int j = 0; j + 1 < l->n; j++) {
		double w = (l->pct[j + 1] - l->pct[j]) / 100, a = l->len[j], b = l->len[j + 1];
		for (int i = 0; i < LEN_SUB && w > 0; i++) {
			v->lw[v->nlen] = w / LEN_SUB;
			v->lx[v->nlen++] = (a + (b - a) * (i + 0.5) / LEN_SUB) / mean;
		}
	}
	step_eval(v->s, v->w, v->p, &v->plans, 0, v->ctx, v->in < v->budget ? v->in : v->budget, &st);
	{
		double stage = st.t_ops + st.t_comm + st.t_overhead;
		v->fatt = stage > 0 && st.t > 0 ? st.ops.t_kind[OPS_ATTN] / stage * (st.t - st.t_host) / st.t : 0;
	}
	infer_length_moments(l, v->fatt, &v->gmean, &v->cs2);
}

static void srv_init(srv *v, const hw_system *s, const wl_workload *w, const plan *p)
{
	memset(v, 0, sizeof *v);
	v->s = s;
	v->w = w;
	v->p = p;
	v->f = &w->fw.serve;
	v->in = w->input_len;
	v->out = w->output_len > 1 ? w->output_len : 1;
	v->ctx = w->input_len + w->output_len / 2.0;
	v->budget = w->max_num_tokens > 0 ? w->max_num_tokens : 8192;
	/* The stack's device default, unless the workload set its own budget. */
	if (w->max_num_tokens == v->f->max_num_tokens)
		v->budget = fw_by_family(v->f->tokens_by_family, s->chip.family, (int)v->budget);
	v->stat = w->scheduler == FW_SCHED_STATIC;
	v->mixed = w->scheduler == FW_SCHED_INFLIGHT;
	v->chunked = v->f->chunked_prefill;
	/* A prompt longer than the token budget runs only in chunks, whatever the stack's default
	 * ("chunked context allows TensorRT LLM to handle requests with longer contexts", NVIDIA
	 * TensorRT-LLM docs features/long-sequence.html): a pass holds at most the budget. */
	if (!v->stat && v->in > v->budget)
		v->chunked = 1;
	v->spread = w->length_spread == WL_SPREAD_EXPONENTIAL;
	v->q = w->slo_percentile > 0 ? w->slo_percentile / 100 : 0.99;
	v->z = infer_normal_quantile(v->q);
	v->ca2 = w->arrival_ca2 > 0 ? w->arrival_ca2 : 1;
	v->win = v->f->batch_window;
	v->win_max = v->f->batch_window_max;
	plans_init(&v->plans, s, p);
	lengths_init(v);
}

/* A load point's margin to the limits: max of SLO-percentile latency over its limit. */
static double margin(const wl_workload *w, const infer_load *o)
{
	double g = 0;
	if (w->ttft_slo > 0 && o->ttft.slo / w->ttft_slo > g)
		g = o->ttft.slo / w->ttft_slo;
	if (w->tpot_slo > 0 && o->tpot.slo / w->tpot_slo > g)
		g = o->tpot.slo / w->tpot_slo;
	return g;
}

/* Appends to r's batch_reason what the harness batcher (batch_window) sends a replica at o. */
static void batcher_note(const srv *v, infer_result *r, const infer_load *o, const state *st)
{
	size_t l = strlen(r->batch_reason);
	if (st->bn > 0)
		snprintf(r->batch_reason + l, INFER_BATCH_REASON_MAX - l,
			 "; a batcher sends each replica %.0f prompts every %.2f s (%.0f ms windows: a request waits %.0f ms on average)",
			 st->bn, st->bn * v->p->dp / o->load, v->win * 1e3, 0.5 * st->hw * 1e3);
}

/* The highest arrival rate whose latencies at the SLO percentile meet the limits. */
static int slo_search(srv *v, infer_result *r, infer_load *best, state *bst)
{
	const wl_workload *w = v->w;
	infer_load o, sat;
	state st, sst;
	double hi, lo, bd = 0;
	closed_load(v, v->cap, 1, &sat, &sst);
	hi = sst.X;
	lo = hi * 1e-3;
	if (!open_load(v, lo, &o, &st, 0) || margin(w, &o) > 1) {
		*best = o;
		*bst = st;
		snprintf(r->batch_reason, INFER_BATCH_REASON_MAX,
			 "%s: even %.3g requests/s miss the limits (p%g TTFT %.0f ms, TPOT %.1f ms against %.0f / %.0f ms)",
			 wl_scenario_names[w->scenario], lo * v->p->dp, w->slo_percentile, o.ttft.slo * 1e3,
			 o.tpot.slo * 1e3, w->ttft_slo * 1e3, w->tpot_slo * 1e3);
		return 0;
	}
	*best = o;
	*bst = st;
	/* margin(λ) grows with λ: bisect [lo, hi) to a relative tolerance. */
	while (hi - lo > INFER_LOAD_TOL * hi) {
		double mid = 0.5 * (lo + hi);
		if (open_load(v, mid, &o, &st, bd) && margin(w, &o) <= 1) {
			lo = mid;
			*best = o;
			*bst = st;
			bd = st.bd;
		} else {
			hi = mid;
		}
	}
	snprintf(r->batch_reason, INFER_BATCH_REASON_MAX,
		 "%s: %.4g requests/s (%.0f running per replica) is the highest Poisson load whose p%g TTFT %.0f ms and "
		 "TPOT %.1f ms meet %.0f / %.0f ms (bisection on the rate to %.1g); the server completes at most %.4g/s",
		 wl_scenario_names[w->scenario], best->load, best->running, w->slo_percentile, best->ttft.slo * 1e3,
		 best->tpot.slo * 1e3, w->ttft_slo * 1e3, w->tpot_slo * 1e3, INFER_LOAD_TOL, sat.requests_per_s);
	batcher_note(v, r, best, bst);
	return 1;
}

/* The open loop at the workload's arrival_rate (requests/s over all replicas): 1 when the
 * server completes it and its latencies at the SLO percentile meet the limits; else 0 with
 * batch_reason saying which (the latencies are filled in whenever the load is stable). */
static int rate_load(srv *v, infer_result *r, infer_load *o, state *st)
{
	const wl_workload *w = v->w;
	infer_load sat;
	state sst;
	int meets, dp = v->p->dp > 0 ? v->p->dp : 1;
	double bd = 0, lambda = w->arrival_rate / dp;
	closed_load(v, v->cap, 1, &sat, &sst);
	/* The open loop's fixed point near capacity is found from the running batch of a lower
	 * load, as the search's bisection finds it: the rate approached in steps. */
	for (double f = 0.5; f < 0.99 && lambda < sst.X; f = 0.5 * (1 + f))
		if (open_load(v, f * lambda, o, st, bd))
			bd = st->bd;
	if (!open_load(v, lambda, o, st, bd)) {
		/* The figures shown are the server's at its most; the load asked for is not stable. */
		*o = sat;
		o->stable = 0;
		*st = sst;
		snprintf(r->batch_reason, INFER_BATCH_REASON_MAX,
			 "%s: %.4g requests/s (the workload's arrival_rate) is more than the server completes (at most %.4g/s)",
			 wl_scenario_names[w->scenario], w->arrival_rate, sat.requests_per_s);
		return 0;
	}
	meets = margin(w, o) <= 1;
	snprintf(r->batch_reason, INFER_BATCH_REASON_MAX,
		 "%s: %.4g requests/s, the workload's arrival_rate (a Poisson load, %.0f running per replica): p%g TTFT %.0f ms "
		 "and TPOT %.1f ms %s %.0f / %.0f ms; the server completes at most %.4g/s",
		 wl_scenario_names[w->scenario], o->load, o->running, w->slo_percentile, o->ttft.slo * 1e3, o->tpot.slo * 1e3,
		 meets ? "meet" : "miss", w->ttft_slo * 1e3, w->tpot_slo * 1e3, sat.requests_per_s);
	batcher_note(v, r, o, st);
	return meets;
}

static int setup(srv *v, const hw_system *s, const wl_workload *w, const plan *p, infer_result *r)
{
	memset(r, 0, sizeof *r);
	r->plan = *p;
	r->scenario = w->scenario;
	r->run_prec = hw_run_prec(&s->chip, w->prec);
	r->ctx_mean = w->input_len + w->output_len / 2.0;
	r->comm_priced = 1;
	srv_init(v, s, w, p);
	r->feasible = shard_check(s, w, p, r->reason, INFER_REASON_MAX);
	if (r->feasible)
		r->feasible = server_cap(v, r);
	if (v->cap <= 0)
		v->cap = 1; /* infeasible: figures as if one request ran */
	r->cap = v->cap;
	return r->feasible;
}

int infer_curve(const hw_system *s, const wl_workload *w, const plan *p, const double *loads, int n,
		infer_load *out, char *reason, size_t len)
{
	srv v;
	infer_result r;
	int ok = setup(&v, s, w, p, &r);
	int dp = p->dp > 0 ? p->dp : 1;
	for (int i = 0; i < n; i++) {
		state st;
		closed_load(&v, loads[i] / dp, 0, &out[i], &st);
	}
	if (!ok && reason)
		snprintf(reason, len, "%s", r.reason);
	return ok;
}

int infer_capacity(const hw_system *s, const wl_workload *w, const plan *p, double *cap, double *rate, char *reason,
		   size_t len)
{
	srv v;
	infer_result r;
	infer_load sat;
	state st;
	int ok = setup(&v, s, w, p, &r);
	closed_load(&v, v.cap, 1, &sat, &st);
	*cap = v.cap;
	*rate = st.X;
	if (!ok && reason)
		snprintf(reason, len, "%s", r.reason);
	return ok;
}

double infer_erlang_c(double c, double a)
{
	return erlang_c(c, a);
}

int infer_open_curve(const hw_system *s, const wl_workload *w, const plan *p, const double *shares, int n,
		     infer_load *out, char *reason, size_t len)
{
	srv v;
	infer_result r;
	infer_load sat;
	state st;
	int ok = setup(&v, s, w, p, &r);
	double X, bd = 0;
	closed_load(&v, v.cap, 1, &sat, &st);
	X = st.X;
	for (int i = 0; i < n; i++)
		if (open_load(&v, shares[i] * X, &out[i], &st, bd))
			bd = st.bd;
	if (!ok && reason)
		snprintf(reason, len, "%s", r.reason);
	return ok;
}

void infer_eval(const hw_system *s, const wl_workload *w, const plan *p, infer_result *r,
		ops_list *pre, ops_list *dec)
{
	ops_list lp_ops, ld_ops;
	/* cppcheck-suppress uninitvar ; outputs the ops_* functions fill */
	ops_list *P = pre ? pre : &lp_ops, *D = dec ? dec : &ld_ops;
	const hw_chip *c = &s->chip;
	int dp = p->dp > 0 ? p->dp : 1;
	srv v;
	state st;
	infer_load *o = &r->at;

	setup(&v, s, w, p, r);
	if (w->scenario == WL_SINGLE) {
		double N = (double)w->concurrency / dp;
		closed_load(&v, N, 0, o, &st);
		if (o->saturated)
			snprintf(r->batch_reason, INFER_BATCH_REASON_MAX,
				 "single: a closed loop of %d requests; the server runs %.0f per replica (%s), %.0f wait %.0f ms for admission",
				 w->concurrency, o->running, r->cap_reason, o->waiting * dp, o->wait * 1e3);
		else
			snprintf(r->batch_reason, INFER_BATCH_REASON_MAX, "single: a closed loop of %d requests, %.0f running per replica%s",
				 w->concurrency, o->running,
				 o->groups > 1 ? " (in locked groups, a prefill pass apart)"
					       : o->synchronized ? " (prefilled together, decoded together)" : " (at spread phases)");
	} else if (w->scenario == WL_OFFLINE) {
		double N = w->concurrency > 0 && (double)w->concurrency / dp < v.cap ? (double)w->concurrency / dp : v.cap;
		closed_load(&v, N, 1, o, &st);
		o->wait = o->waiting = 0;
		snprintf(r->batch_reason, INFER_BATCH_REASON_MAX, "offline: %.0f sequences per replica, the most %s (all requests queued; TTFT without the queue)",
			 o->running, w->concurrency > 0 && N < v.cap ? "the workload's concurrency allows" : r->cap_reason);
	} else if (w->arrival_rate > 0) {
		if (!rate_load(&v, r, o, &st) && r->feasible) {
			r->feasible = 0;
			snprintf(r->reason, INFER_REASON_MAX, "%s", r->batch_reason);
		}
	} else {
		if (!slo_search(&v, r, o, &st) && r->feasible) {
			r->feasible = 0;
			snprintf(r->reason, INFER_REASON_MAX, "%s", r->batch_reason);
		}
	}
	/* The cap decides the result when requests queue for admission at the operating point: a
	 * closed loop past it, or an open loop whose TTFT limit binds only through that queue. */
	r->cap_limits = o->saturated || (w->scenario != WL_SINGLE && w->scenario != WL_OFFLINE && w->ttft_slo > 0 &&
					 o->ttft.slo > 0.9 * w->ttft_slo && o->ttft_unqueued < 0.9 * w->ttft_slo);
	r->batch = o->running;
	r->step = st.dstep;
	r->ttft = o->ttft.mean;
	r->tpot = o->tpot.mean;
	r->ttft_tail = o->ttft.slo;
	r->tpot_tail = o->tpot.slo;
	r->tokens_per_s = o->tokens_per_s;
	r->tokens_per_s_per_chip = o->tokens_per_s_per_chip;
	r->requests_per_s = o->requests_per_s;
	r->t_comm_exposed = r->step.t_comm;
	r->mem = mem_infer(w, p, o->running, r->kv_per_request > 0 ? r->kv_per_request / mem_infer(w, p, 1, 1, 0).kv_cache : v.ctx,
			   v.budget);
	if (r->kv_per_request > 0 && nn_window_share(&w->net) > 0) {
		/* With windowed layers a request's blocks are not linear in its tokens. */
		r->mem.total += o->running * r->kv_per_request - r->mem.kv_cache;
		r->mem.kv_cache = o->running * r->kv_per_request;
	}
	ops_iter(w, p, 0, 0, st.ptok > 0 ? st.ptok : w->input_len, P);
	ops_decode(w, p, o->running < 1 ? 1 : (int)ceil(o->running), r->ctx_mean, D);
	r->prefill = roof_list(c, P, NULL);
	r->decode = roof_list(c, D, NULL);
	r->prefill_bound = main_bound(&r->prefill);
	r->decode_bound = main_bound(&r->decode);
}
