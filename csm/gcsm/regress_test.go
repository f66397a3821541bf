package gcsm

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/submatch/submatch/csm"
	"github.com/submatch/submatch/formats/updates"
	"github.com/submatch/submatch/graph/dynamic"
	"github.com/submatch/submatch/pattern"
)

// badList is the emulation with a listing that goes wrong after the searches are listed.
type badList struct {
	emuBackend
	spoil func(out []uint32)
}

func (b badList) list(ctx context.Context, t *table, h *hostGraph, c *dcsr, ph *phase, lo, hi int, counts []uint64, out []uint32) error {
	if err := b.emuBackend.list(ctx, t, h, c, ph, lo, hi, counts, out); err != nil {
		return err
	}
	b.spoil(out)
	return nil
}

// TestListingRecordsChecked: a listing whose records do not lie in their searches' ranges (a
// garbage search index, a record of the next search) fails with an internal error before any
// of its matches is emitted, instead of emitting them or indexing out of range.
func TestListingRecordsChecked(t *testing.T) {
	tri, _ := pattern.Parse("(a)-(b)-(c)-(a)")
	for name, spoil := range map[string]func([]uint32){
		"garbage": func(out []uint32) { out[len(out)-listWords] = 1 << 30 },
		"shifted": func(out []uint32) { out[len(out)-listWords]++ },
	} {
		g := dynamic.New()
		for i := range 6 {
			g.AddVertex(int64(i), 0)
		}
		for i := range 5 {
			g.AddEdge(uint32(i), uint32(i+1), 0)
			g.AddEdge(uint32(i), 5, 0)
		}
		m, err := open(g, []*pattern.Pattern{tri}, csm.Options{}, func(*table) (backend, error) {
			return badList{emuBackend{budget: 1 << 30}, spoil}, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		var res csm.Result
		emitted := 0
		err = m.Apply(context.Background(), []updates.Update{{Kind: updates.InsertEdge, U: 0, V: 2}, {Kind: updates.InsertEdge, U: 1, V: 3}},
			func(csm.SignedMatch) bool { emitted++; return true }, &res)
		if err == nil || !strings.Contains(err.Error(), "internal error") {
			t.Fatalf("%s: err %v, emitted %d", name, err, emitted)
		}
		if emitted >= 6 { // the first group (listCap 6) is spoilt
			t.Fatalf("%s: %d matches emitted from a spoilt listing", name, emitted)
		}
	}
}

// TestCheckListed: a search whose cursor ended elsewhere than its start plus its count (fewer
// or more matches listed) fails the listing.
func TestCheckListed(t *testing.T) {
	counts := []uint64{9, 2, 0, 3, 1}
	if err := checkListed([]uint64{2, 2, 5, 6}, counts, 1); err != nil {
		t.Fatal(err)
	}
	for _, ends := range [][]uint64{{1, 1, 5, 6}, {2, 2, 4, 6}, {2, 3, 5, 6}, {2, 2, 5, 7}} {
		if err := checkListed(ends, counts, 1); err == nil {
			t.Fatalf("cursors %v accepted for counts %v", ends, counts[1:])
		}
	}
	out := make([]uint32, 3*listWords)
	out[2*listWords] = 2
	if err := checkRecords(out, counts, 1, 4); err != nil {
		t.Fatal(err)
	}
	if err := checkRecords(out[:2*listWords], counts, 1, 2); err != nil {
		t.Fatal(err)
	}
	if err := checkRecords(out, counts, 1, 2); err == nil {
		t.Fatal("a record past the searches' counts accepted")
	}
}

// clique is the complete graph on n vertices, labels 0.
func clique(n int) *dynamic.Graph {
	g := dynamic.New()
	for i := range n {
		g.AddVertex(int64(i), 0)
	}
	for i := range n {
		for j := i + 1; j < n; j++ {
			g.AddEdge(uint32(i), uint32(j), 0)
		}
	}
	return g
}

// TestHostListingStops: a search with more matches than the listing buffer is listed on the
// host; when emit returns false the listing enumerates no further, and when the context is
// cancelled it stops within a poll interval.
func TestHostListingStops(t *testing.T) {
	k5, _ := pattern.Parse("(a)-(b)-(c)-(d)-(e)-(a), (a)-(c), (a)-(d), (b)-(d), (b)-(e), (c)-(e)")
	del := []updates.Update{{Kind: updates.DeleteEdge, U: 0, V: 1}}
	open := func() *Matcher {
		m, err := openEmu(clique(30), []*pattern.Pattern{k5}, csm.Options{}, 1<<30)
		if err != nil {
			t.Fatal(err)
		}
		return m.(*Matcher)
	}
	var res csm.Result
	m := open()
	if err := m.Apply(context.Background(), del, nil, &res); err != nil {
		t.Fatal(err)
	}
	total := res.Deltas[0].Destroyed // 120 orderings of each of C(28, 3) cliques

	m = open()
	emitted := 0
	err := m.Apply(context.Background(), del, func(csm.SignedMatch) bool { emitted++; return false }, &res)
	if !errors.Is(err, csm.ErrStopped) || emitted != 1 || m.Stats().HostListed != 1 {
		t.Fatalf("emit stopped at the first match: err %v, emitted %d, %d listed on the host", err, emitted, m.Stats().HostListed)
	}

	m = open()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	emitted = 0
	err = m.Apply(ctx, del, func(csm.SignedMatch) bool { emitted++; cancel(); return true }, &res)
	if !errors.Is(err, context.Canceled) || uint64(emitted) > 2*pollSteps || uint64(emitted) >= total {
		t.Fatalf("cancelled at the first match: err %v, emitted %d of %d", err, emitted, total)
	}
}

// modeAlloc is the emulation recording the mode the host graph's memory was asked for.
type modeAlloc struct {
	emuBackend
	got *[]Mode
}

func (b modeAlloc) alloc(m Mode) allocator {
	*b.got = append(*b.got, m)
	return goAlloc
}

// TestUnifiedMode: the unified-memory mode asks the backend for the host graph's memory as
// managed memory and caches nothing (every list read goes to the host graph), where the cache
// mode with the same budget serves reads from the cache; the counts are checked by the sweeps.
func TestUnifiedMode(t *testing.T) {
	c := newRandomCase(3, false)
	for _, mode := range []Mode{ModeUnified, ModeCache} {
		var got []Mode
		m, err := open(c.g(), c.pats, csm.Options{SkipInvalid: true, Mode: mode.String()}, func(*table) (backend, error) {
			return modeAlloc{emuBackend{budget: 1 << 30}, &got}, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		gm := m.(*Matcher)
		var reads, hits uint64
		var res csm.Result
		for lo := 0; lo < len(c.stream); lo += c.batch {
			if err := m.Apply(context.Background(), c.stream[lo:min(lo+c.batch, len(c.stream))], nil, &res); err != nil {
				t.Fatal(err)
			}
			reads, hits = reads+gm.Stats().Reads, hits+gm.Stats().Hits
		}
		gm.Close()
		if len(got) != 1 || got[0] != mode {
			t.Errorf("%v: the backend was asked for memory of modes %v", mode, got)
		}
		if reads == 0 {
			t.Fatalf("%v: no list read", mode)
		}
		if (hits == 0) != (mode == ModeUnified) {
			t.Errorf("%v: %d of %d list reads from the cache", mode, hits, reads)
		}
	}
}
