package partition

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/submatch/submatch/gen"
)

// TestParallelScans checks the scans that run on several threads on large graphs (Measure's
// halos, bytes and edge cut; partBytes' bytes and weights) against their sequential runs, on an
// R-MAT graph above parallelMin with random assignments, one of them leaving a part empty
// (Measure drops and renumbers it).
func TestParallelScans(t *testing.T) {
	g, err := gen.RMAT(gen.RMATOptions{Scale: 17, EdgeFactor: 4, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	n := g.NumVertices()
	if n < parallelMin {
		t.Fatalf("%d vertices, below parallelMin %d", n, parallelMin)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for _, k := range []int{2, 7, 40} {
		of := make([]uint32, n)
		for v := range of {
			of[v] = uint32(r.IntN(k))
			if k == 7 && of[v] == 3 {
				of[v] = 4 // part 3 empty
			}
		}
		wantB, wantW := partBytesOn(context.Background(), g, of, k, nil, []uint64{}, 1)
		for _, threads := range []int{2, 5} {
			b, w := partBytesOn(context.Background(), g, of, k, nil, []uint64{}, threads)
			if !reflect.DeepEqual(b, wantB) || !reflect.DeepEqual(w, wantW) {
				t.Fatalf("k %d, %d threads: partBytes %v %v, sequential %v %v", k, threads, b, w, wantB, wantW)
			}
		}
		want := measure(context.Background(), g, append([]uint32(nil), of...), k, 1, true)
		var halos uint64
		for _, h := range want.Halo {
			halos += uint64(len(h))
		}
		if want.HaloVertices != halos {
			t.Fatalf("k %d: HaloVertices %d, the halos hold %d", k, want.HaloVertices, halos)
		}
		for _, threads := range []int{1, 2, 5} {
			got := measure(context.Background(), g, append([]uint32(nil), of...), k, threads, true)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("k %d, %d threads: Measure differs from the sequential one (cut %d, want %d; parts %d, want %d)",
					k, threads, got.EdgeCut, want.EdgeCut, len(got.Parts), len(want.Parts))
			}
			// Without the halos' lists: the same but for them.
			bare := measure(context.Background(), g, append([]uint32(nil), of...), k, threads, false)
			wantBare := *want
			wantBare.Halo = nil
			if !reflect.DeepEqual(bare, &wantBare) {
				t.Fatalf("k %d, %d threads: Measure without halo lists differs (halo vertices %d, want %d)", k, threads, bare.HaloVertices, want.HaloVertices)
			}
		}
		if k == 7 && len(want.Parts) != 6 {
			t.Fatalf("k 7 with part 3 empty: %d parts", len(want.Parts))
		}
	}
}

// TestAutoMethod checks Auto's choice: Multilevel's parts on a graph of up to
// AutoMultilevelEdges edges, and its name round trip.
func TestAutoMethod(t *testing.T) {
	g, err := gen.RMAT(gen.RMATOptions{Scale: 12, EdgeFactor: 8, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	if g.NumEdges() > AutoMultilevelEdges {
		t.Fatal("graph too large for the test")
	}
	budget := GraphBytes(g) / 4
	auto, err := Partition(t.Context(), g, Options{Budget: budget, Method: Auto})
	if err != nil {
		t.Fatal(err)
	}
	ml, err := Partition(t.Context(), g, Options{Budget: budget, Method: Multilevel})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(auto.Of, ml.Of) {
		t.Fatal("Auto's parts differ from Multilevel's on a small graph")
	}
	for m, want := range map[uint64]Method{0: Multilevel, AutoMultilevelEdges: Multilevel, AutoMultilevelEdges + 1: Grow,
		AutoGrowEdges: Grow, AutoGrowEdges + 1: Ranges} {
		if got := AutoMethod(m); got != want {
			t.Errorf("AutoMethod(%d) = %v, want %v", m, got, want)
		}
	}
	if m, err := ParseMethod(Auto.String()); err != nil || m != Auto {
		t.Fatalf("ParseMethod(%q) = %v, %v", Auto.String(), m, err)
	}
}

// TestParallelRefine checks refine's parallel pass against its sequential loop on an R-MAT graph
// above parallelMin: from grown parts and from random ones, with budgets that refuse some moves
// and none, two passes each, the assignment, the bytes' bounds and the moves are the same for
// any number of threads (a scan made stale by a move within its batch is redone).
func TestParallelRefine(t *testing.T) {
	g, err := gen.RMAT(gen.RMATOptions{Scale: 17, EdgeFactor: 6, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	n := g.NumVertices()
	r := rand.New(rand.NewPCG(3, 4))
	for _, c := range []struct {
		k    int
		grow bool
		div  uint64
	}{{0, true, 4}, {0, true, 16}, {9, false, 6}, {9, false, 1}} {
		budget := GraphBytes(g) / c.div
		of := make([]uint32, n)
		k := c.k
		if c.grow {
			for v := range of {
				of[v] = unset
			}
			k, err = growParts(context.Background(), g, of, nil, 0, budget, uint64(float64(budget)*DefaultFill))
			if err != nil {
				t.Fatal(err)
			}
		} else {
			for v := range of {
				of[v] = uint32(r.IntN(k))
			}
		}
		bytes0, _ := partBytes(context.Background(), g, of, k, nil, nil)
		run := func(threads int) ([]uint32, []uint64, []int) {
			of := slices.Clone(of)
			bytes := slices.Clone(bytes0)
			var moves []int
			for range 2 {
				moves = append(moves, refineOn(context.Background(), g, nil, of, bytes, budget, threads))
			}
			return of, bytes, moves
		}
		wantOf, wantBytes, wantMoves := run(1)
		if wantMoves[0] == 0 {
			t.Fatalf("%+v: no moves: the test checks nothing", c)
		}
		for _, threads := range []int{2, 5} {
			gotOf, gotBytes, gotMoves := run(threads)
			if !slices.Equal(gotOf, wantOf) || !slices.Equal(gotBytes, wantBytes) || !slices.Equal(gotMoves, wantMoves) {
				t.Fatalf("%+v, %d threads: moves %v, sequential %v (assignments equal %v)", c, threads, gotMoves, wantMoves, slices.Equal(gotOf, wantOf))
			}
		}
		t.Logf("%+v: %d parts, moves %v", c, k, wantMoves)
	}
}

// BenchmarkRefine times one refinement pass from grown parts (R-MAT scale 18, edge factor 16, a
// quarter of the graph a part) on 1 thread and in parallel on 2 and 8 goroutines (run with -cpu 1
// for the parallel pass's whole work).
func BenchmarkRefine(b *testing.B) {
	g, err := gen.RMAT(gen.RMATOptions{Scale: 18, EdgeFactor: 16, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	budget := GraphBytes(g) / 4
	of := make([]uint32, g.NumVertices())
	for v := range of {
		of[v] = unset
	}
	k, err := growParts(context.Background(), g, of, nil, 0, budget, uint64(float64(budget)*DefaultFill))
	if err != nil {
		b.Fatal(err)
	}
	bytes0, _ := partBytes(context.Background(), g, of, k, nil, nil)
	for _, threads := range []int{1, 2, 8} {
		b.Run(fmt.Sprintf("threads=%d", threads), func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				of := slices.Clone(of)
				bytes := slices.Clone(bytes0)
				b.StartTimer()
				refineOn(context.Background(), g, nil, of, bytes, budget, threads)
			}
		})
	}
}
