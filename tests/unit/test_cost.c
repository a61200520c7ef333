/* cost: goodput and cost per delivered unit, against hand derivations. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "engine/cost.h"

static cost_terms plain_terms(void)
{
	cost_terms t = {0};
	t.utilization = 1;
	return t;
}

Test(cost, young_daly_goodput)
{
	/* chip MTBF 1e6 s on 100 chips: M = 1e4 s. Checkpoint 100 GB at 2 GB/s: δ = 50 s.
	 * τ = √(2·50·1e4) = √1e6 = 1000 s. Restart R = 100 s.
	 * lost = δ/τ + (τ/2 + R)/M = 50/1000 + (500 + 100)/1e4 = 0.05 + 0.06 = 0.11. */
	cost_failures f = {1e6, 100e9, 2e9, 100};
	cost_goodput g;
	cost_goodput_eval(&f, 100, &g);
	cr_assert(g.finishes);
	cr_assert_float_eq(g.system_mtbf, 1e4, 1e-9);
	cr_assert_float_eq(g.checkpoint_write, 50, 1e-12);
	cr_assert_float_eq(g.interval, 1000, 1e-9);
	cr_assert_float_eq(g.lost, 0.11, 1e-12);
	cr_assert_float_eq(g.goodput, 0.89, 1e-12);
}

Test(cost, llama3_405b_scale_goodput)
{
	/* Llama 3 405B on 16,384 chips with the workload defaults: chip MTBF 50,000 h = 1.8e8 s,
	 * M = 1.8e8 / 16384 = 10986.33 s (3.05 h; Llama 3 saw one interruption every 3.09 h).
	 * Checkpoint 16 B × 405e9 = 6.48e12 B at 2 TB/s: δ = 3.24 s. τ = √(2·3.24·10986.33)
	 * = √71191.4 = 266.82 s. R = 600 s: lost = 3.24/266.82 + (133.41 + 600)/10986.33
	 * = 0.012143 + 0.066757 = 0.078900, goodput 92.1 % (Llama 3: "above 90 %"). */
	cost_failures f = {50000.0 * 3600, 16 * 405e9, 2e12, 600};
	cost_goodput g;
	cost_goodput_eval(&f, 16384, &g);
	cr_assert_float_eq(g.system_mtbf, 10986.328125, 1e-6);
	cr_assert_float_eq(g.interval, sqrt(2 * 3.24 * 10986.328125), 1e-9);
	cr_assert_float_eq(g.interval, 266.82, 0.01);
	cr_assert_float_eq(g.lost, 0.078900, 1e-5);
}

Test(cost, training_run_with_all_terms)
{
	/* 1e9 tokens at 1e5 tokens/s: ideal 1e4 s. Goodput 0.89 (above): run 1e4 / 0.89
	 * = 11235.955 s. Utilization 0.8, retries 0.25: period 11235.955 × 1.25 / 0.8
	 * = 17556.18 s; 100 chips: 487.672 chip-hours × $2 = $975.35.
	 * Storage 10 TB × $20/TB-month × 17556.18 / 2,628,000 = $1.3361; egress 1 TB × $0.09/GB
	 * = $90; engineering 10 h × $100 = $1000. Total $2066.68 per run. */
	cost_train_in in = {0};
	cost_result r;
	in.chips = 100;
	in.usd_per_chip_hour = 2;
	in.tokens = 1e9;
	in.tokens_per_s = 1e5;
	in.failures = (cost_failures){1e6, 100e9, 2e9, 100};
	in.terms = plain_terms();
	in.terms.utilization = 0.8;
	in.terms.retries = 0.25;
	in.terms.storage = 10e12;
	in.terms.storage_usd_per_tb_month = 20;
	in.terms.egress = 1e12;
	in.terms.egress_usd_per_gb = 0.09;
	in.terms.engineering_hours = 10;
	in.terms.engineering_usd_per_hour = 100;
	cost_train(&in, &r);
	cr_assert(r.ok, "%s", r.reason);
	cr_assert_eq(r.unit, COST_RUN);
	cr_assert_float_eq(r.usd_per_hour, 200, 1e-12);
	cr_assert_float_eq(r.ideal_time, 1e4, 1e-9);
	cr_assert_float_eq(r.run_time, 1e4 / 0.89, 1e-6);
	cr_assert_float_eq(r.period, 1e4 / 0.89 * 1.25 / 0.8, 1e-6);
	cr_assert_float_eq(r.chip_hours, 487.672, 1e-3);
	cr_assert_float_eq(r.compute_usd, 975.343, 1e-3);
	cr_assert_float_eq(r.storage_usd, 1.33609, 1e-5);
	cr_assert_float_eq(r.egress_usd, 90, 1e-9);
	cr_assert_float_eq(r.engineering_usd, 1000, 1e-9);
	cr_assert_float_eq(r.usd_per_unit, 975.343 + 1.33609 + 90 + 1000, 1e-3);
	cr_assert_float_eq(r.units, 1, 0);
	/* 11235.955 s / 1e4 s per failure = 1.1236 interruptions; / 1000 s = 11.236 checkpoints. */
	cr_assert_float_eq(r.interruptions, 1.1235955, 1e-6);
	cr_assert_float_eq(r.checkpoints, 11.235955, 1e-5);
}

