package sgsi

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/internal/cudahost"
	"github.com/submatch/submatch/internal/oracle"
	"github.com/submatch/submatch/internal/proptest"
	"github.com/submatch/submatch/internal/testenv"
	"github.com/submatch/submatch/pattern"
)

// cudahostMain runs one kernel of kernels/sgsi.cu, compiled as C++ by package cudahost, on a
// region read from the input, with one thread per block, and writes the region back. A join
// kernel's grid and G come from cudaBackend.layout: one block per row and G = 1 for the warp and
// block layers, a few blocks for the task pool (G = 0) and for the whole-grid layer (G = the grid).
const cudahostMain = `
// LaunchAt is Launch on one-thread blocks, the stop flag raised before block AT (past the grid:
// never; 0: raised all along, as after a stop).
#define LaunchAt(G, AT, KERNEL, ...) do { gridDim.x = (G); blockDim.x = 1; threadIdx.x = 0; \
    for (unsigned _b = 0; _b < (G); ++_b) { if (_b == (AT)) stopw = 1; blockIdx.x = _b; KERNEL(__VA_ARGS__); } } while (0)
int main() {
    auto a = Read<uint64_t>();
    auto mem = Read<uint32_t>();
    u32* m = mem.data();
    u32 stopw = 0; u64 ctl[2] = {0, 0}; // the kernels' stop flag and polling words
    switch (a[0]) {
    case 0: Launch(a[1], 1, sgsi_filter, m + a[2], m + a[3], a[4], a[5], m + a[6], m + a[7], a[8], m + a[9], a[10]); break;
    case 1: LaunchAt(a[1], a[20], sgsi_first, m + a[2], a[3], m + a[4], m + a[5], a[6], a[19], a[7], m + a[8], m + a[9], a[10], a[11], a[12], a[13], a[14], a[15], m + a[16], m + a[17], m + a[18], &stopw, ctl); break;
    case 2: LaunchAt(a[1], a[19], sgsi_intersect, m + a[2], a[3], m + a[4], m + a[5], a[6], a[18], a[7], m + a[8], m + a[9], a[10], a[11], a[12], a[13], a[14], a[15], a[16], m + a[17], &stopw, ctl); break;
    case 3: LaunchAt(a[1], a[10], sgsi_count, m + a[2], m + a[3], a[4], a[9], m + a[5], m + a[6], a[7], (u64*)(m + a[8]), &stopw, ctl); break;
    case 5: LaunchAt(a[1], a[18], sgsi_last, m, m + a[2], a[3], a[4], 1, m + a[5], a[6], m + a[7], m + a[8], m + a[9], a[10], a[11], m + a[12], m + a[13], a[14], a[15], a[16], (u64*)(m + a[17]), &stopw, ctl); break;
    case 4: LaunchAt(a[1], a[13], sgsi_link, m + a[2], a[3], m + a[4], m + a[5], a[6], a[12], m + a[7], m + a[8], a[9], a[10], m + a[11], &stopw, ctl); break;
    }
    fwrite(m, 4, mem.size(), stdout);
    return 0;
}
`

// cudaBackend is HostBackend with every kernel run by the C++ build of kernels/sgsi.cu: the
// schedule then checks the CUDA kernels' logic (not their parallel behaviour) on the host.
type cudaBackend struct {
	*HostBackend
	t   *testing.T
	bin string
	// cutAt, when set, is the block before which the next join kernel's launch raises the stop
	// flag (stopAt; then cleared).
	cutAt *uint64
}

// stopAt is the block before which a launch of blocks raises the stop flag: 0 when the backend's
// flag is raised (it stays raised for the kernels after a stop, as the device's polling words
// do), else the test's cut (cutAt), else never. A stop within the grid is recorded in left.
func (c *cudaBackend) stopAt(blocks uint64) uint64 {
	at := uint64(invalid)
	switch {
	case c.stop.Load() != 0:
		at = 0
	case c.cutAt != nil:
		at, c.cutAt = *c.cutAt, nil
	}
	c.left = c.left || at < blocks
	return at
}

func (c *cudaBackend) launch(args ...uint64) {
	var in cudahost.Input
	cudahost.Put(&in, args)
	cudahost.Put(&in, c.mem)
	out := cudahost.Run(c.t, c.bin, &in)
	if len(out) != 4*len(c.mem) {
		c.t.Fatalf("kernel %d: %d bytes back for a region of %d words", args[0], len(out), len(c.mem))
	}
	binary.Read(bytes.NewReader(out), binary.LittleEndian, c.mem)
}

func (c *cudaBackend) Filter(a filterArgs) error {
	c.launch(0, uint64(max(a.N, 1)), a.Sigs, a.Labels, uint64(a.N), uint64(a.Base), a.QSigs, a.QLab, uint64(a.NQ), a.Bits, uint64(a.Words))
	return nil
}

