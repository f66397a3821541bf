package geneva

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/engine/geneva/core"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/internal/proptest"
	"github.com/submatch/submatch/internal/sharedtest"
	"github.com/submatch/submatch/internal/testenv"
	"github.com/submatch/submatch/pattern"
)

// EnvEmulate set to 1 runs TestEmulatedCountKernel: the counting kernel (geneva_count in
// kernels/geneva.cu, the source itself) compiled with g++ against a CPU emulation of the CUDA
// features it uses (testdata/emu: 256-thread blocks as threads, warp collectives through
// per-warp barriers), on the descriptors the GPU backend encodes, against the host backend. It
// checks the kernel's logic on machines without a GPU; slow (minutes), so not run by default.
const EnvEmulate = "SUBMATCH_GENEVA_EMU"

// emuMaxRows skips counting steps whose input is larger (the emulation does about 10^4 rows/s).
const emuMaxRows = 50000

func TestEmulatedCountKernel(t *testing.T) {
	if os.Getenv(EnvEmulate) != "1" {
		t.Skipf("set %s=1 to run the counting kernel in CPU emulation", EnvEmulate)
	}
	gxx, err := exec.LookPath("g++")
	if err != nil {
		t.Skipf("no g++: %v", err)
	}
	dir := t.TempDir()
	var src strings.Builder
	for _, f := range []string{"testdata/emu/prelude.h", "", "testdata/emu/main.cc"} {
		if f == "" { // the kernels, their dynamic shared array made a static one
			src.WriteString(strings.Replace(kernelSource, "extern __shared__ u32 sIntervals[];", "static u32 sIntervals[1 << 16];", 1))
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		src.Write(b)
	}
	if err := os.WriteFile(filepath.Join(dir, "emu.cc"), []byte(src.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "emu")
	if out, err := exec.Command(gxx, "-std=c++20", "-O1", "-pthread", "-o", bin, filepath.Join(dir, "emu.cc")).CombinedOutput(); err != nil {
		t.Fatalf("g++: %v\n%s", err, out)
	}
	checked := 0
	seeds, _ := proptest.Seeds(t, 250, 60)
	for _, seed := range seeds {
		c := proptest.Make(seed)
		pc, err := core.Build(c.G)
		if err != nil {
			t.Fatal(err)
		}
		for _, sem := range []engine.Semantics{{}, {Unique: true}} {
			if emuCase(t, bin, fmt.Sprintf("seed %d", seed), c.G, pc, c.P, sem) {
				checked++
			}
		}
	}
	for qi, qs := range tailQueries {
		p, err := pattern.Parse(qs)
		if err != nil {
			t.Fatal(err)
		}
		for seed := uint64(1); seed <= 4; seed++ {
			g := gen.RandomGraph(seed*31+uint64(qi), 30+int(seed*5), []float64{0.25, 0.5}[seed%2], 2, 2)
			pc, err := core.Build(g)
			if err != nil {
				t.Fatal(err)
			}
			for _, sem := range []engine.Semantics{{}, {Unique: true}} {
				if emuCase(t, bin, qs, g, pc, p, sem) {
					checked++
				}
			}
		}
	}
	if _, err := os.Stat(filepath.Join(testenv.Dir(), "github-gmatch")); err == nil {
		g, qs := sharedtest.Suite(t, "github-gmatch", "data.graph", 0)
		pc, err := core.Build(g)
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range qs {
			if emuCase(t, bin, q.Name, g, pc, q.Pattern, engine.Semantics{}) {
				checked++
			}
		}
	}
	t.Logf("%d counting steps checked", checked)
}

// emuCase counts p on the host and, when its program ends with a counting step of at most
// emuMaxRows input rows, runs that step in the emulated kernel on the same rows; it reports
// whether it did.
func emuCase(t *testing.T, bin, name string, g *graph.Graph, pc *core.PCSR, p *pattern.Pattern, sem engine.Semantics) bool {
	t.Helper()
	ctx := context.Background()
	job, err := core.Prepare(ctx, g, pc, p, core.CompileOptions{Induced: sem.Induced, Unique: sem.Unique, Fuse: true, CountTail: true})
	if err != nil {
		t.Fatal(err)
	}
	steps := job.Program.Steps
	if job.Program.Empty || steps[len(steps)-1].Kind != core.Counting {
		return false
	}
	last := &steps[len(steps)-1]
	// The rows the counting step reads: the program without it, listed.
	head := &core.Program{Steps: steps[:len(steps)-1], Columns: job.Program.Columns}
	x := job.Executor(&core.HostBackend{In: job.Inputs, Budget: 1 << 30})
	var rows []uint32
	err = x.List(ctx, head, func(b []uint32) bool {
		rows = append(rows, b...)
		return len(rows) <= emuMaxRows*last.Width
	})
	x.Close()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) > emuMaxRows*last.Width {
		return false
	}
	x = job.Executor(&core.HostBackend{In: job.Inputs, Budget: 1 << 30})
	want, herr := x.Count(ctx, job.Program)
	x.Close()

	// The inputs as the GPU backend lays them out and encodes the step.
	order := stepParts(job.Program)
	b := &gpuBackend{partIndex: map[core.Part]int{}}
	for i, p := range order {
		b.partIndex[p] = i
		b.intervals = append(b.intervals, len(job.Inputs.Partition(p).Starts))
	}
	desc, err := b.encode(last)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	put := func(n int, v any) {
		binary.Write(&buf, binary.LittleEndian, uint64(n))
		binary.Write(&buf, binary.LittleEndian, v)
	}
	put(1, uint64(len(order)))
	for _, p := range order {
		part := job.Inputs.Partition(p)
		put(len(part.Starts), part.Starts)
		put(1, uint64(len(part.Starts)))
		put(len(part.Bases), part.Bases)
		put(len(part.Offsets), part.Offsets)
		put(len(part.Neighbors), part.Neighbors)
	}
	put(len(job.Inputs.PCSR.VertexLabels), job.Inputs.PCSR.VertexLabels)
	put(len(desc), desc)
	put(1, uint64(int64(b.sharedPart(last))))
	put(len(rows), rows)
	put(3, []uint64{0, uint64(len(rows) / last.Width), 3}) // rows [lo, hi), 3 blocks
	f := filepath.Join(t.TempDir(), "in.bin")
	if err := os.WriteFile(f, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bin, f).CombinedOutput()
	if err != nil {
		t.Fatalf("emulated kernel: %v: %s", err, out)
	}
	var got, overflow uint64
	if _, err := fmt.Sscan(strings.TrimSpace(string(out)), &got, &overflow); err != nil {
		t.Fatalf("emulated kernel printed %q", out)
	}
	if (herr != nil) != (overflow != 0) || herr == nil && got != want {
		t.Errorf("%s (%s): kernel %d (overflow %d), host %d (%v)\nstep %s", name, sem, got, overflow, want, herr, last)
	}
	return true
}
