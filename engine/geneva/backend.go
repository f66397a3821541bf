package geneva

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/submatch/submatch/engine/geneva/core"
	"github.com/submatch/submatch/gpu"
)

const (
	threadsBlock = 256 // WARPS (8) warps, as the kernel's shared arrays assume
	warpsBlock   = threadsBlock / 32
	// sharedIntervals is the largest interval index kept in shared memory (starts and bases:
	// 8 B per interval, 40 KB).
	sharedIntervals = 5000
	// descWords bounds a step descriptor: header, 32 new vertices, and the pair constraints of
	// a 32-vertex pattern (at most 496 restrictions, 496 non-adjacent pairs, 496 fused edges).
	descWords = 8 + 8*32 + 2*2*32*32
	// firstLaunchRows is a step's first sub-launch; it doubles while launches take under half of
	// maxLaunch and is cut to aim at maxLaunch when one takes over twice that, so a cancelled
	// count stops within about that long.
	firstLaunchRows = 1 << 14
	maxLaunch       = 100 * time.Millisecond
	maxLaunchRows   = 1 << 30
)

// Descriptor header words (kernels/geneva.cu D_*).
const (
	dKind = iota
	dWidth
	dNNew // a Counting step: its number of classes (D_NCLASSES)
	dNLess
	dNNonAdj
	dNEdges
	dUnion
	dHeader = 8
)

// Kernel limits of a Counting step (kernels/geneva.cu MAXSETS, MAXPAIRS).
const (
	maxCountSets  = 4
	maxCountPairs = 32
)

// gpuBackend runs steps with the kernels of kernels/geneva.cu on one device.
type gpuBackend struct {
	d         *gpu.Device
	st        *Stats
	extend    *gpu.Function
	eliminate *gpu.Function
	count     *gpu.Function
	// mem holds everything the count allocates on d, within its --gpu-memory (Limit 0: the
	// device budget alone), and frees it on close.
	mem gpu.Allocs

	parts     gpu.DevicePtr     // device Part structs
	partIndex map[core.Part]int // step partition -> index in parts
	intervals []int             // interval count of each device partition
	vlabels   gpu.DevicePtr
	cands     gpu.DevicePtr
	candWords uint64
	lists     gpu.DevicePtr
	listOff   []uint64 // start of each query vertex's list in lists
	listLen   []uint32
	desc      *gpu.Buffer
	ctr       *gpu.Buffer
	// launchRows is each step's sub-launch size, learnt from its launch times (steps differ by
	// orders of magnitude in work per row).
	launchRows map[*core.Step]uint64

	// tableLimit bounds the count's tables (0: no separate bound); tableUsed counts them.
	tableLimit, tableUsed uint64
}

type gpuTable struct {
	buf   *gpu.Buffer
	cap   uint64
	width int
}

func (t *gpuTable) Cap() uint64 { return t.cap }
func (t *gpuTable) Width() int  { return t.width }

