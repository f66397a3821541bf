package gcsm

import (
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
