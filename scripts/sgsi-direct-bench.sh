#!/usr/bin/env bash
# The direct count against main on the host emulation (issue 21, branch sgsi7): oocprof of two
# builds, interleaved (A then B in every round), one TSV row a run with the count, whether it was
# cut, the engine's seconds, chunks, direct blocks and pieces, bytes to the "GPU".
#
#   bash scripts/sgsi-direct-bench.sh A_OOCPROF B_OOCPROF OUT.tsv "GRAPH QUERY DIV CAP" ...
#
# Build each side's oocprof with `go build -o DIR/oocprof ./scripts/oocprof` in its tree (main's
# from `git archive main`). ROUNDS (1) rounds of every case.
set -u -o pipefail
a=$1 b=$2 out=$3
shift 3
[[ -s $out ]] || printf 'case\tbuild\tround\tcount\tpartial\tseconds\tchunks\tblocks\tpieces\tto_gpu_bytes\n' >"$out"
for ((r = 1; r <= ${ROUNDS:-1}; r++)); do
	for c in "$@"; do
		read -r g q d cap <<<"$c"
		for side in A B; do
			bin=$a
			[[ $side == B ]] && bin=$b
			log=$("$bin" -data "$g" -query "$q" -div "$d" -engines sgsi -timeout "$cap" 2>&1)
			line=$(grep -m1 '^sgsi:' <<<"$log")
			count=$(sed -E 's/.*count ([0-9]+).*/\1/' <<<"$line")
			partial=$(sed -E 's/.*partial ([a-z]+).*/\1/' <<<"$line")
			secs=$(sed -E 's/.*partial [a-z]+, ([0-9.]+) s.*/\1/' <<<"$line")
			chunks=$(sed -E 's/.* ([0-9]+) chunks.*/\1/' <<<"$line")
			to=$(grep -m1 'to GPU' <<<"$log" | sed -E 's/.*to GPU ([0-9]+) B.*/\1/')
			blocks=$(grep -m1 'direct:' <<<"$log" | sed -E 's/.*direct: ([0-9]+) blocks.*/\1/')
			pieces=$(grep -m1 'direct:' <<<"$log" | sed -E 's/.* ([0-9]+) pieces.*/\1/')
			printf '%s/%s/1:%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$(basename "$g" .smg)" "$(basename "$q")" "$d" "$side" "$r" \
				"$count" "$partial" "$secs" "$chunks" "${blocks:--}" "${pieces:--}" "$to" >>"$out"
		done
	done
done
