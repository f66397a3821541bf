package temporal

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/submatch/submatch/gpu"
	"github.com/submatch/submatch/internal/cudacheck"
	"github.com/submatch/submatch/internal/cudahost"
)

// hostMain drives kernels/temporal.cu on the host (package cudahost): it reads a graph, a
// pattern and the parameters, and prints the count (mode 0), the matches (modes 1 and 2) and
// the grid.
const hostMain = `
int main() {
    auto src = Read<u32>(); auto dst = Read<u32>(); auto tm = Read<i64>();
    auto oo = Read<u32>(); auto oe = Read<u32>(); auto io = Read<u32>(); auto ie = Read<u32>();
    auto po = Read<u32>(); auto pd = Read<u32>(); auto pr = Read<u32>(); auto pe = Read<u32>();
    auto par = Read<i64>(); auto pat = Read<int>(); auto cell = Read<signed char>();
    u32 nev = (u32)par[0]; int m = (int)par[1], k = (int)par[2]; i64 delta = par[3]; int strict = (int)par[4];
    u64 window = (u64)par[5]; u32 stopw = 0; u64 ctl[2] = {0, 0}; const u64 all = ~0ull >> 2;
#define G src.data(), dst.data(), tm.data(), nev, oo.data(), oe.data(), io.data(), ie.data(), po.data(), pd.data(), pr.data(), pe.data()
    std::vector<u64> total(1, 0); std::vector<u32> flags(2, 0);
    Launch(3, 1, temporal_match, G, pat.data(), m, k, delta, strict, 0u, nev, 0, total.data(), flags.data(), (u64*)0, (const u64*)0, (u32*)0, 0ull, all, &stopw, ctl);
    printf("count %llu %u\n", total[0], flags[0]);
    std::vector<u64> per(nev + 1, 0), offs(nev + 1, 0);
    Launch(2, 1, temporal_match, G, pat.data(), m, k, delta, strict, 0u, nev, 1, (u64*)0, flags.data(), per.data(), (const u64*)0, (u32*)0, 0ull, all, &stopw, ctl);
    for (u32 i = 0; i < nev; ++i) offs[i + 1] = offs[i] + per[i];
    // the matches in windows of window rows (as the host lists a root with too many for one buffer)
    printf("list %llu\n", offs[nev]);
    for (u64 skip = 0; skip < offs[nev]; skip += window) {
        const u64 rows = offs[nev] - skip < window ? offs[nev] - skip : window;
        std::vector<u32> out(rows * m + 1, 0xffffffffu);
        Launch(2, 1, temporal_match, G, pat.data(), m, k, delta, strict, 0u, nev, 2, (u64*)0, flags.data(), (u64*)0, offs.data(), out.data(), skip, rows, &stopw, ctl);
        for (u64 r = 0; r < rows; ++r) {
            for (int q = 0; q < m; ++q) printf("%u ", out[r * m + q]);
            printf("\n");
        }
        if (out[rows * m] != 0xffffffffu) printf("written past the window\n");
    }
    std::vector<u64> grid(36, 0); std::vector<u32> gf(2, 0);
    Launch(3, 1, temporal_grid, G, delta, cell.data(), grid.data(), gf.data(), &stopw, ctl);
    printf("grid");
    for (int i = 0; i < 36; ++i) printf(" %llu", grid[i]);
    printf(" %u\n", gf[0]);
    // the stop flag raised: both kernels leave before their first event
    stopw = 1;
    std::vector<u64> t2(1, 0), g2(36, 0);
    Launch(3, 1, temporal_match, G, pat.data(), m, k, delta, strict, 0u, nev, 0, t2.data(), flags.data(), (u64*)0, (const u64*)0, (u32*)0, 0ull, all, &stopw, ctl);
    Launch(3, 1, temporal_grid, G, delta, cell.data(), g2.data(), gf.data(), &stopw, ctl);
    u64 gs = 0;
    for (int i = 0; i < 36; ++i) gs += g2[i];
    printf("stopped %llu %llu\n", t2[0], gs);
}
`

