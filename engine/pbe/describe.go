package pbe

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/engine/cpu"
	"github.com/submatch/submatch/engine/internal/shapes"
	"github.com/submatch/submatch/gpu"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/partition"
	"github.com/submatch/submatch/pattern"
	"github.com/submatch/submatch/plan"
)

// The pbe engine's measured costs, from which it predicts its time with the GPU backend
// (engine.Predictor) for --engine auto; re-tune them here after device runs.
const (
	// startSeconds is a count's floor besides partitioning: the device backend's first part
	// pays the GPU's start (H100, 2026-11-25, docs/benchmarks.md "pbe with the GPU backend":
	// 70-120 ms whole runs on graphs of a few MB, partitioning aside).
	startSeconds = 0.35
	// PartitionSecondsPerEdge and PartitionSecondsPerPart are the multilevel partitioner's wall
	// time on the device host (a GPU host's cores, as the CPU engine's rates are taken there:
	// cpu.HostCoreSlowdown): PartitionSecondsPerEdge a data edge, plus PartitionSecondsPerPart
	// for each part times the square root of the edges (partsEstimate's parts). Fitted (2-core
	// VM, 2026-12-05, branch pbecal, docs/benchmarks.md; scripts/partbench) to the process's CPU
	// seconds, the partitioner alone, on R-MAT 14-18 (edge factor 16) and github, wiki-Vote,
	// email-Eu-core and HPRD at 1/2 to 1/16 of the graph (3 to 30 parts): 1.2e-6 CPU seconds an
	// edge and 1e-4 a part and root edge, within 0.57-1.47x of all 28 cases (a term per edge and
	// log(parts), the other form tried, 0.24-1.47x: at 24-30 parts the time per edge was 1.8x
	// the 3-part time on R-MAT 18 and 4.9x on R-MAT 14). Above AutoMultilevelEdges, where Auto
	// grows instead, the time per edge rises: R-MAT 19 and 20 took 1.6-2.1 times the fit. Those
	// CPU seconds are the DefaultCuts runs, which run at once on a host of 3 threads or more,
	// each on a core HostCoreSlowdown slower, hence the factor; each run's own parallel steps are
	// not counted (on the slow side). On the device host (H100, 2026-11-25, docs/benchmarks.md
	// "pbe with the GPU backend on the H100") the runs were then made one after the other:
	// wiki-Vote at 1/4 and 1/16 of the graph in 0.72 and 2.81 s, where the VM took 0.70 and
	// 2.50 s of wall time at load 5-8 the same day (the code of that day): the device host's one
	// thread no faster than a loaded VM's, as a core 2 times slower would be (not a clean check;
	// wiki-Vote at 1/4 takes 0.19 CPU seconds on the VM now). PartitionSecondsPerEdge was 7e-6, from that device run: 2.5-7 times the VM's wall
	// time now.
	PartitionSecondsPerEdge = 1.2e-6 * cpu.HostCoreSlowdown / partition.DefaultCuts
	PartitionSecondsPerPart = 1e-4 * cpu.HostCoreSlowdown / partition.DefaultCuts
	// GrowSecondsPerEdge is the breadth-first partitioner's time per data edge with
	// partition.AutoPasses passes, which partition.Auto uses above AutoMultilevelEdges (2-core
	// VM, 2026-12-02, docs/benchmarks.md, branch ooc5: R-MAT scale 20 with edge factor 40, 37 M
	// edges, in 2.6-4.1 s at a quarter of the graph).
	GrowSecondsPerEdge = 1e-7
	// InterSlowdown is the inter-partition stage's time, on the host, over the plain
	// depth-first search of the pattern that it runs (cpu.GenericSeconds of interEstimate's
	// plan: every vertex enumerated, symmetry broken; no clique counter, last-level sums or edge
	// supports, none of which the stage has), for every pattern but a chordless cycle
	// (InterCycleSlowdown). On a power-law graph the partitioner cuts most edges (R-MAT at a
	// quarter of the graph: 65-67% at scales 14-18), so most matches are inter matches, each
	// found from a cut edge in each of the pattern's edge orbits; the cut's share is not known
	// before partitioning and is left in this factor, fitted at a quarter of the graph. Fitted
	// (2-core VM at load 3.5-6.5, 2026-12-05, branch pbecal, docs/benchmarks.md): the stage's
	// CPU seconds over the plain search's price, R-MAT edge factor 16, triangles at scales
	// 14-18 (0.53-0.97), diamonds 14-16 (1.11-1.48), 4-cliques 14-18 (0.97-1.38), a 4-path
	// (1.19) and a tailed triangle (1.05) at scale 12, a 6-vertex walk on R-MAT 16 with 1,000
	// zipf labels (1.20): their geometric mean, 1.05. Before (branch pbepred2) it was 0.8, the
	// geometric mean with the 4-cycles in. (Since branch pbeq8 the stage counts the 4-path's, the
	// tailed triangle's and the walk's leaves at once: InterCountedSlowdown prices those now.)
	InterSlowdown = 1.0
	// InterCycleSlowdown is InterSlowdown for a chordless cycle of four vertices or more
	// (chordlessCycle): the same ratio was 0.22-0.38 for 4-cycles on R-MAT 10-16 and 0.27 for
	// 5-cycles on R-MAT 10 (the same runs; 0.31-0.32 in branch pbepred2's), geometric mean 0.28.
	// The stage's search is smaller than the plain one there: it opened 8.2 M inner nodes
	// (seeds included) for R-MAT 14's 4-cycles against the plain plan's 76 M, and 12 M for
	// R-MAT 10's 5-cycles against 56 M (DUPREMOVE drops a path as soon as one of its edges is a
	// cut edge below the seed's, and every inner step of a cycle adds an edge), where for
	// diamonds and 4-cliques on R-MAT 14 the two were within 5%.
	InterCycleSlowdown = 0.3
	// InterCountedSlowdown prices the host stage of a pattern it counts positions at once
	// (countsAtOnce: a counted tail of two positions or more, or a leaf's seeds searched
	// together; branch pbeq8), for which the plain search's price is far too high (it enumerates
	// those positions): it is the stage's time over the CPU engine's price of a plan that
	// postpones and counts the vertices its planner postpones (cpu.CountedSeconds of
	// estimateSearch's plan: the core's search and the groups' intersections). Fitted (2-core VM
	// at load 7.6-11, 2026-12-05, branch pbepred3, docs/benchmarks.md): the stage's CPU seconds
	// over that price were 3.8-27 (geometric mean 9.8) for the six counts of 0.05 CPU s or more
	// (R-MAT 18 with 1,000 zipf labels at 256 KiB, 12-vertex walks q_12_0 and q_12_1; 4-paths
	// and tailed triangles on R-MAT 12 and 14 at a quarter of the graph), 2.5-19 for the smaller
	// walks; InterSlowdown times the plain search's price was 4.5-78 times those six and up to
	// 380 times the walks. The stage runs one program per edge orbit, each searching its own
	// core, where the CPU engine searches one.
	InterCountedSlowdown = 10
	// InterGPUThreads and InterGPUSlowdown price the inter stage on the GPU (--pbe-inter gpu):
	// InterGPUSlowdown times the host stage's price on InterGPUThreads threads, whatever the
	// workload's threads (the kernel does not run on them). On the H200 (2026-12-04 19:47 and
	// 2026-12-05 05:25, docs/benchmarks.md, device calls 4 and 2) R-MAT scale 21's triangles
	// (31.8 M edges, 6 parts of 64 MiB) took 11.9 and 10.99 s in the GPU stage against 12.1 and
	// 11.79 s in the host stage on the device host's 16 threads, the adjacency read from mapped
	// host memory; that host stage was the one before branch pbehost, which made it 3.2-3.4 times
	// faster on triangles (2-core VM, R-MAT 18-20; 4.5-8x on 4-vertex patterns), and the GPU
	// stage has not run since. Triangles are the only pattern measured (4-cliques were cut at
	// 30 s both ways): a device run of both stages re-tunes these.
	InterGPUThreads  = 16
	InterGPUSlowdown = 3
	// ShapeCliqueSlowdown and ShapePassSlowdown are the inter stage's time, on the host, over
	// the CPU engine's price of the special path it shares for a shape (intershape.go,
	// shapeSeconds): the clique counter (cpu.CliqueSeconds) for cliques of 4 or more vertices,
	// the pass over the edges' common neighbours (cpu.SupportPassSeconds) for diamonds, both for
	// induced diamonds. Fitted (2-core VM at load 4.1-4.8, 2026-12-05, branch pbeclique,
	// docs/benchmarks.md): the shape count's CPU seconds (2 threads, the multilevel partitioner's
	// parts at a quarter of the graph) over those prices on unlabelled R-MAT 14, 16 and 18 (edge
	// factor 16): 4-cliques 0.76-0.82 and 5-cliques 1.35-2.1 of the clique price (the CPU
	// engine's own k-3 growth, which it shares: its 5-cliques took 8.6-9.0 CPU s on R-MAT 18
	// against 4.4 s), diamonds 1.32-1.44 of the pass's; induced diamonds, both, came out at
	// 0.98-1.07 of the unscaled sum. (InterSlowdown's diamonds and 4-cliques are the seeded
	// search's, which the GPU stage and a shape beyond --memory run.)
	ShapeCliqueSlowdown = 1.1
	ShapePassSlowdown   = 1.4
	// ShapeWedgeSlowdown and ShapeHouseSlowdown are the 4-cycles' wedge pass's time and the
	// houses' (the edges' pass keeping every edge's support, then the wedge pass summing them:
	// interwedge.go) over the price of the edges' pass (cpu.SupportPassSeconds), whose list
	// entries bound the wedges the wedge pass walks (a vertex's lower neighbours' lists below
	// it). Fitted (2-core VM at load 3-3.5, 2026-12-06, branch pbehouse, docs/benchmarks.md): the
	// shape count's CPU seconds (2 threads, the multilevel partitioner's 5-6 parts at a quarter
	// of the graph, the least of 3) over that price on unlabelled R-MAT 12, 13 and 14 (edge factor
	// 16): 4-cycles 2.61, 2.63, 2.76, houses 5.23, 5.14, 5.78 (4-paths 1.74, 1.57, 1.49 against
	// ShapePassSlowdown's 1.4, not refitted). Tailed 4-cycles (the edges' pass without the
	// supports, then the wedge pass summing degrees) take ShapeHouseSlowdown too: 5.4-6.3 at load
	// 5, where houses took 5.9-7.0.
	ShapeWedgeSlowdown = 2.7
	ShapeHouseSlowdown = 5.4
)

