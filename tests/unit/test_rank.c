/* rank: the price of one system - the user's own (--price) or the catalog's less a discount -
 * and the cost per unit it gives, against hand derivations; spot interruptions in the goodput
 * (training) and as standby capacity (serving). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fixtures.h"
#include "engine/rank.h"

/* A stand-in for the store: every system at $10 per chip-hour, priced per chip. */
static int ten_dollars(void *ctx, const hw_system *s, const wl_workload *w, rank_quote *out, err *e)
{
	(void)ctx;
	(void)w;
	(void)e;
	snprintf(out->price.provider, sizeof out->price.provider, "test");
	snprintf(out->price.instance, sizeof out->price.instance, "%s", s->name);
	out->price.model = out->pricing;
	out->price.usd_per_hour = 10;
	out->price.unit = PRICE_PER_CHIP;
	out->price.accelerators = 1;
	out->have_price = 1;
	out->usd_per_chip_hour = 10;
	return 0;
}

/* Serving 1000 output tokens/s on 8 chips; 101 output tokens per request (TTFT 0.1 s, TPOT
 * 0.02 s: a request is 0.1 + 100 x 0.02 = 2.1 s, prefill 0.1 / 2.1 of it); no SLO; the
 * workload's [cost] defaults (utilization 1, nothing else charged). */
static void serving(wl_workload *w, infer_result *ir)
{
	memset(w, 0, sizeof *w);
	w->mode = WL_INFER;
	w->input_len = 100;
	w->output_len = 101;
	w->cost.pricing = PRICE_ON_DEMAND;
	w->cost.unit = COST_MTOK;
	w->cost.terms.utilization = 1;
	memset(ir, 0, sizeof *ir);
	ir->feasible = 1;
	ir->plan.chips = 8;
	ir->tokens_per_s = 1000;
	ir->ttft = 0.1;
	ir->tpot = 0.02;
}

/* Ranking options over ten_dollars with the user pricing up (one system) and a discount on
 * every catalog price. */
static rank_opts opts(const rank_user_price *up, double discount)
{
	static rank_discount all;
	rank_opts o;
	memset(&o, 0, sizeof o);
	o.pricing = PRICE_ON_DEMAND;
	o.price = ten_dollars;
	o.user_prices = up;
	o.nuser_prices = up ? 1 : 0;
	all.key[0] = '\0';
	all.share = discount;
	o.discounts = &all;
	o.ndiscounts = discount > 0;
	return o;
}

Test(rank, user_price_replaces_the_catalog)
{
	/* --price round-sys=4.5: 8 chips x $4.50 = $36 per hour. 1000 tokens/s x 3600 s = 3.6e6
	 * tokens = 3.6 Mtok per hour, so $36 / 3.6 = $10.00 per million output tokens (over the
	 * 730 h month: 8 x 730 x 4.5 = $26,280 for 2628 Mtok, the same $10). */
	rank_user_price up = {"round-sys", 4.5};
	rank_opts o = opts(&up, 0.5); /* the discount applies to catalog prices only */
	hw_system s = fx_round_system(8);
	wl_workload w;
	infer_result ir;
	rank_quote c;
	err e = {0};
	serving(&w, &ir);
	cr_assert_eq(rank_price_and_cost(&o, &s, &w, NULL, &ir, &c, &e), 0, "%s", e.msg);
	cr_assert(c.have_price && c.user_price);
	cr_assert_str_eq(c.price.provider, "user");
	cr_assert_eq(c.price.unit, PRICE_PER_CHIP);
	cr_assert_float_eq(c.usd_per_chip_hour, 4.5, 1e-12);
	cr_assert(c.result.ok, "%s", c.result.reason);
	cr_assert_float_eq(c.result.usd_per_hour, 36, 1e-9);
	cr_assert_float_eq(c.result.usd_per_unit, 10, 1e-9);
	cr_assert_float_eq(c.result.total_usd, 26280, 1e-6);
}

