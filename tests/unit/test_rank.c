/* rank: spot interruptions in the goodput (training) and as standby capacity (serving). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rank.h"

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
	show_cost c;
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
