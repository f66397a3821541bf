package dynamic

import (
	"fmt"
	"sync"
)

// EdgeOp is one edge insertion (Delete false) or deletion between alive vertices U and V; Label
// is the inserted edge's label, or the deleted edge's.
type EdgeOp struct {
	U, V, Label uint32
	Delete      bool
}

// opsPerWorker is the fewest operations per goroutine of ApplyEdgeOps (tests lower it).
var opsPerWorker = 2048

// ownerShift groups consecutive vertices for ApplyEdgeOps's goroutines: vertex v belongs to
// goroutine (v >> ownerShift) % workers, so that two goroutines rarely write one cache line of
// the vertices' array.
const ownerShift = 6

// ApplyEdgeOps applies a sequence of edge operations, each valid against the graph as the ones
// before it leave it (the caller validated them: an insertion of an absent edge, a deletion of a
// present one with its label), leaving the graph as InsertEdge and RemoveEdge called in sequence
// would. A vertex's lists are changed by one goroutine, its operations in sequence order; with
// threads above 1 and enough operations, the vertices are shared out among up to threads
// goroutines. An operation the graph refuses (the caller's validation was wrong) is an error;
// the graph is then inconsistent.
func (d *Graph) ApplyEdgeOps(ops []EdgeOp, threads int) error {
	for i := range ops {
		if op := &ops[i]; !d.pairOK(op.U, op.V) {
			return fmt.Errorf("dynamic: edge operation %d: %d-%d is not a pair of alive vertices", i, op.U, op.V)
		}
	}
	workers := min(threads, len(ops)/opsPerWorker)
	var err error
	if workers <= 1 {
		err = d.applyOwned(ops, 0, 1)
	} else {
		errs := make([]error, workers)
		var wg sync.WaitGroup
		for w := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[w] = d.applyOwned(ops, uint32(w), uint32(workers))
			}()
		}
		wg.Wait()
		for _, e := range errs {
			if e != nil {
				err = e
				break
			}
		}
	}
	for i := range ops {
		if ops[i].Delete {
			d.numEdges--
		} else {
			d.numEdges++
		}
	}
	return err
}

// applyOwned applies the halves of ops whose vertex goroutine w of workers owns, in order.
func (d *Graph) applyOwned(ops []EdgeOp, w, workers uint32) error {
	for i := range ops {
		op := &ops[i]
		for _, h := range [2][2]uint32{{op.U, op.V}, {op.V, op.U}} {
			if (h[0]>>ownerShift)%workers != w {
				continue
			}
			var ok bool
			if op.Delete {
				ok = d.deleteChecked(h[0], h[1], op.Label, true)
			} else {
				ok = d.insertChecked(h[0], h[1], op.Label, true)
			}
			if !ok {
				return fmt.Errorf("dynamic: edge operation %d (%d-%d, label %d, delete %t) does not apply", i, d.orig[op.U], d.orig[op.V], op.Label, op.Delete)
			}
		}
	}
	return nil
}
