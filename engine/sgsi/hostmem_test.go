package sgsi_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/engine/sgsi"
	"github.com/submatch/submatch/internal/oracle"
	"github.com/submatch/submatch/internal/proptest"
)

// TestHostMemory checks --memory (Problem.MemoryLimit) on the host side: from a limit below the
// signature table up to none, every run either equals the oracle with its spilled tables within
// the limit or stops with engine.ErrMemory and a line naming what did not fit; a limit below the
// unlimited run's table peak must still finish (the pending tables are joined sooner). Each
// case runs with the direct count and with buffers (Options.Buffered): the direct count of a
// three-vertex pattern spills no table at all, so the squeezed runs are the buffered ones.
func TestHostMemory(t *testing.T) {
	ctx := context.Background()
	var refused, squeezed int
	for x := range 24 {
		seed, buffered := uint64(1+x/2), x%2 == 1
		c := proptest.MakeLarger(seed)
		sem := engine.Semantics{}
		want, ok := oracle.CountWithin(c.G, c.P, sem, 5_000_000)
		if !ok {
			continue
		}
		opts := sgsi.Options{Host: true, HostBytes: 16 << 10, Buffered: buffered}
		_, free, err := sgsi.Engine{Options: opts}.CountStats(ctx, &engine.Problem{Data: c.G, Pattern: c.P, Semantics: sem})
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		t.Logf("seed %d, buffered %v: count %d, table peak %d bytes", seed, buffered, want, free.PeakHost)
		limits := []uint64{64}
		for l := uint64(1 << 10); l <= 96<<10; l += 1 << 10 {
			limits = append(limits, l)
		}
		for _, limit := range limits {
			p := &engine.Problem{Data: c.G, Pattern: c.P, Semantics: sem, MemoryLimit: limit}
			res, st, err := sgsi.Engine{Options: opts}.CountStats(ctx, p)
			if err != nil {
				if !errors.Is(err, engine.ErrMemory) || !strings.Contains(err.Error(), "--memory") {
					t.Errorf("seed %d buffered %v --memory %d: %v, want an ErrMemory naming --memory", seed, buffered, limit, err)
				}
				if refused%20 == 0 {
					t.Log(err)
				}
				refused++
				continue
			}
			if res.Count != want {
				t.Errorf("seed %d buffered %v --memory %d: %d, oracle %d", seed, buffered, limit, res.Count, want)
			}
			if st.PeakHost > limit {
				t.Errorf("seed %d buffered %v --memory %d: spilled tables peaked at %d bytes", seed, buffered, limit, st.PeakHost)
			}
			if st.PeakHost < free.PeakHost {
				squeezed++
			}
		}
	}
	t.Logf("%d runs refused, %d finished below the unlimited table peak", refused, squeezed)
	if refused == 0 || squeezed == 0 {
		t.Errorf("no limit refused (%d) or squeezed the tables (%d): the test checks nothing", refused, squeezed)
	}
}

// TestDealHostMemory: --memory on a count dealt to two runners (deal.go: the store shared, the
// rest split), every run equal to the oracle with the runners' spilled tables together within
// the limit, or refused with an ErrMemory naming --memory.
func TestDealHostMemory(t *testing.T) {
	ctx := context.Background()
	var refused, finished int
	for seed := uint64(1); seed <= 6; seed++ {
		c := proptest.MakeLarger(seed)
		sem := engine.Semantics{}
		want, ok := oracle.CountWithin(c.G, c.P, sem, 5_000_000)
		if !ok {
			continue
		}
		opts := sgsi.Options{Host: true, HostBytes: 16 << 10, Buffered: true}
		for limit := uint64(1 << 10); limit <= 96<<10; limit += 4 << 10 {
			p := &engine.Problem{Data: c.G, Pattern: c.P, Semantics: sem, MemoryLimit: limit, GPUs: []int{0, 1}}
			res, st, err := sgsi.Engine{Options: opts}.CountStats(ctx, p)
			if err != nil {
				if !errors.Is(err, engine.ErrMemory) || !strings.Contains(err.Error(), "--memory") {
					t.Errorf("seed %d --memory %d: %v, want an ErrMemory naming --memory", seed, limit, err)
				}
				refused++
				continue
			}
			finished++
			if res.Count != want {
				t.Errorf("seed %d --memory %d: %d, oracle %d", seed, limit, res.Count, want)
			}
			if st.PeakHost > limit || len(st.Devices) != 2 {
				t.Errorf("seed %d --memory %d: spilled tables peaked at %d bytes, %d runners", seed, limit, st.PeakHost, len(st.Devices))
			}
		}
	}
	t.Logf("%d runs refused, %d finished", refused, finished)
	if refused == 0 || finished == 0 {
		t.Errorf("no limit refused (%d) or finished (%d): the test checks nothing", refused, finished)
	}
}
