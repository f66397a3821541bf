package pbe

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
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
// graph (triangles, 4-cycles), budgets 1/4 and 1/16 of the graph (SUBMATCH_PBE_QUALITY_DIVS, a
// comma-separated list of divisors such as 1.5,4, replaces them): the table of docs/benchmarks.md.
// With SUBMATCH_PBE_METIS_DIR it adds METIS's parts (metisParts).
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
	metisDir := os.Getenv("SUBMATCH_PBE_METIS_DIR")
	var b strings.Builder
	fmt.Fprintln(&b, "| graph | budget | partitioner | parts | cut edges | largest part / budget | partition ms | intra share per query |")
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
		row := func(div float64, name string, pt *partition.Partitioning, took time.Duration) {
			var shares []string
			for i, q := range j.qs {
				var intra uint64
				for p, vs := range pt.Parts {
					s := j.g.InducedPart(vs, pt.Of, uint32(p))
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
				shares = append(shares, fmt.Sprintf("%s %.3f", q.name, share))
			}
			budget := uint64(float64(partition.GraphBytes(j.g)) / div)
			fmt.Fprintf(&b, "| %s | 1/%g | %s | %d | %d (%.1f%%) | %.2f | %.0f | %s |\n", j.data, div, name, len(pt.Parts),
				pt.EdgeCut, 100*float64(pt.EdgeCut)/float64(j.g.NumEdges()), float64(pt.MaxBytes())/float64(budget),
				float64(took.Microseconds())/1000, strings.Join(shares, ", "))
		}
		for _, div := range qualityDivisors(t) {
			budget := uint64(float64(partition.GraphBytes(j.g)) / div)
			k := 0
			for _, o := range []partition.Options{{Method: partition.Grow}, {}, {Triangles: true}} {
				o.Budget = budget
				t0 := time.Now()
				pt, err := partition.Partition(ctx, j.g, o)
				if err != nil {
					t.Fatal(err)
				}
				name := o.Method.String()
				if o.Triangles {
					name += ", triangle weights"
				} else if o.Method == partition.Multilevel {
					k = len(pt.Parts)
				}
				row(div, name, pt, time.Since(t0))
			}
			if metisDir != "" {
				if pt := metisParts(t, metisDir, j.data, j.g, k); pt != nil {
					row(div, fmt.Sprintf("gpmetis k=%d", k), pt, 0)
				}
			}
		}
	}
	t.Logf("\n%s", b.String())
}

// qualityDivisors are the budgets' divisors of the graph's size: SUBMATCH_PBE_QUALITY_DIVS, or 4
// and 16.
func qualityDivisors(t *testing.T) []float64 {
	env := os.Getenv("SUBMATCH_PBE_QUALITY_DIVS")
	if env == "" {
		return []float64{4, 16}
	}
	var divs []float64
	for _, f := range strings.Split(env, ",") {
		d, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || !(d >= 1) {
			t.Fatalf("SUBMATCH_PBE_QUALITY_DIVS: %q is not a divisor of at least 1", f)
		}
		divs = append(divs, d)
	}
	return divs
}

type namedPattern struct {
	name string
	p    *pattern.Pattern
	sem  engine.Semantics
}

// metisParts supports the comparison with METIS (SUBMATCH_PBE_METIS_DIR): it writes g to
// dir/NAME.graph in METIS's format, vertex weights VertexCost (once), and reads back
// dir/NAME.graph.part.K, the parts gpmetis made of it, if that file exists (nil otherwise): run
// the test, then `gpmetis dir/NAME.graph K` for the K of the multilevel rows, then the test again.
func metisParts(t *testing.T, dir, name string, g *graph.Graph, k int) *partition.Partitioning {
	name = strings.NewReplacer(" ", "_", "/", "_").Replace(name)
	path := filepath.Join(dir, name+".graph")
	if _, err := os.Stat(path); err != nil {
		var w strings.Builder
		fmt.Fprintf(&w, "%d %d 010\n", g.NumVertices(), g.NumEdges())
		for v := range uint32(g.NumVertices()) {
			fmt.Fprint(&w, partition.VertexCost(g, v))
			for _, u := range g.Neighbors(v) {
				fmt.Fprintf(&w, " %d", u+1)
			}
			fmt.Fprintln(&w)
		}
		if err := os.WriteFile(path, []byte(w.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile(fmt.Sprintf("%s.part.%d", path, k))
	if err != nil {
		t.Logf("no METIS parts: %v", err)
		return nil
	}
	f := strings.Fields(string(data))
	if len(f) != g.NumVertices() {
		t.Fatalf("%s.part.%d: %d lines, %d vertices", path, k, len(f), g.NumVertices())
	}
	of := make([]uint32, len(f))
	for v, x := range f {
		p, err := strconv.Atoi(x)
		if err != nil || p < 0 || p >= k {
			t.Fatalf("%s.part.%d line %d: %q is not a part below %d", path, k, v+1, x, k)
		}
		of[v] = uint32(p)
	}
	return partition.Measure(g, of, k)
}
