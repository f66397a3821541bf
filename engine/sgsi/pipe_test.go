package sgsi

// The direct count's pipeline (pipe.go) on a model of two device streams that runs queued work
// only when the host waits for it, against the serial host emulation.

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/internal/proptest"
	"github.com/submatch/submatch/pattern"
)

// pipeModel is a pipeQueue of two streams, copies and kernels, each running its queued work in
// order and only when the host waits for it (WaitStage, WaitSlot, Drain), a kernel after the
// copies queued before it (as the GPU's compute stream waits for the copy stream's event). With
// eager set, copies run as soon as they are queued, and kernels still late: a slot overwritten
// before its kernel ran then shows in the count. Each copy checks, when it runs, that its
// staging words still hold what was staged (stale counts those that did not); wrote counts the
// copies of each region word.
type pipeModel struct {
	be     *HostBackend
	stages [][]uint32
	eager  bool

	copies, kernels []modelOp // queued, not run
	copied, counted int       // ops run so far on each stream
	nCopy, nKernel  int       // ops queued so far on each stream
	stageAt         []int     // the copy-stream position after stage i's last copy
	slotAt          [2]int    // the compute-stream position after slot s's last kernel

	stale, late int            // copies on overwritten staging; waits that ran queued work
	wrote       []int          // copies of each region word
	failAt      int            // the call (copy or kernel, from 1) that fails with errModel; 0: none
	calls       int            // copies and kernels queued so far
	hook        func(call int) // called at each copy and kernel queued (nil: none)
	err         error          // the first error of a copy or kernel run
	log         []string       // the order the ops ran in (when logging)
	logging     bool
}

type modelOp struct {
	after int // kernels: the copies queued before it
	run   func()
}

var errModel = errors.New("the model's planted failure")

func newPipeModel(be *HostBackend, stages int, words uint64, eager bool) *pipeModel {
	m := &pipeModel{be: be, eager: eager, stages: make([][]uint32, stages), stageAt: make([]int, stages), wrote: make([]int, be.Words())}
	for i := range m.stages {
		m.stages[i] = make([]uint32, words)
	}
	return m
}

func (m *pipeModel) fail(err error) {
	if err != nil && m.err == nil {
		m.err = err
	}
}

// runCopies runs the copy stream up to position upto.
func (m *pipeModel) runCopies(upto int) {
	for m.copied < upto {
		op := m.copies[0]
		m.copies = m.copies[1:]
		m.copied++
		op.run()
	}
}

// runKernels runs the compute stream up to position upto, each kernel after its copies.
func (m *pipeModel) runKernels(upto int) {
	for m.counted < upto {
		op := m.kernels[0]
		m.kernels = m.kernels[1:]
		m.counted++
		m.runCopies(op.after)
		op.run()
	}
}

func (m *pipeModel) planted() error {
	m.calls++
	if m.hook != nil {
		m.hook(m.calls)
	}
	if m.calls == m.failAt {
		return errModel
	}
	return nil
}

func (m *pipeModel) Begin() error       { return nil }
func (m *pipeModel) Stages() [][]uint32 { return m.stages }

func (m *pipeModel) Copy(i int, off, n uint64) error {
	if err := m.planted(); err != nil {
		return err
	}
	staged := m.stages[i][:n]
	want := slices.Clone(staged)
	m.copies = append(m.copies, modelOp{run: func() {
		if !slices.Equal(staged, want) {
			m.stale++
		}
		for w := off; w < off+n && w < uint64(len(m.wrote)); w++ {
			m.wrote[w]++
		}
		if m.logging {
			m.log = append(m.log, fmt.Sprintf("copy %d+%d", off, n))
		}
		m.fail(m.be.Put(off, staged))
	}})
	m.nCopy++
	m.stageAt[i] = m.nCopy
	if m.eager {
		m.runCopies(m.nCopy)
	}
	return nil
}

func (m *pipeModel) WaitStage(i int) error {
	if m.copied < m.stageAt[i] {
		m.late++
	}
	m.runCopies(m.stageAt[i])
	return m.err
}

