/* lim: the ranges of the counts that the tool multiplies, stated in one place.
 *
 * Constants only, no code. Every loader and option parser holds what it reads to these ranges
 * (nn and wl fields, system levels, validation rows, --plan, --chips, --set, sweep lists), and
 * plan_limits holds a layout's products to them, so that every product the engine forms in
 * int stays below 2^31 (about 2.1e9):
 *   chips = tp*pp*dp*cp <= LIM_CHIPS, and so does any part of it (tp*cp, tp*cp*dp, ...);
 *   the expert group tp*cp*ep <= LIM_CHIPS;
 *   sequences per step dp*micro_batch <= LIM_BATCH;
 *   pp*vpp <= LIM_PP*LIM_VPP = 1e7;
 *   attention widths heads*head_dim, 2*kv_heads*head_dim and the active expert width
 *   expert_ffn*(experts_active + shared_experts) <= LIM_WIDTH;
 * and a network holds at most LIM_PARAMS parameters (counted in doubles). Larger products
 * (tokens per step, FLOPs, bytes) are doubles. A limit changed here needs these claims checked
 * again. The ranges are far beyond any machine or model published (the largest clusters are
 * ~1e5 chips, the largest models ~2e12 parameters). */
#ifndef ROOFCOST_LIM_H
#define ROOFCOST_LIM_H

enum {
	LIM_CHIPS = 100000000,         /* chips in a layout or in a system level (1e8) */
	LIM_PP = 10000,                /* pipeline stages (no network has more layers) */
	LIM_VPP = 1000,                /* virtual stages per pipeline stage */
	LIM_BATCH = 100000000,         /* sequences in a global batch, and dp*micro_batch */
	LIM_MICRO_BATCH = 1000000,     /* sequences in a micro-batch */
	LIM_TOKENS = 100000000,        /* tokens in a sequence, prompt, output or context */
	LIM_CONCURRENCY = 10000000,    /* requests in flight */
	LIM_LAYERS = 10000,
	LIM_HIDDEN = 1000000,
	LIM_HEADS = 100000,
	LIM_HEAD_DIM = 100000,
	LIM_WIDTH = 10000000,          /* heads*head_dim, FFN widths */
	LIM_VOCAB = 100000000,
	LIM_EXPERTS = 100000
};

#define LIM_PARAMS 1e15                /* parameters of one network */

#endif
