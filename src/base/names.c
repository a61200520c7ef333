/* names: forgiving name lookup and suggestions (see names.h). */
#include "base/names.h"

#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { NAME_CMP_MAX = 63 };

static int lower(int c)
{
	return tolower((unsigned char)c);
}

int names_distance(const char *a, const char *b)
{
	/* Optimal string alignment distance (Damerau 1964; Wagner and Fischer 1974 for the
	 * table): d[i][j] over the first i characters of a and j of b. */
	int d[NAME_CMP_MAX + 1][NAME_CMP_MAX + 1];
	int la = (int)strlen(a), lb = (int)strlen(b);
	la = la > NAME_CMP_MAX ? NAME_CMP_MAX : la;
	lb = lb > NAME_CMP_MAX ? NAME_CMP_MAX : lb;
	for (int i = 0; i <= la; i++)
		d[i][0] = i;
	for (int j = 0; j <= lb; j++)
		d[0][j] = j;
	for (int i = 1; i <= la; i++)
		for (int j = 1; j <= lb; j++) {
			int cost = lower(a[i - 1]) != lower(b[j - 1]);
			int v = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < v)
				v = d[i][j - 1] + 1;
			if (d[i - 1][j - 1] + cost < v)
				v = d[i - 1][j - 1] + cost;
			if (i > 1 && j > 1 && lower(a[i - 1]) == lower(b[j - 2]) && lower(a[i - 2]) == lower(b[j - 1]) &&
			    d[i - 2][j - 2] + 1 < v)
				v = d[i - 2][j - 2] + 1;
			d[i][j] = v;
		}
	return d[la][lb];
}

/* 1 if needle occurs in hay, ignoring ASCII case. */
static int contains(const char *hay, const char *needle)
{
	size_t n = strlen(needle);
	for (; *hay; hay++) {
		size_t i = 0;
		while (i < n && hay[i] && lower(hay[i]) == lower(needle[i]))
			i++;
		if (i == n)
			return 1;
	}
	return n == 0;
}

void names_suggest(const char *want, const char *const *names, int n, char *buf, size_t len)
{
	int best[NAMES_SUGGEST_MAX], dist[NAMES_SUGGEST_MAX], k = 0;
	size_t lw = strlen(want), used = 0;
	/* Near: a few typos (a third of the name, at least one), or one name inside the other. */
	int limit = lw / 3 > 1 ? (int)(lw / 3) : 1;
	buf[0] = '\0';
	for (int i = 0; i < n; i++) {
		int d = names_distance(want, names[i]);
		int near = d <= limit || (lw >= 2 && contains(names[i], want)) ||
			   (strlen(names[i]) >= 4 && contains(want, names[i]));
		int at, seen = 0;
		for (int j = 0; j < k; j++)
			seen |= !strcmp(names[best[j]], names[i]);
		if (!near || seen)
			continue;
		/* Insert by (distance, name) into the k nearest kept so far. */
		for (at = k; at > 0 && (dist[at - 1] > d || (dist[at - 1] == d && strcmp(names[best[at - 1]], names[i]) > 0));
		     at--)
			;
		if (at >= NAMES_SUGGEST_MAX)
			continue;
		for (int j = (k < NAMES_SUGGEST_MAX ? k : NAMES_SUGGEST_MAX - 1); j > at; j--) {
			best[j] = best[j - 1];
			dist[j] = dist[j - 1];
		}
		best[at] = i;
		dist[at] = d;
		k += k < NAMES_SUGGEST_MAX;
	}
	for (int i = 0; i < k && used + 1 < len; i++) {
		int w = snprintf(buf + used, len - used, "%s'%s'", i ? ", " : "", names[best[i]]);
		if (w < 0)
			break;
		used += (size_t)w;
	}
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int names_list(const char *dir, const char *ext, char ***out, err *e)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char **v = NULL;
	int n = 0, cap = 0;
	size_t le = strlen(ext);
	*out = NULL;
	if (!d)
		return -err_set(e, ERR_DATA, "%s: cannot open folder", dir);
	while ((de = readdir(d))) {
		size_t l = strlen(de->d_name);
		if (l <= le || strcmp(de->d_name + l - le, ext) != 0 || de->d_name[0] == '.')
			continue;
		if (n == cap) {
			char **nv;
			cap = cap ? 2 * cap : 32;
			nv = realloc(v, (size_t)cap * sizeof *v);
			if (!nv)
				break;
			v = nv;
		}
		v[n] = malloc(l - le + 1);
		if (!v[n])
			break;
		memcpy(v[n], de->d_name, l - le);
		v[n][l - le] = '\0';
		n++;
	}
	closedir(d);
	if (n > 0)
		qsort(v, (size_t)n, sizeof *v, cmp_str);
	*out = v;
	return n;
}

int names_find(const char *dir, const char *want, const char *what, char *out, size_t n, err *e)
{
	char **stems, sugg[512];
	int k = names_list(dir, ".ini", &stems, e), found = -1, folded = 0, rc = 0;
	if (k < 0)
		return ERR_DATA;
	for (int i = 0; i < k && found < 0; i++)
		if (!strcmp(stems[i], want))
			found = i;
	for (int i = 0; i < k && found < 0; i++)
		if (strlen(stems[i]) == strlen(want) && contains(stems[i], want)) {
			if (folded++ == 0)
				found = i;
		}
	if (found >= 0 && folded <= 1) {
		snprintf(out, n, "%s", stems[found]);
	} else if (found >= 0) {
		/* Two files differ only in case: say which exist. */
		sugg[0] = '\0';
		for (int i = 0, m = 0; i < k; i++)
			if (strlen(stems[i]) == strlen(want) && contains(stems[i], want))
				snprintf(sugg + strlen(sugg), sizeof sugg - strlen(sugg), "%s'%s'", m++ ? ", " : "", stems[i]);
		rc = err_set(e, ERR_DATA, "%s '%s' is ambiguous: %s", what, want, sugg);
	} else {
		names_suggest(want, (const char *const *)stems, k, sugg, sizeof sugg);
		if (sugg[0])
			rc = err_set(e, ERR_DATA, "unknown %s '%s'; did you mean %s?", what, want, sugg);
		else
			rc = err_set(e, ERR_DATA, "unknown %s '%s' (see 'roofcost list %ss')", what, want, what);
	}
	for (int i = 0; i < k; i++)
		free(stems[i]);
	free(stems);
	return rc;
}

void names_relative(const char *file, const char *ref, char *out, size_t n)
{
	const char *slash = strrchr(file, '/');
	if (ref[0] == '/' || !slash)
		snprintf(out, n, "%s", ref);
	else
		snprintf(out, n, "%.*s/%s", (int)(slash - file), file, ref);
}
