/* cmd_compare: `roofcost compare` - one workload on several systems, each at its best layout
 * (rank.c), side by side and ranked by cost per delivered unit, with the verdict that says
 * why each loses to the first, the limits it was ranked at, and the assumptions. */
#include <cJSON.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "lib/compare.h"
#include "base/lim.h"
#include "base/opt.h"
#include "store/db.h"
#include "engine/infer.h"
#include "report/show.h"
#include "engine/sweep.h"
#include "engine/train.h"

const char compare_usage[] =
	"usage: roofcost compare -w WORKLOAD -s SYS1,SYS2,...|all [--chips N|MIN-MAX] [--budget USD]\n"
	"                        [--deadline DAYS] [--plan ...] [--set KEY=VALUE]...\n"
	"                        [--pricing MODEL|all] [--as-of DATE] [--price SYS=USD]... [--discount [KEY=]PCT]...\n"
	"                        [--capex SYS=USD[/CHIPS]]...\n"
	"                        [--disagg SPLIT] [--format table|csv|json|md] [--wide]\n\n"
	"Finds each system's best layout for the workload and ranks the systems by cost per delivered\n"
	"unit (a million output tokens at the latency limits, an example, or a finished training run),\n"
	"then by throughput where a system has no price. The limits it ranks at come first (serving:\n"
	"TTFT and TPOT with their percentile, the scenario and its load; training: the chip counts and\n"
	"the deadline). Each row gives chips, layout, throughput, latency (mean and at the percentile),\n"
	"USD per hour and per unit, what bounds it (compute, memory, a link, the pipeline bubble,\n"
	"runtime overhead) and why it loses to the first; the assumptions follow. Serving searches every\n"
	"layout of the system's frontier (tensor-parallel degrees within the scale-up domain, 1, 2 or 4\n"
	"pipeline stages, attention data parallel for MoE where the framework offers it), each at the\n"
	"highest load that meets the latency limits (the workload's concurrency, when it has one, is an\n"
	"upper limit; its arrival_rate, when it has one, is the load), with replicas filling the\n"
	"workload's chip count or --chips N; --chips MIN-MAX bounds one replica instead. Training\n"
	"sweeps layouts (tp, pp, vpp, sp, micro-batch, ZeRO, recompute) at the workload's chip count,\n"
	"or at every power of two from MIN to MAX with --chips MIN-MAX.\n\n"
	CLI_EVAL_USAGE CLI_COST_USAGE CLI_TABLE_USAGE CLI_RANK_USAGE;






/* --disagg: each system's best disaggregated split beside its aggregated result, at the limits. */
static void print_disagg(const rank_row *rows, int nrows, const setup_opts *o)
{
	static const char *const hdr[] = {"system", "split", "chips", "prefill", "decode", "tokens_per_s_per_chip",
					  "vs_aggregated_pct", "ttft_tail_ms", "tpot_tail_ms", "kv_transfer_ms", "kv_link",
					  "usd_per_unit", "note"};
	out_table t;
	out_init(&t, 13, hdr);
	for (int k = 2; k < 12; k++)
		if (k != 3 && k != 4 && k != 10)
			out_right(&t, k);
	out_wide(&t, o->wide);
	out_fit_col(&t, 12, OUT_FIT_BELOW);
	for (int i = 0; i < nrows; i++) {
		const disagg_result *d = &rows[i].dis;
		const rank_quote *c = &rows[i].dcost;
		char v[10][48];
		const char *cells[13];
		snprintf(v[0], 48, "%dP%dD", d->pre.count, d->dec.count);
		snprintf(v[1], 48, "%d", d->chips);
		plan_format(&d->pre.plan, v[2], 48);
		plan_format(&d->dec.plan, v[3], 48);
		snprintf(v[4], 48, d->feasible ? "%.0f" : "-", d->tokens_per_s_per_chip);
		if (d->feasible && rows[i].ir.feasible && rows[i].ir.tokens_per_s_per_chip > 0)
			snprintf(v[5], 48, "%+.0f", 100 * (d->tokens_per_s_per_chip / rows[i].ir.tokens_per_s_per_chip - 1));
		else
			snprintf(v[5], 48, "-");
		snprintf(v[6], 48, d->feasible ? "%.0f" : "-", d->ttft_tail * 1e3);
		snprintf(v[7], 48, d->feasible ? "%.1f" : "-", d->tpot_tail * 1e3);
		snprintf(v[8], 48, "%.3g", d->t_transfer * 1e3);
		if (c->have_price && c->result.ok && d->feasible)
			snprintf(v[9], 48, c->result.usd_per_unit < 100 ? "%.3f" : "%.0f", c->result.usd_per_unit);
		else
			snprintf(v[9], 48, "-");
		cells[0] = rows[i].sys->name;
		for (int k = 0; k < 8; k++)
			cells[k + 1] = v[k];
		cells[9] = v[8];
		cells[10] = hw_level_names[d->link];
		cells[11] = v[9];
		cells[12] = d->feasible ? "" : d->reason;
		out_row(&t, cells);
	}
	if (o->format != OUT_CSV) {
		char split[160];
		plan_disagg_format(&rows[0].w.disagg, split, sizeof split);
		printf("\ndisaggregated prefill and decode pools (--disagg %s, within the scale-up domain or --chips N), at "
		       "the same limits, beside each system's aggregated best above:%s\n", split,
		       o->format == OUT_MD ? "\n" : "");
	}
	out_print(&t, o->format, stdout);
	out_release(&t);
}

