package plan_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/internal/oracle"
	"github.com/submatch/submatch/internal/testenv"
	"github.com/submatch/submatch/pattern"
	"github.com/submatch/submatch/plan"
)

// exactTree enumerates the plan's search tree by a straightforward recursion over every data
// vertex (no candidate space, no set operations): the nodes at each level and the matches the
// search counts (postponed groups placed by brute force too).
func exactTree(g *graph.Graph, pl *plan.Plan) (levelNodes []float64, matches float64) {
	levelNodes = make([]float64, len(pl.Levels))
	if pl.Empty {
		return levelNodes, 0
	}
	p := pl.Pattern
	n := uint32(g.NumVertices())
	m := make([]uint32, len(pl.Levels))
	adjacent := func(a, b uint32, vl, el pattern.Label) bool {
		l, ok := g.HasEdge(a, b)
		return ok && el.Matches(l) && vl.Matches(g.VertexLabel(b))
	}
	// Postponed vertices in a fixed order, with their groups.
	var post []int
	groupOf := map[int]*plan.LeafGroup{}
	for gi := range pl.Groups {
		for _, u := range pl.Groups[gi].Vertices {
			post = append(post, u)
			groupOf[u] = &pl.Groups[gi]
		}
	}
	pm := map[int]uint32{} // postponed vertex -> data vertex
	var place func(k int) float64
	place = func(k int) float64 {
		if k == len(post) {
			for _, r := range pl.Restrictions {
				a, okA := pm[r.Less]
				b, okB := pm[r.Greater]
				if okA && okB && a >= b {
					return 0
				}
			}
			return 1
		}
		u := post[k]
		lg := groupOf[u]
		total := 0.0
	next:
		for v := uint32(0); v < n; v++ {
			if !p.VertexLabel(u).Matches(g.VertexLabel(v)) {
				continue
			}
			if len(lg.Parents) == 0 && !lg.Candidates.Has(v) {
				continue
			}
			for _, pe := range lg.Parents {
				if !adjacent(m[pe.Level], v, lg.VertexLabel, pe.EdgeLabel) {
					continue next
				}
			}
			for _, w := range m {
				if w == v {
					continue next
				}
			}
			for _, w := range post[:k] {
				if pm[w] == v {
					continue next
				}
			}
			pm[u] = v
			total += place(k + 1)
			delete(pm, u)
		}
		return total
	}
	var rec func(i int)
	rec = func(i int) {
		if i == len(pl.Levels) {
			matches += place(0)
			return
		}
		l := &pl.Levels[i]
		for v := uint32(0); v < n; v++ {
			if !plan.LevelAdmitsBrute(g, pl, l, m, v) {
				continue
			}
			levelNodes[i]++
			m[i] = v
			rec(i + 1)
		}
	}
	rec(0)
	return levelNodes, matches
}

// near reports whether an estimate is within tol (relative) of the exact value, or within 0.5
// of it when the value is small.
func near(est, exact, tol float64) bool {
	return math.Abs(est-exact) <= max(tol*exact, 0.5)
}

type estimateCase struct {
	name string
	g    *graph.Graph
	p    *pattern.Pattern
	opts plan.Options
	sem  engine.Semantics
}

