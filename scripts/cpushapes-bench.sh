#!/bin/bash
# usage: scripts/cpushapes-bench.sh CAP (seconds a run), in a folder holding ./sm-main and ./sm-new
# (go build -o of the two commits) and r14.smg, r14u8.smg, r16.smg, r16u8.smg (submatch gen rmat
# --scale 14|16 --edge-factor 16 --seed 1 [--vertex-labels 8]). Alternates the binaries, 3 runs
# each, --engine cpu --threads 2, /usr/bin/time's user, sys and wall seconds and the load; a
# binary cut at CAP on a pattern's first run is not run again on it.
cap=$1
declare -A Q=( [house]='(a)-(b)-(c)-(d)-(a), (a)-(e)-(b)' [4-cycle]='(a)-(b)-(c)-(d)-(a)' [4-path]='(a)-(b)-(c)-(d)' [tailed-4-cycle]='(a)-(b)-(c)-(d)-(a), (b)-(e)' [diamond]='(a)-(b)-(c)-(d)-(a), (a)-(c)' [paw]='(a)-(b)-(c)-(a), (a)-(d)' )
for g in r14 r14u8 r16 r16u8; do
 for name in diamond paw 4-path 4-cycle tailed-4-cycle house; do
  skip_main=0
  for rep in 1 2 3; do
   for b in main new; do
    if [ $b = main ] && [ $skip_main = 1 ]; then echo "$g $name $b $rep SKIP"; continue; fi
    out=$( { /usr/bin/time -f "TIME %U %S %e" timeout $cap ./sm-$b count --engine cpu --threads 2 $g.smg "${Q[$name]}"; } 2>&1 )
    rc=$?
    cnt=$(echo "$out" | awk -F'\t' 'NF>=3{print $2}')
    t=$(echo "$out" | grep TIME | sed 's/TIME //')
    [ $b = main ] && [ $rc = 124 ] && skip_main=1
    echo "$g $name $b $rep rc=$rc count=$cnt time=$t load=$(cut -d' ' -f1 /proc/loadavg)"
   done
  done
 done
done
