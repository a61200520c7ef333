#!/bin/sh
# Benchmarks (make bench): the speed and memory targets live here, not in unit tests.
# Prints one figure per line. Run from the project root after `make roofcost build/bench`.
R=${ROOFCOST:-./roofcost}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export ROOFCOST_DB="$tmp/bench.db"
ms() { date +%s%N; }

# Training-layout evaluations per second on one core.
./build/bench || exit 1

# A sweep over more than 10^7 layouts (every system x chips x tp x pp x vpp x cp x sp x mb x ZeRO
# x recompute) on all cores; seconds and peak memory as the command reports them.
$R list prices >/dev/null || exit 1   # the store exists before timing
$R sweep -w llama3-405b-train -s all --chips 64-131072 --tp 1-32 --pp 1-64 --vpp 1-4:1 --cp 1,2,4 \
	--mb 1,2,4,8 --top 10 --format json > "$tmp/sweep.json" || exit 1
layouts=$(sed -n 's/.*"layouts":[[:space:]]*\([0-9]*\).*/\1/p' "$tmp/sweep.json" | head -1)
secs=$(sed -n 's/.*"seconds":[[:space:]]*\([0-9.e+-]*\).*/\1/p' "$tmp/sweep.json" | head -1)
rss=$(sed -n 's/.*"peak_rss_mb":[[:space:]]*\([0-9.e+-]*\).*/\1/p' "$tmp/sweep.json" | head -1)
echo "sweep_layouts: $layouts"
echo "sweep_1e7_s: $secs"
echo "sweep_peak_rss_mb: $rss"

# compare over every known system, end to end (process start, loading, store, search, output):
# the median of 5 runs.
for i in 1 2 3 4 5; do
	t0=$(ms)
	$R compare -w llama3-70b-serve -s all >/dev/null || exit 1
	t1=$(ms)
	echo $(( (t1 - t0) / 1000 ))
done | sort -n | sed -n 3p | awk '{printf "compare_ms: %.1f\n", $1 / 1000}'
# A serving compare over every system at a closed loop past the KV cache (the median of 5).
for i in 1 2 3 4 5; do
	t0=$(ms)
	$R compare -w llama3-70b-fp8-tp2 -s all --set concurrency=200 >/dev/null || exit 1
	t1=$(ms)
	echo $(( (t1 - t0) / 1000 ))
done | sort -n | sed -n 3p | awk '{printf "compare_serve_ms: %.1f\n", $1 / 1000}'
t0=$(ms)
$R compare -w llama3-405b-train -s all >/dev/null || exit 1
t1=$(ms)
echo "compare_train_ms: $(( (t1 - t0) / 1000000 ))"

# The serving report of issue 10's done-when, end to end (plots drawn): the median of 3 runs.
for i in 1 2 3; do
	rm -rf "$tmp/report"
	t0=$(ms)
	$R report -w llama3-70b-serve -s trn2.48xlarge,p5.48xlarge,p5en.48xlarge,tpu-v6e -o "$tmp/report" >/dev/null || exit 1
	t1=$(ms)
	echo $(( (t1 - t0) / 1000 ))
done | sort -n | sed -n 2p | awk '{printf "report_s: %.2f\n", $1 / 1e6}'

# A 6-system serving report (issue 18: each system's frontier over every layout and load, drawn),
# end to end: the median of 3 runs (target <= 3 s). compare_ms above is the frontier search over
# every system (target <= 300 ms; the engine issue's <= 100 ms).
for i in 1 2 3; do
	rm -rf "$tmp/report6"
	t0=$(ms)
	$R report -w llama3-70b-serve -s p5.48xlarge,p5en.48xlarge,tpu-v6e,trn2.48xlarge,gb200-nvl72,mi300x-8 \
		-o "$tmp/report6" >/dev/null || exit 1
	t1=$(ms)
	echo $(( (t1 - t0) / 1000 ))
done | sort -n | sed -n 2p | awk '{printf "report6_s: %.2f\n", $1 / 1e6}'