// partitionSeconds is the predicted partitioning time of m edges into parts with method.
func partitionSeconds(method partition.Method, m uint64, parts int) float64 {
	if method == partition.Auto {
		method = partition.AutoMethod(m)
	}
	if method != partition.Multilevel { // Ranges: at most Grow's time (its scans on every core)
		return GrowSecondsPerEdge * float64(m)
	}
	return PartitionSecondsPerEdge*float64(m) + PartitionSecondsPerPart*float64(parts)*math.Sqrt(float64(m))
}

// partsEstimate is the parts the multilevel partitioner is predicted to make of bytes
// (partition.GraphBytes) within budget: its first attempt's, the bytes over DefaultFill of the
// budget (at least 2). Halos make it more: the 28 partitionings of PartitionSecondsPerEdge's fit
// had 1.0-1.2 times these at 1/2 to 1/8 of the graph and 1.3-1.6 times at 1/16; the fit is
// against this estimate.
func partsEstimate(bytes, budget uint64) int {
	return max(2, int(math.Ceil(float64(bytes)/(partition.DefaultFill*float64(max(budget, 1))))))
}

// Kernels implements engine.KernelUser: those of the device engine its GPU backend runs the
// parts on (DefaultDeviceEngine, from the registry), which compiles them on the first part.
func (*Engine) Kernels(w *engine.Workload) []engine.Kernel {
	e, err := (&DeviceBackend{}).device()
	if err != nil {
		return nil
	}
	if ku, ok := e.(engine.KernelUser); ok {
		return ku.Kernels(w)
	}
	return nil
}

