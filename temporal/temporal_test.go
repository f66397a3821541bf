package temporal

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/submatch/submatch/internal/testenv"
)

// randomTemporal makes n vertices and m events with timestamps in [0, span): small spans give
// many ties, and repeated pairs give parallel events.
func randomTemporal(seed uint64, n, m int, span int64) *Graph {
	r := rand.New(rand.NewPCG(seed, 7))
	b := NewBuilder()
	for range m {
		u := r.Int64N(int64(n))
		v := r.Int64N(int64(n))
		if u == v {
			v = (u + 1) % int64(n)
		}
		b.Add(u*10+3, v*10+3, r.Int64N(span))
	}
	return b.Build()
}

// bruteMatches counts every sequence of len(p.Edges) events in event order (the oracle): it
// tries all index tuples and checks the window, the order, injectivity and the edges.
func bruteMatches(g *Graph, p *Pattern, o Options) uint64 {
	return bruteWindow(g, p, o.Strict, func(first, last int64) bool { return last-first <= o.Delta })
}

// bruteGrid classifies every triple of events in the window.
func bruteGrid(g *Graph, o Options) [6][6]uint64 {
	var out [6][6]uint64
	n := len(g.Events)
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			for k := j + 1; k < n; k++ {
				a, b, c := g.Events[i], g.Events[j], g.Events[k]
				if c.Time-a.Time > o.Delta || (o.Strict && (a.Time >= b.Time || b.Time >= c.Time)) {
					continue
				}
				ids := map[uint32]int{}
				var edges [3][2]int
				for q, e := range []Event{a, b, c} {
					for r, v := range [2]uint32{e.Src, e.Dst} {
						if _, ok := ids[v]; !ok {
							ids[v] = len(ids)
						}
						edges[q][r] = ids[v]
					}
				}
				if len(ids) > 3 {
					continue
				}
				if x, y, ok := gridCell(edges); ok {
					out[x][y]++
				}
			}
		}
	}
	return out
}

func TestGridMotifsDistinct(t *testing.T) {
	// gridCell panics on repeats; every connected 3-edge sequence on 2 or 3 vertices is a cell.
	cells := map[[2]int]bool{}
	var rec func(edges [3][2]int, q int)
	rec = func(edges [3][2]int, q int) {
		if q == 3 {
			if x, y, ok := gridCell(edges); ok {
				cells[[2]int{x, y}] = true
			}
			return
		}
		for u := range 3 {
			for v := range 3 {
				if u != v {
					edges[q] = [2]int{u, v}
					rec(edges, q+1)
				}
			}
		}
	}
	rec([3][2]int{}, 0)
	if len(cells) != 36 {
		t.Errorf("%d cells reached, want 36", len(cells))
	}
}

func TestGridAndCountBruteForce(t *testing.T) {
	cases := testenv.Sweep(30, 300)
	for seed := range uint64(cases) {
		n := 3 + int(seed%5)
		g := randomTemporal(seed, n, 14+int(seed%20), []int64{3, 10, 40}[seed%3])
		for _, strict := range []bool{false, true} {
			o := Options{Delta: []int64{0, 2, 5, 100}[seed%4], Strict: strict, Threads: 1 + int(seed%2)}
			want := bruteGrid(g, o)
			got, err := Grid(context.Background(), g, o)
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Errorf("seed %d strict %v delta %d: grid\n%v\nbrute force\n%v", seed, strict, o.Delta, got, want)
			}
			for i := range 6 {
				for j := range 6 {
					p, _ := Parse(GridMotifs[i][j])
					c, err := Count(context.Background(), g, p, o)
					if err != nil || c != want[i][j] {
						t.Errorf("seed %d strict %v: Count(%s) = %d (%v), brute force %d", seed, strict, GridMotifs[i][j], c, err, want[i][j])
					}
				}
			}
		}
	}
}

// TestCountPatterns checks longer patterns, and those with an edge between two new vertices,
// against the brute force, and that listing yields as many distinct matches as counted.
func TestCountPatterns(t *testing.T) {
	pats := []string{"a->b, b->c, c->d", "a->b, c->d", "a->b, c->d, b->c", "a->b, b->a, a->b, b->a", "a->b, a->c, a->d", "x->y", "a->b, b->c, c->a, a->d"}
	for seed := range uint64(12) {
		g := randomTemporal(seed+100, 4+int(seed%3), 12+int(seed%8), []int64{4, 20}[seed%2])
		for _, s := range pats {
			p, err := Parse(s)
			if err != nil {
				t.Fatal(err)
			}
			for _, strict := range []bool{false, true} {
				o := Options{Delta: []int64{1, 3, 50}[seed%3], Strict: strict}
				want := bruteMatches(g, p, o)
				got, err := Count(context.Background(), g, p, o)
				if err != nil || got != want {
					t.Errorf("seed %d %q strict %v: %d (%v), brute force %d", seed, s, strict, got, err, want)
				}
				seen := map[string]bool{}
				for sel, err := range Matches(context.Background(), g, p, o) {
					if err != nil {
						t.Fatal(err)
					}
					seen[fmt.Sprint(sel)] = true
				}
				if uint64(len(seen)) != want {
					t.Errorf("seed %d %q: %d distinct listed, want %d", seed, s, len(seen), want)
				}
			}
		}
	}
}

