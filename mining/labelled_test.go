package mining

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/gpu"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/internal/cudahost"
	"github.com/submatch/submatch/internal/oracle"
	"github.com/submatch/submatch/pattern"
)

// TestLabelledCensus checks every labelled class against the oracle matcher (its pattern read
// back from the printed inline form), and the classes of each shape against the unlabelled census.
func TestLabelledCensus(t *testing.T) {
	for seed := range uint64(6) {
		g := gen.RandomGraph(seed+200, 9+int(seed%3), []float64{0.35, 0.6}[seed%2], 2+int(seed%2), 1)
		for k := 3; k <= 5; k++ {
			lm, err := CountLabelled(context.Background(), g, Options{K: k})
			if err != nil {
				t.Fatal(err)
			}
			sums := map[uint64][2]uint64{}
			for _, m := range lm {
				p, err := pattern.Parse(m.Pattern)
				if err != nil {
					t.Fatalf("%q: %v", m.Pattern, err)
				}
				ni := oracle.Count(g, p, engine.Semantics{Unique: true})
				in := oracle.Count(g, p, engine.Semantics{Unique: true, Induced: true})
				emb := oracle.Count(g, p, engine.Semantics{})
				if m.NonInduced != ni || m.Induced != in || m.NonInduced*m.Automorphisms != emb {
					t.Errorf("seed %d %s %q: %d %d (aut %d), oracle %d %d (embeddings %d)", seed, m.Name, m.Pattern, m.NonInduced, m.Induced, m.Automorphisms, ni, in, emb)
				}
				s := sums[m.Shape.Code()]
				sums[m.Shape.Code()] = [2]uint64{s[0] + m.NonInduced, s[1] + m.Induced}
			}
			c, err := Count(context.Background(), g, Options{K: k})
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range c.Motifs {
				if s := sums[m.Shape.Code()]; s != [2]uint64{m.NonInduced, m.Induced} {
					t.Errorf("seed %d k=%d %s: labelled classes sum to %v, census %d %d", seed, k, m.Name, s, m.NonInduced, m.Induced)
				}
			}
		}
	}
}

// labelledMain drives census_labelled on the host (package cudahost). par: out-edges, k, size,
// then hash, res, mod. Dense (hash 0): it prints the tally of size entries. Hashed: a table of
// size slots over the keys in residue res modulo mod, printed as "full F", "keys ..." (8 words a
// slot) and "counts ...". Then the same with the stop flag raised (which must leave before its
// first root).
const labelledMain = `
int main() {
    u32 stopw = 0; u64 ctl[2] = {0, 0};
    auto off = Read<u64>(); auto nbr = Read<u32>(); auto eu = Read<u32>(); auto ep = Read<u32>();
    auto lab = Read<u32>(); auto par = Read<u64>();
    u32 nout = (u32)par[0]; int k = (int)par[1]; size_t size = par[2];
    bool hash = par[3] != 0; u32 res = (u32)par[4], mod = (u32)par[5];
    for (int pass = 0; pass < 2; ++pass) {
        std::vector<u64> table(size, 0);
        std::vector<u32> keys(hash ? 8 * size : 0, 0);
        u32 hctl[2] = {0, 0};
        stopw = pass;
        Launch(5, 1, census_labelled, off.data(), nbr.data(), eu.data(), ep.data(), nout, k, lab.data(), table.data(), (u64)size,
               hash ? keys.data() : (u32*)0, res, mod, hash ? hctl : (u32*)0, &stopw, ctl);
        if (hash) {
            printf("full %u\n", hctl[1]);
            printf("keys");
            for (size_t i = 0; i < keys.size(); ++i) printf(" %u", keys[i]);
            printf("\n");
        }
        printf("table");
        for (size_t i = 0; i < size; ++i) printf(" %llu", (unsigned long long)table[i]);
        printf("\n");
    }
}
`

// checkClasses compares the classes lc found (from a host kernel's tally) with the CPU's labelled
// census of g.
func checkClasses(t *testing.T, lc *labelledCensus, g *graph.Graph, label string) {
	t.Helper()
	got, err := lc.finish()
	if err != nil {
		t.Fatal(err)
	}
	want, err := CountLabelled(context.Background(), g, Options{K: lc.k})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("%s: host kernel\n%v\nCPU\n%v", label, got, want)
	}
}

// outEdges lists o's out-edges u -> v (v above u) as their owners and adjacency positions.
func outEdges(o *ordered) (eu, ep []uint32) {
	for u := range o.n {
		for p := o.up[u]; p < o.off[u+1]; p++ {
			eu = append(eu, uint32(u))
			ep = append(ep, uint32(p))
		}
	}
	return eu, ep
}

