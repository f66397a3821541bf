package pbe_test

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/engine/pbe"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/internal/oracle"
	"github.com/submatch/submatch/internal/proptest"
	"github.com/submatch/submatch/partition"
	"github.com/submatch/submatch/pattern"
)

// memReview is one random problem of TestMemoryLimitReview under one convention, with the
// oracle's count.
type memReview struct {
	t    *testing.T
	ctx  context.Context
	c    proptest.Case
	sem  engine.Semantics
	want uint64
	// outcomes counts what the limits gave: counted (reduced or not) or refused for memory.
	counted, reduced, refused, copied *int
}

// check counts the problem on e under the memory limit limit (gpu: the GPU memory limit, 0
// none) and fails the test unless the count is the oracle's, whole, or the error wraps
// engine.ErrMemory. It reports whether it counted and whether the stages ran reduced.
func (m memReview) check(e *pbe.Engine, limit, gpu uint64, what string) (ok, reduced bool) {
	m.t.Helper()
	prob := &engine.Problem{Data: m.c.G, Pattern: m.c.P, Semantics: m.sem, MemoryLimit: limit, GPUMemoryLimit: gpu, Threads: 1 + int(limit%2)}
	done := m.watch(e, limit, gpu)
	res, st, err := e.CountStats(m.ctx, prob)
	how := fmt.Sprintf("%s: pbe budget %d partitioner %v, --memory %d, --gpu-memory %d (%d parts, method %q, reduced %v, skipped %q, intra %d, inter %d)",
		what, e.Budget, e.Partitioner, limit, gpu, st.Parts, st.PartitionMethod, st.Reduced, st.ReduceSkipped, st.IntraMatches, st.InterMatches)
	done(how, st)
	switch {
	case err != nil && !errors.Is(err, engine.ErrMemory):
		m.t.Fatalf("error %v (not ErrMemory)\n%s", err, m.c.Describe(m.sem, how, "./engine/pbe -run TestMemoryLimitReview"))
	case err != nil && st.Reduced && st.Parts == 0 && e.Budget == 0 && gpu == 0:
		// (prepare: where --memory is the partition budget, a reduced graph that cannot be
		// partitioned within what the reduction leaves falls back to the whole graph)
		m.t.Fatalf("refused (%v) on the reduced graph's partitioning without trying the whole graph\n%s", err, m.c.Describe(m.sem, how, "./engine/pbe -run TestMemoryLimitReview"))
	case err != nil:
		*m.refused++
		return false, st.Reduced
	case res.Partial || res.Count != m.want:
		m.t.Fatalf("count %d (partial %v), oracle %d\n%s", res.Count, res.Partial, m.want, m.c.Describe(m.sem, how, "./engine/pbe -run TestMemoryLimitReview"))
	case st.Reduced && (st.ReduceSkipped != "" || limit > 0 && st.ReducedBytes >= limit):
		m.t.Fatalf("reduced (%d bytes) beside a reason not to (%q)\n%s", st.ReducedBytes, st.ReduceSkipped, m.c.Describe(m.sem, how, "./engine/pbe -run TestMemoryLimitReview"))
	}
	if st.Reduced && limit > 0 && !strings.Contains(what, "shared") && !madeWithin(m.c.G, m.c.P, m.sem, st, limit) {
		m.t.Fatalf("reduced to %d vertices, %d edges, whose making is over --memory %d\n%s", st.ReducedVertices, st.ReducedEdges, limit,
			m.c.Describe(m.sem, how, "./engine/pbe -run TestMemoryLimitReview"))
	}
	if msg := chargedWithin(st, limit, e.Budget == 0 && gpu == 0); msg != "" {
		m.t.Fatalf("%s\n%s", msg, m.c.Describe(m.sem, how, "./engine/pbe -run TestMemoryLimitReview"))
	}
	if e.Budget == 0 && gpu == 0 && st.Parts > 1 {
		*m.copied++
	}
	*m.counted++
	if st.Reduced {
		*m.reduced++
	}
	return true, st.Reduced
}

// madeWithin reports whether the reduction a fresh engine made (of st's size) fits limit at its
// making's peak: the subgraph of p's edge kinds where it is that one (a non-induced count, its
// size that one's), else the label-induced one.
func madeWithin(g *graph.Graph, p *pattern.Pattern, sem engine.Semantics, st *pbe.Stats, limit uint64) bool {
	if kinds := patternKinds(p); kinds != nil && !sem.Induced {
		if h, ok := g.SubgraphByEdgeKinds(kinds, 2*g.NumEdges()); ok && uint64(h.NumVertices()) == st.ReducedVertices && h.NumEdges() == st.ReducedEdges {
			_, _, ok := g.SubgraphByEdgeKindsWithin(kinds, 2*g.NumEdges(), limit)
			return ok
		}
	}
	return g.InducedBytes(g.InducedSize(labelsOf(p))) <= limit
}

