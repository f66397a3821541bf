// Package pbe is the partition-based out-of-core engine "pbe", after PBE (Guo et al., SIGMOD
// 2020): static matching on a data graph larger than the device's memory. It owns the two
// stages and their exactly-once accounting; package partition owns the partitioner.
//
// A count partitions the data graph (partition.Partition) so that every part, with its
// adjacency and halo, fits the budget (Engine.Budget, else Problem.GPUMemoryLimit, else
// Problem.MemoryLimit; none: one part), then
//
//  1. intra-partition stage: every part's induced subgraph is searched on its own by a Backend
//     (the host backend runs the engine registered as "cpu" on it): these are exactly the matches
//     whose vertices all lie in that part;
//  2. inter-partition stage (inter.go): the matches whose vertices lie in two parts or more,
//     found from the cut edges with PBE's two stages (a pruning stage that seeds every cut edge on
//     every pattern edge, an enumeration stage that extends the seeds), PBE's exactly-once rule
//     (DUPREMOVE: a match is found only from its smallest cut image edge) and PBE's shared
//     execution (one search order per orbit of Aut(p) on the edges, the others by remapping). A disconnected
//     pattern (outside PBE's problem) may span parts without a cut edge: its inter-partition
//     count is the whole graph's host count less the parts', its list the whole graph's matches
//     that span parts.
//
// The two sets are disjoint and cover every match, so the sum is exact in every convention
// (embeddings, induced, unique), with vertex and edge labels, for counting and listing; the tests
// check it against the brute-force oracle and the CPU engine under budgets that force 2 to
// hundreds of parts. Stats (CountStats, and the debug log) report what the papers report: the
// bytes a part needs, the bytes the stages move, intra- against inter-partition matches.
//
// The intra stage runs on the host (HostBackend, the default) or on GPUs (DeviceBackend,
// --pbe-backend gpu: each part counted by a GPU engine found in the engine registry, stmatch by
// default, within --gpu-memory; the parts dealt largest-first to --pbe-workers workers on every
// GPU of --gpus, deal.go); a count's inter stage runs on the host (inter.go) or, with
// InterBackend InterGPU (--pbe-inter gpu), on one GPU (interdev.go, intergpu.go). For a graph
// that does not fit the GPU, the engine predicts its time with the GPU backend (describe.go), and
// --engine auto weighs it against the others (docs/out-of-core.md).
package pbe

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/internal/checked"
	"github.com/submatch/submatch/partition"
	"github.com/submatch/submatch/plan"
)

// The registered engine partitions with partition.Auto: the multilevel partitioner on graphs
// it takes seconds for, breadth-first growing (linear) on larger ones, ranges of consecutive ids
// (all on every core) on the largest (partition.AutoMethod).
func init() { engine.Register(&Engine{Partitioner: partition.Auto}) }

// Backend runs the intra-partition stage: the search of one part's induced subgraph.
type Backend interface {
	// Name names the backend in logs.
	Name() string
	// CountPart counts sub's matches (sub.Data is one part's induced subgraph).
	CountPart(ctx context.Context, sub *engine.Problem) (engine.Result, error)
	// MatchesPart lists them (dense ids of sub.Data).
	MatchesPart(ctx context.Context, sub *engine.Problem) iter.Seq2[[]uint32, error]
}

// HostBackend runs each part with the engine registered under the name "cpu".
type HostBackend struct{}

// Name implements Backend.
func (HostBackend) Name() string { return "host" }

func cpuEngine() (engine.Engine, error) {
	e, err := engine.Lookup("cpu")
	if err != nil {
		return nil, fmt.Errorf("pbe: the host backend runs the cpu engine, which is not linked: %w", err)
	}
	return e, nil
}

// CountPart implements Backend.
func (HostBackend) CountPart(ctx context.Context, sub *engine.Problem) (engine.Result, error) {
	e, err := cpuEngine()
	if err != nil {
		return engine.Result{}, err
	}
	return e.Count(ctx, sub)
}

// MatchesPart implements Backend.
func (HostBackend) MatchesPart(ctx context.Context, sub *engine.Problem) iter.Seq2[[]uint32, error] {
	e, err := cpuEngine()
	if err != nil {
		return func(yield func([]uint32, error) bool) { yield(nil, err) }
	}
	return e.Matches(ctx, sub)
}

