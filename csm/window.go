package csm

import (
	"container/heap"
	"slices"
	"sort"

	"github.com/submatch/submatch/formats/updates"
	"github.com/submatch/submatch/graph/dynamic"
)

// Window is a sliding time window over a timestamped stream: an edge inserted at time t lives
// until the stream reaches t + Span, when Expire returns its deletion, whatever the times of the
// edges inserted before it (a stream's times may go back). Feed it every batch that was applied
// (Observe skips the updates the batch refused).
type Window struct {
	Span  int64
	queue edgeHeap          // by time, then insertion order: the next edge due first
	seq   uint64            // insertions so far (the ties' order)
	last  map[pairKey]int64 // the latest insertion time of every edge in the window
}

// queuedEdge is an edge in the window's heap: its insertion order breaks ties of time, so that
// edges of equal time expire in stream order.
type queuedEdge struct {
	WindowEdge
	seq uint64
}

// edgeHeap orders the window's edges for container/heap: the edge due first at the root. The
// window moves edges in and out by append and heap.Fix rather than heap.Push and heap.Pop, whose
// values pass through an interface (an allocation an edge).
type edgeHeap []queuedEdge

func (h edgeHeap) Len() int { return len(h) }
func (h edgeHeap) Less(i, j int) bool {
	return h[i].Time < h[j].Time || h[i].Time == h[j].Time && h[i].seq < h[j].seq
}
func (h edgeHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *edgeHeap) Push(x any)   { *h = append(*h, x.(queuedEdge)) }
func (h *edgeHeap) Pop() any {
	x := (*h)[len(*h)-1]
	*h = (*h)[:len(*h)-1]
	return x
}

// push adds e to the heap. The times of a stream may go back: an edge inserted at 5 after one at
// 10 is due first.
func (w *Window) push(e WindowEdge) {
	w.queue = append(w.queue, queuedEdge{e, w.seq})
	w.seq++
	heap.Fix(&w.queue, len(w.queue)-1)
}

// pop removes and returns the edge due first.
func (w *Window) pop() WindowEdge {
	top := w.queue[0].WindowEdge
	n := len(w.queue) - 1
	w.queue.Swap(0, n)
	w.queue = w.queue[:n]
	if n > 0 {
		heap.Fix(&w.queue, 0)
	}
	return top
}

// WindowEdge is an edge in the window and the time it was inserted.
type WindowEdge struct {
	U, V  int64
	Label uint32
	Time  int64
}

// NewWindow returns an empty window of span time units.
func NewWindow(span int64) *Window {
	return &Window{Span: span, last: map[pairKey]int64{}}
}

// Observe records the insertions of an applied batch (res is its result: refused updates are
// skipped) and forgets explicitly deleted edges.
func (w *Window) Observe(batch []updates.Update, res *Result) {
	inv := 0
	for i := range batch {
		u := &batch[i]
		if inv < len(res.Invalid) && res.Invalid[inv].Update.Line == u.Line && res.Invalid[inv].Update == *u {
			inv++
			continue
		}
		switch u.Kind {
		case updates.InsertEdge:
			w.last[keyOf(u.U, u.V)] = u.Time
			w.push(WindowEdge{U: u.U, V: u.V, Label: u.Label, Time: u.Time})
		case updates.DeleteEdge:
			delete(w.last, keyOf(u.U, u.V))
		}
	}
}

// Expire appends to out the deletions of the edges whose time is up at time now (inserted at or
// before now - Span, still present in g and not inserted again since), and returns it.
func (w *Window) Expire(now int64, g *dynamic.Graph, out []updates.Update) []updates.Update {
	for len(w.queue) > 0 && w.due(w.queue[0].Time, now) {
		e := w.pop()
		k := keyOf(e.U, e.V)
		if t, ok := w.last[k]; !ok || t != e.Time {
			continue // deleted or inserted again later
		}
		delete(w.last, k)
		u, ok1 := g.Lookup(e.U)
		v, ok2 := g.Lookup(e.V)
		if !ok1 || !ok2 {
			continue
		}
		if _, ok := g.EdgeLabel(u, v); !ok {
			continue // its vertex was deleted
		}
		out = append(out, updates.Update{Kind: updates.DeleteEdge, U: e.U, V: e.V, Time: now, HasTime: true})
	}
	return out
}

// Run returns the length of the longest prefix of stream (at least one update when stream is not
// empty) in which no edge can expire after the first update: Expire at stream[0].Time, then the
// whole prefix, then Observe of every update of it, has the effect of Expire before each of its
// updates. A per-update engine (Streamer) applies the prefix in one call; the run ends at the first
// update at whose time the oldest edge of the window, or one the prefix inserts, is due (an
// expiry that may find nothing to delete: the bound is conservative, never late).
func (w *Window) Run(stream []updates.Update) int {
	oldest, ok := int64(0), false
	if len(w.queue) > 0 {
		oldest, ok = w.queue[0].Time, true
	}
	for i := range stream {
		u := &stream[i]
		if i > 0 && ok && w.due(oldest, u.Time) {
			return i
		}
		if u.Kind == updates.InsertEdge && (!ok || u.Time < oldest) {
			oldest, ok = u.Time, true
		}
	}
	return len(stream)
}

// due reports whether an edge inserted at time t is due at time now (t + Span <= now), without
// the overflow of now - Span below math.MinInt64 (which expired every edge at once).
func (w *Window) due(t, now int64) bool {
	return t <= now && uint64(now-t) >= uint64(w.Span)
}

// Edges returns the edges still in the window, oldest first (for checkpoints).
func (w *Window) Edges() []WindowEdge {
	q := slices.Clone(w.queue)
	sort.Sort(q) // the heap's order, in full
	var out []WindowEdge
	for _, e := range q {
		if t, ok := w.last[keyOf(e.U, e.V)]; ok && t == e.Time {
			out = append(out, e.WindowEdge)
		}
	}
	return out
}

// Restore puts edges (from Edges) back into an empty window.
func (w *Window) Restore(edges []WindowEdge) {
	for _, e := range edges {
		w.last[keyOf(e.U, e.V)] = e.Time
		w.push(e)
	}
}
