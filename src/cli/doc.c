/* doc: man page and bash completion from the usage texts (see doc.h). */
#include "cli/doc.h"

#include <ctype.h>
#include <string.h>

enum { LINE_MAX_DOC = 512, OPTS_MAX = 64 };

/* Writes s as roff text: backslashes and minus signs escaped, a leading '.' or '\'' made
 * literal. dash: 1 turns '-' into "\-" (options, commands), 0 leaves prose hyphens alone. */
static void roff(FILE *fp, const char *s, size_t n, int dash)
{
	if (n > 0 && (s[0] == '.' || s[0] == '\''))
		fputs("\\&", fp);
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\\')
			fputs("\\e", fp);
		else if (s[i] == '-' && dash)
			fputs("\\-", fp);
		else
			fputc(s[i], fp);
	}
}

/* The next line of *s into line (no newline); advances *s. Returns 0 at the end. */
static int next_line(const char **s, char *line, size_t n)
{
	const char *nl;
	size_t len;
	if (!**s)
		return 0;
	nl = strchr(*s, '\n');
	len = nl ? (size_t)(nl - *s) : strlen(*s);
	snprintf(line, n, "%.*s", (int)len, *s);
	*s += len + (nl != NULL);
	return 1;
}

static size_t indent(const char *l)
{
	return strspn(l, " ");
}

/* An option line: indented 2 to 8 spaces, then '-'. */
static int is_option(const char *l)
{
	size_t k = indent(l);
	return k >= 2 && k <= 8 && l[k] == '-';
}

/* Splits an option line into its spec ("-s, --system NAME") and description, at the first run
 * of two spaces after the spec. */
static void split_option(const char *l, const char **spec, size_t *speclen, const char **desc)
{
	const char *p = l + indent(l), *gap = strstr(p, "  ");
	*spec = p;
	*speclen = gap ? (size_t)(gap - p) : strlen(p);
	*desc = gap ? gap + strspn(gap, " ") : p + strlen(p);
}

static void man_option(FILE *fp, const char *spec, size_t n)
{
	/* Flags bold, their arguments (upper-case words) italic. */
	size_t i = 0;
	fputs(".TP\n", fp);
	while (i < n) {
		size_t j = i;
		while (j < n && spec[j] != ' ' && spec[j] != ',')
			j++;
		if (j > i) {
			int arg = isupper((unsigned char)spec[i]);
			fputs(arg ? "\\fI" : "\\fB", fp);
			roff(fp, spec + i, j - i, 1);
			fputs("\\fR", fp);
		}
		if (j < n)
			fputc(spec[j], fp);
		i = j + 1;
	}
	fputc('\n', fp);
}

static void man_command(FILE *fp, const doc_command *c)
{
	const char *s = c->usage;
	char line[LINE_MAX_DOC];
	int part = 0, para = 0; /* part 0 synopsis, 1 prose and options */
	fprintf(fp, ".SS \"roofcost %s\"\n", c->name);
	if (!s) {
		roff(fp, c->summary, strlen(c->summary), 0);
		fputc('\n', fp);
		return;
	}
	fputs(".nf\n", fp);
	while (next_line(&s, line, sizeof line)) {
		if (part == 0) {
			if (!line[0]) {
				fputs(".fi\n", fp);
				part = 1;
				continue;
			}
			{
				const char *l = !strncmp(line, "usage: ", 7) ? line + 7 : line + indent(line);
				if (l != line + 7 && strncmp(l, "roofcost ", 9) != 0)
					fputs("    ", fp);
				fputs("\\fB", fp);
				roff(fp, l, strlen(l), 1);
				fputs("\\fR\n", fp);
			}
			continue;
		}
		if (!line[0]) {
			para = 0;
			continue;
		}
		if (is_option(line)) {
			const char *spec, *desc;
			size_t n;
			split_option(line, &spec, &n, &desc);
			man_option(fp, spec, n);
			roff(fp, desc, strlen(desc), 0);
			fputc('\n', fp);
			para = 2;
			continue;
		}
		if (para == 0) {
			fputs(".PP\n", fp);
			para = 1;
		}
		roff(fp, line + indent(line), strlen(line + indent(line)), 0);
		fputc('\n', fp);
	}
	if (part == 0)
		fputs(".fi\n", fp);
}

