#!/usr/bin/env bash
# STMatch's 24 patterns with 10 random vertex labels on wiki-Vote, whole process (exec to exit)
# against STMatch's GPU kernel time (issue 17, branch lab): this tree's binary against main's,
# --engine cpu and --engine auto, the .smg snapshot and the t/v/e text file.
#
#   scripts/labelled-bench.sh build DIR   here (Go): writes into DIR (git-ignored: .dev-*) this
#                                     tree's submatch and main's (the HEAD of MAIN_REPO, default
#                                     /work/main, exported with git archive into a temporary
#                                     folder; the repository is only read), both CGO_ENABLED=0
#                                     and gzipped, the patterns (patterns.tsv: column 1 the name,
#                                     4 the labelled pattern, 6 its count) and the graph as
#                                     wv-l10.smg and wv-l10.graph, from LAB_INPUTS (default
#                                     $MAIN_REPO/.dev-stlab). About 9 MB.
#   OUT=... bash scripts/labelled-bench.sh run DIR
#                                     on the device host (no Go, no network; bash 5, coreutils):
#                                     `submatch version` of both binaries, then for each pattern
#                                     eight counts (ours and main's, --engine cpu and auto, .smg
#                                     and text; threads: the default, every core) five times
#                                     each, interleaved (the order of the eight rotates each
#                                     round); each count is checked against the expected one.
#                                     RUNS=N runs each instead of five; CPU_THREADS=T gives the
#                                     --engine cpu counts --threads T (default: every core).
#                                     One table on stdout and in $OUT/table.txt, the counts' output
#                                     in $OUT/logs.tgz. About 40 s on 16 cores; DEADLINE=SECONDS
#                                     (default 85) stops it early (the table then has fewer runs).
#                                     Then where the time of a few counts goes (`phases`, on
#                                     stdout and in $OUT/phases.txt: ours, count -v, --engine cpu
#                                     on the snapshot, PHASES="q3 q6 q15 q18 q24" in the
#                                     configurations PHASE_CONFIGS="0:0 2:0 1:0 2:2" (threads:
#                                     GOMAXPROCS, 0 for the default), main's binary in
#                                     PHASE_MAIN_CONFIGS="0:0", 7 runs each, about 10 s): the
#                                     start before main, args, queries, load, the engine's plan,
#                                     setup and search, the rest, the exit, the workers; and the
#                                     packages' inits (GODEBUG=inittrace=1) in $OUT/inittrace.txt.
#
# The device tool: carry [".dev-lab17"], command
#   OUT=$OUT bash scripts/labelled-bench.sh run .dev-lab17 > $OUT/0-run.log 2>&1
#
# Columns: the median whole-process time, ms, of five runs (RUNS) (bash's EPOCHREALTIME around the
# process: fork, exec, run, exit and wait); stm = STMatch's kernel time on the H200 (issue 17);
# cpu/auto = --engine, smg/txt = the data file; "main" columns are main's binary; counts = every
# run printed the expected count ("NO" names a mismatch, "-" none finished); met = the best of
# ours (any engine, either file) is at most stm.
set -u -o pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
source scripts/bench-lib.sh

# STMatch's kernel times (ms) on the H200 for the labelled patterns (issue 17).
stm_times() {
	cat <<'EOF'
q1	7.0
q2	7.4
q3	6.3
q4	6.8
q5	7.5
q6	6.3
q7	6.4
q8	6.3
q9	6.9
q10	12.3
q11	7.1
q12	22.5
q13	10.9
q14	7.0
q15	6.3
q16	6.9
q17	21.6
q18	12.5
q19	15.8
q20	12.4
q21	9.8
q22	13.4
q23	9.1
q24	10.1
EOF
}

