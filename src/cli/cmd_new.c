/* cmd_new: `roofcost new network NAME` and `roofcost new workload NAME --network NET` - a
 * commented template with every key of the format (taken from the loaders' schemas, so a key
 * the loader learns appears here too), its unit and what it wants, that loads as written. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "base/names.h"
#include "model/hf.h"
#include "model/nn.h"
#include "model/price.h"
#include "model/wl.h"

const char new_usage[] =
	"usage: roofcost new network NAME [-o DIR]\n"
	"       roofcost new network NAME --from-hf CONFIG.json [--ignore KEY,...] [--display TEXT]\n"
	"                            [--source TEXT] [--as-of DATE] [--note TEXT] [-o DIR]\n"
	"       roofcost new workload NAME --network NET [--mode infer|train] [-o DIR]\n\n"
	"Writes DIR/NAME.ini (DIR defaults to the working directory; an existing file is never\n"
	"overwritten): a template with every key of the format, one per line, with its unit, whether\n"
	"it is required, its default, and what source and as_of want. Optional keys are commented out\n"
	"(;). The file loads as written: a network with Llama 3 8B's figures to replace, a workload of\n"
	"network NET (a name from roofcost list networks, or a path to an .ini file) with a typical\n"
	"serving or training scenario. Then: roofcost eval -s SYSTEM -w DIR/NAME.ini. A relative path\n"
	"inside a file (network = my-model.ini) is taken from that file's folder.\n\n"
	"--from-hf reads a Hugging Face config.json instead (model_type llama, mistral, mixtral, qwen2,\n"
	"qwen2_moe, qwen3, qwen3_moe, deepseek_v2, deepseek_v3, kimi_k2, gpt_oss, llama4, gemma, gemma2,\n"
	"gemma3) and writes the network it describes: every value with a comment naming the config keys\n"
	"it came from (or the transformers default where the file leaves a key out), and at the end the\n"
	"keys left out because they do not change the cost (RoPE base, token ids, router losses, ...),\n"
	"each with why. A key roofcost does not know is an error naming it, since it may change the\n"
	"cost: --ignore KEY leaves it out all the same. A workload may also name a config.json directly\n"
	"(network = path/to/config.json).\n\n"
	"      --from-hf FILE     the config.json to read (new network)\n"
	"      --ignore KEYS      config keys to leave out although unknown, comma-separated\n"
	"      --display TEXT     the network's display name (default NAME)\n"
	"      --source TEXT      where the config.json comes from, e.g. org/repo@commit config.json\n"
	"                         (default: the file's path, to be replaced)\n"
	"      --as-of DATE       the date of that source, YYYY-MM-DD (default today)\n"
	"      --note TEXT        the note: what is derived or assumed, the model card's counts\n"
	"      --network NET      the workload's network\n"
	"      --mode MODE        infer (default) or train\n"
	"  -o, --dir DIR          where to write NAME.ini (default .)\n"
	"  -h, --help             this text\n";

/* How a key appears in a template. */
enum { ACTIVE = 1, COMMENTED = 2, TRAIN = 4, INFER = 8 };

typedef struct key_doc {
	const char *section, *key, *value, *what;
	int how; /* ACTIVE or COMMENTED, and TRAIN / INFER when it applies to one mode only */
} key_doc;

