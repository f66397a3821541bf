package formats

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/internal/smg"
)

func TestTestdataCounts(t *testing.T) {
	dir := testdata(t)
	drop := Options{DropSelfLoops: true}
	tests := []struct {
		path   string
		opts   Options
		format string
		n      int
		m      uint64
	}{
		{"hprd-subgraphmatching/HPRD.graph", Options{}, "sm", 9460, 34998},
		{"hprd-subgraphmatching/sample_dataset/test_case_1.graph", Options{}, "sm", 5, 6},
		{"hprd-subgraphmatching/query_graph/query_dense_16_1.graph", Options{}, "sm", 16, 0},
		{"github-gmatch/data.graph", Options{}, "sm", 37700, 289003},
		{"github-gmatch/query_graph/Q_0.graph", Options{}, "sm", 4, 4},
		{"citeseer-graphminer", Options{}, "graphminer", 3312, 4536},
		{"citeseer-graphminer/graph.meta.txt", Options{}, "graphminer", 3312, 4536},
		{"wikivote-graphpi/wiki-vote_input", Options{}, "edgelist", 7115, 100762},
		{"glasgow/k33.lad", Options{}, "lad", 6, 9},
		{"glasgow/k4.lad", Options{}, "lad", 4, 6},
		{"glasgow/path4.lad", Options{}, "lad", 4, 3},
		{"glasgow/star5.lad", Options{}, "lad", 5, 4},
		{"glasgow/triangle.lad", Options{}, "lad", 3, 3},
		{"glasgow/small", drop, "lad", 4, 4},
		{"glasgow/large", drop, "lad", 6, 10},
		{"glasgow/c3.csv", Options{}, "csv", 18, 18},
		{"glasgow/c3c2.csv", drop, "csv", 38, 55},
		{"glasgow/trident.csv", Options{}, "csv", 9, 8},
		{"glasgow/longtrident.csv", Options{}, "csv", 11, 10},
	}
	for _, tc := range tests {
		t.Run(tc.path, func(t *testing.T) {
			p := filepath.Join(dir, tc.path)
			name, err := Detect(p)
			if err != nil || name != tc.format {
				t.Errorf("Detect = %q, %v; want %q", name, err, tc.format)
			}
			g, err := Load(p, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			if g.NumVertices() != tc.n || (tc.m != 0 && g.NumEdges() != tc.m) {
				t.Errorf("got %d vertices, %d edges; want %d, %d", g.NumVertices(), g.NumEdges(), tc.n, tc.m)
			}
			if err := g.Validate(); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestTestdataDetails(t *testing.T) {
	dir := testdata(t)
	g, err := Load(filepath.Join(dir, "wikivote-graphpi", "wiki-vote_input"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := denseID(g, 30); !ok {
		t.Errorf("wiki-vote: no vertex with original id 30")
	}
	if _, ok := denseID(g, 100762); ok {
		t.Errorf("wiki-vote: the header was read as an edge")
	}
	g, err = Load(filepath.Join(dir, "citeseer-graphminer"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !g.HasEdgeLabels() || g.VertexLabel(0) > 5 {
		t.Errorf("citeseer: want its per-edge labels and vertex labels 0..5")
	}
	// Self-loops: refused by default, dropped on request with a warning.
	for _, name := range []string{"small", "large", "c3c2.csv"} {
		_, err := Load(filepath.Join(dir, "glasgow", name), Options{})
		if !errors.Is(err, graph.ErrSelfLoop) || !strings.Contains(err.Error(), name+":") {
			t.Errorf("%s: got %v, want a self-loop error naming the file and line", name, err)
		}
	}
	var warned []string
	if _, err := Load(filepath.Join(dir, "glasgow", "small"), Options{DropSelfLoops: true, Warn: func(s string) { warned = append(warned, s) }}); err != nil {
		t.Fatal(err)
	}
	if len(warned) != 1 || !strings.Contains(warned[0], "dropped 1 self-loop") {
		t.Errorf("warnings %q, want one about a dropped self-loop", warned)
	}
}

func TestGRFRefused(t *testing.T) {
	dir := testdata(t)
	files, _ := filepath.Glob(filepath.Join(dir, "vf3-mivia", "*.grf"))
	if len(files) == 0 {
		t.Skip("no .grf files")
	}
	for _, f := range files {
		_, err := Load(f, Options{})
		var ie *InputError
		if !errors.As(err, &ie) || !strings.Contains(err.Error(), "directed") {
			t.Errorf("%s: got %v, want a directed-format InputError", f, err)
		}
		// Content alone must identify it too.
		data, _ := os.ReadFile(f)
		if got := detectBytes(t, data); got != "grf" {
			t.Errorf("%s without extension detected as %q", f, got)
		}
	}
}

// TestGraphMLSaysNotRead: a GraphML file (which WriteGraph writes) is refused as GraphML, with
// what to load instead, not as an unrecognised format with a list of formats to choose from.
func TestGraphMLSaysNotRead(t *testing.T) {
	g, err := Read(context.Background(), strings.NewReader("0 1\n1 2\n"), "edgelist", Options{})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteGraph(&b, g, "graphml"); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"g.graphml", "g.xml", "g"} {
		p := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Load(p, Options{})
		var ie *InputError
		if !errors.As(err, &ie) || err.Error() != p+": is GraphML, which submatch writes (convert, list --subgraph) but does not read: load the graph it was made from (or its .smg snapshot)" {
			t.Errorf("%s: got %v", name, err)
		}
	}
}

// detectBytes writes data to a file without a telling extension and detects its format.
func detectBytes(t *testing.T, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "input")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	name, err := Detect(p)
	if err != nil {
		return ""
	}
	return name
}

func TestDetectByContent(t *testing.T) {
	tests := []struct{ content, want string }{
		{"t 3 2\nv 0 0\nv 1 0\nv 2 0\ne 0 1\ne 1 2\n", "sm"},
		{"t # 0\n2 1 1 1\nv 0 1\nv 1 1\ne 0 1 1\nt # -1\n", "gsi"},
		{"# comment\n0 1\n1 2\n", "edgelist"},
		{"7115 100762\n30 1412\n", "edgelist"},
		{"1,2\n2,3\n", "edgelist"},
		{"3\n2 1 2\n2 0 2\n2 0 1\n", "lad"},
		{"a,b\nb,c\n", "csv"},
		{"1,,5\n1,2\n", "csv"},
		{"2\n0 1\n1 1\n1\n0 1\n0\n", "grf"},
		{smg.Magic + "rest", "smg"},
		{"hello world\n", ""},
	}
	for _, tc := range tests {
		if got := detectBytes(t, []byte(tc.content)); got != tc.want {
			t.Errorf("%q detected as %q, want %q", tc.content, got, tc.want)
		}
	}
	p := filepath.Join(t.TempDir(), "input")
	os.WriteFile(p, []byte("hello\n"), 0o644)
	if _, err := Load(p, Options{}); err == nil || !strings.Contains(err.Error(), "edgelist") {
		t.Errorf("undetectable file: got %v, want an error listing the formats", err)
	}
}

// loadString loads content through a named format (or detection when format is "").
func loadString(t *testing.T, name, format, content string, opts Options) (*graph.Graph, error) {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	opts.Format = format
	return Load(p, opts)
}

func TestMalformed(t *testing.T) {
	tests := []struct {
		format, content string
		want            string // substring of the error, after the temp dir
	}{
		{"sm", "t 2 1\nv 0 0\nv 1 0\ne 3\n", `data:4: expected "e <u> <v> [label]", got "e 3"`},
		{"sm", "t 2 1\nv 0 0\nv 1 0\ne 0 x\n", `data:4: expected "e <u> <v> [label]"`},
		{"sm", "x 2 1\n", `data:1: expected "t <vertices> <edges>"`},
		{"sm", "t 2 1\nv 0\n", `data:2: expected "v <id> <label> [degree]", got "v 0"`},
		{"sm", "t 2 1\nv 0 0\nv 1 -1\n", `data:3: vertex label -1 out of range`},
		{"sm", "t 2 1\nv 0 0\nv 0 0\n", `data:3: vertex 0 declared twice`},
		{"sm", "t 2 1\nv 0 0\nv 1 0\ne 0 2\n", `data:4: edge 0-2 uses vertex 2`},
		{"sm", "t 3 1\nv 0 0\nv 1 0\ne 0 1\n", `data:1: header declares 3 vertices, found 2`},
		{"sm", "t 2 5\nv 0 0\nv 1 0\ne 0 1\n", `data:1: header declares 5 edges, found 1 edge lines`},
		{"sm", "t 2 1\nv 0 0\nv 1 0\ne 0 1\nt 1 0\n", `data:5: a second graph`},
		{"sm", "t 2 1\nv 0 0\nv 1 0\nq 0 1\n", `data:4: expected`},
		{"sm", "", `data:1: empty file, expected "t <vertices> <edges>"`},
		{"sm", "# c\n\n", `data:2: no data before the end of the file (only blank or comment lines), expected "t <vertices> <edges>"`},
		{"gsi", "", `data:1: empty file, expected "t # 0"`},
		{"gsi", "t # 0\n", `data:1: unexpected end of file, expected "<vertices> <edges>`},
		{"sm", "t 999999999999 5\nv 0 0\n", `header declares 999999999999 vertices, found 1`},
		{"gsi", "t # 0\n2 1 1\n", `data:2: expected "<vertices> <edges> <max vertex label> <max edge label>"`},
		{"gsi", "t # 0\n2 1 1 1\nv 0 1\nv 1 1\ne 0 1 1\nt # 1\n", `data:6: a second graph`},
		{"gsi", "t # 0\n2 1 1 1\nv 0 1\nv 1 1\ne 0 1 1\nt # -1\nv 2 1\n", `data:7: unexpected text after the end`},
		{"gsi", "t 1 2\n", `data:1: expected "t # 0"`},
		{"edgelist", "0 1\n1 x\n", `data:2: expected "<u> <v> [label]", got "1 x"`},
		{"edgelist", "0 1\nsource target\n", `data:2: expected "<u> <v> [label]", got "source target"`}, // a header only first
		{"edgelist", "0 1\n1 2 3 4\n", `data:2: expected "<u> <v> [label]"`},
		{"edgelist", "0 1\n1 2.5\n", `data:2: expected`},
		{"edgelist", "0 1\n1 2 -3\n", `data:2: edge label -3 out of range`},
		{"edgelist", "0 1\n1 99999999999999999999\n", `data:2: expected`},
		{"edgelist", "0 1\n1 2 1\n2 1 2\n", `data:3: edge 1-2 given with two labels: 1 on line 2, 2 on line 3`},
		{"sm", "t 3 3\nv 5 0\nv 6 0\nv 7 0\ne 5 6 1\ne 6 7\ne 7 6 4\n", `data:7: edge 6-7 given with two labels: 0 on line 6, 4 on line 7`},
		{"csv", "x,y,1\ny,z,1\nz,y,3\n", `data:3: edge y-z given with two labels: 1 on line 2, 3 on line 3`},
		{"lad", "x\n", `data:1: expected "<number of vertices>"`},
		{"lad", "2\n1 1\n", `data:2: unexpected end of file after 1 of 2 vertex lines`},
		{"lad", "3\n1 1\n1 0\n\n", `data:4: unexpected end of file after 2 of 3 vertex lines, expected "<degree> <neighbour>..."`},
		{"lad", "", `data:1: empty file, expected the number of vertices`},
		{"lad", "2\n2 1\n1 0\n", `data:2: vertex 0 declares degree 2 but lists 1`},
		{"lad", "2\n1 5\n1 0\n", `data:2: neighbour 5 of vertex 0 is outside 0..1`},
		{"lad", "2\n1 1\n1 0\n1 0\n", `data:4: unexpected text after the 2 vertex lines`},
		{"lad", "99999999999\n", `data:1: expected "<number of vertices>"`},
		{"vertexlabelledlad", "2\n7 1 1\nq 1 0\n", `data:3: expected "<label> <degree> <neighbour>..."`},
		{"csv", "a,b\nab\n", `data:2: expected`},
		{"csv", "a,b\na>b\n", `data:2: directed edge "a>b"`},
		{"csv", "a,b,red\n", `data:1: label "red" is not an integer`},
		{"csv", "a,,1\na,,2\n", `data:2: vertex "a" given two labels`},
		{"csv", ",b\n", `data:1: expected`},
		{"grf", "2\n0 1\n1 1\n", `directed formats are not supported`},
		{"smg", "short", `corrupt or truncated snapshot`},
		{"", " ", `data:1: empty file`}, // detection: no format to name
	}
	for _, tc := range tests {
		_, err := loadString(t, "data", tc.format, tc.content, Options{})
		var ie *InputError
		if err == nil || !errors.As(err, &ie) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %q: got error %v, want an InputError containing %q", tc.format, tc.content, err, tc.want)
		}
	}
}

func TestEdgeListHeader(t *testing.T) {
	tests := []struct {
		content string
		n       int
		m       uint64
	}{
		{"5 2\n0 1\n1 2\n", 5, 2},           // header; ids 0..4 so isolated 3, 4 are added
		{"10 2\n30 40\n40 50\n", 3, 2},      // header; sparse ids, isolated vertices unknown
		{"5 3\n0 1\n1 2\n", 5, 3},           // 2 lines, not 3: an edge 5-3
		{"2 3\n5 6\n6 7\n7 8\n", 6, 4},      // m fits but the lines use 4 > 2 vertices: an edge
		{"0 1\n1 2\n", 3, 2},                // n < 2: an edge
		{"3 1 7\n1 2\n", 3, 2},              // three fields: an edge
		{"# c\n% c\n4,2\n0,1\n2,3\n", 4, 2}, // comments and commas; header
	}
	for _, tc := range tests {
		g, err := loadString(t, "el", "edgelist", tc.content, Options{})
		if err != nil {
			t.Errorf("%q: %v", tc.content, err)
			continue
		}
		if g.NumVertices() != tc.n || g.NumEdges() != tc.m {
			t.Errorf("%q: %d vertices, %d edges; want %d, %d", tc.content, g.NumVertices(), g.NumEdges(), tc.n, tc.m)
		}
	}
	// A huge header never allocates from its value.
	g, err := loadString(t, "el", "edgelist", "999999999999 1\n0 1\n", Options{})
	if err != nil || g.NumVertices() != 2 {
		t.Errorf("huge header: %v, %v", g, err)
	}
}

func TestDuplicatesAndLabels(t *testing.T) {
	g, err := loadString(t, "d", "sm", "t 3 4\nv 0 1\nv 1 2\nv 2 1\ne 0 1 5\ne 1 0 5\ne 1 2\ne 0 1 5\n", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if g.NumEdges() != 2 {
		t.Errorf("duplicates not merged: %d edges", g.NumEdges())
	}
	if l, ok := edgeByID(g, 0, 1); !ok || l != 5 {
		t.Errorf("edge 0-1 label %d, %v; want 5", l, ok)
	}
	// GSI lists u->v and v->u; they merge into one edge.
	g, err = loadString(t, "d", "gsi", "t # 0\n2 2 1 1\nv 0 1\nv 1 1\ne 0 1 3\ne 1 0 3\nt # -1\n", Options{})
	if err != nil || g.NumEdges() != 1 {
		t.Fatalf("gsi: %v, %v", g, err)
	}
	_, err = loadString(t, "d", "sm", "t 2 2\nv 0 1\nv 1 2\ne 0 1 5\ne 1 0 6\n", Options{})
	if err == nil || !strings.Contains(err.Error(), "two labels") {
		t.Errorf("conflicting labels: got %v", err)
	}
	for _, format := range []string{"sm", "edgelist", "lad", "csv"} {
		content := map[string]string{
			"sm":       "t 2 2\nv 0 0\nv 1 0\ne 0 1\ne 1 1\n",
			"edgelist": "0 1\n1 1\n",
			"lad":      "2\n1 1\n2 0 1\n",
			"csv":      "0,1\n1,1\n",
		}[format]
		_, err := loadString(t, "d", format, content, Options{})
		if !errors.Is(err, graph.ErrSelfLoop) && !strings.Contains(fmt_(err), "self-loop") {
			t.Errorf("%s: self-loop: got %v", format, err)
		}
		if !strings.Contains(fmt_(err), ":") {
			t.Errorf("%s: error %v does not name file:line", format, err)
		}
		n := 0
		g, err := loadString(t, "d", format, content, Options{DropSelfLoops: true, Warn: func(string) { n++ }})
		if err != nil || g.NumEdges() != 1 || n != 1 {
			t.Errorf("%s: dropping self-loops: %v, %d warnings", format, err, n)
		}
	}
}

// denseID finds the vertex whose input id is id.
func denseID(g *graph.Graph, id int64) (uint32, bool) {
	for v := 0; v < g.NumVertices(); v++ {
		if g.OriginalID(uint32(v)) == id {
			return uint32(v), true
		}
	}
	return 0, false
}

// edgeByID looks up an edge by input ids.
func edgeByID(g *graph.Graph, u, v int64) (uint32, bool) {
	du, ok1 := denseID(g, u)
	dv, ok2 := denseID(g, v)
	if !ok1 || !ok2 {
		return 0, false
	}
	return g.HasEdge(du, dv)
}

func fmt_(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func TestVertexLabelsFile(t *testing.T) {
	dir := t.TempDir()
	labels := filepath.Join(dir, "labels")
	os.WriteFile(labels, []byte("# id label\n10 3\n20 4\n99 7\n"), 0o644)
	g, err := loadString(t, "el", "edgelist", "10 20\n20 30\n", Options{VertexLabelsFile: labels})
	if err != nil {
		t.Fatal(err)
	}
	want := map[int64]uint32{10: 3, 20: 4, 30: 0, 99: 7}
	if g.NumVertices() != len(want) {
		t.Errorf("%d vertices, want %d", g.NumVertices(), len(want))
	}
	for id, l := range want {
		if v, ok := denseID(g, id); !ok || g.VertexLabel(v) != l {
			t.Errorf("vertex %d: label not applied (%v)", id, ok)
		}
	}
	os.WriteFile(labels, []byte("10 x\n"), 0o644)
	_, err = loadString(t, "el", "edgelist", "10 20\n", Options{VertexLabelsFile: labels})
	if err == nil || !strings.Contains(err.Error(), "labels:1: expected") {
		t.Errorf("bad labels file: %v", err)
	}
}

func TestCSVNames(t *testing.T) {
	g, err := loadString(t, "g.csv", "", "x,y\ny,z,2\nx,,4\n", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if x, _ := denseID(g, 0); g.NumVertices() != 3 || g.VertexLabel(x) != 4 {
		t.Errorf("csv: %d vertices, labels %v", g.NumVertices(), g.VertexLabels())
	}
	if l, ok := edgeByID(g, 1, 2); !ok || l != 2 {
		t.Errorf("csv edge label: %d %v", l, ok)
	}
	g, err = loadString(t, "g.csv", "", "10,20\n20,30\n", Options{})
	if _, ok := denseID(g, 30); err != nil || !ok {
		t.Errorf("numeric csv names should be original ids: %v", err)
	}
}

func TestLoadPattern(t *testing.T) {
	p := filepath.Join(t.TempDir(), "q")
	os.WriteFile(p, []byte("t 3 2\nv 0 1\nv 1 2\nv 2 1\ne 0 1\ne 1 2 4\n"), 0o644)
	q, err := LoadPattern(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if q.NumVertices() != 3 || q.NumEdges() != 2 {
		t.Errorf("pattern %v", q)
	}
	var b strings.Builder
	b.WriteString("t 33 0\n")
	for i := 0; i < 33; i++ {
		b.WriteString("v " + itoa(int64(i)) + " 0\n")
	}
	os.WriteFile(p, []byte(b.String()), 0o644)
	_, err = LoadPattern(p, Options{})
	var ie *InputError
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), "33 vertices") {
		t.Errorf("33-vertex pattern: got %v", err)
	}
}

func rawEqual(a, b graph.Raw) bool {
	return slices.Equal(a.VertexLabels, b.VertexLabels) && slices.Equal(a.Offsets, b.Offsets) &&
		slices.Equal(a.Neighbors, b.Neighbors) && slices.Equal(a.EdgeLabels, b.EdgeLabels) &&
		slices.Equal(a.RunOffsets, b.RunOffsets) && slices.Equal(a.Runs, b.Runs) &&
		slices.Equal(a.OriginalIDs, b.OriginalIDs) &&
		(a.EdgeLabels == nil) == (b.EdgeLabels == nil) && (a.OriginalIDs == nil) == (b.OriginalIDs == nil)
}

func TestSnapshotRoundTrip(t *testing.T) {
	dir := testdata(t)
	for _, name := range []string{"github-gmatch/data.graph", "wikivote-graphpi/wiki-vote_input", "citeseer-graphminer", "glasgow/k4.lad"} {
		g, err := Load(filepath.Join(dir, name), Options{})
		if err != nil {
			t.Fatal(err)
		}
		snap := filepath.Join(t.TempDir(), "g.smg")
		if err := WriteSnapshot(snap, g); err != nil {
			t.Fatal(err)
		}
		if f, _ := Detect(snap); f != "smg" {
			t.Errorf("snapshot detected as %q", f)
		}
		h, err := Load(snap, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if !rawEqual(g.Raw(), h.Raw()) {
			t.Errorf("%s: snapshot arrays differ", name)
		}
		if err := h.Validate(); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		// The decoding path (big-endian hosts, unaligned input) gives the same arrays.
		data, _ := os.ReadFile(snap)
		if h2, err := decodeSnapshotCopy(data, false); err != nil || !rawEqual(g.Raw(), h2.Raw()) {
			t.Errorf("%s: decoded snapshot differs: %v", name, err)
		}
	}
	// Empty graph.
	g, err := graph.NewBuilder(graph.BuilderOptions{}).Build()
	if err != nil {
		t.Fatal(err)
	}
	snap := filepath.Join(t.TempDir(), "e.smg")
	if err := WriteSnapshot(snap, g); err != nil {
		t.Fatal(err)
	}
	if h, err := Load(snap, Options{}); err != nil || h.NumVertices() != 0 {
		t.Errorf("empty graph: %v", err)
	}
}

// decodeSnapshotCopy decodes snapshot bytes in place (inPlace) or through the decoding path.
func decodeSnapshotCopy(data []byte, inPlace bool) (*graph.Graph, error) {
	if inPlace {
		return decodeSnapshot(alignedCopy(data), "snap", nil)
	}
	// An odd start address forces decoding.
	buf := alignedCopy(append([]byte{0}, data...))
	return decodeSnapshot(buf[1:], "snap", nil)
}

func TestSnapshotCorrupt(t *testing.T) {
	dir := testdata(t)
	g, err := Load(filepath.Join(dir, "glasgow", "k33.lad"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	snap := filepath.Join(t.TempDir(), "g.smg")
	if err := WriteSnapshot(snap, g); err != nil {
		t.Fatal(err)
	}
	good, _ := os.ReadFile(snap)
	for n := 0; n < len(good); n++ {
		if _, err := decodeSnapshotCopy(good[:n], true); err == nil {
			t.Fatalf("truncated to %d bytes: no error", n)
		}
	}
	for i := range good {
		bad := bytes.Clone(good)
		bad[i] ^= 0x10
		_, err := decodeSnapshotCopy(bad, true)
		var ie *InputError
		if !errors.As(err, &ie) {
			t.Fatalf("byte %d flipped: got %v", i, err)
		}
	}
	if _, err := decodeSnapshotCopy(append(bytes.Clone(good), 0, 0, 0, 0, 0, 0, 0, 0), true); err == nil {
		t.Error("trailing bytes accepted")
	}
}

func TestNamesAndUnknownFormat(t *testing.T) {
	want := []string{"csv", "edgelist", "graphminer", "grf", "gsi", "lad", "sm", "smg", "vertexlabelledlad"}
	if got := Names(); !slices.Equal(got, want) {
		t.Errorf("Names() = %v, want %v", got, want)
	}
	if _, err := loadString(t, "x", "nosuch", "0 1\n", Options{}); err == nil || !strings.Contains(err.Error(), "edgelist") {
		t.Errorf("unknown format: got %v", err)
	}
	if _, err := loadString(t, "x", "auto", "0 1\n", Options{}); err != nil {
		t.Errorf("auto: %v", err)
	}
}

// TestDetectMagicFirst checks detect, which asks the loaders that can score MagicBytes first,
// against every loader asked in registry order (the highest score, the first of equals), on
// heads and paths of each kind: a snapshot, a GraphMiner folder's meta file (also holding a
// snapshot), text graphs, an empty head and an unknown one.
func TestDetectMagicFirst(t *testing.T) {
	g, err := Load(filepath.Join(testdata(t), "citeseer-graphminer", "graph.meta.txt"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var snap bytes.Buffer
	if err := writeSnapshot(&snap, g); err != nil {
		t.Fatal(err)
	}
	meta := filepath.Join(testdata(t), "citeseer-graphminer", "graph.meta.txt")
	heads := [][]byte{snap.Bytes(), []byte("t 2 1\nv 0 0\nv 1 0\ne 0 1\n"), []byte("0 1\n1 2\n"),
		[]byte("a,b\n1,2\n"), []byte("3\n0 1 1\n1 1 0\n2 0\n"), nil, []byte(" \n"), []byte("\x00\x01\x02")}
	for _, path := range []string{"g.smg", "g.graph", "g.txt", "g.csv", "g.lad", "g", meta} {
		for i, head := range heads {
			var want Loader
			best := NoMatch
			registryMu.RLock()
			for _, l := range registry {
				if s := l.Detect(path, head); s > best {
					want, best = l, s
				}
			}
			registryMu.RUnlock()
			got, err := detect(path, head, "x")
			if (want == nil) != (err != nil) || (want != nil && got != want) {
				t.Errorf("%s, head %d: detect gave %v (%v), every loader in order %v", path, i, got, err, want)
			}
		}
	}
}
