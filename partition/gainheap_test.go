package partition

import (
	"container/heap"
	"math/rand/v2"
	"testing"
)

// refHeap is container/heap's view of a gainHeap: the order gainHeap's push and pop must keep
// (grow's parts depend on which of equal keys comes out first).
type refHeap []gainItem

func (h refHeap) Len() int           { return len(h) }
func (h refHeap) Less(i, j int) bool { return h[i].key > h[j].key }
func (h refHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *refHeap) Push(x any)        { *h = append(*h, x.(gainItem)) }
func (h *refHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// TestGainHeapOrder: pushes and pops in random sequence (many equal keys) come out as from
// container/heap, and they allocate nothing once the heap has grown.
func TestGainHeapOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var h gainHeap
	var r refHeap
	for i := range 20000 {
		if len(h) > 0 && rng.IntN(3) == 0 {
			got, want := h.pop(), heap.Pop(&r).(gainItem)
			if got != want {
				t.Fatalf("step %d: popped %v, container/heap pops %v", i, got, want)
			}
			continue
		}
		it := gainItem{key: int64(rng.IntN(20)) - 10, v: uint32(i)}
		h.push(it)
		heap.Push(&r, it)
	}
	for len(h) > 0 {
		if got, want := h.pop(), heap.Pop(&r).(gainItem); got != want {
			t.Fatalf("draining: popped %v, container/heap pops %v", got, want)
		}
	}
	h = make(gainHeap, 0, 64)
	if a := testing.AllocsPerRun(100, func() {
		for i := range 64 {
			h.push(gainItem{key: int64(i % 7), v: uint32(i)})
		}
		for len(h) > 0 {
			h.pop()
		}
	}); a != 0 {
		t.Errorf("push and pop allocate %v times a run", a)
	}
}
