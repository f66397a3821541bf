package pbe

import (
	"context"
	"fmt"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/engine/internal/cliques"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/internal/checked"
	"github.com/submatch/submatch/internal/par"
	"github.com/submatch/submatch/pattern"
	"github.com/submatch/submatch/plan"
)

// Shapes the host inter stage counts without its search (branch pbeclique): cliques of
// shapeMinClique or more vertices and diamonds (K4 less an edge), with uniform labels (one
// sorted run of every data vertex's neighbours matches: plan.UniformLabels). The count is
// still exactly the instances that span two parts or more (an instance's vertices are all in
// one part or it is inter-partition: the same split as the seeded search's, without seeds), in
// every convention; listing keeps the seeded search (interPlan), which lists every instance.
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
//
// The seeded search extends every cut edge's partial matches (the 4-clique on R-MAT 18: 16 s
// against the CPU engine's whole count's 0.84 s); these do what the CPU engine's whole count
// does, less the roots (cliques) whose upward neighbours stay in their part.

// shapeMinClique is the smallest clique the inter stage counts as a shape: triangles too
// (the seeded search of triangles is within the CPU engine's time, the clique counter's below).
const shapeMinClique = 3

// interShape is how the inter stage counts a shape: the clique (for a diamond, the 4-clique of
// its labels, for the induced count's correction), the matrix size and workers of the clique
// counter, and the host memory that takes (hostBytes).
type interShape struct {
	clique    plan.Clique
	diamond   bool
	paw       bool // a tailed triangle (clique: its labels' triangle, for the pass's runs)
	induced   bool
	matrixMax int
	threads   int
	bytes     uint64
}

// shapeOf returns how the inter stage of p's count counts it as a shape within limit bytes of
// host memory (0: no limit), false when p is none or it does not fit (the seeded search, which
// takes less, runs then).
func shapeOf(p *engine.Problem, limit uint64) (interShape, bool) {
	g, pat := p.Data, p.Pattern
	sh := interShape{induced: p.Semantics.Induced, matrixMax: cliques.MatrixLimit, threads: p.ThreadCount()}
	if c, ok := plan.CliqueOf(g, pat, shapeMinClique); ok {
		sh.clique = c
	} else if pat.NumVertices() == 4 && pat.NumEdges() == 5 { // K4 less an edge: a diamond
		vl, el, ok := plan.UniformLabels(g, pat)
		if !ok || sh.induced && g.HasEdgeLabels() {
			// (Induced: the tips must not be adjacent by an edge of any label, which the
			// 4-cliques of the pattern's edge label do not cover.)
			return interShape{}, false
		}
		sh.clique, sh.diamond = plan.Clique{K: 4, VertexLabel: vl, EdgeLabel: el}, true
	} else if tailedTriangle(pat) && !sh.induced {
		vl, el, ok := plan.UniformLabels(g, pat)
		if !ok {
			return interShape{}, false
		}
		sh.clique, sh.paw = plan.Clique{K: 3, VertexLabel: vl, EdgeLabel: el}, true
	} else {
		return interShape{}, false
	}
	if sh.clique.K == 3 {
		sh.matrixMax = 0 // a triangle's root counts pairs by intersections, a tailed triangle's pass its edges': no matrix
	}
	sh.bytes = sh.hostBytes(g)
	if limit == 0 || sh.bytes <= limit {
		return sh, true
	}
	// Within the limit: smaller matrices (halved down to 64 members, then none: every set split),
	// then fewer workers, as the CPU engine's clique count does.
	threads := sh.threads
	sh.threads = 1
	for sh.hostBytes(g) > limit {
		if sh.matrixMax == 0 || sh.pass() && !sh.induced {
			return interShape{}, false // (no matrix to shrink)
		}
		if sh.matrixMax /= 2; sh.matrixMax < 64 {
			sh.matrixMax = 0
		}
	}
	sh.threads = max(1, min(threads, int((limit-sh.fixedBytes(g))/sh.workerBytes(g))))
	sh.bytes = sh.hostBytes(g)
	return sh, true
}

// hostBytes is the host memory the shape's count takes beside the graph and the partitioning
// (Stats.InterHostBytes): fixedBytes and workerBytes on every worker.
func (sh interShape) hostBytes(g *graph.Graph) uint64 {
	return sh.fixedBytes(g) + uint64(sh.threads)*sh.workerBytes(g)
}

