package partition

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/graph"
)

// clusterGraphs are the test graphs of the clustering tests: random graphs (some with isolated
// vertices, some triangle-weighted), small R-MAT graphs (hubs, leaves, isolated vertices) and a
// star (one hub and its leaves).
func clusterGraphs(t *testing.T) map[string]*wgraph {
	t.Helper()
	gs := map[string]*wgraph{}
	for seed := range uint64(8) {
		n := 100 + int(seed)*150
		w := fromGraph(gen.RandomGraphM(seed, n, n*(1+int(seed%4))/2+n/4, 1, 1))
		if seed%2 == 1 {
			mustWeight(t, w)
		}
		gs["random-"+string(rune('0'+seed))] = w
	}
	for scale := 8; scale <= 11; scale++ {
		g, err := gen.RMAT(gen.RMATOptions{Scale: scale, EdgeFactor: 8, Seed: uint64(scale)})
		if err != nil {
			t.Fatal(err)
		}
		gs["rmat-"+string(rune('0'+scale-8))] = fromGraph(g)
	}
	b := graph.NewBuilder(graph.BuilderOptions{})
	for leaf := 1; leaf <= 300; leaf++ {
		if err := b.AddEdge(0, int64(leaf), 0); err != nil {
			t.Fatal(err)
		}
	}
	star, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	gs["star"] = fromGraph(star)
	return gs
}

// checkContraction fails t unless c is w contracted by cmap: every fine vertex in exactly one
// coarse vertex, each coarse vertex with a member and its members' weight, and each pair of
// coarse vertices joined by one entry a side weighing the fine edges between their members
// (counted pair by pair in a map), no self-loops. It returns each coarse vertex's members.
func checkContraction(t *testing.T, name string, w, c *wgraph, cmap []uint32) []int {
	t.Helper()
	if len(cmap) != w.n() || len(c.xadj) != c.n()+1 {
		t.Fatalf("%s: map of %d vertices (want %d), %d list ends for %d coarse vertices", name, len(cmap), w.n(), len(c.xadj), c.n())
	}
	members := make([]int, c.n())
	vw := make([]uint64, c.n())
	for v, cv := range cmap {
		if int(cv) >= c.n() {
			t.Fatalf("%s: vertex %d maps to %d of %d coarse vertices", name, v, cv, c.n())
		}
		members[cv]++
		vw[cv] += w.vw[v]
	}
	for cv := range c.n() {
		if members[cv] == 0 || vw[cv] != c.vw[cv] {
			t.Fatalf("%s: coarse vertex %d has %d members weighing %d, its weight %d", name, cv, members[cv], vw[cv], c.vw[cv])
		}
	}
	type pair struct{ a, b uint32 }
	want := map[pair]uint64{}
	for v := range w.n() {
		for j := w.xadj[v]; j < w.xadj[v+1]; j++ {
			if a, b := cmap[v], cmap[w.adj[j]]; a != b {
				want[pair{a, b}] += w.ew[j]
			}
		}
	}
	entries := 0
	for cv := range c.n() {
		for j := c.xadj[cv]; j < c.xadj[cv+1]; j++ {
			p := pair{uint32(cv), c.adj[j]}
			got, ok := want[p]
			if !ok || got != c.ew[j] {
				t.Fatalf("%s: coarse edge %d-%d weighs %d, the fine edges between them %d (listed %v)", name, p.a, p.b, c.ew[j], got, ok)
			}
			delete(want, p) // a second entry of the pair fails above
			entries++
		}
	}
	if len(want) > 0 {
		t.Fatalf("%s: %d pairs of coarse vertices joined by fine edges have no coarse edge", name, len(want))
	}
	return members
}

