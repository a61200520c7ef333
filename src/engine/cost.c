/* cost: cost per delivered unit and goodput (see cost.h). */
#include "engine/cost.h"

#include <math.h>
#include <stdio.h>
#include <string.h>


void cost_goodput_eval(const cost_failures *f, double chips, cost_goodput *g)
{
	double m = f->chip_mtbf / chips;
	double d = f->checkpoint_bw > 0 ? f->checkpoint_bytes / f->checkpoint_bw : 0;
	memset(g, 0, sizeof *g);
	g->system_mtbf = m;
	g->checkpoint_write = d;
	if (!isfinite(m)) {
		/* No failures: no checkpoint is needed for them. */
		g->interval = INFINITY;
		g->finishes = 1;
		g->goodput = 1;
		return;
	}
	/* Young 1974 / Daly 2006 first order: τ = √(2·δ·M); per unit of time δ/τ goes to writing
	 * checkpoints, and each failure (1/M per unit of time) costs on average half an interval
	 * of lost work plus the restart. */
	g->interval = sqrt(2 * d * m);
	g->lost = (g->interval > 0 ? d / g->interval : 0) + (g->interval / 2 + f->restart) / m;
	g->finishes = g->lost < 1;
	g->goodput = g->finishes ? 1 - g->lost : 0;
}

static double paid_share(const cost_terms *t)
{
	return t->utilization * (1 - t->idle_headroom);
}

/* Storage over the period, egress and engineering: the charges beside the compute. */
static void fixed_charges(const cost_terms *t, double period, cost_result *r)
{
	r->storage_usd = t->storage / 1e12 * t->storage_usd_per_tb_month * period / COST_MONTH_S;
	r->egress_usd = t->egress / 1e9 * t->egress_usd_per_gb;
	r->engineering_usd = t->engineering_hours * t->engineering_usd_per_hour;
}

static void no_unit(cost_result *r, const char *why)
{
	r->ok = 0;
	snprintf(r->reason, sizeof r->reason, "%s", why);
	r->usd_per_unit = NAN;
	r->units = 0;
}

void cost_train(const cost_train_in *in, cost_result *r)
{
	const cost_terms *t = &in->terms;
	double share = paid_share(t);
	memset(r, 0, sizeof *r);
	r->unit = COST_RUN;
	r->usd_per_hour = in->chips * in->usd_per_chip_hour;
	r->usd_per_mtok_input = r->usd_per_mtok_output = NAN;
	cost_goodput_eval(&in->failures, in->chips, &r->goodput);
	if (in->tokens_per_s <= 0 || share <= 0) {
		no_unit(r, in->tokens_per_s <= 0 ? "no throughput" : "utilization leaves no paid time for work");
		return;
	}
	r->ideal_time = in->tokens / in->tokens_per_s;
	if (!r->goodput.finishes) {
		const cost_goodput *g = &r->goodput;
		char why[COST_REASON_MAX];
		snprintf(why, sizeof why, "never finishes: a failure every %.3g h, %.3g s checkpoints every %.3g s "
			 "and %.3g s restarts lose %.0f%% of the time", g->system_mtbf / 3600,
			 g->checkpoint_write, g->interval, in->failures.restart, 100 * g->lost);
		no_unit(r, why);
		r->run_time = INFINITY;
		return;
	}
	r->run_time = r->ideal_time / r->goodput.goodput;
	r->interruptions = r->run_time / r->goodput.system_mtbf;
	r->checkpoints = isfinite(r->goodput.interval) ? r->run_time / r->goodput.interval : 0;
	r->period = r->run_time * (1 + t->retries) / share;
	r->chip_hours = in->chips * r->period / 3600;
	r->compute_usd = r->chip_hours * in->usd_per_chip_hour;
	fixed_charges(t, r->period, r);
	r->total_usd = r->compute_usd + r->storage_usd + r->egress_usd + r->engineering_usd;
	r->units = 1;
	r->usd_per_unit = r->total_usd;
	r->ok = 1;
}

void cost_infer(const cost_infer_in *in, cost_result *r)
{
	const cost_terms *t = &in->terms;
	double share = paid_share(t), tokens, usd_per_mtok;
	memset(r, 0, sizeof *r);
	r->unit = in->unit;
	r->usd_per_hour = in->chips * in->usd_per_chip_hour;
	r->goodput.finishes = 1;
	r->goodput.goodput = 1;
	r->period = COST_MONTH_S;
	r->chip_hours = in->chips * r->period / 3600;
	r->compute_usd = r->chip_hours * in->usd_per_chip_hour;
	fixed_charges(t, r->period, r);
	r->total_usd = r->compute_usd + r->storage_usd + r->egress_usd + r->engineering_usd;
	r->usd_per_mtok_input = r->usd_per_mtok_output = NAN;
	if (in->tokens_per_s <= 0 || share <= 0) {
		no_unit(r, in->tokens_per_s <= 0 ? "no throughput" : "utilization leaves no paid time for work");
		return;
	}
	/* Output tokens delivered in the month: busy share of the paid time, less the retried work. */
	tokens = in->tokens_per_s * r->period * share / (1 + t->retries);
	r->units = in->unit == COST_EXAMPLE ? tokens / in->output_per_example : tokens / 1e6;
	r->usd_per_unit = r->total_usd / r->units;
	usd_per_mtok = r->compute_usd / (tokens / 1e6);
	r->usd_per_mtok_output = usd_per_mtok * (1 - in->prefill_share);
	if (in->input_per_output > 0)
		r->usd_per_mtok_input = usd_per_mtok * in->prefill_share / in->input_per_output;
	r->ok = 1;
}

