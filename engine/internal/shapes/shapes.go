// Package shapes owns the counters of small patterns that the engines count without their
// searches (branches pbeclique, pbetail, pbehouse): cliques (through package cliques),
// diamonds, tailed triangles (paws), paths of 4 vertices, 4-cycles, houses and tailed 4-cycles,
// non-induced, and induced diamonds, 4-paths and 4-cycles from identities over those, all with
// uniform labels (plan.UniformLabels, wildcards included). It says which patterns are shapes and
// what their counts take in memory (Of), counts them (Shape.Count) and says which passes the
// count makes (Shape.Work) for the engines to price. A count is either the whole graph's (of nil:
// the CPU engine) or the instances whose vertices span more than one part of a partitioning (pbe's
// inter stage), in one pass either way: the graph's sums less each part's, the latter none
// without parts.
package shapes

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/engine/internal/cliques"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/internal/checked"
	"github.com/submatch/submatch/internal/par"
	"github.com/submatch/submatch/pattern"
	"github.com/submatch/submatch/plan"
)

// The shapes: cliques of minClique or more vertices, diamonds (K4 less an edge), tailed
// triangles, 4-paths, 4-cycles, houses and tailed 4-cycles, with uniform labels (one sorted run
// of every data vertex's neighbours matches: plan.UniformLabels; a pattern of wildcards on a
// labelled graph is counted on the graph with its labels forgotten, its lists copied,
// plan.Labels.Graph). Each count is exact in every convention. Given a partitioning (of: every
// vertex's part), it is the instances that span two parts or more (an instance's vertices are all
// in one part or it is inter-partition: pbe's split); without one (of nil), every instance: each
// vertex its own part, so that no instance lies within one and the parts' terms below are none.
// Listing is the engines' searches'.
//
//   - Cliques: each clique counted once from its smallest vertex r, in r's upward neighbourhood
//     (the CPU engine's clique counter, package engine/internal/cliques, on the same
//     orientation), as r's (k-1)-cliques less those within r's part: a root whose upward
//     neighbours all lie in its part is skipped (cliques.CountSpanning). Unique counts are the
//     cliques, embeddings (induced or not) k! each.
//   - Diamonds (a, b, c, d with the chord a-c): every non-induced diamond has one chord, a data
//     edge (x, y), and its tips are two of the edge's t common neighbours; all four lie in one
//     part only when x and y do and both tips are among the t_P common neighbours in that part.
//     So the spanning diamonds are Σ over data edges of C(t, 2), less C(t_P, 2) where x and y
//     share a part: one pass over the edges, each edge's common neighbours counted once from its
//     endpoint of higher (degree, id) (a bit set of its list, the other's list scanned), as the
//     CPU engine's edge supports are. Induced diamonds are those less the 4-cliques: every
//     4-clique holds six diamonds (one a chord), all on its vertices, so the spanning ones are
//     less six spanning 4-cliques each (on a graph without edge labels: with them, tips joined by
//     an edge of another label would not be induced either). Embeddings are 4 a diamond (|Aut|).
//   - Tailed triangles (paws: a triangle a, b, c and a pendant d on its hub a; not induced, branch
//     pbetail), in the diamonds' pass: an embedding is a data edge (a, b) taken in one
//     direction, a common neighbour c and a neighbour d of a that is neither b nor c (deg(a) - 2
//     of them). Its vertices lie in one part only when a, b and c do and so does d: for an edge
//     (x, y) across the cut every one of its t common neighbours makes a spanning triangle, and
//     for x and y in part P the t - t_P outside P do, while a triangle within P spans only by
//     its pendant, one of ext(a) (a's neighbours outside P). So the spanning embeddings are Σ
//     over the data edges of t (deg(x) + deg(y) - 4), or where x and y share a part, (t - t_P)
//     (deg(x) + deg(y) - 4) + t_P (ext(x) + ext(y)), both directions of the edge at once; the
//     instances are half of them (|Aut| = 2). ext is counted once a vertex before the pass.
//   - Paths of 4 vertices (not induced, branch pbehouse), in the same pass: a path is its middle
//     edge (x, y), one neighbour of each end other than the other end, and not one vertex (a
//     common neighbour): (deg(x) - 1)(deg(y) - 1) - t of them. Those within part P are the same
//     count in P's induced subgraph, where x and y share P: (deg_P(x) - 1)(deg_P(y) - 1) - t_P,
//     deg_P = deg - ext. Embeddings are 2 a path.
//   - 4-cycles, houses and tailed 4-cycles: the wedge pass (wedge.go).
//
// pbe's seeded search extended every cut edge's partial matches (the 4-clique on R-MAT 18: 16 s
// against the CPU engine's whole count's 0.84 s); these do what the CPU engine's whole count
// does, less the roots (cliques) whose upward neighbours stay in their part. The CPU engine's
// general search enumerated a house's 4-paths (R-MAT 14 with labels: over 60 s, against 3.5 s
// here: docs/benchmarks.md, wildshape).

