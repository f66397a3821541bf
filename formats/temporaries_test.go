package formats

import (
	"os"
	"path/filepath"
	"testing"
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