// StartSeconds implements engine.Predictor.
func (*Engine) StartSeconds() float64 { return startSeconds }

// The reduction to the pattern's labels (reduce.go) as a prediction sees it: sizes from the label
// index and a sample (graph.LabelledShareEstimate: within 1% of the exact figures on R-MAT scale
// 20 with 1,000 zipf labels and five 8-vertex walks, in 4-15 ms of the 2-core VM at load 5-6),
// costs measured there (2026-12-04, docs/benchmarks.md, branch pbepred).
const (
	// shareSamples is the sample of each pattern label's vertices the prediction reads.
	shareSamples = 1024
	// ReduceSecondsPerVertex and ReduceSecondsPerEntry are the reduction's time (LabelledShare,
	// then InducedByVertexLabels): a pass over every vertex's label, and the kept vertices' runs
	// and entries, ReduceSecondsPerEntry thread-seconds for each entry of their whole adjacency
	// (on every core). R-MAT scale 20, edge factor 27, 1,000 zipf labels, five 8-vertex walks:
	// 1.0 M vertices, the kept vertices' adjacency 9.3-12.1 M entries, reduced in 0.18-0.50 s on
	// 2 threads (the VM under load 4-6; the model says 0.21-0.23 s).
	ReduceSecondsPerVertex = 5e-8
	ReduceSecondsPerEntry  = 3e-8
	// KindSecondsPerLookup is the making of the subgraph of the pattern's edge kinds
	// (graph.SubgraphByEdgeKinds, where reduce.go takes it) a run lookup: a binary search of a
	// vertex of the pattern's labels for one (neighbour label, edge label) pair its label keeps
	// (graph.EdgeKindShareEstimate's lookups; the kept entries at ReduceSecondsPerEntry).
	KindSecondsPerLookup = 1e-7
	// PlanSecondsPerEntry is the device engine's planning of the reduced graph, which auto's plan
	// (of the whole graph) does not spare it: the CPU planner's 6-66 ms for the same five reduced
	// graphs (1.7-2.9 M entries; 3.5e-9 to 2.3e-8 s an entry, the high end under load 6).
	PlanSecondsPerEntry = 1e-8
)