// minClique is the smallest clique that is a shape: triangles too (pbe's seeded search of
// triangles is within the CPU engine's time, the clique counter's below).
const minClique = 3

// Shape is how a shape is counted: the clique (for a diamond, the 4-clique of its labels, for
// the induced count's correction; for the other shapes, the labels' triangle, whose runs they
// walk), the matrix size (MatrixMax) and workers (Threads) of the clique counter and the passes,
// and the host memory that takes (Bytes, HostBytes).
type Shape struct {
	clique  plan.Clique
	diamond bool
	paw     bool // a tailed triangle (clique: its labels' triangle, for the pass's runs)
	path    bool // a path of 4 vertices (clique: its labels' triangle, as the paw's)
	// wedge is a 4-cycle, a house or a tailed 4-cycle, counted by the wedge pass
	// (wedge.go; clique: the labels' triangle, as the paw's).
	wedge     Wedge
	induced   bool
	MatrixMax int
	Threads   int
	Bytes     uint64
}

// Of returns how p's count counts it as a shape within limit bytes of host memory (0: no
// limit), false when p is none or it does not fit (the engine's search, which may take less,
// runs then). The bytes are those of a count over parts (Count with of set: a tailed
// triangle's, 4-path's and tailed 4-cycle's ext, 4 bytes a vertex, are not taken without).
func Of(p *engine.Problem, limit uint64) (Shape, bool) {
	g, pat := p.Data, p.Pattern
	sh := Shape{induced: p.Semantics.Induced, MatrixMax: cliques.MatrixLimit, Threads: p.ThreadCount()}
	if c, ok := plan.CliqueOf(g, pat, minClique); ok {
		sh.clique = c
	} else if pat.NumVertices() == 4 && pat.NumEdges() == 5 { // K4 less an edge: a diamond
		labels, ok := plan.UniformLabels(g, pat)
		if !ok || sh.induced && edgeLabelled(g, labels) {
			// (Induced: the tips must not be adjacent by an edge of any label, which the
			// 4-cliques of the pattern's edge label do not cover.)
			return Shape{}, false
		}
		sh.clique, sh.diamond = plan.Clique{K: 4, Labels: labels}, true
	} else if labels, ok := plan.UniformLabels(g, pat); !ok {
		return Shape{}, false
	} else {
		sh.clique = plan.Clique{K: 3, Labels: labels} // (the pass's runs)
		switch {
		case TailedTriangle(pat):
			sh.paw = true
		case Path4(pat):
			sh.path = true
		default:
			if sh.wedge = WedgeOf(pat); sh.wedge == NoWedge {
				return Shape{}, false
			}
		}
		if sh.induced {
			// The tailed triangles', houses' and tailed 4-cycles' sums are not induced; induced
			// 4-paths and 4-cycles are sums of the non-induced shapes and the 4-cliques
			// (inducedFour), on a graph without edge labels (as induced diamonds).
			if !sh.identity() || edgeLabelled(g, labels) {
				return Shape{}, false
			}
			sh.clique.K = 4 // (the clique counter's)
		}
	}
	if sh.clique.K == 3 {
		sh.MatrixMax = 0 // a triangle's root counts pairs by intersections, a tailed triangle's pass its edges': no matrix
	}
	sh.Bytes = sh.HostBytes(g)
	if limit == 0 || sh.Bytes <= limit {
		return sh, true
	}
	// Within the limit: smaller matrices (halved down to 64 members, then none: every set split),
	// then fewer workers, as the CPU engine's clique count does.
	threads := sh.Threads
	sh.Threads = 1
	for sh.HostBytes(g) > limit {
		if sh.MatrixMax == 0 || sh.pass() && !sh.induced {
			return Shape{}, false // (no matrix to shrink)
		}
		if sh.MatrixMax /= 2; sh.MatrixMax < 64 {
			sh.MatrixMax = 0
		}
	}
	sh.Threads = max(1, min(threads, int((limit-sh.fixedBytes(g))/sh.workerBytes(g))))
	sh.Bytes = sh.HostBytes(g)
	return sh, true
}

