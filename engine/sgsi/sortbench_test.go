package sgsi

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkSortRows sorts a table of 2^22 rows of 5 words by a column of 26-bit values (the
// device's R-MAT scale) on 1, 2 and all goroutines.
func BenchmarkSortRows(b *testing.B) {
	const rows, k = 1 << 22, 5
	rng := rand.New(rand.NewPCG(1, 2))
	src := make([]uint32, rows*k)
	for i := range src {
		src[i] = rng.Uint32() >> 6
	}
	tab, buf := make([]uint32, len(src)), make([]uint32, len(src))
	for _, w := range []int{1, 2, 0} {
		b.Run(fmt.Sprintf("workers=%d", w), func(b *testing.B) {
			b.SetBytes(4 * int64(len(src)))
			for b.Loop() {
				copy(tab, src)
				sortRows(context.Background(), tab, buf, k, rowOrder{col: 2}, 26, w)
			}
		})
	}
}