func estimateCases() []estimateCase {
	var cases []estimateCase
	variants := []struct {
		opts plan.Options
		sem  engine.Semantics
	}{
		{plan.Options{MultiplyAutomorphisms: true}, engine.Semantics{}},
		{plan.Options{Unique: true}, engine.Semantics{Unique: true}},
		{plan.Options{Induced: true}, engine.Semantics{Induced: true}},
		{plan.Options{Enumerate: true}, engine.Semantics{}},
		{plan.Options{Unique: true, SpaceLimit: -1}, engine.Semantics{Unique: true}},
		{plan.Options{SpaceLimit: -1}, engine.Semantics{}},
	}
	seeds := uint64(24)
	if !testenv.Long() {
		seeds = 8
	}
	for seed := uint64(1); seed <= seeds; seed++ {
		vl := 1 + int(seed%3)
		g := gen.RandomGraphM(seed, 40, 160+int(seed%4)*40, vl, 1+int(seed%2))
		p := gen.RandomPattern(seed*7, 3+int(seed%4), gen.PatternOptions{
			EdgeProb: 0.3, VertexLabels: vl, EdgeLabels: 1 + int(seed%2), Wildcard: 0.2,
			Components: 1 + int(seed%5/4)})
		v := variants[seed%uint64(len(variants))]
		cases = append(cases, estimateCase{fmt.Sprintf("seed%d/%s", seed, p), g, p, v.opts, v.sem})
	}
	// Shapes with several postponed groups in one class, isolated vertices, symmetric patterns.
	dense := gen.RandomGraphM(99, 30, 200, 1, 1)
	for _, s := range []string{
		"(a)-(b)-(c)-(a), (a)-(d), (b)-(e)",      // two leaf groups that may collide
		"(a)-(b), (a)-(c), (a)-(d), (b)-(e)",     // star with a tail
		"(a)-(b)-(c)-(d)-(a)",                    // 4-cycle
		"(a)-(b)-(c)-(a), (x), (y)",              // isolated vertices
		"(a)-(b)-(c)-(d)-(a), (a)-(c), (b)-(d)",  // 4-clique
		"(a)-(b)-(c), (a)-(c), (c)-(d), (c)-(e)", // triangle with two leaves on one vertex
	} {
		p, err := pattern.Parse(s)
		if err != nil {
			panic(err)
		}
		cases = append(cases,
			estimateCase{s + "/embeddings", dense, p, plan.Options{MultiplyAutomorphisms: true}, engine.Semantics{}},
			estimateCase{s + "/unique", dense, p, plan.Options{Unique: true}, engine.Semantics{Unique: true}},
			estimateCase{s + "/unique-nospace", dense, p, plan.Options{Unique: true, SpaceLimit: -1}, engine.Semantics{Unique: true}})
	}
	return cases
}

// TestEstimateUnbiased compares the mean of many probes with the exact tree size and match count
// on small random problems: the estimator is unbiased, so the mean of 20,000 probes must be
// within a few per cent of the truth. Deterministic: the probes are seeded.
func TestEstimateUnbiased(t *testing.T) {
	ctx := context.Background()
	const probes = 20000
	var worst float64
	for _, c := range estimateCases() {
		pl := plan.Build(c.g, c.p, c.opts)
		levels, matches := exactTree(c.g, pl)
		// The brute-force tree itself counts what the engines count.
		if want := oracle.Count(c.g, c.p, c.sem); uint64(matches)*pl.Multiplier != want {
			t.Fatalf("%s: exact tree counts %v x %d, oracle %d", c.name, matches, pl.Multiplier, want)
		}
		// One stream, and blocks of probes on three goroutines (EstimateOptions.Threads).
		for _, threads := range []int{1, 3} {
			est, err := pl.Estimate(ctx, c.g, plan.EstimateOptions{Seed: 1, Probes: probes, Threads: threads})
			if err != nil || est.Probes != probes {
				t.Fatalf("%s: %d probes, error %v", c.name, est.Probes, err)
			}
			name := fmt.Sprintf("%s (%d thread(s))", c.name, threads)
			total := 0.0
			for i, exact := range levels {
				total += exact
				if !near(est.LevelNodes[i], exact, 0.08) {
					t.Errorf("%s: level %d: estimated %.1f nodes, exact %v", name, i, est.LevelNodes[i], exact)
				}
			}
			if !near(est.Nodes, total, 0.05) || math.Abs(est.Nodes-total) > 5*est.NodesStdErr+0.5 {
				t.Errorf("%s: estimated %.1f ± %.1f nodes, exact %v", name, est.Nodes, est.NodesStdErr, total)
			}
			if !near(est.Matches, matches, 0.08) {
				t.Errorf("%s: estimated %.1f matches, exact %v", name, est.Matches, matches)
			}
			if b := pl.NodeBound(); b < total {
				t.Errorf("%s: NodeBound %v below the exact %v nodes", name, b, total)
			}
			if total > 0 {
				worst = max(worst, math.Abs(est.Nodes-total)/total)
			}
			t.Logf("%-72s nodes %8.0f est %10.1f ± %6.1f  matches %8.0f est %10.1f", name, total, est.Nodes, est.NodesStdErr, matches, est.Matches)
		}
	}
	t.Logf("worst relative error of Nodes: %.3f", worst)
}

