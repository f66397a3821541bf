package stmatch

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/internal/proptest"
)

// TestBuildHubs checks the hub bitmaps against the lists they stand for: every row holds exactly
// its list's members, the rows go to the longest lists first, and they stay within the budget.
func TestBuildHubs(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 17))
	for trial := range 200 {
		n := 1 + rng.IntN(300)
		lists := rng.IntN(40)
		offs := []uint64{0}
		var vals []uint32
		for range lists {
			var l []uint32
			for x := range uint32(n) {
				if rng.IntN(4) == 0 {
					l = append(l, x)
				}
			}
			vals = append(vals, l...)
			offs = append(offs, uint64(len(vals)))
		}
		words := (uint64(n) + 31) / 32
		budget := 4*uint64(len(offs)) + uint64(rng.IntN(12))*4*words
		minLen := 1 + rng.IntN(40)
		h := buildHubs(offs, func(lo, hi uint64) []uint32 { return vals[lo:hi] }, n, budget, minLen)
		if h == nil {
			continue
		}
		if h.bytes() > budget || h.Words != words || uint64(len(h.Bits)) != uint64(h.N)*words || len(h.Rows) != len(offs) {
			t.Fatalf("trial %d: %d rows of %d words, %d bytes for a budget of %d", trial, h.N, h.Words, h.bytes(), budget)
		}
		shortestIn, longestOut := ^uint64(0), uint64(0)
		rows := 0
		for k := 0; k+1 < len(offs); k++ {
			l := vals[offs[k]:offs[k+1]]
			row := h.Rows[k]
			if row == noRow {
				if len(l) >= minLen {
					longestOut = max(longestOut, uint64(len(l)))
				}
				continue
			}
			rows++
			if len(l) < minLen {
				t.Fatalf("trial %d: list %d of %d entries has a row (minimum %d)", trial, k, len(l), minLen)
			}
			shortestIn = min(shortestIn, uint64(len(l)))
			bits := h.Bits[uint64(row)*words : uint64(row+1)*words]
			for x := range uint32(words * 32) {
				in := bits[x>>5]>>(x&31)&1 == 1
				if _, want := slices.BinarySearch(l, x); in != want {
					t.Fatalf("trial %d: list %d, vertex %d: bitmap %v, list %v", trial, k, x, in, want)
				}
			}
		}
		if rows != h.N || (rows > 0 && longestOut > shortestIn) {
			t.Fatalf("trial %d: %d rows (%d counted); a list of %d entries has none while one of %d has", trial, rows, h.N, longestOut, shortestIn)
		}
	}
}

// TestFlatHubs checks that the bitmaps of a flat plan's lists (candidate space, or adjacency
// lists) hold the lists the kernel reads through Offsets and the values.
func TestFlatHubs(t *testing.T) {
	checked := 0
	for seed := uint64(1); seed <= 20; seed++ {
		forFlatPlans(t, seed, func(c proptest.Case, noSpace bool, fp *flatPlan, offs []uint64, adj []uint32) {
			vals := adj
			if !fp.Graph {
				vals = fp.values()
			}
			n := c.G.NumVertices()
			h := fp.hubs(n, offs, adj, 1<<30, 1)
			if h == nil {
				return
			}
			checked += h.N
			for k := 0; k+1 < len(offs); k++ {
				row := h.Rows[k]
				if row == noRow {
					if offs[k+1] > offs[k] {
						t.Fatalf("seed %d: list %d of %d entries has no row", seed, k, offs[k+1]-offs[k])
					}
					continue
				}
				l := vals[offs[k]:offs[k+1]]
				for x := range uint32(n) {
					in := h.Bits[uint64(row)*h.Words+uint64(x>>5)]>>(x&31)&1 == 1
					if _, want := slices.BinarySearch(l, x); in != want {
						t.Fatalf("seed %d (no space %v): list %d, vertex %d: bitmap %v, list %v", seed, noSpace, k, x, in, want)
					}
				}
			}
		})
	}
	if checked == 0 {
		t.Fatal("no list had a bitmap")
	}
	t.Logf("%d bitmaps checked", checked)
}

// TestPrebuiltHubs: the bitmaps built before the devices open (prebuildHubs) serve a device's
// budget only when a build for that budget makes the same ones; otherwise it builds its own.
func TestPrebuiltHubs(t *testing.T) {
	reused, rebuilt := 0, 0
	for seed := uint64(1); seed <= 12; seed++ {
		forFlatPlans(t, seed, func(c proptest.Case, noSpace bool, fp *flatPlan, offs []uint64, adj []uint32) {
			for _, minLen := range []int{0, 1, 3} {
				fp.prebuildHubs(c.G, minLen)
				n := c.G.NumVertices()
				full := fp.hubs(n, offs, adj, hubMaxBytes, minLen)
				budgets := []uint64{0, 1, hubMaxBytes, hubMaxBytes - 1}
				if full != nil {
					index, row := 4*uint64(len(full.Rows)), 4*full.Words
					budgets = append(budgets, index+row, index+row+1, full.bytes()-1, full.bytes(), full.bytes()+row, index+row*uint64(1+full.N/2))
				}
				for _, budget := range budgets {
					got, want := fp.hubsWithin(c.G, budget, minLen), fp.hubs(n, offs, adj, budget, minLen)
					if (got == nil) != (want == nil) || got != nil && (got.N != want.N || !slices.Equal(got.Rows, want.Rows) || !slices.Equal(got.Bits, want.Bits)) {
						t.Fatalf("seed %d (no space %v, min %d), budget %d: prebuilt gives other bitmaps than a build", seed, noSpace, minLen, budget)
					}
					if got != nil && got == fp.prebuilt.h {
						reused++
					} else if got != nil {
						rebuilt++
					}
				}
				if got := fp.hubsWithin(c.G, hubMaxBytes, minLen+1); got != nil && got == fp.prebuilt.h {
					t.Fatalf("seed %d: bitmaps prebuilt for lists of %d entries served a minimum of %d", seed, minLen, minLen+1)
				}
			}
		})
	}
	if reused == 0 || rebuilt == 0 {
		t.Fatalf("prebuilt bitmaps reused %d times, rebuilt %d: both paths must run", reused, rebuilt)
	}
	t.Logf("prebuilt bitmaps reused %d times, rebuilt %d", reused, rebuilt)
}

