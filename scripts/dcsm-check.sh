#!/usr/bin/env bash
# The DCSM engine's device check and measurements (csm/dcsm).
#
#   scripts/dcsm-check.sh build [DIR]   on a machine with Go: builds DIR/dcsm.test, DIR/gpu.test and
#                                       DIR/submatch (CGO_ENABLED=0), copies csm-email10 into DIR/testdata and
#                                       makes the R-MAT workload there (DIR default .dev-dcsm).
#   scripts/dcsm-check.sh run [DIR]     on the GPU machine: the GPU tests, then watch --engine dcsm
#                                       against --engine cpu (per-update lines equal), throughput
#                                       (all updates at time 0) against the CPU engine on one thread
#                                       and GCSM at batch sizes 64..4096, response times at fixed
#                                       rates against GCSM with batches of 128, and a long stream's
#                                       memory. Results go to $OUT (default DIR/out). PARTS (default
#                                       "tests e10 conv lat rmat mem"; "quick": the gpu package's
#                                       DoHere, event and asynchronous-copy tests) picks the parts; QS the
#                                       email10 queries (default q4_1 q4_2 q6_1 q8_1); BATCHES
#                                       GCSM's batch sizes on email10 (default 64 .. 4096); ERATES
#                                       and RRATES the rates of the response times on email10
#                                       (default 1000 10000 100000) and R-MAT (1000 10000).
#
# R-MAT workload (DCSM's construction): `submatch gen rmat --scale 14 --vertex-labels 4 --seed 1`,
# edges in a random order (awk, seed 1); the initial graph holds the first 55%, the stream inserts
# the other 45%, then deletes 5% of all edges (drawn from the initial ones).
set -u -o pipefail
mode="${1:-run}"
dir="${2:-.dev-dcsm}"

build() {
	set -e
	local root
	. "$(dirname "${BASH_SOURCE[0]}")/csm-build.sh"
	csm_build dcsm
	(cd "$root" && CGO_ENABLED=0 go test -c -trimpath -o "$dir/gpu.test" ./gpu)
	rm -rf "$dir/testdata/rmat14w"
	"$dir/submatch" gen rmat --scale 14 --vertex-labels 4 --seed 1 -o "$dir/rmat14.sm" 2>/dev/null
	local out="$dir/testdata/rmat14w"
	mkdir -p "$out"
	awk -v out="$out" 'BEGIN{srand(1); n=0}
	  /^v /{print "v", $2, $3 > (out "/initial.graph")}
	  /^e /{e[n]=$2" "$3; n++}
	  END{
	    for(i=n-1;i>0;i--){j=int(rand()*(i+1)); t=e[i]; e[i]=e[j]; e[j]=t}
	    ni=int(n*0.55); nd=int(n*0.05)
	    for(i=0;i<ni;i++) print "e", e[i], 0 > (out "/initial.graph")
	    for(i=ni;i<n;i++) print "e", e[i], 0 > (out "/updates.stream")
	    for(i=0;i<nd;i++) print "-e", e[i], 0 > (out "/updates.stream")
	  }' "$dir/rmat14.sm"
	rm "$dir/rmat14.sm"
	du -sh "$dir"
}

# timed LABEL CMD...: runs CMD (timeout $TMO, default 60 s), keeps its per-update lines in
# $out/LABEL.body and prints LABEL, exit status and the summary's elapsed time (loading excluded).
timed() {
	local lab=$1
	shift
	timeout "${TMO:-60}" "$@" >"$out/run.out" 2>"$out/run.err"
	local rc=$?
	grep -v '^#' "$out/run.out" >"$out/$lab.body"
	local el resp
	el=$(grep '^# .* updates in ' "$out/run.out" | sed 's/.*up to line [0-9]*, //; s/; graph.*//')
	resp=$(grep '^# response time' "$out/run.out" | sed 's/^# response time //')
	printf '%s\trc=%s\t%s\t%s\n' "$lab" "$rc" "${el:--}" "$resp" | tee -a "$out/results.tsv"
	[ "$rc" = 0 ] || head -3 "$out/run.err"
	grep -h 'msg=dcsm' "$out/run.err" | tail -1
	grep -h 'msg=response' "$out/run.err" | tail -1
	grep -h '^# gpu:' "$out/run.out"
}

