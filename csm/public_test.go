package csm

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/formats"
	"github.com/submatch/submatch/formats/updates"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/graph/dynamic"
	"github.com/submatch/submatch/internal/testenv"
	"github.com/submatch/submatch/pattern"
)

func loadShared(t testing.TB, rel string) *graph.Graph {
	t.Helper()
	path := filepath.Join(testenv.Dir(), rel)
	if _, err := os.Stat(path); err != nil {
		t.Skip("no shared test data:", err)
	}
	g, err := formats.Load(path, formats.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func loadPattern(t testing.TB, rel string) *pattern.Pattern {
	t.Helper()
	p, err := formats.LoadPattern(filepath.Join(testenv.Dir(), rel), formats.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

type edge struct {
	u, v int64
	l    uint32
}

func edgesOf(g *graph.Graph) []edge {
	var out []edge
	for v := range g.NumVertices() {
		els := g.NeighborEdgeLabels(uint32(v))
		for i, w := range g.Neighbors(uint32(v)) {
			if w > uint32(v) {
				l := uint32(0)
				if els != nil {
					l = els[i]
				}
				out = append(out, edge{g.OriginalID(uint32(v)), g.OriginalID(w), l})
			}
		}
	}
	return out
}

// split builds the initial graph (every vertex, the edges kept) and the stream of a public case:
// "insert" keeps 90% of the edges and streams the other 10% as insertions; "delete" starts from
// the whole graph and deletes that 10%; "mix" inserts the 10% while deleting as many initial edges.
func split(t testing.TB, g *graph.Graph, mode string, seed uint64) (*graph.Graph, []updates.Update) {
	t.Helper()
	es := edgesOf(g)
	r := rand.New(rand.NewPCG(seed, 1))
	r.Shuffle(len(es), func(i, j int) { es[i], es[j] = es[j], es[i] })
	cut := len(es) * 9 / 10
	b := graph.NewBuilder(graph.BuilderOptions{})
	for v := range g.NumVertices() {
		if err := b.SetVertexLabel(g.OriginalID(uint32(v)), g.VertexLabel(uint32(v))); err != nil {
			t.Fatal(err)
		}
	}
	keep := es[:cut]
	if mode == "delete" {
		keep = es
	}
	for _, e := range keep {
		if err := b.AddEdge(e.u, e.v, e.l); err != nil {
			t.Fatal(err)
		}
	}
	initial, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	var stream []updates.Update
	for i, e := range es[cut:] {
		kind := updates.InsertEdge
		if mode == "delete" {
			kind = updates.DeleteEdge
		}
		stream = append(stream, updates.Update{Kind: kind, U: e.u, V: e.v, Label: e.l, HasLabel: true, Line: len(stream) + 1})
		if mode == "mix" {
			d := es[i]
			stream = append(stream, updates.Update{Kind: updates.DeleteEdge, U: d.u, V: d.v, Line: len(stream) + 1})
		}
	}
	return initial, stream
}

func readStream(t *testing.T, rel string) []updates.Update {
	var out []updates.Update
	for u, err := range updates.ReadFile(filepath.Join(testenv.Dir(), rel), updates.Options{}) {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, u)
	}
	return out
}

// runPublic applies stream to initial in batches and checks, per pattern, that the static count
// before plus created minus destroyed is the static count after.
func runPublic(t *testing.T, name string, initial *graph.Graph, stream []updates.Update, pats []*pattern.Pattern, sem engine.Semantics, batch int) {
	ctx := context.Background()
	static, err := engine.Lookup("cpu")
	if err != nil {
		t.Fatal(err)
	}
	m, err := Open(dynamic.FromGraph(initial), pats, Options{Semantics: sem, SkipInvalid: true})
	if err != nil {
		t.Fatal(err)
	}
	before, err := Initial(ctx, m, static, sem, 0)
	if err != nil {
		t.Fatal(err)
	}
	created := make([]uint64, len(pats))
	destroyed := make([]uint64, len(pats))
	var res Result
	skipped := 0
	for i := 0; i < len(stream); i += batch {
		if err := m.Apply(ctx, stream[i:min(i+batch, len(stream))], nil, &res); err != nil {
			t.Fatal(err)
		}
		skipped += res.Skipped
		for j, d := range res.Deltas {
			created[j] += d.Created
			destroyed[j] += d.Destroyed
		}
	}
	after, err := Initial(ctx, m, static, sem, 0)
	if err != nil {
		t.Fatal(err)
	}
	for j := range pats {
		got := int64(before[j]) + int64(created[j]) - int64(destroyed[j])
		if got != int64(after[j]) {
			t.Errorf("%s pattern %d %s batch %d: %d + %d - %d = %d, static count after the stream %d",
				name, j, sem, batch, before[j], created[j], destroyed[j], got, after[j])
		}
	}
	t.Logf("%s %s batch %d: %d updates (%d skipped), before %v, +%v -%v", name, sem, batch, len(stream), skipped, before, created, destroyed)
}

// TestEmail10 applies email10's own stream (its duplicate insertions skipped and counted).
func TestEmail10(t *testing.T) {
	g := loadShared(t, "csm-email10/initial.graph")
	stream := readStream(t, "csm-email10/updates.stream")
	queries := []string{"q4_1", "q4_2", "q6_1"}
	sems := []engine.Semantics{{}}
	if testenv.Long() {
		queries = append(queries, "q4_3", "q6_2", "q8_1", "q8_2")
		sems = conventions
	}
	var pats []*pattern.Pattern
	for _, q := range queries {
		pats = append(pats, loadPattern(t, "csm-email10/queries/"+q+".graph"))
	}
	for _, sem := range sems {
		runPublic(t, "email10", g, stream, pats, sem, 1)
		runPublic(t, "email10", g, stream, pats, sem, 500)
	}
}

// TestGithubSplit: github-gmatch split 90/10, inserted, deleted and mixed.
func TestGithubSplit(t *testing.T) {
	g := loadShared(t, "github-gmatch/data.graph")
	queries := []string{"Q_0", "Q_1"}
	modes := []string{"insert", "delete", "mix"}
	sems := []engine.Semantics{{}}
	if testenv.Long() {
		queries = append(queries, "Q_3", "Q_7")
		sems = conventions
	}
	var pats []*pattern.Pattern
	for _, q := range queries {
		pats = append(pats, loadPattern(t, "github-gmatch/query_graph/"+q+".graph"))
	}
	for _, mode := range modes {
		initial, stream := split(t, g, mode, 1)
		for _, sem := range sems {
			for _, batch := range []int{1, 1000} {
				runPublic(t, fmt.Sprintf("github %s", mode), initial, stream, pats, sem, batch)
			}
		}
	}
}
