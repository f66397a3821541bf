#!/usr/bin/env bash
# Times pbe (host backend) and sgsi (host emulation) at a quarter of the graph's bytes, and the
# cpu engine, on R-MAT graphs with 1,000 zipf vertex labels and 1,000 (or 1) edge labels and dense
# walk queries (issue 21, SGSI's FR kind), alternating two builds of scripts/oocprof, REPS runs
# each; prints one line per run: build graph query engine count engine-seconds user sys wall.
#
#   BASE=/tmp/oocprof-main NEW=/tmp/oocprof-branch DIR=/tmp/g scripts/edgelab/bench.sh
#
# DIR holds rSCALEeK.smg and qSCALEeK/ (submatch gen rmat --scale S --vertex-labels 1000
# --label-dist zipf --edge-labels K; submatch gen queries --sizes 6,8,12 --count 3 --density dense).
set -euo pipefail
: "${BASE:?}" "${NEW:?}" "${DIR:?}"
REPS=${REPS:-3}
CASES=${CASES:-"18e1000 20e1000 21e1000"}
QUERIES=${QUERIES:-"q_6_0 q_8_0 q_12_0 q_12_1"}
ENGINES=${ENGINES:-"pbe sgsi"}
TIMEOUT=${TIMEOUT:-60s}
for c in $CASES; do
  for q in $QUERIES; do
    for e in $ENGINES; do
      for rep in $(seq "$REPS"); do
        for b in base new; do
          bin=$BASE; [ "$b" = new ] && bin=$NEW
          out=$( { /usr/bin/time -f 'TIME %U %S %e' "$bin" -data "$DIR/r$c.smg" -query "$DIR/q$c/$q.graph" \
            -div 4 -engines "$e" -timeout "$TIMEOUT"; } 2>&1 )
          line=$(grep "^$e: count" <<<"$out" | head -1)
          count=$(awk '{print $3}' <<<"$line")
          secs=$(sed -E 's/.*, ([0-9.]+) s:.*/\1/' <<<"$line")
          t=$(grep '^TIME' <<<"$out" | awk '{print $2, $3, $4}')
          echo "$b r$c $q $e $count $secs $t"
        done
      done
    done
  done
done
