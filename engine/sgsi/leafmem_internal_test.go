package sgsi

import (
	"context"
	"testing"

	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/pattern"
)

// TestLeafMemosWithinMemory: the leaf step's memos (sizeMemo) of one goroutine stay within
// --memory together, not each alone. The triangle a - b - c with leaves x on a and y on b
// counts c (a group of two parents: a memo of |S_c|) in one class with x and y (a class memo
// of 8 sizes a candidate); --memory leaves room for either memo, not both.
func TestLeafMemosWithinMemory(t *testing.T) {
	g := gen.RandomGraph(1, 3000, 0.002, 1, 0)
	_, q, s, cands, bits, bitWords := leafSetup(t, g)
	all := cands[0]
	table := []uint32{0, 1, 1, 0, 2, 3}
	r := &runner{ctx: context.Background(), s: s, q: q, cands: cands, bitsHost: bits, bitWords: bitWords, threads: 1}
	if err := r.leafCount(table); err != nil { // (the store's label graphs: shared memory)
		t.Fatal(err)
	}
	r = &runner{ctx: context.Background(), s: s, q: q, cands: cands, bitsHost: bits, bitWords: bitWords, threads: 1}
	class := uint64(len(all)) * (4 + 8*8) // the class memo: a stamp and 8 sizes a candidate
	r.hostLimit = r.hostShared() + class + class/32
	if err := r.leafCount(table); err != nil {
		t.Fatal(err)
	}
	if own := r.hostOwn(); r.hostShared()+own > r.hostLimit {
		t.Errorf("the leaf step holds %d bytes beside the shared %d, over --memory %d", own, r.hostShared(), r.hostLimit)
	}
}

// leafSetup plans the triangle a - b - c with leaves x on a and y on b over g, every data
// vertex a candidate of every pattern vertex: c is counted in one class with the leaves.
func leafSetup(t *testing.T, g *graph.Graph) (*pattern.Pattern, *query, *store, [][]uint32, []uint32, uint64) {
	t.Helper()
	p, err := pattern.Parse("(a)-(b)-(c)-(a), (a)-(x), (b)-(y)")
	if err != nil {
		t.Fatal(err)
	}
	s := storeFor(g, 0)
	q := compileQuery(p)
	sizes, cands, bits, bitWords := everyCandidate(g, p.NumVertices())
	q.plan(sizes, func(k uint64) uint64 { return s.edgeEntries(k, 0) }, false, false, false, true, false, true)
	// (c closes the triangle: counted with the leaves, a group on both hubs.)
	if len(q.leafClasses) != 1 || len(q.leafClasses[0]) != 3 || q.joined != 2 {
		t.Fatalf("setup: joined %d, classes %v", q.joined, q.leafClasses)
	}
	return p, q, s, cands, bits, bitWords
}

// everyCandidate makes every data vertex of g a candidate of each of n pattern vertices: their
// counts, lists and bitsets (bitWords words a vertex).
func everyCandidate(g *graph.Graph, n int) (sizes []uint64, cands [][]uint32, bits []uint32, bitWords uint64) {
	sizes = make([]uint64, n)
	cands = make([][]uint32, n)
	all := make([]uint32, g.NumVertices())
	for v := range all {
		all[v] = uint32(v)
	}
	for u := range n {
		sizes[u], cands[u] = uint64(len(all)), all
	}
	bitWords = bitsetWords(g.NumVertices())
	bits = make([]uint32, uint64(n)*bitWords)
	for i := range bits {
		bits[i] = ^uint32(0)
	}
	return sizes, cands, bits, bitWords
}

// countAdjacentRows runs the leaf step of leafSetup's query over g on one thread, for the rows
// (a, b) of adjacent data vertices, a among the first n: the runner and the rows.
func countAdjacentRows(t *testing.T, g *graph.Graph, n uint32) (*runner, []uint32) {
	t.Helper()
	_, q, s, cands, bits, bitWords := leafSetup(t, g)
	var table []uint32
	for v := range n {
		for _, w := range g.Neighbors(v) {
			table = append(table, v, w)
		}
	}
	r := &runner{ctx: context.Background(), s: s, q: q, cands: cands, bitsHost: bits, bitWords: bitWords, threads: 1}
	if err := r.leafCount(table); err != nil {
		t.Fatal(err)
	}
	return r, table
}

