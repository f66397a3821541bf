package pbe

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/internal/oracle"
	"github.com/submatch/submatch/internal/proptest"
	"github.com/submatch/submatch/internal/testenv"
	"github.com/submatch/submatch/partition"
	"github.com/submatch/submatch/pattern"
	"github.com/submatch/submatch/plan"
)

// TestInterAgainstOracleLabelled runs the inter stage alone (runInter, every program of the plan
// on one searcher, so that levels, marks and the root's bitset carry over from program to
// program and root to root) on dense random graphs with vertex and edge labels, or plain, and small R-MAT graphs, and
// random connected patterns of 4-6 vertices with labels and wildcards, cut into 3-8 parts: its
// counts (1 and 3 threads, shared and not) and its listing against the oracle's matches that
// span parts, in every convention. Dense small graphs give the host search's shortcuts (reused
// and marked candidates, the root's marked list, the forward index, the last position counted
// past DUPREMOVE's bound) on labelled runs, and the general path's scans where a wildcard meets a
// labelled graph.
//
// Each case also runs three programs drawn at random (prime edge, and restrictions consistent
// with a random order of the vertices, not the pattern's symmetry: windows that need not nest
// from one step to the next) on one searcher, with the candidate bitsets of package plan,
// against the oracle's embeddings that each program must find (programFinds).
func TestInterAgainstOracleLabelled(t *testing.T) {
	cases := testenv.Sweep(30, 600)
	ran, found := 0, 0
	for seed := range uint64(cases) {
		r := rand.New(rand.NewPCG(seed, 27))
		n := 12 + r.IntN(10)
		vl, el := 1+r.IntN(2), 1+r.IntN(2)
		switch seed % 8 {
		case 0, 4, 1:
			vl, el = 1, 1 // plain: the root's bitset, the forward index
		case 5:
			vl, el = 2, 2
		}
		g := gen.RandomGraph(seed, n, 0.45+0.4*r.Float64(), vl, el)
		if seed%4 == 1 {
			// Hubs and light vertices: skewed lists (which set is marked, which merged), the
			// forward index on hubs; plain or labelled.
			var err error
			if g, err = gen.RMAT(gen.RMATOptions{Scale: 5, EdgeFactor: 4, VertexLabels: vl, EdgeLabels: el, Seed: seed}); err != nil {
				t.Fatal(err)
			}
		}
		pn := 4 + r.IntN(3)
		opts := gen.PatternOptions{EdgeProb: 0.4 + 0.6*r.Float64(), VertexLabels: vl, EdgeLabels: el, Wildcard: []float64{0, 0, 0.2, 0.5}[r.IntN(4)]}
		p := gen.RandomPattern(seed, pn, opts)
		if seed%3 == 2 && vl > 1 {
			// Wildcards on edges only: a step that has no sorted list (a wildcard edge on a
			// labelled graph) before one that reuses its candidates from the rest of its lists,
			// in a plan whose other programs keep candidates at that position.
			p = exactVertices(t, p, vl)
		}
		recipe := fmt.Sprintf("gen.RandomGraph(%d, %d, ..., %d, %d), gen.RandomPattern(%d, %d, %#v)", seed, n, vl, el, seed, pn, opts)
		budget := max(partition.GraphBytes(g)/uint64(3+r.IntN(6)), 64)
		pt, err := partition.Partition(context.Background(), g, partition.Options{Budget: budget, Method: partition.Ranges})
		if err != nil || len(pt.Parts) < 2 {
			continue
		}
		for _, sem := range proptest.AllSemantics {
			prob := &engine.Problem{Data: g, Pattern: p, Semantics: sem}
			want, ok := interOracle(g, p, sem, pt.Of)
			if !ok {
				continue
			}
			for _, shared := range []bool{false, true} {
				ip, err := interPlanFor(context.Background(), prob, true, shared)
				if err != nil {
					t.Fatal(err)
				}
				for _, threads := range []int{1, 3} {
					st, _ := runInter(context.Background(), g, pt.Of, entryBytes(g), ip, threads, nil)
					if got, _ := ip.total(st.matches); got != want {
						t.Fatalf("%s\n%v shared %v, %d threads, %d parts: %d inter matches, oracle %d", recipe, sem, shared, threads, len(pt.Parts), got, want)
					}
				}
				lp, err := interPlanFor(context.Background(), prob, false, shared)
				if err != nil {
					t.Fatal(err)
				}
				var listed uint64
				runInter(context.Background(), g, pt.Of, entryBytes(g), lp, 1, lp.expand(func(m []uint32) bool {
					if !oracle.Valid(g, p, sem, m) || !spans(pt.Of, m) {
						t.Fatalf("%s\n%v shared %v: listed %v, not an inter-partition match", recipe, sem, shared, m)
					}
					listed++
					return true
				}))
				if listed != want {
					t.Fatalf("%s\n%v shared %v, %d parts: %d listed, oracle %d", recipe, sem, shared, len(pt.Parts), listed, want)
				}
			}
			ran++
			if want > 0 {
				found++
			}
		}
		for _, induced := range []bool{false, true} {
			checkRandomPrograms(t, r, g, pt.Of, p, induced, recipe)
		}
	}
	if found < ran/4 {
		t.Fatalf("%d runs, only %d with inter-partition matches", ran, found)
	}
	t.Logf("%d runs, %d with inter-partition matches", ran, found)
}