// predictedReduction is what the prediction expects of reduce.go for w's problem: whether the
// stages run on the label-induced subgraph, its vertices, edges and bytes (partition.GraphBytes,
// with the data graph's entry size), and the time to make it.
type predictedReduction struct {
	ok           bool
	skipped      string // why reduce would not make it under --memory ("" when it would, or for another reason)
	vertices     int
	edges, bytes uint64
	seconds      float64
}

// predictReduction estimates reduce's subgraph of w's problem (ok false where reduce keeps the
// whole graph: a wildcard vertex, one label, more than ReduceMaxShare of the adjacency, or a
// making over the problem's MemoryLimit, as reduce decides it: skipped then says so): the
// edges of the pattern's kinds (graph.EdgeKindShareEstimate) where reduce takes them (edgeKinds),
// else the label-induced subgraph (graph.LabelledShareEstimate).
func predictReduction(w *engine.Workload) predictedReduction {
	p := w.Problem
	if p.Pattern == nil || p.Pattern.NumVertices() == 0 {
		return predictedReduction{}
	}
	labels, ok := patternLabels(p)
	if !ok {
		return predictedReduction{}
	}
	g := p.Data
	if kinds := edgeKinds(p, labels); kinds != nil {
		vs, lookups, entries, _ := g.EdgeKindShareEstimate(kinds, shareSamples)
		if float64(entries) > ReduceMaxShare*float64(2*g.NumEdges()) {
			return predictedReduction{}
		}
		if limit := p.MemoryLimit; limit > 0 {
			// (reduce refuses a making over --memory: graph.EdgeKindsBytes, here of the
			// estimated size with a run a kept vertex)
			c := 0
			for _, l := range labels {
				c += len(g.VerticesWithLabel(l))
			}
			size := graph.SubgraphSize{Vertices: vs, Entries: entries, Runs: uint64(vs), MaxLabel: labels[len(labels)-1]}
			if need := g.EdgeKindsBytes(c, size); need > limit {
				return predictedReduction{skipped: fmt.Sprintf("the pattern's edge kinds' subgraph needs about %s to make, over --memory", gpu.FormatBytes(need))}
			}
		}
		return predictedReduction{ok: true, vertices: vs, edges: entries / 2,
			bytes:   uint64(vs)*partition.VertexBytes + entries*entryBytes(g),
			seconds: (KindSecondsPerLookup*float64(lookups) + ReduceSecondsPerEntry*float64(entries)) / float64(max(1, w.Threads))}
	}
	vs, entries, degrees, _ := g.LabelledShareEstimate(labels, shareSamples)
	if vs >= g.NumVertices() || float64(entries) > ReduceMaxShare*float64(2*g.NumEdges()) {
		return predictedReduction{}
	}
	if limit := p.MemoryLimit; limit > 0 {
		// reduce's own decision (its exact size: a pass over the labels and runs, only under a
		// limit).
		if need := g.InducedBytes(g.InducedSize(labels)); need > limit {
			return predictedReduction{skipped: fmt.Sprintf("the label-induced subgraph needs %s to make, over --memory", gpu.FormatBytes(need))}
		}
	}
	return predictedReduction{ok: true, vertices: vs, edges: entries / 2,
		bytes:   uint64(vs)*partition.VertexBytes + entries*entryBytes(g),
		seconds: ReduceSecondsPerVertex*float64(g.NumVertices()) + ReduceSecondsPerEntry*float64(degrees)/float64(max(1, w.Threads))}
}

