/* baseline: what a frozen release record is made of, apart from the store and the evaluation.
 *
 * - Canonical JSON: the one text a record is stored, hashed and exported as (keys sorted by
 *   bytes, one number format, minimal string escapes), and SHA-256 (nettle) over it; the
 *   store's chain links each record to the one before.
 * - The pass rules: --criteria (absolute limits on figures) and --tolerance (drift from the
 *   recorded figures), their parsers, their canonical text, and the verdict on one figure.
 * - The figures a check compares (headline figures of the mode plus those the rules name).
 * - Why a figure moved: the keys that differ between a frozen INI text and today's, and which
 *   cause (the tool, an input file, the price) moved which figure, from evaluations that each
 *   bring one cause to today.
 * - The export document (schema-versioned) and the checks of a stored or imported record.
 *
 * Does not touch the store (db.c), read or write files, or evaluate (cmd_baseline.c does).
 * Strings returned as char * are malloc'd: the caller frees them. */
#ifndef ROOFCOST_BASELINE_H
#define ROOFCOST_BASELINE_H

#include <stddef.h>

#include "base/err.h"

struct cJSON;

enum {
	BASELINE_SHA_HEX = 65,        /* 64 hex digits + NUL */
	BASELINE_FIGURE_MAX = 64,     /* a figure name: [a-z0-9_.], dots into objects */
	BASELINE_RULES_MAX = 32,      /* criteria, and tolerances, per record */
	BASELINE_TEXT_MAX = 1024,     /* a non-numeric figure's text */
	BASELINE_SCHEMA_VERSION = 1,  /* of the record and its export document */
	BASELINE_CAUSES_MAX = 15      /* data causes one check attributes (bit 0 is the tool) */
};

/* "roofcost-baseline": the schema name an export document carries. */
extern const char baseline_schema[];

/* The chain's start: the previous hash of the first record in a store (64 zeros). */
extern const char baseline_genesis[];

/* ---- canonical JSON and hashes */

/* The canonical text of j: object keys sorted by their bytes; no white space (pretty 0) or
 * one key or element per line indented by two spaces (pretty 1); strings escape only '"',
 * '\' and control characters (\b \f \n \r \t, else \u00XX), other bytes as they are;
 * numbers: integers of magnitude below 2^53 as integers, others in the shortest %.Ng (N =
 * 1..17) that reads back to the same double, the exponent as e-7 or e21; -0 as 0; NaN and
 * infinities as null. NULL if out of memory or an object holds one key twice. */
char *baseline_canonical(const struct cJSON *j, int pretty);

/* The canonical form of one number into buf (at least 32 bytes). */
void baseline_number(double v, char *buf, size_t n);

/* SHA-256 of len bytes as lower-case hex. */
void baseline_sha256(const void *buf, size_t len, char out[BASELINE_SHA_HEX]);

/* The store's chain: SHA-256 of the 128 hex characters prev followed by sha256. */
void baseline_chain(const char *prev, const char *sha256, char out[BASELINE_SHA_HEX]);

/* The key of a keyed store (ROOFCOST_RECORD_KEY): its bytes as given. len 0: no key. */
typedef struct baseline_key {
	const char *bytes;
	size_t len;
} baseline_key;

enum { BASELINE_KEY_ID = 17, BASELINE_KEY_MIN = 16 };

/* HMAC-SHA256 (RFC 2104, nettle) of len bytes under k, as lower-case hex. */
void baseline_hmac(const baseline_key *k, const void *buf, size_t len, char out[BASELINE_SHA_HEX]);

/* What seals a link or a head: HMAC-SHA256 under k when k has a key, else SHA-256. */
void baseline_seal(const baseline_key *k, const void *buf, size_t len, char out[BASELINE_SHA_HEX]);

/* A chain's link: baseline_seal of the 128 hex characters prev followed by sha256 (without a
 * key, baseline_chain). */
void baseline_link(const baseline_key *k, const char *prev, const char *sha256, char out[BASELINE_SHA_HEX]);

