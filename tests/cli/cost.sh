# CLI cases (issue 20): cost of ownership, energy, price freshness, contracts. Sourced by tests/cli/run.sh, which defines
# check, check_not, check_sh, $R (the binary), $B, $C and $tmp.

# --- owned hardware (--pricing owned)
# Every system of the comparison ends with a cost per unit or a note naming the figure it lacks.
check_sh owned-every-system "$R compare -w llama3-70b-serve -s all --pricing owned --format json >$tmp/own.json &&
	awk -F'\t' 'NF == 5 && \$4 == \"\\\"system\\\":\" { n++; sys = \$5 }
		NF == 5 && \$4 == \"\\\"usd_per_unit\\\":\" { if (\$5 != \"null,\") ok++; else pend = sys }
		NF == 5 && \$4 == \"\\\"price_note\\\":\" && pend == sys && \$5 ~ /^\"no owned price: no (capex|power figure)/ { ok++; pend = \"\" }
		END { if (n < 30 || ok != n) { print n, ok; exit 1 } }' $tmp/own.json"
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
check owned-capex-tpu 0 '"usd_per_unit":	' -- $R eval -s tpu-v6e -w llama3-70b-serve --pricing owned --capex tpu-v6e=50000 --format json
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
check power-unknown 0 "power            unknown: the system file gives no rated power" -- $R eval -s trn2.48xlarge -w llama3-70b-serve
check power-unknown-null 0 '"power_w":	null' -- $R eval -s trn2.48xlarge -w llama3-70b-serve --format json
check power-train 0 '"energy_kwh_per_unit":	' -- $R eval -s dgx-h100 -w llama3-8b-train --format json
check power-compare 0 '"tokens_per_s_per_mw":	' -- $R compare -w llama3-70b-serve -s dgx-h100,hgx-b200 --format json