// Engine is the pbe engine.
type Engine struct {
	// Budget is the bytes a part may need (0: from the problem's GPUMemoryLimit, else its
	// MemoryLimit, else no limit: BudgetFor).
	Budget uint64
	// Backend runs the intra-partition stage (nil: HostBackend).
	Backend Backend
	// Passes is partition.Options.Passes.
	Passes int
	// Partitioner is the partitioning method (the zero value is partition.Multilevel; the
	// registered engine and --pbe-partitioner's default are partition.Auto).
	Partitioner partition.Method
	// Triangles is partition.Options.Triangles: with the multilevel partitioner (Multilevel, or
	// Auto on graphs of up to AutoMultilevelEdges edges), edges weigh more the more triangles
	// they lie in (--pbe-triangles).
	Triangles bool
	// Unshared turns PBE's shared execution off (--pbe-shared off): the inter-partition stage
	// runs one search order per pattern edge instead of one per orbit of Aut(p) on the edges.
	Unshared bool
	// InterBackend is where a count's inter-partition stage runs (--pbe-inter): InterHost (the
	// zero value) or InterGPU. Listing runs it on the host.
	InterBackend InterBackend
	// Reserve is, with a DeviceBackend, the share of the GPU budget kept for the device engine's
	// buffers (0: DefaultReserve): parts are made for the rest.
	Reserve float64
	// noShapes turns the host inter stage's shape counts off (intershape.go): cliques and
	// diamonds take the seeded search too (tests).
	noShapes bool
	// wholeGraph turns the reduction off (reduce.go): the stages run on the data graph (tests
	// whose graph is built to be cut in parts).
	wholeGraph bool

	// cache keeps the last partitioning (graphs are immutable): PBE partitions once, offline;
	// reduced the last label-induced subgraph (reduce.go), whose partitioning cache then keeps.
	mu      sync.Mutex
	reduced reduction
	cache   struct {
		g      *graph.Graph
		budget uint64
		passes int
		method partition.Method
		tri    bool
		pt     *partition.Partitioning
	}
}

// Name implements engine.Engine.
func (*Engine) Name() string { return "pbe" }

// Capabilities implements engine.Describer.
func (*Engine) Capabilities() engine.Capabilities {
	return engine.Capabilities{Device: engine.Host, Lists: true, OutOfCore: true,
		Summary: "partition-based enumeration (PBE): the graph split into parts that fit --gpu-memory (else --memory), intra- then inter-partition stages; intra stage on the host or (--pbe-backend gpu) a GPU engine"}
}

// BudgetFor is the partition budget of p: Budget when set; else p's GPUMemoryLimit (with a
// DeviceBackend: less the Reserve, which the device engine's buffers take, and shared by its
// Workers on a device); else p's MemoryLimit; 0 (no limit, one part) when none is set. The
// device engine always runs within p.GPUMemoryLimit (its share of it with several Workers).
func (e *Engine) BudgetFor(p *engine.Problem) uint64 {
	switch {
	case e.Budget > 0:
		return e.Budget
	case p.GPUMemoryLimit > 0:
		b := p.GPUMemoryLimit
		if d, ok := e.Backend.(*DeviceBackend); ok {
			r := e.Reserve
			if r <= 0 || r >= 1 {
				r = DefaultReserve
			}
			b = uint64(float64(b)*(1-r)) / uint64(d.workers())
		}
		return b
	}
	return p.MemoryLimit
}

func (e *Engine) backend() Backend {
	if e.Backend == nil {
		return HostBackend{}
	}
	return e.Backend
}

