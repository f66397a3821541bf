#!/usr/bin/env bash
# Benchmarks on the device machine: the CPU engine on a quiet 16-core host (1, 2, 4 and 16
# threads) and the stmatch and geneva GPU engines, on the same inputs, in one call.
#
#   scripts/bench-device.sh build   here (needs Go): builds $BIN/submatch (CGO_ENABLED=0) and
#                                   copies the test data it needs to $BIN/testdata, plus any
#                                   extra t/v/e queries for github data.graph found in
#                                   $SUBMATCH_EXTRA_QUERIES (to $BIN/extra).
#   scripts/bench-device.sh run     there (no Go): the quick bench suite at 1,2,4,16 threads
#                                   (SKIP_SUITE=1 skips it; QUERY_TIMEOUT=20s bounds each query;
#                                   SKIP_STMATCH=1 leaves stmatch out of the github table),
#                                   then every github query (and extra ones) with the CPU engine at
#                                   1, 2 and 16 threads and with stmatch; prints a table last.
#   scripts/bench-device.sh stmatch24   there: STMatch's 24 patterns on wiki-Vote (unlabelled,
#                                   embeddings): stmatch (whole process, its kernel time), the
#                                   CPU engine on all cores, --engine auto (what it chose), and
#                                   stmatch under --timeout 1s (the stop latency), beside STMatch's
#                                   published H100 kernel time; QS=q17,q1 picks patterns (in that order),
#                                   T_STM/T_CPU/T_AUTO bound each run (defaults 60s/30s/60s;
#                                   T_AUTO=0 leaves auto out); LABELS=1 then runs the 24 patterns
#                                   again with 10 random vertex labels on graph and patterns
#                                   (STMatch's Table 3 setting; made at build), stmatch and CPU.
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
	if [ -n "${STMATCH24_ONLY:-}" ]; then
		cp -r "$shared/wikivote-graphpi" "$shared/stmatch-patterns" "$BIN/testdata/"
	else
		cp -r "$shared/github-gmatch" "$shared/hprd-subgraphmatching" "$shared/wikivote-graphpi" "$shared/stmatch-patterns" "$BIN/testdata/"
	fi
	chmod -R u+w "$BIN/testdata"
	labelled10 "$shared/wikivote-graphpi/wiki-vote_input" "$shared/stmatch-patterns/wikivote-unlabelled.tsv" "$BIN/testdata"
	if [ -n "${SUBMATCH_EXTRA_QUERIES:-}" ]; then
		mkdir -p "$BIN/extra"
		cp "$SUBMATCH_EXTRA_QUERIES"/*.graph "$BIN/extra/"
	fi
	du -sh "$BIN"
}

# labelled10 EDGELIST PATTERNS DIR writes DIR/wikivote-labelled10.graph (the edge list with its
# vertices renumbered 0..n-1 in id order and given one of 10 labels by a fixed hash: STMatch's
# Table 3 setting of 10 random vertex labels) and DIR/stmatch-patterns/wikivote-labelled10.tsv
# (the 24 patterns, each vertex given one of 10 labels by the same hash of the pattern's number
# and the vertex's place), deterministic whatever awk runs it.
labelled10() {
	local src=$1 tsv=$2 dir=$3
	awk 'NR > 1 { print $1; print $2 }' "$src" | sort -n -u > "$dir/.ids"
	awk 'function lab(x) { return int((x * 2654435761 + 12345) % 4294967296) % 10 }
		FNR == NR { idx[$1] = n++; next }
		FNR > 1 { u = idx[$1]; v = idx[$2]; if (u == v) next; a = u < v ? u : v; b = u < v ? v : u; k = a " " b
			if (!(k in seen)) { seen[k] = 1; e[m++] = k } }
		END { print "t", n, m; for (i = 0; i < n; i++) print "v", i, lab(i); for (j = 0; j < m; j++) print "e", e[j] }' \
		"$dir/.ids" "$src" > "$dir/wikivote-labelled10.graph"
	rm -f "$dir/.ids"
	mkdir -p "$dir/stmatch-patterns"
	awk -F'\t' 'function lab(x) { return int((x * 2654435761 + 12345) % 4294967296) % 10 }
		/^#/ { print "# name\tpattern (10 vertex labels)\t-"; next }
		{ q = substr($1, 2) + 0; pat = $2; out = ""; delete done; i = 0
			while (match(pat, /\([a-z]+\)/)) {
				v = substr(pat, RSTART + 1, RLENGTH - 2)
				if (!(v in done)) { done[v] = lab(q * 16 + i++); node = "(" v ":" done[v] ")" } else node = "(" v ")"
				out = out substr(pat, 1, RSTART - 1) node; pat = substr(pat, RSTART + RLENGTH)
			}
			print $1 "\t" out pat "\t-" }' "$tsv" > "$dir/stmatch-patterns/wikivote-labelled10.tsv"
}

# count ENGINE THREADS QUERY [FLAGS...]: prints "count<TAB>call_ms<TAB>kernel_ms<TAB>partial<TAB>
# process_ms" for one query: call_ms is the engine's count call, kernel_ms its GPU kernel time
# (0 on the CPU), process_ms the whole process from exec to exit.
count() {
	local engine=$1 threads=$2 q=$3 t0 t1 line
	shift 3
	t0=$(date +%s%N)
	line=$("$BIN/submatch" count --json --timeout "${QUERY_TIMEOUT:-60s}" --engine "$engine" --threads "$threads" "$@" \
		"$BIN/testdata/github-gmatch/data.graph" "$q" 2>/dev/null)
	t1=$(date +%s%N)
	[ -n "$line" ] || { printf 'error\t-\t-\t-\t-\n'; return; }
	printf '%s\t%s\t%s\t%s\t%s\n' \
		"$(sed -E 's/.*"count":([0-9]+).*/\1/' <<<"$line")" \
		"$(sed -E 's/.*"elapsed_ms":([0-9.]+).*/\1/' <<<"$line")" \
		"$(grep -q kernel_ms <<<"$line" && sed -E 's/.*"kernel_ms":([0-9.]+).*/\1/' <<<"$line" || echo 0)" \
		"$(sed -E 's/.*"partial":(true|false).*/\1/' <<<"$line")" \
		"$(( (t1 - t0) / 1000000 ))"
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
	echo "== kernel cache warmed first (the first stmatch count would otherwise pay a cold NVRTC compile)"
	"$BIN/submatch" gpu-info --compile 2>&1 | sed -n '/^kernels:/,$p'
	echo "== github queries: CPU engine at 1, 2, 16 threads, stmatch, geneva (phases and SV)"
	echo "   call = engine count call, ms; proc = whole process, ms; kern = GPU kernel time, ms"
	printf 'query\tcount\tcpu1\tcpu2\tcpu2proc\tcpu16\tstm\tstmkern\tgen\tgenkern\tgenproc\tgennotail\tgennotailkern\tgensv\tgensvkern\tgenpaper\tcheck\n' | tee "$out/github.tsv"
	for q in "$BIN"/testdata/github-gmatch/query_graph/*.graph "$BIN"/extra/*.graph; do
		[ -e "$q" ] || continue
		local name c1 t1 t2 p2 t16 cs ts ks cg tg kg pg ct tt kt cv tv kv cp tp check rest
		name=$(basename "$q" .graph)
		IFS=$'\t' read -r c1 t1 rest < <(count cpu 1 "$q")
		IFS=$'\t' read -r _ t2 _ _ p2 < <(count cpu 2 "$q")
		IFS=$'\t' read -r _ t16 rest < <(count cpu 16 "$q")
		if [ -n "${SKIP_STMATCH:-}" ]; then cs=$c1 ts=- ks=-; else
			IFS=$'\t' read -r cs ts ks rest < <(count stmatch 0 "$q")
		fi
		IFS=$'\t' read -r cg tg kg _ pg < <(count geneva 0 "$q")
		IFS=$'\t' read -r ct tt kt rest < <(count geneva 0 "$q" --geneva-no-tail)
		IFS=$'\t' read -r cv tv kv rest < <(count geneva 0 "$q" --geneva-sv)
		IFS=$'\t' read -r cp tp rest < <(count geneva 0 "$q" --geneva-order paper)
		check=ok
		for c in "$cs" "$cg" "$ct" "$cv" "$cp"; do [ "$c" = "$c1" ] || check="MISMATCH/timeout"; done
		printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$c1" "$t1" "$t2" "$p2" "$t16" \
			"$ts" "$ks" "$tg" "$kg" "$pg" "$tt" "$kt" "$tv" "$kv" "$tp" "$check" | tee -a "$out/github.tsv"
	done
	echo
	echo "== summary (ms)"
	column -t -s $'\t' "$out/github.tsv" 2>/dev/null || cat "$out/github.tsv"
}

# json FIELD LINE prints a field of count --json's line ("-" when absent).
json() {
	local v
	v=$(grep -o "\"$1\":\"\?[^,\"}]*" <<<"$2" | head -1 | sed -E 's/^"[^"]*":"?//')
	echo "${v:--}"
}

# count24 ENGINE TIMEOUT PATTERN [FLAGS...]: prints count, partial, process ms, kernel ms, engine
# (count --json's) for one wiki-Vote count, tab-separated.
count24() {
	local engine=$1 timeout=$2 pat=$3 t0 t1 line
	shift 3
	t0=$(date +%s%N)
	line=$("$BIN/submatch" count --json --timeout "$timeout" --engine "$engine" "$@" \
		"${GRAPH:-$BIN/testdata/wikivote-graphpi/wiki-vote_input}" "$pat" 2>/dev/null)
	t1=$(date +%s%N)
	[ -n "$line" ] || { printf 'error\t-\t%s\t-\t-\n' "$(( (t1 - t0) / 1000000 ))"; return; }
	printf '%s\t%s\t%s\t%s\t%s\n' "$(json count "$line")" "$(json partial "$line")" "$(( (t1 - t0) / 1000000 ))" \
		"$(json kernel_ms "$line")" "$(json engine "$line")"
}

stmatch24() {
	local out="${OUT:-$root/$BIN/out}" tsv="$BIN/testdata/stmatch-patterns/wikivote-unlabelled.tsv"
	mkdir -p "$out"
	echo "== $(date -u '+%Y-%m-%d %H:%M:%S UTC') on $(hostname), $(nproc) cores: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
	command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
	"$BIN/submatch" gpu-info --compile 2>&1 | sed -n '/^kernels:/,$p'
	echo "== STMatch's 24 patterns on wiki-Vote (embeddings): ms of the whole process unless named"
	printf 'q\tstmatch_ms\tcount\tstm_proc\tstm_kern\tcpu16_proc\tcpu16_partial\tauto_engine\tauto_proc\tstop1s_proc\tstop1s_partial\tcheck\n' | tee "$out/stmatch24.tsv"
	local rows
	if [ -n "${QS:-}" ]; then  # in QS's order
		rows=$(for q in ${QS//,/ }; do grep -P "^$q\t" "$tsv"; done)
	else
		rows=$(grep -v '^#' "$tsv")
	fi
	while IFS=$'\t' read -r q pat pub; do
		case "$q" in '#'*|'') continue ;; esac
		local sc sp st sk cc cp ct ac ap at ae lc lp lt check rest
		IFS=$'\t' read -r sc sp st sk rest < <(count24 stmatch "${T_STM:-60s}" "$pat")
		IFS=$'\t' read -r cc cp ct rest < <(count24 cpu "${T_CPU:-30s}" "$pat" --threads 0)
		if [ "${T_AUTO:-60s}" = 0 ]; then ac=- ap=- at=- ae=-; else
			IFS=$'\t' read -r ac ap at _ ae < <(count24 auto "${T_AUTO:-60s}" "$pat")
		fi
		IFS=$'\t' read -r lc lp lt rest < <(count24 stmatch 1s "$pat")
		check=ok
		[ "$sp" = false ] || check="stmatch-partial"
		if [ "$cp" = false ] && [ "$cc" != "$sc" ]; then check="MISMATCH(cpu $cc)"; fi
		if [ "$ap" = false ] && [ "$ac" != "$sc" ]; then check="MISMATCH(auto $ac)"; fi
		printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$q" "$pub" "$sc" "$st" "$sk" "$ct" "$cp" "$ae" "$at" "$lt" "$lp" "$check" | tee -a "$out/stmatch24.tsv"
	done <<<"$rows"
	echo
	column -t -s $'\t' "$out/stmatch24.tsv" 2>/dev/null || cat "$out/stmatch24.tsv"
	[ -n "${LABELS:-}" ] || return 0
	echo
	echo "== the same patterns and graph with 10 random vertex labels (STMatch's Table 3 setting): stmatch and the CPU engine"
	local ltsv="$BIN/testdata/stmatch-patterns/wikivote-labelled10.tsv"
	printf 'q\tcount\tstm_proc\tstm_kern\tcpu16_proc\tcpu16_partial\tcheck\n' | tee "$out/stmatch24-labelled10.tsv"
	if [ -n "${QS:-}" ]; then
		rows=$(for q in ${QS//,/ }; do grep -P "^$q\t" "$ltsv"; done)
	else
		rows=$(grep -v '^#' "$ltsv")
	fi
	while IFS=$'\t' read -r q pat _; do
		case "$q" in '#'*|'') continue ;; esac
		local sc sp st sk cc cp ct check rest
		IFS=$'\t' read -r sc sp st sk rest < <(GRAPH="$BIN/testdata/wikivote-labelled10.graph" count24 stmatch "${T_STM:-60s}" "$pat")
		IFS=$'\t' read -r cc cp ct rest < <(GRAPH="$BIN/testdata/wikivote-labelled10.graph" count24 cpu "${T_CPU:-30s}" "$pat" --threads 0)
		check=ok
		[ "$sp" = false ] || check="stmatch-partial"
		if [ "$cp" = false ] && [ "$cc" != "$sc" ]; then check="MISMATCH(cpu $cc)"; fi
		[ "$cp" = false ] || check="$check, cpu cut"
		printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$q" "$sc" "$st" "$sk" "$ct" "$cp" "$check" | tee -a "$out/stmatch24-labelled10.tsv"
	done <<<"$rows"
}

case "${1:-}" in
build) build ;;
run) run ;;
stmatch24) stmatch24 ;;
*) echo "usage: $0 build|run|stmatch24" >&2; exit 2 ;;
esac
