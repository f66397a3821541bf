package formats

import (
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// gcPercent returns GOGC, leaving it as it was.
func gcPercent() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}

// settling reports whether the end of a load's goal is still in force.
func settling() bool {
	loadGC.Lock()
	defer loadGC.Unlock()
	return loadGC.settling != 0
}

// load stands for a load that leaves size bytes of garbage: it holds them between relaxGC and
// its restore.
func load(size int) {
	restore := relaxGC(gcHeadroom(int64(size)))
	garbage := make([]byte, size)
	for i := range garbage {
		garbage[i] = byte(i)
	}
	runtime.KeepAlive(garbage)
	restore()
}

// waitSettled collects until the settling's cleanup has run (it runs after a collection, on
// its own goroutine), failing after a few seconds.
func waitSettled(t *testing.T) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); settling(); {
		if time.Now().After(deadline) {
			t.Fatal("GOGC not restored after collections")
		}
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
}

// TestSettleAfterLoad checks the heap goal at the end of loads: a small heap's garbage is left
// to the next collection (GOGC raised until then, then restored), a heap of settleMax or more
// gets GOGC back at once, and GOGC=off stays off.
func TestSettleAfterLoad(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	runtime.GC()
	waitSettled(t)

	load(16 << 20)
	if !settling() || gcPercent() <= 100 {
		t.Fatalf("after a small load: settling %v, GOGC %d; want a raised goal until the next collection", settling(), gcPercent())
	}
	// A load during the settling keeps the GOGC from before the first.
	load(16 << 20)
	if !settling() {
		t.Fatal("after a second small load: not settling")
	}
	waitSettled(t)
	if p := gcPercent(); p != 100 {
		t.Fatalf("after the collection: GOGC %d, want 100", p)
	}

	defer func(m int64) { settleMax = m }(settleMax)
	settleMax = 1 << 20
	load(4 << 20)
	if settling() || gcPercent() != 100 {
		t.Fatalf("after a load past settleMax: settling %v, GOGC %d; want 100 at once", settling(), gcPercent())
	}

	debug.SetGCPercent(-1)
	settleMax = 64 << 20
	load(4 << 20)
	if settling() || gcPercent() != -1 {
		t.Fatalf("with GOGC=off: settling %v, GOGC %d; want off", settling(), gcPercent())
	}
}

// TestSettleKeepsAnotherGOGC: a GOGC set by someone else while the end of a load's goal is in
// force (watch turns the collector off for its load, after its patterns' files were read) is
// neither replaced by the next load's goal, nor by the GOGC from before the first load when
// that load ends or when the settling's collection comes.
func TestSettleKeepsAnotherGOGC(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	runtime.GC()
	waitSettled(t)

	load(16 << 20)
	if !settling() {
		t.Fatal("after a small load: not settling")
	}
	debug.SetGCPercent(-1) // the collector off, as watch's gcHold does
	restore := relaxGC(gcHeadroom(4 << 20))
	if p := gcPercent(); p != -1 {
		t.Errorf("during a load after GOGC=off: GOGC %d, want off", p)
	}
	restore()
	if p := gcPercent(); p != -1 {
		t.Errorf("after the load: GOGC %d, want off", p)
	}
	debug.SetGCPercent(100)
	waitSettled(t)

	// A GOGC set during the settling stays after its collection.
	load(16 << 20)
	if !settling() {
		t.Fatal("after a small load: not settling")
	}
	debug.SetGCPercent(-1)
	waitSettled(t)
	if p := gcPercent(); p != -1 {
		t.Errorf("after the settling's collection: GOGC %d, want off as set during it", p)
	}
}
