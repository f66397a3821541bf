package sgsi

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/internal/ctxtest"
	"github.com/submatch/submatch/internal/cudahost"
	"github.com/submatch/submatch/internal/oracle"
	"github.com/submatch/submatch/internal/testenv"
	"github.com/submatch/submatch/pattern"
)

// TestPollEveryInStep: HostBackend.Last looks at its stop flag as often as sgsi_last does.
func TestPollEveryInStep(t *testing.T) {
	if want := fmt.Sprintf("#define POLL_EVERY %du", pollEvery); !strings.Contains(kernelSource, want) {
		t.Errorf("kernels/sgsi.cu does not %q (backend.go's pollEvery)", want)
	}
}

// stopCases are the direct counts the stop tests cut: triangles (rows generated from edges) and
// 4-cliques and 4-cycles (rows from a table) on an R-MAT graph, in core in blocks of a few
// hundred words (several blocks, several Last calls).
func stopCases(t *testing.T) (*graph.Graph, []*pattern.Pattern) {
	g, err := gen.RMAT(gen.RMATOptions{Scale: 8, EdgeFactor: 8, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	var ps []*pattern.Pattern
	for _, s := range []string{"(a)-(b)-(c)-(a)", "(a)-(b)-(c)-(d)-(a), (a)-(c), (b)-(d)", "(a)-(b)-(c)-(d)-(a)"} {
		p, err := pattern.Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		ps = append(ps, p)
	}
	return g, ps
}

// stopRunner is a count of p on g on be, in core in direct blocks of about 300 words.
func stopRunner(ctx context.Context, g *graph.Graph, p *pattern.Pattern, be Backend) *runner {
	return &runner{ctx: ctx, be: be, st: &Stats{}, s: newStore(g, 0), q: compileQuery(p), count: true,
		blockRows: 2, blockSize: 1, coreBlock: 64, blockPace: pacer{items: 300}}
}

// cancelAt is HostBackend whose Last, at its at-th call, cancels the count's context and waits
// for the stop flag to rise before it counts (so that the call sees it at its first look);
// calls counts the calls, after those after the cancel, added what the cancelled call added.
type cancelAt struct {
	*HostBackend
	cancel           func()
	at, calls, after int
	added            uint64
}

func (c *cancelAt) Last(a lastArgs) error {
	c.calls++
	switch {
	case c.calls == c.at:
		c.cancel()
		for t0 := time.Now(); c.stop.Load() == 0; time.Sleep(time.Millisecond) {
			if time.Since(t0) > time.Minute {
				return errors.New("the stop flag did not rise within a minute of the cancel")
			}
		}
		before := c.counter(a)
		err := c.HostBackend.Last(a)
		c.added = c.counter(a) - before
		return err
	case c.calls > c.at:
		c.after++
	}
	return c.HostBackend.Last(a)
}

// counter is the counter a adds to.
func (h *HostBackend) counter(a lastArgs) uint64 {
	return uint64(h.mem[a.Total]) | uint64(h.mem[a.Total+1])<<32
}

// TestDirectCountCancelled: a count whose context ends during its direct count (at its first,
// second or third kernel) stops there: the kernel then running leaves its rows at once (the host
// emulation looks at the stop flag first thing), no kernel runs after it, and the count returns
// the context's error (partial) with fewer matches than the whole count, which the same runner
// setup, not cancelled, counts exactly.
func TestDirectCountCancelled(t *testing.T) {
	g, ps := stopCases(t)
	cut := 0
	for _, p := range ps {
		want := oracle.Count(g, p, engine.Semantics{})
		whole := stopRunner(context.Background(), g, p, NewHostBackend(4*GraphBytes(g)))
		if err := whole.run(false, false); err != nil || whole.total != want {
			t.Fatalf("%s: not cancelled %d (%v), oracle %d", p, whole.total, err, want)
		}
		if whole.st.Blocks < 3 {
			t.Fatalf("%s: %d blocks: the test cuts nothing mid-way", p, whole.st.Blocks)
		}
		for at := 1; at <= 3; at++ {
			ctx, cancel := context.WithCancel(context.Background())
			be := &cancelAt{HostBackend: NewHostBackend(4 * GraphBytes(g)), cancel: cancel, at: at}
			r := stopRunner(ctx, g, p, be)
			err := r.run(false, false)
			cancel()
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("%s, cancelled at kernel %d of %d: %v (count %d), want context.Canceled", p, at, be.calls, err, r.total)
			}
			if be.calls < at || be.after != 0 {
				t.Errorf("%s, cancelled at kernel %d: %d calls, %d after the cancel", p, at, be.calls, be.after)
			}
			if !be.left || be.added != 0 || r.total >= want {
				t.Errorf("%s, cancelled at kernel %d: the kernel left early %v having added %d, count %d of %d", p, at, be.left, be.added, r.total, want)
			}
			cut++
		}
	}
	t.Logf("%d counts cut in their direct count", cut)
}

// TestStopFlagRaisedLate: a count whose context ends after its last kernel (the flag raised, no
// kernel to see it) is whole when the count itself saw nothing: kernelCut reports only a kernel
// that left early.
func TestStopFlagRaisedLate(t *testing.T) {
	g, ps := stopCases(t)
	be := NewHostBackend(4 * GraphBytes(g))
	ctx, cancel := context.WithCancel(context.Background())
	r := stopRunner(ctx, g, ps[0], be)
	release := be.stopOn(ctx)
	cancel()
	for be.stop.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	release()
	if err := r.kernelCut(); err != nil {
		t.Errorf("no kernel ran: kernelCut %v", err)
	}
	be.left = true
	if err := r.kernelCut(); !errors.Is(err, context.Canceled) {
		t.Errorf("a kernel left early: kernelCut %v, want context.Canceled", err)
	}
	r.ctx = context.Background()
	if err := r.kernelCut(); !errors.Is(err, errCutLive) {
		t.Errorf("a kernel left early, the context running: kernelCut %v, want errCutLive", err)
	}
}

// stopHost is cudaBackend whose sgsi_last, at its at-th call, runs with the stop flag raised
// half-way through its grid (before the block of its middle unit): the total it adds must be
// what HostBackend.Last adds for the units before that block alone (one block a unit, each
// looking at the flag first thing), and the count is then partial (the flag rose with the
// context's end).
type stopHost struct {
	*cudaBackend
	cancel    func()
	at, calls int
	checked   int
}

func (c *stopHost) Last(a lastArgs) error {
	c.calls++
	if c.calls != c.at {
		return c.cudaBackend.Last(a)
	}
	units := a.NRows
	if a.NGen > 0 {
		units = a.NGen
	}
	half := units / 2
	// What the units before half add, by the Go twin, on a copy of the region.
	saved := append([]uint32(nil), c.mem...)
	b := a
	if a.NGen > 0 {
		b.NGen = half
	} else {
		b.NRows = half
	}
	before := c.counter(a)
	if err := c.HostBackend.Last(b); err != nil {
		return err
	}
	want := c.counter(a) - before
	copy(c.mem, saved)
	c.cancel()
	if !c.lastStopAt(a, half) {
		return fmt.Errorf("the stop flag was not raised within the grid of %d units", units)
	}
	if got := c.counter(a) - before; got != want {
		c.t.Errorf("sgsi_last stopped at block %d of %d units (generated %v): added %d, the units before it %d", half, units, a.NGen > 0, got, want)
	}
	c.checked++
	c.left = true // as the device's polling words say: a thread saw the flag raised
	return nil
}

// TestLastStoppedOnHost runs sgsi_last, built for the host, with the stop flag raised mid-way
// through a launch: the launch adds exactly the count of the units before the flag rose, and the
// runner reports the count partial (context.Canceled), below the whole count.
func TestLastStoppedOnHost(t *testing.T) {
	bin := cudahost.Build(t, "sgsi", kernelSource, cudahostMain)
	g, ps := stopCases(t)
	for _, p := range ps {
		want := oracle.Count(g, p, engine.Semantics{})
		for _, at := range []int{1, 2} {
			ctx, cancel := context.WithCancel(context.Background())
			be := &stopHost{cudaBackend: &cudaBackend{HostBackend: NewHostBackend(4 * GraphBytes(g)), t: t, bin: bin}, cancel: cancel, at: at}
			r := stopRunner(ctx, g, p, be)
			err := r.run(false, false)
			cancel()
			if be.checked != 1 {
				t.Fatalf("%s: %d Last calls, the %d-th not stopped", p, be.calls, at)
			}
			if !errors.Is(err, context.Canceled) || r.total >= want {
				t.Errorf("%s, stopped in kernel %d: %d (%v), want context.Canceled below %d", p, at, r.total, err, want)
			}
		}
	}
}

// TestStopOnReleaseWaits: the release stopOn returns waits for a raise of the flag already under
// way, so that a backend counting again starts with its flag down: a cancelled count's late raise
// must not stop the next count's kernels (errCutLive, with that count's context running).
func TestStopOnReleaseWaits(t *testing.T) {
	be := NewHostBackend(64)
	for i := range 2000 {
		ctx, cancel := context.WithCancel(context.Background())
		release := be.stopOn(ctx)
		cancel()
		release()
		release = be.stopOn(context.Background())
		for range 100 {
			runtime.Gosched()
		}
		if be.stop.Load() != 0 {
			t.Fatalf("round %d: the flag raised for a count whose context runs (a late raise of the count before)", i)
		}
		release()
	}
}

// stopBackend is a backend with a stop flag (HostBackend, cudaBackend).
type stopBackend interface {
	Backend
	kernelStopper
}

// joinCut is a backend whose at-th join kernel call (First, Intersect, Count or Link) is run by
// cutCall, which raises the stop flag (cancel: the count's context ends) before or during it; every
// join kernel queued after it must leave the region as it found it (each of its threads leaves
// at its first look at the flag).
type joinCut struct {
	stopBackend
	h                *HostBackend // the region
	t                *testing.T
	cancel           func()
	at, calls, after int
	cutCall          func(c *joinCut, a joinArgs, f kernelFunc) error
}

func (c *joinCut) First(a joinArgs) error     { return c.call(a, Backend.First) }
func (c *joinCut) Intersect(a joinArgs) error { return c.call(a, Backend.Intersect) }
func (c *joinCut) Count(a joinArgs) error     { return c.call(a, Backend.Count) }
func (c *joinCut) Link(a joinArgs) error      { return c.call(a, Backend.Link) }

func (c *joinCut) call(a joinArgs, f kernelFunc) error {
	c.calls++
	switch {
	case c.calls == c.at:
		return c.cutCall(c, a, f)
	case c.at > 0 && c.calls > c.at:
		c.after++
		before := slices.Clone(c.h.mem)
		err := f(c.stopBackend, a)
		if !slices.Equal(before, c.h.mem) {
			c.t.Errorf("join kernel call %d, after the stop at call %d, changed the region", c.calls, c.at)
		}
		return err
	}
	return f(c.stopBackend, a)
}

// raise cancels the count and waits for the stop flag to rise.
func (c *joinCut) raise() error {
	c.cancel()
	for t0 := time.Now(); c.h.stop.Load() == 0; time.Sleep(time.Millisecond) {
		if time.Since(t0) > time.Minute {
			return errors.New("the stop flag did not rise within a minute of the cancel")
		}
	}
	return nil
}

// joinStopCases runs, for each of stopCases' patterns, a count and a listing with every step
// joined (no direct count) on the backends newBackend makes: whole, against the oracle, then cut
// by cut at three join kernel calls spread over the whole run's: the count or listing then returns
// context.Canceled, a count at most the whole count, a listing only valid matches, each once.
func joinStopCases(t *testing.T, newBackend func(words uint64) stopBackend, cut func(c *joinCut, a joinArgs, f kernelFunc) error) {
	g, ps := stopCases(t)
	if _, ok := newBackend(1).(*cudaBackend); ok && !testenv.Long() {
		ps = ps[:2] // a process a kernel: the 4-cycles' 646,072 matches are the deep sweep's
	}
	runs := 0
	for _, p := range ps {
		want := oracle.Count(g, p, engine.Semantics{})
		for _, count := range []bool{true, false} {
			run := func(ctx context.Context, be Backend) (uint64, error) {
				var seen map[[4]uint32]bool
				r := stopRunner(ctx, g, p, be)
				r.buffered, r.count, r.layers = true, count, &forcedLayers // (rows in all four layers)
				if !count {
					seen = map[[4]uint32]bool{}
					r.emit = func(m []uint32) bool {
						var k [4]uint32
						copy(k[:], m)
						if seen[k] || !isMatch(g, p, m) {
							t.Fatalf("%s: listed %v, a match listed twice or not a match", p, m)
						}
						seen[k] = true
						return true
					}
				}
				err := r.run(false, false)
				if !count {
					return uint64(len(seen)), err
				}
				return r.total, err
			}
			whole := &joinCut{stopBackend: newBackend(4 * GraphBytes(g)), t: t}
			whole.h = hostOf(whole.stopBackend)
			if n, err := run(context.Background(), whole); err != nil || n != want {
				t.Fatalf("%s (count %v): not cut %d (%v), oracle %d", p, count, n, err, want)
			}
			// (The chunks are paced by time: a run may make fewer kernel calls than whole.)
			for _, at := range []int{1, whole.calls / 3, 2 * whole.calls / 3} {
				ctx, cancel := context.WithCancel(context.Background())
				c := &joinCut{stopBackend: newBackend(4 * GraphBytes(g)), t: t, cancel: cancel, at: at, cutCall: cut}
				c.h = hostOf(c.stopBackend)
				n, err := run(ctx, c)
				cancel()
				switch {
				case c.calls < at && (err != nil || n != want):
					t.Errorf("%s (count %v), not cut (%d kernel calls): %d (%v), oracle %d", p, count, c.calls, n, err, want)
				case c.calls >= at && (!errors.Is(err, context.Canceled) || n > want):
					t.Errorf("%s (count %v), cut at join kernel %d of %d: %d (%v), want context.Canceled and at most %d", p, count, at, c.calls, n, err, want)
				case c.calls >= at:
					runs++
				}
			}
		}
	}
	t.Logf("%d runs cut in their joins", runs)
	if runs < 2*len(ps) {
		t.Errorf("%d runs cut in their joins, want one a pattern and mode at least", runs)
	}
}

// isMatch reports whether m maps p's vertices to distinct vertices of g and its edges to edges
// (an embedding: oracle.Valid, without its per-call adjacency).
func isMatch(g *graph.Graph, p *pattern.Pattern, m []uint32) bool {
	for i, v := range m {
		if slices.Contains(m[:i], v) {
			return false
		}
	}
	for _, e := range p.Edges() {
		if _, ok := g.HasEdge(m[e.U], m[e.V]); !ok {
			return false
		}
	}
	return true
}

// hostOf is the host region of a test backend.
func hostOf(be stopBackend) *HostBackend {
	if c, ok := be.(*cudaBackend); ok {
		return c.HostBackend
	}
	return be.(*HostBackend)
}

// TestJoinCancelled: counts and listings whose context ends at a join kernel (HostBackend: the
// kernel then sees the flag at its first look) stop there: that kernel and every one after it
// leave the region unchanged, and the host reads none of their output (joinStopCases).
func TestJoinCancelled(t *testing.T) {
	joinStopCases(t, func(words uint64) stopBackend { return NewHostBackend(words) }, func(c *joinCut, a joinArgs, f kernelFunc) error {
		if err := c.raise(); err != nil {
			return err
		}
		before := slices.Clone(c.h.mem)
		err := f(c.stopBackend, a)
		if !slices.Equal(before, c.h.mem) || !c.h.left {
			t.Errorf("join kernel call %d, its flag raised before it: the region changed or no stop recorded (%v)", c.calls, c.h.left)
		}
		return err
	})
}

// TestJoinStoppedOnHost runs the join kernels, built for the host, with the stop flag raised half
// way through the grid of one launch: a launch of a block a row leaves exactly what the Go twin
// leaves for the rows before that block alone, the kernels after it change nothing, and the count
// or listing is partial (joinStopCases).
func TestJoinStoppedOnHost(t *testing.T) {
	bin := cudahost.Build(t, "sgsi", kernelSource, cudahostMain)
	checked, gridCuts := 0, 0
	joinStopCases(t, func(words uint64) stopBackend {
		return &cudaBackend{HostBackend: NewHostBackend(words), t: t, bin: bin}
	},
		func(c *joinCut, a joinArgs, f kernelFunc) error {
			blocks, _ := layout(a)
			if a.Grid > 0 {
				gridCuts++ // the task pool's or the whole grid's launch
			}
			half := blocks / 2
			var want []uint32
			if a.Grid == 0 { // a block a row: the rows before half are the launch's first half
				saved := slices.Clone(c.h.mem)
				b := a
				b.NIdx = uint32(half)
				if err := f(c.h, b); err != nil {
					return err
				}
				want = slices.Clone(c.h.mem)
				copy(c.h.mem, saved)
			}
			c.stopBackend.(*cudaBackend).cutAt = &half
			if err := f(c.stopBackend, a); err != nil {
				return err
			}
			if want != nil {
				checked++
				if !slices.Equal(want, c.h.mem) {
					t.Errorf("join kernel call %d stopped at block %d of %d: the region is not the Go twin's for the rows before it", c.calls, half, blocks)
				}
			}
			return c.raise()
		})
	t.Logf("%d launches of a block a row and %d of the task pool or the whole grid stopped half way", checked, gridCuts)
	if checked == 0 {
		t.Error("no launch of a block a row was stopped half way")
	}
}

// TestCountStopsAtEachLook runs stopCases' counts out of core (their tables sorted and split by
// shortest list on the host) with a context that ends at each of the count's looks at it in turn:
// context.Canceled, until one that lasts, with which the count is exact (the oracle's).
func TestCountStopsAtEachLook(t *testing.T) {
	g, ps := stopCases(t)
	for _, p := range ps {
		want := oracle.Count(g, p, engine.Semantics{})
		for _, buffered := range []bool{false, true} {
			var st Stats
			looks := ctxtest.UntilLasting(t, 1<<24, func(ctx context.Context) error {
				r := stopRunner(ctx, g, p, NewHostBackend(GraphBytes(g)/8))
				r.buffered, r.maxCache = buffered, 200
				err := r.run(false, false)
				if err == nil && r.total != want {
					t.Errorf("%s (buffered %v): a context that lasted, count %d, oracle %d", p, buffered, r.total, want)
				}
				st = *r.st
				return err
			})
			if st.InCore || looks < 3 {
				t.Errorf("%s (buffered %v): in core %v, %d looks at the context", p, buffered, st.InCore, looks)
			}
		}
	}
}
