package sgsi

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/submatch/submatch/engine"
	_ "github.com/submatch/submatch/engine/cpu"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/internal/proptest"
	"github.com/submatch/submatch/pattern"
)

// directPatterns are the direct count's test patterns: triangles and wedges (rows generated from
// edges; an induced wedge reads a non-edge), 4-cliques (rows of a table), a labelled diamond,
// then 4-cycles and a tailed triangle.
var directPatterns = []string{
	"(a)-(b)-(c)-(a)",
	"(a)-(b)-(c)",
	"(a)-(b)-(c)-(d)-(a), (a)-(c), (b)-(d)",
	"(a:0)-(b:1)-(c:1)-(a), (a)-(d:1)-(b)",
	"(a)-(b)-(c)-(d)-(a)",
	"(a)-(b)-(c)-(a), (c)-(d)",
}

// refBlocks is the direct count's blocks by their definition: from each start, the longest run
// of units whose own words and distinct lists (degree + 2 words each) fit budget, recomputed
// from scratch for every end; a unit that does not fit alone is a block of its own, marked.
func refBlocks(u directUnits, lgs []*labelGraph, budget uint64) (ends []int, big []int) {
	cost := func(s, e int) uint64 {
		seen := map[uint64]bool{}
		w := uint64(0)
		for i := s; i < e; i++ {
			pairs, own := u.needs(i, nil, true)
			w += own
			for _, p := range pairs {
				if !seen[p] {
					seen[p] = true
					w += lgs[p>>32].degree(uint32(p)) + 2
				}
			}
		}
		return w
	}
	for s := 0; s < u.len(); {
		e := s
		for e < u.len() && cost(s, e+1) <= budget {
			e++
		}
		if e == s {
			big = append(big, s)
			e = s + 1
		} else {
			ends = append(ends, e)
		}
		s = e
	}
	return ends, big
}

// TestBlocker checks the direct count's schedule of blocks (blocker.next, collect) against
// refBlocks on random tables and edge units over random graphs, at budgets from a few lists to
// all of them: the same blocks, the same units too big for one, and each block's own (or other)
// lists those its units read, sorted and distinct, collected on one to three goroutines.
func TestBlocker(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 21))
	for trial := range 60 {
		g, err := gen.RMAT(gen.RMATOptions{Scale: 5 + trial%3, EdgeFactor: 2 + trial%5, Seed: uint64(trial) + 1})
		if err != nil {
			t.Fatal(err)
		}
		s := newStore(g, 0)
		nv := g.NumVertices()
		up := s.label(lgKey{anyEdge, anyLabel, upperSide})
		both := s.label(lgKey{anyEdge, anyLabel, bothSides})
		d := &directStep{lgs: []*labelGraph{up, both}, gen: -1,
			links: []directLink{{col: 0, lg: 0}, {col: 1, lg: 1}, {col: 2, lg: 0, negate: true}}}
		var units directUnits
		if trial%2 == 0 {
			k := 3
			table := make([]uint32, k*(1+rng.IntN(60)))
			for i := range table {
				table[i] = uint32(rng.IntN(nv))
			}
			units = &tableUnits{d: d, table: table, k: k}
		} else {
			d.links = d.links[:2]
			d.gen = 1
			bits := make([]uint32, bitsetWords(nv))
			for v := range nv {
				if rng.IntN(3) > 0 {
					bits[v/32] |= 1 << (v % 32)
				}
			}
			var verts []uint32
			for v := range nv {
				if rng.IntN(2) == 0 {
					verts = append(verts, uint32(v))
				}
			}
			units = &edgeUnits{d: d, verts: verts, bits: bits, less: trial%4 == 1}
		}
		b := newBlocker(d.lgs, nv, 0)
		for _, budget := range []uint64{4, 20, 100, 1000, 1 << 20} {
			wantEnds, wantBig := refBlocks(units, d.lgs, budget)
			var ends, big []int
			for start := 0; start < units.len(); {
				end, words := b.next(units, start, budget, budget)
				if end == start {
					big = append(big, start)
					start++
					continue
				}
				if words > budget {
					t.Fatalf("trial %d budget %d: block [%d, %d) of %d words", trial, budget, start, end, words)
				}
				ends = append(ends, end)
				own := trial%3 != 0
				b.workers, b.split = 1+trial%3, 2
				refs := b.collect(units, start, end, own, b.own)
				for lg := range d.lgs {
					want := map[uint32]bool{}
					for i := start; i < end; i++ {
						pairs, _ := units.needs(i, nil, own)
						for _, p := range pairs {
							if int(p>>32) == lg {
								want[uint32(p)] = true
							}
						}
					}
					got := refs[lg]
					if len(got) != len(want) || !slices.IsSorted(got) {
						t.Fatalf("trial %d budget %d block [%d, %d) graph %d: lists of %v, want %d distinct sorted", trial, budget, start, end, lg, got, len(want))
					}
					for _, v := range got {
						if !want[v] {
							t.Fatalf("trial %d budget %d: block [%d, %d) reads %d in graph %d, which no unit reads", trial, budget, start, end, v, lg)
						}
					}
				}
				start = end
			}
			if !slices.Equal(ends, wantEnds) || !slices.Equal(big, wantBig) {
				t.Fatalf("trial %d budget %d: blocks end at %v (alone too big: %v), want %v (%v)", trial, budget, ends, big, wantEnds, wantBig)
			}
		}
	}
}