// edgeLabelled reports whether the graph that the shape of labels walks (plan.Labels.Graph of
// g) has edge labels: g's, unless the pattern's edges are wildcards (AnyEdge, the labels
// forgotten), so that an induced count's non-edges are non-edges of every label.
func edgeLabelled(g *graph.Graph, labels plan.Labels) bool {
	return g.HasEdgeLabels() && !labels.AnyEdge
}

// HostBytes is the host memory the shape's count takes beside the graph and the partitioning
// (pbe's Stats.InterHostBytes): fixedBytes and workerBytes on every worker.
func (sh Shape) HostBytes(g *graph.Graph) uint64 {
	return sh.fixedBytes(g) + uint64(sh.Threads)*sh.workerBytes(g)
}

// fixedBytes is the graph of the shape's labels where it is a copy of g's lists
// (plan.Labels.GraphBytes: a pattern of wildcards on a labelled graph) and the clique
// counter's orientation table (plan.Clique.Orient: 8 bytes a vertex), where the count runs it
// (cliques, induced diamonds, induced 4-paths and 4-cycles), a tailed triangle's or a path's
// ext (4 bytes a vertex), or a house's edge supports (wedgeBytes).
func (sh Shape) fixedBytes(g *graph.Graph) uint64 {
	return sh.clique.GraphBytes(g) + sh.countBytes(g)
}

// countBytes is fixedBytes less the graph of the shape's labels.
func (sh Shape) countBytes(g *graph.Graph) uint64 {
	n := uint64(g.NumVertices())
	switch {
	case sh.identity() && sh.path:
		return 8*n + 4*n
	case sh.identity():
		return 8 * n
	case sh.wedge != NoWedge:
		fixed, _ := sh.wedge.Bytes(g)
		return fixed
	case sh.paw || sh.path:
		return 4 * uint64(g.NumVertices())
	case sh.diamond && !sh.induced:
		return 0
	}
	return 8 * uint64(g.NumVertices())
}

// pass says that the shape is counted by the pass over the data edges' common neighbours
// (spanningByEdges) alone: a diamond, a tailed triangle or a path of 4 vertices.
func (sh Shape) pass() bool { return sh.diamond || sh.paw || sh.path }

// workerBytes is a worker's memory: the clique counter's (cliques.SpanningWorkerMemory) where it
// runs, for the pass the bit set of a vertex's list, and the wedge pass's counters (wedgeBytes).
func (sh Shape) workerBytes(g *graph.Graph) uint64 {
	if sh.wedge != NoWedge && !sh.induced {
		_, worker := sh.wedge.Bytes(g)
		return worker
	}
	var b uint64
	if sh.identity() {
		_, b = WedgeCycle.Bytes(g) // (the 4-cycles' wedge pass)
	}
	if sh.pass() || sh.identity() {
		b += plan.BitsetBytes(g.NumVertices())
	}
	if !sh.pass() || sh.induced {
		b += cliques.SpanningWorkerMemory(cliques.SizeOf(g), sh.clique.K, sh.MatrixMax)
	}
	return b
}

