// Command stoplat measures stop latency in process: how long after its context's deadline a
// count, auto's decision or one engine's prediction returns (the graph loaded once, so that
// process start and load are not in the figures). Each row is one engine (or mode), query and
// deadline: the median and largest latency over -reps runs, or "done" when every run finished
// before its deadline.
//
//	go run ./scripts/stoplat -graph G.smg [-engines cpu,pbe,sgsi,decide,predict:sgsi] \
//		[-timeouts 1ms,10ms,50ms,100ms,200ms] [-reps 3] [-gpu-memory BYTES] QUERY...
//
// Engines: a registered engine's name counts with it (pbe on its host backend); sgsi counts
// with its host emulation (sgsi.Options.Host), sgsi:buffered the same with every step joined (no
// direct count), sgsi:ooc in a region of -gpu-memory bytes (out of core: the joins sort their
// tables); decide is --engine auto's decision
// (auto.Engine.Decide) with a GPU taken as found, of -gpu-memory bytes (default: an eighth of the
// graph's CSR, so that sgsi and pbe predict out of core); predict:NAME is NAME's prediction
// (engine.Predictor) from the workload that decision builds (the plan and its estimate made
// once, untimed), with its whole time (a live context) on the row. A QUERY is a pattern file or
// an inline pattern.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"os"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/engine/auto"
	"github.com/submatch/submatch/engine/cpu"
	_ "github.com/submatch/submatch/engine/geneva"
	_ "github.com/submatch/submatch/engine/pbe"
	"github.com/submatch/submatch/engine/sgsi"
	_ "github.com/submatch/submatch/engine/stmatch"
	"github.com/submatch/submatch/formats"
	"github.com/submatch/submatch/pattern"
)

func main() {
	graphPath := flag.String("graph", "", "data graph `FILE`")
	engines := flag.String("engines", "cpu,pbe,sgsi,decide", "comma-separated `ENGINES` (see the package comment)")
	timeouts := flag.String("timeouts", "1ms,10ms,50ms,100ms,200ms", "comma-separated `DEADLINES`")
	reps := flag.Int("reps", 3, "runs a row")
	threads := flag.Int("threads", 2, "threads of a count")
	gpuMem := flag.Uint64("gpu-memory", 0, "the GPU memory decide and predict take (`BYTES`; 0: an eighth of the graph's CSR)")
	flag.Parse()
	if *graphPath == "" || flag.NArg() == 0 {
		log.Fatal("stoplat: -graph and at least one query are needed")
	}
	ctx := context.Background()
	g, err := formats.LoadContext(ctx, *graphPath, formats.Options{})
	if err != nil {
		log.Fatal(err)
	}
	if *gpuMem == 0 {
		*gpuMem = (8*uint64(g.NumVertices()+1) + 8*g.NumEdges()) / 8
	}
	var deadlines []time.Duration
	for _, s := range strings.Split(*timeouts, ",") {
		d, err := time.ParseDuration(s)
		if err != nil {
			log.Fatal(err)
		}
		deadlines = append(deadlines, d)
	}
	fmt.Printf("# %s: %d vertices, %d edges; %d threads; GPU memory taken %d bytes\n", *graphPath, g.NumVertices(), g.NumEdges(), *threads, *gpuMem)
	for _, q := range flag.Args() {
		p, name, err := loadQuery(ctx, q)
		if err != nil {
			log.Fatal(err)
		}
		for _, e := range strings.Split(*engines, ",") {
			prob := &engine.Problem{Data: g, Pattern: p, Threads: *threads}
			run, whole, err := runner(e, prob, *gpuMem)
			if err != nil {
				log.Fatalf("%s: %v", e, err)
			}
			if *gaps > 0 {
				fmt.Printf("%s\t%s\tgaps\t%s\n", e, name, widestGaps(run))
				continue
			}
			for _, d := range deadlines {
				fmt.Printf("%s\t%s\t%v\t%s%s\n", e, name, d, measure(run, d, *reps), whole)
			}
		}
	}
}

