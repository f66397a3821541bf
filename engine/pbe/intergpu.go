package pbe

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"
	"unsafe"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/gpu"
	"github.com/submatch/submatch/graph"
)

// InterBackend says where a count's inter-partition stage runs (Engine.InterBackend,
// --pbe-inter). Listing always runs it on the host.
type InterBackend int

const (
	// InterHost is inter.go's depth-first search on Problem.Threads cores (the default).
	InterHost InterBackend = iota
	// InterGPU runs the same programs in kernels/inter.cu on one GPU (the problem's first, else
	// device 0), one thread per seed (several for a heavy seed: interdev.go), reading the graph
	// from device memory when it fits what is left of --gpu-memory, else from pinned host
	// memory mapped into the device (zero-copy). Patterns of more than 16 vertices run on the
	// host.
	InterGPU
)

// String returns host or gpu.
func (b InterBackend) String() string {
	if b == InterGPU {
		return "gpu"
	}
	return "host"
}

// ParseInterBackend reads host or gpu.
func ParseInterBackend(s string) (InterBackend, error) {
	switch s {
	case "host":
		return InterHost, nil
	case "gpu":
		return InterGPU, nil
	}
	return 0, fmt.Errorf("want host or gpu, not %q", s)
}

// InterDeviceStats is what the inter stage did on the GPU (Stats.InterDevice).
type InterDeviceStats struct {
	// Placement is where the kernel read the adjacency (with its edge labels and runs, and the
	// candidate bitsets): device memory when the whole graph fit what was left of the GPU memory
	// limit, else mapped host memory. Vertices is where it read the per-vertex arrays (offsets,
	// labels, run offsets, partition ids): device memory when they fit. Either is host too when
	// the device refused one of its arrays all the same (placeInter).
	Placement, Vertices gpu.Placement
	// DeviceBytes were allocated in device memory (the counters and stop polling's words, and
	// what placeInter put there of the programs, the graph's arrays, the candidate bitsets and
	// the heavy seeds' list), MappedBytes copied into pinned host memory that the kernel reads
	// over the bus.
	DeviceBytes, MappedBytes uint64
	// Launches is the kernel's launches (chunks of seeds), Kernel their time (each waited for),
	// Upload the allocations and copies before them (after the kernel's compile or look-up).
	Launches       int
	Kernel, Upload time.Duration
	// HeavySeeds is the seeds listed to run by several threads each (interdev.go's heavySeeds:
	// some program's third position may have heavyMin candidates or more), HeavyItems the
	// threads' items they make (their slices): both known before the device is opened.
	// HeavyLaunches is the launches over them (in Launches), HeavyList where the kernel read
	// their list (when there is one): device memory when it fit beside the graph, else mapped
	// host memory.
	HeavySeeds, HeavyItems uint64
	HeavyLaunches          int
	HeavyList              gpu.Placement
	// HeavyOver is the heavy seeds found but not split, since their list (heavyBytes a seed)
	// did not fit the problem's MemoryLimit (--memory): every seed then ran with one thread.
	HeavyOver uint64
}

// LogValue implements slog.LogValuer ("host" for nil: the stage ran on the host; heavy_list
// "none" when no seed was listed).
func (d *InterDeviceStats) LogValue() slog.Value {
	if d == nil {
		return slog.StringValue("host")
	}
	list := "none"
	if d.HeavySeeds > 0 {
		list = d.HeavyList.String()
	}
	return slog.GroupValue(slog.String("placement", d.Placement.String()), slog.String("vertices", d.Vertices.String()),
		slog.Uint64("device_bytes", d.DeviceBytes), slog.Uint64("mapped_bytes", d.MappedBytes),
		slog.Int("launches", d.Launches), slog.Duration("kernel", d.Kernel), slog.Duration("upload", d.Upload),
		slog.Uint64("heavy_seeds", d.HeavySeeds), slog.Uint64("heavy_items", d.HeavyItems), slog.Int("heavy_launches", d.HeavyLaunches),
		slog.String("heavy_list", list), slog.Uint64("heavy_over", d.HeavyOver))
}

// interBlock is the kernel's block size; the grid fills the device (every SM's threads).
const interBlock = 128

