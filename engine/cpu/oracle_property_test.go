package cpu_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"submatch/engine"
	_ "submatch/engine/cpu"
	"submatch/gen"
	"submatch/graph"
	"submatch/internal/oracle"
	"submatch/pattern"
)

var allSemantics = []engine.Semantics{
	{},
	{Induced: true},
	{Unique: true},
	{Unique: true, Induced: true},
}

// propCase is one random problem of the property test, reproducible from its seed.
type propCase struct {
	seed   uint64
	g      *graph.Graph
	p      *pattern.Pattern
	recipe string // the gen calls that rebuild g and p
}

// makeCase draws a data graph of 10-40 vertices and a pattern of 1-10 vertices from seed.
func makeCase(seed uint64) propCase {
	r := rand.New(rand.NewPCG(seed, 42))
	n := 10 + r.IntN(31)
	density := []float64{0.05, 0.1, 0.2, 0.3, 0.5, 0.8}[r.IntN(6)]
	if n > 25 && density > 0.3 && r.IntN(2) == 0 {
		density = 0.1 // keep large dense problems (mostly beyond the oracle) rarer
	}
	vl := 1 + r.IntN(4)
	el := 1 + r.IntN(3) // 1: every edge label is 0
	g := gen.RandomGraph(seed, n, density, vl, el)
	recipe := fmt.Sprintf("g := gen.RandomGraph(%d, %d, %v, %d, %d)", seed, n, density, vl, el)

	pn := 1 + r.IntN(10)
	comps := 1
	if x := r.IntN(10); x >= 7 {
		comps = x - 5 // 2..4 components in 30% of cases
		pn = comps + r.IntN(4)
	}
	wildcard := []float64{0, 0, 0.2, 0.5, 1}[r.IntN(5)]
	var p *pattern.Pattern
	if r.IntN(2) == 0 {
		opts := gen.SampleOptions{Components: comps, Induced: r.IntN(2) == 0, KeepEdge: r.Float64(), Wildcard: wildcard}
		if sp, ok := gen.SamplePattern(seed, g, pn, opts); ok {
			p = sp
			recipe += fmt.Sprintf("\np, _ := gen.SamplePattern(%d, g, %d, %#v)", seed, pn, opts)
		}
	}
	if p == nil {
		opts := gen.PatternOptions{Components: comps, EdgeProb: r.Float64() * 0.6, VertexLabels: vl, EdgeLabels: el, Wildcard: wildcard}
		p = gen.RandomPattern(seed, pn, opts)
		recipe += fmt.Sprintf("\np := gen.RandomPattern(%d, %d, %#v)", seed, pn, opts)
	}
	return propCase{seed: seed, g: g, p: p, recipe: recipe}
}

func (c propCase) describe(sem engine.Semantics, threads int) string {
	return fmt.Sprintf("seed %d, %s, threads %d\npattern: %s\ndata: %d vertices, %d edges\nreproduce: SUBMATCH_ORACLE_SEED=%d go test ./engine/cpu -run TestOracleProperty -v\nor:\n%s",
		c.seed, sem, threads, c.p, c.g.NumVertices(), c.g.NumEdges(), c.seed, c.recipe)
}

// oracleBudget bounds the brute-force search per problem; bigger problems are skipped.
const oracleBudget = 150_000

