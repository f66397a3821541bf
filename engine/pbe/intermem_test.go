package pbe

import (
	"context"
	"errors"
	"testing"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/partition"
	"github.com/submatch/submatch/pattern"
	"github.com/submatch/submatch/plan"
)

// TestInterHostBytes: interHostBytes accounts for every bitset the host inter stage's workers
// make (their counters' held bytes, with the shared forward index), a root bitset a worker on a
// plain graph and a mark a reused position, and none of them on a labelled graph, and the shared
// bit an adjacency entry of inPart where a counted step has one back edge; the stage with
// --memory (beside --gpu-memory) a byte below it fails with ErrMemory and runs at it, a count
// reports it and counts what the CPU engine counts, and --memory as the partition budget is not
// checked against it.
func TestInterHostBytes(t *testing.T) {
	ctx := context.Background()
	plainG, err := gen.RMAT(gen.RMATOptions{Scale: 10, EdgeFactor: 8, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	labelled, err := gen.RMAT(gen.RMATOptions{Scale: 10, EdgeFactor: 8, VertexLabels: 3, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	of := make([]uint32, plainG.NumVertices()) // two parts by id parity: half the edges cut
	for v := range of {
		of[v] = uint32(v & 1)
	}
	cpu, err := engine.Lookup("cpu")
	if err != nil {
		t.Fatal(err)
	}
	const threads = 2
	reusing, counting := false, false
	for _, q := range []string{"(a)-(b)-(c)-(a)", "(a)-(b)-(c)-(d)-(a), (a)-(c)", "(a)-(b)-(c)-(d)-(a), (a)-(c), (b)-(d)",
		"(a)-(b)-(c)-(d)-(e)-(a), (a)-(c), (a)-(d), (b)-(d)", "(a)-(b)-(c)-(a), (c)-(d)"} {
		p, err := pattern.Parse(q)
		if err != nil {
			t.Fatal(err)
		}
		for _, g := range []*engineGraph{{plainG, true}, {labelled, false}} {
			prob := &engine.Problem{Data: g.g, Pattern: p, Threads: threads}
			ip, err := interPlanFor(ctx, prob, true, true)
			if err != nil {
				t.Fatal(err)
			}
			n := g.g.NumVertices()
			workers, _ := interWorkers(n, threads, nil)
			entries := 2 * g.g.NumEdges()
			need := interHostBytes(n, entries, plain(g.g), ip, threads)
			r := uint64(ip.reusedPositions())
			reusing = reusing || r > 0
			want := uint64(workers) * r * plan.BitsetBytes(n)
			if g.plain {
				want += 4*uint64(n) + uint64(workers)*plan.BitsetBytes(n)
			}
			var inPart uint64
			if ip.countsOne() {
				inPart = plan.BitsetBytes(int(entries))
				counting = true
			}
			want += inPart
			if need != want {
				t.Errorf("%s (plain %v): %d bytes accounted, want %d (%d workers, %d reused positions)", q, g.plain, need, want, workers, r)
			}
			is, _ := runInter(ctx, g.g, of, entryBytes(g.g), ip, threads, nil)
			held := is.held + inPart
			if g.plain {
				held += 4 * uint64(n) // the forward index, shared
			}
			if held > need || (g.plain && is.held == 0) {
				t.Errorf("%s (plain %v): the workers held %d bytes, %d accounted", q, g.plain, held, need)
			}
		}
		// The stage with --gpu-memory (the budget) and --memory (the host's): refused a byte
		// below what it accounts for, run at it.
		prob := &engine.Problem{Data: plainG, Pattern: p, Threads: threads, GPUMemoryLimit: partition.GraphBytes(plainG) / 2}
		ip, err := interPlanFor(ctx, prob, true, true)
		if err != nil {
			t.Fatal(err)
		}
		need := interHostBytes(plainG.NumVertices(), 2*plainG.NumEdges(), true, ip, threads)
		e := &Engine{Partitioner: partition.Grow, noShapes: true} // the seeded search (TestInterShapeBytes: the shapes)
		for _, limit := range []uint64{need - 1, need} {
			prob.MemoryLimit = limit
			var st Stats
			is, _, err := e.runInterCount(ctx, prob, of, ip, &st)
			if errors.Is(err, engine.ErrMemory) != (limit < need) || st.InterHostBytes != need || (err == nil && is.nodes == 0) {
				t.Errorf("%s: --memory %d: %v, %d bytes accounted, want %d", q, limit, err, st.InterHostBytes, need)
			}
		}
		// A whole count under both limits counts what the CPU engine counts.
		prob.MemoryLimit = 1 << 30
		want, err := cpu.Count(ctx, prob)
		if err != nil {
			t.Fatal(err)
		}
		if res, st, err := e.CountStats(ctx, prob); err != nil || res.Count != want.Count || st.Parts < 2 || st.InterHostBytes != need {
			t.Errorf("%s: count %d (cpu %d), %d parts, %d bytes accounted, want %d (%v)", q, res.Count, want.Count, st.Parts, st.InterHostBytes, need, err)
		}
		// --memory alone is the partition budget (beside the partitioning and a part's copy,
		// hostmem.go): the stage's buffers get what the partitioning leaves.
		budgetOnly := &engine.Problem{Data: plainG, Pattern: p, Threads: threads, MemoryLimit: 64<<10 + partition.GraphBytes(plainG)}
		if res, _, err := e.CountStats(ctx, budgetOnly); err != nil || res.Count != want.Count {
			t.Errorf("%s: --memory as the budget: count %d (cpu %d), %v", q, res.Count, want.Count, err)
		}
	}
	if !reusing || !counting {
		t.Errorf("reused positions %v, counted steps of one back edge %v: not every bitset was accounted for", reusing, counting)
	}
}

// engineGraph is a data graph and whether it is plain (unlabelled).
type engineGraph struct {
	g     *graph.Graph
	plain bool
}
