/* wl: workloads (see wl.h). */
#include "model/wl.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/cfg.h"
#include "base/lim.h"
#include "base/names.h"
#include "model/hf.h"

const char *const wl_mode_names[] = {"train", "infer", NULL};
const char *const wl_scenario_names[] = {"offline", "server", "interactive", "single", NULL};
const char *const wl_spread_names[] = {"fixed", "exponential", NULL};
const char *const wl_recompute_names[] = {"none", "selective", "full", NULL};
static const char *const opt_names[] = {"adam", "sgd", NULL};

typedef struct wl_raw {
	wl_workload w;
	char kv_prec[8];
	char disagg[PLAN_DISAGG_TEXT_MAX];
	char draft[WL_TEXT_MAX];
	char input_spread[WL_TEXT_MAX];
	/* Keys that override the framework's behaviour (-1: not given). */
	int host, elementwise, attention, offload_remat;
	double overlap_tp;
} wl_raw;

static const char *const elem_names[] = {"fused", "eager", NULL};
static const char *const attn_names[] = {"unfused", "flash", "flash2", NULL};

#define OFF(m) offsetof(wl_raw, w.m)
#define SZ(m) sizeof(((wl_raw *)0)->w.m)
#define STR(sec, key, m, req) {sec, key, CFG_STR, UNITS_NONE, req, 1, 0, OFF(m), SZ(m), NULL}
#define INT(sec, key, m, req, lo, hi) {sec, key, CFG_INT, UNITS_NONE, req, lo, hi, OFF(m), 0, NULL}
/* A count: "8192", "1.5M", "1T" (units.h UNITS_COUNT). */
#define CNT(sec, key, m, req, lo, hi) {sec, key, CFG_INT, UNITS_COUNT, req, lo, hi, OFF(m), 0, NULL}
#define NUM(sec, key, m, u, req, lo, hi) {sec, key, CFG_NUM, u, req, lo, hi, OFF(m), 0, NULL}
#define ENUM(sec, key, m, req, ch) {sec, key, CFG_ENUM, UNITS_NONE, req, 1, 0, OFF(m), 0, ch}
#define BOOL(sec, key, m) {sec, key, CFG_BOOL, UNITS_NONE, 0, 1, 0, OFF(m), 0, NULL}

