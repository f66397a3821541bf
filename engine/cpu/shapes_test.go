package cpu

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/internal/oracle"
	"github.com/submatch/submatch/internal/proptest"
	"github.com/submatch/submatch/pattern"
	"github.com/submatch/submatch/plan"
)

// The package's tests exercise the general search's paths (edge supports, pair sums, last-level
// sums, leaves) on small patterns that are shapes: they run with the shape counters off, and the
// shape tests here turn them on (withShapes).
func init() { countShapesApart = false }

// withShapes turns the shape counters on for t.
func withShapes(t *testing.T) {
	countShapesApart = true
	t.Cleanup(func() { countShapesApart = false })
}

// shapeEdges are the shapes' patterns as edge lists, with whether an induced count takes the
// counter (inducedFour's identities, the induced diamond).
var shapeEdges = []struct {
	name    string
	edges   [][2]string
	induced bool
}{
	{"diamond", [][2]string{{"a", "b"}, {"b", "c"}, {"c", "d"}, {"d", "a"}, {"a", "c"}}, true},
	{"tailed-triangle", [][2]string{{"a", "b"}, {"b", "c"}, {"c", "a"}, {"a", "d"}}, false},
	{"4-path", [][2]string{{"a", "b"}, {"b", "c"}, {"c", "d"}}, true},
	{"4-cycle", [][2]string{{"a", "b"}, {"b", "c"}, {"c", "d"}, {"d", "a"}}, true},
	{"house", [][2]string{{"a", "b"}, {"b", "c"}, {"c", "d"}, {"d", "a"}, {"a", "e"}, {"e", "b"}}, false},
	{"tailed-4-cycle", [][2]string{{"a", "b"}, {"b", "c"}, {"c", "d"}, {"d", "a"}, {"b", "e"}}, false},
}

