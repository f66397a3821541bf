package sgsi

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/gen"
)

// TestJoinRowsCalibration prints estimateJoin's rows per step beside the host emulation's
// (Stats.PerStep, exact) on R-MAT walks (issue 21, branch sgsipred): SGSIPRED_SCALE (default
// skipped), edge factor 16, 1,000 zipf labels, dense walks of 6, 8 and 12 vertices.
func TestJoinRowsCalibration(t *testing.T) {
	sc := os.Getenv("SGSIPRED_SCALE")
	if sc == "" {
		t.Skip("SGSIPRED_SCALE not set")
	}
	scale, _ := strconv.Atoi(sc)
	g, err := gen.RMAT(gen.RMATOptions{Scale: scale, EdgeFactor: 16, VertexLabels: 1000, LabelDistribution: gen.ZipfLabels, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, size := range []int{6, 8, 12} {
		for i := range 3 {
			p, err := gen.RandomWalkQuery(g, size, gen.QuerySeed(2, size, i), gen.QueryOptions{})
			if err != nil {
				t.Fatal(err)
			}
			for _, core := range []bool{false, true} {
				o := Options{CoreOrder: core}
				t0 := time.Now()
				j, ok := estimateJoin(g, p, engine.Semantics{}, o, 1)
				est := time.Since(t0)
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
				o.Host = true
				_, st, err := Engine{Options: o}.CountStats(ctx, &engine.Problem{Data: g, Pattern: p})
				cancel()
				var b strings.Builder
				pr, _, _ := j.tables()
				act := 0.0
				for k, s := range st.PerStep {
					if k < len(j.levels) {
						fmt.Fprintf(&b, " %.3g/%d", j.levels[k], s.Rows)
					}
					if k > 0 {
						act += float64(s.Rows)
					}
				}
				t.Logf("scale %d walk %d/%d core %v ok %v est %v (%d probes, %d work) order %v/%v err %v: rows %.3g/%.3g [pred/act per step]%s",
					scale, size, i, core, ok, est.Round(time.Microsecond), j.probes, j.work, j.order, st.Order, err, pr, act, b.String())
			}
		}
	}
}