// Count counts the shape's instances of p in p's convention: with of (every vertex's part) those
// that span more than one part of it, with of nil every instance. It calls p.Progress (where
// set) with the share of its passes done (Work: each pass an equal share, each pass's share by
// its vertices done). It returns engine.ErrOverflow when the count does not fit a uint64, and
// ctx's error when ctx ends, with the instances counted so far where those are a lower bound:
// cliques (induced or not), non-induced diamonds, tailed triangles, 4-paths and 4-cycles, whose
// pass's sum is a sum of instances counted directly (a root's, a data edge's or a wedge end's
// spanning instances: cutCount); 0 for the shapes whose count is a difference of passes (induced
// diamonds, 4-paths and 4-cycles, houses, tailed 4-cycles), where a pass cut short, or one not
// run, would make the difference anything.
func (sh Shape) Count(ctx context.Context, p *engine.Problem, of []uint32) (uint64, error) {
	g, err := sh.clique.GraphContext(ctx, p.Data) // (built once: the counters' Graph of it is itself)
	if err != nil {
		return 0, err
	}
	pp := &passProgress{report: p.Progress, passes: sh.Work().passes()}
	if sh.identity() {
		n, err := sh.inducedFour(ctx, g, of, pp)
		if err != nil {
			return 0, err // (a difference: nothing when cut)
		}
		if sh.path {
			return timesAut(n, 2, p.Semantics.Unique)
		}
		return timesAut(n, 8, p.Semantics.Unique)
	}
	if sh.wedge != NoWedge {
		n, err := spanningByWedges(ctx, newEdgeCounter(g, of, sh.clique, edgeDiamonds), sh.wedge, sh.Threads, pp)
		if err != nil && !cutCount(ctx, err, sh.wedge == WedgeCycle) {
			return 0, err // (houses and tailed 4-cycles: less the diamonds, nothing when cut)
		}
		return timesAutCut(n, sh.wedge.aut(), p.Semantics.Unique, err)
	}
	var n uint64
	if sh.pass() {
		kind := edgeDiamonds
		switch {
		case sh.paw:
			kind = edgePaws
		case sh.path:
			kind = edgePaths
		}
		if n, err = spanningByEdges(ctx, newEdgeCounter(g, of, sh.clique, kind), sh.Threads, pp.next()); err != nil &&
			!cutCount(ctx, err, !sh.induced) {
			return 0, err // (an induced diamond: less the 4-cliques, nothing when cut)
		}
	}
	switch {
	case sh.paw && p.Semantics.Unique:
		return n / 2, err // (|Aut| = 2: the sum counts every instance twice; cut, at least half its embeddings are instances)
	case sh.paw:
		return n, err
	case sh.path:
		return timesAutCut(n, 2, p.Semantics.Unique, err) // (the sum counts every path once, by its middle edge)
	case sh.diamond && err != nil:
		return timesAutCut(n, 4, p.Semantics.Unique, err) // (non-induced: cut, the 4-cliques are not counted)
	}
	if !sh.diamond || sh.induced {
		o := sh.clique.Orient(g, sh.Threads)
		k, err := countCliques(ctx, o, sh.clique.K, sh.MatrixMax, of, sh.Threads, pp.next())
		if err != nil && !cutCount(ctx, err, !sh.diamond) {
			return 0, err // (an induced diamond's correction: nothing when cut)
		}
		if !sh.diamond {
			total, ok := sh.clique.Embeddings(k, p.Semantics.Unique)
			if !ok {
				return 0, engine.ErrOverflow
			}
			return total, err
		}
		// Induced: the diamonds whose tips are adjacent are the 4-cliques' six each.
		six, ok := checked.Mul(k, 6)
		if !ok || six > n {
			return 0, fmt.Errorf("shapes: %d spanning diamonds hold %d 4-cliques", n, k)
		}
		n -= six
	}
	return timesAut(n, 4, p.Semantics.Unique) // |Aut(diamond)|
}

// cutCount says that err, a pass's, is ctx's (not an overflow) and its sum so far a lower bound
// that Count returns with it (direct: the shape's count is that sum, not a difference of sums).
func cutCount(ctx context.Context, err error, direct bool) bool {
	return direct && ctx.Err() != nil && !errors.Is(err, engine.ErrOverflow)
}

// passProgress splits a count's progress (report; nil: none) over its passes, each an equal
// share: the i-th pass's done share f is reported as (i + f) / passes.
type passProgress struct {
	report       func(float64)
	passes, done int
}

// next is the progress function of the next pass, nil where there is none to report to.
func (pp *passProgress) next() func(float64) {
	if pp == nil || pp.report == nil {
		return nil
	}
	base, n, report := float64(pp.done), float64(max(pp.passes, pp.done+1)), pp.report
	pp.done++
	return func(f float64) { report((base + min(f, 1)) / n) }
}

// passes is the number of passes a count makes: Count's share of each in its progress.
func (w Work) passes() int {
	n := w.EdgePasses
	switch w.Wedge {
	case WedgeCycle:
		n++
	case WedgeHouse, WedgeTailedCycle:
		n += 2 // (the edges' pass of its own, then the wedges)
	}
	if w.CliqueK > 0 {
		n++
	}
	return max(n, 1)
}

// identity says that the shape is an induced 4-path or 4-cycle, counted from the non-induced
// shapes and the 4-cliques (inducedFour).
func (sh Shape) identity() bool { return sh.induced && (sh.path || sh.wedge == WedgeCycle) }

