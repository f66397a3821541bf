package graph

import "fmt"

// FromRawTrusted wraps arrays as a Graph checking only what keeps every accessor in bounds:
// array lengths, monotone offsets and run starts inside each vertex's list, and neighbour ids
// below n. It skips the label, order and symmetry checks of Validate (whose symmetry check is
// O(m log d)), so it is only for arrays whose integrity is already established, for example
// a snapshot whose checksum matched the one written from a valid graph. O(n + m).
func FromRawTrusted(r Raw) (*Graph, error) {
	g := wrapRaw(r)
	n := len(g.vertexLabels)
	if len(g.offsets) != n+1 || len(g.runOffsets) != n+1 {
		return nil, fmt.Errorf("graph: offset arrays have %d and %d entries, want %d", len(g.offsets), len(g.runOffsets), n+1)
	}
	if g.offsets[0] != 0 || g.offsets[n] != uint64(len(g.neighbors)) ||
		g.runOffsets[0] != 0 || g.runOffsets[n] != uint64(len(g.runs)) {
		return nil, fmt.Errorf("graph: offsets do not span the neighbour and run arrays")
	}
	if g.edgeLabels != nil && len(g.edgeLabels) != len(g.neighbors) {
		return nil, fmt.Errorf("graph: %d edge labels for %d neighbour entries", len(g.edgeLabels), len(g.neighbors))
	}
	if g.originalIDs != nil && len(g.originalIDs) != n {
		return nil, fmt.Errorf("graph: %d original ids for %d vertices", len(g.originalIDs), n)
	}
	// Both offset arrays are monotone (so, spanning 0..len, every entry is in range) before any
	// is used as an index.
	for v := 0; v < n; v++ {
		lo, hi := g.offsets[v], g.offsets[v+1]
		rlo, rhi := g.runOffsets[v], g.runOffsets[v+1]
		if lo > hi || rlo > rhi || (hi == lo) != (rhi == rlo) {
			return nil, fmt.Errorf("graph: vertex %d has inconsistent offsets", v)
		}
	}
	for v := 0; v < n; v++ {
		lo, hi := g.offsets[v], g.offsets[v+1]
		rlo, rhi := g.runOffsets[v], g.runOffsets[v+1]
		prev := lo
		for i := rlo; i < rhi; i++ {
			s := g.runs[i].Start
			if s < prev || s >= hi || (i == rlo && s != lo) || (i > rlo && s == prev) {
				return nil, fmt.Errorf("graph: vertex %d run %d covers an invalid range", v, i-rlo)
			}
			prev = s
		}
	}
	for _, w := range g.neighbors {
		if uint64(w) >= uint64(n) {
			return nil, fmt.Errorf("graph: neighbour %d out of range", w)
		}
	}
	return g, nil
}
