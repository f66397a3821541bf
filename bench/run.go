package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"slices"
	"time"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/formats"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/pattern"
	"github.com/submatch/submatch/plan"
)

// Config says how to run a list of cases.
type Config struct {
	Cases  []Case
	Engine engine.Engine
	// Threads lists the thread counts each case runs with (default: 1 and GOMAXPROCS). Speedups
	// are relative to the smallest.
	Threads []int
	// Repeats is the number of timed runs per measurement; the median is reported (default 3).
	Repeats int
	// Timeout bounds each run of a case (default 60s). A run cut short is recorded as a timeout
	// with its partial count as a lower bound, and the case is not repeated at that thread count.
	Timeout time.Duration
	// Log receives one progress line per measurement; nil: silent.
	Log io.Writer
}

// Status is the outcome of a measurement.
type Status string

const (
	StatusOK      Status = "ok"
	StatusTimeout Status = "timeout" // Count is a lower bound
	StatusWrong   Status = "wrong"   // the count differs from the published one or from another thread count
	StatusError   Status = "error"   // see Err
)

// Result is the measurement of one case at one thread count. Times are medians over the runs.
type Result struct {
	Case        string
	Group       string
	Data        string
	Query       string
	Semantics   string
	Vertices    int    // of the data graph
	Edges       uint64 // of the data graph
	Threads     int
	Status      Status
	Count       uint64 // exact unless Status is timeout (then a lower bound)
	Expected    uint64 // published count, when HasExpected
	HasExpected bool
	Runs        int           // runs that completed (or the one that timed out)
	Load        time.Duration // loading (or generating) the data graph, shared by its cases
	Plan        time.Duration // plan.Build alone: filtering and ordering (also inside Match)
	Match       time.Duration // Engine.Count: planning and search; the timeout on a timeout
	MatchMin    time.Duration
	MatchMax    time.Duration
	PeakRSS     uint64  // bytes: the process's peak resident set while the case ran (data graph included)
	Speedup     float64 // Match at the smallest thread count / Match here; 0 when not both ok
	Err         string
}

// MatchesPerSecond is Count / Match (0 when nothing was measured).
func (r Result) MatchesPerSecond() float64 {
	if r.Match <= 0 {
		return 0
	}
	return float64(r.Count) / r.Match.Seconds()
}

// timing summarises repeated runs.
type timing struct {
	median, min, max time.Duration
	runs             int
}

// timeRuns runs fn up to k times and summarises the durations. It stops at the first error, which
// it returns with the summary of the runs so far, the failed one included.
func timeRuns(k int, fn func() error) (timing, error) {
	var ds []time.Duration
	var err error
	for range max(1, k) {
		start := time.Now()
		err = fn()
		ds = append(ds, time.Since(start))
		if err != nil {
			break
		}
	}
	slices.Sort(ds)
	return timing{median: ds[len(ds)/2], min: ds[0], max: ds[len(ds)-1], runs: len(ds)}, err
}

// Run measures every case at every thread count, loading each data set once (cases of one data
// set are run together, in the order of their first case). It returns the results so far and the
// context's error when ctx ends.
func Run(ctx context.Context, cfg Config) ([]Result, error) {
	if cfg.Engine == nil {
		return nil, errors.New("bench: no engine")
	}
	threads := slices.Clone(cfg.Threads)
	if len(threads) == 0 {
		threads = []int{1, runtime.GOMAXPROCS(0)}
	}
	slices.Sort(threads)
	threads = slices.Compact(threads)
	if threads[0] < 1 {
		return nil, fmt.Errorf("bench: thread count %d is below 1", threads[0])
	}
	if cfg.Repeats <= 0 {
		cfg.Repeats = 3
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 60 * time.Second
	}
	logf := func(format string, args ...any) {
		if cfg.Log != nil {
			fmt.Fprintf(cfg.Log, format+"\n", args...)
		}
	}

	var results []Result
	for _, group := range byDataset(cfg.Cases) {
		ds := group[0].Data
		g, load, err := loadDataset(ds, cfg.Repeats)
		if err != nil {
			logf("%s: %v", ds.Name, err)
			for _, c := range group {
				for _, t := range threads {
					results = append(results, errorResult(c, t, err))
				}
			}
			continue
		}
		logf("%s: %d vertices, %d edges, loaded in %v", ds.Name, g.NumVertices(), g.NumEdges(), load.median.Round(time.Millisecond))
		for _, c := range group {
			rs := runCase(ctx, cfg, c, g, threads, logf)
			for i := range rs {
				rs[i].Load = load.median
			}
			results = append(results, rs...)
			if ctx.Err() != nil {
				return results, ctx.Err()
			}
		}
		g = nil
		debug.FreeOSMemory()
	}
	return results, nil
}

