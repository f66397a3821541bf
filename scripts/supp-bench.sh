#!/usr/bin/env bash
# Edge supports (issue 17, branch supp): whole-process time of `submatch count --engine cpu
# --threads T` on the text wiki-Vote, this tree's binary against main's, both built in this run
# (main from `git -C $MAIN_REPO archive main`, default /work/main), runs alternating, median of
# RUNS (default 5; q2 and q13 take 3). Prints one line per pattern and thread count: medians of
# the wall time and of the user+sys CPU time in ms (the second is robust on a shared machine),
# the ratios main/this, and whether every count equals the expected one. TIMEOUT (default 120s)
# cuts a run (main's q13 then counts as the cut).
#
#   scripts/supp-bench.sh [PATTERNS...]   (default: q3 q7 q15 q1 q2 q4 q13)
#   THREADS="2 1" RUNS=5 scripts/supp-bench.sh q3
set -u -o pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
shared="${SUBMATCH_SHARED_TESTDATA:-$root/../shared/testdata}"
graph="$shared/wikivote-graphpi/wiki-vote_input"
tsv="$shared/stmatch-patterns/wikivote-unlabelled.tsv"
main_repo="${MAIN_REPO:-/work/main}"
tmp="$(mktemp -d "${TMPDIR:-/tmp}/supp-bench.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
(cd "$root" && CGO_ENABLED=0 go build -trimpath -o "$tmp/this" ./cmd/submatch) || exit 2
mkdir "$tmp/main" && git -C "$main_repo" archive main | tar -x -C "$tmp/main" || exit 2
(cd "$tmp/main" && CGO_ENABLED=0 go build -trimpath -o "$tmp/mainbin" ./cmd/submatch) || exit 2
declare -A want=([q1]=29414175704 [q2]=18977558222 [q3]=8211817230 [q4]=6133630636 [q7]=1181659560
	[q10]=6976631827728 [q13]=502642740922 [q15]=8729906400)
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
pats=("$@")
[ ${#pats[@]} -eq 0 ] && pats=(q3 q7 q15 q1 q2 q4 q13)
echo "# $(date -u +%FT%TZ) $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); main $(git -C "$main_repo" rev-parse --short main), this $(git -C "$root" rev-parse --short HEAD)"
printf '%-5s %-3s %9s %9s %6s %9s %9s %6s %s\n' q T main_ms this_ms ratio main_cpu this_cpu ratio counts
for q in "${pats[@]}"; do
	pat="$(awk -F'\t' -v q="$q" '$1 == q {print $2}' "$tsv")"
	runs="${RUNS:-5}"
	case "$q" in q2 | q13) runs="${RUNS:-3}" ;; esac
	for t in ${THREADS:-2 1}; do
		: >"$tmp/t.main"
		: >"$tmp/t.this"
		: >"$tmp/c.main"
		: >"$tmp/c.this"
		ok=yes
		for ((r = 0; r < runs; r++)); do
			order="mainbin this"
			((r % 2)) && order="this mainbin"
			for b in $order; do
				{
					TIMEFORMAT='%R %U %S'
					time "$tmp/$b" count --engine cpu --threads "$t" --timeout "${TIMEOUT:-120s}" "$graph" "$pat" >"$tmp/out" 2>&1
				} 2>"$tmp/tm"
				awk '{printf "%d\n", $1 * 1000}' "$tmp/tm" >>"$tmp/t.${b%bin}"
				awk '{printf "%d\n", ($2 + $3) * 1000}' "$tmp/tm" >>"$tmp/c.${b%bin}"
				[ "$(cut -f2 "$tmp/out")" = "${want[$q]:-?}" ] || ok="no: $b $(cut -f2 "$tmp/out")"
			done
		done
		m=$(median <"$tmp/t.main")
		n=$(median <"$tmp/t.this")
		cm=$(median <"$tmp/c.main")
		cn=$(median <"$tmp/c.this")
		printf '%-5s %-3s %9s %9s %6.2f %9s %9s %6.2f %s\n' "$q" "$t" "$m" "$n" "$(echo "$m / $n" | bc -l)" \
			"$cm" "$cn" "$(echo "$cm / $cn" | bc -l)" "$ok"
	done
done
