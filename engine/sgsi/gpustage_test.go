package sgsi

import (
	"context"
	"testing"

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
