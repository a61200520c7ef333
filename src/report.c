/* report: evaluation results as JSON and text (see report.h). */
#include "report.h"

#include <cJSON.h>
#include <stdarg.h>
#include <string.h>

const char report_comm_note[] =
	"collectives priced per level with alpha-beta costs (models/hw/collectives.ini); "
	"exposed time is what overlap with compute leaves";

static const double GiB = 1073741824.0;

static cJSON *plan_json(const plan *p)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "tp", p->tp);
	cJSON_AddNumberToObject(o, "pp", p->pp);
	cJSON_AddNumberToObject(o, "vpp", p->vpp);
	cJSON_AddNumberToObject(o, "dp", p->dp);
	cJSON_AddNumberToObject(o, "cp", p->cp);
	cJSON_AddNumberToObject(o, "ep", p->ep);
	cJSON_AddBoolToObject(o, "sp", p->sp);
	cJSON_AddNumberToObject(o, "micro_batch", p->micro_batch);
	return o;
}

static cJSON *mem_json(const mem_use *m)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "weights_gib", m->weights / GiB);
	cJSON_AddNumberToObject(o, "grads_gib", m->grads / GiB);
	cJSON_AddNumberToObject(o, "optimizer_gib", m->optimizer / GiB);
	cJSON_AddNumberToObject(o, "activations_gib", m->activations / GiB);
	cJSON_AddNumberToObject(o, "kv_cache_gib", m->kv_cache / GiB);
	cJSON_AddNumberToObject(o, "total_gib", m->total / GiB);
	return o;
}

static cJSON *sourced(const char *what, const hw_sourced *s)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "figures", what);
	cJSON_AddStringToObject(o, "source", s->source);
	cJSON_AddStringToObject(o, "as_of", s->as_of);
	if (s->note[0])
		cJSON_AddStringToObject(o, "note", s->note);
	return o;
}

static cJSON *sources_json(const hw_system *s)
{
	cJSON *a = cJSON_CreateArray();
	cJSON_AddItemToArray(a, sourced("system", &s->src));
	cJSON_AddItemToArray(a, sourced("chip peaks", &s->chip.src_peak));
	cJSON_AddItemToArray(a, sourced("chip memory", &s->chip.src_memory));
	cJSON_AddItemToArray(a, sourced("chip efficiency", &s->chip.src_eff));
	for (int i = 0; i < s->nlevels; i++)
		cJSON_AddItemToArray(a, sourced(hw_level_names[s->levels[i].kind], &s->levels[i].src));
	return a;
}

static cJSON *levels_json(const hw_system *s, const double lv[])
{
	cJSON *o = cJSON_CreateObject();
	for (int l = 0; l < s->nlevels; l++)
		cJSON_AddNumberToObject(o, hw_level_names[s->levels[l].kind], lv[l]);
	return o;
}

static cJSON *time_split(const roof_sum *s)
{
	cJSON *o = cJSON_CreateObject();
	for (int k = 0; k < 3; k++) {
		char key[32];
		snprintf(key, sizeof key, "%s_bound_s", roof_bound_names[k]);
		cJSON_AddNumberToObject(o, key, s->t_bound[k]);
	}
	cJSON_AddNumberToObject(o, "flops", s->flops);
	cJSON_AddNumberToObject(o, "bytes", s->bytes);
	return o;
}

