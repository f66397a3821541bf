package dcsm

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/submatch/submatch/csm"
	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/formats/updates"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/graph/dynamic"
	"github.com/submatch/submatch/pattern"
)

// TestReportErrorStopsStream: once report returns an error (here at the first update, reported
// when the second wave's launch finishes the first), ApplyEach returns it and calls report no
// more: the waves gathered or running are not reported.
func TestReportErrorStopsStream(t *testing.T) {
	tri, _ := pattern.Parse("(a)-(b)-(c)-(a)")
	m, err := OpenEmulated(dynamic.New(), []*pattern.Pattern{tri}, csm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	m.maxWave = 2
	var s []updates.Update
	for i := int64(0); i < 10; i++ {
		s = append(s, updates.Update{Kind: updates.InsertEdge, U: i, V: i + 1, Line: int(i + 1)})
	}
	stop := errors.New("stop")
	calls := 0
	err = m.ApplyEach(context.Background(), s, func(updates.Update, *csm.Result) error {
		calls++
		return stop
	})
	if err != stop || calls != 1 {
		t.Fatalf("err %v, report called %d times (want the error, once)", err, calls)
	}
	if err := m.ApplyEach(context.Background(), s[:1], func(updates.Update, *csm.Result) error { return nil }); err != stop {
		t.Fatalf("after report's error: %v, want the matcher to refuse work with it", err)
	}
}

// TestWaveSearchBytesBounded: updates at a hub make many searches each (split into parts of the
// hub's neighbours); a wave closes once its search records reach the byte bound, so no wave
// holds more than the bound and one update's records, and the counts stay the CPU engine's.
func TestWaveSearchBytesBounded(t *testing.T) {
	const leaves, inserts = 3000, 300
	hub := func() *dynamic.Graph {
		g := dynamic.New()
		g.AddVertex(0, 0)
		for i := 1; i <= leaves; i++ {
			v, _ := g.AddVertex(int64(i), 0)
			g.AddEdge(0, v, 0)
		}
		return g
	}
	var s []updates.Update
	for i := range inserts {
		s = append(s, updates.Update{Kind: updates.InsertEdge, U: 0, V: int64(leaves + 1 + i), Line: i + 1})
	}
	s = append(s, updates.Update{Kind: updates.DeleteVertex, U: 0, Line: inserts + 1}) // the hub's edges, one by one
	p, _ := pattern.Parse("(a)-(b)-(c)")
	c := randomCase{g: hub, pats: []*pattern.Pattern{p}, stream: s, wave: DefaultWave, bytes: 32 << 10}
	if _, err := compare(context.Background(), c, engine.Semantics{}, openEmu); err != nil {
		t.Fatal(err)
	}
	m, err := OpenEmulated(hub(), c.pats, csm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	m.waveBytes = c.bytes
	if err := m.ApplyEach(context.Background(), s, func(updates.Update, *csm.Result) error { return nil }); err != nil {
		t.Fatal(err)
	}
	st := m.Stats()
	// One update's searches: both orientations of its pair terms, each split into parts of
	// splitChunk of the hub's neighbours (at most leaves+inserts).
	one := uint64(4*taskWords) * 4 * (uint64(leaves+inserts)/uint64(splitChunk) + 1)
	t.Logf("%d updates, %d waves, %d searches, peak %d bytes of search records a wave (bound %d, one update up to %d)",
		st.Updates, st.Waves, st.Tasks, st.PeakWaveBytes, c.bytes, one)
	if st.PeakWaveBytes > c.bytes+one || st.Waves < int(uint64(4*taskWords*st.Tasks)/(c.bytes+one)) {
		t.Fatalf("a wave held %d bytes of search records, bound %d (+%d)", st.PeakWaveBytes, c.bytes, one)
	}
	if waveBudget(0) != DefaultWaveBytes || waveBudget(1<<30) != 1<<26 || waveBudget(1<<20) != 64<<10 || waveBudget(1<<40) != DefaultWaveBytes {
		t.Fatalf("wave budgets %d %d %d %d", waveBudget(0), waveBudget(1<<30), waveBudget(1<<20), waveBudget(1<<40))
	}
}

// TestUpdaterStaysInBlock: when the plan gives a vertex fewer kept entries than its block
// holds (a host bookkeeping error), the updater fails with an internal error and writes
// nothing outside the vertex's new block (the kernel's pass 1 has the same guard).
func TestUpdaterStaysInBlock(t *testing.T) {
	g := dynamic.New()
	for i := range 8 {
		g.AddVertex(int64(i), 0)
	}
	for _, e := range [][2]uint32{{0, 1}, {0, 2}, {0, 3}, {5, 6}, {6, 7}, {5, 7}} {
		g.AddEdge(e[0], e[1], 0)
	}
	p, _ := pattern.Parse("(a)-(b)")
	m, err := OpenEmulated(g, []*pattern.Pattern{p}, csm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	e := m.be.(*emu)
	v, _ := g.Lookup(0)
	m.s.dead[v] = 2 // the host believes two of its three entries dead: a block of 1 + 1 planned
	key, c, d := slices.Clone(e.key), slices.Clone(e.c), slices.Clone(e.d)
	err = m.ApplyEach(context.Background(), []updates.Update{{Kind: updates.InsertEdge, U: 0, V: 4, Line: 1}},
		func(updates.Update, *csm.Result) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "internal error") {
		t.Fatalf("err %v, want an internal error", err)
	}
	no, nn := m.s.off[v], uint64(m.s.ln[v])
	if nn != 2 {
		t.Fatalf("planned %d entries, the test expects 2", nn)
	}
	for i := range uint64(len(e.key)) {
		if i >= no && i < no+nn {
			continue
		}
		var k uint64
		var ci, di uint32
		if i < uint64(len(key)) {
			k, ci, di = key[i], c[i], d[i]
		}
		if e.key[i] != k || e.c[i] != ci || e.d[i] != di {
			t.Fatalf("pool entry %d (outside the block [%d, %d)) changed", i, no, no+nn)
		}
	}
}

// TestEmuWideTables runs random cases through book's two other ways of finding the pair terms an
// edge anchors: vertex labels at and above anchorLabels (the masks computed per edge), and more
// than 64 pair terms (every term tried), against the CPU engine.
func TestEmuWideTables(t *testing.T) {
	ctx := context.Background()
	var nonzero int
	for seed := range uint64(12) {
		r := rand.New(rand.NewPCG(seed, 21))
		vl := anchorLabels + 2
		base := gen.RandomGraph(seed, 12+r.IntN(12), 0.5, vl, 1)
		wide := seed%2 == 0 // many terms, else labels past anchorLabels in the patterns
		var pats []*pattern.Pattern
		if wide {
			k4, _ := pattern.Parse("(a)-(b)-(c)-(d)-(a), (a)-(c), (b)-(d)") // 6 pair terms, wildcards
			for range 11 {
				pats = append(pats, k4)
			}
		}
		for i := range 2 {
			pats = append(pats, gen.RandomPattern(seed*31+uint64(i), 2+r.IntN(3), gen.PatternOptions{
				EdgeProb: 0.6, VertexLabels: vl, EdgeLabels: 1, Wildcard: 0.5}))
		}
		c := randomCase{g: func() *dynamic.Graph { return dynamic.FromGraph(base) }, pats: usable(pats),
			stream: randomStream(r, dynamic.FromGraph(base), 80, vl, 1), wave: []int{1, 7, DefaultWave}[seed%3]}
		if len(c.pats) == 0 {
			continue
		}
		m, err := openEmu(c.g(), c.pats, csm.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if got := m.tab.refs == nil; got != wide {
			t.Fatalf("seed %d: %d pair terms, refs nil %t", seed, len(m.tab.words)/termWords, got)
		}
		m.Close()
		for _, sem := range conventions {
			n, err := compare(ctx, c, sem, openEmu)
			if err != nil {
				t.Fatalf("seed %d, %v, patterns %v: %v", seed, sem, c.pats, err)
			}
			if n > 0 {
				nonzero++
			}
		}
	}
	if nonzero == 0 {
		t.Error("no run saw a match change: the test checks too little")
	}
}
