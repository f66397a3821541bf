package sgsi

import (
	"context"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/pattern"
	"github.com/submatch/submatch/plan"
)

// The join's rows as sgsi makes them (issue 21, branch sgsipred): the prediction priced the
// tables from the cpu plan's estimate, the partial matches in the cpu engine's order (core
// first, leaves postponed and counted), while sgsi joins in SGSI's order (Algorithm 1, which
// puts a dense walk's core last) and counts only degree-one leaves: on R-MAT walks of 8
// vertices its tables were orders of magnitude above the cpu estimate's levels, and --engine
// auto chose it. estimateJoin compiles the query as a count compiles it (the signature filter's
// candidates, sgsi's order, its steps, restrictions and leaf step) and runs Knuth's estimator
// over those steps on the host (plan.Estimate's method): each probe picks a
// root among the first vertex's candidates, then at each step a row extension drawn by degree,
// the product of the inverse probabilities along the way estimating each table's rows (the
// last table's counted below every extension of the table before it).

// The estimate's bounds: it stops after joinProbes probes, or once it has read joinWorkLimit
// list entries after joinMinProbes probes (deterministic: the same graph and query give the
// same rows); a probe counts the last table below at most lastDraws rows of the table before
// it, fewer once it has read its share of the work (joinWorkLimit/joinMinProbes). A pattern vertex's candidates are filtered exactly when its label has at most
// candExact vertices, else from candSamples of them drawn at random.
const (
	joinProbes    = 2048
	joinMinProbes = 32
	joinWorkLimit = 1 << 20
	candExact     = 1 << 16
	candSamples   = 1 << 12
	lastDraws     = 64
	leafDraws     = 4       // the last table's rows below each of lastDraws whose leaf step is priced
	candChunk     = 1 << 12 // the filter's draws between two checks of the context
)

// joinRows is the estimate of a count's tables in sgsi's order.
type joinRows struct {
	// levels[i] is the estimated rows of the table of width i+1 (the matches of the join order's
	// first i+1 vertices), for i below joined, the vertices the steps join.
	levels []float64
	joined int
	// leaves is set when a leaf step counts the vertices after joined (its rows: the last
	// table's, levels[joined-1]).
	leaves bool
	order  []int
	probes int
	work   int64
	// leafLookups and leafEntries price the leaf step's rows beyond one unit each (leafWork):
	// the factors' recounts and the list entries their memos' misses read.
	leafLookups, leafEntries float64
}

// leafUnits is the leaf step's estimated work beyond one unit a row, in units of a row a join
// writes (leafLookupUnits a recount, leafEntryUnits entries a unit).
func (j *joinRows) leafUnits() float64 {
	return leafLookupUnits*j.leafLookups + j.leafEntries/leafEntryUnits
}

// tables returns what the count's joins cost: the rows of the tables the steps read and write
// (the first table, the candidates, excluded), the matches the direct count's last step counts
// without a table (none when a leaf step follows: the last table is written for it), and the
// leaf step's rows. A join of three vertices without leaves generates its rows from the edges
// (no table).
func (j *joinRows) tables() (rows, counted, leafRows float64) {
	k := j.joined
	if j.leaves {
		for _, x := range j.levels[1:k] {
			rows += x
		}
		return rows, 0, j.levels[k-1]
	}
	if k >= 4 {
		for _, x := range j.levels[1 : k-1] {
			rows += x
		}
	}
	return rows, j.levels[k-1], 0
}

// joinEstimator holds one estimate's query and scratch.
type joinEstimator struct {
	g     *graph.Graph
	s     *store   // (no signatures: its lists and edge frequencies only)
	sigs  []uint32 // the count's signature table (store.sigs), or nil: signatures computed (useSigs)
	q     *query
	rng   *rand.Rand
	work  int64
	lists [][]uint32 // per link of a step: the list read
	set   []uint32
	prev  []uint32 // the extensions of the step before the last
	// leafA and leafB are the lists a leaf step's miss reads (missEntries).
	leafA, leafB []uint32
	// leafRead counts the entries and lists the leaf step's pricing read (missEntries), apart
	// from work (the tables' estimate draws as without it), within the same limit.
	leafRead int64
	limit    int64 // the work after which probe stops (0: joinWorkLimit)
	freq     map[uint64]uint64
	// weighed holds the estimates weigh made, by plan.
	weighed map[string]Weighed
}