// TestLeafMemosGiveWay: the leaf step's memos and sizes do not stop a count that fits without
// them. With the memos held, --memory is set to what the count holds plus a table's growth
// that fits only once they are let go: the table's reservation takes their room
// (reserveRows), and the leaf step then counts the same without them.
func TestLeafMemosGiveWay(t *testing.T) {
	r, table := countAdjacentRows(t, gen.RandomGraph(1, 1000, 0.05, 1, 0), 20)
	memos := r.leafBytes()
	first := r.total
	if memos == 0 || first == 0 {
		t.Fatalf("setup: memos of %d bytes, count %d", memos, first)
	}
	r.hostLimit = r.hostShared() + r.hostOwn() + memos/2
	words := memos / 4 // (its reservation: 6 bytes a word)
	if err := r.table(0, words, 0); err != nil {
		t.Fatalf("a table of %d words beside memos of %d bytes, --memory %d: %v", words, memos, r.hostLimit, err)
	}
	if b := r.leafBytes(); b != 0 {
		t.Errorf("the memos hold %d bytes after the table took their room", b)
	}
	if err := r.leafCount(table); err != nil {
		t.Fatal(err)
	}
	if r.total != 2*first {
		t.Errorf("without the memos the rows count %d, with them %d", r.total-first, first)
	}
	if held := r.hostShared() + r.hostOwn(); held > r.hostLimit {
		t.Errorf("%d bytes held, over --memory %d", held, r.hostLimit)
	}
}

// TestSizeMemoEpochWrap: a memo whose epoch wraps (2^32 changes of its key) clears its stamps,
// so a value written 2^32 keys ago is not taken for the current key's.
func TestSizeMemoEpochWrap(t *testing.T) {
	r := &runner{ctx: context.Background()}
	var m sizeMemo
	m.init(r, 1, []int{0}, []uint32{3, 5, 8}, 1)
	row := []uint32{100, 5}
	i, hit := m.lookup(row)
	if i != 1 || hit {
		t.Fatalf("first lookup: %d, %v", i, hit)
	}
	m.at(i)[0] = 42
	m.done(i)
	if i, hit = m.lookup(row); !hit || m.at(i)[0] != 42 {
		t.Fatalf("same key: %d, %v", i, hit)
	}
	// The stamp of candidate 5 is the current epoch; the next key change wraps the epoch to 0.
	m.epoch = ^uint32(0)
	m.stamp[1] = 0 // (what a value written at epoch 0, 2^32 keys ago, left)
	m.stamp[2] = 1
	row[0] = 101
	if i, hit = m.lookup(row); i != 1 || hit {
		t.Errorf("after the wrap: candidate %d hit %v (epoch %d, stamps %v)", i, hit, m.epoch, m.stamp)
	}
	if _, hit = m.lookupAt(row, 8); hit || m.epoch != 1 {
		t.Errorf("after the wrap: a stale stamp taken (epoch %d, stamps %v)", m.epoch, m.stamp)
	}
	m.done(2)
	if _, hit = m.lookupAt(row, 8); !hit {
		t.Errorf("a value written after the wrap not found")
	}
	if i, _ = m.lookupAt(row, 4); i != -1 {
		t.Errorf("a vertex not a candidate at %d", i)
	}
}

