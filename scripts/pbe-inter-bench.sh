#!/usr/bin/env bash
# pbe's inter-partition stage against the CPU engine in core (issue 21, branch pbe7): one count a
# process, configurations interleaved round by round, whole process timed with its CPU time.
#
#   scripts/pbe-inter-bench.sh ROUNDS CAP GRAPH QUERY GPU_MEMORY NAME=BINARY:ENGINE...
#
# ENGINE is cpu (--engine cpu) or pbe (--engine pbe --pbe-partitioner ranges --gpu-memory
# GPU_MEMORY, the host backend). CAP is every count's --timeout in seconds. One line a run:
# round, name, wall s, user s, sys s, count (a partial count ends in "(partial)").
#
# e.g. scripts/pbe-inter-bench.sh 3 120 r17.smg '(a)-(b)-(c)-(a)' 5MB \
#        cpu=./submatch:cpu old=./submatch-old:pbe new=./submatch:pbe
set -u -o pipefail
rounds="$1" cap="$2" graph="$3" query="$4" budget="$5"
shift 5
printf '%-5s %-6s %8s %8s %8s  %s\n' round name wall_s user_s sys_s count
for r in $(seq 1 "$rounds"); do
	for spec in "$@"; do
		name="${spec%%=*}" bin="${spec#*=}" engine="${bin##*:}" bin="${bin%:*}"
		flags=(--engine "$engine")
		if [ "$engine" = pbe ]; then
			flags+=(--pbe-partitioner ranges --gpu-memory "$budget")
		fi
		tf=$(mktemp)
		out=$(/usr/bin/time -f '%e %U %S' -o "$tf" "$bin" count --threads "$(nproc)" --timeout "${cap}s" \
			"${flags[@]}" "$graph" "$query" 2>/dev/null | tail -1 | cut -f2,5)
		read -r wall user sys < <(tail -1 "$tf")
		rm -f "$tf"
		printf '%-5s %-6s %8s %8s %8s  %s\n' "$r" "$name" "$wall" "$user" "$sys" "$out"
	done
done
