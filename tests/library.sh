#!/bin/sh
# The library (make test): its C face and the Python binding give the tool's answers, a sweep's
# shards run through GNU parallel merge into the unsharded one, and make install into a fresh
# prefix gives a binding that works with nothing else set. Run from the project root after
# `make roofcost build/libroofcost.so build/face_test`. Prints "library: N passed, N failed".
R=${ROOFCOST:-./roofcost}
pass=0
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export ROOFCOST_DB=$tmp/lib.db ROOFCOST_HOME=$PWD

ok() { pass=$((pass + 1)); }
bad() { echo "FAIL $1"; [ -s "$tmp/why" ] && sed 's/^/    /' "$tmp/why" | head -8; fail=$((fail + 1)); }
# same NAME A B: files A and B are the same bytes.
same() { if cmp -s "$2" "$3"; then ok; else diff "$2" "$3" >"$tmp/why" 2>&1; bad "$1"; fi; }
# untimed FILE: a sweep's JSON without the lines its run's timing makes differ.
untimed() { grep -v -e '"seconds":' -e '"peak_rss_mb":' -e '"threads":' "$1"; }

$R list prices >/dev/null   # the store exists before anyone times or compares

# --- the C face (tests/face/face_test.c, linked against build/libroofcost.so)
F=./build/face_test
if ./build/face_test errors >"$tmp/why" 2>&1; then ok; else bad face-errors; fi
for sw in "p5.48xlarge llama3-70b-serve" "trn2.48xlarge llama3-8b-train" "tpu-v6e mixtral-8x7b-train" \
	"gb200-nvl72 deepseek-v3-serve"; do
	set -- $sw
	$F eval "$1" "$2" >"$tmp/a" 2>"$tmp/why"
	$R eval -s "$1" -w "$2" --format json >"$tmp/b" 2>&1
	same "face-eval-$1-$2" "$tmp/a" "$tmp/b"
done
$F eval p5.48xlarge llama3-70b-serve concurrency=32 scenario=single >"$tmp/a" 2>"$tmp/why"
$R eval -s p5.48xlarge -w llama3-70b-serve --set concurrency=32 --set scenario=single --format json >"$tmp/b" 2>&1
same face-eval-sets "$tmp/a" "$tmp/b"
$F compare llama3-70b-serve trn2.48xlarge,p5.48xlarge,tpu-v6e >"$tmp/a" 2>"$tmp/why"
$R compare -w llama3-70b-serve -s trn2.48xlarge,p5.48xlarge,tpu-v6e --format json >"$tmp/b" 2>&1
same face-compare-serve "$tmp/a" "$tmp/b"
$F compare llama3-8b-train all >"$tmp/a" 2>"$tmp/why"
$R compare -w llama3-8b-train -s all --format json >"$tmp/b" 2>&1
same face-compare-train-all "$tmp/a" "$tmp/b"
for what in systems chips networks workloads frameworks prices; do
	$F list $what >"$tmp/a" 2>"$tmp/why"
	$R list $what --format json >"$tmp/b" 2>&1
	same "face-list-$what" "$tmp/a" "$tmp/b"
done
$F sweep llama3-8b-train p5.48xlarge,tpu-v6e 8-64 4 >"$tmp/a" 2>"$tmp/points"
$R sweep -w llama3-8b-train -s p5.48xlarge,tpu-v6e --chips 8-64 --top 4 --format json >"$tmp/b" 2>/dev/null
untimed "$tmp/a" >"$tmp/a2"
untimed "$tmp/b" >"$tmp/b2"
same face-sweep "$tmp/a2" "$tmp/b2"
n=$(grep -c '^point ' "$tmp/points")
k=$(python3 -c "import json,sys; d=json.load(open('$tmp/a')); print(len(d['top']) + len(d['pareto']))")
if [ "$n" -gt 0 ] && [ "$n" = "$k" ]; then ok; else echo "points $n, result $k" >"$tmp/why"; bad face-sweep-callback; fi
$F figures trn2.48xlarge llama3-8b-train >"$tmp/a" 2>"$tmp/why"
mfu=$($R eval -s trn2.48xlarge -w llama3-8b-train --format json | python3 -c "import json,sys; print(repr(json.load(sys.stdin)['mfu']))")
if python3 -c "import sys; f = dict(l.split(' ', 1) for l in open('$tmp/a').read().splitlines()); sys.exit(float(f['mfu']) != $mfu)"; then
	ok
else
	bad face-figures
fi

# validate and a release record's check: the tool's JSON, and a check that falls short is exit 3
# with its JSON all the same
$F validate tests/validation/public.csv >"$tmp/a" 2>"$tmp/why"
$R validate tests/validation/public.csv --format json >"$tmp/b" 2>&1
same face-validate "$tmp/a" "$tmp/b"
$F validate tests/validation/disagg.csv >"$tmp/a" 2>"$tmp/why"
$R validate tests/validation/disagg.csv --format json >"$tmp/b" 2>&1
same face-validate-disagg "$tmp/a" "$tmp/b"
$R baseline record lib-r1 -s trn2.48xlarge -w llama3-8b-train >/dev/null 2>&1
$R baseline record lib-r2 -s p5.48xlarge -w llama3-70b-serve >/dev/null 2>&1
$F check lib-r1 >"$tmp/a" 2>"$tmp/why"
$R baseline check lib-r1 --format json >"$tmp/b" 2>&1
same face-check "$tmp/a" "$tmp/b"
$F check all frozen >"$tmp/a" 2>"$tmp/why"
$R baseline check --all --frozen --format json >"$tmp/b" 2>&1
same face-check-all-frozen "$tmp/a" "$tmp/b"
# p5's price before 2025-06-01 is the capacity block's: the serving record's cost figures regress.
$F check lib-r2 2025-01-01 >"$tmp/a" 2>"$tmp/why"; frc=$?
$R baseline check lib-r2 --as-of 2025-01-01 --format json >"$tmp/b" 2>/dev/null; crc=$?
if [ "$frc" = 3 ] && [ "$crc" = 3 ] && grep -q '"fell_short":	1' "$tmp/a"; then same face-check-fell-short "$tmp/a" "$tmp/b"; else
	echo "face exit $frc, tool exit $crc" >"$tmp/why"; bad face-check-fell-short; fi

