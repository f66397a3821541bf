package sgsi

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/internal/cudahost"
	"github.com/submatch/submatch/internal/oracle"
	"github.com/submatch/submatch/internal/proptest"
	"github.com/submatch/submatch/internal/testenv"
	"github.com/submatch/submatch/pattern"
)

// bruteCost is SGSI+'s C(x1, x3) summed bin by bin over bins 0..b, as the paper writes it, plus
// Pass for each layer that holds rows.
func bruteCost(c *Costs, bins []uint64, x1, x2, x3 uint64) float64 {
	sum := 0.0
	var rows [numLayers]uint64
	for i, n := range bins {
		i := uint64(i)
		switch {
		case i <= x3 && i < x2:
			sum += c.warp(i, n)
			rows[layerWarp] += n
		case i < x2:
			sum += c.pool(i, n)
			rows[layerPool] += n
		case i <= x1:
			sum += c.block(i, n)
			rows[layerBlock] += n
		default:
			sum += c.grid(i, n)
			rows[layerGrid] += n
		}
	}
	for _, n := range rows {
		if n > 0 {
			sum += c.Pass
		}
	}
	return sum
}

// TestChooseBruteForce checks choose against a brute force over every (x1, x3) of SGSI+'s cost
// on random skewed workloads and constants: the least cost, and thresholds that put each row in
// the layer of its bin.
func TestChooseBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 21))
	for trial := range 200 {
		c := Costs{Sync: r.Float64(), Launch: 10 * r.Float64(), Pass: 10 * r.Float64(), SMs: 1 + r.IntN(200), GridBlocks: 8}
		if trial%3 == 0 {
			c.Pass = 0 // SGSI+'s C alone
		}
		w2 := uint32(32 * (1 + r.IntN(20)))
		switch trial % 10 {
		case 0:
			w2 = uint32(r.IntN(32)) // below a bin: x2 = 0
		case 1:
			w2 += uint32(1 + r.IntN(31)) // between bins
		}
		b := balancer{costs: c}
		b.reset(w2)
		var ds []uint64
		for range r.IntN(3000) {
			d := uint64(r.ExpFloat64() * float64(r.IntN(3)*300+10))
			if r.IntN(50) == 0 {
				d = uint64(r.IntN(8000)) // a few long rows
			}
			ds = append(ds, d)
			b.add(uint32(d))
		}
		th, cost := b.choose(w2)
		x2 := x2Of(w2)
		last := x2
		for _, d := range ds {
			last = max(last, d/binWidth)
		}
		bins := make([]uint64, last+1)
		for _, d := range ds {
			bins[d/binWidth]++
		}
		best := math.Inf(1)
		for x1 := x2; x1 <= last; x1++ {
			for x3 := uint64(0); x3 < max(x2, 1); x3++ { // (x2 = 0: no warp or pool bins, x3 unused)
				best = min(best, bruteCost(&c, bins, x1, x2, x3))
			}
		}
		x1, x3 := max((th.W1+1)/binWidth, 1)-1, max(x2, 1)-1
		if th.W3 < th.W2 {
			x3 = (th.W3+1)/binWidth - 1
		}
		got := bruteCost(&c, bins, x1, x2, x3)
		if tol := 1e-9 * max(1, best); math.Abs(cost-best) > tol || math.Abs(got-best) > tol {
			t.Fatalf("trial %d (costs %+v, W2 %d, %d rows): choose's cost %g, at its (x1 %d, x3 %d) %g; brute force %g", trial, c, w2, len(ds), cost, x1, x3, got, best)
		}
		if th.W2 != uint64(w2) || th.W3 > th.W2 || th.W1 < th.W2 || x2 > 0 && x3 >= x2 || x1 < x2 {
			t.Fatalf("trial %d: thresholds %+v outside W3 <= W2 = %d <= W1, 0 <= x3 < x2 = %d <= x1", trial, th, w2, x2)
		}
		for _, d := range ds {
			i, want := d/binWidth, layerGrid
			switch {
			case d <= th.W2 && i >= x2:
				continue // a row of (32*x2-1, W2]: the model's block bin, a warp or pool row
			case i <= x3 && x2 > 0:
				want = layerWarp
			case i < x2:
				want = layerPool
			case i <= x1:
				want = layerBlock
			}
			if l := th.layer(d); l != want {
				t.Fatalf("trial %d: a row of %d items goes to %s, its bin %d to %s (thresholds %+v)", trial, d, layerNames[l], i, layerNames[want], th)
			}
		}
	}
}