static void man_paragraphs(FILE *fp, const char *s)
{
	char line[LINE_MAX_DOC];
	int para = 0;
	while (next_line(&s, line, sizeof line)) {
		if (!line[0]) {
			para = 0;
			continue;
		}
		if (!para)
			fputs(".PP\n", fp);
		para = 1;
		roff(fp, line, strlen(line), 0);
		fputc('\n', fp);
	}
}

/* EXAMPLES: what each shows, and the command. */
static const char *const examples[][2] = {
	{"What roofcost knows: systems, networks (with total and active parameters), workloads:",
	 "roofcost list systems\nroofcost list networks"},
	{"One serving evaluation, with its breakdown and where each figure came from:",
	 "roofcost eval -s p5.48xlarge -w llama3-70b-serve"},
	{"The same with other settings of the workload (roofcost help keys lists every key and its unit):",
	 "roofcost eval -s hgx-h200 -w deepseek-v3-serve --set concurrency=32 --set tpot_slo=50ms"},
	{"Every system's best layout for a workload, side by side, cheapest first:",
	 "roofcost compare -w llama3-70b-serve -s all"},
	{"A training layout search over sizes, the five cheapest and the Pareto front:",
	 "roofcost sweep -w llama3-8b-train -s p5.48xlarge,trn2.48xlarge --chips 64-512 --top 5"},
	{"A network from its Hugging Face config.json, each value traced to its config key, then its\n"
	 "parameter counts:",
	 "roofcost new network my-model --from-hf config.json -o .\nroofcost list networks my-model.ini config.json"},
	{"A report folder with plots:", "roofcost report -w llama3-70b-serve -s p5.48xlarge,tpu-v6e -o report"},
	{"Prices from your own catalog, in a store of their own:",
	 "ROOFCOST_DB=/tmp/mine.db roofcost import my-prices.csv"},
};

/* FILES: the data folder's layout and the store. */
static const char *const files[][2] = {
	{"models/hw/chips/*.ini, models/hw/systems/*.ini", "chips and the systems built of them"},
	{"models/hw/collectives.ini", "collective algorithms per topology"},
	{"models/nn/*.ini", "networks; a Hugging Face config.json may stand where a network is named"},
	{"models/frameworks/*.ini", "software stacks and their defaults"},
	{"models/calibration.ini", "fitted efficiencies, each with the rows it was fitted on"},
	{"models/intervals.ini", "the out-of-sample error of each calibration group (generated by validate --intervals)"},
	{"models/datasets.ini", "benchmark datasets' request lengths, which validate gives their open-loop rows"},
	{"workloads/*.ini", "training and serving scenarios"},
	{"catalogs/*.csv", "the bundled price catalogs, imported into a new store"},
	{"$XDG_DATA_HOME/roofcost/roofcost.db", "the price store and the release records (~/.local/share/roofcost/ "
						"without XDG_DATA_HOME; $ROOFCOST_DB overrides it)"},
};

/* Lines of prose as they are (no paragraph breaks). */
static void man_paragraphs_inline(FILE *fp, const char *s)
{
	char line[LINE_MAX_DOC];
	while (next_line(&s, line, sizeof line)) {
		roff(fp, line, strlen(line), 0);
		fputc('\n', fp);
	}
}