Test(cost, a_larger_cluster_pays_for_its_interruptions)
{
	/* The same work and per-chip speed on 1,000 and 100,000 chips: ideal chip-hours are
	 * equal, but M falls 100× (50,000 h → 1800 s at 100k chips) and the lost share with it.
	 * 100k chips: δ = 3.24 s, τ = √(2·3.24·1800) = 108 s, lost = 3.24/108 + (54 + 600)/1800
	 * = 0.03 + 0.36333 = 0.39333: the run costs 1/(1−0.39333) = 1.648× the failure-free one. */
	cost_train_in in = {0};
	cost_result small, big;
	in.usd_per_chip_hour = 4;
	in.tokens = 15.6e12;
	in.failures = (cost_failures){50000.0 * 3600, 6.48e12, 2e12, 600};
	in.terms = plain_terms();
	in.chips = 1000;
	in.tokens_per_s = 1000 * 2000.0;
	cost_train(&in, &small);
	in.chips = 100000;
	in.tokens_per_s = 100000 * 2000.0;
	cost_train(&in, &big);
	cr_assert(small.ok && big.ok);
	cr_assert_float_eq(big.goodput.lost, 0.03 + 654.0 / 1800, 1e-9);
	cr_assert_float_eq(big.usd_per_unit, big.ideal_time * 100000 / 3600 * 4 / (1 - big.goodput.lost), 1e-3);
	cr_assert(big.usd_per_unit > 1.5 * small.usd_per_unit, "%g vs %g", big.usd_per_unit, small.usd_per_unit);
}

Test(cost, a_run_that_never_finishes)
{
	/* M = 1e5 s / 1000 chips = 100 s; δ = 50 s; τ = √(2·50·100) = 100 s;
	 * lost = 50/100 + (50 + 10)/100 = 1.1 >= 1. */
	cost_train_in in = {0};
	cost_result r;
	in.chips = 1000;
	in.usd_per_chip_hour = 1;
	in.tokens = 1e9;
	in.tokens_per_s = 1e6;
	in.failures = (cost_failures){1e5, 100e9, 2e9, 10};
	in.terms = plain_terms();
	cost_train(&in, &r);
	cr_assert_not(r.ok);
	cr_assert_not(r.goodput.finishes);
	cr_assert_float_eq(r.goodput.lost, 1.1, 1e-12);
	cr_assert(strstr(r.reason, "never finishes"), "%s", r.reason);
	cr_assert(isnan(r.usd_per_unit));
	cr_assert(isinf(r.run_time));
}

Test(cost, no_failures_and_no_price)
{
	/* chip MTBF infinite: nothing lost. No price (NaN): money is NaN, times are not. */
	cost_train_in in = {0};
	cost_result r;
	in.chips = 8;
	in.usd_per_chip_hour = NAN;
	in.tokens = 3.6e9;
	in.tokens_per_s = 1e6;
	in.failures = (cost_failures){INFINITY, 1e12, 1e9, 600};
	in.terms = plain_terms();
	cost_train(&in, &r);
	cr_assert(r.ok, "%s", r.reason);
	cr_assert_float_eq(r.goodput.lost, 0, 0);
	cr_assert_float_eq(r.run_time, 3600, 1e-9);
	cr_assert_float_eq(r.chip_hours, 8, 1e-12);
	cr_assert(isnan(r.usd_per_unit) && isnan(r.usd_per_hour) && isnan(r.compute_usd));
}

