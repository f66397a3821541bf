// Package proptest draws the random problems that the engines' property tests check against
// the brute-force oracle, and compares match lists with the oracle's. Every engine's test uses
// the same cases, so a seed that fails names the same problem everywhere.
package proptest

import (
	"context"
	"errors"
	"fmt"
	"github.com/submatch/submatch/internal/testenv"
	"iter"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/internal/oracle"
	"github.com/submatch/submatch/pattern"
)

// AllSemantics are the four counting conventions.
var AllSemantics = []engine.Semantics{
	{},
	{Induced: true},
	{Unique: true},
	{Unique: true, Induced: true},
}

// Oracled is a case under one convention, with the oracle's count.
type Oracled struct {
	Case
	Sem  engine.Semantics
	Want uint64
}

// OracleStats records what WithOracle left out and how long the oracle took.
type OracleStats struct {
	Skipped int // (case, convention) pairs beyond OracleBudget
	Time    time.Duration
}

// WithOracle yields each seed's case (Make) under every convention whose oracle count stays
// within OracleBudget; st, when not nil, collects the skipped pairs and the oracle's time.
func WithOracle(seeds []uint64, st *OracleStats) iter.Seq[Oracled] {
	return withOracle(seeds, Make, OracleBudget, st)
}

// WithOracleDense is WithOracle over MakeDense's cases, with DenseOracleBudget.
func WithOracleDense(seeds []uint64, st *OracleStats) iter.Seq[Oracled] {
	return withOracle(seeds, MakeDense, DenseOracleBudget, st)
}

func withOracle(seeds []uint64, draw func(uint64) Case, budget uint64, st *OracleStats) iter.Seq[Oracled] {
	return func(yield func(Oracled) bool) {
		for _, seed := range seeds {
			c := draw(seed)
			for _, sem := range AllSemantics {
				t0 := time.Now()
				want, ok := oracle.CountWithin(c.G, c.P, sem, budget)
				if st != nil {
					st.Time += time.Since(t0)
				}
				if !ok {
					if st != nil {
						st.Skipped++
					}
					continue
				}
				if !yield(Oracled{Case: c, Sem: sem, Want: want}) {
					return
				}
			}
		}
	}
}

// Case is one random problem, reproducible from its seed.
type Case struct {
	Seed   uint64
	G      *graph.Graph
	P      *pattern.Pattern
	Recipe string // the gen calls that rebuild G and P
}

// Make draws a data graph of 10-40 vertices and a pattern of 1-10 vertices from seed.
func Make(seed uint64) Case {
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
	return Case{Seed: seed, G: g, P: p, Recipe: recipe}
}

// MakeDense draws a dense case from seed: a graph of 8-11 vertices with edge density 0.7-0.98
// and one or two labels of each kind, and a pattern of 4-7 vertices, connected or not, a random
// dense one or a clique with one or two edges removed. Make's graphs are mostly sparse and its
// dense problems mostly beyond the oracle's budget, so the plans of dense symmetric patterns
// (chains of reused sets, symmetry windows) are drawn here.
func MakeDense(seed uint64) Case {
	r := rand.New(rand.NewPCG(seed, 7))
	n := 8 + r.IntN(4)
	density := 0.7 + 0.28*r.Float64()
	vl, el := 1+r.IntN(2), 1+r.IntN(2)
	g := gen.RandomGraph(seed, n, density, vl, el)
	recipe := fmt.Sprintf("g := gen.RandomGraph(%d, %d, %v, %d, %d)", seed, n, density, vl, el)
	pn := 4 + r.IntN(4)
	wildcard := []float64{1, 1, 0.5, 0}[r.IntN(4)]
	opts := gen.PatternOptions{Components: 1 + r.IntN(5)/4, EdgeProb: 0.6 + 0.4*r.Float64(), VertexLabels: vl, EdgeLabels: el, Wildcard: wildcard}
	if r.IntN(2) == 0 {
		opts.EdgeProb = 1 // a clique, or cliques, then some edges taken out below
	}
	p := gen.RandomPattern(seed, pn, opts)
	recipe += fmt.Sprintf("\np := gen.RandomPattern(%d, %d, %#v)", seed, pn, opts)
	if opts.EdgeProb == 1 && opts.Components == 1 {
		drop := 1 + r.IntN(2)
		edges := slices.Clone(p.Edges())
		for range drop {
			i := r.IntN(len(edges))
			edges = slices.Delete(edges, i, i+1)
		}
		labels := make([]pattern.Label, p.NumVertices())
		for u := range labels {
			labels[u] = p.VertexLabel(u)
		}
		if q, err := pattern.New(labels, edges, nil); err == nil {
			p = q
			recipe += fmt.Sprintf("\n(then %d of its edges removed at random: rand.NewPCG(%d, 7))", drop, seed)
		}
	}
	return Case{Seed: seed, G: g, P: p, Recipe: recipe}
}

