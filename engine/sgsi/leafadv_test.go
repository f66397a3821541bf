package sgsi_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/engine/sgsi"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/internal/testenv"
	"github.com/submatch/submatch/pattern"
)

// randomCrowdedTails draws a pattern built to make the leaf step's chains and pairs collide
// (review rev22): a core of two to four vertices, then two to four paths of one to four inner
// vertices, most of them on one core vertex (pairs, a pair beside a chain, chains side by side),
// some closed on another core vertex, of labels drawn from two values and the wildcard only
// (every vertex may repeat almost every other) or, pendant paths u - a - b, from two more values (pairs), edge labels now and then.
func randomCrowdedTails(r *rand.Rand, elabels int) string {
	label := func() string {
		if r.IntN(8) == 0 {
			return ":*"
		}
		return fmt.Sprintf(":%d", r.IntN(2))
	}
	d := &patternDraw{r: r, elabels: elabels}
	newV, edge := d.vertex, d.edge
	k := 2 + r.IntN(3)
	for i := range k {
		newV(fmt.Sprintf(":%d", r.IntN(2)))
		if i > 0 {
			edge(i-1, i)
		}
	}
	if k > 2 {
		edge(0, k-1)
	}
	hub := r.IntN(k)
	for range 2 + r.IntN(3) {
		u := hub
		if r.IntN(4) == 0 {
			u = r.IntN(k)
		}
		prev := u
		n := 2 + r.IntN(4)
		own := false
		if r.IntN(2) == 0 {
			n, own = 2, true // (pendant u - a - b of labels 2 and 3 only: pairs)
		}
		for range n {
			l := label()
			if own {
				l = fmt.Sprintf(":%d", 2+r.IntN(2))
			}
			v := newV(l)
			edge(prev, v)
			prev = v
		}
		if !own && k > 1 && r.IntN(5) == 0 {
			edge(prev, (u+1+r.IntN(k-1))%k)
		}
		if len(d.lab) > 11 {
			break
		}
	}
	return d.String()
}

// patternDraw is a random pattern being drawn: vertex adds a vertex of label l (":3", ":*",
// or "") and returns it, edge joins two (an edge label of elabels now and then), String is the
// pattern (labelledPattern).
type patternDraw struct {
	r          *rand.Rand
	elabels    int
	edges, lab []string
}

func (d *patternDraw) vertex(l string) int {
	d.lab = append(d.lab, l)
	return len(d.lab) - 1
}

func (d *patternDraw) edge(a, b int) {
	el := ""
	if d.elabels > 0 && d.r.IntN(3) == 0 {
		el = fmt.Sprintf("[:%d]", d.r.IntN(d.elabels))
	}
	d.edges = append(d.edges, fmt.Sprintf("(v%d)-%s-(v%d)", a, el, b))
}

func (d *patternDraw) String() string { return labelledPattern(d.edges, d.lab) }

// TestLeafStepCrowded compares sgsi's host emulation with the brute-force oracle on
// randomCrowdedTails over tiny dense graphs of four labels (heavy coincidence of the tails' vertices with each other and with the row's), under
// every convention and the options that change which tails the leaf step counts.
func TestLeafStepCrowded(t *testing.T) {
	chains, pairs := 0, 0
	for seed := range uint64(testenv.Sweep(40, 300)) {
		r := rand.New(rand.NewPCG(seed, 22))
		el := r.IntN(2) * 2
		src := randomCrowdedTails(r, el)
		p, err := pattern.Parse(src)
		if err != nil {
			t.Fatalf("seed %d: %s: %v", seed, src, err)
		}
		g := gen.RandomGraph(seed, 8+r.IntN(10), 0.4+0.4*r.Float64(), 4, el)
		for _, sem := range []engine.Semantics{{}, {Unique: true}} {
			options := []sgsi.Options{{}, {PaperOrder: true}, {HostBytes: 3000}, {Refine: true},
				sgsi.WithTailReach(sgsi.Options{}, 2), sgsi.WithTailReach(sgsi.Options{}, 3), sgsi.WithTailReach(sgsi.Options{}, 9)}
			checkLeafCounts(t, fmt.Sprintf("seed %d: %s", seed, src), g, p, sem, leafWant(t, g, p, sem), options, func(st sgsi.Stats) {
				if len(st.PerStep) > st.Steps {
					if c, _ := chainKind(p, st.Order, st.Steps); c {
						chains++
					}
					if hasPair(p, st.Order, st.Steps) {
						pairs++
					}
				}
			})
		}
	}
	t.Logf("%d counts with a chain, %d with a pair", chains, pairs)
	if chains == 0 || pairs == 0 {
		t.Errorf("%d counts with a chain, %d with a pair: the shapes miss the leaf step", chains, pairs)
	}
}