// layout is a join kernel's grid and G on the host's one-thread blocks: a warp or a block per
// row is one thread per row (G = 1); the task pool (G = 0) and the whole grid per row (G: the
// grid's threads) keep the runner's grid.
func layout(a joinArgs) (blocks, G uint64) {
	switch {
	case a.Grid > 0 && a.Group == 0:
		return uint64(a.Grid), 0
	case a.Grid > 0:
		return uint64(a.Grid), uint64(a.Grid)
	}
	return uint64(max(a.NIdx, 1)), 1
}

func (c *cudaBackend) First(a joinArgs) error {
	blocks, G := layout(a)
	c.launch(1, blocks, a.Rows, uint64(a.Width), a.F, a.Idx, uint64(a.NIdx), uint64(a.Col), a.SegOff, a.SegNbr,
		uint64(a.Lo), uint64(a.Hi), uint64(a.NRef), uint64(a.Head), uint64(a.WinLo), uint64(a.WinHi), a.Bits, a.Desc, a.GBA, G, c.stopAt(blocks))
	return nil
}

func (c *cudaBackend) Intersect(a joinArgs) error {
	blocks, G := layout(a)
	c.launch(2, blocks, a.Rows, uint64(a.Width), a.F, a.Idx, uint64(a.NIdx), uint64(a.Col), a.SegOff, a.SegNbr,
		uint64(a.Lo), uint64(a.Hi), uint64(a.NRef), uint64(a.Head), uint64(a.Prev), uint64(a.Tail), uint64(a.Negate), a.GBA, G, c.stopAt(blocks))
	return nil
}

func (c *cudaBackend) Count(a joinArgs) error {
	blocks, G := layout(a)
	c.launch(3, blocks, a.F, a.Idx, uint64(a.NIdx), a.GBA, a.Cnt, uint64(a.HasCnt), a.Total, G, c.stopAt(blocks))
	return nil
}

func (c *cudaBackend) Link(a joinArgs) error {
	blocks, G := layout(a)
	c.launch(4, blocks, a.Rows, uint64(a.Width), a.F, a.Idx, uint64(a.NIdx), a.GBA, a.Cnt, uint64(a.A), uint64(a.B), a.Out, G, c.stopAt(blocks))
	return nil
}

func (c *cudaBackend) Last(a lastArgs) error {
	c.lastStopAt(a, uint32(c.stopAt(uint64(max(a.NRows, a.NGen, 1)))))
	return nil
}

// lastStopAt runs sgsi_last on one block per row (or generating vertex) with the stop flag
// raised before block at (invalid: never); it reports whether the flag was raised.
func (c *cudaBackend) lastStopAt(a lastArgs, at uint32) bool {
	grid := max(a.NRows, a.NGen, 1)
	c.launch(5, uint64(grid), a.Rows, uint64(a.Width), uint64(a.NRows), a.Links, uint64(a.NLinks), a.Bits, a.Desc,
		a.Gen, uint64(a.NGen), uint64(a.GenLink), a.Bits1, a.Desc0, uint64(a.RCol), uint64(a.RLo), uint64(a.RHi), a.Total, uint64(at))
	return at < grid
}

