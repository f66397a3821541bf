package dcsm

import (
	"fmt"
	"math/bits"
	"runtime"
	"time"

	"github.com/submatch/submatch/csm"
	"github.com/submatch/submatch/formats/updates"
	"github.com/submatch/submatch/graph/dynamic"
)

// Validation off the host graph. An edge update between existing vertices (nearly every update
// of a stream) is valid or not by its edge's state alone: the engine keeps every edge's state in
// a hash table of its own (edgeTable: a probe, where the host graph's sorted neighbour arrays
// take a search in each endpoint's list and a move of its tail) and every vertex's degree, and
// logs the changes. The log is applied to the host graph (dynamic.Graph.ApplyEdgeOps, the
// vertices shared out among the threads) on a goroutine of its own, during a long call whenever
// the last apply has finished and at least asyncMin changes are logged, and after the call,
// while the caller goes on (a short log at the end of a call is applied at once); whatever reads
// the host graph's lists waits for it first: Graph, a vertex operation, and any update the
// csm.Net validates (an edge to a new vertex, a self-loop). Validation itself reads only the
// vertices' ids and labels, which an edge change leaves alone. The
// multi-version graph on the GPU never read the host's arrays: its new versions come from the
// updates themselves.

// edgeTable is a set of edges with their labels: open addressing, linear probing, deletion by
// backward shift; keys are pairKey's (never 0: the pair's ids differ).
type edgeTable struct {
	slots []edgeSlot // a power of two of them, at most half full
	n     int
	shift uint8 // 64 - log2(len(slots))
}

type edgeSlot struct {
	key   uint64
	label uint32
}

func pairKey(x, y uint32) uint64 {
	if x > y {
		x, y = y, x
	}
	return uint64(x)<<32 | uint64(y)
}

func (t *edgeTable) home(key uint64) uint64 { return (key * 0x9e3779b97f4a7c15) >> t.shift }

// init empties the table with room for n edges.
func (t *edgeTable) init(n int) {
	c := max(64, 1<<bits.Len(uint(2*n)))
	t.slots = make([]edgeSlot, c)
	t.n = 0
	t.shift = uint8(64 - bits.TrailingZeros(uint(c)))
}

// get returns the label of the edge of key and whether it is present.
func (t *edgeTable) get(key uint64) (uint32, bool) {
	mask := uint64(len(t.slots) - 1)
	for i := t.home(key); ; i = (i + 1) & mask {
		s := &t.slots[i]
		if s.key == key {
			return s.label, true
		}
		if s.key == 0 {
			return 0, false
		}
	}
}

// put adds the edge of key (absent) with label l.
func (t *edgeTable) put(key uint64, l uint32) {
	if 2*(t.n+1) > len(t.slots) {
		old := t.slots
		t.init(t.n + 1)
		for _, s := range old {
			if s.key != 0 {
				t.put(s.key, s.label)
			}
		}
	}
	mask := uint64(len(t.slots) - 1)
	i := t.home(key)
	for t.slots[i].key != 0 {
		i = (i + 1) & mask
	}
	t.slots[i] = edgeSlot{key, l}
	t.n++
}

// remove deletes the edge of key (present).
func (t *edgeTable) remove(key uint64) {
	mask := uint64(len(t.slots) - 1)
	i := t.home(key)
	for t.slots[i].key != key {
		if t.slots[i].key == 0 {
			return
		}
		i = (i + 1) & mask
	}
	// Backward shift: every later entry of the run whose home is not in (i, j] moves into the
	// hole.
	for j := (i + 1) & mask; t.slots[j].key != 0; j = (j + 1) & mask {
		h := t.home(t.slots[j].key)
		if (j > i && (h <= i || h > j)) || (j < i && h <= i && h > j) {
			t.slots[i] = t.slots[j]
			i = j
		}
	}
	t.slots[i] = edgeSlot{}
	t.n--
}

// edges is the engine's own copy of the graph's edge states and degrees, and the log of the
// changes the host graph has not had yet.
type edges struct {
	tab edgeTable
	deg []uint32 // per dense id
	// ops: the changes since the last apply began; busy: the apply running (its ops in
	// applying), which sends its outcome on done.
	ops, applying []dynamic.EdgeOp
	busy          bool
	done          chan applied
	// took: the applies' time in all; waited: the time spent waiting for them (Stats).
	took, waited time.Duration
	// loaded is closed once load has filled the table (it runs while the matcher opens).
	loaded    chan struct{}
	asyncMin  int // the fewest changes applied on a goroutine of their own (defaultAsyncMin)
	inlineMax int // with one thread, the most changes logged before they are applied (defaultInlineMax)
}

