# CLI cases (issue 18): the serving frontier, disaggregated serving, speculative decoding, serving reports. Sourced by tests/cli/run.sh, which defines
# check, check_not, check_sh, $R (the binary), $B, $C and $tmp.
