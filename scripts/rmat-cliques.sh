#!/usr/bin/env bash
# R-MAT k-clique counts on the device (issue 5's "4-cliques on R-MAT scale 24 in seconds"): generates
# unlabelled Graph500 R-MAT graphs with bin/submatch (built here: CGO_ENABLED=0 go build -o bin/submatch
# ./cmd/submatch) and counts triangles and 4-cliques (unique, as STMatch counts) with the stmatch
# engine and the CPU engine (all cores), each with a time limit. Run on the device machine:
#   SCALES="22 24" bash scripts/rmat-cliques.sh      (device tool: carry ["bin"])
# LIMIT bounds each count (default 120s); the CPU engine runs up to scale CPU_MAX_SCALE (default 22).
set -u -o pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
sm=bin/submatch
tmp="${TMPDIR:-/tmp}"
limit="${LIMIT:-120s}"
printf '%-10s %-10s %-8s %18s %10s %10s %10s %10s %s\n' graph pattern engine count seconds call_ms plan_ms kernel_ms note > "$tmp/rmat-cliques.txt"
for s in ${SCALES:-22}; do
	g="$tmp/rmat$s.smg"
	t0=$(date +%s.%N)
	$sm gen rmat --scale "$s" --edge-factor 16 --seed 1 -o "$g" >/dev/null || { echo "gen scale $s failed"; continue; }
	$sm stats "$g" 2>/dev/null | head -5
	echo "scale $s generated in $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{printf "%.2f", b-a}') s: $(ls -l "$g" | awk '{print $5}') bytes"
	for q in triangle:'(a)-(b)-(c)-(a)' 4-clique:'(a)-(b)-(c)-(d)-(a), (a)-(c), (b)-(d)'; do
		name=${q%%:*} pat=${q#*:}
		for e in ${ENGINES:-stmatch cpu}; do
			[ "$e" = cpu ] && [ "$s" -gt "${CPU_MAX_SCALE:-22}" ] && continue
			t0=$(date +%s.%N)
			out=$(timeout -k 5 "${HARD_LIMIT:-300}" $sm count --json --engine "$e" --unique --timeout "$limit" "$g" "$pat" 2>&1 | tail -1)
			dt=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{printf "%.2f", b-a}')
			field() { grep -q "\"$1\":" <<<"$out" && sed -E "s/.*\"$1\":([0-9.]+).*/\1/" <<<"$out" || echo -; }
			cnt=$(field count)
			note=$(grep -o '"partial":true' <<<"$out" | head -1)
			[ "$cnt" != - ] || note=$out
			printf '%-10s %-10s %-8s %18s %10.2f %10s %10s %10s %s\n' "rmat-$s" "$name" "$e" "$cnt" "$dt" \
				"$(field elapsed_ms)" "$(field plan_ms)" "$(field kernel_ms)" "$note" | tee -a "$tmp/rmat-cliques.txt"
		done
	done
done
echo
echo "== R-MAT cliques (unique; whole process, seconds)"
cat "$tmp/rmat-cliques.txt"
