package dcsm

import (
	"context"
	"testing"

	"github.com/submatch/submatch/csm/internal/csmtest"
	"github.com/submatch/submatch/formats/updates"
	"github.com/submatch/submatch/graph/dynamic"
	"github.com/submatch/submatch/internal/testenv"
	"github.com/submatch/submatch/pattern"
)

// TestEmuPairs: every stream of two updates of csmtest.PairOps (an edge inserted then deleted
// within one wave, a vertex deleted and added again with another label, the same update twice,
// invalid ones) over csmtest.PairGraphs gives the CPU engine's per-update deltas, in every
// convention, in waves of one and of two updates. A short run takes every 24th stream (each
// opens an emulated engine: about 10 ms), the deep sweep every one.
func TestEmuPairs(t *testing.T) {
	ctx := context.Background()
	var pats []*pattern.Pattern
	for _, s := range []string{"(a)-(b)-(c)-(a)", "(a:0)-(b)-(c:1)", "(a)-[:1]-(b)"} {
		p, err := pattern.Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		pats = append(pats, p)
	}
	ops := csmtest.PairOps()
	stride := testenv.Sweep(24, 1)
	runs := 0
	for gi, g := range csmtest.PairGraphs(t) {
		for i, a := range ops {
			for j, b := range ops {
				if (i*len(ops)+j)%stride != 0 {
					continue
				}
				a.Line, b.Line = 1, 2
				c := randomCase{g: func() *dynamic.Graph { return dynamic.FromGraph(g) }, pats: pats,
					stream: []updates.Update{a, b}, wave: 1 + (i+j)%2}
				sem := conventions[(gi+i+j)%4]
				if _, err := compare(ctx, c, sem, openEmu); err != nil {
					t.Fatalf("graph %d, %v, wave %d, stream %v: %v", gi, sem, c.wave, c.stream, err)
				}
				runs++
			}
		}
	}
	if runs < 2*len(ops)*len(ops)/stride {
		t.Fatalf("only %d streams", runs)
	}
}
