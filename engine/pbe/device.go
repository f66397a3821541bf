package pbe

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"iter"
	"log/slog"
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
// engine.GPU), one part after the other, each within the problem's GPUMemoryLimit. The engine
// allocates and frees its device memory per part, so only one part is on the device at a time.
// A part the engine refuses for memory (engine.ErrMemory) is counted on the host instead, and
// reported (Stats.HostParts).
type DeviceBackend struct {
	// Engine names the GPU engine ("": DefaultDeviceEngine).
	Engine string

	mu sync.Mutex
	// what the parts did, reset by CountStats.
	acc deviceAcc
}

// deviceAcc is what the device backend records per count.
type deviceAcc struct {
	parts, hostParts int
	uploadBytes      uint64
	upload, kernel   time.Duration
}

// Name implements Backend.
func (b *DeviceBackend) Name() string { return "device:" + b.engineName() }

func (b *DeviceBackend) engineName() string {
	if b.Engine == "" {
		return DefaultDeviceEngine
	}
	return b.Engine
}

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
	b.acc = deviceAcc{}
	b.mu.Unlock()
}

func (b *DeviceBackend) take() deviceAcc {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.acc
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
	var upload atomic.Int64
	run := *sub
	run.Log = slog.New(&uploadCapture{next: sub.Logger().Handler(), upload: &upload})
	r, err := e.Count(ctx, &run)
	// A part the GPU engine cannot hold (its search's needs, or the device budget for its own
	// buffers: stmatch's work units, say) is counted on the host instead of failing the count.
	if errors.Is(err, engine.ErrMemory) || errors.Is(err, gpu.ErrBudget) {
		sub.Logger().Debug("pbe: the device engine refused a part for memory; counting it on the host",
			"vertices", sub.Data.NumVertices(), "edges", sub.Data.NumEdges(), "err", err)
		b.mu.Lock()
		b.acc.hostParts++
		b.mu.Unlock()
		return HostBackend{}.CountPart(ctx, sub)
	}
	b.mu.Lock()
	b.acc.parts++
	b.acc.uploadBytes += CSRBytes(sub.Data)
	b.acc.upload += time.Duration(upload.Load())
	b.acc.kernel += r.DeviceTime
	b.mu.Unlock()
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

// RegisterFlags implements engine.Configurable: --pbe-backend, --pbe-partitioner.
func (e *Engine) RegisterFlags(fs *flag.FlagSet) func() (engine.Engine, error) {
	backend := fs.String("pbe-backend", "host", "with --engine pbe: `BACKEND` of the intra-partition stage: host (the cpu engine) or gpu (the stmatch engine, or gpu:ENGINE for another GPU engine), parts made for half of --gpu-memory")
	part := fs.String("pbe-partitioner", e.Partitioner.String(), "with --engine pbe: `METHOD` multilevel (METIS-like), grow (breadth-first growing), ranges (consecutive ids) or auto (multilevel up to 4M edges, grow with 2 refinement passes up to 128M, ranges with 1 above)")
	return func() (engine.Engine, error) {
		m, err := partition.ParseMethod(strings.TrimSpace(*part))
		if err != nil {
			return nil, fmt.Errorf("--pbe-partitioner: %w", err)
		}
		out := &Engine{Budget: e.Budget, Passes: e.Passes, Partitioner: m, Reserve: e.Reserve}
		switch s := strings.TrimSpace(*backend); {
		case s == "host":
		case s == "gpu":
			out.Backend = &DeviceBackend{}
		case strings.HasPrefix(s, "gpu:"):
			out.Backend = &DeviceBackend{Engine: strings.TrimPrefix(s, "gpu:")}
		default:
			return nil, fmt.Errorf("--pbe-backend %q: want host, gpu or gpu:ENGINE", s)
		}
		return out, nil
	}
}
