// Package engine defines the seam between the command line (or the Go API) and the matching
// engines: a Problem (data graph, pattern, counting convention), the Engine interface every CPU
// and GPU engine implements, and a registry that --engine names resolve through.
package engine

import (
	"context"
	"errors"
	"iter"
	"log/slog"
	"runtime"
	"slices"
	"time"

	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/internal/registry"
	"github.com/submatch/submatch/pattern"
)

// Semantics is the counting convention.
type Semantics struct {
	// Induced: non-adjacent pattern vertices must map to non-adjacent data vertices.
	Induced bool
	// Unique: count or list each distinct subgraph once (symmetry-breaking restrictions).
	Unique bool
}

// String names the convention as printed in results: "embeddings", "induced", "unique" or
// "unique-induced".
func (s Semantics) String() string {
	switch {
	case s.Induced && s.Unique:
		return "unique-induced"
	case s.Induced:
		return "induced"
	case s.Unique:
		return "unique"
	}
	return "embeddings"
}

// Problem is one matching job.
type Problem struct {
	Data      *graph.Graph
	Pattern   *pattern.Pattern
	Semantics Semantics
	// Threads is the number of worker goroutines (<= 0: all cores; see ThreadCount).
	Threads int
	// Progress, when set, is called from time to time with the fraction of root work done,
	// possibly from several goroutines at once (the CPU engine's workers, several GPUs).
	Progress func(done float64)
	// MemoryLimit bounds, in bytes, what the engine allocates beyond the data graph (candidate
	// sets, indexes, per-worker buffers); 0 means no limit. An engine shrinks optional
	// structures to fit and fails with ErrMemory when the required ones do not.
	MemoryLimit uint64
	// GPUMemoryLimit lowers each GPU's memory budget to this many bytes (0: free memory minus a
	// margin); GPU engines work in chunks within it or fail with ErrMemory.
	GPUMemoryLimit uint64
	// GPUs lists the devices (indexes in gpu.Open's order) a GPU engine may use; nil: all of them
	// for an engine that spreads work over several, the first for one that uses a single GPU.
	GPUs []int
	// Log receives the engine's diagnostics (debug: where the time went); nil: slog.Default().
	Log *slog.Logger
}

// ThreadCount is the number of worker goroutines p asks for: Threads, or every core
// (GOMAXPROCS) when Threads is 0 or less.
func (p *Problem) ThreadCount() int {
	if p.Threads > 0 {
		return p.Threads
	}
	return max(1, runtime.GOMAXPROCS(0))
}

// Logger returns p.Log, or slog.Default() when it is nil.
func (p *Problem) Logger() *slog.Logger {
	if p == nil || p.Log == nil {
		return slog.Default()
	}
	return p.Log
}

// Result is the outcome of a count.
type Result struct {
	Count uint64
	// Partial is true when the run was cancelled or timed out: Count is a lower bound.
	Partial bool
	// PlanTime is the time spent filtering candidates and planning, before the search.
	PlanTime time.Duration
	// DeviceTime is the time the GPU kernels ran (CUDA events, summed over launches); zero for
	// the CPU engines.
	DeviceTime time.Duration
}

// ErrOverflow is returned when a count does not fit in a uint64.
var ErrOverflow = errors.New("count overflows uint64")

// ErrUnknownEngine is returned (wrapped, with the names available) by Lookup for a name no
// engine is registered under.
var ErrUnknownEngine = errors.New("unknown engine")

// ErrMemory is returned (wrapped, with the sizes) when a problem cannot be solved within its
// MemoryLimit.
var ErrMemory = errors.New("not enough memory")

// ErrUnsupported is what an engine's refusal of a problem outside what it takes is (errors.Is):
// a pattern of a shape it does not count (the motif census's). The engine is the wrong one for
// the query, which a command reports as bad usage. Unsupported makes such errors.
var ErrUnsupported = errors.New("the engine does not take this problem")

// Unsupported returns an error with message msg that is ErrUnsupported (errors.Is), for an
// engine's sentinel of its own.
func Unsupported(msg string) error { return unsupportedError(msg) }

type unsupportedError string

func (e unsupportedError) Error() string        { return string(e) }
func (e unsupportedError) Is(target error) bool { return target == ErrUnsupported }

// Engine is implemented by every matcher.
type Engine interface {
	// Name is the --engine name.
	Name() string
	// Count counts the matches. On cancellation it returns the partial count with Partial set
	// and the context's error.
	Count(ctx context.Context, p *Problem) (Result, error)
	// Matches streams matches: each is the data vertex (dense id) of every pattern vertex, in
	// pattern vertex order. The slice is reused between iterations; copy it to keep it. A non-nil
	// error ends the sequence.
	Matches(ctx context.Context, p *Problem) iter.Seq2[[]uint32, error]
}

// engines is the registry --engine names resolve through.
var engines = registry.Registry[Engine]{What: "engine"}

// Register makes an engine available by name; engines call it from init.
func Register(e Engine) { engines.Register(e) }

// Lookup returns the engine registered under name, or an error wrapping ErrUnknownEngine.
func Lookup(name string) (Engine, error) { return engines.Lookup(name, ErrUnknownEngine) }

// Names lists the registered engines, sorted.
func Names() []string { return engines.Names() }

// CollectMatches is a convenience for tests and small outputs: it gathers up to limit matches
// (0: all) as fresh slices.
func CollectMatches(ctx context.Context, e Engine, p *Problem, limit int) ([][]uint32, error) {
	var out [][]uint32
	for m, err := range e.Matches(ctx, p) {
		if err != nil {
			return out, err
		}
		out = append(out, slices.Clone(m))
		if limit > 0 && len(out) >= limit {
			break
		}
	}
	return out, nil
}
