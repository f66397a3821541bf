package sgsi

import (
	"math"
	"math/bits"
	"slices"

	"github.com/submatch/submatch/internal/setops"
)

// The leaf step's rows priced by their work (issue 21, branch sgsicost). weigh counted a row
// of the leaf step one unit, as a row a join writes; on R-MAT 20's q_12_1 (sgsiorder2's plan)
// each cost about 30 of them: a closed tail's memo lookups and collision corrections on every
// row, and on each miss the intersection of its other parents' lists and |I| terms. The
// estimate now adds, for each factor of a row's count (leafTail, leafGroup classes, chains,
// pairs; query.factors), what the leaf step does for it:
//
//   - a lookup (leafLookupUnits) on each row whose factor's columns change (rowLeaves recounts
//     a factor only then; in core the rows come in their prefix order, so at most the rows of
//     the table as wide as its latest column, and at most the step's), and
//   - on each miss of its memo, the list entries it reads (leafEntryUnits of them a unit): a
//     memo keyed by the vertex of one column (idx) for those of earlier ones (its epoch) misses
//     at most once for each row as wide as its columns (and of the step), and at most once for
//     each vertex idx takes under each row as wide as its latest key column: at most its
//     candidates, and at most the vertices of the list of a key column's vertex it lies in
//     (missSpread; a memo without key columns: once for each candidate).
//
// The sgsiorder2 figures: the leaf step ran 6.2 M rows a second where the joins wrote 37 M, and
// at R-MAT 20 its tail read 358 list entries a row (branch sgsicost).
//
// The entries a miss reads are sampled on the probes' rows as wide as the memo's columns, by the
// lists' lengths (store.degree) and, for a closed tail, its I intersected. Out of core the
// table's chunks are sorted by other columns (leafOrder restores a closed tail's): the prefix
// order the lookups are priced by holds in core only.

// leafLookupUnits is what a factor's count of a row costs when its memo holds it, in units of a
// row a join writes (a lookup in a memo of two levels, the collision corrections): the leaf
// step of sgsiorder2's q_12_1 ran 6.2 M rows a second against the joins' 37 M, its tail's memo
// hit on most rows.
const leafLookupUnits = 2

// leafEntryUnits is how many list entries a miss reads for one unit (a row a join writes reads
// its row's lists and writes it: tens of ns on the host; an entry merged or looked up, 1-3 ns).
const leafEntryUnits = 32

// leafFactor is one factor of a leaf step row's count as the estimate prices it.
type leafFactor struct {
	// deps is the latest column the factor reads: it is recounted on a row whose columns up
	// to it change.
	deps int
	// idx and keys are its memo's columns: keys is the latest key column (-1: none, the memo
	// holds across rows), adj the key columns whose pattern vertices are idx's neighbours.
	idx, keys int
	adj       []int
	cands     float64 // idx's candidates
	// at is the width of the rows a miss's cost is sampled on (its columns'); sum, spread and
	// weight accumulate the probes' costs and idx's vertices under one key (missSpread).
	at                  int
	sum, spread, weight float64
	// what prices a miss: which of the query's factors (query.factors' order).
	what int
}

// leafFactors lists e.q's leaf step's factors for the estimate (none without a leaf step).
func (e *joinEstimator) leafFactors(sizes []uint64) []leafFactor {
	q := e.q
	if !q.counted() {
		return nil
	}
	fs := make([]leafFactor, 0, q.factors())
	add := func(what int, deps uint64, idx int, keys uint64) {
		f := leafFactor{deps: bits.Len64(deps) - 1, idx: idx, keys: bits.Len64(keys) - 1, what: what}
		f.cands = float64(sizes[q.order[idx]])
		f.at = max(idx, f.keys) + 1
		for m := keys; m != 0; m &= m - 1 {
			if c := bits.TrailingZeros64(m); q.p.Adjacent(q.order[idx], q.order[c]) {
				f.adj = append(f.adj, c)
			}
		}
		fs = append(fs, f)
	}
	for ci, class := range q.leafClasses {
		var deps, parents uint64
		for _, gi := range class {
			g := &q.leafGroups[gi]
			deps |= g.collide
			for _, pe := range g.parents {
				parents |= 1 << pe.col
			}
		}
		deps |= parents
		// (A group of one parent: |S_g| by the parent's candidate, once, leafSizes, or from
		// the parent's list on each row where the table has fewer rows than candidates: a
		// memo without keys either way.)
		last := bits.Len64(parents) - 1
		add(ci, deps, last, parents&^(1<<last))
	}
	f := len(q.leafClasses)
	for i := range q.tails {
		t := &q.tails[i]
		deps := uint64(1)<<t.col | t.collideA | t.collideB
		var keys uint64
		idx, kc := tailMemoCols(t)
		for _, c := range kc {
			keys |= 1 << c
		}
		for _, w := range t.ws {
			deps |= 1 << w.col
		}
		add(f, deps, idx, keys)
		f++
	}
	for i := range q.chains {
		t := &q.chains[i]
		var keys uint64
		for _, w := range t.ws {
			keys |= 1 << w.col
		}
		add(f, t.deps, t.col, keys)
		f++
	}
	for i := range q.pairs {
		add(f, 1<<q.pairs[i].col, q.pairs[i].col, 0)
		f++
	}
	return fs
}

