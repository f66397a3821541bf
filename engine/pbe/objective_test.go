package pbe

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/internal/sharedtest"
	"github.com/submatch/submatch/internal/testenv"
	"github.com/submatch/submatch/partition"
	"github.com/submatch/submatch/pattern"
)

// TestObjective (SUBMATCH_PBE_OBJECTIVE=1) compares the multilevel partitioner with and without
// triangle edge weights (partition.Options.Triangles) on the host backend, the two interleaved:
// per graph and budget, the parts, the edge cut, the partitioning's wall and CPU time, and per
// pattern the intra share and the count's wall and CPU time (medians of
// SUBMATCH_PBE_OBJECTIVE_REPS, default 3, with the partitioning made beforehand), every count
// checked against the cpu engine. SUBMATCH_PBE_OBJECTIVE_GRAPHS picks graphs (github, wiki-Vote,
// rmatS for R-MAT scale S, edge factor 8; default "github,wiki-Vote,rmat18"). The table of
// docs/benchmarks.md, branch part4.
func TestObjective(t *testing.T) {
	if os.Getenv("SUBMATCH_PBE_OBJECTIVE") == "" {
		t.Skip("set SUBMATCH_PBE_OBJECTIVE=1 to measure")
	}
	reps := 3
	if s := os.Getenv("SUBMATCH_PBE_OBJECTIVE_REPS"); s != "" {
		reps, _ = strconv.Atoi(s)
	}
	names := "github,wiki-Vote,rmat18"
	if s := os.Getenv("SUBMATCH_PBE_OBJECTIVE_GRAPHS"); s != "" {
		names = s
	}
	var qs []namedPattern
	for _, q := range [][2]string{{"triangle", "(a)-(b)-(c)-(a)"}, {"4-clique", "(a)-(b)-(c)-(d)-(a)-(c), (b)-(d)"}, {"4-cycle", "(a)-(b)-(c)-(d)-(a)"}} {
		p, err := pattern.Parse(q[1])
		if err != nil {
			t.Fatal(err)
		}
		qs = append(qs, namedPattern{q[0], p, engine.Semantics{Unique: true}})
	}
	cpu, err := engine.Lookup("cpu")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var b strings.Builder
	fmt.Fprintln(&b, "| graph | budget | weights | parts | cut edges | partition s (CPU s) | per pattern: intra share, count s (CPU s) |")
	fmt.Fprintln(&b, "|---|---|---|---|---|---|---|")
	for _, name := range strings.Split(names, ",") {
		var g *graph.Graph
		switch {
		case name == "github":
			g, _ = sharedtest.Suite(t, "github-gmatch", "data.graph", 0)
		case name == "wiki-Vote":
			g = sharedtest.WikiVote(t)
		case strings.HasPrefix(name, "rmat"):
			scale, err := strconv.Atoi(strings.TrimPrefix(name, "rmat"))
			if err != nil {
				t.Fatal(err)
			}
			if g, err = gen.RMAT(gen.RMATOptions{Scale: scale, EdgeFactor: 8, Seed: 1}); err != nil {
				t.Fatal(err)
			}
		default:
			t.Fatalf("unknown graph %q", name)
		}
		want := make([]uint64, len(qs))
		for i, q := range qs {
			r, err := cpu.Count(ctx, &engine.Problem{Data: g, Pattern: q.p, Semantics: q.sem})
			if err != nil {
				t.Fatal(err)
			}
			want[i] = r.Count
		}
		t.Logf("%s: %d vertices, %d edges; cpu counts %v", name, g.NumVertices(), g.NumEdges(), want)
		for _, div := range []uint64{4, 16} {
			budget := partition.GraphBytes(g) / div
			engines := make([]*Engine, 2)
			row := make([]string, 2)
			for v, tri := range []bool{false, true} {
				wall, cpuT := time.Now(), testenv.CPUTime()
				pt, err := partition.Partition(ctx, g, partition.Options{Budget: budget, Method: partition.Multilevel, Triangles: tri})
				if err != nil {
					t.Fatal(err)
				}
				el, ec := time.Since(wall), testenv.CPUTime()-cpuT
				e := &Engine{Budget: budget, Partitioner: partition.Multilevel, Triangles: tri}
				e.cache.g, e.cache.budget, e.cache.method, e.cache.tri, e.cache.pt = g, budget, partition.Multilevel, tri, pt
				engines[v] = e
				row[v] = fmt.Sprintf("| %s | 1/%d | %v | %d | %d (%.1f%%) | %.2f (%.2f) |", name, div, map[bool]string{false: "1", true: "1 + triangles"}[tri],
					len(pt.Parts), pt.EdgeCut, 100*float64(pt.EdgeCut)/float64(g.NumEdges()), el.Seconds(), ec.Seconds())
			}
			for i, q := range qs {
				walls, cpus := make([][]float64, 2), make([][]float64, 2)
				shares := make([]float64, 2)
				for r := range reps {
					for k := range 2 {
						v := (k + r) % 2 // alternate which goes first
						wall, cpuT := time.Now(), testenv.CPUTime()
						res, st, err := engines[v].CountStats(ctx, &engine.Problem{Data: g, Pattern: q.p, Semantics: q.sem})
						if err != nil {
							t.Fatal(err)
						}
						walls[v] = append(walls[v], time.Since(wall).Seconds())
						cpus[v] = append(cpus[v], (testenv.CPUTime() - cpuT).Seconds())
						if res.Count != want[i] || !st.PartitionCached {
							t.Errorf("%s 1/%d %s, triangles %v: count %d, cpu %d (cached %v)", name, div, q.name, v == 1, res.Count, want[i], st.PartitionCached)
						}
						shares[v] = st.IntraShare()
					}
				}
				for v := range 2 {
					row[v] += fmt.Sprintf(" %s %.3f, %.2f (%.2f);", q.name, shares[v], median(walls[v]), median(cpus[v]))
				}
			}
			for v := range 2 {
				fmt.Fprintln(&b, row[v])
				t.Log(row[v])
			}
		}
	}
	t.Logf("\n%s", b.String())
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}
