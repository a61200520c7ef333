/* terms: the cost inputs a workload declares in its [cost] section: the delivered unit, the
 * terms around the compute (utilization, headroom, retries, storage, egress, engineering) and
 * the failures and checkpoints of a training job. Plain types only; the arithmetic over them
 * is the engine's cost module. The types keep the cost_ prefix of the module that computes
 * with them, so that a workload (model) can hold them without depending on the engine. */
#ifndef ROOFCOST_TERMS_H
#define ROOFCOST_TERMS_H

typedef enum cost_unit { COST_RUN, COST_MTOK, COST_EXAMPLE, COST_UNIT_N } cost_unit;

/* "run", "mtok", "example", NULL-terminated. */
extern const char *const cost_unit_names[];

/* The same units as prose says them: "run", "M output tokens", "example". */
extern const char *const cost_unit_text[];

/* Seconds in the month that serving and monthly charges use: 8760 h / 12 = 730 h. */
#define COST_MONTH_S (730.0 * 3600.0)

/* What the workload's [cost] section declares around the compute. */
typedef struct cost_terms {
	double utilization;               /* (0, 1]: share of paid time that runs the workload */
	double idle_headroom;             /* [0, 1): share of capacity held idle for load peaks */
	double retries;                   /* >= 0: extra share of the work run again */
	double storage;                   /* B kept during the period */
	double storage_usd_per_tb_month;  /* USD per 1e12 B per month */
	double egress;                    /* B sent out during the period */
	double egress_usd_per_gb;         /* USD per 1e9 B */
	double engineering_hours;         /* people-hours during the period */
	double engineering_usd_per_hour;
} cost_terms;

/* What owning the hardware costs besides its purchase (--pricing owned), how much power it
 * draws, and when compared prices are too far apart in time. Each is a workload [cost] key
 * whose default, with its source, is models/cost.ini (models/README.md). */
typedef struct cost_owned {
	double amortization;              /* s the capex is spread over ([cost] amortization_years) */
	double electricity_usd_per_kwh;   /* USD per kWh at the meter (facility energy) */
	double hosting_usd_per_kw_month;  /* USD per kW of rated IT power per 730 h (colocation) */
	double pue;                       /* >= 1: facility energy / IT energy (cooling, power losses) */
	double network_storage_share;     /* >= 0: the cluster network and storage, a share added to the
					     system capex */
	double staff_usd_per_kw_month;    /* USD per kW of rated IT power per 730 h beyond hosting */
	double power_share;               /* (0, 1]: share of the rated power drawn while running */
	double price_age_days;            /* days apart at which compared prices draw a warning */
} cost_owned;

/* The keys of cost_owned in the workload's [cost] section, in field order, NULL-terminated. */
enum { COST_OWNED_N = 8 };
extern const char *const cost_owned_keys[];

/* Failures and checkpoints of a training job. */
typedef struct cost_failures {
	double chip_mtbf;         /* s between failures of one chip (with its share of host and
				     network); INFINITY = no failures */
	double checkpoint_bytes;  /* B written per checkpoint */
	double checkpoint_bw;     /* B/s aggregate write bandwidth */
	double restart;           /* s from a failure to training again (detect, replace, reload) */
} cost_failures;

#endif
