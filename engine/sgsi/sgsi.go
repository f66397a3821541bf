// Package sgsi is the SGSI engine (--engine sgsi): subgraph matching on the GPU for data graphs
// larger than the GPU's memory, after Zeng, Zou and Özsu, "SGSI - A Scalable GPU-friendly
// Subgraph Isomorphism Algorithm" (TKDE 2022), the out-of-core extension of GSI.
//
// The data graph stays in host memory as a column-first signature table and one sorted CSR per
// edge label the query uses (SGSI's edge-label-partitioned graphs; the CSR stands in for PCSR).
// A count filters the candidates of every query vertex on the device with vertex signatures
// (plus an exact label check), streaming the signature table through the device in vertex
// segments; orders the join by SGSI's |C(u)|/deg(u) rule; and joins one query vertex at a time
// (GSI's vertex-at-a-time join; a count of embeddings joins each subgraph once under symmetry
// restrictions and multiplies by |Aut(p)|, and a link the restrictions orient reads one side of
// its lists). Each join step takes the host-resident table in chunks that fit
// the device region: each row's shortest linking list (ties: the rarest edge label's) fills its
// preallocated buffer (Prealloc-Combine: offsets from the lists' lengths, one buffer, no join
// twice), the other linking edges intersect them, and the survivors are counted, linked into
// the next table and spilled to pinned host memory; every edge's label graph is streamed in segments that fit the segment
// cache (SGSI's Algorithms 4-6), a list longer than a segment cut into parts, and a row whose
// buffer does not fit the region is joined in windows of its list, so any budget of the
// candidate bitsets plus 1.5 KiB runs. The whole runs depth first over chunks, so host memory holds one
// bounded table per level, within --memory (Problem.MemoryLimit). Rows with long buffers get a
// block or the whole grid, the others a warp or a block's task pool (SGSI+'s four load-balance
// layers, thresholds from a histogram of the rows' workloads: balance.go). Out of core, neighbouring
// segments whose lists a chunk reads go up as one gathered run, each upload in one copy; on the
// GPU uploads (from pinned staging) and kernels are queued without waiting, the last step's
// counts add up on the device, so only copies back wait, and a count's schedule runs on the
// device's worker thread, so each of them is a direct driver call.
//
// Backend abstracts the device: the GPU backend runs kernels/sgsi.cu; HostBackend runs the same
// kernels in Go, which is how the tests check the schedule on machines without a GPU.
// docs/out-of-core.md describes the design and what it leaves out.
package sgsi

import (
	"cmp"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"iter"
	"sync"
	"time"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/gpu"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/internal/seqs"
	"github.com/submatch/submatch/internal/sysmem"
)

//go:embed kernels/sgsi.cu
var kernelCU string

// kernelSource is the kernels with package gpu's stop polling before them (sgsi_last's).
var kernelSource = gpu.StopPollSource + kernelCU

const kernelFile = "sgsi.cu"

