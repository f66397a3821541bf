#!/usr/bin/env bash
# The CPU engine on STMatch's 24 patterns on the device host's 16 cores (issue 17, branch cpu17):
# this tree's binary against main's, and what --engine auto chooses there.
#
#   scripts/cpu16-bench.sh build DIR   on a machine with Go: writes into DIR (git-ignored, e.g.
#                                      .dev-cpu17) this tree's submatch and main's (the HEAD of
#                                      MAIN_REPO, default /work/main, exported with git archive
#                                      into a temporary folder; the repository is only read),
#                                      both CGO_ENABLED=0 and gzipped, wiki-Vote, STMatch's
#                                      patterns and the expected counts (about 10 MB).
#   OUT=... scripts/cpu16-bench.sh run DIR
#                                      on the device host (no Go, no network): for each pattern,
#                                      the ones STMatch runs in under 600 ms first, `count
#                                      --engine cpu --threads 16 --json` with this tree's binary and
#                                      with main's (their order alternating), three runs each
#                                      when the first took under a second (the median is shown),
#                                      else one run cut at --timeout 5s (less when time runs
#                                      short); then `count --engine auto --explain --json` once.
#                                      It prints one table (also $OUT/table.txt) and keeps the logs
#                                      in $OUT/logs.tgz. DEADLINE=SECONDS (default 135) bounds it.
#                                      SCALING="q3 q6" adds those patterns at 1-16 threads.
#
# The device tool carries the folder: carry [".dev-cpu17"], command
#   OUT=$OUT bash scripts/cpu16-bench.sh run .dev-cpu17 > $OUT/0-run.log 2>&1
#
# Columns (ms, whole process: exec to exit): stm = STMatch's kernel time on an H100 (its README);
# cpu16 = this tree's CPU engine on 16 threads (median of 3, or one run; "cut" when stopped at
# the timeout), main = main's; auto = the engine --engine auto chose and its whole process;
# counts = every finished count equals the expected one (docs/benchmarks.md, issue 17's fourth
# pass; q18's is not known: the finished counts then agree with each other), "-" when none
# finished; met = the better of cpu16 and auto is at most stm.
set -u -o pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

# The counts of the 24 patterns (wiki-Vote, unlabelled, embeddings), from docs/benchmarks.md
# ("stmatch and --engine auto on STMatch's 24 patterns, fourth pass"); q18's is not known.
expected_counts() {
	cat <<'EOF'
q1	29414175704
q2	18977558222
q3	8211817230
q4	6133630636
q5	3240867888
q6	2410415016
q7	1181659560
q8	541696440
q9	365604692720
q10	6976631827728
q11	865146396872
q12	840036045156
q13	502642740922
q14	17476574532
q15	8729906400
q16	4990544640
q17	196179668100
q18	-
q19	219764555008
q20	152235007312
q21	103867747728
q22	93495295488
q23	62412681840
q24	40891581360
EOF
}

build() {
	set -e
	local dir="$1"
	local shared="${SUBMATCH_SHARED_TESTDATA:-$root/../shared/testdata}"
	local main_repo="${MAIN_REPO:-/work/main}"
	mkdir -p "$dir/testdata"
	if ! git check-ignore -q "$dir/testdata"; then
		echo "build: $dir is not git-ignored (use .dev-cpu17)" >&2
		return 2
	fi
	local tmp
	tmp="$(mktemp -d "${TMPDIR:-/tmp}/cpu16-bench.XXXXXX")"
	CGO_ENABLED=0 go build -trimpath -ldflags='-s -w' -o "$tmp/submatch" ./cmd/submatch
	git -C "$main_repo" archive HEAD | tar -x -C "$tmp" --one-top-level=main
	(cd "$tmp/main" && CGO_ENABLED=0 go build -trimpath -ldflags='-s -w' -o "$tmp/submatch-main" ./cmd/submatch)
	gzip -9 -c "$tmp/submatch" >"$dir/submatch.gz"
	gzip -9 -c "$tmp/submatch-main" >"$dir/submatch-main.gz"
	rm -rf "$tmp"
	git -C "$main_repo" rev-parse --short HEAD >"$dir/main-rev"
	git rev-parse --short HEAD >"$dir/head-rev"
	cp -f "$shared/wikivote-graphpi/wiki-vote_input" "$dir/testdata/"
	cp -f "$shared/stmatch-patterns/wikivote-unlabelled.tsv" "$dir/testdata/"
	expected_counts >"$dir/testdata/expected.tsv"
	du -sh "$dir"
}

now_ms() { echo $(($(date +%s%N) / 1000000)); }
left() { echo $((deadline - $(date +%s))); }

# jfield KEY FILE: a number or boolean of the first JSON record in FILE.
jfield() {
	sed -n "s/.*\"$1\":\([^,}]*\).*/\1/p" "$2" 2>/dev/null | head -1
}