// TestSortBig checks sortBig's radix sort against slices.Sort, by bin, on workloads of every size
// up to 2^32-1 (three passes).
func TestSortBig(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 7))
	var b balancer
	for trial := range 300 {
		b.big = b.big[:0]
		for range r.IntN(2000) {
			b.big = append(b.big, r.Uint32()>>r.IntN(32))
		}
		in := slices.Clone(b.big)
		want := slices.Clone(b.big)
		for i := range want {
			want[i] /= binWidth
		}
		slices.Sort(want)
		b.sortBig()
		out := slices.Clone(b.big)
		slices.Sort(in)
		slices.Sort(out)
		if !slices.Equal(in, out) {
			t.Fatalf("trial %d: sortBig changed the workloads", trial)
		}
		for i, d := range b.big {
			if d/binWidth != want[i] {
				t.Fatalf("trial %d: sorted bin %d at %d, want %d", trial, d/binWidth, i, want[i])
			}
		}
	}
}

// TestChooseAllocates checks that a chunk's histogram and choice allocate nothing once the
// balancer's buffers have grown.
func TestChooseAllocates(t *testing.T) {
	b := balancer{costs: DefaultCosts}
	ds := []uint64{3, 40, 700, 5000, 5000, 90_000}
	run := func() {
		b.reset(DefaultBlockRows)
		for _, d := range ds {
			b.add(uint32(d))
		}
		b.choose(DefaultBlockRows)
	}
	run()
	if n := testing.AllocsPerRun(10, run); n != 0 {
		t.Errorf("a chunk's choice allocates %v times", n)
	}
}

// forcedLayers are thresholds that put the rows of the small test graphs in all four layers:
// rows of 2 or 3 items in a block's task pool, of 4 to 6 in a block, longer ones over the whole
// grid. ForcedLayers exports them to the external tests.
var forcedLayers = Thresholds{W3: 1, W2: 3, W1: 6}

var ForcedLayers = forcedLayers

// layerRuns counts, over runs, the rows each layer took.
type layerRuns [numLayers]uint64

func (l *layerRuns) add(b Balance) {
	for _, s := range b {
		for i, n := range s.Rows {
			l[i] += n
		}
	}
}

func (l *layerRuns) check(t *testing.T, what string) {
	t.Helper()
	t.Logf("%s: rows per layer (warp, pool, block, grid) %v", what, *l)
	for i, n := range l {
		if n == 0 {
			t.Errorf("%s: no row went to the %s layer", what, layerNames[i])
		}
	}
}

