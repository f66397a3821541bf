package stmatch

import (
	"context"
	"errors"
	"math/bits"
	"slices"
	"testing"

	"submatch/engine"
	_ "submatch/engine/cpu"
	"submatch/gen"
	"submatch/gpu"
	"submatch/graph"
	"submatch/pattern"
	"submatch/plan"
)

var semantics = []engine.Semantics{{}, {Induced: true}, {Unique: true}, {Induced: true, Unique: true}}

func buildPlan(g *graph.Graph, p *pattern.Pattern, sem engine.Semantics) *plan.Plan {
	return plan.Build(g, p, plan.Options{Induced: sem.Induced, Unique: sem.Unique, Enumerate: true})
}

func cpuCount(t testing.TB, g *graph.Graph, p *pattern.Pattern, sem engine.Semantics) uint64 {
	t.Helper()
	e, err := engine.Lookup("cpu")
	if err != nil {
		t.Fatal(err)
	}
	// One thread, no work stealing: the reference stays independent of the CPU's scheduler (its
	// stealing once miscounted induced 4-cliques on 16 cores, found by this check; see docs/gpu.md).
	res, err := e.Count(context.Background(), &engine.Problem{Data: g, Pattern: p, Semantics: sem, Threads: 1})
	if err != nil || res.Partial {
		t.Fatalf("cpu count of %s (%s): %v, partial %v", p, sem, err, res.Partial)
	}
	return res.Count
}

// emulate runs the kernel's algorithm on the host over the flat arrays, lane structure aside: it
// checks that the arrays and the metadata say what the kernel needs.
func emulate(fp *flatPlan, goff []uint64, gadj []uint32) uint64 {
	L := fp.L
	meta := func(i, k int) uint64 { return fp.Meta[i*metaStride+k] }
	m := make([]uint32, L)
	mi := make([]uint32, L)
	buf := make([]uint32, fp.Stride)
	has := func(a []uint32, x uint32) bool { _, ok := slices.BinarySearch(a, x); return ok }
	adjacent := func(a, b uint32) bool { return has(gadj[goff[a]:goff[a+1]], b) }
	levelSet := func(i int, last bool) uint64 {
		back := uint32(meta(i, mBack))
		var lists [][]uint32
		var src []uint32
		if back == 0 {
			src = fp.levelCands(i)
		} else {
			for b := back; b != 0; b &= b - 1 {
				j := bits.TrailingZeros32(b)
				lists = append(lists, fp.list(meta(i, mEBase+j), uint64(mi[j])))
			}
			slices.SortStableFunc(lists, func(a, b []uint32) int { return len(a) - len(b) })
			src, lists = lists[0], lists[1:]
		}
		out := buf[meta(i, mBufOff):]
		var n uint64
	next:
		for _, c := range src {
			for b := uint32(meta(i, mLower)); b != 0; b &= b - 1 {
				if c <= m[bits.TrailingZeros32(b)] {
					continue next
				}
			}
			for b := uint32(meta(i, mUpper)); b != 0; b &= b - 1 {
				if c >= m[bits.TrailingZeros32(b)] {
					continue next
				}
			}
			for _, l := range lists {
				if !has(l, c) {
					continue next
				}
			}
			for b := uint32(meta(i, mCollide)); b != 0; b &= b - 1 {
				if m[bits.TrailingZeros32(b)] == c {
					continue next
				}
			}
			for b := uint32(meta(i, mNonAdj)); b != 0; b &= b - 1 {
				if adjacent(m[bits.TrailingZeros32(b)], c) {
					continue next
				}
			}
			if !last {
				out[n] = c
			}
			n++
		}
		return n
	}
	var total uint64
	var rec func(i int)
	rec = func(i int) {
		if i == L-1 {
			total += levelSet(i, true)
			return
		}
		n := levelSet(i, false)
		set := slices.Clone(buf[meta(i, mBufOff) : meta(i, mBufOff)+n])
		if n > fp.Cap[i] {
			panic("level set exceeds its capacity")
		}
		for _, c := range set {
			m[i] = c
			if meta(i, mNeedIdx) != 0 {
				k, _ := slices.BinarySearch(fp.levelCands(i), c)
				mi[i] = uint32(k)
			}
			rec(i + 1)
		}
	}
	roots := fp.levelCands(0)
	for r, c := range roots {
		m[0], mi[0] = c, uint32(r)
		if L == 1 {
			total++
			continue
		}
		rec(1)
	}
	return total
}

