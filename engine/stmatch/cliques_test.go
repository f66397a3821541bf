package stmatch

import (
	"context"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/engine/cpu"
	"github.com/submatch/submatch/engine/internal/cliques"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/internal/cudacheck"
	"github.com/submatch/submatch/internal/proptest"
	"github.com/submatch/submatch/internal/sharedtest"
	"github.com/submatch/submatch/internal/testenv"
	"github.com/submatch/submatch/pattern"
	"github.com/submatch/submatch/plan"
)

// TestCliqueKernelSyntax checks the clique kernel with clang's CUDA front end (no CUDA needed).
func TestCliqueKernelSyntax(t *testing.T) {
	cudacheck.Syntax(t, cliqueFile, cliqueSource)
}

// TestCliqueKernelConstants: the kernel's defines agree with the host's sizes.
func TestCliqueKernelConstants(t *testing.T) {
	for _, want := range []string{
		fmt.Sprintf("#define LANE_BITS %d ", cliqueMatrixMax),
		fmt.Sprintf("#define WARPS %d ", warpsPerBlock),
		fmt.Sprintf("#define C_OVERFLOW %d ", cliqueOverflow),
		fmt.Sprintf("#define C_POLL %d ", cliqueCtlWords-ctlLine), // the last line of the control words
	} {
		if !strings.Contains(cliqueSource, want) {
			t.Errorf("kernels/cliques.cu lacks %q", want)
		}
	}
	if cliqueMatrixMax != 32*32 || cliqueWideMax != 2*cliqueMatrixMax {
		t.Errorf("matrices of %d and %d members: the kernel's rows are one or two words a lane", cliqueMatrixMax, cliqueWideMax)
	}
}

// taskParts unpacks a task as the kernel does (TASK_ROOT, TASK_A, TASK_B): cliqueTask's inverse.
func taskParts(task uint64) (root uint32, a, b int) {
	return uint32(task), int(task >> 32 & 0xffff), int(task >> 48)
}

// emulateCliqueKernel runs kernels/cliques.cu's units (u's tasks, then every root) on the host
// and returns the cliques the warps add.
func emulateCliqueKernel(u upward, k int) uint64 {
	var sum uint64
	for _, task := range u.tasks {
		r, a, b := taskParts(task)
		sum += emulateCliqueUnit(u, r, a, b, k)
	}
	for r := range uint32(u.o.NumVertices()) {
		if len(u.o.Above(r)) <= int(u.split) {
			sum += emulateCliqueUnit(u, r, 0, u.bmax, k)
		}
	}
	return sum
}

