package sgsi_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/engine/sgsi"
	"github.com/submatch/submatch/formats"
	"github.com/submatch/submatch/pattern"
)

// A row whose leaf factors overflow uint64 before a later factor that is 0 counts 0, not an
// overflow error (review rev22): hub 0 has 1,000 neighbours of label X, which twenty leaves of
// label X place in about 10^60 ways, and one of label Y, which the pattern's two leaves of label
// Y cannot share (a factor 0 for the hub's row); vertex 1 has 1,000 neighbours of label Y but one
// of label X. Both leaf classes have about 1,000 candidates, and X and Y are swapped, so that the
// zero class comes after the overflowing one in one of the two. The true count is 0.
func TestLeafOverflowBeforeZero(t *testing.T) {
	for _, xy := range [][2]int{{1, 2}, {2, 1}} {
		x, y := xy[0], xy[1]
		var b strings.Builder
		fmt.Fprintf(&b, "t 2004 2002\nv 0 0\nv 1 0\n")
		for i := 2; i < 1002; i++ {
			fmt.Fprintf(&b, "v %d %d\n", i, x)
		}
		for i := 1002; i < 2002; i++ {
			fmt.Fprintf(&b, "v %d %d\n", i, y)
		}
		fmt.Fprintf(&b, "v 2002 %d\nv 2003 %d\n", y, x)
		for i := 2; i < 1002; i++ {
			fmt.Fprintf(&b, "e 0 %d\n", i)
		}
		for i := 1002; i < 2002; i++ {
			fmt.Fprintf(&b, "e 1 %d\n", i)
		}
		fmt.Fprintf(&b, "e 0 2002\ne 1 2003\n")
		g, err := formats.Read(context.Background(), strings.NewReader(b.String()), "sm", formats.Options{})
		if err != nil {
			t.Fatal(err)
		}
		var parts []string
		for i := range 20 {
			parts = append(parts, fmt.Sprintf("(c:0)-(l%d:%d)", i, x))
		}
		parts = append(parts, fmt.Sprintf("(c)-(y0:%d), (c)-(y1:%d)", y, y))
		p, err := pattern.Parse(strings.Join(parts, ", "))
		if err != nil {
			t.Fatal(err)
		}
		res, err := sgsi.Engine{Options: sgsi.Options{Host: true}}.Count(context.Background(), &engine.Problem{Data: g, Pattern: p})
		if err != nil || res.Count != 0 {
			t.Errorf("X=%d Y=%d: count %d, error %v; want 0 and no error", x, y, res.Count, err)
		}
	}
}
