package sgsi

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/submatch/submatch/engine"
	_ "github.com/submatch/submatch/engine/cpu"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/internal/testenv"
	"github.com/submatch/submatch/pattern"
)

// keyedLeafPattern draws a pattern whose counted vertices need memos with key columns (a
// second level, sgsi12): a core of 3 to 5 vertices (a cycle, sometimes a chord), then vertices
// on two or three core vertices (groups of several parents; several of one label: a class of
// several groups; one of a closing vertex's label on other parents: a class of two groups), paths u - a - b and u - a_1 - a_2 - b closed on another core vertex (tails
// and chains with other parents, ws) and a leaf (closing vertices are counted beside one).
// Labels come from vlabels values (collisions with the row's vertices are common), paths
// sometimes take two labels of their own (no collision: the tails' and chains' memos).
func keyedLeafPattern(r *rand.Rand, vlabels int) string {
	var edges, lab []string
	label := func() string {
		if r.IntN(6) == 0 {
			return ""
		}
		return fmt.Sprintf(":%d", r.IntN(vlabels))
	}
	newV := func(l string) int { lab = append(lab, l); return len(lab) - 1 }
	edge := func(a, b int) { edges = append(edges, fmt.Sprintf("(v%d)-(v%d)", a, b)) }
	k := 3 + r.IntN(3)
	for i := range k {
		newV(fmt.Sprintf(":%d", r.IntN(vlabels)))
		if i > 0 {
			edge(i-1, i)
		}
	}
	edge(0, k-1)
	if k > 3 && r.IntN(2) == 0 {
		edge(0, 2)
	}
	other := func(u int) int { return (u + 1 + r.IntN(k-1)) % k }
	for range 1 + r.IntN(3) {
		u := r.IntN(k)
		switch r.IntN(4) {
		case 3: // a class of groups: a closing vertex on u and w, one of its label on u and
			// another core vertex (or a leaf on u)
			w, l := other(u), label()
			c := newV(l)
			edge(u, c)
			edge(w, c)
			d := newV(l)
			edge(u, d)
			if x := other(u); x != w {
				edge(x, d)
			}
		case 0: // closing vertices on two or three core vertices, one label
			w, l := other(u), label()
			for range 1 + r.IntN(2) {
				c := newV(l)
				edge(u, c)
				edge(w, c)
				if x := other(u); x != w && r.IntN(3) == 0 {
					edge(x, c)
				}
			}
		default: // a path of one or two inner vertices closed on another core vertex
			own := r.IntN(2) == 0
			prev := u
			for i := range 2 + r.IntN(2) {
				l := label()
				if own {
					l = fmt.Sprintf(":%d", vlabels+i%2)
				}
				v := newV(l)
				edge(prev, v)
				prev = v
			}
			edge(prev, other(u))
		}
	}
	edge(r.IntN(k), newV(label()))
	s := strings.Join(edges, ", ")
	for v := len(lab) - 1; v >= 0; v-- {
		s = strings.Replace(s, fmt.Sprintf("(v%d)", v), fmt.Sprintf("(v%d%s)", v, lab[v]), 1)
	}
	return s
}

// farSqueeze is HostBackend that, before each table of the leaf step, sets up the goroutines'
// leaf scratch, squeezes each memo's second level to 2 to 16 slots (keys that share a slot
// evict one another's values), its slots poisoned (poison), and, when letGo, brings each to
// the end of its farCheck reads (it is let go at its next read, mid-table, for want of hits).
type farSqueeze struct {
	*HostBackend
	r          *runner
	letGo      bool
	shift      uint // the second levels' least farShift (63: two slots)
	rng        *rand.Rand
	squeezed   int // memos squeezed
	prompted   int // second levels brought to the end of their farCheck reads
	leafTables int
}

func (f *farSqueeze) HostTable(level int, n, keep uint64) ([]uint32, error) {
	r := f.r
	if r != nil && level == len(r.q.steps) && keep == n { // (the leaf step's table, about to be counted)
		f.leafTables++
		for len(r.leafScratch) < max(1, r.threads) && r.newLeafScratch() == nil {
		}
		for _, sc := range r.leafScratch {
			for i := range sc.memos {
				f.squeeze(&sc.memos[i])
			}
			for i := range sc.classMemos {
				f.squeeze(&sc.classMemos[i])
			}
			for i := range sc.tails {
				f.squeeze(&sc.tails[i].memo)
			}
			for i := range sc.chains {
				c := &sc.chains[i]
				f.squeeze(&c.top)
				for j := range c.memos {
					f.squeeze(&c.memos[j])
				}
			}
		}
	}
	return f.HostBackend.HostTable(level, n, keep)
}

func (f *farSqueeze) squeeze(m *sizeMemo) {
	if m.farFull == nil {
		return
	}
	if m.farShift < f.shift {
		f.squeezed++
		m.farShift = f.shift
		f.poison(m)
	}
	if f.letGo {
		m.farTries, m.farHits = farCheck-1, 0
		f.prompted++
	}
}

