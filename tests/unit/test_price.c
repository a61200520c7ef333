/* price: dates, per-chip prices, the unverified mark, the bundled catalogs. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "model/price.h"

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

/* Writes a one-row catalog with the given price and source; returns its path in buf. */
static const char *one_row(char *buf, const char *usd, const char *source)
{
	FILE *f;
	int fd;
	strcpy(buf, "/tmp/roofcost-price-XXXXXX");
	fd = mkstemp(buf);
	cr_assert(fd >= 0);
	f = fdopen(fd, "w");
	fprintf(f, "provider,instance,region,pricing_model,usd_per_hour,unit,accelerators,as_of,source\n"
		   "aws,p5.48xlarge,us-east-1,on-demand,%s,instance,8,2025-06-01,%s\n", usd, source);
	fclose(f);
	return buf;
}

/* Issue 12: 1e308, 1e-300 and 24-digit prices were imported (and printed as +inf%). */
Test(price, prices_lie_in_a_sane_range)
{
	static const struct { const char *usd, *why; } bad[] = {
		{"1e308", "usd_per_hour: 1e308 is out of range [0.0001, 100000] USD per hour"},
		{"1e-300", "usd_per_hour: 1e-300 is out of range [0.0001, 100000] USD per hour"},
		{"100000.01", "usd_per_hour: 100000.01 is out of range [0.0001, 100000] USD per hour"},
		{"123456789012345678901234", "usd_per_hour: 123456789012345678901234 is out of range [0.0001, 100000] USD per hour"},
		{"1.00000000000000000000001", "usd_per_hour: '1.00000000000000000000001' has more than 12 significant digits"},
	};
	static const char *const good[] = {"0.0001", "100000", "98.32", "98.320000000000000", "21.957642", "1e2"};
	char path[64], want[256];
	price_catalog c;
	err e = {0};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		one_row(path, bad[i].usd, "src");
		cr_assert_neq(price_catalog_load(&c, path, &e), 0, "%s accepted", bad[i].usd);
		snprintf(want, sizeof want, "%s:2: %s", path, bad[i].why);
		cr_assert_str_eq(e.msg, want);
		unlink(path);
	}
	for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
		one_row(path, good[i], "src");
		cr_assert_eq(price_catalog_load(&c, path, &e), 0, "%s: %s", good[i], e.msg);
		price_catalog_release(&c);
		unlink(path);
	}
}

/* Issue 21: a price dated after today would be taken as the current one; a source that starts
 * like a spreadsheet formula is no citation. Both refused with the line. */
Test(price, no_future_price_and_no_formula_source)
{
	char path[64], want[256], line[256], today[PRICE_DATE_MAX], tomorrow[PRICE_DATE_MAX];
	price_catalog c;
	err e = {0};
	FILE *f;
	price_today(0, today);
	price_today(1, tomorrow);
	cr_assert_lt(strcmp(today, tomorrow), 0);
	one_row(path, "98.32", "=HYPERLINK(x)");
	cr_assert_neq(price_catalog_load(&c, path, &e), 0);
	snprintf(want, sizeof want, "%s:2: source: starts with '=', which a spreadsheet would run as a formula", path);
	cr_assert(strstr(e.msg, want), "%s", e.msg);
	unlink(path);
	one_row(path, "98.32", "@x");
	cr_assert_neq(price_catalog_load(&c, path, &e), 0);
	unlink(path);
	/* Tomorrow (a time zone ahead) is taken; the day after is not. */
	for (int ahead = 1; ahead <= 2; ahead++) {
		char d[PRICE_DATE_MAX];
		price_today(ahead, d);
		strcpy(path, "/tmp/roofcost-price-XXXXXX");
		cr_assert((f = fdopen(mkstemp(path), "w")));
		snprintf(line, sizeof line, "aws,p5.48xlarge,us-east-1,on-demand,1,instance,8,%s,src\n", d);
		fprintf(f, "provider,instance,region,pricing_model,usd_per_hour,unit,accelerators,as_of,source\n%s", line);
		fclose(f);
		if (ahead == 1) {
			cr_assert_eq(price_catalog_load(&c, path, &e), 0, "%s", e.msg);
			price_catalog_release(&c);
		} else {
			cr_assert_neq(price_catalog_load(&c, path, &e), 0);
			snprintf(want, sizeof want, "%s:2: as_of: %s is after today (%s, UTC)", path, d, today);
			cr_assert(strstr(e.msg, want), "%s", e.msg);
		}
		unlink(path);
	}
}

