package formats

import (
	"bytes"
	"io"
	"strconv"

	"github.com/submatch/submatch/graph"
)

// The `t N M` / `v id label [degree]` / `e u v [label]` format of SubgraphMatching, RapidMatch,
// EGSM and gMatch, and GSI's variant of it (`t # 0`, a count line, `v`/`e` lines, `t # -1`).
//
// Vertices must be declared by a `v` line before an edge uses them. The degree column of `v`
// lines is ignored. The number of `v` lines must equal the header's vertex count, and the header's
// edge count must equal either the number of `e` lines or the number of distinct undirected edges
// (files that list each edge in both directions are accepted). Edges are undirected: GSI's
// directed u->v and v->u lines are merged into one edge (with an error if their labels differ).
// Lines starting with '#' are comments in sm files (not in gsi, where `t # k` lines are
// structure). A file holding several graphs is refused: only one graph per file is supported.

func init() {
	Register(smLoader{})
	Register(gsiLoader{})
}

type smLoader struct{}

func (smLoader) Name() string { return "sm" }

func (smLoader) Detect(path string, head []byte) int {
	lines := firstDataLines(head, "#", 1)
	if len(lines) == 1 && isSMHeader(lines[0]) {
		return Structure
	}
	return NoMatch
}

// isSMHeader reports whether line is `t N M`.
func isSMHeader(line []byte) bool {
	if len(line) < 2 || line[0] != 't' || !isSpace(line[1]) {
		return false
	}
	var v [2]int64
	t := tokens{s: line[1:]}
	n, ok := t.ints(v[:])
	return ok && n == 2 && v[0] >= 0 && v[1] >= 0
}

const (
	smHeaderSyntax  = "t <vertices> <edges>"
	smVertexSyntax  = "v <id> <label> [degree]"
	smEdgeSyntax    = "e <u> <v> [label]"
	gsiHeaderSyntax = "t # 0"
	gsiCountSyntax  = "<vertices> <edges> <max vertex label> <max edge label>"
	gsiVertexSyntax = "v <id> <label>"
	gsiEdgeSyntax   = "e <u> <v> <label>"
)

func (smLoader) Load(r io.Reader, path string, opts Options) (*graph.Graph, error) {
	lr := newLineReader(r, path)
	line, err := lr.nextData("#")
	if err == io.EOF {
		return nil, lr.emptyError(strconv.Quote(smHeaderSyntax))
	} else if err != nil {
		return nil, err
	}
	var hdr [2]int64
	if !isSMHeader(line) {
		return nil, lr.expected(line, smHeaderSyntax)
	}
	t := tokens{s: line[1:]}
	t.ints(hdr[:])
	p := veParser{r: r, lr: lr, opts: opts, vertexSyntax: smVertexSyntax, edgeSyntax: smEdgeSyntax, comments: "#",
		maxVertexFields: 3, headerLine: lr.line, wantV: hdr[0], wantE: hdr[1]}
	return p.parse(func(line []byte) (bool, error) {
		if line[0] == 't' {
			return false, lr.errorf("a second graph starts here; only one graph per file is supported")
		}
		return false, lr.expected(line, smVertexSyntax, smEdgeSyntax)
	})
}

type gsiLoader struct{}

func (gsiLoader) Name() string { return "gsi" }

func (gsiLoader) Detect(path string, head []byte) int {
	lines := firstDataLines(head, "", 1)
	if len(lines) == 1 && bytes.HasPrefix(lines[0], []byte("t #")) {
		return Structure
	}
	return NoMatch
}

// isGSIGraphLine parses `t # k`.
func isGSIGraphLine(line []byte) (int64, bool) {
	if !bytes.HasPrefix(line, []byte("t")) {
		return 0, false
	}
	t := tokens{s: line[1:]}
	f, ok := t.next()
	if !ok || string(f) != "#" {
		return 0, false
	}
	var k [1]int64
	n, ok := t.ints(k[:])
	return k[0], ok && n == 1
}