// TestLayersOnHost runs the schedule with every layer forced (forcedLayers: rows of 2 or 3
// items in the task pool, of more than 6 over the whole grid of 3 blocks) with the CUDA kernels
// built for the host, in core and out of core, on the oracle's random labelled cases in every
// convention and on hub graphs, and compares the counts with the oracle and the listings with
// those of the split before (TwoLayers) on HostBackend.
func TestLayersOnHost(t *testing.T) {
	bin := cudahost.Build(t, "sgsi", kernelSource, cudahostMain)
	ctx := context.Background()
	seeds, _ := proptest.Seeds(t, 40, 8)
	var layers layerRuns
	run := func(be Backend, c proptest.Case, sem engine.Semantics, th *Thresholds, count bool, cache uint64) (*runner, [][]uint32, error) {
		var got [][]uint32
		r := &runner{ctx: ctx, be: be, st: &Stats{}, s: newStore(c.G, 0), q: compileQuery(c.P), count: count,
			blockRows: uint32(th.W2), blockSize: 1, layers: th, gridCap: 3, maxCache: cache,
			emit: func(m []uint32) bool { got = append(got, slices.Clone(m)); return true }}
		err := r.run(sem.Induced, sem.Unique)
		layers.add(r.st.Balance)
		slices.SortFunc(got, slices.Compare)
		return r, got, err
	}
	listed := 0
	for o := range proptest.WithOracle(seeds, nil) {
		if o.Want > 2000 {
			continue
		}
		for _, rg := range []struct{ words, cache uint64 }{{1 << 14, 0}, {900, 60}} {
			r, _, err := run(&cudaBackend{HostBackend: NewHostBackend(rg.words), t: t, bin: bin}, o.Case, o.Sem, &forcedLayers, true, rg.cache)
			if err != nil {
				if rg.words < 1<<14 {
					continue
				}
				t.Fatalf("seed %d %s: %v", o.Seed, o.Sem, err)
			}
			if r.total != o.Want {
				t.Errorf("four layers forced, CUDA kernels on the host: %d, oracle %d\n%s", r.total, o.Want, o.Describe(o.Sem, "cudahost layers", "./engine/sgsi -run TestLayersOnHost"))
			}
		}
		if o.Want > 300 || o.Seed%2 == 1 {
			continue
		}
		listed++
		_, got, err := run(&cudaBackend{HostBackend: NewHostBackend(1 << 14), t: t, bin: bin}, o.Case, o.Sem, &forcedLayers, false, 0)
		_, want, err2 := run(NewHostBackend(1<<14), o.Case, o.Sem, TwoLayers(DefaultBlockRows), false, 0)
		if err != nil || err2 != nil || !slices.EqualFunc(got, want, slices.Equal) {
			t.Errorf("listing with four layers forced: %d matches (%v), two layers on HostBackend %d (%v)\n%s", len(got), err, len(want), err2, o.Describe(o.Sem, "cudahost layers", "./engine/sgsi -run TestLayersOnHost"))
		}
	}
	// Hub graphs: rows long enough for every layer at once, lists in parts, rows in windows.
	for seed := uint64(1); seed <= 2; seed++ {
		g := hubGraph(seed, 80, 1)
		p := gen.RandomPattern(seed, 3, gen.PatternOptions{Components: 1, EdgeProb: 0.5, VertexLabels: 2, EdgeLabels: 2, Wildcard: 0.3})
		for _, sem := range []engine.Semantics{{}, {Induced: true, Unique: true}} {
			want := oracle.Count(g, p, sem)
			c := proptest.Case{G: g, P: p}
			// W1 9: every layer; W1 unbounded: the long rows to the block layer, which the
			// short run's few random cases may not reach otherwise.
			for _, th := range []Thresholds{{W3: 2, W2: 5, W1: 9}, {W3: 2, W2: 5, W1: math.MaxUint32}} {
				r, _, err := run(&cudaBackend{HostBackend: NewHostBackend(260), t: t, bin: bin}, c, sem, &th, true, 120)
				if err != nil || r.total != want {
					t.Errorf("hub graph %d %s pattern %v thresholds %+v: %d (%v), oracle %d", seed, sem, p, th, r.total, err, want)
				}
			}
		}
	}
	t.Logf("%d listings compared", listed)
	layers.check(t, "CUDA kernels on the host")
}

