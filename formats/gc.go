package formats

import (
	"runtime"
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
//
// When the last load ends, the garbage it leaves (the text, the parsed edges: a few times the
// file's size) would make the restored goal, reckoned from the heap live at the last collection
// (in a fresh process, none), due at once: a collection beside the count that follows, which
// the short process of a small graph's count never needed (wiki-Vote's 1.2 MB of text: in most
// counts, one collection during the plan, its mark worker on one of two cores). So when the
// heap is still small as the last load ends (below settleMax), the goal becomes the heap as it
// stands plus GOGC percent of it, as if all of it were live, until the next collection, which
// restores GOGC. A larger heap gets GOGC back at once, so that a large load's garbage does not
// stay.

// gcHeadroom returns the bytes a load of a file of size bytes (-1: unknown) is let allocate
// before a collection.
func gcHeadroom(size int64) int64 {
	if size < 0 {
		return 64 << 20
	}
	return 3*size + 16<<20
}

// settleMax is the heap, in bytes, up to which the end of the last load leaves the garbage to
// the next collection (see above).
var settleMax int64 = 64 << 20 // a variable for tests

var loadGC struct {
	sync.Mutex
	loads    int
	headroom int64
	saved    int    // GOGC before the first load
	settling uint64 // while the goal is that of a load's end (settle), its generation; else 0
	gen      uint64 // the last settling's generation
	settled  int    // the GOGC settle set: another one found in its place was set by someone else
}

// relaxGC raises the heap goal by headroom bytes until the returned function is called.
func relaxGC(headroom int64) (restore func()) {
	loadGC.Lock()
	defer loadGC.Unlock()
	if loadGC.loads == 0 {
		// During a settling the GOGC from before the first load stands, unless someone else
		// (watch turning the collector off) has set another since.
		if cur := debug.SetGCPercent(100); loadGC.settling == 0 || cur != loadGC.settled {
			loadGC.saved = cur
		}
		if loadGC.saved < 0 {
			debug.SetGCPercent(loadGC.saved)
		}
	}
	loadGC.settling = 0 // the loads' goal replaces the last one's end
	loadGC.loads++
	loadGC.headroom += headroom
	setLoadGC()
	return func() {
		loadGC.Lock()
		defer loadGC.Unlock()
		loadGC.loads--
		loadGC.headroom -= headroom
		if loadGC.loads == 0 {
			settle()
			return
		}
		setLoadGC()
	}
}

// settle sets the goal at the end of the last load (loadGC locked): GOGC again, or, for a heap
// below settleMax, the heap plus GOGC percent of it until the next collection (see above).
func settle() {
	heap := metricBytes("/memory/classes/heap/objects:bytes", settleMax)
	if loadGC.saved < 0 || heap >= settleMax {
		debug.SetGCPercent(loadGC.saved)
		return
	}
	loadGC.gen++
	loadGC.settling = loadGC.gen
	loadGC.settled = setPercent(heap * int64(100+loadGC.saved) / 100)
	// A cleanup of an object nothing references runs after the next collection.
	runtime.AddCleanup(new(gcSentinel), func(gen uint64) {
		loadGC.Lock()
		defer loadGC.Unlock()
		if loadGC.settling == gen {
			loadGC.settling = 0
			if cur := debug.SetGCPercent(loadGC.saved); cur != loadGC.settled {
				debug.SetGCPercent(cur) // set by someone else during the settling: it stays
			}
		}
	}, loadGC.gen)
}

// gcSentinel is the object whose cleanup ends a settling: large enough not to share its
// allocation with another (tiny objects are combined).
type gcSentinel struct{ _ [32]byte }

// setLoadGC sets GOGC so that the heap goal is about the live heap plus the loads' headroom.
func setLoadGC() {
	if loadGC.saved < 0 {
		return
	}
	setPercent(loadGC.headroom)
}

// setPercent sets GOGC, never below the saved one, so that the heap goal is about extra bytes
// beyond the live heap: the goal is the larger of 4 MB * GOGC/100 (the only one before the first
// collection) and live * (1 + GOGC/100). It returns the GOGC set.
func setPercent(extra int64) int {
	live := max(4<<20, metricBytes("/gc/heap/live:bytes", 0))
	pct := int(min(max(int64(loadGC.saved), 100*extra/live), 1<<30))
	debug.SetGCPercent(pct)
	return pct
}

// metricBytes reads a runtime metric of bytes, or returns def when it is not supported.
func metricBytes(name string, def int64) int64 {
	s := []metrics.Sample{{Name: name}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return def
	}
	return int64(s[0].Value.Uint64())
}
