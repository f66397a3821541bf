package sgsi

import (
	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/gpu"
)

// The sgsi engine's measured costs, from which it predicts its time (engine.Predictor) for
// --engine auto; re-tune them here after device runs.
const (
	// startSeconds is a count's whole-process floor (H200, 2026-12-02, docs/benchmarks.md "SGSI
	// out of core, fourth pass": github Q_2 and Q_6 356-419 ms whole process in and out of core).
	startSeconds = 0.35
	// OneThreadSlowdown is sgsi's time out of core over the CPU engine's on one thread (the
	// same run: wiki-Vote's 4-clique embeddings at a quarter of the graph, 2,032 ms whole
	// process, against 66 ms for the CPU engine on 16 threads, about 1 s on one).
	OneThreadSlowdown = 2
)

// coldCompileSeconds is the kernel's cold NVRTC compile, paid by the first count on a machine
// whose kernel cache does not hold it (engine.KernelUser): 259 ms with `submatch gpu-info
// --compile` on a fresh H200 host (2026-12-02), taken 1.5x (hosts differ), on the side of the CPU.
const coldCompileSeconds = 0.4

// Kernels implements engine.KernelUser.
func (Engine) Kernels(*engine.Workload) []engine.Kernel {
	return []engine.Kernel{{File: kernelFile, ColdSeconds: coldCompileSeconds}}
}

// StartSeconds implements engine.Predictor.
func (Engine) StartSeconds() float64 { return startSeconds }

// Predict implements engine.Predictor. sgsi is predicted only for a data graph that does not fit
// the GPU memory (GraphBytes, engine.Workload.InCore; in core the other GPU engines are faster in
// every measurement), as OneThreadSlowdown times the planner's time on one thread, taken as
// its time on Threads threads times Threads (no thread scales perfectly, so this is on the slow
// side).
func (Engine) Predict(w *engine.Workload) engine.Prediction {
	need, ineligible, ok := w.OutOfCoreOnly(GraphBytes)
	if !ok {
		return ineligible
	}
	s := startSeconds + OneThreadSlowdown*w.HostSeconds*float64(max(1, w.Threads))
	return engine.Prediction{Seconds: s, OutOfCore: true,
		Note: gpu.FormatBytes(need) + " of graph streamed through " + gpu.FormatBytes(w.GPUMemory) + " of GPU memory"}
}
