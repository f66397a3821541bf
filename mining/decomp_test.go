package mining

import (
	"context"
	"fmt"
	"testing"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/formats"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/internal/testenv"
)

// bruteRooted counts, by backtracking over the ordered graph, the injective maps of s that
// keep its edges with vertex 0 on x (and 1 on y when y >= 0).
func bruteRooted(o *ordered, s Shape, x, y int) uint64 {
	img := make([]int, s.K)
	used := map[int]bool{}
	var rec func(i int) uint64
	rec = func(i int) uint64 {
		if i == s.K {
			return 1
		}
		var n uint64
		try := func(v int) {
			if used[v] {
				return
			}
			for j := 0; j < i; j++ {
				if s.Adj[i]&(1<<j) != 0 && !o.adjacent(img[j], v) {
					return
				}
			}
			img[i] = v
			used[v] = true
			n += rec(i + 1)
			used[v] = false
		}
		switch {
		case i == 0:
			try(x)
		case i == 1 && y >= 0:
			try(y)
		default:
			for v := 0; v < o.n; v++ {
				try(v)
			}
		}
		return n
	}
	return rec(0)
}

// checkDecomp counts every 6-vertex shape by decomposition and checks every rooted vector the
// rules built against brute force.
func checkDecomp(t *testing.T, g *graph.Graph, label string) {
	t.Helper()
	l := sixLocals(t, g)
	o := l.o
	d := sixDecomp(t, l, 0)
	for _, s := range ConnectedShapes(6) {
		got, rule, err := d.count(s)
		if err == errNoRule {
			continue
		}
		if err != nil {
			t.Errorf("%s: %v: %v", label, s.Adj[:s.K], err)
			continue
		}
		var want uint64
		for x := 0; x < o.n; x++ {
			want += bruteRooted(o, s, x, -1)
		}
		if got != want {
			t.Errorf("%s: %v by %s: %d embeddings, brute force %d", label, s.Adj[:s.K], rule, got, want)
		}
	}
	for key, e := range d.vecs {
		if e.err != nil {
			continue
		}
		v := e.v
		s := Shape{K: key.k}
		for i := 0; i < s.K; i++ {
			s.Adj[i] = uint8(key.code >> (8 * i))
		}
		if key.roots == 1 {
			for x := 0; x < o.n; x++ {
				if want := bruteRooted(o, s, x, -1); v[x] != want {
					t.Errorf("%s: %v rooted at 0, vertex %d: %d, brute force %d", label, s.Adj[:s.K], x, v[x], want)
					break
				}
			}
			continue
		}
		for p := range o.nbr {
			if want := bruteRooted(o, s, int(d.src[p]), int(o.nbr[p])); v[p] != want {
				t.Errorf("%s: %v rooted at (0, 1), edge %d-%d: %d, brute force %d", label, s.Adj[:s.K], d.src[p], o.nbr[p], v[p], want)
				break
			}
		}
	}
}

func TestDecompRooted(t *testing.T) {
	cases := testenv.Sweep(4, 40)
	for seed := range uint64(cases) {
		n := 8 + int(seed%4)
		p := []float64{0.3, 0.5, 0.7}[seed%3]
		checkDecomp(t, gen.RandomGraph(seed, n, p, 1, 1), fmt.Sprintf("seed %d (n=%d p=%.2f)", seed, n, p))
	}
}

