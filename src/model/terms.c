/* terms: the cost inputs of a workload (see terms.h). */
#include "model/terms.h"

#include <stddef.h>

const char *const cost_unit_names[] = {"run", "mtok", "example", NULL};
const char *const cost_unit_text[] = {"run", "M output tokens", "example", NULL};

const char *const cost_owned_keys[] = {"amortization_years", "electricity_usd_per_kwh",
				       "hosting_usd_per_kw_month", "pue", "network_storage_share",
				       "staff_usd_per_kw_month", "power_share", "price_age_days", NULL};
