/* comm: collective formulas against hand derivations (MODEL.md "Collectives"). */
#include <criterion/criterion.h>
#include <string.h>

#include "engine/comm.h"
#include "fixtures.h"

static hw_system sys_with(hw_topo topo, int chips, double bw, double alpha)
{
	hw_system s = fx_round_system(chips);
	err e = {0};
	cr_assert_eq(hw_load_algos("models/hw/collectives.ini", &s.algos, &e), 0, "%s", e.msg);
	s.nlevels = 1;
	s.levels[0].topo = topo;
	s.levels[0].chips = chips;
	s.levels[0].bw = bw;
	s.levels[0].latency = alpha;
	s.levels[0].bw_eff = 1;
	s.levels[0].inr_eff = 1;
	s.levels[0].oversubscription = 1;
	return s;
}

Test(comm, ring_all_reduce)
{
	/* Ring all-reduce: 2(n-1)/n · S/B + 2(n-1)·α. n = 8, S = 1 GB, B = 100 GB/s, α = 1 us:
	 * 1.75 · 10 ms + 14 us = 17.514 ms. The tree (2·log2 8 · α + 2·S/B = 20.006 ms) loses. */
	hw_system s = sys_with(HW_TOPO_RING, 8, 100e9, 1e-6);
	comm_cost c = comm_time(&s, COMM_ALL_REDUCE, 1e9, 8, 1);
	cr_assert_float_eq(c.t, 1.75 * 0.01 + 14e-6, 1e-12);
	/* Reduce-scatter and all-gather: (n-1)/n · S/B + (n-1)·α = 8.757 ms. */
	c = comm_time(&s, COMM_REDUCE_SCATTER, 1e9, 8, 1);
	cr_assert_float_eq(c.t, 0.875 * 0.01 + 7e-6, 1e-12);
}

Test(comm, tree_wins_small_messages)
{
	/* 1 KB: ring 14 us + 17.5 ns; tree 2·3 us + 20 ns = 6.02 us. */
	hw_system s = sys_with(HW_TOPO_RING, 8, 100e9, 1e-6);
	comm_cost c = comm_time(&s, COMM_ALL_REDUCE, 1e3, 8, 1);
	cr_assert_float_eq(c.t, 6e-6 + 2 * 1e3 / 100e9, 1e-15);
}

Test(comm, in_switch_reduction_sends_each_byte_once)
{
	/* NVLink SHARP: ≈ S/B + 2α, here 1 GB over 450 GB/s at 0.61 of it = 3.643 ms, against a
	 * ring at 0.82: 1.75 · 1 GB / 369 GB/s = 4.743 ms. */
	hw_system s = sys_with(HW_TOPO_SWITCH, 8, 450e9, 3e-6);
	comm_cost c;
	s.levels[0].in_network_reduction = 1;
	s.levels[0].inr_eff = 0.61;
	s.levels[0].bw_eff = 0.82;
	c = comm_time(&s, COMM_ALL_REDUCE, 1e9, 8, 1);
	cr_assert_float_eq(c.t, 1e9 / (450e9 * 0.61) + 2 * 3e-6, 1e-12);
	s.levels[0].in_network_reduction = 0;
	c = comm_time(&s, COMM_ALL_REDUCE, 1e9, 8, 1);
	cr_assert_float_eq(c.t, 1.75 * 1e9 / (450e9 * 0.82) + 14 * 3e-6, 1e-12);
}

Test(comm, torus_uses_the_dimensions_it_spans)
{
	/* 4x4 torus, B = 512 GB/s over all four links. A 16-rank all-reduce spans both
	 * dimensions: 2·15/16 · S/B, latency one ring per dimension 2·(3+3)·α. A 4-rank group in
	 * one row gets half the links. */
	hw_system s = sys_with(HW_TOPO_TORUS2D, 16, 512e9, 2e-6);
	comm_cost c;
	s.levels[0].dims[0] = s.levels[0].dims[1] = 4;
	c = comm_time(&s, COMM_ALL_REDUCE, 1e9, 16, 1);
	cr_assert_float_eq(c.t, 2 * 15.0 / 16 * 1e9 / 512e9 + 12 * 2e-6, 1e-12);
	c = comm_time(&s, COMM_ALL_REDUCE, 1e9, 4, 1);
	cr_assert_float_eq(c.t, 2 * 3.0 / 4 * 1e9 / 256e9 + 6 * 2e-6, 1e-12);
}

