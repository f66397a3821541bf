#!/usr/bin/env bash
# GPU check (and, later, benchmark) run of submatch.
#
#   scripts/gpu-check.sh build   on a machine with Go: builds bin/submatch and bin/gpu.test
#                                (CGO_ENABLED=0, so they run on any x86-64 Linux with glibc) and
#                                copies the test data they need into bin/testdata/; the test
#                                binaries are gzipped (the device tool carries 64 MiB at most)
#                                and run unpacks them.
#   scripts/gpu-check.sh run     on the GPU machine (no Go needed): runs bin/submatch gpu-info,
#                                the GPU tests (CountTriangles against the CPU count on wiki-Vote
#                                and random graphs, buffers, budget, compile cache...), and prints
#                                a short table last. Logs go to $OUT (default bin/out).
#                                ONLY=geneva, ONLY=stmatch or ONLY=sgsi runs that engine's tests alone (with
#                                gpu-info; at build, ONLY=stmatch builds only its tests, ONLY=sgsi
#                                only sgsi's besides gpu.test and geneva.test); GENEVA_RUN=regexp selects the GENEVA tests,
#                                STMATCH_RUN=regexp (default ^TestGPU: the rest runs in CI) and STMATCH_TIMEOUT=duration the stmatch ones
#                                (STMATCH_SKIP=regexp: what the first process skips; set, even empty, it
#                                runs every selected test in one process, without the second part);
#                                STMATCH_FIGURES=1 also runs the stmatch measurements; STOP_ALL=1 the stop
#                                latency of every STMatch pattern with stmatch, cpu and auto (STOP_ENGINES),
#                                --timeout 1s and SIGINT (scripts/stop-latency.sh, about 160 s more).
#                                The other packages with kernels (extra_packages below: gcsm,
#                                mining, temporal, pbe, sgsi, dcsm) run their GPU tests too. The parts
#                                run in six lanes side by side (stmatch in two processes, stmatch_b's
#                                tests then sgsi's other tests in the second; GENEVA, the runtime, pbe,
#                                temporal; sgsi's oracle sweeps on SGSI_SEEDS seeds (150); dcsm and
#                                gcsm; mining: 170-420 s each on the H100 of 2026-12-06, so give it
#                                DEADLINE=540), then the stop latency of --timeout 1s on the slowest
#                                STMatch patterns alone, then a short table.
#                                DEADLINE=SECONDS bounds every part (each gets at most what is left), so
#                                that the whole run fits one device call.
#
# bin/ is git-ignored; the device tool carries it with carry: ["bin"]:
#   run: command "DEADLINE=540 OUT=$OUT bash scripts/gpu-check.sh run > $OUT/0-run.log 2>&1", carry ["bin"]
# (the tool returns only the first files of $OUT by name: 0-run.log and 0-logs.tgz, every log).
set -u -o pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

# died reports a test binary that panicked or timed out: the tests it was running never print
# "--- FAIL", so the pass/fail counts alone would look clean.
died() {
	grep -q '^panic: ' "$1" || return 0
	echo "DIED: $(grep -m1 '^panic: ' "$1"); running: $(awk '/running tests:/{on=1; next} on && /^\t\t/{sub(/^\t+/, ""); printf "%s ", $0; next} {on=0}' "$1")"
}

