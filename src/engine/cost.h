/* cost: cost per delivered unit, and training goodput under failures.
 *
 * Units (DESIGN §5): `run` (a finished training run of T tokens), `mtok` (a million output
 * tokens served at the latency limits), `example` (one served request). Cost = paid chip-hours
 * × USD per chip-hour + what the workload declares (storage, egress, engineering), over the
 * units delivered. Paid time is busy time ÷ (utilization × (1 − idle headroom)) × (1 + retries).
 * Training time is stretched by failures: system MTBF M = chip MTBF / chips, checkpoint write
 * δ = checkpoint bytes / aggregate bandwidth, Young/Daly interval τ = √(2·δ·M) (Young 1974;
 * Daly 2006, first order), lost fraction δ/τ + (τ/2 + R)/M for restart time R; run time =
 * ideal time / (1 − lost). Serving is costed over one month (730 h) so that monthly charges
 * (storage, engineering) fall on the units served in it.
 *
 * Pure: plain numbers in (the caller turns train/infer results and prices into them), a
 * result struct out; no I/O, no allocation, no globals. A missing price is NaN and makes the
 * money fields NaN while times and goodput are still computed. All SI and USD. */
#ifndef ROOFCOST_COST_H
#define ROOFCOST_COST_H

#include "model/terms.h"

enum { COST_REASON_MAX = 256 };

typedef struct cost_goodput {
	int finishes;             /* 0: lost >= 1, the run never finishes */
	double system_mtbf;       /* s, M = chip_mtbf / chips */
	double checkpoint_write;  /* s, δ */
	double interval;          /* s, τ = √(2·δ·M) */
	double lost;              /* share of time lost: δ/τ + (τ/2 + R)/M */
	double goodput;           /* 1 − lost (0 when it never finishes) */
} cost_goodput;

typedef struct cost_train_in {
	double chips;
	double usd_per_chip_hour;   /* NaN: no price */
	double tokens;              /* the run's token budget */
	double tokens_per_s;        /* failure-free throughput of the whole job */
	cost_failures failures;
	cost_terms terms;
} cost_train_in;

typedef struct cost_infer_in {
	cost_unit unit;             /* COST_MTOK or COST_EXAMPLE */
	double chips;
	double usd_per_chip_hour;   /* NaN: no price */
	double tokens_per_s;        /* output tokens/s of all replicas at the latency limits */
	double prefill_share;       /* [0, 1]: share of busy chip time in prefill */
	double input_per_output;    /* input tokens per output token */
	double output_per_example;  /* output tokens per example (request) */
	cost_terms terms;
} cost_infer_in;

typedef struct cost_result {
	int ok;                     /* 0: no unit is delivered (reason says why) */
	char reason[COST_REASON_MAX];
	cost_unit unit;
	double usd_per_hour;        /* chips × USD per chip-hour while running */
	double usd_per_unit;        /* total_usd / units */
	double period;              /* s charged: the run's wall time, or one month of serving */
	double units;               /* delivered in the period */
	double chip_hours;          /* paid */
	double compute_usd, storage_usd, egress_usd, engineering_usd, total_usd;
	/* training */
	cost_goodput goodput;
	double ideal_time;          /* s, tokens / tokens_per_s */
	double run_time;            /* s, ideal_time / goodput: one attempt, failures included */
	double interruptions;       /* failures expected during run_time */
	double checkpoints;         /* written during run_time */
	/* serving: the compute cost split by time share (the API convention) */
	double usd_per_mtok_input;  /* prefill share, per million input tokens */
	double usd_per_mtok_output; /* decode share, per million output tokens */
} cost_result;

/* The interruption test of a release record (baseline): what one failure at the worst moment
 * costs. Training, one node lost: detection and replacement (restart_time R), the checkpoint
 * reloaded at checkpoint_bw (reload = checkpoint bytes / bandwidth, on top of R), and the work
 * since the last durable checkpoint redone: at the worst moment, just before the next checkpoint
 * is written, a whole interval plus the write in progress, τ + δ (the whole run so far when no
 * failures are modelled and nothing is checkpointed). The job's chips all wait meanwhile. Over
 * the run: the expected interruptions (run time / M), each taken at the worst moment, an upper
 * bound. Serving, one replica lost: the others carry the same load (output tokens/s); they meet
 * the latency limits if their capacity within the limits covers it, and the replicas that must
 * stand by are those that make (replicas + k - 1) × capacity >= load. */
