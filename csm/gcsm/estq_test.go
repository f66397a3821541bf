package gcsm

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/submatch/submatch/csm"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/pattern"
)

// TestEstimatorQuality (GCSM_ESTQ=1, GCSM_ESTQ_SCALE (default 15); no GPU) measures the cache's
// quality on an R-MAT graph (4 labels, diamond and house, batches of GCSM_ESTQ_BATCH (2,048), a
// cache of GCSM_ESTQ_BUDGET_PCT percent (25) of the lists' bytes; GCSM_ESTQ_ONLY: the variants
// to run) with the emulation, per estimator variant and ranking (docs/benchmarks.md): the
// share of list reads served by the cache, the share of the bytes read by the emulation's cost
// model (emu.go: charge) served by it, the top-1% coverage, the estimation's
// time and walks.
func TestEstimatorQuality(t *testing.T) {
	if os.Getenv("GCSM_ESTQ") == "" {
		t.Skip("set GCSM_ESTQ=1")
	}
	scale, _ := strconv.Atoi(os.Getenv("GCSM_ESTQ_SCALE"))
	if scale == 0 {
		scale = 15
	}
	g0, err := gen.RMAT(gen.RMATOptions{Scale: scale, VertexLabels: 4, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	batch := envInt("GCSM_ESTQ_BATCH", 2048)
	mk, stream := rmatStream(t, g0, 4*batch)
	diamond := mustPattern(t, []uint32{0, 1, 2, 3}, [][2]int{{0, 1}, {1, 2}, {2, 3}, {3, 0}, {0, 2}})
	house := mustPattern(t, []uint32{0, 1, 2, 3, 0}, [][2]int{{0, 1}, {1, 2}, {2, 3}, {3, 0}, {0, 4}, {1, 4}})
	// A quarter of the lists' bytes, or GCSM_ESTQ_BUDGET_PCT percent of them.
	budget := 12 * g0.NumEdges() * 2 * uint64(envInt("GCSM_ESTQ_BUDGET_PCT", 25)) / 100
	only := os.Getenv("GCSM_ESTQ_ONLY") // variants to run, by name, comma-separated (all when empty)
	for _, v := range []struct {
		name    string
		uniform bool
		walks   float64
		mode    string
		fill    bool
	}{{"degree", false, 0, "degree", false}, {"1/D reads", false, 0, "cache", false}, {"1/D reads+fill", false, 0, "cache", true},
		{"1/D bytes+fill", false, 0, "cache-bytes", true}, {"u2 bytes+fill", true, 2, "cache-bytes", true}, {"u4 bytes+fill", true, 4, "cache-bytes", true},
		{"s4 bytes+fill", true, 4, "cache-sampled", true}, {"s16 bytes+fill", true, 16, "cache-sampled", true}} {
		if only != "" && !slices.Contains(strings.Split(only, ","), v.name) {
			continue
		}
		var bytes [2]uint64
		m, err := open(mk(), []*pattern.Pattern{diamond, house}, csm.Options{SkipInvalid: true, Mode: v.mode},
			func(*table) (backend, error) { return emuBackend{budget: budget, bytes: &bytes}, nil })
		if err != nil {
			t.Fatal(err)
		}
		gm := m.(*Matcher)
		gm.est.uniform, gm.est.perSearch, gm.fillDegree = v.uniform, v.walks, v.fill
		if err := gm.rebuild(); err != nil { // the degree order for the fill
			t.Fatal(err)
		}
		gm.MeasureCoverage(true)
		var line string
		for i := 0; i < 3; i++ {
			var res csm.Result
			t0 := time.Now()
			if err := m.Apply(context.Background(), stream[i*batch:(i+1)*batch], nil, &res); err != nil {
				t.Fatal(err)
			}
			st := gm.Stats()
			line += fmt.Sprintf(" | hit %.3f bytes %.3f of %.0fMB cov %.3f cached %.0f%% est %v walks %d all %v", st.HitRate(), float64(bytes[1])/float64(max(bytes[0]+bytes[1], 1)), float64(bytes[0]+bytes[1])/1e6,
				st.Coverage1, 100*float64(st.CacheBytes)/float64(budget), st.Estimate.Round(time.Millisecond), st.Walks, time.Since(t0).Round(time.Millisecond))
			bytes = [2]uint64{}
		}
		t.Logf("%-10s%s", v.name, line)
	}
}

// TestCacheAB (GCSM_ESTQ=1; no GPU) compares, interleaved batch by batch on one R-MAT stream, the
// cache kept on the device and updated in place against the cache rebuilt at every phase (main
// before branch gcsm6: the +full variants), per policy: the share of list reads served by the
// cache and of the bytes read (the emulation's cost model), the top-1% coverage, the host's
// estimation and choice/layout times, and the entries gathered into the cache per batch (what
// crosses the PCIe link) with the phases rebuilt. GCSM_ESTQ_SCALE (16), GCSM_ESTQ_BATCHES
// (64,512), GCSM_ESTQ_BUDGET_PCT (14: the H200 runs' cache at --gpu-memory 90MiB on scale 20),
// GCSM_ESTQ_ROUNDS (4 batches a size), GCSM_ESTQ_LABELS (4: the graph's vertex labels; the
// patterns use 0-3), GCSM_ESTQ_PATTERNS ("dh": diamond and house; "kite6":
// the 6-vertex pattern; "dh,kite6": both sets in turn), GCSM_ESTQ_ONLY (variants by name).
func TestCacheAB(t *testing.T) {
	if os.Getenv("GCSM_ESTQ") == "" {
		t.Skip("set GCSM_ESTQ=1")
	}
	g0, err := gen.RMAT(gen.RMATOptions{Scale: envInt("GCSM_ESTQ_SCALE", 16), VertexLabels: envInt("GCSM_ESTQ_LABELS", 4), Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	batches := envInts("GCSM_ESTQ_BATCHES", []int{64, 512})
	rounds := envInt("GCSM_ESTQ_ROUNDS", 4)
	total := 0
	for _, b := range batches {
		total += b * rounds
	}
	mk, stream := rmatStream(t, g0, total)
	budget := 12 * g0.NumEdges() * 2 * uint64(envInt("GCSM_ESTQ_BUDGET_PCT", 14)) / 100
	sets := map[string][]*pattern.Pattern{
		"dh": {mustPattern(t, []uint32{0, 1, 2, 3}, [][2]int{{0, 1}, {1, 2}, {2, 3}, {3, 0}, {0, 2}}),
			mustPattern(t, []uint32{0, 1, 2, 3, 0}, [][2]int{{0, 1}, {1, 2}, {2, 3}, {3, 0}, {0, 4}, {1, 4}})},
		"kite6": {kite6(t)},
	}
	only := os.Getenv("GCSM_ESTQ_ONLY")
	names := strings.Split(cmp.Or(os.Getenv("GCSM_ESTQ_PATTERNS"), "dh"), ",")
	for _, pn := range names {
		pats := sets[pn]
		if pats == nil {
			t.Fatalf("GCSM_ESTQ_PATTERNS: no set %q", pn)
		}
		type variant struct {
			name  string
			m     *Matcher
			bytes *[2]uint64
			lines map[int][]string
		}
		var vs []*variant
		for _, name := range []string{"degree", "degree+full", "cache", "cache+full", "cache-sampled", "cache-sampled+full"} {
			if only != "" && !slices.Contains(strings.Split(only, ","), name) {
				continue
			}
			mode, full := strings.CutSuffix(name, "+full")
			v := &variant{name: name, bytes: new([2]uint64), lines: map[int][]string{}}
			m, err := open(mk(), pats, csm.Options{SkipInvalid: true, Mode: mode},
				func(*table) (backend, error) { return emuBackend{budget: budget, bytes: v.bytes}, nil })
			if err != nil {
				t.Fatal(err)
			}
			v.m = m.(*Matcher)
			v.m.fullCache = full
			v.m.MeasureCoverage(true)
			defer v.m.Close()
			vs = append(vs, v)
		}
		pos := 0
		for _, b := range batches {
			for range rounds {
				batch := stream[pos : pos+b]
				pos += b
				var ref []csm.Delta
				for _, v := range vs { // interleaved: each variant in turn on the same batch
					var res csm.Result
					if err := v.m.Apply(context.Background(), batch, nil, &res); err != nil {
						t.Fatal(err)
					}
					if ref == nil {
						ref = slices.Clone(res.Deltas)
					} else if !slices.Equal(ref, res.Deltas) {
						t.Fatalf("%s, batch of %d: %v, %s %v", v.name, b, res.Deltas, vs[0].name, ref)
					}
					st := v.m.Stats()
					by := v.bytes
					v.lines[b] = append(v.lines[b], fmt.Sprintf("hit %.3f bytes %.3f cov %.2f est %.2fms copy %.2fms gathered %.2fMB rebuilt %d",
						st.HitRate(), float64(by[1])/float64(max(by[0]+by[1], 1)), st.Coverage1, float64(st.Estimate.Microseconds())/1000,
						float64(st.Copy.Microseconds())/1000, float64(12*st.Gathered)/1e6, st.Rebuilds))
					*by = [2]uint64{}
				}
			}
		}
		for _, b := range batches {
			for _, v := range vs {
				t.Logf("%s batch %d %-19s | %s", pn, b, v.name, strings.Join(v.lines[b], " | "))
			}
		}
	}
}
