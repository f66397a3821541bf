package quote

import (
	"strings"
	"testing"
)

func TestLine(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"1 2 x", `"1 2 x"`},
		{"a\x00b", `"a\x00b"`},
		{strings.Repeat("7", 81), `"` + strings.Repeat("7", 80) + `"...`},
		{strings.Repeat("7", 80), `"` + strings.Repeat("7", 80) + `"`},
	} {
		if got := Line(c.in); got != c.want {
			t.Errorf("Line(%q) = %s, want %s", c.in, got, c.want)
		}
	}
}