static const cfg_field wl_fields[] = {
	STR("workload", "name", name, 1),
	STR("workload", "network", network_name, 1),
	ENUM("workload", "mode", mode, 1, wl_mode_names),
	ENUM("workload", "precision", prec, 1, hw_prec_names),
	{"workload", "kv_precision", CFG_ENUM, UNITS_NONE, 0, 1, 0, offsetof(wl_raw, w.kv_prec), 0, hw_prec_names},
	STR("workload", "description", description, 0),
	STR("workload", "source", source, 0),
	STR("workload", "framework", framework_name, 0),
	STR("workload", "reproduces", reproduces, 0),
	CNT("train", "seq_len", seq_len, 1, 1, LIM_TOKENS),
	CNT("train", "global_batch", global_batch, 1, 1, LIM_BATCH),
	CNT("train", "micro_batch", micro_batch, 1, 1, LIM_MICRO_BATCH),
	NUM("train", "tokens", tokens, UNITS_COUNT, 1, 1, 1e16),
	ENUM("train", "optimizer", optimizer, 1, opt_names),
	INT("train", "zero", zero, 0, 0, 3),
	ENUM("train", "recompute", recompute, 0, wl_recompute_names),
	BOOL("train", "flash_attention", flash_attention),
	BOOL("train", "dropout", dropout),
	BOOL("train", "overlap_grad_reduce", overlap_grad_reduce),
	{"train", "host", CFG_ENUM, UNITS_NONE, 0, 1, 0, offsetof(wl_raw, host), 0, fw_host_names},
	{"train", "elementwise", CFG_ENUM, UNITS_NONE, 0, 1, 0, offsetof(wl_raw, elementwise), 0, elem_names},
	{"train", "attention", CFG_ENUM, UNITS_NONE, 0, 1, 0, offsetof(wl_raw, attention), 0, attn_names},
	{"train", "overlap_tp", CFG_NUM, UNITS_NONE, 0, 0, 1, offsetof(wl_raw, overlap_tp), 0, NULL},
	{"train", "offload_remat", CFG_BOOL, UNITS_NONE, 0, 1, 0, offsetof(wl_raw, offload_remat), 0, NULL},
	CNT("infer", "input_len", input_len, 1, 1, LIM_TOKENS),
	CNT("infer", "output_len", output_len, 1, 1, LIM_TOKENS),
	CNT("infer", "concurrency", concurrency, 0, 1, LIM_CONCURRENCY),
	ENUM("infer", "scenario", scenario, 1, wl_scenario_names),
	NUM("infer", "ttft_slo", ttft_slo, UNITS_TIME, 0, 1e-6, 1e5),
	NUM("infer", "tpot_slo", tpot_slo, UNITS_TIME, 0, 1e-6, 1e5),
	NUM("infer", "slo_percentile", slo_percentile, UNITS_NONE, 0, 50, 99.99),
	ENUM("infer", "length_spread", length_spread, 0, wl_spread_names),
	{"infer", "input_spread", CFG_STR, UNITS_NONE, 0, 1, 0, offsetof(wl_raw, input_spread),
	 sizeof(((wl_raw *)0)->input_spread), NULL},
	ENUM("infer", "scheduler", scheduler, 0, fw_scheduler_names),
	NUM("infer", "kv_mem_fraction", kv_mem_fraction, UNITS_NONE, 0, 0.05, 1),
	CNT("infer", "max_num_tokens", max_num_tokens, 0, 16, 10000000),
	CNT("infer", "max_num_seqs", max_num_seqs, 0, 0, 10000000),
	{"infer", "disagg", CFG_STR, UNITS_NONE, 0, 1, 0, offsetof(wl_raw, disagg), sizeof(((wl_raw *)0)->disagg), NULL},
	{"infer", "draft", CFG_STR, UNITS_NONE, 0, 1, 0, offsetof(wl_raw, draft), sizeof(((wl_raw *)0)->draft), NULL},
	INT("infer", "draft_tokens", spec_tokens, 0, 1, 16),
	NUM("infer", "acceptance", spec_acceptance, UNITS_NONE, 0, 0.01, 0.99),
	NUM("infer", "iter_overhead", iter_overhead, UNITS_TIME, 0, 0, 1),
	NUM("infer", "arrival_rate", arrival_rate, UNITS_NONE, 0, 1e-6, 1e7),
	INT("plan", "tp", plan.tp, 0, 1, LIM_CHIPS),
	INT("plan", "pp", plan.pp, 0, 1, LIM_PP),
	INT("plan", "vpp", plan.vpp, 0, 1, LIM_VPP),
	INT("plan", "dp", plan.dp, 0, 1, LIM_CHIPS),
	INT("plan", "cp", plan.cp, 0, 1, LIM_CHIPS),
	INT("plan", "ep", plan.ep, 0, 1, LIM_CHIPS),
	INT("plan", "sp", plan.sp, 0, 0, 1),
	INT("plan", "chips", plan.chips, 0, 1, LIM_CHIPS),
	ENUM("cost", "pricing", cost.pricing, 0, price_model_names),
	STR("cost", "region", cost.region, 0),
	ENUM("cost", "unit", cost.unit, 0, cost_unit_names),
	NUM("cost", "utilization", cost.terms.utilization, UNITS_NONE, 0, 0.01, 1),
	NUM("cost", "idle_headroom", cost.terms.idle_headroom, UNITS_NONE, 0, 0, 0.99),
	NUM("cost", "retries", cost.terms.retries, UNITS_NONE, 0, 0, 100),
	NUM("cost", "storage", cost.terms.storage, UNITS_BYTES, 0, 0, 1e20),
	NUM("cost", "storage_usd_per_tb_month", cost.terms.storage_usd_per_tb_month, UNITS_NONE, 0, 0, 1e6),
	NUM("cost", "egress", cost.terms.egress, UNITS_BYTES, 0, 0, 1e20),
	NUM("cost", "egress_usd_per_gb", cost.terms.egress_usd_per_gb, UNITS_NONE, 0, 0, 1e3),
	NUM("cost", "engineering_hours", cost.terms.engineering_hours, UNITS_NONE, 0, 0, 1e9),
	NUM("cost", "engineering_usd_per_hour", cost.terms.engineering_usd_per_hour, UNITS_NONE, 0, 0, 1e5),
	NUM("cost", "chip_mtbf", cost.failures.chip_mtbf, UNITS_TIME, 0, 60, 1e14),
	NUM("cost", "checkpoint_bw", cost.failures.checkpoint_bw, UNITS_BW, 0, 1e6, 1e16),
	NUM("cost", "checkpoint_size", cost.failures.checkpoint_bytes, UNITS_BYTES, 0, 1, 1e18),
	NUM("cost", "restart_time", cost.failures.restart, UNITS_TIME, 0, 0, 1e7),
	NUM("cost", "spot_interruption_interval", cost.spot_interval, UNITS_TIME, 0, 60, 1e14),
	NUM("cost", "amortization_years", cost.owned.amortization, UNITS_NONE, 0, 0.1, 50),
	NUM("cost", "electricity_usd_per_kwh", cost.owned.electricity_usd_per_kwh, UNITS_NONE, 0, 0, 10),
	NUM("cost", "hosting_usd_per_kw_month", cost.owned.hosting_usd_per_kw_month, UNITS_NONE, 0, 0, 1e5),
	NUM("cost", "pue", cost.owned.pue, UNITS_NONE, 0, 1, 5),
	NUM("cost", "network_storage_share", cost.owned.network_storage_share, UNITS_NONE, 0, 0, 10),
	NUM("cost", "staff_usd_per_kw_month", cost.owned.staff_usd_per_kw_month, UNITS_NONE, 0, 0, 1e5),
	NUM("cost", "power_share", cost.owned.power_share, UNITS_NONE, 0, 0.01, 1),
	NUM("cost", "price_age_days", cost.owned.price_age_days, UNITS_NONE, 0, 0, 36500),
};

/* models/cost.ini: the default of each cost_owned key, one section per key (named as the key)
 * with value, source, as_of and an optional note (models/README.md). Same ranges as the
 * workload's keys. */
typedef struct cost_def {
	double value[COST_OWNED_N];
	char source[COST_OWNED_N][WL_TEXT_MAX];
	char as_of[COST_OWNED_N][16];
	char note[COST_OWNED_N][WL_TEXT_MAX];
} cost_def;

#define DEF(i, key, lo, hi) \
	{key, "value", CFG_NUM, UNITS_NONE, 1, lo, hi, offsetof(cost_def, value[i]), 0, NULL}, \
	{key, "source", CFG_STR, UNITS_NONE, 1, 1, 0, offsetof(cost_def, source[i]), WL_TEXT_MAX, NULL}, \
	{key, "as_of", CFG_DATE, UNITS_NONE, 1, 1, 0, offsetof(cost_def, as_of[i]), 16, NULL}, \
	{key, "note", CFG_STR, UNITS_NONE, 0, 1, 0, offsetof(cost_def, note[i]), WL_TEXT_MAX, NULL}

static const cfg_field def_fields[] = {
	DEF(0, "amortization_years", 0.1, 50), DEF(1, "electricity_usd_per_kwh", 0, 10),
	DEF(2, "hosting_usd_per_kw_month", 0, 1e5), DEF(3, "pue", 1, 5), DEF(4, "network_storage_share", 0, 10),
	DEF(5, "staff_usd_per_kw_month", 0, 1e5), DEF(6, "power_share", 0.01, 1), DEF(7, "price_age_days", 0, 36500),
};

