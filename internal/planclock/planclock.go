// Package planclock is the clock of the planners' safety-net time caps (package plan's estimate
// budgets and order-search cap, which stmatch's order search also uses): the wall clock, which
// tests may speed up (Scale) to play a slow or loaded machine and check that the plans chosen
// do not follow the time.
package planclock

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// scaled is a clock that runs factor times as fast as the wall clock from origin on.
type scaled struct {
	origin time.Time
	factor float64
}

var current atomic.Pointer[scaled]

// Now returns the planners' time: time.Now unless Scale changed it.
func Now() time.Time {
	t := time.Now()
	s := current.Load()
	if s == nil {
		return t
	}
	return s.origin.Add(time.Duration(float64(t.Sub(s.origin)) * s.factor))
}

// Scale makes Now run factor times as fast as the wall clock from now on (to the planners'
// caps the machine looks factor times slower), until the returned function restores it. For
// tests; calls must not overlap.
func Scale(factor float64) (restore func()) {
	prev := current.Load()
	current.Store(&scaled{origin: time.Now(), factor: factor})
	return func() { current.Store(prev) }
}

// Loaded plays a loaded machine while fn runs: Now runs factor times as fast (Scale) and a
// goroutine per P spins. For tests.
func Loaded(factor float64, fn func()) {
	restore := Scale(factor)
	defer restore()
	var stop atomic.Bool
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for !stop.Load() {
			}
		})
	}
	defer wg.Wait()
	defer stop.Store(true)
	fn()
}