void doc_man(const doc_program *p, FILE *fp)
{
	fprintf(fp, ".\\\" roofcost(1), generated by 'roofcost help --man' from the commands' --help texts\n");
	fprintf(fp, ".TH ROOFCOST 1 \"\" \"roofcost %s\" \"User Commands\"\n", p->version);
	fputs(".SH NAME\nroofcost \\- ", fp);
	roff(fp, p->about, strcspn(p->about, ".:\n"), 0);
	fputs("\n.SH SYNOPSIS\n.B roofcost\n.I COMMAND\n[\\fIOPTIONS\\fR]\n.br\n.B roofcost help\n[\\fICOMMAND\\fR]\n"
	      ".br\n.B roofcost \\-\\-version\n.SH DESCRIPTION\n", fp);
	man_paragraphs(fp, p->about);
	fputs(".PP\nCommands:\n", fp);
	for (int i = 0; i < p->ncmds; i++) {
		fprintf(fp, ".TP\n.B %s\n", p->cmds[i].name);
		roff(fp, p->cmds[i].summary, strlen(p->cmds[i].summary), 0);
		fputc('\n', fp);
	}
	man_paragraphs(fp, p->notes);
	fputs(".SH COMMANDS\n", fp);
	for (int i = 0; i < p->ncmds; i++)
		man_command(fp, &p->cmds[i]);
	fputs(".SH ENVIRONMENT\n"
	      ".TP\n.B ROOFCOST_HOME\nthe folder holding models/, workloads/ and catalogs/ (default: beside the binary, "
	      "or its ../share/roofcost)\n"
	      ".TP\n.B ROOFCOST_DB\nthe price store (default: $XDG_DATA_HOME/roofcost/roofcost.db, or "
	      "~/.local/share/roofcost/roofcost.db)\n"
	      ".TP\n.B XDG_DATA_HOME\nwhere the default store lives\n"
	      ".SH FILES\n"
	      "The data folder is $ROOFCOST_HOME, else the folder of the binary, else its ../share/roofcost.\n", fp);
	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
		fputs(".TP\n.I ", fp);
		roff(fp, files[i][0], strlen(files[i][0]), 1);
		fputc('\n', fp);
		roff(fp, files[i][1], strlen(files[i][1]), 0);
		fputc('\n', fp);
	}
	fputs(".SH EXIT STATUS\n0 success, 1 a data, IO or database error, 2 a usage error, 3 a check that ran "
	      "and fell short.\n.SH EXAMPLES\n", fp);
	for (size_t i = 0; i < sizeof examples / sizeof examples[0]; i++) {
		const char *c = examples[i][1];
		char line[LINE_MAX_DOC];
		fputs(".PP\n", fp);
		man_paragraphs_inline(fp, examples[i][0]);
		fputs(".RS\n.nf\n", fp);
		while (next_line(&c, line, sizeof line)) {
			roff(fp, line, strlen(line), 1);
			fputc('\n', fp);
		}
		fputs(".fi\n.RE\n", fp);
	}
	fputs(".SH \"SEE ALSO\"\n"
	      ".BR gnuplot (1),\n.BR sqlite3 (1).\n"
	      ".PP\n"
	      "In the roofcost sources: README.md (a tour), models/README.md (the chip, system, network and\n"
	      "framework formats), workloads/README.md (the workload format).\n", fp);
}

/* Appends the n characters at w to the sep-separated list in buf unless it holds them. */
static void add_unique(char *buf, size_t size, size_t *used, char sep, const char *w, size_t n)
{
	for (const char *p = buf; *p;) {
		size_t k = strcspn(p, sep == '|' ? "|" : " ");
		if (k == n && !strncmp(p, w, n))
			return;
		p += k + (p[k] != '\0');
	}
	if (*used + n + 2 < size)
		*used += (size_t)snprintf(buf + *used, size - *used, "%s%.*s", *used ? (sep == '|' ? "|" : " ") : "",
					  (int)n, w);
}

/* The flags of a synopsis line ("[--chips LIST] [--tp LIST] ... NAME|--all [--frozen]"): a '-'
 * after a space, '[' or '|'; with args only those followed by an upper-case word. */
static void synopsis_flags(const char *l, int args, char sep, char *buf, size_t n, size_t *used)
{
	for (size_t i = 0; l[i]; i++) {
		size_t j = i;
		if (l[i] != '-' || (i > 0 && !strchr(" [|", l[i - 1])))
			continue;
		while (l[j] && (l[j] == '-' || islower((unsigned char)l[j]) || isdigit((unsigned char)l[j])))
			j++;
		if (j - i < 2 || !(l[j] == ' ' || l[j] == ']' || l[j] == '|' || l[j] == '\0')) {
			i = j ? j - 1 : 0;
			continue;
		}
		if (!args || (l[j] == ' ' && isupper((unsigned char)l[j + 1])))
			add_unique(buf, n, used, sep, l + i, j - i);
		i = j - 1;
	}
}

/* The option flags of a usage text, sep-separated, into buf: all of them ("-s --system --plan"
 * with sep ' '), or with args only those that take an argument ("--plan" of "--plan LAYOUT",
 * as a case pattern "-s|--system|--plan" with sep '|'). Option lines and the synopsis both
 * count: a flag may be named only in the synopsis ("[--tp LIST]"). */
