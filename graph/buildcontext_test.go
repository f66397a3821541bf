package graph

import (
	"context"
	"errors"
	"math/rand/v2"
	"reflect"
	"runtime"
	"testing"

	"github.com/submatch/submatch/internal/ctxtest"
)

// TestBuildContextStops (buildstop): BuildContext returns its context's error and no graph
// when the context ends at any of its checks, and Build's graph when it lasts; and it checks
// often, not only before it starts: in every pass, every buildCheckEvery entries (the passes
// of the counting build, whose checks are the densest, at least two checks per
// buildCheckEvery entries of the lists) or every chunk of the parallel passes. It covers
// every way Build goes: the counting build on 1 to 4 cores (with duplicates: the second walk),
// the parallel one (and its second attempt), the sorting one (edge labels), the ids mapped when
// Build starts: in one pass, in parallel, or through the map (after an id too large for the table).
func TestBuildContextStops(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	savedEvery, savedBuild, savedMap := buildCheckEvery, parallelBuildFrom, parallelMapFrom
	defer func() { buildCheckEvery, parallelBuildFrom, parallelMapFrom = savedEvery, savedBuild, savedMap }()
	buildCheckEvery = 256
	type input struct {
		name          string
		n, m          int
		vertexLabels  int // distinct vertex labels
		edgeLabels    bool
		dupEvery      int   // an edge given twice in dupEvery (0: none)
		idBase        int64 // added to every id
		mapIDs        bool  // an edge of ids too large for the table first: the rest go through the map
		parallelBuild bool  // parallelBuildFrom and parallelMapFrom 0
		procs         []int
		denseChecks   bool // the counting build: at least 2 checks every buildCheckEvery entries
	}
	for _, in := range []input{
		{name: "counting", n: 2000, m: 30000, vertexLabels: 1, procs: []int{1, 2, 3, 4}, denseChecks: true},
		{name: "counting, labels, duplicates", n: 2000, m: 30000, vertexLabels: 3, dupEvery: 20, procs: []int{1, 2, 4}, denseChecks: true},
		{name: "parallel", n: 50000, m: 40000, vertexLabels: 2, parallelBuild: true, procs: []int{2, 4}},
		{name: "parallel, duplicates", n: 50000, m: 40000, vertexLabels: 1, dupEvery: 10, parallelBuild: true, procs: []int{2}},
		{name: "sorting", n: 3000, m: 20000, vertexLabels: 3, edgeLabels: true, procs: []int{1, 2}},
		{name: "ids through the map", n: 3000, m: 20000, vertexLabels: 1, idBase: 1 << 31, mapIDs: true, procs: []int{2}},
	} {
		newBuilder := func() *Builder {
			r := rand.New(rand.NewPCG(uint64(in.n), uint64(in.m)))
			b := NewBuilder(BuilderOptions{})
			if in.mapIDs {
				if err := b.AddEdge(1<<40, 1<<40+1, 0); err != nil {
					t.Fatal(err)
				}
			}
			for v := range in.n {
				if in.vertexLabels == 1 {
					break // (the edges make the vertices: their ids are mapped when Build starts)
				}
				if err := b.SetVertexLabel(in.idBase+int64(v), uint32(r.IntN(in.vertexLabels))); err != nil {
					t.Fatal(err)
				}
			}
			for range in.m {
				u, v := int64(r.IntN(in.n)), int64(r.IntN(in.n))
				if u == v {
					continue
				}
				var l uint32
				if in.edgeLabels {
					l = uint32((u + v) % 3) // (the same label each time the edge comes)
				}
				times := 1
				if in.dupEvery > 0 && r.IntN(in.dupEvery) == 0 {
					times = 2
				}
				for range times {
					if err := b.AddEdge(in.idBase+u, in.idBase+v, l); err != nil {
						t.Fatal(err)
					}
				}
			}
			return b
		}
		for _, procs := range in.procs {
			runtime.GOMAXPROCS(procs)
			parallelBuildFrom, parallelMapFrom = savedBuild, savedMap
			if in.parallelBuild {
				parallelBuildFrom, parallelMapFrom = 0, 0
			}
			want, err := newBuilder().Build()
			if err != nil {
				t.Fatalf("%s, %d cores: %v", in.name, procs, err)
			}
			checks := ctxtest.UntilLasting(t, 1<<20, func(ctx context.Context) error {
				g, err := newBuilder().BuildContext(ctx)
				if err != nil {
					if g != nil {
						t.Errorf("%s, %d cores: a graph with error %v", in.name, procs, err)
					}
					return err
				}
				if !reflect.DeepEqual(g.Raw(), want.Raw()) {
					t.Fatalf("%s, %d cores: BuildContext's graph is not Build's", in.name, procs)
				}
				return nil
			})
			t.Logf("%s, %d cores: %d checks", in.name, procs, checks)
			least := 8 // (a check before each pass, without those in the passes, is about 5)
			if in.denseChecks {
				least = 2 * 2 * len(want.neighbors) / buildCheckEvery // (the lists, twice as the edges: 4 passes or more)
			}
			if checks < least {
				t.Errorf("%s, %d cores: %d checks of the context, want at least %d", in.name, procs, checks, least)
			}
		}
	}
}

// TestBuildContextEnded: a context that has ended before BuildContext starts stops it at once,
// with the context's own error (a deadline's too), and a builder that has nothing to build
// either.
func TestBuildContextEnded(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 0)
	defer cancel()
	<-ctx.Done()
	b := NewBuilder(BuilderOptions{})
	if err := b.AddEdge(0, 1, 0); err != nil {
		t.Fatal(err)
	}
	if g, err := b.BuildContext(ctx); g != nil || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("BuildContext with an ended context: %v, %v; want no graph, context.DeadlineExceeded", g, err)
	}
	if g, err := NewBuilder(BuilderOptions{}).BuildContext(ctx); g != nil || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("empty builder: %v, %v; want no graph, context.DeadlineExceeded", g, err)
	}
}
