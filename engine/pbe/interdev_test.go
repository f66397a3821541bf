package pbe

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/gpu"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/internal/cudacheck"
	"github.com/submatch/submatch/internal/cudahost"
	"github.com/submatch/submatch/internal/oracle"
	"github.com/submatch/submatch/internal/proptest"
	"github.com/submatch/submatch/partition"
	"github.com/submatch/submatch/pattern"
)

func TestInterKernelSyntax(t *testing.T) { cudacheck.Syntax(t, interKernelFile, interKernelSource) }

// interHostMain runs pbe_inter, built for the host, over the launches it reads (lo, hi, the
// heavy list's index or ~0 for the entries, slices) on a grid of a[5] blocks of a[6] threads with
// heavyMin a[8], and writes the counters, then each launch's longest thread's work and its
// threads' summed work (pbe_inter_work).
const interHostMain = `
int main() {
    auto a = Read<uint64_t>();
    auto offs = Read<u64>();
    auto nbr = Read<uint32_t>();
    auto elab = Read<uint32_t>();
    auto vlab = Read<uint32_t>();
    auto runOff = Read<u64>();
    auto runs = Read<uint64_t>();
    auto of = Read<uint32_t>();
    auto cand = Read<u64>();
    auto prog = Read<uint32_t>();
    auto chunks = Read<uint64_t>();
    auto heavy = Read<u64>();
    u64 out[5] = {0, 0, 0, 0, 0}, ctl[2] = {0, 0};
    std::vector<u64> work(a[5] * a[6]), spread;
    pbe_inter_work = work.data();
    for (uint64_t c = 0; c < a[7]; ++c) {
        const uint64_t* l = &chunks[4 * c];
        for (auto& x : work) x = 0;
        Launch(a[5], a[6], pbe_inter, offs.data(), nbr.data(), elab.data(), vlab.data(), runOff.data(),
               (const Run*)runs.data(), of.data(), cand.data(), prog.data(), (u32)a[1], a[0], (u32)a[2],
               (u32)a[3], (u32)a[4], l[0], l[1], l[2] == ~0ull ? nullptr : heavy.data() + l[2], (u32)l[3],
               (u64)a[8], out, nullptr, ctl);
        u64 most = 0, sum = 0;
        for (auto x : work) most = x > most ? x : most, sum += x;
        spread.push_back(most);
        spread.push_back(sum);
    }
    fwrite(out, 8, 5, stdout);
    fwrite(spread.data(), 8, spread.size(), stdout);
    return 0;
}
`

// hostWork is the threads' work (candidates looked at and nodes opened) in a host run of the
// kernel: the launches' longest threads' summed, and every thread's summed.
type hostWork struct{ longest, total uint64 }

// hostKernel runs the host build of the kernel over every entry of g, the heavy seeds at least
// (noHeavy: none) split by grain first as runInterGPU does (interPasses; limit: heavySeeds's), each pass in chunks of chunk items
// from the top, on blocks blocks of threads threads; seed picks the lanes' order (cudahost.RunSeeded)
// in a build with lanes.
func hostKernel(t *testing.T, bin string, seed uint64, g *graph.Graph, of []uint32, dp *devicePlan, least, grain, limit, chunk uint64, blocks, threads uint64) (interCounts, hostWork) {
	t.Helper()
	ga, flags, pl := kernelGraph(g, dp)
	h := heavySeeds(ga.offs, ga.nbr, of, dp, least, grain, limit)
	var chunks []uint64
	for _, ps := range interPasses(2*g.NumEdges(), h.classes) {
		at := ^uint64(0)
		if ps.slices > 0 {
			at = ps.at
		}
		for hi := ps.items; hi > 0; {
			lo := hi - min(hi, chunk)
			chunks = append(chunks, lo, hi, at, uint64(max(ps.slices, 1)))
			hi = lo
		}
	}
	var in cudahost.Input
	cudahost.Put(&in, []uint64{uint64(g.NumVertices()), uint64(dp.nprog), uint64(flags), uint64(pl),
		entryBytes(g), blocks, threads, uint64(len(chunks) / 4), h.least})
	cudahost.Put(&in, ga.offs)
	cudahost.Put(&in, ga.nbr)
	cudahost.Put(&in, ga.elab)
	cudahost.Put(&in, ga.vlab)
	cudahost.Put(&in, ga.runOff)
	cudahost.Put(&in, ga.runs)
	cudahost.Put(&in, of)
	cudahost.Put(&in, ga.cand)
	cudahost.Put(&in, dp.prog)
	cudahost.Put(&in, chunks)
	cudahost.Put(&in, h.entries)
	out := make([]uint64, 5+len(chunks)/2)
	if err := binary.Read(bytes.NewReader(cudahost.RunSeeded(t, bin, &in, seed)), binary.LittleEndian, out); err != nil {
		t.Fatal(err)
	}
	var w hostWork
	for i := 5; i < len(out); i += 2 {
		w.longest += out[i]
		w.total += out[i+1]
	}
	return interCounts{matches: out[0], seeds: out[1], nodes: out[2], bytes: out[3], overflow: out[4] != 0}, w
}

