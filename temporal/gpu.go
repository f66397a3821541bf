package temporal

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"iter"
	"math/bits"
	"runtime"
	"sync"

	"github.com/submatch/submatch/gpu"
)

// Device says where Count, Matches and Grid run.
type Device int

const (
	// CPU runs on the host's cores (the default).
	CPU Device = iota
	// GPU runs on the first GPU (kernels/temporal.cu); without one the call fails with an error
	// wrapping gpu.ErrNoGPU.
	GPU
	// Auto runs on the GPU when one is usable, else on the CPU (same results).
	Auto
)

// ParseDevice reads "cpu", "gpu" or "auto".
func ParseDevice(s string) (Device, error) {
	switch s {
	case "cpu", "":
		return CPU, nil
	case "gpu":
		return GPU, nil
	case "auto":
		return Auto, nil
	}
	return CPU, fmt.Errorf("device %q: expected cpu, gpu or auto", s)
}

func (d Device) String() string {
	switch d {
	case GPU:
		return "gpu"
	case Auto:
		return "auto"
	}
	return "cpu"
}

//go:embed kernels/temporal.cu
var temporalSource string

// kernelSource returns temporal.cu after package gpu's stop polling, built when first asked for
// (not concatenated at every process start).
var kernelSource = sync.OnceValue(func() string {
	return gpu.StopPollSource + "#line 1 \"temporal.cu\"\n" + temporalSource
})

const kernelFile = "temporal.cu"

func init() { gpu.RegisterKernelFunc(kernelFile, kernelSource) }

// fallBack reports whether a GPU call's error lets Auto run on the CPU instead: no GPU, or not
// enough of its memory (within Options.GPUMemory).
func fallBack(o Options, err error) bool {
	return o.Device == Auto && (errors.Is(err, gpu.ErrNoGPU) || errors.Is(err, gpu.ErrBudget))
}

// devGraph is one GPU call on a graph: the graph's arrays on the device (shared by the calls)
// and the call's own buffers (a).
type devGraph struct {
	d      *gpu.Device
	a      *gpu.Allocs
	nev    uint32
	args   []any // the graph's, as graphOnDevice.args
	blocks uint32
	// stop is raised when the call's context ends (nil where the driver has no mapped host
	// memory); ctl is the kernels' two polling words.
	stop *gpu.StopFlag
	ctl  *gpu.Buffer
}

const gpuBlock = 128

// firstGPU opens the GPUs and returns the first.
func firstGPU(ctx context.Context) (*gpu.Device, error) {
	devs, err := gpu.Open(ctx)
	if err != nil {
		return nil, fmt.Errorf("temporal: %w", err)
	}
	if len(devs) == 0 {
		return nil, fmt.Errorf("temporal: %w", gpu.ErrNoGPU)
	}
	return devs[0], nil
}

// graphOnDevice is a Graph's arrays on one device, uploaded by the first GPU call on the graph
// and freed when the graph is collected.
type graphOnDevice struct {
	d    *gpu.Device
	a    *gpu.Allocs
	args []any // src, dst, time, nev, out_off, out_ev, in_off, in_ev, pair_off, pair_dst, pair_run, pair_ev
}

// openGPU opens the first GPU, compiles the kernels and returns g on it (uploaded once per
// graph and device) with this call's own allocations, all within limit bytes (0: the device's
// budget).
func openGPU(ctx context.Context, g *Graph, limit uint64) (*devGraph, *gpu.Module, error) {
	d, err := firstGPU(ctx)
	if err != nil {
		return nil, nil, err
	}
	mod, err := d.Compile(kernelSource(), kernelFile, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("temporal: compiling the kernels: %w", err)
	}
	if uint64(len(g.Events)) >= 1<<31 {
		return nil, nil, fmt.Errorf("temporal: %d events: the GPU kernels take fewer than 2^31", len(g.Events))
	}
	g.gpuMu.Lock()
	defer g.gpuMu.Unlock()
	if g.gpu == nil || g.gpu.d != d {
		on, err := uploadGraph(d, g, limit)
		if err != nil {
			return nil, nil, err
		}
		g.gpu = on
		runtime.AddCleanup(g, func(on *graphOnDevice) { on.a.FreeAll() }, on)
	}
	n := len(g.Events)
	sms := max(1, d.Info().SMs)
	dg := &devGraph{d: d, a: &gpu.Allocs{Device: d, Prefix: "temporal: "}, nev: uint32(n), args: g.gpu.args,
		blocks: uint32(max(1, min((n+gpuBlock-1)/gpuBlock, sms*16)))}
	if limit > 0 {
		// the graph's arrays (uploaded by this call or an earlier one) count against the limit
		used := g.gpu.a.Used()
		if used >= limit {
			return nil, nil, fmt.Errorf("temporal: the graph takes %s on the GPU, over --gpu-memory %s: %w",
				gpu.FormatBytes(used), gpu.FormatBytes(limit), gpu.ErrBudget)
		}
		dg.a.Limit = limit - used
	}
	if dg.ctl, err = gpu.UploadTo(dg.a, "stop polling", []uint64{0, 0}); err != nil {
		return nil, nil, err
	}
	if dg.stop, err = d.NewStopFlag(); err != nil {
		dg.stop = nil // a cancelled call then waits for the running launch
	}
	return dg, mod, nil
}

