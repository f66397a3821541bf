package updates

import (
	"compress/gzip"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestLastLineWithoutNewline: a stream file, plain or gzipped, whose last line has no newline
// yields that line as an update (only a read error cuts a last line off).
func TestLastLineWithoutNewline(t *testing.T) {
	text := "e 1 2 3\n-e 1 2\ne 4 5 6"
	dir := t.TempDir()
	plain := filepath.Join(dir, "s.txt")
	if err := os.WriteFile(plain, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	gz := filepath.Join(dir, "s.txt.gz")
	f, err := os.Create(gz)
	if err != nil {
		t.Fatal(err)
	}
	zw := gzip.NewWriter(f)
	zw.Write([]byte(text))
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	want := []string{"e 1 2 3", "-e 1 2", "e 4 5 6"}
	for _, path := range []string{plain, gz} {
		var got []string
		for u, err := range ReadFile(path, Options{}) {
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			got = append(got, u.String())
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: ReadFile got %q, want %q", path, got, want)
		}
		rd, err := OpenReader(path, Options{})
		if err != nil {
			t.Fatal(err)
		}
		got = got[:0]
		for u, ok := rd.Next(); ok; u, ok = rd.Next() {
			got = append(got, u.String())
		}
		rd.Close()
		if rd.Err() != nil || !slices.Equal(got, want) {
			t.Errorf("%s: Reader got %q, %v; want %q", path, got, rd.Err(), want)
		}
	}
}