// edgeFreq is the order's edge label frequency (store.edgeEntries, the count's) for the
// estimate: exact on graphs of at most candExact vertices or without edge labels, else from
// candSamples vertices drawn at random. The exact pass reads every vertex's runs once for each
// edge label of the pattern, on every auto decision (0.23 s of the estimate's 0.24 s on an
// R-MAT of 2^20 vertices, 4 edge labels); where two labels' frequencies are close the sampled
// ones may order the joins otherwise than the count.
func (e *joinEstimator) edgeFreq(key uint64) uint64 {
	n := e.g.NumVertices()
	if key == anyEdge || !e.g.HasEdgeLabels() || n <= candExact {
		return e.s.edgeEntries(key, 0)
	}
	if m, ok := e.freq[key]; ok {
		return m
	}
	k := lgKey{key, anyLabel, bothSides}
	var sum uint64
	for range candSamples {
		sum += e.s.degree(uint32(e.rng.IntN(n)), k)
	}
	m := uint64(float64(sum) * float64(n) / candSamples)
	e.freq[key] = m
	return m
}

// estimateJoin estimates the tables of a count of p on g by sgsi with options o (its order,
// its leaf step): false when the joins are not connected (a pattern of several components). It
// checks ctx between chunks of the filter's draws and between probes (a probe reads at most
// about joinWorkLimit/joinMinProbes entries below the table before the last), and returns the
// error of a ctx that has ended (engine.PredictionStopped).
func estimateJoin(ctx context.Context, g *graph.Graph, p *pattern.Pattern, sem engine.Semantics, o Options, seed uint64) (joinRows, bool, error) {
	e := newJoinEstimator(g, compileQuery(p), seed)
	q := e.q
	sizes, roots, err := e.candidates(ctx)
	if err != nil {
		return joinRows{}, false, err
	}
	replan := func() {
		q.plan(sizes, e.edgeFreq, g.HasEdgeLabels(), sem.Induced, sem.Unique, true, !o.PaperOrder, !o.JoinLeaves)
	}
	replan()
	stop := func() error { return engine.PredictionStopped(ctx, "sgsi") }
	if !o.PaperOrder {
		if err := e.chooseLate(stop, sizes, roots, replan); err != nil {
			return joinRows{}, false, err
		}
	}
	if err := e.weighTails(stop, sizes, roots, replan); err != nil {
		return joinRows{}, false, err
	}
	return e.probe(stop, sizes, roots)
}

// newJoinEstimator returns an estimator of p's tables on g, its random draws seeded by seed.
func newJoinEstimator(g *graph.Graph, q *query, seed uint64) *joinEstimator {
	return &joinEstimator{g: g, s: &store{g: g, edges: map[uint64]uint64{}}, q: q,
		rng: rand.New(rand.NewPCG(seed, 0x5351)), lists: make([][]uint32, q.n), freq: map[uint64]uint64{}}
}

