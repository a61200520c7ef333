/* baseline: canonical JSON and hashes against known vectors, the --criteria and --tolerance
 * parsers, the verdict on a figure, INI diffs and the attribution of a moved figure. */
#include <cJSON.h>
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/baseline.h"

static char *canon_of(const char *json, int pretty)
{
	cJSON *j = cJSON_Parse(json);
	char *s;
	cr_assert(j, "test JSON does not parse: %s", json);
	s = baseline_canonical(j, pretty);
	cJSON_Delete(j);
	return s;
}

Test(baseline, sha256_known_vectors)
{
	/* FIPS 180-2 appendix B.1 ("abc") and the empty message. */
	char h[BASELINE_SHA_HEX];
	baseline_sha256("abc", 3, h);
	cr_assert_str_eq(h, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	baseline_sha256("", 0, h);
	cr_assert_str_eq(h, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

Test(baseline, canonical_json_sorted_one_number_format)
{
	/* Keys sorted by bytes at every depth; 1e21 (>= 2^53) in the shortest form with a bare
	 * exponent; -0.0 as 0; 1e-7 without a padded exponent; \n kept as \n, U+0001 as \u0001,
	 * é (C3 A9) as its bytes. The SHA-256 is of the expected text, from sha256sum:
	 * printf '{"a":[1,0.5,"x\\n\\u0001\xc3\xa9",true,null,{}],"b":2,"c":{"w":0.1,"x":1e21,
	 * "y":0,"z":1e-7}}' | sha256sum. */
	const char *want = "{\"a\":[1,0.5,\"x\\n\\u0001\xc3\xa9\",true,null,{}],\"b\":2,"
			   "\"c\":{\"w\":0.1,\"x\":1e21,\"y\":0,\"z\":1e-7}}";
	char *s = canon_of("{ \"c\": {\"z\": 1e-7, \"y\": -0.0, \"x\": 1e21, \"w\": 0.10},\n"
			   "  \"b\": 2.0, \"a\": [1, 5e-1, \"x\\n\\u0001\\u00e9\", true, null, {}] }", 0);
	char h[BASELINE_SHA_HEX];
	cr_assert_str_eq(s, want);
	baseline_sha256(s, strlen(s), h);
	cr_assert_str_eq(h, "d465826168d4bc0ef1e266e823c0e55470eff9ee962669ad339921af3ab87504");
	free(s);
	/* The canonical text is a fixed point: parsing and writing it again changes nothing. */
	s = canon_of(want, 0);
	cr_assert_str_eq(s, want);
	free(s);
}

Test(baseline, canonical_pretty_and_duplicates)
{
	char *s = canon_of("{\"b\":[2],\"a\":1,\"e\":[],\"d\":{}}", 1);
	cr_assert_str_eq(s, "{\n  \"a\": 1,\n  \"b\": [\n    2\n  ],\n  \"d\": {},\n  \"e\": []\n}");
	free(s);
	/* One key twice has no canonical form. */
	cr_assert_null(canon_of("{\"a\":1,\"a\":2}", 0));
}

Test(baseline, numbers)
{
	/* Integers below 2^53 plainly; others the shortest %g that reads back exactly. */
	static const struct { double v; const char *s; } cases[] = {
		{16384, "16384"}, {-3, "-3"}, {0.1, "0.1"}, {1.0 / 3, "0.3333333333333333"},
		{9007199254740992.0, "9007199254740992"}, {1.5e300, "1.5e300"}, {-2.5e-10, "-2.5e-10"},
		{55.04, "55.04"}, {6.3102873007272766, "6.310287300727277"},
	};
	char buf[48];
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		baseline_number(cases[i].v, buf, sizeof buf);
		cr_assert_str_eq(buf, cases[i].s);
		cr_assert_eq(strtod(buf, NULL), cases[i].v);
	}
	baseline_number(NAN, buf, sizeof buf);
	cr_assert_str_eq(buf, "null");
	baseline_number(-INFINITY, buf, sizeof buf);
	cr_assert_str_eq(buf, "null");
}

Test(baseline, chain)
{
	/* SHA-256 of the 128 characters genesis + sha256("abc"), from sha256sum. */
	char h[BASELINE_SHA_HEX];
	baseline_chain(baseline_genesis, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad", h);
	cr_assert_str_eq(h, "4a34d8903725e463cc50188166be96a3dbe0fbcadb50ad26370d14eac39deab6");
}

Test(baseline, criteria_parser)
{
	baseline_rules r = {0};
	err e = {0};
	char text[256];
	cr_assert_eq(baseline_parse_criteria("tpot_ms<=50, usd_per_unit<4.5,interruption_loss_pct<=3,"
					     "mfu>=0.4,cost.total_usd>1e6,feasible=1", &r, &e), 0, "%s", e.msg);
	cr_assert_eq(r.ncrit, 6);
	cr_assert_str_eq(r.crit[0].figure, "tpot_ms");
	cr_assert_eq(r.crit[0].op, BASELINE_LE);
	cr_assert_eq(r.crit[0].limit, 50);
	cr_assert_eq(r.crit[1].op, BASELINE_LT);
	cr_assert_eq(r.crit[3].op, BASELINE_GE);
	cr_assert_eq(r.crit[4].op, BASELINE_GT);
	cr_assert_str_eq(r.crit[4].figure, "cost.total_usd");
	cr_assert_eq(r.crit[5].op, BASELINE_EQ);
	baseline_criteria_text(&r, text, sizeof text);
	cr_assert_str_eq(text, "tpot_ms<=50,usd_per_unit<4.5,interruption_loss_pct<=3,mfu>=0.4,"
			       "cost.total_usd>1000000,feasible=1");
	{
		/* The canonical text reads back to the same rules. */
		baseline_rules again = {0};
		cr_assert_eq(baseline_parse_criteria(text, &again, &e), 0);
		cr_assert_eq(memcmp(again.crit, r.crit, sizeof r.crit), 0);
	}
	cr_assert_eq(baseline_parse_criteria("", &r, &e), 0);
	cr_assert_eq(r.ncrit, 0);
}

Test(baseline, criteria_errors)
{
	static const struct { const char *in, *msg; } bad[] = {
		{"tpot_ms<=abc", "--criteria: 'tpot_ms<=abc': not a number"},
		{"tpot_ms<=", "--criteria: 'tpot_ms<=': not a number"},
		{"tpot_ms<=nan", "--criteria: 'tpot_ms<=nan': not a number"},
		{"tpot_ms", "--criteria: 'tpot_ms': expected FIGURE<=LIMIT (or <, >=, >, =)"},
		{"TPOT<=5", "--criteria: 'TPOT<=5': 'TPOT' is not a figure name (a-z, 0-9, _ and .)"},
		{"<=5", "--criteria: '<=5': '' is not a figure name (a-z, 0-9, _ and .)"},
		{"a<=1,,b<=2", "--criteria: an empty item in 'a<=1,,b<=2'"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		baseline_rules r = {0};
		err e = {0};
		cr_assert_eq(baseline_parse_criteria(bad[i].in, &r, &e), ERR_USAGE, "%s", bad[i].in);
		cr_assert_str_eq(e.msg, bad[i].msg);
	}
}

Test(baseline, tolerance_parser)
{
	baseline_rules r = {0};
	err e = {0};
	char text[256];
	const baseline_tolerance *t;
	cr_assert_eq(baseline_parse_tolerance("tokens_per_s=5%,*=2%,tpot_ms=0.5", &r, &e), 0, "%s", e.msg);
	cr_assert_eq(r.ntol, 3);
	t = baseline_tolerance_for(&r, "tokens_per_s");
	cr_assert(t->relative && t->value == 5);
	t = baseline_tolerance_for(&r, "tpot_ms");
	cr_assert(!t->relative && t->value == 0.5);
	t = baseline_tolerance_for(&r, "mfu");
	cr_assert_str_eq(t->figure, "*");
	cr_assert_eq(t->value, 2);
	baseline_tolerance_text(&r, text, sizeof text);
	cr_assert_str_eq(text, "tokens_per_s=5%,*=2%,tpot_ms=0.5");
	/* Without "*", the default applies to every other figure. */
	cr_assert_eq(baseline_parse_tolerance("tokens_per_s=5%", &r, &e), 0);
	baseline_tolerance_text(&r, text, sizeof text);
	cr_assert_str_eq(text, "tokens_per_s=5%,*=1%");
	cr_assert_eq(baseline_parse_tolerance("", &r, &e), 0);
	baseline_tolerance_text(&r, text, sizeof text);
	cr_assert_str_eq(text, "*=1%");
}

Test(baseline, tolerance_errors)
{
	static const struct { const char *in, *msg; } bad[] = {
		{"x=abc", "--tolerance: 'x=abc': not a number"},
		{"x=5%%", "--tolerance: 'x=5%%': not a number"},
		{"x=-5%", "--tolerance: 'x=-5%': must be at least 0"},
		{"x", "--tolerance: 'x': expected FIGURE=PERCENT% or FIGURE=AMOUNT"},
		{"x=1%,x=2%", "--tolerance: 'x=2%': x has a tolerance already"},
		{"X Y=1%", "--tolerance: 'X Y=1%': 'X Y' is not a figure name (a-z, 0-9, _ and .) or *"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		baseline_rules r = {0};
		err e = {0};
		cr_assert_eq(baseline_parse_tolerance(bad[i].in, &r, &e), ERR_USAGE, "%s", bad[i].in);
		cr_assert_str_eq(e.msg, bad[i].msg);
	}
}

static baseline_value num(double v)
{
	baseline_value x = {0};
	x.kind = BASELINE_NUM;
	x.num = v;
	return x;
}

static baseline_value text(const char *s)
{
	baseline_value x = {0};
	x.kind = BASELINE_TEXT;
	snprintf(x.text, sizeof x.text, "%s", s);
	return x;
}

Test(baseline, judge)
{
	baseline_rules r = {0};
	baseline_judgement j;
	baseline_value rec = num(100), now = num(104);
	err e = {0};
	cr_assert_eq(baseline_parse_tolerance("tokens_per_s=5%,*=2%,tpot_ms=0.5", &r, &e), 0);
	cr_assert_eq(baseline_parse_criteria("tpot_ms<=50", &r, &e), 0);
	/* 100 -> 104: +4 %, within 5 %; beyond the 2 % of "*". */
	baseline_judge(&r, "tokens_per_s", &rec, &now, &j);
	cr_assert(j.moved && !j.drifted && !j.fell_short);
	cr_assert_float_eq(j.change, 0.04, 1e-12);
	cr_assert_str_eq(j.limit, "+-5%");
	cr_assert_str_eq(j.verdict, "pass");
	/* mfu is better higher: +4 % beyond the 2 % of "*" is an improvement, which passes unless
	 * every move beyond the tolerance fails (--fail-on any). */
	baseline_judge(&r, "mfu", &rec, &now, &j);
	cr_assert(j.drifted && j.improved && !j.regressed && j.direction == 1);
	cr_assert_str_eq(j.verdict, "improved");
	cr_assert_not(baseline_fails(&j, 0));
	cr_assert(baseline_fails(&j, 1));
	/* tpot_ms 49.8 -> 50.2: 0.4 ms within the absolute 0.5 ms, but above the limit 50. */
	rec = num(49.8);
	now = num(50.2);
	baseline_judge(&r, "tpot_ms", &rec, &now, &j);
	cr_assert(!j.drifted && j.fell_short);
	cr_assert_str_eq(j.limit, "+-0.5, <=50");
	cr_assert_str_eq(j.verdict, "fell short: 50.2 > 50");
	/* A criterion on a figure without a value fails. */
	now.kind = BASELINE_NULL;
	baseline_judge(&r, "tpot_ms", &rec, &now, &j);
	cr_assert(j.fell_short && j.drifted);
	cr_assert_str_eq(j.verdict, "fell short: null, not <=50, changed");
	/* Text must stay as recorded. */
	rec = text("tp=8 pp=1 dp=1");
	now = text("tp=4 pp=1 dp=2");
	baseline_judge(&r, "layout", &rec, &now, &j);
	cr_assert(j.drifted);
	cr_assert_str_eq(j.verdict, "changed");
	cr_assert_str_eq(j.limit, "=");
	cr_assert(j.regressed && baseline_fails(&j, 0), "a text that moved has no better way");
	/* A recorded 0 allows no relative drift. */
	rec = num(0);
	now = num(1e-9);
	baseline_judge(&r, "x", &rec, &now, &j);
	cr_assert(j.drifted && isnan(j.change));
}

Test(baseline, drift_has_a_direction)
{
	baseline_rules r = {0};
	baseline_judgement j;
	baseline_value rec = num(100), now = num(90);
	err e = {0};
	cr_assert_eq(baseline_parse_tolerance("*=2%", &r, &e), 0);
	cr_assert_eq(baseline_parse_criteria("queue_depth<=8,hit_rate>=0.9", &r, &e), 0);
	/* tokens_per_s 100 -> 90: -10 %, the worse way for a rate. */
	baseline_judge(&r, "tokens_per_s", &rec, &now, &j);
	cr_assert(j.drifted && j.regressed && !j.improved);
	cr_assert_str_eq(j.verdict, "regressed");
	cr_assert(baseline_fails(&j, 0));
	/* usd_per_unit 100 -> 90: cheaper, the better way for money (the -48 % price cut of
	 * issue 21 read as "fell short"). */
	baseline_judge(&r, "usd_per_unit", &rec, &now, &j);
	cr_assert(j.improved && !j.regressed && j.direction == -1);
	cr_assert_str_eq(j.verdict, "improved");
	cr_assert_not(baseline_fails(&j, 0));
	/* A figure nothing orders: any move beyond the tolerance is a change that fails. */
	baseline_judge(&r, "layers", &rec, &now, &j);
	cr_assert(j.direction == 0 && j.regressed);
	cr_assert_str_eq(j.verdict, "changed");
	/* feasible true -> false regresses; false -> true improves. */
	rec.kind = now.kind = BASELINE_BOOL;
	rec.num = 1;
	now.num = 0;
	baseline_judge(&r, "feasible", &rec, &now, &j);
	cr_assert(j.regressed);
	cr_assert_str_eq(j.verdict, "regressed");
	baseline_judge(&r, "feasible", &now, &rec, &j);
	cr_assert(j.improved);
	/* The better way: the table, then the criteria (<= asks lower, >= higher), then the name. */
	cr_assert_eq(baseline_direction(&r, "mem_per_chip_gib"), -1);
	cr_assert_eq(baseline_direction(&r, "queue_depth"), -1);
	cr_assert_eq(baseline_direction(&r, "hit_rate"), 1);
	cr_assert_eq(baseline_direction(&r, "cost.total_usd"), -1);
	cr_assert_eq(baseline_direction(&r, "serve.decode_tokens_per_s"), 1);
	cr_assert_eq(baseline_direction(&r, "interruption.redo_s"), -1);
	cr_assert_eq(baseline_direction(&r, "layout"), 0);
}

Test(baseline, keyed_links)
{
	/* RFC 4231 test case 2: HMAC-SHA256 with key "Jefe" of "what do ya want for nothing?". */
	baseline_key k = {"Jefe", 4};
	char h[BASELINE_SHA_HEX], id[BASELINE_KEY_ID], plain[BASELINE_SHA_HEX];
	baseline_hmac(&k, "what do ya want for nothing?", 28, h);
	cr_assert_str_eq(h, "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
	/* Without a key a link is the unkeyed chain; with one it is an HMAC, and another. */
	baseline_link(NULL, baseline_genesis, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad", plain);
	cr_assert_str_eq(plain, "4a34d8903725e463cc50188166be96a3dbe0fbcadb50ad26370d14eac39deab6");
	baseline_link(&k, baseline_genesis, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad", h);
	cr_assert_str_neq(h, plain);
	baseline_key_id(&k, id);
	cr_assert_eq(strlen(id), 16);
	baseline_key_id(NULL, id);
	cr_assert_str_eq(id, "");
}

Test(baseline, value_of_paths)
{
	cJSON *j = cJSON_Parse("{\"a\":1.5,\"b\":{\"c\":null,\"d\":true},\"s\":\"x\",\"p\":{\"tp\":8,\"dp\":2}}");
	baseline_value v;
	baseline_value_of(j, "a", &v);
	cr_assert(v.kind == BASELINE_NUM && v.num == 1.5);
	baseline_value_of(j, "b.c", &v);
	cr_assert_eq(v.kind, BASELINE_NULL);
	baseline_value_of(j, "b.d", &v);
	cr_assert(v.kind == BASELINE_BOOL && v.num == 1);
	baseline_value_of(j, "b.e", &v);
	cr_assert_eq(v.kind, BASELINE_ABSENT);
	baseline_value_of(j, "a.x", &v);
	cr_assert_eq(v.kind, BASELINE_ABSENT);
	baseline_value_of(j, "p", &v);
	cr_assert_eq(v.kind, BASELINE_TEXT);
	cr_assert_str_eq(v.text, "{\"dp\":2,\"tp\":8}");
	cJSON_Delete(j);
}

Test(baseline, figures_of_a_mode)
{
	/* The headline figures, then what the rules name beyond them, once each. */
	baseline_rules r = {0};
	const char *names[64];
	err e = {0};
	int n;
	cr_assert_eq(baseline_parse_criteria("tpot_ms<=50,cost.total_usd<=9", &r, &e), 0);
	cr_assert_eq(baseline_parse_tolerance("batch=1,tpot_ms=1%", &r, &e), 0);
	n = baseline_figures("infer", &r, names, 64);
	cr_assert_str_eq(names[0], "feasible");
	cr_assert_str_eq(names[n - 2], "cost.total_usd");
	cr_assert_str_eq(names[n - 1], "batch");
	for (int i = 0; i < n; i++)
		cr_assert(strcmp(names[i], "step_time_s") != 0);
	n = baseline_figures("train", &r, names, 64);
	cr_assert_str_eq(names[3], "step_time_s");
}

Test(baseline, ini_diff)
{
	const char *old = "[chip]\nname = x\n; a comment\n[memory]\nhbm = 96 GiB\nhbm_bw = 2.9 TB/s  # HBM3\n"
			  "sram = 24 MiB\n";
	const char *now = "[chip]\nname = x\n[memory]\nhbm = 96 GiB\nhbm_bw = 1.5 TB/s\n"
			  "[efficiency]\nhbm = 0.8\n";
	baseline_change c[8];
	int more;
	err e = {0};
	char line[512];
	int n = baseline_ini_diff("chip.ini", old, now, c, 8, &more, &e);
	cr_assert_eq(n, 3, "%s", e.msg);
	cr_assert_str_eq(c[0].key, "hbm_bw");
	cr_assert_str_eq(c[0].old, "2.9 TB/s");
	cr_assert_str_eq(c[0].now, "1.5 TB/s");
	baseline_change_text("models/hw/chips/x.ini", &c[0], line, sizeof line);
	cr_assert_str_eq(line, "models/hw/chips/x.ini: [memory] hbm_bw: 2.9 TB/s -> 1.5 TB/s");
	cr_assert(c[1].removed);
	baseline_change_text("x.ini", &c[1], line, sizeof line);
	cr_assert_str_eq(line, "x.ini: [memory] sram: removed, was 24 MiB");
	cr_assert(c[2].added);
	cr_assert_str_eq(c[2].section, "efficiency");
	/* Only the first is kept when max is 1. */
	cr_assert_eq(baseline_ini_diff("chip.ini", old, now, c, 1, &more, &e), 1);
	cr_assert_eq(more, 2);
	/* Comments and layout are not keys. */
	cr_assert_eq(baseline_ini_diff("a", "[a]\nk=1\n", "; new\n[a]\nk = 1 ; same\n", c, 8, &more, &e), 0);
	/* A text that does not parse names itself. */
	cr_assert_eq(baseline_ini_diff("frozen/x.ini", "[a]\nk=1\n", "[a]\nk=1\nk=2\n", c, 8, &more, &e), -1);
	cr_assert(strstr(e.msg, "frozen/x.ini:3: k: duplicate key"), "%s", e.msg);
}

Test(baseline, attribution)
{
	/* Figures: 0 tokens_per_s, 1 usd_per_unit, 2 mfu, 3 layout. Causes: 0 the chip file,
	 * 1 the price. Today the chip file slows tokens/s and mfu, the price moves only the
	 * cost, the tool changed nothing (frozen = recorded), the layout did not move. */
	baseline_value rec[4] = {num(100), num(5), num(0.5), text("tp=8")};
	baseline_value frozen[4] = {num(100), num(5), num(0.5), text("tp=8")};
	baseline_value chip[4] = {num(90), num(5.5), num(0.45), text("tp=8")};
	baseline_value price[4] = {num(100), num(6), num(0.5), text("tp=8")};
	baseline_value now[4] = {num(90), num(6.6), num(0.45), text("tp=8")};
	const baseline_value *swapped[2] = {chip, price};
	unsigned why[4];
	baseline_attribute(4, rec, now, frozen, 2, swapped, why);
	cr_assert_eq(why[0], 1u << 1);
	cr_assert_eq(why[1], (1u << 1) | (1u << 2));
	cr_assert_eq(why[2], 1u << 1);
	cr_assert_eq(why[3], 0u);
	/* A tool change: the frozen inputs give another figure than recorded. */
	frozen[2] = chip[2] = price[2] = now[2] = num(0.55);
	baseline_attribute(4, rec, now, frozen, 2, swapped, why);
	cr_assert_eq(why[2], 1u);
	/* Causes that only act together: each alone leaves mfu as frozen, today moves it. */
	now[2] = num(0.6);
	baseline_attribute(4, rec, now, frozen, 2, swapped, why);
	cr_assert_eq(why[2], 1u | (1u << 1) | (1u << 2));
	/* A failed evaluation from the frozen inputs blames everything. */
	baseline_attribute(4, rec, now, NULL, 2, swapped, why);
	cr_assert_eq(why[0], 7u);
	cr_assert_eq(why[3], 0u);
}

Test(baseline, export_import_sound)
{
	/* A record with one input whose text hashes to its sha256 (of "[a]\nk = 1\n"). */
	char sha[BASELINE_SHA_HEX], in_sha[BASELINE_SHA_HEX], got[BASELINE_SHA_HEX], why[256];
	char json[512], *text, *doc, *back;
	err e = {0};
	baseline_sha256("[a]\nk = 1\n", 10, in_sha);
	snprintf(json, sizeof json, "{\"name\":\"r1\",\"inputs\":[{\"role\":\"chip\",\"text\":\"[a]\\nk = 1\\n\","
		 "\"sha256\":\"%s\"}],\"options\":[],\"results\":{\"tpot_ms\":17.5}}", in_sha);
	text = canon_of(json, 0);
	baseline_sha256(text, strlen(text), sha);
	cr_assert(baseline_sound(text, sha, why, sizeof why), "%s", why);
	doc = baseline_export(text, sha);
	cr_assert(strstr(doc, "\"schema\": \"roofcost-baseline\""), "%s", doc);
	cr_assert(strstr(doc, "\"schema_version\": 1"));
	back = baseline_import("r1.json", doc, got, &e);
	cr_assert(back, "%s", e.msg);
	cr_assert_str_eq(back, text);
	cr_assert_str_eq(got, sha);
	free(back);
	{
		/* A figure edited after export breaks the hash. */
		char *p = strstr(doc, "17.5");
		p[1] = '8';
		cr_assert_null(baseline_import("r1.json", doc, got, &e));
		cr_assert(strstr(e.msg, "r1.json: broken hash: its content hashes to"), "%s", e.msg);
		p[1] = '7';
	}
	{
		/* A newer schema is refused, not guessed at. */
		char *p = strstr(doc, "\"schema_version\": 1");
		p[strlen("\"schema_version\": ")] = '9';
		cr_assert_null(baseline_import("r1.json", doc, got, &e));
		cr_assert_str_eq(e.msg, "r1.json: schema_version 9 is newer than this roofcost's 1");
	}
	cr_assert_null(baseline_import("x.json", "{\"a\":1}", got, &e));
	cr_assert(strstr(e.msg, "x.json: not a roofcost baseline export"), "%s", e.msg);
	/* A frozen input text changed along with the record's hash is still caught. */
	{
		char *t2 = strdup(text), *p = strstr(t2, "k = 1");
		p[4] = '2';
		baseline_sha256(t2, strlen(t2), sha);
		cr_assert_not(baseline_sound(t2, sha, why, sizeof why));
		cr_assert(strstr(why, "inputs chip: the frozen text hashes to"), "%s", why);
		free(t2);
	}
	/* Not canonical: the same JSON with a space. */
	cr_assert_not(baseline_sound("{\"a\": 1}", sha, why, sizeof why));
	cr_assert_str_eq(why, "the record is not in canonical form");
	free(doc);
	free(text);
}
