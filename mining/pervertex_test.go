package mining

import (
	"context"
	"fmt"
	"math/bits"
	"testing"

	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/graph"
)

// bruteOrbits counts, for every vertex, the orbits it takes in every k-subset's induced shape
// and in every connected spanning edge subset of it (k = 2..K): the oracle for CountPerVertex.
func bruteOrbits(g *graph.Graph, orbits []Orbit, K int) (ni, in [][]uint64) {
	n := g.NumVertices()
	ni, in = make([][]uint64, n), make([][]uint64, n)
	for v := range n {
		ni[v], in[v] = make([]uint64, len(orbits)), make([]uint64, len(orbits))
	}
	index := func(s Shape, deg int) int {
		code := s.Canonical().Code()
		for i, o := range orbits {
			if o.shape.K == s.K && o.shape.Code() == code && o.Degree == deg {
				return i
			}
		}
		panic(fmt.Sprintf("no orbit for %v degree %d", s, deg))
	}
	for k := 2; k <= K; k++ {
		set := make([]uint32, k)
		var rec func(start, depth int)
		rec = func(start, depth int) {
			if depth == k {
				s := Shape{K: k}
				var edges [][2]int
				for i := range k {
					for j := i + 1; j < k; j++ {
						if _, ok := g.HasEdge(set[i], set[j]); ok {
							s.Adj[i] |= 1 << j
							s.Adj[j] |= 1 << i
							edges = append(edges, [2]int{i, j})
						}
					}
				}
				if s.Connected() {
					for i := range k {
						in[set[i]][index(s, s.Degree(i))]++
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
							ni[set[i]][index(t, t.Degree(i))]++
						}
					}
				}
				return
			}
			for v := start; v < n; v++ {
				set[depth] = uint32(v)
				rec(v+1, depth+1)
			}
		}
		rec(0, 0)
	}
	return ni, in
}

func TestPerVertexBruteForce(t *testing.T) {
	for seed := range uint64(10) {
		g := gen.RandomGraph(seed+50, 9+int(seed%4), []float64{0.3, 0.5, 0.8}[seed%3], 1, 1)
		for k := 3; k <= 4; k++ {
			vc, err := CountPerVertex(context.Background(), g, Options{K: k, Threads: 1 + int(seed%2)})
			if err != nil {
				t.Fatal(err)
			}
			ni, in := bruteOrbits(g, vc.Orbits, k)
			for v := range ni {
				for i, o := range vc.Orbits {
					if vc.NonInduced[v][i] != ni[v][i] || vc.Induced[v][i] != in[v][i] {
						t.Errorf("seed %d k=%d vertex %d orbit %d (%s, degree %d): %d %d, brute force %d %d",
							seed, k, v, i, o.Name, o.Degree, vc.NonInduced[v][i], vc.Induced[v][i], ni[v][i], in[v][i])
					}
				}
			}
			// Orbit counts of a shape sum to its vertices times its count.
			c, err := Count(context.Background(), g, Options{K: k})
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range c.Motifs {
				var sumNI, sumIn uint64
				for i, o := range vc.Orbits {
					if o.shape == m.Shape {
						for v := range vc.Induced {
							sumNI += vc.NonInduced[v][i]
							sumIn += vc.Induced[v][i]
						}
					}
				}
				if sumNI != uint64(k)*m.NonInduced || sumIn != uint64(k)*m.Induced {
					t.Errorf("seed %d %s: per-vertex sums %d %d, want %d x (%d %d)", seed, m.Name, sumNI, sumIn, k, m.NonInduced, m.Induced)
				}
			}
		}
	}
}
