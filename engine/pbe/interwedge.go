package pbe

import (
	"context"
	"fmt"
	"slices"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/internal/checked"
	"github.com/submatch/submatch/internal/par"
	"github.com/submatch/submatch/pattern"
)

// The wedge shapes (branch pbehouse): 4-cycles and houses (a 4-cycle a-b-c-d with a roof e
// joined to a and b), non-induced and with uniform labels, counted by a pass over the wedges
// x-a-c... rather than the seeded search, which enumerated every 4-path under the house's roof
// from its bottom edge (docs/benchmarks.md, pbetail). As the other shapes, the count is the
// instances whose vertices lie in more than one part: the instances of the graph of the labels'
// runs, less those of each part's induced subgraph, both counted in the one pass.
//
//   - 4-cycles: every 4-cycle has one vertex a of highest id, and c opposite it; its other two
//     are common neighbours of a and c below a. So the 4-cycles are Σ over a and c < a of
//     C(w, 2), w the common neighbours of a and c below a, found by walking the wedges a-x-c
//     with x and c below a (Chiba and Nishizeki's order, ids ascending with the degree: a
//     vertex's wedges are read through its lower neighbours' lists only); within part P, C(w_P,
//     2) of those through P's members, where a and c are in P. Embeddings are 8 a cycle.
//   - Houses: a house is one 4-cycle, its edge a-b under the roof, and a roof e among the common
//     neighbours of a and b other than the cycle's c and d. Summing, over the 4-cycles, each
//     edge's common neighbours t counts e = c or e = d too: once a pair of a 4-cycle and one of
//     its chords, that is four times a diamond (as subgraphs: C(t, 2) over the chord edges).
//     So the houses are Σ over the 4-cycles of their edges' t, less 4 diamonds, and for the
//     pairs (a, c) of the 4-cycles' walk the sum is (w - 1) Σ over x of t(a, x) + t(x, c). The
//     diamonds and every edge's t (and t_P within its part) come from the diamonds' pass first
//     (spanningByEdges, edgeSupports); within part P, the same with t_P. Embeddings are 2 a
//     house.

// wedgeShape is a shape the wedge pass counts.
type wedgeShape uint8

const (
	noWedge wedgeShape = iota
	wedgeCycle
	wedgeHouse
)

// String is the shape as Stats.InterShape names it.
func (s wedgeShape) String() string {
	switch s {
	case wedgeCycle:
		return "4-cycle"
	case wedgeHouse:
		return "house"
	}
	return "none"
}

// wedgeShapeOf is p's wedge shape: a 4-cycle (four vertices of degree 2, one cycle: two
// triangles take six), a house (five vertices, six edges, degrees 3, 3, 2, 2, 2, the two of
// degree 3 adjacent: else it is K2,3), or noWedge.
func wedgeShapeOf(p *pattern.Pattern) wedgeShape {
	n := p.NumVertices()
	var deg [4]int
	var hubs []int
	for u := range n {
		d := min(p.Degree(u), 3)
		deg[d]++
		if d == 3 {
			hubs = append(hubs, u)
		}
	}
	switch {
	case n == 4 && p.NumEdges() == 4 && deg[2] == 4:
		return wedgeCycle
	case n == 5 && p.NumEdges() == 6 && deg[3] == 2 && deg[2] == 3 && p.Adjacent(hubs[0], hubs[1]):
		return wedgeHouse
	}
	return noWedge
}

// embeddings is n spanning instances as the convention counts them: n itself for unique
// counts, else n times the shape's automorphisms; engine.ErrOverflow when that does not fit.
func (s wedgeShape) embeddings(n uint64, unique bool) (uint64, error) {
	if unique {
		return n, nil
	}
	aut := uint64(8) // a 4-cycle's
	if s == wedgeHouse {
		aut = 2
	}
	total, ok := checked.Mul(n, aut)
	if !ok {
		return 0, engine.ErrOverflow
	}
	return total, nil
}

// bytes is the wedge pass's memory on g: fixed, the house's edge supports (edgeSupports: 8
// bytes a list entry, 8 a vertex), and a worker's counters (wedgeWorker: 12 bytes a vertex, 28
// for the house's sums, and the diamonds' pass's bit set).
func (s wedgeShape) bytes(g *graph.Graph) (fixed, worker uint64) {
	n := uint64(g.NumVertices())
	if s != wedgeHouse {
		return 0, 12 * n
	}
	return 8*2*g.NumEdges() + 8*(n+1), 28*n + (n+63)/64*8
}

// edgeSupports is every data edge's common neighbours in the runs of the shape's labels, t, and
// within its part where both ends share one, t_P, by list entry: v's run's k-th member's at
// off[v] + k.
type edgeSupports struct {
	off   []uint64
	t, tp []uint32
}

