package stmatch

import (
	"context"
	"errors"
	"slices"
	"sync/atomic"
	"testing"
	"time"
)

// emitBatches is a producer for fanIn: batches of `size` rows numbered from k*1e6 on, written
// into one reused buffer (as a device's sink reuses its host buffer), until count batches are
// emitted or emit refuses one.
func emitBatches(count, size int) func(ctx context.Context, k int, emit func([]uint32) bool) (bool, error) {
	return func(ctx context.Context, k int, emit func([]uint32) bool) (bool, error) {
		buf := make([]uint32, size)
		next := uint32(k * 1_000_000)
		for range count {
			for i := range buf {
				buf[i] = next
				next++
			}
			if !emit(buf) {
				return true, nil
			}
			clear(buf) // reused at once: the consumer must be done with it
		}
		return false, nil
	}
}

func TestFanInDeliversEveryBatch(t *testing.T) {
	var got []uint32
	consume := func(rows []uint32) bool {
		for i := 1; i < len(rows); i++ {
			if rows[i] != rows[0]+uint32(i) {
				t.Fatalf("batch overwritten while consumed: %v", rows)
			}
		}
		got = append(got, rows...)
		return true
	}
	if err := fanIn(context.Background(), 4, emitBatches(50, 7), consume); err != nil {
		t.Fatal(err)
	}
	var want []uint32
	for k := range 4 {
		for i := range 50 * 7 {
			want = append(want, uint32(k*1_000_000+i))
		}
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Fatalf("got %d rows, want %d", len(got), len(want))
	}
}

func TestFanInConsumerStops(t *testing.T) {
	var producersDone atomic.Int32
	produce := func(ctx context.Context, k int, emit func([]uint32) bool) (bool, error) {
		defer producersDone.Add(1)
		return emitBatches(1_000_000, 3)(ctx, k, emit)
	}
	n := 0
	err := fanIn(context.Background(), 3, produce, func([]uint32) bool { n++; return n < 10 })
	if err != nil {
		t.Fatalf("a consumer that stops is not an error: %v", err)
	}
	if n != 10 {
		t.Fatalf("consumed %d batches after stopping at 10", n)
	}
	if producersDone.Load() != 3 {
		t.Fatalf("%d of 3 producers returned", producersDone.Load())
	}
}

func TestFanInProducerError(t *testing.T) {
	boom := errors.New("device failed")
	produce := func(ctx context.Context, k int, emit func([]uint32) bool) (bool, error) {
		if k == 1 {
			emit([]uint32{1})
			return false, boom
		}
		stopped, _ := emitBatches(1_000_000, 2)(ctx, k, emit)
		if stopped {
			return true, ctx.Err()
		}
		return false, nil
	}
	if err := fanIn(context.Background(), 3, produce, func([]uint32) bool { return true }); !errors.Is(err, boom) {
		t.Fatalf("got %v, want the producer's error", err)
	}
}

func TestFanInCancelled(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	// Producers that ignore the context and emit until refused: the refusals alone must make
	// the listing incomplete.
	err := fanIn(ctx, 2, emitBatches(1<<40, 1), func([]uint32) bool { return true })
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("got %v, want the deadline", err)
	}
}

// TestFanInConsumerPanics: a consumer that panics (a failing test, a bug in the caller's loop)
// must not leave a producer waiting for its answer, holding its device's memory.
func TestFanInConsumerPanics(t *testing.T) {
	var producersDone atomic.Int32
	produce := func(ctx context.Context, k int, emit func([]uint32) bool) (bool, error) {
		defer producersDone.Add(1)
		return emitBatches(1_000_000, 2)(ctx, k, emit)
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Fatal("the consumer's panic was swallowed")
			}
		}()
		n := 0
		fanIn(context.Background(), 3, produce, func([]uint32) bool {
			if n++; n == 5 {
				panic("consumer failed")
			}
			return true
		})
	}()
	deadline := time.Now().Add(10 * time.Second)
	for producersDone.Load() != 3 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if producersDone.Load() != 3 {
		t.Fatalf("%d of 3 producers returned after the consumer panicked", producersDone.Load())
	}
}
