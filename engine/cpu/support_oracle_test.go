package cpu_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/engine/cpu"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/internal/oracle"
	"github.com/submatch/submatch/internal/proptest"
	"github.com/submatch/submatch/internal/sharedtest"
	"github.com/submatch/submatch/pattern"
	"github.com/submatch/submatch/plan"
)

// supportPatterns are shapes whose postponed vertices edge supports may count (support.go):
// STMatch's q3 (two vertices on two edges of a triangle), q10 (one parent each), q13, a
// labelled prefix, a group of two on one edge, a vertex on an edge with a pendant vertex; and
// shapes near them where they do not apply (parents not adjacent, a labelled postponed vertex
// or edge, a third postponed vertex, a group on three parents), counted by the same test so that
// a wrong eligibility check shows.
var supportPatterns = []string{
	"(a)-(b), (a)-(c), (a)-(e), (b)-(c), (b)-(d), (c)-(d), (c)-(e)",
	"(a)-(b), (a)-(c), (a)-(d), (b)-(c), (b)-(d), (c)-(f), (d)-(e)",
	"(a)-(b), (a)-(c), (a)-(d), (a)-(e), (a)-(f), (b)-(c), (b)-(d), (c)-(f), (d)-(e)",
	"(a:1)-(b), (a)-(c), (a)-(e), (b)-(c), (b)-(d), (c)-(d), (c)-(e)",
	"(a)-(b), (a)-(c), (b)-(c), (a)-(d), (b)-(d), (a)-(e), (b)-(e)",
	"(a)-(b), (b)-(c), (c)-(a), (c)-(d), (a)-(e), (b)-(e)",
	"(a)-(b), (a)-(c), (a)-(e), (b)-(c), (b)-(d), (c)-(d), (c)-(e), (d)-(f)",
	"(a)-(b), (a)-(c), (a)-(e), (b)-(c), (b)-(d), (c)-(d), (c)-(e:1)",
	"(a)-(b), (a)-(c), (a)-(e), (b)-(c), (b)-(d), (c)-[:1]-(d), (c)-(e)",
	"(a)-(b), (a)-(c), (a)-(d), (b)-(c), (b)-(d), (c)-(e), (d)-(e)",
	"(a)-(b), (a)-(c), (a)-(d), (a)-(e), (b)-(c), (b)-(d), (b)-(e), (c)-(d), (c)-(e)",
}

// TestOracleSupports checks supportPatterns against the oracle on dense random graphs with one
// to three vertex labels and one or two edge labels, under every convention and every setting,
// with edge supports taken wherever they apply, kept in rows or looked up by bisection, the last
// level's adjacency tests answered from a marked row of neighbours always or never (rows only),
// and that the sweep took them.
func TestOracleSupports(t *testing.T) {
	seeds, repeat := proptest.Seeds(t, 100, 14)
	for _, c := range []struct {
		rows  bool
		marks int
	}{{true, 1 << 30}, {true, 0}, {false, 0}} {
		rows := c.rows
		restore := cpu.Supports(1, rows)
		restoreMarks := cpu.SupportMarks(c.marks)
		before := cpu.SupportsUsed()
		var ost proptest.OracleStats
		cases := denseCases(t, seeds, supportPatterns, proptest.AllSemantics, func(seed uint64) (int, float64, int, int) {
			return 8 + int(seed%7), []float64{0.35, 0.5, 0.7, 0.9}[seed%4], 1 + int(seed/4%3), 1 + int(seed/12%2)
		}, &ost)
		checkOracle(t, cases, len(seeds), repeat, &ost, "TestOracleSupports")
		if cpu.SupportsUsed() == before {
			t.Errorf("rows %v: no count took edge supports", rows)
		}
		restoreMarks()
		restore()
	}
}

// TestSupportsSkewFails checks that the oracle comparison would catch a wrong collision term:
// with the collisions off by one, some count of q3's shape differs from the oracle's.
func TestSupportsSkewFails(t *testing.T) {
	defer cpu.Supports(1, true)()
	defer cpu.SupportsSkew(1)()
	p, err := pattern.Parse(supportPatterns[0])
	if err != nil {
		t.Fatal(err)
	}
	for seed := uint64(1); seed <= 20; seed++ {
		g := gen.RandomGraph(seed, 10, 0.6, 1, 1)
		want, ok := oracle.CountWithin(g, p, engine.Semantics{}, proptest.DenseOracleBudget)
		if !ok || want == 0 {
			continue
		}
		res, err := cpu.Engine{}.Count(context.Background(), &engine.Problem{Data: g, Pattern: p, Threads: 1})
		if err != nil || res.Count != want {
			return // caught
		}
	}
	t.Error("counts with a skewed collision term all equal the oracle's")
}

