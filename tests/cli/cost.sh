# CLI cases (issue 20): cost of ownership, energy, price freshness, contracts. Sourced by tests/cli/run.sh, which defines
# check, check_not, check_sh, $R (the binary), $B, $C and $tmp.
