package stmatch

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/internal/sharedtest"
	"github.com/submatch/submatch/internal/testenv"
	"github.com/submatch/submatch/pattern"
)

// EnvOrders enables TestGPUOrders, which measures rather than checks: the kernel time of
// STMatch's patterns (the names in SUBMATCH_STMATCH_ORDERS_QS, e.g. q14,q20) on wiki-Vote with
// the order the search chooses, the default order (NoOrderSearch) and STMatch's own (the
// pattern file's vertex order, which Dryadic wrote for it). Rows go to the file it names
// (tab-separated: pattern, variant, order, multiplier, count, partial, kernel ms, plan ms).
const EnvOrders = "SUBMATCH_STMATCH_ORDERS"

func TestGPUOrders(t *testing.T) {
	out := os.Getenv(EnvOrders)
	if out == "" {
		t.Skipf("measurement only: set %s=FILE", EnvOrders)
	}
	needGPU(t)
	g := sharedtest.WikiVote(t)
	f, err := os.Open(testenv.Path(t, "stmatch-patterns/wikivote-unlabelled.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	want := "," + os.Getenv(EnvOrders+"_QS") + ","
	cut, err := time.ParseDuration(os.Getenv(EnvOrders + "_CUT"))
	if err != nil {
		cut = 8 * time.Second
	}
	w, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Split(sc.Text(), "\t")
		if len(fs) < 2 || strings.HasPrefix(fs[0], "#") || !strings.Contains(want, ","+fs[0]+",") {
			continue
		}
		p, err := pattern.Parse(fs[1])
		if err != nil {
			t.Fatal(err)
		}
		identity := make([]int, p.NumVertices())
		for i := range identity {
			identity[i] = i
		}
		counts := map[string]uint64{}
		for _, v := range []struct {
			name string
			o    Options
		}{{"searched", Options{}}, {"default", Options{NoOrderSearch: true}}, {"stmatch", Options{order: identity}}} {
			ctx, cancel := context.WithTimeout(context.Background(), cut)
			pl, perr := buildPlan(ctx, g, p, engine.Semantics{}, v.o, nil)
			res, st, err := CountOptions(ctx, &engine.Problem{Data: g, Pattern: p}, v.o)
			cancel()
			if err != nil && !res.Partial {
				t.Fatalf("%s %s: %v", fs[0], v.name, err)
			}
			order, mult := "-", uint64(0)
			if perr == nil {
				order, mult = fmt.Sprint(fullOrder(pl)), pl.Multiplier
			}
			if !res.Partial {
				counts[v.name] = res.Count
			}
			fmt.Fprintf(w, "%s\t%s\t%s\t%d\t%d\t%v\t%.1f\t%.1f\n", fs[0], v.name, order, mult, res.Count, res.Partial,
				float64(st.Kernel.Microseconds())/1e3, float64(res.PlanTime.Microseconds())/1e3)
			t.Logf("%s %s: order %s x%d, count %d (partial %v), kernel %v, plan %v", fs[0], v.name, order, mult, res.Count, res.Partial, st.Kernel, res.PlanTime)
		}
		var first uint64
		for _, c := range counts {
			if first != 0 && c != first {
				t.Errorf("%s: the orders count differently: %v", fs[0], counts)
			}
			first = c
		}
	}
}
