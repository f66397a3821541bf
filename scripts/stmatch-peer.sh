#!/usr/bin/env bash
# STMatch itself beside submatch on STMatch's 24 patterns on wiki-Vote, unlabelled and with 10
# random vertex labels (issue 17; STMatch: github:HPC-Research-Lab/STMatch, built from source on the
# device; none of its code is in this repository).
#
#   scripts/stmatch-peer.sh build DIR   here (Go needed): fills DIR (git-ignored .dev-stlab, under
#                                       30 MB) with STMatch's source as a tarball, this tree's
#                                       submatch (CGO_ENABLED=0, gzipped), wiki-Vote unlabelled, with
#                                       labels (t/v/e) and in STMatch's binary CSR files, and the 24
#                                       patterns in both syntaxes; then checks that STMatch's files
#                                       hold the same labelled graph (submatch counts on both).
#   scripts/stmatch-peer.sh run DIR     on the GPU machine (no Go needed), OUT set: compiles
#                                       STMatch's two test drivers (unlabelled and labelled, both
#                                       edge-induced) with nvcc at once, then, per pattern and
#                                       setting: STMatch (kernel time and count), `submatch count
#                                       --engine auto` and `--engine stmatch` (whole process), and
#                                       `--engine cpu --threads 16` where STMatch took under 400 ms;
#                                       prints one table (also $OUT/table.tsv), logs in $OUT.
#
# Device call: carry [".dev-stlab"], command
#   OUT=$OUT bash scripts/stmatch-peer.sh run .dev-stlab > $OUT/0-run.log 2>&1
#
# Build sources: STMATCH_GIT (a bare git dir, default the fetch tool's mirror under /work/.mirror)
# or STMATCH_SRC (an extracted tree); SUBMATCH_SHARED_TESTDATA (default ../shared/testdata);
# SEED (default 0) and LABELS (default 10): the labels are glibc's rand() % LABELS after
# srand(SEED), STMatch vertex 0 first (scripts/stmatchfmt; STMatch's converter uses srand(0),
# rand() % 10, over its own numbering). STMatch's patterns label their vertex i with i.
#
# Run knobs: DEADLINE (s, default 285) bounds the whole run, compile included; ST_CAP (s, default
# 6) bounds one STMatch run (its q10, q12 and q18 take 21-34 s unlabelled on an H100: they show
# ">6000"); OUR_CAP (s, default 10) bounds one submatch run, which gets min(OUR_CAP, max(3, 2 x
# STMatch's time + 1)) (enough to say whether it beats STMatch); CPU_CAP (default 5) the CPU
# engine; SETTINGS (default "l u": labelled first, then unlabelled by STMatch's H100 time, smallest
# first, so that the deadline cuts the patterns whose H100 figures we have; SETTINGS="" only
# compiles and checks STMatch: with DEADLINE=560 COMPILE_LIMIT=480, a compile-only call if nvcc
# needs more than a run leaves it); ONLY="q13 q17 ..." a subset; ARCH (default sm_90) the nvcc
# -arch; GRID=N replaces STMatch's GRID_DIM (82 blocks: an RTX 3090/A6000's SM count; an H200 has
# 132) with sed, off by default (stock STMatch).
#
# STMatch's build: its Makefile compiles each configuration with `nvcc -std=c++17 -Xptxas -v
# -arch=compute_86` (PTX only, JIT-ed by the driver on an H200) after rewriting the #include of
# src/config.h with sed, so one tree cannot build two configurations at once (its README says no
# make -j). Here each configuration gets its own extracted tree and the two makes run at once; the
# only change is -arch=compute_86 -> -arch=$ARCH in the Makefile (SASS for sm_90, no JIT). If that
# fails, a second attempt adds nvcc pre-includes of <cstring>, <climits> and <cstdlib> (headers a
# newer toolchain may no longer include transitively) through the Makefile's OPTIONS variable,
# still a flag change; the log says which attempt built. Each build is checked on q16 against
# submatch's count; a wrong count (0: a kernel of over 64 registers a thread cannot launch in
# STMatch's 1024-thread blocks) rebuilds once with -maxrregcount=64, a flag. Binaries are kept in
# $STLAB_WORK (default .dev-stlab-work, git-ignored, not carried: the device keeps it between
# calls while warm), keyed by source, ARCH, GRID and flags, so a second call skips the compile.
set -u -o pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
source scripts/bench-lib.sh