/* Seconds in the year amortization_years counts: 8,760 h, twelve of the 730 h months. */
static const double year_s = 8760.0 * 3600;

/* Defaults of [cost] for training. Llama 3 405B pre-training (Dubey et al. 2024, §3.3.4):
 * 419 unexpected interruptions in 54 days on 16,384 H100 = 16,384 × 1,296 h / 419 = 50,700
 * GPU-hours per interruption, rounded to 50,000 h (MODEL.md, calibration.md 4.1). Checkpoint
 * writes at 2 TB/s, the sustained bandwidth of Llama 3's storage (§3.3.1, calibration.md 4.3).
 * Restart 10 min: an assumption (no published figure; ByteRobust's ~10 min default timeout to
 * detect a fault, calibration.md 4.2, is of that order). */
static const double default_chip_mtbf = 50000.0 * 3600;   /* s */
static const double default_checkpoint_bw = 2e12;         /* B/s */
static const double default_restart = 600;                /* s */

enum { NFIELDS = (int)(sizeof wl_fields / sizeof wl_fields[0]) };

static const char *const wl_sections[] = {"workload", NULL};

static double *owned_field(cost_owned *o, int i)
{
	double *f[COST_OWNED_N] = {&o->amortization, &o->electricity_usd_per_kwh, &o->hosting_usd_per_kw_month,
				   &o->pue, &o->network_storage_share, &o->staff_usd_per_kw_month, &o->power_share,
				   &o->price_age_days};
	return f[i];
}

/* Fills every cost_owned key the workload does not give from models_dir/cost.ini (absent: the
 * key stays NaN and owned_source says nothing), and says where each came from. */
static int owned_defaults(const cfg_doc *wd, const char *models_dir, wl_workload *w, err *e)
{
	char path[WL_TEXT_MAX + 16];
	cost_def *def = NULL;
	cfg_doc d;
	int have = 0, rc = 0;
	snprintf(path, sizeof path, "%s/cost.ini", models_dir);
	if (access(path, F_OK) == 0) {
		if (!(def = calloc(1, sizeof *def)))
			return err_set(e, ERR_DATA, "out of memory");
		if (cfg_load(&d, path, e) != 0) {
			free(def);
			return ERR_DATA;
		}
		rc = cfg_extract(&d, def_fields, (int)(sizeof def_fields / sizeof def_fields[0]), cost_owned_keys, def, e);
		cfg_release(&d);
		have = rc == 0;
		if (have)
			snprintf(w->cost_path, sizeof w->cost_path, "%s", path);
	}
	for (int i = 0; i < COST_OWNED_N && rc == 0; i++) {
		const cfg_entry *en = cfg_find(wd, "cost", cost_owned_keys[i]);
		double *f = owned_field(&w->cost.owned, i);
		if (en)
			snprintf(w->owned_source[i], WL_SOURCE_MAX, "%s", en->line ? "workload [cost]" : "--set");
		else if (have) {
			*f = def->value[i];
			snprintf(w->owned_source[i], WL_SOURCE_MAX, "models/cost.ini: %s (%s)", def->source[i], def->as_of[i]);
		} else {
			*f = NAN;
			w->owned_source[i][0] = '\0';
		}
	}
	if (rc == 0)
		w->cost.owned.amortization *= year_s;
	free(def);
	return rc;
}

int wl_schema_key(int i, const char **section, const char **key, int *required)
{
	if (i < 0 || i >= NFIELDS)
		return 0;
	*section = wl_fields[i].section;
	*key = wl_fields[i].key;
	*required = wl_fields[i].required;
	return 1;
}

int wl_schema_what(int i, char *buf, int len)
{
	const cfg_field *f;
	int n = 0;
	if (i < 0 || i >= NFIELDS)
		return 0;
	f = &wl_fields[i];
	switch (f->type) {
	case CFG_NUM:
		snprintf(buf, (size_t)len, "%s", f->unit == UNITS_NONE ? "a number" : units_kind_name(f->unit));
		break;
	case CFG_INT:
		snprintf(buf, (size_t)len, "%s", f->unit == UNITS_COUNT ? units_kind_name(f->unit) : "a whole number");
		break;
	case CFG_ENUM:
		for (int k = 0; f->choices[k] && n < len; k++)
			n += snprintf(buf + n, (size_t)(len - n), "%s%s", k ? " | " : "", f->choices[k]);
		break;
	case CFG_BOOL:
		snprintf(buf, (size_t)len, "0 | 1");
		break;
	case CFG_DATE:
		snprintf(buf, (size_t)len, "a date (YYYY-MM-DD)");
		break;
	default:
		snprintf(buf, (size_t)len, "text");
		break;
	}
	return 1;
}

static int entry_line(const cfg_doc *d, const char *sec, const char *key)
{
	const cfg_entry *en = cfg_find(d, sec, key);
	return en ? en->line : 0;
}

/* An error at key's entry: "file:line: key: why", or a usage error for a --set key. */
static int key_err(err *e, const cfg_doc *d, const char *sec, const char *key, const char *why)
{
	int line = entry_line(d, sec, key);
	if (line == 0)
		return err_set(e, ERR_USAGE, "--set %s: %s", key, why);
	return err_at(e, d->path, line, "%s: %s", key, why);
}