// TestEstimateSingleProbeOnPath: when every level has at most one candidate per node the single
// path is the whole tree, so one probe is exact.
func TestEstimateSingleProbeOnPath(t *testing.T) {
	b := graph.NewBuilder(graph.BuilderOptions{})
	for v := 0; v < 4; v++ {
		if err := b.SetVertexLabel(int64(v), uint32(v)); err != nil {
			t.Fatal(err)
		}
	}
	for v := 0; v < 3; v++ {
		if err := b.AddEdge(int64(v), int64(v+1), 0); err != nil {
			t.Fatal(err)
		}
	}
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	p, err := pattern.Parse("(a:0)-(b:1)-(c:2)-(d:3)")
	if err != nil {
		t.Fatal(err)
	}
	pl := plan.Build(g, p, plan.Options{Enumerate: true})
	est, err := pl.Estimate(context.Background(), g, plan.EstimateOptions{Probes: 1})
	if err != nil {
		t.Fatal(err)
	}
	if est.Nodes != 4 || est.Matches != 1 {
		t.Fatalf("estimate %+v, want 4 nodes and 1 match", est)
	}
}

func TestEstimateDeterministicAndBounded(t *testing.T) {
	g := gen.RandomGraphM(5, 200, 2000, 2, 1)
	p, err := pattern.Parse("(a)-(b)-(c)-(d)-(a), (a)-(c)")
	if err != nil {
		t.Fatal(err)
	}
	pl := plan.Build(g, p, plan.Options{MultiplyAutomorphisms: true})
	ctx := context.Background()
	a, _ := pl.Estimate(ctx, g, plan.EstimateOptions{Seed: 7, Probes: 500})
	b, _ := pl.Estimate(ctx, g, plan.EstimateOptions{Seed: 7, Probes: 500})
	if a.Nodes != b.Nodes || a.Matches != b.Matches || a.Scanned != b.Scanned {
		t.Fatalf("same seed, different estimates: %+v and %+v", a, b)
	}
	c, _ := pl.Estimate(ctx, g, plan.EstimateOptions{Seed: 8, Probes: 500})
	if c.Nodes == a.Nodes {
		t.Errorf("different seeds gave identical estimates %v", a.Nodes)
	}
	// The work limit stops early (after the minimum number of probes).
	lim, _ := pl.Estimate(ctx, g, plan.EstimateOptions{Seed: 7, Probes: 500, MinProbes: 4, WorkLimit: 1})
	if lim.Probes != 4 {
		t.Errorf("work limit 1: %d probes, want the minimum 4", lim.Probes)
	}
	// So does the node share: 1e-9 of the nodes is less than one probe's steps.
	share, _ := pl.Estimate(ctx, g, plan.EstimateOptions{Seed: 7, Probes: 500, MinProbes: 8, NodeShare: 1e-9})
	if share.Probes != 8 {
		t.Errorf("node share 1e-9: %d probes, want the minimum 8", share.Probes)
	}
	// A share of 1% stops once the probes have taken about 1% of the search's ~1.2e4 nodes in
	// steps: a few dozen probes of about 4 levels.
	if some, _ := pl.Estimate(ctx, g, plan.EstimateOptions{Seed: 7, Probes: 500, NodeShare: 0.01}); some.Probes < 10 || some.Probes > 100 {
		t.Errorf("node share 0.01: %d probes for %v nodes", some.Probes, some.Nodes)
	}
	// A cancelled context stops before the first probe.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := pl.Estimate(cctx, g, plan.EstimateOptions{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: error %v", err)
	}
	// Blocks on several goroutines: the same estimate whatever their number, not that of one
	// stream, and not with the deterministic stops.
	two, _ := pl.Estimate(ctx, g, plan.EstimateOptions{Seed: 7, Probes: 500, Threads: 2})
	five, _ := pl.Estimate(ctx, g, plan.EstimateOptions{Seed: 7, Probes: 500, Threads: 5})
	if two.Probes != 500 || two.Nodes != five.Nodes || two.Cost != five.Cost || two.Scanned != five.Scanned ||
		two.NodesStdErr != five.NodesStdErr || two.HeaviestSubtree != five.HeaviestSubtree {
		t.Errorf("2 and 5 threads: %+v and %+v", two, five)
	}
	if two.Nodes == a.Nodes {
		t.Errorf("threads gave the one-stream estimate %v", a.Nodes)
	}
	// CostAbove stops an estimate sure to end above it, one stream or blocks, and only such one.
	for _, run := range []struct {
		threads int
		full    plan.Estimate
	}{{1, a}, {2, two}} {
		threads, full := run.threads, run.full
		cut, _ := pl.Estimate(ctx, g, plan.EstimateOptions{Seed: 7, Probes: 500, Threads: threads, CostAbove: full.Cost / 2})
		if !cut.Above || cut.Probes >= 500 {
			t.Errorf("%d thread(s), cost above %v (half the estimate): above %v after %d probes", threads, full.Cost/2, cut.Above, cut.Probes)
		}
		kept, _ := pl.Estimate(ctx, g, plan.EstimateOptions{Seed: 7, Probes: 500, Threads: threads, CostAbove: full.Cost * 1.001})
		if kept.Above || kept.Probes != 500 || kept.Cost != full.Cost {
			t.Errorf("%d thread(s), cost above %v: above %v after %d probes, cost %v (want %v)", threads, full.Cost*1.001, kept.Above, kept.Probes, kept.Cost, full.Cost)
		}
	}
	if _, err := pl.Estimate(ctx, g, plan.EstimateOptions{Probes: 500, Threads: 2, NodeShare: 0.01}); err == nil {
		t.Error("Threads with NodeShare: no error")
	}
	// WorkLimit stops the blocks at the first, in block order, that brings the entries scanned
	// to it, whatever the number of threads: the blocks before it scanned less.
	limit := two.Scanned / 3
	lim2, err2 := pl.Estimate(ctx, g, plan.EstimateOptions{Seed: 7, Probes: 500, Threads: 2, WorkLimit: limit})
	lim5, err5 := pl.Estimate(ctx, g, plan.EstimateOptions{Seed: 7, Probes: 500, Threads: 5, WorkLimit: limit})
	if err2 != nil || err5 != nil || lim2.Probes >= 500 || lim2.Probes%128 != 0 || lim2.Scanned < limit ||
		lim2.Probes != lim5.Probes || lim2.Cost != lim5.Cost || lim2.Scanned != lim5.Scanned || lim2.OverBudget {
		t.Errorf("work limit %d, 2 and 5 threads: %+v (%v) and %+v (%v)", limit, lim2, err2, lim5, err5)
	}
	if first, _ := pl.Estimate(ctx, g, plan.EstimateOptions{Seed: 7, Probes: lim2.Probes - 128, Threads: 2}); first.Scanned >= limit {
		t.Errorf("work limit %d: the blocks before the last scanned %d", limit, first.Scanned)
	}
	// A budget already spent still runs the blocks that MinProbes asks for, and says so.
	spent, _ := pl.Estimate(ctx, g, plan.EstimateOptions{Seed: 7, Probes: 5000, MinProbes: 200, Threads: 3, Budget: time.Nanosecond})
	if spent.Probes != 256 || !spent.OverBudget {
		t.Errorf("spent budget: %d probes (over budget %v), want the 256 of the first two blocks", spent.Probes, spent.OverBudget)
	}
	if one, _ := pl.Estimate(ctx, g, plan.EstimateOptions{Seed: 7, Probes: 5000, MinProbes: 10, Budget: time.Nanosecond}); one.Probes != 10 || !one.OverBudget {
		t.Errorf("spent budget, one stream: %d probes (over budget %v), want 10", one.Probes, one.OverBudget)
	}
	if two.OverBudget || a.OverBudget {
		t.Error("no budget: over budget")
	}
	if _, err := pl.Estimate(cctx, g, plan.EstimateOptions{Threads: 4}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled, 4 threads: error %v", err)
	}
	// An empty plan estimates nothing.
	q, _ := pattern.Parse("(a:9)-(b)")
	if e, err := plan.Build(g, q, plan.Options{}).Estimate(ctx, g, plan.EstimateOptions{}); err != nil || e.Nodes != 0 || e.Matches != 0 {
		t.Errorf("empty plan: %+v, %v", e, err)
	}
}