// TestClusterCoarsen: every vertex in exactly one cluster, every cluster within the weight bound
// (a vertex over it alone excepted), the coarse graph w contracted by the clusters (edge weights
// against a pair-by-pair reference); the graphs shrink, and clusters are not all pairs.
func TestClusterCoarsen(t *testing.T) {
	for name, w := range clusterGraphs(t) {
		var total, heaviest uint64
		for _, x := range w.vw {
			total += x
			heaviest = max(heaviest, x)
		}
		// A tight bound (a few average vertices, under the star's hub: the bound binds), a
		// loose one, and no bound.
		for _, maxVW := range []uint64{total / uint64(w.n()) * 3, total / 20, 1 << 40} {
			rng := rand.New(rand.NewPCG(uint64(w.n()), maxVW))
			c, cmap := w.clusterCoarsen(rng, maxVW, 1)
			members := checkContraction(t, name, w, c, cmap)
			bigger := 0
			for cv := range c.n() {
				if c.vw[cv] > maxVW && members[cv] > 1 {
					t.Fatalf("%s bound %d: cluster %d of %d vertices weighs %d", name, maxVW, cv, members[cv], c.vw[cv])
				}
				if members[cv] > 2 {
					bigger++
				}
			}
			if c.n() >= w.n() {
				t.Fatalf("%s bound %d: %d vertices, %d clusters", name, maxVW, w.n(), c.n())
			}
			if maxVW > heaviest && bigger == 0 {
				t.Fatalf("%s bound %d: no cluster of more than 2 vertices", name, maxVW)
			}
		}
	}
}

// TestClusterLeaves: leaves of a hub (a star's, the hub too heavy to join) and isolated vertices
// are grouped in clusters of up to the bound, not left alone or paired.
func TestClusterLeaves(t *testing.T) {
	b := graph.NewBuilder(graph.BuilderOptions{})
	for leaf := 1; leaf <= 100; leaf++ {
		if err := b.AddEdge(0, int64(leaf), 0); err != nil {
			t.Fatal(err)
		}
	}
	for v := 101; v < 141; v++ {
		if err := b.SetVertexLabel(int64(v), 0); err != nil {
			t.Fatal(err)
		}
	}
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	w := fromGraph(g)
	var hub, leaf, iso uint32 // (the builder numbers the vertices its own way)
	for v := range uint32(w.n()) {
		switch w.xadj[v+1] - w.xadj[v] {
		case 100:
			hub = v
		case 1:
			leaf = v
		case 0:
			iso = v
		}
	}
	maxVW := 10 * w.vw[leaf] // under the hub's weight: it stays alone
	c, cmap := w.clusterCoarsen(rand.New(rand.NewPCG(1, 1)), maxVW, 1)
	members := checkContraction(t, "star", w, c, cmap)
	if members[cmap[hub]] != 1 {
		t.Fatalf("the hub (weight %d, bound %d) shares a cluster with %d vertices", w.vw[hub], maxVW, members[cmap[hub]]-1)
	}
	// 100 leaves in clusters of 10, 40 isolated vertices in clusters of maxVW / iso.
	perIso := int(maxVW / w.vw[iso])
	want := 1 + 10 + (40+perIso-1)/perIso
	if c.n() != want {
		t.Fatalf("%d clusters, want %d (the hub, 10 of leaves, the isolated vertices by %d)", c.n(), want, perIso)
	}
}

// TestClusterCoarsenParallel: contraction on several threads makes the coarse graph of the
// sequential loop from the same clusters, list for list.
func TestClusterCoarsenParallel(t *testing.T) {
	defer func(m int) { parMinVertices = m }(parMinVertices)
	parMinVertices = 1
	for name, w := range clusterGraphs(t) {
		want, wantMap := w.clusterCoarsen(rand.New(rand.NewPCG(5, 5)), 1<<40, 1)
		for _, th := range []int{2, 3, 7} {
			c, cmap := w.clusterCoarsen(rand.New(rand.NewPCG(5, 5)), 1<<40, th)
			if !slices.Equal(cmap, wantMap) || !slices.Equal(c.xadj, want.xadj) || !slices.Equal(c.adj, want.adj) ||
				!slices.Equal(c.ew, want.ew) || !slices.Equal(c.vw, want.vw) {
				t.Fatalf("%s: %d threads made another coarse graph than 1", name, th)
			}
		}
	}
}
