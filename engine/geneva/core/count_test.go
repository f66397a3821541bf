package core

import (
	"context"
	"fmt"
	"math"
	"math/big"
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/pattern"
	"github.com/submatch/submatch/plan"
)

// regionCount is the oracle for a class: the number of injective assignments of vertices whose
// candidate sets are setOf[i] (indices into the class's sets), given the Venn regions of the
// sets (h[mask]: elements in exactly the sets of mask, row vertices already removed); ordered
// counts only increasing assignments of identical-set vertices. It enumerates which region each
// vertex takes and multiplies the falling factorials of the regions' sizes, in big integers.
func regionCount(setOf []int, h []uint64) *big.Int {
	k := len(setOf)
	total := new(big.Int)
	region := make([]int, k)
	var rec func(i int)
	rec = func(i int) {
		if i == k {
			used := map[int]int{}
			for _, r := range region {
				used[r]++
			}
			ways := big.NewInt(1)
			for r, n := range used {
				for j := range n {
					if h[r] < uint64(j) {
						return
					}
					ways.Mul(ways, new(big.Int).SetUint64(h[r]-uint64(j)))
				}
			}
			total.Add(total, ways)
			return
		}
		for r := 1; r < len(h); r++ {
			if r&(1<<setOf[i]) != 0 && h[r] > 0 {
				region[i] = r
				rec(i + 1)
			}
		}
	}
	rec(0)
	return total
}

// sizes returns x[B], the size of the intersection of the sets in B, from the Venn regions.
func sizes(h []uint64) []uint64 {
	x := make([]uint64, len(h))
	for b := 1; b < len(h); b++ {
		for m := b; m < len(h); m++ {
			if m&b == b {
				x[b] += h[m]
			}
		}
	}
	return x
}

// classFor builds the class a CountedClass of vertices with candidate sets setOf lowers to.
func classFor(setOf []int, ordered bool) *CountClass {
	m := slices.Max(setOf) + 1
	c := &CountClass{K: len(setOf), Sets: make([]CountSet, m)}
	switch {
	case m == 1 && ordered:
		c.Kind = CountChoose
	case m == 1:
		c.Kind = CountFalling
	default:
		c.Kind = CountTerms
		c.Terms = partitionTerms(setOf)
	}
	return c
}

// check compares ClassValue with the oracle, overflow included.
func checkClass(t *testing.T, setOf []int, ordered bool, h []uint64) {
	t.Helper()
	want := regionCount(setOf, h)
	if ordered { // one set: the k! orders of each assignment collapse to one
		fact := big.NewInt(1)
		for i := 2; i <= len(setOf); i++ {
			fact.Mul(fact, big.NewInt(int64(i)))
		}
		want.Quo(want, fact)
	}
	got, ok := classFor(setOf, ordered).ClassValue(sizes(h))
	fits := want.IsUint64()
	if ok != fits || ok && got != want.Uint64() {
		t.Fatalf("sets %v ordered %v regions %v: got %d (fits %v), want %s", setOf, ordered, h, got, ok, want)
	}
	if !ok && want.Sign() == 0 {
		t.Fatalf("sets %v regions %v: overflow reported for zero", setOf, h)
	}
}

