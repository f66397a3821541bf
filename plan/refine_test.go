package plan

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/pattern"
)

// refineEveryPair is refine as it was before it skipped unchanged neighbours: every round checks
// every candidate of every pattern vertex against every pattern neighbour.
func refineEveryPair(g *graph.Graph, p *pattern.Pattern, cand []Bitset, maxRounds int) {
	n := p.NumVertices()
	for round := 0; round < maxRounds; round++ {
		changed := false
		for u := 0; u < n; u++ {
			for wi, word := range cand[u] {
				for word != 0 {
					b := bits.TrailingZeros64(word)
					word &^= 1 << b
					v := uint32(wi*64 + b)
					for w := 0; w < n; w++ {
						el, ok := p.EdgeLabel(u, w)
						if ok && !hasCandidateNeighbour(g, v, p.VertexLabel(w), el, cand[w]) {
							cand[u].Clear(v)
							changed = true
							break
						}
					}
				}
			}
		}
		if !changed {
			return
		}
	}
}

// refine, which checks a pattern vertex only against the neighbours whose candidates changed
// since its last check, removes after each number of rounds exactly what checking every pair
// removes.
func TestRefineSkipsOnlyUnchanged(t *testing.T) {
	never := func() bool { return false }
	removedSome := 0
	for seed := uint64(1); seed <= 400; seed++ {
		r := rand.New(rand.NewPCG(seed, 3))
		vl, el := 1+r.IntN(3), 1+r.IntN(2)
		g := gen.RandomGraph(seed, 20+r.IntN(40), []float64{0.05, 0.1, 0.2}[r.IntN(3)], vl, el)
		wildcard := []float64{0, 0, 0.3}[r.IntN(3)]
		p := gen.RandomPattern(seed, 3+r.IntN(6), gen.PatternOptions{EdgeProb: r.Float64() * 0.6,
			VertexLabels: vl, EdgeLabels: el, Wildcard: wildcard})
		n := p.NumVertices()
		initial := make([]Bitset, n)
		for u := range n {
			initial[u] = initialCandidates(g, p, u, never)
		}
		for _, rounds := range []int{1, 2, 3, n + 1} {
			got := make([]Bitset, n)
			want := make([]Bitset, n)
			for u := range n {
				got[u], want[u] = slices.Clone(initial[u]), slices.Clone(initial[u])
			}
			refine(g, p, got, rounds, never)
			refineEveryPair(g, p, want, rounds)
			for u := range n {
				if !slices.Equal(got[u], want[u]) {
					t.Fatalf("seed %d, %d rounds, pattern vertex %d: candidates %v, want %v", seed, rounds, u, members(got[u]), members(want[u]))
				}
				if rounds > 1 && got[u].Count() < initial[u].Count() {
					removedSome++
				}
			}
		}
	}
	if removedSome == 0 {
		t.Fatal("no case refined anything: the test checks nothing")
	}
}

// TestParallelPlanEqualsSerial: the filters run one pattern vertex a goroutine, the refinement
// of a pattern vertex one word of candidates a goroutine and the candidate space one edge a
// goroutine on large inputs; forced on small random ones (after 1 to 3 rounds of refinement or
// all of them), they give the plan the serial loops give, candidate for candidate and list for
// list (wildcard labels included: their lists merge several runs).
func TestParallelPlanEqualsSerial(t *testing.T) {
	defer func(f, r, s int) {
		parallelFilterVertices, parallelRefineChecks, parallelSpaceEntries = f, r, s
	}(parallelFilterVertices, parallelRefineChecks, parallelSpaceEntries)
	built := 0
	for seed := uint64(1); seed <= 200; seed++ {
		r := rand.New(rand.NewPCG(seed, 5))
		vl, el := 1+r.IntN(3), 1+r.IntN(2)
		g := gen.RandomGraph(seed, 20+r.IntN(60), []float64{0.05, 0.1, 0.2}[r.IntN(3)], vl, el)
		p := gen.RandomPattern(seed, 3+r.IntN(5), gen.PatternOptions{EdgeProb: r.Float64() * 0.6,
			VertexLabels: vl, EdgeLabels: el, Wildcard: []float64{0, 0.3}[r.IntN(2)]})
		opts := Options{Induced: r.IntN(2) == 0, RefineRounds: r.IntN(4)}
		parallelFilterVertices, parallelRefineChecks, parallelSpaceEntries = math.MaxInt, math.MaxInt, math.MaxInt
		want := Build(g, p, opts)
		parallelFilterVertices, parallelRefineChecks, parallelSpaceEntries = 0, 0, 0
		got := Build(g, p, opts)
		for u := range p.NumVertices() {
			if !slices.Equal(got.CandidateBits[u], want.CandidateBits[u]) {
				t.Fatalf("seed %d, pattern vertex %d: candidates %v, want %v", seed, u, got.Candidates[u], want.Candidates[u])
			}
		}
		if len(got.Space) != len(want.Space) {
			t.Fatalf("seed %d: %d space indexes, want %d", seed, len(got.Space), len(want.Space))
		}
		for key, w := range want.Space {
			gi := got.Space[key]
			if gi == nil {
				t.Fatalf("seed %d: no index for edge %v", seed, key)
			}
			gotOff, gotVal := gi.Arrays()
			wantOff, wantVal := w.Arrays()
			if !slices.Equal(gotOff, wantOff) || !slices.Equal(gotVal, wantVal) {
				t.Fatalf("seed %d, edge %v: index differs", seed, key)
			}
			built++
		}
	}
	if built == 0 {
		t.Fatal("no case built a candidate space: the test checks nothing")
	}
}