// emulateCliqueUnit runs kernels/cliques.cu's warp algorithm for the unit of root r whose
// depth-0 choices are the members a..b-1 of its upward list, on the host, lane by lane, step
// for step: lay_out (both ways of finding a row), the depth-first walk with its pruning, and the
// last level's lane per member. It returns the cliques the warp adds.
func emulateCliqueUnit(u upward, r uint32, a, b, k int) uint64 {
	S := u.o.Above(r)
	d := len(S)
	if d < k-1 || d > u.bmax {
		return 0
	}
	W := (d + 31) >> 5
	R := make([]uint32, d*W)
	bitLength := func(x int) uint64 { return uint64(bits.Len32(uint32(x))) }
	last := S[d-1]
	for i := range d {
		N := u.o.Above(S[i])
		nu, _ := slices.BinarySearch(N, last+1) // upper_bound(N, last); ids here stay far below 2^32-1
		N = N[:nu]
		rest := d - i - 1
		var mine [cliqueWideMax / 32]uint32
		if uint64(rest)*bitLength(nu) <= uint64(nu)*bitLength(d) {
			for w := (i + 1) >> 5; w < W; w++ {
				var ballot uint32
				for lane := range 32 {
					j := w<<5 + lane
					if j > i && j < d {
						if _, hit := slices.BinarySearch(N, S[j]); hit {
							ballot |= 1 << lane
						}
					}
				}
				mine[w] = ballot
			}
		} else {
			for _, x := range N {
				if j, ok := slices.BinarySearch(S, x); ok {
					mine[j>>5] |= 1 << (j & 31)
				}
			}
		}
		copy(R[i*W:(i+1)*W], mine[:W])
	}

	B := make([][cliqueWideMax / 32]uint32, k)
	for lane := range W {
		B[0][lane] = ^uint32(0)
		if lane == W-1 && d&31 != 0 {
			B[0][lane] = 1<<(d&31) - 1
		}
		if lane<<5+32 <= a {
			B[0][lane] = 0
		} else if lane<<5 < a {
			B[0][lane] &= ^uint32(0) << (a & 31)
		}
	}
	popSum := func(a [cliqueWideMax / 32]uint32) int {
		n := 0
		for _, x := range a {
			n += bits.OnesCount32(x)
		}
		return n
	}
	var acc [32]uint64
	for t := 0; t >= 0; {
		need := k - 1 - t
		if need == 2 {
			total := popSum(B[t])
			for lane := range 32 {
				for s := lane; s < total; s += 32 {
					w, rem := 0, s
					for {
						pc := bits.OnesCount32(B[t][w])
						if rem < pc {
							break
						}
						rem -= pc
						w++
					}
					m := B[t][w]
					for ; rem > 0; rem-- {
						m &= m - 1
					}
					j := w<<5 + bits.TrailingZeros32(m)
					c := 0
					for x := w; x < W; x++ {
						c += bits.OnesCount32(B[t][x] & R[j*W+x])
					}
					acc[lane] += uint64(c)
				}
			}
			t--
			continue
		}
		// The first non-zero word (the kernel's ballot over each lane's slots in turn).
		word := B[t]
		f := slices.IndexFunc(word[:], func(x uint32) bool { return x != 0 })
		if f < 0 {
			t--
			continue
		}
		wf := word[f]
		j := f<<5 + bits.TrailingZeros32(wf)
		if t == 0 && j >= b {
			break
		}
		word[f] = wf & (wf - 1)
		var next [cliqueWideMax / 32]uint32
		for lane := range W {
			next[lane] = word[lane] & R[j*W+lane]
		}
		left, found := popSum(word), popSum(next)
		B[t] = word
		if left < need-1 {
			t--
			continue
		}
		if found >= need-1 {
			B[t+1] = next
			t++
		}
	}
	var sum uint64
	for _, a := range acc {
		sum += a
	}
	return sum
}

// TestEmulatedCliqueKernel checks the clique kernel's algorithm, emulated on the host, against
// the CPU engine on random graphs: sparse ones (rows found by scattering), dense ones (rows
// found by search, matrices of several words), vertex labels, and cliques of 4 to 8 vertices.
func TestEmulatedCliqueKernel(t *testing.T) {
	graphs := []struct {
		name string
		g    *graph.Graph
		vl   string
	}{
		{"sparse R-MAT", mustRMAT(t, 10, 16), ""},
		{"dense n=120", gen.RandomGraph(7, 120, 0.6, 1, 1), ""},
		{"dense n=90, 2 labels", gen.RandomGraph(8, 90, 0.8, 2, 1), "1"},
	}
	for _, gc := range graphs {
		for k := 4; k <= testenv.Sweep(6, 8); k++ {
			p := proptest.Clique(t, k, gc.vl, "")
			c, ok := plan.AsClique(gc.g, p)
			if !ok {
				t.Fatalf("%s: %d-clique not a clique", gc.name, k)
			}
			u := newUpward(c.Orient(gc.g, 0), cliqueWideMax)
			if len(u.heavy) != 0 {
				t.Fatalf("%s: %d heavy roots", gc.name, len(u.heavy))
			}
			res, err := cpu.Engine{}.Count(context.Background(), &engine.Problem{Data: gc.g, Pattern: p, Semantics: engine.Semantics{Unique: true}})
			if err != nil {
				t.Fatal(err)
			}
			// Whole roots; the engine's split; every root of more than 3 members in pieces
			// of about 2 (pieces of one member too).
			for _, cut := range []struct{ split, span int }{{cliqueMatrixMax, 1}, {-1, 0}, {3, 2}} {
				if cut.split < 0 {
					u.splitRoots(k)
				} else {
					u.cutRoots(cut.split, cut.span)
				}
				if got := emulateCliqueKernel(u, k); got != res.Count {
					t.Fatalf("%s, %d-cliques, split above %d (%d tasks): emulated kernel %d, CPU engine %d",
						gc.name, k, u.split, len(u.tasks), got, res.Count)
				}
			}
			if k == 5 {
				t.Logf("%s: %d 5-cliques", gc.name, res.Count)
			}
		}
	}
}

