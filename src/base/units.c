/* units: quantities with units into SI doubles (see units.h). */
#include "base/units.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct unit_def {
	const char *name;
	units_kind kind;
	double factor;      /* SI per unit */
} unit_def;

/* Case-sensitive on purpose: "Mb" (bits) and "MB" (bytes) differ. */
static const unit_def unit_table[] = {
	{"B", UNITS_BYTES, 1.0},
	{"KB", UNITS_BYTES, 1e3}, {"kB", UNITS_BYTES, 1e3},
	{"MB", UNITS_BYTES, 1e6}, {"GB", UNITS_BYTES, 1e9},
	{"TB", UNITS_BYTES, 1e12}, {"PB", UNITS_BYTES, 1e15},
	{"KiB", UNITS_BYTES, 1024.0}, {"MiB", UNITS_BYTES, 1048576.0},
	{"GiB", UNITS_BYTES, 1073741824.0}, {"TiB", UNITS_BYTES, 1099511627776.0},

	{"B/s", UNITS_BW, 1.0},
	{"KB/s", UNITS_BW, 1e3}, {"kB/s", UNITS_BW, 1e3}, {"MB/s", UNITS_BW, 1e6},
	{"GB/s", UNITS_BW, 1e9}, {"TB/s", UNITS_BW, 1e12},
	{"KiB/s", UNITS_BW, 1024.0}, {"MiB/s", UNITS_BW, 1048576.0},
	{"GiB/s", UNITS_BW, 1073741824.0}, {"TiB/s", UNITS_BW, 1099511627776.0},
	{"bps", UNITS_BW, 1.0 / 8}, {"Kbps", UNITS_BW, 1e3 / 8}, {"Mbps", UNITS_BW, 1e6 / 8},
	{"Gbps", UNITS_BW, 1e9 / 8}, {"Tbps", UNITS_BW, 1e12 / 8},
	{"Mb/s", UNITS_BW, 1e6 / 8}, {"Gb/s", UNITS_BW, 1e9 / 8}, {"Tb/s", UNITS_BW, 1e12 / 8},

	{"ns", UNITS_TIME, 1e-9}, {"us", UNITS_TIME, 1e-6}, {"ms", UNITS_TIME, 1e-3},
	{"s", UNITS_TIME, 1.0}, {"min", UNITS_TIME, 60.0}, {"h", UNITS_TIME, 3600.0},

	{"FLOP/s", UNITS_FLOPS, 1.0}, {"GFLOP/s", UNITS_FLOPS, 1e9},
	{"TFLOP/s", UNITS_FLOPS, 1e12}, {"PFLOP/s", UNITS_FLOPS, 1e15},
	{"GFLOPS", UNITS_FLOPS, 1e9}, {"TFLOPS", UNITS_FLOPS, 1e12}, {"PFLOPS", UNITS_FLOPS, 1e15},
	{"TOPS", UNITS_FLOPS, 1e12}, {"TOP/s", UNITS_FLOPS, 1e12}, {"POPS", UNITS_FLOPS, 1e15},
	{"W", UNITS_POWER, 1.0}, {"kW", UNITS_POWER, 1e3},
};

const char *units_kind_name(units_kind kind)
{
	switch (kind) {
	case UNITS_NONE: return "a plain number";
	case UNITS_BYTES: return "a size (e.g. 96 GiB, 80 GB)";
	case UNITS_BW: return "a bandwidth (e.g. 2.9 TB/s, 400 Gbps)";
	case UNITS_TIME: return "a time (e.g. 2 us, 200 ms)";
	case UNITS_FLOPS: return "a compute rate (e.g. 667 TFLOP/s)";
	case UNITS_POWER: return "a power (e.g. 700 W)";
	case UNITS_COUNT: return "a count (e.g. 300, 1.5M, 1T: k, M, B, T)";
	}
	return "?";
}

int units_parse(const char *text, units_kind kind, double *out, char *why, int why_len)
{
	char *end;
	double v;
	size_t n;

	while (isspace((unsigned char)*text))
		text++;
	if (*text == '\0') {
		snprintf(why, (size_t)why_len, "empty value, expected %s", units_kind_name(kind));
		return -1;
	}
	v = strtod(text, &end);
	for (const char *p = text; end != text && p < end; p++)
		if (!isdigit((unsigned char)*p) && !strchr(".eE+-", *p))
			end = (char *)text;    /* hex, inf or nan: not a number a file or --set writes */
	if (end == text) {
		snprintf(why, (size_t)why_len, "'%s' is not a number", text);
		return -1;
	}
	if (!isfinite(v)) {
		snprintf(why, (size_t)why_len, "'%s' is not a finite number", text);
		return -1;
	}
	while (isspace((unsigned char)*end))
		end++;
	n = strlen(end);
	while (n > 0 && isspace((unsigned char)end[n - 1]))
		n--;
	if (kind == UNITS_COUNT && n == 1 && strchr("kKMBT", *end)) {
		/* Counts: k/K thousand, M million, B billion, T trillion (tokens=1T, 1.5M). */
		static const double f[] = {1e3, 1e3, 1e6, 1e9, 1e12};
		*out = v * f[strchr("kKMBT", *end) - "kKMBT"];
		return 0;
	}
	if (n == 0) {
		if (kind == UNITS_NONE || kind == UNITS_COUNT) {
			*out = v;
			return 0;
		}
		snprintf(why, (size_t)why_len, "'%s' has no unit, expected %s", text, units_kind_name(kind));
		return -1;
	}
	for (size_t i = 0; i < sizeof unit_table / sizeof unit_table[0]; i++) {
		const unit_def *u = &unit_table[i];
		if (strlen(u->name) == n && strncmp(u->name, end, n) == 0) {
			if (u->kind != kind) {
				snprintf(why, (size_t)why_len, "unit '%.*s' does not fit, expected %s",
					 (int)n, end, units_kind_name(kind));
				return -1;
			}
			*out = v * u->factor;
			return 0;
		}
	}
	snprintf(why, (size_t)why_len, "unknown unit '%.*s', expected %s", (int)n, end,
		 units_kind_name(kind));
	return -1;
}

void units_fmt_bytes(char *buf, int len, double bytes, int bin)
{
	static const char *bn[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
	static const char *dn[] = {"B", "KB", "MB", "GB", "TB", "PB"};
	double base = bin ? 1024.0 : 1000.0;
	int i = 0;
	while (fabs(bytes) >= base && i < 5) {
		bytes /= base;
		i++;
	}
	snprintf(buf, (size_t)len, "%.3g %s", bytes, bin ? bn[i] : dn[i]);
}