// MakeLarger draws the GPU engines' random device-check case for seed: a graph of 200-500
// vertices with 2-5 edges per vertex on average, 0-3 vertex labels and edge labels on odd seeds,
// and a pattern of 2-7 vertices (two components for a fifth of the seeds) with the graph's labels
// and wildcards. Large enough to fill a GPU launch, too large for the oracle.
func MakeLarger(seed uint64) Case {
	vl := int(seed % 4)
	el := int(seed%2) + 1
	n := 200 + int(seed%7)*50
	m := n * (2 + int(seed%4))
	opts := gen.PatternOptions{
		EdgeProb: 0.4, VertexLabels: vl, EdgeLabels: el, Wildcard: 0.3,
		Components: 1 + int(seed%5)/4,
	}
	pn := 2 + int(seed%6)
	recipe := fmt.Sprintf("g := gen.RandomGraphM(%d, %d, %d, %d, %d)\np := gen.RandomPattern(%d, %d, %#v)", seed, n, m, vl, el, seed*31, pn, opts)
	return Case{Seed: seed, G: gen.RandomGraphM(seed, n, m, vl, el), P: gen.RandomPattern(seed*31, pn, opts), Recipe: recipe}
}

// Describe says how to reproduce a failure of the case under sem; how names the engine's
// settings (threads, budget) and test the go test arguments that rerun it.
func (c Case) Describe(sem engine.Semantics, how, test string) string {
	return fmt.Sprintf("seed %d, %s, %s\npattern: %s\ndata: %d vertices, %d edges\nreproduce: SUBMATCH_ORACLE_SEED=%d go test %s -v\nor:\n%s",
		c.Seed, sem, how, c.P, c.G.NumVertices(), c.G.NumEdges(), c.Seed, test, c.Recipe)
}

// OracleBudget bounds the brute-force search per problem; bigger problems are skipped.
const OracleBudget = 150_000

// DenseOracleBudget is OracleBudget for MakeDense's cases, whose searches are larger.
const DenseOracleBudget = 2_000_000

// Seeds returns the seeds a property test runs: 0..n-1 with n = full in the deep sweeps
// (SUBMATCH_LONG=1, which CI sets), short by default (the README's `go test ./...`), half of
// short with -short, and a tenth of short under the race detector (testenv.Race); or
// SUBMATCH_ORACLE_SEEDS=n seeds, or the single SUBMATCH_ORACLE_SEED; and the repetitions SUBMATCH_ORACLE_REPEAT asks for (default 1).
func Seeds(t testing.TB, full, short int) (seeds []uint64, repeat int) {
	count := short
	switch {
	case testenv.Long():
		count = full
	case testenv.Race:
		count = max(1, short/10)
	case testing.Short():
		count = max(1, short/2)
	}
	var err error
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
	repeat = 1
	if s := os.Getenv("SUBMATCH_ORACLE_REPEAT"); s != "" {
		if repeat, err = strconv.Atoi(s); err != nil {
			t.Fatal(err)
		}
	}
	return seeds, repeat
}

