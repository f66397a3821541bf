package pattern

import (
	"fmt"
	"strings"
	"testing"
)

// describe renders a pattern by vertex index (labels, names, sorted edges) for comparisons.
func describe(p *Pattern) string {
	var b strings.Builder
	for u := 0; u < p.NumVertices(); u++ {
		fmt.Fprintf(&b, "%d:%s:%s ", u, p.names[u], p.VertexLabel(u))
	}
	b.WriteString("|")
	for u := 0; u < p.NumVertices(); u++ {
		for v := u + 1; v < p.NumVertices(); v++ {
			if l, ok := p.EdgeLabel(u, v); ok {
				fmt.Fprintf(&b, " %d-%d:%s", u, v, l)
			}
		}
	}
	return b.String()
}

func TestParseValid(t *testing.T) {
	tests := []struct {
		in   string
		want string
	}{
		{"(a)", "0:a:* |"},
		{"()", "0::* |"},
		{"(:3)", "0::3 |"},
		{"(a:*)", "0:a:* |"},
		{"(a:3)-(b:5)-(c:3)-(a), (b)-[:2]-(d)", "0:a:3 1:b:5 2:c:3 3:d:* | 0-1:* 0-2:* 1-2:* 1-3:2"},
		{"(a)--(b)", "0:a:* 1:b:* | 0-1:*"},
		{"(a)-[]-(b)", "0:a:* 1:b:* | 0-1:*"},
		{"(a)-[:*]-(b)", "0:a:* 1:b:* | 0-1:*"},
		{"(a)-[:0]-(b)", "0:a:* 1:b:* | 0-1:0"},
		{"  ( a : 7 ) - [ : 4294967295 ] - ( b )\n,\t(c) ", "0:a:7 1:b:* 2:c:* | 0-1:4294967295"},
		{"(a)-(b), (b:2)", "0:a:* 1:b:2 | 0-1:*"},
		{"(a:2)-(b), (a:2)", "0:a:2 1:b:* | 0-1:*"},
		{"(a)-(b), (b)-(a)", "0:a:* 1:b:* | 0-1:*"},
		{"(a)-[:1]-(b), (b)-[:1]-(a)", "0:a:* 1:b:* | 0-1:1"},
		{"()-()-()", "0::* 1::* 2::* | 0-1:* 1-2:*"},
		{"(:1)-(x)-(:1)", "0::1 1:x:* 2::1 | 0-1:* 1-2:*"},
		{"(_x9)-(Y_)", "0:_x9:* 1:Y_:* | 0-1:*"},
		{"(a:007)", "0:a:7 |"},
	}
	for _, tc := range tests {
		p, err := Parse(tc.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", tc.in, err)
			continue
		}
		if got := describe(p); got != tc.want {
			t.Errorf("Parse(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"", `pattern:1:1: expected "(" got end of input`},
		{"(a)-(b)-(c", `pattern:1:11: expected ")" got end of input`},
		{"(a:3)-(b:5)-(c-)", `pattern:1:15: expected ")" got "-"`},
		{"(a)->(b)", "pattern:1:5: directed edges (\">\") are not supported: patterns are undirected"},
		{"(a)<-(b)", "pattern:1:4: directed edges (\"<\") are not supported: patterns are undirected"},
		{"(a)-[:1]->(b)", "pattern:1:10: directed edges"},
		{"(a)-->(b)", "pattern:1:6: directed edges"},
		{"(a)-(a)", "pattern:1:4: self-loop on vertex a"},
		{"(a)-(b)-(a)-(b)", ""}, // fine: same edge twice
		{"(a:1)-(a:2)", "pattern:1:10: vertex a given two labels, 1 and 2"},
		{"(a:1), (a:*)", "pattern:1:11: vertex a given two labels, 1 and *"},
		{"(a)-[:1]-(b), (b)-[:2]-(a)", "pattern:1:18: edge b-a given two labels, 1 and 2"},
		{"(a)-[:1]-(b), (a)-(b)", "pattern:1:18: edge a-b given two labels, 1 and *"},
		{"(a:4294967296)", "pattern:1:4: label 4294967296 is out of range (0..4294967295)"},
		{"(a:-1)", `pattern:1:4: expected a label (an integer or "*") got "-"`},
		{"(a:)", `pattern:1:4: expected a label (an integer or "*") got ")"`},
		{"(a),", `pattern:1:5: expected "(" got end of input`},
		{"(a)(b)", `pattern:1:4: expected ",", "-" or end of input got "("`},
		{"(a) x", `pattern:1:5: expected ",", "-" or end of input got "x"`},
		{"(1a)", `pattern:1:2: expected ")" got "1"`},
		{"(a)-[b]-(c)", `pattern:1:6: expected ":" or "]" got "b"`},
		{"(a)-[:1](c)", `pattern:1:9: expected "-" got "("`},
		{"(é)", `pattern:1:2: expected ")" got "é"`},
		{"(a)-\n(b)-\n  (b)", "pattern:2:4: self-loop on vertex b"}, // the position of the edge
	}
	for _, tc := range tests {
		_, err := Parse(tc.in)
		if tc.want == "" {
			if err != nil {
				t.Errorf("Parse(%q): unexpected error %v", tc.in, err)
			}
			continue
		}
		if err == nil {
			t.Errorf("Parse(%q): no error, want %q", tc.in, tc.want)
			continue
		}
		if !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("Parse(%q): error %q, want prefix %q", tc.in, err, tc.want)
		}
	}
}

func TestParseMaxVertices(t *testing.T) {
	var parts []string
	for i := 0; i < MaxVertices; i++ {
		parts = append(parts, "()")
	}
	s := strings.Join(parts, "-")
	p, err := Parse(s)
	if err != nil || p.NumVertices() != MaxVertices || p.NumEdges() != MaxVertices-1 {
		t.Fatalf("Parse(32-vertex path): %v", err)
	}
	_, err = Parse(s + "-(x)")
	want := fmt.Sprintf("pattern:1:%d: pattern has more than 32 vertices", len(s)+2)
	if err == nil || err.Error() != want {
		t.Fatalf("Parse(33-vertex path): error %v, want %q", err, want)
	}
	// Mentioning an existing variable again does not count.
	if _, err := Parse("(a)" + strings.Repeat("-()-(a)", 31)); err != nil {
		t.Fatalf("Parse(star): %v", err)
	}
}

// sameByIndex reports whether p and q have the same vertex labels and the same labelled edges,
// vertex for vertex.
func sameByIndex(p, q *Pattern) bool {
	if p.NumVertices() != q.NumVertices() || p.NumEdges() != q.NumEdges() {
		return false
	}
	return sameUnder(p, q, func(u int) int { return u })
}

// sameUnder reports whether vertex u of p corresponds to vertex m(u) of q (labels and edges).
func sameUnder(p, q *Pattern, m func(int) int) bool {
	for u := 0; u < p.NumVertices(); u++ {
		if p.VertexLabel(u) != q.VertexLabel(m(u)) {
			return false
		}
		for w := u + 1; w < p.NumVertices(); w++ {
			l1, ok1 := p.EdgeLabel(u, w)
			l2, ok2 := q.EdgeLabel(m(u), m(w))
			if ok1 != ok2 || l1 != l2 {
				return false
			}
		}
	}
	return true
}

// legacyName is the variable name the current (*Pattern).String() prints for vertex u: its name
// when that is an identifier, else v<index>. Names are not made unique.
func legacyName(p *Pattern, u int) string {
	if p.names != nil && p.names[u] != "" {
		ok := true
		for i, c := range p.names[u] {
			if !(c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (i > 0 && c >= '0' && c <= '9')) {
				ok = false
			}
		}
		if ok {
			return p.names[u]
		}
	}
	return fmt.Sprintf("v%d", u)
}

// roundTrip parses p.String() and fails the test unless it reproduces p exactly (same vertex
// numbering, labels, edges, and the names of vertices whose names are distinct identifiers).
func roundTrip(t *testing.T, p *Pattern) {
	t.Helper()
	s := p.String()
	q, err := Parse(s)
	if err == nil && sameByIndex(p, q) {
		count := map[string]int{}
		for u := 0; u < p.NumVertices(); u++ {
			count[legacyName(p, u)]++
		}
		for u := 0; u < p.NumVertices(); u++ {
			if n := legacyName(p, u); p.names != nil && n == p.names[u] && count[n] == 1 && q.names[u] != n {
				t.Fatalf("String() = %q renames vertex %d from %s to %s", s, u, n, q.names[u])
			}
		}
		if s2 := q.String(); s2 != s && p.names != nil && sameNames(p, q) {
			t.Fatalf("String() is not stable: %q re-parses and prints as %q", s, s2)
		}
		return
	}
	if err != nil {
		t.Fatalf("String() = %q does not re-parse: %v", s, err)
	}
	t.Fatalf("String() = %q re-parses to a different pattern:\n got  %s\n want %s", s, describe(q), describe(p))
}

func sameNames(p, q *Pattern) bool {
	for u := 0; u < p.NumVertices(); u++ {
		if p.names[u] != q.names[u] {
			return false
		}
	}
	return true
}

// TestStringRoundTrip: Parse(p.String()) is p, names and vertex order included, also for
// anonymous vertices next to names like "v1" and vertices mentioned out of index order (both
// were String() bugs once).
func TestStringRoundTrip(t *testing.T) {
	for _, s := range []string{
		"(a)",
		"(a:3)-(b:5)-(c:3)-(a), (b)-[:2]-(d)",
		"(a:1)-[:0]-(b:*)-[:7]-(c), (d:4), (e)",
		"(x)-(y), (z)-(w)",
		"(a)-(b)-(c)-(d)-(a)-(c), (b)-(d)",
		// Anonymous vertices, isolated ones, and vertices first mentioned out of index order.
		"()-(:3)-()",
		"(a), (b)-(c)",
		"(a)-(b), (c), (b)-(d)",
		"(a), (b)-(c)-(a)",
		"(v1), ()",
		"(v0)-(), (v1)",
	} {
		p, err := Parse(s)
		if err != nil {
			t.Fatalf("Parse(%q): %v", s, err)
		}
		roundTrip(t, p)
	}
	// Patterns built with New: nil names, non-identifier names, repeated names.
	for _, names := range [][]string{nil, {"10", "x", "-"}, {"a", "a", "b"}} {
		p, err := New([]Label{Exact(1), Wildcard, Exact(2)}, []Edge{{2, 1, Exact(4)}, {0, 2, Wildcard}}, names)
		if err != nil {
			t.Fatal(err)
		}
		roundTrip(t, p)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"(a:3)-(b:5)-(c:3)-(a), (b)-[:2]-(d)",
		"(a)--(b)", "(a)-[]-(b)", "()-(:1)", "(a)->(b)", "(a)<-(b)", "(a)-(a)",
		"(a:1)-(a:2)", "(a:4294967296)", "(a),", "(x)-[:*]-(y), (z:*)", "(é)", "(a)-\n(b)",
		"(v1), ()",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := Parse(s)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "pattern:") {
				t.Fatalf("Parse(%q): error without position: %v", s, err)
			}
			return
		}
		if p.NumVertices() < 1 || p.NumVertices() > MaxVertices {
			t.Fatalf("Parse(%q): %d vertices", s, p.NumVertices())
		}
		roundTrip(t, p)
	})
}
