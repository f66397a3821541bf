package gcsm

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/submatch/submatch/csm"
	"github.com/submatch/submatch/csm/internal/csmtest"
	"github.com/submatch/submatch/csm/internal/gpucsm"
	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/formats/updates"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/graph/dynamic"
	"github.com/submatch/submatch/internal/oracle"
	"github.com/submatch/submatch/pattern"
)

var conventions = csmtest.Conventions

// emuBackend runs the phases with the host emulation of the kernel, within a cache budget; with
// bytes set it adds the bytes the kernel's reads take by the emulation's cost model, those
// through the mapping to bytes[0] and those from the cache to bytes[1].
type emuBackend struct {
	budget uint64
	bytes  *[2]uint64
}

func (emuBackend) alloc(Mode) allocator { return goAlloc }

// cacheBudget keeps the cache whenever asked to (the emulated device's memory is the dcsr's).
func (b emuBackend) cacheBudget(_ *hostGraph, _ *phase, _, keep uint64) (uint64, bool) {
	return b.budget, keep > 0 && keep <= b.budget
}

func (emuBackend) close() {}

func (emuBackend) setListing(bool) {}

// listCap is small, so that a phase's matches are listed in several groups (and a search with
// more on the host).
func (emuBackend) listCap() uint64 { return 6 }

func (emuBackend) list(ctx context.Context, t *table, h *hostGraph, c *dcsr, ph *phase, lo, hi int, counts []uint64, out []uint32) error {
	c.fill(h)
	e := emu{t: t, h: h, c: c, ph: ph}
	at := 0
	for i := lo; i < hi; i++ {
		start := at
		e.listTask(ph.tasks[taskWords*i:taskWords*(i+1)], func(f []uint32) bool {
			if at < len(out) {
				out[at] = uint32(i - lo)
				copy(out[at+1:at+listWords], f)
			}
			at += listWords
			return true
		})
		if uint64(at-start) != counts[i]*listWords {
			return fmt.Errorf("task %d: listed %d matches, counted %d", i, (at-start)/listWords, counts[i])
		}
	}
	return ctx.Err()
}

func (b emuBackend) run(ctx context.Context, t *table, h *hostGraph, c *dcsr, ph *phase, counts []uint64, freq []uint32, st *Stats) error {
	c.fill(h)
	if err := checkCache(c, h); err != nil {
		return err
	}
	e := emu{t: t, h: h, c: c, ph: ph}
	if freq != nil || b.bytes != nil {
		e.onRead = func(v uint32, n uint64) {
			if freq != nil {
				freq[v]++
			}
			if b.bytes != nil {
				b.bytes[gpucsm.B2U(c.find(v) >= 0)] += n
			}
		}
	}
	for i := range ph.numTasks() {
		counts[i] = e.run(ph.tasks[taskWords*i : taskWords*(i+1)])
	}
	st.Reads, st.Hits = e.reads, e.hits
	return ctx.Err()
}

// checkCache checks the emulated device's cache against the layout and the host graph: every
// row's vertex has its slot and its current list, and every vertex with a slot is that row's
// (the kernel's reads are checked by the counts; this names a stale row or slot at once).
func checkCache(c *dcsr, h *hostGraph) error {
	if len(c.rows) == 0 {
		return nil
	}
	for i, v := range c.rows {
		if v == noRow {
			continue
		}
		k, e, ok := c.devList(v)
		hk, he := h.list(v)
		if !ok || c.dslot[v] != uint32(i) || !slices.Equal(k, hk) || !slices.Equal(e, he) {
			return fmt.Errorf("cache row %d (vertex %d): on the device %v, slot %d, %d entries; the host graph's %d", i, v, ok, c.dslot[v], len(k), len(hk))
		}
	}
	for v, r := range c.dslot {
		if r != noRow && (r >= uint32(len(c.rows)) || c.rows[r] != uint32(v)) {
			return fmt.Errorf("cache slot of vertex %d: row %d, not that vertex's", v, r)
		}
	}
	return nil
}

// spillBackend is the emulation with every search decomposed as the kernel's spills do: its
// first free level's source range is cut in two, each accepted candidate of the first half
// becomes a spilled search one level deeper, and the second half a spilled search of the
// level's absolute rest; the task's count is their sum.
type spillBackend struct{ emuBackend }

