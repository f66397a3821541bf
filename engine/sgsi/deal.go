package sgsi

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/gpu"
	"github.com/submatch/submatch/internal/checked"
	"github.com/submatch/submatch/internal/par"
)

// A count dealt to several GPUs: one runner per entry of the problem's GPUs (Problem.GPUs, set
// by --gpus; none named: every device gpu.Open finds), each with its own backend (region,
// staging buffer, segment cache, spilled tables) on its device. The first runner filters and
// plans for all and deals the first column's candidates in stripes of about equal predicted
// work (prepared, rootWeights, dealStripes); the others set up their backends meanwhile, then
// take its candidates and plan and join their stripes; the runners' counts, each a multiple of
// |Aut(p)|, are summed. A device listed k times gets k runners, each with 1/k of its
// budget: package gpu runs a count's schedule on the device's one worker thread (Device.Do), so
// they take turns, exact but not overlapped, which is how the dealing is checked on one GPU. A
// listing is not dealt (it runs on the first GPU listed). On the host emulation (Options.Host)
// the entries of GPUs name emulated devices, so that tests check the dealing without a GPU.

// DeviceStats is one runner's part of a dealt count (Stats.Devices).
type DeviceStats struct {
	GPU    int    // the entry of Problem.GPUs
	Device string // the device's name
	// Roots is how many of the first column's candidates the runner joined, Work their predicted
	// work (rootWeights, in its units); Items the buffer entries its joins read (its measured
	// work: the join steps' StepBalance.Items); Count the embeddings it counted.
	Roots, Work, Items, Count uint64
	RegionBytes, Chunks       uint64
	BytesToGPU, BytesFromGPU  uint64
	Comm, Comp                time.Duration // device time of its copies and kernels
	Time                      time.Duration // the runner's wall time, its setup included
}

// slot is one runner of a dealt count: a device (an index of gpu.Open's devices) and the bytes
// its region may take (0: the backend's default).
type slot struct {
	gpu   int
	limit uint64
}

// slots returns the runners a count is dealt to: one per entry of p.GPUs (none: every device),
// a device listed k times with 1/k of its budget (--gpu-memory, else the default region) each.
// Fewer than two: the count runs on one backend as it always did.
func (e Engine) slots(ctx context.Context, p *engine.Problem) []slot {
	ids := p.GPUs
	if len(ids) == 0 && !e.Options.Host {
		devs, err := gpu.Open(ctx)
		if err != nil {
			return nil // (the one backend reports it)
		}
		for i := range devs {
			ids = append(ids, i)
		}
	}
	if len(ids) < 2 {
		return nil
	}
	listed := map[int]uint64{}
	for _, id := range ids {
		listed[id]++
	}
	budget := p.GPUMemoryLimit
	if e.Options.Host {
		budget = e.hostBytes(p)
	}
	shared := budget // what a device listed several times splits
	if shared == 0 {
		shared = cmp.Or(e.Options.MaxRegion, DefaultMaxRegion)
	}
	s := make([]slot, len(ids))
	for i, id := range ids {
		s[i] = slot{gpu: id, limit: budget}
		if k := listed[id]; k > 1 {
			s[i].limit = shared / k
		}
	}
	return s
}