/* The key's public name: the first 16 hex digits of HMAC-SHA256(key, "roofcost-record-key-id"),
 * which tells a wrong key from a tampered store without saying anything of the key ("" for
 * no key). */
void baseline_key_id(const baseline_key *k, char out[BASELINE_KEY_ID]);

/* ---- pass rules */

typedef enum baseline_op { BASELINE_LE, BASELINE_LT, BASELINE_GE, BASELINE_GT, BASELINE_EQ,
			   BASELINE_OP_N } baseline_op;

/* "<=", "<", ">=", ">", "=". */
extern const char *const baseline_op_names[];

typedef struct baseline_criterion {
	char figure[BASELINE_FIGURE_MAX];
	baseline_op op;
	double limit;                  /* in the figure's unit; true counts 1, false 0 */
} baseline_criterion;

typedef struct baseline_tolerance {
	char figure[BASELINE_FIGURE_MAX]; /* a figure, or "*" for every other */
	int relative;                  /* 1: value is a fraction of the recorded figure */
	double value;                  /* >= 0: the fraction (0.05 for 5%), or in the figure's unit */
} baseline_tolerance;

typedef struct baseline_rules {
	baseline_criterion crit[BASELINE_RULES_MAX];
	int ncrit;
	baseline_tolerance tol[BASELINE_RULES_MAX];
	int ntol;
} baseline_rules;

/* The tolerance every figure gets unless --tolerance names "*". */
extern const char baseline_default_tolerance[];

/* Parses "tpot_ms<=50,usd_per_unit<=4.5,interruption_loss_pct<=3" (operators <= < >= > =)
 * into r->crit, replacing what was there; "" means none. Errors are usage errors naming the
 * item: "--criteria: 'tpot_ms<=abc': not a number". */
int baseline_parse_criteria(const char *text, baseline_rules *r, err *e);

/* Parses "tokens_per_s=5%,*=2%" (a percentage of the recorded figure, or without % an absolute
 * amount in the figure's unit) into r->tol, replacing what was there, and adds
 * baseline_default_tolerance's "*" unless the text gives one. Errors as for criteria. */
int baseline_parse_tolerance(const char *text, baseline_rules *r, err *e);

/* The canonical text of r's criteria / tolerances (numbers as baseline_number), which the
 * parsers read back to the same rules. */
void baseline_criteria_text(const baseline_rules *r, char *buf, size_t n);
void baseline_tolerance_text(const baseline_rules *r, char *buf, size_t n);

/* The tolerance of figure: its own, else "*", else NULL. */
const baseline_tolerance *baseline_tolerance_for(const baseline_rules *r, const char *figure);

/* ---- figures */

typedef enum baseline_kind { BASELINE_ABSENT, BASELINE_NULL, BASELINE_NUM, BASELINE_BOOL,
			     BASELINE_TEXT } baseline_kind;

typedef struct baseline_value {
	baseline_kind kind;
	double num;                    /* NUM; BOOL as 0 or 1 */
	char text[BASELINE_TEXT_MAX];  /* TEXT: a string, or an object's canonical JSON */
} baseline_value;

/* The value of figure `name` in an evaluation's results: a key, or a dotted path through
 * objects ("cost.total_usd"). */
void baseline_value_of(const struct cJSON *results, const char *name, baseline_value *v);

/* 1 if a and b are the same value (numbers exactly). */
int baseline_value_eq(const baseline_value *a, const baseline_value *b);

/* For tables: numbers with 6 significant digits, true/false, null, "-" when absent. */
void baseline_value_text(const baseline_value *v, char *buf, size_t n);

/* The figures a check compares for a record of mode "train" or "infer": the headline figures,
 * then every other figure r names, each once. Fills names (pointers into r or static
 * strings) and returns the count (at most max). */
int baseline_figures(const char *mode, const baseline_rules *r, const char **names, int max);