// TestClassValueSmall checks every assignment of up to four vertices to up to four sets (as
// restricted growth strings) against the region oracle on random small Venn diagrams, and
// against direct enumeration of assignments over explicit sets.
func TestClassValueSmall(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var shapes [][]int
	var grow func(cur []int, maxSet int)
	grow = func(cur []int, maxSet int) {
		if len(cur) > 0 {
			shapes = append(shapes, slices.Clone(cur))
		}
		if len(cur) == MaxCountClassVertices {
			return
		}
		for s := 0; s <= maxSet+1 && s < 4; s++ {
			grow(append(cur, s), max(maxSet, s))
		}
	}
	grow(nil, -1)
	for _, setOf := range shapes {
		m := slices.Max(setOf) + 1
		for trial := range 60 {
			h := make([]uint64, 1<<m)
			for i := 1; i < len(h); i++ {
				if r.IntN(3) > 0 {
					h[i] = uint64(r.IntN(4 + trial/10))
				}
			}
			checkClass(t, setOf, false, h)
			if m == 1 {
				checkClass(t, setOf, true, h)
			}
		}
		// Explicit sets over a universe of 8, the row taking some elements out: enumerate.
		for range 30 {
			sets := make([]uint32, m)
			for j := range sets {
				sets[j] = r.Uint32() & 0xff
			}
			row := r.Uint32() & 0xff & uint32(r.IntN(256))
			var count uint64
			var rec func(i int, used uint32)
			rec = func(i int, used uint32) {
				if i == len(setOf) {
					count++
					return
				}
				for e := range 8 {
					bit := uint32(1) << e
					if sets[setOf[i]]&bit != 0 && row&bit == 0 && used&bit == 0 {
						rec(i+1, used|bit)
					}
				}
			}
			rec(0, 0)
			x := make([]uint64, 1<<m)
			for b := 1; b < len(x); b++ {
				in := uint32(0xff) &^ row
				for j := range m {
					if b&(1<<j) != 0 {
						in &= sets[j]
					}
				}
				x[b] = uint64(bits.OnesCount32(in))
			}
			got, ok := classFor(setOf, false).ClassValue(x)
			if !ok || got != count {
				t.Fatalf("sets %v of %08b, row %08b: got %d (%v), want %d", setOf, sets, row, got, ok, count)
			}
		}
	}
	t.Logf("%d class shapes", len(shapes))
}

// TestClassValueLarge checks the 64-bit boundary: sizes up to 2^32-1 (the largest a data
// vertex's row can have), counts near 2^64, overflow reported exactly when the count does not
// fit, never for a zero count.
func TestClassValueLarge(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	big32 := []uint64{0, 1, 3, 1 << 16, 1<<16 + 1, 1 << 21, 1<<21 + 7, 2642245, 2642246, 4294967295, 4294967294, 65535, 65536, 1 << 31}
	for _, setOf := range [][]int{{0}, {0, 0}, {0, 0, 0}, {0, 0, 0, 0}, {0, 1}, {0, 1, 1}, {0, 0, 1, 1}, {0, 1, 2, 3}, {0, 1, 2}, {0, 0, 1, 2}} {
		m := slices.Max(setOf) + 1
		for range 400 {
			h := make([]uint64, 1<<m)
			for i := 1; i < len(h); i++ {
				switch r.IntN(4) {
				case 0:
				case 1:
					h[i] = uint64(r.IntN(5))
				default:
					h[i] = big32[r.IntN(len(big32))]
				}
			}
			// Keep each set's size below 2^32 (a row is shorter).
			x := sizes(h)
			tooBig := false
			for j := range m {
				tooBig = tooBig || x[1<<j] > math.MaxUint32
			}
			if tooBig {
				continue
			}
			checkClass(t, setOf, false, h)
			if m == 1 {
				checkClass(t, setOf, true, h)
			}
		}
	}
}

// TestPartitionTerms pins the polynomials of small classes.
func TestPartitionTerms(t *testing.T) {
	for _, c := range []struct {
		setOf []int
		want  string
	}{
		{[]int{0}, "[{1 [1]}]"},
		{[]int{0, 0}, "[{-1 [1]} {1 [1 1]}]"},                // n^2 - n
		{[]int{0, 1}, "[{-1 [3]} {1 [1 2]}]"},                // |A||B| - |A∩B|
		{[]int{0, 0, 0}, "[{2 [1]} {-3 [1 1]} {1 [1 1 1]}]"}, // n^3 - 3n^2 + 2n
		{[]int{0, 1, 2}, "[{2 [7]} {-1 [3 4]} {-1 [2 5]} {-1 [1 6]} {1 [1 2 4]}]"},
	} {
		if got := fmt.Sprint(partitionTerms(c.setOf)); got != c.want {
			t.Errorf("terms of %v: %s, want %s", c.setOf, got, c.want)
		}
	}
	// Bell(4) partitions, none merged, for four distinct sets.
	if n := len(partitionTerms([]int{0, 1, 2, 3})); n != 15 {
		t.Errorf("four distinct sets: %d terms, want 15", n)
	}
}

