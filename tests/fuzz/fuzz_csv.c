/* libFuzzer harness: the CSV reader and the two schemas on it (pricing catalogs, validation
 * cases) on any bytes. Seeds: catalogs/, tests/catalogs/ and tests/validation/. */
#include "fuzz_common.h"

#include "base/csvin.h"
#include "model/price.h"
#include "engine/validate.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_file(data, size, ".csv");
	price_catalog c;
	csvin_doc d;
	err e = {0};
	if (price_catalog_load(&c, path, &e) == 0) {
		for (int i = 0; i < c.n; i++)
			if (!(c.rows[i].usd_per_hour >= PRICE_USD_MIN && c.rows[i].usd_per_hour <= PRICE_USD_MAX))
				abort();   /* the range is a promise */
		price_catalog_release(&c);
	}
	if (csvin_load(&d, path, &e) == 0) {
		if (d.nrows > 0 &&
		    val_check_header(path, (const char *const *)d.rows[0].fields, d.rows[0].n, &e) == 0) {
			for (int r = 1; r < d.nrows; r++) {
				val_case vc;
				if (d.rows[r].n == d.rows[0].n)
					val_parse(path, d.rows[r].line, (const char *const *)d.rows[0].fields,
						  (const char *const *)d.rows[r].fields, d.rows[r].n, &vc, &e);
			}
		}
		csvin_release(&d);
	}
	return 0;
}