// TestLayersDeal checks the host's side of the layers (each row dealt to one layer, a launch
// per layer) with forced thresholds on HostBackend against the oracle, and that the histogram's
// choice on a skewed R-MAT graph gives the same counts as the split before.
func TestLayersDeal(t *testing.T) {
	ctx := context.Background()
	seeds, _ := proptest.Seeds(t, 150, 40)
	var layers layerRuns
	for o := range proptest.WithOracle(seeds, nil) {
		for _, words := range []uint64{1 << 16, 1200} {
			r := &runner{ctx: ctx, be: NewHostBackend(words), st: &Stats{}, s: newStore(o.G, 0), q: compileQuery(o.P), count: true,
				blockRows: 3, blockSize: 4, layers: &forcedLayers, maxCache: words / 16}
			err := r.run(o.Sem.Induced, o.Sem.Unique)
			if err != nil && words < 1<<16 {
				continue
			}
			layers.add(r.st.Balance)
			if err != nil || r.total != o.Want {
				t.Errorf("four layers forced on HostBackend: %d (%v), oracle %d\n%s", r.total, err, o.Want, o.Describe(o.Sem, "host layers", "./engine/sgsi -run TestLayersDeal"))
			}
		}
	}
	layers.check(t, "HostBackend")
	scale := 9
	if testenv.Long() {
		scale = 12
	}
	if s, err := strconv.Atoi(os.Getenv("SUBMATCH_SGSI_RMAT_SCALE")); err == nil && s > 0 {
		scale = s // a measurement (docs/benchmarks.md, issue 21 sgsi9)
	}
	g, err := gen.RMAT(gen.RMATOptions{Scale: scale, EdgeFactor: 8, VertexLabels: 4, LabelDistribution: gen.ZipfLabels, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	p, err := pattern.Parse("(a)-(b)-(c)-(a), (c)-(d)")
	if err != nil {
		t.Fatal(err)
	}
	var counts []uint64
	for _, th := range []*Thresholds{TwoLayers(DefaultBlockRows), nil} {
		st := &Stats{}
		r := &runner{ctx: ctx, be: NewHostBackend(1 << 22), st: st, s: newStore(g, 0), q: compileQuery(p), count: true,
			blockRows: DefaultBlockRows, blockSize: blockThreads, layers: th, buffered: true}
		t0 := time.Now()
		if err := r.run(false, false); err != nil {
			t.Fatal(err)
		}
		t.Logf("R-MAT scale %d, thresholds %v: count %d in %v; %v", scale, th, r.total, time.Since(t0), st.Balance)
		counts = append(counts, r.total)
	}
	if counts[0] != counts[1] {
		t.Errorf("R-MAT: the histogram's layers count %d, the split before %d", counts[1], counts[0])
	}
}

// rowWorkloads returns the buffer offsets of R rows whose workloads follow dist: "random"
// (uniform below 2,000 items), "exp" (exponential, mean 40, and one row in a thousand up to 2^16
// items: a few hubs) or "power" (a Pareto tail, exponent 1.5: rows of every length, a few of
// millions of items).
func rowWorkloads(r *rand.Rand, dist string, R int) []uint32 {
	F := make([]uint32, R+1)
	for i := 1; i <= R; i++ {
		var d uint32
		switch dist {
		case "random":
			d = uint32(r.IntN(2000))
		case "exp":
			d = uint32(r.ExpFloat64() * 40)
			if r.IntN(1000) == 0 {
				d = uint32(r.IntN(1 << 16))
			}
		case "power":
			d = uint32(min(4/math.Pow(1-r.Float64(), 1/1.5), 1<<22)) - 4
		}
		F[i] = F[i-1] + d
	}
	return F
}

// TestChooseSampled checks the sampled choice (deal's: W3 from sampleRows rows, W1 from every
// long row) against the full histogram's: on random, exponential and power-law workloads, the
// cost model over every row at the sampled thresholds within 1% of its least (the full choice's),
// W1 the same, and every row dealt to the layer its thresholds give, each layer's rows in order.
func TestChooseSampled(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 9))
	sizes := []int{1000, 100_000, 1 << 20}
	for trial, dist := range []string{"random", "exp", "power", "random", "exp", "power"} {
		for _, R := range sizes {
			F := rowWorkloads(rng, dist, R)
			w2 := uint32(DefaultBlockRows)
			if trial >= 3 {
				w2 = uint32(32 * (2 + rng.IntN(60))) // other W2s
			}
			full := balancer{costs: DefaultCosts}
			full.reset(w2)
			bins := []uint64{}
			for j := range R {
				d := uint64(F[j+1] - F[j])
				full.add(uint32(d))
				for uint64(len(bins)) <= d/binWidth {
					bins = append(bins, 0)
				}
				bins[d/binWidth]++
			}
			want, best := full.choose(w2)
			idx := make([]uint32, R)
			run := &runner{st: &Stats{}, blockRows: w2, blockSize: blockThreads}
			lay := run.deal(0, F, idx)
			sb := run.st.Balance[0]
			got := Thresholds{W3: sb.W3, W2: sb.W2, W1: sb.W1}
			x2 := x2Of(w2)
			xs := func(th Thresholds) (x1, x3 uint64) {
				x1, x3 = max((th.W1+1)/binWidth, 1)-1, max(x2, 1)-1
				if th.W3 < th.W2 {
					x3 = (th.W3+1)/binWidth - 1
				}
				return x1, x3
			}
			x1, x3 := xs(got)
			cost := bruteCost(&DefaultCosts, bins, x1, x2, x3)
			if cost > 1.01*best+1e-9 {
				t.Errorf("%s, %d rows, W2 %d: sampled thresholds %+v cost %.4g, the full histogram's %+v %.4g (+%.1f%%)",
					dist, R, w2, got, cost, want, best, 100*(cost/best-1))
			}
			if got.W1 != want.W1 || got.W2 != want.W2 || R <= sampleRows && got != want {
				t.Errorf("%s, %d rows: sampled thresholds %+v, full %+v", dist, R, got, want)
			}
			if R == sizes[len(sizes)-1] {
				t.Logf("%s, W2 %d: sampled %+v cost %.5g, full %+v %.5g (%+.2f%%)", dist, w2, got, cost, want, best, 100*(cost/best-1))
			}
			// Every row once, in its layer's part of idx, in order.
			at := 0
			for l := range numLayers {
				prev := -1
				for _, j := range idx[at : at+int(lay.n[l])] {
					if d := uint64(F[j+1] - F[j]); got.layer(d) != l || int(j) <= prev {
						t.Fatalf("%s, %d rows: row %d (%d items, after row %d) in layer %s, thresholds %+v", dist, R, j, d, prev, layerNames[l], got)
					}
					prev = int(j)
				}
				at += int(lay.n[l])
			}
			if at != R {
				t.Fatalf("%s, %d rows: %d dealt", dist, R, at)
			}
		}
	}
}

