/* units: quantities with units into SI. */
#include <criterion/criterion.h>
#include <string.h>

#include "base/units.h"

static double parse_ok(const char *s, units_kind k)
{
	double v = -1;
	char why[128];
	cr_assert_eq(units_parse(s, k, &v, why, sizeof why), 0, "'%s': %s", s, why);
	return v;
}

Test(units, bytes_binary_and_decimal)
{
	/* AWS writes GiB (2^30), NVIDIA GB (1e9): 96 GiB = 103,079,215,104 B. */
	cr_assert_float_eq(parse_ok("96 GiB", UNITS_BYTES), 96.0 * 1073741824.0, 1);
	cr_assert_float_eq(parse_ok("80 GB", UNITS_BYTES), 80e9, 1);
	cr_assert_float_eq(parse_ok("224 MiB", UNITS_BYTES), 224.0 * 1048576.0, 1);
}

Test(units, bandwidth_bits_and_bytes)
{
	cr_assert_float_eq(parse_ok("2.9 TB/s", UNITS_BW), 2.9e12, 1);
	/* 3,200 Gbps EFA = 400 GB/s. */
	cr_assert_float_eq(parse_ok("3200 Gbps", UNITS_BW), 400e9, 1);
	cr_assert_float_eq(parse_ok("192 GiB/s", UNITS_BW), 192.0 * 1073741824.0, 1);
}

Test(units, time_and_flops)
{
	cr_assert_float_eq(parse_ok("2 us", UNITS_TIME), 2e-6, 1e-15);
	cr_assert_float_eq(parse_ok("200 ms", UNITS_TIME), 0.2, 1e-12);
	cr_assert_float_eq(parse_ok("667 TFLOP/s", UNITS_FLOPS), 667e12, 1);
	cr_assert_float_eq(parse_ok("1.5e3", UNITS_NONE), 1500, 1e-9);
}

Test(units, rejects_wrong_or_missing_units)
{
	double v;
	char why[128];
	cr_assert_neq(units_parse("96", UNITS_BYTES, &v, why, sizeof why), 0);
	cr_assert(strstr(why, "no unit"));
	cr_assert_neq(units_parse("2 us", UNITS_BYTES, &v, why, sizeof why), 0);
	cr_assert(strstr(why, "does not fit"));
	cr_assert_neq(units_parse("abc GB", UNITS_BYTES, &v, why, sizeof why), 0);
	cr_assert(strstr(why, "not a number"));
	cr_assert_neq(units_parse("3 parsecs", UNITS_TIME, &v, why, sizeof why), 0);
	cr_assert(strstr(why, "unknown unit"));
	cr_assert_neq(units_parse("nan", UNITS_NONE, &v, why, sizeof why), 0);
	cr_assert_neq(units_parse("inf GB", UNITS_BYTES, &v, why, sizeof why), 0);
	cr_assert_neq(units_parse("", UNITS_NONE, &v, why, sizeof why), 0);
	/* Case matters: Mb is bits, MB bytes; "mb" is neither. */
	cr_assert_neq(units_parse("5 mb", UNITS_BYTES, &v, why, sizeof why), 0);
}

/* Issue 19: counts take k, M, B, T (--set tokens=1T), nothing else does. */
Test(units, counts_take_k_m_b_t)
{
	double v;
	char why[128];
	cr_assert_eq(units_parse("1T", UNITS_COUNT, &v, why, sizeof why), 0, "%s", why);
	cr_assert_float_eq(v, 1e12, 1e-3);
	cr_assert_eq(units_parse("1.5M", UNITS_COUNT, &v, why, sizeof why), 0, "%s", why);
	cr_assert_float_eq(v, 1.5e6, 1e-9);
	cr_assert_eq(units_parse("2k", UNITS_COUNT, &v, why, sizeof why), 0, "%s", why);
	cr_assert_float_eq(v, 2000.0, 1e-9);
	cr_assert_eq(units_parse("2 K", UNITS_COUNT, &v, why, sizeof why), 0, "%s", why);
	cr_assert_float_eq(v, 2000.0, 1e-9);
	cr_assert_eq(units_parse("15B", UNITS_COUNT, &v, why, sizeof why), 0, "%s", why);
	cr_assert_float_eq(v, 15e9, 1e-3);
	cr_assert_eq(units_parse("300", UNITS_COUNT, &v, why, sizeof why), 0, "%s", why);
	cr_assert_float_eq(v, 300.0, 1e-12);
	cr_assert_eq(units_parse("1Q", UNITS_COUNT, &v, why, sizeof why), -1);
	cr_assert(strstr(why, "unknown unit 'Q'"), "%s", why);
	cr_assert_eq(units_parse("1m", UNITS_COUNT, &v, why, sizeof why), -1);
	/* A plain number stays plain. */
	cr_assert_eq(units_parse("1T", UNITS_NONE, &v, why, sizeof why), -1);
}
