package mining_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/engine/auto"
	_ "github.com/submatch/submatch/engine/cpu"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/mining"
	"github.com/submatch/submatch/pattern"
)

var conventions = []engine.Semantics{{}, {Unique: true}, {Induced: true}, {Induced: true, Unique: true}}

// TestCensusEngine: the census engine's count of every connected 3- to 5-vertex shape equals
// the CPU engine's search in every convention, on random graphs with vertex and edge labels
// (the patterns' wildcards match them all), one with a hub.
func TestCensusEngine(t *testing.T) {
	census, err := engine.Lookup("census")
	if err != nil {
		t.Fatal(err)
	}
	cpu, err := engine.Lookup("cpu")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for seed := uint64(1); seed <= 3; seed++ {
		g := gen.RandomGraphM(seed, 40, 40*int(seed+1), 3, 2)
		for k := 3; k <= 5; k++ {
			for _, s := range mining.ConnectedShapes(k) {
				p := s.Pattern()
				for _, sem := range conventions {
					prob := &engine.Problem{Data: g, Pattern: p, Semantics: sem, Threads: 2}
					want, err := cpu.Count(ctx, prob)
					if err != nil {
						t.Fatal(err)
					}
					got, err := census.Count(ctx, prob)
					if err != nil {
						t.Fatal(err)
					}
					if got.Count != want.Count {
						t.Fatalf("seed %d %s %v: census %d, cpu %d", seed, p, sem, got.Count, want.Count)
					}
				}
			}
		}
	}
}

// TestCensusEngineRefuses: labelled, disconnected, too small or too large patterns are refused
// with ErrNotCensus, by Count and, with the same error, by CheckPattern (engine.PatternChecker),
// which takes the patterns Count counts; and listing is refused.
func TestCensusEngineRefuses(t *testing.T) {
	census, _ := engine.Lookup("census")
	checker, ok := census.(engine.PatternChecker)
	if !ok {
		t.Fatal("the census engine is no engine.PatternChecker")
	}
	g := gen.RandomGraphM(1, 20, 40, 2, 1)
	for _, pat := range []string{"(a:1)-(b)-(c)-(a)", "(a)-[:1]-(b)-(c)-(a)", "(a)-(b), (c)-(d)", "(a)-(b)",
		"(a)-(b)-(c)-(d)-(e)-(f)"} {
		p, err := pattern.Parse(pat)
		if err != nil {
			t.Fatal(err)
		}
		_, err = census.Count(context.Background(), &engine.Problem{Data: g, Pattern: p})
		if !errors.Is(err, mining.ErrNotCensus) {
			t.Errorf("%s: %v, want ErrNotCensus", pat, err)
		}
		if cerr := checker.CheckPattern(p); cerr == nil || err == nil || cerr.Error() != err.Error() {
			t.Errorf("%s: CheckPattern %v, Count %v", pat, cerr, err)
		}
	}
	for _, s := range mining.ConnectedShapes(4) {
		if err := checker.CheckPattern(s.Pattern()); err != nil {
			t.Errorf("%s: %v", s.Pattern(), err)
		}
	}
	p, _ := pattern.Parse("(a)-(b)-(c)-(a)")
	for _, err := range census.Matches(context.Background(), &engine.Problem{Data: g, Pattern: p}) {
		if err == nil || !strings.Contains(err.Error(), "counts only") {
			t.Errorf("Matches: %v", err)
		}
	}
}

// TestAutoTakesCensus: --engine auto counts induced small unlabelled patterns with the census
// (and the count is the CPU engine's), and leaves non-induced ones and labelled ones to search.
func TestAutoTakesCensus(t *testing.T) {
	g := gen.RandomGraphM(2, 60, 240, 2, 1)
	for _, c := range []struct {
		pat    string
		sem    engine.Semantics
		census bool
	}{
		{"(a)-(b)-(c)-(d)", engine.Semantics{Induced: true}, true},
		{"(a)-(b)-(c)-(d)-(e)-(a)", engine.Semantics{Induced: true, Unique: true}, true},
		{"(a)-(b)-(c)-(d)", engine.Semantics{}, false},
		{"(a:1)-(b)-(c)-(d)", engine.Semantics{Induced: true}, false},
	} {
		p, err := pattern.Parse(c.pat)
		if err != nil {
			t.Fatal(err)
		}
		prob := &engine.Problem{Data: g, Pattern: p, Semantics: c.sem}
		res, d, err := auto.Engine{}.CountDecision(context.Background(), prob)
		if err != nil {
			t.Fatal(err)
		}
		if (d.Engine == "census") != c.census {
			t.Errorf("%s %v: auto chose %s (%s)", c.pat, c.sem, d.Engine, d.Reason)
		}
		cpu, _ := engine.Lookup("cpu")
		want, err := cpu.Count(context.Background(), prob)
		if err != nil {
			t.Fatal(err)
		}
		if res.Count != want.Count {
			t.Errorf("%s %v: auto (%s) %d, cpu %d", c.pat, c.sem, d.Engine, res.Count, want.Count)
		}
	}
}

// The census engine counts the induced 4-paths of a 5-cycle: five, each vertex set of four
// consecutive vertices.
func ExampleShapeFromPattern_censusEngine() {
	p, _ := pattern.Parse("(a)-(b)-(c)-(d)")
	census, _ := engine.Lookup("census")
	b := graph.NewBuilder(graph.BuilderOptions{})
	for i := range int64(5) {
		b.AddEdge(i, (i+1)%5, 0)
	}
	g, _ := b.Build()
	res, err := census.Count(context.Background(), &engine.Problem{Data: g, Pattern: p, Semantics: engine.Semantics{Induced: true, Unique: true}})
	fmt.Println(res.Count, err)
	// Output: 5 <nil>
}
