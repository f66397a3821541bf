package csm

import (
	"cmp"
	"errors"
	"fmt"
	"iter"
	"slices"

	"github.com/submatch/submatch/formats/updates"
	"github.com/submatch/submatch/graph/dynamic"
)

// Errors naming why an update is invalid (wrapped in InvalidError or listed in Result.Invalid).
// They are the changing graph's own (errors.Is matches either name), and one of their own.
var (
	ErrDuplicateEdge   = dynamic.ErrEdgeExists
	ErrMissingEdge     = dynamic.ErrNoEdge
	ErrMissingVertex   = dynamic.ErrNoVertex
	ErrDuplicateVertex = dynamic.ErrVertexExists
	ErrSelfLoop        = dynamic.ErrSelfLoop
	ErrLabelMismatch   = errors.New("the edge has another label")
)

type pairKey struct{ a, b int64 } // original ids, a < b

func keyOf(a, b int64) pairKey {
	if a > b {
		a, b = b, a
	}
	return pairKey{a, b}
}

// VertexState is a vertex's state in one graph: alive, and its label.
type VertexState struct {
	Alive bool
	Label uint32
}

// PairState is a pair of vertices' state in one graph: joined by an edge, and its label.
type PairState struct {
	Present bool
	Label   uint32
}

// VertexChange is a vertex whose state a batch changed (by original id).
type VertexChange struct {
	ID       int64
	Old, New VertexState
}

// PairChange is a pair whose state a batch changed (original ids, U < V), or a pair of a vertex
// that changed (its state may then be the same before and after: the edge is deleted with the
// vertex and inserted again).
type PairChange struct {
	U, V     int64
	Old, New PairState
}

// Net computes the net change of a batch over a dynamic graph, validating every update against
// the graph as the batch leaves it so far (the rules of Options.SkipInvalid), and applies it.
// Every engine uses it, so that all of them refuse and skip the same updates. It keeps its maps
// between batches (no allocation once warm).
type Net struct {
	g *dynamic.Graph
	// The batch simulated on top of the graph, by original ids: current and first-seen states.
	simV map[int64]VertexState
	oldV map[int64]VertexState
	simP map[pairKey]PairState
	oldP map[pairKey]PairState

	// The net change of the last Compute: vertices whose state differs, and pairs whose state
	// differs or that belong to such a vertex.
	Vertices []VertexChange
	Pairs    []PairChange

	// single: the last Compute (or ComputeApply) took the fast path of one edge update between
	// existing vertices, whose dense ids are x and y (Pairs[0]); Apply then needs no lookups.
	single bool
	x, y   uint32
}

// NewNet returns a Net over g.
func NewNet(g *dynamic.Graph) *Net {
	return &Net{g: g, simV: map[int64]VertexState{}, oldV: map[int64]VertexState{},
		simP: map[pairKey]PairState{}, oldP: map[pairKey]PairState{}}
}

// Compute validates the batch and computes its net change into Vertices and Pairs; the graph is
// not changed (Apply does that). An invalid update fails the batch with an *InvalidError, or with
// skipInvalid is left out and listed in res (Skipped, Invalid); res.Applied counts the others.
func (n *Net) Compute(batch []updates.Update, skipInvalid bool, res *Result) error {
	if n.start(batch, res, (*Net).singleEdge) {
		return nil
	}
	for i := range batch {
		if err := n.simulate(&batch[i]); err != nil {
			if err := reject(batch[i], err, skipInvalid, res); err != nil {
				return err
			}
			continue
		}
		res.Applied++
	}
	// The net change: elements whose state differs, and every pair of a vertex that changed.
	for id, old := range n.oldV {
		now := n.simV[id]
		if old.Alive != now.Alive || (old.Alive && old.Label != now.Label) {
			n.Vertices = append(n.Vertices, VertexChange{ID: id, Old: old, New: now})
		}
	}
	for k, old := range n.oldP {
		now := n.simP[k]
		if old != now || n.vertexChanged(k.a) || n.vertexChanged(k.b) {
			n.Pairs = append(n.Pairs, PairChange{U: k.a, V: k.b, Old: old, New: now})
		}
	}
	// Map order is random: sorted, the change (and the dense ids its new vertices get, and so
	// which symmetric equivalent a unique listing reports) is the same on every run.
	if len(n.Vertices) > 1 {
		slices.SortFunc(n.Vertices, func(a, b VertexChange) int { return cmp.Compare(a.ID, b.ID) })
	}
	if len(n.Pairs) > 1 {
		slices.SortFunc(n.Pairs, func(a, b PairChange) int {
			if c := cmp.Compare(a.U, b.U); c != 0 {
				return c
			}
			return cmp.Compare(a.V, b.V)
		})
	}
	return nil
}