// TestFlattenLists rebuilds every candidate-space list and candidate list from the flat arrays.
func TestFlattenLists(t *testing.T) {
	for seed := uint64(1); seed <= 30; seed++ {
		g := gen.RandomGraph(seed, 40, 0.2, 3, 2)
		p := gen.RandomPattern(seed*7, 2+int(seed%5), gen.PatternOptions{EdgeProb: 0.4, VertexLabels: 3, EdgeLabels: 2, Wildcard: 0.3, Components: 1 + int(seed%3)})
		for _, sem := range semantics {
			pl := buildPlan(g, p, sem)
			if pl.Empty {
				continue
			}
			fp, err := flatten(pl)
			if err != nil {
				t.Fatal(err)
			}
			if fp.L != len(pl.Levels) || fp.NumRoots != uint64(len(pl.Candidates[pl.Levels[0].Vertex])) {
				t.Fatalf("L %d roots %d", fp.L, fp.NumRoots)
			}
			var off uint64
			for i, lvl := range pl.Levels {
				if !slices.Equal(fp.levelCands(i), pl.Candidates[lvl.Vertex]) {
					t.Fatalf("seed %d level %d: candidate list differs", seed, i)
				}
				meta := fp.Meta[i*metaStride:]
				if meta[mBufOff] != off {
					t.Fatalf("level %d buffer offset %d, want %d", i, meta[mBufOff], off)
				}
				off += fp.Cap[i]
				var back uint64
				for _, be := range lvl.Backward {
					back |= 1 << be.Level
					idx := pl.Space[[2]int{pl.Levels[be.Level].Vertex, lvl.Vertex}]
					for k := range pl.Candidates[pl.Levels[be.Level].Vertex] {
						got := fp.list(meta[mEBase+be.Level], uint64(k))
						if !slices.Equal(got, idx.List(k)) {
							t.Fatalf("seed %d level %d edge from %d list %d: %v, want %v", seed, i, be.Level, k, got, idx.List(k))
						}
					}
					if fp.Meta[be.Level*metaStride+mNeedIdx] != 1 {
						t.Fatalf("level %d should be marked as needing its index", be.Level)
					}
				}
				if meta[mBack] != back {
					t.Fatalf("back mask %b, want %b", meta[mBack], back)
				}
				if (i == 0 || i == fp.L-1) && fp.Cap[i] != 0 {
					t.Fatalf("root/last level has a buffer")
				}
			}
			if max(off, 1) != fp.Stride {
				t.Fatalf("stride %d, want %d", fp.Stride, max(off, 1))
			}
		}
	}
}

// TestEmulatedKernelMatchesCPU runs the kernel's algorithm on the host over the flat arrays.
func TestEmulatedKernelMatchesCPU(t *testing.T) {
	checked := 0
	for seed := uint64(1); seed <= 60; seed++ {
		vl := int(seed % 3)
		g := gen.RandomGraph(seed, 30+int(seed%20), 0.25, vl, int(seed%2)+1)
		p := gen.RandomPattern(seed*13, 1+int(seed%6), gen.PatternOptions{EdgeProb: 0.5, VertexLabels: vl, EdgeLabels: int(seed%2) + 1, Wildcard: 0.3, Components: 1 + int(seed%4)/3})
		goff, gadj := sortedCSR(g)
		for _, sem := range semantics {
			want := cpuCount(t, g, p, sem)
			pl := buildPlan(g, p, sem)
			var got uint64
			if !pl.Empty {
				fp, err := flatten(pl)
				if err != nil {
					t.Fatal(err)
				}
				got = emulate(fp, goff, gadj)
			}
			if got != want {
				t.Errorf("seed %d %s (%s): emulated %d, cpu %d", seed, p, sem, got, want)
			}
			checked++
		}
	}
	t.Logf("%d cases", checked)
}

func TestSortedCSR(t *testing.T) {
	g := gen.RandomGraph(3, 50, 0.3, 4, 3)
	off, adj := sortedCSR(g)
	for u := 0; u < g.NumVertices(); u++ {
		l := adj[off[u]:off[u+1]]
		if !slices.IsSorted(l) {
			t.Fatalf("list of %d not sorted", u)
		}
		want := slices.Sorted(slices.Values(g.Neighbors(uint32(u))))
		if !slices.Equal(l, want) {
			t.Fatalf("list of %d differs", u)
		}
	}
}

func TestChooseBlocks(t *testing.T) {
	cases := []struct {
		want, wpb      int
		perWarp, avail uint64
		blocks         int
	}{
		{100, 4, 1000, 1 << 30, 100},
		{100, 4, 1000, 40_000, 10},
		{100, 4, 1000, 3999, 1}, // not even one block: one, and the allocation reports it
		{100, 4, 0, 0, 100},
		{0, 4, 10, 1 << 20, 1},
	}
	for _, c := range cases {
		if got := chooseBlocks(c.want, c.wpb, c.perWarp, c.avail); got != c.blocks {
			t.Errorf("chooseBlocks(%d, %d, %d, %d) = %d, want %d", c.want, c.wpb, c.perWarp, c.avail, got, c.blocks)
		}
	}
}

func TestNoSpace(t *testing.T) {
	g := gen.RandomGraph(1, 30, 0.3, 0, 0)
	p, _ := pattern.Parse("(a)-(b)-(c)-(a)")
	pl := plan.Build(g, p, plan.Options{Enumerate: true, SpaceLimit: -1})
	if _, err := flatten(pl); !errors.Is(err, errSpaceTooLarge) {
		t.Fatalf("flatten without a space: %v", err)
	}
}

// TestWithoutGPU: where no GPU is usable, Count fails with an error wrapping gpu.ErrNoGPU.
func TestWithoutGPU(t *testing.T) {
	if _, err := gpu.Open(context.Background()); err == nil {
		t.Skip("a GPU is present")
	}
	g := gen.RandomGraph(1, 30, 0.3, 0, 0)
	p, _ := pattern.Parse("(a)-(b)-(c)-(a)")
	e, err := engine.Lookup("stmatch")
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.Count(context.Background(), &engine.Problem{Data: g, Pattern: p})
	if !errors.Is(err, gpu.ErrNoGPU) {
		t.Fatalf("Count without a GPU: %v, want an error wrapping gpu.ErrNoGPU", err)
	}
	t.Logf("without a GPU: %v", err)
	for _, err := range e.Matches(context.Background(), &engine.Problem{Data: g, Pattern: p}) {
		if !errors.Is(err, ErrListing) {
			t.Fatalf("Matches: %v", err)
		}
	}
}

// TestCompileKernel compiles the kernel for sm_90 with NVRTC when it is present (no GPU needed).
func TestCompileKernel(t *testing.T) {
	if _, err := gpu.NVRTCVersion(); err != nil {
		t.Skipf("NVRTC not available: %v", err)
	}
	img, err := gpu.CompileSource(kernelSource, kernelFile, "sm_90", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d-byte cubin", len(img))
}
