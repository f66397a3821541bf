package formats

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/internal/smg"
)

const triangleSM = "t 3 3\nv 0 1\nv 1 2\nv 2 1\ne 0 1\ne 1 2\ne 0 2\n"

func gzipped(t testing.TB, s string) []byte {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write([]byte(s))
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func zstded(t testing.TB, s string) []byte {
	zw, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer zw.Close()
	return zw.EncodeAll([]byte(s), nil)
}

// TestCompressedFiles: gzip and zstd files are read by content, whatever their name, and the
// compression suffix does not hide the format's extension.
func TestCompressedFiles(t *testing.T) {
	dir := t.TempDir()
	cases := map[string][]byte{
		"tri.graph.gz":  gzipped(t, triangleSM),
		"tri.gz":        gzipped(t, triangleSM),
		"tri.graph":     gzipped(t, triangleSM), // compressed, but not named so
		"tri.graph.zst": zstded(t, triangleSM),
		"tri.csv.gz":    gzipped(t, "a,b\nb,c\nc,a\n"), // the .csv extension under .gz
	}
	for name, data := range cases {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		g, err := Load(path, Options{})
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if g.NumVertices() != 3 || g.NumEdges() != 3 {
			t.Errorf("%s: %d vertices, %d edges, want 3 and 3", name, g.NumVertices(), g.NumEdges())
		}
	}
	// A truncated gzip file is bad input naming the file.
	path := filepath.Join(dir, "cut.gz")
	data := gzipped(t, strings.Repeat("1 2\n", 1000))
	os.WriteFile(path, data[:len(data)/2], 0o644)
	var ie *InputError
	if _, err := Load(path, Options{}); !errors.As(err, &ie) || !strings.Contains(err.Error(), "gzip") {
		t.Errorf("truncated gzip: %v, want an InputError about gzip", err)
	}
}

// TestReadStream: Read takes any reader, a named or detected format, and a compressed stream; a
// snapshot read from a stream decodes too.
func TestReadStream(t *testing.T) {
	ctx := context.Background()
	for _, in := range [][]byte{[]byte(triangleSM), gzipped(t, triangleSM)} {
		g, err := Read(ctx, bytes.NewReader(in), "", Options{})
		if err != nil || g.NumEdges() != 3 {
			t.Fatalf("Read: %v", err)
		}
	}
	if _, err := Read(ctx, strings.NewReader(triangleSM), "edgelist", Options{Name: "x"}); err == nil ||
		!strings.HasPrefix(err.Error(), "x:1: ") {
		t.Errorf("sm read as an edge list: %v, want an error naming x:1", err)
	}
	g, err := gen.RMAT(gen.RMATOptions{Scale: 6, VertexLabels: 3, EdgeLabels: 2, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	var snap bytes.Buffer
	if err := WriteGraph(&snap, g, "smg"); err != nil {
		t.Fatal(err)
	}
	h, err := Read(ctx, bytes.NewReader(gzipped(t, snap.String())), "", Options{})
	if err != nil {
		t.Fatal(err)
	}
	sameGraph(t, g, h)
	// A stream of zeros with a forced format stops at the line bound, not at the memory limit.
	_, err = Read(ctx, io.LimitReader(zeros{}, 2*MaxLineBytes), "edgelist", Options{})
	if err == nil || !strings.Contains(err.Error(), "line longer than") {
		t.Errorf("zeros as an edge list: %v", err)
	}
	_, err = Read(ctx, io.LimitReader(zeros{}, 2*MaxLineBytes), "csv", Options{})
	if err == nil || !strings.Contains(err.Error(), "line longer than") {
		t.Errorf("zeros as csv: %v", err)
	}
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }

// TestLoadCancelled: a cancelled context stops loading with the context's error, which is not an
// InputError (so that the command exits as interrupted, not as bad input).
func TestLoadCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, format := range []string{"edgelist", "sm", "csv", "lad"} {
		_, err := Read(ctx, io.LimitReader(endlessEdges{}, 1<<40), format, Options{})
		var ie *InputError
		if !errors.Is(err, context.Canceled) || errors.As(err, &ie) {
			t.Errorf("%s: %v, want context.Canceled and no InputError", format, err)
		}
	}
}

type endlessEdges struct{}

func (endlessEdges) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = "1 2\n"[i%4]
	}
	return len(p), nil
}