Test(rank, discount_takes_a_share_off_the_catalog_price)
{
	/* The catalog's $10 per chip-hour less 20 % = $8; 8 chips = $64 per hour over 3.6 Mtok
	 * per hour = $17.777... per million output tokens. A system the user does not price keeps
	 * the catalog's price row as published ($10). */
	rank_user_price up = {"another-system", 4.5};
	rank_opts o = opts(&up, 0.2);
	hw_system s = fx_round_system(8);
	wl_workload w;
	infer_result ir;
	rank_quote c;
	err e = {0};
	serving(&w, &ir);
	cr_assert_eq(rank_price_and_cost(&o, &s, &w, NULL, &ir, &c, &e), 0, "%s", e.msg);
	cr_assert(c.have_price && !c.user_price);
	cr_assert_float_eq(c.price.usd_per_hour, 10, 1e-12);
	cr_assert_float_eq(c.discount, 0.2, 1e-12);
	cr_assert_float_eq(c.usd_per_chip_hour, 8, 1e-12);
	cr_assert_float_eq(c.result.usd_per_hour, 64, 1e-9);
	cr_assert_float_eq(c.result.usd_per_unit, 64 / 3.6, 1e-9);
}

Test(rank, no_price_without_a_pricer_or_a_user_price)
{
	rank_opts o = opts(NULL, 0);
	hw_system s = fx_round_system(8);
	wl_workload w;
	infer_result ir;
	rank_quote c;
	err e = {0};
	o.price = NULL;
	serving(&w, &ir);
	cr_assert_eq(rank_price_and_cost(&o, &s, &w, NULL, &ir, &c, &e), 0);
	cr_assert(!c.have_price);
	cr_assert(isnan(c.usd_per_chip_hour));
	cr_assert(!isfinite(c.result.usd_per_unit));
}

Test(rank, spot_interruptions_join_the_failures)
{
	/* An 8-chip instance interrupted every 300 h adds 1 / (8 x 300 h) per chip-hour to the
	 * 1 / 50,000 h of failures: 1 / (2e-5 + 4.1667e-4) = 2290.08 h. */
	double h = 3600;
	cr_assert_float_eq(rank_spot_mtbf(50000 * h, 300 * h, 8) / h, 2290.08, 0.01);
	/* No interval: the chip MTBF as it is. */
	cr_assert_float_eq(rank_spot_mtbf(50000 * h, 0, 8), 50000 * h, 1e-6);
}

Test(rank, spot_standby_for_serving)
{
	wl_workload *w = calloc(1, sizeof *w);
	infer_result *ir = calloc(1, sizeof *ir);
	rank_quote c;
	cr_assert(w && ir);
	w->mode = WL_INFER;
	w->input_len = 100;
	w->output_len = 100;
	w->cost.unit = COST_MTOK;
	w->cost.terms.utilization = 1;
	w->cost.failures.restart = 600;
	w->cost.spot_interval = 300 * 3600.0;
	ir->feasible = 1;
	ir->plan.tp = 16; /* a replica of 16 chips spans two 8-chip instances */
	ir->plan.pp = ir->plan.cp = ir->plan.dp = 1;
	ir->plan.chips = 16;
	ir->tokens_per_s = 1000;
	ir->ttft = 0.1;
	ir->tpot = 0.01;
	memset(&c, 0, sizeof c);
	c.pricing = PRICE_SPOT;
	c.node_chips = 8;
	c.usd_per_chip_hour = 1;
	c.have_price = 1;
	rank_cost(w, NULL, ir, &c);
	/* Down k R / (I + k R) = 2 x 600 / (1,080,000 + 1,200) = 1.1099e-3 of the time; paid as idle
	 * headroom. */
	cr_assert_float_eq(c.standby, 1200.0 / 1081200.0, 1e-12);
	cr_assert_float_eq(c.terms.terms.idle_headroom, 1200.0 / 1081200.0, 1e-12);
	/* On demand: nothing stands by. */
	c.pricing = PRICE_ON_DEMAND;
	rank_cost(w, NULL, ir, &c);
	cr_assert_float_eq(c.standby, 0, 1e-15);
	cr_assert_float_eq(c.spot_interval, 0, 1e-15);
	free(w);
	free(ir);
}

