package formats

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/graph"
)

// mappingOf returns the file that the mapping holding addr maps, as /proc/self/maps names it
// ("" when addr is in no file mapping): " (deleted)" follows a name whose file is no longer
// in its folder.
func mappingOf(t *testing.T, addr uintptr) string {
	t.Helper()
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		t.Skip(err)
	}
	sc := bufio.NewScanner(bytes.NewReader(maps))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		lo, hi, ok := strings.Cut(f[0], "-")
		if !ok || len(f) < 6 {
			continue
		}
		l, _ := strconv.ParseUint(lo, 16, 64)
		h, _ := strconv.ParseUint(hi, 16, 64)
		if uint64(addr) >= l && uint64(addr) < h {
			return strings.Join(f[5:], " ")
		}
	}
	return ""
}

// readAll compares every array of g with want's, on a goroutine whose memory faults are
// panics (debug.SetPanicOnFault): a fault, the SIGBUS of a mapping whose file shrank, is
// reported as an error instead of killing the test binary.
func readAll(g *graph.Graph, want graph.Raw) (err error) {
	done := make(chan error)
	go func() {
		debug.SetPanicOnFault(true)
		defer func() {
			if r := recover(); r != nil {
				done <- fmt.Errorf("fault reading the old mapping: %v", r)
			}
		}()
		r := g.Raw()
		// Every array compared in full (no short cut), its last entries last.
		same := []bool{slices.Equal(r.VertexLabels, want.VertexLabels), slices.Equal(r.Offsets, want.Offsets),
			slices.Equal(r.Neighbors, want.Neighbors), slices.Equal(r.EdgeLabels, want.EdgeLabels),
			slices.Equal(r.RunOffsets, want.RunOffsets), slices.Equal(r.Runs, want.Runs),
			slices.Equal(r.OriginalIDs, want.OriginalIDs)}
		if slices.Contains(same, false) {
			done <- fmt.Errorf("the old mapping's arrays changed (vertex labels, offsets, neighbours, edge labels, run offsets, runs, original ids equal: %v)", same)
			return
		}
		done <- g.Validate()
	}()
	return <-done
}

// TestRewriteKeepsMappedSnapshot: a snapshot that a process has loaded (memory-mapped) keeps its
// contents, every byte readable, while every writer of .smg files writes the same path again
// with a smaller graph: each renames a new file over the old, whose inode the mapping keeps. A
// writer that truncated the file in place would fault reading the old arrays' tail (SIGBUS).
func TestRewriteKeepsMappedSnapshot(t *testing.T) {
	path := filepath.Join(t.TempDir(), "g.smg")
	big := gen.RandomGraphM(1, 3000, 40000, 3, 2)
	small := gen.RandomGraphM(2, 10, 12, 1, 1)
	writeSmall := func(w io.Writer) error { return WriteGraph(w, small, "smg") }
	for _, w := range []struct {
		name  string
		write func() error
	}{
		{"WriteFile", func() error { return WriteFile(path, small, "") }},
		{"WriteFileUnsynced (gen rmat --sync=false)", func() error { return WriteFileUnsynced(path, small, "smg") }},
		{"WriteSnapshot (watch checkpoints)", func() error { return WriteSnapshot(path, small) }},
		{"WriteAtomic (convert; CreateAtomic: list -o)", func() error { return WriteAtomic(path, writeSmall) }},
	} {
		if err := WriteFile(path, big, "smg"); err != nil {
			t.Fatal(err)
		}
		g, err := Load(path, Options{})
		if err != nil {
			t.Fatal(err)
		}
		raw := g.Raw()
		want := graph.Raw{VertexLabels: slices.Clone(raw.VertexLabels), Offsets: slices.Clone(raw.Offsets),
			Neighbors: slices.Clone(raw.Neighbors), EdgeLabels: slices.Clone(raw.EdgeLabels), RunOffsets: slices.Clone(raw.RunOffsets),
			Runs: slices.Clone(raw.Runs), OriginalIDs: slices.Clone(raw.OriginalIDs)}
		addr := uintptr(unsafe.Pointer(unsafe.SliceData(raw.Neighbors)))
		if m := mappingOf(t, addr); m != path {
			t.Skipf("the snapshot's neighbours are not mapped from %s (%q): nothing to check", path, m)
		}
		if err := w.write(); err != nil {
			t.Fatalf("%s: %v", w.name, err)
		}
		if m := mappingOf(t, addr); m != path+" (deleted)" {
			t.Errorf("%s: after the rewrite the old mapping is of %q, want the replaced file", w.name, m)
		}
		if err := readAll(g, want); err != nil {
			t.Errorf("%s: %v", w.name, err)
		}
		if g2, err := Load(path, Options{}); err != nil || g2.NumEdges() != small.NumEdges() {
			t.Errorf("%s: the new file loads as %v, %v; want %d edges", w.name, g2, err, small.NumEdges())
		}
	}
}

// TestCreateAtomicDescriptorLink: a path that names an open descriptor (/dev/stdout,
// /dev/fd/N, /proc/self/fd/N), even of a regular file, is not replaced but refused like a
// device: replacing it would rename a file over the link in /dev (as root) or fail to create
// the temporary file in /proc, and a shell's redirection (> out) would not get the output.
func TestCreateAtomicDescriptorLink(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "redirected"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, path := range []string{fmt.Sprintf("/proc/self/fd/%d", f.Fd()), fmt.Sprintf("/dev/fd/%d", f.Fd())} {
		if _, err := os.Stat(path); err != nil {
			t.Skip(err)
		}
		a, err := CreateAtomic(path, false)
		if err == nil {
			a.Abort()
		}
		if !errors.Is(err, ErrNotRegular) {
			t.Errorf("CreateAtomic(%s), a regular file's descriptor: %v, want ErrNotRegular", path, err)
		}
	}
}