func (m *pipeModel) Last(s int, a lastArgs) error {
	if err := m.planted(); err != nil {
		return err
	}
	m.kernels = append(m.kernels, modelOp{after: m.nCopy, run: func() {
		defer func() {
			if e := recover(); e != nil {
				m.fail(fmt.Errorf("kernel outside the region: %v", e))
			}
		}()
		if m.logging {
			m.log = append(m.log, fmt.Sprintf("kernel %d", s))
		}
		m.fail(m.be.Last(a))
	}})
	m.nKernel++
	m.slotAt[s] = m.nKernel
	return nil
}

func (m *pipeModel) WaitSlot(s int) error {
	if m.counted < m.slotAt[s] {
		m.late++
	}
	m.runKernels(m.slotAt[s])
	return m.err
}

// Read reads the region as it is: work queued and not run does not show (the pipeline must have
// waited for the slot).
func (m *pipeModel) Read(dst []uint32, off uint64) error { return m.be.Get(dst, off) }

func (m *pipeModel) Drain() (pipeTimes, error) {
	m.runKernels(m.nKernel)
	m.runCopies(m.nCopy)
	return pipeTimes{}, m.err
}

// modelBackend is the host emulation whose pipeline is a pipeModel.
type modelBackend struct {
	*HostBackend
	m *pipeModel
}

func (b *modelBackend) pipe() (pipeQueue, bool, error) { return b.m, true, nil }

// pipeCases are the counts the pipeline tests run: the direct count's patterns on a small
// unlabelled and a labelled R-MAT graph, at regions of a 4th and an 8th of GraphBytes (several
// blocks and pieces), every convention.
func pipeCases(t *testing.T, each func(name string, div uint64, newRunner func(be Backend) *runner, induced, unique bool)) {
	for _, gc := range []gen.RMATOptions{{Scale: 8, EdgeFactor: 8, Seed: 3}, {Scale: 8, EdgeFactor: 6, VertexLabels: 2, Seed: 4}} {
		g, err := gen.RMAT(gc)
		if err != nil {
			t.Fatal(err)
		}
		s := newStore(g, 0)
		for _, ps := range directPatterns {
			p, err := pattern.Parse(ps)
			if err != nil {
				t.Fatal(err)
			}
			for _, div := range []uint64{4, 8} {
				for _, sem := range proptest.AllSemantics {
					name := fmt.Sprintf("R-MAT %+v, %s, %s, 1/%d", gc, p, sem, div)
					each(name, div, func(be Backend) *runner {
						return &runner{ctx: context.Background(), be: be, st: &Stats{}, s: s, q: compileQuery(p), count: true,
							blockRows: DefaultBlockRows, blockSize: blockThreads, threads: 3}
					}, sem.Induced, sem.Unique)
				}
			}
		}
	}
}

// regionFor is the words of a 1/div region of g's GraphBytes.
func regionFor(r *runner, div uint64) uint64 { return GraphBytes(r.s.g) / div / 4 }

// serialReference runs a case's count serially on the host emulation with a region of
// 1/div of the graph: the reference the pipeline's counts are compared with, and that region.
func serialReference(t *testing.T, name string, div uint64, newRunner func(be Backend) *runner, induced, unique bool) (*runner, uint64) {
	t.Helper()
	serial := newRunner(nil)
	words := regionFor(serial, div)
	serial.be = NewHostBackend(words)
	if err := serial.run(induced, unique); err != nil {
		t.Fatalf("%s: serial: %v", name, err)
	}
	return serial, words
}

// TestPipelineOnModel runs the direct count's pipeline on pipeModel, with copies late and with
// copies eager, staging rings of 2 to 6 buffers of 16 to 200 words, against the serial host
// emulation: equal counts, no copy on overwritten staging, no kernel outside the region. It
// fails unless the pipeline ran kernels, and the model found queued work at the host's waits
// (the model ran something late: the test could see a missing wait).
func TestPipelineOnModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 9))
	var runs, pipelined, late int
	pipeCases(t, func(name string, div uint64, newRunner func(be Backend) *runner, induced, unique bool) {
		serial, words := serialReference(t, name, div, newRunner, induced, unique)
		for _, eager := range []bool{false, true} {
			be := &modelBackend{HostBackend: NewHostBackend(words)}
			be.m = newPipeModel(be.HostBackend, 2+rng.IntN(5), uint64(16+rng.IntN(185)), eager)
			r := newRunner(be)
			r.overlapGen, r.overlapTable = true, true
			err := r.run(induced, unique)
			if err == nil {
				err = be.m.err
			}
			runs++
			if err != nil || r.total != serial.total || be.m.stale > 0 {
				t.Fatalf("%s, region %d words, eager %v, %d stages of %d words: %d (%v, %d stale copies), serial %d",
					name, words, eager, len(be.m.stages), len(be.m.stages[0]), r.total, err, be.m.stale, serial.total)
			}
			if r.st.Pipelined > 0 {
				pipelined++
			}
			late += be.m.late
		}
	})
	t.Logf("%d runs, %d through the pipeline, %d waits found work queued", runs, pipelined, late)
	if pipelined == 0 || late == 0 {
		t.Errorf("%d runs through the pipeline, %d waits that ran queued work: the test checks nothing", pipelined, late)
	}
}