Test(rank, the_most_specific_discount_applies)
{
	/* --discount 10,test=30,round-sys=35: the system's own 35 % beats its provider's ("test", the
	 * pricer's provider) 30 %, which beats 10 % for all; $10 less 35 % = $6.50 per chip-hour.
	 * Without the system's own, the provider's: $7; with neither, $9. */
	rank_discount d[3] = {{"", 0.10}, {"test", 0.30}, {"round-sys", 0.35}};
	rank_opts o = opts(NULL, 0);
	hw_system s = fx_round_system(8);
	wl_workload w;
	infer_result ir;
	rank_quote c;
	err e = {0};
	serving(&w, &ir);
	o.discounts = d;
	for (int n = 3; n >= 1; n--) {
		const double want[] = {9, 7, 6.5};
		const char *from[] = {"all", "test", "round-sys"};
		o.ndiscounts = n;
		cr_assert_eq(rank_price_and_cost(&o, &s, &w, NULL, &ir, &c, &e), 0, "%s", e.msg);
		cr_assert_float_eq(c.usd_per_chip_hour, want[n - 1], 1e-12, "%d discounts", n);
		cr_assert_str_eq(c.discount_from, from[n - 1]);
	}
	/* A discount for another provider leaves the price alone. */
	strcpy(d[0].key, "gcp");
	o.ndiscounts = 1;
	cr_assert_eq(rank_price_and_cost(&o, &s, &w, NULL, &ir, &c, &e), 0);
	cr_assert_float_eq(c.usd_per_chip_hour, 10, 1e-12);
	cr_assert_str_eq(c.discount_from, "");
}

/* The owned terms of models/cost.ini as this commit ships them. */
static void owned_terms(wl_workload *w)
{
	cost_owned *t = &w->cost.owned;
	t->amortization = 5 * 8760.0 * 3600;
	t->electricity_usd_per_kwh = 0.0895;
	t->hosting_usd_per_kw_month = 184.06;
	t->pue = 1.56;
	t->network_storage_share = 0.25;
	t->staff_usd_per_kw_month = 0;
	t->power_share = 0.76;
	t->price_age_days = 90;
}

Test(rank, an_owned_price_by_hand)
{
	/* An 8-GPU system bought for $270,000 and rated 10.2 kW (the DGX H100 of
	 * models/hw/systems): per chip $33,750 and 1,275 W.
	 *   capex   33,750 x 1.25 / (5 x 8,760 h)          = $0.963185 per chip-hour
	 *   energy  1.275 kW x 0.76 x 1.56 PUE x $0.0895   = $0.135292
	 *   hosting 1.275 kW x $184.06 / 730 h             = $0.321475
	 *   total                                          = $1.419951
	 * Serving 1000 tokens/s on 8 chips: $11.3596 per hour over 3.6 Mtok = $3.15545 per Mtok.
	 * Power: 8 x 1,275 W x 0.76 = 7,752 W; a Mtok takes 1000 s: 7.752 kW x 1.56 x 1000/3600 h
	 * = 3.3592 kWh; provisioned 8 x 1,275 x 1.56 = 15,912 W, so 1000 / 0.015912 = 62,846.9
	 * tokens/s per MW. */
	rank_opts o = opts(NULL, 0.5);  /* no discount on an owned price */
	hw_system s = fx_round_system(8);
	wl_workload w;
	infer_result ir;
	rank_quote c;
	err e = {0};
	serving(&w, &ir);
	owned_terms(&w);
	s.capex_usd = 270000;
	s.capex_chips = 8;
	s.power_rated = 10200;
	s.power_chips = 8;
	strcpy(s.src_capex.source, "UNVERIFIED: an estimate");
	strcpy(s.src_capex.as_of, "2023-05");
	o.pricing = PRICE_OWNED;
	cr_assert_eq(rank_price_and_cost(&o, &s, &w, NULL, &ir, &c, &e), 0, "%s", e.msg);
	cr_assert(c.have_price, "%s", c.note);
	cr_assert_float_eq(c.owned.capex, 33750 * 1.25 / 43800, 1e-9);
	cr_assert_float_eq(c.owned.energy, 1.275 * 0.76 * 1.56 * 0.0895, 1e-12);
	cr_assert_float_eq(c.owned.hosting, 1.275 * 184.06 / 730, 1e-12);
	cr_assert_float_eq(c.usd_per_chip_hour, 1.419951, 1e-6);
	cr_assert_float_eq(c.discount, 0, 1e-12);
	cr_assert_float_eq(c.result.usd_per_unit, 8 * 1.419951 / 3.6, 1e-5);
	cr_assert(!price_verified(&c.price), "the capex estimate's mark carries over");
	cr_assert_str_eq(c.price.as_of, "2023-05");
	cr_assert(c.energy.known);
	cr_assert_float_eq(c.energy.power_w, 7752, 1e-9);
	cr_assert_float_eq(c.energy.energy_kwh_per_unit, 7.752 * 1.56 * 1000 / 3600, 1e-9);
	cr_assert_float_eq(c.energy.tokens_per_s_per_mw, 1000 / 0.015912, 1e-6);
	/* --capex round-sys=200000/4: $50,000 per chip instead. */
	{
		rank_user_capex q = {"round-sys", 200000, 4};
		o.user_capex = &q;
		o.nuser_capex = 1;
		cr_assert_eq(rank_price_and_cost(&o, &s, &w, NULL, &ir, &c, &e), 0);
		cr_assert(c.user_capex);
		cr_assert_float_eq(c.owned.capex, 50000 * 1.25 / 43800, 1e-9);
	}
}