// forFlatPlans calls f with the flat plan of seed's larger random problem (proptest.MakeLarger)
// with a candidate space and without one (plans found empty are skipped), and the lists its hub
// bitmaps index: the candidate space's offsets (adj nil), or in graph mode the sorted CSR.
func forFlatPlans(t *testing.T, seed uint64, f func(c proptest.Case, noSpace bool, fp *flatPlan, offs []uint64, adj []uint32)) {
	t.Helper()
	c := proptest.MakeLarger(seed)
	for _, noSpace := range []bool{false, true} {
		o := Options{NoSpace: noSpace}
		pl := testPlan(c.G, c.P, engine.Semantics{}, o)
		if pl.Empty {
			continue
		}
		fp, err := flattenOn(c.G, pl, o.flatOptions(false))
		if err != nil {
			t.Fatal(err)
		}
		offs, adj := fp.Offsets, []uint32(nil)
		if fp.Graph {
			offs, adj = fp.sortedCSR(c.G)
		}
		f(c, noSpace, fp, offs, adj)
	}
}

// TestRelayQueue moves the published tasks of a ring that has wrapped around into a larger one
// and checks the order, the contents and the sequence numbers of the kernel's protocol.
func TestRelayQueue(t *testing.T) {
	const oldCap = 8
	tasks := make([]uint32, oldCap*taskWords)
	seq := make([]uint64, oldCap)
	tail, head := uint64(13), uint64(19) // tickets 13..18: slots 5, 6, 7, 0, 1, 2
	for s := range uint64(oldCap) {
		seq[s] = s + 2*oldCap // free slots of later tickets
	}
	for tk := tail; tk < head; tk++ {
		s := tk % oldCap
		seq[s] = tk + 1
		for w := range uint64(taskWords) {
			tasks[s*taskWords+w] = uint32(tk*1000 + w)
		}
	}
	nt, ns, err := relayQueue(tasks, seq, tail, head, 16)
	if err != nil {
		t.Fatal(err)
	}
	for k := range uint64(16) {
		want := k
		if k < head-tail {
			want = k + 1
			for w := range uint64(taskWords) {
				if got := nt[k*taskWords+w]; got != uint32((tail+k)*1000+w) {
					t.Fatalf("slot %d word %d: %d", k, w, got)
				}
			}
		}
		if ns[k] != want {
			t.Fatalf("slot %d: sequence %d, want %d", k, ns[k], want)
		}
	}
	seq[(tail+2)%oldCap] = tail + 2 // a task still being written
	if _, _, err := relayQueue(tasks, seq, tail, head, 16); err == nil {
		t.Fatal("an unpublished slot was relayed")
	}
	if _, _, err := relayQueue(tasks, seq, tail, head, 12); err == nil {
		t.Fatal("a capacity that is not a power of two was accepted")
	}
}

// TestForDevicesStopped: a preparation stopped before its host work for the devices (its count
// released: no GPU, or --engine auto chose another engine) builds neither the roots' weights
// nor the hub bitmaps (up to hubMaxBytes of host memory for nothing); a live one builds both.
func TestForDevicesStopped(t *testing.T) {
	stopped, cancel := context.WithCancel(context.Background())
	cancel()
	built := 0
	for seed := uint64(1); seed <= 6; seed++ {
		forFlatPlans(t, seed, func(c proptest.Case, noSpace bool, fp *flatPlan, offs []uint64, adj []uint32) {
			fp.forDevices(stopped, c.G, Options{hubMin: 1})
			if fp.prebuilt != nil || fp.weights.order != nil {
				t.Fatalf("seed %d (no space %v): a stopped preparation built bitmaps (%v) or weights (%d)", seed, noSpace, fp.prebuilt != nil, len(fp.weights.order))
			}
			fp.forDevices(context.Background(), c.G, Options{hubMin: 1})
			if fp.prebuilt == nil || fp.splitsRoots() && fp.weights.order == nil {
				t.Fatalf("seed %d (no space %v): a live preparation built no bitmaps or weights", seed, noSpace)
			}
			built++
		})
	}
	if built == 0 {
		t.Fatal("no plan prepared")
	}
}
