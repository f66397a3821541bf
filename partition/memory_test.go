package partition_test

import (
	"context"
	"runtime"
	"testing"

	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/partition"
)

// TestWorkingBytesBoundsAllocation checks that WorkingBytes bounds everything Grow and Ranges
// allocate without halo lists (NoHalos, as pbe partitions; runtime.MemStats.TotalAlloc over the
// call: more than their peak), that NoHalos leaves Halo nil and HeldBytes below the lists', and
// that the result's HeldBytes is within what was allocated. (Multilevel's is an estimate: its levels' sizes are
// not known before it coarsens.)
func TestWorkingBytesBoundsAllocation(t *testing.T) {
	g := gen.RandomGraphM(1, 20000, 100000, 1, 1)
	for _, m := range []partition.Method{partition.Grow, partition.Ranges} {
		var held [2]uint64
		for i, noHalos := range []bool{false, true} {
			opts := partition.Options{Budget: partition.GraphBytes(g) / 6, Method: m, NoHalos: noHalos}
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			pt, err := partition.Partition(context.Background(), g, opts)
			runtime.ReadMemStats(&after)
			if err != nil {
				t.Fatal(err)
			}
			alloc, bound := after.TotalAlloc-before.TotalAlloc, partition.WorkingBytes(g, opts)
			held[i] = pt.HeldBytes()
			// (With halo lists, their append's growth is allocated beyond the bound's peak.)
			if noHalos && alloc > bound || held[i] > alloc || len(pt.Parts) < 6 || noHalos != (pt.Halo == nil) {
				t.Errorf("%v, no halos %v: allocated %d bytes, bound %d, held %d, %d parts", m, noHalos, alloc, bound, held[i], len(pt.Parts))
			}
		}
		if held[1] >= held[0] {
			t.Errorf("%v: held %d bytes without halo lists, %d with", m, held[1], held[0])
		}
	}
}