cfgs=(table_edge_ulb table_edge_lb) # STMatch's unlabelled and labelled edge-induced configurations

build() {
	set -e
	local dir="$1"
	local shared="${SUBMATCH_SHARED_TESTDATA:-$root/../shared/testdata}"
	local git="${STMATCH_GIT:-/work/.mirror/HPC-Research-Lab+STMatch/repo}"
	local seed="${SEED:-0}" nlab="${LABELS:-10}"
	rm -rf "$dir"
	mkdir -p "$dir/stm" "$dir/g"
	local tmp
	tmp="$(mktemp -d)"
	trap 'rm -rf "${tmp:-}"; trap - RETURN' RETURN
	# STMatch's source: the driver, src/, the patterns, the Makefile (not the compared systems, the
	# images or the data; the fetched snapshot lacks some large files, so the paths are taken one by one).
	mkdir -p "$tmp/stmatch"
	if [ -n "${STMATCH_SRC:-}" ]; then
		(cd "$STMATCH_SRC" && tar -cf - Makefile README.md cu_test.cu src data/pattern bin) | tar -xf - -C "$tmp/stmatch"
		echo "source tree $STMATCH_SRC" >"$dir/stmatch-rev"
	else
		git --git-dir="$git" ls-tree -r --name-only HEAD | grep -E '^(Makefile|README\.md|cu_test\.cu|src/|data/pattern/|bin/)' |
			while read -r f; do
				mkdir -p "$tmp/stmatch/$(dirname "$f")"
				git --git-dir="$git" show "HEAD:$f" >"$tmp/stmatch/$f"
			done
		git --git-dir="$git" rev-parse HEAD >"$dir/stmatch-rev"
	fi
	for c in "${cfgs[@]}"; do
		[ -f "$tmp/stmatch/src/config_for_ae/$c.h" ] || { echo "STMatch's source lacks src/config_for_ae/$c.h" >&2; return 1; }
	done
	grep -q -- '-arch=compute_86' "$tmp/stmatch/Makefile" || { echo "STMatch's Makefile no longer says -arch=compute_86: check the run's sed" >&2; return 1; }
	tar -czf "$dir/stmatch-src.tgz" -C "$tmp/stmatch" .
	# submatch
	CGO_ENABLED=0 go build -trimpath -ldflags='-s -w' -o "$tmp/submatch" ./cmd/submatch
	gzip -9 -c "$tmp/submatch" >"$dir/submatch.gz"
	echo "$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- . ':!docs' || echo +dirty)" >"$dir/head-rev"
	# The data graph: unlabelled as before, STMatch's files with labels, and the same labels for
	# submatch in a t/v/e file (submatch convert --vertex-labels).
	local wv="$shared/wikivote-graphpi/wiki-vote_input"
	cp -f "$wv" "$dir/wiki-vote_input"
	go run ./scripts/stmatchfmt -labels "$nlab" -seed "$seed" "$wv" "$dir/stm/wv"
	"$tmp/submatch" convert --vertex-labels "$dir/stm/wv.labels.txt" "$wv" "$dir/wv-l$nlab.graph"
	echo "$nlab $seed" >"$dir/labels"
	# The patterns: STMatch's files, and submatch's inline syntax (unlabelled, and labelled with
	# STMatch's labels: vertex i has label i), checked against the unlabelled table's.
	local tsv="$shared/stmatch-patterns/wikivote-unlabelled.tsv" i
	printf '# name\tSTMatch file\tunlabelled\tlabelled\tSTMatch H100 ms (unlabelled, compute_86 JIT)\n' >"$dir/patterns.tsv"
	for i in $(seq 1 24); do
		cp "$tmp/stmatch/data/pattern/$i.g" "$dir/g/$i.g"
		local u l ref h
		u=$(awk -f scripts/stmatch-g2inline.awk "$dir/g/$i.g")
		l=$(awk -v LABELLED=1 -f scripts/stmatch-g2inline.awk "$dir/g/$i.g")
		ref=$(awk -F'\t' -v q="q$i" '$1 == q { print $2 }' "$tsv")
		h=$(awk -F'\t' -v q="q$i" '$1 == q { print $3 }' "$tsv")
		[ "$u" = "$ref" ] || { echo "q$i: $i.g gives $u, the table says $ref" >&2; return 1; }
		printf 'q%d\t%d.g\t%s\t%s\t%s\n' "$i" "$i" "$u" "$l" "$h" >>"$dir/patterns.tsv"
	done
	check "$dir" "$tmp"
	du -sh "$dir"
	local kb
	kb=$(du -sk "$dir" | cut -f1)
	((kb < 30 * 1024)) || { echo "$dir is $kb KiB, over 30 MB" >&2; return 1; }
}