// chargedWithin says how a count's charges (Stats) pass its limit (0: none), "" when they do
// not: the reduction, the partitioner's working memory where it ran, the partitioning held,
// the largest part's copy where --memory is the partition budget (budgetIsMemory) and the inter
// stage's buffers, each beside what is held with it; a count on the whole graph reports no
// reduction (its Stats reset by the fallback).
func chargedWithin(st *pbe.Stats, limit uint64, budgetIsMemory bool) string {
	if !st.Reduced && (st.ReducedBytes != 0 || st.ReducedVertices != 0 || st.ReducedEdges != 0) {
		return fmt.Sprintf("not reduced, yet %d reduced bytes, %d vertices, %d edges in the stats", st.ReducedBytes, st.ReducedVertices, st.ReducedEdges)
	}
	if limit == 0 {
		return ""
	}
	rest := limit - st.ReducedBytes // (ReducedBytes < limit: checked before)
	switch {
	case !st.PartitionCached && st.PartitionWorkBytes > rest:
		return fmt.Sprintf("the partitioner's %d bytes beside the reduction's %d, --memory %d", st.PartitionWorkBytes, st.ReducedBytes, limit)
	case budgetIsMemory && st.Parts > 1 && st.MaxCopyBytes+st.PartitionHeldBytes > rest:
		return fmt.Sprintf("a part's copy (%d bytes) beside the partitioning's %d and the reduction's %d, --memory %d", st.MaxCopyBytes, st.PartitionHeldBytes, st.ReducedBytes, limit)
	case st.InterHostBytes > 0 && st.InterHostBytes+st.PartitionHeldBytes > rest:
		return fmt.Sprintf("the inter stage's %d bytes beside the partitioning's %d and the reduction's %d, --memory %d", st.InterHostBytes, st.PartitionHeldBytes, st.ReducedBytes, limit)
	}
	return ""
}

// limitBackend is the host backend that records the memory limit every part's search gets: under
// --memory limit, never 0 (no limit) nor above limit.
type limitBackend struct {
	pbe.HostBackend
	limit          uint64
	budgetIsMemory bool
	bad            *string
	parts          *[][2]uint64 // every part's limit and a lower bound of its copy's bytes
}

func (b *limitBackend) see(sub *engine.Problem) {
	// Where --memory is the partition budget the partitioning (8 bytes a vertex of the graph
	// partitioned, at least the part's) is held beside the part's search (1: nothing left).
	held := uint64(0)
	if b.budgetIsMemory && sub.MemoryLimit > 1 {
		held = 8 * uint64(sub.Data.NumVertices())
	}
	if b.parts != nil {
		// (a lower bound of the part's copy, where it is one: graph.InducedPartBytes of its
		// own vertices, entries and runs, with its own vertices' id table)
		h, runs := sub.Data, uint64(len(sub.Data.Raw().Runs))
		top := uint32(0)
		for _, l := range h.Raw().VertexLabels {
			top = max(top, l)
		}
		*b.parts = append(*b.parts, [2]uint64{sub.MemoryLimit, h.InducedPartBytes(h.NumVertices(), 2*h.NumEdges(), runs, top)})
	}
	if b.limit > 0 && (sub.MemoryLimit == 0 || sub.MemoryLimit+held > b.limit) && *b.bad == "" {
		*b.bad = fmt.Sprintf("a part of %d vertices searched with the limit %d under --memory %d", sub.Data.NumVertices(), sub.MemoryLimit, b.limit)
	}
}

// CountPart implements pbe.Backend.
func (b *limitBackend) CountPart(ctx context.Context, sub *engine.Problem) (engine.Result, error) {
	b.see(sub)
	return b.HostBackend.CountPart(ctx, sub)
}

// MatchesPart implements pbe.Backend.
func (b *limitBackend) MatchesPart(ctx context.Context, sub *engine.Problem) iter.Seq2[[]uint32, error] {
	b.see(sub)
	return b.HostBackend.MatchesPart(ctx, sub)
}

// fresh is a new engine configured as e, whose parts' limits are checked (limitBackend).
func fresh(e *pbe.Engine) *pbe.Engine {
	return &pbe.Engine{Budget: e.Budget, Partitioner: e.Partitioner, Backend: &limitBackend{}}
}

