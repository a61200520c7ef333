/* cmd_import: `roofcost import FILE.csv` - a pricing catalog into the store. */
#include <cJSON.h>
#include <getopt.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

const char import_usage[] =
	"usage: roofcost import FILE.csv [--format table|csv|json|md]\n\n"
	"Imports a pricing catalog into the store ($ROOFCOST_DB, else\n"
	"~/.local/share/roofcost/roofcost.db; created with the bundled catalogs on first use). The\n"
	"header and every field are checked first: a bad row is\n"
	"an error FILE:LINE: FIELD: reason and nothing of the file is stored. Importing the same file\n"
	"again changes nothing; a newer as_of for an offer adds to its history. Columns and allowed\n"
	"values: catalogs/README.md. --format json prints {file, store, catalog, already, prices, added,\n"
	"unchanged, sha256, imported_at}; csv and md the same fields as one row.\n\n"
	"  --format FMT   table (a sentence, default) | csv | json | md\n"
	"  -h, --help     this text\n";

int cmd_import(int argc, char **argv, const home_paths *paths)
{
	static const struct option longopts[] = {{"format", required_argument, NULL, CLI_OPT_FORMAT},
						 {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
	out_format f = OUT_TABLE;
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
		if (ch == CLI_OPT_FORMAT) {
			if (out_parse_format(optarg, &f) == 0)
				continue;
			err_set(&e, ERR_USAGE, "--format: '%s' is not one of table, csv, json, md", optarg);
			return cli_fail(&e);
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
	rc = home_open_db(paths, &store, &e);
	if (rc == 0)
		rc = db_import_file(store, &c, &r, &e);
	if (rc == 0 && f == OUT_JSON) {
		cJSON *o = cJSON_CreateObject();
		char *js;
		cJSON_AddStringToObject(o, "file", c.path);
		cJSON_AddStringToObject(o, "store", paths->db);
		cJSON_AddNumberToObject(o, "catalog", r.catalog);
		cJSON_AddBoolToObject(o, "already", r.already);
		cJSON_AddNumberToObject(o, "prices", c.n);
		cJSON_AddNumberToObject(o, "added", r.added);
		cJSON_AddNumberToObject(o, "unchanged", r.unchanged);
		cJSON_AddStringToObject(o, "sha256", c.sha256);
		if (r.already) {
			cJSON_AddStringToObject(o, "imported_as", r.path);
			cJSON_AddStringToObject(o, "imported_at", r.imported_at);
		} else {
			cJSON_AddNullToObject(o, "imported_as");
			cJSON_AddNullToObject(o, "imported_at");
		}
		js = cJSON_Print(o);
		puts(js);
		free(js);
		cJSON_Delete(o);
	} else if (rc == 0 && f != OUT_TABLE) {
		static const char *const hdr[] = {"file", "store", "catalog", "already", "prices", "added", "unchanged",
						  "sha256", "imported_as", "imported_at"};
		char v[5][24];
		const char *cells[10];
		out_table t;
		snprintf(v[0], sizeof v[0], "%d", r.catalog);
		snprintf(v[1], sizeof v[1], "%s", r.already ? "true" : "false");
		snprintf(v[2], sizeof v[2], "%d", c.n);
		snprintf(v[3], sizeof v[3], "%d", r.added);
		snprintf(v[4], sizeof v[4], "%d", r.unchanged);
		cells[0] = c.path;
		cells[1] = paths->db;
		for (int k = 0; k < 5; k++)
			cells[2 + k] = v[k];
		cells[7] = c.sha256;
		cells[8] = r.already ? r.path : "";
		cells[9] = r.already ? r.imported_at : "";
		out_init(&t, 10, hdr);
		out_row(&t, cells);
		out_print(&t, f, stdout);
		out_release(&t);
	} else if (rc == 0 && r.already) {
		printf("%s: already imported as catalog %d (%s, %s); nothing to do\n", c.path, r.catalog,
		       r.path, r.imported_at);
	} else if (rc == 0) {
		printf("imported %s into %s: %d prices (%d new, %d already stored) as catalog %d, sha256 %.12s\n",
		       c.path, paths->db, c.n, r.added, r.unchanged, r.catalog, c.sha256);
	}
	db_close(store);
	return rc ? cli_fail(&e) : 0;
}
