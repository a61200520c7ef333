/* baseline: canonical JSON, hashes, pass rules, figures and drift attribution (see baseline.h). */
#include "store/baseline.h"

#include <cJSON.h>
#include <math.h>
#include <nettle/hmac.h>
#include <nettle/sha2.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cfg.h"
#include "base/opt.h"

const char baseline_schema[] = "roofcost-baseline";
const char baseline_genesis[] = "0000000000000000000000000000000000000000000000000000000000000000";
const char baseline_default_tolerance[] = "*=1%";
const char *const baseline_op_names[] = {"<=", "<", ">=", ">", "=", NULL};

/* ---- a growing string */

typedef struct sbuf {
	char *s;
	size_t n, cap;
	int oom;
} sbuf;

static void sb_add(sbuf *b, const char *s, size_t len)
{
	if (b->oom)
		return;
	if (b->n + len + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		char *ns;
		while (cap < b->n + len + 1)
			cap *= 2;
		ns = realloc(b->s, cap);
		if (!ns) {
			b->oom = 1;
			return;
		}
		b->s = ns;
		b->cap = cap;
	}
	memcpy(b->s + b->n, s, len);
	b->n += len;
	b->s[b->n] = '\0';
}

static void sb_puts(sbuf *b, const char *s)
{
	sb_add(b, s, strlen(s));
}

/* Hands the text over (NULL if out of memory). */
static char *sb_take(sbuf *b)
{
	if (b->oom || !b->s) {
		free(b->s);
		return b->oom ? NULL : calloc(1, 1);
	}
	return b->s;
}

/* ---- canonical JSON */

void baseline_number(double v, char *buf, size_t n)
{
	char tmp[48], *x;
	if (!isfinite(v)) {
		snprintf(buf, n, "null");
		return;
	}
	if (v == 0) {
		snprintf(buf, n, "0");
		return;
	}
	if (v == floor(v) && fabs(v) < 9007199254740992.0) {
		snprintf(buf, n, "%.0f", v);
		return;
	}
	for (int p = 1; p <= 17; p++) {
		snprintf(tmp, sizeof tmp, "%.*g", p, v);
		if (strtod(tmp, NULL) == v)
			break;
	}
	x = strchr(tmp, 'e');
	if (x) {
		/* e-07 -> e-7, e+21 -> e21 */
		const char *q = x + 1;
		int neg = *q == '-';
		if (*q == '+' || *q == '-')
			q++;
		while (*q == '0' && q[1])
			q++;
		*x = '\0';
		snprintf(buf, n, "%se%s%s", tmp, neg ? "-" : "", q);
		return;
	}
	snprintf(buf, n, "%s", tmp);
}

static void put_string(sbuf *b, const char *s)
{
	sb_add(b, "\"", 1);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		const char *esc = NULL;
		char u[8];
		switch (*p) {
		case '"': esc = "\\\""; break;
		case '\\': esc = "\\\\"; break;
		case '\b': esc = "\\b"; break;
		case '\f': esc = "\\f"; break;
		case '\n': esc = "\\n"; break;
		case '\r': esc = "\\r"; break;
		case '\t': esc = "\\t"; break;
		default:
			if (*p < 0x20) {
				snprintf(u, sizeof u, "\\u%04x", *p);
				esc = u;
			}
		}
		if (esc)
			sb_puts(b, esc);
		else
			sb_add(b, (const char *)p, 1);
	}
	sb_add(b, "\"", 1);
}

static void newline(sbuf *b, int pretty, int depth)
{
	if (!pretty)
		return;
	sb_add(b, "\n", 1);
	for (int i = 0; i < depth; i++)
		sb_add(b, "  ", 2);
}

static int cmp_key(const void *a, const void *b)
{
	return strcmp((*(const cJSON *const *)a)->string, (*(const cJSON *const *)b)->string);
}

