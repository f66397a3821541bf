#!/usr/bin/env bash
# GENEVA's Table 2 for our graphs: the bytes of plain CSR, interval-PCSR (total and largest
# edge-label partition) and GSI's hash-PCSR, from `submatch stats --formats --json`, for the
# shared test graphs as they are and for R-MAT graphs sized and labelled like the paper's Table 1
# (3 to 12 vertex and edge labels). Host only, no GPU; about 5 minutes on 2 cores with the
# default GRAPHS.
#
#   bash scripts/table2.sh                  # builds bin/submatch, writes bin/table2/table2.md
#   RMAT="15:6:3 18:3:5" bash scripts/table2.sh   # scale:edge-factor:labels of the R-MAT rows
#
# The issue-4 targets it reports on: interval-PCSR at most 1.2x the bytes of plain CSR and at most
# a fifth of hash-PCSR.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

T=${TESTDATA:-../shared/testdata}
OUTDIR=${OUTDIR:-bin/table2}
# Enron-like (36K vertices, 183K edges, 3 labels), DD-like (0.3M, 0.8M, 5), Gowalla-like (0.2M,
# 0.9M, 5), Patents-like (3.7M, 16M, 7; scale 21 here), Orkut-like in degree (12 labels).
RMAT=${RMAT:-"15:6:3 18:3:5 18:4:5 21:4:7 18:40:12"}
mkdir -p "$OUTDIR"
go build -o bin/submatch ./cmd/submatch

row() { # name path
	local name=$1 path=$2
	bin/submatch stats --formats --json "$path" | python3 -c '
import json, sys
name = sys.argv[1]
d = json.load(sys.stdin)
f = d["formats"]["geneva"]
mib = lambda b: "%.1f MiB" % (b / 2**20) if b < 2**30 else "%.2f GiB" % (b / 2**30)
print("| %s | %s | %s | %d | %d | %s | %s | %s | %s | %.2fx | %.0f%% | %d | %.0f ms |" % (
    name, format(d["vertices"], ","), format(d["edges"], ","), d["vertex_labels"], d["edge_labels"],
    mib(f["csr_bytes"]), mib(f["interval_pcsr_bytes"]), mib(f["interval_pcsr_max_elp_bytes"]),
    mib(f["hash_pcsr_bytes"]), f["interval_pcsr_bytes"] / f["csr_bytes"],
    100 * f["interval_pcsr_bytes"] / f["hash_pcsr_bytes"], f["intervals"], f["build_ms"]))
' "$name"
}

{
	echo "| graph | vertices | edges | vertex labels | edge labels | CSR | interval-PCSR | largest ELP | hash-PCSR | interval / CSR | interval / hash | intervals | build |"
	echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
	for g in "github:$T/github-gmatch/data.graph" "HPRD:$T/hprd-subgraphmatching/HPRD.graph" \
		"wiki-Vote:$T/wikivote-graphpi/wiki-vote_input" "citeseer:$T/citeseer-graphminer"; do
		[ -e "${g#*:}" ] && row "${g%%:*}" "${g#*:}"
	done
	for spec in $RMAT; do
		IFS=: read -r scale ef labels <<<"$spec"
		f="$OUTDIR/rmat-$scale-$ef-$labels.smg"
		[ -f "$f" ] || bin/submatch gen rmat --scale "$scale" --edge-factor "$ef" \
			--vertex-labels "$labels" --edge-labels "$labels" -o "$f" >/dev/null
		row "R-MAT $scale, edge factor $ef" "$f"
	done
} | tee "$OUTDIR/table2.md"