// Options select variants; the zero value is the GPU engine.
type Options struct {
	// Host runs on HostBackend with a region of HostBytes (0: the problem's GPUMemoryLimit, or
	// 256 MiB).
	Host      bool
	HostBytes uint64
	// BlockRows is W2: rows whose buffers are longer get a block of threads or the whole grid,
	// the others a warp or a block's task pool (0: DefaultBlockRows; balance.go).
	BlockRows uint32
	// Layers fixes the load-balance thresholds (W2 is then Layers.W2, not BlockRows) instead of
	// choosing W1 and W3 per chunk from a histogram of the rows' workloads (SGSI+);
	// TwoLayers(DefaultBlockRows) is the split before SGSI+'s balance, a warp or a block.
	Layers *Thresholds
	// MaxCache caps the segment cache in bytes (0: half the region, or what the query's label
	// graphs need when that is less): tests set it small to force many segments.
	MaxCache uint64
	// Buffered counts the last step of a count (in or out of core) with Prealloc-Combine's
	// buffers, as listings do, instead of the direct count (direct.go): for measurement and tests.
	Buffered bool
	// Overlap says which of the direct count's blocks run as a pipeline on two streams
	// (pipe.go): the next block's (or piece's) upload on a copy stream into one of two slots of
	// the region while the last one's kernel runs on a compute stream. Serial: every copy and
	// kernel on the default stream. The zero value, OverlapPieces, overlaps the pieces of
	// generated rows only. --sgsi-overlap.
	Overlap Overlap
	// PaperOrder joins in SGSI's order (its Algorithm 1: by |C(u)|/deg(u) and edge label
	// frequencies) instead of the core order (query.go, coreOrder: the 2-core first, the most
	// links to the vertices chosen next, leaves last, as the cpu engine's plan). SGSI's label
	// frequencies put a dense query's core last; on the H200 (R-MAT scale 23, dense walks of 6
	// and 8 vertices) the core order was 1.7-2.3x faster where both finished, and finished one
	// that SGSI's order did not in 15 s (docs/benchmarks.md). --sgsi-paper-order.
	PaperOrder bool
	// Refine refines the signature filter's candidates on the host with one round of
	// neighbourhood refinement (refine.go: v stays in C(u) when each query neighbour w of u
	// has a candidate among v's neighbours), as the cpu plan's filter does: signatures let
	// through 2-20x its candidates under 1,000 zipf labels (issue 21). --sgsi-refine.
	Refine bool
	// JoinLeaves joins a count's leaves (pattern vertices of degree one) and closing vertices
	// (every neighbour joined before them) as every other vertex instead of counting them after
	// the joins (leaves.go: each row of the last table times the placements of its leaves, as
	// the cpu engine's leaf groups), which is what a listing and an induced count do.
	// --sgsi-join-leaves.
	JoinLeaves bool
	// MaxRegion caps the device region when --gpu-memory does not set it (0: DefaultMaxRegion).
	MaxRegion uint64
	// predictor is how a dealt count predicts its roots' work (deal.go; tests compare them).
	predictor predictor
	// tailReach, when set, caps every tail at tailReach-1 inner vertices instead of weighing
	// how far each reaches (weighTails; tests count every reach).
	tailReach int
}

// DefaultBlockRows is SGSI's W2: a row of more than 1024 candidates gets a whole block.
const DefaultBlockRows = 1024

// DefaultMaxRegion is the device region taken when no budget is given.
const DefaultMaxRegion = 16 << 30

// blockThreads is the block size of the kernels.
const blockThreads = 256

// Engine is the SGSI engine; the zero value is ready to use.
type Engine struct{ Options Options }

func init() { engine.Register(Engine{}) }

// Name implements engine.Engine.
func (Engine) Name() string { return "sgsi" }

// Capabilities implements engine.Describer.
func (e Engine) Capabilities() engine.Capabilities {
	d := engine.GPU
	if e.Options.Host {
		d = engine.Host
	}
	return engine.Capabilities{Device: d, Lists: true,
		Summary: "SGSI: signature filter and vertex-at-a-time joins with the graph and tables in host memory, streamed through --gpu-memory"}
}

// Count implements engine.Engine.
func (e Engine) Count(ctx context.Context, p *engine.Problem) (engine.Result, error) {
	res, _, err := e.CountStats(ctx, p)
	return res, err
}

