package pbe

import (
	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/gpu"
	"github.com/submatch/submatch/partition"
)

// The pbe engine's measured costs, from which it predicts its time with the GPU backend
// (engine.Predictor) for --engine auto; re-tune them here after device runs.
const (
	// startSeconds is a count's floor besides partitioning: the device backend's first part
	// pays the GPU's start (H100, 2026-11-25, docs/benchmarks.md "pbe with the GPU backend":
	// 70-120 ms whole runs on graphs of a few MB, partitioning aside).
	startSeconds = 0.35
	// PartitionSecondsPerEdge is the multilevel partitioner's time per data edge (the same
	// runs: wiki-Vote's 100,762 edges in 0.7 s at a quarter of the graph; more parts take longer).
	PartitionSecondsPerEdge = 7e-6
	// GrowSecondsPerEdge is the breadth-first partitioner's time per data edge with
	// partition.AutoPasses passes, which partition.Auto uses above AutoMultilevelEdges (2-core
	// VM, 2026-12-02, docs/benchmarks.md, branch ooc5: R-MAT scale 20 with edge factor 40, 37 M
	// edges, in 2.6-4.1 s at a quarter of the graph).
	GrowSecondsPerEdge = 1e-7
	// InterSlowdown is the count's time, partitioning aside, over the CPU engine's on the same
	// threads: the inter-partition stage runs on the host, and on a power-law graph the
	// partitioner cuts most edges (R-MAT, ranges: 75% at scale 26, 81% at scale 17), so nearly
	// every match is an inter match, found from every cut edge in each of the pattern's edge
	// orders. Measured (2-core VM, 2026-12-03, branch pbe7): 3.4 times the CPU engine's CPU time
	// on R-MAT scale 17's triangles and 2.9 on scale 20's; 1.9 on scale 13's 4-cycles. Before,
	// the prediction took the CPU engine's own time, which auto never weighed above it anyway.
	InterSlowdown = 3.5
)

// partitionSeconds is the predicted partitioning time of g's m edges with method.
func partitionSeconds(method partition.Method, m uint64) float64 {
	if method == partition.Auto {
		method = partition.AutoMethod(m)
	}
	if method != partition.Multilevel { // Ranges: at most Grow's time (its scans on every core)
		return GrowSecondsPerEdge * float64(m)
	}
	return PartitionSecondsPerEdge * float64(m)
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

// Predict implements engine.Predictor, for the GPU backend with parts made for half of the
// workload's GPU memory (Prediction.Run). pbe is predicted only for a data graph that does not
// fit the GPU memory (partition.GraphBytes, engine.Workload.InCore): partitioning at
// PartitionSecondsPerEdge (GrowSecondsPerEdge where the breadth-first partitioner runs), then the
// inter-partition stage on the host at InterSlowdown times the planner's whole time (in every
// measurement the inter stage dominated and the intra share was under half).
func (e *Engine) Predict(w *engine.Workload) engine.Prediction {
	need, ineligible, ok := w.OutOfCoreOnly(partition.GraphBytes)
	if !ok {
		return ineligible
	}
	g := w.Problem.Data
	budget := uint64(float64(w.GPUMemory) * (1 - DefaultReserve))
	run := &Engine{Budget: budget, Backend: &DeviceBackend{}, Passes: e.Passes, Partitioner: e.Partitioner, Triangles: e.Triangles, Unshared: e.Unshared}
	s := startSeconds + partitionSeconds(e.Partitioner, g.NumEdges()) + InterSlowdown*w.HostSeconds
	return engine.Prediction{Seconds: s, OutOfCore: true, Run: run, Mode: "GPU backend",
		Note: gpu.FormatBytes(need) + " of graph in parts of " + gpu.FormatBytes(budget) + ", the inter stage on the host"}
}
