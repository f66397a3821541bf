package temporal

import (
	"errors"
	"strings"
	"testing"
)

// FuzzRead: event files never panic; a refused one is an *InputError naming the file; an accepted
// file's events have distinct endpoints (self-loops are dropped) and are in time order.
func FuzzRead(f *testing.F) {
	for _, s := range []string{"1 2 10\n2 3 20\n", "# c\n1,2,3\n", "1 1 5\n", "1 2\n", "a b c\n", "1 2 -5\n2 1 9999999999999\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		g, err := Read(strings.NewReader(s), "fuzz")
		if err != nil {
			var ie *InputError
			if !errors.As(err, &ie) || !strings.HasPrefix(err.Error(), "fuzz:") {
				t.Fatalf("error is not an InputError naming the file: %v", err)
			}
			return
		}
		for i, e := range g.Events {
			if e.Src == e.Dst {
				t.Fatalf("self-loop event %+v kept", e)
			}
			if i > 0 && e.Time < g.Events[i-1].Time {
				t.Fatalf("events out of time order at %d", i)
			}
		}
	})
}

// FuzzParse: patterns never panic, and an accepted one prints as it parses again.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"a->b", "a->b, b->c, c->a", "a->a", "", "a->b,", "x->y, y->x, x->y"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := Parse(s)
		if err != nil {
			return
		}
		if _, err := Parse(p.String()); err != nil {
			t.Fatalf("Parse(%q) prints as %q, which does not parse: %v", s, p.String(), err)
		}
	})
}