# timed NAME LIMIT_S BINARY ARGS...: one count, its JSON in $logs/NAME.json, its stderr in
# $logs/NAME.err, its whole-process time (ms) in $logs/NAME.ms.
timed() {
	local name="$1" limit="$2" bin="$3"
	shift 3
	local t0
	t0=$(now_ms)
	timeout -k 2 "$((limit + 5))" "$bin" "$@" >"$logs/$name.json" 2>"$logs/$name.err"
	echo $? >"$logs/$name.rc"
	echo $(($(now_ms) - t0)) >"$logs/$name.ms"
}

# count_of NAME: the count when the run finished, "partial" when cut, "" when it failed.
count_of() {
	local j="$logs/$1.json"
	[ -s "$j" ] || return 0
	grep -q '"error"' "$j" && return 0
	if [ "$(jfield partial "$j")" = true ]; then echo partial; else jfield count "$j"; fi
}

# cell NAME...: the median whole-process ms of the runs given ("cut" when one was cut).
cell() {
	local r cut=0 times=()
	for r in "$@"; do
		[ -f "$logs/$r.ms" ] || continue
		[ "$(count_of "$r")" = partial ] && cut=1
		times+=("$(cat "$logs/$r.ms")")
	done
	if ((${#times[@]} == 0)); then
		echo -
	elif ((cut)); then
		echo "${times[0]}(cut)"
	else
		printf '%s\n' "${times[@]}" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
	fi
}

# runs ID BIN Q PATTERN: the CPU engine on 16 threads, once, and twice more when it took under a
# second; the run names in $logs are Q-ID-1.. .
runs() {
	local id="$1" bin="$2" q="$3" pat="$4" lim="$5"
	timed "$q-$id-1" "$lim" "$bin" count --engine cpu --threads 16 --json --timeout "${lim}s" "$data" "$pat"
	if [ "$(count_of "$q-$id-1")" != partial ] && (($(cat "$logs/$q-$id-1.ms") < 1000)); then
		timed "$q-$id-2" "$lim" "$bin" count --engine cpu --threads 16 --json --timeout "${lim}s" "$data" "$pat"
		timed "$q-$id-3" "$lim" "$bin" count --engine cpu --threads 16 --json --timeout "${lim}s" "$data" "$pat"
	fi
}

run() {
	local dir="$1"
	: "${OUT:?set OUT to the folder for the results}"
	local start
	start=$(date +%s)
	deadline=$((start + ${DEADLINE:-135}))
	local margin=5
	logs="$OUT/logs"
	mkdir -p "$logs"
	local bin="${TMPDIR:-/tmp}/cpu16-bench.$$"
	mkdir -p "$bin"
	gzip -dc "$dir/submatch.gz" >"$bin/submatch" && gzip -dc "$dir/submatch-main.gz" >"$bin/submatch-main" &&
		chmod +x "$bin/submatch" "$bin/submatch-main" || {
		echo "run: cannot unpack the binaries from $dir" >&2
		return 2
	}
	local head="$bin/submatch" main="$bin/submatch-main"
	data="$dir/testdata/wiki-vote_input"
	local tsv="$dir/testdata/wikivote-unlabelled.tsv" exp="$dir/testdata/expected.tsv"
	echo "head $(cat "$dir/head-rev" 2>/dev/null), main $(cat "$dir/main-rev" 2>/dev/null); $(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg)"
	nvidia-smi --query-gpu=name,driver_version,persistence_mode --format=csv,noheader 2>/dev/null || echo "no nvidia-smi"
	mapfile -t names < <(grep -v '^#' "$tsv" | cut -f1)
	mapfile -t pats < <(grep -v '^#' "$tsv" | cut -f2)
	mapfile -t stms < <(grep -v '^#' "$tsv" | cut -f3)
	local n=${#names[@]} i
	# The patterns STMatch runs in under 600 ms first (the CPU's targets), then the others.
	local order=()
	for ((i = 0; i < n; i++)); do
		awk -v t="${stms[i]}" 'BEGIN { exit !(t < 600) }' && order+=("$i")
	done
	for ((i = 0; i < n; i++)); do
		awk -v t="${stms[i]}" 'BEGIN { exit !(t < 600) }' || order+=("$i")
	done
	scaling "$head" "$tsv" > "$OUT/scaling.txt"
	local k=0
	for i in "${order[@]}"; do
		local q="${names[i]}" lim
		# Three runs a pattern may be cut at lim seconds (the two binaries, auto): lim is 5 s, or
		# what is left once every later pattern has 1 s for each of its three.
		lim=$((($(left) - margin - 3 * (n - k - 1)) / 3))
		((lim > 5)) && lim=5
		k=$((k + 1))
		if ((lim < 1)); then
			echo "stopped before $q (deadline)"
			continue
		fi
		if ((k % 2)); then
			runs head "$head" "$q" "${pats[i]}" "$lim"
			runs main "$main" "$q" "${pats[i]}" "$lim"
		else
			runs main "$main" "$q" "${pats[i]}" "$lim"
			runs head "$head" "$q" "${pats[i]}" "$lim"
		fi
		timed "$q-auto" "$lim" "$head" count --engine auto --explain --json --timeout "${lim}s" "$data" "${pats[i]}"
	done
	table "$exp" | tee "$OUT/table.txt"
	cat "$OUT/scaling.txt" 2>/dev/null
	tar -czf "$OUT/logs.tgz" -C "$OUT" logs && rm -rf "$logs"
	rm -rf "$bin"
	echo "load after $(cut -d' ' -f1-3 /proc/loadavg); took $(($(date +%s) - start)) s"
}

# scaling BIN TSV: with SCALING="q3 q6 ..." set, this tree's CPU engine on those patterns at 1, 2,
# 4, 8 and 16 threads (whole process, median of 3, ms; a run cut at 10 s shows "cut"), after the
# host's CPU topology (physical cores against hardware threads).
scaling() {
	[ -n "${SCALING:-}" ] || return 0
	local bin="$1" tsv="$2" q t r pat row
	echo "== thread scaling (SCALING), this tree"
	lscpu 2>/dev/null | grep -E '^(Model name|Socket|Core|Thread|CPU\(s\))' | tr -s ' '
	echo "q threads: 1 2 4 8 16"
	for q in $SCALING; do
		pat=$(awk -F'\t' -v q="$q" '$1 == q { print $2 }' "$tsv")
		[ -n "$pat" ] || continue
		row="$q"
		for t in 1 2 4 8 16; do
			if (($(left) < 15)); then
				row="$row -"
				continue
			fi
			for r in 1 2 3; do
				timed "$q-t$t-$r" 10 "$bin" count --engine cpu --threads "$t" --json --timeout 10s "$data" "$pat"
			done
			row="$row $(cell "$q-t$t-1" "$q-t$t-2" "$q-t$t-3")"
		done
		echo "$row"
	done
}

# table EXPECTED: one row a pattern, in the TSV's order.
table() {
	local i
	{
		printf 'q\tstm\tcpu16\tmain\tauto\tcounts\tmet\n'
		for ((i = 0; i < n; i++)); do
			local q="${names[i]}" want c r bad=0 seen=0 counts met chose
			want=$(awk -F'\t' -v q="$q" '$1 == q { print $2 }' "$1")
			for r in "$q-head-1" "$q-head-2" "$q-head-3" "$q-main-1" "$q-main-2" "$q-main-3" "$q-auto"; do
				c=$(count_of "$r")
				[ -n "$c" ] && [ "$c" != partial ] || continue
				seen=$((seen + 1))
				[ "$want" = - ] && want="$c"
				[ "$c" = "$want" ] || bad=1
			done
			counts=-
			((seen)) && counts=yes
			((bad)) && counts=NO
			chose=$(sed -n 's/^engine: \([a-z0-9]*\).*/\1/p' "$logs/$q-auto.err" 2>/dev/null | head -1)
			local h m a
			h=$(cell "$q-head-1" "$q-head-2" "$q-head-3")
			m=$(cell "$q-main-1" "$q-main-2" "$q-main-3")
			a=$(cell "$q-auto")
			met=$(awk -v h="$h" -v a="$a" -v s="${stms[i]}" 'BEGIN {
				best = ""
				if (h ~ /^[0-9]+$/) best = h + 0
				if (a ~ /^[0-9]+$/ && (best == "" || a + 0 < best)) best = a + 0
				if (best == "") print "-"; else print (best <= s + 0 ? "yes" : "no")
			}')
			printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$q" "${stms[i]}" "$h" "$m" "${chose:-?} $a" "$counts" "$met"
		done
	} | awk -F'\t' '{ for (j = 1; j <= NF; j++) { row[NR, j] = $j; if (length($j) > w[j]) w[j] = length($j) } nf = NF }
		END { for (r = 1; r <= NR; r++) { line = ""; for (j = 1; j <= nf; j++) line = line sprintf("%-" (w[j] + 2) "s", row[r, j]); sub(/ +$/, "", line); print line } }'
}

case "${1:-}" in
build) [ $# -eq 2 ] || { echo "usage: $0 build DIR" >&2; exit 2; }; build "$2" ;;
run) [ $# -eq 2 ] || { echo "usage: OUT=... $0 run DIR" >&2; exit 2; }; run "$2" ;;
*) echo "usage: $0 build DIR | OUT=... $0 run DIR" >&2; exit 2 ;;
esac
