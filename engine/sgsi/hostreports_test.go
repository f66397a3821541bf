package sgsi_test

// The host emulation's reports of what a count moves: TestHostCopies and TestHostUploads, on
// one runner (runHostJobs).

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/engine/sgsi"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/internal/sharedtest"
)

// TestHostCopies (SUBMATCH_SGSI_COPIES=1) reports, on the host emulation, the copies and bytes
// a count moves and the kernels it launches: wiki-Vote's 4-cliques and a labelled random-walk
// query on R-MAT, at a quarter and a sixteenth of GraphBytes (SUBMATCH_SGSI_ONLY: see
// runHostJobs).
func TestHostCopies(t *testing.T) {
	if os.Getenv("SUBMATCH_SGSI_COPIES") == "" {
		t.Skip("set SUBMATCH_SGSI_COPIES=1")
	}
	var jobs []hostJob
	wv := sharedtest.WikiVote(t)
	for _, c := range sharedtest.WikiVotePatterns(t) {
		if c.Name == "4-clique" {
			jobs = append(jobs, hostJob{"wiki-Vote", "4-clique unique", &engine.Problem{Data: wv, Pattern: c.Pattern, Semantics: engine.Semantics{Unique: true}}},
				hostJob{"wiki-Vote", "4-clique", &engine.Problem{Data: wv, Pattern: c.Pattern}})
		}
	}
	jobs = append(jobs, rmatJob(t, rmatGraph(t, 15), 15, 8, gen.Dense))
	out := runHostJobs(t, jobs, 0, "graph | query | budget | count | to GPU MB | x graph | copies up | copies down | launches | segments (hits) | chunks | host s",
		func(r hostRun) string {
			if r.err != nil {
				t.Fatalf("%s %s 1/%d: %v", r.graph, r.query, r.frac, r.err)
			}
			st := r.st
			return fmt.Sprintf("| %s | %s | 1/%d | %d | %.1f | %.1f | %d | %d | %d | %d (%d) | %d | %.1f |", r.graph, r.query, r.frac, r.res.Count,
				float64(st.BytesToGPU)/1e6, float64(st.BytesToGPU)/float64(r.bytes), st.CopiesToGPU, st.CopiesFromGPU, st.Launches,
				st.Segments, st.SegmentHits, st.Chunks, r.took.Seconds())
		})
	t.Logf("\n%s", out)
}

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
	var jobs []hostJob
	scale := envInt("SUBMATCH_SGSI_SCALE", 15)
	g := rmatGraph(t, scale)
	for _, size := range []int{6, 8, 12} {
		for _, d := range []gen.Density{gen.Sparse, gen.Dense} {
			jobs = append(jobs, rmatJob(t, g, scale, size, d))
		}
	}
	if os.Getenv("SUBMATCH_SGSI_GITHUB") != "" {
		gh, qs := sharedtest.Suite(t, "github-gmatch", "data.graph", 0)
		for _, q := range qs {
			jobs = append(jobs, hostJob{"github", q.Name, &engine.Problem{Data: gh, Pattern: q.Pattern}})
		}
	}
	var sofar strings.Builder
	out := runHostJobs(t, jobs, limit, "graph | query | budget | count | to GPU MB | x graph | segments (hits) | chunks | host s",
		func(r hostRun) string {
			line := fmt.Sprintf("| %s | %s | 1/%d | %v | | | | | %.1f |", r.graph, r.query, r.frac, r.err, r.took.Seconds())
			if r.err == nil {
				st := r.st
				line = fmt.Sprintf("| %s | %s | 1/%d | %d | %.1f | %.1f | %d (%d) | %d | %.1f |", r.graph, r.query, r.frac, r.res.Count,
					float64(st.BytesToGPU)/1e6, float64(st.BytesToGPU)/float64(r.bytes), st.Segments, st.SegmentHits, st.Chunks, r.took.Seconds())
			}
			if path := os.Getenv("SUBMATCH_SGSI_UPLOADS_OUT"); path != "" { // the rows so far, should a run not end
				sofar.WriteString(line + "\n")
				os.WriteFile(path, []byte(sofar.String()), 0o644)
			}
			return line
		})
	t.Logf("\n%s", out)
}

// hostJob is one count of the host emulation's reports (TestHostCopies, TestHostUploads).
type hostJob struct {
	graph, query string
	prob         *engine.Problem
}

// hostRun is a job's count at one budget, a fraction 1/frac of its graph's GraphBytes.
type hostRun struct {
	hostJob
	frac  uint64
	res   engine.Result
	st    sgsi.Stats
	err   error
	took  time.Duration
	bytes uint64 // the graph's GraphBytes
}

// budgets are the fractions of GraphBytes the reports run at.
var budgets = []uint64{4, 16}

// runHostJobs counts every job on the host emulation at a quarter and a sixteenth of its graph's
// GraphBytes, each within limit (0: none), and returns a markdown table of header (its columns,
// "|"-separated) and row's line for each run. SUBMATCH_SGSI_ONLY, a regular expression, keeps
// the runs whose "graph query 1/frac" it matches (to profile one).
func runHostJobs(t *testing.T, jobs []hostJob, limit time.Duration, header string, row func(hostRun) string) string {
	t.Helper()
	var only *regexp.Regexp
	if v := os.Getenv("SUBMATCH_SGSI_ONLY"); v != "" {
		only = regexp.MustCompile(v)
	}
	var out strings.Builder
	cols := strings.Count(header, "|") + 1
	fmt.Fprintf(&out, "| %s |\n|%s\n", header, strings.Repeat("---|", cols))
	for _, j := range jobs {
		gb := sgsi.GraphBytes(j.prob.Data)
		for _, f := range budgets {
			if only != nil && !only.MatchString(fmt.Sprintf("%s %s 1/%d", j.graph, j.query, f)) {
				continue
			}
			p := *j.prob
			p.GPUMemoryLimit = gb / f
			ctx, cancel := context.Background(), context.CancelFunc(func() {})
			if limit > 0 {
				ctx, cancel = context.WithTimeout(ctx, limit)
			}
			t0 := time.Now()
			res, st, err := sgsi.Engine{Options: sgsi.Options{Host: true}}.CountStats(ctx, &p)
			cancel()
			out.WriteString(row(hostRun{j, f, res, st, err, time.Since(t0), gb}) + "\n")
		}
	}
	return out.String()
}

// rmatJob is a random-walk query of size vertices (its density d) on g, an R-MAT graph of scale.
func rmatJob(t *testing.T, g *graph.Graph, scale, size int, d gen.Density) hostJob {
	t.Helper()
	p, err := gen.RandomWalkQuery(g, size, gen.QuerySeed(1, size, int(d)), gen.QueryOptions{Density: d})
	if err != nil {
		t.Fatal(err)
	}
	name := fmt.Sprintf("q%d-%s", size, map[gen.Density]string{gen.Sparse: "sparse", gen.Dense: "dense"}[d])
	return hostJob{fmt.Sprintf("rmat%d", scale), name, &engine.Problem{Data: g, Pattern: p}}
}

// rmatGraph is the reports' R-MAT graph of scale: edge factor 16, 1,000 zipf vertex labels.
func rmatGraph(t *testing.T, scale int) *graph.Graph {
	t.Helper()
	g, err := gen.RMAT(gen.RMATOptions{Scale: scale, EdgeFactor: 16, VertexLabels: 1000, LabelDistribution: gen.ZipfLabels, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	return g
}