static int put_value(sbuf *b, const cJSON *j, int pretty, int depth)
{
	char num[48];
	if (cJSON_IsNull(j)) {
		sb_puts(b, "null");
	} else if (cJSON_IsFalse(j)) {
		sb_puts(b, "false");
	} else if (cJSON_IsTrue(j)) {
		sb_puts(b, "true");
	} else if (cJSON_IsNumber(j)) {
		baseline_number(j->valuedouble, num, sizeof num);
		sb_puts(b, num);
	} else if (cJSON_IsString(j)) {
		put_string(b, j->valuestring);
	} else if (cJSON_IsArray(j)) {
		int i = 0;
		sb_add(b, "[", 1);
		for (const cJSON *c = j->child; c; c = c->next, i++) {
			if (i)
				sb_add(b, ",", 1);
			newline(b, pretty, depth + 1);
			if (put_value(b, c, pretty, depth + 1) != 0)
				return -1;
		}
		if (i)
			newline(b, pretty, depth);
		sb_add(b, "]", 1);
	} else if (cJSON_IsObject(j)) {
		int n = 0, rc = 0;
		const cJSON **kids;
		for (const cJSON *c = j->child; c; c = c->next)
			n++;
		kids = malloc((size_t)(n ? n : 1) * sizeof *kids);
		if (!kids)
			return -1;
		n = 0;
		for (const cJSON *c = j->child; c; c = c->next)
			kids[n++] = c;
		qsort(kids, (size_t)n, sizeof *kids, cmp_key);
		sb_add(b, "{", 1);
		for (int i = 0; i < n && rc == 0; i++) {
			if (i && strcmp(kids[i - 1]->string, kids[i]->string) == 0) {
				rc = -1;
				break;
			}
			if (i)
				sb_add(b, ",", 1);
			newline(b, pretty, depth + 1);
			put_string(b, kids[i]->string);
			sb_puts(b, pretty ? ": " : ":");
			rc = put_value(b, kids[i], pretty, depth + 1);
		}
		if (n && rc == 0)
			newline(b, pretty, depth);
		sb_add(b, "}", 1);
		free(kids);
		return rc;
	} else {
		return -1;
	}
	return 0;
}

char *baseline_canonical(const struct cJSON *j, int pretty)
{
	sbuf b = {0};
	if (!j || put_value(&b, j, pretty, 0) != 0) {
		free(b.s);
		return NULL;
	}
	return sb_take(&b);
}

void baseline_sha256(const void *buf, size_t len, char out[BASELINE_SHA_HEX])
{
	struct sha256_ctx ctx;
	uint8_t dg[SHA256_DIGEST_SIZE];
	sha256_init(&ctx);
	sha256_update(&ctx, len, buf);
	sha256_digest(&ctx, sizeof dg, dg);
	for (int i = 0; i < SHA256_DIGEST_SIZE; i++)
		snprintf(out + 2 * i, 3, "%02x", dg[i]);
}

void baseline_chain(const char *prev, const char *sha256, char out[BASELINE_SHA_HEX])
{
	char both[2 * BASELINE_SHA_HEX];
	snprintf(both, sizeof both, "%.64s%.64s", prev, sha256);
	baseline_sha256(both, strlen(both), out);
}

void baseline_hmac(const baseline_key *k, const void *buf, size_t len, char out[BASELINE_SHA_HEX])
{
	struct hmac_sha256_ctx ctx;
	uint8_t dg[SHA256_DIGEST_SIZE];
	hmac_sha256_set_key(&ctx, k->len, (const uint8_t *)k->bytes);
	hmac_sha256_update(&ctx, len, buf);
	hmac_sha256_digest(&ctx, sizeof dg, dg);
	for (int i = 0; i < SHA256_DIGEST_SIZE; i++)
		snprintf(out + 2 * i, 3, "%02x", dg[i]);
}

void baseline_seal(const baseline_key *k, const void *buf, size_t len, char out[BASELINE_SHA_HEX])
{
	if (k && k->len)
		baseline_hmac(k, buf, len, out);
	else
		baseline_sha256(buf, len, out);
}

void baseline_link(const baseline_key *k, const char *prev, const char *sha256, char out[BASELINE_SHA_HEX])
{
	char both[2 * BASELINE_SHA_HEX];
	snprintf(both, sizeof both, "%.64s%.64s", prev, sha256);
	baseline_seal(k, both, strlen(both), out);
}

void baseline_key_id(const baseline_key *k, char out[BASELINE_KEY_ID])
{
	static const char what[] = "roofcost-record-key-id";
	char h[BASELINE_SHA_HEX];
	if (!k || !k->len) {
		out[0] = '\0';
		return;
	}
	baseline_hmac(k, what, sizeof what - 1, h);
	snprintf(out, BASELINE_KEY_ID, "%.16s", h);
}

/* ---- pass rules */

