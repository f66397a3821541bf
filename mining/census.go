// Package mining owns motif census: counting every connected k-vertex pattern (3 <= k <= 6) of
// an unlabelled data graph at once, non-induced and vertex-induced, as distinct subgraphs and as
// embeddings. The shapes are enumerated up to isomorphism (Shape, ConnectedShapes), named for
// 3 to 5 vertices, and related by their containment matrix (Containment), which turns the
// non-induced counts into induced ones. Non-induced counts come from closed formulas over local
// counts (degrees, triangles per edge, 4-cycles, cliques, found once on a degree-ordered copy of
// the graph) for 3 to 5 vertices; 6-vertex ones by decomposition (decomp.go: pieces glued at
// cut vertices, edges and small cores, rooted counts, homomorphisms over an apex, collisions
// subtracted as smaller shapes' counts); the shapes no rule covers are counted one by one by
// the CPU matching engine.
package mining

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/bits"
	"strings"
	"time"

	"github.com/submatch/submatch/engine"
	_ "github.com/submatch/submatch/engine/cpu" // registers the "cpu" engine, the fallback
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/pattern"
)

// Options configure a census.
type Options struct {
	// K is the number of pattern vertices, 3..MaxK.
	K int
	// Threads is the number of worker goroutines (<= 0: all cores).
	Threads int
	// Log receives debug records (where the time went); nil: slog.Default().
	Log *slog.Logger
	// Device says where the heavy local counts run (Count and CountPerVertex): CPU (default), GPU
	// or Auto (the GPU when one is usable; a phase that does not fit in its memory runs on the CPU).
	Device Device
	// GPUMemory bounds the device memory the census allocates (0: the device's budget, free
	// memory less a margin). On Device GPU a phase that needs more fails with an error wrapping
	// gpu.ErrBudget; on Auto it runs on the CPU.
	GPUMemory uint64
	// Memory bounds the per-worker scratch of the CPU phases that keep dense per-vertex arrays
	// (the 5-vertex orbits, the 6-vertex decomposition): fewer workers run when threads x
	// vertices would exceed it (0: DefaultScratch; at least one worker always runs).
	Memory uint64
}

// DefaultScratch is the default bound on the dense per-worker scratch (Options.Memory).
const DefaultScratch = 4 << 30

// Motif is one connected k-vertex pattern with its counts. Counts are distinct subgraphs
// ("unique"); embeddings are those times Automorphisms (see Embeddings).
type Motif struct {
	Shape Shape
	// Name is the usual name for 3 to 5 vertices ("" for 6).
	Name string
	// Pattern is the shape in the inline syntax of package pattern.
	Pattern       string
	Edges         int
	Automorphisms uint64
	// NonInduced counts the subgraphs (edge sets) isomorphic to the shape.
	NonInduced uint64
	// Induced counts the vertex sets whose induced subgraph is isomorphic to the shape.
	Induced uint64
	// Method says how NonInduced was found: "formula", "decomposition" (6 vertices) or "engine".
	Method string
}

// Embeddings returns the non-induced and induced embedding counts (injective maps of the
// pattern's vertices), or ErrOverflow.
func (m Motif) Embeddings() (nonInduced, induced uint64, err error) {
	return embeddings(m.Pattern, m.NonInduced, m.Induced, m.Automorphisms)
}

// embeddings multiplies unique counts by |Aut|, checked.
func embeddings(p string, nonInduced, induced, aut uint64) (uint64, uint64, error) {
	a, oa := mul(nonInduced, aut)
	b, ob := mul(induced, aut)
	if oa || ob {
		return 0, 0, fmt.Errorf("embeddings of %s: %w", p, ErrOverflow)
	}
	return a, b, nil
}

// Census is the result of Count.
type Census struct {
	K      int
	Motifs []Motif
	// Vertices and Edges describe the data graph.
	Vertices int
	Edges    uint64
}

