package dcsm

import (
	"context"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/submatch/submatch/csm"
	"github.com/submatch/submatch/csm/internal/csmtest"
	"github.com/submatch/submatch/formats/updates"
	"github.com/submatch/submatch/graph/dynamic"
	"github.com/submatch/submatch/pattern"
)

// BenchmarkHostEmail10 measures the host's part of the engine on the email10 stream with q4_1:
// ApplyEach with a backend that runs no kernel (validation, the host graph's update, the
// searches, the waves' planning and the reports; dcsm-host, and dcsm-host-p1 with one thread:
// no validation goroutine), the engine with the kernels' emulation (dcsm-emu), beside the CPU
// engine with batches of one (its whole work). stream-ms is the stream alone (loading and
// opening excluded). Figures in docs/benchmarks.md (scripts/dcsm-host-bench.sh).
func BenchmarkHostEmail10(b *testing.B) {
	mk, stream, pats := csmtest.Email10(b, "q4_1")
	benchHost(b, mk, stream, []*pattern.Pattern{pats["q4_1"]})
}

// BenchmarkHostRMAT is BenchmarkHostEmail10 on the R-MAT workload of scripts/dcsm-check.sh
// (its build makes DIR/testdata/rmat14w) with the 4-cycle (a:0)-(b:1)-(c:2)-(d:3)-(a), from the
// directory in $DCSM_RMAT (skipped when unset).
func BenchmarkHostRMAT(b *testing.B) {
	dir := os.Getenv("DCSM_RMAT")
	if dir == "" {
		b.Skip("DCSM_RMAT (the R-MAT workload's directory) is not set")
	}
	mk, stream := csmtest.Workload(b, dir)
	p, err := pattern.Parse("(a:0)-(b:1)-(c:2)-(d:3)-(a)")
	if err != nil {
		b.Fatal(err)
	}
	benchHost(b, mk, stream, []*pattern.Pattern{p})
}

// benchHost runs the host's part of DCSM (dcsm-host) and the CPU engine with batches of one
// (cpu-batch1) over the stream.
func benchHost(b *testing.B, mk func() *dynamic.Graph, stream []updates.Update, ps []*pattern.Pattern) {
	ctx := context.Background()
	opts := csm.Options{SkipInvalid: true, Threads: 1}
	for _, be := range []struct {
		name    string
		mk      func(*table) (backend, error)
		threads int // Options.Threads (1: the host's parts on one goroutine)
	}{
		{"dcsm-host", func(*table) (backend, error) { return nullBackend{}, nil }, 0},
		{"dcsm-host-p1", func(*table) (backend, error) { return nullBackend{}, nil }, 1},
		{"dcsm-emu", func(t *table) (backend, error) { return newEmu(t), nil }, 0},
	} {
		o := opts
		o.Threads = be.threads
		benchStream(b, be.name, func() (*Matcher, error) { return open(mk(), ps, o, be.mk) }, stream)
	}
	b.Run("cpu-batch1", func(b *testing.B) {
		var el time.Duration
		for b.Loop() {
			m, err := csm.Open(mk(), ps, opts)
			if err != nil {
				b.Fatal(err)
			}
			var res csm.Result
			var one [1]updates.Update
			var exp []updates.Update
			runtime.GC() // the opening's garbage is not the stream's
			t0 := time.Now()
			for _, u := range stream {
				if u.Kind == updates.DeleteVertex {
					exp = csm.IncidentDeletions(m.Graph(), u, exp[:0])
					for _, e := range exp {
						one[0] = e
						if err := m.Apply(ctx, one[:], nil, &res); err != nil {
							b.Fatal(err)
						}
					}
				}
				one[0] = u
				if err := m.Apply(ctx, one[:], nil, &res); err != nil {
					b.Fatal(err)
				}
			}
			el += time.Since(t0)
		}
		b.ReportMetric(float64(el.Microseconds())/1e3/float64(b.N), "stream-ms")
	})
}

// benchStream measures ApplyEach over the stream with matchers from open (stream-ms: the
// stream alone; graph-ms: until Graph returns after it, the host graph's update that runs on a
// goroutine of its own after the call included).
func benchStream(b *testing.B, name string, open func() (*Matcher, error), stream []updates.Update) {
	ctx := context.Background()
	b.Run(name, func(b *testing.B) {
		var el, eg time.Duration
		for b.Loop() {
			m, err := open()
			if err != nil {
				b.Fatal(err)
			}
			runtime.GC() // the opening's garbage is not the stream's
			t0 := time.Now()
			if err := m.ApplyEach(ctx, stream, func(updates.Update, *csm.Result) error { return nil }); err != nil {
				b.Fatal(err)
			}
			el += time.Since(t0)
			m.Graph()
			eg += time.Since(t0)
			m.Close()
		}
		b.ReportMetric(float64(el.Microseconds())/1e3/float64(b.N), "stream-ms")
		b.ReportMetric(float64(eg.Microseconds())/1e3/float64(b.N), "graph-ms")
	})
}

// nullBackend runs no kernel (the counts stay zero): the host's part alone.
type nullBackend struct{}

func (nullBackend) load(initial, *store, uint64) error { return nil }
func (nullBackend) ensure(uint64, int) error           { return nil }
func (nullBackend) start(context.Context, *wave) error { return nil }
func (nullBackend) finish(*wave) error                 { return nil }
func (nullBackend) bytes() uint64                      { return 0 }
func (nullBackend) gpuTime() time.Duration             { return 0 }
func (nullBackend) idle(*wave) bool                    { return true }
func (nullBackend) close()                             {}

func (nullBackend) listMatches(context.Context, *wave, int, int, uint64, uint64, []uint32) error {
	return ErrListing
}

func (nullBackend) lists() bool { return false }
