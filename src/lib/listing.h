/* listing: what a data root and its store hold, as tables: systems, chips, networks,
 * workloads, frameworks and prices (`roofcost list`), every file read with the strict loaders
 * (a broken file is an error naming file, line and field); and a table as typed JSON. The CLI
 * prints the tables, the library's face returns the JSON. No printing here. */
#ifndef ROOFCOST_LISTING_H
#define ROOFCOST_LISTING_H

#include "base/err.h"
#include "base/out.h"
#include "lib/home.h"

/* The table of `what` (systems chips networks workloads frameworks prices) into t (initialized
 * here; the caller releases it with out_release, also on an error). networks: files (nfiles of
 * them) are network files or Hugging Face config.json paths to list instead of the shipped ones.
 * prices: provider (may be NULL), as_of ("" or NULL: the newest) and all (every stored price).
 * Returns 0, or nonzero with e set (ERR_USAGE: not a list it knows). */
int listing_table(const home_paths *paths, const char *what, const char *provider, const char *as_of, int all,
		  char **files, int nfiles, out_table *t, err *e);

/* The table as a new cJSON array of objects (void * as in show.h; caller frees): numeric
 * columns as numbers, "-" or an empty cell as null, "true"/"false" as booleans, the rest as
 * strings. NULL if out of memory. */
void *listing_json(const out_table *t);

#endif