// hostInput is the host main's input; it lists the matches window rows at a time.
func hostInput(g *Graph, p *Pattern, o Options, window int64) *cudahost.Input {
	in := &cudahost.Input{}
	n := len(g.Events)
	src, dst, tm := make([]uint32, n), make([]uint32, n), make([]int64, n)
	for i, e := range g.Events {
		src[i], dst[i], tm[i] = e.Src, e.Dst, e.Time
	}
	cudahost.Put(in, src)
	cudahost.Put(in, dst)
	cudahost.Put(in, tm)
	for _, a := range [][]uint32{g.outOff, g.outEv, g.inOff, g.inEv, g.pairOff, g.pairDst, g.pairRun, g.pairEv} {
		cudahost.Put(in, a)
	}
	strict := int64(0)
	if o.Strict {
		strict = 1
	}
	cudahost.Put(in, []int64{int64(n), int64(len(p.Edges)), int64(p.K()), o.Delta, strict, window})
	var pe []int32
	for _, e := range p.Edges {
		pe = append(pe, int32(e[0]), int32(e[1]))
	}
	cudahost.Put(in, pe)
	t := gridCellTable()
	cudahost.Put(in, t[:])
	return in
}

// TestKernelHost runs the kernels' code on the host against the CPU matcher and grid: counts,
// listings in the same order, and the 36 motifs, on random graphs with ties and parallel events.
func TestKernelHost(t *testing.T) {
	bin := cudahost.Build(t, kernelFile, kernelSource(), hostMain)
	pats := []string{"a->b, b->c, c->a", "a->b, b->c, c->d", "a->b, c->d", "a->b, c->d, b->c", "a->b, b->a, a->b, b->a",
		"a->b, a->c, a->d", "x->y", "a->b, b->c, c->a, a->d", "a->b, b->c, c->d, d->e, e->a"}
	for seed := range uint64(10) {
		g := randomTemporal(seed+300, 4+int(seed%4), 14+int(seed%9), []int64{4, 30}[seed%2])
		for pi, s := range pats {
			p, _ := Parse(s)
			o := Options{Delta: []int64{1, 3, 50, math.MaxInt64}[(seed+uint64(pi))%4], Strict: (seed+uint64(pi))%3 == 0} // MaxInt64: t0 + delta must saturate, not wrap
			// windows of 2 and 3 rows: the matches listed a few at a time, as a root with too many
			window := []int64{1 << 40, 2, 3}[(seed+2*uint64(pi))%3]
			out := cudahost.Run(t, bin, hostInput(g, p, o, window))
			want, err := Count(context.Background(), g, p, o)
			if err != nil {
				t.Fatal(err)
			}
			var wantList []string
			for sel, err := range Matches(context.Background(), g, p, o) {
				if err != nil {
					t.Fatal(err)
				}
				wantList = append(wantList, fmt.Sprint(sel))
			}
			sc := bufio.NewScanner(bytes.NewReader(out))
			sc.Scan()
			if got := sc.Text(); got != fmt.Sprintf("count %d 0", want) {
				t.Errorf("seed %d %q %+v: host kernel %q, CPU %d", seed, s, o, got, want)
			}
			sc.Scan()
			var gotList []string
			for sc.Scan() && !strings.HasPrefix(sc.Text(), "grid") {
				gotList = append(gotList, "["+strings.TrimSpace(sc.Text())+"]")
			}
			if !slices.Equal(gotList, wantList) {
				t.Errorf("seed %d %q %+v window %d: host kernel lists %v, CPU %v", seed, s, o, window, gotList, wantList)
			}
			gridLine := sc.Text()
			if sc.Scan(); sc.Text() != "stopped 0 0" {
				t.Errorf("seed %d %q: with the stop flag raised: %q", seed, s, sc.Text())
			}
			if o.Strict {
				continue
			}
			grid, err := Grid(context.Background(), g, o)
			if err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			b.WriteString("grid")
			for i := range 6 {
				for j := range 6 {
					fmt.Fprintf(&b, " %d", grid[i][j])
				}
			}
			b.WriteString(" 0")
			if gridLine != b.String() {
				t.Errorf("seed %d delta %d: host grid\n%s\nCPU\n%s", seed, o.Delta, gridLine, b.String())
			}
		}
	}
}

