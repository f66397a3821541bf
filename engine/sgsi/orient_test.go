package sgsi_test

import (
	"context"
	"errors"
	"testing"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/engine/sgsi"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/internal/proptest"
	"github.com/submatch/submatch/internal/testenv"
	"github.com/submatch/submatch/pattern"
)

// TestSymmetricOutOfCore checks the paths of small dense unlabelled patterns out of core against
// the cpu engine: embeddings counted as unique matches times |Aut(p)|, lists read on the side the
// symmetry restrictions leave (upper or lower label graphs), and tables sorted in tiles. Each
// pattern runs under every convention on an unlabelled R-MAT graph and one with two vertex
// labels, in core and at a quarter and a 32nd of GraphBytes (the deep sweep: two larger graphs,
// down to a 64th). It fails when no run was tiled or
// out of core: then it checks nothing of those paths.
func TestSymmetricOutOfCore(t *testing.T) { symmetricOutOfCore(t, true) }

// symmetricOutOfCore runs TestSymmetricOutOfCore's cases on the host emulation or the GPU.
func symmetricOutOfCore(t *testing.T, host bool) {
	ctx := context.Background()
	pats := []string{
		"(a)-(b)-(c)-(a)",                               // triangle: |Aut| 6, upper lists only
		"(a)-(b)-(c)-(d)-(a)",                           // 4-cycle: |Aut| 8, both sides
		"(a)-(b)-(c)-(d)-(a), (a)-(c)",                  // diamond: |Aut| 4
		"(a)-(b)-(c)-(d)-(a), (a)-(c), (b)-(d)",         // 4-clique: |Aut| 24
		"(a)-(b)-(c)-(a), (c)-(d)",                      // tailed triangle: |Aut| 2
		"(a:0)-(b:1)-(c:1)-(a), (a)-(d:1)-(b), (d)-(c)", // labelled: |Aut| 6 within one label
	}
	graphs := []gen.RMATOptions{
		{Scale: 8, EdgeFactor: 12, Seed: 7},
		{Scale: 8, EdgeFactor: 10, VertexLabels: 2, Seed: 9},
	}
	fractions := []uint64{0, 4, 32}
	if testenv.Long() {
		graphs = append(graphs, gen.RMATOptions{Scale: 9, EdgeFactor: 12, Seed: 7}, gen.RMATOptions{Scale: 10, EdgeFactor: 6, Seed: 8})
		fractions = []uint64{0, 4, 16, 64}
	}
	var runs, tiled, outOfCore, direct int
	againstCPUOnRMAT(t, graphs, pats, func(gc gen.RMATOptions, prob engine.Problem, want uint64) {
		for _, f := range fractions {
			b := uint64(64 << 20)
			if f > 0 {
				b = max(sgsi.GraphBytes(prob.Data)/f, 8192)
			}
			prob.GPUMemoryLimit = b
			res, st, err := sgsi.Engine{Options: sgsi.Options{Host: host, BlockRows: 16}}.CountStats(ctx, &prob)
			if errors.Is(err, engine.ErrMemory) && f > 0 {
				continue
			}
			runs++
			if err != nil || res.Partial || res.Count != want {
				t.Errorf("R-MAT %+v, %s, %s, region %d (1/%d), host %v: sgsi %d (%v), cpu %d", gc, prob.Pattern, prob.Semantics, b, f, host, res.Count, err, want)
			}
			if st.Tiled > 0 {
				tiled++
			}
			if !st.InCore {
				outOfCore++
			}
			if st.Blocks > 1 {
				direct++
			}
		}
	})
	t.Logf("%d runs: %d out of core, %d with tiled tables, %d counted directly in several blocks", runs, outOfCore, tiled, direct)
	if tiled == 0 || outOfCore == 0 || direct == 0 {
		t.Errorf("no run was tiled (%d), out of core (%d) or direct in several blocks (%d): the test checks nothing of those paths", tiled, outOfCore, direct)
	}
}

// againstCPUOnRMAT calls each for every R-MAT graph of graphs, pattern of pats (the inline
// syntax) and convention, with the problem (its own copy) and the cpu engine's count of it.
func againstCPUOnRMAT(t *testing.T, graphs []gen.RMATOptions, pats []string, each func(gc gen.RMATOptions, prob engine.Problem, want uint64)) {
	t.Helper()
	cpu, err := engine.Lookup("cpu")
	if err != nil {
		t.Fatal(err)
	}
	parsed := make([]*pattern.Pattern, len(pats))
	for i, s := range pats {
		if parsed[i], err = pattern.Parse(s); err != nil {
			t.Fatal(err)
		}
	}
	for _, gc := range graphs {
		g, err := gen.RMAT(gc)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range parsed {
			for _, sem := range proptest.AllSemantics {
				prob := engine.Problem{Data: g, Pattern: p, Semantics: sem}
				want, err := cpu.Count(context.Background(), &prob)
				if err != nil {
					t.Fatal(err)
				}
				each(gc, prob, want.Count)
			}
		}
	}
}
