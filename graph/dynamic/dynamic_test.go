package dynamic

import (
	"errors"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/graph"
)

type key struct{ a, b int64 }

func k(a, b int64) key {
	if a > b {
		a, b = b, a
	}
	return key{a, b}
}

// TestRandomOps applies random insertions and deletions to a graph and to a map, and compares
// them (every edge, label, degree and the snapshot) after every few operations.
func TestRandomOps(t *testing.T) {
	for seed := range uint64(20) {
		g0 := gen.RandomGraph(seed, 30, 0.15, 3, 2)
		d := FromGraph(g0)
		labels := map[int64]uint32{}
		edges := map[key]uint32{}
		for v := range g0.NumVertices() {
			labels[g0.OriginalID(uint32(v))] = g0.VertexLabel(uint32(v))
			els := g0.NeighborEdgeLabels(uint32(v))
			for i, w := range g0.Neighbors(uint32(v)) {
				l := uint32(0)
				if els != nil {
					l = els[i]
				}
				edges[k(g0.OriginalID(uint32(v)), g0.OriginalID(w))] = l
			}
		}
		r := rand.New(rand.NewPCG(seed, 7))
		var orig *Graph
		var origLabels map[int64]uint32
		var origEdges map[key]uint32
		for step := range 600 {
			a, b := int64(r.IntN(40)), int64(r.IntN(40))
			switch op := r.IntN(10); {
			case op < 5: // insert edge
				u, ok1 := d.Lookup(a)
				v, ok2 := d.Lookup(b)
				l := uint32(r.IntN(2))
				_, exists := edges[k(a, b)]
				if !ok1 || !ok2 {
					continue
				}
				err := d.AddEdge(u, v, l)
				switch {
				case a == b:
					if !errors.Is(err, ErrSelfLoop) {
						t.Fatalf("seed %d: self-loop: %v", seed, err)
					}
				case exists:
					if !errors.Is(err, ErrEdgeExists) {
						t.Fatalf("seed %d: duplicate: %v", seed, err)
					}
				case err != nil:
					t.Fatal(err)
				default:
					edges[k(a, b)] = l
				}
			case op < 8: // delete edge
				u, ok1 := d.Lookup(a)
				v, ok2 := d.Lookup(b)
				if !ok1 || !ok2 || a == b {
					continue
				}
				want, exists := edges[k(a, b)]
				l, err := d.DeleteEdge(u, v)
				if exists != (err == nil) || (exists && l != want) {
					t.Fatalf("seed %d: delete %d-%d: %v %d, want exists=%v %d", seed, a, b, err, l, exists, want)
				}
				delete(edges, k(a, b))
			case op < 9: // add vertex
				_, exists := labels[a]
				l := uint32(r.IntN(3))
				_, err := d.AddVertex(a, l)
				if exists != errors.Is(err, ErrVertexExists) {
					t.Fatalf("seed %d: add vertex %d: %v", seed, a, err)
				}
				if !exists {
					labels[a] = l
				}
			default: // delete vertex with its edges
				v, ok := d.Lookup(a)
				if !ok {
					continue
				}
				for d.Degree(v) > 0 {
					w := d.Runs(v)[0].Neighbors[0]
					if _, err := d.DeleteEdge(v, w); err != nil {
						t.Fatal(err)
					}
					delete(edges, k(a, d.OriginalID(w)))
				}
				if err := d.DeleteVertex(v); err != nil {
					t.Fatal(err)
				}
				delete(labels, a)
			}
			if step%97 == 0 {
				d.Compact()
			}
			if orig == nil && step >= 300 {
				// Go on with a clone: equal now, and the original must not see its changes.
				origLabels, origEdges = maps.Clone(labels), maps.Clone(edges)
				orig, d = d, d.Clone()
				check(t, d, labels, edges)
			}
			if step%50 == 0 {
				check(t, d, labels, edges)
			}
		}
		check(t, d, labels, edges)
		check(t, orig, origLabels, origEdges) // the clone's changes did not reach it
	}
}