// watch sets e's limitBackend to check the parts' limits under limit; done fails the test where
// one was not within it.
func (m memReview) watch(e *pbe.Engine, limit, gpu uint64) (done func(how string, st *pbe.Stats)) {
	b := e.Backend.(*limitBackend)
	bad := ""
	var parts [][2]uint64
	b.limit, b.budgetIsMemory, b.bad, b.parts = limit, e.Budget == 0 && gpu == 0, &bad, &parts
	return func(how string, st *pbe.Stats) {
		m.t.Helper()
		if st != nil && b.budgetIsMemory && limit > 0 && st.Parts > 1 {
			// The cpu engine on a part copied gets what the reduction, the partitioning and
			// the copy leave.
			for _, pl := range parts {
				if pl[0] > 1 && st.ReducedBytes+st.PartitionHeldBytes+pl[1]+pl[0] > limit {
					bad = fmt.Sprintf("a part searched with the limit %d beside its copy (over %d bytes), the partitioning's %d and the reduction's %d, --memory %d",
						pl[0], pl[1], st.PartitionHeldBytes, st.ReducedBytes, limit)
					break
				}
			}
		}
		if bad != "" {
			m.t.Fatalf("%s\n%s", bad, m.c.Describe(m.sem, how, "./engine/pbe -run TestMemoryLimitReview"))
		}
	}
}

// list lists the problem on e under limit and fails the test unless the matches are the
// oracle's (one an orbit under unique) or the listing ends in an error wrapping ErrMemory.
func (m memReview) list(e *pbe.Engine, limit, gpu uint64, what string) {
	m.t.Helper()
	prob := &engine.Problem{Data: m.c.G, Pattern: m.c.P, Semantics: m.sem, MemoryLimit: limit, GPUMemoryLimit: gpu, Threads: 1}
	how := fmt.Sprintf("%s, listing: pbe budget %d partitioner %v, --memory %d, --gpu-memory %d", what, e.Budget, e.Partitioner, limit, gpu)
	done := m.watch(e, limit, gpu)
	got, err := engine.CollectMatches(m.ctx, e, prob, 0)
	done(how, nil)
	if err != nil {
		if !errors.Is(err, engine.ErrMemory) {
			m.t.Fatalf("error %v (not ErrMemory)\n%s", err, m.c.Describe(m.sem, how, "./engine/pbe -run TestMemoryLimitReview"))
		}
		*m.refused++
		return
	}
	want := oracle.List(m.c.G, m.c.P, m.sem)
	if m.sem.Unique {
		auts := oracle.Automorphisms(m.c.P)
		for i := range got {
			got[i] = oracle.Canonical(auts, got[i])
		}
	}
	slices.SortFunc(got, slices.Compare)
	slices.SortFunc(want, slices.Compare)
	if !slices.EqualFunc(got, want, slices.Equal) {
		m.t.Fatalf("%d matches listed, the oracle's %d (or other ones)\n%s", len(got), len(want), m.c.Describe(m.sem, how, "./engine/pbe -run TestMemoryLimitReview"))
	}
	*m.counted++
}

