#!/bin/sh
# Benchmarks (make bench): speed targets live here, not in unit tests.
# Prints one figure per line. Run from the project root after building.
R=${ROOFCOST:-./roofcost}
# A temporary price store, created (with the bundled catalogs) by the first run below.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export ROOFCOST_DB=$tmp/bench.db
t0=$(date +%s%N)
n=50
i=0
while [ $i -lt $n ]; do
	$R eval -s trn2.48xlarge -w llama3-405b-train --format json >/dev/null || exit 1
	i=$((i + 1))
done
t1=$(date +%s%N)
echo "eval_ms: $(( (t1 - t0) / n / 1000000 ))"
t0=$(date +%s%N)
$R compare -w llama3-70b-serve -s trn2.48xlarge,p5.48xlarge,p5en.48xlarge,tpu-v6e >/dev/null || exit 1
t1=$(date +%s%N)
echo "compare_4_ms: $(( (t1 - t0) / 1000000 ))"
