# CLI cases (issue 23): precision fallback, percentiles, load-curve shape, the property suite. Sourced by tests/cli/run.sh, which defines
# check, check_not, check_sh, $R (the binary), $B, $C and $tmp.
