#!/usr/bin/env bash
# Builds of submatch side by side on STMatch's 24 labelled patterns on wiki-Vote (issue 17): the
# same counts by several binaries, whole process, interleaved, to measure a change (a constant,
# a scheduler setting) on the device host's cores before it is committed.
#
#   VARIANTS="name=rev[:patch] ..." LAB_INPUTS=.dev-stlab scripts/variant-bench.sh build DIR
#                         here (Go): for each variant, the tree at git revision rev (of this
#                         repository) with the optional patch file applied, built CGO_ENABLED=0
#                         into DIR/name.gz; the patterns (patterns.tsv: column 1 the name, 4 the
#                         labelled pattern, 6 its count) and wv-l10.smg from LAB_INPUTS (made by
#                         scripts/stmatch-peer.sh build, then `submatch convert`). 3.3 MB a variant.
#   OUT=... bash scripts/variant-bench.sh run DIR
#                         on the device host (bash 5, coreutils): every pattern ROUNDS (7) times by
#                         every variant, `count --engine cpu` on the snapshot, the variants' order
#                         rotating each round; each count is checked against column 6. One table
#                         (medians, ms, whole process: fork, exec, run, exit and wait) on stdout and
#                         in $OUT/variants.txt. DEADLINE (s, default 90) ends it early.
#
# Device call: carry ["DIR"], command `OUT=$OUT bash scripts/variant-bench.sh run DIR`.
set -u -o pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
source scripts/bench-lib.sh

build() {
	set -e
	local dir="$1" inputs="${LAB_INPUTS:-.dev-stlab}" spec name rev patch tmp
	: "${VARIANTS:?set VARIANTS to name=rev[:patch] ...}"
	mkdir -p "$dir"
	git check-ignore -q "$dir" || {
		echo "build: $dir is not git-ignored (use a .dev-* folder)" >&2
		return 2
	}
	: >"$dir/variants"
	for spec in $VARIANTS; do
		name="${spec%%=*}" rev="${spec#*=}" patch=""
		if [[ "$rev" == *:* ]]; then
			patch="$(realpath "${rev#*:}")" rev="${rev%%:*}"
		fi
		tmp="$(mktemp -d "${TMPDIR:-/tmp}/variant-bench.XXXXXX")"
		git archive "$rev" | tar -x -C "$tmp"
		[ -z "$patch" ] || patch -s -d "$tmp" -p1 <"$patch"
		(cd "$tmp" && CGO_ENABLED=0 go build -trimpath -ldflags='-s -w' -o "$tmp/bin" ./cmd/submatch)
		gzip -9 -c "$tmp/bin" >"$dir/$name.gz"
		rm -rf "$tmp"
		echo "$name $(git rev-parse --short "$rev")${patch:+ + $(basename "$patch")}" >>"$dir/variants"
	done
	cp -f "$inputs/patterns.tsv" "$inputs/wv-l10.smg" "$dir/"
	chmod u+w "$dir"/*
	du -sh "$dir"
}

run() {
	local dir="$1"
	: "${OUT:?set OUT to the folder for the results}"
	local start=$SECONDS deadline=${DEADLINE:-90} rounds=${ROUNDS:-7}
	local bin="${TMPDIR:-/tmp}/variant-bench.$$" logs="$OUT/vlogs"
	mkdir -p "$bin" "$logs"
	mapfile -t vnames < <(cut -d' ' -f1 "$dir/variants")
	local v
	for v in "${vnames[@]}"; do
		cp "$dir/$v.gz" "$bin/"
	done
	unpack_bins "$bin" "${vnames[@]}" || return 2
	sed 's/^/# variant /' "$dir/variants"
	mapfile -t names < <(grep -v '^#' "$dir/patterns.tsv" | cut -f1)
	mapfile -t pats < <(grep -v '^#' "$dir/patterns.tsv" | cut -f4)
	mapfile -t want < <(grep -v '^#' "$dir/patterns.tsv" | cut -f6)
	local n=${#names[@]} nv=${#vnames[@]} i r k stopped="" bad=0
	for ((i = 0; i < n; i++)); do
		if ((SECONDS - start >= deadline)); then
			stopped="${names[i]}"
			break
		fi
		for ((r = 0; r < rounds; r++)); do
			for ((k = 0; k < nv; k++)); do
				v="${vnames[(k + r) % nv]}"
				local t0 t1 q count
				t0=${EPOCHREALTIME//[.,]/}
				"$bin/$v" count --engine cpu "$dir/wv-l10.smg" "${pats[i]}" >"$logs/out" 2>&1
				t1=${EPOCHREALTIME//[.,]/}
				echo $((10#$t1 - 10#$t0)) >>"$logs/${names[i]}-$v.us"
				IFS=$'\t' read -r q count _ <"$logs/out"
				if [ "$count" != "${want[i]}" ]; then
					echo "# MISMATCH ${names[i]} $v: $count, want ${want[i]}"
					bad=1
				fi
			done
		done
	done
	[ -n "$stopped" ] && echo "# stopped before $stopped: DEADLINE ${deadline}s reached"
	{
		printf 'q'
		printf '\t%s' "${vnames[@]}"
		printf '\n'
		for ((i = 0; i < n; i++)); do
			[ -s "$logs/${names[i]}-${vnames[0]}.us" ] || break
			printf '%s' "${names[i]}"
			for v in "${vnames[@]}"; do
				printf '\t%s' "$(sort -n "$logs/${names[i]}-$v.us" | awk '{ a[NR] = $1 } END { printf "%.2f", a[int((NR + 1) / 2)] / 1000 }')"
			done
			printf '\n'
		done
	} | tee "$OUT/variants.txt"
	rm -rf "$bin" "$logs"
	echo "# took $((SECONDS - start)) s; counts $( ((bad)) && echo 'MISMATCHED' || echo 'all as expected')"
}

dispatch "$@"