/* Table, CSV and Markdown. CSV carries the assumptions in columns of every row; the table and
 * Markdown print them under the table. */
static void print_table(const wl_workload *w0, rank_row *rows, int nrows, const setup_opts *o,
			const home_paths *paths, const char *limits, const char *note, const rank_ages *ages,
			const char *empty)
{
	enum { NC = 20 }; /* 14 columns and 6 of assumptions (CSV) */
	out_table t;
	char pct[16], h[4][32], unit_col[32];
	const char *hdr[NC];
	int train = w0->mode == WL_TRAIN, csv = o->format == OUT_CSV, nc;
	snprintf(pct, sizeof pct, "p%g", w0->slo_percentile);
	snprintf(h[0], sizeof h[0], "ttft_%s_ms", pct);
	snprintf(h[1], sizeof h[1], "tpot_%s_ms", pct);
	snprintf(unit_col, sizeof unit_col, "usd_per_%s", cost_unit_names[w0->cost.unit]);
	{
		const char *ih[] = {"rank", "system", "chip", "chips", "layout", "tokens_per_s", "ttft_ms", h[0],
				    "tpot_ms", h[1], "usd_per_h", unit_col, "bound", "verdict"};
		const char *th[] = {"rank", "system", "chip", "chips", "layout", "tokens_per_s", "mfu_pct",
				    "goodput_pct", "train_days", "usd_per_h", unit_col, "bound", "verdict"};
		const char *extra[] = {"pricing_model", "price_as_of", "price_region", "price_verified",
				       "usd_per_chip_hour", "assumptions"};
		int nbase = train ? 13 : 14;
		for (int k = 0; k < nbase; k++)
			hdr[k] = train ? th[k] : ih[k];
		if (o->pricing_all && !csv)
			hdr[1] = "system pricing";   /* csv has its pricing_model column */
		nc = nbase;
		if (csv)
			for (int k = 0; k < 6; k++)
				hdr[nc++] = extra[k];
	}
	out_init(&t, nc, hdr);
	for (int k = 0; k < (train ? 11 : 12); k++)
		if (k != 1 && k != 2 && k != 4)
			out_right(&t, k);
	out_wide(&t, o->wide);
	out_optional(&t, 2, 2);             /* chip: the system names it */
	out_optional(&t, train ? 11 : 12, 1); /* bound: the verdict says it for the losers */
	out_fit_col(&t, train ? 12 : 13, OUT_FIT_BELOW);
	for (int i = 0; i < nrows; i++) {
		rank_row *r = &rows[i];
		const cost_result *cr = &r->cost.result;
		const price_row *pr = &r->cost.price;
		char v[8][48], usd_h[32] = "-", usd_u[32] = "-", chip_h[32] = "-", terms[RANK_NOTE_MAX], sysc[96];
		const char *cells[NC];
		int k = 0;
		if (isfinite(cr->usd_per_hour))
			snprintf(usd_h, sizeof usd_h, "%.2f", cr->usd_per_hour);
		if (cr->ok && isfinite(cr->usd_per_unit))
			snprintf(usd_u, sizeof usd_u, cr->usd_per_unit < 100 ? "%.3f" : "%.0f", cr->usd_per_unit);
		if (isfinite(r->cost.usd_per_chip_hour))
			snprintf(chip_h, sizeof chip_h, "%.6g", r->cost.usd_per_chip_hour);
		snprintf(v[0], 48, "%d", i + 1);
		if (!train) {
			snprintf(v[1], 48, "%d", r->ir.plan.chips);
			snprintf(v[2], 48, "%.0f", r->ir.tokens_per_s);
			snprintf(v[3], 48, "%.0f", r->ir.ttft * 1e3);
			snprintf(v[4], 48, "%.0f", r->ir.ttft_tail * 1e3);
			snprintf(v[5], 48, "%.1f", r->ir.tpot * 1e3);
			snprintf(v[6], 48, "%.1f", r->ir.tpot_tail * 1e3);
		} else {
			double days = isfinite(cr->run_time) && cr->run_time > 0 ? cr->run_time : r->tr.train_time;
			snprintf(v[1], 48, "%d", r->tr.plan.chips);
			snprintf(v[2], 48, "%.0f", r->tr.tokens_per_s);
			snprintf(v[3], 48, "%.1f", 100 * r->tr.mfu);
			snprintf(v[4], 48, "%.1f", 100 * cr->goodput.goodput);
			snprintf(v[5], 48, isfinite(days) ? "%.1f" : "-", days / 86400);
		}
		cells[k++] = v[0];
		snprintf(sysc, sizeof sysc, "%s%s%s", r->sys->name, o->pricing_all && !csv ? " " : "",
			 o->pricing_all && !csv ? (r->cost.user_price ? "user" : price_model_names[r->cost.pricing]) : "");
		cells[k++] = sysc;
		cells[k++] = r->sys->chip.name;
		cells[k++] = v[1];
		cells[k++] = r->plan;
		cells[k++] = v[2];
		cells[k++] = v[3];
		cells[k++] = v[4];
		cells[k++] = v[5];
		if (!train)
			cells[k++] = v[6];
		cells[k++] = usd_h;
		cells[k++] = usd_u;
		cells[k++] = r->bound;
		cells[k++] = r->verdict;
		if (csv) {
			show_terms_text(&r->cost, train, terms, sizeof terms);
			cells[k++] = price_model_names[r->cost.pricing];
			cells[k++] = r->cost.have_price ? pr->as_of : "";
			cells[k++] = r->cost.have_price ? pr->region : "";
			cells[k++] = r->cost.have_price ? (price_verified(pr) ? "true" : "false") : "";
			cells[k++] = chip_h;
			cells[k++] = terms;
		}
		out_row(&t, cells);
	}
	if (o->format != OUT_CSV) {
		const char *b = o->format == OUT_MD ? "**" : "";
		printf("%s%s (%s, %s): best layout per system, ranked by USD per %s%s%s\n", b, w0->name,
		       w0->net.display, wl_mode_names[w0->mode], cost_unit_text[w0->cost.unit],
		       train ? "" : " at the latency limits", b);
		printf("%s%s\n", o->format == OUT_MD ? "\n" : "", limits);
		if (o->format == OUT_MD)
			printf("\n");
	}
	out_print(&t, o->format, stdout);
	if (nrows > 0 && rows[0].has_disagg)
		print_disagg(rows, nrows, o);
	if (o->format != OUT_CSV && nrows > 0) {
		char terms[RANK_NOTE_MAX];
		const char *nl = o->format == OUT_MD ? "\n" : "";
		rank_quote q = rows[0].cost;
		q.discount = 0;   /* discounts differ per row: the line below lists them */
		show_terms_text(&q, train, terms, sizeof terms);
		if (o->pricing_all && strchr(terms, ',')) {
			/* "spot pricing, ..." is the first row's: each row has its own. */
			char rest[RANK_NOTE_MAX];
			snprintf(rest, sizeof rest, "%s", strchr(terms, ','));
			snprintf(terms, sizeof terms, "each row's pricing model%s", rest);
		}
		printf("%sprices: the newest%s%s in the store %s, per chip-hour\n%sassumptions: %s\n", nl,
		       o->as_of ? " at or before " : "", o->as_of ? o->as_of : "", paths->db, nl, terms);
		setup_price_terms(o, terms, sizeof terms);
		if (terms[0])
			printf("%s%s\n", nl, terms);
		if (train) {
			const cost_failures *f = &rows[0].cost.terms.failures;
			printf("%sfailures: chip MTBF %.0f h, checkpoints %.3g TB at %.4g GB/s, restart %.0f s "
			       "(Young/Daly); train_days and usd_per_run include them\n", nl, f->chip_mtbf / 3600,
			       f->checkpoint_bytes / 1e12, f->checkpoint_bw / 1e9, f->restart);
		}
		if (note[0])
			printf("%snote: %s\n", nl, note);
		if (empty[0])
			printf("%snote: %s\n", nl, empty);
		for (int d = 0; d < o->ndiscounts; d++) {
			int used = 0;
			for (int i = 0; i < nrows; i++)
				used |= !strcmp(rows[i].cost.discount_from, o->discounts[d].key[0] ? o->discounts[d].key : "all");
			if (!used)
				printf("%snote: --discount %s%s%.4g%% applies to none of the systems compared (a provider, "
				       "system or instance name)\n", nl, o->discounts[d].key, o->discounts[d].key[0] ? "=" : "",
				       100 * o->discounts[d].share);
		}
		if (ages->stale)
			printf("%swarning: %s\n", nl, ages->text);
	}
	out_release(&t);
}