// probe estimates the tables of e.q as planned, its candidate counts sizes and the roots its
// probes draw from among the candidates (roots[u] for the first vertex u); it calls stop
// between probes and returns its error. false: the joins are not connected.
func (e *joinEstimator) probe(stop func() error, sizes []uint64, roots [][]uint32) (joinRows, bool, error) {
	q, g := e.q, e.g
	j := joinRows{levels: make([]float64, q.joined), joined: q.joined, leaves: q.counted(), order: slices.Clone(q.order)}
	for _, st := range q.steps {
		if st.cartesian {
			return j, false, nil
		}
	}
	first := roots[q.order[0]]
	if slices.Contains(sizes, 0) {
		first = nil // (a vertex without candidates, joined or counted: the count stops at the filter)
	}
	row := make([]uint32, q.joined)
	limit := e.workLimit()
	fs := e.leafFactors(sizes)
	for j.probes < joinProbes && (j.probes < joinMinProbes || e.work < limit) && len(first) > 0 {
		if err := stop(); err != nil {
			return joinRows{}, false, err
		}
		j.probes++
		row[0] = first[e.rng.IntN(len(first))]
		w := float64(sizes[q.order[0]])
		j.levels[0] += w
		e.sampleLeaf(fs, row[:1], w)
		last := len(q.steps) - 1
		for i := range q.steps {
			set := e.extend(&q.steps[i], row[:i+1])
			if i == last-1 {
				// The last table's rows below every extension (or lastDraws of them), not
				// below one drawn: its rows gather under few rows of the table before (as
				// plan.Estimate's last level).
				e.prev = append(e.prev[:0], set...)
				j.levels[i+1] += w * float64(len(set))
				n := len(e.prev)
				draws := min(n, lastDraws)
				if draws == n { // (in random order: a prefix the work cuts is a fair sample)
					e.rng.Shuffle(n, func(a, b int) { e.prev[a], e.prev[b] = e.prev[b], e.prev[a] })
				}
				sum, done, from := 0, 0, e.work
				for d := range draws {
					if d > 0 && e.work-from >= limit/joinMinProbes {
						break // (a hub's lists: the probe's share of the work)
					}
					row[i+1] = e.prev[d]
					if draws < n {
						row[i+1] = e.prev[e.rng.IntN(n)]
					}
					ext := e.extend(&q.steps[last], row[:i+2])
					sum += len(ext)
					done++
					// (The leaf step's misses on these rows and on a few of their
					// extensions, spread evenly: no draw, the tables' estimate as without.)
					wd := w * float64(n) / float64(draws)
					e.sampleLeaf(fs, row[:i+2], wd)
					if len(fs) > 0 && len(ext) > 0 {
						taken := min(len(ext), leafDraws)
						for t := range taken {
							row[i+2] = ext[t*len(ext)/taken]
							e.sampleLeaf(fs, row[:i+3], wd*float64(len(ext))/float64(taken))
						}
					}
				}
				if done > 0 {
					j.levels[last+1] += w * float64(sum) * float64(n) / float64(done)
				}
				break
			}
			j.levels[i+1] += w * float64(len(set))
			if len(set) == 0 {
				break
			}
			var f float64
			row[i+1], f = plan.PickByDegree(g, e.rng, set) // (a hub's rows outnumber the others')
			w *= f
			e.sampleLeaf(fs, row[:i+2], w)
		}
	}
	for i := range j.levels {
		j.levels[i] /= float64(max(1, j.probes))
	}
	j.leafLookups, j.leafEntries = leafWork(fs, j.levels)
	j.work = e.work
	return j, true, nil
}

// weighWorkLimit is joinWorkLimit for each estimate weighTails compares (a count makes one
// more than its tails' inner vertices: at R-MAT 18, 30 ms each at the full limit).
const weighWorkLimit = joinWorkLimit / 4

// weighSeed seeds the estimates weighTails compares (the same draws for each: the count's and
// the prediction's choices agree where their candidates do).
const weighSeed = 0x7a11

// weighTails chooses how far e.q's tails reach (query.tailCap), where the tables an inner
// vertex's join prunes would otherwise grow (issue 21: q/q_12_0's last table went from 204k
// to 284k rows when a tail's a was no longer joined): for each tail in turn (by its b), each
// reach from its own down to none (b then counted as a group, its path joined), replan
// re-planning the query, and the estimated work (weigh: the rows of the tables the steps write
// and the leaf step's rows priced by their work) kept the least. It leaves the query planned as
// chosen; stop as probe's.
func (e *joinEstimator) weighTails(stop func() error, sizes []uint64, roots [][]uint32, replan func()) error {
	q := e.q
	reach := map[int]int{}
	for _, t := range q.tails {
		reach[t.b] = 1
	}
	for _, t := range q.chains {
		reach[t.verts[len(t.verts)-1]] = len(t.verts) - 1
	}
	for _, t := range q.pairs { // (either end capped at 0: no pair)
		reach[t.b[0]] = 1
	}
	if len(reach) == 0 {
		return nil
	}
	defer e.weighing()()
	cost := func() (float64, error) { return e.weigh(stop, sizes, roots) }
	best, err := cost()
	if err != nil {
		return err
	}
	bs := slices.Sorted(maps.Keys(reach))
	if q.tailCap == nil {
		q.tailCap = map[int]int{}
	}
	for _, b := range bs {
		keep := reach[b]
		for c := reach[b] - 1; c >= 0; c-- {
			q.tailCap[b] = c
			replan()
			x, err := cost()
			if err != nil {
				return err
			}
			if x < best {
				best, keep = x, c
			}
		}
		q.tailCap[b] = keep
	}
	replan()
	return nil
}