// inducedFour is the induced 4-paths or 4-cycles (one a vertex set) whose vertices lie in more
// than one part of of. Over 4 vertices, the non-induced copies of each shape in each graph that
// holds one give (as subgraph counts N, induced ones I, paws' instances half their embeddings):
// N(K4) = I(K4); N(diamond) = I(diamond) + 6 I(K4); N(C4) = I(C4) + I(diamond) + 3 I(K4);
// N(paw) = I(paw) + 4 I(diamond) + 12 I(K4); N(P4) = I(P4) + 4 I(C4) + 2 I(paw) + 6
// I(diamond) + 12 I(K4). So I(C4) = N(C4) - N(diamond) + 3 N(K4) and I(P4) = N(P4) - 4 N(C4) -
// 2 N(paw) + 6 N(diamond) - 12 N(K4), and as every term counts vertex sets, the same holds of
// the instances that span parts: each from its own pass, the 4-cliques by the clique counter.
// It returns a pass's error (ctx's, an overflow).
func (sh Shape) inducedFour(ctx context.Context, g *graph.Graph, of []uint32, pp *passProgress) (uint64, error) {
	edges := func(kind edgeKind) (uint64, error) {
		return spanningByEdges(ctx, newEdgeCounter(g, of, sh.clique, kind), sh.Threads, pp.next())
	}
	diamonds, err := edges(edgeDiamonds)
	if err != nil {
		return 0, err
	}
	cycles, err := spanningByWedges(ctx, newEdgeCounter(g, of, sh.clique, edgeDiamonds), WedgeCycle, sh.Threads, pp)
	if err != nil {
		return 0, err
	}
	k4, err := countCliques(ctx, sh.clique.Orient(g, sh.Threads), 4, sh.MatrixMax, of, sh.Threads, pp.next())
	if err != nil {
		return 0, err
	}
	terms := []termTimes{{cycles, 1}, {k4, 3}}
	less := []termTimes{{diamonds, 1}}
	if sh.path {
		paths, err := edges(edgePaths)
		if err != nil {
			return 0, err
		}
		pawEmbeddings, err := edges(edgePaws) // (2 a paw)
		if err != nil {
			return 0, err
		}
		terms = []termTimes{{paths, 1}, {diamonds, 6}}
		less = []termTimes{{cycles, 4}, {pawEmbeddings, 1}, {k4, 12}}
	}
	plus, ok := sumTimes(terms)
	minus, ok2 := sumTimes(less)
	switch {
	case !ok || !ok2:
		return 0, engine.ErrOverflow
	case minus > plus:
		return 0, fmt.Errorf("shapes: the spanning induced %s less than none (%d - %d)", sh.Name(), plus, minus)
	}
	return plus - minus, nil
}

// countCliques counts o's k-cliques that span more than one part of of (cliques.CountSpanning),
// or all of them when of is nil (cliques.Count), calling progress (nil: none) with the share of
// the roots done; when ctx ends, the count so far (a lower bound) with ctx's error.
func countCliques(ctx context.Context, o *plan.Oriented, k, matrixMax int, of []uint32, threads int, progress func(float64)) (uint64, error) {
	if of == nil {
		return cliques.Count(ctx, o, k, matrixMax, o.NumVertices(), func(i int) uint32 { return uint32(i) }, threads, progress)
	}
	return cliques.CountSpanning(ctx, o, k, matrixMax, of, threads, progress)
}

// termTimes is a count and its coefficient in inducedFour's identities.
type termTimes struct{ n, times uint64 }

// sumTimes is Σ n times over ts; false when it does not fit a uint64.
func sumTimes(ts []termTimes) (uint64, bool) {
	var sum uint64
	ok := true
	for _, t := range ts {
		x, fits := checked.Mul(t.n, t.times)
		var added bool
		sum, added = checked.Add(sum, x)
		ok = ok && fits && added
	}
	return sum, ok
}

// timesAutCut is timesAut with cut, the pass's error (ctx's where the count was cut, nil when
// whole), where that fits.
func timesAutCut(n, aut uint64, unique bool, cut error) (uint64, error) {
	total, err := timesAut(n, aut, unique)
	if err != nil {
		return 0, err
	}
	return total, cut
}

// timesAut is n instances as the convention counts them: n itself for unique counts, else n
// times aut (the shape's automorphisms); engine.ErrOverflow when that does not fit.
func timesAut(n, aut uint64, unique bool) (uint64, error) {
	if unique {
		return n, nil
	}
	total, ok := checked.Mul(n, aut)
	if !ok {
		return 0, engine.ErrOverflow
	}
	return total, nil
}