# check DIR TMP: STMatch's files hold the graph and labels of the t/v/e file: a GraphMiner folder
# made of links to them (the layout submatch reads: same row and column arrays, labels as 4-byte
# values) must load (sorted, symmetric rows, ids in range) and give the same counts as the t/v/e
# file on the 24 labelled patterns and on every labelled edge (a:i)-(b:j).
check() {
	local dir="$1" tmp="$2" nlab n nnz maxd abs
	abs="$(cd "$dir" && pwd)" # the links must hold for a relative or an absolute DIR
	nlab=$(cut -d' ' -f1 "$dir/labels")
	{ read -r n; read -r nnz; read -r _; read -r maxd; } <"$dir/stm/wv.meta.txt"
	mkdir -p "$tmp/gm"
	ln -s "$abs/stm/wv.vertex.bin" "$tmp/gm/graph.vertex.bin"
	ln -s "$abs/stm/wv.edge.bin" "$tmp/gm/graph.edge.bin"
	ln -s "$abs/stm/wv.label.bin" "$tmp/gm/graph.vlabel.bin"
	echo "$n $nnz 4 8 4 0 $maxd 0 $nlab 0" >"$tmp/gm/graph.meta.txt"
	local qs=() i j
	mapfile -t qs < <(grep -v '^#' "$dir/patterns.tsv" | cut -f4)
	for ((i = 0; i < nlab; i++)); do
		for ((j = i; j < nlab; j++)); do qs+=("(a:$i)-(b:$j)"); done
	done
	"$tmp/submatch" count --json --engine cpu "$dir/wv-l$nlab.graph" "${qs[@]}" | sed -n 's/.*"count":\([0-9]*\).*/\1/p' >"$tmp/c1"
	"$tmp/submatch" count --json --engine cpu "$tmp/gm" "${qs[@]}" | sed -n 's/.*"count":\([0-9]*\).*/\1/p' >"$tmp/c2"
	if ! cmp -s "$tmp/c1" "$tmp/c2" || [ "$(wc -l <"$tmp/c1")" -ne "${#qs[@]}" ]; then
		paste "$tmp/c1" "$tmp/c2" | head -80 >&2
		echo "STMatch's files and $dir/wv-l$nlab.graph differ" >&2
		return 1
	fi
	echo "check: STMatch's files and the t/v/e file agree on ${#qs[@]} labelled counts (24 patterns, every label pair's edges)"
	# The counts go into patterns.tsv: the labelled ones, and the unlabelled cliques' (quick here),
	# for the run's check that STMatch's build counts right.
	local cl=()
	mapfile -t cl < <(awk -F'\t' '!/^#/ { print ($1 == "q8" || $1 == "q16" || $1 == "q24") ? $3 : "(a)-(b)" }' "$dir/patterns.tsv")
	"$tmp/submatch" count --json --engine cpu "$dir/wiki-vote_input" "${cl[@]}" | sed -n 's/.*"count":\([0-9]*\).*/\1/p' >"$tmp/c3"
	{
		grep '^#' "$dir/patterns.tsv" | sed 's/$/\tlabelled count (submatch, build)\tunlabelled count (cliques only)/'
		paste <(grep -v '^#' "$dir/patterns.tsv") <(head -24 "$tmp/c1") <(awk -F'\t' '!/^#/ { print $1 }' "$dir/patterns.tsv" | paste - "$tmp/c3" | awk -F'\t' '{ print ($1 == "q8" || $1 == "q16" || $1 == "q24") ? $2 : "-" }')
	} >"$tmp/p.tsv"
	mv "$tmp/p.tsv" "$dir/patterns.tsv"
	cut -f1,6,7 "$dir/patterns.tsv" | grep -v '^#' | tr '\t\n' ': ' | sed 's/: / /g'
	echo
}