// onePart reports whether partition.Partition makes one part of a graph of bytes
// (partition.GraphBytes), edges and n vertices within budget with method: Multilevel takes the
// graph whole when it fits the budget; Grow and Ranges fill a part to partition.DefaultFill of it,
// Grow counting the unplaced neighbours of the part as its halo meanwhile (at most every vertex).
func onePart(method partition.Method, n int, edges, bytes, budget uint64) bool {
	if method == partition.Auto {
		method = partition.AutoMethod(edges)
	}
	switch method {
	case partition.Multilevel:
		return bytes <= budget
	case partition.Grow:
		bytes += uint64(n) * partition.HaloBytes
	}
	return float64(bytes) <= partition.DefaultFill*float64(budget)
}

// deviceInCore is the device engine's prediction (DefaultDeviceEngine, from the registry) of its
// count of the whole search with its data in GPU memory (the workload's memory taken as unknown:
// engine.Workload.GPUMemory), what one part's intra stage runs; false when it does not predict or
// cannot take it; an error when ctx ends during that prediction.
func deviceInCore(ctx context.Context, w *engine.Workload) (engine.Prediction, bool, error) {
	e, err := (&DeviceBackend{}).device()
	if err != nil {
		return engine.Prediction{}, false, nil
	}
	pr, ok := e.(engine.Predictor)
	if !ok {
		return engine.Prediction{}, false, nil
	}
	in := *w
	in.GPUMemory, in.DeviceMemory = 0, 0
	d, err := pr.Predict(ctx, &in)
	return d, err == nil && d.Eligible(), err
}