// reject handles an invalid update: an *InvalidError, or with skipInvalid nil and the update
// listed in res (Skipped, Invalid).
func reject(u updates.Update, err error, skipInvalid bool, res *Result) error {
	if !skipInvalid {
		return &InvalidError{Update: u, Err: err}
	}
	res.Skipped++
	res.Invalid = append(res.Invalid, Invalid{Update: u, Err: err})
	return nil
}

// vertexState is the simulated state of vertex id.
func (n *Net) vertexState(id int64) VertexState {
	if s, ok := n.simV[id]; ok {
		return s
	}
	if v, ok := n.g.Lookup(id); ok {
		return VertexState{Alive: true, Label: n.g.Label(v)}
	}
	return VertexState{}
}

func (n *Net) setVertex(id int64, s VertexState) {
	if _, ok := n.oldV[id]; !ok {
		n.oldV[id] = n.vertexState(id)
	}
	n.simV[id] = s
}

// pairState is the simulated state of the pair a-b (both alive in the simulation).
func (n *Net) pairState(k pairKey) PairState {
	if s, ok := n.simP[k]; ok {
		return s
	}
	u, ok1 := n.g.Lookup(k.a)
	v, ok2 := n.g.Lookup(k.b)
	if ok1 && ok2 {
		if l, ok := n.g.EdgeLabel(u, v); ok {
			return PairState{Present: true, Label: l}
		}
	}
	return PairState{}
}

func (n *Net) setPair(k pairKey, s PairState) {
	if _, ok := n.oldP[k]; !ok {
		n.oldP[k] = n.pairState(k)
	}
	n.simP[k] = s
}

// simulate applies one update to the simulation, or says why it is invalid (nothing changed).
func (n *Net) simulate(u *updates.Update) error {
	switch u.Kind {
	case updates.InsertEdge:
		if u.U == u.V {
			return ErrSelfLoop
		}
		k := keyOf(u.U, u.V)
		a, b := n.vertexState(u.U), n.vertexState(u.V)
		if a.Alive && b.Alive {
			if s := n.pairState(k); s.Present {
				if s.Label != u.Label {
					return fmt.Errorf("%w (label %d; a second label)", ErrDuplicateEdge, s.Label)
				}
				return ErrDuplicateEdge
			}
		}
		// An endpoint not seen yet is a new vertex with label 0.
		if !a.Alive {
			n.setVertex(u.U, VertexState{Alive: true})
		}
		if !b.Alive {
			n.setVertex(u.V, VertexState{Alive: true})
		}
		n.setPair(k, PairState{Present: true, Label: u.Label})
	case updates.DeleteEdge:
		if u.U == u.V {
			return ErrSelfLoop
		}
		if !n.vertexState(u.U).Alive || !n.vertexState(u.V).Alive {
			return ErrMissingEdge
		}
		k := keyOf(u.U, u.V)
		s := n.pairState(k)
		if !s.Present {
			return ErrMissingEdge
		}
		if u.HasLabel && s.Label != u.Label {
			return fmt.Errorf("%w (%d)", ErrLabelMismatch, s.Label)
		}
		n.setPair(k, PairState{})
	case updates.InsertVertex:
		if s := n.vertexState(u.U); s.Alive {
			if s.Label != u.Label {
				return fmt.Errorf("%w (label %d; a second label)", ErrDuplicateVertex, s.Label)
			}
			return ErrDuplicateVertex
		}
		n.setVertex(u.U, VertexState{Alive: true, Label: u.Label})
	case updates.DeleteVertex:
		if !n.vertexState(u.U).Alive {
			return ErrMissingVertex
		}
		// Its edges first: those of the graph, and those the batch inserted.
		if v, ok := n.g.Lookup(u.U); ok {
			for _, r := range n.g.Runs(v) {
				for _, w := range r.Neighbors {
					k := keyOf(u.U, n.g.OriginalID(w))
					if n.pairState(k).Present {
						n.setPair(k, PairState{})
					}
				}
			}
		}
		for k, s := range n.simP {
			if s.Present && (k.a == u.U || k.b == u.U) {
				n.setPair(k, PairState{})
			}
		}
		n.setVertex(u.U, VertexState{})
	default:
		return fmt.Errorf("unknown update kind %d", u.Kind)
	}
	return nil
}

