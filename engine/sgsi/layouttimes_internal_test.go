package sgsi

import (
	"context"
	"testing"
	"time"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/gen"
)

// TestLayoutParts checks that a count's Layout is split into its parts (Store, Search,
// LabelGraphs: the debug line's store, search and label_graphs), each within Layout and together
// no more than it, on the host emulation; and LabelGraphs into LabelBuilds (label_builds), one
// a key built, whose passes' times add up to no more than it, and a second count on the graph
// builds none (the store keeps them).
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
	if len(st.LabelBuilds) == 0 {
		t.Fatal("no label graph builds reported")
	}
	var passes time.Duration
	keys := map[string]bool{}
	for _, b := range st.LabelBuilds {
		if keys[b.Key] || b.Lengths <= 0 || b.Lists <= 0 || (b.Sort > 0 && !b.Scattered) {
			t.Errorf("label build %v: repeated, untimed, or sorted by runs", b)
		}
		keys[b.Key] = true
		passes += b.Lengths + b.Lists + b.Sort
	}
	if passes > st.LabelGraphs {
		t.Errorf("label builds' passes %v, above LabelGraphs %v: %v", passes, st.LabelGraphs, st.LabelBuilds)
	}
	_, st, err = Engine{Options: Options{Host: true}}.CountStats(context.Background(), &engine.Problem{Data: g, Pattern: p})
	if err != nil || len(st.LabelBuilds) != 0 {
		t.Errorf("second count on the graph: error %v, builds %v; want none", err, st.LabelBuilds)
	}
}
