package pbe

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/engine/internal/cliques"
	"github.com/submatch/submatch/engine/internal/shapes"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/internal/proptest"
	"github.com/submatch/submatch/partition"
	"github.com/submatch/submatch/pattern"
	"github.com/submatch/submatch/plan"
)

// diamondPattern is a diamond with every vertex labelled vl and every edge el ("": a wildcard).
func diamondPattern(t *testing.T, vl, el string) *pattern.Pattern {
	return uniformPattern(t, vl, el, []string{"a", "b", "c", "d", "a"}, []string{"a", "c"})
}

// pawPattern is a tailed triangle (a paw: the triangle a, b, c and d on a) with every vertex
// labelled vl and every edge el ("": a wildcard).
func pawPattern(t *testing.T, vl, el string) *pattern.Pattern {
	return uniformPattern(t, vl, el, []string{"a", "b", "c", "a"}, []string{"a", "d"})
}

// uniformPattern is the pattern of the walks (vertex names, each joined to the next), every
// vertex labelled vl and every edge el ("": a wildcard).
func uniformPattern(t *testing.T, vl, el string, walks ...[]string) *pattern.Pattern {
	t.Helper()
	e := "-"
	if el != "" {
		e = "-[:" + el + "]-"
	}
	var src []string
	for _, w := range walks {
		vs := make([]string, len(w))
		for k, name := range w {
			vs[k] = "(" + name + ")"
			if vl != "" {
				vs[k] = "(" + name + ":" + vl + ")"
			}
		}
		src = append(src, strings.Join(vs, e))
	}
	p, err := pattern.Parse(strings.Join(src, ", "))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// spanningPawsByTuples counts, by brute force over the ordered 4-tuples (a, b, c, d) of g's
// distinct vertices, the non-induced tailed triangles (edges a-b, b-c, c-a, a-d) whose vertices
// lie in more than one part of of: embeddings, or half of them for unique (|Aut| = 2).
func spanningPawsByTuples(g *graph.Graph, of []uint32, unique bool) uint64 {
	n := uint32(g.NumVertices())
	adj := func(x, y uint32) bool { _, ok := g.HasEdge(x, y); return ok }
	var total uint64
	for a := range n {
		for b := range n {
			for c := range n {
				if a == b || b == c || a == c || !adj(a, b) || !adj(b, c) || !adj(a, c) {
					continue
				}
				for d := range n {
					if d != a && d != b && d != c && adj(a, d) && (of[a] != of[b] || of[a] != of[c] || of[a] != of[d]) {
						total++
					}
				}
			}
		}
	}
	if unique {
		return total / 2
	}
	return total
}

// spanningByVertexSets counts, by brute force over the vertex sets of g, the instances of a
// k-clique (diamond false) or a diamond on them whose vertices lie in more than one part of of,
// in sem: a k-set that is a clique holds one clique (k! embeddings); a 4-set holds one diamond
// for each of its edges (x, y) whose other two vertices are both adjacent to x and y (4
// embeddings each), and an induced one when it has five edges exactly. A count that takes an
// instance twice, or one within a part, differs from it.
func spanningByVertexSets(g *graph.Graph, of []uint32, k int, diamond bool, sem engine.Semantics) uint64 {
	n := g.NumVertices()
	adj := func(x, y int) bool { _, ok := g.HasEdge(uint32(x), uint32(y)); return ok }
	set := make([]int, 0, k)
	var total uint64
	var rec func(from int)
	rec = func(from int) {
		if len(set) == k {
			spans := false
			for _, v := range set[1:] {
				spans = spans || of[v] != of[set[0]]
			}
			if !spans {
				return
			}
			edges, inst := 0, uint64(0)
			for i := range k {
				for j := i + 1; j < k; j++ {
					if !adj(set[i], set[j]) {
						continue
					}
					edges++
					if !diamond {
						continue
					}
					tips := 0
					for _, z := range set {
						if z != set[i] && z != set[j] && adj(z, set[i]) && adj(z, set[j]) {
							tips++
						}
					}
					if tips == 2 {
						inst++
					}
				}
			}
			switch {
			case !diamond && edges == k*(k-1)/2:
				inst = 1
				if !sem.Unique {
					for f := 2; f <= k; f++ {
						inst *= uint64(f)
					}
				}
			case !diamond:
				inst = 0
			default:
				if sem.Induced {
					inst = min(inst, 1)
					if edges != 5 {
						inst = 0
					}
				}
				if !sem.Unique {
					inst *= 4
				}
			}
			total += inst
			return
		}
		for v := from; v < n; v++ {
			set = append(set, v)
			rec(v + 1)
			set = set[:len(set)-1]
		}
	}
	rec(0)
	return total
}

// TestInterShapesExactlyOnce: on small dense graphs (a 5-clique, 7 and 8 vertices at random),
// under every assignment of their vertices to up to three parts, the shape counts of 3-, 4- and
// 5-cliques and of diamonds (non-induced and induced) in every convention equal the instances
// on vertex sets that meet two parts or more, counted by brute force over the vertex sets; a
// count that takes a spanning instance twice (from two roots, two chords) or one within a part
// fails. 1 and 3 threads, with and without the clique counter's bit matrices.
func TestInterShapesExactlyOnce(t *testing.T) {
	ctx := context.Background()
	graphs := []*graph.Graph{gen.RandomGraph(1, 5, 1, 1, 1), gen.RandomGraph(2, 7, 0.75, 1, 1), gen.RandomGraph(3, 8, 0.6, 1, 1)}
	patterns := []struct {
		p            *pattern.Pattern
		k            int
		diamond, paw bool
	}{{proptest.Clique(t, 3, "", ""), 3, false, false}, {proptest.Clique(t, 4, "", ""), 4, false, false},
		{proptest.Clique(t, 5, "", ""), 5, false, false}, {diamondPattern(t, "", ""), 4, true, false},
		{pawPattern(t, "", ""), 4, false, true}}
	nonzero := 0
	for gi, g := range graphs {
		n := g.NumVertices()
		of := make([]uint32, n)
		assignments := 1
		for range n {
			assignments *= 3
		}
		stride := 1 + assignments/400 // every one for the 5-clique, a spread sample of the others
		for a := 0; a < assignments; a += stride {
			for v, x := 0, a; v < n; v, x = v+1, x/3 {
				of[v] = uint32(x % 3)
			}
			for _, pc := range patterns {
				for _, sem := range proptest.AllSemantics {
					if pc.paw && sem.Induced {
						continue // (not a shape: the seeded search counts induced tailed triangles)
					}
					want := spanningByVertexSets(g, of, pc.k, pc.diamond, sem)
					if pc.paw {
						want = spanningPawsByTuples(g, of, sem.Unique)
					}
					sh, ok := shapes.Of(&engine.Problem{Data: g, Pattern: pc.p, Semantics: sem}, 0)
					if !ok {
						t.Fatalf("%s is not a shape", pc.p)
					}
					// The clique counter's bit matrices, and its split sets alone (matrices of
					// 2 members at most, or none).
					for _, c := range []struct{ threads, matrixMax int }{{1, cliques.MatrixLimit}, {3, cliques.MatrixLimit}, {1, 2}, {2, 0}} {
						sh.Threads, sh.MatrixMax = c.threads, c.matrixMax
						got, err := sh.Count(ctx, &engine.Problem{Data: g, Pattern: pc.p, Semantics: sem}, of)
						if err != nil || got != want {
							t.Fatalf("graph %d, parts %v, %s %v, %+v: %d spanning, brute force %d (%v)", gi, of, pc.p, sem, c, got, want, err)
						}
					}
					if want > 0 {
						nonzero++
					}
				}
			}
		}
	}
	if nonzero < 100 {
		t.Fatalf("only %d cases had spanning instances", nonzero)
	}
}

// TestInterShapesAgainstOracle: on random graphs with one or two labels of each kind (and
// R-MAT graphs, plain) cut into 2-4 parts at random or by the partitioner, the shape counts of
// cliques of 3-5 vertices and diamonds, labelled or with wildcards, in every convention, equal
// the oracle's matches that span two parts or more, and the seeded search's count of the same
// (interPlan), on 1 and 3 threads. And whole counts with the shapes equal the CPU engine's,
// their inter part the seeded search's (noShapes) on the same parts.
func TestInterShapesAgainstOracle(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(21, 4))
	seeds, _ := proptest.Seeds(t, 60, 16)
	var err error
	checked, labelled := 0, 0
	for _, seed := range seeds {
		var g *graph.Graph
		if seed%4 == 3 {
			g, err = gen.RMAT(gen.RMATOptions{Scale: 5, EdgeFactor: 5, Seed: seed})
			if err != nil {
				t.Fatal(err)
			}
		} else {
			g = gen.RandomGraph(seed, 14+int(seed%10), 0.45+0.05*float64(seed%6), 1+int(seed%2), 1+int(seed/2%2))
		}
		of := make([]uint32, g.NumVertices())
		parts := 2 + rng.IntN(3)
		for v := range of {
			of[v] = uint32(rng.IntN(parts))
		}
		vl, el := "", ""
		if lv, ok := g.UniformVertexLabel(); !ok || seed%3 == 0 {
			vl = fmt.Sprint(lv)
		}
		if g.HasEdgeLabels() {
			el = "0"
		}
		pats := []*pattern.Pattern{proptest.Clique(t, 3, vl, el), proptest.Clique(t, 4, vl, el), proptest.Clique(t, 5, vl, el), diamondPattern(t, vl, el), pawPattern(t, vl, el)}
		for _, p := range pats {
			for _, sem := range proptest.AllSemantics {
				prob := &engine.Problem{Data: g, Pattern: p, Semantics: sem}
				want, ok := oracleSpanning(g, p, sem, of)
				if !ok {
					continue
				}
				sh, ok := shapes.Of(prob, 0)
				inducedDiamond, inducedPaw := p.NumEdges() == 5 && sem.Induced, shapes.TailedTriangle(p) && sem.Induced
				if ok == (inducedDiamond && g.HasEdgeLabels() || inducedPaw) {
					t.Fatalf("seed %d: %s %v on edge labels %v: a shape %v", seed, p, sem, g.HasEdgeLabels(), ok)
				}
				for _, threads := range []int{1, 3} {
					if !ok {
						break
					}
					sh.Threads = threads
					if got, err := sh.Count(ctx, prob, of); err != nil || got != want {
						t.Fatalf("seed %d, %d parts, %s %v, %d threads: %d spanning, oracle %d (%v)", seed, parts, p, sem, threads, got, want, err)
					}
				}
				ip, err := interPlanFor(ctx, prob, true, true)
				if err != nil {
					t.Fatal(err)
				}
				is, _ := runInter(ctx, g, of, entryBytes(g), ip, 2, nil)
				if got, _ := ip.total(is.matches); got != want {
					t.Fatalf("seed %d, %s %v: the seeded search counts %d, oracle %d", seed, p, sem, got, want)
				}
				if want > 0 {
					checked++
					if vl != "" {
						labelled++
					}
				}
				checkWholeCount(t, g, p, sem, ok, fmt.Sprintf("seed %d", seed))
			}
		}
	}
	if checked < len(seeds) || labelled == 0 {
		t.Fatalf("%d cases had spanning instances, %d labelled: the oracle checks little", checked, labelled)
	}
}