// gpuInter launches the kernel on one device with the graph placed once.
type gpuInter struct {
	mem      gpu.Allocs
	fn       *gpu.Function
	stop     *gpu.StopFlag
	ctl, out *gpu.Buffer
	args     []any // the kernel's arguments before lo, hi, heavy, slices, heavyMin, out
	grid     uint32
	res      [5]uint64
	list     gpu.DevicePtr // the heavy seeds' entries
	least    uint64        // the kernel's heavyMin (heavyList.least)
	pass     interPass     // what a launch's items are
}

// launch implements interLauncher.
func (k *gpuInter) launch(ctx context.Context, lo, hi uint64) (interCounts, error) {
	if err := k.out.Memset(0); err != nil {
		return interCounts{}, err
	}
	heavy := gpu.DevicePtr(0)
	if k.pass.slices > 0 {
		heavy = k.list + gpu.DevicePtr(8*k.pass.at)
	}
	args := append(k.args[:len(k.args):len(k.args)], lo, hi, heavy, max(k.pass.slices, 1), k.least, k.out)
	err := gpu.LaunchStoppable(ctx, k.stop, k.ctl, k.fn, gpu.Dim3{X: k.grid}, gpu.Dim3{X: interBlock}, args...)
	if cerr := gpu.CopyToHost(k.res[:], k.out, 0); cerr != nil && err == nil {
		err = cerr
	}
	return interCounts{matches: k.res[0], seeds: k.res[1], nodes: k.res[2], bytes: k.res[3], overflow: k.res[4] != 0}, err
}

func (k *gpuInter) close() {
	if k.stop != nil {
		k.stop.Free()
	}
	k.mem.FreeAll()
}

// words64 views s, of 8-byte elements, as uint64 words (graph.Run is two).
func words64[T any](s []T) []uint64 {
	if len(s) == 0 {
		return nil
	}
	n := uintptr(len(s)) * unsafe.Sizeof(s[0]) / 8
	return unsafe.Slice((*uint64)(unsafe.Pointer(&s[0])), n)
}

// graphArrays are the graph's arrays the kernel reads: on a plain graph (one vertex label, no
// edge labels) the offsets and the adjacency alone.
type graphArrays struct {
	offs, runOff, runs, cand []uint64
	nbr, elab, vlab          []uint32
}

// kernelGraph is what the kernel reads of g with dp's candidates, its flags (bit 0: plain, bit 1:
// edge labels) and, plain, the one vertex label (label).
func kernelGraph(g *graph.Graph, dp *devicePlan) (ga graphArrays, flags, label uint32) {
	r := g.Raw()
	ga = graphArrays{offs: r.Offsets, nbr: r.Neighbors, cand: dp.cand}
	if l, ok := plainLabel(g); ok {
		return ga, 1, l
	}
	ga.vlab, ga.runOff, ga.runs = r.VertexLabels, r.RunOffsets, words64(r.Runs)
	if r.EdgeLabels != nil {
		ga.elab, flags = r.EdgeLabels, 2
	}
	return ga, flags, 0
}

