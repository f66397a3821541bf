package sgsi

import (
	"context"
	"testing"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/gen"
)

// TestLayoutParts checks that a count's Layout is split into its parts (Store, Search,
// LabelGraphs: the debug line's store, search and label_graphs), each within Layout and together
// no more than it, on the host emulation.
func TestLayoutParts(t *testing.T) {
	g, err := gen.RMAT(gen.RMATOptions{Scale: 11, EdgeFactor: 16, VertexLabels: 16, LabelDistribution: gen.ZipfLabels, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	p, err := gen.RandomWalkQuery(g, 8, gen.QuerySeed(3, 8, 0), gen.QueryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_, st, err := Engine{Options: Options{Host: true}}.CountStats(context.Background(), &engine.Problem{Data: g, Pattern: p})
	if err != nil {
		t.Fatal(err)
	}
	if st.Store <= 0 || st.Search <= 0 || st.LabelGraphs <= 0 {
		t.Fatalf("layout's parts not timed: store %v, search %v, label graphs %v", st.Store, st.Search, st.LabelGraphs)
	}
	if sum := st.Store + st.Search + st.LabelGraphs; sum > st.Layout {
		t.Errorf("store %v + search %v + label graphs %v = %v, above the layout's %v", st.Store, st.Search, st.LabelGraphs, sum, st.Layout)
	}
}