// workLimit is the entries after which probe stops drawing probes (past joinMinProbes).
func (e *joinEstimator) workLimit() int64 {
	if e.limit > 0 {
		return e.limit
	}
	return joinWorkLimit
}

// weighing sets the estimator to weigh plans (weigh) and returns what puts it back.
func (e *joinEstimator) weighing() func() {
	rng, work, read := e.rng, e.work, e.leafRead
	e.limit = weighWorkLimit
	return func() { e.rng, e.work, e.leafRead, e.limit = rng, work, read, 0 }
}

// weigh returns the estimated work of e.q as planned, in units of a row a join writes: the
// rows of the tables the steps write and the rows the leaf step reads (joinRows.tables), and
// the leaf step's work beyond one unit a row (joinRows.leafUnits: its factors' recounts and
// their memos' misses), from the same draws for every plan (weighSeed); +Inf for joins that
// are not connected. stop as probe's. A plan weighed before (the same order, joins, leaf step
// and tails' reach: chooseLate's and weighTails' first) is not estimated again.
func (e *joinEstimator) weigh(stop func() error, sizes []uint64, roots [][]uint32) (float64, error) {
	w, err := e.weighPlan(stop, sizes, roots)
	return w.Work, err
}

// weighPlan is weigh's estimate with its parts.
func (e *joinEstimator) weighPlan(stop func() error, sizes []uint64, roots [][]uint32) (Weighed, error) {
	q := e.q
	key := planKey(q)
	if w, ok := e.weighed[key]; ok {
		return w, nil
	}
	e.rng = rand.New(rand.NewPCG(weighSeed, 0x5351))
	e.work, e.leafRead = 0, 0
	j, ok, err := e.probe(stop, sizes, roots)
	if err != nil {
		return Weighed{Work: math.Inf(1)}, err
	}
	w := Weighed{Work: math.Inf(1)}
	if ok {
		rows, counted, leaf := j.tables()
		w = Weighed{Rows: rows + counted, LeafRows: leaf, LeafLookups: j.leafLookups, LeafEntries: j.leafEntries}
		w.Work = w.Rows + w.LeafRows + j.leafUnits()
	}
	if e.weighed == nil {
		e.weighed = map[string]Weighed{}
	}
	e.weighed[key] = w
	return w, nil
}

// Weighed is a plan's estimate as weigh makes it (Stats.Weighed: the plan a count chose): the
// rows its joins write (and the direct count counts), the rows of its leaf step, that step's
// factors' recounts (leafLookupUnits each) and the list entries their memos' misses read
// (leafEntryUnits a unit), and Work, their sum in units of a row a join writes.
type Weighed struct {
	Rows, LeafRows, LeafLookups, LeafEntries, Work float64
}

// planned returns weigh's estimate of e.q as planned where the count weighed plans (zero
// otherwise); stop as probe's. A plan chosen by weighTails may not have been weighed with its
// tails' reach as the final plan spells it (an entry for each tail): one more estimate then.
func (e *joinEstimator) planned(stop func() error, sizes []uint64, roots [][]uint32) (Weighed, error) {
	if e.weighed == nil {
		return Weighed{}, nil
	}
	defer e.weighing()()
	return e.weighPlan(stop, sizes, roots)
}

// planKey is weigh's key of q as planned: its order, joins, leaf step and tails' reach.
func planKey(q *query) string {
	return fmt.Sprint(q.order, q.joined, q.counted(), q.tailCap) // (a nil and an empty tailCap print alike)
}

