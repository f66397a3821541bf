package updates

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/submatch/submatch/formats"
	"github.com/submatch/submatch/graph/dynamic"
	"github.com/submatch/submatch/internal/testenv"
)

// sameGraph compares two dynamic graphs by original ids, labels and labelled edges.
func sameGraph(t *testing.T, a, b *dynamic.Graph) {
	t.Helper()
	if err := a.Validate(); err != nil {
		t.Fatal(err)
	}
	if a.NumVertices() != b.NumVertices() || a.NumEdges() != b.NumEdges() {
		t.Fatalf("%d vertices %d edges, want %d %d", a.NumVertices(), a.NumEdges(), b.NumVertices(), b.NumEdges())
	}
	for _, v := range b.Vertices() {
		id := b.OriginalID(v)
		w, ok := a.Lookup(id)
		if !ok || a.Label(w) != b.Label(v) || a.Degree(w) != b.Degree(v) {
			t.Fatalf("vertex %d differs", id)
		}
		var na, nb []int64
		for _, r := range a.Runs(w) {
			for _, x := range r.Neighbors {
				na = append(na, a.OriginalID(x))
			}
		}
		for _, r := range b.Runs(v) {
			for _, x := range r.Neighbors {
				nb = append(nb, b.OriginalID(x))
			}
		}
		slices.Sort(na)
		slices.Sort(nb)
		if !slices.Equal(na, nb) {
			t.Fatalf("neighbours of %d differ", id)
		}
	}
}

func slowLoad(t *testing.T, path string) (*dynamic.Graph, error) {
	g, err := formats.Load(path, formats.Options{Format: "csm"})
	if err != nil {
		return nil, err
	}
	return dynamic.FromGraph(g), nil
}

