# CLI cases (issue 20): cost of ownership, energy, price freshness, contracts. Sourced by tests/cli/run.sh, which defines
# check, check_not, check_sh, $R (the binary), $B, $C and $tmp.

# --- owned hardware (--pricing owned)
# Every system of the comparison ends with a cost per unit or a reason naming the figure it lacks (a
# null figure says why, as an infeasible result does: DESIGN §6); the same text is its price_note.
check_sh owned-every-system "$R compare -w llama3-70b-serve -s all --pricing owned --format json >$tmp/own.json &&
	awk -F'\t' '/^\t\"systems\":/ { in_sys = 1 } NF == 5 && in_sys && \$4 == \"\\\"system\\\":\" { n++; sys = \$5 }
		NF == 5 && \$4 == \"\\\"usd_per_unit\\\":\" { if (\$5 != \"null,\") ok++; else pend = sys }
		NF == 5 && \$4 == \"\\\"reason\\\":\" && pend == sys && \$5 ~ /^\"no owned price: no (capex|rated power) for / { ok++; pend = \"\" }
		END { if (n < 30 || ok != n) { print n, ok; exit 1 } }' $tmp/own.json"
# A system with neither figure names both, each with the reason its file gives.
check owned-names-both 0 '"reason":	"no owned price: no capex for tpu-v6e (Google rents TPUs as Cloud TPU only; no purchase price was found); --capex tpu-v6e=USD gives your own quote; no rated power for tpu-v6e ([power] rated in its system file: Google publishes no TPU v6e' -- \
	$R eval -s tpu-v6e -w llama3-70b-serve --pricing owned --format json
check_not owned-priced-no-reason 0 '"reason":' -- $R eval -s dgx-h100 -w llama3-70b-serve --pricing owned --format json
# One owned price by hand (models/hw/systems/dgx-h100.ini, models/cost.ini): $270,000 for 8 chips rated
# 10.2 kW. Per chip-hour: capex 33,750 x 1.25 / (5 x 8,760 h) = 0.963185; energy 1.275 kW x 0.76 x 1.56 x
# $0.0895 = 0.135292; hosting 1.275 kW x $184.06 / 730 h = 0.321475; total 1.419951, x 8 chips = $11.3596/h.
check owned-by-hand 0 '"usd_per_hour":	11.3596109' -- $R eval -s dgx-h100 -w llama3-70b-serve --pricing owned --format json
check owned-unverified 0 "(unverified)" -- $R eval -s dgx-h100 -w llama3-70b-serve --pricing owned
check owned-parts 0 "per chip-hour owned: capex \$0.9632, energy \$0.1353, hosting \$0.3215" -- \
	$R eval -s dgx-h100 -w llama3-70b-serve --pricing owned
# A rented system priced as bought: p5 is the same HGX H100 server.
check owned-rented 0 '"usd_per_hour":	11.3596109' -- $R eval -s p5.48xlarge -w llama3-70b-serve --plan tp=8 --pricing owned --format json
# --capex takes the user's quote: $200,000 for 8 chips = 25,000 x 1.25 / 43,800 = $0.713470 of capex per chip-hour.
check owned-capex 0 '"capex_usd_per_chip_hour":	0.71347' -- \
	$R eval -s dgx-h100 -w llama3-70b-serve --pricing owned --capex dgx-h100=200000 --format json
check owned-capex-chips 0 '"capex_usd_per_chip_hour":	0.71347' -- \
	$R eval -s gb200-nvl72 -w llama3-70b-serve --pricing owned --capex gb200-nvl72=1800000/72 --format json
