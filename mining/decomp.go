package mining

import (
	"context"
	"errors"
	"fmt"
	"math/bits"
	"slices"
	"sync"
	"time"

	"github.com/submatch/submatch/internal/setops"
)

// Decomposition counts of the 6-vertex shapes (docs/mining.md, "Six vertices").
//
// inj(P) is the number of injective maps of a shape's vertices into the data graph that keep its
// edges (embeddings; the unique count is inj / |Aut|). A rooted count fixes one root vertex or
// one root edge of the shape and counts the injective maps per data vertex (a vector over the
// vertices) or per ordered data edge (a vector over adjacency positions). Every rule below
// glues pieces at a separator R (the roots, or a cut vertex, or a 2-vertex cut that is an
// edge): the pieces' maps, chosen independently per value of R, form a tuple whose union is
// injective exactly when no two non-separator vertices of different pieces share a data
// vertex. A tuple's collisions form a partition S of the non-separator vertices (each block
// holding at most one vertex per piece), and the tuples with collisions exactly S are the
// injective maps of the quotient P/S (blocks merged; no loops arise, as vertices of different
// pieces are never adjacent). So
//
//	inj(P) = sum over R's values of the product of the pieces' rooted counts - sum_{S != 0} inj(P/S),
//
// and the same per root value for rooted counts. The quotients are smaller connected shapes:
// globally their counts come from the 3- to 5-vertex formulas; rooted, from the same rules.
//
// The rooted rules, on a shape Q with root vertex r or root edge (a, b):
//   - r is a cut vertex of Q, or {a, b} separates Q: product of the pieces, minus the collisions;
//   - r is a leaf with neighbour y: the sum over data neighbours of the count of Q - r rooted at
//     y, minus the maps of Q - r that use r's data vertex at z (the quotient Q/(r=z) rooted at
//     the merged vertex); likewise for a root edge (a, b) with a a leaf;
//   - otherwise a vertex root r: the sum over its data edges of Q rooted at (r, y), any
//     neighbour y of r in Q;
//   - base root edges: triangle (triangles on the edge), 4-cycle (4-cycles through it), 4-clique
//     (twice the 4-cliques on it), all among the local counts.
//
// A shape none of whose rules applies (a 5-cycle rooted at an edge, for instance) makes the
// shape that needs it fall back to the engine.

// rootedKey names a rooted shape: the roots are vertices 0 (and 1), the rest canonical.
type rootedKey struct {
	roots int
	code  uint64
	k     int
}

// decomp holds the rooted vectors computed so far and the global counts of the smaller shapes.
type decomp struct {
	l      *locals
	src    []uint32 // per adjacency position: its owner
	rev    []uint64 // per adjacency position: the position of the reverse edge
	global map[uint64]uint64
	vecs   map[rootedKey]*rootedEntry
	// threads and ctx for the parallel parts (0: all cores; nil: never cancelled)
	threads int
	ctx     context.Context
	special [][]uint64 // the special 5-vertex orbits per vertex (fiveSpecial), once needed
	// mu guards vecs: rooted vectors may be asked for from several goroutines (the first
	// computes, the others wait for it)
	mu        sync.Mutex
	specialMu sync.Mutex // guards special (held while it is computed)
}

// rootedEntry is one rooted vector (or the error that computing it gave); done is closed once
// it is there.
type rootedEntry struct {
	done chan struct{}
	v    []uint64
	err  error
}

// newDecomp prepares the decomposition over the locals of a k >= 5 census; global maps the
// canonical code of every connected shape on 1..5 vertices (K in the top bits) to inj.
func newDecomp(l *locals, global map[uint64]uint64) *decomp {
	o := l.o
	d := &decomp{l: l, global: global, vecs: map[rootedKey]*rootedEntry{}}
	d.src = make([]uint32, len(o.nbr))
	d.rev = make([]uint64, len(o.nbr))
	for u := 0; u < o.n; u++ {
		for p := o.off[u]; p < o.off[u+1]; p++ {
			d.src[p] = uint32(u)
			v := o.nbr[p]
			i, _ := slices.BinarySearch(o.all(int(v)), uint32(u))
			d.rev[p] = o.off[v] + uint64(i)
		}
	}
	return d
}