// checkCountingPlan checks a plan with counted vertices: the phases plan exactly the other
// vertices and the edges among them (as checkPlan would on the query without the counted
// vertices), no two counted vertices are adjacent, each has neighbours, all of them planned;
// classes never share a possible label, a set's vertices share neighbours and labels, the
// bounds hold, and every restriction that involves a counted vertex orders one ordered set.
func checkCountingPlan(t *testing.T, q *pattern.Pattern, pl *Plan, unique bool) {
	t.Helper()
	var counted uint32
	setOf := map[int][2]int{}
	for ci, c := range pl.Counted {
		vertices := 0
		for si, s := range c.Sets {
			for _, u := range s {
				if counted&(1<<u) != 0 {
					t.Fatalf("vertex %d counted twice", u)
				}
				counted |= 1 << u
				setOf[u] = [2]int{ci, si}
				if plan.LeafKeyOf(q, u) != plan.LeafKeyOf(q, s[0]) {
					t.Fatalf("set %v mixes candidate sets", s)
				}
				vertices++
			}
		}
		if len(c.Sets) > 1 && (vertices > MaxCountClassVertices || c.Ordered) {
			t.Fatalf("class %v: %d vertices over %d sets, ordered %v", c.Sets, vertices, len(c.Sets), c.Ordered)
		}
	}
	for u, a := range setOf {
		if q.Degree(u) == 0 || q.NeighborMask(u)&counted != 0 {
			t.Fatalf("counted vertex %d: degree %d, counted neighbours %b", u, q.Degree(u), q.NeighborMask(u)&counted)
		}
		for w, b := range setOf {
			if a[0] != b[0] && plan.LabelsMayCollide(q.VertexLabel(u), q.VertexLabel(w)) {
				t.Fatalf("counted %d and %d may collide but are in classes %d and %d", u, w, a[0], b[0])
			}
		}
	}
	var matched uint32
	for _, u := range pl.Order {
		matched |= 1 << u
	}
	all := uint32(1)<<q.NumVertices() - 1
	if matched&counted != 0 || matched|counted != all {
		t.Fatalf("order %v and counted %b do not partition the vertices", pl.Order, counted)
	}
	edges := 0
	for _, ph := range pl.Phases {
		for _, e := range ph.Edges {
			if counted&(1<<e.U|1<<e.V) != 0 {
				t.Fatalf("phase edge %d-%d touches a counted vertex", e.U, e.V)
			}
			edges++
		}
	}
	for _, e := range q.Edges() {
		if counted&(1<<e.U|1<<e.V) == 0 {
			edges--
		}
	}
	if edges != 0 {
		t.Fatalf("phases cover %d edges more than the matched vertices have", edges)
	}
	if !unique {
		return
	}
	for _, r := range pl.Restrictions {
		a, oka := setOf[r.Less]
		b, okb := setOf[r.Greater]
		if (oka || okb) && (a != b || !pl.Counted[a[0]].Ordered) {
			t.Fatalf("restriction %v ties counted vertices outside an ordered set", r)
		}
	}
	for _, c := range pl.Counted {
		if c.Ordered && !totalOrder(c.Sets[0], pl.Restrictions) {
			t.Fatalf("ordered set %v not totally ordered by %v", c.Sets[0], pl.Restrictions)
		}
	}
}

