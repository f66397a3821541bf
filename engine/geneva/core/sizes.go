package core

import "github.com/submatch/submatch/graph"

// HashSlotsPerVertex is the number of (vertex, offset) pairs GSI's hash-PCSR reserves per vertex
// of an ELP: it hashes the |V(D)| vertices of a partition into Δ = |V(D)| groups of Θ = 16 pairs
// (SGSI, Section 4, Definition 5 and "Parameter Setting Δ"; Θ <= 16 so one warp reads a group in
// one transaction), i.e. one used slot and the "30 empty entries" GENEVA cites (Section 4 and
// Section 8.2: "32×24737 32-bit variables" for Enron's 24737-vertex ELP).
const HashSlotsPerVertex = 16

// Sizes are the bytes of one data graph in the three layouts of the paper's Table 2.
//
// The model: vertex ids, labels and interval-index fields are 4 B, row offsets 8 B (graph's
// 64-bit offsets). Plain CSR is our graph's storage without its run index: n+1 offsets, 2m
// neighbour entries, n vertex labels and, when any edge label is non-zero, 2m edge labels.
// Interval-PCSR is TotalBytes (every ELP's interval index, offsets and neighbours, plus the
// vertex labels once). Hash-PCSR is, per ELP of n_e vertices and 2m_e entries, n_e groups of
// HashSlotsPerVertex 8-byte (vertex, offset) pairs plus the 2m_e-entry column index, plus the
// vertex labels once. The Max fields are the largest single ELP, what one phase uploads.
type Sizes struct {
	CSR             uint64 `json:"csr_bytes"`
	IntervalPCSR    uint64 `json:"interval_pcsr_bytes"`
	IntervalPCSRMax uint64 `json:"interval_pcsr_max_elp_bytes"`
	HashPCSR        uint64 `json:"hash_pcsr_bytes"`
	HashPCSRMax     uint64 `json:"hash_pcsr_max_elp_bytes"`
}

// CSRBytes returns the plain-CSR bytes of g under the Sizes model.
func CSRBytes(g *graph.Graph) uint64 {
	n, entries := uint64(g.NumVertices()), 2*g.NumEdges()
	b := 8*(n+1) + 4*entries + 4*n
	if g.HasEdgeLabels() {
		b += 4 * entries
	}
	return b
}

// HashBytes returns the bytes ELP e would take as GSI's hash-PCSR under the Sizes model.
func (pc *PCSR) HashBytes(e int) uint64 {
	return 8*HashSlotsPerVertex*uint64(pc.NumVertices(e)) + 4*uint64(len(pc.Parts[e].Neighbors))
}

// ComputeSizes returns the Table 2 sizes of g laid out as pc (built from g).
func ComputeSizes(g *graph.Graph, pc *PCSR) Sizes {
	s := Sizes{CSR: CSRBytes(g), IntervalPCSR: pc.TotalBytes(), HashPCSR: 4 * uint64(g.NumVertices())}
	for e := range pc.Parts {
		s.IntervalPCSRMax = max(s.IntervalPCSRMax, pc.Bytes(e))
		h := pc.HashBytes(e)
		s.HashPCSR += h
		s.HashPCSRMax = max(s.HashPCSRMax, h)
	}
	return s
}
