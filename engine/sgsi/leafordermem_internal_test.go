package sgsi

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/pattern"
)

// TestLeafOrderKeepsMemos: out of core, the leaf step's table is sorted by a closed tail's
// memo columns (leafOrder) for the memos' sake; under a --memory that holds the memos and
// the sort's buffer for a small table, not for a larger one, the larger table's sort must not
// let the memos go (reserveRows did: rev33's note) but sort without the buffer, in the same
// order, and every table's count must stay exact within --memory.
func TestLeafOrderKeepsMemos(t *testing.T) {
	g := gen.RandomGraph(11, 400, 0.05, 3, 0)
	p, err := pattern.Parse("(u)-(w)-(z)-(u), (u)-(a:1)-(b:2)-(w), (z)-(l:0)")
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(11, 2))
	rowsOf := func(r *runner, n int) []uint32 {
		table := make([]uint32, 0, n*r.q.joined)
		for range n {
			for range r.q.joined {
				table = append(table, uint32(rng.IntN(g.NumVertices())))
			}
		}
		return table
	}
	ref, _ := closedTailRunner(t, g, p)
	count := func(table []uint32) uint64 {
		ref.total = 0
		if err := ref.leafCount(slices.Clone(table)); err != nil {
			t.Fatal(err)
		}
		return ref.total
	}
	small := rowsOf(ref, 200)
	want := []uint64{count(small), 0}
	// The memos' bytes (the leaf sizes, one word a candidate, aside); the large table's sort
	// buffer (5 bytes a word) takes three quarters of them.
	memos := ref.leafBytes() - 4*uint64(len(ref.q.leafGroups))*uint64(g.NumVertices())
	large := rowsOf(ref, int(memos*3/4/5)/ref.q.joined+1)
	want[1] = count(large)
	r, tail := closedTailRunner(t, g, p)
	r.s = ref.s
	r.hostLimit = r.hostShared() + ref.leafBytes() + 5*uint64(len(small)) + memos/2
	if sort := 5 * uint64(len(large)); sort <= memos/2 || sort > r.hostLimit-r.hostShared() {
		t.Fatalf("setup: the large table's sort buffer %d bytes, the memos %d, --memory leaves %d", sort, memos, r.hostLimit-r.hostShared())
	}
	_, cols := tailMemoCols(tail)
	for i, table := range [][]uint32{small, large} {
		table = slices.Clone(table)
		r.total = 0
		if err := r.leafOrder(table); err != nil {
			t.Fatal(err)
		}
		if !slices.IsSortedFunc(rowsOfTable(table, r.q.joined), func(a, b []uint32) int {
			for _, c := range cols {
				if a[c] != b[c] {
					return int(a[c]) - int(b[c])
				}
			}
			return 0
		}) {
			t.Errorf("table %d: rows not in the order of columns %v", i, cols)
		}
		if err := r.leafCount(table); err != nil {
			t.Fatal(err)
		}
		if r.total != want[i] {
			t.Errorf("table %d: count %d, want %d", i, r.total, want[i])
		}
		if c := &r.leafScratch[0].tails[0]; c.memo.stamp == nil || c.byY.stamp == nil {
			t.Errorf("table %d: the tail's memos were let go (memo kept %v, by y %v)", i, c.memo.stamp != nil, c.byY.stamp != nil)
		}
		if held := r.hostShared() + r.hostOwn(); held > r.hostLimit {
			t.Errorf("table %d: %d bytes held, over --memory %d", i, held, r.hostLimit)
		}
	}
}

// rowsOfTable returns table's rows of k words.
func rowsOfTable(table []uint32, k int) [][]uint32 {
	rows := make([][]uint32, 0, len(table)/k)
	for i := 0; i+k <= len(table); i += k {
		rows = append(rows, table[i:i+k])
	}
	return rows
}
