package sgsi_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/engine/sgsi"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/internal/sharedtest"
)

// TestHostCopies (SUBMATCH_SGSI_COPIES=1) reports, on the host emulation, the copies and bytes
// a count moves and the kernels it launches: wiki-Vote's 4-cliques and a labelled random-walk
// query on R-MAT, at a quarter and a sixteenth of GraphBytes.
func TestHostCopies(t *testing.T) {
	if os.Getenv("SUBMATCH_SGSI_COPIES") == "" {
		t.Skip("set SUBMATCH_SGSI_COPIES=1")
	}
	type job struct {
		graph, query string
		prob         *engine.Problem
	}
	var jobs []job
	wv := sharedtest.WikiVote(t)
	for _, c := range sharedtest.WikiVotePatterns(t) {
		if c.Name == "4-clique" {
			jobs = append(jobs, job{"wiki-Vote", "4-clique unique", &engine.Problem{Data: wv, Pattern: c.Pattern, Semantics: engine.Semantics{Unique: true}}},
				job{"wiki-Vote", "4-clique", &engine.Problem{Data: wv, Pattern: c.Pattern}})
		}
	}
	g, err := gen.RMAT(gen.RMATOptions{Scale: 15, EdgeFactor: 16, VertexLabels: 1000, LabelDistribution: gen.ZipfLabels, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	p, err := gen.RandomWalkQuery(g, 8, gen.QuerySeed(1, 8, int(gen.Dense)), gen.QueryOptions{Density: gen.Dense})
	if err != nil {
		t.Fatal(err)
	}
	jobs = append(jobs, job{"rmat15", "q8-dense", &engine.Problem{Data: g, Pattern: p}})
	var out strings.Builder
	fmt.Fprintf(&out, "| graph | query | budget | count | to GPU MB | x graph | copies up | copies down | launches | segments (hits) | chunks | host s |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, j := range jobs {
		gb := sgsi.GraphBytes(j.prob.Data)
		for _, f := range []uint64{4, 16} {
			p := *j.prob
			p.GPUMemoryLimit = gb / f
			t0 := time.Now()
			res, st, err := sgsi.Engine{Options: sgsi.Options{Host: true}}.CountStats(context.Background(), &p)
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&out, "| %s | %s | 1/%d | %d | %.1f | %.1f | %d | %d | %d | %d (%d) | %d | %.1f |\n", j.graph, j.query, f, res.Count,
				float64(st.BytesToGPU)/1e6, float64(st.BytesToGPU)/float64(gb), st.CopiesToGPU, st.CopiesFromGPU, st.Launches,
				st.Segments, st.SegmentHits, st.Chunks, time.Since(t0).Seconds())
		}
	}
	t.Logf("\n%s", out.String())
}
