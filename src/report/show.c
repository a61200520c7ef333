/* show: evaluation results as JSON and text (see show.h). */
#include "report/show.h"

#include <cJSON.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "base/text.h"
#include "engine/ops.h"

const char show_comm_note[] =
	"collectives priced per level with alpha-beta costs (models/hw/collectives.ini); "
	"exposed time is what overlap with compute leaves";

static const double GiB = 1073741824.0;

static cJSON *plan_json(const plan *p)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "tp", p->tp);
	cJSON_AddNumberToObject(o, "pp", p->pp);
	cJSON_AddNumberToObject(o, "vpp", p->vpp);
	cJSON_AddNumberToObject(o, "dp", p->dp);
	cJSON_AddNumberToObject(o, "cp", p->cp);
	cJSON_AddNumberToObject(o, "ep", p->ep);
	cJSON_AddBoolToObject(o, "sp", p->sp);
	cJSON_AddNumberToObject(o, "micro_batch", p->micro_batch);
	return o;
}

static cJSON *mem_json(const mem_use *m)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "weights_gib", m->weights / GiB);
	cJSON_AddNumberToObject(o, "grads_gib", m->grads / GiB);
	cJSON_AddNumberToObject(o, "optimizer_gib", m->optimizer / GiB);
	cJSON_AddNumberToObject(o, "activations_gib", m->activations / GiB);
	cJSON_AddNumberToObject(o, "kv_cache_gib", m->kv_cache / GiB);
	cJSON_AddNumberToObject(o, "total_gib", m->total / GiB);
	return o;
}

static cJSON *sourced(const char *what, const hw_sourced *s)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "figures", what);
	cJSON_AddStringToObject(o, "source", s->source);
	cJSON_AddStringToObject(o, "as_of", s->as_of);
	if (s->note[0])
		cJSON_AddStringToObject(o, "note", s->note);
	return o;
}

static cJSON *sources_json(const hw_system *s)
{
	cJSON *a = cJSON_CreateArray();
	cJSON_AddItemToArray(a, sourced("system", &s->src));
	cJSON_AddItemToArray(a, sourced("chip peaks", &s->chip.src_peak));
	cJSON_AddItemToArray(a, sourced("chip memory", &s->chip.src_memory));
	cJSON_AddItemToArray(a, sourced("chip efficiency", &s->chip.src_eff));
	for (int i = 0; i < s->nlevels; i++)
		cJSON_AddItemToArray(a, sourced(hw_level_names[s->levels[i].kind], &s->levels[i].src));
	return a;
}

static cJSON *levels_json(const hw_system *s, const double lv[])
{
	cJSON *o = cJSON_CreateObject();
	for (int l = 0; l < s->nlevels; l++)
		cJSON_AddNumberToObject(o, hw_level_names[s->levels[l].kind], lv[l]);
	return o;
}

static cJSON *time_split(const roof_sum *s)
{
	cJSON *o = cJSON_CreateObject();
	for (int k = 0; k < 3; k++) {
		char key[32];
		snprintf(key, sizeof key, "%s_bound_s", roof_bound_names[k]);
		cJSON_AddNumberToObject(o, key, s->t_bound[k]);
	}
	cJSON_AddNumberToObject(o, "flops", s->flops);
	cJSON_AddNumberToObject(o, "bytes", s->bytes);
	return o;
}

static void num_or_null(cJSON *o, const char *key, double v)
{
	if (isfinite(v))
		cJSON_AddNumberToObject(o, key, v);
	else
		cJSON_AddNullToObject(o, key);
}

static const char billing_note[] =
	"per chip-hour: an instance price is divided by its chips, and a partly used instance is taken "
	"as filled by other replicas";

static cJSON *price_json(const rank_quote *c)
{
	const price_row *p = &c->price;
	cJSON *o;
	if (!c->have_price)
		return cJSON_CreateNull();
	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "provider", p->provider);
	cJSON_AddStringToObject(o, "instance", p->instance);
	cJSON_AddStringToObject(o, "region", p->region);
	cJSON_AddStringToObject(o, "pricing_model", price_model_names[p->model]);
	cJSON_AddNumberToObject(o, "usd_per_hour", p->usd_per_hour);
	cJSON_AddStringToObject(o, "unit", price_unit_names[p->unit]);
	cJSON_AddNumberToObject(o, "accelerators", p->accelerators);
	cJSON_AddStringToObject(o, "as_of", p->as_of);
	cJSON_AddStringToObject(o, "source", p->source);
	cJSON_AddBoolToObject(o, "verified", price_verified(p));
	cJSON_AddBoolToObject(o, "user", c->user_price);
	return o;
}

static cJSON *goodput_json(const rank_quote *c, int chips)
{
	const cost_failures *f = &c->terms.failures;
	const cost_result *x = &c->result;
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "model", "Young/Daly: system MTBF M = chip_mtbf / chips, checkpoint "
				"interval tau = sqrt(2 delta M), lost = delta/tau + (tau/2 + restart)/M, "
				"run time = ideal / (1 - lost)");
	cJSON_AddNumberToObject(o, "chip_mtbf_h", f->chip_mtbf / 3600);
	cJSON_AddNumberToObject(o, "chips", chips);
	cJSON_AddNumberToObject(o, "system_mtbf_h", x->goodput.system_mtbf / 3600);
	cJSON_AddNumberToObject(o, "checkpoint_tb", f->checkpoint_bytes / 1e12);
	cJSON_AddNumberToObject(o, "checkpoint_bw_gb_per_s", f->checkpoint_bw / 1e9);
	cJSON_AddNumberToObject(o, "checkpoint_write_s", x->goodput.checkpoint_write);
	num_or_null(o, "checkpoint_interval_s", x->goodput.interval);
	cJSON_AddNumberToObject(o, "restart_s", f->restart);
	cJSON_AddNumberToObject(o, "lost_fraction", x->goodput.lost);
	cJSON_AddNumberToObject(o, "goodput", x->goodput.goodput);
	cJSON_AddBoolToObject(o, "finishes", x->goodput.finishes);
	cJSON_AddNumberToObject(o, "ideal_days", x->ideal_time / 86400);
	num_or_null(o, "run_days", x->run_time / 86400);
	cJSON_AddNumberToObject(o, "interruptions", x->interruptions);
	cJSON_AddNumberToObject(o, "checkpoints", x->checkpoints);
	return o;
}

/* The figures behind power_w, energy_kwh_per_unit and tokens_per_s_per_mw. */
static cJSON *power_json(const rank_quote *c, const wl_workload *w)
{
	const cost_owned *t = &c->terms.owned;
	cJSON *o = cJSON_CreateObject();
	num_or_null(o, "rated_w_per_chip", c->rated_w_per_chip);
	num_or_null(o, "power_share", t->power_share);
	num_or_null(o, "pue", t->pue);
	num_or_null(o, "provisioned_w", c->energy.provisioned_w);
	num_or_null(o, "energy_kwh", c->energy.energy_kwh);
	cJSON_AddStringToObject(o, "model", "power_w = chips x rated W per chip (host share included) x power_share; "
				"energy = power_w x PUE over the paid period, per delivered unit; per MW = tokens/s over "
				"chips x rated W x PUE (provisioned facility power)");
	cJSON_AddStringToObject(o, "power_share_source", w->owned_source[6]);
	cJSON_AddStringToObject(o, "pue_source", w->owned_source[3]);
	if (!c->energy.known)
		cJSON_AddStringToObject(o, "note", isfinite(c->rated_w_per_chip) ? "no power_share or pue (models/cost.ini)" :
					c->power_note);
	return o;
}