/* Example values: Llama 3 8B (meta-llama/Meta-Llama-3-8B config.json), to be replaced. */
static const key_doc net_docs[] = {
	{"network", "name", "$NAME", "required: equal to the file name without .ini", ACTIVE},
	{"network", "display", "$NAME", "required: the name shown in tables and reports", ACTIVE},
	{"network", "family", "custom", "required: a family name (llama3, gpt3, mixtral, ...), free text", ACTIVE},
	{"network", "layers", "32", "required: transformer blocks (config.json num_hidden_layers)", ACTIVE},
	{"network", "hidden", "4096", "required: model width (hidden_size)", ACTIVE},
	{"network", "heads", "32", "required: attention heads (num_attention_heads)", ACTIVE},
	{"network", "kv_heads", "8", "optional: key/value heads, GQA (num_key_value_heads); default heads", ACTIVE},
	{"network", "head_dim", "128", "optional: width of one head; default hidden / heads", ACTIVE},
	{"network", "ffn", "14336", "required: FFN width (intermediate_size)", ACTIVE},
	{"network", "ffn_act", "swiglu", "required: gelu | swiglu", ACTIVE},
	{"network", "vocab", "128256", "required: vocabulary size (vocab_size)", ACTIVE},
	{"network", "tied_embeddings", "0", "optional: 1 when the LM head shares the input embedding; default 0", ACTIVE},
	{"network", "position", "rope", "required: rope | learned | alibi", ACTIVE},
	{"network", "max_context", "8192", "required: the longest sequence, tokens (max_position_embeddings)", ACTIVE},
	{"network", "experts", "8", "MoE: routed experts per MoE layer (num_local_experts); none = dense", COMMENTED},
	{"network", "experts_active", "2", "MoE: experts each token goes to (num_experts_per_tok)", COMMENTED},
	{"network", "expert_ffn", "14336", "MoE: FFN width of one expert; default ffn", COMMENTED},
	{"network", "shared_experts", "0", "MoE: experts every token also goes to; default 0", COMMENTED},
	{"network", "dense_layers", "0", "MoE: leading layers with a dense FFN; default 0", COMMENTED},
	{"network", "q_lora_rank", "1536", "MLA (DeepSeek-V2/V3): query compression rank; 0 = full", COMMENTED},
	{"network", "kv_lora_rank", "512", "MLA: key/value compression rank (cached per token)", COMMENTED},
	{"network", "rope_head_dim", "64", "MLA: the rotary part of head_dim", COMMENTED},
	{"network", "v_head_dim", "128", "MLA: width of a value head; default head_dim", COMMENTED},
	{"network", "source", "TODO: the config.json or paper (and table) these figures come from",
	 "required: where the figures come from, free text (a URL, a citation)", ACTIVE},
	{"network", "as_of", "$TODAY", "required: the date of that source, YYYY-MM-DD (or YYYY-MM, YYYY)", ACTIVE},
	{"network", "note", "what is derived or assumed", "optional: free text", COMMENTED},
};

