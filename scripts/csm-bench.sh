#!/bin/bash
# Whole-process side-by-side of `submatch watch` and RapidFlow (docs/benchmarks.md, "Continuous
# matching: whole process against RapidFlow, after the speed work"): counting only, every tool run
# by the same function, the tools alternating inside every round; prints per case and tool the
# median user+sys CPU seconds and the median wall seconds over N rounds (wait4's rusage).
#
#   scripts/csm-bench.sh [CASE...]      cases: gh-ins gh-del email heavy list (default: all)
#
# (list: `--emit matches`, the 11,584,063 signed matches of the github insertions as TSV.)
#
# Environment: SM (submatch binary, default: built from this checkout into $WORK), BASE (a second
# submatch binary measured beside it, on one and two threads, e.g. the code before a change;
# optional), RF (RapidFlow's
# binary, default /tmp/peers/RapidFlow/build/RapidFlow.out: github:shixuansun/RapidFlow built
# with its CMake flags), TD (the shared test data, default ../shared/testdata), WORK (scratch
# folder, default /tmp/csm-bench), N (rounds, default 7).
#
# Inputs it makes in $WORK: github-gmatch split 90/10 by Python's random.seed(1) shuffle of the
# edges (the first 90% with every vertex as the initial graph, the rest as insertions; the whole
# graph with the same edges as deletions), Q_3 in the CSM format, and two 6-vertex queries on the
# two commonest labels: T6 (a tree, 1.08e9 matches created by the insertions) and P6 (a path,
# 1.75e8).
set -euo pipefail
cd "$(dirname "$0")/.."
TD=${TD:-$(cd ../shared/testdata 2>/dev/null && pwd || echo /work/shared/testdata)}
WORK=${WORK:-/tmp/csm-bench}
N=${N:-7}
RF=${RF:-/tmp/peers/RapidFlow/build/RapidFlow.out}
mkdir -p "$WORK"
if [ -z "${SM:-}" ]; then
	SM=$WORK/submatch
	go build -o "$SM" ./cmd/submatch
fi
E=$TD/csm-email10

if [ ! -f "$WORK/gh_del.stream" ]; then
	python3 - "$TD/github-gmatch/data.graph" "$WORK" <<'EOF'
import random, sys
vs, es = [], []
for line in open(sys.argv[1]):
    f = line.split()
    if f and f[0] == 'v': vs.append((f[1], f[2]))
    elif f and f[0] == 'e': es.append((f[1], f[2]))
random.seed(1)
random.shuffle(es)
k = len(es) * 9 // 10
def write(name, lines):
    with open(sys.argv[2] + '/' + name, 'w') as o: o.writelines(lines)
write('gh90.graph', [f"v {v} {l}\n" for v, l in vs] + [f"e {u} {v} 0\n" for u, v in es[:k]])
write('gh100.graph', [f"v {v} {l}\n" for v, l in vs] + [f"e {u} {v} 0\n" for u, v in es])
write('gh_ins.stream', [f"e {u} {v} 0\n" for u, v in es[k:]])
write('gh_del.stream', [f"-e {u} {v} 0\n" for u, v in es[k:]])
EOF
	printf 'v 0 0\nv 1 0\nv 2 0\nv 3 1\nv 4 1\ne 0 1 0\ne 1 2 0\ne 2 3 0\ne 3 4 0\n' >"$WORK/Q_3.csm"
	printf 'v 0 0\nv 1 0\nv 2 0\nv 3 1\nv 4 1\nv 5 1\ne 0 1 0\ne 1 2 0\ne 2 3 0\ne 3 4 0\ne 3 5 0\n' >"$WORK/T6.csm"
	printf 'v 0 0\nv 1 0\nv 2 0\nv 3 0\nv 4 1\nv 5 1\ne 0 1 0\ne 1 2 0\ne 2 3 0\ne 3 4 0\ne 4 5 0\n' >"$WORK/P6.csm"
