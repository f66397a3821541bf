package gcsm

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/submatch/submatch/csm"
	"github.com/submatch/submatch/gen"
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
		if gm.pack(budget, hot) {
			t.Errorf("%s: both lists fitted %d bytes", c.mode, budget)
		}
		want, _ := gm.g.Lookup(c.want)
		if !slices.Equal(gm.want, []uint32{want}) {
			t.Errorf("%s: ranked %v, cached %v, want only the list of %d (vertex %d)", c.mode, hot, gm.want, c.want, want)
		}
		gm.Close()
	}
}

// TestDegreeFill: the estimator's lists first, then the highest-degree lists fill what the
// budget leaves (fillDegree), each list once; checked against the greedy fill's properties on
// an R-MAT graph: within the budget, every estimated list that fits taken, and no list left out
// that would still fit.
func TestDegreeFill(t *testing.T) {
	g0, err := gen.RMAT(gen.RMATOptions{Scale: 10, VertexLabels: 2, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	edge, err := pattern.New([]pattern.Label{pattern.Wildcard, pattern.Wildcard}, []pattern.Edge{{U: 0, V: 1, Label: pattern.Wildcard}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	m, err := openEmu(dynamic.FromGraph(g0), []*pattern.Pattern{edge}, csm.Options{}, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	gm := m.(*Matcher)
	defer gm.Close()
	if !gm.fillDegree || len(gm.deg) != g0.NumVertices() {
		t.Fatalf("cache mode: fillDegree %v, %d vertices in degree order", gm.fillDegree, len(gm.deg))
	}
	r := rand.New(rand.NewPCG(1, 2))
	for trial := range 50 {
		// Some estimated lists (repeats and degree-ranked ones among them), then the degree order.
		var hot []uint32
		for range r.IntN(40) {
			hot = append(hot, uint32(r.IntN(g0.NumVertices())))
		}
		if len(hot) > 0 {
			hot = append(hot, hot[0], gm.deg[0])
		}
		budget := uint64(r.IntN(int(rowBytes(uint32(2 * g0.NumEdges())))))
		gm.pack(budget, hot, gm.deg)
		in := map[uint32]bool{}
		var bytes uint64
		for _, v := range gm.want {
			if in[v] {
				t.Fatalf("trial %d: rows not distinct: %v", trial, gm.want)
			}
			in[v] = true
			bytes += rowBytes(gm.h.ln[v])
		}
		if bytes != gm.wantBytes || bytes > budget {
			t.Fatalf("trial %d: %d bytes cached (counted %d) in a budget of %d", trial, bytes, gm.wantBytes, budget)
		}
		// Greedy: a list left out did not fit what was left when its turn came; so no list left
		// out fits what is left at the end, and every hot list left out is longer than what
		// was left after the hot lists alone.
		left := budget - bytes
		for _, v := range gm.deg {
			if !in[v] && gm.h.ln[v] > 0 && rowBytes(gm.h.ln[v]) <= left {
				t.Fatalf("trial %d: list of %d (%d bytes) left out with %d bytes left", trial, v, rowBytes(gm.h.ln[v]), left)
			}
		}
		var hotBytes uint64
		seen := map[uint32]bool{}
		for _, v := range hot {
			if seen[v] || gm.h.ln[v] == 0 {
				continue
			}
			seen[v] = true
			if b := rowBytes(gm.h.ln[v]); hotBytes+b <= budget {
				hotBytes += b
				if !in[v] {
					t.Fatalf("trial %d: estimated list of %d fits (%d of %d bytes) but was not cached", trial, v, hotBytes, budget)
				}
			}
		}
		// A rebuild lays the choice out packed, within the budget (and the regions' alignment).
		c := &gm.cache
		c.place(gm.want, gm.h.ln, budget, false)
		var n uint64
		for i := range c.rows {
			if c.roff[i] != n || c.rlen[i] != gm.h.ln[c.rows[i]] || c.rows[i] != gm.want[i] || c.find(c.rows[i]) != i {
				t.Fatalf("trial %d: row %d at %d (want %d), length %d", trial, i, c.roff[i], n, c.rlen[i])
			}
			n += uint64(c.rlen[i])
		}
		if !c.full || c.gathered != n || c.bytes != bytes || (len(c.rows) > 0 && c.phys() > budget+48) {
			t.Fatalf("trial %d: rebuild %v, %d entries gathered, rows hold %d; %d bytes of %d, buffer %d of %d", trial, c.full, c.gathered, n, c.bytes, bytes, c.phys(), budget)
		}
	}
}

// TestGenSample: a sampled walk step (genSample) against the full step (gen) on a triangle's
// first free level over R-MAT edges: with a sample at least the range it finds the same
// candidates and charges the same bytes; with a smaller one every candidate it finds is one of
// gen's, and its estimate of the candidates' number (range size · found / checked) averages to
// gen's count, as does its estimate of the bytes charged.
func TestGenSample(t *testing.T) {
	g0, err := gen.RMAT(gen.RMATOptions{Scale: 10, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	tri, err := pattern.New([]pattern.Label{pattern.Wildcard, pattern.Wildcard, pattern.Wildcard},
		[]pattern.Edge{{U: 0, V: 1, Label: pattern.Wildcard}, {U: 1, V: 2, Label: pattern.Wildcard}, {U: 0, V: 2, Label: pattern.Wildcard}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	m, err := openEmu(dynamic.FromGraph(g0), []*pattern.Pattern{tri}, csm.Options{}, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	gm := m.(*Matcher)
	defer gm.Close()
	rec := gm.t.words[:termWords]
	k := int(rec[tAnchors])
	var charged uint64
	e := emu{t: gm.t, h: &gm.h, onRead: func(_ uint32, b uint64) { charged += b }}
	r := rand.New(rand.NewPCG(3, 4))
	tested := 0
	for u := range uint32(g0.NumVertices()) {
		for _, v := range g0.Neighbors(u) {
			e.f[0], e.f[1] = u, v
			charged = 0
			want := e.gen(rec, k, nil, 0, 0)
			wantBytes := charged
			if len(want) < 4 {
				continue
			}
			charged = 0
			got, checked, n := e.genSample(rec, k, nil, 0, 0, 1<<20, r)
			if !slices.Equal(got, want) || checked != n || charged != wantBytes {
				t.Fatalf("(%d, %d), sample of all: %v (checked %d of %d, %d bytes), gen %v (%d bytes)", u, v, got, checked, n, charged, want, wantBytes)
			}
			const draws, m = 4000, 3
			var est, bytes float64
			for range draws {
				charged = 0
				got, checked, n = e.genSample(rec, k, nil, 0, 0, m, r)
				for _, c := range got {
					if _, ok := slices.BinarySearch(want, c); !ok {
						t.Fatalf("(%d, %d): sampled candidate %d is not one of gen's %v", u, v, c, want)
					}
				}
				if checked != min(m, n) {
					t.Fatalf("(%d, %d): checked %d of %d with a sample of %d", u, v, checked, n, m)
				}
				est += float64(n) * float64(len(got)) / float64(checked)
				bytes += float64(charged)
			}
			est /= draws
			bytes /= draws
			if est < 0.85*float64(len(want)) || est > 1.15*float64(len(want)) || bytes < 0.85*float64(wantBytes) || bytes > 1.15*float64(wantBytes) {
				t.Errorf("(%d, %d): sampled estimates %.1f candidates and %.0f bytes, gen %d and %d", u, v, est, bytes, len(want), wantBytes)
			}
			if tested++; tested == 10 {
				return
			}
		}
	}
	t.Fatalf("only %d edges with 4 common neighbours or more", tested)
}
