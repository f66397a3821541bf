package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"runtime"
	"strconv"
	"time"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/engine/auto"
	"github.com/submatch/submatch/engine/cpu"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/pattern"
	"github.com/submatch/submatch/plan"
)

func init() {
	registerCommand(command{name: "count", summary: "count the matches of one or more patterns", run: runCount})
}

// countRecord is one line of count --json.
type countRecord struct {
	Query           string  `json:"query"`
	Count           uint64  `json:"count"`
	Semantics       string  `json:"semantics"`
	ElapsedMS       float64 `json:"elapsed_ms"`
	PlanMS          float64 `json:"plan_ms"`
	KernelMS        float64 `json:"kernel_ms,omitempty"` // GPU engines: time in kernels
	Partial         bool    `json:"partial"`
	Engine          string  `json:"engine"`         // the engine that counted (with --engine auto, the one it chose)
	Auto            string  `json:"auto,omitempty"` // --engine auto: why it chose that engine
	PatternVertices int     `json:"pattern_vertices"`
	PatternEdges    int     `json:"pattern_edges"`
	Pattern         string  `json:"pattern"`
	Error           string  `json:"error,omitempty"` // the count failed (count is then 0, not a result)
}

func runCount(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("count", "DATA QUERY...",
		"Counts the matches of each QUERY in the data graph DATA (loaded once) and prints one line per query:\n"+
			"QUERY, count, counting convention, elapsed time, and \"(partial)\" when the run was cut short\n"+
			"(a query that fails, say because its count overflows 64 bits, prints \"-\" and \"(error: ...)\").\n"+
			"A QUERY is a graph file in any format or, when no such file exists and it starts with '(', an\n"+
			"inline pattern such as '(a:1)-(b)-(c:1)-(a)'. DATA or one QUERY may be - for standard input.\n"+
			"Several queries run at the same time, up to --threads of them, start and print in the order given;\n"+
			"each elapsed time then includes the load of the others (time one query a process to compare).\n"+
			"--timeout covers the whole run: when it (or Ctrl-C) cuts the run short, every query still prints\n"+
			"its line, flagged partial (a query not started counts 0).")
	var f matchFlags
	f.register(fs)
	explain := fs.Bool("explain", false, "print each query's matching plan (order, candidates, counted vertices, restrictions) and the engine chosen for it, with why, on stderr")
	pos, err := f.parseArgs(fs, args, stdout)
	if err != nil {
		return exitCode(stderr, err)
	}
	if len(pos) < 2 {
		return exitCode(stderr, usagef("count needs a data graph and at least one query (run 'submatch help count')"))
	}
	if err := f.check(); err != nil {
		return exitCode(stderr, err)
	}
	if err := oneStdin(pos...); err != nil {
		return exitCode(stderr, err)
	}
	log := newLogger(stderr, f.verbose)
	ctx, cancel := f.context(ctx)
	defer cancel()

	eng, err := f.resolveEngine()
	if err != nil {
		return exitCode(stderr, err)
	}
	var ph phases
	ph.mark("args")
	// Read every query before the (possibly large) data graph so a typo fails fast.
	queries := make([]*pattern.Pattern, len(pos)-1)
	for i, q := range pos[1:] {
		if queries[i], err = loadQuery(ctx, q, f.queryOptions(log)); err != nil {
			return exitCode(stderr, err)
		}
	}
	ph.mark("queries")
	// A snapshot's rules are still being checked when the load returns: the counts plan beside
	// the check and wait for it before they search (countOne).
	g, checked, err := loadDataChecking(ctx, pos[0], f.options(log), log)
	if err == nil && *explain {
		err = checked() // --explain prints the plans before the counts
	}
	if err != nil {
		return exitCode(stderr, err)
	}
	ph.mark("load")
	code := countAll(ctx, &f, log, eng, dataGraph{g, checked}, pos[1:], queries, stdout, stderr, *explain)
	ph.mark("count")
	ph.log(log, "count: process", "load")
	return code
}

// dataGraph is the data graph of a count and its checks (loadDataChecking): nothing computed
// from g is a result until checked returns nil.
type dataGraph struct {
	g       *graph.Graph
	checked func() error
}

// checkedCounter is an engine that can plan while the data graph is still being checked
// (cpu.Engine.CountChecked).
type checkedCounter interface {
	CountChecked(ctx context.Context, p *engine.Problem, checked func() error) (engine.Result, error)
}

