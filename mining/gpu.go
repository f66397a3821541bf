package mining

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/gpu"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/pattern"
	"github.com/submatch/submatch/temporal"
)

// Device says where the census's heavy local counts run (triangles per edge, 4-cycles, 4- and
// 5-cliques): CPU (default), GPU (an error wrapping gpu.ErrNoGPU without one) or Auto (the GPU
// when one is usable, else the CPU). The results are the same. It is package temporal's type.
type Device = temporal.Device

// The devices.
const (
	CPU  = temporal.CPU
	GPU  = temporal.GPU
	Auto = temporal.Auto
)

// ParseDevice reads "cpu", "gpu" or "auto".
func ParseDevice(s string) (Device, error) { return temporal.ParseDevice(s) }

//go:embed kernels/census.cu
var censusSource string

// kernelSource returns census.cu after package gpu's stop polling, built when first asked for (not
// concatenated at every process start).
var kernelSource = sync.OnceValue(func() string {
	return gpu.StopPollSource + "#line 1 \"census.cu\"\n" + censusSource
})

const kernelFile = "census.cu"

func init() { gpu.RegisterKernelFunc(kernelFile, kernelSource) }

// gpuEngine is the GPU matching engine that counts, when the census runs on the GPU, the shapes
// no rule covers (it is used when a program registers it, as the command does).
const gpuEngine = "stmatch"

// engineCount counts p's distinct subgraphs with a matching engine: the GPU engine when onGPU
// and it is registered (the CPU engine when it runs out of memory or finds no GPU), else the
// CPU engine. It returns the engine's name.
func engineCount(ctx context.Context, g *graph.Graph, p *pattern.Pattern, threads int, onGPU bool, log *slog.Logger) (engine.Result, string, error) {
	prob := &engine.Problem{Data: g, Pattern: p, Semantics: engine.Semantics{Unique: true}, Threads: threads, Log: log}
	if onGPU {
		if e, err := engine.Lookup(gpuEngine); err == nil {
			res, err := e.Count(ctx, prob)
			if err == nil || !(errors.Is(err, engine.ErrMemory) || errors.Is(err, gpu.ErrNoGPU)) {
				return res, gpuEngine, err
			}
			log.Debug("census: GPU engine failed; CPU engine instead", "pattern", inline(p), "err", err)
		}
	}
	e, err := engine.Lookup("cpu")
	if err != nil {
		return engine.Result{}, "", err
	}
	res, err := e.Count(ctx, prob)
	return res, "cpu", err
}

// censusGPU holds the ordered graph on one device for one census.
type censusGPU struct {
	d              *gpu.Device
	mod            *gpu.Module
	a              *gpu.Allocs
	off, nbr, up   *gpu.Buffer
	eu, ep         *gpu.Buffer
	nout           uint32
	maxOut         uint64
	warpBlocks     uint32
	flags, sums    *gpu.Buffer
	triangleKernel *gpu.Function
	cliqueKernel   *gpu.Function
	cycleKernel    *gpu.Function
	gemKernel      *gpu.Function
	pairKernel     *gpu.Function
	wheelKernel    *gpu.Function
	cycle5Kernel   *gpu.Function
	labelKernel    *gpu.Function
	// the triangle lists (uploaded by the first phase that needs them)
	te, tof, tl, canon *gpu.Buffer
	// stop is raised when the census is cancelled (nil where the driver has no mapped host
	// memory: a kernel then runs to its end); ctl is the kernels' two polling words.
	stop *gpu.StopFlag
	ctl  *gpu.Buffer
	// auto: a phase refused device memory runs on the CPU instead (Device Auto)
	auto bool
}

const censusBlock = 128

