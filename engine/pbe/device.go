package pbe

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"iter"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/gpu"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/partition"
)

// DefaultDeviceEngine is the GPU engine DeviceBackend runs when it names none.
const DefaultDeviceEngine = "stmatch"

// DefaultReserve is the share of the GPU budget a device backend keeps for the device engine's
// own buffers (candidate space, per-warp sets: PBE's θ); the parts are made for the rest.
const DefaultReserve = 0.5

// DeviceBackend runs the intra-partition stage on a GPU: each part's induced subgraph is counted
// by a GPU engine found in the engine registry (engine.Lookup; its Capabilities must say
// engine.GPU). The parts are dealt to the problem's GPUs (Problem.GPUs, else every device), to
// Workers workers on each: every worker counts one part at a time, its problem's GPUs that
// worker's device alone and its GPUMemoryLimit the device's budget shared by the device's
// workers, and takes the largest part left when it is free (deal.go), so the devices finish
// together. The engine allocates and frees its device memory per part. A part the engine refuses
// for memory (engine.ErrMemory) is counted on the host instead, and reported (Stats.HostParts).
type DeviceBackend struct {
	// Engine names the GPU engine ("": DefaultDeviceEngine).
	Engine string
	// Workers is the number of parts counted at once on each GPU (0, 1: one), each within its
	// share of the device's budget (the parts are made for that share: Engine.BudgetFor): one
	// part's host work (its plan, the engine's preparation) and uploads go on while another's
	// kernels run (docs/out-of-core.md).
	Workers int

	mu sync.Mutex
	// what the parts did on every device, reset by CountStats.
	acc map[int]*DeviceStats
}

// DeviceStats is what one GPU did in a count's intra-partition stage (Stats.Devices).
type DeviceStats struct {
	// GPU is the device's index (Problem.GPUs; -1: the problem's GPUs, a single worker).
	GPU int
	// Workers counted its parts, at most that many at once.
	Workers int
	// Parts were counted on the GPU, HostParts on the host (the engine refused them for memory).
	Parts, HostParts int
	// UploadBytes is the parts' CSRs (CSRBytes).
	UploadBytes uint64
	// Upload is the engine's allocations and host-to-device copies, Kernel its kernels, Busy the
	// workers' time in parts summed, Wall from its first part's start to its last one's end:
	// with several workers Busy above Wall, and Upload+Kernel near Wall, is the overlap.
	Upload, Kernel, Busy, Wall time.Duration

	first, last time.Time
}

// LogValue implements slog.LogValuer.
func (d *DeviceStats) LogValue() slog.Value {
	return slog.GroupValue(slog.Int("gpu", d.GPU), slog.Int("workers", d.Workers),
		slog.Int("parts", d.Parts), slog.Int("host_parts", d.HostParts),
		slog.Uint64("upload_bytes", d.UploadBytes), slog.Duration("upload", d.Upload),
		slog.Duration("kernel", d.Kernel), slog.Duration("busy", d.Busy), slog.Duration("wall", d.Wall))
}

// Name implements Backend.
func (b *DeviceBackend) Name() string { return "device:" + b.engineName() }

func (b *DeviceBackend) engineName() string {
	if b.Engine == "" {
		return DefaultDeviceEngine
	}
	return b.Engine
}

func (b *DeviceBackend) workers() int { return max(b.Workers, 1) }

// device returns the GPU engine.
func (b *DeviceBackend) device() (engine.Engine, error) {
	e, err := engine.Lookup(b.engineName())
	if err != nil {
		return nil, fmt.Errorf("pbe: device backend: %w", err)
	}
	if engine.Describe(e).Device != engine.GPU {
		return nil, fmt.Errorf("pbe: device backend: engine %q does not run on a GPU", e.Name())
	}
	return e, nil
}

func (b *DeviceBackend) reset() {
	b.mu.Lock()
	b.acc = nil
	b.mu.Unlock()
}

// take returns what every device did, in the order of their indexes.
func (b *DeviceBackend) take() []DeviceStats {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make([]DeviceStats, 0, len(b.acc))
	for _, d := range b.acc {
		out = append(out, *d)
	}
	slices.SortFunc(out, func(x, y DeviceStats) int { return cmp.Compare(x.GPU, y.GPU) })
	return out
}

// stats returns gpu's record (b.mu held).
func (b *DeviceBackend) stats(gpu int) *DeviceStats {
	if b.acc == nil {
		b.acc = map[int]*DeviceStats{}
	}
	d := b.acc[gpu]
	if d == nil {
		d = &DeviceStats{GPU: gpu, Workers: 1}
		b.acc[gpu] = d
	}
	return d
}