func (gsiLoader) Load(r io.Reader, path string, opts Options) (*graph.Graph, error) {
	lr := newLineReader(r, path)
	line, err := lr.nextData("")
	if err == io.EOF {
		return nil, lr.emptyError(strconv.Quote(gsiHeaderSyntax))
	} else if err != nil {
		return nil, err
	}
	if k, ok := isGSIGraphLine(line); !ok || k < 0 {
		return nil, lr.expected(line, gsiHeaderSyntax)
	}
	if line, err = lr.nextData(""); err == io.EOF {
		return nil, lr.endErrorf("unexpected end of file, expected %q", gsiCountSyntax)
	} else if err != nil {
		return nil, err
	}
	var hdr [4]int64
	if _, err := lr.lineInts(line, false, hdr[:], 4, gsiCountSyntax); err != nil {
		return nil, err
	}
	if hdr[0] < 0 || hdr[1] < 0 {
		return nil, lr.expected(line, gsiCountSyntax)
	}
	p := veParser{r: r, lr: lr, opts: opts, vertexSyntax: gsiVertexSyntax, edgeSyntax: gsiEdgeSyntax,
		maxVertexFields: 2, headerLine: lr.line, wantV: hdr[0], wantE: hdr[1]}
	ended := false
	return p.parse(func(line []byte) (bool, error) {
		k, ok := isGSIGraphLine(line)
		switch {
		case ok && k == -1 && !ended:
			ended = true
			return true, nil
		case ok && k >= 0:
			return false, lr.errorf("a second graph starts here; only one graph per file is supported")
		}
		return false, lr.expected(line, gsiVertexSyntax, gsiEdgeSyntax, "t # -1")
	})
}

// veParser reads the `v` and `e` lines shared by the sm and gsi formats.
type veParser struct {
	r                        io.Reader // what lr reads, to find lines again after the fact
	lr                       *lineReader
	opts                     Options
	vertexSyntax, edgeSyntax string
	comments                 string // first bytes of comment lines
	maxVertexFields          int    // fields after "v"
	headerLine               int    // line of the counts, for count mismatches
	wantV, wantE             int64  // counts declared by the header
}

