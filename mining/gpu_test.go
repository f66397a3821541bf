package mining

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	_ "github.com/submatch/submatch/engine/stmatch" // the GPU engine of the census's dense 6-vertex shapes
	"github.com/submatch/submatch/formats"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/gpu"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/internal/cudacheck"
	"github.com/submatch/submatch/internal/cudahost"
	"github.com/submatch/submatch/internal/testenv"
)

// censusMain drives kernels/census.cu on the host (package cudahost) and prints te, sd, the
// clique sums and k4v, and the 4-cycle sum with c4v and the unfolded c4e, one array per line.
const censusMain = `
template <class T> void show(const char* name, const std::vector<T>& v, size_t n) {
    printf("%s", name);
    for (size_t i = 0; i < n; ++i) printf(" %llu", (unsigned long long)v[i]);
    printf("\n");
}
int main() {
    u32 stopw = 0; u64 ctl[2] = {0, 0};
    auto off = Read<u64>(); auto nbr = Read<u32>(); auto up = Read<u64>(); auto eu = Read<u32>(); auto ep = Read<u32>();
    auto par = Read<u64>();
    u32 n = (u32)par[0], nout = (u32)par[1]; int five = (int)par[2], pv = (int)par[3]; u64 words = par[4]; size_t m2 = par[5];
    std::vector<u32> te(m2 + 1, 0); std::vector<u64> sd(m2 + 1, 0);
    Launch(2, 1, census_triangles, off.data(), nbr.data(), up.data(), eu.data(), ep.data(), nout, te.data(), sd.data(), (u64*)0, &stopw, ctl);
    show("te", te, m2); show("sd", sd, m2);
    std::vector<u64> tips(n + 1, 0);
    Launch(2, 1, census_triangles, off.data(), nbr.data(), up.data(), eu.data(), ep.data(), nout, te.data(), sd.data(), tips.data(), &stopw, ctl);
    show("tips", tips, n);
    std::vector<u32> scratch(3 * 2 * words + 2); std::vector<u64> k4v(n + 1, 0), sums(2, 0); std::vector<u32> flags(2, 0);
    Launch(3, 1, census_cliques, off.data(), nbr.data(), up.data(), eu.data(), ep.data(), nout, five, pv, scratch.data(), words, k4v.data(), sums.data(), flags.data(), &stopw, ctl);
    show("cliques", sums, 2); show("k4v", k4v, n);
    std::vector<u32> cnt(2 * (n + 1), 0), seen(2 * (n + 1), 0), nseen(2, 0); std::vector<u64> c4v(n + 1, 0), c4e(m2 + 1, 0), cs(2, 0);
    Launch(2, 1, census_cycles, off.data(), nbr.data(), up.data(), n, pv, cnt.data(), seen.data(), nseen.data(), c4v.data(), c4e.data(), cs.data(), flags.data(), &stopw, ctl);
    show("cycles", cs, 1); show("c4v", c4v, n); show("c4e", c4e, m2);
    auto te2 = Read<u32>(); auto tof = Read<u64>(); auto tl = Read<u32>(); auto canon = Read<u32>();
    std::vector<u64> k4e(m2 + 1, 0), gs(2, 0), ps(2, 0), ws(1, 0);
    Launch(3, 1, census_gem, off.data(), nbr.data(), up.data(), eu.data(), ep.data(), nout, te2.data(), tof.data(), tl.data(), k4e.data(), gs.data(), flags.data(), &stopw, ctl);
    show("gem", gs, 2); show("k4e", k4e, m2);
    std::vector<u32> c2(2 * 2 * (n + 1), 0);
    Launch(2, 1, census_pairs, off.data(), nbr.data(), up.data(), n, tof.data(), tl.data(), canon.data(), c2.data(), seen.data(), nseen.data(), ps.data(), flags.data(), &stopw, ctl);
    show("pairs", ps, 2);
    Launch(2, 1, census_wheels, off.data(), nbr.data(), n, (u64)m2, tof.data(), tl.data(), canon.data(), cnt.data(), seen.data(), nseen.data(), ws.data(), flags.data(), &stopw, ctl);
    show("wheels", ws, 1);
    auto tmo = Read<u64>(); auto tmx = Read<u32>(); auto top = Read<u64>();
    std::vector<u64> c5(2, 0);
    Launch(2, 1, census_cycles5, off.data(), nbr.data(), up.data(), n, tmo.data(), tmx.data(), top.data(), cnt.data(), seen.data(), nseen.data(), c5.data(), flags.data(), &stopw, ctl);
    printf("c5 %llu\n", (c5[0] - c5[1]) / 2);
    printf("flags %u\n", flags[0]);
    // the stop flag raised: every kernel leaves before its first unit of work
    stopw = 1;
    std::vector<u64> z(2, 0);
    std::vector<u32> te3(m2 + 1, 0);
    Launch(2, 1, census_triangles, off.data(), nbr.data(), up.data(), eu.data(), ep.data(), nout, te3.data(), sd.data(), (u64*)0, &stopw, ctl);
    Launch(3, 1, census_cliques, off.data(), nbr.data(), up.data(), eu.data(), ep.data(), nout, five, pv, scratch.data(), words, k4v.data(), z.data(), flags.data(), &stopw, ctl);
    Launch(2, 1, census_cycles, off.data(), nbr.data(), up.data(), n, pv, cnt.data(), seen.data(), nseen.data(), c4v.data(), c4e.data(), z.data(), flags.data(), &stopw, ctl);
    Launch(2, 1, census_pairs, off.data(), nbr.data(), up.data(), n, tof.data(), tl.data(), canon.data(), c2.data(), seen.data(), nseen.data(), z.data(), flags.data(), &stopw, ctl);
    u64 t3 = 0;
    for (size_t i = 0; i < m2; ++i) t3 += te3[i];
    printf("stopped %llu %llu %llu\n", (unsigned long long)t3, (unsigned long long)z[0], (unsigned long long)z[1]);
}
`