static int figure_name(const char *s)
{
	size_t n = strlen(s);
	if (n == 0 || n >= BASELINE_FIGURE_MAX || s[0] == '.' || s[n - 1] == '.')
		return 0;
	for (const char *p = s; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_' || *p == '.'))
			return 0;
	return 1;
}

static char *trim(char *s)
{
	size_t n;
	while (*s == ' ' || *s == '\t')
		s++;
	n = strlen(s);
	while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		s[--n] = '\0';
	return s;
}

/* A finite decimal number that is all of s (opt.h: no hex, no spaces). */
static int parse_number(const char *s, double *v)
{
	return opt_number(s, v);
}

typedef int (*item_fn)(char *item, baseline_rules *r, err *e);

/* Calls fn on each comma-separated item of text (option names it in errors). */
static int each_item(const char *option, const char *text, item_fn fn, baseline_rules *r, err *e)
{
	char buf[4096], *p;
	if (strlen(text) >= sizeof buf)
		return err_set(e, ERR_USAGE, "%s: longer than %zu characters", option, sizeof buf - 1);
	snprintf(buf, sizeof buf, "%s", text);
	if (!*trim(buf))
		return 0;
	p = buf;
	for (;;) {
		char *comma = strchr(p, ',');
		char *item;
		int rc;
		if (comma)
			*comma = '\0';
		item = trim(p);
		if (!*item)
			return err_set(e, ERR_USAGE, "%s: an empty item in '%s'", option, text);
		if ((rc = fn(item, r, e)) != 0)
			return rc;
		if (!comma)
			return 0;
		p = comma + 1;
	}
}

static int criterion_item(char *item, baseline_rules *r, err *e)
{
	char *op = strpbrk(item, "<>="), name[BASELINE_FIGURE_MAX * 2];
	baseline_criterion *c;
	size_t len;
	if (!op)
		return err_set(e, ERR_USAGE, "--criteria: '%s': expected FIGURE<=LIMIT (or <, >=, >, =)", item);
	if (r->ncrit == BASELINE_RULES_MAX)
		return err_set(e, ERR_USAGE, "--criteria: at most %d criteria", BASELINE_RULES_MAX);
	c = &r->crit[r->ncrit];
	len = (size_t)(op - item);
	snprintf(name, sizeof name, "%.*s", (int)(len < sizeof name ? len : sizeof name - 1), item);
	if (!figure_name(trim(name)))
		return err_set(e, ERR_USAGE, "--criteria: '%s': '%s' is not a figure name (a-z, 0-9, _ and .)",
			       item, trim(name));
	snprintf(c->figure, sizeof c->figure, "%s", trim(name));
	if (op[0] == '<')
		c->op = op[1] == '=' ? BASELINE_LE : BASELINE_LT;
	else if (op[0] == '>')
		c->op = op[1] == '=' ? BASELINE_GE : BASELINE_GT;
	else
		c->op = BASELINE_EQ;
	op += op[1] == '=' ? 2 : 1;
	if (parse_number(trim(op), &c->limit) != 0)
		return err_set(e, ERR_USAGE, "--criteria: '%s': not a number", item);
	r->ncrit++;
	return 0;
}

static int tolerance_item(char *item, baseline_rules *r, err *e)
{
	char orig[256], *eq = strchr(item, '='), *name, *val;
	baseline_tolerance *t;
	size_t n;
	snprintf(orig, sizeof orig, "%s", item);
	if (!eq)
		return err_set(e, ERR_USAGE, "--tolerance: '%s': expected FIGURE=PERCENT%% or FIGURE=AMOUNT", orig);
	if (r->ntol == BASELINE_RULES_MAX)
		return err_set(e, ERR_USAGE, "--tolerance: at most %d tolerances", BASELINE_RULES_MAX);
	t = &r->tol[r->ntol];
	*eq = '\0';
	name = trim(item);
	val = trim(eq + 1);
	if (strcmp(name, "*") != 0 && !figure_name(name))
		return err_set(e, ERR_USAGE, "--tolerance: '%s': '%s' is not a figure name (a-z, 0-9, _ and .) or *",
			       orig, name);
	for (int i = 0; i < r->ntol; i++)
		if (!strcmp(r->tol[i].figure, name))
			return err_set(e, ERR_USAGE, "--tolerance: '%s': %s has a tolerance already", orig, name);
	snprintf(t->figure, sizeof t->figure, "%s", name);
	n = strlen(val);
	t->relative = n > 0 && val[n - 1] == '%';
	if (t->relative)
		val[n - 1] = '\0';
	if (parse_number(trim(val), &t->value) != 0)
		return err_set(e, ERR_USAGE, "--tolerance: '%s': not a number", orig);
	if (t->value < 0)
		return err_set(e, ERR_USAGE, "--tolerance: '%s': must be at least 0", orig);
	r->ntol++;
	return 0;
}

int baseline_parse_criteria(const char *text, baseline_rules *r, err *e)
{
	r->ncrit = 0;
	return each_item("--criteria", text, criterion_item, r, e);
}

int baseline_parse_tolerance(const char *text, baseline_rules *r, err *e)
{
	int rc;
	r->ntol = 0;
	if ((rc = each_item("--tolerance", text, tolerance_item, r, e)) != 0)
		return rc;
	if (!baseline_tolerance_for(r, "*")) {
		char dflt[16];
		snprintf(dflt, sizeof dflt, "%s", baseline_default_tolerance);
		return tolerance_item(dflt, r, e);
	}
	return 0;
}

static void append(char *buf, size_t n, const char *s)
{
	size_t l = strlen(buf);
	if (l < n)
		snprintf(buf + l, n - l, "%s", s);
}

void baseline_criteria_text(const baseline_rules *r, char *buf, size_t n)
{
	buf[0] = '\0';
	for (int i = 0; i < r->ncrit; i++) {
		char num[48], item[BASELINE_FIGURE_MAX + 64];
		baseline_number(r->crit[i].limit, num, sizeof num);
		snprintf(item, sizeof item, "%s%s%s%s", i ? "," : "", r->crit[i].figure,
			 baseline_op_names[r->crit[i].op], num);
		append(buf, n, item);
	}
}

void baseline_tolerance_text(const baseline_rules *r, char *buf, size_t n)
{
	buf[0] = '\0';
	for (int i = 0; i < r->ntol; i++) {
		char num[48], item[BASELINE_FIGURE_MAX + 64];
		baseline_number(r->tol[i].value, num, sizeof num);
		snprintf(item, sizeof item, "%s%s=%s%s", i ? "," : "", r->tol[i].figure, num,
			 r->tol[i].relative ? "%" : "");
		append(buf, n, item);
	}
}

const baseline_tolerance *baseline_tolerance_for(const baseline_rules *r, const char *figure)
{
	const baseline_tolerance *star = NULL;
	for (int i = 0; i < r->ntol; i++) {
		if (!strcmp(r->tol[i].figure, figure))
			return &r->tol[i];
		if (!strcmp(r->tol[i].figure, "*"))
			star = &r->tol[i];
	}
	return star;
}

/* ---- figures */

void baseline_value_of(const struct cJSON *results, const char *name, baseline_value *v)
{
	char path[BASELINE_FIGURE_MAX], *save = NULL;
	const cJSON *j = results;
	memset(v, 0, sizeof *v);
	snprintf(path, sizeof path, "%s", name);
	for (char *t = strtok_r(path, ".", &save); t && j; t = strtok_r(NULL, ".", &save))
		j = cJSON_IsObject(j) ? cJSON_GetObjectItemCaseSensitive(j, t) : NULL;
	if (!j) {
		v->kind = BASELINE_ABSENT;
	} else if (cJSON_IsNull(j)) {
		v->kind = BASELINE_NULL;
	} else if (cJSON_IsBool(j)) {
		v->kind = BASELINE_BOOL;
		v->num = cJSON_IsTrue(j);
	} else if (cJSON_IsNumber(j)) {
		v->kind = BASELINE_NUM;
		v->num = j->valuedouble;
	} else if (cJSON_IsString(j)) {
		v->kind = BASELINE_TEXT;
		snprintf(v->text, sizeof v->text, "%s", j->valuestring);
	} else {
		char *s = baseline_canonical(j, 0);
		v->kind = BASELINE_TEXT;
		snprintf(v->text, sizeof v->text, "%s", s ? s : "");
		free(s);
	}
}

int baseline_value_eq(const baseline_value *a, const baseline_value *b)
{
	if (a->kind != b->kind)
		return 0;
	if (a->kind == BASELINE_NUM || a->kind == BASELINE_BOOL)
		return a->num == b->num;
	if (a->kind == BASELINE_TEXT)
		return strcmp(a->text, b->text) == 0;
	return 1;
}

void baseline_value_text(const baseline_value *v, char *buf, size_t n)
{
	switch (v->kind) {
	case BASELINE_ABSENT: snprintf(buf, n, "-"); break;
	case BASELINE_NULL: snprintf(buf, n, "null"); break;
	case BASELINE_BOOL: snprintf(buf, n, "%s", v->num ? "true" : "false"); break;
	case BASELINE_TEXT: snprintf(buf, n, "%s", v->text); break;
	case BASELINE_NUM:
		if (fabs(v->num) >= 1e6 && fabs(v->num) < 1e15)
			snprintf(buf, n, "%.0f", v->num);
		else
			snprintf(buf, n, "%.6g", v->num);
		break;
	}
}

static const char *const train_figures[] = {
	"feasible", "layout", "mem_per_chip_gib", "step_time_s", "tokens_per_s",
	"model_tflops_per_chip", "mfu", "hfu", "usd_per_hour", "usd_per_unit",
	"interruption_added_h", "interruption_usd", "interruption_run_added_h",
	"interruption_run_usd", "interruption_loss_pct", NULL};
static const char *const infer_figures[] = {
	"feasible", "layout", "mem_per_chip_gib", "ttft_ms", "tpot_ms", "ttft_tail_ms",
	"tpot_tail_ms", "tokens_per_s", "usd_per_hour", "usd_per_unit", "interruption_meets_slo",
	"interruption_capacity_after_tokens_per_s", "interruption_standby_chips",
	"interruption_standby_usd_per_hour", "interruption_loss_pct", NULL};

static int add_name(const char **names, int n, int max, const char *name)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(names[i], name))
			return n;
	if (n < max)
		names[n++] = name;
	return n;
}

