#!/usr/bin/env bash
# The out-of-core engines' host side (issue 21, branch ooc5): pbe (host backend) and sgsi (host
# emulation of its kernels) on one snapshot and query, main's build against this tree's,
# interleaved run by run, with the CPU engine beside them. Every run is one process of
# scripts/oocprof (load, then the engine at a budget of GraphBytes/DIV: the graph DIV times the
# budget), cut at CAP seconds; prints one line per run and the medians.
#
#   bash scripts/ooc-host-bench.sh build DIR   DIR/base (main's tree, `git -C $MAIN archive main`,
#                                              with its scripts/oocprof, else this tree's) and DIR/new (this
#                                              tree): submatch and oocprof in each
#   DATA=g.smg QUERY=q.graph bash scripts/ooc-host-bench.sh run DIR
#
# Knobs: RUNS (3), CAP (90) seconds a run, DIV (4), ENGINES ("pbe sgsi"), MAIN (/work/main),
# BASE_PARTITIONER (multilevel, main's default; grow isolates the inter stage: multilevel takes
# about 11 GB at R-MAT scale 20 with edge factor 40). This tree partitions with auto.
set -u -o pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
source scripts/bench-lib.sh

build() {
	set -e
	local dir tmp
	mkdir -p "$1"
	dir="$(cd "$1" && pwd)" # absolute: the base is built from another folder
	tmp=$(mktemp -d)
	git -C "${MAIN:-/work/main}" archive main | tar -x -C "$tmp"
	# main's own oocprof when it has one (it prints what main's engines report), else this tree's
	[ -d "$tmp/scripts/oocprof" ] || cp -r scripts/oocprof "$tmp/scripts/"
	mkdir -p "$dir/base" "$dir/new"
	(cd "$tmp" && CGO_ENABLED=0 go build -o "$dir/base/oocprof" ./scripts/oocprof &&
		CGO_ENABLED=0 go build -o "$dir/base/submatch" ./cmd/submatch)
	CGO_ENABLED=0 go build -o "$dir/new/oocprof" ./scripts/oocprof
	CGO_ENABLED=0 go build -o "$dir/new/submatch" ./cmd/submatch
	rm -rf "$tmp"
}

run() {
	local dir="$1" data="${DATA:?DATA=snapshot}" query="${QUERY:?QUERY=query file}"
	local runs="${RUNS:-3}" cap="${CAP:-90}" div="${DIV:-4}" out
	out=$(mktemp)
	echo "# $(date -u '+%F %T') UTC, $(nproc) cores; $data, $query, budget GraphBytes/$div, cut at $cap s"
	for r in $(seq 1 "$runs"); do
		for e in ${ENGINES:-pbe sgsi}; do
			for side in base new; do
				local part=auto s t line
				[ "$side" = base ] && part="${BASE_PARTITIONER:-multilevel}"
				s=$(date +%s%N)
				line=$(timeout $((cap + 10)) "$dir/$side/oocprof" -data "$data" -query "$query" -div "$div" -engines "$e" \
					-partitioner "$part" -timeout "${cap}s" 2>&1 | grep -A1 "^$e:" | grep -v "^--" | paste -sd " ")
				t=$((($(date +%s%N) - s) / 1000000))
				[ -n "$line" ] || line="$e: killed"
				printf '%s\t%s\t%s\t%s\n' "$e" "$side" "$t" "$line" | tee -a "$out"
			done
		done
		s=$(date +%s%N)
		line=$("$dir/new/submatch" count --engine cpu --timeout "${cap}s" "$data" "$query" 2>&1 | tail -n 1)
		printf 'cpu\tnew\t%s\t%s\n' "$((($(date +%s%N) - s) / 1000000))" "$line" | tee -a "$out"
	done
	echo "== medians (whole process ms; a run cut at CAP counts as CAP)"
	local k
	for k in $(cut -f1,2 "$out" | tr '\t' : | sort -u); do
		local ms m
		ms=$(awk -F'\t' -v k="$k" '$1 ":" $2 == k { print $3 }' "$out" | sort -n)
		m=$(wc -l <<<"$ms")
		printf '%s\t%d runs\tmedian %s ms\n' "$k" "$m" "$(sed -n "$(((m + 1) / 2))p" <<<"$ms")"
	done
	rm -f "$out"
}

dispatch "$@"
