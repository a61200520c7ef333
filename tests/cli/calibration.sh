# CLI cases (issue 17): calibration, run settings, out-of-sample error, intervals. Sourced by tests/cli/run.sh, which defines
# check, check_not, check_sh, $R (the binary), $B, $C and $tmp.
