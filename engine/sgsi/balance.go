package sgsi

import (
	"cmp"
	"fmt"
	"math"
	"strings"
	"time"
)

// SGSI+'s four-layer load balance (Sec. 7 of the paper). A join step's rows differ wildly in
// their workload (a row's buffer entries: the length of its shortest linking list), so a chunk's
// rows are dealt to four layers by two thresholds around W2 (Options.BlockRows):
//
//   - workload <= W3: a warp per row;
//   - (W3, W2]: a block's task pool (kernels/sgsi.cu, pool): the block holds a batch of rows in
//     shared memory and its threads divide their items evenly;
//   - (W2, W1]: a block per row;
//   - > W1: the whole grid per row, each block a strided slice of the row's items (item j of row
//     r on thread (F[r] + j) mod G, so that the rows' items spread over the grid), the rows'
//     counts and buffers combined as the other layers' are (atomics on the row's counter, each
//     entry written by one thread). SGSI+ launches a kernel per such row from the device (CUDA
//     dynamic parallelism); that needs relocatable device code linked against libcudadevrt,
//     which NVRTC at run time (no nvcc on users' machines) cannot link, so the host launch does
//     the same work: one launch for all of a chunk's largest rows, where SGSI+ pays a launch
//     each.
//
// W1 and W3 are chosen per chunk (SGSI+: per join step; a chunk is what one launch sees) by
// minimising SGSI+'s cost model over a histogram of the rows' workloads in bins of 32 (choose):
// W3's half over a sample of the rows, W1's over every row of bin W2/32 or more (runner.deal);
// Options.Layers fixes them instead.

// Thresholds bound the layers' workloads: a row of at most W3 items gets a warp, at most W2 a
// block's task pool, at most W1 a block, more the whole grid. W3 <= W2 <= W1.
type Thresholds struct{ W3, W2, W1 uint64 }

// TwoLayers is the split before SGSI+'s balance: a row of more than w2 items gets a block, the
// others a warp (no task pool, no whole-grid rows). The A/B benchmark's fixed side.
func TwoLayers(w2 uint32) *Thresholds {
	return &Thresholds{W3: uint64(w2), W2: uint64(w2), W1: math.MaxUint64}
}

// The layers, in the order of a chunk's row index.
const (
	layerWarp = iota
	layerPool
	layerBlock
	layerGrid
	numLayers
)

var layerNames = [numLayers]string{"warp", "pool", "block", "grid"}

// layer is the layer of a row of d items.
func (t *Thresholds) layer(d uint64) int {
	switch {
	case d <= t.W3:
		return layerWarp
	case d <= t.W2:
		return layerPool
	case d <= t.W1:
		return layerBlock
	}
	return layerGrid
}

// Costs are the cost model's constants, in SGSI+'s unit: one step of a warp over 32 items (a
// few dependent loads from device memory: about a µs).
type Costs struct {
	// Sync is t_sn, a block's barrier: tens of cycles against a step's global loads (hundreds).
	Sync float64
	// Launch is t_kl, SGSI+'s cost of a dynamically launched kernel. Here a whole-grid row costs
	// no launch but a turn of the grid: every thread opens the row (a binary search or two), and
	// the row's last wave leaves most of the grid idle.
	Launch float64
	// Pass is a layer's launch in a kernel pass (each pass launches once per layer that holds
	// rows, and out of core once per segment too): a few µs of the device idle between kernels.
	// SGSI+'s model leaves it out (one pass over a graph in core); here chunks can be small.
	Pass float64
	// SMs is the device's streaming multiprocessors (H100 and H200: 132).
	SMs int
	// GridBlocks caps the blocks of a whole-grid launch (SMs x 8 blocks of 256 threads: every
	// SM's 2,048 threads).
	GridBlocks uint32
}

// DefaultCosts are the constants the runner uses. Sync and Launch are estimates, not yet
// measured on the device (docs/benchmarks.md, issue 21 sgsi9, says how to).
var DefaultCosts = Costs{Sync: 0.1, Launch: 2, Pass: 4, SMs: 132, GridBlocks: 132 * 2048 / blockThreads}

// binWidth is the histogram's bin: a warp's width.
const binWidth = 32

