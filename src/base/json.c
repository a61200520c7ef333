/* json: small cJSON helpers (see json.h). */
#include "base/json.h"

#include <cJSON.h>
#include <math.h>
#include <stdlib.h>

const char *json_str(const cJSON *o, const char *key)
{
	const cJSON *j = cJSON_GetObjectItemCaseSensitive(o, key);
	return cJSON_IsString(j) ? j->valuestring : "";
}

double json_num(const cJSON *o, const char *key)
{
	const cJSON *j = cJSON_GetObjectItemCaseSensitive(o, key);
	return cJSON_IsNumber(j) ? j->valuedouble : NAN;
}

cJSON *json_num_or_null(double v)
{
	return isfinite(v) ? cJSON_CreateNumber(v) : cJSON_CreateNull();
}

void json_print(const cJSON *j, FILE *fp)
{
	char *s = cJSON_Print(j);
	if (s)
		fprintf(fp, "%s\n", s);
	free(s);
}
