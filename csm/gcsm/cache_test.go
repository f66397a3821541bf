package gcsm

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/submatch/submatch/csm"
	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/internal/testenv"
	"github.com/submatch/submatch/pattern"
)

// TestCacheLayout drives the kept cache's layout (dcsr.place) with random choices, lists that
// grow and shrink, and budgets that change, and checks after every phase, against the
// definition: the rows in use are exactly the choice, each vertex's slot names its row, the
// rows' ranges and the free ranges tile [0, entryCap) without overlap (free ranges sorted and
// coalesced), every row has room for its list, the buffer fits the budget after a rebuild; and,
// through the emulated device (fill), that every row holds its vertex's current list and no
// other vertex has a slot: the gathers and evictions a phase asks for are enough.
func TestCacheLayout(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	const nv = 300
	var h hostGraph
	ln := make([]uint32, nv)
	lists := make([][]uint64, nv)
	setList := func(v int, n uint32) {
		ln[v] = n
		lists[v] = make([]uint64, n)
		for i := range lists[v] {
			lists[v][i] = r.Uint64()
		}
	}
	for v := range nv {
		setList(v, uint32(r.IntN(40)))
	}
	// A host graph holding lists (only what fill and checkCache read: off, ln, keys, elab).
	load := func() {
		h.off = h.off[:0]
		h.keys, h.elab = h.keys[:0], h.elab[:0]
		for v := range nv {
			h.off = append(h.off, uint64(len(h.keys)))
			h.keys = append(h.keys, lists[v]...)
			for range lists[v] {
				h.elab = append(h.elab, uint32(v))
			}
		}
		h.ln = ln
	}
	var c dcsr
	updates, rebuilds, partial := 0, 0, 0
	budget := uint64(4000)
	for phase := range 3000 {
		// The batch changed some lists: the layout is told (as follow does).
		for range r.IntN(6) {
			v := r.IntN(nv)
			setList(v, uint32(max(0, int(ln[v])+r.IntN(9)-4)))
			c.markChanged(uint32(v))
		}
		if r.IntN(50) == 0 {
			budget = uint64(1000 + r.IntN(8000))
		}
		load()
		// The choice: mostly the last one, some lists in or out, within the budget's slack.
		var want []uint32
		var bytes uint64
		pick := r.Perm(nv)
		if r.IntN(4) != 0 && phase > 0 {
			pick = pick[:0]
			for v, row := range c.slot {
				if row != noRow && r.IntN(10) != 0 {
					pick = append(pick, v)
				}
			}
			pick = append(pick, r.Perm(nv)[:10]...)
		}
		seen := map[uint32]bool{}
		for _, v := range pick {
			b := rowBytes(ln[v])
			if ln[v] == 0 || seen[uint32(v)] || bytes+b > budget-budget/slackDiv {
				continue
			}
			seen[uint32(v)] = true
			bytes += b
			want = append(want, uint32(v))
		}
		slices.Sort(want)
		kept := r.IntN(20) != 0
		c.place(want, ln, budget, kept)
		if c.full {
			rebuilds++
			if len(c.rows) > 0 && c.phys() > budget+48 {
				t.Fatalf("phase %d: rebuilt buffer of %d bytes in a budget of %d", phase, c.phys(), budget)
			}
		} else {
			updates++
		}
		var in []uint32
		type rng struct{ off, n uint64 }
		var used []rng
		for i, v := range c.rows {
			if v == noRow {
				continue
			}
			in = append(in, v)
			if c.slot[v] != uint32(i) || c.rlen[i] != ln[v] || c.room[i] < c.rlen[i] {
				t.Fatalf("phase %d: row %d (vertex %d): slot %d, length %d of room %d, list %d", phase, i, v, c.slot[v], c.rlen[i], c.room[i], ln[v])
			}
			used = append(used, rng{c.roff[i], uint64(c.room[i])})
		}
		// Every row chosen; all of the choice after a rebuild, all but at most 1/missDiv of the
		// budget's bytes after an update.
		slices.Sort(in)
		var inBytes, left uint64
		for _, v := range in {
			inBytes += rowBytes(ln[v])
			if _, ok := slices.BinarySearch(want, v); !ok {
				t.Fatalf("phase %d: vertex %d cached, not chosen", phase, v)
			}
		}
		left = bytes - inBytes
		if c.lists != len(in) || c.bytes != inBytes || (c.full && left > 0) || left > budget/missDiv {
			t.Fatalf("phase %d (rebuilt %v): rows %v (%d, %d bytes), want %v (%d bytes)", phase, c.full, in, c.lists, c.bytes, want, bytes)
		}
		if left > 0 {
			partial++
		}
		for i, f := range c.free {
			if f.n == 0 || (i > 0 && c.free[i-1].off+c.free[i-1].n >= f.off) {
				t.Fatalf("phase %d: free ranges not sorted and coalesced: %v", phase, c.free)
			}
			used = append(used, rng(f))
		}
		slices.SortFunc(used, func(a, b rng) int { return int(a.off) - int(b.off) })
		var at uint64
		for _, u := range used {
			if u.n == 0 {
				continue
			}
			if u.off != at {
				t.Fatalf("phase %d: entries [%d, %d) not tiled by the rows and free ranges (%v)", phase, at, u.off, used)
			}
			at += u.n
		}
		if at != c.entryCap && at != 0 {
			t.Fatalf("phase %d: rows and free ranges cover %d of %d entries", phase, at, c.entryCap)
		}
		// The device's gathers and evictions are not ordered: no vertex in both.
		if !c.full {
			ev := map[uint32]bool{}
			for _, v := range c.evict {
				if ev[v] {
					t.Fatalf("phase %d: vertex %d evicted twice", phase, v)
				}
				ev[v] = true
			}
			for _, i := range c.sel {
				if ev[c.rows[i]] {
					t.Fatalf("phase %d: vertex %d both evicted and gathered", phase, c.rows[i])
				}
			}
			if len(c.sel) > c.rowCap || len(c.evict) > c.rowCap {
				t.Fatalf("phase %d: %d rows gathered and %d evicted, more than the %d rows", phase, len(c.sel), len(c.evict), c.rowCap)
			}
		}
		c.fill(&h)
		if err := checkCache(&c, &h); err != nil {
			t.Fatalf("phase %d: %v", phase, err)
		}
	}
	if updates < 1000 || rebuilds < 10 || partial < 10 {
		t.Fatalf("%d updates in place (%d leaving lists out) and %d rebuilds: the test does not exercise each", updates, partial, rebuilds)
	}
	t.Logf("%d updates in place (%d leaving lists out), %d rebuilds", updates, partial, rebuilds)
}