/* The parts of an owned price and where each input came from. */
static cJSON *owned_json(const rank_quote *c, const wl_workload *w)
{
	const cost_owned *t = &c->terms.owned;
	const cost_owned_rate *x = &c->owned;
	cJSON *o = cJSON_CreateObject(), *src = cJSON_CreateObject();
	const double v[] = {t->amortization / (8760.0 * 3600), t->electricity_usd_per_kwh, t->hosting_usd_per_kw_month,
			    t->pue, t->network_storage_share, t->staff_usd_per_kw_month, t->power_share, t->price_age_days};
	cJSON_AddStringToObject(o, "model", "USD per chip-hour = capex per chip x (1 + network_storage_share) / "
				"(amortization_years x 8760 h) + rated kW x power_share x PUE x electricity + rated kW x "
				"(hosting + staff) / 730 h");
	num_or_null(o, "capex_usd_per_chip", c->have_price ? x->capex_per_chip : NAN);
	cJSON_AddBoolToObject(o, "capex_user", c->user_capex);
	num_or_null(o, "capex_usd_per_chip_hour", c->have_price ? x->capex : NAN);
	num_or_null(o, "energy_usd_per_chip_hour", c->have_price ? x->energy : NAN);
	num_or_null(o, "hosting_usd_per_chip_hour", c->have_price ? x->hosting : NAN);
	num_or_null(o, "staff_usd_per_chip_hour", c->have_price ? x->staff : NAN);
	for (int i = 0; i < COST_OWNED_N; i++) {
		num_or_null(o, cost_owned_keys[i], v[i]);
		cJSON_AddStringToObject(src, cost_owned_keys[i], w->owned_source[i]);
	}
	cJSON_AddItemToObject(o, "sources", src);
	return o;
}

static cJSON *assumptions_json(const rank_quote *c, const wl_workload *w, int chips)
{
	const cost_terms *t = &c->terms.terms;
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "pricing", price_model_names[c->pricing]);
	if (c->as_of[0])
		cJSON_AddStringToObject(o, "as_of", c->as_of);
	else
		cJSON_AddStringToObject(o, "as_of", "newest");
	cJSON_AddStringToObject(o, "region", c->terms.region[0] ? c->terms.region : "cheapest per chip-hour");
	cJSON_AddItemToObject(o, "price", price_json(c));
	cJSON_AddStringToObject(o, "price_from", !c->have_price ? "none" : c->user_price ? "user (--price)" :
				c->pricing == PRICE_OWNED ? (c->user_capex ? "owned (--capex)" : "owned") : "catalog");
	cJSON_AddNumberToObject(o, "discount_pct", 100 * c->discount);
	if (c->discount_from[0])
		cJSON_AddStringToObject(o, "discount_from", c->discount_from);
	else
		cJSON_AddNullToObject(o, "discount_from");
	num_or_null(o, "usd_per_chip_hour", c->usd_per_chip_hour);
	cJSON_AddStringToObject(o, "billing", billing_note);
	cJSON_AddNumberToObject(o, "utilization", t->utilization);
	cJSON_AddNumberToObject(o, "idle_headroom", t->idle_headroom);
	cJSON_AddNumberToObject(o, "retries", t->retries);
	cJSON_AddNumberToObject(o, "storage_tb", t->storage / 1e12);
	cJSON_AddNumberToObject(o, "storage_usd_per_tb_month", t->storage_usd_per_tb_month);
	cJSON_AddNumberToObject(o, "egress_tb", t->egress / 1e12);
	cJSON_AddNumberToObject(o, "egress_usd_per_gb", t->egress_usd_per_gb);
	cJSON_AddNumberToObject(o, "engineering_hours", t->engineering_hours);
	cJSON_AddNumberToObject(o, "engineering_usd_per_hour", t->engineering_usd_per_hour);
	cJSON_AddItemToObject(o, "power", power_json(c, w));
	if (c->pricing == PRICE_OWNED)
		cJSON_AddItemToObject(o, "owned", owned_json(c, w));
	if (c->pricing == PRICE_SPOT) {
		cJSON *sp = cJSON_CreateObject();
		char txt[RANK_NOTE_MAX];
		show_spot_text(c, w->mode == WL_TRAIN, txt, sizeof txt);
		cJSON_AddBoolToObject(sp, "modelled", c->spot_interval > 0);
		num_or_null(sp, "interruption_interval_h", c->spot_interval > 0 ? c->spot_interval / 3600 : NAN);
		cJSON_AddNumberToObject(sp, "instance_chips", c->node_chips);
		if (w->mode == WL_INFER)
			cJSON_AddNumberToObject(sp, "standby", c->standby);
		cJSON_AddStringToObject(sp, "text", txt);
		cJSON_AddItemToObject(o, "spot", sp);
	}
	if (w->mode == WL_TRAIN) {
		cJSON_AddStringToObject(o, "period", "the run: run time x (1 + retries) / (utilization x "
					"(1 - idle_headroom)); storage is charged over it");
		cJSON_AddItemToObject(o, "goodput", goodput_json(c, chips));
	} else {
		cJSON_AddStringToObject(o, "period", "one month of serving (730 h); storage, egress and "
					"engineering are per month");
		cJSON_AddBoolToObject(o, "slo_met", c->slo_met);
		cJSON_AddNumberToObject(o, "prefill_share", c->prefill_share);
		cJSON_AddStringToObject(o, "input_tokens", "priced by time share: prefill time to input "
					"tokens, decode time to output tokens; usd_per_unit covers both");
	}
	return o;
}

static void cost_json(cJSON *o, const rank_quote *c, const wl_workload *w, int chips)
{
	const cost_result *x = &c->result;
	cJSON *b = cJSON_CreateObject();
	num_or_null(o, "usd_per_hour", x->usd_per_hour);
	num_or_null(o, "usd_per_unit", x->ok ? x->usd_per_unit : NAN);
	cJSON_AddStringToObject(o, "unit", cost_unit_names[x->unit]);
	if (c->note[0])
		cJSON_AddStringToObject(o, "price_note", c->note);
	if (!(x->ok && isfinite(x->usd_per_unit)) && !cJSON_GetObjectItemCaseSensitive(o, "reason"))
		/* A null cost per unit says why, as an infeasible result does (DESIGN §6): the figure
		 * missing (price_note), or why no unit is delivered. */
		cJSON_AddStringToObject(o, "reason", !x->ok && x->reason[0] ? x->reason : c->note[0] ? c->note : "no price");
	num_or_null(o, "power_w", c->energy.power_w);
	num_or_null(o, "energy_kwh_per_unit", c->energy.energy_kwh_per_unit);
	num_or_null(o, "tokens_per_s_per_mw", c->energy.tokens_per_s_per_mw);
	num_or_null(b, "compute_usd", x->compute_usd);
	num_or_null(b, "storage_usd", x->storage_usd);
	num_or_null(b, "egress_usd", x->egress_usd);
	num_or_null(b, "engineering_usd", x->engineering_usd);
	num_or_null(b, "total_usd", x->total_usd);
	cJSON_AddNumberToObject(b, "chip_hours", x->chip_hours);
	num_or_null(b, "period_h", x->period / 3600);
	cJSON_AddNumberToObject(b, "units", x->units);
	if (w->mode == WL_INFER) {
		num_or_null(b, "usd_per_mtok_input", x->ok ? x->usd_per_mtok_input : NAN);
		num_or_null(b, "usd_per_mtok_output", x->ok ? x->usd_per_mtok_output : NAN);
	}
	cJSON_AddItemToObject(o, "cost", b);
	cJSON_AddItemToObject(o, "assumptions", assumptions_json(c, w, chips));
}

