package dynamic

import "testing"

// TestCompactReleasesSpare: a long neighbour list emptied by deletions is not kept as a spare
// run, and after Compact (which returns the capacity deletions left unused) no vertex holds one.
func TestCompactReleasesSpare(t *testing.T) {
	d := New()
	hub, _ := d.AddVertex(0, 0)
	const n = 20000
	for i := int64(1); i <= n; i++ {
		v, _ := d.AddVertex(i, 1)
		d.InsertEdge(hub, v, 0)
	}
	for i := int64(n + 1); i <= n+3; i++ {
		v, _ := d.AddVertex(i, uint32(i-n+1))
		d.InsertEdge(hub, v, 0)
	}
	for i := int64(1); i <= n; i++ {
		v, _ := d.Lookup(i)
		d.RemoveEdge(hub, v)
	}
	d.Compact()
	runs := d.adj[hub]
	if cap(runs) > len(runs) {
		if c := cap(runs[:len(runs)+1][len(runs)].Neighbors); c > 2*0+4 {
			t.Fatalf("after Compact vertex %d (degree %d) still holds a spare list of capacity %d", hub, d.Degree(hub), c)
		}
	}
}
