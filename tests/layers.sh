#!/bin/sh
# The layers of src/ (README "Source layout"): includes run only down this list, and no two
# modules include each other, directly or around a circle. Prints each violation; exit 1 if any.
#   cli > lib > report > store > engine > model > base
# src/roofcost.h, the library's face, sits on lib (only lib and cli include it).
cd "$(dirname "$0")/.." || exit 1
rank() {
	case $1 in
	cli) echo 7 ;; lib) echo 6 ;; report) echo 5 ;; store) echo 4 ;; engine) echo 3 ;; model) echo 2 ;; base) echo 1 ;;
	*) echo 0 ;;
	esac
}
bad=0
edges=$(mktemp) || exit 1
trap 'rm -f "$edges"' EXIT
for f in src/*/*.c src/*/*.h; do
	layer=${f#src/}; layer=${layer%%/*}
	mod=${f##*/}; mod=${mod%.*}
	r=$(rank "$layer")
	if [ "$r" = 0 ]; then
		echo "layers: $f: folder '$layer' is not a layer"; bad=1; continue
	fi
	for inc in $(sed -n 's/^#include "\([a-z]*\/[a-z_]*\)\.h".*/\1/p' "$f"); do
		il=${inc%%/*}; im=${inc#*/}
		ir=$(rank "$il")
		if [ ! -f "src/$inc.h" ]; then
			echo "layers: $f includes $inc.h, which is not there"; bad=1
		elif [ "$ir" -gt "$r" ]; then
			echo "layers: $f ($layer) includes $inc.h, a layer above it"; bad=1
		fi
		[ "$im" != "$mod" ] && echo "$mod $im" >> "$edges"
	done
	# The library's face, src/roofcost.h, is lib's: the lib layer implements it, the CLI above
	# may include it; nothing below lib does.
	if grep -q '^#include "roofcost\.h"' "$f"; then
		if [ "$r" -lt "$(rank lib)" ]; then
			echo "layers: $f ($layer) includes roofcost.h, the library's face above it"; bad=1
		fi
		[ "$mod" != roofcost ] && echo "$mod roofcost" >> "$edges"
	fi
	if grep -n '^#include "[a-z_]*\.h"' "$f" | grep -v '"fixtures.h"' | grep -v '"roofcost.h"' >/dev/null; then
		echo "layers: $f: an include without its layer's folder"; bad=1
	fi
done
# A circle among modules: tsort reports one on stderr.
if sort -u "$edges" | tsort >/dev/null 2>"$edges.err"; [ -s "$edges.err" ]; then
	echo "layers: the include graph has a circle:"; sed 's/^/  /' "$edges.err"; bad=1
fi
rm -f "$edges.err"
[ "$bad" = 0 ] && echo "layers: $(ls src/*/*.c | wc -l) modules, includes only downward, no circle"
exit $bad
