/* setup: an evaluation's inputs and its pricing (see setup.h). */
#include "lib/setup.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/lim.h"
#include "base/names.h"
#include "base/opt.h"
#include "model/price.h"

void setup_init(setup_opts *o)
{
	memset(o, 0, sizeof *o);
	o->pricing = -1;
}

/* 1 if name is the file stem of one item of the -s list (a name or a path to a .ini). */
static int in_system_list(const char *list, const char *name)
{
	size_t n = strlen(name);
	for (const char *p = list; p && *p;) {
		const char *end = strchr(p, ','), *stem = p, *q;
		size_t l = end ? (size_t)(end - p) : strlen(p);
		for (q = p; q < p + l; q++)
			if (*q == '/')
				stem = q + 1;
		l -= (size_t)(stem - p);
		if (l > 4 && !strncmp(stem + l - 4, ".ini", 4))
			l -= 4;
		if (l == n && !strncmp(stem, name, n))
			return 1;
		p = end ? end + 1 : NULL;
	}
	return 0;
}

int setup_check_prices(const home_paths *paths, const setup_opts *o, err *e)
{
	for (int i = 0; i < o->nprices + o->ncapex; i++) {
		const char *name = i < o->nprices ? o->prices[i].system : o->capex[i - o->nprices].system;
		const char *opt = i < o->nprices ? "--price" : "--capex";
		char path[HOME_PATH_MAX + 96], dir[HOME_PATH_MAX + 32], **names = NULL, sugg[512];
		struct stat st;
		int n;
		snprintf(dir, sizeof dir, "%s/hw/systems", paths->models);
		snprintf(path, sizeof path, "%s/%s.ini", dir, name);
		if (stat(path, &st) == 0 || (o->system && in_system_list(o->system, name)))
			continue;
		n = home_ini_stems(dir, &names, e);
		names_suggest(name, (const char *const *)names, n > 0 ? n : 0, sugg, sizeof sugg);
		if (sugg[0])
			err_set(e, ERR_USAGE, "%s: unknown system '%s'; did you mean %s?", opt, name, sugg);
		else
			err_set(e, ERR_USAGE, "%s: unknown system '%s' (see 'roofcost list systems')", opt, name);
		home_free_names(names, n > 0 ? n : 0);
		return ERR_USAGE;
	}
	return 0;
}

void setup_price_terms(const setup_opts *o, char *buf, size_t n)
{
	size_t l = 0;
	buf[0] = '\0';
	for (int i = 0; i < o->nprices && l < n; i++)
		l += (size_t)snprintf(buf + l, n - l, "%s%s $%.4g", i ? ", " : "user prices (--price, per chip-hour): ",
				      o->prices[i].system, o->prices[i].usd_per_chip_hour);
	for (int i = 0; i < o->ncapex && l < n; i++)
		l += (size_t)snprintf(buf + l, n - l, "%s%s $%.10g for %s%.0d chip%s", i ? ", " : l ? "; capex (--capex): " :
				      "capex (--capex): ", o->capex[i].system, o->capex[i].usd, o->capex[i].chips ? "" : "one node",
				      o->capex[i].chips, o->capex[i].chips == 1 ? "" : o->capex[i].chips ? "s" : "'s");
	for (int i = 0; i < o->ndiscounts && l < n; i++)
		l += (size_t)snprintf(buf + l, n - l, "%s%s%s%.4g%%", i ? ", " : l ? "; catalog prices less (--discount): " :
				      "catalog prices less (--discount): ", o->discounts[i].key,
				      o->discounts[i].key[0] ? " " : "all ", 100 * o->discounts[i].share);
}

/* setup_load's checks of the options before anything is read. */
static int check_inputs(const home_paths *paths, const setup_opts *o, const char *system, err *e)
{
	if (setup_check_prices(paths, o, e) != 0)
		return ERR_USAGE;
	if (o->pricing_all)
		return err_set(e, ERR_USAGE, "--pricing all: only compare prices every pricing model (and sweep takes a list)");
	if (!o->workload || !*o->workload)
		return err_set(e, ERR_USAGE, "%s -w WORKLOAD (see 'roofcost list workloads')", o->workload ? "an empty" : "missing");
	if (!system || !*system)
		return err_set(e, ERR_USAGE, "%s -s SYSTEM (see 'roofcost list systems')", system ? "an empty" : "missing");
	return 0;
}