// openCensusGPU opens the first GPU for dev (nil, nil when dev is Auto and there is none, or
// when o does not fit in its memory or within limit, 0: none) and uploads o.
func openCensusGPU(ctx context.Context, o *ordered, dev Device, limit uint64, log *slog.Logger) (*censusGPU, error) {
	c, err := openCensusGPUOn(ctx, o, dev, limit, log)
	if err != nil && dev == Auto && errors.Is(err, gpu.ErrBudget) {
		log.Debug("census: the graph does not fit on the GPU; CPU instead", "err", err)
		return nil, nil
	}
	return c, err
}

func openCensusGPUOn(ctx context.Context, o *ordered, dev Device, limit uint64, log *slog.Logger) (*censusGPU, error) {
	if dev == CPU {
		return nil, nil
	}
	devs, err := gpu.Open(ctx)
	if err == nil && len(devs) == 0 {
		err = gpu.ErrNoGPU
	}
	if err != nil {
		if dev == Auto && errors.Is(err, gpu.ErrNoGPU) {
			return nil, nil
		}
		return nil, fmt.Errorf("census: %w", err)
	}
	if len(o.nbr) >= 1<<32 || o.n >= 1<<31 {
		return nil, fmt.Errorf("census: the GPU kernels take fewer than 2^32 adjacency entries and 2^31 vertices")
	}
	d := devs[0]
	c := &censusGPU{d: d, a: &gpu.Allocs{Device: d, Prefix: "census: ", Limit: limit}, auto: dev == Auto}
	if c.mod, err = d.Compile(kernelSource(), kernelFile, nil); err != nil {
		return nil, fmt.Errorf("census: compiling the kernels: %w", err)
	}
	for _, f := range []struct {
		name string
		fn   **gpu.Function
	}{{"census_triangles", &c.triangleKernel}, {"census_cliques", &c.cliqueKernel}, {"census_cycles", &c.cycleKernel},
		{"census_gem", &c.gemKernel}, {"census_pairs", &c.pairKernel}, {"census_wheels", &c.wheelKernel},
		{"census_cycles5", &c.cycle5Kernel}, {"census_labelled", &c.labelKernel}} {
		if *f.fn, err = c.mod.Function(f.name); err != nil {
			return nil, err
		}
	}
	var eu, ep []uint32
	for u := range o.n {
		c.maxOut = max(c.maxOut, o.off[u+1]-o.up[u])
		for p := o.up[u]; p < o.off[u+1]; p++ {
			eu = append(eu, uint32(u))
			ep = append(ep, uint32(p))
		}
	}
	c.nout = uint32(len(eu))
	nbr := o.nbr
	if len(nbr) == 0 {
		nbr = []uint32{0}
		eu, ep = []uint32{0}, []uint32{0}
	}
	up := append(o.up, 0)
	bufs := []struct {
		b    **gpu.Buffer
		what string
		up   func() (*gpu.Buffer, error)
	}{
		{&c.off, "offsets", func() (*gpu.Buffer, error) { return gpu.UploadTo(c.a, "offsets", o.off) }},
		{&c.nbr, "neighbours", func() (*gpu.Buffer, error) { return gpu.UploadTo(c.a, "neighbours", nbr) }},
		{&c.up, "out starts", func() (*gpu.Buffer, error) { return gpu.UploadTo(c.a, "out starts", up) }},
		{&c.eu, "out-edge sources", func() (*gpu.Buffer, error) { return gpu.UploadTo(c.a, "out-edge sources", eu) }},
		{&c.ep, "out-edge positions", func() (*gpu.Buffer, error) { return gpu.UploadTo(c.a, "out-edge positions", ep) }},
		{&c.flags, "flags", func() (*gpu.Buffer, error) { return gpu.UploadTo(c.a, "flags", []uint32{0, 0}) }},
		{&c.sums, "sums", func() (*gpu.Buffer, error) { return gpu.UploadTo(c.a, "sums", []uint64{0, 0}) }},
		{&c.ctl, "stop polling", func() (*gpu.Buffer, error) { return gpu.UploadTo(c.a, "stop polling", []uint64{0, 0}) }},
	}
	for _, b := range bufs {
		if *b.b, err = b.up(); err != nil {
			c.free()
			return nil, err
		}
	}
	if c.stop, err = d.NewStopFlag(); err != nil {
		log.Debug("census: no stop flag: a cancelled census waits for the running kernel", "err", err)
		c.stop = nil
	}
	sms := max(1, d.Info().SMs)
	c.warpBlocks = uint32(max(1, min((int(c.nout)*32+censusBlock-1)/censusBlock, sms*16)))
	return c, nil
}

