package gpu

import (
	"errors"
	"sync"
)

// errFlightPanicked is what the waiters of a call get when the call panicked.
var errFlightPanicked = errors.New("gpu: the call waited for panicked")

// flights runs one call of a function per key at a time: a caller of do while another call of
// the same key is under way waits for it and gets its result, instead of repeating the work (a
// cold NVRTC compile of the same kernel: seconds of CPU). A finished key is forgotten: the
// next do runs the function again (the caller's own cache answers it by then).
type flights[T any] struct {
	mu sync.Mutex
	m  map[string]*flight[T]
}

// flight is one call under way: done is closed once v and err are set; waiters is how many
// callers wait for it.
type flight[T any] struct {
	done    chan struct{}
	v       T
	err     error
	waiters int
}

// do returns fn's result, running fn unless a call of key is under way, whose result it then
// waits for; joined reports the latter.
func (f *flights[T]) do(key string, fn func() (T, error)) (v T, joined bool, err error) {
	f.mu.Lock()
	if c := f.m[key]; c != nil {
		c.waiters++
		f.mu.Unlock()
		<-c.done
		return c.v, true, c.err
	}
	if f.m == nil {
		f.m = map[string]*flight[T]{}
	}
	c := &flight[T]{done: make(chan struct{})}
	f.m[key] = c
	f.mu.Unlock()
	defer func() { // also when fn panics: the waiters must not hang
		f.mu.Lock()
		delete(f.m, key)
		f.mu.Unlock()
		close(c.done)
	}()
	c.err = errFlightPanicked
	c.v, c.err = fn()
	return c.v, false, c.err
}
