package csm

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/submatch/submatch/engine"
	_ "github.com/submatch/submatch/engine/cpu"
	"github.com/submatch/submatch/formats/updates"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/graph/dynamic"
	"github.com/submatch/submatch/internal/oracle"
	"github.com/submatch/submatch/internal/testenv"
	"github.com/submatch/submatch/pattern"
)

var conventions = []engine.Semantics{{}, {Unique: true}, {Induced: true}, {Induced: true, Unique: true}}

// model is the test's own view of the graph, to draw mostly valid streams.
type model struct {
	labels map[int64]uint32
	edges  map[pairKey]uint32
	nextID int64
	vl, el int
}

func newModel(g *graph.Graph, vl, el int) *model {
	md := &model{labels: map[int64]uint32{}, edges: map[pairKey]uint32{}, vl: vl, el: el}
	for v := range g.NumVertices() {
		id := g.OriginalID(uint32(v))
		md.labels[id] = g.VertexLabel(uint32(v))
		md.nextID = max(md.nextID, id+1)
		els := g.NeighborEdgeLabels(uint32(v))
		for i, w := range g.Neighbors(uint32(v)) {
			l := uint32(0)
			if els != nil {
				l = els[i]
			}
			md.edges[keyOf(id, g.OriginalID(w))] = l
		}
	}
	return md
}

func (md *model) vertices() []int64 {
	var out []int64
	for id := range md.labels {
		out = append(out, id)
	}
	slices.Sort(out)
	return out
}

// draw returns one update and whether it is valid, applying it to the model if so.
func (md *model) draw(r *rand.Rand, line int) (updates.Update, bool) {
	vs := md.vertices()
	u := updates.Update{Line: line}
	pick := func() int64 { return vs[r.IntN(len(vs))] }
	x := r.IntN(100)
	switch {
	case x < 6: // invalid
		switch r.IntN(4) {
		case 0:
			if len(md.edges) > 0 {
				for k, l := range md.edges {
					return updates.Update{Kind: updates.InsertEdge, U: k.b, V: k.a, Label: l, Line: line}, false
				}
			}
		case 1:
			if len(vs) > 0 {
				a := pick()
				return updates.Update{Kind: updates.InsertEdge, U: a, V: a, Line: line}, false
			}
		case 2:
			if len(vs) > 0 {
				a := pick()
				return updates.Update{Kind: updates.InsertVertex, U: a, Label: md.labels[a] + uint32(r.IntN(2)), HasLabel: true, Line: line}, false
			}
		}
		return updates.Update{Kind: updates.DeleteVertex, U: md.nextID + 1000, Line: line}, false
	case x < 55 && len(vs) >= 2:
		a, b := pick(), pick()
		if r.IntN(15) == 0 {
			b = md.nextID
			md.nextID++
		}
		if a == b {
			return md.draw(r, line)
		}
		if _, ok := md.edges[keyOf(a, b)]; ok {
			return updates.Update{Kind: updates.InsertEdge, U: a, V: b, Label: md.edges[keyOf(a, b)], HasLabel: true, Line: line}, false
		}
		l := uint32(r.IntN(md.el))
		if _, ok := md.labels[b]; !ok {
			md.labels[b] = 0
		}
		md.edges[keyOf(a, b)] = l
		return updates.Update{Kind: updates.InsertEdge, U: a, V: b, Label: l, HasLabel: true, Line: line}, true
	case x < 88 && len(md.edges) > 0:
		keys := make([]pairKey, 0, len(md.edges))
		for k := range md.edges {
			keys = append(keys, k)
		}
		slices.SortFunc(keys, func(p, q pairKey) int {
			if p.a != q.a {
				return int(p.a - q.a)
			}
			return int(p.b - q.b)
		})
		k := keys[r.IntN(len(keys))]
		u := updates.Update{Kind: updates.DeleteEdge, U: k.a, V: k.b, Line: line}
		if r.IntN(2) == 0 {
			u.Label, u.HasLabel = md.edges[k], true
		}
		delete(md.edges, k)
		return u, true
	case x < 95 || len(vs) == 0:
		id := md.nextID
		if r.IntN(3) == 0 && len(vs) > 0 {
			// A deleted id again (or a fresh one).
			id = md.nextID - 1 - int64(r.IntN(3))
			if _, ok := md.labels[id]; ok || id < 0 {
				id = md.nextID
			}
		}
		if id == md.nextID {
			md.nextID++
		}
		l := uint32(r.IntN(md.vl))
		md.labels[id] = l
		return updates.Update{Kind: updates.InsertVertex, U: id, Label: l, HasLabel: true, Line: line}, true
	default:
		a := pick()
		delete(md.labels, a)
		for k := range md.edges {
			if k.a == a || k.b == a {
				delete(md.edges, k)
			}
		}
		u.Kind, u.U = updates.DeleteVertex, a
		return u, true
	}
}