// countDealt runs a count on every slot at once (par.Each: the first failure stops the others, and
// so does the end of ctx) and returns a runner holding the counts' sum; st gets the runners'
// Stats merged (mergeStats) and a row for each. The first runner filters and plans for all
// (prepared); the others set up their backends meanwhile, then wait for it.
func (e Engine) countDealt(ctx context.Context, p *engine.Problem, st *Stats, slots []slot) (*runner, error) {
	n := len(slots)
	sts := make([]Stats, n)
	rows := make([]DeviceStats, n)
	pre := &prepared{ready: make(chan struct{}), parts: make([][]uint32, n), work: make([]uint64, n)}
	// --memory: every runner keeps the whole limit; the store and the candidates are shared,
	// each runner's own memory (spilled tables, sort buffer) gets an even share of the rest
	// (runner.reserve).
	err := par.Each(ctx, n, func(ctx context.Context, i int) error {
		s := slots[i]
		sub := *p
		sub.GPUs, sub.GPUMemoryLimit = []int{s.gpu}, s.limit
		o := e
		if e.Options.Host {
			o.Options.HostBytes = s.limit
		}
		t0 := time.Now()
		r, err := o.runOn(ctx, &sub, &sts[i], true, nil, &dealing{i: i, pre: pre})
		sts[i].Total = time.Since(t0)
		if r != nil {
			rows[i].Count = r.total
		}
		if err != nil {
			return fmt.Errorf("sgsi: runner %d of %d (GPU %d): %w", i, n, s.gpu, err)
		}
		return nil
	})
	var total uint64
	for i := range rows {
		c, ok := checked.Add(total, rows[i].Count)
		if !ok && err == nil {
			err = fmt.Errorf("sgsi: %w", engine.ErrOverflow)
		}
		total = c
		x := &sts[i]
		rows[i].GPU, rows[i].Device, rows[i].RegionBytes, rows[i].Chunks = slots[i].gpu, x.Device, x.RegionBytes, x.Chunks
		rows[i].BytesToGPU, rows[i].BytesFromGPU, rows[i].Comm, rows[i].Comp, rows[i].Time = x.BytesToGPU, x.BytesFromGPU, x.Comm, x.Comp, x.Total
		rows[i].Roots, rows[i].Work = uint64(len(pre.parts[i])), pre.work[i] // (zero unless published: pre.parts' writes happen before the runners end)
		for _, b := range x.Balance {
			rows[i].Items += b.Items
		}
		p.Logger().Debug("sgsi runner", "runner", i, "gpu", rows[i].GPU, "device", rows[i].Device, "roots", rows[i].Roots, "work", rows[i].Work,
			"items", rows[i].Items, "count", rows[i].Count, "region", rows[i].RegionBytes, "chunks", rows[i].Chunks, "bytes_to_gpu", rows[i].BytesToGPU,
			"bytes_from_gpu", rows[i].BytesFromGPU, "comm", rows[i].Comm, "comp", rows[i].Comp, "time", rows[i].Time)
	}
	*st = mergeStats(sts)
	st.Devices = rows
	return &runner{total: total}, err
}

// prepared is what the runners of a dealt count share: the first runner's candidates (bitsets
// and lists) and plan, and every runner's roots with their predicted work. The first runner
// fills it (publish) and closes ready, or closes it with err set when it stopped before
// (stopped); the others wait for ready before their schedule starts, outside the device's worker
// thread (which runners listed on one device share: waiting on it would hold the first runner
// off), and then only read it.
type prepared struct {
	ready chan struct{}
	err   error
	shut  bool // ready is closed (the first runner's alone)
	q     *query
	bits  []uint32
	cands [][]uint32
	parts [][]uint32 // runner i's roots: stripes of the first column's candidates (dealStripes)
	work  []uint64   // their predicted work (rootWeights)
}

// dealing is a runner's place in a dealt count: its index (0 is the first runner) and what the
// runners share.
type dealing struct {
	i   int
	pre *prepared
}

// publish shares the first runner r's candidates and plan and deals the first column's
// candidates to the runners by weights w (dealStripes; w nil: a candidate set is empty, no
// runner has roots).
func (p *prepared) publish(r *runner, w []uint64) {
	p.q, p.bits, p.cands = r.q, r.bitsHost, r.cands
	if w != nil {
		p.parts, p.work = dealStripes(r.cands[r.q.order[0]], w, len(p.parts))
	}
	p.shut = true
	close(p.ready)
}

// stopped is called when the first runner ends: if it had not published, the others stop
// with its error.
func (p *prepared) stopped(err error) {
	if p.shut {
		return
	}
	if err == nil {
		err = errors.New("sgsi: the first runner of a dealt count ended before its filter")
	}
	p.err, p.shut = err, true
	close(p.ready)
}

// wait waits for the first runner's results (or the end of ctx) and gives r their plan.
func (d *dealing) wait(ctx context.Context, r *runner) error {
	t0 := time.Now()
	select {
	case <-d.pre.ready:
	case <-ctx.Done():
		return ctx.Err()
	}
	if d.pre.err != nil {
		return fmt.Errorf("the first runner's filter: %w", d.pre.err)
	}
	r.q, r.waited = d.pre.q, time.Since(t0)
	return nil
}

// follow gives a dealt count's runner other than the first the first's candidates: the host's
// lists, and the bitsets uploaded to its region.
func (r *runner) follow() error {
	p := r.part.pre
	r.bitsHost, r.cands = p.bits, p.cands
	if err := r.reserve("the candidate lists", 0); err != nil { // (counted in hostShared)
		return err
	}
	return r.put(r.bitsOff, p.bits)
}

