#!/usr/bin/env bash
# stmatch's whole process on STMatch's 24 patterns (issue 17): where the fixed floor goes.
#
#   scripts/stmatch-bench.sh build   on a machine with Go: builds this tree's submatch and, as the
#                                    baseline, main's (git archive main; BASE=REV for another
#                                    revision) into .dev-st5/ (git-ignored; CGO_ENABLED=0), and
#                                    copies wiki-Vote and the 24 patterns there (about 16 MB).
#   scripts/stmatch-bench.sh run     on the GPU machine, OUT set: fills the kernel cache (a count
#                                    on each of stmatch's kernels, both binaries); then for each
#                                    pattern runs `count --engine stmatch --json -v --timeout 8s`
#                                    once with this tree's binary and, where STMatch takes under
#                                    700 ms (the floor decides there), once with the baseline's,
#                                    their order alternating; then two more rounds of q7, q16, q3,
#                                    q6, q15 with both; then `count --engine cpu --threads 16`
#                                    once a pattern (8 s at most, less when time runs short); it
#                                    prints a table (also $OUT/table.tsv) and keeps every log in
#                                    $OUT/logs.tgz.
#                                    DEADLINE=SECONDS (default 135) bounds the whole run: each
#                                    part gets at most what is left. Without a GPU, stmatch fails
#                                    on every pattern and the table says so (the CPU rows still run).
#
# The device tool carries the folder: carry [".dev-st5"], command
#   OUT=$OUT bash scripts/stmatch-bench.sh run 2>&1 | tee $OUT/run.log
#
# Columns (ms; one run per cell): stm = STMatch's kernel time (its README); proc = whole process
# (exec to exit) of this tree's binary, kern = its kernel time; the floor phases from its -v log:
# load (the data graph), gpu = CUDA's start (gpu.OpenTimes: began, dlopen+cuInit, devices, the
# slowest primary context, NVRTC's load beside them), wait = how long after the load CUDA was still
# starting, prep/comp/upl/run/free = stmatch's own phases, exit = whole process minus the -v log's
# total (the Go exit and the OS releasing the GPU); base = the baseline's whole process; cpu16 = the
# CPU engine on 16 threads (whole process; "cut" when stopped at its timeout); eq = the finished
# counts agree (yes/no; "-" when fewer than two finished).
set -u -o pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
dev=.dev-st5

build() {
	set -e
	local shared="${SUBMATCH_SHARED_TESTDATA:-$root/../shared/testdata}"
	local base="${BASE:-main}"
	mkdir -p "$dev/testdata"
	CGO_ENABLED=0 go build -trimpath -ldflags='-s -w' -o "$dev/submatch" ./cmd/submatch
	local tmp
	tmp="$(mktemp -d)"
	git archive "$base" | tar -x -C "$tmp"
	(cd "$tmp" && CGO_ENABLED=0 go build -trimpath -ldflags='-s -w' -o "$root/$dev/submatch-base" ./cmd/submatch)
	rm -rf "$tmp"
	git rev-parse --short "$base" >"$dev/base-rev"
	git rev-parse --short HEAD >"$dev/head-rev"
	cp -f "$shared/wikivote-graphpi/wiki-vote_input" "$dev/testdata/"
	cp -f "$shared/stmatch-patterns/wikivote-unlabelled.tsv" "$dev/testdata/"
	du -sh "$dev"
}

# ms converts a Go duration (1.5s, 250ms, 80µs, 2m3s) to milliseconds.
ms() {
	awk -v d="$1" 'BEGIN {
		if (d == "") { print ""; exit }
		t = 0
		while (match(d, /^-?[0-9.]+(ns|µs|us|ms|s|m|h)/)) {
			part = substr(d, 1, RLENGTH); d = substr(d, RLENGTH + 1)
			match(part, /[a-zµ]+$/); unit = substr(part, RSTART); v = substr(part, 1, RSTART - 1) + 0
			if (unit == "ns") v /= 1e6; else if (unit == "µs" || unit == "us") v /= 1e3
			else if (unit == "s") v *= 1e3; else if (unit == "m") v *= 6e4; else if (unit == "h") v *= 3.6e6
			t += v
		}
		printf "%.1f", t
	}'
}

# field KEY FILE: the value of KEY=... in the last log line of FILE with MSG in it.
field() {
	grep -F "msg=\"$2\"" "$3" 2>/dev/null | tail -1 | tr ' ' '\n' | sed -n "s/^$1=//p" | head -1
}

# jfield KEY FILE: a number or boolean of the first JSON record in FILE.
jfield() {
	sed -n "s/.*\"$1\":\([^,}]*\).*/\1/p" "$2" 2>/dev/null | head -1
}

