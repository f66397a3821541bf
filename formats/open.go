package formats

import (
	"bufio"
	"context"
	"io"
	"os"
)

// Open opens an input for a reader of its own (the temporal events and the update streams read
// their lines themselves) with the same rules as the graph loaders: "-" (Stdin) is standard
// input; only regular files are opened (a FIFO or a device is refused at once, never waited on);
// gzip and zstd are decompressed by content, whatever the name; reads end with ctx's error once
// ctx is cancelled. name is how to call the input in messages. Close releases the file and the
// decompressor.
func Open(ctx context.Context, path string) (r io.ReadCloser, name string, err error) {
	src, name := stdin(ctx), stdinName
	closeSrc := func() error { return nil }
	if path != Stdin {
		if _, err := statRegular(path); err != nil {
			return nil, "", err
		}
		f, err := os.Open(path)
		if err != nil {
			return nil, "", openError(path, err)
		}
		src, name, closeSrc = f, path, f.Close
	}
	dr, closeDec, err := decompress(bufio.NewReaderSize(ctxReader{ctx, src}, headSize), name)
	if err != nil {
		closeSrc()
		return nil, "", err
	}
	return &openedInput{Reader: dr, close: func() error { closeDec(); return closeSrc() }}, name, nil
}

type openedInput struct {
	io.Reader
	close func() error
}

func (o *openedInput) Close() error { return o.close() }

// stdin returns standard input for a reader under ctx: os.Stdin itself when it is a regular file
// (redirected from one: a read never waits, and the file may be mapped), else a reader whose Read
// returns ctx's error as soon as ctx is done, even while it waits on a terminal or an idle pipe:
// Ctrl-C stops a command waiting for its input.
func stdin(ctx context.Context) io.Reader {
	if st, err := os.Stdin.Stat(); err == nil && st.Mode().IsRegular() {
		return os.Stdin
	}
	return newCancelableReader(ctx, os.Stdin)
}

// cancelableReader reads r in a goroutine of its own, into a buffer of its own, so that Read can
// return when ctx is done while the read underneath still waits (that read is then abandoned).
type cancelableReader struct {
	ctx     context.Context
	r       io.Reader
	buf     []byte
	res     chan readResult
	pending bool // a read of r into buf is in flight
}

type readResult struct {
	n   int
	err error
}

func newCancelableReader(ctx context.Context, r io.Reader) *cancelableReader {
	return &cancelableReader{ctx: ctx, r: r, res: make(chan readResult, 1)}
}

func (c *cancelableReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	if !c.pending {
		if cap(c.buf) < len(p) {
			c.buf = make([]byte, len(p))
		}
		buf := c.buf[:len(p)]
		c.pending = true
		go func() {
			n, err := c.r.Read(buf)
			c.res <- readResult{n, err}
		}()
	}
	select {
	case <-c.ctx.Done():
		return 0, c.ctx.Err()
	case r := <-c.res:
		c.pending = false
		return copy(p, c.buf[:r.n]), r.err
	}
}
