package sgsi_test

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
	"github.com/submatch/submatch/engine/pbe"
	"github.com/submatch/submatch/engine/sgsi"
	_ "github.com/submatch/submatch/engine/stmatch"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/partition"
)

// TestDeviceMeasure (SUBMATCH_SGSI_MEASURE=1, on the device host) times, on an R-MAT graph with
// 1,000 zipf vertex labels (SUBMATCH_SGSI_SCALE, default 20; edge factor 16) and random-walk
// queries of 6 to 12 vertices, the cpu engine on every core, sgsi in core (no --gpu-memory)
// and out of core (--gpu-memory a quarter of GraphBytes), and pbe with its GPU intra stage at
// the same --gpu-memory (grow partitioner: the multilevel one takes minutes at this size).
// Medians of SUBMATCH_SGSI_RUNS runs (default 3) after a warm-up; every count must agree.
// SUBMATCH_SGSI_HOST=1 runs sgsi on the host emulation (to try the script without a GPU).
func TestDeviceMeasure(t *testing.T) {
	if os.Getenv("SUBMATCH_SGSI_MEASURE") == "" {
		t.Skip("set SUBMATCH_SGSI_MEASURE=1 (device host)")
	}
	scale := envInt("SUBMATCH_SGSI_SCALE", 20)
	runs := envInt("SUBMATCH_SGSI_RUNS", 3)
	limit := time.Duration(envInt("SUBMATCH_SGSI_LIMIT_S", 10)) * time.Second
	warm := time.Duration(envInt("SUBMATCH_SGSI_WARM_S", int(limit/time.Second))) * time.Second
	host := os.Getenv("SUBMATCH_SGSI_HOST") != ""
	t0 := time.Now()
	g, err := gen.RMAT(gen.RMATOptions{Scale: scale, EdgeFactor: 16, VertexLabels: 1000, LabelDistribution: gen.ZipfLabels, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	gb := sgsi.GraphBytes(g)
	budget := gb / 4
	defer func() { t.Logf("total %v", time.Since(t0)) }()
	t.Logf("R-MAT scale %d: %d vertices, %d edges, GraphBytes %d, budget %d; generated in %v", scale, g.NumVertices(), g.NumEdges(), gb, budget, time.Since(t0))
	type query struct {
		name string
		prob *engine.Problem
	}
	var qs []query
	sizes := []int{6, 8, 10, 12}
	if v := os.Getenv("SUBMATCH_SGSI_SIZES"); v != "" {
		sizes = nil
		for _, f := range strings.Split(v, ",") {
			n, err := strconv.Atoi(f)
			if err != nil {
				t.Fatal(err)
			}
			sizes = append(sizes, n)
		}
	}
	for _, size := range sizes {
		for _, d := range []gen.Density{gen.Sparse, gen.Dense} {
			p, err := gen.RandomWalkQuery(g, size, gen.QuerySeed(1, size, int(d)), gen.QueryOptions{Density: d})
			if err != nil {
				t.Fatal(err)
			}
			name := fmt.Sprintf("q%d-%s", size, map[gen.Density]string{gen.Sparse: "sparse", gen.Dense: "dense"}[d])
			qs = append(qs, query{name, &engine.Problem{Data: g, Pattern: p}})
		}
	}
	cpu, _ := engine.Lookup("cpu")
	pb := &pbe.Engine{Partitioner: partition.Grow, Backend: &pbe.DeviceBackend{}}
	if host {
		pb.Backend = nil
	}
	type config struct {
		name  string
		e     engine.Engine
		limit uint64
	}
	configs := []config{
		{"cpu16", cpu, 0},
		{"sgsi-incore", sgsi.Engine{Options: sgsi.Options{Host: host, HostBytes: 4 * gb}}, 0},
		{"sgsi-1/4", sgsi.Engine{Options: sgsi.Options{Host: host}}, budget},
		{"pbe-1/4", pb, budget},
	}
	var out strings.Builder
	fmt.Fprintf(&out, "| query | engine | count | median ms | runs ms | comm ms | comp ms | to GPU MB | from GPU MB | chunks | segments (hits) | peak GPU MB | peak host MB |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	ctx := context.Background()
	for _, q := range qs {
		want := uint64(0)
		for ci, c := range configs {
			var times []time.Duration
			var res engine.Result
			var st sgsi.Stats
			var err error
			failed := ""
			for r := 0; r <= runs; r++ { // run 0 is the warm-up
				p := *q.prob
				p.GPUMemoryLimit = c.limit
				lim := limit
				if r == 0 {
					lim = warm // the warm-up: kernels compiled, pbe's partitioning made
				}
				cctx, cancel := context.WithTimeout(ctx, lim)
				t1 := time.Now()
				if se, ok := c.e.(sgsi.Engine); ok {
					res, st, err = se.CountStats(cctx, &p)
				} else {
					res, err = c.e.Count(cctx, &p)
				}
				d := time.Since(t1)
				cancel()
				if err != nil {
					failed = err.Error()
					break
				}
				if r > 0 {
					times = append(times, d)
				}
			}
			if failed != "" {
				fmt.Fprintf(&out, "| %s | %s | - | - | - | %s |\n", q.name, c.name, failed)
				if path := os.Getenv("SUBMATCH_SGSI_MEASURE_OUT"); path != "" {
					os.WriteFile(path, []byte(out.String()), 0o644)
				}
				continue
			}
			if ci == 0 {
				want = res.Count
			} else if res.Count != want {
				t.Errorf("%s %s: %d, cpu %d", q.name, c.name, res.Count, want)
			}
			slices.Sort(times)
			var all []string
			for _, d := range times {
				all = append(all, fmt.Sprintf("%.1f", msf(d)))
			}
			row := fmt.Sprintf("| %s | %s | %d | %.1f | %s |", q.name, c.name, res.Count, msf(times[len(times)/2]), strings.Join(all, " "))
			if strings.HasPrefix(c.name, "sgsi") {
				row += fmt.Sprintf(" %.1f | %.1f | %.1f | %.1f | %d | %d (%d) | %.1f | %.1f |", msf(st.Comm), msf(st.Comp), float64(st.BytesToGPU)/1e6,
					float64(st.BytesFromGPU)/1e6, st.Chunks, st.Segments, st.SegmentHits, float64(st.PeakDevice)/1e6, float64(st.PeakHost)/1e6)
			} else {
				row += " | | | | | | | |"
			}
			fmt.Fprintln(&out, row)
			if path := os.Getenv("SUBMATCH_SGSI_MEASURE_OUT"); path != "" {
				os.WriteFile(path, []byte(out.String()), 0o644) // row by row: a run cut short keeps its rows
			}
		}
	}
	t.Logf("\n%s", out.String())
	if path := os.Getenv("SUBMATCH_SGSI_MEASURE_OUT"); path != "" {
		os.WriteFile(path, []byte(out.String()), 0o644)
	}
}

func msf(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}
