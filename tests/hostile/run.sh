#!/bin/sh
# The hostile corpus: each case of tests/hostile/cases.txt must exit with its code, print its
# text, end within $HOSTILE_SECONDS (default 1) and print no control character. Run from the
# project root: sh tests/hostile/run.sh. Prints "hostile: N passed, N failed"; then the
# integrity attacks of attacks.sh, which fail the run as one case when any of them fails.
# A hang ends after 10 s as exit 124 (and the case fails); the time limit is checked apart.
R="timeout 10 ${ROOFCOST:-./roofcost}"
# The binary by absolute path, for cases that leave the project root or signal it.
RB=$(cd "$(dirname "${ROOFCOST:-./roofcost}")" && pwd)/$(basename "${ROOFCOST:-./roofcost}")
H=tests/hostile
LIMIT=${HOSTILE_SECONDS:-1}
pass=0
fail=0
slow_ms=0
slow=""
tmp=$(mktemp -d)
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
ctl=$(printf '\001-\010\013-\037\177')
# A PATH with timeout and no gnuplot (cases.txt: $NOPLOT).
NOPLOT=$tmp/noplot
mkdir -p "$NOPLOT" && ln -s "$(command -v timeout)" "$NOPLOT/timeout"

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
	ROOFCOST_DB=$ro/store.db $R baseline record ro1 -s p5.48xlarge -w llama3-8b-serve >/dev/null 2>&1
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
	# Issue 21, 3: every verb that only reads records works on a store in a read-only folder
	# (an auditor's); check evaluates and says its check was not logged.
	for v in "list" "verify" "show ro1" "export ro1" "diff ro1 ro1" "check ro1"; do
		out=$(cd "$nb" && ROOFCOST_HOME=$nb ROOFCOST_DB=$ro/store.db $asnobody $RN baseline $v 2>&1)
		rc=$?
		if [ "$rc" -ne 0 ] || { [ "$v" = "check ro1" ] && ! echo "$out" | grep -q "the checks were not logged"; }; then
			echo "FAIL hostile read-only-folder: baseline $v: exit $rc: $(echo "$out" | tail -2)"; fail=$((fail + 1))
		else
			pass=$((pass + 1))
		fi
	done
	chmod 755 "$ro"
	# Issue 21, 2: a reader who cannot write the store, in a folder anyone may write (sticky,
	# as /tmp), leaves no -wal or -shm file of its own, after which the owner writes as before.
	st=$tmp/sticky
	mkdir -p "$st" && chmod 1777 "$st"
	ROOFCOST_DB=$st/store.db $R baseline record st1 -s p5.48xlarge -w llama3-8b-serve >/dev/null 2>&1
	chmod 644 "$st/store.db"
	for v in "list prices" "baseline list" "baseline verify" "baseline check st1" "import catalogs/aws.csv"; do
		(cd "$nb" && ROOFCOST_HOME=$nb ROOFCOST_DB=$st/store.db $asnobody $RN $v >/dev/null 2>&1)
	done
	left=$(find "$st" ! -user root -print 2>/dev/null)
	if [ -z "$left" ] && ROOFCOST_DB=$st/store.db $R import tests/catalogs/good/history-2.csv >/dev/null 2>&1; then
		pass=$((pass + 1))
	else
		echo "FAIL hostile sticky-folder: a reader left $left, or the owner cannot write the store"; fail=$((fail + 1))
	fi
	# Issue 21, 8: a report into an empty folder it may write whose parent it may not (a
	# container's output mount).
	mkdir -p "$tmp/mount/out" && chmod 777 "$tmp/mount/out" && chmod 555 "$tmp/mount"
	out=$(cd "$nb" && ROOFCOST_HOME=$nb ROOFCOST_DB=$st/nobody.db $asnobody env PATH=$NOPLOT $RN report -w llama3-8b-serve \
		-s p5.48xlarge -o "$tmp/mount/out" 2>&1)
	if [ -f "$tmp/mount/out/report.md" ]; then pass=$((pass + 1)); else
		echo "FAIL hostile read-only-parent: report: $out" | head -3; fail=$((fail + 1)); fi
	chmod 755 "$tmp/mount"
else
	echo "hostile: read-only-folder skipped (root without setpriv)"
fi

# The integrity attacks on release records: triggers dropped, the store rewritten (issue 21).
if ! ROOFCOST="${ROOFCOST:-./roofcost}" sh $H/attacks.sh; then fail=$((fail + 1)); fi

echo "hostile: $pass passed, $fail failed (slowest: $slow, $slow_ms ms)"
[ "$fail" -eq 0 ]