// TestSupportsWikiVote counts STMatch's q3 on wiki-Vote (when ../shared/testdata has it) with
// edge supports and without, as embeddings and as unique matches: the counts must agree, and
// the embeddings equal the count issue 17 gives (8,211,817,230). A count with supports cut
// after 20 ms must return within a second, flagged partial, at most the full count.
func TestSupportsWikiVote(t *testing.T) {
	if testing.Short() {
		t.Skip("wiki-Vote counts take seconds")
	}
	g := sharedtest.WikiVote(t)
	p, err := pattern.Parse(supportPatterns[0])
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, sem := range []engine.Semantics{{}, {Unique: true}} {
		var counts [2]uint64
		for k, mode := range []int{1, -1} {
			restore := cpu.Supports(mode, true)
			before := cpu.SupportsUsed()
			res, err := cpu.Engine{}.Count(ctx, &engine.Problem{Data: g, Pattern: p, Semantics: sem, Threads: 2})
			used := cpu.SupportsUsed() > before
			restore()
			if err != nil || res.Partial {
				t.Fatalf("%+v, supports %d: %v (partial %v)", sem, mode, err, res.Partial)
			}
			if used != (mode == 1) {
				t.Errorf("%+v, supports %d: took them %v", sem, mode, used)
			}
			counts[k] = res.Count
		}
		if counts[0] != counts[1] {
			t.Errorf("%+v: %d with edge supports, %d without", sem, counts[0], counts[1])
		}
		if !sem.Unique && counts[0] != 8_211_817_230 {
			t.Errorf("q3 embeddings = %d, issue 17 gives 8211817230", counts[0])
		}
	}
	defer cpu.Supports(1, true)()
	cctx, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	start := time.Now()
	res, err := cpu.Engine{}.Count(cctx, &engine.Problem{Data: g, Pattern: p, Threads: 2})
	if took := time.Since(start); took > time.Second {
		t.Errorf("cut after 20 ms, the count returned after %v", took)
	}
	if err == nil || !res.Partial || res.Count > 8_211_817_230 {
		t.Errorf("cut count: %d, partial %v, err %v", res.Count, res.Partial, err)
	}
}

// TestPredictSupports: where a count takes edge supports (STMatch's q10), Predict prices the last
// level as counted nodes and drops the groups' intersections (and says so), which puts it below
// the prediction with supports off; where supports are off the note does not name them.
func TestPredictSupports(t *testing.T) {
	p, err := pattern.Parse(supportPatterns[1])
	if err != nil {
		t.Fatal(err)
	}
	g := gen.RandomGraph(5, 300, 0.3, 1, 1)
	predict := func(mode int) engine.Prediction {
		defer cpu.Supports(mode, true)()
		prob := &engine.Problem{Data: g, Pattern: p, Threads: 1}
		opts, err := cpu.PlanOptions(prob, false)
		if err != nil {
			t.Fatal(err)
		}
		pl, err := plan.BuildContext(context.Background(), g, p, opts)
		if err != nil {
			t.Fatal(err)
		}
		est, err := pl.Estimate(context.Background(), g, plan.EstimateOptions{Seed: 1, Probes: 2000})
		if err != nil {
			t.Fatal(err)
		}
		pr, err := cpu.Engine{}.Predict(context.Background(), &engine.Workload{Problem: prob, Plan: pl, Estimate: &est, Threads: 1})
		if err != nil {
			t.Fatal(err)
		}
		return pr
	}
	with, without := predict(1), predict(-1)
	if !strings.Contains(with.Note, "edge supports") || strings.Contains(without.Note, "edge supports") {
		t.Fatalf("notes %q (supports on) and %q (off)", with.Note, without.Note)
	}
	if !(with.Seconds < without.Seconds) {
		t.Errorf("predicted %g s with supports, %g s without", with.Seconds, without.Seconds)
	}
}