// Predict implements engine.Predictor, for the GPU backend with parts made for half of the
// workload's GPU memory (Prediction.Run). pbe is predicted only for a data graph that does not
// fit the GPU memory (partition.GraphBytes, engine.Workload.InCore). The stages run on the
// subgraph induced by the pattern's labels where reduce.go takes it (predictReduction: its size
// estimated from the label index and a sample, its making at ReduceSecondsPerVertex and
// ReduceSecondsPerEntry). When that subgraph makes one part (onePart) there is no inter stage:
// the count is the device engine's on it, predicted by that engine in core (deviceInCore), plus
// its planning of the subgraph (PlanSecondsPerEntry); the data then lies in GPU memory, and the
// prediction is not out of core. Otherwise: partitioning at PartitionSecondsPerEdge and
// PartitionSecondsPerPart (partsEstimate's parts; GrowSecondsPerEdge where the breadth-first
// partitioner runs), then the inter-partition stage on the host (interSeconds: for a clique or
// a diamond the CPU engine's price of the special path the stage shares, shapeSeconds; where the
// stage counts positions at once, InterCountedSlowdown times the CPU engine's price of a counted
// plan; else InterSlowdown times the plain search of the pattern that the stage runs, priced as
// the CPU engine prices such a search; in every measurement the inter stage dominated and the intra
// share was under half), or on the GPU (InterGPUSlowdown times that search's price on
// InterGPUThreads threads: the device counts no shape). The
// reduction's estimate is sampled (a few ms), the inter stage's estimate bounded by work
// (interEstimateWork); ctx is checked before them and by the device engine's prediction and the
// estimate.
func (e *Engine) Predict(ctx context.Context, w *engine.Workload) (engine.Prediction, error) {
	if err := engine.PredictionStopped(ctx, "pbe"); err != nil {
		return engine.Prediction{}, err
	}
	need, ineligible, ok := w.OutOfCoreOnly(partition.GraphBytes)
	if !ok {
		return ineligible, nil
	}
	g := w.Problem.Data
	budget := uint64(float64(w.GPUMemory) * (1 - DefaultReserve))
	run := &Engine{Budget: budget, Backend: &DeviceBackend{}, Passes: e.Passes, Partitioner: e.Partitioner, Triangles: e.Triangles, Unshared: e.Unshared, InterBackend: e.InterBackend}
	r := predictReduction(w)
	inter, iw, slowdown := ", the inter stage on the host", w, 1.0
	if e.InterBackend == InterGPU {
		inter = fmt.Sprintf(", the inter stage on the GPU (priced as %g times the host stage on %d threads)", float64(InterGPUSlowdown), InterGPUThreads)
		gw := *w
		gw.Threads = InterGPUThreads
		iw, slowdown = &gw, InterGPUSlowdown
	}
	edges, bytes, what, parts := g.NumEdges(), need, gpu.FormatBytes(need)+" of graph", " in parts of "+gpu.FormatBytes(budget)+inter
	if r.skipped != "" {
		what += " (" + r.skipped + ": the stages run on the whole graph)"
	}
	if r.ok {
		edges, bytes, what = r.edges, r.bytes, "the pattern's labels leave "+gpu.FormatBytes(r.bytes)+" of "+gpu.FormatBytes(need)
		if onePart(e.Partitioner, r.vertices, r.edges, r.bytes, budget) {
			d, ok, err := deviceInCore(ctx, w)
			if err != nil {
				return engine.Prediction{}, err
			}
			if ok { // (the partitioner's pass over one part's graph at GrowSecondsPerEdge)
				s := r.seconds + GrowSecondsPerEdge*float64(r.edges) + PlanSecondsPerEntry*float64(2*r.edges) + d.Seconds
				return engine.Prediction{Seconds: s, Run: run, Mode: "GPU backend, one part",
					Note: what + ": one part of " + gpu.FormatBytes(budget) + ", no inter stage; " + d.Note}, nil
			}
			// (Priced as the stages beyond one part, on the slow side.)
			parts = ": one part of " + gpu.FormatBytes(budget) + ", which the device engine does not predict"
		}
	}
	host, err := interSeconds(ctx, iw)
	if e.InterBackend == InterGPU {
		host, err = searchSeconds(ctx, iw) // (the device counts no shape)
	}
	if err != nil {
		return engine.Prediction{}, err
	}
	s := startSeconds + r.seconds + partitionSeconds(e.Partitioner, edges, partsEstimate(bytes, budget)) + slowdown*host
	return engine.Prediction{Seconds: s, OutOfCore: true, Run: run, Mode: "GPU backend", Note: what + parts}, nil
}