// spanningByEdges counts, on threads workers, the instances of d's shape (d.kind) on g's
// vertices of d's label and edges of d's edge label whose vertices lie in more than one part of
// d.of, from every data edge (x, y) with t common neighbours, t_P of them in the part P of x and
// y where both are in P: diamonds (non-induced, one per subgraph) C(t, 2), less C(t_P, 2); the
// tailed triangles' embeddings (the package's comment, paws); paths of 4 vertices (non-induced,
// one per subgraph, by their middle edge) (deg(x) - 1)(deg(y) - 1) - t, less (deg_P(x) - 1)
// (deg_P(y) - 1) - t_P in P's induced subgraph (deg_P: the run's members in P). With d.sup set
// it keeps every edge's t and t_P there (the house's wedge pass reads them). It calls progress
// (nil: none) as sumHubsFirst does. It returns engine.ErrOverflow when the sum does not fit, and
// ctx's error when ctx ends first, with the sum so far: a lower bound on the sum, every edge's
// term taken whole (vertex) and none negative.
func spanningByEdges(ctx context.Context, d *edgeCounter, threads int, progress func(float64)) (uint64, error) {
	n := d.g.NumVertices()
	const chunk = 32
	workers := par.Workers(n, max(threads, 1), chunk)
	marks := make([]plan.Bitset, workers)
	if d.kind != edgeDiamonds {
		d.countExt(workers)
	}
	return sumHubsFirst(ctx, &d.stop, n, workers, chunk, progress, func(w int, x uint32) (uint64, bool) {
		if marks[w] == nil {
			marks[w] = plan.NewBitset(n)
		}
		return d.vertex(x, marks[w])
	})
}

// countExt sets d.ext, every vertex's run's members outside its part, on workers; nil without
// parts (d.of nil), where the counters read no part's terms.
func (d *edgeCounter) countExt(workers int) {
	if d.of == nil {
		return
	}
	n := d.g.NumVertices()
	d.ext = make([]uint32, n)
	par.Ranges(n, workers, 4096, func(_, lo, hi int) bool {
		for v := lo; v < hi; v++ {
			for _, w := range d.list(uint32(v)) {
				if d.of[w] != d.of[v] {
					d.ext[v]++
				}
			}
		}
		return true
	})
}

// sumHubsFirst sums f(w, v) over the vertices v < n on workers goroutines (w names the calling
// one, for its own state), chunk vertices a range, the top ids first: they are the hubs
// (graph.Build's order), whose lists take longest. f's false is an overflow. It sets stop when
// ctx ends (f may read it to leave a hub's list early) and calls f for no vertex after that: a
// range of the top hubs took seconds (R-MAT 21's 4-cycles: 12 s after a --timeout). progress
// (nil: none) is called after every range with the share of the vertices done. It returns ctx's
// error when ctx ends first, with the sum so far (the steps run, as they summed), and
// engine.ErrOverflow when the sum does not fit.
func sumHubsFirst(ctx context.Context, stop *atomic.Bool, n, workers, chunk int, progress func(float64), f func(w int, v uint32) (uint64, bool)) (uint64, error) {
	if ctx.Err() != nil {
		stop.Store(true) // (AfterFunc's call comes later, on a goroutine of its own)
	}
	defer context.AfterFunc(ctx, func() { stop.Store(true) })()
	sums := make([]uint64, workers)
	overflow := make([]bool, workers)
	var done atomic.Int64
	par.Ranges(n, workers, chunk, func(w, lo, hi int) bool {
		for r := lo; r < hi && !stop.Load(); r++ {
			s, fits := f(w, uint32(n-1-r))
			var ok bool
			if sums[w], ok = checked.Add(sums[w], s); !ok || !fits {
				overflow[w] = true
				return false
			}
		}
		if progress != nil {
			progress(float64(done.Add(int64(hi-lo))) / float64(n))
		}
		return !stop.Load()
	})
	var total uint64
	for w, s := range sums {
		var ok bool
		if total, ok = checked.Add(total, s); !ok || overflow[w] {
			return 0, engine.ErrOverflow
		}
	}
	if err := ctx.Err(); err != nil {
		return total, err
	}
	return total, nil
}

// edgeKind is what the pass over the edges' common neighbours sums (spanningByEdges).
type edgeKind uint8

const (
	edgeDiamonds edgeKind = iota
	edgePaws              // tailed triangles' embeddings
	edgePaths             // paths of 4 vertices
)

