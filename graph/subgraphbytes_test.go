package graph_test

import (
	"runtime"
	"slices"
	"testing"

	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/graph"
)

// allocated is the bytes the process allocated while f ran (runtime.MemStats.TotalAlloc: every
// allocation, freed or not, so at least the peak of what f held at once).
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// heldBytes is what h's arrays take (Raw) and its label index (4 bytes a vertex, 16 a label up
// to maxLabel), counted from the subgraph as made.
func heldBytes(h *graph.Graph, maxLabel uint32) uint64 {
	r := h.Raw()
	b := 4*uint64(len(r.VertexLabels)) + 8*uint64(len(r.Offsets)+len(r.RunOffsets)+len(r.OriginalIDs)) +
		4*uint64(len(r.Neighbors)+len(r.EdgeLabels)) + 16*uint64(len(r.Runs))
	return b + 4*uint64(h.NumVertices()) + 16*(uint64(maxLabel)+2)
}

// TestSubgraphBytes checks the memory the reductions' subgraphs are charged (pbe, --memory) on
// labelled R-MAT graphs (zipf vertex labels, with and without edge labels): InducedSize is the
// made subgraph's size (its vertices, entries and runs), and what it holds with its label index
// is at most SubgraphSize.Bytes; everything InducedByVertexLabels and SubgraphByEdgeKindsWithin
// allocate (their tables too, with the label index built) is at most InducedBytes and
// EdgeKindsBytes; SubgraphByEdgeKindsWithin refuses a byte below that, before its copy.
func TestSubgraphBytes(t *testing.T) {
	for _, el := range []int{1, 8} {
		g, err := gen.RMAT(gen.RMATOptions{Scale: 14, EdgeFactor: 8, VertexLabels: 50, LabelDistribution: gen.ZipfLabels, EdgeLabels: el, Seed: 3})
		if err != nil {
			t.Fatal(err)
		}
		g.VerticesWithLabel(0) // (the data graph's index, built before the measures)
		for _, labels := range [][]uint32{{0}, {0, 1}, {1, 3, 4}, {2, 7, 9, 20}} {
			s := g.InducedSize(labels)
			var h *graph.Graph
			got := allocated(func() {
				h = g.InducedByVertexLabels(labels)
				h.VerticesWithLabel(labels[0])
			})
			r := h.Raw()
			if s.Vertices != h.NumVertices() || s.Entries != uint64(len(r.Neighbors)) || s.Runs != uint64(len(r.Runs)) {
				t.Fatalf("edge labels %d, labels %v: InducedSize %+v, made %d vertices, %d entries, %d runs",
					el, labels, s, h.NumVertices(), len(r.Neighbors), len(r.Runs))
			}
			if vs, es := g.LabelledShare(labels); vs != s.Vertices || es != s.Entries {
				t.Fatalf("labels %v: LabelledShare %d %d, InducedSize %+v", labels, vs, es, s)
			}
			if held, b := heldBytes(h, labels[len(labels)-1]), s.Bytes(g.HasEdgeLabels()); held > b {
				t.Errorf("edge labels %d, labels %v: the subgraph holds %d bytes, charged %d", el, labels, held, b)
			}
			if need := g.InducedBytes(s); got > need {
				t.Errorf("edge labels %d, labels %v: InducedByVertexLabels allocated %d bytes, InducedBytes %d", el, labels, got, need)
			} else {
				t.Logf("edge labels %d, labels %v: induced %+v: allocated %d, InducedBytes %d", el, labels, s, got, need)
			}

			kinds := []graph.EdgeKind{{A: labels[0], B: labels[len(labels)-1], AnyEdge: true}, {A: labels[0], B: labels[0], Edge: 1}}
			c := 0
			for _, l := range []uint32{labels[0], labels[len(labels)-1]} {
				c += len(g.VerticesWithLabel(l))
				if len(labels) == 1 {
					break
				}
			}
			var ks graph.SubgraphSize
			var ok bool
			got = allocated(func() {
				h, ks, ok = g.SubgraphByEdgeKindsWithin(kinds, 2*g.NumEdges(), 0)
				h.VerticesWithLabel(labels[0])
			})
			r = h.Raw()
			if !ok || ks.Vertices != h.NumVertices() || ks.Entries != uint64(len(r.Neighbors)) || ks.Runs != uint64(len(r.Runs)) {
				t.Fatalf("edge labels %d, kinds %v: size %+v (ok %v), made %d vertices, %d entries, %d runs",
					el, kinds, ks, ok, h.NumVertices(), len(r.Neighbors), len(r.Runs))
			}
			need := g.EdgeKindsBytes(c, ks)
			if held := heldBytes(h, ks.MaxLabel); held > ks.Bytes(g.HasEdgeLabels()) || got > need {
				t.Errorf("edge labels %d, kinds %v: holds %d, allocated %d bytes; charged %d, EdgeKindsBytes %d",
					el, kinds, held, got, ks.Bytes(g.HasEdgeLabels()), need)
			} else {
				t.Logf("edge labels %d, kinds %v: %+v: allocated %d, EdgeKindsBytes %d", el, kinds, ks, got, need)
			}
			if _, _, ok := g.SubgraphByEdgeKindsWithin(kinds, 2*g.NumEdges(), need-1); ok {
				t.Errorf("edge labels %d, kinds %v: made within %d bytes, it needs %d", el, kinds, need-1, need)
			}
			if _, _, ok := g.SubgraphByEdgeKindsWithin(kinds, 2*g.NumEdges(), need); !ok {
				t.Errorf("edge labels %d, kinds %v: refused within the %d bytes it needs", el, kinds, need)
			}
			if slices.Equal(labels, []uint32{0}) && ks.Entries == 0 {
				t.Errorf("kinds %v keep nothing: the check is empty", kinds)
			}
		}
	}
}
