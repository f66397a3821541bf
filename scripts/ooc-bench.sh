#!/usr/bin/env bash
# Static matching out of core on one GPU (issue 21, branch ooc4): stmatch with its data graph in
# host memory (zero-copy) and in managed memory, the baselines of our own, beside sgsi and pbe at
# a quarter of the graph, stmatch in core and the CPU engine on every core; and what --engine auto
# chooses when the graph does not fit.
#
#   scripts/ooc-bench.sh build DIR   here (Go): DIR/submatch, DIR/stmatch.test, DIR/gpu.test
#                                    (CGO_ENABLED=0, gzipped) and wiki-Vote in DIR/testdata. DIR
#                                    should be git-ignored (/.dev-*/); it stays under 25 MB (the
#                                    R-MAT graph is generated on the device).
#   OUT=... bash scripts/ooc-bench.sh run DIR   on the device host (no Go, no network): (a) the
#                                    new GPU tests (TestGPUGraphMemory, TestGPUUploadPlaced), PASS
#                                    or FAIL lines, while the R-MAT graph and its queries are
#                                    generated; (b) one table, a row per workload and query: the
#                                    whole-process ms of the CPU engine on all cores, stmatch in
#                                    core, stmatch zero-copy and managed, sgsi and pbe (GPU
#                                    backend) at --gpu-memory a quarter of the graph
#                                    (sgsi.GraphBytes), whether the counts agree, and auto's choice
#                                    at that budget with its own time. Logs under $OUT. At most
#                                    about 200 s: every count is cut (--timeout, then timeout(1))
#                                    so that the table ends in time; a cut count reads "> N s".
#
# Knobs: OOC_SCALE (21), OOC_EDGE_FACTOR (16), OOC_LABELS (8) and OOC_LABEL_DIST (uniform or
# zipf) of the R-MAT graph's vertex labels, OOC_EDGE_LABELS (1: none; SGSI's FR has 1,000, uniform
# here) its edge labels, OOC_SIZES (4,5) of its dense random-walk queries and OOC_QUERIES (1) how
# many of each size are run (q_S_0, q_S_1, ...), OOC_CAP (8) seconds per count, OOC_END (190) seconds from the start by which the
# table ends, OOC_CONFIGS ("cpu core zc mg sgsi pbe sgsiin pbein auto") the columns run: the CPU
# engine, stmatch in core, zero-copy and managed, sgsi and pbe at the budget, sgsi and pbe without
# one (in core: the issue's "out of core at most 3x in core"), and auto (the others read "skipped");
# OOC_WIKIVOTE=0 leaves wiki-Vote's rows out (the R-MAT rows only); OOC_PBE_ARGS adds flags to the
# pbe column (e.g. "--pbe-workers 2 --gpus 1": two part workers on the first GPU, branch deal;
# the per-device upload, kernel, busy and wall times are in the column's log, "pbe count" line).
#
# SGSI's FR size in one call (issue 21, branch frgen): OOC_SCALE=26 OOC_EDGE_FACTOR=27 (67 M
# vertices, 1.81e9 samples, about 1.7e9 edges, a snapshot of about 36 GB). OOC_TESTS=0 leaves (a)
# out (its GPU tests would share the cores with the generation); OOC_GEN_CAP (400) seconds cut
# the generation and the queries (timeout(1)); OOC_CAP_<key> (e.g. OOC_CAP_sgsi=120) overrides
# OOC_CAP for one column. Before generating, a guard compares the estimated snapshot (22 bytes a
# sample) with the free disk under OOC_WORK (${TMPDIR:-/tmp}/ooc-bench) and the generator's
# estimated peak (OOC_GEN_BYTES, 34 bytes a sample; measured 30, the graph's arrays and the
# buckets, which the written snapshot's pages then replace) with MemAvailable, and stops with a
# line saying which does not fit. The graph's vertices and edges come from the
# generator's line (no serial `stats` pass over 3.4e9 entries); the snapshot is written without
# fsync (gen rmat --sync=false: the counts read it from the page cache).
#
# A GPU smaller than the graph: OOC_HOG=SIZE (e.g. 2GiB) runs scripts/gpuhog after the tests, so
# that only SIZE of the GPU's memory is free to the counts, and the counts run without
# --gpu-memory (each engine's budget is its default, from the free memory); wiki-Vote's rows and
# the tests are left out. Pick OOC_SCALE so that the graph is larger than SIZE: the table prints
# both.
#
# The device tool: command "OUT=$OUT bash scripts/ooc-bench.sh run .dev-ooc4 > $OUT/0-run.log
# 2>&1", carry [".dev-ooc4"]. FR size (one H200, timeout_s 600, carry [".dev-frgen"] after
# `bash scripts/ooc-bench.sh build .dev-frgen`): "OUT=$OUT OOC_SCALE=26 OOC_EDGE_FACTOR=27
# OOC_LABELS=1000 OOC_LABEL_DIST=zipf OOC_SIZES=6 OOC_TESTS=0 OOC_WIKIVOTE=0 OOC_CONFIGS='cpu
# sgsi pbe' OOC_GEN_CAP=380 OOC_CAP=60 OOC_CAP_sgsi=150 OOC_END=570 bash scripts/ooc-bench.sh run
# .dev-frgen > $OUT/0-run.log 2>&1".
set -u -o pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
source scripts/bench-lib.sh