/* The software stack: its file, the files it is based on, and the keys set over them. */
static cJSON *framework_json(const fw_framework *f)
{
	cJSON *o = cJSON_CreateObject(), *b = cJSON_AddArrayToObject(o, "based_on"),
	      *st = cJSON_AddArrayToObject(o, "settings");
	cJSON_AddStringToObject(o, "name", f->name);
	cJSON_AddStringToObject(o, "file", fw_shown_path(f->path));
	for (int i = 0; i < f->nbases; i++)
		cJSON_AddItemToArray(b, cJSON_CreateString(fw_shown_path(f->bases[i])));
	for (int i = 0; i < f->nset; i++) {
		cJSON *x = cJSON_CreateObject();
		cJSON_AddStringToObject(x, "key", f->set[i].key);
		cJSON_AddStringToObject(x, "value", f->set[i].value);
		cJSON_AddStringToObject(x, "from", fw_shown_path(f->set[i].from));
		cJSON_AddItemToArray(st, x);
	}
	return o;
}

/* A predicted figure and whether it is time-like (smaller is faster: times, days, cost). */
typedef struct show_fig {
	const char *name;
	double v;
	int time;
	double cap;     /* the most it can be (MFU, HFU: 1); 0 = none */
} show_fig;

/* The headline figures of r that carry an interval, into f (room for 12). Returns the count. */
static int figures(const rank_view *r, show_fig *f)
{
	int n = 0;
	if (r->train) {
		const train_result *t = r->train;
		f[n++] = (show_fig){"step_time_s", t->step_time, 1, 0};
		f[n++] = (show_fig){"tokens_per_s", t->tokens_per_s, 0, 0};
		f[n++] = (show_fig){"model_tflops_per_chip", t->model_tflops_per_chip, 0, 0};
		f[n++] = (show_fig){"hw_tflops_per_chip", t->hw_tflops_per_chip, 0, 0};
		f[n++] = (show_fig){"mfu", t->mfu, 0, 1};
		f[n++] = (show_fig){"hfu", t->hfu, 0, 1};
		f[n++] = (show_fig){"train_days", t->train_time / 86400, 1, 0};
	} else {
		const infer_result *in = r->infer;
		f[n++] = (show_fig){"ttft_ms", in->ttft * 1e3, 1, 0};
		f[n++] = (show_fig){"tpot_ms", in->tpot * 1e3, 1, 0};
		f[n++] = (show_fig){"tokens_per_s", in->tokens_per_s, 0, 0};
		f[n++] = (show_fig){"tokens_per_s_per_chip", in->tokens_per_s_per_chip, 0, 0};
	}
	if (r->cost && r->cost->have_price && r->cost->result.ok)
		f[n++] = (show_fig){"usd_per_unit", r->cost->result.usd_per_unit, 1, 0};
	return n;
}

/* DESIGN §6: `interval` (each predicted figure's [low, high] from its calibration group's
 * out-of-sample spread) and `calibration` {status, group, rows, note}. */
static void interval_json(cJSON *o, const rank_view *r)
{
	const interval_status *cal = r->cal;
	cJSON *iv = cJSON_AddObjectToObject(o, "interval"), *c = cJSON_AddObjectToObject(o, "calibration");
	show_fig f[12];
	int n = figures(r, f);
	for (int i = 0; i < n; i++)
		show_interval_add(iv, f[i].name, cal, f[i].v, f[i].time, f[i].cap);
	show_calibration_fill(c, cal);
}

void show_calibration_fill(void *obj, const interval_status *cal)
{
	cJSON *c = obj;
	cJSON_AddStringToObject(c, "status", cal->calibrated ? "calibrated" : "uncalibrated");
	cJSON_AddStringToObject(c, "group", cal->group);
	cJSON_AddNumberToObject(c, "rows", cal->rows);
	cJSON_AddStringToObject(c, "note", cal->note);
	if (cal->have) {
		cJSON_AddNumberToObject(c, "p10_pct", cal->p10);
		cJSON_AddNumberToObject(c, "p90_pct", cal->p90);
	}
}

void show_interval_add(void *obj, const char *name, const interval_status *cal, double v, int time, double cap)
{
	double lo, hi;
	cJSON *a = cJSON_CreateArray();
	interval_apply(cal, v, time, &lo, &hi);
	if (cap > 0 && hi > cap)
		hi = cap;   /* a share of the peak never passes the peak */
	cJSON_AddItemToArray(a, isfinite(lo) ? cJSON_CreateNumber(lo) : cJSON_CreateNull());
	cJSON_AddItemToArray(a, isfinite(hi) ? cJSON_CreateNumber(hi) : cJSON_CreateNull());
	cJSON_AddItemToObject((cJSON *)obj, name, a);
}

