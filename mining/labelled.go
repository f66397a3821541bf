package mining

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/bits"
	"slices"

	"github.com/submatch/submatch/gpu"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/pattern"
)

// LabelledMotif is one connected k-vertex pattern with vertex labels and its counts (distinct
// subgraphs; embeddings are these times Automorphisms, the label-preserving automorphisms).
type LabelledMotif struct {
	Shape  Shape
	Labels []uint32 // per shape vertex
	// Name is the shape's name (3 to 5 vertices).
	Name          string
	Pattern       string // inline, with the labels
	Automorphisms uint64
	NonInduced    uint64
	Induced       uint64
}

// Embeddings returns the non-induced and induced embedding counts, or ErrOverflow.
func (m LabelledMotif) Embeddings() (nonInduced, induced uint64, err error) {
	return embeddings(m.Pattern, m.NonInduced, m.Induced, m.Automorphisms)
}

// labelledKey is a shape with labels in a fixed vertex order.
type labelledKey struct {
	code   uint64
	labels [MaxK]uint32
}

// canonicalLabelled returns the relabelling of (s, labels) with the smallest (code, labels).
func canonicalLabelled(s Shape, labels [MaxK]uint32) (Shape, [MaxK]uint32) {
	best, bl := s, labels
	for _, p := range permutations(s.K) {
		t := s.permute(p)
		var tl [MaxK]uint32
		for i := 0; i < s.K; i++ {
			tl[p[i]] = labels[i]
		}
		if c := cmp.Compare(t.Code(), best.Code()); c < 0 || (c == 0 && slices.Compare(tl[:s.K], bl[:s.K]) < 0) {
			best, bl = t, tl
		}
	}
	return best, bl
}

// CountLabelled runs a census of the connected opts.K-vertex patterns (K = 3..5) with their
// vertex labels: one count per shape and label assignment up to isomorphism (edge labels are
// ignored). It enumerates every connected induced K-vertex subgraph once (Wernicke's ESU on the
// CPU, the lowest vertices shared among opts.Threads workers; on the GPU, with opts.Device GPU or Auto, a thread per out-edge of the lowest vertex by reverse search,
// tallied per sorted label multiset and adjacency: census_labelled in kernels/census.cu), so it
// takes time proportional to their number: it is meant for small and medium graphs. Non-induced
// counts follow from the induced ones by counting, in each induced class, the connected spanning
// edge subsets. The GPU's tally is dense, C(L + K - 1, K) x 2^(K(K-1)/2) entries for L distinct
// labels, where that is at most 2^24 entries and fits (GPUMemory), and otherwise a hash table of
// the (labels, shape) classes met, in passes over hash residues when one table does not hold
// them all (any number of labels); only when not even a small table fits does GPU fail with an
// error wrapping gpu.ErrBudget, and Auto runs on the CPU.
func CountLabelled(ctx context.Context, g *graph.Graph, opts Options) ([]LabelledMotif, error) {
	k := opts.K
	if k < 3 || k > 5 {
		return nil, fmt.Errorf("labelled census: motif size %d: expected 3..5", k)
	}
	log := opts.Log
	if log == nil {
		log = slog.Default()
	}
	o := newOrdered(g)
	lc := newLabelledCensus(k)
	cg, err := openCensusGPU(ctx, o, opts.Device, opts.GPUMemory, log)
	if err != nil {
		return nil, fmt.Errorf("labelled census: %w", err)
	}
	defer cg.free()
	onCPU := cg == nil
	if cg != nil {
		err := cg.labelled(ctx, g, o, lc, log)
		if err != nil && cg.auto && errors.Is(err, gpu.ErrBudget) {
			log.Debug("labelled census: the tally does not fit on the GPU; CPU instead", "err", err)
			lc, onCPU = newLabelledCensus(k), true
		} else if err != nil {
			return nil, fmt.Errorf("labelled census: %w", err)
		}
	}
	if onCPU {
		if err := lc.esu(ctx, g, o, opts.Threads); err != nil {
			return nil, err
		}
	}
	return lc.finish()
}

// labelledCensus collects the induced counts of a labelled census per class.
type labelledCensus struct {
	k       int
	raw     map[labelledKey]int // raw (shape, labels) in enumeration order -> class
	classes []labelledKey       // canonical forms
	classOf map[labelledKey]int
	induced []uint64
}

func newLabelledCensus(k int) *labelledCensus {
	return &labelledCensus{k: k, raw: map[labelledKey]int{}, classOf: map[labelledKey]int{}}
}