# --- the Python binding, Debian's python3 and the standard library alone
if PYTHONPATH=src/python ROOFCOST_LIB=build/libroofcost.so ROOFCOST_BIN=$R python3 -m unittest -q \
	tests/python/test_roofcost.py >"$tmp/why" 2>&1; then
	ok
else
	bad python-unittest
fi

# --- shards through GNU parallel (as array jobs of a batch scheduler would run them), merged
if command -v parallel >/dev/null 2>&1; then
	SW="sweep -w llama3-405b-train -s p5.48xlarge,trn2.48xlarge,tpu-v6e --chips 1024-8192 --tp 1-16 --pp 1-16 --top 5 --format json"
	parallel --will-cite -j 2 "$R $SW --threads 1 --shard {}/6 > $tmp/shard.{}.json 2>/dev/null" ::: 0 1 2 3 4 5
	$R sweep --merge "$tmp"/shard.[0-5].json --top 5 --format json >"$tmp/merged.json" 2>"$tmp/why"
	$R $SW >"$tmp/whole.json" 2>/dev/null
	untimed "$tmp/merged.json" >"$tmp/a"
	untimed "$tmp/whole.json" >"$tmp/b"
	same parallel-shards-merged-equal-whole "$tmp/a" "$tmp/b"
	# The same with Slurm's variables, as an array job's tasks see them (--shard auto).
	parallel --will-cite -j 2 "env -u JOB_COMPLETION_INDEX SLURM_ARRAY_TASK_ID={} SLURM_ARRAY_TASK_COUNT=4 \
		$R $SW --threads 1 --shard auto > $tmp/slurm.{}.json 2>/dev/null" ::: 0 1 2 3
	$R sweep --merge "$tmp"/slurm.[0-3].json --top 5 --format json >"$tmp/merged.json" 2>"$tmp/why"
	untimed "$tmp/merged.json" >"$tmp/a"
	same parallel-slurm-auto-merged-equal-whole "$tmp/a" "$tmp/b"
	if ! $R sweep --merge "$tmp"/slurm.[0-2].json --format json >"$tmp/why" 2>&1 &&
		grep -q "shard 3/4 is missing" "$tmp/why"; then ok; else bad parallel-merge-incomplete; fi
else
	echo "library: GNU parallel is not installed (apt-get install parallel): the shard run is skipped"
fi

# --- make install into a fresh prefix: the binding finds its library and data with nothing set
p=$tmp/prefix
if make --no-print-directory install PREFIX="$p" >"$tmp/why" 2>&1; then
	site=$(python3 -c 'import sys; print("python%d.%d" % sys.version_info[:2])')
	(cd / && env -u ROOFCOST_HOME -u ROOFCOST_LIB ROOFCOST_DB="$tmp/installed.db" PYTHONPATH="$p/lib/$site/dist-packages" \
		python3 -c "import roofcost; print(roofcost.eval(system='trn2.48xlarge', workload='llama3-8b-train')['mfu'])") \
		>"$tmp/a" 2>"$tmp/why"
	$R eval -s trn2.48xlarge -w llama3-8b-train --format json | python3 -c "import json,sys; print(json.load(sys.stdin)['mfu'])" >"$tmp/b"
	same install-prefix-python "$tmp/a" "$tmp/b"
	for f in bin/roofcost lib/libroofcost.a lib/libroofcost.so include/roofcost.h share/roofcost/models/hw; do
		[ -e "$p/$f" ] || { echo "missing $p/$f" >"$tmp/why"; bad "install-$f"; continue; }
		ok
	done
	# A C program built against the installed header and library.
	if cc -I"$p/include" -o "$tmp/hello" -x c - -L"$p/lib" -lroofcost -Wl,-rpath,"$p/lib" 2>"$tmp/why" <<'EOF'
#include <stdio.h>
#include "roofcost.h"
int main(void)
{
	char err[256], *json = NULL;
	roofcost_opts o;
	roofcost *h = roofcost_open(NULL, NULL, err, sizeof err);
	if (!h)
		return fprintf(stderr, "%s\n", err), 1;
	roofcost_opts_init(&o);
	o.system = "trn2.48xlarge";
	o.workload = "llama3-8b-train";
	if (roofcost_eval_json(h, &o, &json) != 0)
		return fprintf(stderr, "%s\n", roofcost_errmsg(h)), 1;
	puts(json);
	roofcost_free(json);
	roofcost_close(h);
	return 0;
}
EOF
	then
		(cd / && env -u ROOFCOST_LIB ROOFCOST_HOME="$p/share/roofcost" ROOFCOST_DB="$tmp/installed.db" "$tmp/hello") \
			>"$tmp/a" 2>"$tmp/why"
		$R eval -s trn2.48xlarge -w llama3-8b-train --format json >"$tmp/b" 2>&1
		same install-prefix-c "$tmp/a" "$tmp/b"
	else
		bad install-prefix-c-build
	fi
else
	bad install-prefix
fi

echo "library: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
