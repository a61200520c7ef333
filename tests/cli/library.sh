# CLI cases (issue 22): the library, its C API, the Python binding, shards on a scheduler. Sourced by tests/cli/run.sh, which defines
# check, check_not, check_sh, $R (the binary), $B, $C and $tmp.
