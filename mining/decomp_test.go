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
	o := newOrdered(g)
	l, err := computeLocals(context.Background(), o, 6, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	d, err := newSixDecomp(l)
	if err != nil {
		t.Fatal(err)
	}
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
	for key, v := range d.vecs {
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
	cases := 4
	if testenv.Long() {
		cases = 40
	}
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
// go test ./mining -run '^$' -bench SixDecomposition -benchtime 3x
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
				for _, s := range shapes {
					if _, _, err := d.count(s); err == errNoRule {
						left++
					} else if err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(len(shapes)-left), "shapes")
			}
		})
	}
}
