/* opt: strict parsing of command-line values - the whole string or nothing.
 *
 * strtol and atoi take "5x" as 5 and "1e3" as 1, sscanf takes "1/3x" as 1/3, strtod takes
 * "nan", "inf" and hex: every option value goes through these instead. No leading or trailing
 * spaces, no '+', no hex, no exponent for whole numbers. The caller words the message with
 * its option's name. Pure functions. */
#ifndef ROOFCOST_OPT_H
#define ROOFCOST_OPT_H

/* s is a whole number in [lo, hi] (digits, a '-' only when lo < 0). Returns 0 with *out set,
 * or -1. */
int opt_whole(const char *s, long long lo, long long hi, long long *out);

/* opt_whole into an int. */
int opt_int(const char *s, int lo, int hi, int *out);

/* s is a finite decimal number: [-]digits[.digits][e[+-]digits] (or .digits). Returns 0 with
 * *out set, or -1. */
int opt_number(const char *s, double *out);

/* s is "A<sep>B" with A and B whole numbers in [lo, hi]. Returns 0 or -1. */
int opt_int_pair(const char *s, char sep, int lo, int hi, int *a, int *b);

/* s is "A<sep>B" with A and B finite decimal numbers. Returns 0 or -1. */
int opt_number_pair(const char *s, char sep, double *a, double *b);

#endif
