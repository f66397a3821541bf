package stmatch

import (
	"fmt"
	"slices"
	"testing"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/internal/oracle"
	"github.com/submatch/submatch/internal/proptest"
	"github.com/submatch/submatch/plan"
)

// TestEmulatedCliqueKernelWildcardsReview (review rev35 of wildshape): the clique kernel's
// algorithm, emulated on the host, on cliques of wildcards over several vertex and edge labels
// (and one exact label beside a wildcard) against the brute-force oracle, on the orientation
// countCliques builds (of plan.Labels.Graph, the lists without those labels); the adjacency
// that orientation indexes is that graph's, which countCliques uploads, not the data graph's
// (whose lists are ordered by label).
func TestEmulatedCliqueKernelWildcardsReview(t *testing.T) {
	differs := false
	for seed := uint64(1); seed <= 12; seed++ {
		g := gen.RandomGraph(seed, 14+int(seed), 0.55+0.03*float64(seed%5), 1+int(seed%4), 1+int(seed%3))
		for k := 4; k <= 5; k++ {
			for _, labels := range [][2]string{{"", ""}, {"1", ""}, {"", "1"}} {
				p := proptest.Clique(t, k, labels[0], labels[1])
				c, ok := plan.AsClique(g, p)
				if !ok {
					t.Fatalf("seed %d: %d-clique %v not a clique", seed, k, labels)
				}
				o := c.Orient(g, 0)
				_, neighbors, _, _ := o.CSR()
				if !slices.Equal(neighbors, c.Graph(g).Raw().Neighbors) {
					t.Fatalf("seed %d, %d-clique %v: the orientation indexes another adjacency than the graph of its labels", seed, k, labels)
				}
				differs = differs || !slices.Equal(neighbors, g.Raw().Neighbors)
				u := newUpward(o, cliqueWideMax)
				u.splitRoots(k)
				want := oracle.Count(g, p, engine.Semantics{Unique: true})
				if got := emulateCliqueKernel(u, k); got != want || len(u.heavy) != 0 {
					t.Fatalf("seed %d (%s), %d-clique %v: emulated kernel %d (%d heavy roots), oracle %d",
						seed, fmt.Sprint(g.NumVertices()), k, labels, got, len(u.heavy), want)
				}
			}
		}
	}
	if !differs {
		t.Error("no graph whose lists without labels differ from its own: the uploads' graph not exercised")
	}
}