// ErrOverflow is engine.ErrOverflow: a count does not fit in a uint64.
var ErrOverflow = engine.ErrOverflow

// Count runs the census of every connected opts.K-vertex pattern of g, ignoring labels.
func Count(ctx context.Context, g *graph.Graph, opts Options) (*Census, error) {
	if opts.K < 3 || opts.K > MaxK {
		return nil, fmt.Errorf("motif size %d: expected 3..%d", opts.K, MaxK)
	}
	log := opts.Log
	if log == nil {
		log = slog.Default()
	}
	shapes := ConnectedShapes(opts.K)
	c := &Census{K: opts.K, Vertices: g.NumVertices(), Edges: g.NumEdges()}
	start := time.Now()
	o := newOrdered(g)
	cg, err := openCensusGPU(ctx, o, opts.Device, opts.GPUMemory, log)
	if err != nil {
		return nil, err
	}
	defer cg.free()
	if cg != nil {
		log.Debug("census on the GPU", "device", cg.d.String(), "elapsed", time.Since(start).Round(time.Microsecond))
	}
	loc := &locals{o: o, k: opts.K, gpu: cg, scratch: opts.Memory}
	if err := loc.compute(ctx, opts.Threads, log); err != nil {
		return nil, err
	}
	log.Debug("census local counts", "k", opts.K, "elapsed", time.Since(start).Round(time.Microsecond))
	var dec *decomp
	if opts.K == 6 {
		if dec, err = newSixDecomp(loc); err != nil {
			return nil, err
		}
		dec.threads, dec.ctx = opts.Threads, ctx
	}
	// the decomposition's shapes (those without a formula), counted together up front
	var decomposed map[int]decompResult
	if dec != nil {
		var todo []Shape
		var at []int
		for i, s := range shapes {
			if _, ok, err := loc.formula(s); err == nil && !ok {
				todo = append(todo, s)
				at = append(at, i)
			}
		}
		t := time.Now()
		res := dec.countAll(ctx, todo)
		decomposed = make(map[int]decompResult, len(res))
		for j, r := range res {
			decomposed[at[j]] = r
		}
		log.Debug("census decomposition, all shapes", "shapes", len(todo), "elapsed", time.Since(t).Round(time.Microsecond))
	}
	for i, s := range shapes {
		m := Motif{Shape: s, Name: s.Name(), Edges: s.Edges(), Automorphisms: s.Automorphisms()}
		p := s.Pattern()
		m.Pattern = inline(p)
		n, ok, err := loc.formula(s)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", m.Pattern, err)
		}
		if r, in := decomposed[i]; !ok && in {
			inj, rule, err := r.inj, r.rule, r.err
			switch {
			case err == nil:
				if inj%m.Automorphisms != 0 {
					return nil, fmt.Errorf("%s: %d embeddings, not a multiple of |Aut| = %d: a bug", m.Pattern, inj, m.Automorphisms)
				}
				n, ok = inj/m.Automorphisms, true
				log.Debug("census decomposition", "pattern", m.Pattern, "rule", rule, "elapsed", r.elapsed.Round(time.Microsecond))
			case errors.Is(err, ErrOverflow):
				// an intermediate product (not necessarily the count) passed 2^64
				log.Debug("census decomposition overflows; engine instead", "pattern", m.Pattern)
			case !errors.Is(err, errNoRule):
				return nil, fmt.Errorf("%s: %w", m.Pattern, err)
			}
		}
		if ok {
			m.Method = "formula"
			if s.K == 6 {
				m.Method = "decomposition"
			}
		} else {
			t := time.Now()
			res, name, err := engineCount(ctx, g, p, opts.Threads, cg != nil, log)
			if err != nil {
				return nil, fmt.Errorf("counting %s: %w", m.Pattern, err)
			}
			n = res.Count
			m.Method = "engine"
			log.Debug("census engine count", "pattern", m.Pattern, "engine", name, "count", n, "elapsed", time.Since(t).Round(time.Microsecond))
		}
		m.NonInduced = n
		c.Motifs = append(c.Motifs, m)
	}
	if err := c.induce(); err != nil {
		return nil, err
	}
	log.Debug("census", "k", opts.K, "elapsed", time.Since(start).Round(time.Microsecond))
	return c, nil
}

