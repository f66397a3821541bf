package mining

import (
	"context"
	"fmt"
	"math/bits"
	"testing"

	"github.com/submatch/submatch/formats"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/internal/testenv"
)

// bruteOrbits counts, for every vertex, the orbits it takes in every k-subset's induced shape
// and in every connected spanning edge subset of it (k = 2..K): the oracle for CountPerVertex.
func bruteOrbits(g *graph.Graph, orbits []Orbit, K int) (ni, in [][]uint64) {
	n := g.NumVertices()
	ni, in = make([][]uint64, n), make([][]uint64, n)
	for v := range n {
		ni[v], in[v] = make([]uint64, len(orbits)), make([]uint64, len(orbits))
	}
	// index finds the orbit of vertex v of s: map s onto its canonical form and compare
	// automorphism classes there
	memo := map[[2]uint64]int{}
	index := func(s Shape, v int) int {
		key := [2]uint64{s.Code()<<4 | uint64(s.K), uint64(v)}
		if i, ok := memo[key]; ok {
			return i
		}
		c := s.Canonical()
		for _, p := range permutations(s.K) {
			if s.permute(p) != c {
				continue
			}
			cls := orbitClasses(c)
			for i, o := range orbits {
				if o.shape == c && cls[o.vertex] == cls[p[v]] {
					memo[key] = i
					return i
				}
			}
		}
		panic(fmt.Sprintf("no orbit for %v vertex %d", s, v))
	}
	for k := 2; k <= K; k++ {
		eachSubset(n, k, func(set []uint32) {
			s, edges := inducedShape(g, set)
			if s.Connected() {
				for i := range k {
					in[set[i]][index(s, i)]++
				}
			}
			for mask := 0; mask < 1<<len(edges); mask++ {
				t := Shape{K: k}
				for m := mask; m != 0; m &= m - 1 {
					e := edges[bits.TrailingZeros(uint(m))]
					t.Adj[e[0]] |= 1 << e[1]
					t.Adj[e[1]] |= 1 << e[0]
				}
				if t.Connected() {
					for i := range k {
						ni[set[i]][index(t, i)]++
					}
				}
			}
		})
	}
	return ni, in
}

func TestPerVertexBruteForce(t *testing.T) {
	for seed := range uint64(10) {
		g := gen.RandomGraph(seed+50, 9+int(seed%4), []float64{0.3, 0.5, 0.8}[seed%3], 1, 1)
		for k := 3; k <= 5; k++ {
			checkPerVertex(t, g, k, 1+int(seed%2), fmt.Sprintf("seed %d", seed))
		}
	}
}

// TestPerVertexBruteForceLong: the 5-vertex orbits on many more and larger random graphs,
// sparse to dense, and on graphs with hubs (a star glued to a random graph).
func TestPerVertexBruteForceLong(t *testing.T) {
	testenv.SkipUnlessLong(t)
	for seed := range uint64(120) {
		n := 8 + int(seed%9)
		g := gen.RandomGraph(seed+500, n, []float64{0.15, 0.3, 0.45, 0.6, 0.75, 0.9}[seed%6], 1, 1)
		checkPerVertex(t, g, 5, 1+int(seed%2), fmt.Sprintf("seed %d", seed))
	}
}

// checkPerVertex compares CountPerVertex with bruteOrbits on g, and the orbit sums with the
// census.
func checkPerVertex(t *testing.T, g *graph.Graph, k, threads int, label string) {
	t.Helper()
	vc, err := CountPerVertex(context.Background(), g, Options{K: k, Threads: threads})
	if err != nil {
		t.Fatal(err)
	}
	if len(vc.Orbits) != map[int]int{3: 4, 4: 15, 5: 73}[k] {
		t.Fatalf("k=%d: %d orbits", k, len(vc.Orbits))
	}
	ni, in := bruteOrbits(g, vc.Orbits, k)
	for v := range ni {
		for i, o := range vc.Orbits {
			if vc.NonInduced[v][i] != ni[v][i] || vc.Induced[v][i] != in[v][i] {
				t.Errorf("%s k=%d vertex %d orbit %d (%s, degree %d): %d %d, brute force %d %d",
					label, k, v, i, o.Name, o.Degree, vc.NonInduced[v][i], vc.Induced[v][i], ni[v][i], in[v][i])
			}
		}
	}
	// A shape's orbit counts sum to its count times each orbit's size.
	c, err := Count(context.Background(), g, Options{K: k})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range c.Motifs {
		var sumNI, sumIn, size uint64
		for i, o := range vc.Orbits {
			if o.shape != m.Shape {
				continue
			}
			cls := orbitClasses(o.shape)
			var sz uint64
			for _, c := range cls {
				if c == cls[o.vertex] {
					sz++
				}
			}
			var ni, in uint64
			for v := range vc.Induced {
				ni += vc.NonInduced[v][i]
				in += vc.Induced[v][i]
			}
			if ni != sz*m.NonInduced || in != sz*m.Induced {
				t.Errorf("%s %s orbit %d: per-vertex sums %d %d, want %d x (%d %d)", label, m.Name, i, ni, in, sz, m.NonInduced, m.Induced)
			}
			sumNI += ni
			sumIn += in
			size += sz
		}
		if size != uint64(k) || sumNI != uint64(k)*m.NonInduced || sumIn != uint64(k)*m.Induced {
			t.Errorf("%s %s: per-vertex sums %d %d over orbits of %d vertices, want %d x (%d %d)", label, m.Name, sumNI, sumIn, size, k, m.NonInduced, m.Induced)
		}
	}
}

func BenchmarkPerVertex(b *testing.B) {
	for _, rel := range []string{"email-eu-core/email-Eu-core.txt", "wikivote-graphpi/wiki-vote_input"} {
		b.Run(rel, func(b *testing.B) {
			g, err := formats.Load(testenv.Path(b, rel), formats.Options{})
			if err != nil {
				b.Fatal(err)
			}
			for _, k := range []int{4, 5} {
				b.Run(fmt.Sprint("k=", k), func(b *testing.B) {
					for range b.N {
						if _, err := CountPerVertex(context.Background(), g, Options{K: k, Threads: 1}); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		})
	}
}

// TestPerVertexHubCounts runs the per-vertex counts with the hubs' per-worker counters
// (hubCounts) covering only the top 4 vertices, so that the atomic and the per-worker ways both
// take part, on 3 and 5 workers, with vertexWorkers cutting the small graphs into many chunks.
func TestPerVertexHubCounts(t *testing.T) {
	defer func(s int) { hubSpan = s }(hubSpan)
	hubSpan = 4
	for seed := range uint64(4) {
		g := gen.RandomGraph(seed+900, 10+int(seed%3), []float64{0.4, 0.7}[seed%2], 1, 1)
		for k := 4; k <= 5; k++ {
			checkPerVertex(t, g, k, 3+2*int(seed%2), fmt.Sprintf("seed %d", seed))
		}
	}
}
