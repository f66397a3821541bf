package sgsi

import (
	"context"
	"fmt"
	"testing"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/engine/cpu"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/gpu"
	"github.com/submatch/submatch/pattern"
)

// TestGPUPoolBatches runs the task pool (kernels/sgsi.cu, pool) and the whole grid the way only
// large chunks do: with a launch's least grid capped at 2 blocks (runner.gridCap), the pool's
// grid is ceil(rows/256) blocks, so a chunk's pool blocks each hold up to POOL (256) rows, numbered
// by a block-wide scan over the block's 8 warps (warpScan's shuffles, which the host build of the
// kernels, one-lane warps, never runs), and every row longer than W1 spreads over both blocks'
// 512 threads. TestGPUBalance's small cases give the pool about a row per block (its grid there
// is one block per row up to the device's 1,056). The counts, of patterns whose tables go through
// Link too, must equal the cpu engine's. It skips without a GPU; TestPoolBatches runs the same
// schedule on HostBackend. (A block takes a second batch only past 2^24 pool rows a chunk, where
// the grid's 65,536 blocks cap it: no test reaches that.)
func TestGPUPoolBatches(t *testing.T) {
	ctx := context.Background()
	if devs, err := gpu.Open(ctx); err != nil || len(devs) == 0 {
		t.Skipf("no GPU: %v", err)
	}
	poolBatches(t, func(words uint64) Backend {
		be, err := newGPUBackend(ctx, &engine.Problem{GPUMemoryLimit: 4 * words}, Options{}, &Stats{})
		if err != nil {
			t.Fatal(err)
		}
		return be
	})
}

// TestPoolBatches is TestGPUPoolBatches on HostBackend: the schedule's side (the rows dealt,
// every layer holding rows, the counts).
func TestPoolBatches(t *testing.T) {
	poolBatches(t, func(words uint64) Backend { return NewHostBackend(words) })
}

func poolBatches(t *testing.T, backend func(words uint64) Backend) {
	ctx := context.Background()
	g, err := gen.RMAT(gen.RMATOptions{Scale: 11, EdgeFactor: 8, VertexLabels: 3, Seed: 9})
	if err != nil {
		t.Fatal(err)
	}
	// Rows of 1-24 items in the pool, 25-96 a block each, longer ones over the whole grid.
	th := &Thresholds{W3: 0, W2: 24, W1: 96}
	var layers layerRuns
	for _, q := range []string{"(a)-(b)-(c)-(a)", "(a:0)-(b)-(c:1)-(a)", "(a)-(b)-(c)-(d)-(a)", "(a:1)-(b)-(c)-(a), (c)-(d:2)"} {
		p, err := pattern.Parse(q)
		if err != nil {
			t.Fatal(err)
		}
		for _, sem := range []engine.Semantics{{}, {Unique: true, Induced: true}} {
			want, err := cpu.Engine{}.Count(ctx, &engine.Problem{Data: g, Pattern: p, Semantics: sem})
			if err != nil {
				t.Fatal(err)
			}
			for _, words := range []uint64{1 << 22, 1 << 16} { // in core; chunks of a few thousand rows
				be := backend(words)
				r := &runner{ctx: ctx, be: be, st: &Stats{}, s: newStore(g), q: compileQuery(p), count: true,
					blockRows: uint32(th.W2), blockSize: blockThreads, layers: th, gridCap: 2}
				err := schedule(be, true, func() error { return r.run(sem.Induced, sem.Unique) })
				be.Close()
				layers.add(r.st.Balance)
				if err != nil || r.total != want.Count {
					t.Errorf("%s %s, region %d words, grid capped at 2 blocks: %d (%v), cpu %d", q, sem, words, r.total, err, want.Count)
				}
			}
		}
	}
	layers.check(t, fmt.Sprintf("thresholds %+v", *th))
	if layers[layerPool] < 4*poolRows {
		t.Errorf("the pool took %d rows: too few for full batches", layers[layerPool])
	}
}

// poolRows is kernels/sgsi.cu's POOL: the rows a block's task pool holds at a time.
const poolRows = 256