// TestRowLeavesAllocates: the leaf step's count of a row (rowLeaves, its factors in turn)
// allocates nothing once the goroutine's scratch is made, whether it recounts every factor (no
// row before) or reuses those of the row before; the rows' counts add up to leafCount's.
func TestRowLeavesAllocates(t *testing.T) {
	r, table := countAdjacentRows(t, gen.RandomGraph(1, 400, 0.05, 1, 0), 10)
	q, s := r.q, r.s
	if r.total == 0 {
		t.Fatal("setup: no placements")
	}
	sc := r.leafScratch[0]
	lgs := make([][]*labelGraph, len(q.leafGroups))
	for i, lg := range q.leafGroups {
		for _, pe := range lg.parents {
			lgs[i] = append(lgs[i], s.label(pe.key))
		}
	}
	k := q.joined
	for _, fresh := range []bool{true, false} {
		var sum uint64
		a := testing.AllocsPerRun(3, func() {
			sum = 0
			for x := 0; x < len(table); x += k {
				sc.hasPrev = sc.hasPrev && !fresh
				n, ok := r.rowLeaves(table[x:x+k], lgs, sc)
				if !ok {
					t.Fatal("overflow")
				}
				sum += n
			}
		})
		if a != 0 {
			t.Errorf("fresh %v: the rows' counts allocate %v times", fresh, a)
		}
		if sum != r.total {
			t.Errorf("fresh %v: the rows count %d, leafCount %d", fresh, sum, r.total)
		}
	}
}

// TestSizeMemoFar: a memo with key columns keeps its values across keys (its second level): a
// key that comes back finds them (each row of a table whose key columns change from row to row,
// such as a group's two parents in the last two columns, intersected its lists without it), and
// a slot that another key took over is never read as the first key's, even with every key in
// one of two slots.
func TestSizeMemoFar(t *testing.T) {
	r := &runner{ctx: context.Background()}
	var m sizeMemo
	m.init(r, 1, []int{0}, []uint32{3, 5, 8}, 1)
	if m.farFull == nil {
		t.Fatal("no second level for a memo with a key column")
	}
	write := func(a, x uint32, v int64) {
		t.Helper()
		i, hit := m.lookupAt([]uint32{a, x}, x)
		if hit {
			t.Fatalf("(%d, %d): a hit before it was written (%d)", a, x, m.at(i)[0])
		}
		m.at(i)[0] = v
		m.done(i)
	}
	write(100, 5, 42)
	write(101, 5, 7)
	write(101, 8, 9)
	for _, c := range []struct {
		a, x uint32
		v    int64
	}{{100, 5, 42}, {101, 8, 9}, {101, 5, 7}, {100, 5, 42}} {
		if i, hit := m.lookupAt([]uint32{c.a, c.x}, c.x); !hit || m.at(i)[0] != c.v {
			t.Errorf("(%d, %d) back: hit %v, want %d", c.a, c.x, hit, c.v)
		}
	}
	m.farShift = 63 // (two slots: the keys overwrite one another)
	clear(m.farFull)
	for round := range 3 {
		for a := uint32(200); a < 220; a++ {
			for _, x := range []uint32{3, 5, 8} {
				want := int64(a)*10 + int64(x)
				i, hit := m.lookupAt([]uint32{a, x}, x)
				if hit && m.at(i)[0] != want {
					t.Fatalf("round %d (%d, %d): %d taken for %d", round, a, x, m.at(i)[0], want)
				}
				m.at(i)[0] = want
				m.done(i)
			}
		}
	}
}

// TestSizeMemoFarLetGo: a second level that holds fewer than one in farMinHitRate of farCheck
// reads (keys that never come back) is let go, its memory with it; one whose keys come back is
// kept.
func TestSizeMemoFarLetGo(t *testing.T) {
	r := &runner{ctx: context.Background()}
	for _, back := range []bool{false, true} {
		var m sizeMemo
		m.init(r, 1, []int{0}, []uint32{3, 5, 8}, 1)
		before := m.bytes()
		for a := range uint32(2 * farCheck) {
			if back {
				a %= 64
			}
			i, hit := m.lookup([]uint32{a, 5})
			if !hit {
				m.at(i)[0] = int64(a)
				m.done(i)
			}
		}
		if kept := m.farFull != nil; kept != back {
			t.Errorf("keys back %v: second level kept %v (%d tries, %d hits)", back, kept, m.farTries, m.farHits)
		}
		if !back && m.bytes() >= before {
			t.Errorf("a second level let go still counts %d bytes of %d", m.bytes(), before)
		}
	}
}
