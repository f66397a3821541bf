package plan

import (
	"bytes"
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"log/slog"
	"math/bits"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/internal/par"
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

// The screening of candidate orders is bounded by work, not time, so that the same query on
// the same machine (the same number of screening workers) gets the same plan however busy the
// machine is: each worker may screen orderScreenWork list entries (Estimate.Scanned, plus
// orderArrangeWork for each candidate arranged), what a core of the 2-core test machine, loaded
// by other work as it usually is, screened in the 500 ms that bounded the screening until
// 2026-12-05 (screenEntriesPerSecond; an idle core reads about 2.5e8 a second). With
// Options.SearchRate the share orderSearchShare of the default plan's predicted run time is
// converted to entries at screenEntriesPerSecond instead when that is less, but never less than
// orderScreenFloor (20 ms's worth). The candidates are screened in batches of screenBatch
// orders (the batch's cut, Estimate.CostAbove, taken from the batches before it), and the
// screening stops after the batch that brings the work to the bound. orderSearchCap is a safety
// net, far above the time the work takes (for probes slow for the entries they read): when it
// stops the screening, the choice depends on the machine's load again, which a debug log says.
const (
	screenEntriesPerSecond = 1e8
	orderScreenWork        = int64(screenEntriesPerSecond * 0.5)
	orderScreenFloor       = orderScreenWork / 25
	orderArrangeWork       = 2000
	orderSearchShare       = 0.1
	screenBatch            = 64
	orderSearchCap         = 5 * time.Second
)

// searchCapHits counts the screenings orderSearchCap stopped (tests).
var searchCapHits atomic.Int64

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

// screenWork is the work (list entries, see orderScreenWork) the screening of candidate orders
// may take on workers workers for a default plan of estimated cost cost (Estimate.Cost).
func screenWork(cost float64, opts Options, workers int) int64 {
	per := orderScreenWork
	if opts.SearchRate > 0 {
		share := orderSearchShare * cost / opts.SearchRate * screenEntriesPerSecond
		per = max(orderScreenFloor, int64(min(float64(orderScreenWork), share)))
	}
	return per * int64(workers)
}

// searchOrders replaces the plan's order, restrictions, groups and levels (set by arrange) by
// those of the candidate order and symmetry choice of least estimated cost, when the plan's
// search is large enough for that to matter. Candidates (candidateOrders) are first estimated
// with orderScreenProbes probes each, on all cores (or SearchThreads), in batches until
// screenWork's entries are read; the orderFinalists cheapest, and the default plan, again with
// orderSearchProbes. Every bound is one of work, so that the choice does not depend on the
// machine's load (but for orderSearchCap). It returns ctx's error when ctx ends.
func (pl *Plan) searchOrders(ctx context.Context, g *graph.Graph, opts Options) error {
	p := pl.Pattern
	if p.NumVertices() < 4 || len(pl.Levels) < 3 || pl.NodeBound() < opts.SearchOrders {
		return nil
	}
	start := clock()
	screen := EstimateOptions{Seed: 1, Probes: orderScreenProbes}
	est, err := pl.Estimate(ctx, g, screen)
	if err != nil {
		return err
	}
	if est.Nodes < opts.SearchOrders && est.Cost < searchCostFactor*opts.SearchOrders {
		return nil
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
		return len(orders) < maxSearchOrders
	})
	if !postponable {
		// Orders an automorphism apart run the same search when every vertex is enumerated (with
		// leaf groups, the groups' vertices, postponed in the order givenOrder sorts them, may
		// get other symmetry windows): screen one of each class.
		orders = distinctUpToAut(orders, aut)
	}
	workers := runtime.GOMAXPROCS(0)
	if opts.SearchThreads > 0 {
		workers = opts.SearchThreads
	}
	sc := screening{pl: pl, g: g, opts: opts, syms: syms, aut: aut, screen: screen,
		seen: map[string]bool{pl.signature(): true}, start: start}
	limit := screenWork(est.Cost, opts, workers)
	for lo := 0; lo < len(orders) && sc.work < limit; lo += screenBatch {
		if err := sc.batch(ctx, orders[lo:min(lo+screenBatch, len(orders))], lo, workers); err != nil {
			return err
		}
		if sc.overCap {
			searchCapHits.Add(1)
			slog.Debug("plan: the order search's screening stopped at its time cap (the choice depends on the machine's load)",
				"cap", orderSearchCap, "orders", len(orders), "screened", lo+screenBatch, "work", sc.work, "limit", limit)
			break
		}
	}
	slog.Debug("plan: order search screened", "orders", len(orders), "candidates", len(sc.cands), "work", sc.work, "limit", limit,
		"elapsed", clock().Sub(start))
	cands := sc.cands
	slices.SortFunc(cands, func(a, b candidate) int {
		return cmp.Or(cmp.Compare(a.cost, b.cost), cmp.Compare(a.seq, b.seq))
	})
	finalists := append([]candidate{{pl.structure(), est.Cost, -1}}, cands[:min(len(cands), orderFinalists)]...)
	final := EstimateOptions{Seed: 2, Probes: orderSearchProbes}
	costs := make([]float64, len(finalists))
	errs := make([]error, len(finalists))
	var wg sync.WaitGroup
	for k, c := range finalists {
		wg.Go(func() {
			tp := &Plan{Pattern: p, Candidates: pl.Candidates, CandidateBits: pl.CandidateBits, Empty: pl.Empty}
			tp.setStructure(c.s)
			e, err := tp.Estimate(ctx, g, final)
			costs[k], errs[k] = e.Cost, err
		})
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

// candidate is a screened plan structure of the order search.
type candidate struct {
	s    planStructure
	cost float64
	seq  int // the order's place in candidateOrders and the symmetry choice's: ties keep it
}

// screening is the state of searchOrders' screening between batches.
type screening struct {
	pl      *Plan
	g       *graph.Graph
	opts    Options
	syms    []symChoice
	aut     [][]int
	screen  EstimateOptions
	seen    map[string]bool // the signatures arranged in earlier batches
	cands   []candidate
	top     []float64 // the orderFinalists lowest costs so far, ascending
	work    int64     // list entries read and charged so far
	start   time.Time
	overCap bool // orderSearchCap stopped the screening
}

// batch screens orders (the first at place lo of the candidate orders) on workers goroutines,
// in two passes: every order and symmetry choice is arranged, and those whose signature is new
// (in the batch's order) are estimated, each stopped once it is sure to cost more than
// orderFinalists candidates of the earlier batches (Estimate.Above: it cannot be a finalist, and
// dense patterns' worst orders, whose probes are the longest, are dropped after a few). The
// results are then added up in order, so that they do not depend on which worker ran which.
func (sc *screening) batch(ctx context.Context, orders [][]int, lo, workers int) error {
	p, ns := sc.pl.Pattern, len(sc.syms)
	plans := make([]*Plan, len(orders)*ns)
	ests := make([]Estimate, len(plans))
	errs := make([]error, len(plans))
	estimated := make([]bool, len(plans))
	postponable := !sc.opts.Enumerate && !sc.opts.Induced
	sc.parallel(len(orders), workers, func(k int) {
		order, postponed := givenOrder(p, orders[k], postponable)
		for si, sym := range sc.syms {
			tp := &Plan{Pattern: p, Candidates: sc.pl.Candidates, CandidateBits: sc.pl.CandidateBits, Empty: sc.pl.Empty}
			tp.arrangeMemo(order, postponed, sc.opts, sym, sc.aut)
			plans[k*ns+si] = tp
		}
	})
	for i, tp := range plans {
		if tp == nil { // not arranged: past orderSearchCap
			continue
		}
		sig := tp.signature()
		if sc.seen[sig] {
			plans[i] = nil
		}
		sc.seen[sig] = true
	}
	sc.work += int64(len(plans)) * orderArrangeWork
	cut := sc.screen
	if len(sc.top) == orderFinalists {
		cut.CostAbove = sc.top[orderFinalists-1]
	}
	sc.parallel(len(plans), workers, func(i int) {
		if plans[i] != nil {
			ests[i], errs[i] = plans[i].Estimate(ctx, sc.g, cut)
			estimated[i] = true
		}
	})
	if err := errors.Join(errs...); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	for i, tp := range plans {
		if !estimated[i] {
			continue
		}
		e := ests[i]
		sc.work += e.Scanned
		if e.Above {
			continue
		}
		sc.cands = append(sc.cands, candidate{tp.structure(), e.Cost, lo*ns + i})
		if j, _ := slices.BinarySearch(sc.top, e.Cost); j < orderFinalists {
			sc.top = slices.Insert(sc.top, j, e.Cost)[:min(len(sc.top)+1, orderFinalists)]
		}
	}
	return nil
}

// parallel calls fn(0..n-1) on up to workers goroutines, each taking the next index in turn
// (par.Ranges); none is started once the screening is past orderSearchCap (sc.overCap is then
// set).
func (sc *screening) parallel(n, workers int, fn func(i int)) {
	over := par.Ranges(n, workers, 1, func(_, i, _ int) bool {
		if clock().Sub(sc.start) > orderSearchCap {
			return false
		}
		fn(i)
		return true
	})
	sc.overCap = sc.overCap || over
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