// labelledInput is census_labelled's input for o (label indexes idx) and par's tail (see
// labelledMain).
func labelledInput(o *ordered, idx []uint32, par ...uint64) *cudahost.Input {
	eu, ep := outEdges(o)
	in := &cudahost.Input{}
	cudahost.Put(in, o.off)
	cudahost.Put(in, o.nbr)
	cudahost.Put(in, eu)
	cudahost.Put(in, ep)
	cudahost.Put(in, idx)
	cudahost.Put(in, append([]uint64{uint64(len(eu))}, par...))
	return in
}

// TestLabelledKernelHost runs census_labelled's code on the host on random labelled graphs (1 to
// 4 labels, sparse to dense) and compares the classes its tally gives with the CPU's labelled
// census (which TestLabelledCensus checks against the oracle matcher), k = 3..5.
func TestLabelledKernelHost(t *testing.T) {
	bin := cudahost.Build(t, kernelFile, kernelSource(), labelledMain)
	for seed := range uint64(8) {
		labels := 1 + int(seed%4)
		g := gen.RandomGraph(seed+700, 8+int(seed%4)*3, []float64{0.25, 0.5, 0.8}[seed%3], labels, 1)
		o := newOrdered(g)
		idx, names := labelIndex(g, o)
		for k := 3; k <= 5; k++ {
			size, ok := labelledTableSize(k, len(names))
			if !ok {
				t.Fatal("table size")
			}
			in := labelledInput(o, idx, uint64(k), size, 0, 0, 1)
			out := strings.Split(strings.TrimSpace(string(cudahost.Run(t, bin, in))), "\n")
			if len(out) != 2 {
				t.Fatalf("host output: %d lines", len(out))
			}
			lc := newLabelledCensus(k)
			if err := lc.addTable(parseLine(t, out[0], "table"), names); err != nil {
				t.Fatal(err)
			}
			checkClasses(t, lc, g, fmt.Sprintf("seed %d k=%d (%d labels)", seed, k, labels))
			for _, x := range parseLine(t, out[1], "table") {
				if x != 0 {
					t.Errorf("seed %d k=%d: the stopped kernel counted", seed, k)
					break
				}
			}
		}
	}
}

// TestLabelledHashHost runs census_labelled's hash tally on the host on random graphs with many
// labels (7 to 1,000: most 5-vertex subgraphs a class of their own), through hashTally with
// tables of 16 to 64 slots (so that passes fill, tables grow and passes split), and compares the
// classes with the CPU's labelled census, k = 3..5; a stopped pass counts nothing.
func TestLabelledHashHost(t *testing.T) {
	bin := cudahost.Build(t, kernelFile, kernelSource(), labelledMain)
	split := 0
	for seed := range uint64(6) {
		labels := []int{7, 40, 1000}[seed%3]
		g := gen.RandomGraph(seed+1300, 11+int(seed%3)*2, []float64{0.3, 0.5}[seed%2], labels, 1)
		o := newOrdered(g)
		idx, names := labelIndex(g, o)
		for k := 3; k <= 5; k++ {
			for _, c := range [][2]uint64{{16, 64}, {64, 64}} {
				lc := newLabelledCensus(k)
				passes, err := lc.hashTally(names, c[0], c[1], func(capacity uint64, res, mod uint32) ([]uint32, []uint64, bool, error) {
					in := labelledInput(o, idx, uint64(k), capacity, 1, uint64(res), uint64(mod))
					out := strings.Split(strings.TrimSpace(string(cudahost.Run(t, bin, in))), "\n")
					if len(out) != 6 {
						t.Fatalf("host output: %d lines", len(out))
					}
					for _, x := range parseLine(t, out[5], "table") {
						if x != 0 {
							t.Fatalf("seed %d k=%d: the stopped kernel counted", seed, k)
						}
					}
					hk := parseLine(t, out[1], "keys")
					keys := make([]uint32, len(hk))
					for i, x := range hk {
						keys[i] = uint32(x)
					}
					return keys, parseLine(t, out[2], "table"), out[0] != "full 0", nil
				})
				if err != nil {
					t.Fatal(err)
				}
				if passes > 1 {
					split++
				}
				checkClasses(t, lc, g, fmt.Sprintf("seed %d k=%d (%d labels), table %v, %d passes", seed, k, labels, c, passes))
			}
		}
	}
	if split == 0 {
		t.Error("no case needed more than one pass")
	}
}