/* [cost]: the unit fits the mode, failure keys only for training, an amount has its price. */
static int validate_cost(const cfg_doc *d, wl_workload *w, err *e)
{
	static const char *const train_only[] = {"chip_mtbf", "checkpoint_bw", "checkpoint_size", NULL};
	static const char *const priced[][2] = {{"storage", "storage_usd_per_tb_month"},
						{"egress", "egress_usd_per_gb"},
						{"engineering_hours", "engineering_usd_per_hour"}};
	const cfg_entry *u = cfg_find(d, "cost", "unit");
	if (w->mode == WL_TRAIN && u && w->cost.unit != COST_RUN)
		return key_err(e, d, "cost", "unit", "a train workload costs a run");
	if (w->mode == WL_INFER && u && w->cost.unit == COST_RUN)
		return key_err(e, d, "cost", "unit", "an infer workload costs mtok or example");
	if (!u)
		w->cost.unit = w->mode == WL_TRAIN ? COST_RUN : COST_MTOK;
	for (int i = 0; w->mode == WL_INFER && train_only[i]; i++)
		if (cfg_find(d, "cost", train_only[i]))
			return key_err(e, d, "cost", train_only[i], "applies to mode train (failures and checkpoints)");
	for (size_t i = 0; i < sizeof priced / sizeof priced[0]; i++)
		if (cfg_find(d, "cost", priced[i][0]) && !cfg_find(d, "cost", priced[i][1])) {
			char why[96];
			snprintf(why, sizeof why, "needs %s beside it", priced[i][1]);
			return key_err(e, d, "cost", priced[i][0], why);
		}
	return 0;
}

static const char arrival_scope[] = "applies to an open loop (scenario server or interactive), not offline or single";

static int validate(const cfg_doc *d, wl_workload *w, err *e)
{
	const char *path = d->path;
	int line;
	if (w->mode == WL_TRAIN) {
		if (cfg_has_section(d, "infer", &line))
			return err_at(e, path, line, "section [infer] does not apply to mode train");
		if (!cfg_has_section(d, "train", NULL))
			return err_at(e, path, entry_line(d, "workload", "mode"),
				      "mode: train needs a [train] section");
		if (w->global_batch % w->micro_batch != 0)
			return err_at(e, path, entry_line(d, "train", "micro_batch"),
				      "micro_batch: %d does not divide global_batch %d", w->micro_batch,
				      w->global_batch);
	} else {
		if (cfg_has_section(d, "train", &line))
			return err_at(e, path, line, "section [train] does not apply to mode infer");
		if (!cfg_has_section(d, "infer", NULL))
			return err_at(e, path, entry_line(d, "workload", "mode"),
				      "mode: infer needs an [infer] section");
		/* single is a closed loop of `concurrency` requests; elsewhere it is an optional limit. */
		if (w->scenario == WL_SINGLE && w->concurrency <= 0)
			return key_err(e, d, "infer", "scenario",
				       "single needs concurrency (the requests in flight, a closed loop)");
		if (w->arrival_rate > 0 && w->scenario != WL_SERVER && w->scenario != WL_INTERACTIVE) {
			const cfg_entry *sc = cfg_find(d, "infer", "scenario");
			int ar = entry_line(d, "infer", "arrival_rate");
			/* The file's arrival_rate, a scenario set over it: the option is what conflicts. */
			if (sc && sc->line == 0 && ar > 0)
				return err_set(e, ERR_USAGE, "--set scenario: %s: the workload's arrival_rate (%s:%d) %s",
					       wl_scenario_names[w->scenario], path, ar, arrival_scope);
			return key_err(e, d, "infer", "arrival_rate", arrival_scope);
		}
	}
	{
		int ctx = w->mode == WL_TRAIN ? w->seq_len : w->input_len + w->output_len;
		const char *key = w->mode == WL_TRAIN ? "seq_len" : "input_len";
		if (ctx > w->net.max_context) {
			line = entry_line(d, w->mode == WL_TRAIN ? "train" : "infer", key);
			if (line == 0)
				return err_set(e, ERR_USAGE, "--set %s: context %d exceeds %s's max_context %d",
					       key, ctx, w->net.name, w->net.max_context);
			return err_at(e, path, line, "%s: context %d exceeds %s's max_context %d", key, ctx,
				      w->net.name, w->net.max_context);
		}
	}
	return validate_cost(d, w, e);
}

int wl_lengths_parse(const char *s, wl_lengths *out, char *why, size_t len)
{
	wl_lengths l;
	const char *p = s;
	memset(&l, 0, sizeof l);
	while (*p == ' ' || *p == '\t')
		p++;
	if (!strcmp(p, "fixed")) {
		*out = l;
		return 0;
	}
	while (*p) {
		char *end;
		double pc, tok;
		if (*p == ' ' || *p == '\t' || *p == ',') {
			p++;
			continue;
		}
		if (l.n == WL_LENGTH_POINTS) {
			snprintf(why, len, "more than %d points", WL_LENGTH_POINTS);
			return -1;
		}
		pc = strtod(p, &end);
		if (end == p || *end != ':') {
			snprintf(why, len, "'%.40s' is not fixed or PERCENTILE:TOKENS (0:476 50:10112 100:19988)", p);
			return -1;
		}
		p = end + 1;
		tok = strtod(p, &end);
		if (end == p || (*end && *end != ' ' && *end != '\t' && *end != ',')) {
			snprintf(why, len, "point %d: '%.40s' is not a length in tokens", l.n + 1, p);
			return -1;
		}
		p = end;
		if (!(pc >= 0 && pc <= 100) || (l.n > 0 && !(pc > l.pct[l.n - 1]))) {
			snprintf(why, len, "point %d: percentile %g is not above the one before it, within 0-100", l.n + 1, pc);
			return -1;
		}
		if (!(tok >= 1 && tok <= LIM_TOKENS)) {
			snprintf(why, len, "point %d: %g tokens is outside 1-%d", l.n + 1, tok, LIM_TOKENS);
			return -1;
		}
		if (l.n > 0 && tok < l.len[l.n - 1]) {
			snprintf(why, len, "point %d: %g tokens is below the point before it (%g): lengths rise with the percentile",
				 l.n + 1, tok, l.len[l.n - 1]);
			return -1;
		}
		l.pct[l.n] = pc;
		l.len[l.n++] = tok;
	}
	if (l.n < 2 || l.pct[0] != 0 || l.pct[l.n - 1] != 100) {
		snprintf(why, len, "the percentiles run from 0 to 100 (the shortest and the longest prompt)");
		return -1;
	}
	if (l.len[l.n - 1] == l.len[0]) {
		snprintf(why, len, "every point has the same length: that is fixed");
		return -1;
	}
	*out = l;
	return 0;
}