// SeedsUpTo returns the seeds 0..n-1 (a fixed sweep, whatever the environment asks: Seeds).
func SeedsUpTo(n uint64) []uint64 {
	s := make([]uint64, n)
	for i := range s {
		s[i] = uint64(i)
	}
	return s
}

// CompareLists checks that the engine lists exactly the oracle's matches: every listed match is
// valid and, under unique semantics, the listed matches are one per orbit of Aut(Q) (compared
// through the oracle's canonical representative).
func CompareLists(ctx context.Context, e engine.Engine, c Case, prob *engine.Problem) string {
	got, err := engine.CollectMatches(ctx, e, prob, 0)
	if err != nil {
		return fmt.Sprintf("Matches: %v", err)
	}
	want := oracle.List(c.G, c.P, prob.Semantics)
	var auts [][]int
	if prob.Semantics.Unique {
		auts = oracle.Automorphisms(c.P)
	}
	for i, m := range got {
		if !oracle.Valid(c.G, c.P, prob.Semantics, m) {
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

// Clique returns the k-clique pattern with every vertex labelled vertexLabel and every edge
// edgeLabel ("" for a wildcard), e.g. "(v0:1)-[:2]-(v1:1), ...".
func Clique(t testing.TB, k int, vertexLabel, edgeLabel string) *pattern.Pattern {
	t.Helper()
	vertex := func(i int) string {
		if vertexLabel == "" {
			return fmt.Sprintf("(v%d)", i)
		}
		return fmt.Sprintf("(v%d:%s)", i, vertexLabel)
	}
	edge := "-"
	if edgeLabel != "" {
		edge = "-[:" + edgeLabel + "]-"
	}
	var parts []string
	for i := range k {
		for j := i + 1; j < k; j++ {
			parts = append(parts, vertex(i)+edge+vertex(j))
		}
	}
	p, err := pattern.Parse(strings.Join(parts, ", "))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// CheckStopped fails t unless a count that ended with res and err after took stopped within
// limit, reported itself partial, and returned want (context.Canceled or
// context.DeadlineExceeded).
func CheckStopped(t testing.TB, what string, took, limit time.Duration, res engine.Result, err, want error) {
	t.Helper()
	if took > limit {
		t.Errorf("%s took %v, more than %v", what, took, limit)
	}
	if !res.Partial || !errors.Is(err, want) {
		t.Errorf("%s: %+v, %v; want a partial result and %v", what, res, err, want)
	}
}

// Broken is a case whose data graph keeps the bounds that graph.FromRawTrusted checks (every
// accessor stays in range) but may break the rules that graph.FromRaw adds (sorted lists, no
// self-loops, symmetry, labels in order): a snapshot's graph while formats.LoadChecking's check
// still runs, which whatever reads it then (plans, auto's decision, a device engine's
// preparation) must survive.
type Broken struct {
	Case
	// RuleErr is graph.FromRaw's verdict on the graph: nil when the edits kept it sound.
	RuleErr error
}

// MakeBroken draws from seed a graph of 10-59 vertices with 1 to maxEdits entries changed (a
// neighbour swapped with the next entry or renamed, a vertex label changed, a run relabelled)
// and a pattern of 3-6 vertices; ok is false when the graph has fewer than two entries.
func MakeBroken(seed uint64, maxEdits int) (b Broken, ok bool) {
	r := rand.New(rand.NewPCG(seed, 11))
	vl, el := 1+r.IntN(3), 1+r.IntN(2)
	n, density := 10+r.IntN(50), []float64{0.1, 0.2, 0.4}[r.IntN(3)]
	raw := gen.RandomGraph(seed, n, density, vl, el).Raw()
	raw.VertexLabels, raw.Neighbors, raw.Runs = slices.Clone(raw.VertexLabels), slices.Clone(raw.Neighbors), slices.Clone(raw.Runs)
	if len(raw.Neighbors) < 2 {
		return b, false
	}
	for range 1 + r.IntN(max(1, maxEdits)) {
		switch r.IntN(4) {
		case 0:
			i := r.IntN(len(raw.Neighbors) - 1)
			raw.Neighbors[i], raw.Neighbors[i+1] = raw.Neighbors[i+1], raw.Neighbors[i]
		case 1:
			raw.Neighbors[r.IntN(len(raw.Neighbors))] = uint32(r.IntN(n))
		case 2:
			raw.VertexLabels[r.IntN(n)] = uint32(r.IntN(vl + 1))
		case 3:
			k := r.IntN(len(raw.Runs))
			raw.Runs[k].VertexLabel, raw.Runs[k].EdgeLabel = uint32(r.IntN(vl+1)), uint32(r.IntN(el+1))
		}
	}
	g, err := graph.FromRawTrusted(raw)
	if err != nil {
		panic(fmt.Sprintf("proptest: seed %d: a rule-only change broke a bound: %v", seed, err))
	}
	_, b.RuleErr = graph.FromRaw(raw)
	opts := gen.PatternOptions{EdgeProb: r.Float64() * 0.6, VertexLabels: vl, EdgeLabels: el, Wildcard: []float64{0, 0.3}[r.IntN(2)]}
	pn := 3 + r.IntN(4)
	b.Case = Case{Seed: seed, G: g, P: gen.RandomPattern(seed, pn, opts),
		Recipe: fmt.Sprintf("proptest.MakeBroken(%d, %d)", seed, maxEdits)}
	return b, true
}

// Shaped describes the random cases of the sweeps that aim at one plan shape: per seed, a
// dense random graph and a few patterns drawn from the seed's stream by a shape's own drawer.
// The graph has Vertices[0] + IntN(Vertices[1]) vertices, edge density 0.5-0.9, 1 +
// IntN(VertexLabels) vertex labels and 1 + IntN(EdgeLabels) edge labels (drawn in that order
// from rand.NewPCG(seed, Stream)); then Patterns patterns come from Draw on the same stream.
type Shaped struct {
	Stream                   uint64
	Vertices                 [2]int
	VertexLabels, EdgeLabels int
	Patterns                 int
	// Semantics are the conventions each pattern is counted under (AllSemantics when nil).
	Semantics []engine.Semantics
	// Draw returns a pattern's source for a graph with vl vertex and el edge labels.
	Draw func(r *rand.Rand, vl, el int) string
}

// Cases yields each seed's cases under each of s.Semantics whose oracle count stays within
// DenseOracleBudget; st, when not nil, collects the skipped pairs and the oracle's time. A
// pattern that Draw makes and pattern.Parse refuses fails t.
func (s Shaped) Cases(t testing.TB, seeds []uint64, st *OracleStats) iter.Seq[Oracled] {
	sems := s.Semantics
	if sems == nil {
		sems = AllSemantics
	}
	return func(yield func(Oracled) bool) {
		for _, seed := range seeds {
			r := rand.New(rand.NewPCG(seed, s.Stream))
			n, density := s.Vertices[0]+r.IntN(s.Vertices[1]), 0.5+0.4*r.Float64()
			vl, el := 1+r.IntN(s.VertexLabels), 1+r.IntN(s.EdgeLabels)
			g := gen.RandomGraph(seed, n, density, vl, el)
			for range s.Patterns {
				src := s.Draw(r, vl, el)
				p, err := pattern.Parse(src)
				if err != nil {
					t.Fatalf("%s: %v", src, err)
				}
				c := Case{Seed: seed, G: g, P: p, Recipe: fmt.Sprintf("g := gen.RandomGraph(%d, %d, %v, %d, %d)\np := %q", seed, n, density, vl, el, src)}
				for _, sem := range sems {
					t0 := time.Now()
					want, ok := oracle.CountWithin(g, p, sem, DenseOracleBudget)
					if st != nil {
						st.Time += time.Since(t0)
						if !ok {
							st.Skipped++
						}
					}
					if ok && !yield(Oracled{Case: c, Sem: sem, Want: want}) {
						return
					}
				}
			}
		}
	}
}
