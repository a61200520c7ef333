/* opt and the layout ranges: whole-string option values, sweep lists, plan_parse and
 * plan_limits (lim.h). */
#include <criterion/criterion.h>
#include <string.h>

#include "base/lim.h"
#include "base/opt.h"
#include "model/plan.h"
#include "engine/sweep.h"

Test(opt, whole_numbers_are_the_whole_string)
{
	long long v;
	int a, b;
	cr_assert_eq(opt_whole("42", 1, 100, &v), 0);
	cr_assert_eq(v, 42);
	static const char *const bad[] = {"5x", "1e3", " 5", "5 ", "+5", "-5", "", "0x10", "1.0",
					  "99999999999999999999999", "101", "0"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		cr_assert_eq(opt_whole(bad[i], 1, 100, &v), -1, "'%s' accepted", bad[i]);
	cr_assert_eq(opt_whole("-5", -10, 10, &v), 0);
	cr_assert_eq(v, -5);
	cr_assert_eq(opt_int_pair("1/3", '/', 0, 9, &a, &b), 0);
	cr_assert(a == 1 && b == 3);
	cr_assert_eq(opt_int_pair("1/3x", '/', 0, 9, &a, &b), -1);
	cr_assert_eq(opt_int_pair("13", '/', 0, 9, &a, &b), -1);
}

Test(opt, numbers_are_finite_decimals)
{
	double x, y;
	cr_assert_eq(opt_number("2.5", &x), 0);
	cr_assert_float_eq(x, 2.5, 0);
	cr_assert_eq(opt_number("1e3", &x), 0);
	cr_assert_float_eq(x, 1000, 0);
	cr_assert_eq(opt_number(".5", &x), 0);
	static const char *const bad[] = {"nan", "inf", "-inf", "0x10", "1e999", "1e", "5x", " 1", "", ".", "1..2"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		cr_assert_eq(opt_number(bad[i], &x), -1, "'%s' accepted", bad[i]);
	cr_assert_eq(opt_number_pair("10:30", ':', &x, &y), 0);
	cr_assert(x == 10 && y == 30);
	cr_assert_eq(opt_number_pair("nan:nan", ':', &x, &y), -1);
}

Test(opt, sweep_lists_are_strict)
{
	sweep_list l;
	cr_assert_eq(sweep_parse_list("8-64", &l), 0);
	cr_assert_eq(l.n, 4);   /* 8 16 32 64 */
	cr_assert_eq(sweep_parse_list("1-10:3", &l), 0);
	cr_assert_eq(l.n, 4);   /* 1 4 7 10 */
	static const char *const bad[] = {"x", " 1", "1-", "4-2", "1-8:0", "1-8:x", "0-4", "1,,2x",
					  "1-200000000", "1-10:9223372036854775807", "1-65:1"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		cr_assert_eq(sweep_parse_list(bad[i], &l), -1, "'%s' accepted", bad[i]);
}

Test(opt, plan_parse_ranges)
{
	plan p;
	err e = {0};
	memset(&p, 0, sizeof p);
	cr_assert_eq(plan_parse("tp=8,pp=4,mb=2", &p, &e), 0, "%s", e.msg);
	cr_assert(p.tp == 8 && p.pp == 4 && p.micro_batch == 2);
	cr_assert_neq(plan_parse("tp= 8", &p, &e), 0);
	cr_assert_neq(plan_parse("tp=+8", &p, &e), 0);
	cr_assert_neq(plan_parse("vpp=100000000", &p, &e), 0);
	cr_assert_str_eq(e.msg, "--plan vpp: 100000000 is more than 1000");
	cr_assert_neq(plan_parse("tp=99999999999", &p, &e), 0);
}

Test(opt, plan_limits_hold_products_below_2_to_31)
{
	char why[160];
	plan p;
	memset(&p, 0, sizeof p);
	/* dp 65536 x mb 65536 = 2^32 sequences: wrapped to 0 and divided by (SIGFPE). */
	p.dp = 65536;
	p.micro_batch = 65536;
	cr_assert_eq(plan_limits(&p, 1, why, sizeof why), -1);
	cr_assert_str_eq(why, "the layout's dp*micro_batch = 4294967296 is more than 100000000 sequences per step");
	/* 10^4 x 10^4 = 10^8 chips is the largest layout; one more tp is too many. */
	memset(&p, 0, sizeof p);
	p.tp = 10000;
	p.dp = 10000;
	cr_assert_eq(plan_limits(&p, 1, NULL, 0), 0);
	p.cp = 2;
	cr_assert_eq(plan_limits(&p, 1, why, sizeof why), -1);
	/* tp*cp*ep: 10^4 x 1 x 10^5 = 10^9 chips in one expert group. */
	memset(&p, 0, sizeof p);
	p.tp = 10000;
	p.ep = 100000;
	cr_assert_eq(plan_limits(&p, 1, why, sizeof why), -1);
	/* The workload's micro-batch counts where the plan has none: 10^3 x 10^6 = 10^9. */
	memset(&p, 0, sizeof p);
	p.dp = 1000;
	cr_assert_eq(plan_limits(&p, 1000000, why, sizeof why), -1);
	cr_assert_eq(plan_limits(&p, 100000, why, sizeof why), 0);
	/* Degrees past int would be products past int64: refused one by one first. */
	memset(&p, 0, sizeof p);
	p.tp = p.pp = p.dp = p.cp = 2000000000;
	cr_assert_eq(plan_limits(&p, 1, why, sizeof why), -1);
}

Test(opt, sweep_size_saturates_and_slices_add_up)
{
	sweep_space s;
	uint64_t lo, hi, sum = 0;
	memset(&s, 0, sizeof s);
	sweep_list *l[] = {&s.chips, &s.tp, &s.pp, &s.vpp, &s.cp, &s.ep, &s.sp, &s.mb, &s.zero, &s.recompute};
	for (int i = 0; i < 10; i++)
		l[i]->n = 64;
	/* 128 * 64^10 = 2^67: more than fits; it wrapped to 0 ("0 layouts"). */
	cr_assert_eq(sweep_size(&s, 128), UINT64_MAX);
	for (int i = 0; i < 10; i++)
		l[i]->n = 1;
	l[0]->n = 7;
	cr_assert_eq(sweep_size(&s, 3), 21);
	for (int i = 0; i < 4; i++) {
		sweep_slice(21, i, 4, &lo, &hi);
		sum += hi - lo;
	}
	cr_assert_eq(sum, 21);
	sweep_slice(UINT64_MAX - 1, 2, 3, &lo, &hi);   /* no overflow in total * shard */
	cr_assert_eq(hi, UINT64_MAX - 1);
}