// newGPUBackend compiles the kernels (returning when ctx ends: gpu.Device.CompileContext) and
// uploads what job's steps read.
func newGPUBackend(ctx context.Context, d *gpu.Device, job *core.Job, st *Stats, limit, tableLimit uint64) (_ *gpuBackend, err error) {
	b := &gpuBackend{d: d, st: st, partIndex: map[core.Part]int{}, launchRows: map[*core.Step]uint64{},
		mem: gpu.Allocs{Device: d, Limit: limit, Prefix: "geneva: "}, tableLimit: tableLimit}
	defer func() {
		if err != nil {
			b.close() // the returns below hand back nil; b still holds what was uploaded
		}
	}()
	tc := time.Now()
	mod, err := d.CompileContext(ctx, kernelSource, kernelFile, nil)
	if err != nil {
		return nil, fmt.Errorf("geneva: compiling the kernels: %w", err)
	}
	st.Compile = time.Since(tc)
	if b.extend, err = mod.Function("geneva_extend"); err != nil {
		return nil, err
	}
	if b.eliminate, err = mod.Function("geneva_eliminate"); err != nil {
		return nil, err
	}
	if b.count, err = mod.Function("geneva_count"); err != nil {
		return nil, err
	}
	tu := time.Now()
	defer func() { st.Upload = time.Since(tu) }()
	in := job.Inputs
	order := stepParts(job.Program)
	for i, p := range order {
		b.partIndex[p] = i
	}
	var structs []uint64
	for _, p := range order {
		part := in.Partition(p)
		starts, err := upload(b, "interval starts", part.Starts)
		if err != nil {
			return nil, err
		}
		bases, err := upload(b, "interval bases", part.Bases)
		if err != nil {
			return nil, err
		}
		offsets, err := upload(b, "row offsets", part.Offsets)
		if err != nil {
			return nil, err
		}
		nbrs, err := upload(b, "neighbours", part.Neighbors)
		if err != nil {
			return nil, err
		}
		structs = append(structs, uint64(starts), uint64(bases), uint64(offsets), uint64(nbrs), uint64(len(part.Starts)))
		b.intervals = append(b.intervals, len(part.Starts))
	}
	if b.parts, err = upload(b, "partition table", structs); err != nil {
		return nil, err
	}
	if b.vlabels, err = upload(b, "vertex labels", in.PCSR.VertexLabels); err != nil {
		return nil, err
	}
	b.candWords = uint64(len(in.Candidates[0]))
	var bits []uint64
	for _, c := range in.Candidates {
		bits = append(bits, c...)
	}
	if b.cands, err = upload(b, "candidate bitmaps", bits); err != nil {
		return nil, err
	}
	var lists []uint32
	for _, l := range in.Lists {
		b.listOff = append(b.listOff, uint64(len(lists)))
		b.listLen = append(b.listLen, uint32(len(l)))
		lists = append(lists, l...)
	}
	if b.lists, err = upload(b, "candidate lists", lists); err != nil {
		return nil, err
	}
	if b.desc, err = b.mem.Alloc("step descriptor", descWords*4); err != nil {
		return nil, err
	}
	if b.ctr, err = b.mem.Alloc("counters", 24); err != nil {
		return nil, err
	}
	return b, nil
}

// stepParts returns the partitions prog's steps search, in first-use order: the device
// partitions, indexed as the descriptors name them (only those go to the device).
func stepParts(prog *core.Program) []core.Part {
	var order []core.Part
	seen := map[core.Part]bool{}
	use := func(p core.Part) {
		if !seen[p] {
			seen[p] = true
			order = append(order, p)
		}
	}
	for i := range prog.Steps {
		s := &prog.Steps[i]
		for _, nv := range s.New {
			if nv.Source >= 0 {
				use(nv.Part)
			}
		}
		for _, e := range s.Edges {
			use(e.Part)
		}
		if len(s.NonAdjacent) > 0 {
			use(core.UnionPart)
		}
		for _, c := range s.Classes {
			for _, set := range c.Sets {
				for _, p := range set.Parents {
					use(p.Part)
				}
			}
		}
	}
	return order
}

// upload copies words to the device within the count's limit; an empty slice uploads one zero
// word, so that every pointer the kernels get is valid.
func upload[T uint32 | uint64](b *gpuBackend, what string, words []T) (gpu.DevicePtr, error) {
	if len(words) == 0 {
		words = make([]T, 1)
	}
	buf, err := gpu.UploadTo(&b.mem, what, words)
	if err != nil {
		return 0, err
	}
	return buf.Ptr(), nil
}

func (b *gpuBackend) close() { b.mem.FreeAll() }

// Alloc implements core.Backend.
func (b *gpuBackend) Alloc(rows uint64, width int) (core.Table, error) {
	bytes := rows * uint64(width) * 4
	if b.tableLimit > 0 && b.tableUsed+bytes > b.tableLimit {
		return nil, fmt.Errorf("%d bytes wanted, %d of %d for tables left: %w", bytes, b.tableLimit-b.tableUsed, b.tableLimit, core.ErrBudget)
	}
	buf, err := b.mem.Alloc("", bytes)
	if err != nil {
		if errors.Is(err, gpu.ErrBudget) {
			return nil, fmt.Errorf("%w: %w", core.ErrBudget, err)
		}
		return nil, err
	}
	b.tableUsed += bytes
	b.st.PeakBytes = max(b.st.PeakBytes, b.mem.Used())
	return &gpuTable{buf: buf, cap: rows, width: width}, nil
}

// Free implements core.Backend.
func (b *gpuBackend) Free(t core.Table) {
	gt := t.(*gpuTable)
	b.tableUsed -= gt.buf.Size()
	b.mem.Release(gt.buf)
}

// Available implements core.Backend: the least of the device budget, the count's limit and
// the tables' limit left.
func (b *gpuBackend) Available() uint64 {
	a := b.mem.Available()
	if b.tableLimit > 0 {
		a = min(a, b.tableLimit-b.tableUsed)
	}
	return a
}

