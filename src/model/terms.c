/* terms: the cost inputs of a workload (see terms.h). */
#include "model/terms.h"

#include <stddef.h>

const char *const cost_unit_names[] = {"run", "mtok", "example", NULL};
