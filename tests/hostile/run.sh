#!/bin/sh
# The hostile corpus: each case of tests/hostile/cases.txt must exit with its code, print its
# text, end within $HOSTILE_SECONDS (default 1) and print no control character. Run from the
# project root: sh tests/hostile/run.sh. Prints "hostile: N passed, N failed".
# A hang ends after 10 s as exit 124 (and the case fails); the time limit is checked apart.
R="timeout 10 ${ROOFCOST:-./roofcost}"
H=tests/hostile
LIMIT=${HOSTILE_SECONDS:-1}
pass=0
fail=0
slow_ms=0
slow=""
tmp=$(mktemp -d)
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
ctl=$(printf '\001-\010\013-\037\177')

# untouched FILE CMD...: CMD with a copy of $H/FILE as the store; 99 if the copy changed.
untouched() {
	f=$1
	shift
	cp "$H/$f" "$T/$f"
	ROOFCOST_DB="$T/$f" "$@"
	rc=$?
	if ! cmp -s "$H/$f" "$T/$f"; then
		echo "the store $f was changed"
		return 99
	fi
	return $rc
}

now() { date +%s%N; }

us=$(printf '\037')
while IFS= read -r line; do
	case "$line" in '#'*|'') continue ;; esac
	# NAME|EXIT|TEXT|COMMAND, where TEXT writes a '|' of its own as '\|'.
	name=${line%%|*}
	rest=${line#*|}
	want=${rest%%|*}
	rest=$(printf '%s' "${rest#*|}" | sed "s/\\\\|/$us/g")
	text=$(printf '%s' "${rest%%|*}" | tr "$us" '|')
	cmd=${rest#*|}
	T=$tmp/$name
	mkdir -p "$T"
	export ROOFCOST_DB="$T/store.db"
	t0=$(now)
	( eval "$cmd" ) >"$T/out" 2>&1 </dev/null
	rc=$?
	ms=$(( ($(now) - t0) / 1000000 ))
	why=""
	text=$(printf '%s' "$text" | sed "s#\\\$H#$H#g")
	if [ "$rc" -ne "$want" ]; then
		why="exit $rc, want $want"
	elif ! grep -qF -- "$text" "$T/out"; then
		why="output lacks '$text'"
	elif LC_ALL=C grep -q "[$ctl]" "$T/out"; then
		why="a control character reached the output"
	elif [ "$ms" -gt $((LIMIT * 1000)) ]; then
		why="took $ms ms (limit $LIMIT s)"
	fi
	if [ "$ms" -gt "$slow_ms" ]; then
		slow_ms=$ms
		slow=$name
	fi
	if [ -n "$why" ]; then
		echo "FAIL hostile $name: $why"
		echo "    $cmd"
		sed 's/^/    /' "$T/out" | head -5 | LC_ALL=C tr "$ctl" '?'
		fail=$((fail + 1))
	else
		pass=$((pass + 1))
	fi
done < $H/cases.txt

# A store in a folder this user cannot write is still read (it needs the user not to be root,
# or setpriv to become nobody); an import into it fails with a clear message.
asnobody=""
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null 2>&1; then
	asnobody="setpriv --reuid=65534 --regid=65534 --clear-groups"
fi
if [ "$(id -u)" -ne 0 ] || [ -n "$asnobody" ]; then
	ro=$tmp/ro
	mkdir -p "$ro"
	ROOFCOST_DB=$ro/store.db $R list prices >/dev/null 2>&1
	ROOFCOST_DB=$ro/store.db $R import tests/catalogs/good/history-1.csv >/dev/null 2>&1   # checkpointed on close
	rm -f "$ro/store.db-wal" "$ro/store.db-shm"
	chmod 755 "$tmp"
	chmod 555 "$ro"
	chmod 644 "$ro/store.db"
	# nobody runs a copy of the binary and its data in $tmp: the checkout itself may sit in a
	# folder only its owner can enter (a clone into mktemp -d).
	nb=$tmp/nobody
	mkdir -p "$nb" && cp "${ROOFCOST:-./roofcost}" "$nb/roofcost" && cp -r models workloads catalogs "$nb/"
	chmod -R a+rX "$nb"
	RN="timeout 10 $nb/roofcost"
	out=$(cd "$nb" && ROOFCOST_HOME=$nb ROOFCOST_DB=$ro/store.db $asnobody $RN list prices --provider aws 2>&1)
	if echo "$out" | grep -q "p5.48xlarge"; then pass=$((pass + 1)); else
		echo "FAIL hostile read-only-folder: list prices: $out" | head -3; fail=$((fail + 1)); fi
	out=$(cd "$nb" && ROOFCOST_HOME=$nb ROOFCOST_DB=$ro/store.db $asnobody $RN import catalogs/aws.csv 2>&1)
	if echo "$out" | grep -q "cannot open the store: its folder is not writable"; then pass=$((pass + 1)); else
		echo "FAIL hostile read-only-folder: import: $out" | head -3; fail=$((fail + 1)); fi
	chmod 755 "$ro"
else
	echo "hostile: read-only-folder skipped (root without setpriv)"
fi

echo "hostile: $pass passed, $fail failed (slowest: $slow, $slow_ms ms)"
[ "$fail" -eq 0 ]