static int system_and_plan(const home_paths *paths, const setup_opts *o, const char *system,
			   hw_system *sys, const wl_workload *w, plan *p, err *e);

int setup_load(const home_paths *paths, const setup_opts *o, const char *system,
	      hw_system *sys, wl_workload *w, plan *p, err *e)
{
	if (check_inputs(paths, o, system, e) != 0)
		return e->code;
	{
		/* --framework first, so that a later --set framework=... wins. */
		const char *sets[SETUP_SET_MAX + 1];
		int n = 0;
		if (o->framework[0])
			sets[n++] = o->framework;
		for (int i = 0; i < o->nsets; i++)
			sets[n++] = o->sets[i];
		if (wl_load(o->workload, paths->workloads, paths->models, sets, n, w, e) != 0)
			return e->code;
	}
	return system_and_plan(paths, o, system, sys, w, p, e);
}

int setup_load_system(const home_paths *paths, const setup_opts *o, const char *system, const wl_workload *w,
		      hw_system *sys, plan *p, err *e)
{
	if (check_inputs(paths, o, system, e) != 0)
		return e->code;
	return system_and_plan(paths, o, system, sys, w, p, e);
}

static int system_and_plan(const home_paths *paths, const setup_opts *o, const char *system,
			   hw_system *sys, const wl_workload *w, plan *p, err *e)
{
	if (hw_find_system_cached(system, paths->models, paths->hw, sys, e) != 0)
		return e->code;
	*p = w->plan;
	if (o->plan_text) {
		/* --plan replaces the workload's layout degrees it names; dp is recomputed from
		 * --chips when --plan names no dp. */
		if (plan_parse(o->plan_text, p, e) != 0)
			return e->code;
		if (!strstr(o->plan_text, "chips"))
			p->chips = 0;
	}
	if (o->chips) {
		if (!o->plan_text || !strstr(o->plan_text, "dp="))
			p->dp = 0;
		p->chips = o->chips;
	}
	if (!p->chips && !o->plan_text)
		p->chips = w->plan.chips;
	{
		/* Layouts beyond the ranges of lim.h are usage errors, before any arithmetic. */
		char why[160];
		long long inner = (long long)(p->tp ? p->tp : 1) * (p->pp ? p->pp : 1) * (p->cp ? p->cp : 1);
		long long all = inner * (p->dp ? p->dp : 1);
		if (plan_limits(p, w->micro_batch, why, sizeof why) != 0)
			return err_set(e, ERR_USAGE, "%s", why);
		if (p->chips && !p->dp && p->chips % inner != 0)
			return err_set(e, ERR_USAGE, "%d chips are not a multiple of tp*pp*cp = %lld", p->chips, inner);
		if (p->chips && p->dp && p->chips != all)
			return err_set(e, ERR_USAGE, "%d chips differ from tp*pp*dp*cp = %lld", p->chips, all);
		wl_plan_defaults(w, p);
		plan_fill(p);
		if (plan_limits(p, w->micro_batch, why, sizeof why) != 0)
			return err_set(e, ERR_USAGE, "%s", why);
	}
	return 0;
}