// TestEstimateGroupStepCost checks the postponed groups' costs on K4, where every list has three
// entries: a vertex counted on a triangle costs intersectCost(3, 3, 3) = 3 + 2x6 per assignment
// in full and intersectCost(2, 3) = 2 + 2 log2(5) with its first two parents' intersection
// kept; groups of one parent cost their list in both.
func TestEstimateGroupStepCost(t *testing.T) {
	g := completeGraph(t, 4)
	for _, c := range []struct {
		src   string
		ratio float64
	}{
		{"(a)-(b)-(c)-(a), (d)-(a), (d)-(b), (d)-(c)", (2 + 2*math.Log2(5)) / 15},
		{"(a)-(b), (a)-(c)", 1},
	} {
		p, err := pattern.Parse(c.src)
		if err != nil {
			t.Fatal(err)
		}
		pl := plan.Build(g, p, plan.Options{})
		if len(pl.Groups) == 0 {
			t.Fatalf("%s: no postponed group", c.src)
		}
		est, err := pl.Estimate(context.Background(), g, plan.EstimateOptions{Seed: 1, Probes: 64})
		if err != nil {
			t.Fatal(err)
		}
		if est.GroupCost <= 0 || est.GroupCost > est.Cost || math.Abs(est.GroupStepCost/est.GroupCost-c.ratio) > 1e-9 {
			t.Errorf("%s: Cost %g, GroupCost %g, GroupStepCost %g; want a step/full ratio of %g",
				c.src, est.Cost, est.GroupCost, est.GroupStepCost, c.ratio)
		}
	}
}