// interCase is one inter stage to compare: a graph cut into parts and a connected pattern.
type interCase struct {
	what string
	g    *graph.Graph
	of   []uint32
	p    *pattern.Pattern
}

// interCases are proptest's random labelled problems (vertex and edge labels, wildcards) cut into
// parts of about a fifth of the graph, then the shared-execution patterns on an unlabelled
// random graph (the kernel's plain path) and one with two vertex and two edge labels, each at a
// quarter of the graph or at the tightest budget (tens of parts); then R-MAT scale 10, unlabelled
// and with two vertex and two edge labels, at a quarter of the graph (ranges).
func interCases(t *testing.T) []interCase {
	ctx := context.Background()
	var out []interCase
	seeds, _ := proptest.Seeds(t, 200, 30)
	for _, seed := range seeds {
		c := proptest.Make(seed)
		if c.P.NumEdges() == 0 || len(c.P.Components()) != 1 {
			continue
		}
		// Problems the oracle takes within its budget: a few of the deep sweep's 200 seeds have
		// searches the host stage runs for minutes (the sweep ran over 18 minutes in this test).
		if _, ok := oracle.CountWithin(c.G, c.P, engine.Semantics{}, proptest.OracleBudget); !ok {
			continue
		}
		pt, err := partition.Partition(ctx, c.G, partition.Options{Budget: max(partition.GraphBytes(c.G)/5, 64), Method: partition.Grow})
		if err != nil || len(pt.Parts) < 2 {
			continue
		}
		out = append(out, interCase{fmt.Sprintf("proptest seed %d", seed), c.G, pt.Of, c.P})
	}
	patterns := []string{
		"(a)-(b)", "(a)-(b)-(c)-(a)", "(a)-(b)-(c)-(d)-(a)-(c), (b)-(d)", "(a)-(b)-(c)-(d)-(a)",
		"(c)-(x), (c)-(y), (c)-(z)", "(a)-(b)-(c)-(d)-(a)-(c), (b)-(d), (e)-(a), (e)-(b)",
		"(a:1)-(b)-(c:1)-(d)-(a)", "(a)-[:1]-(b)-(c)-(a)", "(a:1)-[:1]-(b:1)-(c)-(d)-(a), (b)-(d)",
		"(a:*)-(b:*)-(c)-(a)", "(a)-[:*]-(b)-(c)-[:*]-(d)-(a)", "(a:1)-(b:0)-(c:1)-(d:0)-(b), (a)-[:1]-(d)",
	}
	for gi, g := range []*graph.Graph{gen.RandomGraphM(1, 90, 420, 1, 1), gen.RandomGraphM(2, 100, 600, 2, 2)} {
		for bi, b := range []uint64{partition.GraphBytes(g) / 4, max(64, MinBudget(g))} {
			pt, err := partition.Partition(ctx, g, partition.Options{Budget: b, Method: []partition.Method{partition.Multilevel, partition.Ranges}[bi]})
			if err != nil || len(pt.Parts) < 2 {
				t.Fatalf("graph %d budget %d: %v (%d parts)", gi, b, err, len(pt.Parts))
			}
			for pi, src := range patterns {
				if pi%2 != bi {
					continue // each pattern at one of the two budgets
				}
				p, err := pattern.Parse(src)
				if err != nil {
					t.Fatal(err)
				}
				out = append(out, interCase{fmt.Sprintf("graph %d budget %d %s", gi, b, src), g, pt.Of, p})
			}
		}
	}
	// R-MAT: hubs (long lists, many runs' worth of seeds a vertex), cut by ranges at a quarter.
	for gi, o := range []gen.RMATOptions{{Scale: 10, EdgeFactor: 8, Seed: 1}, {Scale: 10, EdgeFactor: 8, Seed: 2, VertexLabels: 2, EdgeLabels: 2}} {
		g, err := gen.RMAT(o)
		if err != nil {
			t.Fatal(err)
		}
		pt, err := partition.Partition(ctx, g, partition.Options{Budget: partition.GraphBytes(g) / 4, Method: partition.Ranges})
		if err != nil || len(pt.Parts) < 2 {
			t.Fatalf("R-MAT %d: %v (%d parts)", gi, err, len(pt.Parts))
		}
		for _, src := range []string{"(a)-(b)-(c)-(a)", "(a)-(b)-(c)-(d)-(a)", "(a:1)-(b)-(c:*)-(a), (c)-[:1]-(d)-(b)"} {
			p, _ := pattern.Parse(src)
			out = append(out, interCase{fmt.Sprintf("R-MAT %d %s", gi, src), g, pt.Of, p})
		}
	}
	return out
}

