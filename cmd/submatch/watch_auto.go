package main

import (
	"context"
	"log/slog"
	"os"

	"github.com/submatch/submatch/csm"
	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/gpu"
	"github.com/submatch/submatch/pattern"
)

// watchAutoGPUBytes is the smallest data graph file that --engine auto puts on a GPU engine (a
// variable for the tests).
// Below it the CPU engine is faster: on email10 (a few MB) the host's validation and graph
// update alone take the CPU engine's whole time, so DCSM runs at 0.44-0.63x and GCSM loses up
// to batches of 4,096; on R-MAT scale 20 (about 250 MB as text) GCSM takes 2.1-3.5x less than
// the CPU engine on 16 cores at batches of 64 to 8,192, and DCSM 11-29x less than one thread
// on R-MAT scale 14 streams (docs/benchmarks.md). It is also the largest file that the
// two-thread modes of the CPU engine read whole (splitMaxBytes), so those stay with the CPU.
var watchAutoGPUBytes int64 = splitMaxBytes

// chooseEngine resolves --engine auto: the CPU engine, unless the data graph is large (its file,
// or with --resume the checkpoint's graph, at least watchAutoGPUBytes), a GPU is usable and the
// GPU engine takes the patterns (when that engine then fails to open, runWatch falls back to the
// CPU engine): then dcsm for a stream reported update by update (--batch 1,
// no --batch-interval or --window) and gcsm for batches of 64 or more (or by time interval);
// the CPU engine for smaller batches, where no GPU engine was measured. The choice is logged
// (-v).
func (f *watchFlags) chooseEngine(ctx context.Context, data string, pats []*pattern.Pattern, log *slog.Logger) string {
	if f.resume != "" {
		data = f.resume + ".smg"
	}
	choose := func(name, why string) string {
		log.Info("watch: --engine auto", "engine", name, "why", why)
		return name
	}
	var gpuName string
	switch {
	case f.batch == 1 && f.interval == 0 && f.window == 0:
		gpuName = "dcsm"
	case f.batch >= 64 || f.interval > 0:
		gpuName = "gcsm"
	default:
		return choose("cpu", "batches of 2 to 63 updates: no GPU engine measured to pay there")
	}
	if st, err := os.Stat(data); err != nil || st.Size() < watchAutoGPUBytes {
		return choose("cpu", "a small data graph (under 64 MiB as a file): the CPU engine is faster there")
	}
	eng, err := csm.Lookup(gpuName)
	if err != nil {
		return choose("cpu", "no GPU engine in this build")
	}
	if pc, ok := eng.(csm.PatternChecker); ok {
		if err := pc.CheckPatterns(pats, engine.Semantics{Induced: f.induced, Unique: f.unique}); err != nil {
			return choose("cpu", "the GPU engine does not take the patterns: "+err.Error())
		}
	}
	if _, err := gpu.Open(ctx); err != nil {
		return choose("cpu", "no usable GPU: "+err.Error())
	}
	return choose(gpuName, "a large data graph and a usable GPU")
}
