# CLI cases of `roofcost report` (issue 10), sourced by tests/cli/run.sh: uses its $R, $tmp,
# check, pass and fail.

# holds NAME CONDITION-COMMAND...: counts a pass when the command succeeds.
holds() {
	name=$1
	shift
	if "$@"; then pass=$((pass + 1)); else echo "FAIL $name: $*"; fail=$((fail + 1)); fi
}

# The folder of DESIGN §6: index.html, report.md, plots/NAME.{gp,dat,svg,png}, data/*.csv, inputs/.
folder_ok() {
	d=$1 want=$2
	[ -s "$d/index.html" ] && [ -s "$d/report.md" ] && [ -s "$d/inputs/version.txt" ] &&
		[ -s "$d/inputs/command.txt" ] && [ -s "$d/inputs/catalogs/prices.csv" ] &&
		[ -d "$d/inputs/models/hw/systems" ] && [ -d "$d/inputs/workloads" ] || return 1
	n=0
	for gp in "$d"/plots/*.gp; do
		s=${gp%.gp}
		[ -s "$s.dat" ] && [ -s "$s.svg" ] && [ -s "$s.png" ] || return 1
		n=$((n + 1))
	done
	[ "$n" -ge "$want" ] && [ "$(ls "$d"/data/*.csv | wc -l)" -ge "$want" ]
}

# Nothing the page loads from outside itself: no scripts, links, images, imports, or references
# other than to its own #anchors.
no_external() {
	! grep -Eiq "<script|<link|<img|<iframe|<object|<embed|@import| src=|href=[\"'][^#]|url\([^#]" "$1"
}

# Every SVG parses as XML, and each is inlined in the page.
svg_ok() {
	d=$1
	for f in "$d"/plots/*.svg; do
		if command -v xmllint >/dev/null; then
			xmllint --noout "$f" 2>/dev/null || return 1
		else
			grep -q '</svg>' "$f" || return 1
		fi
	done
	[ "$(grep -c '<svg' "$d/index.html")" -eq "$(ls "$d"/plots/*.svg | wc -l)" ]
}

S=trn2.48xlarge,p5.48xlarge,p5en.48xlarge,tpu-v6e
check help-report 0 "usage: roofcost report" -- $R report --help
check report-no-dir 2 "missing -o DIR" -- $R report -w llama3-70b-serve -s $S
check report-no-systems 2 "missing -s" -- $R report -w llama3-70b-serve -o "$tmp/never"
check report-serve 0 "$tmp/rs/index.html" -- $R report -w llama3-70b-serve -s $S -o "$tmp/rs"
holds report-serve-folder folder_ok "$tmp/rs" 6
holds report-serve-html no_external "$tmp/rs/index.html"
holds report-serve-svg svg_ok "$tmp/rs"
holds report-serve-sentence grep -q "is the cheapest at" "$tmp/rs/index.html"
holds report-serve-asof grep -q "as_of 20" "$tmp/rs/plots/serving_throughput.gp"
holds report-serve-version grep -qx "<desc>Produced by GNUPLOT</desc>" "$tmp/rs/plots/serving_cost.svg"
holds report-serve-md-links grep -q '](plots/serving_throughput.svg)' "$tmp/rs/report.md"
# Byte-identical reruns, and the same again from the echoed inputs alone.
check report-rerun 0 "" -- $R report -w llama3-70b-serve -s $S -o "$tmp/rs2"
holds report-identical diff -r "$tmp/rs" "$tmp/rs2"
check report-from-inputs 0 "" -- env ROOFCOST_HOME="$tmp/rs/inputs" ROOFCOST_DB="$tmp/inputs.db" \
	$R report -w llama3-70b-serve -s $S -o "$tmp/rs3"
holds report-inputs-reproduce diff -r "$tmp/rs" "$tmp/rs3"
# Never over another folder; nothing left behind on failure.
check report-not-empty 1 "the folder is not empty" -- $R report -w llama3-70b-serve -s $S -o "$tmp/rs"
holds report-not-empty-untouched diff -r "$tmp/rs" "$tmp/rs2"
check report-bad-system 1 "unknown system 'nope'" -- $R report -w llama3-70b-serve -s nope -o "$tmp/rbad"
holds report-bad-nothing test ! -e "$tmp/rbad"
holds report-no-partial test -z "$(ls "$tmp" | grep partial)"
# Without gnuplot: tables, data and scripts, exit 0, and how to install it.
check report-no-gnuplot 0 "apt-get install gnuplot-nox" -- env PATH=/nonexistent $R report -w llama3-8b-serve \
	-s p5.48xlarge -o "$tmp/rn"
holds report-no-gnuplot-folder test -s "$tmp/rn/index.html" -a -s "$tmp/rn/data/ranking.csv" -a \
	-s "$tmp/rn/plots/serving_step.gp" -a ! -e "$tmp/rn/plots/serving_step.svg"
holds report-no-gnuplot-page grep -q "Plot not drawn" "$tmp/rn/index.html"
# Training: the front, scaling, step, memory and roofline.
check report-train 0 "index.html" -- $R report -w llama3-405b-train -s trn2.48xlarge,trn2-ultraserver,p5en.48xlarge \
	--chips 16384 -o "$tmp/rt"
holds report-train-folder folder_ok "$tmp/rt" 5
holds report-train-html no_external "$tmp/rt/index.html"
holds report-train-svg svg_ok "$tmp/rt"
holds report-train-scaling grep -q "^trn2.48xlarge,131072,0,.*largest cluster has 100000 chips" "$tmp/rt/data/training_scaling.csv"
# Each size gets its own best layout: with --chips 16384 the feasible p5en layouts are not all one mesh.
holds report-train-scaling-layouts test "$(awk -F, '$1=="p5en.48xlarge" && $3==1 {print $4}' \
	"$tmp/rt/data/training_scaling.csv" | sort -u | wc -l)" -ge 4
# The committed example is what `make example` writes today (its PNGs are not committed).
check report-example 0 "" -- env ROOFCOST_DB="$tmp/example.db" $R report -w llama3-70b-serve \
	-s trn2.48xlarge,p5en.48xlarge -o "$tmp/ex"
rm -f "$tmp"/ex/plots/*.png
if diff -r -x '*.png' reports/example "$tmp/ex" >/dev/null; then
	pass=$((pass + 1))
else
	echo "FAIL report-example: reports/example differs from a fresh report; run 'make example'"; fail=$((fail + 1))
fi
