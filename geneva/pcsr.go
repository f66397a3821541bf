package geneva

import (
	"fmt"
	"math"
	"slices"
	"sort"

	"submatch/graph"
)

// Partition is the interval-PCSR of one ELP (Section 4.1, Fig. 4d): a CSR over the ELP's
// vertices in new-id order, whose rows are found through the interval index.
//
// Interval i covers the new ids Starts[i] .. Starts[i]+(Bases[i+1]-Bases[i])-1, whose rows are
// Bases[i] .. Bases[i+1]-1: a vertex's row is Bases[i] + (v - Starts[i]). Bases has one entry
// more than Starts, the number of rows. The neighbours of row r are Neighbors[Offsets[r]:
// Offsets[r+1]], new ids, increasing.
type Partition struct {
	Label     uint32
	Starts    []uint32
	Bases     []uint32
	Offsets   []uint64
	Neighbors []uint32
}

// PCSR is a data graph in GENEVA's layout: vertices renamed by GENMAP, one interval-PCSR per
// ELP. Every id it holds or takes is a new id.
type PCSR struct {
	// Parts[e] is ELP e; Parts is ordered by edge label.
	Parts []Partition
	// VertexLabels[v] is the label of new id v.
	VertexLabels []uint32
	// OldToNew and NewToOld are GENMAP's renaming and its inverse.
	OldToNew, NewToOld []uint32

	index map[uint32]int
}

// Build lays g out as interval-PCSR: it computes the ELPs, renames vertices with GenMap and builds
// each ELP's interval index and CSR. It fails when an ELP has 2^32 rows or more (the interval index
// holds 32-bit row numbers); vertex ids are 32-bit already.
func Build(g *graph.Graph) (*PCSR, error) {
	p := NewPartitions(g)
	oldToNew, newToOld := GenMap(p)
	n := g.NumVertices()
	pc := &PCSR{
		Parts:        make([]Partition, p.Len()),
		VertexLabels: make([]uint32, n),
		OldToNew:     oldToNew,
		NewToOld:     newToOld,
		index:        map[uint32]int{},
	}
	for w, v := range newToOld {
		pc.VertexLabels[w] = g.VertexLabel(v)
	}
	// rows[e] counts the rows of ELP e handed out so far; visiting new ids in order gives every
	// ELP its rows in new-id order.
	rows := make([]uint64, p.Len())
	for e := range pc.Parts {
		part := &pc.Parts[e]
		part.Label = p.Labels[e]
		if uint64(len(p.Vertices[e])) > math.MaxUint32 {
			return nil, fmt.Errorf("geneva: ELP of edge label %d has %d vertices, more than 32-bit rows allow", part.Label, len(p.Vertices[e]))
		}
		part.Offsets = make([]uint64, 1, len(p.Vertices[e])+1)
		part.Neighbors = make([]uint32, 0, p.Entries[e])
		pc.index[part.Label] = e
	}
	for w, v := range newToOld {
		for _, e := range p.ShareSet(v) {
			part := &pc.Parts[e]
			r := rows[e]
			rows[e]++
			if len(part.Starts) == 0 || part.Starts[len(part.Starts)-1]+uint32(r-uint64(part.Bases[len(part.Bases)-1])) != uint32(w) {
				part.Starts = append(part.Starts, uint32(w))
				part.Bases = append(part.Bases, uint32(r))
			}
			// The row's neighbours: every run of v with this ELP's label, renamed and sorted.
			start := len(part.Neighbors)
			for ri, run := range g.Runs(v) {
				if run.EdgeLabel != part.Label {
					continue
				}
				for _, x := range g.RunNeighbors(v, ri) {
					part.Neighbors = append(part.Neighbors, oldToNew[x])
				}
			}
			slices.Sort(part.Neighbors[start:])
			part.Offsets = append(part.Offsets, uint64(len(part.Neighbors)))
		}
	}
	for e := range pc.Parts {
		pc.Parts[e].Bases = append(pc.Parts[e].Bases, uint32(rows[e]))
	}
	return pc, nil
}

// NumELPs returns the number of ELPs.
func (pc *PCSR) NumELPs() int { return len(pc.Parts) }

// ELP returns the ELP of edge label l, or -1 when no edge carries it.
func (pc *PCSR) ELP(l uint32) int {
	if e, ok := pc.index[l]; ok {
		return e
	}
	return -1
}

// NumIntervals returns the size of ELP e's interval index.
func (pc *PCSR) NumIntervals(e int) int { return len(pc.Parts[e].Starts) }

// NumVertices returns the number of vertices of ELP e (its rows).
func (pc *PCSR) NumVertices(e int) int { return len(pc.Parts[e].Offsets) - 1 }

// Row returns the row of new id v in ELP e, found by binary search over the interval starts as
// the GPU does in shared memory, or false when v is not in the ELP.
func (p *Partition) Row(v uint32) (uint32, bool) {
	i := sort.Search(len(p.Starts), func(i int) bool { return p.Starts[i] > v }) - 1
	if i < 0 {
		return 0, false
	}
	r := uint64(p.Bases[i]) + uint64(v-p.Starts[i])
	if r >= uint64(p.Bases[i+1]) {
		return 0, false
	}
	return uint32(r), true
}

// Neighbors returns the neighbours of new id v in ELP e, new ids increasing, or nil when v is not
// in the ELP. The slice aliases storage; do not modify.
func (pc *PCSR) Neighbors(e int, v uint32) []uint32 {
	p := &pc.Parts[e]
	r, ok := p.Row(v)
	if !ok {
		return nil
	}
	return p.Neighbors[p.Offsets[r]:p.Offsets[r+1]]
}

// Bytes returns the device bytes of ELP e: the interval index (4 B start + 4 B base per interval,
// plus the final base), the row offsets (8 B per row plus one) and the neighbours (4 B per
// directed edge entry). This is what one phase uploads.
func (pc *PCSR) Bytes(e int) uint64 {
	p := &pc.Parts[e]
	return 4*uint64(len(p.Starts)+len(p.Bases)) + 8*uint64(len(p.Offsets)) + 4*uint64(len(p.Neighbors))
}

// TotalBytes returns the bytes of every ELP plus the renamed vertex labels (4 B per vertex), the
// whole graph in this layout.
func (pc *PCSR) TotalBytes() uint64 {
	t := 4 * uint64(len(pc.VertexLabels))
	for e := range pc.Parts {
		t += pc.Bytes(e)
	}
	return t
}
