#!/usr/bin/env bash
# The GCSM engine's device check and measurements (csm/gcsm).
#
#   scripts/gcsm-check.sh build [DIR]   on a machine with Go: builds DIR/gcsm.test and DIR/submatch
#                                       (CGO_ENABLED=0) and copies csm-email10 into DIR/testdata
#                                       (DIR default .dev-gcsm, git-ignored).
#   scripts/gcsm-check.sh run [DIR]     on the GPU machine (no Go needed): the GPU tests (the kernel
#                                       against the CPU engine on random streams in every convention
#                                       and mode, budget large and tiny, and on email10), then
#                                       `watch --engine gcsm` against `--engine cpu` on email10 (counts,
#                                       and --emit matches on 2,000 updates), then
#                                       (BENCH=1, only when the checks pass) TestGPUBench. Logs and
#                                       bench.tsv go to $OUT (default DIR/out); a summary is printed last.
#                                       WATCH=0 skips the watch comparisons; CHECK_TIMEOUT and
#                                       BENCH_TIMEOUT (seconds, default 300 and 360) bound the tests
#                                       and the bench (a bench cut short keeps the rows it wrote).
#                                       SUITE=modes (at most about 220 s): the GPU tests (not
#                                       TestGPUStop, no watch comparisons; at most 70 s), then
#                                       TestGPUBench on R-MAT scale 20 at 90 MiB (the graph about
#                                       4.2x the budget; diamond and house, 4 and 5 vertices)
#                                       together, in batches of 64, 512, 4,096 and 8,192, modes
#                                       cache, cache+full (the cache rebuilt at every phase, as
#                                       before branch gcsm6), zerocopy, degree, degree+full and
#                                       cache-sampled beside the CPU engine on every core, medians
#                                       of 3 batches; then (GCSM_P6_BATCHES, default 64,512) the
#                                       6-vertex pattern kite6 alone in modes GCSM_P6_MODES (cache,
#                                       cache+full, degree: no cpu, whose counts take seconds a
#                                       batch there; the modes' counts are checked against each
#                                       other); at most 150 s; then a table of
#                                       the medians and of cache's speedups (the other's time over
#                                       cache's) per workload. Each variable it sets may be given
#                                       instead.
#                                       REORG=1 (after the rest, whatever its status): the host
#                                       graph's reorganisation on R-MAT scale 23 (about 10^8 edges,
#                                       6 GB of host memory; TestReorganisation, REORG_TIMEOUT
#                                       seconds, default 120), on every core.
#
# Device tool: run command "bash DIR/gcsm-check.sh run DIR" with carry [DIR] (the build copies this
# script into DIR, since the device machine gets the main checkout's tree).
set -u -o pipefail
mode="${1:-run}"
dir="${2:-.dev-gcsm}"

build() {
	set -e
	local root
	. "$(dirname "${BASH_SOURCE[0]}")/csm-build.sh"
	csm_build gcsm
	head -2000 "$dir/testdata/csm-email10/updates.stream" >"$dir/testdata/u2000.stream"
	du -sh "$dir"
}

