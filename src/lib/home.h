/* home: a data root: where the chips, systems, networks, workloads, frameworks and bundled
 * catalogs live (models/, workloads/, catalogs/), the store of prices and records beside them,
 * and the lists of what they hold. What the CLI, the library's face (roofcost.h) and the Python
 * binding start from. No evaluation here; the store is the one I/O it opens. */
#ifndef ROOFCOST_HOME_H
#define ROOFCOST_HOME_H

#include "base/err.h"
#include "model/hw.h"
#include "model/interval.h"
#include "store/db.h"

enum { HOME_PATH_MAX = 1024, HOME_SYSTEMS_MAX = 128 };

typedef struct home_paths {
	char home[HOME_PATH_MAX];        /* folder holding models/, workloads/, catalogs/ */
	char models[HOME_PATH_MAX];
	char workloads[HOME_PATH_MAX];
	char catalogs[HOME_PATH_MAX];    /* bundled pricing catalogs */
	char db[HOME_PATH_MAX];          /* the store: $ROOFCOST_DB, else the XDG default (DESIGN §6) */
	int db_default;                 /* 1: db is the XDG default, whose folder may be created */
	const interval_table *intervals;/* models/intervals.ini, read once per command by main; NULL
					   when the data folder has none */
	hw_cache *hw;                   /* the systems' shared files once read (NULL: read per system);
					   what it holds stays as it was read */
} home_paths;

/* Finds the data folders: $ROOFCOST_HOME, else the executable's folder or its ../share/roofcost,
 * else the working directory; and the store: $ROOFCOST_DB, else
 * $XDG_DATA_HOME/roofcost/roofcost.db, else ~/.local/share/roofcost/roofcost.db (roofcost.db
 * here when neither XDG_DATA_HOME nor HOME is set). */
void home_find(home_paths *p, const char *argv0);

/* Sets p to the data root `dir` (NULL: as home_find does) and the store `db_path` (NULL: as
 * home_find does: $ROOFCOST_DB, else the XDG default). intervals is left NULL. Returns 0, or
 * ERR_USAGE with e set when dir holds no models/hw folder or a path is too long. */
int home_at(home_paths *p, const char *dir, const char *db_path, err *e);

/* Opens the store, creating its folder and it, with the bundled catalogs (every .csv in
 * catalogs/, in name order, in the creating transaction), on first use. The caller closes
 * *out with db_close. */
int home_open_db(const home_paths *p, db **out, err *e);

/* The same for commands that only read the store (db_open_read). */
int home_open_db_read(const home_paths *p, db **out, err *e);

/* Sorted .ini file stems of dir into *names (caller frees with home_free_names). Returns the
 * count, or -1 with e set. */
int home_ini_stems(const char *dir, char ***names, err *e);
void home_free_names(char **names, int n);

/* The systems of "-s": "all" (every file in models/hw/systems) or a comma list. Returns the
 * count into *names (caller frees with home_free_names), or -1 with e set. */
int home_system_names(const home_paths *paths, const char *list, char ***names, err *e);

#endif
