package plan

import (
	"bytes"
	"cmp"
	"context"
	"encoding/binary"
	"math/bits"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/pattern"
)

// Matching orders compared by estimate. The default order (matchingOrder: most already-ordered
// neighbours first) and the default symmetry rule are good for sparse patterns, but on dense
// ones several orders tie and differ by large factors: which vertex closes the last level (and
// whether its set can start from a stored one), where the symmetry windows fall, and whether
// breaking symmetry is worth enumerating a vertex that could be counted (STMatch's q17 on
// wiki-Vote: 12x less work with |Aut| = 36 than with both closing vertices counted). When the
// default plan's search is large (Estimate.Nodes above Options.SearchOrders), searchOrders
// estimates the plans of other orders (candidateOrders), with and without symmetry breaking,
// and keeps the one of least Estimate.Cost.

// DefaultSearchOrders is a threshold for Options.SearchOrders: a search of 1e8 nodes takes
// about a second on one core, the comparison of orders a few milliseconds per order.
const DefaultSearchOrders = 1e8

// orderScreenProbes and orderSearchProbes are the numbers of probes of each candidate's first
// estimate and of the finalists' second one (one seed for all candidates, so that they are
// compared on the same random choices where their trees agree); orderFinalists is how many
// candidates get the second estimate.
const (
	orderScreenProbes = 16
	orderSearchProbes = 192
	orderFinalists    = 4
)

// orderSearchBudget bounds the time spent screening candidate orders; orderSearchShare is the
// share of the default plan's predicted run time it may take instead when that is less
// (Options.SearchRate), but never less than orderSearchFloor.
const (
	orderSearchBudget = 500 * time.Millisecond
	orderSearchShare  = 0.1
	orderSearchFloor  = 20 * time.Millisecond
)

// searchCostFactor: the search also runs when the default plan's estimated Cost is above this
// many times Options.SearchOrders, even with fewer nodes (plans that count leaf groups have few
// nodes but long intersections at each: STMatch's q13 and q14 on wiki-Vote).
const searchCostFactor = 100

// maxSearchGroup: with more automorphisms than this, the search finds each order's symmetry
// restrictions by SymmetryRestrictions' searches instead of from the enumerated group.
const maxSearchGroup = 1 << 14

// maxSearchOrders bounds the candidate orders listed (large patterns have factorially many).
const maxSearchOrders = 1 << 16

// orderSearchMargin: another order replaces the best so far only when its estimated cost is
// below this fraction of it (estimates are noisy).
const orderSearchMargin = 0.8

// searchBudget is how long the screening of candidate orders may take for a default plan of
// estimated cost cost (Estimate.Cost).
func searchBudget(cost float64, opts Options) time.Duration {
	if opts.SearchRate <= 0 {
		return orderSearchBudget
	}
	predicted := cost / opts.SearchRate * float64(time.Second)
	return max(orderSearchFloor, min(orderSearchBudget, time.Duration(orderSearchShare*predicted)))
}