# watch_checks: `watch --engine gcsm` against `--engine cpu` on email10 (counts in three
# conventions, and --emit matches on 2,000 updates); fails when any differs.
watch_checks() {
	local status=0
	echo "== watch --engine gcsm against --engine cpu (email10, q4_1 q6_1, batches of 1000, all conventions)"
	local e="$dir/testdata/csm-email10"
	for conv in "" --unique --induced; do
		for eng in cpu gcsm; do
			"$dir/submatch" watch --engine $eng $conv --batch 1000 --on-invalid skip --initial \
				"$e/initial.graph" "$e/queries/q4_1.graph" "$e/queries/q6_1.graph" --updates "$e/updates.stream" \
				2>"$out/watch-$eng$conv.err" | grep -v '^#' >"$out/watch-$eng$conv.tsv"
		done
		if cmp -s "$out/watch-cpu$conv.tsv" "$out/watch-gcsm$conv.tsv" && [ -s "$out/watch-cpu$conv.tsv" ]; then
			echo "watch ${conv:-(embeddings)}: equal ($(wc -l <"$out/watch-cpu$conv.tsv") lines); last: $(tail -1 "$out/watch-gcsm$conv.tsv")"
		else
			echo "watch ${conv:-(embeddings)}: DIFFERENT"; status=1
			diff "$out/watch-cpu$conv.tsv" "$out/watch-gcsm$conv.tsv" | head -5; cat "$out/watch-gcsm$conv.err" | head -5
		fi
	done
	echo "== watch --emit matches, gcsm against cpu (email10's first 2,000 updates, q4_1 q6_1, sorted)"
	for eng in cpu gcsm; do
		"$dir/submatch" watch --engine $eng --emit matches --batch 500 --on-invalid skip \
			"$e/initial.graph" "$e/queries/q4_1.graph" "$e/queries/q6_1.graph" --updates "$dir/testdata/u2000.stream" \
			2>"$out/matches-$eng.err" | grep -v '^#' | sort >"$out/matches-$eng.txt"
	done
	if cmp -s "$out/matches-cpu.txt" "$out/matches-gcsm.txt" && [ -s "$out/matches-cpu.txt" ]; then
		echo "watch --emit matches: equal ($(wc -l <"$out/matches-cpu.txt") lines)"
	else
		echo "watch --emit matches: DIFFERENT"; status=1
		head -5 "$out/matches-gcsm.err"
	fi
	return $status
}

# modes_table: the medians of bench.tsv's modes per batch size (the modes in the order they ran),
# cache's speedup over each other mode (its median time over cache's), and each other GPU mode's
# speedup over zerocopy (X/zerocopy: zerocopy's time over X's).
modes_table() {
	awk -F'\t' '
	NR > 1 { ms[$4, $5] = $7; if (!($4 in seen)) { seen[$4] = 1; bs[nb++] = $4 + 0 } if (!($5 in known)) { known[$5] = 1; md[nm++] = $5 } }
	function r(m, b, ref) { return (ms[b, m] > 0 && ms[b, ref] > 0) ? sprintf("%.2fx", ms[b, m] / ms[b, ref]) : "-" }
	function v(m, b) { return ((b, m) in ms) ? ms[b, m] : "-" }
	END {
		for (i = 1; i < nb; i++) for (j = i; j > 0 && bs[j-1] > bs[j]; j--) { t = bs[j]; bs[j] = bs[j-1]; bs[j-1] = t }
		printf "batch"
		for (k = 0; k < nm; k++) printf "\t%s_ms", md[k]
		for (k = 0; k < nm; k++) if (md[k] != "cache") printf "\tcache/%s", md[k]
		for (k = 0; k < nm; k++) if (md[k] != "cache" && md[k] != "zerocopy" && md[k] != "cpu") printf "\t%s/zerocopy", md[k]
		printf "\n"
		for (i = 0; i < nb; i++) {
			b = bs[i]
			printf "%d", b
			for (k = 0; k < nm; k++) printf "\t%s", v(md[k], b)
			for (k = 0; k < nm; k++) if (md[k] != "cache") printf "\t%s", r(md[k], b, "cache")
			for (k = 0; k < nm; k++) if (md[k] != "cache" && md[k] != "zerocopy" && md[k] != "cpu") printf "\t%s", r("zerocopy", b, md[k])
			printf "\n"
		}
	}' "$1" | { command -v column >/dev/null && column -t -s $'\t' || cat; } # (the device has no column)
}