// scheduleOnly is HostBackend whose direct count kernel does nothing: the schedule (blocks,
// pieces, uploads) of a count without its last step's work.
type scheduleOnly struct{ *HostBackend }

func (scheduleOnly) Last(lastArgs) error { return nil }

// TestDirectSchedule (SUBMATCH_SGSI_SCHEDULE="SCALE/DIV ...", a measurement, not a check) runs
// the schedule of counts of triangles (and 4-cliques with SUBMATCH_SGSI_SCHEDULE_K4=1) on
// unlabelled R-MAT graphs (edge factor 27, seed 1) at a DIV-th of GraphBytes (DIV 0: in core, a
// region of 4x GraphBytes) with scheduleOnly:
// the whole count's blocks, pieces and bytes to the device, exact, in a fraction of the
// emulation's time (the last step's counting skipped; the count is 0).
func TestDirectSchedule(t *testing.T) {
	spec := os.Getenv("SUBMATCH_SGSI_SCHEDULE")
	if spec == "" {
		t.Skip("set SUBMATCH_SGSI_SCHEDULE, e.g. \"17/16 21/16\"")
	}
	pats := []string{"(a)-(b)-(c)-(a)"}
	if os.Getenv("SUBMATCH_SGSI_SCHEDULE_K4") != "" {
		pats = append(pats, "(a)-(b)-(c)-(d)-(a), (a)-(c), (b)-(d)")
	}
	for _, f := range strings.Fields(spec) {
		var scale int
		var div uint64
		if _, err := fmt.Sscanf(f, "%d/%d", &scale, &div); err != nil {
			t.Fatal(err)
		}
		g, err := gen.RMAT(gen.RMATOptions{Scale: scale, EdgeFactor: 27, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range pats {
			p, err := pattern.Parse(s)
			if err != nil {
				t.Fatal(err)
			}
			for _, buffered := range []bool{false, true} {
				if buffered && (scale > 17 || len(pats) > 1) {
					continue // minutes to hours of the buffered last step
				}
				t0 := time.Now()
				st := &Stats{}
				words := GraphBytes(g) // (in core)
				if div > 0 {
					words = GraphBytes(g) / div / 4
				}
				r := &runner{ctx: context.Background(), be: scheduleOnly{NewHostBackend(words)}, st: st, s: newStore(g, 0),
					q: compileQuery(p), count: true, blockRows: DefaultBlockRows, blockSize: blockThreads, buffered: buffered}
				if err := r.run(false, false); err != nil {
					t.Fatal(err)
				}
				layout := float64(GraphBytes(g))
				t.Logf("scale %d %s 1/%d buffered %v: in core %v, %d blocks, %d pieces, %d units buffered, %d chunks, %d B to the device (%.2fx GraphBytes %d, %.2f words an oriented edge), refs %v, driver %v, whole %v",
					scale, s, div, buffered, st.InCore, st.Blocks, st.Pieces, st.BlockFallbacks, st.Chunks, st.BytesToGPU, float64(st.BytesToGPU)/layout, GraphBytes(g),
					float64(st.BytesToGPU)/4/float64(g.NumEdges()), st.Refs.Round(time.Millisecond), st.Driver.Round(time.Millisecond), time.Since(t0).Round(time.Millisecond))
			}
		}
	}
}

// TestListUpload checks the direct count's uploads gathered in chunks on several goroutines
// (listUpload, putUpload) against the upload written word by word: for each part its vertices,
// their offsets (summed in ranges of at least 1 or 2 vertices, or on one goroutine), their
// lists; random parts of two label graphs (empty lists and parts included), chunks of 1 to 64
// words, one to four goroutines, written at an offset of a host region.
func TestListUpload(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 8))
	for trial := range 40 {
		g, err := gen.RMAT(gen.RMATOptions{Scale: 4 + trial%4, EdgeFactor: 1 + trial%6, Seed: uint64(trial) + 1})
		if err != nil {
			t.Fatal(err)
		}
		s := newStore(g, 0)
		lgs := []*labelGraph{s.label(lgKey{anyEdge, anyLabel, upperSide}), s.label(lgKey{anyEdge, anyLabel, bothSides})}
		var u listUpload
		u.reset(1 + trial%4)
		u.chunk, u.split = uint64(1+rng.IntN(64)), trial%3 // (split 0: one goroutine on these sizes)
		var want []uint32
		for range 1 + rng.IntN(4) {
			lg := lgs[rng.IntN(2)]
			var refs []uint32
			for v := range g.NumVertices() {
				if rng.IntN(3) == 0 {
					refs = append(refs, uint32(v))
				}
			}
			w := uint64(len(want))
			want = appendUploadLayout(want, lg, refs)
			if got := u.add(lg, refs); got != uint64(len(want))-w {
				t.Fatalf("trial %d: a part of %d words, want %d", trial, got, uint64(len(want))-w)
			}
		}
		const at = 5
		be := NewHostBackend(uint64(len(want)) + at + 3)
		r := &runner{be: be, st: &Stats{}}
		if err := r.putUpload(at, &u); err != nil {
			t.Fatal(err)
		}
		if got := be.mem[at : at+uint64(len(want))]; !slices.Equal(got, want) {
			t.Fatalf("trial %d (chunks of %d words, %d goroutines, split %d): uploaded\n%v\nwant\n%v", trial, u.chunk, u.workers, u.split, got, want)
		}
		if n := uint64(len(want)); r.st.CopiesToGPU != (n+u.chunk-1)/u.chunk {
			t.Errorf("trial %d: %d copies of %d words in chunks of %d", trial, r.st.CopiesToGPU, n, u.chunk)
		}
	}
}