Test(comm, full_mesh_gives_a_pair_one_link)
{
	/* 8 chips, 7 links of 64 GB/s = 448 GB/s: two ranks share one link. */
	hw_system s = sys_with(HW_TOPO_FULLMESH, 8, 448e9, 0);
	cr_assert_float_eq(comm_group_bw(&s.levels[0], 2, 1), 64e9, 1e-3);
	cr_assert_float_eq(comm_group_bw(&s.levels[0], 8, 1), 448e9, 1e-3);
}

Test(comm, placement_and_hierarchy)
{
	/* Node of 8 (switch, 100 GB/s, α 1 us) under a fat tree (10 GB/s, α 10 us).
	 * A group of 16 contiguous ranks: 8 in a node × 2 nodes. Hierarchical all-reduce:
	 * reduce-scatter + all-gather of S inside (2 · 7/8 · S/B_node + 14 α_node), all-reduce of
	 * S/8 across 2 nodes (ring: 2·1/2·(S/8)/B_out + 2 α_out; tree: 2 α_out + 2 (S/8)/B_out). */
	hw_system s = fx_round_system(8);
	err e = {0};
	int ranks[HW_LEVELS_MAX];
	comm_cost c;
	double S = 8e8;
	cr_assert_eq(hw_load_algos("models/hw/collectives.ini", &s.algos, &e), 0, "%s", e.msg);
	for (int l = 0; l < 2; l++) {
		s.levels[l].bw_eff = s.levels[l].inr_eff = 1;
		s.levels[l].oversubscription = 1;
	}
	cr_assert_eq(comm_place(&s, 16, 1, ranks), 1);
	cr_assert_eq(ranks[0], 8);
	cr_assert_eq(ranks[1], 2);
	/* Stride 8 (a data-parallel group over tp = 8): one rank per node. */
	comm_place(&s, 4, 8, ranks);
	cr_assert_eq(ranks[0], 1);
	cr_assert_eq(ranks[1], 4);
	c = comm_time(&s, COMM_ALL_REDUCE, S, 16, 1);
	cr_assert_float_eq(c.t, 2 * (0.875 * S / 100e9 + 7e-6) + (1.0 * (S / 8) / 10e9 + 2 * 10e-6), 1e-12);
	/* Every group on the fabric gets the per-chip share: cost does not grow with the
	 * cluster beyond the log/linear terms of n. */
	c = comm_time(&s, COMM_SEND_RECV, 1e6, 2, 8);
	cr_assert_float_eq(c.t, 10e-6 + 1e6 / 10e9, 1e-15);
}

Test(comm, call_floor)
{
	hw_system s = sys_with(HW_TOPO_SWITCH, 8, 450e9, 3e-6);
	s.levels[0].call_floor = 58e-6;
	cr_assert_float_eq(comm_time(&s, COMM_ALL_REDUCE, 1024, 8, 1).t, 58e-6, 1e-15);
	cr_assert_float_eq(comm_time(&s, COMM_ALL_REDUCE, 1024, 1, 1).t, 0, 1e-15);
}

