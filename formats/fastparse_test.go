package formats

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/submatch/submatch/graph"
)

// loadBothWays loads data with the named loader twice, with the fast parsers and line by line
// only, from a reader (blocks read one after another) or, when dir is not empty, from a file
// there (read whole when small), and fails unless the graphs, the errors and the warnings are
// the same.
func loadBothWays(t *testing.T, format string, data []byte, opts Options, dir string) *graph.Graph {
	t.Helper()
	type result struct {
		g     *graph.Graph
		err   string
		warns []string
	}
	load := func(slow bool) result {
		saved := slowOnly
		slowOnly = slow
		defer func() { slowOnly = saved }()
		var r result
		o := opts
		o.Warn = func(m string) { r.warns = append(r.warns, m) }
		o.Format = format
		var err error
		if dir != "" {
			p := filepath.Join(dir, "g")
			if err := os.WriteFile(p, data, 0o644); err != nil {
				t.Fatal(err)
			}
			r.g, err = Load(p, o)
		} else {
			r.g, err = lookup(format).Load(bytes.NewReader(data), "g", o)
		}
		if err != nil {
			var ie *InputError
			if !errors.As(err, &ie) {
				t.Fatalf("error is not an InputError: %v", err)
			}
			r.err = err.Error()
		}
		return r
	}
	fast, slow := load(false), load(true)
	if fast.err != slow.err {
		t.Fatalf("%s: error with the fast parser %q, line by line %q", format, fast.err, slow.err)
	}
	if !reflect.DeepEqual(fast.warns, slow.warns) {
		t.Fatalf("%s: warnings with the fast parser %q, line by line %q", format, fast.warns, slow.warns)
	}
	if fast.err != "" {
		return nil
	}
	if !reflect.DeepEqual(fast.g.Raw(), slow.g.Raw()) || !reflect.DeepEqual(fast.g.VertexNames(), slow.g.VertexNames()) {
		t.Fatalf("%s: the fast parser's graph differs (%d vertices %d edges; line by line %d, %d)", format,
			fast.g.NumVertices(), fast.g.NumEdges(), slow.g.NumVertices(), slow.g.NumEdges())
	}
	return fast.g
}

var fastFormats = []string{"edgelist", "sm", "gsi"}

// FuzzFastPath: the fast parsers read every input as the line-by-line loaders do: the same
// graph, or the same error.
func FuzzFastPath(f *testing.F) {
	for _, s := range []string{
		"# c\n0 1\n1 2\n2 0\n", "7115 3\n30 1412\n30 3352\n3 28\n", "5 2\n0 1\n1 2\n", "1,2,3\n%x\n-5\t9\n",
		"0 0\n", "1 2 #x\n3\t4\r\n 5 ,6\n", "4294967295 1\n4294967296 2\n", "0000000001 2\n",
		"t 3 2\nv 0 0 1\nv 1 1 2\nv 2 0 1\ne 0 1\ne 1 2 3\n", "t 2 1\nv 1 0\nv 0 1\ne 0 1\n",
		"t 2 1\nv 0 0\ne 0 1\nv 1 0\n", "t # 0\n3 2 2 1\nv 0 1\nv 1 2\nv 2 1\ne 0 1 1\ne 1 0 1\ne 1 2 1\nt # -1\n",
		"t 2 1\nv 0 0\nv 0 1\ne 0 1\n", "t 2 1\nv 0 0\nv 1 0\ne 0 2\n",
	} {
		for i := range fastFormats {
			f.Add([]byte(s), uint8(i), false)
			f.Add([]byte(s), uint8(i), true)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, format uint8, drop bool) {
		loadBothWays(t, fastFormats[int(format)%len(fastFormats)], data, Options{DropSelfLoops: drop}, "")
	})
}