// globalKey is the key of a canonical shape in decomp.global.
func globalKey(s Shape) uint64 { return s.Canonical().Code()<<8 | uint64(s.K) }

// rootedCanonical relabels s so that vertices 0..roots-1 stay and the others take the
// relabelling with the smallest code.
func rootedCanonical(s Shape, roots int) Shape {
	best := s
	bc := s.Code()
	for _, p := range permutations(s.K) {
		fixed := true
		for i := 0; i < roots; i++ {
			if p[i] != uint8(i) {
				fixed = false
				break
			}
		}
		if !fixed {
			continue
		}
		t := s.permute(p)
		if c := t.Code(); c < bc {
			best, bc = t, c
		}
	}
	return best
}

// induced returns the subshape on the vertices listed (in that order).
func induced(s Shape, vs []int) Shape {
	t := Shape{K: len(vs)}
	for i, a := range vs {
		for j, b := range vs {
			if s.Adj[a]&(1<<b) != 0 {
				t.Adj[i] |= 1 << j
			}
		}
	}
	return t
}

// components lists the connected components of s without the vertices in mask.
func components(s Shape, mask uint8) [][]int {
	var out [][]int
	left := uint8(1<<s.K-1) &^ mask
	for left != 0 {
		start := bits.TrailingZeros8(left)
		seen := uint8(1) << start
		for frontier := seen; frontier != 0; {
			var next uint8
			for f := frontier; f != 0; f &= f - 1 {
				next |= s.Adj[bits.TrailingZeros8(f)]
			}
			next &^= mask
			frontier = next &^ seen
			seen |= next
		}
		var comp []int
		for f := seen; f != 0; f &= f - 1 {
			comp = append(comp, bits.TrailingZeros8(f))
		}
		out = append(out, comp)
		left &^= seen
	}
	return out
}

// quotient merges the vertices with equal block[v] (block[v] is a member of v's block) and
// returns the merged shape, blocks numbered in order of their first vertex, and each vertex's
// new index. Vertices alone in their blocks before the first merged one keep their index.
func quotient(s Shape, block []int) (Shape, []int) {
	id := make([]int, s.K)
	rep := map[int]int{}
	next := 0
	for v := 0; v < s.K; v++ {
		if x, ok := rep[block[v]]; ok {
			id[v] = x
			continue
		}
		rep[block[v]] = next
		id[v] = next
		next++
	}
	t := Shape{K: next}
	for a := 0; a < s.K; a++ {
		for r := s.Adj[a]; r != 0; r &= r - 1 {
			b := bits.TrailingZeros8(r)
			t.Adj[id[a]] |= 1 << id[b]
		}
	}
	return t, id
}

// mergeInto merges vertex a into vertex b and returns the shape and the vertices' new indices.
func mergeInto(s Shape, a, b int) (Shape, []int) {
	block := make([]int, s.K)
	for v := range block {
		block[v] = v
	}
	block[a] = b
	block[b] = b
	return quotient(s, block)
}

// collisions lists the quotients P/S over the partitions S of the vertices of comps (a block
// holds at most one vertex per component, and may hold one root that the component's piece
// does not contain: has[c] is the mask of the roots in component c's piece, nil for all)
// other than all singletons; the first `roots` vertices keep their indices.
func collisions(s Shape, comps [][]int, roots int, has []uint8) []Shape {
	var verts []int
	compOf := make([]int, s.K)
	for r := 0; r < roots; r++ {
		compOf[r] = -1
	}
	for i, c := range comps {
		for _, v := range c {
			verts = append(verts, v)
			compOf[v] = i
		}
	}
	block := make([]int, s.K)
	for v := range block {
		block[v] = v
	}
	var blocks [][]int // current blocks' members, the roots' first
	for r := 0; r < roots; r++ {
		blocks = append(blocks, []int{r})
	}
	var out []Shape
	var rec func(i int, merged bool)
	rec = func(i int, merged bool) {
		if i == len(verts) {
			if merged {
				q, _ := quotient(s, block)
				out = append(out, q)
			}
			return
		}
		v := verts[i]
		for b := range blocks {
			if b < roots && (has == nil || has[compOf[v]]&(1<<b) != 0) {
				continue
			}
			ok := true
			for _, w := range blocks[b] {
				if compOf[w] == compOf[v] {
					ok = false
					break
				}
			}
			if !ok {
				continue
			}
			blocks[b] = append(blocks[b], v)
			block[v] = blocks[b][0]
			rec(i+1, true)
			blocks[b] = blocks[b][:len(blocks[b])-1]
		}
		blocks = append(blocks, []int{v})
		block[v] = v
		rec(i+1, merged)
		blocks = blocks[:len(blocks)-1]
	}
	rec(0, false)
	return out
}

