package formats

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
	"time"
)

// randomText writes about size bytes of lines of every kind the loaders meet: data, blank,
// comments, CRLF endings, leading blanks, lines longer than the line reader's buffer and than a
// block, and (sometimes) no newline at the end.
func randomText(r *rand.Rand, size int) []byte {
	var b bytes.Buffer
	for b.Len() < size {
		switch k := r.IntN(20); {
		case k == 0:
			b.WriteString("\n")
		case k == 1:
			b.WriteString("  \t \r\n")
		case k == 2:
			b.WriteString("# comment 1 2\n")
		case k == 3:
			b.WriteString("   % comment\r\n")
		case k == 4 && r.IntN(50) == 0:
			n := 70_000 + r.IntN(2*blockSize) // past bufio's 64 KiB, sometimes past a block
			b.WriteString("e 1 2 " + strings.Repeat("7", n) + "\n")
		default:
			fmt.Fprintf(&b, "%s%d %d %d", strings.Repeat(" ", r.IntN(2)), r.IntN(1000), r.IntN(1000), r.IntN(3))
			if r.IntN(4) == 0 {
				b.WriteString("\r")
			}
			b.WriteString("\n")
		}
	}
	out := b.Bytes()
	if r.IntN(2) == 0 {
		out = bytes.TrimRight(out, "\r\n")
	}
	return out
}

// The parsed lines are the data lines the sequential reader returns, with the same numbers and
// text, across block boundaries.
func TestParsedLinesMatchLineReader(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for round := range 6 {
		text := randomText(r, []int{0, 10, 3000, blockSize - 5, 3 * blockSize, 5*blockSize + 17}[round])
		type want struct {
			line int
			text string
		}
		var seq []want
		lr := newLineReader(bytes.NewReader(text), "t")
		for {
			l, err := lr.nextData(edgeComments)
			if err == io.EOF {
				break
			} else if err != nil {
				t.Fatal(err)
			}
			seq = append(seq, want{lr.line, string(l)})
		}
		lr = newLineReader(bytes.NewReader(text), "t")
		i := 0
		for pl, err := range lr.parsedLines(edgeComments, parseEdge) {
			if err != nil {
				t.Fatal(err)
			}
			if i >= len(seq) || pl.line != seq[i].line || string(pl.text) != seq[i].text || lr.line != pl.line {
				t.Fatalf("round %d: parsed line %d is %d %.40q, want %+.40v", round, i, pl.line, pl.text, seq[min(i, len(seq)-1)])
			}
			i++
		}
		if i != len(seq) {
			t.Fatalf("round %d: %d parsed lines, want %d", round, i, len(seq))
		}
	}
}

// An error far into a large file names its line, as the sequential loader did.
func TestLoadErrorLineInLaterBlock(t *testing.T) {
	const n = 300_000
	var b bytes.Buffer
	fmt.Fprintf(&b, "t %d %d\n", n, n-1)
	for v := range n {
		fmt.Fprintf(&b, "v %d 0\n", v)
	}
	for v := range n - 1 {
		if v == 250_000 {
			b.WriteString("e 3 x\n")
			continue
		}
		fmt.Fprintf(&b, "e %d %d\n", v, v+1)
	}
	_, err := lookup("sm").Load(bytes.NewReader(b.Bytes()), "big.graph", Options{})
	var ie *InputError
	if !errors.As(err, &ie) || ie.Line != 1+n+250_001 || !strings.Contains(err.Error(), `got "e 3 x"`) {
		t.Fatalf("got %v, want an error on line %d", err, 1+n+250_001)
	}
}

// failingReader returns its data, then an error.
type failingReader struct{ data []byte }

func (f *failingReader) Read(p []byte) (int, error) {
	if len(f.data) == 0 {
		return 0, errors.New("disk on fire")
	}
	n := copy(p, f.data)
	f.data = f.data[n:]
	return n, nil
}

// A read error ends the lines with an error naming the line being read; the lines before it
// come first.
func TestParsedLinesReadError(t *testing.T) {
	var b bytes.Buffer
	for i := range 200_000 {
		fmt.Fprintf(&b, "%d %d\n", i, i+1)
	}
	b.WriteString("12 1") // the line that fails to end
	lr := newLineReader(&failingReader{b.Bytes()}, "f")
	lines := 0
	for pl, err := range lr.parsedLines(edgeComments, parseEdge) {
		if err != nil {
			var ie *InputError
			if !errors.As(err, &ie) || ie.Line != 200_001 || lines != 200_000 {
				t.Fatalf("after %d lines: %v (want line 200001 after 200000 lines)", lines, err)
			}
			return
		}
		if pl.f[0] != int64(lines) {
			t.Fatalf("line %d parsed as %v", pl.line, pl.f)
		}
		lines++
	}
	t.Fatal("no read error")
}

// Leaving the loop early stops the reader and the workers.
func TestParsedLinesStop(t *testing.T) {
	text := randomText(rand.New(rand.NewPCG(1, 1)), 4*blockSize)
	before := runtime.NumGoroutine()
	for range 20 {
		for range newLineReader(bytes.NewReader(text), "t").parsedLines(edgeComments, parseEdge) {
			break
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if g := runtime.NumGoroutine(); g > before {
		t.Fatalf("%d goroutines left running (%d before)", g-before, before)
	}
}