// TestDirectInCoreBlocks counts in core in several direct blocks (the least block budget
// lowered, coreBlock) on the host emulation, rows generated and from tables, every convention,
// against the cpu engine, then again with the blocks' pace started at 64 words (blocks and
// pieces of a few lists); it fails when a count was not in core, no count took several blocks,
// the pace cut no count into more blocks, or no block of generated rows into pieces.
func TestDirectInCoreBlocks(t *testing.T) {
	cpuEngine, err := engine.Lookup("cpu")
	if err != nil {
		t.Fatal(err)
	}
	several, more, pieces := 0, 0, 0
	for _, gc := range []gen.RMATOptions{{Scale: 8, EdgeFactor: 8, Seed: 5}, {Scale: 8, EdgeFactor: 6, VertexLabels: 2, Seed: 6}} {
		g, err := gen.RMAT(gc)
		if err != nil {
			t.Fatal(err)
		}
		for _, ps := range directPatterns {
			p, err := pattern.Parse(ps)
			if err != nil {
				t.Fatal(err)
			}
			for _, sem := range proptest.AllSemantics {
				want, err := cpuEngine.Count(context.Background(), &engine.Problem{Data: g, Pattern: p, Semantics: sem})
				if err != nil {
					t.Fatal(err)
				}
				var blocks [2]uint64
				for i, pace := range []uint64{0, 64} { // (0: firstChunkItems)
					st := &Stats{}
					r := &runner{ctx: context.Background(), be: NewHostBackend(4 * GraphBytes(g)), st: st, s: newStore(g, 0),
						q: compileQuery(p), count: true, blockRows: DefaultBlockRows, blockSize: blockThreads, coreBlock: 16 + 48*uint64(1-i),
						blockPace: pacer{items: pace}}
					if err := r.run(sem.Induced, sem.Unique); err != nil {
						t.Fatal(err)
					}
					if r.total != want.Count || (st.Steps > 0 && !st.InCore) {
						t.Errorf("R-MAT %+v, %s, %s, pace from %d words: %d in core %v (%d blocks), cpu %d", gc, p, sem, pace, r.total, st.InCore, st.Blocks, want.Count)
					}
					blocks[i] = st.Blocks
					if i == 1 && st.Pieces > st.Blocks {
						pieces++
					}
				}
				if blocks[0] > 1 {
					several++
				}
				if blocks[1] > blocks[0] {
					more++
				}
			}
		}
	}
	t.Logf("%d counts in core in several blocks, %d in more blocks paced, %d with pieces paced", several, more, pieces)
	if several == 0 || more == 0 || pieces == 0 {
		t.Error("no count in core took several blocks, or more blocks or pieces paced: the test checks nothing of them")
	}
}

// appendUploadLayout appends what listUpload.add writes for refs of lg, written out simply:
// the refs, their lists' offsets (and the end), then the lists.
func appendUploadLayout(want []uint32, lg *labelGraph, refs []uint32) []uint32 {
	want = append(want, refs...)
	off := uint32(0)
	for _, v := range refs {
		want = append(want, off)
		off += uint32(len(lg.list(v)))
	}
	want = append(want, off)
	for _, v := range refs {
		want = append(want, lg.list(v)...)
	}
	return want
}