/* Looks up s's price into out, or says in out->note why there is none. */
int setup_price(const home_paths *paths, db **store, const hw_system *s, const wl_workload *w,
	      rank_quote *out, err *e)
{
	db_query q;
	int found, have[PRICE_MODEL_N];
	char where[160] = "", models[160] = "";
	out->node_chips = hw_node_chips(s);
	if (!s->instance[0]) {
		if (s->no_public_price[0])
			snprintf(out->note, sizeof out->note, "no public price: %s (--price %s=USD gives your own)",
				 s->no_public_price, s->name);
		else
			snprintf(out->note, sizeof out->note, "%s has no instance name in its system file: it is "
				 "not rented by the hour, so it has no price", s->name);
		return 0;
	}
	if (!*store && home_open_db_read(paths, store, e) != 0)
		return ERR_DATA;
	q.instance = s->instance;
	q.model = out->pricing;
	q.region = w->cost.region;
	q.as_of = out->as_of;
	if (db_price_find(*store, &q, &out->price, &found, e) != 0)
		return ERR_DATA;
	if (found) {
		int node = hw_node_chips(s);
		out->have_price = 1;
		out->usd_per_chip_hour = price_per_chip_hour(&out->price);
		if (out->price.unit == PRICE_PER_INSTANCE && out->price.accelerators != node)
			snprintf(out->note, sizeof out->note, "the catalog prices %s with %d chips, the system "
				 "file's node has %d: priced per chip", s->instance, out->price.accelerators, node);
		return 0;
	}
	if (db_price_models(*store, s->instance, out->as_of, have, e) != 0)
		return ERR_DATA;
	for (int i = 0; i < PRICE_MODEL_N; i++)
		if (have[i])
			snprintf(models + strlen(models), sizeof models - strlen(models), "%s%s",
				 models[0] ? ", " : "", price_model_names[i]);
	if (!models[0] && s->no_public_price[0]) {
		snprintf(out->note, sizeof out->note, "no public price: %s (--price %s=USD gives your own)",
			 s->no_public_price, s->name);
		return 0;
	}
	if (w->cost.region[0])
		snprintf(where, sizeof where, " in %s", w->cost.region);
	if (out->as_of[0])
		snprintf(where + strlen(where), sizeof where - strlen(where), " at or before %s", out->as_of);
	snprintf(out->note, sizeof out->note, "no %s price for %s%s in the store (%s%s)",
		 price_model_names[out->pricing], s->instance, where,
		 models[0] ? "it has: " : "it has none; see 'roofcost list prices'", models);
	return 0;
}

const interval_status *setup_calibration(const home_paths *paths, const hw_system *s, const wl_workload *w,
				       interval_status *out)
{
	if (!paths->intervals)
		return NULL;
	interval_lookup(paths->intervals, w->mode == WL_TRAIN, s->chip.family, w->fw.name, out);
	return out;
}

int setup_no_price_note(const home_paths *paths, db **store, const rank_row *rows, int n, const setup_opts *o,
		      char *buf, size_t len, err *e)
{
	int any[PRICE_MODEL_N] = {0};
	size_t l;
	price_model asked = rows[0].cost.pricing;
	buf[0] = '\0';
	for (int i = 0; i < n; i++)
		if (rows[i].cost.have_price)
			return 0;
	for (int i = 0; i < n; i++) {
		int have[PRICE_MODEL_N];
		if (!rows[i].sys->instance[0])
			continue;
		if (!*store && home_open_db_read(paths, store, e) != 0)
			return ERR_DATA;
		if (db_price_models(*store, rows[i].sys->instance, o->as_of ? o->as_of : "", have, e) != 0)
			return ERR_DATA;
		for (int m = 0; m < PRICE_CATALOG_N; m++)
			any[m] |= have[m];
	}
	l = (size_t)snprintf(buf, len, "no system compared has a%s %s price", asked == PRICE_ON_DEMAND || asked ==
			     PRICE_OWNED ? "n" : "", price_model_names[asked]);
	for (int m = 0, k = 0; m < PRICE_CATALOG_N && l < len; m++)
		if (any[m])
			l += (size_t)snprintf(buf + l, len - l, "%s%s", k++ ? ", " : "; the store has for them: ",
					      price_model_names[m]);
	if (l < len)
		snprintf(buf + l, len - l, "%s; --pricing all compares every pricing model, --pricing owned prices "
			 "buying the hardware, and --price SYSTEM=USD_PER_CHIP_HOUR gives your own", l && any[0] + any[1] +
			 any[2] + any[3] + any[4] + any[5] + any[6] ? "" : "; the store has none for them");
	return 0;
}

int setup_cost(const home_paths *paths, db **store, const setup_opts *o, const hw_system *s,
	     const wl_workload *w, const train_result *tr, const infer_result *ir, rank_quote *out,
	     err *e)
{
	setup_pricer pr;
	rank_opts ro;
	setup_rank_opts(&pr, paths, store, o, w, &ro);
	return rank_price_and_cost(&ro, s, w, tr, ir, out, e);
}