static void flags_of(const char *usage, int args, char sep, char *buf, size_t n)
{
	char line[LINE_MAX_DOC];
	const char *s = usage;
	size_t used = 0;
	int synopsis = 1;
	buf[0] = '\0';
	while (s && next_line(&s, line, sizeof line)) {
		const char *spec, *desc, *arg;
		size_t len;
		if (!line[0])
			synopsis = 0;
		if (synopsis) {
			synopsis_flags(line, args, sep, buf, n, &used);
			continue;
		}
		if (!is_option(line))
			continue;
		split_option(line, &spec, &len, &desc);
		/* The argument is the last word of the spec, upper case: "-s, --system NAME". */
		arg = spec + len;
		while (arg > spec && arg[-1] != ' ')
			arg--;
		if (args && (arg == spec || !isupper((unsigned char)*arg)))
			continue;
		for (size_t i = 0; i < len;) {
			size_t j = i;
			while (j < len && spec[j] != ' ' && spec[j] != ',')
				j++;
			if (j > i && spec[i] == '-')
				add_unique(buf, n, &used, sep, spec + i, j - i);
			i = j + 1;
		}
	}
}

/* 1 if the usage text offers --pricing ...|all ("[--pricing MODEL,...|all]"). */
static int pricing_all(const char *usage)
{
	for (const char *p = usage ? strstr(usage, "--pricing ") : NULL; p; p = strstr(p + 1, "--pricing ")) {
		size_t k = strcspn(p + 10, " ]\n");
		if (k >= 4 && !strncmp(p + 10 + k - 4, "|all", 4))
			return 1;
	}
	return 0;
}

/* 1 if the n characters at s are a lower-case word ("systems", "record", "cross-check"). */
static int is_word(const char *s, size_t n)
{
	if (n == 0 || !islower((unsigned char)s[0]))
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!islower((unsigned char)s[i]) && !isdigit((unsigned char)s[i]) && s[i] != '-')
			return 0;
	return 1;
}

/* The words a command takes first, from its synopsis lines: the first word after "roofcost
 * CMD" with its '|' alternatives ("list systems|chips|..."), and a word after a lone '|'
 * ("baseline list | show NAME | verify"); space-separated into buf. */
static void words_of(const doc_command *c, char *buf, size_t n)
{
	const char *s = c->usage, *p;
	char line[LINE_MAX_DOC];
	size_t used = 0, lc = strlen(c->name);
	buf[0] = '\0';
	while (s && next_line(&s, line, sizeof line) && line[0]) {
		int first = 1, after_bar = 0;
		p = strstr(line, "roofcost ");
		if (!p || strncmp(p + 9, c->name, lc) != 0 || p[9 + lc] != ' ')
			continue;
		for (p += 9 + lc; *p; first = 0) {
			size_t k;
			p += strspn(p, " ");
			k = strcspn(p, " ");
			if (k == 0)
				break;
			if (k == 1 && *p == '|') {
				after_bar = 1;
				p += k;
				continue;
			}
			for (const char *q = p; (first || after_bar) && q < p + k;) {
				size_t w = strcspn(q, "| ");
				if (is_word(q, w))
					add_unique(buf, n, &used, ' ', q, w);
				q += w + (q[w] == '|');
				if (!first)
					break;
			}
			after_bar = 0;
			p += k;
		}
	}
}

static void words(FILE *fp, const char *const *v)
{
	for (int i = 0; v && v[i]; i++)
		fprintf(fp, "%s%s", i ? " " : "", v[i]);
}