// CountStats is Count that also reports where the time and bytes went.
func (e Engine) CountStats(ctx context.Context, p *engine.Problem) (engine.Result, Stats, error) {
	var st Stats
	t0 := time.Now()
	r, err := e.run(ctx, p, &st, true, nil)
	st.Total = time.Since(t0)
	p.Logger().Debug("sgsi", "device", st.Device, "region", st.RegionBytes, "cache", st.CacheBytes, "in_core", st.InCore,
		"steps", st.Steps, "order", st.Order, "candidates", st.Candidates, "refined", st.Refined, "per_step", st.PerStep, "chunks", st.Chunks, "windows", st.Windows, "parts", st.Parts, "gathered", st.Gathered, "merged", st.Merged, "tiled", st.Tiled, "blocks", st.Blocks, "block_rows", st.BlockRows, "block_fallbacks", st.BlockFallbacks, "pieces", st.Pieces, "balance", st.Balance, "segments", st.Segments, "segment_hits", st.SegmentHits,
		"bytes_to_gpu", st.BytesToGPU, "bytes_from_gpu", st.BytesFromGPU, "copies_to_gpu", st.CopiesToGPU, "copies_from_gpu", st.CopiesFromGPU, "launches", st.Launches,
		"comm", st.Comm, "comp", st.Comp, "overlap", st.Overlap, "pipelined", st.Pipelined,
		"peak_device", st.PeakDevice, "peak_host_tables", st.PeakHost, "table_copied", st.TableCopied, "setup", st.Setup, "layout", st.Layout, "store", st.Store, "search", st.Search, "label_graphs", st.LabelGraphs, "label_builds", st.LabelBuilds, "filter", st.Filter,
		"group", st.Group, "refs", st.Refs, "tables", st.Tables, "driver", st.Driver, "other", st.Other(), "total", st.Total)
	res := engine.Result{PlanTime: st.Layout + st.Filter, DeviceTime: st.Comp}
	if r != nil {
		res.Count = r.total
	}
	cancelled := err != nil && ctx.Err() != nil && errors.Is(err, ctx.Err())
	if err != nil && !cancelled {
		return engine.Result{}, st, err
	}
	res.Partial = cancelled // the count so far is a lower bound
	return res, st, err
}

// Matches implements engine.Engine.
func (e Engine) Matches(ctx context.Context, p *engine.Problem) iter.Seq2[[]uint32, error] {
	return seqs.Emitted(func(emit func([]uint32) bool) error {
		var st Stats
		_, err := e.run(ctx, p, &st, false, emit)
		return err
	})
}

func (e Engine) run(ctx context.Context, p *engine.Problem, st *Stats, count bool, emit func([]uint32) bool) (*runner, error) {
	if p.Data == nil || p.Pattern == nil {
		return nil, fmt.Errorf("sgsi engine: problem needs a data graph and a pattern")
	}
	if p.MemoryLimit == 0 {
		// No --memory: the count may hold defaultMemoryShare of the memory the host has
		// available now, so that tables too large for the machine stop the count with
		// engine.ErrMemory instead of the operating system killing the process. The store kept
		// from the graph's last count (storeFor) is held already, outside what is available,
		// and counts against the bound: it is added (charged once, not twice).
		if lim := hostShare(defaultMemoryShare[0], defaultMemoryShare[1]); lim > 0 {
			q := *p
			q.MemoryLimit = lim + storeFor(p.Data, p.ThreadCount()).bytes()
			p = &q
		}
	}
	if sig := 4 * sigWords * uint64(p.Data.NumVertices()); p.MemoryLimit > 0 && sig > p.MemoryLimit {
		return nil, fmt.Errorf("sgsi: the signature table needs %d bytes of host memory, over %s %d: %w", sig, memoryBound, p.MemoryLimit, engine.ErrMemory)
	}
	if count {
		if slots := e.slots(ctx, p); len(slots) > 1 {
			return e.countDealt(ctx, p, st, slots) // deal.go
		}
	}
	return e.runOn(ctx, p, st, count, emit, nil)
}

// defaultMemoryShare is the share of the host's available memory (sysmem.Available, when the
// count starts) that a count without --memory may hold: its store, candidates and spilled tables.
var defaultMemoryShare = [2]uint64{3, 4}

// hostShare is sysmem.Share (a variable for tests: a host of a given size).
var hostShare = sysmem.Share

// memoryBound names the host memory bound in errors: --memory, or its default.
const memoryBound = "the host memory bound (--memory; by default 3/4 of the memory available at the start)"

