# CLI cases (issue 19): networks from config.json, MLA and the newer architectures, the newcomer's papercuts. Sourced by tests/cli/run.sh, which defines
# check, check_not, check_sh, $R (the binary), $B, $C and $tmp.
