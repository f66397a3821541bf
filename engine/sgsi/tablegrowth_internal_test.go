package sgsi

import (
	"context"
	"testing"

	"github.com/submatch/submatch/engine"
	_ "github.com/submatch/submatch/engine/cpu"
	"github.com/submatch/submatch/gen"
)

// growthCounter is HostBackend recording the growths of the pending tables that copy rows
// already spilled (keep > 0 into a larger table).
type growthCounter struct {
	*HostBackend
	r                 *runner
	growths, copied   uint64 // growths that copied, and the words they copied
	maxKeep, maxFlush uint64 // the most words one growth copied, and flushAt/growFlushFrac then
}

func (g *growthCounter) HostTable(level int, n, keep uint64) ([]uint32, error) {
	if keep > 0 && uint64(cap(g.tabs[level])) < n {
		g.growths++
		g.copied += keep
		if keep > g.maxKeep {
			g.maxKeep, g.maxFlush = keep, g.r.flushAt/growFlushFrac
		}
	}
	return g.HostBackend.HostTable(level, n, keep)
}

// TestTableGrowth counts a labelled random-walk query on R-MAT with buffers (its leaves joined,
// so that every level spills a table) in core and out of core, equal to the cpu engine, and
// checks how the pending tables grow (chunk): a growth copies only a table below
// flushAt/growFlushFrac words (a larger one is joined instead when another chunk's output as
// large as its largest would not fit), Stats.TableCopied is the bytes the growths copied, and
// the case makes tables large enough to reach that bound.
func TestTableGrowth(t *testing.T) {
	ctx := context.Background()
	g, err := gen.RMAT(gen.RMATOptions{Scale: 11, EdgeFactor: 8, VertexLabels: 4, LabelDistribution: gen.ZipfLabels, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	p, err := gen.RandomWalkQuery(g, 5, 7, gen.QueryOptions{Density: gen.Sparse})
	if err != nil {
		t.Fatal(err)
	}
	cpu, _ := engine.Lookup("cpu")
	want, err := cpu.Count(ctx, &engine.Problem{Data: g, Pattern: p})
	if err != nil {
		t.Fatal(err)
	}
	for _, words := range []uint64{GraphBytes(g), GraphBytes(g) / 16, GraphBytes(g) / 64} {
		f := GraphBytes(g) / 4 / words // the region as a part of GraphBytes (0: four times as large)
		var st Stats
		gc := &growthCounter{HostBackend: NewHostBackend(words)}
		r := &runner{ctx: ctx, be: gc, st: &st, s: newStore(g), q: compileQuery(p), count: true,
			blockRows: DefaultBlockRows, blockSize: blockThreads, buffered: true, joinLeaves: true}
		gc.r = r
		if err := r.run(false, false); err != nil {
			t.Fatalf("1/%d: %v", f, err)
		}
		if r.total != want.Count {
			t.Errorf("1/%d: %d, cpu %d", f, r.total, want.Count)
		}
		t.Logf("1/%d (in core %v): %d chunks, table peak %d bytes, %d growths copied %d words (the most %d, bound %d), flushAt %d",
			f, st.InCore, st.Chunks, st.PeakHost, gc.growths, gc.copied, gc.maxKeep, gc.maxFlush, r.flushAt)
		if gc.maxKeep >= max(gc.maxFlush, 1) {
			t.Errorf("1/%d: a growth copied %d words, over flushAt/growFlushFrac %d", f, gc.maxKeep, gc.maxFlush)
		}
		if st.TableCopied != 4*gc.copied {
			t.Errorf("1/%d: Stats.TableCopied %d bytes, the growths copied %d", f, st.TableCopied, 4*gc.copied)
		}
		if st.PeakHost < 4*r.flushAt/growFlushFrac {
			t.Errorf("1/%d: the tables peaked at %d bytes, below flushAt/growFlushFrac (%d words): the case tests no growth", f, st.PeakHost, r.flushAt/growFlushFrac)
		}
	}
}
