#!/usr/bin/env bash
# Instruction counts of the DCSM engine's host parts (csm/dcsm BenchmarkHost*, dcsm-host-p1: a
# backend that runs no kernel, one thread), this tree against a baseline revision, under
# callgrind (GOGC=off GOMAXPROCS=1 GODEBUG=asyncpreemptoff=1, one iteration), collected inside
# one function at a time:
#   ApplyEach   the whole call (with one processor the parts run inline, so this is their sum;
#               the host graph's update after a long call runs on a goroutine and may fall in or out)
#   validate    validating the updates (before branch dcsm6 also the host graph's update)
#   bookChunk   the waves' bookkeeping, launches and reports (of the waves launched during the call)
#   drain       the call's last wave: its launch and the reports of the waves still in flight
#   applyOwned  the host graph's update from the log (branch dcsm6 on; absent before)
# Host-side only: no GPU is used or measured.
#
#   scripts/dcsm-host-callgrind.sh [BASE]   BASE default main; BENCH default HostEmail10 (HostRMAT
#                                           needs DCSM_RMAT, see scripts/dcsm-host-bench.sh)
set -eu -o pipefail
base="${1:-main}"
bench="${BENCH:-HostEmail10}"
source "$(dirname "${BASH_SOURCE[0]}")/dcsm-host-lib.sh"
dcsm_host_tests "$base"
echo "# base $(git -C "$root" rev-parse --short "$base"), new $(git -C "$root" rev-parse --short HEAD)$(git -C "$root" diff --quiet || echo '+changes'), $bench/dcsm-host-p1, instructions"
for fn in '(*Matcher).ApplyEach' '(*Matcher).validate' '(*Matcher).bookChunk' '(*Matcher).drain' 'graph/dynamic.(*Graph).applyOwned'; do
	case $fn in
	graph/*) full="github.com/submatch/submatch/$fn" ;;
	*) full="github.com/submatch/submatch/csm/dcsm.$fn" ;;
	esac
	for which in base new; do
		n=$(GOGC=off GOMAXPROCS=1 GODEBUG=asyncpreemptoff=1 valgrind --tool=callgrind --callgrind-out-file=/dev/null \
			--collect-atstart=no --toggle-collect="$full" "$tmp/$which.test" -test.run XX \
			-test.bench "$bench/dcsm-host-p1" -test.benchtime 1x 2>&1 | sed -n 's/.*Collected : //p')
		printf '%s\t%s\t%s\n' "$which" "$fn" "$n"
	done
done