// launch runs fn on blocks blocks of gpuBlock threads with args, the stop flag and the polling
// words (gpu.LaunchStoppable), and waits for it. A cancelled ctx raises the flag meanwhile: the
// threads leave their work within about 100 us, and ctx's error is returned (the results are
// partial).
func (dg *devGraph) launch(ctx context.Context, fn *gpu.Function, blocks uint32, args ...any) error {
	err := gpu.LaunchStoppable(ctx, dg.stop, dg.ctl, fn, gpu.Dim3{X: blocks}, gpu.Dim3{X: gpuBlock}, args...)
	if err != nil && ctx.Err() == nil {
		return fmt.Errorf("temporal: %w", err)
	}
	return err
}

// uploadGraph copies g's arrays to d (within limit bytes; 0: none).
func uploadGraph(d *gpu.Device, g *Graph, limit uint64) (*graphOnDevice, error) {
	on := &graphOnDevice{d: d, a: &gpu.Allocs{Device: d, Prefix: "temporal: ", Limit: limit}}
	n := len(g.Events)
	src := make([]uint32, n)
	dst := make([]uint32, n)
	tm := make([]int64, n)
	for i, e := range g.Events {
		src[i], dst[i], tm[i] = e.Src, e.Dst, e.Time
	}
	up32 := func(what string, s []uint32) error {
		if len(s) == 0 {
			s = []uint32{0} // a valid pointer for empty arrays
		}
		b, err := gpu.UploadTo(on.a, what, s)
		on.args = append(on.args, b)
		return err
	}
	fail := func(err error) (*graphOnDevice, error) {
		on.a.FreeAll()
		return nil, err
	}
	if err := up32("sources", src); err != nil {
		return fail(err)
	}
	if err := up32("targets", dst); err != nil {
		return fail(err)
	}
	tb, err := gpu.UploadTo(on.a, "times", append(tm, 0))
	if err != nil {
		return fail(err)
	}
	on.args = append(on.args, tb, uint32(n))
	for _, x := range []struct {
		what string
		s    []uint32
	}{{"out offsets", g.outOff}, {"out events", g.outEv}, {"in offsets", g.inOff}, {"in events", g.inEv},
		{"pair offsets", g.pairOff}, {"pair targets", g.pairDst}, {"pair runs", g.pairRun}, {"pair events", g.pairEv}} {
		if err := up32(x.what, x.s); err != nil {
			return fail(err)
		}
	}
	return on, nil
}

func (dg *devGraph) free() {
	if dg.stop != nil {
		dg.stop.Free()
	}
	dg.a.FreeAll()
}

// flagError turns the kernels' flags word into an error.
func flagError(f uint32) error {
	switch {
	case f&2 != 0:
		return fmt.Errorf("temporal: GPU grid kernel met a sequence outside the 36 motifs: a bug")
	case f&1 != 0:
		return ErrOverflow
	}
	return nil
}

// rootBatch is the most first events one counting launch takes (cancellation is checked between
// launches).
const rootBatch = 1 << 18

// countGPU is Count on the GPU.
func countGPU(ctx context.Context, g *Graph, p *Pattern, o Options) (uint64, error) {
	dg, mod, err := openGPU(ctx, g, o.GPUMemory)
	if err != nil {
		return 0, err
	}
	defer dg.free()
	fn, err := mod.Function("temporal_match")
	if err != nil {
		return 0, err
	}
	mb, err := dg.matchBuffers(p)
	if err != nil {
		return 0, err
	}
	for lo := uint32(0); lo < dg.nev; lo += rootBatch {
		hi := min(dg.nev, lo+rootBatch)
		blocks := uint32(max(1, min(int(hi-lo+gpuBlock-1)/gpuBlock, int(dg.blocks))))
		if err := dg.launchMatch(ctx, fn, blocks, mb, p, o, lo, hi, 0, nil, nil, nil, 0, 0); err != nil {
			if ctx.Err() != nil {
				n, _ := dg.readCount(mb) // partial: the matches of the roots done
				return n, err
			}
			return 0, err
		}
	}
	return dg.readCount(mb)
}