// The inter stage's estimate (interEstimate) is bounded as --engine auto bounds the planner's:
// at most interEstimateProbes probes and, after interEstimateMinProbes, interEstimateWork list
// entries read, from a fixed seed (deterministic).
const (
	interEstimateProbes    = 4096
	interEstimateMinProbes = 64
	interEstimateWork      = 500_000
)

// interEstimate is the estimate (plan.Estimate) of the plain depth-first search of w's pattern
// that pbe's inter stage runs from each cut edge: a plan that enumerates every pattern vertex
// (plan.Options.Enumerate: no vertex postponed and counted) with the pattern's symmetry broken
// (the stage's orbits), and no candidate space. The planner's own plan and estimate
// (engine.Workload.Plan, Estimate) are taken where that plan is such a search already
// (no postponed group); a clique workload has neither (engine.Workload.Clique).
func interEstimate(ctx context.Context, w *engine.Workload) (*plan.Estimate, error) {
	if w.Plan != nil && w.Estimate != nil && len(w.Plan.Groups) == 0 {
		return w.Estimate, nil
	}
	return estimateSearch(ctx, w.Problem, true)
}

// estimateSearch is interEstimate's plan and estimate of p, enumerating every vertex or (not
// enumerate) postponing and counting those the planner postpones, as the CPU engine's plan does
// (countedEstimate).
func estimateSearch(ctx context.Context, p *engine.Problem, enumerate bool) (*plan.Estimate, error) {
	pl, err := plan.BuildContext(ctx, p.Data, p.Pattern, plan.Options{Induced: p.Semantics.Induced,
		Unique: p.Semantics.Unique, Enumerate: enumerate, MultiplyAutomorphisms: !p.Semantics.Unique, SpaceLimit: -1})
	if err != nil {
		return nil, fmt.Errorf("pbe: the inter stage's plan: %w", err)
	}
	est, err := pl.Estimate(ctx, p.Data, plan.EstimateOptions{Seed: 1, Probes: interEstimateProbes,
		MinProbes: interEstimateMinProbes, WorkLimit: interEstimateWork})
	if err != nil {
		return nil, fmt.Errorf("pbe: the inter stage's estimate: %w", err)
	}
	return &est, nil
}

// interSeconds is the predicted time of the inter stage on the host on w's threads: a shape's
// count where the stage takes one (shapeSeconds); where the stage counts positions at once
// (countsAtOnce), InterCountedSlowdown times the CPU engine's price of a plan that postpones and
// counts the vertices its planner postpones (estimateSearch, cpu.CountedSeconds: the core's
// search and the postponed groups' intersections); else its seeded search's (searchSeconds).
func interSeconds(ctx context.Context, w *engine.Workload) (float64, error) {
	if s, ok := shapeSeconds(w); ok {
		return s, nil
	}
	if w.Problem.Pattern == nil {
		return 0, errors.New("pbe: a prediction needs a pattern")
	}
	counts, err := countsAtOnce(ctx, w.Problem)
	if err != nil || !counts {
		return searchSeconds(ctx, w)
	}
	est, err := estimateSearch(ctx, w.Problem, false)
	if err != nil {
		return 0, err
	}
	return InterCountedSlowdown * cpu.CountedSeconds(est, w.Threads), nil
}

// searchSeconds is the predicted time of the inter stage's seeded search, every position
// enumerated, on w's threads: InterSlowdown (InterCycleSlowdown for a chordless cycle) times
// plainSeconds. The GPU stage (InterGPU), which enumerates every position, is priced from it too
// (InterGPUSlowdown).
func searchSeconds(ctx context.Context, w *engine.Workload) (float64, error) {
	if w.Problem.Pattern == nil {
		return 0, errors.New("pbe: a prediction needs a pattern")
	}
	slowdown := InterSlowdown
	if chordlessCycle(w.Problem.Pattern) {
		slowdown = InterCycleSlowdown
	}
	plain, err := plainSeconds(ctx, w)
	return slowdown * plain, err
}

