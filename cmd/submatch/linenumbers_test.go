package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMalformedLineNumbers: for every text input the command reads (each graph format, update
// streams, temporal events), a file of a few hundred KB (several of the loaders' parse blocks:
// comments, blank lines and CRLF endings on the way) with one malformed line deep inside is
// refused with exit 2 and one line naming the file and that line's number.
func TestMalformedLineNumbers(t *testing.T) {
	const n = 30000 // good lines before the bad one
	dir := t.TempDir()
	// body returns n numbered lines of line(i), with a comment every 97th and a blank line every
	// 101st line and CRLF endings every 3rd, then bad: the text and the bad line's number.
	body := func(first int, comment string, line func(i int) string, bad string) (string, int) {
		var b strings.Builder
		no := first
		for i := range n {
			switch {
			case comment != "" && i%97 == 1:
				b.WriteString(comment + " a comment\n")
				no++
			case i%101 == 2:
				b.WriteString("\n")
				no++
			}
			b.WriteString(line(i))
			if i%3 == 0 {
				b.WriteString("\r")
			}
			b.WriteString("\n")
			no++
		}
		b.WriteString(bad + "\n")
		no++
		b.WriteString(line(0) + "\n")
		return b.String(), no
	}
	edge := func(i int) string { return fmt.Sprintf("%d %d", i, i+1) }
	type input struct {
		name, text string
		line       int
		args       func(path string) []string
	}
	var inputs []input
	stats := func(format string) func(string) []string {
		return func(p string) []string { return []string{"stats", "--format", format, p} }
	}
	add := func(name, head string, headLines int, comment string, line func(int) string, bad string, args func(string) []string) {
		text, no := body(headLines, comment, line, bad)
		inputs = append(inputs, input{name, head + text, no, args})
	}
	add("edgelist", "", 0, "#", edge, "7 x", stats("edgelist"))
	add("sm", fmt.Sprintf("t %d %d\n", n+2, n), 1, "#", func(i int) string {
		return fmt.Sprintf("v %d 0", i)
	}, "e 1 x", stats("sm"))
	add("gsi", fmt.Sprintf("t # 0\n%d %d 1 1\n", n+2, n), 2, "", func(i int) string {
		return fmt.Sprintf("v %d 0", i)
	}, "e 0 x 0", stats("gsi"))
	add("csv", "", 0, "", func(i int) string { return fmt.Sprintf("a%d,a%d", i, i+1) }, "x,y,z", stats("csv"))
	add("csm", "", 0, "#", func(i int) string { return "e " + edge(i) }, "e 1", stats("csm"))
	ladLine := func(i int) string {
		switch {
		case i == 0:
			return "1 1"
		case i == n-1:
			return fmt.Sprintf("1 %d", i-1)
		}
		return fmt.Sprintf("2 %d %d", i-1, i+1)
	}
	// (LAD has no comments and no blank lines: the loader skips blank lines, the body adds some)
	add("lad", fmt.Sprintf("%d\n", n+1), 1, "", ladLine, "3 0 1", stats("lad"))
	data := writeFile(t, "tri.txt", "0 1\n1 2\n2 0\n")
	add("updates", "", 0, "#", func(i int) string { return fmt.Sprintf("e %d %d", i+3, i+4) }, "e 5 x", func(p string) []string {
		return []string{"watch", "--updates", p, data, "(a)-(b)"}
	})
	add("temporal", "", 0, "#", func(i int) string { return fmt.Sprintf("%d %d %d", i, i+1, i) }, "1 2 x", func(p string) []string {
		return []string{"temporal", "count", "--delta", "5", p, "a->b"}
	})
	for _, in := range inputs {
		t.Run(in.name, func(t *testing.T) {
			path := filepath.Join(dir, in.name+".txt")
			if err := os.WriteFile(path, []byte(in.text), 0o644); err != nil {
				t.Fatal(err)
			}
			code, _, errOut := runCmd(t, in.args(path)...)
			want := fmt.Sprintf("submatch: %s:%d: ", path, in.line)
			if code != exitUsage || !strings.HasPrefix(errOut, want) || strings.Count(errOut, "\n") != 1 {
				t.Errorf("exit %d, stderr %q; want 2 and one line starting %q", code, errOut, want)
			}
		})
	}
}
