package pbe

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"time"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/gpu"
	"github.com/submatch/submatch/internal/checked"
)

// The inter-partition stage on the device (kernels/inter.cu, run by intergpu.go): the host's
// programs flattened into fixed-size step records, and the kernel launched over the adjacency
// entries (each entry one seed: its owner and its neighbour) in bounded chunks from the top,
// where graph.Build's degree numbering puts the hubs, so that a cancelled count stops within a
// chunk and the longest seeds start first. docs/out-of-core.md, "The inter stage on the device".

//go:embed kernels/inter.cu
var interCU string

// interKernelFile names the kernel for the compile cache and `submatch gpu-info --compile`.
const interKernelFile = "pbe_inter.cu"

// interKernelSource is the kernel with package gpu's stop polling before it.
var interKernelSource = gpu.StopPollSource + interCU

func init() { gpu.RegisterKernel(interKernelFile, interKernelSource) }

// The step records' layout, as kernels/inter.cu reads it (MAXP, STEP_W, PROG_W, NO_CAND, S_*).
const (
	deviceMaxSteps  = 16
	deviceStepWords = 24
	deviceProgWords = 1 + deviceMaxSteps*deviceStepWords
	deviceNoCand    = ^uint32(0)
)

const (
	sFlags = iota
	sVL
	sCand
	sBack
	sElAny
	sNonAdj
	sLess
	sMore
	sEL
)

// errTooDeep: a program has more steps than the kernel's stack (the stage then runs on the host).
var errTooDeep = errors.New("pbe: the pattern has more vertices than the device inter stage's stack")

// devicePlan is an interPlan flattened for the kernel: deviceProgWords words a program (its
// number of steps, then deviceMaxSteps step records), and the candidate bitsets one after the
// other (a step's record holds its bitset's first word, or deviceNoCand).
type devicePlan struct {
	prog  []uint32
	nprog uint32
	cand  []uint64
}

// flattenInter flattens ip's programs; errTooDeep when one has more than deviceMaxSteps steps.
func flattenInter(ip *interPlan) (*devicePlan, error) {
	dp := &devicePlan{nprog: uint32(len(ip.programs))}
	dp.prog = make([]uint32, len(ip.programs)*deviceProgWords)
	at := map[int]uint32{} // pattern vertex -> its bitset's first word in cand
	for k := range ip.programs {
		steps := ip.programs[k].steps
		if len(steps) > deviceMaxSteps {
			return nil, fmt.Errorf("%w (%d, at most %d)", errTooDeep, len(steps), deviceMaxSteps)
		}
		rec := dp.prog[k*deviceProgWords:]
		rec[0] = uint32(len(steps))
		for i := range steps {
			st := &steps[i]
			w := rec[1+i*deviceStepWords : 1+(i+1)*deviceStepWords]
			if st.label.Any {
				w[sFlags] |= 1
			}
			w[sVL] = st.label.Value
			w[sCand] = deviceNoCand
			if st.cand != nil {
				off, ok := at[st.u]
				if !ok {
					if uint64(len(dp.cand)) >= uint64(deviceNoCand) {
						return nil, fmt.Errorf("pbe: the candidate bitsets exceed the device inter stage's %d words", deviceNoCand)
					}
					off = uint32(len(dp.cand))
					at[st.u] = off
					dp.cand = append(dp.cand, st.cand...)
				}
				w[sCand] = off
			}
			for _, b := range st.back {
				w[sBack] |= 1 << b.pos
				if b.label.Any {
					w[sElAny] |= 1 << b.pos
				}
				w[sEL+b.pos] = b.label.Value
			}
			for _, j := range st.nonAdj {
				w[sNonAdj] |= 1 << j
			}
			for _, j := range st.less {
				w[sLess] |= 1 << j
			}
			for _, j := range st.more {
				w[sMore] |= 1 << j
			}
		}
	}
	return dp, nil
}

// interCounts is what one launch counted (kernels/inter.cu's out).
type interCounts struct {
	matches, seeds, nodes, bytes uint64
	overflow                     bool // the launch's match count wrapped
}

// interLauncher runs the kernel over the adjacency entries [lo, hi); a stopped launch (ctx) returns
// ctx's error and partial counts.
type interLauncher interface {
	launch(ctx context.Context, lo, hi uint64) (interCounts, error)
}

// chunkRun is what runChunks did.
type chunkRun struct {
	st       interStats
	launches int
	kernel   time.Duration // the launches' wall time (each waits for its kernel)
}

// Chunks start at firstChunk entries (or the launcher's own start) and are doubled while a launch
// takes under half of chunkTarget, halved while it takes over twice that, within
// [minChunk, maxChunk]: a cancellation waits at most about one launch, and launches are long
// enough for their overhead (a memset, a launch, a copy back: tens of µs) not to count.
const (
	chunkTarget = 200 * time.Millisecond
	minChunk    = 1 << 10
	maxChunk    = 1 << 30
)

// runChunks launches l over the entries [0, entries) in chunks from the top, starting with first
// entries, and adds the counts up; ErrOverflow (wrapped) when the matches exceed a uint64.
func runChunks(ctx context.Context, l interLauncher, entries, first uint64) (chunkRun, error) {
	var r chunkRun
	size := min(max(first, 1), maxChunk)
	for hi := entries; hi > 0; {
		lo := hi - min(hi, size)
		t0 := time.Now()
		c, err := l.launch(ctx, lo, hi)
		took := time.Since(t0)
		r.launches++
		r.kernel += took
		var ok bool
		if r.st.matches, ok = checked.Add(r.st.matches, c.matches); !ok || c.overflow {
			return r, fmt.Errorf("pbe: the inter stage's matches: %w", engine.ErrOverflow)
		}
		r.st.seeds += c.seeds
		r.st.nodes += c.nodes
		r.st.bytes += c.bytes
		if err != nil {
			return r, err
		}
		hi = lo
		switch {
		case took < chunkTarget/2 && size < maxChunk:
			size = min(2*size, maxChunk)
		case took > 2*chunkTarget && size > minChunk:
			size /= 2
		}
	}
	// Every chunk ran to its end: the count is whole, whether or not ctx ended meanwhile (a cut
	// launch returns ctx's error above).
	return r, nil
}