build() {
	set -e
	local shared="${SUBMATCH_SHARED_TESTDATA:-$root/../shared/testdata}"
	mkdir -p bin
	if ! CGO_ENABLED=0 go build -trimpath -ldflags='-s -w' -o bin/submatch ./cmd/submatch; then
		echo "warning: cmd/submatch does not build now; bin/submatch is left out (run skips gpu-info)" >&2
		rm -f bin/submatch
	fi
	if [ "${ONLY:-}" != stmatch ]; then
		go vet ./gpu
		CGO_ENABLED=0 go test -c -trimpath -ldflags='-s -w' -o bin/gpu.test ./gpu
		# The same tests built with cgo (purego then goes through the real cgo runtime).
		if command -v gcc >/dev/null; then
			CGO_ENABLED=1 go test -c -trimpath -ldflags='-s -w' -o bin/gpu-cgo.test ./gpu
		fi
	fi
	# The stmatch engine's tests (GPU counts against the CPU engine).
	go vet ./engine/stmatch
	CGO_ENABLED=0 go test -c -trimpath -ldflags='-s -w' -o bin/stmatch.test ./engine/stmatch
	if [ "${ONLY:-}" != stmatch ]; then
		# The GENEVA engine's tests (GPU counts against the CPU engine and the oracle).
		go vet ./engine/geneva
		CGO_ENABLED=0 go test -c -trimpath -ldflags='-s -w' -o bin/geneva.test ./engine/geneva
	fi
	# The GPU tests of the other packages with kernels (see extra_packages), stripped to fit the
	# device tool's 64 MiB.
	if [ -z "${ONLY:-}" ] || [ "${ONLY:-}" = sgsi ]; then
		local spec
		for spec in "${extra_packages[@]}"; do
			set -- $spec
			[ -z "${5:-}" ] || continue # a second part of a binary built under another name
			[ -z "${ONLY:-}" ] || [ "$2" = "$ONLY" ] || continue
			go vet "./$1"
			CGO_ENABLED=0 go test -c -trimpath -ldflags='-s -w' -o "bin/$2.test" "./$1"
		done
	fi
	rm -rf bin/testdata
	mkdir -p bin/testdata/wikivote-graphpi
	cp "$shared/wikivote-graphpi/wiki-vote_input" "$shared/wikivote-graphpi/LICENSE" bin/testdata/wikivote-graphpi/
	mkdir -p bin/testdata/github-gmatch bin/testdata/hprd-subgraphmatching/query_graph
	cp -r "$shared/github-gmatch/data.graph" "$shared/github-gmatch/query_graph" \
		"$shared/github-gmatch/expected_output.res" "$shared/github-gmatch/LICENSE" bin/testdata/github-gmatch/
	cp "$shared/hprd-subgraphmatching/HPRD.graph" "$shared/hprd-subgraphmatching/LICENSE" bin/testdata/hprd-subgraphmatching/
	# STMatch's patterns (scripts/bench-device.sh stmatch24 with BIN=bin).
	cp -r "$shared/stmatch-patterns" bin/testdata/
	# The continuous-matching workload (gcsm, dcsm), email-Eu-core, citeseer and CollegeMsg (mining, temporal).
	cp -r "$shared/csm-email10" "$shared/email-eu-core" "$shared/collegemsg-temporal" "$shared/citeseer-graphminer" bin/testdata/
	# The first 20 HPRD queries (the stmatch test reads the first 20 names of the expected file).
	head -n 20 "$shared/hprd-subgraphmatching/expected_output.res" > bin/testdata/hprd-subgraphmatching/expected_output.res
	cut -d: -f1 bin/testdata/hprd-subgraphmatching/expected_output.res | while read -r q; do
		cp "$shared/hprd-subgraphmatching/query_graph/$q.graph" bin/testdata/hprd-subgraphmatching/query_graph/
	done
	# Held-out github queries (not in the repository), for TestGPUHeldOut.
	if [ -n "${SUBMATCH_EXTRA_QUERIES:-}" ]; then
		mkdir -p bin/testdata/github-extra
		cp "$SUBMATCH_EXTRA_QUERIES"/*.graph bin/testdata/github-extra/
	fi
	chmod -R u+w bin/testdata
	# The device tool carries at most 64 MiB: the test binaries travel compressed (run unpacks).
	rm -f bin/*.test.gz
	gzip -9 bin/*.test
	du -sh bin
	echo "built: $(ls bin | tr '\n' ' ')"
}

run() {
	local out="${OUT:-$root/bin/out}"
	mkdir -p "$out"
	local status=0
	# left N: the seconds a part may take, N at most (with DEADLINE set, what is left of DEADLINE
	# seconds since the start, so that the whole run fits one device call).
	left() {
		local n=$1
		if [ -n "${DEADLINE:-}" ]; then
			local rest=$((DEADLINE - SECONDS))
			[ "$rest" -lt "$n" ] && n=$rest
			[ "$n" -lt 5 ] && n=5
		fi
		echo "$n"
	}
	local gz
	for gz in bin/*.test.gz; do
		[ -e "$gz" ] && { gunzip -f "$gz" || exit 2; }
	done
	local need=bin/gpu.test
	[ -n "${ONLY:-}" ] && need=bin/$ONLY.test
	for f in $need bin/testdata/wikivote-graphpi/wiki-vote_input; do
		[ -e "$f" ] || { echo "missing $f: run 'scripts/gpu-check.sh build' on a machine with Go first" >&2; exit 2; }
	done
	echo "== $(date -u '+%Y-%m-%d %H:%M:%S UTC') on $(hostname)"
	command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,memory.total,memory.used --format=csv
	echo
	local sm=bin/submatch
	[ -x "$sm" ] || { echo "warning: no bin/submatch: gpu-info skipped"; sm=true; }
	# --engine auto before any kernel is compiled (an empty cache, whatever this machine holds):
	# the first count must weigh NVRTC's compile (expected: cpu, and --explain saying why), and
	# a --timeout shorter than the compile must still stop on time and say why it is partial.
	local wv=bin/testdata/wikivote-graphpi/wiki-vote_input q1 cold t0
	q1=$(awk -F'\t' '$1 == "q1" {print $2}' bin/testdata/stmatch-patterns/wikivote-unlabelled.tsv)
	if [ -n "$q1" ] && [ "$sm" != true ]; then
		echo "== a cold kernel cache: auto on q1 (expected cpu, the compile in --explain), then stmatch with --timeout 2s"
		cold=$(mktemp -d)
		SUBMATCH_KERNEL_CACHE=$cold $sm count --explain --timeout 20s "$wv" "$q1" > "$out/cold-auto.txt" 2>&1
		grep -E '^engine:|not compiled|^\(a\)' "$out/cold-auto.txt" | cut -c1-400
		cold=$(mktemp -d)
		t0=$(date +%s%N)
		SUBMATCH_KERNEL_CACHE=$cold $sm count --engine stmatch --timeout 2s "$wv" "$q1" > "$out/cold-stop.txt" 2>&1
		echo "exit $?, $(( ($(date +%s%N) - t0) / 1000000 )) ms: $(tail -n 1 "$out/cold-stop.txt" | cut -c1-300)"
		echo
	fi
	echo "== submatch gpu-info --compile (cold kernel cache)"
	$sm gpu-info --compile 2>&1 | tee "$out/gpu-info.txt" || status=1
	# q10 on the warm cache: since the CPU engine's dense-pattern work (cpudense, cpu7) it takes
	# about 4.5 s on 2 threads of the VM (under 1 s on 16 cores) against stmatch's 1 s, and auto
	# chooses cpu (2026-12-06, H100: estimated 4.8e7 nodes, under the GPU threshold 7.2e7).
	local q10
	q10=$(awk -F'\t' '$1 == "q10" {print $2}' bin/testdata/stmatch-patterns/wikivote-unlabelled.tsv)
	if [ -n "$q10" ] && [ "$sm" != true ]; then
		echo "== the warm cache: auto on q10 (expected cpu, near the GPU threshold)"
		$sm count --explain --timeout 20s "$wv" "$q10" 2>&1 | grep -E '^engine:|^\(a\)' | cut -c1-300
	fi
	$sm gpu-info --json > "$out/gpu-info.json" 2>&1
	local only="${ONLY:-}"
	# The parts run in lanes, side by side: the device host has 16 cores and most of a test's time
	# is its CPU reference counts and kernel compiles, while the GPU time-slices the processes.
	# A part's exit status and wall seconds go to $out/NAME.rc and $out/NAME.secs.
	part() { # NAME SECONDS CMD...: CMD with at most SECONDS (what DEADLINE leaves), log in $out/NAME-test.log
		local name=$1 secs=$2 t0=$SECONDS
		shift 2
		SUBMATCH_TESTDATA="$root/bin/testdata" timeout "$(left "$secs")" "$@" > "$out/$name-test.log" 2>&1
		echo $? > "$out/$name.rc"
		echo $((SECONDS - t0)) > "$out/$name.secs"
	}
	lane_extras() { # the packages of extra_packages whose NAME matches $1
		local spec names=$1
		for spec in "${extra_packages[@]}"; do
			set -- $spec
			[[ "$2" =~ ^($names)$ ]] || continue
			local bin="bin/${5:-$2}.test"
			[ -x "$bin" ] || { echo "not built" > "$out/$2.rc"; continue; }
			# stmatch's second part records its comparisons beside the first's (merged after).
			SUBMATCH_STMATCH_RESULTS="$out/$2-results.tsv" SUBMATCH_STMATCH_VERSIONS="$out/$2-versions.tsv" \
				part "$2" "$4" "$bin" -test.v -test.count=1 -test.run "$3"
		done
	}
	lane_stmatch() {
		rm -f "$out/stmatch.tsv" "$out/stmatch-versions.tsv" "$out/stmatch-b-results.tsv" "$out/stmatch-b-versions.tsv"
		local figures=""
		[ -n "${STMATCH_FIGURES:-}" ] && figures="$out/stmatch-figures.tsv" && rm -f "$figures"
		SUBMATCH_STMATCH_RESULTS="$out/stmatch.tsv" SUBMATCH_STMATCH_VERSIONS="$out/stmatch-versions.tsv" \
			SUBMATCH_STMATCH_FIGURES="$figures" part stmatch "$(left 540)" \
			bin/stmatch.test -test.v -test.count=1 -test.timeout="${STMATCH_TIMEOUT:-$(left 530)s}" -test.run "${STMATCH_RUN:-^TestGPU}" \
			-test.skip "${STMATCH_SKIP:-$stmatch_b}"
	}
	lane_runtime() { # GENEVA's tests, then the runtime's (and their cgo-built subset), then pbe's and temporal's
		if [ -x bin/geneva.test ] && [ -z "$only" -o "$only" = geneva ]; then
			rm -f "$out/geneva.tsv"
			SUBMATCH_GENEVA_RESULTS="$out/geneva.tsv" part geneva 400 \
				bin/geneva.test -test.v -test.count=1 -test.timeout=9m -test.run "${GENEVA_RUN:-TestGPU|TestCompileKernel}"
		fi
		[ -z "$only" ] || return 0
		rm -f "$out/results.tsv"
		SUBMATCH_RESULTS="$out/results.tsv" part gpu 300 bin/gpu.test -test.v -test.count=1 -test.timeout=8m
		if [ -x bin/gpu-cgo.test ]; then
			part gpu-cgo 180 bin/gpu-cgo.test -test.v -test.count=1 -test.timeout=3m \
				-test.run 'TestGPU(Info|WorkerThread|Buffers|OutOfMemoryIsBudgetError|TrianglesWikiVote)$'
		fi
		lane_extras 'pbe|temporal'
	}
	# sgsi's other tests follow stmatch's second part (144 s on the H100 of 2026-12-06; sgsi-b about
	# 270 s beside three other lanes), not a lane of their own: five processes time-slicing the GPU
	# made sgsi's many small synchronous copies wait (its two parts ran out of 400 s each in the
	# five-lane run of 2026-12-01). They followed the runtime lane until pbe's inter tests
	# (130 s) left them 21 s of a 360 s run (2026-12-06).
	lane_sgsi_b() { SUBMATCH_SGSI_RANDOM=${SUBMATCH_SGSI_RANDOM:-8} lane_extras sgsi-b; }
	echo
	echo "== GPU tests in six lanes side by side (logs: \$OUT/NAME-test.log)"
	local lanes=()
	if [ -x bin/stmatch.test ] && [ -z "${SKIP_STMATCH:-}" ] && [ -z "$only" -o "$only" = stmatch ]; then
		lane_stmatch &
		lanes+=($!)
		if [ -z "${STMATCH_SKIP+x}" ]; then
			{ lane_extras stmatch-b; [ -n "$only" ] || lane_sgsi_b; } &
			lanes+=($!)
		elif [ -z "$only" ]; then
			lane_sgsi_b &
			lanes+=($!)
		fi
	elif [ -z "$only" ]; then
		lane_sgsi_b &
		lanes+=($!)
	fi
	lane_runtime &
	lanes+=($!)
	if [ "$only" = sgsi ]; then # sgsi's two parts alone
		(export SUBMATCH_ORACLE_SEEDS=${SGSI_SEEDS:-150}; lane_extras sgsi) &
		lanes+=($!)
		lane_sgsi_b &
		lanes+=($!)
	fi
	if [ -z "$only" ]; then
		# sgsi's oracle sweeps on fewer seeds than their deep default (the host emulation runs
		# the same cases in CI): 150 of Property's 300, and 150 for Dense.
		(export SUBMATCH_ORACLE_SEEDS=${SGSI_SEEDS:-150}; lane_extras sgsi) &
		lanes+=($!)
		lane_extras 'dcsm|gcsm' &
		lanes+=($!)
		# dcsm's TestGPUEmit alone: 136-178 s on a loaded host, it ran the shared lane past its
		# cap on 2026-12-06 (09:30).
		lane_extras dcsm-emit &
		lanes+=($!)
		lane_extras mining &
		lanes+=($!)
	fi
	wait "${lanes[@]}"
	echo "all lanes done after $SECONDS s"
	[ -s "$out/stmatch-b-results.tsv" ] && cat "$out/stmatch-b-results.tsv" >> "$out/stmatch.tsv"
	[ -s "$out/stmatch-b-versions.tsv" ] && cat "$out/stmatch-b-versions.tsv" >> "$out/stmatch-versions.tsv"
	if [ -z "$only" ]; then
		# The stop latency (scripts/stop-latency.sh, alone on the GPU): stmatch's --timeout 1s on
		# STMatch's slowest patterns; with STOP_ALL every pattern with stmatch, cpu and auto
		# (STOP_ENGINES), --timeout 1s and SIGINT: about 160 s more on the H200 host.
		echo
		if [ -n "${STOP_ALL:-}" ]; then
			echo "== stop latency over the 24 patterns (STOP_ALL)"
			TESTDATA=bin/testdata ENGINES="${STOP_ENGINES:-stmatch cpu auto}" bash scripts/stop-latency.sh "$sm" >"$out/stop-latency.txt"
		else
			echo "== stop latency: --timeout 1s on STMatch's slowest patterns (whole process)"
			TESTDATA=bin/testdata PATTERNS="q18 q20 q19 q14" ENGINES=stmatch STOPS=timeout bash scripts/stop-latency.sh "$sm" >"$out/stop-latency.txt"
		fi
		grep -v '^q' "$out/stop-latency.txt" | tail -n +2
		grep -E '^q(18|19|20|14) +stmatch +timeout' "$out/stop-latency.txt"
	fi
	# rc NAME: a part's exit status ("skipped" when it did not run)
	rc() { if [ -e "$out/$1.rc" ]; then cat "$out/$1.rc"; else echo skipped; fi; }
	local name
	for name in stmatch geneva gpu gpu-cgo "${extra_names[@]}"; do
		case "$(rc "$name")" in 0 | skipped) ;; *) status=1 ;; esac
	done
	local trc crc src grc
	trc=$(rc gpu) crc=$(rc gpu-cgo) src=$(rc stmatch) grc=$(rc geneva)
	echo
	echo "== submatch gpu-info --compile (warm kernel cache)"
	$sm gpu-info --compile 2>&1 | sed -n '/^kernels:/,$p'
	echo
	echo "== summary"
	if [ -e "$out/gpu-test.log" ]; then
	grep -E '^(--- |ok|FAIL|PASS)' "$out/gpu-test.log" | grep -v '^--- PASS' || true
	printf '%-26s %9s %9s %12s %12s %9s %10s %9s %s\n' graph vertices edges cpu gpu cpu_ms kernel_ms call_ms check
	if [ -s "$out/results.tsv" ]; then
		awk -F'\t' '{printf "%-26s %9s %9s %12s %12s %9s %10s %9s %s\n", $1, $2, $3, $4, $5, $6, $7, $8, $9}' "$out/results.tsv"
	else
		echo "(no GPU results: see the test log)"
	fi
	local pass fail skip
	pass=$(grep -c '^--- PASS' "$out/gpu-test.log"); fail=$(grep -c '^--- FAIL' "$out/gpu-test.log"); skip=$(grep -c '^--- SKIP' "$out/gpu-test.log")
	echo "tests: $pass passed, $fail failed, $skip skipped; test binary exit $trc; cgo-built subset exit $crc"
	fi
	if [ -z "$only" -o "$only" = stmatch ]; then
	echo
	echo "== stmatch engine: GPU against CPU"
	if [ -s "$out/stmatch.tsv" ]; then
		printf '%-40s %14s %14s %-8s %11s %10s %6s\n' case cpu gpu match kernel_ms call_ms warps
		awk -F'\t' '{printf "%-40s %14s %14s %-8s %11s %10s %6s\n", $1, $2, $3, $4, $5, $6, $7}' "$out/stmatch.tsv"
		echo "cases: $(wc -l < "$out/stmatch.tsv"), mismatches: $(grep -vc $'\tok\t' "$out/stmatch.tsv")"
	else
		echo "(no stmatch results: see the test log)"
	fi
	if [ -s "$out/stmatch-versions.tsv" ]; then
		echo
		echo "== stmatch: v1 kernel against v2 (kernel ms, best of 2; every count checked against the CPU)"
		printf '%-32s %9s %10s %10s %11s %10s %11s %9s %8s %9s %9s %8s\n' case v1 v2-nosplit v2-noreuse v2-noleaves v2-nosteal v2-slice1ms v2 speedup unroll-cl cliques counts
		awk -F'\t' '{k[$1]=1; if (!($1 in ord)) {ord[$1]=++n; name[n]=$1}; t[$1,$2]=$6; if ($5!="ok") bad[$1]=1}
			END {for (i=1;i<=n;i++) {c=name[i]; sp=(t[c,"v2"]>0)?sprintf("%.2fx", t[c,"v1"]/t[c,"v2"]):"-";
				printf "%-32s %9s %10s %10s %11s %10s %11s %9s %8s %9s %9s %8s\n", c, t[c,"v1"], t[c,"v2-nosplit"], t[c,"v2-noreuse"], t[c,"v2-noleaves"], t[c,"v2-nosteal"], t[c,"v2-slice1ms"], t[c,"v2"], sp, t[c,"v2-unroll-classes"], t[c,"cliques"], (c in bad)?"MISMATCH":"ok"}}' "$out/stmatch-versions.tsv"
	fi
	if [ -s "$out/stmatch-figures.tsv" ]; then
		echo
		echo "== stmatch figures (best of 3; measurement only, STMATCH_FIGURES=1)"
		printf '%-48s %16s %4s %11s %10s %16s %s\n' case count gpus kernel_ms call_ms cpu check
		awk -F'\t' '{printf "%-48s %16s %4s %11s %10s %16s %s\n", $1, $2, $3, $4, $5, $6, $7}' "$out/stmatch-figures.tsv"
	fi
	if [ -e "$out/stmatch-test.log" ]; then
		grep -E '^(--- |ok|FAIL|PASS)' "$out/stmatch-test.log" | grep -v '^--- PASS' || true
		died "$out/stmatch-test.log"
		echo "stmatch tests: $(grep -c '^--- PASS' "$out/stmatch-test.log") passed, $(grep -c '^--- FAIL' "$out/stmatch-test.log") failed, $(grep -c '^--- SKIP' "$out/stmatch-test.log") skipped; exit $src"
	fi
	fi
	if [ -s "$out/geneva.tsv" ]; then
		echo
		echo "== geneva engine: GPU against CPU (variants: phases, sv = single-vertex phases, tiny = 256 KiB of tables)"
		printf '%-44s %-7s %14s %14s %-8s %10s %10s %10s %8s %7s %7s\n' case variant cpu gpu check kernel_ms call_ms cpu_ms launches chunks windows
		awk -F'\t' '{printf "%-44s %-7s %14s %14s %-8s %10s %10s %10s %8s %7s %7s\n", substr($1,1,44), $2, $3, $4, $5, $6, $7, $8, $9, $10, $11}' "$out/geneva.tsv"
		echo "geneva cases: $(wc -l < "$out/geneva.tsv"), ok $(grep -c $'\tok\t' "$out/geneva.tsv"), timeouts $(grep -c $'\ttimeout\t' "$out/geneva.tsv"), mismatches/errors $(grep -Ec $'\t(MISMATCH|ERROR)\t' "$out/geneva.tsv")"
	fi
	if [ -e "$out/geneva-test.log" ]; then
		died "$out/geneva-test.log"
		echo "geneva tests: $(grep -c '^--- PASS' "$out/geneva-test.log") passed, $(grep -c '^--- FAIL' "$out/geneva-test.log") failed, $(grep -c '^--- SKIP' "$out/geneva-test.log") skipped; exit $grc"
	fi
	echo
	echo "== other packages' GPU tests"
	for name in "${extra_names[@]}"; do
		[ -e "$out/$name-test.log" ] || { echo "$name: $(rc "$name")"; continue; }
		grep -E '^(--- FAIL|FAIL|panic)' "$out/$name-test.log" | head -10
		died "$out/$name-test.log"
		echo "$name: $(grep -c '^--- PASS' "$out/$name-test.log") passed, $(grep -c '^--- FAIL' "$out/$name-test.log") failed, exit $(rc "$name"), $(cat "$out/$name.secs") s"
	done
	for name in stmatch geneva gpu gpu-cgo; do
		[ -e "$out/$name.secs" ] && echo "$name: exit $(rc "$name"), $(cat "$out/$name.secs") s"
	done
	# The device tool brings back only the first few files of $OUT (by name): every log also
	# travels in one archive whose name sorts first.
	tar czf "$out/0-logs.tgz" -C "$out" --exclude 0-logs.tgz --exclude 0-run.log . 2>/dev/null
	exit $status
}

# extra_packages: the other packages with GPU tests, "PACKAGE NAME RUN-REGEXP TIMEOUT-SECONDS
# [BINARY]"; with BINARY, NAME is a second part of bin/BINARY.test (run in a lane of its own).
# stmatch's tests run in two processes side by side (its lane alone took 337 s of a 351-s run on
# 2026-12-02): stmatch_b's in the second, the rest (TestGPUZTinyBudget last) in the first.
stmatch_b='TestGPU(Random|Versions|IsolatedLeaves|WikiVote|Listing)$'
extra_packages=(
	"engine/stmatch stmatch-b $stmatch_b 500 stmatch"
	"csm/gcsm gcsm TestGPU|TestEmulation 200"
	"mining mining TestGPU 300"
	"temporal temporal TestGPU 150"
	"engine/pbe pbe TestDeviceAgainstCPU|TestDeviceInter 240"
	"engine/sgsi sgsi TestGPU(Property|Dense)$ 500"
	"engine/sgsi sgsi-b TestGPU(Random|LongLists|Listing|GitHub|HPRD|WikiVote|LimitAboveFree|StagingSampled|PipelineStaging|SymmetricOutOfCore|Direct|Balance|PoolBatches)$ 450 sgsi"
	"csm/dcsm dcsm TestGPU(Random|Email10|Utilisation|MemoryFlat|Window)$ 200"
	"csm/dcsm dcsm-emit TestGPUEmit$ 300 dcsm"
)
extra_names=()
for spec in "${extra_packages[@]}"; do
	read -r _ name _ <<< "$spec"
	extra_names+=("$name")
done

case "${1:-}" in
build) build ;;
run) run ;;
*) echo "usage: $0 build|run" >&2; exit 2 ;;
esac
