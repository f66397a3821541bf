package formats

import (
	"os"
	"sync"
)

// temporaries holds the names of the atomic writes' temporary files that are neither committed
// nor aborted yet, for RemoveTemporaries.
var temporaries struct {
	sync.Mutex
	names map[string]struct{}
}

func addTemporary(name string) {
	temporaries.Lock()
	defer temporaries.Unlock()
	if temporaries.names == nil {
		temporaries.names = make(map[string]struct{})
	}
	temporaries.names[name] = struct{}{}
}

func dropTemporary(name string) {
	temporaries.Lock()
	defer temporaries.Unlock()
	delete(temporaries.names, name)
}

// RemoveTemporaries removes every temporary file of an atomic write (CreateAtomic, WriteFile)
// still in progress, leaving each target as it was: for a process about to exit without
// finishing them, such as the command at a second Ctrl-C. A write in progress then fails.
func RemoveTemporaries() {
	temporaries.Lock()
	defer temporaries.Unlock()
	for name := range temporaries.names {
		os.Remove(name)
		delete(temporaries.names, name)
	}
}