// Read implements core.Backend.
func (b *gpuBackend) Read(t core.Table, rows uint64, dst []uint32) error {
	if rows == 0 {
		return nil
	}
	return gpu.CopyToHost(dst[:rows*uint64(t.Width())], t.(*gpuTable).buf, 0)
}

// encode writes step s's descriptor (kernels/geneva.cu layout).
func (b *gpuBackend) encode(s *core.Step) ([]uint32, error) {
	d := make([]uint32, dHeader, descWords)
	d[dKind] = uint32(s.Kind)
	d[dWidth] = uint32(s.Width)
	if i, ok := b.partIndex[core.UnionPart]; ok {
		d[dUnion] = uint32(i)
	}
	if s.Kind == core.Counting {
		return b.encodeCount(s, d)
	}
	d[dNNew] = uint32(len(s.New))
	d[dNLess] = uint32(len(s.Less))
	d[dNNonAdj] = uint32(len(s.NonAdjacent))
	d[dNEdges] = uint32(len(s.Edges))
	if s.Kind == core.Elimination {
		for _, e := range s.Edges {
			d = append(d, uint32(e.A), uint32(e.B), uint32(b.partIndex[e.Part]))
		}
		return d, nil
	}
	for _, nv := range s.New {
		src, part := int32(nv.Source), uint32(0)
		var off uint64
		var n uint32
		if nv.Source >= 0 {
			part = uint32(b.partIndex[nv.Part])
		} else {
			off = b.listOff[nv.Vertex]
			n = b.listLen[nv.Vertex]
		}
		anyLabel := uint32(0)
		if nv.Label.Any {
			anyLabel = 1
		}
		d = append(d, uint32(src), part, anyLabel, nv.Label.Value, uint32(nv.Vertex), uint32(off), uint32(off>>32), n)
	}
	for _, c := range s.Less {
		d = append(d, uint32(c.A), uint32(c.B))
	}
	for _, c := range s.NonAdjacent {
		d = append(d, uint32(c.A), uint32(c.B))
	}
	for _, e := range s.Edges {
		d = append(d, uint32(e.A), uint32(e.B), uint32(b.partIndex[e.Part]))
	}
	return d, nil
}

// encodeCount appends a Counting step's classes to its header d: per class kind, k, sets and
// terms; per set any, label, parents and a (column, partition) pair per parent; per term its
// coefficient, factors and the factors.
func (b *gpuBackend) encodeCount(s *core.Step, d []uint32) ([]uint32, error) {
	d[dNNew] = uint32(len(s.Classes))
	for _, c := range s.Classes {
		pairs := 0
		for _, set := range c.Sets {
			pairs += len(set.Parents)
		}
		if len(c.Sets) == 0 || len(c.Sets) > maxCountSets || c.Kind != core.CountTerms && len(c.Sets) != 1 || pairs > maxCountPairs {
			return nil, fmt.Errorf("geneva: counting class %v beyond the kernel's %d sets, %d pairs", c, maxCountSets, maxCountPairs)
		}
		d = append(d, uint32(c.Kind), uint32(c.K), uint32(len(c.Sets)), uint32(len(c.Terms)))
		for _, set := range c.Sets {
			anyLabel := uint32(0)
			if set.Label.Any {
				anyLabel = 1
			}
			d = append(d, anyLabel, set.Label.Value, uint32(len(set.Parents)))
			for _, p := range set.Parents {
				d = append(d, uint32(p.Column), uint32(b.partIndex[p.Part]))
			}
		}
		for _, t := range c.Terms {
			if t.Coef < math.MinInt32 || t.Coef > math.MaxInt32 {
				return nil, fmt.Errorf("geneva: counting term coefficient %d beyond 32 bits", t.Coef)
			}
			d = append(d, uint32(int32(t.Coef)), uint32(len(t.Factors)))
			for _, f := range t.Factors {
				d = append(d, uint32(f))
			}
		}
	}
	if len(d) > descWords {
		return nil, fmt.Errorf("geneva: counting step descriptor of %d words, more than %d", len(d), descWords)
	}
	return d, nil
}