/* The acceptance of one token proposed by DeepSeek-V3's multi-token-prediction module: "the
 * acceptance rate of the second token prediction ranges between 85% and 90%" (DeepSeek-AI 2024,
 * DeepSeek-V3 Technical Report, arXiv 2412.19437, §5.4.3), the low end taken. */
static const double mtp_acceptance = 0.85;

/* [infer] disagg, draft, draft_tokens, acceptance: parsed and checked against the network. */
static int load_serving_modes(const cfg_doc *d, const wl_raw *r, const char *models_dir, wl_workload *w, err *e)
{
	int tokens_given = cfg_find(d, "infer", "draft_tokens") != NULL;
	int acc_given = cfg_find(d, "infer", "acceptance") != NULL;
	if (r->input_spread[0]) {
		char why[ERR_MSG_MAX];
		if (wl_lengths_parse(r->input_spread, &w->input_spread, why, sizeof why) != 0)
			return key_err(e, d, "infer", "input_spread", why);
	}
	if (r->disagg[0]) {
		err inner = {0};
		if (plan_disagg_parse(r->disagg, &w->disagg, &inner) != 0)
			return key_err(e, d, "infer", "disagg", inner.msg + (strncmp(inner.msg, "disagg: ", 8) ? 0 : 8));
	}
	w->spec_kind = WL_SPEC_NONE;
	if (!r->draft[0] || !strcmp(r->draft, "none")) {
		if (tokens_given || acc_given)
			return key_err(e, d, "infer", tokens_given ? "draft_tokens" : "acceptance",
				       "applies with a draft (draft = NETWORK or mtp)");
		w->spec_tokens = 0;
		return 0;
	}
	if (!strcmp(r->draft, "mtp")) {
		if (w->net.mtp_layers <= 0)
			return key_err(e, d, "infer", "draft", "mtp needs a network with multi-token-prediction modules "
				       "(mtp_layers); this one has none");
		w->spec_kind = WL_SPEC_MTP;
		if (!tokens_given)
			w->spec_tokens = 1;
		if (!acc_given)
			w->spec_acceptance = mtp_acceptance;
		return 0;
	}
	{
		char net_path[WL_TEXT_MAX + 1024];
		size_t nl = strlen(r->draft);
		if (!tokens_given || !acc_given)
			return key_err(e, d, "infer", "draft", "a draft network needs draft_tokens and acceptance beside it "
				       "(no stack publishes a default: acceptance depends on the two networks and the data)");
		if (strchr(r->draft, '/') || (nl > 4 && !strcmp(r->draft + nl - 4, ".ini")) || hf_is_config(r->draft))
			names_relative(d->path, r->draft, net_path, sizeof net_path);
		else
			snprintf(net_path, sizeof net_path, "%s", r->draft);
		if (hf_find_net(net_path, models_dir, &w->spec_draft, e) != 0) {
			char inner[ERR_MSG_MAX];
			snprintf(inner, sizeof inner, "%s", e ? e->msg : "");
			return key_err(e, d, "infer", "draft", inner);
		}
		if (w->spec_draft.vocab != w->net.vocab) {
			char why[160];
			snprintf(why, sizeof why, "%s's vocab %d differs from %s's %d: a draft shares the target's tokenizer",
				 w->spec_draft.name, w->spec_draft.vocab, w->net.name, w->net.vocab);
			return key_err(e, d, "infer", "draft", why);
		}
		w->spec_kind = WL_SPEC_NETWORK;
	}
	return 0;
}

/* Keys a row of published measurements (its `settings` cell) may set over the workload it
 * describes: the behaviour of the run its columns do not give. */
static const char *const row_keys[] = {"kv_precision", "tokens", "optimizer", "flash_attention", "dropout",
	"overlap_grad_reduce", "host", "elementwise", "attention", "overlap_tp", "offload_remat",
	"slo_percentile", "length_spread", "input_spread", "scheduler", "kv_mem_fraction", "max_num_tokens", "max_num_seqs",
	"disagg", "iter_overhead", "arrival_rate", NULL};

int wl_set(wl_workload *w, const char *assign, const char *from, err *e)
{
	const cfg_field *f = cfg_field_find(wl_fields, NFIELDS, assign, NULL);
	const char *eq = strchr(assign, '=');
	wl_raw *r;
	char why[ERR_MSG_MAX];
	int allowed = 0;
	if (!f || !eq)
		return err_set(e, ERR_DATA, "%s: '%s' is not SECTION.KEY=VALUE of a framework file or KEY=VALUE of a workload",
			       from, assign);
	for (int i = 0; row_keys[i] && !allowed; i++)
		allowed = !strcmp(row_keys[i], f->key);
	if (!allowed)
		return err_set(e, ERR_DATA, "%s: %s: not a setting of a row (its columns, or the workload's name, network, "
			       "layout and cost, give it)", from, f->key);
	if ((!strcmp(f->section, "train") && w->mode != WL_TRAIN) || (!strcmp(f->section, "infer") && w->mode != WL_INFER))
		return err_set(e, ERR_DATA, "%s: %s: applies to mode %s, the row is %s", from, f->key, f->section,
			       wl_mode_names[w->mode]);
	if (!(r = calloc(1, sizeof *r)))
		return err_set(e, ERR_DATA, "out of memory");
	r->w = *w;
	r->host = r->elementwise = r->attention = r->offload_remat = -1;
	r->overlap_tp = -1;
	if (cfg_parse_value(f, eq + 1, r, why, sizeof why) != 0) {
		free(r);
		return err_set(e, ERR_DATA, "%s: %s: %s", from, f->key, why);
	}
	if (r->input_spread[0] && wl_lengths_parse(r->input_spread, &r->w.input_spread, why, sizeof why) != 0) {
		free(r);
		return err_set(e, ERR_DATA, "%s: input_spread: %s", from, why);
	}
	if (r->w.arrival_rate > 0 && r->w.scenario != WL_SERVER && r->w.scenario != WL_INTERACTIVE) {
		free(r);
		return err_set(e, ERR_DATA, "%s: arrival_rate: %s", from, arrival_scope);
	}
	if (r->disagg[0]) {
		err inner = {0};
		if (plan_disagg_parse(r->disagg, &r->w.disagg, &inner) != 0) {
			free(r);
			return err_set(e, ERR_DATA, "%s: disagg: %s", from, inner.msg + (strncmp(inner.msg, "disagg: ", 8) ? 0 : 8));
		}
	}
	/* The keys that override the framework's behaviour, as wl_load applies them. */
	if (r->host >= 0) r->w.fw.train.host = (fw_host)r->host;
	if (r->elementwise >= 0) r->w.fw.train.eager_elementwise = r->elementwise;
	if (r->attention >= 0) {
		r->w.fw.train.attention_kernel = r->attention;
		r->w.fw.train.flash_attention = r->w.flash_attention = r->attention > 0;
		r->w.fw.train.kernel_by_family[0] = '\0';
	}
	if (r->overlap_tp >= 0) r->w.fw.train.overlap_tp = r->overlap_tp;
	if (r->offload_remat >= 0) r->w.fw.train.offload_remat = r->offload_remat;
	*w = r->w;
	free(r);
	return 0;
}