// loadQuery reads a pattern file, or parses an inline pattern.
func loadQuery(ctx context.Context, q string) (*pattern.Pattern, string, error) {
	if _, err := os.Stat(q); err == nil {
		p, err := formats.LoadPatternContext(ctx, q, formats.Options{})
		return p, q[strings.LastIndex(q, "/")+1:], err
	}
	p, err := pattern.Parse(q)
	return p, fmt.Sprintf("%d vertices, %d edges", p.NumVertices(), p.NumEdges()), err
}

// runner returns what mode e runs under a context (its error says whether the context stopped
// it) and, for a prediction, its whole time.
func runner(e string, prob *engine.Problem, gpuMem uint64) (func(context.Context) error, string, error) {
	rules := &auto.Rules{
		GPU:            func(context.Context) (string, error) { return "stoplat's GPU", nil },
		Memory:         func(context.Context) (uint64, uint64) { return gpuMem, 4 * gpuMem },
		EstimateBudget: time.Second, // (the estimate auto makes for a 0.35 s start-up: its own bound)
	}
	count := func(eng engine.Engine) func(context.Context) error {
		return func(ctx context.Context) error {
			res, err := eng.Count(ctx, prob)
			if err == nil && res.Partial {
				err = ctx.Err()
			}
			return err
		}
	}
	switch {
	case e == "sgsi":
		return count(sgsi.Engine{Options: sgsi.Options{Host: true}}), "", nil
	case e == "sgsi:buffered":
		return count(sgsi.Engine{Options: sgsi.Options{Host: true, Buffered: true}}), "", nil
	case e == "sgsi:ooc":
		return count(sgsi.Engine{Options: sgsi.Options{Host: true, HostBytes: gpuMem}}), "", nil
	case e == "decide":
		return func(ctx context.Context) error {
			d, err := auto.Engine{Rules: rules}.Decide(ctx, prob, false)
			d.Release()
			return err
		}, "", nil
	case strings.HasPrefix(e, "predict:"):
		eng, err := engine.Lookup(strings.TrimPrefix(e, "predict:"))
		if err != nil {
			return nil, "", err
		}
		pr, ok := eng.(engine.Predictor)
		if !ok {
			return nil, "", errors.New("not a predictor")
		}
		w, err := workload(rules, prob, gpuMem)
		if err != nil {
			return nil, "", err
		}
		var times []time.Duration
		note := ""
		for range 3 {
			start := time.Now()
			p, err := pr.Predict(context.Background(), w)
			if err != nil {
				return nil, "", err
			}
			times = append(times, time.Since(start))
			note = fmt.Sprintf("%.3g s (%s)", p.Seconds, p.Note)
		}
		slices.Sort(times)
		return func(ctx context.Context) error {
			_, err := pr.Predict(ctx, w)
			return err
		}, fmt.Sprintf("\twhole prediction %v: %s", times[1].Round(time.Microsecond), note), nil
	}
	eng, err := engine.Lookup(e)
	if err != nil {
		return nil, "", err
	}
	return count(eng), "", nil
}

// workload is the workload auto's decision predicts from: its plan, estimate and host time.
func workload(rules *auto.Rules, prob *engine.Problem, gpuMem uint64) (*engine.Workload, error) {
	d, err := auto.Engine{Rules: rules}.Decide(context.Background(), prob, false)
	d.Release()
	if err != nil {
		return nil, err
	}
	w := &engine.Workload{Problem: prob, Threads: prob.Threads, Plan: d.Plan(), Bound: d.Bound,
		GPU: d.GPU, GPUMemory: gpuMem, DeviceMemory: 4 * gpuMem}
	if d.Estimated {
		w.Estimate = &d.Estimate
	}
	host, err := cpu.Engine{}.Predict(context.Background(), w)
	if err != nil {
		return nil, err
	}
	w.HostSeconds = host.Seconds
	return w, nil
}

