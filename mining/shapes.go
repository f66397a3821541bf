package mining

import (
	"cmp"
	"fmt"
	"math/bits"
	"slices"
	"sync"

	"github.com/submatch/submatch/pattern"
)

// MaxK is the largest motif size the census supports.
const MaxK = 6

// Shape is an unlabelled graph on k <= MaxK vertices: Adj[i] has bit j set when i and j are
// adjacent. Two shapes are the same pattern when they are isomorphic; Canonical picks one
// representative per class.
type Shape struct {
	K   int
	Adj [MaxK]uint8
}

// Code packs the adjacency rows into one integer (row i in bits 8i..8i+7).
func (s Shape) Code() uint64 {
	var c uint64
	for i := 0; i < s.K; i++ {
		c |= uint64(s.Adj[i]) << (8 * i)
	}
	return c
}

// Edges is the number of edges.
func (s Shape) Edges() int {
	n := 0
	for i := 0; i < s.K; i++ {
		n += bits.OnesCount8(s.Adj[i])
	}
	return n / 2
}

// Degree is the degree of vertex i.
func (s Shape) Degree(i int) int { return bits.OnesCount8(s.Adj[i]) }

// Connected reports whether the shape is connected.
func (s Shape) Connected() bool {
	if s.K == 0 {
		return false
	}
	seen := uint8(1)
	for frontier := uint8(1); frontier != 0; {
		var next uint8
		for f := frontier; f != 0; f &= f - 1 {
			next |= s.Adj[bits.TrailingZeros8(f)]
		}
		frontier = next &^ seen
		seen |= next
	}
	return seen == uint8(1<<s.K-1)
}

// permute returns the shape with vertex i renamed perm[i].
func (s Shape) permute(perm []uint8) Shape {
	out := Shape{K: s.K}
	for i := 0; i < s.K; i++ {
		var row uint8
		for r := s.Adj[i]; r != 0; r &= r - 1 {
			row |= 1 << perm[bits.TrailingZeros8(r)]
		}
		out.Adj[perm[i]] = row
	}
	return out
}

var (
	permsOnce [MaxK + 1]sync.Once
	permsOf   [MaxK + 1][][]uint8
)

// permutations lists the k! permutations of 0..k-1 (computed once per k).
func permutations(k int) [][]uint8 {
	permsOnce[k].Do(func() {
		var out [][]uint8
		cur := make([]uint8, 0, k)
		var used uint8
		var rec func()
		rec = func() {
			if len(cur) == k {
				out = append(out, slices.Clone(cur))
				return
			}
			for v := 0; v < k; v++ {
				if used&(1<<v) == 0 {
					used |= 1 << v
					cur = append(cur, uint8(v))
					rec()
					cur = cur[:len(cur)-1]
					used &^= 1 << v
				}
			}
		}
		rec()
		permsOf[k] = out
	})
	return permsOf[k]
}

// Canonical returns the isomorphism class representative of s: the relabelling with the smallest
// Code.
func (s Shape) Canonical() Shape {
	best := s
	bc := s.Code()
	for _, p := range permutations(s.K) {
		t := s.permute(p)
		if c := t.Code(); c < bc {
			best, bc = t, c
		}
	}
	return best
}

// Automorphisms counts the permutations that map s onto itself.
func (s Shape) Automorphisms() uint64 {
	var n uint64
	c := s.Code()
	for _, p := range permutations(s.K) {
		if s.permute(p).Code() == c {
			n++
		}
	}
	return n
}

// ConnectedShapes lists the canonical connected shapes on k vertices (1 <= k <= MaxK): 1, 1, 2,
// 6, 21, 112 of them, ordered by number of edges, then by decreasing degree sequence, then code.
func ConnectedShapes(k int) []Shape {
	if k < 1 || k > MaxK {
		panic(fmt.Sprintf("mining: ConnectedShapes(%d): k must be in 1..%d", k, MaxK))
	}
	level := []Shape{{K: 1}}
	for n := 2; n <= k; n++ {
		seen := map[uint64]bool{}
		var next []Shape
		// Every connected graph has a vertex whose removal leaves it connected (a leaf of a
		// spanning tree), so adding a vertex to each connected (n-1)-shape finds every class.
		for _, s := range level {
			for nb := uint8(1); nb < 1<<(n-1); nb++ {
				t := Shape{K: n, Adj: s.Adj}
				t.Adj[n-1] = nb
				for r := nb; r != 0; r &= r - 1 {
					t.Adj[bits.TrailingZeros8(r)] |= 1 << (n - 1)
				}
				c := t.Canonical()
				if !seen[c.Code()] {
					seen[c.Code()] = true
					next = append(next, c)
				}
			}
		}
		level = next
	}
	slices.SortFunc(level, compareShapes)
	return level
}

