#!/usr/bin/env bash
# Stop latency (issue 17): how long after its deadline a count ends, over STMatch's 24 patterns on
# wiki-Vote, for each engine of ENGINES, stopped by --timeout 1s and by SIGINT one second after the
# start. Whole process, measured from outside: for --timeout, the process's wall time less the
# deadline; for SIGINT, the time from the signal to the exit. A count that ends before its
# deadline is reported as done (no latency). Prints one line a run and a summary (the worst
# latency per engine and stop).
#
#   scripts/stop-latency.sh [BINARY]      (default: builds ./cmd/submatch into a temporary folder)
#
# Knobs: ENGINES ("cpu auto"), STOPS ("timeout sigint"), DEADLINE_S (1), THREADS (the engine's
# default), PATTERNS (the 24, q1..q24; or a list such as "q18 q20"), TESTDATA (../shared/testdata
# beside the repository, or $SUBMATCH_TESTDATA). On the device host: copy the test data with
# scripts/gpu-check.sh build and set TESTDATA=bin/testdata, BINARY=bin/submatch.
set -u -o pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
td=${TESTDATA:-${SUBMATCH_TESTDATA:-$root/../shared/testdata}}
data=$td/wikivote-graphpi/wiki-vote_input
pats=$td/stmatch-patterns/wikivote-unlabelled.tsv
for f in "$data" "$pats"; do
	[[ -r $f ]] || { echo "stop-latency: cannot read $f (set TESTDATA)" >&2; exit 2; }
done
bin=${1:-}
if [[ -z $bin ]]; then
	bin=$(mktemp -d)/submatch
	(cd "$root" && go build -o "$bin" ./cmd/submatch) || exit 1
fi
deadline=${DEADLINE_S:-1}
threads=()
[[ -n ${THREADS:-} ]] && threads=(--threads "$THREADS")
ms() { echo $(($(date +%s%N) / 1000000)); }
declare -A worst
printf '%-4s %-6s %-7s %8s %9s  %s\n' pattern engine stop wall_ms late_ms result
for q in ${PATTERNS:-$(seq -f 'q%g' 1 24)}; do
	pat=$(awk -F'\t' -v q="$q" '$1 == q {print $2}' "$pats")
	[[ -n $pat ]] || continue
	for e in ${ENGINES:-cpu auto}; do
		for s in ${STOPS:-timeout sigint}; do
			log=$(mktemp)
			t0=$(ms)
			if [[ $s == timeout ]]; then
				"$bin" count --engine "$e" ${threads[@]+"${threads[@]}"} --timeout "${deadline}s" "$data" "$pat" >"$log" 2>&1
				rc=$?
				t1=$(ms)
				late=$((t1 - t0 - deadline * 1000))
			else
				"$bin" count --engine "$e" ${threads[@]+"${threads[@]}"} "$data" "$pat" >"$log" 2>&1 &
				pid=$!
				sleep "$deadline"
				ts=$(ms)
				kill -INT "$pid" 2>/dev/null
				wait "$pid"
				rc=$?
				t1=$(ms)
				late=$((t1 - ts))
			fi
			if grep -q partial "$log"; then
				result="partial (exit $rc)"
				key="$e $s"
				((late > ${worst[$key]:--1})) && worst[$key]=$late
			elif ((rc == 0)); then
				result=done
				late=-
			else
				result="exit $rc: $(tail -1 "$log" | cut -c1-120)"
			fi
			printf '%-4s %-6s %-7s %8d %9s  %s\n' "$q" "$e" "$s" $((t1 - t0)) "$late" "$result"
			rm -f "$log"
		done
	done
done
echo
echo "worst latency after the deadline (ms), over the counts stopped partial:"
for k in "${!worst[@]}"; do
	echo "  $k: ${worst[$k]}"
done | sort