func (c *censusGPU) free() {
	if c != nil {
		if c.stop != nil {
			c.stop.Free()
		}
		c.a.FreeAll()
	}
}

// launch runs fn on grid blocks of censusBlock threads with args, the stop flag and the polling
// words (gpu.LaunchStoppable), and waits for it: a cancelled ctx raises the flag meanwhile, and
// the kernel's warps leave their work within about 100 us of it (the error is then ctx's: the
// sums are partial).
func (c *censusGPU) launch(ctx context.Context, fn *gpu.Function, grid uint32, args ...any) error {
	err := gpu.LaunchStoppable(ctx, c.stop, c.ctl, fn, gpu.Dim3{X: grid}, gpu.Dim3{X: censusBlock}, args...)
	if err != nil && ctx.Err() == nil {
		return fmt.Errorf("census: %w", err)
	}
	return err
}

// phase returns the GPU version of a locals phase, or nil.
func (c *censusGPU) phase(l *locals, name string) func(context.Context, int) error {
	if c == nil {
		return nil
	}
	switch name {
	case "triangles":
		return func(ctx context.Context, _ int) error { return c.triangles(ctx, l) }
	case "4-cycles":
		return func(ctx context.Context, _ int) error { return c.cycles(ctx, l) }
	case "cliques":
		return func(ctx context.Context, _ int) error { return c.cliques(ctx, l) }
	case "triangle sums":
		return func(ctx context.Context, _ int) error { return c.gemSums(ctx, l) }
	case "pairs":
		return func(ctx context.Context, _ int) error { return c.pairs(ctx, l) }
	case "5-cycles":
		return func(ctx context.Context, threads int) error { return c.fiveCycles(ctx, l, threads) }
	case "wheels":
		return func(ctx context.Context, _ int) error { return c.wheels(ctx, l) }
	}
	return nil
}

// reset zeroes the sums and flags.
func (c *censusGPU) reset() error {
	if err := c.sums.Memset(0); err != nil {
		return err
	}
	return c.flags.Memset(0)
}

// results reads the two sums, failing on overflow.
func (c *censusGPU) results() ([2]uint64, error) {
	var s [2]uint64
	var f [2]uint32
	if err := gpu.CopyToHost(s[:], c.sums, 0); err != nil {
		return s, err
	}
	if err := gpu.CopyToHost(f[:], c.flags, 0); err != nil {
		return s, err
	}
	if f[0]&1 != 0 {
		return s, ErrOverflow
	}
	return s, nil
}

// zeroed allocates a zeroed device array of n words of size bytes.
func (c *censusGPU) zeroed(what string, n, size uint64) (*gpu.Buffer, error) {
	b, err := c.a.Alloc(what, max(n, 1)*size)
	if err != nil {
		return nil, err
	}
	if err := b.Memset(0); err != nil {
		c.a.Release(b)
		return nil, err
	}
	return b, nil
}