// parse reads the remaining lines. other handles a line that is neither `v` nor `e`: it returns
// true to accept it (ending the graph: only blank lines may follow) or an error.
func (p *veParser) parse(other func(line []byte) (bool, error)) (*graph.Graph, error) {
	lr := p.lr
	b := graph.NewBuilder(graph.BuilderOptions{DropSelfLoops: p.opts.DropSelfLoops})
	var (
		nv, ne int64
		done   bool
	)
	// line reads one data line (the reference for the fast parser's blocks).
	line := func(pl *parsedLine) error {
		line, f := pl.text, &pl.f
		if done {
			return lr.errorf("unexpected text after the end of the graph: %s", quoteLine(line))
		}
		if pl.kind != 0 {
			if pl.kind == 'v' {
				if !pl.ok || pl.n < 2 || pl.n > p.maxVertexFields {
					return lr.expected(line, p.vertexSyntax)
				}
				l, ok := label(f[1])
				if !ok {
					return lr.errorf("vertex label %d out of range 0..4294967295", f[1])
				}
				if b.HasVertex(f[0]) {
					return lr.errorf("vertex %d declared twice", f[0])
				}
				if err := b.SetVertexLabel(f[0], l); err != nil {
					return lr.wrap(err)
				}
				nv++
				return nil
			}
			if !pl.ok || pl.n < 2 {
				return lr.expected(line, p.edgeSyntax)
			}
			var el uint32
			if pl.n == 3 {
				var ok bool
				if el, ok = label(f[2]); !ok {
					return lr.errorf("edge label %d out of range 0..4294967295", f[2])
				}
			}
			for _, x := range f[:2] {
				if !b.HasVertex(x) {
					return lr.errorf("edge %d-%d uses vertex %d, which no earlier %q line declares", f[0], f[1], x, "v")
				}
			}
			if f[0] == f[1] && !p.opts.DropSelfLoops {
				return selfLoopError(lr, f[0])
			}
			if err := b.AddEdge(f[0], f[1], el); err != nil {
				return lr.wrap(err)
			}
			ne++
			return nil
		}
		var err error
		done, err = other(line)
		return err
	}
	// slow reads the data lines of a block from the from-th on, line by line.
	slow := func(blk *lineBlock, from int) error {
		for pl := range lr.records(blk, from) {
			if err := line(pl); err != nil {
				return err
			}
		}
		return nil
	}
	sized := false
	for blk, err := range lr.blocks(p.comments, fastVE(p.comments, p.maxVertexFields), parseVE) {
		if err != nil {
			return nil, err
		}
		if !blk.fast || (done && blk.dataLines > 0) {
			if err := slow(blk, 0); err != nil {
				return nil, err
			}
			continue
		}
		if len(blk.vids) > 0 {
			dup, err := b.NewVertices(blk.vids, blk.vlabels)
			if err != nil {
				return nil, &InputError{Path: lr.path, Line: blk.first + int(blk.firstData), Msg: err.Error(), Err: err}
			}
			if dup >= 0 {
				nv += int64(dup)
				if err := slow(blk, dup); err != nil {
					return nil, err
				}
				continue
			}
			nv += int64(len(blk.vids))
		}
		pairs := blk.pairs
		if len(pairs) == 0 {
			continue
		}
		if !sized {
			sized = true
			if !lr.useStorage(b, blk, pairs) {
				// Room for the edges the header declares (twice as many lines when a file
				// lists both directions: the edges then grow once), within what the file can
				// hold.
				limit := int64(1 << 20)
				if size := inputSize(p.r); size > 0 {
					limit = size / 6 // "e u v\n" takes at least 6 bytes
				}
				b.Grow(int(min(p.wantE, limit)))
			}
		}
		missing, err := b.MissingVertex(pairs, blk.maxID)
		if err != nil {
			return nil, &InputError{Path: lr.path, Line: blk.first + int(blk.firstData), Msg: err.Error(), Err: err}
		}
		if missing >= 0 {
			k := missing / 2
			labels := blk.edgeLabels()
			if labels != nil {
				labels = labels[:k]
			}
			b.AddEdgePairs(pairs[:2*k], labels, blk.maxID)
			ne += int64(k)
			if err := slow(blk, len(blk.vids)+k); err != nil {
				return nil, err
			}
			continue
		}
		b.AddEdgePairs(pairs, blk.edgeLabels(), blk.maxID)
		ne += int64(len(pairs) / 2)
	}
	if text := lr.takeText(); text != nil {
		b.UseScratch(text)
	}
	hdr := &InputError{Path: lr.path, Line: p.headerLine}
	if nv != p.wantV {
		hdr.Msg = "header declares " + itoa(p.wantV) + " vertices, found " + itoa(nv) + " vertex lines"
		return nil, hdr
	}
	g, err := buildLocating(b, lr.path, p.opts, rescanEdges(p.r, lr.path, p.comments, parseVE, func(l *lineFields) (int64, int64, uint32, bool) {
		if l.kind != 'e' || !l.ok || l.n < 2 {
			return 0, 0, 0, false
		}
		var el uint32
		if l.n == 3 {
			el, _ = label(l.f[2])
		}
		return l.f[0], l.f[1], el, true
	}))
	if err != nil {
		return nil, err
	}
	dropped := int64(b.SelfLoopsDropped)
	if m := int64(g.NumEdges()); p.wantE != ne && p.wantE != m && p.wantE != ne-dropped {
		hdr.Msg = "header declares " + itoa(p.wantE) + " edges, found " + itoa(ne) + " edge lines (" + itoa(m) + " distinct edges)"
		return nil, hdr
	}
	return g, nil
}

// parseVE parses a `v` or `e` line (kind 'v' or 'e': the integers after the letter); any other
// line keeps kind 0.
func parseVE(line []byte, l *lineFields) {
	if kind := line[0]; (kind == 'v' || kind == 'e') && len(line) > 1 && isSpace(line[1]) {
		t := tokens{s: line[2:]}
		l.kind = kind
		l.n, l.ok = t.ints(l.f[:])
	}
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }
