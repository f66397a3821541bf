package mining

import (
	"context"
	"github.com/submatch/submatch/internal/testenv"
	"testing"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/formats"
	"github.com/submatch/submatch/graph"
)

func loadShared(t *testing.T, rel string) *graph.Graph {
	t.Helper()
	g, err := formats.Load(testenv.Path(t, rel), formats.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestCiteseer checks the 3- and 4-vertex census against the table GraphMiner and Peregrine
// publish (unique counts, non-induced and induced; labels ignored).
func TestCiteseer(t *testing.T) {
	g := loadShared(t, "citeseer-graphminer")
	want := map[string][2]uint64{
		"triangle": {1166, 1166}, "3-path": {26878, 23380},
		"4-clique": {255, 255}, "diamond": {3730, 2200}, "4-cycle": {6059, 3094},
		"tailed triangle": {34760, 22900}, "3-star": {250950, 222630}, "4-path": {185589, 111153},
	}
	seen := 0
	for k := 3; k <= 4; k++ {
		c, err := Count(context.Background(), g, Options{K: k})
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range c.Motifs {
			w, ok := want[m.Name]
			if !ok {
				t.Errorf("no published count for %s", m.Name)
				continue
			}
			seen++
			if m.NonInduced != w[0] || m.Induced != w[1] {
				t.Errorf("citeseer %s: non-induced %d induced %d, published %d %d", m.Name, m.NonInduced, m.Induced, w[0], w[1])
			}
		}
	}
	if seen != len(want) {
		t.Errorf("%d of %d published patterns checked", seen, len(want))
	}
}

// TestEmailEuCore checks triangles, 4- and 5-cliques against SNAP's page and kClist's counts.
func TestEmailEuCore(t *testing.T) {
	g := loadShared(t, "email-eu-core/email-Eu-core.txt")
	want := map[string]uint64{"triangle": 105461, "4-clique": 423750, "5-clique": 1222005}
	for k := 3; k <= 5; k++ {
		o := newOrdered(g)
		l, err := computeLocals(context.Background(), o, k, 0, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range ConnectedShapes(k) {
			if w, ok := want[s.Name()]; ok {
				got, _, err := l.formula(s)
				if err != nil || got != w {
					t.Errorf("email-Eu-core %s: %d (%v), published %d", s.Name(), got, err, w)
				}
			}
		}
	}
}

// TestEngineAgrees checks every formula against the CPU engine's count of the pattern on
// email-Eu-core (a deep sweep: the engine takes about 20 s).
func TestEngineAgrees(t *testing.T) {
	testenv.SkipUnlessLong(t)
	g := loadShared(t, "email-eu-core/email-Eu-core.txt")
	for k := 3; k <= 5; k++ {
		l, err := computeLocals(context.Background(), newOrdered(g), k, 0, nil)
		if err != nil {
			t.Fatal(err)
		}
		e, _ := engine.Lookup("cpu")
		for _, s := range ConnectedShapes(k) {
			got, ok, err := l.formula(s)
			if !ok || err != nil {
				t.Errorf("%s: no formula (%v)", s.Name(), err)
				continue
			}
			res, err := e.Count(context.Background(), &engine.Problem{Data: g, Pattern: s.Pattern(), Semantics: engine.Semantics{Unique: true}})
			if err != nil || res.Count != got {
				t.Errorf("%s: formula %d, engine %d (%v)", s.Name(), got, res.Count, err)
			}
		}
	}
}
