package pbe

import (
	"context"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/internal/ctxtest"
	"github.com/submatch/submatch/internal/proptest"
	"github.com/submatch/submatch/partition"
	"github.com/submatch/submatch/pattern"
	"github.com/submatch/submatch/plan"
)

// referenceSeeds counts the inter stage's seeds the plain way: every cut edge, in both
// orientations, on every program, kept when its ends pass place at positions 0 and 1.
func referenceSeeds(g *graph.Graph, of []uint32, ip *interPlan) uint64 {
	s := newSearcher(context.Background(), g, of, 0, nil, nil, nil)
	var n uint64
	for v := range uint32(g.NumVertices()) {
		for _, w := range g.Neighbors(v) {
			if of[v] == of[w] {
				continue
			}
			for k := range ip.programs {
				s.use(&ip.programs[k])
				if s.place(0, v, -1) && s.place(1, w, -1) {
					n++
				}
			}
		}
	}
	return n
}

// TestSeedsFromRuns checks that rooting the inter stage at vertices, with the neighbours taken
// from the prime edge's label run (or every neighbour for wildcards), makes exactly the seeds
// that every cut edge in both orientations makes, on proptest's labelled cases (edge labels and
// wildcards included) cut into parts of about a fifth of the graph.
func TestSeedsFromRuns(t *testing.T) {
	seeds, _ := proptest.Seeds(t, 400, 120)
	ran, labelled := 0, 0
	for _, seed := range seeds {
		c := proptest.Make(seed)
		p := &engine.Problem{Data: c.G, Pattern: c.P}
		if c.P.NumEdges() == 0 || !connected(p) {
			continue
		}
		budget := max(partition.GraphBytes(c.G)/5, 64)
		pt, err := partition.Partition(context.Background(), c.G, partition.Options{Budget: budget, Method: partition.Grow})
		if err != nil || len(pt.Parts) < 2 {
			continue
		}
		for _, sem := range proptest.AllSemantics {
			p.Semantics = sem
			for k := range 4 {
				orbits, shared := k&1 != 0, k&2 != 0
				ip, err := interPlanFor(context.Background(), p, orbits, shared)
				if err != nil {
					t.Fatal(err)
				}
				// The seeds only: every program cut after its prime edge's ends (their checks
				// reference positions 0 and 1 alone), so that a seed is a match.
				for k := range ip.programs {
					ip.programs[k].steps = ip.programs[k].steps[:2]
				}
				want := referenceSeeds(c.G, pt.Of, ip)
				for _, threads := range []int{1, 3} {
					got, _ := runInter(context.Background(), c.G, pt.Of, entryBytes(c.G), ip, threads, nil)
					if got.seeds != want || got.matches != want {
						t.Fatalf("seed %d %v orbits %v shared %v, %d threads: %d seeds, want %d\n%s", seed, sem, orbits, shared, threads, got.seeds, want, c.Recipe)
					}
				}
				ran++
				if !ip.programs[0].steps[1].label.Any {
					labelled++
				}
			}
		}
	}
	if ran == 0 || labelled == 0 {
		t.Fatalf("%d cases ran, %d with a labelled second vertex", ran, labelled)
	}
}

