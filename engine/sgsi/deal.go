package sgsi

import (
	"cmp"
	"context"
	"fmt"
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
// staging buffer, segment cache, spilled tables) on its device. Every runner filters and plans
// the same way (the plan depends only on the candidates' sizes and the graph, so the runners'
// first columns are the same list) and joins one contiguous range of the first column's
// candidates (dealBounds: ranges of about equal predicted work); the runners' counts, each a
// multiple of |Aut(p)|, are summed. A device listed k times gets k runners, each with 1/k of its
// budget: package gpu runs a count's schedule on the device's one worker thread (Device.Do), so
// they take turns, exact but not overlapped, which is how the dealing is checked on one GPU. A
// listing is not dealt (it runs on the first GPU listed). On the host emulation (Options.Host)
// the entries of GPUs name emulated devices, so that tests check the dealing without a GPU.

// DeviceStats is one runner's part of a dealt count (Stats.Devices).
type DeviceStats struct {
	GPU    int    // the entry of Problem.GPUs
	Device string // the device's name
	// Roots is how many of the first column's candidates the runner joined, Work their predicted
	// work (rootWeight); Count the embeddings it counted.
	Roots, Work, Count       uint64
	RegionBytes, Chunks      uint64
	BytesToGPU, BytesFromGPU uint64
	Comm, Comp               time.Duration // device time of its copies and kernels
	Time                     time.Duration // the runner's wall time, its setup included
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
// Stats merged (mergeStats) and a row for each.
func (e Engine) countDealt(ctx context.Context, p *engine.Problem, st *Stats, slots []slot) (*runner, error) {
	n := len(slots)
	sts := make([]Stats, n)
	rows := make([]DeviceStats, n)
	// --memory: the store is shared, the rest (candidates, spilled tables) split evenly.
	var hostLimit uint64
	if p.MemoryLimit > 0 {
		shared := storeFor(p.Data).bytes()
		hostLimit = shared + (p.MemoryLimit-min(p.MemoryLimit, shared))/uint64(n)
	}
	err := par.Each(ctx, n, func(ctx context.Context, i int) error {
		s := slots[i]
		sub := *p
		sub.GPUs, sub.GPUMemoryLimit, sub.MemoryLimit = []int{s.gpu}, s.limit, hostLimit
		o := e
		if e.Options.Host {
			o.Options.HostBytes = s.limit
		}
		t0 := time.Now()
		r, err := o.runOn(ctx, &sub, &sts[i], true, nil, func(r *runner, first []uint32) []uint32 {
			w := r.rootWeight()
			b := dealBounds(first, w, n)
			part := first[b[i]:b[i+1]]
			rows[i].Roots = uint64(len(part))
			for _, v := range part {
				rows[i].Work += w(v)
			}
			return part
		})
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
		p.Logger().Debug("sgsi runner", "runner", i, "gpu", rows[i].GPU, "device", rows[i].Device, "roots", rows[i].Roots, "work", rows[i].Work,
			"count", rows[i].Count, "region", rows[i].RegionBytes, "chunks", rows[i].Chunks, "bytes_to_gpu", rows[i].BytesToGPU,
			"bytes_from_gpu", rows[i].BytesFromGPU, "comm", rows[i].Comm, "comp", rows[i].Comp, "time", rows[i].Time)
	}
	*st = mergeStats(sts)
	st.Devices = rows
	return &runner{total: total}, err
}

// rootWeight returns the predicted work of a root (a candidate of the first column): with d its
// degree in the first step's label graph, d² + 1 when later steps join the d rows it makes (each
// row's buffer about as long as a list), d + 1 for a pattern of two vertices; 1 for a pattern of
// one vertex or a cartesian first step. On the host emulation (wiki-Vote and R-MAT 14, triangles,
// 4-cliques and 4-cycles, four runners) d² left the slowest runner 1.12-1.33 times the mean
// against 1.14-2.25 for d (docs/benchmarks.md). The sums cannot affect exactness: every root
// falls in one range whatever the weights.
func (r *runner) rootWeight() func(uint32) uint64 {
	if len(r.q.steps) == 0 || r.q.steps[0].cartesian {
		return func(uint32) uint64 { return 1 }
	}
	lg := r.s.label(r.q.steps[0].first.key)
	if len(r.q.steps) == 1 {
		return func(v uint32) uint64 { return lg.degree(v) + 1 }
	}
	return func(v uint32) uint64 {
		d := lg.degree(v)
		return d*d + 1
	}
}

// dealBounds splits first into n contiguous ranges of about equal weight: range j is
// first[b[j]:b[j+1]], ending at the first root where the prefix sum of the weights reaches
// (j+1)/n of the total, so that each range weighs at most a share plus one root's weight.
func dealBounds(first []uint32, weight func(uint32) uint64, n int) []int {
	var total uint64
	for _, v := range first {
		total += weight(v)
	}
	b := make([]int, n+1)
	b[n] = len(first)
	var sum uint64
	j, k := 1, 0
	for ; j < n; j++ {
		// The j-th threshold, total·j/n without overflow.
		th := total/uint64(n)*uint64(j) + total%uint64(n)*uint64(j)/uint64(n)
		for k < len(first) && sum < th {
			sum += weight(first[k])
			k++
		}
		b[j] = k
	}
	return b
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
}

// add merges o, another runner's balance of the same steps, into b: each step's rows per layer
// and choice time summed, the thresholds of the chunk of most rows kept.
func (b *Balance) add(o Balance) {
	for i, s := range o {
		for len(*b) <= i {
			*b = append(*b, StepBalance{})
		}
		d := &(*b)[i]
		for l, n := range s.Rows {
			d.Rows[l] += n
		}
		d.Choice += s.Choice
		if s.maxRows > d.maxRows {
			d.maxRows, d.W3, d.W2, d.W1 = s.maxRows, s.W3, s.W2, s.W1
		}
	}
}