static const key_doc wl_docs[] = {
	{"workload", "name", "$NAME", "required: equal to the file name without .ini", ACTIVE},
	{"workload", "network", "$NETWORK", "required: a network (roofcost list networks) or a path to its .ini, "
	 "taken from this file's folder", ACTIVE},
	{"workload", "mode", "$MODE", "required: train | infer", ACTIVE},
	{"workload", "precision", "bf16", "required: weights and GEMM inputs: fp32 | tf32 | bf16 | fp16 | fp8 | int8 | fp4",
	 ACTIVE},
	{"workload", "kv_precision", "bf16", "optional: KV-cache elements; default bf16 (fp8 when precision is fp8 "
	 "or fp4)", COMMENTED | INFER},
	{"workload", "framework", "$FRAMEWORK", "optional: the software stack (roofcost list frameworks); its defaults "
	 "fill the keys left out; default generic", COMMENTED},
	{"workload", "description", "what this workload is, in a line", "optional: free text", COMMENTED},
	{"workload", "source", "a benchmark, a paper, your traffic", "optional: where the scenario comes from",
	 COMMENTED},
	{"train", "seq_len", "$SEQ", "required: tokens per sequence", ACTIVE},
	{"train", "global_batch", "512", "required: sequences per optimizer step", ACTIVE},
	{"train", "micro_batch", "1", "required: sequences per micro-batch (divides global_batch)", ACTIVE},
	{"train", "tokens", "1e12", "required: the token budget of the run", ACTIVE},
	{"train", "optimizer", "adam", "required: adam | sgd", ACTIVE},
	{"train", "zero", "1", "required: ZeRO stage 0..3 (3 = FSDP)", ACTIVE},
	{"train", "recompute", "selective", "required: none | selective | full", ACTIVE},
	{"train", "flash_attention", "1", "optional: 1 = fused attention; default 1", COMMENTED},
	{"train", "dropout", "0", "optional: 1 = dropout masks are stored (Megatron GPT); default 0", COMMENTED},
	{"train", "overlap_grad_reduce", "1", "optional: the gradient sync overlaps the backward pass; default 1",
	 COMMENTED},
	{"infer", "input_len", "$IN", "required: prompt tokens per request", ACTIVE},
	{"infer", "output_len", "$OUT", "required: generated tokens per request", ACTIVE},
	{"infer", "concurrency", "32", "single: the requests in flight (required); elsewhere an optional upper "
	 "limit (default: what the latency limits and the server allow)", COMMENTED},
	{"infer", "scenario", "server", "required: offline | server | interactive | single", ACTIVE},
	{"infer", "ttft_slo", "2000 ms", "optional: time-to-first-token limit (us, ms, s)", ACTIVE},
	{"infer", "tpot_slo", "50 ms", "optional: time-per-output-token limit (50 ms = 20 tokens/s per user)", ACTIVE},
	{"infer", "slo_percentile", "99", "optional: the percentile the limits hold at; default 99", ACTIVE},
	{"infer", "length_spread", "exponential", "optional: server, interactive: fixed | exponential (output lengths "
	 "geometric about output_len); default fixed", COMMENTED},
	{"infer", "input_spread", "0:48 50:152 90:519 99:791 100:1021", "optional: server, interactive: fixed | "
	 "PERCENTILE:TOKENS ... (prompt lengths: a dataset's percentiles from 0 to 100, their shape scaled about "
	 "input_len; a prompt's prefill time spreads with them, so the wait for a prefill slot and the TTFT "
	 "percentiles widen); default fixed", COMMENTED},
	{"infer", "scheduler", "inflight", "optional: inflight | batched_prefill; default: the framework's", COMMENTED},
	{"infer", "kv_mem_fraction", "0.9", "optional: share of the memory after weights for the KV cache; "
	 "default 0.9", COMMENTED},
	{"infer", "max_num_tokens", "8192", "optional: tokens one serving iteration may process; default: the "
	 "framework's", COMMENTED},
	{"infer", "max_num_seqs", "256", "optional: the most sequences in one running batch; 0 = no limit; default: "
	 "the framework's", COMMENTED},
	{"infer", "iter_overhead", "1 ms", "optional: host time per serving iteration (us, ms); default: the "
	 "framework's", COMMENTED},
	{"infer", "arrival_rate", "100", "optional: server, interactive: a fixed Poisson load in requests/s over all "
	 "replicas (as MLPerf's LoadGen schedules its target QPS); the latencies are those at that load, the "
	 "result infeasible where the server cannot complete it or misses the limits; default: the highest load "
	 "whose latencies meet the limits", COMMENTED},
	{"plan", "tp", "8", "tensor-parallel degree", COMMENTED},
	{"plan", "pp", "1", "pipeline stages", COMMENTED},
	{"plan", "vpp", "1", "virtual stages per pipeline stage (interleaved 1F1B)", COMMENTED},
	{"plan", "dp", "1", "data-parallel replicas", COMMENTED},
	{"plan", "cp", "1", "context-parallel degree", COMMENTED},
	{"plan", "ep", "1", "expert-parallel degree (MoE)", COMMENTED},
	{"plan", "sp", "1", "sequence parallelism: 0 | 1", COMMENTED},
	{"plan", "chips", "8", "total chips; default tp*pp*dp*cp", COMMENTED},
	{"cost", "pricing", "on-demand", "on-demand | capacity-block | reserved-1y | reserved-3y | committed-1y | "
	 "committed-3y | spot | owned; default on-demand", COMMENTED},
	{"cost", "region", "us-east-1", "the price of this region; default the cheapest per chip-hour", COMMENTED},
	{"cost", "unit", "$UNIT", "train: run; infer: mtok (default) | example (one request)", COMMENTED},
	{"cost", "utilization", "1", "(0, 1]: share of paid time that runs the workload; default 1", COMMENTED},
	{"cost", "idle_headroom", "0", "[0, 1): share of capacity held idle for load peaks; default 0", COMMENTED},
	{"cost", "retries", "0", ">= 0: extra share of the work run again; default 0", COMMENTED},
	{"cost", "storage", "0 TB", "data kept, over the run or per month of serving (B, GB, TB, GiB, ...); "
	 "needs storage_usd_per_tb_month", COMMENTED},
	{"cost", "storage_usd_per_tb_month", "23", "USD per TB and month", COMMENTED},
	{"cost", "egress", "0 TB", "data sent out, over the run or per month; needs egress_usd_per_gb", COMMENTED},
	{"cost", "egress_usd_per_gb", "0.09", "USD per GB", COMMENTED},
	{"cost", "engineering_hours", "0", "people-hours, over the run or per month; needs engineering_usd_per_hour",
	 COMMENTED},
	{"cost", "engineering_usd_per_hour", "150", "USD per people-hour", COMMENTED},
	{"cost", "chip_mtbf", "50000 h", "mean time between failures of one chip (s, min, h); default 50000 h",
	 COMMENTED | TRAIN},
	{"cost", "checkpoint_bw", "2 TB/s", "aggregate checkpoint write bandwidth; default 2 TB/s", COMMENTED | TRAIN},
	{"cost", "checkpoint_size", "1 TB", "bytes per checkpoint; default 16 B per parameter", COMMENTED | TRAIN},
	{"cost", "restart_time", "10 min", "from a failure or a spot interruption to running again; default 10 min",
	 COMMENTED},
	{"cost", "spot_interruption_interval", "300 h", "spot: mean time between interruptions of one instance; "
	 "without it spot interruptions are not modelled", COMMENTED},
	{"cost", "amortization_years", "5", "owned: years the capex is spread over; default models/cost.ini", COMMENTED},
	{"cost", "electricity_usd_per_kwh", "0.0895", "owned: USD per kWh of facility energy; default models/cost.ini",
	 COMMENTED},
	{"cost", "hosting_usd_per_kw_month", "184.06", "owned: colocation, USD per kW of rated power a month; default "
	 "models/cost.ini", COMMENTED},
	{"cost", "pue", "1.56", "facility power / IT power; default models/cost.ini", COMMENTED},
	{"cost", "network_storage_share", "0.25", "owned: cluster network and storage, a share of the capex; default "
	 "models/cost.ini", COMMENTED},
	{"cost", "staff_usd_per_kw_month", "0", "owned: staff beyond hosting, USD per kW a month; default models/cost.ini",
	 COMMENTED},
	{"cost", "power_share", "0.76", "share of the rated power drawn while running; default models/cost.ini",
	 COMMENTED},
	{"cost", "price_age_days", "90", "warn when compared prices are more days apart; default models/cost.ini",
	 COMMENTED},
};

