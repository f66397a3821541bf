package gpu

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

// waiting is how many callers wait for key's call under way (0: none under way).
func (f *flights[T]) waiting(key string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	if c := f.m[key]; c != nil {
		return c.waiters
	}
	return 0
}

// running reports whether a call of key is under way.
func (f *flights[T]) running(key string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.m[key] != nil
}

// TestFlightsJoin: callers of a key whose call is under way wait for it and get its result
// (fn runs once for them all); another key runs at the same time; a key whose call has ended
// runs again; an error reaches every waiter.
func TestFlightsJoin(t *testing.T) {
	var f flights[int]
	release := make(chan struct{})
	var runs sync.Map // key -> number of runs
	count := func(key string) int {
		n, _ := runs.Load(key)
		v, _ := n.(int)
		return v
	}
	fn := func(key string, v int, err error) func() (int, error) {
		return func() (int, error) {
			n, _ := runs.LoadOrStore(key, 0)
			runs.Store(key, n.(int)+1)
			<-release
			return v, err
		}
	}
	const joiners = 5
	type got struct {
		v      int
		joined bool
		err    error
	}
	res := make(chan got, joiners+1)
	go func() {
		v, j, err := f.do("a", fn("a", 7, nil))
		res <- got{v, j, err}
	}()
	for f.waiting("a") == 0 && count("a") == 0 { // the first call has started
		time.Sleep(time.Millisecond)
	}
	for range joiners {
		go func() {
			v, j, err := f.do("a", fn("a", 8, nil))
			res <- got{v, j, err}
		}()
	}
	for f.waiting("a") < joiners {
		time.Sleep(time.Millisecond)
	}
	// Another key is not held up by "a".
	other := make(chan struct{})
	go func() {
		defer close(other)
		if v, j, err := f.do("b", func() (int, error) { return 3, nil }); v != 3 || j || err != nil {
			t.Errorf("key b: %d, joined %v, %v", v, j, err)
		}
	}()
	<-other
	close(release)
	first := 0
	for range joiners + 1 {
		g := <-res
		if g.v != 7 || g.err != nil {
			t.Errorf("a caller got %d, %v; want the first call's 7", g.v, g.err)
		}
		if !g.joined {
			first++
		}
	}
	if first != 1 || count("a") != 1 {
		t.Fatalf("%d callers ran fn, %d runs; want 1 and 1", first, count("a"))
	}
	// Ended: the next call runs fn again, and its error reaches its waiter.
	boom := errors.New("boom")
	release = make(chan struct{})
	done := make(chan error, 1)
	go func() {
		_, _, err := f.do("a", fn("a", 0, boom))
		done <- err
	}()
	for count("a") < 2 {
		time.Sleep(time.Millisecond)
	}
	go func() {
		_, _, err := f.do("a", fn("a", 0, nil))
		done <- err
	}()
	for f.waiting("a") < 1 {
		time.Sleep(time.Millisecond)
	}
	close(release)
	for range 2 {
		if err := <-done; !errors.Is(err, boom) {
			t.Errorf("got %v, want boom", err)
		}
	}
	if count("a") != 2 {
		t.Fatalf("%d runs of a, want 2", count("a"))
	}
}

// TestFlightsPanic: a call that panics releases its waiters with an error and forgets its key.
func TestFlightsPanic(t *testing.T) {
	var f flights[*Module]
	release := make(chan struct{})
	started := make(chan struct{})
	panicked := make(chan any, 1)
	go func() {
		defer func() { panicked <- recover() }()
		f.do("k", func() (*Module, error) {
			close(started)
			<-release
			panic("compiler crashed")
		})
	}()
	<-started
	done := make(chan error, 1)
	go func() {
		m, _, err := f.do("k", func() (*Module, error) { return nil, errors.New("ran") })
		if m != nil {
			t.Error("a module from a panicked call")
		}
		done <- err
	}()
	for f.waiting("k") < 1 {
		time.Sleep(time.Millisecond)
	}
	close(release)
	if r := <-panicked; r == nil {
		t.Fatal("the panic did not reach the caller that ran the call")
	}
	if err := <-done; !errors.Is(err, errFlightPanicked) {
		t.Fatalf("the waiter got %v, want errFlightPanicked", err)
	}
	if _, j, err := f.do("k", func() (*Module, error) { return nil, nil }); j || err != nil {
		t.Fatalf("after the panic: joined %v, %v; want a fresh call", j, err)
	}
}

// TestFlightsWaiterCancelled: a CompileContext caller that joins a compile under way
// (compileWithin over flights.do) returns at once with a *CompileStopped wrapping its context's
// error when that context ends, not when the compile does; the compile's own caller still gets
// the module, and the abandoned wait ends with it.
func TestFlightsWaiterCancelled(t *testing.T) {
	var f flights[*Module]
	release := make(chan struct{})
	mod := &Module{Name: "k.cu"}
	fn := func() (*Module, error) {
		<-release
		return mod, nil
	}
	first := make(chan *Module, 1)
	go func() {
		m, _, _ := f.do("k", fn)
		first <- m
	}()
	for !f.running("k") {
		time.Sleep(time.Millisecond)
	}
	ctx, cancel := context.WithCancel(context.Background())
	waited := make(chan struct{})
	res := make(chan error, 1)
	go func() {
		m, err := compileWithin(ctx, "k.cu", func() (*Module, error) {
			m, _, err := f.do("k", func() (*Module, error) { return nil, errors.New("ran a second compile") })
			close(waited)
			return m, err
		})
		if m != nil {
			t.Error("a module from a cancelled wait")
		}
		res <- err
	}()
	for f.waiting("k") < 1 {
		time.Sleep(time.Millisecond)
	}
	cancel()
	err := <-res // (before release: a waiter that waited for the compile would hang the test)
	var cs *CompileStopped
	if !errors.As(err, &cs) || !errors.Is(err, context.Canceled) || cs.Name != "k.cu" {
		t.Fatalf("the cancelled waiter got %v, want a *CompileStopped wrapping context.Canceled", err)
	}
	close(release)
	if m := <-first; m != mod {
		t.Fatalf("the compile's caller got %v", m)
	}
	<-waited
}
