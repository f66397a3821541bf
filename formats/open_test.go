package formats

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestOpen: plain and gzip files read the same; a FIFO is refused at once; a cancelled context
// ends the reads.
func TestOpen(t *testing.T) {
	dir := t.TempDir()
	text := []byte("1 2 10\n2 3 20\n")
	plain := filepath.Join(dir, "e.txt")
	os.WriteFile(plain, text, 0o644)
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	w.Write(text)
	w.Close()
	zipped := filepath.Join(dir, "e.txt.gz")
	os.WriteFile(zipped, gz.Bytes(), 0o644)
	for _, p := range []string{plain, zipped} {
		r, name, err := Open(context.Background(), p)
		if err != nil || name != p {
			t.Fatalf("Open(%s): %q, %v", p, name, err)
		}
		b, err := io.ReadAll(r)
		r.Close()
		if err != nil || !bytes.Equal(b, text) {
			t.Errorf("%s read %q, %v", p, b, err)
		}
	}
	fifo := filepath.Join(dir, "fifo")
	if err := mkfifo(fifo); err == nil {
		if _, _, err := Open(context.Background(), fifo); err == nil {
			t.Error("a FIFO was opened")
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	r, _, err := Open(ctx, plain)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	cancel()
	if _, err := io.ReadAll(r); err == nil {
		t.Error("a cancelled read went on")
	}
}