// runOn runs a count or listing on one backend (the problem's first GPU, or the host
// emulation); part, when set, is the runner's place in a dealt count (deal.go).
func (e Engine) runOn(ctx context.Context, p *engine.Problem, st *Stats, count bool, emit func([]uint32) bool, part *dealing) (_ *runner, err error) {
	if part != nil && part.i == 0 {
		defer func() { part.pre.stopped(err) }()
	}
	tl := time.Now()
	s := storeFor(p.Data, p.ThreadCount())
	st.Layout = time.Since(tl)
	st.Store = st.Layout
	var be Backend
	ts := time.Now()
	if e.Options.Host {
		be = NewHostBackend(e.hostBytes(p) / 4)
		st.Device = "host emulation"
	} else {
		gb, err := newGPUBackend(ctx, p, e.Options, st)
		if err != nil {
			return nil, err
		}
		be = gb
	}
	defer be.Close()
	st.Setup = time.Since(ts)
	st.RegionBytes = 4 * be.Words()
	r := &runner{ctx: ctx, be: be, st: st, s: s, q: compileQuery(p.Pattern), count: count, emit: emit,
		blockRows: e.Options.BlockRows, blockSize: blockThreads, threads: p.Threads, maxCache: e.Options.MaxCache / 4, hostLimit: p.MemoryLimit,
		buffered: e.Options.Buffered, coreOrder: !e.Options.PaperOrder, refine: e.Options.Refine, joinLeaves: e.Options.JoinLeaves, overlapGen: e.Options.Overlap.overlaps(true),
		overlapTable: e.Options.Overlap.overlaps(false), part: part, predictor: e.Options.predictor, tailReach: e.Options.tailReach}
	if r.blockRows == 0 {
		r.blockRows = DefaultBlockRows
	}
	r.layers = e.Options.Layers
	if part != nil && part.i > 0 {
		if err = part.wait(ctx, r); err != nil {
			return nil, err
		}
	}
	err = schedule(be, count, func() error {
		if err := ctx.Err(); err != nil { // (a dealt runner that waited for its device's thread)
			return err
		}
		return r.run(p.Semantics.Induced, p.Semantics.Unique)
	})
	if dt, ok := be.(deviceTimer); ok {
		c, k, e := dt.DeviceTimes()
		st.Comm, st.Comp = c, k
		if err == nil {
			err = e
		}
	}
	return r, err
}

// hostBytes is the host emulation's region: Options.HostBytes, else the problem's
// GPUMemoryLimit, else 256 MiB.
func (e Engine) hostBytes(p *engine.Problem) uint64 {
	return cmp.Or(e.Options.HostBytes, p.GPUMemoryLimit, 256<<20)
}

// schedule runs a count's or listing's schedule f: a count's on the backend's worker thread
// when it has one, so that every copy and launch is a direct driver call. A listing stays off
// it: its caller's loop body runs inside emit, and would hold the device's thread (a body that
// waits for other work on the device would wait for ever).
func schedule(be Backend, count bool, f func() error) error {
	if w, ok := be.(worker); ok && count {
		return w.Do(f)
	}
	return f()
}

// The store of the last graph matched, so that a batch of queries builds it once.
var (
	storeMu    sync.Mutex
	storeGraph *graph.Graph
	storeLast  *store
)

func storeFor(g *graph.Graph, workers int) *store {
	storeMu.Lock()
	defer storeMu.Unlock()
	if storeGraph != g {
		storeGraph, storeLast = g, newStore(g, workers)
	}
	return storeLast
}

// GraphBytes is what the data graph takes on a device in sgsi's layout with every edge in one
// label graph: the signature table and labels (20 bytes a vertex) and a CSR (4 bytes a vertex,
// 4 a directed edge). Budgets "a quarter of the graph" are fractions of it.
func GraphBytes(g *graph.Graph) uint64 {
	n := uint64(g.NumVertices())
	return 4*(sigWords+1)*n + 4*(n+1) + 8*g.NumEdges()
}