// fixedBytes is the clique counter's orientation table (plan.Clique.Orient: 8 bytes a vertex),
// where the count runs it (cliques, induced diamonds), or a tailed triangle's ext (4 bytes a
// vertex).
func (sh interShape) fixedBytes(g *graph.Graph) uint64 {
	switch {
	case sh.paw:
		return 4 * uint64(g.NumVertices())
	case sh.diamond && !sh.induced:
		return 0
	}
	return 8 * uint64(g.NumVertices())
}

// pass says that the shape is counted by the pass over the data edges' common neighbours
// (spanningByEdges): a diamond or a tailed triangle.
func (sh interShape) pass() bool { return sh.diamond || sh.paw }

// workerBytes is a worker's memory: the clique counter's (cliques.SpanningWorkerMemory) where it
// runs, and for the pass the bit set of a vertex's list.
func (sh interShape) workerBytes(g *graph.Graph) uint64 {
	var b uint64
	if sh.pass() {
		b = plan.BitsetBytes(g.NumVertices())
	}
	if !sh.pass() || sh.induced {
		b += cliques.SpanningWorkerMemory(cliques.SizeOf(g), sh.clique.K, sh.matrixMax)
	}
	return b
}

// count counts the shape's instances of p that span more than one part of of, in p's
// convention: ctx's error (the count partial) when it ends, engine.ErrOverflow when the count
// does not fit a uint64.
func (sh interShape) count(ctx context.Context, p *engine.Problem, of []uint32) (uint64, error) {
	g := p.Data
	var n uint64
	if sh.pass() {
		var err error
		if n, err = spanningByEdges(ctx, g, of, sh.clique.VertexLabel, sh.clique.EdgeLabel, sh.paw, sh.threads); err != nil {
			return 0, err
		}
	}
	if sh.paw {
		if p.Semantics.Unique {
			return n / 2, nil // (|Aut| = 2: the sum counts every instance twice)
		}
		return n, nil
	}
	if !sh.diamond || sh.induced {
		o := sh.clique.Orient(g, sh.threads)
		k, err := cliques.CountSpanning(ctx, o, sh.clique.K, sh.matrixMax, of, sh.threads)
		if err != nil {
			return 0, err
		}
		if !sh.diamond {
			total, ok := sh.clique.Embeddings(k, p.Semantics.Unique)
			if !ok {
				return 0, engine.ErrOverflow
			}
			return total, nil
		}
		// Induced: the diamonds whose tips are adjacent are the 4-cliques' six each.
		six, ok := checked.Mul(k, 6)
		if !ok || six > n {
			return 0, fmt.Errorf("pbe: %d spanning diamonds hold %d 4-cliques", n, k)
		}
		n -= six
	}
	if p.Semantics.Unique {
		return n, nil
	}
	total, ok := checked.Mul(n, 4) // |Aut(diamond)|
	if !ok {
		return 0, engine.ErrOverflow
	}
	return total, nil
}

