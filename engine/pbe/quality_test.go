package pbe

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/submatch/submatch/engine"
	_ "github.com/submatch/submatch/engine/cpu"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/internal/sharedtest"
	"github.com/submatch/submatch/partition"
	"github.com/submatch/submatch/pattern"
)

// TestPartitionQuality (SUBMATCH_PBE_QUALITY=1) prints, for both partitioners, the edge cut and
// the share of pattern instances inside one part (the parts' counts by the cpu engine over the
// whole graph's count) on github (its queries), wiki-Vote (triangles, 4-cycles) and an R-MAT
// graph (triangles, 4-cycles), budgets 1/4 and 1/16 of the graph: the table of docs/benchmarks.md.
func TestPartitionQuality(t *testing.T) {
	if os.Getenv("SUBMATCH_PBE_QUALITY") == "" {
		t.Skip("set SUBMATCH_PBE_QUALITY=1 to measure")
	}
	type job struct {
		data string
		g    *graph.Graph
		qs   []namedPattern
	}
	tri, _ := pattern.Parse("(a)-(b)-(c)-(a)")
	c4, _ := pattern.Parse("(a)-(b)-(c)-(d)-(a)")
	uniq := engine.Semantics{Unique: true}
	var jobs []job
	g, qs := sharedtest.Suite(t, "github-gmatch", "data.graph", 0)
	j := job{data: "github", g: g}
	for _, q := range qs {
		j.qs = append(j.qs, namedPattern{q.Name, q.Pattern, engine.Semantics{}})
	}
	jobs = append(jobs, j)
	wv := sharedtest.WikiVote(t)
	jobs = append(jobs, job{"wiki-Vote", wv, []namedPattern{{"triangle", tri, uniq}, {"4-cycle", c4, uniq}}})
	rm, err := gen.RMAT(gen.RMATOptions{Scale: 16, EdgeFactor: 8, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	jobs = append(jobs, job{"R-MAT 16/8", rm, []namedPattern{{"triangle", tri, uniq}, {"4-cycle", c4, uniq}}})
	cpu, err := engine.Lookup("cpu")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var b strings.Builder
	fmt.Fprintln(&b, "| graph | budget | partitioner | parts | cut edges | partition ms | query | intra share |")
	fmt.Fprintln(&b, "|---|---|---|---|---|---|---|---|")
	for _, j := range jobs {
		want := make([]uint64, len(j.qs))
		for i, q := range j.qs {
			r, err := cpu.Count(ctx, &engine.Problem{Data: j.g, Pattern: q.p, Semantics: q.sem, Threads: 2})
			if err != nil {
				t.Fatal(err)
			}
			want[i] = r.Count
		}
		for _, div := range []uint64{4, 16} {
			budget := partition.GraphBytes(j.g) / div
			for _, m := range []partition.Method{partition.Grow, partition.Multilevel} {
				t0 := time.Now()
				pt, err := partition.Partition(ctx, j.g, partition.Options{Budget: budget, Method: m})
				if err != nil {
					t.Fatal(err)
				}
				took := time.Since(t0)
				subs := make([]*graph.Graph, len(pt.Parts))
				for i, vs := range pt.Parts {
					if subs[i], err = induced(j.g, vs, pt.Of, uint32(i)); err != nil {
						t.Fatal(err)
					}
				}
				for i, q := range j.qs {
					var intra uint64
					for _, s := range subs {
						r, err := cpu.Count(ctx, &engine.Problem{Data: s, Pattern: q.p, Semantics: q.sem, Threads: 2})
						if err != nil {
							t.Fatal(err)
						}
						intra += r.Count
					}
					share := 1.0
					if want[i] > 0 {
						share = float64(intra) / float64(want[i])
					}
					fmt.Fprintf(&b, "| %s | 1/%d | %s | %d | %d (%.1f%%) | %.0f | %s | %.3f |\n", j.data, div, m, len(pt.Parts),
						pt.EdgeCut, 100*float64(pt.EdgeCut)/float64(j.g.NumEdges()), float64(took.Microseconds())/1000, q.name, share)
				}
			}
		}
	}
	t.Logf("\n%s", b.String())
}

type namedPattern struct {
	name string
	p    *pattern.Pattern
	sem  engine.Semantics
}