func parseLine(t *testing.T, line, name string) []uint64 {
	t.Helper()
	f := strings.Fields(line)
	if len(f) == 0 || f[0] != name {
		t.Fatalf("host output: expected %s, got %q", name, line)
	}
	var out []uint64
	for _, x := range f[1:] {
		v, err := strconv.ParseUint(x, 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	return out
}

// TestCensusKernelHost runs the census kernels' code on the host against the CPU's local counts
// on random graphs (dense and sparse) and a few small special ones.
func TestCensusKernelHost(t *testing.T) {
	bin := cudahost.Build(t, kernelFile, kernelSource(), censusMain)
	for seed := range uint64(12) {
		g := gen.RandomGraph(seed+900, 8+int(seed%5)*4, []float64{0.2, 0.5, 0.9}[seed%3], 1, 1)
		o := newOrdered(g)
		// Per-vertex locals for the per-vertex and per-edge arrays; the global-only phases
		// (pairs, 5-cycles, wheels) run for the census alone.
		want := &locals{o: o, k: 5, vertex: true}
		global := &locals{o: o, k: 5}
		for _, l := range []*locals{want, global} {
			if err := l.compute(context.Background(), 1, nil); err != nil {
				t.Fatal(err)
			}
		}
		eu, ep := outEdges(o)
		var maxOut uint64
		for u := range o.n {
			maxOut = max(maxOut, o.off[u+1]-o.up[u])
		}
		in := &cudahost.Input{}
		cudahost.Put(in, o.off)
		cudahost.Put(in, o.nbr)
		cudahost.Put(in, o.up)
		cudahost.Put(in, eu)
		cudahost.Put(in, ep)
		cudahost.Put(in, []uint64{uint64(o.n), uint64(len(eu)), 1, 1, max(maxOut, 1), uint64(len(o.nbr))})
		canon := make([]uint32, len(want.canon))
		for i, p := range want.canon {
			canon[i] = uint32(p)
		}
		cudahost.Put(in, want.te)
		cudahost.Put(in, want.tOff)
		cudahost.Put(in, want.tl)
		cudahost.Put(in, canon)
		tmOff, tmax, top := want.fiveCyclePrep(1)
		cudahost.Put(in, tmOff)
		cudahost.Put(in, tmax)
		cudahost.Put(in, top)
		out := cudahost.Run(t, bin, in)
		sc := bufio.NewScanner(bytes.NewReader(out))
		sc.Buffer(nil, 1<<24)
		next := func(name string) []uint64 {
			sc.Scan()
			return parseLine(t, sc.Text(), name)
		}
		te := next("te")
		wantTe := make([]uint64, len(want.te))
		for i, x := range want.te {
			wantTe[i] = uint64(x)
		}
		check := func(name string, got, want []uint64) {
			if !slices.Equal(got, want) {
				t.Errorf("seed %d: %s: host kernel %v, CPU %v", seed, name, got, want)
			}
		}
		check("te", te, wantTe)
		check("sd", next("sd"), want.sd)
		check("tips", next("tips"), want.diamondTips(1))
		check("k4, k5", next("cliques"), []uint64{want.k4, want.k5})
		check("k4v", next("k4v"), want.k4v)
		check("c4", next("cycles"), []uint64{want.c4})
		check("c4v", next("c4v"), want.c4v)
		c4e := next("c4e")
		want.foldEdges(c4e)
		check("c4e", c4e, want.c4e)
		check("gem, k5e", next("gem"), []uint64{want.gem.v, want.k5e.v})
		check("k4e", next("k4e"), want.k4e)
		check("k23, w4s", next("pairs"), []uint64{global.k23, global.w4s})
		check("w4", next("wheels"), []uint64{global.w4})
		check("c5", next("c5"), []uint64{global.c5})
		check("flags", next("flags"), []uint64{0})
		check("stopped", next("stopped"), []uint64{0, 0, 0})
	}
}

func TestCensusKernelSyntax(t *testing.T) { cudacheck.Syntax(t, kernelFile, kernelSource()) }

// TestCensusAutoWithoutGPU: Auto gives the CPU's census where there is no GPU; GPU fails with
// ErrNoGPU.
func TestCensusAutoWithoutGPU(t *testing.T) {
	if _, err := gpu.Open(context.Background()); err == nil {
		t.Skip("a GPU is present")
	}
	g := gen.RandomGraph(3, 20, 0.4, 1, 1)
	want, err := Count(context.Background(), g, Options{K: 4})
	if err != nil {
		t.Fatal(err)
	}
	got, err := Count(context.Background(), g, Options{K: 4, Device: Auto})
	if err != nil || fmt.Sprint(got.Motifs) != fmt.Sprint(want.Motifs) {
		t.Errorf("Auto: %v %v", got, err)
	}
	if _, err := Count(context.Background(), g, Options{K: 4, Device: GPU}); !errors.Is(err, gpu.ErrNoGPU) {
		t.Errorf("GPU without one: %v", err)
	}
}

// TestGPUCensus: the census with its heavy parts on the GPU equals the CPU's, k = 3..6, on random
// graphs and (when present) email-Eu-core and wiki-Vote (device check).
func TestGPUCensus(t *testing.T) {
	if _, err := gpu.Open(context.Background()); err != nil {
		t.Skipf("no GPU: %v", err)
	}
	ctx := context.Background()
	for seed := range uint64(30) {
		g := gen.RandomGraph(seed+1200, 10+int(seed%7)*6, []float64{0.1, 0.3, 0.6}[seed%3], 1, 1)
		for _, k := range []int{3, 4, 5, 6} {
			if k == 6 && (seed%5 != 0 || g.NumVertices() > 22) {
				continue
			}
			want, err := Count(ctx, g, Options{K: k})
			if err != nil {
				t.Fatal(err)
			}
			got, err := Count(ctx, g, Options{K: k, Device: GPU})
			if err != nil || fmt.Sprint(got.Motifs) != fmt.Sprint(want.Motifs) {
				t.Errorf("seed %d k %d: GPU census differs (%v)", seed, k, err)
			}
		}
	}
}

// TestGPUPerVertex: per-vertex orbit counts with the local counts on the GPU equal the CPU's
// (which TestPerVertexBruteForce checks against brute force and ORCA's orbits), k = 3, 4, 5, on
// random graphs and (when present) email-Eu-core (device check).
func TestGPUPerVertex(t *testing.T) {
	if _, err := gpu.Open(context.Background()); err != nil {
		t.Skipf("no GPU: %v", err)
	}
	ctx := context.Background()
	check := func(name string, g *graph.Graph, k int) {
		want, err := CountPerVertex(ctx, g, Options{K: k})
		if err != nil {
			t.Fatal(err)
		}
		got, err := CountPerVertex(ctx, g, Options{K: k, Device: GPU})
		if err != nil {
			t.Fatalf("%s k %d: %v", name, k, err)
		}
		if !slices.EqualFunc(got.Induced, want.Induced, slices.Equal) || !slices.EqualFunc(got.NonInduced, want.NonInduced, slices.Equal) {
			t.Errorf("%s k %d: GPU per-vertex counts differ from the CPU's", name, k)
		}
	}
	for seed := range uint64(24) {
		g := gen.RandomGraph(seed+1500, 8+int(seed%6)*7, []float64{0.1, 0.3, 0.7}[seed%3], 1, 1)
		for _, k := range []int{3, 4, 5} {
			check(fmt.Sprintf("seed %d", seed), g, k)
		}
	}
	// a public graph when the shared data is there (TestCensusTimings compares wiki-Vote's)
	if path := filepath.Join(testenv.Dir(), "email-eu-core/email-Eu-core.txt"); fileExists(path) {
		g, err := formats.Load(path, formats.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range []int{4, 5} {
			check("email-Eu-core", g, k)
		}
	}
}

// TestGPUMemoryBound: GPUMemory bounds the census's device memory: on GPU a bound too small
// fails with gpu.ErrBudget; on Auto every bound (too small for the graph, for some phases, or
// none) gives the CPU's counts, census and per-vertex.
func TestGPUMemoryBound(t *testing.T) {
	if _, err := gpu.Open(context.Background()); err != nil {
		t.Skipf("no GPU: %v", err)
	}
	ctx := context.Background()
	g := gen.RandomGraph(77, 120, 0.2, 1, 1)
	want, err := Count(ctx, g, Options{K: 5})
	if err != nil {
		t.Fatal(err)
	}
	wantV, err := CountPerVertex(ctx, g, Options{K: 5})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Count(ctx, g, Options{K: 5, Device: GPU, GPUMemory: 64}); !errors.Is(err, gpu.ErrBudget) {
		t.Errorf("GPU within 64 bytes: %v, expected an error wrapping gpu.ErrBudget", err)
	}
	for _, limit := range []uint64{64, 8 << 10, 24 << 10, 40 << 10, 64 << 10, 256 << 10, 0} {
		got, err := Count(ctx, g, Options{K: 5, Device: Auto, GPUMemory: limit})
		if err != nil || fmt.Sprint(got.Motifs) != fmt.Sprint(want.Motifs) {
			t.Errorf("Auto within %d bytes: census differs (%v)", limit, err)
		}
		gotV, err := CountPerVertex(ctx, g, Options{K: 5, Device: Auto, GPUMemory: limit})
		if err != nil || !slices.EqualFunc(gotV.Induced, wantV.Induced, slices.Equal) {
			t.Errorf("Auto within %d bytes: per-vertex counts differ (%v)", limit, err)
		}
	}
}

// TestGPUStop: a census cancelled while its kernels run returns the context's error soon after
// (the kernels poll the stop flag). The latency is logged ("STOP ..."), not asserted beyond a
// hang check.
func TestGPUStop(t *testing.T) {
	if _, err := gpu.Open(context.Background()); err != nil {
		t.Skipf("no GPU: %v", err)
	}
	// dense: billions of 4- and 5-cliques, minutes of kernel time
	g := gen.RandomGraph(5, 2500, 0.6, 1, 1)
	for _, after := range []time.Duration{300 * time.Millisecond, time.Second} {
		ctx, cancel := context.WithTimeout(context.Background(), after)
		t0 := time.Now()
		_, err := Count(ctx, g, Options{K: 5, Device: GPU})
		elapsed := time.Since(t0)
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("cancelled after %v: %v", after, err)
		}
		fmt.Printf("STOP\tcensus k=5, dense random graph (2,500 v)\tdeadline %v\treturned after %v\tlatency %v\n",
			after, elapsed.Round(time.Millisecond), (elapsed - after).Round(time.Millisecond))
		if elapsed > after+5*time.Second {
			t.Errorf("cancelled after %v: returned after %v", after, elapsed)
		}
	}
}

// TestGPULabelledHash: census_labelled's hash tally (any number of labels) equals the CPU's
// labelled census, k = 3..5: random graphs with 50 to 5,000 labels (most classes of one
// subgraph), and, with every census sent through the hash tally, random graphs with 1 to 3
// labels and citeseer (k = 3..5: many threads adding to the same few slots at once).
func TestGPULabelledHash(t *testing.T) {
	if _, err := gpu.Open(context.Background()); err != nil {
		t.Skipf("no GPU: %v", err)
	}
	ctx := context.Background()
	check := func(name string, g *graph.Graph, k int) {
		t.Helper()
		want, err := CountLabelled(ctx, g, Options{K: k})
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		got, err := CountLabelled(ctx, g, Options{K: k, Device: GPU})
		if err != nil {
			t.Fatalf("%s k %d: %v", name, k, err)
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s k %d: GPU labelled census (hash tally) differs from the CPU's", name, k)
		}
		t.Logf("TIMING labelled-hash %s k=%d: %d classes, GPU %v", name, k, len(got), time.Since(start))
	}
	for seed := range uint64(9) {
		labels := []int{50, 500, 5000}[seed%3]
		g := gen.RandomGraph(seed+2100, 40+int(seed%3)*60, []float64{0.15, 0.06, 0.03}[seed%3], labels, 1)
		for k := 3; k <= 5; k++ {
			check(fmt.Sprintf("seed %d (%d labels)", seed, labels), g, k)
		}
	}
	defer func(old uint64) { labelledDenseMax = old }(labelledDenseMax)
	labelledDenseMax = 0
	for seed := range uint64(6) {
		g := gen.RandomGraph(seed+2200, 30+int(seed%3)*20, []float64{0.3, 0.15}[seed%2], 1+int(seed%3), 1)
		for k := 3; k <= 5; k++ {
			check(fmt.Sprintf("seed %d, hash only", seed), g, k)
		}
	}
	if path := filepath.Join(testenv.Dir(), "citeseer-graphminer"); fileExists(path) {
		g, err := formats.Load(path, formats.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for k := 3; k <= 5; k++ {
			check("citeseer, hash only", g, k)
		}
	}
}

// TestGPULabelled: the labelled census (motifs --labelled) with its enumeration on the GPU
// (census_labelled) equals the CPU's (which TestLabelledCensus checks against the oracle
// matcher), k = 3..5, on random graphs with 1 to 6 labels and (when present) citeseer (6 labels)
// and email-Eu-core (unlabelled); a bound too small for the tally fails with gpu.ErrBudget on GPU
// and gives the CPU's classes on Auto (device check).
func TestGPULabelled(t *testing.T) {
	if _, err := gpu.Open(context.Background()); err != nil {
		t.Skipf("no GPU: %v", err)
	}
	ctx := context.Background()
	check := func(name string, g *graph.Graph, k int, opts Options) {
		t.Helper()
		want, err := CountLabelled(ctx, g, Options{K: k})
		if err != nil {
			t.Fatal(err)
		}
		opts.K = k
		got, err := CountLabelled(ctx, g, opts)
		if err != nil {
			t.Fatalf("%s k %d: %v", name, k, err)
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s k %d: GPU labelled census differs from the CPU's", name, k)
		}
	}
	for seed := range uint64(24) {
		g := gen.RandomGraph(seed+1700, 10+int(seed%6)*8, []float64{0.1, 0.3, 0.6}[seed%3], 1+int(seed%6), 1)
		for _, k := range []int{3, 4, 5} {
			if k == 5 && g.NumVertices() > 40 && seed%3 == 2 {
				continue // dense: the CPU's enumeration would take long
			}
			check(fmt.Sprintf("seed %d", seed), g, k, Options{Device: GPU})
		}
	}
	// 6 labels, k = 5: a 2 MiB dense tally; the graph fits in 64 KiB, the dense tally does not,
	// a hash tally of about a thousand slots does (passes split); in 1 KiB nothing does
	g := gen.RandomGraph(91, 60, 0.15, 6, 1)
	if _, err := CountLabelled(ctx, g, Options{K: 5, Device: GPU, GPUMemory: 1 << 10}); !errors.Is(err, gpu.ErrBudget) {
		t.Errorf("GPU within 1 KiB: %v, expected an error wrapping gpu.ErrBudget", err)
	}
	check("GPU within 64 KiB", g, 5, Options{Device: GPU, GPUMemory: 64 << 10})
	for _, limit := range []uint64{64, 1 << 10, 64 << 10, 0} {
		check(fmt.Sprintf("Auto within %d bytes", limit), g, 5, Options{Device: Auto, GPUMemory: limit})
	}
	// (email-Eu-core's 4-vertex enumeration takes the CPU a minute or more: 3 only)
	for _, f := range []struct {
		name, path string
		ks         []int
	}{
		{"citeseer", filepath.Join(testenv.Dir(), "citeseer-graphminer"), []int{3, 4, 5}},
		{"email-Eu-core", filepath.Join(testenv.Dir(), "email-eu-core/email-Eu-core.txt"), []int{3}},
	} {
		if !fileExists(f.path) {
			continue
		}
		g, err := formats.Load(f.path, formats.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range f.ks {
			check(f.name, g, k, Options{Device: GPU})
			timeLabelled(t, f.name, g, k)
		}
	}
	// email-Eu-core is unlabelled: its labelled census is the census's induced counts, which
	// Count gives by formulas, so the GPU's 4-vertex enumeration is checked without the CPU's
	if path := filepath.Join(testenv.Dir(), "email-eu-core/email-Eu-core.txt"); fileExists(path) {
		g, err := formats.Load(path, formats.Options{})
		if err != nil {
			t.Fatal(err)
		}
		want, err := Count(ctx, g, Options{K: 4})
		if err != nil {
			t.Fatal(err)
		}
		t0 := time.Now()
		got, err := CountLabelled(ctx, g, Options{K: 4, Device: GPU})
		if err != nil {
			t.Fatal(err)
		}
		fmt.Printf("TIMING\tlabelled\temail-Eu-core\tk=4\tgpu\t%.1f ms\t(the CPU's enumeration: minutes)\n", float64(time.Since(t0).Microseconds())/1000)
		induced := map[uint64]uint64{}
		for _, m := range got {
			induced[m.Shape.Code()] += m.Induced
		}
		for _, m := range want.Motifs {
			if induced[m.Shape.Code()] != m.Induced {
				t.Errorf("email-Eu-core k=4 %s: GPU labelled census %d induced, census %d", m.Name, induced[m.Shape.Code()], m.Induced)
			}
		}
	}
}

// timeLabelled prints the labelled census's time on the CPU and on the GPU (after a warm-up):
// a figure for docs/benchmarks.md from the device check, not a check.
func timeLabelled(t *testing.T, name string, g *graph.Graph, k int) {
	t.Helper()
	ms := func(dev Device) float64 {
		t0 := time.Now()
		if _, err := CountLabelled(context.Background(), g, Options{K: k, Device: dev}); err != nil {
			t.Fatal(err)
		}
		return float64(time.Since(t0).Microseconds()) / 1000
	}
	ms(GPU)
	fmt.Printf("TIMING\tlabelled\t%s\tk=%d\tcpu (one thread) %.1f ms\tgpu %.1f ms\n", name, k, ms(CPU), ms(GPU))
}

// TestLabelledAutoWithoutGPU: Auto gives the CPU's labelled census where there is no GPU; GPU
// fails with ErrNoGPU.
func TestLabelledAutoWithoutGPU(t *testing.T) {
	if _, err := gpu.Open(context.Background()); err == nil {
		t.Skip("a GPU is present")
	}
	g := gen.RandomGraph(4, 14, 0.4, 3, 1)
	want, err := CountLabelled(context.Background(), g, Options{K: 4})
	if err != nil {
		t.Fatal(err)
	}
	got, err := CountLabelled(context.Background(), g, Options{K: 4, Device: Auto})
	if err != nil || fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("Auto: %v", err)
	}
	if _, err := CountLabelled(context.Background(), g, Options{K: 4, Device: GPU}); !errors.Is(err, gpu.ErrNoGPU) {
		t.Errorf("GPU without one: %v", err)
	}
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