// TestSharedPrograms: shared execution runs one program per orbit of Aut(p) on the edges
// (the unshared plan one per edge), each match standing for |Aut(p)| embeddings of a count; an
// asymmetric pattern gets the unshared plan.
func TestSharedPrograms(t *testing.T) {
	for _, c := range []struct {
		src            string
		programs, mult int
	}{
		{"(a)-(b)-(c)-(a)", 1, 6}, {"(a)-(b)-(c)-(d)-(a)-(c), (b)-(d)", 1, 24}, {"(a)-(b)-(c)-(d)-(a)", 1, 8},
		{"(c)-(x), (c)-(y), (c)-(z)", 1, 6}, {"(a)-(b)-(c)-(d)-(a)-(c)", 2, 4}, {"(a:1)-(b)-(c:1)-(d)-(a)", 1, 4},
		{"(a:1)-(b:2)-(c:3)-(a)", 3, 1}, {"(a)-[:1]-(b)-(c)-(a)", 2, 2},
	} {
		p, err := pattern.Parse(c.src)
		if err != nil {
			t.Fatal(err)
		}
		sh, _ := newInterPlan(context.Background(), p, false, false, true, true, nil)
		un, _ := newInterPlan(context.Background(), p, false, false, true, false, nil)
		if len(sh.programs) != c.programs || sh.mult != uint64(c.mult) || len(un.programs) != p.NumEdges() {
			t.Errorf("%s: %d shared programs (mult %d), %d unshared; want %d (mult %d), %d", c.src,
				len(sh.programs), sh.mult, len(un.programs), c.programs, c.mult, p.NumEdges())
		}
		// A trivial group takes the unshared plan: nothing to remap.
		if l, _ := newInterPlan(context.Background(), p, false, false, false, true, nil); len(l.remap) != c.mult && (c.mult > 1 || l.remap != nil) {
			t.Errorf("%s: a listing remaps through %d automorphisms, want %d", c.src, len(l.remap), c.mult)
		}
	}
}

// TestInterPlanStops: a listing's shared plan enumerates Aut(p) (plan.AutomorphismGroupContext),
// a count's plan searches for its symmetry (the group's restrictions, its orbits on the edges,
// their stabilisers' restrictions: plan's ...Context searches); a context that ends before or
// during them stops the planning with its error, and one that lasts gives the plan of a live
// context (the 3-cube: 48 automorphisms; shared and unshared counts, unique or embeddings).
func TestInterPlanStops(t *testing.T) {
	p, err := pattern.Parse("(a)-(b)-(c)-(d)-(a), (e)-(f)-(g)-(h)-(e), (a)-(e), (b)-(f), (c)-(g), (d)-(h)")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ unique, orbits, shared bool }{{false, false, true}, {false, true, true}, {true, true, true}, {false, true, false}, {true, true, false}} {
		want, err := newInterPlan(context.Background(), p, false, c.unique, c.orbits, c.shared, nil)
		if err != nil || !c.orbits && len(want.remap) != 48 {
			t.Fatalf("%+v live: %d automorphisms, error %v", c, len(want.remap), err)
		}
		if n := ctxtest.UntilLasting(t, 1<<20, func(ctx context.Context) error {
			ip, err := newInterPlan(ctx, p, false, c.unique, c.orbits, c.shared, nil)
			if err == nil && !reflect.DeepEqual(ip, want) {
				t.Errorf("%+v: %d automorphisms, %d programs, mult %d; want %d, %d, %d", c, len(ip.remap), len(ip.programs), ip.mult, len(want.remap), len(want.programs), want.mult)
			}
			return err
		}); n < 2 {
			t.Errorf("%+v: the planning looked at its context %d times", c, n)
		}
	}
}

// programOracle counts, by brute force, the matches of p in g (induced or not) that the program
// of order and restr must find: every restriction holds, the prime pattern edge (order[0],
// order[1]) maps onto a cut edge, and no pattern edge maps onto a cut edge of smaller key.
func programOracle(g *graph.Graph, of []uint32, p *pattern.Pattern, order []int, induced bool, restr []plan.Restriction) uint64 {
	n := p.NumVertices()
	m := make([]uint32, n)
	used := map[uint32]bool{}
	var count uint64
	var rec func(k int)
	rec = func(k int) {
		if k == n {
			for _, r := range restr {
				if m[r.Less] >= m[r.Greater] {
					return
				}
			}
			a, b := m[order[0]], m[order[1]]
			if of[a] == of[b] {
				return
			}
			for _, e := range p.Edges() {
				if x, y := m[e.U], m[e.V]; of[x] != of[y] && edgeKey(x, y) < edgeKey(a, b) {
					return
				}
			}
			count++
			return
		}
		u := order[k]
		for v := range uint32(g.NumVertices()) {
			if used[v] {
				continue
			}
			ok := true
			for _, w := range order[:k] {
				_, adj := g.HasEdge(v, m[w])
				if pa := p.Adjacent(u, w); pa && !adj || induced && !pa && adj {
					ok = false
					break
				}
			}
			if ok {
				m[u], used[v] = v, true
				rec(k + 1)
				used[v] = false
			}
		}
	}
	rec(0)
	return count
}

