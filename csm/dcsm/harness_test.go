package dcsm

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/submatch/submatch/csm"
	"github.com/submatch/submatch/csm/internal/csmtest"
	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/formats/updates"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/graph/dynamic"
	"github.com/submatch/submatch/pattern"
)

var conventions = csmtest.Conventions

// opener opens a DCSM matcher under test (emulated or on the GPU).
type opener func(g *dynamic.Graph, pats []*pattern.Pattern, opts csm.Options) (*Matcher, error)

func openEmu(g *dynamic.Graph, pats []*pattern.Pattern, opts csm.Options) (*Matcher, error) {
	return OpenEmulated(g, pats, opts)
}

// randomStream draws updates over g's vertices that stress the versions: edges deleted and
// inserted again (often within one wave, with another label), vertices deleted with their edges
// and added again under the same id with another label, edges to new vertices, and invalid
// updates: edges inserted twice (with the same label or another), deletions of missing edges,
// deletions naming another label, self-loops, edges of deleted vertices.
func randomStream(r *rand.Rand, g *dynamic.Graph, n, vl, el int) []updates.Update {
	ids := []int64{}
	for _, v := range g.Vertices() {
		ids = append(ids, g.OriginalID(v))
	}
	slices.Sort(ids)
	next := int64(1000)
	var out []updates.Update
	var recent []updates.Update // deleted edges, to insert again
	alive := map[int64]bool{}
	for _, id := range ids {
		alive[id] = true
	}
	pick := func() int64 { return ids[r.IntN(len(ids))] }
	for len(out) < n {
		line := len(out) + 1
		switch x := r.IntN(100); {
		case x < 40:
			a, b := pick(), pick()
			if r.IntN(15) == 0 {
				b = next
				next++
				ids = append(ids, b)
				alive[b] = true
			}
			if a == b && r.IntN(4) != 0 {
				continue // a few self-loops are left in
			}
			out = append(out, updates.Update{Kind: updates.InsertEdge, U: a, V: b, Label: uint32(r.IntN(el)), HasLabel: true, Line: line})
		case x < 55 && len(recent) > 0:
			u := recent[r.IntN(len(recent))]
			u.Kind, u.Label, u.HasLabel, u.Line = updates.InsertEdge, uint32(r.IntN(el)), true, line
			out = append(out, u)
		case x < 85:
			// delete an edge that probably exists: one of a vertex's neighbours in the final
			// graph is unknown here, so draw among the stream's own inserts and the initial edges
			a, b := pick(), pick()
			if k := len(out); k > 0 && r.IntN(2) == 0 {
				if p := out[r.IntN(k)]; p.Kind == updates.InsertEdge {
					a, b = p.U, p.V
				}
			} else if v, ok := g.Lookup(a); ok && g.Degree(v) > 0 {
				rs := g.Runs(v)
				ru := rs[r.IntN(len(rs))]
				b = g.OriginalID(ru.Neighbors[r.IntN(len(ru.Neighbors))])
			}
			if a == b && r.IntN(4) != 0 {
				continue
			}
			u := updates.Update{Kind: updates.DeleteEdge, U: a, V: b, Line: line}
			if r.IntN(5) == 0 { // names a label: the edge's, or another
				u.Label, u.HasLabel = uint32(r.IntN(el)), true
			}
			out = append(out, u)
			recent = append(recent, u)
		case x < 92:
			a := pick()
			if alive[a] {
				out = append(out, updates.Update{Kind: updates.DeleteVertex, U: a, Line: line})
				alive[a] = false
			} else {
				out = append(out, updates.Update{Kind: updates.InsertVertex, U: a, Label: uint32(r.IntN(vl)), HasLabel: true, Line: line})
				alive[a] = true
			}
		default:
			id := next
			next++
			ids = append(ids, id)
			alive[id] = true
			out = append(out, updates.Update{Kind: updates.InsertVertex, U: id, Label: uint32(r.IntN(vl)), HasLabel: true, Line: line})
		}
	}
	return out
}

// randomCase is one random graph, pattern set and stream.
type randomCase struct {
	g      func() *dynamic.Graph
	pats   []*pattern.Pattern
	stream []updates.Update
	wave   int
	bytes  uint64 // the bound on a wave's search records (0: the default)
	pipe   int    // > 0: validation on its own goroutine, in chunks of pipe updates
	early  int    // > 0: waves launched before they are full from early updates on (Matcher.early), the backend idle or not at random
	strict bool   // invalid updates fail the call (no SkipInvalid); the stream goes on after them
}

