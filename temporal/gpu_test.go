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
#define G src.data(), dst.data(), tm.data(), nev, oo.data(), oe.data(), io.data(), ie.data(), po.data(), pd.data(), pr.data(), pe.data()
    std::vector<u64> total(1, 0); std::vector<u32> flags(2, 0);
    Launch(3, 1, temporal_match, G, pat.data(), m, k, delta, strict, 0u, nev, 0, total.data(), flags.data(), (u64*)0, (const u64*)0, (u32*)0);
    printf("count %llu %u\n", total[0], flags[0]);
    std::vector<u64> per(nev + 1, 0), offs(nev + 1, 0);
    Launch(2, 1, temporal_match, G, pat.data(), m, k, delta, strict, 0u, nev, 1, (u64*)0, flags.data(), per.data(), (const u64*)0, (u32*)0);
    for (u32 i = 0; i < nev; ++i) offs[i + 1] = offs[i] + per[i];
    std::vector<u32> out(offs[nev] * m + 1);
    Launch(2, 1, temporal_match, G, pat.data(), m, k, delta, strict, 0u, nev, 2, (u64*)0, flags.data(), (u64*)0, offs.data(), out.data());
    printf("list %llu\n", offs[nev]);
    for (u64 r = 0; r < offs[nev]; ++r) {
        for (int q = 0; q < m; ++q) printf("%u ", out[r * m + q]);
        printf("\n");
    }
    std::vector<u64> grid(36, 0); std::vector<u32> gf(2, 0);
    Launch(3, 1, temporal_grid, G, delta, cell.data(), grid.data(), gf.data());
    printf("grid");
    for (int i = 0; i < 36; ++i) printf(" %llu", grid[i]);
    printf(" %u\n", gf[0]);
}
`

func hostInput(g *Graph, p *Pattern, o Options) *cudahost.Input {
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
	cudahost.Put(in, []int64{int64(n), int64(len(p.Edges)), int64(p.K()), o.Delta, strict})
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
	bin := cudahost.Build(t, kernelFile, kernelSource, hostMain)
	pats := []string{"a->b, b->c, c->a", "a->b, b->c, c->d", "a->b, c->d", "a->b, c->d, b->c", "a->b, b->a, a->b, b->a",
		"a->b, a->c, a->d", "x->y", "a->b, b->c, c->a, a->d", "a->b, b->c, c->d, d->e, e->a"}
	for seed := range uint64(10) {
		g := randomTemporal(seed+300, 4+int(seed%4), 14+int(seed%9), []int64{4, 30}[seed%2])
		for pi, s := range pats {
			p, _ := Parse(s)
			o := Options{Delta: []int64{1, 3, 50, math.MaxInt64}[(seed+uint64(pi))%4], Strict: (seed+uint64(pi))%3 == 0} // MaxInt64: t0 + delta must saturate, not wrap
			out := cudahost.Run(t, bin, hostInput(g, p, o))
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
				t.Errorf("seed %d %q %+v: host kernel lists %v, CPU %v", seed, s, o, gotList, wantList)
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
			if sc.Text() != b.String() {
				t.Errorf("seed %d delta %d: host grid\n%s\nCPU\n%s", seed, o.Delta, sc.Text(), b.String())
			}
		}
	}
}

func TestKernelSyntax(t *testing.T) { cudacheck.Syntax(t, kernelFile, kernelSource) }

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
			o := Options{Delta: []int64{2, 20, 400}[(seed+uint64(pi))%3], Strict: (seed+uint64(pi))%4 == 0}
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
			o := Options{Delta: []int64{2, 20, 400}[seed%3], Strict: strict}
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
	for _, c := range []struct {
		delta int64
		want  uint64
	}{{3600, 3979317}, {86400, 21472248}} {
		cpu, _ := Grid(ctx, g, Options{Delta: c.delta})
		grid, err := Grid(ctx, g, Options{Delta: c.delta, Device: GPU})
		if err != nil {
			t.Fatal(err)
		}
		var total uint64
		for _, row := range grid {
			for _, x := range row {
				total += x
			}
		}
		if total != c.want || grid != cpu {
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