// Stats is what a count did, as the papers report it.
type Stats struct {
	// Budget is the partition budget (0: none); GraphBytes the whole graph in the same model.
	Budget, GraphBytes uint64
	// Parts is the number of parts; MaxPartBytes the largest part's bytes (adjacency and halo);
	// HaloVertices the halos' sizes summed.
	Parts        int
	MaxPartBytes uint64
	HaloVertices uint64
	// EdgeCut is the number of cut edges (the pruning stage's seeds).
	EdgeCut uint64
	// IntraMatches and InterMatches split the count between the stages.
	IntraMatches, InterMatches uint64
	// IntraBytes is what the intra stage loads: the bytes of every part searched.
	IntraBytes uint64
	// CutBytes is what the stages hand over: the cut edges (8 bytes each) and the partition id of
	// every vertex (4 bytes).
	CutBytes uint64
	// InterBytes is the adjacency the inter stage reads: at every extension, the lists of the
	// earlier neighbours (what PBE's LOADSUBGRAPHTOGPU ships, before de-duplication in a batch).
	InterBytes uint64
	// InterHostBytes is the host memory the inter stage's workers take on the host beside the
	// graph (interHostBytes: bitsets and the forward index; a shape's, intershape.go: the clique
	// counter's orientation and workers, a diamond's bitsets), checked against --memory where
	// that is not the partition budget (hostLimit); 0 when the stage ran on the GPU.
	InterHostBytes uint64
	// InterShape names the shape the host inter stage counted without its seeded search
	// (intershape.go: "3-clique", "4-clique", ..., "diamond", "tailed-triangle", "4-path";
	// interwedge.go: "4-cycle", "house"; "" when it searched).
	InterShape string
	// Seeds is the number of two-vertex partial matches the pruning stage made; InterNodes the
	// enumeration stage's search nodes.
	Seeds, InterNodes uint64
	// InterDevice is what the inter stage did on the GPU (InterGPU; nil when it ran on the host,
	// also when InterGPU fell back to it for a pattern deeper than the kernel's stack).
	InterDevice *InterDeviceStats
	// SkippedParts had fewer vertices than the pattern.
	SkippedParts int
	// With a DeviceBackend: DeviceParts were counted on the GPU, HostParts on the host (the
	// device engine refused them for memory); UploadBytes is the parts' CSRs (CSRBytes), what
	// the intra stage ships at least; UploadTime the device engine's allocations and
	// host-to-device copies (from its debug log), KernelTime its kernels (Result.DeviceTime):
	// communication against computation. The rest of IntraTime is host work (subgraphs, plans,
	// compiles).
	// They are the sums over Devices, what every GPU did (its upload, kernel, busy and wall
	// times: the overlap of several workers on a device).
	DeviceParts, HostParts int
	UploadBytes            uint64
	UploadTime, KernelTime time.Duration
	Devices                []DeviceStats
	// The stages' wall times.
	PartitionTime, IntraTime, InterTime time.Duration
	// PartitionCached is set when the partitioning was the engine's last one (same graph and
	// budget): PartitionTime is then only the look-up.
	PartitionCached bool
	// PartitionMethod is the partitioner that ran (a lighter one than Engine.Partitioner where
	// its working memory did not fit --memory: hostmem.go); PartitionWorkBytes its working memory
	// as charged against --memory (partition.WorkingBytes; 0 without a limit), PartitionHeldBytes
	// what the partitioning holds through the count (partition.Partitioning.HeldBytes) and,
	// where --memory is the partition budget, MaxCopyBytes the largest part's copy at its
	// making's peak (graph.InducedPartBytes).
	PartitionMethod                                      string
	PartitionWorkBytes, PartitionHeldBytes, MaxCopyBytes uint64
	// Reduced is set when the stages ran on the subgraph that holds the matches (reduce.go: the
	// edges of the pattern's kinds, or the subgraph induced by the pattern's labels): ReducedVertices and ReducedEdges are its size, ReduceTime the
	// time to count and build it (only the count when it was not built).
	Reduced                       bool
	ReducedVertices, ReducedEdges uint64
	ReduceTime                    time.Duration
	// ReducedBytes is the host memory the reduced subgraph holds, charged against --memory
	// (reduce.go); ReduceSkipped says why the stages ran on the whole graph instead of that
	// subgraph for want of memory ("" when they did not, or for another reason).
	ReducedBytes  uint64
	ReduceSkipped string
}

// setDevices sets Devices to ds and the device figures to their sums.
func (s *Stats) setDevices(ds []DeviceStats) {
	s.Devices = ds
	s.DeviceParts, s.HostParts, s.UploadBytes, s.UploadTime, s.KernelTime = 0, 0, 0, 0, 0
	for _, d := range ds {
		s.DeviceParts += d.Parts
		s.HostParts += d.HostParts
		s.UploadBytes += d.UploadBytes
		s.UploadTime += d.Upload
		s.KernelTime += d.Kernel
	}
}

// IntraShare is the share of the matches that are intra-partition (1 when there are none).
func (s *Stats) IntraShare() float64 {
	t := s.IntraMatches + s.InterMatches
	if t == 0 {
		return 1
	}
	return float64(s.IntraMatches) / float64(t)
}

// LogValue implements slog.LogValuer.
func (s *Stats) LogValue() slog.Value {
	return slog.GroupValue(
		slog.Uint64("budget", s.Budget), slog.Uint64("graph_bytes", s.GraphBytes),
		slog.Int("parts", s.Parts), slog.Uint64("max_part_bytes", s.MaxPartBytes),
		slog.Uint64("halo_vertices", s.HaloVertices), slog.Uint64("edge_cut", s.EdgeCut),
		slog.Uint64("intra", s.IntraMatches), slog.Uint64("inter", s.InterMatches),
		slog.Float64("intra_share", s.IntraShare()),
		slog.Uint64("intra_bytes", s.IntraBytes), slog.Uint64("cut_bytes", s.CutBytes),
		slog.Uint64("inter_bytes", s.InterBytes), slog.Uint64("inter_host_bytes", s.InterHostBytes),
		slog.String("inter_shape", s.InterShape), slog.Uint64("seeds", s.Seeds),
		slog.Uint64("inter_nodes", s.InterNodes), slog.Any("inter_device", s.InterDevice), slog.Int("skipped_parts", s.SkippedParts),
		slog.Int("device_parts", s.DeviceParts), slog.Int("host_parts", s.HostParts),
		slog.Uint64("upload_bytes", s.UploadBytes), slog.Duration("upload_time", s.UploadTime),
		slog.Duration("kernel_time", s.KernelTime), slog.Any("devices", devicesValue(s.Devices)),
		slog.Duration("partition", s.PartitionTime), slog.Duration("intra_time", s.IntraTime),
		slog.Duration("inter_time", s.InterTime), slog.Bool("partition_cached", s.PartitionCached),
		slog.String("partition_method", s.PartitionMethod), slog.Uint64("partition_work_bytes", s.PartitionWorkBytes),
		slog.Uint64("partition_held_bytes", s.PartitionHeldBytes), slog.Uint64("max_copy_bytes", s.MaxCopyBytes),
		slog.Bool("reduced", s.Reduced), slog.Uint64("reduced_vertices", s.ReducedVertices),
		slog.Uint64("reduced_edges", s.ReducedEdges), slog.Uint64("reduced_bytes", s.ReducedBytes),
		slog.String("reduce_skipped", s.ReduceSkipped), slog.Duration("reduce_time", s.ReduceTime))
}