// edgeCounter reads the runs of the shape's labels (spanningByEdges).
type edgeCounter struct {
	g *graph.Graph
	// of is every vertex's part, nil when every vertex is a part of its own (part).
	of     []uint32
	vl, el uint32
	kind   edgeKind
	// plain is set on a plain graph (one vertex label, no edge labels): a vertex's run is its whole list, or none
	// (none) when the labels are not the graph's.
	plain, none bool
	// ext, for tailed triangles, paths and tailed 4-cycles (nil: diamonds, 4-cycles, houses, or
	// no parts), is every vertex's run's members outside its part.
	ext []uint32
	// sup, when set, takes every edge's common neighbours (edgeSupports).
	sup *edgeSupports
	// stop is set when the count's context ends (sumHubsFirst): a vertex's pass leaves its list.
	stop atomic.Bool
}

// newEdgeCounter is the edge counter of the runs of c's labels in g, of's parts, summing kind.
func newEdgeCounter(g *graph.Graph, of []uint32, c plan.Clique, kind edgeKind) *edgeCounter {
	d := &edgeCounter{g: g, of: of, vl: c.VertexLabel, el: c.EdgeLabel, kind: kind}
	if gl, ok := g.UniformVertexLabel(); ok && !g.HasEdgeLabels() {
		d.plain, d.none = true, gl != d.vl || d.el != 0
	}
	return d
}

// part is v's part: of[v], or v itself without parts, so that no two vertices share one (the
// counts within a part are then none: a run never holds its own vertex).
func (d *edgeCounter) part(v uint32) uint32 {
	if d.of == nil {
		return v
	}
	return d.of[v]
}

// list is v's neighbours that a diamond's vertex on v may take: the run of the labels.
func (d *edgeCounter) list(v uint32) []uint32 {
	if d.plain {
		if d.none {
			return nil
		}
		return d.g.Neighbors(v)
	}
	if d.g.VertexLabel(v) != d.vl {
		return nil
	}
	return d.g.NeighborsWith(v, d.vl, d.el)
}

// vertex is the spanning diamonds whose chord's endpoint of higher (run length, id) is x (or
// the tailed triangles' or the paths' sum over the edges whose endpoint of higher (run length,
// id) is x), with marks (clear, left clear) for x's run; ok is false when their number
// overflows a uint64. With d.sup set it keeps those edges' common neighbours there.
func (d *edgeCounter) vertex(x uint32, marks plan.Bitset) (sum uint64, ok bool) {
	xs := d.list(x)
	dx := len(xs)
	least := 3 // a chord's ends have two common neighbours at least, and one another
	if d.kind != edgeDiamonds || d.sup != nil {
		least = 2 // a triangle's edge's, one; a path's middle edge's, one besides
	}
	if dx < least {
		return 0, true
	}
	for _, z := range xs {
		marks.Set(z)
	}
	px := d.part(x)
	ok = true
	for i, y := range xs {
		if d.stop.Load() {
			break // (the count is partial: sumHubsFirst returns ctx's error)
		}
		ys := d.list(y)
		if dy := len(ys); dy > dx || (dy == dx && y > x) {
			continue
		}
		var t, tp uint64
		if d.part(y) != px {
			for _, z := range ys {
				t += marks[z>>6] >> (z & 63) & 1
			}
		} else {
			for _, z := range ys {
				b := marks[z>>6] >> (z & 63) & 1
				t += b
				if b != 0 && d.part(z) == px {
					tp++
				}
			}
		}
		if d.sup != nil {
			d.sup.keep(x, y, i, ys, t, tp)
		}
		var s uint64
		fits := true
		switch d.kind {
		case edgeDiamonds:
			s = t*(t-1)/2 - tp*(tp-1)/2 // (t < 2^32: no overflow inside)
		case edgePaws:
			s, fits = d.paws(x, y, dx+len(ys)-4, t, tp)
		case edgePaths:
			s = d.paths(x, y, dx, len(ys), t, tp)
		}
		if sum, ok = checked.Add(sum, s); !ok || !fits {
			ok = false
			break
		}
	}
	for _, z := range xs {
		marks.Clear(z)
	}
	return sum, ok
}

// paws is the spanning tailed triangles' embeddings on the edge (x, y) with t common
// neighbours, tp of them in the part of x and y (0 when the edge is cut: vertex counts them
// only within a part), in both directions (hub x and hub y): each common neighbour making a
// spanning triangle with any of the hub's other deg - 2 neighbours (pend, both hubs'
// together), each within the part with one of the hub's outside it (ext); false on overflow.
func (d *edgeCounter) paws(x, y uint32, pend int, t, tp uint64) (uint64, bool) {
	if t == 0 {
		return 0, true // (pend may then be negative)
	}
	if tp == 0 {
		return checked.Mul(t, uint64(pend)) // (ext nil without parts)
	}
	a, ok := checked.Mul(t-tp, uint64(pend))
	b, ok2 := checked.Mul(tp, uint64(d.ext[x])+uint64(d.ext[y]))
	s, ok3 := checked.Add(a, b)
	return s, ok && ok2 && ok3
}