// TestCUDAKernelsOnHost runs the schedule with the CUDA kernels built for the host on a few
// oracle cases, in core and at small regions, in every convention; half the seeds join their
// leaves (the kernels' work) rather than count them in the leaf step (the host's).
func TestCUDAKernelsOnHost(t *testing.T) {
	bin := cudahost.Build(t, "sgsi", kernelSource, cudahostMain)
	t0 := time.Now()
	ctx := context.Background()
	seeds, _ := proptest.Seeds(t, 60, 12)
	runs := 0
	var sparse uint64 // gathered uploads with sparse offsets (the kernels' binary search)
	for o := range proptest.WithOracle(seeds, nil) {
		if o.Want > 2000 {
			continue
		}
		for _, words := range []uint64{1 << 14, 700} {
			be := &cudaBackend{HostBackend: NewHostBackend(words), t: t, bin: bin}
			st := &Stats{}
			r := &runner{ctx: ctx, be: be, st: st, s: newStore(o.G, 0), q: compileQuery(o.P), count: true,
				blockRows: 2, blockSize: 1, maxCache: 60, joinLeaves: o.Seed%2 == 0}
			err := r.run(o.Sem.Induced, o.Sem.Unique)
			sparse += st.Sparse
			if err != nil {
				if words < 1<<14 {
					continue
				}
				t.Fatalf("seed %d %s: %v", o.Seed, o.Sem, err)
			}
			runs++
			if r.total != o.Want {
				t.Errorf("CUDA kernels on the host: %d, oracle %d\n%s", r.total, o.Want, o.Describe(o.Sem, "cudahost", "./engine/sgsi -run TestCUDAKernelsOnHost"))
			}
		}
	}
	t.Logf("%d runs in %v", runs, time.Since(t0))
	t0 = time.Now()
	// Hub graphs at a small region: lists cut into parts over segments (the kernels' head, prev
	// and tail) and rows joined in windows (winLo, winHi), connected and disconnected patterns.
	var parts, windows, retries uint64
	for seed := uint64(1); seed <= 2; seed++ {
		g := hubGraph(seed, 90, 1)
		p := gen.RandomPattern(seed, 3, gen.PatternOptions{Components: 1 + int(seed%2), EdgeProb: 0.5, VertexLabels: 2, EdgeLabels: 2, Wildcard: 0.3})
		sems := []engine.Semantics{{}, {}} // the last step with buffers, then direct
		if testenv.Long() {
			sems = append(sems, engine.Semantics{Induced: true, Unique: true})
		}
		for i, sem := range sems {
			want := oracle.Count(g, p, sem)
			be := &cudaBackend{HostBackend: NewHostBackend(210), t: t, bin: bin}
			st := &Stats{}
			r := &runner{ctx: ctx, be: be, st: st, s: newStore(g, 0), q: compileQuery(p), count: true,
				blockRows: 4, blockSize: 1, maxCache: 120, buffered: i == 0}
			if err := r.run(sem.Induced, sem.Unique); err != nil || r.total != want {
				t.Errorf("seed %d %s pattern %v: CUDA kernels on the host %d (%v), oracle %d", seed, sem, p, r.total, err, want)
			}
			parts += st.Parts
			sparse += st.Sparse
			windows += st.Windows
			retries += st.WindowRetries
		}
	}
	t.Logf("hub graphs: %d parts, %d windows (%d joined again in halves) in %v", parts, windows, retries, time.Since(t0))
	if parts == 0 || windows == 0 {
		t.Errorf("the hub graphs cut no list (%d parts) or windowed no row (%d windows)", parts, windows)
	}
	if sparse == 0 {
		t.Errorf("no gathered upload had sparse offsets: the kernels' search for a row's vertex is not run")
	}
	t.Logf("%d gathered uploads with sparse offsets", sparse)
	directOnHost(t, bin)
}

// directOnHost runs the direct count (sgsi_last, rows from a table and generated from edges) with
// the CUDA kernels built for the host on small R-MAT graphs out of core, in several blocks,
// against the oracle.
func directOnHost(t *testing.T, bin string) {
	ctx := context.Background()
	var blocks, generated, fallbacks, pieces uint64
	runs := 0
	for _, gc := range []gen.RMATOptions{{Scale: 6, EdgeFactor: 5, Seed: 3}, {Scale: 6, EdgeFactor: 5, VertexLabels: 2, Seed: 4}} {
		g, err := gen.RMAT(gc)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range directPatterns {
			if strings.Contains(s, "(c)-(d)") && !testenv.Long() {
				continue // many blocks, each a process here: the deep sweep's
			}
			p, err := pattern.Parse(s)
			if err != nil {
				t.Fatal(err)
			}
			for i, sem := range proptest.AllSemantics {
				want := oracle.Count(g, p, sem)
				f := uint64(2 + i%3) // a half to a quarter of the graph
				be := &cudaBackend{HostBackend: NewHostBackend(GraphBytes(g) / 4 / f), t: t, bin: bin}
				st := &Stats{}
				r := &runner{ctx: ctx, be: be, st: st, s: newStore(g, 0), q: compileQuery(p), count: true, blockRows: 8, blockSize: 1}
				err := r.run(sem.Induced, sem.Unique)
				if errors.Is(err, engine.ErrMemory) {
					continue
				}
				runs++
				if err != nil || r.total != want {
					t.Errorf("R-MAT %+v %s %s: CUDA kernels on the host %d (%v), oracle %d", gc, s, sem, r.total, err, want)
				}
				blocks += st.Blocks
				fallbacks += st.BlockFallbacks
				pieces += st.Pieces
				if p.NumVertices() == 3 {
					generated += st.Blocks
				}
			}
		}
	}
	t.Logf("direct count: %d runs, %d blocks (%d of rows generated from edges, %d pieces), %d units the buffered way", runs, blocks, generated, pieces, fallbacks)
	if blocks < uint64(runs) || generated == 0 || pieces <= generated {
		t.Errorf("the direct count ran %d blocks in %d runs, %d of generated rows: sgsi_last is not checked in several blocks", blocks, runs, generated)
	}
}