// interOracle is the number of the oracle's matches of p in g that span parts of of, false when
// the oracle gives up.
func interOracle(g *graph.Graph, p *pattern.Pattern, sem engine.Semantics, of []uint32) (uint64, bool) {
	ms, ok := oracle.ListWithin(g, p, sem, 2_000_000)
	if !ok {
		return 0, false
	}
	var want uint64
	for _, m := range ms {
		if spans(of, m) {
			want++
		}
	}
	return want, true
}

// checkRandomPrograms runs three random programs of p (induced or not) as one plan against
// programFinds over the oracle's embeddings.
func checkRandomPrograms(t *testing.T, r *rand.Rand, g *graph.Graph, of []uint32, p *pattern.Pattern, induced bool, recipe string) {
	t.Helper()
	var progs []orderRestr
	for range 3 {
		order, restr := randomProgram(r, p)
		progs = append(progs, orderRestr{order, restr})
	}
	checkPrograms(t, g, of, p, induced, progs, recipe)
}

// orderRestr is a program's search order and restrictions.
type orderRestr struct {
	order []int
	restr []plan.Restriction
}

// checkPrograms runs the programs progs of p (induced or not), with plan's candidate bitsets,
// in that order as one plan on one searcher, counted on 1 and 3 threads and listed, against
// programFinds over the oracle's embeddings; it returns the matches found (0 also when the
// oracle gave up).
func checkPrograms(t *testing.T, g *graph.Graph, of []uint32, p *pattern.Pattern, induced bool, progs []orderRestr, recipe string) uint64 {
	t.Helper()
	ms, ok := oracle.ListWithin(g, p, engine.Semantics{Induced: induced}, 2_000_000)
	if !ok {
		return 0
	}
	pl, err := plan.BuildContext(context.Background(), g, p, plan.Options{Induced: induced, Enumerate: true, SpaceLimit: -1})
	if err != nil {
		t.Fatal(err)
	}
	ip := &interPlan{mult: 1}
	var want uint64
	for _, pg := range progs {
		pr := makeProgram(p, pg.order, induced, pg.restr)
		for i := range pr.steps {
			pr.steps[i].cand = pl.CandidateBits[pr.steps[i].u]
		}
		ip.programs = append(ip.programs, pr)
		for _, m := range ms {
			if programFinds(of, p, pg.order, pg.restr, m) {
				want++
			}
		}
	}
	for _, threads := range []int{1, 3} {
		got, _ := runInter(context.Background(), g, of, entryBytes(g), ip, threads, nil)
		if got.matches != want {
			t.Fatalf("%s\ninduced %v, programs %v, %d threads: %d matches, oracle %d", recipe, induced, progs, threads, got.matches, want)
		}
	}
	var listed uint64
	runInter(context.Background(), g, of, entryBytes(g), ip, 1, func([]uint32) bool { listed++; return true })
	if listed != want {
		t.Fatalf("%s\ninduced %v, programs %v: %d listed, oracle %d", recipe, induced, progs, listed, want)
	}
	return want
}

