/* names: finding what a user named among the files of a folder, forgivingly.
 *
 * A name matches a file stem exactly, else ignoring ASCII case; a miss suggests the nearest
 * stems ("did you mean 'trn2.48xlarge', 'trn2-ultraserver'?"): those within a small edit
 * distance, and those that contain the name (or that it contains), nearest first. Used for
 * systems, workloads and networks (and any folder of .ini files). A path written inside a
 * file is taken from that file's folder. Reads directories; no other I/O, no globals. */
#ifndef ROOFCOST_NAMES_H
#define ROOFCOST_NAMES_H

#include <stddef.h>

#include "base/err.h"

enum { NAMES_SUGGEST_MAX = 4 };

/* Edit distance between a and b ignoring ASCII case: insertions, deletions, substitutions and
 * swaps of two neighbours count 1 each (optimal string alignment). Names longer than 63
 * characters compare by their first 63. */
int names_distance(const char *a, const char *b);

/* The names of names[0..n) near want, nearest first, at most NAMES_SUGGEST_MAX, quoted and
 * comma-separated into buf ("'a', 'b'"); "" when none is near. */
void names_suggest(const char *want, const char *const *names, int n, char *buf, size_t len);

/* Sorted stems of the files in dir whose names end in ext (".ini") into *out (the caller frees
 * each and the array). Returns the count, or -1 with e set. */
int names_list(const char *dir, const char *ext, char ***out, err *e);

/* A path written inside file, as seen from the working directory: ref itself when it is
 * absolute or file has no folder, else file's folder joined with ref ("a/w.ini" and
 * "m.ini" give "a/m.ini"). */
void names_relative(const char *file, const char *ref, char *out, size_t n);

/* Resolves want among the .ini stems of dir into out (the stem as spelled on disk): exact,
 * else the one stem equal ignoring case. Otherwise an ERR_DATA "unknown WHAT 'want'" with the
 * suggestions, or "(see 'roofcost list WHATs')" when none is near. */
int names_find(const char *dir, const char *want, const char *what, char *out, size_t n, err *e);

#endif
