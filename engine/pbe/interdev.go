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

// Heavy seeds. One thread a seed leaves a launch waiting for its longest seed: on R-MAT a seed
// between two hubs scans a list of thousands at its third position, with a binary search a
// candidate and level. A seed is heavy when some program's list at the third position may hold
// heavyMin entries or more (list_bound in kernels/inter.cu: the smaller degree of that position's
// earlier neighbours among the seed's two ends); the launches over the entries leave its heavy
// programs out, and launches over the list of heavy seeds run them with several threads a seed
// (its slices), each taking every slices-th candidate of that list with its subtree. A seed's
// slices are a power of two, about its bound over heavyGrain, within [2, maxSlices].
const (
	heavyMin   = 256
	heavyGrain = 64
	maxSlices  = 1 << maxSliceLog
)

// maxSliceLog is log2 of maxSlices: heavySeeds's classes are 2^1 to 2^maxSliceLog slices.
const maxSliceLog = 12

// noHeavy as heavyMin makes every seed light (one thread a seed, the kernel as before the split).
const noHeavy = ^uint64(0)

// heavyClass is the heavy seeds [lo, hi) of the list that run with slices threads each.
type heavyClass struct {
	slices uint32
	lo, hi uint64
}

// stepTwoMasks reports which earlier neighbours the third positions of dp's programs have among
// the seed's ends (bit 0: the first, bit 1: the second): has[m] for each mask m (0: none, which
// list_bound takes as unbounded).
func stepTwoMasks(dp *devicePlan) (has [4]bool) {
	for k := range dp.nprog {
		rec := dp.prog[uint64(k)*deviceProgWords:]
		if rec[0] >= 3 {
			has[rec[1+2*deviceStepWords+sBack]&3] = true
		}
	}
	return has
}

// heavyBytes is the host memory a heavy seed may take in a count (runInterGPU): its entry in the
// list (8 bytes) and, when the device has no room for the list, its copy in mapped host memory.
const heavyBytes = 16

// heavyList is what heavySeeds found: the heavy seeds' entries and classes, the threshold the
// kernel takes (its heavyMin: least, or noHeavy when the list is over its limit or no program
// has a third position, so that the launches over the entries run every program) and over, the
// heavy seeds not listed for want of memory.
type heavyList struct {
	entries     []uint64
	classes     []heavyClass
	least, over uint64
}

// heavySeeds lists the entries of the cut edges (partition ids of) of the graph with offsets offs
// and adjacency nbr whose seed is heavy for dp's programs at least (some program's list_bound is
// least or more), each with about grain candidates of its bound a slice, ordered by their number
// of slices and then by entry, with the classes of equal slices in that order. Two passes over
// the adjacency: the first counts each class, the second places the entries, so the list is its
// 8 bytes a seed and nothing else. When limit is set and the seeds' heavyBytes exceed it, it
// lists none and the kernel's threshold is noHeavy (every seed runs with one thread, exactly as
// well); over is then how many there were.
func heavySeeds(offs []uint64, nbr, of []uint32, dp *devicePlan, least, grain, limit uint64) heavyList {
	has := stepTwoMasks(dp)
	if least == noHeavy || !(has[0] || has[1] || has[2] || has[3]) {
		return heavyList{least: noHeavy}
	}
	var start [maxSliceLog + 2]uint64 // start[s+1]: the seeds of 2^s slices, then their classes' starts
	scanHeavy(offs, nbr, of, has, least, grain, func(_ uint64, s uint8) { start[s+1]++ })
	for s := 1; s < len(start); s++ {
		start[s] += start[s-1]
	}
	n := start[len(start)-1]
	if limit > 0 && n > limit/heavyBytes {
		return heavyList{least: noHeavy, over: n}
	}
	h := heavyList{least: least}
	for s := range maxSliceLog + 1 {
		if start[s+1] > start[s] {
			h.classes = append(h.classes, heavyClass{slices: 1 << s, lo: start[s], hi: start[s+1]})
		}
	}
	// Placed in adjacency order, so each class's entries ascend (the kernel's owner search
	// relies on it).
	h.entries = make([]uint64, n)
	scanHeavy(offs, nbr, of, has, least, grain, func(e uint64, s uint8) {
		h.entries[start[s]] = e
		start[s]++
	})
	return h
}

// scanHeavy calls found with each heavy entry (heavySeeds) in adjacency order and the log2 of its
// slices.
func scanHeavy(offs []uint64, nbr, of []uint32, has [4]bool, least, grain uint64, found func(e uint64, s uint8)) {
	for v := range len(offs) - 1 {
		dv := offs[v+1] - offs[v]
		if dv < least && !has[0] && !has[2] {
			continue // no bound of v's seeds reaches least
		}
		for e := offs[v]; e < offs[v+1]; e++ {
			w := nbr[e]
			if of[v] == of[w] {
				continue
			}
			dw := offs[w+1] - offs[w]
			var b uint64
			if has[0] {
				b = noHeavy
			}
			if has[1] {
				b = max(b, dv)
			}
			if has[2] {
				b = max(b, dw)
			}
			if has[3] {
				b = max(b, min(dv, dw))
			}
			if b < least {
				continue
			}
			s := uint8(1)
			for s < maxSliceLog && uint64(1)<<s*grain < b {
				s++
			}
			found(e, s)
		}
	}
}

// interPass is one run of chunks: over the adjacency entries [0, items) (slices 0), or over the
// items of the heavy seeds from list index at, slices items a seed.
type interPass struct {
	at     uint64
	slices uint32
	items  uint64
}

// interPasses are the heavy classes, most slices first, then the entries (each entry's light
// programs), as runInterGPU launches them.
func interPasses(entries uint64, classes []heavyClass) []interPass {
	var out []interPass
	for i := len(classes) - 1; i >= 0; i-- {
		c := classes[i]
		out = append(out, interPass{at: c.lo, slices: c.slices, items: (c.hi - c.lo) * uint64(c.slices)})
	}
	return append(out, interPass{items: entries})
}

// merge adds o to r; ErrOverflow (wrapped) when the matches exceed a uint64.
func (r *chunkRun) merge(o chunkRun) error {
	var ok bool
	if r.st.matches, ok = checked.Add(r.st.matches, o.st.matches); !ok {
		return fmt.Errorf("pbe: the inter stage's matches: %w", engine.ErrOverflow)
	}
	r.st.seeds += o.st.seeds
	r.st.nodes += o.st.nodes
	r.st.bytes += o.st.bytes
	r.launches += o.launches
	r.kernel += o.kernel
	return nil
}