# --- run ---------------------------------------------------------------------------------------

now_ms() { echo $(($(date +%s%N) / 1000000)); }
left() { echo $((deadline - $(date +%s))); }

# jfield KEY FILE: a number, boolean or string of the first JSON record in FILE.
jfield() {
	sed -n "s/.*\"$1\":\"\{0,1\}\([^,}\"]*\).*/\1/p" "$2" 2>/dev/null | head -1
}

# timed NAME LIMIT_S CMD...: runs CMD (stdout $logs/NAME.out, stderr $logs/NAME.err), stopped at
# LIMIT_S (+2 s grace); $logs/NAME.ms the whole process in ms, $logs/NAME.rc its exit status.
timed() {
	local name="$1" limit="$2"
	shift 2
	local t0 t1
	t0=$(now_ms)
	timeout -k 2 "$limit" "$@" >"$logs/$name.out" 2>"$logs/$name.err"
	echo $? >"$logs/$name.rc"
	t1=$(now_ms)
	echo $((t1 - t0)) >"$logs/$name.ms"
}

# ours NAME CAP_S ENGINE DATA PATTERN [ARGS...]: one submatch count.
ours() {
	local name="$1" cap="$2" engine="$3" data="$4" pat="$5"
	shift 5
	timed "$name" $((cap + 3)) "$sm" count --engine "$engine" --json --timeout "${cap}s" "$@" "$data" "$pat"
}

# our_cell NAME: "ms count" of a submatch run; count is "cut" when partial, "fail" on an error.
our_cell() {
	local f="$logs/$1.out" ms c
	[ -e "$logs/$1.ms" ] || { echo "- -"; return; }
	ms=$(cat "$logs/$1.ms")
	if [ ! -s "$f" ] || grep -q '"error"' "$f"; then
		c=fail
	elif [ "$(jfield partial "$f")" = true ]; then
		c=cut
	else
		c=$(jfield count "$f")
	fi
	echo "$ms ${c:-fail}"
}