// checkWholeCount checks pbe's whole count of p on g in sem, on the grow partitioner's parts at
// a third of the graph: it equals the CPU engine's, its inter part the seeded search's (noShapes),
// and the inter stage counted a shape (where there was more than one part) exactly when shape
// says so. what names the case.
func checkWholeCount(t *testing.T, g *graph.Graph, p *pattern.Pattern, sem engine.Semantics, shape bool, what string) {
	t.Helper()
	ctx := context.Background()
	cpu, err := engine.Lookup("cpu")
	if err != nil {
		t.Fatal(err)
	}
	whole := &engine.Problem{Data: g, Pattern: p, Semantics: sem, Threads: 2}
	cpuRes, err := cpu.Count(ctx, whole)
	if err != nil {
		t.Fatal(err)
	}
	budget := max(partition.GraphBytes(g)/3, 64)
	res, st, err := (&Engine{Budget: budget, Partitioner: partition.Grow}).CountStats(ctx, whole)
	_, ref, err2 := (&Engine{Budget: budget, Partitioner: partition.Grow, noShapes: true}).CountStats(ctx, whole)
	if err != nil || err2 != nil || res.Count != cpuRes.Count || st.InterMatches != ref.InterMatches || st.Parts > 1 && (st.InterShape != "") != shape || ref.InterShape != "" {
		t.Fatalf("%s, %s %v: pbe %d (inter %d by %q, %d parts), cpu %d, the seeded search's inter %d (%v, %v)",
			what, p, sem, res.Count, st.InterMatches, st.InterShape, st.Parts, cpuRes.Count, ref.InterMatches, err, err2)
	}
}