// devicesValue logs every device's figures as a group of its own (gpu0, gpu1...; gpu-1: the
// problem's GPUs).
func devicesValue(ds []DeviceStats) slog.Value {
	as := make([]slog.Attr, len(ds))
	for i := range ds {
		as[i] = slog.Any(fmt.Sprintf("gpu%d", ds[i].GPU), &ds[i])
	}
	return slog.GroupValue(as...)
}

func checkProblem(p *engine.Problem) error {
	if p == nil || p.Data == nil || p.Pattern == nil {
		return errors.New("pbe: the problem needs a data graph and a pattern")
	}
	return nil
}

// layout partitions p's data graph: under --memory with the partitioner whose working memory
// fits it and, where --memory is the partition budget, into parts whose copies fit it beside the
// partitioning (hostmem.go).
func (e *Engine) layout(ctx context.Context, p *engine.Problem, st *Stats) (*partition.Partitioning, error) {
	t0 := time.Now()
	g := p.Data
	st.Budget, st.GraphBytes = e.BudgetFor(p), partition.GraphBytes(g)
	mem := p.MemoryLimit
	copies := e.oneAtATime(p) // the parts' copies are charged against mem
	var top uint32
	if copies {
		top = maxLabel(g)
		b, err := copyBudget(g, mem, top)
		if err != nil {
			return nil, err
		}
		st.Budget = b
	}
	for attempt := 1; ; attempt++ {
		pt, err := e.partitionWithin(ctx, p, mem, st)
		if err != nil || !copies {
			st.PartitionTime = time.Since(t0)
			return pt, err
		}
		st.MaxCopyBytes = slices.Max(copyBytes(g, pt, top))
		fixed := g.InducedPartBytes(0, 0, 0, top)
		room := copyRoom(g, mem, st.PartitionHeldBytes, top)
		if st.MaxCopyBytes == 0 || st.MaxCopyBytes-fixed <= room {
			st.PartitionTime = time.Since(t0)
			return pt, nil
		}
		if attempt == copyAttempts || room == 0 {
			return nil, fmt.Errorf("pbe: %w: the largest of %d parts (budget %d) takes %d bytes to copy beside the partitioning's %d and the cpu engine's share (%g), --memory is %d",
				engine.ErrMemory, len(pt.Parts), st.Budget, st.MaxCopyBytes, st.PartitionHeldBytes, HostReserve, mem)
		}
		// The copies take more per model byte than the whole graph's: the budget lowered by the
		// excess (and a tenth), the partitioning let go before the next is made.
		p.Logger().Debug("pbe: the parts' copies do not fit --memory; partitioning again", "budget", st.Budget,
			"max_copy_bytes", st.MaxCopyBytes, "held_bytes", st.PartitionHeldBytes, "memory", mem)
		st.Budget = uint64(0.9 * float64(st.Budget) * float64(room) / float64(st.MaxCopyBytes-fixed))
		e.mu.Lock()
		e.cache.g, e.cache.pt = nil, nil
		e.mu.Unlock()
	}
}