// newGPUInter places g, of, dp and the heavy seeds' list for the kernel (placeInter) within p's
// GPU memory limit and compiles the kernel.
func newGPUInter(ctx context.Context, p *engine.Problem, g *graph.Graph, of []uint32, dp *devicePlan, heavy []uint64, ds *InterDeviceStats) (_ *gpuInter, err error) {
	d, err := gpu.OpenFirst(ctx, p.GPUs)
	if err != nil {
		return nil, err
	}
	k := &gpuInter{mem: gpu.Allocs{Device: d, Limit: p.GPUMemoryLimit, Prefix: "pbe: inter stage: "}}
	defer func() {
		if err != nil {
			k.close()
		}
	}()
	mod, err := d.CompileContext(ctx, interKernelSource, interKernelFile, nil)
	if err != nil {
		return nil, fmt.Errorf("pbe: compiling the inter kernel: %w", err)
	}
	if k.fn, err = mod.Function("pbe_inter"); err != nil {
		return nil, fmt.Errorf("pbe: the inter kernel's entry point: %w", err)
	}
	t0 := time.Now()
	ga, flags, pl := kernelGraph(g, dp)
	// The counters and the stop polling's words on the device (the one memory the count cannot
	// do without); the rest where it fits.
	if k.out, err = k.mem.Alloc("counters", 8*uint64(len(k.res))); err != nil {
		return nil, fmt.Errorf("%w: %w", engine.ErrMemory, err)
	}
	if k.ctl, err = k.mem.Alloc("stop polling", 16); err != nil {
		return nil, fmt.Errorf("%w: %w", engine.ErrMemory, err)
	}
	b, err := placeInter(allocsMem{&k.mem}, ga, of, dp, heavy, ds)
	if err != nil {
		return nil, err
	}
	k.list = b.list
	if k.stop, err = d.NewStopFlag(); err != nil {
		return nil, fmt.Errorf("pbe: inter stage: %w", err)
	}
	ds.DeviceBytes, ds.MappedBytes = k.mem.Used(), k.mem.HostUsed()
	ds.Upload = time.Since(t0)
	info := d.Info()
	k.grid = uint32(max(1, info.SMs*max(info.MaxThreadsPerSM, interBlock)/interBlock))
	k.args = []any{b.offs, b.nbr, b.elab, b.vlab, b.runOff, b.runs, b.parts, b.cand, b.prog, dp.nprog,
		uint64(g.NumVertices()), flags, pl, uint32(entryBytes(g))}
	return k, nil
}

// interMem is the memory placeInter uploads into: a *gpu.Allocs on a device (allocsMem); the
// tests model its accounting without one.
type interMem interface {
	// Available is the device memory that may still be allocated (gpu.Allocs.Available).
	Available() uint64
	// upload places w64 (else w32) as gpu.UploadPlaced does: gpu.PlacedBytes of its bytes, an
	// error wrapping gpu.ErrBudget when the device memory is refused.
	upload(place gpu.Placement, what string, w64 []uint64, w32 []uint32) (gpu.DevicePtr, error)
}

// allocsMem is interMem on a device.
type allocsMem struct{ *gpu.Allocs }

func (m allocsMem) upload(place gpu.Placement, what string, w64 []uint64, w32 []uint32) (gpu.DevicePtr, error) {
	if w64 != nil {
		return gpu.UploadPlaced(m.Allocs, place, what, w64)
	}
	return gpu.UploadPlaced(m.Allocs, place, what, w32)
}

// interBuffers are the kernel's read-only arrays, as placeInter placed them (list 0: none).
type interBuffers struct {
	offs, nbr, elab, vlab, runOff, runs, parts, cand, prog, list gpu.DevicePtr
}

// interUpload is one array of placeInter's.
type interUpload struct {
	dst  *gpu.DevicePtr
	what string
	w64  []uint64
	w32  []uint32
}

// placedBytes is what us take on the device (gpu.PlacedBytes each: an empty array is 8 bytes).
func placedBytes(us []interUpload) uint64 {
	var n uint64
	for _, u := range us {
		n += gpu.PlacedBytes(8*uint64(len(u.w64)) + 4*uint64(len(u.w32)))
	}
	return n
}