// paths is the spanning paths of 4 vertices (one a subgraph) whose middle edge is (x, y), of
// run lengths dx, dy >= 1, t common neighbours, tp of them in the part of x and y: a neighbour
// of x and one of y (neither the other end, and not one another: a common neighbour), less
// those whose vertices are all in the part of x and y, counted the same way in its induced
// subgraph (the runs' members in it, deg - ext), where x and y share one. Both terms are
// below 2^64 (run lengths below 2^32), and the second no larger than the first.
func (d *edgeCounter) paths(x, y uint32, dx, dy int, t, tp uint64) uint64 {
	s := uint64(dx-1)*uint64(dy-1) - t
	if d.part(x) == d.part(y) {
		s -= uint64(dx-1-int(d.ext[x]))*uint64(dy-1-int(d.ext[y])) - tp
	}
	return s
}

// TailedTriangle reports whether p is a tailed triangle (a paw: a triangle with one pendant
// vertex): four vertices and four edges, degrees 3, 2, 2 and 1.
func TailedTriangle(p *pattern.Pattern) bool {
	if p.NumVertices() != 4 || p.NumEdges() != 4 {
		return false
	}
	deg := degreeCounts(p)
	return deg[3] == 1 && deg[2] == 2 && deg[1] == 1
}

// degreeCounts is how many of p's vertices have degree 0, 1, 2, and 3 or more: the shapes'
// tests (TailedTriangle, Path4, WedgeOf).
func degreeCounts(p *pattern.Pattern) [4]int {
	var deg [4]int
	for u := range p.NumVertices() {
		deg[min(p.Degree(u), 3)]++
	}
	return deg
}

// Path4 reports whether p is a path of 4 vertices: four vertices and three edges, degrees 1,
// 2, 2 and 1 (a triangle and an isolated vertex have degrees 2, 2, 2, 0).
func Path4(p *pattern.Pattern) bool {
	if p.NumVertices() != 4 || p.NumEdges() != 3 {
		return false
	}
	deg := degreeCounts(p)
	return deg[1] == 2 && deg[2] == 2
}

// Labels are the labels whose runs the count walks (on plan.Labels.Graph of the data graph).
func (sh Shape) Labels() plan.Labels { return sh.clique.Labels }

// IsClique says that the shape is a clique (the clique counter's alone).
func (sh Shape) IsClique() bool { return !sh.pass() && sh.wedge == NoWedge }

// Work is the passes a shape's count makes, for the engines to price: EdgePasses passes over
// the edges' common neighbours (spanningByEdges: diamonds, tailed triangles' embeddings, 4-paths),
// the wedge pass of Wedge (a 4-cycle's alone; a house's or a tailed 4-cycle's after an edges'
// pass of its own, not in EdgePasses) and the clique counter's count of CliqueK-cliques (0:
// none).
type Work struct {
	EdgePasses int
	Wedge      Wedge
	CliqueK    int
}

// Work is the passes sh's count makes: an induced 4-path's or 4-cycle's are those of the
// shapes its identity sums (inducedFour).
func (sh Shape) Work() Work {
	switch {
	case sh.identity() && sh.path:
		return Work{EdgePasses: 3, Wedge: WedgeCycle, CliqueK: 4} // 4-paths, paws, diamonds
	case sh.identity():
		return Work{EdgePasses: 1, Wedge: WedgeCycle, CliqueK: 4} // diamonds
	case sh.wedge != NoWedge:
		return Work{Wedge: sh.wedge}
	case sh.pass() && sh.induced:
		return Work{EdgePasses: 1, CliqueK: 4} // an induced diamond
	case sh.pass():
		return Work{EdgePasses: 1}
	}
	return Work{CliqueK: sh.clique.K}
}

// Name is the shape as pbe's Stats.InterShape names it.
func (sh Shape) Name() string {
	switch {
	case sh.diamond:
		return "diamond"
	case sh.paw:
		return "tailed-triangle"
	case sh.path:
		return "4-path"
	case sh.wedge != NoWedge:
		return sh.wedge.String()
	}
	return fmt.Sprintf("%d-clique", sh.clique.K)
}
