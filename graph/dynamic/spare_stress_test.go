package dynamic

import (
	"math/rand/v2"
	"testing"

	"github.com/submatch/submatch/internal/testenv"
)

// TestSpareListsStress: random inserts and deletes (edge labels, vertex labels >= 63 too), vertex
// deletions and re-insertions, Clone, Filtered and Compact, against a model; clones are not
// changed by later edits of the original (emptied lists are reused as spare runs).
func TestSpareListsStress(t *testing.T) {
	seeds := testenv.Sweep(uint64(8), 30)
	for seed := range seeds {
		r := rand.New(rand.NewPCG(seed, 7))
		d := New()
		lab := map[int64]uint32{}
		edges := map[key]uint32{}
		const N = 24
		type snap struct {
			c     *Graph
			edges map[key]uint32
		}
		var snaps []snap
		check := func(g *Graph, es map[key]uint32, where string) {
			if err := g.Validate(); err != nil {
				t.Fatalf("seed %d %s: %v", seed, where, err)
			}
			if g.NumEdges() != uint64(len(es)) {
				t.Fatalf("seed %d %s: %d edges, model %d", seed, where, g.NumEdges(), len(es))
			}
			for k, l := range es {
				x, ok1 := g.Lookup(k.a)
				y, ok2 := g.Lookup(k.b)
				if !ok1 || !ok2 {
					t.Fatalf("seed %d %s: endpoint gone", seed, where)
				}
				if gl, ok := g.EdgeLabel(x, y); !ok || gl != l {
					t.Fatalf("seed %d %s: edge %v label %d,%v want %d", seed, where, k, gl, ok, l)
				}
			}
		}
		for step := range 4000 {
			a, b := int64(r.IntN(N)), int64(r.IntN(N))
			switch op := r.IntN(20); {
			case op < 2:
				if _, ok := lab[a]; !ok {
					l := uint32(r.IntN(4))
					if r.IntN(4) == 0 {
						l = 63 + uint32(r.IntN(3))
					}
					if _, err := d.AddVertex(a, l); err != nil {
						t.Fatal(err)
					}
					lab[a] = l
				} else {
					deg := false
					for k := range edges {
						if k.a == a || k.b == a {
							deg = true
						}
					}
					x, _ := d.Lookup(a)
					err := d.DeleteVertex(x)
					if deg != (err != nil) {
						t.Fatalf("seed %d: delete vertex %v", seed, err)
					}
					if err == nil {
						delete(lab, a)
					}
				}
			case op < 11:
				x, ok1 := d.Lookup(a)
				y, ok2 := d.Lookup(b)
				el := uint32(0)
				if r.IntN(5) == 0 {
					el = uint32(1 + r.IntN(2))
				}
				_, has := edges[k(a, b)]
				ok := ok1 && ok2 && d.InsertEdge(x, y, el)
				want := ok1 && ok2 && a != b && !has
				if ok != want {
					t.Fatalf("seed %d step %d: insert %v want %v", seed, step, ok, want)
				}
				if ok {
					edges[k(a, b)] = el
				}
			case op < 19:
				x, ok1 := d.Lookup(a)
				y, ok2 := d.Lookup(b)
				l0, has := edges[k(a, b)]
				var l uint32
				ok := false
				if ok1 && ok2 {
					l, ok = d.RemoveEdge(x, y)
				}
				if ok != (ok1 && ok2 && has) || ok && l != l0 {
					t.Fatalf("seed %d step %d: remove %v,%d want %v,%d", seed, step, ok, l, has, l0)
				}
				if ok {
					delete(edges, k(a, b))
				}
			default:
				switch r.IntN(3) {
				case 0:
					d.Compact()
				case 1:
					m := map[key]uint32{}
					for k, v := range edges {
						m[k] = v
					}
					snaps = append(snaps, snap{d.Clone(), m})
				case 2:
					m := map[key]uint32{}
					for k, v := range edges {
						m[k] = v
					}
					snaps = append(snaps, snap{d.Filtered(func(vl, wl uint32) bool { return true }), m})
				}
			}
			check(d, edges, "main")
		}
		for i, s := range snaps {
			check(s.c, s.edges, "snap")
			_ = i
		}
	}
}
