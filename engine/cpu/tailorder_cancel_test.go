package cpu

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/internal/proptest"
	"github.com/submatch/submatch/pattern"
)

// TestTailOrderScreeningCancelled cancels counts whose tail orders are screened (a wheel and a
// octahedron on a dense graph of 300 vertices, predicted far above tailOrderMinSeconds) at deadlines
// from before the screening to after it: every count is reported partial with the deadline's
// error, none as a complete count.
func TestTailOrderScreeningCancelled(t *testing.T) {
	g := gen.RandomGraph(1, 300, 0.5, 1, 1)
	for _, src := range []string{
		"(h)-(a), (h)-(b), (h)-(c), (h)-(d), (h)-(e), (a)-(b), (b)-(c), (c)-(d), (d)-(e), (e)-(a)",
		"(a)-(b), (a)-(c), (a)-(e), (a)-(f), (b)-(c), (b)-(d), (b)-(f), (c)-(d), (c)-(e), (d)-(e), (d)-(f), (e)-(f)",
	} {
		p, err := pattern.Parse(src)
		if err != nil {
			t.Fatal(err)
		}
		for _, sem := range []engine.Semantics{{}, {Unique: true}} {
			prob := &engine.Problem{Data: g, Pattern: p, Semantics: sem, Threads: 2}
			pl, err := buildPlan(context.Background(), prob, false)
			if err != nil {
				t.Fatal(err)
			}
			t0 := time.Now()
			c := choosePlan(context.Background(), prob, pl)
			full := time.Since(t0)
			t.Logf("%s %v: choosePlan %v, %q", src, sem, full, c.note)
			for _, frac := range []float64{0, 0.1, 0.3, 0.5, 0.7, 0.9, 1.2} {
				ctx, cancel := context.WithTimeout(context.Background(), time.Duration(frac*float64(full)))
				start := time.Now()
				res, err := Engine{}.CountPlan(ctx, prob, pl, 0)
				took := time.Since(start)
				cancel()
				proptest.CheckStopped(t, fmt.Sprintf("%s %v at %.1f of the choice", src, sem, frac), took, 5*time.Second, res, err, context.DeadlineExceeded)
			}
		}
	}
}