// matchSet is a set of matches in original ids, each orbit canonical under unique semantics.
type matchSet map[string]int

func keyOfMatch(f []int64, auts [][]int) string {
	g := make([]uint32, len(f))
	for i, x := range f {
		g[i] = uint32(x)
	}
	if auts != nil {
		g = oracle.Canonical(auts, g)
	}
	return fmt.Sprint(g)
}

// oracleSet lists the matches of g with the oracle, in original ids (ok false: too large).
func oracleSet(g *graph.Graph, p *pattern.Pattern, sem engine.Semantics, auts [][]int) (matchSet, bool) {
	list, ok := oracle.ListWithin(g, p, sem, 2e6)
	if !ok {
		return nil, false
	}
	out := matchSet{}
	f := make([]int64, p.NumVertices())
	for _, m := range list {
		for i, v := range m {
			f[i] = g.OriginalID(v)
		}
		out[keyOfMatch(f, auts)]++
	}
	return out, true
}

func minus(a, b matchSet) matchSet {
	out := matchSet{}
	for k := range a {
		if _, ok := b[k]; !ok {
			out[k] = 1
		}
	}
	return out
}

func sameSet(a, b matchSet) string {
	for k, c := range a {
		if c != 1 {
			return fmt.Sprintf("%s listed %d times", k, c)
		}
		if _, ok := b[k]; !ok {
			return fmt.Sprintf("%s extra", k)
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			return fmt.Sprintf("%s missing", k)
		}
	}
	return ""
}

// TestOracle: per batch, the signed matches equal the brute-force difference of the match sets
// before and after, and the counts (with and without listing, on one and two threads) equal
// their sizes; at the end, initial + created - destroyed equals the static engine's count.
func TestOracle(t *testing.T) {
	seeds := testenv.Sweep(60, 600)
	oracleRun(t, seeds, false)
}

// TestOracleDense is TestOracle on dense graphs and dense patterns (levels with several parents,
// deep intersections, many automorphisms).
func TestOracleDense(t *testing.T) {
	seeds := testenv.Sweep(25, 250)
	oracleRun(t, seeds, true)
}