// placeInter uploads into m what the kernel reads: the programs on the device when they fit
// what m has Available; the per-vertex arrays (offsets, labels, run offsets, partition ids:
// every seed's owner is found by binary search in the offsets) when they fit, and the adjacency
// (with its edge labels, runs and the candidate bitsets) too when everything fits, else in mapped
// host memory; then the heavy seeds' list (none: nothing placed) on the device when it fits
// beside them, else in mapped host memory. Each array is weighed at what UploadPlaced takes
// (gpu.PlacedBytes), and one that the device refuses for lack of memory all the same (its
// budget is shared with other work on the device) goes to mapped host memory: a count runs
// under any --gpu-memory that holds its counters. ds gets the placements as made (Placement,
// Vertices: host when any of their arrays is there).
func placeInter(m interMem, ga graphArrays, of []uint32, dp *devicePlan, heavy []uint64, ds *InterDeviceStats) (b interBuffers, err error) {
	prog := []interUpload{{&b.prog, "programs", nil, dp.prog}}
	vertex := []interUpload{{&b.offs, "offsets", ga.offs, nil}, {&b.vlab, "vertex labels", nil, ga.vlab},
		{&b.runOff, "run offsets", ga.runOff, nil}, {&b.parts, "partition ids", nil, of}}
	adj := []interUpload{{&b.nbr, "adjacency", nil, ga.nbr}, {&b.elab, "edge labels", nil, ga.elab},
		{&b.runs, "runs", ga.runs, nil}, {&b.cand, "candidates", ga.cand, nil}}
	if _, err = uploadAll(m, fitsOn(m, placedBytes(prog)), prog); err != nil {
		return b, err
	}
	avail := m.Available()
	vp, ap := fitsOn(m, placedBytes(vertex)), gpu.OnDevice
	if placedBytes(vertex)+placedBytes(adj) > avail {
		ap = gpu.OnHost
	}
	if ds.Vertices, err = uploadAll(m, vp, vertex); err != nil {
		return b, err
	}
	if ds.Placement, err = uploadAll(m, ap, adj); err != nil {
		return b, err
	}
	if len(heavy) > 0 {
		list := []interUpload{{&b.list, "heavy seeds", heavy, nil}}
		if ds.HeavyList, err = uploadAll(m, fitsOn(m, placedBytes(list)), list); err != nil {
			return b, err
		}
	}
	return b, nil
}

// fitsOn is the device when bytes fit what m has Available, else mapped host memory.
func fitsOn(m interMem, bytes uint64) gpu.Placement {
	if bytes > m.Available() {
		return gpu.OnHost
	}
	return gpu.OnDevice
}

// uploadAll uploads us into m as place says, an array the device refuses for lack of memory
// (gpu.ErrBudget) into mapped host memory instead; it returns OnHost when any went there.
func uploadAll(m interMem, place gpu.Placement, us []interUpload) (gpu.Placement, error) {
	got := place
	for _, u := range us {
		p, err := m.upload(place, u.what, u.w64, u.w32)
		if place == gpu.OnDevice && errors.Is(err, gpu.ErrBudget) {
			got = gpu.OnHost
			p, err = m.upload(gpu.OnHost, u.what, u.w64, u.w32)
		}
		if err != nil {
			return got, err
		}
		*u.dst = p
	}
	return got, nil
}

// runInterGPU runs the inter stage's count on the GPU: ip's programs over every cut edge of g
// (partition ids of), within p's GPU memory limit. errTooDeep (wrapped) when the pattern is
// deeper than the kernel's stack; a cancelled run returns ctx's error with partial counters.
func runInterGPU(ctx context.Context, p *engine.Problem, g *graph.Graph, of []uint32, ip *interPlan, ds *InterDeviceStats) (interStats, error) {
	dp, err := flattenInter(ip)
	if err != nil {
		return interStats{}, err
	}
	if g.NumVertices() == 0 || g.NumEdges() == 0 {
		return interStats{}, nil
	}
	r := g.Raw()
	h := heavySeeds(r.Offsets, r.Neighbors, of, dp, heavyMin, heavyGrain, p.MemoryLimit)
	passes := interPasses(2*g.NumEdges(), h.classes)
	ds.HeavySeeds, ds.HeavyOver = uint64(len(h.entries)), h.over
	for _, ps := range passes[:len(passes)-1] { // (the last: the entries)
		ds.HeavyItems += ps.items
	}
	k, err := newGPUInter(ctx, p, g, of, dp, h.entries, ds)
	if err != nil {
		return interStats{}, fmt.Errorf("pbe: inter stage on the GPU: %w", err)
	}
	defer k.close()
	k.least = h.least
	var all chunkRun
	for _, k.pass = range passes {
		first := uint64(k.grid) * interBlock // a heavy item a thread
		if k.pass.slices == 0 {
			first *= 4 // entries, most of them light
		}
		c, err := runChunks(ctx, k, k.pass.items, first)
		if k.pass.slices > 0 {
			ds.HeavyLaunches += c.launches
		}
		if merr := all.merge(c); merr != nil {
			err = merr
		}
		if err != nil {
			ds.Launches, ds.Kernel = all.launches, all.kernel
			return all.st, err
		}
	}
	ds.Launches, ds.Kernel = all.launches, all.kernel
	return all.st, nil
}
