package pattern

import (
	"fmt"
	"strconv"
	"unicode/utf8"
)

// Parse reads the inline Cypher-like syntax:
//
//	(a:3)-(b:5)-(c:3)-(a), (b)-[:2]-(d)
//
// A pattern is a comma-separated list of paths; a path is a node followed by any number of
// (edge, node) pairs. A node is "(" [variable] [":" label] ")"; an edge is "-", "--", "-[]-" or
// "-[:label]-". Labels are integers in 0..2^32-1, or "*" (or no label at all) for a wildcard.
// Variables are [A-Za-z_][A-Za-z0-9_]*; every mention of one variable is the same vertex, and it
// may be given a label at any mention (a second, different label is an error). An anonymous node
// "()" or "(:3)" is a fresh vertex. Whitespace may appear anywhere between tokens. Patterns are
// undirected: "->" and "<-" are refused. Errors name the position as "pattern:LINE:COLUMN"
// (COLUMN counts bytes from 1).
//
// Vertices are numbered in order of first mention; the variable names become the vertex names
// (anonymous vertices get the empty name).
func Parse(s string) (*Pattern, error) {
	ps := &parser{src: s, vars: map[string]int{}, edges: map[[2]int]int{}}
	if err := ps.parse(); err != nil {
		return nil, err
	}
	edges := make([]Edge, len(ps.edgeList))
	copy(edges, ps.edgeList)
	p, err := New(ps.labels, edges, ps.names)
	if err != nil {
		// Unreachable: every condition New checks is reported with a position above.
		return nil, fmt.Errorf("pattern: %w", err)
	}
	return p, nil
}

type tokKind int

const (
	tokEOF tokKind = iota
	tokPunct
	tokIdent
	tokInt
	tokBad
)

type token struct {
	kind tokKind
	text string
	pos  int // byte offset
}

func (t token) String() string {
	if t.kind == tokEOF {
		return "end of input"
	}
	return strconv.Quote(t.text)
}

type parser struct {
	src string
	off int
	tok token

	vars       map[string]int
	labels     []Label
	labelGiven []bool
	names      []string
	edgeList   []Edge
	edges      map[[2]int]int // edge key -> index in edgeList
}