// eachInterStage calls f with every case's inter plan, flattened, and the host stage's counts, in
// every convention with shared execution on and off (patterns deeper than the kernel's stack
// left out).
func eachInterStage(t *testing.T, cases []interCase, f func(c interCase, sem engine.Semantics, shared bool, ip *interPlan, dp *devicePlan, want interStats)) {
	t.Helper()
	ctx := context.Background()
	for _, c := range cases {
		for _, sem := range proptest.AllSemantics {
			prob := &engine.Problem{Data: c.g, Pattern: c.p, Semantics: sem}
			for _, shared := range []bool{true, false} {
				ip, err := interPlanFor(ctx, prob, true, shared)
				if err != nil {
					t.Fatal(err)
				}
				dp, err := flattenInter(ip)
				if errors.Is(err, errTooDeep) {
					continue
				}
				if err != nil {
					t.Fatal(err)
				}
				want, _ := runInter(ctx, c.g, c.of, entryBytes(c.g), enumerating(ip), 2, nil)
				f(c, sem, shared, ip, dp, want)
			}
		}
	}
}

// enumerating is ip with every program counting its last position alone (no counted tail) and
// extending every seed on its own (no leafSeed), as the kernel does: the host stage's nodes and
// bytes are then the kernel's.
func enumerating(ip *interPlan) *interPlan {
	c := *ip
	c.programs = slices.Clone(ip.programs)
	for k := range c.programs {
		c.programs[k].tail = len(c.programs[k].steps) - 1
		c.programs[k].leafSeed = false
	}
	return &c
}

// sameInter fails the test unless the kernel's counts equal the host stage's, all four.
func sameInter(t *testing.T, what string, got interCounts, want interStats) {
	t.Helper()
	if got.matches != want.matches || got.seeds != want.seeds || got.nodes != want.nodes || got.bytes != want.bytes || got.overflow {
		t.Fatalf("%s: kernel %+v, host %+v", what, got, want)
	}
}

// TestInterKernelOnHost runs kernels/inter.cu built for the host (package cudahost) against the
// host inter stage: the matches, seeds, search nodes and bytes of every count must be the same,
// in every convention, with shared execution on and off, over interCases, on a grid of three
// blocks of two threads with chunks of 7 and of every entry.
func TestInterKernelOnHost(t *testing.T) {
	bin := cudahost.Build(t, "pbe_inter", interKernelSource, interHostMain)
	runs, inter, restricted := 0, 0, 0
	eachInterStage(t, interCases(t), func(c interCase, sem engine.Semantics, shared bool, ip *interPlan, dp *devicePlan, want interStats) {
		chunk := uint64(7)
		if runs%2 == 1 {
			chunk = 2 * c.g.NumEdges()
		}
		got, _ := hostKernel(t, bin, 0, c.g, c.of, dp, heavyMin, heavyGrain, 0, chunk, 3, 2)
		sameInter(t, fmt.Sprintf("%s %v shared %v", c.what, sem, shared), got, want)
		runs++
		if want.matches > 0 {
			inter++
		}
		for _, pr := range ip.programs {
			for _, st := range pr.steps {
				if len(st.less)+len(st.more) > 0 {
					restricted++
				}
			}
		}
	})
	t.Logf("%d inter stages compared, %d with inter-partition matches, %d restricted steps", runs, inter, restricted)
	if runs < 100 || inter < runs/3 || restricted == 0 {
		t.Fatalf("%d runs, %d with matches, %d restricted steps", runs, inter, restricted)
	}
}

// fakeLauncher counts each entry of a chunk as one match, records the chunks, and cancels its
// context after stopAfter launches (0: never).
type fakeLauncher struct {
	chunks    [][2]uint64
	stopAfter int
	cancel    context.CancelFunc
	wrap      bool
}

func (f *fakeLauncher) launch(ctx context.Context, lo, hi uint64) (interCounts, error) {
	f.chunks = append(f.chunks, [2]uint64{lo, hi})
	if f.stopAfter > 0 && len(f.chunks) == f.stopAfter {
		f.cancel()
	}
	c := interCounts{matches: hi - lo, seeds: 1, nodes: 2, bytes: 3}
	if f.wrap {
		c.matches = ^uint64(0)
	}
	return c, ctx.Err()
}

