package temporal

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"math/bits"
	"runtime"
	"slices"
	"sort"

	"github.com/submatch/submatch/internal/par"
)

// Options are the matching parameters.
type Options struct {
	// Delta is the window: the last event of a match is at most Delta after the first.
	Delta int64
	// Strict requires strictly increasing timestamps along a match (by default events with equal
	// timestamps follow each other in input order).
	Strict bool
	// Threads is the number of worker goroutines for Count (<= 0: all cores).
	Threads int
	// Device says where to run: CPU (default), GPU or Auto (the GPU when there is one, and the
	// CPU when the work does not fit in its memory).
	Device Device
	// GPUMemory bounds the device memory a GPU call takes, the graph's arrays included (0: the
	// device's budget, free memory less a margin). A listing works in slices within it.
	GPUMemory uint64
}

// ErrOverflow is returned when a count does not fit in a uint64.
var ErrOverflow = errors.New("count overflows uint64")

func (o Options) check(p *Pattern) error {
	if o.Delta < 0 {
		return fmt.Errorf("delta %d: expected a window >= 0", o.Delta)
	}
	if len(p.Edges) == 0 {
		return fmt.Errorf("temporal pattern has no edges")
	}
	return nil
}

// matcher is one worker's backtracking state.
type matcher struct {
	g        *Graph
	p        *Pattern
	strict   bool
	delta    int64
	vmap     []int64 // pattern vertex -> data vertex, -1 unmapped
	sel      []uint32
	deadline int64
	count    uint64
	over     bool
}

func newMatcher(g *Graph, p *Pattern, o Options) *matcher {
	m := &matcher{g: g, p: p, strict: o.Strict, delta: o.Delta, vmap: make([]int64, p.K()), sel: make([]uint32, len(p.Edges))}
	for i := range m.vmap {
		m.vmap[i] = -1
	}
	return m
}

func (m *matcher) used(v uint32) bool {
	for _, x := range m.vmap {
		if x == int64(v) {
			return true
		}
	}
	return false
}

// root matches pattern edge 0 to event i and extends; emit (nil when counting) gets every match.
func (m *matcher) root(i uint32, emit func([]uint32) bool) bool {
	e := m.g.Events[i]
	a, b := m.p.Edges[0][0], m.p.Edges[0][1]
	m.vmap[a], m.vmap[b] = int64(e.Src), int64(e.Dst)
	m.sel[0] = i
	m.deadline = e.Time + m.delta
	if m.deadline < e.Time { // overflow: no bound
		m.deadline = 1<<63 - 1
	}
	ok := m.extend(1, emit)
	m.vmap[a], m.vmap[b] = -1, -1
	return ok
}

// extend matches pattern edge j after event sel[j-1].
func (m *matcher) extend(j int, emit func([]uint32) bool) bool {
	if j == len(m.p.Edges) {
		if emit != nil {
			return emit(m.sel)
		}
		m.count++
		m.over = m.over || m.count == 0
		return true
	}
	g := m.g
	prev := m.sel[j-1]
	prevTime := g.Events[prev].Time
	s, d := m.p.Edges[j][0], m.p.Edges[j][1]
	ms, md := m.vmap[s], m.vmap[d]
	var list []uint32
	switch {
	case ms >= 0 && md >= 0:
		list = g.Pair(uint32(ms), uint32(md))
	case ms >= 0:
		list = g.Out(uint32(ms))
	case md >= 0:
		list = g.In(uint32(md))
	default:
		return m.extendFree(j, prev, prevTime, s, d, emit)
	}
	start, _ := slices.BinarySearch(list, prev+1)
	if m.strict {
		for start < len(list) && g.Events[list[start]].Time == prevTime {
			start++
		}
	}
	if ms >= 0 && md >= 0 && j == len(m.p.Edges)-1 && emit == nil {
		// The last edge between mapped vertices: every event of the pair in the window counts.
		rest := list[start:]
		n := sort.Search(len(rest), func(k int) bool { return g.Events[rest[k]].Time > m.deadline })
		var c uint64
		c, carry := bits.Add64(m.count, uint64(n), 0)
		m.count = c
		m.over = m.over || carry != 0
		return true
	}
	for _, x := range list[start:] {
		e := g.Events[x]
		if e.Time > m.deadline {
			break
		}
		switch {
		case ms >= 0 && md >= 0:
		case ms >= 0:
			if m.used(e.Dst) {
				continue
			}
			m.vmap[d] = int64(e.Dst)
		default:
			if m.used(e.Src) {
				continue
			}
			m.vmap[s] = int64(e.Src)
		}
		m.sel[j] = x
		ok := m.extend(j+1, emit)
		if ms < 0 {
			m.vmap[s] = -1
		}
		if md < 0 {
			m.vmap[d] = -1
		}
		if !ok {
			return false
		}
	}
	return true
}

