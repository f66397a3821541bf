// Package csm owns continuous subgraph matching: a set of standing patterns over a changing data
// graph (graph/dynamic), the exact signed delta of every update or batch of updates (the matches
// it creates and destroys, each counted once), and the engines that compute them behind the
// Engine interface (the CPU engine here, registered as "cpu"; GPU engines register the same way).
//
// Semantics. A batch is applied as a whole: its net change (an edge inserted and deleted in the
// same batch changes nothing) takes the graph G_old to G_new; per pattern, Created is the number
// of matches of G_new that are not matches of G_old and Destroyed the number of matches of G_old
// that are not matches of G_new, under the problem's convention (embeddings, --unique, --induced:
// inserting an edge destroys the induced matches where its endpoints were non-adjacent). So
// count(G_old) + Created - Destroyed = count(G_new) exactly, and a batch of one update gives the
// per-update delta.
//
// Invalid updates (an edge inserted that is present, a missing edge or vertex deleted, a vertex
// added again, a self-loop) are never applied silently: they fail the batch (Options.SkipInvalid
// false) or are skipped and counted.
package csm

import (
	"context"
	"errors"
	"fmt"
	"github.com/submatch/submatch/internal/registry"
	"iter"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/formats/updates"
	"github.com/submatch/submatch/graph/dynamic"
	"github.com/submatch/submatch/internal/seqs"
	"github.com/submatch/submatch/pattern"
)

// Options configures a standing-pattern set.
type Options struct {
	Semantics engine.Semantics
	// Threads is the number of workers a batch may use (<= 0: all cores).
	Threads int
	// SkipInvalid skips invalid updates (counted in Result.Skipped) instead of failing the batch.
	SkipInvalid bool
	// GPUMemory bounds a GPU engine's device memory in bytes (0: the device's budget).
	GPUMemory uint64
	// Mode selects a variant of an engine, for measurement (engine-specific; "": its default).
	Mode string
}

// Delta is one pattern's change over a batch.
type Delta struct {
	Created, Destroyed uint64
}

// Invalid is an update that was refused, and why.
type Invalid struct {
	Update updates.Update
	Err    error
}

// Result is the outcome of one batch.
type Result struct {
	// Deltas has one entry per pattern, in the order given.
	Deltas []Delta
	// Applied counts the updates applied, Skipped those refused under SkipInvalid (listed in
	// Invalid, which is reused by the next batch).
	Applied, Skipped int
	Invalid          []Invalid
}

// SignedMatch is one match a batch created (Sign +1) or destroyed (Sign -1): the original id of
// the data vertex of every pattern vertex, in pattern vertex order. Vertices is reused between
// matches; copy it to keep it.
type SignedMatch struct {
	Pattern  int
	Sign     int
	Vertices []int64
}

// Emit receives signed matches; returning false stops the batch's listing (the counts are then
// incomplete and Apply returns ErrStopped).
type Emit func(SignedMatch) bool

// ErrStopped is returned by Apply when the emit function asked to stop.
var ErrStopped = errors.New("csm: listing stopped by the consumer")

// InvalidError is the error of a batch refused for an invalid update (Options.SkipInvalid false):
// the graph is unchanged.
type InvalidError struct {
	Update updates.Update
	Err    error
}

func (e *InvalidError) Error() string {
	return fmt.Sprintf("line %d: invalid update `%s`: %v", e.Update.Line, e.Update, e.Err)
}

func (e *InvalidError) Unwrap() error { return e.Err }

// Matcher is an open standing-pattern set of an engine: it owns the graph it was opened on and
// applies batches to it. It is not safe for concurrent use.
type Matcher interface {
	// Apply applies a batch and reports each pattern's net delta into res (its slices reused).
	// With emit non-nil it also lists every created and destroyed match. On cancellation it
	// returns the context's error and leaves the graph consistent: unchanged when the
	// cancellation came before the batch's change was applied, else changed with the batch's
	// counts incomplete. A caller that needs exact running totals across a cancellation applies
	// batches with a context that is not cancelled mid-batch (the watch command does).
	Apply(ctx context.Context, batch []updates.Update, emit Emit, res *Result) error
	// Graph returns the current graph (read it only between batches).
	Graph() *dynamic.Graph
	// Patterns returns the standing patterns.
	Patterns() []*pattern.Pattern
}