Test(cost, serving_per_million_tokens)
{
	/* 8 chips × $4 = $32/h. 1000 output tokens/s = 3.6 Mtok/h: $8.8889/Mtok.
	 * Prefill takes 20 % of the time and there are 4 input tokens per output token:
	 * input $8.8889 × 0.2 / 4 = $0.44444 per M input tokens, output $8.8889 × 0.8 = $7.1111. */
	cost_infer_in in = {0};
	cost_result r;
	in.unit = COST_MTOK;
	in.chips = 8;
	in.usd_per_chip_hour = 4;
	in.tokens_per_s = 1000;
	in.prefill_share = 0.2;
	in.input_per_output = 4;
	in.output_per_example = 500;
	in.terms = plain_terms();
	cost_infer(&in, &r);
	cr_assert(r.ok, "%s", r.reason);
	cr_assert_float_eq(r.usd_per_hour, 32, 1e-12);
	cr_assert_float_eq(r.usd_per_unit, 32 / 3.6, 1e-9);
	cr_assert_float_eq(r.usd_per_mtok_input, 32 / 3.6 * 0.2 / 4, 1e-9);
	cr_assert_float_eq(r.usd_per_mtok_output, 32 / 3.6 * 0.8, 1e-9);
	cr_assert_float_eq(r.period, 730 * 3600.0, 0);
	cr_assert_float_eq(r.units, 3.6 * 730, 1e-9);
	/* Utilization 0.5 and 20 % idle headroom: paid share 0.4, $22.222/Mtok. 1 TB stored at
	 * $23/TB-month adds $23 per month over 1000 × 2,628,000 × 0.4 / 1e6 = 1051.2 Mtok. */
	in.terms.utilization = 0.5;
	in.terms.idle_headroom = 0.2;
	in.terms.storage = 1e12;
	in.terms.storage_usd_per_tb_month = 23;
	cost_infer(&in, &r);
	cr_assert_float_eq(r.units, 1051.2, 1e-9);
	cr_assert_float_eq(r.compute_usd, 32 * 730, 1e-9);
	cr_assert_float_eq(r.usd_per_unit, (32 * 730 + 23) / 1051.2, 1e-9);
	cr_assert_float_eq(r.usd_per_unit, 22.2441, 1e-4);
}

Test(cost, serving_per_example)
{
	/* 500 output tokens per example at 1000 tokens/s: 2 examples/s = 7200/h; $32/h gives
	 * $0.0044444 per example. Retries 0.1: 10 % more work per delivered example. */
	cost_infer_in in = {0};
	cost_result r;
	in.unit = COST_EXAMPLE;
	in.chips = 8;
	in.usd_per_chip_hour = 4;
	in.tokens_per_s = 1000;
	in.prefill_share = 0.5;
	in.input_per_output = 1;
	in.output_per_example = 500;
	in.terms = plain_terms();
	cost_infer(&in, &r);
	cr_assert_eq(r.unit, COST_EXAMPLE);
	cr_assert_float_eq(r.usd_per_unit, 32.0 / 7200, 1e-12);
	in.terms.retries = 0.1;
	cost_infer(&in, &r);
	cr_assert_float_eq(r.usd_per_unit, 32.0 / 7200 * 1.1, 1e-12);
	in.tokens_per_s = 0;
	cost_infer(&in, &r);
	cr_assert_not(r.ok);
	cr_assert_str_eq(r.reason, "no throughput");
}

/* 1e9 tokens at 1e5 tokens/s on `chips` chips; checkpoints of 100 GB at 2 GB/s, restart
 * 100 s, chip MTBF mtbf s. */
static cost_train_in interrupted_run(double chips, double usd, double mtbf)
{
	cost_train_in in = {0};
	in.chips = chips;
	in.usd_per_chip_hour = usd;
	in.tokens = 1e9;
	in.tokens_per_s = 1e5;
	in.failures = (cost_failures){mtbf, 100e9, 2e9, 100};
	in.terms = plain_terms();
	return in;
}

