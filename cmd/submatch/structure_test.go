package main

import (
	"context"
	"encoding/json"
	"math"
	"testing"

	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/graph"
)

// bruteTriangles counts triangles and wedges by looking at every triple and every vertex.
func bruteTriangles(g *graph.Graph) (triangles, wedges uint64) {
	n := uint32(g.NumVertices())
	adj := func(a, b uint32) bool { _, ok := g.HasEdge(a, b); return ok }
	for a := range n {
		d := uint64(g.Degree(a))
		wedges += d * (d - min(d, 1)) / 2
		for b := a + 1; b < n; b++ {
			if !adj(a, b) {
				continue
			}
			for c := b + 1; c < n; c++ {
				if adj(a, c) && adj(b, c) {
					triangles++
				}
			}
		}
	}
	return triangles, wedges
}

// bruteComponents labels components by repeated relaxation (no union-find).
func bruteComponents(g *graph.Graph) (count, largest uint64) {
	n := g.NumVertices()
	comp := make([]int, n)
	for v := range comp {
		comp[v] = v
	}
	for changed := true; changed; {
		changed = false
		for v := range uint32(n) {
			for _, w := range g.Neighbors(v) {
				if comp[w] < comp[v] {
					comp[v], changed = comp[w], true
				}
			}
		}
	}
	size := map[int]uint64{}
	for _, c := range comp {
		size[c]++
	}
	for _, s := range size {
		largest = max(largest, s)
	}
	return uint64(len(size)), largest
}

// TestStructureAgainstBruteForce: triangles, wedges and components on random graphs, labelled
// (copied upward lists) and not (lists used in place), agree with brute force.
func TestStructureAgainstBruteForce(t *testing.T) {
	for seed := uint64(1); seed <= 30; seed++ {
		opts := gen.RMATOptions{Scale: 3 + int(seed%4), EdgeFactor: 1 + int(seed%5), Seed: seed}
		if seed%2 == 0 {
			opts.VertexLabels, opts.EdgeLabels = 3, 2
		}
		g, err := gen.RMAT(opts)
		if err != nil {
			t.Fatal(err)
		}
		tri, wed, err := countTriangles(context.Background(), g)
		if err != nil {
			t.Fatal(err)
		}
		if bt, bw := bruteTriangles(g); tri != bt || wed != bw {
			t.Fatalf("seed %d: %d triangles %d wedges, brute force %d and %d", seed, tri, wed, bt, bw)
		}
		c, l, _ := components(g)
		if bc, bl := bruteComponents(g); c != bc || l != bl {
			t.Fatalf("seed %d: %d components (largest %d), brute force %d (%d)", seed, c, l, bc, bl)
		}
	}
}

// TestStatsStructureEmailEuCore: SNAP's published triangle count of email-Eu-core (105,461),
// one component, and networkx's transitivity (0.26739242877).
func TestStatsStructureEmailEuCore(t *testing.T) {
	data := needData(t, "email-eu-core/email-Eu-core.txt")
	code, out, errOut := runCmd(t, "stats", "--json", data)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var s graphStats
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatal(err)
	}
	st := s.Structure
	if st == nil || st.Triangles != 105461 || st.Components != 1 || st.LargestComponent != 986 ||
		math.Abs(st.GlobalClustering-0.26739242877040204) > 1e-12 {
		t.Fatalf("structure %+v", st)
	}
}