same() { # same A B: the per-update lines of two runs are equal
	if [ -s "$out/$1.body" ] && cmp -s "$out/$1.body" "$out/$2.body"; then
		echo "equal: $1 $2 ($(wc -l <"$out/$1.body") lines)" | tee -a "$out/results.tsv"
	else
		echo "DIFFERENT: $1 $2" | tee -a "$out/results.tsv"
		diff "$out/$1.body" "$out/$2.body" | head -4
	fi
}

run() {
	out="${OUT:-$dir/out}"
	mkdir -p "$out"
	local S="$dir/submatch" E="$dir/testdata/csm-email10" R="$dir/testdata/rmat14w"
	{
		nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
		echo "host cores: $(nproc); $(grep -m1 'model name' /proc/cpuinfo)"
		date -u +"%Y-%m-%d %H:%M UTC"
	} 2>&1 | tee "$out/device.txt"
	local parts=" ${PARTS:-tests e10 conv lat rmat mem} "
	want() { [[ "$parts" == *" $1 "* ]]; }
	if want quick && [ -x "$dir/gpu.test" ]; then
	echo "== the gpu package's calls dcsm's waves use (DoHere, events, asynchronous copies)"
	timeout 60 "$dir/gpu.test" -test.v -test.count=1 -test.run 'TestGPUDoHere|TestGPUEvents|TestGPUCopyToDeviceAsync' >"$out/quick.log" 2>&1
	echo "quick: exit $?"
	grep -E '^(--- |ok|FAIL|PASS|panic)' "$out/quick.log"
	fi
	if want tests; then
	echo "== GPU tests"
	SUBMATCH_TESTDATA="$dir/testdata" timeout 240 "$dir/dcsm.test" -test.v -test.count=1 \
		-test.run "${RUN:-TestGPU|TestKernelSyntax}" >"$out/check.log" 2>&1
	echo "tests: exit $?"
	grep -E '^(--- |ok|FAIL|PASS|panic)|_test.go' "$out/check.log" | tail -30
	fi

	if want e10; then
	echo "== throughput, email10 (all updates at time 0; elapsed excludes loading)"
	local q
	for q in ${QS:-q4_1 q4_2 q6_1 q8_1}; do
		local P="$E/queries/$q.graph" W=("$S" watch --on-invalid skip "$E/initial.graph")
		for rep in 1 2 3; do
			timed "e10-$q-cpu1-r$rep" "${W[@]}" "$P" --updates "$E/updates.stream" --engine cpu --threads 1
			timed "e10-$q-dcsm-r$rep" "${W[@]}" "$P" --updates "$E/updates.stream" --engine dcsm -v
		done
		same "e10-$q-cpu1-r1" "e10-$q-dcsm-r1"
		for b in ${BATCHES:-64 128 256 512 1024 2048 4096}; do
			timed "e10-$q-gcsm$b" "${W[@]}" "$P" --updates "$E/updates.stream" --engine gcsm --batch $b
		done
	done
	fi
	if want conv; then
	echo "== per-update equality, email10, q4_1 q6_1, conventions"
	local conv
	for conv in --unique --induced "--induced --unique"; do
		local c=${conv// /}
		timed "e10-conv$c-cpu" "$S" watch --engine cpu --on-invalid skip $conv "$E/initial.graph" "$E/queries/q4_1.graph" "$E/queries/q6_1.graph" --updates "$E/updates.stream"
		timed "e10-conv$c-dcsm" "$S" watch --on-invalid skip $conv "$E/initial.graph" "$E/queries/q4_1.graph" "$E/queries/q6_1.graph" --updates "$E/updates.stream" --engine dcsm
		same "e10-conv$c-cpu" "e10-conv$c-dcsm"
	done

	fi
	if want lat; then
	echo "== response time (arrival to result) at fixed rates (ERATES on email10, RRATES on R-MAT)"
	head -3000 "$E/updates.stream" >"$out/e10-3000.stream"
	head -4000 "$R/updates.stream" >"$out/r14-4000.stream"
	local rate C="(a:0)-(b:1)-(c:2)-(d:3)-(a)"
	timed "lat-e10-q4_1-cpu" "$S" watch --on-invalid skip "$E/initial.graph" "$E/queries/q4_1.graph" --updates "$out/e10-3000.stream" --engine cpu
	for rate in ${ERATES:-1000 10000 100000}; do
		timed "lat-e10-q4_1-dcsm-rate$rate" "$S" watch -v --on-invalid skip "$E/initial.graph" "$E/queries/q4_1.graph" --updates "$out/e10-3000.stream" --engine dcsm --rate $rate
		same "lat-e10-q4_1-cpu" "lat-e10-q4_1-dcsm-rate$rate"
		timed "lat-e10-q4_1-gcsm128-rate$rate" "$S" watch --on-invalid skip "$E/initial.graph" "$E/queries/q4_1.graph" --updates "$out/e10-3000.stream" --engine gcsm --batch 128 --rate $rate
	done
	timed "lat-r14-cycle-cpu" "$S" watch "$R/initial.graph" "$C" --updates "$out/r14-4000.stream" --engine cpu
	for rate in ${RRATES:-1000 10000}; do
		timed "lat-r14-cycle-dcsm-rate$rate" "$S" watch -v "$R/initial.graph" "$C" --updates "$out/r14-4000.stream" --engine dcsm --rate $rate
		same "lat-r14-cycle-cpu" "lat-r14-cycle-dcsm-rate$rate"
		timed "lat-r14-cycle-gcsm128-rate$rate" "$S" watch "$R/initial.graph" "$C" --updates "$out/r14-4000.stream" --engine gcsm --batch 128 --rate $rate
	done

	fi
	if want rmat; then
	echo "== throughput, R-MAT scale 14 (4 labels; 45% inserted, then 5% deleted)"
	local p pn=0
	for p in "(a:0)-(b:1)-(c:2)-(d:3)-(a)" "(a:0)-(b:1)-(c:2)-(d:3)-(a), (a)-(c)"; do
		pn=$((pn + 1))
		timed "r14-p$pn-cpu1" "$S" watch --engine cpu "$R/initial.graph" "$p" --updates "$R/updates.stream" --threads 1
		for rep in 1 2 3; do
			timed "r14-p$pn-dcsm-r$rep" "$S" watch -v "$R/initial.graph" "$p" --updates "$R/updates.stream" --engine dcsm
		done
		same "r14-p$pn-cpu1" "r14-p$pn-dcsm-r1"
		for b in ${RBATCHES-64 512 4096}; do
			TMO=25 timed "r14-p$pn-gcsm$b" "$S" watch "$R/initial.graph" "$p" --updates "$R/updates.stream" --engine gcsm --batch $b
		done
	done

	fi
	if want mem; then
	echo "== memory over a long stream"
	SUBMATCH_DCSM_UPDATES=${LONGN:-10000000} timeout 150 "$dir/dcsm.test" -test.v -test.count=1 -test.run TestGPUMemoryFlat >"$out/memory.log" 2>&1
	echo "memory: exit $?"
	grep -E 'memory_test|^(--- |ok|FAIL)' "$out/memory.log"
	fi
	rm -f "$out"/*.body "$out/run.out" "$out"/*.stream
}

case "$mode" in
build) build ;;
run) run ;;
*) echo "usage: $0 build|run [DIR]" >&2; exit 2 ;;
esac
