// Command autofit prints what --engine auto predicts and chooses for each of STMatch's patterns
// (or any tab-separated name/pattern file) on a data graph, as if a GPU (-gpu names it) were
// present with its kernels compiled: per pattern and thread count, the planner's estimate (search
// nodes, set-operation steps), each engine's predicted seconds with the CPU engine's note, and
// the choice. scripts/auto-fit.sh joins it with measured times (issue 17: calibrating the CPU
// engine's cost model). It is built from any commit of the module, so that the predictions of
// two commits can be compared in one script run.
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/engine/auto"
	"github.com/submatch/submatch/engine/cpu"
	_ "github.com/submatch/submatch/engine/geneva"
	_ "github.com/submatch/submatch/engine/stmatch"
	"github.com/submatch/submatch/formats"
	"github.com/submatch/submatch/gpu"
	"github.com/submatch/submatch/pattern"
	"github.com/submatch/submatch/plan"
)

func main() {
	data := flag.String("data", "", "data graph file")
	patterns := flag.String("patterns", "", "file of lines: name <tab> pattern (inline, or a query file) [<tab> ...]; # comments")
	threads := flag.String("threads", "1,2,16", "comma-separated thread counts")
	gpuName := flag.String("gpu", "NVIDIA H200", "the GPU taken as present")
	flag.BoolVar(&listing, "listing", false, "decide for listing the matches instead of counting them")
	flag.IntVar(&rowDegree, "rowdegree", 0, "with -probes: EstimateOptions.RowDegree of the second estimate")
	flag.IntVar(&reProbes, "probes", 0, "when positive, estimate again with this many probes (no work limit) for the CPU terms")
	flag.Parse()
	if err := run(*data, *patterns, *threads, *gpuName); err != nil {
		fmt.Fprintln(os.Stderr, "autofit:", err)
		os.Exit(1)
	}
}

// reProbes, when positive, is the probe count of a second, larger estimate for the CPU terms.
var (
	reProbes, rowDegree int
	listing             bool
)

func run(data, patterns, threadList, gpuName string) error {
	ctx := context.Background()
	g, err := formats.LoadContext(ctx, data, formats.Options{DropSelfLoops: true})
	if err != nil {
		return fmt.Errorf("loading %s: %w", data, err)
	}
	var ts []int
	for _, s := range strings.Split(threadList, ",") {
		t, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || t < 1 {
			return fmt.Errorf("bad thread count %q", s)
		}
		ts = append(ts, t)
	}
	f, err := os.Open(patterns)
	if err != nil {
		return fmt.Errorf("patterns: %w", err)
	}
	defer f.Close()
	a := auto.Engine{Rules: &auto.Rules{
		GPU:         func(context.Context) (string, error) { return gpuName, nil },
		Memory:      func(context.Context) (uint64, uint64) { return 130 << 30, 140 << 30 },
		KernelState: func(string) gpu.KernelState { return gpu.KernelCached },
	}}
	fmt.Println("name\tthreads\tnodes\tcost\tgroup_cost\tgroup_kept_cost\tchoice\tcpu_s\tstmatch_s\tgeneva_s\tcpu_note\tterms\tlevel_nodes")
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, rest, ok := strings.Cut(sc.Text(), "\t")
		if !ok || strings.HasPrefix(name, "#") {
			continue
		}
		src, _, _ := strings.Cut(rest, "\t")
		pat, err := pattern.Parse(src)
		if !strings.HasPrefix(src, "(") {
			pat, err = formats.LoadPatternContext(ctx, src, formats.Options{})
		}
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		for _, t := range ts {
			d, err := a.Decide(ctx, &engine.Problem{Data: g, Pattern: pat, Threads: t}, listing)
			if err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			d.Release()
			// The CPU engine's own prediction, also where auto stopped before predicting the
			// others (below the GPU's start-up).
			p := &engine.Problem{Data: g, Pattern: pat, Threads: t}
			w := &engine.Workload{Problem: p, Plan: d.Plan(), Bound: d.Bound, Threads: t}
			if d.Estimated {
				w.Estimate = &d.Estimate
				if run := runPlan(&d); run != nil {
					w.Plan, w.Bound, w.Estimate = run, run.NodeBound(), runEstimate(&d)
				}
				if reProbes > 0 {
					est, err := estimateAgain(ctx, d.Plan(), g, reProbes, rowDegree)
					if err != nil {
						return fmt.Errorf("%s: %w", name, err)
					}
					d.Estimate, w.Estimate = est, &est
				}
			}
			if cl, ok := plan.AsClique(g, pat); ok {
				w.Clique = &cl
			}
			cp, err := cpu.Engine{}.Predict(ctx, w)
			if err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			secs := map[string]float64{}
			for _, p := range d.Predictions {
				secs[p.Engine] = p.Seconds
			}
			secs["cpu"] = cp.Seconds
			note := cp.Note
			e := d.Estimate
			var levels []string
			for _, n := range e.LevelNodes {
				levels = append(levels, fmt.Sprintf("%.3g", n))
			}
			fmt.Printf("%s\t%d\t%.3g\t%.3g\t%.3g\t%.3g\t%s\t%.4g\t%.4g\t%.4g\t%s\t%s\t%s\n", name, t, e.Nodes, e.Cost,
				e.GroupCost, e.GroupKeptCost, d.Engine, secs["cpu"], secs["stmatch"], secs["geneva"], note,
				terms(w), strings.Join(levels, ","))
		}
	}
	return sc.Err()
}