// BenchmarkChoose times a chunk's histogram and choice over a million rows of skewed workloads
// (per row: the host's cost of SGSI+'s balance beside the split before).
func BenchmarkChoose(b *testing.B) {
	r := rand.New(rand.NewPCG(3, 21))
	ds := make([]uint64, 1<<20)
	for i := range ds {
		ds[i] = uint64(r.ExpFloat64() * 40)
		if r.IntN(1000) == 0 {
			ds[i] = uint64(r.IntN(1 << 20)) // a few hubs' rows
		}
	}
	bal := balancer{costs: DefaultCosts}
	b.ResetTimer()
	for range b.N {
		bal.reset(DefaultBlockRows)
		for _, d := range ds {
			bal.add(uint32(d))
		}
		bal.choose(DefaultBlockRows)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(ds)), "ns/row")
}

// BenchmarkDeal times dealing a chunk of 2^20 and 2^24 rows of skewed workloads to the layers:
// with the split before (fixed), with the choice from the full histogram (full: the choice of
// sgsi9, every row) and from a sample (sampled: deal's). The per-chunk ms/chunk and the choice's
// share (choice-ms) are the host's cost of SGSI+'s balance.
func BenchmarkDeal(b *testing.B) {
	for _, R := range []int{1 << 20, 1 << 24} {
		F := rowWorkloads(rand.New(rand.NewPCG(3, 21)), "exp", R)
		idx := make([]uint32, R)
		for _, c := range []struct {
			name   string
			layers *Thresholds
			sample int
		}{{"fixed", TwoLayers(DefaultBlockRows), 0}, {"full", nil, math.MaxInt}, {"sampled", nil, 0}} {
			b.Run(fmt.Sprintf("%s/rows=%d", c.name, R), func(b *testing.B) {
				run := &runner{st: &Stats{}, blockRows: DefaultBlockRows, blockSize: blockThreads, layers: c.layers}
				run.bal.sampleRows = c.sample
				for range b.N {
					run.deal(1, F, idx)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(R), "ns/row")
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e6, "ms/chunk")
				b.ReportMetric(float64(run.st.Balance[1].Choice.Nanoseconds())/float64(b.N)/1e6, "choice-ms")
			})
		}
	}
}
