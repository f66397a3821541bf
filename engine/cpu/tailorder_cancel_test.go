package cpu

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/internal/proptest"
	"github.com/submatch/submatch/pattern"
)

// TestTailOrderScreeningCancelled cancels counts whose tail orders are screened (a wheel and a
// octahedron on a dense graph of 300 vertices, predicted far above tailOrderMinSeconds) at deadlines
// from before the screening to after it: every count is reported partial with the deadline's
// error, none as a complete count; the plan chosen without a deadline is chosen again.
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
			if again := choosePlan(context.Background(), prob, pl); again.plan.Describe() != c.plan.Describe() || again.divisor != c.divisor {
				t.Errorf("%s %v: a second choice differs:\n%s\nthen\n%s", src, sem, c.plan.Describe(), again.plan.Describe())
			}
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

// TestUniqueByEmbeddingsOverflow counts the unique books of 13 pages (an edge a-b and 13 common
// neighbours; |Aut| = 2·13!) in a book of 40 pages through the embeddings plan (forced, tail
// orders forced too): the embeddings, 2·40!/27! ≈ 1.5e20, overflow 64 bits, the unique matches,
// C(40, 13) = 12,033,222,880, do not, and must be counted (the unique plan), not reported as an
// overflow or as a wrapped quotient. The embeddings themselves are an overflow error.
func TestUniqueByEmbeddingsOverflow(t *testing.T) {
	defer func(m, u int) { tailOrderMode, uniqueByEmbeddingsMode = m, u }(tailOrderMode, uniqueByEmbeddingsMode)
	tailOrderMode, uniqueByEmbeddingsMode = 1, 1
	b := graph.NewBuilder(graph.BuilderOptions{})
	must(t, b.AddEdge(0, 1, 0))
	for i := range int64(40) {
		must(t, b.AddEdge(0, 2+i, 0))
		must(t, b.AddEdge(1, 2+i, 0))
	}
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	src := "(a)-(b)"
	for i := range 13 {
		src += fmt.Sprintf(", (a)-(c%d), (b)-(c%d)", i, i)
	}
	p, err := pattern.Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	before := uniqueByEmbeddingsUsed.Load()
	for _, threads := range []int{1, 2} {
		res, err := Engine{}.Count(context.Background(), &engine.Problem{Data: g, Pattern: p, Semantics: engine.Semantics{Unique: true}, Threads: threads})
		if err != nil || res.Partial || res.Count != 12_033_222_880 {
			t.Errorf("threads %d: unique Count = %d (partial %v), %v; want 12033222880", threads, res.Count, res.Partial, err)
		}
		res, err = Engine{}.Count(context.Background(), &engine.Problem{Data: g, Pattern: p, Threads: threads})
		if !errors.Is(err, engine.ErrOverflow) {
			t.Errorf("threads %d: embeddings Count = %d, %v; want ErrOverflow", threads, res.Count, err)
		}
	}
	if uniqueByEmbeddingsUsed.Load() == before {
		t.Error("no unique count took the embeddings plan")
	}
}
