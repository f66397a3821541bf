//go:build unix

package formats

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/submatch/submatch/gen"
)

// mkfifo makes a named pipe at path, for the tests that check FIFOs are refused.
func mkfifo(path string) error { return syscall.Mkfifo(path, 0o600) }

// TestWriteFileMode: written files get 0666 less the umask, like files other tools create.
func TestWriteFileMode(t *testing.T) {
	old := syscall.Umask(0o027)
	defer syscall.Umask(old)
	g, _ := gen.RMAT(gen.RMATOptions{Scale: 4, Seed: 1})
	dir := t.TempDir()
	for _, name := range []string{"a.smg", "a.graph"} {
		path := filepath.Join(dir, name)
		if err := WriteFile(path, g, ""); err != nil {
			t.Fatal(err)
		}
		st, _ := os.Stat(path)
		if st.Mode().Perm() != 0o640 {
			t.Errorf("%s: mode %v, want 0640 under umask 027", name, st.Mode().Perm())
		}
	}
	if err := WriteFile("/dev/null", g, "sm"); !errors.Is(err, ErrNotRegular) {
		t.Errorf("writing over /dev/null: %v", err)
	}
}

// TestWriteAtomicHandsTheFile: WriteAtomic's writer gets the temporary *os.File itself, which the
// snapshot writer needs to write at offsets on all cores (writeAtParallel).
func TestWriteAtomicHandsTheFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "g.smg")
	if err := WriteAtomic(path, func(w io.Writer) error {
		if _, ok := w.(*os.File); !ok {
			t.Errorf("WriteAtomic's writer is a %T, not the *os.File", w)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

// TestWriteAtomicKeepsMode: a file replaced keeps its permission bits, as a file rewritten in
// place (os.Create, a shell's >) does: a private 0600 output is not made readable by all.
func TestWriteAtomicKeepsMode(t *testing.T) {
	path := filepath.Join(t.TempDir(), "matches.tsv")
	for _, mode := range []os.FileMode{0o600, 0o640, 0o755} {
		if err := os.WriteFile(path, []byte("old\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(path, mode); err != nil {
			t.Fatal(err)
		}
		if err := WriteAtomic(path, func(w io.Writer) error { _, err := io.WriteString(w, "new\n"); return err }); err != nil {
			t.Fatal(err)
		}
		st, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm() != mode {
			t.Errorf("replacing a %v file: mode %v", mode, st.Mode().Perm())
		}
	}
}

// TestWriteAtomicThroughSymlink: a symbolic link is kept and the file it points to is replaced
// (created, for a dangling link), as a write through the link would; renaming over the link
// would turn it into a file of its own and leave its target stale.
func TestWriteAtomicThroughSymlink(t *testing.T) {
	dir := t.TempDir()
	write := func(w io.Writer) error { _, err := io.WriteString(w, "new\n"); return err }
	for _, c := range []struct{ name, old string }{{"existing target", "old\n"}, {"dangling link", ""}} {
		target, link := filepath.Join(dir, c.name+".tsv"), filepath.Join(dir, c.name+".link")
		if c.old != "" {
			if err := os.WriteFile(target, []byte(c.old), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.Symlink(filepath.Base(target), link); err != nil {
			t.Skip(err)
		}
		if err := WriteAtomic(link, write); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
			t.Errorf("%s: the link is gone (%v)", c.name, err)
		}
		if b, err := os.ReadFile(target); string(b) != "new\n" {
			t.Errorf("%s: the target reads %q (%v)", c.name, b, err)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 4 {
		t.Errorf("left in the folder: %v", entries)
	}
}