func (c *censusGPU) triangles(ctx context.Context, l *locals) error {
	o := l.o
	te, err := c.zeroed("triangles per edge", uint64(len(o.nbr)), 4)
	if err != nil {
		return err
	}
	defer c.a.Release(te)
	sd, err := c.zeroed("degree sums per edge", uint64(len(o.nbr)), 8)
	if err != nil {
		return err
	}
	defer c.a.Release(sd)
	none := gpu.DevicePtr(0)
	if err := c.launch(ctx, c.triangleKernel, c.warpBlocks,
		c.off, c.nbr, c.up, c.eu, c.ep, c.nout, te, sd, none); err != nil {
		return err
	}
	l.te = make([]uint32, len(o.nbr))
	l.sd = make([]uint64, len(o.nbr))
	if len(o.nbr) > 0 {
		if err := gpu.CopyToHost(l.te, te, 0); err != nil {
			return err
		}
		if err := gpu.CopyToHost(l.sd, sd, 0); err != nil {
			return err
		}
	}
	l.finishTriangles()
	if l.vertex && l.k >= 4 {
		// the per-vertex diamond tips, from the same triangles (te complete now)
		tips, err := c.zeroed("diamond tips", uint64(o.n), 8)
		if err != nil {
			return err
		}
		defer c.a.Release(tips)
		if err := c.launch(ctx, c.triangleKernel, c.warpBlocks,
			c.off, c.nbr, c.up, c.eu, c.ep, c.nout, te, sd, tips); err != nil {
			return err
		}
		l.tips = make([]uint64, o.n)
		if o.n > 0 {
			if err := gpu.CopyToHost(l.tips, tips, 0); err != nil {
				return err
			}
		}
	}
	return ctx.Err()
}

func (c *censusGPU) cliques(ctx context.Context, l *locals) error {
	o := l.o
	perVertex := l.k >= 5 || l.vertex
	five := int32(0)
	if l.k >= 5 {
		five = 1
	}
	pv := int32(0)
	if perVertex {
		pv = 1
	}
	if err := c.reset(); err != nil {
		return err
	}
	k4v, err := c.zeroed("4-cliques per vertex", uint64(o.n), 8)
	if err != nil {
		return err
	}
	defer c.a.Release(k4v)
	// Each warp's scratch holds two lists of the longest out-list: the warps walk the edges
	// grid-stride, so under a tight --gpu-memory fewer blocks launch rather than none.
	words := max(c.maxOut, 1)
	perBlock := uint64(censusBlock/32) * 2 * words * 4
	blocks := uint32(max(1, min(uint64(c.warpBlocks), c.a.Available()/perBlock)))
	scratch, err := c.a.Alloc("clique scratch", uint64(blocks)*perBlock)
	if err != nil {
		return err
	}
	defer c.a.Release(scratch)
	if err := c.launch(ctx, c.cliqueKernel, blocks,
		c.off, c.nbr, c.up, c.eu, c.ep, c.nout, five, pv, scratch, words, k4v, c.sums, c.flags); err != nil {
		return err
	}
	s, err := c.results()
	if err != nil {
		return err
	}
	l.k4, l.k5 = s[0], s[1]
	if perVertex {
		l.k4v = make([]uint64, o.n)
		if o.n > 0 {
			if err := gpu.CopyToHost(l.k4v, k4v, 0); err != nil {
				return err
			}
		}
	}
	return ctx.Err()
}

func (c *censusGPU) cycles(ctx context.Context, l *locals) error {
	o := l.o
	perVertex := l.k >= 5 || l.vertex
	pv := int32(0)
	if perVertex {
		pv = 1
	}
	if err := c.reset(); err != nil {
		return err
	}
	bt, err := c.blockTallies(uint64(o.n), 1)
	if err != nil {
		return err
	}
	defer bt.release(c)
	c4v, err := c.zeroed("4-cycles per vertex", uint64(o.n), 8)
	if err != nil {
		return err
	}
	defer c.a.Release(c4v)
	c4e, err := c.zeroed("4-cycles per edge", uint64(len(o.nbr)), 8)
	if err != nil {
		return err
	}
	defer c.a.Release(c4e)
	if err := c.launch(ctx, c.cycleKernel, bt.blocks,
		c.off, c.nbr, c.up, uint32(o.n), pv, bt.counters, bt.seen, bt.nseen, c4v, c4e, c.sums, c.flags); err != nil {
		return err
	}
	s, err := c.results()
	if err != nil {
		return err
	}
	l.c4 = s[0]
	if perVertex {
		l.c4v = make([]uint64, o.n)
		l.c4e = make([]uint64, len(o.nbr))
		if o.n > 0 {
			if err := gpu.CopyToHost(l.c4v, c4v, 0); err != nil {
				return err
			}
		}
		if len(o.nbr) > 0 {
			if err := gpu.CopyToHost(l.c4e, c4e, 0); err != nil {
				return err
			}
		}
		l.foldEdges(l.c4e)
	}
	return ctx.Err()
}