# hgx-b300 has a rated power and no capex estimate: a quote prices it; a TPU has neither, a quote still
# lacks the power.
check owned-capex-quote 0 "per chip-hour owned" -- $R eval -s hgx-b300 -w llama3-70b-serve --pricing owned --capex hgx-b300=450000
check owned-capex-tpu 0 "no owned price: no rated power for tpu-v6e" -- $R eval -s tpu-v6e -w llama3-70b-serve --pricing owned --capex tpu-v6e=50000
check owned-no-capex 0 "no owned price: no capex for tpu-v6e (Google rents TPUs" -- $R eval -s tpu-v6e -w llama3-70b-serve --pricing owned
check owned-capex-bad 2 "--capex: 'dgx-h100=abc' is not SYSTEM=USD" -- $R eval -s dgx-h100 -w llama3-70b-serve --capex dgx-h100=abc
check owned-capex-unknown 2 "--capex: unknown system 'dgx-h10'; did you mean 'dgx-h100'" -- \
	$R eval -s dgx-h100 -w llama3-70b-serve --capex dgx-h10=1
check owned-set 0 '"amortization_years":	3' -- $R eval -s dgx-h100 -w llama3-70b-serve --pricing owned --set amortization_years=3 --format json
check owned-set-source 0 '"amortization_years":	"--set"' -- $R eval -s dgx-h100 -w llama3-70b-serve --pricing owned --set amortization_years=3 --format json
check owned-set-range 2 "amortization_years" -- $R eval -s dgx-h100 -w llama3-70b-serve --set amortization_years=0
check owned-not-catalogued 1 "pricing_model: 'owned' is not catalogued" -- $R import tests/catalogs/bad/owned-model.csv
check owned-training 0 "per chip-hour owned" -- $R eval -s dgx-h100 -w llama3-8b-train --pricing owned

# --- energy and power in every result
# dgx-h100 at tp=8: 8 x 1,275 W x 0.76 = 7,752 W; provisioned 8 x 1,275 x 1.56 = 15,912 W.
check power-eval 0 '"power_w":	7752' -- $R eval -s dgx-h100 -w llama3-70b-serve --format json
check power-eval-energy 0 '"energy_kwh_per_unit":	' -- $R eval -s dgx-h100 -w llama3-70b-serve --format json
check power-eval-mw 0 '"tokens_per_s_per_mw":	' -- $R eval -s dgx-h100 -w llama3-70b-serve --format json
check power-text 0 "tokens/s per provisioned MW" -- $R eval -s dgx-h100 -w llama3-70b-serve
check power-unknown 0 "power            unknown: no rated power for tpu-v6e ([power] rated in its system file: Google publishes no TPU v6e chip" -- $R eval -s tpu-v6e -w llama3-70b-serve
check power-unknown-null 0 '"power_w":	null' -- $R eval -s tpu-v6e -w llama3-70b-serve --format json
check power-unknown-note 0 '"note":	"no rated power for tpu-v6e ([power] rated in its system file: Google' -- $R eval -s tpu-v6e -w llama3-70b-serve --format json
check power-no-power-and-power 1 "$B/sys-no-power-and-power.ini:6: no_power: the file has a [power] section" -- $R eval -s $B/sys-no-power-and-power.ini -w llama3-8b-serve
# Trainium2 from one analyst's chip figure (UNVERIFIED, models/hw/systems/trn2.48xlarge.ini): 16 x 500 W + 4.6 kW
# = 12.6 kW per 16 chips, 787.5 W per chip; at tp=8, 8 x 787.5 x 0.76 = 4,788 W.
check power-trn2 0 '"power_w":	4788' -- $R eval -s trn2.48xlarge -w llama3-70b-serve --plan tp=8 --format json
# TPU7x from Google's Hot Chips 2025 pod figure: 10 MW over 9,216 chips, 1,085.07 W per chip.
check power-tpu7x 0 '"rated_w_per_chip":	1085.069444' -- $R eval -s tpu7x -w llama3-70b-serve --format json
check power-train 0 '"energy_kwh_per_unit":	' -- $R eval -s dgx-h100 -w llama3-8b-train --format json
check power-train-text 0 "MWh per run at PUE 1.56" -- $R eval -s dgx-h100 -w llama3-8b-train
check power-compare 0 '"tokens_per_s_per_mw":	' -- $R compare -w llama3-70b-serve -s dgx-h100,hgx-b200 --format json