func TestKernelSyntax(t *testing.T) { cudacheck.Syntax(t, kernelFile, kernelSource()) }

func TestParseDevice(t *testing.T) {
	for s, want := range map[string]Device{"cpu": CPU, "gpu": GPU, "auto": Auto} {
		if d, err := ParseDevice(s); err != nil || d != want || d.String() != s {
			t.Errorf("ParseDevice(%q) = %v, %v", s, d, err)
		}
	}
	if _, err := ParseDevice("tpu"); err == nil {
		t.Error("ParseDevice(tpu) accepted")
	}
}

// needGPU skips without a usable GPU.
func needGPU(t *testing.T) {
	t.Helper()
	if _, err := gpu.Open(context.Background()); err != nil {
		t.Skipf("no GPU: %v", err)
	}
}

// TestAutoWithoutGPU: Auto gives the CPU's results where there is no GPU, GPU an ErrNoGPU error.
func TestAutoWithoutGPU(t *testing.T) {
	if _, err := gpu.Open(context.Background()); err == nil {
		t.Skip("a GPU is present")
	}
	g := randomTemporal(5, 6, 30, 10)
	p, _ := Parse("a->b, b->c, c->a")
	o := Options{Delta: 5}
	want, _ := Count(context.Background(), g, p, o)
	o.Device = Auto
	if got, err := Count(context.Background(), g, p, o); err != nil || got != want {
		t.Errorf("Auto: %d %v, CPU %d", got, err, want)
	}
	wg, _ := Grid(context.Background(), g, Options{Delta: 5})
	if got, err := Grid(context.Background(), g, o); err != nil || got != wg {
		t.Errorf("Auto grid: %v %v", got, err)
	}
	n := 0
	for _, err := range Matches(context.Background(), g, p, o) {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if uint64(n) != want {
		t.Errorf("Auto listed %d, want %d", n, want)
	}
	o.Device = GPU
	if _, err := Count(context.Background(), g, p, o); !errors.Is(err, gpu.ErrNoGPU) {
		t.Errorf("GPU without one: %v", err)
	}
}

// TestGPURandom: the GPU's counts, listings and grids equal the CPU's on random graphs with
// ties and parallel events (device check).
func TestGPURandom(t *testing.T) {
	needGPU(t)
	ctx := context.Background()
	pats := []string{"a->b, b->c, c->a", "a->b, b->c, c->d", "a->b, c->d, b->c", "a->b, b->a, a->b, b->a",
		"a->b, a->c, a->d", "x->y", "a->b, b->c, c->a, a->d", "a->b, b->c, c->d, d->e, e->a"}
	for seed := range uint64(40) {
		g := randomTemporal(seed+700, 5+int(seed%20), 40+int(seed*37%400), []int64{10, 200, 5000}[seed%3])
		for pi, s := range pats {
			p, _ := Parse(s)
			// MaxInt64: the kernels' t0 + delta must saturate, not wrap
			o := Options{Delta: []int64{2, 20, 400, math.MaxInt64}[(seed+uint64(pi))%4], Strict: (seed+uint64(pi))%3 == 0}
			want, err := Count(ctx, g, p, o)
			if err != nil {
				t.Fatal(err)
			}
			og := o
			og.Device = GPU
			got, err := Count(ctx, g, p, og)
			if err != nil || got != want {
				t.Errorf("seed %d %q %+v: GPU %d (%v), CPU %d", seed, s, o, got, err, want)
			}
			if seed%4 == 0 {
				var a, b []string
				for sel, err := range Matches(ctx, g, p, o) {
					if err != nil {
						t.Fatal(err)
					}
					a = append(a, fmt.Sprint(sel))
				}
				for sel, err := range Matches(ctx, g, p, og) {
					if err != nil {
						t.Fatal(err)
					}
					b = append(b, fmt.Sprint(sel))
				}
				if !slices.Equal(a, b) {
					t.Errorf("seed %d %q: GPU lists %d matches, CPU %d (or in another order)", seed, s, len(b), len(a))
				}
			}
		}
		for _, strict := range []bool{false, true} {
			o := Options{Delta: []int64{2, 20, 400, math.MaxInt64}[seed%4], Strict: strict}
			want, _ := Grid(ctx, g, o)
			o.Device = GPU
			got, err := Grid(ctx, g, o)
			if err != nil || got != want {
				t.Errorf("seed %d strict %v: GPU grid %v (%v), CPU %v", seed, strict, got, err, want)
			}
		}
	}
}

// TestGPUCollegeMsg: the GPU grid gives SNAP's totals and the CPU's cells on CollegeMsg; a 4-
// and a 5-edge pattern are counted equally; timings are logged (see docs/benchmarks.md).
func TestGPUCollegeMsg(t *testing.T) {
	needGPU(t)
	g := loadCollegeMsg(t)
	ctx := context.Background()
	for _, c := range snapCollegeMsg {
		cpu, _ := Grid(ctx, g, Options{Delta: c.delta})
		grid, err := Grid(ctx, g, Options{Delta: c.delta, Device: GPU})
		if err != nil {
			t.Fatal(err)
		}
		if total := gridTotal(grid); total != c.want || grid != cpu {
			t.Errorf("delta %d: GPU total %d (SNAP %d), cells equal to CPU's: %v", c.delta, total, c.want, grid == cpu)
		}
	}
	for _, s := range []string{"a->b, b->c, c->a, a->b", "a->b, b->c, c->d, d->a", "a->b, b->c, c->a, a->d, d->b"} {
		p, _ := Parse(s)
		for _, delta := range []int64{3600, 86400} {
			o := Options{Delta: delta}
			t0 := time.Now()
			want, _ := Count(ctx, g, p, o)
			tc := time.Since(t0)
			o.Device = GPU
			Count(ctx, g, p, o) // warm
			t1 := time.Now()
			got, err := Count(ctx, g, p, o)
			tg := time.Since(t1)
			if err != nil || got != want {
				t.Errorf("%q delta %d: GPU %d (%v), CPU %d", s, delta, got, err, want)
			}
			t.Logf("%q delta %d: %d matches, CPU %v, GPU %v", s, delta, want, tc, tg)
		}
	}
}

// listAll lists p's matches as strings.
func listAll(t *testing.T, g *Graph, p *Pattern, o Options) []string {
	t.Helper()
	var out []string
	for sel, err := range Matches(context.Background(), g, p, o) {
		if err != nil {
			t.Fatalf("%+v: %v", o, err)
		}
		out = append(out, fmt.Sprint(sel))
	}
	return out
}

// TestGPUListWindows: with launches of a few rows, the GPU lists the same matches in the same
// order as the CPU, first events with more matches than a launch holds included (device check).
func TestGPUListWindows(t *testing.T) {
	needGPU(t)
	defer func(b uint64) { listBytes = b }(listBytes)
	for seed := range uint64(12) {
		// few vertices and a long window: first events with hundreds of matches
		g := randomTemporal(seed+900, 4+int(seed%5), 60+int(seed*13%120), 50)
		for pi, s := range []string{"a->b, b->c, c->a", "a->b, c->d", "a->b, b->a, a->b", "a->b, a->c, a->d"} {
			p, _ := Parse(s)
			o := Options{Delta: []int64{10, 50}[(seed+uint64(pi))%2]}
			want := listAll(t, g, p, o)
			listBytes = []uint64{1, 40, 400}[(seed+uint64(pi))%3] * uint64(len(p.Edges)) * 4 // 1, 40 or 400 rows a launch
			og := o
			og.Device = GPU
			if got := listAll(t, g, p, og); !slices.Equal(got, want) {
				t.Errorf("seed %d %q, %d rows a launch: GPU lists %d matches, CPU %d (or in another order)", seed, s, listBytes/uint64(len(p.Edges))/4, len(got), len(want))
			}
		}
	}
}

// TestGPUMemoryBound: GPUMemory bounds a GPU call's device memory: on GPU a bound too small fails
// with gpu.ErrBudget; on Auto the CPU's results come instead; a bound that leaves room for a few
// rows only lists in many launches, in the CPU's order (device check).
func TestGPUMemoryBound(t *testing.T) {
	needGPU(t)
	ctx := context.Background()
	g := randomTemporal(31, 8, 300, 100)
	p, _ := Parse("a->b, b->c, c->a")
	o := Options{Delta: 30}
	want, _ := Count(ctx, g, p, o)
	wantList := listAll(t, g, p, o)
	wantGrid, _ := Grid(ctx, g, o)
	tiny := o
	tiny.Device, tiny.GPUMemory = GPU, 64
	if _, err := Count(ctx, g, p, tiny); !errors.Is(err, gpu.ErrBudget) {
		t.Errorf("GPU within 64 bytes: %v, expected an error wrapping gpu.ErrBudget", err)
	}
	tiny.Device = Auto
	if got, err := Count(ctx, g, p, tiny); err != nil || got != want {
		t.Errorf("Auto within 64 bytes: %d (%v), CPU %d", got, err, want)
	}
	if got := listAll(t, g, p, tiny); !slices.Equal(got, wantList) {
		t.Errorf("Auto within 64 bytes: lists %d matches, CPU %d", len(got), len(wantList))
	}
	if got, err := Grid(ctx, g, tiny); err != nil || got != wantGrid {
		t.Errorf("Auto within 64 bytes: grid %v (%v)", got, err)
	}
	// room for the graph, the per-root counts and a few hundred bytes of rows
	if _, err := Count(ctx, g, p, Options{Delta: 30, Device: GPU}); err != nil {
		t.Fatal(err)
	}
	graphBytes := g.gpu.a.Used()
	small := Options{Delta: 30, Device: GPU, GPUMemory: graphBytes + rootBatch*8 + 8*(2+3) + 16 + 600}
	if got := listAll(t, g, p, small); !slices.Equal(got, wantList) {
		t.Errorf("within %d bytes: GPU lists %d matches, CPU %d (or in another order)", small.GPUMemory, len(got), len(wantList))
	}
}

// TestGPUStop: a count or grid cancelled while its kernel runs returns soon after (the threads
// poll the stop flag); the latency is logged ("STOP ..."), not asserted beyond a hang check.
func TestGPUStop(t *testing.T) {
	needGPU(t)
	g := randomTemporal(3, 2000, 40000, 1000)
	p, _ := Parse("a->b, c->d, e->f") // unconnected: every event is a candidate, ~10^13 sequences
	for _, after := range []time.Duration{300 * time.Millisecond, time.Second} {
		ctx, cancel := context.WithTimeout(context.Background(), after)
		t0 := time.Now()
		n, err := Count(ctx, g, p, Options{Delta: 1000, Device: GPU})
		elapsed := time.Since(t0)
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("cancelled after %v: %d, %v", after, n, err)
		}
		fmt.Printf("STOP\ttemporal count, 3 unconnected edges, 40,000 events\tdeadline %v\treturned after %v\tlatency %v\tpartial count %d\n",
			after, elapsed.Round(time.Millisecond), (elapsed - after).Round(time.Millisecond), n)
		if elapsed > after+5*time.Second {
			t.Errorf("cancelled after %v: returned after %v", after, elapsed)
		}
	}
}
