package cpu

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/pattern"
)

// TestStealingKeepsCounts runs problems many times on several workers with the stealing poll
// made very frequent, so that subtrees change hands at every depth, and checks every count
// against one worker. (A stolen task once forgot to rebuild the shared set of its own level.)
func TestStealingKeepsCounts(t *testing.T) {
	defer func(m uint32, d time.Duration) { pollMask, rampUpDelay = m, d }(pollMask, rampUpDelay)
	pollMask, rampUpDelay = 0, 0
	g := gen.RandomGraph(3487, 22, 0.8, 4, 2)
	patterns := []*pattern.Pattern{
		gen.RandomPattern(3487, 5, gen.PatternOptions{Components: 1, EdgeProb: 0.08, VertexLabels: 4, EdgeLabels: 2, Wildcard: 1}),
	}
	for _, src := range []string{"(a)-(b)-(c)-(a), (c)-(d)-(a)", "(a)-(b)-(c)-(d)-(e)", "(a)-(b)-(c)-(a), (d)"} {
		p, err := pattern.Parse(src)
		if err != nil {
			t.Fatal(err)
		}
		patterns = append(patterns, p)
	}
	reps := 40
	if testing.Short() {
		reps = 10
	}
	for _, p := range patterns {
		for _, sem := range []engine.Semantics{{}, {Induced: true}, {Unique: true}, {Unique: true, Induced: true}} {
			prob := &engine.Problem{Data: g, Pattern: p, Semantics: sem, Threads: 1}
			want, err := Engine{}.Count(context.Background(), prob)
			if err != nil {
				t.Fatal(err)
			}
			for i := 0; i < reps; i++ {
				prob.Threads = 2 + i%3
				got, err := Engine{}.Count(context.Background(), prob)
				if err != nil || got.Count != want.Count {
					t.Fatalf("%s %s threads %d: %d (%v), one worker: %d", p, sem, prob.Threads, got.Count, err, want.Count)
				}
			}
		}
	}
}

// TestRootChunks claims the roots from several goroutines at once and checks that every root is
// handed out exactly once, the last roots (the highest degrees) first and in chunks of one, and
// that no chunk exceeds the scheduler's.
func TestRootChunks(t *testing.T) {
	for _, n := range []int{0, 1, 7, 1000, 100_000} {
		roots := make([]uint32, n)
		for i := range roots {
			roots[i] = uint32(i)
		}
		var stop atomic.Bool
		s := newScheduler(roots, 4, &stop)
		if lo, hi, ok := s.rootChunk(); n > 0 && (!ok || lo != n-1 || hi != n) {
			t.Fatalf("n %d: first chunk [%d, %d) %v, want the last root alone", n, lo, hi, ok)
		} else if ok {
			s.done.Add(1)
		}
		seen := make([]atomic.Int32, n)
		var wg sync.WaitGroup
		for range 4 {
			wg.Go(func() {
				for {
					lo, hi, ok := s.rootChunk()
					if !ok {
						return
					}
					if hi-lo > s.chunk || lo < 0 || hi > n || lo >= hi {
						t.Errorf("n %d: chunk [%d, %d), at most %d", n, lo, hi, s.chunk)
					}
					for k := lo; k < hi; k++ {
						seen[k].Add(1)
					}
				}
			})
		}
		wg.Wait()
		for k := range seen[:max(0, n-1)] {
			if c := seen[k].Load(); c != 1 {
				t.Fatalf("n %d: root %d handed out %d times", n, k, c)
			}
		}
	}
}

// TestRampUp starts a count's workers through the scheduler: the first at once, the others once
// pollRamp finds the delay over (not before), each once however often the ramp-up is asked for,
// and none that would start after the work is done.
func TestRampUp(t *testing.T) {
	var stop atomic.Bool
	s := newScheduler([]uint32{1, 2, 3}, 4, &stop)
	var ran atomic.Int32
	release := make(chan struct{})
	s.begin(time.Hour, func() {
		ran.Add(1)
		<-release
	})
	if s.pollRamp() {
		t.Fatal("pollRamp started the workers before the delay")
	}
	s.rampDelay = 0
	if !s.pollRamp() {
		t.Fatal("pollRamp did not start the workers after the delay")
	}
	s.rampUp()
	s.pollRamp()
	for ran.Load() < 4 {
		time.Sleep(time.Millisecond)
	}
	close(release)
	s.wait()
	if n := ran.Load(); n != 4 || s.workers != 4 {
		t.Fatalf("%d workers ran, %d registered, want 4", n, s.workers)
	}

	// A worker whose goroutine starts after the work is done returns at once, uncounted.
	s = newScheduler([]uint32{1}, 3, &stop)
	ran.Store(0)
	s.begin(time.Hour, func() {
		ran.Add(1)
		if _, ok := s.take(); ok {
			t.Error("take returned a task with none pushed")
		}
	})
	s.wait()
	s.rampUp()
	time.Sleep(10 * time.Millisecond)
	if n := ran.Load(); n != 1 || s.workers != 1 {
		t.Fatalf("%d workers ran, %d registered after the work was done, want 1", n, s.workers)
	}
}