// TestOracleProperty (2000 seeds, 100 with -short) checks the cpu engine's counts (and, for a subset, its match lists) against
// the brute-force oracle on random problems, under every counting convention, with 1 and 2
// threads. SUBMATCH_ORACLE_SEED=n runs only seed n; SUBMATCH_ORACLE_SEEDS=n runs n seeds.
func TestOracleProperty(t *testing.T) {
	e, err := engine.Lookup("cpu")
	if err != nil {
		t.Fatal(err)
	}
	seeds := []uint64{}
	count := 2000
	if testing.Short() {
		count = 100
	}
	if s := os.Getenv("SUBMATCH_ORACLE_SEEDS"); s != "" {
		if count, err = strconv.Atoi(s); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < count; i++ {
		seeds = append(seeds, uint64(i))
	}
	if s := os.Getenv("SUBMATCH_ORACLE_SEED"); s != "" {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		seeds = []uint64{v}
	}
	repeat := 1
	if s := os.Getenv("SUBMATCH_ORACLE_REPEAT"); s != "" {
		if repeat, err = strconv.Atoi(s); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	var oracleTime, engineTime time.Duration
	var checked, skipped, listed, nonzero int
	start := time.Now()
	failures := 0
	for _, seed := range seeds {
		c := makeCase(seed)
		for _, sem := range allSemantics {
			t0 := time.Now()
			want, ok := oracle.CountWithin(c.g, c.p, sem, oracleBudget)
			oracleTime += time.Since(t0)
			if !ok {
				skipped++
				continue
			}
			checked++
			if want > 0 {
				nonzero++
			}
			t0 = time.Now()
			for _, threads := range []int{1, 2} {
				prob := &engine.Problem{Data: c.g, Pattern: c.p, Semantics: sem, Threads: threads}
				for range repeat {
					res, err := e.Count(ctx, prob)
					if err != nil || res.Partial || res.Count != want {
						t.Errorf("Count = %d (partial %v, err %v), oracle %d\n%s", res.Count, res.Partial, err, want, c.describe(sem, threads))
						failures++
						break
					}
				}
			}
			engineTime += time.Since(t0)
			// Match lists for a subset of seeds, when small.
			if seed%3 == 0 && want <= 5_000 {
				listed++
				for _, threads := range []int{1, 2} {
					prob := &engine.Problem{Data: c.g, Pattern: c.p, Semantics: sem, Threads: threads}
					if msg := compareLists(ctx, e, c, prob); msg != "" {
						t.Errorf("%s\n%s", msg, c.describe(sem, threads))
						failures++
					}
				}
			}
			if failures >= 10 {
				t.Fatalf("stopping after %d failures", failures)
			}
		}
	}
	t.Logf("%d seeds: %d (problem, semantics) checked (%d with matches), %d lists compared, %d skipped as too big for the oracle; %v (oracle counts %v, engine counts %v)",
		len(seeds), checked, nonzero, listed, skipped, time.Since(start).Round(time.Millisecond),
		oracleTime.Round(time.Millisecond), engineTime.Round(time.Millisecond))
	if len(seeds) > 50 && skipped > checked/2 {
		t.Errorf("too many problems skipped: %d of %d", skipped, checked+skipped)
	}
}

// compareLists checks that the engine lists exactly the oracle's matches: every listed match is
// valid and, under unique semantics, the listed matches are one per orbit of Aut(Q) (compared
// through the oracle's canonical representative).
func compareLists(ctx context.Context, e engine.Engine, c propCase, prob *engine.Problem) string {
	got, err := engine.CollectMatches(ctx, e, prob, 0)
	if err != nil {
		return fmt.Sprintf("Matches: %v", err)
	}
	want := oracle.List(c.g, c.p, prob.Semantics)
	var auts [][]int
	if prob.Semantics.Unique {
		auts = oracle.Automorphisms(c.p)
	}
	for i, m := range got {
		if !oracle.Valid(c.g, c.p, prob.Semantics, m) {
			return fmt.Sprintf("Matches lists invalid match %v", m)
		}
		if auts != nil {
			got[i] = oracle.Canonical(auts, m)
		}
	}
	slices.SortFunc(got, slices.Compare)
	slices.SortFunc(want, slices.Compare)
	for i := 1; i < len(got); i++ {
		if slices.Equal(got[i-1], got[i]) {
			if auts != nil {
				return fmt.Sprintf("Matches lists two members of one orbit (canonical %v)", got[i])
			}
			return fmt.Sprintf("Matches lists %v twice", got[i])
		}
	}
	if len(got) != len(want) {
		return fmt.Sprintf("Matches lists %d matches, oracle %d%s", len(got), len(want), firstDifference(got, want))
	}
	for i := range got {
		if !slices.Equal(got[i], want[i]) {
			return fmt.Sprintf("Matches differ from the oracle%s", firstDifference(got, want))
		}
	}
	return ""
}

// firstDifference names a match only one side has.
func firstDifference(got, want [][]uint32) string {
	key := func(m []uint32) string { return fmt.Sprint(m) }
	in := func(list [][]uint32) map[string]bool {
		s := map[string]bool{}
		for _, m := range list {
			s[key(m)] = true
		}
		return s
	}
	g, w := in(got), in(want)
	var b strings.Builder
	for _, m := range want {
		if !g[key(m)] {
			fmt.Fprintf(&b, "; missing %v", m)
			break
		}
	}
	for _, m := range got {
		if !w[key(m)] {
			fmt.Fprintf(&b, "; extra %v", m)
			break
		}
	}
	return b.String()
}