// TestRunChunks: the chunks cover every entry once, from the top down, growing while launches
// are short; a cancellation stops after the launch it cut; a match count beyond a uint64 is an
// overflow.
func TestRunChunks(t *testing.T) {
	for _, n := range []uint64{0, 1, 5, 1000, 123_457} {
		f := &fakeLauncher{}
		r, err := runChunks(context.Background(), f, n, 3)
		if err != nil || r.st.matches != n || r.launches != len(f.chunks) || r.st.seeds != uint64(r.launches) {
			t.Fatalf("%d entries: %+v, err %v", n, r, err)
		}
		hi := n
		for i, c := range f.chunks {
			if c[1] != hi || c[0] >= c[1] || i > 0 && c[1]-c[0] < f.chunks[i-1][1]-f.chunks[i-1][0] && c[0] != 0 {
				t.Fatalf("%d entries: chunks %v", n, f.chunks)
			}
			hi = c[0]
		}
		if hi != 0 {
			t.Fatalf("%d entries: chunks %v end at %d", n, f.chunks, hi)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f := &fakeLauncher{stopAfter: 3, cancel: cancel}
	if r, err := runChunks(ctx, f, 1<<20, 8); !errors.Is(err, context.Canceled) || r.launches != 3 {
		t.Fatalf("cancelled: %d launches, err %v", r.launches, err)
	}
	// A context that ends while the last chunk completes: every entry was counted, so the
	// count is whole (it was reported cut).
	probe := &fakeLauncher{}
	if _, err := runChunks(context.Background(), probe, 1000, 8); err != nil {
		t.Fatal(err)
	}
	ctx2, cancel2 := context.WithCancel(context.Background())
	defer cancel2()
	last := &lastChunkCanceller{&fakeLauncher{stopAfter: len(probe.chunks), cancel: cancel2}}
	if r, err := runChunks(ctx2, last, 1000, 8); err != nil || r.st.matches != 1000 {
		t.Fatalf("cancelled as the last chunk ended: %d matches, err %v", r.st.matches, err)
	}
	f = &fakeLauncher{wrap: true}
	if _, err := runChunks(context.Background(), f, 100, 8); !errors.Is(err, engine.ErrOverflow) {
		t.Fatalf("wrapped: err %v", err)
	}
}

// TestInterGPUOnTheHost: with InterGPU, a pattern deeper than the kernel's stack counts on the
// host (before any device is opened), and on a machine without a GPU a pattern the kernel takes
// fails with the reason (gpu.ErrNoGPU), not a count.
func TestInterGPUOnTheHost(t *testing.T) {
	ctx := context.Background()
	b := graph.NewBuilder(graph.BuilderOptions{})
	for v := range int64(60) { // a cycle of 60 vertices
		if err := b.AddEdge(v, (v+1)%60, 0); err != nil {
			t.Fatal(err)
		}
	}
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	cpu, err := engine.Lookup("cpu")
	if err != nil {
		t.Fatal(err)
	}
	deep, _ := pattern.Parse("(a)-(b)-(c)-(d)-(e)-(f)-(g)-(h)-(i)-(j)-(k)-(l)-(m)-(n)-(o)-(p)-(q)")
	prob := &engine.Problem{Data: g, Pattern: deep, Semantics: engine.Semantics{Unique: true}}
	want, err := cpu.Count(ctx, prob)
	if err != nil {
		t.Fatal(err)
	}
	e := &Engine{Budget: partition.GraphBytes(g) / 4, Partitioner: partition.Ranges, InterBackend: InterGPU}
	res, st, err := e.CountStats(ctx, prob)
	if err != nil || res.Count != want.Count || st.InterDevice != nil || st.Parts < 2 || st.InterMatches == 0 {
		t.Fatalf("%d vertices: %d (inter %d, %d parts, on the GPU %v, err %v), want %d", deep.NumVertices(), res.Count, st.InterMatches, st.Parts, st.InterDevice != nil, err, want.Count)
	}
	if devs, err := gpu.Open(ctx); err == nil && len(devs) > 0 {
		return // the device test checks the GPU's counts
	}
	path, _ := pattern.Parse("(a)-(b)-(c)")
	if _, _, err := e.CountStats(ctx, &engine.Problem{Data: g, Pattern: path}); !errors.Is(err, gpu.ErrNoGPU) {
		t.Fatalf("without a GPU: err %v, want gpu.ErrNoGPU", err)
	}
}

// lastChunkCanceller cancels its context once its stopAfter-th launch has counted, and reports
// that launch whole (as a kernel that finished before the stop flag was read).
type lastChunkCanceller struct{ *fakeLauncher }

func (l *lastChunkCanceller) launch(_ context.Context, lo, hi uint64) (interCounts, error) {
	l.chunks = append(l.chunks, [2]uint64{lo, hi})
	if len(l.chunks) == l.stopAfter {
		l.cancel()
	}
	return interCounts{matches: hi - lo, seeds: 1, nodes: 2, bytes: 3}, nil
}
