package main

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/pattern"
)

func init() {
	registerCommand(command{name: "demo", summary: "generate a small labelled graph in memory and count a few patterns in it", run: runDemo})
}

// demoQueries are the patterns the demo counts, in the inline syntax.
var demoQueries = []struct{ name, pattern string }{
	{"triangle", "(a)-(b)-(c)-(a)"},
	{"labelled path", "(a:0)-(b:1)-(c:2)-(d:3)"},
	{"4-cycle", "(a)-(b)-(c)-(d)-(a)"},
	{"diamond, edge labels", "(a)-[:1]-(b)-(c)-[:1]-(d)-(a), (b)-[:0]-(d)"},
	{"disconnected", "(a:1)-[:1]-(b:2), (c:3)"},
	{"triangle + 2 leaves", "(a)-(b)-(c)-(a), (a)-(d:1), (b)-(e:2)"},
}

const (
	demoVertexLabels = 4
	demoEdgeLabels   = 2
)

// The demo graph's bounds: it is generated in memory (--vertices 1e11 ran out of it).
const (
	demoMaxVertices = 1 << 24
	demoMaxAttach   = 1 << 10
)

// demoGraph generates a deterministic labelled preferential-attachment (Barabási–Albert) graph:
// each new vertex joins m distinct earlier vertices picked with probability proportional to their
// degree; vertex labels are skewed over 0..3 and edge labels uniform over 0..1.
func demoGraph(n, m int, seed uint64) (*graph.Graph, error) {
	rng := rand.New(rand.NewPCG(seed, 0x5eed_5ab_a7c4))
	b := graph.NewBuilder(graph.BuilderOptions{})
	vertexLabel := func() uint32 {
		// 40%, 30%, 20%, 10%.
		switch r := rng.IntN(10); {
		case r < 4:
			return 0
		case r < 7:
			return 1
		case r < 9:
			return 2
		}
		return 3
	}
	// ends holds every edge endpoint once per incidence: a uniform pick is degree-proportional.
	ends := make([]int64, 0, 2*n*m)
	seedSize := m + 1
	for v := 0; v < seedSize; v++ { // a clique to start from
		if err := b.SetVertexLabel(int64(v), vertexLabel()); err != nil {
			return nil, err
		}
		for u := 0; u < v; u++ {
			if err := b.AddEdge(int64(u), int64(v), uint32(rng.IntN(demoEdgeLabels))); err != nil {
				return nil, err
			}
			ends = append(ends, int64(u), int64(v))
		}
	}
	targets := make([]int64, 0, m)
	for v := seedSize; v < n; v++ {
		if err := b.SetVertexLabel(int64(v), vertexLabel()); err != nil {
			return nil, err
		}
		targets = targets[:0]
		for len(targets) < m {
			t := ends[rng.IntN(len(ends))]
			dup := false
			for _, x := range targets {
				dup = dup || x == t
			}
			if !dup {
				targets = append(targets, t)
			}
		}
		for _, t := range targets {
			if err := b.AddEdge(int64(v), t, uint32(rng.IntN(demoEdgeLabels))); err != nil {
				return nil, err
			}
			ends = append(ends, int64(v), t)
		}
	}
	return b.Build()
}

// automorphisms counts the label-preserving automorphisms of p by counting the embeddings of p in
// itself, with wildcards turned into a label of their own so they only map to each other.
func automorphisms(ctx context.Context, eng engine.Engine, p *pattern.Pattern, threads int) (uint64, error) {
	g, q, err := selfProblem(p)
	if err != nil {
		return 0, err
	}
	res, err := eng.Count(ctx, &engine.Problem{Data: g, Pattern: q, Threads: threads})
	return res.Count, err
}