func (ps *parser) errorf(pos int, format string, args ...any) error {
	line, col := 1, 1
	for i := 0; i < pos && i < len(ps.src); i++ {
		if ps.src[i] == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
	return fmt.Errorf("pattern:%d:%d: %s", line, col, fmt.Sprintf(format, args...))
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

func isIdentStart(c byte) bool { return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') }

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// next advances to the next token.
func (ps *parser) next() {
	for ps.off < len(ps.src) && isSpace(ps.src[ps.off]) {
		ps.off++
	}
	start := ps.off
	if start >= len(ps.src) {
		ps.tok = token{kind: tokEOF, pos: start}
		return
	}
	c := ps.src[start]
	switch {
	case isIdentStart(c):
		end := start + 1
		for end < len(ps.src) && (isIdentStart(ps.src[end]) || isDigit(ps.src[end])) {
			end++
		}
		ps.tok = token{kind: tokIdent, text: ps.src[start:end], pos: start}
	case isDigit(c):
		end := start + 1
		for end < len(ps.src) && isDigit(ps.src[end]) {
			end++
		}
		ps.tok = token{kind: tokInt, text: ps.src[start:end], pos: start}
	case c == '(' || c == ')' || c == '[' || c == ']' || c == ':' || c == ',' || c == '-' || c == '*' || c == '<' || c == '>':
		ps.tok = token{kind: tokPunct, text: ps.src[start : start+1], pos: start}
	default:
		_, size := utf8.DecodeRuneInString(ps.src[start:])
		ps.tok = token{kind: tokBad, text: ps.src[start : start+size], pos: start}
	}
	ps.off = start + len(ps.tok.text)
}

func (ps *parser) is(punct string) bool { return ps.tok.kind == tokPunct && ps.tok.text == punct }

func (ps *parser) expect(punct string) error {
	if !ps.is(punct) {
		return ps.errorf(ps.tok.pos, "expected %q got %s", punct, ps.tok)
	}
	ps.next()
	return nil
}

func (ps *parser) parse() error {
	ps.next()
	for {
		if err := ps.path(); err != nil {
			return err
		}
		if ps.tok.kind == tokEOF {
			return nil
		}
		if !ps.is(",") {
			if ps.is("<") || ps.is(">") {
				return ps.directed()
			}
			return ps.errorf(ps.tok.pos, "expected \",\", \"-\" or end of input got %s", ps.tok)
		}
		ps.next()
	}
}

func (ps *parser) directed() error {
	return ps.errorf(ps.tok.pos, "directed edges (%q) are not supported: patterns are undirected, use \"-\"", ps.tok.text)
}

func (ps *parser) path() error {
	u, err := ps.node()
	if err != nil {
		return err
	}
	for ps.is("-") || ps.is("<") {
		label, pos, err := ps.edge()
		if err != nil {
			return err
		}
		v, err := ps.node()
		if err != nil {
			return err
		}
		if err := ps.addEdge(u, v, label, pos); err != nil {
			return err
		}
		u = v
	}
	return nil
}

// edge parses "-", "--", "-[]-" or "-[:label]-" and returns the label and the edge's position.
func (ps *parser) edge() (Label, int, error) {
	pos := ps.tok.pos
	if ps.is("<") {
		return Label{}, 0, ps.directed()
	}
	ps.next() // "-"
	label := Wildcard
	switch {
	case ps.is(">") || ps.is("<"):
		return Label{}, 0, ps.directed()
	case ps.is("-"):
		ps.next()
	case ps.is("["):
		ps.next()
		if ps.is(":") {
			ps.next()
			l, err := ps.label()
			if err != nil {
				return Label{}, 0, err
			}
			label = l
		} else if !ps.is("]") {
			return Label{}, 0, ps.errorf(ps.tok.pos, "expected \":\" or \"]\" got %s (edges take only a label, as in -[:2]-)", ps.tok)
		}
		if err := ps.expect("]"); err != nil {
			return Label{}, 0, err
		}
		if ps.is(">") {
			return Label{}, 0, ps.directed()
		}
		if err := ps.expect("-"); err != nil {
			return Label{}, 0, err
		}
	}
	if ps.is(">") {
		return Label{}, 0, ps.directed()
	}
	return label, pos, nil
}

// label parses an integer label or "*".
func (ps *parser) label() (Label, error) {
	switch {
	case ps.is("*"):
		ps.next()
		return Wildcard, nil
	case ps.tok.kind == tokInt:
		v, err := strconv.ParseUint(ps.tok.text, 10, 32)
		if err != nil {
			return Label{}, ps.errorf(ps.tok.pos, "label %s is out of range (0..%d)", ps.tok.text, uint64(1<<32-1))
		}
		ps.next()
		return Exact(uint32(v)), nil
	}
	return Label{}, ps.errorf(ps.tok.pos, "expected a label (an integer or \"*\") got %s", ps.tok)
}

// node parses "(" [var] [":" label] ")" and returns the vertex index.
func (ps *parser) node() (int, error) {
	pos := ps.tok.pos
	if err := ps.expect("("); err != nil {
		return 0, err
	}
	name := ""
	if ps.tok.kind == tokIdent {
		name = ps.tok.text
		ps.next()
	}
	label, given := Wildcard, false
	labelPos := ps.tok.pos
	if ps.is(":") {
		ps.next()
		labelPos = ps.tok.pos
		l, err := ps.label()
		if err != nil {
			return 0, err
		}
		label, given = l, true
	}
	if err := ps.expect(")"); err != nil {
		return 0, err
	}
	if name != "" {
		if u, ok := ps.vars[name]; ok {
			if given {
				if ps.labelGiven[u] && ps.labels[u] != label {
					return 0, ps.errorf(labelPos, "vertex %s given two labels, %s and %s", name, ps.labels[u], label)
				}
				ps.labels[u], ps.labelGiven[u] = label, true
			}
			return u, nil
		}
	}
	if len(ps.labels) >= MaxVertices {
		return 0, ps.errorf(pos, "pattern has more than %d vertices", MaxVertices)
	}
	u := len(ps.labels)
	ps.labels = append(ps.labels, label)
	ps.labelGiven = append(ps.labelGiven, given)
	ps.names = append(ps.names, name)
	if name != "" {
		ps.vars[name] = u
	}
	return u, nil
}

func (ps *parser) addEdge(u, v int, label Label, pos int) error {
	if u == v {
		return ps.errorf(pos, "self-loop on vertex %s", ps.names[u])
	}
	key := edgeKey(u, v)
	if i, ok := ps.edges[key]; ok {
		if old := ps.edgeList[i].Label; old != label {
			return ps.errorf(pos, "edge %s-%s given two labels, %s and %s", ps.display(u), ps.display(v), old, label)
		}
		return nil
	}
	ps.edges[key] = len(ps.edgeList)
	ps.edgeList = append(ps.edgeList, Edge{U: u, V: v, Label: label})
	return nil
}

// display names vertex u in an error message.
func (ps *parser) display(u int) string {
	if ps.names[u] != "" {
		return ps.names[u]
	}
	return "#" + strconv.Itoa(u)
}