/* rank_price_fn over the store. */
static int price_cb(void *ctx, const hw_system *s, const wl_workload *w, rank_quote *out, err *e)
{
	setup_pricer *pr = ctx;
	return setup_price(pr->paths, pr->store, s, w, out, e);
}

void setup_rank_opts(setup_pricer *pr, const home_paths *paths, db **store, const setup_opts *o,
		   const wl_workload *w, rank_opts *ro)
{
	pr->paths = paths;
	pr->store = store;
	memset(ro, 0, sizeof *ro);
	ro->fixed_plan = o->plan_text != NULL;
	ro->cmin = 1;
	ro->cmax = 1 << 30;
	ro->pricing = o->pricing >= 0 ? (price_model)o->pricing : w->cost.pricing;
	ro->as_of = o->as_of ? o->as_of : "";
	ro->price = price_cb;
	ro->price_ctx = pr;
	ro->intervals = paths->intervals;
	ro->user_prices = o->prices;
	ro->nuser_prices = o->nprices;
	ro->user_capex = o->capex;
	ro->nuser_capex = o->ncapex;
	ro->discounts = o->discounts;
	ro->ndiscounts = o->ndiscounts;
}

void setup_rank_args_init(setup_rank_args *a)
{
	memset(a, 0, sizeof *a);
	a->cmin = 1;
	a->cmax = RANK_CHIPS_OPEN;
}

int setup_rank_apply(const setup_rank_args *a, const setup_opts *o, const wl_workload *w, const plan *p,
		   rank_opts *ro, int *fill, err *e)
{
	if (w->mode == WL_INFER && a->deadline > 0)
		return err_set(e, ERR_USAGE, "--deadline: applies to training; %s is a serving workload", w->name);
	ro->cmin = a->cmin;
	ro->cmax = a->cmax;
	/* A single count: the chips of a training run; for serving, the chips the replicas fill. */
	if (o->chips && !a->range)
		ro->cmin = ro->cmax = o->chips;
	ro->budget = a->budget;
	ro->deadline = a->deadline * 86400;
	ro->total = 0;
	*fill = p->chips;
	if (w->mode == WL_INFER && !o->plan_text && o->chips && !a->range) {
		ro->total = *fill = o->chips;
		ro->cmin = 1;
	}
	return 0;
}

void setup_rank_plan(const setup_rank_args *a, const setup_opts *o, const wl_workload *w, plan *p)
{
	int inner = p->tp * p->pp * p->cp;
	if (o->plan_text || !o->chips || a->range || w->mode != WL_TRAIN)
		return;
	p->chips = o->chips;
	if (o->chips % inner == 0) {
		p->dp = o->chips / inner;
	} else {
		p->tp = p->pp = p->cp = p->vpp = p->ep = 1;
		p->dp = o->chips;
	}
}

/* --price SYSTEM=USD_PER_CHIP_HOUR into o->prices. Returns 1, or -1 with e set. */
static int parse_price(const char *arg, setup_opts *o, err *e)
{
	const char *eq = strrchr(arg, '=');
	rank_user_price *u = &o->prices[o->nprices];
	size_t l = eq ? (size_t)(eq - arg) : 0;
	double v = 0;
	if (!eq || l == 0 || l >= sizeof u->system || opt_number(eq + 1, &v) != 0 || !(v > 0 && v < 1e6)) {
		err_set(e, ERR_USAGE, "--price: '%s' is not SYSTEM=USD_PER_CHIP_HOUR (a number > 0, e.g. "
			"trn2-ultraserver=4.5)", arg);
		return -1;
	}
	if (o->nprices == SETUP_PRICE_MAX) {
		err_set(e, ERR_USAGE, "--price: at most %d systems", SETUP_PRICE_MAX);
		return -1;
	}
	memcpy(u->system, arg, l);
	u->system[l] = '\0';
	for (int i = 0; i < o->nprices; i++)
		if (!strcmp(o->prices[i].system, u->system)) {
			err_set(e, ERR_USAGE, "--price: %s is priced twice", u->system);
			return -1;
		}
	u->usd_per_chip_hour = v;
	o->nprices++;
	return 1;
}