func TestParse(t *testing.T) {
	p, err := Parse("(a)->(b), b->c , c->a")
	if err != nil || p.String() != "a->b, b->c, c->a" || p.K() != 3 {
		t.Errorf("Parse: %v %v", p, err)
	}
	for _, bad := range []string{"", "a->a", "a-b", "a->", "a->b, b->c d", "a->b,"} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q) accepted", bad)
		}
	}
}

func TestReadErrors(t *testing.T) {
	if _, err := Read(strings.NewReader("src,dst,t\n1,2,3\n4,5\n"), "x.csv"); err == nil || !strings.Contains(err.Error(), "x.csv:3:") {
		t.Errorf("bad line: %v", err)
	}
	g, err := Read(strings.NewReader("# c\n1 2 5\n2 1 3\n1 1 4\n"), "y")
	if err != nil || len(g.Events) != 2 || g.SelfLoops != 1 || g.Events[0].Time != 3 {
		t.Errorf("read: %+v %v", g, err)
	}
}

// failingReader returns its text, then err (a cancelled load, a truncated gzip stream).
type failingReader struct {
	text string
	err  error
}

func (r *failingReader) Read(p []byte) (int, error) {
	if r.text == "" {
		return 0, r.err
	}
	n := copy(p, r.text)
	r.text = r.text[n:]
	return n, nil
}

// TestReadFaults: a read cut short mid-line is reported as the read error (a cancelled load wraps
// the context's error; any other is an *InputError naming the line), never as the cut line being
// malformed, and the cut line is not taken as an event; a line too long and a file without a
// single event line are *InputErrors naming the file.
func TestReadFaults(t *testing.T) {
	for _, text := range []string{"1 2 3\n4 5", "1 2 3\n4 5 6"} {
		_, err := Read(&failingReader{text, context.Canceled}, "c.txt")
		var ie *InputError
		if !errors.Is(err, context.Canceled) || errors.As(err, &ie) {
			t.Errorf("cancelled read of %q: %v", text, err)
		}
		_, err = Read(&failingReader{text, io.ErrUnexpectedEOF}, "t.gz")
		if !errors.As(err, &ie) || ie.Line != 2 || !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("failed read of %q: %v", text, err)
		}
	}
	long := "1 2 3\n" + strings.Repeat("7", 2<<20) + "\n"
	for _, text := range []string{long, "", "# no events\n", "src dst t\n"} {
		_, err := Read(strings.NewReader(text), "x.txt")
		var ie *InputError
		if !errors.As(err, &ie) || !strings.HasPrefix(err.Error(), "x.txt:") || len(err.Error()) > 200 {
			t.Errorf("Read(%.20q): %v", text, err)
		}
	}
}

// TestCollegeMsg checks the 36-motif totals SNAP's temporalmotifs prints on CollegeMsg.
func TestCollegeMsg(t *testing.T) {
	g := loadCollegeMsg(t)
	for _, c := range snapCollegeMsg {
		grid, err := Grid(context.Background(), g, Options{Delta: c.delta})
		if err != nil {
			t.Fatal(err)
		}
		if total := gridTotal(grid); total != c.want {
			t.Errorf("delta %d: total %d, SNAP %d", c.delta, total, c.want)
		}
	}
}

// snapCollegeMsg are the 36-motif totals SNAP's temporalmotifs prints on CollegeMsg, by delta.
var snapCollegeMsg = []struct {
	delta int64
	want  uint64
}{{3600, 3979317}, {86400, 21472248}}

// gridTotal sums a grid's cells.
func gridTotal(grid [6][6]uint64) uint64 {
	var total uint64
	for _, row := range grid {
		for _, x := range row {
			total += x
		}
	}
	return total
}

// TestCollegeMsgCountsAgree checks the general counter against the grid on every motif of
// CollegeMsg (a deep sweep: about a second per delta).
func TestCollegeMsgCountsAgree(t *testing.T) {
	testenv.SkipUnlessLong(t)
	g := loadCollegeMsg(t)
	for _, delta := range []int64{600, 3600} {
		o := Options{Delta: delta}
		grid, err := Grid(context.Background(), g, o)
		if err != nil {
			t.Fatal(err)
		}
		for i := range 6 {
			for j := range 6 {
				p, _ := Parse(GridMotifs[i][j])
				c, err := Count(context.Background(), g, p, o)
				if err != nil || c != grid[i][j] {
					t.Errorf("delta %d %s: Count %d (%v), Grid %d", delta, GridMotifs[i][j], c, err, grid[i][j])
				}
			}
		}
	}
}

// loadCollegeMsg reads the shared CollegeMsg file (skipped when it is missing, failed in CI).
func loadCollegeMsg(t testing.TB) *Graph {
	t.Helper()
	g, err := Load(testenv.Path(t, filepath.Join("collegemsg-temporal", "CollegeMsg.txt")))
	if err != nil {
		t.Fatal(err)
	}
	return g
}
