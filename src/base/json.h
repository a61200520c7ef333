/* json: the few things every reader and writer of cJSON documents here does: a member's string
 * or number with a default when it is missing or of another type, a number that JSON cannot
 * hold as null, and a document printed on a stream.
 *
 * Does not parse or build documents itself (cJSON does). */
#ifndef ROOFCOST_JSON_H
#define ROOFCOST_JSON_H

#include <stdio.h>

struct cJSON;

/* The string member key of o, "" when it is missing or not a string (o may be NULL). */
const char *json_str(const struct cJSON *o, const char *key);

/* The number member key of o, NaN when it is missing or not a number (o may be NULL). */
double json_num(const struct cJSON *o, const char *key);

/* A new number, or null for NaN and infinities (which JSON cannot hold). */
struct cJSON *json_num_or_null(double v);

/* Prints j as cJSON_Print does, with a final newline. */
void json_print(const struct cJSON *j, FILE *fp);

#endif