/* --capex SYSTEM=USD[/CHIPS] */
static int parse_capex(const char *arg, setup_opts *o, err *e)
{
	const char *eq = strrchr(arg, '=');
	rank_user_capex *u = &o->capex[o->ncapex];
	size_t l = eq ? (size_t)(eq - arg) : 0;
	char num[64];
	const char *slash = eq ? strchr(eq + 1, '/') : NULL;
	size_t nl = eq ? (slash ? (size_t)(slash - eq - 1) : strlen(eq + 1)) : 0;
	double v = 0;
	u->chips = 0;
	if (eq && nl < sizeof num) {
		memcpy(num, eq + 1, nl);
		num[nl] = '\0';
	}
	if (!eq || l == 0 || l >= sizeof u->system || nl >= sizeof num || opt_number(num, &v) != 0 ||
	    !(v >= 1 && v <= 1e10) || (slash && opt_int(slash + 1, 1, LIM_CHIPS, &u->chips) != 0)) {
		err_set(e, ERR_USAGE, "--capex: '%s' is not SYSTEM=USD or SYSTEM=USD/CHIPS (the price of CHIPS chips "
			"with their host, e.g. gb200-nvl72=3400000/72)", arg);
		return -1;
	}
	if (o->ncapex == SETUP_PRICE_MAX) {
		err_set(e, ERR_USAGE, "--capex: at most %d systems", SETUP_PRICE_MAX);
		return -1;
	}
	memcpy(u->system, arg, l);
	u->system[l] = '\0';
	for (int i = 0; i < o->ncapex; i++)
		if (!strcmp(o->capex[i].system, u->system)) {
			err_set(e, ERR_USAGE, "--capex: %s has two quotes", u->system);
			return -1;
		}
	u->usd = v;
	o->ncapex++;
	return 1;
}

/* --discount [KEY=]PCT[%][,[KEY=]PCT[%]]... */
static int parse_discount(const char *arg, setup_opts *o, err *e)
{
	const char *p = arg;
	for (;;) {
		const char *end = strchr(p, ','), *eq;
		size_t l = end ? (size_t)(end - p) : strlen(p), kl = 0;
		char item[96], num[32];
		double pct = -1;
		rank_discount *d = &o->discounts[o->ndiscounts];
		if (l >= sizeof item)
			l = sizeof item - 1;
		memcpy(item, p, l);
		item[l] = '\0';
		eq = strchr(item, '=');
		if (eq) {
			kl = (size_t)(eq - item);
			eq++;
		} else {
			eq = item;
		}
		l = strlen(eq);
		if (l > 1 && eq[l - 1] == '%')
			l--;    /* "20%" as well as "20" */
		if (l < sizeof num) {
			memcpy(num, eq, l);
			num[l] = '\0';
			if (opt_number(num, &pct) != 0)
				pct = -1;
		}
		if (!(pct >= 0 && pct < 100) || (eq != item && (kl == 0 || kl >= sizeof d->key))) {
			err_set(e, ERR_USAGE, "--discount: '%s' is not a percentage from 0 to below 100 (PCT for every "
				"system, or KEY=PCT for a provider such as aws, a system or an instance)", item);
			return -1;
		}
		for (size_t i = 0; i < kl; i++)
			if (!(isalnum((unsigned char)item[i]) || strchr("._-", item[i]))) {
				err_set(e, ERR_USAGE, "--discount: '%.*s' is not a provider, system or instance name", (int)kl,
					item);
				return -1;
			}
		if (o->ndiscounts == SETUP_PRICE_MAX) {
			err_set(e, ERR_USAGE, "--discount: at most %d discounts", SETUP_PRICE_MAX);
			return -1;
		}
		snprintf(d->key, sizeof d->key, "%.*s", (int)kl, item);
		for (int i = 0; i < o->ndiscounts; i++)
			if (!strcmp(o->discounts[i].key, d->key)) {
				err_set(e, ERR_USAGE, "--discount: %s is given twice", d->key[0] ? d->key : "a discount for all");
				return -1;
			}
		d->share = pct / 100;
		o->ndiscounts++;
		if (!end)
			return 1;
		p = end + 1;
	}
}