// class returns the class of (s, labels), adding it when new.
func (lc *labelledCensus) class(s Shape, labels [MaxK]uint32) int {
	cs, cl := canonicalLabelled(s, labels)
	key := labelledKey{cs.Code(), cl}
	c, ok := lc.classOf[key]
	if !ok {
		c = len(lc.classes)
		lc.classOf[key] = c
		lc.classes = append(lc.classes, key)
		lc.induced = append(lc.induced, 0)
	}
	return c
}

// add counts n induced subgraphs of shape s with labels in s's vertex order.
func (lc *labelledCensus) add(s Shape, labels [MaxK]uint32, n uint64) error {
	key := labelledKey{s.Code(), labels}
	c, ok := lc.raw[key]
	if !ok {
		c = lc.class(s, labels)
		lc.raw[key] = c
	}
	var carry uint64
	lc.induced[c], carry = bits.Add64(lc.induced[c], n, 0)
	if carry != 0 {
		return ErrOverflow
	}
	return nil
}

// esu enumerates the connected induced k-vertex subgraphs of o on the CPU (Wernicke's ESU, each
// once from its lowest vertex) into lc, the roots shared among threads workers (each tallies the
// raw forms it meets; lc classifies them at the end).
func (lc *labelledCensus) esu(ctx context.Context, g *graph.Graph, o *ordered, threads int) error {
	k := lc.k
	nw := workersCount(threads, o.n)
	ws := make([]esuWorker, nw)
	for i := range ws {
		ws[i] = esuWorker{k: k, g: g, o: o, sub: make([]uint32, 0, k), adjCount: make([]uint8, o.n),
			inSub: make([]bool, o.n), raw: map[labelledKey]uint64{}}
	}
	_, err := o.vertexWorkers(ctx, threads, func(wk, v int) { ws[wk].root(uint32(v)) })
	if err != nil {
		return err
	}
	for i := range ws {
		for key, n := range ws[i].raw {
			if err := lc.add(shapeFromCode(k, key.code), key.labels, n); err != nil {
				return err
			}
		}
	}
	return nil
}

// esuWorker is one worker's ESU state.
type esuWorker struct {
	k        int
	g        *graph.Graph
	o        *ordered
	sub      []uint32
	adjCount []uint8 // members of sub adjacent to each vertex
	inSub    []bool
	raw      map[labelledKey]uint64 // raw (shape, labels) in enumeration order -> subgraphs
}

// root enumerates the subgraphs whose lowest vertex is v.
func (w *esuWorker) root(v uint32) {
	o := w.o
	w.sub = append(w.sub[:0], v)
	w.add(v, 1)
	var ext []uint32
	for _, u := range o.all(int(v)) {
		if u > v {
			ext = append(ext, u)
		}
	}
	w.visit(ext, v)
	w.add(v, -1)
}

func (w *esuWorker) add(x uint32, d int8) {
	w.inSub[x] = d > 0
	for _, y := range w.o.all(int(x)) {
		w.adjCount[y] = uint8(int8(w.adjCount[y]) + d)
	}
}

func (w *esuWorker) visit(ext []uint32, root uint32) {
	if len(w.sub) == w.k-1 {
		// the last vertex: each of ext completes one subgraph (no extension to build)
		for _, x := range ext {
			w.sub = append(w.sub, x)
			w.record()
			w.sub = w.sub[:len(w.sub)-1]
		}
		return
	}
	for i := len(ext) - 1; i >= 0; i-- {
		x := ext[i]
		rest := slices.Clone(ext[:i])
		// exclusive neighbours of x: above the root, not in sub and not next to it
		for _, u := range w.o.all(int(x)) {
			if u > root && !w.inSub[u] && w.adjCount[u] == 0 {
				rest = append(rest, u)
			}
		}
		w.sub = append(w.sub, x)
		w.add(x, 1)
		w.visit(rest, root)
		w.add(x, -1)
		w.sub = w.sub[:len(w.sub)-1]
	}
}

func (w *esuWorker) record() {
	s := Shape{K: w.k}
	var labels [MaxK]uint32
	for i, x := range w.sub {
		labels[i] = w.g.VertexLabel(w.o.orig[x])
		for j := i + 1; j < w.k; j++ {
			if _, ok := slices.BinarySearch(w.o.all(int(x)), w.sub[j]); ok {
				s.Adj[i] |= 1 << j
				s.Adj[j] |= 1 << i
			}
		}
	}
	w.raw[labelledKey{s.Code(), labels}]++
}