// TestSplitRoots: the tasks of a split root cover its upward list in order, in pieces that get
// longer (equal work; rounding may shorten one by a member), the largest roots first; the other roots have no tasks.
func TestSplitRoots(t *testing.T) {
	g, o := denseOriented(t)
	u := newUpward(o, cliqueWideMax)
	for _, k := range []int{4, 5, 8} {
		u.splitRoots(k)
		split, span := cliqueSplit(k)
		pieces := map[uint32][][2]int{}
		var order []uint32
		wide := 0
		for _, task := range u.tasks {
			if r, _, _ := taskParts(task); len(o.Above(r)) > cliqueMatrixMax {
				wide++
			}
			r, a, b := taskParts(task)
			if len(pieces[r]) == 0 {
				order = append(order, r)
			}
			pieces[r] = append(pieces[r], [2]int{a, b})
		}
		for i := 1; i < len(order); i++ {
			if len(o.Above(order[i])) > len(o.Above(order[i-1])) {
				t.Fatalf("k=%d: root %d (%d members) after root %d (%d)", k, order[i], len(o.Above(order[i])), order[i-1], len(o.Above(order[i-1])))
			}
		}
		for v := range uint32(g.NumVertices()) {
			d, ps := len(o.Above(v)), pieces[v]
			if (d > split && d <= u.bmax) != (len(ps) > 0) {
				t.Fatalf("k=%d: root %d with %d members has %d pieces (split above %d)", k, v, d, len(ps), split)
			}
			if len(ps) == 0 {
				continue
			}
			if want := (d + span - 1) / span; len(ps) > want {
				t.Fatalf("k=%d: root %d: %d pieces, want at most %d", k, v, len(ps), want)
			}
			at := 0
			for i, p := range ps {
				if p[0] != at || p[1] <= p[0] || (i > 0 && p[1]-p[0] < ps[i-1][1]-ps[i-1][0]-1) {
					t.Fatalf("k=%d: root %d (%d members): pieces %v", k, v, d, ps)
				}
				at = p[1]
			}
			if at != d {
				t.Fatalf("k=%d: root %d: pieces end at %d of %d", k, v, at, d)
			}
		}
		if len(order) == 0 || wide == 0 || wide != u.wide {
			t.Fatalf("k=%d: %d tasks, %d of wide roots (counted %d); want some of both", k, len(u.tasks), wide, u.wide)
		}
		// Dealt into groups: the same tasks, each group largest roots first.
		before := slices.Clone(u.tasks)
		u.dealTasks(8)
		if len(u.groups) != 9 || u.groups[0] != 0 || u.groups[8] != len(u.tasks) {
			t.Fatalf("k=%d: groups %v of %d tasks", k, u.groups, len(u.tasks))
		}
		for g := range 8 {
			group := u.tasks[u.groups[g]:u.groups[g+1]]
			if size := len(before) / 8; len(group) < size || len(group) > size+1 {
				t.Fatalf("k=%d: group %d has %d of %d tasks", k, g, len(group), len(before))
			}
			for i := 1; i < len(group); i++ {
				a, _, _ := taskParts(group[i-1])
				b, _, _ := taskParts(group[i])
				if len(o.Above(b)) > len(o.Above(a)) {
					t.Fatalf("k=%d: group %d: root %d after a smaller one", k, g, b)
				}
			}
		}
		slices.Sort(before)
		if dealt := slices.Sorted(slices.Values(u.tasks)); !slices.Equal(before, dealt) {
			t.Fatalf("k=%d: dealing changed the tasks", k)
		}
	}
}

// denseGraph is dense enough that the upward lists of its low-degree vertices reach and
// exceed the kernel's 1,024 members.
func denseGraph() *graph.Graph { return gen.RandomGraph(3, 1100, 0.97, 1, 1) }