func (spillBackend) run(ctx context.Context, t *table, h *hostGraph, c *dcsr, ph *phase, counts []uint64, freq []uint32, st *Stats) error {
	c.fill(h)
	if err := checkCache(c, h); err != nil {
		return err
	}
	e := emu{t: t, h: h, c: c, ph: ph}
	r := make([]uint32, spillWords)
	for i := range ph.numTasks() {
		task := ph.tasks[taskWords*i : taskWords*(i+1)]
		rec := t.words[int(task[0])*termWords:][:termWords]
		n, d := int(rec[tN]), int(rec[tAnchors])
		e.f[0], e.f[1] = task[1], task[2]
		if d >= n-1 || d == int(rec[tTail]) || !e.anchors(rec) {
			counts[i] = e.run(task)
			continue
		}
		lv := level(rec, d)
		var ls [MaxPatternVertices]hlist
		e.lists(lv, d, &ls)
		_, lo, hi := source(lv, &ls)
		lo, hi = part(lo, hi, task[4], task[5])
		mid := lo + (hi-lo)/2
		record := func(depth int, flags, a, b uint32, last uint32) {
			clear(r)
			r[0], r[1], r[2], r[3], r[4], r[5] = task[0], uint32(i), uint32(depth), flags, a, b
			copy(r[8:8+d], task[1:1+d])
			if depth > d {
				r[8+d] = last
			}
		}
		var sum uint64
		for _, v := range slices.Clone(e.genRange(rec, d, nil, uint32(lo), uint32(mid), true)) {
			record(d+1, 0, 0, 0, v)
			sum += e.runSpilled(r)
		}
		record(d, spillAbs, uint32(mid), uint32(hi), 0)
		sum += e.runSpilled(r)
		counts[i] = sum
	}
	return ctx.Err()
}

// openSpill opens the patterns with the spilling emulation.
func openSpill(g *dynamic.Graph, pats []*pattern.Pattern, opts csm.Options, budget uint64) (csm.Matcher, error) {
	return open(g, pats, opts, func(*table) (backend, error) { return spillBackend{emuBackend{budget: budget}}, nil })
}

// openEmu opens the patterns with the emulation backend.
func openEmu(g *dynamic.Graph, pats []*pattern.Pattern, opts csm.Options, budget uint64) (csm.Matcher, error) {
	return open(g, pats, opts, func(*table) (backend, error) { return emuBackend{budget: budget}, nil })
}

// opener opens a GCSM matcher under test (emulated or on the GPU) with a mode and a budget.
type opener func(g *dynamic.Graph, pats []*pattern.Pattern, opts csm.Options, budget uint64) (csm.Matcher, error)

// streamModel draws random update streams over a graph it tracks: mostly valid edge inserts and
// deletes, vertex inserts and deletes, a few invalid updates (skipped by SkipInvalid).
type streamModel struct {
	labels map[int64]uint32
	edges  map[[2]int64]uint32
	next   int64
	vl, el int
}

func newStreamModel(g *dynamic.Graph, vl, el int) *streamModel {
	md := &streamModel{labels: map[int64]uint32{}, edges: map[[2]int64]uint32{}, vl: vl, el: el}
	for _, v := range g.Vertices() {
		id := g.OriginalID(v)
		md.labels[id] = g.Label(v)
		md.next = max(md.next, id+1)
		for _, r := range g.Runs(v) {
			for _, w := range r.Neighbors {
				md.edges[edgeKey(id, g.OriginalID(w))] = r.EdgeLabel
			}
		}
	}
	return md
}

func edgeKey(a, b int64) [2]int64 {
	if a > b {
		a, b = b, a
	}
	return [2]int64{a, b}
}

func (md *streamModel) draw(r *rand.Rand, line int) updates.Update {
	var vs []int64
	for id := range md.labels {
		vs = append(vs, id)
	}
	slices.Sort(vs)
	var es [][2]int64
	for k := range md.edges {
		es = append(es, k)
	}
	slices.SortFunc(es, func(a, b [2]int64) int {
		if a[0] != b[0] {
			return int(a[0] - b[0])
		}
		return int(a[1] - b[1])
	})
	x := r.IntN(100)
	switch {
	case x < 4 && len(es) > 0: // invalid: a duplicate insert
		k := es[r.IntN(len(es))]
		return updates.Update{Kind: updates.InsertEdge, U: k[0], V: k[1], Line: line}
	case x < 55 && len(vs) >= 2:
		a, b := vs[r.IntN(len(vs))], vs[r.IntN(len(vs))]
		if r.IntN(20) == 0 {
			b = md.next
			md.next++
			md.labels[b] = 0
		}
		if a == b {
			return md.draw(r, line)
		}
		if _, ok := md.edges[edgeKey(a, b)]; ok {
			return md.draw(r, line)
		}
		l := uint32(r.IntN(md.el))
		md.edges[edgeKey(a, b)] = l
		return updates.Update{Kind: updates.InsertEdge, U: a, V: b, Label: l, HasLabel: true, Line: line}
	case x < 88 && len(es) > 0:
		k := es[r.IntN(len(es))]
		delete(md.edges, k)
		return updates.Update{Kind: updates.DeleteEdge, U: k[0], V: k[1], Line: line}
	case x < 95 || len(vs) == 0:
		id := md.next
		md.next++
		l := uint32(r.IntN(md.vl))
		md.labels[id] = l
		return updates.Update{Kind: updates.InsertVertex, U: id, Label: l, HasLabel: true, Line: line}
	default:
		a := vs[r.IntN(len(vs))]
		delete(md.labels, a)
		for k := range md.edges {
			if k[0] == a || k[1] == a {
				delete(md.edges, k)
			}
		}
		return updates.Update{Kind: updates.DeleteVertex, U: a, Line: line}
	}
}