// clearMap empties a map; clear costs the map's capacity, which a large batch leaves behind, so
// an empty map is left alone.
func clearMap[K comparable, V any](m map[K]V) {
	if len(m) > 0 {
		clear(m)
	}
}

// Reset forgets the last batch.
func (n *Net) Reset() {
	clearMap(n.simV)
	clearMap(n.oldV)
	clearMap(n.simP)
	clearMap(n.oldP)
	n.Vertices = n.Vertices[:0]
	n.Pairs = n.Pairs[:0]
	n.single = false
}

// start forgets the last batch and res's counts, and tries the fast path fast on a batch of one
// update: true when it took it (the update valid and done).
func (n *Net) start(batch []updates.Update, res *Result, fast func(*Net, *updates.Update) bool) bool {
	n.Reset()
	res.Applied, res.Skipped, res.Invalid = 0, 0, res.Invalid[:0]
	if len(batch) == 1 && fast(n, &batch[0]) {
		res.Applied = 1
		return true
	}
	return false
}

// edgeUpdate returns the dense ids of the endpoints of an edge update between existing distinct
// vertices, in the order of its pair (x of c.U, y of c.V), and its pair (no states yet); ok false
// for anything else.
func (n *Net) edgeUpdate(u *updates.Update) (x, y uint32, c PairChange, ok bool) {
	if (u.Kind != updates.InsertEdge && u.Kind != updates.DeleteEdge) || u.U == u.V {
		return 0, 0, c, false
	}
	x, ok1 := n.g.Lookup(u.U)
	y, ok2 := n.g.Lookup(u.V)
	if u.U > u.V {
		x, y = y, x // in the pair's order
	}
	k := keyOf(u.U, u.V)
	return x, y, PairChange{U: k.a, V: k.b}, ok1 && ok2
}

// edgeNow is edgeUpdate with the edge's state in the graph: its label and whether it is present.
func (n *Net) edgeNow(u *updates.Update) (x, y uint32, c PairChange, l uint32, present, ok bool) {
	if x, y, c, ok = n.edgeUpdate(u); ok {
		l, present = n.g.EdgeLabel(x, y)
	}
	return x, y, c, l, present, ok
}

// SingleEdge reports whether the last Compute or ComputeApply took the fast path of one edge
// update between existing vertices, and then the dense ids of its pair Pairs[0] (x of U, y of V):
// they stay valid through Apply (an edge update changes no dense id), so a caller needs no
// lookups of its own.
func (n *Net) SingleEdge() (x, y uint32, ok bool) {
	return n.x, n.y, n.single
}

// singleEdge is the fast path of a batch of one valid edge update between existing vertices: its
// net change is itself, with no simulation. It returns false (nothing done) for anything else,
// invalid updates included, which take the general path.
func (n *Net) singleEdge(u *updates.Update) bool {
	x, y, c, l, present, ok := n.edgeNow(u)
	if !ok {
		return false
	}
	switch {
	case u.Kind == updates.InsertEdge && !present:
		c.New = PairState{Present: true, Label: u.Label}
	case u.Kind == updates.DeleteEdge && present && (!u.HasLabel || u.Label == l):
		c.Old = PairState{Present: true, Label: l}
	default:
		return false
	}
	n.Pairs = append(n.Pairs, c)
	n.single, n.x, n.y = true, x, y
	return true
}

func (n *Net) vertexChanged(id int64) bool {
	old, ok := n.oldV[id]
	if !ok {
		return false
	}
	now := n.simV[id]
	return old.Alive != now.Alive || (old.Alive && old.Label != now.Label)
}

