package gpu

import (
	"context"
	"fmt"
	"time"
)

// CompileContext is Compile that returns as soon as ctx ends, with a *CompileStopped error. A
// cold NVRTC compile takes seconds (the engines' kernels: 0.3-4.4 s on the H200 host, about 12 s
// for stmatch's on the H100 host) and cannot be interrupted: it goes on in the background, and its
// module still reaches the cache and the device if the process lives on. A module loaded or in
// the disk cache returns at once.
func (d *Device) CompileContext(ctx context.Context, src, name string, opts []string) (*Module, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if m, err := d.Cached(src, name, opts); m != nil || err != nil {
		return m, err
	}
	return compileWithin(ctx, name, func() (*Module, error) { return d.Compile(src, name, opts) })
}

// compileWithin runs compile (NVRTC, or a wait for the same source's compile under way: Device's
// compiles) in the background and returns its result, or a *CompileStopped as soon as ctx ends;
// compile then goes on, and its result is dropped.
func compileWithin(ctx context.Context, name string, compile func() (*Module, error)) (*Module, error) {
	type compiled struct {
		m   *Module
		err error
	}
	t0 := time.Now()
	done := make(chan compiled, 1)
	go func() {
		m, err := compile()
		done <- compiled{m, err}
	}()
	select {
	case c := <-done:
		return c.m, c.err
	case <-ctx.Done():
		return nil, &CompileStopped{Name: name, Elapsed: time.Since(t0), Err: ctx.Err()}
	}
}

// CompileStopped is CompileContext's error when its context ended while NVRTC compiled: it wraps
// the context's error (errors.Is(err, context.DeadlineExceeded)) and says which kernel was being
// compiled, so that a partial result can say where its time went.
type CompileStopped struct {
	Name    string        // the kernel's name ("stmatch.cu")
	Elapsed time.Duration // how long NVRTC had run
	Err     error         // the context's error
}

func (e *CompileStopped) Error() string {
	return fmt.Sprintf("%v after %s of compiling %s with NVRTC (not cached on this machine yet; `submatch gpu-info --compile` compiles every kernel ahead)",
		e.Err, e.Elapsed.Round(100*time.Millisecond), e.Name)
}

func (e *CompileStopped) Unwrap() error { return e.Err }
