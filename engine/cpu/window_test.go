package cpu

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/internal/oracle"
	"github.com/submatch/submatch/internal/proptest"
	"github.com/submatch/submatch/pattern"
	"github.com/submatch/submatch/plan"
)

// windowedPlan builds the plan that breaks all symmetry with its counted vertices in windows
// (plan.SymmetryBreak with GroupWindows, as symmetryBroken builds it) in the given order, with or
// without a candidate space.
func windowedPlan(t *testing.T, g *graph.Graph, p *pattern.Pattern, order []int, space bool) *plan.Plan {
	t.Helper()
	opts, err := PlanOptions(&engine.Problem{Data: g, Pattern: p}, false)
	if err != nil {
		t.Fatal(err)
	}
	opts.Symmetry, opts.GroupWindows, opts.Order = plan.SymmetryBreak, true, order
	if !space {
		opts.SpaceLimit = -1
	}
	pl, err := plan.BuildContext(context.Background(), g, p, opts)
	if err != nil {
		t.Fatal(err)
	}
	return pl
}

// inGroupSet is the definition of x's membership in the set of group lg made from its parents
// first: x takes the group's vertex label, is a candidate where the lists are the candidate
// space's, is joined to each of those parents' data vertices by an edge of the parent's label,
// and lies strictly above every Lower level's and below every Upper level's data vertex.
func inGroupSet(g *graph.Graph, pl *plan.Plan, lg *plan.LeafGroup, first []int, x uint32, m []uint32) bool {
	if !lg.VertexLabel.Matches(g.VertexLabel(x)) || (pl.Space != nil && !pl.CandidateBits[lg.Vertices[0]].Has(x)) {
		return false
	}
	for _, k := range first {
		pe := lg.Parents[k]
		if pe.EdgeLabel.Any {
			if _, ok := g.HasEdge(m[pe.Level], x); !ok {
				return false
			}
		} else if !g.HasEdgeLabelled(m[pe.Level], x, pe.EdgeLabel.Value) {
			return false
		}
	}
	return inWindow(x, m, lg.Lower, lg.Upper)
}

// inWindow reports whether x lies strictly above the data vertex of every level in lower and
// strictly below that of every level in upper (a symmetry window, by its definition).
func inWindow(x uint32, m []uint32, lower, upper []int) bool {
	for _, j := range lower {
		if x <= m[j] {
			return false
		}
	}
	for _, j := range upper {
		if x >= m[j] {
			return false
		}
	}
	return true
}

// TestChainPrefixWindow checks the one place where a postponed group's symmetry window meets its
// set (chainPrefix, which the leaf counter, countByRow and the pair sum count from) against the
// definition (inGroupSet): on plans that break all symmetry with group windows, in random
// orders, with and without a candidate space and hub rows, for random assignments of the levels
// (each level a candidate of its vertex), every prefix of every parented group's chain is
// exactly its parents' common neighbours in the window.
func TestChainPrefixWindow(t *testing.T) {
	defer EveryVertexAHub(true)()
	seeds, _ := proptest.Seeds(t, 200, 40)
	if !slices.Contains(seeds, 2) {
		seeds = append(seeds, 2) // windowed groups with non-empty sets, for the shortest sweeps (-race)
	}
	compared, windowed := 0, 0
	for _, seed := range seeds {
		r := rand.New(rand.NewPCG(seed, 31))
		vl, el := 1+r.IntN(2), 1+r.IntN(2)
		g := tieGraph(r, vl, el)
		shape := tieShapes[r.IntN(len(tieShapes))]
		p, src := tiePattern(r, shape.edges, shape.n, vl, el)
		for _, space := range []bool{false, true} {
			pl := windowedPlan(t, g, p, r.Perm(p.NumVertices()), space)
			if pl.Empty {
				continue
			}
			lc := newLC(g, pl)
			hubs := r.IntN(2) == 0
			if hubs {
				lc.hubs = buildHubRows(g, 1<<20).view()
			}
			m := make([]uint32, len(pl.Levels))
			mi := make([]int, len(pl.Levels))
			for range 50 {
				for j, l := range pl.Levels {
					cands := pl.Candidates[l.Vertex]
					mi[j] = r.IntN(len(cands))
					m[j] = cands[mi[j]]
				}
				for gi := range pl.Groups {
					lg := &pl.Groups[gi]
					order := lc.chains[gi].order
					for n := 1; n <= len(order); n++ {
						got := lc.chainPrefix(gi, n, m, mi)
						var want []uint32
						for x := range uint32(g.NumVertices()) {
							if inGroupSet(g, pl, lg, order[:n], x, m) {
								want = append(want, x)
							}
						}
						if !slices.Equal(got, want) {
							t.Fatalf("seed %d, pattern %s, space %v, hub rows %v, m %v: group %d's prefix %d is %v, want %v\n%s",
								seed, src, space, hubs, m, gi, n, got, want, pl.Describe())
						}
						compared++
						if lg.Bounded() && len(want) > 0 {
							windowed++
						}
					}
				}
			}
		}
	}
	t.Logf("%d prefixes compared, %d non-empty in a window", compared, windowed)
	if windowed == 0 {
		t.Error("no windowed group had a non-empty prefix: the test checks nothing")
	}
}

