package stmatch

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/engine/cpu"
	"github.com/submatch/submatch/internal/proptest"
	"github.com/submatch/submatch/internal/sharedtest"
	"github.com/submatch/submatch/pattern"
	"github.com/submatch/submatch/plan"
)

// q20 is STMatch's q20 (a dense 7-vertex pattern whose order search takes a few hundred
// milliseconds on wiki-Vote).
const q20 = "(a)-(b), (a)-(c), (a)-(d), (a)-(e), (a)-(f), (a)-(g), (b)-(c), (b)-(d), (b)-(e), (b)-(f), (b)-(g), (c)-(e), (c)-(f), (c)-(g), (d)-(e), (d)-(f), (d)-(g), (e)-(f)"

// cpuPlan is the CPU engine's plan of p: what --engine auto hands a prepared count.
func cpuPlan(t *testing.T, p *engine.Problem) *plan.Plan {
	t.Helper()
	opts, err := cpu.PlanOptions(p, false)
	if err != nil {
		t.Fatal(err)
	}
	base, err := plan.BuildContext(context.Background(), p.Data, p.Pattern, opts)
	if err != nil {
		t.Fatal(err)
	}
	return base
}

// TestPrepareCount: a prepared count (engine.Preparer, for --engine auto) builds, from the CPU
// engine's plan, the plan a count builds itself, and a released preparation stops its order
// search at once. (The random cases are too small for the order search, whose time budget makes
// its choice depend on the machine's load; TestGPUPrepareCount counts with it forced.)
func TestPrepareCount(t *testing.T) {
	ctx := context.Background()
	seeds, _ := proptest.Seeds(t, 12, 12)
	n := 0
	for oc := range proptest.WithOracleDense(seeds, nil) {
		p := &engine.Problem{Data: oc.G, Pattern: oc.P, Semantics: oc.Sem, Threads: 2}
		base := cpuPlan(t, p)
		var o Options
		pc := Engine{Options: o}.PrepareCount(ctx, p, base).(*preparedCount)
		<-pc.done
		pc.Release()
		if !pc.started {
			continue // a clique: nothing to prepare
		}
		direct := prepare(ctx, p, o, base)
		if pc.pr.err != nil || direct.err != nil || pc.pr.ferr != nil {
			t.Fatalf("seed %d: prepared: %v, %v; direct: %v", oc.Seed, pc.pr.err, pc.pr.ferr, direct.err)
		}
		if !plan.SameSearch(pc.pr.pl, direct.pl) {
			t.Errorf("seed %d %s: prepared order %v x%d, a count's own %v x%d", oc.Seed, oc.Sem,
				fullOrder(pc.pr.pl), pc.pr.pl.Multiplier, fullOrder(direct.pl), direct.pl.Multiplier)
		}
		n++
	}
	if n == 0 {
		t.Fatal("no case was prepared")
	}

	g := sharedtest.WikiVote(t)
	p, err := pattern.Parse(q20)
	if err != nil {
		t.Fatal(err)
	}
	prob := &engine.Problem{Data: g, Pattern: p}
	pc := Engine{}.PrepareCount(ctx, prob, nil).(*preparedCount)
	time.Sleep(5 * time.Millisecond)
	released := time.Now()
	pc.Release()
	select {
	case <-pc.done:
	case <-time.After(5 * time.Second):
		t.Fatal("the preparation went on 5 s after its release")
	}
	t.Logf("q20's preparation stopped %v after its release", time.Since(released))
	if !errors.Is(pc.pr.err, context.Canceled) {
		t.Errorf("released preparation: error %v (plan built: %v)", pc.pr.err, pc.pr.pl != nil)
	}
}

// TestGPUPrepareCount: counts from a preparation equal the oracle's, and --engine auto's count of
// q20 on wiki-Vote (prepared while the GPU starts) equals stmatch's own.
func TestGPUPrepareCount(t *testing.T) {
	needGPU(t)
	ctx := context.Background()
	seeds, _ := proptest.Seeds(t, 24, 12)
	n := 0
	for oc := range proptest.WithOracleDense(seeds, nil) {
		p := &engine.Problem{Data: oc.G, Pattern: oc.P, Semantics: oc.Sem}
		base := cpuPlan(t, p)
		res, err := Engine{Options: Options{searchAt: 1e-9}}.PrepareCount(ctx, p, base).Count(ctx)
		if err != nil || res.Partial || res.Count != oc.Want {
			t.Errorf("seed %d %s: prepared count %d (partial %v, error %v), oracle %d", oc.Seed, oc.Sem, res.Count, res.Partial, err, oc.Want)
		}
		n++
	}
	g := sharedtest.WikiVote(t)
	p, err := pattern.Parse(q20)
	if err != nil {
		t.Fatal(err)
	}
	prob := &engine.Problem{Data: g, Pattern: p}
	direct, err := Engine{}.Count(ctx, prob)
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	prepared, err := Engine{}.PrepareCount(ctx, prob, nil).Count(ctx)
	if err != nil || prepared.Count != direct.Count {
		t.Errorf("q20: prepared count %d (error %v), stmatch's own %d", prepared.Count, err, direct.Count)
	}
	t.Logf("%d random cases; q20 %d (prepared: %v)", n, prepared.Count, time.Since(t0))
}