// TestNonRegularRefused: a FIFO is refused at once (never opened, which would block), as data,
// labels file or a GraphMiner member; a missing file says so without a "stat" prefix.
func TestNonRegularRefused(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := mkfifo(fifo); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	if _, err := Load(fifo, Options{Format: "edgelist"}); err == nil || !strings.Contains(err.Error(), "named pipe") {
		t.Errorf("FIFO: %v", err)
	}
	edges := filepath.Join(dir, "e.txt")
	os.WriteFile(edges, []byte("0 1\n"), 0o644)
	if _, err := Load(edges, Options{VertexLabelsFile: fifo}); err == nil || !strings.Contains(err.Error(), "named pipe") {
		t.Errorf("FIFO labels file: %v", err)
	}
	gm := filepath.Join(dir, "gm")
	os.Mkdir(gm, 0o755)
	os.WriteFile(filepath.Join(gm, gmMeta), []byte("1 0 4 8 0 0 0 0 0 0\n"), 0o644)
	os.WriteFile(filepath.Join(gm, "graph.vertex.bin"), make([]byte, 16), 0o644)
	mkfifo(filepath.Join(gm, "graph.edge.bin"))
	if _, err := Load(gm, Options{}); err == nil || !strings.Contains(err.Error(), "named pipe") {
		t.Errorf("FIFO in a GraphMiner folder: %v", err)
	}
	_, err := Load(filepath.Join(dir, "missing"), Options{})
	if err == nil || !errors.Is(err, fs.ErrNotExist) || strings.Contains(err.Error(), "stat") ||
		!strings.HasSuffix(err.Error(), "missing: no such file") {
		t.Errorf("missing file: %v", err)
	}
}

// TestGraphMinerFirstEntry: a vertex file whose first row pointer is wrong is refused from its
// first bytes.
func TestGraphMinerFirstEntry(t *testing.T) {
	gm := t.TempDir()
	os.WriteFile(filepath.Join(gm, gmMeta), []byte("2 2 4 8 0 0 1 0 0 0\n"), 0o644)
	rows := make([]byte, 24)
	rows[0] = 7
	os.WriteFile(filepath.Join(gm, "graph.vertex.bin"), rows, 0o644)
	os.WriteFile(filepath.Join(gm, "graph.edge.bin"), make([]byte, 8), 0o644)
	if _, err := Load(gm, Options{}); err == nil || !strings.Contains(err.Error(), "row pointers run from 7") {
		t.Errorf("bad first row pointer: %v", err)
	}
}

// sameGraph checks that h is g up to vertex numbering: same original ids, labels and edges.
func sameGraph(t *testing.T, g, h *graph.Graph) {
	t.Helper()
	if g.NumVertices() != h.NumVertices() || g.NumEdges() != h.NumEdges() {
		t.Fatalf("%d vertices %d edges, want %d and %d", h.NumVertices(), h.NumEdges(), g.NumVertices(), g.NumEdges())
	}
	byName := map[string]uint32{}
	for v := range uint32(h.NumVertices()) {
		byName[h.VertexName(v)] = v
	}
	for v := range uint32(g.NumVertices()) {
		w, ok := byName[g.VertexName(v)]
		if !ok {
			t.Fatalf("vertex %s missing", g.VertexName(v))
		}
		if g.VertexLabel(v) != h.VertexLabel(w) || g.Degree(v) != h.Degree(w) {
			t.Fatalf("vertex %s: label %d degree %d, want %d and %d", g.VertexName(v), h.VertexLabel(w), h.Degree(w), g.VertexLabel(v), g.Degree(v))
		}
		labels := g.NeighborEdgeLabels(v)
		for i, x := range g.Neighbors(v) {
			var el uint32
			if labels != nil {
				el = labels[i]
			}
			if !h.HasEdgeLabelled(w, byName[g.VertexName(x)], el) {
				t.Fatalf("edge %s-%s (label %d) missing", g.VertexName(v), g.VertexName(x), el)
			}
		}
	}
}