// sampleRows is how many rows of a chunk the histogram's warp half reads (sample): a chunk of
// more rows is sampled, evenly strided. At 20 M rows the full histogram cost the host 53-79 ms
// a count on the device host (docs/benchmarks.md, sgsi9's device call), more than the layers
// gained.
const sampleRows = 1 << 13

// balancer chooses a chunk's thresholds from its rows' workloads; its buffers are reused.
type balancer struct {
	costs Costs
	// sampleRows overrides the package's sampleRows (0: sampleRows; tests and the benchmark
	// set it beyond a chunk's rows for the full histogram).
	sampleRows int
	// small counts the rows of each bin below x2 (the warp and pool bins), of a sample when
	// num/den > 1 (each counted row stands for num/den rows); big holds the workloads of the
	// others, every one of them (they are few, and the block half's choice hangs on them),
	// sorted before the choice.
	small    []uint64
	num, den uint64
	big      []uint32
	// buf and counts are sortBig's (a radix sort by bin that allocates nothing once grown: a
	// chunk's long rows can be tens of thousands, which slices.Sort took milliseconds over).
	buf    []uint32
	counts [1 << binDigit]int
}

// x2Of is the model's first bin of the block layer for a W2 of w2 items (the rows of more than
// W2 items get a block or the whole grid, as without a model: 0 when W2 is below a bin).
func x2Of(w2 uint32) uint64 { return uint64(w2) / binWidth }

// reset starts a chunk's histogram for a W2 of w2 items.
func (b *balancer) reset(w2 uint32) {
	n := x2Of(w2)
	if uint64(cap(b.small)) < n {
		b.small = make([]uint64, n)
	}
	b.small = b.small[:n]
	clear(b.small)
	b.big = b.big[:0]
	b.num, b.den = 1, 1
}

// add counts a row of d items.
func (b *balancer) add(d uint32) {
	if i := uint64(d) / binWidth; i < uint64(len(b.small)) {
		b.small[i]++
	} else {
		b.big = append(b.big, d)
	}
}

// binDigit is the bits of a digit of sortBig's passes.
const binDigit = 11

// sortBig sorts big by bin (d / binWidth; the order within a bin is left as it comes): a
// least-significant-digit radix sort on the bins' bits, as many passes of binDigit bits as the
// largest bin needs.
func (b *balancer) sortBig() {
	if len(b.big) == 0 {
		return
	}
	top := uint32(0)
	for _, d := range b.big {
		top = max(top, d)
	}
	if cap(b.buf) < len(b.big) {
		b.buf = make([]uint32, len(b.big), cap(b.big))
	}
	src, dst := b.big, b.buf[:len(b.big)]
	const shift0 = 5 // log2(binWidth)
	for sh := uint(shift0); top>>sh != 0; sh += binDigit {
		c := &b.counts
		clear(c[:])
		for _, d := range src {
			c[d>>sh&(1<<binDigit-1)]++
		}
		at := 0
		for i, n := range c {
			c[i], at = at, at+n
		}
		for _, d := range src {
			x := d >> sh & (1<<binDigit - 1)
			dst[c[x]] = d
			c[x]++
		}
		src, dst = dst, src
	}
	if &src[0] != &b.big[0] {
		copy(b.big, src)
	}
}

// sample fills the warp half's histogram from the rows of buffer offsets F: every row when the
// chunk has at most sampleRows, else sampleRows rows evenly strided (row k·R/S for k < S), each
// standing for R/S rows. Rows of bin x2 or more are left to addBig, which sees them all.
func (b *balancer) sample(F []uint32) {
	R := uint64(len(F) - 1)
	S := uint64(cmp.Or(b.sampleRows, sampleRows))
	x2 := uint64(len(b.small))
	if R <= S {
		for j := range R {
			if i := uint64(F[j+1]-F[j]) / binWidth; i < x2 {
				b.small[i]++
			}
		}
		return
	}
	for k := range S {
		j := k * R / S
		if i := uint64(F[j+1]-F[j]) / binWidth; i < x2 {
			b.small[i]++
		}
	}
	b.num, b.den = R, S
}

// rows is the rows a histogram count of n stands for.
func (b *balancer) rows(n uint64) uint64 {
	if b.num == b.den {
		return n
	}
	return (n*b.num + b.den/2) / b.den
}

