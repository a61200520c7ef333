/* cfg: strict INI documents on inih, with line numbers, and schema-driven extraction.
 *
 * cfg_load reads a whole INI file into a cfg_doc (every key with its line), rejecting syntax
 * errors, over-long lines and duplicate keys with file:line. The file must be text of at most
 * 1 MiB (text.h): a NUL byte or a control character is "FILE:LINE: not a text file", a
 * byte-order mark is skipped once at the start, and a section header is checked on its own
 * line (closed, a name of letters, digits, '_', '-', '.' shorter than CFG_NAME_MAX). cfg_extract then fills a plain
 * struct from a table of cfg_field: unknown sections or keys, missing required keys, values
 * that are not numbers, have the wrong unit, are out of range or not among the choices are
 * all errors "FILE:LINE: KEY: reason". Parse all, validate, then compute: the engine never
 * sees a half-loaded description. cfg_override applies a command-line "--set key=value"
 * through the same checks. The only user of inih. */
#ifndef ROOFCOST_CFG_H
#define ROOFCOST_CFG_H

#include <stddef.h>

#include "base/err.h"
#include "base/units.h"

enum { CFG_NAME_MAX = 48, CFG_PATH_MAX = 512 };

typedef struct cfg_entry {
	char section[CFG_NAME_MAX];
	char key[CFG_NAME_MAX];
	char *value;          /* owned by the doc */
	int line;             /* 1-based; 0 = from the command line (--set) */
} cfg_entry;

typedef struct cfg_section_line {
	char name[CFG_NAME_MAX];
	int line;
} cfg_section_line;

typedef struct cfg_doc {
	char path[CFG_PATH_MAX];
	cfg_entry *entries;   /* owned */
	int n, cap;
	cfg_section_line sections[128];  /* models/intervals.ini holds one per calibration group */
	int nsections;
} cfg_doc;

typedef enum cfg_type {
	CFG_NUM,    /* double, in SI after units_parse with `unit` */
	CFG_INT,    /* int (a whole number) */
	CFG_STR,    /* char[size] */
	CFG_ENUM,   /* int index into choices (NULL-terminated) */
	CFG_BOOL,   /* int 0/1 */
	CFG_DATE    /* char[size]: YYYY, YYYY-MM or YYYY-MM-DD */
} cfg_type;

typedef struct cfg_field {
	const char *section;
	const char *key;
	cfg_type type;
	units_kind unit;            /* CFG_NUM */
	int required;               /* 1: required whenever its section is present */
	double min, max;            /* CFG_NUM / CFG_INT inclusive range (min > max: unchecked) */
	size_t offset;              /* into the output struct */
	size_t size;                /* CFG_STR buffer size */
	const char *const *choices; /* CFG_ENUM */
} cfg_field;

/* Reads path into d. Returns 0, or nonzero with e set ("path:line: reason"). On failure d is
 * released. The caller releases d with cfg_release. */
int cfg_load(cfg_doc *d, const char *path, err *e);

/* Like cfg_load, from the NUL-terminated text of a file; errors name it `name`. */
int cfg_load_text(cfg_doc *d, const char *name, const char *text, err *e);

/* Frees what d owns; d may be zeroed or released already. */
void cfg_release(cfg_doc *d);

/* 1 if section [name] is present in d. Its line in *line if not NULL. */
int cfg_has_section(const cfg_doc *d, const char *name, int *line);

/* The entry for section/key, or NULL. */
const cfg_entry *cfg_find(const cfg_doc *d, const char *section, const char *key);

/* The field of "key=value" or "section.key=value" (keys are unique across sections when no
 * section is given), or NULL with e set (ERR_USAGE: unknown, ambiguous, malformed). */
const cfg_field *cfg_field_find(const cfg_field *fields, int nfields, const char *assign, err *e);

/* Applies "key=value" or "section.key=value" (a key the schema knows; keys are unique across
 * sections when no section is given). Replaces an existing entry or adds one. */
int cfg_override(cfg_doc *d, const cfg_field *fields, int nfields, const char *assign, err *e);

/* Parses value as field f into out (the struct f->offset points into), with the checks of a
 * file's value (unit, range, choices). Returns 0, or -1 with the reason in why ("'x' is not
 * one of ..."), out untouched. */
int cfg_parse_value(const cfg_field *f, const char *value, void *out, char *why, size_t n);

/* Fills out from d through fields. Every entry of d must match a field; the sections named in
 * required_sections (NULL-terminated, may be NULL) must be present. Fields of absent keys are
 * left as the caller initialised them. */
int cfg_extract(const cfg_doc *d, const cfg_field *fields, int nfields,
		const char *const *required_sections, void *out, err *e);

/* cfg_extract of the entries of section d->sections[s] alone, through fields whose section
 * is "" (every field applies to that section): a document of repeated sections of one schema
 * (models/calibration.ini, models/intervals.ini). */
int cfg_extract_section(const cfg_doc *d, int s, const cfg_field *fields, int nfields, void *out, err *e);

#endif