// flip is a limit in [lo, hi] at which pred changes from its value at lo (pred(flip-1) != pred(flip)),
// found by bisection, or 0 when pred(lo) == pred(hi). Every limit it tries is checked by pred.
func flip(lo, hi uint64, pred func(uint64) bool) uint64 {
	at := pred(lo)
	if pred(hi) == at {
		return 0
	}
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if pred(mid) == at {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi
}

// memReviewGraph is a random labelled graph of 30-150 vertices, 1-4 vertex labels and 1-3 edge
// labels, 1-4 edges a vertex.
func memReviewGraph(seed uint64, rng *rand.Rand) (*graph.Graph, int, int, string) {
	n := 30 + rng.IntN(121)
	m := n * (1 + rng.IntN(4))
	vl, el := 1+rng.IntN(4), 1+rng.IntN(3)
	return gen.RandomGraphM(seed, n, m, vl, el), vl, el, fmt.Sprintf("g := gen.RandomGraphM(%d, %d, %d, %d, %d)", seed, n, m, vl, el)
}

// memReviewCase draws pattern pi of seed for g (built by recipe, vl vertex labels and el edge
// labels): 2 to most vertices, two components in a fifth of the draws, vertex and edge labels
// wildcards with a probability drawn from wildcards.
func memReviewCase(rng *rand.Rand, seed uint64, pi int, g *graph.Graph, recipe string, vl, el, most int, wildcards []float64) proptest.Case {
	pn := 2 + rng.IntN(most-1)
	opts := gen.PatternOptions{Components: 1 + rng.IntN(5)/4, EdgeProb: 0.5 * rng.Float64(), VertexLabels: vl, EdgeLabels: el,
		Wildcard: wildcards[rng.IntN(len(wildcards))]}
	p := gen.RandomPattern(seed*7+uint64(pi), pn, opts)
	return proptest.Case{Seed: seed, G: g, P: p, Recipe: fmt.Sprintf("%s\np := gen.RandomPattern(%d, %d, %#v)", recipe, seed*7+uint64(pi), pn, opts)}
}

// TestMemoryLimitReview (review rev40) checks pbe under --memory (Problem.MemoryLimit: the
// reduction charged with its fallback to the whole graph, the lighter partitioners, the parts
// made again for their copies, the limit passed to the cpu engine on a part, ErrMemory) against
// the brute-force oracle: random labelled graphs, patterns of 2-5 vertices (two components at
// times, wildcard vertex and edge labels at times), every convention, limits from 1 byte to none
// (log-uniform draws, the thresholds the code computes a byte either side: the graph's and the
// reduction's, and the limits at which the outcome or the reduction changes, found by bisection),
// with --memory the partition budget (every partitioner) and beside a Budget or a GPU memory
// limit. Every count is the oracle's, whole, or an error wrapping engine.ErrMemory; every listing
// the oracle's matches or ErrMemory. Where a count ran, what it charged fits the limit
// (chargedWithin: the partitioner, a part's copy, the inter stage, each beside the reduction and
// the partitioning; madeWithin: the reduction's making on a fresh engine), the cpu engine on a part
// got a limit (never 0) within what those leave (limitBackend), the Stats of a count on the whole
// graph name no reduction, and a reduced graph whose partitioning failed under --memory as the
// partition budget was not refused without the whole graph tried. One engine a graph counts every
// pattern and limit in turn (the kept reduction and the cached partitioning), beside fresh engines.
// Large graphs (2,000-5,000 vertices, counted by the cpu engine) make parts that fit --memory.
func TestMemoryLimitReview(t *testing.T) {
	seeds, _ := proptest.Seeds(t, 120, 16)
	ctx := context.Background()
	var counted, reduced, refused, copied, flips int
	methods := []partition.Method{partition.Auto, partition.Multilevel, partition.Grow, partition.Ranges}
	for _, seed := range seeds {
		rng := rand.New(rand.NewPCG(seed, 40))
		g, vl, el, recipe := memReviewGraph(seed, rng)
		gb, n := partition.GraphBytes(g), uint64(g.NumVertices())
		// One engine a graph and configuration, its caches kept from count to count.
		type config struct {
			e      *pbe.Engine
			gpu    uint64 // a GPU memory limit (the partition budget on the host backend)
			shared *pbe.Engine
		}
		tight := tightBudget(g)
		configs := []config{
			{e: &pbe.Engine{Partitioner: methods[rng.IntN(len(methods))]}},
			{e: &pbe.Engine{Budget: max(gb/3, tight)}},
			{e: &pbe.Engine{}, gpu: max(gb/2, tight)},
		}
		for i := range configs {
			configs[i].shared = fresh(configs[i].e)
		}
		for pi := range 3 {
			c := memReviewCase(rng, seed, pi, g, recipe, vl, el, 5, []float64{0, 0, 0.3})
			p := c.P
			for _, sem := range proptest.AllSemantics {
				want, ok := oracle.CountWithin(g, p, sem, 1_000_000)
				if !ok {
					continue
				}
				m := memReview{t: t, ctx: ctx, c: c, sem: sem, want: want, counted: &counted, reduced: &reduced, refused: &refused, copied: &copied}
				// The thresholds: the graph's, and the reduction's (its bytes from an unlimited count).
				_, st0, err := (&pbe.Engine{}).CountStats(ctx, &engine.Problem{Data: g, Pattern: p, Semantics: sem})
				if err != nil {
					t.Fatal(err)
				}
				marks := []uint64{pbe.MinBudget(g), gb, gb + 8*n, g.InducedPartBytes(0, 0, 0, 0) + 8*n}
				if st0.Reduced {
					labels := labelsOf(p)
					marks = append(marks, st0.ReducedBytes, g.InducedBytes(g.InducedSize(labels)))
					for _, x := range []uint64{pbe.MinBudget(g), gb, gb + 8*n} {
						marks = append(marks, x+st0.ReducedBytes)
					}
				}
				for _, method := range []partition.Method{partition.Multilevel, partition.Grow, partition.Ranges} {
					for _, b := range []uint64{gb / 4, tight} {
						marks = append(marks, partition.WorkingBytes(g, partition.Options{Budget: b, Method: method, NoHalos: true}))
					}
				}
				limits := []uint64{0, 1, 64}
				for _, x := range marks {
					limits = append(limits, x-1, x, x+1)
				}
				for range 6 {
					limits = append(limits, uint64(math.Exp(rng.Float64()*math.Log(float64(4<<20)))))
				}
				for ci, cf := range configs {
					what := fmt.Sprintf("config %d", ci)
					for _, limit := range limits {
						m.check(fresh(cf.e), limit, cf.gpu, what+" fresh")
						m.check(cf.shared, limit, cf.gpu, what+" shared")
					}
					// The limits at which a count is first refused and first reduced.
					top := uint64(8 << 20)
					countsAt := func(l uint64) bool { ok, _ := m.check(cf.shared, l, cf.gpu, what+" shared, bisecting"); return ok }
					reducedAt := func(l uint64) bool {
						_, r := m.check(fresh(cf.e), l, cf.gpu, what+" bisecting")
						return r
					}
					for _, f := range []uint64{flip(1, top, countsAt), flip(1, top, reducedAt)} {
						if f == 0 {
							continue
						}
						flips++
						for _, l := range []uint64{f - 1, f, f + 1} {
							m.check(fresh(cf.e), l, cf.gpu, what+" at a flip")
							if want <= 2000 {
								m.list(fresh(cf.e), l, cf.gpu, what+" at a flip")
								m.list(cf.shared, l, cf.gpu, what+" at a flip, shared")
							}
						}
					}
					if want <= 2000 {
						for _, limit := range limits[len(limits)-3:] {
							m.list(cf.shared, limit, cf.gpu, what+" drawn, shared")
						}
					}
				}
			}
		}
	}
	// Graphs large enough that parts fit --memory where the whole graph does not (their copies
	// charged: the 4-byte id table of the whole graph, the allocator's slack), with up to 20 edge
	// labels (a run about an entry: a copy up to 3 times its model bytes, the parts made again),
	// counted by the cpu engine; --memory the partition budget.
	cpu, err := engine.Lookup("cpu")
	if err != nil {
		t.Fatal(err)
	}
	large := max(2, len(seeds)/8)
	for seed := range uint64(large) {
		rng := rand.New(rand.NewPCG(seed, 400))
		n, vl, el := 2000+rng.IntN(3000), 1+rng.IntN(3), 1+rng.IntN(20)
		g := gen.RandomGraphM(seed, n, n*(2+rng.IntN(4)), vl, el)
		recipe := fmt.Sprintf("g := gen.RandomGraphM(%d, %d, %d, %d, %d)", seed, n, g.NumEdges(), vl, el)
		gb := partition.GraphBytes(g)
		shared := fresh(&pbe.Engine{})
		for pi := range 2 {
			c := memReviewCase(rng, seed, pi, g, recipe+" (large: rand.NewPCG(seed, 400))", vl, el, 4, []float64{0, 0.3, 1})
			p := c.P
			for _, sem := range proptest.AllSemantics {
				want, err := cpu.Count(ctx, &engine.Problem{Data: g, Pattern: p, Semantics: sem})
				if err != nil {
					t.Fatal(err)
				}
				m := memReview{t: t, ctx: ctx, c: c, sem: sem, want: want.Count, counted: &counted, reduced: &reduced, refused: &refused, copied: &copied}
				for range 3 {
					limit := uint64(float64(gb) * math.Exp(math.Log(1.0/16)+rng.Float64()*math.Log(64)))
					m.check(fresh(&pbe.Engine{}), limit, 0, "large, fresh")
					m.check(shared, limit, 0, "large, shared")
				}
				f := flip(gb/64, 4*gb, func(l uint64) bool { ok, _ := m.check(shared, l, 0, "large, shared, bisecting"); return ok })
				if f > 0 {
					flips++
					for _, l := range []uint64{f - 1, f, f + 1, f + f/8} {
						m.check(fresh(&pbe.Engine{}), l, 0, "large, at a flip")
					}
				}
			}
		}
	}
	t.Logf("%d+%d graphs: %d counts or listings equal to the oracle's or the cpu engine's (%d reduced, %d in parts copied under --memory), %d refused for memory, %d flips",
		len(seeds), large, counted, reduced, copied, refused, flips)
	if len(seeds) >= 8 && (reduced == 0 || copied == 0 || refused == 0 || flips == 0) {
		t.Errorf("the cases missed what the test is for")
	}
}