func newRandomCase(seed uint64) randomCase {
	r := rand.New(rand.NewPCG(seed, 20))
	n := 8 + r.IntN(25)
	p := 0.15 + 0.45*r.Float64()
	vl, el := 1+r.IntN(3), 1+r.IntN(2)
	base := gen.RandomGraph(seed, n, p, vl, el)
	var pats []*pattern.Pattern
	for i := range 1 + r.IntN(3) {
		k := 1 + r.IntN(5)
		pats = append(pats, gen.RandomPattern(seed*31+uint64(i), k, gen.PatternOptions{
			EdgeProb: 0.3 + 0.4*r.Float64(), VertexLabels: vl, EdgeLabels: el, Wildcard: 0.2}))
	}
	stream := randomStream(r, dynamic.FromGraph(base), 30+r.IntN(90), vl, el)
	return randomCase{g: func() *dynamic.Graph { return dynamic.FromGraph(base) }, pats: pats, stream: stream,
		wave: []int{1, 2, 5, 17, DefaultWave}[r.IntN(5)], bytes: []uint64{0, 0, 1, 4 * taskWords * 3}[r.IntN(4)],
		pipe: []int{0, 1, 2, 7, pipeChunkLen}[r.IntN(5)], strict: r.IntN(4) == 0, early: []int{0, 0, 1, 3, 8}[r.IntN(5)]}
}

// shape gives m the case's wave bounds and validation goroutine.
func (c randomCase) shape(m *Matcher) {
	m.maxWave = c.wave
	if c.bytes > 0 {
		m.waveBytes = c.bytes
	}
	if c.early > 0 {
		m.minWave, m.idleStep = c.early, 1
		m.be = &randomIdle{backend: m.be, r: rand.New(rand.NewPCG(uint64(c.early), uint64(len(c.stream))))}
	}
	if c.pipe > 0 {
		// and every call's host graph update on a goroutine of its own
		m.pipeMin, m.pipeLen, m.opts.Threads, m.ed.asyncMin = 1, c.pipe, 2, 1
	} else {
		m.ed.asyncMin, m.ed.inlineMax = 1, c.wave // with one thread: the log applied in the call
	}
}

// randomIdle is a backend that says at random whether a wave has finished (Matcher.early then
// launches waves of any size from minWave on; a wave said finished that is not is waited for).
type randomIdle struct {
	backend
	r *rand.Rand
}

func (b *randomIdle) idle(w *wave) bool { return b.r.IntN(2) == 0 && b.backend.idle(w) }

// refRun is the CPU engine's run of a stream: every update, its delta, whether it was skipped
// (invalid), and the graph after the stream.
type refRun struct {
	us      []updates.Update
	ds      [][]csm.Delta
	skipped []bool
	g       *dynamic.Graph
}

// reference applies the stream with the CPU engine (skipping invalid updates), one update at a
// time (a vertex deletion after its edges', as watch --batch 1 does).
func reference(ctx context.Context, c randomCase, opts csm.Options) (refRun, error) {
	opts.SkipInvalid = true
	var run refRun
	ref, err := csm.Open(c.g(), c.pats, opts)
	if err != nil {
		return run, err
	}
	var res csm.Result
	one := func(u updates.Update) error {
		if err := ref.Apply(ctx, []updates.Update{u}, nil, &res); err != nil {
			return err
		}
		run.us = append(run.us, u)
		run.ds = append(run.ds, slices.Clone(res.Deltas))
		run.skipped = append(run.skipped, res.Skipped > 0)
		return nil
	}
	if err := perUpdate(ref, c.stream, one); err != nil {
		return run, err
	}
	run.g = ref.Graph()
	return run, nil
}

// sameGraph reports the first difference between two graphs by original ids: a vertex, its
// label, an edge or its label.
func sameGraph(got, want *dynamic.Graph) error {
	if got.NumVertices() != want.NumVertices() || got.NumEdges() != want.NumEdges() {
		return fmt.Errorf("graph: %d vertices and %d edges, want %d and %d", got.NumVertices(), got.NumEdges(), want.NumVertices(), want.NumEdges())
	}
	for _, v := range want.Vertices() {
		id := want.OriginalID(v)
		w, ok := got.Lookup(id)
		if !ok || got.Label(w) != want.Label(v) || got.Degree(w) != want.Degree(v) {
			return fmt.Errorf("graph: vertex %d differs (present %t)", id, ok)
		}
		for _, r := range want.Runs(v) {
			for _, x := range r.Neighbors {
				y, ok := got.Lookup(want.OriginalID(x))
				if l, has := got.EdgeLabel(w, y); !ok || !has || l != r.EdgeLabel {
					return fmt.Errorf("graph: edge %d-%d (label %d) differs", id, want.OriginalID(x), r.EdgeLabel)
				}
			}
		}
	}
	return nil
}

