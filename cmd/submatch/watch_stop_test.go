package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/submatch/submatch/csm"
	"github.com/submatch/submatch/formats/updates"
	"github.com/submatch/submatch/graph/dynamic"
	"github.com/submatch/submatch/pattern"
)

// stopperEngine ("test-stopper") stands for an engine whose batches stop mid-way when cancelled
// (gcsm): its matchers report StopsMidBatch, count one creation for the first batch and block
// in every later batch until their context ends (or 10 s pass).
type stopperEngine struct{}

func (stopperEngine) Name() string { return "test-stopper" }

func (stopperEngine) Open(g *dynamic.Graph, pats []*pattern.Pattern, _ csm.Options) (csm.Matcher, error) {
	return &stopper{g: g, pats: pats}, nil
}

type stopper struct {
	g       *dynamic.Graph
	pats    []*pattern.Pattern
	batches int
}

func (s *stopper) StopsMidBatch() bool { return true }

func (s *stopper) Graph() *dynamic.Graph { return s.g }

func (s *stopper) Patterns() []*pattern.Pattern { return s.pats }

func (s *stopper) Apply(ctx context.Context, batch []updates.Update, _ csm.Emit, res *csm.Result) error {
	s.batches++
	res.Deltas = append(res.Deltas[:0], csm.Delta{})
	res.Applied = len(batch)
	if s.batches == 1 {
		res.Deltas[0].Created = 1
		return nil
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(10 * time.Second):
		return nil
	}
}

func init() { csm.Register(stopperEngine{}) }

// TestWatchStopsMidBatch: with an engine that stops mid-batch, --timeout ends watch at once in
// the middle of a batch (exit 1); the batch cut short is not reported and the totals are those
// of the batches before it.
func TestWatchStopsMidBatch(t *testing.T) {
	data := writeFile(t, "g.graph", watchGraph)
	stream := writeFile(t, "u.stream", "e 1 3\n-e 1 2\n")
	t0 := time.Now()
	code, out, errOut := runCmd(t, "watch", "--engine", "test-stopper", "--batch", "1", "--timeout", "300ms", data, triangle, "--updates", stream)
	took := time.Since(t0)
	if code != exitPartial || took > 5*time.Second {
		t.Fatalf("exit %d after %v (want %d, well before the engine's 10 s):\n%s%s", code, took, exitPartial, out, errOut)
	}
	if !strings.Contains(errOut, "timed out after 300ms after stream line 1") {
		t.Errorf("stderr: %s", errOut)
	}
	var batches []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if !strings.HasPrefix(l, "#") {
			batches = append(batches, l)
		}
	}
	if len(batches) != 1 || !strings.Contains(batches[0], "+1") {
		t.Errorf("want only the first batch reported:\n%s", out)
	}
}