// withRoots relabels s so that the listed vertices come first, in order.
func withRoots(s Shape, roots ...int) Shape {
	perm := make([]uint8, s.K)
	used := uint8(0)
	for i, r := range roots {
		perm[r] = uint8(i)
		used |= 1 << r
	}
	next := len(roots)
	for v := 0; v < s.K; v++ {
		if used&(1<<v) == 0 {
			perm[v] = uint8(next)
			next++
		}
	}
	return s.permute(perm)
}

// errNoRule reports a rooted shape that no rule covers.
var errNoRule = fmt.Errorf("no decomposition rule")

// vertexVec returns the rooted counts of s rooted at vertex 0, per data vertex.
func (d *decomp) vertexVec(s Shape) ([]uint64, error) {
	s = rootedCanonical(s, 1)
	return d.rooted(rootedKey{1, s.Code(), s.K}, func() ([]uint64, error) { return d.vertexRules(s) })
}

// rooted returns key's vector or error, computing it (compute) when no goroutine has asked
// for it before: one computes, the others wait for its answer. The rules only ask for other
// keys (smaller or differently rooted shapes) while computing one, so no wait closes a cycle.
func (d *decomp) rooted(key rootedKey, compute func() ([]uint64, error)) ([]uint64, error) {
	d.mu.Lock()
	e, ok := d.vecs[key]
	if !ok {
		e = &rootedEntry{done: make(chan struct{})}
		d.vecs[key] = e
	}
	d.mu.Unlock()
	if !ok {
		e.v, e.err = compute()
		close(e.done)
	}
	<-e.done
	return e.v, e.err
}

// edgeVec returns the rooted counts of s rooted at the edge (0, 1), per adjacency position.
func (d *decomp) edgeVec(s Shape) ([]uint64, error) {
	s = rootedCanonical(s, 2)
	return d.rooted(rootedKey{2, s.Code(), s.K}, func() ([]uint64, error) { return d.edgeRules(s) })
}

// vec is a vector under construction: per element a value and an overflow flag for all.
type vec struct {
	v    []uint64
	over bool
}

func (a *vec) mulBy(b []uint64) {
	for i := range a.v {
		hi, lo := bits.Mul64(a.v[i], b[i])
		a.over = a.over || hi != 0
		a.v[i] = lo
	}
}

func (a *vec) sub(b []uint64) error {
	for i := range a.v {
		if b[i] > a.v[i] {
			return fmt.Errorf("decomposition goes negative (%d - %d): a bug", a.v[i], b[i])
		}
		a.v[i] -= b[i]
	}
	return nil
}

func (a *vec) result() ([]uint64, error) {
	if a.over {
		return nil, ErrOverflow
	}
	return a.v, nil
}

func ones(n int) []uint64 {
	v := make([]uint64, n)
	for i := range v {
		v[i] = 1
	}
	return v
}

// glue multiplies the pieces' rooted vectors (get returns one) and subtracts the collisions'.
func (d *decomp) glue(s Shape, roots int, comps [][]int, get func(Shape) ([]uint64, error), n int) ([]uint64, error) {
	r := vec{v: ones(n)}
	rootList := make([]int, roots)
	for i := range rootList {
		rootList[i] = i
	}
	for _, c := range comps {
		p, err := get(induced(s, append(slices.Clone(rootList), c...)))
		if err != nil {
			return nil, err
		}
		r.mulBy(p)
	}
	for _, q := range collisions(s, comps, roots, nil) {
		p, err := get(q)
		if err != nil {
			return nil, err
		}
		if err := r.sub(p); err != nil {
			return nil, err
		}
	}
	return r.result()
}