// sharedPart returns the device partition whose interval index the step's kernel keeps in
// shared memory (the one it searches most), or -1.
func (b *gpuBackend) sharedPart(s *core.Step) int {
	p, ok := core.Part(0), false
	switch {
	case s.Kind == core.Elimination && len(s.Edges) > 0:
		p, ok = s.Edges[0].Part, true
	case len(s.New) > 0 && s.New[0].Source >= 0:
		p, ok = s.New[0].Part, true
	case s.Kind == core.Counting && len(s.Classes) > 0:
		p, ok = s.Classes[0].Sets[0].Parents[0].Part, true
	}
	if !ok {
		return -1
	}
	i := b.partIndex[p]
	if b.intervals[i] > sharedIntervals {
		return -1
	}
	return i
}

// Run implements core.Backend: sub-launches over [lo, hi), sharing one output counter.
func (b *gpuBackend) Run(ctx context.Context, s *core.Step, in core.Table, lo, hi uint64, win core.Window, out core.Table) (uint64, uint64, error) {
	if s.Kind == core.Counting && out != nil {
		return 0, 0, fmt.Errorf("geneva: a counting step writes no rows")
	}
	desc, err := b.encode(s)
	if err != nil {
		return 0, 0, err
	}
	if err := gpu.CopyToDevice(b.desc, 0, desc); err != nil {
		return 0, 0, err
	}
	if err := b.ctr.Memset(0); err != nil {
		return 0, 0, err
	}
	var inPtr, outPtr gpu.DevicePtr
	if in != nil {
		inPtr = in.(*gpuTable).buf.Ptr()
	}
	var capRows uint64
	countOnly := int32(1)
	if out != nil {
		outPtr = out.(*gpuTable).buf.Ptr()
		capRows = out.Cap()
		countOnly = 0
	}
	sp := b.sharedPart(s)
	shared := uint32(0)
	if sp >= 0 {
		shared = uint32(8*b.intervals[sp] + 4)
	}
	sms := uint64(max(1, b.d.Info().SMs))
	var ctr [3]uint64
	rows := b.launchRows[s]
	if rows == 0 {
		rows = firstLaunchRows
	}
	defer func() { b.launchRows[s] = rows }()
	for r := lo; r < hi; {
		if err := ctx.Err(); err != nil {
			return 0, 0, err
		}
		end := min(hi, r+rows)
		n := end - r
		var kt time.Duration
		var err error
		switch s.Kind {
		case core.Extension:
			blocks := min((n+warpsBlock-1)/warpsBlock, sms*32)
			kt, err = b.extend.LaunchSync(gpu.Dim3{X: uint32(blocks)}, gpu.Dim3{X: threadsBlock}, shared,
				b.desc, b.parts, int32(sp), b.vlabels, b.cands, b.candWords, b.lists,
				inPtr, r, end, win.From, win.To, outPtr, capRows, countOnly, b.ctr)
		case core.Counting:
			blocks := min((n+warpsBlock-1)/warpsBlock, sms*32)
			kt, err = b.count.LaunchSync(gpu.Dim3{X: uint32(blocks)}, gpu.Dim3{X: threadsBlock}, shared,
				b.desc, b.parts, int32(sp), b.vlabels, inPtr, r, end, b.ctr)
		default:
			blocks := min((n+threadsBlock-1)/threadsBlock, sms*16)
			kt, err = b.eliminate.LaunchSync(gpu.Dim3{X: uint32(blocks)}, gpu.Dim3{X: threadsBlock}, shared,
				b.desc, b.parts, int32(sp), b.vlabels,
				inPtr, r, end, outPtr, capRows, countOnly, b.ctr)
		}
		if err != nil {
			return 0, 0, fmt.Errorf("geneva: %w", err)
		}
		b.st.Kernel += kt
		b.st.Launches++
		switch {
		case kt < maxLaunch/2 && n == rows:
			// Grow only after a full launch that was quick, and never past maxLaunchRows (a
			// multiplier left to run would wrap to zero after enough chunks).
			rows = min(2*rows, maxLaunchRows)
		case kt > 2*maxLaunch:
			// Aim the next launch at maxLaunch from this one's time per row.
			rows = max(1, uint64(float64(n)*float64(maxLaunch)/float64(kt)))
		}
		r = end
	}
	if err := gpu.CopyToHost(ctr[:], b.ctr, 0); err != nil {
		return 0, 0, err
	}
	if ctr[1] != 0 {
		return 0, 0, core.ErrOverflow
	}
	if s.Kind != core.Extension {
		ctr[2] = 1
	}
	return ctr[0], ctr[2], nil
}
