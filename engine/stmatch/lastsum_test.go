package stmatch

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/internal/cudahost"
	"github.com/submatch/submatch/internal/oracle"
	"github.com/submatch/submatch/internal/sharedtest"
	"github.com/submatch/submatch/internal/testenv"
	"github.com/submatch/submatch/pattern"
	"github.com/submatch/submatch/plan"
)

// lastSumMain runs stmatch_lastsum, compiled as C++ by package cudahost, on the arrays of a
// lastSumPlan and its work units: a grid of a[0] warps of WARP lanes (one, or cudahost's emulated
// lanes), blocks of a[4] warps, over the units in ranges of a[2] units (a[1] in all), as
// lastSumRun.run launches them: a range again from the units its launch took while the warps'
// time slice a[5] (ns of the host's stand-in clock, 100 us a reading) cuts it; with the stop flag
// a[3]. The set buffers start poisoned. It
// prints the warps' total, whether a count overflowed (the kernel's flag, or the host's sum),
// the list entries read, the most that one unit read, whether the kernel saw the stop flag, and
// the launches.
const lastSumMain = `
typedef unsigned long long ull;
int main() {
    auto meta = Read<ull>();
    auto off = Read<ull>();
    auto val = Read<unsigned>();
    auto cands = Read<unsigned>();
    auto desc = Read<ull>();
    auto units = Read<ull>();
    auto a = Read<ull>();
    std::vector<unsigned> buf(a[0] * desc[4] + 1, 0xdeadbeefu);
    std::vector<ull> ctl(64), counts(a[0]);
    const unsigned stop = (unsigned)a[3];
    ull total = 0;
    int overflow = 0, stopped = 0;
    ull launches = 0;
    for (ull lo = 0; lo < a[1] && !stopped;) {
        ull hi = lo + a[2] < a[1] ? lo + a[2] : a[1];
        for (auto& c : ctl) c = 0;
        Launch(a[0] / a[4], a[4] * WARP, stmatch_lastsum, meta.data(), off.data(), val.data(), cands.data(), desc.data(),
               units.data(), lo, hi, a[5], &stop, buf.data(), ctl.data(), counts.data());
        lo += ctl[0] < hi - lo ? ctl[0] : hi - lo;
        launches++;
        if (ctl[16]) overflow = 1;
        if (ctl[32]) stopped = 1;
        for (ull c : counts) {
            if (total + c < total) overflow = 1;
            total += c;
        }
    }
    printf("%llu %d %llu %llu %d %llu\n", total, overflow, lastsum_reads, lastsum_unit_max, stopped, launches);
    return 0;
}
`

// lastSumHost is the kernel built for the host: one-lane warps, or warps of lanes emulated by
// cudahost (BuildLanes) in blocks of perBlock warps, their fibers picked from seed (0: in turn);
// stop is the host's stop flag as the kernel reads it, slice the warps' time slice (0: none).
type lastSumHost struct {
	t                     testing.TB
	bin                   string
	perBlock, seed, slice uint64
	stop                  bool
}

func newLastSumHost(t testing.TB) *lastSumHost {
	return &lastSumHost{t: t, bin: cudahost.Build(t, "lastsum", "#define LASTSUM_READS 1\n"+lastSumSource, lastSumMain), perBlock: 1}
}

// newLastSumLanes is newLastSumHost with warps of width emulated lanes, perBlock a block.
func newLastSumLanes(t testing.TB, width int, perBlock uint64) *lastSumHost {
	return &lastSumHost{t: t, bin: cudahost.BuildLanes(t, "lastsum", "#define LASTSUM_READS 1\n"+lastSumSource, lastSumMain, width), perBlock: perBlock}
}

// lastSumWork is what a host run of the kernel read: list entries in all and in its largest unit;
// stopped says that the kernel saw the stop flag; launches is how many ran.
type lastSumWork struct {
	reads, unitMax, units, launches uint64
	stopped                         bool
}