int baseline_figures(const char *mode, const baseline_rules *r, const char **names, int max)
{
	const char *const *head = mode && !strcmp(mode, "train") ? train_figures : infer_figures;
	int n = 0;
	for (int i = 0; head[i]; i++)
		n = add_name(names, n, max, head[i]);
	for (int i = 0; i < r->ncrit; i++)
		n = add_name(names, n, max, r->crit[i].figure);
	for (int i = 0; i < r->ntol; i++)
		if (strcmp(r->tol[i].figure, "*") != 0)
			n = add_name(names, n, max, r->tol[i].figure);
	return n;
}

static int holds(baseline_op op, double v, double limit)
{
	switch (op) {
	case BASELINE_LE: return v <= limit;
	case BASELINE_LT: return v < limit;
	case BASELINE_GE: return v >= limit;
	case BASELINE_GT: return v > limit;
	default: return v == limit;
	}
}

/* The operator that states a failed criterion: 58.2 > 50 for <=50. */
static const char *negated(baseline_op op)
{
	static const char *const neg[] = {">", ">=", "<", "<=", "!="};
	return neg[op];
}

/* Figures whose better way is known: higher is better (+1) or lower (-1). */
static const struct { const char *figure; int dir; } directions[] = {
	{"feasible", 1}, {"mem_per_chip_gib", -1}, {"step_time_s", -1}, {"tokens_per_s", 1},
	{"model_tflops_per_chip", 1}, {"mfu", 1}, {"hfu", 1}, {"usd_per_hour", -1}, {"usd_per_unit", -1},
	{"ttft_ms", -1}, {"tpot_ms", -1}, {"ttft_tail_ms", -1}, {"tpot_tail_ms", -1},
	{"interruption_added_h", -1}, {"interruption_usd", -1}, {"interruption_count", -1},
	{"interruption_run_added_h", -1}, {"interruption_run_usd", -1}, {"interruption_loss_pct", -1},
	{"interruption_meets_slo", 1}, {"interruption_capacity_after_tokens_per_s", 1},
	{"interruption_standby_replicas", -1}, {"interruption_standby_chips", -1},
	{"interruption_standby_usd_per_hour", -1},
};