build() {
	set -e
	local dir="$1" shared="${SUBMATCH_SHARED_TESTDATA:-$root/../shared/testdata}"
	build_bins "$dir" submatch=./cmd/submatch stmatch.test=./engine/stmatch gpu.test=./gpu gpuhog=./scripts/gpuhog
	rm -rf "$dir/testdata"
	mkdir -p "$dir/testdata/wikivote-graphpi"
	cp "$shared/wikivote-graphpi/wiki-vote_input" "$shared/wikivote-graphpi/LICENSE" "$dir/testdata/wikivote-graphpi/"
	chmod -R u+w "$dir/testdata"
	du -sh "$dir"
}

# jfield prints key's value in a one-line JSON object (strings without their quotes).
jfield() { sed -n "s/.*\"$1\":\(\"[^\"]*\"\|[^,}]*\).*/\1/p" <<<"$2" | tr -d '"'; }

run() {
	local dir="$1" out="${OUT:-$dir/out}" t0=$SECONDS
	mkdir -p "$out"
	unpack_bins "$dir" submatch stmatch.test gpu.test gpuhog
	export SUBMATCH_TESTDATA="$root/$dir/testdata"

	# The R-MAT graph and its queries, generated while the tests run (not carried: hundreds of MB).
	local work="${OOC_WORK:-${TMPDIR:-/tmp}/ooc-bench}" scale="${OOC_SCALE:-21}" labels="${OOC_LABELS:-8}"
	local dist="${OOC_LABEL_DIST:-uniform}" hog="${OOC_HOG:-}" ef="${OOC_EDGE_FACTOR:-16}" gcap="${OOC_GEN_CAP:-400}"
	local elabels="${OOC_EDGE_LABELS:-1}" snapb=22 peakb=34
	if [ "$elabels" -gt 1 ]; then
		# An edge label a list entry (4 bytes) and, with many labels, a run index entry (16
		# bytes) for nearly every entry: 48 bytes a sample on the disk, 28 an entry in gen's
		# peak (gen.RMATOptions.Memory).
		snapb=48 peakb=60
	fi
	mkdir -p "$work"
	rm -f "$work/rmat.smg"
	# The guard: the snapshot on the disk, the generator's peak and the snapshot in memory.
	local samples=$((ef << scale)) avail mem
	local snap=$((snapb * samples)) peak=$(("${OOC_GEN_BYTES:-$peakb}" * samples))
	avail=$(df -B1 --output=avail "$work" | tail -n 1 | tr -d ' ')
	mem=$(($(sed -n 's/^MemAvailable: *\([0-9]*\) kB/\1/p' /proc/meminfo) * 1024))
	echo "# guard: $samples samples: snapshot ~$((snap >> 30)) GiB (disk free $((avail >> 30)) GiB), generator peak ~$((peak >> 30)) GiB (memory available $((mem >> 30)) GiB)"
	if [ "$avail" -lt $((snap + (2 << 30))) ] || [ "$mem" -lt $((peak + (4 << 30))) ]; then
		echo "# guard: does not fit; nothing run"
		return 1
	fi
	(
		timeout "$gcap" "$dir/submatch" gen rmat --scale "$scale" --edge-factor "$ef" --seed 1 --vertex-labels "$labels" \
			--label-dist "$dist" --edge-labels "$elabels" --sync=false -o "$work/rmat.smg" &&
			rm -rf "$work/q" &&
			timeout $((gcap - (SECONDS - t0) > 1 ? gcap - (SECONDS - t0) : 1)) "$dir/submatch" gen queries --sizes "${OOC_SIZES:-4,5}" --count "${OOC_QUERIES:-1}" --density dense --dir "$work/q" "$work/rmat.smg"
	) > "$out/gen.log" 2>&1 &
	local gen=$!
	if [ "${OOC_TESTS:-1}" = 0 ] && [ -z "$hog" ]; then
		wait "$gen" || echo "R-MAT generation failed or was cut at $gcap s: $(tail -n 3 "$out/gen.log")"
		echo "# R-MAT: $(head -n 1 "$out/gen.log") ($((SECONDS - t0)) s with the queries)"
		table "$dir" "$out" "$t0" "${OOC_END:-190}" "$work" "R-MAT scale $scale, $labels labels$([ "$elabels" -gt 1 ] && echo ", $elabels edge labels")"
		return
	fi
	if [ -n "$hog" ]; then
		wait "$gen" || echo "R-MAT generation failed: $(tail -n 3 "$out/gen.log")"
		echo "# R-MAT: $(head -n 1 "$out/gen.log") ($((SECONDS - t0)) s)"
		# The kernels are compiled before the hog starts (NVRTC's time is not the point here).
		"$dir/submatch" gpu-info --compile > "$out/gpu-info.txt" 2>&1
		"$dir/gpuhog" -leave "$hog" > "$out/hog.log" 2>&1 &
		local hogpid=$!
		local i
		for i in $(seq 1 60); do
			grep -q holding "$out/hog.log" && break
			sleep 0.5
		done
		cat "$out/hog.log"
		nvidia-smi --query-gpu=memory.total,memory.used,memory.free --format=csv 2>/dev/null | sed 's/^/# /'
		table "$dir" "$out" "$t0" "${OOC_END:-190}" "$work" "R-MAT scale $scale, $labels labels ($dist)" "$hog"
		kill "$hogpid"
		wait "$hogpid"
		return
	fi

	echo "== (a) GPU tests of the host and managed modes"
	SUBMATCH_STMATCH_RESULTS="$out/graphmem.tsv" timeout 60 "$dir/stmatch.test" -test.v -test.count=1 \
		-test.run 'TestGPUGraphMemory$' > "$out/tests-stmatch.log" 2>&1
	echo "stmatch: exit $?"
	timeout 20 "$dir/gpu.test" -test.v -test.count=1 -test.run 'TestGPUUploadPlaced$' > "$out/tests-gpu.log" 2>&1
	echo "gpu: exit $?"
	grep -h -E '^(--- (PASS|FAIL|SKIP)|PASS$|FAIL$|panic:)' "$out"/tests-*.log
	grep -h 'MISMATCH' "$out/graphmem.tsv" 2>/dev/null | head -5
	wait "$gen" || echo "R-MAT generation failed: $(tail -n 3 "$out/gen.log")"
	echo "# R-MAT: $(head -n 1 "$out/gen.log")"

	table "$dir" "$out" "$t0" "${OOC_END:-190}" "$work" "R-MAT scale $scale, $labels labels$([ "$elabels" -gt 1 ] && echo ", $elabels edge labels")"
}