// TestInterStaleKept: a position whose step keeps its candidates for a later step in two
// programs of one plan, with a sorted list in the first (c-d-b-e-a: b's candidates from c's and d's
// lists, kept for e) and none in the second (a-b-c-d-e: c's edge to a is a wildcard on an
// edge-labelled graph, so c is placed by scanning, and d, which reuses c's candidates, must not
// take the first program's kept list), on dense edge-labelled graphs cut into parts, against the
// oracle.
func TestInterStaleKept(t *testing.T) {
	x, w := pattern.Exact(0), pattern.Wildcard
	const a, b, c, d, e = 0, 1, 2, 3, 4
	p, err := pattern.New([]pattern.Label{x, x, x, x, x}, []pattern.Edge{
		{U: a, V: b, Label: x}, {U: a, V: c, Label: w}, {U: a, V: d, Label: w}, {U: b, V: c, Label: x},
		{U: b, V: d, Label: x}, {U: c, V: d, Label: x}, {U: e, V: a, Label: x}, {U: e, V: b, Label: x},
		{U: e, V: c, Label: x}, {U: e, V: d, Label: x},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	progs := []orderRestr{{order: []int{c, d, b, e, a}}, {order: []int{a, b, c, d, e}}}
	for _, induced := range []bool{false, true} {
		pr := makeProgram(p, progs[1].order, induced, nil)
		if first := makeProgram(p, progs[0].order, induced, nil); !first.steps[2].keep || !pr.steps[2].keep || pr.steps[3].reuse != 2 {
			t.Fatalf("the programs do not keep position 2 for position 3: %+v", pr.steps)
		}
	}
	found := 0
	for seed := range uint64(6) {
		g := gen.RandomGraph(seed, 14, 0.8, 1, 2)
		pt, err := partition.Partition(context.Background(), g, partition.Options{Budget: max(partition.GraphBytes(g)/4, 64), Method: partition.Ranges})
		if err != nil || len(pt.Parts) < 2 {
			t.Fatalf("%d parts, error %v", len(pt.Parts), err)
		}
		for _, induced := range []bool{false, true} {
			if checkPrograms(t, g, pt.Of, p, induced, progs, fmt.Sprintf("gen.RandomGraph(%d, 14, 0.8, 1, 2)", seed)) > 0 {
				found++
			}
		}
	}
	if found < 2 {
		t.Fatalf("only %d of 12 runs found matches: the oracle checks little", found)
	}
}

// programFinds reports whether the program of order and restr finds the embedding m: every
// restriction holds, the prime pattern edge (order[0], order[1]) maps onto a cut edge, and no
// pattern edge maps onto a cut edge of smaller key (DUPREMOVE).
func programFinds(of []uint32, p *pattern.Pattern, order []int, restr []plan.Restriction, m []uint32) bool {
	if !restricted(m, restr) {
		return false
	}
	a, b := m[order[0]], m[order[1]]
	if of[a] == of[b] {
		return false
	}
	for _, e := range p.Edges() {
		if x, y := m[e.U], m[e.V]; of[x] != of[y] && edgeKey(x, y) < edgeKey(a, b) {
			return false
		}
	}
	return true
}

// exactVertices is p with every wildcard vertex label made exact (label 0 .. vl-1 by vertex).
func exactVertices(t *testing.T, p *pattern.Pattern, vl int) *pattern.Pattern {
	t.Helper()
	labels := make([]pattern.Label, p.NumVertices())
	for u := range labels {
		if labels[u] = p.VertexLabel(u); labels[u].Any {
			labels[u] = pattern.Exact(uint32(u % vl))
		}
	}
	q, err := pattern.New(labels, p.Edges(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return q
}