/* Writes text wrapped at 100 columns, each line indented by ind spaces. */
static void wrapped(FILE *fp, const char *text, int ind)
{
	const char *p = text;
	while (*p) {
		int n = (int)strlen(p), cut = n;
		if (n > 100 - ind) {
			cut = 100 - ind;
			while (cut > 0 && p[cut] != ' ')
				cut--;
			if (cut == 0)
				cut = 100 - ind;
		}
		fprintf(fp, "%*s%.*s\n", ind, "", cut, p);
		p += cut;
		while (*p == ' ')
			p++;
	}
}

int new_help_keys(FILE *fp)
{
	const char *section, *key, *cur = "";
	int req;
	fputs("Every key a workload file takes, by section, with what its value is (units where it has\n"
	      "one) and what it means; workloads/README.md has the whole format. --set KEY=VALUE overrides\n"
	      "any of them on the command line with the same units: --set tokens=1T, --set tpot_slo=50ms,\n"
	      "--set concurrency=64, --set global_batch=2k. Counts take k, M, B, T.\n", fp);
	for (int i = 0; wl_schema_key(i, &section, &key, &req); i++) {
		char what[256];
		const key_doc *d = NULL;
		const char *w;
		for (size_t k = 0; k < sizeof wl_docs / sizeof wl_docs[0] && !d; k++)
			if (!strcmp(wl_docs[k].section, section) && !strcmp(wl_docs[k].key, key))
				d = &wl_docs[k];
		if (strcmp(section, cur) != 0) {
			fprintf(fp, "\n[%s]\n", section);
			cur = section;
		}
		wl_schema_what(i, what, sizeof what);
		fprintf(fp, "  %-28s %-9s %s\n", key, req ? "required" : "optional", what);
		w = d ? d->what : "";
		/* The line above says required or not: the text after "required: " or "optional: ". */
		if (!strncmp(w, "required: ", 10) || !strncmp(w, "optional: ", 10))
			w += 10;
		if (*w)
			wrapped(fp, w, 6);
	}
	return 0;
}

