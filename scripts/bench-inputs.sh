#!/bin/bash
# Loading and stats timings for docs/benchmarks.md ("Inputs and stats"): a scale-20 R-MAT graph as
# a snapshot, as t/v/e text and gzip-compressed text, loaded by a baseline binary and by this
# tree's, and stats' structure measures. Usage: scripts/bench-inputs.sh BASELINE_BINARY NEW_BINARY DIR
# Prints the median of 5 wall-clock runs of each command (seconds).
set -eu
base=$1 new=$2 dir=$3
mkdir -p "$dir"
cd "$dir"
[ -f r20.smg ] || "$new" gen rmat --scale 20 -o r20.smg >/dev/null
[ -f r20.graph ] || "$new" convert r20.smg r20.graph >/dev/null
[ -f r20.graph.gz ] || gzip -1 -k r20.graph
med() { for i in 1 2 3 4 5; do /usr/bin/time -f %e "$@" 2>&1 >/dev/null | tail -1; done | sort -n | sed -n 3p; }
echo "baseline stats r20.smg                 $(med "$base" stats r20.smg)"
echo "new      stats --no-structure r20.smg  $(med "$new" stats --no-structure r20.smg)"
echo "baseline stats r20.graph               $(med "$base" stats r20.graph)"
echo "new      stats --no-structure r20.graph $(med "$new" stats --no-structure r20.graph)"
echo "new      stats --no-structure r20.graph.gz $(med "$new" stats --no-structure r20.graph.gz)"
echo "new      stats r20.smg (structure)     $(med "$new" stats r20.smg)"