// TestSupportPassCost compares the sampled estimate of the supports' pass with the exact sum
// (every vertex's degree, plus, per edge, the degree of its endpoint of lower (degree, id)): equal
// on a graph under the sample size, within 10% on a larger random one.
func TestSupportPassCost(t *testing.T) {
	exact := func(g *graph.Graph) float64 {
		var s float64
		for x := range g.NumVertices() {
			dx := g.Degree(uint32(x))
			s += float64(dx)
			for _, y := range g.Neighbors(uint32(x)) {
				if dy := g.Degree(y); dy < dx || (dy == dx && int(y) < x) {
					s += float64(dy)
				}
			}
		}
		return s
	}
	small := gen.RandomGraph(2, 500, 0.05, 1, 1)
	if got, want := cpu.SupportPassCost(small), exact(small); got != want {
		t.Errorf("500 vertices: %g, want %g", got, want)
	}
	if testing.Short() {
		return
	}
	large := gen.RandomGraphM(3, 1<<17+5, 1<<20, 1, 1)
	got, want := cpu.SupportPassCost(large), exact(large)
	if got < 0.9*want || got > 1.1*want {
		t.Errorf("%d vertices: %g, want %g within 10%%", large.NumVertices(), got, want)
	}
}

// supportPattern draws a pattern near the shapes edge supports count (supportShape): a core of
// three to five vertices, most pairs adjacent, and two postponed vertices (now and then three),
// each a pendant on a core vertex or on the two ends of a core edge (on two non-adjacent ones
// now and then), most unlabelled on unlabelled edges; vertex labels (up to vl) and edge labels
// (up to el) here and there in the core.
func supportPattern(r *rand.Rand, vl, el int) string {
	label := func(p float64) string {
		if r.Float64() < p {
			return fmt.Sprintf(":%d", r.IntN(vl))
		}
		return ""
	}
	edge := func(a, b string, p float64) string { return randomEdge(r, a, b, p, el) }
	k := 3 + r.IntN(3)
	core := make([]string, k)
	for i := range core {
		core[i] = fmt.Sprintf("(c%d%s)", i, label(0.15))
	}
	var edges []string
	var pairs [][2]int
	for i := range k {
		for j := i + 1; j < k; j++ {
			if j == i+1 || r.Float64() < 0.6 {
				edges = append(edges, edge(core[i], core[j], 0.1))
				pairs = append(pairs, [2]int{i, j})
			}
		}
	}
	for x := range 2 + r.IntN(4)/3 {
		v := fmt.Sprintf("(x%d%s)", x, label(0.1))
		if r.IntN(2) == 0 {
			edges = append(edges, edge(core[r.IntN(k)], v, 0.1))
			continue
		}
		e := pairs[r.IntN(len(pairs))]
		if r.IntN(8) == 0 {
			e = [2]int{r.IntN(k), r.IntN(k)}
			if e[0] == e[1] {
				e[1] = (e[0] + 1) % k
			}
		}
		edges = append(edges, edge(core[e[0]], v, 0.1), edge(core[e[1]], v, 0.1))
	}
	return strings.Join(edges, ", ")
}

// TestOracleSupportsRandom checks supportPattern's random patterns against the oracle under
// every convention and setting, with edge supports wherever they apply, kept in rows or not,
// and the last level's neighbour marks always or never (16 seeds, 300 with SUBMATCH_LONG), and
// that some of the counts mark a fixed level's neighbours.
func TestOracleSupportsRandom(t *testing.T) {
	seeds, repeat := proptest.Seeds(t, 300, 16)
	for _, c := range []struct {
		rows  bool
		marks int
	}{{true, 1 << 30}, {true, 0}, {false, 0}} {
		restore := cpu.Supports(1, c.rows)
		restoreMarks := cpu.SupportMarks(c.marks)
		var ost proptest.OracleStats
		fixed := 0
		checkOracle(t, randomCases(t, seeds, supportPattern, &ost, cpu.SupportFixed, &fixed), len(seeds), repeat, &ost, "TestOracleSupportsRandom")
		t.Logf("rows %v, marks %d: %d (problem, convention) pairs had a fixed level", c.rows, c.marks, fixed)
		if len(seeds) >= 16 && fixed == 0 {
			t.Errorf("rows %v, marks %d: no count had a fixed level to mark", c.rows, c.marks)
		}
		restoreMarks()
		restore()
	}
}
