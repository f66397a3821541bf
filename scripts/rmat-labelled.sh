#!/usr/bin/env bash
# Labelled R-MAT runs for issue 4's target (GENEVA at least 20x the two-core CPU engine on R-MAT
# scale 22-24 labelled graphs with 6-12 vertex queries) and for stmatch on the same inputs.
# Generates, with bin/submatch (CGO_ENABLED=0 go build -o bin/submatch ./cmd/submatch), a
# Graph500 R-MAT graph per scale with L vertex labels, samples random-walk queries from it, and
# counts every query (embeddings) with each engine under a time limit. Prints one row per count
# (count, whole process seconds, count call, plan and kernel ms) and a summary table last.
#   SCALES="22 24" bash scripts/rmat-labelled.sh         (device tool: carry ["bin"])
# Knobs: LABELS (256), SIZES (6,8,12), COUNT queries per size and density (2), LIMIT per count
# (30s), HARD_LIMIT seconds per process (300), ENGINES ("cpu2 cpu16 geneva geneva-sv stmatch"; cpuN
# is the CPU engine with N threads). Budget the device call: every count may take HARD_LIMIT, so
# 2 x |SIZES| x COUNT x |ENGINES| x HARD_LIMIT plus generation must fit its time limit.
# With 16 labels, R-MAT scale 22 random-walk queries of 6 vertices have about 1e14 embeddings
# (2026-11-23): only stmatch finishes them. With 256 labels the scale-22 counts measured on the
# CPU were 7e5-3e8 (6 and 8 vertices) and 2e9-6e10 (dense 12), sparse 12-vertex ones at least
# 5e11 (docs/benchmarks.md); 512 labels keep every count below 2e9.
set -u -o pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
sm=bin/submatch
tmp="${TMPDIR:-/tmp}"
limit="${LIMIT:-30s}"
res="${OUT:-$tmp}/rmat-labelled.txt" # under $OUT on the device, so that a run cut short still returns its rows
source scripts/count-row.sh
count_header "$res"
warm_kernels
for s in ${SCALES:-22}; do
	g="$tmp/rmat$s-l${LABELS:-256}.smg"
	t0=$(date +%s.%N)
	$sm gen rmat --scale "$s" --edge-factor 16 --seed 1 --vertex-labels "${LABELS:-256}" -o "$g" >/dev/null || { echo "gen scale $s failed"; continue; }
	echo "scale $s generated in $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{printf "%.2f", b-a}') s"
	qd="$tmp/rmat$s-queries"
	rm -rf "$qd"
	for d in sparse dense; do
		$sm gen queries --sizes "${SIZES:-6,8,12}" --count "${COUNT:-2}" --density "$d" --dir "$qd/$d" "$g" >/dev/null ||
			{ echo "gen queries ($d) failed"; continue; }
	done
	for q in "$qd"/*/*.graph; do
		name="$(basename "$(dirname "$q")")/$(basename "$q" .graph)"
		for e in ${ENGINES:-cpu2 cpu16 geneva geneva-sv stmatch}; do
			args=(--engine "$e")
			case "$e" in
			cpu*) args=(--engine cpu --threads "${e#cpu}") ;;
			geneva-sv) args=(--engine geneva --geneva-sv) ;;
			esac
			count_row "$res" "rmat-$s" "$name" "$e" -- "${args[@]}" --timeout "$limit" "$g" "$q"
		done
	done
done
echo
echo "== labelled R-MAT (embeddings; whole process seconds; ms of the count call, its plan and GPU kernels)"
cat "$res"
# Every finished count of a query must agree across engines.
awk 'NR > 1 && $4 != "-" && $9 == "" { k = $1 " " $2; if (k in c && c[k] != $4) { print "MISMATCH " k ": " c[k] " vs " $4 " (" $3 ")"; bad = 1 } c[k] = $4 }
	END { if (!bad) print "counts agree across engines" }' "$res"