// count runs the kernel on pl's shape with warps one-lane warps, units split for a grid of
// unitWarps warps (or one a root), in launches of chunk units; it returns the plan's matches
// (times its Multiplier) and the work.
func (h *lastSumHost) count(g *graph.Graph, pl *plan.Plan, warps, unitWarps int, split bool, chunk uint64) (uint64, lastSumWork) {
	h.t.Helper()
	shape, why := lastSumFor(pl)
	if why != "" {
		h.t.Fatalf("not of the last-level-sum shape: %s\n%s", why, pl.Describe())
	}
	lp, err := flattenLastSum(g, pl, shape)
	if err != nil {
		h.t.Fatal(err)
	}
	fp := lp.fp
	units := fp.lastSumUnits(unitWarps, split)
	var in cudahost.Input
	cudahost.Put(&in, fp.Meta)
	cudahost.Put(&in, fp.Offsets)
	cudahost.Put(&in, fp.values())
	cudahost.Put(&in, fp.Cands)
	cudahost.Put(&in, lp.desc)
	cudahost.Put(&in, units)
	stop := uint64(0)
	if h.stop {
		stop = 1
	}
	warps = (warps + int(h.perBlock) - 1) / int(h.perBlock) * int(h.perBlock)
	slice := uint64(math.MaxUint64)
	if h.slice > 0 {
		slice = h.slice
	}
	cudahost.Put(&in, []uint64{uint64(warps), uint64(len(units)), max(1, chunk), stop, h.perBlock, slice})
	var total uint64
	var overflow, stopped int
	w := lastSumWork{units: uint64(len(units))}
	out := string(cudahost.RunSeeded(h.t, h.bin, &in, h.seed))
	_, err = fmt.Sscan(out, &total, &overflow, &w.reads, &w.unitMax, &stopped, &w.launches)
	w.stopped = stopped != 0
	if err != nil || overflow != 0 {
		h.t.Fatalf("kernel output %q: %v, overflow %d", out, err, overflow)
	}
	return total * pl.Multiplier, w
}

// lastSumPatterns are pattern shapes with a last level, e and maybe b below a key that leaves a
// level out (as planned on small graphs); labels are added at random.
var lastSumPatterns = []string{
	"(a)-(b), (a)-(c), (b)-(c), (c)-(d), (c)-(e), (d)-(e)",          // q1
	"(a)-(c), (c)-(d), (c)-(e), (d)-(e)",                            // a triangle with a tail
	"(a)-(b), (a)-(c), (b)-(c), (c)-(d), (c)-(e), (d)-(e), (a)-(f)", // q1 with a pendant
	"(a)-(c), (b)-(c), (a)-(b), (c)-(d), (d)-(e), (c)-(e), (e)-(f), (d)-(f)",
	"(x)-(c), (c)-(d), (c)-(e), (d)-(e), (x)-(y), (y)-(c)",
}

// labelledShape returns the pattern s with random vertex labels (of vl, some wildcards) and edge
// labels (of el).
func labelledShape(t testing.TB, s string, seed uint64, vl, el int) *pattern.Pattern {
	t.Helper()
	r := seed*2654435761 + 12345
	next := func(n int) int {
		r ^= r << 13
		r ^= r >> 7
		r ^= r << 17
		return int(r % uint64(n))
	}
	named := map[string]bool{}
	var b strings.Builder
	for i, part := range strings.Split(s, ",") {
		if i > 0 {
			b.WriteString(", ")
		}
		ends := strings.Split(strings.TrimSpace(part), "-")
		for k, end := range ends {
			if k > 0 {
				if el > 0 && next(3) > 0 {
					fmt.Fprintf(&b, "-[:%d]-", next(el))
				} else {
					b.WriteString("-")
				}
			}
			name := strings.Trim(end, "()")
			if !named[name] && vl > 0 && next(4) > 0 {
				fmt.Fprintf(&b, "(%s:%d)", name, next(vl))
			} else {
				fmt.Fprintf(&b, "(%s)", name)
			}
			named[name] = true
		}
	}
	p, err := pattern.Parse(b.String())
	if err != nil {
		t.Fatalf("%s: %v", b.String(), err)
	}
	return p
}

