#!/usr/bin/env bash
# A/B of the CPU engine's search on wiki-Vote, one thread: this tree's HEAD against a baseline
# revision, interleaved (the order alternates each round), process CPU time (getrusage) of each
# count's searchPlan, medians. Cases: STMatch's patterns by name, NAME/w for the plan that breaks
# all symmetry with its counted vertices in windows (plan.SymmetryBreak with GroupWindows, as
# engine/cpu's symmetryBroken builds it), NAME/u for a unique count. With CALLGRIND=1 it prints
# instead each case's instructions under callgrind, the whole test process (the graph's load and
# the plan included: the same code but for the estimate's windows; collecting inside searchPlan*
# alone lost the workers' goroutines on some cases), one run each, about 100x slower.
# The harness is a test file written into a copy of each tree (never committed there).
#
#   scripts/windows-ab.sh [BASE]   BASE default main; CASES default "q1 q5 q6 q4/w q6/w q9/w q5/w q3/u";
#                                  ROUNDS default 5; DATA default ../shared/testdata (from the root)
set -eu -o pipefail
root=$(git rev-parse --show-toplevel)
base="${1:-main}"
cases="${CASES:-q1 q5 q6 q4/w q6/w q9/w q5/w q3/u}"
rounds="${ROUNDS:-5}"
data=$(cd "$root" && realpath "${DATA:-../shared/testdata}")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
harness() {
	cat <<'EOF'
package cpu

import (
	"context"
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/formats"
	"github.com/submatch/submatch/pattern"
	"github.com/submatch/submatch/plan"
)

func wbCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func TestZZWindowBench(t *testing.T) {
	dir := os.Getenv("WB_DATA")
	g, err := formats.Load(dir+"/wikivote-graphpi/wiki-vote_input", formats.Options{})
	if err != nil {
		t.Fatal(err)
	}
	pats := map[string]string{}
	tsv, err := os.ReadFile(dir + "/stmatch-patterns/wikivote-unlabelled.tsv")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(tsv), "\n") {
		if f := strings.Split(line, "\t"); len(f) >= 2 && !strings.HasPrefix(line, "#") {
			pats[f[0]] = f[1]
		}
	}
	ctx := context.Background()
	for _, c := range strings.Fields(os.Getenv("WB_CASES")) {
		name, mode, _ := strings.Cut(c, "/")
		p, err := pattern.Parse(pats[name])
		if err != nil {
			t.Fatal(err)
		}
		prob := &engine.Problem{Data: g, Pattern: p, Threads: 1, Semantics: engine.Semantics{Unique: mode == "u"}}
		opts, err := PlanOptions(prob, false)
		if err != nil {
			t.Fatal(err)
		}
		if mode == "w" {
			opts.Symmetry, opts.GroupWindows = plan.SymmetryBreak, true
		}
		pl, err := plan.BuildContext(ctx, g, p, opts)
		if err != nil {
			t.Fatal(err)
		}
		start := wbCPU()
		res, err := searchPlan(ctx, prob, pl, 0, nil)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Printf("WB %s %d %.4f\n", c, res.Count, (wbCPU() - start).Seconds())
	}
}
EOF
}
for which in base new; do
	rev=$base
	[ "$which" = new ] && rev=HEAD
	mkdir -p "$tmp/$which"
	git -C "$root" archive "$rev" | tar -x -C "$tmp/$which"
	harness > "$tmp/$which/engine/cpu/zz_windowbench_test.go"
	(cd "$tmp/$which" && go test -c -o "$tmp/$which.test" ./engine/cpu)
done
echo "# base $(git -C "$root" rev-parse --short "$base"), new $(git -C "$root" rev-parse --short HEAD), wiki-Vote, one thread"
if [ "${CALLGRIND:-0}" = 1 ]; then
	for c in $cases; do
		for which in base new; do
			n=$(WB_DATA="$data" WB_CASES="$c" GOGC=off GOMAXPROCS=1 GODEBUG=asyncpreemptoff=1 valgrind --tool=callgrind \
				--callgrind-out-file=/dev/null "$tmp/$which.test" -test.run ZZWindowBench 2>&1 | sed -n 's/.*Collected : //p')
			echo "$which $c instructions $n"
		done
	done
	exit 0
fi
out="$tmp/runs"
for r in $(seq "$rounds"); do
	order="base new"
	[ $((r % 2)) = 0 ] && order="new base"
	for which in $order; do
		WB_DATA="$data" WB_CASES="$cases" "$tmp/$which.test" -test.run ZZWindowBench | grep '^WB' | sed "s/^/$which /" | tee -a "$out"
	done
done
python3 - "$out" <<'EOF'
import sys, statistics, collections
d = collections.defaultdict(list)
for line in open(sys.argv[1]):
    w, _, c, count, s = line.split()
    d[(c, w)].append(float(s))
cases = list(dict.fromkeys(c for c, _ in d))
print("| case | base median s | new median s | new/base | runs |")
print("|---|---:|---:|---:|---:|")
for c in cases:
    a, b = statistics.median(d[(c, "base")]), statistics.median(d[(c, "new")])
    print(f"| {c} | {a:.3f} | {b:.3f} | {b / a:.3f} | {len(d[(c, 'base')])}+{len(d[(c, 'new')])} |")
EOF
