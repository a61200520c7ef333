/* cmd_import: `roofcost import FILE.csv` - a pricing catalog into the store. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const char import_usage[] =
	"usage: roofcost import FILE.csv\n\n"
	"Imports a pricing catalog into the store ($ROOFCOST_DB, else ./roofcost.db; created with the\n"
	"bundled catalogs on first use). The header and every field are checked first: a bad row is\n"
	"an error FILE:LINE: FIELD: reason and nothing of the file is stored. Importing the same file\n"
	"again changes nothing; a newer as_of for an offer adds to its history. Columns and allowed\n"
	"values: catalogs/README.md.\n\n"
	"  -h, --help     this text\n";

int cmd_import(int argc, char **argv, const cli_paths *paths)
{
	static const struct option longopts[] = {{"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
	price_catalog c;
	db_import_result r;
	db *store = NULL;
	err e = {0};
	int ch, rc;

	optind = 1;
	while ((ch = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		if (ch == 'h') {
			fputs(import_usage, stdout);
			return 0;
		}
		fputs(import_usage, stderr);
		return 2;
	}
	if (optind + 1 != argc) {
		err_set(&e, ERR_USAGE, "import: expected one FILE.csv (roofcost import --help)");
		return cli_fail(&e);
	}
	/* Checked before the store is opened, so that a bad file does not even create it; then
	 * read again row by row into the store, so memory does not grow with the file. */
	if (price_scan(argv[optind], NULL, NULL, &c, &e) != 0)
		return cli_fail(&e);
	rc = cli_open_db(paths, &store, &e);
	if (rc == 0)
		rc = db_import_file(store, &c, &r, &e);
	if (rc == 0 && r.already)
		printf("%s: already imported as catalog %d (%s, %s); nothing to do\n", c.path, r.catalog,
		       r.path, r.imported_at);
	else if (rc == 0)
		printf("imported %s into %s: %d prices (%d new, %d already stored) as catalog %d, sha256 %.12s\n",
		       c.path, paths->db, c.n, r.added, r.unchanged, r.catalog, c.sha256);
	db_close(store);
	return rc ? cli_fail(&e) : 0;
}
