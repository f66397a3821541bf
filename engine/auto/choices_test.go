package auto_test

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/engine/auto"
	_ "github.com/submatch/submatch/engine/cpu"
	_ "github.com/submatch/submatch/engine/geneva"
	_ "github.com/submatch/submatch/engine/stmatch"
	"github.com/submatch/submatch/gpu"
	"github.com/submatch/submatch/internal/sharedtest"
	"github.com/submatch/submatch/pattern"
)

var updateChoices = flag.Bool("update-choices", false, "rewrite testdata/choices.txt")

// TestChoices records the engine auto chooses for every github and HPRD query, counting and
// listing, on two threads with a GPU present (an H100 stands in) and its kernels compiled,
// against testdata/choices.txt: a change of the rule or of the engines' predictions that changes
// a choice shows here. STMatch's patterns are also decided on a fresh machine (no kernel compiled).
func TestChoices(t *testing.T) {
	if testing.Short() {
		t.Skip("plans and estimates 111 queries")
	}
	var b strings.Builder
	fakeGPU := func(context.Context) (string, error) { return "NVIDIA H100 80GB HBM3", nil }
	h100 := func(context.Context) (uint64, uint64) { return 79 << 30, 80 << 30 }
	warm := func(string) gpu.KernelState { return gpu.KernelCached }
	// A long estimate budget: under load the default (a few ms) cut the estimates short, and q10
	// then went to stmatch in some runs.
	a := auto.Engine{Rules: &auto.Rules{GPU: fakeGPU, Memory: h100, KernelState: warm, EstimateBudget: time.Minute}}
	cold := auto.Engine{Rules: &auto.Rules{GPU: fakeGPU, Memory: h100, EstimateBudget: time.Minute,
		KernelState: func(string) gpu.KernelState { return gpu.KernelNotCached }}}
	for _, suite := range []struct{ dir, data string }{
		{"github-gmatch", "data.graph"},
		{"hprd-subgraphmatching", "HPRD.graph"},
	} {
		g, qs := sharedtest.Suite(t, suite.dir, suite.data, 0)
		for _, q := range qs {
			for _, listing := range []bool{false, true} {
				p := &engine.Problem{Data: g, Pattern: q.Pattern, Threads: 2}
				d, err := a.Decide(context.Background(), p, listing)
				if err != nil {
					t.Fatal(err)
				}
				d.Release() // the preparation of a GPU engine's count, not needed here
				mode := "count"
				if listing {
					mode = "list"
				}
				fmt.Fprintf(&b, "%s %s %s: %s\n", suite.dir, q.Name, mode, d.Engine)
			}
		}
	}
	wv := sharedtest.WikiVote(t)
	for _, q := range []string{"(a)-(b)-(c)-(a)", "(a)-(b)-(c)-(d)-(a)", "(a)-(b)-(c)-(d)-(a), (a)-(c), (b)-(d)",
		"(a)-(b)-(c)-(d)-(e)-(a), (a)-(c), (a)-(d), (b)-(d), (b)-(e), (c)-(e)"} {
		pat, err := pattern.Parse(q)
		if err != nil {
			t.Fatal(err)
		}
		for _, listing := range []bool{false, true} {
			d, err := a.Decide(context.Background(), &engine.Problem{Data: wv, Pattern: pat, Threads: 2}, listing)
			if err != nil {
				t.Fatal(err)
			}
			d.Release()
			fmt.Fprintf(&b, "wiki-Vote %s listing=%v: %s\n", q, listing, d.Engine)
		}
	}
	// STMatch's 24 patterns on 16 threads (the H100 host's cores), where the device measurements
	// of issue 17 say which engine is faster (docs/benchmarks.md).
	for _, np := range stmatchPatterns(t) {
		name, pat := np.name, np.pattern
		d, err := a.Decide(context.Background(), &engine.Problem{Data: wv, Pattern: pat, Threads: 16}, false)
		if err != nil {
			t.Fatal(err)
		}
		d.Release()
		checkThresholdSide(t, name, d.Reason)
		fmt.Fprintf(&b, "stmatch-patterns %s 16 threads: %s\n", name, d.Engine)
		d, err = cold.Decide(context.Background(), &engine.Problem{Data: wv, Pattern: pat, Threads: 16}, false)
		if err != nil {
			t.Fatal(err)
		}
		d.Release()
		checkThresholdSide(t, name+" (fresh machine)", d.Reason)
		fmt.Fprintf(&b, "stmatch-patterns %s 16 threads, fresh machine: %s\n", name, d.Engine)
	}
	golden := filepath.Join("testdata", "choices.txt")
	if *updateChoices {
		if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got := b.String(); got != string(want) {
		gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
		for i := range min(len(gl), len(wl)) {
			if gl[i] != wl[i] {
				t.Errorf("choice changed: got %q, want %q", gl[i], wl[i])
			}
		}
		if len(gl) != len(wl) {
			t.Errorf("%d lines, want %d", len(gl), len(wl))
		}
	}
}

// thresholdSide reads a reason's "N search nodes ..., below|above the GPU threshold T".
var thresholdSide = regexp.MustCompile(`([0-9.e+]+) search nodes.*?, (below|above) the GPU threshold ([0-9.e+]+)`)

// checkThresholdSide fails t when a reason puts its node count on the wrong side of its
// threshold (both are rounded to two digits: within 5% either side reads right). The threshold
// was once the plan bound's while the choice was the estimate's: "estimated 5.2e7 search nodes,
// below the GPU threshold 4.3e7" (STMatch's q10 on the H200 host).
func checkThresholdSide(t *testing.T, what, reason string) {
	t.Helper()
	m := thresholdSide.FindStringSubmatch(reason)
	if m == nil {
		return
	}
	nodes, err1 := strconv.ParseFloat(m[1], 64)
	thr, err2 := strconv.ParseFloat(m[3], 64)
	if err1 != nil || err2 != nil {
		t.Errorf("%s: unreadable numbers in %q", what, reason)
		return
	}
	if m[2] == "below" && nodes > 1.05*thr || m[2] == "above" && nodes < 0.95*thr {
		t.Errorf("%s: %q", what, reason)
	}
}