// candidates returns each query vertex's candidate count |C(u)| as the signature filter
// finds it (exact, or estimated from candSamples of its label's vertices) and candidates among
// them (all of them, or those sampled): the roots the probes draw from. It checks ctx every
// candChunk draws.
func (e *joinEstimator) candidates(ctx context.Context) ([]uint64, [][]uint32, error) {
	g, q := e.g, e.q
	nv := g.NumVertices()
	sizes := make([]uint64, q.n)
	found := make([][]uint32, q.n)
	for u := range q.n {
		var pool []uint32
		size := nv
		if q.vlabels[u] != anyLabel {
			pool = g.VerticesWithLabel(q.vlabels[u])
			size = len(pool)
		}
		at := func(i int) uint32 {
			if pool == nil {
				return uint32(i)
			}
			return pool[i]
		}
		draws := size
		if size > candExact {
			draws = candSamples
		}
		for i := range draws {
			if i%candChunk == candChunk-1 {
				if err := engine.PredictionStopped(ctx, "sgsi"); err != nil {
					return nil, nil, err
				}
			}
			x := i
			if draws < size {
				x = e.rng.IntN(size)
			}
			if v := at(x); q.admits(g, u, v) {
				found[u] = append(found[u], v)
			}
		}
		sizes[u] = uint64(len(found[u]))
		if draws < size {
			sizes[u] = uint64(float64(size) * float64(len(found[u])) / float64(draws))
		}
	}
	return sizes, found, nil
}

// admits reports whether data vertex v passes query vertex u's filter: its label and its
// signature (the filter kernel's test, on the host).
func (q *query) admits(g *graph.Graph, u int, v uint32) bool {
	if l := q.vlabels[u]; l != anyLabel && g.VertexLabel(v) != l {
		return false
	}
	return q.sigAdmits(u, vertexSig(g, v))
}

// sigAdmits reports whether a data vertex of signature sig passes query vertex u's signature
// test (its label tested apart).
func (q *query) sigAdmits(u int, sig [sigWords]uint32) bool {
	for j, w := range q.sigs[u*sigWords : (u+1)*sigWords] {
		if sig[j]&w != w {
			return false
		}
	}
	return true
}

// admits is q.admits with v's signature read from the count's signature table where the
// estimator has it (useSigs): a vertex's signature from its runs cost 88% of the order
// search's CPU on R-MAT 20's 12-vertex walks (branch sgsiplan).
func (e *joinEstimator) admits(u int, v uint32) bool {
	if e.sigs == nil {
		return e.q.admits(e.g, u, v)
	}
	if l := e.q.vlabels[u]; l != anyLabel && e.g.VertexLabel(v) != l {
		return false
	}
	var sig [sigWords]uint32
	n := e.g.NumVertices()
	for j := range sig {
		sig[j] = e.sigs[j*n+int(v)]
	}
	return e.q.sigAdmits(u, sig)
}

// useSigs has e read signatures from s's table (the one the filter read: the same test, so the
// same estimates) instead of computing them from each vertex's runs.
func (e *joinEstimator) useSigs(s *store) {
	if s.g == e.g && len(s.sigs) == sigWords*e.g.NumVertices() {
		e.sigs = s.sigs
	}
}

// extend returns the extensions of row by step st as the join finds them: the first link's
// list, less the vertices the other links' lists lack (or, induced, hold), the restrictions
// reject, the row holds, or the filter rejects.
func (e *joinEstimator) extend(st *step, row []uint32) []uint32 {
	g, s := e.g, e.s
	links := st.others
	for i, l := range links {
		e.lists[i] = s.appendList(e.lists[i][:0], row[l.col], l.key)
		e.work += int64(len(e.lists[i]))
	}
	nonadj := e.lists[len(links):]
	for i, l := range st.nonadj {
		nonadj[i] = s.appendList(nonadj[i][:0], row[l.col], l.key)
		e.work += int64(len(nonadj[i]))
	}
	first := s.appendList(e.set[:0], row[st.first.col], st.first.key)
	e.work += int64(len(first))
	out := first[:0]
next:
	for _, x := range first {
		if slices.Contains(row, x) {
			continue
		}
		for _, c := range st.less {
			if row[c] >= x {
				continue next
			}
		}
		for _, c := range st.greater {
			if row[c] <= x {
				continue next
			}
		}
		for i := range links {
			if _, ok := slices.BinarySearch(e.lists[i], x); !ok {
				continue next
			}
		}
		for i := range st.nonadj {
			if _, ok := slices.BinarySearch(nonadj[i], x); ok {
				continue next
			}
		}
		e.work += int64(len(g.Runs(x)))
		if e.admits(st.u, x) {
			out = append(out, x)
		}
	}
	e.set = first
	return out
}