// slots implements dealer: Workers slots on every GPU of p (p.GPUs, else every device gpu.Open
// finds; where it finds none, Workers slots with p's GPUs, for the engine to report why). Each
// slot's limit is its share of p.GPUMemoryLimit, else of the device's budget (only with several
// workers; one worker keeps the engine's default).
func (b *DeviceBackend) slots(ctx context.Context, p *engine.Problem) ([]slot, error) {
	k := b.workers()
	ids := p.GPUs
	var devs []*gpu.Device
	if len(ids) == 0 || (k > 1 && p.GPUMemoryLimit == 0) {
		var err error
		// Without a GPU (no driver, none found) the engine's own count says why, on the
		// first part; only a cancellation stops the count here.
		if devs, err = gpu.Open(ctx); err != nil && ctx.Err() != nil {
			return nil, fmt.Errorf("pbe: %w", err)
		}
		if len(ids) == 0 {
			for i := range devs {
				ids = append(ids, i)
			}
		}
	}
	if len(ids) == 0 { // no device known: the engine will say why
		ids = []int{-1}
	}
	out := make([]slot, 0, k*len(ids))
	b.mu.Lock()
	defer b.mu.Unlock()
	for j, id := range ids {
		if slices.Contains(ids[:j], id) { // a GPU listed twice has Workers workers all the same
			continue
		}
		s := slot{gpus: []int{id}, limit: p.GPUMemoryLimit / uint64(k)}
		if id < 0 {
			s.gpus = p.GPUs
		}
		if s.limit == 0 && k > 1 && id >= 0 && id < len(devs) {
			s.limit = devs[id].Budget().Limit() / uint64(k)
		}
		b.stats(id).Workers = k
		for range k {
			out = append(out, s)
		}
	}
	return out, nil
}

// CSRBytes is what a part's induced subgraph takes as a CSR on the device: 64-bit offsets, the
// vertex labels, the adjacency (and its edge labels): the bytes a part moves to the GPU before
// the engine's own structures.
func CSRBytes(g *graph.Graph) uint64 {
	n := uint64(g.NumVertices())
	return (n+1)*8 + n*4 + 2*g.NumEdges()*entryBytes(g)
}

// CountPart implements Backend.
func (b *DeviceBackend) CountPart(ctx context.Context, sub *engine.Problem) (engine.Result, error) {
	e, err := b.device()
	if err != nil {
		return engine.Result{}, err
	}
	id := -1
	if len(sub.GPUs) == 1 {
		id = sub.GPUs[0]
	}
	t0 := time.Now()
	var upload atomic.Int64
	run := *sub
	run.Log = slog.New(&uploadCapture{next: sub.Logger().Handler(), upload: &upload})
	r, err := e.Count(ctx, &run)
	// A part the GPU engine cannot hold (its search's needs, or the device budget for its own
	// buffers: stmatch's work units, say) is counted on the host instead of failing the count.
	refused := errors.Is(err, engine.ErrMemory) || errors.Is(err, gpu.ErrBudget)
	if refused {
		sub.Logger().Debug("pbe: the device engine refused a part for memory; counting it on the host",
			"gpu", id, "vertices", sub.Data.NumVertices(), "edges", sub.Data.NumEdges(), "err", err)
		r, err = HostBackend{}.CountPart(ctx, sub)
	}
	t1 := time.Now()
	b.mu.Lock()
	defer b.mu.Unlock()
	d := b.stats(id)
	if refused {
		d.HostParts++
	} else {
		d.Parts++
		d.UploadBytes += CSRBytes(sub.Data)
		d.Upload += time.Duration(upload.Load())
		d.Kernel += r.DeviceTime
	}
	d.Busy += t1.Sub(t0)
	if d.first.IsZero() || t0.Before(d.first) {
		d.first = t0
	}
	if t1.After(d.last) {
		d.last = t1
	}
	d.Wall = d.last.Sub(d.first)
	return r, err
}

// MatchesPart implements Backend: the device engine's listing when it lists, else the host's.
func (b *DeviceBackend) MatchesPart(ctx context.Context, sub *engine.Problem) iter.Seq2[[]uint32, error] {
	e, err := b.device()
	if err != nil {
		return func(yield func([]uint32, error) bool) { yield(nil, err) }
	}
	if !engine.Describe(e).Lists {
		return HostBackend{}.MatchesPart(ctx, sub)
	}
	return e.Matches(ctx, sub)
}