// partitionWithin partitions p's data graph g for st.Budget (the engine's last partitioning when it was of the
// same graph and options) with the partitioner whose working memory fits mem (0: none;
// partitionerWithin), and records the partitioning in st.
func (e *Engine) partitionWithin(ctx context.Context, p *engine.Problem, mem uint64, st *Stats) (*partition.Partitioning, error) {
	t0 := time.Now()
	g := p.Data
	opts := partition.Options{Budget: st.Budget, Passes: e.Passes, Method: e.Partitioner, Triangles: e.Triangles, NoHalos: true}
	pt, cached := e.cached(g, opts)
	if !cached && mem > 0 {
		// (A cached partitioning takes no working memory: the partitioner is charged where it runs.)
		var err error
		if opts, st.PartitionWorkBytes, err = partitionerWithin(g, opts, mem); err != nil {
			return nil, err
		}
		pt, cached = e.cached(g, opts)
	}
	st.PartitionMethod = partition.Resolve(opts.Method, g.NumEdges()).String()
	st.PartitionCached = cached
	var err error
	if !cached {
		pt, err = partition.Partition(ctx, g, opts)
	}
	if err != nil {
		if errors.Is(err, partition.ErrBudget) {
			return nil, fmt.Errorf("pbe: %w: %w", engine.ErrMemory, err)
		}
		return nil, fmt.Errorf("pbe: partitioning: %w", err)
	}
	st.PartitionTime = time.Since(t0)
	if !st.PartitionCached {
		e.mu.Lock()
		e.cache.g, e.cache.budget, e.cache.passes, e.cache.method, e.cache.tri, e.cache.pt = g, st.Budget, e.Passes, partition.Resolve(opts.Method, g.NumEdges()), e.Triangles, pt
		e.mu.Unlock()
	}
	st.Parts, st.MaxPartBytes, st.EdgeCut = len(pt.Parts), pt.MaxBytes(), pt.EdgeCut
	st.HaloVertices, st.PartitionHeldBytes = pt.HaloVertices, pt.HeldBytes()
	// Logged now as well as with the count: a count cut short (--timeout) still shows how long
	// the partitioning took, the first cost on a graph many times the budget.
	p.Logger().Debug("pbe: partitioned", "parts", st.Parts, "edge_cut", st.EdgeCut, "max_part_bytes", st.MaxPartBytes,
		"budget", st.Budget, "method", st.PartitionMethod, "work_bytes", st.PartitionWorkBytes, "held_bytes", st.PartitionHeldBytes,
		"cached", st.PartitionCached, "time", time.Since(t0))
	st.CutBytes = pt.EdgeCut*8 + uint64(g.NumVertices())*4
	return pt, nil
}

// prepare reduces p (reduce) and partitions what the stages run on: the reduced problem, or p
// where the parts (their model bytes or their copies: hostmem.go) do not fit what the reduced
// subgraph leaves of the partition budget (--memory being the budget) but may fit the whole of it.
func (e *Engine) prepare(ctx context.Context, p *engine.Problem, st *Stats) (*engine.Problem, *partition.Partitioning, error) {
	rp := e.reduce(p, st)
	pt, err := e.layout(ctx, rp, st)
	if err == nil || rp == p || !errors.Is(err, engine.ErrMemory) || e.BudgetFor(rp) == e.BudgetFor(p) {
		return rp, pt, err
	}
	p.Logger().Debug("pbe: the parts do not fit beside the reduced subgraph; the stages run on the whole graph", "reduced_bytes", st.ReducedBytes, "reason", err)
	e.release()
	reduceTime := st.ReduceTime
	*st = Stats{ReduceTime: reduceTime, ReduceSkipped: fmt.Sprintf("the parts do not fit beside the reduced subgraph's %d bytes: %v", st.ReducedBytes, err)}
	pt, err = e.layout(ctx, p, st)
	return p, pt, err
}

// subProblem is p restricted to part i's induced subgraph (a part that holdsPattern).
func (e *Engine) subProblem(p *engine.Problem, pt *partition.Partitioning, i int) (*engine.Problem, error) {
	vs := pt.Parts[i]
	sub := *p
	sub.Progress = nil
	sub.MemoryLimit = e.hostLimit(p)
	if e.oneAtATime(p) {
		// --memory is the partition budget: the CPU engine gets what the partitioning and the
		// part's copy leave of it (hostmem.go).
		var cp uint64
		if len(pt.Parts) > 1 {
			cp = partCopyBytes(p.Data, vs, maxLabel(p.Data))
		}
		sub.MemoryLimit = limitLeft(p.MemoryLimit, pt.HeldBytes()+cp)
	}
	if len(pt.Parts) == 1 {
		return &sub, nil
	}
	sub.Data = p.Data.InducedPart(vs, pt.Of, uint32(i))
	return &sub, nil
}

// partBuilt, when set (tests), is called by subProblems after each part's problem is built.
var partBuilt func()

// partProblem is one part's problem, or the error building it.
type partProblem struct {
	i   int
	sub *engine.Problem
	err error
}

