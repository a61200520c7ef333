/* num: fmax and fmin inline, as the engine's hot loops call them.
 *
 * The same values as libm's for every argument (a NaN gives the other argument; of two equal
 * values the second), without a call: libm's fmax is not inlined at -O2 and costs a call per
 * tile candidate and per overlapped collective. Header only, no state. */
#ifndef ROOFCOST_NUM_H
#define ROOFCOST_NUM_H

#include <math.h>

/* Before a loop over a handful of items fixed at compile time (the HW_LEVELS_MAX levels, the
 * phases and kinds of an op, torus dimensions): unrolled whole, as the engine's inner loops
 * run them for every layout. */
#define NUM_UNROLL _Pragma("GCC unroll 8")

static inline double num_max(double a, double b)
{
	if (isnan(a))
		return b;
	if (isnan(b))
		return a;
	return a > b ? a : b;
}

static inline double num_min(double a, double b)
{
	if (isnan(a))
		return b;
	if (isnan(b))
		return a;
	return a < b ? a : b;
}

#endif