Test(rank, an_owned_price_names_the_missing_figure)
{
	rank_opts o = opts(NULL, 0);
	hw_system s = fx_round_system(8);
	wl_workload w;
	infer_result ir;
	rank_quote c;
	err e = {0};
	serving(&w, &ir);
	owned_terms(&w);
	o.pricing = PRICE_OWNED;
	s.power_rated = 10200;
	s.power_chips = 8;
	cr_assert_eq(rank_price_and_cost(&o, &s, &w, NULL, &ir, &c, &e), 0);
	cr_assert(!c.have_price && strstr(c.note, "no owned price: no capex for round-sys ([capex]"), "%s", c.note);
	strcpy(s.no_capex, "not sold");
	rank_price_and_cost(&o, &s, &w, NULL, &ir, &c, &e);
	cr_assert(strstr(c.note, "no owned price: no capex for round-sys (not sold)"), "%s", c.note);
	s.no_capex[0] = '\0';
	s.capex_usd = 1e5;
	s.capex_chips = 8;
	s.power_rated = 0;
	rank_price_and_cost(&o, &s, &w, NULL, &ir, &c, &e);
	cr_assert(!c.have_price && strstr(c.note, "no owned price: no rated power for round-sys ([power] rated in its "
						   "system file)"), "%s", c.note);
	cr_assert(!c.energy.known && isnan(c.energy.power_w));
	/* Neither figure: both are named, each with its reason. */
	s.capex_usd = 0;
	strcpy(s.no_power, "not published");
	rank_price_and_cost(&o, &s, &w, NULL, &ir, &c, &e);
	cr_assert(strstr(c.note, "no capex for round-sys ([capex] in its system file)") &&
		  strstr(c.note, "no rated power for round-sys ([power] rated in its system file: not published)"),
		  "%s", c.note);
	cr_assert(!strcmp(c.power_note, "no rated power for round-sys ([power] rated in its system file: not published)"),
		  "%s", c.power_note);
	s.no_power[0] = '\0';
	s.capex_usd = 1e5;
	s.power_rated = 10200;
	w.cost.owned.pue = NAN;
	rank_price_and_cost(&o, &s, &w, NULL, &ir, &c, &e);
	cr_assert(!c.have_price && strstr(c.note, "no pue"), "%s", c.note);
}

Test(rank, prices_far_apart_in_time_are_named)
{
	/* Three rows: a catalog price of 2024-12-01, one of 2025-06-01 (182 days later), and the
	 * user's own price, which has no date and does not count. Above 90 days: stale, the oldest
	 * row 0 and the newest row 1. At 200 days: the same spread, no warning. */
	hw_system s[3] = {fx_round_system(8), fx_round_system(8), fx_round_system(8)};
	rank_row rows[3];
	rank_ages a;
	memset(rows, 0, sizeof rows);
	for (int i = 0; i < 3; i++) {
		rows[i].sys = &s[i];
		rows[i].cost.have_price = 1;
	}
	strcpy(s[0].name, "old");
	strcpy(s[1].name, "new");
	strcpy(rows[0].cost.price.as_of, "2024-12-01");
	strcpy(rows[1].cost.price.as_of, "2025-06-01");
	rows[2].cost.user_price = 1;
	rank_price_ages(rows, 3, 90, &a);
	cr_assert_eq(a.n, 2);
	cr_assert_float_eq(a.spread_days, 182, 1e-12);
	cr_assert(a.stale);
	cr_assert_eq(a.oldest, 0);
	cr_assert_eq(a.newest, 1);
	cr_assert(strstr(a.text, "prices 182 days apart: old on-demand from 2024-12-01 (the oldest), new on-demand "
			 "from 2025-06-01"), "%s", a.text);
	rank_price_ages(rows, 3, 200, &a);
	cr_assert(!a.stale && !a.text[0]);
	rank_price_ages(rows + 2, 1, 90, &a);
	cr_assert_eq(a.n, 0);
	cr_assert(isnan(a.spread_days));
	cr_assert_float_eq(rank_price_age_days(&rows[0].cost.price, "2025-06-01"), 182, 1e-12);
}