// The cost model's terms for bin i of n rows (SGSI+, Sec. 7): a warp per row, the task pool, a
// block per row, a kernel (here a turn of the whole grid) per row.
func (c *Costs) warp(i, n uint64) float64 { return float64(i * ceilDiv(n, binWidth*uint64(c.SMs))) }
func (c *Costs) pool(i, n uint64) float64 {
	return (1 + 2*c.Sync) * float64(ceilDiv(binWidth*i*ceilDiv(n, uint64(c.SMs)), 1024))
}
func (c *Costs) block(i, n uint64) float64 {
	return (1 + c.Sync) * float64(ceilDiv(n, uint64(c.SMs))*ceilDiv(binWidth*i, 1024))
}
func (c *Costs) grid(i, n uint64) float64 {
	return float64(n) * (c.Launch + float64(ceilDiv(binWidth*i, 1024*uint64(c.SMs))))
}

// pass is the cost of a layer's launch of a kernel pass: Pass when it holds rows.
func (c *Costs) pass(rows uint64) float64 {
	if rows == 0 {
		return 0
	}
	return c.Pass
}

func ceilDiv(a, b uint64) uint64 { return (a + b - 1) / b }

// choose returns the thresholds of least cost for the rows added since reset, W2 being w2:
// SGSI+'s C(x1, x3) = sum over bins i <= x3 of warp(i) + over x3 < i < x2 of pool(i) + over
// x2 <= i <= x1 of block(i) + over i > x1 of grid(i), with 0 <= x3 < x2 <= x1 (x2 = w2/32), W3 =
// 32(x3+1)-1 and W1 = 32(x1+1)-1: the rows of bins up to x3 get a warp, up to x1 a block. W2
// stays w2 (and W3 = W2 when x3 = x2-1, W1 >= W2), so that rows of more than W2 items get a block
// or the whole grid as without the model; the model counts the few rows of (32*x2-1, W2] as
// block rows. SGSI+ minimises C by brute force over the (b+1)^2 pairs (b the last bin); the two
// halves are independent (x3 decides the bins below x2, x1 those above), so each is minimised
// alone, x1 only at the bins that hold rows (the cost is constant between them): linear in the
// bins rather than quadratic, which matters for rows of millions of items (b in the hundreds of
// thousands). Among equal costs the least x3 and x1 win, as in a brute force that keeps its first
// minimum. To SGSI+'s C it adds Pass for each layer that holds rows (still two independent
// halves: the warp and pool layers' rows depend on x3 alone, the others' on x1).
func (b *balancer) choose(w2 uint32) (t Thresholds, cost float64) {
	t.W3, cost = b.chooseWarp(w2)
	t.W2 = uint64(w2)
	w1, c := b.chooseBlock(w2)
	t.W1 = w1
	return t, cost + c
}

// chooseWarp is choose's warp half: W3, from the histogram's bins below x2 (small, scaled by
// rows when sampled), and its cost.
func (b *balancer) chooseWarp(w2 uint32) (w3 uint64, cost float64) {
	c := &b.costs
	x2 := uint64(len(b.small))
	// a(x3) = sum_{i<=x3} warp(i) + sum_{x3<i<x2} pool(i), and the launches.
	pools, poolRows := 0.0, uint64(0)
	for i := uint64(1); i < x2; i++ {
		n := b.rows(b.small[i])
		pools += c.pool(i, n)
		poolRows += n
	}
	bestA, x3 := 0.0, uint64(0)
	if x2 > 0 {
		bestA = math.Inf(1)
	}
	warps, warpRows := 0.0, uint64(0)
	for i := uint64(0); i < x2; i++ {
		n := b.rows(b.small[i])
		warps += c.warp(i, n)
		warpRows += n
		if i > 0 {
			pools -= c.pool(i, n)
			poolRows -= n
		}
		if a := warps + max(pools, 0) + c.pass(warpRows) + c.pass(poolRows); a < bestA {
			bestA, x3 = a, i
		}
	}
	if x3+1 >= x2 {
		return uint64(w2), bestA // no task pool
	}
	return binWidth*(x3+1) - 1, bestA
}