// subProblems builds the problems of the parts in order ahead of their use, on a goroutine of
// its own, at most ahead of them waiting (one for each worker of the intra stage), so that the
// next parts' subgraphs are built while the backend searches the current ones; it stops after an
// error or when ctx ends. With searched set, it builds a part beyond the first ahead only once a
// part's search has ended (a receive from searched): at most ahead parts' subgraphs are then
// held at once, built or searched (where --memory is the partition budget: oneAtATime).
func (e *Engine) subProblems(ctx context.Context, p *engine.Problem, pt *partition.Partitioning, order []int, ahead int, searched <-chan struct{}) <-chan partProblem {
	out := make(chan partProblem, ahead)
	go func() {
		defer close(out)
		for k, i := range order {
			if searched != nil && k >= ahead {
				select {
				case <-searched:
				case <-ctx.Done():
					return
				}
			}
			sub, err := e.subProblem(p, pt, i)
			if partBuilt != nil {
				partBuilt()
			}
			select {
			case out <- partProblem{i, sub, err}:
			case <-ctx.Done():
				return
			}
			if err != nil {
				return
			}
		}
	}()
	return out
}

func entryBytes(g *graph.Graph) uint64 {
	if g.HasEdgeLabels() {
		return 2 * partition.EntryBytes
	}
	return partition.EntryBytes
}

// interPlanFor filters every pattern vertex's candidates on the whole graph (package plan, on
// the host, where the whole graph is) and makes the inter-partition programs: for counting
// (orbits) one match of every orbit of Aut(p), for listing every match; shared: with PBE's
// shared execution (one search order per orbit of the pattern's edges, sharedPlan).
func interPlanFor(ctx context.Context, p *engine.Problem, orbits, shared bool) (*interPlan, error) {
	// Unique is left out: the candidates must not depend on the plan's symmetry restrictions,
	// since the inter stage applies restrictions of its own.
	pl, err := plan.BuildContext(ctx, p.Data, p.Pattern, plan.Options{
		Induced: p.Semantics.Induced, Enumerate: true, SpaceLimit: -1})
	if err != nil {
		return nil, fmt.Errorf("pbe: filtering candidates: %w", err)
	}
	ip, err := newInterPlan(ctx, p.Pattern, p.Semantics.Induced, p.Semantics.Unique, orbits, shared, pl.CandidateBits)
	if err != nil {
		return nil, fmt.Errorf("pbe: the inter stage's programs: %w", err)
	}
	if err := ip.attachSpace(ctx, p.Data, pl); err != nil {
		return nil, fmt.Errorf("pbe: the inter stage's candidate space: %w", err)
	}
	return ip, nil
}

func connected(p *engine.Problem) bool { return len(p.Pattern.Components()) == 1 }

// spans reports whether the data vertices of m lie in more than one part.
func spans(of []uint32, m []uint32) bool {
	for _, v := range m[1:] {
		if of[v] != of[m[0]] {
			return true
		}
	}
	return false
}

// Count implements engine.Engine.
func (e *Engine) Count(ctx context.Context, p *engine.Problem) (engine.Result, error) {
	res, _, err := e.CountStats(ctx, p)
	return res, err
}

