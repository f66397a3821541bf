package shapes

import (
	"context"
	"fmt"
	"slices"

	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/internal/checked"
	"github.com/submatch/submatch/internal/par"
	"github.com/submatch/submatch/pattern"
	"github.com/submatch/submatch/plan"
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
//   - Tailed 4-cycles (a 4-cycle and a pendant on one of its vertices): a 4-cycle, one of its
//     vertices v and a neighbour of v off the cycle, deg(v) - 2 of them less the vertex opposite
//     v where it is adjacent (a chord: twice a diamond). So they are Σ over the 4-cycles of their
//     vertices' deg - 2, less 2 diamonds: for the pair (a, c), C(w, 2)(deg(a) + deg(c) - 4) + (w
//     - 1) Σ over x of (deg(x) - 2); within part P with deg_P = deg - ext (spanningByEdges' ext).
//     Embeddings are 2 an instance.

// Wedge is a shape the wedge pass counts.
type Wedge uint8

const (
	NoWedge Wedge = iota
	WedgeCycle
	WedgeHouse
	WedgeTailedCycle // a 4-cycle and a pendant vertex on one of its vertices
)

// String is the shape as Stats.InterShape names it.
func (s Wedge) String() string {
	switch s {
	case WedgeCycle:
		return "4-cycle"
	case WedgeHouse:
		return "house"
	case WedgeTailedCycle:
		return "tailed-4-cycle"
	}
	return "none"
}

// WedgeOf is p's wedge shape: a 4-cycle (four vertices of degree 2, one cycle: two
// triangles take six), a house (five vertices, six edges, degrees 3, 3, 2, 2, 2, the two of
// degree 3 adjacent: else it is K2,3), a tailed 4-cycle (five vertices, five edges, degrees 3,
// 2, 2, 2, 1, the leaf on the vertex of degree 3: else it is a triangle with a tail of two), or
// NoWedge.
func WedgeOf(p *pattern.Pattern) Wedge {
	n := p.NumVertices()
	deg := degreeCounts(p)
	var hubs []int
	leaf := -1
	for u := range n {
		switch min(p.Degree(u), 3) {
		case 3:
			hubs = append(hubs, u)
		case 1:
			leaf = u
		}
	}
	switch {
	case n == 4 && p.NumEdges() == 4 && deg[2] == 4:
		return WedgeCycle
	case n == 5 && p.NumEdges() == 6 && deg[3] == 2 && deg[2] == 3 && p.Adjacent(hubs[0], hubs[1]):
		return WedgeHouse
	case n == 5 && p.NumEdges() == 5 && deg[3] == 1 && deg[2] == 3 && deg[1] == 1 && p.Adjacent(hubs[0], leaf):
		return WedgeTailedCycle
	}
	return NoWedge
}

// aut is the shape's automorphisms (its embeddings per instance: timesAut): 8 a 4-cycle's, 2 a
// house's or a tailed 4-cycle's.
func (s Wedge) aut() uint64 {
	if s == WedgeCycle {
		return 8
	}
	return 2
}

// bytes is the wedge pass's memory on g: fixed, the house's edge supports (edgeSupports: 8
// bytes a list entry, 8 a vertex) or the tailed 4-cycle's ext (4 bytes a vertex), and a
// worker's counters (wedgeWorker: 12 bytes a vertex, 28 with the sums, and the diamonds' pass's
// bit set).
func (s Wedge) Bytes(g *graph.Graph) (fixed, worker uint64) {
	n := uint64(g.NumVertices())
	switch s {
	case WedgeHouse:
		fixed = 8*2*g.NumEdges() + 8*(n+1)
	case WedgeTailedCycle:
		fixed = 4 * n
	default:
		return 0, 12 * n
	}
	return fixed, 28*n + plan.BitsetBytes(int(n))
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
// 4-cycles by their vertex of highest id, houses and tailed 4-cycles from their 4-cycles, less
// the diamonds' pass's count), reporting each pass's progress to pp's next (nil: none). It returns
// engine.ErrOverflow when a sum does not fit, and ctx's error when ctx ends first, with the
// wedge pass's sum so far for 4-cycles (a lower bound: wedges' C(w, 2) - C(w_P, 2) is the pairs
// of the wedges walked to c that are not both within a's part, each pair one spanning 4-cycle,
// also where the walk from a was cut), else 0 (a house's or tailed 4-cycle's sum is less the
// diamonds, and its terms less their part's with different factors: cut, no bound).
func spanningByWedges(ctx context.Context, d *edgeCounter, shape Wedge, threads int, pp *passProgress) (uint64, error) {
	n := d.g.NumVertices()
	const chunk = 32
	workers := par.Workers(n, max(threads, 1), chunk)
	var diamonds uint64
	if shape != WedgeCycle {
		if shape == WedgeHouse {
			d.sup = newEdgeSupports(d)
		} else {
			d.countExt(workers)
		}
		var err error
		if diamonds, err = spanningByEdges(ctx, d, threads, pp.next()); err != nil {
			return 0, err
		}
	}
	ws := make([]*wedgeWorker, workers)
	sum, err := sumHubsFirst(ctx, &d.stop, n, workers, chunk, pp.next(), func(w int, a uint32) (uint64, bool) {
		if ws[w] == nil {
			ws[w] = &wedgeWorker{w: make([]uint32, n), wp: make([]uint32, n)}
			if shape != WedgeCycle {
				ws[w].tau, ws[w].taup = make([]uint64, n), make([]uint64, n)
			}
		}
		return d.wedges(a, shape, ws[w])
	})
	if shape == WedgeCycle {
		return sum, err
	}
	if err != nil {
		return 0, err
	}
	chords := uint64(4) // a house's roof on its cycle: four a diamond
	if shape == WedgeTailedCycle {
		chords = 2 // a tailed 4-cycle's pendant opposite its hub: two a diamond
	}
	less, ok := checked.Mul(diamonds, chords)
	if !ok || less > sum {
		return 0, fmt.Errorf("shapes: %d spanning diamonds against a wedge sum of %d", diamonds, sum)
	}
	return sum - less, nil
}

// wedges is the sum of the wedges from a whose other vertices are below it (the package's
// comment), less the same within a's part, for shape: the 4-cycles' C(w, 2); the houses' (w -
// 1) tau, tau the edges' supports (d.sup) summed; the tailed 4-cycles' C(w, 2)(deg(a) + deg(c)
// - 4) + (w - 1) tau, tau the middle vertices' deg - 2 summed (deg_P = deg - ext within the
// part). ok is false on overflow. ww's counters are zero before and after.
func (d *edgeCounter) wedges(a uint32, shape Wedge, ww *wedgeWorker) (sum uint64, ok bool) {
	pa, sup := d.part(a), d.sup
	house, tailed := shape == WedgeHouse, shape == WedgeTailedCycle
	as := d.list(a)
	for k, x := range as {
		if x >= a || d.stop.Load() {
			break // (the runs ascend; or the count is partial: sumHubsFirst returns ctx's error)
		}
		in := d.part(x) == pa
		cs := d.list(x)
		var xa, xpa uint64 // what x adds to tau (and taup) of every c, besides the house's t(x, c)
		switch shape {
		case WedgeHouse:
			at := sup.off[a] + uint64(k)
			xa, xpa = uint64(sup.t[at]), uint64(sup.tp[at])
		case WedgeTailedCycle:
			xa = uint64(len(cs) - 2)
			if in {
				xpa = uint64(len(cs) - 2 - int(d.ext[x])) // (x has a and c: xpa only where both are in the part)
			}
		}
		for j, c := range cs {
			if c >= a {
				break
			}
			if ww.w[c] == 0 {
				ww.touched = append(ww.touched, c)
			}
			ww.w[c]++
			inC := in && d.part(c) == pa
			if inC {
				ww.wp[c]++
			}
			if house {
				at := sup.off[x] + uint64(j)
				ww.tau[c] += xa + uint64(sup.t[at])
				if inC {
					ww.taup[c] += xpa + uint64(sup.tp[at]) // (read only here: a random read a wedge)
				}
			} else if tailed {
				ww.tau[c] += xa
				if inC {
					ww.taup[c] += xpa
				}
			}
		}
	}
	// Each c's sum: the graph's, less its part's, which is no larger (wp <= w, taup <= tau,
	// deg_P <= deg).
	overflow := false
	for _, c := range ww.touched {
		w, wp := uint64(ww.w[c]), uint64(ww.wp[c])
		ww.w[c], ww.wp[c] = 0, 0
		var s uint64
		fits := true
		switch shape {
		case WedgeCycle:
			s = w*(w-1)/2 - wp*(wp-1)/2 // (w < 2^32)
		case WedgeHouse:
			if s, fits = checked.Mul(w-1, ww.tau[c]); wp > 1 {
				s -= (wp - 1) * ww.taup[c]
			}
			ww.tau[c], ww.taup[c] = 0, 0
		default:
			s, fits = d.tailedSum(a, c, len(as), w, wp, ww)
		}
		if sum, ok = checked.Add(sum, s); !ok || !fits {
			overflow = true // (the rest still cleared)
		}
	}
	ww.touched = ww.touched[:0]
	return sum, !overflow
}

// tailedSum is the tailed 4-cycles on the 4-cycles from a (of run length da) whose vertex
// opposite a is c, through w of a's wedges, wp of them within a's part, less those within the
// part, clearing c's sums in ww; false on overflow.
func (d *edgeCounter) tailedSum(a, c uint32, da int, w, wp uint64, ww *wedgeWorker) (uint64, bool) {
	dc := len(d.list(c))
	s, ok := checked.Mul(w-1, ww.tau[c])
	ends, ok2 := checked.Mul(w*(w-1)/2, uint64(da+dc-4)) // (a and c have two neighbours at least)
	s, ok3 := checked.Add(s, ends)
	if wp > 1 {
		s -= (wp-1)*ww.taup[c] + wp*(wp-1)/2*uint64(da-int(d.ext[a])+dc-int(d.ext[c])-4)
	}
	ww.tau[c], ww.taup[c] = 0, 0
	return s, ok && ok2 && ok3
}
