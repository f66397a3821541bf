package core

import (
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/internal/par"
)

// Partition is the interval-PCSR of one ELP (Section 4.1, Fig. 4d): a CSR over the ELP's
// vertices in new-id order, whose rows are found through the interval index.
//
// Interval i covers the new ids Starts[i] .. Starts[i]+(Bases[i+1]-Bases[i])-1, whose rows are
// Bases[i] .. Bases[i+1]-1: a vertex's row is Bases[i] + (v - Starts[i]). Bases has one entry
// more than Starts, the number of rows. The neighbours of row r are Neighbors[Offsets[r]:
// Offsets[r+1]], sorted by (vertex label, new id): the neighbours of one label are one range
// (LabelRange), found by binary search, and an edge test is a binary search on (label, id).
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
	// MaxDegree[e] is the longest row of ELP e.
	MaxDegree []uint32

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
	pc.MaxDegree = make([]uint32, p.Len())
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
	// First the rows, intervals and row lengths, in new-id order; then the rows' neighbours, on
	// all cores.
	rowVertex := make([][]uint32, p.Len()) // old id of each row
	for e := range rowVertex {
		rowVertex[e] = make([]uint32, 0, len(p.Vertices[e]))
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
			rowVertex[e] = append(rowVertex[e], v)
		}
	}
	for e := range pc.Parts {
		part := &pc.Parts[e]
		part.Bases = append(part.Bases, uint32(rows[e]))
		part.Offsets = part.Offsets[:len(rowVertex[e])+1]
		pc.MaxDegree[e] = rowOffsets(g, rowVertex[e], part.Offsets, false, part.Label)
		part.Neighbors = part.Neighbors[:part.Offsets[len(part.Offsets)-1]]
		fillRows(g, rowVertex[e], part.Offsets, part.Neighbors, false, part.Label, oldToNew)
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

// Neighbors returns the neighbours of new id v in ELP e, by (vertex label, new id), or nil when v
// is not in the ELP. The slice aliases storage; do not modify.
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

// LabelRange returns the part of row that holds the vertices labelled l (the row is sorted by
// (label, id), as Partition rows are).
func LabelRange(row, labels []uint32, l uint32) []uint32 {
	lo := sort.Search(len(row), func(i int) bool { return labels[row[i]] >= l })
	hi := lo + sort.Search(len(row)-lo, func(i int) bool { return labels[row[lo+i]] > l })
	return row[lo:hi]
}

// HasEdge reports whether new ids a and b are adjacent in partition p.
func (p *Partition) HasEdge(a, b uint32, labels []uint32) bool {
	r, ok := p.Row(a)
	if !ok {
		return false
	}
	row := LabelRange(p.Neighbors[p.Offsets[r]:p.Offsets[r+1]], labels, labels[b])
	_, found := slices.BinarySearch(row, b)
	return found
}

// Union returns every edge of g, whatever its label, as one partition over all vertices in new
// ids (one interval): what phases with a wildcard edge label and induced non-adjacency checks
// search. Label is unused.
func (pc *PCSR) Union(g *graph.Graph) *Partition {
	n := len(pc.NewToOld)
	u := &Partition{Starts: []uint32{0}, Bases: []uint32{0, uint32(n)}, Offsets: make([]uint64, 1, n+1)}
	u.Offsets = u.Offsets[:n+1]
	rowOffsets(g, pc.NewToOld, u.Offsets, true, 0)
	u.Neighbors = make([]uint32, u.Offsets[n])
	fillRows(g, pc.NewToOld, u.Offsets, u.Neighbors, true, 0, pc.OldToNew)
	return u
}

// rowOffsets sets off (len(rowVertex)+1 entries) to the row offsets of the rows of fillRows and
// returns the longest row's length.
func rowOffsets(g *graph.Graph, rowVertex []uint32, off []uint64, all bool, label uint32) uint32 {
	off[0] = 0
	par.For(len(rowVertex), 0, func(r int) { off[r+1] = uint64(rowLength(g, rowVertex[r], all, label)) })
	var longest uint64
	for r := range rowVertex {
		longest = max(longest, off[r+1])
		off[r+1] += off[r]
	}
	return uint32(longest)
}

// rowLength counts v's neighbours joined by an edge labelled label (all: by any edge).
func rowLength(g *graph.Graph, v uint32, all bool, label uint32) int {
	if all {
		return g.Degree(v)
	}
	n := 0
	for ri, run := range g.Runs(v) {
		if run.EdgeLabel == label {
			n += len(g.RunNeighbors(v, ri))
		}
	}
	return n
}

// fillRows writes the row of each old id rowVertex[r] (its neighbours joined by an edge labelled
// label, or by any edge when all is set), renamed by oldToNew and sorted by (vertex label, new
// id), into nb[off[r]:off[r+1]], on all cores. The graph's runs come by (vertex label, edge
// label), so each vertex label's neighbours are already together and only their ids need
// sorting.
func fillRows(g *graph.Graph, rowVertex []uint32, off []uint64, nb []uint32, all bool, label uint32, oldToNew []uint32) {
	shift, shifted := renameShift(g, oldToNew)
	par.For(len(rowVertex), 0, func(r int) {
		fillRow(g, rowVertex[r], all, label, oldToNew, shift, shifted, nb[off[r]:off[r+1]])
	})
}

// renameShift reports whether oldToNew moves every vertex that has edges down by one amount
// shift. It does for graphs with one edge label: GENMAP keeps the ELP's vertices in order and
// moves the isolated ones, which graph.Builder numbers first (ascending degree), to the end. A
// row's neighbours are then renamed by a subtraction instead of a lookup that misses the cache
// on every entry of a large graph.
func renameShift(g *graph.Graph, oldToNew []uint32) (shift uint32, ok bool) {
	first := true
	for v, w := range oldToNew {
		if g.Degree(uint32(v)) == 0 {
			continue
		}
		if first {
			if w > uint32(v) {
				return 0, false
			}
			shift, first = uint32(v)-w, false
		} else if uint32(v)-w != shift {
			return 0, false
		}
	}
	return shift, true
}

// fillRow writes one row of fillRows into dst, which has exactly its length (renamed by a
// subtraction of shift when shifted, see renameShift).
func fillRow(g *graph.Graph, v uint32, all bool, label uint32, oldToNew []uint32, shift uint32, shifted bool, dst []uint32) {
	k, seg := 0, 0
	runs := g.Runs(v)
	for ri, run := range runs {
		if all || run.EdgeLabel == label {
			nb := g.RunNeighbors(v, ri)
			if shifted {
				for i, x := range nb {
					dst[k+i] = x - shift
				}
			} else {
				for i, x := range nb {
					dst[k+i] = oldToNew[x]
				}
			}
			k += len(nb)
		}
		if ri+1 == len(runs) || runs[ri+1].VertexLabel != run.VertexLabel {
			slices.Sort(dst[seg:k])
			seg = k
		}
	}
}