void wl_apply_framework(wl_workload *w, const fw_framework *fw)
{
	const fw_train *t = &fw->train;
	const fw_serve *v = &fw->serve;
	w->fw = *fw;
	/* Serving stacks all run fused attention and no dropout. */
	w->flash_attention = fw->has_train ? t->flash_attention : 1;
	w->dropout = fw->has_train ? t->dropout : 0;
	w->overlap_grad_reduce = t->overlap_dp_reduce;
	w->zero = t->zero;
	w->recompute = (wl_recompute)t->recompute;
	w->scheduler = v->scheduler;
	w->kv_mem_fraction = v->kv_mem_fraction;
	w->max_num_tokens = v->max_num_tokens;
	w->max_num_seqs = v->max_num_seqs;
	w->iter_overhead = v->iter_overhead;
}

/* Framework keys set over the stack's file: the workload's [framework] section, then --set. */
typedef struct wl_fwset {
	char assign[FW_KEY_MAX + FW_VALUE_MAX + 2];
	char from[FW_NAME_MAX + WL_TEXT_MAX];
} wl_fwset;

/* Moves the entries of the workload's [framework] section out of d into out (at most max;
 * "SECTION.KEY=VALUE" from "path:line"), so that d holds the workload's own keys alone.
 * Returns the count, or -1 with e set (a key that is not a framework key). */
static int take_framework_section(cfg_doc *d, wl_fwset *out, int max, err *e)
{
	int n = 0, k = 0;
	for (int i = 0; i < d->n; i++) {
		cfg_entry *en = &d->entries[i];
		if (strcmp(en->section, "framework") != 0) {
			d->entries[k++] = *en;
			continue;
		}
		if (n == max) {
			err_at(e, d->path, en->line, "%s: more than %d framework keys", en->key, max);
			n = -1;
		} else if (n >= 0) {
			snprintf(out[n].assign, sizeof out[n].assign, "%s=%s", en->key, en->value);
			snprintf(out[n].from, sizeof out[n].from, "%s:%d", d->path, en->line);
			if (!fw_is_setting(out[n].assign)) {
				err_at(e, d->path, en->line, "%s: not a framework key: [framework] takes SECTION.KEY of the "
				       "framework file (overlap.tp = 1)", en->key);
				n = -1;
			} else {
				n++;
			}
		}
		free(en->value);
	}
	d->n = k;
	for (int i = 0, j = 0, m = d->nsections; i < m; i++) {
		if (strcmp(d->sections[i].name, "framework") != 0)
			d->sections[j++] = d->sections[i];
		else
			d->nsections--;
	}
	return n;
}

/* Loads the workload's framework (default "generic"), sets the keys of sets over it, and fills
 * every field the workload left at -1 with the framework's default. A training workload needs
 * a training framework. */
static int load_framework(const cfg_doc *d, const char *models_dir, const wl_fwset *sets, int nsets,
			  wl_workload *w, err *e)
{
	fw_framework *fw = malloc(sizeof *fw);
	wl_workload mine = *w;
	const char *name = w->framework_name[0] ? w->framework_name : "generic";
	char fw_path[WL_TEXT_MAX + 1024];
	size_t nl = strlen(name);
	int rc;
	if (!fw)
		return err_set(e, ERR_DATA, "out of memory");
	/* A path in the file is taken from the file's folder, as the network's. */
	if (strchr(name, '/') || (nl > 4 && !strcmp(name + nl - 4, ".ini")))
		names_relative(d->path, name, fw_path, sizeof fw_path);
	else
		snprintf(fw_path, sizeof fw_path, "%s", name);
	rc = fw_find(fw_path, models_dir, fw, e);
	if (rc != 0) {
		char inner[ERR_MSG_MAX];
		snprintf(inner, sizeof inner, "%s", e ? e->msg : "");
		if (entry_line(d, "workload", "framework"))
			rc = err_at(e, d->path, entry_line(d, "workload", "framework"), "framework: %s", inner);
	} else if (w->mode == WL_TRAIN ? !fw->has_train : !fw->has_serve) {
		rc = key_err(e, d, "workload", "framework",
			     w->mode == WL_TRAIN ? "is a serving stack; a train workload needs a training one"
						 : "is a training stack; an infer workload needs a serving one");
	}
	for (int i = 0; i < nsets && rc == 0; i++)
		rc = fw_set(fw, sets[i].assign, sets[i].from, e);
	if (rc == 0) {
		wl_apply_framework(w, fw);
		if (mine.flash_attention >= 0) w->flash_attention = mine.flash_attention;
		if (mine.dropout >= 0) w->dropout = mine.dropout;
		if (mine.overlap_grad_reduce >= 0) w->overlap_grad_reduce = mine.overlap_grad_reduce;
		if (mine.zero >= 0) w->zero = mine.zero;
		if ((int)mine.recompute >= 0) w->recompute = mine.recompute;
		if ((int)mine.scheduler >= 0) w->scheduler = mine.scheduler;
		if (mine.kv_mem_fraction >= 0) w->kv_mem_fraction = mine.kv_mem_fraction;
		if (mine.max_num_tokens >= 0) w->max_num_tokens = mine.max_num_tokens;
		if (mine.max_num_seqs >= 0) w->max_num_seqs = mine.max_num_seqs;
		if (mine.iter_overhead >= 0) w->iter_overhead = mine.iter_overhead;
		snprintf(w->framework_name, sizeof w->framework_name, "%s", fw->name);
	}
	free(fw);
	return rc;
}