func (d *decomp) vertexRules(s Shape) ([]uint64, error) {
	o := d.l.o
	if s.K == 1 {
		return ones(o.n), nil
	}
	if comps := components(s, 1); len(comps) > 1 {
		return d.glue(s, 1, comps, d.vertexVec, o.n)
	}
	if s.Degree(0) == 1 {
		y := bits.TrailingZeros8(s.Adj[0])
		rest := make([]int, 0, s.K-1)
		rest = append(rest, y)
		for v := 1; v < s.K; v++ {
			if v != y {
				rest = append(rest, v)
			}
		}
		inner, err := d.vertexVec(induced(s, rest))
		if err != nil {
			return nil, err
		}
		r := vec{v: make([]uint64, o.n)}
		for x := 0; x < o.n; x++ {
			var t sum
			for _, w := range o.all(x) {
				t.add(inner[w])
			}
			r.v[x] = t.v
			r.over = r.over || t.over
		}
		for z := 1; z < s.K; z++ {
			if z == y {
				continue
			}
			q, id := mergeInto(s, 0, z)
			p, err := d.vertexVec(withRoots(q, id[z]))
			if err != nil {
				return nil, err
			}
			if err := r.sub(p); err != nil {
				return nil, err
			}
		}
		return r.result()
	}
	for a := s.Adj[0]; a != 0; a &= a - 1 {
		y := bits.TrailingZeros8(a)
		e, err := d.edgeVec(withRoots(s, 0, y))
		if err != nil {
			continue
		}
		r := vec{v: make([]uint64, o.n)}
		for x := 0; x < o.n; x++ {
			var t sum
			for p := o.off[x]; p < o.off[x+1]; p++ {
				t.add(e[p])
			}
			r.v[x] = t.v
			r.over = r.over || t.over
		}
		return r.result()
	}
	if s.K == 5 {
		return d.fiveRooted(s)
	}
	return nil, errNoRule
}

func (d *decomp) edgeRules(s Shape) ([]uint64, error) {
	o := d.l.o
	m := len(o.nbr)
	if s.K == 2 {
		return ones(m), nil
	}
	if comps := components(s, 3); len(comps) > 1 {
		return d.glue(s, 2, comps, d.edgeVec, m)
	}
	switch {
	case s.Degree(0) == 1:
		return d.leafEdge(s)
	case s.Degree(1) == 1:
		e, err := d.edgeVec(withRoots(s, 1, 0))
		if err != nil {
			return nil, err
		}
		r := make([]uint64, m)
		for p := range r {
			r[p] = e[d.rev[p]]
		}
		return r, nil
	}
	l := d.l
	var base func(p uint64) uint64
	switch {
	case s.K == 3: // triangle
		base = func(p uint64) uint64 { return uint64(l.te[p]) }
	case s.K == 4 && s.Edges() == 4 && s.Degree(2) == 2 && s.Degree(3) == 2: // 4-cycle through the edge (0, 1)
		base = func(p uint64) uint64 { return l.c4e[p] }
	case s.K == 4 && s.Edges() == 6:
		base = func(p uint64) uint64 { return l.k4e[p] }
	default:
		return d.triangleCoreEdge(s)
	}
	r := make([]uint64, m)
	for p := range r {
		r[p] = base(l.canon[p])
	}
	return r, nil
}