// TestInterShapeBytes: a shape's accounted memory is the clique counter's orientation and
// workers (cliques) or a bit set of the vertices a worker (diamonds; tailed triangles and
// 4-paths, with 4 bytes a vertex), both for induced diamonds, or the wedge pass's counters a
// worker (4-cycles; houses, with their edges' supports); within a host limit below it the count takes fewer workers or smaller matrices (none),
// never more than the limit, or leaves the count to the seeded search, which then counts what
// the CPU engine counts; a cancelled count stops with the context's error.
func TestInterShapeBytes(t *testing.T) {
	ctx := context.Background()
	g, err := gen.RMAT(gen.RMATOptions{Scale: 10, EdgeFactor: 8, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	n := uint64(g.NumVertices())
	cpu, err := engine.Lookup("cpu")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		p       *pattern.Pattern
		sem     engine.Semantics
		diamond bool
	}{{proptest.Clique(t, 3, "", ""), engine.Semantics{}, false}, {proptest.Clique(t, 4, "", ""), engine.Semantics{}, false},
		{diamondPattern(t, "", ""), engine.Semantics{}, true}, {diamondPattern(t, "", ""), engine.Semantics{Induced: true}, true},
		{pawPattern(t, "", ""), engine.Semantics{}, false}, {uniformPattern(t, "", "", []string{"a", "b", "c", "d"}), engine.Semantics{}, false},
		{uniformPattern(t, "", "", []string{"a", "b", "c", "d", "a"}), engine.Semantics{}, false},
		{uniformPattern(t, "", "", []string{"a", "b", "c", "d", "a"}, []string{"a", "e", "b"}), engine.Semantics{}, false},
		{uniformPattern(t, "", "", []string{"a", "b", "c", "d"}), engine.Semantics{Induced: true}, false},
		{uniformPattern(t, "", "", []string{"a", "b", "c", "d", "a"}), engine.Semantics{Induced: true}, false}} {
		prob := &engine.Problem{Data: g, Pattern: c.p, Semantics: c.sem, Threads: 2}
		sh, ok := shapes.Of(prob, 0)
		if !ok || sh.Threads != 2 {
			t.Fatalf("%s: not a shape, or %d workers", c.p, sh.Threads)
		}
		paw := (shapes.TailedTriangle(c.p) || shapes.Path4(c.p)) && !c.sem.Induced // ext, 4 bytes a vertex, and a bit set a worker
		wedge := shapes.WedgeOf(c.p)                                               // its counters a worker, a house's supports
		if c.sem.Induced {
			wedge = shapes.NoWedge // (induced 4-paths and 4-cycles: the clique counter's orientation besides)
		}
		fixed, worker := wedge.Bytes(g)
		if c.diamond && !c.sem.Induced && sh.Bytes != 2*plan.BitsetBytes(int(n)) || paw && sh.Bytes != 4*n+2*plan.BitsetBytes(int(n)) ||
			wedge != shapes.NoWedge && (sh.Bytes != fixed+2*worker || worker < 12*n) || !c.diamond && !paw && wedge == shapes.NoWedge && sh.Bytes < 8*n+2*2*n {
			t.Errorf("%s %v: %d bytes accounted", c.p, c.sem, sh.Bytes)
		}
		// A byte below two workers' memory: one worker, its matrices as large.
		if one, ok := shapes.Of(prob, sh.Bytes-1); !ok || one.Threads != 1 || one.MatrixMax != sh.MatrixMax {
			t.Errorf("%s %v: within %d bytes: %+v, %v", c.p, c.sem, sh.Bytes-1, one, ok)
		}
		// One worker without a matrix: its memory takes the clique counter's matrix away.
		bare := sh
		bare.Threads, bare.MatrixMax = 1, 0
		if low, ok := shapes.Of(prob, bare.HostBytes(g)); !ok || low.MatrixMax != 0 && (!c.diamond || c.sem.Induced) || low.Threads != 1 {
			t.Errorf("%s %v: within %d bytes: %+v, %v", c.p, c.sem, bare.HostBytes(g), low, ok)
		}
		for _, limit := range []uint64{sh.Bytes / 2, 8*n + 100, 64} {
			if low, ok := shapes.Of(prob, limit); ok && (low.Bytes > limit || low.Bytes != low.HostBytes(g)) {
				t.Errorf("%s %v: within %d bytes the shape takes %d", c.p, c.sem, limit, low.Bytes)
			}
		}
		want, err := cpu.Count(ctx, prob)
		if err != nil {
			t.Fatal(err)
		}
		e := &Engine{Partitioner: partition.Grow}
		// --gpu-memory the budget, --memory the host's: a limit below the shape's memory counts
		// by a smaller shape or by the seeded search, the same count.
		for _, limit := range []uint64{1 << 30, sh.Bytes - 1, 9 * n} {
			q := *prob
			q.GPUMemoryLimit, q.MemoryLimit = partition.GraphBytes(g)/3, limit
			res, st, err := e.CountStats(ctx, &q)
			if err != nil && !errors.Is(err, engine.ErrMemory) || err == nil && (res.Count != want.Count || st.InterHostBytes > limit) {
				t.Errorf("%s %v, --memory %d: count %d (cpu %d), %d bytes accounted by %q (%v)", c.p, c.sem, limit, res.Count, want.Count, st.InterHostBytes, st.InterShape, err)
			}
		}
		cancelled, cancel := context.WithCancel(ctx)
		cancel()
		of := make([]uint32, n)
		for v := range of {
			of[v] = uint32(v & 1)
		}
		if _, err := sh.Count(cancelled, prob, of); !errors.Is(err, context.Canceled) {
			t.Errorf("%s %v: a cancelled count returned %v", c.p, c.sem, err)
		}
	}
}
