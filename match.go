package submatch

import (
	"context"
	"errors"
	"iter"
	"log/slog"
	"time"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/engine/auto"
)

// Options say how to count or list. The zero value (or nil) counts embeddings with the auto
// engine on all cores, without a memory bound.
type Options struct {
	// Induced: non-adjacent pattern vertices must map to non-adjacent data vertices.
	Induced bool
	// Unique: each distinct subgraph once (embeddings / |Aut(pattern)|).
	Unique bool
	// Engine names the engine: "" or "auto" (choose per query), "cpu", or a GPU engine
	// ("stmatch", "geneva"); Engines lists them.
	Engine string
	// Threads is the number of host worker threads (0: all cores).
	Threads int
	// MemoryLimit bounds, in bytes, what the engine allocates beyond the data graph (0: no
	// bound); an engine shrinks optional structures to fit, or fails with ErrMemory.
	MemoryLimit uint64
	// GPUMemoryLimit bounds each GPU's memory (0: free memory minus a margin).
	GPUMemoryLimit uint64
	// GPUs lists the device numbers a GPU engine may use (nil: all).
	GPUs []int
	// Progress, when set, is called from time to time with the fraction of the work done,
	// possibly from several goroutines at once.
	Progress func(done float64)
	// Logger receives the engines' diagnostics (nil: slog.Default()).
	Logger *slog.Logger
}

// Result is the outcome of a count.
type Result struct {
	// Count is the number of matches under the convention asked for; a lower bound when Partial.
	Count uint64
	// Partial is set when the context ended before the count finished.
	Partial bool
	// Engine names the engine that counted (the one auto chose, for "auto").
	Engine string
	// Elapsed is the whole call; PlanTime the part spent filtering candidates and planning.
	Elapsed, PlanTime time.Duration
}

// Engines lists the engine names Options.Engine accepts, "auto" among them.
func Engines() []string { return engine.Names() }

func (o *Options) problem(g *Graph, p *Pattern) (*engine.Problem, engine.Engine, error) {
	if o == nil {
		o = &Options{}
	}
	if g == nil || p == nil {
		return nil, nil, errors.New("submatch: nil graph or pattern")
	}
	name := o.Engine
	if name == "" {
		name = "auto"
	}
	e, err := engine.Lookup(name)
	if err != nil {
		return nil, nil, err
	}
	return &engine.Problem{
		Data: g.g, Pattern: p.p, Semantics: engine.Semantics{Induced: o.Induced, Unique: o.Unique},
		Threads: o.Threads, MemoryLimit: o.MemoryLimit, GPUMemoryLimit: o.GPUMemoryLimit, GPUs: o.GPUs,
		Progress: o.Progress, Log: o.Logger,
	}, e, nil
}

// Count counts the matches of p in g. When ctx ends first it returns the count so far with
// Partial set, and ctx's error.
func Count(ctx context.Context, g *Graph, p *Pattern, opts *Options) (Result, error) {
	start := time.Now()
	prob, e, err := opts.problem(g, p)
	if err != nil {
		return Result{}, err
	}
	var res engine.Result
	ran := e.Name()
	if a, ok := e.(auto.Engine); ok {
		var d auto.Decision
		res, d, err = a.CountDecision(ctx, prob)
		ran = d.Engine
	} else {
		res, err = e.Count(ctx, prob)
	}
	return Result{Count: res.Count, Partial: res.Partial, Engine: ran, Elapsed: time.Since(start), PlanTime: res.PlanTime}, err
}

// Matches lists the matches of p in g: each is the data graph's vertex ids (as the input named
// them; Graph.VertexName gives string names) of the pattern's vertices, in pattern vertex order
// (Pattern.VertexNames). The slice is reused from one match to the next: copy it to keep it
// (slices.Clone). Matches come in no particular order. A non-nil error ends the sequence; when
// ctx ends, the last pair carries ctx's error. Breaking out of the loop stops the search.
func Matches(ctx context.Context, g *Graph, p *Pattern, opts *Options) iter.Seq2[[]int64, error] {
	return func(yield func([]int64, error) bool) {
		prob, e, err := opts.problem(g, p)
		if err != nil {
			yield(nil, err)
			return
		}
		ids := make([]int64, p.p.NumVertices())
		for m, err := range e.Matches(ctx, prob) {
			if err != nil {
				yield(nil, err)
				return
			}
			for i, v := range m {
				ids[i] = g.g.OriginalID(v)
			}
			if !yield(ids, nil) {
				return
			}
		}
	}
}