Test(comm, serving_peer_to_peer_all_reduce)
{
	/* One-shot: 1 step and (n-1) S over the links; two-shot: 2 steps and 2(n-1)/n S.
	 * B = 100 GB/s, α = 1 us, S = 1 MB. 2 ranks: one-shot 1 + 10 = 11 us, two-shot 2 + 10
	 * = 12 us. 8 ranks: one-shot 1 + 70 = 71 us, two-shot 2 + 17.5 = 19.5 us. Never below the
	 * level's p2p_floor (5 us here); the library path is not offered to them. */
	hw_system s = sys_with(HW_TOPO_SWITCH, 8, 100e9, 1e-6);
	comm_cost c;
	s.levels[0].p2p_floor = 5e-6;
	c = comm_allreduce_p2p(&s, 1e6, 2, 1);
	cr_assert_float_eq(c.t, 11e-6, 1e-15);
	c = comm_allreduce_p2p(&s, 1e6, 8, 1);
	cr_assert_float_eq(c.t, 19.5e-6, 1e-15);
	c = comm_allreduce_p2p(&s, 1e3, 2, 1);
	cr_assert_float_eq(c.t, 5e-6, 1e-15);
	/* A torus lists no peer-to-peer kernel: the library's all-reduce. */
	s = sys_with(HW_TOPO_RING, 8, 100e9, 1e-6);
	cr_assert_float_eq(comm_allreduce_p2p(&s, 1e9, 8, 1).t, comm_time(&s, COMM_ALL_REDUCE, 1e9, 8, 1).t, 1e-15);
}

/* Every field of two costs alike, bit for bit. */
static int same_cost(const comm_cost *a, const comm_cost *b)
{
	if (memcmp(&a->t, &b->t, sizeof a->t) != 0 || a->outer != b->outer)
		return 0;
	for (int l = 0; l < HW_LEVELS_MAX; l++)
		if (memcmp(&a->t_level[l], &b->t_level[l], sizeof a->t_level[l]) != 0 || a->ranks[l] != b->ranks[l] ||
		    a->algo[l] != b->algo[l])
			return 0;
	return 1;
}

Test(comm, a_group_times_its_collectives_as_comm_time_does)
{
	/* One group's placement worked out once (comm_group) serves every collective in it: each
	 * gives comm_time's figures, whichever was timed before it, and comm_group_time2 gives two
	 * at once each one's. comm_time works each level's algorithms out as it costs them,
	 * comm_plan_time reads them from comm_plan_init's table: the same figures, bit for bit.
	 * Shipped systems of every topology: switch and fat tree, NVL72 domains, torus, full mesh,
	 * ring. */
	static const char *const systems[] = {"p5.48xlarge", "gb200-nvl72", "tpu-v6e", "tpu-v5p", "trn2.48xlarge",
					      "mi300x-8", "inf2.48xlarge", "dgx-a100-80g"};
	static const int ns[] = {1, 2, 3, 4, 8, 16, 64, 72, 144, 1000, 4096};
	static const int strides[] = {1, 2, 4, 8, 16, 64};
	static const comm_op ops[] = {COMM_ALL_REDUCE, COMM_REDUCE_SCATTER, COMM_ALL_GATHER, COMM_ALL_TO_ALL,
				      COMM_BROADCAST, COMM_SEND_RECV};
	const size_t nops = sizeof ops / sizeof ops[0];
	long bad = 0, n = 0;
	for (size_t si = 0; si < sizeof systems / sizeof systems[0]; si++) {
		static hw_system s;
		err e = {0};
		cr_assert_eq(hw_find_system(systems[si], "models", &s, &e), 0, "%s", e.msg);
		for (size_t ni = 0; ni < sizeof ns / sizeof ns[0]; ni++)
			for (size_t st = 0; st < sizeof strides / sizeof strides[0]; st++) {
				comm_group g;
				comm_group_init(&g, &s, ns[ni], strides[st]);
				for (size_t oi = 0; oi < nops; oi++) {
					static comm_plan cp;
					comm_plan_init(&cp, &s, ops[oi], ns[ni], strides[st]);
					for (double bytes = 1e3; bytes < 1e11; bytes *= 31) {
						comm_op other = ops[(oi + 1 + (size_t)bytes % (nops - 1)) % nops];
						comm_cost a = comm_group_time(&g, ops[oi], bytes);
						comm_cost b = comm_time(&s, ops[oi], bytes, ns[ni], strides[st]);
						comm_cost c = comm_plan_time(&cp, bytes);
						comm_cost q = comm_group_time(&g, other, bytes / 3), p[2];
						comm_group_time2(&g, ops[oi], bytes, other, bytes / 3, &p[0], &p[1]);
						n++;
						if ((!same_cost(&a, &b) || !same_cost(&a, &c) || !same_cost(&p[0], &a) ||
						     !same_cost(&p[1], &q)) &&
						    bad++ < 5)
							cr_log_error("%s ops %d, %d n %d stride %d %g B: %.17g, comm_time %.17g, "
								     "the plan %.17g, two at once %.17g",
								     systems[si], (int)ops[oi], (int)other, ns[ni], strides[st],
								     bytes, a.t, b.t, c.t, p[0].t);
					}
				}
			}
	}
	cr_assert_gt(n, 10000);
	cr_assert_eq(bad, 0, "%ld of %ld costs off", bad, n);
}

