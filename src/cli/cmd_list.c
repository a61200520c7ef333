/* cmd_list: `roofcost list systems|chips|networks|workloads|frameworks|prices` - what is known. Every
 * file is loaded with the strict loaders, so a broken file shows up here as file:line: reason;
 * prices come from the store. */
#include <cJSON.h>
#include <dirent.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "lib/listing.h"
#include "base/text.h"
#include "model/hf.h"
#include "model/hw.h"
#include "model/nn.h"
#include "model/wl.h"

const char list_usage[] =
	"usage: roofcost list systems|chips|networks|workloads|frameworks|prices [--format table|csv|json|md]\n"
	"                     [--wide]\n"
	"       roofcost list networks [FILE...] [--format ...]\n"
	"       roofcost list prices [--provider P] [--as-of DATE] [--all] [--format ...]\n\n"
	"Lists what roofcost knows, loading every file strictly (a bad file is an error with its\n"
	"line). systems: chip, chips per node, scale-up domain, largest cluster, per-chip link\n"
	"bandwidth per direction at each level. chips: dense peaks, HBM. networks: total parameters,\n"
	"active ones (what one token's forward multiplies by: attention, dense and shared FFNs, its\n"
	"routed experts, the router and the LM head; the input embedding is a row lookup, in\n"
	"embedding_B: add it for a model card that counts it), layers and widths, the attention (mha,\n"
	"gqa, mla; a sliding or chunked window of W tokens on N layers; sinks; qk-norm) and the KV\n"
	"cache of one token in 16 bits; given FILEs (an .ini or a Hugging Face config.json each,\n"
	"roofcost reads the families of new network --from-hf), those files only.\n"
	"workloads: mode, network, precision, framework. frameworks: the software stacks' defaults\n"
	"(models/frameworks/): attention, ZeRO stage, recompute, what overlaps, host mode, serving\n"
	"scheduler and token budget. prices: the store's prices ($ROOFCOST_DB, else\n"
	"~/.local/share/roofcost/roofcost.db), the newest of each offer (at or before --as-of), or all\n"
	"history (--all), with the price per chip-hour and whether the price is verified; then the\n"
	"systems whose provider publishes no hourly price (\"no public price\" in the source column, the\n"
	"system file's reason). --format json gives numbers as numbers, booleans as true/false and\n"
	"unknowns ('-') as null.\n\n"
	"  --provider P   prices of one provider (aws, gcp, azure, ...)\n"
	"  --as-of DATE   the newest price of each offer at or before YYYY-MM-DD\n"
	"  --all          every stored price, history included\n"
	"  --format FMT   table | csv | json | md (default table)\n"
	"  --wide         text tables with every column, unwrapped (default: fit 120 columns)\n"
	"  -h, --help     this text\n";

int cmd_list(int argc, char **argv, const home_paths *paths)
{
	char q[400];   /* an argument quoted in a message */
	enum { OPT_PROVIDER = 2000, OPT_AS_OF, OPT_ALL };
	static const struct option longopts[] = {
		{"format", required_argument, NULL, CLI_OPT_FORMAT},
		CLI_TABLE_LONGOPTS,
		{"provider", required_argument, NULL, OPT_PROVIDER},
		{"as-of", required_argument, NULL, OPT_AS_OF},
		{"all", no_argument, NULL, OPT_ALL},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0}};
	out_format f = OUT_TABLE;
	out_table t;
	err e = {0};
	int c, rc, all = 0, wide = 0;
	const char *what, *provider = NULL, *as_of = NULL;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		if (c == 'h') {
			fputs(list_usage, stdout);
			return 0;
		}
		if (c == CLI_OPT_FORMAT && out_parse_format(optarg, &f) == 0)
			continue;
		if (c == CLI_OPT_WIDE) {
			wide = 1;
			continue;
		}
		if (c == OPT_PROVIDER || c == OPT_ALL) {
			provider = c == OPT_PROVIDER ? optarg : provider;
			all |= c == OPT_ALL;
			continue;
		}
		if (c == OPT_AS_OF && price_is_date(optarg)) {
			as_of = optarg;
			continue;
		}
		if (c == OPT_AS_OF)
			fprintf(stderr, "roofcost: --as-of: '%s' is not a date (YYYY-MM-DD)\n", text_quote(q, sizeof q, optarg));
		else if (c == CLI_OPT_FORMAT)
			fprintf(stderr, "roofcost: --format: '%s' is not one of table, csv, json, md\n",
				text_quote(q, sizeof q, optarg));
		else
			fputs(list_usage, stderr);
		return 2;
	}
	if (optind >= argc || (optind + 1 != argc && strcmp(argv[optind], "networks") != 0)) {
		fputs(list_usage, stderr);
		return 2;
	}
	what = argv[optind];
	memset(&t, 0, sizeof t);
	if ((provider || as_of || all) && strcmp(what, "prices") != 0) {
		fprintf(stderr, "roofcost: list: --provider, --as-of and --all apply to prices only\n");
		return 2;
	}
	{
		static const char *const known[] = {"systems", "chips", "networks", "workloads", "frameworks", "prices", NULL};
		int k = 0;
		while (known[k] && strcmp(known[k], what))
			k++;
		if (!known[k]) {
			fprintf(stderr, "roofcost: list: '%s' is not one of systems, chips, networks, workloads, frameworks, prices\n",
				text_quote(q, sizeof q, what));
			return 2;
		}
	}
	rc = listing_table(paths, what, provider, as_of, all, argv + optind + 1, argc - optind - 1, &t, &e);
	if (rc != 0) {
		out_release(&t);
		return cli_fail(&e);
	}
	out_wide(&t, wide);
	if (f == OUT_JSON) {
		cJSON *j = listing_json(&t);
		char *js = j ? cJSON_Print(j) : NULL;
		if (js)
			puts(js);
		free(js);
		cJSON_Delete(j);
	} else
		out_print(&t, f, stdout);
	out_release(&t);
	return 0;
}