// poison fills every slot of m's second level with values no count has (over 2^40) for a key
// no row has: real vertices but idx's, which no graph holds, or idx's a real vertex and one
// key column's not. A read that compares less than the whole key takes them.
func (f *farSqueeze) poison(m *sizeMemo) {
	nv := uint32(f.r.s.g.NumVertices())
	k := len(m.keyCols)
	for s := range len(m.farVals) / m.width {
		keys := m.farKeys[s*(k+1) : (s+1)*(k+1)]
		for j := range keys {
			keys[j] = f.rng.Uint32N(nv)
		}
		keys[f.rng.IntN(k+1)] = nv + f.rng.Uint32N(8)
		for j := range m.width {
			m.farVals[s*m.width+j] = 1<<40 + f.rng.Int64N(1<<20)
		}
		m.farFull[s/64] |= 1 << (s % 64)
	}
}

// TestLeafMemoFarRandom (review rev32 of sgsi12) counts keyedLeafPattern's patterns on small
// random graphs of few labels against the cpu engine, with the leaf step's memos as they are,
// with every second level squeezed to a few poisoned slots (farSqueeze: keys that share a
// slot evict one another, and a slot that another key, or no row's, holds is never read as
// the row's), and with every second level let go at its next read, mid-table; one thread or
// three, in a large region and in small tables (many leaf tables a count, the memos kept
// from one to the next), both conventions the leaf step counts. A read of the second level
// that compared less than the whole key (idx's vertex or a key column's), or took only a
// slot's first value, fails it.
func TestLeafMemoFarRandom(t *testing.T) {
	ctx := context.Background()
	cpu, err := engine.Lookup("cpu")
	if err != nil {
		t.Fatal(err)
	}
	squeezed, prompted, many := 0, 0, 0
	var hits [2]uint64 // the second levels' hits as they are, and squeezed
	for seed := range uint64(testenv.Sweep(24, 400)) {
		rng := rand.New(rand.NewPCG(seed, 21))
		vl := 1 + rng.IntN(2)
		src := keyedLeafPattern(rng, vl)
		p, err := pattern.Parse(src)
		if err != nil {
			t.Fatalf("seed %d: %s: %v", seed, src, err)
		}
		g := gen.RandomGraph(seed, 24+rng.IntN(24), 0.2+0.1*rng.Float64(), vl+2, 0)
		for _, sem := range []engine.Semantics{{}, {Unique: true}} {
			want, err := cpu.Count(ctx, &engine.Problem{Data: g, Pattern: p, Semantics: sem})
			if err != nil {
				t.Fatal(err)
			}
			for mode := range 3 {
				words := uint64(1 << 20)
				if rng.IntN(2) == 0 {
					words = 2000 + uint64(rng.IntN(2000)) // (small tables: many leaf tables)
				}
				var st Stats
				fs := &farSqueeze{HostBackend: NewHostBackend(words), letGo: mode == 2, shift: 64 - 1 - uint(rng.IntN(4)), rng: rng}
				r := &runner{ctx: ctx, be: fs, st: &st, s: newStore(g, 0), q: compileQuery(p), count: true,
					blockRows: DefaultBlockRows, blockSize: blockThreads, threads: 1 + 2*rng.IntN(2), coreOrder: rng.IntN(2) == 0}
				if mode > 0 { // (else no squeeze: the memos as they are)
					fs.r = r
				}
				err := r.run(sem.Induced, sem.Unique)
				if errors.Is(err, engine.ErrMemory) {
					continue
				}
				if err != nil || r.total != want.Count {
					t.Errorf("seed %d: %s, %v, mode %d, region %d words, %d threads: sgsi %d (%v), cpu %d", seed, src, sem, mode, words, r.threads, r.total, err, want.Count)
				}
				if mode < 2 {
					hits[mode] += farHits(r)
				}
				squeezed += fs.squeezed
				prompted += fs.prompted
				if len(st.PerStep) > st.Steps && fs.leafTables > 1 {
					many++
				}
			}
		}
	}
	t.Logf("%d memos squeezed, %d prompts to let go, %d counts of several leaf tables, second levels' hits %v (as they are, squeezed)", squeezed, prompted, many, hits)
	if squeezed == 0 || prompted == 0 || many == 0 || hits[0] == 0 || hits[1] == 0 {
		t.Errorf("%d memos squeezed, %d let go, %d counts of several leaf tables, hits %v: the case tests too little", squeezed, prompted, many, hits)
	}
}

// farHits is the hits of r's memos' second levels (since their last farCheck reads).
func farHits(r *runner) uint64 {
	var n uint64
	add := func(m *sizeMemo) { n += uint64(m.farHits) }
	for _, sc := range r.leafScratch {
		for i := range sc.memos {
			add(&sc.memos[i])
		}
		for i := range sc.classMemos {
			add(&sc.classMemos[i])
		}
		for i := range sc.tails {
			add(&sc.tails[i].memo)
		}
		for i := range sc.chains {
			add(&sc.chains[i].top)
			for j := range sc.chains[i].memos {
				add(&sc.chains[i].memos[j])
			}
		}
	}
	return n
}