Test(comm, channel_cap_limits_a_capped_communicator)
{
	/* NVLink 5 switch, 900 GB/s per direction, 25 GB/s per channel: a communicator capped at 8
	 * CTAs gets 200 GB/s. Reduce-scatter of 1 GB over 8 ranks, bw_eff 1: 7/8 · 1 GB / 200 GB/s
	 * + 7 · 3 us = 4.396 ms, against 7/8 · 1 GB / 900 GB/s + 21 us = 0.993 ms uncapped; a cap
	 * of 36 channels (900 GB/s) or none leaves the level's bandwidth. */
	hw_system s = sys_with(HW_TOPO_SWITCH, 8, 900e9, 3e-6);
	comm_group g;
	s.levels[0].channel_bw = 25e9;
	comm_group_init_ctas(&g, &s, 8, 1, 8);
	cr_assert_float_eq(comm_group_time(&g, COMM_REDUCE_SCATTER, 1e9).t, 0.875 * 1e9 / 200e9 + 21e-6, 1e-12);
	comm_group_init_ctas(&g, &s, 8, 1, 36);
	cr_assert_float_eq(comm_group_time(&g, COMM_REDUCE_SCATTER, 1e9).t, 0.875 * 1e9 / 900e9 + 21e-6, 1e-12);
	comm_group_init(&g, &s, 8, 1);
	cr_assert_float_eq(comm_group_time(&g, COMM_REDUCE_SCATTER, 1e9).t, 0.875 * 1e9 / 900e9 + 21e-6, 1e-12);
	/* A level without channel_bw is not capped. */
	s.levels[0].channel_bw = 0;
	comm_group_init_ctas(&g, &s, 8, 1, 8);
	cr_assert_float_eq(comm_group_time(&g, COMM_REDUCE_SCATTER, 1e9).t, 0.875 * 1e9 / 900e9 + 21e-6, 1e-12);
}

Test(comm, a2a_limited_sends_a_share_across_the_nodes)
{
	/* 16 ranks, 8 per node on a 400 GB/s switch, 2 nodes on a 50 GB/s fat tree, no latency:
	 * an all-to-all of S = 1 GB per rank sends S·8/16 among the node's 8 ranks (7/8 of it, at
	 * 400 GB/s: 1.09 ms) and S·16/16 over the scale-out among 2 nodes (1/2 of it at 50 GB/s:
	 * 10 ms); node-limited to half as many copies, the scale-out part halves: 5 ms. */
	hw_system s = sys_with(HW_TOPO_SWITCH, 8, 400e9, 0);
	s.nlevels = 2;
	s.levels[1] = s.levels[0];
	s.levels[1].kind = HW_LEVEL_SCALEOUT;
	s.levels[1].topo = HW_TOPO_FATTREE;
	s.levels[1].chips = 64;
	s.levels[1].bw = 50e9;
	cr_assert_float_eq(comm_time(&s, COMM_ALL_TO_ALL, 1e9, 16, 1).t, 0.01, 1e-12);
	cr_assert_float_eq(comm_a2a_limited(&s, 1e9, 16, 1, 0.5).t, 0.005, 1e-12);
	cr_assert_float_eq(comm_a2a_limited(&s, 1e9, 16, 1, 0.5).t_level[0], 0.875 * 0.5e9 / 400e9, 1e-12);
	cr_assert_float_eq(comm_a2a_limited(&s, 1e9, 16, 1, 1).t, 0.01, 1e-12);
}
