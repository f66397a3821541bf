package formats

import (
	"io"

	"github.com/submatch/submatch/graph"
)

// MIVIA's .grf text format (VF2/VF3): n, then n lines `<id> <label>` with ids 0..n-1 in order,
// then for each vertex a count line followed by that many `<from> <to>` lines. Its graphs are
// directed, which is out of scope for now: the loader recognises the format so that it is refused
// with a clear message rather than misread as another format.
//
// Detection: a ".grf" extension, or a single-number first line n followed by `i <label>` lines for
// i = 0, 1, ... (a LAD vertex line `0 x` is impossible, since its degree 0 would list nothing).

func init() { Register(grfLoader{}) }

type grfLoader struct{}

func (grfLoader) Name() string { return "grf" }

func (grfLoader) Detect(path string, head []byte) int {
	if hasExt(path, ".grf") {
		return Extension
	}
	lines := firstDataLines(head, "", 64)
	if len(lines) < 2 {
		return NoMatch
	}
	n, ok := singleInt(lines[0])
	if !ok || n < 1 {
		return NoMatch
	}
	var f [2]int64
	for i, line := range lines[1:min(int64(len(lines)), n+1)] {
		t := tokens{s: line}
		if k, ok := t.ints(f[:]); !ok || k != 2 || f[0] != int64(i) {
			return NoMatch
		}
	}
	return Structure
}

func (grfLoader) Load(r io.Reader, path string, opts Options) (*graph.Graph, error) {
	return nil, inputErrorf(path, "MIVIA .grf graphs are directed; directed formats are not supported yet")
}