void *report_json(const report_eval *r)
{
	cJSON *o = cJSON_CreateObject();
	const plan *p = r->train ? &r->train->plan : &r->infer->plan;
	int feasible = r->train ? r->train->feasible : r->infer->feasible;
	const char *reason = r->train ? r->train->reason : r->infer->reason;
	const mem_use *m = r->train ? &r->train->mem : &r->infer->mem;
	hw_prec rp = r->train ? r->train->run_prec : r->infer->run_prec;

	if (!o)
		return NULL;
	cJSON_AddStringToObject(o, "system", r->sys->name);
	cJSON_AddStringToObject(o, "chip", r->sys->chip.name);
	cJSON_AddStringToObject(o, "workload", r->w->name);
	cJSON_AddStringToObject(o, "network", r->w->net.name);
	cJSON_AddStringToObject(o, "mode", wl_mode_names[r->w->mode]);
	cJSON_AddStringToObject(o, "precision", hw_prec_names[r->w->prec]);
	cJSON_AddStringToObject(o, "run_precision", rp < HW_PREC_N ? hw_prec_names[rp] : "none");
	cJSON_AddNumberToObject(o, "chips", p->chips);
	cJSON_AddItemToObject(o, "plan", plan_json(p));
	cJSON_AddBoolToObject(o, "feasible", feasible);
	if (!feasible)
		cJSON_AddStringToObject(o, "reason", reason);
	cJSON_AddNumberToObject(o, "mem_per_chip_gib", m->total / GiB);
	cJSON_AddItemToObject(o, "memory", mem_json(m));
	if (r->train) {
		const train_result *t = r->train;
		cJSON *b = cJSON_CreateObject();
		cJSON_AddNumberToObject(o, "step_time_s", t->step_time);
		cJSON_AddNumberToObject(o, "tokens_per_s", t->tokens_per_s);
		cJSON_AddNumberToObject(o, "model_tflops_per_chip", t->model_tflops_per_chip);
		cJSON_AddNumberToObject(o, "hw_tflops_per_chip", t->hw_tflops_per_chip);
		cJSON_AddNumberToObject(o, "mfu", t->mfu);
		cJSON_AddNumberToObject(o, "hfu", t->hfu);
		cJSON_AddNumberToObject(o, "train_days", t->train_time / 86400);
		cJSON_AddNumberToObject(b, "micro_batches", t->micro_batches);
		cJSON_AddNumberToObject(b, "micro_batch_s", t->t_micro);
		cJSON_AddNumberToObject(b, "compute_s", t->t_compute);
		cJSON_AddNumberToObject(b, "bubble_s", t->t_bubble);
		cJSON_AddNumberToObject(b, "optimizer_s", t->t_optimizer);
		cJSON_AddNumberToObject(b, "comm_exposed_s", t->t_comm_exposed);
		cJSON_AddNumberToObject(b, "tp_comm_per_micro_s", t->comm.tp);
		cJSON_AddNumberToObject(b, "pp_comm_per_micro_s", t->comm.pp);
		cJSON_AddNumberToObject(b, "ep_comm_per_micro_s", t->comm.ep);
		cJSON_AddNumberToObject(b, "cp_comm_per_micro_s", t->comm.cp);
		cJSON_AddNumberToObject(b, "zero3_comm_per_micro_s", t->comm.zero3);
		cJSON_AddNumberToObject(b, "dp_sync_exposed_s", t->comm.dp);
		cJSON_AddNumberToObject(b, "dp_sync_total_s", t->comm.dp_total);
		cJSON_AddItemToObject(b, "comm_by_level_s", levels_json(r->sys, t->comm.level));
		cJSON_AddNumberToObject(b, "compute_bound_s", t->t_bound[ROOF_COMPUTE]);
		cJSON_AddNumberToObject(b, "memory_bound_s", t->t_bound[ROOF_MEMORY]);
		cJSON_AddNumberToObject(b, "overhead_bound_s", t->t_bound[ROOF_OVERHEAD]);
		cJSON_AddItemToObject(o, "breakdown", b);
		cJSON_AddBoolToObject(o, "comm_priced", t->comm_priced);
	} else {
		const infer_result *in = r->infer;
		cJSON *b = cJSON_CreateObject();
		cJSON *pre = time_split(&in->prefill), *dec = time_split(&in->decode);
		cJSON_AddNumberToObject(o, "ttft_ms", in->ttft * 1e3);
		cJSON_AddNumberToObject(o, "tpot_ms", in->tpot * 1e3);
		cJSON_AddNumberToObject(o, "tokens_per_s", in->tokens_per_s);
		cJSON_AddNumberToObject(o, "tokens_per_s_per_chip", in->tokens_per_s_per_chip);
		cJSON_AddNumberToObject(o, "batch", in->batch);
		cJSON_AddStringToObject(o, "scenario", wl_scenario_names[in->scenario]);
		cJSON_AddStringToObject(o, "batch_reason", in->batch_reason);
		cJSON_AddNumberToObject(o, "ttft_tail_ms", in->ttft_tail * 1e3);
		cJSON_AddNumberToObject(o, "tpot_tail_ms", in->tpot_tail * 1e3);
		cJSON_AddNumberToObject(o, "requests_per_s", in->requests_per_s);
		cJSON_AddStringToObject(o, "prefill_bound", roof_bound_names[in->prefill_bound]);
		cJSON_AddStringToObject(o, "decode_bound", roof_bound_names[in->decode_bound]);
		cJSON_AddNumberToObject(b, "decode_context_mean", in->ctx_mean);
		cJSON_AddItemToObject(b, "prefill", pre);
		cJSON_AddItemToObject(b, "decode_step", dec);
		cJSON_AddNumberToObject(b, "step_s", in->step.t);
		cJSON_AddNumberToObject(b, "step_ops_s", in->step.t_ops);
		cJSON_AddNumberToObject(b, "step_comm_s", in->step.t_comm);
		cJSON_AddNumberToObject(b, "step_runtime_overhead_s", in->step.t_overhead);
		cJSON_AddItemToObject(b, "comm_by_level_s", levels_json(r->sys, in->step.comm_level));
		cJSON_AddItemToObject(o, "breakdown", b);
		cJSON_AddBoolToObject(o, "comm_priced", in->comm_priced);
	}
	cJSON_AddStringToObject(o, "comm_note", report_comm_note);
	cJSON_AddItemToObject(o, "sources", sources_json(r->sys));
	return o;
}

