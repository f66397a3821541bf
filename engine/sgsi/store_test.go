package sgsi

import (
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
		lg := newStore(g).label(anyEdge)
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