// finish derives the non-induced counts and returns the classes in the census's order.
func (lc *labelledCensus) finish() ([]LabelledMotif, error) {
	k := lc.k
	// Non-induced: each induced class contributes to the classes of its connected spanning
	// edge subsets (same labels).
	nonInduced := make([]uint64, len(lc.classes))
	for c := range len(lc.induced) {
		key := lc.classes[c]
		h := shapeFromCode(k, key.code)
		var edges [][2]int
		for i := 0; i < k; i++ {
			for j := i + 1; j < k; j++ {
				if h.Adj[i]&(1<<j) != 0 {
					edges = append(edges, [2]int{i, j})
				}
			}
		}
		for mask := 1; mask < 1<<len(edges); mask++ {
			t := Shape{K: k}
			for m := mask; m != 0; m &= m - 1 {
				e := edges[bits.TrailingZeros(uint(m))]
				t.Adj[e[0]] |= 1 << e[1]
				t.Adj[e[1]] |= 1 << e[0]
			}
			if !t.Connected() {
				continue
			}
			d := lc.class(t, key.labels)
			for len(nonInduced) < len(lc.classes) {
				nonInduced = append(nonInduced, 0)
			}
			var carry uint64
			nonInduced[d], carry = bits.Add64(nonInduced[d], lc.induced[c], 0)
			if carry != 0 {
				return nil, ErrOverflow
			}
		}
	}
	out := make([]LabelledMotif, len(lc.classes))
	for c, key := range lc.classes {
		s := shapeFromCode(k, key.code)
		m := LabelledMotif{Shape: s, Labels: slices.Clone(key.labels[:k]), Name: s.Name(), NonInduced: nonInduced[c], Induced: lc.induced[c]}
		for _, p := range permutations(k) {
			t := s.permute(p)
			same := t.Code() == s.Code()
			for i := 0; i < k && same; i++ {
				same = key.labels[p[i]] == key.labels[i]
			}
			if same {
				m.Automorphisms++
			}
		}
		m.Pattern = inline(labelledPattern(s, m.Labels))
		out[c] = m
	}
	order := ConnectedShapes(k)
	rank := map[uint64]int{}
	for i, s := range order {
		rank[s.Code()] = i
	}
	slices.SortFunc(out, func(a, b LabelledMotif) int {
		if c := cmp.Compare(rank[a.Shape.Code()], rank[b.Shape.Code()]); c != 0 {
			return c
		}
		return slices.Compare(a.Labels, b.Labels)
	})
	return out, nil
}

// labelIndex returns each ordered vertex's label as an index into the sorted distinct labels,
// and those labels.
func labelIndex(g *graph.Graph, o *ordered) (idx, labels []uint32) {
	idx = make([]uint32, o.n)
	for x := range o.n {
		idx[x] = g.VertexLabel(o.orig[x])
	}
	labels = slices.Clone(idx)
	slices.Sort(labels)
	labels = slices.Compact(labels)
	for x, l := range idx {
		i, _ := slices.BinarySearch(labels, l)
		idx[x] = uint32(i)
	}
	return idx, labels
}

// labelledTableSize is the number of entries of census_labelled's tally for L labels, or false
// when it passes 2^62.
func labelledTableSize(k, L int) (uint64, bool) {
	c, over := chooseBig(uint64(L+k-1), k)
	pairs := k * (k - 1) / 2
	if over || c >= 1<<(62-pairs) {
		return 0, false
	}
	return c << pairs, true
}

// chooseBig is C(n, r) for small r, false on overflow.
func chooseBig(n uint64, r int) (uint64, bool) {
	if uint64(r) > n {
		return 0, false
	}
	c := uint64(1)
	for i := 1; i <= r; i++ {
		hi, lo := bits.Mul64(c, n-uint64(r)+uint64(i))
		if hi != 0 {
			return 0, true
		}
		c = lo / uint64(i)
	}
	return c, false
}

// addTable adds census_labelled's tally (entries rank << pairs | code, see the kernel) to lc,
// labels being the label of each index.
func (lc *labelledCensus) addTable(table []uint64, labels []uint32) error {
	k := lc.k
	pairs := k * (k - 1) / 2
	for e, n := range table {
		if n == 0 {
			continue
		}
		rank, code := uint64(e)>>pairs, uint32(e)&(1<<pairs-1)
		// unrank the multiset: from the top, the largest c_i with C(c_i, i+1) <= what is left
		var ls [MaxK]uint32
		for i := k - 1; i >= 0; i-- {
			c := uint64(i)
			for {
				x, _ := chooseBig(c+1, i+1)
				if x > rank {
					break
				}
				c++
			}
			x, _ := chooseBig(c, i+1)
			rank -= x
			l := c - uint64(i)
			if l >= uint64(len(labels)) {
				return fmt.Errorf("labelled census: GPU tally entry %d: label index %d of %d", e, l, len(labels))
			}
			ls[i] = labels[l]
		}
		if err := lc.addCoded(code, ls, n); err != nil {
			return fmt.Errorf("labelled census: GPU tally entry %d: %w", e, err)
		}
	}
	return nil
}