static void line(FILE *fp, const char *k, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void line(FILE *fp, const char *k, const char *fmt, ...)
{
	va_list ap;
	fprintf(fp, "  %-16s ", k);
	va_start(ap, fmt);
	vfprintf(fp, fmt, ap);
	va_end(ap);
	fputc('\n', fp);
}

static void comm_levels(FILE *fp, const hw_system *s, const double lv[], const char *what)
{
	char buf[256];
	int k = 0;
	for (int l = 0; l < s->nlevels; l++)
		k += snprintf(buf + k, sizeof buf - (size_t)k, "%s%s %.3f ms", l ? ", " : "",
			      hw_level_names[s->levels[l].kind], lv[l] * 1e3);
	line(fp, "", "by level %s: %s", what, buf);
}

void report_text(const report_eval *r, FILE *fp)
{
	const hw_system *s = r->sys;
	const hw_chip *c = &s->chip;
	const plan *p = r->train ? &r->train->plan : &r->infer->plan;
	int feasible = r->train ? r->train->feasible : r->infer->feasible;
	const char *reason = r->train ? r->train->reason : r->infer->reason;
	const mem_use *m = r->train ? &r->train->mem : &r->infer->mem;
	hw_prec rp = r->train ? r->train->run_prec : r->infer->run_prec;
	char pl[128];

	plan_format(p, pl, sizeof pl);
	fprintf(fp, "%s on %s: %d x %s, %s\n", r->w->name, s->name, p->chips, c->display, pl);
	line(fp, "feasible", "%s%s%s", feasible ? "yes" : "no", feasible ? "" : ": ", feasible ? "" : reason);
	line(fp, "precision", "%s%s%s (dense peak %.0f TFLOP/s per chip)", hw_prec_names[r->w->prec],
	     rp != r->w->prec ? ", runs at " : "", rp != r->w->prec && rp < HW_PREC_N ? hw_prec_names[rp] : "",
	     rp < HW_PREC_N ? c->peak[rp] / 1e12 : 0.0);
	if (r->train)
		line(fp, "memory/chip", "%.1f GiB of %.1f GiB (weights %.1f, grads %.1f, optimizer %.1f, activations %.1f)",
		     m->total / GiB, c->hbm / GiB, m->weights / GiB, m->grads / GiB, m->optimizer / GiB,
		     m->activations / GiB);
	else
		line(fp, "memory/chip", "%.1f GiB of %.1f GiB (weights %.1f, KV cache %.1f, workspace %.1f)",
		     m->total / GiB, c->hbm / GiB, m->weights / GiB, m->kv_cache / GiB, m->activations / GiB);
	if (r->train) {
		const train_result *t = r->train;
		line(fp, "step time", "%.3f s = %.0f micro-batches x %.4f s + bubble %.3f s + optimizer %.4f s",
		     t->step_time, t->micro_batches, t->t_micro, t->t_bubble, t->t_optimizer);
		line(fp, "bound", "compute %.0f%%, memory %.0f%%, overhead %.0f%% of op time",
		     100 * t->t_bound[0] / (t->t_compute + t->t_optimizer),
		     100 * t->t_bound[1] / (t->t_compute + t->t_optimizer),
		     100 * t->t_bound[2] / (t->t_compute + t->t_optimizer));
		line(fp, "throughput", "%.0f tokens/s, %.1f model TFLOP/s per chip, MFU %.1f%%, HFU %.1f%%",
		     t->tokens_per_s, t->model_tflops_per_chip, 100 * t->mfu, 100 * t->hfu);
		line(fp, "communication", "exposed %.3f s per step: per micro-batch TP %.4f, PP %.4f, EP %.4f, CP %.4f, ZeRO-3 %.4f; DP sync %.3f of %.3f s",
		     t->t_comm_exposed, t->comm.tp, t->comm.pp, t->comm.ep, t->comm.cp, t->comm.zero3, t->comm.dp,
		     t->comm.dp_total);
		comm_levels(fp, r->sys, t->comm.level, "per step");
		line(fp, "time to train", "%.1f days for %.3g tokens", t->train_time / 86400, r->w->tokens);
	} else {
		const infer_result *in = r->infer;
		line(fp, "scenario", "%s", in->batch_reason);
		line(fp, "batch", "%.0f sequences per replica, %d replicas, mean decode context %.0f",
		     in->batch, p->dp, in->ctx_mean);
		line(fp, "TTFT", "%.2f ms mean, %.2f ms p%g (prefill %s-bound)", in->ttft * 1e3,
		     in->ttft_tail * 1e3, r->w->slo_percentile, roof_bound_names[in->prefill_bound]);
		line(fp, "TPOT", "%.3f ms mean, %.3f ms p%g (decode %s-bound)", in->tpot * 1e3,
		     in->tpot_tail * 1e3, r->w->slo_percentile, roof_bound_names[in->decode_bound]);
		line(fp, "step", "%.3f ms = ops %.3f + communication %.3f + runtime %.3f per stage, x %d stages",
		     in->step.t * 1e3, in->step.t_ops * 1e3, in->step.t_comm * 1e3, in->step.t_overhead * 1e3,
		     p->pp);
		comm_levels(fp, r->sys, in->step.comm_level, "per step");
		line(fp, "throughput", "%.0f output tokens/s (%.1f per chip)", in->tokens_per_s,
		     in->tokens_per_s_per_chip);
	}
	line(fp, "figures from", "%s peaks: %s (%s)", c->name, c->src_peak.source, c->src_peak.as_of);
	line(fp, "", "%s memory: %s (%s)", c->name, c->src_memory.source, c->src_memory.as_of);
	line(fp, "", "efficiency gemm %.2f, hbm %.2f: %s (%s)", c->gemm_eff[rp < HW_PREC_N ? rp : HW_BF16],
	     c->hbm_eff, c->src_eff.source, c->src_eff.as_of);
}