// TestEstimateRowDegree checks the pricing of hub rows (EstimateOptions.RowDegree): it changes
// the costs only, never the tree; a degree above every vertex's changes nothing; on K4 with the
// fourth vertex postponed, the group's step (the kept common neighbours of two parents, 2
// vertices, against the third parent's list of 3) costs 2 + 2 tests with rows instead of
// 2 + 2 log2(5) merged, and the levels cost less.
func TestEstimateRowDegree(t *testing.T) {
	g := completeGraph(t, 4)
	p, err := pattern.Parse("(a)-(b)-(c)-(a), (d)-(a), (d)-(b), (d)-(c)")
	if err != nil {
		t.Fatal(err)
	}
	pl := plan.Build(g, p, plan.Options{})
	estimate := func(rowDegree int) plan.Estimate {
		est, err := pl.Estimate(context.Background(), g, plan.EstimateOptions{Seed: 1, Probes: 64, RowDegree: rowDegree})
		if err != nil {
			t.Fatal(err)
		}
		est.Elapsed = 0
		return est
	}
	lists, none, rows := estimate(0), estimate(4), estimate(3)
	if !reflect.DeepEqual(lists, none) {
		t.Errorf("RowDegree above every degree changed the estimate: %+v, want %+v", none, lists)
	}
	if !slices.Equal(rows.LevelNodes, lists.LevelNodes) || rows.Matches != lists.Matches || rows.GroupCost != lists.GroupCost {
		t.Errorf("rows changed the tree or the full groups' cost: %+v against %+v", rows, lists)
	}
	if got, want := rows.GroupStepCost/rows.GroupCost, 4.0/15; math.Abs(got-want) > 1e-9 {
		t.Errorf("GroupStepCost/GroupCost with rows = %g, want %g", got, want)
	}
	if rows.GroupKeptCost >= lists.GroupKeptCost || rows.Cost-rows.GroupCost >= lists.Cost-lists.GroupCost {
		t.Errorf("rows cost no less: GroupKeptCost %g (lists %g), level cost %g (lists %g)", rows.GroupKeptCost,
			lists.GroupKeptCost, rows.Cost-rows.GroupCost, lists.Cost-lists.GroupCost)
	}
}

// completeGraph returns K_n, unlabelled.
func completeGraph(t *testing.T, n int) *graph.Graph {
	t.Helper()
	b := graph.NewBuilder(graph.BuilderOptions{})
	for u := range n {
		for v := u + 1; v < n; v++ {
			if err := b.AddEdge(int64(u), int64(v), 0); err != nil {
				t.Fatal(err)
			}
		}
	}
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return g
}
