package cpu

import (
	"testing"

	"github.com/submatch/submatch/gen"
)

// TestHubRowDegree checks hubRowDegree against the rows buildHubRows chooses on random graphs,
// with every degree eligible and budgets from none to every row: each vertex above the degree
// gets a row, none below it does, and no row means degree 0.
func TestHubRowDegree(t *testing.T) {
	defer EveryVertexAHub(true)()
	for seed := uint64(1); seed <= 6; seed++ {
		g := gen.RandomGraphM(seed, 200, 1500+300*int(seed), 1, 1)
		rowBytes := uint64(8 * ((g.NumVertices() + 63) / 64))
		for _, rows := range []uint64{0, 1, 7, 50, 199, 1000} {
			budget := rows * rowBytes
			d := hubRowDegree(g, budget)
			h := buildHubRows(g, budget)
			if h == nil {
				if d != 0 {
					t.Errorf("seed %d, %d rows: no rows built, degree %d", seed, rows, d)
				}
				continue
			}
			for v := range g.NumVertices() {
				deg, has := g.Degree(uint32(v)), h.row[v] != 0
				if (deg > d && !has) || (deg < d && has) {
					t.Errorf("seed %d, %d rows: vertex %d of degree %d has a row %v, degree %d", seed, rows, v, deg, has, d)
				}
			}
		}
	}
}