func oracleRun(t *testing.T, seeds int, dense bool) {
	// The two-thread matcher splits every search into parts of one or two candidates and runs
	// them in parallel (the other two run on one thread).
	savedChunk, savedWake := splitChunk, wakeNodes
	splitChunk, wakeNodes = 1+int(uint(seeds)%2), 1
	t.Cleanup(func() { splitChunk, wakeNodes = savedChunk, savedWake })
	static, err := engine.Lookup("cpu")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	checked := 0
	for seed := range uint64(seeds) {
		r := rand.New(rand.NewPCG(seed, 99))
		n := 6 + r.IntN(9)
		vl, el := 1+r.IntN(3), 1+r.IntN(2)
		density := []float64{0.15, 0.3, 0.5}[r.IntN(3)]
		pn := 1 + r.IntN(6)
		comps := 1
		if r.IntN(4) == 0 {
			comps = 2
		}
		popts := gen.PatternOptions{Components: comps, EdgeProb: r.Float64() * 0.7, VertexLabels: vl, EdgeLabels: el, Wildcard: []float64{0, 0.3, 1}[r.IntN(3)]}
		if dense {
			n, vl, el, density, pn = 7+r.IntN(4), 1+r.IntN(2), 1, 0.6+0.35*r.Float64(), 4+r.IntN(3)
			popts = gen.PatternOptions{Components: 1, EdgeProb: 0.7 + 0.3*r.Float64(), VertexLabels: vl, EdgeLabels: el}
		}
		g0 := gen.RandomGraph(seed, n, density, vl, el)
		p := gen.RandomPattern(seed, pn, popts)
		sem := conventions[r.IntN(4)]
		var auts [][]int
		if sem.Unique {
			auts = oracle.Automorphisms(p)
		}
		desc := fmt.Sprintf("seed %d: n=%d pattern %s %s", seed, n, p, sem)

		ms := make([]Matcher, 3)
		for i, th := range []int{1, 1, 2} {
			ms[i], err = Open(dynamic.FromGraph(g0), []*pattern.Pattern{p}, Options{Semantics: sem, Threads: th, SkipInvalid: true})
			if err != nil {
				t.Fatal(err)
			}
		}
		md := newModel(g0, vl, el)
		initial, err := static.Count(ctx, &engine.Problem{Data: g0, Pattern: p, Semantics: sem, Threads: 1})
		if err != nil {
			t.Fatal(err)
		}
		total := int64(initial.Count)
		line := 0
		for step := 0; step < 12; step++ {
			size := []int{1, 1, 2, 5, 20}[r.IntN(5)]
			batch := make([]updates.Update, 0, size)
			invalid := 0
			for range size {
				line++
				u, ok := md.draw(r, line)
				if !ok {
					invalid++
				}
				batch = append(batch, u)
			}
			before, _ := ms[0].Graph().Snapshot()
			oldSet, ok1 := oracleSet(before, p, sem, auts)
			got := [2]matchSet{{}, {}}
			var res [3]Result
			err := ms[0].Apply(ctx, batch, func(sm SignedMatch) bool {
				got[(sm.Sign+1)/2][keyOfMatch(sm.Vertices, auts)]++
				return true
			}, &res[0])
			if err != nil {
				t.Fatalf("%s: %v", desc, err)
			}
			if step%3 == 2 {
				ms[1].Graph().Compact() // deleted vertices' ids are reused from here on
			}
			for i := 1; i < 3; i++ {
				if err := ms[i].Apply(ctx, batch, nil, &res[i]); err != nil {
					t.Fatalf("%s: %v", desc, err)
				}
				if res[i].Deltas[0] != res[0].Deltas[0] {
					t.Fatalf("%s step %d: matcher %d counts %+v, listing %+v", desc, step, i, res[i].Deltas[0], res[0].Deltas[0])
				}
			}
			if res[0].Skipped != invalid {
				t.Fatalf("%s step %d: %d skipped (%v), want %d", desc, step, res[0].Skipped, res[0].Invalid, invalid)
			}
			d := res[0].Deltas[0]
			if uint64(len(got[1])) != d.Created || uint64(len(got[0])) != d.Destroyed {
				t.Fatalf("%s: listed %d/%d, counted %+v", desc, len(got[1]), len(got[0]), d)
			}
			total += int64(d.Created) - int64(d.Destroyed)
			after, _ := ms[0].Graph().Snapshot()
			if err := ms[0].Graph().Validate(); err != nil {
				t.Fatal(err)
			}
			if newSet, ok2 := oracleSet(after, p, sem, auts); ok1 && ok2 {
				checked++
				if msg := sameSet(got[1], minus(newSet, oldSet)); msg != "" {
					t.Fatalf("%s step %d batch %v: created: %s", desc, step, batch, msg)
				}
				if msg := sameSet(got[0], minus(oldSet, newSet)); msg != "" {
					t.Fatalf("%s step %d batch %v: destroyed: %s", desc, step, batch, msg)
				}
			}
			if step%4 == 3 {
				want, err := static.Count(ctx, &engine.Problem{Data: after, Pattern: p, Semantics: sem, Threads: 1})
				if err != nil {
					t.Fatal(err)
				}
				if int64(want.Count) != total {
					t.Fatalf("%s step %d: initial+created-destroyed = %d, static count %d", desc, step, total, want.Count)
				}
			}
		}
	}
	if checked < seeds*4 {
		t.Fatalf("only %d batches checked against the oracle", checked)
	}
}