build() {
	set -e
	local dir="$1" main_repo="${MAIN_REPO:-/work/main}"
	local inputs="${LAB_INPUTS:-${MAIN_REPO:-/work/main}/.dev-stlab}"
	mkdir -p "$dir"
	if ! git check-ignore -q "$dir"; then
		echo "build: $dir is not git-ignored (use .dev-lab17)" >&2
		return 2
	fi
	rm -f "$dir/submatch" "$dir/submatch-main"
	build_bins "$dir" submatch=./cmd/submatch
	local tmp
	tmp="$(mktemp -d "${TMPDIR:-/tmp}/labelled-bench.XXXXXX")"
	git -C "$main_repo" archive HEAD | tar -x -C "$tmp"
	(cd "$tmp" && CGO_ENABLED=0 go build -trimpath -ldflags='-s -w' -o "$tmp/submatch-main" ./cmd/submatch)
	gzip -9 -c "$tmp/submatch-main" >"$dir/submatch-main.gz"
	rm -rf "$tmp"
	git -C "$main_repo" rev-parse --short HEAD >"$dir/main-rev"
	git rev-parse --short HEAD >"$dir/head-rev"
	cp -f "$inputs/patterns.tsv" "$inputs/wv-l10.smg" "$inputs/wv-l10.graph" "$dir/"
	chmod u+w "$dir"/*
	du -sh "$dir"
}

# timed NAME BIN ARGS...: one run of BIN, its stdout in $logs/NAME.out (the last run's), its
# whole-process time (µs) appended to $logs/NAME.us, its count (column 2 of the output, or
# "error") appended to $logs/NAME.count.
timed() {
	local name="$1" bin="$2"
	shift 2
	local t0 t1
	t0=${EPOCHREALTIME//[.,]/}
	"$bin" "$@" >"$logs/$name.out" 2>"$logs/$name.err"
	local rc=$?
	t1=${EPOCHREALTIME//[.,]/}
	echo $((10#$t1 - 10#$t0)) >>"$logs/$name.us"
	if ((rc == 0)); then
		local q count
		IFS=$'\t' read -r q count _ <"$logs/$name.out"
		echo "$count" >>"$logs/$name.count"
	else
		echo "error" >>"$logs/$name.count"
	fi
}

# median NAME: the median of NAME's times in ms (one decimal), "-" when it has none.
median() {
	[ -s "$logs/$1.us" ] || {
		echo -
		return
	}
	sort -n "$logs/$1.us" | awk '{ v[NR] = $1 } END { printf "%.1f", v[int((NR + 1) / 2)] / 1000 }'
}

run() {
	local dir="$1"
	: "${OUT:?set OUT to the folder for the results}"
	local start=$SECONDS deadline=${DEADLINE:-85} runs=${RUNS:-5}
	if [ -z "${EPOCHREALTIME:-}" ]; then
		echo "run: this bash has no EPOCHREALTIME (bash 5 or later is needed for the timings)" >&2
		return 2
	fi
	logs="$OUT/logs"
	rm -rf "$logs"
	mkdir -p "$logs"
	# The binaries are unpacked into a temporary folder, so that DIR stays as built.
	local bin="${TMPDIR:-/tmp}/labelled-bench.$$"
	mkdir -p "$bin"
	cp "$dir/submatch.gz" "$dir/submatch-main.gz" "$bin/" && unpack_bins "$bin" submatch submatch-main || {
		echo "run: cannot unpack the binaries from $dir" >&2
		return 2
	}
	local ours="$bin/submatch" main="$bin/submatch-main"
	echo "# ours $(cat "$dir/head-rev" 2>/dev/null), main $(cat "$dir/main-rev" 2>/dev/null); load $(cut -d' ' -f1-3 /proc/loadavg); $runs runs each; --engine cpu threads: ${CPU_THREADS:-every core}"
	local tsv="$dir/patterns.tsv"
	mapfile -t names < <(grep -v '^#' "$tsv" | cut -f1)
	mapfile -t pats < <(grep -v '^#' "$tsv" | cut -f4)
	mapfile -t want < <(grep -v '^#' "$tsv" | cut -f6)
	local n=${#names[@]} i r k
	# The version runs, interleaved, as the floor of a process of each binary.
	for ((r = 0; r < runs; r++)); do
		timed version-ours "$ours" version
		timed version-main "$main" version
	done
	# The eight configurations of a pattern: NAME BIN ENGINE FILE.
	local configs=("ours-cpu-smg $ours cpu smg" "main-cpu-smg $main cpu smg" "ours-auto-smg $ours auto smg"
		"main-auto-smg $main auto smg" "ours-cpu-txt $ours cpu graph" "main-cpu-txt $main cpu graph"
		"ours-auto-txt $ours auto graph" "main-auto-txt $main auto graph")
	local nc=${#configs[@]} stopped=""
	for ((i = 0; i < n; i++)); do
		if ((SECONDS - start >= deadline)); then
			stopped="${names[i]}"
			break
		fi
		for ((r = 0; r < runs; r++)); do
			for ((k = 0; k < nc; k++)); do
				local c name bin eng ext th=()
				c="${configs[(k + r + i) % nc]}"
				read -r name bin eng ext <<<"$c"
				[ "$eng" = cpu ] && [ -n "${CPU_THREADS:-}" ] && th=(--threads "$CPU_THREADS")
				timed "${names[i]}-$name" "$bin" count --engine "$eng" "${th[@]}" "$dir/wv-l10.$ext" "${pats[i]}"
			done
		done
	done
	[ -n "$stopped" ] && echo "# stopped before $stopped: DEADLINE ${deadline}s reached"
	table | tee "$OUT/table.txt"
	phases "$ours" "$main" "$dir" | tee "$OUT/phases.txt"
	tar -czf "$OUT/logs.tgz" -C "$OUT" logs && rm -rf "$logs"
	rm -rf "$bin"
	echo "# load after $(cut -d' ' -f1-3 /proc/loadavg); took $((SECONDS - start)) s"
}

# phase_run NAME BIN ARGS...: one run of BIN ARGS (a count with -v), appending to $logs/NAME.ph
# one line of ms: the whole process, then the start (exec to the main package's initialisation:
# the loader, the runtime, the other packages' inits), args, queries, load, the CPU engine's
# plan, setup and search, the rest of the count (the problem, the print, and the wait for the
# snapshot's checks, also in its own column: wait, "-" for a binary that checks before the
# count), the exit (after the last phase to the parent's wait), and the workers that ran and when
# the ramp-up fired.
phase_run() {
	local name="$1" bin="$2"
	shift 2
	local t0 t1 e
	t0=${EPOCHREALTIME//[.,]/}
	"$bin" "$@" >/dev/null 2>"$logs/$name.err"
	t1=${EPOCHREALTIME//[.,]/}
	e=$(<"$logs/$name.err")
	local proc steps checked
	proc=$(grep 'msg="count: process"' <<<"$e")
	steps=$(grep 'msg="cpu: steps"' <<<"$e")
	checked=$(grep 'msg="checked data graph"' <<<"$e")
	[ -n "$proc" ] || return 0
	local f v=()
	for f in args queries load count total; do v+=("$(dur_ms "$(field "$f" "$proc")")"); done
	for f in plan setup search ramp; do v+=("$(dur_ms "$(field "$f" "$steps")")"); done
	v+=("$(dur_ms "$(field waited "$checked")")")
	# A binary without the CPU engine's steps or the start time (main before this branch) gets
	# "-" in those columns, and the whole count phase as its rest.
	awk -v t0="$t0" -v t1="$t1" -v st="$(field start_unix_us "$proc")" -v args="${v[0]}" -v q="${v[1]}" \
		-v load="${v[2]}" -v count="${v[3]}" -v total="${v[4]}" -v plan="${v[5]}" -v setup="${v[6]}" \
		-v search="${v[7]}" -v ramp="${v[8]}" -v wait="${v[9]}" -v workers="$(field workers "$steps")" 'BEGIN {
		steps = plan != ""
		printf "%.2f %s %.2f %.2f %.2f %s %s %s %s %s %s %s %s\n", (t1 - t0) / 1000,
			st == "" ? "-" : sprintf("%.2f", (st - t0) / 1000), args, q, load, wait == "" ? "-" : sprintf("%.2f", wait),
			steps ? sprintf("%.2f", plan) : "-", steps ? sprintf("%.2f", setup) : "-",
			steps ? sprintf("%.2f", search) : "-", steps ? sprintf("%.2f", count - plan - setup - search) : sprintf("%.2f", count),
			st == "" ? "-" : sprintf("%.2f", (t1 - st) / 1000 - total), steps ? workers : "-", steps ? sprintf("%.2f", ramp) : "-"
	}' >>"$logs/$name.ph"
}

# phases OURS MAIN DIR: where a small count's process goes, for the patterns of $PHASES (default
# q3 q6 q15 q18 q24) on the snapshot, --engine cpu: OURS in each configuration of $PHASE_CONFIGS
# (default "0:0 2:0 1:0 2:2"), THREADS:PROCS, --threads THREADS (0: the default, every core)
# under GOMAXPROCS=PROCS (0: not set), and MAIN in those of $PHASE_MAIN_CONFIGS (default "0:0");
# seven runs each, interleaved; one row of medians (ms) per pattern, binary and configuration.
# Then one `version` of OURS with GODEBUG=inittrace=1 (the packages' inits, on stderr) into
# $OUT/inittrace.txt.
phases() {
	local ours="$1" main="$2" dir="$3" q c r i b
	local qs=(${PHASES:-q3 q6 q15 q18 q24}) runs=() spec
	for c in ${PHASE_CONFIGS:-0:0 2:0 1:0 2:2}; do runs+=("ours:$c"); done
	for c in ${PHASE_MAIN_CONFIGS:-0:0}; do runs+=("main:$c"); done
	for ((r = 0; r < 7; r++)); do
		for q in "${qs[@]}"; do
			for ((i = 0; i < n; i++)); do [ "${names[i]}" = "$q" ] && break; done
			((i < n)) || continue
			for spec in "${runs[@]}"; do
				local t p th=() bin="$ours"
				IFS=: read -r b t p <<<"$spec"
				[ "$b" = main ] && bin="$main"
				((t > 0)) && th=(--threads "$t")
				(
					((p > 0)) && export GOMAXPROCS="$p"
					phase_run "phase-$q-$b-$t-$p" "$bin" count -v --engine cpu "${th[@]}" "$dir/wv-l10.smg" "${pats[i]}"
				)
			done
		done
	done
	echo "# phases, ms, medians of 7; threads 0: every core; procs: GOMAXPROCS (0: not set); start = exec to the main"
	echo "# package's init; rest = the count outside the engine's plan, setup and search (main: the whole count phase,"
	echo "# its binary logs no steps); exit = after the last phase"
	{
		echo "q bin threads procs whole start args queries load wait plan setup search rest exit workers ramp"
		for q in "${qs[@]}"; do
			for spec in "${runs[@]}"; do
				local t p ph
				IFS=: read -r b t p <<<"$spec"
				ph="$logs/phase-$q-$b-$t-$p.ph"
				[ -s "$ph" ] || continue
				printf '%s %s %s %s ' "$q" "$b" "$t" "$p"
				awk '{ for (j = 1; j <= NF; j++) v[j, NR] = $j; nf = NF }
					END { for (j = 1; j <= nf; j++) { k = 0; for (r = 1; r <= NR; r++) if (v[j, r] != "-") a[++k] = v[j, r] + 0
						for (x = 2; x <= k; x++) { y = a[x]; z = x - 1; while (z > 0 && a[z] > y) { a[z + 1] = a[z]; z-- } a[z + 1] = y }
						printf "%s%s", (k ? a[int((k + 1) / 2)] : "-"), (j < nf ? " " : "\n") } }' "$ph"
			done
		done
	} | tr ' ' '\t' | align
	GODEBUG=inittrace=1 "$ours" version >/dev/null 2>"$OUT/inittrace.txt"
}

# table prints one row a pattern, aligned.
table() {
	local i
	{
		printf 'version\t-\t%s\t-\t%s\t-\t-\t-\t-\t-\t-\t-\n' "$(median version-ours)" "$(median version-main)"
		printf 'q\tstm\tcpu.smg\tauto.smg\tmain.cpu.smg\tmain.auto.smg\tcpu.txt\tauto.txt\tmain.cpu.txt\tmain.auto.txt\tcounts\tmet\n'
		for ((i = 0; i < n; i++)); do
			local q="${names[i]}" stm cols=() best="" c counts="-" bad=0 seen=0
			stm=$(stm_times | awk -F'\t' -v q="$q" '$1 == q { print $2 }')
			for c in ours-cpu-smg ours-auto-smg main-cpu-smg main-auto-smg ours-cpu-txt ours-auto-txt main-cpu-txt main-auto-txt; do
				local m
				m=$(median "$q-$c")
				cols+=("$m")
				if [[ "$c" == ours-* && "$m" != - ]]; then
					best=$(awk -v a="$best" -v b="$m" 'BEGIN { print (a == "" || b + 0 < a + 0) ? b : a }')
				fi
				if [ -s "$logs/$q-$c.count" ]; then
					local got
					while read -r got; do
						seen=$((seen + 1))
						[ "$got" = "${want[i]}" ] || bad=1
					done <"$logs/$q-$c.count"
				fi
			done
			((seen)) && counts=yes
			((bad)) && counts=NO
			local met=-
			[ -n "$best" ] && met=$(awk -v b="$best" -v s="${stm:-0}" 'BEGIN { print (b + 0 <= s + 0) ? "yes" : "no" }')
			printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$q" "${stm:--}" "${cols[@]}" "$counts" "$met"
		done
	} | align
}

# align: tab-separated rows on stdin as aligned columns.
align() {
	awk -F'\t' '{ for (j = 1; j <= NF; j++) { row[NR, j] = $j; if (length($j) > w[j]) w[j] = length($j) } nf = NF }
		END { for (r = 1; r <= NR; r++) { line = ""; for (j = 1; j <= nf; j++) line = line sprintf("%-" (w[j] + 2) "s", row[r, j]); sub(/ +$/, "", line); print line } }'
}

dispatch "$@"