run() {
	local out="${OUT:-$dir/out}"
	mkdir -p "$out"
	local status=0
	if [ "${SUITE:-}" = modes ]; then
		: "${RUN:=TestGPURandom|TestGPUEngine|TestGPUEmail10|TestGPUEmit|TestNoGPU}"
		: "${WATCH:=0}" "${BENCH:=1}" "${CHECK_TIMEOUT:=70}" "${BENCH_TIMEOUT:=150}" "${SCALE:=20}"
		: "${GCSM_EMAIL:=0}" "${GCSM_ROUNDS:=3}" "${GCSM_COVERAGE:=0}" "${GCSM_BATCHES:=64,512,4096,8192}"
		: "${GCSM_MODES:=cpu,cache,cache+full,zerocopy,degree,degree+full,cache-sampled}" "${GCSM_BUDGET_MIB:=90}"
		: "${GCSM_P6_BATCHES:=64,512}" "${GCSM_P6_MODES:=cache,cache+full,degree}"
		export GCSM_EMAIL GCSM_ROUNDS GCSM_COVERAGE GCSM_BATCHES GCSM_MODES GCSM_BUDGET_MIB GCSM_P6_BATCHES GCSM_P6_MODES
	fi
	nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 | tee "$out/device.txt"
	nproc | sed 's/^/host cores: /' | tee -a "$out/device.txt"
	date -u +"%Y-%m-%d %H:%M UTC" | tee -a "$out/device.txt"
	echo "== GPU tests"
	SUBMATCH_TESTDATA="$dir/testdata" timeout "${CHECK_TIMEOUT:-300}" "$dir/gcsm.test" -test.v -test.count=1 \
		-test.run "${RUN:-TestGPURandom|TestGPUEngine|TestGPUEmail10|TestGPUEmit|TestGPUStop|TestEmulation|TestSpilledEmulation|TestNoGPU}" >"$out/check.log" 2>&1 || status=1
	grep -E '^(--- |=== RUN|ok|FAIL|PASS|panic)|gpu_test.go' "$out/check.log" | grep -v '=== RUN' | tail -40
	if [ "${WATCH:-1}" != 0 ]; then
		watch_checks || status=1
	fi
	if [ "${BENCH:-0}" = 1 ] && [ $status = 0 ]; then
		echo "== TestGPUBench"
		GCSM_BENCH=1 GCSM_OUT="$out" GCSM_RMAT_SCALE="${SCALE:-20}" SUBMATCH_TESTDATA="$dir/testdata" \
			timeout "${BENCH_TIMEOUT:-360}" "$dir/gcsm.test" -test.v -test.count=1 -test.run TestGPUBench -test.timeout 20m >"$out/bench.log" 2>&1 || status=1
		grep -E 'open|skipped|budget|FAIL|panic|ok|PASS' "$out/bench.log" | tail -20
		column -t -s $'\t' "$out/bench.tsv" 2>/dev/null || cat "$out/bench.tsv"
		if [ "${SUITE:-}" = modes ] && [ -s "$out/bench.tsv" ]; then
			echo "== modes, $(nproc) host cores for cpu; medians of ${GCSM_ROUNDS} batches, ms; cache/X: X's time over cache's"
			: >"$out/modes.txt"
			cut -f1 "$out/bench.tsv" | tail -n +2 | awk '!seen[$0]++' | while IFS= read -r w; do
				echo "-- $w" | tee -a "$out/modes.txt"
				awk -F'\t' -v w="$w" 'NR == 1 || $1 == w' "$out/bench.tsv" >"$out/bench-w.tsv"
				modes_table "$out/bench-w.tsv" | tee -a "$out/modes.txt"
			done
			echo "== the cache's gathers: MB a batch (mean) and phases rebuilt, per mode and batch"
			awk -F'\t' 'NR > 1 && $5 != "cpu" && $5 != "zerocopy" { printf "%s\t%s\t%s\tfrom_gpu %s\tgathered %s MB\trebuilt %s\tcopy %s ms\testimate %s ms\n", $1, $4, $5, $8, $24, $25, $11, $10 }' "$out/bench.tsv" | tee "$out/gathers.txt"
		fi
	fi
	if [ "${REORG:-0}" = 1 ]; then
		echo "== TestReorganisation (R-MAT scale 23, batches of 8,192, $(nproc) cores)"
		GCSM_REORG=1 GOMEMLIMIT=8GiB timeout "${REORG_TIMEOUT:-120}" "$dir/gcsm.test" -test.v -test.count=1 \
			-test.run TestReorganisation -test.timeout 20m >"$out/reorg.log" 2>&1 || status=1
		grep -E 'R-MAT|median|FAIL|panic|ok|PASS' "$out/reorg.log" | tail -8
	fi
	echo "== summary: tests $(grep -c -- '--- PASS' "$out/check.log") passed, $(grep -c -- '--- FAIL' "$out/check.log") failed; status $status"
	return $status
}

case "$mode" in
build) build ;;
run) run ;;
*) echo "usage: $0 build|run [DIR]" >&2; exit 2 ;;
esac
