package pbe

import (
	"context"
	"errors"
	"iter"
	"strings"
	"sync"
	"testing"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/partition"
	"github.com/submatch/submatch/pattern"
)

// copyBackend records, for every part it is given, its copy's bytes once made
// (graph.SubgraphSize.Bytes of its arrays, its label index included) and the memory limit the
// cpu engine gets on it.
type copyBackend struct {
	HostBackend
	mu     sync.Mutex
	copies []uint64
	limits []uint64
}

func (b *copyBackend) CountPart(ctx context.Context, sub *engine.Problem) (engine.Result, error) {
	raw := sub.Data.Raw()
	b.mu.Lock()
	b.copies = append(b.copies, graph.SubgraphSize{Vertices: sub.Data.NumVertices(), Entries: uint64(len(raw.Neighbors)),
		Runs: uint64(len(raw.Runs)), MaxLabel: maxLabel(sub.Data)}.Bytes(raw.EdgeLabels != nil))
	b.limits = append(b.limits, sub.MemoryLimit)
	b.mu.Unlock()
	return b.HostBackend.CountPart(ctx, sub)
}

func (b *copyBackend) MatchesPart(ctx context.Context, sub *engine.Problem) iter.Seq2[[]uint32, error] {
	return b.HostBackend.MatchesPart(ctx, sub)
}

// cpuCount parses query and counts it on g with the cpu engine (2 threads).
func cpuCount(t *testing.T, g *graph.Graph, query string) (*pattern.Pattern, engine.Result) {
	t.Helper()
	p, err := pattern.Parse(query)
	if err != nil {
		t.Fatal(err)
	}
	cpu, err := engine.Lookup("cpu")
	if err != nil {
		t.Fatal(err)
	}
	want, err := cpu.Count(context.Background(), &engine.Problem{Data: g, Pattern: p, Threads: 2})
	if err != nil {
		t.Fatal(err)
	}
	return p, want
}

// TestPartCopiesWithinMemory checks that, where --memory is the partition budget, every part's
// copy (its arrays, not the partition model's bytes) fits --memory beside the partitioning the
// count holds, with room left, and that the cpu engine on a part gets what they leave as its
// memory limit, not none; the counts are the cpu engine's. With 20 edge labels every run of a
// list holds about one entry, so a copy takes about 3 times its model bytes: before, the parts
// were made for --memory in the model, and the cpu engine ran on them without a limit.
func TestPartCopiesWithinMemory(t *testing.T) {
	g := gen.RandomGraphM(3, 4000, 24000, 3, 20)
	p, want := cpuCount(t, g, "(a)-[:*]-(b)-[:*]-(c)-[:*]-(a)")
	ctx := context.Background()
	model := partition.GraphBytes(g)
	for _, limit := range []uint64{model / 2, model} {
		be := &copyBackend{}
		e := &Engine{Backend: be, wholeGraph: true, Partitioner: partition.Grow}
		res, st, err := e.CountStats(ctx, &engine.Problem{Data: g, Pattern: p, Threads: 2, MemoryLimit: limit})
		if err != nil || res.Count != want.Count {
			t.Fatalf("--memory %d: count %d, the cpu engine's %d, err %v", limit, res.Count, want.Count, err)
		}
		if st.Parts < 2 || len(be.copies) < 2 {
			t.Fatalf("--memory %d: %d parts, %d searched: too few to tell", limit, st.Parts, len(be.copies))
		}
		for i, c := range be.copies {
			if st.PartitionHeldBytes+c > limit || be.limits[i] == 0 || st.PartitionHeldBytes+c+be.limits[i] > limit {
				t.Errorf("--memory %d, %d parts: a part's copy holds %d bytes beside the partitioning's %d, the cpu engine's limit on it %d",
					limit, st.Parts, c, st.PartitionHeldBytes, be.limits[i])
			}
		}
	}
}

// TestPartitionerWithinMemory checks that the partitioner's working memory
// (partition.WorkingBytes) is charged against --memory: where the configured multilevel
// partitioner's does not fit, a lighter one partitions (Stats.PartitionMethod), the count the cpu
// engine's; where not even the lightest's fits, the count fails early with engine.ErrMemory naming
// the partitioning. Before, the multilevel partitioner ran whatever --memory said.
func TestPartitionerWithinMemory(t *testing.T) {
	g := gen.RandomGraphM(5, 6000, 30000, 1, 1)
	p, want := cpuCount(t, g, "(a)-(b)-(c)-(d)-(a)")
	ctx := context.Background()
	budget := partition.GraphBytes(g) / 4
	opts := partition.Options{Budget: budget, NoHalos: true}
	multilevel := partition.WorkingBytes(g, opts)
	opts.Method = partition.Grow
	grow := partition.WorkingBytes(g, opts)
	opts.Method = partition.Ranges
	ranges := partition.WorkingBytes(g, opts)
	if !(ranges < grow && grow < multilevel) {
		t.Fatalf("working bytes: multilevel %d, grow %d, ranges %d: not lighter in turn", multilevel, grow, ranges)
	}
	e := &Engine{Budget: budget, wholeGraph: true} // (Multilevel; --memory the host's, not the budget)
	res, st, err := e.CountStats(ctx, &engine.Problem{Data: g, Pattern: p, Threads: 2, MemoryLimit: multilevel - 1})
	if err != nil || res.Count != want.Count || st.PartitionMethod != "grow" || st.PartitionWorkBytes != grow || st.Parts < 2 {
		t.Errorf("--memory a byte below multilevel's %d: count %d (cpu %d), partitioner %q (%d bytes), %d parts, err %v",
			multilevel, res.Count, want.Count, st.PartitionMethod, st.PartitionWorkBytes, st.Parts, err)
	}
	_, _, err = (&Engine{Budget: budget, wholeGraph: true}).CountStats(ctx, &engine.Problem{Data: g, Pattern: p, Threads: 2, MemoryLimit: ranges - 1})
	if !errors.Is(err, engine.ErrMemory) || !strings.Contains(err.Error(), "partitioning") {
		t.Errorf("--memory a byte below ranges' %d: err %v", ranges, err)
	}
}

// TestPredictReductionUnderMemory checks that the prediction (describe.go) follows reduce's
// decision under --memory: where making the label-induced subgraph does not fit, it predicts the
// whole graph, and says why. Before, it assumed the reduction whatever --memory said.
func TestPredictReductionUnderMemory(t *testing.T) {
	prob, w, _ := reducedWorkload(t, 12)
	prob.Semantics.Induced = true // (the label-induced subgraph, not the edge kinds')
	if r := predictReduction(w(1 << 30)); !r.ok {
		t.Fatalf("no limit: no reduction predicted")
	}
	s := prob.Data.InducedSize([]uint32{3, 5, 7, 9})
	making := prob.Data.InducedBytes(s)
	for _, c := range []struct {
		limit uint64
		ok    bool
	}{{making, true}, {making - 1, false}} {
		q := *prob
		q.MemoryLimit = c.limit
		wl := w(1 << 30)
		wl.Problem = &q
		r := predictReduction(wl)
		var st Stats
		reduced := (&Engine{}).reduce(&q, &st) != &q
		if r.ok != c.ok || reduced != c.ok || (r.skipped == "") != c.ok || (st.ReduceSkipped == "") != c.ok {
			t.Errorf("--memory %d (the making needs %d): predicted %v (%q), reduce %v (%q)", c.limit, making, r.ok, r.skipped, reduced, st.ReduceSkipped)
		}
	}
}