// TestIncrementalCache: the kept cache (updated in place) against the CPU engine and against the
// cache rebuilt at every phase (fullCache) on an R-MAT stream (a triangle, a diamond and the
// benches' 6-vertex kite6), in the degree and estimator modes,
// with a tiny, a small and a large budget: equal counts at every batch (embeddings and unique
// induced; every convention with SUBMATCH_LONG=1); the
// fewer entries gathered, and (the degree cache) most phases updated in place.
func TestIncrementalCache(t *testing.T) {
	g0, err := gen.RMAT(gen.RMATOptions{Scale: 10, VertexLabels: 4, Seed: 9})
	if err != nil {
		t.Fatal(err)
	}
	mk, stream := rmatStream(t, g0, 800)
	tri := mustPattern(t, []uint32{0, 1, 0}, [][2]int{{0, 1}, {1, 2}, {2, 0}})
	diamond := mustPattern(t, []uint32{0, 1, 0, 1}, [][2]int{{0, 1}, {1, 2}, {2, 3}, {3, 0}, {0, 2}})
	pats := []*pattern.Pattern{tri, diamond, kite6(t)}
	ctx := context.Background()
	graphBytes := 12 * 2 * g0.NumEdges()
	matched := make([]uint64, len(pats)) // per pattern: the test compares nonzero counts
	sems := conventions
	if !testenv.Long() { // the first and the last convention (SUBMATCH_LONG=1: all)
		sems = []engine.Semantics{conventions[0], conventions[len(conventions)-1]}
	}
	for _, sem := range sems {
		for _, mode := range []string{"degree", "cache", "cache-sampled"} {
			for _, budget := range []uint64{300, graphBytes / 10, graphBytes / 2} {
				name := fmt.Sprintf("%v %s budget %d", sem, mode, budget)
				ref, err := csm.Open(mk(), pats, csm.Options{Semantics: sem, SkipInvalid: true})
				if err != nil {
					t.Fatal(err)
				}
				var ms [2]*Matcher
				for i := range ms {
					m, err := openEmu(mk(), pats, csm.Options{Semantics: sem, SkipInvalid: true, Mode: mode}, budget)
					if err != nil {
						t.Fatal(err)
					}
					ms[i] = m.(*Matcher)
					defer ms[i].Close()
				}
				ms[1].fullCache = true
				var want csm.Result
				var gathered [2]uint64
				phases, rebuilt := 0, 0
				for lo := 0; lo < len(stream); lo += 100 {
					b := stream[lo : lo+100]
					if err := ref.Apply(ctx, b, nil, &want); err != nil {
						t.Fatal(err)
					}
					for pi, d := range want.Deltas {
						matched[pi] += d.Created + d.Destroyed
					}
					for i, m := range ms {
						var got csm.Result
						if err := m.Apply(ctx, b, nil, &got); err != nil {
							t.Fatalf("%s, batch at %d: %v", name, lo, err)
						}
						if !slices.Equal(got.Deltas, want.Deltas) {
							t.Fatalf("%s (full %v), batch at %d: %v, cpu %v", name, m.fullCache, lo, got.Deltas, want.Deltas)
						}
						st := m.Stats()
						gathered[i] += st.Gathered
						if i == 0 {
							phases += 2
							rebuilt += st.Rebuilds
						}
					}
				}
				// The degree cache changes little from phase to phase: mostly updated in place;
				// the estimator's at least sometimes.
				if budget >= graphBytes/10 && (rebuilt == phases || (mode == "degree" && (rebuilt*2 > phases || gathered[0]*4 > 3*gathered[1]))) {
					t.Errorf("%s: %d of %d phases rebuilt; %d entries gathered, %d rebuilding every phase", name, rebuilt, phases, gathered[0], gathered[1])
				}
				if sem == conventions[0] {
					t.Logf("%s: %d of %d phases rebuilt; %d entries gathered, %d rebuilding every phase", name, rebuilt, phases, gathered[0], gathered[1])
				}
			}
		}
	}
	if slices.Contains(matched, 0) {
		t.Fatalf("matches per pattern %v: a pattern never matched", matched)
	}
	t.Logf("matches per pattern (all cases): %v", matched)
}