// TestLastSumKernelOnHost runs the last-level-sum kernel, compiled for the host (cudahost), on
// random labelled graphs and patterns of its shape (the fixed shapes above with random labels,
// and random patterns whose plan has the shape), embeddings and unique matches, with one root a
// unit and with split roots, in one launch and in several: against the CPU engine and the
// oracle.
func TestLastSumKernelOnHost(t *testing.T) {
	h := newLastSumHost(t)
	seeds := uint64(24)
	if testenv.Long() {
		seeds = 120
	}
	cases, refused, withB, windowed, multiplied, viaEmbeddings := 0, 0, 0, 0, 0, 0
	for seed := uint64(1); seed <= seeds; seed++ {
		vl, el := int(seed%3), int(seed%4)/2*2
		g := gen.RandomGraphM(seed*13, 30+int(seed%4)*10, 120+int(seed%5)*40, vl, el)
		var pats []*pattern.Pattern
		for _, s := range lastSumPatterns {
			pats = append(pats, labelledShape(t, s, seed, vl, el))
		}
		pats = append(pats, gen.RandomPattern(seed*31, 4+int(seed%4), gen.PatternOptions{
			EdgeProb: 0.35, VertexLabels: vl, EdgeLabels: el, Wildcard: 0.3}))
		for _, p := range pats {
			for _, sem := range semantics {
				// The engine's own choice: the plan and whether the kernel takes it, unique
				// matches through the embeddings plan (divided by |Aut|).
				pr := prepare(context.Background(), &engine.Problem{Data: g, Pattern: p, Semantics: sem}, Options{}, nil)
				if pr.err != nil || pr.ferr != nil {
					t.Fatalf("seed %d %s (%s): %v %v", seed, p, sem, pr.err, pr.ferr)
				}
				pl := pr.pl
				if pl.Empty {
					continue
				}
				if pr.ls == nil {
					refused++
					if _, why := lastSumFor(pl); testing.Verbose() && !sem.Induced && !sem.Unique {
						t.Logf("seed %d %s (%s): %s", seed, p, sem, why)
					}
					continue
				}
				if sem.Induced {
					t.Fatalf("seed %d %s: an induced plan of the last-level-sum shape\n%s", seed, p, pl.Describe())
				}
				want := cpuCount(t, g, p, sem)
				if o := oracle.Count(g, p, sem); o != want {
					t.Fatalf("seed %d %s (%s): cpu %d, oracle %d", seed, p, sem, want, o)
				}
				for _, run := range []struct {
					warps int
					split bool
					chunk uint64
				}{{1, false, 1 << 30}, {3, true, 5}} {
					if got, _ := h.count(g, pl, run.warps, run.warps, run.split, run.chunk); got/max(1, pr.divide) != want || got%max(1, pr.divide) != 0 {
						t.Errorf("seed %d %s (%s) %+v: kernel on the host %d, cpu and oracle %d\n%s", seed, p, sem, run, got, want, pl.Describe())
					}
				}
				cases++
				if pr.divide > 0 {
					viaEmbeddings++
				}
				if pl.Multiplier > 1 {
					multiplied++
				}
				for _, l := range pl.Levels {
					if l.Bounded() {
						windowed++
						break
					}
				}
				if len(pl.Groups) == 2 {
					withB++
				}
			}
		}
	}
	t.Logf("%d counts of the shape checked (%d with b, %d with symmetry windows on levels above the last, %d multiplied by automorphisms, %d unique through embeddings), %d plans refused",
		cases, withB, windowed, multiplied, viaEmbeddings, refused)
	// Without b no level is left out of the key: the last of the levels left out would have
	// no later neighbour, and the planner postpones such a vertex (b).
	if cases < int(seeds) || withB == 0 || windowed == 0 || viaEmbeddings == 0 {
		t.Errorf("only %d counts had the shape (%d with b, %d with windows)", cases, withB, windowed)
	}
}