fi
W=$WORK
# rusage.py CMD: runs the command (through sh, output discarded) and prints its user+sys CPU and
# wall seconds, to the microsecond (wait4's rusage; GNU time rounds to 10 ms).
cat >"$W/rusage.py" <<'EOF'
import os, subprocess, sys, time
t = time.perf_counter()
p = subprocess.Popen(sys.argv[1], shell=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
_, status, ru = os.wait4(p.pid, 0)
wall = time.perf_counter() - t
print(f"{ru.ru_utime + ru.ru_stime:.4f} {wall:.4f}")
EOF

med() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

# measure CASE LABEL CMD [LABEL CMD]...: N rounds, the commands (strings) in turn in each round.
measure() {
	local case=$1 i j u s e
	shift
	local labels=() cmds=()
	while [ $# -gt 0 ]; do
		labels+=("$1")
		cmds+=("$2")
		shift 2
	done
	local cpu=() wall=()
	for i in $(seq "$N"); do
		for j in "${!cmds[@]}"; do
			read -r c e < <(python3 "$W/rusage.py" "${cmds[$j]}")
			cpu[$j]+="$c "
			wall[$j]+="$e "
		done
	done
	for j in "${!cmds[@]}"; do
		printf '%-14s %-12s cpu %7s s   wall %7s s\n' "$case" "${labels[$j]}" \
			"$(printf '%s\n' ${cpu[$j]} | med)" "$(printf '%s\n' ${wall[$j]} | med)"
	done
}

# sides DATA QUERY STREAM [SUBMATCH FLAGS]: the label/command pairs of one case.
sides() {
	local g=$1 q=$2 s=$3 flags=${4:-}
	echo "submatch-t1|exec $SM watch $g $q --updates $s $flags --threads 1"
	echo "submatch-t2|exec $SM watch $g $q --updates $s $flags --threads 2"
	[ -n "${BASE:-}" ] && echo "before-t1|exec $BASE watch $g $q --updates $s $flags --threads 1" &&
		echo "before-t2|exec $BASE watch $g $q --updates $s $flags --threads 2"
	echo "RapidFlow|exec $RF -d $g -q $q -u $s -num MAX -time_limit 3600"
}

run() { # CASE DATA QUERY STREAM [FLAGS]
	local case=$1 args=() l c
	shift
	while IFS='|' read -r l c; do args+=("$l" "$c"); done < <(sides "$@")
	measure "$case" "${args[@]}"
}

cases=${*:-gh-ins gh-del email heavy list}
echo "# $(date -u +%FT%TZ) $(uname -n) $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); N=$N"
for c in $cases; do
	case $c in
	gh-ins) run "gh-ins Q_3" "$W/gh90.graph" "$W/Q_3.csm" "$W/gh_ins.stream" ;;
	gh-del) run "gh-del Q_3" "$W/gh100.graph" "$W/Q_3.csm" "$W/gh_del.stream" ;;
	email)
		for q in q4_1 q6_1 q8_1; do
			run "email10 $q" "$E/initial.graph" "$E/queries/$q.graph" "$E/updates.stream" "--on-invalid skip"
		done
		;;
	heavy)
		for q in T6 P6; do
			run "gh-ins $q" "$W/gh90.graph" "$W/$q.csm" "$W/gh_ins.stream"
		done
		;;
	list)
		args=("submatch-t1" "exec $SM watch $W/gh90.graph $W/Q_3.csm --updates $W/gh_ins.stream --emit matches --threads 1")
		[ -n "${BASE:-}" ] && args+=("before-t1" "exec $BASE watch $W/gh90.graph $W/Q_3.csm --updates $W/gh_ins.stream --emit matches --threads 1")
		measure "gh-ins Q_3 list" "${args[@]}"
		;;
	*)
		echo "unknown case $c" >&2
		exit 2
		;;
	esac
done
