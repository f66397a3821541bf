package pbe

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/internal/cudahost"
	"github.com/submatch/submatch/internal/testenv"
	"github.com/submatch/submatch/partition"
	"github.com/submatch/submatch/pattern"
)

// heavyCases are skewed graphs cut into parts where heavy seeds happen: R-MAT scale 9 with
// initiator 0.75, 0.1, 0.1 (a few hubs joined to most vertices) at the tightest budget (ranges) and R-MAT scale 10, unlabelled and with two vertex and two edge
// labels, at 0.23 of the graph (ranges), with cliques, cycles, paths (third positions adjacent to
// one end of the seed) and a labelled pattern.
func heavyCases(t *testing.T) []interCase {
	ctx := context.Background()
	rm := func(o gen.RMATOptions) *graph.Graph {
		g, err := gen.RMAT(o)
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	graphs := []struct {
		what string
		g    *graph.Graph
		b    func(*graph.Graph) uint64
		pats []string
	}{
		{"skewed R-MAT 9", rm(gen.RMATOptions{Scale: 9, EdgeFactor: 8, Seed: 7, A: 0.75, B: 0.1, C: 0.1}), func(g *graph.Graph) uint64 { return max(64, MinBudget(g)) },
			[]string{"(a)-(b)-(c)-(a)", "(a)-(b)-(c)", "(a)-(b)-(c)-(d)-(a)-(c), (b)-(d)"}},
		{"R-MAT 10", rm(gen.RMATOptions{Scale: 10, EdgeFactor: 12, Seed: 5}), func(g *graph.Graph) uint64 { return partition.GraphBytes(g) * 23 / 100 },
			[]string{"(a)-(b)-(c)-(a)", "(a)-(b)-(c)-(d)-(a)-(c), (b)-(d)", "(a)-(b)-(c)-(d)-(a)", "(a)-(b)-(c)"}},
		{"R-MAT 10 labelled", rm(gen.RMATOptions{Scale: 10, EdgeFactor: 12, Seed: 6, VertexLabels: 2, EdgeLabels: 2}), func(g *graph.Graph) uint64 { return partition.GraphBytes(g) * 23 / 100 },
			[]string{"(a)-(b)-(c)-(a)", "(a)-[:*]-(b)-(c)-[:*]-(d)-(a)"}},
	}
	var out []interCase
	for _, gc := range graphs {
		pt, err := partition.Partition(ctx, gc.g, partition.Options{Budget: gc.b(gc.g), Method: partition.Ranges})
		if err != nil || len(pt.Parts) < 2 {
			t.Fatalf("%s: %v (%d parts)", gc.what, err, len(pt.Parts))
		}
		for _, src := range gc.pats {
			p, err := pattern.Parse(src)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, interCase{fmt.Sprintf("%s %s", gc.what, src), gc.g, pt.Of, p})
		}
	}
	return out
}

// TestInterKernelHeavySeeds runs kernels/inter.cu built for the host with heavy seeds split (at
// heavyMin, and at a threshold of 8 with 2 candidates a slice, so that most seeds of the skewed
// graphs are heavy and split up to hundreds of slices) against the host inter stage, on
// heavyCases: matches, seeds, nodes and bytes must be the same in every convention, shared execution
// on and off, one thread at a time (cudahost.Build) and as warps of 32 lanes
// (cudahost.BuildLanes, the warp sums of the counters).
func TestInterKernelHeavySeeds(t *testing.T) {
	bins := []string{cudahost.Build(t, "pbe_inter", interKernelSource, interHostMain),
		cudahost.BuildLanes(t, "pbe_inter_lanes", interKernelSource, interHostMain, 32)}
	runs, split, wide := 0, 0, 0
	eachInterStage(t, heavyCases(t), func(c interCase, sem engine.Semantics, shared bool, _ *interPlan, dp *devicePlan, want interStats) {
		for li, least := range []uint64{heavyMin, 8} {
			grain := []uint64{heavyGrain, 2}[li]
			r := c.g.Raw()
			h := heavySeeds(r.Offsets, r.Neighbors, c.of, dp, least, grain, 0)
			heavy, classes := h.entries, h.classes
			if len(heavy) > 0 {
				split++
			}
			if len(classes) > 0 && classes[len(classes)-1].slices >= 32 {
				wide++
			}
			// The lanes' build on one convention (the fibers are slower), with blocks of two
			// warps.
			bin, blocks, threads, chunk := bins[0], uint64(3), uint64(2), uint64(97)
			if li == 1 && shared && sem == (engine.Semantics{}) {
				bin, blocks, threads, chunk = bins[1], 2, 64, 4096
			}
			got, _ := hostKernel(t, bin, 0, c.g, c.of, dp, least, grain, 0, chunk, blocks, threads)
			sameInter(t, fmt.Sprintf("%s %v shared %v heavy at %d (%d heavy seeds in %v)", c.what, sem, shared, least, len(heavy), classes), got, want)
			runs++
		}
	})
	t.Logf("%d inter stages compared, %d with heavy seeds, %d with 32 slices a seed or more", runs, split, wide)
	if split < runs/3 || wide == 0 {
		t.Fatalf("%d runs, %d with heavy seeds, %d with 32 slices or more", runs, split, wide)
	}
}