// TestLastSumShape checks which plans the kernel takes: STMatch's q1 as embeddings (the key c
// leaves a out), not where the key is every level above the last, nor with a window on the last
// level (q1's unique plan enumerates every vertex), nor induced.
func TestLastSumShape(t *testing.T) {
	g := gen.RandomGraphM(5, 60, 400, 0, 0)
	q1 := mustParse(lastSumPatterns[0])
	if _, why := lastSumFor(testPlan(g, q1, engine.Semantics{}, Options{})); why != "" {
		t.Errorf("q1 embeddings: %s", why)
	}
	for _, c := range []struct {
		p   string
		sem engine.Semantics
	}{
		{lastSumPatterns[0], engine.Semantics{Unique: true}},
		{lastSumPatterns[0], engine.Semantics{Induced: true}},
		{"(a)-(b), (b)-(c), (c)-(a), (a)-(d), (b)-(d)", engine.Semantics{}}, // diamond: key is every level
		{"(a)-(b), (b)-(c), (c)-(d), (d)-(a)", engine.Semantics{}},
	} {
		pl := testPlan(g, mustParse(c.p), c.sem, Options{})
		if _, why := lastSumFor(pl); why == "" {
			t.Errorf("%s (%s): taken by the last-level-sum kernel\n%s", c.p, c.sem, pl.Describe())
		}
	}
}

// TestLastSumWikiVote runs the kernel on the host on STMatch's q1 over wiki-Vote (long tests
// only: about a second of C++): the count against the CPU engine's, and the list entries read
// (reported; docs/benchmarks.md compares them with the plan kernels' loop).
func TestLastSumWikiVote(t *testing.T) {
	if !testenv.Long() {
		t.Skip("long test")
	}
	g := sharedtest.WikiVote(t)
	p := mustParse(lastSumPatterns[0])
	pl := testPlan(g, p, engine.Semantics{}, Options{})
	h := newLastSumHost(t)
	want := cpuCountThreads(t, g, p, engine.Semantics{}, 0)
	for _, unitWarps := range []int{1, fullGridWarps} {
		t0 := time.Now()
		got, w := h.count(g, pl, 64, unitWarps, true, 1<<30)
		took := time.Since(t0)
		if got != want {
			t.Errorf("q1 on wiki-Vote: kernel on the host %d, cpu %d", got, want)
		}
		t.Logf("q1 on wiki-Vote: %d embeddings; the last-level-sum kernel with units for %d warps (%d units) read %d list entries, at most %d in one unit; %v on one host thread (C++ -O1, the reads counted; input included)",
			got, unitWarps, w.units, w.reads, w.unitMax, took)
	}
	// Unique matches: the embeddings over |Aut(q1)| = 8.
	uniq := engine.Semantics{Unique: true}
	pr := prepare(context.Background(), &engine.Problem{Data: g, Pattern: p, Semantics: uniq}, Options{}, nil)
	if pr.ls == nil || pr.divide != 8 {
		t.Fatalf("q1 unique on wiki-Vote: last-level sum %v, divided by %d", pr.ls != nil, pr.divide)
	}
	if got, _ := h.count(g, pr.pl, 64, 64, true, 1<<30); got/pr.divide != cpuCountThreads(t, g, p, uniq, 0) {
		t.Errorf("q1 unique on wiki-Vote: kernel on the host %d / %d, cpu %d", got, pr.divide, cpuCountThreads(t, g, p, uniq, 0))
	}
	// The plan kernels' loop, for comparison: every (c, a, d) is a node of the last level with
	// e's set N(c) ∩ N(d) to intersect (reading at least the shorter list once), besides b's
	// set and the class count of b and e. The sum intersects once per (c, d) and once per (c, a).
	shape, _ := lastSumFor(pl)
	lp, err := flattenLastSum(g, pl, shape)
	if err != nil {
		t.Fatal(err)
	}
	fp := lp.fp
	l1, l2 := fp.Meta[metaStride+mEBase], fp.Meta[2*metaStride+mEBase]
	se := fp.Meta[lp.desc[dERec]*metaStride+mEBase]
	cands2 := fp.levelCands(2)
	var nodes, loopReads, tables, pairs uint64
	for r := range fp.NumRoots {
		n1, sE := fp.listLen(l1, r), fp.listLen(se, r)
		var below uint64
		for _, d := range fp.list(l2, r) {
			k, _ := slices.BinarySearch(cands2, d)
			below += min(sE, fp.listLen(lp.desc[dVE], uint64(k)))
		}
		nodes += n1 * fp.listLen(l2, r)
		loopReads += n1 * below
		tables += fp.listLen(l2, r)
		pairs += n1
	}
	t.Logf("the plan kernels' loop: %d last-level nodes (c, a, d), each an intersection for e of at least %d list entries in all; "+
		"the sum: %d intersections for the tables (c, d) and %d for b's sets (c, a)", nodes, loopReads, tables, pairs)
}