static const key_doc *find_doc(const key_doc *docs, int n, const char *section, const char *key)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(docs[i].section, section) && !strcmp(docs[i].key, key))
			return &docs[i];
	return NULL;
}

/* Writes value with the $NAME-style fields of vars (pairs, NULL-ended) filled in. */
static void put_value(FILE *fp, const char *value, const char *const *vars)
{
	for (int i = 0; vars[i]; i += 2)
		if (!strcmp(value, vars[i])) {
			fputs(vars[i + 1], fp);
			return;
		}
	fputs(value, fp);
}

/* One key: "key = value   ; what" (commented out with "; " when optional), padded to a column. */
static void put_key(FILE *fp, const char *key, const key_doc *d, int required, const char *const *vars)
{
	char line[512];
	FILE *mem;
	int n;
	if (!d) {
		/* A key the loader knows and this table does not yet: still listed, as a comment. */
		fprintf(fp, "; %s (%s): see the format's README\n", key, required ? "required" : "optional");
		return;
	}
	mem = fmemopen(line, sizeof line, "w");
	if (!mem)
		return;
	fprintf(mem, "%s%s = ", (d->how & COMMENTED) && !required ? "; " : "", key);
	put_value(mem, d->value, vars);
	n = (int)ftell(mem);
	fclose(mem);
	line[n < (int)sizeof line ? n : (int)sizeof line - 1] = '\0';
	fprintf(fp, "%s%*s ; %s\n", line, n < 30 ? 30 - n : 0, "", d->what);
}

/* 1 if the file path lies directly in folder dir (as spelled: "a/b.ini" and "a", "b.ini" and "."). */
static int same_folder(const char *path, const char *dir)
{
	const char *slash = strrchr(path, '/');
	size_t n = slash ? (size_t)(slash - path) : 0, d = strlen(dir);
	while (d > 1 && dir[d - 1] == '/')
		d--;
	if (!slash)
		return d == 1 && dir[0] == '.';
	return n == d && !strncmp(path, dir, d);
}

static int valid_name(const char *s)
{
	if (!*s || *s == '.' || strlen(s) >= WL_NAME_MAX)
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
		      *s == '-' || *s == '_' || *s == '.'))
			return 0;
	return 1;
}

static int write_network(FILE *fp, const char *name, const char *today)
{
	const char *const vars[] = {"$NAME", name, "$TODAY", today, NULL};
	const char *key;
	int req;
	fprintf(fp, "; %s: a network for roofcost, written by 'roofcost new network %s'.\n"
		    "; The figures are Llama 3 8B's (meta-llama/Meta-Llama-3-8B config.json): replace them with your\n"
		    "; model's, then fill in source and as_of. Format: models/README.md in the roofcost sources.\n"
		    "; Lines starting with ';' are optional keys, off; remove the ';' to set one.\n"
		    "; Check it: roofcost new workload my-serve --network %s.ini, then\n"
		    ";           roofcost eval -s p5.48xlarge -w my-serve.ini\n"
		    "[network]\n", name, name, name);
	for (int i = 0; nn_schema_key(i, &key, &req); i++)
		put_key(fp, key, find_doc(net_docs, (int)(sizeof net_docs / sizeof net_docs[0]), "network", key), req, vars);
	return 0;
}

/* The options of `new network --from-hf` that fill the keys a config.json does not hold. */
typedef struct hf_opts {
	const char *from, *ignore, *display, *source, *as_of, *note;
} hf_opts;

/* One "key = value ; why" line of a generated network; a why that would make the line longer
 * than an INI line may be goes on a comment line of its own above it. */
static void put_traced(FILE *fp, const char *key, const char *value, const char *why)
{
	int n = (int)(strlen(key) + 3 + strlen(value));
	if ((n < 30 ? 30 : n) + 3 + (int)strlen(why) > 180) {
		fprintf(fp, "; %s: %s\n%s = %s\n", key, why, key, value);
		return;
	}
	fprintf(fp, "%s = %s%*s ; %s\n", key, value, n < 30 ? 30 - n : 0, "", why);
}

/* "key = value", a long value broken at spaces onto indented continuation lines (an INI line
 * holds at most 190 characters; the loader joins the pieces with one space). */