func check(t *testing.T, d *Graph, labels map[int64]uint32, edges map[key]uint32) {
	t.Helper()
	if err := d.Validate(); err != nil {
		t.Fatal(err)
	}
	if d.NumVertices() != len(labels) || d.NumEdges() != uint64(len(edges)) {
		t.Fatalf("%d vertices %d edges, want %d %d", d.NumVertices(), d.NumEdges(), len(labels), len(edges))
	}
	for id, l := range labels {
		v, ok := d.Lookup(id)
		if !ok || d.Label(v) != l {
			t.Fatalf("vertex %d missing or label differs", id)
		}
	}
	for e, l := range edges {
		u, _ := d.Lookup(e.a)
		v, _ := d.Lookup(e.b)
		if got, ok := d.EdgeLabel(u, v); !ok || got != l || !d.HasEdgeLabelled(v, u, l) {
			t.Fatalf("edge %v: %d %v, want %d", e, got, ok, l)
		}
	}
	s, err := d.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	if s.NumVertices() != len(labels) || s.NumEdges() != uint64(len(edges)) {
		t.Fatalf("snapshot: %d vertices %d edges", s.NumVertices(), s.NumEdges())
	}
	back := FromGraph(s)
	if err := back.Validate(); err != nil {
		t.Fatal(err)
	}
	for v := range s.NumVertices() {
		id := s.OriginalID(uint32(v))
		if labels[id] != s.VertexLabel(uint32(v)) {
			t.Fatalf("snapshot label of %d", id)
		}
		for _, w := range s.Neighbors(uint32(v)) {
			if _, ok := edges[k(id, s.OriginalID(w))]; !ok {
				t.Fatalf("snapshot has extra edge %d-%d", id, s.OriginalID(w))
			}
		}
	}
}