// randomCase is one random graph, pattern set and stream.
type randomCase struct {
	g      func() *dynamic.Graph
	pats   []*pattern.Pattern
	stream []updates.Update
	batch  int
}

func newRandomCase(seed uint64, dense bool) randomCase {
	r := rand.New(rand.NewPCG(seed, 7))
	n := 8 + r.IntN(30)
	p := 0.1 + 0.2*r.Float64()
	if dense {
		p = 0.4 + 0.3*r.Float64()
	}
	vl, el := 1+r.IntN(3), 1+r.IntN(2)
	base := gen.RandomGraph(seed, n, p, vl, el)
	var pats []*pattern.Pattern
	for i := range 1 + r.IntN(3) {
		k := 1 + r.IntN(5)
		pats = append(pats, gen.RandomPattern(seed*31+uint64(i), k, gen.PatternOptions{
			EdgeProb: 0.3 + 0.4*r.Float64(), VertexLabels: vl, EdgeLabels: el, Wildcard: 0.2}))
	}
	md := newStreamModel(dynamic.FromGraph(base), vl, el)
	var stream []updates.Update
	for i := range 20 + r.IntN(60) {
		stream = append(stream, md.draw(r, i+1))
	}
	return randomCase{g: func() *dynamic.Graph { return dynamic.FromGraph(base) }, pats: pats, stream: stream, batch: 1 + r.IntN(25)}
}

// openBoth opens the case's graph and patterns with the CPU engine (one thread) and with open.
func openBoth(c randomCase, sem engine.Semantics, mode string, budget uint64, open opener) (ref, got csm.Matcher, closeGot func(), err error) {
	opts := csm.Options{Semantics: sem, SkipInvalid: true, Threads: 1, Mode: mode}
	if ref, err = csm.Open(c.g(), c.pats, opts); err != nil {
		return nil, nil, nil, err
	}
	if got, err = open(c.g(), c.pats, opts, budget); err != nil {
		return nil, nil, nil, err
	}
	closeGot = func() {}
	if cl, ok := got.(interface{ Close() }); ok {
		closeGot = cl.Close
	}
	return ref, got, closeGot, nil
}

// compare runs the case with the CPU engine and with open, batch by batch, and reports the
// first difference; it returns the number of matches the stream created and destroyed.
func compare(ctx context.Context, c randomCase, sem engine.Semantics, mode string, budget uint64, open opener) (uint64, error) {
	ref, got, closeGot, err := openBoth(c, sem, mode, budget, open)
	if err != nil {
		return 0, err
	}
	defer closeGot()
	var total uint64
	var want, have csm.Result
	for lo := 0; lo < len(c.stream); lo += c.batch {
		b := c.stream[lo:min(lo+c.batch, len(c.stream))]
		if err := ref.Apply(ctx, b, nil, &want); err != nil {
			return 0, fmt.Errorf("cpu: %w", err)
		}
		if err := got.Apply(ctx, b, nil, &have); err != nil {
			return 0, fmt.Errorf("gcsm: %w", err)
		}
		if !slices.Equal(want.Deltas, have.Deltas) || want.Skipped != have.Skipped {
			return 0, fmt.Errorf("batch at update %d (%d updates): cpu %v (skipped %d), gcsm %v (skipped %d)",
				lo, len(b), want.Deltas, want.Skipped, have.Deltas, have.Skipped)
		}
		for _, d := range want.Deltas {
			total += d.Created + d.Destroyed
		}
	}
	return total, nil
}

