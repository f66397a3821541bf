// Package mmapfile maps files read-only into memory for the loaders (formats' snapshots and text
// graphs, the update streams' fast path). It owns the one system-specific call; callers read the
// file instead when Map reports that mapping is not available.
package mmapfile

import (
	"errors"
	"unsafe"
)

// ErrUnsupported is returned by Map on systems without memory mapping.
var ErrUnsupported = errors.New("memory mapping not implemented on this system")

// A file that shrinks while it is mapped (truncated, or rewritten in place) faults when its pages
// past the new end are read. A goroutine that reads a mapping can turn such a fault into a panic
// (debug.SetPanicOnFault(true)) and, with Span.Faulted, the panic into an error for the file,
// instead of the crash it would be. Mappings that outlive the load (formats' snapshots, read by
// every engine's goroutines) cannot: there the defence is that the project's writers replace a
// file by renaming a new one over it (formats.CreateAtomic), never truncate it.

// Span is the address range [lo, hi) of a mapping (the zero Span holds nothing).
type Span struct{ lo, hi uintptr }

// SpanOf returns the address range of data.
func SpanOf(data []byte) Span {
	p := uintptr(unsafe.Pointer(unsafe.SliceData(data)))
	return Span{p, p + uintptr(len(data))}
}

// Faulted reports whether r, what recover returned on a goroutine that read the mapping with
// debug.SetPanicOnFault(true), is a memory fault at an address inside s.
func (s Span) Faulted(r any) bool {
	f, ok := r.(interface{ Addr() uintptr })
	return ok && s.lo <= f.Addr() && f.Addr() < s.hi
}