static int ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), m = strlen(tail);
	return n >= m && !strcmp(s + n - m, tail);
}

int baseline_direction(const baseline_rules *r, const char *figure)
{
	/* Rates are better higher; times, money, memory and losses lower. */
	static const char *const higher[] = {"_per_s", "tflops", "mfu", "hfu", "goodput", "throughput", NULL};
	static const char *const lower[] = {"_ms", "_s", "_h", "_usd", "usd", "_gib", "_gb", "_pct", "_per_hour",
					    "_per_unit", "_per_mtok", "_days", "_chips", NULL};
	const char *leaf = strrchr(figure, '.') ? strrchr(figure, '.') + 1 : figure;
	for (size_t i = 0; i < sizeof directions / sizeof directions[0]; i++)
		if (!strcmp(directions[i].figure, figure))
			return directions[i].dir;
	for (int i = 0; r && i < r->ncrit; i++)
		if (!strcmp(r->crit[i].figure, figure) && r->crit[i].op != BASELINE_EQ)
			return r->crit[i].op == BASELINE_LE || r->crit[i].op == BASELINE_LT ? -1 : 1;
	for (int i = 0; higher[i]; i++)
		if (ends_with(leaf, higher[i]))
			return 1;
	for (int i = 0; lower[i]; i++)
		if (ends_with(leaf, lower[i]))
			return -1;
	return 0;
}