// loadAsync copies g's edges and degrees on a goroutine of its own, while the matcher lays out
// and uploads the multi-version graph (which reads g too); open waits for it (ready) before it
// returns.
func (e *edges) loadAsync(g *dynamic.Graph) {
	e.loaded = make(chan struct{})
	e.done = make(chan applied, 1)
	e.asyncMin, e.inlineMax = defaultAsyncMin, defaultInlineMax
	go func() {
		defer close(e.loaded)
		e.load(g)
	}()
}

// ready waits for the table (loadAsync).
func (e *edges) ready() { <-e.loaded }

// load copies g's edges and degrees.
func (e *edges) load(g *dynamic.Graph) {
	e.tab.init(int(g.NumEdges()))
	n := g.IDBound()
	e.deg = make([]uint32, n)
	for v := range uint32(n) {
		if !g.Alive(v) {
			continue
		}
		e.deg[v] = uint32(g.Degree(v))
		for _, r := range g.Runs(v) {
			for _, w := range r.Neighbors {
				if w > v {
					e.tab.put(pairKey(v, w), r.EdgeLabel)
				}
			}
		}
	}
}

// degree returns v's degree now.
func (e *edges) degree(v uint32) uint32 {
	if int(v) < len(e.deg) {
		return e.deg[v]
	}
	return 0
}

// change records a valid insertion (del false) or deletion of the edge x-y with label l.
func (e *edges) change(x, y, l uint32, del bool) {
	k := pairKey(x, y)
	if n := int(max(x, y)) + 1; n > len(e.deg) {
		e.deg = append(e.deg, make([]uint32, n-len(e.deg))...)
	}
	if del {
		e.tab.remove(k)
		e.deg[x]--
		e.deg[y]--
	} else {
		e.tab.put(k, l)
		e.deg[x]++
		e.deg[y]++
	}
	e.ops = append(e.ops, dynamic.EdgeOp{U: x, V: y, Label: l, Delete: del})
}

// defaultAsyncMin is the fewest logged changes applied to the host graph on a goroutine of its
// own; a shorter log (a call of a few updates at a low rate) is applied at once, which allocates
// nothing.
const defaultAsyncMin = 4096

// defaultInlineMax is the most changes logged with one thread before they are applied in the
// call.
const defaultInlineMax = 1 << 20

// start applies the logged changes to g (up to threads goroutines inside), after the apply
// before it: a long log on a goroutine of its own (wait waits for it), a short one or one with a
// single thread at once.
func (e *edges) start(g *dynamic.Graph, threads int) error {
	if len(e.ops) == 0 {
		return nil
	}
	if err := e.wait(); err != nil {
		return err
	}
	if len(e.ops) < e.asyncMin || threads == 1 {
		t0 := time.Now()
		err := g.ApplyEdgeOps(e.ops, threads)
		e.took += time.Since(t0)
		e.ops = e.ops[:0]
		return applyError(err)
	}
	e.ops, e.applying = e.applying[:0], e.ops
	e.busy = true
	ops := e.applying
	go func() {
		t0 := time.Now()
		err := g.ApplyEdgeOps(ops, threads)
		e.done <- applied{err, time.Since(t0)}
	}()
	return nil
}

// poll starts an apply of the logged changes when the one before has finished (or none ran):
// during a long call with more than one thread, the host graph follows the validation on another
// goroutine, a log of at least asyncMin changes at a time, and validation never waits for it.
func (e *edges) poll(g *dynamic.Graph, threads int) error {
	if threads == 1 {
		// One goroutine: the log is applied at the end of the call, or once it holds
		// inlineMax changes (the host's memory stays bounded on a long call).
		if len(e.ops) < e.inlineMax {
			return nil
		}
		return e.start(g, threads)
	}
	if e.busy {
		select {
		case a := <-e.done:
			e.busy = false
			e.took += a.took
			if err := applyError(a.err); err != nil {
				return err
			}
		default:
			return nil
		}
	}
	return e.start(g, threads)
}

// wait waits for the apply running, if any.
func (e *edges) wait() error {
	if !e.busy {
		return nil
	}
	e.busy = false
	t0 := time.Now()
	a := <-e.done
	e.waited += time.Since(t0)
	e.took += a.took
	return applyError(a.err)
}

// applied is the outcome of an apply on its own goroutine.
type applied struct {
	err  error
	took time.Duration
}