void wl_plan_defaults(const wl_workload *w, plan *p)
{
	int tp = p->tp ? p->tp : 1, pp = p->pp ? p->pp : 1;
	if (p->sp < 0)
		p->sp = w->mode == WL_TRAIN && tp > 1 ? w->fw.train.seq_parallel : 0;
	if (!p->vpp && w->mode == WL_TRAIN && pp > 1) {
		int v = w->fw.train.vpp;
		/* Interleaving needs whole virtual stages: fall back to 1 where v does not fit. */
		p->vpp = v > 1 && w->net.layers % (pp * v) == 0 ? v : 1;
	}
}

int wl_load(const char *name_or_path, const char *workloads_dir, const char *models_dir,
	    const char *const *overrides, int noverrides, wl_workload *out, err *e)
{
	char path[1024];
	size_t n = strlen(name_or_path);
	cfg_doc d;
	wl_raw *r;
	wl_fwset *fwsets;
	int rc = 0, nfw;

	if (strchr(name_or_path, '/') || (n > 4 && strcmp(name_or_path + n - 4, ".ini") == 0)) {
		snprintf(path, sizeof path, "%s", name_or_path);
	} else {
		char stem[WL_NAME_MAX * 2];
		if (names_find(workloads_dir, name_or_path, "workload", stem, sizeof stem, e) != 0)
			return ERR_DATA;
		snprintf(path, sizeof path, "%s/%s.ini", workloads_dir, stem);
	}
	if (cfg_load(&d, path, e) != 0)
		return ERR_DATA;
	fwsets = malloc(sizeof *fwsets * FW_SET_MAX);
	if (!fwsets) {
		cfg_release(&d);
		return err_set(e, ERR_DATA, "out of memory");
	}
	nfw = take_framework_section(&d, fwsets, FW_SET_MAX, e);
	if (nfw < 0)
		rc = ERR_DATA;
	for (int i = 0; i < noverrides && rc == 0; i++) {
		if (!fw_is_setting(overrides[i])) {
			rc = cfg_override(&d, wl_fields, NFIELDS, overrides[i], e);
		} else if (nfw == FW_SET_MAX) {
			rc = err_set(e, ERR_USAGE, "--set %s: more than %d framework keys", overrides[i], FW_SET_MAX);
		} else {
			snprintf(fwsets[nfw].assign, sizeof fwsets[nfw].assign, "%s", overrides[i]);
			snprintf(fwsets[nfw++].from, sizeof fwsets[0].from, "--set");
		}
	}
	if (rc == 0) {
		/* An override of the other mode's section is a usage error, not a missing key. */
		const cfg_entry *m = cfg_find(&d, "workload", "mode");
		const char *other = m && !strcmp(m->value, "train") ? "infer" : "train";
		for (int i = 0; i < d.n && rc == 0 && m; i++)
			if (d.entries[i].line == 0 && !strcmp(d.entries[i].section, other))
				rc = err_set(e, ERR_USAGE, "--set %s: applies to mode %s, %s is a %s workload",
					     d.entries[i].key, other, name_or_path, m->value);
	}
	r = calloc(1, sizeof *r);
	if (!r) {
		cfg_release(&d);
		free(fwsets);
		return err_set(e, ERR_DATA, "out of memory");
	}
	r->w.kv_prec = HW_PREC_N;
	/* -1: not given by the workload, so the framework's default applies. */
	r->w.flash_attention = r->w.dropout = r->w.overlap_grad_reduce = -1;
	r->w.zero = -1;
	r->w.recompute = (wl_recompute)-1;
	r->w.scheduler = (fw_scheduler)-1;
	r->w.kv_mem_fraction = -1;
	r->w.max_num_tokens = r->w.max_num_seqs = -1;
	r->w.iter_overhead = -1;
	r->w.plan.sp = -1;
	r->host = r->elementwise = r->attention = r->offload_remat = -1;
	r->overlap_tp = -1;
	r->w.slo_percentile = 99;
	r->w.cost.pricing = PRICE_ON_DEMAND;
	r->w.cost.unit = COST_UNIT_N;
	r->w.cost.terms.utilization = 1;
	r->w.cost.failures.chip_mtbf = default_chip_mtbf;
	r->w.cost.failures.checkpoint_bw = default_checkpoint_bw;
	r->w.cost.failures.restart = default_restart;
	if (rc == 0)
		rc = cfg_extract(&d, wl_fields, NFIELDS, wl_sections, r, e);
	if (rc == 0) {
		/* A path in the file is taken from the file's folder; a name from models/nn. */
		char net_path[WL_TEXT_MAX + 1024];
		size_t nl = strlen(r->w.network_name);
		if (strchr(r->w.network_name, '/') || (nl > 4 && !strcmp(r->w.network_name + nl - 4, ".ini")) ||
		    hf_is_config(r->w.network_name))
			names_relative(path, r->w.network_name, net_path, sizeof net_path);
		else
			snprintf(net_path, sizeof net_path, "%s", r->w.network_name);
		/* An .ini file or name (models/nn), or a Hugging Face config.json. */
		rc = hf_find_net(net_path, models_dir, &r->w.net, e);
		if (rc != 0) {
			char inner[ERR_MSG_MAX];
			snprintf(inner, sizeof inner, "%s", e ? e->msg : "");
			err_at(e, path, entry_line(&d, "workload", "network"), "network: %s", inner);
		}
	}
	if (rc == 0)
		rc = load_framework(&d, models_dir, fwsets, nfw, &r->w, e);
	if (rc == 0) {
		fw_train *t = &r->w.fw.train;
		if (r->host >= 0) t->host = (fw_host)r->host;
		if (r->elementwise >= 0) t->eager_elementwise = r->elementwise;
		if (r->attention >= 0) {
			t->attention_kernel = r->attention;
			t->flash_attention = r->w.flash_attention = r->attention > 0;
			t->kernel_by_family[0] = '\0';
		}
		if (r->overlap_tp >= 0) t->overlap_tp = r->overlap_tp;
		if (r->offload_remat >= 0) t->offload_remat = r->offload_remat;
	}
	if (rc == 0)
		rc = validate(&d, &r->w, e);
	if (rc == 0 && r->w.mode == WL_INFER)
		rc = load_serving_modes(&d, r, models_dir, &r->w, e);
	if (rc == 0)
		rc = owned_defaults(&d, models_dir, &r->w, e);
	if (rc == 0) {
		if (r->w.kv_prec == HW_PREC_N)
			r->w.kv_prec = (r->w.prec == HW_FP8 || r->w.prec == HW_FP4) ? HW_FP8 : HW_BF16;
		snprintf(r->w.path, sizeof r->w.path, "%s", path);
		*out = r->w;
	}
	free(r);
	free(fwsets);
	cfg_release(&d);
	return rc;
}

