#!/usr/bin/env bash
# pbe's host inter stage on one graph and pattern (branch pbehouse): builds' pbe counts at one
# --gpu-memory (the default partitioner, the host backend) and the CPU engine's whole count,
# interleaved round by round, one count a process, each process's CPU time.
#
#   scripts/pbehouse-bench.sh ROUNDS CAP GRAPH QUERY GPU_MEMORY NAME=BINARY:ENGINE...
#
# ENGINE is cpu or pbe; CAP every count's --timeout in seconds. One line a run: round, name,
# wall s, user s, sys s, then for pbe the -v stats line's inter_time, inter_shape and inter, and
# the count (a partial count ends in "(partial)"). Extra count flags (--unique) in FLAGS.
#
# e.g. scripts/pbehouse-bench.sh 3 120 r12.smg '(a)-(b)-(c)-(d)-(a), (e)-(a), (e)-(b)' 113502 \
#        main=./submatch-main:pbe new=./submatch:pbe cpu=./submatch:cpu
set -u -o pipefail
rounds="$1" cap="$2" graph="$3" query="$4" budget="$5"
shift 5
printf '%-5s %-6s %8s %8s %8s  %-12s %-16s %s\n' round name wall_s user_s sys_s inter_time shape inter/count
for r in $(seq 1 "$rounds"); do
	for spec in "$@"; do
		name="${spec%%=*}" bin="${spec#*=}" engine="${bin##*:}" bin="${bin%:*}"
		flags=(--engine "$engine")
		if [ "$engine" = pbe ]; then
			flags+=(-v --gpu-memory "$budget")
		fi
		tf=$(mktemp) lf=$(mktemp)
		out=$(/usr/bin/time -f '%e %U %S' -o "$tf" "$bin" count ${FLAGS:-} --threads "$(nproc)" --timeout "${cap}s" \
			"${flags[@]}" "$graph" "$query" 2>"$lf" | tail -1 | cut -f2,5)
		read -r wall user sys < <(tail -1 "$tf")
		it=$(grep -o 'stats.inter_time=[^ ]*' "$lf" | head -1 | cut -d= -f2)
		sh=$(grep -o 'stats.inter_shape=[^ ]*' "$lf" | head -1 | cut -d= -f2)
		inter=$(grep -o 'stats.inter=[0-9]*' "$lf" | head -1 | cut -d= -f2)
		rm -f "$tf" "$lf"
		printf '%-5s %-6s %8s %8s %8s  %-12s %-16s %s %s\n' "$r" "$name" "$wall" "$user" "$sys" "${it:--}" "${sh:--}" "${inter:--}" "$out"
	done
done