// countAll counts every query, one after the other or (several queries, several threads, no
// --explain) concurrently.
func countAll(ctx context.Context, f *matchFlags, log *slog.Logger, eng engine.Engine, dg dataGraph,
	names []string, queries []*pattern.Pattern, stdout, stderr io.Writer, explain bool) int {
	if !explain && len(queries) > 1 && f.threads != 1 {
		return countConcurrently(ctx, f, log, eng, dg, names, queries, stdout, stderr)
	}
	code := exitOK
	for i, q := range names {
		switch c := countOne(ctx, f, log, eng, dg, q, queries[i], stdout, stderr, explain); c {
		case exitOK:
		case exitPartial: // cut short: the queries after it still get their (partial) line
			code = c
		default:
			return c
		}
	}
	return code
}

// countConcurrently counts several queries at once, as many as there are threads (each count
// may use every thread too: the engine only adds workers to counts that run longer than a
// millisecond, so a batch of small queries keeps all cores busy). Results are printed in the
// order the queries were given. A timeout or an interrupt leaves every query its line, flagged
// partial (those not started count 0); any other failure stops the rest.
func countConcurrently(ctx context.Context, f *matchFlags, log *slog.Logger, eng engine.Engine, dg dataGraph,
	names []string, queries []*pattern.Pattern, stdout, stderr io.Writer) int {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type outcome struct {
		code        int
		out, errOut bytes.Buffer
	}
	parallel := f.threads
	if parallel <= 0 {
		parallel = runtime.GOMAXPROCS(0)
	}
	slots := make(chan struct{}, parallel)
	results := make([]chan *outcome, len(queries))
	for i := range queries {
		results[i] = make(chan *outcome, 1)
	}
	// Queries start in the order given: a slot is taken before the next query's goroutine
	// exists (goroutines racing for slots start in any order, so a cheap first query could
	// wait behind expensive later ones and print a partial 0 under --timeout).
	go func() {
		for i := range queries {
			slots <- struct{}{}
			if countStarted != nil {
				countStarted(i)
			}
			go func() {
				defer func() { <-slots }()
				o := &outcome{}
				// After a failure ctx is cancelled, so the queries still waiting return at once.
				o.code = countOne(ctx, f, log, eng, dg, names[i], queries[i], &o.out, &o.errOut, false)
				results[i] <- o
			}()
		}
	}()
	code := exitOK
	for i := range queries {
		o := <-results[i]
		if _, err := stdout.Write(o.out.Bytes()); err != nil {
			return exitCode(stderr, fmt.Errorf("writing the result: %w", err))
		}
		stderr.Write(o.errOut.Bytes())
		switch o.code {
		case exitOK:
		case exitPartial:
			code = o.code
		default:
			cancel()
			for j := i + 1; j < len(queries); j++ {
				<-results[j] // let the others stop before returning
			}
			return o.code
		}
	}
	return code
}

// countStarted, when set (by tests), is called as each query of a concurrent count starts.
var countStarted func(i int)