# --- price freshness
# At 2025-06-30 trn2.48xlarge's newest price is the 2024-12-01 snapshot and p5's the 2025-06-01 one (after the
# June-2025 AWS cut): 182 days apart, over the 90-day default.
check fresh-warn 0 "warning: prices 182 days apart: trn2.48xlarge on-demand from 2024-12-01 (the oldest), p5.48xlarge on-demand from 2025-06-01 (the newest)" -- \
	$R compare -w llama3-70b-serve -s trn2.48xlarge,p5.48xlarge --as-of 2025-06-30
check fresh-json 0 '"price_age_spread_days":	182' -- $R compare -w llama3-70b-serve -s trn2.48xlarge,p5.48xlarge --as-of 2025-06-30 --format json
check fresh-json-oldest 0 '"as_of":	"2024-12-01"' -- $R compare -w llama3-70b-serve -s trn2.48xlarge,p5.48xlarge --as-of 2025-06-30 --format json
check fresh-stale 0 '"stale":	true' -- $R compare -w llama3-70b-serve -s trn2.48xlarge,p5.48xlarge --as-of 2025-06-30 --format json
# A threshold above the spread: no warning; the spread is still reported.
check_not fresh-threshold 0 "warning: prices" -- $R compare -w llama3-70b-serve -s trn2.48xlarge,p5.48xlarge --as-of 2025-06-30 --set price_age_days=200
check fresh-same-day 0 '"price_age_spread_days":	0' -- $R compare -w llama3-70b-serve -s p5.48xlarge,p5en.48xlarge --as-of 2025-06-30 --format json
check_not fresh-same-day-text 0 "warning: prices" -- $R compare -w llama3-70b-serve -s p5.48xlarge,p5en.48xlarge --as-of 2025-06-30
check fresh-none 0 '"price_age_spread_days":	null' -- $R compare -w llama3-70b-serve -s dgx-h100,trn3-ultraserver --format json

# --- contracts
# On demand tpu-v6e ($2.70 per chip-hour, 16 chips) is cheaper per Mtok than p5en ($7.912); an AWS EDP of 30 %
# takes p5en to $5.538 and first place; 30 % off everything keeps the order.
check_sh discount-provider-ranks "$R compare -w llama3-70b-serve -s p5en.48xlarge,tpu-v6e | awk '\$1 == 1 { exit \$2 != \"tpu-v6e\" }' &&
	$R compare -w llama3-70b-serve -s p5en.48xlarge,tpu-v6e --discount aws=30 | awk '\$1 == 1 { exit \$2 != \"p5en.48xlarge\" }' &&
	$R compare -w llama3-70b-serve -s p5en.48xlarge,tpu-v6e --discount 30 | awk '\$1 == 1 { exit \$2 != \"tpu-v6e\" }'"
check discount-provider-json 0 '"discount_from":	"aws"' -- $R compare -w llama3-70b-serve -s p5en.48xlarge,tpu-v6e --discount aws=30 --format json
check discount-system 0 '"discount_pct":	35' -- $R eval -s trn2.48xlarge -w llama3-70b-serve --discount aws=30,trn2.48xlarge=35 --format json
check discount-unused 0 "note: --discount azure=10% applies to none of the systems compared" -- \
	$R compare -w llama3-70b-serve -s p5en.48xlarge,tpu-v6e --discount azure=10
check discount-twice 2 "--discount: aws is given twice" -- $R eval -s p5.48xlarge -w llama3-70b-serve --discount aws=10,aws=20
check discount-bad-key 2 "--discount: 'a b' is not a provider" -- $R eval -s p5.48xlarge -w llama3-70b-serve --discount 'a b=10'
# --pricing all: every pricing model with a price, the cheapest first: tpu-v6e on-demand, spot and two
# commitments (not sold: no owned price), p5en on-demand, spot and owned; 7 rows.
check_sh pricing-all "$R compare -w llama3-70b-serve -s p5en.48xlarge,tpu-v6e --pricing all >$tmp/all.txt &&
	grep -q 'tpu-v6e committed-3y' $tmp/all.txt && grep -q 'p5en.48xlarge owned' $tmp/all.txt &&
	grep -q 'p5en.48xlarge on-demand' $tmp/all.txt && [ \$(grep -cE '^ +[0-9]+  ' $tmp/all.txt) -eq 7 ]"