// TestLastSumPredict: a count of the shape is predicted on the last-level-sum kernel (its note,
// its kernel's cold compile), without the last level's nodes, so far below the plan kernels'
// prediction of q1 on wiki-Vote; listing and NoLastSum keep the plan kernels.
func TestLastSumPredict(t *testing.T) {
	g := sharedtest.WikiVote(t)
	q1 := mustParse(lastSumPatterns[0])
	pl := testPlan(g, q1, engine.Semantics{}, Options{})
	est, err := pl.Estimate(context.Background(), g, plan.EstimateOptions{Seed: 1, Probes: 4096})
	if err != nil {
		t.Fatal(err)
	}
	w := &engine.Workload{Problem: &engine.Problem{Data: g, Pattern: q1}, Plan: pl, Estimate: &est}
	sum, loop := Engine{}.predict(w), Engine{Options: Options{NoLastSum: true}}.predict(w)
	if sum.Note != "the last-level-sum kernel" || sum.Seconds >= loop.Seconds || sum.Seconds-startSeconds > (loop.Seconds-startSeconds)/10 {
		t.Errorf("q1 on wiki-Vote: predicted %.3f s (%s) on the last-level-sum kernel, %.3f s (%s) on the plan kernels",
			sum.Seconds, sum.Note, loop.Seconds, loop.Note)
	}
	t.Logf("q1 on wiki-Vote: predicted %.3f s (%s), %.3f s (%s) with NoLastSum", sum.Seconds, sum.Note, loop.Seconds, loop.Note)
	for _, c := range []struct {
		e    Engine
		list bool
		want string
	}{{Engine{}, false, lastSumFile}, {Engine{}, true, kernelFile}, {Engine{Options: Options{NoLastSum: true}}, false, kernelFile},
		{Engine{Options: Options{Kernel: KernelGeneric}}, false, kernelFile}} {
		lw := *w
		lw.Listing = c.list
		if ks := c.e.Kernels(&lw); len(ks) != 1 || ks[0].File != c.want {
			t.Errorf("%+v listing %v: kernels %+v, want %s", c.e.Options, c.list, ks, c.want)
		}
	}
}

// TestSumDevices: the devices' counts add with overflow reported, a device's failure wins over
// the cancellations, and a cancelled count is partial.
func TestSumDevices(t *testing.T) {
	ctx := context.Background()
	fail := errors.New("device failed")
	if n, partial, err := sumDevices(ctx, []uint64{math.MaxUint64, 1}, []error{nil, nil}); !errors.Is(err, engine.ErrOverflow) || partial || n != 0 {
		t.Errorf("overflow: %d %v %v", n, partial, err)
	}
	if _, _, err := sumDevices(ctx, []uint64{1, 2}, []error{context.Canceled, fail}); !errors.Is(err, fail) {
		t.Errorf("failure: %v", err)
	}
	if n, partial, err := sumDevices(ctx, []uint64{1, 2}, []error{context.Canceled, nil}); n != 3 || !partial || !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %d %v %v", n, partial, err)
	}
	if n, partial, err := sumDevices(ctx, []uint64{1, 2}, []error{nil, nil}); n != 3 || partial || err != nil {
		t.Errorf("sum: %d %v %v", n, partial, err)
	}
}