// TestInterKernelHeavyRaces runs the heavy seeds' launches as warps of 4 lanes under
// ThreadSanitizer (cudahost.BuildLanesRaces) in random lane orders: the slices of a seed share
// only the graph (read) and the counters (atomics).
func TestInterKernelHeavyRaces(t *testing.T) {
	bin := cudahost.BuildLanesRaces(t, "pbe_inter_races", interKernelSource, interHostMain, 4)
	c := heavyCases(t)[0]
	ctx := context.Background()
	ip, dp := defaultInterPlan(t, c)
	want, _ := runInter(ctx, c.g, c.of, entryBytes(c.g), enumerating(ip), 2, nil)
	for seed := range uint64(3) {
		got, _ := hostKernel(t, bin, seed+1, c.g, c.of, dp, 8, 2, 0, 61, 2, 8)
		sameInter(t, fmt.Sprintf("%s seed %d", c.what, seed), got, want)
	}
}

// TestInterBalance (SUBMATCH_PBE_BALANCE=1) prints the balance of the kernel's threads on the
// host build: R-MAT scales 14 and 16, triangles and 4-cliques (unique), ranges at 0.23 of the
// graph, on a grid of 2,112 blocks of 128 threads (an H200's resident threads) and of 66 blocks (so
// that a thread has as many entries as on the H200 at scale 21 for scale 16), each pass one launch
// (as the growing chunks of a long stage), one thread a seed (before: heavy at -1) and with the
// heavy seeds split (after: by heavyGrain, and by heavyMin). A launch lasts about its longest
// thread: the figure is the launches' longest threads summed over the work evenly spread (the
// summed work over the threads), 1 when perfectly even; the work is the candidates looked at,
// the nodes opened and one for each item (an entry, or a heavy seed's slice).
func TestInterBalance(t *testing.T) {
	if os.Getenv("SUBMATCH_PBE_BALANCE") == "" {
		t.Skip("set SUBMATCH_PBE_BALANCE=1 to measure the inter kernel's balance")
	}
	bin := cudahost.Build(t, "pbe_inter", interKernelSource, interHostMain)
	ctx := context.Background()
	for _, scale := range []int{14, 16} {
		g, err := gen.RMAT(gen.RMATOptions{Scale: scale, EdgeFactor: 16, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		pt, err := partition.Partition(ctx, g, partition.Options{Budget: partition.GraphBytes(g) * 23 / 100, Method: partition.Ranges})
		if err != nil {
			t.Fatal(err)
		}
		for _, src := range []string{"(a)-(b)-(c)-(a)", "(a)-(b)-(c)-(d)-(a)-(c), (b)-(d)"} {
			p, _ := pattern.Parse(src)
			ip, err := interPlanFor(ctx, &engine.Problem{Data: g, Pattern: p, Semantics: engine.Semantics{Unique: true}}, true, true)
			if err != nil {
				t.Fatal(err)
			}
			dp, err := flattenInter(ip)
			if err != nil {
				t.Fatal(err)
			}
			want, _ := runInter(ctx, g, pt.Of, entryBytes(g), enumerating(ip), 2, nil)
			for _, blocks := range []uint64{2112, 66} {
				threads := blocks * interBlock
				for _, split := range [][2]uint64{{noHeavy, heavyGrain}, {heavyMin, heavyGrain}, {heavyMin, heavyMin}} {
					least, grain := split[0], split[1]
					got, w := hostKernel(t, bin, 0, g, pt.Of, dp, least, grain, 0, 1<<40, blocks, interBlock)
					if got.matches != want.matches || got.nodes != want.nodes {
						t.Fatalf("scale %d %s: kernel %+v, host %+v", scale, src, got, want)
					}
					r := g.Raw()
					h := heavySeeds(r.Offsets, r.Neighbors, pt.Of, dp, least, grain, 0)
					heavy, classes := h.entries, h.classes
					items := 2 * g.NumEdges()
					for _, c := range classes {
						items += (c.hi - c.lo) * uint64(c.slices)
					}
					t.Logf("R-MAT %d %s %d threads heavy at %d grain %d: %d heavy seeds, %d items, work %d, longest threads %d, balance %.1f",
						scale, src, threads, int64(least), grain, len(heavy), items, w.total, w.longest, float64(w.longest)*float64(threads)/float64(max(w.total, 1)))
				}
			}
		}
	}
}

// TestInterKernelEverySeedHeavy runs the host build with every seed heavy (a threshold of 0 and
// of 1) and a slice a candidate of the bound (grain 1, up to 512 slices a seed on these graphs;
// TestInterKernelMaxSlices reaches maxSlices), against the
// host stage on interCases (random labelled graphs and patterns, wildcards, edge labels,
// symmetry windows, shared execution): the launches over the entries then count only the
// two-vertex programs, every other program runs split, most slices' candidate windows hold none
// of their positions (the bound overstates the runs and windows), and a labelled list's runs are
// stepped across; and with the list a byte over its limit (none split: the launches over the
// entries must then run every program). Matches, seeds, nodes and bytes must equal the host
// stage's. The R-MAT cases
// run in the long sweep only (testenv.Long).
func TestInterKernelEverySeedHeavy(t *testing.T) {
	bin := cudahost.Build(t, "pbe_inter", interKernelSource, interHostMain)
	runs, split := 0, 0
	cases := interCases(t)
	if !testenv.Long() { // (R-MAT's hubs make thousands of items a seed: the long sweep's)
		cases = slices.DeleteFunc(cases, func(c interCase) bool { return strings.HasPrefix(c.what, "R-MAT") })
	}
	eachInterStage(t, cases, func(c interCase, sem engine.Semantics, shared bool, _ *interPlan, dp *devicePlan, want interStats) {
		least := uint64(runs % 2)
		r := c.g.Raw()
		h := heavySeeds(r.Offsets, r.Neighbors, c.of, dp, least, 1, 0)
		if len(h.entries) > 0 {
			split++
		}
		got, _ := hostKernel(t, bin, 0, c.g, c.of, dp, least, 1, 0, 1+uint64(runs%5)*50, 3, 2)
		sameInter(t, fmt.Sprintf("%s %v shared %v every seed heavy at %d", c.what, sem, shared, least), got, want)
		if n := uint64(len(h.entries)); n > 0 && runs%3 == 0 {
			// A list over the limit: none split, and the entries' launches run every program.
			got, _ = hostKernel(t, bin, 0, c.g, c.of, dp, least, 1, n*heavyBytes-1, 97, 3, 2)
			sameInter(t, fmt.Sprintf("%s %v shared %v every seed heavy at %d, list over its limit", c.what, sem, shared, least), got, want)
		}
		runs++
	})
	if split < runs/2 {
		t.Fatalf("%d runs, %d with heavy seeds", runs, split)
	}
}

// TestHeavySeedsList checks heavySeeds against a direct reading of the programs, on heavyCases
// at thresholds 8 and heavyMin: an entry is listed exactly when it is a cut entry and some
// program of three positions or more has a list_bound (kernels/inter.cu: the smaller degree of
// the third position's earlier neighbours among the seed's ends) of the threshold or more, the
// classes tile the list in ascending slices, each class's entries ascend, and a seed's slices
// are the power of two in [2, maxSlices] its bound over the grain calls for. Under a limit of
// its heavyBytes the list is the same; a byte less and it is empty, the seeds counted in over,
// and the kernel's threshold noHeavy.
func TestHeavySeedsList(t *testing.T) {
	for _, c := range heavyCases(t) {
		_, dp := defaultInterPlan(t, c)
		r := c.g.Raw()
		deg := func(x uint32) uint64 { return r.Offsets[x+1] - r.Offsets[x] }
		for _, least := range []uint64{8, heavyMin} {
			// The bound of each cut entry over the programs, as the kernel computes it.
			want := map[uint64]uint64{}
			for v := range uint32(c.g.NumVertices()) {
				for e := r.Offsets[v]; e < r.Offsets[v+1]; e++ {
					w := r.Neighbors[e]
					if c.of[v] == c.of[w] {
						continue
					}
					for k := range dp.nprog {
						rec := dp.prog[uint64(k)*deviceProgWords:]
						if rec[0] < 3 {
							continue
						}
						back := rec[1+2*deviceStepWords+sBack]
						b := ^uint64(0)
						if back&1 != 0 {
							b = deg(v)
						}
						if back&2 != 0 {
							b = min(b, deg(w))
						}
						if b >= least {
							want[e] = max(want[e], b)
						}
					}
				}
			}
			h := heavySeeds(r.Offsets, r.Neighbors, c.of, dp, least, heavyGrain, 0)
			list, classes := h.entries, h.classes
			if h.over != 0 || h.least != least || len(list) != len(want) {
				t.Fatalf("%s at %d: %d listed (%d over, threshold %d), want %d", c.what, least, len(list), h.over, h.least, len(want))
			}
			at := uint64(0)
			for ci, cl := range classes {
				if cl.lo != at || cl.hi <= cl.lo || (ci > 0 && cl.slices <= classes[ci-1].slices) {
					t.Fatalf("%s at %d: classes %v", c.what, least, classes)
				}
				for i := cl.lo; i < cl.hi; i++ {
					e := list[i]
					b, ok := want[e]
					if !ok || (i > cl.lo && list[i-1] >= e) {
						t.Fatalf("%s at %d: entry %d at %d of class %v (listed %v, bound %d)", c.what, least, e, i, cl, ok, b)
					}
					s := uint64(2)
					for s < maxSlices && s*heavyGrain < b {
						s *= 2
					}
					if uint64(cl.slices) != s {
						t.Fatalf("%s at %d: entry %d of bound %d in %d slices, want %d", c.what, least, e, b, cl.slices, s)
					}
				}
				at = cl.hi
			}
			if at != uint64(len(list)) {
				t.Fatalf("%s at %d: classes %v over %d entries", c.what, least, classes, len(list))
			}
			n := uint64(len(list))
			if n == 0 {
				continue
			}
			if h2 := heavySeeds(r.Offsets, r.Neighbors, c.of, dp, least, heavyGrain, n*heavyBytes); h2.over != 0 || h2.least != least || len(h2.entries) != len(list) {
				t.Fatalf("%s at %d: within %d bytes, %d listed, %d over; want %d", c.what, least, n*heavyBytes, len(h2.entries), h2.over, n)
			}
			if h2 := heavySeeds(r.Offsets, r.Neighbors, c.of, dp, least, heavyGrain, n*heavyBytes-1); h2.over != n || h2.least != noHeavy || h2.entries != nil || h2.classes != nil {
				t.Fatalf("%s at %d: within %d bytes, %d listed, %d over, threshold %d; want none, %d and noHeavy", c.what, least, n*heavyBytes-1, len(h2.entries), h2.over, h2.least, n)
			}
		}
	}
}

// defaultInterPlan is c's inter plan, flattened, in the default convention with shared
// execution.
func defaultInterPlan(t *testing.T, c interCase) (*interPlan, *devicePlan) {
	t.Helper()
	ip, err := interPlanFor(context.Background(), &engine.Problem{Data: c.g, Pattern: c.p}, true, true)
	if err != nil {
		t.Fatal(err)
	}
	dp, err := flattenInter(ip)
	if err != nil {
		t.Fatal(err)
	}
	return ip, dp
}

// TestInterKernelMaxSlices runs the host build of the kernel on seeds whose bound passes
// maxSlices candidates a slice (grain 1): two hubs of 5,000 leaves each, in two parts, joined to
// each other and to ten shared vertices, with ten cut edges between their leaves and the
// leaves of each hub on a path. The seeds between the hubs and from the shared vertices to the
// second hub run in maxSlices slices of more than one candidate each (the top class, which no
// other test's graphs reach: their largest degree is under 2,048); matches, seeds, nodes and bytes
// must equal the host stage's in every convention, shared execution on and off.
func TestInterKernelMaxSlices(t *testing.T) {
	g, of := twoHubs(t)
	var cases []interCase
	for _, src := range []string{"(a)-(b)-(c)", "(a)-(b)-(c)-(a)", "(a)-(b)-(c)-(d)-(a)"} {
		p, err := pattern.Parse(src)
		if err != nil {
			t.Fatal(err)
		}
		cases = append(cases, interCase{"two hubs " + src, g, of, p})
	}
	bin := cudahost.Build(t, "pbe_inter", interKernelSource, interHostMain)
	top := 0
	eachInterStage(t, cases, func(c interCase, sem engine.Semantics, shared bool, _ *interPlan, dp *devicePlan, want interStats) {
		r := c.g.Raw()
		h := heavySeeds(r.Offsets, r.Neighbors, c.of, dp, heavyMin, 1, 0)
		if n := len(h.classes); n > 0 && h.classes[n-1].slices == maxSlices {
			top++
		}
		got, _ := hostKernel(t, bin, 0, c.g, c.of, dp, heavyMin, 1, 0, 1<<14, 4, 32)
		sameInter(t, fmt.Sprintf("%s %v shared %v (%d heavy seeds in %v)", c.what, sem, shared, len(h.entries), h.classes), got, want)
	})
	if top == 0 {
		t.Fatalf("no run had seeds in %d slices", maxSlices)
	}
}

// twoHubs is TestInterKernelMaxSlices's graph (two hubs of 5,000 leaves each, their leaves on a
// path, ten shared vertices and ten cut edges between the leaves) with its partition ids: the
// second hub and its leaves in part 1, the rest in part 0.
func twoHubs(t *testing.T) (*graph.Graph, []uint32) {
	t.Helper()
	const leaves = 5000
	b := graph.NewBuilder(graph.BuilderOptions{})
	add := func(u, v int64) {
		if err := b.AddEdge(u, v, 0); err != nil {
			t.Fatal(err)
		}
	}
	// 0 and 1: the hubs; 2..: the first hub's leaves, then the second's, then the shared ones.
	add(0, 1)
	for i := range int64(leaves) {
		a, z := 2+i, 2+leaves+i
		add(0, a)
		add(1, z)
		if i > 0 {
			add(a-1, a)
			add(z-1, z)
		}
		if i < 10 {
			add(a, z)
			add(0, 2+2*leaves+i)
			add(1, 2+2*leaves+i)
		}
	}
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	of := make([]uint32, g.NumVertices())
	for v := range of {
		if id := g.OriginalID(uint32(v)); id == 1 || id >= 2+leaves && id < 2+2*leaves {
			of[v] = 1
		}
	}
	return g, of
}

// TestInterKernelStopInHeavySeed runs the host build of the kernel with the host's stop flag
// raised from the start, on twoHubs's 2-paths with the heavy seeds in two slices of about 2,500
// candidates each (grain 2^20), one thread a launch: the thread must stop at its POLL_EVERY-th
// (1,024th) candidate inside a split seed as elsewhere, so each launch counts fewer than 1,024
// matches (every candidate of a 2-path's last position is a match), where the whole count is
// tens of thousands.
func TestInterKernelStopInHeavySeed(t *testing.T) {
	const pollEvery = 1024 // kernels/inter.cu's POLL_EVERY
	main := strings.Replace(interHostMain, "out, nullptr, ctl);", "out, &raised, ctl);", 1)
	main = strings.Replace(main, "int main() {", "static volatile unsigned raised = 1;\nint main() {", 1)
	if main == interHostMain {
		t.Fatal("interHostMain's launch changed: the stop flag is not passed")
	}
	bin := cudahost.Build(t, "pbe_inter_stopped", interKernelSource, main)
	g, of := twoHubs(t)
	p, err := pattern.Parse("(a)-(b)-(c)")
	if err != nil {
		t.Fatal(err)
	}
	c := interCase{"two hubs 2-paths", g, of, p}
	ip, dp := defaultInterPlan(t, c)
	want, _ := runInter(context.Background(), g, of, entryBytes(g), enumerating(ip), 2, nil)
	r := g.Raw()
	h := heavySeeds(r.Offsets, r.Neighbors, of, dp, heavyMin, 1<<20, 0)
	passes := uint64(len(interPasses(2*g.NumEdges(), h.classes)))
	if len(h.classes) != 1 || h.classes[0].slices != 2 || want.matches < 20*pollEvery*passes {
		t.Fatalf("heavy classes %v, %d matches: want seeds in two slices and many matches", h.classes, want.matches)
	}
	got, _ := hostKernel(t, bin, 0, g, of, dp, heavyMin, 1<<20, 0, 1<<40, 1, 1)
	if got.matches >= pollEvery*passes {
		t.Fatalf("stopped from the start: %d matches in %d launches of one thread (%d in all), want under %d a launch", got.matches, passes, want.matches, pollEvery)
	}
}