void *show_json(const rank_view *r)
{
	cJSON *o = cJSON_CreateObject();
	const plan *p = r->train ? &r->train->plan : &r->infer->plan;
	int feasible = r->train ? r->train->feasible : r->infer->feasible;
	char tr_why[TRAIN_REASON_MAX];
	const char *reason = r->train ? train_reason(r->train, r->sys, r->w, tr_why, sizeof tr_why) : r->infer->reason;
	const mem_use *m = r->train ? &r->train->mem : &r->infer->mem;
	hw_prec rp = r->train ? r->train->run_prec : r->infer->run_prec;

	if (!o)
		return NULL;
	cJSON_AddStringToObject(o, "system", r->sys->name);
	cJSON_AddStringToObject(o, "chip", r->sys->chip.name);
	cJSON_AddStringToObject(o, "workload", r->w->name);
	cJSON_AddStringToObject(o, "network", r->w->net.name);
	cJSON_AddStringToObject(o, "mode", wl_mode_names[r->w->mode]);
	cJSON_AddStringToObject(o, "precision", hw_prec_names[r->w->prec]);
	cJSON_AddStringToObject(o, "run_precision", rp < HW_PREC_N ? hw_prec_names[rp] : "none");
	{
		char pn[256];
		if (hw_prec_note(&r->sys->chip, r->w->prec, pn, sizeof pn))
			cJSON_AddStringToObject(o, "precision_note", pn);
	}
	cJSON_AddNumberToObject(o, "chips", p->chips);
	cJSON_AddItemToObject(o, "plan", plan_json(p));
	cJSON_AddItemToObject(o, "framework", framework_json(&r->w->fw));
	cJSON_AddBoolToObject(o, "feasible", feasible);
	if (!feasible) {
		cJSON_AddStringToObject(o, "reason", reason);
		cJSON_AddBoolToObject(o, "estimate_only", 1);
	}
	cJSON_AddNumberToObject(o, "mem_per_chip_gib", m->total / GiB);
	cJSON_AddItemToObject(o, "memory", mem_json(m));
	if (r->train) {
		const train_result *t = r->train;
		cJSON *b = cJSON_CreateObject();
		cJSON_AddNumberToObject(o, "step_time_s", t->step_time);
		cJSON_AddNumberToObject(o, "tokens_per_s", t->tokens_per_s);
		cJSON_AddNumberToObject(o, "model_tflops_per_chip", t->model_tflops_per_chip);
		cJSON_AddNumberToObject(o, "hw_tflops_per_chip", t->hw_tflops_per_chip);
		cJSON_AddNumberToObject(o, "mfu", t->mfu);
		cJSON_AddNumberToObject(o, "hfu", t->hfu);
		cJSON_AddNumberToObject(o, "train_days", t->train_time / 86400);
		cJSON_AddNumberToObject(b, "micro_batches", t->micro_batches);
		cJSON_AddNumberToObject(b, "micro_batch_s", t->t_micro);
		cJSON_AddNumberToObject(b, "compute_s", t->t_compute);
		cJSON_AddNumberToObject(b, "bubble_s", t->t_bubble);
		cJSON_AddNumberToObject(b, "optimizer_s", t->t_optimizer);
		cJSON_AddNumberToObject(b, "comm_exposed_s", t->t_comm_exposed);
		cJSON_AddNumberToObject(b, "tp_comm_per_micro_s", t->comm.tp);
		cJSON_AddNumberToObject(b, "pp_comm_per_micro_s", t->comm.pp);
		cJSON_AddNumberToObject(b, "ep_comm_per_micro_s", t->comm.ep);
		cJSON_AddNumberToObject(b, "cp_comm_per_micro_s", t->comm.cp);
		cJSON_AddNumberToObject(b, "zero3_comm_per_micro_s", t->comm.zero3);
		cJSON_AddNumberToObject(b, "dp_sync_exposed_s", t->comm.dp);
		cJSON_AddNumberToObject(b, "dp_sync_total_s", t->comm.dp_total);
		cJSON_AddItemToObject(b, "comm_by_level_s", levels_json(r->sys, t->comm.level));
		cJSON_AddNumberToObject(b, "compute_bound_s", t->t_bound[ROOF_COMPUTE]);
		cJSON_AddNumberToObject(b, "memory_bound_s", t->t_bound[ROOF_MEMORY]);
		cJSON_AddNumberToObject(b, "overhead_bound_s", t->t_bound[ROOF_OVERHEAD]);
		cJSON_AddItemToObject(o, "breakdown", b);
		cJSON_AddBoolToObject(o, "comm_priced", t->comm_priced);
	} else {
		const infer_result *in = r->infer;
		cJSON *b = cJSON_CreateObject();
		cJSON *pre = time_split(&in->prefill), *dec = time_split(&in->decode);
		cJSON_AddNumberToObject(o, "ttft_ms", in->ttft * 1e3);
		cJSON_AddNumberToObject(o, "tpot_ms", in->tpot * 1e3);
		cJSON_AddNumberToObject(o, "tokens_per_s", in->tokens_per_s);
		cJSON_AddNumberToObject(o, "tokens_per_s_per_chip", in->tokens_per_s_per_chip);
		cJSON_AddNumberToObject(o, "batch", in->batch);
		cJSON_AddStringToObject(o, "scenario", wl_scenario_names[in->scenario]);
		cJSON_AddStringToObject(o, "batch_reason", in->batch_reason);
		cJSON_AddNumberToObject(o, "ttft_tail_ms", in->ttft_tail * 1e3);
		cJSON_AddNumberToObject(o, "tpot_tail_ms", in->tpot_tail * 1e3);
		cJSON_AddNumberToObject(o, "requests_per_s", in->requests_per_s);
		cJSON_AddNumberToObject(o, "ttft_p50_ms", in->at.ttft.p50 * 1e3);
		cJSON_AddNumberToObject(o, "ttft_p90_ms", in->at.ttft.p90 * 1e3);
		cJSON_AddNumberToObject(o, "ttft_p99_ms", in->at.ttft.p99 * 1e3);
		cJSON_AddNumberToObject(o, "tpot_p50_ms", in->at.tpot.p50 * 1e3);
		cJSON_AddNumberToObject(o, "tpot_p90_ms", in->at.tpot.p90 * 1e3);
		cJSON_AddNumberToObject(o, "tpot_p99_ms", in->at.tpot.p99 * 1e3);
		cJSON_AddNumberToObject(o, "tokens_per_s_per_user", in->at.tokens_per_s_per_user);
		cJSON_AddNumberToObject(o, "batch_cap", in->cap);
		cJSON_AddStringToObject(o, "batch_cap_reason", in->cap_reason);
		cJSON_AddNumberToObject(o, "waiting", in->at.waiting);
		cJSON_AddNumberToObject(o, "admission_wait_ms", in->at.wait * 1e3);
		cJSON_AddNumberToObject(o, "kv_pool_gib", in->kv_pool / GiB);
		{
			/* The network's KV cache per token and the FLOPs of decoding one (issue 19). */
			double attn, flops = ops_decode_flops(r->w, in->ctx_mean, &attn);
			cJSON_AddNumberToObject(o, "kv_bytes_per_token",
						nn_kv_bytes_per_token(&r->w->net, hw_prec_bytes(r->w->kv_prec)));
			cJSON_AddNumberToObject(o, "decode_flops_per_token", flops);
			cJSON_AddNumberToObject(o, "decode_attention_flops_per_token", attn);
		}
		cJSON_AddStringToObject(o, "prefill_bound", roof_bound_names[in->prefill_bound]);
		cJSON_AddStringToObject(o, "decode_bound", roof_bound_names[in->decode_bound]);
		cJSON_AddNumberToObject(b, "decode_context_mean", in->ctx_mean);
		cJSON_AddItemToObject(b, "prefill", pre);
		cJSON_AddItemToObject(b, "decode_step", dec);
		cJSON_AddNumberToObject(b, "step_s", in->step.t);
		cJSON_AddNumberToObject(b, "step_ops_s", in->step.t_ops);
		cJSON_AddNumberToObject(b, "step_comm_s", in->step.t_comm);
		cJSON_AddNumberToObject(b, "step_runtime_overhead_s", in->step.t_overhead);
		cJSON_AddItemToObject(b, "comm_by_level_s", levels_json(r->sys, in->step.comm_level));
		cJSON_AddItemToObject(o, "breakdown", b);
		cJSON_AddBoolToObject(o, "comm_priced", in->comm_priced);
	}
	if (r->cost)
		cost_json(o, r->cost, r->w, p->chips);
	if (r->cal)
		interval_json(o, r);
	cJSON_AddStringToObject(o, "comm_note", show_comm_note);
	cJSON_AddItemToObject(o, "sources", sources_json(r->sys));
	return o;
}