Test(cost, interruption_train_worst_moment)
{
	/* As young_daly_goodput: M = 1e4 s, δ = 50 s, τ = 1000 s, R = 100 s, goodput 0.89.
	 * 1e9 tokens at 1e5 tokens/s: ideal 1e4 s, run 1e4 / 0.89 = 11235.955 s, so
	 * 11235.955 / 1e4 = 1.1235955 interruptions. One node lost just before a checkpoint is
	 * durable: restart 100 s + reload 100 GB / 2 GB/s = 50 s + redo τ + δ = 1050 s = 1200 s
	 * = 1/3 h; 100 chips at $2: 1/3 × 200 = $66.667 per interruption. Over the run
	 * 1.1235955 × 1200 = 1348.315 s and $74.906; 1348.315 / 1e4 = 13.483 % of the ideal run. */
	cost_train_in in = interrupted_run(100, 2, 1e6);
	cost_result run;
	cost_interrupt x;
	cost_train(&in, &run);
	cost_interrupt_train(&in, &run, &x);
	cr_assert_float_eq(x.restart, 100, 1e-12);
	cr_assert_float_eq(x.reload, 50, 1e-12);
	cr_assert_float_eq(x.redo, 1050, 1e-9);
	cr_assert_float_eq(x.added, 1200, 1e-9);
	cr_assert_float_eq(x.usd, 200.0 / 3, 1e-9);
	cr_assert_float_eq(x.count, 1e4 / 0.89 / 1e4, 1e-12);
	cr_assert_float_eq(x.run_added, 1348.315, 1e-3);
	cr_assert_float_eq(x.run_usd, 74.906, 1e-3);
	cr_assert_float_eq(x.loss_pct, 13.483, 1e-3);
	/* Without a price the hours stay and the dollars are NaN. */
	in.usd_per_chip_hour = NAN;
	cost_train(&in, &run);
	cost_interrupt_train(&in, &run, &x);
	cr_assert_float_eq(x.added, 1200, 1e-9);
	cr_assert(isnan(x.usd) && isnan(x.run_usd));
}

Test(cost, interruption_train_without_failures)
{
	/* No failures modelled: nothing is checkpointed, so a node lost at the end loses the
	 * whole ideal run (1e4 s) besides restart and reload; none are expected over the run. */
	cost_train_in in = interrupted_run(10, 1, INFINITY);
	cost_result run;
	cost_interrupt x;
	cost_train(&in, &run);
	cost_interrupt_train(&in, &run, &x);
	cr_assert_float_eq(x.redo, 1e4, 1e-9);
	cr_assert_float_eq(x.added, 1e4 + 150, 1e-9);
	cr_assert_float_eq(x.count, 0, 0);
	cr_assert_float_eq(x.run_added, 0, 0);
	cr_assert_float_eq(x.loss_pct, 0, 0);
}

Test(cost, interruption_serve)
{
	/* 4 replicas of 8 chips at $5 serve 4000 tokens/s; one replica serves at most 1000
	 * within the limits. One lost: 3 × 1000 = 3000 < 4000, so the limits are missed and
	 * 1000 / 4000 = 25 % of the load is not served; ceil(4000 / 1000) + 1 - 4 = 1 replica
	 * (8 chips, $40/h) must stand by. */
	cost_interrupt_serve_in in = {4, 8, 5, 4000, 1000};
	cost_interrupt x;
	cost_interrupt_serve(&in, &x);
	cr_assert_not(x.meets_slo);
	cr_assert_float_eq(x.capacity_after, 3000, 1e-9);
	cr_assert_float_eq(x.loss_pct, 25, 1e-9);
	cr_assert_float_eq(x.standby_replicas, 1, 0);
	cr_assert_float_eq(x.standby_chips, 8, 0);
	cr_assert_float_eq(x.standby_usd_per_hour, 40, 1e-9);
	/* At 2500 tokens/s the other three carry it: ceil(2.5) + 1 - 4 = 0 on standby. */
	in.load = 2500;
	cost_interrupt_serve(&in, &x);
	cr_assert(x.meets_slo);
	cr_assert_float_eq(x.loss_pct, 0, 0);
	cr_assert_float_eq(x.standby_replicas, 0, 0);
	/* Exactly at the capacity (3000) still meets; one replica alone never does. */
	in.load = 3000;
	cost_interrupt_serve(&in, &x);
	cr_assert(x.meets_slo);
	in = (cost_interrupt_serve_in){1, 8, 5, 500, 1000};
	cost_interrupt_serve(&in, &x);
	cr_assert_not(x.meets_slo);
	cr_assert_float_eq(x.loss_pct, 100, 1e-9);
	cr_assert_float_eq(x.standby_replicas, 1, 0);
	/* No replica meets the limits: no number of standbys helps. */
	in.replica_capacity = 0;
	cost_interrupt_serve(&in, &x);
	cr_assert(isnan(x.standby_replicas));
}
