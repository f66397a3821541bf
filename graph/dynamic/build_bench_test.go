package dynamic

import (
	"bufio"
	"cmp"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/submatch/submatch/internal/testenv"
)

// BenchmarkBuildEmail10: BuildParts on csm-email10's initial graph (36,692 vertices, 183,831
// edges, ids dense), from arrays parsed before the timer starts, the collector off as watch
// holds it; run with -cpu 1 for the one-thread cost.
func BenchmarkBuildEmail10(b *testing.B) {
	f, err := os.Open(filepath.Join(testenv.Dir(), "csm-email10", "initial.graph"))
	if err != nil {
		b.Skip("no shared test data:", err)
	}
	defer f.Close()
	var orig []int64
	var labels, src, dst []uint32
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) < 3 {
			continue
		}
		x, _ := strconv.ParseUint(fs[1], 10, 32)
		y, _ := strconv.ParseUint(fs[2], 10, 32)
		switch fs[0] {
		case "v":
			orig = append(orig, int64(x))
			labels = append(labels, uint32(y))
		case "e":
			src, dst = append(src, uint32(x)), append(dst, uint32(y))
		}
	}
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	for b.Loop() {
		if _, err := Build(orig, labels, src, dst); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		debug.FreeOSMemory()
		b.StartTimer()
	}
}

// TestBuildDuplicates: Build on random edges given up to three times, in either direction, keeps
// each once: every list is its distinct neighbours in (label, id) order, cut in runs by label,
// with the degrees and the edge count of the distinct edges.
func TestBuildDuplicates(t *testing.T) {
	for seed := range uint64(20) {
		r := rand.New(rand.NewPCG(seed, 7))
		n := 2 + r.IntN(60)
		orig := make([]int64, n)
		labels := make([]uint32, n)
		for v := range n {
			orig[v] = int64(v)
			labels[v] = uint32(r.IntN(4))
		}
		want := make([]map[uint32]bool, n)
		for v := range want {
			want[v] = map[uint32]bool{}
		}
		var src, dst []uint32
		for range r.IntN(4 * n) {
			u, v := uint32(r.IntN(n)), uint32(r.IntN(n))
			if u == v {
				continue
			}
			for range 1 + r.IntN(3) {
				if r.IntN(2) == 0 {
					src, dst = append(src, u), append(dst, v)
				} else {
					src, dst = append(src, v), append(dst, u)
				}
			}
			want[u][v], want[v][u] = true, true
		}
		g, err := Build(orig, labels, src, dst)
		if err != nil {
			t.Fatal(err)
		}
		edges := 0
		for v := range n {
			var got []uint32
			for _, run := range g.adj[v] {
				if cap(run.Neighbors) <= len(run.Neighbors) {
					t.Fatalf("seed %d: vertex %d: a run without spare room", seed, v)
				}
				for _, w := range run.Neighbors {
					if labels[w] != run.VertexLabel {
						t.Fatalf("seed %d: vertex %d: %d in the run of label %d", seed, v, w, run.VertexLabel)
					}
				}
				got = append(got, run.Neighbors...)
			}
			exp := slices.Collect(maps.Keys(want[v]))
			slices.SortFunc(exp, func(a, b uint32) int { return cmp.Or(cmp.Compare(labels[a], labels[b]), cmp.Compare(a, b)) })
			if !slices.Equal(got, exp) || int(g.vs[v].degree) != len(exp) {
				t.Fatalf("seed %d: vertex %d: list %v degree %d, want %v", seed, v, got, g.vs[v].degree, exp)
			}
			edges += len(exp)
		}
		if g.NumEdges() != uint64(edges/2) {
			t.Fatalf("seed %d: %d edges, want %d", seed, g.NumEdges(), edges/2)
		}
	}
}