// tallies are per-block counter arrays (arrays words each per block, zeroed), touched lists and
// their lengths, for the kernels that tally per vertex (a block per vertex).
type tallies struct {
	blocks                uint32
	counters, seen, nseen *gpu.Buffer
}

// blockTallies allocates tallies for as many blocks as fit in a quarter of the memory left, at
// most 8 per SM and n.
func (c *censusGPU) blockTallies(n uint64, arrays uint64) (*tallies, error) {
	n = max(n, 1)
	per := n * 4 * (arrays + 1)
	blocks := min(uint64(max(1, c.d.Info().SMs)*8), n, max(1, c.a.Available()/4/per))
	t := &tallies{blocks: uint32(blocks)}
	var err error
	if t.counters, err = c.zeroed("tally counters", blocks*n*arrays, 4); err != nil {
		return nil, err
	}
	if t.seen, err = c.a.Alloc("tally lists", blocks*n*4); err != nil {
		t.release(c)
		return nil, err
	}
	if t.nseen, err = c.zeroed("tally list lengths", blocks, 4); err != nil {
		t.release(c)
		return nil, err
	}
	return t, nil
}

func (t *tallies) release(c *censusGPU) {
	for _, b := range []*gpu.Buffer{t.counters, t.seen, t.nseen} {
		if b != nil {
			c.a.Release(b)
		}
	}
}

// triangleLists uploads te and the triangle lists (built on the host by then) once.
func (c *censusGPU) triangleLists(l *locals) error {
	if c.tl != nil {
		return nil
	}
	if l.tl == nil || l.canon == nil || l.te == nil {
		return fmt.Errorf("census: the GPU phases need the triangle lists first (a bug)")
	}
	canon := make([]uint32, max(len(l.canon), 1))
	for i, p := range l.canon {
		canon[i] = uint32(p)
	}
	tl, te := l.tl, l.te
	if len(tl) == 0 {
		tl = []uint32{0}
	}
	if len(te) == 0 {
		te = []uint32{0}
	}
	var err error
	fail := func(err error) error {
		// a later phase may try again (or, on Auto, run on the CPU): nothing half-uploaded stays
		for _, b := range []**gpu.Buffer{&c.te, &c.tof, &c.canon, &c.tl} {
			if *b != nil {
				c.a.Release(*b)
				*b = nil
			}
		}
		return err
	}
	if c.te, err = gpu.UploadTo(c.a, "triangles per edge", te); err != nil {
		return fail(err)
	}
	if c.tof, err = gpu.UploadTo(c.a, "triangle list offsets", l.tOff); err != nil {
		return fail(err)
	}
	if c.canon, err = gpu.UploadTo(c.a, "out-positions", canon); err != nil {
		return fail(err)
	}
	if c.tl, err = gpu.UploadTo(c.a, "triangle lists", tl); err != nil {
		return fail(err)
	}
	return nil
}

func (c *censusGPU) gemSums(ctx context.Context, l *locals) error {
	o := l.o
	if err := c.triangleLists(l); err != nil {
		return err
	}
	if err := c.reset(); err != nil {
		return err
	}
	k4e, err := c.zeroed("4-cliques per edge", uint64(len(o.nbr)), 8)
	if err != nil {
		return err
	}
	defer c.a.Release(k4e)
	if err := c.launch(ctx, c.gemKernel, c.warpBlocks,
		c.off, c.nbr, c.up, c.eu, c.ep, c.nout, c.te, c.tof, c.tl, k4e, c.sums, c.flags); err != nil {
		return err
	}
	s, err := c.results()
	if err != nil {
		return err
	}
	l.gem, l.k5e = sum{v: s[0]}, sum{v: s[1]}
	l.k4e = make([]uint64, len(o.nbr))
	if len(o.nbr) > 0 {
		if err := gpu.CopyToHost(l.k4e, k4e, 0); err != nil {
			return err
		}
	}
	return ctx.Err()
}