// TestLabelledTableRank: addTable's unranking inverts the kernel's rank (sum of C(l_i + i, i+1)
// over the sorted label indexes) for every multiset of k of L labels.
func TestLabelledTableRank(t *testing.T) {
	for k := 3; k <= 5; k++ {
		for L := 1; L <= 5; L++ {
			size, _ := labelledTableSize(k, L)
			pairs := k * (k - 1) / 2
			seen := map[uint64]bool{}
			var rec func(i int, ls []uint32)
			rec = func(i int, ls []uint32) {
				if i == k {
					var rank uint64
					for a, l := range ls {
						c, _ := chooseBig(uint64(l)+uint64(a), a+1)
						rank += c
					}
					if seen[rank] || rank<<pairs >= size {
						t.Fatalf("k=%d L=%d: %v: rank %d repeated or out of the table (%d)", k, L, ls, rank, size)
					}
					seen[rank] = true
					names := []uint32{10, 11, 12, 13, 14}[:L]
					table := make([]uint64, size)
					table[rank<<pairs|1] = 1 // an edge 0-1 only: disconnected, must fail
					lc := newLabelledCensus(k)
					if lc.addTable(table, names) == nil {
						t.Fatalf("k=%d: a disconnected code accepted", k)
					}
					table[rank<<pairs|1] = 0
					table[rank<<pairs|(1<<pairs-1)] = 3 // the clique
					lc = newLabelledCensus(k)
					if err := lc.addTable(table, names); err != nil {
						t.Fatal(err)
					}
					got := lc.classes[0].labels
					for a, l := range ls {
						if got[a] != names[l] {
							t.Fatalf("k=%d L=%d: %v unranked to %v", k, L, ls, got[:k])
						}
					}
					return
				}
				lo := uint32(0)
				if i > 0 {
					lo = ls[i-1]
				}
				for l := lo; l < uint32(L); l++ {
					rec(i+1, append(ls, l))
				}
			}
			rec(0, nil)
			if uint64(len(seen))<<pairs != size {
				t.Errorf("k=%d L=%d: %d multisets, table of %d", k, L, len(seen), size)
			}
		}
	}
}

// TestHashTallyDriver runs hashTally against a stand-in for the kernel (keys assigned to passes
// by their index modulo the pass's modulus, a pass full beyond 3/4 of its slots, tables above a
// bound refused with gpu.ErrBudget): tables that do not fit are halved, full ones grow or split,
// and every key is added once, whatever the start and the bound.
func TestHashTallyDriver(t *testing.T) {
	const k = 4
	names := []uint32{5, 6, 7, 8, 9, 10, 11}
	type entry struct {
		ls   [MaxK]uint32 // label indexes
		code uint32
		n    uint64
	}
	var entries []entry
	want := newLabelledCensus(k)
	for i := range 300 {
		e := entry{[MaxK]uint32{uint32(i % 7), uint32(i / 7 % 7), uint32(i / 49 % 7), 3}, []uint32{7, 41, 63}[i%3], uint64(i + 1)}
		slices.Sort(e.ls[:k])
		entries = append(entries, e)
		var ls [MaxK]uint32
		for j := range k {
			ls[j] = names[e.ls[j]]
		}
		if err := want.addCoded(e.code, ls, e.n); err != nil {
			t.Fatal(err)
		}
	}
	wantClasses, err := want.finish()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ start, maxCap, fits uint64 }{{1 << 10, 1 << 12, 1 << 12}, {1 << 10, 1 << 12, 128}, {64, 64, 64}, {64, 1 << 12, 256}} {
		lc := newLabelledCensus(k)
		refused := 0
		passes, err := lc.hashTally(names, c.start, c.maxCap, func(capacity uint64, res, mod uint32) ([]uint32, []uint64, bool, error) {
			if capacity > c.fits {
				refused++
				return nil, nil, false, fmt.Errorf("stand-in: %w", gpu.ErrBudget)
			}
			keys := make([]uint32, 8*capacity)
			counts := make([]uint64, capacity)
			used := uint64(0)
			for i, e := range entries {
				if uint32(i)%mod != res {
					continue
				}
				if used++; used > capacity-capacity/4 {
					return nil, nil, true, nil
				}
				s := (uint64(i) * 2654435761) % capacity
				for counts[s] != 0 {
					s = (s + 1) % capacity
				}
				keys[8*s] = 2
				copy(keys[8*s+1:], e.ls[:k])
				keys[8*s+6] = e.code
				counts[s] = e.n
			}
			return keys, counts, false, nil
		})
		if err != nil {
			t.Fatalf("%+v: %v", c, err)
		}
		got, err := lc.finish()
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(got) != fmt.Sprint(wantClasses) {
			t.Errorf("%+v: %d passes (%d refused): classes differ", c, passes, refused)
		}
		if c.fits < c.start && refused == 0 || c.fits < 300*4/3 && passes < 3 {
			t.Errorf("%+v: %d passes, %d refused: the halving or splitting was not exercised", c, passes, refused)
		}
	}
}
