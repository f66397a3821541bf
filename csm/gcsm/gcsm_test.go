package gcsm

import (
	"context"
	"errors"
	"testing"

	"github.com/submatch/submatch/csm"
	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/gpu"
	"github.com/submatch/submatch/graph/dynamic"
	"github.com/submatch/submatch/internal/cudacheck"
	"github.com/submatch/submatch/internal/testenv"
	"github.com/submatch/submatch/pattern"
	"github.com/submatch/submatch/plan"
)

// TestEmulation: the lowered table, run by the host emulation of the kernel over the host graph
// and the cache, gives the CPU engine's per-batch counts on random graphs, patterns and streams,
// in every convention and mode, with a large and a tiny cache.
func TestEmulation(t *testing.T) {
	sweep(t, testenv.Sweep(40, 400), openEmu)
}

// TestSpilledEmulation: searches decomposed into the kernel's spilled searches (candidates one
// level deeper, the absolute rest of a level) count what the whole searches count.
func TestSpilledEmulation(t *testing.T) {
	sweep(t, testenv.Sweep(20, 200), openSpill)
}

// TestUniqueIsEmbeddingsOverAut checks the claim that a batch's unique delta is its embedding
// delta divided by |Aut| of the labelled pattern (the created and destroyed sets are unions of
// orbits), with the CPU engine.
func TestUniqueIsEmbeddingsOverAut(t *testing.T) {
	ctx := context.Background()
	for seed := range uint64(30) {
		c := newRandomCase(seed, true)
		emb, _ := csm.Open(c.g(), c.pats, csm.Options{Threads: 1, SkipInvalid: true})
		uni, _ := csm.Open(c.g(), c.pats, csm.Options{Threads: 1, SkipInvalid: true, Semantics: engine.Semantics{Unique: true}})
		var a, b csm.Result
		for lo := 0; lo < len(c.stream); lo += c.batch {
			batch := c.stream[lo:min(lo+c.batch, len(c.stream))]
			if err := emb.Apply(ctx, batch, nil, &a); err != nil {
				t.Fatal(err)
			}
			if err := uni.Apply(ctx, batch, nil, &b); err != nil {
				t.Fatal(err)
			}
			for i, p := range c.pats {
				aut := plan.AutomorphismCount(p)
				if a.Deltas[i].Created != b.Deltas[i].Created*aut || a.Deltas[i].Destroyed != b.Deltas[i].Destroyed*aut {
					t.Fatalf("seed %d pattern %v: embeddings %+v, unique %+v, |Aut| %d", seed, p, a.Deltas[i], b.Deltas[i], aut)
				}
			}
		}
	}
}

// TestRefusals: larger or disconnected patterns, listing, unknown modes are refused clearly.
func TestRefusals(t *testing.T) {
	g := dynamic.FromGraph(gen.RandomGraph(1, 10, 0.3, 1, 1))
	big := gen.RandomPattern(1, 9, gen.PatternOptions{EdgeProb: 0.3})
	if _, err := openEmu(g, []*pattern.Pattern{big}, csm.Options{}, 0); err == nil {
		t.Error("a 9-vertex pattern was accepted")
	}
	two := gen.RandomPattern(1, 4, gen.PatternOptions{Components: 2})
	if _, err := openEmu(g, []*pattern.Pattern{two}, csm.Options{}, 0); err == nil {
		t.Error("a disconnected pattern was accepted")
	}
	for _, mode := range []string{"um", "bogus"} {
		if _, err := ParseMode(mode); err == nil {
			t.Errorf("mode %q accepted", mode)
		}
	}
	if err := (gcsmEngine{}).CheckMode("bogus"); err == nil {
		t.Error("CheckMode accepted a bogus mode")
	}
}

// TestEmitEmulation: the listed signed matches (emulated kernel, a listing buffer of 3 matches so
// that a phase lists in groups) are the CPU engine's, batch by batch, in every convention.
func TestEmitEmulation(t *testing.T) {
	sweepList(t, testenv.Sweep(30, 300), openEmu)
}

// TestNoGPU: without a GPU, the engine refuses with an error wrapping gpu.ErrNoGPU.
func TestNoGPU(t *testing.T) {
	if _, err := gpu.Open(context.Background()); err == nil {
		t.Skip("a GPU is present")
	}
	e, err := csm.Lookup("gcsm")
	if err != nil {
		t.Fatal(err)
	}
	g := dynamic.FromGraph(gen.RandomGraph(1, 10, 0.3, 1, 1))
	tri := gen.RandomPattern(1, 3, gen.PatternOptions{EdgeProb: 1})
	if _, err := e.Open(g, []*pattern.Pattern{tri}, csm.Options{}); !errors.Is(err, gpu.ErrNoGPU) {
		t.Fatalf("Open without a GPU: %v", err)
	}
}

// TestKernelSyntax checks the kernel with clang's CUDA front end (no CUDA needed).
func TestKernelSyntax(t *testing.T) {
	cudacheck.Syntax(t, kernelFile, kernelSource())
}