func TestInvalidError(t *testing.T) {
	g := dynamic.New()
	p, err := pattern.Parse("(a)-(b)")
	if err != nil {
		t.Fatal(err)
	}
	m, err := Open(g, []*pattern.Pattern{p}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var res Result
	ctx := context.Background()
	if err := m.Apply(ctx, []updates.Update{{Kind: updates.InsertEdge, U: 1, V: 2, Line: 1}}, nil, &res); err != nil {
		t.Fatal(err)
	}
	if res.Deltas[0] != (Delta{Created: 2}) {
		t.Fatalf("edge a-b: %+v, want 2 embeddings created", res.Deltas[0])
	}
	for _, c := range []struct {
		u    updates.Update
		want string
	}{
		{updates.Update{Kind: updates.InsertEdge, U: 2, V: 1, Line: 7}, "line 7: invalid update `e 2 1 0`: the edge is already present"},
		{updates.Update{Kind: updates.InsertEdge, U: 2, V: 1, Label: 3, HasLabel: true, Line: 8}, "a second label"},
		{updates.Update{Kind: updates.DeleteEdge, U: 3, V: 1, Line: 9}, "no such edge"},
		{updates.Update{Kind: updates.InsertEdge, U: 3, V: 3, Line: 10}, "self-loop"},
		{updates.Update{Kind: updates.DeleteVertex, U: 5, Line: 11}, "no such vertex"},
		{updates.Update{Kind: updates.InsertVertex, U: 1, Label: 4, Line: 12}, "a second label"},
	} {
		err := m.Apply(ctx, []updates.Update{c.u}, nil, &res)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want %q", c.u, err, c.want)
		}
	}
	if g.NumEdges() != 1 || g.NumVertices() != 2 {
		t.Fatalf("invalid updates changed the graph: %d vertices, %d edges", g.NumVertices(), g.NumEdges())
	}
}

