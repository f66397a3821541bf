package mining

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/submatch/submatch/formats"
	"github.com/submatch/submatch/internal/setops"
)

// TestScheduleBalance (SUBMATCH_SCHEDULE="name=path,...") explains how the census's local-count
// phases spread over many threads without a machine that has them: per vertex it counts the
// phase's inner steps (adjacency entries read, the work model), then replays the two schedulers
// (fixed chunks of consecutive vertices from the lowest up, as workers() hands them out; chunks
// cut by adjacency entries from the highest down, as vertexWorkers() does) for 2 to 64 workers,
// each chunk going to the first worker free: the makespan over the ideal (total / workers) is
// the slowdown from imbalance. It also prints, for the per-vertex atomic adds, the most that fall
// on one 64-byte line (those serialise, whatever the thread count). Lines "SCHEDULE ..." go to
// standard output (docs/benchmarks.md).
func TestScheduleBalance(t *testing.T) {
	spec := os.Getenv("SUBMATCH_SCHEDULE")
	if spec == "" {
		t.Skip("set SUBMATCH_SCHEDULE=name=path,... to replay the schedulers")
	}
	for _, item := range strings.Split(spec, ",") {
		name, path, _ := strings.Cut(item, "=")
		g, err := formats.Load(path, formats.Options{})
		if err != nil {
			t.Fatal(err)
		}
		o := newOrdered(g)
		cyc := make([]uint64, o.n)  // lower wedges read from u
		cli := make([]uint64, o.n)  // merge steps of the clique intersections from u
		lineOps := map[int]uint64{} // k4v atomic adds per cache line (old code)
		var atomics uint64
		var s1, s2 []uint32
		for u := range o.n {
			for _, v := range o.lower(u) {
				for _, w := range o.all(int(v)) {
					if w >= uint32(u) {
						break
					}
					cyc[u]++
				}
			}
			out := o.above(u)
			for i, v := range out {
				cli[u] += uint64(len(out) - i - 1 + len(o.above(int(v))))
				s1 = intersectInto(out[i+1:], o.above(int(v)), s1[:0])
				for _, w := range s1 {
					cli[u] += uint64(len(s1) + len(o.above(int(w))))
					s2 = intersectInto(s1, o.above(int(w)), s2[:0])
					if len(s2) > 0 {
						for _, x := range append([]uint32{uint32(u), v, w}, s2...) {
							lineOps[int(x)/8]++
							atomics++
						}
					}
				}
			}
		}
		var maxLine uint64
		for _, c := range lineOps {
			maxLine = max(maxLine, c)
		}
		fmt.Printf("SCHEDULE\t%s\tk4v atomics %d, most on one line %d (%.0f%%)\n", name, atomics, maxLine, 100*float64(maxLine)/float64(max(1, atomics)))
		for _, ph := range []struct {
			name string
			cost []uint64
		}{{"4-cycles", cyc}, {"cliques", cli}} {
			var total uint64
			for _, c := range ph.cost {
				total += c
			}
			for _, T := range []int{2, 4, 16, 64} {
				// old: chunks of consecutive vertices, lowest first
				chunk := min(256, max(1, o.n/(16*T)))
				var old [][2]int
				for lo := 0; lo < o.n; lo += chunk {
					old = append(old, [2]int{lo, min(lo+chunk, o.n)})
				}
				// new: chunks cut by adjacency entries, highest first
				var nw [][2]int
				target, chunks := o.chunking(T)
				for c := chunks - 1; c >= 0; c-- {
					lo, hi := o.chunk(c, target, chunks)
					nw = append(nw, [2]int{lo, hi})
				}
				span := func(chs [][2]int) uint64 {
					free := make([]uint64, T)
					for _, ch := range chs {
						i := 0
						for j := range free {
							if free[j] < free[i] {
								i = j
							}
						}
						for u := ch[0]; u < ch[1]; u++ {
							free[i] += ph.cost[u]
						}
					}
					return slices.Max(free)
				}
				ideal := float64(total) / float64(T)
				fmt.Printf("SCHEDULE\t%s\t%s\t%d workers\tconsecutive chunks %.2fx ideal\tby entries, top down %.2fx ideal\n",
					name, ph.name, T, float64(span(old))/ideal, float64(span(nw))/ideal)
			}
		}
	}
}

func intersectInto(a, b, dst []uint32) []uint32 {
	setops.IntersectEach(a, b, func(i, _ int) { dst = append(dst, a[i]) })
	return dst
}