// selfProblem is what automorphisms counts: the embeddings of q, p with its wildcards turned into
// a label of their own, in g, q as a graph.
func selfProblem(p *pattern.Pattern) (g *graph.Graph, q *pattern.Pattern, err error) {
	const wild = 1 << 31
	exact := func(l pattern.Label) uint32 {
		if l.Any {
			return wild
		}
		return l.Value
	}
	b := graph.NewBuilder(graph.BuilderOptions{})
	labels := make([]pattern.Label, p.NumVertices())
	for u := range labels {
		labels[u] = pattern.Exact(exact(p.VertexLabel(u)))
		if err := b.SetVertexLabel(int64(u), labels[u].Value); err != nil {
			return nil, nil, err
		}
	}
	edges := make([]pattern.Edge, len(p.Edges()))
	for i, e := range p.Edges() {
		edges[i] = pattern.Edge{U: e.U, V: e.V, Label: pattern.Exact(exact(e.Label))}
		if err := b.AddEdge(int64(e.U), int64(e.V), edges[i].Label.Value); err != nil {
			return nil, nil, err
		}
	}
	if g, err = b.Build(); err != nil {
		return nil, nil, err
	}
	if q, err = pattern.New(labels, edges, nil); err != nil {
		return nil, nil, err
	}
	return g, q, nil
}

// checkDemoEngine refuses, before the graph is generated, an engine that does not take every
// pattern the demo counts (engine.PatternChecker): the demo's queries, and the labelled copies
// of them that automorphisms counts.
func checkDemoEngine(eng engine.Engine) error {
	pc, ok := eng.(engine.PatternChecker)
	if !ok {
		return nil
	}
	for _, self := range []bool{false, true} {
		for _, dq := range demoQueries {
			p, err := pattern.Parse(dq.pattern)
			if err != nil {
				return fmt.Errorf("internal demo pattern %q: %w", dq.pattern, err)
			}
			what := fmt.Sprintf("query %q", dq.name)
			if self {
				if _, p, err = selfProblem(p); err != nil {
					return err
				}
				what = fmt.Sprintf("labelled copy of %q (its |Aut|)", dq.name)
			}
			if err := pc.CheckPattern(p); err != nil {
				return usagef("demo: --engine %s does not count the demo's %s: %v; leave --engine at auto, or use cpu", eng.Name(), what, err)
			}
		}
	}
	return nil
}