// chooseBlock is choose's block half: W1, from the workloads of bin x2 or more (big, every such
// row), and its cost. It sorts big.
func (b *balancer) chooseBlock(w2 uint32) (w1 uint64, cost float64) {
	c := &b.costs
	x2 := uint64(len(b.small))
	// Over the big rows' bins, grouped: x1 = x2, or a bin that holds rows.
	b.sortBig()
	group := func(j int) (i, n uint64, e int) {
		i = uint64(b.big[j]) / binWidth
		for e = j + 1; e < len(b.big) && uint64(b.big[e])/binWidth == i; e++ {
		}
		return i, uint64(e - j), e
	}
	grids, gridRows := 0.0, uint64(len(b.big))
	for j := 0; j < len(b.big); {
		i, n, e := group(j)
		grids += c.grid(i, n)
		j = e
	}
	blocks, blockRows := 0.0, uint64(0)
	bestB, x1 := math.Inf(1), x2
	if len(b.big) == 0 || uint64(b.big[0])/binWidth > x2 {
		bestB = grids + c.pass(gridRows) // x1 = x2: bin x2 holds no row
	}
	for j := 0; j < len(b.big); {
		i, n, e := group(j)
		blocks += c.block(i, n)
		grids -= c.grid(i, n)
		blockRows += n
		gridRows -= n
		if v := blocks + max(grids, 0) + c.pass(blockRows) + c.pass(gridRows); v < bestB {
			bestB, x1 = v, i
		}
		j = e
	}
	return max(binWidth*(x1+1)-1, uint64(w2)), bestB
}

// StepBalance is one join step's load balance: the rows each layer took (warp, task pool,
// block, whole grid) over the step's chunks, the thresholds of its chunk of most rows, and the
// host time of its histograms and choices. Items is the rows' workloads summed (buffer entries
// joined): the step's work, which deal.go's tests compare across runners.
type StepBalance struct {
	Rows       [numLayers]uint64
	Items      uint64
	W3, W2, W1 uint64
	Choice     time.Duration
	maxRows    uint64 // the rows of the chunk whose thresholds are kept
}

// Balance is the load balance of each join step (index: the step).
type Balance []StepBalance

func (b Balance) String() string {
	var s strings.Builder
	for i, st := range b {
		if st.maxRows == 0 {
			continue
		}
		if s.Len() > 0 {
			s.WriteString("; ")
		}
		fmt.Fprintf(&s, "step %d:", i)
		for l, n := range st.Rows {
			fmt.Fprintf(&s, " %s %d", layerNames[l], n)
		}
		w1 := "inf"
		if st.W1 != math.MaxUint64 {
			w1 = fmt.Sprint(st.W1)
		}
		fmt.Fprintf(&s, " (W3 %d W2 %d W1 %s, %v)", st.W3, st.W2, w1, st.Choice)
	}
	return s.String()
}

// note records a chunk of step i dealt by t with n rows in each layer and items buffer entries.
func (b *Balance) note(i int, t Thresholds, n *[numLayers]uint64, items uint64, d time.Duration) {
	c := StepBalance{Rows: *n, Items: items, W3: t.W3, W2: t.W2, W1: t.W1, Choice: d}
	for _, x := range n {
		c.maxRows += x
	}
	b.step(i).merge(c)
}

// step returns step i's balance, growing b to hold it.
func (b *Balance) step(i int) *StepBalance {
	for len(*b) <= i {
		*b = append(*b, StepBalance{})
	}
	return &(*b)[i]
}

// merge adds o's rows per layer, items and choice time to s, keeping the thresholds of the
// chunk of most rows.
func (s *StepBalance) merge(o StepBalance) {
	for l, n := range o.Rows {
		s.Rows[l] += n
	}
	s.Items += o.Items
	s.Choice += o.Choice
	if o.maxRows > s.maxRows {
		s.maxRows, s.W3, s.W2, s.W1 = o.maxRows, o.W3, o.W2, o.W1
	}
}

// poolRows is kernels/sgsi.cu's POOL: the rows a task-pool block holds at a time.
const poolRows = 256

// dealt is a chunk's rows by layer: n[l] rows of layer l in its index, the layers in order; the
// blocks of the task pool's and of the whole grid's launches.
type dealt struct {
	n                 [numLayers]uint32
	poolGrid, bigGrid uint32
}

