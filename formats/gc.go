package formats

import (
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// Loading a text graph allocates most of its memory at once, and nearly all of it stays live
// until the graph is built (the edges, then the adjacency lists), so a collection during the load
// finds little garbage: on a fresh process (the command line's case, where the heap goal starts
// at 4 MB) a megabyte of text used to pay three collections, each stopping the parser's tight
// loops. While loads run, the heap goal is raised to the live heap plus an estimate of what the
// loads will allocate (a few times the file's size), never more: the heap stays bounded, and
// collections resume (with the usual goal) when the last load ends. A GOGC=off or a memory limit
// (GOMEMLIMIT) keeps its effect.

// gcHeadroom returns the bytes a load of a file of size bytes (-1: unknown) is let allocate
// before a collection.
func gcHeadroom(size int64) int64 {
	if size < 0 {
		return 64 << 20
	}
	return 3*size + 16<<20
}

var loadGC struct {
	sync.Mutex
	loads    int
	headroom int64
	saved    int // GOGC before the first load
}

// relaxGC raises the heap goal by headroom bytes until the returned function is called.
func relaxGC(headroom int64) (restore func()) {
	loadGC.Lock()
	defer loadGC.Unlock()
	if loadGC.loads == 0 {
		loadGC.saved = debug.SetGCPercent(100)
		if loadGC.saved < 0 {
			debug.SetGCPercent(loadGC.saved)
		}
	}
	loadGC.loads++
	loadGC.headroom += headroom
	setLoadGC()
	return func() {
		loadGC.Lock()
		defer loadGC.Unlock()
		loadGC.loads--
		loadGC.headroom -= headroom
		if loadGC.loads == 0 {
			debug.SetGCPercent(loadGC.saved)
			return
		}
		setLoadGC()
	}
}

// setLoadGC sets GOGC so that the heap goal is about the live heap plus the loads' headroom
// (the goal is the larger of 4 MB * GOGC/100 and live * (1 + GOGC/100)).
func setLoadGC() {
	if loadGC.saved < 0 {
		return
	}
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	live := int64(4 << 20)
	if s[0].Value.Kind() == metrics.KindUint64 {
		live = max(live, int64(s[0].Value.Uint64()))
	}
	pct := max(int64(loadGC.saved), 100*loadGC.headroom/live)
	debug.SetGCPercent(int(min(pct, 1<<30)))
}