func runDemo(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("demo", "",
		"Generates a deterministic labelled preferential-attachment graph in memory (no files, no GPU) and\n"+
			"counts a handful of patterns in it under every counting convention, printing the counts and times.")
	var (
		common  commonFlags
		engName string
		threads int
		n, m    int
		seed    uint64
	)
	common.register(fs)
	fs.StringVar(&engName, "engine", "auto", "matching engine `NAME` (auto: chosen per count, as for count --engine)")
	registerThreads(fs, &threads, "worker threads `N` (0: all cores)")
	fs.IntVar(&n, "vertices", 4000, "number of vertices `N` of the generated graph")
	fs.IntVar(&m, "attach", 3, "edges `M` each new vertex brings")
	fs.Uint64Var(&seed, "seed", 1, "random `SEED` of the generator")
	pos, err := parseArgs(fs, args, stdout)
	if err != nil {
		return exitCode(stderr, err)
	}
	if len(pos) != 0 {
		return exitCode(stderr, usagef("demo takes no arguments (run 'submatch help demo')"))
	}
	if m < 1 || n <= m+1 {
		return exitCode(stderr, usagef("demo: need --attach >= 1 and --vertices > attach+1"))
	}
	if n > demoMaxVertices || m > demoMaxAttach {
		return exitCode(stderr, usagef("demo: a small graph in memory: at most %d vertices, --attach at most %d (gen rmat makes large graphs)", demoMaxVertices, demoMaxAttach))
	}
	if err := common.check(); err != nil {
		return exitCode(stderr, err)
	}
	log := newLogger(stderr, common.verbose)
	ctx, cancel := common.context(ctx)
	defer cancel()
	eng, err := resolveEngine(engName)
	if err != nil {
		return exitCode(stderr, err)
	}
	if err := checkDemoEngine(eng); err != nil {
		return exitCode(stderr, err)
	}

	start := time.Now()
	g, err := demoGraph(n, m, seed)
	if err != nil {
		return exitCode(stderr, fmt.Errorf("generating the demo graph: %w", err))
	}
	genTime := time.Since(start)
	fmt.Fprintf(stdout, "submatch demo: labelled preferential-attachment graph (seed %d), generated in memory in %s\n", seed, fmtDuration(genTime))
	fmt.Fprintf(stdout, "  %d vertices, %d edges, max degree %d, %d vertex labels (0..%d), %d edge labels (0..%d)\n",
		g.NumVertices(), g.NumEdges(), g.MaxDegree(), demoVertexLabels, demoVertexLabels-1, demoEdgeLabels, demoEdgeLabels-1)
	fmt.Fprintf(stdout, "  engine %s; labels in patterns are exact (a:1) or wildcards (a), edges - or -[:label]-\n\n", eng.Name())

	sems := []engine.Semantics{{}, {Induced: true}, {Unique: true}, {Induced: true, Unique: true}}
	rows := [][]string{{"query", "embeddings", "induced", "unique", "unique-induced", "|Aut|", "time"}}
	total := time.Now()
	mismatches := 0
	for _, q := range demoQueries {
		p, err := pattern.Parse(q.pattern)
		if err != nil {
			return exitCode(stderr, fmt.Errorf("internal demo pattern %q: %w", q.pattern, err))
		}
		counts := make([]uint64, len(sems))
		qStart := time.Now()
		for i, sem := range sems {
			prog := newProgress(stderr, q.name)
			res, err := eng.Count(ctx, &engine.Problem{Data: g, Pattern: p, Semantics: sem, Threads: threads, Progress: prog.callback()})
			prog.finish()
			if err != nil || res.Partial {
				printTable(stdout, rows)
				if err != nil && !isCancel(err) {
					return exitCode(stderr, fmt.Errorf("%s: %w", q.name, err))
				}
				fmt.Fprintf(stdout, "%s\t%s: %d so far (partial)\n", q.name, sem, res.Count)
				fmt.Fprintf(stderr, "submatch: demo %s; results are partial\n", stopReason(ctx, common.timeout))
				return exitPartial
			}
			counts[i] = res.Count
			log.Debug("counted", "query", q.name, "semantics", sem.String(), "count", res.Count)
		}
		elapsed := time.Since(qStart)
		aut, err := automorphisms(ctx, eng, p, threads)
		if err != nil {
			return exitCode(stderr, fmt.Errorf("%s: automorphisms: %w", q.name, err))
		}
		if counts[0] != counts[2]*aut {
			mismatches++
		}
		rows = append(rows, []string{q.name, group(counts[0]), group(counts[1]), group(counts[2]), group(counts[3]),
			strconv.FormatUint(aut, 10), fmtDuration(elapsed)})
	}
	printTable(stdout, rows)
	fmt.Fprintln(stdout)
	for _, q := range demoQueries {
		fmt.Fprintf(stdout, "  %-22s %s\n", q.name, q.pattern)
	}
	fmt.Fprintf(stdout, "\nall counts in %s; ", fmtDuration(time.Since(total)))
	if mismatches == 0 {
		fmt.Fprintln(stdout, "embeddings = unique x |Aut| holds for every query.")
	} else {
		fmt.Fprintf(stdout, "embeddings != unique x |Aut| for %d queries: an engine bug.\n", mismatches)
		return exitPartial
	}
	fmt.Fprintln(stdout, "Try: submatch count --unique DATA '(a)-(b)-(c)-(a)'  (see submatch help count)")
	return exitOK
}

// printTable prints rows in columns: the first left-aligned, the others right-aligned.
func printTable(w io.Writer, rows [][]string) {
	var width []int
	for _, r := range rows {
		for i, c := range r {
			if i >= len(width) {
				width = append(width, 0)
			}
			width[i] = max(width[i], utf8.RuneCountInString(c))
		}
	}
	for _, r := range rows {
		var b strings.Builder
		for i, c := range r {
			pad := strings.Repeat(" ", width[i]-utf8.RuneCountInString(c))
			if i == 0 {
				b.WriteString(c + pad)
			} else {
				b.WriteString("  " + pad + c)
			}
		}
		fmt.Fprintln(w, b.String())
	}
}

// group writes n with thousands separators.
func group(n uint64) string {
	s := strconv.FormatUint(n, 10)
	var out []byte
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	return string(out)
}