// ComputeApply is Compute followed by Apply, for a caller that searches nothing on the graph
// before the change: a batch of one edge update between existing vertices is validated by the
// change itself (the graph's own check that the edge is absent, or present), without a search
// first.
func (n *Net) ComputeApply(batch []updates.Update, skipInvalid bool, res *Result) error {
	if n.start(batch, res, (*Net).applyEdge) {
		return nil
	}
	if len(batch) == 1 {
		// An invalid edge update between existing vertices: the reason Compute would give,
		// without simulating.
		if err := n.edgeInvalid(&batch[0]); err != nil {
			return reject(batch[0], err, skipInvalid, res)
		}
	}
	if err := n.Compute(batch, skipInvalid, res); err != nil {
		return err
	}
	return n.Apply()
}

// edgeInvalid returns why an edge update between existing distinct vertices is invalid, as
// simulate says it (nil for anything else, valid updates included).
func (n *Net) edgeInvalid(u *updates.Update) error {
	_, _, _, l, present, ok := n.edgeNow(u)
	if !ok {
		return nil
	}
	return EdgeUpdateError(u, l, present)
}

// EdgeUpdateError returns why the edge update u between existing distinct vertices is invalid
// when the edge's state before it is present (with label l) or not, with the reason Compute
// gives; nil when it is valid. An engine that keeps the edges' states itself (dcsm) validates
// with it exactly as the Net does.
func EdgeUpdateError(u *updates.Update, l uint32, present bool) error {
	switch {
	case u.Kind == updates.InsertEdge && present && l != u.Label:
		return fmt.Errorf("%w (label %d; a second label)", ErrDuplicateEdge, l)
	case u.Kind == updates.InsertEdge && present:
		return ErrDuplicateEdge
	case u.Kind == updates.DeleteEdge && !present:
		return ErrMissingEdge
	case u.Kind == updates.DeleteEdge && u.HasLabel && l != u.Label:
		return fmt.Errorf("%w (%d)", ErrLabelMismatch, l)
	}
	return nil
}

// applyEdge applies a valid edge update between existing vertices and records it as the net
// change; anything else (invalid updates included) is left unchanged: false.
func (n *Net) applyEdge(u *updates.Update) bool {
	x, y, c, ok := n.edgeUpdate(u)
	if !ok {
		return false
	}
	return n.applyEdgeAt(u, x, y, c)
}

// applyEdgeAt is applyEdge for a caller that looked the endpoints up already: x and y are the
// dense ids of c.U and c.V, c the update's pair with no states yet.
func (n *Net) applyEdgeAt(u *updates.Update, x, y uint32, c PairChange) bool {
	g := n.g
	if u.Kind == updates.InsertEdge {
		if !g.InsertEdge(x, y, u.Label) {
			return false
		}
		c.New = PairState{Present: true, Label: u.Label}
	} else {
		l, ok := g.RemoveEdge(x, y)
		if !ok {
			return false
		}
		if u.HasLabel && l != u.Label {
			g.InsertEdge(x, y, l) // put back: the deletion names another label
			return false
		}
		c.Old = PairState{Present: true, Label: l}
	}
	n.Pairs = append(n.Pairs, c)
	n.single, n.x, n.y = true, x, y
	return true
}

// Restrict appends to vs and ps the net change of the last Compute (before or after Apply) as a graph
// holding only the edges that relevant admits sees it (see ChangeApplier): every vertex change,
// and each pair change with its old and new states present only where the endpoints' labels
// then are admitted; a pair absent both ways is left out unless a vertex of it changed. Both
// come back empty when the change touches no vertex and no admitted pair: nothing to search.
func (n *Net) Restrict(relevant func(l0, l1 uint32) bool, vs []VertexChange, ps []PairChange) ([]VertexChange, []PairChange) {
	labels := func(id int64) (old, now uint32) {
		if s, ok := n.oldV[id]; ok { // touched by the batch (the general path)
			return s.Label, n.simV[id].Label
		}
		v, _ := n.g.Lookup(id)
		l := n.g.Label(v)
		return l, l
	}
	for _, c := range n.Pairs {
		ao, an := labels(c.U)
		bo, bn := labels(c.V)
		r := c
		r.Old.Present = c.Old.Present && relevant(ao, bo)
		r.New.Present = c.New.Present && relevant(an, bn)
		if r.Old.Present || r.New.Present || n.vertexChanged(c.U) || n.vertexChanged(c.V) {
			ps = append(ps, r)
		}
	}
	return append(vs, n.Vertices...), ps
}