now_ms() { echo $(($(date +%s%N) / 1000000)); }

# timed NAME LIMIT_S BINARY ARGS...: runs one count, its JSON in $logs/NAME.json, its stderr in
# $logs/NAME.err, and its whole-process time in ms in $logs/NAME.ms.
timed() {
	local name="$1" limit="$2" bin="$3"
	shift 3
	local t0 t1
	t0=$(now_ms)
	timeout -k 2 "$((limit + 5))" "$bin" "$@" >"$logs/$name.json" 2>"$logs/$name.err"
	echo $? >"$logs/$name.rc"
	t1=$(now_ms)
	echo $((t1 - t0)) >"$logs/$name.ms"
}

left() { echo $((deadline - $(date +%s))); }

# count_of NAME: the count when it finished, "partial" when cut, "" when it failed.
count_of() {
	local j="$logs/$1.json"
	[ -s "$j" ] || return 0
	if grep -q '"error"' "$j"; then return 0; fi
	if [ "$(jfield partial "$j")" = true ]; then echo partial; else jfield count "$j"; fi
}

run() {
	: "${OUT:?set OUT to the folder for the results}"
	local start deadline
	start=$(date +%s)
	deadline=$((start + ${DEADLINE:-135}))
	local margin=6 # seconds kept for the table and the archive
	logs="$OUT/logs"
	mkdir -p "$logs"
	local st="$dev/submatch" base="$dev/submatch-base" data="$dev/testdata/wiki-vote_input"
	local tsv="$dev/testdata/wikivote-unlabelled.tsv"
	export SUBMATCH_KERNEL_CACHE="${SUBMATCH_KERNEL_CACHE:-${TMPDIR:-/tmp}/submatch-st5-kernels}"
	echo "head $(cat $dev/head-rev 2>/dev/null), base $(cat $dev/base-rev 2>/dev/null); $(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg)"
	nvidia-smi --query-gpu=name,driver_version,persistence_mode --format=csv,noheader 2>/dev/null || echo "no nvidia-smi"
	# The kernel cache: both binaries compile (or find) stmatch's generic and clique kernels
	# before any timing (a 3-path and the 5-clique q8: one count each; the per-query kernels are
	# compiled in the background during the counts, as a user's first runs do).
	local clique
	clique=$(awk -F'\t' '$1 == "q8" { print $2 }' "$tsv")
	for b in "$st" "$base"; do
		local t0
		t0=$(now_ms)
		timeout "$(($(left) > 60 ? 60 : $(left)))" "$b" count --engine stmatch -v "$data" \
			'(a)-(b)-(c)' "$clique" >"$logs/warm-$(basename "$b").txt" 2>&1
		echo "kernel cache ($(basename "$b")): rc $?, $(($(now_ms) - t0)) ms"
	done
	mapfile -t names < <(grep -v '^#' "$tsv" | cut -f1)
	mapfile -t pats < <(grep -v '^#' "$tsv" | cut -f2)
	mapfile -t stms < <(grep -v '^#' "$tsv" | cut -f3)
	local i n=${#names[@]}
	# stmatch: this tree's binary on every pattern, the baseline beside it (their order
	# alternating) on the patterns where the floor decides (STMatch under 700 ms; the others'
	# kernels do not change here).
	for ((i = 0; i < n; i++)); do
		local q="${names[i]}" lim=8 order=(st)
		if (($(left) < 2 * lim + margin)); then
			echo "stmatch: stopped before $q (deadline)"
			break
		fi
		if awk -v t="${stms[i]}" 'BEGIN { exit !(t < 700) }'; then
			order=(st base)
			((i % 2)) && order=(base st)
		fi
		for w in "${order[@]}"; do
			local b="$st"
			[ "$w" = base ] && b="$base"
			timed "$q-$w" "$lim" "$b" count --engine stmatch --json -v --timeout "${lim}s" "$data" "${pats[i]}"
		done
	done
	# Two more rounds of the smallest patterns, both binaries (the floor's A/B).
	local round
	for round in 1 2; do
		(($(left) > margin + 40)) || break
		for q in q7 q16 q3 q6 q15; do
			for ((i = 0; i < n; i++)); do [ "${names[i]}" = "$q" ] && break; done
			((i < n)) || continue
			local order=(st base)
			((round % 2)) && order=(base st)
			for w in "${order[@]}"; do
				local b="$st"
				[ "$w" = base ] && b="$base"
				timed "$q-$w-r$round" 4 "$b" count --engine stmatch --json -v --timeout 4s "$data" "${pats[i]}"
			done
		done
	done
	# The CPU engine on 16 threads: each pattern 8 s at most, and its share of what is left.
	for ((i = 0; i < n; i++)); do
		local q="${names[i]}" lim
		lim=$((($(left) - margin) / (n - i)))
		((lim > 8)) && lim=8
		if ((lim < 1)); then
			echo "cpu: stopped before $q (deadline)"
			break
		fi
		timed "$q-cpu" "$lim" "$st" count --engine cpu --threads 16 --json --timeout "${lim}s" "$data" "${pats[i]}"
	done
	table "$n" | tee "$OUT/table.tsv"
	echo
	repeats | tee -a "$OUT/table.tsv"
	tar -czf "$OUT/logs.tgz" -C "$OUT" logs && rm -rf "$logs"
	echo "took $(($(date +%s) - start)) s"
}

# table N: one row a pattern.
table() {
	printf 'q\tstm\tproc\tkern\tload\tgpu:began\tdlopen+init\tdevices\tcontext\tnvrtc\tgpu_total\twait\tprep\tcomp\tupl\trun\tfree\texit\tbase\tbase_kern\tcpu16\tcount\teq\n'
	local i
	for ((i = 0; i < $1; i++)); do
		local q="${names[i]}" e="$logs/${names[i]}-st.err"
		local proc kern base bkern cpu c1 c2 c3 eq exit total
		proc=$(cat "$logs/$q-st.ms" 2>/dev/null)
		base=$(cat "$logs/$q-base.ms" 2>/dev/null)
		kern=$(jfield kernel_ms "$logs/$q-st.json")
		bkern=$(jfield kernel_ms "$logs/$q-base.json")
		cpu=$(cat "$logs/$q-cpu.ms" 2>/dev/null)
		c1=$(count_of "$q-st")
		c2=$(count_of "$q-base")
		c3=$(count_of "$q-cpu")
		[ "$c1" = partial ] && proc="$proc(cut)"
		[ "$c2" = partial ] && base="$base(cut)"
		[ "$c3" = partial ] && cpu="$cpu(cut)"
		[ -z "$c1" ] && [ -n "$proc" ] && proc="$proc(failed)"
		local finished=() c
		for c in "$c1" "$c2" "$c3"; do
			[ -n "$c" ] && [ "$c" != partial ] && finished+=("$c")
		done
		eq=-
		if ((${#finished[@]} >= 2)); then
			eq=yes
			for c in "${finished[@]}"; do [ "$c" = "${finished[0]}" ] || eq=no; done
		fi
		total=$(ms "$(field total 'count: process' "$e")")
		exit=""
		[ -n "$total" ] && [ -n "${proc%%(*}" ] && exit=$(awk -v a="${proc%%(*}" -v b="$total" 'BEGIN { printf "%.0f", a - b }')
		local init
		init=$(awk -v a="$(ms "$(field discover 'gpu: start' "$e")")" -v b="$(ms "$(field init 'gpu: start' "$e")")" 'BEGIN { if (a != "" || b != "") printf "%.1f", a + b }')
		printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' \
			"$q" "${stms[i]}" "$proc" "$kern" \
			"$(ms "$(field elapsed 'loaded data graph' "$e")")" \
			"$(ms "$(field began 'gpu: start' "$e")")" "$init" \
			"$(ms "$(field devices 'gpu: start' "$e")")" "$(ms "$(field context 'gpu: start' "$e")")" \
			"$(ms "$(field nvrtc 'gpu: start' "$e")")" "$(ms "$(field total 'gpu: start' "$e")")" \
			"$(ms "$(field wait 'gpu: start' "$e")")" \
			"$(ms "$(field prepare 'stmatch: count' "$e")")" "$(ms "$(field compile 'stmatch: count' "$e")")" \
			"$(ms "$(field upload 'stmatch: count' "$e")")" "$(ms "$(field run 'stmatch: count' "$e")")" \
			"$(ms "$(field free 'stmatch: count' "$e")")" "$exit" "$base" "$bkern" "$cpu" "${c1:-failed}" "$eq"
	done
}

# repeats: the small patterns' extra runs, whole process of each binary in run order.
repeats() {
	local q f
	for q in q7 q16 q3 q6 q15; do
		local s="" b=""
		for f in "$logs/$q"-st-r*.ms; do [ -e "$f" ] && s="$s $(cat "$f")"; done
		for f in "$logs/$q"-base-r*.ms; do [ -e "$f" ] && b="$b $(cat "$f")"; done
		[ -n "$s$b" ] && printf 'repeat %s: head%s; base%s\n' "$q" "$s" "$b"
	done
	return 0
}

case "${1:-}" in
build) build ;;
run) run ;;
*)
	echo "usage: $0 build|run" >&2
	exit 2
	;;
esac