// CountStats counts p's matches and reports what the stages did.
func (e *Engine) CountStats(ctx context.Context, p *engine.Problem) (engine.Result, *Stats, error) {
	st := &Stats{}
	if err := checkProblem(p); err != nil {
		return engine.Result{}, st, err
	}
	t0 := time.Now()
	p, pt, err := e.prepare(ctx, p, st)
	if err != nil {
		return engine.Result{Partial: ctx.Err() != nil}, st, err
	}
	var res engine.Result
	res.PlanTime = st.ReduceTime + st.PartitionTime
	be := e.backend()
	dev, _ := be.(*DeviceBackend)
	devStats := func() {
		if dev != nil {
			st.setDevices(dev.take())
		}
	}
	if dev != nil {
		dev.reset()
		defer devStats() // on every return, the early ones too
	}
	tIntra := time.Now()
	order, skipped := dealOrder(pt, p.Pattern.NumVertices())
	st.SkippedParts = skipped
	for _, i := range order {
		st.IntraBytes += pt.Bytes[i]
	}
	r, err := e.countIntra(ctx, p, pt, order, be)
	res.PlanTime += r.PlanTime
	res.DeviceTime += r.DeviceTime
	st.IntraMatches, res.Count = r.Count, r.Count
	if err != nil || r.Partial {
		res.Partial = true
		return res, st, err
	}
	st.IntraTime = time.Since(tIntra)
	if len(pt.Parts) > 1 && p.Pattern.NumVertices() > 1 && !connected(p) {
		// Inter-partition matches of a disconnected pattern need no cut edge: the whole graph's
		// count (on the host, where the whole graph is) less the parts'.
		tInter := time.Now()
		whole := *p
		whole.Progress, whole.MemoryLimit = nil, e.interLimit(p, st)
		r, err := HostBackend{}.CountPart(ctx, &whole)
		st.InterTime = time.Since(tInter)
		if err != nil || r.Partial {
			res.Partial = true
			return res, st, err
		}
		if r.Count < st.IntraMatches {
			return res, st, fmt.Errorf("pbe: the parts hold %d matches, the whole graph %d", st.IntraMatches, r.Count)
		}
		st.InterMatches, res.Count = r.Count-st.IntraMatches, r.Count
	} else if sh, ok := e.shapeFor(p, st); ok && len(pt.Parts) > 1 {
		// A clique, a diamond, a tailed triangle, a 4-path, a 4-cycle, a house or a tailed
		// 4-cycle (induced: 4-paths and 4-cycles), counted without the seeded search
		// (intershape.go, interwedge.go).
		tInter := time.Now()
		err := e.interByShape(ctx, p, pt.Of, sh, st)
		st.InterTime = time.Since(tInter)
		sum, fits := checked.Add(st.IntraMatches, st.InterMatches)
		if err != nil {
			if res.Partial = ctx.Err() != nil; res.Partial && fits {
				res.Count = sum // (the shape's count so far: a lower bound, or 0)
			}
			p.Logger().Debug("pbe: cut in the inter stage", "shape", st.InterShape, "intra", st.IntraMatches,
				"inter_so_far", st.InterMatches, "time", st.InterTime)
			return res, st, err
		}
		if res.Count = sum; !fits {
			return res, st, fmt.Errorf("pbe: %w", engine.ErrOverflow)
		}
	} else if len(pt.Parts) > 1 && p.Pattern.NumVertices() > 1 {
		tInter := time.Now()
		ip, err := interPlanFor(ctx, p, true, !e.Unshared)
		if err != nil {
			res.Partial = ctx.Err() != nil
			return res, st, err
		}
		is, stopped, err := e.runInterCount(ctx, p, pt.Of, ip, st)
		st.Seeds, st.InterNodes, st.InterBytes = is.seeds, is.nodes, is.bytes
		if err != nil {
			st.InterTime = time.Since(tInter)
			res.Partial = true
			return res, st, err
		}
		st.InterTime = time.Since(tInter)
		var ok bool
		if st.InterMatches, ok = ip.total(is.matches); !ok || is.overflow {
			return res, st, fmt.Errorf("pbe: %w", engine.ErrOverflow)
		}
		if res.Count, ok = checked.Add(st.IntraMatches, st.InterMatches); !ok {
			return res, st, fmt.Errorf("pbe: %w", engine.ErrOverflow)
		}
		if stopped {
			res.Partial = true
			return res, st, ctx.Err()
		}
	}
	if p.Progress != nil {
		p.Progress(1)
	}
	devStats()
	p.Logger().Debug("pbe count", "backend", be.Name(), "count", res.Count, "stats", st, "total", time.Since(t0))
	return res, st, nil
}

// runInterCount counts the inter-partition matches of ip on the host or, with InterGPU, on the
// GPU (on the host for a pattern deeper than the kernel's stack); stopped says the count was cut
// short by ctx (its error is then nil: the caller returns ctx's), err any other failure.
func (e *Engine) runInterCount(ctx context.Context, p *engine.Problem, of []uint32, ip *interPlan, st *Stats) (is interStats, stopped bool, err error) {
	if e.InterBackend == InterGPU {
		ds := &InterDeviceStats{}
		is, err = runInterGPU(ctx, p, p.Data, of, ip, ds)
		switch {
		case errors.Is(err, errTooDeep):
			p.Logger().Debug("pbe: the inter stage runs on the host", "reason", err)
		case err != nil && ctx.Err() != nil:
			st.InterDevice = ds
			return is, true, nil
		default:
			st.InterDevice = ds
			return is, false, err
		}
	}
	if err := e.checkInterHost(p, ip, p.ThreadCount(), st); err != nil {
		return is, false, err
	}
	is, stopped = runInter(ctx, p.Data, of, entryBytes(p.Data), ip, p.ThreadCount(), nil)
	return is, stopped, nil
}

// checkInterHost sets st.InterHostBytes to the host inter stage's memory on threads threads
// (interHostBytes) and fails with engine.ErrMemory where it passes the host limit (hostLimit).
func (e *Engine) checkInterHost(p *engine.Problem, ip *interPlan, threads int, st *Stats) error {
	st.InterHostBytes = interHostBytes(p.Data.NumVertices(), 2*p.Data.NumEdges(), plain(p.Data), ip, threads)
	if limit := e.interLimit(p, st); limit > 0 && st.InterHostBytes > limit {
		return fmt.Errorf("pbe: %w: the inter stage's bitsets and forward index need %d bytes on %d threads, the limit is %d",
			engine.ErrMemory, st.InterHostBytes, threads, limit)
	}
	return nil
}