/* Issue 12: the mark was lost when the source was unquoted with the space trimmed, or had no
 * space; such a price was stored and shown as verified. Every spelling is stored as one. */
Test(price, the_unverified_mark_survives_its_spelling)
{
	static const char *const marked[] = {"UNVERIFIED: recalled", "UNVERIFIED:recalled", "unverified - recalled",
					     "\"UNVERIFIED:  recalled\"", "Unverified; recalled"};
	char path[64];
	price_catalog c;
	err e = {0};
	for (size_t i = 0; i < sizeof marked / sizeof marked[0]; i++) {
		one_row(path, "98.32", marked[i]);
		cr_assert_eq(price_catalog_load(&c, path, &e), 0, "%s", e.msg);
		cr_assert_str_eq(c.rows[0].source, "UNVERIFIED: recalled", "%s", marked[i]);
		cr_assert_not(price_verified(&c.rows[0]));
		price_catalog_release(&c);
		unlink(path);
	}
	one_row(path, "98.32", "UNVERIFIED:");
	cr_assert_neq(price_catalog_load(&c, path, &e), 0);
	cr_assert(strstr(e.msg, "source: 'UNVERIFIED: ' needs the reason"), "%s", e.msg);
	unlink(path);
	one_row(path, "98.32", "unverifiedly fine");   /* a longer word is not the mark */
	cr_assert_eq(price_catalog_load(&c, path, &e), 0, "%s", e.msg);
	cr_assert(price_verified(&c.rows[0]));
	price_catalog_release(&c);
	unlink(path);
}

/* Issue 12: a 37 MiB catalog peaked at 1.6 GB. A 24 MiB one of 300,000 rows is scanned in a
 * few MB (16 bytes a row to find repeats: 4.8 MB), here under 64 MB of peak RSS (ASan: 4x). */
Test(price, a_large_catalog_is_scanned_in_bounded_memory, .timeout = 60)
{
	char path[64];
	price_catalog info;
	err e = {0};
	struct rusage ru;
	FILE *f;
	int fd;
	long limit_kb = 64 * 1024;
#if defined(__SANITIZE_ADDRESS__)
	limit_kb *= 4;
#endif
	strcpy(path, "/tmp/roofcost-price-XXXXXX");
	fd = mkstemp(path);
	f = fdopen(fd, "w");
	fputs("provider,instance,region,pricing_model,usd_per_hour,unit,accelerators,as_of,source\n", f);
	for (int i = 0; i < 300000; i++)
		fprintf(f, "aws,i%d,us-east-1,spot,%d.5,instance,8,2020-%02d-%02d,a source text of some length and row %d\n",
			i / 300, 1 + i % 977, 1 + i % 300 / 28, 1 + i % 300 % 28, i);
	fclose(f);
	cr_assert_eq(price_scan(path, NULL, NULL, &info, &e), 0, "%s", e.msg);
	cr_assert_eq(info.n, 300000);
	cr_assert_eq(getrusage(RUSAGE_SELF, &ru), 0);
	cr_assert_lt(ru.ru_maxrss, limit_kb, "peak %ld KB", ru.ru_maxrss);
	unlink(path);
}

Test(price, dates_count_days)
{
	/* Days since 1970-01-01: 1990-01-01 is 7,305 (20 x 365 + the leap days of 72, 76, 80, 84,
	 * 88); 2000-03-01 is 11,017 (30 x 365 + 7 leap days = 10,957, then Jan 31 + Feb 29 = 60). 2024-12-01 to 2025-06-01 is 182 days (Dec 31, Jan 31, Feb 28,
	 * Mar 31, Apr 30, May 31). A month or a year means its first day. */
	long d, a, b;
	cr_assert_eq(price_date_days("1990-01-01", &d), 0);
	cr_assert_eq(d, 7305);
	cr_assert_eq(price_date_days("2000-03-01", &d), 0);
	cr_assert_eq(d, 11017);
	cr_assert_eq(price_date_days("2024-12-01", &a), 0);
	cr_assert_eq(price_date_days("2025-06-01", &b), 0);
	cr_assert_eq(b - a, 182);
	cr_assert_eq(price_date_days("2025-06", &d), 0);
	cr_assert_eq(d, b);
	cr_assert_eq(price_date_days("2025", &d), 0);
	cr_assert_eq(b - d, 151);
	cr_assert_eq(price_date_days("2025-02-29", &d), -1);
	cr_assert_eq(price_date_days("newest", &d), -1);
	cr_assert_eq(price_date_days("", &d), -1);
}