// matchBuffers is one buffer holding a call's count (word 0), flags (word 1) and pattern
// (from word 2, int32 pairs): one allocation, one upload and one copy back.
type matchBuffers struct{ b *gpu.Buffer }

func (m matchBuffers) total() gpu.DevicePtr { return m.b.Ptr() }
func (m matchBuffers) flags() gpu.DevicePtr { return m.b.Ptr() + 8 }
func (m matchBuffers) pat() gpu.DevicePtr   { return m.b.Ptr() + 16 }

func (dg *devGraph) matchBuffers(p *Pattern) (matchBuffers, error) {
	words := make([]uint64, 2+len(p.Edges))
	for i, e := range p.Edges {
		words[2+i] = uint64(uint32(e[0])) | uint64(uint32(e[1]))<<32 // little-endian int32 pairs
	}
	b, err := gpu.UploadTo(dg.a, "count, flags and pattern", words)
	return matchBuffers{b}, err
}

func (dg *devGraph) readCount(m matchBuffers) (uint64, error) {
	var w [2]uint64
	if err := gpu.CopyToHost(w[:], m.b, 0); err != nil {
		return 0, err
	}
	if err := flagError(uint32(w[1])); err != nil {
		return 0, err
	}
	return w[0], nil
}

// launchMatch runs temporal_match on roots [lo, hi) in the given mode (2: the matches numbered
// skip to skip + limit - 1) and waits for it.
func (dg *devGraph) launchMatch(ctx context.Context, fn *gpu.Function, blocks uint32, mb matchBuffers, p *Pattern, o Options, lo, hi uint32, mode int32,
	perRoot, offs, out *gpu.Buffer, skip, limit uint64) error {
	strict := int32(0)
	if o.Strict {
		strict = 1
	}
	null := gpu.DevicePtr(0)
	ptr := func(b *gpu.Buffer) any {
		if b == nil {
			return null
		}
		return b
	}
	args := append(append([]any{}, dg.args...), mb.pat(), int32(len(p.Edges)), int32(p.K()), o.Delta, strict,
		lo, hi, mode, mb.total(), mb.flags(), ptr(perRoot), ptr(offs), ptr(out), skip, limit)
	return dg.launch(ctx, fn, blocks, args...)
}

// listBytes bounds the matches one listing launch writes (less when --gpu-memory leaves less; a
// variable for the tests).
var listBytes uint64 = 64 << 20

// matchesGPU is Matches on the GPU: per batch of first events, one launch counts each one's
// matches, then launches write them (in the CPU's order) in slices of at most listBytes; a first
// event with more matches than that is listed in several launches, each enumerating its matches
// again up to the end of its window. With fallBack (Auto) a GPU that fails before the first
// match (no GPU, too little memory) hands the listing to cpu.
func matchesGPU(ctx context.Context, g *Graph, p *Pattern, o Options, cpu func(yield func([]uint32, error) bool)) iter.Seq2[[]uint32, error] {
	return func(yield func([]uint32, error) bool) {
		yielded := false
		y := func(sel []uint32, err error) bool {
			yielded = true
			return yield(sel, err)
		}
		dg, mod, err := openGPU(ctx, g, o.GPUMemory)
		if err == nil {
			err = dg.list(ctx, mod, p, o, y)
			dg.free()
		}
		switch {
		case err == nil || errors.Is(err, errStop):
		case !yielded && cpu != nil && fallBack(o, err):
			cpu(yield)
		default:
			yield(nil, err)
		}
	}
}

var errStop = errors.New("stopped by the consumer")

func (dg *devGraph) list(ctx context.Context, mod *gpu.Module, p *Pattern, o Options, yield func([]uint32, error) bool) error {
	fn, err := mod.Function("temporal_match")
	if err != nil {
		return err
	}
	mb, err := dg.matchBuffers(p)
	if err != nil {
		return err
	}
	m := uint64(len(p.Edges))
	batch := uint32(rootBatch)
	perRoot, err := dg.a.Alloc("per-root counts", uint64(batch)*8)
	if err != nil {
		return err
	}
	// the rows one launch writes, and the first events it takes: listBytes of rows, or fewer
	// when the limit leaves less room for the rows and the first events' offsets; at least one
	capRows := max(1, min(listBytes/(m*4), dg.a.Available()/(m*4+8)))
	counts := make([]uint64, batch)
	sel := make([]uint32, m)
	for lo := uint32(0); lo < dg.nev; lo += batch {
		hi := min(dg.nev, lo+batch)
		blocks := uint32(max(1, min(int(hi-lo+gpuBlock-1)/gpuBlock, int(dg.blocks))))
		if err := dg.launchMatch(ctx, fn, blocks, mb, p, o, lo, hi, 1, perRoot, nil, nil, 0, 0); err != nil {
			return err
		}
		c := counts[:hi-lo]
		if err := gpu.CopyToHost(c, perRoot, 0); err != nil {
			return err
		}
		// slices [a, b) of at most capRows roots whose matches fit in capRows (a root alone may
		// have more: it is listed in windows of capRows)
		for a := uint32(0); a < hi-lo; {
			var offs []uint64
			var rows uint64
			b := a
			for b < hi-lo && (b == a || rows+c[b] <= capRows && uint64(b-a) < capRows) {
				offs = append(offs, rows)
				var carry uint64
				rows, carry = bits.Add64(rows, c[b], 0)
				if carry != 0 || rows > (1<<62)/max(m, 1) {
					return ErrOverflow
				}
				b++
			}
			for skip := uint64(0); skip < rows; skip += capRows {
				if err := dg.listSlice(ctx, fn, mb, p, o, lo+a, lo+b, offs, skip, min(capRows, rows-skip), sel, yield); err != nil {
					return err
				}
			}
			a = b
		}
	}
	_, err = dg.readCount(mb) // the flags: overflow of a first event's count
	return err
}