// sweep compares random cases in every convention and mode, with a large and a tiny cache; a
// third of the seeds split the searches into parts of 1 or 2 first-level entries.
func sweep(t *testing.T, seeds int, open opener) {
	ctx := context.Background()
	defer func(c int, f bool) { splitChunk, forceSpill = c, f }(splitChunk, forceSpill)
	var nonzero int
	for seed := range uint64(seeds) {
		c := newRandomCase(seed, seed%3 == 0)
		splitChunk = []int{64, 1, 2}[seed%3]
		forceSpill = seed%2 == 0 // the GPU: spill at every look in the first launches
		for ci, sem := range conventions {
			mode := modeNames[int(seed+uint64(ci))%len(modeNames)]
			budget := uint64(1 << 30)
			if seed%2 == 1 {
				budget = 200 // a list or two
			}
			if mode == "device" {
				budget = 1 << 30
			}
			n, err := compare(ctx, c, sem, mode, budget, open)
			if err != nil {
				t.Fatalf("seed %d, %v, mode %s, budget %d, patterns %v: %v", seed, sem, mode, budget, c.pats, err)
			}
			if n > 0 {
				nonzero++
			}
		}
	}
	if nonzero < seeds {
		t.Errorf("only %d of %d runs saw a match change: the sweep checks too little", nonzero, 4*seeds)
	}
}

// compareList applies the case's stream with listing to the CPU engine and to open's matcher and
// reports the first batch whose signed matches (as multisets) or counts differ; it returns the
// number of matches listed.
func compareList(ctx context.Context, c randomCase, sem engine.Semantics, mode string, budget uint64, open opener) (int, error) {
	ref, got, closeGot, err := openBoth(c, sem, mode, budget, open)
	if err != nil {
		return 0, err
	}
	defer closeGot()
	// Under --unique a match stands for its orbit under the pattern's automorphisms, and which
	// member is listed follows the dense vertex ids, which differ between two graphs when a batch
	// inserts several vertices (csm.Net applies them in map order): compare canonical members.
	var auts [][][]int
	if sem.Unique {
		for _, p := range c.pats {
			auts = append(auts, oracle.Automorphisms(p))
		}
	}
	collect := func(dst *[]string) csm.Emit {
		return func(sm csm.SignedMatch) bool {
			f := make([]uint32, len(sm.Vertices))
			for i, x := range sm.Vertices {
				f[i] = uint32(x)
			}
			if auts != nil {
				f = oracle.Canonical(auts[sm.Pattern], f)
			}
			*dst = append(*dst, fmt.Sprint(sm.Pattern, sm.Sign, f))
			return true
		}
	}
	listed := 0
	var want, have csm.Result
	for lo := 0; lo < len(c.stream); lo += c.batch {
		b := c.stream[lo:min(lo+c.batch, len(c.stream))]
		var wl, hl []string
		if err := ref.Apply(ctx, b, collect(&wl), &want); err != nil {
			return 0, fmt.Errorf("cpu: %w", err)
		}
		if err := got.Apply(ctx, b, collect(&hl), &have); err != nil {
			return 0, fmt.Errorf("gcsm: %w", err)
		}
		slices.Sort(wl)
		slices.Sort(hl)
		if !slices.Equal(want.Deltas, have.Deltas) || !slices.Equal(wl, hl) {
			return 0, fmt.Errorf("batch at update %d (%d updates): cpu %v, %d matches %.200v; gcsm %v, %d matches %.200v",
				lo, len(b), want.Deltas, len(wl), wl, have.Deltas, len(hl), hl)
		}
		listed += len(wl)
	}
	return listed, nil
}

// sweepList compares the listings of random cases in every convention, modes and budgets in
// turn (half of the seeds forcing spills on the GPU).
func sweepList(t *testing.T, seeds int, open opener) {
	ctx := context.Background()
	defer func(f bool) { forceSpill = f }(forceSpill)
	listed := 0
	for seed := range uint64(seeds) {
		c := newRandomCase(seed+1000, seed%3 == 0)
		forceSpill = seed%2 == 0
		for ci, sem := range conventions {
			mode := modeNames[int(seed+uint64(ci))%len(modeNames)]
			budget := uint64(1 << 30)
			if seed%2 == 1 && mode != "device" {
				budget = 200
			}
			n, err := compareList(ctx, c, sem, mode, budget, open)
			if err != nil {
				t.Fatalf("seed %d, %v, mode %s, budget %d, patterns %v: %v", seed, sem, mode, budget, c.pats, err)
			}
			listed += n
		}
	}
	if listed < seeds {
		t.Errorf("only %d matches listed over %d seeds: the sweep checks too little", listed, seeds)
	}
	t.Logf("%d signed matches listed, equal to the CPU engine's", listed)
}