// deal fills idx with the rows of a chunk (buffer offsets F) by layer, each layer's in order,
// and notes the chunk in step i's balance. Without fixed thresholds it chooses them in two
// halves (choose): W3 from a sample of the rows (balancer.sample) before the pass that counts
// the rows by layer, W1 after it from the rows of bin x2 or more, which that pass collects; so
// the choice reads only the sample and the few long rows, not every row twice.
func (r *runner) deal(i int, F, idx []uint32) dealt {
	if r.bal.costs.SMs == 0 {
		r.bal.costs = DefaultCosts
	}
	R := len(F) - 1
	th := r.layers
	var chosen Thresholds
	var took time.Duration
	choosing := th == nil
	if choosing {
		t0 := time.Now()
		r.bal.reset(r.blockRows)
		r.bal.sample(F)
		chosen.W3, _ = r.bal.chooseWarp(r.blockRows)
		chosen.W2, chosen.W1 = uint64(r.blockRows), math.MaxUint64 // W1 after the pass
		th, took = &chosen, time.Since(t0)
	}
	from := binWidth * uint64(len(r.bal.small)) // the block half's rows: bin x2 or more
	var lay dealt
	var at [numLayers]uint32
	giant := uint64(0) // the whole-grid rows' items
	for j := range R {
		d := uint64(F[j+1] - F[j])
		l := th.layer(d)
		lay.n[l]++
		if l == layerGrid {
			giant += d
		}
		if choosing && d >= from {
			r.bal.big = append(r.bal.big, uint32(d))
		}
	}
	if choosing {
		// The rows over W1 leave the block layer (with W1 infinite above, none was a grid row).
		t0 := time.Now()
		chosen.W1, _ = r.bal.chooseBlock(r.blockRows)
		for _, d := range r.bal.big {
			if uint64(d) > chosen.W1 {
				lay.n[layerBlock]--
				lay.n[layerGrid]++
				giant += uint64(d)
			}
		}
		took += time.Since(t0)
	}
	for l := 1; l < numLayers; l++ {
		at[l] = at[l-1] + lay.n[l-1]
	}
	for j := range R {
		l := th.layer(uint64(F[j+1] - F[j]))
		idx[at[l]] = uint32(j)
		at[l]++
	}
	gridCap := uint64(r.gridCap)
	if gridCap == 0 {
		gridCap = uint64(r.bal.costs.GridBlocks)
	}
	if n := uint64(lay.n[layerPool]); n > 0 {
		// A share of the rows for every block the device runs at once, POOL rows at a time.
		per := uint64(cmp.Or(r.poolRows, poolRows))
		lay.poolGrid = uint32(min(n, max(ceilDiv(n, per), gridCap), 1<<16))
	}
	if lay.n[layerGrid] > 0 {
		// A thread for each item, up to every thread the device runs at once (the rows' items
		// are spread over the grid: kernels/sgsi.cu, dealRows).
		lay.bigGrid = uint32(max(1, min(ceilDiv(giant, uint64(r.blockSize)), gridCap, 1<<16)))
	}
	var n [numLayers]uint64
	for l, x := range lay.n {
		n[l] = uint64(x)
	}
	r.st.Balance.note(i, *th, &n, uint64(F[R]), took)
	return lay
}

// launchLayers runs kernel f over a chunk's rows (its index at idxOff), a launch per layer that
// holds rows. shared says f keeps a cursor in shared memory (Link): its whole-grid rows go with
// the block layer's, a block each (the copy is the cheap pass; its output's copy back dominates).
func (r *runner) launchLayers(a joinArgs, f kernelFunc, idxOff uint64, lay *dealt, shared bool) error {
	at := idxOff
	for l, n := range lay.n {
		if shared && l == layerGrid {
			break // launched with the block layer's rows
		}
		a.Idx, a.NIdx, a.Grid = at, n, 0
		at += uint64(n)
		switch l {
		case layerWarp:
			a.Group = 32
		case layerPool:
			a.Group, a.Grid = 0, lay.poolGrid
		case layerBlock:
			a.Group = r.blockSize
			if shared {
				a.NIdx += lay.n[layerGrid]
			}
		case layerGrid:
			a.Group, a.Grid = lay.bigGrid*r.blockSize, lay.bigGrid
		}
		if a.NIdx == 0 {
			continue
		}
		if err := r.kernel(func() error { return f(r.be, a) }); err != nil {
			return err
		}
	}
	return nil
}