// predictor names a way to predict a root's work (Options.predictor; TestDealPredictors compares
// them). With v the root, d its degree in the first step's label graph, k the pattern's vertices,
// and m(v, x) the second step's buffer for a row (v, x) of the first step (x in v's list, a
// candidate): the row's shortest linking list, the least of the links' lists of v and x (|C(u)|
// for a cartesian step).
type predictor int

const (
	// predictLinks (the default) is 1 + the sum over v's rows of 1 + m^(k-2): for triangles the
	// second step's rows and items exactly (TestRootWeightsTriangles); deeper patterns multiply
	// by about m a level, which holds where the work is (dense cores). Following the plan's
	// later steps (b₂, b₃ from their linking lists, every entry a row) over-weighted the hubs of
	// a labelled query (a slowest runner 2.06 times the mean where this gives 1.18).
	predictLinks predictor = iota
	// predictSquare is d² + 1 (branch sgsimd).
	predictSquare
	// predictPower is d^(k-1) + 1.
	predictPower
)

var predictorNames = [...]string{"Σ m^(k-2)", "d²", "d^(k-1)"}

func (p predictor) String() string { return predictorNames[p] }

// rootWeights returns the predicted work of each of the first column's candidates (the roots),
// in order, by the engine's predictor: 1 each for a pattern of one vertex or a cartesian first
// step, d + 1 (d the root's degree in the first step's label graph) for two vertices. The
// weights are scaled so that their sum stays below 2^60, at least 1 each. O(the roots' list
// entries) at most, on r.threads goroutines. The weights cannot affect exactness: every root
// falls in one range whatever they are.
func (r *runner) rootWeights() []uint64 {
	q := r.q
	first := r.cands[q.order[0]]
	f := make([]float64, len(first))
	switch {
	case len(q.steps) == 0 || q.steps[0].cartesian:
		for j := range f {
			f[j] = 1
		}
	case len(q.steps) == 1:
		lg := r.s.label(q.steps[0].first.key)
		for j, v := range first {
			f[j] = float64(lg.degree(v)) + 1
		}
	default:
		r.weighDeep(first, f)
	}
	total := 0.0
	for _, x := range f {
		total += x
	}
	scale := min(1, (1<<60)/max(total, 1))
	w := make([]uint64, len(f))
	for j, x := range f {
		w[j] = uint64(x*scale) + 1
	}
	return w
}

// weighDeep fills f with the predicted work of the roots first of a pattern of three vertices or
// more (predictor, above).
func (r *runner) weighDeep(first []uint32, f []float64) {
	q := r.q
	s0 := &q.steps[0]
	lg := r.s.label(s0.first.key)
	k := float64(q.n)
	switch r.predictor {
	case predictSquare:
		for j, v := range first {
			d := float64(lg.degree(v))
			f[j] = d*d + 1
		}
		return
	case predictPower:
		for j, v := range first {
			f[j] = math.Pow(float64(lg.degree(v)), k-1) + 1
		}
		return
	}
	// The second step's linking lists: the columns they read (0: v, 1: x) and the label graphs.
	s1 := &q.steps[1]
	var cols []int
	var lgs []*labelGraph
	if !s1.cartesian {
		for _, l := range append([]link{s1.first}, s1.others...) {
			cols = append(cols, l.col)
			lgs = append(lgs, r.s.label(l.key))
		}
	}
	cart := float64(len(r.cands[s1.u]))
	bits := r.bitsHost[uint64(s0.u)*r.bitWords : uint64(s0.u+1)*r.bitWords] // C(order[1])
	par.For(len(first), r.threads, func(j int) {
		v := first[j]
		sum := 1.0
		for _, x := range lg.list(v) {
			if bits[x/32]>>(x%32)&1 == 0 {
				continue // no row: x is not a candidate
			}
			m := cart
			if lgs != nil {
				m = math.Inf(1)
				for i, c := range cols {
					y := v
					if c == 1 {
						y = x
					}
					m = min(m, float64(lgs[i].degree(y)))
				}
			}
			sum += 1 + math.Pow(m, k-2)
		}
		f[j] = sum
	})
}

// stripesPerRunner is how many stripes of the first column each runner of a dealt count gets.
const stripesPerRunner = 64

