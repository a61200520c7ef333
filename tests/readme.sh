#!/bin/sh
# README examples: runs every "$ ./roofcost ..." command of README.md, in order, from the project
# root, in a fresh home (no ROOFCOST_DB: the store is created in ~/.local/share/roofcost with
# the bundled catalogs, as a new user's is), and fails when a command prints other lines than
# the README shows. Conventions (elided lines, "TEXT ..."): tests/readme.awk.
#   sh tests/readme.sh             check (part of make test)
#   sh tests/readme.sh --rewrite   put the real output into README.md (make readme)
cd "$(dirname "$0")/.." || exit 1
mode=check
[ "${1:-}" = --rewrite ] && mode=rewrite
[ -x "${ROOFCOST:-./roofcost}" ] || { echo "readme: build ${ROOFCOST:-./roofcost} first (make)" >&2; exit 1; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/home"
HOME=$tmp/home
export HOME
unset ROOFCOST_DB ROOFCOST_HOME XDG_DATA_HOME
LC_ALL=C
TZ=UTC
export LC_ALL TZ
if [ "$mode" = rewrite ]; then
	awk -v mode=rewrite -v home="$HOME" -f tests/readme.awk README.md > "$tmp/README.md" || exit 1
	if cmp -s "$tmp/README.md" README.md; then
		echo "readme: README.md already shows the real output"
	else
		cp "$tmp/README.md" README.md && echo "readme: README.md rewritten from the real output (git diff README.md)"
	fi
else
	awk -v mode=check -v home="$HOME" -f tests/readme.awk README.md
fi