// randomLines writes about size bytes of an edge list (or of sm/gsi `v`/`e` lines) that the fast
// parser takes in nearly every block, with now and then a line it leaves to the line-by-line
// loader: a comment, a label, a sign, a self-loop, a long id, an error.
func randomLines(r *rand.Rand, format string, size, n int, odd int) []byte {
	var b bytes.Buffer
	id := func() int { return r.IntN(n) }
	if format == "edgelist" && r.IntN(2) == 0 {
		fmt.Fprintf(&b, "%d %d\n", n, r.IntN(3))
	}
	if format != "edgelist" {
		for v := range n {
			fmt.Fprintf(&b, "v %d %d\n", v, r.IntN(3))
		}
	}
	kinds := []string{"# comment\n", "\n", "  \t\n", "%s %s 1\n", "+%s %s\n", "%s %s\r\n", " %s,%s\n", "%s\t%s # x\n",
		"%s %s x\n", "%s %s\n", "12345678901 %s\n"}
	for b.Len() < size {
		u, v := id(), id()
		if u == v && r.IntN(20) != 0 {
			continue
		}
		prefix := ""
		if format != "edgelist" {
			prefix = "e "
		}
		if odd > 0 && r.IntN(odd) == 0 {
			k := kinds[r.IntN(len(kinds))]
			if format != "edgelist" && (strings.Contains(k, ",") || strings.Contains(k, "#") || strings.Contains(k, "%s %s x")) {
				k = "%s %s\n"
			}
			if strings.Count(k, "%s") == 2 {
				fmt.Fprintf(&b, prefix+k, fmt.Sprint(u), fmt.Sprint(v))
			} else if strings.Count(k, "%s") == 1 {
				fmt.Fprintf(&b, prefix+k, fmt.Sprint(u))
			} else {
				b.WriteString(k)
			}
			continue
		}
		fmt.Fprintf(&b, "%s%d %d\n", prefix, u, v)
	}
	body := b.Bytes()
	edges := bytes.Count(body, []byte("\ne ")) + bytes.Count(body, []byte("\n e "))
	switch format {
	case "sm":
		return append(fmt.Appendf(nil, "t %d %d\n", n, edges), body...)
	case "gsi":
		return append(append(fmt.Appendf(nil, "t # 0\n%d %d 3 3\n", n, edges), body...), "t # -1\n"...)
	}
	return body
}

// Large inputs, over many blocks, read from a reader and from a file: the fast parsers and the
// line-by-line loaders agree, whatever mix of plain and odd lines.
func TestFastPathMatchesLines(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	dir := t.TempDir()
	loaded := 0
	defer func() {
		t.Logf("%d loads succeeded", loaded)
		if loaded < 12 {
			t.Errorf("only %d loads succeeded: the test compares errors more than graphs", loaded)
		}
	}()
	for round := range 24 {
		format := fastFormats[round%len(fastFormats)]
		size := []int{100, 5000, 3 * blockSize, 9 * blockSize}[round/6%4]
		n := []int{10, 3000, 100000}[round%3]
		odd := []int{0, 5000, 50}[round/3%3]
		data := randomLines(r, format, size, n, odd)
		for _, drop := range []bool{false, true} {
			d := ""
			if round%2 == 0 {
				d = dir
			}
			if g := loadBothWays(t, format, data, Options{DropSelfLoops: drop}, d); g != nil {
				loaded++
			}
		}
	}
}

// plainUintRef is plainUint written plainly: the reference for its loop (which relies on a
// newline to end the number).
func plainUintRef(text []byte, i int) (uint32, int) {
	v, n := uint64(0), 0
	for i+n < len(text) && text[i+n] >= '0' && text[i+n] <= '9' {
		v = v*10 + uint64(text[i+n]-'0')
		n++
	}
	if n == 0 || n > 9 {
		return 0, -1
	}
	return uint32(v), i + n
}

// plainUint reads every run of digits, whatever follows it (any byte, more digits) and wherever
// it starts, as plainUintRef does.
func TestPlainUint(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 200_000 {
		var b []byte
		for range r.IntN(3) {
			b = append(b, byte(r.IntN(256)))
		}
		start := len(b)
		for range r.IntN(12) {
			b = append(b, byte('0'+r.IntN(10)))
		}
		for range r.IntN(10) {
			c := byte(r.IntN(256))
			if r.IntN(3) == 0 {
				c = []byte{' ', '\n', '\r', '\t', ',', '/', ':', 0xfa, 0xff}[r.IntN(9)]
			}
			b = append(b, c)
		}
		b = append(b, '\n') // plainUint's text ends with a newline after the number
		v, j := plainUint(b, start)
		wv, wj := plainUintRef(b, start)
		if v != wv || j != wj {
			t.Fatalf("plainUint(%q, %d) = %d, %d; want %d, %d", b, start, v, j, wv, wj)
		}
	}
}
