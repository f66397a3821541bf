package sgsi

import (
	"context"
	"fmt"
	"testing"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/engine/cpu"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/gpu"
	"github.com/submatch/submatch/internal/cudahost"
	"github.com/submatch/submatch/pattern"
)

// TestGPUPoolBatches runs the task pool (kernels/sgsi.cu, pool) and the whole grid the way only
// large chunks do: a launch's least grid capped at 2 blocks (runner.gridCap) and a pool block
// given up to 1,024 rows (runner.poolRows), so that each pool block takes hundreds of rows in up
// to four batches of POOL (256) rows, its shared slots reused from batch to batch, each batch
// numbered by a block-wide scan over the block's 8 warps (warpScan's shuffles, which the host
// build of the kernels, one-lane warps, never runs); and every row longer than W1 spreads over
// both blocks' 512 threads. TestGPUBalance's small cases give the pool about a row per block.
// The counts, of patterns whose tables go through Link too, must equal the cpu engine's. It
// skips without a GPU; TestPoolBatches runs the same schedule on HostBackend and, on a smaller
// graph, with the kernels built for the host.
func TestGPUPoolBatches(t *testing.T) {
	ctx := context.Background()
	if devs, err := gpu.Open(ctx); err != nil || len(devs) == 0 {
		t.Skipf("no GPU: %v", err)
	}
	poolBatches(t, 11, func(words uint64) Backend {
		be, err := newGPUBackend(ctx, &engine.Problem{GPUMemoryLimit: 4 * words}, Options{}, &Stats{})
		if err != nil {
			t.Fatal(err)
		}
		return be
	})
}

// TestPoolBatches is TestGPUPoolBatches on HostBackend (the schedule's side: the rows dealt,
// every layer holding rows, the counts), and on a smaller graph with the kernels built for the
// host (their one-thread blocks: a pool block's batches in turn).
func TestPoolBatches(t *testing.T) {
	poolBatches(t, 11, func(words uint64) Backend { return NewHostBackend(words) })
	bin := cudahost.Build(t, "sgsi", kernelSource, cudahostMain)
	poolBatches(t, 9, func(words uint64) Backend { return &cudaBackend{HostBackend: NewHostBackend(words), t: t, bin: bin} })
}

// poolBatches counts patterns on an R-MAT graph of the scale with every layer holding rows and
// the pool's blocks taking several batches, on backend's regions, against the cpu engine.
func poolBatches(t *testing.T, scale int, backend func(words uint64) Backend) {
	ctx := context.Background()
	g, err := gen.RMAT(gen.RMATOptions{Scale: scale, EdgeFactor: 8, VertexLabels: 3, Seed: 9})
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
				r := &runner{ctx: ctx, be: be, st: &Stats{}, s: newStore(g, 0), q: compileQuery(p), count: true,
					blockRows: uint32(th.W2), blockSize: blockThreads, layers: th, gridCap: 2, poolRows: 4 * poolRows}
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