typedef struct cost_interrupt {
	/* training */
	double restart, reload, redo; /* s: detection and replacement, checkpoint reload, work redone */
	double added;                 /* s per interruption: restart + reload + redo */
	double usd;                   /* per interruption: added × chips × USD per chip-hour */
	double count;                 /* interruptions expected over the run */
	double run_added, run_usd;    /* s and USD over the run: count × added, count × usd */
	/* serving */
	int meets_slo;                /* the other replicas carry the load within the limits */
	double load;                  /* output tokens/s served now */
	double capacity_after;        /* output tokens/s the other replicas serve within the limits */
	double standby_replicas;      /* replicas to keep ready; NaN if no replica meets the limits */
	double standby_chips, standby_usd_per_hour;
	/* both */
	double loss_pct;              /* train: run_added / ideal time; serve: load share not served */
} cost_interrupt;

typedef struct cost_interrupt_serve_in {
	double replicas;              /* data-parallel replicas serving now */
	double chips_per_replica;
	double usd_per_chip_hour;     /* NaN: no price */
	double load;                  /* output tokens/s of all replicas now */
	double replica_capacity;      /* output tokens/s one replica serves at most within the
					 workload's latency limits; 0 = none */
} cost_interrupt_serve_in;

/* Owning the hardware, per chip-hour (--pricing owned): the capex with its network and
 * storage share spread evenly over the amortization period (straight-line, no residual value,
 * no cost of capital); the energy the chip and its host share draw, power_share of the rated
 * power, times PUE, at the electricity price; hosting and staff per kW of rated IT power per
 * 730 h month. NaN inputs give NaN figures (a missing capex or power figure). */
typedef struct cost_owned_rate {
	double capex_per_chip;        /* USD the chip and its host share cost */
	double rated_w;               /* W rated per chip, host share included */
	double avg_w;                 /* W drawn per chip while it runs: power_share x rated */
	double capex, energy, hosting, staff;  /* USD per chip-hour */
	double total;                 /* USD per chip-hour: their sum */
} cost_owned_rate;

void cost_owned_eval(double capex_per_chip, double rated_w_per_chip, const cost_owned *t, cost_owned_rate *out);

/* Power and energy of one result: chips drawing power_share of their rated power (host share
 * included) over the paid period r->period, facility energy with PUE, per delivered unit, and
 * the throughput per MW of provisioned facility power (rated x PUE), InferenceMAX's
 * tokens per provisioned megawatt. rated_w_per_chip NaN: known = 0, figures NaN. */
typedef struct cost_energy {
	int known;
	double power_w;               /* W: average IT power of the chips in use and their hosts */
	double provisioned_w;         /* W: rated IT power x PUE, the facility power they need */
	double energy_kwh;            /* kWh of facility energy over the period */
	double energy_kwh_per_unit;   /* kWh per delivered unit (run, Mtok, example); NaN: none */
	double tokens_per_s_per_mw;   /* tokens/s per MW provisioned */
} cost_energy;

void cost_energy_eval(double chips, double rated_w_per_chip, const cost_owned *t, const cost_result *r,
		      double tokens_per_s, cost_energy *out);

/* One node of the training job is lost at the worst moment; run is cost_train(in)'s result. */
void cost_interrupt_train(const cost_train_in *in, const cost_result *run, cost_interrupt *out);

/* One replica of a serving deployment lost. */
void cost_interrupt_serve(const cost_interrupt_serve_in *in, cost_interrupt *out);

/* Goodput of a job of `chips` chips under f. */
void cost_goodput_eval(const cost_failures *f, double chips, cost_goodput *g);

/* Cost of one training run (unit `run`). */
void cost_train(const cost_train_in *in, cost_result *r);

/* Cost per million output tokens or per example of a serving deployment. */
void cost_infer(const cost_infer_in *in, cost_result *r);

#endif