void baseline_judge(const baseline_rules *r, const char *figure, const baseline_value *recorded,
		    const baseline_value *now, baseline_judgement *j)
{
	const baseline_tolerance *t = baseline_tolerance_for(r, figure);
	int nums = recorded->kind == BASELINE_NUM && now->kind == BASELINE_NUM;
	int bools = recorded->kind == BASELINE_BOOL && now->kind == BASELINE_BOOL;
	char num[48];
	memset(j, 0, sizeof *j);
	j->direction = baseline_direction(r, figure);
	j->moved = !baseline_value_eq(recorded, now);
	j->change = nums && recorded->num != 0 ? (now->num - recorded->num) / fabs(recorded->num) : NAN;
	if (nums && t) {
		double allowed = t->relative ? t->value / 100 * fabs(recorded->num) : t->value;
		j->drifted = fabs(now->num - recorded->num) > allowed;
		baseline_number(t->value, num, sizeof num);
		snprintf(j->limit, sizeof j->limit, "+-%s%s", num, t->relative ? "%" : "");
	} else {
		/* Anything but two numbers must stay exactly as recorded. */
		j->drifted = j->moved;
		snprintf(j->limit, sizeof j->limit, "=");
	}
	if (j->drifted) {
		/* Which way it went: only numbers (or true/false) of a figure with a known better way
		 * improve; a text, a null or a figure no rule orders that moved is a regression. */
		double up = (nums || bools) ? now->num - recorded->num : 0;
		j->improved = (nums || bools) && j->direction != 0 && up * j->direction > 0;
		j->regressed = !j->improved;
	}
	snprintf(j->verdict, sizeof j->verdict, "%s", !j->drifted ? "pass" : j->improved ? "improved"
		 : (nums || bools) && j->direction ? "regressed" : "changed");
	for (int i = 0; i < r->ncrit; i++) {
		const baseline_criterion *c = &r->crit[i];
		char item[BASELINE_FIGURE_MAX + 64], v[64];
		if (strcmp(c->figure, figure) != 0)
			continue;
		baseline_number(c->limit, num, sizeof num);
		snprintf(item, sizeof item, ", %s%s", baseline_op_names[c->op], num);
		append(j->limit, sizeof j->limit, item);
		if ((now->kind == BASELINE_NUM || now->kind == BASELINE_BOOL) && holds(c->op, now->num, c->limit))
			continue;
		baseline_value_text(now, v, sizeof v);
		if (!j->fell_short)
			snprintf(j->verdict, sizeof j->verdict, "fell short: %s", v);
		j->fell_short = 1;
		if (now->kind == BASELINE_NUM || now->kind == BASELINE_BOOL)
			snprintf(item, sizeof item, " %s %s", negated(c->op), num);
		else
			snprintf(item, sizeof item, ", not %s%s", baseline_op_names[c->op], num);
		append(j->verdict, sizeof j->verdict, item);
	}
	if (j->fell_short && j->drifted)
		append(j->verdict, sizeof j->verdict, j->improved ? ", improved" : (nums || bools) && j->direction ? ", regressed"
		       : ", changed");
}

int baseline_fails(const baseline_judgement *j, int fail_any)
{
	return j->fell_short || (j->drifted && (fail_any || !j->improved));
}

/* ---- why a figure moved */

static void set_change(baseline_change *c, const cfg_entry *en, const char *old, const char *now)
{
	memset(c, 0, sizeof *c);
	snprintf(c->section, sizeof c->section, "%s", en->section);
	snprintf(c->key, sizeof c->key, "%s", en->key);
	snprintf(c->old, sizeof c->old, "%s", old ? old : "");
	snprintf(c->now, sizeof c->now, "%s", now ? now : "");
	c->removed = now == NULL;
	c->added = old == NULL;
}

