package temporal

import (
	"fmt"
	"strings"
)

// MaxPatternEdges bounds a temporal pattern's length (and so its vertices).
const MaxPatternEdges = 16

// Pattern is a temporal pattern: a sequence of directed edges over vertices 0..K-1, matched in
// this order.
type Pattern struct {
	Names []string // vertex names, in order of first mention
	Edges [][2]int // (source, target) in match order
}

// K is the number of pattern vertices.
func (p *Pattern) K() int { return len(p.Names) }

// String writes the pattern in the syntax Parse reads: "a->b, b->c, c->a".
func (p *Pattern) String() string {
	parts := make([]string, len(p.Edges))
	for i, e := range p.Edges {
		parts[i] = p.Names[e[0]] + "->" + p.Names[e[1]]
	}
	return strings.Join(parts, ", ")
}

// Parse reads a temporal pattern: directed edges "u->v" separated by commas, in the order they
// must occur in time, e.g. "a->b, b->c, c->a". Vertex names are identifiers (letters, digits,
// underscores) or numbers; a vertex may be written in parentheses, "(a)->(b)". Self-loops and
// patterns of more than MaxPatternEdges edges are refused.
func Parse(s string) (*Pattern, error) {
	p := &Pattern{}
	index := map[string]int{}
	vertex := func(raw string, col int) (int, error) {
		name := strings.TrimSpace(raw)
		if strings.HasPrefix(name, "(") && strings.HasSuffix(name, ")") {
			name = strings.TrimSpace(name[1 : len(name)-1])
		}
		if name == "" {
			return 0, fmt.Errorf("temporal pattern %q: column %d: expected a vertex name", s, col)
		}
		for _, r := range name {
			if r != '_' && !(r >= 'a' && r <= 'z') && !(r >= 'A' && r <= 'Z') && !(r >= '0' && r <= '9') {
				return 0, fmt.Errorf("temporal pattern %q: column %d: vertex name %q: expected letters, digits or _", s, col, name)
			}
		}
		if v, ok := index[name]; ok {
			return v, nil
		}
		index[name] = len(p.Names)
		p.Names = append(p.Names, name)
		return len(p.Names) - 1, nil
	}
	col := 1
	for _, part := range strings.Split(s, ",") {
		arrow := strings.Index(part, "->")
		if arrow < 0 {
			return nil, fmt.Errorf("temporal pattern %q: column %d: expected an edge 'u->v'", s, col)
		}
		u, err := vertex(part[:arrow], col)
		if err != nil {
			return nil, err
		}
		v, err := vertex(part[arrow+2:], col+arrow+2)
		if err != nil {
			return nil, err
		}
		if u == v {
			return nil, fmt.Errorf("temporal pattern %q: column %d: self-loop %s->%s (events are between distinct vertices)", s, col, p.Names[u], p.Names[v])
		}
		p.Edges = append(p.Edges, [2]int{u, v})
		col += len(part) + 1
	}
	if len(p.Edges) > MaxPatternEdges {
		return nil, fmt.Errorf("temporal pattern %q: %d edges, at most %d are supported", s, len(p.Edges), MaxPatternEdges)
	}
	return p, nil
}