// TestLastSumPrepare: a count's preparation flattens a plan of the shape for the last-level-sum
// kernel, except with NoLastSum, the plan kernels named, v1, or a --gpu-memory too small for its
// slices (the plan kernels then count it, as every plan of another shape); q1's unique matches
// are counted as its embeddings over |Aut| = 8, not its induced matches.
func TestLastSumPrepare(t *testing.T) {
	g := gen.RandomGraphM(5, 60, 400, 0, 0)
	q1 := mustParse(lastSumPatterns[0])
	for _, c := range []struct {
		o     Options
		limit uint64
		want  bool
	}{
		{Options{}, 0, true}, {Options{Kernel: KernelCliques}, 1 << 30, true},
		{Options{NoLastSum: true}, 0, false}, {Options{Kernel: KernelGeneric}, 0, false},
		{Options{Kernel: KernelQuery}, 0, false}, {Options{V1: true}, 0, false}, {Options{}, 1 << 16, false},
	} {
		pr := prepare(context.Background(), &engine.Problem{Data: g, Pattern: q1, GPUMemoryLimit: c.limit}, c.o, nil)
		if pr.divide != 0 {
			t.Errorf("%+v: embeddings divided by %d", c.o, pr.divide)
		}
		if pr.err != nil || pr.ferr != nil || (pr.ls != nil) != c.want || (pr.ls != nil && pr.fp != pr.ls.fp) {
			t.Errorf("%+v limit %d: last-level sum %v, want %v (%v, %v)", c.o, c.limit, pr.ls != nil, c.want, pr.err, pr.ferr)
		}
	}
	for _, c := range []struct {
		sem    engine.Semantics
		o      Options
		divide uint64
	}{{engine.Semantics{Unique: true}, Options{}, 8}, {engine.Semantics{Unique: true}, Options{NoLastSum: true}, 0},
		{engine.Semantics{Unique: true, Induced: true}, Options{}, 0}} {
		pr := prepare(context.Background(), &engine.Problem{Data: g, Pattern: q1, Semantics: c.sem}, c.o, nil)
		if pr.err != nil || pr.ferr != nil || pr.divide != c.divide || (pr.ls != nil) != (c.divide > 0) {
			t.Errorf("q1 %s %+v: divided by %d (want %d), last-level sum %v (%v, %v)", c.sem, c.o, pr.divide, c.divide, pr.ls != nil, pr.err, pr.ferr)
		}
	}
}

// lastSumLaneCase is one count for the emulated lanes: the case's seed and pattern index, the
// problem, its preparation (of the shape) and the CPU engine's count.
type lastSumLaneCase struct {
	seed uint64
	k    int
	p    *pattern.Pattern
	sem  engine.Semantics
	g    *graph.Graph
	pr   prepared
	want uint64
}

// lastSumLaneCases calls f on the counts of the shape among seeds random labelled graphs and the
// patterns of lastSumPatterns, a semantics each, and returns how many there were.
func lastSumLaneCases(t *testing.T, seeds uint64, f func(c *lastSumLaneCase)) int {
	t.Helper()
	cases := 0
	for seed := uint64(1); seed <= seeds; seed++ {
		vl, el := int(seed%3), int(seed%4)/2*2
		g := gen.RandomGraphM(seed*13, 30+int(seed%4)*10, 120+int(seed%5)*40, vl, el)
		for k, s := range lastSumPatterns {
			c := lastSumLaneCase{seed: seed, k: k, p: labelledShape(t, s, seed, vl, el), g: g}
			c.sem = semantics[int(seed+uint64(k))%len(semantics)]
			c.pr = prepare(context.Background(), &engine.Problem{Data: g, Pattern: c.p, Semantics: c.sem}, Options{}, nil)
			if c.pr.err != nil || c.pr.ferr != nil {
				t.Fatalf("seed %d %s (%s): %v %v", seed, c.p, c.sem, c.pr.err, c.pr.ferr)
			}
			if c.pr.pl.Empty || c.pr.ls == nil {
				continue
			}
			c.want = cpuCount(t, g, c.p, c.sem)
			f(&c)
			cases++
		}
	}
	return cases
}