func TestCancelled(t *testing.T) {
	g := dynamic.FromGraph(gen.RandomGraph(1, 50, 0.2, 1, 1))
	p, err := pattern.Parse("(a)-(b)-(c)")
	if err != nil {
		t.Fatal(err)
	}
	m, err := Open(g, []*pattern.Pattern{p}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	edges := g.NumEdges()
	var res Result
	err = m.Apply(ctx, []updates.Update{{Kind: updates.DeleteEdge, U: g.OriginalID(0), V: g.OriginalID(g.Runs(0)[0].Neighbors[0])}}, nil, &res)
	if !errors.Is(err, context.Canceled) || g.NumEdges() != edges {
		t.Fatalf("cancelled batch: %v, %d edges (had %d)", err, g.NumEdges(), edges)
	}
}

func TestNet(t *testing.T) {
	g := dynamic.FromGraph(labelledEdges(t, [][3]int64{{1, 2, 0}, {2, 3, 0}}))
	n := NewNet(g)
	var res Result
	batch := []updates.Update{
		{Kind: updates.InsertEdge, U: 1, V: 3, Line: 1},
		{Kind: updates.DeleteEdge, U: 3, V: 1, Line: 2}, // no net change with line 1
		{Kind: updates.DeleteVertex, U: 2, Line: 3},     // 1-2 and 2-3 go with it
		{Kind: updates.InsertVertex, U: 2, Label: 4, Line: 4},
		{Kind: updates.InsertEdge, U: 2, V: 3, Line: 5}, // back, but its vertex changed label
		{Kind: updates.InsertEdge, U: 2, V: 3, Line: 6}, // invalid: present
	}
	if err := n.Compute(batch, false, &res); err == nil || !strings.Contains(err.Error(), "line 6") {
		t.Fatalf("invalid line 6: %v", err)
	}
	if err := n.Compute(batch, true, &res); err != nil {
		t.Fatal(err)
	}
	if res.Applied != 5 || res.Skipped != 1 || len(n.Vertices) != 1 || len(n.Pairs) != 2 {
		t.Fatalf("applied %d skipped %d, %d vertex and %d pair changes: %+v %+v", res.Applied, res.Skipped, len(n.Vertices), len(n.Pairs), n.Vertices, n.Pairs)
	}
	if v := n.Vertices[0]; v.ID != 2 || v.Old != (VertexState{Alive: true}) || v.New != (VertexState{Alive: true, Label: 4}) {
		t.Fatalf("vertex change %+v", v)
	}
	if err := n.Apply(); err != nil {
		t.Fatal(err)
	}
	two, _ := g.Lookup(2)
	if g.NumEdges() != 1 || g.Label(two) != 4 {
		t.Fatalf("after Apply: %d edges, label %d", g.NumEdges(), g.Label(two))
	}
}

// TestTwinTails: patterns whose searches end in twin levels (same exact label, same parents),
// counted as falling factorials, give the counts of listing every match and, at the end, the
// static engine's count, on random streams.
func TestTwinTails(t *testing.T) {
	pats := []string{
		"(a:0)-[:0]-(b:1), (a)-[:0]-(c:1), (a)-[:0]-(d:1)",                              // a star: three twins
		"(a:0)-[:0]-(b:0)-[:0]-(c:0)-[:0]-(d:1)-[:0]-(e:1), (d)-[:0]-(f:1)",             // the benchmark's 6-vertex tree
		"(a:0)-[:0]-(b:1)-[:0]-(c:0), (b)-[:0]-(d:0), (a)-[:0]-(e:1)",                   // twins of the inner vertex
		"(a:0)-[:0]-(b:0), (a)-[:0]-(c:0), (b)-[:0]-(d:0), (b)-[:0]-(e:0)",              // one label: twins among colliding levels
		"(a:0)-[:0]-(x:1)-[:0]-(b:0), (a)-[:0]-(y:1)-[:0]-(b), (a)-[:0]-(z:1)-[:0]-(b)", // twins with two parents
		"(a:0)-[:1]-(b:1), (a)-[:1]-(c:1), (a)-[:0]-(d:1)",                              // same vertex label, other edge label
	}
	checkTails(t, pats, 2, 16, 1) // embeddings or unique (induced has no twins)
}

// TestSumTails: patterns whose searches end in a level summed from its parent's runs (a path's
// or a tree's last edge: term.sumLevel), in every convention, on one and two threads, counted
// as listed and against the static count; the summed path must have counted something.
func TestSumTails(t *testing.T) {
	pats := []string{
		"(a:0)-[:0]-(b:0)-[:0]-(c:0)-[:0]-(d:1)-[:0]-(e:1)",                      // the benchmark's Q_3
		"(a:0)-[:0]-(b:1)-[:0]-(c:0)",                                            // a 3-vertex path, colliding ends
		"(a:0)-[:0]-(b:1)-[:0]-(c:2)-[:0]-(d:0)",                                 // distinct labels
		"(a:0)-[:0]-(b:0)-[:0]-(c:0)-[:0]-(d:0)-[:0]-(e:1)-[:0]-(f:1)",           // P6
		"(a:0)-[:1]-(b:1)-[:0]-(c:1), (b)-[:0]-(d:0), (d)-[:1]-(e:1)",            // a tree with edge labels
		"(a:0)-[:0]-(b:1)-[:0]-(c:0)-[:0]-(a), (c)-[:0]-(d:1)-[:0]-(e:0)",        // a triangle with a tail
		"(a:1)-[:0]-(b:0)-[:0]-(c:0)-[:0]-(d:0), (b)-[:0]-(e:1), (c)-[:0]-(f:1)", // two branches
	}
	if n := checkTails(t, pats, 4, 24, 2); n == 0 {
		t.Fatal("no search was counted by a sum")
	}
}

// checkTails streams random batches over random graphs for each pattern, in one of the first
// convs conventions, counting on threads workers and listing on one, checking every batch's
// counts against the listing and the final total against the static engine. It returns how
// many searches counted a nonzero sum (sumTail).
func checkTails(t *testing.T, pats []string, convs int, seeds uint64, threads int) uint64 {
	t.Helper()
	static, err := engine.Lookup("cpu")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var sums uint64
	for seed := range seeds {
		r := rand.New(rand.NewPCG(seed, 7))
		g0 := gen.RandomGraph(seed, 8+r.IntN(8), 0.3+0.3*r.Float64(), 2, 2)
		for _, ps := range pats {
			p, err := pattern.Parse(ps)
			if err != nil {
				t.Fatal(err)
			}
			sem := conventions[r.IntN(convs)]
			count, err := Open(dynamic.FromGraph(g0), []*pattern.Pattern{p}, Options{Semantics: sem, Threads: threads, SkipInvalid: true})
			if err != nil {
				t.Fatal(err)
			}
			list, _ := Open(dynamic.FromGraph(g0), []*pattern.Pattern{p}, Options{Semantics: sem, Threads: 1, SkipInvalid: true})
			initial, err := static.Count(ctx, &engine.Problem{Data: g0, Pattern: p, Semantics: sem, Threads: 1})
			if err != nil {
				t.Fatal(err)
			}
			total := int64(initial.Count)
			md := newModel(g0, 2, 2)
			for step := range 10 {
				batch := make([]updates.Update, []int{1, 2, 3, 8}[r.IntN(4)])
				for i := range batch {
					batch[i], _ = md.draw(r, step*4+i+1)
				}
				var rc, rl Result
				if err := count.Apply(ctx, batch, nil, &rc); err != nil {
					t.Fatal(err)
				}
				if err := list.Apply(ctx, batch, func(SignedMatch) bool { return true }, &rl); err != nil {
					t.Fatal(err)
				}
				if rc.Deltas[0] != rl.Deltas[0] {
					t.Fatalf("seed %d %s %s step %d: counted %+v, listed %+v", seed, ps, sem, step, rc.Deltas[0], rl.Deltas[0])
				}
				total += int64(rc.Deltas[0].Created) - int64(rc.Deltas[0].Destroyed)
			}
			after, _ := count.Graph().Snapshot()
			want, err := static.Count(ctx, &engine.Problem{Data: after, Pattern: p, Semantics: sem, Threads: 1})
			if err != nil {
				t.Fatal(err)
			}
			if int64(want.Count) != total {
				t.Fatalf("seed %d %s %s: initial+created-destroyed = %d, static %d", seed, ps, sem, total, want.Count)
			}
			for _, w := range count.(*cpuMatcher).workers {
				sums += w.sums
			}
		}
	}
	return sums
}

// TestTwinsInBatch: a star's twin leaves with different other-graph checks (the anchor pair's
// index falls between theirs), in a batch that inserts two edges at the centre: counted as
// listed.
func TestTwinsInBatch(t *testing.T) {
	b := graph.NewBuilder(graph.BuilderOptions{})
	for v := range int64(7) {
		l := uint32(1)
		if v == 0 {
			l = 0
		}
		if err := b.SetVertexLabel(v, l); err != nil {
			t.Fatal(err)
		}
	}
	for _, w := range []int64{1, 2, 5} {
		if err := b.AddEdge(0, w, 0); err != nil {
			t.Fatal(err)
		}
	}
	g0, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	p, err := pattern.Parse("(a:0)-[:0]-(b:1), (a)-[:0]-(c:1), (a)-[:0]-(d:1)")
	if err != nil {
		t.Fatal(err)
	}
	batch := []updates.Update{{Kind: updates.InsertEdge, U: 0, V: 3}, {Kind: updates.InsertEdge, U: 0, V: 4}, {Kind: updates.DeleteEdge, U: 0, V: 5}}
	var rc, rl Result
	count, _ := Open(dynamic.FromGraph(g0), []*pattern.Pattern{p}, Options{Threads: 1})
	list, _ := Open(dynamic.FromGraph(g0), []*pattern.Pattern{p}, Options{Threads: 1})
	if err := count.Apply(context.Background(), batch, nil, &rc); err != nil {
		t.Fatal(err)
	}
	if err := list.Apply(context.Background(), batch, func(SignedMatch) bool { return true }, &rl); err != nil {
		t.Fatal(err)
	}
	// Before: 3 leaves, 3! = 6 embeddings; after: leaves 1-4, 4*3*2 = 24.
	if rc.Deltas[0] != rl.Deltas[0] || int64(rc.Deltas[0].Created)-int64(rc.Deltas[0].Destroyed) != 24-6 {
		t.Fatalf("counted %+v, listed %+v, want a net change of 18", rc.Deltas[0], rl.Deltas[0])
	}
}

// TestRestrict: a Net over one copy of the graph validates and applies each batch (Compute and
// Apply, or ComputeApply), and a
// ChangeApplier over a copy that holds only the edges its patterns' labels admit applies the
// Restricted change: the deltas and the listed matches equal those of a matcher over the whole
// graph, in every convention, with vertex insertions and deletions and invalid updates.
func TestRestrict(t *testing.T) {
	ctx := context.Background()
	pats := []string{
		"(a:0)-[:0]-(b:0)-[:0]-(c:1)", "(a:1)-[:1]-(b:1), (b)-[:0]-(c:2)-[:0]-(a)", "(a:2)-[:0]-(b:0)-[:0]-(c:2)-[:0]-(d:0)-[:0]-(a)",
		"(a:0)-[:0]-(b:2), (c:1)", // a second component
	}
	for seed := range uint64(24) {
		r := rand.New(rand.NewPCG(seed, 11))
		g0 := gen.RandomGraph(seed, 10+r.IntN(8), 0.3+0.2*r.Float64(), 3, 2)
		var ps []*pattern.Pattern
		for _, s := range pats[:1+r.IntN(len(pats))] {
			p, err := pattern.Parse(s)
			if err != nil {
				t.Fatal(err)
			}
			ps = append(ps, p)
		}
		sem := conventions[r.IntN(4)]
		opts := Options{Semantics: sem, Threads: 1, SkipInvalid: true}
		whole, err := Open(dynamic.FromGraph(g0), ps, opts)
		if err != nil {
			t.Fatal(err)
		}
		probe, _ := Open(dynamic.FromGraph(g0), ps, opts)
		relevant, ok := probe.(ChangeApplier).Relevant()
		if !ok {
			t.Fatal("exact labels: no filter")
		}
		g := dynamic.FromGraph(g0)
		net := NewNet(g)
		m, err := Open(g.Filtered(relevant), ps, opts)
		if err != nil {
			t.Fatal(err)
		}
		if m.Graph().NumEdges() >= g.NumEdges() && g.NumEdges() > 0 && seed < 4 {
			t.Logf("seed %d: the filter kept every edge", seed)
		}
		md := newModel(g0, 3, 2)
		var vs []VertexChange
		var pcs []PairChange
		for step := range 30 {
			batch := make([]updates.Update, []int{1, 1, 2, 5}[r.IntN(4)])
			for i := range batch {
				batch[i], _ = md.draw(r, step*8+i+1)
			}
			var want, got Result
			var wantM, gotM []string
			list := func(out *[]string) Emit {
				return func(sm SignedMatch) bool {
					*out = append(*out, fmt.Sprint(sm.Pattern, sm.Sign, sm.Vertices))
					return true
				}
			}
			if err := whole.Apply(ctx, batch, list(&wantM), &want); err != nil {
				t.Fatal(err)
			}
			if r.IntN(2) == 0 {
				if err := net.Compute(batch, true, &got); err != nil {
					t.Fatal(err)
				}
				vs, pcs = net.Restrict(relevant, vs[:0], pcs[:0])
				if err := net.Apply(); err != nil {
					t.Fatal(err)
				}
			} else {
				if err := net.ComputeApply(batch, true, &got); err != nil {
					t.Fatal(err)
				}
				vs, pcs = net.Restrict(relevant, vs[:0], pcs[:0])
			}
			net.Reset()
			if err := m.(ChangeApplier).ApplyChange(ctx, vs, pcs, list(&gotM), &got); err != nil {
				t.Fatalf("seed %d step %d %v: %v", seed, step, batch, err)
			}
			slices.Sort(wantM)
			slices.Sort(gotM)
			if !slices.Equal(want.Deltas, got.Deltas) || !slices.Equal(wantM, gotM) || want.Skipped != got.Skipped || want.Applied != got.Applied {
				t.Fatalf("seed %d %s step %d %v: restricted %+v skipped %d, whole %+v skipped %d\n%v\n%v", seed, sem, step, batch, got.Deltas, got.Skipped, want.Deltas, want.Skipped, gotM, wantM)
			}
		}
		if err := m.Graph().Validate(); err != nil {
			t.Fatal(err)
		}
		if g.NumEdges() != whole.Graph().NumEdges() || g.NumVertices() != whole.Graph().NumVertices() {
			t.Fatalf("seed %d: the Net's graph has %d vertices %d edges, the whole matcher's %d %d", seed,
				g.NumVertices(), g.NumEdges(), whole.Graph().NumVertices(), whole.Graph().NumEdges())
		}
	}
}

// TestComputeApplyInvalid: ComputeApply refuses (or skips) an invalid single edge update as
// Compute does, with its reason, and leaves the graph as it was, a deletion naming another label
// included.
func TestComputeApplyInvalid(t *testing.T) {
	g := dynamic.FromGraph(labelledEdges(t, [][3]int64{{1, 2, 1}, {2, 3, 0}}))
	net := NewNet(g)
	for _, u := range []updates.Update{
		{Kind: updates.DeleteEdge, U: 1, V: 2, Label: 0, HasLabel: true},
		{Kind: updates.InsertEdge, U: 3, V: 2},
		{Kind: updates.InsertEdge, U: 2, V: 1, Label: 5},
		{Kind: updates.InsertEdge, U: 2, V: 1, Label: 1},
		{Kind: updates.DeleteEdge, U: 1, V: 3},
		{Kind: updates.InsertEdge, U: 2, V: 2},
	} {
		var res Result
		err := net.ComputeApply([]updates.Update{u}, false, &res)
		if !errors.As(err, new(*InvalidError)) {
			t.Fatalf("%v: %v, want an invalid update", u, err)
		}
		if want := NewNet(g).Compute([]updates.Update{u}, false, &res); want == nil || err.Error() != want.Error() {
			t.Fatalf("%v: %v, Compute says %v", u, err, want)
		}
		if err := net.ComputeApply([]updates.Update{u}, true, &res); err != nil || res.Skipped != 1 || res.Applied != 0 {
			t.Fatalf("%v skipped: %v, %+v", u, err, res)
		}
		x, _ := g.Lookup(1)
		y, _ := g.Lookup(2)
		if l, ok := g.EdgeLabel(x, y); !ok || l != 1 || g.NumEdges() != 2 {
			t.Fatalf("%v: the graph changed (1-2 %v label %d, %d edges)", u, ok, l, g.NumEdges())
		}
		if err := g.Validate(); err != nil {
			t.Fatal(err)
		}
	}
}

// labelledEdges builds a graph of the edges (u, v, label), vertices labelled 0.
func labelledEdges(t *testing.T, edges [][3]int64) *graph.Graph {
	t.Helper()
	b := graph.NewBuilder(graph.BuilderOptions{})
	for _, e := range edges {
		if err := b.AddEdge(e[0], e[1], uint32(e[2])); err != nil {
			t.Fatal(err)
		}
	}
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestNetSorted: a net change lists its vertices by id and its pairs by (U, V), whatever the
// maps' order, so new vertices get the same dense ids on every run.
func TestNetSorted(t *testing.T) {
	for range 20 {
		g := dynamic.FromGraph(labelledEdges(t, [][3]int64{{1, 2, 0}}))
		n := NewNet(g)
		var batch []updates.Update
		for id := int64(40); id > 10; id-- {
			batch = append(batch, updates.Update{Kind: updates.InsertVertex, U: id, Label: 1, Line: int(41 - id)})
		}
		for id := int64(40); id > 11; id-- {
			batch = append(batch, updates.Update{Kind: updates.InsertEdge, U: id, V: id - 1, Line: len(batch) + 1})
		}
		var res Result
		if err := n.Compute(batch, false, &res); err != nil {
			t.Fatal(err)
		}
		if len(n.Vertices) != 30 || len(n.Pairs) != 29 {
			t.Fatalf("%d vertices, %d pairs, want 30 and 29", len(n.Vertices), len(n.Pairs))
		}
		for i := 1; i < len(n.Vertices); i++ {
			if n.Vertices[i-1].ID >= n.Vertices[i].ID {
				t.Fatalf("vertices out of order at %d: %d then %d", i, n.Vertices[i-1].ID, n.Vertices[i].ID)
			}
		}
		for i := 1; i < len(n.Pairs); i++ {
			a, b := n.Pairs[i-1], n.Pairs[i]
			if a.U > b.U || (a.U == b.U && a.V >= b.V) {
				t.Fatalf("pairs out of order at %d: %v then %v", i, a, b)
			}
		}
	}
}
