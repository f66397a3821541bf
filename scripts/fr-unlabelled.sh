#!/usr/bin/env bash
# SGSI's FR size without labels (issue 21): an unlabelled R-MAT graph of scale 26, edge factor 27
# (67 M vertices, about 1.76e9 edges, a 17 GB snapshot), generated on the device host, then one
# count per configuration, each cut by its own cap, whole process timed, with -v's debug lines.
#
#   scripts/fr-unlabelled.sh build DIR   here (Go): DIR/submatch (CGO_ENABLED=0, gzipped).
#   OUT=... bash scripts/fr-unlabelled.sh run DIR   on the device host: generates the graph under
#                                    FR_WORK (${TMPDIR:-/tmp}/fr-unlabelled) and runs FR_CONFIGS,
#                                    one line each in $OUT/table.txt, logs in $OUT/NAME.log.
#
# Knobs: FR_SCALE (26), FR_EDGE_FACTOR (27), FR_QUERY (a triangle), FR_GEN_CAP (200) seconds for
# the generation, FR_CONFIGS (default "core=stmatch:60 pbe=pbe:90 sgsi=sgsi:90"), each
# NAME=ENGINE:CAP or NAME=ENGINE:CAP:BUDGET (BUDGET in place of FR_BUDGET for that one: sgsi in
# core with sgsiin=sgsi:90:100GiB) (the CPU engine: cpu; pbe with --pbe-backend gpu: pbegpu, and --pbe-inter gpu too: pbegg; stmatch with the graph in
# host memory, zero-copy: zc, or in managed memory: mg; auto with --explain: auto), FR_BUDGET (4GiB)
# the --gpu-memory of every engine but the CPU's and stmatch in core, FR_END seconds from the start after which nothing new starts.
#
# The device tool (carry [DIR], after `bash scripts/fr-unlabelled.sh build DIR`):
#   command "OUT=$OUT bash scripts/fr-unlabelled.sh run DIR > $OUT/fr.log 2>&1"
set -u -o pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
source scripts/bench-lib.sh

build() {
	set -e
	build_bins "$1" submatch=./cmd/submatch
	du -sh "$1"
}

run() {
	local dir="$1" out="${OUT:-$1/out}" t0=$SECONDS
	mkdir -p "$out"
	unpack_bins "$dir" submatch
	local work="${FR_WORK:-${TMPDIR:-/tmp}/fr-unlabelled}" end="${FR_END:-560}"
	local query="${FR_QUERY:-(a)-(b)-(c)-(a)}" budget="${FR_BUDGET:-4GiB}"
	mkdir -p "$work"
	local g0=$SECONDS
	if ! timeout "${FR_GEN_CAP:-200}" "$dir/submatch" gen rmat --scale "${FR_SCALE:-26}" \
		--edge-factor "${FR_EDGE_FACTOR:-27}" --seed 1 --sync=false -o "$work/fr.smg" >"$out/gen.log" 2>&1; then
		echo "generation failed or cut after $((SECONDS - g0)) s:"; tail -3 "$out/gen.log"; return 1
	fi
	echo "# generated in $((SECONDS - g0)) s: $(tail -1 "$out/gen.log")"
	printf '%-8s %-8s %10s  %s\n' config engine ms result | tee "$out/table.txt"
	local spec name engine cap flags
	for spec in ${FR_CONFIGS:-core=stmatch:60 pbe=pbe:90 sgsi=sgsi:90}; do
		name="${spec%%=*}" engine="${spec#*=}" cap="${engine#*:}" engine="${engine%%:*}" budget="${FR_BUDGET:-4GiB}"
		if [[ $cap == *:* ]]; then
			budget="${cap#*:}" cap="${cap%%:*}"
		fi
		if (( SECONDS - t0 + cap > end )); then
			printf '%-8s %-8s %10s  %s\n' "$name" "$engine" - "skipped (FR_END)" | tee -a "$out/table.txt"
			continue
		fi
		flags=(--engine "$engine")
		case "$engine" in
		pbe | sgsi) flags+=(--gpu-memory "$budget") ;;
		pbegpu) flags=(--engine pbe --pbe-backend gpu --gpu-memory "$budget") ;;
		pbegg) flags=(--engine pbe --pbe-backend gpu --pbe-inter gpu --gpu-memory "$budget") ;;
		zc | mg) flags=(--engine stmatch --stmatch-graph-memory "$([ "$engine" = zc ] && echo host || echo managed)" --gpu-memory "$budget") ;;
		auto) flags=(--engine auto --explain --gpu-memory "$budget") ;;
		esac
		local s=$(date +%s%N)
		timeout $((cap + 15)) "$dir/submatch" count -v --threads "$(nproc)" --timeout "${cap}s" "${flags[@]}" \
			"$work/fr.smg" "$query" >"$out/$name.out" 2>"$out/$name.log"
		local rc=$? ms=$((($(date +%s%N) - s) / 1000000))
		printf '%-8s %-8s %10s  %s\n' "$name" "$engine" "$ms" "rc=$rc $(tr '\t' ' ' <"$out/$name.out" | tail -1)" | tee -a "$out/table.txt"
	done
	rm -rf "$work"
}

dispatch "$@"
