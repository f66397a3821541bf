package sgsi

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
	"github.com/submatch/submatch/engine/internal/predicttest"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/pattern"
	"github.com/submatch/submatch/plan"
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
				o := Options{PaperOrder: !core}
				t0 := time.Now()
				j, ok, _ := estimateJoin(context.Background(), g, p, engine.Semantics{}, o, 1)
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

// joinRowsBand is how far an estimate of rows may be from the rows counted.
const joinRowsBand = 3

// TestJoinRows: estimateJoin's tables in sgsi's order (SGSI's and the core order, leaves counted
// or joined) against the host emulation's exact rows (Stats.PerStep) on dense walks of a
// labelled R-MAT graph: the same order, and the rows of the tables after the first within
// joinRowsBand of the actual rows, summed over the steps and at the largest step.
func TestJoinRows(t *testing.T) {
	g, err := gen.RMAT(gen.RMATOptions{Scale: 10, EdgeFactor: 16, VertexLabels: 16, LabelDistribution: gen.ZipfLabels, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, size := range []int{6, 8} {
		for i := range 3 {
			p, err := gen.RandomWalkQuery(g, size, gen.QuerySeed(2, size, i), gen.QueryOptions{})
			if err != nil {
				t.Fatal(err)
			}
			for _, o := range []Options{{PaperOrder: true}, {}, {JoinLeaves: true}} {
				j, ok, _ := estimateJoin(context.Background(), g, p, engine.Semantics{}, o, 1)
				o.Host = true
				_, st, err := Engine{Options: o}.CountStats(context.Background(), &engine.Problem{Data: g, Pattern: p})
				if !ok || err != nil {
					t.Fatalf("walk %d/%d %+v: estimate %v, count %v", size, i, o, ok, err)
				}
				if !slices.Equal(j.order, st.Order) || j.joined != st.Steps+1 {
					t.Errorf("walk %d/%d %+v: estimated order %v (%d joined), the count's %v (%d steps)", size, i, o, j.order, j.joined, st.Order, st.Steps)
					continue
				}
				var pred, act, top float64
				at := 0
				for k := range st.Steps { // (step k writes the table of width k+2)
					x := float64(st.PerStep[k].Out)
					pred += j.levels[k+1]
					act += x
					if x > top {
						top, at = x, k
					}
				}
				t.Logf("walk %d/%d core %v joinleaves %v: %.3g rows estimated, %.0f counted", size, i, !o.PaperOrder, o.JoinLeaves, pred, act)
				if act < 1000 {
					continue // (a few rows: the estimate's noise is all there is)
				}
				checked++
				if r := pred / act; r > joinRowsBand || r < 1/joinRowsBand {
					t.Errorf("walk %d/%d %+v: estimated %.3g rows, counted %.0f", size, i, o, pred, act)
				}
				if r := j.levels[at+1] / top; r > joinRowsBand || r < 1/joinRowsBand {
					t.Errorf("walk %d/%d %+v: the largest table estimated at %.3g rows, counted %.0f", size, i, o, j.levels[at+1], top)
				}
			}
		}
	}
	if checked < 6 {
		t.Errorf("only %d counts of 1,000 rows or more: the test checks little", checked)
	}
}

// TestPredictJoinRows: an out-of-core count's prediction prices sgsi's own tables, not the cpu
// plan's levels (issue 21: auto chose sgsi for walks whose tables were orders of magnitude
// above the cpu estimate's levels). A walk whose tables the host emulation counts at millions
// of rows (its leaves joined) is given a cpu estimate of a few rows a level: the prediction is
// still at least the counted rows at TableRowsPerSecond, within joinRowsBand.
func TestPredictJoinRows(t *testing.T) {
	g, err := gen.RMAT(gen.RMATOptions{Scale: 10, EdgeFactor: 16, VertexLabels: 16, LabelDistribution: gen.ZipfLabels, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	p, err := gen.RandomWalkQuery(g, 8, gen.QuerySeed(2, 8, 0), gen.QueryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	e := Engine{Options: Options{JoinLeaves: true, PaperOrder: true}} // (SGSI's order: the large tables)
	h := e
	h.Options.Host = true
	_, st, err := h.CountStats(context.Background(), &engine.Problem{Data: g, Pattern: p})
	if err != nil {
		t.Fatal(err)
	}
	rows := 0.0
	for _, s := range st.PerStep[:st.Steps-1] { // (the last step counts without a table)
		rows += float64(s.Out)
	}
	few := make([]float64, p.NumVertices())
	for i := range few {
		few[i] = 10
	}
	w := &engine.Workload{Problem: &engine.Problem{Data: g, Pattern: p}, Threads: 2, HostSeconds: 1e-3,
		GPUMemory: GraphBytes(g) / 4, Estimate: &plan.Estimate{LevelNodes: few}}
	pr := predicttest.Must(t, e, w)
	if want := rows / TableRowsPerSecond / joinRowsBand; rows < 1e6 || !pr.OutOfCore || pr.Seconds < want {
		t.Errorf("tables of %.0f rows counted: predicted %+v, want at least %.2f s", rows, pr, want)
	}
	if _, _, ok := directSeconds(w, GraphBytes(g), nil); !ok {
		t.Errorf("the cpu estimate's levels no longer priced")
	}
}

// TestJoinRowsShapes: estimateJoin on small, edge-labelled, tail-only (no leaf group: the leaf
// step counts tails alone), disconnected patterns and ones without candidates: the order, the
// joined vertices and whether a leaf step follows are the count's (Stats), the estimate is the
// same twice (Predict's decision is deterministic), and an empty candidate set gives no rows.
func TestJoinRowsShapes(t *testing.T) {
	g := gen.RandomGraph(7, 60, 0.15, 5, 2)
	for _, src := range []string{
		"(a)-(b)",
		"(a)-(b)-(c)",
		"(a)-(b)-(c)-(a), (a)-(x)",
		"(c:0)-(d:0), (c)-(a1:1)-(b1:2), (d)-(a2:3)-(b2:4)",
		"(c:0)-[:1]-(d:0), (c)-(a1:1)-[:0]-(b1:2), (d)-(a2:3)-(b2:4), (c)-(x:1)-(d)",
		"(a)-(b)-(c)-(d)-(a), (a)-(x:9)",
		"(a)-(b)-(c), (d)-(e)",
	} {
		p, err := pattern.Parse(src)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range []Options{{PaperOrder: true}, {}, {JoinLeaves: true}} {
			for _, sem := range []engine.Semantics{{}, {Unique: true}, {Induced: true}} {
				j, ok, _ := estimateJoin(context.Background(), g, p, sem, o, 1)
				again, _, _ := estimateJoin(context.Background(), g, p, sem, o, 1)
				if !slices.Equal(j.levels, again.levels) || j.work != again.work {
					t.Errorf("%s %+v %v: two estimates %v and %v", src, o, sem, j.levels, again.levels)
				}
				if len(p.Components()) > 1 {
					if ok {
						t.Errorf("%s: an estimate of a disconnected pattern", src)
					}
					continue
				}
				h := o
				h.Host = true
				res, st, err := Engine{Options: h}.CountStats(context.Background(), &engine.Problem{Data: g, Pattern: p, Semantics: sem})
				if !ok || err != nil {
					t.Fatalf("%s %+v %v: estimate %v, count %v", src, o, sem, ok, err)
				}
				if res.Count == 0 && strings.Contains(src, ":9") {
					if slices.ContainsFunc(j.levels, func(x float64) bool { return x != 0 }) {
						t.Errorf("%s %+v %v: no candidates, estimated %v", src, o, sem, j.levels)
					}
					continue // (the count stops at the filter: no order)
				}
				if leafStep := len(st.PerStep) > st.Steps; !slices.Equal(j.order, st.Order) || j.joined != st.Steps+1 || j.leaves != leafStep {
					t.Errorf("%s %+v %v: estimated order %v (%d joined, leaf step %v), the count's %v (%d steps, leaf step %v)", src, o, sem, j.order, j.joined, j.leaves, st.Order, st.Steps, leafStep)
				}
			}
		}
	}
}