// extendFree matches an edge whose endpoints are both new: any later event in the window.
func (m *matcher) extendFree(j int, prev uint32, prevTime int64, s, d int, emit func([]uint32) bool) bool {
	g := m.g
	for x := prev + 1; int(x) < len(g.Events); x++ {
		e := g.Events[x]
		if e.Time > m.deadline {
			break
		}
		if (m.strict && e.Time == prevTime) || m.used(e.Src) || m.used(e.Dst) {
			continue
		}
		m.vmap[s], m.vmap[d] = int64(e.Src), int64(e.Dst)
		m.sel[j] = x
		ok := m.extend(j+1, emit)
		m.vmap[s], m.vmap[d] = -1, -1
		if !ok {
			return false
		}
	}
	return true
}

// Count counts the matches of p in g (see the package comment for the semantics). On
// cancellation it returns the partial count and the context's error.
func Count(ctx context.Context, g *Graph, p *Pattern, o Options) (uint64, error) {
	if err := o.check(p); err != nil {
		return 0, err
	}
	if o.Device != CPU {
		n, err := countGPU(ctx, g, p, o)
		if !fallBack(o, err) {
			return n, err
		}
	}
	n := len(g.Events)
	threads := o.Threads
	if threads <= 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	const chunk = 256
	matchers := make([]*matcher, par.Workers(n, threads, chunk))
	stopped := par.Ranges(n, len(matchers), chunk, func(w, lo, hi int) bool {
		if ctx.Err() != nil {
			return false
		}
		m := matchers[w]
		if m == nil {
			m = newMatcher(g, p, o)
			matchers[w] = m
		}
		for i := lo; i < hi; i++ {
			m.root(uint32(i), nil)
		}
		return true
	})
	var total uint64
	over := false
	for _, m := range matchers {
		if m != nil {
			var carry uint64
			total, carry = bits.Add64(total, m.count, 0)
			over = over || m.over || carry != 0
		}
	}
	if over {
		return 0, ErrOverflow
	}
	if stopped {
		return total, ctx.Err()
	}
	return total, nil
}

// Matches streams the matches of p in g in order of their events (lexicographically by event
// index): each is the index in g.Events of the event matched to each pattern edge. The slice is
// reused between iterations.
func Matches(ctx context.Context, g *Graph, p *Pattern, o Options) iter.Seq2[[]uint32, error] {
	return func(yield func([]uint32, error) bool) {
		if err := o.check(p); err != nil {
			yield(nil, err)
			return
		}
		if o.Device != CPU {
			matchesGPU(ctx, g, p, o, func(yield func([]uint32, error) bool) { matchesCPU(ctx, g, p, o, yield) })(yield)
			return
		}
		matchesCPU(ctx, g, p, o, yield)
	}
}

// matchesCPU is Matches on the CPU.
func matchesCPU(ctx context.Context, g *Graph, p *Pattern, o Options, yield func([]uint32, error) bool) {
	m := newMatcher(g, p, o)
	emit := func(sel []uint32) bool { return yield(sel, nil) }
	for i := range g.Events {
		if i&255 == 0 && ctx.Err() != nil {
			yield(nil, ctx.Err())
			return
		}
		if !m.root(uint32(i), emit) {
			return
		}
	}
}