// TestPipelineUploads checks the pipeline's uploads (copyIn, upload) on pipeModel with late
// copies: random uploads of lists and plain words at random offsets, through rings of 2 to 5
// buffers of 1 to 40 words, land in the region as written word by word, every word copied
// exactly once, none from overwritten staging.
func TestPipelineUploads(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 2))
	for trial := range 60 {
		g, err := gen.RMAT(gen.RMATOptions{Scale: 4 + trial%4, EdgeFactor: 1 + trial%6, Seed: uint64(trial) + 1})
		if err != nil {
			t.Fatal(err)
		}
		s := newStore(g, 0)
		lg := s.label(lgKey{anyEdge, anyLabel, bothSides})
		var u listUpload
		u.reset(1 + trial%4)
		var want []uint32
		var refs []uint32
		for v := range g.NumVertices() {
			if rng.IntN(2) == 0 {
				refs = append(refs, uint32(v))
			}
		}
		want = appendUploadLayout(want, lg, refs)
		u.add(lg, refs)
		plain := make([]uint32, rng.IntN(100))
		for i := range plain {
			plain[i] = rng.Uint32()
		}
		at := uint64(4 + rng.IntN(10))
		n := uint64(len(want))
		be := NewHostBackend(at + n + uint64(len(plain)) + 4)
		m := newPipeModel(be, 2+rng.IntN(4), uint64(1+rng.IntN(40)), false)
		p, err := newPipeline(m, 0, &Stats{})
		if err != nil {
			t.Fatal(err)
		}
		if err := p.upload(at, &u); err != nil {
			t.Fatal(err)
		}
		if err := p.copyIn(at+n, plain); err != nil {
			t.Fatal(err)
		}
		var total uint64
		if _, err := p.finish(&total); err != nil {
			t.Fatal(err)
		}
		got := be.mem[at : at+n+uint64(len(plain))]
		if !slices.Equal(got[:n], want) || !slices.Equal(got[n:], plain) || m.stale > 0 {
			t.Fatalf("trial %d (%d stages of %d words): uploaded\n%v\nwant\n%v %v\n%d stale copies", trial, len(m.stages), len(m.stages[0]), got, want, plain, m.stale)
		}
		for w := at; w < at+n+uint64(len(plain)); w++ {
			if m.wrote[w] != 1 {
				t.Fatalf("trial %d: region word %d copied %d times", trial, w, m.wrote[w])
			}
		}
		if total != 0 {
			t.Errorf("trial %d: %d counted with no kernel", trial, total)
		}
	}
}