// tallied runs a kernel of a block per vertex over the triangle lists, with arrays tally arrays a
// block (launch starts it on bt), and returns its two sums.
func (c *censusGPU) tallied(l *locals, arrays uint64, launch func(bt *tallies) error) ([2]uint64, error) {
	if err := c.triangleLists(l); err != nil {
		return [2]uint64{}, err
	}
	if err := c.reset(); err != nil {
		return [2]uint64{}, err
	}
	bt, err := c.blockTallies(uint64(l.o.n), arrays)
	if err != nil {
		return [2]uint64{}, err
	}
	defer bt.release(c)
	if err := launch(bt); err != nil {
		return [2]uint64{}, err
	}
	return c.results()
}

func (c *censusGPU) pairs(ctx context.Context, l *locals) error {
	s, err := c.tallied(l, 2, func(bt *tallies) error {
		return c.launch(ctx, c.pairKernel, bt.blocks,
			c.off, c.nbr, c.up, uint32(l.o.n), c.tof, c.tl, c.canon, bt.counters, bt.seen, bt.nseen, c.sums, c.flags)
	})
	if err != nil {
		return err
	}
	l.k23, l.w4s = s[0], s[1]
	return ctx.Err()
}

func (c *censusGPU) wheels(ctx context.Context, l *locals) error {
	s, err := c.tallied(l, 1, func(bt *tallies) error {
		return c.launch(ctx, c.wheelKernel, bt.blocks,
			c.off, c.nbr, uint32(l.o.n), uint64(len(l.o.nbr)), c.tof, c.tl, c.canon, bt.counters, bt.seen, bt.nseen, c.sums, c.flags)
	})
	if err != nil {
		return err
	}
	l.w4 = s[0]
	return ctx.Err()
}

func (c *censusGPU) fiveCycles(ctx context.Context, l *locals, threads int) error {
	o := l.o
	tmOff, tmax, top := l.fiveCyclePrep(threads)
	if len(tmax) == 0 {
		tmax = []uint32{0}
	}
	if len(top) == 0 {
		top = []uint64{0}
	}
	if err := c.reset(); err != nil {
		return err
	}
	var bufs []*gpu.Buffer
	defer func() {
		for _, b := range bufs {
			c.a.Release(b)
		}
	}()
	tob, err := gpu.UploadTo(c.a, "triangle maxima offsets", tmOff)
	if err != nil {
		return err
	}
	bufs = append(bufs, tob)
	tmb, err := gpu.UploadTo(c.a, "triangle maxima", tmax)
	if err != nil {
		return err
	}
	bufs = append(bufs, tmb)
	topb, err := gpu.UploadTo(c.a, "triangle tops", top)
	if err != nil {
		return err
	}
	bufs = append(bufs, topb)
	bt, err := c.blockTallies(uint64(o.n), 1)
	if err != nil {
		return err
	}
	defer bt.release(c)
	if err := c.launch(ctx, c.cycle5Kernel, bt.blocks,
		c.off, c.nbr, c.up, uint32(o.n), tob, tmb, topb, bt.counters, bt.seen, bt.nseen, c.sums, c.flags); err != nil {
		return err
	}
	s, err := c.results()
	if err != nil {
		return err
	}
	if s[1] > s[0] {
		return fmt.Errorf("census: 5-cycles: negative (%d - %d): a bug", s[0], s[1])
	}
	l.c5 = (s[0] - s[1]) / 2
	return ctx.Err()
}