// cached is the engine's last partitioning where it was of g with opts (its method resolved).
func (e *Engine) cached(g *graph.Graph, opts partition.Options) (*partition.Partitioning, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	c := e.cache
	if c.pt != nil && c.g == g && c.budget == opts.Budget && c.passes == opts.Passes &&
		c.method == partition.Resolve(opts.Method, g.NumEdges()) && c.tri == opts.Triangles {
		return c.pt, true
	}
	return nil, false
}

// oneAtATime reports whether the intra stage holds one part's subgraph a worker at a time
// (subProblems' searched): where --memory is the partition budget (it bounds a part, not the
// next parts built ahead beside it).
func (e *Engine) oneAtATime(p *engine.Problem) bool {
	return p.MemoryLimit > 0 && e.hostLimit(p) == 0
}

// interLimit is the host memory the inter stage's buffers may take beside the graph (0: no
// limit): what the partitioning, held through the count, leaves of --memory (the parts' copies
// are let go by then; where --memory is not the partition budget, hostLimit is --memory).
func (e *Engine) interLimit(p *engine.Problem, st *Stats) uint64 {
	if p.MemoryLimit == 0 {
		return 0
	}
	return limitLeft(p.MemoryLimit, st.PartitionHeldBytes)
}

// hostLimit is the host memory (--memory) the stages' own buffers may take beside the graph:
// p's MemoryLimit, unless that limit is the partition budget (no Budget, no GPUMemoryLimit:
// BudgetFor), which bounds the parts instead (0: no limit).
func (e *Engine) hostLimit(p *engine.Problem) uint64 {
	if e.Budget == 0 && p.GPUMemoryLimit == 0 {
		return 0
	}
	return p.MemoryLimit
}

// Matches implements engine.Engine: every part's matches, then the inter-partition ones (in p's
// dense ids, also when the stages ran on a label-induced subgraph).
func (e *Engine) Matches(ctx context.Context, p *engine.Problem) iter.Seq2[[]uint32, error] {
	return func(yield func([]uint32, error) bool) {
		if err := checkProblem(p); err != nil {
			yield(nil, err)
			return
		}
		st := &Stats{}
		rp, pt, err := e.prepare(ctx, p, st)
		if err != nil {
			yield(nil, err)
			return
		}
		if rp.Data == p.Data {
			e.matches(ctx, rp, pt, st, yield)
			return
		}
		buf := make([]uint32, p.Pattern.NumVertices())
		e.matches(ctx, rp, pt, st, func(m []uint32, err error) bool {
			if err != nil {
				return yield(nil, err)
			}
			for j, v := range m {
				buf[j] = uint32(rp.Data.OriginalID(v))
			}
			return yield(buf, nil)
		})
	}
}

// matches is Matches on p as given (no reduction), partitioned as pt.
func (e *Engine) matches(ctx context.Context, p *engine.Problem, pt *partition.Partitioning, st *Stats, yield func([]uint32, error) bool) {
	be := e.backend()
	buf := make([]uint32, p.Pattern.NumVertices())
	for i := range pt.Parts {
		if !holdsPattern(pt, i, p.Pattern.NumVertices()) {
			continue
		}
		sub, err := e.subProblem(p, pt, i)
		if err != nil {
			yield(nil, err)
			return
		}
		for m, err := range be.MatchesPart(ctx, sub) {
			if err != nil {
				yield(nil, err)
				return
			}
			if sub.Data == p.Data {
				copy(buf, m)
			} else {
				for j, v := range m {
					buf[j] = uint32(sub.Data.OriginalID(v))
				}
			}
			st.IntraMatches++
			if !yield(buf, nil) {
				return
			}
		}
	}
	if len(pt.Parts) == 1 || p.Pattern.NumVertices() < 2 {
		return
	}
	if !connected(p) {
		// The whole graph's matches (host) that span two parts or more.
		whole := *p
		whole.Progress, whole.MemoryLimit = nil, e.interLimit(p, st)
		for m, err := range (HostBackend{}).MatchesPart(ctx, &whole) {
			if err != nil {
				yield(nil, err)
				return
			}
			if spans(pt.Of, m) {
				st.InterMatches++
				if !yield(m, nil) {
					return
				}
			}
		}
		p.Logger().Debug("pbe matches", "backend", be.Name(), "stats", st)
		return
	}
	ip, err := interPlanFor(ctx, p, false, !e.Unshared)
	if err == nil {
		err = e.checkInterHost(p, ip, 1, st)
	}
	if err != nil {
		yield(nil, err)
		return
	}
	done := false
	_, stopped := runInter(ctx, p.Data, pt.Of, entryBytes(p.Data), ip, 1, ip.expand(func(f []uint32) bool {
		st.InterMatches++
		if !yield(f, nil) {
			done = true
			return false
		}
		return true
	}))
	if stopped && !done && ctx.Err() != nil {
		yield(nil, ctx.Err())
		return
	}
	p.Logger().Debug("pbe matches", "backend", be.Name(), "stats", st)
}