int baseline_ini_diff(const char *name, const char *old_text, const char *now_text,
		      baseline_change *out, int max, int *more, err *e)
{
	cfg_doc a, b;
	int n = 0;
	*more = 0;
	if (cfg_load_text(&a, name, old_text, e) != 0)
		return -1;
	if (cfg_load_text(&b, name, now_text, e) != 0) {
		cfg_release(&a);
		return -1;
	}
	for (int i = 0; i < a.n; i++) {
		const cfg_entry *x = &a.entries[i], *y = cfg_find(&b, x->section, x->key);
		if (y && !strcmp(x->value, y->value))
			continue;
		if (n < max)
			set_change(&out[n++], x, x->value, y ? y->value : NULL);
		else
			(*more)++;
	}
	for (int i = 0; i < b.n; i++) {
		const cfg_entry *y = &b.entries[i];
		if (cfg_find(&a, y->section, y->key))
			continue;
		if (n < max)
			set_change(&out[n++], y, NULL, y->value);
		else
			(*more)++;
	}
	cfg_release(&a);
	cfg_release(&b);
	return n;
}

void baseline_change_text(const char *path, const baseline_change *c, char *buf, size_t n)
{
	if (c->added)
		snprintf(buf, n, "%s: [%s] %s: added %s", path, c->section, c->key, c->now);
	else if (c->removed)
		snprintf(buf, n, "%s: [%s] %s: removed, was %s", path, c->section, c->key, c->old);
	else
		snprintf(buf, n, "%s: [%s] %s: %s -> %s", path, c->section, c->key, c->old, c->now);
}

void baseline_attribute(int nfig, const baseline_value *rec, const baseline_value *now,
			const baseline_value *frozen, int ncause,
			const baseline_value *const *swapped, unsigned *out)
{
	unsigned data = 0;
	for (int c = 0; c < ncause && c < BASELINE_CAUSES_MAX; c++)
		data |= 1u << (c + 1);
	for (int f = 0; f < nfig; f++) {
		unsigned m = 0;
		out[f] = 0;
		if (baseline_value_eq(&rec[f], &now[f]))
			continue;
		if (!frozen) {
			out[f] = 1u | data;
			continue;
		}
		if (!baseline_value_eq(&rec[f], &frozen[f]))
			m |= 1u;
		for (int c = 0; c < ncause && c < BASELINE_CAUSES_MAX; c++)
			if (!swapped[c] || !baseline_value_eq(&swapped[c][f], &frozen[f]))
				m |= 1u << (c + 1);
		/* Today's data moved it, but no cause alone does: they act together. */
		if (!(m & data) && !baseline_value_eq(&frozen[f], &now[f]))
			m |= data;
		out[f] = m;
	}
}

/* ---- records and their export document */

/* sha256 of every element's "text" of array `name` in record matches its "sha256". */
static int texts_sound(const cJSON *record, const char *name, char *why, size_t n)
{
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(record, name), *it;
	cJSON_ArrayForEach(it, a) {
		const cJSON *text = cJSON_GetObjectItemCaseSensitive(it, "text");
		const cJSON *sha = cJSON_GetObjectItemCaseSensitive(it, "sha256");
		const cJSON *role = cJSON_GetObjectItemCaseSensitive(it, "role");
		char got[BASELINE_SHA_HEX];
		if (!cJSON_IsString(text) || !cJSON_IsString(sha)) {
			snprintf(why, n, "%s: an element without text and sha256", name);
			return 0;
		}
		baseline_sha256(text->valuestring, strlen(text->valuestring), got);
		if (strcmp(got, sha->valuestring) != 0) {
			snprintf(why, n, "%s %s: the frozen text hashes to %.12s, the record says %.12s", name,
				 cJSON_IsString(role) ? role->valuestring : "", got, sha->valuestring);
			return 0;
		}
	}
	return 1;
}

int baseline_sound(const char *text, const char *sha256, char *why, size_t n)
{
	cJSON *j = cJSON_Parse(text);
	char *canon = j ? baseline_canonical(j, 0) : NULL;
	char got[BASELINE_SHA_HEX];
	int ok = 0;
	if (!j || !cJSON_IsObject(j))
		snprintf(why, n, "the record is not a JSON object");
	else if (!canon || strcmp(canon, text) != 0)
		snprintf(why, n, "the record is not in canonical form");
	else if (baseline_sha256(text, strlen(text), got), strcmp(got, sha256) != 0)
		snprintf(why, n, "its content hashes to %.12s, the store says %.12s", got, sha256);
	else
		ok = texts_sound(j, "inputs", why, n) && texts_sound(j, "options", why, n);
	free(canon);
	cJSON_Delete(j);
	return ok;
}