// sampleLeaf adds to each factor whose misses read rows of row's width the list entries a miss
// reads for row, weighed by w (the rows it stands for).
func (e *joinEstimator) sampleLeaf(fs []leafFactor, row []uint32, w float64) {
	if e.leafRead >= e.workLimit() {
		return // (hubs' lists: the tables' share of the work, not more)
	}
	for i := range fs {
		if f := &fs[i]; f.at == len(row) {
			f.sum += w * e.missEntries(f.what, row)
			f.spread += w * e.missSpread(f, row)
			f.weight += w
		}
	}
}

// missSpread bounds how many vertices f's memo column takes under one key (its epoch) for row:
// the shortest list of a key column's vertex that idx's vertex lies in (idx's candidates where
// no key column is its neighbour).
func (e *joinEstimator) missSpread(f *leafFactor, row []uint32) float64 {
	q := e.q
	d := f.cands
	u := q.order[f.idx]
	for _, c := range f.adj {
		k := lgKey{edgeKey(q.p, u, q.order[c], e.g.HasEdgeLabels()), q.vlabels[u], bothSides}
		d = min(d, float64(e.s.degree(row[c], k)))
		e.leafRead++
	}
	return d
}

// missEntries is the list entries factor f (query.factors' order) reads for row on a miss of its
// memo: the parents' lists of a class's groups on its memo's column (the others' sets are kept
// while their parents' vertices stay: fewer times than the misses, not priced); a tail's A and, without ws, each of its
// vertices' lists by the edge to b, with ws the ws' lists and |I| terms (memoised by y); a
// chain's first list and the ws'; a pair's two first lists.
func (e *joinEstimator) missEntries(f int, row []uint32) float64 {
	q, s := e.q, e.s
	var n uint64
	if f < len(q.leafClasses) {
		last := 0
		for _, gi := range q.leafClasses[f] {
			for _, pe := range q.leafGroups[gi].parents {
				last = max(last, pe.col)
			}
		}
		for _, gi := range q.leafClasses[f] {
			ps := q.leafGroups[gi].parents
			if !slices.ContainsFunc(ps, func(pe leafParent) bool { return pe.col == last }) {
				continue // (its set kept while its parents' vertices stay: leafSet)
			}
			for _, pe := range ps {
				n += s.degree(row[pe.col], pe.key)
				e.leafRead++
			}
		}
		return float64(n)
	}
	f -= len(q.leafClasses)
	switch {
	case f < len(q.tails):
		t := &q.tails[f]
		if len(t.ws) == 0 {
			e.leafA = s.appendList(e.leafA[:0], row[t.col], t.ka)
			n = uint64(len(e.leafA))
			for _, x := range e.leafA {
				n += s.degree(x, t.kb)
			}
			e.leafRead += int64(len(e.leafA))
			break
		}
		e.leafA = s.appendList(e.leafA[:0], row[t.ws[0].col], t.ws[0].key)
		inter := len(e.leafA)
		n = uint64(inter)
		for _, w := range t.ws[1:] {
			e.leafB = s.appendList(e.leafB[:0], row[w.col], w.key)
			n += uint64(len(e.leafB))
			inter = min(inter, setops.IntersectCount(e.leafA, e.leafB))
		}
		n += uint64(inter)
		e.leafRead += int64(n)
	case f < len(q.tails)+len(q.chains):
		t := &q.chains[f-len(q.tails)]
		n = s.degree(row[t.col], t.keys[0])
		for _, w := range t.ws {
			n += s.degree(row[w.col], w.key)
		}
		e.leafRead += int64(1 + len(t.ws))
	default:
		t := &q.pairs[f-len(q.tails)-len(q.chains)]
		n = s.degree(row[t.col], t.ka[0]) + s.degree(row[t.col], t.ka[1])
		e.leafRead += 2
	}
	return float64(n)
}

// leafWork returns the leaf step's work beyond one unit a row (leafLookupUnits a row a factor is
// recounted on, the sampled entries of its misses): the factors' lookups and entries, for
// levels the tables' estimated rows (joinRows.levels).
func leafWork(fs []leafFactor, levels []float64) (lookups, entries float64) {
	rows := levels[len(levels)-1] // (the step reads the last table only: a join may prune)
	for i := range fs {
		f := &fs[i]
		lookups += min(rows, levels[f.deps])
		if f.weight == 0 {
			continue
		}
		misses := min(rows, levels[f.at-1])
		if f.keys >= 0 {
			misses = min(misses, levels[f.keys]*f.spread/f.weight)
		} else {
			misses = min(misses, f.cands)
		}
		if mean := f.sum / f.weight; !math.IsNaN(mean) {
			entries += misses * mean
		}
	}
	return lookups, entries
}