// countOne runs and prints one count; with explain it first prints the plan and the engine (on
// stderr). The engine plans beside the data graph's checks and counts after them; a failed
// check is reported as the load's error, with no count.
func countOne(ctx context.Context, f *matchFlags, log *slog.Logger, eng engine.Engine, dg dataGraph,
	name string, p *pattern.Pattern, stdout, stderr io.Writer, explain bool) int {
	prog := newProgress(stderr, name)
	prob := f.problem(dg.g, p, prog.callback(), log)
	sem := prob.Semantics
	start := time.Now()
	var (
		res        engine.Result
		err        error
		engineName = eng.Name()
		autoReason string
		decide     time.Duration // --engine auto: its decision (the plan, a bound, maybe an estimate)
	)
	if a, ok := eng.(auto.Engine); ok {
		var d auto.Decision
		d, err = a.Decide(ctx, prob, false)
		decide = time.Since(start)
		if err == nil {
			// Decide only planned and estimated (and, for a GPU-worthy count, looked for the
			// GPU and started a device engine's host-side plan): nothing runs before the check.
			if err = dg.checked(); err != nil {
				d.Release()
			}
		}
		if err == nil {
			if explain {
				printExplain(ctx, stderr, name, prob, d.Plan(), false, d.Engine == "cpu", "engine: "+d.Explain())
			}
			res, d, err = a.CountWith(ctx, prob, &d)
		} else if ctx.Err() != nil {
			res.Partial = true
		}
		engineName, autoReason = d.Engine, d.Reason
	} else {
		if explain {
			printExplain(ctx, stderr, name, prob, nil, false, engineName == "cpu", "engine: "+engineName+" (chosen with --engine)")
		}
		if c, ok := eng.(checkedCounter); ok {
			res, err = c.CountChecked(ctx, prob, dg.checked)
		} else if err = dg.checked(); err == nil {
			res, err = eng.Count(ctx, prob)
		}
	}
	elapsed := time.Since(start)
	prog.finish()
	if cerr := dg.checked(); cerr != nil {
		return exitCode(stderr, cerr)
	}
	if err != nil && !isCancel(err) {
		// Still print the query's row (so that rows line up with the queries), then the error.
		var werr error
		if f.json {
			werr = json.NewEncoder(stdout).Encode(countRecord{
				Query: name, Semantics: sem.String(), ElapsedMS: ms(elapsed), Engine: engineName, Auto: autoReason,
				PatternVertices: p.NumVertices(), PatternEdges: p.NumEdges(), Pattern: p.String(), Error: err.Error(),
			})
		} else {
			_, werr = fmt.Fprintln(stdout, name+"	-	"+sem.String()+"	"+fmtDuration(elapsed)+"	(error: "+oneLine(err.Error())+")")
		}
		if werr != nil {
			return exitCode(stderr, fmt.Errorf("writing the result: %w", werr))
		}
		return exitCode(stderr, fmt.Errorf("%s: %w", name, err))
	}
	partial := res.Partial || err != nil
	log.Debug("counted", "query", name, "pattern", p.String(), "count", res.Count, "partial", partial,
		"engine", engineName, "elapsed", elapsed, "decide", decide, "plan", res.PlanTime)
	var werr error
	if f.json {
		werr = json.NewEncoder(stdout).Encode(countRecord{
			Query: name, Count: res.Count, Semantics: prob.Semantics.String(), ElapsedMS: ms(elapsed), PlanMS: ms(res.PlanTime),
			KernelMS: ms(res.DeviceTime),
			Partial:  partial, Engine: engineName, Auto: autoReason, PatternVertices: p.NumVertices(), PatternEdges: p.NumEdges(),
			Pattern: p.String(),
		})
	} else {
		line := name + "\t" + strconv.FormatUint(res.Count, 10) + "\t" + prob.Semantics.String() + "\t" + fmtDuration(elapsed)
		if partial {
			line += "\t(partial)"
		}
		_, werr = fmt.Fprintln(stdout, line)
	}
	if werr != nil {
		return exitCode(stderr, fmt.Errorf("writing the result: %w", werr))
	}
	if partial {
		fmt.Fprintf(stderr, "submatch: %s: %s; the count %d is partial (a lower bound)\n", name, stopReason(ctx, f.timeout)+stopDetail(err), res.Count)
		return exitPartial
	}
	return exitOK
}

// printExplain prints the --explain output for one query of problem prob on w: the CPU engine's
// plan (pl, or built here with the CPU engine's options when nil) and the engine line. When the
// CPU engine counts (cpuCounts), the plan is the one it runs: a count may run another plan than
// the one it built (cpu.Engine.RunPlan), said in a line after it.
func printExplain(ctx context.Context, w io.Writer, name string, prob *engine.Problem, pl *plan.Plan,
	listing, cpuCounts bool, engineLine string) {
	g, p, sem := prob.Data, prob.Pattern, prob.Semantics
	if pl == nil {
		opts, err := cpu.PlanOptions(prob, listing)
		if err != nil {
			opts = plan.Options{Induced: sem.Induced, Unique: sem.Unique, Enumerate: listing, MultiplyAutomorphisms: !listing}
		}
		pl = plan.Build(g, p, opts)
	}
	note := ""
	if cpuCounts && !listing && !pl.Empty {
		pl, note = cpu.Engine{}.RunPlan(ctx, prob, pl)
	}
	fmt.Fprintf(w, "plan for %s (%s):\n%s", name, sem, pl.Describe())
	if note != "" {
		fmt.Fprintln(w, note)
	}
	if c, ok := plan.AsClique(g, p); ok && !listing {
		fmt.Fprintf(w, "the CPU engine counts it as a %d-clique instead: the upward neighbourhood of each vertex as a bit matrix, the rest by ANDs and popcounts\n", c.K)
	}
	fmt.Fprintln(w, engineLine)
}