char *baseline_export(const char *record_text, const char *sha256)
{
	return baseline_export_keyed(record_text, sha256, NULL);
}

char *baseline_export_keyed(const char *record_text, const char *sha256, const char *hmac)
{
	cJSON *doc = cJSON_CreateObject(), *rec = cJSON_Parse(record_text);
	char *s = NULL, *out = NULL;
	if (doc && rec) {
		cJSON_AddItemToObject(doc, "record", rec);
		rec = NULL;
		cJSON_AddStringToObject(doc, "schema", baseline_schema);
		cJSON_AddNumberToObject(doc, "schema_version", BASELINE_SCHEMA_VERSION);
		cJSON_AddStringToObject(doc, "sha256", sha256);
		if (hmac)
			cJSON_AddStringToObject(doc, "hmac_sha256", hmac);
		s = baseline_canonical(doc, 1);
	}
	if (s && (out = malloc(strlen(s) + 2)))
		sprintf(out, "%s\n", s);
	free(s);
	cJSON_Delete(rec);
	cJSON_Delete(doc);
	return out;
}

char *baseline_import(const char *name, const char *doc, char sha256[BASELINE_SHA_HEX], err *e)
{
	cJSON *j = cJSON_Parse(doc);
	const cJSON *schema, *version, *rec, *sha;
	char *text = NULL, why[256];
	if (!j) {
		err_set(e, ERR_DATA, "%s: not a JSON document", name);
		goto done;
	}
	if (!cJSON_IsObject(j)) {
		err_set(e, ERR_DATA, "%s: not a roofcost baseline export (not a JSON object)", name);
		goto done;
	}
	schema = cJSON_GetObjectItemCaseSensitive(j, "schema");
	version = cJSON_GetObjectItemCaseSensitive(j, "schema_version");
	rec = cJSON_GetObjectItemCaseSensitive(j, "record");
	sha = cJSON_GetObjectItemCaseSensitive(j, "sha256");
	if (!cJSON_IsString(schema) || strcmp(schema->valuestring, baseline_schema) != 0) {
		err_set(e, ERR_DATA, "%s: not a roofcost baseline export (no \"schema\": \"%s\")", name,
			baseline_schema);
		goto done;
	}
	if (!cJSON_IsNumber(version) || version->valuedouble < 1 ||
	    version->valuedouble != floor(version->valuedouble)) {
		err_set(e, ERR_DATA, "%s: schema_version: not a whole number >= 1", name);
		goto done;
	}
	if (version->valuedouble > BASELINE_SCHEMA_VERSION) {
		err_set(e, ERR_DATA, "%s: schema_version %.0f is newer than this roofcost's %d", name,
			version->valuedouble, BASELINE_SCHEMA_VERSION);
		goto done;
	}
	if (!cJSON_IsObject(rec) || !cJSON_IsString(sha) || strlen(sha->valuestring) != 64) {
		err_set(e, ERR_DATA, "%s: needs a \"record\" object and its \"sha256\"", name);
		goto done;
	}
	if (!(text = baseline_canonical(rec, 0))) {
		err_set(e, ERR_DATA, "%s: record: a key appears twice in one object", name);
		goto done;
	}
	if (!baseline_sound(text, sha->valuestring, why, sizeof why)) {
		err_set(e, ERR_DATA, "%s: broken hash: %s", name, why);
		free(text);
		text = NULL;
		goto done;
	}
	snprintf(sha256, BASELINE_SHA_HEX, "%s", sha->valuestring);
done:
	cJSON_Delete(j);
	return text;
}

int baseline_import_hmac(const char *doc, char hmac[BASELINE_SHA_HEX])
{
	cJSON *j = cJSON_Parse(doc);
	const cJSON *h = cJSON_GetObjectItemCaseSensitive(j, "hmac_sha256");
	int have = cJSON_IsString(h);
	hmac[0] = '\0';
	if (have)
		snprintf(hmac, BASELINE_SHA_HEX, "%.64s", h->valuestring);
	cJSON_Delete(j);
	return have;
}