// plainSeconds is the CPU engine's price of the plain search (cpu.GenericSeconds) of
// interEstimate on w's threads, never its special paths' price (engine.Workload.HostSeconds):
// the inter stage has none.
func plainSeconds(ctx context.Context, w *engine.Workload) (float64, error) {
	est, err := interEstimate(ctx, w)
	if err != nil {
		return 0, err
	}
	return cpu.GenericSeconds(est, w.Threads), nil
}

// countsAtOnce reports whether a count of w's pattern on the host places some positions at once
// where it would otherwise enumerate them (InterCountedSlowdown prices it): some program of the
// stage's (newInterPlan, shared, the candidates unknown) has a counted tail of two positions or
// more, or searches a leaf's seeds together (program.counted, which the stage's searcher asks,
// with the tail's lists sorted where the labels are exact or the graph plain; the candidate
// space, which sorts the rest, is not known here). The error is ctx's.
func countsAtOnce(ctx context.Context, p *engine.Problem) (bool, error) {
	if p.Semantics.Induced || p.Pattern.NumVertices() < 3 || len(p.Pattern.Components()) != 1 {
		return false, nil // (induced: a tail of one, no leaf seeds; the stage runs connected patterns)
	}
	ip, err := newInterPlan(ctx, p.Pattern, false, p.Semantics.Unique, true, true, nil)
	if err != nil {
		return false, fmt.Errorf("pbe: the inter stage's programs: %w", err)
	}
	flat := plain(p.Data)
	for i := range ip.programs {
		pr := &ip.programs[i]
		if tail, leafSeed := pr.counted(pr.tailExact || flat); tail < len(pr.steps)-1 || leafSeed {
			return true, nil
		}
	}
	return false, nil
}

// chordlessCycle reports whether p is one cycle through all of its four or more vertices
// (connected, every vertex of degree 2), whose inter stage InterCycleSlowdown prices.
func chordlessCycle(p *pattern.Pattern) bool {
	n := p.NumVertices()
	if n < 4 || len(p.Components()) != 1 {
		return false
	}
	for u := range n {
		if p.Degree(u) != 2 {
			return false
		}
	}
	return true
}

// shapeSeconds is the predicted time of the inter stage's count of w's pattern as a shape
// (shapes.Of, without a memory limit) on w's threads: the CPU engine's price of its clique counter
// for a clique of 4 or more vertices (cpu.CliqueSeconds, from the squared upward degrees) times
// ShapeCliqueSlowdown and of its edge supports' pass for a diamond, a tailed triangle or a path
// of 4 vertices (the same pass, cpu.SupportPassSeconds) times ShapePassSlowdown, both for an
// induced diamond, and that pass's price times ShapeWedgeSlowdown for a 4-cycle's wedge pass or
// ShapeHouseSlowdown for a house's or a tailed 4-cycle's passes, the sum of its shapes' for an
// induced 4-path or 4-cycle (shapes.Shape.Work); false when the stage searches, or for triangles, whose count the seeded
// search's price stands for (the two took the same time on R-MAT 18, and the CPU engine has no
// clique price for them).
func shapeSeconds(w *engine.Workload) (float64, bool) {
	p := w.Problem
	if p == nil || p.Data == nil || p.Pattern == nil {
		return 0, false
	}
	sh, ok := shapes.Of(p, 0)
	wk := sh.Work()
	if !ok || wk.EdgePasses == 0 && wk.Wedge == shapes.NoWedge && wk.CliqueK < 4 {
		return 0, false
	}
	rates := cpu.ShapeRates{Pass: ShapePassSlowdown, Wedge: ShapeWedgeSlowdown, House: ShapeHouseSlowdown, Clique: ShapeCliqueSlowdown}
	return cpu.ShapeSeconds(wk, rates, p.Data, w.UpwardSquares, max(1, w.Threads)), true
}
