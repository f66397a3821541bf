package graph

import (
	"errors"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

type edge struct {
	u, v  int64
	label uint32
}

func build(t *testing.T, labels map[int64]uint32, edges []edge) *Graph {
	t.Helper()
	b := NewBuilder(BuilderOptions{})
	for id, l := range labels {
		if err := b.SetVertexLabel(id, l); err != nil {
			t.Fatal(err)
		}
	}
	for _, e := range edges {
		if err := b.AddEdge(e.u, e.v, e.label); err != nil {
			t.Fatal(err)
		}
	}
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
	return g
}

func denseOf(g *Graph, orig int64) uint32 {
	for v := 0; v < g.NumVertices(); v++ {
		if g.OriginalID(uint32(v)) == orig {
			return uint32(v)
		}
	}
	panic("no such vertex")
}

func TestBuilderMergesDuplicatesAndKeepsIDs(t *testing.T) {
	g := build(t, map[int64]uint32{100: 1, -7: 2, 5: 1},
		[]edge{{100, -7, 3}, {-7, 100, 3}, {100, 5, 0}, {5, -7, 3}, {100, 5, 0}})
	if g.NumVertices() != 3 || g.NumEdges() != 3 {
		t.Fatalf("got %d vertices %d edges, want 3 and 3", g.NumVertices(), g.NumEdges())
	}
	a, b, c := denseOf(g, 100), denseOf(g, -7), denseOf(g, 5)
	if l, ok := g.HasEdge(a, b); !ok || l != 3 {
		t.Errorf("HasEdge(100,-7) = %d,%v want 3,true", l, ok)
	}
	if !g.HasEdgeLabelled(c, a, 0) || g.HasEdgeLabelled(c, a, 3) {
		t.Error("edge 5-100 labels wrong")
	}
	if got := g.NeighborsWith(a, 2, 3); !slices.Equal(got, []uint32{b}) {
		t.Errorf("NeighborsWith(100, vl 2, el 3) = %v", got)
	}
	if got := g.NeighborsWith(a, 2, 0); len(got) != 0 {
		t.Errorf("NeighborsWith(100, vl 2, el 0) = %v, want none", got)
	}
	if g.VertexLabel(b) != 2 {
		t.Errorf("label of -7 = %d", g.VertexLabel(b))
	}
}

func TestBuilderRejectsBadInput(t *testing.T) {
	b := NewBuilder(BuilderOptions{})
	if err := b.AddEdge(1, 1, 0); !errors.Is(err, ErrSelfLoop) {
		t.Errorf("self-loop: %v", err)
	}
	b = NewBuilder(BuilderOptions{DropSelfLoops: true})
	if err := b.AddEdge(1, 1, 0); err != nil || b.SelfLoopsDropped != 1 {
		t.Errorf("dropped self-loop: %v, %d", err, b.SelfLoopsDropped)
	}
	b = NewBuilder(BuilderOptions{})
	_ = b.AddEdge(1, 2, 4)
	_ = b.AddEdge(2, 1, 5)
	if _, err := b.Build(); err == nil {
		t.Error("edge with two labels accepted")
	}
	if err := b.SetVertexLabel(9, 1); err != nil {
		t.Fatal(err)
	}
	if err := b.SetVertexLabel(9, 2); err == nil {
		t.Error("vertex with two labels accepted")
	}
}

// TestRandomGraphsAgreeWithAdjacencyMatrix checks runs, lookups and the degree renumbering on
// random labelled graphs against a plain adjacency matrix.
func TestRandomGraphsAgreeWithAdjacencyMatrix(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for iter := 0; iter < 50; iter++ {
		n := 2 + r.IntN(40)
		labels := map[int64]uint32{}
		for v := 0; v < n; v++ {
			labels[int64(v*3)] = uint32(r.IntN(3))
		}
		adj := map[[2]int64]uint32{}
		var edges []edge
		for k := 0; k < r.IntN(4*n); k++ {
			u, v := int64(r.IntN(n)*3), int64(r.IntN(n)*3)
			if u == v {
				continue
			}
			key := [2]int64{min(u, v), max(u, v)}
			l, seen := adj[key]
			if !seen {
				l = uint32(r.IntN(2))
				adj[key] = l
			}
			edges = append(edges, edge{u, v, l})
		}
		g := build(t, labels, edges)
		if int(g.NumEdges()) != len(adj) {
			t.Fatalf("edges %d want %d", g.NumEdges(), len(adj))
		}
		for v := 1; v < g.NumVertices(); v++ {
			if g.Degree(uint32(v)) < g.Degree(uint32(v-1)) {
				t.Fatalf("vertices not ordered by degree")
			}
		}
		for u := 0; u < g.NumVertices(); u++ {
			for v := 0; v < g.NumVertices(); v++ {
				ou, ov := g.OriginalID(uint32(u)), g.OriginalID(uint32(v))
				want, has := adj[[2]int64{min(ou, ov), max(ou, ov)}]
				l, ok := g.HasEdge(uint32(u), uint32(v))
				if ok != has || (ok && l != want) {
					t.Fatalf("HasEdge(%d,%d) = %d,%v want %d,%v", ou, ov, l, ok, want, has)
				}
			}
			if g.VertexLabel(uint32(u)) != labels[g.OriginalID(uint32(u))] {
				t.Fatalf("label of %d wrong", g.OriginalID(uint32(u)))
			}
		}
	}
}

func TestUniformVertexLabel(t *testing.T) {
	for _, c := range []struct {
		name   string
		labels map[int64]uint32
		edges  []edge
		label  uint32
		ok     bool
	}{
		{"empty", nil, nil, 0, false},
		{"unlabelled", nil, []edge{{0, 1, 0}, {1, 2, 0}}, 0, true},
		{"one label", map[int64]uint32{0: 7, 1: 7, 2: 7}, []edge{{0, 1, 0}, {1, 2, 0}}, 7, true},
		{"two labels", map[int64]uint32{0: 7, 1: 7, 2: 8}, []edge{{0, 1, 0}, {1, 2, 0}}, 0, false},
		{"last differs", map[int64]uint32{0: 7, 1: 7, 2: 0}, []edge{{0, 1, 0}, {1, 2, 0}}, 0, false},
	} {
		g := build(t, c.labels, c.edges)
		for range 2 { // the second call reads the cached answer
			label, ok := g.UniformVertexLabel()
			if ok != c.ok || (ok && label != c.label) {
				t.Errorf("%s: UniformVertexLabel() = %d, %v; want %d, %v", c.name, label, ok, c.label, c.ok)
			}
		}
	}
}

// FromRawTrusted keeps every accessor in bounds: each kind of broken array is refused, and the
// message names the first broken place whichever goroutine finds it.
func TestFromRawTrustedRefuses(t *testing.T) {
	var edges []edge
	for v := int64(0); v < 3*checkRange; v++ { // a path long enough for several check ranges
		edges = append(edges, edge{v, v + 1, uint32(v % 3)})
	}
	g := build(t, nil, edges)
	if _, err := FromRawTrusted(g.Raw()); err != nil {
		t.Fatalf("valid graph refused: %v", err)
	}
	clone := func() Raw {
		r := g.Raw()
		return Raw{slices.Clone(r.VertexLabels), slices.Clone(r.Offsets), slices.Clone(r.Neighbors),
			slices.Clone(r.EdgeLabels), slices.Clone(r.RunOffsets), slices.Clone(r.Runs), slices.Clone(r.OriginalIDs)}
	}
	last := len(g.Raw().Neighbors) - 1
	for _, c := range []struct {
		name    string
		corrupt func(r *Raw)
		want    string
	}{
		{"offsets", func(r *Raw) { r.Offsets[2*checkRange+5] = r.Offsets[2*checkRange+6] + 1 }, "vertex 131077 has inconsistent offsets"},
		{"run start", func(r *Raw) { r.Runs[r.RunOffsets[checkRange+9]].Start++ }, "vertex 65545 run 0 covers an invalid range"},
		{"neighbour", func(r *Raw) { r.Neighbors[last], r.Neighbors[7] = 1<<30, 1<<31 }, "neighbour 2147483648 out of range"},
	} {
		r := clone()
		c.corrupt(&r)
		if _, err := FromRawTrusted(r); err == nil || err.Error() != "graph: "+c.want {
			t.Errorf("%s: got %v, want %q", c.name, err, "graph: "+c.want)
		}
		// The full check, its bounds checked range by range with the rules, says the same.
		if _, err := FromRaw(r); err == nil || err.Error() != "graph: "+c.want {
			t.Errorf("%s, FromRaw: got %v, want %q", c.name, err, "graph: "+c.want)
		}
	}
}

// TestBuilderIDModes: ids map to dense ids the same way whether they come in order (identity),
// small and shuffled (the table), or sparse and negative (the map, taken over mid-way), and
// HasVertex agrees in every mode.
func TestBuilderIDModes(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, c := range []struct {
		name string
		id   func(i int) int64
	}{
		{"in order", func(i int) int64 { return int64(i) }},
		{"shuffled, small", func(i int) int64 { return int64(r.IntN(3000)) }},
		{"small then sparse", func(i int) int64 {
			if i < 2000 {
				return int64(r.IntN(1000))
			}
			return int64(r.IntN(1000)) * 1_000_000_007
		}},
		{"negative", func(i int) int64 { return int64(r.IntN(500)) - 250 }},
	} {
		b := NewBuilder(BuilderOptions{})
		want := map[int64]uint32{}
		for i := range 4000 {
			id := c.id(i)
			if got := b.HasVertex(id); got != (want[id] != 0) {
				t.Fatalf("%s: HasVertex(%d) = %v before adding, want %v", c.name, id, got, !got)
			}
			v, err := b.Vertex(id)
			if err != nil {
				t.Fatal(err)
			}
			if w, seen := want[id]; seen && w-1 != v {
				t.Fatalf("%s: id %d is dense %d, was %d", c.name, id, v, w-1)
			} else if !seen {
				if int(v) != len(want) {
					t.Fatalf("%s: new id %d got dense %d, want %d", c.name, id, v, len(want))
				}
				want[id] = v + 1
			}
			if !b.HasVertex(id) {
				t.Fatalf("%s: HasVertex(%d) false after adding", c.name, id)
			}
		}
		for id, v := range want {
			if b.originalOf(v-1) != id {
				t.Fatalf("%s: dense %d has original id %d, want %d", c.name, v-1, b.originalOf(v-1), id)
			}
		}
	}
}

// TestDroppedSelfLoopKeepsVertex: dropping a vertex's only edge, a self-loop, keeps the vertex
// (SNAP's email-Eu-core has 1,005 vertices, some with only a self-loop).
func TestDroppedSelfLoopKeepsVertex(t *testing.T) {
	b := NewBuilder(BuilderOptions{DropSelfLoops: true})
	b.AddEdge(0, 1, 0)
	b.AddEdge(7, 7, 0)
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	if g.NumVertices() != 3 || g.NumEdges() != 1 || b.SelfLoopsDropped != 1 {
		t.Fatalf("%d vertices, %d edges, %d dropped; want 3, 1, 1", g.NumVertices(), g.NumEdges(), b.SelfLoopsDropped)
	}
}

// TestEdgeLabelConflictDeterministic: of many conflicting edges, Build always reports the same
// one, with original ids, whatever the scheduling.
func TestEdgeLabelConflictDeterministic(t *testing.T) {
	var first string
	for range 20 {
		b := NewBuilder(BuilderOptions{})
		for v := int64(0); v < 50000; v++ {
			b.AddEdge(3*v+1000, 3*v+1001, 1)
		}
		for v := int64(49999); v >= 20000; v -= 7 {
			b.AddEdge(3*v+1001, 3*v+1000, 2)
		}
		_, err := b.Build()
		var c *EdgeLabelConflict
		if !errors.As(err, &c) {
			t.Fatalf("error %v, want an EdgeLabelConflict", err)
		}
		if first == "" {
			first = err.Error()
		} else if err.Error() != first {
			t.Fatalf("conflict reported as %q, then %q", first, err.Error())
		}
	}
	if want := "edge 61012-61013 given with two labels, 1 and 2"; first != want {
		t.Fatalf("got %q, want %q", first, want)
	}
}

// TestBuildPathsAgree builds random graphs without edge labels (with and without vertex labels,
// with duplicate edges and sparse ids) both by counting and by sorting, and wants the same arrays.
func TestBuildPathsAgree(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for iter := range 200 {
		n := 1 + r.IntN(60)
		labelled := iter%2 == 1
		type add struct {
			u, v  int64
			label int // -1: an edge; else SetVertexLabel(u, label)
		}
		var adds []add
		for range r.IntN(5 * n) {
			u, v := int64(r.IntN(n)*7), int64(r.IntN(n)*7)
			if labelled && r.IntN(4) == 0 {
				adds = append(adds, add{u, 0, r.IntN(3)})
			}
			if u != v {
				adds = append(adds, add{u, v, -1})
			}
		}
		graphs := make([]*Graph, 2)
		for i, limit := range []int{countingLimit, -1} {
			b := NewBuilder(BuilderOptions{})
			for _, a := range adds {
				var err error
				if a.label >= 0 {
					err = b.SetVertexLabel(a.u, uint32(a.label))
				} else {
					err = b.AddEdge(a.u, a.v, 0)
				}
				if err != nil && a.label < 0 {
					t.Fatal(err)
				}
			}
			saved := countingLimit
			countingLimit = limit
			g, err := b.Build()
			countingLimit = saved
			if err != nil {
				t.Fatal(err)
			}
			if err := g.Validate(); err != nil {
				t.Fatal(err)
			}
			graphs[i] = g
		}
		if a, c := graphs[0].Raw(), graphs[1].Raw(); !reflect.DeepEqual(a, c) {
			t.Fatalf("iteration %d: counting build\n%+v\nsorting build\n%+v", iter, a, c)
		}
	}
}

// Validate splits the vertices by adjacency entries (a graph of few vertices and many edges
// spreads over the cores): the ranges cover every vertex once, within the bounds asked for; a
// graph over several ranges passes, and a broken one is refused with the lowest broken vertex
// named, or as asymmetric when one entry is missing its reverse in another range.
func TestValidateEntryRanges(t *testing.T) {
	const n = 400 // a dense graph: about 4*checkEntries entries over a few hundred vertices
	var edges []edge
	for u := int64(0); u < n; u++ {
		for v := u + 1; v < n; v++ {
			if (u*7+v*13)%5 != 0 {
				edges = append(edges, edge{u, v, uint32((u + v) % 2)})
			}
		}
	}
	g := build(t, nil, edges)
	entries := uint64(len(g.Raw().Neighbors))
	if entries < 3*checkEntries {
		t.Fatalf("%d entries: too few for several ranges", entries)
	}
	for _, c := range []struct {
		entries  uint64
		vertices int
	}{{checkEntries, checkRange}, {1000, checkRange}, {1, checkRange}, {1 << 40, 7}, {1 << 40, checkRange}} {
		b := g.entryRanges(c.entries, c.vertices)
		if b[0] != 0 || b[len(b)-1] != n {
			t.Fatalf("ranges(%d, %d) = %v: do not span [0, %d)", c.entries, c.vertices, b, n)
		}
		for r := 0; r+1 < len(b); r++ {
			lo, hi := b[r], b[r+1]
			if hi <= lo || hi-lo > c.vertices || (hi-lo > 1 && g.offsets[hi]-g.offsets[lo] > c.entries+uint64(g.Degree(uint32(hi-1)))) {
				t.Fatalf("ranges(%d, %d): range %d is [%d, %d)", c.entries, c.vertices, r, lo, hi)
			}
		}
	}
	if len(g.entryRanges(checkEntries, checkRange)) < 4 {
		t.Fatal("the graph is checked in one or two ranges: the test checks nothing")
	}
	if err := g.Validate(); err != nil {
		t.Fatalf("valid graph refused: %v", err)
	}
	clone := func() Raw {
		r := g.Raw()
		return Raw{slices.Clone(r.VertexLabels), slices.Clone(r.Offsets), slices.Clone(r.Neighbors),
			slices.Clone(r.EdgeLabels), slices.Clone(r.RunOffsets), slices.Clone(r.Runs), slices.Clone(r.OriginalIDs)}
	}
	last := uint32(n - 1)
	for _, c := range []struct {
		name    string
		corrupt func(r *Raw)
		want    string
	}{
		// Two broken vertices in different ranges: the lower is named.
		{"order", func(r *Raw) {
			for _, v := range []uint32{last - 2, 150} {
				s := r.Runs[r.RunOffsets[v]].Start
				r.Neighbors[s], r.Neighbors[s+1] = r.Neighbors[s+1], r.Neighbors[s]
			}
		}, "vertex 150 run is not strictly increasing"},
		// The last entry of the last vertex points at another vertex: its reverse is in another range.
		{"symmetry", func(r *Raw) {
			end := r.Offsets[last+1] - 1
			r.Neighbors[end]--
		}, "the adjacency lists are not symmetric (some edge is listed from one end only, or with two labels)"},
		// An edge label changed on one side only.
		{"label", func(r *Raw) {
			for i, v := range r.EdgeLabels {
				if v == 1 && r.Neighbors[i] > 300 {
					r.EdgeLabels[i] = 0
					break
				}
			}
		}, ""},
	} {
		r := clone()
		c.corrupt(&r)
		_, err := FromRaw(r)
		if err == nil || (c.want != "" && err.Error() != "graph: "+c.want) {
			t.Errorf("%s: got %v, want %q", c.name, err, "graph: "+c.want)
		}
	}
}

// VerticesWithLabel lists exactly the vertices of each label, in increasing order, with small
// labels (the counting sort) and large ones (the map); NeighborsWith finds each (vertex label,
// edge label) run by a scan of a short run index and by binary search in a long one (up to 60
// runs a vertex here).
func TestVerticesWithLabelAndRuns(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for iter := 0; iter < 60; iter++ {
		n := 2 + r.IntN(60)
		vlabels := []uint32{3, 30, 1 << 30}[iter%3]
		labels := map[int64]uint32{}
		for v := 0; v < n; v++ {
			l := uint32(r.IntN(3))
			if vlabels > 3 {
				l = uint32(r.IntN(30))
				if vlabels > 30 {
					l = l*(1<<25) + 5 // sparse: beyond 2n+1024
				}
			}
			labels[int64(v)] = l
		}
		adj := map[[2]int64]bool{}
		var edges []edge
		for k := 0; k < n+r.IntN(8*n); k++ {
			u, v := int64(r.IntN(n)), int64(r.IntN(n))
			if k < n-1 {
				u, v = 0, int64(k+1) // a hub: its run index is long
			}
			if u == v || adj[[2]int64{min(u, v), max(u, v)}] {
				continue
			}
			adj[[2]int64{min(u, v), max(u, v)}] = true
			edges = append(edges, edge{u, v, uint32(r.IntN(2))})
		}
		g := build(t, labels, edges)
		seen := map[uint32]bool{}
		for v := range g.NumVertices() {
			seen[g.VertexLabel(uint32(v))] = true
		}
		seen[1<<31], seen[uint32(2*n+2000)] = false, false // labels no vertex has
		for l := range seen {
			var want []uint32
			for v := range g.NumVertices() {
				if g.VertexLabel(uint32(v)) == l {
					want = append(want, uint32(v))
				}
			}
			if got := g.VerticesWithLabel(l); !slices.Equal(got, want) {
				t.Fatalf("iter %d: VerticesWithLabel(%d) = %v, want %v", iter, l, got, want)
			}
		}
		for v := range g.NumVertices() {
			for l := range seen {
				for el := uint32(0); el < 3; el++ {
					var want []uint32
					for i, w := range g.Neighbors(uint32(v)) {
						if g.VertexLabel(w) == l && g.edgeLabelAt(g.offsets[v]+uint64(i)) == el {
							want = append(want, w)
						}
					}
					if got := g.NeighborsWith(uint32(v), l, el); !slices.Equal(got, want) {
						t.Fatalf("iter %d: NeighborsWith(%d, %d, %d) = %v, want %v", iter, v, l, el, got, want)
					}
				}
			}
		}
	}
}

// TestValidateRulesAfterTrusted: on random graphs with one random entry changed (a neighbour, a
// label, a run's start or labels), ValidateRules on what FromRawTrusted accepted says what
// FromRaw says (nil when the graph is still valid), and what FromRawTrusted refuses FromRaw
// refuses too.
func TestValidateRulesAfterTrusted(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 5))
	rules := 0
	for i := range 400 {
		n := 5 + rng.IntN(60)
		var edges []edge
		for range 4 * n {
			u, v := rng.Int64N(int64(n)), rng.Int64N(int64(n))
			if u != v {
				edges = append(edges, edge{u, v, uint32(min(u, v)+max(u, v)) % 2}) // one label an edge
			}
		}
		labels := map[int64]uint32{}
		for v := range int64(n) {
			labels[v] = uint32(rng.IntN(3))
		}
		g := build(t, labels, edges)
		r := g.Raw()
		r = Raw{slices.Clone(r.VertexLabels), slices.Clone(r.Offsets), slices.Clone(r.Neighbors),
			slices.Clone(r.EdgeLabels), slices.Clone(r.RunOffsets), slices.Clone(r.Runs), slices.Clone(r.OriginalIDs)}
		if len(r.Neighbors) == 0 {
			continue
		}
		switch i % 4 {
		case 0:
			r.Neighbors[rng.IntN(len(r.Neighbors))] = uint32(rng.IntN(n + 1))
		case 1:
			r.VertexLabels[rng.IntN(n)] = uint32(rng.IntN(4))
		case 2:
			r.Runs[rng.IntN(len(r.Runs))].Start += uint64(rng.IntN(3)) - 1
		case 3:
			k := rng.IntN(len(r.Runs))
			r.Runs[k].VertexLabel, r.Runs[k].EdgeLabel = uint32(rng.IntN(4)), uint32(rng.IntN(2))
		}
		_, want := FromRaw(r)
		tg, err := FromRawTrusted(r)
		if err != nil {
			if want == nil {
				t.Fatalf("graph %d: FromRawTrusted refuses (%v) what FromRaw accepts", i, err)
			}
			continue
		}
		got := tg.ValidateRules()
		if (got == nil) != (want == nil) || (got != nil && got.Error() != want.Error()) {
			t.Fatalf("graph %d: ValidateRules says %v, FromRaw %v", i, got, want)
		}
		if got != nil {
			rules++
		}
	}
	if rules < 50 {
		t.Fatalf("only %d graphs broke a rule within bounds: the test checks little", rules)
	}
}