// newEdgeSupports is d's runs' supports, zero (filled by d's pass: spanningByEdges).
func newEdgeSupports(d *edgeCounter) *edgeSupports {
	n := d.g.NumVertices()
	s := &edgeSupports{off: make([]uint64, n+1)}
	for v := range n {
		s.off[v+1] = s.off[v] + uint64(len(d.list(uint32(v))))
	}
	s.t, s.tp = make([]uint32, s.off[n]), make([]uint32, s.off[n])
	return s
}

// keep records the edge (x, y), y the k-th member of x's run and x one of y's run ys, as having
// t common neighbours, tp of them in the part of both (t, tp < 2^32: the runs' lengths).
func (s *edgeSupports) keep(x, y uint32, k int, ys []uint32, t, tp uint64) {
	at := s.off[x] + uint64(k)
	s.t[at], s.tp[at] = uint32(t), uint32(tp)
	j, _ := slices.BinarySearch(ys, x)
	at = s.off[y] + uint64(j)
	s.t[at], s.tp[at] = uint32(t), uint32(tp)
}

// wedgeWorker is a worker's counters of the wedges from one vertex a, by their far end c: w the
// wedges, wp those within a's part, tau and taup their edges' supports summed (houses), and the
// ends touched.
type wedgeWorker struct {
	w, wp     []uint32
	tau, taup []uint64
	touched   []uint32
}

// spanningByWedges counts shape's instances (non-induced, one a subgraph) in the runs of d's
// labels that span more than one part of d.of, on threads workers (the package's comment:
// 4-cycles by their vertex of highest id, houses from their 4-cycles and their edges' common
// neighbours). It returns ctx's error when ctx ends first, engine.ErrOverflow when a sum does
// not fit.
func spanningByWedges(ctx context.Context, d *edgeCounter, shape wedgeShape, threads int) (uint64, error) {
	var diamonds uint64
	if shape == wedgeHouse {
		d.sup = newEdgeSupports(d)
		var err error
		if diamonds, err = spanningByEdges(ctx, d, threads); err != nil {
			return 0, err
		}
	}
	n := d.g.NumVertices()
	const chunk = 32
	workers := par.Workers(n, max(threads, 1), chunk)
	ws := make([]*wedgeWorker, workers)
	sum, err := sumHubsFirst(ctx, n, workers, chunk, func(w int, a uint32) (uint64, bool) {
		if ws[w] == nil {
			ws[w] = &wedgeWorker{w: make([]uint32, n), wp: make([]uint32, n)}
			if shape == wedgeHouse {
				ws[w].tau, ws[w].taup = make([]uint64, n), make([]uint64, n)
			}
		}
		return d.wedges(a, ws[w])
	})
	if err != nil || shape != wedgeHouse {
		return sum, err
	}
	four, ok := checked.Mul(diamonds, 4)
	if !ok || four > sum {
		return 0, fmt.Errorf("pbe: %d spanning diamonds against a wedge sum of %d", diamonds, sum)
	}
	return sum - four, nil
}

// wedges is the sum of the wedges from a whose other vertices are below it (the package's
// comment), less the same within a's part: the 4-cycles' C(w, 2), or with d.sup the houses'
// (w - 1) tau; ok is false on overflow. ww's counters are zero before and after.
func (d *edgeCounter) wedges(a uint32, ww *wedgeWorker) (sum uint64, ok bool) {
	pa, sup := d.of[a], d.sup
	for k, x := range d.list(a) {
		if x >= a {
			break // (the runs ascend)
		}
		in := d.of[x] == pa
		var tax, tpax uint64
		if sup != nil {
			at := sup.off[a] + uint64(k)
			tax, tpax = uint64(sup.t[at]), uint64(sup.tp[at])
		}
		for j, c := range d.list(x) {
			if c >= a {
				break
			}
			if ww.w[c] == 0 {
				ww.touched = append(ww.touched, c)
			}
			ww.w[c]++
			inC := in && d.of[c] == pa
			if inC {
				ww.wp[c]++
			}
			if sup != nil {
				at := sup.off[x] + uint64(j)
				ww.tau[c] += tax + uint64(sup.t[at])
				if inC {
					ww.taup[c] += tpax + uint64(sup.tp[at])
				}
			}
		}
	}
	overflow := false
	for _, c := range ww.touched {
		w, wp := uint64(ww.w[c]), uint64(ww.wp[c])
		var s uint64
		fits := true
		if sup == nil {
			s = w*(w-1)/2 - wp*(wp-1)/2 // (w < 2^32)
		} else {
			var in uint64
			s, fits = checked.Mul(w-1, ww.tau[c])
			if wp > 1 {
				in = (wp - 1) * ww.taup[c] // (no larger than s: wp <= w, taup <= tau)
			}
			s -= in
			ww.tau[c], ww.taup[c] = 0, 0
		}
		ww.w[c], ww.wp[c] = 0, 0
		if sum, ok = checked.Add(sum, s); !ok || !fits {
			overflow = true // (the rest still cleared)
		}
	}
	ww.touched = ww.touched[:0]
	return sum, !overflow
}
