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

// TestHostUploads (SUBMATCH_SGSI_UPLOADS=1) reports, on the host emulation, the bytes a count
// copies to the device against the graph's GraphBytes, at a quarter and a sixteenth of it: an
// R-MAT graph (SUBMATCH_SGSI_SCALE, default 15; 1,000 zipf labels) with random-walk queries,
// and github's queries Q_0..Q_9. Host-side only: the copies' sizes, not their times. Each run
// has SUBMATCH_SGSI_LIMIT_S seconds (default 60).
func TestHostUploads(t *testing.T) {
	if os.Getenv("SUBMATCH_SGSI_UPLOADS") == "" {
		t.Skip("set SUBMATCH_SGSI_UPLOADS=1")
	}
	limit := time.Duration(envInt("SUBMATCH_SGSI_LIMIT_S", 60)) * time.Second
	type job struct {
		graph, query string
		prob         *engine.Problem
	}
	var jobs []job
	scale := envInt("SUBMATCH_SGSI_SCALE", 15)
	g, err := gen.RMAT(gen.RMATOptions{Scale: scale, EdgeFactor: 16, VertexLabels: 1000, LabelDistribution: gen.ZipfLabels, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, size := range []int{6, 8, 12} {
		for _, d := range []gen.Density{gen.Sparse, gen.Dense} {
			p, err := gen.RandomWalkQuery(g, size, gen.QuerySeed(1, size, int(d)), gen.QueryOptions{Density: d})
			if err != nil {
				t.Fatal(err)
			}
			name := fmt.Sprintf("q%d-%s", size, map[gen.Density]string{gen.Sparse: "sparse", gen.Dense: "dense"}[d])
			jobs = append(jobs, job{fmt.Sprintf("rmat%d", scale), name, &engine.Problem{Data: g, Pattern: p}})
		}
	}
	if os.Getenv("SUBMATCH_SGSI_GITHUB") != "" {
		gh, qs := sharedtest.Suite(t, "github-gmatch", "data.graph", 0)
		for _, q := range qs {
			jobs = append(jobs, job{"github", q.Name, &engine.Problem{Data: gh, Pattern: q.Pattern}})
		}
	}
	var out strings.Builder
	fmt.Fprintf(&out, "| graph | query | budget | count | to GPU MB | x graph | segments (hits) | chunks | host s |\n|---|---|---|---|---|---|---|---|---|\n")
	for _, j := range jobs {
		gb := sgsi.GraphBytes(j.prob.Data)
		for _, f := range []uint64{4, 16} {
			p := *j.prob
			p.GPUMemoryLimit = gb / f
			ctx, cancel := context.WithTimeout(context.Background(), limit)
			t0 := time.Now()
			res, st, err := sgsi.Engine{Options: sgsi.Options{Host: true}}.CountStats(ctx, &p)
			cancel()
			if err != nil {
				fmt.Fprintf(&out, "| %s | %s | 1/%d | %v | | | | | %.1f |\n", j.graph, j.query, f, err, time.Since(t0).Seconds())
				continue
			}
			fmt.Fprintf(&out, "| %s | %s | 1/%d | %d | %.1f | %.1f | %d (%d) | %d | %.1f |\n", j.graph, j.query, f, res.Count,
				float64(st.BytesToGPU)/1e6, float64(st.BytesToGPU)/float64(gb), st.Segments, st.SegmentHits, st.Chunks, time.Since(t0).Seconds())
			if path := os.Getenv("SUBMATCH_SGSI_UPLOADS_OUT"); path != "" {
				os.WriteFile(path, []byte(out.String()), 0o644)
			}
		}
	}
	t.Logf("\n%s", out.String())
}