// TestWritersRoundTrip: every writer's output loads back as the same graph (ids or names kept).
func TestWritersRoundTrip(t *testing.T) {
	g, err := gen.RMAT(gen.RMATOptions{Scale: 7, VertexLabels: 4, EdgeLabels: 3, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	rm, err := gen.RMAT(gen.RMATOptions{Scale: 7, Seed: 6})
	if err != nil {
		t.Fatal(err)
	}
	// Its edges alone (an edge list has no isolated vertices), with sparse ids.
	b := graph.NewBuilder(graph.BuilderOptions{})
	for v := range uint32(rm.NumVertices()) {
		for _, w := range rm.Neighbors(v) {
			b.AddEdge(int64(v)*1000-7, int64(w)*1000-7, 0)
		}
	}
	plain, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	named, err := Read(context.Background(), strings.NewReader("alice,bob,2\nbob,carol\ncarol,alice\ndave,,3\n"), "csv", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !named.HasVertexNames() {
		t.Fatal("CSV names lost")
	}
	dir := t.TempDir()
	for _, tc := range []struct {
		g       *graph.Graph
		formats []string
	}{{g, []string{"sm", "csv", "smg", "graphml"}}, {plain, []string{"csv", "edgelist", "smg", "graphml"}}, {named, []string{"csv", "smg"}}} {
		for _, format := range tc.formats {
			var buf bytes.Buffer
			if err := WriteGraph(&buf, tc.g, format); err != nil {
				t.Fatalf("%s: %v", format, err)
			}
			if format == "graphml" {
				continue // no GraphML reader: checked below
			}
			h, err := Read(context.Background(), &buf, format, Options{})
			if err != nil {
				t.Fatalf("%s: %v", format, err)
			}
			if tc.g.HasVertexNames() && !h.HasVertexNames() {
				t.Fatalf("%s: names lost", format)
			}
			sameGraph(t, tc.g, h)
		}
	}
	// Edge lists refuse what they cannot hold.
	if err := WriteGraph(io.Discard, g, "edgelist"); err == nil || !strings.Contains(err.Error(), "vertex labels") {
		t.Errorf("labelled graph as an edge list: %v", err)
	}
	// GraphML is well-formed enough to hold every vertex and edge.
	var buf bytes.Buffer
	if err := WriteGraph(&buf, named, "graphml"); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{`<node id="alice"/>`, `<node id="dave"><data key="vl">3</data></node>`, `<edge source="alice" target="bob"><data key="el">2</data></edge>`} {
		if !strings.Contains(out, want) {
			t.Errorf("graphml lacks %s:\n%s", want, out)
		}
	}
	// WriteFile picks the format from the name and refuses a name it cannot read.
	path := filepath.Join(dir, "out.graph")
	if err := WriteFile(path, g, ""); err != nil {
		t.Fatal(err)
	}
	if f, _ := Detect(path); f != "sm" {
		t.Errorf("out.graph written as %q, want sm", f)
	}
	if err := WriteFile(filepath.Join(dir, "out.xyz"), g, ""); err == nil {
		t.Error("unknown extension accepted")
	}
}

// TestSnapshotBrokenRules: a snapshot whose checksums match but whose graph breaks the rules
// (a self-loop, an unsorted run, an asymmetric edge) is refused.
func TestSnapshotBrokenRules(t *testing.T) {
	g, err := gen.RMAT(gen.RMATOptions{Scale: 6, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	var v uint32
	for g.Degree(v) < 3 {
		v++
	}
	lo := g.Raw().Offsets[v]
	for name, breakIt := range map[string]func(r *graph.Raw){
		"self-loop": func(r *graph.Raw) { r.Neighbors[lo] = v },
		"unsorted":  func(r *graph.Raw) { r.Neighbors[lo], r.Neighbors[lo+1] = r.Neighbors[lo+1], r.Neighbors[lo] },
		"asymmetric": func(r *graph.Raw) {
			// Some u lists x+1 instead of x (x+1 not a neighbour, still in order): x+1 does not
			// list u, and x lists u, which does not list x.
			for u := range uint32(g.NumVertices()) {
				nb := g.Neighbors(u)
				for i := 0; i+1 < len(nb); i++ {
					if x := nb[i]; nb[i+1] > x+1 && x+1 != u {
						r.Neighbors[r.Offsets[u]+uint64(i)] = x + 1
						return
					}
				}
			}
			t.Fatal("no vertex to break")
		},
	} {
		raw := g.Raw()
		raw.Neighbors = slices.Clone(raw.Neighbors)
		breakIt(&raw)
		bad, err := graph.FromRawTrusted(raw) // bounds only
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := WriteGraph(&buf, bad, "smg"); err != nil {
			t.Fatal(err)
		}
		_, err = Read(context.Background(), &buf, "", Options{Name: "s.smg"})
		var ie *InputError
		if !errors.As(err, &ie) || !strings.Contains(err.Error(), "corrupt snapshot") {
			t.Errorf("%s: %v, want a corrupt snapshot error", name, err)
		}
	}
}

// TestSNAPEdgeLists: what networkx's read_edgelist (comments="#") accepts loads: a header line of
// words, '#' comments after data, lines with fewer than two fields (skipped), \r\r\n line ends;
// every skipped line is reported.
func TestSNAPEdgeLists(t *testing.T) {
	dir := t.TempDir()
	for name, tc := range map[string]struct {
		text string
		warn string
	}{
		"header.txt":  {"FromNodeId\tToNodeId\n0\t1\n1\t2\n2\t0\n", `header.txt:1: skipped the header line "FromNodeId\tToNodeId"`},
		"crcr.txt":    {"0 1\r\r\n1 2\r\r\n2 0\r\r\n", ""},
		"comment.txt": {"# c\n0 1 # trailing\n1 2\n5\n2 0\n\n", "comment.txt: skipped 1 line(s) with fewer than two fields (line 4)"},
		"src.txt":     {"source target\n0 1\n1 2\n2 0\n", `src.txt:1: skipped the header line "source target"`},
	} {
		path := filepath.Join(dir, name)
		os.WriteFile(path, []byte(tc.text), 0o644)
		var warnings []string
		g, err := Load(path, Options{Warn: func(m string) { warnings = append(warnings, m) }})
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if g.NumVertices() != 3 || g.NumEdges() != 3 {
			t.Errorf("%s: %d vertices, %d edges", name, g.NumVertices(), g.NumEdges())
		}
		if tc.warn != "" && (len(warnings) != 1 || !strings.HasSuffix(warnings[0], tc.warn)) {
			t.Errorf("%s: warnings %q, want %q", name, warnings, tc.warn)
		}
	}
}

// TestDropSelfLoopsKeepsVertices: --drop-self-loops drops the loop, never its vertex (SNAP's
// email-Eu-core: 1,005 vertices, some with only a self-loop), in every text format.
func TestDropSelfLoopsKeepsVertices(t *testing.T) {
	for format, text := range map[string]string{
		"edgelist": "0 0\n1 2\n",
		"csv":      "a,a\nb,c\n",
		"sm":       "t 3 2\nv 0 0\nv 1 0\nv 2 0\ne 0 0\ne 1 2\n",
		"lad":      "3\n1 0\n1 2\n1 1\n",
	} {
		g, err := Read(context.Background(), strings.NewReader(text), format, Options{DropSelfLoops: true})
		if err != nil {
			t.Errorf("%s: %v", format, err)
			continue
		}
		if g.NumVertices() != 3 || g.NumEdges() != 1 {
			t.Errorf("%s: %d vertices, %d edges; want 3 and 1", format, g.NumVertices(), g.NumEdges())
		}
	}
}

// TestGraphMinerCancelled: a GraphMiner load stops with the context's error.
func TestGraphMinerCancelled(t *testing.T) {
	dir := filepath.Join(testdata(t), "citeseer-graphminer")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := LoadContext(ctx, dir, Options{})
	var ie *InputError
	if !errors.Is(err, context.Canceled) || errors.As(err, &ie) {
		t.Fatalf("cancelled GraphMiner load: %v", err)
	}
}

// TestSnapshotKeepsNames: a snapshot of a graph with string names (CSV) keeps them, memory-mapped
// or streamed.
func TestSnapshotKeepsNames(t *testing.T) {
	g, err := Read(context.Background(), strings.NewReader("alice,bob,1\nbob,carol\nzoe,,4\n"), "csv", Options{})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "n.smg")
	if err := WriteFile(path, g, ""); err != nil {
		t.Fatal(err)
	}
	h, err := Load(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !h.HasVertexNames() {
		t.Fatal("names lost")
	}
	sameGraph(t, g, h)
}

// TestWriteAtomicFailure: when writing fails (a full disk), neither the target nor a temporary
// file is left behind, and an existing target keeps its content.
func TestWriteAtomicFailure(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "g.graph")
	os.WriteFile(path, []byte("old"), 0o644)
	err := WriteAtomic(path, func(w io.Writer) error {
		w.Write([]byte("partial"))
		return syscall.ENOSPC
	})
	if !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("error %v, want ENOSPC", err)
	}
	entries, _ := os.ReadDir(dir)
	if b, _ := os.ReadFile(path); len(entries) != 1 || string(b) != "old" {
		t.Fatalf("after a failed write: %d files, target %q", len(entries), b)
	}
}

// TestSnapshotChecksumFirst: a snapshot whose bytes were changed after it was written, so that
// its graph also breaks the rules (a self-loop) or its bounds (a neighbour out of range), is
// refused for its checksum, which is verified beside the graph's checks, from a file (mapped)
// and from a stream.
func TestSnapshotChecksumFirst(t *testing.T) {
	g, err := gen.RMAT(gen.RMATOptions{Scale: 6, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteGraph(&buf, g, "smg"); err != nil {
		t.Fatal(err)
	}
	le := binary.LittleEndian
	starts, _ := smg.Starts(buf.Bytes())
	at := starts[smg.Neighbors]
	for name, w := range map[string]uint32{"self-loop": 0, "out of range": 1 << 30} {
		data := slices.Clone(buf.Bytes())
		le.PutUint32(data[at:], w) // vertex 0's first neighbour
		path := filepath.Join(t.TempDir(), "s.smg")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Load(path, Options{}); err == nil || !strings.Contains(err.Error(), "checksum mismatch") {
			t.Errorf("%s, file: %v, want a checksum mismatch", name, err)
		}
		if _, err := Read(context.Background(), bytes.NewReader(data), "", Options{Name: "s.smg"}); err == nil || !strings.Contains(err.Error(), "checksum mismatch") {
			t.Errorf("%s, stream: %v, want a checksum mismatch", name, err)
		}
	}
}