// windowShortcut is one counting shortcut of the engine as TestWindowedShortcuts sees it:
// whether it applies to a plan (on a worker with hub rows when rows), and whether what it counts
// then has a window. honours says whether it may count windowed vertices (narrowing to their
// window through plan.Window) or must refuse them.
type windowShortcut struct {
	name    string
	honours bool
	applies func(g *graph.Graph, pl *plan.Plan, lc *leafCounter) (taken, windowed bool)
}

// windowShortcuts lists the shortcuts of the CPU engine that count postponed vertices or the last
// levels otherwise than level by level. A new shortcut belongs here.
var windowShortcuts = []windowShortcut{
	{"pair sum", true, func(g *graph.Graph, pl *plan.Plan, _ *leafCounter) (bool, bool) {
		ps := pairSumFor(g, pl)
		return ps != nil, ps != nil && ps.win.Bounded()
	}},
	{"countByRow", true, func(_ *graph.Graph, pl *plan.Plan, lc *leafCounter) (bool, bool) {
		if len(pl.Classes) != 1 || len(pl.Classes[0].Groups) != 1 {
			return false, false
		}
		gi := pl.Classes[0].Groups[0]
		taken := len(pl.Groups[gi].Parents) > 1 && !lc.memoised[gi]
		return taken, taken && pl.Groups[gi].Bounded()
	}},
	{"class size cache", false, func(_ *graph.Graph, pl *plan.Plan, lc *leafCounter) (taken, windowed bool) {
		for gi, memo := range lc.memoised {
			taken = taken || memo
			windowed = windowed || (memo && pl.Groups[gi].Bounded())
		}
		return taken, windowed
	}},
	{"last sum", false, func(g *graph.Graph, pl *plan.Plan, lc *leafCounter) (bool, bool) {
		ls := lastSumFor(g, pl, lc)
		if ls == nil {
			return false, false
		}
		windowed := pl.Levels[ls.level].Bounded()
		for _, lg := range pl.Groups {
			windowed = windowed || lg.Bounded()
		}
		return true, windowed
	}},
	{"edge supports", false, func(g *graph.Graph, pl *plan.Plan, _ *leafCounter) (bool, bool) {
		sp := supportShape(g, pl)
		if sp == nil {
			return false, false
		}
		windowed := false
		for _, lg := range pl.Groups {
			windowed = windowed || lg.Bounded()
		}
		return true, windowed
	}},
}

