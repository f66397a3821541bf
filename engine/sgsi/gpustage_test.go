package sgsi

import (
	"context"
	"testing"
	"time"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/gpu"
	"github.com/submatch/submatch/internal/proptest"
)

// TestGPUStagingSampled runs TestStagingOnQueue's cases on the GPU backend with its staging
// buffer cut to a few dozen to hundreds of words and the sampling on from the start (most calls
// not timed): the device then runs copies long after they were queued, as at R-MAT scale 23
// (issue 21, where the staging buffer's reuse before they had run faulted a kernel). The counts
// must agree with the host emulation's. It skips without a GPU.
func TestGPUStagingSampled(t *testing.T) {
	ctx := context.Background()
	if devs, err := gpu.Open(ctx); err != nil || len(devs) == 0 {
		t.Skipf("no GPU: %v", err)
	}
	seeds, _ := proptest.Seeds(t, 12, 12)
	stagingRuns(t, seeds, blockThreads, "(GPU) ./engine/sgsi -run TestGPUStagingSampled", func(words, stage uint64, timing bool) (Backend, func() error) {
		be, err := newGPUBackend(ctx, &engine.Problem{GPUMemoryLimit: 4 * words}, Options{}, &Stats{})
		if err != nil {
			t.Fatal(err)
		}
		b := be.(*gpuBackend)
		b.q.buf = b.q.buf[:stage]
		b.q.timing = b.q.timing && timing
		b.q.sample.ops = [2]uint64{timeAll, timeAll}
		return b, func() error { _, _, err := b.DeviceTimes(); return err }
	})
}

// TestGPUPipelineStaging runs TestPipelineOnModel's counts on the GPU backend's pipeline (two
// streams, Options.Overlap) with its pinned staging buffers cut to 64 to 512 words, so that the
// host waits for the copy stream over and over while kernels run on the other: every count
// must equal the serial host emulation's, and some must have gone through the pipeline. It
// skips without a GPU.
func TestGPUPipelineStaging(t *testing.T) {
	ctx := context.Background()
	if devs, err := gpu.Open(ctx); err != nil || len(devs) == 0 {
		t.Skipf("no GPU: %v", err)
	}
	var runs, pipelined int
	var overlap time.Duration
	pipeCases(t, func(name string, div uint64, newRunner func(be Backend) *runner, induced, unique bool) {
		serial, words := serialReference(t, name, div, newRunner, induced, unique)
		be, err := newGPUBackend(ctx, &engine.Problem{GPUMemoryLimit: 4 * words}, Options{}, &Stats{})
		if err != nil {
			t.Fatal(err)
		}
		defer be.Close()
		b := be.(*gpuBackend)
		if _, ok, err := b.pipe(); err != nil || !ok {
			t.Skipf("no pipeline on this driver: %v", err)
		}
		stage := 64 << (runs % 4)
		for i := range b.gp.words {
			b.gp.words[i] = b.gp.words[i][:stage]
		}
		r := newRunner(b)
		r.overlapGen, r.overlapTable = true, true
		err = schedule(b, true, func() error { return r.run(induced, unique) })
		if _, _, e := b.DeviceTimes(); err == nil {
			err = e
		}
		runs++
		if err != nil || r.total != serial.total {
			t.Fatalf("%s, region %d words, staging %d words: GPU overlapped %d (%v), serial emulation %d", name, words, stage, r.total, err, serial.total)
		}
		if r.st.Pipelined > 0 {
			pipelined++
		}
		overlap += r.st.Overlap
	})
	t.Logf("%d runs, %d through the pipeline, %v of copies and kernels overlapped in all", runs, pipelined, overlap)
	if pipelined == 0 {
		t.Error("no count went through the pipeline")
	}
}
