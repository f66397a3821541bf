#!/usr/bin/env bash
# The DCSM engine's host part on email10 (csm/dcsm BenchmarkHostEmail10: ApplyEach with a backend
# that runs no kernel, beside the CPU engine with batches of one), this tree against a baseline
# revision, runs interleaved, medians printed. Host-side only: no GPU is used or measured.
#
#   scripts/dcsm-host-bench.sh [BASE] [RUNS]   BASE default main, RUNS default 9 (each run is
#                                              BenchmarkHostEmail10 with -benchtime 10x)
#
# BENCH (default HostEmail10) picks the benchmarks: e.g. BENCH='HostRMAT/dcsm' with DCSM_RMAT set
# to the R-MAT workload's directory (scripts/dcsm-check.sh build makes it in DIR/testdata/rmat14w).
# Each benchmark has dcsm-host (a backend that runs no kernel), dcsm-emu (the kernels' host
# emulation) and cpu-batch1; NAME+graph is until Graph returns after the stream (the host graph's
# update, which runs on a goroutine of its own after a long call, included).
set -eu -o pipefail
base="${1:-main}"
runs="${2:-9}"
source "$(dirname "${BASH_SOURCE[0]}")/dcsm-host-lib.sh"
dcsm_host_tests "$base"
for i in $(seq "$runs"); do
	for which in base new; do
		"$tmp/$which.test" -test.run XX -test.bench "${BENCH:-HostEmail10}" -test.benchtime 10x |
			awk -v w="$which" '/^Benchmark/ {
				for (i = 2; i < NF; i++) {
					if ($(i + 1) == "stream-ms") print w, $1, $i
					if ($(i + 1) == "graph-ms") print w, $1 "+graph", $i
				}
			}' >>"$tmp/all"
	done
done
echo "# base $(git -C "$root" rev-parse --short "$base"), new $(git -C "$root" rev-parse --short HEAD)$(git -C "$root" diff --quiet || echo '+changes'), $runs runs each, stream-ms medians (min-max)"
sort -k1,2 -k3n "$tmp/all" | awk '
	{k = $1 " " $2; v[k, ++n[k]] = $3}
	END {for (k in n) {m = n[k]; printf "%s %.2f (%.2f-%.2f)\n", k, (m % 2 ? v[k, (m + 1) / 2] : (v[k, m / 2] + v[k, m / 2 + 1]) / 2), v[k, 1], v[k, m]}}' | sort