func degreeSequence(s Shape) []int {
	d := make([]int, s.K)
	for i := range d {
		d[i] = s.Degree(i)
	}
	slices.Sort(d)
	slices.Reverse(d)
	return d
}

func compareShapes(a, b Shape) int {
	if c := cmp.Compare(a.Edges(), b.Edges()); c != 0 {
		return c
	}
	if c := slices.Compare(degreeSequence(b), degreeSequence(a)); c != 0 {
		return c
	}
	return cmp.Compare(a.Code(), b.Code())
}

// Pattern returns s as a pattern with wildcard labels whose vertices a, b, c, ... are numbered
// breadth first from a vertex of largest degree, so that its inline form reads as a walk.
func (s Shape) Pattern() *pattern.Pattern {
	order := s.bfsOrder()
	pos := make([]int, s.K)
	for i, v := range order {
		pos[v] = i
	}
	labels := make([]pattern.Label, s.K)
	names := make([]string, s.K)
	for i := range labels {
		labels[i] = pattern.Wildcard
		names[i] = string(rune('a' + i))
	}
	var edges []pattern.Edge
	for i := 0; i < s.K; i++ {
		for j := i + 1; j < s.K; j++ {
			u, v := order[i], order[j]
			if s.Adj[u]&(1<<v) != 0 {
				edges = append(edges, pattern.Edge{U: i, V: j, Label: pattern.Wildcard})
			}
		}
	}
	p, err := pattern.New(labels, edges, names)
	if err != nil {
		panic("mining: " + err.Error()) // shapes are valid by construction
	}
	return p
}

// bfsOrder lists the vertices breadth first from the lowest vertex of largest degree, visiting
// neighbours of larger degree first.
func (s Shape) bfsOrder() []int {
	start := 0
	for v := 1; v < s.K; v++ {
		if s.Degree(v) > s.Degree(start) {
			start = v
		}
	}
	order := []int{start}
	seen := uint8(1 << start)
	for i := 0; i < len(order); i++ {
		var nb []int
		for r := s.Adj[order[i]] &^ seen; r != 0; r &= r - 1 {
			nb = append(nb, bits.TrailingZeros8(r))
		}
		slices.SortStableFunc(nb, func(a, b int) int { return cmp.Compare(s.Degree(b), s.Degree(a)) })
		for _, v := range nb {
			seen |= 1 << v
			order = append(order, v)
		}
	}
	for v := 0; v < s.K; v++ { // a disconnected shape: the rest in index order
		if seen&(1<<v) == 0 {
			order = append(order, v)
		}
	}
	return order
}

// ShapeOf parses an inline pattern (as pattern.Parse) of at most MaxK vertices into a shape,
// ignoring labels.
func ShapeOf(inline string) (Shape, error) {
	p, err := pattern.Parse(inline)
	if err != nil {
		return Shape{}, err
	}
	return ShapeFromPattern(p)
}

// ShapeFromPattern is the shape of p's edges (labels ignored).
func ShapeFromPattern(p *pattern.Pattern) (Shape, error) {
	if p.NumVertices() > MaxK {
		return Shape{}, fmt.Errorf("pattern has %d vertices, the census supports at most %d", p.NumVertices(), MaxK)
	}
	s := Shape{K: p.NumVertices()}
	for _, e := range p.Edges() {
		s.Adj[e.U] |= 1 << e.V
		s.Adj[e.V] |= 1 << e.U
	}
	return s, nil
}

