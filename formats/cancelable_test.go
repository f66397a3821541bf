package formats

import (
	"bytes"
	"context"
	"io"
	"testing"
	"testing/iotest"
)

// TestCancelableReaderKeepsBytes: without a cancellation, the reader standard input is read
// through passes every byte in order, whatever the sizes of the reads asked and answered.
func TestCancelableReaderKeepsBytes(t *testing.T) {
	data := make([]byte, 100000)
	for i := range data {
		data[i] = byte(i * 7)
	}
	for _, src := range []io.Reader{bytes.NewReader(data), iotest.OneByteReader(bytes.NewReader(data)), iotest.HalfReader(bytes.NewReader(data)), iotest.DataErrReader(bytes.NewReader(data))} {
		r := newCancelableReader(context.Background(), src)
		got, err := io.ReadAll(iotest.HalfReader(r))
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("%T: %d bytes, %v", src, len(got), err)
		}
	}
}