int cmd_compare(int argc, char **argv, const home_paths *paths)
{
	static const struct option longopts[] = {CLI_EVAL_LONGOPTS, CLI_COST_LONGOPTS, CLI_TABLE_LONGOPTS,
						 CLI_RANK_LONGOPTS, {NULL, 0, NULL, 0}};
	setup_rank_args ra;
	setup_opts o;
	err e = {0};
	db *store = NULL;
	compare_result *cr = calloc(1, sizeof *cr);
	int c, rc = 0;

	setup_init(&o);
	setup_rank_args_init(&ra);
	optind = 1;
	while ((c = getopt_long(argc, argv, "s:w:h", longopts, NULL)) != -1) {
		int h;
		if (c == 'h') {
			fputs(compare_usage, stdout);
			goto done;
		}
		h = cli_rank_option(c, optarg, &o, &ra, &e);
		if (h < 0) {
			rc = cli_fail(&e);
			goto done;
		}
		if (h > 0)
			continue;
		h = cli_eval_option(c, optarg, &o, &e);
		if (h <= 0) {
			rc = cli_option_rc(h, compare_usage, &e);
			goto done;
		}
	}
	if (!cr) {
		err_set(&e, ERR_DATA, "out of memory");
		rc = cli_fail(&e);
		goto done;
	}
	if (optind < argc || !o.system) {
		err_set(&e, ERR_USAGE, optind < argc ? "compare: unexpected argument '%s'" : "missing -s SYS1,SYS2,...|all",
			optind < argc ? argv[optind] : "");
		rc = cli_fail(&e);
		goto done;
	}
	if (compare_run(paths, &store, &o, &ra, cr, &e) != 0) {
		rc = cli_fail(&e);
		goto done;
	}
	if (o.format == OUT_JSON) {
		cJSON *j = compare_json(cr);
		char *s = j ? cJSON_Print(j) : NULL;
		if (!s) {
			err_set(&e, ERR_DATA, "out of memory");
			rc = cli_fail(&e);
		} else {
			puts(s);
		}
		free(s);
		cJSON_Delete(j);
	} else {
		print_table(cr->w0, cr->rows, cr->nrows, &o, paths, cr->limits, cr->note, &cr->ages, cr->price_note);
	}
done:
	if (cr)
		compare_release(cr);
	free(cr);
	if (store)
		db_close(store);
	return rc;
}