// TestPipelineSlots checks the pipeline's order on a scripted schedule: a slot's words are
// written only after its last kernel ran (free), a kernel runs after the copies queued before
// it, and a slot's count is read after its kernels and zeroed for the next (settle).
func TestPipelineSlots(t *testing.T) {
	be := NewHostBackend(64)
	m := newPipeModel(be, 2, 4, true) // copies at once, kernels only when waited for
	m.logging = true
	st := &Stats{}
	p, err := newPipeline(m, 0, st)
	if err != nil {
		t.Fatal(err)
	}
	var total uint64
	// Slot 0 gets "block 0", slot 1 "block 1", then slot 0 again: settle(0) must run kernel 0
	// before the copy of block 2.
	for blk := range 3 {
		s := blk % 2
		if err := p.settle(s, &total); err != nil {
			t.Fatal(err)
		}
		if err := p.copyIn(uint64(8+8*s), []uint32{uint32(blk)}); err != nil {
			t.Fatal(err)
		}
		m.log = append(m.log, fmt.Sprintf("queued %d", blk))
		// A kernel that adds its slot's word to the counter, as Last adds its count.
		m.kernels = append(m.kernels, modelOp{after: m.nCopy, run: func() {
			m.log = append(m.log, fmt.Sprintf("kernel %d", s))
			be.mem[p.counter[s]] += be.mem[8+8*s] + 1
		}})
		m.nKernel++
		m.slotAt[s] = m.nKernel
		p.busy[s], p.pending[s] = true, true
	}
	if _, err := p.finish(&total); err != nil {
		t.Fatal(err)
	}
	want := []string{"copy 0+2", "copy 2+2", // the counters zeroed
		"copy 8+1", "queued 0", "copy 16+1", "queued 1",
		"kernel 0", "copy 0+2", "copy 8+1", "queued 2", // slot 0: its kernel, its count read and zeroed, then its new words
		"kernel 1", "kernel 0", "copy 0+2", "copy 2+2"} // finish: both slots' kernels, counts read and zeroed
	if !slices.Equal(m.log, want) {
		t.Errorf("order %q\nwant  %q", m.log, want)
	}
	if total != 1+2+3 {
		t.Errorf("total %d, want 6 (blocks 0, 1, 2 each counting its number + 1)", total)
	}
}

// TestPipelineFailures: a copy or kernel that fails (the model's planted failure at every call
// in turn) stops the count with that error, nothing queued left running; a cancelled context
// stops an overlapped count with its error, the count so far a lower bound.
func TestPipelineFailures(t *testing.T) {
	g, err := gen.RMAT(gen.RMATOptions{Scale: 8, EdgeFactor: 8, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	s := newStore(g, 0)
	p, err := pattern.Parse(directPatterns[0])
	if err != nil {
		t.Fatal(err)
	}
	words := GraphBytes(g) / 8 / 4 // 10 blocks, 61 pieces overlapped
	run := func(ctx context.Context, failAt int) (*runner, *pipeModel, error) {
		be := &modelBackend{HostBackend: NewHostBackend(words)}
		be.m = newPipeModel(be.HostBackend, 3, 64, false)
		be.m.failAt = failAt
		r := &runner{ctx: ctx, be: be, st: &Stats{}, s: s, q: compileQuery(p), count: true, blockRows: DefaultBlockRows, blockSize: blockThreads, overlapGen: true, overlapTable: true}
		err := r.run(false, false)
		return r, be.m, err
	}
	full, m, err := run(context.Background(), 0)
	if err != nil || full.st.Pipelined < 2 {
		t.Fatalf("%v, %d kernels through the pipeline: want a count of several", err, full.st.Pipelined)
	}
	calls := m.calls
	for at := 1; at <= calls; at += max(1, calls/40) {
		r, m, err := run(context.Background(), at)
		if !errors.Is(err, errModel) {
			t.Fatalf("failure at call %d of %d: %v (count %d), want the planted error", at, calls, err, r.total)
		}
		if len(m.copies)+len(m.kernels) > 0 {
			t.Errorf("failure at call %d: %d copies and %d kernels left queued", at, len(m.copies), len(m.kernels))
		}
	}
	// Cancelled once the pipeline has queued a few calls: stopped at the next block.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	be := &modelBackend{HostBackend: NewHostBackend(words)}
	be.m = newPipeModel(be.HostBackend, 3, 64, false)
	be.m.hook = func(call int) {
		if call == 6 {
			cancel()
		}
	}
	r := &runner{ctx: ctx, be: be, st: &Stats{}, s: s, q: compileQuery(p), count: true, blockRows: DefaultBlockRows, blockSize: blockThreads, overlapGen: true, overlapTable: true}
	err = r.run(false, false)
	if !errors.Is(err, context.Canceled) || r.total > full.total || r.st.Blocks >= full.st.Blocks {
		t.Errorf("cancelled: %d counted in %d blocks (%v), want context.Canceled, at most %d in fewer than %d blocks", r.total, r.st.Blocks, err, full.total, full.st.Blocks)
	}
	if len(be.m.copies)+len(be.m.kernels) > 0 {
		t.Errorf("cancelled: %d copies and %d kernels left queued", len(be.m.copies), len(be.m.kernels))
	}
	t.Logf("%d calls, %d blocks, planted failures at every %d", calls, full.st.Blocks, max(1, calls/40))
}
