package main

import (
	"context"
	"fmt"
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

// chooseEngine resolves --engine auto: the CPU engine (csm.DefaultEngine), unless the data graph
// is large (its file, or with --resume the checkpoint's graph, at least watchAutoGPUBytes), a
// registered engine says it suits the run (csm.AutoCandidate: dcsm for updates reported one by
// one, gcsm for batches of 64 or more), takes the patterns (csm.PatternChecker) and a GPU is
// usable. When that engine then fails to open, runWatch falls back to the CPU engine. The
// choice is logged (-v).
func (f *watchFlags) chooseEngine(ctx context.Context, data string, pats []*pattern.Pattern, log *slog.Logger) string {
	if f.resume != "" {
		data = checkpointGraph(f.resume)
	}
	choose := func(name, why string) string {
		log.Debug("watch: --engine auto", "engine", name, "why", why)
		return name
	}
	if st, err := os.Stat(data); err != nil || st.Size() < watchAutoGPUBytes {
		return choose(csm.DefaultEngine, "a small data graph (under 64 MiB as a file): the CPU engine is faster there")
	}
	run := csm.RunShape{Batch: f.batch, ByTime: f.interval > 0, Window: f.window > 0}
	sem := engine.Semantics{Induced: f.induced, Unique: f.unique}
	why := fmt.Sprintf("no GPU engine is made for this run (batches of %d)", f.batch)
	for _, eng := range csm.Engines() {
		if c, ok := eng.(csm.AutoCandidate); !ok || !c.Suits(run) {
			continue
		}
		if pc, ok := eng.(csm.PatternChecker); ok {
			if err := pc.CheckPatterns(pats, sem); err != nil {
				why = eng.Name() + " does not take the patterns: " + err.Error()
				continue
			}
		}
		if _, err := gpu.Open(ctx); err != nil {
			return choose(csm.DefaultEngine, "no usable GPU: "+err.Error())
		}
		return choose(eng.Name(), "a large data graph and a usable GPU")
	}
	return choose(csm.DefaultEngine, why)
}