# one runs one count (submatch count --json with args) cut at lim seconds; it sets c_count
# (the count, "> N s" when cut, "error" on failure), c_ms (whole process) and c_json.
one() {
	local log="$1" lim="$2"
	shift 2
	local s e
	s=$(date +%s%N)
	timeout $((lim + 5)) "$SM" count --json --timeout "${lim}s" -v "$@" > "$log.out" 2> "$log"
	e=$(date +%s%N)
	c_ms=$(((e - s) / 1000000))
	c_json=$(tail -n 1 "$log.out")
	c_count=$(jfield count "$c_json")
	if [ -n "$(jfield error "$c_json")" ] || [ -z "$c_count" ]; then
		c_count=error
	elif [ "$(jfield partial "$c_json")" = true ]; then
		c_count="> ${lim} s"
	fi
}

# table runs (b): a row per workload and query.
table() {
	local dir="$1" out="$2" t0="$3" end="$4" work="$5" rmat="$6" hog="${7:-}"
	SM="$dir/submatch"
	local cap="${OOC_CAP:-8}"
	if [ -n "$hog" ]; then
		echo "== (b) whole-process ms on a GPU with $hog free (the rest held by gpuhog); no --gpu-memory"
	else
		echo "== (b) whole-process ms; out of core: --gpu-memory a quarter of sgsi.GraphBytes"
	fi
	printf '| workload | query | budget | cpu %s thr | stmatch in core | stmatch zero-copy | stmatch managed | sgsi | pbe gpu | sgsi in core | pbe gpu in core | counts | auto at the budget |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|\n' "$(nproc)" | tee "$out/table.md"
	printf 'workload\tquery\tengine\tcount\tms\tkernel_ms\tstmatch_device_bytes\tstmatch_host_bytes\n' > "$out/runs.tsv"
	local wv="$dir/testdata/wikivote-graphpi/wiki-vote_input" specs=()
	if [ -z "$hog" ] && [ "${OOC_WIKIVOTE:-1}" = 1 ]; then
		specs+=("wiki-Vote|$wv|4-clique|(a)-(b)-(c)-(d)-(a), (a)-(c), (b)-(d)")
		specs+=("wiki-Vote|$wv|5-vertex dense|(a)-(b)-(c)-(d)-(e)-(a), (a)-(c), (a)-(d), (b)-(d)")
	fi
	# The R-MAT graph's size from the generator's line (a stats pass would read every entry on
	# one core).
	local rn rmv q
	rn=$(sed -n 's/.* \([0-9]*\) vertices, \([0-9]*\) edges.*/\1/p' "$out/gen.log" | head -n 1)
	rmv=$(sed -n 's/.* \([0-9]*\) vertices, \([0-9]*\) edges.*/\2/p' "$out/gen.log" | head -n 1)
	local size i sizes="${OOC_SIZES:-4,5}"
	for size in ${sizes//,/ }; do
		for i in $(seq 0 $((${OOC_QUERIES:-1} - 1))); do
			q="$work/q/q_${size}_$i.graph"
			[ -f "$q" ] && specs+=("$rmat|$work/rmat.smg|$(basename "$q" .graph)|$q|$rn|$rmv")
		done
	done
	local spec name data qname pat
	for spec in "${specs[@]}"; do
		local stats n m gb budget
		IFS='|' read -r name data qname pat n m <<<"$spec"
		if [ -z "$n" ] || [ -z "$m" ]; then
			stats=$("$SM" stats --json --no-structure "$data")
			n=$(grep -o '"vertices":[0-9]*' <<<"$stats" | head -n 1 | cut -d: -f2)
			m=$(grep -o '"edges":[0-9]*' <<<"$stats" | head -n 1 | cut -d: -f2)
		fi
		gb=$((20 * n + 4 * (n + 1) + 8 * m)) # sgsi.GraphBytes
		budget=$((gb / 4))
		local bflag="--gpu-memory $budget" bcell="1/4 = $budget B"
		if [ -n "$hog" ]; then
			bflag="" bcell="graph $gb B, GPU free $hog"
		fi
		local cfg key cells=() counts=() ref="" auto=""
		for cfg in "cpu|--engine cpu" "core|--engine stmatch" \
			"zc|--engine stmatch --stmatch-graph-memory host $bflag" \
			"mg|--engine stmatch --stmatch-graph-memory managed $bflag" \
			"sgsi|--engine sgsi $bflag" \
			"pbe|--engine pbe --pbe-backend gpu ${OOC_PBE_ARGS:-} $bflag" \
			"sgsiin|--engine sgsi" \
			"pbein|--engine pbe --pbe-backend gpu ${OOC_PBE_ARGS:-}" \
			"auto|--engine auto --explain $bflag"; do
			local args
			IFS='|' read -r key args <<<"$cfg"
			if [[ " ${OOC_CONFIGS:-cpu core zc mg sgsi pbe sgsiin pbein auto} " != *" $key "* ]]; then
				cells+=("skipped")
				continue
			fi
			local left=$((end - (SECONDS - t0)))
			if [ "$left" -lt 6 ]; then
				cells+=("not run (time)")
				continue
			fi
			local capk="OOC_CAP_$key"
			local kcap="${!capk:-$cap}"
			local lim=$((left - 4 < kcap ? left - 4 : kcap))
			local log="$out/${name%%,*}-$qname-$key.log"
			log="${log// /_}"
			# shellcheck disable=SC2086 # args are words
			one "$log" "$lim" $args "$data" "$pat"
			local dbg
			dbg=$(grep 'msg="stmatch: count"' "$log" | tail -n 1)
			printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$qname" "$key" "$c_count" "$c_ms" "$(jfield kernel_ms "$c_json")" \
				"$(field device_bytes "$dbg")" "$(field host_bytes "$dbg")" >> "$out/runs.tsv"
			if [ "$key" = auto ]; then
				local why
				why=$(jfield auto "$c_json")
				auto="$(jfield engine "$c_json")"
				case "$why" in
				*"runs with the graph in host memory"*) auto+=" zero-copy" ;;
				*"runs with the graph in managed memory"*) auto+=" managed" ;;
				*"runs with the GPU backend"*) auto+=" gpu" ;;
				esac
				[ "$c_count" = error ] && auto+=" (error)"
				auto+=", $c_ms ms"
				grep -h '^engine: ' "$log" | head -n 1 | cut -c1-600 >> "$out/auto.txt"
			fi
			case "$c_count" in
			error | ">"*) cells+=("$c_count") ;;
			*)
				cells+=("$c_ms")
				counts+=("$key=$c_count")
				[ -z "$ref" ] && ref="$c_count"
				;;
			esac
			[ "$c_count" = error ] && echo "# $name $qname $key: $(jfield error "$c_json" | cut -c1-160)"
		done
		local verdict="equal ($ref)" c
		[ -z "$ref" ] && verdict="none finished"
		for c in "${counts[@]}"; do
			[ "${c#*=}" = "$ref" ] || verdict="DIFFER: ${counts[*]}"
		done
		printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$name" "$qname" "$bcell" \
			"${cells[0]:-}" "${cells[1]:-}" "${cells[2]:-}" "${cells[3]:-}" "${cells[4]:-}" "${cells[5]:-}" "${cells[6]:-}" "${cells[7]:-}" "$verdict" "${auto:-not run}" | tee -a "$out/table.md"
	done
	echo "# auto's reasons: $out/auto.txt; every run: $out/runs.tsv"
	echo "# total $((SECONDS - t0)) s"
}

dispatch "$@"