// loadsAsCareful checks that LoadDynamic loads path, and as the careful loader does.
func loadsAsCareful(t *testing.T, path string) {
	t.Helper()
	got, err := LoadDynamic(path, formats.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want, err := slowLoad(t, path)
	if err != nil {
		t.Fatal(err)
	}
	sameGraph(t, got, want)
}

func TestLoadDynamic(t *testing.T) {
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(1, 2))
	for trial := range 20 {
		var b strings.Builder
		n := 5 + r.IntN(50)
		for v := range n {
			if r.IntN(4) > 0 {
				fmt.Fprintf(&b, "v %d %d\n", v*3, r.IntN(3))
			}
		}
		b.WriteString("# edges\n\n")
		for range r.IntN(200) {
			u, v := r.IntN(n)*3, r.IntN(n)*3
			if u != v {
				fmt.Fprintf(&b, "e %d %d 0\r\n", u, v) // duplicates and CRLF included
			}
		}
		path := filepath.Join(dir, fmt.Sprintf("g%d.graph", trial))
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, _, ok := fastLoad([]byte(b.String()), true, nil); !ok {
			t.Fatalf("trial %d: not taken on the fast path", trial)
		}
		loadsAsCareful(t, path)
	}
	// Files the fast path leaves to the careful loader, which names the line.
	for _, c := range []struct{ text, err string }{
		{"v 1 0\ne 1 2 3\n", ""},
		{"v 1 0\nv 1 2\n", ":2: vertex 1 given two labels"},
		{"v 1 0\ne 1 1\n", ":2: self-loop"},
		{"v 1 0\n-e 1 2\n", ":2: expected `v id label` or `e u v [label]` in a graph file"},
	} {
		path := filepath.Join(dir, "x.graph")
		if err := os.WriteFile(path, []byte(c.text), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, _, ok := fastLoad([]byte(c.text), true, nil); ok {
			t.Fatalf("%q taken on the fast path", c.text)
		}
		g, err := LoadDynamic(path, formats.Options{})
		if c.err == "" {
			if err != nil || g.NumEdges() != 1 {
				t.Fatalf("%q: %v", c.text, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), c.err) {
			t.Fatalf("%q: error %v, want %q", c.text, err, c.err)
		}
	}
}

func TestLoadDynamicShared(t *testing.T) {
	path := filepath.Join(testenv.Dir(), "csm-email10", "initial.graph")
	if _, err := os.Stat(path); err != nil {
		t.Skip("no shared test data:", err)
	}
	loadsAsCareful(t, path)
}

// TestFastLoadShapes: the byte-level parser takes exactly the lines the careful loader reads as
// `v id label` and `e u v [0]`, and the graph it builds is the careful loader's.
func TestFastLoadShapes(t *testing.T) {
	dir := t.TempDir()
	for i, text := range []string{
		"v 1 2 3\n", "e 1 2 0 0\n", "vv 1 2\n", "e1 2\n", "e 1 2 00\n", "e 1 2 01\n", "e 1 2 1\n",
		"v 1 2\te 1 2\n", "\tv 1 2\r\n  e 1 3\t0 \r\n# c\n#\n\n", "v 1 -2\n", "v 1 2x\n", "e 1 2\n# x", "v 1 2",
		"v 99999999999999999999 1\n", "v 9223372036854775807 1\ne 9223372036854775807 0\n", "v 1 4294967296\n",
		"v 1 4294967295\ne 1 2\ne 2 1\n", "e 1 2\ne 1 2 0\n", "v 1 2 # no\n", "e 1 2 # no\n", "v\n", "e 1\n", "-e 1 2\n",
		"v 0 1\nv 1 2\ne 0 1\ne 1 0\n", "v 0 1\nv 1 2\ne 0 2\n", "v 0 1\nv 1 1\ne 1 1\n", "v 0 1\nv 2 1\ne 0 2\n",
		"v 1 0\nv 0 0\ne 0 1\n", "v 4294967296 1\n", "e 4294967295 0\n",
	} {
		fast, _, ok := fastLoad([]byte(text), true, nil)
		path := filepath.Join(dir, fmt.Sprintf("s%d.graph", i))
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		want, err := slowLoad(t, path)
		if ok {
			if err != nil {
				t.Fatalf("%q: fast path took what the careful loader refuses: %v", text, err)
			}
			sameGraph(t, fast, want)
		}
		got, cp, err2 := LoadDynamicCopier(path, formats.Options{})
		if (err == nil) != (err2 == nil) {
			t.Fatalf("%q: LoadDynamic error %v, careful loader %v", text, err2, err)
		}
		if err != nil {
			continue
		}
		sameGraph(t, got, want)
		// The copier gives the graph as loaded after the first changed: a vertex deleted, its
		// dense id given to a new vertex with another label.
		if got.NumVertices() > 0 {
			v := got.Vertices()[0]
			for got.Degree(v) > 0 {
				if _, err := got.DeleteEdge(v, got.Runs(v)[0].Neighbors[0]); err != nil {
					t.Fatal(err)
				}
			}
			if err := got.DeleteVertex(v); err != nil {
				t.Fatal(err)
			}
			got.Compact()
			if w, err := got.AddVertex(1<<40, 7); err != nil || w != v {
				t.Fatalf("%q: new vertex %d %v, want dense id %d", text, w, err, v)
			}
		}
		again, err := cp()
		if err != nil {
			t.Fatal(err)
		}
		sameGraph(t, again, want)
	}
}

// FuzzFastLoad: whatever the byte parser takes, the careful loader reads as the same graph.
func FuzzFastLoad(f *testing.F) {
	for _, s := range []string{"v 0 1\nv 1 2\ne 0 1\n", "v 5 1\ne 5 7 0\r\n# c\n", "e 1 2\ne 2 1\n", "v 1 2 3\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		fast, _, ok := fastLoad([]byte(text), true, nil)
		if !ok {
			return
		}
		sg, err := formats.Read(t.Context(), strings.NewReader(text), "csm", formats.Options{Name: "f.graph"})
		if err != nil {
			t.Fatalf("%q: fast path took what the careful loader refuses: %v", text, err)
		}
		sameGraph(t, fast, dynamic.FromGraph(sg))
	})
}

// BenchmarkLoadEmail10: the fast loader on csm-email10's initial graph (36,692 vertices, 183,831
// edges), mapping, parsing and building; run with -cpu 1 for the one-thread cost.
func BenchmarkLoadEmail10(b *testing.B) {
	path := filepath.Join(testenv.Dir(), "csm-email10", "initial.graph")
	if _, err := os.Stat(path); err != nil {
		b.Skip("no shared test data:", err)
	}
	for b.Loop() {
		if _, err := LoadDynamic(path, formats.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestField: the word-at-a-time path of field agrees with reading byte by byte on every number
// of digits, blank and line end, and near the end of the buffer.
func TestField(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	ends := []string{" ", "\t", "\n", "\r\n", "\r", "x", "-", "", "/", ":", "\x80", "\xba"}
	for range 20000 {
		nd := r.IntN(22)
		var num []byte
		for range nd {
			num = append(num, byte('0'+r.IntN(10)))
		}
		pre := []string{" ", "  ", "\t", "", " \t"}[r.IntN(5)]
		tail := ends[r.IntN(len(ends))] + strings.Repeat("9", r.IntN(10))
		b := []byte("e" + pre + string(num) + tail)
		v, j, ok := field(b, 1)
		wv, wj, wok := fieldBytes(b, 1)
		if v != wv || j != wj || ok != wok {
			t.Fatalf("%q: %d %d %v, want %d %d %v", b, v, j, ok, wv, wj, wok)
		}
	}
}

// FuzzCSMGraph: the csm graph loader (the format watch and every command read CSM study graph
// files in) never panics; a refused file is a *formats.InputError naming the file, an accepted one
// a valid graph.
func FuzzCSMGraph(f *testing.F) {
	for _, s := range []string{"v 0 1\nv 1 2\ne 0 1\n", "e 1 2 3\n-e 1 2\n", "v 1 2\nv 1 3\n", "e 1 1\n", "e 1 2 4294967296\n", "{\"op\":\"e\",\"u\":1,\"v\":2}\n"} {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, text string, drop bool) {
		g, err := formats.Read(t.Context(), strings.NewReader(text), "csm", formats.Options{Name: "f.graph", DropSelfLoops: drop})
		if err != nil {
			var ie *formats.InputError
			if !errors.As(err, &ie) || !strings.HasPrefix(err.Error(), "f.graph") {
				t.Fatalf("%q: error is not an InputError naming the file: %v", text, err)
			}
			return
		}
		if err := g.Validate(); err != nil {
			t.Fatalf("%q: loaded an invalid graph: %v", text, err)
		}
	})
}

// A mapped graph file that shrinks while the fast path parses it is an error naming the file,
// not a crash, whether the fault is on a parsing goroutine or on the one that cuts the chunks.
func TestFastLoadFileShrinks(t *testing.T) {
	var b strings.Builder
	for i := range 200_000 { // over 1 MiB: several chunks on several goroutines
		fmt.Fprintf(&b, "v %d 0\n", i)
	}
	for i := range 199_999 {
		fmt.Fprintf(&b, "e %d %d\n", i, i+1)
	}
	for _, keep := range []int64{100, int64(b.Len()) / 2} {
		path := filepath.Join(t.TempDir(), "g.graph")
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		data, unmap, ok := mapPlain(path)
		if !ok {
			t.Skip("files are not mapped on this system")
		}
		if err := os.Truncate(path, keep); err != nil {
			t.Fatal(err)
		}
		_, _, _, err := fastLoadMapped(path, data, false)
		unmap()
		var ie *formats.InputError
		if !errors.As(err, &ie) || ie.Path != path || !strings.Contains(err.Error(), "shrank while it was read") {
			t.Fatalf("kept %d bytes: got %v, want the error for a file that shrank", keep, err)
		}
	}
}
