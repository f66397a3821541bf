package pbe

import (
	"context"
	"errors"
	"iter"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/internal/proptest"
	"github.com/submatch/submatch/partition"
)

// dealBackend is a Backend and dealer double: nslots slots (slot k names GPU k), counts with the
// cpu engine, records which part every call searched on which GPU, fails part failPart (with
// fail set) and, with block, waits in every other part until ctx ends.
type dealBackend struct {
	t        *testing.T
	nslots   int
	pt       *partition.Partitioning
	failPart int
	fail     bool
	block    bool
	// started is closed by the first call.
	started chan struct{}

	mu    sync.Mutex
	parts []int // in the order the calls started
	gpus  []int
}

var errDealTest = errors.New("deal test: part failed")

func (*dealBackend) Name() string { return "deal-test" }

func (b *dealBackend) slots(context.Context, *engine.Problem) ([]slot, error) {
	out := make([]slot, b.nslots)
	for k := range out {
		out[k] = slot{gpus: []int{k}, limit: uint64(100 + k)}
	}
	return out, nil
}

func (b *dealBackend) CountPart(ctx context.Context, sub *engine.Problem) (engine.Result, error) {
	part := int(b.pt.Of[sub.Data.OriginalID(0)])
	b.mu.Lock()
	b.parts = append(b.parts, part)
	b.gpus = append(b.gpus, sub.GPUs[0])
	if len(b.parts) == 1 && b.started != nil {
		close(b.started)
	}
	b.mu.Unlock()
	if k := sub.GPUs[0]; sub.GPUMemoryLimit != uint64(100+k) {
		b.t.Errorf("part %d on slot %d: GPU memory %d", part, k, sub.GPUMemoryLimit)
	}
	if b.fail && part == b.failPart {
		time.Sleep(10 * time.Millisecond) // the others are in their parts by now
		return engine.Result{Count: 1}, errDealTest
	}
	if b.block {
		<-ctx.Done()
		return engine.Result{Count: 1, Partial: true}, ctx.Err()
	}
	return HostBackend{}.CountPart(ctx, sub)
}

func (b *dealBackend) MatchesPart(ctx context.Context, sub *engine.Problem) iter.Seq2[[]uint32, error] {
	return HostBackend{}.MatchesPart(ctx, sub)
}

// dealCase is proptest's larger problem of seed, partitioned into parts of about a tenth of the
// graph, with the cpu engine's count of every part's induced subgraph summed.
func dealCase(t *testing.T, seed uint64) (*Engine, *engine.Problem, *partition.Partitioning, uint64) {
	t.Helper()
	ctx := context.Background()
	c := proptest.MakeLarger(seed)
	p := &engine.Problem{Data: c.G, Pattern: c.P, Threads: 1}
	e := &Engine{Budget: partition.GraphBytes(c.G) / 10}
	pt, err := e.layout(ctx, p, &Stats{})
	if err != nil {
		t.Fatal(err)
	}
	var want uint64
	for i := range pt.Parts {
		if !holdsPattern(pt, i, p.Pattern.NumVertices()) {
			continue
		}
		sub, err := e.subProblem(p, pt, i)
		if err != nil {
			t.Fatal(err)
		}
		r, err := HostBackend{}.CountPart(ctx, sub)
		if err != nil {
			t.Fatal(err)
		}
		want += r.Count
	}
	return e, p, pt, want
}

// TestDealOrder: the parts to search are every part with room for the pattern, once, largest
// first.
func TestDealOrder(t *testing.T) {
	for seed := range uint64(4) {
		_, p, pt, _ := dealCase(t, seed)
		k := p.Pattern.NumVertices()
		order, skipped := dealOrder(pt, k)
		var want []int
		for i, vs := range pt.Parts {
			if len(vs) >= k {
				want = append(want, i)
			}
		}
		if skipped != len(pt.Parts)-len(want) || !slices.Equal(slices.Sorted(slices.Values(order)), want) {
			t.Fatalf("seed %d: order %v (skipped %d), want the parts %v", seed, order, skipped, want)
		}
		for j := 1; j < len(order); j++ {
			if pt.Bytes[order[j-1]] < pt.Bytes[order[j]] {
				t.Fatalf("seed %d: part %d (%d B) before part %d (%d B)", seed, order[j-1], pt.Bytes[order[j-1]], order[j], pt.Bytes[order[j]])
			}
		}
	}
}