typedef struct baseline_judgement {
	int moved;            /* now differs from the record at all */
	double change;        /* (now - recorded) / |recorded|; NaN unless both are numbers, recorded != 0 */
	int drifted;          /* beyond its tolerance (any change of a non-number) */
	int direction;        /* baseline_direction of the figure */
	int improved;         /* drifted the better way (a number or true/false of a known direction) */
	int regressed;        /* drifted otherwise: the worse way, or a figure with no better way */
	int fell_short;       /* a criterion fails on now */
	char limit[160];      /* "+-5%", "+-5%, <=50" */
	char verdict[256];    /* "pass", "improved", "regressed", "changed", "fell short: 58.2 > 50" */
} baseline_judgement;

/* Which way figure is better: +1 higher (rates, throughput, MFU, feasible), -1 lower (times,
 * money, memory, losses), from the headline figures' table, else the criteria on it (<= and <
 * ask for lower), else its name (..._per_s higher; ..._ms, ..._usd, ..._gib, ..._pct lower);
 * 0 not known. */
int baseline_direction(const baseline_rules *r, const char *figure);

/* Judges one figure: drift from the recorded value within its tolerance, which way it went,
 * and every criterion on it. */
void baseline_judge(const baseline_rules *r, const char *figure, const baseline_value *recorded,
		    const baseline_value *now, baseline_judgement *j);

/* 1 if the figure fails a check: a criterion fails, or it drifted and (fail_any, or it did not
 * improve: check --fail-on regressed, the default, lets an improvement pass). */
int baseline_fails(const baseline_judgement *j, int fail_any);

/* ---- why a figure moved */

typedef struct baseline_change {
	char section[48], key[48];
	char old[256], now[256];
	int added, removed;   /* the key is only in today's text / only in the frozen one */
} baseline_change;

/* The keys whose values differ between two INI texts, in the old text's order then the keys
 * added. Returns the count, at most max (*more is set to the number left out), or -1 with e
 * set when a text does not parse (name names it in the error). */
int baseline_ini_diff(const char *name, const char *old_text, const char *now_text,
		      baseline_change *out, int max, int *more, err *e);

/* "PATH: [section] key: OLD -> NEW" (or "added NEW" / "removed, was OLD"). */
void baseline_change_text(const char *path, const baseline_change *c, char *buf, size_t n);

/* Which causes moved each of nfig figures. rec: as recorded; now: today's evaluation; frozen:
 * evaluated from the frozen inputs with today's tool (NULL: that failed); swapped[c]: from
 * the frozen inputs with cause c alone brought to today (NULL: that failed). out[f] gets bit
 * 0 for the tool (frozen differs from rec) and bit c + 1 for cause c (swapped[c] differs from
 * frozen); a figure that moved although no single cause moves it (causes that only act
 * together, or a failed evaluation) gets every cause. Figures that did not move get 0. */
void baseline_attribute(int nfig, const baseline_value *rec, const baseline_value *now,
			const baseline_value *frozen, int ncause,
			const baseline_value *const *swapped, unsigned *out);

/* ---- records and their export document */

/* The export document of a record: {"record": RECORD, "schema": baseline_schema,
 * "schema_version": N, "sha256": SHA} as pretty canonical JSON with a final newline. */
char *baseline_export(const char *record_text, const char *sha256);

/* The same with "hmac_sha256": HMAC (a keyed store's, baseline_hmac of the record's text) when
 * hmac is not NULL. */
char *baseline_export_keyed(const char *record_text, const char *sha256, const char *hmac);

/* 1 with the document's "hmac_sha256" in hmac when it has one, else 0 ("" in hmac). */
int baseline_import_hmac(const char *doc, char hmac[BASELINE_SHA_HEX]);

/* Reads an export document: the schema, its version (newer than this tool's is refused), and
 * the record's hash. Returns the record's canonical text with its SHA-256 in sha256, or NULL
 * with e set ("name: reason"). */
char *baseline_import(const char *name, const char *doc, char sha256[BASELINE_SHA_HEX], err *e);

/* Checks a stored record: its text is canonical JSON of an object, hashes to sha256, and the
 * text of every frozen input hashes to that input's sha256. Returns 1 if sound, else 0 with
 * the first problem in why. */
int baseline_sound(const char *text, const char *sha256, char *why, size_t n);

#endif
