/* price: dates, per-chip prices, the unverified mark, the bundled catalogs. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <string.h>

#include "price.h"

Test(price, dates_are_days_that_exist)
{
	cr_assert(price_is_date("2024-02-29"));   /* leap year */
	cr_assert_not(price_is_date("2025-02-29"));
	cr_assert_not(price_is_date("1989-12-31"));   /* before the range */
	cr_assert(price_is_date("2000-02-29"));   /* divisible by 400 */
	cr_assert_not(price_is_date("2100-02-29"));
	cr_assert_not(price_is_date("2025-04-31"));
	cr_assert_not(price_is_date("2025-6-01"));
	cr_assert_not(price_is_date("2025-06"));
	cr_assert_not(price_is_date("2025-06-01 "));
	cr_assert(price_is_date("2026-08-06"));
}

Test(price, per_chip_hour_and_verified)
{
	price_row r;
	memset(&r, 0, sizeof r);
	r.usd_per_hour = 55.04;
	r.unit = PRICE_PER_INSTANCE;
	r.accelerators = 8;
	strcpy(r.source, "skypilot catalog");
	cr_assert_float_eq(price_per_chip_hour(&r), 6.88, 1e-12);   /* 55.04 / 8 */
	cr_assert(price_verified(&r));
	strcpy(r.source, "UNVERIFIED: recalled");
	cr_assert_not(price_verified(&r));
	r.unit = PRICE_PER_CHIP;
	r.usd_per_hour = 2.7;
	r.accelerators = 1;
	cr_assert_float_eq(price_per_chip_hour(&r), 2.7, 1e-12);
}

/* Every shipped catalog loads, so none can rot. */
Test(price, bundled_catalogs_load)
{
	DIR *d = opendir("catalogs");
	struct dirent *de;
	int files = 0;
	cr_assert(d);
	while ((de = readdir(d))) {
		size_t n = strlen(de->d_name);
		char path[512];
		price_catalog c;
		err e = {0};
		if (n < 5 || strcmp(de->d_name + n - 4, ".csv") != 0)
			continue;
		snprintf(path, sizeof path, "catalogs/%s", de->d_name);
		cr_assert_eq(price_catalog_load(&c, path, &e), 0, "%s", e.msg);
		cr_assert_gt(c.n, 0);
		price_catalog_release(&c);
		files++;
	}
	closedir(d);
	cr_assert_eq(files, 3, "aws.csv, gcp.csv, azure.csv");
}