// TestDecompEngineEmailEu (long) checks every decomposed 6-vertex count against the CPU engine
// on the subgraph of email-Eu-core induced by its first vertices (the whole graph takes the
// engine minutes per sparse pattern).
func TestDecompEngineEmailEu(t *testing.T) {
	testenv.SkipUnlessLong(t)
	full := loadShared(t, "email-eu-core/email-Eu-core.txt")
	// the first vertices in breadth-first order from vertex 0
	const keep = 70
	in := map[uint32]bool{0: true}
	queue := []uint32{0}
	for i := 0; i < len(queue) && len(queue) < keep; i++ {
		for _, v := range full.Neighbors(queue[i]) {
			if !in[v] && len(queue) < keep {
				in[v] = true
				queue = append(queue, v)
			}
		}
	}
	b := graph.NewBuilder(graph.BuilderOptions{})
	for _, u := range queue {
		if _, err := b.Vertex(int64(u)); err != nil {
			t.Fatal(err)
		}
		for _, v := range full.Neighbors(u) {
			if in[v] && v < u {
				if err := b.AddEdge(int64(u), int64(v), 0); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	c, err := Count(context.Background(), g, Options{K: 6})
	if err != nil {
		t.Fatal(err)
	}
	e, _ := engine.Lookup("cpu")
	checked := 0
	for _, m := range c.Motifs {
		if m.Method != "decomposition" {
			continue
		}
		res, err := e.Count(context.Background(), &engine.Problem{Data: g, Pattern: m.Shape.Pattern(), Semantics: engine.Semantics{Unique: true}})
		if err != nil {
			t.Fatal(err)
		}
		checked++
		if res.Count != m.NonInduced {
			t.Errorf("%s: decomposition %d, engine %d", m.Pattern, m.NonInduced, res.Count)
		}
	}
	t.Logf("%d vertices, %d edges: %d decomposed patterns checked", g.NumVertices(), g.NumEdges(), checked)
}

// BenchmarkSixDecomposition times the 6-vertex shapes the decomposition covers (local counts
// included, the engine's shapes left out) on the shared graphs:
// go test ./mining -run '^$' -bench SixDecomposition -benchtime 3x [-cpu 1,2] (countAll: the
// threads are GOMAXPROCS)
func BenchmarkSixDecomposition(b *testing.B) {
	for _, rel := range []string{"citeseer-graphminer", "email-eu-core/email-Eu-core.txt", "wikivote-graphpi/wiki-vote_input"} {
		b.Run(rel, func(b *testing.B) {
			g, err := formats.Load(testenv.Path(b, rel), formats.Options{})
			if err != nil {
				b.Fatal(err)
			}
			shapes := ConnectedShapes(6)
			b.ResetTimer()
			for range b.N {
				o := newOrdered(g)
				l, err := computeLocals(context.Background(), o, 6, 0, nil)
				if err != nil {
					b.Fatal(err)
				}
				d, err := newSixDecomp(l)
				if err != nil {
					b.Fatal(err)
				}
				left := 0
				for _, r := range d.countAll(context.Background(), shapes) {
					if r.err == errNoRule {
						left++
					} else if r.err != nil {
						b.Fatal(r.err)
					}
				}
				b.ReportMetric(float64(len(shapes)-left), "shapes")
			}
		})
	}
}

// TestDecompThreads: the 6-vertex decomposition gives the same counts, rules and errors on 1,
// 2 and 4 threads (countAll: shapes at once, the homomorphism slots and the triangle-core
// edges shared out; with 4 threads on these graphs every hub's slots are cut into pieces), and
// the same as counting the shapes one by one (count), on random graphs with a hub; the counts
// themselves are checked against brute force by TestDecompRooted.
func TestDecompThreads(t *testing.T) {
	shapes := ConnectedShapes(6)
	for seed := range uint64(3) {
		l := sixLocals(t, withHub(gen.RandomGraph(seed+900, 30+10*int(seed), 0.2, 1, 1)))
		one := sixDecomp(t, l, 1)
		var want []string
		for _, s := range shapes {
			x, rule, err := one.count(s)
			want = append(want, fmt.Sprint(x, rule, err))
		}
		for _, threads := range []int{1, 2, 4} {
			d := sixDecomp(t, l, threads)
			for i, r := range d.countAll(context.Background(), shapes) {
				if got := fmt.Sprint(r.inj, r.rule, r.err); got != want[i] {
					t.Errorf("seed %d, %d threads, %v: %s, one by one %s", seed, threads, shapes[i].Adj[:6], got, want[i])
				}
			}
		}
	}
}

// sixLocals computes the local counts of a 6-vertex census of g.
func sixLocals(t *testing.T, g *graph.Graph) *locals {
	t.Helper()
	l, err := computeLocals(context.Background(), newOrdered(g), 6, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// sixDecomp is a fresh 6-vertex decomposition over l on threads threads (0: all cores).
func sixDecomp(t *testing.T, l *locals, threads int) *decomp {
	t.Helper()
	d, err := newSixDecomp(l)
	if err != nil {
		t.Fatal(err)
	}
	d.threads = threads
	return d
}

// withHub returns g (unlabelled) with vertex 0 joined to every other vertex.
func withHub(g *graph.Graph) *graph.Graph {
	b := graph.NewBuilder(graph.BuilderOptions{})
	for u := range g.NumVertices() {
		for _, v := range g.Neighbors(uint32(u)) {
			if uint32(u) < v && u != 0 {
				if err := b.AddEdge(int64(u), int64(v), 0); err != nil {
					panic(err)
				}
			}
		}
		if u != 0 {
			if err := b.AddEdge(0, int64(u), 0); err != nil {
				panic(err)
			}
		}
	}
	h, err := b.Build()
	if err != nil {
		panic(err)
	}
	return h
}
