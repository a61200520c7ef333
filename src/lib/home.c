/* home: data root, store, names (see home.h). */
#include "lib/home.h"

#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/names.h"
#include "model/price.h"

#ifndef ROOFCOST_DATADIR
#define ROOFCOST_DATADIR "/usr/local/share/roofcost"
#endif

static int is_dir(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static int has_models(const char *dir)
{
	char p[HOME_PATH_MAX + 32];
	snprintf(p, sizeof p, "%s/models/hw", dir);
	return is_dir(p);
}

void home_find(home_paths *p, const char *argv0)
{
	const char *env = getenv("ROOFCOST_HOME");
	char exe[HOME_PATH_MAX] = "";
	char cand[HOME_PATH_MAX + 32];
	memset(p, 0, sizeof *p);
	if (env && *env) {
		snprintf(p->home, sizeof p->home, "%s", env);
	} else {
		ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
		if (n > 0) {
			char *slash;
			exe[n] = '\0';
			slash = strrchr(exe, '/');
			if (slash)
				*slash = '\0';
		} else if (argv0 && strchr(argv0, '/')) {
			snprintf(exe, sizeof exe, "%s", argv0);
			*strrchr(exe, '/') = '\0';
		}
		snprintf(cand, sizeof cand, "%s/../share/roofcost", exe);
		/* An installed binary takes its own data before the working directory's. */
		if (exe[0] && has_models(exe))
			snprintf(p->home, sizeof p->home, "%s", exe);
		else if (exe[0] && has_models(cand))
			snprintf(p->home, sizeof p->home, "%s", cand);
		else if (has_models("."))
			snprintf(p->home, sizeof p->home, ".");
		else
			snprintf(p->home, sizeof p->home, "%s", ROOFCOST_DATADIR);
	}
	snprintf(p->models, sizeof p->models, "%s/models", p->home);
	snprintf(p->workloads, sizeof p->workloads, "%s/workloads", p->home);
	snprintf(p->catalogs, sizeof p->catalogs, "%s/catalogs", p->home);
	env = getenv("ROOFCOST_DB");
	if (env && *env) {
		snprintf(p->db, sizeof p->db, "%s", env);
	} else {
		/* DESIGN §6: the XDG base directory of data files. */
		const char *xdg = getenv("XDG_DATA_HOME"), *home = getenv("HOME");
		p->db_default = 1;
		if (xdg && xdg[0] == '/')
			snprintf(p->db, sizeof p->db, "%s/roofcost/roofcost.db", xdg);
		else if (home && *home)
			snprintf(p->db, sizeof p->db, "%s/.local/share/roofcost/roofcost.db", home);
		else
			snprintf(p->db, sizeof p->db, "roofcost.db");
	}
}

int home_at(home_paths *p, const char *dir, const char *db_path, err *e)
{
	home_find(p, NULL);
	if (dir) {
		if (strlen(dir) >= sizeof p->home - 16)
			return err_set(e, ERR_USAGE, "%s: the data folder's path is too long", dir);
		if (!has_models(dir))
			return err_set(e, ERR_USAGE, "%s: not a roofcost data folder (no models/hw in it)", dir);
		snprintf(p->home, sizeof p->home, "%s", dir);
		snprintf(p->models, sizeof p->models, "%s/models", dir);
		snprintf(p->workloads, sizeof p->workloads, "%s/workloads", dir);
		snprintf(p->catalogs, sizeof p->catalogs, "%s/catalogs", dir);
	}
	if (db_path) {
		if (strlen(db_path) >= sizeof p->db)
			return err_set(e, ERR_USAGE, "%s: the store's path is too long", db_path);
		snprintf(p->db, sizeof p->db, "%s", db_path);
		p->db_default = 0;
	}
	return 0;
}

/* strcmp ignoring ASCII case. */
static int strcasecmp_ascii(const char *a, const char *b)
{
	for (; *a && tolower((unsigned char)*a) == tolower((unsigned char)*b); a++, b++)
		;
	return tolower((unsigned char)*a) - tolower((unsigned char)*b);
}

/* mkdir -p of the folder that holds path. Returns 0, or -1 with errno set. */
static int make_parent(const char *path)
{
	char buf[HOME_PATH_MAX];
	snprintf(buf, sizeof buf, "%s", path);
	for (char *q = buf + 1; *q; q++) {
		if (*q != '/')
			continue;
		*q = '\0';
		if (mkdir(buf, 0755) != 0 && !is_dir(buf))
			return -1;
		*q = '/';
	}
	return 0;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* db_seed_fn: imports every .csv of the bundled catalogs folder, in name order. */
static int seed_catalogs(db *d, void *ctx, err *e)
{
	const char *dir = ctx;
	DIR *dp = opendir(dir);
	struct dirent *de;
	char *names[64];
	int n = 0, rc = 0;
	if (!dp)
		return err_set(e, ERR_DATA, "%s: cannot open the bundled catalogs folder", dir);
	while ((de = readdir(dp)) && rc == 0) {
		size_t l = strlen(de->d_name);
		if (l <= 4 || strcmp(de->d_name + l - 4, ".csv") != 0)
			continue;
		if (n == 64)
			rc = err_set(e, ERR_DATA, "%s: more than 64 bundled catalogs", dir);
		else if (!(names[n] = strdup(de->d_name)))
			rc = err_set(e, ERR_DATA, "out of memory");
		else
			n++;
	}
	closedir(dp);
	qsort(names, (size_t)n, sizeof names[0], cmp_name);
	for (int i = 0; i < n; i++) {
		char path[HOME_PATH_MAX + 256];
		price_catalog c;
		db_import_result r;
		snprintf(path, sizeof path, "%s/%s", dir, names[i]);
		if (rc == 0 && (rc = price_scan(path, NULL, NULL, &c, e)) == 0)
			rc = db_import_file(d, &c, &r, e);
		free(names[i]);
	}
	return rc;
}

/* Opens the store for writing, or read-only when `read` (db_open_read), its default folder
 * made first: a store is created on first use either way. */
static int open_store(const home_paths *p, int read, db **out, err *e)
{
	if (p->db_default && strchr(p->db, '/') && make_parent(p->db) != 0)
		return err_set(e, ERR_DATA, "%s: cannot open the store: cannot create its folder", p->db);
	return (read ? db_open_read : db_open)(p->db, seed_catalogs, (void *)p->catalogs, out, e);
}

int home_open_db(const home_paths *p, db **out, err *e)
{
	return open_store(p, 0, out, e);
}

int home_open_db_read(const home_paths *p, db **out, err *e)
{
	return open_store(p, 1, out, e);
}

int home_ini_stems(const char *dir, char ***out, err *e)
{
	return names_list(dir, ".ini", out, e);
}

void home_free_names(char **names, int n)
{
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

int home_system_names(const home_paths *paths, const char *list, char ***names, err *e)
{
	char dir[HOME_PATH_MAX + 32];
	const char *p = list;
	int n = 0;
	*names = NULL;
	snprintf(dir, sizeof dir, "%s/hw/systems", paths->models);
	while (*p == ' ')
		p++;
	if (!strcasecmp_ascii(p, "all"))
		return home_ini_stems(dir, names, e);
	for (const char *q = p, *c; q; q = c ? c + 1 : NULL) {
		size_t sp = strspn(q, " \t");
		c = strchr(q, ',');
		if (q[sp] == ',' || q[sp] == '\0')
			return -err_set(e, ERR_USAGE, "-s: an empty name in '%s'", list);
	}
	*names = calloc(HOME_SYSTEMS_MAX, sizeof **names);
	if (!*names)
		return -err_set(e, ERR_DATA, "out of memory");
	/* Names separated by commas, spaces around them ignored; each one a system (case does not
	 * matter) or a path; none empty, none twice. */
	for (;;) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		char name[HOME_PATH_MAX], stem[HOME_PATH_MAX];
		int rc = 0;
		while (len > 0 && (p[len - 1] == ' ' || p[len - 1] == '\t'))
			len--;
		while (len > 0 && (*p == ' ' || *p == '\t')) {
			p++;
			len--;
		}
		if (len == 0)
			rc = err_set(e, ERR_USAGE, "-s: an empty name in '%s'", list);
		else if (len >= sizeof name)
			rc = err_set(e, ERR_USAGE, "-s: a name longer than %d characters", (int)sizeof name - 1);
		else if (n == HOME_SYSTEMS_MAX)
			rc = err_set(e, ERR_USAGE, "-s: at most %d systems", HOME_SYSTEMS_MAX);
		if (rc == 0) {
			snprintf(name, sizeof name, "%.*s", (int)len, p);
			if (strchr(name, '/') || (len > 4 && !strcmp(name + len - 4, ".ini")))
				snprintf(stem, sizeof stem, "%s", name);
			else
				rc = names_find(dir, name, "system", stem, sizeof stem, e);
		}
		for (int i = 0; rc == 0 && i < n; i++)
			if (!strcmp((*names)[i], stem))
				rc = err_set(e, ERR_USAGE, "-s: '%s' is named twice", stem);
		if (rc == 0 && !((*names)[n] = strdup(stem)))
			rc = err_set(e, ERR_DATA, "out of memory");
		if (rc != 0) {
			home_free_names(*names, n);
			*names = NULL;
			return -rc;
		}
		n++;
		if (!end)
			break;
		p = end + 1;
	}
	return n;
}