func TestNeighborsWith(t *testing.T) {
	b := graph.NewBuilder(graph.BuilderOptions{})
	for _, e := range [][3]int64{{1, 2, 0}, {1, 3, 1}, {1, 4, 0}, {1, 5, 0}} {
		if err := b.AddEdge(e[0], e[1], uint32(e[2])); err != nil {
			t.Fatal(err)
		}
	}
	for id, l := range map[int64]uint32{1: 0, 2: 1, 3: 1, 4: 2, 5: 1} {
		if err := b.SetVertexLabel(id, l); err != nil {
			t.Fatal(err)
		}
	}
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	d := FromGraph(g)
	one, _ := d.Lookup(1)
	var ids []int64
	for _, w := range d.NeighborsWith(one, 1, 0) {
		ids = append(ids, d.OriginalID(w))
	}
	if len(ids) != 2 || !(ids[0] == 2 && ids[1] == 5 || ids[0] == 5 && ids[1] == 2) {
		t.Fatalf("NeighborsWith(1, 1, 0) = %v, want 2 and 5", ids)
	}
	six, err := d.AddVertex(6, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.AddEdge(one, six, 0); err != nil {
		t.Fatal(err)
	}
	if got := len(d.NeighborsWith(one, 1, 0)); got != 3 {
		t.Fatalf("after insert: %d neighbours, want 3", got)
	}
	if _, err := d.AddVertex(6, 2); !errors.Is(err, ErrVertexExists) {
		t.Fatalf("second label: %v", err)
	}
	if err := d.DeleteVertex(six); !errors.Is(err, ErrVertexHasEdge) {
		t.Fatalf("delete with edges: %v", err)
	}
}

// TestFiltered: a filtered copy holds exactly the edges whose labels the filter admits, every
// vertex, and is valid; the original is unchanged.
func TestFiltered(t *testing.T) {
	for seed := range uint64(8) {
		g0 := gen.RandomGraph(seed, 40, 0.2, 3, 2)
		checkFiltered(t, seed, FromGraph(g0), func(a, b uint32) bool { return a+b != 2 }) // leaves out 0-2 and 1-1
	}
	// Labels about 63 and 64, where the copy stops using its table (and the vertices' masks)
	// and asks keep.
	ls := []uint32{1, 62, 63, 64, 100}
	for seed := range uint64(8) {
		r := rand.New(rand.NewPCG(seed, 3))
		n := 40
		orig := make([]int64, n)
		labels := make([]uint32, n)
		for v := range n {
			orig[v], labels[v] = int64(v), ls[r.IntN(len(ls))]
		}
		var src, dst []uint32
		for range 4 * n {
			if u, v := uint32(r.IntN(n)), uint32(r.IntN(n)); u != v {
				src, dst = append(src, u), append(dst, v)
			}
		}
		d, err := Build(orig, labels, src, dst)
		if err != nil {
			t.Fatal(err)
		}
		checkFiltered(t, seed, d, func(a, b uint32) bool { return (a+b)%3 != 0 })
		checkFiltered(t, seed, d, nil)
	}
}

// checkFiltered checks d.Filtered(keep) (nil: every edge) against d.
func checkFiltered(t *testing.T, seed uint64, d *Graph, keep func(a, b uint32) bool) {
	t.Helper()
	f := d.Filtered(keep)
	if err := f.Validate(); err != nil {
		t.Fatal(err)
	}
	if err := d.Validate(); err != nil {
		t.Fatal(err)
	}
	if f.NumVertices() != d.NumVertices() {
		t.Fatalf("seed %d: %d vertices, want %d", seed, f.NumVertices(), d.NumVertices())
	}
	var want uint64
	for _, v := range d.Vertices() {
		for _, r := range d.Runs(v) {
			for _, w := range r.Neighbors {
				in := keep == nil || keep(d.Label(v), d.Label(w))
				if in {
					want++
				}
				if l, ok := f.EdgeLabel(v, w); ok != in || (ok && l != r.EdgeLabel) {
					t.Fatalf("seed %d: edge %d-%d in the copy %v (label %d), want %v", seed, v, w, ok, l, in)
				}
			}
		}
	}
	if f.NumEdges() != want/2 {
		t.Fatalf("seed %d: %d edges, want %d", seed, f.NumEdges(), want/2)
	}
}

// TestInsertRemoveNoAllocs: once a vertex's lists have room, inserting and removing edges
// (labelled too, creating and emptying runs) allocates nothing, and the refusals (present,
// missing, self-loop, deleted vertex) leave the graph unchanged.
func TestInsertRemoveNoAllocs(t *testing.T) {
	d := FromGraph(gen.RandomGraph(5, 60, 0.1, 3, 2))
	var gone uint32
	for v := range uint32(d.IDBound()) {
		if d.Degree(v) == 0 {
			continue
		}
		gone = v
		for _, r := range slices.Clone(d.Runs(v)) {
			for _, w := range slices.Clone(r.Neighbors) {
				if _, ok := d.RemoveEdge(v, w); !ok {
					t.Fatalf("remove %d-%d", v, w)
				}
			}
		}
		if err := d.DeleteVertex(v); err != nil {
			t.Fatal(err)
		}
		break
	}
	var u, v uint32
	for a := range uint32(d.IDBound()) {
		for b := a + 1; b < uint32(d.IDBound()); b++ {
			if _, ok := d.EdgeLabel(a, b); !ok && d.Alive(a) && d.Alive(b) {
				u, v = a, b
			}
		}
	}
	edges := d.NumEdges()
	step := func() {
		for _, el := range []uint32{0, 1, 7} {
			if !d.InsertEdge(u, v, el) || d.InsertEdge(v, u, el) || d.InsertEdge(u, v, el+1) {
				t.Fatal("insert")
			}
			if l, ok := d.RemoveEdge(v, u); !ok || l != el {
				t.Fatalf("remove: %d %v", l, ok)
			}
			if _, ok := d.RemoveEdge(u, v); ok {
				t.Fatal("removed a missing edge")
			}
		}
		if d.InsertEdge(u, u, 0) || d.InsertEdge(u, gone, 0) {
			t.Fatal("self-loop or deleted vertex")
		}
	}
	step()
	if a := testing.AllocsPerRun(50, step); a != 0 {
		t.Errorf("%.1f allocations per step", a)
	}
	if d.NumEdges() != edges {
		t.Fatalf("%d edges, had %d", d.NumEdges(), edges)
	}
	if err := d.Validate(); err != nil {
		t.Fatal(err)
	}
}
