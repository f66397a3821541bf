package dcsm

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/submatch/submatch/csm"
	"github.com/submatch/submatch/csm/internal/csmtest"
	"github.com/submatch/submatch/formats/updates"
	"github.com/submatch/submatch/gpu"
	"github.com/submatch/submatch/graph/dynamic"
	"github.com/submatch/submatch/internal/cudacheck"
	"github.com/submatch/submatch/internal/testenv"
	"github.com/submatch/submatch/pattern"
)

// The TestGPU* tests run the kernels; they skip without a GPU.

func TestKernelSyntax(t *testing.T) { cudacheck.Syntax(t, kernelFile, kernelSource()) }

func needGPU(t *testing.T) {
	t.Helper()
	if _, err := gpu.Open(context.Background()); err != nil {
		t.Skip("no GPU:", err)
	}
}

func openGPU(g *dynamic.Graph, pats []*pattern.Pattern, opts csm.Options) (*Matcher, error) {
	return open(g, pats, opts, func(t *table) (backend, error) { return openDevice(t, 0) })
}

// TestOpenNoGPU: without a GPU the engine refuses with an error wrapping gpu.ErrNoGPU.
func TestOpenNoGPU(t *testing.T) {
	if _, err := gpu.Open(context.Background()); err == nil {
		t.Skip("a GPU is present")
	}
	e, err := csm.Lookup("dcsm")
	if err != nil {
		t.Fatal(err)
	}
	p, _ := pattern.Parse("(a)-(b)")
	if _, err := e.Open(dynamic.New(), []*pattern.Pattern{p}, csm.Options{}); !errors.Is(err, gpu.ErrNoGPU) {
		t.Fatalf("Open without a GPU: %v, want an error wrapping gpu.ErrNoGPU", err)
	}
}

// TestGPURandom: the kernels give the CPU engine's per-update deltas on random streams.
func TestGPURandom(t *testing.T) {
	needGPU(t)
	seeds := testenv.Sweep(150, 600)
	sweep(t, seeds, openGPU)
}

// TestGPUEmit: the kernels' listing (dcsm_match's per-search counts, then dcsm_list over groups
// of searches and over windows of one search's matches, with buffers of 3 to 65,536 matches)
// gives the CPU engine's signed matches per update on random streams, in every convention.
func TestGPUEmit(t *testing.T) {
	needGPU(t)
	seeds := testenv.Sweep(80, 300)
	// Buffers of 3 matches and more: a window is a launch and three copies.
	listSweep(t, seeds, openGPU, []uint64{3, 7, 64, DefaultListCap})
}

// TestGPUEmail10: per-update deltas equal the CPU engine's on the public email10 workload (its
// stream's duplicate inserts skipped), for a few of its queries of each size, in every
// convention (the 8-vertex ones embeddings only: the CPU reference is slow there).
func TestGPUEmail10(t *testing.T) {
	needGPU(t)
	email10(t, openGPU)
}

// TestGPUUtilisation: the device time of email10's waves (CUDA events around their kernels)
// is measured, and it is within the time spent applying the stream; the emulation reports none.
func TestGPUUtilisation(t *testing.T) {
	needGPU(t)
	mk, stream, byName := csmtest.Email10(t, "q4_1")
	for _, c := range []struct {
		name string
		open opener
	}{{"gpu", openGPU}, {"emulation", openEmu}} {
		m, err := c.open(mk(), []*pattern.Pattern{byName["q4_1"]}, csm.Options{SkipInvalid: true})
		if err != nil {
			t.Fatal(err)
		}
		if err := m.ApplyEach(context.Background(), stream, func(updates.Update, *csm.Result) error { return nil }); err != nil {
			t.Fatal(err)
		}
		busy, wall := m.Utilisation()
		st := m.Stats()
		m.Close()
		t.Logf("%s: %d updates in %d waves: kernels %v of %v (%.1f%%)", c.name, st.Updates, st.Waves, busy, wall, 100*float64(busy)/float64(wall))
		switch {
		case c.name == "gpu" && (busy <= 0 || busy > wall):
			t.Errorf("gpu: kernels busy %v of %v", busy, wall)
		case c.name == "emulation" && busy != 0:
			t.Errorf("emulation: %v of device time", busy)
		case wall <= 0:
			t.Errorf("%s: no time spent applying the stream", c.name)
		}
	}
}

// TestEmuEmail10 is TestGPUEmail10 with the host emulation (a deep sweep).
func TestEmuEmail10(t *testing.T) {
	testenv.SkipUnlessLong(t)
	email10(t, openEmu)
}

func email10(t *testing.T, open opener) {
	ctx := context.Background()
	names := []string{"q4_1", "q4_2", "q6_1", "q8_1"}
	if testenv.Long() {
		names = append(names, "q4_3", "q4_4", "q6_2", "q6_3", "q8_2")
	}
	mk, stream, byName := csmtest.Email10(t, names...)
	var pats []*pattern.Pattern
	for _, n := range names {
		pats = append(pats, byName[n])
	}
	for _, sem := range conventions {
		ps := pats
		if sem.Induced || sem.Unique {
			ps = slices.DeleteFunc(slices.Clone(pats), func(p *pattern.Pattern) bool { return p.NumVertices() == 8 })
		}
		c := randomCase{g: mk, pats: ps, stream: stream, wave: DefaultWave}
		n, err := compare(ctx, c, sem, open)
		if err != nil {
			t.Fatalf("%v: %v", sem, err)
		}
		t.Logf("%v: %d matches created and destroyed", sem, n)
		if n == 0 {
			t.Errorf("%v: no match changed", sem)
		}
	}
}