// triangleCoreEdge: root edge (0, 1) with a common neighbour w in s such that every component
// of s - {0, 1, w} hangs from one vertex or edge of the triangle: per data edge, the sum over
// its triangles of the pieces' weights, minus the collisions (rooted at the edge).
func (d *decomp) triangleCoreEdge(s Shape) ([]uint64, error) {
	o := d.l.o
	for c := s.Adj[0] & s.Adj[1]; c != 0; c &= c - 1 {
		r := withRoots(s, 0, 1, bits.TrailingZeros8(c))
		comps := components(r, 7)
		if !hangs(r, 7, comps) {
			continue
		}
		w, has, err := d.pieceWeights(r, 3, comps)
		if err == errNoRule {
			continue
		}
		if err != nil {
			return nil, err
		}
		out := vec{v: make([]uint64, len(o.nbr))}
		// the data edges on all the threads, each with its own overflow flag
		out.over = spans(d.threads, len(out.v), func(lo, hi int) bool {
			var a acc
			for p := lo; p < hi; p++ {
				out.v[p] = d.triangleWeight(w, &a, uint64(p))
			}
			return a.over
		})
		for _, q := range collisions(r, comps, 3, has) {
			e, err := d.edgeVec(q)
			if err != nil {
				return nil, err
			}
			if err := out.sub(e); err != nil {
				return nil, err
			}
		}
		return out.result()
	}
	return nil, errNoRule
}

// triangleWeight is triangleCoreEdge's sum at the data edge at position p: the weights of its
// ends and of itself times the sum over its triangles of the third vertex's and edges' weights.
func (d *decomp) triangleWeight(w *weights, a *acc, p uint64) uint64 {
	o := d.l.o
	x, y := d.src[p], o.nbr[p]
	base := a.mul(a.mul(d.vw(w, 0, x), d.vw(w, 1, y)), d.ew(w, 0, 1, p))
	if base == 0 {
		return 0
	}
	var t sum
	if w.e[0][2] == nil && w.e[1][2] == nil {
		for _, z := range d.l.triangleList(p) {
			t.add(d.vw(w, 2, z))
		}
	} else if tl := d.l.triangleList(p); 8*len(tl) < len(o.all(int(x)))+len(o.all(int(y))) {
		for _, z := range tl {
			v := a.mul(d.vw(w, 2, z), d.ew(w, 0, 2, d.pos(x, z)))
			t.add(a.mul(v, d.ew(w, 1, 2, d.pos(y, z))))
		}
	} else {
		// the common neighbours with their positions in both lists
		setops.IntersectEach(o.all(int(x)), o.all(int(y)), func(i, j int) {
			z := o.nbr[o.off[x]+uint64(i)]
			v := a.mul(d.vw(w, 2, z), d.ew(w, 0, 2, o.off[x]+uint64(i)))
			t.add(a.mul(v, d.ew(w, 1, 2, o.off[y]+uint64(j))))
		})
	}
	a.over = a.over || t.over
	return a.mul(base, t.v)
}

// leafEdge: root edge (0, 1) with 0 a leaf; the count at (x, y) is Q - 0 rooted at y minus the
// maps of Q - 0 that put a vertex z on x (Q/(0=z) rooted at (merged, 1)).
func (d *decomp) leafEdge(s Shape) ([]uint64, error) {
	o := d.l.o
	rest := make([]int, 0, s.K-1)
	for v := 1; v < s.K; v++ {
		rest = append(rest, v)
	}
	inner, err := d.vertexVec(induced(s, rest))
	if err != nil {
		return nil, err
	}
	r := vec{v: make([]uint64, len(o.nbr))}
	for p := range r.v {
		r.v[p] = inner[o.nbr[p]]
	}
	for z := 2; z < s.K; z++ {
		q, id := mergeInto(s, 0, z)
		e, err := d.edgeVec(withRoots(q, id[z], id[1]))
		if err != nil {
			return nil, err
		}
		if err := r.sub(e); err != nil {
			return nil, err
		}
	}
	return r.result()
}

