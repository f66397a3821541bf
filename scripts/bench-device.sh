#!/usr/bin/env bash
# Benchmarks on the device machine: the CPU engine on a quiet 16-core host (1, 2, 4 and 16
# threads) and the stmatch GPU engine, on the same inputs, in one call.
#
#   scripts/bench-device.sh build   here (needs Go): builds $BIN/submatch (CGO_ENABLED=0) and
#                                   copies the test data it needs to $BIN/testdata, plus any
#                                   extra t/v/e queries for github data.graph found in
#                                   $SUBMATCH_EXTRA_QUERIES (to $BIN/extra).
#   scripts/bench-device.sh run     there (no Go): the quick bench suite at 1,2,4,16 threads
#                                   (SKIP_SUITE=1 skips it; QUERY_TIMEOUT=20s bounds each query),
#                                   then every github query (and extra ones) with the CPU engine at
#                                   1, 2 and 16 threads and with stmatch; prints a table last.
# $BIN defaults to bin/bench-device (git-ignored). Device tool: command
# "bash scripts/bench-device.sh run", carry ["bin/bench-device"].
set -u -o pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
BIN="${BIN:-bin/bench-device}"

build() {
	set -e
	local shared="${SUBMATCH_SHARED_TESTDATA:-$root/../shared/testdata}"
	rm -rf "$BIN"
	mkdir -p "$BIN/testdata"
	CGO_ENABLED=0 go build -trimpath -o "$BIN/submatch" ./cmd/submatch
	cp -r "$shared/github-gmatch" "$shared/hprd-subgraphmatching" "$shared/wikivote-graphpi" "$BIN/testdata/"
	chmod -R u+w "$BIN/testdata"
	if [ -n "${SUBMATCH_EXTRA_QUERIES:-}" ]; then
		mkdir -p "$BIN/extra"
		cp "$SUBMATCH_EXTRA_QUERIES"/*.graph "$BIN/extra/"
	fi
	du -sh "$BIN"
}

# count ENGINE THREADS QUERY: prints "count<TAB>elapsed_ms<TAB>partial" for one query.
count() {
	"$BIN/submatch" count --json --timeout "${QUERY_TIMEOUT:-60s}" --engine "$1" --threads "$2" \
		"$BIN/testdata/github-gmatch/data.graph" "$3" 2>/dev/null |
		sed -E 's/.*"count":([0-9]+).*"elapsed_ms":([0-9.]+).*"partial":(true|false).*/\1\t\2\t\3/'
}

run() {
	local out="${OUT:-$root/$BIN/out}"
	mkdir -p "$out"
	echo "== $(date -u '+%Y-%m-%d %H:%M:%S UTC') on $(hostname), $(nproc) cores: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
	command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
	if [ -n "${SKIP_SUITE:-}" ]; then
		echo "== bench suite skipped (SKIP_SUITE set)"
	else
		echo "== bench --suite quick --threads 1,2,4,16"
		"$BIN/submatch" bench --suite quick --threads 1,2,4,16 --repeat 3 --timeout 60s \
			--testdata "$BIN/testdata" --out "$out/bench" > "$out/bench.log" 2>&1
		tail -n 12 "$out/bench.log"
	fi
	echo
	echo "== github queries: CPU engine at 1, 2, 16 threads and the stmatch GPU engine (whole count call, ms)"
	printf 'query\tcount\tcpu-1\tcpu-2\tcpu-16\tstmatch\tgpu-count-equal\n' | tee "$out/github.tsv"
	for q in "$BIN"/testdata/github-gmatch/query_graph/*.graph "$BIN"/extra/*.graph; do
		[ -e "$q" ] || continue
		local name c1 t1 t2 t16 cg tg rest
		name=$(basename "$q" .graph)
		IFS=$'\t' read -r c1 t1 rest < <(count cpu 1 "$q")
		IFS=$'\t' read -r _ t2 rest < <(count cpu 2 "$q")
		IFS=$'\t' read -r _ t16 rest < <(count cpu 16 "$q")
		IFS=$'\t' read -r cg tg rest < <(count stmatch 0 "$q")
		printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$c1" "$t1" "$t2" "$t16" "${tg:--}" \
			"$([ "${cg:-x}" = "$c1" ] && echo yes || echo "no (${cg:-error})")" | tee -a "$out/github.tsv"
	done
}

case "${1:-}" in
build) build ;;
run) run ;;
*) echo "usage: $0 build|run" >&2; exit 2 ;;
esac