// Apply applies the net change (of the last Compute) to the graph: edges out, vertices out,
// vertices in, edges in.
func (n *Net) Apply() error {
	g := n.g
	if n.single {
		c := &n.Pairs[0]
		var err error
		if c.Old.Present {
			_, err = g.DeleteEdge(n.x, n.y)
		} else {
			err = g.AddEdge(n.x, n.y, c.New.Label)
		}
		if err != nil {
			return fmt.Errorf("csm: internal error applying a batch: %w", err)
		}
		return nil
	}
	for _, c := range n.Pairs {
		if c.Old.Present {
			u, _ := g.Lookup(c.U)
			v, _ := g.Lookup(c.V)
			if _, err := g.DeleteEdge(u, v); err != nil {
				return fmt.Errorf("csm: internal error applying a batch: %w", err)
			}
		}
	}
	for _, c := range n.Vertices {
		if c.Old.Alive {
			v, _ := g.Lookup(c.ID)
			if err := g.DeleteVertex(v); err != nil {
				return fmt.Errorf("csm: internal error applying a batch: %w", err)
			}
		}
	}
	for _, c := range n.Vertices {
		if c.New.Alive {
			if _, err := g.AddVertex(c.ID, c.New.Label); err != nil {
				return fmt.Errorf("csm: internal error applying a batch: %w", err)
			}
		}
	}
	for _, c := range n.Pairs {
		if c.New.Present {
			u, _ := g.Lookup(c.U)
			v, _ := g.Lookup(c.V)
			if err := g.AddEdge(u, v, c.New.Label); err != nil {
				return fmt.Errorf("csm: internal error applying a batch: %w", err)
			}
		}
	}
	return nil
}

// AnchorVertex is a changed vertex as a phase of a batch sees it: V (internal id) is alive in the
// phase's current graph, Cur is its state there and Other its state in the other graph.
type AnchorVertex struct {
	V          uint32
	Cur, Other VertexState
}

// AnchorPair is a changed pair as a phase sees it (both vertices exist in the current graph).
type AnchorPair struct {
	U, V       uint32
	Cur, Other PairState
}

// phaseStates orders old and new as a phase sees them: created (the current graph is the new
// one, the other the old) or destroyed (the reverse).
func phaseStates[S any](old, now S, created bool) (cur, other S) {
	if created {
		return now, old
	}
	return old, now
}

// AnchorVertices yields the changed vertices alive in the current graph of a phase (created:
// the new graph; else the old) over the graph g as that phase has it: the anchors of its
// vertex terms, in the order of Vertices.
func (n *Net) AnchorVertices(g *dynamic.Graph, created bool) iter.Seq[AnchorVertex] {
	return func(yield func(AnchorVertex) bool) {
		for _, c := range n.Vertices {
			cur, oth := phaseStates(c.Old, c.New, created)
			if !cur.Alive {
				continue
			}
			v, _ := g.Lookup(c.ID)
			if !yield(AnchorVertex{V: v, Cur: cur, Other: oth}) {
				return
			}
		}
	}
}

// AnchorPairs yields the changed pairs whose vertices both exist in g, the graph of a phase: the
// anchors of its pair terms, in the order of Pairs.
func (n *Net) AnchorPairs(g *dynamic.Graph, created bool) iter.Seq[AnchorPair] {
	return func(yield func(AnchorPair) bool) {
		if n.single && g == n.g {
			// One edge update: its endpoints' dense ids are known, and alive in both graphs.
			c := &n.Pairs[0]
			cur, oth := phaseStates(c.Old, c.New, created)
			yield(AnchorPair{U: n.x, V: n.y, Cur: cur, Other: oth})
			return
		}
		for _, c := range n.Pairs {
			cur, oth := phaseStates(c.Old, c.New, created)
			u, ok1 := g.Lookup(c.U)
			v, ok2 := g.Lookup(c.V)
			if !ok1 || !ok2 {
				continue
			}
			if !yield(AnchorPair{U: u, V: v, Cur: cur, Other: oth}) {
				return
			}
		}
	}
}
