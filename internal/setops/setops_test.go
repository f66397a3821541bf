package setops

import (
	"math/rand/v2"
	"slices"
	"testing"
)

func randomSet(r *rand.Rand, n int, universe uint32) []uint32 {
	s := make([]uint32, 0, n)
	for range n {
		s = append(s, r.Uint32N(universe))
	}
	slices.Sort(s)
	return slices.Compact(s)
}

func naiveIntersect(a, b []uint32) []uint32 {
	var out []uint32
	for _, x := range a {
		if _, ok := slices.BinarySearch(b, x); ok {
			out = append(out, x)
		}
	}
	return out
}

// TestIntersect checks every intersection path (merge, galloping, and the SIMD blocks when this
// build has them: run the tests with GOEXPERIMENT=simd too) against a naive one.
func TestIntersectCount(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 2000; trial++ {
		a := randomSet(r, r.IntN(60), uint32(1+r.IntN(500)))
		b := randomSet(r, r.IntN(3000), uint32(1+r.IntN(5000)))
		if got, want := IntersectCount(a, b), len(naiveIntersect(a, b)); got != want {
			t.Fatalf("IntersectCount(%d, %d elements) = %d, want %d", len(a), len(b), got, want)
		}
		if got, want := IntersectCount(b, a), len(naiveIntersect(a, b)); got != want {
			t.Fatalf("IntersectCount swapped = %d, want %d", got, want)
		}
	}
}

func TestIntersect(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for iter := 0; iter < 3000; iter++ {
		a := randomSet(r, r.IntN(200), uint32(1+r.IntN(400)))
		b := randomSet(r, r.IntN(2000), uint32(1+r.IntN(4000)))
		want := naiveIntersect(a, b)
		for _, got := range [][]uint32{
			Intersect(a, b, nil), Intersect(b, a, nil),
			intersectMerge(a, b, nil), intersectGallop(a, b, nil), mergeFrom(a, b, 0, 0, nil),
		} {
			if !slices.Equal(got, want) && !(len(got) == 0 && len(want) == 0) {
				t.Fatalf("Intersect(%v, %v) = %v, want %v", a, b, got, want)
			}
		}
		c := randomSet(r, r.IntN(300), uint32(1+r.IntN(400)))
		var buf, tmp []uint32
		all := IntersectAll([][]uint32{b, c, a}, &buf, &tmp)
		if want3 := naiveIntersect(naiveIntersect(a, b), c); !slices.Equal(all, want3) && !(len(all) == 0 && len(want3) == 0) {
			t.Fatalf("IntersectAll = %v, want %v", all, want3)
		}
		blocks, i, j := intersectBlocks(a, b, nil)
		if got := mergeFrom(a, b, i, j, blocks); !slices.Equal(got, want) && !(len(got) == 0 && len(want) == 0) {
			t.Fatalf("intersectBlocks+merge = %v, want %v", got, want)
		}
	}
	t.Logf("SIMD intersection compiled in and enabled: %v", simdIntersect)
}

func BenchmarkIntersect(b *testing.B) {
	r := rand.New(rand.NewPCG(3, 4))
	x := randomSet(r, 2000, 20000)
	y := randomSet(r, 2000, 20000)
	out := make([]uint32, 0, 2000)
	b.Run("merge", func(b *testing.B) {
		for b.Loop() {
			out = mergeFrom(x, y, 0, 0, out[:0])
		}
	})
	b.Run("auto", func(b *testing.B) {
		for b.Loop() {
			out = intersectMerge(x, y, out[:0])
		}
	})
}

// TestIntersectEach checks the positions IntersectEach reports, merged and galloping either way,
// against a naive intersection.
func TestIntersectEach(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for trial := 0; trial < 2000; trial++ {
		a := randomSet(r, r.IntN(80), uint32(1+r.IntN(500)))
		b := randomSet(r, r.IntN(3000), uint32(1+r.IntN(5000)))
		if trial%2 == 1 {
			a, b = b, a
		}
		var got []uint32
		IntersectEach(a, b, func(i, j int) {
			if a[i] != b[j] {
				t.Fatalf("IntersectEach: a[%d] = %d, b[%d] = %d", i, a[i], j, b[j])
			}
			got = append(got, a[i])
		})
		if want := naiveIntersect(a, b); !slices.Equal(got, want) {
			t.Fatalf("IntersectEach(%d, %d elements) = %v, want %v", len(a), len(b), got, want)
		}
	}
}