// shapePattern is edges (vertices named by letters from "a") with every vertex labelled vl and
// every edge el ("": a wildcard), built by proptest.EdgesPattern.
func shapePattern(t *testing.T, edges [][2]string, vl, el string) *pattern.Pattern {
	t.Helper()
	label := func(s string) int {
		if s == "" {
			return -1
		}
		n, err := strconv.Atoi(s)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	numbered := make([][2]int, len(edges))
	for i, e := range edges {
		numbered[i] = [2]int{int(e[0][0] - 'a'), int(e[1][0] - 'a')}
	}
	return proptest.EdgesPattern(t, numbered, label(vl), label(el))
}

// countSearch counts with the general search (no shape or clique counter).
func countSearch(t *testing.T, prob *engine.Problem) uint64 {
	t.Helper()
	saved := countShapesApart
	countShapesApart = false
	defer func() { countShapesApart = saved }()
	return countGeneral(t, prob)
}

// TestShapeCounter checks the CPU engine's counts of the shapes (diamonds, tailed triangles,
// 4-paths, 4-cycles, houses, tailed 4-cycles) in every convention against the general search
// and the brute-force oracle, through Count and CountPlan (--engine auto's way in), on 1 and 3
// threads: unlabelled, with one vertex and edge label of several, and wildcards on labelled
// graphs (plan.Labels.Graph). It fails unless the counter takes every shape it should, and
// only those (induced: diamonds, 4-paths and 4-cycles where the edges' labels are one or
// forgotten), through both ways in.
func TestShapeCounter(t *testing.T) {
	withShapes(t)
	ctx := context.Background()
	type graphCase struct {
		name      string
		g         *graph.Graph
		vls, els  []string // pattern labels ("": a wildcard)
		edgeLabel bool     // the graph has edge labels
	}
	cases := []graphCase{
		{"unlabelled n=24", gen.RandomGraph(1, 24, 0.35, 1, 1), []string{"", "0"}, []string{"", "0"}, false},
		{"2 vertex labels", gen.RandomGraph(2, 26, 0.45, 2, 1), []string{"1", ""}, []string{""}, false},
		{"2 vertex and 2 edge labels", gen.RandomGraph(3, 24, 0.5, 2, 2), []string{"0", ""}, []string{"1", ""}, true},
		{"4 vertex and 3 edge labels", gen.RandomGraph(4, 22, 0.5, 4, 3), []string{""}, []string{""}, true},
	}
	if testing.Short() {
		cases = []graphCase{cases[0], cases[2]}
	}
	for _, gc := range cases {
		for _, s := range shapeEdges {
			for _, vl := range gc.vls {
				for _, el := range gc.els {
					p := shapePattern(t, s.edges, vl, el)
					for _, sem := range proptest.AllSemantics {
						what := fmt.Sprintf("%s: %s (%q, %q) %v", gc.name, s.name, vl, el, sem)
						for _, threads := range []int{1, 3} {
							prob := &engine.Problem{Data: gc.g, Pattern: p, Semantics: sem, Threads: threads}
							sh, ok := shapeFor(prob)
							if wantShape := !sem.Induced || s.induced && (!gc.edgeLabel || el == ""); ok != wantShape || ok && sh.Name() != s.name {
								t.Fatalf("%s: a shape %v (%q), want %v", what, ok, sh.Name(), wantShape)
							}
							want := countSearch(t, prob)
							if threads == 1 {
								if o := oracle.Count(gc.g, p, sem); o != want {
									t.Fatalf("%s: general search %d, oracle %d", what, want, o)
								}
							}
							used := shapeCountsUsed.Load()
							got, err := Engine{}.Count(ctx, prob)
							if err != nil || got.Count != want || got.Partial {
								t.Fatalf("%s, %d threads: Count %+v (%v), general search %d", what, threads, got, err, want)
							}
							if took := shapeCountsUsed.Load() - used; took != 0 != ok {
								t.Fatalf("%s: Count took the shape counter %d times", what, took)
							}
							opts, err := PlanOptions(prob, false)
							if err != nil {
								t.Fatal(err)
							}
							pl, err := plan.BuildContext(ctx, gc.g, p, opts)
							if err != nil {
								t.Fatal(err)
							}
							used = shapeCountsUsed.Load()
							if got, err := (Engine{}).CountPlan(ctx, prob, pl, 0); err != nil || got.Count != want {
								t.Fatalf("%s, %d threads: CountPlan %+v (%v), general search %d", what, threads, got, err, want)
							}
							if took := shapeCountsUsed.Load() - used; took != 0 != ok {
								t.Fatalf("%s: CountPlan took the shape counter %d times", what, took)
							}
						}
					}
				}
			}
		}
	}
}

// TestShapeMemory: under --memory a shape's count takes fewer workers or the search (whichever
// fits), and fails with ErrMemory only where neither fits; the counts stay exact.
func TestShapeMemory(t *testing.T) {
	withShapes(t)
	ctx := context.Background()
	g := gen.RandomGraph(6, 200, 0.1, 1, 1)
	n := uint64(g.NumVertices())
	for _, s := range shapeEdges {
		for _, sem := range []engine.Semantics{{}, {Induced: true}} {
			p := shapePattern(t, s.edges, "", "")
			prob := &engine.Problem{Data: g, Pattern: p, Semantics: sem, Threads: 2}
			sh, ok := shapeFor(prob)
			if !ok {
				continue
			}
			want := countSearch(t, prob)
			for _, limit := range []uint64{sh.Bytes, sh.Bytes - 1, 16 * n, 64} {
				q := *prob
				q.MemoryLimit = limit
				if lim, ok := shapeFor(&q); ok && lim.Bytes > limit {
					t.Errorf("%s %v: within %d bytes the shape takes %d", s.name, sem, limit, lim.Bytes)
				}
				got, err := Engine{}.Count(ctx, &q)
				if err != nil && !errors.Is(err, engine.ErrMemory) || err == nil && got.Count != want {
					t.Errorf("%s %v, --memory %d: %d (%v), want %d", s.name, sem, limit, got.Count, err, want)
				}
			}
		}
	}
}

// TestShapeCancel: a shape's count stops within a second of its context's end, partial, with
// the context's error (an R-MAT graph whose houses take seconds).
func TestShapeCancel(t *testing.T) {
	withShapes(t)
	g, err := gen.RMAT(gen.RMATOptions{Scale: 13, EdgeFactor: 16, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	stopped := 0
	for _, s := range []int{2, 3, 4} { // 4-paths, 4-cycles, houses
		p := shapePattern(t, shapeEdges[s].edges, "", "")
		for _, sem := range []engine.Semantics{{}, {Induced: true}} {
			prob := &engine.Problem{Data: g, Pattern: p, Semantics: sem, Threads: 2}
			if _, ok := shapeFor(prob); !ok {
				continue
			}
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Millisecond)
			start := time.Now()
			res, err := Engine{}.Count(ctx, prob)
			cancel()
			if err == nil {
				continue // (finished within the deadline)
			}
			stopped++
			proptest.CheckStopped(t, fmt.Sprintf("%s %v", shapeEdges[s].name, sem), time.Since(start), time.Second, res, err, context.DeadlineExceeded)
		}
	}
	if stopped == 0 {
		t.Errorf("no count outlasted its deadline: nothing checked")
	}
}

// TestShapePrediction: Predict prices a shape's count by its passes (ShapeSeconds), not the
// search, and a listing by the search; RunPlan (--explain) says so.
func TestShapePrediction(t *testing.T) {
	withShapes(t)
	g, err := gen.RMAT(gen.RMATOptions{Scale: 10, EdgeFactor: 8, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	p := shapePattern(t, shapeEdges[4].edges, "", "")
	w := &engine.Workload{Problem: &engine.Problem{Data: g, Pattern: p, Threads: 2}, Threads: 2, Bound: 1e12}
	got := predict(w)
	sh, _ := shapeFor(w.Problem)
	if want := ShapeSeconds(sh.Work(), WholeShapeRates, g, w.UpwardSquares, 2); got.Seconds != want || !strings.Contains(got.Note, "house") {
		t.Errorf("house: predicted %+v, want %v s by the house counter", got, want)
	}
	w.Listing = true
	if got := predict(w); strings.Contains(got.Note, "house") {
		t.Errorf("a listing priced as the house counter: %+v", got)
	}
	// --explain says the count takes the counter, not the plan.
	opts, err := PlanOptions(w.Problem, false)
	if err != nil {
		t.Fatal(err)
	}
	pl, err := plan.BuildContext(context.Background(), g, p, opts)
	if err != nil {
		t.Fatal(err)
	}
	if _, note := (Engine{}).RunPlan(context.Background(), w.Problem, pl); !strings.Contains(note, "as a shape") {
		t.Errorf("RunPlan's note %q", note)
	}
}