check pricing-all-json 0 '"pricing_model":	"committed-1y"' -- $R compare -w llama3-70b-serve -s tpu-v6e --pricing all --format json
check pricing-all-eval 2 "--pricing all: only compare" -- $R eval -s p5.48xlarge -w llama3-70b-serve --pricing all
# An empty table says what the store has and what to do.
check pricing-empty 0 "note: no system compared has a reserved-1y price; the store has for them: on-demand, capacity-block, committed-1y, committed-3y, spot; --pricing all" -- \
	$R compare -w llama3-70b-serve -s trn2.48xlarge,p5.48xlarge,p5en.48xlarge,tpu-v6e --pricing reserved-1y
check pricing-empty-json 0 '"price_note":	"no system compared has a reserved-1y price' -- \
	$R compare -w llama3-70b-serve -s trn2.48xlarge,p5.48xlarge,p5en.48xlarge,tpu-v6e --pricing reserved-1y --format json
# The re-check of verified: the Capacity Blocks page was read at a mirror.
check verified-mirror 0 "UNVERIFIED: a third-party mirror, not the AWS page" -- $R list prices --provider aws --all --wide
check trn2-newer 0 '"as_of":	"2026-05-01"' -- $R eval -s trn2.48xlarge -w llama3-70b-serve --set region=ap-southeast-4 --format json

# --- the report: tokens per MW beside the cost plot, each price's age
check_sh report-power "rm -rf $tmp/rp && $R report -w llama3-70b-serve -s trn2.48xlarge,p5.48xlarge,hgx-b200,tpu-v6e -o $tmp/rp >/dev/null &&
	test -s $tmp/rp/plots/serving_power.gp && grep -q 'tokens/s per MW' $tmp/rp/plots/serving_power.gp &&
	grep -q '## Tokens per megawatt against speed per user' $tmp/rp/report.md &&
	grep -q 'No curve: no rated power for tpu-v6e (\\[power\\] rated in its system file: Google publishes' $tmp/rp/report.md &&
	head -1 $tmp/rp/data/serving_load.csv | grep -q tokens_per_s_per_mw"
check_sh report-ages "grep -q 'Price ages: days from each price' $tmp/rp/report.md && grep -q 'Warning: prices 182 days apart' $tmp/rp/report.md &&
	grep -q '^trn2.48xlarge,on-demand,2024-12-01,182,yes' $tmp/rp/data/price_ages.csv"
check_sh report-owned-not-catalogued "! grep -q ',owned,' $tmp/rp/inputs/catalogs/prices.csv && test -s $tmp/rp/inputs/models/cost.ini"
# --- baseline record: a price older than price_age_days draws a warning (the record keeps it as it is)
check baseline-price-age 0 "warning: the price frozen is" -- $R baseline record fresh-trn2 -w llama3-70b-serve -s trn2.48xlarge
check baseline-price-age-json 0 '"price_age_days":	' -- $R baseline record fresh-trn2-json -w llama3-70b-serve -s trn2.48xlarge --format json
# --- sweep: power and energy per layout
check sweep-power 0 '"tokens_per_s_per_mw":	' -- $R sweep -w llama3-8b-train -s dgx-h100 --chips 64 --tp 1,2 --pp 1 --top 1 --format json
check sweep-power-offer 0 '"provisioned_w_per_chip":	1989' -- $R sweep -w llama3-8b-train -s dgx-h100 --chips 64 --tp 1,2 --pp 1 --top 1 --format json
