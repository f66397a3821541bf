package mmapfile_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/submatch/submatch/internal/mmapfile"
)

func TestMap(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	want := bytes.Repeat([]byte("0123456789"), 1000)
	if err := os.WriteFile(path, want, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, populate := range []bool{false, true} {
		data, unmap, err := mmapfile.Map(f, 4000, populate)
		if errors.Is(err, mmapfile.ErrUnsupported) {
			t.Skip(err)
		}
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(data, want[:4000]) {
			t.Errorf("populate %v: mapped bytes differ from the file's", populate)
		}
		unmap()
	}
}