// names of the 3- to 5-vertex connected shapes, by inline pattern (canonicalised on first use).
var shapeNames = []struct{ name, inline string }{
	{"3-path", "(a)-(b)-(c)"},
	{"triangle", "(a)-(b)-(c)-(a)"},
	{"3-star", "(a)-(b), (a)-(c), (a)-(d)"},
	{"4-path", "(a)-(b)-(c)-(d)"},
	{"tailed triangle", "(a)-(b)-(c)-(a), (a)-(d)"},
	{"4-cycle", "(a)-(b)-(c)-(d)-(a)"},
	{"diamond", "(a)-(b)-(c)-(d)-(a), (a)-(c)"},
	{"4-clique", "(a)-(b)-(c)-(d)-(a), (a)-(c), (b)-(d)"},
	{"4-star", "(a)-(b), (a)-(c), (a)-(d), (a)-(e)"},
	{"5-path", "(a)-(b)-(c)-(d)-(e)"},
	{"fork", "(a)-(b), (a)-(c), (a)-(d)-(e)"},
	{"5-cycle", "(a)-(b)-(c)-(d)-(e)-(a)"},
	{"cricket", "(a)-(b)-(c)-(a), (a)-(d), (a)-(e)"},
	{"bull", "(a)-(b)-(c)-(a), (a)-(d), (b)-(e)"},
	{"tadpole", "(a)-(b)-(c)-(a), (a)-(d)-(e)"},
	{"banner", "(a)-(b)-(c)-(d)-(a), (a)-(e)"},
	{"butterfly", "(a)-(b)-(c)-(a), (a)-(d)-(e)-(a)"},
	{"house", "(a)-(b)-(c)-(d)-(a), (a)-(e)-(b)"},
	{"K2,3", "(a)-(c)-(b)-(d)-(a), (a)-(e)-(b)"},
	{"dart", "(a)-(b)-(c)-(d)-(a), (a)-(c), (a)-(e)"},
	{"kite", "(a)-(b)-(c)-(d)-(a), (a)-(c), (b)-(e)"},
	{"gem", "(a)-(b)-(c)-(d)-(e), (a)-(c), (a)-(d), (a)-(e)"},
	{"tailed 4-clique", "(a)-(b)-(c)-(d)-(a), (a)-(c), (b)-(d), (a)-(e)"},
	{"3-book", "(a)-(b), (a)-(c)-(b), (a)-(d)-(b), (a)-(e)-(b)"},
	{"4-wheel minus spoke", "(a)-(b)-(c)-(d)-(a), (e)-(b), (e)-(c), (e)-(d)"},
	{"4-wheel", "(a)-(b)-(c)-(d)-(a), (e)-(a), (e)-(b), (e)-(c), (e)-(d)"},
	{"K5 minus 3-path", "(a)-(b)-(c)-(d)-(a), (a)-(c), (b)-(d), (e)-(a), (e)-(b)"},
	{"5-clique minus edge", "(a)-(b)-(c)-(d)-(a), (a)-(c), (b)-(d), (e)-(a), (e)-(b), (e)-(c)"},
	{"5-clique", "(a)-(b)-(c)-(d)-(a), (a)-(c), (b)-(d), (e)-(a), (e)-(b), (e)-(c), (e)-(d)"},
}

var (
	namesOnce sync.Once
	nameByKey map[[2]uint64]string
)

// Name is the usual name of a connected shape of 3 to 5 vertices ("triangle", "4-cycle", ...),
// or "" for other shapes.
func (s Shape) Name() string {
	namesOnce.Do(func() {
		nameByKey = map[[2]uint64]string{}
		for _, n := range shapeNames {
			t, err := ShapeOf(n.inline)
			if err != nil {
				panic("mining: shape name " + n.name + ": " + err.Error())
			}
			c := t.Canonical()
			nameByKey[[2]uint64{uint64(c.K), c.Code()}] = n.name
		}
	})
	c := s.Canonical()
	return nameByKey[[2]uint64{uint64(c.K), c.Code()}]
}

// Containment returns c[i][j]: the number of distinct edge subsets of shapes[j] (on all its
// vertices) that form a copy of shapes[i]. Non-induced counts are then N_i = sum_j c[i][j] I_j
// over the induced counts I_j.
func Containment(shapes []Shape) [][]uint64 {
	n := len(shapes)
	c := make([][]uint64, n)
	for i := range c {
		c[i] = make([]uint64, n)
	}
	// The distinct relabellings of each shape (k!/|Aut| of them, as codes): c[i][j] counts
	// those whose edges are all edges of shapes[j].
	copies := make([][]uint64, n)
	for i, g := range shapes {
		seen := map[uint64]bool{}
		for _, p := range permutations(g.K) {
			code := g.permute(p).Code()
			if !seen[code] {
				seen[code] = true
				copies[i] = append(copies[i], code)
			}
		}
	}
	for j, h := range shapes {
		hc := h.Code()
		for i, g := range shapes {
			if g.K != h.K || g.Edges() > h.Edges() {
				continue
			}
			for _, t := range copies[i] {
				if t&^hc == 0 {
					c[i][j]++
				}
			}
		}
	}
	return c
}
