package mining

import (
	"fmt"
	"testing"

	"github.com/submatch/submatch/internal/testenv"

	"github.com/submatch/submatch/graph"
)

// familyGraph builds a graph of n vertices (ids 0..n-1, isolated ones kept) and the given edges.
func familyGraph(t *testing.T, n int, edges [][2]int) *graph.Graph {
	t.Helper()
	b := graph.NewBuilder(graph.BuilderOptions{})
	for v := range n {
		if _, err := b.Vertex(int64(v)); err != nil {
			t.Fatal(err)
		}
	}
	for _, e := range edges {
		if err := b.AddEdge(int64(e[0]), int64(e[1]), 0); err != nil {
			t.Fatal(err)
		}
	}
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// structuredFamilies are graphs whose local counts are extreme (no triangle at all, every pair
// adjacent, one hub, bipartite, disjoint pieces, isolated vertices, fewer vertices than k): the
// cases a closed formula or a decomposition rule may get wrong that random graphs seldom draw.
func structuredFamilies() map[string]struct {
	n     int
	edges [][2]int
} {
	type fam = struct {
		n     int
		edges [][2]int
	}
	out := map[string]fam{}
	complete := func(n int) (e [][2]int) {
		for i := range n {
			for j := i + 1; j < n; j++ {
				e = append(e, [2]int{i, j})
			}
		}
		return e
	}
	cycle := func(n, off int) (e [][2]int) {
		for i := range n {
			e = append(e, [2]int{off + i, off + (i+1)%n})
		}
		return e
	}
	out["empty4"] = fam{4, nil}
	out["edgeless9"] = fam{9, nil}
	out["K7"] = fam{7, complete(7)}
	out["K8"] = fam{8, complete(8)}
	var k34, k36 [][2]int
	for i := range 3 {
		for j := range 4 {
			k34 = append(k34, [2]int{i, 3 + j})
		}
		for j := range 6 {
			k36 = append(k36, [2]int{i, 3 + j})
		}
	}
	out["K3,4"] = fam{7, k34}
	out["K3,6"] = fam{9, k36}
	out["C9"] = fam{9, cycle(9, 0)}
	var star, path, wheel [][2]int
	for i := 1; i < 9; i++ {
		star = append(star, [2]int{0, i})
		path = append(path, [2]int{i - 1, i})
	}
	wheel = append(append(wheel, star...), cycle(8, 1)...)
	for i := range wheel[8:] {
		wheel[8+i] = [2]int{1 + (wheel[8+i][0]-1)%8, 1 + (wheel[8+i][1]-1)%8}
	}
	out["star9"] = fam{9, star}
	out["path9"] = fam{9, path}
	out["wheel9"] = fam{9, wheel}
	// K4 and a triangle and a C4, disjoint, with an isolated vertex.
	out["K4+C3+C4+1"] = fam{12, append(append(complete(4), cycle(3, 4)...), cycle(4, 7)...)}
	// Two K4 sharing a vertex (a cut vertex), and two triangles sharing an edge.
	bow := append(complete(4), [2]int{3, 4}, [2]int{3, 5}, [2]int{3, 6}, [2]int{4, 5}, [2]int{4, 6}, [2]int{5, 6}, [2]int{7, 8}, [2]int{7, 9}, [2]int{8, 9}, [2]int{8, 10}, [2]int{9, 10})
	out["K4.K4+diamond"] = fam{11, bow}
	// Petersen graph: girth 5, no triangle or 4-cycle.
	pet := append(cycle(5, 0), [2]int{5, 7}, [2]int{7, 9}, [2]int{9, 6}, [2]int{6, 8}, [2]int{8, 5})
	for i := range 5 {
		pet = append(pet, [2]int{i, 5 + i})
	}
	out["Petersen"] = fam{10, pet}
	return out
}

// TestCensusFamilies: the census (3 to 6 vertices) and the per-vertex orbits (3 to 5) of
// structured graphs against brute force.
func TestCensusFamilies(t *testing.T) {
	for name, f := range structuredFamilies() {
		g := familyGraph(t, f.n, f.edges)

		for k := 3; k <= 6; k++ {
			if k == 6 && (f.n > 10 || len(f.edges) > 20 && !testenv.Long()) {
				continue // (the brute force takes seconds on these: K7 and K8 in the long run)
			}
			checkCensus(t, g, k, 1+k%2, fmt.Sprintf("%s (n=%d m=%d)", name, f.n, len(f.edges)))
			if k <= 5 {
				checkPerVertex(t, g, k, 1, name)
			}
		}
	}
}