// byDataset groups cases by data set, in order of first appearance.
func byDataset(cases []Case) [][]Case {
	var groups [][]Case
	index := map[*Dataset]int{}
	for _, c := range cases {
		i, ok := index[c.Data]
		if !ok {
			i = len(groups)
			index[c.Data] = i
			groups = append(groups, nil)
		}
		groups[i] = append(groups[i], c)
	}
	return groups
}

// loadDataset loads a file k times (the median is reported) or generates a graph once.
func loadDataset(ds *Dataset, k int) (*graph.Graph, timing, error) {
	var g *graph.Graph
	if ds.Path == "" {
		t, err := timeRuns(1, func() (err error) {
			g, err = ds.Generate()
			return err
		})
		return g, t, err
	}
	t, err := timeRuns(k, func() (err error) {
		g = nil
		g, err = formats.Load(ds.Path, formats.Options{})
		return err
	})
	return g, t, err
}

func errorResult(c Case, threads int, err error) Result {
	r := newResult(c, nil, threads)
	r.Status, r.Err = StatusError, err.Error()
	return r
}

func newResult(c Case, g *graph.Graph, threads int) Result {
	r := Result{Case: c.Name, Group: c.Group, Data: c.Data.Name, Query: c.Query,
		Semantics: c.Semantics.String(), Threads: threads, Expected: c.Expected, HasExpected: c.HasExpected}
	if g != nil {
		r.Vertices, r.Edges = g.NumVertices(), g.NumEdges()
	}
	return r
}

// runCase measures one case at every thread count and fills in the speedups.
func runCase(ctx context.Context, cfg Config, c Case, g *graph.Graph, threads []int, logf func(string, ...any)) []Result {
	p, err := c.Pattern(g)
	if err != nil {
		rs := make([]Result, len(threads))
		for i, t := range threads {
			rs[i] = errorResult(c, t, fmt.Errorf("query: %w", err))
		}
		logf("%s: query: %v", c.Name, err)
		return rs
	}
	planTime, _ := timeRuns(cfg.Repeats, func() error {
		plan.Build(g, p, plan.Options{Induced: c.Semantics.Induced, Unique: c.Semantics.Unique})
		return nil
	})
	rs := make([]Result, 0, len(threads))
	for _, t := range threads {
		if ctx.Err() != nil {
			break
		}
		r := measureCount(ctx, cfg, c, g, p, t)
		r.Plan = planTime.median
		logf("%-28s threads=%-3d %-7s count=%-14d match=%v", c.Name, t, r.Status, r.Count, r.Match.Round(time.Microsecond))
		rs = append(rs, r)
	}
	// Counts must agree across thread counts; speedups are relative to the smallest count.
	for i := range rs {
		if rs[i].Status == StatusOK && rs[0].Status == StatusOK && rs[i].Count != rs[0].Count {
			rs[i].Status = StatusWrong
			rs[i].Err = fmt.Sprintf("count %d differs from %d at %d threads", rs[i].Count, rs[0].Count, rs[0].Threads)
		}
		if rs[i].Status == StatusOK && rs[0].Status == StatusOK && rs[i].Match > 0 {
			rs[i].Speedup = rs[0].Match.Seconds() / rs[i].Match.Seconds()
		}
	}
	return rs
}

// measureCount times cfg.Repeats counts at one thread count, each under cfg.Timeout.
func measureCount(ctx context.Context, cfg Config, c Case, g *graph.Graph, p *pattern.Pattern, threads int) Result {
	r := newResult(c, g, threads)
	prob := &engine.Problem{Data: g, Pattern: p, Semantics: c.Semantics, Threads: threads}
	debug.FreeOSMemory()
	resetPeakRSS()
	var counts []uint64
	t, err := timeRuns(cfg.Repeats, func() error {
		runCtx, cancel := context.WithTimeout(ctx, cfg.Timeout)
		defer cancel()
		res, err := cfg.Engine.Count(runCtx, prob)
		if err == nil && res.Partial {
			err = context.DeadlineExceeded
		}
		if err != nil {
			r.Count = res.Count
			return err
		}
		counts = append(counts, res.Count)
		return nil
	})
	r.PeakRSS = peakRSS()
	r.Runs, r.Match, r.MatchMin, r.MatchMax = t.runs, t.median, t.min, t.max
	switch {
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled):
		// A cut-short run is recorded as such: its time is the limit, its count a lower bound.
		r.Status, r.Match, r.Err = StatusTimeout, t.max, err.Error()
		if ctx.Err() != nil {
			r.Err = "interrupted"
		}
	case err != nil:
		r.Status, r.Err = StatusError, err.Error()
	default:
		r.Status, r.Count = StatusOK, counts[0]
		if slices.ContainsFunc(counts, func(n uint64) bool { return n != counts[0] }) {
			r.Status, r.Err = StatusWrong, fmt.Sprintf("counts differ between runs: %v", counts)
		} else if c.HasExpected && r.Count != c.Expected {
			r.Status, r.Err = StatusWrong, fmt.Sprintf("count %d, published %d", r.Count, c.Expected)
		}
	}
	return r
}
