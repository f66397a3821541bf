package sgsi

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/submatch/submatch/engine"
	_ "github.com/submatch/submatch/engine/cpu"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/internal/testenv"
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
		r := &runner{ctx: ctx, be: gc, st: &st, s: newStore(g, 0), q: compileQuery(p), count: true,
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

// tableAudit is growthCounter checking each table the runner asks for: --memory holds what the
// runner has reserved (its shared and own host memory), and a growth that copies
// flushAt/growFlushFrac words or more spills an output larger than every earlier one of its
// level (the pending table was not joined because an output as large as the largest before
// still fitted). It cancels the count at the cut-th table (0: never) and counts the tables
// asked for after that.
type tableAudit struct {
	growthCounter
	t      *testing.T
	what   string
	outMax map[int]uint64 // per level: the largest output spilled into it so far
	big    int            // growths that copied flushAt/growFlushFrac words or more
	cut    int
	cancel context.CancelFunc
	tables int
	late   int // tables asked for after the cut
}

func (a *tableAudit) HostTable(level int, n, keep uint64) ([]uint32, error) {
	r := a.r
	if a.tables++; a.cut > 0 && a.tables > a.cut {
		a.late++
	}
	if held := r.hostShared() + r.hostOwn(); r.hostLimit > 0 && held > r.hostLimit {
		a.t.Errorf("%s: %d bytes held at a table of level %d, over --memory %d", a.what, held, level, r.hostLimit)
	}
	if keep > 0 && uint64(cap(a.tabs[level])) < n && keep >= r.flushAt/growFlushFrac {
		a.big++
		if n-keep <= a.outMax[level] {
			a.t.Errorf("%s: level %d grew copying %d words (flushAt/%d: %d) for an output of %d, the largest before %d", a.what, level, keep, growFlushFrac, r.flushAt/growFlushFrac, n-keep, a.outMax[level])
		}
	}
	a.outMax[level] = max(a.outMax[level], n-keep)
	tab, err := a.growthCounter.HostTable(level, n, keep)
	if a.tables == a.cut {
		a.cancel()
	}
	return tab, err
}

// TestTableGrowthRandom (review rev32 of sgsigrow) counts random walks on small labelled R-MAT
// graphs under every convention against the cpu engine with the host emulation, the region the
// layout or a part of it, --memory unbounded or one to seven times the layout (small pending
// tables: flushAt/8 a few words), buffers or not, the leaves counted or joined, one thread or
// two (tableAudit: memory, growths, Stats.TableCopied), then cuts each count at one of its
// tables: it returns the context's error, at most its count, and asks for no table after the
// cut. Without sgsigrow's join (the pending table joined at flushAt only) a growth copies
// flushAt/8 words or more for an output no larger than one before, and it fails.
func TestTableGrowthRandom(t *testing.T) {
	cpu, err := engine.Lookup("cpu")
	if err != nil {
		t.Fatal(err)
	}
	runs, big := 0, 0
	for seed := range uint64(testenv.Sweep(10, 60)) {
		rng := rand.New(rand.NewPCG(seed, 32))
		g, err := gen.RMAT(gen.RMATOptions{Scale: 7 + rng.IntN(2), EdgeFactor: 4 + rng.IntN(6), VertexLabels: 1 + rng.IntN(4), LabelDistribution: gen.ZipfLabels, Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		p, err := gen.RandomWalkQuery(g, 4+rng.IntN(2), seed, gen.QueryOptions{Density: gen.Density(rng.IntN(2))})
		if err != nil {
			continue
		}
		sem := engine.Semantics{Induced: rng.IntN(3) == 0, Unique: rng.IntN(2) == 0}
		want, err := cpu.Count(context.Background(), &engine.Problem{Data: g, Pattern: p, Semantics: sem})
		if err != nil {
			t.Fatal(err)
		}
		for _, div := range []uint64{1, 4, 16} {
			var limit uint64
			if rng.IntN(2) == 0 {
				limit = GraphBytes(g) + rng.Uint64N(6*GraphBytes(g))
			}
			buffered, joinLeaves, threads := rng.IntN(2) == 0, rng.IntN(2) == 0, 1+rng.IntN(2)
			tables := 0
			for _, cut := range []int{0, -1} {
				if cut < 0 { // (a table of the whole count's, at random)
					if tables < 2 {
						break
					}
					cut = 1 + rng.IntN(tables-1)
				}
				what := fmt.Sprintf("seed %d, %s, %v, 1/%d, --memory %d, cut %d", seed, p, sem, div, limit, cut)
				ctx, cancel := context.WithCancel(context.Background())
				var st Stats
				a := &tableAudit{growthCounter: growthCounter{HostBackend: NewHostBackend(GraphBytes(g) / div)}, t: t, what: what, outMax: map[int]uint64{}, cut: cut, cancel: cancel}
				r := &runner{ctx: ctx, be: a, st: &st, s: newStore(g, 0), q: compileQuery(p), count: true, hostLimit: limit,
					blockRows: DefaultBlockRows, blockSize: blockThreads, buffered: buffered, joinLeaves: joinLeaves, threads: threads}
				a.r = r
				err := r.run(sem.Induced, sem.Unique)
				cancel()
				if errors.Is(err, engine.ErrMemory) {
					break
				}
				if cut == 0 {
					runs++
					tables, big = a.tables, big+a.big
					if err != nil || r.total != want.Count {
						t.Errorf("%s: %d (%v), cpu %d", what, r.total, err, want.Count)
					}
				} else if !errors.Is(err, context.Canceled) || r.total > want.Count || a.late > 0 {
					t.Errorf("%s: %d (%v) after a cut, of %d; %d tables after the cut", what, r.total, err, want.Count, a.late)
				}
				if st.TableCopied != 4*a.copied {
					t.Errorf("%s: Stats.TableCopied %d bytes, the growths copied %d", what, st.TableCopied, 4*a.copied)
				}
			}
		}
	}
	t.Logf("%d counts, %d growths of flushAt/8 words or more", runs, big)
	if runs == 0 || big == 0 {
		t.Errorf("%d counts, %d growths of flushAt/8 words or more: the sweep tests too little", runs, big)
	}
}