// TestDealCounts: with 1 to 5 workers every part is searched exactly once, on the workers'
// GPUs with their limits, one worker takes them largest first, and the sum is the parts' counts.
func TestDealCounts(t *testing.T) {
	for seed := range uint64(3) {
		e, p, pt, want := dealCase(t, seed)
		order, _ := dealOrder(pt, p.Pattern.NumVertices())
		if len(order) < 4 {
			t.Fatalf("seed %d: %d parts to search", seed, len(order))
		}
		for n := 1; n <= 5; n++ {
			b := &dealBackend{t: t, nslots: n, pt: pt}
			r, err := e.countIntra(context.Background(), p, pt, order, b)
			if err != nil || r.Partial || r.Count != want {
				t.Fatalf("seed %d, %d workers: %d (partial %v, err %v), want %d", seed, n, r.Count, r.Partial, err, want)
			}
			if !slices.Equal(slices.Sorted(slices.Values(b.parts)), slices.Sorted(slices.Values(order))) {
				t.Fatalf("seed %d, %d workers: parts searched %v, want %v once each", seed, n, b.parts, order)
			}
			if n == 1 && !slices.Equal(b.parts, order) {
				t.Fatalf("seed %d, one worker: parts in the order %v, want %v", seed, b.parts, order)
			}
			if slices.Max(b.gpus) >= n {
				t.Fatalf("seed %d, %d workers: GPUs %v", seed, n, b.gpus)
			}
		}
	}
}

// TestDealStops: a failing part stops every worker at once and its error is returned (not the
// cancellations it caused), with the count partial; so does the end of the caller's context.
func TestDealStops(t *testing.T) {
	e, p, pt, _ := dealCase(t, 1)
	order, _ := dealOrder(pt, p.Pattern.NumVertices())
	for _, n := range []int{1, 3} {
		b := &dealBackend{t: t, nslots: n, pt: pt, fail: true, failPart: order[n-1], block: true}
		t0 := time.Now()
		r, err := e.countIntra(context.Background(), p, pt, order, b)
		if !errors.Is(err, errDealTest) || !r.Partial || r.Count != uint64(n) {
			t.Errorf("%d workers, part %d failing: %d (partial %v, err %v), want %d, partial, its error", n, n-1, r.Count, r.Partial, err, n)
		}
		if d := time.Since(t0); d > time.Second {
			t.Errorf("%d workers: the failure took %v to stop them", n, d)
		}
		if len(b.parts) != n {
			t.Errorf("%d workers: %d parts started after the failure", n, len(b.parts))
		}

		b = &dealBackend{t: t, nslots: n, pt: pt, block: true, started: make(chan struct{})}
		ctx, cancel := context.WithCancel(context.Background())
		go func() {
			<-b.started
			cancel()
		}()
		t0 = time.Now()
		r, err = e.countIntra(ctx, p, pt, order, b)
		if !errors.Is(err, context.Canceled) || !r.Partial {
			t.Errorf("%d workers, cancelled: %d (partial %v, err %v)", n, r.Count, r.Partial, err)
		}
		if d := time.Since(t0); d > time.Second {
			t.Errorf("%d workers: the cancellation took %v to stop them", n, d)
		}
	}
	// Cancelled before the first part.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r, err := e.countIntra(ctx, p, pt, order, &dealBackend{t: t, nslots: 2, pt: pt})
	if !errors.Is(err, context.Canceled) || !r.Partial {
		t.Errorf("cancelled before: %d (partial %v, err %v)", r.Count, r.Partial, err)
	}
}
