package dcsm

import (
	"context"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"

	"github.com/submatch/submatch/csm"
	"github.com/submatch/submatch/formats/updates"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/graph/dynamic"
	"github.com/submatch/submatch/pattern"
)

// memoryFlat applies n updates that toggle random pairs of a fixed set (an edge inserted when
// absent, deleted when present: the graph's size stays about the same) and checks that the pool
// stays bounded: the collector frees the versions no later update can read. It returns the pool's
// peak and the entries in use at the end.
func memoryFlat(t *testing.T, open opener, n int) {
	g := dynamic.FromGraph(gen.RandomGraph(7, 2000, 0.004, 2, 1))
	tri, _ := pattern.Parse("(a)-(b)-(c)-(a)")
	m, err := open(g, []*pattern.Pattern{tri}, csm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	r := rand.New(rand.NewPCG(7, 1))
	type pair struct{ a, b int64 }
	pairs := make([]pair, 20000)
	present := make([]bool, len(pairs))
	for i := range pairs {
		a, b := r.Int64N(2000), r.Int64N(2000)
		for a == b {
			b = r.Int64N(2000)
		}
		pairs[i] = pair{a, b}
		x, _ := g.Lookup(a)
		y, _ := g.Lookup(b)
		_, present[i] = g.EdgeLabel(x, y)
	}
	var created, destroyed uint64
	chunk := make([]updates.Update, 0, 1<<15)
	var first Stats
	var peakAfter uint64
	for done := 0; done < n; {
		chunk = chunk[:0]
		for len(chunk) < cap(chunk) && done+len(chunk) < n {
			i := r.IntN(len(pairs))
			u := updates.Update{Kind: updates.InsertEdge, U: pairs[i].a, V: pairs[i].b, Line: done + len(chunk) + 1}
			if present[i] {
				u.Kind = updates.DeleteEdge
			}
			present[i] = !present[i]
			chunk = append(chunk, u)
		}
		// duplicate pairs in the set make some updates invalid: skip them
		m.opts.SkipInvalid = true
		err := m.ApplyEach(context.Background(), chunk, func(u updates.Update, res *csm.Result) error {
			if res.Skipped > 0 {
				return nil
			}
			created += res.Deltas[0].Created
			destroyed += res.Deltas[0].Destroyed
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		done += len(chunk)
		st := m.Stats()
		if first.Updates == 0 {
			first = st
		} else {
			peakAfter = max(peakAfter, st.PoolEntries)
		}
	}
	st := m.Stats()
	t.Logf("%d updates (%d waves): pool %d entries after the first chunk, peak %d after it, %d at the end (%d in blocks); %d bytes held; +%d -%d triangles; %v in the waves",
		st.Updates, st.Waves, first.PoolEntries, peakAfter, st.PoolEntries, st.LiveEntries, st.Bytes, created, destroyed, st.Time)
	if peakAfter > 2*first.PoolEntries+4096 {
		t.Errorf("the pool grew from %d to %d entries over the stream: versions are not collected", first.PoolEntries, peakAfter)
	}
}

func TestEmuMemoryFlat(t *testing.T) { memoryFlat(t, openEmu, 100000) }

// TestGPUMemoryFlat: the same on the GPU, SUBMATCH_DCSM_UPDATES updates (default 10^6).
func TestGPUMemoryFlat(t *testing.T) {
	needGPU(t)
	n := 1000000
	if s := os.Getenv("SUBMATCH_DCSM_UPDATES"); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil {
			t.Fatal(err)
		}
	}
	memoryFlat(t, openGPU, n)
}