void doc_bash_completion(const doc_program *p, FILE *fp)
{
	char buf[2048];
	fputs("# bash completion for roofcost, generated by 'roofcost help --bash-completion' from the\n"
	      "# commands' --help texts. Install as $(PREFIX)/share/bash-completion/completions/roofcost.\n"
	      "_roofcost_names()\n{\n"
	      "\t\"$1\" list \"$2\" --format csv 2>/dev/null | sed -n '2,$s/,.*//p'\n}\n\n"
	      "_roofcost()\n{\n"
	      "\tlocal cur prev cmd bin words=\"\" opts=\"\" args=\"\" pall=\"\" pre\n"
	      "\tcur=${COMP_WORDS[COMP_CWORD]}\n"
	      "\tprev=${COMP_WORDS[COMP_CWORD-1]}\n"
	      "\tbin=${COMP_WORDS[0]}\n"
	      "\tif [ \"$COMP_CWORD\" -eq 1 ]; then\n"
	      "\t\tCOMPREPLY=($(compgen -W \"", fp);
	for (int i = 0; i < p->ncmds; i++)
		fprintf(fp, "%s ", p->cmds[i].name);
	fputs("help --help --version\" -- \"$cur\"))\n\t\treturn\n\tfi\n\tcmd=${COMP_WORDS[1]}\n\tcase \"$cmd\" in\n", fp);
	for (int i = 0; i < p->ncmds; i++) {
		const doc_command *c = &p->cmds[i];
		char wbuf[512], abuf[1024];
		flags_of(c->usage, 0, ' ', buf, sizeof buf);
		flags_of(c->usage, 1, '|', abuf, sizeof abuf);
		words_of(c, wbuf, sizeof wbuf);
		fprintf(fp, "\t%s) opts=\"%s\" args=\"%s\" words=\"%s\"%s ;;\n", c->name, buf, abuf, wbuf,
			pricing_all(c->usage) ? " pall=all" : "");
	}
	fputs("\thelp) words=\"", fp);
	for (int i = 0; i < p->ncmds; i++)
		fprintf(fp, "%s%s", i ? " " : "", p->cmds[i].name);
	fputs("\" ;;\n\tesac\n"
	      "\tcase \"$prev\" in\n"
	      "\t-s|--system)\n"
	      "\t\tpre=${cur%\"${cur##*,}\"}\n"
	      "\t\tCOMPREPLY=($(compgen -P \"$pre\" -W \"all $(_roofcost_names \"$bin\" systems)\" -- \"${cur##*,}\"))\n"
	      "\t\treturn ;;\n"
	      "\t-w|--workload)\n"
	      "\t\tCOMPREPLY=($(compgen -W \"$(_roofcost_names \"$bin\" workloads)\" -- \"$cur\") $(compgen -f -X '!*.ini' -- \"$cur\"))\n"
	      "\t\treturn ;;\n"
	      "\t--network)\n"
	      "\t\tCOMPREPLY=($(compgen -W \"$(_roofcost_names \"$bin\" networks)\" -- \"$cur\") $(compgen -f -X '!*.ini' -- \"$cur\"))\n"
	      "\t\treturn ;;\n"
	      "\t--framework)\n"
	      "\t\tCOMPREPLY=($(compgen -W \"$(_roofcost_names \"$bin\" frameworks)\" -- \"$cur\") $(compgen -f -X '!*.ini' -- \"$cur\"))\n"
	      "\t\treturn ;;\n"
	      "\t--format)\n\t\tCOMPREPLY=($(compgen -W \"", fp);
	words(fp, p->formats);
	fputs("\" -- \"$cur\"))\n\t\treturn ;;\n\t--pricing)\n\t\tCOMPREPLY=($(compgen -W \"", fp);
	words(fp, p->pricing);
	/* "all" where the command's synopsis offers it (--pricing MODEL,...|all). */
	fputs(" $pall\" -- \"$cur\"))\n\t\treturn ;;\n"
	      "\tesac\n"
	      "\t# baseline check|show|diff|export NAME: the records of the store\n"
	      "\tif [ \"$cmd\" = baseline ] && [ \"$COMP_CWORD\" -ge 3 ] && [[ \"$cur\" != -* ]]; then\n"
	      "\t\tcase \"${COMP_WORDS[2]}\" in\n"
	      "\t\tcheck|show|diff|export)\n"
	      "\t\t\tCOMPREPLY=($(compgen -W \"$(\"$bin\" baseline list --format csv 2>/dev/null | sed -n '2,$s/,.*//p')\" -- \"$cur\"))\n"
	      "\t\t\treturn ;;\n"
	      "\t\tesac\n"
	      "\tfi\n"
	      "\tif [ -n \"$args\" ] && [[ \"|$args|\" == *\"|$prev|\"* ]]; then\n"
	      "\t\tCOMPREPLY=($(compgen -f -- \"$cur\"))\n"
	      "\t\treturn\n"
	      "\tfi\n"
	      "\tif [[ \"$cur\" == -* ]]; then\n"
	      "\t\tCOMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n"
	      "\telif [ -n \"$words\" ] && [ \"$COMP_CWORD\" -eq 2 ]; then\n"
	      "\t\tCOMPREPLY=($(compgen -W \"$words\" -- \"$cur\"))\n"
	      "\telse\n"
	      "\t\tCOMPREPLY=($(compgen -f -- \"$cur\"))\n"
	      "\tfi\n"
	      "}\n"
	      "complete -F _roofcost roofcost ./roofcost\n", fp);
}
