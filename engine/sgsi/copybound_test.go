package sgsi

import (
	"context"
	"testing"

	"github.com/submatch/submatch/engine"
	_ "github.com/submatch/submatch/engine/cpu"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/pattern"
)

// putCounter is HostBackend counting the copies into the segment cache, and the rest, of the
// runner it serves.
type putCounter struct {
	*HostBackend
	r                  *runner
	cachePuts, another uint64
	cacheWords         uint64
}

func (c *putCounter) Put(off uint64, src []uint32) error {
	if c.r.cacheCap > 0 && off >= c.r.cacheOff && off < c.r.cacheOff+c.r.cacheCap {
		c.cachePuts++
		c.cacheWords += uint64(len(src))
	} else {
		c.another++
	}
	return c.HostBackend.Put(off, src)
}

// TestUploadsBound counts out of core (a quarter and a sixteenth of GraphBytes) on R-MAT graphs,
// unlabelled 4-cliques and a labelled random-walk query, equal to the cpu engine, and checks the
// copies: every segment upload is one copy, a chunk makes at most three copies besides them (its
// rows with their descriptor, offsets and index; its counts' zeroes and offsets), and against
// the schedule that uploads each touched segment on its own (oneSegment), uploading runs of
// gathered segments together makes fewer copies and launches; and no chunk uploads more, for
// each edge it joins, than the label graph (the bound in words from the graph's size). The last
// step joins with buffers here (Options.Buffered), and so do the leaves (Options.JoinLeaves: the
// walk's streaming is in its joins): the copies of the direct count's blocks are
// TestDirectBlocks'.
func TestUploadsBound(t *testing.T) {
	ctx := context.Background()
	clique, err := pattern.Parse("(a)-(b)-(c)-(d)-(a), (a)-(c), (b)-(d)")
	if err != nil {
		t.Fatal(err)
	}
	plain, err := gen.RMAT(gen.RMATOptions{Scale: 10, EdgeFactor: 8, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	labelled, err := gen.RMAT(gen.RMATOptions{Scale: 11, EdgeFactor: 8, VertexLabels: 4, LabelDistribution: gen.ZipfLabels, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	walk, err := gen.RandomWalkQuery(labelled, 5, 7, gen.QueryOptions{Density: gen.Sparse})
	if err != nil {
		t.Fatal(err)
	}
	cpu, _ := engine.Lookup("cpu")
	for _, c := range []struct {
		name string
		g    *graph.Graph
		p    *pattern.Pattern
		sem  engine.Semantics
	}{
		{"4-clique unique", plain, clique, engine.Semantics{Unique: true}},
		{"labelled walk", labelled, walk, engine.Semantics{}},
	} {
		want, err := cpu.Count(ctx, &engine.Problem{Data: c.g, Pattern: c.p, Semantics: c.sem})
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range []uint64{4, 16} {
			var sts [2]Stats
			var pcs [2]*putCounter
			for i, one := range []bool{false, true} {
				pc := &putCounter{HostBackend: NewHostBackend(GraphBytes(c.g) / f / 4)}
				r := &runner{ctx: ctx, be: pc, st: &sts[i], s: newStore(c.g, 0), q: compileQuery(c.p), count: true,
					blockRows: DefaultBlockRows, blockSize: blockThreads, oneSegment: one, buffered: true, joinLeaves: true}
				pc.r = r
				if err := r.run(c.sem.Induced, c.sem.Unique); err != nil {
					t.Fatalf("%s 1/%d: %v", c.name, f, err)
				}
				if r.total != want.Count {
					t.Errorf("%s 1/%d (one segment an upload: %v): %d, cpu %d", c.name, f, one, r.total, want.Count)
				}
				pcs[i] = pc
			}
			st, pc, ref := sts[0], pcs[0], sts[1]
			t.Logf("%s 1/%d: %d chunks; copies up %d (one segment an upload: %d), launches %d (%d), bytes up %d (%d); GraphBytes %d",
				c.name, f, st.Chunks, st.CopiesToGPU, ref.CopiesToGPU, st.Launches, ref.Launches, st.BytesToGPU, ref.BytesToGPU, GraphBytes(c.g))
			if st.InCore || st.Chunks < 10 || st.Merged == 0 {
				t.Fatalf("%s 1/%d: in core %v, %d chunks, %d segments merged: the case no longer tests streaming", c.name, f, st.InCore, st.Chunks, st.Merged)
			}
			if pc.cachePuts != st.Segments {
				t.Errorf("%s 1/%d: %d copies into the segment cache for %d segment uploads", c.name, f, pc.cachePuts, st.Segments)
			}
			// The filter's copies: the bitsets' zeroes, the query, the signature table and labels
			// in chunks of 32-vertex multiples (at least one chunk per GraphBytes/f).
			n := uint64(c.g.NumVertices())
			chunkV := (4*pc.Words() - 20*n/f) / 20 // a lower bound on the filter's chunk
			filter := 4 + (sigWords+1)*(n/max(1, chunkV/32*32)+1)
			if bound := 3*st.Chunks + filter + 4; pc.another > bound {
				t.Errorf("%s 1/%d: %d copies besides the segments' for %d chunks (bound %d)", c.name, f, pc.another, st.Chunks, bound)
			}
			if st.CopiesToGPU >= ref.CopiesToGPU || st.Launches >= ref.Launches {
				t.Errorf("%s 1/%d: runs of segments made %d copies and %d launches; one segment an upload %d and %d",
					c.name, f, st.CopiesToGPU, st.Launches, ref.CopiesToGPU, ref.Launches)
			}
			// No chunk uploads a list twice for one edge: what goes into the cache is at most,
			// per chunk and edge of its step, the label graph's entries and offsets (and a
			// segment's offset more for each segment).
			edges, perEdge := 0, uint64(0)
			for _, s := range pc.r.q.steps {
				edges = max(edges, 1+len(s.others)+len(s.nonadj))
				for _, l := range append(append([]link{s.first}, s.others...), s.nonadj...) {
					lg := pc.r.s.label(l.key)
					perEdge = max(perEdge, uint64(len(lg.nbrs))+2*uint64(lg.numVertices()+1))
				}
			}
			if bound := st.Chunks * uint64(edges) * perEdge; pc.cacheWords > bound {
				t.Errorf("%s 1/%d: %d words into the cache for %d chunks of at most %d edges (bound %d: %d a chunk and edge)",
					c.name, f, pc.cacheWords, st.Chunks, edges, bound, perEdge)
			}
		}
	}
}
