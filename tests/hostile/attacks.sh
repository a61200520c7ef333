#!/bin/sh
# The integrity attacks on release records (issue 21), as an attacker who can write the store
# file would make them: drop every trigger, then rewrite or delete any record (the newest too)
# with and without recomputed hashes and links, truncate the store to 0 bytes, change a price
# in place, cut the check log, rename a record, edit an export and recompute its hash. Each
# attack runs on a fresh copy of one store, unkeyed and keyed (ROOFCOST_RECORD_KEY), and must be
# caught: by `verify --expect-head` (the head kept outside the store) in an unkeyed store, by
# `verify` alone in a keyed one, and by the verbs that use a record. The attacker recomputes
# what plain SHA-256 lets anyone recompute (sqlite3 and sha256sum); the key it does not have.
# Run from the project root by tests/hostile/run.sh; prints "attacks: N passed, N failed".
R=${ROOFCOST:-./roofcost}
command -v sqlite3 >/dev/null 2>&1 || { echo "attacks: skipped: the sqlite3 command is missing (make deps)"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
out=$tmp/out
pass=0
fail=0
GEN=0000000000000000000000000000000000000000000000000000000000000000
KEY=attacks-test-key-0123456789abcdef
export ROOFCOST_HOME=$PWD

# expect NAME RC TEXT -- COMMAND...: the exit code, and TEXT in stdout or stderr.
expect() {
	name=$1 want_rc=$2 want=$3
	shift 4
	"$@" >"$out" 2>&1
	rc=$?
	if [ "$rc" -ne "$want_rc" ]; then
		echo "FAIL attacks $MODE $name: exit $rc, want $want_rc: $*"; sed 's/^/    /' "$out" | head -4
		fail=$((fail + 1))
	elif [ -n "$want" ] && ! grep -qF -- "$want" "$out"; then
		echo "FAIL attacks $MODE $name: output lacks '$want': $*"; sed 's/^/    /' "$out" | head -4
		fail=$((fail + 1))
	else
		pass=$((pass + 1))
	fi
}

sha() { printf '%s' "$1" | sha256sum | cut -c1-64; }
bl() { ROOFCOST_DB=$DB $R baseline "$@"; }

# A copy of the pristine store with every trigger dropped: what an attacker starts from.
attack() {
	DB=$tmp/$MODE-$1.db
	cp "$PRISTINE" "$DB"
	sqlite3 "$DB" "SELECT 'DROP TRIGGER ' || name || ';' FROM sqlite_master WHERE type = 'trigger'" | sqlite3 "$DB"
}

# The head recomputed from the rows as they are, sealed with plain SHA-256 (the attacker has
# no key); downgrade 1 also writes the unkeyed mode.
reseal() {
	mode=$(sqlite3 "$DB" "SELECT mode FROM chain_head") key=$(sqlite3 "$DB" "SELECT key_id FROM chain_head")
	[ "${1:-0}" = 1 ] && mode=sha256 key=
	nr=$(sqlite3 "$DB" "SELECT COUNT(*) FROM baseline")
	rh=$(sqlite3 "$DB" "SELECT COALESCE((SELECT chain_sha256 FROM baseline ORDER BY id DESC LIMIT 1), '$GEN')")
	nc=$(sqlite3 "$DB" "SELECT COUNT(*) FROM baseline_check")
	ch=$(sqlite3 "$DB" "SELECT COALESCE((SELECT chain_sha256 FROM baseline_check ORDER BY id DESC LIMIT 1), '$GEN')")
	seal=$(printf 'roofcost-chain-head 1\nmode %s\nkey %s\nrecords %s %s\nchecks %s %s\n' "$mode" "$key" "$nr" "$rh" \
		"$nc" "$ch" | sha256sum | cut -c1-64)
	sqlite3 "$DB" "UPDATE chain_head SET mode = '$mode', key_id = '$key', records = $nr, record_head = '$rh',
		checks = $nc, check_head = '$ch', seal = '$seal'"
}

# Every record's sha256 from its text and every link from record id $1 on, as sha256(prev ||
# sha256), then the head: a chain that holds for anyone without the key.
relink() {
	prev=$(sqlite3 "$DB" "SELECT COALESCE((SELECT chain_sha256 FROM baseline WHERE id < $1 ORDER BY id DESC LIMIT 1), '$GEN')")
	for id in $(sqlite3 "$DB" "SELECT id FROM baseline WHERE id >= $1 ORDER BY id"); do
		s=$(sha "$(sqlite3 "$DB" "SELECT record FROM baseline WHERE id = $id")")
		c=$(sha "$prev$s")
		sqlite3 "$DB" "UPDATE baseline SET sha256 = '$s', prev_sha256 = '$prev', chain_sha256 = '$c' WHERE id = $id"
		prev=$c
	done
	# The check log's links too, each over its row and the checked record's sha256.
	prev=$GEN
	for id in $(sqlite3 "$DB" "SELECT id FROM baseline_check ORDER BY id"); do
		s=$(sqlite3 -separator ' ' "$DB" "SELECT b.sha256, k.checked_at, k.frozen, k.passed, k.failed, k.tool
			FROM baseline_check k JOIN baseline b ON b.id = k.baseline_id WHERE k.id = $id" |
			{ read -r rs at fr pa fa tool; printf 'roofcost-check 1\nrecord %s\nchecked_at %s\nfrozen %s\npassed %s\nfailed %s\ntool %s\n' \
				"$rs" "$at" "$fr" "$pa" "$fa" "$tool"; } | sha256sum | cut -c1-64)
		c=$(sha "$prev$s")
		sqlite3 "$DB" "UPDATE baseline_check SET prev_sha256 = '$prev', chain_sha256 = '$c' WHERE id = $id"
		prev=$c
	done
	reseal "${2:-0}"
}

edit() { sqlite3 "$DB" "UPDATE baseline SET record = replace(record, '\"feasible\":true', '\"feasible\":false') WHERE name = '$1'"; }

# One store of three records and two checks, then the attacks on it.
run_attacks() {
	PRISTINE=$tmp/$MODE.db
	S="-s p5.48xlarge -w llama3-70b-serve"
	for n in 1 2 3; do
		ROOFCOST_DB=$PRISTINE $R baseline record r$n $S --set concurrency=$n >/dev/null 2>&1 || { echo "FAIL attacks $MODE: record r$n"; fail=$((fail + 1)); }
	done
	ROOFCOST_DB=$PRISTINE $R baseline check r1 >/dev/null 2>&1
	ROOFCOST_DB=$PRISTINE $R baseline check r3 >/dev/null 2>&1
	sqlite3 "$PRISTINE" "PRAGMA wal_checkpoint(TRUNCATE)" >/dev/null
	HEAD=$(ROOFCOST_DB=$PRISTINE $R baseline verify | awk '$1 == "chain" && $2 == "head:" { print $3 }')
	DB=$PRISTINE
	expect pristine 0 "3 records: every hash and the chain hold" -- bl verify --expect-head "$HEAD"
	expect pristine-check 0 "3 records: 3 pass" -- bl check --all --expect 3

	# A record edited in the middle or at the end, its hash left: verify alone names it.
	for r in r2 r3; do
		attack edit-$r; edit $r
		expect edit-$r 3 "$r: its content hashes to" -- bl verify
		expect edit-$r-show 1 "the record changed behind the tool's back" -- bl show $r
		expect edit-$r-export 1 "the record changed behind the tool's back" -- bl export $r
		expect edit-$r-check 1 "the record changed behind the tool's back" -- bl check $r
		expect edit-$r-list 1 "$r: its content hashes to" -- bl list
	done
	# Its sha256 recomputed but not the links: the chain breaks at it.
	attack edit-sha; edit r2
	sqlite3 "$DB" "UPDATE baseline SET sha256 = '$(sha "$(sqlite3 "$DB" "SELECT record FROM baseline WHERE name = 'r2'")")' WHERE name = 'r2'"
	expect edit-sha 3 "r2: its chain hash is" -- bl verify
	# Rewritten and every hash, link and the head recomputed: any record, the newest too.
	for r in 2 3; do
		attack rewrite-r$r; edit r$r; relink $r
		expect rewrite-r$r-head 3 "not the expected $HEAD" -- bl verify --expect-head "$HEAD"
		[ "$MODE" = keyed ] && expect rewrite-r$r 3 "computed" -- bl verify
		[ "$MODE" = keyed ] && expect rewrite-r$r-check 1 "" -- bl check --all
	done
	# ... and the keyed store rewritten whole as an unkeyed one (a downgrade).
	if [ "$MODE" = keyed ]; then
		attack downgrade; edit r2; relink 1 1
		expect downgrade-log 0 "" -- sh -c "! ROOFCOST_DB='$DB' ROOFCOST_RECORD_KEY= $R baseline verify 2>&1 | grep -q 'check log: 5 checks, head .*: broken'"
		expect downgrade 3 "the store's chain is not keyed (3 records, 5 checks), though ROOFCOST_RECORD_KEY is set" -- bl verify
		expect downgrade-show 1 "not keyed" -- bl show r1
	fi
	# The newest record deleted, the head left: the head no longer matches.
	attack delete-newest; sqlite3 "$DB" "DELETE FROM baseline WHERE name = 'r3'"
	expect delete-newest 3 "the chain head says 3 records" -- bl verify
	expect delete-newest-check 1 "records were deleted behind the tool's back" -- bl check --all
	expect delete-newest-expect 3 "the store holds 2 records" -- bl check --all --expect 3
	expect delete-newest-record 1 "a record or check was added or removed behind the tool's back" -- bl record r4 $S
	# ... and the head recomputed: the outside head and the expected count catch it.
	attack delete-reseal; sqlite3 "$DB" "DELETE FROM baseline_check WHERE baseline_id = 3; DELETE FROM baseline WHERE name = 'r3'"; reseal
	expect delete-reseal-head 3 "records were rewritten, added or lost" -- bl verify --expect-head "$HEAD"
	if [ "$MODE" = keyed ]; then
		expect delete-reseal 3 "the chain head's seal is" -- bl verify
		expect delete-reseal-expect 3 "the store holds 2 records" -- bl check --all --expect 3
	else
		expect delete-reseal-expect 3 "the store holds 2 records" -- bl check --all --expect 3
	fi
	# A record deleted in the middle: the next one no longer links.
	attack delete-middle; sqlite3 "$DB" "DELETE FROM baseline WHERE name = 'r2'"
	expect delete-middle 3 "r3: the chain is broken before it" -- bl verify
	# The store truncated to 0 bytes: no records where records were expected.
	DB=$tmp/$MODE-empty.db
	: > "$DB"
	expect truncated-expect 3 "the store holds 0 records" -- bl check --all --expect 3
	expect truncated-check 3 "nothing was checked, which is no pass" -- bl check --all
	expect truncated-head 3 "not the expected $HEAD" -- bl verify --expect-head "$HEAD"
	expect truncated-verify 0 "is empty (0 bytes)" -- bl verify
	if [ -s "$DB" ]; then echo "FAIL attacks $MODE truncated: the 0-byte store was re-created"; fail=$((fail + 1)); else pass=$((pass + 1)); fi
	# A price a record used, changed in place under the same as_of.
	attack price; sqlite3 "$DB" "UPDATE price SET usd_per_hour = 40 WHERE instance = 'p5.48xlarge' AND region = 'us-east-1' AND pricing_model = 'on-demand' AND as_of = '2025-06-01'"
	expect price 3 "a price row was changed, added or deleted behind the tool's back" -- bl verify
	expect price-check 1 "a price row changed under the same as_of and catalog is the store altered" -- bl check r1
	# The check log cut: its newest row, or its first.
	attack log-newest; sqlite3 "$DB" "DELETE FROM baseline_check WHERE id = (SELECT MAX(id) FROM baseline_check)"
	expect log-newest 1 "a record or check was added or removed behind the tool's back" -- bl record r4 $S
	expect log-newest-verify 3 "checks were deleted behind the tool's back" -- bl verify
	attack log-first; sqlite3 "$DB" "DELETE FROM baseline_check WHERE id = (SELECT MIN(id) FROM baseline_check)"
	expect log-first 3 "it does not link to the check before it" -- bl verify
	# A record renamed: in its column only, then in its JSON too with every hash recomputed.
	attack rename; sqlite3 "$DB" "UPDATE baseline SET name = 'renamed' WHERE name = 'r1'"
	expect rename 3 "renamed or edited behind the tool's back" -- bl verify
	expect rename-check 1 "renamed or edited behind the tool's back" -- bl check renamed
	expect rename-show 1 "renamed or edited behind the tool's back" -- bl show renamed
	expect rename-old 1 "no record 'r1'" -- bl check r1
	attack rename-all; sqlite3 "$DB" "UPDATE baseline SET name = 'renamed', record = replace(record, '\"name\":\"r1\"', '\"name\":\"renamed\"') WHERE name = 'r1'"; relink 1
	expect rename-all-head 3 "not the expected $HEAD" -- bl verify --expect-head "$HEAD"
	[ "$MODE" = keyed ] && expect rename-all 3 "computed" -- bl verify
	# An export edited and its sha256 recomputed (the record minified by SQLite's json(): the
	# canonical text, as the keys are sorted already).
	DB=$PRISTINE
	bl export r2 -o "$tmp/$MODE-r2.json" >/dev/null 2>&1
	sed 's/"feasible": true/"feasible": false/' "$tmp/$MODE-r2.json" > "$tmp/$MODE-edited.json"
	s=$(sqlite3 :memory: "SELECT json(json_extract(readfile('$tmp/$MODE-edited.json'), '\$.record'))" | tr -d '\n' | sha256sum | cut -c1-64)
	sed -i "s/^  \"sha256\": \"[0-9a-f]*\"/  \"sha256\": \"$s\"/" "$tmp/$MODE-edited.json"
	DB=$tmp/$MODE-imported.db
	if [ "$MODE" = keyed ]; then
		expect export-edited 1 "broken hmac_sha256" -- bl import "$tmp/$MODE-edited.json"
		grep -v '"hmac_sha256"' "$tmp/$MODE-edited.json" > "$tmp/$MODE-stripped.json"
		expect export-stripped 1 "the export is not keyed" -- bl import "$tmp/$MODE-stripped.json"
		expect export-keyless 1 "the export is keyed (hmac_sha256)" -- env ROOFCOST_RECORD_KEY= ROOFCOST_DB="$tmp/keyless.db" $R baseline import "$tmp/$MODE-r2.json"
	else
		# Without a key the edited export imports; the head of the honest files does not match.
		bl export r1 -o "$tmp/r1.json" >/dev/null 2>&1
		bl import "$tmp/r1.json" >/dev/null 2>&1
		bl import "$tmp/$MODE-edited.json" >/dev/null 2>&1
		DB=$tmp/honest.db
		bl import "$tmp/r1.json" >/dev/null 2>&1
		bl import "$tmp/$MODE-r2.json" >/dev/null 2>&1
		H2=$(bl verify | awk '$1 == "chain" && $2 == "head:" { print $3 }')
		DB=$tmp/$MODE-imported.db
		expect export-edited 3 "not the expected $H2" -- bl verify --expect-head "$H2"
	fi
}

MODE=unkeyed
unset ROOFCOST_RECORD_KEY
run_attacks
MODE=keyed
export ROOFCOST_RECORD_KEY=$KEY
run_attacks
# A keyed store without its key, or with another: every verb refuses it.
DB=$tmp/keyed.db
expect keyless 1 "the store's chain is keyed (HMAC-SHA256, key id" -- env ROOFCOST_RECORD_KEY= ROOFCOST_DB="$DB" $R baseline verify
expect wrong-key 1 "ROOFCOST_RECORD_KEY is not this store's key" -- env ROOFCOST_RECORD_KEY=another-key-0123456789 ROOFCOST_DB="$DB" $R baseline check r1
expect short-key 2 "ROOFCOST_RECORD_KEY: 5 bytes; a key has at least 16" -- env ROOFCOST_RECORD_KEY=short ROOFCOST_DB="$DB" $R baseline list

echo "attacks: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
