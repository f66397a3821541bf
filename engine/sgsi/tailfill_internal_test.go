package sgsi

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/pattern"
)

// TestTailFillStaleW drives a closed tail's cache (tailCache) through the calls the leaf step
// makes between rows, in random order: tailFill for a row (a memo miss), tailSet alone for
// another u's vertex (what tailCount does after a memo hit: A rewritten, W not), and tailSize
// for a row of other ws vertices (a collision correction after a hit: I rewritten, W not).
// After each tailFill, W must be the row's, by brute force: a fill that finds A and I
// already written for the row's vertices must still sum W when the calls between left it
// stale (tailCache.wOK; rev33: no test failed with tailFill ignoring it).
func TestTailFillStaleW(t *testing.T) {
	g := gen.RandomGraph(7, 90, 0.2, 3, 0)
	// u - a - b closed on w: b is a tail's end with ws = [w] (the leaf l: a leaf step).
	p, err := pattern.Parse("(u)-(w)-(z)-(u), (u)-(a:1)-(b:2)-(w), (z)-(l:0)")
	if err != nil {
		t.Fatal(err)
	}
	r, tail := closedTailRunner(t, g, p)
	lgs := r.labels(tail.keys())
	if err := r.newLeafScratch(); err != nil {
		t.Fatal(err)
	}
	sc := r.leafScratch[0]
	c := &sc.tails[0]
	if c.byY.stamp == nil {
		t.Fatal("setup: the tail's memo by y is not kept")
	}
	n := uint32(g.NumVertices())
	rng := rand.New(rand.NewPCG(7, 1))
	row := make([]uint32, r.q.joined)
	// Few vertices, so that u's and w's repeat from call to call (the caches' hits).
	pick := func() uint32 { return uint32(rng.IntN(6)) * (n / 6) }
	var stale, fills int
	for i := range 4000 {
		for j := range row {
			row[j] = pick()
		}
		switch rng.IntN(3) {
		case 0:
			before := c.wOK && c.hasA && c.valid && c.key[0] == row[tail.col] && c.key[1] == row[tail.ws[0].col]
			r.tailFill(tail, c, row, lgs, sc)
			fills++
			if want := bruteW(g, row[tail.col], row[tail.ws[0].col], 1, 2); c.w != want {
				t.Fatalf("call %d: tailFill for u's %d, w's %d: W %d, want %d", i, row[tail.col], row[tail.ws[0].col], c.w, want)
			}
			if !before && c.hasA && c.key[0] == row[tail.col] {
				stale++
			}
		case 1:
			r.tailSet(tail, c, row[tail.col], lgs, sc)
		default:
			if !c.hasA || len(c.set) == 0 {
				continue
			}
			k := rng.IntN(len(c.set))
			got := r.tailSize(tail, c, row, k, lgs, sc)
			x := c.set[k]
			want := int64(0)
			for _, y := range g.Neighbors(x) {
				if _, ok := g.HasEdge(y, row[tail.ws[0].col]); ok && g.VertexLabel(y) == 2 {
					want++
				}
			}
			if got != want {
				t.Fatalf("call %d: tailSize of %d for w's %d: %d, want %d", i, x, row[tail.ws[0].col], got, want)
			}
		}
	}
	if stale == 0 {
		t.Fatalf("no tailFill found a stale W in %d fills", fills)
	}
}

// bruteW is a closed tail's W for u's vertex v and w's vertex x on g, every vertex of a's
// label la and b's lb a candidate: the walks v - a - b with b adjacent to x.
func bruteW(g *graph.Graph, v, x, la, lb uint32) int64 {
	var w int64
	for _, a := range g.Neighbors(v) {
		if g.VertexLabel(a) != la {
			continue
		}
		for _, b := range g.Neighbors(a) {
			if _, ok := g.HasEdge(b, x); ok && g.VertexLabel(b) == lb {
				w++
			}
		}
	}
	return w
}

// closedTailRunner plans p over g (every data vertex a candidate of every pattern vertex) for a
// count with a leaf step, its fifth vertex (b) late (chooseLate), and returns a runner of one
// thread over it (out of core, no steps' stats) and its only tail, which must have one other
// parent (ws).
func closedTailRunner(t *testing.T, g *graph.Graph, p *pattern.Pattern) (*runner, *leafTail) {
	t.Helper()
	s := storeFor(g, 0)
	q := compileQuery(p)
	sizes, cands, bits, bitWords := everyCandidate(g, p.NumVertices())
	q.late = 1 << 4 // (b: closing on a and w)
	q.plan(sizes, func(k uint64) uint64 { return s.edgeEntries(k, 0) }, false, false, false, true, true, true)
	if len(q.tails) != 1 || len(q.tails[0].ws) != 1 {
		t.Fatalf("setup: order %v, joined %d, tails %+v", q.order, q.joined, q.tails)
	}
	r := &runner{ctx: context.Background(), s: s, q: q, cands: cands, bitsHost: bits, bitWords: bitWords, threads: 1, st: &Stats{}}
	if slices.Contains(q.order[:q.joined], q.tails[0].b) {
		t.Fatalf("setup: b joined (order %v)", q.order)
	}
	return r, &q.tails[0]
}