// listSlice lists the matches numbered skip to skip + rows - 1 of the roots [lo, hi) (offs: the
// number of each one's first match).
func (dg *devGraph) listSlice(ctx context.Context, fn *gpu.Function, mb matchBuffers, p *Pattern, o Options, lo, hi uint32,
	offs []uint64, skip, rows uint64, sel []uint32, yield func([]uint32, error) bool) error {
	m := uint64(len(p.Edges))
	ob, err := gpu.UploadTo(dg.a, "list offsets", offs)
	if err != nil {
		return err
	}
	defer dg.a.Release(ob)
	out, err := dg.a.Alloc("matches", rows*m*4)
	if err != nil {
		return err
	}
	defer dg.a.Release(out)
	blocks := uint32(max(1, min(int(hi-lo+gpuBlock-1)/gpuBlock, int(dg.blocks))))
	if err := dg.launchMatch(ctx, fn, blocks, mb, p, o, lo, hi, 2, nil, ob, out, skip, rows); err != nil {
		return err
	}
	host := make([]uint32, rows*m)
	if err := gpu.CopyToHost(host, out, 0); err != nil {
		return err
	}
	for r := uint64(0); r < rows; r++ {
		copy(sel, host[r*m:(r+1)*m])
		if !yield(sel, nil) {
			return errStop
		}
	}
	return nil
}

// gridGPU is Grid on the GPU (ties in input order; with Strict, each motif by countGPU).
func gridGPU(ctx context.Context, g *Graph, o Options) ([6][6]uint64, error) {
	var out [6][6]uint64
	if o.Strict {
		for i := range 6 {
			for j := range 6 {
				p, _ := Parse(GridMotifs[i][j])
				c, err := countGPU(ctx, g, p, o)
				if err != nil {
					return out, err
				}
				out[i][j] = c
			}
		}
		return out, nil
	}
	dg, mod, err := openGPU(ctx, g, o.GPUMemory)
	if err != nil {
		return out, err
	}
	defer dg.free()
	fn, err := mod.Function("temporal_grid")
	if err != nil {
		return out, err
	}
	cellOf := gridCellTable()
	cb, err := gpu.UploadTo(dg.a, "cell table", cellOf[:])
	if err != nil {
		return out, err
	}
	gb, err := gpu.UploadTo(dg.a, "grid", make([]uint64, 36))
	if err != nil {
		return out, err
	}
	fb, err := gpu.UploadTo(dg.a, "flags", []uint32{0, 0})
	if err != nil {
		return out, err
	}
	args := append(append([]any{}, dg.args...), o.Delta, cb, gb, fb)
	if err := dg.launch(ctx, fn, dg.blocks, args...); err != nil {
		return out, err
	}
	cells := make([]uint64, 36)
	if err := gpu.CopyToHost(cells, gb, 0); err != nil {
		return out, err
	}
	var f [2]uint32
	if err := gpu.CopyToHost(f[:], fb, 0); err != nil {
		return out, err
	}
	if err := flagError(f[0]); err != nil {
		return out, err
	}
	for i := range 6 {
		for j := range 6 {
			out[i][j] = cells[i*6+j]
		}
	}
	return out, ctx.Err()
}

// gridCellTable maps every three-event key (seqKey, base 3, six digits) to its grid cell
// i*6+j, or -1.
func gridCellTable() [729]int8 {
	var t [729]int8
	for k := range t {
		t[k] = -1
	}
	for i := range 6 {
		for j := range 6 {
			p, _ := Parse(GridMotifs[i][j])
			t[seqKey([3][2]int(p.Edges))] = int8(i*6 + j)
		}
	}
	return t
}