// bipartiteCore is the complete bipartite graph K(n,n) with the edges inside each side drawn
// with probability p: for n over 1,024 its roots have wide matrices, yet few cliques (each has
// at most two vertices on one side unless that side has a triangle), so that the CPU reference
// counts 5- and 6-cliques in seconds.
func bipartiteCore(t testing.TB, n int, p float64) *graph.Graph {
	t.Helper()
	b := graph.NewBuilder(graph.BuilderOptions{})
	r := rand.New(rand.NewPCG(uint64(n), 7))
	for u := range 2 * n {
		for v := u + 1; v < 2*n; v++ {
			if (u < n) != (v < n) || r.Float64() < p {
				if err := b.AddEdge(int64(u), int64(v), 0); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// denseOriented returns denseGraph oriented for 4-cliques.
func denseOriented(t *testing.T) (*graph.Graph, *plan.Oriented) {
	t.Helper()
	g := denseGraph()
	c, ok := plan.AsClique(g, proptest.Clique(t, 4, "", ""))
	if !ok {
		t.Fatal("not a clique")
	}
	return g, c.Orient(g, 0)
}

// TestUpward: the kernel's view of the graph (its CSR and upward runs) holds every upward list,
// the matrices are wide only when a root needs it and they are allowed, and the heavy roots are
// those above the matrix size.
func TestUpward(t *testing.T) {
	g, o := denseOriented(t)
	sparse := mustRMAT(t, 10, 16)
	c, _ := plan.AsClique(sparse, proptest.Clique(t, 4, "", ""))
	for _, tc := range []struct {
		name            string
		g               *graph.Graph
		o               *plan.Oriented
		maxMatrix, bmax int
		heavy           bool
	}{
		{"dense, narrow", g, o, cliqueMatrixMax, cliqueMatrixMax, true},
		{"dense, wide", g, o, cliqueWideMax, cliqueWideMax, false},
		{"sparse", sparse, c.Orient(sparse, 0), cliqueWideMax, cliqueMatrixMax, false},
	} {
		u := newUpward(tc.o, tc.maxMatrix)
		var heavy []uint32
		for v := range uint32(tc.g.NumVertices()) {
			off, adj, from, to := u.o.CSR()
			if !slices.Equal(adj[off[v]+uint64(from[v]):off[v]+uint64(to[v])], tc.o.Above(v)) {
				t.Fatalf("%s: vertex %d: upward list differs", tc.name, v)
			}
			if len(tc.o.Above(v)) > u.bmax {
				heavy = append(heavy, v)
			}
		}
		if u.bmax != tc.bmax || (len(heavy) > 0) != tc.heavy || !slices.Equal(heavy, u.heavy) {
			t.Fatalf("%s: bmax %d, heavy roots %v; want bmax %d, heavy roots %v (some: %v)", tc.name, u.bmax, u.heavy, tc.bmax, heavy, tc.heavy)
		}
	}
}

func mustRMAT(t testing.TB, scale, edgeFactor int) *graph.Graph {
	t.Helper()
	g, err := gen.RMAT(gen.RMATOptions{Scale: scale, EdgeFactor: edgeFactor, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestGPUCliques compares the clique kernel (KernelCliques) with the CPU engine: wiki-Vote and
// R-MAT cliques of 4 to 7 vertices under every convention, labelled random graphs, a graph
// whose low-degree vertices have more upward neighbours than the narrow kernel's matrices
// (counted by the wide kernel, or on the host), two runs sharing one GPU, a small memory budget
// (few warps), and a deadline.
func TestGPUCliques(t *testing.T) {
	needGPU(t)
	o := Options{Kernel: KernelCliques}
	check := func(name string, g *graph.Graph, p *pattern.Pattern, sem engine.Semantics, o Options) Stats {
		t.Helper()
		st := compareWith(t, "cliques "+name, g, p, sem, -1, nil, o)
		if !st.Cliques {
			t.Errorf("%s: the clique kernel did not run", name)
		}
		t.Logf("%s: %d heavy roots on the host (%.1f ms)", name, st.HeavyRoots, ms(st.HostTime))
		return st
	}
	wv := sharedtest.WikiVote(t)
	for k := 4; k <= 7; k++ {
		for _, sem := range proptest.AllSemantics {
			check(fmt.Sprintf("wiki-Vote %d-clique", k), wv, proptest.Clique(t, k, "", ""), sem, o)
		}
	}
	rm := mustRMAT(t, 16, 16)
	for k := 4; k <= 6; k++ {
		check(fmt.Sprintf("R-MAT 16 %d-clique", k), rm, proptest.Clique(t, k, "", ""), engine.Semantics{Unique: true}, o)
	}
	for seed := uint64(1); seed <= 6; seed++ {
		g := gen.RandomGraph(seed, 60+int(seed)*40, 0.3+0.1*float64(seed), 2, 1)
		for k := 4; k <= 8; k += 2 {
			if seed == 6 && k == 8 {
				break // about 10^13 cliques: the CPU reference alone takes minutes
			}
			check(fmt.Sprintf("random %d %d-clique label 1", seed, k), g, proptest.Clique(t, k, "1", ""), engine.Semantics{Unique: true}, o)
		}
		if seed <= 3 {
			// Wildcards over the graph's two labels: the kernel reads the copy of the lists
			// without labels (plan.Labels.Graph), not the labelled graph's runs.
			check(fmt.Sprintf("random %d 4-clique of wildcards", seed), g, proptest.Clique(t, 4, "", ""), engine.Semantics{}, o)
			check(fmt.Sprintf("random %d 5-clique of wildcards, induced", seed), g, proptest.Clique(t, 5, "", ""), engine.Semantics{Induced: true}, o)
		}
	}
	heavy, bip := denseGraph(), bipartiteCore(t, 1100, 0.01)
	for _, c := range []struct {
		name string
		g    *graph.Graph
		k    int
	}{{"dense n=1100", heavy, 4}, {"bipartite core", bip, 4}, {"bipartite core", bip, 5}, {"bipartite core", bip, 6}} {
		name := fmt.Sprintf("%s %d-clique", c.name, c.k)
		if st := check(name, c.g, proptest.Clique(t, c.k, "", ""), engine.Semantics{Unique: true}, o); st.WideTasks == 0 || st.HeavyRoots != 0 {
			t.Errorf("%s: %d wide tasks, %d roots on the host; want some and none", name, st.WideTasks, st.HeavyRoots)
		}
	}
	narrow := o
	narrow.cliqueNarrow = true
	if st := check("dense n=1100 4-clique, narrow kernel only", heavy, proptest.Clique(t, 4, "", ""), engine.Semantics{Unique: true}, narrow); st.HeavyRoots == 0 {
		t.Error("dense n=1100, narrow kernel only: no heavy roots, the host path was not exercised")
	}
	two := o
	two.replicas = 2
	check("wiki-Vote 5-clique, two runs", wv, proptest.Clique(t, 5, "", ""), engine.Semantics{Unique: true}, two)
	small := &engine.Problem{Data: wv, Pattern: proptest.Clique(t, 5, "", ""), Semantics: engine.Semantics{Unique: true}, GPUMemoryLimit: 8 << 20}
	res, st, err := CountOptions(context.Background(), small, o)
	want := cpuCount(t, wv, proptest.Clique(t, 5, "", ""), engine.Semantics{Unique: true})
	if err != nil || res.Count != want {
		t.Errorf("8 MiB budget: %d, %v (%d warps); want %d", res.Count, err, st.Warps, want)
	}
	record(t, "cliques wiki-Vote 5-clique, 8 MiB", want, res.Count, st)

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Millisecond)
	defer cancel()
	big := &engine.Problem{Data: rm, Pattern: proptest.Clique(t, 7, "", ""), Semantics: engine.Semantics{Unique: true}}
	start := time.Now()
	res, _, err = CountOptions(ctx, big, o)
	proptest.CheckStopped(t, "a clique count with a 5 ms deadline", time.Since(start), 3*time.Second, res, err, context.DeadlineExceeded)
}

// TestEmulatedCliqueKernelFullWidth checks the emulated kernel on the roots whose matrices are
// a full 32 words a row (upward lists of 993 to 1,024 members) and on those of the wide kernel
// (more than 1,024: two words a lane), whole and in two pieces, against the CPU clique counter
// on the same roots.
func TestEmulatedCliqueKernelFullWidth(t *testing.T) {
	g, o := denseOriented(t)
	u := newUpward(o, cliqueWideMax)
	var full, wide []uint32
	for v := range uint32(g.NumVertices()) {
		switch d := len(o.Above(v)); {
		case d > 992 && d <= cliqueMatrixMax && len(full) < 3:
			full = append(full, v)
		case d > cliqueMatrixMax && d <= cliqueWideMax && len(wide) < 3:
			wide = append(wide, v)
		}
	}
	if len(full) == 0 || len(wide) == 0 {
		t.Fatalf("%d roots with a full-width matrix, %d with a wide one; want both", len(full), len(wide))
	}
	for _, r := range slices.Concat(full, wide) {
		want, err := cliques.CountRoots(context.Background(), o, 4, []uint32{r}, 1)
		if err != nil {
			t.Fatal(err)
		}
		d := len(o.Above(r))
		whole := emulateCliqueUnit(u, r, 0, cliqueWideMax, 4)
		pieces := emulateCliqueUnit(u, r, 0, d/3, 4) + emulateCliqueUnit(u, r, d/3, d, 4)
		if whole != want || pieces != want {
			t.Errorf("root %d (%d upward neighbours): emulated kernel %d, in two pieces %d; CPU %d", r, d, whole, pieces, want)
		}
	}
}

// EnvCliqueSplits turns on TestGPUCliqueSplits (a measurement, never failing on time).
const EnvCliqueSplits = "SUBMATCH_STMATCH_CLIQUE_SPLITS"

// TestGPUCliqueSplits measures the clique kernel on R-MAT 20 and 22 5-cliques (and 22's
// 4-cliques) with the large roots split in several ways (cliqueCut) and time slices of several
// lengths (cliqueSlice), on one GPU and on all,
// best of 2 (one run at scale 22), and checks that every way gives the same count.
func TestGPUCliqueSplits(t *testing.T) {
	if os.Getenv(EnvCliqueSplits) == "" {
		t.Skipf("measurement only: set %s=1", EnvCliqueSplits)
	}
	needGPU(t)
	devs, _ := devices(context.Background(), nil)
	all := make([]int, len(devs))
	for i := range all {
		all[i] = i
	}
	cuts := []struct {
		name        string
		split, span int
		slice       time.Duration
	}{
		{"default", 0, 0, 0},
		{"slices of 100 ms", 0, 0, 100 * time.Millisecond},
		{"slices of 3 s", 0, 0, 3 * time.Second},
		{"slices of 10 s", 0, 0, 10 * time.Second},
		{"pieces of 64 >128", 128, 64, 0},
	}
	gpuSets := [][]int{{0}}
	if len(all) > 1 {
		gpuSets = append(gpuSets, all)
	}
	for _, c := range []struct {
		scale, k int
	}{{20, 5}, {22, 5}, {22, 4}} {
		g := mustRMAT(t, c.scale, 16)
		p := proptest.Clique(t, c.k, "", "")
		var want uint64
		for i, cut := range cuts {
			o := Options{}
			o.cliqueCut.split, o.cliqueCut.span, o.cliqueSlice = cut.split, cut.span, cut.slice
			for _, gpus := range gpuSets {
				best := Stats{}
				var got uint64
				for rep := range 1 + min(1, 22-c.scale) { // one run of the scale-22 counts
					ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
					res, st, err := CountOptions(ctx, &engine.Problem{Data: g, Pattern: p, Semantics: engine.Semantics{Unique: true}, GPUs: gpus}, o)
					cancel()
					if err != nil {
						t.Errorf("R-MAT %d %d-cliques, %s, %d GPUs: %v", c.scale, c.k, cut.name, len(gpus), err)
						break
					}
					got = res.Count
					if rep == 0 || st.Kernel < best.Kernel {
						best = st
					}
				}
				if i == 0 && len(gpus) == 1 {
					want = got
				} else if got != want {
					t.Errorf("R-MAT %d %d-cliques, %s, %d GPUs: %d, want %d", c.scale, c.k, cut.name, len(gpus), got, want)
				}
				t.Logf("R-MAT %d %d-cliques %-24s %d GPU(s): kernel %9.1f ms call %9.1f ms units %d launches %d host %6.1f ms",
					c.scale, c.k, cut.name, len(gpus), ms(best.Kernel), ms(best.Total), best.Units, best.Launches, ms(best.HostTime))
			}
		}
	}
}
