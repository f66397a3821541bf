package sgsi

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/pattern"
)

// pairHub is a hub 0 on the triangle 0 - 1 - 2 (label 0) with mids middle vertices (label 1,
// adjacent to 0, some to each other) each adjacent to all of ends end vertices (label 2): the
// placements of a pair's tails on 0 number about mids·ends each.
func pairHub(t *testing.T, mids, ends int) *graph.Graph {
	t.Helper()
	b := graph.NewBuilder(graph.BuilderOptions{})
	n := 3 + mids + ends
	for v := range n {
		l := uint32(0)
		switch {
		case v >= 3+mids:
			l = 2
		case v >= 3:
			l = 1
		}
		if err := b.SetVertexLabel(int64(v), l); err != nil {
			t.Fatal(err)
		}
	}
	add := func(u, v int) {
		if err := b.AddEdge(int64(u), int64(v), 0); err != nil {
			t.Fatal(err)
		}
	}
	add(0, 1)
	add(1, 2)
	add(2, 0)
	for m := 3; m < 3+mids; m++ {
		add(0, m)
		if m+1 < 3+mids && m%3 != 0 {
			add(m, m+1)
		}
		for e := 3 + mids; e < n; e++ {
			add(m, e)
		}
	}
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// pairWant counts by brute force the distinct (x1, y1, x2, y2) with x1, x2 label-1 neighbours
// of v, y1 a label-1 neighbour of x1 and y2 a label-2 neighbour of x2.
func pairWant(g *graph.Graph, v uint32) uint64 {
	var want uint64
	lab := func(x uint32) uint32 { return uint32(g.VertexLabel(x)) }
	for _, x1 := range g.Neighbors(v) {
		if lab(x1) != 1 {
			continue
		}
		for _, y1 := range g.Neighbors(x1) {
			if lab(y1) != 1 || y1 == v {
				continue
			}
			for _, x2 := range g.Neighbors(v) {
				if lab(x2) != 1 || x2 == x1 || x2 == y1 {
					continue
				}
				for _, y2 := range g.Neighbors(x2) {
					if lab(y2) == 2 && y2 != x1 && y2 != y1 {
						want++
					}
				}
			}
		}
	}
	return want
}

// pairScratchBytes is the memory of pair caches' buffers outside their memos (every slice
// field, found by reflection so that a buffer added later is counted too).
func pairScratchBytes(c *pairCache) uint64 {
	var b uint64
	var walk func(v reflect.Value)
	walk = func(v reflect.Value) {
		switch v.Kind() {
		case reflect.Slice:
			b += uint64(v.Cap()) * uint64(v.Type().Elem().Size())
		case reflect.Array:
			for i := range v.Len() {
				walk(v.Index(i))
			}
		}
	}
	v := reflect.ValueOf(c).Elem()
	for i := range v.NumField() {
		if v.Type().Field(i).Name != "memo" {
			walk(v.Field(i))
		}
	}
	return b
}

// TestPairWithinMemory (rev22): a pair of tails on a hub does not hold a list of its
// placements' ends beside what --memory accounts (leafBytes): its buffers outside the
// accounted counters stay within the hub's degree, the count is exact, the runner holds no
// more than --memory, and a --memory without room for the counters stops the count with
// ErrMemory; counting a row allocates nothing.
func TestPairWithinMemory(t *testing.T) {
	const mids, ends = 40, 60
	g := pairHub(t, mids, ends)
	p, err := pattern.Parse("(v0:0)-(v1:0)-(v2:0)-(v0), (v0)-(a1:1)-(b1:1), (v0)-(a2:1)-(b2:2)")
	if err != nil {
		t.Fatal(err)
	}
	n := p.NumVertices()
	s := storeFor(g, 0)
	q := compileQuery(p)
	all := make([]uint32, g.NumVertices())
	for v := range all {
		all[v] = uint32(v)
	}
	sizes, cands := make([]uint64, n), make([][]uint32, n)
	for u := range n {
		sizes[u], cands[u] = uint64(len(all)), all
	}
	q.plan(sizes, func(k uint64) uint64 { return s.edgeEntries(k, 0) }, false, false, false, true, false, true)
	if len(q.pairs) != 1 || q.joined != 3 {
		t.Fatalf("setup: joined %d, %d pairs", q.joined, len(q.pairs))
	}
	bitWords := bitsetWords(g.NumVertices())
	bits := make([]uint32, uint64(n)*bitWords)
	for i := range bits {
		bits[i] = ^uint32(0)
	}
	dense := map[int64]uint32{} // (Build renumbers the vertices)
	for v := range uint32(g.NumVertices()) {
		dense[g.OriginalID(v)] = v
	}
	row := make([]uint32, q.joined) // v0 on the hub, v1 and v2 on 1 and 2
	for j, u := range q.order[:q.joined] {
		row[j] = dense[map[string]int64{"v0": 0, "v1": 1, "v2": 2}[p.Name(u)]]
	}
	hub := dense[0]
	want := pairWant(g, hub)
	if want == 0 {
		t.Fatal("setup: no placements")
	}
	newRunner := func() *runner {
		return &runner{ctx: context.Background(), s: s, q: q, cands: cands, bitsHost: bits, bitWords: bitWords, threads: 1}
	}
	if err := newRunner().leafCount(row); err != nil { // (the store's label graphs: shared)
		t.Fatal(err)
	}
	r := newRunner()
	r.hostLimit = r.hostShared() + pairBytes(g.NumVertices()) + 64
	if err := r.leafCount(row); err != nil {
		t.Fatalf("--memory %d: %v", r.hostLimit, err)
	}
	if r.total != want {
		t.Errorf("the pair counts %d, brute force %d", r.total, want)
	}
	if held := r.hostShared() + r.hostOwn(); held > r.hostLimit {
		t.Errorf("%d bytes held, over --memory %d", held, r.hostLimit)
	}
	deg := uint64(len(g.Neighbors(hub)))
	if b := pairScratchBytes(&r.leafScratch[0].pairs[0]); b > 2*2*12*deg {
		t.Errorf("the pair's buffers hold %d bytes outside --memory's account, over %d for a hub of degree %d (%d placements' ends)", b, 2*2*12*deg, deg, mids*ends)
	}
	sc := r.leafScratch[0]
	if sc.pairs[0].memo.stamp != nil {
		t.Fatal("setup: the pair's memo kept (no room for it meant)")
	}
	lgs := r.labels(q.pairs[0].keys())
	if a := testing.AllocsPerRun(5, func() { r.pairCount(0, row, lgs, sc) }); a != 0 {
		t.Errorf("the pair's count allocates %v times a row", a)
	}
	r = newRunner()
	r.hostLimit = r.hostShared() + pairBytes(g.NumVertices()) - 1
	if err := r.leafCount(row); !errors.Is(err, engine.ErrMemory) {
		t.Errorf("--memory without room for the pair's counters: %v, count %d", err, r.total)
	}
}