// TestLastSumKernelLanes runs the last-level-sum kernel with warps of 32 lanes (and 4) emulated
// by cudahost (BuildLanes: the ballots' compaction, the warp sums, the atomics into the tables and
// the unit handout between warps, each lane's reads of the others' writes ordered by the warp's
// collectives), several warps a block, the lanes' fibers in turn and picked at random, ranges
// cut by the warps' time slice (the 4-lane warps) and continued, on random labelled graphs and
// the patterns of its shape: against the CPU engine. With the stop flag raised the kernel
// leaves early and counts at most the whole.
func TestLastSumKernelLanes(t *testing.T) {
	seeds := uint64(6)
	if testenv.Long() {
		seeds = 40
	}
	hosts := []*lastSumHost{newLastSumLanes(t, 32, 2), newLastSumLanes(t, 4, 3)}
	hosts[1].slice = 3_000_000 // 30 readings of the host's clock: ranges cut into several launches
	cut := 0
	cases := lastSumLaneCases(t, seeds, func(c *lastSumLaneCase) {
		div := max(1, c.pr.divide)
		for hi, h := range hosts {
			h.seed = (c.seed*7+uint64(c.k))*uint64(hi) + uint64(hi) // the first in turn, the second at random
			warps := 4 + hi*2
			got, w := h.count(c.g, c.pr.pl, warps, warps, true, []uint64{7, 1 << 30}[hi])
			if h.slice > 0 && w.launches > 1 {
				cut++
			}
			if got%div != 0 || got/div != c.want {
				t.Errorf("seed %d %s (%s), %d-lane warps, fibers from seed %d: kernel %d (/%d), cpu %d\n%s",
					c.seed, c.p, c.sem, []int{32, 4}[hi], h.seed, got, div, c.want, c.pr.pl.Describe())
			}
		}
	})
	t.Logf("%d counts of the shape with emulated lanes, %d with ranges cut by the time slice", cases, cut)
	if cases < int(seeds) || cut == 0 {
		t.Errorf("only %d counts had the shape, %d with ranges cut by the time slice", cases, cut)
	}
	hosts[0].seed = 3
	lastSumStopped(t, hosts[0])
}

// lastSumStopped counts q1 with h and the stop flag raised from the start: the warps leave their
// units, and the count is short.
func lastSumStopped(t *testing.T, h *lastSumHost) {
	t.Helper()
	g := gen.RandomGraphM(99, 80, 900, 0, 0)
	q1 := mustParse(lastSumPatterns[0])
	h.stop = true
	got, w := h.count(g, testPlan(g, q1, engine.Semantics{}, Options{}), 4, 4, true, 1<<30)
	h.stop = false
	if want := cpuCount(t, g, q1, engine.Semantics{}); !w.stopped || got >= want {
		t.Errorf("q1 with the stop flag raised: stopped %v, %d of %d counted", w.stopped, got, want)
	}
}

// TestLastSumKernelRaces runs the last-level-sum kernel with 8-lane warps under ThreadSanitizer
// (cudahost.BuildLanesRaces): lanes or warps that touch the same word without a __syncwarp
// between them (a ballot or a shuffle does not order memory), or add to one word without an
// atomic, fail the run. A few random cases of the shape, and the stop flag raised.
func TestLastSumKernelRaces(t *testing.T) {
	h := &lastSumHost{t: t, bin: cudahost.BuildLanesRaces(t, "lastsum", "#define LASTSUM_READS 1\n"+lastSumSource, lastSumMain, 8),
		perBlock: 2, seed: 5, slice: 3_000_000}
	seeds := uint64(2)
	if testenv.Long() {
		seeds = 12
	}
	cases := lastSumLaneCases(t, seeds, func(c *lastSumLaneCase) {
		if got, _ := h.count(c.g, c.pr.pl, 4, 4, true, 1<<30); got/max(1, c.pr.divide) != c.want {
			t.Errorf("seed %d %s (%s): kernel %d (/%d), cpu %d", c.seed, c.p, c.sem, got, max(1, c.pr.divide), c.want)
		}
	})
	if cases == 0 {
		t.Errorf("no count had the shape")
	}
	lastSumStopped(t, h)
}
