package cliques

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/internal/proptest"
	"github.com/submatch/submatch/plan"
)

// cliqueWithSpur is a clique of m vertices, s of them joined to one more vertex, the hub, that
// holds extra pendants to have the highest degree (the last id: graph.Build numbers by ascending
// degree), each other clique vertex a pendant of its own (every clique vertex of degree m, the
// s first by input order the lowest ids of the clique); of puts the hub alone in part 1. Its
// spanning k-cliques are C(s, k-1), the hub's; each of the s roots among the clique's lowest ids
// lays out over m upward neighbours, the hub among them, whose cliques within part 0 are many
// more.
func cliqueWithSpur(t *testing.T, m, s int) (*graph.Graph, []uint32) {
	t.Helper()
	b := graph.NewBuilder(graph.BuilderOptions{})
	add := func(u, v int) {
		if err := b.AddEdge(int64(u), int64(v), 0); err != nil {
			t.Fatal(err)
		}
	}
	for u := range m {
		for v := u + 1; v < m; v++ {
			add(u, v)
		}
	}
	hub, next := m, m+1
	for u := range m {
		if u < s {
			add(u, hub)
		} else {
			add(u, next)
			next++
		}
	}
	for range m {
		add(hub, next)
		next++
	}
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	of := make([]uint32, g.NumVertices())
	of[len(of)-1] = 1
	return g, of
}

// TestSpanningCutLowerBound (branch shapeprog): CountSpanning cut by its context at times
// spread over its run returns no more than the whole count, for 4- and 5-cliques with the roots'
// sets split (no matrix) or split down to matrices: a root of k >= 4 that the stop reached is
// left out (rootSpanning). Kept, its difference of two counts cut at different places (all its
// cliques less those within its part, the second count cut at once) counted the clique's
// cliques within part 0 as spanning ones: without the fix every cut within a root's first
// count fails. The cut's place is timing; its bound holds wherever it falls.
func TestSpanningCutLowerBound(t *testing.T) {
	g, of := cliqueWithSpur(t, 80, 8)
	cuts := 16
	if testing.Short() {
		cuts = 6
	}
	for _, k := range []int{4, 5} {
		c, ok := plan.AsClique(g, proptest.Clique(t, k, "", ""))
		if !ok {
			t.Fatal("not a clique")
		}
		o := c.Orient(g, 1)
		for _, matrixMax := range []int{0, 64} {
			start := time.Now()
			want, err := CountSpanning(context.Background(), o, k, matrixMax, of, 1, nil)
			whole := time.Since(start)
			if binomial := [6]uint64{4: 56, 5: 70}[k]; err != nil || want != binomial {
				t.Fatalf("%d-cliques, matrix %d: %d (%v), want C(8, %d) = %d", k, matrixMax, want, err, k-1, binomial)
			}
			for i := range cuts {
				ctx, cancel := context.WithTimeout(context.Background(), whole*time.Duration(i+1)/time.Duration(cuts+1))
				got, err := CountSpanning(ctx, o, k, matrixMax, of, 1, nil)
				cancel()
				if got > want {
					t.Fatalf("%d-cliques, matrix %d, cut %d of %d (%v, the whole count %v): %d spanning cliques, above the whole count %d",
						k, matrixMax, i+1, cuts, err, whole, got, want)
				}
			}
		}
	}
}

// TestProgressByRootWork (branch shapeprog): on one thread, every progress report is the share of
// the roots' work (1 + |N+(r)| a root for triangles, 1 + |N+(r)|² for 4-cliques) in the chunks
// done, not of the roots: R-MAT's heavy roots come last (ids ascend with the degree), and a
// report by roots said 74% done at 6% of a count's time. Count and CountSpanning alike, ending
// at 1.
func TestProgressByRootWork(t *testing.T) {
	g, err := gen.RMAT(gen.RMATOptions{Scale: 12, EdgeFactor: 8, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	n := g.NumVertices()
	of := make([]uint32, n)
	for v := range of {
		of[v] = uint32(v % 2)
	}
	for _, k := range []int{3, 4} {
		c, ok := plan.CliqueOf(g, proptest.Clique(t, k, "", ""), 3)
		if !ok {
			t.Fatal("not a clique")
		}
		o := c.Orient(g, 1)
		work := func(r int) uint64 {
			up := uint64(len(o.Above(uint32(r))))
			if k == 3 {
				return 1 + up
			}
			return 1 + up*up
		}
		var total uint64
		for r := range n {
			total += work(r)
		}
		for _, spanning := range []bool{false, true} {
			var reports []float64
			progress := func(done float64) { reports = append(reports, done) }
			if spanning {
				_, err = CountSpanning(context.Background(), o, k, MatrixLimit, of, 1, progress)
			} else {
				_, err = Count(context.Background(), o, k, MatrixLimit, n, func(i int) uint32 { return uint32(i) }, 1, progress)
			}
			chunk := min(64, max(1, n/8)) // (count's, on one thread)
			if err != nil || len(reports) != (n+chunk-1)/chunk {
				t.Fatalf("%d-cliques, spanning %v: %d reports (%v), want one a chunk of %d roots", k, spanning, len(reports), err, chunk)
			}
			var done uint64
			for j, got := range reports {
				for r := j * chunk; r < min(n, (j+1)*chunk); r++ {
					done += work(r)
				}
				if want := float64(done) / float64(total); math.Abs(got-want) > 1e-12 {
					t.Fatalf("%d-cliques, spanning %v: report %d is %v, want %v (the roots' share: %v)",
						k, spanning, j, got, want, float64(min(n, (j+1)*chunk))/float64(n))
				}
			}
			if reports[len(reports)-1] != 1 {
				t.Errorf("%d-cliques, spanning %v: the last report %v", k, spanning, reports[len(reports)-1])
			}
		}
	}
}