static void line(FILE *fp, const char *k, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* One "  key  text" line; the text holds names and sources from data files, so control
 * characters in it are escaped (text.h). */
static void line(FILE *fp, const char *k, const char *fmt, ...)
{
	va_list ap;
	char raw[2048], esc[4 * sizeof raw];
	va_start(ap, fmt);
	vsnprintf(raw, sizeof raw, fmt, ap);
	va_end(ap);
	fprintf(fp, "  %-16s %s\n", k, text_escape(esc, sizeof esc, raw));
}

/* The network's attention in one line: its kind, its KV cache per token (what one token keeps
 * over all layers, before tensor parallelism) and the FLOPs of decoding one token at the mean
 * context (MLA: the absorbed form). */
static void attention_text(FILE *fp, const wl_workload *w, double ctx, int decode)
{
	const nn_net *n = &w->net;
	double b = hw_prec_bytes(w->kv_prec), attn, flops;
	char kind[200], win[160] = "", dec[160] = "";
	if (!decode && nn_is_mla(n))
		snprintf(kind, sizeof kind, "MLA: query rank %d, key/value latent %d + rope %d, %d heads of q/k %d, v %d",
			 n->q_lora_rank, n->kv_lora_rank, n->rope_head_dim, n->heads, n->head_dim, n->v_head_dim);
	else if (!decode)
		snprintf(kind, sizeof kind, "%s: %d heads of %d, %d KV heads", n->kv_heads == n->heads ? "MHA" : "GQA",
			 n->heads, n->head_dim, n->kv_heads);
	else if (nn_is_mla(n))
		snprintf(kind, sizeof kind, "MLA, absorbed in decode: KV cache %.1f KB per token (latent %d + rope %d per layer, "
			 "x %d layers, %s)", nn_kv_bytes_per_token(n, b) / 1e3, n->kv_lora_rank, n->rope_head_dim, n->layers,
			 hw_prec_names[w->kv_prec]);
	else
		snprintf(kind, sizeof kind, "%s, %d KV heads: KV cache %.1f KB per token (2 x %d x %d per layer, x %d layers, %s)",
			 n->kv_heads == n->heads ? "MHA" : "GQA", n->kv_heads, nn_kv_bytes_per_token(n, b) / 1e3, n->kv_heads,
			 n->head_dim, n->layers, hw_prec_names[w->kv_prec]);
	if (n->window > 0)
		snprintf(win, sizeof win, "; %d of %d layers attend %s %d tokens", n->window_layers, n->layers,
			 n->window_kind == NN_WIN_CHUNKED ? "their chunk of" : "the last", n->window);
	if (decode) {
		flops = ops_decode_flops(w, ctx, &attn);
		snprintf(dec, sizeof dec, "; decode %.2f GFLOP per token at context %.0f (attention %.2f)", flops / 1e9, ctx,
			 attn / 1e9);
	}
	line(fp, "attention", "%s%s%s%s%s", kind, win, n->attn_sinks ? "; learned sinks" : "",
	     n->qk_norm ? "; QK-norm" : "", dec);
	if (n->experts > 0) {
		int moe = nn_moe_layers(n), dense = n->layers - moe;
		char sh[96] = "";
		if (n->shared_experts > 0)
			snprintf(sh, sizeof sh, " + %d shared of %d", n->shared_experts, n->shared_expert_ffn);
		char d[96] = "";
		if (dense > 0)
			snprintf(d, sizeof d, "%d dense (FFN %d)%s, ", dense, n->ffn,
				 n->dense_layers > 0 ? (n->moe_every > 1 ? ", the first ones and between" : ", the first ones")
						     : ", between");
		line(fp, "layers", "%s%d MoE: %d routed experts of %d, %d per token%s", d, moe, n->experts, n->expert_ffn,
		     n->experts_active, sh);
	}
}

static void comm_levels(FILE *fp, const hw_system *s, const double lv[], const char *what)
{
	char buf[256];
	int k = 0;
	for (int l = 0; l < s->nlevels; l++)
		k += snprintf(buf + k, sizeof buf - (size_t)k, "%s%s %.3f ms", l ? ", " : "",
			      hw_level_names[s->levels[l].kind], lv[l] * 1e3);
	line(fp, "", "by level %s: %s", what, buf);
}


/* v with thousands separators (whole numbers from 10,000 on, else 4 significant digits),
 * after prefix ("$" or ""). "-" when v is not finite. */
static const char *grouped(char *buf, size_t n, double v, const char *prefix)
{
	char digits[64];
	size_t k;
	int len;
	if (!isfinite(v)) {
		snprintf(buf, n, "-");
		return buf;
	}
	if (fabs(v) < 1e-3 && v != 0) {
		snprintf(buf, n, "%s%.4g", prefix, v);
		return buf;
	}
	if (fabs(v) < 1e4) {
		int dec = v == floor(v) ? 0 : 3 - (int)floor(log10(fabs(v)));
		snprintf(buf, n, "%s%.*f", prefix, dec < 0 ? 0 : dec, v);
		return buf;
	}
	len = snprintf(digits, sizeof digits, "%.0f", v);
	if (len < 0 || len >= (int)sizeof digits || fabs(v) >= 1e15) {
		/* Past what separators help to read (and past digits[]): scientific notation. */
		snprintf(buf, n, "%s%.4g", prefix, v);
		return buf;
	}
	k = (size_t)snprintf(buf, n, "%s", prefix);
	for (int i = 0; i < len && k + 2 < n; i++) {
		buf[k++] = digits[i];
		if ((len - i - 1) % 3 == 0 && i + 1 < len && digits[i] != '-')
			buf[k++] = ',';
	}
	buf[k < n ? k : n - 1] = '\0';
	return buf;
}

static const char *usd(char *buf, size_t n, double v)
{
	return grouped(buf, n, v, "$");
}

void show_terms_text(const rank_quote *c, int train, char *buf, size_t n)
{
	const cost_terms *t = &c->terms.terms;
	int l = snprintf(buf, n, "%s pricing, utilization %.0f%%, idle headroom %.0f%%, retries %.0f%%; storage %.3g TB, "
			 "egress %.3g TB, engineering %.0f h %s", price_model_names[c->pricing], 100 * t->utilization,
			 100 * t->idle_headroom, 100 * t->retries, t->storage / 1e12, t->egress / 1e12,
			 t->engineering_hours, train ? "over the run" : "per month of serving (730 h)");
	if (c->discount > 0 && l > 0 && (size_t)l < n)
		l += snprintf(buf + l, n - (size_t)l, "; catalog prices less %.4g%% (--discount %s)", 100 * c->discount,
			      c->discount_from);
	if (c->pricing == PRICE_OWNED && l > 0 && (size_t)l < n) {
		const cost_owned *o = &c->terms.owned;
		snprintf(buf + l, n - (size_t)l, "; owned: capex over %.3g years, +%.0f%% network and storage, %.4g USD/kWh, "
			 "PUE %.3g, hosting %.4g and staff %.4g USD per kW-month, power %.0f%% of rated (models/cost.ini, or "
			 "the workload's [cost])", o->amortization / (8760.0 * 3600), 100 * o->network_storage_share,
			 o->electricity_usd_per_kwh, o->pue, o->hosting_usd_per_kw_month, o->staff_usd_per_kw_month,
			 100 * o->power_share);
	}
}

void show_spot_text(const rank_quote *c, int train, char *buf, size_t n)
{
	buf[0] = '\0';
	if (c->pricing != PRICE_SPOT)
		return;
	if (!(c->spot_interval > 0))
		snprintf(buf, n, "spot: interruptions are not modelled (no interruption interval: [cost] "
			 "spot_interruption_interval); the price assumes the capacity is never reclaimed");
	else if (train)
		snprintf(buf, n, "spot: an instance of %d chips is interrupted every %.4g h, which joins the "
			 "failures: chip MTBF %.4g h in the goodput", c->node_chips, c->spot_interval / 3600,
			 c->terms.failures.chip_mtbf / 3600);
	else
		snprintf(buf, n, "spot: an instance of %d chips is interrupted every %.4g h and replaced in %.4g "
			 "min: %.2f%% of the capacity is down at a time and paid as standby", c->node_chips,
			 c->spot_interval / 3600, c->terms.failures.restart / 60, 100 * c->standby);
}

static void cost_text(const rank_view *r, FILE *fp)
{
	const rank_quote *c = r->cost;
	const cost_result *x = &c->result;
	const plan *p = r->train ? &r->train->plan : &r->infer->plan;
	char a[RANK_NOTE_MAX], b[48], d[48], f[48], g[48], h[48];
	if (c->user_price) {
		line(fp, "price", "%s per chip-hour of %s: the user's own price (--price), not a catalog's",
		     usd(a, sizeof a, c->usd_per_chip_hour), r->sys->name);
	} else if (c->have_price && c->pricing == PRICE_OWNED) {
		const cost_owned_rate *o = &c->owned;
		line(fp, "price", "%s per chip-hour owned: capex %s, energy %s, hosting %s, staff %s%s",
		     usd(a, sizeof a, c->usd_per_chip_hour), usd(b, sizeof b, o->capex), usd(d, sizeof d, o->energy),
		     usd(f, sizeof f, o->hosting), usd(g, sizeof g, o->staff), price_verified(&c->price) ? "" : " (unverified)");
		line(fp, "", "%s per chip with its host%s; %.0f W rated per chip", usd(h, sizeof h, o->capex_per_chip),
		     c->user_capex ? " (--capex)" : "", o->rated_w);
		line(fp, "", "source: %s", c->price.source);
	} else if (c->have_price) {
		const price_row *pr = &c->price;
		line(fp, "price", "%s/h per %s %s = %s per chip-hour: %s %s %s, as_of %s%s", usd(a, sizeof a, pr->usd_per_hour),
		     pr->unit == PRICE_PER_CHIP ? "chip of" : "instance", pr->instance,
		     usd(b, sizeof b, price_per_chip_hour(pr)), pr->provider, pr->region, price_model_names[pr->model],
		     pr->as_of, price_verified(pr) ? "" : " (unverified)");
		line(fp, "", "source: %s", pr->source);
		if (c->discount > 0)
			line(fp, "", "less %.4g%% (--discount): %s per chip-hour", 100 * c->discount,
			     usd(b, sizeof b, c->usd_per_chip_hour));
	} else {
		line(fp, "price", "none (%s)", price_model_names[c->pricing]);
	}
	if (r->train) {
		const cost_goodput *gp = &x->goodput;
		const cost_failures *fl = &c->terms.failures;
		if (gp->finishes)
			line(fp, "goodput", "%.1f%%: a failure every %.3g h (chip MTBF %.0f h / %d chips); checkpoint "
			     "%.3g TB at %.3g %s = %.3g s every %.0f s (Young/Daly); restart %.0f s",
			     100 * gp->goodput, gp->system_mtbf / 3600, fl->chip_mtbf / 3600, p->chips,
			     fl->checkpoint_bytes / 1e12, fl->checkpoint_bw / (fl->checkpoint_bw >= 1e12 ? 1e12 : 1e9),
			     fl->checkpoint_bw >= 1e12 ? "TB/s" : "GB/s", gp->checkpoint_write, gp->interval, fl->restart);
		else
			line(fp, "goodput", "none: %s", x->reason);
		if (gp->finishes && x->ideal_time > 0)
			line(fp, "run time", "%.1f days with failures (ideal %.1f), about %s interruptions and %s "
			     "checkpoints", x->run_time / 86400, x->ideal_time / 86400,
			     grouped(a, sizeof a, round(x->interruptions), ""), grouped(b, sizeof b, round(x->checkpoints), ""));
	}
	if (c->have_price && x->ok) {
		if (r->train)
			line(fp, "cost", "%s per run: compute %s (%s chip-hours), storage %s, egress %s, engineering %s",
			     usd(a, sizeof a, x->usd_per_unit), usd(b, sizeof b, x->compute_usd),
			     grouped(h, sizeof h, round(x->chip_hours), ""), usd(d, sizeof d, x->storage_usd),
			     usd(f, sizeof f, x->egress_usd), usd(g, sizeof g, x->engineering_usd));
		else
			line(fp, "cost", "%s per %s (compute by time share: input %s, output %s per Mtok); %s/h for %d chip%s",
			     usd(a, sizeof a, x->usd_per_unit), x->unit == COST_MTOK ? "million output tokens" : "example",
			     usd(b, sizeof b, x->usd_per_mtok_input), usd(d, sizeof d, x->usd_per_mtok_output),
			     usd(f, sizeof f, x->usd_per_hour), p->chips, p->chips == 1 ? "" : "s");
	} else if (c->have_price) {
		line(fp, "cost", "%s/h for %d chip%s; no cost per %s", usd(a, sizeof a, x->usd_per_hour), p->chips,
		     p->chips == 1 ? "" : "s", cost_unit_text[x->unit]);
	}
	if (c->energy.known)
		line(fp, "power", "%s W for %d chip%s (%.0f%% of %s W rated, host share included); %s %s at PUE %.3g; "
		     "%s tokens/s per provisioned MW", grouped(a, sizeof a, round(c->energy.power_w), ""), p->chips,
		     p->chips == 1 ? "" : "s", 100 * c->terms.owned.power_share,
		     grouped(b, sizeof b, round(p->chips * c->rated_w_per_chip), ""),
		     grouped(d, sizeof d, x->unit == COST_RUN ? c->energy.energy_kwh_per_unit / 1e3 : c->energy.energy_kwh_per_unit, ""),
		     x->unit == COST_RUN ? "MWh per run" : x->unit == COST_MTOK ? "kWh per million output tokens" : "kWh per example",
		     c->terms.owned.pue,
		     grouped(f, sizeof f, round(c->energy.tokens_per_s_per_mw), ""));
	else
		line(fp, "power", "unknown: %s", isfinite(c->rated_w_per_chip) ? "no power_share or pue (models/cost.ini)" :
		     c->power_note);
	show_terms_text(c, r->train != NULL, a, sizeof a);
	line(fp, "assumptions", "%s", a);
	show_spot_text(c, r->train != NULL, a, sizeof a);
	if (a[0])
		line(fp, "", "%s", a);
	if (c->note[0])
		line(fp, "note", "%s", c->note);
}

/* What the framework and the chip's sustained figures made of a training step. */
static void stack_text(const rank_view *r, FILE *fp)
{
	const fw_framework *f = &r->w->fw;
	const fw_train *ft = &f->train;
	const hw_chip *c = &r->sys->chip;
	const train_result *t = r->train;
	int k = fw_attention_kernel(ft, c->family);
	hw_attn a = k == 2 ? HW_ATTN_FLASH2 : HW_ATTN_FLASH;
	double m = t->micro_batches;
	const double *tk = t->micro.t_kind;
	char ctas[48] = "";
	if (!f->has_train)
		return;
	if (ft->dp_ctas > 0)
		snprintf(ctas, sizeof ctas, " on %d channels", ft->dp_ctas);
	line(fp, "framework", "%s (%s): attention %s%s, elementwise %s, host %s, recompute %s = %s, zero %d%s, "
	     "grad reduce %s, overlap dp %d gather %d%s tp %.2f, MFU counts %s attention", f->name, fw_shown_path(f->path),
	     r->w->flash_attention ? (a == HW_ATTN_FLASH2 ? "flash2" : "flash") : "unfused",
	     k != ft->attention_kernel ? " (on this chip family)" : "", ft->eager_elementwise ? "eager" : "fused",
	     fw_host_names[ft->host], wl_recompute_names[r->w->recompute], fw_selective_names[ft->selective],
	     r->w->zero,
	     r->w->zero >= 3 && t->plan.pp > 1 && ft->pp_keep_gathered ? " (kept gathered over the micro-batches)" : "",
	     ft->grad_reduce == FW_REDUCE_FP32 ? "fp32" : ft->grad_reduce == FW_REDUCE_HALF ? "16-bit" : "auto",
	     r->w->overlap_grad_reduce, ft->overlap_param_gather, ctas, ft->overlap_tp, ft->flops_causal ? "causal" : "full");
	/* A chip without attention figures runs its attention at the GEMM fraction (roof_op). */
	char attn[64];
	if (c->attn_k[a][0] > 0 || c->attn_k[a][1] > 0)
		snprintf(attn, sizeof attn, "%.2f / %.2f (fwd / bwd)", c->attn_k[a][0], c->attn_k[a][1]);
	else
		snprintf(attn, sizeof attn, "at the GEMM fraction (no attention figures)");
	line(fp, "sustained", "GEMM %.3f of peak at best shape; attention %s; clock %.3f under the "
	     "power limit; elementwise at %.0f%% / %.0f%% of HBM (fwd / bwd); training loops at %.3f%s%s%s",
	     c->gemm_eff[t->run_prec < HW_PREC_N ? t->run_prec : HW_BF16], attn,
	     c->clock_scale > 0 ? c->clock_scale : 1, 100 * c->elem_eff[ft->eager_elementwise][0],
	     100 * c->elem_eff[ft->eager_elementwise][1], c->train_sustained > 0 ? c->train_sustained : 1,
	     r->sys->calib[0] ? " (" : "", r->sys->calib[0] ? r->sys->calib : "",
	     r->sys->calib[0] ? ", models/calibration.ini)" : "");
	line(fp, "time by kind", "per step: GEMM %.3f s, attention %.3f s, norms %.3f s, elementwise %.3f s, loss %.3f s, "
	     "embedding %.3f s, optimizer %.3f s", m * tk[OPS_GEMM], m * tk[OPS_ATTN], m * tk[OPS_NORM],
	     m * tk[OPS_ELEM], m * tk[OPS_LOSS], m * tk[OPS_EMBED], t->t_optimizer);
}

/* The interval beside the headline figures, and the calibration status (why, when uncalibrated). */
static void interval_text(const rank_view *r, FILE *fp)
{
	const interval_status *cal = r->cal;
	show_fig f[12];
	char a[512] = "";
	size_t l = 0;
	int n;
	if (!cal)
		return;
	n = figures(r, f);
	for (int i = 0; i < n && l < sizeof a; i++) {
		static const char *const keep[] = {"mfu", "step_time_s", "tokens_per_s", "ttft_ms", "tpot_ms", "usd_per_unit", NULL};
		double lo, hi, k = !strcmp(f[i].name, "mfu") ? 100 : 1;
		int show = 0;
		for (int j = 0; keep[j] && !show; j++)
			show = !strcmp(keep[j], f[i].name);
		if (!show)
			continue;
		interval_apply(cal, f[i].v, f[i].time, &lo, &hi);
		if (f[i].cap > 0 && hi > f[i].cap)
			hi = f[i].cap;
		{
			char x[64], y[64];
			l += (size_t)snprintf(a + l, sizeof a - l, "%s%s %s-%s%s", l ? ", " : "", f[i].name,
					      grouped(x, sizeof x, k * lo, ""), grouped(y, sizeof y, k * hi, ""), k > 1 ? " %" : "");
		}
	}
	if (cal->have)
		line(fp, "interval", "%s (10th-90th percentile of the out-of-sample errors of %s)", a, cal->group);
	if (cal->calibrated)
		line(fp, "calibration", "calibrated: %s, %d rows", cal->group, cal->rows);
	else
		line(fp, "calibration", "UNCALIBRATED: %s", cal->note);
}

void show_text(const rank_view *r, FILE *fp)
{
	const hw_system *s = r->sys;
	const hw_chip *c = &s->chip;
	const plan *p = r->train ? &r->train->plan : &r->infer->plan;
	int feasible = r->train ? r->train->feasible : r->infer->feasible;
	char tr_why[TRAIN_REASON_MAX];
	const char *reason = r->train ? train_reason(r->train, r->sys, r->w, tr_why, sizeof tr_why) : r->infer->reason;
	const mem_use *m = r->train ? &r->train->mem : &r->infer->mem;
	hw_prec rp = r->train ? r->train->run_prec : r->infer->run_prec;
	char pl[128];

	plan_format(p, pl, sizeof pl);
	{
		char head[1024], esc[4 * sizeof head];
		snprintf(head, sizeof head, "%s on %s: %d x %s, %s", r->w->name, s->name, p->chips, c->display, pl);
		fprintf(fp, "%s\n", text_escape(esc, sizeof esc, head));
	}
	line(fp, "feasible", "%s%s%s", feasible ? "yes" : "no", feasible ? "" : ": ", feasible ? "" : reason);
	if (r->w->fw.nbases || r->w->fw.nset) {
		/* What the run changed from its stack's file, and where each change was given. */
		const fw_framework *f = &r->w->fw;
		char a[2048] = "";
		size_t l = 0;
		for (int i = 0; i < f->nset && l < sizeof a; i++)
			l += (size_t)snprintf(a + l, sizeof a - l, "%s%s = %s (%s)", i ? ", " : "; set ", f->set[i].key,
					      f->set[i].value, fw_shown_path(f->set[i].from));
		line(fp, "stack", "%s (%s%s%s)%s", f->name, fw_shown_path(f->path), f->nbases ? ", based on " : "",
		     f->nbases ? fw_shown_path(f->bases[0]) : "", a);
	}
	if (!feasible)
		line(fp, "estimate", "the figures below are for this layout as if it were feasible");
	{
		char pn[256];
		hw_prec_note(c, r->w->prec, pn, sizeof pn);
		if (rp < HW_PREC_N)
			line(fp, "precision", "%s%s%s (dense peak %.0f TFLOP/s per chip)%s%s", hw_prec_names[r->w->prec],
			     rp != r->w->prec ? ", runs at " : "", rp != r->w->prec ? hw_prec_names[rp] : "",
			     c->peak[rp] / 1e12, pn[0] ? ": " : "", pn);
		else
			line(fp, "precision", "%s: %s", hw_prec_names[r->w->prec], pn);
	}
	if (r->train)
		line(fp, "memory/chip", "%.1f GiB of %.1f GiB (weights %.1f, grads %.1f, optimizer %.1f, activations %.1f)",
		     m->total / GiB, c->hbm / GiB, m->weights / GiB, m->grads / GiB, m->optimizer / GiB,
		     m->activations / GiB);
	else
		line(fp, "memory/chip", "%.1f GiB of %.1f GiB (weights %.1f, KV cache %.1f, workspace %.1f)",
		     m->total / GiB, c->hbm / GiB, m->weights / GiB, m->kv_cache / GiB, m->activations / GiB);
	if (r->train) {
		const train_result *t = r->train;
		attention_text(fp, r->w, r->w->seq_len, 0);
		line(fp, "step time", "%.3f s = %.0f micro-batches x %.4f s + bubble %.3f s + optimizer %.4f s",
		     t->step_time, t->micro_batches, t->t_micro, t->t_bubble, t->t_optimizer);
		line(fp, "bound", "compute %.0f%%, memory %.0f%%, overhead %.0f%% of op time",
		     100 * t->t_bound[0] / (t->t_compute + t->t_optimizer),
		     100 * t->t_bound[1] / (t->t_compute + t->t_optimizer),
		     100 * t->t_bound[2] / (t->t_compute + t->t_optimizer));
		line(fp, "throughput", "%.0f tokens/s, %.1f model TFLOP/s per chip, MFU %.1f%%, HFU %.1f%%",
		     t->tokens_per_s, t->model_tflops_per_chip, 100 * t->mfu, 100 * t->hfu);
		interval_text(r, fp);
		stack_text(r, fp);
		line(fp, "communication", "exposed %.3f s per step: per micro-batch TP %.4f, PP %.4f, EP %.4f, CP %.4f, ZeRO-3 %.4f; DP sync %.3f of %.3f s",
		     t->t_comm_exposed, t->comm.tp, t->comm.pp, t->comm.ep, t->comm.cp, t->comm.zero3, t->comm.dp,
		     t->comm.dp_total);
		comm_levels(fp, r->sys, t->comm.level, "per step");
		line(fp, "time to train", "%.1f days for %.3g tokens", t->train_time / 86400, r->w->tokens);
	} else {
		const infer_result *in = r->infer;
		line(fp, "scenario", "%s", in->batch_reason);
		line(fp, "batch", "%.0f sequences per replica, %d replicas, mean decode context %.0f",
		     in->batch, p->dp, in->ctx_mean);
		attention_text(fp, r->w, in->ctx_mean, 1);
		line(fp, "server", "holds %.0f sequences per replica (%s); %.0f wait, %.0f ms for admission",
		     in->cap, in->cap_reason, in->at.waiting * p->dp, in->at.wait * 1e3);
		line(fp, "TTFT", "%.2f ms mean, p50 %.2f, p90 %.2f, p99 %.2f ms (prefill %s-bound)", in->ttft * 1e3,
		     in->at.ttft.p50 * 1e3, in->at.ttft.p90 * 1e3, in->at.ttft.p99 * 1e3, roof_bound_names[in->prefill_bound]);
		line(fp, "TPOT", "%.3f ms mean, p50 %.3f, p90 %.3f, p99 %.3f ms (decode %s-bound)", in->tpot * 1e3,
		     in->at.tpot.p50 * 1e3, in->at.tpot.p90 * 1e3, in->at.tpot.p99 * 1e3, roof_bound_names[in->decode_bound]);
		line(fp, "step", "%.3f ms = ops %.3f + communication %.3f + runtime %.3f per stage, x %d stages, + host %.3f",
		     in->step.t * 1e3, in->step.t_ops * 1e3, in->step.t_comm * 1e3, in->step.t_overhead * 1e3,
		     p->pp, in->step.t_host * 1e3);
		comm_levels(fp, r->sys, in->step.comm_level, "per step");
		line(fp, "throughput", "%.0f output tokens/s (%.1f per chip)", in->tokens_per_s,
		     in->tokens_per_s_per_chip);
		interval_text(r, fp);
	}
	if (r->cost)
		cost_text(r, fp);
	line(fp, "figures from", "%s peaks: %s (%s)", c->name, c->src_peak.source, c->src_peak.as_of);
	line(fp, "", "%s memory: %s (%s)", c->name, c->src_memory.source, c->src_memory.as_of);
	line(fp, "", "efficiency gemm %.2f, hbm %.2f: %s (%s)", c->gemm_eff[rp < HW_PREC_N ? rp : HW_BF16],
	     c->hbm_eff, c->src_eff.source, c->src_eff.as_of);
}

void show_flat(const void *json, const char *prefix, out_table *t)
{
	const cJSON *o = json;
	for (const cJSON *it = o->child; it; it = it->next) {
		char key[256], val[RANK_NOTE_MAX];
		snprintf(key, sizeof key, "%s%s", prefix, it->string);
		if (cJSON_IsObject(it)) {
			char pre[256];
			snprintf(pre, sizeof pre, "%s.", key);
			show_flat(it, pre, t);
			continue;
		}
		if (cJSON_IsArray(it))
			continue;
		if (cJSON_IsNull(it))
			snprintf(val, sizeof val, "null");
		else if (cJSON_IsString(it))
			snprintf(val, sizeof val, "%s", it->valuestring);
		else if (cJSON_IsBool(it))
			snprintf(val, sizeof val, "%s", cJSON_IsTrue(it) ? "true" : "false");
		else
			snprintf(val, sizeof val, "%.6g", it->valuedouble);
		{
			const char *cells[2] = {key, val};
			out_row(t, cells);
		}
	}
}

void show_disagg_text(const wl_workload *w, const disagg_result *d, const rank_quote *c, const infer_result *agg,
		      FILE *fp)
{
	char pre[64], dec[64];
	plan_format(&d->pre.plan, pre, sizeof pre);
	plan_format(&d->dec.plan, dec, sizeof dec);
	fprintf(fp, "disaggregated    %dP%dD: prefill %s x%d, decode %s x%d, %d chips (%lld splits tried)\n",
		d->pre.count, d->dec.count, pre, d->pre.count, dec, d->dec.count, d->chips, d->searched);
	if (!d->feasible) {
		fprintf(fp, "  feasible       no: %s\n", d->reason);
		return;
	}
	fprintf(fp, "  load           %.4g requests/s, %.4g output tokens/s, %.4g per chip", d->requests_per_s,
		d->tokens_per_s, d->tokens_per_s_per_chip);
	if (agg && agg->feasible && agg->tokens_per_s_per_chip > 0) {
		char lay[64];
		plan_format(&agg->plan, lay, sizeof lay);
		fprintf(fp, " (%+.0f%% against %s aggregated, %.4g per chip)",
			100 * (d->tokens_per_s_per_chip / agg->tokens_per_s_per_chip - 1), lay, agg->tokens_per_s_per_chip);
	}
	fprintf(fp, "\n  ttft           %.0f ms mean, %.0f ms p%g: prefill %.0f ms, KV transfer %.2f ms (%.3g MB over %s, "
		"%.0f%% of its bandwidth), decode-slot wait %.1f ms\n", d->ttft * 1e3, d->ttft_tail * 1e3,
		w->slo_percentile, d->ttft_prefill * 1e3, d->t_transfer * 1e3, d->kv_bytes / 1e6, hw_level_names[d->link],
		100 * d->link_share, d->wait * 1e3);
	fprintf(fp, "  tpot           %.1f ms mean, %.1f ms p%g (%.1f tokens/s per user)\n", d->tpot * 1e3,
		d->tpot_tail * 1e3, w->slo_percentile, d->tokens_per_s_per_user);
	fprintf(fp, "  pools          prefill %.3g requests/s per replica (%.3g prompts a pass, %.0f ms); decode %.3g per "
		"replica, %.0f running of %.0f the KV cache holds per rank\n", d->pre.rate, d->pre.batch,
		d->pre.iter * 1e3, d->dec.rate, d->dec.batch, d->dec.slots);
	if (c && c->have_price && c->result.ok)
		fprintf(fp, "  usd_per_%-6s %.4g (%.2f per hour)\n", cost_unit_names[w->cost.unit], c->result.usd_per_unit,
			c->result.usd_per_hour);
}

static void pool_json(cJSON *o, const char *key, const plan *p, int count)
{
	cJSON *j = cJSON_CreateObject();
	char t[64];
	plan_format(p, t, sizeof t);
	cJSON_AddStringToObject(j, "layout", t);
	cJSON_AddNumberToObject(j, "tp", p->tp);
	cJSON_AddNumberToObject(j, "pp", p->pp);
	cJSON_AddNumberToObject(j, "dp", p->dp);
	cJSON_AddNumberToObject(j, "ep", p->ep);
	cJSON_AddNumberToObject(j, "replicas", count);
	cJSON_AddNumberToObject(j, "chips", p->chips * count);
	cJSON_AddItemToObject(o, key, j);
}

void *show_disagg_json(const wl_workload *w, const disagg_result *d, const rank_quote *c)
{
	cJSON *o = cJSON_CreateObject();
	char split[32];
	(void)w;
	snprintf(split, sizeof split, "%dP%dD", d->pre.count, d->dec.count);
	cJSON_AddStringToObject(o, "split", split);
	cJSON_AddBoolToObject(o, "feasible", d->feasible);
	if (!d->feasible)
		cJSON_AddStringToObject(o, "reason", d->reason);
	pool_json(o, "prefill", &d->pre.plan, d->pre.count);
	pool_json(o, "decode", &d->dec.plan, d->dec.count);
	cJSON_AddNumberToObject(o, "chips", d->chips);
	cJSON_AddNumberToObject(o, "requests_per_s", d->requests_per_s);
	cJSON_AddNumberToObject(o, "tokens_per_s", d->tokens_per_s);
	cJSON_AddNumberToObject(o, "tokens_per_s_per_chip", d->tokens_per_s_per_chip);
	cJSON_AddNumberToObject(o, "tokens_per_s_per_user", d->tokens_per_s_per_user);
	cJSON_AddNumberToObject(o, "ttft_ms", d->ttft * 1e3);
	cJSON_AddNumberToObject(o, "ttft_tail_ms", d->ttft_tail * 1e3);
	cJSON_AddNumberToObject(o, "ttft_prefill_ms", d->ttft_prefill * 1e3);
	cJSON_AddNumberToObject(o, "tpot_ms", d->tpot * 1e3);
	cJSON_AddNumberToObject(o, "tpot_tail_ms", d->tpot_tail * 1e3);
	cJSON_AddNumberToObject(o, "kv_transfer_ms", d->t_transfer * 1e3);
	cJSON_AddNumberToObject(o, "kv_bytes_per_request", d->kv_bytes);
	cJSON_AddStringToObject(o, "kv_link", hw_level_names[d->link]);
	cJSON_AddNumberToObject(o, "kv_link_share", d->link_share);
	cJSON_AddNumberToObject(o, "decode_slot_wait_ms", d->wait * 1e3);
	cJSON_AddNumberToObject(o, "prefill_requests_per_s_per_replica", d->pre.rate);
	cJSON_AddNumberToObject(o, "decode_requests_per_s_per_replica", d->dec.rate);
	cJSON_AddNumberToObject(o, "decode_running_per_rank", d->dec.batch);
	cJSON_AddBoolToObject(o, "slo_met", d->slo_met);
	cJSON_AddNumberToObject(o, "splits_searched", (double)d->searched);
	if (c && c->have_price && c->result.ok) {
		cJSON_AddNumberToObject(o, "usd_per_hour", c->result.usd_per_hour);
		cJSON_AddNumberToObject(o, "usd_per_unit", c->result.usd_per_unit);
	} else {
		cJSON_AddNullToObject(o, "usd_per_hour");
		cJSON_AddNullToObject(o, "usd_per_unit");
	}
	return o;
}
