package formats

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/submatch/submatch/graph"
)

// TestRemoveTemporaries: the temporary files of writes in progress go, the targets stay as they
// were, and a committed or aborted write is no longer tracked (its name, reused by another
// file, is not removed).
func TestRemoveTemporaries(t *testing.T) {
	dir := t.TempDir()
	kept := filepath.Join(dir, "kept.txt")
	if err := os.WriteFile(kept, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	pending, err := CreateAtomic(kept, false)
	if err != nil {
		t.Fatal(err)
	}
	pending.WriteString("new, unfinished")
	done, err := CreateAtomic(filepath.Join(dir, "done.txt"), false)
	if err != nil {
		t.Fatal(err)
	}
	if err := done.Commit(); err != nil {
		t.Fatal(err)
	}
	aborted, err := CreateAtomic(filepath.Join(dir, "aborted.txt"), false)
	if err != nil {
		t.Fatal(err)
	}
	aborted.Abort()
	if err := os.WriteFile(aborted.Name(), []byte("another file of that name"), 0o644); err != nil {
		t.Fatal(err)
	}

	RemoveTemporaries()
	if _, err := os.Stat(pending.Name()); !os.IsNotExist(err) {
		t.Errorf("the pending write's temporary %s is still there (%v)", pending.Name(), err)
	}
	if b, err := os.ReadFile(kept); err != nil || string(b) != "old" {
		t.Errorf("target %q, %v; want it untouched", b, err)
	}
	if _, err := os.Stat(aborted.Name()); err != nil {
		t.Errorf("a file reusing an aborted write's name was removed: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "done.txt")); err != nil {
		t.Errorf("the committed file: %v", err)
	}
	if err := pending.Commit(); err == nil {
		t.Error("committing a write whose temporary was removed succeeded")
	}
}

// TestWriteFileLossyIsInputError: an edge list refused for what it cannot hold is the caller's
// bad input (an *InputError, which the command reports with exit status 2), and nothing is written.
func TestWriteFileLossyIsInputError(t *testing.T) {
	b := graph.NewBuilder(graph.BuilderOptions{})
	if err := b.AddEdge(1, 2, 0); err != nil {
		t.Fatal(err)
	}
	if err := b.SetVertexLabel(1, 3); err != nil {
		t.Fatal(err)
	}
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "g.txt")
	err = WriteFile(path, g, "")
	var ie *InputError
	if !errors.As(err, &ie) || ie.Path != path || !strings.Contains(ie.Msg, "cannot hold the graph's vertex labels") {
		t.Errorf("writing a labelled graph as an edge list: %v (%T), want an *InputError naming %s", err, err, path)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("the refused graph left a file: %v", err)
	}
}