// TestWindowedShortcuts counts plans that break all symmetry with group windows (in random
// orders, with and without hub rows for every vertex, the candidate space and the pair sum) and
// compares with the oracle, and checks every counting shortcut against such plans: those that
// honour windows (the pair sum, countByRow) must have counted windowed vertices in the sweep,
// and those that cannot (the size cache, the last sum, edge supports) must never apply to one.
// Both past miscounts of windows (the pair sum's, dense seed 11 in TestPairSumGroupWindow, and
// countByRow's, K2,3 in TestOracleOrderTies) were shortcuts counting a windowed set without its
// window.
func TestWindowedShortcuts(t *testing.T) {
	seeds, _ := proptest.Seeds(t, 150, 12)
	if !slices.Contains(seeds, 2) {
		seeds = append(seeds, 2) // both shortcuts count windowed vertices, for the shortest sweeps (-race)
	}
	ctx := context.Background()
	taken := make([]int, len(windowShortcuts))
	windowed := make([]int, len(windowShortcuts))
	for _, seed := range seeds {
		r := rand.New(rand.NewPCG(seed, 37))
		vl, el := 1+r.IntN(2), 1+r.IntN(2)
		g := tieGraph(r, vl, el)
		for _, shape := range tieShapes {
			p, src := tiePattern(r, shape.edges, shape.n, vl, el)
			want, ok := oracle.CountWithin(g, p, engine.Semantics{}, proptest.DenseOracleBudget)
			if !ok {
				continue
			}
			for range 3 { // one oracle count, several plans and settings
				space, hubs, pairs := r.IntN(2) == 0, r.IntN(3) > 0, r.IntN(3) > 0
				pl := windowedPlan(t, g, p, r.Perm(p.NumVertices()), space)
				if pl.Empty {
					continue
				}
				restore, restorePairs := EveryVertexAHub(hubs), PairSum(pairs)
				lc := newLC(g, pl)
				for k, s := range windowShortcuts {
					if s.name == "countByRow" && !hubs {
						continue // it reads hub rows
					}
					tk, win := s.applies(g, pl, lc)
					if tk {
						taken[k]++
					}
					if win {
						windowed[k]++
						if !s.honours {
							t.Errorf("seed %d, pattern %s: %s applies to a windowed plan\n%s", seed, src, s.name, pl.Describe())
						}
					}
				}
				prob := &engine.Problem{Data: g, Pattern: p, Threads: 1}
				res, err := searchPlan(ctx, prob, pl, 0, nil)
				restorePairs()
				restore()
				if err != nil || res.Count != want {
					t.Fatalf("seed %d, pattern %s, space %v, hub rows %v, pair sum %v: count %d (err %v), oracle %d\n%s",
						seed, src, space, hubs, pairs, res.Count, err, want, pl.Describe())
				}
			}
		}
	}
	for k, s := range windowShortcuts {
		t.Logf("%s: %d plans, %d with a window", s.name, taken[k], windowed[k])
		if s.honours && windowed[k] == 0 {
			t.Errorf("%s never counted a windowed vertex: the test checks nothing of it", s.name)
		}
	}
}

// TestPairSumWindowOnPair: the pair sum counts its postponed vertex (or last level) e for every
// data vertex of the pair of levels above it at once, so a window of e against one of the pair
// cannot be applied and the sum must not be taken (plan.Window.BoundedFrom). No plan of the
// sweeps has such a window, so the plans where the sum applies are given one.
func TestPairSumWindowOnPair(t *testing.T) {
	checked := 0
	for seed := range uint64(20) {
		r := rand.New(rand.NewPCG(seed, 41))
		vl, el := 1+r.IntN(2), 1+r.IntN(2)
		g := tieGraph(r, vl, el)
		for _, shape := range tieShapes {
			p, src := tiePattern(r, shape.edges, shape.n, vl, el)
			pl := windowedPlan(t, g, p, r.Perm(p.NumVertices()), true)
			ps := pairSumFor(g, pl)
			if ps == nil {
				continue
			}
			for _, level := range []int{ps.level, ps.level + 1} {
				bounded := *pl
				bounded.Levels, bounded.Groups = slices.Clone(pl.Levels), slices.Clone(pl.Groups)
				win := &bounded.Levels[len(pl.Levels)-1].Window
				if ps.eg >= 0 {
					win = &bounded.Groups[ps.eg].Window
				}
				win.Upper = append(slices.Clone(win.Upper), level)
				if pairSumFor(g, &bounded) != nil {
					t.Fatalf("seed %d, pattern %s: the pair sum applies with e below level %d\n%s", seed, src, level, pl.Describe())
				}
				checked++
			}
		}
	}
	if checked == 0 {
		t.Error("the pair sum applied to no plan: the test checks nothing")
	}
}