// newSixDecomp builds the decomposition of a 6-vertex census: the global counts of the
// connected shapes on 1 to 5 vertices come from the formulas.
func newSixDecomp(l *locals) (*decomp, error) {
	o := l.o
	global := map[uint64]uint64{}
	global[globalKey(Shape{K: 1})] = uint64(o.n)
	two, over := mul(o.m, 2)
	if over {
		return nil, ErrOverflow
	}
	global[globalKey(Shape{K: 2, Adj: [MaxK]uint8{2, 1}})] = two
	for k := 3; k <= 5; k++ {
		for _, s := range ConnectedShapes(k) {
			n, ok, err := l.formula(s)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", s.Name(), err)
			}
			if !ok {
				return nil, fmt.Errorf("%s: no formula", s.Name())
			}
			x, over := mul(n, s.Automorphisms())
			if over {
				return nil, ErrOverflow
			}
			global[globalKey(s)] = x
		}
	}
	return newDecomp(l, global), nil
}

// count returns inj(s) for a connected shape s, or errNoRule, with the rule that found it.
func (d *decomp) count(s Shape) (uint64, string, error) { return d.countRules(s, true) }

// errHeavy says that a shape's count needs a sum over the data graph with per-worker scratch (a
// core of 3 or more vertices, or homomorphisms), which countRules was told to leave for later.
var errHeavy = errors.New("core sum or homomorphism count left for later")

// decompResult is count's answer for one shape, with the time it took.
type decompResult struct {
	inj     uint64
	rule    string
	err     error
	elapsed time.Duration
}

// countAll counts the shapes as count does, on up to d.threads goroutines: first the rooted
// vectors and the light sums (vertex and edge cores), several shapes at once (one goroutine
// each; the rooted vectors they share are computed once, by the first to ask, and the sums over
// data edges inside the rules use all the threads), then the core sums of 3 or more vertices
// and the homomorphism counts, one shape after another, each on all the threads (vertexSum,
// homCount: per-worker scratch, so one shape's at a time). Every count is an exact sum, so the
// results do not depend on the thread count or the order; a cancelled ctx leaves its error on
// the shapes not done.
func (d *decomp) countAll(ctx context.Context, shapes []Shape) []decompResult {
	res := make([]decompResult, len(shapes))
	one := func(i int, heavy bool) {
		t := time.Now()
		res[i].inj, res[i].rule, res[i].err = d.countRules(shapes[i], heavy)
		res[i].elapsed += time.Since(t)
	}
	if _, err := workersCtx(ctx, d.threads, len(shapes), func(_, i int) { one(i, false) }); err != nil {
		for i := range res {
			res[i].err = err
		}
		return res
	}
	for i := range res {
		if res[i].err != errHeavy {
			continue
		}
		if err := ctx.Err(); err != nil {
			res[i].err = err
			continue
		}
		one(i, true)
	}
	return res
}

// countRules is count, which with heavy false returns errHeavy instead of a core sum of 3 or
// more vertices or a homomorphism count (once the rooted vectors it needs are there).
func (d *decomp) countRules(s Shape, heavy bool) (uint64, string, error) {
	if x, ok := d.global[globalKey(s)]; ok {
		return x, "formula", nil
	}
	total := func(v []uint64) (uint64, error) {
		var t sum
		for _, x := range v {
			t.add(x)
		}
		return t.result()
	}
	for _, order := range coreOrders(s) {
		pair := isPair(s, order)
		x, err := d.coreCount(s, order, pair, heavy)
		if err == nil {
			if pair {
				return x, fmt.Sprintf("K2,%d core", len(order)-2), nil
			}
			if len(order) == 4 && s.Edges()-edgesOutside(withRoots(s, order...), 4) == 6 {
				return x, "4-clique core", nil
			}
			return x, []string{"", "cut vertex", "edge cut", "triangle core", "4-cycle core", "5-cycle core"}[len(order)], nil
		}
		if err != errNoRule {
			return 0, "", err
		}
	}
	for c := 0; c < s.K; c++ {
		v, err := d.vertexVec(withRoots(s, c))
		if err == nil {
			x, err := total(v)
			return x, "rooted", err
		}
		if err != errNoRule {
			return 0, "", err
		}
	}
	if rm := apex(s); rm != 0 {
		if !heavy {
			return 0, "", errHeavy
		}
		h, err := d.homCount(s, rm)
		if err != nil {
			return 0, "", err
		}
		x, err := d.homInj(s, h)
		return x, "homomorphisms", err
	}
	return 0, "", errNoRule
}
