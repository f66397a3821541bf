package sgsi

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"testing"

	"github.com/submatch/submatch/gen"
)

// TestSegments checks segments against the definition: the segments cover every vertex and every
// entry in order, each entry once; each fits maxWords; a segment that does not end at a vertex
// boundary holds one vertex; prev is the entry before a cut; find returns a vertex's first segment.
func TestSegments(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		g := hubGraph(seed, 40+int(seed)*5, int(seed%3))
		if seed%2 == 0 {
			g = gen.RandomGraph(seed, 30, 0.3, 2, 1)
		}
		lg := newStore(g).label(lgKey{anyEdge, anyLabel})
		n := uint32(len(lg.offsets) - 1)
		for _, maxWords := range []uint64{1, 3, 4, 7, 20, 1000} {
			segs := segments(lg, maxWords)
			e := uint64(0)
			for i, sg := range segs {
				if sg.elo != e || sg.ehi < sg.elo || sg.lo >= sg.hi {
					t.Fatalf("seed %d max %d: segment %d %+v does not follow entry %d", seed, maxWords, i, sg, e)
				}
				if sg.words() > max(maxWords, minSegWords) {
					t.Fatalf("seed %d max %d: segment %d of %d words", seed, maxWords, i, sg.words())
				}
				if sg.tail() && sg.hi != sg.lo+1 {
					t.Fatalf("seed %d max %d: segment %d ends inside the list of a vertex that is not its only one", seed, maxWords, i)
				}
				if sg.head() > 0 && sg.prev() != lg.nbrs[sg.elo-1] {
					t.Fatalf("seed %d max %d: segment %d prev %d", seed, maxWords, i, sg.prev())
				}
				if i > 0 && segs[i-1].hi != sg.lo && !(segs[i-1].tail() && segs[i-1].lo == sg.lo) {
					t.Fatalf("seed %d max %d: segments %d and %d leave a gap of vertices", seed, maxWords, i-1, i)
				}
				e = sg.ehi
			}
			if e != uint64(len(lg.nbrs)) || (n > 0 && segs[len(segs)-1].hi != n) {
				t.Fatalf("seed %d max %d: segments end at entry %d of %d", seed, maxWords, e, len(lg.nbrs))
			}
			for v := range n {
				i := find(segs, v)
				if i == len(segs) || segs[i].lo > v || segs[i].hi <= v || i > 0 && segs[i-1].hi > v {
					t.Fatalf("seed %d max %d: find(%d) = %d", seed, maxWords, v, i)
				}
			}
		}
	}
}

// TestSortRows checks sortRows on every row width it special-cases and beyond: rows in order of
// the column, each row kept whole.
func TestSortRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for k := 1; k <= 10; k++ {
		for _, n := range []int{0, 1, 2, 17, 300} {
			col := rng.IntN(k)
			tab := make([]uint32, n*k)
			for i := range tab {
				tab[i] = uint32(rng.IntN(50))
			}
			want := rowSet(tab, k)
			sortRows(tab, k, col)
			for i := 1; i < n; i++ {
				if tab[(i-1)*k+col] > tab[i*k+col] {
					t.Fatalf("k %d, %d rows: row %d's column %d (%d) after %d", k, n, i, col, tab[i*k+col], tab[(i-1)*k+col])
				}
			}
			if got := rowSet(tab, k); !maps.Equal(got, want) {
				t.Fatalf("k %d, %d rows: the rows changed", k, n)
			}
		}
	}
}

// rowSet counts a table's rows (of k words) by their contents.
func rowSet(tab []uint32, k int) map[string]int {
	m := map[string]int{}
	for i := 0; i+k <= len(tab); i += k {
		m[fmt.Sprint(tab[i:i+k])]++
	}
	return m
}
