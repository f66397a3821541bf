package csm

import (
	"cmp"
	"context"
	"slices"

	"github.com/submatch/submatch/formats/updates"
	"github.com/submatch/submatch/graph/dynamic"
)

// Streamer is implemented by a matcher that applies a stream one update at a time, each against
// the graph exactly as the updates before it left it, many updates in flight at once (DCSM): the
// per-update deltas of the CPU engine with batches of one.
type Streamer interface {
	Matcher
	// ApplyEach applies the updates in order and calls report with every update and its delta,
	// in order. A vertex deletion is reported as the deletions of its edges (each an update of
	// its own, on the vertex deletion's line) and then the deletion of the vertex, as watch
	// --batch 1 reports it. An invalid update is skipped (res.Skipped 1, res.Invalid naming it)
	// under Options.SkipInvalid, else ApplyEach returns its *InvalidError after reporting the
	// updates before it. An error from report stops the stream and is returned.
	ApplyEach(ctx context.Context, stream []updates.Update, report func(u updates.Update, res *Result) error) error
}

// IncidentDeletions appends the deletions of the edges of the vertex that u deletes (none when it
// does not exist: the deletion itself then fails or is skipped), each on u's line and time, in
// the order of the neighbours' original ids: the graph's dense ids differ after a resume from a
// checkpoint, and the per-update deltas of the deletions depend on their order.
func IncidentDeletions(g *dynamic.Graph, u updates.Update, out []updates.Update) []updates.Update {
	v, ok := g.Lookup(u.U)
	if !ok {
		return out
	}
	start := len(out)
	for _, r := range g.Runs(v) {
		for _, w := range r.Neighbors {
			out = append(out, updates.Update{Kind: updates.DeleteEdge, U: u.U, V: g.OriginalID(w), Label: r.EdgeLabel, HasLabel: true,
				Time: u.Time, HasTime: u.HasTime, Line: u.Line})
		}
	}
	slices.SortFunc(out[start:], func(a, b updates.Update) int { return cmp.Compare(a.V, b.V) })
	return out
}