// uploadCapture forwards records to next and adds up the "upload" durations of the device
// engine's debug records (stmatch logs its allocation and host-to-device copies so), which the
// engine interface does not report.
type uploadCapture struct {
	next   slog.Handler
	upload *atomic.Int64 // nanoseconds
}

func (h *uploadCapture) Enabled(context.Context, slog.Level) bool { return true }

func (h *uploadCapture) Handle(ctx context.Context, r slog.Record) error {
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "upload" && a.Value.Kind() == slog.KindDuration {
			h.upload.Add(int64(a.Value.Duration()))
		}
		return true
	})
	if h.next.Enabled(ctx, r.Level) {
		return h.next.Handle(ctx, r)
	}
	return nil
}

func (h *uploadCapture) WithAttrs(as []slog.Attr) slog.Handler {
	return &uploadCapture{next: h.next.WithAttrs(as), upload: h.upload}
}

func (h *uploadCapture) WithGroup(name string) slog.Handler {
	return &uploadCapture{next: h.next.WithGroup(name), upload: h.upload}
}

// RegisterFlags implements engine.Configurable: --pbe-backend, --pbe-partitioner, --pbe-triangles,
// --pbe-workers, --pbe-shared, --pbe-inter.
func (e *Engine) RegisterFlags(fs *flag.FlagSet) func() (engine.Engine, error) {
	backend := fs.String("pbe-backend", "host", "with --engine pbe: `BACKEND` of the intra-partition stage: host (the cpu engine) or gpu (the stmatch engine, or gpu:ENGINE for another GPU engine), parts made for half of --gpu-memory")
	part := fs.String("pbe-partitioner", e.Partitioner.String(), "with --engine pbe: `METHOD` multilevel (METIS-like), grow (breadth-first growing), ranges (consecutive ids) or auto (multilevel up to 4M edges, grow with 2 refinement passes up to 128M, ranges with 1 above)")
	tri := fs.Bool("pbe-triangles", e.Triangles, "with --engine pbe and the multilevel partitioner: edges weigh 1 + log2(1 + the triangles they lie in), so that parts keep dense regions whole (off: about a point of intra share either way on the graphs measured)")
	workers := fs.Int("pbe-workers", 1, "with --engine pbe --pbe-backend gpu: `N` parts counted at once on each GPU of --gpus, each within 1/N of --gpu-memory (the parts made for it), so that one part's uploads and host work overlap another's kernels")
	shared := fs.String("pbe-shared", onOff(!e.Unshared), "with --engine pbe: `on|off` PBE's shared execution in the inter-partition stage: one search order per orbit of the pattern's automorphisms on its edges, the others' matches by remapping (off: one per pattern edge)")
	inter := fs.String("pbe-inter", e.InterBackend.String(), "with --engine pbe: `BACKEND` of a count's inter-partition stage: host (a depth-first search on --threads cores) or gpu (one thread per seed, several for a heavy seed, on the first GPU of --gpus, the graph in device memory when it fits --gpu-memory, else read from mapped host memory); listing runs it on the host")
	return func() (engine.Engine, error) {
		if *workers < 1 {
			return nil, fmt.Errorf("--pbe-workers %d: want 1 or more", *workers)
		}
		m, err := partition.ParseMethod(strings.TrimSpace(*part))
		if err != nil {
			return nil, fmt.Errorf("--pbe-partitioner: %w", err)
		}
		ib, err := ParseInterBackend(strings.TrimSpace(*inter))
		if err != nil {
			return nil, fmt.Errorf("--pbe-inter: %w", err)
		}
		out := &Engine{Budget: e.Budget, Passes: e.Passes, Partitioner: m, Triangles: *tri, Reserve: e.Reserve, InterBackend: ib}
		switch s := strings.TrimSpace(*shared); s {
		case "on":
		case "off":
			out.Unshared = true
		default:
			return nil, fmt.Errorf("--pbe-shared %q: want on or off", s)
		}
		switch s := strings.TrimSpace(*backend); {
		case s == "host":
		case s == "gpu":
			out.Backend = &DeviceBackend{Workers: *workers}
		case strings.HasPrefix(s, "gpu:"):
			b := &DeviceBackend{Engine: strings.TrimPrefix(s, "gpu:"), Workers: *workers}
			if _, err := b.device(); err != nil { // an unknown engine, or one of the host
				return nil, fmt.Errorf("--pbe-backend %q: %w", s, err)
			}
			out.Backend = b
		default:
			return nil, fmt.Errorf("--pbe-backend %q: want host, gpu or gpu:ENGINE", s)
		}
		return out, nil
	}
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}