// applyError wraps an error of the host graph's update (nil: nil).
func applyError(err error) error {
	if err != nil {
		return fmt.Errorf("dcsm: internal error updating the host graph: %w", err)
	}
	return nil
}

// sync brings g up to date: the apply running, then the changes logged since.
func (e *edges) sync(g *dynamic.Graph, threads int) error {
	if err := e.start(g, threads); err != nil {
		return err
	}
	return e.wait()
}

// threads is the goroutines the host graph's update may use (Options.Threads; 0: GOMAXPROCS).
func (m *Matcher) threads() int {
	if t := m.opts.Threads; t > 0 {
		return t
	}
	return runtime.GOMAXPROCS(0)
}

// syncGraph brings the host graph up to date with the validated updates; an error (internal:
// the host graph refused a change) breaks the matcher.
func (m *Matcher) syncGraph() error {
	if err := m.ed.sync(m.g, m.threads()); err != nil {
		if m.broken == nil {
			m.broken = err
		}
		return err
	}
	return nil
}

// noteNet updates the engine's edges and degrees after the csm.Net applied its last change to
// the host graph (up to date then).
func (m *Matcher) noteNet() {
	g := m.g
	e := &m.ed
	if n := g.IDBound(); n > len(e.deg) {
		e.deg = append(e.deg, make([]uint32, n-len(e.deg))...)
	}
	for _, vc := range m.net.Vertices {
		// A deleted vertex had no edge left (its edges' deletions came first, each an update
		// of its own), and keeps degree 0.
		if v, ok := g.Lookup(vc.ID); ok {
			e.deg[v] = uint32(g.Degree(v))
		}
	}
	for i := range m.net.Pairs {
		pc := &m.net.Pairs[i]
		x, ok1 := g.Lookup(pc.U)
		y, ok2 := g.Lookup(pc.V)
		if !ok1 || !ok2 {
			continue // a pair of a deleted vertex: its edge's deletion came before, on its own
		}
		k := pairKey(x, y)
		if _, had := e.tab.get(k); had {
			e.tab.remove(k)
		}
		if l, present := g.EdgeLabel(x, y); present {
			e.tab.put(k, l)
		}
		e.deg[x], e.deg[y] = uint32(g.Degree(x)), uint32(g.Degree(y))
	}
}

// validateEdge validates an edge update between existing distinct vertices against the engine's
// edges and appends its record to c as validateOne does (done true); anything else is left to
// validateOne (done false). An invalid update without SkipInvalid returns its
// *csm.InvalidError.
func (m *Matcher) validateEdge(u *updates.Update, ahead int, c *chunk) (done bool, err error) {
	if (u.Kind != updates.InsertEdge && u.Kind != updates.DeleteEdge) || u.U == u.V {
		return false, nil
	}
	g := m.g
	x, ok1 := g.Lookup(u.U)
	y, ok2 := g.Lookup(u.V)
	if !ok1 || !ok2 {
		return false, nil
	}
	if u.U > u.V {
		x, y = y, x // in the pair's order (csm.PairChange: U < V by original ids)
	}
	l, present := m.ed.tab.get(pairKey(x, y))
	rec := change{u: *u, ahead: ahead, p0: len(c.pairs), v0: len(c.verts)}
	if err := csm.EdgeUpdateError(u, l, present); err != nil {
		if !m.opts.SkipInvalid {
			return true, &csm.InvalidError{Update: *u, Err: err}
		}
		rec.err = err
		rec.p1, rec.v1 = rec.p0, rec.v0
		c.recs = append(c.recs, rec)
		return true, nil
	}
	var old, new csm.PairState
	if u.Kind == updates.InsertEdge {
		l = u.Label
		new = csm.PairState{Present: true, Label: l}
	} else {
		old = csm.PairState{Present: true, Label: l}
	}
	m.ed.change(x, y, l, u.Kind == updates.DeleteEdge)
	if len(m.ed.ops) >= m.ed.asyncMin {
		if err := m.ed.poll(g, m.threads()); err != nil {
			return true, err
		}
	}
	m.vts++
	rec.t, rec.idBound = m.vts, g.IDBound()
	if lx, ly := g.Label(x), g.Label(y); m.tab.relevant(lx, ly) {
		c.pairs = append(c.pairs, pairRec{x: x, y: y, lx: lx, ly: ly, dx: m.ed.degree(x), dy: m.ed.degree(y),
			old: old, new: new, oldAlive: true})
	}
	rec.p1, rec.v1 = len(c.pairs), rec.v0
	c.recs = append(c.recs, rec)
	return true, nil
}