static void put_long(FILE *fp, const char *key, const char *value)
{
	const char *p = value;
	int first = 1;
	while (*p) {
		int room = first ? 180 - (int)strlen(key) - 3 : 178, cut = (int)strlen(p);
		if (cut > room) {
			cut = room;
			while (cut > 0 && p[cut] != ' ')
				cut--;
			if (cut == 0)
				cut = room;
		}
		if (first)
			fprintf(fp, "%s = %.*s\n", key, cut, p);
		else
			fprintf(fp, "  %.*s\n", cut, p);
		first = 0;
		p += cut;
		while (*p == ' ')
			p++;
	}
}

/* A network from a config.json: every key it set, with the config keys it came from. */
static void write_hf_network(FILE *fp, const char *name, const hf_config *c, const hf_opts *o, const char *today)
{
	const char *key;
	int req;
	char v[NN_TEXT_MAX];
	fprintf(fp, "; %s: a network for roofcost, written by 'roofcost new network %s --from-hf %s'.\n"
		    "; Every value is read from that config.json (model_type %s); the comment after it names\n"
		    "; the config keys it came from, or the transformers default where the file leaves a key out.\n"
		    "; Format: models/README.md in the roofcost sources.\n"
		    "[network]\n", name, name, o->from, c->model_type);
	put_traced(fp, "name", name, "the file's name");
	put_traced(fp, "display", o->display ? o->display : name, o->display ? "--display" : "edit: the name in tables");
	put_traced(fp, "family", c->net.family, "model_type");
	for (int i = 0; nn_schema_key(i, &key, &req); i++) {
		const char *from = hf_from(c, key);
		if (!strcmp(key, "name") || !strcmp(key, "display") || !strcmp(key, "family") || !strcmp(key, "source") ||
		    !strcmp(key, "as_of") || !strcmp(key, "note") || !from)
			continue;
		nn_key_text(&c->net, key, v, sizeof v);
		put_traced(fp, key, v, from);
	}
	put_long(fp, "source", o->source ? o->source : o->from);
	if (!o->source)
		fputs("; source: replace the path with where the file comes from: org/repo@commit config.json\n", fp);
	fprintf(fp, "as_of = %s\n", o->as_of ? o->as_of : today);
	if (o->note)
		put_long(fp, "note", o->note);
	if (c->nignored > 0) {
		fputs("; Left out: they do not change what a layer computes or keeps.\n", fp);
		for (int i = 0; i < c->nignored; i++)
			fprintf(fp, ";   %s: %s\n", c->ignored[i].key, c->ignored[i].why);
	}
}

static void write_workload(FILE *fp, const char *name, const char *network, int train, const nn_net *net)
{
	char seq[16], in[16], out[16];
	const char *const vars[] = {"$NAME", name, "$NETWORK", network, "$MODE", train ? "train" : "infer",
				    "$SEQ", seq, "$IN", in, "$OUT", out, "$UNIT", train ? "run" : "mtok",
				    "$FRAMEWORK", train ? "megatron-core" : "vllm", NULL};
	const char *section, *key, *cur = "";
	int req;
	/* Lengths that fit the network's context. */
	snprintf(seq, sizeof seq, "%d", net->max_context < 8192 ? net->max_context : 8192);
	snprintf(in, sizeof in, "%d", net->max_context / 2 < 2048 ? net->max_context / 2 : 2048);
	snprintf(out, sizeof out, "%d", net->max_context / 4 < 256 ? net->max_context / 4 : 256);
	fprintf(fp, "; %s: a %s workload for roofcost, written by 'roofcost new workload %s --network %s --mode %s'.\n"
		    "; Format: workloads/README.md in the roofcost sources. Quantities carry units (us, ms, s, min, h;\n"
		    "; B, GB, GiB, TB; GB/s, TB/s); counts and fractions are plain numbers. Lines starting with ';'\n"
		    "; are optional keys, off; remove the ';' to set one. Check it:\n"
		    ";   roofcost eval -s p5.48xlarge -w %s.ini\n",
		name, train ? "training" : "serving", name, network, train ? "train" : "infer", name);
	for (int i = 0; wl_schema_key(i, &section, &key, &req); i++) {
		const key_doc *d = find_doc(wl_docs, (int)(sizeof wl_docs / sizeof wl_docs[0]), section, key);
		if ((train && !strcmp(section, "infer")) || (!train && !strcmp(section, "train")))
			continue;
		if (d && ((d->how & TRAIN && !train) || (d->how & INFER && train)))
			continue;
		if (strcmp(section, cur) != 0) {
			static const char *const heads[][2] = {
				{"plan", "optional: a fixed layout; --plan overrides it, compare and sweep search"},
				{"cost", "optional: what a delivered unit costs besides the chips"}};
			const char *h = "";
			for (size_t k = 0; k < sizeof heads / sizeof heads[0]; k++)
				if (!strcmp(heads[k][0], section))
					h = heads[k][1];
			fprintf(fp, "\n[%s]%s%s\n", section, h[0] ? "  ; " : "", h);
			cur = section;
		}
		put_key(fp, key, d, req && strcmp(section, "plan") && strcmp(section, "cost"), vars);
	}
}

