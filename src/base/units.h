/* units: parse quantities written with units into SI doubles, and format them back.
 *
 * Files say "2.9 TB/s", "96 GiB", "2 us", "667 TFLOP/s", "3200 Gbps"; inside the tool every
 * quantity is SI: B, B/s, s, FLOP/s. GB is 1e9 B, GiB is 2^30 B (AWS writes GiB, NVIDIA GB).
 * Bits (Gbps, Gb/s) are converted to bytes (/8). Pure functions, no allocation. */
#ifndef ROOFCOST_UNITS_H
#define ROOFCOST_UNITS_H

typedef enum units_kind {
	UNITS_NONE,      /* a plain number: counts, fractions */
	UNITS_BYTES,     /* B */
	UNITS_BW,        /* B/s */
	UNITS_TIME,      /* s */
	UNITS_FLOPS,     /* FLOP/s (also OP/s) */
	UNITS_POWER,     /* W */
	UNITS_COUNT      /* a count: a plain number, or one with k, K (1e3), M (1e6), B (1e9), T (1e12) */
} units_kind;

/* Parses text (a number, optional spaces, a unit of `kind`) into *out in SI.
 * UNITS_NONE accepts a bare number only; UNITS_COUNT a bare number or one with a count suffix
 * ("300", "1.5M", "1T": tokens, batches, lengths). Returns 0, or -1 with a reason in why (64 bytes+). */
int units_parse(const char *text, units_kind kind, double *out, char *why, int why_len);

/* A human name of the kind for error messages: "bytes (e.g. 96 GiB)". */
const char *units_kind_name(units_kind kind);

/* Formats bytes as GiB/MiB etc. with the given unit family (binary if bin != 0). */
void units_fmt_bytes(char *buf, int len, double bytes, int bin);

#endif