// addCoded adds n induced subgraphs whose vertices, sorted by label, have the labels ls and the
// adjacency code (census_labelled's: bit i for the i-th pair (0,1), (0,2), ..., (1,2), ...).
func (lc *labelledCensus) addCoded(code uint32, ls [MaxK]uint32, n uint64) error {
	k := lc.k
	s := Shape{K: k}
	bit := 0
	for a := 0; a < k; a++ {
		for b := a + 1; b < k; b++ {
			if code>>bit&1 != 0 {
				s.Adj[a] |= 1 << b
				s.Adj[b] |= 1 << a
			}
			bit++
		}
	}
	if !s.Connected() {
		return errors.New("a disconnected subgraph")
	}
	return lc.add(s, ls, n)
}

// census_labelled's hash tally (any number of labels): slots of 8 words of key and state and 8
// bytes of count, between labelledHashMin and labelledHashMax of them (2.5 KiB to 640 MiB).
const (
	labelledHashMin = 1 << 6
	labelledHashMax = 1 << 24
	labelledSlot    = 40 // bytes a slot
)

// hashPass runs census_labelled's hash tally once, in a table of capacity slots, over the
// subgraphs whose key hash falls in residue res modulo mod: it returns the table's keys (8 words
// a slot) and counts, or full when the table filled (the pass is void), or an error (wrapping
// gpu.ErrBudget when the table does not fit).
type hashPass func(capacity uint64, res, mod uint32) (keys []uint32, counts []uint64, full bool, err error)

// hashTally fills lc from census_labelled's hash tally, labels naming the label indexes: a pass
// over all keys first, in a table of capacity slots; a table that fills is taken 4 times larger
// (up to maxCap, or the largest that fitted) and the pass run again, or else split into two
// passes of twice the modulus (each about half the keys); a table that does not fit is halved
// (down to labelledHashMin). It returns the number of passes run.
func (lc *labelledCensus) hashTally(labels []uint32, capacity, maxCap uint64, run hashPass) (int, error) {
	type part struct{ res, mod uint32 }
	todo := []part{{0, 1}}
	passes := 0
	for len(todo) > 0 {
		p := todo[len(todo)-1]
		keys, counts, full, err := run(capacity, p.res, p.mod)
		passes++
		switch {
		case errors.Is(err, gpu.ErrBudget) && capacity > labelledHashMin:
			capacity /= 2
			maxCap = capacity
			continue
		case err != nil:
			return passes, err
		case full && capacity < maxCap:
			capacity = min(maxCap, 4*capacity)
			continue
		case full && p.mod >= 1<<24:
			return passes, fmt.Errorf("the labelled tally does not fit in %d slots of 2^-24 of the keys: %w", capacity, gpu.ErrBudget)
		case full:
			todo[len(todo)-1] = part{p.res, 2 * p.mod}
			todo = append(todo, part{p.res + p.mod, 2 * p.mod})
			continue
		}
		todo = todo[:len(todo)-1]
		for sl, n := range counts {
			w := keys[8*sl : 8*sl+8]
			if w[0] == 0 {
				continue
			}
			var ls [MaxK]uint32
			for i := range lc.k {
				if w[1+i] >= uint32(len(labels)) {
					return passes, fmt.Errorf("labelled census: GPU hash slot %d: label index %d of %d", sl, w[1+i], len(labels))
				}
				ls[i] = labels[w[1+i]]
			}
			if w[0] != 2 || n == 0 {
				return passes, fmt.Errorf("labelled census: GPU hash slot %d: state %d, count %d", sl, w[0], n)
			}
			if err := lc.addCoded(w[6], ls, n); err != nil {
				return passes, fmt.Errorf("labelled census: GPU hash slot %d: %w", sl, err)
			}
		}
	}
	return passes, nil
}

func shapeFromCode(k int, code uint64) Shape {
	s := Shape{K: k}
	for i := 0; i < k; i++ {
		s.Adj[i] = uint8(code >> (8 * i))
	}
	return s
}

// labelledPattern is s as a pattern with exact vertex labels (wildcard edge labels), its
// vertices in s's order.
func labelledPattern(s Shape, labels []uint32) *pattern.Pattern {
	vl := make([]pattern.Label, s.K)
	names := make([]string, s.K)
	for i := range vl {
		vl[i] = pattern.Exact(labels[i])
		names[i] = string(rune('a' + i))
	}
	var edges []pattern.Edge
	for i := 0; i < s.K; i++ {
		for j := i + 1; j < s.K; j++ {
			if s.Adj[i]&(1<<j) != 0 {
				edges = append(edges, pattern.Edge{U: i, V: j, Label: pattern.Wildcard})
			}
		}
	}
	p, err := pattern.New(vl, edges, names)
	if err != nil {
		panic("mining: " + err.Error())
	}
	return p
}
