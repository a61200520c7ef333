#!/bin/sh
# Runs each libFuzzer harness for SECONDS: sh tests/fuzz/run.sh SECONDS ini csv opt. Corpora
# grow in build/fuzz/corpus-NAME from the shipped files as seeds; a finding is written to
# build/fuzz/crash-NAME-* and fails the run. Run from the project root (the harnesses read
# models/ and workloads/).
secs=$1
shift
fail=0
for name in "$@"; do
	case $name in
	ini) seeds="models workloads tests/cli/bad tests/hostile" max=16384 ;;
	csv) seeds="catalogs tests/catalogs tests/validation tests/hostile" max=65536 ;;
	opt) seeds="tests/fuzz/seeds/opt" max=1024 ;;
	*) echo "fuzz: no harness $name"; exit 2 ;;
	esac
	corpus=build/fuzz/corpus-$name
	mkdir -p "$corpus"
	if build/fuzz/fuzz_$name -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=$max \
		-print_final_stats=1 -artifact_prefix=build/fuzz/crash-$name- "$corpus" $seeds \
		>build/fuzz/$name.log 2>&1; then
		echo "fuzz $name: $(grep -E '^stat::number_of_executed_units' build/fuzz/$name.log | awk '{print $2}') runs in ${secs} s, no finding"
	else
		echo "FAIL fuzz $name: a finding (build/fuzz/$name.log):"
		grep -E 'ERROR|SUMMARY|runtime error|Test unit written' build/fuzz/$name.log | head -8 | sed 's/^/    /'
		fail=1
	fi
done
exit $fail
