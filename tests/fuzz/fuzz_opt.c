/* libFuzzer harness: the parsers of option values (--plan, sweep lists, whole numbers, pairs,
 * numbers with units, --set, baseline --criteria and --tolerance) and plan_limits on what they
 * accept. The input is split at line
 * feeds; each piece goes through every parser. Seeds: tests/fuzz/seeds/opt. */
#include "fuzz_common.h"

#include "store/baseline.h"
#include "base/cfg.h"
#include "base/opt.h"
#include "model/plan.h"
#include "engine/sweep.h"
#include "base/text.h"
#include "base/units.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void one(const char *s)
{
	long long ll;
	double a, b;
	int x, y;
	plan p;
	sweep_list l;
	char why[160], esc[1024];
	err e = {0};
	memset(&p, 0, sizeof p);
	if (plan_parse(s, &p, &e) == 0 && plan_limits(&p, 1, why, sizeof why) == 0) {
		plan_fill(&p);
		if (plan_limits(&p, 1, NULL, 0) == 0)
			plan_format(&p, why, sizeof why);
	}
	sweep_parse_list(s, &l);
	opt_whole(s, -1000, 1000000, &ll);
	opt_whole(s, 0, 9223372036854775807LL, &ll);
	opt_int(s, 1, 256, &x);
	opt_number(s, &a);
	opt_int_pair(s, '/', 0, 1000000, &x, &y);
	opt_int_pair(s, '-', 1, 100000000, &x, &y);
	opt_number_pair(s, ':', &a, &b);
	for (int k = UNITS_NONE; k <= UNITS_FLOPS; k++)
		units_parse(s, (units_kind)k, &a, why, sizeof why);
	text_escape(esc, sizeof esc, s);
	{
		static baseline_rules r;
		memset(&r, 0, sizeof r);
		baseline_parse_criteria(s, &r, &e);
		baseline_parse_tolerance(s, &r, &e);
	}
	{
		static const cfg_field f[] = {
			{"a", "n", CFG_NUM, UNITS_BYTES, 0, 1, 1e12, 0, 0, NULL},
		};
		cfg_doc d;
		double out = 0;
		memset(&d, 0, sizeof d);
		if (cfg_override(&d, f, 1, s, &e) == 0)
			cfg_extract(&d, f, 1, NULL, &out, &e);
		cfg_release(&d);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size + 1), *s;
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	s = buf;
	for (;;) {
		char *nl = strchr(s, '\n');
		if (nl)
			*nl = '\0';
		one(s);
		if (!nl)
			break;
		s = nl + 1;
	}
	free(buf);
	return 0;
}