// dealStripes deals roots (in order, of weights w) to n runners in stripes: cut where the
// prefix sum of the weights crosses a multiple of total/(n·stripesPerRunner), stripe s going to
// runner s mod n (a root to the stripe its prefix sum before it falls in), so each runner's
// roots lie all along the column, in order. A runner's weight is then within a stripe and
// stripesPerRunner+1 heaviest roots of an even share; and where the predicted work is off by a
// factor over a part of the column (the hubs, which R-MAT and the graph builder number last),
// every runner has its share of that part, so the error evens out instead of landing on the
// runner of that part's contiguous range (sgsimd's split: on R-MAT 20 4-cliques the hubs'
// runner did 90% of the count). The weights' sum must fit in 64 bits.
func dealStripes(roots []uint32, w []uint64, n int) (parts [][]uint32, work []uint64) {
	var total uint64
	for _, x := range w {
		total += x
	}
	stripe := max(1, total/uint64(n*stripesPerRunner))
	count := make([]int, n)
	var sum uint64
	for _, x := range w {
		count[sum/stripe%uint64(n)]++
		sum += x
	}
	parts, work = make([][]uint32, n), make([]uint64, n)
	for j := range parts {
		parts[j] = make([]uint32, 0, count[j])
	}
	sum = 0
	for k, x := range w {
		j := sum / stripe % uint64(n)
		parts[j] = append(parts[j], roots[k])
		work[j] += x
		sum += x
	}
	return parts, work
}

// mergeStats merges the runners' Stats: counters, bytes and peaks summed (the runners hold
// their regions and tables at once, on their devices and the host), the device times Comm,
// Comp and Overlap summed (device time over every device), each step's load balance merged (Balance.add),
// and the rest from the slowest runner (its setup, phases and Total, so that Other stays its
// own): the count's critical path.
func mergeStats(sts []Stats) Stats {
	slow := 0
	for i := range sts {
		if sts[i].Total > sts[slow].Total {
			slow = i
		}
	}
	m := sts[slow]
	m.Balance = slices.Clone(m.Balance)
	m.PerStep = slices.Clone(m.PerStep)
	m.LabelBuilds = nil // (every runner's, in the runners' order: the first builds most)
	for i := range sts {
		m.LabelBuilds = append(m.LabelBuilds, sts[i].LabelBuilds...)
	}
	for i := range sts {
		if i == slow {
			continue
		}
		m.addCounters(&sts[i])
		m.Comm += sts[i].Comm
		m.Comp += sts[i].Comp
		m.Overlap += sts[i].Overlap
		m.InCore = m.InCore && sts[i].InCore
		m.Balance.add(sts[i].Balance)
		for j, s := range sts[i].PerStep {
			if j < len(m.PerStep) {
				m.PerStep[j].add(s)
			}
		}
	}
	names := make([]string, len(sts))
	for i := range sts {
		names[i] = sts[i].Device
	}
	m.Device = strings.Join(names, ", ")
	return m
}

// addCounters adds o's counters, bytes and peaks (every uint64 field of Stats) to s's.
func (s *Stats) addCounters(o *Stats) {
	s.RegionBytes += o.RegionBytes
	s.CacheBytes += o.CacheBytes
	s.Segments += o.Segments
	s.SegmentHits += o.SegmentHits
	s.Chunks += o.Chunks
	s.Windows += o.Windows
	s.Parts += o.Parts
	s.WindowRetries += o.WindowRetries
	s.Gathered += o.Gathered
	s.Merged += o.Merged
	s.Blocks += o.Blocks
	s.BlockRows += o.BlockRows
	s.BlockFallbacks += o.BlockFallbacks
	s.Pieces += o.Pieces
	s.Tiled += o.Tiled
	s.OffsetBytes += o.OffsetBytes
	s.Sparse += o.Sparse
	s.BytesToGPU += o.BytesToGPU
	s.BytesFromGPU += o.BytesFromGPU
	s.CopiesToGPU += o.CopiesToGPU
	s.CopiesFromGPU += o.CopiesFromGPU
	s.Launches += o.Launches
	s.Pipelined += o.Pipelined
	s.PeakDevice += o.PeakDevice
	s.PeakHost += o.PeakHost
	s.TableCopied += o.TableCopied
	s.Refined += o.Refined
}

// add merges o, another runner's balance of the same steps, into b: each step's rows per layer
// and choice time summed, the thresholds of the chunk of most rows kept.
func (b *Balance) add(o Balance) {
	for i, s := range o {
		b.step(i).merge(s)
	}
}
