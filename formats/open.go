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
	src, name := io.Reader(os.Stdin), stdinName
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