// Engine is a continuous-matching engine (CPU here; the GPU engines implement it too).
type Engine interface {
	Name() string
	// Open prepares the patterns over g; g then belongs to the Matcher.
	Open(g *dynamic.Graph, patterns []*pattern.Pattern, opts Options) (Matcher, error)
}

// Lister is implemented by an engine that says whether its matchers list signed matches (Apply
// with an emit function); an engine without it lists. The command refuses a listing with an
// engine that cannot before it loads anything.
type Lister interface {
	Lists() bool
}

// PatternChecker is implemented by an engine that takes only some patterns (the GPU engines: a
// bounded number of vertices, connected ones): CheckPatterns says, without a graph or a device,
// whether Open would accept these patterns under sem, so that a caller can choose another
// engine before it hands the graph over.
type PatternChecker interface {
	CheckPatterns(patterns []*pattern.Pattern, sem engine.Semantics) error
}

// RunShape is what a caller choosing an engine knows of a run before it loads the graph.
type RunShape struct {
	Batch  int  // updates a batch (1: every update reported on its own)
	ByTime bool // batches by time interval instead of by count
	Window bool // a sliding window expires edges
}

// AutoCandidate is implemented by the engines that a caller choosing for the user (watch
// --engine auto) may take over the CPU engine, DefaultEngine, for a large graph on a usable GPU:
// Suits says whether the engine is made for runs of this shape (measured to pay there).
type AutoCandidate interface {
	Suits(r RunShape) bool
}

// DefaultEngine is the name of the CPU engine, the one that takes every run.
const DefaultEngine = "cpu"

// ErrUnknownEngine is returned (wrapped, with the names available) by Lookup for a name no
// engine is registered under.
var ErrUnknownEngine = errors.New("unknown continuous-matching engine")

var engines = registry.Registry[Engine]{What: "continuous-matching engine"}

// Register makes an engine available by name; engines call it from init.
func Register(e Engine) { engines.Register(e) }

// Engines lists the registered engines, sorted by name.
func Engines() []Engine { return engines.All() }

// Lookup returns the engine registered under name.
func Lookup(name string) (Engine, error) { return engines.Lookup(name, ErrUnknownEngine) }

// Names lists the registered engines, sorted.
func Names() []string { return engines.Names() }

// A ChangeApplier is a Matcher that also applies a net change computed elsewhere: by a Net over
// another graph with the same vertices (original ids), for the batch that graph and the
// matcher's graph went through together. The matcher's graph need only hold the edges whose
// endpoints' labels Relevant admits (the searches read no other edge: the matches, and so the
// deltas, are the same); the change given must then describe those edges only (a pair's old
// and new states present only where its endpoints' labels, old and new, are admitted). Applied,
// Skipped and Invalid in res are left to the Net that validated the batch.
type ChangeApplier interface {
	Matcher
	ApplyChange(ctx context.Context, vertices []VertexChange, pairs []PairChange, emit Emit, res *Result) error
	// Relevant reports which endpoint labels a pair must have to be the image of a pattern
	// pair; ok is false when any pair may be (a wildcard label, or labels of 64 and more).
	Relevant() (relevant func(l0, l1 uint32) bool, ok bool)
}

// Matches is Apply as a sequence: it applies the batch and yields every signed match; the
// batch's counts are in res once the sequence ends. A non-nil error ends the sequence.
func Matches(ctx context.Context, m Matcher, batch []updates.Update, res *Result) iter.Seq2[SignedMatch, error] {
	return seqs.Emitted(func(emit func(SignedMatch) bool) error {
		return m.Apply(ctx, batch, emit, res)
	})
}

// Initial counts every pattern on the matcher's current graph with a static engine (e.g. the
// engine registered as "cpu" in package engine).
func Initial(ctx context.Context, m Matcher, static engine.Engine, sem engine.Semantics, threads int) ([]uint64, error) {
	g, err := m.Graph().Snapshot()
	if err != nil {
		return nil, err
	}
	out := make([]uint64, len(m.Patterns()))
	for i, p := range m.Patterns() {
		r, err := static.Count(ctx, &engine.Problem{Data: g, Pattern: p, Semantics: sem, Threads: threads})
		if err != nil {
			return nil, fmt.Errorf("initial count of pattern %d: %w", i+1, err)
		}
		out[i] = r.Count
	}
	return out, nil
}