int setup_option(int code, const char *arg, setup_opts *o, err *e)
{
	switch (code) {
	case SETUP_OPT_SYSTEM: o->system = arg; return 1;
	case SETUP_OPT_WORKLOAD: o->workload = arg; return 1;
	case SETUP_OPT_PLAN: o->plan_text = arg; return 1;
	case SETUP_OPT_WIDE: o->wide = 1; return 1;
	case SETUP_OPT_FRAMEWORK:
		if (!*arg || strchr(arg, '=')) {
			err_set(e, ERR_USAGE, "--framework: '%s' is not a framework name or file", arg);
			return -1;
		}
		if (strlen(arg) + sizeof "framework=" > sizeof o->framework) {
			err_set(e, ERR_USAGE, "--framework: longer than %zu characters", sizeof o->framework - sizeof "framework=");
			return -1;
		}
		snprintf(o->framework, sizeof o->framework, "framework=%s", arg);
		return 1;
	case SETUP_OPT_SET:
		if (o->nsets == SETUP_SET_MAX) {
			err_set(e, ERR_USAGE, "--set: at most %d overrides", SETUP_SET_MAX);
			return -1;
		}
		o->sets[o->nsets++] = arg;
		return 1;
	case SETUP_OPT_FORMAT:
		if (out_parse_format(arg, &o->format) != 0) {
			err_set(e, ERR_USAGE, "--format: '%s' is not one of table, csv, json, md", arg);
			return -1;
		}
		return 1;
	case SETUP_OPT_PRICING: {
		price_model m;
		if (!strcmp(arg, "all")) {
			o->pricing_all = 1;
			o->pricing = -1;
			return 1;
		}
		if (price_parse_model(arg, &m) != 0) {
			err_set(e, ERR_USAGE, "--pricing: '%s' is not one of on-demand, capacity-block, "
				"reserved-1y, reserved-3y, committed-1y, committed-3y, spot, owned (compare: all)", arg);
			return -1;
		}
		o->pricing = (int)m;
		o->pricing_all = 0;
		return 1;
	}
	case SETUP_OPT_AS_OF:
		if (!price_is_date(arg)) {
			err_set(e, ERR_USAGE, "--as-of: '%s' is not a date (YYYY-MM-DD)", arg);
			return -1;
		}
		o->as_of = arg;
		return 1;
	case SETUP_OPT_PRICE:
		return parse_price(arg, o, e);
	case SETUP_OPT_DISCOUNT:
		return parse_discount(arg, o, e);
	case SETUP_OPT_CAPEX:
		return parse_capex(arg, o, e);
	case SETUP_OPT_CHIPS:
		if (opt_int(arg, 1, LIM_CHIPS, &o->chips) != 0) {
			err_set(e, ERR_USAGE, "--chips: '%s' is not a whole number from 1 to %d", arg, LIM_CHIPS);
			return -1;
		}
		return 1;
	default:
		return 0;
	}
}

int setup_rank_option(int code, const char *arg, setup_opts *o, setup_rank_args *a, err *e)
{
	if (code == SETUP_OPT_BUDGET || code == SETUP_OPT_DEADLINE) {
		double *v = code == SETUP_OPT_BUDGET ? &a->budget : &a->deadline;
		if (opt_number(arg, v) != 0 || !(*v > 0)) {
			err_set(e, ERR_USAGE, "%s: '%s' is not a positive number of %s",
				code == SETUP_OPT_BUDGET ? "--budget" : "--deadline", arg, code == SETUP_OPT_BUDGET ? "USD" : "days");
			return -1;
		}
		return 1;
	}
	if (code == SETUP_OPT_DISAGG) {
		snprintf(a->disagg, sizeof a->disagg, "disagg=%s", arg);
		return setup_option(SETUP_OPT_SET, a->disagg, o, e) <= 0 ? -1 : 1;
	}
	if (code == SETUP_OPT_CHIPS && strchr(arg, '-')) {
		int lo, hi;
		if (opt_int_pair(arg, '-', 1, LIM_CHIPS, &lo, &hi) != 0 || hi < lo) {
			err_set(e, ERR_USAGE, "--chips: '%s' is not N or MIN-MAX", arg);
			return -1;
		}
		a->cmin = lo;
		a->cmax = hi;
		a->range = 1;
		return 1;
	}
	return 0;
}