// perUpdate calls one with every update of stream as watch --batch 1 applies them: a vertex
// deletion after the deletions of its edges in ref's graph (one applies each to ref).
func perUpdate(ref csm.Matcher, stream []updates.Update, one func(updates.Update) error) error {
	for _, u := range stream {
		if u.Kind == updates.DeleteVertex {
			for _, e := range csm.IncidentDeletions(ref.Graph(), u, nil) {
				if err := one(e); err != nil {
					return err
				}
			}
		}
		if err := one(u); err != nil {
			return err
		}
	}
	return nil
}

// compare runs the case on the CPU engine and with open, and reports the first difference (the
// per-update results, then the graphs after the stream); it returns the number of matches the
// stream created and destroyed. A strict case applies the stream without SkipInvalid: each
// invalid update fails its call, and the stream goes on from the update after it.
func compare(ctx context.Context, c randomCase, sem engine.Semantics, open opener) (uint64, error) {
	opts := csm.Options{Semantics: sem, SkipInvalid: !c.strict, Threads: 1}
	ref, err := reference(ctx, c, opts)
	if err != nil {
		return 0, fmt.Errorf("cpu: %w", err)
	}
	m, err := open(c.g(), c.pats, opts)
	if err != nil {
		return 0, err
	}
	defer m.Close()
	c.shape(m)
	var total uint64
	k := 0
	report := func(u updates.Update, res *csm.Result) error {
		for c.strict && k < len(ref.us) && ref.skipped[k] {
			k++ // an invalid update: its call failed, nothing reported
		}
		if k >= len(ref.us) {
			return fmt.Errorf("update %d (%s) reported beyond the reference's %d", k, u, len(ref.us))
		}
		if u != ref.us[k] || !slices.Equal(res.Deltas, ref.ds[k]) || (res.Skipped > 0) != ref.skipped[k] {
			return fmt.Errorf("update %d, line %d: cpu `%s` %v (skipped %t), dcsm `%s` %v (skipped %d)", k, u.Line, ref.us[k], ref.ds[k], ref.skipped[k], u, res.Deltas, res.Skipped)
		}
		for _, d := range res.Deltas {
			total += d.Created + d.Destroyed
		}
		k++
		return nil
	}
	for rest := c.stream; len(rest) > 0; {
		err := m.ApplyEach(ctx, rest, report)
		var ie *csm.InvalidError
		if err == nil || !c.strict || !errors.As(err, &ie) {
			if err != nil {
				return 0, err
			}
			break
		}
		i := slices.IndexFunc(rest, func(u updates.Update) bool { return u.Line == ie.Update.Line })
		if i < 0 {
			return 0, fmt.Errorf("the invalid update %s is not in the stream", ie.Update)
		}
		rest = rest[i+1:]
	}
	for c.strict && k < len(ref.us) && ref.skipped[k] {
		k++
	}
	if k != len(ref.us) {
		return 0, fmt.Errorf("%d updates reported, the reference %d", k, len(ref.us))
	}
	if err := sameGraph(m.Graph(), ref.g); err != nil {
		return 0, err
	}
	return total, nil
}

// usable keeps the patterns the engine takes (connected ones).
func usable(pats []*pattern.Pattern) []*pattern.Pattern {
	var out []*pattern.Pattern
	for _, p := range pats {
		if _, err := lower([]*pattern.Pattern{p}, engine.Semantics{}); err == nil {
			out = append(out, p)
		}
	}
	return out
}

// sweep compares random cases in every convention; three quarters of the seeds split the
// searches into parts of 1, 2 or 3 source entries.
func sweep(t *testing.T, seeds int, open opener) {
	ctx := context.Background()
	defer func(c uint32) { splitChunk = c }(splitChunk)
	var nonzero, runs int
	for seed := range uint64(seeds) {
		c := newRandomCase(seed)
		splitChunk = []uint32{64, 1, 2, 3}[seed%4]
		if c.pats = usable(c.pats); len(c.pats) == 0 {
			continue
		}
		for _, sem := range conventions {
			n, err := compare(ctx, c, sem, open)
			if err != nil {
				t.Fatalf("seed %d, %v, wave %d (%d bytes), split %d, pipe %d, patterns %v: %v", seed, sem, c.wave, c.bytes, splitChunk, c.pipe, c.pats, err)
			}
			runs++
			if n > 0 {
				nonzero++
			}
		}
	}
	t.Logf("%d runs, %d saw a match change", runs, nonzero)
	if nonzero < runs/2 {
		t.Errorf("only %d of %d runs saw a match change: the sweep checks too little", nonzero, runs)
	}
}