int cmd_new(int argc, char **argv, const home_paths *paths)
{
	enum { O_NETWORK = 5000, O_MODE, O_FROM_HF, O_IGNORE, O_DISPLAY, O_SOURCE, O_AS_OF, O_NOTE };
	static const struct option longopts[] = {{"network", required_argument, NULL, O_NETWORK},
						 {"mode", required_argument, NULL, O_MODE},
						 {"from-hf", required_argument, NULL, O_FROM_HF},
						 {"ignore", required_argument, NULL, O_IGNORE},
						 {"display", required_argument, NULL, O_DISPLAY},
						 {"source", required_argument, NULL, O_SOURCE},
						 {"as-of", required_argument, NULL, O_AS_OF},
						 {"note", required_argument, NULL, O_NOTE},
						 {"dir", required_argument, NULL, 'o'},
						 {"help", no_argument, NULL, 'h'},
						 {NULL, 0, NULL, 0}};
	const char *network = NULL, *dir = ".", *what, *name;
	char path[HOME_PATH_MAX + 64], today[16], netref[HOME_PATH_MAX];
	int c, train = 0, rc = 0;
	err e = {0};
	FILE *fp;
	nn_net *net = NULL;
	hf_config *hf = NULL;
	hf_opts ho = {0};

	optind = 1;
	while ((c = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'h':
			fputs(new_usage, stdout);
			return 0;
		case O_NETWORK:
			network = optarg;
			break;
		case O_MODE:
			if (strcmp(optarg, "train") && strcmp(optarg, "infer")) {
				err_set(&e, ERR_USAGE, "new: --mode: '%s' is not infer or train", optarg);
				return cli_fail(&e);
			}
			train = !strcmp(optarg, "train");
			break;
		case 'o':
			dir = optarg;
			break;
		case O_FROM_HF:
			ho.from = optarg;
			break;
		case O_IGNORE:
			ho.ignore = optarg;
			break;
		case O_DISPLAY:
			ho.display = optarg;
			break;
		case O_SOURCE:
			ho.source = optarg;
			break;
		case O_AS_OF:
			if (!price_is_date(optarg)) {
				err_set(&e, ERR_USAGE, "new: --as-of: '%s' is not a date (YYYY-MM-DD)", optarg);
				return cli_fail(&e);
			}
			ho.as_of = optarg;
			break;
		case O_NOTE:
			ho.note = optarg;
			break;
		default:
			fputs(new_usage, stderr);
			return 2;
		}
	}
	if (optind + 2 != argc || (strcmp(argv[optind], "network") && strcmp(argv[optind], "workload"))) {
		err_set(&e, ERR_USAGE, "new: expected 'network NAME' or 'workload NAME --network NET' (roofcost new --help)");
		return cli_fail(&e);
	}
	what = argv[optind];
	name = argv[optind + 1];
	if (!valid_name(name)) {
		err_set(&e, ERR_USAGE, "new: '%s' is not a name (letters, digits, '-', '_', '.'; at most %d)", name,
			WL_NAME_MAX - 1);
		return cli_fail(&e);
	}
	if (!strcmp(what, "network") && (network || train)) {
		err_set(&e, ERR_USAGE, "new network: --network and --mode apply to a workload");
		return cli_fail(&e);
	}
	if ((ho.ignore || ho.display || ho.source || ho.as_of || ho.note) && !ho.from) {
		err_set(&e, ERR_USAGE, "new: --ignore, --display, --source, --as-of and --note go with --from-hf");
		return cli_fail(&e);
	}
	if (ho.from && strcmp(what, "network") != 0) {
		err_set(&e, ERR_USAGE, "new workload: --from-hf reads a network (new network NAME --from-hf FILE); a "
			"workload may name the config.json: --network FILE");
		return cli_fail(&e);
	}
	for (const char *t = ho.display; t && *t; t++)
		if (*t == '\n' || *t == ';')
			return cli_fail(&(err){ERR_USAGE, "new: --display: no ';' or line break"});
	if (ho.from) {
		/* Read before anything is written: a config that does not load writes no file. */
		char *keys[HF_IGNORED_MAX + 1] = {0}, *copy = ho.ignore ? strdup(ho.ignore) : NULL;
		int nk = 0;
		for (char *tok = copy ? strtok(copy, ",") : NULL; tok && nk < HF_IGNORED_MAX; tok = strtok(NULL, ","))
			keys[nk++] = tok;
		hf = malloc(sizeof *hf);
		if (!hf || hf_load(ho.from, (const char *const *)keys, hf, &e) != 0) {
			if (!hf)
				err_set(&e, ERR_DATA, "out of memory");
			free(hf);
			free(copy);
			return cli_fail(&e);
		}
		free(copy);
	}
	if (!strcmp(what, "workload")) {
		if (!network) {
			err_set(&e, ERR_USAGE, "new workload: missing --network NET (see 'roofcost list networks')");
			return cli_fail(&e);
		}
		net = malloc(sizeof *net);
		if (!net) {
			err_set(&e, ERR_DATA, "out of memory");
			return cli_fail(&e);
		}
		if (hf_find_net(network, paths->models, net, &e) != 0) {
			free(net);
			return cli_fail(&e);
		}
		/* A name is written as the loader spells it; a path so that it still holds from the
		 * new file's folder. */
		if (!strchr(network, '/') && !hf_is_config(network) && !(strlen(network) > 4 && !strcmp(network + strlen(network) - 4, ".ini")))
			snprintf(netref, sizeof netref, "%s", net->name);
		else if (same_folder(network, dir))
			snprintf(netref, sizeof netref, "%s", strrchr(network, '/') ? strrchr(network, '/') + 1 : network);
		else if (network[0] == '/' || !strcmp(dir, "."))
			snprintf(netref, sizeof netref, "%s", network);
		else if (!getcwd(netref, sizeof netref - strlen(network) - 2))
			snprintf(netref, sizeof netref, "%s", network);
		else
			snprintf(netref + strlen(netref), sizeof netref - strlen(netref), "/%s", network);
	}
	{
		time_t now = time(NULL);
		struct tm tm;
		gmtime_r(&now, &tm);
		strftime(today, sizeof today, "%Y-%m-%d", &tm);
	}
	snprintf(path, sizeof path, "%s/%s.ini", dir, name);
	fp = fopen(path, "wx");
	if (!fp) {
		free(net);
		free(hf);
		err_set(&e, ERR_DATA, "%s: cannot create it (%s)", path,
			errno == EEXIST ? "it exists; a template never overwrites a file" : strerror(errno));
		return cli_fail(&e);
	}
	if (net)
		write_workload(fp, name, netref, train, net);
	else if (hf)
		write_hf_network(fp, name, hf, &ho, today);
	else
		write_network(fp, name, today);
	if (fclose(fp) != 0)
		rc = err_set(&e, ERR_DATA, "%s: cannot write it", path);
	free(net);
	free(hf);
	if (rc)
		return cli_fail(&e);
	if (ho.from)
		printf("wrote %s: the network of %s, every value with the config keys it came from; check it with\n"
		       "  roofcost list networks %s\n", path, ho.from, path);
	else
		printf("wrote %s: every key of a %s, the optional ones commented out; edit it, then\n", path, what);
	if (!strcmp(what, "network"))
		printf("  roofcost new workload my-serve --network %s -o %s\n  roofcost eval -s p5.48xlarge -w %s/my-serve.ini\n",
		       path, dir, dir);
	else
		printf("  roofcost eval -s p5.48xlarge -w %s\n", path);
	return 0;
}
