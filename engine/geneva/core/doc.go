// Package core owns GENEVA's data layout and query planning: interval-PCSR over edge-label
// partitions with GENMAP vertex renaming, the interval index, and the decomposition of a query
// into extension and elimination phases. The GPU kernels that consume them live in the engine.
//
// The paper is Lai et al., "GENEVA: subgraph search using parallel vertex matching on GPUs"
// (IEEE TPDS); section numbers in comments refer to it. An edge-label partition (ELP) holds the
// edges of one label, in both directions, and the vertices they touch (Section 4). GENMAP
// (Algorithm 2) renames vertices so that every ELP's vertices form few runs of consecutive ids;
// each run is one entry of the ELP's interval index, which the GPU searches in shared memory to
// find a vertex's row (Section 4.1).
//
// Beyond the paper, a count whose query has closing vertices (all their neighbours matched before
// them: leaves, vertices closing cycles last) plans the rest of the query and counts those from
// the sizes of their candidate sets in one final Counting step instead of matching them
// (PlanCounting; count.go says what is counted exactly and what is matched instead), as the CPU
// engine counts its postponed leaves.
package core
