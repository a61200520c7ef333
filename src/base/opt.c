/* opt: strict option values (see opt.h). */
#include "base/opt.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int digit(char c)
{
	return c >= '0' && c <= '9';
}

int opt_whole(const char *s, long long lo, long long hi, long long *out)
{
	const char *p = s;
	long long v = 0;
	int neg = 0;
	if (*p == '-' && lo < 0) {
		neg = 1;
		p++;
	}
	if (!digit(*p))
		return -1;
	for (; digit(*p); p++) {
		int d = *p - '0';
		if (v > (LLONG_MAX - d) / 10)
			return -1;
		v = v * 10 + d;
	}
	if (*p)
		return -1;
	if (neg)
		v = -v;
	if (v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

int opt_int(const char *s, int lo, int hi, int *out)
{
	long long v;
	if (opt_whole(s, lo, hi, &v) != 0)
		return -1;
	*out = (int)v;
	return 0;
}

int opt_number(const char *s, double *out)
{
	const char *p = s;
	int mant = 0;
	double v;
	if (*p == '-')
		p++;
	for (; digit(*p); p++)
		mant++;
	if (*p == '.')
		for (p++; digit(*p); p++)
			mant++;
	if (!mant)
		return -1;
	if (*p == 'e' || *p == 'E') {
		p++;
		if (*p == '+' || *p == '-')
			p++;
		if (!digit(*p))
			return -1;
		while (digit(*p))
			p++;
	}
	if (*p)
		return -1;
	v = strtod(s, NULL);
	if (!isfinite(v))
		return -1;
	*out = v;
	return 0;
}

/* Splits s at the first sep into two NUL-terminated strings in buf. */
static int split(const char *s, char sep, char *buf, size_t n, char **b)
{
	char *at;
	if (strlen(s) >= n)
		return -1;
	memcpy(buf, s, strlen(s) + 1);
	at = strchr(buf, sep);
	if (!at)
		return -1;
	*at = '\0';
	*b = at + 1;
	return 0;
}

int opt_int_pair(const char *s, char sep, int lo, int hi, int *a, int *b)
{
	char buf[64], *second;
	if (split(s, sep, buf, sizeof buf, &second) != 0)
		return -1;
	return opt_int(buf, lo, hi, a) == 0 && opt_int(second, lo, hi, b) == 0 ? 0 : -1;
}

int opt_number_pair(const char *s, char sep, double *a, double *b)
{
	char buf[128], *second;
	if (split(s, sep, buf, sizeof buf, &second) != 0)
		return -1;
	return opt_number(buf, a) == 0 && opt_number(second, b) == 0 ? 0 : -1;
}