// TestPlanCountingExamples pins what small queries count.
func TestPlanCountingExamples(t *testing.T) {
	for _, c := range []struct {
		name, q string
		unique  bool
		want    string // counted classes: sets of vertices, "o" for ordered
	}{
		{"edge", "(a)-(b)", false, "[[1]]"},
		{"star", "(c)-(a), (c)-(b), (c)-(d), (c)-(e)", false, "[[1 2 3 4]]"},
		{"star-unique", "(c)-(a), (c)-(b), (c)-(d), (c)-(e)", true, "[o[1 2 3 4]]"},
		// The wildcard joins every label: one class of three sets.
		{"star-labels", "(c)-(a:1), (c)-(b:1), (c)-(d:2), (c)-(e:*)", false, "[[1 2][3][4]]"},
		// The corner with the tail has a later neighbour: only the tail is counted.
		{"tailed-triangle", "(a)-(b)-(c)-(a), (c)-(x)", false, "[[3]]"},
		{"triangle", "(a)-(b)-(c)-(a)", false, "[[2]]"},
		{"triangle-unique", "(a)-(b)-(c)-(a)", true, "[]"},
		// b and d come from a, c closes the cycle.
		{"square", "(a)-(b)-(c)-(d)-(a)", false, "[[2]]"},
		// Two leaves of one label on different vertices: one class of two sets.
		{"diamond-leaves", "(a)-(b)-(c)-(a), (b)-(d)-(c), (a)-(x:3), (d)-(y:3)", false, "[[4][5]]"},
		{"isolated", "(a)-(b), (c)", false, "[[1]]"},
		// Seven leaves of one label on two centres: one class of two sets beyond four vertices
		// keeps the four-vertex set and one of the others.
		{"two-stars", "(a)-(b), (a)-(x1:1), (a)-(x2:1), (a)-(x3:1), (a)-(x4:1), (b)-(y1:1), (b)-(y2:1), (b)-(y3:1)", false, "[[2 3 4 5]]"},
		// Five leaves of one label on a and one on b: the five are one set, counted alone.
		{"star-and-leaf", "(a)-(b), (a)-(x1:1), (a)-(x2:1), (a)-(x3:1), (a)-(x4:1), (a)-(x5:1), (b)-(y:1)", false, "[[2 3 4 5 6]]"},
		// Three leaves of one label on a and one on b: one class of two sets, four vertices.
		{"leaves-two-sets", "(a)-(b), (a)-(x1:1), (a)-(x2:1), (a)-(x3:1), (b)-(y:1)", false, "[[2 3 4][5]]"},
	} {
		t.Run(c.name, func(t *testing.T) {
			q := mustParse(t, c.q)
			pl := PlanCounting(q, nil, c.unique)
			checkCountingPlan(t, q, pl, c.unique)
			var parts []string
			for _, cc := range pl.Counted {
				s := ""
				if cc.Ordered {
					s = "o"
				}
				for _, set := range cc.Sets {
					s += fmt.Sprint(set)
				}
				parts = append(parts, s)
			}
			if got := fmt.Sprint(parts); got != c.want {
				t.Errorf("counted %s, want %s (order %v)", got, c.want, pl.Order)
			}
		})
	}
}

// TestPlanCountingProperties checks the invariants on random queries, estimated and not, both
// conventions.
func TestPlanCountingProperties(t *testing.T) {
	counted, classes := 0, 0
	for seed := uint64(0); seed < 400; seed++ {
		n := 1 + int(seed%14)
		q := gen.RandomPattern(seed, n, gen.PatternOptions{
			Components:   1 + int(seed%7)/5,
			EdgeProb:     []float64{0, 0.1, 0.3, 0.6}[seed%4],
			VertexLabels: 1 + int(seed%3),
			EdgeLabels:   1 + int(seed/3%3),
			Wildcard:     []float64{0, 0.2}[seed/5%2],
		})
		for _, unique := range []bool{false, true} {
			pl := PlanCounting(q, nil, unique)
			checkCountingPlan(t, q, pl, unique)
			for _, c := range pl.Counted {
				classes++
				for _, s := range c.Sets {
					counted += len(s)
				}
			}
		}
	}
	t.Logf("%d vertices counted in %d classes", counted, classes)
	if counted < 300 {
		t.Errorf("only %d vertices counted", counted)
	}
}