// labelled runs census_labelled: every connected induced lc.k-vertex subgraph tallied by sorted
// label multiset and adjacency, then added to lc (labelled.go). The tally is dense (an entry per
// label multiset and code) where that takes at most labelledDenseMax entries and fits, a hash
// table of (labels, code) keys otherwise (any number of labels; lc.hashTally).
func (c *censusGPU) labelled(ctx context.Context, g *graph.Graph, o *ordered, lc *labelledCensus, log *slog.Logger) error {
	idx, labels := labelIndex(g, o)
	if len(idx) == 0 {
		idx = []uint32{0}
	}
	lab, err := gpu.UploadTo(c.a, "label indexes", idx)
	if err != nil {
		return err
	}
	defer c.a.Release(lab)
	sms := max(1, c.d.Info().SMs)
	grid := uint32(max(1, min((int(c.nout)+censusBlock-1)/censusBlock, sms*16)))
	none := gpu.DevicePtr(0)
	if size, ok := labelledTableSize(lc.k, len(labels)); ok && size <= labelledDenseMax {
		table, err := c.zeroed("labelled tally", size, 8)
		if err == nil {
			defer c.a.Release(table)
			if err := c.launch(ctx, c.labelKernel, grid, c.off, c.nbr, c.eu, c.ep, c.nout, int32(lc.k), lab, table, size,
				none, uint32(0), uint32(1), none); err != nil {
				return err
			}
			host := make([]uint64, size)
			if err := gpu.CopyToHost(host, table, 0); err != nil {
				return err
			}
			return lc.addTable(host, labels)
		}
		if !errors.Is(err, gpu.ErrBudget) {
			return err
		}
		log.Debug("labelled census: the dense tally does not fit; hash tally", "entries", size)
	}
	var keys, counts, hctl *gpu.Buffer
	release := func() {
		for _, b := range []*gpu.Buffer{keys, counts, hctl} {
			if b != nil {
				c.a.Release(b)
			}
		}
		keys, counts, hctl = nil, nil, nil
	}
	defer release()
	have := uint64(0)
	passes, err := lc.hashTally(labels, labelledHashStart, labelledHashMax, func(capacity uint64, res, mod uint32) ([]uint32, []uint64, bool, error) {
		if capacity != have {
			release()
			have = 0
			var err error
			if keys, err = c.a.Alloc("labelled hash keys", 8*4*capacity); err != nil {
				return nil, nil, false, err
			}
			if counts, err = c.a.Alloc("labelled hash counts", 8*capacity); err != nil {
				return nil, nil, false, err
			}
			if hctl, err = c.a.Alloc("labelled hash control", 8); err != nil {
				return nil, nil, false, err
			}
			have = capacity
		}
		for _, b := range []*gpu.Buffer{keys, counts, hctl} {
			if err := b.Memset(0); err != nil {
				return nil, nil, false, err
			}
		}
		if err := c.launch(ctx, c.labelKernel, grid, c.off, c.nbr, c.eu, c.ep, c.nout, int32(lc.k), lab, counts, capacity,
			keys, res, mod, hctl); err != nil {
			return nil, nil, false, err
		}
		ctl := make([]uint32, 2)
		if err := gpu.CopyToHost(ctl, hctl, 0); err != nil {
			return nil, nil, false, err
		}
		if ctl[1] != 0 {
			return nil, nil, true, nil
		}
		hk := make([]uint32, 8*capacity)
		hc := make([]uint64, capacity)
		if err := gpu.CopyToHost(hk, keys, 0); err != nil {
			return nil, nil, false, err
		}
		if err := gpu.CopyToHost(hc, counts, 0); err != nil {
			return nil, nil, false, err
		}
		return hk, hc, false, nil
	})
	log.Debug("labelled census: hash tally", "labels", len(labels), "passes", passes)
	return err
}

// labelledDenseMax: census_labelled's dense tally up to this many entries (128 MiB; a variable
// so that the tests can send every census through the hash tally), its hash tally beyond,
// starting with labelledHashStart slots (40 MiB).
var labelledDenseMax uint64 = 1 << 24

const labelledHashStart = 1 << 20
