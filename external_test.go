package submatch_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// goRun builds and runs the module in dir (which requires github.com/submatch/submatch, replaced
// by this checkout) with the go command, as a user's module would be built, and returns its
// output.
func goRun(t *testing.T, dir string) string {
	t.Helper()
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	cmd := exec.Command(goCmd, "run", ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("go run in %s: %v\n%s", dir, err, out.String())
	}
	return out.String()
}

// TestExternalModule builds examples/quickstart, a module of its own that imports the public
// API, and checks what it prints: a count, a listing and a cancelled count.
func TestExternalModule(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module")
	}
	// A copy, so that the go command may update go.mod and go.sum without touching the checkout.
	dir := t.TempDir()
	root, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"main.go", "go.mod", "go.sum"} {
		b, err := os.ReadFile(filepath.Join("examples", "quickstart", name))
		if err != nil {
			t.Fatal(err)
		}
		if name == "go.mod" {
			b = []byte(strings.Replace(string(b), "=> ../..", "=> "+root, 1))
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got := goRun(t, dir)
	want := "triangles: 1\nedges listed: 4\ncancelled: true true\n"
	if got != want {
		t.Errorf("quickstart printed %q, want %q", got, want)
	}
}

// TestREADMEGoCode compiles and runs the Go program of the README's "Use it from Go" section
// as a module of its own, so that the README's code cannot drift from the API.
func TestREADMEGoCode(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module")
	}
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "\n## Use it from Go\n")
	if !ok {
		t.Fatal(`README.md has no "## Use it from Go" section`)
	}
	m := regexp.MustCompile("(?s)```go\n(.*?)```").FindStringSubmatch(section)
	if m == nil {
		t.Fatal("the section has no go code block")
	}
	dir := t.TempDir()
	root, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	gomod := "module example.com/readme\n\ngo 1.26\n\nrequire github.com/submatch/submatch v0.0.0\n\nreplace github.com/submatch/submatch => " + root + "\n"
	sum, err := os.ReadFile(filepath.Join("examples", "quickstart", "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{"go.mod": gomod, "go.sum": string(sum), "main.go": m[1]} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if got := goRun(t, dir); got != "1 triangle(s)\n" {
		t.Errorf("the README's program printed %q", got)
	}
}