// TestCountRow checks the host's per-row count against brute force: every row of the table the
// counting step reads (listed by running the program without it) gets the number of ways to
// place the counted vertices on data vertices with their labels, adjacent to their neighbours'
// data vertices by edges of the right labels, distinct from each other and from the row, and, for
// unique counts, in the order of the restrictions.
func TestCountRow(t *testing.T) {
	rows, nonzero := 0, 0
	for seed := uint64(1); seed <= 60; seed++ {
		vl, el := 1+int(seed%3), 1+int(seed%2)
		g := gen.RandomGraph(seed, 24+int(seed%12), []float64{0.2, 0.35, 0.5}[seed%3], vl, el)
		q := gen.RandomPattern(seed*7, 3+int(seed%5), gen.PatternOptions{
			EdgeProb: 0.3, VertexLabels: vl, EdgeLabels: el, Wildcard: []float64{0, 0.3}[seed%2], Components: 1,
		})
		pc, err := Build(g)
		if err != nil {
			t.Fatal(err)
		}
		for _, unique := range []bool{false, true} {
			job, err := Prepare(context.Background(), g, pc, q, CompileOptions{Unique: unique, Fuse: seed%2 == 0, CountTail: true})
			if err != nil {
				t.Fatal(err)
			}
			steps := job.Program.Steps
			if job.Program.Empty || steps[len(steps)-1].Kind != Counting {
				continue
			}
			last := &steps[len(steps)-1]
			head := &Program{Steps: steps[:len(steps)-1], Columns: job.Program.Columns}
			x := job.Executor(&HostBackend{In: job.Inputs, Budget: 1 << 28})
			var sc countScratch
			err = x.List(context.Background(), head, func(batch []uint32) bool {
				for i := 0; i < len(batch); i += last.Width {
					row := batch[i : i+last.Width]
					got, ok := job.Inputs.countRow(last, row, &sc)
					want := bruteExtensions(g, pc, q, job, row, unique)
					if !ok || got != want {
						t.Errorf("seed %d unique %v: row %v counts %d (%v), want %d\nquery %s\nstep %s", seed, unique, row, got, ok, want, q, last)
						return false
					}
					rows++
					if want > 0 {
						nonzero++
					}
				}
				return true
			})
			x.Close()
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	t.Logf("%d rows checked, %d with extensions", rows, nonzero)
	if nonzero < 100 {
		t.Errorf("only %d rows with extensions", nonzero)
	}
}

// bruteExtensions counts the placements of job's counted vertices that extend row (new ids) to a
// match of q in g.
func bruteExtensions(g *graph.Graph, pc *PCSR, q *pattern.Pattern, job *Job, row []uint32, unique bool) uint64 {
	m := make([]int64, q.NumVertices()) // old ids, -1: not placed
	for i := range m {
		m[i] = -1
	}
	for c, u := range job.Program.Columns {
		m[u] = int64(pc.NewToOld[row[c]])
	}
	var counted []int
	for _, c := range job.Plan.Counted {
		for _, s := range c.Sets {
			counted = append(counted, s...)
		}
	}
	adjacent := func(a, b uint32, l pattern.Label) bool {
		for i, x := range g.Neighbors(a) {
			if x == b {
				el := uint32(0)
				if ls := g.NeighborEdgeLabels(a); ls != nil {
					el = ls[i]
				}
				return l.Matches(el)
			}
		}
		return false
	}
	var total uint64
	var rec func(i int)
	rec = func(i int) {
		if i == len(counted) {
			if unique {
				for _, r := range job.Plan.Restrictions {
					if pc.OldToNew[m[r.Less]] >= pc.OldToNew[m[r.Greater]] {
						return
					}
				}
			}
			total++
			return
		}
		u := counted[i]
	next:
		for v := range uint32(g.NumVertices()) {
			if !q.VertexLabel(u).Matches(g.VertexLabel(v)) || slices.Contains(m, int64(v)) {
				continue
			}
			for nb := q.NeighborMask(u); nb != 0; nb &= nb - 1 {
				w := bits.TrailingZeros32(nb)
				l, _ := q.EdgeLabel(u, w)
				if !adjacent(uint32(m[w]), v, l) {
					continue next
				}
			}
			m[u] = int64(v)
			rec(i + 1)
			m[u] = -1
		}
	}
	rec(0)
	return total
}