void cost_interrupt_train(const cost_train_in *in, const cost_result *run, cost_interrupt *out)
{
	const cost_failures *f = &in->failures;
	const cost_goodput *g = &run->goodput;
	memset(out, 0, sizeof *out);
	out->restart = f->restart;
	out->reload = f->checkpoint_bw > 0 ? f->checkpoint_bytes / f->checkpoint_bw : 0;
	out->redo = isfinite(g->interval) ? g->interval + g->checkpoint_write : run->ideal_time;
	out->added = out->restart + out->reload + out->redo;
	out->usd = out->added / 3600 * in->chips * in->usd_per_chip_hour;
	out->count = g->finishes ? run->interruptions : INFINITY;
	out->run_added = out->count > 0 ? out->count * out->added : 0;
	out->run_usd = out->count > 0 ? out->count * out->usd : isnan(out->usd) ? NAN : 0;
	out->loss_pct = run->ideal_time > 0 ? 100 * out->run_added / run->ideal_time : NAN;
	out->meets_slo = 1;
	out->standby_replicas = out->standby_chips = out->standby_usd_per_hour = NAN;
	out->load = out->capacity_after = NAN;
}

void cost_interrupt_serve(const cost_interrupt_serve_in *in, cost_interrupt *out)
{
	double need;
	memset(out, 0, sizeof *out);
	out->restart = out->reload = out->redo = out->added = out->usd = NAN;
	out->count = out->run_added = out->run_usd = NAN;
	out->load = in->load;
	out->capacity_after = in->replicas > 1 ? (in->replicas - 1) * in->replica_capacity : 0;
	/* Relative slack 1e-9: a load equal to the capacity meets it despite rounding. */
	out->meets_slo = in->load > 0 && out->capacity_after >= in->load * (1 - 1e-9);
	out->loss_pct = in->load > 0 ? 100 * fmax(0, in->load - out->capacity_after) / in->load : 0;
	if (in->replica_capacity <= 0) {
		out->standby_replicas = out->standby_chips = out->standby_usd_per_hour = NAN;
		return;
	}
	/* Replicas needed for the load, plus the one lost, beyond those serving now. */
	need = ceil(in->load / in->replica_capacity * (1 - 1e-9));
	out->standby_replicas = fmax(0, need + 1 - in->replicas);
	out->standby_chips = out->standby_replicas * in->chips_per_replica;
	out->standby_usd_per_hour = out->standby_chips * in->usd_per_chip_hour;
}

void cost_owned_eval(double capex_per_chip, double rated_w_per_chip, const cost_owned *t, cost_owned_rate *out)
{
	double kw = rated_w_per_chip / 1e3;
	memset(out, 0, sizeof *out);
	out->capex_per_chip = capex_per_chip;
	out->rated_w = rated_w_per_chip;
	out->avg_w = t->power_share * rated_w_per_chip;
	/* Straight-line: capex x (1 + network and storage share) over the amortization hours. */
	out->capex = capex_per_chip * (1 + t->network_storage_share) / (t->amortization / 3600);
	/* Facility energy of one hour: drawn kW x PUE, at the meter's price. */
	out->energy = out->avg_w / 1e3 * t->pue * t->electricity_usd_per_kwh;
	/* Colocation and staff are billed per kW of rated IT power per month (730 h). */
	out->hosting = kw * t->hosting_usd_per_kw_month / (COST_MONTH_S / 3600);
	out->staff = kw * t->staff_usd_per_kw_month / (COST_MONTH_S / 3600);
	out->total = out->capex + out->energy + out->hosting + out->staff;
}

void cost_energy_eval(double chips, double rated_w_per_chip, const cost_owned *t, const cost_result *r,
		      double tokens_per_s, cost_energy *out)
{
	memset(out, 0, sizeof *out);
	out->known = rated_w_per_chip > 0 && isfinite(rated_w_per_chip) && isfinite(t->power_share) && isfinite(t->pue);
	if (!out->known) {
		out->power_w = out->provisioned_w = out->energy_kwh = NAN;
		out->energy_kwh_per_unit = out->tokens_per_s_per_mw = NAN;
		return;
	}
	out->power_w = chips * rated_w_per_chip * t->power_share;
	out->provisioned_w = chips * rated_w_per_chip * t->pue;
	out->energy_kwh = out->power_w * t->pue / 1e3 * r->period / 3600;
	out->energy_kwh_per_unit = r->ok && r->units > 0 ? out->energy_kwh / r->units : NAN;
	out->tokens_per_s_per_mw = out->provisioned_w > 0 ? tokens_per_s / (out->provisioned_w / 1e6) : NAN;
}