int wl_datasets_load(const char *models_dir, wl_dataset *out, int max, err *e)
{
	static const cfg_field fields[] = {
		{"", "display", CFG_STR, UNITS_NONE, 1, 1, 0, offsetof(wl_dataset, display), sizeof(((wl_dataset *)0)->display), NULL},
		{"", "source_groups", CFG_STR, UNITS_NONE, 0, 1, 0, offsetof(wl_dataset, groups), sizeof(((wl_dataset *)0)->groups), NULL},
		{"", "input_mean", CFG_NUM, UNITS_NONE, 1, 1, 1e7, offsetof(wl_dataset, input_mean), 0, NULL},
		{"", "layers", CFG_INT, UNITS_NONE, 0, 1, 100000, offsetof(wl_dataset, layers), 0, NULL},
		{"", "hidden", CFG_INT, UNITS_NONE, 0, 1, 10000000, offsetof(wl_dataset, hidden), 0, NULL},
		{"", "input_spread", CFG_STR, UNITS_NONE, 1, 1, 0, offsetof(wl_dataset, input_spread),
		 sizeof(((wl_dataset *)0)->input_spread), NULL},
		{"", "output_spread", CFG_ENUM, UNITS_NONE, 1, 1, 0, offsetof(wl_dataset, output_spread), 0, wl_spread_names},
		{"", "source", CFG_STR, UNITS_NONE, 1, 1, 0, offsetof(wl_dataset, source), sizeof(((wl_dataset *)0)->source), NULL},
		{"", "as_of", CFG_DATE, UNITS_NONE, 1, 1, 0, offsetof(wl_dataset, as_of), sizeof(((wl_dataset *)0)->as_of), NULL},
		{"", "note", CFG_STR, UNITS_NONE, 0, 1, 0, offsetof(wl_dataset, note), sizeof(((wl_dataset *)0)->note), NULL},
	};
	cfg_doc d;
	char path[WL_TEXT_MAX];
	int n = 0;
	snprintf(path, sizeof path, "%s/datasets.ini", models_dir);
	/* Only whether it is there: cfg_load opens it (and refuses a named pipe without waiting). */
	if (access(path, F_OK) != 0)
		return 0;
	if (cfg_load(&d, path, e) != 0)
		return -1;
	for (int s = 0; s < d.nsections; s++) {
		wl_dataset *x;
		char why[ERR_MSG_MAX] = "";
		if (n == max) {
			err_at(e, path, d.sections[s].line, "more than %d datasets", max);
			n = -1;
			break;
		}
		x = &out[n];
		memset(x, 0, sizeof *x);
		snprintf(x->name, sizeof x->name, "%s", d.sections[s].name);
		snprintf(x->path, sizeof x->path, "%s", path);
		x->line = d.sections[s].line;
		if (cfg_extract_section(&d, s, fields, (int)(sizeof fields / sizeof fields[0]), x, e) != 0) {
			n = -1;
			break;
		}
		if (wl_lengths_parse(x->input_spread, &x->input, why, sizeof why) != 0 || x->input.n < 2) {
			const cfg_entry *en = cfg_find(&d, x->name, "input_spread");
			err_at(e, path, en ? en->line : x->line, "[%s]: input_spread: %s", x->name,
			       why[0] ? why : "needs a law of two points or more");
			n = -1;
			break;
		}
		for (int j = 0; j < n; j++) {
			const wl_dataset *y = &out[j];
			if (fabs(x->input_mean - y->input_mean) < 2 && (!x->layers || !y->layers || x->layers == y->layers) &&
			    (!x->hidden || !y->hidden || x->hidden == y->hidden)) {
				const cfg_entry *en = cfg_find(&d, x->name, "input_mean");
				err_at(e, path, en ? en->line : x->line,
				       "[%s]: input_mean: within 2 tokens of [%s]'s (line %d), for the same model: a row could take either",
				       x->name, y->name, y->line);
				n = -1;
				break;
			}
		}
		if (n < 0)
			break;
		n++;
	}
	cfg_release(&d);
	return n;
}
