#!/usr/bin/env bash
# sgsi on an unlabelled R-MAT graph larger than --gpu-memory (issue 21, branch sgsi6): triangles
# (and, with time left, 4-cliques) out of core, with sgsi's -v line (chunks, bytes to the GPU,
# tiled tables, comm, comp, the host phases).
#
#   scripts/sgsi-unlab.sh build DIR   here (Go): DIR/submatch (CGO_ENABLED=0). DIR should be
#                                     git-ignored (/.dev-*/).
#   OUT=... bash scripts/sgsi-unlab.sh run DIR   on the device host: generates the graph in
#                                     /tmp/sgsi-unlab (R-MAT, seed 1, unless it is there), then
#                                     runs each count with --timeout, logs under $OUT.
#
# Knobs: SCALE (26: SGSI's FR size, 1.76e9 edges, about 80 s to generate and 17 GB), EDGE_FACTOR
# (27), GPU_MEMORY ("4GiB"; several, space separated, run one after the other), CAP (120s, each
# count's --timeout), THREADS (16), PATTERNS ("triangle"; add "k4" for 4-cliques), UNIQUE=1 also
# counts each subgraph once (--unique), CPU=1 first counts with the CPU engine (the reference),
# OVERLAP ("pieces", the default; "off pieces all" for the A/B of the pipeline) runs each sgsi
# count with each --sgsi-overlap mode, REPS times each (1), interleaved: off pieces all off ...;
# the -v line has comm, comp, overlap and pipelined.
set -u -o pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cmd=${1:-}
dir=${2:-}
if [[ -z $cmd || -z $dir ]]; then
	echo "usage: $0 build|run DIR" >&2
	exit 2
fi
case $cmd in
build)
	mkdir -p "$dir"
	(cd "$root" && CGO_ENABLED=0 go build -o "$dir/submatch" ./cmd/submatch) || exit 1
	echo "built $dir/submatch"
	;;
run)
	out=${OUT:-$dir/out}
	mkdir -p "$out"
	scale=${SCALE:-26}
	ef=${EDGE_FACTOR:-27}
	data=/tmp/sgsi-unlab/rmat-$scale-$ef.smg
	mkdir -p /tmp/sgsi-unlab
	if [[ ! -s $data ]]; then
		/usr/bin/time -v "$dir/submatch" gen rmat --scale "$scale" --edge-factor "$ef" --seed 1 --sync=false -o "$data" \
			>"$out/gen.log" 2>&1 || { echo "gen failed: see $out/gen.log"; exit 1; }
		grep -E "R-MAT|Maximum resident" "$out/gen.log"
	fi
	for p in ${PATTERNS:-triangle}; do
		case $p in
		triangle) q='(a)-(b)-(c)-(a)' ;;
		k4) q='(a)-(b)-(c)-(d)-(a), (a)-(c), (b)-(d)' ;;
		*) echo "unknown pattern $p" >&2; exit 2 ;;
		esac
		sems=("")
		[[ ${UNIQUE:-0} == 1 ]] && sems+=("--unique")
		for s in "${sems[@]}"; do
			if [[ ${CPU:-0} == 1 ]]; then
				log=$out/cpu-$p${s:+-unique}.log
				echo "== cpu $p $s --timeout ${CAP:-120s}"
				/usr/bin/time -f "whole process %e s, peak RSS %M KB" "$dir/submatch" count --engine cpu --threads "${THREADS:-16}" \
					--timeout "${CAP:-120s}" $s "$data" "$q" >"$log" 2>&1
				grep -E "embeddings|unique|whole process|rror" "$log" | cut -c1-500
			fi
			for m in ${GPU_MEMORY:-4GiB}; do
				for rep in $(seq "${REPS:-1}"); do
					for o in ${OVERLAP:-pieces}; do
						ov=(--sgsi-overlap="$o")
						log=$out/sgsi-$p${s:+-unique}-$m-overlap-$o-$rep.log
						echo "== sgsi $p $s --gpu-memory $m ${ov[*]} --timeout ${CAP:-120s} (rep $rep)"
						/usr/bin/time -f "whole process %e s, peak RSS %M KB" "$dir/submatch" count -v --engine sgsi --threads "${THREADS:-16}" \
							--gpu-memory "$m" --timeout "${CAP:-120s}" ${ov[@]+"${ov[@]}"} $s "$data" "$q" >"$log" 2>&1
						grep -E "sgsi|embeddings|unique|whole process|rror" "$log" | cut -c1-1500
					done
				done
			done
		done
	done
	;;
*)
	echo "usage: $0 build|run DIR" >&2
	exit 2
	;;
esac