// gaps, when set, runs each engine and query once with a context that ends after it and records
// when it is asked (Err): the widest intervals between two looks, with the lines that looked,
// are the phases that would run on past a deadline. (Looks at contexts derived from it, and
// waits on its Done channel, are not seen: a wide gap is a place to look, not a verdict.)
var gaps = flag.Duration("gaps", 0, "instead of deadlines, print the widest intervals between two looks at the context of one run of at most `LONG` (0: deadlines)")

// recorder is a context (its deadline -gaps) that records the intervals between the looks at it.
type recorder struct {
	context.Context
	mu    sync.Mutex
	last  time.Time
	where string
	gaps  []gap
	looks int
}

// gap is an interval between two looks at a recorder: from the line of one to the line of the next.
type gap struct {
	d        time.Duration
	from, to string
}

func (r *recorder) Err() error {
	_, file, line, _ := runtime.Caller(1)
	here := fmt.Sprintf("%s:%d", file[strings.LastIndex(file, "/submatch/")+len("/submatch/"):], line)
	r.mu.Lock()
	defer r.mu.Unlock()
	now := time.Now()
	r.gaps = append(r.gaps, gap{now.Sub(r.last), r.where, here})
	r.last, r.where = now, here
	r.looks++
	return r.Context.Err()
}

// widestGaps runs run once under a recorder: its time, its looks and its three widest gaps (the
// last from the final look to the return).
func widestGaps(run func(context.Context) error) string {
	ctx, cancel := context.WithTimeout(context.Background(), *gaps)
	defer cancel()
	r := &recorder{Context: ctx, last: time.Now(), where: "start"}
	start := time.Now()
	err := run(r)
	r.Err()
	r.gaps[len(r.gaps)-1].to = "return"
	slices.SortFunc(r.gaps, func(a, b gap) int { return int(b.d - a.d) })
	out := fmt.Sprintf("%v, %d looks, error %v; widest:", time.Since(start).Round(time.Millisecond), r.looks-1, err)
	for _, g := range r.gaps[:min(3, len(r.gaps))] {
		out += fmt.Sprintf(" %v (%s -> %s);", g.d.Round(time.Millisecond), g.from, g.to)
	}
	return out
}

// stackAfter, when positive, is how long after a deadline a run still going has its goroutines'
// stacks written to standard error (once a run): what does not check its context.
var stackAfter = flag.Duration("stacks", 0, "write the goroutines' stacks of a run still going this `LONG` after its deadline (0: never)")

// dumpStacks writes every goroutine's stack to standard error.
func dumpStacks(d time.Duration) {
	fmt.Fprintf(os.Stderr, "--- stacks %v after the deadline %v\n", *stackAfter, d)
	pprof.Lookup("goroutine").WriteTo(os.Stderr, 1)
}

// measure runs run under each deadline reps times: the median and largest time from the deadline
// to the return, over the runs the context stopped.
func measure(run func(context.Context) error, d time.Duration, reps int) string {
	var late []time.Duration
	done := 0
	for range reps {
		start := time.Now()
		ctx, cancel := context.WithDeadline(context.Background(), start.Add(d))
		stacks := time.AfterFunc(d+*stackAfter, func() {
			if *stackAfter > 0 {
				dumpStacks(d)
			}
		})
		err := run(ctx)
		took := time.Since(start)
		stacks.Stop()
		stopped := took >= d && ctx.Err() != nil
		cancel()
		switch {
		case err == nil && !stopped:
			done++
		case stopped && (err == nil || errors.Is(err, context.DeadlineExceeded)):
			late = append(late, took-d)
		default:
			return fmt.Sprintf("error after %v: %v", took.Round(time.Microsecond), err)
		}
	}
	if len(late) == 0 {
		return fmt.Sprintf("done (%d runs)", done)
	}
	slices.Sort(late)
	return fmt.Sprintf("median %v, max %v late (%d stopped, %d done)", late[len(late)/2].Round(time.Microsecond), late[len(late)-1].Round(time.Microsecond), len(late), done)
}
