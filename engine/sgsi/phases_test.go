package sgsi

import (
	"context"
	"testing"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/pattern"
)

// TestStatsPhases counts 4-cliques out of core (a sixteenth of GraphBytes: tables sorted and
// split, lists gathered, tables spilled) and checks that every phase of the joins Stats times ran and
// that they stay within Total: Other, the rest, is not negative.
func TestStatsPhases(t *testing.T) {
	q, err := pattern.Parse("(a)-(b)-(c)-(d)-(a), (a)-(c), (b)-(d)")
	if err != nil {
		t.Fatal(err)
	}
	g, err := gen.RMAT(gen.RMATOptions{Scale: 10, EdgeFactor: 8, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	p := &engine.Problem{Data: g, Pattern: q, GPUMemoryLimit: GraphBytes(g) / 16}
	res, st, err := Engine{Options: Options{Host: true}}.CountStats(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if res.Count == 0 || st.InCore || st.Chunks < 2 {
		t.Fatalf("count %d, in core %v, %d chunks: not the out-of-core run this test needs", res.Count, st.InCore, st.Chunks)
	}
	for name, d := range map[string]int64{"Setup": int64(st.Setup), "Group": int64(st.Group), "Refs": int64(st.Refs),
		"Tables": int64(st.Tables), "Driver": int64(st.Driver)} {
		if d <= 0 {
			t.Errorf("%s %d ns: not timed", name, d)
		}
	}
	if st.Driver >= st.Comm+st.Comp {
		t.Errorf("Driver %v not under the emulation's copies and kernels %v: the filter's counted in both", st.Driver, st.Comm+st.Comp)
	}
	if st.Other() < 0 {
		t.Errorf("Other %v < 0: a phase counted twice (%+v)", st.Other(), st)
	}
}