# stm_cell NAME: "kernel_ms proc_ms count" of an STMatch run (">CAP" when stopped).
stm_cell() {
	local o="$logs/$1.out"
	[ -e "$logs/$1.ms" ] || { echo "- - -"; return; }
	local rc line
	rc=$(cat "$logs/$1.rc")
	line=$(awk -F'\t' 'NF == 3 && $2 ~ /^[0-9.]+$/ && $3 ~ /^[0-9]+$/ { l = $0 } END { print l }' "$o")
	if [ -n "$line" ]; then # its result line, even if it was stopped or failed after printing it
		echo "$(echo "$line" | awk -F'\t' '{ printf "%.1f", $2 }') $(cat "$logs/$1.ms") $(echo "$line" | cut -f3)"
	elif [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
		echo ">$(cat "$logs/$1.cap")000 $(cat "$logs/$1.ms") cut"
	else
		echo "fail $(cat "$logs/$1.ms") fail"
	fi
}

# compile CFG KEY [EXTRA]: STMatch's driver for one configuration in its own tree, EXTRA added to
# the Makefile's nvcc OPTIONS; prints the binary's path. Without make, the Makefile's two nvcc
# commands (and its sed of src/config.h) are run as it would run them.
compile() {
	local cfg="$1" key="$2" extra="${3:-}"
	local tree="$work/src-$cfg" exe="$work/bin/$cfg-$key${extra:+-$(echo "$extra" | tr -c 'a-z0-9' _)}.exe"
	local log="$OUT/build-$cfg.log"
	if [ -x "$exe" ]; then
		echo "== $cfg: reusing $exe (built earlier on this machine)" >>"$log"
		echo "$exe"
		return 0
	fi
	local attempt opts
	for attempt in 1 2; do
		rm -rf "$tree"
		mkdir -p "$tree"
		tar -xzf "$dir/stmatch-src.tgz" -C "$tree"
		mkdir -p "$tree/bin"
		sed -i "s/-arch=compute_86/-arch=$arch/g" "$tree/Makefile"
		if [ -n "${GRID:-}" ]; then
			sed -i "s/GRID_DIM = [0-9]*;/GRID_DIM = $GRID;/" "$tree/src/config.h"
		fi
		opts="-Xptxas -v${extra:+ $extra}"
		[ "$attempt" = 2 ] && opts="$opts -include cstring -include climits -include cstdlib"
		{
			echo "== $cfg, attempt $attempt: make bin/$cfg.exe OPTIONS='$opts' (Makefile: -arch=$arch${GRID:+, GRID_DIM=$GRID})"
			date -u
		} >>"$log"
		local t0 ok=1 lim
		t0=$(now_ms)
		# each attempt within the run's deadline, a minute kept for the counts
		lim=$((deadline - $(date +%s) - 60))
		((lim > compile_limit)) && lim=$compile_limit
		((lim < 30)) && lim=30
		if command -v make >/dev/null && [ -z "${NO_MAKE:-}" ]; then
			(cd "$tree" && timeout "$lim" make "bin/$cfg.exe" OPTIONS="$opts") >>"$log" 2>&1 || ok=0
		else
			echo "(no make: its commands by hand)" >>"$log"
			# shellcheck disable=SC2086 # opts are several flags
			(cd "$tree" && set -x &&
				sed -i "/#include \"config_for_ae/c\\#include \"config_for_ae/$cfg.h\" " src/config.h &&
				timeout "$lim" nvcc -std=c++17 $opts -arch="$arch" -dc -I. src/gpu_match.cu -o "bin/$cfg.o" &&
				timeout "$lim" nvcc -std=c++17 $opts -arch="$arch" "bin/$cfg.o" cu_test.cu -o "bin/$cfg.exe") >>"$log" 2>&1 || ok=0
		fi
		if ((ok)); then
			echo "== built in $(($(now_ms) - t0)) ms (attempt $attempt)" >>"$log"
			mkdir -p "$work/bin"
			cp "$tree/bin/$cfg.exe" "$exe"
			echo "$exe"
			return 0
		fi
		echo "== attempt $attempt failed after $(($(now_ms) - t0)) ms" >>"$log"
	done
	return 1
}

# build_all KEY EXTRA CFG...: compiles the configurations at once; sets exe[CFG] (empty: failed).
build_all() {
	local key="$1" extra="$2" c pids=()
	shift 2
	for c in "$@"; do
		(compile "$c" "$key" "$extra" >"$work/exe-$c" 2>"$work/exe-$c.err") &
		pids+=($!)
	done
	# Meanwhile, the caller's work (the warm-up) when it is given as BUILD_MEANWHILE.
	[ -n "${meanwhile:-}" ] && "$meanwhile"
	local p
	for p in "${pids[@]}"; do wait "$p"; done
	for c in "$@"; do
		exe[$c]=$(cat "$work/exe-$c" 2>/dev/null)
		if [ -n "${exe[$c]}" ]; then
			echo "STMatch $c: $(grep -E '^== (built|attempt|.*reusing)' "$OUT/build-$c.log" | tail -3 | tr '\n' ' ')"
			# ptxas's report for the kernel: 1024-thread blocks need at most 64 registers a thread
			awk '/Compiling entry function .*parallel_match/ { on = 1 } on && /Used [0-9]+ registers/ { print "  kernel: " $0; on = 0 }' "$OUT/build-$c.log" | tail -1
		else
			echo "STMatch $c: BUILD FAILED (see build-$c.log)"
			grep -iE 'error|fatal|not found' "$OUT/build-$c.log" | head -8
		fi
	done
}

# sane CFG: STMatch's driver counts the 6-clique (q16; labelled in the labelled configuration)
# as submatch did at build (0: its kernel did not launch). Status 0 right, 1 wrong, 2 no answer.
sane() {
	local cfg="$1" col=6 out rc
	[ "$cfg" = table_edge_ulb ] && col=7
	local want
	want=$(awk -F'\t' -v c="$col" '$1 == "q16" { print $c }' "$dir/patterns.tsv")
	out=$(timeout -k 2 15 "${exe[$cfg]}" "$stg" "$dir/g/16.g" 2>&1)
	rc=$?
	out=$(echo "$out" | tail -1)
	echo "  sanity $cfg: q16 gives '$(echo "$out" | tr '\t' ' ')' (rc $rc), submatch at build: $want"
	[ "$(echo "$out" | cut -f3)" = "$want" ] && return 0
	[ "$rc" = 0 ] && return 1
	return 2
}

warm() {
	local q8u q8l t0
	q8u=$(awk -F'\t' '$1 == "q8" { print $3 }' "$dir/patterns.tsv")
	q8l=$(awk -F'\t' '$1 == "q8" { print $4 }' "$dir/patterns.tsv")
	# Every registered kernel first (the last-level-sum kernel, 1.4-2.8 s of NVRTC, cut q1's
	# first count at 3 s on 2026-12-05 when only the counts below warmed the cache).
	t0=$(now_ms)
	timeout 90 "$sm" gpu-info --compile >"$logs/warm-compile.txt" 2>&1
	echo "kernels compiled: rc $?, $(($(now_ms) - t0)) ms"
	t0=$(now_ms)
	timeout 90 "$sm" count --engine stmatch -v "$udata" '(a)-(b)-(c)' "$q8u" >"$logs/warm-u.txt" 2>&1
	echo "warm-up (unlabelled): rc $?, $(($(now_ms) - t0)) ms"
	t0=$(now_ms)
	timeout 60 "$sm" count --engine stmatch -v "$ldata" '(a:0)-(b:1)-(c:2)' "$q8l" >"$logs/warm-l.txt" 2>&1
	echo "warm-up (labelled): rc $?, $(($(now_ms) - t0)) ms"
}

run() {
	dir="${1:?usage: $0 run DIR}"
	: "${OUT:?set OUT to the folder for the results}"
	local start
	start=$(date +%s)
	deadline=$((start + ${DEADLINE:-285}))
	local margin=8 st_cap="${ST_CAP:-6}" our_cap="${OUR_CAP:-10}" cpu_cap="${CPU_CAP:-5}"
	arch="${ARCH:-sm_90}"
	compile_limit="${COMPILE_LIMIT:-200}"
	work="${STLAB_WORK:-$root/.dev-stlab-work}"
	logs="$OUT/logs"
	mkdir -p "$logs" "$work"
	export PATH="$PATH:/usr/local/cuda/bin"
	export SUBMATCH_KERNEL_CACHE="${SUBMATCH_KERNEL_CACHE:-$work/submatch-kernels}"
	sm="$work/submatch"
	gunzip -c "$dir/submatch.gz" >"$sm" && chmod +x "$sm"
	local nlab
	nlab=$(cut -d' ' -f1 "$dir/labels")
	ldata="$dir/wv-l$nlab.graph" udata="$dir/wiki-vote_input" stg="$dir/stm/wv"
	echo "submatch $(cat "$dir/head-rev"), STMatch $(cat "$dir/stmatch-rev"); labels: $(cat "$dir/labels" | awk '{ printf "%d, seed %d", $1, $2 }')"
	echo "$(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg); $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)"
	echo "nvcc: $(nvcc --version 2>/dev/null | tail -2 | tr '\n' ' '); host compiler: $(g++ --version 2>/dev/null | head -1)"

	# STMatch's two drivers, compiled at once, each in its own tree. Meanwhile (not timed): CUDA's
	# first start on this machine and submatch's kernel cache (its generic and clique kernels;
	# per-query kernels compile in the background of the counts, as a user's first runs do).
	local key
	key=$(md5sum <"$dir/stmatch-src.tgz" | cut -c1-10)-$arch-${GRID:-stock}
	declare -A exe
	meanwhile=warm build_all "$key" "" "${cfgs[@]}"
	# A build whose kernel cannot launch 1024-thread blocks (over 64 registers a thread) counts 0:
	# rebuilt once with -maxrregcount=64 (a flag).
	local bad=() c
	for c in "${cfgs[@]}"; do
		[ -n "${exe[$c]}" ] || continue
		sane "$c"
		case $? in
		1) bad+=("$c") ;;
		2) echo "  $c: no count in 15 s (it hangs or crashes: no rebuild would help); its counts below are suspect" ;;
		esac
	done
	if ((${#bad[@]})); then
		echo "STMatch's count is off for ${bad[*]}: rebuilding with -maxrregcount=64"
		meanwhile="" build_all "$key" "-maxrregcount=64" "${bad[@]}"
		for c in "${bad[@]}"; do
			[ -n "${exe[$c]}" ] && ! sane "$c" && echo "  $c: still off; its counts below are suspect"
		done
	fi
	echo "STMatch ready $(($(date +%s) - start)) s after the start"

	# The patterns: labelled in file order, unlabelled by STMatch's H100 time, smallest first.
	local settings="${SETTINGS-l u}" s order=()
	for s in $settings; do
		if [ "$s" = l ]; then
			mapfile -t names < <(grep -v '^#' "$dir/patterns.tsv" | cut -f1)
		else
			mapfile -t names < <(grep -v '^#' "$dir/patterns.tsv" | sort -t$'\t' -k5,5g | cut -f1)
		fi
		for q in "${names[@]}"; do
			if [ -n "${ONLY:-}" ] && ! [[ " $ONLY " == *" $q "* ]]; then continue; fi
			order+=("$s:$q")
		done
	done
	local item
	for item in "${order[@]}"; do
		s=${item%%:*}
		q=${item#*:}
		local row g pat data cfg h
		row=$(awk -F'\t' -v q="$q" '$1 == q' "$dir/patterns.tsv")
		g="$dir/g/$(echo "$row" | cut -f2)"
		h=$(echo "$row" | cut -f5)
		if [ "$s" = l ]; then
			pat=$(echo "$row" | cut -f4)
			data="$ldata"
			cfg=table_edge_lb
		else
			pat=$(echo "$row" | cut -f3)
			data="$udata"
			cfg=table_edge_ulb
		fi
		if (($(left) < margin + 6)); then
			echo "deadline: $s $q and the rest not run"
			echo "$item" >>"$logs/skipped"
			continue
		fi
		# STMatch
		local n="$s-$q" cap stm_ms=""
		if [ -n "${exe[$cfg]}" ]; then
			cap=$st_cap
			(($(left) - margin < cap)) && cap=$(($(left) - margin))
			echo "$cap" >"$logs/$n-stm.cap"
			timed "$n-stm" "$cap" "${exe[$cfg]}" "$stg" "$g"
			stm_ms=$(stm_cell "$n-stm" | cut -d' ' -f1)
		fi
		# submatch: enough time to say whether it beats STMatch
		local ocap=$our_cap
		if [[ "$stm_ms" =~ ^[0-9.]+$ ]]; then
			ocap=$(awk -v t="$stm_ms" -v m="$our_cap" 'BEGIN { c = int(2 * t / 1000 + 0.999) + 1; if (c < 3) c = 3; if (c > m) c = m; print c }')
		fi
		local e
		for e in auto stmatch; do
			local c2=$ocap
			(($(left) - margin - 3 < c2)) && c2=$(($(left) - margin - 3))
			((c2 >= 1)) || break
			ours "$n-$e" "$c2" "$e" "$data" "$pat"
		done
		# the CPU engine where STMatch is fast (its H100 figure when it did not run here)
		local ref="$stm_ms"
		[[ "$ref" =~ ^[0-9.]+$ ]] || { [ "$s" = u ] && ref="$h"; }
		if [[ ! "$ref" =~ ^[0-9.]+$ ]] || awk -v t="$ref" 'BEGIN { exit !(t < 400) }'; then
			local c3=$cpu_cap
			(($(left) - margin - 3 < c3)) && c3=$(($(left) - margin - 3))
			((c3 >= 1)) && ours "$n-cpu16" "$c3" cpu "$data" "$pat" --threads 16
		fi
		echo "$(date -u +%T) $n: STMatch $(stm_cell "$n-stm" | cut -d' ' -f1,3); auto $(our_cell "$n-auto"); stmatch $(our_cell "$n-stmatch"); cpu16 $(our_cell "$n-cpu16")"
	done
	echo
	table | tee "$OUT/table.tsv" | awk -F'\t' '{ printf "%-3s %-4s %8s %9s %7s %15s | %7s %-7s %15s | %7s %9s %15s | %6s %15s | %-4s %-9s %-7s %s\n", $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18 }'
	tar -czf "$OUT/logs.tgz" -C "$OUT" logs && rm -rf "$logs"
	echo "took $(($(date +%s) - start)) s"
}

# table: one row per pattern and setting that ran. Times in ms: h100 = STMatch's unlabelled
# kernel time on the H100 (the shared table, its compute_86 build), stm = STMatch's kernel (its
# cudaEvent time, as it prints it), proc = its whole process; auto/stmatch/cpu16 = submatch's whole
# process (exec to exit) with that engine, chose = auto's engine, st_kern = stmatch's kernel time
# (its JSON); "cut" = stopped at the cap (partial); eq = every finished count agrees; auto<=stm,
# st<=stm: the target (whole process at most STMatch's kernel time).
table() {
	printf 'set\tq\th100\tstm\tproc\tstm_count\tauto\tchose\tauto_count\tstmatch\tst_kern\tst_count\tcpu16\tcpu_count\teq\tauto<=stm\tst<=stm\tnote\n'
	local s q
	for s in l u; do
		for q in $(seq 1 24); do
			q="q$q"
			local n="$s-$q"
			[ -e "$logs/$n-auto.ms" ] || [ -e "$logs/$n-stm.ms" ] || continue
			local sk sp sc am ac sm_ sc2 cm cc chose
			read -r sk sp sc <<<"$(stm_cell "$n-stm")"
			read -r am ac <<<"$(our_cell "$n-auto")"
			read -r sm_ sc2 <<<"$(our_cell "$n-stmatch")"
			read -r cm cc <<<"$(our_cell "$n-cpu16")"
			chose=$(jfield engine "$logs/$n-auto.out")
			local eq=- first="" c k=0
			for c in "$sc" "$ac" "$sc2" "$cc"; do
				[[ "$c" =~ ^[0-9]+$ ]] || continue
				k=$((k + 1))
				if [ -z "$first" ]; then first=$c; elif [ "$c" != "$first" ]; then eq=no; fi
			done
			((k >= 2)) && [ "$eq" != no ] && eq=yes
			local note=""
			[ "$n" = u-q12 ] && note="STMatch known to print 850925682064 (true 840036045156)"
			local kern h100=-
			kern=$(jfield kernel_ms "$logs/$n-stmatch.out")
			[ "$s" = u ] && h100=$(awk -F'\t' -v q="$q" '$1 == q { print $5 }' "$dir/patterns.tsv")
			printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$s" "$q" "$h100" "$sk" "$sp" "$sc" \
				"$am" "${chose:--}" "$ac" "$sm_" "${kern:--}" "$sc2" "$cm" "$cc" "$eq" "$(verdict "$am" "$ac" "$sk")" "$(verdict "$sm_" "$sc2" "$sk")" "$note"
		done
	done
}

# verdict OURS_MS OURS_COUNT STM: yes/no, or "-" when it cannot be said.
verdict() {
	local o="$1" c="$2" k="$3"
	[[ "$o" =~ ^[0-9]+$ ]] || { echo -; return; }
	if [[ "$k" =~ ^[0-9.]+$ ]]; then
		if [ "$c" = cut ] || [ "$c" = fail ]; then echo no; return; fi
		awk -v o="$o" -v k="$k" 'BEGIN { print (o <= k ? "yes" : "no") }'
	elif [[ "$k" == '>'* ]]; then
		if [[ "$c" =~ ^[0-9]+$ ]] && ((o <= ${k#>})); then echo yes; else echo -; fi
	else
		echo -
	fi
}

dispatch "$@"