// searchOrders replaces the plan's order, restrictions, groups and levels (set by arrange) by
// those of the candidate order and symmetry choice of least estimated cost, when the plan's
// search is large enough for that to matter. Candidates (candidateOrders) are first estimated
// with orderScreenProbes probes each, on all cores (until searchBudget has passed); the
// orderFinalists cheapest, and the default plan, again with orderSearchProbes. It returns ctx's
// error when ctx ends.
func (pl *Plan) searchOrders(ctx context.Context, g *graph.Graph, opts Options) error {
	p := pl.Pattern
	if p.NumVertices() < 4 || len(pl.Levels) < 3 || pl.NodeBound() < opts.SearchOrders {
		return nil
	}
	start := time.Now()
	screen := EstimateOptions{Seed: 1, Probes: orderScreenProbes}
	est, err := pl.Estimate(ctx, g, screen)
	if err != nil {
		return err
	}
	if est.Nodes < opts.SearchOrders && est.Cost < searchCostFactor*opts.SearchOrders {
		return nil
	}
	budget := searchBudget(est.Cost, opts)
	type candidate struct {
		s    planStructure
		cost float64
		seq  int // the order's place in candidateOrders and the symmetry choice's: ties keep it
	}
	postponable := !opts.Enumerate && !opts.Induced
	syms := []symChoice{symDefault}
	if postponable && opts.MultiplyAutomorphisms && !opts.Unique {
		syms = []symChoice{symOn, symOff}
	}
	aut := autGroup(p, maxSearchGroup)
	var orders [][]int
	candidateOrders(p, func(o []int) bool {
		orders = append(orders, o)
		return len(orders) < maxSearchOrders && time.Since(start) <= budget
	})
	if !postponable {
		// Orders an automorphism apart run the same search when every vertex is enumerated (with
		// leaf groups, the groups' vertices, postponed in the order givenOrder sorts them, may
		// get other symmetry windows): screen one of each class.
		orders = distinctUpToAut(orders, aut)
	}
	// Screen the orders on every core (or SearchThreads); a signature seen before (by any worker)
	// is skipped.
	// A candidate's screening stops once it is sure to cost more than orderFinalists others
	// screened already (Estimate.Above): it cannot be a finalist, and dense patterns' worst
	// orders, whose probes are the longest, are dropped after a few (the finalists are the
	// same; the budget reaches further).
	var (
		mu    sync.Mutex
		seen  = map[string]bool{pl.signature(): true}
		cands []candidate
		top   []float64 // the orderFinalists lowest costs so far, ascending
		stop  error
		next  atomic.Int64
		wg    sync.WaitGroup
	)
	workers := runtime.GOMAXPROCS(0)
	if opts.SearchThreads > 0 {
		workers = opts.SearchThreads
	}
	workers = min(workers, max(1, len(orders)))
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				k := int(next.Add(1) - 1)
				if k >= len(orders) || time.Since(start) > budget || ctx.Err() != nil {
					return
				}
				for si, sym := range syms {
					tp := &Plan{Pattern: p, Candidates: pl.Candidates, CandidateBits: pl.CandidateBits, Empty: pl.Empty}
					order, postponed := givenOrder(p, orders[k], postponable)
					tp.arrangeMemo(order, postponed, opts, sym, aut)
					sig := tp.signature()
					mu.Lock()
					dup := seen[sig]
					seen[sig] = true
					cut := screen
					if len(top) == orderFinalists {
						cut.CostAbove = top[orderFinalists-1]
					}
					mu.Unlock()
					if dup {
						continue
					}
					e, err := tp.Estimate(ctx, g, cut)
					mu.Lock()
					switch {
					case err != nil:
						stop = err
					case !e.Above:
						cands = append(cands, candidate{tp.structure(), e.Cost, k*len(syms) + si})
						if i, _ := slices.BinarySearch(top, e.Cost); i < orderFinalists {
							top = slices.Insert(top, i, e.Cost)[:min(len(top)+1, orderFinalists)]
						}
					}
					mu.Unlock()
					if err != nil {
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	if stop != nil {
		return stop
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	slices.SortFunc(cands, func(a, b candidate) int {
		return cmp.Or(cmp.Compare(a.cost, b.cost), cmp.Compare(a.seq, b.seq))
	})
	finalists := append([]candidate{{pl.structure(), est.Cost, -1}}, cands[:min(len(cands), orderFinalists)]...)
	final := EstimateOptions{Seed: 2, Probes: orderSearchProbes}
	costs := make([]float64, len(finalists))
	errs := make([]error, len(finalists))
	for k, c := range finalists {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tp := &Plan{Pattern: p, Candidates: pl.Candidates, CandidateBits: pl.CandidateBits, Empty: pl.Empty}
			tp.setStructure(c.s)
			e, err := tp.Estimate(ctx, g, final)
			costs[k], errs[k] = e.Cost, err
		}()
	}
	wg.Wait()
	best, bestCost := 0, 0.0
	for k := range finalists {
		if errs[k] != nil {
			return errs[k]
		}
		// The default plan (k == 0) is kept unless another is clearly cheaper.
		if cost := costs[k]; k == 0 || cost < orderSearchMargin*bestCost {
			best, bestCost = k, cost
		}
	}
	pl.setStructure(finalists[best].s)
	return nil
}

// maxAutDedup bounds the work of distinctUpToAut (automorphisms times orders).
const maxAutDedup = 1 << 22

// distinctUpToAut returns the first of orders (in their order) of each class of orders an
// automorphism of the pattern apart (aut: the group, as autGroup lists it; nil or too large for
// maxAutDedup: every order): when every vertex is enumerated (no leaf groups) such orders run
// the same search (one signature), so the screening need not arrange them all (|Aut| = 8 to 48
// for STMatch's dense 7-vertex patterns).
func distinctUpToAut(orders [][]int, aut [][]int) [][]int {
	if len(aut) < 2 || len(orders) < 2 || len(aut)*len(orders) > maxAutDedup {
		return orders
	}
	n := len(orders[0])
	seen := make(map[string]bool, len(orders))
	out := make([][]int, 0, len(orders))
	image, least := make([]byte, n), make([]byte, n)
	for _, o := range orders {
		for k, sigma := range aut {
			for i, v := range o {
				image[i] = byte(sigma[v])
			}
			if k == 0 || bytes.Compare(image, least) < 0 {
				copy(least, image)
			}
		}
		if key := string(least); !seen[key] {
			seen[key] = true
			out = append(out, o)
		}
	}
	return out
}

// planStructure is what arrange sets.
type planStructure struct {
	levels       []Level
	restrictions []Restriction
	groups       []LeafGroup
	classes      []LeafClass
	multiplier   uint64
}

func (pl *Plan) structure() planStructure {
	return planStructure{pl.Levels, pl.Restrictions, pl.Groups, pl.Classes, pl.Multiplier}
}

func (pl *Plan) setStructure(s planStructure) {
	pl.Levels, pl.Restrictions, pl.Groups, pl.Classes, pl.Multiplier = s.levels, s.restrictions, s.groups, s.classes, s.multiplier
}

// SameSearch reports whether plans a and b (of one pattern, on one graph) run the same search up
// to the naming of pattern vertices: their orders differ by an automorphism of the pattern (or
// not at all), with the same symmetry restrictions, leaf groups and multiplier, so that they cost
// the same. Engines that compare plans by estimate need not compare such two.
func SameSearch(a, b *Plan) bool {
	return a.Pattern == b.Pattern && a.Empty == b.Empty && a.signature() == b.signature()
}

// signature describes the search a plan runs up to the naming of pattern vertices: per level its
// label, backward edges, checks and windows; per group its parents, size and order. Orders that
// differ by an automorphism of the pattern give the same signature.
func (pl *Plan) signature() string {
	mask := func(js []int) uint32 {
		var m uint32
		for _, j := range js {
			m |= 1 << j
		}
		return m
	}
	label := func(b []byte, l pattern.Label) []byte {
		if l.Any {
			return append(b, 1, 0, 0, 0, 0)
		}
		return binary.LittleEndian.AppendUint32(append(b, 0), l.Value)
	}
	// A fixed-width encoding: every count is written before what it counts.
	b := make([]byte, 0, 32*len(pl.Levels)+16*len(pl.Groups)+8)
	for _, l := range pl.Levels {
		b = append(b, byte(len(l.Backward)))
		for _, be := range l.Backward {
			b = label(append(b, byte(be.Level)), be.EdgeLabel)
		}
		b = label(b, l.VertexLabel)
		for _, m := range []uint32{mask(l.Collide), mask(l.NonAdjacent), mask(l.Lower), mask(l.Upper)} {
			b = binary.LittleEndian.AppendUint32(b, m)
		}
	}
	b = append(b, 0xff) // no level has 255 backward edges: the groups start here
	for _, lg := range pl.Groups {
		ordered := byte(0)
		if lg.Ordered {
			ordered = 1
		}
		b = append(label(b, lg.VertexLabel), byte(len(lg.Vertices)), ordered, byte(len(lg.Parents)))
		for _, pe := range lg.Parents {
			b = label(append(b, byte(pe.Level)), pe.EdgeLabel)
		}
		b = binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint32(b, mask(lg.Lower)), mask(lg.Upper))
	}
	b = binary.LittleEndian.AppendUint64(b, pl.Multiplier)
	return string(b)
}

// candidateOrders calls yield with connected matching orders (each component's vertices in a
// row, larger components first as matchingOrder has them, isolated vertices last) in which every
// vertex after a component's first has at least one neighbour before it and at most one fewer
// than the most any vertex left has, until yield returns false. The best orders of dense patterns
// are often not greedy: on STMatch's q20, (c, a, b, d, e, f, g) takes d with two neighbours
// before e and f with three, so that e, f and the last vertex share d's set.
func candidateOrders(p *pattern.Pattern, yield func([]int) bool) {
	n := p.NumVertices()
	comps := p.Components()
	sortComps(comps)
	var big []uint32
	var isolated []int
	for _, c := range comps {
		if bits.OnesCount32(c) == 1 {
			isolated = append(isolated, bits.TrailingZeros32(c))
		} else {
			big = append(big, c)
		}
	}
	order := make([]int, 0, n)
	var placed uint32
	var rec func(ci int) bool
	rec = func(ci int) bool {
		if ci == len(big) {
			return yield(append(slices.Clone(order), isolated...))
		}
		comp := big[ci]
		if comp&^placed == 0 {
			return rec(ci + 1)
		}
		first := comp&placed == 0
		most := 0
		for u := 0; u < n; u++ {
			if comp&^placed&(1<<u) != 0 {
				most = max(most, bits.OnesCount32(p.NeighborMask(u)&placed))
			}
		}
		for u := 0; u < n; u++ {
			back := bits.OnesCount32(p.NeighborMask(u) & placed)
			if comp&^placed&(1<<u) == 0 || (!first && (back == 0 || back < most-1)) {
				continue
			}
			placed |= 1 << u
			order = append(order, u)
			ok := rec(ci)
			order = order[:len(order)-1]
			placed &^= 1 << u
			if !ok {
				return false
			}
		}
		return true
	}
	rec(0)
}

// sortComps orders components largest first (stable), as matchingOrder does.
func sortComps(comps []uint32) {
	slices.SortStableFunc(comps, func(a, b uint32) int { return bits.OnesCount32(b) - bits.OnesCount32(a) })
}
