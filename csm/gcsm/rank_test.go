package gcsm

import (
	"slices"
	"testing"

	"github.com/submatch/submatch/csm"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/graph/dynamic"
	"github.com/submatch/submatch/pattern"
)

// TestRanking: a long list read rarely (a hub's whole list scanned twice) against a short list
// read often (a hundred binary searches), with a cache budget that holds the long list or the
// short one but not both. Ranked by bytes read through the mapping (cache-bytes), the long list
// is cached; by reads (cache, the default) or by bytes per cached byte (cache-density), the short one.
func TestRanking(t *testing.T) {
	const hubDeg, smallDeg = 1000, 4
	b := graph.NewBuilder(graph.BuilderOptions{})
	for i := range int64(hubDeg) {
		if err := b.AddEdge(0, 10+i, 0); err != nil {
			t.Fatal(err)
		}
	}
	for i := range int64(smallDeg) {
		if err := b.AddEdge(1, 10+i, 0); err != nil {
			t.Fatal(err)
		}
	}
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	edge, err := pattern.New([]pattern.Label{pattern.Wildcard, pattern.Wildcard}, []pattern.Edge{{U: 0, V: 1, Label: pattern.Wildcard}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		mode string
		want int64 // the original id of the one list cached
	}{{"cache-bytes", 0}, {"cache", 1}, {"cache-density", 1}} {
		m, err := openEmu(dynamic.FromGraph(g), []*pattern.Pattern{edge}, csm.Options{Mode: c.mode}, 1<<20)
		if err != nil {
			t.Fatal(err)
		}
		gm := m.(*Matcher)
		hub, _ := gm.g.Lookup(0)
		small, _ := gm.g.Lookup(1)
		s := &gm.est
		s.reset(gm.g.IDBound())
		// The reads as a pass records them: the bytes by the emulation's cost model.
		var reads []read
		for range 2 {
			reads = append(reads, read{hub, 1, 8 * hubDeg})
		}
		for range 100 {
			reads = append(reads, read{small, 1, float64(searchBytes(smallDeg))})
		}
		s.add(reads)
		hot := slices.Clone(s.ranked(gm.h.ln))
		budget := rowBytes(hubDeg) + rowBytes(smallDeg) - 1
		gm.cache.reset()
		if gm.pack(hot, budget) {
			t.Errorf("%s: both lists fitted %d bytes", c.mode, budget)
		}
		want, _ := gm.g.Lookup(c.want)
		if !slices.Equal(gm.cache.rows, []uint32{want}) {
			t.Errorf("%s: ranked %v, cached %v, want only the list of %d (vertex %d)", c.mode, hot, gm.cache.rows, c.want, want)
		}
		gm.Close()
	}
}
