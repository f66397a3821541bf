#!/usr/bin/env bash
# R-MAT k-clique counts on the device (issue 5's "4-cliques on R-MAT scale 24 in seconds"): generates
# unlabelled Graph500 R-MAT graphs with bin/submatch (built here: CGO_ENABLED=0 go build -o bin/submatch
# ./cmd/submatch) and counts triangles and 4-cliques (unique, as STMatch counts) with the stmatch
# engine and the CPU engine (all cores), each with a time limit. Run on the device machine:
#   SCALES="22 24" bash scripts/rmat-cliques.sh      (device tool: carry ["bin"])
# LIMIT bounds each count (default 120s); the CPU engine runs up to scale CPU_MAX_SCALE (default 22).
# ENGINES (default "stmatch cpu") may also name stmatch-cliques (--stmatch-kernel cliques, the
# same as stmatch's default: 4-cliques and larger on the clique kernel, triangles on the plan
# kernels) and stmatch-generic (--stmatch-kernel generic: every pattern on the generic plan
# kernel). QUERIES adds 5-clique with
# "triangle 4-clique 5-clique" (default "triangle 4-clique"). GPUS (default "all") lists the --gpus
# values each GPU engine runs with, e.g. GPUS="1 2" for the 1-to-2-GPU speedup; the engine column then
# reads stmatch/1, stmatch/2.
set -u -o pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
sm=bin/submatch
tmp="${TMPDIR:-/tmp}"
limit="${LIMIT:-120s}"
source scripts/count-row.sh
res="${OUT:-$tmp}/rmat-cliques.txt"
count_header "$res"
warm_kernels
for s in ${SCALES:-22}; do
	g="$tmp/rmat$s.smg"
	t0=$(date +%s.%N)
	# A graph left by an earlier run in the same call is reused (same scale, edge factor and seed).
	[ -s "$g" ] || $sm gen rmat --scale "$s" --edge-factor 16 --seed 1 -o "$g" >/dev/null || { echo "gen scale $s failed"; continue; }
	$sm stats "$g" 2>/dev/null | head -5
	echo "scale $s generated in $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{printf "%.2f", b-a}') s: $(ls -l "$g" | awk '{print $5}') bytes"
	for name in ${QUERIES:-triangle 4-clique}; do
		case $name in
		triangle) pat='(a)-(b)-(c)-(a)' ;;
		4-clique) pat='(a)-(b)-(c)-(d)-(a), (a)-(c), (b)-(d)' ;;
		5-clique) pat='(a)-(b)-(c)-(d)-(e)-(a), (a)-(c), (a)-(d), (b)-(d), (b)-(e), (c)-(e)' ;;
		*) echo "unknown query $name"; continue ;;
		esac
		for e in ${ENGINES:-stmatch cpu}; do
			if [ "$e" = cpu ]; then
				[ "$s" -gt "${CPU_MAX_SCALE:-22}" ] && continue
				count_row "$res" "rmat-$s" "$name" cpu -- --engine cpu --unique --timeout "$limit" "$g" "$pat"
				continue
			fi
			args=(--engine "$e")
			[ "$e" = stmatch-cliques ] && args=(--engine stmatch --stmatch-kernel cliques)
			[ "$e" = stmatch-generic ] && args=(--engine stmatch --stmatch-kernel generic)
			for n in ${GPUS:-all}; do
				col=$e
				[ "${GPUS:-all}" = all ] || col=$e/$n
				count_row "$res" "rmat-$s" "$name" "$col" -- "${args[@]}" --gpus "$n" --unique --timeout "$limit" "$g" "$pat"
			done
		done
	done
done
echo
echo "== R-MAT cliques (unique; whole process, seconds)"
cat "$res"