// induce fills Induced from NonInduced through the containment matrix, densest shape first:
// I_j = N_j - sum over denser l of c[j][l] I_l.
func (c *Census) induce() error {
	shapes := make([]Shape, len(c.Motifs))
	for i, m := range c.Motifs {
		shapes[i] = m.Shape
	}
	cm := Containment(shapes)
	for j := len(c.Motifs) - 1; j >= 0; j-- {
		v := c.Motifs[j].NonInduced
		for l := j + 1; l < len(c.Motifs); l++ {
			if cm[j][l] == 0 {
				continue
			}
			x, over := mul(cm[j][l], c.Motifs[l].Induced)
			if over {
				return fmt.Errorf("induced count of %s: %w", c.Motifs[j].Pattern, ErrOverflow)
			}
			if x > v {
				return fmt.Errorf("induced count of %s: the containment identity fails (%d > %d): inconsistent counts", c.Motifs[j].Pattern, x, v)
			}
			v -= x
		}
		c.Motifs[j].Induced = v
	}
	return nil
}

// Find returns the motif of the given shape (any labelling), or false.
func (c *Census) Find(s Shape) (Motif, bool) {
	code := s.Canonical().Code()
	for _, m := range c.Motifs {
		if m.Shape.K == s.K && m.Shape.Code() == code {
			return m, true
		}
	}
	return Motif{}, false
}

// checked arithmetic

func mul(a, b uint64) (uint64, bool) {
	hi, lo := bits.Mul64(a, b)
	return lo, hi != 0
}

// sum accumulates with an overflow flag.
type sum struct {
	v    uint64
	over bool
}

func (s *sum) add(x uint64) {
	r, c := bits.Add64(s.v, x, 0)
	s.v = r
	s.over = s.over || c != 0
}

func (s *sum) addProduct(a, b uint64) {
	p, over := mul(a, b)
	s.over = s.over || over
	s.add(p)
}

func (s *sum) merge(t sum) {
	s.add(t.v)
	s.over = s.over || t.over
}

// mergeAll is the sum of per-worker partial sums.
func mergeAll(parts []sum) sum {
	var s sum
	for _, x := range parts {
		s.merge(x)
	}
	return s
}

func (s sum) result() (uint64, error) {
	if s.over {
		return 0, ErrOverflow
	}
	return s.v, nil
}

// choose returns C(n, k) for small k, checked.
func choose(n uint64, k int) (uint64, bool) {
	if n < uint64(k) {
		return 0, false
	}
	// C(n,k) = C(n,k-1) * (n-k+1) / k; each step exact, overflow checked on the product.
	r := uint64(1)
	for i := 1; i <= k; i++ {
		hi, lo := bits.Mul64(r, n-uint64(i)+1)
		if hi >= uint64(i) {
			return 0, true
		}
		r, _ = bits.Div64(hi, lo, uint64(i))
	}
	return r, false
}

// inline writes p in the inline syntax of package pattern as a list of its edges,
// "(a)-(b), (a)-(c), ..." (with labels when they are exact), which pattern.Parse reads back.
func inline(p *pattern.Pattern) string {
	var b strings.Builder
	node := func(u int) {
		b.WriteString("(" + p.Name(u))
		if l := p.VertexLabel(u); !l.Any {
			b.WriteString(":" + l.String())
		}
		b.WriteString(")")
	}
	for i, e := range p.Edges() {
		if i > 0 {
			b.WriteString(", ")
		}
		node(e.U)
		if e.Label.Any {
			b.WriteString("-")
		} else {
			b.WriteString("-[:" + e.Label.String() + "]-")
		}
		node(e.V)
	}
	return b.String()
}