// TestProgramsAgainstOracle runs single programs with restrictions drawn at random (consistent
// with a random order of the pattern's vertices, not the pattern's symmetry: windows that do
// not nest from one step to the next, which a step reusing an earlier step's candidates must
// notice) on small unlabelled R-MAT graphs cut into parts, counted on 1 and 3 threads and
// listed, against programOracle. Plain graphs take the host search's every shortcut: the root's
// marked list, reused and marked candidates, the forward index, the count past DUPREMOVE's bound.
func TestProgramsAgainstOracle(t *testing.T) {
	queries := []string{
		"(a)-(b)-(c)-(a)", "(a)-(b)-(c)-(d)-(a), (a)-(c), (b)-(d)", "(a)-(b)-(c)-(d)-(a), (a)-(c)",
		"(a)-(b)-(c)-(d)-(a)", "(a)-(b)-(c)-(d)-(e)-(a), (a)-(c), (a)-(d), (b)-(d), (b)-(e), (c)-(e)",
		"(a)-(b)-(c)-(d)-(e)-(a), (a)-(c), (a)-(d)",
	}
	rng := rand.New(rand.NewPCG(5, 9))
	checked := 0
	for _, scale := range []int{5, 6} {
		g, err := gen.RMAT(gen.RMATOptions{Scale: scale, EdgeFactor: 6, Seed: uint64(scale)})
		if err != nil {
			t.Fatal(err)
		}
		pt, err := partition.Partition(context.Background(), g, partition.Options{Budget: max(partition.GraphBytes(g)/4, 64), Method: partition.Ranges})
		if err != nil || len(pt.Parts) < 2 {
			t.Fatalf("%d parts, error %v", len(pt.Parts), err)
		}
		for _, q := range queries {
			p, err := pattern.Parse(q)
			if err != nil {
				t.Fatal(err)
			}
			for trial := range 6 {
				order, restr := randomProgram(rng, p)
				induced := trial%3 == 2
				want := programOracle(g, pt.Of, p, order, induced, restr)
				ip := &interPlan{mult: 1, programs: []program{makeProgram(p, order, induced, restr)}}
				for _, threads := range []int{1, 3} {
					got, _ := runInter(context.Background(), g, pt.Of, entryBytes(g), ip, threads, nil)
					if got.matches != want {
						t.Fatalf("scale %d %s order %v induced %v restrictions %v, %d threads: %d matches, oracle %d", scale, q, order, induced, restr, threads, got.matches, want)
					}
				}
				var listed uint64
				runInter(context.Background(), g, pt.Of, entryBytes(g), ip, 1, func([]uint32) bool { listed++; return true })
				if listed != want {
					t.Fatalf("scale %d %s order %v induced %v restrictions %v: %d listed, oracle %d", scale, q, order, induced, restr, listed, want)
				}
				if want > 0 {
					checked++
				}
			}
		}
	}
	if checked < 20 {
		t.Fatalf("only %d programs found matches: the oracle checks little", checked)
	}
}

// randomProgram draws a search order from a random prime edge and symmetry restrictions
// consistent with a random order of p's vertices (not p's symmetry: windows that need not nest
// from one step to the next), each pair restricted with probability 1/3.
func randomProgram(r *rand.Rand, p *pattern.Pattern) ([]int, []plan.Restriction) {
	n := p.NumVertices()
	e := p.Edges()[r.IntN(p.NumEdges())]
	order := searchOrder(p, []int{e.U, e.V}, make([]int, n), true)
	rank := r.Perm(n)
	var restr []plan.Restriction
	for a := range n {
		for b := range n {
			if rank[a] < rank[b] && r.IntN(3) == 0 {
				restr = append(restr, plan.Restriction{Less: a, Greater: b})
			}
		}
	}
	return order, restr
}