// spanningByEdges counts the diamonds (non-induced, one per subgraph), or with paw the tailed
// triangles' non-induced embeddings, of g's vertices of label vl and edges of label el whose
// vertices lie in more than one part of of, on threads workers: for every data edge (x, y) with
// t common neighbours, C(t, 2), less C(t_P, 2) when x and y are in part P and t_P of the common
// neighbours are (diamonds), or the tailed triangles' sum (the package's comment). It returns
// ctx's error when ctx ends first, engine.ErrOverflow when the sum does not fit.
func spanningByEdges(ctx context.Context, g *graph.Graph, of []uint32, vl, el uint32, paw bool, threads int) (uint64, error) {
	n := g.NumVertices()
	const chunk = 32
	workers := par.Workers(n, max(threads, 1), chunk)
	sums := make([]uint64, workers)
	overflow := make([]bool, workers)
	marks := make([]plan.Bitset, workers)
	d := edgeCounter{g: g, of: of, vl: vl, el: el}
	if gl, plain := plainLabel(g); plain {
		d.plain, d.none = true, gl != vl || el != 0
	}
	if paw {
		d.ext = make([]uint32, n)
		par.Ranges(n, workers, 4096, func(_, lo, hi int) bool {
			for v := lo; v < hi; v++ {
				for _, w := range d.list(uint32(v)) {
					if of[w] != of[v] {
						d.ext[v]++
					}
				}
			}
			return true
		})
	}
	// The top ids are the hubs (graph.Build's order), whose lists take longest: they go first.
	par.Ranges(n, workers, chunk, func(w, lo, hi int) bool {
		if marks[w] == nil {
			marks[w] = plan.NewBitset(n)
		}
		for r := lo; r < hi; r++ {
			s, fits := d.vertex(uint32(n-1-r), marks[w])
			var ok bool
			if sums[w], ok = checked.Add(sums[w], s); !ok || !fits {
				overflow[w] = true
				return false
			}
		}
		return ctx.Err() == nil
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

// edgeCounter reads the runs of the shape's labels (spanningByEdges).
type edgeCounter struct {
	g      *graph.Graph
	of     []uint32
	vl, el uint32
	// plain is set on a plain graph (plainLabel): a vertex's run is its whole list, or none
	// (none) when the labels are not the graph's.
	plain, none bool
	// ext, for tailed triangles (nil: diamonds), is every vertex's run's members outside its part.
	ext []uint32
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
// the tailed triangles' sum over the edges whose endpoint of higher (run length, id) is x), with
// marks (clear, left clear) for x's run; ok is false when their number overflows a uint64.
func (d *edgeCounter) vertex(x uint32, marks plan.Bitset) (sum uint64, ok bool) {
	xs := d.list(x)
	dx := len(xs)
	least := 3 // a chord's ends have two common neighbours at least, and one another
	if d.ext != nil {
		least = 2 // a triangle's edge's, one
	}
	if dx < least {
		return 0, true
	}
	for _, z := range xs {
		marks.Set(z)
	}
	px := d.of[x]
	ok = true
	for _, y := range xs {
		ys := d.list(y)
		if dy := len(ys); dy > dx || (dy == dx && y > x) {
			continue
		}
		var t, tp uint64
		if d.of[y] != px {
			for _, z := range ys {
				t += marks[z>>6] >> (z & 63) & 1
			}
		} else {
			for _, z := range ys {
				b := marks[z>>6] >> (z & 63) & 1
				t += b
				if b != 0 && d.of[z] == px {
					tp++
				}
			}
		}
		s, fits := t*(t-1)/2-tp*(tp-1)/2, true // (t < 2^32: no overflow inside)
		if d.ext != nil {
			s, fits = d.paws(x, y, dx+len(ys)-4, t, tp)
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
	a, ok := checked.Mul(t-tp, uint64(pend))
	b, ok2 := checked.Mul(tp, uint64(d.ext[x])+uint64(d.ext[y]))
	s, ok3 := checked.Add(a, b)
	return s, ok && ok2 && ok3
}

// tailedTriangle reports whether p is a tailed triangle (a paw: a triangle with one pendant
// vertex): four vertices and four edges, degrees 3, 2, 2 and 1.
func tailedTriangle(p *pattern.Pattern) bool {
	if p.NumVertices() != 4 || p.NumEdges() != 4 {
		return false
	}
	var deg [4]int
	for u := range 4 {
		deg[p.Degree(u)]++
	}
	return deg[3] == 1 && deg[2] == 2 && deg[1] == 1
}

// shapeFor returns how the inter stage of p's count counts it as a shape (shapeOf, within the
// host memory limit, hostLimit), false when it is none or the engine does not count shapes
// (noShapes, or the inter stage on the GPU).
func (e *Engine) shapeFor(p *engine.Problem) (interShape, bool) {
	if e.noShapes || e.InterBackend == InterGPU {
		return interShape{}, false
	}
	return shapeOf(p, e.hostLimit(p))
}

// interByShape counts the inter stage of p's count as the shape sh, setting st's InterMatches,
// InterShape and InterHostBytes: ctx's error when ctx ended (the count then partial), else the
// count's failure, wrapped.
func (e *Engine) interByShape(ctx context.Context, p *engine.Problem, of []uint32, sh interShape, st *Stats) error {
	st.InterHostBytes, st.InterShape = sh.bytes, sh.name()
	n, err := sh.count(ctx, p, of)
	st.InterMatches = n
	if err != nil && ctx.Err() == nil {
		return fmt.Errorf("pbe: the inter stage's %s count: %w", sh.name(), err)
	}
	return err
}

// name is the shape as Stats.InterShape names it.
func (sh interShape) name() string {
	switch {
	case sh.diamond:
		return "diamond"
	case sh.paw:
		return "tailed-triangle"
	}
	return fmt.Sprintf("%d-clique", sh.clique.K)
}
